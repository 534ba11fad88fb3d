// SPDX-License-Identifier: MIT
/* Judging a run's cells, and the three ways out: the JSON object, a table, a Prometheus textfile. */
#include "qual/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/lp.h"
#include "common/units.h"

static const char *unit_of(const struct lp_qual_cell *c)
{
	return c->kind == LP_QUAL_BW ? "GB/s" : "us";
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
	if (!err && q->opts.prom)
		err = lp_qual_prom_write(q, q->opts.prom);
	return err;
}

bool lp_qual_failed(const struct lp_qual *q)
{
	return q->nfail || q->nregress;
}

static const char *overall(const struct lp_qual *q)
{
	return lp_qual_failed(q) ? "FAIL" : q->npass ? "PASS" : "NONE";
}

void lp_qual_json(const struct lp_qual *q, struct lp_json *j)
{
	lp_json_obj_begin(j, "qualification");
	lp_json_str(j, "verdict", overall(q));
	lp_json_str(j, "expect", q->opts.expect);
	lp_json_str(j, "profiles", q->profiles[0] ? q->profiles : NULL);
	lp_json_str(j, "note", q->note[0] ? q->note : NULL);
	if (q->opts.argv) {
		lp_json_arr_begin(j, "command");
		for (char **a = q->opts.argv; *a; a++)
			lp_json_str(j, NULL, *a);
		lp_json_arr_end(j);
	}
	lp_json_str(j, "units",
		    "bandwidth GB/s (1e9 bytes/s), latency us; margin = (value - limit) / limit, "
		    "negated for latency: below 0 fails");
	lp_json_uint(j, "pass", q->npass);
	lp_json_uint(j, "fail", q->nfail);
	lp_json_uint(j, "no_expectation", q->nnone);
	if (q->opts.baseline) {
		lp_json_obj_begin(j, "baseline");
		lp_json_str(j, "file", q->opts.baseline);
		lp_json_num(j, "regress_pct", q->opts.regress_pct);
		lp_json_num(j, "noise_k", q->opts.noise_k);
		lp_json_str(j, "rule",
			    "regression: worse by more than regress_pct and |new - old| > "
			    "noise_k * sqrt(spread_new^2 + spread_old^2)");
		lp_json_uint(j, "regressions", q->nregress);
		lp_json_arr_begin(j, "missing");
		for (size_t i = 0; i < q->nmissing; i++)
			lp_json_str(j, NULL, q->missing[i]);
		lp_json_arr_end(j);
		lp_json_obj_end(j);
	}
	lp_json_arr_begin(j, "cells");
	for (size_t i = 0; i < q->ncells; i++) {
		const struct lp_qual_cell *c = &q->cells[i];

		lp_json_obj_begin(j, NULL);
		lp_json_str(j, "test", c->test);
		lp_json_uint(j, "size", c->size);
		lp_json_str(j, "pair", c->pair);
		lp_json_str(j, "unit", unit_of(c));
		lp_json_num(j, "value", c->value);
		lp_json_num(j, "spread", c->spread);
		lp_json_str(j, "verdict", lp_qual_verdict_names[c->verdict]);
		lp_json_num(j, "limit", c->limit);
		lp_json_num(j, "margin", c->margin);
		lp_json_str(j, "source", c->source);
		if (c->change != LP_QUAL_NO_BASE) {
			lp_json_str(j, "change", lp_qual_change_names[c->change]);
			lp_json_num(j, "baseline_value", c->base_value);
			lp_json_num(j, "baseline_spread", c->base_spread);
			lp_json_num(j, "delta", c->delta);
		}
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);
	lp_json_obj_end(j);
}

/* The table's unit of c: rates between hosts in Gb/s, copies inside a node (lp-gpu) in GB/s
 * (docs/METHOD.md, "Units"); the factor from the module's GB/s to it. */
static const char *print_unit(const struct lp_qual *q, const struct lp_qual_cell *c, double *k)
{
	bool bits = c->kind == LP_QUAL_BW && strcmp(q->tool, "lp-gpu");

	*k = bits ? 8 : 1;
	return bits ? "Gb/s" : unit_of(c);
}

/* One cell's line: numbers of 4 significant digits, never an exponent; LP_NA for none. */
static void print_cell(const struct lp_qual *q, const struct lp_qual_cell *c, bool base, FILE *f)
{
	char sz[24], val[32], lim[32] = "-", mar[32] = "-", bv[32], cols[3][48];
	double k;
	const char *unit = print_unit(q, c, &k);

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
	for (size_t i = 0; i < q->nmissing; i++)
		fprintf(f, "  missing from this run (in the baseline): %s\n", q->missing[i]);
	fprintf(f, "verdict: %s (%u pass, %u fail, %u without expectation%s", overall(q), q->npass,
		q->nfail, q->nnone, base ? "" : ")\n");
	if (base)
		fprintf(f, "; %u regressions against %s)\n", q->nregress, q->opts.baseline);
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

/* node_exporter's textfile collector may read at any time: write a temporary file beside the
 * target, then rename it over (atomic on one file system). "-" is stdout. */
int lp_qual_prom_write(const struct lp_qual *q, const char *path)
{
	char tmp[4096];
	FILE *f;

	if (!strcmp(path, "-")) {
		lp_qual_prom(q, stdout);
		return fflush(stdout) ? -EIO : 0;
	}
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	f = lp_out_open(tmp);
	if (!f)
		return -EIO;
	lp_qual_prom(q, f);
	if (lp_out_close(f, tmp))
		goto fail;
	if (rename(tmp, path)) {
		lp_err("--prom %s: %s", path, strerror(errno));
		goto fail;
	}
	return 0;
fail:
	unlink(tmp);
	return -EIO;
}
