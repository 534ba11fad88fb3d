/* SPDX-License-Identifier: MIT */
/*
 * Data pattern for verification, shared by host code and CUDA kernels (plain C,
 * static inline, no libc calls, so a .cu file can include it and call it from
 * device code when LP_PATTERN_DEVICE is defined as __host__ __device__).
 *
 * Byte i of a buffer filled with seed s is lp_pattern_byte(s, i). The bytes of
 * each aligned 8-byte word come from one splitmix64 hash of (seed, word index),
 * so:
 *   - shifted data is detected (every word differs from its neighbours),
 *   - stale data is detected (neighbouring seeds give unrelated words),
 *   - it is never an all-zero buffer (the chance of a zero word is 2^-64),
 *   - a fill or check costs one multiply-xorshift chain per 8 bytes.
 */
#ifndef LP_PATTERN_H
#define LP_PATTERN_H

#include <stdint.h>

#ifndef LP_PATTERN_DEVICE
#define LP_PATTERN_DEVICE
#endif

/* The 64-bit little-endian word holding bytes 8w .. 8w+7 for seed. */
static inline LP_PATTERN_DEVICE uint64_t lp_pattern_word(uint32_t seed, uint64_t w)
{
	uint64_t x = w * 0x9E3779B97F4A7C15ull +
		     ((uint64_t)seed << 32 | seed) * 0xD1B54A32D192ED03ull + 0x632BE59BD9B4E019ull;

	x ^= x >> 30;
	x *= 0xBF58476D1CE4E5B9ull;
	x ^= x >> 27;
	x *= 0x94D049BB133111EBull;
	x ^= x >> 31;
	return x;
}

/* Byte i (offset from the start of the buffer) of the pattern for seed. */
static inline LP_PATTERN_DEVICE uint8_t lp_pattern_byte(uint32_t seed, uint64_t i)
{
	return (uint8_t)(lp_pattern_word(seed, i >> 3) >> ((i & 7) * 8));
}

/*
 * The seed of one message's pattern, from the run's seed (random per client
 * run, sent to the server in the test parameters), the sending side (0 client,
 * 1 server), the QP and the message's slot in its ring (lp-rdma), or the copy
 * job (lp-gpu). Data that landed in another QP's or another message's place,
 * or that came from the other side or an earlier run, fails verification.
 */
static inline LP_PATTERN_DEVICE uint32_t lp_pattern_seed(uint32_t run, uint32_t side, uint32_t qp,
							 uint64_t slot)
{
	uint64_t w = lp_pattern_word(run, slot ^ (uint64_t)qp << 40 ^ (uint64_t)side << 56);

	return (uint32_t)(w ^ w >> 32);
}

#endif
