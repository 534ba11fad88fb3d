// SPDX-License-Identifier: MIT
/* Judging a run's cells, and the three ways out: the JSON object, a table, a Prometheus textfile. */
#include "qual/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/lp.h"
#include "common/record.h"
#include "common/units.h"

static const char *const kind_names[] = { "bandwidth", "latency", NULL };
static const char *const overall_names[] = { "PASS", "FAIL", "NONE", NULL };

/* clang-format off */
static const struct lp_record cell_record = LP_RECORD(struct lp_qual_cell,
	LP_REC_STR(struct lp_qual_cell, test),
	LP_REC_U64(struct lp_qual_cell, size),
	LP_REC_STR(struct lp_qual_cell, pair, LP_REC_DOC("who: \"client>server\" (lp-sweep), \"GPU0<-CPU\" (lp-gpu), a direction or \"\" (lp-rdma)")),
	LP_REC_ENUM(struct lp_qual_cell, kind, kind_names, LP_REC_DOC("bandwidth (GB/s) or latency (us)")),
	LP_REC_F64(struct lp_qual_cell, value, LP_REC_DOC("the value every output shows; null: failed")),
	LP_REC_F64(struct lp_qual_cell, spread, LP_REC_DOC("one standard deviation, same unit; 0 unknown")),
	LP_REC_F64(struct lp_qual_cell, ceiling, LP_REC_DOC("theoretical GB/s of the link; 0 unknown")),
	LP_REC_ENUM(struct lp_qual_cell, verdict, lp_qual_verdict_names),
	LP_REC_F64(struct lp_qual_cell, limit, LP_REC_DOC("the floor (GB/s) or ceiling (us) that applied")),
	LP_REC_F64(struct lp_qual_cell, margin, LP_REC_DOC("(value - limit) / limit, negated for latency: below 0 fails")),
	LP_REC_I32(struct lp_qual_cell, rule, LP_REC_DOC("index in rules of the limit that applied, -1 none")),
	LP_REC_ENUM(struct lp_qual_cell, change, lp_qual_change_names, LP_REC_DOC("against the baseline")),
	LP_REC_F64(struct lp_qual_cell, base_value, LP_REC_KEY("baseline_value")),
	LP_REC_F64(struct lp_qual_cell, base_spread, LP_REC_KEY("baseline_spread")),
	LP_REC_F64(struct lp_qual_cell, delta, LP_REC_DOC("relative change, positive = better")));

static const struct lp_record rule_record = LP_RECORD(struct lp_qual_rule,
	LP_REC_ENUM(struct lp_qual_rule, kind, kind_names),
	LP_REC_STR(struct lp_qual_rule, test, LP_REC_DOC("\"\": every test of the kind")),
	LP_REC_U64(struct lp_qual_rule, min_size),
	LP_REC_U64(struct lp_qual_rule, max_size),
	LP_REC_F64(struct lp_qual_rule, min_fraction, LP_REC_DOC("of the cell's ceiling, else of theoretical")),
	LP_REC_F64(struct lp_qual_rule, min_gbytes_s),
	LP_REC_F64(struct lp_qual_rule, max_lat_us),
	LP_REC_F64(struct lp_qual_rule, theoretical, LP_REC_DOC("GB/s, the profile's; 0 unknown")),
	LP_REC_BOOL(struct lp_qual_rule, floor, LP_REC_DOC("from the options, else from a profile")),
	LP_REC_STR(struct lp_qual_rule, source));

static const struct lp_record dist_record = LP_RECORD(struct lp_qual_dist,
	LP_REC_STR(struct lp_qual_dist, test),
	LP_REC_U64(struct lp_qual_dist, size),
	LP_REC_ENUM(struct lp_qual_dist, kind, kind_names),
	LP_REC_U32(struct lp_qual_dist, n, LP_REC_DOC("this run's measured cells")),
	LP_REC_F64(struct lp_qual_dist, median),
	LP_REC_F64(struct lp_qual_dist, p5),
	LP_REC_F64(struct lp_qual_dist, p95),
	LP_REC_U32(struct lp_qual_dist, base_n, LP_REC_KEY("baseline_n")),
	LP_REC_F64(struct lp_qual_dist, base_median, LP_REC_KEY("baseline_median")),
	LP_REC_F64(struct lp_qual_dist, base_p5, LP_REC_KEY("baseline_p5")),
	LP_REC_F64(struct lp_qual_dist, base_p95, LP_REC_KEY("baseline_p95")),
	LP_REC_F64(struct lp_qual_dist, delta, LP_REC_DOC("relative change of the median, positive = better")));

static const struct lp_record base_record = LP_RECORD(struct lp_qual,
	LP_REC_STR(struct lp_qual, base_file, LP_REC_KEY("file")),
	LP_REC_F64(struct lp_qual, opts.regress_pct, LP_REC_KEY("regress_pct")),
	LP_REC_F64(struct lp_qual, opts.noise_k, LP_REC_KEY("noise_k")),
	LP_REC_U64(struct lp_qual, nmatched, LP_REC_KEY("matched"), LP_REC_DOC("this run's cells found in the baseline (same test, size, pair)")),
	LP_REC_BOOL(struct lp_qual, base_compared, LP_REC_KEY("compared"), LP_REC_DOC("compared cell by cell: at least half matched")),
	LP_REC_STR(struct lp_qual, base_why, LP_REC_KEY("reason"), LP_REC_DOC("why not compared cell by cell, \"\"")),
	LP_REC_U32(struct lp_qual, nregress, LP_REC_KEY("regressions")),
	LP_REC_U64(struct lp_qual, nmissing, LP_REC_NOJSON),
	LP_REC_VEC_NEST(struct lp_qual, missing, nmissing, cell_record, LP_REC_DOC("the baseline's cells this run lacks")),
	LP_REC_U64(struct lp_qual, ndist, LP_REC_NOJSON),
	LP_REC_VEC_NEST(struct lp_qual, dist, ndist, dist_record, LP_REC_KEY("distributions")));

static const struct lp_record qual_record = LP_RECORD(struct lp_qual,
	LP_REC_STR(struct lp_qual, tool),
	LP_REC_NAME(struct lp_qual, verdict, overall_names, LP_REC_DOC("FAIL: a cell failed or regressed, or the baseline did not match; PASS: every judged cell passed")),
	LP_REC_STR(struct lp_qual, expect, LP_REC_DOC("--expect as given, \"\" none")),
	LP_REC_STR(struct lp_qual, profiles, LP_REC_DOC("the profiles in use, comma separated")),
	LP_REC_STR(struct lp_qual, note),
	LP_REC_STR(struct lp_qual, command),
	LP_REC_U32(struct lp_qual, npass, LP_REC_KEY("pass")),
	LP_REC_U32(struct lp_qual, nfail, LP_REC_KEY("fail")),
	LP_REC_U32(struct lp_qual, nnone, LP_REC_KEY("no_expectation")),
	LP_REC_U64(struct lp_qual, nrules, LP_REC_NOJSON),
	LP_REC_VEC_NEST(struct lp_qual, rules, nrules, rule_record));
/* clang-format on */

bool lp_qual_failed(const struct lp_qual *q)
{
	return q->nfail || q->nregress || (q->opts.baseline && !q->base_compared);
}

int lp_qual_judge(struct lp_qual *q, const struct lp_qual_cell *cells, size_t n)
{
	int err = 0;

	free(q->cells);
	q->cells = malloc((n + 1) * sizeof(*cells));
	if (!q->cells)
		return -ENOMEM;
	memcpy(q->cells, cells, n * sizeof(*cells));
	q->ncells = n;
	q->npass = q->nfail = q->nnone = q->nregress = 0;
	for (size_t i = 0; i < n; i++) {
		lp_qual_cell_judge(q, &q->cells[i]);
		q->npass += q->cells[i].verdict == LP_QUAL_PASS;
		q->nfail += q->cells[i].verdict == LP_QUAL_FAIL;
		q->nnone += q->cells[i].verdict == LP_QUAL_NONE;
	}
	if (q->opts.baseline)
		err = lp_qual_compare(q);
	q->verdict = lp_qual_failed(q)					  ? "FAIL"
		     : q->npass || (q->opts.baseline && q->base_compared) ? "PASS"
									  : "NONE";
	if (!err && q->opts.baseline && !q->base_compared) {
		err = lp_fail_set(&q->fail, -EINVAL, "--baseline %s: %s", q->opts.baseline,
				  q->base_why);
	}
	if (q->opts.prom && (!err || err == -EINVAL)) {
		int perr = lp_qual_prom_write(q, q->opts.prom);

		err = err ? err : perr;
	}
	return err;
}

void lp_qual_json(const struct lp_qual *q, struct lp_json *j)
{
	lp_json_obj_begin(j, "qualification");
	lp_record_json(&qual_record, q, j);
	lp_json_str(j, "units",
		    "bandwidth GB/s (1e9 bytes/s), latency us; margin = (value - limit) / limit, "
		    "negated for latency: below 0 fails");
	if (q->opts.baseline) {
		lp_json_obj_begin(j, "baseline");
		lp_record_json(&base_record, q, j);
		lp_json_obj_end(j);
	} else {
		lp_json_null(j, "baseline");
	}
	lp_record_json_columns(&cell_record,
			       &(struct lp_rec_rows){ .n = q->ncells,
						      .base = q->cells,
						      .stride = sizeof(*q->cells) },
			       "cells", j);
	lp_json_obj_end(j);
}

void lp_qual_json_extra(struct lp_json *j, const void *arg)
{
	lp_qual_json(arg, j);
}

void lp_qual_schema(struct lp_json *j)
{
	lp_json_obj_begin(j, "qualification");
	lp_json_str(j, "description", "the judgement of qual/ (--expect, floors, --baseline)");
	lp_record_schema_open(&qual_record, j);
	lp_json_obj_begin(j, "units");
	lp_json_str(j, "type", "string");
	lp_json_obj_end(j);
	lp_json_obj_begin(j, "baseline");
	lp_json_arr_begin(j, "anyOf");
	lp_json_obj_begin(j, NULL);
	lp_json_str(j, "type", "null");
	lp_json_obj_end(j);
	lp_json_obj_begin(j, NULL);
	lp_record_schema(&base_record, j);
	lp_json_obj_end(j);
	lp_json_arr_end(j);
	lp_json_obj_end(j);
	lp_json_obj_begin(j, "cells");
	lp_record_schema_columns(&cell_record, 0, j);
	lp_json_obj_end(j);
	lp_record_schema_close(&qual_record,
			       (const char *const[]){ "units", "baseline", "cells", NULL }, j);
	lp_json_obj_end(j);
}

/* The table's unit of a kind: rates between hosts in Gb/s, copies inside a node (lp-gpu) in GB/s
 * (docs/METHOD.md, "Units"); the factor from the module's GB/s to it. */
static const char *print_unit(const struct lp_qual *q, enum lp_qual_kind kind, double *k)
{
	bool bits = kind == LP_QUAL_BW && strcmp(q->tool, "lp-gpu");

	*k = bits ? 8 : 1;
	return bits ? "Gb/s" : kind == LP_QUAL_BW ? "GB/s" : "us";
}

/* "median (p5-p95)" of 4 significant digits each, in the table's unit (factor k). */
static const char *dist_text(char *buf, size_t len, double k, double median, double p5, double p95)
{
	char v[3][32];

	lp_fmt_sig(v[0], sizeof(v[0]), k * median, 4);
	lp_fmt_sig(v[1], sizeof(v[1]), k * p5, 4);
	lp_fmt_sig(v[2], sizeof(v[2]), k * p95, 4);
	snprintf(buf, len, "%s (%s-%s)", v[0], v[1], v[2]);
	return buf;
}

/* Per test and size: this run's and the baseline's median, p5, p95 (any node sets). */
static void qual_print_dists(const struct lp_qual *q, FILE *f)
{
	if (!q->ndist)
		return;
	fprintf(f, "  %-12s %10s %-4s %28s   %28s %8s\n", "distribution", "size", "unit",
		"this run: median (p5-p95)", "baseline: median (p5-p95)", "median");
	for (size_t i = 0; i < q->ndist; i++) {
		const struct lp_qual_dist *d = &q->dist[i];
		char sz[24], now[100], old[100], delta[32];
		double k;
		const char *unit = print_unit(q, d->kind, &k);

		lp_fmt_size(sz, sizeof(sz), d->size);
		if (isfinite(d->delta))
			snprintf(delta, sizeof(delta), "%+.1f%%", 100 * d->delta);
		else
			snprintf(delta, sizeof(delta), "%s", LP_NA);
		fprintf(f, "  %-12s %10s %-4s %28s   %28s %8s\n", d->test, sz, unit,
			dist_text(now, sizeof(now), k, d->median, d->p5, d->p95),
			dist_text(old, sizeof(old), k, d->base_median, d->base_p5, d->base_p95),
			delta);
	}
}

/* One cell's line: numbers of 4 significant digits, never an exponent; LP_NA for none. */
static void print_cell(const struct lp_qual *q, const struct lp_qual_cell *c, bool base, FILE *f)
{
	char sz[24], val[32], lim[32] = "-", mar[32] = "-", bv[32], cols[3][48];
	double k;
	const char *unit = print_unit(q, c->kind, &k);

	lp_fmt_size(sz, sizeof(sz), c->size);
	lp_fmt_sig(val, sizeof(val), k * c->value, 4);
	if (c->verdict != LP_QUAL_NONE) {
		lp_fmt_sig(lim, sizeof(lim), k * c->limit, 4);
		lp_fmt_fixed(mar, sizeof(mar) - 1, 100 * c->margin, 1);
		strcat(mar, isfinite(c->margin) ? "%" : "");
	}
	fprintf(f, "  %-12s %10s %-22s %s %s %s %-7s", c->test, sz, c->pair[0] ? c->pair : "-",
		lp_fmt_rjust(cols[0], sizeof(cols[0]), val, 12),
		lp_fmt_rjust(cols[1], sizeof(cols[1]), lim, 12),
		lp_fmt_rjust(cols[2], sizeof(cols[2]), mar, 8), lp_qual_verdict_names[c->verdict]);
	if (base && c->change != LP_QUAL_NEW) {
		lp_fmt_sig(bv, sizeof(bv), k * c->base_value, 4);
		if (isfinite(c->delta))
			snprintf(mar, sizeof(mar), "%+.1f%%", 100 * c->delta);
		else
			snprintf(mar, sizeof(mar), "%s", LP_NA);
		fprintf(f, "  %s %s %s", lp_fmt_rjust(cols[0], sizeof(cols[0]), bv, 9),
			lp_fmt_rjust(cols[1], sizeof(cols[1]), mar, 7),
			lp_qual_change_names[c->change]);
	} else if (base) {
		fprintf(f, "  %9s %7s %s", "-", "", "new");
	}
	fprintf(f, " %s\n", unit);
}

void lp_qual_print(const struct lp_qual *q, FILE *f)
{
	bool base = q->opts.baseline != NULL;

	fprintf(f, "\nqualification%s%s%s\n", q->profiles[0] ? " (profiles: " : "", q->profiles,
		q->profiles[0] ? ")" : "");
	if (q->note[0])
		fprintf(f, "  note: %s\n", q->note);
	fprintf(f, "  %-12s %10s %-22s %12s %12s %8s %-7s%s\n", "test", "size", "pair", "value",
		"limit", "margin", "verdict", base ? "  baseline   change" : "");
	for (size_t i = 0; i < q->ncells; i++)
		print_cell(q, &q->cells[i], base, f);
	for (size_t i = 0; i < q->nmissing && i < 20; i++) {
		char sz[24];

		lp_fmt_size(sz, sizeof(sz), q->missing[i].size); /* "64 KiB", as every size */
		fprintf(f, "  missing from this run (in the baseline): %s %s%s%s\n",
			q->missing[i].test, sz, q->missing[i].pair[0] ? " " : "",
			q->missing[i].pair);
	}
	if (q->nmissing > 20)
		fprintf(f, "  ... and %zu more missing (see the JSON)\n", q->nmissing - 20);
	qual_print_dists(q, f);
	fprintf(f, "verdict: %s (%u pass, %u fail, %u without expectation%s", q->verdict, q->npass,
		q->nfail, q->nnone, base ? "" : ")\n");
	if (base && q->base_compared)
		fprintf(f, "; %u regressions against %s)\n", q->nregress, q->opts.baseline);
	else if (base)
		fprintf(f, "; not compared cell by cell: %s)\n", q->base_why);
}

/* A label value in the exposition format: backslash, double quote and newline escaped. */
static void prom_label(FILE *f, const char *key, const char *val, bool last)
{
	fprintf(f, "%s=\"", key);
	for (; *val; val++) {
		if (*val == '\\' || *val == '"')
			fputc('\\', f);
		if (*val == '\n')
			fputs("\\n", f);
		else
			fputc(*val, f);
	}
	fputs(last ? "\"}" : "\",", f);
}

static void prom_cell(FILE *f, const struct lp_qual *q, const char *metric,
		      const struct lp_qual_cell *c, double v)
{
	char size[32];

	snprintf(size, sizeof(size), "%llu", (unsigned long long)c->size);
	fprintf(f, "%s{", metric);
	prom_label(f, "tool", q->tool, false);
	prom_label(f, "test", c->test, false);
	prom_label(f, "size", size, false);
	prom_label(f, "pair", c->pair, true);
	fprintf(f, " %.9g\n", v);
}

static void prom_head(FILE *f, const char *metric, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", metric, help, metric);
}

void lp_qual_prom(const struct lp_qual *q, FILE *f)
{
	static const struct {
		const char *metric, *help;
	} m[] = {
		{ "linkperf_bandwidth_gbytes_per_second",
		  "Measured bandwidth of a cell, GB/s (1e9 bytes/s)." },
		{ "linkperf_latency_microseconds",
		  "Measured latency of a cell (p50), microseconds." },
		{ "linkperf_cell_limit",
		  "The limit the cell was judged against (GB/s or microseconds)." },
		{ "linkperf_cell_pass", "1 if the cell passed its expectation, 0 if it failed." },
		{ "linkperf_cell_regression",
		  "1 if the cell regressed against the baseline, else 0." },
	};

	for (size_t k = 0; k < LP_ARRAY_SIZE(m); k++) {
		prom_head(f, m[k].metric, m[k].help);
		for (size_t i = 0; i < q->ncells; i++) {
			const struct lp_qual_cell *c = &q->cells[i];

			if ((k == 0 && c->kind == LP_QUAL_BW && isfinite(c->value)) ||
			    (k == 1 && c->kind == LP_QUAL_LAT && isfinite(c->value)))
				prom_cell(f, q, m[k].metric, c, c->value);
			else if (k == 2 && c->verdict != LP_QUAL_NONE)
				prom_cell(f, q, m[k].metric, c, c->limit);
			else if (k == 3 && c->verdict != LP_QUAL_NONE)
				prom_cell(f, q, m[k].metric, c, c->verdict == LP_QUAL_PASS);
			else if (k == 4 && c->change > LP_QUAL_NEW)
				prom_cell(f, q, m[k].metric, c, c->change == LP_QUAL_REGRESSION);
		}
	}
	prom_head(f, "linkperf_cells", "Cells by verdict.");
	fprintf(f, "linkperf_cells{tool=\"%s\",verdict=\"pass\"} %u\n", q->tool, q->npass);
	fprintf(f, "linkperf_cells{tool=\"%s\",verdict=\"fail\"} %u\n", q->tool, q->nfail);
	fprintf(f, "linkperf_cells{tool=\"%s\",verdict=\"none\"} %u\n", q->tool, q->nnone);
	prom_head(f, "linkperf_regressions", "Cells that regressed against the baseline.");
	fprintf(f, "linkperf_regressions{tool=\"%s\"} %u\n", q->tool, q->nregress);
	prom_head(f, "linkperf_run_ok",
		  "1 if the run passed (no failed cell, no regression), else 0.");
	fprintf(f, "linkperf_run_ok{tool=\"%s\"} %d\n", q->tool, !lp_qual_failed(q));
	prom_head(f, "linkperf_run_timestamp_seconds", "When the run was judged (Unix time).");
	fprintf(f, "linkperf_run_timestamp_seconds{tool=\"%s\"} %lld\n", q->tool,
		(long long)time(NULL));
}

/* node_exporter's textfile collector may read at any time: lp_out_open() writes a temporary beside
 * the target (never *.prom, its name unpredictable) and lp_out_close() renames it over. "-" is stdout. */
int lp_qual_prom_write(const struct lp_qual *q, const char *path)
{
	FILE *f = lp_out_open(path);

	if (!f)
		return -EIO;
	lp_qual_prom(q, f);
	return lp_out_close(f, path) ? -EIO : 0;
}
