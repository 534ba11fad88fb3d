// SPDX-License-Identifier: MIT
/*
 * The option groups lp-rdma and lp-sweep share (rdma/opts.h), parsed as a tool's command:
 * -s and -n reach every kind of test that has no own list or count, a tool's default for one
 * kind never hides -s, -a is 2 B to 8 MiB and cannot be given with -s, a duration with
 * iterations is refused; -T and -S are the traffic class and service level; --gpu implies GPU
 * memory and must agree with --mem; the plan then builds the runs those options describe.
 */
#include "lp_test.h"

#include <errno.h>

#include "common/lp.h"
#include "rdma/opts.h"

struct tool {
	struct lp_rdma_plan_opts plan;
	struct lp_rdma_devsel dev;
	struct lp_rdma_memsel mem;
	struct lp_rdma_perftest_opts perftest;
};

static const struct lp_opt_group groups[] = {
	{ "test plan", lp_rdma_plan_opt_rows, offsetof(struct tool, plan) },
	{ "tuning", lp_rdma_tune_opt_rows, offsetof(struct tool, plan) },
	{ "device", lp_rdma_dev_opt_rows, offsetof(struct tool, dev) },
	{ "memory", lp_rdma_mem_opt_rows, offsetof(struct tool, mem) },
	{ "perftest", lp_rdma_perftest_opt_rows, offsetof(struct tool, perftest) },
	{ 0 },
};

/* A tool with lp-sweep's defaults per kind, and one without (lp-rdma's come from the plan). */
static const struct lp_opt_cmd sweep_like = {
	.synopsis = "t",
	.groups = groups,
	.defaults = (const char *const[]){ "lat-sizes=8", "bw-sizes=1M", NULL },
};
static const struct lp_opt_cmd rdma_like = { .synopsis = "t", .groups = groups };

/* Parse the NULL-ended words after "t" and resolve; 0 or -EINVAL. */
static int parse(const struct lp_opt_cmd *cmd, struct tool *t, const char *const *words)
{
	const char *argv[32] = { "t" };
	struct lp_fail why;
	int argc = 1, npos, ret;
	bool help;

	memset(t, 0, sizeof(*t));
	t->dev.gid_index = -1;
	lp_rdma_plan_init(&t->plan.plan);
	while (words[argc - 1])
		argv[argc] = words[argc - 1], argc++;
	ret = lp_opt_parse(cmd, t, argc, (char **)argv, NULL, &npos, &help);
	if (!ret && lp_rdma_memsel_resolve(&t->mem, lp_fresh(&why)))
		ret = -EINVAL;
	if (!ret && lp_rdma_plan_opts_resolve(&t->plan, lp_fresh(&why)))
		ret = -EINVAL;
	return ret;
}

#define PARSE(cmd, t, ...) parse(cmd, t, (const char *const[]){ __VA_ARGS__, NULL })
#define LAT(t)		   (t)->plan.plan.sizes[LP_PLAN_LAT]
#define BW(t)		   (t)->plan.plan.sizes[LP_PLAN_BW]

static void test_sizes(void **state)
{
	struct tool t;

	(void)state;
	assert_int_equal(PARSE(&sweep_like, &t, "-t", "write_lat"), 0);
	assert_true(LAT(&t).n == 1 && LAT(&t).v[0] == 8 && BW(&t).v[0] == 1 << 20);
	/* -s reaches both kinds: the tool's default of a kind does not hide it */
	assert_int_equal(PARSE(&sweep_like, &t, "-s", "4K"), 0);
	assert_true(LAT(&t).v[0] == 4096 && BW(&t).v[0] == 4096);
	/* a kind's own list wins over -s */
	assert_int_equal(PARSE(&sweep_like, &t, "--lat-sizes", "16", "-s", "64K"), 0);
	assert_true(LAT(&t).v[0] == 16 && BW(&t).v[0] == 65536);
	assert_int_equal(PARSE(&rdma_like, &t, "--bw-sizes", "2:8"), 0);
	assert_true(LAT(&t).n == 0 && BW(&t).n == 3); /* latency: the plan's default */
	/* -a: perftest's every size, 2 B to 8 MiB */
	assert_int_equal(PARSE(&rdma_like, &t, "-a"), 0);
	assert_true(LAT(&t).n == 23 && LAT(&t).v[0] == 2 && BW(&t).v[22] == 8 << 20);
	lp_log_set_level(LP_LOG_QUIET);
	assert_int_equal(PARSE(&rdma_like, &t, "-a", "-s", "64"), -EINVAL);
	lp_log_set_level(LP_LOG_WARN);
}

static void test_iters(void **state)
{
	struct lp_rdma_params runs[8];
	struct lp_fail why;
	struct tool t;
	int n;

	(void)state;
	assert_int_equal(PARSE(&rdma_like, &t, "-n", "10", "--bw-iters", "20"), 0);
	assert_true(t.plan.plan.iters_set[LP_PLAN_LAT] && t.plan.plan.iters[LP_PLAN_LAT] == 10);
	assert_true(t.plan.plan.iters_set[LP_PLAN_BW] && t.plan.plan.iters[LP_PLAN_BW] == 20);
	assert_int_equal(lp_rdma_plan_build(&t.plan.plan, runs, 8, &n, lp_fresh(&why)), 0);
	assert_int_equal(n, 2);
	assert_true(runs[0].test == LP_RDMA_WRITE_LAT && runs[0].iters == 10 && runs[0].size == 2);
	assert_true(runs[1].test == LP_RDMA_WRITE_BW && runs[1].iters == 20 &&
		    runs[1].size == 65536);
	/* nothing given: the plan's own defaults (1000 / 5000) */
	assert_int_equal(PARSE(&rdma_like, &t, "-D", "2"), 0);
	assert_false(t.plan.plan.iters_set[LP_PLAN_LAT] || t.plan.plan.iters_set[LP_PLAN_BW]);
	assert_int_equal(t.plan.plan.base.timeout_ms, 10000);
	lp_log_set_level(LP_LOG_QUIET);
	assert_int_equal(PARSE(&rdma_like, &t, "-D", "2", "-n", "5"), -EINVAL);
	assert_int_equal(PARSE(&rdma_like, &t, "-D", "86401"), -EINVAL);
	lp_log_set_level(LP_LOG_WARN);
}

static void test_device_and_perftest(void **state)
{
	struct tool t;

	(void)state;
	assert_int_equal(PARSE(&rdma_like, &t, "-T", "106", "-S", "3", "-x", "1", "-d", "mlx5_2",
			       "-c", "RC", "-F", "-q", "4", "--tx-depth", "32"),
			 0);
	assert_true(t.dev.tclass == 106 && t.dev.sl == 3 && t.dev.gid_index == 1);
	assert_true(t.dev.tclass_set && lp_rdma_devsel_tclass(&t.dev) == 106);
	assert_string_equal(t.dev.dev, "mlx5_2");
	assert_true(t.plan.plan.base.num_qps == 4 && t.plan.plan.tx_depth == 32 &&
		    t.plan.plan.tx_depth_set && t.perftest.cpu_freq);
	assert_int_equal(PARSE(&rdma_like, &t, "-t", "read_bw"), 0);
	assert_false(t.dev.tclass_set); /* not given: the device's class */
	assert_int_equal(lp_rdma_devsel_tclass(&t.dev), -1);
	/* --tclass 0 is class 0 (the verbs default, lossy where PFC is on another), not "unset" */
	assert_int_equal(PARSE(&rdma_like, &t, "--tclass", "0"), 0);
	assert_true(t.dev.tclass_set && lp_rdma_devsel_tclass(&t.dev) == 0);
	assert_int_equal(t.dev.sl, 0);
	assert_int_equal(t.dev.qp_timeout, LP_RDMA_QP_TIMEOUT_DEFAULT); /* the row's default */
	assert_int_equal(PARSE(&rdma_like, &t, "-u", "18"), 0); /* perftest's -u: the ACK timeout */
	assert_int_equal(t.dev.qp_timeout, 18);
	lp_log_set_level(LP_LOG_QUIET);
	assert_int_equal(PARSE(&rdma_like, &t, "-u", "0"), -EINVAL);
	assert_int_equal(PARSE(&rdma_like, &t, "--qp-timeout", "32"), -EINVAL);
	assert_int_equal(PARSE(&rdma_like, &t, "-T", "256"), -EINVAL);
	assert_int_equal(PARSE(&rdma_like, &t, "-t", "128"), -EINVAL);
	assert_non_null(strstr(lp_err_last(), "perftest's -t (tx depth) is --tx-depth here"));
	assert_int_equal(PARSE(&rdma_like, &t, "-c", "UD"), -EINVAL);
	assert_int_equal(PARSE(&rdma_like, &t, "-w", "10"), -EINVAL);
	assert_non_null(strstr(lp_err_last(), "--warmup"));
	assert_int_equal(PARSE(&rdma_like, &t, "--seed", "1"), -EINVAL);
	lp_log_set_level(LP_LOG_WARN);
}

static void test_memory(void **state)
{
	struct tool t;

	(void)state;
	assert_int_equal(PARSE(&rdma_like, &t, "-t", "write_lat"), 0);
	assert_true(t.mem.kind == LP_MEM_HOST && t.mem.dev == -1);
	assert_int_equal(PARSE(&rdma_like, &t, "--gpu", "2"), 0);
	assert_true(t.mem.kind == LP_MEM_CUDA && t.mem.dev == 2 && !t.mem.gpu_auto);
	assert_int_equal(PARSE(&rdma_like, &t, "--gpu", "auto"), 0);
	assert_true(t.mem.kind == LP_MEM_CUDA && t.mem.gpu_auto);
	assert_int_equal(PARSE(&rdma_like, &t, "--mem", "cuda:1", "--gpu", "1"), 0);
	lp_log_set_level(LP_LOG_QUIET);
	assert_int_equal(PARSE(&rdma_like, &t, "--mem", "cuda:1", "--gpu", "2"), -EINVAL);
	assert_int_equal(PARSE(&rdma_like, &t, "--mem", "host", "--gpu", "0"), -EINVAL);
	assert_int_equal(PARSE(&rdma_like, &t, "--gpu", "x"), -EINVAL);
	assert_int_equal(PARSE(&rdma_like, &t, "--mem", "gpu"), -EINVAL);
	lp_log_set_level(LP_LOG_WARN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_iters),
		cmocka_unit_test(test_device_and_perftest),
		cmocka_unit_test(test_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
