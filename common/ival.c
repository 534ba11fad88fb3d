// SPDX-License-Identifier: MIT
/* Interval reports (common/ival.h). */
#include "common/ival.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"

/* clang-format off */
const struct lp_record lp_ival_summary_record = LP_RECORD(struct lp_ival_summary,
	LP_REC_U32(struct lp_ival_summary, n, LP_REC_KEY("intervals")),
	LP_REC_U32(struct lp_ival_summary, judged),
	LP_REC_U32(struct lp_ival_summary, empty),
	LP_REC_F64(struct lp_ival_summary, min),
	LP_REC_F64(struct lp_ival_summary, max),
	LP_REC_F64(struct lp_ival_summary, min_at_s),
	LP_REC_F64(struct lp_ival_summary, max_at_s),
	LP_REC_F64(struct lp_ival_summary, ratio, LP_REC_KEY("min_over_max")));
/* clang-format on */

int lp_ival_init(struct lp_ival_series *s, double period_s, double msg_bytes, double scale,
		 size_t max_samples, const struct lp_ival_sink *sink)
{
	*s = (struct lp_ival_series){ .edge = UINT64_MAX };
	if (!(period_s > 0))
		return 0;
	s->on = true;
	s->period_ns = (uint64_t)(period_s * 1e9);
	s->msg_bytes = msg_bytes;
	s->scale = scale;
	if (sink)
		s->sink = *sink;
	return msg_bytes > 0 ? 0 : lp_stats_init(&s->cur, max_samples);
}

void lp_ival_free(struct lp_ival_series *s)
{
	if (s->msg_bytes <= 0)
		lp_stats_free(&s->cur);
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

void lp_ival_start(struct lp_ival_series *s, uint64_t now)
{
	if (!s->on)
		return;
	s->t0 = now;
	s->edge = now + s->period_ns;
	s->count = 0;
	if (s->msg_bytes <= 0)
		lp_stats_reset(&s->cur);
}

/* The interval [start, end) from what was gathered in it; the gatherers start again. */
static void emit(struct lp_ival_series *s, uint64_t start, uint64_t end)
{
	double ns = (double)(end - start);
	struct lp_ival iv = {
		.start_s = (double)(start - s->t0) / 1e9,
		.len_s = ns / 1e9,
		.lat = s->msg_bytes <= 0,
		.gbytes_s = NAN,
		.mmsg_s = NAN,
		.p50 = NAN,
		.p99 = NAN,
	};

	if (iv.lat) {
		struct lp_summary sum;

		iv.n = s->cur.n;
		if (iv.n && !lp_stats_summarize(&s->cur, &sum)) {
			iv.p50 = sum.p50 * s->scale;
			iv.p99 = sum.p99 * s->scale;
		}
		lp_stats_reset(&s->cur);
	} else {
		iv.n = s->count;
		iv.gbytes_s = lp_gbytes_per_s((double)iv.n * s->msg_bytes, ns);
		iv.mmsg_s = lp_mrate((double)iv.n, ns);
		s->count = 0;
	}
	if (s->n == s->cap && !s->err) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct lp_ival *v = realloc(s->v, cap * sizeof(*v));

		if (v) {
			s->v = v;
			s->cap = cap;
		} else {
			s->err = -ENOMEM;
		}
	}
	if (s->n < s->cap)
		s->v[s->n++] = iv;
	if (s->sink.fn)
		s->sink.fn(s->sink.ctx, &iv);
}

void lp_ival_close(struct lp_ival_series *s, uint64_t now)
{
	while (now >= s->edge) {
		emit(s, s->edge - s->period_ns, s->edge);
		s->edge += s->period_ns;
	}
}

void lp_ival_finish(struct lp_ival_series *s, uint64_t now)
{
	uint64_t start;

	if (!s->on || s->edge == UINT64_MAX)
		return;
	lp_ival_close(s, now);
	start = s->edge - s->period_ns;
	if (now > start)
		emit(s, start, now);
	s->edge = UINT64_MAX;
}

double lp_ival_value(const struct lp_ival *iv)
{
	return iv->lat ? iv->p50 : iv->gbytes_s;
}

void lp_ival_summarize(const struct lp_ival *v, size_t n, double period_s,
		       struct lp_ival_summary *out)
{
	*out = (struct lp_ival_summary){
		.n = (uint32_t)n, .min = NAN, .max = NAN, .min_at_s = NAN, .max_at_s = NAN
	};
	for (size_t i = 0; i < n; i++) {
		double x = lp_ival_value(&v[i]);

		if (!v[i].n)
			out->empty++;
		/* A short tail holds a few reaped completions at most: its rate says little. */
		if (isnan(x) || v[i].len_s < period_s / 2)
			continue;
		if (!out->judged || x < out->min) {
			out->min = x;
			out->min_at_s = v[i].start_s;
		}
		if (!out->judged || x > out->max) {
			out->max = x;
			out->max_at_s = v[i].start_s;
		}
		out->judged++;
	}
	out->ratio = out->judged && out->max > 0 ? out->min / out->max : NAN;
}
