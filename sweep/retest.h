/* SPDX-License-Identifier: MIT */
/*
 * The retest planner: which ordered pairs a retest round measures again, one at
 * a time. The engine (lp_sweep_engine_run, rank 0) and the diagnosis simulator
 * (tests/sweep/diag-sim.c) both call lp_sweep_retest_plan, so the benchmark's
 * false-positive figures are those of the policy lp-sweep runs, never of a copy.
 */
#ifndef LP_SWEEP_RETEST_H
#define LP_SWEEP_RETEST_H

#include <stddef.h>
#include <stdint.h>

#include "sweep/result.h"

/* lp-sweep's defaults (its option table prints them from here). */
#define LP_SWEEP_RETEST_MAX	 32 /* --retest */
#define LP_SWEEP_RETEST_PER_NODE 2  /* --retest-per-node */
#define LP_SWEEP_RETEST_ROUNDS	 3  /* --retest-rounds */

/* The retest budget: what the options give. */
struct lp_sweep_retest_policy {
	int max_pairs; /* ordered pairs per retest round at most; 0 = no retests */
	int per_node;  /* cells retested per suspect node in its first retest round */
	int rounds;    /* retest rounds at most */
};

/* The defaults above. */
void lp_sweep_retest_policy_default(struct lp_sweep_retest_policy *pol);

/*
 * Before retest round `round` (0-based): diagnose r as measured so far and list
 * the ordered pairs to retest in *pairs_p (malloc'ed, (a, b) couples; free it)
 * and their count in *np_p. *np_p = 0: no further round (no suspect, the
 * budget's rounds are spent, or retests are off). 0 or -ENOMEM.
 */
int lp_sweep_retest_plan(struct lp_sweep_run *r, const struct lp_sweep_retest_policy *pol,
			 int round, int32_t **pairs_p, size_t *np_p);

#endif
