/* SPDX-License-Identifier: MIT */
/*
 * lp-sweep diagnosis: from an N x N matrix of one metric (one test at one size)
 * to "this node is slow", "this link is slow", "this node failed" -- or, where
 * the data cannot say, "ambiguous" / "pair slow" / "inconclusive".
 *
 * Cells are ordered pairs: v[a*n+b] is the client a measuring against server b
 * (for write tests data flows a -> b). Row a is node a as the sender, column b
 * node b as the receiver; faults often have a direction (tc shapes egress).
 *
 * The model (docs/SWEEP.md), per metric, on a log scale of goodness
 * (log v for bandwidth, -log v for latency, so a slowdown is negative):
 *
 *     y(a,b) = mu + r(a) + c(b) + e(a,b)
 *
 * mu the reference, r(a) node a's effect as sender, c(b) node b's effect as
 * receiver, e(a,b) the link residual plus noise. Failed cells carry no value and
 * stay failed cells; they are not part of the fit.
 *
 *  N >= 4: a median-polish start, then least squares with an outlier rule of
 *    stated error (externally studentized, Bonferroni at 0.01 over the cells),
 *    effects centred on the median node; the noise sigma is the residual
 *    standard deviation (unbiased) on its degrees of freedom; congested sweep
 *    rounds get a round effect. Shared faults (a leaf switch, the path between
 *    two leaves, a rail -- from the topology; without one, blocks found in the
 *    residuals) are tested and fitted first, so that their cells are one
 *    verdict, not one per node or link. Nodes are tested against their own
 *    standard errors at the run's error control: fp_rate per run, half to nodes
 *    and groups (Sidak over metrics x tests, exact Student-t quantiles), half to
 *    links (Benjamini-Hochberg). A link is never a verdict from one attempt: its
 *    first attempt is screened, its retests alone confirm it; stood out and not
 *    confirmed is "unconfirmed" (diag_link.c). Every run states the faults it
 *    finds with 90 % power (node, link, group).
 *  N = 3: 6 cells for 5 parameters leave one degree of freedom, so no fit can
 *    localise a single cell; instead every explanation of up to three faults
 *    (node as sender/receiver, link cells) is fitted, faults only slow things
 *    down, and the simplest explanation that fits within the noise wins. When
 *    another explanation fits as well, the verdict is "ambiguous" with all the
 *    candidates.
 *  N = 2: one pair cannot tell a node from a link: a cell well below the other
 *    (or below a floor) is "pair slow" with its candidates.
 *
 * Nothing is flagged that is not also beyond the relative floor rel (a
 * deviation under rel is never a fault). The metric is inconclusive when the
 * noise is so high that a node slower than rel_max could hide in it, or when a
 * cell is below 1 - rel_max of its fitted value and nothing named explains it;
 * what passes the run's error control stays named, at N <= 3 nothing on
 * statistics (floors and failures still count; suspects are still retested).
 * Absolute floors (min Gb/s, max us) mark cells slow regardless of the model.
 */
#ifndef LP_SWEEP_DIAG_H
#define LP_SWEEP_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lp_diag_opts {
	double fp_rate; /* per run: the chance that a healthy run names anything (default 0.01);
			 * half for nodes and groups (Sidak), half for links (Benjamini-Hochberg) */
	double k;   /* floor on the node threshold in standard errors, links k + 1 (default 4) */
	double rel; /* relative floor: a smaller deviation is never flagged (default 0.1) */
	double rel_max; /* inconclusive when a node at 1-rel_max could hide in the noise, or a
				 * cell that far below its fit stays unexplained (default 0.5) */
	double vote;	/* node failed: more than this fraction of its cells failed (default 0.5) */
	double min_gbps;   /* bandwidth cells below this are slow; 0 = off */
	double max_lat_us; /* latency cells above this are slow; 0 = off */
	double min_errors; /* a pair's error-class counter events (both ends, all its cells)
			    * from which they count as moved (default 10; sweep/evidence.c) */
	/* load modes (sweep/load.h) */
	double impact_max; /* a node whose congestion impact factor is this many times the other
			    * nodes' median is flagged (default 2) */
	double fair_min;   /* incast: Jain's fairness index below this is flagged (default 0.6) */
};

void lp_diag_opts_default(struct lp_diag_opts *o);
/* Every field of given that is not NaN replaces o's (thresholds given over recorded ones). */
void lp_diag_opts_merge(struct lp_diag_opts *o, const struct lp_diag_opts *given);

/* Cell classes. */
enum lp_cell_class {
	LP_CELL_NONE = 0, /* not measured (diagonal, not scheduled) */
	LP_CELL_OK,
	LP_CELL_SLOW,
	LP_CELL_FAIL,
	LP_CELL_UNCONF, /* stood out in one attempt, not confirmed by retests */
};

/* Node flags. */
#define LP_NODE_SLOW_SRC 1u /* slow as the sender (its row) */
#define LP_NODE_SLOW_DST 2u /* slow as the receiver (its column) */
#define LP_NODE_FAILED	 4u /* most of its cells failed */
#define LP_NODE_PARTIAL	 8u /* slow in a share of its cells only (one of its paths) */

/* Link flags (per ordered cell). */
#define LP_LINK_SLOW	1u
#define LP_LINK_FAILED	2u
#define LP_LINK_UNCONF	4u  /* stood out in one attempt, not confirmed by retests (yet) */
#define LP_LINK_GROUP	8u  /* slow, explained by a group verdict (switch, uplink, rail, block) */
#define LP_LINK_PARTIAL 16u /* slow, explained by a node's partial fault */

/* One fault an ambiguous verdict names as a candidate. */
enum lp_diag_item_kind { LP_ITEM_SRC = 0, LP_ITEM_DST, LP_ITEM_LINK };
struct lp_diag_item {
	uint8_t kind; /* enum lp_diag_item_kind */
	int a, b;     /* node a (SRC/DST); link a->b */
	double ratio; /* its fitted goodness ratio (0.5 = half as good) */
};
#define LP_DIAG_MAX_CAND 12

/*
 * A fault shared by a group of nodes (sweep/group.c): one verdict naming the
 * switch, uplink or rail and its members instead of one per node or link.
 */
enum lp_diag_group_kind {
	LP_GROUP_SWITCH =
		0, /* a leaf switch: every cell through it, or those leaving and entering it */
	LP_GROUP_UPLINK, /* a leaf's uplinks one way (out of it / into it), or the path leaf -> leaf */
	LP_GROUP_RAIL,	/* every cell of one rail */
	LP_GROUP_BLOCK, /* no topology: nodes whose cells with the others share a fault */
};
/* Which cells of the group are slow. */
enum lp_diag_group_scope {
	LP_SCOPE_ALL = 0, /* every cell with a member at either end (once) */
	LP_SCOPE_CROSS,	  /* cells between a member and a non-member, both ways */
	LP_SCOPE_OUT,	  /* member -> non-member */
	LP_SCOPE_IN,	  /* non-member -> member */
	LP_SCOPE_INTRA,	  /* member -> member */
	LP_SCOPE_PATH,	  /* leaf g1 -> leaf g2 */
	LP_SCOPE_PAIR,	  /* between leaves g1 and g2, both ways */
};
#define LP_DIAG_MAX_GROUPS 16
struct lp_diag_group {
	uint8_t kind;	 /* enum lp_diag_group_kind */
	uint8_t scope;	 /* enum lp_diag_group_scope */
	bool partial;	 /* a share of its cells slow (ECMP: one uplink of several), not all */
	int g1, g2;	 /* leaf (rail for LP_GROUP_RAIL) index; g2 the other leaf of a path; -1 */
	int nmem, *mem;	 /* member nodes (leaf, rail or block; path: g1's) */
	double ratio;	 /* goodness ratio of its slow cells (0.8 = 0.8x) */
	double z;	 /* effect / its standard error (partial: the binomial tail as a z) */
	int cells, slow; /* cells in its scope; of those, slow (partial) */
	double frac;	 /* slow / cells */
};

/*
 * Where a diagnosis keeps its cells. The nodes fall into blocks that measure
 * only each other (the rails of a --rails run): a cell between two blocks is
 * never scheduled, and is not stored. Row a holds the cells a -> b of a's
 * block in the order of b, so the stored cells in order are the n x n
 * matrix's row-major order without the cells between blocks (every sum runs
 * in the same order either way), and one block is the n x n matrix itself
 * (x = a * n + b). Index ncell stands for every cell between blocks: arrays
 * hold ncell + 1 entries, the last one empty (NaN, 0) and never written.
 */
struct lp_diag_lay {
	int n, nblk;
	int *blk;    /* n: node -> its block */
	int *pos;    /* n: its index in the block */
	int *first;  /* nblk + 1: block k's nodes are mem[first[k] .. first[k + 1]) */
	int *mem;    /* n: the nodes, block by block, each block in ascending order */
	size_t *row; /* n + 1: row a's cells are [row[a], row[a + 1]); row[n] = ncell */
	size_t ncell;
};

/* The layout of n nodes in blocks blk[i] (0 .. nblk-1; NULL: one block). 0 or -ENOMEM/-EINVAL. */
int lp_diag_lay_init(struct lp_diag_lay *L, int n, const int *blk);
void lp_diag_lay_free(struct lp_diag_lay *L);

/* Where cell a -> b is kept: its index, or L->ncell between blocks. */
static inline size_t lp_diag_at(const struct lp_diag_lay *L, int a, int b)
{
	return L->blk[a] == L->blk[b] ? L->row[a] + (size_t)L->pos[b] : L->ncell;
}

/* Node i's k-th peer: the k-th node of its block (ascending). */
static inline int lp_diag_peer(const struct lp_diag_lay *L, int i, int k)
{
	return L->mem[L->first[L->blk[i]] + k];
}

static inline int lp_diag_npeers(const struct lp_diag_lay *L, int i)
{
	return L->first[L->blk[i] + 1] - L->first[L->blk[i]];
}

/* For every node j of i's block, ascending (the n x n loop over j without the cells between
 * blocks): for (int j = 0; j < n; j++) as LP_DIAG_PEERS(L, i, j). */
#define LP_DIAG_PEERS(L, i, j)                                                                     \
	for (int j##_k = 0, j;                                                                     \
	     j##_k < lp_diag_npeers(L, i) && ((j = lp_diag_peer(L, i, j##_k)), 1); j##_k++)

/* Kept cell x's client (a binary search of the rows) and server. */
static inline int lp_diag_xa(const struct lp_diag_lay *L, size_t x)
{
	int lo = 0, hi = L->n - 1;

	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;

		if (L->row[mid] <= x)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static inline int lp_diag_xb(const struct lp_diag_lay *L, size_t x)
{
	int a = lp_diag_xa(L, x);

	return lp_diag_peer(L, a, (int)(x - L->row[a]));
}

/* What the diagnosis sees of one metric. */
struct lp_diag_in {
	int n;
	bool lat; /* lower is better */
	/* the cells' layout (NULL: the n x n matrix); every per-cell array below is laid out so */
	const struct lp_diag_lay *lay;
	const double *v;      /* n*n combined value of a cell's attempts, NaN none */
	const uint8_t *fail;  /* n*n: attempted and every attempt failed (NULL: none) */
	const uint8_t *sched; /* n*n: scheduled (NULL: every off-diagonal cell) */
	const uint8_t *att;   /* n*n: successful attempts behind v (NULL: one each) */
	const double *best;   /* n*n: the best attempt of each cell (NULL: v) */
	double rep_sigma;     /* log-scale noise between repeated attempts of a cell, NaN unknown */
	int rep_pairs;	      /* attempt pairs behind rep_sigma */
	/* the attempts apart: links need a retest (NULL: v is one attempt, no retest) */
	const double *first;   /* n*n: the sweep's attempt, NaN none */
	const double *rbest;   /* n*n: the best retest, NaN none */
	const double *rmed;    /* n*n: the retests combined (lp_diag_combine), NaN none */
	const uint8_t *ratt;   /* n*n: successful retests */
	const int32_t *round;  /* n*n: the sweep round of the first attempt, -1 none (NULL) */
	const int32_t *rfirst; /* n*n: the retest round of the first retest, -1 unknown (NULL) */
	/* the fabric (sweep/fabric.h mapped onto the nodes), NULL: none */
	const int *leaf, *rail; /* n: leaf switch / rail index, -1 unknown */
	int nleaf, nrail;
	int family;	   /* metrics diagnosed in this run: they share the per-run rate (0 = 1) */
	int retest_rounds; /* the retest rounds the run has (the link limit: how many can confirm) */
};

struct lp_diag {
	int n;
	bool lat;
	struct lp_diag_lay lay; /* where the n*n arrays below keep their cells (lp_diag_at) */
	double ref;		/* the reference value (metric unit): exp(mu) */
	double sigma;		/* log-scale noise per cell the tests use */
	double sigma_fit;	/* from the residuals (NaN: too few degrees of freedom) */
	double sigma_rep;	/* from repeated attempts (NaN: none) */
	int df, rep_pairs;
	double sigma_link; /* N >= 4: cells against the reference and the flagged node effects only */
	int df_link;	   /* its degrees of freedom (kept cells - 1 - flagged effects) */
	double cv;	   /* exp(sigma) - 1: the per-cell coefficient of variation */
	double min_node;   /* node fault found with 90 % power (N-1 cells, one attempt) */
	double min_node_noise; /* the same without the floor rel: what the noise alone allows */
	double min_link;  /* link fault found with 90 % power (stands out once, then retests) */
	double min_group; /* leaf (or block) fault found with 90 % power; NaN: no group */
	/* error control: what a test must pass in this metric */
	double fp_rate;	   /* the run's rate (opts) */
	double alpha_node; /* per node/group test (Sidak over nodes x roles x metrics + groups) */
	double t_node;	   /* its t quantile at df (at least k) */
	double q_link;	   /* false discovery rate of links in this metric (BH) */
	double thr_first; /* BH threshold a first attempt's p-value passed to stand out (-1 none) */
	double thr_conf;  /* BH threshold the retests' p-value passed to confirm (-1 none) */
	double blip;	  /* share of attempts slowed by a transient (at least 0.5 %) */
	int ntests;	  /* node and group tests in the Sidak family of this metric */
	int nround_fx;	  /* sweep rounds with a congestion effect fitted (round_fx) */
	int nrounds;	  /* rounds (round_fx's length) */
	double *round_fx; /* per sweep round: its effect as a ratio, 1 none */
	int nleaf, nrail; /* leaves and rails of the topology (0: none) */
	int ngroup;	  /* shared faults found */
	struct lp_diag_group group[LP_DIAG_MAX_GROUPS];
	int nunconf;	   /* link cells that stood out once, not confirmed */
	int retest_rounds; /* from lp_diag_in */
	int nretested;	   /* link cells with retests */
	double z_reach[8]; /* [R]: the mildest first attempt of a cell retested R times or more,
			    * when some cell as slow was retested fewer (-2.5: every one) */
	double thresh;	   /* 1 - rel: cells below this ratio in a fault are marked slow */
	bool inconclusive; /* a fault up to rel_max could hide, or a large cell is unexplained */
	bool few_df;	   /* N >= 4 but too few residual df for a noise estimate (failed cells) */
	bool ambiguous;	   /* N = 2 or 3: several explanations fit; see cand */
	int ncand;
	struct lp_diag_item cand[LP_DIAG_MAX_CAND];
	int nhealthy;	  /* nodes without a verdict */
	double *ratio;	  /* n*n goodness ratios to the reference, NaN where not measured */
	double *resid;	  /* n*n link residual (log), NaN where not measured */
	double *zlink;	  /* n*n link residual / its standard error */
	uint8_t *att;	  /* n*n attempts behind each cell */
	uint8_t *cls;	  /* n*n enum lp_cell_class */
	uint8_t *abs_bad; /* n*n: 1 when the absolute floor made the cell slow */
	uint8_t *suspect; /* n*n: worth an isolated retest (a flagged link, or close to one) */
	double *eff_src, *eff_dst;     /* per node: log effect as sender / receiver (NaN none) */
	double *se_src, *se_dst;       /* their standard errors */
	double *score_src, *score_dst; /* exp(effect): goodness ratio of the node's row / column */
	int *slow_src,
		*slow_dst;  /* per node: partners agreeing (cells nearer the fault than normal) */
	int *n_src, *n_dst; /* per node: measured (not failed) cells in row / column */
	int *fail, *ncell;  /* per node: failed cells, all cells in row + column */
	uint8_t *node;	    /* per node LP_NODE_* */
	uint8_t *link;	    /* n*n LP_LINK_* */
	uint8_t *unode;	    /* per node: roles (LP_NODE_SLOW_*) that are close calls, not named */
	double *pfirst;	    /* n*n: p-value of the first attempt as a link (NaN none) */
	double *pconf;	    /* n*n: p-value of the retests (NaN none) */
	double *min_src, *min_dst; /* per node: its own 90 %-power limits (ratio) */
	int *leaf_of, *rail_of;	   /* per node: leaf / rail index (copies of lp_diag_in's; NULL) */
	uint16_t *gmask;	   /* per node: bit g set when it is a member of group[g] */
};

/* Does group g hold cell a -> b (its scope)? */
bool lp_diag_group_covers(const struct lp_diag *d, const struct lp_diag_group *g, int a, int b);

/* Diagnose one metric. Returns 0 or -ENOMEM / -EINVAL; free with lp_diag_free. */
int lp_diag_run(struct lp_diag *d, const struct lp_diag_in *in, const struct lp_diag_opts *o);
void lp_diag_free(struct lp_diag *d);

/*
 * Attempts of one cell combined: the median, and for an even count the better
 * of the two middle values (a transient only slows: one blip among two or four
 * attempts is gone). v: n values, sorted in place. NaN when n = 0.
 */
double lp_diag_combine(double *v, size_t n, bool lat);
/* Log-scale noise from attempt pairs: d[i] = log(x1/x2) of two attempts of one cell. */
double lp_diag_rep_sigma(double *d, size_t n);
/*
 * The spread of one cell's attempts v (n values > 0, replaced by their logs):
 * a robust log-scale sigma (scaled MAD; one outlier among three or four does
 * not move it). NaN when n < 2.
 */
double lp_diag_spread(double *v, size_t n);

#endif
