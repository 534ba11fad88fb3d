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
#include "common/lp.h"
#include "gpu/cudautil.h"
#include "gpu/kern.h"

#define LP_GPUMEM_ALIGN (64u << 10)

struct lp_gpu_poller {
	int dev;
	cudaStream_t st;
	volatile uint32_t *words;	/* host-mapped: [0] flag, [1] stop, [2] state */
	uint32_t iters;
};

int lp_gpu_count(int *n_p)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

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

int lp_gpu_buf_alloc(struct lp_gpu_buf *b, int dev, size_t len)
{
	struct cudaDeviceProp prop;
	size_t alloc = (len + LP_GPUMEM_ALIGN - 1) / LP_GPUMEM_ALIGN * LP_GPUMEM_ALIGN;
	int n, ret;

	memset(b, 0, sizeof(*b));
	b->dmabuf_fd = -1;
	if ((ret = lp_gpu_count(&n)))
		return ret;
	if (dev < 0 || dev >= n || !len) {
		lp_err("lp_gpu_buf_alloc: GPU %d of %d, %zu bytes: invalid", dev, n, len);
		return -EINVAL;
	}
	if ((ret = lp_cuda_check(cudaSetDevice(dev), "cudaSetDevice", dev, NULL, 0)))
		return ret;
	if ((ret = lp_cuda_check(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties", dev, NULL, 0)))
		return ret;
	if ((ret = lp_cuda_check(cudaDeviceGetPCIBusId(b->bus_id, sizeof(b->bus_id), dev), "cudaDeviceGetPCIBusId",
				 dev, NULL, 0)))
		return ret;
	lower(b->bus_id);
	snprintf(b->name, sizeof(b->name), "%s", prop.name);
	if ((ret = lp_cuda_check(cudaMalloc(&b->ptr, alloc), "cudaMalloc", dev, NULL, 0))) {
		b->ptr = NULL;
		return ret;
	}
	if ((ret = lp_cuda_check(cudaMemset(b->ptr, 0, alloc), "cudaMemset", dev, NULL, 0))) {
		cudaFree(b->ptr);
		b->ptr = NULL;
		return ret;
	}
	b->dev = dev;
	b->len = len;
	return 0;
}

/* The few driver-API entry points the export needs, resolved at run time. */
struct lp_cu_api {
	void *h;
	CUresult (*dev_get)(CUdevice *, int);
	CUresult (*attr)(int *, CUdevice_attribute, CUdevice);
	CUresult (*range)(void *, CUdeviceptr, size_t, CUmemRangeHandleType, unsigned long long);
	CUresult (*errstr)(CUresult, const char **);
};

static int lp_cu_api_open(struct lp_cu_api *a)
{
	memset(a, 0, sizeof(*a));
	a->h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!a->h) {
		lp_warn("dma-buf export unsupported: cannot load libcuda.so.1 (%s)", dlerror());
		return -EOPNOTSUPP;
	}
	*(void **)&a->dev_get = dlsym(a->h, "cuDeviceGet");
	*(void **)&a->attr = dlsym(a->h, "cuDeviceGetAttribute");
	*(void **)&a->range = dlsym(a->h, "cuMemGetHandleForAddressRange");
	*(void **)&a->errstr = dlsym(a->h, "cuGetErrorString");
	if (!a->dev_get || !a->attr || !a->range) {
		lp_warn("dma-buf export unsupported: libcuda.so.1 lacks cuMemGetHandleForAddressRange (driver too old)");
		dlclose(a->h);
		a->h = NULL;
		return -EOPNOTSUPP;
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

int lp_gpu_buf_export_dmabuf(struct lp_gpu_buf *b)
{
	struct lp_cu_api a;
	CUdevice cdev;
	CUresult r;
	int ok = 0, fd = -1, ret;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t base, end;

	if (!b->ptr)
		return -EINVAL;
	if (b->dmabuf_fd >= 0)
		return -EBUSY;
	if ((ret = lp_cu_api_open(&a)))
		return ret;
	/* The runtime made the device's primary context current in lp_gpu_buf_alloc(); make sure on this thread. */
	if ((ret = lp_cuda_check(cudaSetDevice(b->dev), "cudaSetDevice", b->dev, NULL, 0)))
		goto out;
	r = a.dev_get(&cdev, b->dev);
	if (r == CUDA_SUCCESS)
		r = a.attr(&ok, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, cdev);
	if (r != CUDA_SUCCESS || !ok) {
		lp_warn("dma-buf export unsupported on GPU %d: %s", b->dev,
			r != CUDA_SUCCESS ? lp_cu_errstr(&a, r)
					  : "CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0 (driver or kernel without dma-buf)");
		ret = -EOPNOTSUPP;
		goto out;
	}
	base = (uintptr_t)b->ptr & ~(page - 1);
	end = ((uintptr_t)b->ptr + b->len + page - 1) & ~(page - 1);
	r = a.range(&fd, (CUdeviceptr)base, end - base, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	if (r != CUDA_SUCCESS || fd < 0) {
		lp_warn("dma-buf export unsupported on GPU %d: cuMemGetHandleForAddressRange: %s", b->dev,
			lp_cu_errstr(&a, r));
		ret = -EOPNOTSUPP;
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
		cudaSetDevice(b->dev);
		lp_cuda_check(cudaFree(b->ptr), "cudaFree", b->dev, NULL, 0);
	}
	memset(b, 0, sizeof(*b));
	b->dmabuf_fd = -1;
}

static int lp_range_ok(const struct lp_gpu_buf *b, size_t off, size_t len, const char *fn)
{
	if (!b->ptr || off > b->len || len > b->len - off) {
		lp_err("%s: range %zu+%zu outside the %zu-byte buffer", fn, off, len, b->len);
		return -EINVAL;
	}
	return 0;
}

static unsigned lp_blocks(int dev)
{
	int sms = 0;

	if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms <= 0)
		sms = 32;
	return (unsigned)sms * 4;
}

int lp_gpu_buf_fill(struct lp_gpu_buf *b, size_t off, size_t len, uint32_t seed)
{
	cudaStream_t st = cudaStreamPerThread;
	int ret;

	if ((ret = lp_range_ok(b, off, len, "lp_gpu_buf_fill")))
		return ret;
	if ((ret = lp_cuda_check(cudaSetDevice(b->dev), "cudaSetDevice", b->dev, NULL, 0)))
		return ret;
	if ((ret = lp_cuda_check(lp_cu_fill(st, b->ptr, off, len, seed, lp_blocks(b->dev)), "fill kernel launch",
				 b->dev, NULL, 0)))
		return ret;
	return lp_cuda_check(cudaStreamSynchronize(st), "cudaStreamSynchronize (fill)", b->dev, NULL, 0);
}

int lp_gpu_buf_verify(struct lp_gpu_buf *b, size_t off, size_t len, uint32_t seed, size_t *bad_off_p)
{
	cudaStream_t st = cudaStreamPerThread;
	unsigned long long *bad = NULL, hbad = ~0ull;
	int ret;

	if ((ret = lp_range_ok(b, off, len, "lp_gpu_buf_verify")))
		return ret;
	if ((ret = lp_cuda_check(cudaSetDevice(b->dev), "cudaSetDevice", b->dev, NULL, 0)))
		return ret;
	/* Stream-ordered allocation: no device-wide synchronization while a poller runs. */
	if ((ret = lp_cuda_check(cudaMallocAsync((void **)&bad, sizeof(*bad), st), "cudaMallocAsync", b->dev, NULL, 0)))
		return ret;
	if ((ret = lp_cuda_check(cudaMemcpyAsync(bad, &hbad, sizeof(hbad), cudaMemcpyHostToDevice, st),
				 "cudaMemcpyAsync", b->dev, NULL, 0)))
		goto out;
	if ((ret = lp_cuda_check(lp_cu_verify(st, b->ptr, off, len, seed, bad, lp_blocks(b->dev)),
				 "verify kernel launch", b->dev, NULL, 0)))
		goto out;
	if ((ret = lp_cuda_check(cudaMemcpyAsync(&hbad, bad, sizeof(hbad), cudaMemcpyDeviceToHost, st),
				 "cudaMemcpyAsync", b->dev, NULL, 0)))
		goto out;
	ret = lp_cuda_check(cudaStreamSynchronize(st), "cudaStreamSynchronize (verify)", b->dev, NULL, 0);
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

int lp_gpu_buf_write(struct lp_gpu_buf *b, size_t off, const void *src, size_t len)
{
	cudaStream_t st = cudaStreamPerThread;
	int ret;

	if ((ret = lp_range_ok(b, off, len, "lp_gpu_buf_write")))
		return ret;
	if ((ret = lp_cuda_check(cudaSetDevice(b->dev), "cudaSetDevice", b->dev, NULL, 0)))
		return ret;
	if ((ret = lp_cuda_check(cudaMemcpyAsync((char *)b->ptr + off, src, len, cudaMemcpyHostToDevice, st),
				 "cudaMemcpyAsync (host to GPU)", b->dev, NULL, 0)))
		return ret;
	return lp_cuda_check(cudaStreamSynchronize(st), "cudaStreamSynchronize", b->dev, NULL, 0);
}

int lp_gpu_buf_read(struct lp_gpu_buf *b, size_t off, void *dst, size_t len)
{
	cudaStream_t st = cudaStreamPerThread;
	int ret;

	if ((ret = lp_range_ok(b, off, len, "lp_gpu_buf_read")))
		return ret;
	if ((ret = lp_cuda_check(cudaSetDevice(b->dev), "cudaSetDevice", b->dev, NULL, 0)))
		return ret;
	if ((ret = lp_cuda_check(cudaMemcpyAsync(dst, (const char *)b->ptr + off, len, cudaMemcpyDeviceToHost, st),
				 "cudaMemcpyAsync (GPU to host)", b->dev, NULL, 0)))
		return ret;
	return lp_cuda_check(cudaStreamSynchronize(st), "cudaStreamSynchronize", b->dev, NULL, 0);
}

int lp_gpu_poller_start(struct lp_gpu_buf *b, size_t off, size_t stride, uint32_t depth, uint32_t iters,
			uint64_t timeout_ns, struct lp_gpu_poller **p_out)
{
	struct lp_gpu_poller *p;
	uint8_t zero = 0;
	void *words = NULL;
	uint32_t *dwords;
	int ret;

	*p_out = NULL;
	if (!depth || (ret = lp_range_ok(b, off, (size_t)(depth - 1) * stride + 1, "lp_gpu_poller_start")))
		return depth ? ret : -EINVAL;
	if (!iters || !timeout_ns)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->dev = b->dev;
	p->iters = iters;
	if ((ret = lp_gpu_buf_write(b, off, &zero, 1)))
		goto err_free;
	if ((ret = lp_cuda_check(cudaHostAlloc(&words, 64, cudaHostAllocMapped | cudaHostAllocPortable),
				 "cudaHostAlloc (poller flags)", b->dev, NULL, 0)))
		goto err_free;
	p->words = words;
	memset(words, 0, 64);
	if ((ret = lp_cuda_check(cudaHostGetDevicePointer((void **)&dwords, words, 0), "cudaHostGetDevicePointer",
				 b->dev, NULL, 0)))
		goto err_host;
	if ((ret = lp_cuda_check(cudaStreamCreateWithFlags(&p->st, cudaStreamNonBlocking), "cudaStreamCreate",
				 b->dev, NULL, 0)))
		goto err_host;
	if ((ret = lp_cuda_check(lp_cu_poll(p->st, (const volatile uint8_t *)b->ptr + off, stride, depth, iters, timeout_ns,
					    &dwords[0], &dwords[1], &dwords[2]),
				 "poller kernel launch", b->dev, NULL, 0)))
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

int lp_gpu_poller_wait(struct lp_gpu_poller *p, uint32_t i, uint64_t timeout_ns)
{
	uint64_t t0 = lp_now_ns();

	for (;;) {
		if (p->words[0] >= i)
			return 0;
		if (p->words[2] == LP_POLL_TIMEOUT || p->words[2] == LP_POLL_STOPPED) {
			lp_err("GPU poller on GPU %d gave up before iteration %u", p->dev, i);
			return -ETIMEDOUT;
		}
		if (lp_now_ns() - t0 > timeout_ns) {
			lp_err("GPU poller on GPU %d: iteration %u not seen within %.3f ms", p->dev, i, timeout_ns / 1e6);
			return -ETIMEDOUT;
		}
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

int lp_gpu_poller_stop(struct lp_gpu_poller *p)
{
	int ret;

	if (!p)
		return 0;
	p->words[1] = 1;
	__sync_synchronize();
	cudaSetDevice(p->dev);
	ret = lp_cuda_check(cudaStreamSynchronize(p->st), "cudaStreamSynchronize (poller)", p->dev, NULL, 0);
	cudaStreamDestroy(p->st);
	cudaFreeHost((void *)p->words);
	free(p);
	return ret;
}
