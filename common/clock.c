// SPDX-License-Identifier: MIT
#include "clock.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lp.h"

static uint64_t raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Process-wide clock choice (see clock.h): written once by lp_clock_init. */
static struct {
	bool tsc;
	double ns_per_tick;
	uint64_t tick0, raw0;
	char desc[160];
} clk = { .desc = "CLOCK_MONOTONIC_RAW" };

#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t tsc_read(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}
#define LP_HAVE_TSC 1
#else
static inline uint64_t tsc_read(void)
{
	return 0;
}
#define LP_HAVE_TSC 0
#endif

uint64_t lp_now_ns(void)
{
	if (clk.tsc)
		return clk.raw0 + (uint64_t)((double)(tsc_read() - clk.tick0) * clk.ns_per_tick);
	return raw_ns();
}

uint64_t lp_ticks(void)
{
	return clk.tsc ? tsc_read() : raw_ns();
}

double lp_ticks_to_ns(uint64_t ticks)
{
	return clk.tsc ? (double)ticks * clk.ns_per_tick : (double)ticks;
}

static bool cpu_flag(const char *flag)
{
	char line[4096];
	FILE *f = fopen("/proc/cpuinfo", "r");
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		for (char *tok = strtok(line, " \t\n"); tok; tok = strtok(NULL, " \t\n"))
			if (!strcmp(tok, flag))
				found = true;
		break;
	}
	if (f)
		fclose(f);
	return found;
}

/* One (raw ns, tsc) pair: the TSC read closest around a raw read, out of a few tries. */
static void pair_read(uint64_t *raw_p, double *tsc_p)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 8; i++) {
		uint64_t a = tsc_read(), r = raw_ns(), b = tsc_read();

		if (b - a < best) {
			best = b - a;
			*raw_p = r;
			*tsc_p = (double)a + (double)(b - a) / 2;
		}
	}
}

static double calibrate(void)
{
	uint64_t r0, r1;
	double t0, t1;

	pair_read(&r0, &t0);
	do
		r1 = raw_ns();
	while (r1 - r0 < 25000000ull);
	pair_read(&r1, &t1);
	return t1 > t0 ? (double)(r1 - r0) / (t1 - t0) : 0;
}

int lp_clock_init(const char *mode)
{
	bool invariant, slow, want;
	double a, b, cost;

	if (!mode || !strcmp(mode, "auto"))
		mode = "auto";
	else if (strcmp(mode, "tsc") && strcmp(mode, "raw"))
		return -EINVAL;
	clk.tsc = false;
	cost = lp_clock_overhead_ns();
	snprintf(clk.desc, sizeof(clk.desc), "CLOCK_MONOTONIC_RAW (%.0f ns per read)", cost);
	if (!strcmp(mode, "raw"))
		return 0;
	invariant = cpu_flag("constant_tsc") && cpu_flag("nonstop_tsc");
	slow = cost > 1000;
	want = !strcmp(mode, "tsc") || invariant || slow;
	if (!LP_HAVE_TSC || !want)
		return strcmp(mode, "tsc") ? 0 : -EOPNOTSUPP;
	a = calibrate();
	b = calibrate();
	if (a <= 0 || b <= 0 || (a > b ? a / b : b / a) > 1.005) {
		lp_warn("TSC rate unstable (%.6f vs %.6f ns/tick): using CLOCK_MONOTONIC_RAW", a,
			b);
		return strcmp(mode, "tsc") ? 0 : -EOPNOTSUPP;
	}
	clk.ns_per_tick = (a + b) / 2;
	clk.raw0 = raw_ns();
	clk.tick0 = tsc_read();
	clk.tsc = true;
	snprintf(clk.desc, sizeof(clk.desc),
		 "tsc at %.1f MHz, calibrated against CLOCK_MONOTONIC_RAW (%s; a raw read costs "
		 "%.0f ns)",
		 1e3 / clk.ns_per_tick,
		 invariant ? "invariant TSC"
		 : slow	   ? "not flagged invariant: chosen because the kernel clock is slow"
			   : "forced",
		 cost);
	return 0;
}

const char *lp_clock_name(void)
{
	return clk.tsc ? "tsc" : "CLOCK_MONOTONIC_RAW";
}

const char *lp_clock_desc(void)
{
	return clk.desc;
}

double lp_clock_drift(void)
{
	uint64_t r, t;

	if (!clk.tsc)
		return 0;
	t = tsc_read();
	r = raw_ns();
	if (r <= clk.raw0 + 1000000)
		return 0;
	return ((double)(t - clk.tick0) * clk.ns_per_tick - (double)(r - clk.raw0)) /
	       (double)(r - clk.raw0);
}

double lp_clock_res_ns(void)
{
	struct timespec ts;

	/* The TSC counts in cycles: its resolution is one tick, not the kernel clock's. */
	if (clk.tsc)
		return clk.ns_per_tick;
	if (clock_getres(CLOCK_MONOTONIC_RAW, &ts))
		return 0;
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
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
		uint64_t t0 = raw_ns(), t1 = t0;

		for (int i = 0; i < READS; i++)
			t1 = raw_ns();
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
