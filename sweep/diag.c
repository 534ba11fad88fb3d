// SPDX-License-Identifier: MIT
/*
 * lp-sweep diagnosis (model in diag.h and docs/SWEEP.md): the cells, the
 * model for this N, its tests, what it could detect, the verdict flags. Pure:
 * no MPI, no I/O. The fit is in diag_fit.c, the links in diag_link.c, shared
 * faults in group.c, N <= 3 in diag_small.c.
 */
#include "sweep/diag.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "common/stats.h"
#include "sweep/diag_int.h"
#include "sweep/dist.h"

#define MAD_TO_SIGMA 1.4826
#define SEARCH_MAX_N 3	 /* up to here every explanation of a few faults is fitted */
#define FIT_MIN_DF   3	 /* N >= 4: fewer residual df is no noise estimate, names nothing */
#define POWER	     0.9 /* the detection limits: the fault found this often */

void lp_diag_opts_default(struct lp_diag_opts *o)
{
	o->fp_rate = 0.01;
	o->k = 4.0;
	o->rel = 0.1;
	o->rel_max = 0.5;
	o->vote = 0.5;
	o->min_gbps = 0;
	o->max_lat_us = 0;
	o->min_errors = 10;
	o->impact_max = 2.0;
	o->fair_min = 0.6;
}

void lp_diag_opts_merge(struct lp_diag_opts *o, const struct lp_diag_opts *given)
{
	double *dst[] = {
		&o->fp_rate,  &o->k,	      &o->rel,	      &o->rel_max,    &o->vote,
		&o->min_gbps, &o->max_lat_us, &o->min_errors, &o->impact_max, &o->fair_min
	};
	const double src[] = { given->fp_rate,	  given->k,	     given->rel,
			       given->rel_max,	  given->vote,	     given->min_gbps,
			       given->max_lat_us, given->min_errors, given->impact_max,
			       given->fair_min };

	for (size_t i = 0; i < sizeof(src) / sizeof(src[0]); i++)
		if (!isnan(src[i]))
			*dst[i] = src[i];
}

/* Every array of a diagnosis and of its scratch, with its element size and count (n or n*n). */
/* clang-format off */
#define D_ARRAYS(X)                                                                        \
	X(d->ratio, sizeof(double), 1) X(d->resid, sizeof(double), 1)                      \
	X(d->zlink, sizeof(double), 1) X(d->pfirst, sizeof(double), 1)                     \
	X(d->pconf, sizeof(double), 1) X(d->att, 1, 1) X(d->cls, 1, 1)                     \
	X(d->abs_bad, 1, 1) X(d->suspect, 1, 1) X(d->link, 1, 1)                           \
	X(d->eff_src, sizeof(double), 0) X(d->eff_dst, sizeof(double), 0)                  \
	X(d->se_src, sizeof(double), 0) X(d->se_dst, sizeof(double), 0)                    \
	X(d->score_src, sizeof(double), 0) X(d->score_dst, sizeof(double), 0)              \
	X(d->min_src, sizeof(double), 0) X(d->min_dst, sizeof(double), 0)                  \
	X(d->slow_src, sizeof(int), 0) X(d->slow_dst, sizeof(int), 0)                      \
	X(d->n_src, sizeof(int), 0) X(d->n_dst, sizeof(int), 0) X(d->fail, sizeof(int), 0) \
	X(d->ncell, sizeof(int), 0) X(d->node, 1, 0) X(d->unode, 1, 0)                     \
	X(d->gmask, sizeof(uint16_t), 0)
#define W_ARRAYS(X)                                                                        \
	X(w->y, sizeof(double), 1) X(w->y1, sizeof(double), 1)                             \
	X(w->ybest, sizeof(double), 1) X(w->rb, sizeof(double), 1)                         \
	X(w->rm, sizeof(double), 1) X(w->wt, sizeof(double), 1) X(w->keep, 1, 1)           \
	X(w->z1, sizeof(double), 1) X(w->zs, sizeof(double), 1) X(w->r, sizeof(double), 0)  \
	X(w->c, sizeof(double), 0)
/* clang-format on */

void lp_diag_lay_free(struct lp_diag_lay *L)
{
	free(L->blk);
	free(L->pos);
	free(L->first);
	free(L->mem);
	free(L->row);
	memset(L, 0, sizeof(*L));
}

int lp_diag_lay_init(struct lp_diag_lay *L, int n, const int *blk)
{
	int nblk = 1;

	memset(L, 0, sizeof(*L));
	for (int i = 0; blk && i < n; i++) {
		if (blk[i] < 0 || blk[i] >= n)
			return -EINVAL;
		nblk = blk[i] >= nblk ? blk[i] + 1 : nblk;
	}
	L->n = n;
	L->nblk = nblk;
	L->blk = calloc((size_t)n + 1, sizeof(int));
	L->pos = malloc(((size_t)n + 1) * sizeof(int));
	L->first = calloc((size_t)nblk + 2, sizeof(int));
	L->mem = malloc(((size_t)n + 1) * sizeof(int));
	L->row = malloc(((size_t)n + 1) * sizeof(size_t));
	if (!L->blk || !L->pos || !L->first || !L->mem || !L->row) {
		lp_diag_lay_free(L);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		L->blk[i] = blk ? blk[i] : 0;
		L->pos[i] = L->first[L->blk[i] + 1]++;
	}
	for (int k = 0; k < nblk; k++)
		L->first[k + 1] += L->first[k];
	for (int i = 0; i < n; i++)
		L->mem[L->first[L->blk[i]] + L->pos[i]] = i;
	L->row[0] = 0;
	for (int i = 0; i < n; i++)
		L->row[i + 1] = L->row[i] + (size_t)(L->first[L->blk[i] + 1] - L->first[L->blk[i]]);
	L->ncell = L->row[n];
	return 0;
}

void lp_diag_free(struct lp_diag *d)
{
#define FREE_ONE(p, size, sq) free(p);
	D_ARRAYS(FREE_ONE)
	lp_diag_lay_free(&d->lay);
	free(d->leaf_of);
	free(d->rail_of);
	free(d->round_fx);
	for (int g = 0; g < d->ngroup; g++)
		free(d->group[g].mem);
	memset(d, 0, sizeof(*d));
}

static void free_work(struct work *w)
{
	W_ARRAYS(FREE_ONE)
	free(w->tmp);
#undef FREE_ONE
}

/*
 * The scratch: a value per cell and per node twice, and at least as many as the tetrads of the
 * fit's first scale (diag_fit.c) can be: rows sampled x the largest block x 9 (or n x n).
 */
static size_t scratch_len(const struct lp_diag_lay *L)
{
	size_t n = (size_t)L->n, step = n > 64 ? n / 64 : 1, big = 0, len = L->ncell + 2 * n + 1;

	for (int k = 0; k < L->nblk; k++)
		big = LP_MAX(big, (size_t)(L->first[k + 1] - L->first[k]));
	return LP_MAX(len, LP_MIN(n * n, (n + step - 1) / step * big * 9));
}

/* The cells' arrays hold the layout's cells and the empty one between blocks (NaN, 0). */
static int alloc_all(struct lp_diag *d, struct work *w, int n)
{
	size_t nn = d->lay.ncell + 1;
	bool ok = true;

#define ALLOC_ONE(p, size, sq) ok = ((p) = calloc((sq) ? nn : (size_t)n, size)) && ok;
	D_ARRAYS(ALLOC_ONE)
	W_ARRAYS(ALLOC_ONE)
#undef ALLOC_ONE
	w->n = n;
	w->L = &d->lay;
	w->ntmp = scratch_len(&d->lay);
	w->tmp = malloc(w->ntmp * sizeof(double));
	if (!ok || !w->tmp)
		return -ENOMEM;
#define EMPTY_ONE(p, size, sq)                                                                     \
	if ((sq) && (size) == sizeof(double))                                                      \
		((double *)(p))[nn - 1] = NAN;
	D_ARRAYS(EMPTY_ONE)
	W_ARRAYS(EMPTY_ONE)
#undef EMPTY_ONE
	w->wt[nn - 1] = 0;
	return 0;
}

double lp_diag_combine(double *v, size_t n, bool lat)
{
	if (!n)
		return NAN;
	lp_sort_doubles(v, n);
	/* even counts: the better of the two middle values (a transient only ever slows) */
	return n % 2 ? v[n / 2] : lat ? v[n / 2 - 1] : v[n / 2];
}

double lp_diag_rep_sigma(double *d, size_t n)
{
	/* d ~ N(0, 2 sigma^2): the median |d| is 0.6745 * sqrt(2) * sigma */
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(d[i]);
	return n ? MAD_TO_SIGMA * lp_median(d, n) / sqrt(2.0) : NAN;
}

double lp_diag_spread(double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = log(v[i]);
	return n >= 2 ? MAD_TO_SIGMA * lp_mad(v, n) : NAN;
}

/* A value in the metric's unit as log goodness (NaN for none). */
static double goodness(double v, bool lat)
{
	return isfinite(v) && v > 0 ? (lat ? -log(v) : log(v)) : NAN;
}

/* One cell: its values as log goodness, its class, its floor. */
static void classify_cell(struct lp_diag *d, struct work *w, const struct lp_diag_in *in,
			  const struct lp_diag_opts *o, size_t x, bool on)
{
	bool bad = on && in->fail && in->fail[x];
	double v = in->v[x];
	bool ok = on && !bad && isfinite(v) && v > 0;

	w->y[x] = ok ? goodness(v, in->lat) : NAN;
	w->ybest[x] = ok && in->best ? goodness(in->best[x], in->lat) : w->y[x];
	if (!isfinite(w->ybest[x]))
		w->ybest[x] = w->y[x];
	w->y1[x] = ok && in->first ? goodness(in->first[x], in->lat) : w->y[x];
	if (!isfinite(w->y1[x]))
		w->y1[x] = w->y[x]; /* the sweep's attempt failed, a retest did not */
	w->rb[x] = ok && in->rbest ? goodness(in->rbest[x], in->lat) : NAN;
	w->rm[x] = ok && in->rmed ? goodness(in->rmed[x], in->lat) : NAN;
	d->att[x] = ok ? (in->att && in->att[x] ? in->att[x] : 1) : 0;
	d->cls[x] = !on ? LP_CELL_NONE : bad ? LP_CELL_FAIL : ok ? LP_CELL_OK : LP_CELL_NONE;
	d->resid[x] = d->zlink[x] = d->ratio[x] = d->pfirst[x] = d->pconf[x] = NAN;
	if (ok && ((!in->lat && o->min_gbps > 0 && v < o->min_gbps) ||
		   (in->lat && o->max_lat_us > 0 && v > o->max_lat_us)))
		d->abs_bad[x] = 1;
}

/* Cells, failures and floors: what is known before any model. */
static void classify(struct lp_diag *d, struct work *w, const struct lp_diag_in *in,
		     const struct lp_diag_opts *o)
{
	const struct lp_diag_lay *L = &d->lay;
	int n = in->n;

	for (int a = 0; a < n; a++)
		LP_DIAG_PEERS (L, a, b) {
			size_t x = lp_diag_cell(L, a, b);

			classify_cell(d, w, in, o, x, a != b && (!in->sched || in->sched[x]));
		}
	for (int i = 0; i < n; i++) {
		int fail_partners = 0;

		LP_DIAG_PEERS (L, i, j) {
			uint8_t r = d->cls[lp_diag_cell(L, i, j)],
				col = d->cls[lp_diag_cell(L, j, i)];

			d->fail[i] += (r == LP_CELL_FAIL) + (col == LP_CELL_FAIL);
			d->ncell[i] += (r != LP_CELL_NONE) + (col != LP_CELL_NONE);
			d->n_src[i] += r == LP_CELL_OK;
			d->n_dst[i] += col == LP_CELL_OK;
			fail_partners += r == LP_CELL_FAIL || col == LP_CELL_FAIL;
		}
		/* one partner cannot tell a failed node from a failed link */
		if (fail_partners >= 2 && d->fail[i] > o->vote * d->ncell[i])
			d->node[i] |= LP_NODE_FAILED;
	}
}

/* Floors: a node whose cells are below the floor with most partners, else the cells as links. */
static void floors(struct lp_diag *d, const struct lp_diag_opts *o)
{
	const struct lp_diag_lay *L = &d->lay;
	int n = d->n;

	for (int i = 0; i < n; i++) {
		int rs = 0, cs = 0;

		LP_DIAG_PEERS (L, i, j) {
			rs += d->abs_bad[lp_diag_cell(L, i, j)];
			cs += d->abs_bad[lp_diag_cell(L, j, i)];
		}
		if (rs >= 2 && rs > o->vote * d->n_src[i])
			d->node[i] |= LP_NODE_SLOW_SRC;
		if (cs >= 2 && cs > o->vote * d->n_dst[i])
			d->node[i] |= LP_NODE_SLOW_DST;
	}
	for (int a = 0; a < n; a++)
		LP_DIAG_PEERS (L, a, b) {
			size_t x = lp_diag_cell(L, a, b);

			if (d->abs_bad[x] && !(d->node[a] & LP_NODE_SLOW_SRC) &&
			    !(d->node[b] & LP_NODE_SLOW_DST)) {
				d->link[x] |= LP_LINK_SLOW;
				d->link[x] &=
					(uint8_t)~LP_LINK_UNCONF; /* a floor needs no retest */
			}
		}
}

/* Is cell a -> b part of a fault already named (a node's role, a group, a candidate)? */
static bool in_fault(const struct lp_diag *d, const struct work *w, int a, int b, double lrel)
{
	size_t x = lp_diag_cell(&d->lay, a, b);
	double y = w->y[x];
	bool src = d->node[a] & LP_NODE_SLOW_SRC, dst = d->node[b] & LP_NODE_SLOW_DST;

	if ((src && y - w->mu - w->c[b] < d->eff_src[a] / 2) ||
	    (dst && y - w->mu - w->r[a] < d->eff_dst[b] / 2) ||
	    (d->link[x] & (LP_LINK_SLOW | LP_LINK_GROUP | LP_LINK_PARTIAL)) || d->abs_bad[x])
		return true;
	for (int g = 0; g < d->ngroup; g++)
		if (lp_diag_group_covers(d, &d->group[g], a, b) && y - w->mu < lrel / 2)
			return true;
	for (int i = 0; i < d->ncand; i++)
		if (lp_diag_item_covers(&d->cand[i], a, b) && y - w->mu < lrel)
			return true;
	return false;
}

/* Ratios, residuals, partners agreeing, slow cells, suspects and failed links. */
static void summarise(struct lp_diag *d, const struct work *w, double lrel)
{
	const struct lp_diag_lay *L = &d->lay;
	int n = d->n;

	d->ref = d->lat ? exp(-w->mu) : exp(w->mu);
	for (int i = 0; i < n; i++) {
		d->eff_src[i] = d->n_src[i] ? w->r[i] : NAN;
		d->eff_dst[i] = d->n_dst[i] ? w->c[i] : NAN;
		d->score_src[i] = exp(d->eff_src[i]);
		d->score_dst[i] = exp(d->eff_dst[i]);
	}
	for (int a = 0; a < n; a++)
		LP_DIAG_PEERS (L, a, b) {
			size_t x = lp_diag_cell(L, a, b);
			double y = w->y[x];

			if (d->cls[x] == LP_CELL_FAIL && !(d->node[a] & LP_NODE_FAILED) &&
			    !(d->node[b] & LP_NODE_FAILED))
				d->link[x] |= LP_LINK_FAILED;
			if (!isfinite(y))
				continue;
			d->ratio[x] = exp(y - w->mu);
			if (!isfinite(d->resid[x]))
				d->resid[x] = y - lp_diag_fitted(d, w, a, b);
			/* a partner agrees when the cell sits nearer the fault than normal */
			if (d->eff_src[a] < 0 && y - w->mu - w->c[b] < d->eff_src[a] / 2)
				d->slow_src[a]++;
			if (d->eff_dst[b] < 0 && y - w->mu - w->r[a] < d->eff_dst[b] / 2)
				d->slow_dst[b]++;
			if (in_fault(d, w, a, b, lrel)) {
				d->cls[x] = LP_CELL_SLOW;
				if (d->ambiguous)
					d->suspect[x] = 1;
			} else if (d->link[x] & LP_LINK_UNCONF) {
				d->cls[x] = LP_CELL_UNCONF;
			}
		}
	for (int i = 0; i < n; i++)
		d->nhealthy += !d->node[i];
}

/* Step 1: the arguments checked, everything allocated, nothing known yet. */
static int start(struct lp_diag *d, struct work *w, const struct lp_diag_in *in,
		 const struct lp_diag_opts *o)
{
	int rc;

	memset(d, 0, sizeof(*d));
	if (in->n < 1 || !in->v || o->vote <= 0 || o->vote >= 1 || o->rel < 0 || o->rel >= 1 ||
	    o->rel_max <= 0 || o->rel_max >= 1 || o->k < 0 || !(o->fp_rate > 0) ||
	    !(o->fp_rate < 1))
		return -EINVAL;
	d->n = in->n;
	d->lat = in->lat;
	rc = lp_diag_lay_init(&d->lay, in->n, in->lay ? in->lay->blk : NULL);
	if (!rc)
		rc = alloc_all(d, w, in->n);
	if (rc)
		return rc;
	if (in->leaf && (d->leaf_of = malloc(in->n * sizeof(int))))
		memcpy(d->leaf_of, in->leaf, in->n * sizeof(int));
	if (in->rail && (d->rail_of = malloc(in->n * sizeof(int))))
		memcpy(d->rail_of, in->rail, in->n * sizeof(int));
	if ((in->leaf && !d->leaf_of) || (in->rail && !d->rail_of))
		return -ENOMEM;
	d->nleaf = in->leaf ? in->nleaf : 0;
	d->nrail = in->rail ? in->nrail : 0;
	d->thresh = 1 - o->rel;
	d->sigma_rep = in->rep_pairs > 0 ? in->rep_sigma : NAN;
	d->rep_pairs = in->rep_pairs;
	d->sigma_fit = d->sigma_link = d->min_group = NAN;
	d->fp_rate = o->fp_rate;
	d->retest_rounds = in->retest_rounds;
	for (int k = 0; k < 8; k++)
		d->z_reach[k] = -SUSPECT_Z;
	w->ratt = in->ratt;
	w->round = in->round;
	w->rfirst = in->rfirst;
	return 0;
}

/*
 * A node effect rests on its own cells: sigma / sqrt(cells), times Huber's
 * variance factor, and the reference it is measured from (the median node)
 * adds pi / (2N) of that.
 */
static void standard_errors(struct lp_diag *d)
{
	double f = (1 + M_PI / (2.0 * d->n));

	for (int i = 0; i < d->n; i++) {
		d->se_src[i] = d->n_src[i] ? d->sigma * sqrt(f / d->n_src[i]) : NAN;
		d->se_dst[i] = d->n_dst[i] ? d->sigma * sqrt(f / d->n_dst[i]) : NAN;
	}
}

/*
 * Error control: the run's rate fp_rate is split, half to the node and group
 * tests of every metric (Sidak: a healthy run names a node or group with at
 * most that chance), half to the links (Benjamini-Hochberg per metric at
 * fp_rate / 2 / metrics: on a healthy run, the chance of any link). The node
 * threshold is the exact Student-t quantile at the residuals' df.
 */
static void levels(struct lp_diag *d, const struct lp_diag_opts *o, int family, int ntests)
{
	family = family > 0 ? family : 1;
	d->ntests = ntests;
	d->alpha_node = lp_dist_sidak(o->fp_rate / 2, (double)family * ntests);
	d->t_node = fmax(o->k, d->df > 0 ? lp_dist_t_isf(d->alpha_node, d->df) : INFINITY);
	d->q_link = o->fp_rate / 2 / family;
}

/*
 * The smallest effect found with POWER by "below lrel and beyond t standard
 * errors", the standard error taken at the noise's upper 90 % bound (a run
 * whose noise came out low by chance must not promise what it cannot keep).
 */
static double power_effect(double t, double se, double lrel, double df, bool upper)
{
	double tp = lp_dist_t_isf(1 - POWER, df > 0 ? df : 1),
	       up = upper && isfinite(df) ? lp_dist_sigma_upper(df > 1 ? df : 1, 1 - POWER) : 1;

	return fmax(-lrel, t * se * up) + tp * se * up;
}

/*
 * Each node effect against its own standard error at the t quantile of the
 * run's error control; a node slow both ways is tested once, on its two
 * effects together: one beyond the floor rel and neither milder than a fault
 * at the floor could read (rel less 1.28 standard errors: a node at 0.90x both
 * ways against a 0.1 floor reads 0.899x one way and 0.901x the other, slow
 * both ways, not as client alone). A close call (beyond SUSPECT_Z standard errors, short of the
 * threshold, and slower than a fault at the floor rel could read: rel less
 * 1.28 standard errors) is unconfirmed: named apart, its cells retested.
 */
static void test_nodes(struct lp_diag *d, const struct work *w, double lrel)
{
	int n = w->n;
	double t = d->t_node;

	for (int i = 0; i < n; i++) {
		bool both = d->n_src[i] >= 2 && d->n_dst[i] >= 2 &&
			    (w->r[i] < lrel || w->c[i] < lrel) &&
			    w->r[i] < lrel + 1.2816 * d->se_src[i] &&
			    w->c[i] < lrel + 1.2816 * d->se_dst[i] &&
			    w->r[i] < -SUSPECT_Z * d->se_src[i] &&
			    w->c[i] < -SUSPECT_Z * d->se_dst[i] &&
			    w->r[i] + w->c[i] < -t * hypot(d->se_src[i], d->se_dst[i]);

		d->min_src[i] = exp(-power_effect(t, d->se_src[i], lrel, d->df, true));
		d->min_dst[i] = exp(-power_effect(t, d->se_dst[i], lrel, d->df, true));
		if (both)
			d->node[i] |= LP_NODE_SLOW_SRC | LP_NODE_SLOW_DST;
		for (int dir = 0; dir < 2 && !both; dir++) {
			double eff = dir ? w->c[i] : w->r[i],
			       se = dir ? d->se_dst[i] : d->se_src[i];
			int cells = dir ? d->n_dst[i] : d->n_src[i];
			unsigned flag = dir ? LP_NODE_SLOW_DST : LP_NODE_SLOW_SRC;

			if (cells < 2 || !(eff < lrel + 1.2816 * se) || !(eff < -SUSPECT_Z * se))
				continue;
			if (eff < lrel && eff < -t * se) {
				d->node[i] |= flag;
				continue;
			}
			d->unode[i] |= flag;
			LP_DIAG_PEERS (w->L, i, j)
				if (j != i)
					d->suspect[dir ? lp_diag_cell(w->L, j, i)
						       : lp_diag_cell(w->L, i, j)] = 1;
		}
	}
}

/* N >= 4: the fit, shared faults, nodes, then links. */
static int model_twoway(struct lp_diag *d, struct work *w, const struct lp_diag_opts *o,
			double lrel, int family)
{
	int rc, ng;

	lp_diag_fit_twoway(d, w);
	d->sigma = isfinite(d->sigma_fit) ? d->sigma_fit : 0;
	d->few_df = d->df < FIT_MIN_DF;
	standard_errors(d);
	ng = lp_diag_groups_ntests(d);
	levels(d, o, family, 3 * d->n + ng);
	rc = lp_diag_groups_fit(d, w, o, lrel);
	if (rc < 0)
		return rc;
	d->sigma = isfinite(d->sigma_fit) ? d->sigma_fit : 0;
	standard_errors(d);
	test_nodes(d, w, lrel);
	return lp_diag_links(d, w, o, lrel);
}

/* Step 3: the model for this N, its noise, and the tests of its effects and links. */
static int model(struct lp_diag *d, struct work *w, const struct lp_diag_opts *o, double lrel,
		 int family)
{
	int n = d->n, rc;

	if (n > SEARCH_MAX_N)
		return model_twoway(d, w, o, lrel, family);
	if (n == 3) {
		rc = lp_diag_fit_search(d, w, o, lrel);
		if (rc)
			return rc;
		standard_errors(d);
		levels(d, o, family, 3 * n);
		lp_diag_links_small(d, w, lrel);
	} else if (n == 2) {
		lp_diag_fit_n2(d, w, o, lrel);
	} else {
		w->mu = NAN;
	}
	return 0;
}

/*
 * The faults found with POWER (90 %) at this run's noise and size, never finer
 * than the relative floor (lrel): a node with N-1 cells at the t quantile of
 * the error control, a link through the screen and its retests (diag_link.c),
 * a leaf of the median size through its group test (group.c).
 */
static void detectable(struct lp_diag *d, const struct work *w, const struct lp_diag_opts *o,
		       double lrel)
{
	int m = d->n > 1 ? d->n - 1 : 1;
	double se = d->sigma * sqrt((1 + M_PI / (2.0 * d->n)) / m);
	double t = d->n > SEARCH_MAX_N ? d->t_node : o->k;

	d->cv = exp(d->sigma) - 1;
	d->min_node = exp(-power_effect(t, se, lrel, d->n > SEARCH_MAX_N ? d->df : INFINITY, true));
	/* the noise gate's: at the noise as estimated, no floor */
	d->min_node_noise =
		exp(-power_effect(t, se, 0, d->n > SEARCH_MAX_N ? d->df : INFINITY, false));
	d->min_link = lp_diag_link_limit(d, w, lrel);
	if (d->n > SEARCH_MAX_N)
		d->min_group = lp_diag_group_limit(d, lrel);
}

/*
 * Step 4: inconclusive when a node slower than rel_max could hide in the noise
 * (the noise's limit: the floor --rel is a choice, not a blind spot),
 * or when a cell sits below 1 - rel_max of its fitted value (and of the
 * reference with the flagged node effects) and nothing named or listed
 * (a link, unconfirmed or confirmed; a group; an ambiguous candidate) accounts
 * for it: a fault that large is never passed as healthy. At N >= 4 what was
 * named passed its test and stays named beside the verdict; at N <= 3 nothing
 * does, nor at N >= 4 when failed nodes or cells leave under FIT_MIN_DF
 * residual df (one residual is no noise estimate). The suspects stay:
 * retests are the remedy.
 */
static void gate(struct lp_diag *d, const struct work *w, const struct lp_diag_opts *o)
{
	int n = d->n;
	double lmax = log(1 - o->rel_max);
	bool open =
		d->few_df || d->min_node_noise < 1 - o->rel_max; /* the noise's, not the floor's */

	for (int a = 0; a < n && !open; a++)
		LP_DIAG_PEERS (&d->lay, a, b) {
			size_t x = lp_diag_cell(&d->lay, a, b);

			if (open)
				break;
			bool named = d->link[x] & (LP_LINK_SLOW | LP_LINK_UNCONF | LP_LINK_GROUP |
						   LP_LINK_PARTIAL);

			for (int i = 0; i < d->ncand && !named; i++)
				named = lp_diag_item_covers(&d->cand[i], a, b);
			for (int g = 0; g < d->ngroup && !named; g++)
				named = lp_diag_group_covers(d, &d->group[g], a, b);
			/* by the fit's deleted residual and against the reference alike: the
			 * first alone is noisy at small N (1 / (1 - leverage) of it) */
			open = !named && d->resid[x] < lmax &&
			       (isfinite(d->sigma_link)
					? w->y[x] - lp_diag_flagged_fit(d, w, a, b) < lmax
					: true);
		}
	if (!open)
		return;
	d->inconclusive = true;
	if (d->n > SEARCH_MAX_N && !d->few_df)
		return;
	d->ambiguous = false; /* N <= 3, or too few df: nothing named on statistics */
	d->ncand = 0;
	for (size_t x = 0; x < d->lay.ncell; x++)
		d->link[x] &= LP_LINK_UNCONF;
	for (int i = 0; i < n; i++) {
		d->node[i] &= LP_NODE_FAILED;
		d->unode[i] = 0; /* no close call either: no noise to measure one against */
	}
	for (int g = 0; g < d->ngroup; g++)
		free(d->group[g].mem);
	d->ngroup = 0;
	memset(d->gmask, 0, (size_t)n * sizeof(*d->gmask));
}

int lp_diag_run(struct lp_diag *d, const struct lp_diag_in *in, const struct lp_diag_opts *o)
{
	struct work w = { 0 };
	double lrel = log(1 - o->rel);
	int rc;

	rc = start(d, &w, in, o);
	if (rc == -EINVAL)
		return rc;
	if (!rc) {
		classify(d, &w, in, o);
		rc = model(d, &w, o, lrel, in->family);
	}
	if (!rc) {
		detectable(d, &w, o, lrel);
		gate(d, &w, o);
		floors(d, o);
		summarise(d, &w, lrel);
	}
	free_work(&w);
	if (rc)
		lp_diag_free(d);
	return rc;
}
