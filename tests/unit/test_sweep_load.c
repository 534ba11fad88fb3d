// SPDX-License-Identifier: MIT
/*
 * Unit tests for lp-sweep's load modes (sweep/load.c): Jain's fairness index,
 * the congestion impact factor, and the verdicts on runs built by hand -- a
 * node whose latency under load rises far more than the others', an incast
 * receiver far below the others, one whose senders' shares collapse -- and
 * that the healthy runs are not flagged. The load cells survive the JSON
 * document and lp-sweep --diagnose's reader.
 */
#include "lp_test.h"

#include <errno.h>

#include "sweep/load.h"
#include "sweep/result.h"

enum { N = 4, LAT = 0, BW = 1 };

/* A deterministic spread of a few percent, so the idle matrices have noise but nothing to flag. */
static double jitter(int a, int b)
{
	unsigned h = (unsigned)(a * 16 + b) * 2654435761u;

	return exp(0.03 * ((double)(h >> 16 & 0xffff) / 65535 * 2 - 1));
}

static void add(struct lp_sweep_run *r, int m, int a, int b, int phase, double v)
{
	struct lp_sweep_cell c;

	lp_sweep_cell_init(&c, m, a, b, phase, 0);
	if (m == LAT) {
		c.lat.p50 = v;
		c.lat.p99 = 2 * v;
		c.value = v;
	} else {
		c.gbits_s = c.value = v;
	}
	assert_int_equal(lp_sweep_add_cell(r, &c), 0);
}

/* Idle sweep cells of both metrics for every ordered pair. */
static void idle_run(struct lp_sweep_run *r)
{
	assert_int_equal(lp_sweep_run_init(r, N), 0);
	for (int i = 0; i < N; i++)
		snprintf(r->nodes[i].name, sizeof(r->nodes[i].name), "n%d", i);
	assert_int_equal(lp_sweep_add_metric(r, "write_lat", 0, true, 8), LAT);
	assert_int_equal(lp_sweep_add_metric(r, "write_bw", 1, false, 65536), BW);
	for (int a = 0; a < N; a++)
		for (int b = 0; b < N; b++)
			if (a != b) {
				add(r, LAT, a, b, LP_PHASE_SWEEP, 2 * jitter(a, b));
				add(r, BW, a, b, LP_PHASE_SWEEP, 10 * jitter(a, b));
			}
}

static int count(const struct lp_sweep_run *r, enum lp_verdict_kind kind, int node)
{
	int k = 0;

	for (int i = 0; i < r->nverdicts; i++)
		k += r->verdicts[i].kind == kind && (node < 0 || r->verdicts[i].a == node);
	return k;
}

static void test_jain(void **state)
{
	const double eq[] = { 3, 3, 3 }, one[] = { 5, 0, 0 }, two[] = { 1, 1, 0 },
		     zero[] = { 0, 0 };

	(void)state;
	assert_float_equal(lp_jain_index(eq, 3), 1.0, 1e-12);
	assert_float_equal(lp_jain_index(one, 3), 1.0 / 3, 1e-12);
	assert_float_equal(lp_jain_index(two, 3), 2.0 / 3, 1e-12);
	assert_float_equal(lp_jain_index(eq, 1), 1.0, 1e-12);
	assert_true(isnan(lp_jain_index(zero, 2)));
	assert_true(isnan(lp_jain_index(eq, 0)));
}

/* Loaded latency: every pair 1.25x its idle p50 and p99, or 5x (p99) where node `slow` is in it. */
static void loaded(struct lp_sweep_run *r, int slow)
{
	for (int a = 0; a < N; a++)
		for (int b = 0; b < N; b++) {
			struct lp_sweep_cell c;

			if (a == b)
				continue;
			lp_sweep_cell_init(&c, LAT, a, b, LP_PHASE_LOADED, 0);
			c.lat.p50 = 2 * jitter(a, b) * 1.25;
			c.lat.p99 = 4 * jitter(a, b) * (a == slow || b == slow ? 5 : 1.25);
			c.value = c.lat.p50;
			assert_int_equal(lp_sweep_add_cell(r, &c), 0);
			add(r, BW, (a + 1) % N, (b + 1) % N, LP_PHASE_LOADER, 9);
		}
}

static void test_impact(void **state)
{
	struct lp_sweep_run r;
	struct lp_load_cell lc[N * N],
		one = { .idle_p50 = 2, .idle_p99 = 4, .load_p50 = 3, .load_p99 = NAN };
	double c50[N], c99[N];

	(void)state;
	lp_load_cell_impact(&one);
	assert_float_equal(one.cif_p50, 1.5, 1e-12);
	assert_true(isnan(one.cif_p99));
	idle_run(&r);
	assert_int_equal(lp_sweep_load_matrix(&r, LAT, lc, c50, c99), 0); /* nothing loaded yet */
	loaded(&r, 2);
	assert_int_equal(lp_sweep_load_matrix(&r, LAT, lc, c50, c99), N * (N - 1));
	assert_float_equal(lc[0 * N + 1].cif_p50, 1.25, 1e-9);
	assert_float_equal(lc[0 * N + 2].cif_p99, 5, 1e-9);
	assert_float_equal(lc[0 * N + 2].idle_p99, 4 * jitter(0, 2), 1e-9);
	assert_float_equal(c99[2], 5, 1e-9);
	assert_float_equal(c99[0], 1.25, 1e-9); /* 2 of its 6 pairs with n2: the median holds */
	assert_float_equal(c50[3], 1.25, 1e-9);
	assert_int_equal(lp_sweep_diagnose(&r), 0);
	assert_int_equal(count(&r, LP_VERDICT_LOAD_IMPACT, -1), 1);
	assert_int_equal(count(&r, LP_VERDICT_LOAD_IMPACT, 2), 1);
	assert_int_equal(r.nverdicts, 1);
	assert_int_equal(lp_sweep_exit_code(&r), 1);
	lp_sweep_run_free(&r);

	idle_run(&r); /* healthy: everyone 1.25x */
	loaded(&r, -1);
	assert_int_equal(lp_sweep_diagnose(&r), 0);
	assert_int_equal(r.nverdicts, 0);
	lp_sweep_run_free(&r);

	/* idle latency too noisy for a verdict: the impact is reported, the node not named */
	idle_run(&r);
	for (size_t k = 0; k < r.ncells; k++)
		if (r.cells[k].metric == LAT)
			r.cells[k].value *= 1 + 4 * ((r.cells[k].a * 5 + r.cells[k].b * 11) % 7);
	loaded(&r, 2);
	assert_int_equal(lp_sweep_diagnose(&r), 0);
	assert_true(r.diag[LAT].inconclusive);
	assert_int_equal(count(&r, LP_VERDICT_LOAD_IMPACT, -1), 0);
	assert_int_equal(count(&r, LP_VERDICT_INCONCLUSIVE, -1), 1);
	for (int i = 0; i < r.nverdicts; i++)
		if (r.verdicts[i].kind == LP_VERDICT_INCONCLUSIVE)
			assert_non_null(strstr(r.verdicts[i].reason, "n2 p99 5.00x"));
	assert_int_equal(lp_sweep_exit_code(&r), LP_SWEEP_EXIT_INCONCLUSIVE);
	lp_sweep_run_free(&r);
}

/* Each receiver's 3 senders at `each` Gb/s; receiver `slow` gets 0.05 each, `unfair` 2.8/0.1/0.1. */
static void incast(struct lp_sweep_run *r, int slow, int unfair, int failed)
{
	for (int b = 0; b < N; b++)
		for (int i = 1; i < N; i++) {
			int a = (b + i) % N;
			double v = b == slow ? 0.05 : b == unfair ? (i == 1 ? 2.8 : 0.1) : 1.0;
			struct lp_sweep_cell c;

			lp_sweep_cell_init(&c, BW, a, b, LP_PHASE_INCAST, b);
			c.gbits_s = c.value = v;
			if (b == failed && i == 2) {
				c.status = -ETIMEDOUT;
				c.gbits_s = c.value = NAN;
			}
			assert_int_equal(lp_sweep_add_cell(r, &c), 0);
		}
}

/* Latency into each receiver b during its incast: f[b] times idle. */
static void incast_victims_f(struct lp_sweep_run *r, const double *f)
{
	for (int b = 0; b < N; b++) {
		int a = (b + N - 1) % N;
		struct lp_sweep_cell c;

		lp_sweep_cell_init(&c, LAT, a, b, LP_PHASE_INCAST_VICTIM, b);
		c.lat.p50 = 2 * jitter(a, b) * f[b];
		c.lat.p99 = 4 * jitter(a, b) * f[b];
		c.value = c.lat.p50;
		assert_int_equal(lp_sweep_add_cell(r, &c), 0);
	}
}

/* Latency into each receiver during its incast: 1.5x idle, 20x into receiver `bad`. */
static void incast_victims(struct lp_sweep_run *r, int bad)
{
	double f[N];

	for (int b = 0; b < N; b++)
		f[b] = b == bad ? 20 : 1.5;
	incast_victims_f(r, f);
}

static void test_incast(void **state)
{
	struct lp_sweep_run r;
	struct lp_incast ic;
	const struct lp_sweep_att *cells[N];

	(void)state;
	idle_run(&r);
	incast(&r, 1, 3, -1);
	assert_int_equal(lp_sweep_incast(&r, BW, 0, &ic, cells), 3);
	assert_float_equal(ic.agg_gbps, 3, 1e-9);
	assert_float_equal(ic.jain, 1, 1e-9);
	assert_int_equal(cells[0]->a, 1);
	assert_int_equal(lp_sweep_incast(&r, BW, 3, &ic, NULL), 3);
	assert_float_equal(ic.agg_gbps, 3, 1e-9);
	assert_float_equal(ic.jain, 9 / (3 * (2.8 * 2.8 + 0.02)), 1e-9);
	assert_int_equal(lp_sweep_incast(&r, LAT, 0, &ic, NULL), 0);
	assert_int_equal(lp_sweep_diagnose(&r), 0);
	assert_int_equal(count(&r, LP_VERDICT_INCAST_SLOW, -1), 1);
	assert_int_equal(count(&r, LP_VERDICT_INCAST_SLOW, 1), 1);
	assert_int_equal(count(&r, LP_VERDICT_INCAST_UNFAIR, -1), 1);
	assert_int_equal(count(&r, LP_VERDICT_INCAST_UNFAIR, 3), 1);
	assert_int_equal(r.nverdicts, 2);
	lp_sweep_run_free(&r);

	/* a sender that failed counts as 0: the receiver's aggregate and fairness drop */
	idle_run(&r);
	incast(&r, -1, -1, 0);
	assert_int_equal(lp_sweep_incast(&r, BW, 0, &ic, NULL), 3);
	assert_int_equal(ic.nfail, 1);
	assert_float_equal(ic.jain, 2.0 / 3, 1e-9);
	lp_sweep_run_free(&r);

	idle_run(&r); /* healthy, with a victim's latency into each receiver */
	incast(&r, -1, -1, -1);
	incast_victims(&r, -1);
	assert_int_equal(lp_sweep_incast(&r, BW, 2, &ic, NULL), 3);
	assert_int_equal(ic.victim, 1);
	assert_int_equal(ic.vic_metric, LAT);
	assert_float_equal(ic.vic.cif_p99, 1.5, 1e-9);
	assert_float_equal(ic.vic.cif_p50, 1.5, 1e-9);
	assert_float_equal(ic.vic.idle_p99, 4 * jitter(1, 2), 1e-9);
	assert_int_equal(lp_sweep_diagnose(&r), 0);
	assert_int_equal(r.nverdicts, 0);
	lp_sweep_run_free(&r);

	/* a receiver whose port queues: latency into it 20x idle while the others see 1.5x */
	idle_run(&r);
	incast(&r, -1, -1, -1);
	incast_victims(&r, 3);
	assert_int_equal(lp_sweep_diagnose(&r), 0);
	assert_int_equal(count(&r, LP_VERDICT_LOAD_IMPACT, 3), 1);
	assert_int_equal(r.nverdicts, 1);
	assert_non_null(strstr(r.verdicts[0].reason, "into it from n2 during its incast"));
	lp_sweep_run_free(&r);

	/*
	 * One victim cell per receiver has no noise estimate: a receiver is named only
	 * impact_max above every other one. The healthy TCG fabric's factors of one CI run
	 * (30, 9.5, 8, 42x: 30 is 3.2x the others' median) name nobody; its shaped receiver
	 * (92x against 23, 21, 34x) is named.
	 */
	static const double healthy_f[N] = { 30.0, 9.49, 7.99, 41.89 },
			    shaped_f[N] = { 22.9, 21.1, 92.2, 33.8 };

	idle_run(&r);
	incast(&r, -1, -1, -1);
	incast_victims_f(&r, healthy_f);
	assert_int_equal(lp_sweep_diagnose(&r), 0);
	assert_int_equal(count(&r, LP_VERDICT_LOAD_IMPACT, -1), 0);
	lp_sweep_run_free(&r);
	idle_run(&r);
	incast(&r, -1, -1, -1);
	incast_victims_f(&r, shaped_f);
	assert_int_equal(lp_sweep_diagnose(&r), 0);
	assert_int_equal(count(&r, LP_VERDICT_LOAD_IMPACT, -1), 1);
	assert_int_equal(count(&r, LP_VERDICT_LOAD_IMPACT, 2), 1);
	assert_non_null(strstr(r.verdicts[0].reason, "the other nodes up to 33.80x"));
	lp_sweep_run_free(&r);
}

/* The load cells and thresholds travel through the JSON document; the verdicts come back. */
static void test_json_round_trip(void **state)
{
	char path[] = "/tmp/lp-load-XXXXXX", *buf = NULL;
	struct lp_fail why;
	struct lp_sweep_run r, back;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	size_t len = 0;

	(void)state;
	assert_non_null(f);
	idle_run(&r);
	loaded(&r, 2);
	incast(&r, 1, -1, -1);
	r.dopts.fair_min = 0.7;
	assert_int_equal(lp_sweep_diagnose(&r), 0);
	assert_int_equal(lp_sweep_write_json(&r, f, 1), 0);
	fclose(f);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_true(getdelim(&buf, &len, 0, f) > 0);
	fclose(f);
	assert_true(lp_test_json_valid(buf));
	assert_non_null(strstr(buf, "\"impact_p99\""));
	assert_non_null(strstr(buf, "\"jain\""));
	free(buf);
#ifdef LP_HAVE_JANSSON
	assert_int_equal(lp_sweep_read_json(&back, path, lp_fresh(&why)), 0);
	assert_int_equal(back.ncells, r.ncells);
	assert_float_equal(back.dopts.fair_min, 0.7, 1e-12);
	assert_int_equal(lp_sweep_diagnose(&back), 0);
	assert_int_equal(count(&back, LP_VERDICT_LOAD_IMPACT, 2), 1);
	assert_int_equal(count(&back, LP_VERDICT_INCAST_SLOW, 1), 1);
	assert_int_equal(back.nverdicts, 2);
	lp_sweep_run_free(&back);
#else
	(void)back;
	(void)why;
#endif
	lp_sweep_run_free(&r);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jain),
		cmocka_unit_test(test_impact),
		cmocka_unit_test(test_incast),
		cmocka_unit_test(test_json_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
