/* SPDX-License-Identifier: MIT */
/*
 * The accuracy benchmark's core (scripts/bench-diag.sh), independent of how a
 * run's cells are produced: a scenario (a cluster, its noise and its faults:
 * the truth), what one attempt of a cell is worth under it, the scenario as a
 * model file for `lp-sweep --model` (linkperf.model/1), and the scoring of a
 * run's verdicts against the truth (recall, honest outcomes, misattributions,
 * false positives). diag-sim produces the cells in process; the model
 * transport under mpirun produces them with the real engine; both are scored
 * here.
 */
#ifndef LP_DIAG_BENCH_H
#define LP_DIAG_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sweep/result.h"

/* Fault kinds a scenario injects. */
enum bench_kind {
	BK_NONE = 0,
	BK_SRC,	   /* a node slow as client (sender) */
	BK_DST,	   /* as server */
	BK_BOTH,   /* both ways */
	BK_LINK,   /* one direction of one pair */
	BK_TWO,	   /* two of the above at once, on distinct nodes */
	BK_LEAF,   /* a leaf switch: the cells leaving and entering it */
	BK_UPLINK, /* a leaf's uplink under ECMP: a share of its outbound cross-leaf cells */
	BK_PATH,   /* the path between two leaves, both ways */
	BK_RAIL,   /* every cell of one rail */
	BK_FAIL,   /* a node slow both ways among 3 % of cells that fail on every attempt */
	BK_NKINDS
};
/* "none", "src", "dst", "both", "link", "two", "leaf", "uplink", "path", "rail", "fail", NULL */
extern const char *const bench_kind_names[];

/* One row of the benchmark: a setting, run for `trials` clusters. */
struct bench_setting {
	int n;		/* nodes (ranks: n * rails) */
	int rails;	/* rails per node (1: none); cells only within a rail */
	int leaf_size;	/* nodes per leaf switch */
	bool topo;	/* the topology is given to the diagnosis (else: blocks) */
	double cv;	/* per-cell noise */
	double tail_df; /* Student-t noise of this df (unit variance); 0 Gaussian */
	double blip;	/* share of attempts that are blips, at 0.3-0.8x */
	double congest; /* share of sweep rounds congested, at 0.8x */
	int kind;	/* enum bench_kind */
	double sev;	/* the fault's goodness ratio (0.8 = 0.8x); <= 0: the stated limit */
	double share;	/* BK_UPLINK: share of the leaf's flows on the bad uplink */
	bool lat_only;	/* the fault touches the latency metric only (two metrics) */
	int metrics;	/* 1: bandwidth (latency with lat); 2: bandwidth and latency */
	bool lat;	/* one metric: latency */
	int trials, retest_rounds;
	double retest_time; /* the retest budget, in test times (<= 0: as long as the sweep) */
	int planner;	    /* the retest planner's order (enum lp_retest_order; 0: lp-sweep's) */
	uint64_t seed;
};

struct bench_fault {
	int kind; /* BK_SRC .. BK_RAIL (BK_TWO and BK_FAIL become their parts) */
	int a, b; /* node(s); leaf (and leaf) for leaf/uplink/path; rail */
	double sev;
};

/* One cluster of a setting: its faults and the cells that always fail. */
struct bench_trial {
	const struct bench_setting *s;
	int nranks;
	int nf;
	struct bench_fault f[4];
	uint8_t *failed; /* nranks^2 */
	uint64_t key;	 /* this trial's random stream */
};

struct bench_rng {
	uint64_t s;
};
double bench_uni(struct bench_rng *g);

/* A setting's defaults: 8 nodes, leaves of 4, 5 % noise, no fault, 1 bandwidth metric, 3 rounds. */
void bench_setting_default(struct bench_setting *s);
/* Draw a trial's faults (sev: the given one; the stated limit is the caller's). 0 or -ENOMEM. */
int bench_trial_make(struct bench_trial *t, const struct bench_setting *s, struct bench_rng *g,
		     double sev);
void bench_trial_free(struct bench_trial *t);
/* Rank r's node, rail and leaf. */
int bench_node(const struct bench_setting *s, int r);
int bench_rail(const struct bench_setting *s, int r);
int bench_leaf(const struct bench_setting *s, int r);
/* Is cell a -> b measured (within a rail)? */
bool bench_cell_on(const struct bench_setting *s, int a, int b);
/* The persistent goodness of cell a -> b in a metric (lat: latency) under the faults. */
double bench_factor(const struct bench_trial *t, int a, int b, bool lat);
/*
 * One attempt: the cell's value (Gb/s around 100, or us around 2), or NaN when
 * it fails. sweep_round >= 0: a sweep attempt in that round (congestion).
 */
double bench_draw(const struct bench_trial *t, struct bench_rng *g, int a, int b, bool lat,
		  int sweep_round);
/* The names and fabric a run of this setting has: nodes "n%d" (rails "n%d/%d"), leaves "leaf%d". */
int bench_run_setup(const struct bench_trial *t, struct lp_sweep_run *r);
/* The scenario as an lp-sweep model file (linkperf.model/1) and the topology beside it. */
int bench_write_model(const struct bench_trial *t, FILE *f);
int bench_write_topology(const struct bench_setting *s, FILE *f);

/* What a setting's trials came to. */
struct bench_tally {
	long trials, faults, found, honest, group_one;
	long promised, kept; /* faults at or beyond the limit their run stated; of those, found */
	long misattr_runs, confident_runs, unconf_runs, inconcl_runs;
	long healthy_nodes, fp_nodes;
	double retests, diag_s;
	double *limit[3]; /* per trial: the stated node, link and leaf limits (bench_tally_init) */
};
int bench_tally_init(struct bench_tally *ty, int trials);
void bench_tally_free(struct bench_tally *ty);
/* Score run r (diagnosed) against trial t. */
void bench_score(const struct bench_trial *t, const struct lp_sweep_run *r, struct bench_tally *ty);
/* The CSV header and one row. */
void bench_csv_header(FILE *f);
void bench_csv_row(FILE *f, const struct bench_setting *s, const struct bench_tally *ty,
		   const char *transport, bool at_limit);

#endif
