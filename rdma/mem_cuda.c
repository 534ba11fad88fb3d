// SPDX-License-Identifier: MIT
/*
 * CUDA memory for RDMA buffers (GPUDirect RDMA). Registration tries dma-buf
 * first (cuMemGetHandleForAddressRange + ibv_reg_dmabuf_mr: upstream kernel
 * path, no extra module), then the peer-memory path (ibv_reg_mr on the device
 * pointer, which needs the nvidia-peermem module), and records which worked.
 */
#ifdef LP_HAVE_CUDA
#include "rdma/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "gpu/gpumem.h"

static struct lp_gpu_buf *gbuf(struct lp_mem *m)
{
	return m->priv;
}

static int cuda_alloc(struct lp_mem *m, size_t len)
{
	struct lp_gpu_buf *b;
	int n = 0, dev = m->dev < 0 ? 0 : m->dev, ret;

	if (lp_gpu_count(&n) || n == 0) {
		lp_err("--mem cuda: no CUDA GPU or driver on this host");
		return -ENODEV;
	}
	if (dev >= n) {
		lp_err("--mem cuda:%d: this host has %d GPU%s (0..%d)", dev, n, n == 1 ? "" : "s",
		       n - 1);
		return -EINVAL;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	ret = lp_gpu_buf_alloc(b, dev, len);
	if (ret) {
		free(b);
		return ret;
	}
	m->priv = b;
	m->addr = b->ptr;
	m->dev = dev;
	snprintf(m->desc, sizeof(m->desc), "cuda:%d", dev);
	return 0;
}

static void cuda_free(struct lp_mem *m)
{
	lp_gpu_buf_free(gbuf(m));
	free(m->priv);
	m->priv = NULL;
}

static int cuda_reg(struct lp_mem *m, struct ibv_pd *pd, int access)
{
	struct lp_gpu_buf *b = gbuf(m);
	int dmabuf_err, peer_err;

	dmabuf_err = lp_gpu_buf_export_dmabuf(b);
	if (!dmabuf_err) {
		m->mr = ibv_reg_dmabuf_mr(pd, b->dmabuf_off, m->len, (uintptr_t)b->ptr, b->dmabuf_fd,
					  access);
		if (m->mr) {
			m->how = "dmabuf";
			goto done;
		}
		dmabuf_err = -errno;
	}
	m->mr = ibv_reg_mr(pd, b->ptr, m->len, access);
	if (m->mr) {
		m->how = "peermem";
		goto done;
	}
	peer_err = -errno;
	lp_err("cannot register GPU memory on %s for RDMA: dma-buf: %s; peer memory: %s. Fix: "
	       "use dma-buf (Linux >= 5.12, NVIDIA open kernel module, CUDA >= 11.7) or load "
	       "nvidia-peermem (modprobe nvidia-peermem)",
	       b->bus_id, strerror(-dmabuf_err), strerror(-peer_err));
	return peer_err ? peer_err : -EIO;
done:
	m->rdma_order = b->rdma_order;
	snprintf(m->desc, sizeof(m->desc), "cuda:%d %s", m->dev, m->how);
	return 0;
}

/* The pattern is relative to the start of each range, as for host memory. */
static struct lp_gpu_buf view(struct lp_mem *m, size_t off, size_t len)
{
	struct lp_gpu_buf v = *gbuf(m);

	v.ptr = (uint8_t *)v.ptr + off;
	v.len = len;
	v.dmabuf_fd = -1;
	return v;
}

static int cuda_fill(struct lp_mem *m, size_t off, size_t len, uint32_t seed)
{
	struct lp_gpu_buf v = view(m, off, len);

	return lp_gpu_buf_fill(&v, 0, len, seed);
}

static int cuda_verify(struct lp_mem *m, size_t off, size_t len, uint32_t seed, size_t *bad_p)
{
	struct lp_gpu_buf v = view(m, off, len);

	return lp_gpu_buf_verify(&v, 0, len, seed, bad_p);
}

static int cuda_write(struct lp_mem *m, size_t off, const void *src, size_t len)
{
	return lp_gpu_buf_write(gbuf(m), off, src, len);
}

static int cuda_read(struct lp_mem *m, size_t off, void *dst, size_t len)
{
	return lp_gpu_buf_read(gbuf(m), off, dst, len);
}

const struct lp_mem_ops lp_mem_cuda_ops = {
	.name = "cuda",
	.caps = LP_MEM_CAP_NO_SCATTER_TO_CQE | LP_MEM_CAP_DEVICE_POLL,
	.alloc = cuda_alloc,
	.free = cuda_free,
	.reg = cuda_reg,
	.fill = cuda_fill,
	.verify = cuda_verify,
	.write = cuda_write,
	.read = cuda_read,
};
#endif
