// SPDX-License-Identifier: MIT
#include "clock.h"

#include <stdlib.h>
#include <time.h>

uint64_t lp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t lp_clock_res_ns(void)
{
	struct timespec ts;

	if (clock_getres(CLOCK_MONOTONIC_RAW, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

double lp_clock_overhead_ns(void)
{
	enum { ROUNDS = 101, READS = 64 };
	uint64_t per[ROUNDS];

	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = lp_now_ns(), t1 = t0;

		for (int i = 0; i < READS; i++)
			t1 = lp_now_ns();
		per[r] = t1 - t0;
	}
	qsort(per, ROUNDS, sizeof(per[0]), cmp_u64);
	return (double)per[ROUNDS / 2] / READS;
}

void lp_time_iso8601(char *buf, unsigned len)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void lp_sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}
