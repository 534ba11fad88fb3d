// SPDX-License-Identifier: MIT
/* Unit tests for sweep/sched.c: every schedule's invariants, up to 4096 nodes. */
#include "lp_test.h"

#include <errno.h>

#include "common/lp.h"
#include "sweep/sched.h"

/* Every unordered pair covered in both directions exactly once (check() rejects repeats). */
static void expect_full(const struct lp_sched *s)
{
	struct lp_fail why;
	size_t n = (size_t)s->n;

	if (lp_sched_check(s, lp_fresh(&why)) != 0)
		fail_msg("n=%zu kind=%d: %s", n, s->kind, why.msg);
	assert_int_equal(lp_sched_ordered_pairs(s), n * (n - 1));
}

static void test_round_robin_small(void **state)
{
	(void)state;
	for (int n = 1; n <= 64; n++) {
		struct lp_sched s;

		assert_int_equal(lp_sched_build(&s, LP_SCHED_ROUND_ROBIN, n, 0, 0), 0);
		expect_full(&s);
		/* N-1 rounds of N/2 pairs (even), N rounds of (N-1)/2 pairs plus a bye (odd) */
		if (n >= 2) {
			assert_int_equal(s.nrounds, n % 2 ? (size_t)n : (size_t)n - 1);
			for (size_t r = 0; r < s.nrounds; r++) {
				size_t cnt;

				lp_sched_round(&s, r, &cnt);
				assert_int_equal(cnt, (size_t)n / 2);
			}
		} else {
			assert_int_equal(s.nrounds, 0);
		}
		lp_sched_free(&s);
	}
}

static void test_round_robin_4096(void **state)
{
	(void)state;
	static const int ns[] = { 127, 128, 1000, 1023, 1024, 4095, 4096 };

	for (size_t i = 0; i < LP_ARRAY_SIZE(ns); i++) {
		struct lp_sched s;

		assert_int_equal(lp_sched_build(&s, LP_SCHED_ROUND_ROBIN, ns[i], 0, 0), 0);
		expect_full(&s);
		assert_int_equal(s.nrounds, ns[i] % 2 ? (size_t)ns[i] : (size_t)ns[i] - 1);
		lp_sched_free(&s);
	}
}

/* The closed-form partner function agrees with itself: partner(partner(i)) == i. */
static void test_rr_partner(void **state)
{
	(void)state;
	for (int n = 2; n <= 33; n++)
		for (int r = 0; r < n - !(n & 1); r++) {
			int byes = 0;

			for (int i = 0; i < n; i++) {
				int p = lp_sched_rr_partner(n, r, i);

				if (p < 0) {
					byes++;
					continue;
				}
				assert_int_not_equal(p, i);
				assert_int_equal(lp_sched_rr_partner(n, r, p), i);
			}
			assert_int_equal(byes, n & 1);
		}
	assert_int_equal(lp_sched_rr_partner(4, 3, 0), -1); /* round out of range */
}

static void test_isolated(void **state)
{
	(void)state;
	for (int n = 2; n <= 40; n++) {
		struct lp_sched s;

		assert_int_equal(lp_sched_build(&s, LP_SCHED_ISOLATED, n, 0, 0), 0);
		expect_full(&s);
		assert_int_equal(s.nrounds, (size_t)n * (n - 1) / 2);
		lp_sched_free(&s);
	}
	struct lp_sched s;

	assert_int_equal(lp_sched_build(&s, LP_SCHED_ISOLATED, 4096, 0, 0), 0);
	expect_full(&s);
	assert_int_equal(s.nrounds, (size_t)4096 * 4095 / 2);
	lp_sched_free(&s);
}

/* Ring: every ordered pair once, 2 rounds per shift (3 when the shift's cycles are odd),
 * and each round uses every node (even cycles) or all but one node per cycle. */
static void test_ring(void **state)
{
	(void)state;
	static const int big[] = { 255, 256, 1024, 4096 };

	for (int n = 2; n <= 48; n++) {
		struct lp_sched s;

		assert_int_equal(lp_sched_build(&s, LP_SCHED_RING, n, 0, 0), 0);
		expect_full(&s);
		assert_true(s.nrounds >= 2 * (size_t)(n - 1));
		assert_true(s.nrounds <= 3 * (size_t)(n - 1));
		lp_sched_free(&s);
	}
	for (size_t i = 0; i < LP_ARRAY_SIZE(big); i++) {
		struct lp_sched s;

		assert_int_equal(lp_sched_build(&s, LP_SCHED_RING, big[i], 0, 0), 0);
		expect_full(&s);
		if (big[i] == 4096) /* power of two: every cycle is even, 2 full rounds per shift */
			assert_int_equal(s.nrounds, 2 * (size_t)4095);
		lp_sched_free(&s);
	}
}

static void test_random(void **state)
{
	(void)state;
	static const int ns[] = { 2, 3, 4, 5, 8, 17, 64, 1024, 4096 };

	for (size_t i = 0; i < LP_ARRAY_SIZE(ns); i++)
		for (int k = 1; k <= 4; k++) {
			struct lp_sched s, s2;
			struct lp_fail why;
			int n = ns[i], *deg = calloc(n, sizeof(int));

			assert_int_equal(lp_sched_build(&s, LP_SCHED_RANDOM, n, k, 42), 0);
			if (lp_sched_check(&s, lp_fresh(&why)))
				fail_msg("random n=%d k=%d: %s", n, k, why.msg);
			/* every node has at least min(k, n-1) partners; O(N*k) pairs */
			for (size_t j = 0; j < s.nslots; j++) {
				assert_int_equal(s.slots[j].dirs, LP_DIR_BOTH);
				deg[s.slots[j].x]++;
				deg[s.slots[j].y]++;
			}
			for (int j = 0; j < n; j++)
				assert_true(deg[j] >= LP_MIN(k, n - 1));
			assert_true(s.nslots <= (size_t)n * k);
			/* greedy colouring: at most 2*maxdeg-1 rounds */
			int maxdeg = 0;

			for (int j = 0; j < n; j++)
				maxdeg = LP_MAX(maxdeg, deg[j]);
			assert_true(s.nrounds <= (size_t)(2 * maxdeg - 1));
			/* same seed, same schedule (every rank computes it alone) */
			assert_int_equal(lp_sched_build(&s2, LP_SCHED_RANDOM, n, k, 42), 0);
			assert_int_equal(s.nslots, s2.nslots);
			assert_memory_equal(s.slots, s2.slots, s.nslots * sizeof(*s.slots));
			lp_sched_free(&s2);
			lp_sched_free(&s);
			free(deg);
		}
	struct lp_sched s;

	assert_int_equal(lp_sched_build(&s, LP_SCHED_RANDOM, 8, 0, 1), -EINVAL);
}

static void test_list_and_check(void **state)
{
	struct lp_sched s;
	struct lp_fail why;
	int32_t pairs[] = { 0, 1, 2, 3, 1, 0 };
	int32_t bad[] = { 0, 0 };

	(void)state;
	assert_int_equal(lp_sched_from_list(&s, 4, pairs, 3), 0);
	assert_int_equal(s.nrounds, 3);
	assert_int_equal(lp_sched_ordered_pairs(&s), 3);
	assert_int_equal(lp_sched_check(&s, lp_fresh(&why)), 0);
	/* break it: a node twice in one round */
	lp_sched_free(&s);
	assert_int_equal(lp_sched_from_list(&s, 4, bad, 1), -EINVAL);
	assert_int_equal(lp_sched_build(&s, LP_SCHED_ROUND_ROBIN, 6, 0, 0), 0);
	s.slots[1].x = s.slots[0].x;
	assert_int_equal(lp_sched_check(&s, lp_fresh(&why)), -EINVAL);
	assert_non_null(strstr(why.msg, "twice"));
	lp_sched_free(&s);
}

/* Time model: round-robin with both directions = (N-1) rounds x 2 pair times. */
static void test_time_model(void **state)
{
	struct lp_sched s;

	(void)state;
	assert_int_equal(lp_sched_build(&s, LP_SCHED_ROUND_ROBIN, 1024, 0, 0), 0);
	assert_true(fabs(lp_sched_time_model(&s, 1.0, 0.5) - 1023 * 2.5) < 1e-9);
	lp_sched_free(&s);
	assert_int_equal(lp_sched_build(&s, LP_SCHED_ISOLATED, 16, 0, 0), 0);
	assert_true(fabs(lp_sched_time_model(&s, 1.0, 0) - 120 * 2.0) < 1e-9);
	lp_sched_free(&s);
}

/* Rails: pairs stay inside a rail, every rail fully covered, rails run in the same rounds. */
static void test_groups(void **state)
{
	(void)state;
	for (int rails = 1; rails <= 8; rails++)
		for (int hosts = 1; hosts <= 9; hosts++) {
			int n = rails * hosts, *g = malloc(n * sizeof(int));
			struct lp_sched s;
			struct lp_fail why;

			for (int i = 0; i < n; i++)
				g[i] = i % rails; /* rank i = host i/rails, local rank i%rails */
			assert_int_equal(
				lp_sched_build_groups(&s, LP_SCHED_ROUND_ROBIN, n, g, 0, 0), 0);
			if (lp_sched_check(&s, lp_fresh(&why)))
				fail_msg("rails %d hosts %d: %s", rails, hosts, why.msg);
			for (size_t j = 0; j < s.nslots; j++)
				assert_int_equal(g[s.slots[j].x], g[s.slots[j].y]);
			assert_int_equal(lp_sched_ordered_pairs(&s),
					 (size_t)rails * hosts * (hosts - 1));
			if (hosts >= 2)
				assert_int_equal(s.nrounds,
						 hosts % 2 ? (size_t)hosts : (size_t)hosts - 1);
			lp_sched_free(&s);
			free(g);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_robin_small),
		cmocka_unit_test(test_round_robin_4096),
		cmocka_unit_test(test_rr_partner),
		cmocka_unit_test(test_isolated),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_list_and_check),
		cmocka_unit_test(test_time_model),
		cmocka_unit_test(test_groups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
