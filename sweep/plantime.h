/* SPDX-License-Identifier: MIT */
/*
 * lp-sweep's time model (docs/SWEEP.md, "Time model"): how long a sweep of N
 * nodes and R rails takes for its tests and sizes, from measured components --
 * the harness's cost per round (barrier, gather, journal: through the model
 * transport), each test session's set-up (test process, device context, memory
 * registration, queue pairs, side-channel exchange: in the Soft-RoCE fabric),
 * and each test's own time for its parameters. `lp-sweep --plan` prints it
 * without MPI or a device, and the engine states the same prediction at
 * start-up and tracks it in its progress lines: one model for both.
 *
 *   round  = worst slot's directions x sum over metrics (session + test) + harness
 *   harness = round_s + round_rank_s x ranks + cell_s x cells per round
 *   sweep  = rounds x round                     (rails run at the same time)
 *            + min(rounds, 2) x directions x metrics x first   (set-up reuse: pools filling)
 *   total  = start + sweep + retests + load     (retests: at most rounds x pairs, one by one)
 *
 * With --fast (a screen mask) a round runs the screen's metrics only, and the
 * size sweep adds at most (retest pairs + references) x the other sizes, one
 * pair at a time, after the retests.
 */
#ifndef LP_SWEEP_PLANTIME_H
#define LP_SWEEP_PLANTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rdma/rdma.h"
#include "sweep/sched.h"

/* Set-up a loaded test session is given (connect, QP exchange) when loaders must outlast a victim. */
#define LP_SWEEP_LOAD_SETUP_S 1.5

/* The measured figures a prediction rests on, with where each comes from. */
struct lp_sweep_costs {
	const char *name;    /* "ndr", "softroce", "model" */
	const char *source;  /* one line: where the figures come from */
	double start_s;	     /* launch to the first round: MPI start, devices, exchanges */
	double round_s;	     /* harness per round (barrier, the round's waits), fixed part */
	double round_rank_s; /* and per rank of the job (its message to rank 0, the waits) */
	double cell_s;	     /* and per cell gathered (rank 0 decodes and journals it) */
	double session_s;    /* per test session: test process, device, memory, QPs, side channel */
	double worker_s;     /* and more per session when tests run in the test workers
			      * (--isolation process) where session_s leaves the worker out (the
			      * model transport's; the hardware presets count it in session_s) */
	double reuse_s;	     /* the same with set-up reuse (lp-sweep --reuse on: buffers and QPs
			      * kept, reset and reconnected); 0: no figure, as session_s */
	double first_s;	     /* with reuse: the extra set-up of a session in the first two rounds
			      * (the pools filling); set by lp_sweep_costs_reuse */
	double lat_us;	     /* one-way latency of a small message */
	double gbps;	     /* data rate of a bandwidth test, Gb/s */
	double test_s;	     /* > 0: every test takes this long whatever its parameters (model) */
};

/* The presets, by name (NULL-terminated list of names for options). */
extern const char *const lp_sweep_costs_names[];
const struct lp_sweep_costs *lp_sweep_costs_find(const char *name);

/*
 * With set-up reuse on (lp-sweep --reuse, the default): a session costs
 * reuse_s where the preset has that figure, and the first two rounds (whose
 * connections fill the pools) the difference more (first_s).
 */
void lp_sweep_costs_reuse(struct lp_sweep_costs *c, bool reuse);

/*
 * The model transport's costs: the model's set-up and test time, and its machine's harness
 * figures where the model gives them ("time": round_ms, ...), else this host's (the "model"
 * preset); with workers (--isolation process) each session pays the worker's round trip too.
 */
struct lp_sweep_model;
void lp_sweep_costs_model(struct lp_sweep_costs *c, const struct lp_sweep_model *m, bool workers);

/*
 * A real run's costs from its device (rank 0's): the Soft-RoCE figures for
 * rxe and siw, else the hardware preset at the port's own data rate.
 */
void lp_sweep_costs_dev(struct lp_sweep_costs *c, const struct lp_rdma_devinfo *dev);

/* The shape of a sweep: its rounds and pairs, from the schedule's kind without building it. */
struct lp_sweep_shape {
	int nodes, rails; /* ranks = nodes x rails; each rail its own schedule, all at once */
	enum lp_sched_kind kind;
	size_t rounds; /* rounds of one rail's schedule */
	size_t pairs;  /* ordered pairs measured, every rail */
	unsigned dirs; /* directions a slot runs one after the other (2, or 1 for ring) */
};

/*
 * The shape of kind over nodes x rails (k: random partners, seed its seed):
 * closed forms for round-robin, isolated and ring, the random schedule built.
 * 0, -EINVAL or -ENOMEM.
 */
int lp_sweep_shape_of(struct lp_sweep_shape *sh, enum lp_sched_kind kind, int nodes, int rails,
		      int k, uint64_t seed);

/* The shape of a schedule already built over ranks ranks (the engine's). */
void lp_sweep_shape_from(struct lp_sweep_shape *sh, const struct lp_sched *s, int ranks);

/* What the load phases take (0 without them). */
struct lp_sweep_load_plan {
	unsigned load;	/* LP_LOAD_* bits (sweep/mpi/sweep_mpi.h) */
	double time_s;	/* --load-time */
	int nlat;	/* latency metrics (the victims') */
	size_t victims; /* --load latency: ordered pairs with others in their round */
	int receivers;	/* --load incast: ranks */
};

/* A loader's span: the victim's nlat tests with their set-up, started at the same barrier. */
double lp_sweep_time_loader_s(double load_time_s, int nlat);
/* An incast sender's span: past its victim's latency tests when there are any. */
double lp_sweep_time_incast_s(double load_time_s, int nlat);
/* The expected seconds of the load phases. */
double lp_sweep_time_load(const struct lp_sweep_load_plan *lp);

/* What is predicted, in seconds. */
struct lp_sweep_prediction {
	int nmetrics;
	double test_s[32]; /* per metric: its session's set-up and the test */
	double pair_s;	   /* one direction of one pair: every metric */
	double harness_s;  /* the harness's part of a round at this rank count */
	double round_s;	   /* one round: the worst slot and the harness */
	double start_s;
	double sweep_s;	 /* every round */
	double retest_s; /* every retest the budget allows (rounds x pairs, one by one) */
	double sizes_s;	 /* --fast: the size sweep at most (pairs x the other sizes, one by one) */
	uint32_t screen; /* --fast: the metrics a round runs (bit m); 0 every metric */
	double load_s;
	double total_s; /* start + sweep + load: a run without suspects */
	double bound_s; /* and every retest: what to ask a scheduler for (with margin) */
	double worst_s; /* every session at its pair timeout (a fabric that hangs) */
	int slurm_min;	/* minutes to ask for: bound_s x 1.2 + 2 min, rounded up */
};

/* One test's time: the session's set-up and its iterations (or duration) at the costs. */
double lp_sweep_time_test(const struct lp_rdma_params *p, const struct lp_sweep_costs *c);

/*
 * The prediction for shape sh measuring the nmetrics tests p (screen: --fast's
 * metrics on every pair, sweep/fast.h; 0 all), with the retest policy pol
 * (sweep/retest.h: pairs per round, rounds, the budget in time), each session
 * bounded by pair_timeout_s, and the load phases lp (may be NULL).
 */
struct lp_sweep_retest_policy;
void lp_sweep_predict(const struct lp_sweep_shape *sh, const struct lp_rdma_params *p, int nmetrics,
		      uint32_t screen, const struct lp_sweep_costs *c,
		      const struct lp_sweep_retest_policy *pol, double pair_timeout_s,
		      const struct lp_sweep_load_plan *lp, struct lp_sweep_prediction *out);

/* A duration in its unit: "850 us", "13 ms", "16.6 s", "4.2 min", "3.1 h", "2.5 days"; buf. */
const char *lp_sweep_time_fmt(double s, char *buf, size_t len);

/* lp-sweep --plan's text: the schedule, every component with its source, the prediction. */
void lp_sweep_plan_print(FILE *f, const struct lp_sweep_shape *sh, const struct lp_rdma_params *p,
			 int nmetrics, const struct lp_sweep_costs *c,
			 const struct lp_sweep_prediction *pr);

/* The same as one JSON document (schema linkperf.plan/1) on f. 0 or -EIO. */
#define LP_SWEEP_PLAN_SCHEMA "linkperf.plan/1"
int lp_sweep_plan_json(FILE *f, const struct lp_sweep_shape *sh, const struct lp_rdma_params *p,
		       int nmetrics, const struct lp_sweep_costs *c,
		       const struct lp_sweep_prediction *pr);

#endif
