/* SPDX-License-Identifier: MIT */
/*
 * GPU memory provider for GPUDirect RDMA (lp-rdma) and the GPU tests: device
 * buffers from cudaMalloc, their dma-buf export, pattern fill/verify done on
 * the GPU, small host<->GPU copies, and a GPU-side poller that reports when a
 * byte written by someone else (a NIC, the host) becomes visible to the GPU.
 *
 * Every function returns 0 or a negative errno and records the failing CUDA
 * call (with the device) in its struct lp_fail (f; NULL: the code only). Without a driver or a GPU nothing crashes: calls
 * return -ENODEV. The CUDA runtime is linked statically; libcuda is loaded by
 * the runtime, and dlopen'ed here only for cuMemGetHandleForAddressRange.
 * All calls are synchronous, and none synchronizes the whole device, so they
 * may be used while a poller runs.
 */
#ifndef LP_GPU_GPUMEM_H
#define LP_GPU_GPUMEM_H

#include <stddef.h>
#include <stdint.h>

struct lp_fail; /* common/fail.h */

struct lp_gpu_buf {
	int dev;    /* CUDA device ordinal (as CUDA_VISIBLE_DEVICES numbers them) */
	void *ptr;  /* device pointer from cudaMalloc (UVA: valid on this device) */
	size_t len; /* usable length in bytes, as asked (the allocation is rounded up to 64 KiB) */
	int dmabuf_fd;	     /* dma-buf file descriptor after lp_gpu_buf_export_dmabuf(), else -1 */
	uint64_t dmabuf_off; /* offset of ptr inside the exported dma-buf (for ibv_reg_dmabuf_mr) */
	char bus_id[32];     /* PCI bus id of the GPU, "0000:18:00.0" (lower case, as in sysfs) */
	char name[96];	     /* device name, "NVIDIA H200" */
	int rdma_order; /* CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING: 0 none, 100 owner,
				 * 200 all devices (LP_GPU_RDMA_ORDER_*); -1 unknown */
	int sync_memops; /* CU_POINTER_ATTRIBUTE_SYNC_MEMOPS was set on the allocation (1) or not (0) */
};

/* Values of CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING (cuda.h), for code without cuda.h. */
enum { LP_GPU_RDMA_ORDER_NONE = 0, LP_GPU_RDMA_ORDER_OWNER = 100, LP_GPU_RDMA_ORDER_ALL = 200 };
/* "none", "owner", "all_devices", "unknown" */
const char *lp_gpu_rdma_order_name(int order);

/*
 * Number of CUDA devices in *n_p; -ENODEV when there is no GPU or no driver.
 * The first call initializes CUDA, with CUDA_MODULE_LOADING=EAGER unless the
 * environment says otherwise: with lazy loading, the first launch of a kernel
 * not loaded yet waits for a running poller to finish (2.99 s on an H200).
 */
int lp_gpu_count(int *n_p);
/* PCI bus id ("0000:18:00.0", lower case) of CUDA device dev; -ENODEV, -EINVAL. */
int lp_gpu_bus_id(int dev, char *buf, size_t len);

/*
 * cudaMalloc len bytes on dev, cleared to zero (like host buffers: data left by an
 * earlier run must not pass a verification), fill bus_id/name/rdma_order;
 * dmabuf_fd = -1; CU_POINTER_ATTRIBUTE_SYNC_MEMOPS is set on the allocation (as
 * GPUDirect RDMA asks) where the driver API is reachable. -ENODEV, -EINVAL, -ENOMEM.
 */
int lp_gpu_buf_alloc(struct lp_gpu_buf *b, int dev, size_t len, struct lp_fail *f);

/*
 * Export the buffer as a dma-buf (cuMemGetHandleForAddressRange through
 * dlopen("libcuda.so.1")), page-aligned around ptr; sets dmabuf_fd and
 * dmabuf_off. -EOPNOTSUPP when the driver or device cannot (the reason is
 * a warning once per process, here: later buffers fail at once, silently;
 * the export goes on to the peer-memory path); -EBUSY if already exported;
 * a failing CUDA call in fail.
 */
int lp_gpu_buf_export_dmabuf(struct lp_gpu_buf *b, struct lp_fail *fail);

/*
 * Close the dma-buf, free the memory, zero the struct (dmabuf_fd = -1). Safe
 * on a zeroed or freed buf; a cudaFree that fails is a warning.
 */
void lp_gpu_buf_free(struct lp_gpu_buf *b);

/* On the GPU: byte b->ptr[off + i] = lp_pattern_byte(seed, off + i) for i < len. -EINVAL out of range. */
int lp_gpu_buf_fill(struct lp_gpu_buf *b, size_t off, size_t len, uint32_t seed, struct lp_fail *f);

/*
 * On the GPU: check [off, off+len) against the pattern. 0 when every byte
 * matches; -EILSEQ with the lowest bad offset (from b->ptr) in *bad_off_p
 * (a finding, not recorded in f).
 * When the device orders RDMA writes below "owner", pending GPUDirect RDMA
 * writes are flushed first (cudaDeviceFlushGPUDirectRDMAWrites).
 */
int lp_gpu_buf_verify(struct lp_gpu_buf *b, size_t off, size_t len, uint32_t seed,
		      size_t *bad_off_p, struct lp_fail *f);

/* Small synchronous copies host->GPU and GPU->host at b->ptr + off. */
int lp_gpu_buf_write(struct lp_gpu_buf *b, size_t off, const void *src, size_t len,
		     struct lp_fail *f);
int lp_gpu_buf_read(struct lp_gpu_buf *b, size_t off, void *dst, size_t len, struct lp_fail *f);

/*
 * GPU-visibility poller for RDMA write latency: a one-thread kernel that, for
 * i = 1..iters, spins until the byte at b->ptr + off + ((i - 1) % depth) * stride
 * (a ring of depth slots, lp-rdma --verify; depth 1 = one place) equals (uint8_t)i, then
 * stores i into a host-mapped flag (system-scope fence). It gives up after
 * timeout_ns without progress (%globaltimer), so it never hangs the GPU.
 * lp_gpu_poller_start() first sets that byte to 0, so iteration 1 waits for a
 * write of 1. The kernel reads its (host-mapped) stop flag and the clock once
 * every stop_every spins: LP_GPU_POLL_STOP_EVERY; 1 = every spin, the old
 * behaviour, kept for the measurement in tests/gpu.
 */
#define LP_GPU_POLL_STOP_EVERY 1024u
struct lp_gpu_poller;
int lp_gpu_poller_start_every(struct lp_gpu_buf *b, size_t off, size_t stride, uint32_t depth,
			      uint32_t iters, uint64_t timeout_ns, uint32_t stop_every,
			      struct lp_gpu_poller **p_out, struct lp_fail *f);
/* lp_gpu_poller_start_every() with LP_GPU_POLL_STOP_EVERY. */
int lp_gpu_poller_start(struct lp_gpu_buf *b, size_t off, size_t stride, uint32_t depth,
			uint32_t iters, uint64_t timeout_ns, struct lp_gpu_poller **p_out,
			struct lp_fail *f);
/* CPU spins on the host flag until it reaches i: 0, or -ETIMEDOUT (CPU timeout or the kernel gave up). */
int lp_gpu_poller_wait(struct lp_gpu_poller *p, uint32_t i, uint64_t timeout_ns, struct lp_fail *f);
/* Non-blocking, silent check: 1 when iteration i was seen, 0 not yet, -ETIMEDOUT if the kernel gave up. */
int lp_gpu_poller_poll(const struct lp_gpu_poller *p, uint32_t i);
/* Tells the kernel to exit, waits for it, frees everything. 0, or the kernel's CUDA error. */
int lp_gpu_poller_stop(struct lp_gpu_poller *p, struct lp_fail *f);

/*
 * The GPU->CPU notification a GPU-polled latency includes: n ping-pongs
 * between the CPU and a one-thread kernel over host-mapped words on GPU dev
 * (the CPU writes i, the kernel answers i with a system-scope fence). *ns_p
 * gets half the median round trip, the one-way notification estimate. 0,
 * -ENODEV, -EINVAL, -ETIMEDOUT (bounded by timeout_ns), or a CUDA error.
 */
int lp_gpu_notify_ns(int dev, uint32_t n, uint64_t timeout_ns, double *ns_p, struct lp_fail *f);

#endif
