/* SPDX-License-Identifier: MIT */
/*
 * lp-sweep's load modes, from the cells (docs/SWEEP.md, "Load modes"):
 *
 *   latency under load  a victim ordered pair measures latency while every
 *                       other pair of its round runs bandwidth; per pair the
 *                       loaded p50/p99 over the idle p50/p99 of the same run
 *                       (the sweep's cell) is the congestion impact factor
 *                       (CIF); a node's CIF is the median over its pairs.
 *   incast              k senders write to one receiver at once; per receiver
 *                       the aggregate, each sender's share and Jain's fairness
 *                       index (sum x)^2 / (n sum x^2); with a latency test, a
 *                       victim rank measures latency into the receiver
 *                       meanwhile (the receiver's port congested: its CIF).
 *
 * Verdicts (lp_sweep_load_diagnose, thresholds in lp_diag_opts):
 *   load_impact    a node's p99 CIF is impact_max times the other nodes'
 *                  median CIF (and at least impact_max: loaded latency is
 *                  never expected below idle), under load; or the p50 CIF of
 *                  the latency into it during its incast (one cell: its
 *                  median, not the tail of a few samples) against the other
 *                  receivers';
 *   incast_slow    a receiver's aggregate is below 1 - rel_max of the other
 *                  receivers' median aggregate, or below the floor min_gbps;
 *   incast_unfair  its senders' Jain index is below fair_min.
 * Plain C over struct lp_sweep_run: the unit tests build runs by hand.
 */
#ifndef LP_SWEEP_LOAD_H
#define LP_SWEEP_LOAD_H

#include <stddef.h>
#include <stdio.h>

#include "common/json.h"
#include "sweep/result.h"

/* "none", "latency", "incast", "both", NULL: indexed by the LP_LOAD_* bits (option choices) */
extern const char *const lp_sweep_load_names[];

/* Jain's fairness index of n values: 1 equal shares, 1/n one takes all. NaN: n = 0 or all 0. */
double lp_jain_index(const double *x, size_t n);

/* Latency under load of one ordered pair at one latency metric (us; NaN where not measured). */
struct lp_load_cell {
	double idle_p50, idle_p99;
	double load_p50, load_p99;
	double cif_p50, cif_p99; /* loaded / idle: the congestion impact factor */
};

/* Ratios of c's loaded over idle percentiles (NaN unless both are finite and > 0). */
void lp_load_cell_impact(struct lp_load_cell *c);

/*
 * Latency metric m under load: lc (n*n) per ordered pair, the idle side from
 * the sweep's cell (its last successful isolated retest when the sweep cell
 * failed), the loaded side from the LP_PHASE_LOADED cell. node_cif50/99 (n,
 * may be NULL): each node's median CIF over its pairs. Returns the pairs with
 * both sides (0: m was not measured under load).
 */
int lp_sweep_load_matrix(const struct lp_sweep_run *r, int m, struct lp_load_cell *lc,
			 double *node_cif50, double *node_cif99);

/* One incast: receiver recv at bandwidth metric m. */
struct lp_incast {
	int recv;
	int nsend;		 /* senders (failed ones count, with 0) */
	int nfail;		 /* senders whose test failed */
	double agg_gbps;	 /* sum of the senders' Gb/s */
	double agg_pct;		 /* agg_gbps over the receiver's port rate, % (NaN unknown) */
	double jain;		 /* Jain's index of the senders' Gb/s */
	double ref_gbps;	 /* the other receivers' median aggregate (NaN: no other) */
	int victim;		 /* the rank that measured latency into recv meanwhile; -1 none */
	int vic_metric;		 /* its latency metric */
	struct lp_load_cell vic; /* its latency: idle (the sweep) vs during the incast */
};

/*
 * Receiver recv's incast at metric m into ic (ref_gbps NaN), its senders'
 * cells into cells (r->n entries, may be NULL). Returns ic->nsend.
 */
int lp_sweep_incast(const struct lp_sweep_run *r, int m, int recv, struct lp_incast *ic,
		    const struct lp_sweep_att **cells);

/* Load verdicts into r->verdicts (called by lp_sweep_diagnose). 0 or -ENOMEM. */
int lp_sweep_load_diagnose(struct lp_sweep_run *r);

/* Sinks: the "load" object of the run's JSON (empty lists when no load cell), PREFIX-load-*.csv, the summary. */
void lp_sweep_load_json(struct lp_json *j, const struct lp_sweep_run *r);
/* The JSON Schema of the "load" member (a property of the document's schema). */
void lp_sweep_load_schema(struct lp_json *j);
int lp_sweep_load_csv(const struct lp_sweep_run *r, const char *prefix);
void lp_sweep_load_summary(const struct lp_sweep_run *r, FILE *f);

#endif
