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

/*
 * What a memory kind asks of the QPs around it (lp_mem_ops.caps).
 * LP_MEM_CAP_NO_SCATTER_TO_CQE: receives must never be "scattered to the CQE"
 * (mlx5 puts payloads of <= 32 B in the completion and the library copies them
 * to the receive address with the CPU: a SIGSEGV for a GPU pointer).
 * LP_MEM_CAP_DEVICE_POLL: a GPU kernel sees the data arrive, so the device's
 * ordering of RDMA writes (lp_mem.rdma_order) decides whether polling one byte
 * means the rest has landed.
 */
enum lp_mem_cap {
	LP_MEM_CAP_NO_SCATTER_TO_CQE = 1u << 0,
	LP_MEM_CAP_DEVICE_POLL = 1u << 1,
};

struct lp_mem_ops {
	const char *name;
	unsigned caps;		/* LP_MEM_CAP_* */
	int (*alloc)(struct lp_mem *m, size_t len);
	void (*free)(struct lp_mem *m);
	/* Register m->addr..len with pd; sets m->mr and m->how. */
	int (*reg)(struct lp_mem *m, struct ibv_pd *pd, int access);
	/* Fill [off, off+len) with the pattern of seed; verify it (-EILSEQ + *bad_p). */
	int (*fill)(struct lp_mem *m, size_t off, size_t len, uint32_t seed);
	int (*verify)(struct lp_mem *m, size_t off, size_t len, uint32_t seed, size_t *bad_p);
	/* Small copies into / out of the buffer (flags, counters). */
	int (*write)(struct lp_mem *m, size_t off, const void *src, size_t len);
	int (*read)(struct lp_mem *m, size_t off, void *dst, size_t len);
};

struct lp_mem {
	const struct lp_mem_ops *ops;
	int dev;		/* GPU index for cuda memory */
	void *addr;
	size_t len;
	struct ibv_mr *mr;
	const char *how;	/* "host", "dmabuf", "peermem" */
	char desc[32];		/* "host", "cuda:0 dmabuf" */
	int rdma_order;		/* GPU: CUDA's GPU_DIRECT_RDMA_WRITES_ORDERING (0 none, 100 owner,
				 * 200 all devices), set by reg; -1 for host memory or unknown */
	void *priv;		/* kind-specific state */
};

/* The ops for a kind, or NULL when not built in (-> -EOPNOTSUPP / exit 77). */
const struct lp_mem_ops *lp_mem_ops_get(int kind);
int lp_mem_alloc(struct lp_mem *m, int kind, int dev, size_t len);
/* Registers with the right advice in the error ("ulimit -l", nvidia-peermem, dma-buf). */
int lp_mem_reg(struct lp_mem *m, struct ibv_pd *pd, int access);
void lp_mem_free(struct lp_mem *m);
/*
 * The kind's caps. For tests only, LP_TEST_MEM_CAPS=no_scatter_to_cqe in the
 * environment adds that cap to every kind, so the QP path it triggers can be
 * checked where no GPU exists (Soft-RoCE guest).
 */
unsigned lp_mem_caps(const struct lp_mem *m);

#endif
