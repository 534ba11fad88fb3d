/* SPDX-License-Identifier: MIT */
/*
 * The test plan: every test x size to run, as struct lp_rdma_params, from what
 * the user asked for, checked (lp_rdma_params_check) before any device or peer
 * is touched. lp-rdma and lp-sweep both build their runs here, so a test
 * kind's defaults - size, iterations, warm-up, tx depth, cq moderation, from
 * lp_rdma_params_default - are one set; a value the user gave wins where its
 * set flag says it was given (the option tables record that: rdma/opts.h).
 */
#ifndef LP_RDMA_PLAN_H
#define LP_RDMA_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/opt.h"
#include "rdma/rdma.h"

/* The two kinds of test, which differ in their defaults and sizes. */
enum lp_plan_kind { LP_PLAN_LAT, LP_PLAN_BW, LP_PLAN_NKINDS };

/* What the user asked for. A field with a set flag counts only where the flag is true. */
struct lp_rdma_plan {
	const char *tests;		       /* comma list of lp_rdma_test_names, in run order */
	struct lp_sizes sizes[LP_PLAN_NKINDS]; /* sizes per kind; none: the kind's default size */
	uint64_t iters[LP_PLAN_NKINDS];	       /* timed iterations per kind */
	bool iters_set[LP_PLAN_NKINDS];
	uint64_t warmup; /* untimed iterations first */
	bool warmup_set;
	uint32_t tx_depth, cq_mod; /* bandwidth only; cq_mod is capped at the tx depth */
	bool tx_depth_set, cq_mod_set;
	uint32_t seed; /* run i gets seed + i + 1; unset: a fresh seed per run */
	bool seed_set;
	double duration_s; /* > 0: each run lasts this long (not with iterations) */
	/*
	 * The rest, for every run: rx_depth, inline_size, mtu, verify, use_cm,
	 * cm_port, max_samples, timeout_ms, mem, mem_dev, lat_method, interval_s; and for
	 * bandwidth runs post_list (capped at the tx depth), num_qps and bidir
	 * (latency runs use one WR per post, one QP, one direction).
	 */
	struct lp_rdma_params base;
};

/* No tests, no sizes, nothing set; base = the library's defaults (lp_rdma_params_default). */
void lp_rdma_plan_init(struct lp_rdma_plan *pl);

/*
 * Every test x size of pl into runs[0..max) in order, each checked. 0, or
 * -EINVAL (an unknown test, iterations with a duration, a check that fails)
 * or -E2BIG (more than max runs) with the cause in f: "TEST size N: ...".
 */
int lp_rdma_plan_build(const struct lp_rdma_plan *pl, struct lp_rdma_params *runs, int max,
		       int *n_p, struct lp_fail *f);

#endif
