// SPDX-License-Identifier: MIT
/*
 * GPUDirect first-contact figures on a real GPU (issue 19), built and run by
 * tests/gpu/test-gdr.sh:
 *   gdr_check poll N    the poller's detection of N host writes into GPU memory, with the stop
 *                       flag read every spin (the old kernel) and every LP_GPU_POLL_STOP_EVERY
 *                       spins; the cudaMemcpy alone; the GPU->CPU notification; the RDMA write
 *                       ordering attribute and SYNC_MEMOPS of the buffer
 *   gdr_check launch    the first launch of a kernel (fill) while the poller spins: with lazy
 *                       module loading it waits for the poller (seconds), eager it does not
 * Exit 0 ok, 1 failed, 77 no GPU. Last line on stdout: one JSON object.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/fail.h"
#include "common/lp.h"
#include "common/stats.h"
#include "gpu/gpumem.h"

#define OFF 4096

/* The cause of the first failing call (the library records it; this check prints it). */
static struct lp_fail why;

/* n host writes of byte i at OFF, each timed until the poller reports it (stop_every 0: write
 * only). */
static int detect(struct lp_gpu_buf *b, unsigned n, uint32_t stop_every, struct lp_summary *sum)
{
	struct lp_gpu_poller *p = NULL;
	struct lp_stats st;
	int ret = lp_stats_init(&st, n);

	if (!ret && stop_every)
		ret = lp_gpu_poller_start_every(b, OFF, 0, 1, n, 2000000000ull, stop_every, &p,
						&why);
	for (unsigned i = 1; !ret && i <= n; i++) {
		uint8_t byte = (uint8_t)i;
		uint64_t t0 = lp_now_ns();

		ret = lp_gpu_buf_write(b, OFF, &byte, 1, &why);
		if (!ret && p)
			ret = lp_gpu_poller_wait(p, i, 1000000000ull, &why);
		if (!ret)
			lp_stats_add(&st, (double)(lp_now_ns() - t0));
	}
	if (p && lp_gpu_poller_stop(p, &why) && !ret)
		ret = -EIO;
	lp_stats_summarize(&st, sum);
	lp_stats_free(&st);
	return ret;
}

static void print_sum(const char *key, const struct lp_summary *s, const char *sep)
{
	printf("\"%s\": {\"n\": %llu, \"min\": %.0f, \"p50\": %.0f, \"p99\": %.0f, \"max\": %.0f}%s",
	       key, (unsigned long long)s->n, s->min, s->p50, s->p99, s->max, sep);
}

static int run_poll(struct lp_gpu_buf *b, unsigned n)
{
	struct lp_summary every1, every, write_only;
	double notify_ns = 0;
	int ret;

	if ((ret = detect(b, n, 0, &write_only)) || (ret = detect(b, n, 1, &every1)) ||
	    (ret = detect(b, n, LP_GPU_POLL_STOP_EVERY, &every)) ||
	    (ret = lp_gpu_notify_ns(b->dev, n, 1000000000ull, &notify_ns, &why))) {
		fprintf(stderr, "FAIL: %s\n",
			lp_fail_ok(&why) ? strerror(-ret) : lp_fail_msg(&why));
		return 1;
	}
	printf("%s (%s): GPU_DIRECT_RDMA_WRITES_ORDERING %d (%s), SYNC_MEMOPS %s\n", b->name,
	       b->bus_id, b->rdma_order, lp_gpu_rdma_order_name(b->rdma_order),
	       b->sync_memops ? "set" : "NOT set");
	printf("host write (cudaMemcpy 1 B) alone:            p50 %.0f ns p99 %.0f ns\n",
	       write_only.p50, write_only.p99);
	printf("write + poller, stop flag every spin (old):   p50 %.0f ns p99 %.0f ns\n",
	       every1.p50, every1.p99);
	printf("write + poller, stop flag every %u spins:   p50 %.0f ns p99 %.0f ns\n",
	       LP_GPU_POLL_STOP_EVERY, every.p50, every.p99);
	printf("GPU->CPU notification (ping-pong / 2):       p50 %.0f ns\n", notify_ns);
	printf("{\"gpu\": \"%s\", \"rdma_writes_ordering\": %d, \"sync_memops\": %s, "
	       "\"stop_every\": %u, ",
	       b->name, b->rdma_order, b->sync_memops ? "true" : "false", LP_GPU_POLL_STOP_EVERY);
	print_sum("write_only_ns", &write_only, ", ");
	print_sum("detect_every_spin_ns", &every1, ", ");
	print_sum("detect_ns", &every, ", ");
	printf("\"notify_ns\": %.0f}\n", notify_ns);
	return 0;
}

static int run_launch(struct lp_gpu_buf *b)
{
	struct lp_gpu_poller *p = NULL;
	const char *mode = getenv("CUDA_MODULE_LOADING");
	uint64_t t0;
	double s;
	int ret;

	/* Nobody writes to this poller: it spins until stopped or for 3 s. */
	if ((ret = lp_gpu_poller_start(b, OFF, 0, 1, 1, 3000000000ull, &p, &why))) {
		fprintf(stderr, "FAIL: poller start: %s\n",
			lp_fail_ok(&why) ? strerror(-ret) : lp_fail_msg(&why));
		return 1;
	}
	t0 = lp_now_ns();
	ret = lp_gpu_buf_fill(b, 0, 1 << 20, 7, &why); /* the first launch of the fill kernel */
	s = (lp_now_ns() - t0) / 1e9;
	lp_gpu_poller_stop(p, &why);
	if (ret) {
		fprintf(stderr, "FAIL: fill: %s\n",
			lp_fail_ok(&why) ? strerror(-ret) : lp_fail_msg(&why));
		return 1;
	}
	printf("first kernel launch while the poller spins (CUDA_MODULE_LOADING=%s): %.4f s\n",
	       mode ? mode : "?", s);
	printf("{\"module_loading\": \"%s\", \"first_launch_s\": %.6f}\n", mode ? mode : "", s);
	return 0;
}

int main(int argc, char **argv)
{
	struct lp_gpu_buf b;
	int n, ret;

	lp_log_set_prog("gdr_check");
	if (argc < 2 || (strcmp(argv[1], "poll") && strcmp(argv[1], "launch"))) {
		fprintf(stderr, "usage: gdr_check poll N | launch\n");
		return 2;
	}
	if (lp_gpu_count(&n)) { /* sets CUDA_MODULE_LOADING=EAGER unless the caller chose */
		printf("gdr_check: no GPU or no driver\n");
		return 77;
	}
	if ((ret = lp_gpu_buf_alloc(&b, 0, 2 << 20, &why))) {
		fprintf(stderr, "FAIL: lp_gpu_buf_alloc: %s\n",
			lp_fail_ok(&why) ? strerror(-ret) : lp_fail_msg(&why));
		return 1;
	}
	ret = !strcmp(argv[1], "poll") ? run_poll(&b, argc > 2 ? (unsigned)atoi(argv[2]) : 2000)
				       : run_launch(&b);
	lp_gpu_buf_free(&b);
	return ret;
}
