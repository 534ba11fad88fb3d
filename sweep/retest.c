// SPDX-License-Identifier: MIT
/* lp-sweep retests: the ordered pairs worth an isolated retest after a diagnosis. */
#include "sweep/internal.h"

#include <stdbool.h>

#include "common/lp.h"

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
