/* SPDX-License-Identifier: MIT */
/*
 * Interval reports: a time series over one timed run, so that a link that dips
 * for a few seconds shows instead of averaging out (docs/METHOD.md,
 * "Intervals").
 *
 * A series cuts the timed phase into intervals of one period from its start.
 * A bandwidth series counts completed messages by the time their completion
 * was reaped; a latency series keeps each interval's samples (struct lp_stats:
 * exact percentiles up to a cap, the histogram past it) and files a sample in
 * the interval in which it ended. Intervals close only when the caller says
 * what time it is (lp_ival_tick, with a clock the loop read anyway), so
 * keeping a series adds no clock read to a timed loop; an interval in which
 * nothing completed is kept (empty), and the last one is cut at the end of
 * the run (partial). Times are nanoseconds on any one clock (differences
 * only).
 */
#ifndef LP_IVAL_H
#define LP_IVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/record.h"
#include "common/stats.h"

/* --interval bounds in seconds: finer than 0.1 s the reaped completions are too coarse. */
#define LP_IVAL_MIN_S 0.1
#define LP_IVAL_MAX_S 3600.0

/*
 * Latency samples kept verbatim per interval: exact percentiles up to this many, the
 * histogram's past it (within 1/LP_HIST_SUB); closing an interval sorts them (about 1 ms).
 */
#define LP_IVAL_KEEP 10000

/* One interval. */
struct lp_ival {
	double start_s;		 /* since the timed phase began */
	double len_s;		 /* the period; shorter for the last (partial) interval */
	uint64_t n;		 /* bandwidth: messages completed in it; latency: samples */
	bool lat;		 /* a latency interval (p50/p99) rather than a bandwidth one */
	double gbytes_s, mmsg_s; /* bandwidth (NaN for latency) */
	double p50, p99;	 /* latency, in the series' unit (NaN for bandwidth or no sample) */
};

/* What a series says in a few numbers (also the server's view on the wire). */
struct lp_ival_summary {
	uint32_t n;	 /* intervals, the partial last one included */
	uint32_t judged; /* those min and max are over: at least half a period long, with a value */
	uint32_t empty;	 /* intervals in which nothing completed */
	double min, max; /* of the headline value: GB/s (bandwidth) or p50 (latency); NaN: none */
	double min_at_s, max_at_s; /* start of those intervals */
	double ratio;		   /* min / max: 1 steady, near 0 a dip; NaN when none judged */
};

/* Its record (common/record.h): wire form and JSON members. */
extern const struct lp_record lp_ival_summary_record;

/* Told at every interval's end (for live output: keep it short, a buffered print). */
struct lp_ival_sink {
	void (*fn)(void *ctx, const struct lp_ival *iv);
	void *ctx;
};

struct lp_ival_series {
	bool on;
	uint64_t period_ns;
	double msg_bytes; /* > 0: a bandwidth series of messages this size; 0: latency */
	double scale; /* latency: reported unit per sample unit (0.5e-3: ns RTT -> us one-way) */
	struct lp_ival_sink sink;
	uint64_t t0, edge;   /* start of the timed phase, end of the current interval (ns) */
	uint64_t count;	     /* bandwidth: messages in the current interval */
	struct lp_stats cur; /* latency: samples of the current interval */
	struct lp_ival *v;   /* the closed intervals */
	size_t n, cap;
	int err; /* -ENOMEM: the series could not grow (the run goes on, the series is cut) */
};

/*
 * period_s <= 0: the series is off (every call below is then a no-op or cheap).
 * msg_bytes > 0 makes a bandwidth series; else a latency series keeping up to
 * max_samples samples per interval, scaled by scale when reported. 0 or -ENOMEM.
 */
int lp_ival_init(struct lp_ival_series *s, double period_s, double msg_bytes, double scale,
		 size_t max_samples, const struct lp_ival_sink *sink);
void lp_ival_free(struct lp_ival_series *s);
/* The timed phase starts at now. */
void lp_ival_start(struct lp_ival_series *s, uint64_t now);
/* Close every interval that ended by now (the slow path of lp_ival_tick). */
void lp_ival_close(struct lp_ival_series *s, uint64_t now);
/* The run ended at now: close the intervals up to it and the partial last one. */
void lp_ival_finish(struct lp_ival_series *s, uint64_t now);

/* It is now: close the intervals that ended (one compare when none did). */
static inline void lp_ival_tick(struct lp_ival_series *s, uint64_t now)
{
	if (now >= s->edge)
		lp_ival_close(s, now);
}

/* n messages completed (bandwidth; call lp_ival_tick with their reap time first). */
static inline void lp_ival_count(struct lp_ival_series *s, uint64_t n)
{
	s->count += n;
}

/* One latency sample (lp_ival_tick with its end time first). */
static inline void lp_ival_sample(struct lp_ival_series *s, double v)
{
	if (s->on)
		lp_stats_add(&s->cur, v);
}

/* The headline value of one interval: GB/s, or p50 for latency. */
double lp_ival_value(const struct lp_ival *iv);
/* Min, max and their ratio over v[0..n) for intervals of period_s. */
void lp_ival_summarize(const struct lp_ival *v, size_t n, double period_s,
		       struct lp_ival_summary *out);

#endif
