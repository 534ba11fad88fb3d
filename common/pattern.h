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
	uint64_t x = w * 0x9E3779B97F4A7C15ull + ((uint64_t)seed << 32 | seed) * 0xD1B54A32D192ED03ull +
		     0x632BE59BD9B4E019ull;

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

#endif
