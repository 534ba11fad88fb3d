// SPDX-License-Identifier: MIT
/*
 * The two-way fit of the diagnosis (diag.h), N >= 4: Tukey's median polish as
 * a start, then least squares with outliers set aside by the externally
 * studentised residual at a Bonferroni level (ls_fit): the noise is the
 * residual sum of squares over its degrees of freedom, unbiased for Gaussian
 * cells at any N, so that the Student-t quantiles of the tests are exact.
 * (Huber's M-estimate with his proposal-2 scale, tried first, measured
 * E[s^2] / sigma^2 = 0.94, 0.89, 0.85 at N = 4, 5, 6: with 2N - 1 parameters
 * for N(N - 1) cells its standardised residuals are not standard; a cut at a
 * fixed multiple of a noisy scale sets good cells aside; the polish-MAD
 * minimum before it gave 0.70 sigma at N = 5.) A congested sweep round is
 * fitted as a round effect.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/stats.h"
#include "sweep/diag_int.h"
#include "sweep/dist.h"

#define POLISH_ITERS  10
#define START_Z	      5 /* a cell this many tetrad sigmas off the polish starts set aside */
#define MAD_TO_SIGMA  1.4826
#define OUTLIER_ALPHA 0.01 /* chance that a Gaussian run has a cell set aside (Bonferroni) */
#define ROUND_MIN     8	   /* cells of one round before its effect is estimated */
#define ROUND_ALPHA   0.01 /* chance that some healthy round gets an effect (Sidak over rounds) */

/* Median of row (dir 0) or column (dir 1) i of m over its finite cells. */
static double line_median(const struct work *w, const double *m, int i, int dir)
{
	size_t k = 0;

	LP_DIAG_PEERS (w->L, i, j) {
		size_t x = dir ? lp_diag_cell(w->L, j, i) : lp_diag_cell(w->L, i, j);

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

/* Tukey's median polish of y into mu + r + c, ignoring NaN cells (e: scratch residuals). */
static void polish(struct work *w, double *e)
{
	int n = w->n;

	memcpy(e, w->y, (w->L->ncell + 1) * sizeof(double));
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
				LP_DIAG_PEERS (w->L, i, j)
					e[dir ? lp_diag_cell(w->L, j, i)
					      : lp_diag_cell(w->L, i, j)] -= m;
			}
	centre(w);
}

/* The fitted groups' part of cell a -> b. */
double lp_diag_group_part(const struct lp_diag *d, const struct work *w, int a, int b)
{
	double s = 0;

	for (int g = 0; g < d->ngroup; g++)
		if (w->gfx[g] != 0 && lp_diag_group_covers(d, &d->group[g], a, b))
			s += w->gfx[g];
	return s;
}

double lp_diag_fitted(const struct lp_diag *d, const struct work *w, int a, int b)
{
	return w->mu + (isfinite(w->r[a]) ? w->r[a] : 0) + (isfinite(w->c[b]) ? w->c[b] : 0) +
	       (d->ngroup ? lp_diag_group_part(d, w, a, b) : 0);
}

/* One group's effect: the weighted mean of what the rest of the fit leaves in its cells. */
static void backfit_group(const struct lp_diag *d, struct work *w, int g)
{
	double s = 0, k = 0, keep = w->gfx[g];
	int n = w->n;

	w->gfx[g] = 0;
	for (int a = 0; a < n; a++)
		LP_DIAG_PEERS (w->L, a, b) {
			size_t x = lp_diag_cell(w->L, a, b);

			if (w->wt[x] > 0 && lp_diag_group_covers(d, &d->group[g], a, b)) {
				s += w->wt[x] * (w->y[x] - lp_diag_fitted(d, w, a, b));
				k += w->wt[x];
			}
		}
	w->gfx[g] = k > 0 ? s / k : keep;
	if (w->gfx[g] == 0)
		w->gfx[g] = 1e-300; /* stays fitted */
}

void lp_diag_backfit(struct lp_diag *d, struct work *w, int iters)
{
	int n = w->n;

	for (int i = 0; i < n; i++) /* mu into r so that rows and columns alternate alone */
		if (isfinite(w->r[i]))
			w->r[i] += w->mu;
	w->mu = 0;
	for (int it = 0; it < iters; it++) {
		for (int dir = 0; dir < 2; dir++) {
			double *eff = dir ? w->c : w->r, *other = dir ? w->r : w->c;

			for (int i = 0; i < n; i++) {
				double s = 0, k = 0;

				LP_DIAG_PEERS (w->L, i, j) {
					int a = dir ? j : i, b = dir ? i : j;
					size_t x = lp_diag_cell(w->L, a, b);

					if (w->wt[x] > 0 && isfinite(other[j])) {
						s += w->wt[x] *
						     (w->y[x] - other[j] -
						      (d->ngroup ? lp_diag_group_part(d, w, a, b)
								 : 0));
						k += w->wt[x];
					}
				}
				if (k > 0)
					eff[i] = s / k;
			}
		}
		for (int g = 0; g < d->ngroup; g++)
			if (w->gfx[g] != 0)
				backfit_group(d, w, g);
	}
	centre(w);
}

double lp_diag_wss(const struct lp_diag *d, const struct work *w)
{
	double ss = 0;
	int n = w->n;

	for (int a = 0; a < n; a++)
		LP_DIAG_PEERS (w->L, a, b) {
			size_t x = lp_diag_cell(w->L, a, b);
			double e = w->y[x] - lp_diag_fitted(d, w, a, b);

			if (w->wt[x] > 0)
				ss += w->wt[x] * e * e;
		}
	return ss;
}

/*
 * A first scale free of every node effect: a tetrad y(a,b) - y(a,c) - y(d,b)
 * + y(d,c) cancels the effects of a, d, b and c and has variance 4 sigma^2;
 * a slow link spoils only the few tetrads through its cell. Offsets d = a + i,
 * c = b + j keep it O(N^2) at any N.
 */
static double tetrad_sigma(struct work *w)
{
	int n = w->n, step = n > 64 ? n / 64 : 1;
	size_t k = 0, cap = (size_t)n * n < w->ntmp ? (size_t)n * n : w->ntmp;
	const double *y = w->y;

	for (int a = 0; a < n; a += step)
		LP_DIAG_PEERS (w->L, a, b)
			for (int i = 1; i <= 3 && i < n; i++)
				for (int j = 1; j <= 3 && j < n && k < cap; j++) {
					int d = (a + i) % n, c = (b + j) % n;
					double t = y[lp_diag_cell(w->L, a, b)] -
						   y[lp_diag_cell(w->L, a, c)] -
						   y[lp_diag_cell(w->L, d, b)] +
						   y[lp_diag_cell(w->L, d, c)];

					if (isfinite(t))
						w->tmp[k++] = fabs(t);
				}
	return k ? MAD_TO_SIGMA * lp_median(w->tmp, k) / 2 : 0;
}

/* Row, column and total counts of the cells in the fit (the leverage of a cell). */
static void weight_sums(const struct work *w, double *wr, double *wc, double *tot)
{
	int n = w->n;

	*tot = 0;
	for (int i = 0; i < n; i++)
		wr[i] = wc[i] = 0;
	for (int a = 0; a < n; a++)
		LP_DIAG_PEERS (w->L, a, b) {
			double v = w->wt[lp_diag_cell(w->L, a, b)];

			wr[a] += v;
			wc[b] += v;
			*tot += v;
		}
}

/* Rows and columns with a cell in the fit, and the cells: the residual degrees of freedom. */
void lp_diag_fit_df(struct lp_diag *d, struct work *w)
{
	int n = w->n, rows = 0, cols = 0, kept = 0;

	for (int i = 0; i < n; i++) {
		bool rk = false, ck = false;

		LP_DIAG_PEERS (w->L, i, j) {
			rk = rk || w->wt[lp_diag_cell(w->L, i, j)] > 0;
			ck = ck || w->wt[lp_diag_cell(w->L, j, i)] > 0;
		}
		rows += rk;
		cols += ck;
	}
	for (size_t x = 0; x < w->L->ncell; x++) {
		w->keep[x] = w->wt[x] > 0;
		kept += w->keep[x];
	}
	d->df = kept - (rows + cols - 1);
	for (int g = 0; g < d->ngroup; g++)
		d->df -= w->gfx[g] != 0;
}

/* The leverage of cell a -> b in a two-way table with these row, column and total counts. */
static double leverage(const double *wr, const double *wc, double tot, int a, int b)
{
	return fmin(0.95, 1 / fmax(wr[a], 1) + 1 / fmax(wc[b], 1) - 1 / fmax(tot, 1));
}

/*
 * One step of the outlier rule: each kept cell's externally studentised
 * residual e / (s_(x) sqrt(1 - h)) (s_(x): the noise without it, df - 1),
 * each set-aside cell's prediction error e / (s sqrt(1 + h)) (df), against
 * the two-sided Bonferroni t quantile at OUTLIER_ALPHA over the cells. The
 * set-aside cells within it come back; of the kept cells beyond it the worst
 * go, ncells / 20 of them at most (one at small N: an outlier inflates s
 * for the others, and setting several aside at once shrinks s for the rest).
 * Returns the number of cells that moved.
 */
static int outlier_step(struct lp_diag *d, struct work *w, double ss, size_t ncell, double *ts)
{
	int n = w->n, moved = 0;
	size_t nn = w->L->ncell, nbad = 0, most = ncell / 20 ? ncell / 20 : 1;
	double *wr = w->tmp, *wc = w->tmp + n, tot, s = sqrt(ss / d->df), cut = 0;
	double tq_in = lp_dist_t_isf(OUTLIER_ALPHA / (2.0 * ncell), d->df - 1),
	       tq_out = lp_dist_t_isf(OUTLIER_ALPHA / (2.0 * ncell), d->df);

	weight_sums(w, wr, wc, &tot);
	for (int a = 0; a < n; a++)
		LP_DIAG_PEERS (w->L, a, b) {
			size_t x = lp_diag_cell(w->L, a, b);
			double h = leverage(wr, wc, tot, a, b), e;

			ts[x] = 0;
			if (!isfinite(w->y[x]))
				continue;
			e = w->y[x] - lp_diag_fitted(d, w, a, b);
			if (w->wt[x] > 0) {
				double s_out = sqrt(fmax(0, ss - e * e / (1 - h)) / (d->df - 1));

				ts[x] = s_out > 0 ? fabs(e) / (s_out * sqrt(1 - h)) : 0;
				nbad += ts[x] > tq_in;
			} else if (fabs(e) / (s * sqrt(1 + h)) <= tq_out) {
				w->wt[x] = 1;
				moved++;
			}
		}
	if (nbad > most) { /* the most-th largest t: this step's cut */
		size_t k = 0;

		for (size_t x = 0; x < nn; x++)
			if (ts[x] > tq_in)
				w->tmp[2 * n + k++] = -ts[x];
		lp_sort_doubles(w->tmp + 2 * n, k);
		cut = -w->tmp[2 * n + most - 1];
	}
	for (size_t x = 0; x < nn; x++)
		if (ts[x] > tq_in && ts[x] >= cut) {
			w->wt[x] = 0;
			moved++;
		}
	return moved;
}

/*
 * Least squares with outliers set aside (outlier_step until nothing moves):
 * under Gaussian cells nothing is set aside but in OUTLIER_ALPHA of the runs,
 * so the noise (the residual sum of squares over its degrees of freedom) is
 * unbiased and the t quantiles exact; a gross outlier (a slow link, a blip)
 * is set aside.
 */
static void ls_fit(struct lp_diag *d, struct work *w)
{
	size_t nn = w->L->ncell, ncell = 0;
	double *ts = malloc((nn + 1) * sizeof(double)), ss = 0;

	for (size_t x = 0; x < nn; x++)
		ncell += isfinite(w->y[x]);
	for (int it = 0; it < 200; it++) {
		lp_diag_backfit(d, w, it ? 10 : 30);
		lp_diag_fit_df(d, w);
		ss = 0;
		for (int a = 0; a < w->n; a++)
			LP_DIAG_PEERS (w->L, a, b) {
				size_t x = lp_diag_cell(w->L, a, b);
				double e;

				if (!w->keep[x])
					continue;
				e = w->y[x] - lp_diag_fitted(d, w, a, b);
				ss += e * e;
			}
		if (!ts || d->df < 2 || !outlier_step(d, w, ss, ncell, ts))
			break;
	}
	free(ts);
	d->sigma_fit = d->df > 0 && ss > 0 ? sqrt(ss / d->df) : NAN;
}

void lp_diag_refit(struct lp_diag *d, struct work *w)
{
	ls_fit(d, w);
}

/* The cells of each round (at[start[t] .. start[t + 1]), in order): one pass, not one per round. */
static int round_cells(const struct work *w, int nr, size_t **at_p, size_t **start_p)
{
	size_t nn = w->L->ncell, *at = malloc((nn + 1) * sizeof(size_t)),
	       *start = calloc((size_t)nr + 2, sizeof(size_t));

	if (!at || !start) {
		free(at);
		free(start);
		return -ENOMEM;
	}
	for (size_t x = 0; x < nn; x++)
		if (w->round[x] >= 0 && w->round[x] < nr)
			start[w->round[x] + 2]++;
	for (int t = 0; t < nr; t++)
		start[t + 2] += start[t + 1];
	for (size_t x = 0; x < nn; x++)
		if (w->round[x] >= 0 && w->round[x] < nr)
			at[start[w->round[x] + 1]++] = x;
	*at_p = at;
	*start_p = start;
	return 0;
}

/* Round t's cells in the fit with one attempt (the sweep's): their residuals into w->tmp. */
static size_t round_resid(const struct lp_diag *d, struct work *w, const size_t *at, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		size_t x = at[i];

		if (w->keep[x] && (!w->ratt || !w->ratt[x]))
			w->tmp[k++] = w->y[x] - lp_diag_fitted(d, w, lp_diag_xa(w->L, x),
							       lp_diag_xb(w->L, x));
	}
	return k;
}

/*
 * Congested sweep rounds: the median residual of the cells a round measured
 * (those with one attempt: the sweep's), beyond what ROUND_ALPHA allows over
 * the rounds, is the round's effect; those cells are corrected and the fit
 * redone. Rounds of a few cells (isolated schedule: 2) are never estimated.
 */
static void round_effects(struct lp_diag *d, struct work *w)
{
	int nr = 0, big = 0;
	size_t nn = w->L->ncell, *at, *start, *kk;
	double zc, s = d->sigma_fit;

	for (size_t x = 0; x < nn; x++)
		if (w->round[x] >= nr && isfinite(w->y[x]))
			nr = w->round[x] + 1;
	if (!(s > 0) || nr < 2 || round_cells(w, nr, &at, &start))
		return;
	kk = malloc((size_t)nr * sizeof(size_t));
	if (!kk || !(d->round_fx = malloc((size_t)nr * sizeof(double)))) {
		free(kk);
		free(at);
		free(start);
		return;
	}
	d->nrounds = nr;
	for (int t = 0; t < nr; t++) {
		size_t k = kk[t] = round_resid(d, w, at + start[t], start[t + 1] - start[t]);

		d->round_fx[t] = k >= ROUND_MIN ? lp_median(w->tmp, k) : 0;
		big += k >= ROUND_MIN;
		d->round_fx[t] /= k >= ROUND_MIN ? 1.2533 * s / sqrt((double)k) : 1; /* as z */
	}
	zc = big ? lp_dist_norm_isf(lp_dist_sidak(ROUND_ALPHA, big) / 2) : INFINITY;
	for (int t = 0; t < nr; t++) {
		double fx = 0;

		if (fabs(d->round_fx[t]) > zc) {
			fx = d->round_fx[t] * 1.2533 * s / sqrt((double)kk[t]);
			d->nround_fx++;
		}
		d->round_fx[t] = exp(fx);
		for (size_t i = start[t]; fx != 0 && i < start[t + 1]; i++) {
			size_t x = at[i];

			if (!w->ratt || !w->ratt[x]) /* its only attempt is the sweep's */
				w->y[x] -= fx, w->ybest[x] -= fx;
			w->y1[x] -= fx;
		}
	}
	free(kk);
	free(at);
	free(start);
	if (d->nround_fx)
		lp_diag_refit(d, w);
}

void lp_diag_fit_twoway(struct lp_diag *d, struct work *w)
{
	size_t nn = w->L->ncell;
	double s;
	size_t k = 0;

	polish(w, w->z1); /* z1: scratch until the links */
	/* the smaller of the tetrads' scale and the polish's (its exact zeros left out): at
	 * N = 4 every tetrad holds one of two slow cells, the polish interpolates (too small) */
	for (size_t x = 0; x < nn; x++)
		if (isfinite(w->z1[x]) && fabs(w->z1[x]) > 1e-12)
			w->tmp[k++] = fabs(w->z1[x]);
	s = k ? MAD_TO_SIGMA * lp_median(w->tmp, k) : 0;
	s = fmin(s, tetrad_sigma(w));
	/* gross outliers out from the start (several at small N mask each other in least
	 * squares); the outlier rule lets back in what fits */
	for (size_t x = 0; x < nn; x++)
		w->wt[x] = isfinite(w->y[x]) && !(s > 0 && fabs(w->z1[x]) > START_Z * s);
	ls_fit(d, w);
	if (w->round)
		round_effects(d, w);
}
