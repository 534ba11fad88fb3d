// SPDX-License-Identifier: MIT
/*
 * Unit tests for sweep/model.c (the model transport's draws: every fault target,
 * determinism, transient blips, congested rounds, failures, the file's checks),
 * sweep/plantime.c (the time model: shapes against the built schedules, the
 * prediction's arithmetic) and sweep/retest.c (the planner's budget).
 */
#include "lp_test.h"

#include <errno.h>
#include <string.h>

#include "common/lp.h"
#include "sweep/model.h"
#include "sweep/plantime.h"
#include "sweep/result.h"
#include "sweep/retest.h"

static const struct lp_sweep_metric metrics[2] = {
	{ .test = "write_lat", .size = 8, .lat = true, .label = "write_lat 8B" },
	{ .test = "write_bw", .size = 1 << 20, .lat = false, .label = "write_bw 1MiB" },
};

/* A model of n ranks, bound, noise-free unless cv is given. */
static void bound(struct lp_sweep_model *m, int n)
{
	struct lp_fail why;

	if (lp_sweep_model_bind(m, n, metrics, 2, lp_fresh(&why)))
		fail_msg("bind: %s", why.msg);
}

static double draw(const struct lp_sweep_model *m, int a, int b, int metric, int attempt, int round)
{
	struct lp_sweep_model_key k = { a, b, metric, LP_PHASE_SWEEP, attempt, round };
	struct lp_fail why;
	double v = 0;

	assert_int_equal(lp_sweep_model_draw(m, &k, &v, lp_fresh(&why)), 0);
	return v;
}

static void add_fault(struct lp_sweep_model *m, enum lp_sweep_model_target t, int a, int b,
		      unsigned roles, unsigned kinds, double factor)
{
	m->faults[m->nfaults++] = (struct lp_sweep_model_fault){ .target = t,
								 .a = a,
								 .b = b,
								 .rail = -1,
								 .roles = roles,
								 .kinds = kinds,
								 .factor = factor };
}

/* Each target touches exactly its cells: bandwidth times the factor, latency divided by it. */
static void test_targets(void **state)
{
	struct lp_sweep_model m;

	(void)state;
	lp_sweep_model_init(&m);
	m.leaf_size = 4; /* nodes 0-3 leaf 0, 4-7 leaf 1, 8-11 leaf 2 */
	add_fault(&m, LP_SWEEP_MODEL_NODE, 1, 0, LP_SWEEP_MODEL_CLIENT, 3, 0.5);
	add_fault(&m, LP_SWEEP_MODEL_LINK, 2, 3, 0, 3, 0.25);
	add_fault(&m, LP_SWEEP_MODEL_UPLINK, 1, 2, 0, LP_SWEEP_MODEL_BW, 0.8);
	add_fault(&m, LP_SWEEP_MODEL_LEAF, 0, 0, 0, LP_SWEEP_MODEL_LAT, 0.5); /* latency only */
	bound(&m, 12);
	assert_true(fabs(draw(&m, 1, 2, 1, 0, 0) - 50) < 1e-9);	 /* node 1 as client */
	assert_true(fabs(draw(&m, 2, 1, 1, 0, 0) - 100) < 1e-9); /* not as server */
	assert_true(fabs(draw(&m, 2, 3, 1, 0, 0) - 25) < 1e-9);	 /* the link, one way */
	assert_true(fabs(draw(&m, 3, 2, 1, 0, 0) - 100) < 1e-9);
	assert_true(fabs(draw(&m, 5, 9, 1, 0, 0) - 80) < 1e-9); /* leaves 1 <-> 2 both ways */
	assert_true(fabs(draw(&m, 9, 5, 1, 0, 0) - 80) < 1e-9);
	assert_true(fabs(draw(&m, 5, 6, 1, 0, 0) - 100) < 1e-9); /* inside leaf 1 */
	/* leaf 0, latency only and across it: 2 us -> 4 us out of it, 2 us inside and elsewhere */
	assert_true(fabs(draw(&m, 0, 5, 0, 0, 0) - 4) < 1e-9);
	assert_true(fabs(draw(&m, 5, 0, 0, 0, 0) - 4) < 1e-9);
	assert_true(fabs(draw(&m, 0, 3, 0, 0, 0) - 2) < 1e-9);
	assert_true(fabs(draw(&m, 0, 5, 1, 0, 0) - 100) < 1e-9); /* its bandwidth untouched */
	m.faults[3].all = true;
	assert_true(fabs(draw(&m, 0, 3, 0, 0, 0) - 4) < 1e-9); /* scope all: inside too */
}

/* Rails: rank r is node r / rails on rail r % rails; a rail fault touches its rail only. */
static void test_rails(void **state)
{
	struct lp_sweep_model m;
	char name[80];

	(void)state;
	lp_sweep_model_init(&m);
	m.rails = 4;
	add_fault(&m, LP_SWEEP_MODEL_RAIL, 2, 0, 0, 3, 0.5);
	add_fault(&m, LP_SWEEP_MODEL_NODE, 3, 0, 3, 3, 0.5);
	m.faults[1].rail = 1; /* node 3, rail 1 only */
	bound(&m, 16);
	lp_sweep_model_name(&m, 13, name, sizeof(name));
	assert_string_equal(name, "n3/1");
	assert_int_equal(lp_sweep_model_rail(&m, 13), 1);
	assert_true(fabs(draw(&m, 2, 6, 1, 0, 0) - 50) < 1e-9);	  /* rail 2 */
	assert_true(fabs(draw(&m, 1, 5, 1, 0, 0) - 100) < 1e-9);  /* rail 1, nodes 0 and 1 */
	assert_true(fabs(draw(&m, 13, 1, 1, 0, 0) - 50) < 1e-9);  /* node 3 rail 1 */
	assert_true(fabs(draw(&m, 12, 0, 1, 0, 0) - 100) < 1e-9); /* node 3 rail 0 */
}

/* A draw is a pure function of (seed, cell, attempt): the same anywhere, a new attempt new. */
static void test_determinism(void **state)
{
	struct lp_sweep_model m, m2;
	double v, w;

	(void)state;
	lp_sweep_model_init(&m);
	m.cv = 0.05;
	m.seed = 7;
	bound(&m, 64);
	m2 = m;
	v = draw(&m, 3, 40, 1, 0, 5);
	assert_true(v != 100);
	assert_true(v == draw(&m2, 3, 40, 1, 0, 5));
	assert_true(v == draw(&m, 3, 40, 1, 0, 17)); /* the round moves congestion only */
	w = draw(&m, 3, 40, 1, 1, 0);		     /* a retest draws anew */
	assert_true(w != v);
	m2.seed = 8;
	assert_true(draw(&m2, 3, 40, 1, 0, 5) != v);
}

/* The noise has the CV asked for (log scale), Student-t too; blips hit about their rate. */
static void test_noise_and_blips(void **state)
{
	struct lp_sweep_model m;
	int n = 64, blips = 0;
	double s = 0, s2 = 0, k;

	(void)state;
	for (int tail = 0; tail < 2; tail++) {
		lp_sweep_model_init(&m);
		m.cv = 0.05;
		m.tail = tail ? LP_SWEEP_MODEL_STUDENT : LP_SWEEP_MODEL_GAUSS;
		m.df = 5;
		bound(&m, n);
		s = s2 = 0;
		for (int a = 0; a < n; a++)
			for (int b = 0; b < n; b++) {
				double l = log(draw(&m, a, b, 1, 0, 0) / 100);

				s += l;
				s2 += l * l;
			}
		k = sqrt(s2 / (n * n) - (s / (n * n)) * (s / (n * n)));
		if (fabs(k - log(1.05)) > 0.004)
			fail_msg("tail %d: sigma %.4f, want %.4f", tail, k, log(1.05));
	}
	lp_sweep_model_init(&m);
	m.blip_rate = 0.1;
	m.blip_lo = m.blip_hi = 0.5;
	bound(&m, n);
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++)
			blips += draw(&m, a, b, 1, 0, 0) < 60;
	assert_in_range(blips, 300, 520); /* 410 expected of 4,096 */
}

/* A congested round slows every cell in it; a failed fault fails every attempt. */
static void test_congestion_and_failure(void **state)
{
	struct lp_sweep_model m;
	struct lp_sweep_model_key k = { 0, 1, 1, LP_PHASE_SWEEP, 0, 0 };
	struct lp_fail why;
	double v;

	(void)state;
	lp_sweep_model_init(&m);
	m.ncong = 1;
	m.cong_rounds[0] = 3;
	m.cong_factor = 0.5;
	add_fault(&m, LP_SWEEP_MODEL_NODE, 5, 0, 3, 3, 0);
	bound(&m, 8);
	assert_true(fabs(draw(&m, 0, 1, 1, 0, 3) - 50) < 1e-9);
	assert_true(fabs(draw(&m, 0, 1, 1, 0, 2) - 100) < 1e-9);
	assert_true(fabs(draw(&m, 0, 1, 1, 1, 3) - 100) < 1e-9); /* a retest of it is not */
	k.b = 5;
	assert_int_equal(lp_sweep_model_draw(&m, &k, &v, lp_fresh(&why)), -EIO);
	assert_non_null(strstr(why.msg, "fault 0"));
	k.b = 9;
	assert_int_equal(lp_sweep_model_draw(&m, &k, &v, lp_fresh(&why)), -EINVAL);
}

static int parse(struct lp_sweep_model *m, const char *text, struct lp_fail *why)
{
	lp_sweep_model_init(m);
	return lp_sweep_model_parse(m, text, strlen(text), lp_fresh(why));
}

/* The file: every key checked, node names resolved when bound, the node count checked. */
static void test_file(void **state)
{
	static const struct {
		const char *text, *why; /* why: a part of the reason; NULL = accepted */
	} cases[] = {
		{ "{\"schema\": \"linkperf.model/1\", \"seed\": 3, \"names\": \"gpu%03d\", "
		  "\"leaf_size\": 4, \"base\": {\"lat_us\": 1.5, \"write_bw 1MiB\": 390}, "
		  "\"noise\": {\"cv\": 0.03, \"tail\": \"t\", \"df\": 4}, \"blips\": {\"rate\": 0.01, "
		  "\"factor\": [0.3, 0.8]}, \"congested\": {\"rate\": 0.01, \"rounds\": [2]}, "
		  "\"time\": {\"test_ms\": 2}, \"faults\": [{\"node\": \"gpu005\", \"role\": "
		  "\"server\", \"factor\": 0.8}, {\"link\": [1, \"gpu002\"], \"factor\": 0.5, "
		  "\"metrics\": \"lat\"}, {\"leaf\": 1, \"factor\": 0.9, \"scope\": \"all\"}, "
		  "{\"uplink\": [0, 1], \"factor\": 0.5}, {\"node\": 7, \"fail\": true}]}",
		  NULL },
		{ "{\"schema\": \"linkperf.model/1\", \"nosie\": {}}", "unknown key \"nosie\"" },
		{ "{\"schema\": \"linkperf.sweep/1\"}", "not a model" },
		{ "[1, 2", "not JSON" },
		{ "{\"schema\": \"linkperf.model/1\", \"noise\": {\"cv\": -1}}", "noise.cv" },
		{ "{\"schema\": \"linkperf.model/1\", \"names\": \"n%s\"}", "names" },
		{ "{\"schema\": \"linkperf.model/1\", \"faults\": [{\"factor\": 0.5}]}",
		  "one of node, link" },
		{ "{\"schema\": \"linkperf.model/1\", \"faults\": [{\"node\": 1, \"leaf\": 0, "
		  "\"factor\": 0.5}]}",
		  "one of node, link" },
		{ "{\"schema\": \"linkperf.model/1\", \"faults\": [{\"node\": 1}]}", "a factor" },
		{ "{\"schema\": \"linkperf.model/1\", \"faults\": [{\"leaf\": \"x\", \"factor\": 1}]}",
		  "faults[0].leaf" },
		{ "{\"schema\": \"linkperf.model/1\", \"blips\": {\"factor\": [0.8, 0.3]}}",
		  "blips.factor" },
	};
	struct lp_sweep_model m;
	struct lp_fail why;

	(void)state;
	for (size_t i = 0; i < LP_ARRAY_SIZE(cases); i++) {
		int rc = parse(&m, cases[i].text, &why);

		if (!cases[i].why && rc)
			fail_msg("case %zu refused: %s", i, why.msg);
		if (cases[i].why && (rc != -EINVAL || !strstr(why.msg, cases[i].why)))
			fail_msg("case %zu: rc %d, \"%s\", want \"%s\"", i, rc, why.msg,
				 cases[i].why);
	}
	assert_int_equal(parse(&m, cases[0].text, &why), 0);
	bound(&m, 8);
	assert_int_equal(m.faults[0].a, 5);
	assert_int_equal(m.faults[1].b, 2);
	assert_true(fabs(m.mbase[0] - 1.5) < 1e-9 && fabs(m.mbase[1] - 390) < 1e-9);
	assert_true(fabs(m.test_s - 0.002) < 1e-12);
	/* a name no node has, and a node count the job does not have */
	assert_int_equal(parse(&m,
			       "{\"schema\": \"linkperf.model/1\", \"faults\": [{\"node\": "
			       "\"n9\", \"factor\": 0.5}]}",
			       &why),
			 0);
	assert_int_equal(lp_sweep_model_bind(&m, 8, metrics, 2, lp_fresh(&why)), -EINVAL);
	assert_non_null(strstr(why.msg, "no node \"n9\""));
	assert_int_equal(parse(&m, "{\"schema\": \"linkperf.model/1\", \"nodes\": 16}", &why), 0);
	assert_int_equal(lp_sweep_model_bind(&m, 8, metrics, 2, lp_fresh(&why)), -EINVAL);
	assert_int_equal(parse(&m, "{\"schema\": \"linkperf.model/1\", \"rails\": 4}", &why), 0);
	assert_int_equal(lp_sweep_model_bind(&m, 10, metrics, 2, lp_fresh(&why)), -EINVAL);
}

/* The time model's closed forms agree with the schedules sched.c builds. */
static void test_shapes(void **state)
{
	const enum lp_sched_kind kinds[] = { LP_SCHED_ROUND_ROBIN, LP_SCHED_ISOLATED, LP_SCHED_RING,
					     LP_SCHED_RANDOM };

	(void)state;
	for (size_t k = 0; k < LP_ARRAY_SIZE(kinds); k++)
		for (int n = 2; n <= 41; n++) {
			struct lp_sweep_shape a, b;
			struct lp_sched s;

			assert_int_equal(lp_sweep_shape_of(&a, kinds[k], n, 1, 3, 9), 0);
			assert_int_equal(lp_sched_build(&s, kinds[k], n, 3, 9), 0);
			lp_sweep_shape_from(&b, &s, n);
			if (a.rounds != b.rounds || a.pairs != b.pairs || a.dirs != b.dirs)
				fail_msg("%s n=%d: %zu rounds %zu pairs %u dirs, built %zu %zu %u",
					 lp_sched_names[kinds[k]], n, a.rounds, a.pairs, a.dirs,
					 b.rounds, b.pairs, b.dirs);
			lp_sched_free(&s);
		}
}

/* The prediction is the formula of plantime.h, term by term. */
static void test_predict(void **state)
{
	struct lp_sweep_costs c = { .name = "t",
				    .source = "test",
				    .start_s = 10,
				    .round_s = 0.001,
				    .round_rank_s = 0.0001,
				    .cell_s = 0.00001,
				    .session_s = 0.01,
				    .lat_us = 1,
				    .gbps = 400 };
	struct lp_rdma_params p[2];
	struct lp_sweep_prediction pr;
	struct lp_sweep_shape sh;
	double lat, bw;

	(void)state;
	lp_rdma_params_default(&p[0], LP_RDMA_WRITE_LAT);
	lp_rdma_params_default(&p[1], LP_RDMA_WRITE_BW);
	p[1].size = 1 << 20;
	lat = 0.01 + (double)(p[0].warmup + p[0].iters) * 2 * (1e-6 + p[0].size * 8 / 400e9);
	bw = 0.01 + (double)(p[1].warmup + p[1].iters) * (1 << 20) * 8 / 400e9;
	assert_int_equal(lp_sweep_shape_of(&sh, LP_SCHED_ROUND_ROBIN, 64, 8, 0, 0), 0);
	assert_int_equal(sh.rounds, 63);
	assert_int_equal(sh.pairs, 8 * 64 * 63);
	lp_sweep_predict(&sh, p, 2, 0, &c, &(struct lp_sweep_retest_policy){ 32, 2, 3, 0, 0 }, 60,
			 NULL, &pr);
	assert_true(fabs(pr.test_s[0] - lat) < 1e-12 && fabs(pr.test_s[1] - bw) < 1e-12);
	assert_true(fabs(pr.harness_s - (0.001 + 0.0001 * 512 + 0.00001 * 512 * 2)) < 1e-12);
	assert_true(fabs(pr.sweep_s - 63 * (2 * (lat + bw) + pr.harness_s)) < 1e-9);
	assert_true(fabs(pr.retest_s - 96 * (lat + bw + pr.harness_s)) < 1e-9);
	assert_true(fabs(pr.total_s - (10 + pr.sweep_s)) < 1e-9);
	assert_true(fabs(pr.worst_s - (10 + (63 * 2 + 96) * 2 * 60.0)) < 1e-6);
	assert_int_equal(pr.slurm_min, (int)ceil(((pr.total_s + pr.retest_s) * 1.2 + 120) / 60));
	c.test_s = 0.5; /* the model: every test its time */
	assert_true(fabs(lp_sweep_time_test(&p[1], &c) - 0.51) < 1e-12);
}

/*
 * A 16-node run of m's bandwidth metric at 2 % noise (m's faults, and the cells
 * slow[i] slowed by ratio[i] on top), each cell 1 s, diagnosed.
 */
static void model_run(struct lp_sweep_run *r, struct lp_sweep_model *m, const int (*slow)[2],
		      const double *ratio, int ns)
{
	int n = 16;

	assert_int_equal(lp_sweep_run_init(r, n), 0);
	lp_sweep_add_metric(r, "write_bw", 3, false, 1 << 20);
	m->cv = 0.02;
	bound(m, n);
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++) {
			struct lp_sweep_cell c;

			if (a == b)
				continue;
			lp_sweep_cell_init(&c, 0, a, b, LP_PHASE_SWEEP, 0);
			c.value = draw(m, a, b, 1, 0, 0); /* the bandwidth metric */
			c.wall_s = 1;
			for (int i = 0; i < ns; i++)
				if (slow[i][0] == a && slow[i][1] == b)
					c.value *= ratio[i];
			assert_int_equal(lp_sweep_add_cell(r, &c), 0);
		}
	assert_int_equal(lp_sweep_diagnose(r), 0);
}

/* The planner: nothing past its rounds or without a budget; never more pairs than the budget. */
static void test_planner(void **state)
{
	struct lp_sweep_retest_policy pol;
	struct lp_sweep_model m;
	struct lp_sweep_run r;
	int32_t *pairs;
	size_t np;

	(void)state;
	lp_sweep_retest_policy_default(&pol);
	assert_int_equal(pol.max_pairs, LP_SWEEP_RETEST_MAX);
	lp_sweep_model_init(&m);
	add_fault(&m, LP_SWEEP_MODEL_LINK, 2, 9, 0, 3, 0.5);
	add_fault(&m, LP_SWEEP_MODEL_NODE, 4, 0, 3, 3, 0.7);
	model_run(&r, &m, NULL, NULL, 0);
	assert_int_equal(lp_sweep_retest_plan(&r, &pol, 0, &pairs, &np), 0);
	assert_in_range(np, 1, (size_t)pol.max_pairs);
	free(pairs);
	pol.max_pairs = 2;
	assert_int_equal(lp_sweep_retest_plan(&r, &pol, 0, &pairs, &np), 0);
	assert_int_equal(np, 2);
	free(pairs);
	assert_int_equal(lp_sweep_retest_plan(&r, &pol, pol.rounds, &pairs, &np), 0);
	assert_int_equal(np, 0);
	free(pairs);
	pol.max_pairs = 0;
	assert_int_equal(lp_sweep_retest_plan(&r, &pol, 0, &pairs, &np), 0);
	assert_int_equal(np, 0);
	assert_null(pairs);
	lp_sweep_run_free(&r);
}

/* Where pair a -> b comes in the plan (np: not there). */
static size_t rank_of(const int32_t *pairs, size_t np, int a, int b)
{
	for (size_t i = 0; i < np; i++)
		if (pairs[2 * i] == a && pairs[2 * i + 1] == b)
			return i;
	return np;
}

/*
 * The ranked planner: a pair slow both ways comes before a lone cell a little
 * slower (two transients are rarer than one; the old order put the lone cell
 * first), and
 * its first round takes more first looks than the old 2/3 share while
 * keeping the time their later retests need.
 */
static void test_planner_ranked(void **state)
{
	static const int slow[][2] = { { 2, 9 },  { 9, 2 },  { 5, 11 },	 { 1, 3 },   { 3, 7 },
				       { 4, 6 },  { 6, 8 },  { 8, 10 },	 { 10, 12 }, { 12, 14 },
				       { 14, 0 }, { 0, 13 }, { 13, 15 }, { 15, 1 } };
	double ratio[14] = { 0.75, 0.8, 0.73 };
	struct lp_retest_plan p = { .per_node = 2, .rounds = 3 };
	struct lp_sweep_model m;
	struct lp_sweep_run r;
	int32_t pairs[64];
	size_t np;

	(void)state;
	for (int i = 3; i < 14; i++)
		ratio[i] = 0.6 + 0.01 * i;
	lp_sweep_model_init(&m);
	model_run(&r, &m, slow, ratio, 14);
	np = lp_sweep_suspects(&r, &p, pairs, 32);
	assert_int_equal(p.suspects, 14);
	assert_int_equal(np, 14); /* no budget in time: every suspect */
	assert_true(rank_of(pairs, np, 2, 9) < rank_of(pairs, np, 5, 11));
	p.order = LP_RETEST_SHARE;
	np = lp_sweep_suspects(&r, &p, pairs, 32);
	assert_true(rank_of(pairs, np, 5, 11) < rank_of(pairs, np, 2, 9));
	/* 10 pairs of time over 3 rounds: the old share 6, ranked 10 / (1 + 2 survive) */
	p.time_s = 10;
	assert_int_equal(lp_sweep_suspects(&r, &p, pairs, 32), 6);
	p.order = LP_RETEST_RANKED;
	np = lp_sweep_suspects(&r, &p, pairs, 32);
	assert_true(p.survive > 0.02 && p.survive < 0.2);
	assert_int_equal(np, (size_t)(10 / (1 + 2 * p.survive)));
	assert_true(np > 6 && np < 10);
	p.round = 2; /* the last round: all the time left */
	assert_int_equal(lp_sweep_suspects(&r, &p, pairs, 32), 10);
	lp_sweep_run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_rails),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_noise_and_blips),
		cmocka_unit_test(test_congestion_and_failure),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_predict),
		cmocka_unit_test(test_planner),
		cmocka_unit_test(test_planner_ranked),
#ifdef LP_HAVE_JANSSON
		cmocka_unit_test(test_file),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
