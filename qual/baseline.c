// SPDX-License-Identifier: MIT
/*
 * Baselines: the cell-by-cell comparison of a run with an earlier one, and the comparison of
 * their distributions. A change is a regression when it is worse than the threshold and the
 * difference stands out of the noise of both runs: |new - old| > k * sqrt(s_new^2 + s_old^2).
 * Cells are compared only when the baseline holds at least half of this run's cells: one that
 * matches less (renamed hosts, another partition, a wrong file) is an error with the reason,
 * never a pass; two runs on other node sets still compare as distributions (median, p5, p95
 * per test and size), which are always recorded.
 */
#include "qual/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"

const char *const lp_qual_change_names[] = { "none",  "new",	    "same", "better",
					     "noise", "regression", NULL };

void lp_qual_cell_set(struct lp_qual_cell *c, const char *test, uint64_t size, const char *pair,
		      enum lp_qual_kind kind, double value, double spread, double ceiling)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->test, sizeof(c->test), "%s", test);
	c->size = size;
	snprintf(c->pair, sizeof(c->pair), "%s", pair ? pair : "");
	c->kind = kind;
	c->value = value;
	c->spread = isfinite(spread) && spread > 0 ? spread : 0;
	c->ceiling = isfinite(ceiling) && ceiling > 0 ? ceiling : 0;
	c->limit = c->margin = c->base_value = c->base_spread = c->delta = NAN;
	c->rule = -1;
}

static bool same_cell(const struct lp_qual_cell *a, const struct lp_qual_cell *b)
{
	return a->size == b->size && a->kind == b->kind && !strcmp(a->test, b->test) &&
	       !strcmp(a->pair, b->pair);
}

/* Sets c->change from the baseline's cell b (see the comment at the top). */
static void compare_cell(const struct lp_qual_opts *o, struct lp_qual_cell *c,
			 const struct lp_qual_cell *b)
{
	double thr = o->regress_pct / 100, noise;

	c->base_value = b->value;
	c->base_spread = b->spread;
	c->delta = (c->kind == LP_QUAL_BW ? c->value - b->value : b->value - c->value) / b->value;
	noise = o->noise_k * sqrt(c->spread * c->spread + b->spread * b->spread);
	if (!isfinite(c->delta)) /* failed now or then: worse only if it worked then */
		c->change = isfinite(b->value) && !isfinite(c->value) ? LP_QUAL_REGRESSION
								      : LP_QUAL_SAME;
	else if (fabs(c->value - b->value) <= noise || fabs(c->delta) <= thr)
		c->change = c->delta < -thr ? LP_QUAL_NOISE : LP_QUAL_SAME;
	else
		c->change = c->delta < 0 ? LP_QUAL_REGRESSION : LP_QUAL_BETTER;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Percentile p (0..1) of n sorted values, by the nearest rank; NaN for none. */
static double pct(const double *v, size_t n, double p)
{
	size_t k = (size_t)ceil(p * (double)n);

	return n ? v[k ? LP_MIN(k, n) - 1 : 0] : NAN;
}

/* The measured values of cells like c's (test, size, kind), sorted, into v; their count. */
static size_t values_like(const struct lp_qual_cell *c, const struct lp_qual_cell *cells, size_t n,
			  double *v)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (cells[i].size == c->size && cells[i].kind == c->kind &&
		    !strcmp(cells[i].test, c->test) && isfinite(cells[i].value))
			v[k++] = cells[i].value;
	qsort(v, k, sizeof(*v), dbl_cmp);
	return k;
}

/* One distribution per test and size of this run (with the baseline's cells of the same). */
static int compare_dists(struct lp_qual *q)
{
	double *v = malloc((LP_MAX(q->ncells, q->nbase) + 1) * sizeof(double));

	free(q->dist);
	q->ndist = 0;
	q->dist = calloc(q->ncells + 1, sizeof(*q->dist));
	if (!v || !q->dist) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < q->ncells; i++) {
		const struct lp_qual_cell *c = &q->cells[i];
		struct lp_qual_dist *d = &q->dist[q->ndist];
		bool seen = false;

		for (size_t k = 0; k < q->ndist && !seen; k++)
			seen = q->dist[k].size == c->size && q->dist[k].kind == c->kind &&
			       !strcmp(q->dist[k].test, c->test);
		if (seen)
			continue;
		snprintf(d->test, sizeof(d->test), "%s", c->test);
		d->size = c->size;
		d->kind = c->kind;
		d->n = (uint32_t)values_like(c, q->cells, q->ncells, v);
		d->median = pct(v, d->n, 0.5);
		d->p5 = pct(v, d->n, 0.05);
		d->p95 = pct(v, d->n, 0.95);
		d->base_n = (uint32_t)values_like(c, q->base, q->nbase, v);
		d->base_median = pct(v, d->base_n, 0.5);
		d->base_p5 = pct(v, d->base_n, 0.05);
		d->base_p95 = pct(v, d->base_n, 0.95);
		d->delta = (c->kind == LP_QUAL_BW ? d->median - d->base_median
						  : d->base_median - d->median) /
			   d->base_median;
		q->ndist++;
	}
	free(v);
	return 0;
}

/* Enough of this run's cells are in the baseline to compare them cell by cell; else why not. */
static bool enough_matched(struct lp_qual *q)
{
	q->base_why[0] = '\0';
	if (q->ncells && 2 * q->nmatched >= q->ncells)
		return true;
	snprintf(q->base_why, sizeof(q->base_why),
		 "the baseline matches %zu of this run's %zu cells (same test, size and pair; "
		 "under half): renamed hosts, another partition or another file? compared as "
		 "distributions only",
		 q->nmatched, q->ncells);
	return false;
}

int lp_qual_compare(struct lp_qual *q)
{
	const struct lp_qual_cell *base = q->base;
	size_t nbase = q->nbase;
	bool *used = calloc(nbase + 1, sizeof(*used));
	size_t *match = calloc(q->ncells + 1, sizeof(*match));

	free(q->missing);
	q->nmissing = q->nmatched = 0;
	q->missing = calloc(nbase + 1, sizeof(*q->missing));
	if (!used || !match || !q->missing) {
		free(used);
		free(match);
		return -ENOMEM;
	}
	for (size_t i = 0; i < q->ncells; i++) {
		match[i] = SIZE_MAX;
		for (size_t k = 0; k < nbase && match[i] == SIZE_MAX; k++)
			if (!used[k] && same_cell(&q->cells[i], &base[k])) {
				used[k] = true;
				match[i] = k;
				q->nmatched++;
			}
	}
	q->base_compared = enough_matched(q);
	for (size_t i = 0; i < q->ncells; i++) {
		struct lp_qual_cell *c = &q->cells[i];

		c->change = LP_QUAL_NEW;
		if (match[i] == SIZE_MAX || !q->base_compared)
			continue;
		compare_cell(&q->opts, c, &base[match[i]]);
		q->nregress += c->change == LP_QUAL_REGRESSION;
	}
	for (size_t k = 0; k < nbase; k++)
		if (!used[k])
			q->missing[q->nmissing++] = base[k];
	free(used);
	free(match);
	return compare_dists(q);
}
