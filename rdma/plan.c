// SPDX-License-Identifier: MIT
/* The test plan of both tools: tests x sizes with one set of defaults (rdma/plan.h). */
#include "rdma/plan.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/fail.h"
#include "common/lp.h"

void lp_rdma_plan_init(struct lp_rdma_plan *pl)
{
	*pl = (struct lp_rdma_plan){ 0 };
	lp_rdma_params_default(&pl->base, LP_RDMA_WRITE_BW);
}

/* One run: the kind's defaults, then what the user gave. */
static void plan_run(const struct lp_rdma_plan *pl, enum lp_rdma_test test, uint64_t size, int idx,
		     struct lp_rdma_params *p)
{
	const struct lp_rdma_params *b = &pl->base;
	enum lp_plan_kind k = lp_rdma_test(test)->lat ? LP_PLAN_LAT : LP_PLAN_BW;

	lp_rdma_params_default(p, test);
	p->size = size;
	if (pl->iters_set[k])
		p->iters = pl->iters[k];
	if (pl->duration_s > 0) {
		p->duration_s = pl->duration_s;
		p->iters = 0;
	}
	if (pl->warmup_set)
		p->warmup = pl->warmup;
	if (pl->seed_set)
		p->seed = pl->seed + (uint32_t)idx + 1;
	if (k == LP_PLAN_BW) {
		if (pl->tx_depth_set)
			p->tx_depth = pl->tx_depth;
		if (pl->cq_mod_set)
			p->cq_mod = pl->cq_mod;
		p->cq_mod = LP_MIN(p->cq_mod, p->tx_depth);
		p->post_list = LP_MIN(b->post_list, p->tx_depth);
		p->num_qps = b->num_qps;
		p->bidir = b->bidir;
	}
	p->rx_depth = b->rx_depth;
	p->inline_size = b->inline_size;
	p->mtu = b->mtu;
	p->verify = b->verify;
	p->use_cm = b->use_cm;
	p->cm_port = b->cm_port;
	p->max_samples = b->max_samples;
	p->timeout_ms = b->timeout_ms;
	p->mem = b->mem;
	p->mem_dev = b->mem_dev;
	p->lat_method = b->lat_method;
	p->interval_s = b->interval_s;
}

int lp_rdma_plan_build(const struct lp_rdma_plan *pl, struct lp_rdma_params *runs, int max,
		       int *n_p, struct lp_fail *f)
{
	char buf[512];
	const char *names[64];
	int ntests = 0, n = 0, ret;

	*n_p = 0;
	if (!pl->tests || lp_split_list(pl->tests, buf, sizeof(buf), names, 64, &ntests))
		return lp_fail_set(f, -EINVAL, "tests '%s': expected a comma list",
				   pl->tests ? pl->tests : "");
	if (pl->duration_s > 0 && (pl->iters_set[LP_PLAN_LAT] || pl->iters_set[LP_PLAN_BW]))
		return lp_fail_set(f, -EINVAL, "give either iterations or a duration, not both");
	for (int t = 0; t < ntests; t++) {
		int test = lp_choice_index(lp_rdma_test_names, names[t]);
		const struct lp_rdma_test_info *row;
		struct lp_sizes sizes;

		if (test < 0)
			return lp_fail_set(f, -EINVAL, "unknown test '%s'", names[t]);
		row = lp_rdma_test((enum lp_rdma_test)test);
		sizes = pl->sizes[row->lat ? LP_PLAN_LAT : LP_PLAN_BW];
		if (!sizes.n)
			sizes = (struct lp_sizes){ .n = 1, .v = { row->size } };
		for (unsigned s = 0; s < sizes.n; s++, n++) {
			if (n == max)
				return lp_fail_set(f, -E2BIG, "too many tests x sizes (at most %d)",
						   max);
			plan_run(pl, (enum lp_rdma_test)test, sizes.v[s], n, &runs[n]);
			ret = lp_rdma_params_check(&runs[n], f);
			if (ret) {
				lp_fail_wrap(f, "%s size %llu", names[t],
					     (unsigned long long)sizes.v[s]);
				return ret;
			}
		}
	}
	*n_p = n;
	return 0;
}
