/* SPDX-License-Identifier: MIT */
/*
 * Units, stated once: GB/s = 1e9 bytes/s, Gb/s = 1e9 bits/s, sizes in bytes
 * (written with binary suffixes KiB/MiB/GiB when abbreviated), times in ns
 * inside the library and us in tables.
 */
#ifndef LP_UNITS_H
#define LP_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* bytes moved in ns nanoseconds -> GB/s (1e9 B/s) and Gb/s (1e9 bit/s). */
double lp_gbytes_per_s(double bytes, double ns);
double lp_gbits_per_s(double bytes, double ns);
/* count events in ns nanoseconds -> millions per second. */
double lp_mrate(double count, double ns);
/* value as a percent of ceiling; NaN when the ceiling is unknown (<= 0). */
double lp_percent_of(double value, double ceiling);

/* "2 B", "4 KiB", "1.5 MiB", "8 GiB": exact binary multiples print without decimals. */
void lp_fmt_size(char *buf, size_t len, uint64_t bytes);

/*
 * PCIe: per-lane data rate in Gb/s after line coding for a link speed in GT/s
 * (2.5 and 5 use 8b/10b, 8 and up 128b/130b, 64 GT/s PAM4 FLIT ~242/256);
 * lp_pcie_gbytes() gives one direction of a link in GB/s. 0 when unknown.
 */
double lp_pcie_lane_gbits(double gt_per_s);
double lp_pcie_gbytes(double gt_per_s, unsigned width);
/* PCIe generation (1..6) for a speed in GT/s, 0 if unknown. */
unsigned lp_pcie_gen(double gt_per_s);

#endif
