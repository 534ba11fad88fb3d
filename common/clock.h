/* SPDX-License-Identifier: MIT */
/*
 * Timing. lp_now_ns() reads one of two clocks, chosen once by lp_clock_init():
 *
 *  - CLOCK_MONOTONIC_RAW (not slewed by NTP; read through the vDSO in tens of
 *    ns when the kernel's clocksource is the TSC);
 *  - the CPU's time-stamp counter, converted with a rate calibrated against
 *    CLOCK_MONOTONIC_RAW (two 25 ms calibrations that must agree to 0.5 %),
 *    never /proc/cpuinfo MHz. "auto" takes it when the CPU flags it invariant
 *    (constant_tsc + nonstop_tsc), or when a CLOCK_MONOTONIC_RAW read costs
 *    over 1 us (kernel clocksource hpet/acpi_pm, as in VMs) - a clock that
 *    costs as much as what it measures would inflate every sample.
 *
 * lp_clock_drift() compares both clocks since init, so every result can say
 * how far the TSC rate held. The choice is process-wide (one CPU clock), set
 * once by main before any measurement, like the log level.
 */
#ifndef LP_CLOCK_H
#define LP_CLOCK_H

#include <stdint.h>

/* "auto" (default), "tsc" or "raw". 0, or -EINVAL / -EOPNOTSUPP (no usable TSC for "tsc"). */
int lp_clock_init(const char *mode);
/* Nanoseconds on the chosen clock (CLOCK_MONOTONIC_RAW before lp_clock_init). */
uint64_t lp_now_ns(void);
/*
 * Raw ticks of the chosen clock (TSC cycles, or ns for CLOCK_MONOTONIC_RAW), for
 * timed loops: reading ticks does no arithmetic between the stamp and the work
 * it times; convert differences afterwards with lp_ticks_to_ns().
 */
uint64_t lp_ticks(void);
double lp_ticks_to_ns(uint64_t ticks);
/* "tsc" or "CLOCK_MONOTONIC_RAW". */
const char *lp_clock_name(void);
/* Why it was chosen and its rate, one line. */
const char *lp_clock_desc(void);
/* Relative difference of TSC-measured vs CLOCK_MONOTONIC_RAW-measured time since init (0 for raw). */
double lp_clock_drift(void);

/*
 * Resolution of the chosen clock in ns: the TSC's tick period when the TSC is the clock
 * (fractional, e.g. 0.33 ns at 3 GHz), else clock_getres(CLOCK_MONOTONIC_RAW); 0 if unknown.
 */
double lp_clock_res_ns(void);

/* Median cost of one lp_now_ns() call in ns (measured over a few thousand reads). */
double lp_clock_overhead_ns(void);

/* Wall-clock time as ISO-8601 UTC ("2026-11-29T15:47:00Z") into buf. */
void lp_time_iso8601(char *buf, unsigned len);

/* Sleep ms milliseconds. */
void lp_sleep_ms(unsigned ms);

#endif
