// SPDX-License-Identifier: MIT
/* Interval accounting (common/ival.h): boundaries, empty and partial intervals, min/max/ratio. */
#include "lp_test.h"

#include <errno.h>

#include "common/ival.h"

#define S  1000000000ull /* one second in ns */
#define T0 5000ull	 /* any clock: only differences count */

/* The sink: what it was told, in order. */
struct seen {
	struct lp_ival v[16];
	int n;
};

static void record_ival(void *ctx, const struct lp_ival *iv)
{
	struct seen *s = ctx;

	if (s->n < 16)
		s->v[s->n++] = *iv;
}

/* Bandwidth completions reaped at the given times. */
static void reap(struct lp_ival_series *s, double at_s, uint64_t msgs)
{
	lp_ival_tick(s, T0 + (uint64_t)(at_s * 1e9));
	lp_ival_count(s, msgs);
}

static void test_bw_boundaries(void **state)
{
	struct seen seen = { .n = 0 };
	struct lp_ival_sink sink = { record_ival, &seen };
	struct lp_ival_series s;
	struct lp_ival_summary sum;

	(void)state;
	assert_int_equal(lp_ival_init(&s, 1.0, 1000, 0, 0, &sink), 0);
	lp_ival_count(&s, 99); /* warm-up: before the start, forgotten */
	lp_ival_start(&s, T0);
	reap(&s, 0.5, 10);
	assert_int_equal(seen.n, 0);		/* nothing ended yet */
	reap(&s, 1.0, 4);			/* reaped on the edge: the next interval's */
	assert_int_equal(seen.n, 1);		/* [0, 1) closed when the clock said so */
	reap(&s, 3.2, 6);			/* [1, 2) with 4, [2, 3) empty */
	lp_ival_finish(&s, T0 + 3300000000ull); /* [3, 3.3): the partial last one */
	assert_int_equal(s.n, 4);
	assert_int_equal(seen.n, 4);
	assert_memory_equal(seen.v, s.v, sizeof(seen.v[0]) * 4);
	assert_int_equal(s.v[0].n, 10);
	assert_int_equal(s.v[1].n, 4);
	assert_int_equal(s.v[2].n, 0);
	assert_int_equal(s.v[3].n, 6);
	assert_true(fabs(s.v[0].start_s - 0.0) < 1e-12 && fabs(s.v[0].len_s - 1.0) < 1e-12);
	assert_true(fabs(s.v[2].start_s - 2.0) < 1e-12);
	assert_true(fabs(s.v[3].start_s - 3.0) < 1e-12 && fabs(s.v[3].len_s - 0.3) < 1e-9);
	/* 10 x 1000 B in one second; 6 x 1000 B in 0.3 s */
	assert_true(fabs(s.v[0].gbytes_s - 1e-5) < 1e-15);
	assert_true(fabs(s.v[0].mmsg_s - 1e-5) < 1e-15);
	assert_true(s.v[2].gbytes_s == 0);
	assert_true(fabs(s.v[3].gbytes_s - 2e-5) < 1e-12);
	assert_false(s.v[0].lat);
	assert_true(isnan(s.v[0].p50));
	/* The empty interval is the minimum; the 0.3 s tail is not judged. */
	lp_ival_summarize(s.v, s.n, 1.0, &sum);
	assert_int_equal(sum.n, 4);
	assert_int_equal(sum.judged, 3);
	assert_int_equal(sum.empty, 1);
	assert_true(sum.min == 0 && fabs(sum.min_at_s - 2.0) < 1e-12);
	assert_true(fabs(sum.max - 1e-5) < 1e-15 && sum.max_at_s == 0);
	assert_true(sum.ratio == 0);
	/* Finished: later ticks close nothing. */
	reap(&s, 9.0, 1);
	assert_int_equal(s.n, 4);
	lp_ival_free(&s);
}

/* A dip: min/max is the ratio of the worst to the best full interval. */
static void test_bw_ratio(void **state)
{
	struct lp_ival_series s;
	struct lp_ival_summary sum;

	(void)state;
	assert_int_equal(lp_ival_init(&s, 0.5, 4096, 0, 0, NULL), 0);
	lp_ival_start(&s, T0);
	reap(&s, 0.1, 100);
	reap(&s, 0.6, 100);
	reap(&s, 1.2, 25); /* the dip */
	reap(&s, 1.7, 80);
	lp_ival_finish(&s, T0 + 2 * S); /* ends on an edge: no partial interval */
	assert_int_equal(s.n, 4);
	lp_ival_summarize(s.v, s.n, 0.5, &sum);
	assert_int_equal(sum.judged, 4);
	assert_int_equal(sum.empty, 0);
	assert_true(fabs(sum.ratio - 0.25) < 1e-12);
	assert_true(fabs(sum.min_at_s - 1.0) < 1e-12);
	assert_true(fabs(sum.max_at_s - 0.0) < 1e-12); /* the first of equal maxima */
	assert_true(fabs(sum.min - 25 * 4096 / 0.5 / 1e9) < 1e-12);
	lp_ival_free(&s);
}

/* Latency: each interval's own percentiles; an empty interval is counted, not judged. */
static void test_lat(void **state)
{
	struct lp_ival_series s;
	struct lp_ival_summary sum;

	(void)state;
	assert_int_equal(lp_ival_init(&s, 1.0, 0, 1e-3, 100, NULL), 0);
	lp_ival_start(&s, T0);
	for (int i = 1; i <= 100; i++) { /* 1..100 us over the first second */
		lp_ival_tick(&s, T0 + (uint64_t)i * 9000000ull);
		lp_ival_sample(&s, i * 1000.0);
	}
	/* none in [1, 2); a 400 us sample ends in [2, 3) */
	lp_ival_tick(&s, T0 + 2500000000ull);
	lp_ival_sample(&s, 400000.0);
	lp_ival_finish(&s, T0 + 2500000000ull);
	assert_int_equal(s.n, 3);
	assert_true(s.v[0].lat);
	assert_int_equal(s.v[0].n, 100);
	assert_true(s.v[0].p50 == 50.0 && s.v[0].p99 == 99.0); /* nearest rank, in us */
	assert_int_equal(s.v[1].n, 0);
	assert_true(isnan(s.v[1].p50));
	assert_true(s.v[2].p50 == 400.0 && fabs(s.v[2].len_s - 0.5) < 1e-12);
	assert_true(isnan(s.v[0].gbytes_s));
	lp_ival_summarize(s.v, s.n, 1.0, &sum);
	assert_int_equal(sum.empty, 1);
	assert_int_equal(sum.judged, 2); /* the half-period tail counts */
	assert_true(sum.min == 50.0 && sum.max == 400.0);
	assert_true(fabs(sum.ratio - 0.125) < 1e-12);
	lp_ival_free(&s);
}

/* Off (no --interval): nothing is kept, nothing is said. */
static void test_off(void **state)
{
	struct seen seen = { .n = 0 };
	struct lp_ival_sink sink = { record_ival, &seen };
	struct lp_ival_series s;
	struct lp_ival_summary sum;

	(void)state;
	assert_int_equal(lp_ival_init(&s, 0, 1000, 0, 0, &sink), 0);
	lp_ival_start(&s, T0);
	reap(&s, 5.0, 10);
	lp_ival_sample(&s, 1.0);
	lp_ival_finish(&s, T0 + 6 * S);
	assert_int_equal(s.n, 0);
	assert_int_equal(seen.n, 0);
	lp_ival_summarize(s.v, s.n, 0, &sum);
	assert_int_equal(sum.n, 0);
	assert_int_equal(sum.judged, 0);
	assert_true(isnan(sum.ratio) && isnan(sum.min));
	lp_ival_free(&s);
}

/* The summary's record: every field through the wire and back. */
static void test_summary_record(void **state)
{
	struct lp_ival_summary a = { 6, 5, 1, 0.5, 2.0, 3.0, 0.0, 0.25 }, b;
	struct lp_wbuf w;

	(void)state;
	lp_wbuf_init(&w);
	assert_int_equal(lp_record_encode(&lp_ival_summary_record, &a, &w), 0);
	assert_int_equal(lp_record_decode_body(&lp_ival_summary_record, &b, w.data, w.len), 0);
	assert_true(a.n == b.n && a.judged == b.judged && a.empty == b.empty);
	assert_true(a.min == b.min && a.max == b.max && a.min_at_s == b.min_at_s &&
		    a.max_at_s == b.max_at_s && a.ratio == b.ratio);
	assert_int_equal(lp_record_decode_body(&lp_ival_summary_record, &b, w.data, w.len - 1),
			 -EPROTO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bw_boundaries),
		cmocka_unit_test(test_bw_ratio),
		cmocka_unit_test(test_lat),
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_summary_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
