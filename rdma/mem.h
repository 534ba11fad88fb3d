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

struct lp_mem_ops {
	const char *name;
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
	void *priv;		/* kind-specific state */
};

/* The ops for a kind, or NULL when not built in (-> -EOPNOTSUPP / exit 77). */
const struct lp_mem_ops *lp_mem_ops_get(int kind);
int lp_mem_alloc(struct lp_mem *m, int kind, int dev, size_t len);
/* Registers with the right advice in the error ("ulimit -l", nvidia-peermem, dma-buf). */
int lp_mem_reg(struct lp_mem *m, struct ibv_pd *pd, int access);
void lp_mem_free(struct lp_mem *m);

#endif
