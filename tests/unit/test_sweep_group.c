// SPDX-License-Identifier: MIT
/*
 * Unit tests for the diagnosis at cluster scale (sweep/group.c, diag_link.c,
 * diag_fit.c, verdict_group.c): a shared fault is one verdict naming the
 * switch, uplink, path or rail and its members, with a topology and without
 * (a block: "these nodes share a fault"); a cell that stands out once is
 * unconfirmed with the command that settles it; the noise is unbiased; healthy
 * runs at N = 64 and 256 with blips name nothing; each shown to fail on bad data.
 */
#include "lp_test.h"

#include <errno.h>

#include "common/lp.h"
#include "sweep/diag.h"
#include "sweep/fabric.h"
#include "sweep/result.h"

struct rng {
	uint64_t s;
};

static double uni(struct rng *g)
{
	g->s ^= g->s << 13;
	g->s ^= g->s >> 7;
	g->s ^= g->s << 17;
	return ((g->s >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(struct rng *g)
{
	return sqrt(-2 * log(uni(g))) * cos(2 * M_PI * uni(g));
}

/* A cell's goodness factor under the test's fault (1 healthy). */
typedef double (*fault_fn)(int a, int b, const void *arg);

/*
 * A run of n ranks (names n0..; with rails > 1, host n(r / rails), rail r % rails,
 * cells only within a rail), one bandwidth metric, its sweep cells at
 * 100 Gb/s x fault x noise (cv) x a blip (0.3-0.8x) with probability blip.
 */
static void make_run(struct lp_sweep_run *r, int n, int rails, double cv, double blip, fault_fn f,
		     const void *arg, uint64_t seed)
{
	struct rng g = { seed * 0x9E3779B97F4A7C15ull + 7 };

	assert_int_equal(lp_sweep_run_init(r, n), 0);
	for (int i = 0; i < n; i++) {
		snprintf(r->nodes[i].host, sizeof(r->nodes[i].host), "n%d",
			 rails > 1 ? i / rails : i);
		if (rails > 1)
			snprintf(r->nodes[i].name, sizeof(r->nodes[i].name), "n%d/%d", i / rails,
				 i % rails);
		else
			snprintf(r->nodes[i].name, sizeof(r->nodes[i].name), "n%d", i);
		r->nodes[i].rail = rails > 1 ? i % rails : 0;
	}
	r->rails = rails > 1 ? rails : 0;
	r->retest_max = 100;
	r->retest_rounds = 3;
	assert_int_equal(lp_sweep_add_metric(r, "write_bw", 3, false, 1 << 20), 0);
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++) {
			struct lp_sweep_cell c;
			double v;

			if (a == b || (rails > 1 && a % rails != b % rails))
				continue;
			v = 100 * (f ? f(a, b, arg) : 1) * exp(log1p(cv) * gauss(&g));
			if (uni(&g) < blip)
				v *= 0.3 + 0.5 * uni(&g);
			lp_sweep_cell_init(&c, 0, a, b, LP_PHASE_SWEEP, 0);
			c.value = v;
			assert_int_equal(lp_sweep_add_cell(r, &c), 0);
		}
}

/* The fabric of a "HOST LEAF" text, into r. */
static void give_topology(struct lp_sweep_run *r, const char *text)
{
	struct lp_fail why = { 0 };

	r->fabric = calloc(1, sizeof(*r->fabric));
	assert_non_null(r->fabric);
	assert_int_equal(lp_fabric_parse(r->fabric, text, "test", &why), 0);
}

static int count_kind(const struct lp_sweep_run *r, enum lp_verdict_kind k)
{
	int c = 0;

	for (int i = 0; i < r->nverdicts; i++)
		c += r->verdicts[i].kind == k;
	return c;
}

static const struct lp_verdict *find_kind(const struct lp_sweep_run *r, enum lp_verdict_kind k)
{
	for (int i = 0; i < r->nverdicts; i++)
		if (r->verdicts[i].kind == k)
			return &r->verdicts[i];
	return NULL;
}

/* Confident names: what a run says is broken. */
static int names(const struct lp_sweep_run *r)
{
	return count_kind(r, LP_VERDICT_NODE_SLOW) + count_kind(r, LP_VERDICT_LINK_SLOW) +
	       count_kind(r, LP_VERDICT_SWITCH_SLOW) + count_kind(r, LP_VERDICT_UPLINK_SLOW) +
	       count_kind(r, LP_VERDICT_RAIL_SLOW) + count_kind(r, LP_VERDICT_GROUP_SUSPECT);
}

/* 32 nodes, 4 leaves of 8 ("n0 leaf0" ...). */
static const char *topo32(void)
{
	static char text[1024];

	text[0] = 0;
	for (int i = 0; i < 32; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "n%d leaf%d\n", i,
			 i / 8);
	return text;
}

struct leaf_fault {
	int leaf, size;
	double f;
	int slow_node; /* a node of its own, slow both ways too (-1 none) */
};

/* The cells leaving and entering a leaf at f; a node of its own slower. */
static double leaf_cross(int a, int b, const void *arg)
{
	const struct leaf_fault *lf = arg;
	bool ia = a / lf->size == lf->leaf, ib = b / lf->size == lf->leaf;
	double f = ia != ib ? lf->f : 1;

	if (a == lf->slow_node || b == lf->slow_node)
		f *= 0.5;
	return f;
}

/*
 * A leaf switch whose traffic in and out runs at 0.8x (32 nodes, leaves of 8):
 * with the topology, one switch_slow naming leaf1 and its 8 members, scope
 * "cross", nothing else named (it was 8 node_slow verdicts); without it, one
 * group_suspect with the same members. A healthy run names no group; a slow
 * node under the leaf stays a node of its own beside the switch.
 */
static void test_switch_slow(void **state)
{
	struct leaf_fault lf = { 1, 8, 0.8, -1 };
	struct lp_sweep_run r;
	const struct lp_verdict *v;

	(void)state;
	for (int topo = 1; topo >= 0; topo--) {
		make_run(&r, 32, 1, 0.03, 0, leaf_cross, &lf, 11);
		if (topo)
			give_topology(&r, topo32());
		assert_int_equal(lp_sweep_diagnose(&r), 0);
		v = find_kind(&r, topo ? LP_VERDICT_SWITCH_SLOW : LP_VERDICT_GROUP_SUSPECT);
		assert_non_null(v);
		assert_int_equal(names(&r), 1);
		assert_int_equal(v->nmembers, 8);
		for (int i = 0; i < 8; i++)
			assert_int_equal(v->members[i], 8 + i);
		assert_true(fabs(v->ratio - 0.8) < 0.03);
		if (topo) {
			assert_string_equal(v->group, "leaf1");
			assert_string_equal(v->scope, "cross");
		} else {
			assert_non_null(strstr(v->reason,
					       "these nodes share a fault: likely their switch"));
		}
		assert_int_equal(lp_sweep_exit_code(&r), 1);
		lp_sweep_run_free(&r);
	}
	/* bad data for a switch: the same cells healthy; a slow node under the leaf is its own */
	make_run(&r, 32, 1, 0.03, 0, NULL, NULL, 11);
	give_topology(&r, topo32());
	assert_int_equal(lp_sweep_diagnose(&r), 0);
	assert_int_equal(names(&r), 0);
	lp_sweep_run_free(&r);
	lf.slow_node = 12;
	make_run(&r, 32, 1, 0.03, 0, leaf_cross, &lf, 12);
	give_topology(&r, topo32());
	assert_int_equal(lp_sweep_diagnose(&r), 0);
	assert_int_equal(count_kind(&r, LP_VERDICT_SWITCH_SLOW), 1);
	v = find_kind(&r, LP_VERDICT_NODE_SLOW);
	assert_non_null(v);
	assert_int_equal(v->a, 12);
	assert_int_equal(names(&r), 2);
	lp_sweep_run_free(&r);
}

struct path_fault {
	int l1, l2;
	double f;
};

static double path(int a, int b, const void *arg)
{
	const struct path_fault *p = arg;
	int la = a / 8, lb = b / 8;

	return (la == p->l1 && lb == p->l2) || (la == p->l2 && lb == p->l1) ? p->f : 1;
}

/* The path between two leaves at 0.7x both ways: one uplink_slow "leaf0<->leaf2", scope pair. */
static void test_path(void **state)
{
	struct path_fault p = { 0, 2, 0.7 };
	struct lp_sweep_run r;
	const struct lp_verdict *v;

	(void)state;
	make_run(&r, 32, 1, 0.03, 0, path, &p, 21);
	give_topology(&r, topo32());
	assert_int_equal(lp_sweep_diagnose(&r), 0);
	v = find_kind(&r, LP_VERDICT_UPLINK_SLOW);
	assert_non_null(v);
	assert_int_equal(names(&r), 1);
	assert_string_equal(v->group, "leaf0<->leaf2");
	assert_string_equal(v->scope, "pair");
	assert_true(fabs(v->ratio - 0.7) < 0.03);
	lp_sweep_run_free(&r);
}

/* A quarter of leaf2's flows out, hashed onto a bad uplink, at 0.5x (64 nodes, leaves of 16). */
static double ecmp(int a, int b, const void *arg)
{
	(void)arg;
	if (a / 16 != 2 || b / 16 == 2)
		return 1;
	return ((unsigned)(a * 2654435761u + b * 40503u) >> 7) % 4 == 0 ? 0.5 : 1;
}

/*
 * The case: a degraded uplink carrying a quarter of a leaf's flows at
 * 0.5x gave 338 link_slow verdicts. With the topology: one uplink_slow naming
 * leaf2, partial, scope out, a quarter of its cells; no link, no node.
 */
static void test_uplink_partial(void **state)
{
	char text[2048] = "";
	struct lp_sweep_run r;
	const struct lp_verdict *v;

	(void)state;
	for (int i = 0; i < 64; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "n%d leaf%d\n", i,
			 i / 16);
	make_run(&r, 64, 1, 0.05, 0.005, ecmp, NULL, 31);
	give_topology(&r, text);
	assert_int_equal(lp_sweep_diagnose(&r), 0);
	v = find_kind(&r, LP_VERDICT_UPLINK_SLOW);
	assert_non_null(v);
	assert_int_equal(names(&r), 1);
	assert_string_equal(v->group, "leaf2");
	assert_string_equal(v->scope, "out");
	assert_true(v->partial);
	assert_true(v->frac > 0.15 && v->frac < 0.35);
	assert_true(fabs(v->ratio - 0.5) < 0.05);
	lp_sweep_run_free(&r);
}

static double rail2(int a, int b, const void *arg)
{
	(void)arg;
	(void)b;
	return a % 4 == 2 ? 0.8 : 1;
}

/* 16 nodes x 4 rails (--rails: cells within a rail): rail 2 at 0.8x is one rail_slow, its
 * 16 ranks as members; not 16 nodes slow both ways. */
static void test_rail_slow(void **state)
{
	struct lp_sweep_run r;
	const struct lp_verdict *v;

	(void)state;
	make_run(&r, 64, 4, 0.03, 0, rail2, NULL, 41);
	assert_int_equal(lp_sweep_diagnose(&r), 0);
	v = find_kind(&r, LP_VERDICT_RAIL_SLOW);
	assert_non_null(v);
	assert_int_equal(names(&r), 1);
	assert_string_equal(v->group, "rail2");
	assert_int_equal(v->nmembers, 16);
	assert_true(fabs(v->ratio - 0.8) < 0.03);
	lp_sweep_run_free(&r);
}

static double one_cell(int a, int b, const void *arg)
{
	(void)arg;
	return a == 3 && b == 9 ? 0.5 : 1;
}

/*
 * One cell at 0.5x in its one attempt: unconfirmed (its own kind, its cell
 * class "unconfirmed" in the document), with lp-rdma between the two as the
 * command that settles it, exit 3; no link named until retests agree.
 */
static void test_unconfirmed(void **state)
{
	struct lp_sweep_run r;
	const struct lp_verdict *v;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	make_run(&r, 16, 1, 0.03, 0, one_cell, NULL, 51);
	assert_int_equal(lp_sweep_diagnose(&r), 0);
	v = find_kind(&r, LP_VERDICT_UNCONFIRMED);
	assert_non_null(v);
	assert_int_equal(names(&r), 0);
	assert_true(v->a == 3 && v->b == 9 && v->dirs == LP_DIR_XY);
	assert_non_null(strstr(v->settle, "on n9: lp-rdma --server"));
	assert_non_null(strstr(v->settle, "lp-rdma n9 -t write_bw -s 1048576"));
	assert_int_equal(lp_sweep_exit_code(&r), LP_SWEEP_EXIT_INCONCLUSIVE);
	f = open_memstream(&buf, &len);
	assert_int_equal(lp_sweep_write_json(&r, f, lp_sweep_exit_code(&r)), 0);
	fclose(f);
	assert_true(lp_test_json_valid(buf));
	assert_non_null(strstr(buf, "\"unconfirmed\""));
	assert_non_null(strstr(buf, "\"settle\""));
	assert_non_null(strstr(buf, "\"fp_rate\": 0.01"));
	free(buf);
	lp_sweep_run_free(&r);
}

/* The noise's E[s^2] / sigma^2 over healthy Gaussian n x n matrices. */
static double scale_ratio(int n, int runs, uint64_t seed)
{
	struct rng g = { seed };
	double *v = malloc((size_t)n * n * sizeof(double)), sum = 0, s = 0.05;
	struct lp_diag_opts o;

	lp_diag_opts_default(&o);
	for (int t = 0; t < runs; t++) {
		struct lp_diag_in in = { .n = n, .v = v, .rep_sigma = NAN };
		struct lp_diag d;

		for (int x = 0; x < n * n; x++)
			v[x] = x % (n + 1) ? 100 * exp(s * gauss(&g)) : NAN;
		assert_int_equal(lp_diag_run(&d, &in, &o), 0);
		sum += d.sigma_fit * d.sigma_fit / (s * s);
		lp_diag_free(&d);
	}
	free(v);
	return sum / runs;
}

/*
 * The noise is unbiased at odd and even N (the polish-MAD minimum gave 0.59
 * sigma^2 at N = 5, 0.80 at N = 7): E[s^2] within 6 % of sigma^2 over 600
 * matrices. The window is tight enough to catch a 10 % bias.
 */
static void test_scale_unbiased(void **state)
{
	(void)state;
	for (int n = 4; n <= 7; n++) {
		double r = scale_ratio(n, 600, 1000 + (uint64_t)n);

		if (!(r > 0.94 && r < 1.06))
			fail_msg("N = %d: E[s^2] / sigma^2 = %.3f", n, r);
		assert_false(r * 0.9 > 0.94 &&
			     r * 0.9 < 1.06); /* a 10 % low one fails the window */
	}
}

static double one_node(int a, int b, const void *arg)
{
	(void)b;
	return a == *(const int *)arg ? 0.85 : 1;
}

/*
 * Error control on healthy runs: N = 64 (8 runs) and 256 (1 run), 5 % noise,
 * 2 % of attempts blips at 0.3-0.8x, no retests: nothing named (the blips are
 * unconfirmed); the rate is stated. Bad data: the same runs with a node at
 * 0.85x name it.
 */
static void test_null_runs(void **state)
{
	static const int sizes[] = { 64, 64, 64, 64, 64, 64, 64, 64, 256 };
	int node = 5;

	(void)state;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct lp_sweep_run r;

		make_run(&r, sizes[k], 1, 0.05, 0.02, NULL, NULL, 100 + k);
		assert_int_equal(lp_sweep_diagnose(&r), 0);
		if (names(&r))
			fail_msg("healthy N = %d (seed %zu): %d name(s)", sizes[k], 100 + k,
				 names(&r));
		assert_true(r.diag[0].fp_rate == 0.01 &&
			    r.diag[0].alpha_node < 0.005 / (3 * sizes[k]));
		assert_true(count_kind(&r, LP_VERDICT_UNCONFIRMED) > 0); /* blips: stood out once */
		lp_sweep_run_free(&r);
		if (k)
			continue;
		make_run(&r, sizes[k], 1, 0.05, 0.02, one_node, &node, 100 + k);
		assert_int_equal(lp_sweep_diagnose(&r), 0);
		assert_int_equal(count_kind(&r, LP_VERDICT_NODE_SLOW), 1);
		lp_sweep_run_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_switch_slow),    cmocka_unit_test(test_path),
		cmocka_unit_test(test_uplink_partial), cmocka_unit_test(test_rail_slow),
		cmocka_unit_test(test_unconfirmed),    cmocka_unit_test(test_scale_unbiased),
		cmocka_unit_test(test_null_runs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
