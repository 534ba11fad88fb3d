// SPDX-License-Identifier: MIT
/*
 * Verification of GPU memory, built and run by tests/gpu/test-verify.sh:
 *  - stale data: a buffer freed and allocated again holds zeros, not the old
 *    pattern (lp_gpu_buf_alloc clears it), so it cannot pass a verification;
 *  - lp-rdma's GPU memory kind (rdma/mem_cuda.c): every ring slot with its own
 *    pattern (lp_pattern_seed) passes; a slot checked against its neighbour's
 *    seed fails (misplaced), a flipped byte fails at its offset (corrupted), a
 *    cleared slot fails (lost); the GPU check agrees with the host pattern;
 *  - the visibility poller follows a ring of slots (lp-rdma --verify write_lat), also
 *    through the memory kind's ops, whose capabilities say what the kind is.
 * Exit 0 ok, 1 failed, 77 no GPU.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/lp.h"
#include "common/pattern.h"
#include "gpu/gpumem.h"
#include "tests/gpu/check.h"
#include "rdma/internal.h"

static int fails;

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* A freed buffer's pattern must not survive into the next allocation of the same size. */
static void check_stale(uint8_t *host, size_t len)
{
	struct lp_gpu_buf b;
	size_t bad = 0;
	void *first;

	CHECK(!lp_gpu_buf_alloc(&b, 0, len, WHY), "alloc");
	CHECK(!lp_gpu_buf_fill(&b, 0, len, 42, WHY) &&
		      !lp_gpu_buf_verify(&b, 0, len, 42, &bad, WHY),
	      "fill + verify");
	first = b.ptr;
	lp_gpu_buf_free(&b);
	CHECK(!lp_gpu_buf_alloc(&b, 0, len, WHY), "alloc again");
	printf("stale: the second allocation %s the first pointer\n",
	       b.ptr == first ? "reuses" : "does not reuse");
	CHECK(!lp_gpu_buf_read(&b, 0, host, len, WHY) && all_zero(host, len),
	      "a new allocation is not all zeros");
	CHECK(lp_gpu_buf_verify(&b, 0, len, 42, &bad, WHY) == -EILSEQ && bad < 8,
	      "the old pattern verifies in a new allocation (bad %zu)", bad);
	lp_gpu_buf_free(&b);
}

/* lp-rdma's GPU memory kind: ring slots, each with its own pattern. */
static void check_ring(uint8_t *host)
{
	const size_t slot = 4096, size = 4000, depth = 8;
	const struct lp_mem_ops *ops = lp_mem_ops_get(LP_MEM_CUDA);
	struct lp_mem m;
	struct lp_fail f = { 0 };
	size_t bad = 0;
	uint8_t v;

	CHECK(ops && !lp_mem_alloc(&m, LP_MEM_CUDA, 0, slot * depth, &f), "lp_mem_alloc cuda: %s",
	      f.msg);
	if (fails)
		return;
	CHECK(!ops->read(&m, 0, host, slot * depth, WHY) && all_zero(host, slot * depth),
	      "cuda memory not cleared");
	for (size_t k = 0; k < depth; k++)
		CHECK(!ops->fill(&m, k * slot, slot, lp_pattern_seed(7, 1, 0, k), WHY),
		      "fill slot %zu", k);
	for (size_t k = 0; k < depth; k++)
		CHECK(!ops->verify(&m, k * slot, size, lp_pattern_seed(7, 1, 0, k), &bad, WHY),
		      "verify slot %zu", k);
	CHECK(ops->verify(&m, 2 * slot, size, lp_pattern_seed(7, 1, 0, 3), &bad, WHY) == -EILSEQ,
	      "slot 2 passes as slot 3 (misplaced message)");
	CHECK(ops->verify(&m, 2 * slot, size, lp_pattern_seed(7, 1, 1, 2), &bad, WHY) == -EILSEQ,
	      "QP 0's slot passes as QP 1's");
	CHECK(ops->verify(&m, 2 * slot, size, lp_pattern_seed(7, 0, 0, 2), &bad, WHY) == -EILSEQ,
	      "the server's data passes as the client's");
	CHECK(ops->verify(&m, 2 * slot, size, lp_pattern_seed(8, 1, 0, 2), &bad, WHY) == -EILSEQ,
	      "another run's seed passes");
	/* corrupted: one flipped byte, found at its offset */
	CHECK(!ops->read(&m, 5 * slot + 777, &v, 1, WHY), "read");
	v ^= 0xff;
	CHECK(!ops->write(&m, 5 * slot + 777, &v, 1, WHY), "write");
	CHECK(ops->verify(&m, 5 * slot, size, lp_pattern_seed(7, 1, 0, 5), &bad, WHY) == -EILSEQ &&
		      bad == 777,
	      "corrupted byte 777 reported at %zu", bad);
	/* lost: a cleared slot */
	memset(host, 0, slot);
	CHECK(!ops->write(&m, 6 * slot, host, slot, WHY), "clear");
	CHECK(ops->verify(&m, 6 * slot, size, lp_pattern_seed(7, 1, 0, 6), &bad, WHY) == -EILSEQ &&
		      bad < 8,
	      "a cleared (lost) slot passes");
	/* the host's pattern, copied in, passes the GPU's check */
	for (size_t i = 0; i < slot; i++)
		host[i] = lp_pattern_byte(lp_pattern_seed(7, 1, 0, 7), i);
	CHECK(!ops->write(&m, 7 * slot, host, slot, WHY) &&
		      !ops->verify(&m, 7 * slot, size, lp_pattern_seed(7, 1, 0, 7), &bad, WHY),
	      "host and GPU pattern differ (byte %zu)", bad);
	lp_mem_free(&m);
	printf("ring: %zu slots checked; misplaced, other QP, other side, other run, corrupted, lost: all detected\n",
	       depth);
}

/* The poller waits for iteration i in slot (i - 1) % depth. */
static void check_poller_ring(void)
{
	const size_t stride = 4096, off = 4095;
	const uint32_t depth = 5, iters = 12;
	struct lp_gpu_poller *p = NULL;
	struct lp_gpu_buf b;

	CHECK(!lp_gpu_buf_alloc(&b, 0, stride * depth, WHY), "alloc");
	CHECK(!lp_gpu_poller_start(&b, off, stride, depth, iters, 2000000000ull, &p, WHY),
	      "poller start");
	for (uint32_t i = 1; i <= iters && p; i++) {
		uint8_t v = (uint8_t)i;

		/* the wrong slot first: the poller must not see it */
		CHECK(!lp_gpu_buf_write(&b, off + (size_t)(i % depth) * stride, &v, 1, WHY),
		      "write");
		usleep(2000);
		CHECK(lp_gpu_poller_poll(p, i) == 0, "iteration %u seen in the wrong slot", i);
		CHECK(!lp_gpu_buf_write(&b, off + (size_t)((i - 1) % depth) * stride, &v, 1, WHY),
		      "write");
		CHECK(!lp_gpu_poller_wait(p, i, 2000000000ull, WHY),
		      "iteration %u not seen in its slot", i);
	}
	CHECK(!lp_gpu_poller_stop(p, WHY), "poller stop");
	lp_gpu_buf_free(&b);
	printf("poller: %u iterations over a ring of %u slots\n", iters, depth);
}

/* Spin until the kind's poller saw iteration i (bounded: 2 s); > 0 seen. */
static int seen_within(const struct lp_mem *m, uint32_t i)
{
	for (int t = 0; t < 20000; t++) {
		int n = lp_mem_poll_seen(m, i);

		if (n)
			return n;
		usleep(100);
	}
	return 0;
}

/*
 * lp-rdma's GPU memory kind says what it is (the loops ask these, never the kind) and runs
 * write_lat's GPU poller through its ops: prepare (refused below owner write ordering, with the
 * fix named), start, seen (a wrong slot is not seen), stopped by lp_mem_free.
 */
static void check_kind_poller(void)
{
	const size_t stride = 4096, off = 4095;
	const uint32_t depth = 3, iters = 7;
	struct lp_fail f = { 0 };
	struct lp_mem m;
	unsigned caps;
	double ns = 0;
	int ret;

	ret = lp_mem_alloc(&m, LP_MEM_CUDA, 0, stride * depth, &f);
	CHECK(!ret, "lp_mem_alloc cuda: %s", f.msg);
	if (ret)
		return;
	caps = lp_mem_caps(&m);
	CHECK((caps & LP_MEM_CAP_DEVICE_POLL) && (caps & LP_MEM_CAP_DEVICE_VERIFY) &&
		      (caps & LP_MEM_CAP_NO_SCATTER_TO_CQE) && !(caps & LP_MEM_CAP_CPU_VISIBLE),
	      "cuda caps 0x%x", caps);
	CHECK(lp_mem_rdma_order(&m) != NULL, "no RDMA write ordering for GPU memory");
	ret = lp_mem_poll_prepare(&m, 2000000000ull, &ns, &f);
	CHECK(ret == 0 ? ns > 0 : ret == -EOPNOTSUPP && strstr(f.msg, "--lat-method imm"),
	      "poll prepare: %d %s (notification %.0f ns)", ret, f.msg, ns);
	printf("kind: write ordering %s, poll prepare %s (notification %.0f ns)\n",
	       lp_mem_rdma_order(&m), ret ? f.msg : "ok", ns);
	ret = lp_mem_poll_start(&m, off, stride, depth, iters, 2000000000ull, WHY);
	CHECK(!ret, "poll start: %d", ret);
	for (uint32_t i = 1; i <= iters && !ret; i++) {
		uint8_t v = (uint8_t)i;

		CHECK(!m.ops->write(&m, off + (size_t)(i % depth) * stride, &v, 1, WHY), "write");
		usleep(2000);
		CHECK(lp_mem_poll_seen(&m, i) == 0, "iteration %u seen in the wrong slot", i);
		CHECK(!m.ops->write(&m, off + (size_t)((i - 1) % depth) * stride, &v, 1, WHY),
		      "write");
		CHECK(seen_within(&m, i) > 0, "iteration %u not seen in its slot", i);
	}
	lp_mem_free(&m); /* stops the poller */
	printf("kind: caps 0x%x, %u iterations seen through lp_mem_poll_*\n", caps, iters);
}

int main(void)
{
	const size_t len = 1u << 20;
	uint8_t *host = malloc(len);
	int n;

	lp_log_set_prog("verify_check");
	if (lp_gpu_count(&n)) {
		printf("verify_check: no GPU or no driver (lp_gpu_count -ENODEV)\n");
		free(host);
		return 77;
	}
	if (!host)
		return 1;
	check_stale(host, len);
	check_ring(host);
	check_poller_ring();
	check_kind_poller();
	free(host);
	printf("verify_check: %d failure%s\n", fails, fails == 1 ? "" : "s");
	return fails ? 1 : 0;
}
