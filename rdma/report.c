// SPDX-License-Identifier: MIT
/* lp-rdma's table, CSV and JSON document (rdma/report.h). */
#include "rdma/report.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/json.h"
#include "common/lp.h"
#include "common/meta.h"
#include "common/recdoc.h"
#include "common/table.h"
#include "common/units.h"
#include "rdma/proto.h"

/* ---- the table ---------------------------------------------------------------- */

void lp_rdma_report_device(FILE *f, const struct lp_rdma_devinfo *d, const char *role)
{
	fprintf(f,
		"%s: %s port %d  %s (%s)  GID %d %s [%s]  MTU %u  %s %ux = %.1f Gb/s  fw %s  numa %d\n",
		role, d->name, d->port, d->link_layer, d->transport, d->gid_index, d->gid,
		d->gid_type, d->active_mtu, d->speed, d->width, d->rate_gbps, d->fw, d->numa_node);
	fflush(f); /* scripts watch for it */
}

static void print_lat_head(FILE *f)
{
	fprintf(f, "\n%-10s %9s %8s %9s %9s %9s %9s %9s %9s %9s %8s  %s\n", "test", "size", "iters",
		"min", "p50", "p90", "p99", "p99.9", "max", "mean", "stdev", "(us, one-way)");
}

/* Network rates are Gb/s (docs/METHOD.md, "Units"); the JSON and CSV carry GB/s too. */
static void print_bw_head(FILE *f, bool bidir)
{
	if (bidir)
		fprintf(f, "\n%-10s %9s %9s %10s %10s %10s %8s  %s\n", "test", "size", "msgs",
			"c->s Gb/s", "s->c Gb/s", "sum Gb/s", "%link",
			"(sum: " LP_RDMA_BIDIR_SUM_METHOD ")");
	else
		fprintf(f, "\n%-10s %9s %9s %10s %10s %8s\n", "test", "size", "msgs", "Gb/s",
			"Mmsg/s", "%link");
}

/* Numbers in the table: four significant digits, never an exponent, LP_NA for none. */
static const char *sig4(char *buf, double v)
{
	lp_fmt_sig(buf, 24, v, 4);
	return buf;
}

/* A percent with one decimal, LP_NA when the port's rate is unknown. */
static const char *pct1(char *buf, double v)
{
	lp_fmt_fixed(buf, 24, v, 1);
	return buf;
}

static void print_lat_row(FILE *f, const struct lp_rdma_result *r, const char *sz)
{
	const struct lp_summary *s = &r->lat_us;

	fprintf(f, "%-10s %9s %8llu %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %8.3f%s\n",
		lp_rdma_test_names[r->test], sz, (unsigned long long)s->n, s->min, s->p50, s->p90,
		s->p99, s->p999, s->max, s->mean, s->stdev, r->lat_halved ? "" : "  (full read)");
	if (r->gpu_poll_sides && isnan(r->gpu_notify_us))
		fprintf(f,
			"%21s gpu_poll: includes the server GPU's notification to its CPU (not "
			"measured here)\n",
			"");
	else if (r->gpu_poll_sides)
		fprintf(f,
			"%21s gpu_poll: includes GPU->CPU notification, %.2f us measured here, on %u "
			"side%s: p50 without it ~%.2f us\n",
			"", r->gpu_notify_us, r->gpu_poll_sides, r->gpu_poll_sides > 1 ? "s" : "",
			s->p50 - r->gpu_poll_sides * r->gpu_notify_us / 2);
}

void lp_rdma_report_interval(FILE *f, const struct lp_rdma_params *p, const struct lp_ival *iv)
{
	char sz[24], v[2][24];

	lp_fmt_size(sz, sizeof(sz), p->size);
	fprintf(f, "  %-10s %9s  [%7.1f, %7.1f) s%s", lp_rdma_test_names[p->test], sz, iv->start_s,
		iv->start_s + iv->len_s, iv->len_s < p->interval_s * 0.999 ? " partial" : "");
	if (iv->lat)
		fprintf(f, "  p50 %s us  p99 %s us  (%llu samples)\n", sig4(v[0], iv->p50),
			sig4(v[1], iv->p99), (unsigned long long)iv->n);
	else
		fprintf(f, "  %s Gb/s  %s Mmsg/s\n", sig4(v[0], 8 * iv->gbytes_s),
			sig4(v[1], iv->mmsg_s));
	fflush(f);
}

/* The intervals in one line: the worst and the best and their ratio (a dip shows here);
 * scale turns the summary's unit (GB/s for bandwidth) into the table's (Gb/s). */
static void print_ival_summary(FILE *f, const char *what, const struct lp_ival_summary *s,
			       const char *unit, double scale)
{
	char v[3][24];

	fprintf(f,
		"  intervals%s: %u (%u empty), min %s %s at %.1f s, max %s %s at %.1f s, "
		"min/max %s\n",
		what, s->n, s->empty, sig4(v[0], scale * s->min), unit, s->min_at_s,
		sig4(v[1], scale * s->max), unit, s->max_at_s, sig4(v[2], s->ratio));
}

void lp_rdma_report_row(struct lp_rdma_table *t, const struct lp_rdma_params *p,
			const struct lp_rdma_result *r)
{
	bool lat = lp_rdma_test_is_lat(p->test);
	char sz[24], v[4][24], pct[24], col[40];
	FILE *f = t->f;

	if (lat && !t->lat_head)
		print_lat_head(f);
	else if (!lat && !t->bw_head)
		print_bw_head(f, p->bidir);
	t->lat_head = lat;
	t->bw_head = !lat;
	lp_fmt_size(sz, sizeof(sz), r->size);
	if (r->status)
		fprintf(f, "%-10s %9s  FAILED: %s\n", lp_rdma_test_names[r->test], sz, r->error);
	else if (lat)
		print_lat_row(f, r, sz);
	else if (p->bidir)
		fprintf(f, "%-10s %9s %9.0f %10s %10s %10s %s\n", lp_rdma_test_names[r->test], sz,
			r->local.msgs, sig4(v[0], r->local.gbits_s), sig4(v[1], r->remote.gbits_s),
			sig4(v[2], r->sum_gbits_s),
			lp_fmt_rjust(col, sizeof(col),
				     pct1(pct, lp_percent_of(r->sum_gbits_s, 2 * r->rate_gbps)),
				     8));
	else
		fprintf(f, "%-10s %9s %9.0f %10s %10s %s\n", lp_rdma_test_names[r->test], sz,
			r->local.msgs, sig4(v[0], r->local.gbits_s), sig4(v[1], r->local.mmsg_s),
			lp_fmt_rjust(col, sizeof(col), pct1(pct, r->local.pct_link), 8));
	if (!r->status && p->interval_s > 0) {
		print_ival_summary(f, p->bidir ? " c->s" : "", &r->ival_sum,
				   lat ? "us p50" : "Gb/s", lat ? 1 : 8);
		if (r->ival_sum_remote.n)
			print_ival_summary(f, " s->c", &r->ival_sum_remote, "Gb/s", 8);
	}
	/* One line when an error- or congestion-class counter moved on either side. */
	if (lp_ctr_moved_alarms(&r->ctr_local) || lp_ctr_moved_alarms(&r->ctr_remote)) {
		fprintf(f, "  counters: ");
		lp_ctr_moved_print(&r->ctr_remote, "server",
				   lp_ctr_moved_print(&r->ctr_local, "client", false, f), f);
		fprintf(f, "\n");
	}
	fflush(f);
}

/* What --verify checked over the runs that passed (each run's figures are in JSON "verified"). */
static void print_verified(FILE *f, const struct lp_rdma_result *r, int n)
{
	uint64_t msgs = 0, landed = 0, bytes = 0;

	for (int i = 0; i < n; i++) {
		if (r[i].status)
			continue;
		msgs += r[i].verified.messages;
		landed += r[i].verified.landed;
		bytes += r[i].verified.bytes;
	}
	fprintf(f,
		"verified: %llu of %llu messages received (%llu bytes), every byte against the "
		"message's own pattern%s\n",
		(unsigned long long)msgs, (unsigned long long)landed, (unsigned long long)bytes,
		msgs < landed ? "; the rest were overwritten in reused ring slots (docs/METHOD.md)"
			      : "");
}

void lp_rdma_report_footer(FILE *f, const struct lp_rdma_params *p, const struct lp_rdma_result *r,
			   int n)
{
	if (!n || r[0].status)
		return;
	fprintf(f, "\n");
	lp_rdma_report_device(f, &r[0].remote_dev, "server");
	fprintf(f,
		"memory: local %s, remote %s; MTU %u; latency = one-way (RTT/2) for write/send, "
		"full completion for read; Gb/s = 1e9 bit/s\nclock: %s\n",
		r[0].local_mem, r[0].remote_mem, r[0].mtu, lp_clock_desc());
	if (p[0].verify)
		print_verified(f, r, n);
}

/* ---- CSV ---------------------------------------------------------------------- */

static const char csv_header[] =
	"test,size_bytes,status,error,iterations,latency_kind,lat_min_us,lat_p50_us,lat_p90_us,"
	"lat_p99_us,lat_p99_9_us,lat_max_us,lat_mean_us,lat_stdev_us,gbytes_per_s,gbits_per_s,"
	"mmsg_per_s,percent_of_link,bidirectional,reverse_gbytes_per_s,sum_gbytes_per_s,"
	"interval_min,interval_max,interval_min_over_max\n";

static void csv_row(FILE *f, const struct lp_rdma_result *r, const struct lp_rdma_params *p)
{
	const struct lp_summary *s = &r->lat_us;
	bool lat = lp_rdma_test_is_lat(r->test);

	fprintf(f, "%s,%llu,%s,\"%s\",%llu,", lp_rdma_test_names[r->test],
		(unsigned long long)r->size, r->status ? "error" : "ok", r->status ? r->error : "",
		(unsigned long long)r->iters);
	if (lat && !r->status)
		fprintf(f, "%s,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,",
			r->lat_halved ? "rtt/2" : "full", s->min, s->p50, s->p90, s->p99, s->p999,
			s->max, s->mean, s->stdev);
	else
		fprintf(f, ",,,,,,,,,");
	if (!lat && !r->status)
		fprintf(f, "%.6f,%.6f,%.6f,%.3f,%s,%.6f,%.6f,", r->local.gbytes_s, r->local.gbits_s,
			r->local.mmsg_s, r->local.pct_link, p->bidir ? "yes" : "no",
			p->bidir ? r->remote.gbytes_s : NAN, p->bidir ? r->sum_gbytes_s : NAN);
	else
		fprintf(f, ",,,,,,,");
	/* --interval: GB/s for bandwidth, p50 us for latency (as the JSON's summary) */
	if (!r->status && p->interval_s > 0)
		fprintf(f, "%.6f,%.6f,%.4f\n", r->ival_sum.min, r->ival_sum.max, r->ival_sum.ratio);
	else
		fprintf(f, ",,\n");
}

int lp_rdma_report_csv(const char *path, const struct lp_rdma_report *rep)
{
	FILE *f = lp_out_open(path);

	if (!f)
		return -EIO;
	fputs(csv_header, f);
	for (int i = 0; i < rep->n; i++)
		csv_row(f, &rep->res[i], &rep->params[i]);
	return lp_out_close(f, path) ? -EIO : 0;
}

/* ---- JSON: linkperf.rdma/2, written from records (common/recdoc.h) ----------------------- */

/* What one run was asked: the plan's parameters (keys shared with lp-sweep: iters, qps, mtu). */
struct doc_params {
	uint64_t iters; /* 0 when the run lasted duration_s */
	double duration_s;
	uint64_t warmup;
	uint32_t tx_depth, rx_depth, cq_moderation, post_list, qps;
	bool bidirectional, verify;
	char connection[16]; /* "exchange" or "rdma_cm" */
	double interval_s;
};

/* What the run was: its head, and how this side set up its QPs and buffers. */
struct doc_head {
	char test[16];
	uint64_t size;
	char status[8]; /* "ok" or "error" */
	int32_t err_no; /* 0 when ok */
	char error[256];
};

struct doc_run {
	uint32_t mtu, max_inline;
	char local_mem[32], remote_mem[32];
	uint64_t timed_iters;
};

struct doc_setup {
	char scatter_to_cqe[96];
	bool relaxed_ordering;
	char gpu_rdma_writes_ordering[96]; /* "" for host memory */
};

struct doc_gpu_poll {
	uint32_t sides;
	char includes[160];
	double notification_us; /* NaN (null): not measured on this side */
	double p50_without_notification_us;
};

struct doc_verified {
	struct lp_rdma_verified v;
	uint32_t seed;
	char method[256];
};

struct doc_lat {
	char latency_method[64];
	char latency_kind[24];
	uint64_t warmup_iters;
	struct lp_summary latency_us, rtt_us;
};

struct doc_bw {
	double bytes, messages, seconds, gbytes_per_s, gbits_per_s, mmsg_per_s, percent_of_link;
};

struct doc_sum {
	double gbytes_per_s, gbits_per_s;
	char sum_method[64];
};

struct doc_ival_head {
	double period_s;
	uint32_t step_messages; /* bandwidth: completions are reaped cq_mod messages at a time */
	char value[80];
};

/* One interval of --interval's series: latency fields are null for bandwidth and back. */
struct doc_ival_point {
	double start_s, seconds;
	uint64_t count; /* samples (latency) or messages (bandwidth) */
	double p50_us, p99_us, gbits_per_s, gbytes_per_s, mmsg_per_s;
};

/* One result, every part at its place; the flags say which parts are there. */
struct doc_result {
	struct doc_head head;
	struct doc_params params;
	struct doc_run run;
	struct doc_setup setup;
	struct doc_gpu_poll gpu_poll;
	struct doc_verified verified;
	struct doc_lat lat;
	double link_rate_gbps;
	struct doc_bw bw, reverse;
	struct doc_sum sum;
	struct doc_ival_head ival;
	struct lp_ival_summary ival_sum, ival_sum_remote;
	bool failed, ok, is_lat, is_bw, one_way, both_ways, has_gpu_poll, has_verified, has_ival,
		has_ival_remote;
	const struct lp_rdma_result *r; /* the open members: counters, the interval series */
};

/* clang-format off */
#define DR struct doc_result
static const struct lp_record params_rec = LP_RECORD(struct doc_params,
	LP_REC_U64(struct doc_params, iters),
	LP_REC_F64(struct doc_params, duration_s),
	LP_REC_U64(struct doc_params, warmup),
	LP_REC_U32(struct doc_params, tx_depth),
	LP_REC_U32(struct doc_params, rx_depth),
	LP_REC_U32(struct doc_params, cq_moderation),
	LP_REC_U32(struct doc_params, post_list),
	LP_REC_U32(struct doc_params, qps),
	LP_REC_BOOL(struct doc_params, bidirectional),
	LP_REC_BOOL(struct doc_params, verify),
	LP_REC_STR(struct doc_params, connection),
	LP_REC_F64(struct doc_params, interval_s));
static const struct lp_record head_rec = LP_RECORD(struct doc_head,
	LP_REC_STR(struct doc_head, test),
	LP_REC_U64(struct doc_head, size),
	LP_REC_STR(struct doc_head, status));
static const struct lp_record error_rec = LP_RECORD(struct doc_head,
	LP_REC_I32(struct doc_head, err_no, LP_REC_KEY("errno")),
	LP_REC_STR(struct doc_head, error));
static const struct lp_record run_rec = LP_RECORD(struct doc_run,
	LP_REC_U32(struct doc_run, mtu),
	LP_REC_U32(struct doc_run, max_inline),
	LP_REC_STR(struct doc_run, local_mem),
	LP_REC_STR(struct doc_run, remote_mem),
	LP_REC_U64(struct doc_run, timed_iters));
static const struct lp_record setup_rec = LP_RECORD(struct doc_setup,
	LP_REC_STR(struct doc_setup, scatter_to_cqe),
	LP_REC_BOOL(struct doc_setup, relaxed_ordering),
	LP_REC_STR(struct doc_setup, gpu_rdma_writes_ordering));
static const struct lp_record gpu_poll_rec = LP_RECORD(struct doc_gpu_poll,
	LP_REC_U32(struct doc_gpu_poll, sides, LP_REC_RANGE(1, 2)),
	LP_REC_STR(struct doc_gpu_poll, includes),
	LP_REC_F64(struct doc_gpu_poll, notification_us),
	LP_REC_F64(struct doc_gpu_poll, p50_without_notification_us));
static const struct lp_record verified_rec = LP_RECORD(struct doc_verified,
	LP_REC_U32(struct doc_verified, seed),
	LP_REC_STR(struct doc_verified, method));
static const struct lp_record lat_rec = LP_RECORD(struct doc_lat,
	LP_REC_STR(struct doc_lat, latency_method),
	LP_REC_STR(struct doc_lat, latency_kind),
	LP_REC_U64(struct doc_lat, warmup_iters),
	LP_REC_NEST(struct doc_lat, latency_us, lp_summary_record),
	LP_REC_NEST(struct doc_lat, rtt_us, lp_summary_record));
static const struct lp_record link_rec = LP_RECORD(DR,
	LP_REC_F64(DR, link_rate_gbps));
static const struct lp_record bw_rec = LP_RECORD(struct doc_bw,
	LP_REC_F64(struct doc_bw, bytes),
	LP_REC_F64(struct doc_bw, messages),
	LP_REC_F64(struct doc_bw, seconds),
	LP_REC_F64(struct doc_bw, gbytes_per_s),
	LP_REC_F64(struct doc_bw, gbits_per_s),
	LP_REC_F64(struct doc_bw, mmsg_per_s),
	LP_REC_F64(struct doc_bw, percent_of_link));
static const struct lp_record sum_rec = LP_RECORD(struct doc_sum,
	LP_REC_F64(struct doc_sum, gbytes_per_s),
	LP_REC_F64(struct doc_sum, gbits_per_s),
	LP_REC_STR(struct doc_sum, sum_method));
static const struct lp_record ival_head_rec = LP_RECORD(struct doc_ival_head,
	LP_REC_F64(struct doc_ival_head, period_s),
	LP_REC_U32(struct doc_ival_head, step_messages),
	LP_REC_STR(struct doc_ival_head, value));
static const struct lp_record ival_point_rec = LP_RECORD(struct doc_ival_point,
	LP_REC_F64(struct doc_ival_point, start_s),
	LP_REC_F64(struct doc_ival_point, seconds),
	LP_REC_U64(struct doc_ival_point, count),
	LP_REC_F64(struct doc_ival_point, p50_us),
	LP_REC_F64(struct doc_ival_point, p99_us),
	LP_REC_F64(struct doc_ival_point, gbits_per_s),
	LP_REC_F64(struct doc_ival_point, gbytes_per_s),
	LP_REC_F64(struct doc_ival_point, mmsg_per_s));

static const struct lp_recdoc_part ival_parts[] = {
	{ LP_RECDOC_FIELDS, .rec = &ival_head_rec, .off = offsetof(DR, ival) },
	{ LP_RECDOC_NEST, "summary", &lp_ival_summary_record, .off = offsetof(DR, ival_sum) },
	{ LP_RECDOC_NEST, "server_to_client_summary", &lp_ival_summary_record,
	  .off = offsetof(DR, ival_sum_remote), LP_RECDOC_WHEN(DR, has_ival_remote) },
	{ LP_RECDOC_ARRAY, "series", &ival_point_rec,
	  .about = "each interval of the test, in time order" },
};
static const struct lp_recdoc_obj ival_obj = LP_RECDOC_OBJ_OF(ival_parts);

/* What --verify checked: the wire's record (both sides' counts) and how, in one object. */
static const struct lp_recdoc_part verified_parts[] = {
	{ LP_RECDOC_FIELDS, .rec = &lp_rdma_verified_record, .off = offsetof(DR, verified.v) },
	{ LP_RECDOC_FIELDS, .rec = &verified_rec, .off = offsetof(DR, verified) },
};
static const struct lp_recdoc_obj verified_obj = LP_RECDOC_OBJ_OF(verified_parts);

static const struct lp_recdoc_part result_parts[] = {
	{ LP_RECDOC_FIELDS, .rec = &head_rec, .off = offsetof(DR, head) },
	{ LP_RECDOC_FIELDS, .rec = &error_rec, .off = offsetof(DR, head), LP_RECDOC_WHEN(DR, failed) },
	{ LP_RECDOC_NEST, "params", &params_rec, .off = offsetof(DR, params) },
	{ LP_RECDOC_FIELDS, .rec = &run_rec, .off = offsetof(DR, run) },
	{ LP_RECDOC_NEST, "local_setup", &setup_rec, .off = offsetof(DR, setup),
	  .about = "this side's GPUDirect RDMA choices" },
	{ LP_RECDOC_NEST, "gpu_poll", &gpu_poll_rec, .off = offsetof(DR, gpu_poll),
	  LP_RECDOC_WHEN(DR, has_gpu_poll),
	  .about = "write_lat polled by a GPU: the GPU->CPU notification the latency includes" },
	{ LP_RECDOC_OBJ, "verified", .obj = &verified_obj, LP_RECDOC_WHEN(DR, has_verified),
	  .about = "what --verify checked" },
	{ LP_RECDOC_OPEN, "counters", .types = "object",
	  .about = "port counters that moved on each side ({client, server}: null when not read)" },
	{ LP_RECDOC_OBJ, "intervals", .obj = &ival_obj, LP_RECDOC_WHEN(DR, has_ival),
	  .about = "--interval: the series and its summary (docs/METHOD.md, \"Intervals\")" },
	{ LP_RECDOC_FIELDS, .rec = &lat_rec, .off = offsetof(DR, lat), LP_RECDOC_WHEN(DR, is_lat) },
	{ LP_RECDOC_FIELDS, .rec = &link_rec, .off = 0, LP_RECDOC_WHEN(DR, is_bw) },
	{ LP_RECDOC_NEST, "bandwidth", &bw_rec, .off = offsetof(DR, bw), LP_RECDOC_WHEN(DR, one_way),
	  .about = "the client's sending (or reading) direction" },
	{ LP_RECDOC_NEST, "client_to_server", &bw_rec, .off = offsetof(DR, bw),
	  LP_RECDOC_WHEN(DR, both_ways) },
	{ LP_RECDOC_NEST, "server_to_client", &bw_rec, .off = offsetof(DR, reverse),
	  LP_RECDOC_WHEN(DR, both_ways) },
	{ LP_RECDOC_NEST, "sum", &sum_rec, .off = offsetof(DR, sum), LP_RECDOC_WHEN(DR, both_ways) },
};
static const struct lp_recdoc_obj result_obj = LP_RECDOC_OBJ_OF(result_parts);
#undef DR
/* clang-format on */

static void bw_view(struct doc_bw *d, const struct lp_rdma_bw *b)
{
	*d = (struct doc_bw){ b->bytes,	  b->msgs,   b->ns / 1e9, b->gbytes_s,
			      b->gbits_s, b->mmsg_s, b->pct_link };
}

/* What --verify checked, in numbers and in words (docs/METHOD.md, "Verification"). */
static void verified_view(struct doc_verified *d, const struct lp_rdma_result *r,
			  const struct lp_rdma_params *p)
{
	d->v = r->verified;
	d->seed = p->seed;
	snprintf(d->method, sizeof(d->method),
		 "every byte of each message in its own ring slot, against the pattern of (run "
		 "seed, side, QP, slot)%s%s%s",
		 r->test == LP_RDMA_WRITE_LAT && p->lat_method == LP_LAT_POLL
			 ? "; the last byte against the message's counter"
			 : "",
		 r->test == LP_RDMA_SEND_LAT || r->test == LP_RDMA_SEND_BW
			 ? "; receive completions counted against the messages sent"
			 : "",
		 r->verified.messages < r->verified.landed
			 ? "; slots reused: the last message of each slot"
			 : "");
}

static void lat_view(struct doc_result *d, const struct lp_rdma_result *r)
{
	snprintf(d->lat.latency_method, sizeof(d->lat.latency_method), "%s", r->lat_method);
	snprintf(d->lat.latency_kind, sizeof(d->lat.latency_kind), "%s",
		 r->lat_halved ? "one_way=rtt/2" : "full_completion");
	d->lat.warmup_iters = r->warmup;
	d->lat.latency_us = r->lat_us;
	d->lat.rtt_us = r->rtt_us;
	d->has_gpu_poll = r->gpu_poll_sides > 0;
	d->gpu_poll = (struct doc_gpu_poll){
		.sides = r->gpu_poll_sides,
		.notification_us = r->gpu_notify_us,
		.p50_without_notification_us =
			r->lat_us.p50 - r->gpu_poll_sides * r->gpu_notify_us / 2,
	};
	snprintf(d->gpu_poll.includes, sizeof(d->gpu_poll.includes),
		 "each GPU-polling side's detection includes a GPU->CPU notification: one-way "
		 "latency holds sides/2 of them");
}

static void bw_parts(struct doc_result *d, const struct lp_rdma_result *r,
		     const struct lp_rdma_params *p)
{
	d->link_rate_gbps = r->rate_gbps;
	d->one_way = !p->bidir;
	d->both_ways = p->bidir;
	bw_view(&d->bw, &r->local);
	bw_view(&d->reverse, &r->remote);
	d->sum = (struct doc_sum){ r->sum_gbytes_s, r->sum_gbits_s, LP_RDMA_BIDIR_SUM_METHOD };
}

static void ival_view(struct doc_result *d, const struct lp_rdma_result *r,
		      const struct lp_rdma_params *p)
{
	d->ival.period_s = p->interval_s;
	d->ival.step_messages = d->is_lat ? 0 : p->cq_mod;
	snprintf(d->ival.value, sizeof(d->ival.value), "%s",
		 d->is_lat ? (r->lat_halved ? "latency p50, us, one-way" : "latency p50, us")
			   : "GB/s of the client's sending direction, by completion time");
	d->ival_sum = r->ival_sum;
	d->ival_sum_remote = r->ival_sum_remote;
	d->has_ival_remote = r->ival_sum_remote.n > 0;
}

/* The view of one run: every part filled, the flags set. */
static void result_view(struct doc_result *d, const struct lp_rdma_result *r,
			const struct lp_rdma_params *p)
{
	memset(d, 0, sizeof(*d));
	d->r = r;
	snprintf(d->head.test, sizeof(d->head.test), "%s", lp_rdma_test_names[r->test]);
	d->head.size = r->size;
	snprintf(d->head.status, sizeof(d->head.status), "%s", r->status ? "error" : "ok");
	d->head.err_no = -r->status;
	snprintf(d->head.error, sizeof(d->head.error), "%s", r->error);
	d->params = (struct doc_params){ .iters = p->duration_s > 0 ? 0 : p->iters,
					 .duration_s = p->duration_s,
					 .warmup = p->warmup,
					 .tx_depth = p->tx_depth,
					 .rx_depth = p->rx_depth,
					 .cq_moderation = p->cq_mod,
					 .post_list = p->post_list,
					 .qps = p->num_qps,
					 .bidirectional = p->bidir,
					 .verify = p->verify,
					 .interval_s = p->interval_s };
	snprintf(d->params.connection, sizeof(d->params.connection), "%s",
		 p->use_cm ? "rdma_cm" : "exchange");
	d->run = (struct doc_run){ .mtu = r->mtu,
				   .max_inline = r->inline_size,
				   .timed_iters = r->iters };
	snprintf(d->run.local_mem, sizeof(d->run.local_mem), "%s", r->local_mem);
	snprintf(d->run.remote_mem, sizeof(d->run.remote_mem), "%s", r->remote_mem);
	snprintf(d->setup.scatter_to_cqe, sizeof(d->setup.scatter_to_cqe), "%s",
		 r->scatter_to_cqe ? r->scatter_to_cqe : "");
	d->setup.relaxed_ordering = r->relaxed_ordering;
	snprintf(d->setup.gpu_rdma_writes_ordering, sizeof(d->setup.gpu_rdma_writes_ordering), "%s",
		 r->gpu_rdma_order ? r->gpu_rdma_order : "");
	d->failed = r->status != 0;
	d->ok = !d->failed;
	d->has_verified = p->verify;
	verified_view(&d->verified, r, p);
	d->is_lat = d->ok && lp_rdma_test_is_lat(r->test);
	d->is_bw = d->ok && !d->is_lat;
	if (d->is_lat)
		lat_view(d, r);
	else if (d->is_bw)
		bw_parts(d, r, p);
	d->has_gpu_poll &= d->is_lat;
	d->has_ival = d->ok && p->interval_s > 0;
	if (d->has_ival)
		ival_view(d, r, p);
}

static void ival_point_json(const struct lp_ival *iv, struct lp_json *j)
{
	struct doc_ival_point pt = { iv->start_s, iv->len_s, iv->n, NAN, NAN, NAN, NAN, NAN };

	if (iv->lat) {
		pt.p50_us = iv->p50;
		pt.p99_us = iv->p99;
	} else {
		pt.gbits_per_s = 8 * iv->gbytes_s;
		pt.gbytes_per_s = iv->gbytes_s;
		pt.mmsg_per_s = iv->mmsg_s;
	}
	lp_json_obj_begin(j, NULL);
	lp_record_json(&ival_point_rec, &pt, j);
	lp_json_obj_end(j);
}

/* A result's open members: the counters that moved on each side, the interval series. */
static void result_member(const void *ctx, const char *key, struct lp_json *j)
{
	const struct lp_rdma_result *r = ((const struct doc_result *)ctx)->r;

	if (!strcmp(key, "counters")) {
		lp_json_obj_begin(j, key);
		lp_ctr_moved_json(&r->ctr_local, "client", j);
		lp_ctr_moved_json(&r->ctr_remote, "server", j);
		lp_json_obj_end(j);
		return;
	}
	lp_json_arr_begin(j, key);
	for (size_t i = 0; i < r->nival; i++)
		ival_point_json(&r->ival[i], j);
	lp_json_arr_end(j);
}

/* ---- the document ---- */

struct doc_top {
	char tool[16], schema[24], role[16];
};

struct doc_counts {
	int32_t runs, failed, planned;
};

struct doc_affinity {
	char nic[64];
	int32_t nic_numa_node;
	bool numa_bound;
	char gpu_bus_id[24]; /* "" for host memory */
	char gpu_nic_distance[8];
};

struct doc {
	struct doc_top top;
	struct lp_host_meta host;
	char server[256];
	uint32_t port;
	int32_t tclass, sl;
	struct lp_rdma_devinfo local_device, remote_device;
	struct doc_affinity affinity;
	struct doc_counts summary;
	bool interrupted;
	bool client, has_remote, has_affinity, check, counters;
	const struct lp_rdma_report *rep;
};

/* clang-format off */
static const struct lp_record top_rec = LP_RECORD(struct doc_top,
	LP_REC_STR(struct doc_top, tool),
	LP_REC_STR(struct doc_top, schema),
	LP_REC_STR(struct doc_top, role));
static const struct lp_record client_rec = LP_RECORD(struct doc,
	LP_REC_STR(struct doc, server),
	LP_REC_U32(struct doc, port, LP_REC_RANGE(1, 65535)),
	LP_REC_I32(struct doc, tclass, LP_REC_RANGE(-1, 255)),
	LP_REC_I32(struct doc, sl, LP_REC_RANGE(0, 15)));
static const struct lp_record affinity_rec = LP_RECORD(struct doc_affinity,
	LP_REC_STR(struct doc_affinity, nic),
	LP_REC_I32(struct doc_affinity, nic_numa_node),
	LP_REC_BOOL(struct doc_affinity, numa_bound),
	LP_REC_STR(struct doc_affinity, gpu_bus_id),
	LP_REC_STR(struct doc_affinity, gpu_nic_distance));
static const struct lp_record counts_rec = LP_RECORD(struct doc_counts,
	LP_REC_I32(struct doc_counts, runs),
	LP_REC_I32(struct doc_counts, failed),
	LP_REC_I32(struct doc_counts, planned));
static const struct lp_record interrupted_rec = LP_RECORD(struct doc,
	LP_REC_BOOL(struct doc, interrupted));

static const struct lp_recdoc_part doc_parts[] = {
	{ LP_RECDOC_FIELDS, .rec = &top_rec, .off = offsetof(struct doc, top) },
	{ LP_RECDOC_OPEN, "method", .types = "object", LP_RECDOC_WHEN(struct doc, client),
	  .about = "units, clock and version (the same block in every linkperf document)" },
	{ LP_RECDOC_NEST, "host", &lp_host_meta_record, .off = offsetof(struct doc, host) },
	{ LP_RECDOC_FIELDS, .rec = &client_rec, .off = 0, LP_RECDOC_WHEN(struct doc, client) },
	{ LP_RECDOC_NEST, "local_device", &lp_rdma_devinfo_record,
	  .off = offsetof(struct doc, local_device), LP_RECDOC_WHEN(struct doc, client) },
	{ LP_RECDOC_NEST, "affinity", &affinity_rec, .off = offsetof(struct doc, affinity),
	  LP_RECDOC_WHEN(struct doc, has_affinity),
	  .about = "the NIC opened, its NUMA node, the GPU's PCIe distance to it" },
	{ LP_RECDOC_NEST, "remote_device", &lp_rdma_devinfo_record,
	  .off = offsetof(struct doc, remote_device), LP_RECDOC_WHEN(struct doc, has_remote) },
	{ LP_RECDOC_ARRAY, "results", .obj = &result_obj, LP_RECDOC_WHEN(struct doc, client),
	  .about = "one per test and size, in run order" },
	{ LP_RECDOC_NEST, "summary", &counts_rec, .off = offsetof(struct doc, summary),
	  LP_RECDOC_WHEN(struct doc, client) },
	{ LP_RECDOC_FIELDS, .rec = &interrupted_rec, .off = 0, LP_RECDOC_WHEN(struct doc, client) },
	{ LP_RECDOC_OPEN, "check", .types = "object", LP_RECDOC_WHEN(struct doc, check),
	  .about = "--check: the pre-flight report (worst, checks)" },
	{ LP_RECDOC_OPEN, "snapshot", .types = "object", LP_RECDOC_WHEN(struct doc, counters),
	  .about = "--counters: the port's counters by source" },
	{ LP_RECDOC_OPEN, "qualification", .types = "object", .later = true,
	  .about = "--expect, floors, --baseline: the verdicts (qual/qual.h)" },
};
static const struct lp_recdoc_obj doc_obj = LP_RECDOC_OBJ_OF(doc_parts);
/* clang-format on */

static void doc_member(const void *ctx, const char *key, struct lp_json *j)
{
	const struct lp_rdma_report *rep = ((const struct doc *)ctx)->rep;

	if (!strcmp(key, "method")) {
		lp_json_obj_begin(j, key);
		lp_method_json(j);
		lp_json_str(j, "latency",
			    "write_lat/send_lat: ping-pong, one-way = RTT/2; read_lat: full READ "
			    "completion time (not halved)");
		lp_json_str(j, "bandwidth",
			    "payload bytes from first post to last completion of the timed phase, "
			    "after warm-up; bidirectional: each direction and the sum "
			    "(" LP_RDMA_BIDIR_SUM_METHOD ")");
		lp_json_obj_end(j);
	} else if (!strcmp(key, "results")) {
		lp_json_arr_begin(j, key);
		for (int i = 0; i < rep->n; i++) {
			struct doc_result *d = malloc(sizeof(*d));

			if (!d)
				break; /* the document ends incomplete: lp_json_finish says so */
			result_view(d, &rep->res[i], &rep->params[i]);
			lp_json_obj_begin(j, NULL);
			lp_recdoc_write(&result_obj, d, j, result_member, d);
			lp_json_obj_end(j);
			free(d);
		}
		lp_json_arr_end(j);
	} else if (!strcmp(key, "check")) {
		lp_json_obj_begin(j, key);
		lp_check_json(rep->check, j);
		lp_json_obj_end(j);
	} else {
		lp_json_obj_begin(j, key);
		lp_counters_json(rep->counters, false, j);
		lp_json_obj_end(j);
	}
}

static void affinity_view(struct doc *d, const struct lp_rdma_affinity *a)
{
	d->has_affinity = a && a->known;
	if (!d->has_affinity)
		return;
	snprintf(d->affinity.nic, sizeof(d->affinity.nic), "%s", a->nic);
	d->affinity.nic_numa_node = a->numa;
	d->affinity.numa_bound = a->numa_bound;
	snprintf(d->affinity.gpu_bus_id, sizeof(d->affinity.gpu_bus_id), "%s", a->gpu_bdf);
	snprintf(d->affinity.gpu_nic_distance, sizeof(d->affinity.gpu_nic_distance), "%s", a->dist);
}

static void doc_view(struct doc *d, const struct lp_rdma_report *rep)
{
	memset(d, 0, sizeof(*d));
	d->rep = rep;
	snprintf(d->top.tool, sizeof(d->top.tool), "lp-rdma");
	snprintf(d->top.schema, sizeof(d->top.schema), "%s", LP_RDMA_DOC_SCHEMA);
	snprintf(d->top.role, sizeof(d->top.role), "%s", rep->role);
	lp_host_meta_collect(&d->host);
	d->client = rep->local_dev != NULL;
	d->check = rep->check != NULL;
	d->counters = rep->counters != NULL;
	if (!d->client)
		return;
	snprintf(d->server, sizeof(d->server), "%s", rep->server ? rep->server : "");
	d->port = rep->port;
	d->tclass = rep->tclass;
	d->sl = rep->sl;
	d->local_device = *rep->local_dev;
	affinity_view(d, rep->aff);
	d->has_remote = rep->n && !rep->res[0].status;
	if (d->has_remote)
		d->remote_device = rep->res[0].remote_dev;
	d->summary = (struct doc_counts){ rep->n, rep->failed, rep->planned };
	d->interrupted = rep->interrupted;
}

int lp_rdma_report_json_write(FILE *f, const struct lp_rdma_report *rep)
{
	struct doc *d = malloc(sizeof(*d));
	struct lp_json j;

	if (!d)
		return -ENOMEM;
	doc_view(d, rep);
	lp_json_init(&j, f, true);
	lp_json_obj_begin(&j, NULL);
	lp_recdoc_write(&doc_obj, d, &j, doc_member, d);
	lp_json_obj_end(&j);
	free(d);
	if (lp_json_finish(&j)) {
		lp_err("JSON output incomplete");
		return -EIO;
	}
	return 0;
}

int lp_rdma_report_json(const char *path, const struct lp_rdma_report *rep)
{
	FILE *f = lp_out_open(path);
	int ret;

	if (!f)
		return -EIO;
	ret = lp_rdma_report_json_write(f, rep);
	if (lp_out_close(f, path))
		ret = -EIO;
	return ret;
}

int lp_rdma_report_schema(FILE *f)
{
	return lp_recdoc_schema_doc(f, LP_RDMA_DOC_SCHEMA,
				    "lp-rdma's JSON document (--json): client runs, --check, "
				    "--counters",
				    &doc_obj);
}
