// SPDX-License-Identifier: MIT
/* lp-rdma's table, CSV and JSON document (rdma/report.h). */
#include "rdma/report.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/fail.h"
#include "common/json.h"
#include "common/lp.h"
#include "common/meta.h"
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

/* ---- JSON: linkperf.rdma/2, written from its records (rdma/doc.h) ----------------------- */

/* The document's view of rep: its results' views malloc'ed (lp_rdma_doc_free). 0 or -ENOMEM. */
static int doc_view(struct lp_rdma_doc *d, const struct lp_rdma_report *rep)
{
	const struct lp_rdma_affinity *a = rep->aff;
	int ret = 0;

	memset(d, 0, sizeof(*d));
	snprintf(d->tool, sizeof(d->tool), "lp-rdma");
	snprintf(d->schema, sizeof(d->schema), "%s", LP_RDMA_DOC_SCHEMA);
	snprintf(d->role, sizeof(d->role), "%s", rep->role);
	lp_host_meta_collect(&d->host);
	d->client = rep->local_dev != NULL;
	if (!d->client)
		return 0;
	snprintf(d->server, sizeof(d->server), "%s", rep->server ? rep->server : "");
	d->port = rep->port;
	d->tclass = rep->tclass;
	d->sl = rep->sl;
	d->qp_timeout = rep->qp_timeout;
	d->local_device = *rep->local_dev;
	d->has_affinity = a && a->known;
	if (d->has_affinity) {
		snprintf(d->affinity.nic, sizeof(d->affinity.nic), "%s", a->nic);
		d->affinity.nic_numa_node = a->numa;
		d->affinity.numa_bound = a->numa_bound;
		snprintf(d->affinity.gpu_bus_id, sizeof(d->affinity.gpu_bus_id), "%s", a->gpu_bdf);
		snprintf(d->affinity.gpu_nic_distance, sizeof(d->affinity.gpu_nic_distance), "%s",
			 a->dist);
	}
	d->has_remote = rep->n && !rep->res[0].status;
	if (d->has_remote)
		d->remote_device = rep->res[0].remote_dev;
	d->summary = (struct lp_rdma_doc_counts){ rep->n, rep->failed, rep->planned };
	d->interrupted = rep->interrupted;
	d->results = calloc((size_t)rep->n + 1, sizeof(*d->results));
	if (!d->results)
		return -ENOMEM;
	for (int i = 0; i < rep->n && !ret; i++, d->nresults++)
		ret = lp_rdma_doc_result_view(&d->results[i], &rep->res[i], &rep->params[i]);
	return ret;
}

/* The members other modules write: how lp-rdma measures, --check's, --counters' and
 * --inventory's reports. */
static void doc_more(struct lp_json *j, const struct lp_rdma_report *rep)
{
	if (rep->local_dev) {
		lp_json_obj_begin(j, "method");
		lp_method_json(j);
		lp_json_str(j, "latency",
			    "write_lat/send_lat: ping-pong, one-way = RTT/2; read_lat: full READ "
			    "completion time (not halved)");
		lp_json_str(j, "bandwidth",
			    "payload bytes from first post to last completion of the timed phase, "
			    "after warm-up; bidirectional: each direction and the sum "
			    "(" LP_RDMA_BIDIR_SUM_METHOD ")");
		lp_json_obj_end(j);
	}
	if (rep->check) {
		lp_json_obj_begin(j, "check");
		lp_check_json(rep->check, j);
		lp_json_obj_end(j);
	}
	if (rep->counters) {
		lp_json_obj_begin(j, "snapshot");
		lp_counters_json(rep->counters, false, j);
		lp_json_obj_end(j);
	}
	if (rep->inventory) {
		lp_json_obj_begin(j, "inventory");
		lp_inv_host_json(rep->inventory, j);
		lp_json_obj_end(j);
	}
}

int lp_rdma_report_json_write(FILE *f, const struct lp_rdma_report *rep, struct lp_fail *fail)
{
	struct lp_rdma_doc *d = malloc(sizeof(*d));
	struct lp_json j;
	int ret = d ? doc_view(d, rep) : -ENOMEM;

	if (!ret) {
		lp_json_init(&j, f, true);
		lp_json_obj_begin(&j, NULL);
		lp_record_json(&lp_rdma_doc_record, d, &j);
		doc_more(&j, rep);
		lp_json_obj_end(&j);
		ret = lp_json_finish(&j) ? -EIO : 0;
	}
	if (d)
		lp_rdma_doc_free(d);
	free(d);
	if (ret)
		lp_fail_set(fail, ret, "JSON output incomplete: %s", strerror(-ret));
	return ret;
}

int lp_rdma_report_json(const char *path, const struct lp_rdma_report *rep, struct lp_fail *fail)
{
	FILE *f = lp_out_open(path);
	int ret;

	if (!f)
		return -EIO;
	ret = lp_rdma_report_json_write(f, rep, fail);
	return lp_out_end(f, path, ret);
}

int lp_rdma_report_schema(FILE *f)
{
	struct lp_json j;

	lp_json_init(&j, f, true);
	lp_json_obj_begin(&j, NULL);
	lp_record_schema_head(
		&j, LP_RDMA_DOC_SCHEMA,
		"lp-rdma's JSON document (--json): client runs, --check, --counters, --inventory",
		"generated from the records (rdma/doc.c: lp-rdma --json-schema); "
		"docs/schema/README.md describes the conventions");
	lp_record_schema_open(&lp_rdma_doc_record, &j);
	lp_record_schema_object(
		&j, "method",
		"units, clock and version (the same block in every linkperf document)");
	lp_record_schema_object(&j, "check", "--check: the pre-flight report (worst, checks)");
	lp_record_schema_object(&j, "snapshot", "--counters: the port's counters by source");
	lp_record_schema_object(&j, "inventory",
				"--inventory: this host's RDMA ports and GPUs (rdma/inventory.h)");
	lp_record_schema_object(&j, "qualification",
				"--expect, floors, --baseline: the verdicts (qual/qual.h)");
	lp_record_schema_close(&lp_rdma_doc_record, NULL, &j);
	lp_json_obj_end(&j);
	return lp_json_finish(&j);
}
