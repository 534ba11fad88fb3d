// SPDX-License-Identifier: MIT
/*
 * CUDA memory for RDMA buffers (GPUDirect RDMA). Registration tries dma-buf
 * first (cuMemGetHandleForAddressRange + ibv_reg_dmabuf_mr: upstream kernel
 * path, no extra module), then the peer-memory path (ibv_reg_mr on the device
 * pointer, which needs the nvidia-peermem module), and records which worked.
 * The CPU cannot touch this memory: write_lat polling runs in a GPU kernel (the
 * poll ops), and fill and verify run on the GPU.
 */
#include "rdma/internal.h"

#ifdef LP_HAVE_CUDA

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "gpu/gpumem.h"

/* The kind's state behind lp_mem.priv. */
struct cuda_mem {
	struct lp_gpu_buf buf;
	struct lp_gpu_poller *poller; /* while write_lat polls with the GPU */
};

static struct lp_gpu_buf *gbuf(const struct lp_mem *m)
{
	return &((struct cuda_mem *)m->priv)->buf;
}

static int cuda_alloc(struct lp_mem *m, size_t len, struct lp_fail *f)
{
	struct cuda_mem *cm;
	struct lp_fail why = { 0 };
	int n = 0, dev = m->dev < 0 ? 0 : m->dev, ret;

	if (lp_gpu_count(&n) || n == 0)
		return lp_fail_set(f, -ENODEV, "--mem cuda: no CUDA GPU or driver on this host");
	if (dev >= n)
		return lp_fail_set(f, -EINVAL, "--mem cuda:%d: this host has %d GPU%s (0..%d)", dev,
				   n, n == 1 ? "" : "s", n - 1);
	cm = calloc(1, sizeof(*cm));
	if (!cm)
		return lp_fail_set(f, -ENOMEM, "out of host memory");
	ret = lp_gpu_buf_alloc(&cm->buf, dev, len, &why);
	if (ret) {
		free(cm);
		return lp_fail_set(f, ret, "cannot allocate %zu bytes on GPU %d: %s", len, dev,
				   lp_fail_ok(&why) ? strerror(-ret) : lp_fail_msg(&why));
	}
	m->priv = cm;
	m->addr = cm->buf.ptr;
	m->dev = dev;
	snprintf(m->desc, sizeof(m->desc), "cuda:%d", dev);
	return 0;
}

static void cuda_poll_stop(struct lp_mem *m)
{
	struct cuda_mem *cm = m->priv;
	struct lp_fail why = { 0 };

	if (cm && cm->poller && lp_gpu_poller_stop(cm->poller, &why))
		lp_warn("%s", lp_fail_msg(&why)); /* the measurement is over: nothing to undo */
	if (cm)
		cm->poller = NULL;
}

static void cuda_free(struct lp_mem *m)
{
	cuda_poll_stop(m);
	lp_gpu_buf_free(gbuf(m));
	free(m->priv);
	m->priv = NULL;
}

static int cuda_reg(struct lp_mem *m, struct ibv_pd *pd, int access, struct lp_fail *f)
{
	struct lp_gpu_buf *b = gbuf(m);
	struct lp_fail why = { 0 };
	int dmabuf_err, peer_err;

	dmabuf_err = lp_gpu_buf_export_dmabuf(b, &why);
	if (!dmabuf_err) {
		m->mr = ibv_reg_dmabuf_mr(pd, b->dmabuf_off, m->len, (uintptr_t)b->ptr,
					  b->dmabuf_fd, access);
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
	peer_err = errno ? -errno : -EIO;
	return lp_fail_set(
		f, peer_err,
		"cannot register GPU memory on %s for RDMA: dma-buf: %s; peer memory: "
		"%s. Fix: use dma-buf (Linux >= 5.12, NVIDIA open kernel module, CUDA >= "
		"11.7) or load nvidia-peermem (modprobe nvidia-peermem)",
		b->bus_id, lp_fail_ok(&why) ? strerror(-dmabuf_err) : lp_fail_msg(&why),
		strerror(-peer_err));
done:
	snprintf(m->desc, sizeof(m->desc), "cuda:%d %s", m->dev, m->how);
	return 0;
}

/* The pattern is relative to the start of each range, as for host memory. */
static struct lp_gpu_buf view(const struct lp_mem *m, size_t off, size_t len)
{
	struct lp_gpu_buf v = *gbuf(m);

	v.ptr = (uint8_t *)v.ptr + off;
	v.len = len;
	v.dmabuf_fd = -1;
	return v;
}

static int cuda_fill(struct lp_mem *m, size_t off, size_t len, uint32_t seed, struct lp_fail *f)
{
	struct lp_gpu_buf v = view(m, off, len);

	return lp_gpu_buf_fill(&v, 0, len, seed, f);
}

static int cuda_verify(struct lp_mem *m, size_t off, size_t len, uint32_t seed, size_t *bad_p,
		       struct lp_fail *f)
{
	struct lp_gpu_buf v = view(m, off, len);

	return lp_gpu_buf_verify(&v, 0, len, seed, bad_p, f);
}

static int cuda_write(struct lp_mem *m, size_t off, const void *src, size_t len, struct lp_fail *f)
{
	return lp_gpu_buf_write(gbuf(m), off, src, len, f);
}

static int cuda_read(struct lp_mem *m, size_t off, void *dst, size_t len, struct lp_fail *f)
{
	return lp_gpu_buf_read(gbuf(m), off, dst, len, f);
}

/*
 * GPU polling watches one byte: it means the message has landed only where the
 * device orders RDMA writes (CUDA's GPU_DIRECT_RDMA_WRITES_ORDERING >= owner),
 * so it is refused below that. Then the GPU->CPU notification it includes is
 * measured, to be reported beside the latency.
 */
static int cuda_poll_prepare(struct lp_mem *m, uint64_t timeout_ns, double *notify_ns_p,
			     struct lp_fail *f)
{
	struct lp_fail why = { 0 };
	int order = gbuf(m)->rdma_order, ret;

	if (order < LP_GPU_RDMA_ORDER_OWNER)
		return lp_fail_set(
			f, -EOPNOTSUPP,
			"GPU %d orders GPUDirect RDMA writes as '%s' "
			"(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING): a kernel "
			"polling the last byte may see it before the rest; use "
			"--lat-method imm",
			m->dev, lp_gpu_rdma_order_name(order));
	ret = lp_gpu_notify_ns(m->dev, 200, timeout_ns, notify_ns_p, &why);
	if (ret)
		return lp_fail_set(f, ret, "GPU %d: cannot measure the GPU->CPU notification: %s",
				   m->dev, lp_fail_ok(&why) ? strerror(-ret) : lp_fail_msg(&why));
	return 0;
}

static int cuda_poll_start(struct lp_mem *m, size_t off, size_t stride, uint32_t depth,
			   uint32_t iters, uint64_t timeout_ns, struct lp_fail *f)
{
	struct cuda_mem *cm = m->priv;

	return lp_gpu_poller_start(&cm->buf, off, stride, depth, iters, timeout_ns, &cm->poller, f);
}

static int cuda_poll_seen(const struct lp_mem *m, uint32_t i)
{
	const struct cuda_mem *cm = m->priv;

	return cm->poller ? lp_gpu_poller_poll(cm->poller, i) : -EINVAL;
}

static const char *cuda_rdma_order_name(const struct lp_mem *m)
{
	return lp_gpu_rdma_order_name(gbuf(m)->rdma_order);
}

static const struct lp_mem_ops cuda_ops = {
	.name = "cuda",
	.caps = LP_MEM_CAP_NO_SCATTER_TO_CQE | LP_MEM_CAP_DEVICE_POLL | LP_MEM_CAP_DEVICE_VERIFY,
	.alloc = cuda_alloc,
	.free = cuda_free,
	.reg = cuda_reg,
	.fill = cuda_fill,
	.verify = cuda_verify,
	.write = cuda_write,
	.read = cuda_read,
	.poll_prepare = cuda_poll_prepare,
	.poll_start = cuda_poll_start,
	.poll_seen = cuda_poll_seen,
	.poll_stop = cuda_poll_stop,
	.rdma_order_name = cuda_rdma_order_name,
};

const struct lp_mem_ops *const lp_mem_cuda_ops = &cuda_ops;
#else
const struct lp_mem_ops *const lp_mem_cuda_ops = NULL; /* not built in */
#endif
