// SPDX-License-Identifier: MIT
/* GPU memory provider (gpu/gpumem.h): cudaMalloc buffers, dma-buf export, on-GPU pattern checks, poller. */
#include "gpu/gpumem.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "common/clock.h"
#include "common/fail.h"
#include "common/lp.h"
#include "common/stats.h"
#include "gpu/cudautil.h"
#include "gpu/kern.h"

#define LP_GPUMEM_ALIGN (64u << 10)

struct lp_gpu_poller {
	int dev;
	cudaStream_t st;
	volatile uint32_t *words; /* host-mapped: [0] flag, [1] stop, [2] state */
	uint32_t iters;
};

int lp_gpu_count(int *n_p)
{
	int n = 0;
	cudaError_t e;

	/* Before CUDA's initialization (the first call); a user's own setting wins. */
	setenv("CUDA_MODULE_LOADING", "EAGER", 0);
	e = cudaGetDeviceCount(&n);
	*n_p = 0;
	if (e != cudaSuccess) {
		lp_info("no CUDA device usable: %s", cudaGetErrorString(e));
		return -ENODEV;
	}
	if (n <= 0)
		return -ENODEV;
	*n_p = n;
	return 0;
}

static void lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

static int lp_gpu_sync_memops(const struct lp_gpu_buf *b);

int lp_gpu_buf_alloc(struct lp_gpu_buf *b, int dev, size_t len, struct lp_fail *f)
{
	struct cudaDeviceProp prop;
	size_t alloc = (len + LP_GPUMEM_ALIGN - 1) / LP_GPUMEM_ALIGN * LP_GPUMEM_ALIGN;
	int n, ret;

	memset(b, 0, sizeof(*b));
	b->dmabuf_fd = -1;
	if ((ret = lp_gpu_count(&n)))
		return ret;
	if (dev < 0 || dev >= n || !len)
		return lp_fail_set(f, -EINVAL, "lp_gpu_buf_alloc: GPU %d of %d, %zu bytes: invalid",
				   dev, n, len);
	if ((ret = lp_cuda_check(cudaSetDevice(dev), "cudaSetDevice", dev, f)))
		return ret;
	if ((ret = lp_cuda_check(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties",
				 dev, f)))
		return ret;
	if ((ret = lp_cuda_check(cudaDeviceGetPCIBusId(b->bus_id, sizeof(b->bus_id), dev),
				 "cudaDeviceGetPCIBusId", dev, f)))
		return ret;
	lower(b->bus_id);
	snprintf(b->name, sizeof(b->name), "%s", prop.name);
	if ((ret = lp_cuda_check(cudaMalloc(&b->ptr, alloc), "cudaMalloc", dev, f))) {
		b->ptr = NULL;
		return ret;
	}
	b->dev = dev;
	b->len = len;
	if (cudaDeviceGetAttribute(&b->rdma_order, cudaDevAttrGPUDirectRDMAWritesOrdering, dev) !=
	    cudaSuccess)
		b->rdma_order = -1;
	/* Before the clearing, so that SYNC_MEMOPS makes it complete when cudaMemset returns. */
	b->sync_memops = lp_gpu_sync_memops(b);
	if ((ret = lp_cuda_check(cudaMemset(b->ptr, 0, alloc), "cudaMemset", dev, f))) {
		cudaFree(b->ptr);
		b->ptr = NULL;
		return ret;
	}
	return 0;
}

/* The few driver-API entry points the runtime API lacks, resolved at run time. */
struct lp_cu_api {
	void *h;
	CUresult (*dev_get)(CUdevice *, int);
	CUresult (*attr)(int *, CUdevice_attribute, CUdevice);
	CUresult (*range)(void *, CUdeviceptr, size_t, CUmemRangeHandleType, unsigned long long);
	CUresult (*set_ptr_attr)(const void *, CUpointer_attribute, CUdeviceptr);
	CUresult (*errstr)(CUresult, const char **);
};

/* 0, or -EOPNOTSUPP with the reason in f (libcuda missing, or too old for a needed entry point). */
static int lp_cu_api_open(struct lp_cu_api *a, struct lp_fail *f)
{
	memset(a, 0, sizeof(*a));
	a->h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!a->h)
		return lp_fail_set(f, -EOPNOTSUPP, "cannot load libcuda.so.1 (%s)", dlerror());
	*(void **)&a->dev_get = dlsym(a->h, "cuDeviceGet");
	*(void **)&a->attr = dlsym(a->h, "cuDeviceGetAttribute");
	*(void **)&a->range = dlsym(a->h, "cuMemGetHandleForAddressRange");
	*(void **)&a->set_ptr_attr = dlsym(a->h, "cuPointerSetAttribute");
	*(void **)&a->errstr = dlsym(a->h, "cuGetErrorString");
	if (!a->dev_get || !a->attr || !a->range || !a->set_ptr_attr) {
		dlclose(a->h);
		a->h = NULL;
		return lp_fail_set(
			f, -EOPNOTSUPP,
			"libcuda.so.1 lacks cuMemGetHandleForAddressRange (driver too old)");
	}
	return 0;
}

static const char *lp_cu_errstr(const struct lp_cu_api *a, CUresult r)
{
	const char *s = NULL;

	if (a->errstr && a->errstr(r, &s) == CUDA_SUCCESS && s)
		return s;
	return "unknown driver error";
}

/*
 * GPUDirect RDMA asks for SYNC_MEMOPS on memory a NIC touches, so that a
 * synchronous cudaMemcpy on it is complete when it returns. 1 when set.
 */
static int lp_gpu_sync_memops(const struct lp_gpu_buf *b)
{
	struct lp_cu_api a;
	unsigned one = 1;
	struct lp_fail f = { 0 };
	CUresult r;

	if (lp_cu_api_open(&a, &f)) {
		lp_debug("GPU %d: CU_POINTER_ATTRIBUTE_SYNC_MEMOPS not set: %s", b->dev,
			 lp_fail_msg(&f));
		return 0;
	}
	r = a.set_ptr_attr(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, (CUdeviceptr)b->ptr);
	if (r != CUDA_SUCCESS)
		lp_warn("GPU %d: cannot set CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: %s", b->dev,
			lp_cu_errstr(&a, r));
	dlclose(a.h);
	return r == CUDA_SUCCESS;
}

const char *lp_gpu_rdma_order_name(int order)
{
	switch (order) {
	case LP_GPU_RDMA_ORDER_NONE:
		return "none";
	case LP_GPU_RDMA_ORDER_OWNER:
		return "owner";
	case LP_GPU_RDMA_ORDER_ALL:
		return "all_devices";
	default:
		return "unknown";
	}
}

/*
 * Where dma-buf cannot work it cannot for any buffer of this process (driver,
 * kernel): the first failure is warned about and remembered, later buffers
 * fail at once and silently. Process-wide by nature, like the log level.
 */
static int dmabuf_unsupported;

static int dmabuf_fail(const char *fmt, int dev, const char *why)
{
	lp_warn(fmt, dev, why);
	dmabuf_unsupported = 1;
	return -EOPNOTSUPP;
}

int lp_gpu_buf_export_dmabuf(struct lp_gpu_buf *b, struct lp_fail *fail)
{
	struct lp_cu_api a;
	CUdevice cdev;
	CUresult r;
	int ok = 0, fd = -1, ret;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t base, end;
	struct lp_fail f = { 0 };

	if (!b->ptr)
		return -EINVAL;
	if (b->dmabuf_fd >= 0)
		return -EBUSY;
	if (dmabuf_unsupported)
		return -EOPNOTSUPP;
	if (lp_cu_api_open(&a, &f))
		return dmabuf_fail("dma-buf export unsupported (GPU %d): %s", b->dev,
				   lp_fail_msg(&f));
	/* The runtime made the device's primary context current in lp_gpu_buf_alloc(); make sure on this thread. */
	if ((ret = lp_cuda_check(cudaSetDevice(b->dev), "cudaSetDevice", b->dev, fail)))
		goto out;
	r = a.dev_get(&cdev, b->dev);
	if (r == CUDA_SUCCESS)
		r = a.attr(&ok, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, cdev);
	if (r != CUDA_SUCCESS || !ok) {
		ret = dmabuf_fail(
			"dma-buf export unsupported on GPU %d: %s", b->dev,
			r != CUDA_SUCCESS
				? lp_cu_errstr(&a, r)
				: "CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0 (driver or kernel without dma-buf)");
		goto out;
	}
	base = (uintptr_t)b->ptr & ~(page - 1);
	end = ((uintptr_t)b->ptr + b->len + page - 1) & ~(page - 1);
	r = a.range(&fd, (CUdeviceptr)base, end - base, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	if (r != CUDA_SUCCESS || fd < 0) {
		lp_fail_set(&f, -EOPNOTSUPP, "cuMemGetHandleForAddressRange: %s",
			    lp_cu_errstr(&a, r));
		ret = dmabuf_fail("dma-buf export unsupported on GPU %d: %s", b->dev,
				  lp_fail_msg(&f));
		goto out;
	}
	b->dmabuf_fd = fd;
	b->dmabuf_off = (uint64_t)((uintptr_t)b->ptr - base);
	ret = 0;
out:
	dlclose(a.h);
	return ret;
}

void lp_gpu_buf_free(struct lp_gpu_buf *b)
{
	if (b->dmabuf_fd >= 0)
		close(b->dmabuf_fd);
	if (b->ptr) {
		struct lp_fail f = { 0 };

		cudaSetDevice(b->dev);
		if (lp_cuda_check(cudaFree(b->ptr), "cudaFree", b->dev, &f))
			lp_warn("%s", lp_fail_msg(&f)); /* nothing to undo: the caller goes on */
	}
	memset(b, 0, sizeof(*b));
	b->dmabuf_fd = -1;
}

static int lp_range_ok(const struct lp_gpu_buf *b, size_t off, size_t len, const char *fn,
		       struct lp_fail *f)
{
	if (!b->ptr || off > b->len || len > b->len - off)
		return lp_fail_set(f, -EINVAL, "%s: range %zu+%zu outside the %zu-byte buffer", fn,
				   off, len, b->len);
	return 0;
}

static unsigned lp_blocks(int dev)
{
	int sms = 0;

	if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
	    sms <= 0)
		sms = 32;
	return (unsigned)sms * 4;
}

int lp_gpu_buf_fill(struct lp_gpu_buf *b, size_t off, size_t len, uint32_t seed, struct lp_fail *f)
{
	cudaStream_t st = cudaStreamPerThread;
	int ret;

	if ((ret = lp_range_ok(b, off, len, "lp_gpu_buf_fill", f)))
		return ret;
	if ((ret = lp_cuda_check(cudaSetDevice(b->dev), "cudaSetDevice", b->dev, f)))
		return ret;
	if ((ret = lp_cuda_check(lp_cu_fill(st, b->ptr, off, len, seed, lp_blocks(b->dev)),
				 "fill kernel launch", b->dev, f)))
		return ret;
	return lp_cuda_check(cudaStreamSynchronize(st), "cudaStreamSynchronize (fill)", b->dev, f);
}

int lp_gpu_buf_verify(struct lp_gpu_buf *b, size_t off, size_t len, uint32_t seed,
		      size_t *bad_off_p, struct lp_fail *f)
{
	cudaStream_t st = cudaStreamPerThread;
	unsigned long long *bad = NULL, hbad = ~0ull;
	int ret;

	if ((ret = lp_range_ok(b, off, len, "lp_gpu_buf_verify", f)))
		return ret;
	if ((ret = lp_cuda_check(cudaSetDevice(b->dev), "cudaSetDevice", b->dev, f)))
		return ret;
	/* Writes a NIC made may not be visible to this device's kernels yet unless it orders them. */
	if (b->rdma_order < LP_GPU_RDMA_ORDER_OWNER &&
	    (ret = lp_cuda_check(cudaDeviceFlushGPUDirectRDMAWrites(
					 cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,
					 cudaFlushGPUDirectRDMAWritesToOwner),
				 "cudaDeviceFlushGPUDirectRDMAWrites", b->dev, f)))
		return ret;
	/* Stream-ordered allocation: no device-wide synchronization while a poller runs. */
	if ((ret = lp_cuda_check(cudaMallocAsync((void **)&bad, sizeof(*bad), st),
				 "cudaMallocAsync", b->dev, f)))
		return ret;
	if ((ret = lp_cuda_check(cudaMemcpyAsync(bad, &hbad, sizeof(hbad), cudaMemcpyHostToDevice,
						 st),
				 "cudaMemcpyAsync", b->dev, f)))
		goto out;
	if ((ret = lp_cuda_check(lp_cu_verify(st, b->ptr, off, len, seed, bad, lp_blocks(b->dev)),
				 "verify kernel launch", b->dev, f)))
		goto out;
	if ((ret = lp_cuda_check(cudaMemcpyAsync(&hbad, bad, sizeof(hbad), cudaMemcpyDeviceToHost,
						 st),
				 "cudaMemcpyAsync", b->dev, f)))
		goto out;
	ret = lp_cuda_check(cudaStreamSynchronize(st), "cudaStreamSynchronize (verify)", b->dev, f);
out:
	cudaFreeAsync(bad, st);
	cudaStreamSynchronize(st);
	if (!ret && hbad != ~0ull) {
		if (bad_off_p)
			*bad_off_p = (size_t)hbad;
		return -EILSEQ;
	}
	return ret;
}

int lp_gpu_buf_write(struct lp_gpu_buf *b, size_t off, const void *src, size_t len,
		     struct lp_fail *f)
{
	cudaStream_t st = cudaStreamPerThread;
	int ret;

	if ((ret = lp_range_ok(b, off, len, "lp_gpu_buf_write", f)))
		return ret;
	if ((ret = lp_cuda_check(cudaSetDevice(b->dev), "cudaSetDevice", b->dev, f)))
		return ret;
	if ((ret = lp_cuda_check(cudaMemcpyAsync((char *)b->ptr + off, src, len,
						 cudaMemcpyHostToDevice, st),
				 "cudaMemcpyAsync (host to GPU)", b->dev, f)))
		return ret;
	return lp_cuda_check(cudaStreamSynchronize(st), "cudaStreamSynchronize", b->dev, f);
}

int lp_gpu_buf_read(struct lp_gpu_buf *b, size_t off, void *dst, size_t len, struct lp_fail *f)
{
	cudaStream_t st = cudaStreamPerThread;
	int ret;

	if ((ret = lp_range_ok(b, off, len, "lp_gpu_buf_read", f)))
		return ret;
	if ((ret = lp_cuda_check(cudaSetDevice(b->dev), "cudaSetDevice", b->dev, f)))
		return ret;
	if ((ret = lp_cuda_check(cudaMemcpyAsync(dst, (const char *)b->ptr + off, len,
						 cudaMemcpyDeviceToHost, st),
				 "cudaMemcpyAsync (GPU to host)", b->dev, f)))
		return ret;
	return lp_cuda_check(cudaStreamSynchronize(st), "cudaStreamSynchronize", b->dev, f);
}

int lp_gpu_poller_start(struct lp_gpu_buf *b, size_t off, size_t stride, uint32_t depth,
			uint32_t iters, uint64_t timeout_ns, struct lp_gpu_poller **p_out,
			struct lp_fail *f)
{
	return lp_gpu_poller_start_every(b, off, stride, depth, iters, timeout_ns,
					 LP_GPU_POLL_STOP_EVERY, p_out, f);
}

int lp_gpu_poller_start_every(struct lp_gpu_buf *b, size_t off, size_t stride, uint32_t depth,
			      uint32_t iters, uint64_t timeout_ns, uint32_t stop_every,
			      struct lp_gpu_poller **p_out, struct lp_fail *f)
{
	struct lp_gpu_poller *p;
	uint8_t zero = 0;
	void *words = NULL;
	uint32_t *dwords;
	int ret;

	*p_out = NULL;
	if (!depth ||
	    (ret = lp_range_ok(b, off, (size_t)(depth - 1) * stride + 1, "lp_gpu_poller_start", f)))
		return depth ? ret : -EINVAL;
	if (!iters || !timeout_ns || !stop_every)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->dev = b->dev;
	p->iters = iters;
	if ((ret = lp_gpu_buf_write(b, off, &zero, 1, f)))
		goto err_free;
	if ((ret = lp_cuda_check(cudaHostAlloc(&words, 64,
					       cudaHostAllocMapped | cudaHostAllocPortable),
				 "cudaHostAlloc (poller flags)", b->dev, f)))
		goto err_free;
	p->words = words;
	memset(words, 0, 64);
	if ((ret = lp_cuda_check(cudaHostGetDevicePointer((void **)&dwords, words, 0),
				 "cudaHostGetDevicePointer", b->dev, f)))
		goto err_host;
	if ((ret = lp_cuda_check(cudaStreamCreateWithFlags(&p->st, cudaStreamNonBlocking),
				 "cudaStreamCreate", b->dev, f)))
		goto err_host;
	if ((ret = lp_cuda_check(lp_cu_poll(p->st, (const volatile uint8_t *)b->ptr + off, stride,
					    depth, iters, timeout_ns, stop_every, &dwords[0],
					    &dwords[1], &dwords[2]),
				 "poller kernel launch", b->dev, f)))
		goto err_stream;
	*p_out = p;
	return 0;
err_stream:
	cudaStreamDestroy(p->st);
err_host:
	cudaFreeHost(words);
err_free:
	free(p);
	return ret;
}

int lp_gpu_poller_wait(struct lp_gpu_poller *p, uint32_t i, uint64_t timeout_ns, struct lp_fail *f)
{
	uint64_t t0 = lp_now_ns();

	for (;;) {
		if (p->words[0] >= i)
			return 0;
		if (p->words[2] == LP_POLL_TIMEOUT || p->words[2] == LP_POLL_STOPPED)
			return lp_fail_set(f, -ETIMEDOUT,
					   "GPU poller on GPU %d gave up before iteration %u",
					   p->dev, i);
		if (lp_now_ns() - t0 > timeout_ns)
			return lp_fail_set(
				f, -ETIMEDOUT,
				"GPU poller on GPU %d: iteration %u not seen within %.3f ms",
				p->dev, i, timeout_ns / 1e6);
	}
}

int lp_gpu_poller_poll(const struct lp_gpu_poller *p, uint32_t i)
{
	if (p->words[0] >= i)
		return 1;
	if (p->words[2] == LP_POLL_TIMEOUT || p->words[2] == LP_POLL_STOPPED)
		return -ETIMEDOUT;
	return 0;
}

int lp_gpu_bus_id(int dev, char *buf, size_t len)
{
	int n = 0, ret = lp_gpu_count(&n);

	if (ret)
		return ret;
	if (dev < 0 || dev >= n)
		return -EINVAL;
	if (cudaDeviceGetPCIBusId(buf, (int)len, dev) != cudaSuccess)
		return -EIO;
	for (char *c = buf; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	return 0;
}

int lp_gpu_poller_stop(struct lp_gpu_poller *p, struct lp_fail *f)
{
	int ret;

	if (!p)
		return 0;
	p->words[1] = 1;
	__sync_synchronize();
	cudaSetDevice(p->dev);
	ret = lp_cuda_check(cudaStreamSynchronize(p->st), "cudaStreamSynchronize (poller)", p->dev,
			    f);
	cudaStreamDestroy(p->st);
	cudaFreeHost((void *)p->words);
	free(p);
	return ret;
}

int lp_gpu_notify_ns(int dev, uint32_t n, uint64_t timeout_ns, double *ns_p, struct lp_fail *f)
{
	volatile uint32_t *w = NULL;
	uint32_t *dw;
	cudaStream_t st = NULL;
	struct lp_stats rtt;
	struct lp_summary sum;
	int cnt, ret;

	if ((ret = lp_gpu_count(&cnt)))
		return ret;
	if (dev < 0 || dev >= cnt || !n)
		return -EINVAL;
	if ((ret = lp_cuda_check(cudaSetDevice(dev), "cudaSetDevice", dev, f)))
		return ret;
	if ((ret = lp_stats_init(&rtt, n)))
		return ret;
	if ((ret = lp_cuda_check(cudaHostAlloc((void **)&w, 64,
					       cudaHostAllocMapped | cudaHostAllocPortable),
				 "cudaHostAlloc (notification words)", dev, f)))
		goto out_stats;
	w[0] = w[1] = 0;
	if ((ret = lp_cuda_check(cudaHostGetDevicePointer((void **)&dw, (void *)w, 0),
				 "cudaHostGetDevicePointer", dev, f)) ||
	    (ret = lp_cuda_check(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking),
				 "cudaStreamCreate", dev, f)))
		goto out_host;
	if ((ret = lp_cuda_check(lp_cu_pong(st, &dw[0], &dw[1], n, timeout_ns),
				 "notification kernel launch", dev, f)))
		goto out_stream;
	for (uint32_t i = 1; i <= n && !ret; i++) {
		uint64_t t0 = lp_now_ns();

		__sync_synchronize();
		w[0] = i;
		while (w[1] != i) {
			if (lp_now_ns() - t0 > timeout_ns) {
				ret = lp_fail_set(
					f, -ETIMEDOUT,
					"GPU %d: notification ping %u not answered within %.3f ms",
					dev, i, timeout_ns / 1e6);
				break;
			}
		}
		if (!ret)
			lp_stats_add(&rtt, (double)(lp_now_ns() - t0));
	}
	if (!ret) {
		lp_stats_summarize(&rtt, &sum);
		*ns_p = sum.p50 / 2;
	}
out_stream:
	/* The kernel ends after n answers or its own timeout: this wait is bounded. */
	cudaStreamSynchronize(st);
	cudaStreamDestroy(st);
out_host:
	cudaFreeHost((void *)w);
out_stats:
	lp_stats_free(&rtt);
	return ret;
}
