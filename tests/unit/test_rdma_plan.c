// SPDX-License-Identifier: MIT
/*
 * The plan builder of lp-rdma and lp-sweep (rdma/plan.c): tests x sizes in
 * order, each kind's defaults, what the user gave wins, bad plans rejected
 * with one line (the window check of rdma/params.c included).
 */
#include "lp_test.h"

#include <errno.h>

#include "common/lp.h"
#include "rdma/plan.h"

#define MAX_RUNS 64

static int build(const struct lp_rdma_plan *pl, struct lp_rdma_params *runs, int *n_p,
		 struct lp_fail *why)
{
	return lp_rdma_plan_build(pl, runs, MAX_RUNS, n_p, lp_fresh(why));
}

/* Tests x sizes in the order given; no sizes: 2 B latency, 64 KiB bandwidth; the kind's defaults. */
static void test_plan_defaults(void **state)
{
	struct lp_rdma_params runs[MAX_RUNS], lat, bw;
	struct lp_rdma_plan pl;
	struct lp_fail why;
	int n;

	(void)state;
	lp_rdma_plan_init(&pl);
	pl.tests = "write_lat,read_bw,send_lat";
	assert_int_equal(build(&pl, runs, &n, &why), 0);
	assert_int_equal(n, 3);
	lp_rdma_params_default(&lat, LP_RDMA_WRITE_LAT);
	lp_rdma_params_default(&bw, LP_RDMA_READ_BW);
	assert_int_equal(runs[0].test, LP_RDMA_WRITE_LAT);
	assert_int_equal(runs[1].test, LP_RDMA_READ_BW);
	assert_int_equal(runs[2].test, LP_RDMA_SEND_LAT);
	assert_int_equal(runs[0].size, 2);
	assert_int_equal(runs[1].size, 65536);
	assert_int_equal(runs[0].iters, lat.iters);
	assert_int_equal(runs[0].warmup, lat.warmup);
	assert_int_equal(runs[0].tx_depth, lat.tx_depth);
	assert_int_equal(runs[0].cq_mod, lat.cq_mod);
	assert_int_equal(runs[1].iters, bw.iters);
	assert_int_equal(runs[1].warmup, bw.warmup);
	assert_int_equal(runs[1].tx_depth, bw.tx_depth);
	assert_int_equal(runs[1].cq_mod, bw.cq_mod);
	assert_true(runs[0].seed != runs[1].seed || runs[1].seed != runs[2].seed);

	/* sizes per kind: 2 latency x 3 bandwidth sizes, test order kept */
	assert_int_equal(lp_parse_sizes("8,64", &pl.sizes[LP_PLAN_LAT]), 0);
	assert_int_equal(lp_parse_sizes("4K:16K", &pl.sizes[LP_PLAN_BW]), 0);
	pl.tests = "write_bw,write_lat";
	assert_int_equal(build(&pl, runs, &n, &why), 0);
	assert_int_equal(n, 5);
	assert_int_equal(runs[0].size, 4096);
	assert_int_equal(runs[2].size, 16384);
	assert_int_equal(runs[3].test, LP_RDMA_WRITE_LAT);
	assert_int_equal(runs[3].size, 8);
	assert_int_equal(runs[4].size, 64);
}

/* What the user set wins; bandwidth-only settings leave latency runs alone. */
static void test_plan_explicit(void **state)
{
	struct lp_rdma_params runs[MAX_RUNS];
	struct lp_rdma_plan pl;
	struct lp_fail why;
	int n;

	(void)state;
	lp_rdma_plan_init(&pl);
	pl.tests = "write_lat,write_bw";
	pl.iters[LP_PLAN_LAT] = 7, pl.iters_set[LP_PLAN_LAT] = true;
	pl.warmup = 0, pl.warmup_set = true;
	pl.tx_depth = 16, pl.tx_depth_set = true; /* cq moderation 64 is capped at 16 */
	pl.seed = 41, pl.seed_set = true;
	pl.base.num_qps = 4;
	pl.base.post_list = 32; /* capped at the tx depth */
	pl.base.bidir = true;
	pl.base.rx_depth = 100;
	pl.base.timeout_ms = 2500;
	pl.base.mem_dev = 3;
	assert_int_equal(build(&pl, runs, &n, &why), 0);
	assert_int_equal(n, 2);
	assert_int_equal(runs[0].iters, 7);
	assert_int_equal(runs[1].iters, 5000); /* bandwidth iterations not set */
	assert_int_equal(runs[0].warmup, 0);
	assert_int_equal(runs[1].warmup, 0);
	assert_int_equal(runs[0].tx_depth, 1);
	assert_int_equal(runs[0].num_qps, 1);
	assert_int_equal(runs[0].post_list, 1);
	assert_false(runs[0].bidir);
	assert_int_equal(runs[1].tx_depth, 16);
	assert_int_equal(runs[1].cq_mod, 16);
	assert_int_equal(runs[1].post_list, 16);
	assert_int_equal(runs[1].num_qps, 4);
	assert_true(runs[1].bidir);
	assert_int_equal(runs[0].seed, 42);
	assert_int_equal(runs[1].seed, 43);
	for (int i = 0; i < n; i++) {
		assert_int_equal(runs[i].rx_depth, 100);
		assert_int_equal(runs[i].timeout_ms, 2500);
		assert_int_equal(runs[i].mem_dev, 3);
	}

	/* a duration: iterations cleared, the duration everywhere */
	lp_rdma_plan_init(&pl);
	pl.tests = "write_lat,write_bw";
	pl.duration_s = 0.5;
	assert_int_equal(build(&pl, runs, &n, &why), 0);
	assert_true(runs[0].iters == 0 && runs[1].iters == 0);
	assert_true(runs[0].duration_s == 0.5 && runs[1].duration_s == 0.5);
}

/* Bad plans: one line each, nothing half-built passed on. */
static void test_plan_rejects(void **state)
{
	struct lp_rdma_params *runs = calloc(LP_SIZES_MAX * 2, sizeof(*runs));
	struct lp_rdma_plan pl;
	struct lp_fail why;
	int n = -1;

	(void)state;
	assert_non_null(runs);
	lp_rdma_plan_init(&pl);
	pl.tests = "write_bw";
	/* a window that stalls: tx depth 8 with cq moderation 8 and post list 3 (needs 10) */
	pl.tx_depth = 8, pl.tx_depth_set = true;
	pl.cq_mod = 8, pl.cq_mod_set = true;
	pl.base.post_list = 3;
	assert_int_equal(build(&pl, runs, &n, &why), -EINVAL);
	assert_non_null(strstr(why.msg, "write_bw size 65536: tx depth 8 stalls"));
	assert_int_equal(n, 0);
	pl.tx_depth = 10;
	assert_int_equal(build(&pl, runs, &n, &why), 0);

	lp_rdma_plan_init(&pl);
	pl.tests = "write_lat,bogus";
	assert_int_equal(build(&pl, runs, &n, &why), -EINVAL);
	assert_string_equal(why.msg, "unknown test 'bogus'");
	pl.tests = "write_lat,,write_bw";
	assert_int_equal(build(&pl, runs, &n, &why), -EINVAL);

	pl.tests = "write_lat";
	pl.duration_s = 1;
	pl.iters[LP_PLAN_BW] = 10, pl.iters_set[LP_PLAN_BW] = true;
	assert_int_equal(build(&pl, runs, &n, &why), -EINVAL);
	assert_non_null(strstr(why.msg, "not both"));

	lp_rdma_plan_init(&pl);
	pl.tests = "write_lat";
	pl.base.timeout_ms = 5; /* under the 100 ms floor of the check */
	assert_int_equal(build(&pl, runs, &n, &why), -EINVAL);
	assert_non_null(strstr(why.msg, "timeout"));

	/* --interval: every run gets it; a period under 0.1 s, or not a number, is refused */
	lp_rdma_plan_init(&pl);
	pl.tests = "write_lat,write_bw";
	pl.base.interval_s = 0.5;
	assert_int_equal(build(&pl, runs, &n, &why), 0);
	assert_true(runs[0].interval_s == 0.5 && runs[1].interval_s == 0.5);
	pl.base.interval_s = 0.05;
	assert_int_equal(build(&pl, runs, &n, &why), -EINVAL);
	assert_non_null(strstr(why.msg, "write_lat size 2: interval 0.05 s out of range"));
	pl.base.interval_s = NAN;
	assert_int_equal(build(&pl, runs, &n, &why), -EINVAL);
	assert_non_null(strstr(why.msg, "interval nan s"));

	/* more runs than room: -E2BIG, and the bound is exact */
	lp_rdma_plan_init(&pl);
	pl.tests = "write_bw,read_bw";
	assert_int_equal(lp_parse_sizes("1:1G", &pl.sizes[LP_PLAN_BW]), 0); /* 31 sizes */
	assert_int_equal(lp_rdma_plan_build(&pl, runs, 61, &n, lp_fresh(&why)), -E2BIG);
	assert_non_null(strstr(why.msg, "at most 61"));
	assert_int_equal(lp_rdma_plan_build(&pl, runs, 62, &n, lp_fresh(&why)), 0);
	assert_int_equal(n, 62);
	free(runs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_defaults),
		cmocka_unit_test(test_plan_explicit),
		cmocka_unit_test(test_plan_rejects),
	};

	return cmocka_run_group_tests_name("rdma_plan", tests, NULL, NULL);
}
