// SPDX-License-Identifier: MIT
/* The kernels of linkperf: spin/hold, SM copy, pattern fill/verify, pointer chase, visibility poller. */
#include <cuda_runtime.h>

#define LP_PATTERN_DEVICE __host__ __device__
#include "common/pattern.h"
#include "gpu/kern.h"

static __device__ __forceinline__ uint64_t lp_globaltimer(void)
{
	uint64_t t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

static __global__ void k_spin(volatile int *flag, uint64_t timeout_ns, volatile int *timed_out)
{
	uint64_t t0 = lp_globaltimer();

	while (!*flag) {
		if (lp_globaltimer() - t0 > timeout_ns) {
			*timed_out = 1;
			__threadfence_system();
			break;
		}
	}
}

/* Four independent 16-byte loads in flight per thread before the stores. */
static __global__ void k_copy(int4 *__restrict__ d, const int4 *__restrict__ s, size_t n)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	for (; i + 3 * stride < n; i += 4 * stride) {
		int4 a = s[i], b = s[i + stride], c = s[i + 2 * stride], e = s[i + 3 * stride];

		d[i] = a;
		d[i + stride] = b;
		d[i + 2 * stride] = c;
		d[i + 3 * stride] = e;
	}
	for (; i < n; i += stride)
		d[i] = s[i];
}

static __global__ void k_copy_tail(uint8_t *d, const uint8_t *s, size_t n)
{
	for (size_t i = threadIdx.x; i < n; i += blockDim.x)
		d[i] = s[i];
}

/* Word w covers absolute bytes [8w, 8w+8); only bytes inside [lo, hi) are touched. */
static __global__ void k_fill(uint8_t *base, uint64_t lo, uint64_t hi, uint32_t seed)
{
	uint64_t w0 = lo >> 3, w1 = (hi + 7) >> 3;
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x;

	for (uint64_t w = w0 + (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; w < w1;
	     w += stride) {
		uint64_t v = lp_pattern_word(seed, w);

		if (w * 8 >= lo && w * 8 + 8 <= hi) {
			*(uint64_t *)(base + w * 8) = v;
		} else {
			for (uint64_t i = w * 8; i < w * 8 + 8; i++)
				if (i >= lo && i < hi)
					base[i] = (uint8_t)(v >> ((i & 7) * 8));
		}
	}
}

static __global__ void k_verify(const uint8_t *base, uint64_t lo, uint64_t hi, uint32_t seed,
				unsigned long long *bad)
{
	uint64_t w0 = lo >> 3, w1 = (hi + 7) >> 3;
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x;

	for (uint64_t w = w0 + (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; w < w1;
	     w += stride) {
		uint64_t v = lp_pattern_word(seed, w);

		if (w * 8 >= lo && w * 8 + 8 <= hi && *(const uint64_t *)(base + w * 8) == v)
			continue;
		for (uint64_t i = w * 8; i < w * 8 + 8; i++) {
			if (i >= lo && i < hi && base[i] != (uint8_t)(v >> ((i & 7) * 8))) {
				atomicMin(bad, (unsigned long long)i);
				break;
			}
		}
	}
}

static __global__ void k_chase(uint64_t *cursor, uint64_t n)
{
	const unsigned long long *p = (const unsigned long long *)*cursor;

	for (uint64_t i = 0; i < n; i++)
		p = (const unsigned long long *)__ldcv(p);
	*cursor = (uint64_t)p;
}

/*
 * Iteration i waits on the byte of ring slot (i - 1) % depth. The stop flag and
 * the clock are looked at once every stop_every spins: the flag is host-mapped,
 * and reading it is a PCIe round trip (~1 us on an H200, against ~14 ns for a
 * poll of GPU memory) that would sit in every detection.
 */
static __global__ void k_poll(const volatile uint8_t *ring, size_t stride, uint32_t depth,
			      uint32_t iters, uint64_t timeout_ns, uint32_t stop_every,
			      volatile uint32_t *flag, const volatile uint32_t *stop,
			      volatile uint32_t *state)
{
	uint64_t last = lp_globaltimer();
	uint32_t spins = 0;

	for (uint32_t i = 1; i <= iters; i++) {
		uint8_t want = (uint8_t)i;
		const volatile uint8_t *byte = ring + (size_t)((i - 1) % depth) * stride;

		while (*byte != want) {
			if (++spins < stop_every)
				continue;
			spins = 0;
			if (*stop) {
				*state = LP_POLL_STOPPED;
				__threadfence_system();
				return;
			}
			if (lp_globaltimer() - last > timeout_ns) {
				*state = LP_POLL_TIMEOUT;
				__threadfence_system();
				return;
			}
		}
		*flag = i;
		__threadfence_system();
		last = lp_globaltimer();
	}
	*state = LP_POLL_DONE;
	__threadfence_system();
}

/* GPU->CPU notification ping-pong: for i = 1..n, wait for *ping == i (host-mapped), answer *pong = i. */
static __global__ void k_pong(const volatile uint32_t *ping, volatile uint32_t *pong, uint32_t n,
			      uint64_t timeout_ns)
{
	uint64_t last = lp_globaltimer();

	for (uint32_t i = 1; i <= n; i++) {
		while (*ping != i)
			if (lp_globaltimer() - last > timeout_ns)
				return;
		*pong = i;
		__threadfence_system();
		last = lp_globaltimer();
	}
}

extern "C" cudaError_t lp_cu_spin(cudaStream_t st, volatile int *flag, uint64_t timeout_ns,
				  volatile int *timed_out)
{
	k_spin<<<1, 1, 0, st>>>(flag, timeout_ns, timed_out);
	return cudaGetLastError();
}

extern "C" cudaError_t lp_cu_copy(cudaStream_t st, void *dst, const void *src, size_t len,
				  unsigned blocks)
{
	size_t n = len / 16, tail = len % 16;

	if (n)
		k_copy<<<blocks, 512, 0, st>>>((int4 *)dst, (const int4 *)src, n);
	if (tail)
		k_copy_tail<<<1, 32, 0, st>>>((uint8_t *)dst + n * 16,
					      (const uint8_t *)src + n * 16, tail);
	return cudaGetLastError();
}

extern "C" cudaError_t lp_cu_fill(cudaStream_t st, void *base, uint64_t off, uint64_t len,
				  uint32_t seed, unsigned blocks)
{
	if (len)
		k_fill<<<blocks, 256, 0, st>>>((uint8_t *)base, off, off + len, seed);
	return cudaGetLastError();
}

extern "C" cudaError_t lp_cu_verify(cudaStream_t st, const void *base, uint64_t off, uint64_t len,
				    uint32_t seed, unsigned long long *bad, unsigned blocks)
{
	if (len)
		k_verify<<<blocks, 256, 0, st>>>((const uint8_t *)base, off, off + len, seed, bad);
	return cudaGetLastError();
}

extern "C" cudaError_t lp_cu_chase(cudaStream_t st, uint64_t *cursor, uint64_t n)
{
	k_chase<<<1, 1, 0, st>>>(cursor, n);
	return cudaGetLastError();
}

extern "C" cudaError_t lp_cu_poll(cudaStream_t st, const volatile uint8_t *byte, size_t stride,
				  uint32_t depth, uint32_t iters, uint64_t timeout_ns,
				  uint32_t stop_every, volatile uint32_t *flag,
				  const volatile uint32_t *stop, volatile uint32_t *state)
{
	k_poll<<<1, 1, 0, st>>>(byte, stride, depth, iters, timeout_ns, stop_every ? stop_every : 1,
				flag, stop, state);
	return cudaGetLastError();
}

extern "C" cudaError_t lp_cu_pong(cudaStream_t st, const volatile uint32_t *ping,
				  volatile uint32_t *pong, uint32_t n, uint64_t timeout_ns)
{
	k_pong<<<1, 1, 0, st>>>(ping, pong, n, timeout_ns);
	return cudaGetLastError();
}
