/* SPDX-License-Identifier: MIT */
/*
 * The model behind lp-sweep's model transport (`lp-sweep --model FILE`; fio's
 * null engine is the idea): the whole harness runs -- MPI, schedules, the
 * retest planner, journal, diagnosis, outputs -- and each pair test returns a
 * value drawn from this model instead of measuring RDMA. diag-sim draws its
 * cells from the same function, so one process and a 64-rank job given the
 * same model see the same cells.
 *
 * A cell's value is base(metric) x goodness for bandwidth (Gb/s) and
 * base(metric) / goodness for latency (one-way us), where goodness is the
 * product of the faults that touch the cell (node as client / as server, link,
 * leaf, uplink between two leaves, rail; each for latency, bandwidth or both),
 * a blip (a transient factor on a few attempts), a congested round, and the
 * noise exp(sigma * z), sigma = log(1 + cv), z Gaussian, Student-t (unit
 * variance) or a Gaussian mixture. Every draw is a pure function of (seed,
 * client, server, metric, attempt) -- and of (seed, phase, attempt, round) for
 * congestion -- through a counter-based generator, so a run is reproducible
 * whatever the rank count, the order of the tests or the process that draws.
 *
 * Ranks are nodes, or with `rails` > 1 rails of nodes: rank r is node
 * r / rails, rail r % rails; node n sits in leaf n / leaf_size. The file
 * format is documented in docs/SWEEP.md ("The model transport"); every key is
 * checked, so a typo is an error, not a fault that never applies.
 */
#ifndef LP_SWEEP_MODEL_H
#define LP_SWEEP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lp_fail; /* common/fail.h */

#define LP_SWEEP_MODEL_SCHEMA	   "linkperf.model/1"
#define LP_SWEEP_MODEL_MAX_FAULTS  256
#define LP_SWEEP_MODEL_MAX_BASE	   32
#define LP_SWEEP_MODEL_MAX_ROUNDS  64
#define LP_SWEEP_MODEL_MAX_METRICS 32 /* LP_SWEEP_MAX_METRICS (checked in model.c) */

/* Node fault roles, and the metric kinds a fault touches. */
#define LP_SWEEP_MODEL_CLIENT 1u
#define LP_SWEEP_MODEL_SERVER 2u
#define LP_SWEEP_MODEL_LAT    1u
#define LP_SWEEP_MODEL_BW     2u

enum lp_sweep_model_target {
	LP_SWEEP_MODEL_NODE = 0, /* a: node; roles */
	LP_SWEEP_MODEL_LINK,	 /* a -> b: client node a, server node b (one direction) */
	LP_SWEEP_MODEL_LEAF,	 /* a: leaf; the cells leaving or entering it (all: also inside) */
	LP_SWEEP_MODEL_UPLINK,	 /* a, b: two leaves; the cells between them, both directions */
	LP_SWEEP_MODEL_RAIL,	 /* a: rail; every cell on it */
};

/* "node", "link", "leaf", "uplink", "rail", NULL */
extern const char *const lp_sweep_model_target_names[];

enum lp_sweep_model_tail {
	LP_SWEEP_MODEL_GAUSS = 0,
	LP_SWEEP_MODEL_STUDENT, /* Student-t of df degrees of freedom, scaled to unit variance */
	LP_SWEEP_MODEL_MIXTURE, /* with probability mix_p the Gaussian is mix_scale times wider */
};

/* "gauss", "t", "mixture", NULL */
extern const char *const lp_sweep_model_tail_names[];

struct lp_sweep_model_fault {
	enum lp_sweep_model_target target;
	int a, b;	/* as the target says; node indices are resolved by lp_sweep_model_bind */
	int rail;	/* only on this rail; -1 = every rail */
	unsigned roles; /* node: LP_SWEEP_MODEL_CLIENT | LP_SWEEP_MODEL_SERVER */
	unsigned kinds; /* LP_SWEEP_MODEL_LAT | LP_SWEEP_MODEL_BW */
	double factor; /* goodness: bandwidth x factor, latency / factor; 0 = every attempt fails */
	bool all;      /* leaf: its internal cells too, not only those that leave or enter it */
	char name_a[80], name_b[80]; /* node names still to resolve ("" none) */
};

struct lp_sweep_model {
	uint64_t seed;
	int nodes;     /* 0 = the job's ranks / rails (lp_sweep_model_bind checks a given one) */
	int rails;     /* ranks per node */
	int leaf_size; /* nodes per leaf switch; 0 = one leaf */
	char name_fmt[32];	/* a node's name: printf of its index ("n%d"); rails add "/RAIL" */
	double lat_us, bw_gbps; /* base of every latency / bandwidth metric not named in base[] */
	double rate_gbps;	/* the modelled port's data rate (percent of link); 0 unknown */
	int nbase;
	struct {
		char key[32]; /* a metric's test and size ("write_bw 64 KiB") or test ("write_bw") */
		double value;
	} base[LP_SWEEP_MODEL_MAX_BASE];
	double cv; /* noise: coefficient of variation of one cell */
	enum lp_sweep_model_tail tail;
	double df;		 /* Student-t degrees of freedom (> 2) */
	double mix_p, mix_scale; /* mixture: probability and width of the wide component */
	double blip_rate;	 /* an attempt is a blip with this probability ... */
	double blip_lo, blip_hi; /* ... its goodness uniform in [lo, hi] */
	double cong_rate;	 /* a round is congested with this probability, ... */
	double cong_factor;	 /* ... every cell in it at this goodness */
	int ncong;		 /* and these sweep rounds are congested whatever the rate */
	int cong_rounds[LP_SWEEP_MODEL_MAX_ROUNDS];
	double fail_rate;	/* a cell fails on every attempt with this probability */
	double setup_s, test_s; /* each test's cost: set-up, then the test, on both sides */
	/* the machine's harness figures ("time": round_ms, round_rank_us, worker_ms, start_s, as
	 * scripts/bench-harness.sh prints them); < 0: the "model" preset's (sweep/plantime.c) */
	double round_s, round_rank_s, worker_s, start_s;
	int nfaults;
	struct lp_sweep_model_fault faults[LP_SWEEP_MODEL_MAX_FAULTS];
	/* bound by lp_sweep_model_bind */
	int nranks;
	int nmetrics;
	double mbase[LP_SWEEP_MODEL_MAX_METRICS];   /* per metric */
	unsigned mkind[LP_SWEEP_MODEL_MAX_METRICS]; /* LP_SWEEP_MODEL_LAT or _BW per metric */
};

/* One attempt of one cell: ranks a (client) -> b (server). */
struct lp_sweep_model_key {
	int a, b, metric;
	int phase;   /* enum lp_phase */
	int attempt; /* 0 the sweep, k the k-th retest round (fresh draws: blips are transient) */
	int round;   /* the round of the phase's schedule (congestion) */
};

/* Defaults: seed 1, one leaf, names "n%d", 2 us and 100 Gb/s, no noise, no faults, 1 ms tests. */
void lp_sweep_model_init(struct lp_sweep_model *m);

/* A model file's bytes (at most 1 MiB) into *text_p (malloc'ed, NUL-terminated). 0 or -errno. */
int lp_sweep_model_read(const char *path, char **text_p, size_t *len_p);

/*
 * A model from its JSON text (schema linkperf.model/1) over the defaults. 0;
 * -EINVAL with the key or value at fault in fail; -ENOTSUP: built without
 * jansson.
 */
int lp_sweep_model_parse(struct lp_sweep_model *m, const char *text, size_t len,
			 struct lp_fail *fail);

/*
 * For a job of nranks ranks measuring these metrics: node names resolved, the
 * node count checked, a base per metric. 0 or -EINVAL with the cause in fail.
 */
struct lp_sweep_metric;
int lp_sweep_model_bind(struct lp_sweep_model *m, int nranks, const struct lp_sweep_metric *metrics,
			int nmetrics, struct lp_fail *fail);

/* Rank r's node name ("n12", or "n12/3" with rails), its host ("n12": its rails' node) and rail. */
void lp_sweep_model_host(const struct lp_sweep_model *m, int rank, char *buf, size_t len);
void lp_sweep_model_name(const struct lp_sweep_model *m, int rank, char *buf, size_t len);
int lp_sweep_model_rail(const struct lp_sweep_model *m, int rank);

/*
 * One attempt of a cell (the model bound): 0 and its value in the metric's
 * unit, or -EIO with the cause in fail when the model fails it (a fault of factor 0, or
 * fail_rate).
 */
int lp_sweep_model_draw(const struct lp_sweep_model *m, const struct lp_sweep_model_key *k,
			double *value_p, struct lp_fail *fail);

#endif
