/* SPDX-License-Identifier: MIT */
/*
 * Memory kinds for RDMA buffers, as a small ops table: host memory now, GPU
 * memory (GPUDirect RDMA) where CUDA is built in. Registration tries dma-buf
 * first for GPU memory and falls back to the peer-memory path, and says which.
 */
#ifndef LP_RDMA_MEM_H
#define LP_RDMA_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ibv_pd;
struct ibv_mr;
struct lp_mem;
struct lp_fail; /* common/fail.h: failures record their cause there (nothing here prints) */

/*
 * What a memory kind is and asks of the code around it (lp_mem_ops.caps): the
 * loops and the connection ask these, never which kind it is.
 * LP_MEM_CAP_CPU_VISIBLE: the CPU may load and store the buffer (inline sends,
 * the write_lat counter byte written and polled by the CPU).
 * LP_MEM_CAP_NO_SCATTER_TO_CQE: receives must never be "scattered to the CQE"
 * (mlx5 puts payloads of <= 32 B in the completion and the library copies them
 * to the receive address with the CPU: a SIGSEGV for a GPU pointer).
 * LP_MEM_CAP_DEVICE_POLL: the CPU cannot watch the buffer: a device-side poller
 * (the poll_* ops) sees write_lat data arrive, and the device's ordering of RDMA
 * writes decides whether polling one byte means the rest has landed.
 * LP_MEM_CAP_DEVICE_VERIFY: fill and verify run on the device.
 */
enum lp_mem_cap {
	LP_MEM_CAP_CPU_VISIBLE = 1u << 0,
	LP_MEM_CAP_NO_SCATTER_TO_CQE = 1u << 1,
	LP_MEM_CAP_DEVICE_POLL = 1u << 2,
	LP_MEM_CAP_DEVICE_VERIFY = 1u << 3,
};

struct lp_mem_ops {
	const char *name;
	unsigned caps; /* LP_MEM_CAP_* */
	/* Allocate len zeroed bytes at m->addr for device m->dev; sets m->desc. */
	int (*alloc)(struct lp_mem *m, size_t len, struct lp_fail *f);
	void (*free)(struct lp_mem *m);
	/* Register m->addr..len with pd; sets m->mr and m->how. */
	int (*reg)(struct lp_mem *m, struct ibv_pd *pd, int access, struct lp_fail *f);
	/*
	 * Fill [off, off+len) with the pattern of seed; verify it (-EILSEQ +
	 * *bad_p: a finding, not a failure). A device's failing call is in f.
	 */
	int (*fill)(struct lp_mem *m, size_t off, size_t len, uint32_t seed, struct lp_fail *f);
	int (*verify)(struct lp_mem *m, size_t off, size_t len, uint32_t seed, size_t *bad_p,
		      struct lp_fail *f);
	/* Small copies into / out of the buffer (flags, counters). */
	int (*write)(struct lp_mem *m, size_t off, const void *src, size_t len, struct lp_fail *f);
	int (*read)(struct lp_mem *m, size_t off, void *dst, size_t len, struct lp_fail *f);
	/*
	 * LP_MEM_CAP_DEVICE_POLL kinds (the lp_mem_poll_* calls below): refuse a
	 * device whose write ordering makes one byte mean nothing and measure the
	 * device->CPU notification every detection includes; start the poller on
	 * the byte at off of `depth` slots `stride` apart for `iters` messages;
	 * 1 when message i was seen, 0 not yet, < 0 the poller gave up; stop it.
	 */
	int (*poll_prepare)(struct lp_mem *m, uint64_t timeout_ns, double *notify_ns_p,
			    struct lp_fail *f);
	int (*poll_start)(struct lp_mem *m, size_t off, size_t stride, uint32_t depth,
			  uint32_t iters, uint64_t timeout_ns, struct lp_fail *f);
	int (*poll_seen)(const struct lp_mem *m, uint32_t i);
	void (*poll_stop)(struct lp_mem *m);
	/* The device's ordering of incoming RDMA writes, in words (NULL: not a device). */
	const char *(*rdma_order_name)(const struct lp_mem *m);
};

struct lp_mem {
	const struct lp_mem_ops *ops;
	int dev; /* GPU index for cuda memory */
	void *addr;
	size_t len;
	struct ibv_mr *mr;
	const char *how; /* "host", "dmabuf", "peermem" */
	char desc[32];	 /* "host", "cuda:0 dmabuf" */
	void *priv;	 /* the kind's own state (its module alone reads it) */
};

/* The CUDA kind (rdma/mem_cuda.c), NULL where CUDA is not built in. */
extern const struct lp_mem_ops *const lp_mem_cuda_ops;

/* The ops for a kind, or NULL when not built in (-> -EOPNOTSUPP / exit 77). */
const struct lp_mem_ops *lp_mem_ops_get(int kind);
/* Allocate (the kind's advice in f on failure: no GPU, not built in, out of memory). */
int lp_mem_alloc(struct lp_mem *m, int kind, int dev, size_t len, struct lp_fail *f);
/* Registers with the right advice in f ("ulimit -l", nvidia-peermem, dma-buf). */
int lp_mem_reg(struct lp_mem *m, struct ibv_pd *pd, int access, struct lp_fail *f);
void lp_mem_free(struct lp_mem *m);
/*
 * The kind's caps. For tests only, LP_TEST_MEM_CAPS=no_scatter_to_cqe in the
 * environment adds that cap to every kind, so the QP path it triggers can be
 * checked where no GPU exists (Soft-RoCE guest).
 */
unsigned lp_mem_caps(const struct lp_mem *m);
/* The device poller (LP_MEM_CAP_DEVICE_POLL; -EOPNOTSUPP for other kinds): see lp_mem_ops. */
int lp_mem_poll_prepare(struct lp_mem *m, uint64_t timeout_ns, double *notify_ns_p,
			struct lp_fail *f);
int lp_mem_poll_start(struct lp_mem *m, size_t off, size_t stride, uint32_t depth, uint32_t iters,
		      uint64_t timeout_ns, struct lp_fail *f);
int lp_mem_poll_seen(const struct lp_mem *m, uint32_t i);
/* The device's RDMA write ordering in words; NULL for memory without one (host). */
const char *lp_mem_rdma_order(const struct lp_mem *m);

#endif
