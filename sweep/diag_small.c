// SPDX-License-Identifier: MIT
/*
 * The diagnosis at N = 3 and N = 2 (diag.h): too few cells for a two-way fit
 * to localise one cell, so every small explanation is fitted (N = 3), or a
 * slow pair is named with its candidates (N = 2).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/diag_int.h"

#define AMBIG_SCORE	  4.0 /* explanations this close to the best one are alternatives */
#define SEARCH_MAX_FAULTS 3
#define SEARCH_MAX_P	  (SEARCH_MAX_FAULTS + 1)

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

bool lp_diag_item_covers(const struct lp_diag_item *it, int a, int b)
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
				double y = w->y[lp_diag_cell(w->L, ca, cb)],
				       row[SEARCH_MAX_P] = { 1 }, f = e->beta[0];

				if (!isfinite(y))
					continue;
				for (int k = 0; k < e->k; k++) {
					row[k + 1] = lp_diag_item_covers(&it[k], ca, cb);
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

void lp_diag_add_cand(struct lp_diag *d, struct lp_diag_item it)
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
		lp_diag_add_cand(d, it);
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
int lp_diag_fit_search(struct lp_diag *d, struct work *w, const struct lp_diag_opts *o, double lrel)
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
	sigma = fmax(floor_sigma, lp_diag_rep_known(d) ? d->sigma_rep : 0);
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
				d->link[lp_diag_cell(&d->lay, it->a, it->b)] |= LP_LINK_SLOW;
		}
		d->ncand = 0;
	}
	free(s.e);
	return 0;
}

/* N = 2: a cell well below the other one is a slow pair; which of the three, nobody can say. */
void lp_diag_fit_n2(struct lp_diag *d, struct work *w, const struct lp_diag_opts *o, double lrel)
{
	double y01 = w->y[1], y10 = w->y[2];
	double s = lp_diag_rep_known(d) ? d->sigma_rep : 0;

	d->sigma = s;
	w->mu = isfinite(y01) && isfinite(y10) ? fmax(y01, y10) : isfinite(y01) ? y01 : y10;
	w->r[0] = w->r[1] = w->c[0] = w->c[1] = 0;
	for (int a = 0; a < 2; a++) {
		double dev = w->y[lp_diag_cell(w->L, a, 1 - a)] - w->mu;

		if (!(dev < lrel) || !(dev < -o->k * s * sqrt(2.0)))
			continue;
		d->ambiguous = true;
		lp_diag_add_cand(d, (struct lp_diag_item){ LP_ITEM_SRC, a, a, exp(dev) });
		lp_diag_add_cand(d, (struct lp_diag_item){ LP_ITEM_DST, 1 - a, 1 - a, exp(dev) });
		lp_diag_add_cand(d, (struct lp_diag_item){ LP_ITEM_LINK, a, 1 - a, exp(dev) });
	}
}
