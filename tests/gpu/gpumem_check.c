// SPDX-License-Identifier: MIT
/*
 * GPU memory provider check (gpu/gpumem.h), built and run by tests/gpu/test-gpumem.sh:
 * allocation, dma-buf export (reported, not required), fill/verify with a planted
 * corruption, small copies, and the poller's host->GPU visibility latency.
 * Exit 0 ok, 1 failed, 77 no GPU. Last line on stdout: one JSON object.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/lp.h"
#include "common/pattern.h"
#include "common/stats.h"
#include "gpu/gpumem.h"
#include "tests/gpu/check.h"

int main(int argc, char **argv)
{
	struct lp_gpu_buf b;
	struct lp_gpu_poller *p = NULL;
	struct lp_stats st;
	struct lp_summary sum;
	const size_t len = 64u << 20;
	unsigned iters = argc > 1 ? (unsigned)atoi(argv[1]) : 2000;
	size_t bad = 0;
	uint8_t byte, buf[64];
	int n, ret, fails = 0, dmabuf, corrupt_seen;
	char name[96];
	uint64_t t0;

	lp_log_set_prog("gpumem_check");
	if (lp_gpu_count(&n)) {
		printf("gpumem_check: no GPU or no driver (lp_gpu_count -ENODEV)\n");
		return 77;
	}
	ret = lp_gpu_buf_alloc(&b, 0, len, WHY);
	if (ret) {
		fprintf(stderr, "FAIL: lp_gpu_buf_alloc: %d (%s)\n", ret, lp_fail_msg(&check_why));
		return 1;
	}
	printf("alloc: %zu bytes on GPU 0 (%s, %s), dmabuf_fd %d\n", b.len, b.name, b.bus_id,
	       b.dmabuf_fd);
	CHECK(b.dmabuf_fd == -1 && b.bus_id[0] && b.name[0], "alloc fields");
	snprintf(name, sizeof(name), "%s", b.name);

	dmabuf = lp_gpu_buf_export_dmabuf(&b, WHY);
	if (!dmabuf)
		printf("dmabuf: exported, fd %d, offset %llu\n", b.dmabuf_fd,
		       (unsigned long long)b.dmabuf_off);
	else
		printf("dmabuf: not exported here (%s)\n", strerror(-dmabuf));
	CHECK(dmabuf == 0 || dmabuf == -EOPNOTSUPP, "export returned %d", dmabuf);

	/* fill + verify, a neighbouring seed, a planted corruption, a partial range */
	CHECK(!lp_gpu_buf_fill(&b, 0, len, 42, WHY), "fill");
	CHECK(!lp_gpu_buf_verify(&b, 0, len, 42, &bad, WHY), "verify after fill");
	CHECK(lp_gpu_buf_verify(&b, 0, len, 43, &bad, WHY) == -EILSEQ && bad < 8,
	      "seed 43 must not verify (bad %zu)", bad);
	CHECK(!lp_gpu_buf_read(&b, 12345, &byte, 1, WHY), "read");
	CHECK(byte == lp_pattern_byte(42, 12345), "host and GPU pattern agree");
	byte ^= 0x10;
	CHECK(!lp_gpu_buf_write(&b, 12345, &byte, 1, WHY), "write");
	ret = lp_gpu_buf_verify(&b, 0, len, 42, &bad, WHY);
	corrupt_seen = ret == -EILSEQ && bad == 12345;
	CHECK(corrupt_seen, "corruption at 12345 detected (ret %d, bad %zu)", ret, bad);
	printf("verify: planted corruption at byte 12345 detected at %zu\n", bad);
	CHECK(!lp_gpu_buf_verify(&b, 12346, len - 12346, 42, &bad, WHY),
	      "verify past the corruption");
	CHECK(!lp_gpu_buf_fill(&b, 3, 1001, 7, WHY), "partial fill");
	CHECK(!lp_gpu_buf_verify(&b, 3, 1001, 7, &bad, WHY), "partial verify");
	CHECK(!lp_gpu_buf_verify(&b, 0, 3, 42, &bad, WHY) &&
		      !lp_gpu_buf_verify(&b, 1004, 4000, 42, &bad, WHY),
	      "bytes around the partial fill untouched");
	CHECK(!lp_gpu_buf_read(&b, 0, buf, sizeof(buf), WHY), "read 64");
	for (unsigned i = 3; i < sizeof(buf); i++)
		CHECK(buf[i] == lp_pattern_byte(7, i), "byte %u of partial fill", i);
	CHECK(lp_gpu_buf_fill(&b, len - 10, 11, 1, WHY) == -EINVAL &&
		      strstr(lp_fail_msg(&check_why), "lp_gpu_buf_fill: range "),
	      "out of range rejected, the range named");

	/* poller: host writes byte i with cudaMemcpy, waits for the GPU's flag */
	lp_stats_init(&st, iters);
	ret = lp_gpu_poller_start(&b, 4096, 0, 1, iters, 2000000000ull, &p, WHY);
	CHECK(!ret, "poller start %d", ret);
	for (unsigned i = 1; !ret && i <= iters; i++) {
		byte = (uint8_t)i;
		t0 = lp_now_ns();
		if ((ret = lp_gpu_buf_write(&b, 4096, &byte, 1, WHY)) ||
		    (ret = lp_gpu_poller_wait(p, i, 1000000000ull, WHY))) {
			CHECK(0, "poller iteration %u: %d", i, ret);
			break;
		}
		lp_stats_add(&st, (double)(lp_now_ns() - t0));
	}
	CHECK(!lp_gpu_poller_stop(p, WHY), "poller stop");
	lp_stats_summarize(&st, &sum);
	printf("poller: %llu host->GPU writes seen by the GPU: min %.0f ns, p50 %.0f ns, p99 %.0f ns, max %.0f ns "
	       "(cudaMemcpy of 1 byte + GPU poll + mapped flag back)\n",
	       (unsigned long long)sum.n, sum.min, sum.p50, sum.p99, sum.max);
	CHECK(sum.n == iters, "all poller iterations");

	/* a poller nobody writes to gives up by itself */
	ret = lp_gpu_poller_start(&b, 8192, 0, 1, 1, 50000000ull, &p, WHY);
	CHECK(!ret, "poller 2 start");
	if (!ret) {
		t0 = lp_now_ns();
		ret = lp_gpu_poller_wait(p, 1, 5000000000ull, WHY);
		CHECK(ret == -ETIMEDOUT &&
			      strstr(lp_fail_msg(&check_why), "gave up before iteration 1"),
		      "silent poller times out (%d)", ret);
		CHECK(lp_now_ns() - t0 < 2000000000ull, "kernel timeout, not the CPU's");
		CHECK(!lp_gpu_poller_stop(p, WHY), "poller 2 stop");
	}
	lp_gpu_buf_free(&b);
	CHECK(b.ptr == NULL && b.dmabuf_fd == -1, "free resets");
	printf("{\"gpu\": \"%s\", \"dmabuf\": \"%s\", \"corruption_detected\": %s, \"visibility_ns\": {\"n\": %llu, "
	       "\"min\": %.0f, \"p50\": %.0f, \"p99\": %.0f, \"max\": %.0f}, \"failures\": %d}\n",
	       name, dmabuf ? "unsupported" : "ok", corrupt_seen ? "true" : "false",
	       (unsigned long long)sum.n, sum.min, sum.p50, sum.p99, sum.max, fails);
	lp_stats_free(&st);
	return fails ? 1 : 0;
}
