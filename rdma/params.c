// SPDX-License-Identifier: MIT
/* The tests (one row each), their parameters' defaults and validation (wire form: rdma/proto.c). */
#include "rdma/internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "common/clock.h"
#include "common/lp.h"

/* What the two kinds of test start from (perftest-like where that is a good choice). */
#define LP_KIND_LAT .lat = true, .size = 2, .iters = 1000, .warmup = 100, .tx_depth = 1, .cq_mod = 1
#define LP_KIND_BW  .size = 65536, .iters = 5000, .warmup = 64, .tx_depth = 128, .cq_mod = 64

/*
 * The tests: ROW(enum name, key, op, loop, kind, other fields) is one row of
 * lp_rdma_tests and its key in lp_rdma_test_names. Adding a test is a line
 * here and its name in enum lp_rdma_test.
 */
/* clang-format off */
#define LP_RDMA_TEST_ROWS(ROW)                                                                     \
	ROW(WRITE_LAT, "write_lat", LP_OP_WRITE, LP_LOOP_PINGPONG, LP_KIND_LAT, .halved = true,    \
	    .detect = true, .inline_auto = 64)                                                     \
	ROW(READ_LAT, "read_lat", LP_OP_READ, LP_LOOP_READ_LAT, LP_KIND_LAT,                       \
	    .arrival = "read_completion")                                                          \
	ROW(SEND_LAT, "send_lat", LP_OP_SEND, LP_LOOP_PINGPONG, LP_KIND_LAT, .halved = true,       \
	    .needs_recv = true, .arrival = "recv_completion", .inline_auto = 64)                   \
	ROW(WRITE_BW, "write_bw", LP_OP_WRITE, LP_LOOP_BW, LP_KIND_BW)                             \
	ROW(READ_BW, "read_bw", LP_OP_READ, LP_LOOP_BW, LP_KIND_BW)                                \
	ROW(SEND_BW, "send_bw", LP_OP_SEND, LP_LOOP_BW, LP_KIND_BW, .needs_recv = true)
/* clang-format on */

#define LP_ROW(e, k, op_, loop_, kind, ...)                                                        \
	[LP_RDMA_##e] = { .key = k, .op = op_, .loop = loop_, kind, __VA_ARGS__ },
#define LP_KEY(e, k, ...) [LP_RDMA_##e] = k,

const struct lp_rdma_test_info lp_rdma_tests[LP_RDMA_NTESTS] = { LP_RDMA_TEST_ROWS(LP_ROW) };
const char *const lp_rdma_test_names[LP_RDMA_NTESTS + 1] = { LP_RDMA_TEST_ROWS(LP_KEY) NULL };

bool lp_rdma_test_is_lat(enum lp_rdma_test t)
{
	return lp_rdma_tests[t].lat;
}

uint32_t lp_rdma_seed_new(void)
{
	uint32_t s;

	/* The clock is a fallback only: any seed not used by the previous run will do. */
	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != (ssize_t)sizeof(s))
		s = (uint32_t)(lp_now_ns() * 0x9E3779B97F4A7C15ull >> 32);
	return s;
}

void lp_rdma_params_default(struct lp_rdma_params *p, enum lp_rdma_test t)
{
	const struct lp_rdma_test_info *row = lp_rdma_test(t);

	*p = (struct lp_rdma_params){
		.test = t,
		.size = row->size,
		.iters = row->iters,
		.warmup = row->warmup,
		.tx_depth = row->tx_depth,
		.rx_depth = 512,
		.cq_mod = row->cq_mod,
		.post_list = 1,
		.num_qps = 1,
		.inline_size = UINT32_MAX,
		.seed = lp_rdma_seed_new(),
		.max_samples = 1000000,
		.timeout_ms = 10000,
		.mem = LP_MEM_HOST,
		.mem_dev = -1,
		.gid_type = -1,
	};
}

/*
 * The smallest tx depth with which bandwidth posting never stalls
 * (rdma/loops.c bw_post): each QP posts post_list (l) WRs at a time while
 * posted - done + l <= tx_depth (T), signals every cq_mod-th (Q) WR and the
 * last, and done only moves on a signaled completion. So from a completed
 * signal d the window must reach the first post boundary at or past the next
 * signal, at most Q after d. Boundaries are l apart, starting at 0 in the
 * warm-up and at the warm-up count w in the timed phase; the gap from a
 * multiple of Q to the next boundary takes every value r < l with
 * r = w (mod gcd(Q, l)) over a long run, at most l - g + w mod g. A run
 * reaches each of them, so this bound is exact (tests/unit/test_rdma_post.c
 * checks it against a model of the loop). QPs post independently and receives
 * are re-posted on every completion, so QPs and rx depth do not enter.
 */
static uint32_t window_min(const struct lp_rdma_params *p)
{
	uint32_t g = (uint32_t)lp_gcd(p->cq_mod, p->post_list);

	return p->cq_mod + p->post_list - g + (uint32_t)(p->warmup % g);
}

int lp_rdma_params_check(const struct lp_rdma_params *p, struct lp_fail *f)
{
	bool lat;

	if ((unsigned)p->test >= LP_RDMA_NTESTS)
		return lp_fail_set(f, -EINVAL, "unknown test %u", (unsigned)p->test);
	lat = lp_rdma_test(p->test)->lat;
	if (p->size < 1 || p->size > LP_RDMA_MAX_SIZE)
		return lp_fail_set(f, -EINVAL, "size %llu out of range [1, %llu]",
				   (unsigned long long)p->size,
				   (unsigned long long)LP_RDMA_MAX_SIZE);
	if (!(p->duration_s >= 0 && p->duration_s <= 86400))
		return lp_fail_set(f, -EINVAL, "duration %g s out of range [0, 86400]",
				   p->duration_s);
	if (p->duration_s == 0 && (p->iters < 1 || p->iters > 1000000000ull))
		return lp_fail_set(f, -EINVAL, "iterations %llu out of range [1, 1e9]",
				   (unsigned long long)p->iters);
	if (p->warmup > 1000000000ull)
		return lp_fail_set(f, -EINVAL, "warm-up %llu out of range",
				   (unsigned long long)p->warmup);
	if (p->tx_depth < 1 || p->tx_depth > 8192)
		return lp_fail_set(f, -EINVAL, "tx depth %u out of range [1, 8192]", p->tx_depth);
	if (p->rx_depth < 1 || p->rx_depth > 8192)
		return lp_fail_set(f, -EINVAL, "rx depth %u out of range [1, 8192]", p->rx_depth);
	if (p->cq_mod < 1 || p->cq_mod > p->tx_depth)
		return lp_fail_set(f, -EINVAL, "cq moderation %u out of range [1, tx depth %u]",
				   p->cq_mod, p->tx_depth);
	if (p->post_list < 1 || p->post_list > p->tx_depth)
		return lp_fail_set(f, -EINVAL, "post list %u out of range [1, tx depth %u]",
				   p->post_list, p->tx_depth);
	if (p->post_list > LP_RDMA_MAX_POST_LIST)
		return lp_fail_set(f, -EINVAL, "post list %u out of range [1, %d]", p->post_list,
				   LP_RDMA_MAX_POST_LIST);
	if (!lat && p->tx_depth < window_min(p))
		return lp_fail_set(
			f, -EINVAL,
			"tx depth %u stalls with cq moderation %u, post list %u, warm-up %llu: needs tx "
			"depth >= %u (Q + l - gcd(Q,l) + w mod gcd)",
			p->tx_depth, p->cq_mod, p->post_list, (unsigned long long)p->warmup,
			window_min(p));
	if (p->num_qps < 1 || p->num_qps > LP_RDMA_MAX_QPS)
		return lp_fail_set(f, -EINVAL, "QP count %u out of range [1, %d]", p->num_qps,
				   LP_RDMA_MAX_QPS);
	if (lat && p->num_qps != 1)
		return lp_fail_set(f, -EINVAL, "latency tests use one QP");
	/* Each side registers 2 x size per QP: keep one test's buffers under 4 GiB. */
	if (p->size * p->num_qps > LP_RDMA_MAX_BUF / 2)
		return lp_fail_set(f, -EINVAL,
				   "size x QPs = %llu bytes: over the %llu-byte buffer limit",
				   (unsigned long long)(p->size * p->num_qps),
				   (unsigned long long)LP_RDMA_MAX_BUF / 2);
	if (p->inline_size != UINT32_MAX && p->inline_size > 4096)
		return lp_fail_set(f, -EINVAL, "inline size %u out of range [0, 4096]",
				   p->inline_size);
	if (p->mtu && (p->mtu < 256 || p->mtu > 4096 || (p->mtu & (p->mtu - 1))))
		return lp_fail_set(f, -EINVAL, "MTU %u is not one of 256, 512, 1024, 2048, 4096",
				   p->mtu);
	if (p->bidir && lat)
		return lp_fail_set(f, -EINVAL, "bidirectional applies to bandwidth tests");
	if (p->max_samples > 100000000ull)
		return lp_fail_set(f, -EINVAL, "sample cap %llu out of range",
				   (unsigned long long)p->max_samples);
	if (p->timeout_ms < 100 || p->timeout_ms > 3600000)
		return lp_fail_set(f, -EINVAL, "timeout %d ms out of range [100, 3600000]",
				   p->timeout_ms);
	if ((unsigned)p->mem > LP_MEM_CUDA)
		return lp_fail_set(f, -EINVAL, "unknown memory kind %u", (unsigned)p->mem);
	if (p->mem_dev < -1 || p->mem_dev > 1023)
		return lp_fail_set(f, -EINVAL, "GPU index %d out of range", p->mem_dev);
	if (p->lat_method != LP_LAT_POLL && p->lat_method != LP_LAT_WRITE_IMM)
		return lp_fail_set(f, -EINVAL, "unknown latency method %u",
				   (unsigned)p->lat_method);
	if (p->gid_type < -1 || p->gid_type > LP_GID_ROCE_V2)
		return lp_fail_set(f, -EINVAL, "unknown GID type %d", p->gid_type);
	if (p->interval_s != 0 &&
	    !(p->interval_s >= LP_IVAL_MIN_S && p->interval_s <= LP_IVAL_MAX_S))
		return lp_fail_set(f, -EINVAL,
				   "interval %g s out of range [%g, %g] (or 0 for none)",
				   p->interval_s, LP_IVAL_MIN_S, LP_IVAL_MAX_S);
	return 0;
}
