/* SPDX-License-Identifier: MIT */
/*
 * The option groups lp-rdma and lp-sweep share (common/opt.h): one static row
 * per option, so the two tools spell and bound each option the same way.
 *
 *   lp_rdma_plan_opt_rows    what to measure: tests, sizes, iterations, duration, warm-up,
 *                            tx depth, timeout, clock           (struct lp_rdma_plan_opts)
 *   lp_rdma_tune_opt_rows    lp-rdma's per-run tuning: QPs, post list, inline, MTU,
 *                            bidirectional, rdma_cm, verification, data seed (same struct)
 *   lp_rdma_dev_opt_rows     which device and port, GID, traffic class, service level
 *                                                               (struct lp_rdma_devsel)
 *   lp_rdma_mem_opt_rows     host or GPU memory, which GPU     (struct lp_rdma_memsel)
 *   lp_rdma_perftest_opt_rows  perftest's letters that mean nothing else here: accepted
 *                            where linkperf does the same (-c RC, -F), else refused with
 *                            linkperf's spelling                (struct lp_rdma_perftest_opts)
 *   lp_rdma_tune_refuse_rows   the tuning letters refused by a tool without them (lp-sweep)
 *
 * perftest's letters (linux-rdma/perftest src/perftest_parameters.c, getopt string
 * "w:y:p:d:i:m:s:n:t:u:S:x:c:q:I:o:M:r:Q:A:l:D:f:B:T:L:E:J:j:K:k:X:W:aFegzRvhbNVCHUOZP" and G, Y):
 * each means the same here or is refused with one line; docs/METHOD.md lists them.
 */
#ifndef LP_RDMA_OPTS_H
#define LP_RDMA_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/opt.h"
#include "rdma/plan.h"

/* The plan as options give it; lp_rdma_plan_opts_resolve() completes plan. */
struct lp_rdma_plan_opts {
	struct lp_rdma_plan plan;
	struct lp_sizes sizes; /* -s: every kind of test without its own list */
	bool sizes_set, lat_sizes_set, bw_sizes_set, all_sizes;
	uint64_t iters; /* -n: every kind without its own count */
	bool iters_set;
	double timeout_s; /* no progress for this long fails a test */
	const char *clock;
	int lat_method; /* index in lp_rdma_lat_method_names */
};

/* Memory as the options name it; lp_rdma_memsel_resolve() sets kind and dev. */
struct lp_rdma_memsel {
	const char *mem; /* "host", "cuda", "cuda:N"; NULL: host, or cuda when gpu is given */
	const char *gpu; /* "N" or "auto"; NULL: none */
	int kind;	 /* enum lp_mem_kind */
	int dev;	 /* CUDA ordinal; -1: the default (or auto when gpu_auto) */
	bool gpu_auto;
};

/* perftest's letters that linkperf takes with perftest's meaning (and no other effect). */
struct lp_rdma_perftest_opts {
	int connection; /* -c: RC, the only transport measured */
	bool cpu_freq;	/* -F: linkperf never fails on the frequency governor */
};

extern const struct lp_opt lp_rdma_plan_opt_rows[];
extern const struct lp_opt lp_rdma_tune_opt_rows[];
extern const struct lp_opt lp_rdma_tune_refuse_rows[];
extern const struct lp_opt lp_rdma_dev_opt_rows[];
extern const struct lp_opt lp_rdma_mem_opt_rows[];
extern const struct lp_opt lp_rdma_perftest_opt_rows[];
extern const char *const lp_rdma_lat_method_names[]; /* "poll", "imm" */

/*
 * The plan from its options: -a and -s into each kind without its own list,
 * -n into each kind without its own count, the timeout and the latency method
 * into every run, the clock chosen (lp_clock_init). 0, or -EINVAL with the
 * cause in f.
 */
int lp_rdma_plan_opts_resolve(struct lp_rdma_plan_opts *po, struct lp_fail *f);

/*
 * --mem and --gpu into kind and dev: --gpu alone means GPU memory, a host
 * --mem with --gpu and two different GPUs are errors. 0 or -EINVAL with the
 * cause in f.
 */
int lp_rdma_memsel_resolve(struct lp_rdma_memsel *m, struct lp_fail *f);

#endif
