/* SPDX-License-Identifier: MIT */
/*
 * Units, stated once (docs/METHOD.md, "Units"): a rate between hosts (lp-rdma,
 * lp-sweep) is Gb/s = 1e9 bits/s, a copy inside a node (lp-gpu) GB/s = 1e9
 * bytes/s; a flag that takes a rate says which in its name (--min-gbps,
 * --min-gbytes-s). Sizes are bytes, written "64 KiB" (binary multiples, a space
 * before the unit) by lp_fmt_size and nothing else. Times are ns inside the
 * library, us in tables (GPU loads: ns per load). A number for a person is
 * plain decimal, never an exponent, and one that is not there (NaN, unknown)
 * is LP_NA, never "nan"; JSON and CSV keep full numbers (null for NaN).
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

/* What a table shows for a number that is not there: an em dash. */
#define LP_NA "\u2014"
/*
 * A number for a person: sig significant digits in plain decimal notation,
 * never an exponent (5.626e-05 -> "0.00005626", 1234.56 -> "1235" at sig 4);
 * LP_NA for NaN and infinities.
 */
void lp_fmt_sig(char *buf, size_t len, double v, int sig);
/* v with a fixed number of decimals ("%.*f"), LP_NA when it is not finite. */
void lp_fmt_fixed(char *buf, size_t len, double v, int decimals);
/* Columns a UTF-8 string takes on a terminal (LP_NA: 1), for aligning text that holds it. */
int lp_fmt_cols(const char *s);
/* s right-aligned in width terminal columns (printf's "%*s" counts bytes); returns buf. */
const char *lp_fmt_rjust(char *buf, size_t len, const char *s, int width);

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
