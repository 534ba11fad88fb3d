/* SPDX-License-Identifier: MIT */
/*
 * The CUDA kernels of linkperf (gpu/kernels.cu), behind C launchers so the rest
 * of gpu/ is plain C. Each launcher enqueues on `st` and returns the launch
 * status (cudaGetLastError()); nothing here synchronizes. Internal to gpu/.
 */
#ifndef LP_GPU_KERN_H
#define LP_GPU_KERN_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Spin until *flag != 0 (a host-mapped word the CPU sets once the work behind
 * the kernel is queued), or until timeout_ns of %globaltimer have passed; then
 * *timed_out (host-mapped) is set to 1. It can never hold the GPU longer.
 */
cudaError_t lp_cu_spin(cudaStream_t st, volatile int *flag, uint64_t timeout_ns,
		       volatile int *timed_out);

/* SM copy of len bytes (16-byte vectors; dst and src 16-byte aligned), grid of `blocks`. */
cudaError_t lp_cu_copy(cudaStream_t st, void *dst, const void *src, size_t len, unsigned blocks);

/* base[off .. off+len) = lp_pattern_byte(seed, i) for absolute offsets i. */
cudaError_t lp_cu_fill(cudaStream_t st, void *base, uint64_t off, uint64_t len, uint32_t seed,
		       unsigned blocks);

/*
 * Check base[off .. off+len) against the pattern; *bad (device or mapped
 * memory, set to UINT64_MAX by the caller) gets the lowest bad absolute offset.
 */
cudaError_t lp_cu_verify(cudaStream_t st, const void *base, uint64_t off, uint64_t len,
			 uint32_t seed, unsigned long long *bad, unsigned blocks);

/*
 * One thread follows n links of a pointer chain (uncached loads), starting at
 * *cursor and leaving the last address there, so successive launches walk on
 * into lines not yet visited instead of replaying the same (cached) ones.
 */
cudaError_t lp_cu_chase(cudaStream_t st, uint64_t *cursor, uint64_t n);

/* Poller states written by the kernel into *state (host-mapped). */
enum lp_cu_poll_state {
	LP_POLL_RUNNING = 0,
	LP_POLL_DONE = 1,
	LP_POLL_STOPPED = 2,
	LP_POLL_TIMEOUT = 3
};

/*
 * For i = 1..iters: spin until byte[((i - 1) % depth) * stride] == (uint8_t)i, then *flag = i and a
 * system-scope fence. Exits when *stop != 0, or after timeout_ns without
 * progress (state LP_POLL_TIMEOUT); both are checked once every stop_every
 * spins (0 = 1). flag, stop and state are host-mapped.
 */
cudaError_t lp_cu_poll(cudaStream_t st, const volatile uint8_t *byte, size_t stride, uint32_t depth,
		       uint32_t iters, uint64_t timeout_ns, uint32_t stop_every,
		       volatile uint32_t *flag, const volatile uint32_t *stop,
		       volatile uint32_t *state);

/*
 * GPU->CPU notification ping-pong over host-mapped words: for i = 1..n, spin
 * until *ping == i, then *pong = i and a system-scope fence. Exits after
 * timeout_ns without progress.
 */
cudaError_t lp_cu_pong(cudaStream_t st, const volatile uint32_t *ping, volatile uint32_t *pong,
		       uint32_t n, uint64_t timeout_ns);

#ifdef __cplusplus
}
#endif

#endif
