/* SPDX-License-Identifier: MIT */
/*
 * Sample statistics that drop nothing silently.
 *
 * Every sample updates a Welford mean/variance (in double) and a log-linear
 * histogram; the first `cap` samples are also kept verbatim. Percentiles are
 * exact (nearest rank on the sorted samples) while every sample is kept, and
 * come from the histogram (relative error under 1/LP_HIST_SUB) once the cap is
 * passed: lp_summary.exact says which. Nothing is trimmed: max is the largest
 * sample seen.
 */
#ifndef LP_STATS_H
#define LP_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/record.h"

/* Histogram: values 0..2*LP_HIST_SUB-1 have one bucket each; above that each
 * power of two is split into LP_HIST_SUB linear buckets. Values are integers
 * (the caller picks the unit: latencies are recorded in ns). */
#define LP_HIST_SUB_BITS 5
#define LP_HIST_SUB	 (1u << LP_HIST_SUB_BITS)
#define LP_HIST_BUCKETS	 (2 * LP_HIST_SUB + (64 - LP_HIST_SUB_BITS - 1) * LP_HIST_SUB)

struct lp_hist {
	uint64_t count[LP_HIST_BUCKETS];
	uint64_t total;
};

void lp_hist_reset(struct lp_hist *h);
void lp_hist_add(struct lp_hist *h, uint64_t v);
/* Bucket index of v and the [lo, hi] value range that bucket covers. */
unsigned lp_hist_index(uint64_t v);
void lp_hist_bounds(unsigned idx, uint64_t *lo_p, uint64_t *hi_p);
/* Nearest-rank percentile (p in [0,1]) as the midpoint of its bucket; 0 if empty. */
double lp_hist_percentile(const struct lp_hist *h, double p);

struct lp_stats {
	uint64_t n;  /* samples seen */
	double mean; /* Welford running mean */
	double m2;   /* Welford sum of squared deviations */
	double min, max;
	double *samples; /* the first `cap` samples, in arrival order */
	size_t cap, kept;
	struct lp_hist *hist; /* every sample, rounded to an integer */
};

/* Summary of a sample set; all values in the unit the samples were given in. */
struct lp_summary {
	uint64_t n;
	double min, max, mean, stdev; /* stdev: sample standard deviation (n-1) */
	double p50, p90, p99, p999, p9999;
	bool exact; /* percentiles from kept samples, not the histogram */
};

/* Its record (common/record.h): wire form and JSON members ("samples", "p99_9", ...). */
extern const struct lp_record lp_summary_record;

/* cap = how many raw samples to keep (0 keeps none). Returns 0 or -ENOMEM. */
int lp_stats_init(struct lp_stats *s, size_t cap);
void lp_stats_free(struct lp_stats *s);
void lp_stats_reset(struct lp_stats *s);
void lp_stats_add(struct lp_stats *s, double v);
/* Fills *out; sorts a copy of the kept samples (the originals stay in order). */
int lp_stats_summarize(const struct lp_stats *s, struct lp_summary *out);

/* Nearest-rank percentile of an ascending array: element ceil(p*n)-1. */
double lp_percentile_sorted(const double *sorted, size_t n, double p);
/* Median of n values (copies and sorts; the mean of the two middle ones for even n). */
double lp_median(const double *v, size_t n);
/* Median absolute deviation around the median (unscaled). */
double lp_mad(const double *v, size_t n);
void lp_sort_doubles(double *v, size_t n);

#endif
