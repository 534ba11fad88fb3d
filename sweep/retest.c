// SPDX-License-Identifier: MIT
/*
 * lp-sweep retests: the planner shared by the engine and diag-sim (see retest.h), and the
 * ordered pairs worth an isolated retest after a diagnosis.
 */
#include "sweep/retest.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common/lp.h"
#include "sweep/internal.h"

static bool have_pair(const int32_t *pairs, size_t np, int a, int b)
{
	for (size_t i = 0; i < np; i++)
		if (pairs[2 * i] == a && pairs[2 * i + 1] == b)
			return true;
	return false;
}

size_t lp_sweep_suspects(const struct lp_sweep_run *r, int per_node, int round, int32_t *pairs,
			 size_t max)
{
	size_t np = 0;
	int n = r->n;

	if (!r->diag)
		return 0;
#define PUSH(a_, b_)                                                                               \
	do {                                                                                       \
		if (np < max && !r->nodes[a_].status && !r->nodes[b_].status &&                    \
		    !have_pair(pairs, np, a_, b_)) {                                               \
			pairs[2 * np] = a_;                                                        \
			pairs[2 * np + 1] = b_;                                                    \
			np++;                                                                      \
		}                                                                                  \
	} while (0)
	/* links and cells close to one first: the verdicts a transient blip fakes most easily */
	for (int m = 0; m < r->nmetrics; m++)
		for (int a = 0; a < n; a++)
			for (int b = 0; b < n; b++)
				if (r->diag[m].link[(size_t)a * n + b] ||
				    r->diag[m].suspect[(size_t)a * n + b])
					PUSH(a, b);
	for (int m = 0; m < r->nmetrics; m++) {
		const struct lp_diag *d = &r->diag[m];

		for (int i = 0; i < n; i++) {
			/*
			 * A role never retested gets its look whatever the round (a role
			 * may first stand out after another one's retests moved the fit);
			 * later, a unanimous vote is settled, a split one is worth another.
			 */
			bool src = (d->node[i] & LP_NODE_SLOW_SRC) &&
				   (!round || !lp_sweep_count_retests(r, m, i, -1) ||
				    d->slow_src[i] < d->n_src[i]);
			bool dst = (d->node[i] & LP_NODE_SLOW_DST) &&
				   (!round || !lp_sweep_count_retests(r, m, -1, i) ||
				    d->slow_dst[i] < d->n_dst[i]);

			/* against the healthiest partners: the best effect in the matching role */
			for (int dir = 0; dir < 2; dir++) {
				const double *eff = dir ? d->eff_src : d->eff_dst;
				int got = 0;

				if (!(dir ? dst : src))
					continue;
				while (got < per_node) {
					int best = -1;

					for (int j = 0; j < n; j++) {
						size_t x =
							dir ? (size_t)j * n + i : (size_t)i * n + j;

						if (j != i && !d->node[j] &&
						    d->cls[x] == LP_CELL_SLOW &&
						    !have_pair(pairs, np, dir ? j : i,
							       dir ? i : j) &&
						    (best < 0 || eff[j] > eff[best]))
							best = j;
					}
					if (best < 0 || np >= max)
						break;
					if (dir)
						PUSH(best, i);
					else
						PUSH(i, best);
					got++;
				}
			}
		}
	}
#undef PUSH
	return np;
}

void lp_sweep_retest_policy_default(struct lp_sweep_retest_policy *pol)
{
	*pol = (struct lp_sweep_retest_policy){ .max_pairs = LP_SWEEP_RETEST_MAX,
						.per_node = LP_SWEEP_RETEST_PER_NODE,
						.rounds = LP_SWEEP_RETEST_ROUNDS };
}

int lp_sweep_retest_plan(struct lp_sweep_run *r, const struct lp_sweep_retest_policy *pol,
			 int round, int32_t **pairs_p, size_t *np_p)
{
	int ret;

	*pairs_p = NULL;
	*np_p = 0;
	if (pol->max_pairs <= 0 || round >= pol->rounds)
		return 0;
	*pairs_p = malloc(((size_t)pol->max_pairs + 1) * 2 * sizeof(int32_t));
	if (!*pairs_p)
		return -ENOMEM;
	ret = lp_sweep_diagnose(r);
	if (!ret)
		*np_p = lp_sweep_suspects(r, pol->per_node, round, *pairs_p,
					  (size_t)pol->max_pairs);
	return ret;
}
