// SPDX-License-Identifier: MIT
/*
 * Unit tests for sweep/fast.c (the fast schedule: its screen, the byte budget,
 * the size sweep's pairs), the time model's --fast terms (sweep/plantime.c) and
 * the model transport's collectives (sweep/collmodel.c).
 */
#include "lp_test.h"

#include <errno.h>
#include <string.h>

#include "common/lp.h"
#include "sweep/collrun.h"
#include "sweep/fast.h"
#include "sweep/model.h"
#include "sweep/plantime.h"
#include "sweep/result.h"

static const struct lp_sweep_metric metrics[2] = {
	{ .test = "write_lat", .size = 8, .lat = true, .label = "write_lat 8 B" },
	{ .test = "write_bw", .size = 1 << 20, .lat = false, .label = "write_bw 1 MiB" },
};

/* write_lat 8 and 4K, write_bw 4K, 64K and 1M, as lp-rdma's plan builder lists them. */
static int runs(struct lp_rdma_params *p)
{
	static const struct {
		enum lp_rdma_test t;
		uint64_t size;
	} r[] = { { LP_RDMA_WRITE_LAT, 8 },
		  { LP_RDMA_WRITE_LAT, 4096 },
		  { LP_RDMA_WRITE_BW, 4096 },
		  { LP_RDMA_WRITE_BW, 65536 },
		  { LP_RDMA_WRITE_BW, 1 << 20 } };

	for (size_t i = 0; i < LP_ARRAY_SIZE(r); i++) {
		lp_rdma_params_default(&p[i], r[i].t);
		p[i].size = r[i].size;
	}
	return (int)LP_ARRAY_SIZE(r);
}

/* The screen: latency at its smallest size, bandwidth at its largest; one size each: all. */
static void test_screen(void **state)
{
	struct lp_rdma_params p[8];
	int n = runs(p);

	(void)state;
	assert_int_equal(lp_sweep_fast_screen(p, n), 1u << 0 | 1u << 4);
	assert_int_equal(lp_sweep_fast_screen(p + 1, 3), 1u << 0 | 1u << 2); /* lat 4K, bw 64K */
	p[3].size = 1 << 20; /* a size given twice: the first of them */
	assert_int_equal(lp_sweep_fast_screen(p, n), 1u << 0 | 1u << 3);
	assert_int_equal(lp_sweep_fast_screen(p + 1, 1), 1u);
}

/* Fixed bytes: bandwidth iterations = ceil(bytes / size); latency and -D runs keep theirs. */
static void test_bytes(void **state)
{
	struct lp_rdma_params p[8];
	int n = runs(p);
	uint64_t lat = p[0].iters;

	(void)state;
	p[3].duration_s = 1;
	p[3].iters = 7;
	lp_sweep_fast_bytes(p, n, LP_SWEEP_FAST_BYTES);
	assert_int_equal(p[0].iters, lat);
	assert_int_equal(p[2].iters, LP_SWEEP_FAST_BYTES / 4096);
	assert_int_equal(p[3].iters, 7);
	assert_int_equal(p[4].iters, 256);
	lp_sweep_fast_bytes(p, n, 1000);
	assert_int_equal(p[2].iters, 1); /* 1000 B of 4 KiB messages: one, never none */
	assert_int_equal(p[4].iters, 1);
	lp_sweep_fast_bytes(p, n, 3 << 20);
	assert_int_equal(p[4].iters, 3);
}

/* --fast's prediction: a round runs the screen, the size sweep the rest for the suspects. */
static void test_predict(void **state)
{
	struct lp_sweep_costs c = { .name = "t",
				    .source = "test",
				    .start_s = 10,
				    .round_s = 0.001,
				    .cell_s = 0.00001,
				    .session_s = 0.01,
				    .lat_us = 1,
				    .gbps = 400 };
	struct lp_sweep_prediction all, fast;
	struct lp_rdma_params p[8];
	struct lp_sweep_shape sh;
	int n = runs(p);
	uint32_t screen = lp_sweep_fast_screen(p, n);
	struct lp_sweep_retest_policy pol = {
		.max_pairs = 32, .per_node = 2, .rounds = 3, .time_s = 1e6
	}; /* a budget that caps nothing */
	double scr, rest = 0;

	(void)state;
	assert_int_equal(lp_sweep_shape_of(&sh, LP_SCHED_ROUND_ROBIN, 64, 1, 0, 0), 0);
	lp_sweep_predict(&sh, p, n, 0, &c, &pol, 60, NULL, &all);
	lp_sweep_predict(&sh, p, n, screen, &c, &pol, 60, NULL, &fast);
	scr = fast.test_s[0] + fast.test_s[4];
	for (int m = 1; m < 4; m++)
		rest += fast.test_s[m];
	assert_true(fabs(fast.pair_s - scr) < 1e-12);
	assert_true(fabs(all.pair_s - (scr + rest)) < 1e-12);
	assert_true(fabs(fast.harness_s - (0.001 + 0.00001 * 64 * 63 * 2 / 63)) < 1e-12);
	assert_true(fabs(fast.retest_s - 96 * (scr + fast.harness_s)) < 1e-9);
	assert_true(fabs(fast.sizes_s - (32 + LP_SWEEP_FAST_REFS) * (rest + fast.harness_s)) <
		    1e-9);
	assert_true(fabs(fast.bound_s - (fast.total_s + fast.retest_s + fast.sizes_s)) < 1e-9);
	assert_true(all.sizes_s == 0 && fast.sweep_s < all.sweep_s);
	pol.max_pairs =
		LP_SWEEP_RETEST_MAX; /* retests bounded by time only: the size sweep by count */
	lp_sweep_predict(&sh, p, n, screen, &c, &pol, 60, NULL, &fast);
	assert_true(fabs(fast.sizes_s - (LP_SWEEP_FAST_SUSPECTS + LP_SWEEP_FAST_REFS) *
						(rest + fast.harness_s)) < 1e-9);
	pol.max_pairs = 0;
	lp_sweep_predict(&sh, p, n, screen, &c, &pol, 60, NULL, &fast);
	assert_true(fast.sizes_s == 0); /* no retest budget: no size sweep either */
}

static void bound(struct lp_sweep_model *m, int n)
{
	struct lp_fail why;

	if (lp_sweep_model_bind(m, n, metrics, 2, lp_fresh(&why)))
		fail_msg("bind: %s", why.msg);
}

static void add_fault(struct lp_sweep_model *m, enum lp_sweep_model_target t, int a, int b,
		      double factor)
{
	m->faults[m->nfaults++] = (struct lp_sweep_model_fault){
		.target = t, .a = a, .b = b, .rail = -1, .roles = 3, .kinds = 3, .factor = factor
	};
}

/* A run of n nodes, write_bw 1 MiB (the screen) and 64 KiB, every pair's screen cell drawn from m. */
static void run_of(struct lp_sweep_run *r, const struct lp_sweep_model *m, int n)
{
	assert_int_equal(lp_sweep_run_init(r, n), 0);
	lp_sweep_add_metric(r, "write_bw", LP_RDMA_WRITE_BW, false, 1 << 20);
	lp_sweep_add_metric(r, "write_bw", LP_RDMA_WRITE_BW, false, 65536);
	r->screen = 1u;
	for (int i = 0; i < n; i++)
		snprintf(r->nodes[i].name, sizeof(r->nodes[i].name), "n%d", i);
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++) {
			struct lp_sweep_model_key k = { a, b, 1, LP_PHASE_SWEEP, 0, 0 };
			struct lp_sweep_cell c;
			struct lp_fail why;

			if (a == b)
				continue;
			lp_sweep_cell_init(&c, 0, a, b, LP_PHASE_SWEEP, 0);
			assert_int_equal(lp_sweep_model_draw(m, &k, &c.value, lp_fresh(&why)), 0);
			assert_int_equal(lp_sweep_add_cell(r, &c), 0);
		}
}

/* The size sweep: the slow node's cells and two healthy references; nothing for a healthy run. */
static void test_pairs(void **state)
{
	struct lp_sweep_retest_policy pol;
	struct lp_sweep_model m;
	struct lp_sweep_run r;
	int32_t *pairs;
	size_t np, refs = 0;
	int n = 16;

	(void)state;
	lp_sweep_retest_policy_default(&pol);
	lp_sweep_model_init(&m);
	m.cv = 0.02;
	bound(&m, n);
	run_of(&r, &m, n);
	assert_true(lp_sweep_metric_screened(&r, 0) && !lp_sweep_metric_screened(&r, 1));
	assert_int_equal(lp_sweep_fast_pairs(&r, &pol, &pairs, &np), 0);
	assert_int_equal(np, 0);
	assert_int_equal(r.nverdicts, 0); /* the unscreened metric, without cells, is not judged */
	assert_int_equal(lp_sweep_missing(&r, NULL), 0);
	free(pairs);
	lp_sweep_run_free(&r);

	add_fault(&m, LP_SWEEP_MODEL_NODE, 5, 0, 0.7);
	bound(&m, n);
	run_of(&r, &m, n);
	assert_int_equal(lp_sweep_fast_pairs(&r, &pol, &pairs, &np), 0);
	assert_int_equal(r.nverdicts, 1);
	assert_in_range(np, 2 + LP_SWEEP_FAST_REFS, (size_t)pol.max_pairs + LP_SWEEP_FAST_REFS);
	for (size_t i = 0; i < np; i++) {
		bool ref = pairs[2 * i] != 5 && pairs[2 * i + 1] != 5;

		refs += ref;
		if (ref) /* the references come last, one healthy pair both ways */
			assert_true(i >= np - LP_SWEEP_FAST_REFS);
	}
	assert_int_equal(refs, LP_SWEEP_FAST_REFS);
	assert_int_equal(pairs[2 * (np - 2)], pairs[2 * (np - 1) + 1]);
	free(pairs);
	pol.max_pairs = 0;
	assert_int_equal(lp_sweep_fast_pairs(&r, &pol, &pairs, &np), 0);
	assert_int_equal(np, 0);
	assert_null(pairs);
	lp_sweep_run_free(&r);
}

/* The model's collective: the ring's slowest edge in its order, a fresh draw per call. */
static void test_collective(void **state)
{
	int ranks[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, rev[8];
	struct lp_sweep_model m;
	struct lp_fail why;
	double bw, again;

	(void)state;
	for (int i = 0; i < 8; i++)
		rev[i] = 7 - i;
	lp_sweep_model_init(&m);
	add_fault(&m, LP_SWEEP_MODEL_LINK, 3, 4, 0.8);
	bound(&m, 8);
	assert_int_equal(
		lp_coll_model_busbw(&m, 1, LP_COLL_ALLREDUCE, ranks, 8, 0, &bw, lp_fresh(&why)), 0);
	assert_true(fabs(bw - 0.8 * 100 / 8) < 1e-9); /* 3 -> 4 is on the ring: it holds it */
	assert_int_equal(
		lp_coll_model_busbw(&m, 1, LP_COLL_ALLREDUCE, rev, 8, 0, &bw, lp_fresh(&why)), 0);
	assert_true(fabs(bw - 100.0 / 8) < 1e-9); /* the reversed ring runs 4 -> 3: healthy */
	/* alltoall, every pair at once: 1/8 of the data on 3 -> 4, the ports hold it at 12.5 GB/s */
	assert_int_equal(
		lp_coll_model_busbw(&m, 1, LP_COLL_ALLTOALL, rev, 8, 0, &bw, lp_fresh(&why)), 0);
	assert_true(fabs(bw - 100.0 / 8) < 1e-9);
	m.faults[0].factor = 0.1; /* until 3 -> 4 is 8 times slower than a port: 8 x 1.25 x 7/8 */
	assert_int_equal(
		lp_coll_model_busbw(&m, 1, LP_COLL_ALLTOALL, rev, 8, 0, &bw, lp_fresh(&why)), 0);
	assert_true(fabs(bw - 8 * 1.25 * 7 / 8) < 1e-9);
	assert_int_equal(lp_coll_model_busbw(&m, 1, LP_COLL_ALLREDUCE, ranks, 1, 0, &bw,
					     lp_fresh(&why)),
			 -EINVAL);
	m.cv = 0.03;
	assert_int_equal(
		lp_coll_model_busbw(&m, 1, LP_COLL_ALLREDUCE, rev, 8, 4, &bw, lp_fresh(&why)), 0);
	assert_int_equal(lp_coll_model_busbw(&m, 1, LP_COLL_ALLREDUCE, rev, 8, 4, &again,
					     lp_fresh(&why)),
			 0);
	assert_true(bw == again); /* a draw is a pure function of its number */
	assert_int_equal(lp_coll_model_busbw(&m, 1, LP_COLL_ALLREDUCE, rev, 8, 5, &again,
					     lp_fresh(&why)),
			 0);
	assert_true(bw != again && bw < 100.0 / 8 && again < 100.0 / 8 * 1.1);
	add_fault(&m, LP_SWEEP_MODEL_LINK, 6, 7, 0);
	assert_int_equal(lp_coll_model_busbw(&m, 1, LP_COLL_ALLREDUCE, ranks, 8, 0, &bw,
					     lp_fresh(&why)),
			 -EIO);
	assert_non_null(strstr(why.msg, "fails"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_screen),	   cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_predict),	   cmocka_unit_test(test_pairs),
		cmocka_unit_test(test_collective),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
