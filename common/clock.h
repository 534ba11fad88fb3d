/* SPDX-License-Identifier: MIT */
/*
 * Timing. Every linkperf time comes from CLOCK_MONOTONIC_RAW: it is not slewed
 * by NTP, is read through the vDSO (tens of ns), and needs no calibration, so
 * nothing depends on /proc/cpuinfo MHz or on an invariant TSC.
 */
#ifndef LP_CLOCK_H
#define LP_CLOCK_H

#include <stdint.h>

/* Nanoseconds on CLOCK_MONOTONIC_RAW. */
uint64_t lp_now_ns(void);

/* Resolution of that clock in ns, as reported by clock_getres(). */
uint64_t lp_clock_res_ns(void);

/* Median cost of one lp_now_ns() call in ns (measured over a few thousand reads). */
double lp_clock_overhead_ns(void);

/* Wall-clock time as ISO-8601 UTC ("2026-11-29T15:47:00Z") into buf. */
void lp_time_iso8601(char *buf, unsigned len);

/* Sleep ms milliseconds. */
void lp_sleep_ms(unsigned ms);

#endif
