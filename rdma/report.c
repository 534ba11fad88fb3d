// SPDX-License-Identifier: MIT
/* lp-rdma's table, CSV and JSON document (rdma/report.h). */
#include "rdma/report.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "common/clock.h"
#include "common/json.h"
#include "common/lp.h"
#include "common/meta.h"
#include "common/table.h"
#include "common/units.h"

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

static void print_bw_head(FILE *f, bool bidir)
{
	if (bidir)
		fprintf(f, "\n%-10s %9s %9s %10s %10s %10s %10s %9s  %s\n", "test", "size", "msgs",
			"c->s GB/s", "s->c GB/s", "sum GB/s", "sum Gb/s", "%link",
			"(sum: " LP_RDMA_BIDIR_SUM_METHOD ")");
	else
		fprintf(f, "\n%-10s %9s %9s %10s %10s %10s %8s\n", "test", "size", "msgs", "GB/s",
			"Gb/s", "Mmsg/s", "%link");
}

/* Rates in the table: four significant digits, never an exponent (JSON keeps full numbers). */
static const char *sig4(char *buf, double v)
{
	lp_fmt_sig(buf, 24, v, 4);
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
		fprintf(f, "  %s GB/s  %s Mmsg/s\n", sig4(v[0], iv->gbytes_s),
			sig4(v[1], iv->mmsg_s));
	fflush(f);
}

/* The intervals in one line: the worst and the best and their ratio (a dip shows here). */
static void print_ival_summary(FILE *f, const char *what, const struct lp_ival_summary *s,
			       const char *unit)
{
	char v[2][24];

	fprintf(f,
		"  intervals%s: %u (%u empty), min %s %s at %.1f s, max %s %s at %.1f s, "
		"min/max %.3f\n",
		what, s->n, s->empty, sig4(v[0], s->min), unit, s->min_at_s, sig4(v[1], s->max),
		unit, s->max_at_s, s->ratio);
}

void lp_rdma_report_row(struct lp_rdma_table *t, const struct lp_rdma_params *p,
			const struct lp_rdma_result *r)
{
	bool lat = lp_rdma_test_is_lat(p->test);
	char sz[24], v[4][24];
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
		fprintf(f, "%-10s %9s %9.0f %10s %10s %10s %10s %9.1f\n",
			lp_rdma_test_names[r->test], sz, r->local.msgs,
			sig4(v[0], r->local.gbytes_s), sig4(v[1], r->remote.gbytes_s),
			sig4(v[2], r->sum_gbytes_s), sig4(v[3], r->sum_gbits_s),
			lp_percent_of(r->sum_gbits_s, 2 * r->rate_gbps));
	else
		fprintf(f, "%-10s %9s %9.0f %10s %10s %10s %8.1f\n", lp_rdma_test_names[r->test],
			sz, r->local.msgs, sig4(v[0], r->local.gbytes_s),
			sig4(v[1], r->local.gbits_s), sig4(v[2], r->local.mmsg_s),
			r->local.pct_link);
	if (!r->status && p->interval_s > 0) {
		print_ival_summary(f, p->bidir ? " c->s" : "", &r->ival_sum,
				   lat ? "us p50" : "GB/s");
		if (r->ival_sum_remote.n)
			print_ival_summary(f, " s->c", &r->ival_sum_remote, "GB/s");
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
		"full completion for read; GB/s = 1e9 B/s\nclock: %s\n",
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

/* ---- JSON --------------------------------------------------------------------- */

static void json_method(struct lp_json *j)
{
	lp_json_obj_begin(j, "method");
	lp_method_json(j);
	lp_json_str(j, "latency",
		    "write_lat/send_lat: ping-pong, one-way = RTT/2; read_lat: full "
		    "READ completion time (not halved)");
	lp_json_str(
		j, "bandwidth",
		"payload bytes from first post to last completion of the timed "
		"phase, after warm-up; bidirectional: each direction and the sum (" LP_RDMA_BIDIR_SUM_METHOD
		")");
	lp_json_obj_end(j);
}

static void json_affinity(struct lp_json *j, const struct lp_rdma_affinity *a)
{
	lp_json_obj_begin(j, "affinity");
	if (a && a->known) {
		lp_json_str(j, "nic", a->nic);
		lp_json_int(j, "nic_numa_node", a->numa);
		lp_json_bool(j, "numa_bound", a->numa_bound);
		lp_json_str(j, "gpu_bus_id", a->gpu_bdf[0] ? a->gpu_bdf : NULL);
		lp_json_str(j, "gpu_nic_distance", a->dist[0] ? a->dist : NULL);
	}
	lp_json_obj_end(j);
}

static void json_device(struct lp_json *j, const char *key, const struct lp_rdma_devinfo *d)
{
	lp_json_obj_begin(j, key);
	lp_rdma_devinfo_json(d, j);
	lp_json_obj_end(j);
}

/* The client's runs: devices, affinity, one object per run, the counts. */
static void json_client(struct lp_json *j, const struct lp_rdma_report *rep)
{
	lp_json_str(j, "server", rep->server);
	lp_json_uint(j, "port", rep->port);
	json_device(j, "local_device", rep->local_dev);
	json_affinity(j, rep->aff);
	if (rep->n && !rep->res[0].status)
		json_device(j, "remote_device", &rep->res[0].remote_dev);
	lp_json_arr_begin(j, "results");
	for (int i = 0; i < rep->n; i++) {
		lp_json_obj_begin(j, NULL);
		lp_rdma_result_json(&rep->res[i], &rep->params[i], j);
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);
	lp_json_obj_begin(j, "summary");
	lp_json_int(j, "runs", rep->n);
	lp_json_int(j, "failed", rep->failed);
	lp_json_int(j, "planned", rep->planned);
	lp_json_obj_end(j);
	lp_json_bool(j, "interrupted", rep->interrupted);
}

int lp_rdma_report_json_write(FILE *f, const struct lp_rdma_report *rep)
{
	struct lp_host_meta m;
	struct lp_json j;

	lp_host_meta_collect(&m);
	lp_json_init(&j, f, true);
	lp_json_obj_begin(&j, NULL);
	lp_json_str(&j, "tool", "lp-rdma");
	lp_json_str(&j, "role", rep->role);
	if (rep->local_dev)
		json_method(&j);
	lp_json_obj_begin(&j, "host");
	lp_host_meta_json(&m, &j);
	lp_json_obj_end(&j);
	if (rep->local_dev)
		json_client(&j, rep);
	if (rep->check)
		lp_check_json(rep->check, &j);
	if (rep->counters)
		lp_counters_json(rep->counters, false, &j);
	if (rep->inventory) {
		lp_json_obj_begin(&j, "inventory");
		lp_inv_host_json(rep->inventory, &j);
		lp_json_obj_end(&j);
	}
	lp_json_obj_end(&j);
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
	return lp_out_end(f, path, ret);
}
