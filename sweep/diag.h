/* SPDX-License-Identifier: MIT */
/*
 * lp-sweep diagnosis: from an N x N matrix of one metric (one test at one size)
 * to "this node is slow", "this link is slow", "this node failed".
 *
 * Cells are ordered pairs: v[a*n+b] is the client a measuring against server b
 * (for write tests data flows a -> b). Row a is node a as the source, column b
 * node b as the destination; they are scored separately because a fault often
 * has a direction (tc shapes egress only: a throttled node is slow as a source
 * of bandwidth and fine as a destination).
 *
 * Method (docs/SWEEP.md):
 *  1. Reference. The median of each node's row and of its column, then the
 *     median of those 2N medians: a bad node spoils its own row/column median
 *     only, so the reference survives up to half the nodes being bad (a plain
 *     median of the cells does not: at N=4 one slow node touches 6 of 12).
 *     Nodes whose row or column median deviates by more than rel_max are set
 *     aside and the reference is recomputed from the cells among the others.
 *  2. Ratio. Every cell becomes a goodness ratio to the reference: v/ref for
 *     bandwidth, ref/v for latency, so 1 is normal and 0.5 is "half as good".
 *  3. Threshold. sigma = 1.4826 * MAD of the ratios among the healthy nodes'
 *     cells (a robust standard deviation); a cell is slow when its ratio is
 *     below 1 - t, t = k * sigma clamped to [rel, rel_max]: beyond the noise,
 *     never for a deviation under rel, always for one over rel_max (a noisy
 *     fabric must not hide a link at a quarter of the reference). Absolute
 *     floors (min Gb/s, max us) mark cells slow regardless.
 *  4. Node vote. A node is slow as a source (destination) when more than
 *     `vote` of its measured partners see its row (column) cells slow, and at
 *     least two do (with one partner a node cannot be told from a link). A
 *     split vote is counted again without partners that are unanimously slow
 *     in the matching role (a slow client slows every cell of its row).
 *     A node failed when more than `vote` of all its cells failed.
 *  5. Link. A slow (failed) cell that neither endpoint's verdict explains,
 *     both nodes being healthy with their other partners, is a slow (failed)
 *     link.
 */
#ifndef LP_SWEEP_DIAG_H
#define LP_SWEEP_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lp_diag_opts {
	double k;		/* robust threshold: k * 1.4826 * MAD (default 3) */
	double rel;		/* relative floor: deviation below it is never flagged (default 0.2) */
	double rel_max;		/* deviation beyond it is always flagged, however noisy (default 0.5) */
	double vote;		/* fraction of partners that must agree (default 0.5: more than half) */
	double min_gbps;	/* bandwidth cells below this are slow; 0 = off */
	double max_lat_us;	/* latency cells above this are slow; 0 = off */
};

void lp_diag_opts_default(struct lp_diag_opts *o);

/* Cell classes. */
enum lp_cell_class {
	LP_CELL_NONE = 0,	/* not measured (diagonal, not scheduled) */
	LP_CELL_OK,
	LP_CELL_SLOW,
	LP_CELL_FAIL,
};

/* Node flags. */
#define LP_NODE_SLOW_SRC 1u	/* slow as the source (its row) */
#define LP_NODE_SLOW_DST 2u	/* slow as the destination (its column) */
#define LP_NODE_FAILED 4u	/* most of its cells failed */

/* Link flags (per ordered cell). */
#define LP_LINK_SLOW 1u
#define LP_LINK_FAILED 2u

struct lp_diag {
	int n;
	bool lat;
	double ref;		/* the healthy reference value (metric unit) */
	double sigma;		/* robust spread of the healthy ratios */
	double thresh;		/* cells with a ratio below this are slow */
	int nhealthy;		/* nodes used for the reference */
	double *ratio;		/* n*n goodness ratios, NaN where not measured */
	uint8_t *cls;		/* n*n enum lp_cell_class */
	uint8_t *abs_bad;	/* n*n: 1 when the absolute floor made the cell slow */
	double *score_src, *score_dst;	/* per node: median ratio of its row / column (NaN none) */
	int *slow_src, *slow_dst;	/* per node: slow cells in its row / column */
	int *n_src, *n_dst;		/* per node: measured (not failed) cells in row / column */
	int *fail, *ncell;		/* per node: failed cells, all cells in row + column */
	uint8_t *node;		/* per node LP_NODE_* */
	uint8_t *link;		/* n*n LP_LINK_* */
};

/*
 * Diagnose one metric. v: n*n values (NaN = no value); fail: n*n, nonzero for
 * a cell that was attempted and failed (NULL: none failed); sched: n*n,
 * nonzero for a cell that was scheduled (NULL: every off-diagonal cell).
 * lat: lower is better. Returns 0 or -ENOMEM / -EINVAL; free with lp_diag_free.
 */
int lp_diag_run(struct lp_diag *d, int n, bool lat, const double *v, const uint8_t *fail,
		const uint8_t *sched, const struct lp_diag_opts *o);
void lp_diag_free(struct lp_diag *d);

#endif
