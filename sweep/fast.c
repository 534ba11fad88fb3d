// SPDX-License-Identifier: MIT
/* The fast qualification schedule: its screen, its byte budget, the size sweep's pairs and summary. */
#include "sweep/fast.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "common/units.h"
#include "sweep/diag.h"
#include "sweep/internal.h"

void lp_sweep_fast_bytes(struct lp_rdma_params *p, int n, uint64_t bytes)
{
	for (int m = 0; m < n; m++)
		if (!lp_rdma_test_is_lat(p[m].test) && p[m].duration_s <= 0 && p[m].size > 0)
			p[m].iters = LP_MAX((bytes + p[m].size - 1) / p[m].size, (uint64_t)1);
}

uint32_t lp_sweep_fast_screen(const struct lp_rdma_params *p, int n)
{
	uint32_t mask = 0;

	for (int m = 0; m < n && m < 32; m++) {
		bool lat = lp_rdma_test_is_lat(p[m].test), best = true;

		for (int k = 0; k < n && best; k++)
			if (k != m && p[k].test == p[m].test)
				best = lat ? p[m].size < p[k].size ||
						       (p[m].size == p[k].size && m < k)
					   : p[m].size > p[k].size ||
						       (p[m].size == p[k].size && m < k);
		if (best)
			mask |= 1u << m;
	}
	return mask;
}

bool lp_sweep_metric_screened(const struct lp_sweep_run *r, int m)
{
	return !r->screen || (m < 32 && (r->screen >> m & 1));
}

/* Per node: named by a verdict (node, link, pair, candidates), or failed. */
static uint8_t *named_nodes(const struct lp_sweep_run *r)
{
	uint8_t *named = calloc((size_t)r->n, 1);

	for (int i = 0; named && i < r->nverdicts; i++) {
		const struct lp_verdict *v = &r->verdicts[i];

		if (v->a >= 0 && v->a < r->n)
			named[v->a] = 1;
		if (v->b >= 0 && v->b < r->n)
			named[v->b] = 1;
		for (int c = 0; c < v->ncand; c++) {
			if (v->cand[c].a >= 0 && v->cand[c].a < r->n)
				named[v->cand[c].a] = 1;
			if (v->cand[c].b >= 0 && v->cand[c].b < r->n)
				named[v->cand[c].b] = 1;
		}
	}
	for (int i = 0; named && i < r->n; i++)
		named[i] |= r->nodes[i].status != 0;
	return named;
}

/* a -> b measured and not slow in every screen metric (the diagnosis' cell classes). */
static bool healthy_cell(const struct lp_sweep_run *r, int a, int b)
{
	for (int m = 0; m < r->nmetrics; m++)
		if (lp_sweep_metric_screened(r, m) &&
		    r->diag[m].cls[lp_diag_at(&r->diag[m].lay, a, b)] != LP_CELL_OK)
			return false;
	return true;
}

/* Up to LP_SWEEP_FAST_REFS reference pairs: one healthy pair, both ways, appended to pairs. */
static size_t reference_pairs(const struct lp_sweep_run *r, int32_t *pairs, size_t np)
{
	uint8_t *named = named_nodes(r);
	size_t got = 0;

	for (int a = 0; named && a < r->n && !got; a++)
		for (int b = a + 1; b < r->n && !got; b++) {
			if (named[a] || named[b] || !healthy_cell(r, a, b) ||
			    !healthy_cell(r, b, a))
				continue;
			for (int d = 0; d < 2 && got < LP_SWEEP_FAST_REFS; d++, got++) {
				pairs[2 * (np + got)] = d ? b : a;
				pairs[2 * (np + got) + 1] = d ? a : b;
			}
		}
	free(named);
	return got;
}

/* Is a -> b among pairs[0..np)? */
static bool listed(const int32_t *pairs, size_t np, int a, int b)
{
	for (size_t k = 0; k < np; k++)
		if (pairs[2 * k] == a && pairs[2 * k + 1] == b)
			return true;
	return false;
}

/*
 * The size sweep's suspects: the links the diagnosis names slow or failed in a
 * screen metric (settled: the retest planner no longer lists them), then the
 * planner's suspects, worst first; up to max pairs without repeats.
 */
static size_t suspect_pairs(const struct lp_sweep_run *r, const struct lp_sweep_retest_policy *pol,
			    int32_t *pairs, int32_t *more, size_t max)
{
	/* no time budget: the size sweep's pairs are bounded by count (1e9 s keeps the
	 * planner's pairs-per-time quotient finite) */
	struct lp_retest_plan plan = { .per_node = pol->per_node, .rounds = 1, .time_s = 1e9 };
	size_t np = 0, nmore;

	for (int m = 0; m < r->nmetrics; m++) {
		const struct lp_diag_lay *L = &r->diag[m].lay;

		for (size_t x = 0; lp_sweep_metric_screened(r, m) && x < L->ncell; x++)
			if ((r->diag[m].link[x] & (LP_LINK_SLOW | LP_LINK_FAILED)) && np < max &&
			    !listed(pairs, np, lp_diag_xa(L, x), lp_diag_xb(L, x))) {
				pairs[2 * np] = lp_diag_xa(L, x);
				pairs[2 * np + 1] = lp_diag_xb(L, x);
				np++;
			}
	}
	nmore = lp_sweep_suspects(r, &plan, more, max);
	for (size_t k = 0; k < nmore && np < max; k++)
		if (!listed(pairs, np, more[2 * k], more[2 * k + 1])) {
			pairs[2 * np] = more[2 * k];
			pairs[2 * np + 1] = more[2 * k + 1];
			np++;
		}
	return np;
}

int lp_sweep_fast_pairs(struct lp_sweep_run *r, const struct lp_sweep_retest_policy *pol,
			int32_t **pairs_p, size_t *np_p)
{
	size_t max = LP_MIN((size_t)LP_MAX(pol->max_pairs, 0), LP_SWEEP_FAST_SUSPECTS);
	int32_t more[2 * LP_SWEEP_FAST_SUSPECTS];
	int ret;

	*pairs_p = NULL;
	*np_p = 0;
	if (!max)
		return 0;
	*pairs_p = malloc((max + LP_SWEEP_FAST_REFS) * 2 * sizeof(int32_t));
	if (!*pairs_p)
		return -ENOMEM;
	ret = lp_sweep_diagnose(r);
	if (!ret)
		*np_p = suspect_pairs(r, pol, *pairs_p, more, max);
	if (!ret && *np_p)
		*np_p += reference_pairs(r, *pairs_p, *np_p);
	return ret;
}

/* ---- the summary ---- */

/* The size sweep's pairs in order of their first cell (the list the engine was given). */
static size_t swept_pairs(const struct lp_sweep_run *r, int32_t *pairs, size_t max)
{
	size_t np = 0;

	for (size_t i = 0; i < r->ncells; i++) {
		const struct lp_sweep_att *c = &r->cells[i];
		bool seen = false;

		if (c->phase != LP_PHASE_SIZES)
			continue;
		for (size_t k = 0; k < np && !seen; k++)
			seen = pairs[2 * k] == c->a && pairs[2 * k + 1] == c->b;
		if (!seen && np < max) {
			pairs[2 * np] = c->a;
			pairs[2 * np + 1] = c->b;
			np++;
		}
	}
	return np;
}

/* Pair k of pairs[0..np) for cell c's ordered pair, or -1 (src: the pairs' clients, a filter). */
static int pair_of(const struct lp_sweep_att *c, const int32_t *pairs, size_t np,
		   const uint8_t *src)
{
	if (!src[c->a])
		return -1;
	for (size_t k = 0; k < np; k++)
		if (pairs[2 * k] == c->a && pairs[2 * k + 1] == c->b)
			return (int)k;
	return -1;
}

/* The cell counts for pair k's value of its metric: its size sweep cells, or a screen metric's. */
static bool pair_cell(const struct lp_sweep_run *r, const struct lp_sweep_att *c)
{
	if (c->status || !(c->value > 0))
		return false;
	return lp_sweep_metric_screened(r, c->metric) ? c->phase <= LP_PHASE_RETEST
						      : c->phase == LP_PHASE_SIZES;
}

/*
 * v[k * nmetrics + m]: pair k's value of metric m -- its size sweep cells, or
 * for a screen metric its sweep and retest cells -- combined as the diagnosis
 * combines attempts (NaN: none succeeded). Two passes over the cells.
 */
static int pair_values(const struct lp_sweep_run *r, const int32_t *pairs, size_t np, double *v)
{
	size_t nm = (size_t)r->nmetrics, nb = np * nm;
	size_t *cnt = calloc(nb + 1, sizeof(size_t)), *off = calloc(nb + 1, sizeof(size_t));
	uint8_t *src = calloc((size_t)r->n, 1);
	double *vals = NULL;
	int rc = -ENOMEM;

	if (!cnt || !off || !src)
		goto out;
	for (size_t k = 0; k < np; k++)
		src[pairs[2 * k]] = 1;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < r->ncells; i++) {
			const struct lp_sweep_att *c = &r->cells[i];
			int k = pair_of(c, pairs, np, src);
			size_t b = (size_t)k * nm + (size_t)c->metric;

			if (k < 0 || !pair_cell(r, c))
				continue;
			if (pass)
				vals[off[b] + cnt[b]] = c->value;
			cnt[b]++;
		}
		if (pass)
			break;
		for (size_t b = 0; b < nb; b++)
			off[b + 1] = off[b] + cnt[b];
		vals = malloc((off[nb] + 1) * sizeof(double));
		if (!vals)
			goto out;
		memset(cnt, 0, nb * sizeof(size_t));
	}
	for (size_t b = 0; b < nb; b++)
		v[b] = lp_diag_combine(vals + off[b], cnt[b], r->metrics[b % nm].lat);
	rc = 0;
out:
	free(cnt);
	free(off);
	free(src);
	free(vals);
	return rc;
}

/* The references' median of metric m: pairs neither of whose nodes is named. */
static double reference(const struct lp_sweep_run *r, int m, const int32_t *pairs, size_t np,
			const double *v, const uint8_t *named)
{
	size_t nm = (size_t)r->nmetrics, n = 0;
	double rv[256];

	for (size_t k = 0; k < np && n < 256; k++)
		if (!named[pairs[2 * k]] && !named[pairs[2 * k + 1]] && isfinite(v[k * nm + m]))
			rv[n++] = v[k * nm + m];
	return lp_diag_combine(rv, n, r->metrics[m].lat);
}

/* Test t's table (its first metric t): a column per size, a row per pair. */
static void summary_test(FILE *f, const struct lp_sweep_run *r, int t, const int32_t *pairs,
			 size_t np, const double *v, const uint8_t *named)
{
	size_t nm = (size_t)r->nmetrics;
	double ref[LP_SWEEP_MAX_METRICS];

	fprintf(f, "  %-26s", "");
	for (int m = t; m < r->nmetrics; m++) {
		char sz[32], col[80];

		if (strcmp(r->metrics[m].test, r->metrics[t].test))
			continue;
		ref[m] = reference(r, m, pairs, np, v, named);
		lp_fmt_size(sz, sizeof(sz), r->metrics[m].size);
		snprintf(col, sizeof(col), "%s %s%s", r->metrics[m].test, sz,
			 lp_sweep_metric_screened(r, m) ? "*" : "");
		fprintf(f, " %18s", col);
	}
	fprintf(f, "  [%s]\n", lp_sweep_unit(&r->metrics[t]));
	for (size_t k = 0; k < np; k++) {
		int a = pairs[2 * k], b = pairs[2 * k + 1];
		char row[96];

		snprintf(row, sizeof(row), "%.11s -> %.11s%s", r->nodes[a].name, r->nodes[b].name,
			 named[a] || named[b] ? "" : " ref");
		fprintf(f, "  %-26s", row);
		for (int m = t; m < r->nmetrics; m++) {
			double x = v[k * nm + (size_t)m];
			char val[32], cell[64];

			if (strcmp(r->metrics[m].test, r->metrics[t].test))
				continue;
			lp_sweep_fmt_val(val, sizeof(val), x, r->metrics[m].lat);
			if (isfinite(x) && isfinite(ref[m]) && ref[m] > 0 && x > 0)
				snprintf(cell, sizeof(cell), "%s (%.2fx)", val,
					 r->metrics[m].lat ? ref[m] / x : x / ref[m]);
			else
				snprintf(cell, sizeof(cell), "%s", val);
			fprintf(f, " %18s", cell);
		}
		fprintf(f, "\n");
	}
}

void lp_sweep_fast_summary(FILE *f, const struct lp_sweep_run *r)
{
	int32_t pairs[2 * 256];
	size_t np = swept_pairs(r, pairs, 256);
	double *v = np ? malloc(np * (size_t)r->nmetrics * sizeof(double)) : NULL;
	uint8_t *named = np ? named_nodes(r) : NULL;

	if (!np || !v || !named || pair_values(r, pairs, np, v)) {
		free(v);
		free(named);
		return;
	}
	fprintf(f,
		"\nsize sweep (--fast): every size on the %zu pair(s) the diagnosis flagged or "
		"suspected and the reference pairs (ref); value (goodness against the references' "
		"median at that size; * the screen's size)\n",
		np);
	for (int m = 0; m < r->nmetrics; m++) {
		bool first = true;

		for (int k = 0; k < m && first; k++)
			first = strcmp(r->metrics[k].test, r->metrics[m].test) != 0;
		if (first)
			summary_test(f, r, m, pairs, np, v, named);
	}
	free(v);
	free(named);
}
