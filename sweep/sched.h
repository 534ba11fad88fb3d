/* SPDX-License-Identifier: MIT */
/*
 * lp-sweep schedules: which node pairs are measured together, round by round.
 *
 * A schedule is a list of rounds; a round is a list of slots; a slot is a pair
 * of nodes (x, y) and the directions to measure: LP_DIR_XY (x is the client,
 * data x->y for write tests), LP_DIR_YX, or both (x->y first, then y->x, in the
 * same round). No node appears in two slots of one round, so every node runs
 * one test at a time and the slots of a round run concurrently.
 *
 *   round-robin  circle method: N-1 rounds of floor(N/2) disjoint pairs for even
 *                N, N rounds for odd N (each node sits out once: the bye);
 *                every unordered pair exactly once, both directions.  (default)
 *   isolated     one unordered pair per round, both directions: N(N-1)/2 rounds.
 *   ring         mpiGraph's ring shift: for shift d = 1..N-1 the ordered pairs
 *                i -> (i+d) mod N, all nodes busy at once. A rank runs one test
 *                at a time, so each shift's permutation is split into 2 rounds
 *                (3 when its cycles are odd); one direction per slot; every
 *                ordered pair exactly once.
 *   random-k     screen: each node draws k distinct random partners (seeded);
 *                the union of those pairs, both directions, packed greedily into
 *                rounds of disjoint pairs. O(N*k) pairs.
 *   list         the given ordered pairs, one per round (isolated retests).
 *
 * All generators are pure functions of their arguments (the random one of its
 * seed), so every rank computes the same schedule without communication.
 */
#ifndef LP_SWEEP_SCHED_H
#define LP_SWEEP_SCHED_H

#include <stddef.h>
#include <stdint.h>

struct lp_fail; /* common/fail.h */

#define LP_DIR_XY   1u
#define LP_DIR_YX   2u
#define LP_DIR_BOTH 3u

enum lp_sched_kind {
	LP_SCHED_ROUND_ROBIN = 0,
	LP_SCHED_ISOLATED,
	LP_SCHED_RING,
	LP_SCHED_RANDOM,
	LP_SCHED_LIST,
};

/* "round-robin", "isolated", "ring", "random", NULL (usable as option choices) */
extern const char *const lp_sched_names[];

struct lp_slot {
	int32_t x, y;
	uint32_t dirs; /* LP_DIR_* bits */
};

struct lp_sched {
	enum lp_sched_kind kind;
	int n; /* nodes 0..n-1 */
	size_t nrounds;
	size_t nslots;
	struct lp_slot *slots; /* all slots, round after round */
	size_t *round_start;   /* nrounds + 1 offsets into slots */
};

/* Build a schedule. k and seed are used by LP_SCHED_RANDOM only. 0, -EINVAL or -ENOMEM. */
int lp_sched_build(struct lp_sched *s, enum lp_sched_kind kind, int n, int k, uint64_t seed);
/* One ordered pair (a -> b) per round: pairs holds npairs (a, b) couples. */
int lp_sched_from_list(struct lp_sched *s, int n, const int32_t *pairs, size_t npairs);
void lp_sched_free(struct lp_sched *s);

/*
 * Rails: pairs only within groups (group[i] = rail of node i, 0..). Each
 * group gets its own schedule of the kind over its members (in index order),
 * and round r of the result is the union of every group's round r, so the
 * rails are measured at the same time. The result is indexed by node.
 */
int lp_sched_build_groups(struct lp_sched *s, enum lp_sched_kind kind, int n, const int *group,
			  int k, uint64_t seed);

/* Slots of round r: *count_p slots starting at the returned pointer. */
const struct lp_slot *lp_sched_round(const struct lp_sched *s, size_t r, size_t *count_p);

/* Ordered pairs measured (a slot with both directions counts 2). */
size_t lp_sched_ordered_pairs(const struct lp_sched *s);

/*
 * Check the invariants: nodes in range, x != y, no node twice in a round, and
 * no ordered pair twice. Returns 0, or -EINVAL with the reason in fail.
 */
int lp_sched_check(const struct lp_sched *s, struct lp_fail *fail);

/* Circle method, one pair: the partner of node i in round r (-1 = bye). Pure. */
int lp_sched_rr_partner(int n, int r, int i);

/*
 * Sweep-time model: the wall time of a schedule when each ordered pair costs
 * pair_s seconds (all tests and sizes of one direction) and each round adds
 * round_s of coordination. A round lasts as long as its longest slot.
 */
double lp_sched_time_model(const struct lp_sched *s, double pair_s, double round_s);

#endif
