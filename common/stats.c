// SPDX-License-Identifier: MIT
#include "stats.h"
#include "lp.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void lp_hist_reset(struct lp_hist *h)
{
	memset(h, 0, sizeof(*h));
}

unsigned lp_hist_index(uint64_t v)
{
	unsigned e;

	if (v < 2 * LP_HIST_SUB)
		return (unsigned)v;
	e = 63 - (unsigned)__builtin_clzll(v); /* e >= LP_HIST_SUB_BITS + 1 */
	return 2 * LP_HIST_SUB + (e - LP_HIST_SUB_BITS - 1) * LP_HIST_SUB +
	       (unsigned)((v >> (e - LP_HIST_SUB_BITS)) & (LP_HIST_SUB - 1));
}

void lp_hist_bounds(unsigned idx, uint64_t *lo_p, uint64_t *hi_p)
{
	unsigned e, sub;
	uint64_t width;

	if (idx < 2 * LP_HIST_SUB) {
		*lo_p = *hi_p = idx;
		return;
	}
	e = (idx - 2 * LP_HIST_SUB) / LP_HIST_SUB + LP_HIST_SUB_BITS + 1;
	sub = (idx - 2 * LP_HIST_SUB) % LP_HIST_SUB;
	width = 1ull << (e - LP_HIST_SUB_BITS);
	*lo_p = (1ull << e) + sub * width;
	*hi_p = *lo_p + width - 1;
}

void lp_hist_add(struct lp_hist *h, uint64_t v)
{
	h->count[lp_hist_index(v)]++;
	h->total++;
}

double lp_hist_percentile(const struct lp_hist *h, double p)
{
	uint64_t rank, seen = 0;

	if (!h->total)
		return 0;
	rank = (uint64_t)ceil(p * (double)h->total);
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < LP_HIST_BUCKETS; i++) {
		seen += h->count[i];
		if (seen >= rank) {
			uint64_t lo, hi;

			lp_hist_bounds(i, &lo, &hi);
			return ((double)lo + (double)hi) / 2;
		}
	}
	return 0;
}

int lp_stats_init(struct lp_stats *s, size_t cap)
{
	memset(s, 0, sizeof(*s));
	s->hist = calloc(1, sizeof(*s->hist));
	if (!s->hist)
		return -ENOMEM;
	if (cap) {
		s->samples = malloc(cap * sizeof(double));
		if (!s->samples) {
			free(s->hist);
			s->hist = NULL;
			return -ENOMEM;
		}
	}
	s->cap = cap;
	lp_stats_reset(s);
	return 0;
}

void lp_stats_free(struct lp_stats *s)
{
	free(s->samples);
	free(s->hist);
	memset(s, 0, sizeof(*s));
}

void lp_stats_reset(struct lp_stats *s)
{
	s->n = 0;
	s->mean = s->m2 = 0;
	s->min = INFINITY;
	s->max = -INFINITY;
	s->kept = 0;
	if (s->hist)
		lp_hist_reset(s->hist);
}

void lp_stats_add(struct lp_stats *s, double v)
{
	double d = v - s->mean;

	s->n++;
	s->mean += d / (double)s->n;
	s->m2 += d * (v - s->mean);
	if (v < s->min)
		s->min = v;
	if (v > s->max)
		s->max = v;
	if (s->kept < s->cap)
		s->samples[s->kept++] = v;
	if (s->hist)
		lp_hist_add(s->hist, v <= 0 ? 0 : (uint64_t)llround(v));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void lp_sort_doubles(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}

double lp_percentile_sorted(const double *sorted, size_t n, double p)
{
	size_t rank;

	if (!n)
		return NAN;
	rank = (size_t)ceil(p * (double)n);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

/* clang-format off */
const struct lp_record lp_summary_record = LP_RECORD(struct lp_summary,
	LP_REC_U64(struct lp_summary, n, LP_REC_KEY("samples")),
	LP_REC_F64(struct lp_summary, min),
	LP_REC_F64(struct lp_summary, p50),
	LP_REC_F64(struct lp_summary, p90),
	LP_REC_F64(struct lp_summary, p99),
	LP_REC_F64(struct lp_summary, p999, LP_REC_KEY("p99_9")),
	LP_REC_F64(struct lp_summary, p9999, LP_REC_KEY("p99_99")),
	LP_REC_F64(struct lp_summary, max),
	LP_REC_F64(struct lp_summary, mean),
	LP_REC_F64(struct lp_summary, stdev),
	LP_REC_BOOL(struct lp_summary, exact, LP_REC_KEY("percentiles_exact")));
/* clang-format on */

int lp_stats_summarize(const struct lp_stats *s, struct lp_summary *out)
{
	static const double ps[] = { 0.5, 0.9, 0.99, 0.999, 0.9999 };
	double *pv[] = { &out->p50, &out->p90, &out->p99, &out->p999, &out->p9999 };

	memset(out, 0, sizeof(*out));
	out->n = s->n;
	if (!s->n) {
		out->min = out->max = out->mean = out->stdev = NAN;
		for (size_t i = 0; i < LP_ARRAY_SIZE(ps); i++)
			*pv[i] = NAN;
		return 0;
	}
	out->min = s->min;
	out->max = s->max;
	out->mean = s->mean;
	out->stdev = s->n > 1 ? sqrt(s->m2 / (double)(s->n - 1)) : 0;
	out->exact = s->kept == s->n;
	if (out->exact) {
		double *sorted = malloc(s->kept * sizeof(double));

		if (!sorted)
			return -ENOMEM;
		memcpy(sorted, s->samples, s->kept * sizeof(double));
		lp_sort_doubles(sorted, s->kept);
		for (size_t i = 0; i < LP_ARRAY_SIZE(ps); i++)
			*pv[i] = lp_percentile_sorted(sorted, s->kept, ps[i]);
		free(sorted);
	} else {
		for (size_t i = 0; i < LP_ARRAY_SIZE(ps); i++) {
			double v = lp_hist_percentile(s->hist, ps[i]);

			/* A bucket midpoint may lie outside the seen range. */
			*pv[i] = v < s->min ? s->min : v > s->max ? s->max : v;
		}
	}
	return 0;
}

double lp_median(const double *v, size_t n)
{
	double *c, m;

	if (!n)
		return NAN;
	c = malloc(n * sizeof(*c));
	if (!c)
		return NAN;
	memcpy(c, v, n * sizeof(*c));
	lp_sort_doubles(c, n);
	m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return m;
}

double lp_mad(const double *v, size_t n)
{
	double med, *d, m;

	if (!n)
		return NAN;
	med = lp_median(v, n);
	d = malloc(n * sizeof(*d));
	if (!d)
		return NAN;
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(v[i] - med);
	m = lp_median(d, n);
	free(d);
	return m;
}
