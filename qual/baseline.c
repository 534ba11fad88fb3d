// SPDX-License-Identifier: MIT
/*
 * Baselines: the cells of any linkperf JSON document, and the cell-by-cell comparison of a run
 * with an earlier one. A change is a regression when it is worse than the threshold and the
 * difference stands out of the noise of both runs: |new - old| > k * sqrt(s_new^2 + s_old^2).
 */
#include "qual/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "common/units.h"

const char *const lp_qual_change_names[] = { "", "new", "same", "better", "noise", "regression" };

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

int lp_qual_compare(struct lp_qual *q)
{
	const struct lp_qual_cell *base = q->base;
	size_t nbase = q->nbase;
	bool *used = calloc(nbase + 1, sizeof(*used));

	free(q->missing);
	q->nmissing = 0;
	q->missing = calloc(nbase + 1, sizeof(*q->missing));
	if (!used || !q->missing) {
		free(used);
		return -ENOMEM;
	}
	for (size_t i = 0; i < q->ncells; i++) {
		struct lp_qual_cell *c = &q->cells[i];

		c->change = LP_QUAL_NEW;
		for (size_t k = 0; k < nbase; k++) {
			if (used[k] || !same_cell(c, &base[k]))
				continue;
			used[k] = true;
			compare_cell(&q->opts, c, &base[k]);
			q->nregress += c->change == LP_QUAL_REGRESSION;
			break;
		}
	}
	for (size_t k = 0; k < nbase; k++) {
		char sz[24];

		if (used[k])
			continue;
		lp_fmt_size(sz, sizeof(sz), base[k].size); /* "64 KiB", as every size is shown */
		snprintf(q->missing[q->nmissing++], sizeof(*q->missing), "%s %s%s%s", base[k].test,
			 sz, base[k].pair[0] ? " " : "", base[k].pair);
	}
	free(used);
	return 0;
}
