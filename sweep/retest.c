// SPDX-License-Identifier: MIT
/* The retest planner shared by the engine and diag-sim (see retest.h). */
#include "sweep/retest.h"

#include <errno.h>
#include <stdlib.h>

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
