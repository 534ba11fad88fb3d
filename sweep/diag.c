// SPDX-License-Identifier: MIT
/* lp-sweep diagnosis (model in diag.h and docs/SWEEP.md). Pure: no MPI, no I/O. */
#include "sweep/diag.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/stats.h"

#define MAD_TO_SIGMA	  1.4826
#define POLISH_ITERS	  10
#define BACKFIT_ITERS	  30
#define TRIM_Z		  3.5 /* cells this far out of the median polish are left out of the refit */
#define SUSPECT_Z	  2.5  /* link cells this far out are worth a retest */
#define REP_MIN_PAIRS	  3    /* retest pairs before their noise counts */
#define REP_DF_PER_PAIR	  0.37 /* a median-based scale is worth 37 % of a standard deviation's df */
#define AMBIG_SCORE	  4.0 /* small N: explanations this close to the best one are alternatives */
#define SEARCH_MAX_N	  3   /* up to here every explanation of a few faults is fitted */
#define FIT_MIN_DF	  3   /* N >= 4: fewer residual df is no noise estimate, names nothing */
#define SEARCH_MAX_FAULTS 3
#define SEARCH_MAX_P	  (SEARCH_MAX_FAULTS + 1)

void lp_diag_opts_default(struct lp_diag_opts *o)
{
	o->k = 4.0;
	o->rel = 0.1;
	o->rel_max = 0.5;
	o->vote = 0.5;
	o->min_gbps = 0;
	o->max_lat_us = 0;
}

void lp_diag_opts_merge(struct lp_diag_opts *o, const struct lp_diag_opts *given)
{
	double *dst[] = { &o->k, &o->rel, &o->rel_max, &o->vote, &o->min_gbps, &o->max_lat_us };
	const double src[] = { given->k,    given->rel,	     given->rel_max,
			       given->vote, given->min_gbps, given->max_lat_us };

	for (size_t i = 0; i < sizeof(src) / sizeof(src[0]); i++)
		if (!isnan(src[i]))
			*dst[i] = src[i];
}

void lp_diag_free(struct lp_diag *d)
{
	free(d->ratio);
	free(d->resid);
	free(d->zlink);
	free(d->att);
	free(d->cls);
	free(d->abs_bad);
	free(d->suspect);
	free(d->eff_src);
	free(d->eff_dst);
	free(d->se_src);
	free(d->se_dst);
	free(d->score_src);
	free(d->score_dst);
	free(d->slow_src);
	free(d->slow_dst);
	free(d->n_src);
	free(d->n_dst);
	free(d->fail);
	free(d->ncell);
	free(d->node);
	free(d->link);
	memset(d, 0, sizeof(*d));
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

/* Scratch for one diagnosis. */
struct work {
	int n;
	double *y;     /* n*n log goodness, NaN unusable */
	double *ybest; /* n*n log goodness of the best attempt */
	double *tmp;   /* n*n + 1 scratch */
	uint8_t *keep; /* n*n: part of the least-squares refit */
	double mu, *r, *c;
	double mu_link;	      /* the link test's reference: mu re-centred over the kept cells */
	int kept;	      /* cells behind it */
	const double *spread; /* n*n lp_diag_spread of a cell's attempts (lp_diag_in), NULL none */
};

static size_t cell(int n, int a, int b)
{
	return (size_t)a * n + b;
}

/* Median of row (dir 0) or column (dir 1) i of m - off over cells where keep (or all). */
static double line_median(const struct work *w, const double *m, int i, int dir)
{
	size_t k = 0;

	for (int j = 0; j < w->n; j++) {
		size_t x = dir ? cell(w->n, j, i) : cell(w->n, i, j);

		if (isfinite(m[x]))
			w->tmp[k++] = m[x];
	}
	return k ? lp_median(w->tmp, k) : NAN;
}

/* Move the medians of r and c into mu: the reference is the typical node, not the mean. */
static void centre(struct work *w)
{
	for (int dir = 0; dir < 2; dir++) {
		double *e = dir ? w->c : w->r, med;
		size_t k = 0;

		for (int i = 0; i < w->n; i++)
			if (isfinite(e[i]))
				w->tmp[k++] = e[i];
		med = k ? lp_median(w->tmp, k) : 0;
		w->mu += med;
		for (int i = 0; i < w->n; i++)
			e[i] -= med;
	}
}

/* Tukey's median polish of y into mu + r + c (+ residuals), ignoring NaN cells. */
static void polish(struct work *w, double *e)
{
	int n = w->n;

	memcpy(e, w->y, (size_t)n * n * sizeof(double));
	w->mu = 0;
	for (int i = 0; i < n; i++)
		w->r[i] = w->c[i] = NAN;
	for (int it = 0; it < POLISH_ITERS; it++)
		for (int dir = 0; dir < 2; dir++)
			for (int i = 0; i < n; i++) {
				double m = line_median(w, e, i, dir), *eff = dir ? w->c : w->r;

				if (!isfinite(m))
					continue;
				eff[i] = isfinite(eff[i]) ? eff[i] + m : m;
				for (int j = 0; j < n; j++)
					e[dir ? cell(n, j, i) : cell(n, i, j)] -= m;
			}
	centre(w);
}

/* Least squares of the kept cells by backfitting, starting from the current effects. */
static void backfit(struct work *w)
{
	int n = w->n;

	for (int i = 0; i < n; i++) { /* mu into r so that rows and columns alternate alone */
		if (isfinite(w->r[i]))
			w->r[i] += w->mu;
	}
	w->mu = 0;
	for (int it = 0; it < BACKFIT_ITERS; it++)
		for (int dir = 0; dir < 2; dir++) {
			double *eff = dir ? w->c : w->r, *other = dir ? w->r : w->c;

			for (int i = 0; i < n; i++) {
				double s = 0;
				int k = 0;

				for (int j = 0; j < n; j++) {
					size_t x = dir ? cell(n, j, i) : cell(n, i, j);

					if (w->keep[x] && isfinite(other[j])) {
						s += w->y[x] - other[j];
						k++;
					}
				}
				if (k)
					eff[i] = s / k;
			}
		}
	centre(w);
}

static double fitted(const struct work *w, int a, int b)
{
	return w->mu + (isfinite(w->r[a]) ? w->r[a] : 0) + (isfinite(w->c[b]) ? w->c[b] : 0);
}

/*
 * The scale for setting cells aside, free of every node effect: a tetrad
 * y(a,b) - y(a,c) - y(d,b) + y(d,c) cancels the effects of a, d, b and c and has
 * variance 4 sigma^2; a slow link spoils only the few tetrads through its cell.
 * (The polish interpolates many cells exactly at small N, a MAD of its residuals
 * is ~0; a least-squares fit of all cells smears a slow link over its row.)
 * Offsets d = a + i, c = b + j keep it O(N^2) at any N.
 */
static double tetrad_sigma(struct work *w)
{
	int n = w->n, step = n > 64 ? n / 64 : 1;
	size_t k = 0, cap = (size_t)n * n;
	const double *y = w->y;

	for (int a = 0; a < n; a += step)
		for (int b = 0; b < n; b++)
			for (int i = 1; i <= 3 && i < n; i++)
				for (int j = 1; j <= 3 && j < n && k < cap; j++) {
					int d = (a + i) % n, c = (b + j) % n;
					double t = y[cell(n, a, b)] - y[cell(n, a, c)] -
						   y[cell(n, d, b)] + y[cell(n, d, c)];

					if (isfinite(t))
						w->tmp[k++] = fabs(t);
				}
	return k ? MAD_TO_SIGMA * lp_median(w->tmp, k) / 2 : 0;
}

/*
 * A kept cell's residual as if it were left out of the fit: e / (1 - h), the
 * leverage h = 1/cells(a) + 1/cells(b) - 1/kept in a two-way table.
 */
static double deleted(const struct lp_diag *d, size_t x, double e, int kept)
{
	int a = (int)(x / d->n), b = (int)(x % d->n);

	return e / (1 - fmin(0.9, 1.0 / d->n_src[a] + 1.0 / d->n_dst[b] - 1.0 / kept));
}

/*
 * N >= 4: median polish, cells that stand out of it set aside, least squares on
 * the rest. Sets w->mu/r/c and d->sigma_fit, d->df.
 */
static void fit_twoway(struct lp_diag *d, struct work *w)
{
	int n = w->n;
	size_t nn = (size_t)n * n, k = 0;
	double *e = d->resid, s0;

	polish(w, e);
	/* a first scale: the smaller of the tetrads' and the polish's (its exact zeros left out) */
	for (size_t x = 0; x < nn; x++)
		if (isfinite(e[x]) && fabs(e[x]) > 1e-12)
			w->tmp[k++] = fabs(e[x]);
	s0 = k ? MAD_TO_SIGMA * lp_median(w->tmp, k) : 0;
	s0 = fmin(s0, tetrad_sigma(w));
	for (size_t x = 0; x < nn; x++)
		w->keep[x] = isfinite(w->y[x]) && (s0 <= 0 || fabs(e[x]) <= TRIM_Z * s0);
	/* least squares on the kept cells; cells are let back in (or out) by the refit's own noise */
	for (int it = 0; it < 3; it++) {
		double ss = 0;
		int kept = 0, rows = 0, cols = 0;

		backfit(w);
		for (int i = 0; i < n; i++) {
			bool rk = false, ck = false;

			for (int j = 0; j < n; j++) {
				rk = rk || w->keep[cell(n, i, j)];
				ck = ck || w->keep[cell(n, j, i)];
			}
			rows += rk;
			cols += ck;
		}
		for (size_t x = 0; x < nn; x++) {
			e[x] = w->y[x] - fitted(w, (int)(x / n), (int)(x % n));
			if (w->keep[x]) {
				ss += e[x] * e[x];
				kept++;
			}
		}
		d->df = kept - (rows + cols - 1);
		d->sigma_fit = d->df > 0 ? sqrt(ss / d->df) : NAN;
		if (!(d->sigma_fit > 0))
			break;
		/* a kept cell by its deleted residual: it pulls its own fit towards it */
		for (size_t x = 0; x < nn; x++)
			w->keep[x] = isfinite(w->y[x]) &&
				     fabs(w->keep[x] ? deleted(d, x, e[x], kept) : e[x]) <=
					     TRIM_Z * d->sigma_fit;
	}
}

/* Enough repeated attempts to take their noise for the cells' (N <= 3 has nothing else). */
static bool rep_known(const struct lp_diag *d)
{
	return isfinite(d->sigma_rep) && d->rep_pairs >= REP_MIN_PAIRS;
}

/* The Student t quantile at df degrees of freedom for a normal z (Cornish-Fisher, first term). */
static double t_quantile(double z, double df)
{
	return z + (z * z * z + z) / (4 * (df > 0 ? df : 1));
}

/* Gaussian elimination with partial pivoting. -1 when singular. */
static int solve(double a[SEARCH_MAX_P][SEARCH_MAX_P + 1], int p, double *x)
{
	for (int i = 0; i < p; i++) {
		int piv = i;

		for (int j = i + 1; j < p; j++)
			if (fabs(a[j][i]) > fabs(a[piv][i]))
				piv = j;
		if (fabs(a[piv][i]) < 1e-9)
			return -1;
		for (int k = 0; k <= p; k++) {
			double t = a[i][k];

			a[i][k] = a[piv][k];
			a[piv][k] = t;
		}
		for (int j = 0; j < p; j++) {
			double f;

			if (j == i)
				continue;
			f = a[j][i] / a[i][i];
			for (int k = i; k <= p; k++)
				a[j][k] -= f * a[i][k];
		}
	}
	for (int i = 0; i < p; i++)
		x[i] = a[i][p] / a[i][i];
	return 0;
}

/* Fault i of the small-N search: senders 0..n-1, receivers n..2n-1, then the link cells. */
static struct lp_diag_item search_item(int n, int i)
{
	struct lp_diag_item it = { 0 };

	if (i < 2 * n) {
		it.kind = i < n ? LP_ITEM_SRC : LP_ITEM_DST;
		it.a = it.b = i % n;
	} else {
		int l = i - 2 * n, bb = l % (n - 1);

		it.kind = LP_ITEM_LINK;
		it.a = l / (n - 1);
		it.b = bb >= it.a ? bb + 1 : bb;
	}
	return it;
}

static bool item_covers(const struct lp_diag_item *it, int a, int b)
{
	return it->kind == LP_ITEM_SRC	 ? a == it->a
	       : it->kind == LP_ITEM_DST ? b == it->a
					 : a == it->a && b == it->b;
}

/* One explanation: mu plus k faults, each a slowdown beyond rel, fitted by least squares. */
struct expl {
	int k, df;
	int idx[SEARCH_MAX_FAULTS];
	double ss, beta[SEARCH_MAX_P];
};

static bool expl_fit(const struct work *w, struct expl *e, double lrel)
{
	int n = w->n, p = e->k + 1, ncell = 0;
	double a[SEARCH_MAX_P][SEARCH_MAX_P + 1] = { { 0 } };
	struct lp_diag_item it[SEARCH_MAX_FAULTS];

	for (int k = 0; k < e->k; k++)
		it[k] = search_item(n, e->idx[k]);
	for (int pass = 0; pass < 2; pass++) {
		e->ss = 0;
		for (int ca = 0; ca < n; ca++)
			for (int cb = 0; cb < n; cb++) {
				double y = w->y[cell(n, ca, cb)], row[SEARCH_MAX_P] = { 1 },
				       f = e->beta[0];

				if (!isfinite(y))
					continue;
				for (int k = 0; k < e->k; k++) {
					row[k + 1] = item_covers(&it[k], ca, cb);
					f += row[k + 1] * e->beta[k + 1];
				}
				if (pass) {
					e->ss += (y - f) * (y - f);
					continue;
				}
				ncell++;
				for (int i = 0; i < p; i++) {
					for (int j = 0; j < p; j++)
						a[i][j] += row[i] * row[j];
					a[i][p] += row[i] * y;
				}
			}
		if (!pass && (ncell <= p || solve(a, p, e->beta)))
			return false;
	}
	for (int k = 1; k < p; k++)
		if (!(e->beta[k] < lrel) || !(e->beta[k] < 0))
			return false;
	e->df = ncell - p;
	return true;
}

struct search {
	struct expl *e;
	size_t n, cap;
};

/* Every explanation of up to maxf faults (items from `from` on), fitted once. */
static int enumerate(const struct work *w, struct search *s, struct expl *cur, int from, int maxf,
		     double lrel)
{
	int items = 2 * w->n + w->n * (w->n - 1);

	if (expl_fit(w, cur, lrel)) {
		if (s->n == s->cap) {
			size_t nc = s->cap ? 2 * s->cap : 1024;
			struct expl *p = realloc(s->e, nc * sizeof(*p));

			if (!p)
				return -ENOMEM;
			s->e = p;
			s->cap = nc;
		}
		s->e[s->n++] = *cur;
	}
	if (cur->k == maxf)
		return 0;
	for (int i = from; i < items; i++) {
		int rc;

		cur->idx[cur->k++] = i;
		rc = enumerate(w, s, cur, i + 1, maxf, lrel);
		cur->k--;
		if (rc)
			return rc;
	}
	return 0;
}

/* Residual sum of squares in units of the noise, plus k^2 per fault (it must stand k sigmas out). */
static double expl_score(const struct expl *e, double sigma, double k)
{
	return e->ss / (sigma * sigma) + k * k * e->k;
}

static size_t expl_best(const struct search *s, double sigma, double k)
{
	size_t best = 0;

	for (size_t i = 1; i < s->n; i++)
		if (expl_score(&s->e[i], sigma, k) < expl_score(&s->e[best], sigma, k))
			best = i;
	return best;
}

/* a's faults all in b's */
static bool expl_within(const struct expl *a, const struct expl *b)
{
	for (int i = 0; i < a->k; i++) {
		bool in = false;

		for (int j = 0; j < b->k; j++)
			in = in || a->idx[i] == b->idx[j];
		if (!in)
			return false;
	}
	return true;
}

static void add_cand(struct lp_diag *d, struct lp_diag_item it)
{
	for (int i = 0; i < d->ncand; i++)
		if (d->cand[i].kind == it.kind && d->cand[i].a == it.a && d->cand[i].b == it.b)
			return;
	if (d->ncand < LP_DIAG_MAX_CAND)
		d->cand[d->ncand++] = it;
}

static void expl_cands(struct lp_diag *d, const struct expl *e)
{
	for (int k = 0; k < e->k; k++) {
		struct lp_diag_item it = search_item(d->n, e->idx[k]);

		it.ratio = exp(e->beta[k + 1]);
		add_cand(d, it);
	}
}

/*
 * N = 3 (6 cells, 5 two-way parameters: no fit can localise one cell): the
 * simplest set of faults (node as sender or receiver, link cells; each one a
 * slowdown beyond rel) that explains the cells within the noise, each fault
 * paying k^2 in units of sigma^2 (it must stand k sigmas out). The noise is
 * what repeated attempts measured, at least a third of rel (six cells cannot
 * measure it), and at least the spread the best explanation leaves. Another
 * explanation that fits as well, and is not just the best one plus or minus a
 * marginal fault, makes the verdict ambiguous.
 */
static int fit_search(struct lp_diag *d, struct work *w, const struct lp_diag_opts *o, double lrel)
{
	int n = w->n;
	struct search s = { 0 };
	struct expl cur = { 0 };
	double floor_sigma = lrel < 0 ? -lrel / 3 : 1e-3, sigma;
	size_t best = 0;
	int rc;

	rc = enumerate(w, &s, &cur, 0, SEARCH_MAX_FAULTS, lrel);
	if (rc || !s.n) {
		free(s.e);
		return rc;
	}
	sigma = fmax(floor_sigma, rep_known(d) ? d->sigma_rep : 0);
	best = expl_best(&s, sigma, o->k);
	if (s.e[best].df >= 2) { /* the spread the best explanation leaves, once */
		sigma = fmax(sigma, sqrt(s.e[best].ss / s.e[best].df));
		best = expl_best(&s, sigma, o->k);
	}
	if (s.e[best].df >= 1) {
		d->sigma_fit = sqrt(s.e[best].ss / s.e[best].df);
		d->df = s.e[best].df;
	}
	d->sigma = sigma;
	const struct expl *b = &s.e[best];
	double bscore = expl_score(b, sigma, o->k);

	w->mu = b->beta[0];
	for (int i = 0; i < n; i++)
		w->r[i] = w->c[i] = 0;
	expl_cands(d, b);
	for (int i = 0; i < d->ncand; i++) {
		if (d->cand[i].kind == LP_ITEM_SRC)
			w->r[d->cand[i].a] = log(d->cand[i].ratio);
		else if (d->cand[i].kind == LP_ITEM_DST)
			w->c[d->cand[i].a] = log(d->cand[i].ratio);
	}
	for (size_t i = 0; i < s.n && b->k; i++) { /* other explanations as good: name them all */
		const struct expl *e = &s.e[i];

		if (i == best || !e->k || expl_within(e, b) || expl_within(b, e) ||
		    expl_score(e, sigma, o->k) > bscore + AMBIG_SCORE)
			continue;
		d->ambiguous = true;
		expl_cands(d, e);
	}
	if (!d->ambiguous) { /* one explanation: it is the verdict */
		for (int i = 0; i < d->ncand; i++) {
			const struct lp_diag_item *it = &d->cand[i];

			if (it->kind == LP_ITEM_SRC)
				d->node[it->a] |= LP_NODE_SLOW_SRC;
			else if (it->kind == LP_ITEM_DST)
				d->node[it->a] |= LP_NODE_SLOW_DST;
			else
				d->link[cell(n, it->a, it->b)] |= LP_LINK_SLOW;
		}
		d->ncand = 0;
	}
	free(s.e);
	return 0;
}

/* N = 2: a cell well below the other one is a slow pair; which of the three, nobody can say. */
static void fit_n2(struct lp_diag *d, struct work *w, const struct lp_diag_opts *o, double lrel)
{
	double y01 = w->y[1], y10 = w->y[2];
	double s = rep_known(d) ? d->sigma_rep : 0;

	d->sigma = s;
	w->mu = isfinite(y01) && isfinite(y10) ? fmax(y01, y10) : isfinite(y01) ? y01 : y10;
	w->r[0] = w->r[1] = w->c[0] = w->c[1] = 0;
	for (int a = 0; a < 2; a++) {
		double dev = w->y[cell(2, a, 1 - a)] - w->mu;

		if (!(dev < lrel) || !(dev < -o->k * s * sqrt(2.0)))
			continue;
		d->ambiguous = true;
		add_cand(d, (struct lp_diag_item){ LP_ITEM_SRC, a, a, exp(dev) });
		add_cand(d, (struct lp_diag_item){ LP_ITEM_DST, 1 - a, 1 - a, exp(dev) });
		add_cand(d, (struct lp_diag_item){ LP_ITEM_LINK, a, 1 - a, exp(dev) });
	}
}

/* A node effect rests on its own cells: sigma / sqrt(cells). */
static void standard_errors(struct lp_diag *d)
{
	for (int i = 0; i < d->n; i++) {
		d->se_src[i] = d->n_src[i] ? d->sigma / sqrt(d->n_src[i]) : NAN;
		d->se_dst[i] = d->n_dst[i] ? d->sigma / sqrt(d->n_dst[i]) : NAN;
	}
}

/*
 * Two-way fit: each node effect against its own standard error, k as a Student
 * t quantile at the residuals' df (at N = 4 sigma itself rests on 5 of them:
 * a mild effect confirmed by every partner is not enough there); a node slow
 * both ways is tested once, on its two effects together. A close call
 * (beyond rel, beyond SUSPECT_Z standard errors but not that) has its cells
 * retested: their medians set outliers aside and the repeats add noise figures.
 */
static void test_nodes(struct lp_diag *d, const struct work *w, const struct lp_diag_opts *o,
		       double lrel)
{
	int n = w->n;
	double k = t_quantile(o->k, d->df);

	for (int i = 0; i < n; i++) {
		/* slow both ways: one test of the two effects together, each clearly there */
		bool both = d->n_src[i] >= 2 && d->n_dst[i] >= 2 && w->r[i] < lrel &&
			    w->c[i] < lrel && w->r[i] < -SUSPECT_Z * d->se_src[i] &&
			    w->c[i] < -SUSPECT_Z * d->se_dst[i] &&
			    w->r[i] + w->c[i] < -k * hypot(d->se_src[i], d->se_dst[i]);

		if (both)
			d->node[i] |= LP_NODE_SLOW_SRC | LP_NODE_SLOW_DST;
		for (int dir = 0; dir < 2 && !both; dir++) {
			double eff = dir ? w->c[i] : w->r[i],
			       se = dir ? d->se_dst[i] : d->se_src[i];
			int cells = dir ? d->n_dst[i] : d->n_src[i];

			if (cells < 2 || !(eff < lrel) || !(eff < -SUSPECT_Z * se))
				continue;
			if (eff < -k * se) {
				d->node[i] |= dir ? LP_NODE_SLOW_DST : LP_NODE_SLOW_SRC;
				continue;
			}
			for (int j = 0; j < n; j++)
				if (j != i)
					d->suspect[dir ? cell(n, j, i) : cell(n, i, j)] = 1;
		}
	}
}

/* What a healthy link between a and b gives: the reference and the flagged node effects only. */
static double flagged_fit(const struct lp_diag *d, const struct work *w, int a, int b)
{
	return w->mu_link + (d->node[a] & LP_NODE_SLOW_SRC ? w->r[a] : 0) +
	       (d->node[b] & LP_NODE_SLOW_DST ? w->c[b] : 0);
}

/*
 * The link test's noise (N >= 4, once the nodes are tested): the kept cells
 * against the reference plus the flagged node effects, re-centred. The nodes
 * not found slow are the healthy majority (effect 0; a small real effect only
 * adds to this noise), so it rests on all kept cells, not on cells - 2N + 1.
 */
static void link_noise(struct lp_diag *d, struct work *w)
{
	size_t nn = (size_t)d->n * d->n;
	double s = 0, ss = 0;
	int nflag = 0;

	w->mu_link = w->mu;
	w->kept = 0;
	for (size_t x = 0; x < nn; x++)
		if (w->keep[x]) {
			s += w->y[x] - flagged_fit(d, w, (int)(x / d->n), (int)(x % d->n));
			w->kept++;
		}
	if (!w->kept)
		return;
	w->mu_link += s / w->kept;
	for (size_t x = 0; x < nn; x++)
		if (w->keep[x]) {
			double e = w->y[x] - flagged_fit(d, w, (int)(x / d->n), (int)(x % d->n));

			ss += e * e;
		}
	for (int i = 0; i < d->n; i++)
		nflag += !!(d->node[i] & LP_NODE_SLOW_SRC) + !!(d->node[i] & LP_NODE_SLOW_DST);
	d->df_link = w->kept - 1 - nflag;
	d->sigma_link = d->df_link > 0 ? sqrt(ss / d->df_link) : NAN;
}

/*
 * A cell's attempts disagree beyond the noise s: their variance ratio
 * (own / s)^2 with df degrees of freedom stands SUSPECT_Z out of its chi-square
 * distribution (Wilson-Hilferty).
 */
static bool disagree(double own, double s, int df)
{
	double c = 2.0 / (9 * df);

	return isfinite(own) && s > 0 &&
	       (cbrt(own * own / (s * s)) - (1 - c)) / sqrt(c) > SUSPECT_Z;
}

/*
 * Cell x against flagged_fit: z (deviation / standard error) and the margin,
 * z over the k + 1 threshold as a Student t quantile at the noise's degrees of
 * freedom (-1 or below: a slow link). The noise is the other cells' (x left
 * out of sigma_link: externally studentized). The cell's own part of it is the
 * residuals' (sigma_link, its df) or, for a retested cell, the repeats' (its
 * attempts agreeing is the evidence: independent of the fit, with their own
 * df, Welch-Satterthwaite); the cell stands out when it does by either. When
 * the cell's own attempts disagree beyond that noise (outliers among them),
 * their median earns no 1/sqrt(attempts): only the best attempt is tested, as
 * one measurement (a transient only ever slows, so it bounds the cell's level).
 */
static double link_margin(const struct lp_diag *d, const struct work *w,
			  const struct lp_diag_opts *o, size_t x, double dev, double *z_p)
{
	int a = (int)(x / d->n), b = (int)(x % d->n), att = d->att[x], dfl = d->df_link,
	    kept = w->kept;
	double sl = d->sigma_link, v2, best = INFINITY, own = w->spread ? w->spread[x] : NAN;

	if (w->keep[x] && dfl > 1) { /* the reference and noise of the other cells: x is tested */
		double f = (double)kept / (kept - 1);

		sl = sqrt(fmax(0, sl * sl * dfl - dev * dev * f) / (dfl - 1));
		dev *= f;
		dfl--;
		kept--;
	}
	v2 = sl * sl / kept;
	if (d->node[a] & LP_NODE_SLOW_SRC)
		v2 += d->se_src[a] * d->se_src[a];
	if (d->node[b] & LP_NODE_SLOW_DST)
		v2 += d->se_dst[b] * d->se_dst[b];
	if (att >= 2 && disagree(own, sl, att - 1)) {
		/* attempts that disagree: only the best one vouches (a transient only slows) */
		dev += w->ybest[x] - w->y[x];
		att = 1;
	}
	for (int rep = 0; rep <= (att >= 2 && rep_known(d)); rep++) {
		double s = rep ? d->sigma_rep : sl, v1 = s * s / att, df = dfl, z, m;

		if (rep)
			df = (v1 + v2) * (v1 + v2) /
			     (v1 * v1 / (REP_DF_PER_PAIR * d->rep_pairs) + v2 * v2 / dfl);
		z = v1 + v2 > 0 ? dev / sqrt(v1 + v2) : dev < 0 ? -INFINITY : 0;
		m = z / t_quantile(o->k + 1, df);
		if (m < best) {
			best = m;
			*z_p = z;
		}
	}
	return best;
}

/*
 * Link residuals: the fit's (resid, a deviation beyond rel; for a kept cell the
 * deleted residual) and, for the test,
 * the deviation from flagged_fit (link_margin, N >= 4) or, at N = 3, the
 * residual against the cell's attempts and the two fitted effects. Flag those
 * beyond k + 1 (two-way fit), mark those beyond SUSPECT_Z for a retest.
 */
static void link_z(struct lp_diag *d, const struct work *w, const struct lp_diag_opts *o,
		   double lrel, bool flag)
{
	int n = d->n;

	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++) {
			size_t x = cell(n, a, b);
			double se, e, margin;

			if (!isfinite(w->y[x]))
				continue;
			e = w->y[x] - fitted(w, a, b);
			if (w->keep[x]) /* as if the cell were left out: it pulls its own fit */
				e = deleted(d, x, e, w->kept);
			d->resid[x] = e;
			if (isfinite(d->sigma_link)) {
				margin = link_margin(d, w, o, x, w->y[x] - flagged_fit(d, w, a, b),
						     &d->zlink[x]);
			} else {
				se = d->sigma * sqrt(1.0 / d->att[x] + 1.0 / fmax(1, d->n_src[a]) +
						     1.0 / fmax(1, d->n_dst[b]));
				d->zlink[x] = se > 0 ? e / se : e < 0 ? -INFINITY : 0;
				margin = d->zlink[x] / t_quantile(o->k + 1, d->df);
			}
			/* and a link is slow in its best attempt too, by half of rel at least:
			 * a transient that hit two of four attempts does not make a link */
			if (flag && e < lrel && margin <= -1 &&
			    w->ybest[x] - fitted(w, a, b) < lrel / 2)
				d->link[x] |= LP_LINK_SLOW;
			/* close calls, and attempts that disagree, are worth another retest */
			if (e < lrel &&
			    (d->zlink[x] < -SUSPECT_Z ||
			     (w->spread && disagree(w->spread[x], d->sigma_link, d->att[x] - 1))))
				d->suspect[x] = 1;
		}
}

static int alloc_all(struct lp_diag *d, struct work *w, int n)
{
	size_t nn = (size_t)n * n;

	d->ratio = malloc(nn * sizeof(double));
	d->resid = malloc(nn * sizeof(double));
	d->zlink = malloc(nn * sizeof(double));
	d->att = calloc(nn, 1);
	d->cls = calloc(nn, 1);
	d->abs_bad = calloc(nn, 1);
	d->suspect = calloc(nn, 1);
	d->link = calloc(nn, 1);
	d->eff_src = malloc(n * sizeof(double));
	d->eff_dst = malloc(n * sizeof(double));
	d->se_src = malloc(n * sizeof(double));
	d->se_dst = malloc(n * sizeof(double));
	d->score_src = malloc(n * sizeof(double));
	d->score_dst = malloc(n * sizeof(double));
	d->slow_src = calloc(n, sizeof(int));
	d->slow_dst = calloc(n, sizeof(int));
	d->n_src = calloc(n, sizeof(int));
	d->n_dst = calloc(n, sizeof(int));
	d->fail = calloc(n, sizeof(int));
	d->ncell = calloc(n, sizeof(int));
	d->node = calloc(n, 1);
	w->n = n;
	w->y = malloc(nn * sizeof(double));
	w->ybest = malloc(nn * sizeof(double));
	w->tmp = malloc((nn + 1) * sizeof(double));
	w->keep = calloc(nn, 1);
	w->r = malloc(n * sizeof(double));
	w->c = malloc(n * sizeof(double));
	return d->ratio && d->resid && d->zlink && d->att && d->cls && d->abs_bad && d->suspect &&
			       d->link && d->eff_src && d->eff_dst && d->se_src && d->se_dst &&
			       d->score_src && d->score_dst && d->slow_src && d->slow_dst &&
			       d->n_src && d->n_dst && d->fail && d->ncell && d->node && w->y &&
			       w->ybest && w->tmp && w->keep && w->r && w->c
		       ? 0
		       : -ENOMEM;
}

static void free_work(struct work *w)
{
	free(w->y);
	free(w->ybest);
	free(w->tmp);
	free(w->keep);
	free(w->r);
	free(w->c);
}

/* Cells, failures and floors: what is known before any model. */
static void classify(struct lp_diag *d, struct work *w, const struct lp_diag_in *in,
		     const struct lp_diag_opts *o)
{
	int n = in->n;

	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++) {
			size_t x = cell(n, a, b);
			bool on = a != b && (!in->sched || in->sched[x]);
			bool bad = on && in->fail && in->fail[x];
			double v = in->v[x];
			bool ok = on && !bad && isfinite(v) && v > 0;

			double vb = in->best && isfinite(in->best[x]) ? in->best[x] : v;

			w->y[x] = ok ? (in->lat ? -log(v) : log(v)) : NAN;
			w->ybest[x] = ok && vb > 0 ? (in->lat ? -log(vb) : log(vb)) : w->y[x];
			d->att[x] = ok ? (in->att && in->att[x] ? in->att[x] : 1) : 0;
			d->cls[x] = !on	  ? LP_CELL_NONE
				    : bad ? LP_CELL_FAIL
				    : ok  ? LP_CELL_OK
					  : LP_CELL_NONE;
			d->resid[x] = d->zlink[x] = d->ratio[x] = NAN;
			if (ok && ((!in->lat && o->min_gbps > 0 && v < o->min_gbps) ||
				   (in->lat && o->max_lat_us > 0 && v > o->max_lat_us)))
				d->abs_bad[x] = 1;
		}
	for (int i = 0; i < n; i++) {
		int fail_partners = 0;

		for (int j = 0; j < n; j++) {
			uint8_t r = d->cls[cell(n, i, j)], col = d->cls[cell(n, j, i)];

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
	int n = d->n;

	for (int i = 0; i < n; i++) {
		int rs = 0, cs = 0;

		for (int j = 0; j < n; j++) {
			rs += d->abs_bad[cell(n, i, j)];
			cs += d->abs_bad[cell(n, j, i)];
		}
		if (rs >= 2 && rs > o->vote * d->n_src[i])
			d->node[i] |= LP_NODE_SLOW_SRC;
		if (cs >= 2 && cs > o->vote * d->n_dst[i])
			d->node[i] |= LP_NODE_SLOW_DST;
	}
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++)
			if (d->abs_bad[cell(n, a, b)] && !(d->node[a] & LP_NODE_SLOW_SRC) &&
			    !(d->node[b] & LP_NODE_SLOW_DST))
				d->link[cell(n, a, b)] |= LP_LINK_SLOW;
}

/* Ratios, residuals, partners agreeing, slow cells, suspects and failed links. */
static void summarise(struct lp_diag *d, const struct work *w, double lrel)
{
	int n = d->n;

	d->ref = d->lat ? exp(-w->mu) : exp(w->mu);
	for (int i = 0; i < n; i++) {
		d->eff_src[i] = d->n_src[i] ? w->r[i] : NAN;
		d->eff_dst[i] = d->n_dst[i] ? w->c[i] : NAN;
		d->score_src[i] = exp(d->eff_src[i]);
		d->score_dst[i] = exp(d->eff_dst[i]);
	}
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++) {
			size_t x = cell(n, a, b);
			double y = w->y[x];
			bool src = d->node[a] & LP_NODE_SLOW_SRC,
			     dst = d->node[b] & LP_NODE_SLOW_DST;

			if (d->cls[x] == LP_CELL_FAIL && !(d->node[a] & LP_NODE_FAILED) &&
			    !(d->node[b] & LP_NODE_FAILED))
				d->link[x] |= LP_LINK_FAILED;
			if (!isfinite(y))
				continue;
			d->ratio[x] = exp(y - w->mu);
			if (!isfinite(d->resid[x]))
				d->resid[x] = y - fitted(w, a, b);
			/* a partner agrees when the cell sits nearer the fault than normal */
			if (d->eff_src[a] < 0 && y - w->mu - w->c[b] < d->eff_src[a] / 2)
				d->slow_src[a]++;
			if (d->eff_dst[b] < 0 && y - w->mu - w->r[a] < d->eff_dst[b] / 2)
				d->slow_dst[b]++;
			bool in_fault = (src && y - w->mu - w->c[b] < d->eff_src[a] / 2) ||
					(dst && y - w->mu - w->r[a] < d->eff_dst[b] / 2) ||
					(d->link[x] & LP_LINK_SLOW) || d->abs_bad[x];
			for (int i = 0; i < d->ncand && !in_fault; i++)
				in_fault = item_covers(&d->cand[i], a, b) && y - w->mu < lrel;
			if (in_fault) {
				d->cls[x] = LP_CELL_SLOW;
				if (d->ambiguous || (d->link[x] & LP_LINK_SLOW))
					d->suspect[x] = 1;
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
	    o->rel_max <= 0 || o->rel_max >= 1 || o->k < 0)
		return -EINVAL;
	d->n = in->n;
	d->lat = in->lat;
	rc = alloc_all(d, w, in->n);
	if (rc)
		return rc;
	d->thresh = 1 - o->rel;
	d->sigma_rep = in->rep_pairs > 0 ? in->rep_sigma : NAN;
	d->rep_pairs = in->rep_pairs;
	d->sigma_fit = d->sigma_link = NAN;
	w->spread = in->spread;
	return 0;
}

/* Step 3: the model for this N, its noise, and the tests of its effects and links. */
static int model(struct lp_diag *d, struct work *w, const struct lp_diag_opts *o, double lrel)
{
	int n = d->n, rc;

	if (n > SEARCH_MAX_N) {
		fit_twoway(d, w);
		/* the residuals' noise; the repeats' is reported only: the cells retested again
		 * are those that stayed suspect, a biased sample */
		d->sigma = isfinite(d->sigma_fit) ? d->sigma_fit : 0;
		d->few_df = d->df < FIT_MIN_DF;
		standard_errors(d);
		test_nodes(d, w, o, lrel);
		link_noise(d, w);
		link_z(d, w, o, lrel, true);
	} else if (n >= 3) {
		rc = fit_search(d, w, o, lrel);
		if (rc)
			return rc;
		standard_errors(d);
		link_z(d, w, o, lrel, false);
	} else if (n == 2) {
		fit_n2(d, w, o, lrel);
	} else {
		w->mu = NAN;
	}
	return 0;
}

/*
 * The smallest node and link faults the noise lets the tests see (one attempt
 * per cell). Where sigma comes from the two-way residuals, k is taken as a
 * Student t quantile at their df: at N = 4 sigma itself is uncertain, and a
 * residual noise that happens to come out low must not vouch for "healthy".
 */
static void detectable(struct lp_diag *d, const struct work *w, const struct lp_diag_opts *o)
{
	int m = d->n > 1 ? d->n - 1 : 1;
	double k = d->n > SEARCH_MAX_N ? t_quantile(o->k, d->df) : o->k;

	d->cv = exp(d->sigma) - 1;
	d->min_node = exp(-k * d->sigma / sqrt(m));
	if (isfinite(d->sigma_link))
		d->min_link = exp(-t_quantile(o->k + 1, d->df_link) * d->sigma_link *
				  sqrt(1 + 1.0 / w->kept));
	else
		d->min_link = exp(-(o->k + 1) * d->sigma * sqrt(1 + 2.0 / m));
}

/*
 * Step 4: inconclusive when a node slower than rel_max could hide in the noise,
 * or when a cell sits below 1 - rel_max of its fitted value (and of the
 * reference with the flagged node effects) and nothing named
 * (a link, an ambiguous candidate) accounts for it: a fault that large is never
 * passed as healthy. At N >= 4 what was named passed k (links k + 1) as a
 * Student t quantile at the noise's df and stays named beside the verdict; at
 * N <= 3 nothing does, nor at N >= 4 when failed nodes or cells leave under
 * FIT_MIN_DF residual df (one residual is no noise estimate: a first-order t
 * quantile at 1 df is 21 where the exact one is 10^4). The suspects stay:
 * retests are the remedy.
 */
static void gate(struct lp_diag *d, const struct work *w, const struct lp_diag_opts *o)
{
	int n = d->n;
	double lmax = log(1 - o->rel_max);
	bool open = d->few_df || d->min_node < 1 - o->rel_max;

	for (int a = 0; a < n && !open; a++)
		for (int b = 0; b < n && !open; b++) {
			size_t x = cell(n, a, b);
			bool named = d->link[x] & LP_LINK_SLOW;

			for (int i = 0; i < d->ncand && !named; i++)
				named = item_covers(&d->cand[i], a, b);
			/* by the fit's deleted residual and against the reference alike: the
			 * first alone is noisy at small N (1 / (1 - leverage) of it) */
			open = !named && d->resid[x] < lmax &&
			       (isfinite(d->sigma_link) ? w->y[x] - flagged_fit(d, w, a, b) < lmax
							: true);
		}
	if (!open)
		return;
	d->inconclusive = true;
	/* names passed k (links k + 1) as t quantiles: they stay, unless the noise behind
	 * the quantile rests on too few residuals to be an estimate at all */
	if (d->n > SEARCH_MAX_N && !d->few_df)
		return;
	d->ambiguous = false; /* N <= 3, or too few df: nothing named on statistics */
	d->ncand = 0;
	memset(d->link, 0, (size_t)n * n);
	for (int i = 0; i < n; i++)
		d->node[i] &= LP_NODE_FAILED;
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
		rc = model(d, &w, o, lrel);
	}
	if (!rc) {
		detectable(d, &w, o);
		gate(d, &w, o);
		floors(d, o);
		summarise(d, &w, lrel);
	}
	free_work(&w);
	if (rc)
		lp_diag_free(d);
	return rc;
}
