/* SPDX-License-Identifier: MIT */
/*
 * lp-sweep results: nodes, metrics, cells, verdicts, and their sinks (one JSON
 * document, CSV matrices, a readable summary). Plain C, no MPI and no verbs
 * calls: the MPI side fills these structs, rank 0 diagnoses and writes them,
 * and the unit tests build them by hand.
 */
#ifndef LP_SWEEP_RESULT_H
#define LP_SWEEP_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/fail.h"
#include "common/record.h"
#include "common/stats.h"
#include "gpu/inventory.h"
#include "qual/node.h"
#include "rdma/rdma.h"
#include "sweep/coll.h"
#include "sweep/diag.h"
#include "sweep/fabric.h"
#include "sweep/sched.h"

#define LP_SWEEP_ERR_LEN     160
#define LP_SWEEP_MAX_METRICS 32
#define LP_SWEEP_MAX_INCAST  32	       /* senders into one incast receiver (its server threads) */
#define LP_SWEEP_MAX_NODES   (1 << 17) /* nodes (ranks and rankless) a run or document may have */

/* One rank: a node (or one rail of a node). */
struct lp_sweep_node {
	int rank; /* MPI world rank */
	int rail; /* local rank with --rails, else 0 */
	char host[64];
	char name[80]; /* "host" or "host/rail" (unique label) */
	int status;    /* 0, or the negative errno of opening the device */
	char error[LP_SWEEP_ERR_LEN];
	struct lp_rdma_devinfo dev; /* as opened; only dev.name (maybe "") when it did not open */
	char mem[32];		    /* "host", "cuda:1" */
	char gpu_bdf[24];	    /* PCI address of that GPU (sysfs), "" unknown or host memory */
	char gpu_nic[8]; /* GPU-NIC PCIe distance: PIX, PXB, PHB, NODE, SYS, "" unknown */
	char kernel[64];
	struct lp_inv_gpus gpus; /* the host's GPUs: serials, VBIOS, slots (gpu/inventory.h) */
	int dscp;		 /* RoCE: the DSCP its QPs carry; -1 not RoCE or not known */
	char dscp_src[48];	 /* where it was read, or "derived: tclass N >> 2" */
};

/* One test at one size. */
struct lp_sweep_metric {
	char test[16]; /* "write_bw" */
	uint64_t size;
	bool lat;	/* latency (lower is better), else bandwidth */
	char label[32]; /* "write_bw 64 KiB" */
	char unit[8];	/* "us" (one-way p50) or "Gb/s" */
	int test_id;	/* enum lp_rdma_test (opaque here) */
};

/*
 * What a cell was measured in: the sweep or an isolated retest (the idle
 * matrices the diagnosis fits), or a load mode (sweep/load.h): a victim's
 * latency while the round's other pairs load the fabric, a loader's bandwidth
 * meanwhile, one sender of an incast, a victim's latency into the incast's
 * receiver meanwhile. Load cells stay out of the idle matrices.
 */
enum lp_phase {
	LP_PHASE_SWEEP = 0,
	LP_PHASE_RETEST = 1,
	LP_PHASE_LOADED = 2,
	LP_PHASE_LOADER = 3,
	LP_PHASE_INCAST = 4,
	LP_PHASE_INCAST_VICTIM = 5, /* latency into an incast's receiver during the incast */
	LP_PHASE_SIZES = 6, /* --fast: every size on the pairs the diagnosis flags (sweep/fast.h) */
};

/* "sweep", "retest", "loaded", "loader", "incast", "incast_victim", "sizes", NULL */
extern const char *const lp_sweep_phase_names[];

#define LP_SWEEP_CELL_CTR 6 /* error/congestion counters a cell keeps per end */

/*
 * The error- and congestion-class counters that moved on one end's port during
 * a cell's test (lp-rdma's lp_ctr_moved, alarms only: traffic counters stay in
 * lp-rdma's own JSON). The node record names the device and port.
 */
struct lp_sweep_ctr_end {
	bool valid;    /* read before and after the test on this end */
	uint32_t more; /* moved but not kept here (beyond LP_SWEEP_CELL_CTR) */
	uint32_t n;
	struct lp_counter c[LP_SWEEP_CELL_CTR];
};

/* One ordered pair (a client, b server) at one metric. */
struct lp_sweep_cell {
	int32_t metric;
	int32_t a, b;
	int32_t phase; /* enum lp_phase */
	int32_t round;
	int32_t attempt; /* the run's attempt that measured it: 1, then one more per --resume */
	int32_t status;	 /* 0 or negative errno */
	char error[LP_SWEEP_ERR_LEN];
	double value;	       /* Gb/s for bandwidth, one-way p50 us for latency; NaN on error */
	double wall_s;	       /* wall time of this test, both sides' setup included */
	struct lp_summary lat; /* latency in us (the reported one-way figure); NaN for bandwidth */
	bool halved;	       /* one-way = RTT/2 */
	/* bandwidth of the client's direction */
	double gbytes_s, gbits_s, mmsg_s, pct_link;
	uint64_t iters;
	double ival_min,
		ival_max; /* --interval: the worst and best interval in value's unit; NaN */
	struct lp_sweep_ctr_end ctr_client, ctr_server; /* counters that moved on each end */
};

/*
 * A cell as the run keeps it (r->cells): struct lp_sweep_cell's fields, 64
 * bytes, but the parts that only some cells have. The error text and the
 * counters that moved sit in r->extra (x: their index there + 1; 0 none); the
 * latency summary (latency tests), the four bandwidth figures (bandwidth
 * tests) and the interval extremes (--interval) in r->det, only for the cells
 * whose part holds anything but the NaNs of lp_sweep_cell_init (parts: the
 * LP_SWEEP_PART_* present, in that order from det's 8-byte unit d). A latency
 * cell takes 152 bytes, a bandwidth cell 96, a failed cell 64, where each
 * took 200 (and 1,352 unpacked): a 1,024-node, 8-rail run holds 17 million.
 * lp_sweep_add_cell packs a cell, lp_sweep_cell_get unpacks one.
 */
struct lp_sweep_att {
	uint8_t metric;
	uint8_t phase; /* enum lp_phase */
	bool halved;
	bool ctr_valid[2]; /* the client's and the server's counters were read */
	uint8_t parts;	   /* LP_SWEEP_PART_* kept in r->det from unit d */
	int32_t a, b;
	int32_t round;
	int32_t attempt;
	int32_t status;
	uint32_t x; /* r->extra[x - 1] holds its error text and moved counters; 0 none */
	uint32_t d; /* its parts' first 8-byte unit in r->det */
	double value;
	double wall_s;
	uint64_t iters;
};

#define LP_SWEEP_PART_LAT  1u /* struct lp_summary lat */
#define LP_SWEEP_PART_BW   2u /* gbytes_s, gbits_s, mmsg_s, pct_link */
#define LP_SWEEP_PART_IVAL 4u /* ival_min, ival_max */

/* What few cells have: an error text, counters that moved. */
struct lp_sweep_att_extra {
	char error[LP_SWEEP_ERR_LEN];
	struct lp_sweep_ctr_end ctr_client, ctr_server;
};

/* e = m's error/congestion entries (the first LP_SWEEP_CELL_CTR; the rest counted in more). */
void lp_sweep_ctr_end_fill(struct lp_sweep_ctr_end *e, const struct lp_ctr_moved *m);

enum lp_verdict_kind {
	LP_VERDICT_NODE_SLOW = 0,
	LP_VERDICT_NODE_FAILED,
	LP_VERDICT_LINK_SLOW,
	LP_VERDICT_LINK_FAILED,
	LP_VERDICT_PAIR_SLOW,	 /* N = 2: node or link cannot be told apart */
	LP_VERDICT_AMBIGUOUS,	 /* N = 3: several explanations fit; candidates listed */
	LP_VERDICT_INCONCLUSIVE, /* the noise is too high for the thresholds */
	LP_VERDICT_ERRORS,	 /* error counters move while the numbers look normal (a == b:
				  * a node, else the link a-b): a link about to fail */
	LP_VERDICT_LOAD_IMPACT,	 /* a node's latency under load rises far more than the others' */
	LP_VERDICT_INCAST_SLOW, /* a receiver's incast aggregate far below the others' (or a floor) */
	LP_VERDICT_INCAST_UNFAIR, /* a receiver's senders' shares collapse (Jain's index) */
	LP_VERDICT_SWITCH_SLOW,	  /* a leaf switch: the cells through it, or crossing it (group) */
	LP_VERDICT_UPLINK_SLOW,	  /* a leaf's uplinks one way, or the path leaf -> leaf (group) */
	LP_VERDICT_RAIL_SLOW,	  /* every cell of one rail (group) */
	LP_VERDICT_GROUP_SUSPECT, /* no topology: these nodes share a fault, likely their switch */
	LP_VERDICT_UNCONFIRMED, /* stood out once (a link cell's one attempt, a node's close call):
				   * not a verdict until retested; its settle command says how */
};

extern const char *const lp_verdict_names[]; /* "node_slow", ... */

/* Exit code of a run whose only verdicts are "inconclusive" or "unconfirmed" (1 when anything
 * is named). */
#define LP_SWEEP_EXIT_INCONCLUSIVE 3

/* An error/congestion counter summed over a verdict's tests: what it cites. */
#define LP_VERDICT_CTR 8
struct lp_verdict_ctr {
	int on; /* whose port: a node index, or -1: the partners of the verdict's node */
	uint8_t src;
	char name[LP_CTR_NAME_LEN];
	uint8_t cls; /* enum lp_ctr_class */
	uint64_t delta;
	int cells; /* cells in which it moved */
};

#define LP_VERDICT_MEMBERS 64 /* members a group verdict lists (nmembers counts them all) */

struct lp_verdict {
	enum lp_verdict_kind kind;
	int a, b;	   /* node a; for links and pairs the two nodes with a < b; -1 none */
	unsigned dirs;	   /* links: LP_DIR_XY (a->b), LP_DIR_YX (b->a); nodes: LP_NODE_* */
	char metrics[160]; /* labels of the metrics that show it, comma separated */
	char reason[768];
	/* the evidence of the strongest metric behind it */
	double ratio;	 /* goodness ratio of the fault (0.5 = half as good); NaN none */
	double z;	 /* effect / its standard error; NaN none */
	double noise_cv; /* per-cell noise (CV) it stood out from */
	int cells;	 /* cells behind the effect */
	int agree;	 /* partners agreeing (nodes) */
	int retests;	 /* isolated retests among those cells */
	int ncand;	 /* ambiguous / pair_slow: the candidates */
	struct lp_diag_item cand[LP_DIAG_MAX_CAND];
	int nctr; /* counters that moved on its node(s) during its tests, errors first */
	struct lp_verdict_ctr ctr[LP_VERDICT_CTR];
	/* error control: the strongest metric's test */
	double p;     /* its p-value (nodes: the effect; links: the retests; groups: the block) */
	double level; /* what p had to pass (Sidak per-test level, or the BH threshold); NaN none */
	/* shared faults (switch_slow, uplink_slow, rail_slow, group_suspect) */
	char group[136];  /* "leaf03", "leaf03->leaf07", "rail 2"; "" a block */
	char scope[8];	  /* "all", "cross", "out", "in", "intra", "path" */
	bool partial;	  /* a share of its cells slow (frac), not all */
	double frac;	  /* slow cells / cells in its scope */
	int nmembers;	  /* member nodes; the first LP_VERDICT_MEMBERS in members */
	uint32_t nlisted; /* members listed: min(nmembers, LP_VERDICT_MEMBERS) */
	int members[LP_VERDICT_MEMBERS];
	char settle[320]; /* unconfirmed: the command(s) that settle it */
};

/* One alarm counter summed over the cells of a pair, on one end's port. */
struct lp_sweep_ctr_sum {
	int lo, hi; /* the pair, lo < hi */
	int on;	    /* whose port: lo or hi */
	uint8_t src;
	char name[LP_CTR_NAME_LEN];
	uint8_t cls; /* enum lp_ctr_class */
	uint64_t delta;
	int cells; /* cells in which it moved */
};

/* The counters of a whole run (sweep/evidence.c), rebuilt by lp_sweep_diagnose. */
struct lp_sweep_evidence {
	struct lp_sweep_ctr_sum *sums;
	size_t nsums, cap;
	int *partners; /* per node: partners with counters read on either end */
	int *moved;    /* per node: of those, partners whose pair moved an error counter */
};

struct lp_sweep_run {
	int n;
	struct lp_sweep_node *nodes; /* n */
	int nmetrics;
	struct lp_sweep_metric metrics[LP_SWEEP_MAX_METRICS];
	struct lp_sweep_att *cells; /* every attempt, in the order added */
	size_t ncells, cap;
	struct lp_sweep_att_extra *extra; /* the cells' error texts and counters (sparse) */
	size_t nextra, extra_cap;
	uint64_t *det; /* the cells' latency, bandwidth and interval parts, in 8-byte units */
	size_t ndet, det_cap;
	/* how it ran (echoed into the JSON) */
	const struct lp_sched *sched; /* may be NULL */
	const char *sched_name;
	int rails; /* 0: one rank per node, else ranks per node */
	int random_k;
	uint64_t seed;
	int tclass, sl; /* --tclass (-1: the device's) and --sl of every QP */
	int qp_timeout; /* --qp-timeout of every QP (4.096 us << N per try) */
	double pair_timeout_s;
	uint64_t bw_iters, lat_iters;
	struct lp_diag_opts dopts;
	int retest_max;
	int retest_rounds;
	size_t nretests;
	char started[32];
	double wall_s, sweep_s, retest_s, load_s;
	const char *load;   /* load modes run: "latency", "incast", "latency,incast"; NULL none */
	double load_time_s; /* a victim's or an incast sender's test duration */
	int incast_k;	    /* senders per incast receiver */
	bool interrupted;   /* SIGINT/SIGTERM: the cells are those done until then */
	bool incomplete;    /* read from a journal that has no end: a rank or rank 0 died */
	int attempt;	    /* this run's attempt: 1, or one more than the journal it resumes */
	char resumed[256];  /* the journal it resumes, "" none */
	char model[256]; /* lp-sweep --model: the model whose values these are (no measurement) */
	uint32_t screen; /* --fast: bit m, metric m measured on every pair (the rest by the
			      * size sweep, not judged as matrices: sweep/fast.h); 0 every metric */
	uint64_t test_bytes; /* --test-bytes: what each bandwidth test moved; 0 its iterations */
	struct lp_sched *sched_own; /* a schedule r owns (rebuilt from a journal); freed with r */
	size_t rounds; /* the schedule's rounds (sched's; a document read back: its own) */
	int ngates;    /* 0 not judged, else n */
	struct lp_qual_gate *gates; /* per node: its port's gate (qual/node.h); ngates */
	char fleet_profile[64];	    /* the profile most nodes' ports match, "" none */
	/* diagnosis outputs */
	struct lp_diag *diag; /* nmetrics, after lp_sweep_diagnose */
	struct lp_verdict *verdicts;
	int nverdicts;
	struct lp_sweep_evidence ev;
	struct lp_fabric *fabric; /* the switch fabric (sweep/fabric.h), NULL none; freed with r */
	double retest_time_s;	  /* the retest budget in time (--retest-time; 0: the sweep's) */
	struct lp_coll_run *coll; /* the collective phase and imports (sweep/coll.h); NULL none */
};

/* n nodes (zeroed; caller fills). 0 or -ENOMEM. */
int lp_sweep_run_init(struct lp_sweep_run *r, int n);
void lp_sweep_run_free(struct lp_sweep_run *r);
int lp_sweep_add_metric(struct lp_sweep_run *r, const char *test, int test_id, bool lat,
			uint64_t size);
int lp_sweep_add_cell(struct lp_sweep_run *r, const struct lp_sweep_cell *c);
void lp_sweep_cell_init(struct lp_sweep_cell *c, int metric, int a, int b, int phase, int round);
/* Cell k of r (k < r->ncells) unpacked into c, its error text and counters with it. */
void lp_sweep_cell_get(const struct lp_sweep_run *r, size_t k, struct lp_sweep_cell *c);
/* Cell k (k < r->ncells) replaced by c (in range as lp_sweep_add_cell's). 0, -EINVAL or -ENOMEM. */
int lp_sweep_cell_set(struct lp_sweep_run *r, size_t k, const struct lp_sweep_cell *c);
/* A kept cell's error text ("" none) and its counters on one end (0 client, 1 server). */
const char *lp_sweep_att_error(const struct lp_sweep_run *r, const struct lp_sweep_att *c);
const struct lp_sweep_ctr_end *lp_sweep_att_ctr(const struct lp_sweep_run *r,
						const struct lp_sweep_att *c, int end);
/* A kept cell's latency summary (NaNs, n 0: none) and its bandwidth in Gb/s (NaN none). */
const struct lp_summary *lp_sweep_att_lat(const struct lp_sweep_run *r,
					  const struct lp_sweep_att *c);
double lp_sweep_att_gbits(const struct lp_sweep_run *r, const struct lp_sweep_att *c);
/* Room for n more cells at once (a reader that knows how many it holds). 0 or -ENOMEM. */
int lp_sweep_reserve(struct lp_sweep_run *r, size_t n);

/*
 * The matrix diagnosis sees for one metric: a sweep cell and its isolated
 * retests combined as the median of the successful attempts
 * (lp_diag_combine); a cell fails only if every attempt failed.
 * v, fail and sched are n*n arrays the caller provides; att (n*n, may be
 * NULL) receives the successful attempts per cell, best (n*n, may be NULL) the
 * best attempt, spread (n*n, may be NULL) the spread of a cell's attempts
 * (lp_diag_spread), rep_p (may be NULL) the
 * noise between repeated attempts (lp_diag_in's rep_sigma and rep_pairs).
 * 0 or -ENOMEM.
 */
int lp_sweep_matrix(const struct lp_sweep_run *r, int metric, double *v, uint8_t *fail,
		    uint8_t *sched, uint8_t *att, double *best, double *spread,
		    struct lp_diag_in *rep_p);

/*
 * Cells the schedule (r->sched) holds that have no cell at all, any attempt:
 * miss (n*n*nmetrics, index (a*n + b)*nmetrics + m, may be NULL) is set to 1
 * for each. Returns their count (0 without a schedule).
 */
size_t lp_sweep_missing(const struct lp_sweep_run *r, uint8_t *miss);

/*
 * Metric m is measured on every pair and judged as a matrix: every metric
 * without --fast, the screen's with it (r->screen; sweep/fast.c).
 */
bool lp_sweep_metric_screened(const struct lp_sweep_run *r, int m);

/* Diagnose every metric and build the verdict list. 0 or -ENOMEM. */
int lp_sweep_diagnose(struct lp_sweep_run *r);
/*
 * Add a verdict, or merge into the one of the same kind and nodes (its
 * metrics, reasons and candidates; the strongest metric's numbers in ev win).
 * 0 or -ENOMEM.
 */
int lp_sweep_verdict_add(struct lp_sweep_run *r, enum lp_verdict_kind kind, int a, int b,
			 unsigned dirs, const char *label, const char *reason,
			 const struct lp_verdict *ev);
/*
 * The counters' part of the diagnosis (called by lp_sweep_diagnose after the
 * metrics' verdicts): sums per pair and port into r->ev; an "errors" verdict
 * for a node whose pairs moved error counters with more than dopts.vote of
 * its partners (two at least), or, where no node explains it, for the pair;
 * nodes and links already named slow or failed are explained (their verdicts
 * cite the counters instead); every verdict naming a node or link then cites
 * what moved on it. 0 or -ENOMEM.
 */
int lp_sweep_evidence(struct lp_sweep_run *r);
void lp_sweep_evidence_free(struct lp_sweep_evidence *ev);
/* 0 nothing flagged, 1 something named or a scheduled cell missing (lp_sweep_missing),
 * LP_SWEEP_EXIT_INCONCLUSIVE only inconclusive metrics. */
int lp_sweep_exit_code(const struct lp_sweep_run *r);

#define LP_SWEEP_SCHEMA	   "linkperf.sweep/2"
#define LP_SWEEP_SCHEMA_V1 "linkperf.sweep/1"

/*
 * Read a recorded run back, a document (linkperf.sweep/2, or /1) or a journal
 * (sweep/journal.h), told apart by content: nodes, metrics, options and every
 * attempt: the input of `lp-sweep --diagnose` and `--resume`. r is
 * initialised here; thresholds come from the file (the caller may override
 * r->dopts before diagnosing). Strict (common/record.h): a member of the
 * wrong type, a duplicate key, a self pair, a node or metric index out of
 * range is refused with the member's path in f; counts are checked against
 * what the file holds before anything is allocated for them. 0, -ENOTSUP
 * (built without a JSON library), -EINVAL (f says what), -ENOMEM, or the
 * negative errno of opening it.
 */
int lp_sweep_read_json(struct lp_sweep_run *r, const char *path, struct lp_fail *f);
/* The same from a text in memory (len bytes; a document or a journal). */
int lp_sweep_read_text(struct lp_sweep_run *r, const char *text, size_t len, struct lp_fail *f);

/* Sinks. */
/* The document (LP_SWEEP_SCHEMA; docs/schema/README.md) to f: 0 or a negative errno. */
int lp_sweep_write_json(const struct lp_sweep_run *r, FILE *f, int exit_code);
/*
 * The same with extra members written by extra(j, arg) before "exit_code"
 * (the qualification of qual/, with its records): 0 or a negative errno.
 */
int lp_sweep_write_json_extra(const struct lp_sweep_run *r, FILE *f, int exit_code,
			      void (*extra)(struct lp_json *j, const void *arg), const void *arg);
/* The document's JSON Schema (docs/schema/linkperf.sweep-2.json), from the records. */
int lp_sweep_write_schema(FILE *f);
/* The same with the schemas of extra(j)'s members (as properties) beside the document's own. */
int lp_sweep_write_schema_extra(FILE *f, void (*extra)(struct lp_json *j));
/* PREFIX-<test>-<size>.csv per metric (matrix) and PREFIX-cells.csv (one row per cell). */
int lp_sweep_write_csv(const struct lp_sweep_run *r, const char *prefix);
void lp_sweep_print_summary(const struct lp_sweep_run *r, FILE *f);

/*
 * The records (sweep/records.c; common/record.h: one declaration gives the
 * wire form, the JSON form, the strict reader and the schema): the nodes and
 * cells ranks send rank 0, and the document's parts.
 */
extern const struct lp_record lp_sweep_cell_record;
extern const struct lp_record lp_sweep_node_record;
extern const struct lp_record lp_sweep_run_record;
extern const struct lp_record lp_sweep_metric_record;
extern const struct lp_record lp_sweep_diag_record;
extern const struct lp_record lp_sweep_effects_record;
extern const struct lp_record lp_verdict_record;
extern const struct lp_record lp_sweep_ctr_sum_record;
/* "none", "ok", "slow", "fail", NULL: enum lp_cell_class */
extern const char *const lp_sweep_class_names[];

#endif
