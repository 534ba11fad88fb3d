/* SPDX-License-Identifier: MIT */
/*
 * The retest planner: which ordered pairs a retest round measures again, one at
 * a time, the strongest evidence first, within a budget in time. The engine
 * (lp_sweep_engine_run, rank 0) and the diagnosis simulator
 * (tests/sweep/diag-sim.c) both call lp_sweep_retest_plan, so the benchmark's
 * false-positive figures are those of the policy lp-sweep runs, never of a copy.
 */
#ifndef LP_SWEEP_RETEST_H
#define LP_SWEEP_RETEST_H

#include <stddef.h>
#include <stdint.h>

#include "sweep/result.h"

/* lp-sweep's defaults (its option table prints them from here). */
#define LP_SWEEP_RETEST_MAX	 1000000 /* --retest: no cap but the time budget */
#define LP_SWEEP_RETEST_PER_NODE 2	 /* --retest-per-node */
#define LP_SWEEP_RETEST_ROUNDS	 3	 /* --retest-rounds */

/*
 * How a round orders its first looks (cells never retested) and how many it
 * takes. lp-sweep always plans LP_RETEST_RANKED; the others are diag-sim's
 * baseline and the tests' bad planner (--planner), never a user's choice.
 */
enum lp_retest_order {
	LP_RETEST_RANKED = 0, /* by evidence; only as many first looks as can still be confirmed */
	LP_RETEST_SHARE,      /* by the first attempt's p-value; 2/3 of the time left a round
			       * (the planner before 2026-12-02: the benchmark's baseline) */
	LP_RETEST_RANDOM,     /* first looks in an order blind to the evidence (a bad planner) */
};
extern const char *const lp_retest_order_names[]; /* "ranked", "share", "random", NULL */

/* The retest budget: what the options give. */
struct lp_sweep_retest_policy {
	int max_pairs; /* ordered pairs per retest round at most; 0 = no retests */
	int per_node;  /* cells retested per suspect node in its first retest round */
	int rounds;    /* retest rounds at most */
	double time_s; /* the budget in time over all rounds (--retest-time; <= 0: as long as
			* the sweep took, at least 60 s) */
	int order;     /* enum lp_retest_order (0: ranked) */
};

/* The defaults above. */
void lp_sweep_retest_policy_default(struct lp_sweep_retest_policy *pol);

/* One retest round as planned: the policy's budget applied to the run so far. */
struct lp_retest_plan {
	int order;	  /* enum lp_retest_order */
	int per_node;	  /* slow cells of each flagged node on its first look */
	int round;	  /* this retest round, 0-based */
	int rounds;	  /* retest rounds in all (--retest-rounds) */
	size_t max_pairs; /* pairs per round at most (0: no cap but time) */
	double time_s;	  /* the retest budget in time over all rounds (<= 0: the sweep's) */
	/* filled by lp_sweep_suspects */
	double used_s;	 /* retest time spent in earlier rounds: the retest cells' wall time */
	size_t suspects; /* pairs worth a retest this round */
	size_t budget;	 /* pairs this round may take */
	double pair_s;	 /* one pair's retest, every metric (the sweep cells' median wall time) */
	double round_s;	 /* the time this round may take */
	size_t follow;	 /* of the suspects, cells retested before and still slow */
	double survive;	 /* the share of first looks expected still slow after a retest (ranked) */
};

/*
 * Before retest round `round` (0-based): diagnose r as measured so far and list
 * the ordered pairs to retest in *pairs_p (malloc'ed, (a, b) couples; free it)
 * and their count in *np_p. *np_p = 0: no further round (no suspect, the
 * budget's rounds or time are spent, or retests are off). 0 or -ENOMEM.
 */
int lp_sweep_retest_plan(struct lp_sweep_run *r, const struct lp_sweep_retest_policy *pol,
			 int round, int32_t **pairs_p, size_t *np_p);
/* The same, with the round's plan (its suspects, budget and times) in *plan (may be NULL). */
int lp_sweep_retest_plan_round(struct lp_sweep_run *r, const struct lp_sweep_retest_policy *pol,
			       int round, int32_t **pairs_p, size_t *np_p,
			       struct lp_retest_plan *plan);

/* The budget of a run: p->time_s as it applies (the sweep's time when not given). */
double lp_sweep_retest_time(const struct lp_sweep_run *r, const struct lp_retest_plan *p);

/*
 * Ordered pairs worth an isolated retest, from the current diagnosis, by
 * evidence: link cells whose retests stay slow (nearest a verdict: their
 * retests' p-value first), then first looks -- cells that stood out once, of
 * a node's close call, of ambiguous candidates -- by the evidence of the pair
 * (ranked: the chance that transients explain it, the product over its
 * suspect cells in every metric and the reverse direction's cells that stood
 * out of each cell's share of its metric's first attempts at least as slow:
 * a fault on the link slows every test on it, one transient one attempt),
 * then up to per_node
 * slow cells of each flagged node (on its first look; from the second round on
 * a node every partner sees slow is settled). Pairs touching a node whose
 * device did not open are left out. Ranked, a round takes every cell still
 * slow and only as many first looks as the time left can also give their later
 * retests (each still slow with the share p->survive: the run's transient rate
 * and the noise, or the share of retests so far that stayed slow), so that a
 * fault it reaches gets every round's retest; the last round all the time
 * left. p->time_s less the retest cells' wall time so far; at most max_pairs.
 * Writes up to min(budget, cap) couples into pairs; returns the count;
 * p->suspects says how many there were.
 */
size_t lp_sweep_suspects(const struct lp_sweep_run *r, struct lp_retest_plan *p, int32_t *pairs,
			 size_t cap);

#endif
