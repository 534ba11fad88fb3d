// SPDX-License-Identifier: MIT
/* lp-gpu sinks: text tables, CSV and one JSON document (linkperf.gpu/2), from results alone. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/lp.h"
#include "common/table.h"
#include "common/units.h"
#include "gpu/doc.h"
#include "gpu/gpu.h"

static const char *lp_unit(const struct lp_gpu_test *t)
{
	return t->latency ? "ns" : "GB/s";
}

static const char *lp_method(const struct lp_gpu_test *t)
{
	return t->method == LP_GPU_CE ? "ce" : "sm";
}

static void lp_ver(char *buf, size_t len, int v)
{
	if (v > 0)
		snprintf(buf, len, "%d.%d", v / 1000, v % 1000 / 10);
	else
		snprintf(buf, len, "?");
}

/* A modelled figure with its decimals, LP_NA when the model does not know it (0). */
static const char *known(char *buf, double v, int decimals)
{
	lp_fmt_fixed(buf, 24, v > 0 ? v : NAN, decimals);
	return buf;
}

void lp_gpu_report_topo_text(FILE *f, const struct lp_gpu_topo *t)
{
	static const char *const hdr[] = { "GPU",      "name",	    "bus id",	     "NUMA",
					   "PCIe now", "PCIe max",  "PCIe GB/s/dir", "memory",
					   "HBM GB/s", "NVLinks up" };
	char warn[LP_GPU_WARN_MAX][LP_GPU_WARN_LEN], drv[16], rt[16];
	struct lp_table tab;
	int nw;

	lp_ver(drv, sizeof(drv), t->cuda_driver_version);
	lp_ver(rt, sizeof(rt), t->cuda_runtime_version);
	fprintf(f, "# driver %s, CUDA driver %s, runtime %s; NVML: %s\n",
		t->driver_version[0] ? t->driver_version : "?", drv, rt,
		t->nvml ? "yes" : t->nvml_note);
	if (lp_table_init(&tab, LP_ARRAY_SIZE(hdr), hdr))
		return;
	for (int i = 0; i < t->n; i++) {
		const struct lp_gpu_dev_info *g = &t->gpu[i];
		char mem[32], buf[2][24];

		lp_fmt_size(mem, sizeof(mem), g->mem_bytes);
		lp_table_row(&tab);
		lp_table_set(&tab, 0, "GPU%d (cuda %d)", i, g->cuda_dev);
		lp_table_set(&tab, 1, "%s", g->name);
		lp_table_set(&tab, 2, "%s", g->bus_id);
		lp_table_set(&tab, 3, "%d", g->numa_node);
		if (g->pcie.cur_gen)
			lp_table_set(&tab, 4, "Gen%u x%u", g->pcie.cur_gen, g->pcie.cur_width);
		else
			lp_table_set(&tab, 4, "?");
		if (g->pcie.max_gen)
			lp_table_set(&tab, 5, "Gen%u x%u (%s)", g->pcie.max_gen, g->pcie.max_width,
				     g->pcie.source);
		else
			lp_table_set(&tab, 5, "?");
		lp_table_set(&tab, 6, "%s", known(buf[0], g->pcie_gbs, 1));
		lp_table_set(&tab, 7, "%s", mem);
		lp_table_set(&tab, 8, "%s", known(buf[1], g->hbm_gbs, 0));
		if (g->nvlink_links)
			lp_table_set(&tab, 9, "%u/%u v%s", g->nvlink_up, g->nvlink_links,
				     lp_gpu_nvlink_version_name(g->nvlink_version));
		else
			lp_table_set(&tab, 9, "-");
	}
	lp_table_print(&tab, f);
	lp_table_free(&tab);
	if (t->n > 1) {
		const char *ph[LP_GPU_MAX + 1];
		char names[LP_GPU_MAX + 1][16];

		ph[0] = "link: from \\ to";
		for (int i = 0; i < t->n; i++) {
			snprintf(names[i], sizeof(names[i]), "GPU%d", i);
			ph[i + 1] = names[i];
		}
		if (!lp_table_init(&tab, (unsigned)t->n + 1, ph)) {
			for (int a = 0; a < t->n; a++) {
				lp_table_row(&tab);
				lp_table_set(&tab, 0, "GPU%d", a);
				for (int b = 0; b < t->n; b++)
					lp_table_set(&tab, (unsigned)b + 1,
						     a == b ? "-" : "%s%s %.0f", t->pair[a][b].link,
						     t->pair[a][b].p2p_access ? "" : " (no P2P)",
						     t->pair[a][b].ceiling_gbs);
			}
			fprintf(f,
				"\n# peer links, from the row's GPU to the column's: link and expected "
				"GB/s\n");
			lp_table_print(&tab, f);
			lp_table_free(&tab);
		}
	}
	nw = lp_gpu_topo_warnings(t, warn, LP_GPU_WARN_MAX);
	for (int i = 0; i < nw; i++)
		fprintf(f, "WARNING: %s\n", warn[i]);
}

static void lp_cell_text(char *buf, size_t len, const struct lp_gpu_test *t,
			 const struct lp_gpu_cell *c)
{
	double pct = lp_percent_of(c->med, c->ceiling);
	char med[32];

	lp_fmt_sig(med, sizeof(med), c->med, 4); /* small rates keep their digits: no 0.00 */
	if (c->status == LP_GPU_WAIVED)
		snprintf(buf, len, "N/A");
	else if (c->status == LP_GPU_ERROR)
		snprintf(buf, len, "ERROR");
	else if (t->latency)
		snprintf(buf, len, "%.0f", c->med);
	else if (isfinite(pct))
		snprintf(buf, len, "%s (%.0f%%)", med, pct);
	else
		snprintf(buf, len, "%s", med);
}

/*
 * The sinks print the source of the data on rows and its destination on columns, as lp-sweep
 * does (docs/METHOD.md, "Matrices"); a result stores [series][to][from] (gpu/gpu.h), so the
 * row of a table is a result's column and back.
 */
static const struct lp_gpu_cell *cell_from_to(const struct lp_gpu_result *r, unsigned s,
					      unsigned from, unsigned to)
{
	return lp_gpu_cell_at(r, s, to, from);
}

/* One series as a table: sources on rows, destinations on columns. */
static void series_table(FILE *f, const struct lp_gpu_result *r, unsigned s)
{
	const struct lp_gpu_test *t = r->test;
	const char *hdr[LP_GPU_MAX + 1];
	struct lp_table tab;
	char corner[48];

	snprintf(corner, sizeof(corner), "%s%sfrom \\ to", t->series[s] ? t->series[s] : "",
		 t->series[s] ? ": " : "");
	hdr[0] = corner;
	for (unsigned to = 0; to < r->nrows; to++)
		hdr[to + 1] = r->rowname[to];
	if (lp_table_init(&tab, r->nrows + 1, hdr))
		return;
	for (unsigned from = 0; from < r->ncols; from++) {
		lp_table_row(&tab);
		lp_table_set(&tab, 0, "%s", r->colname[from]);
		for (unsigned to = 0; to < r->nrows; to++) {
			char cell[64];

			lp_cell_text(cell, sizeof(cell), t, cell_from_to(r, s, from, to));
			lp_table_set(&tab, to + 1, "%s", cell);
		}
	}
	lp_table_print(&tab, f);
	lp_table_free(&tab);
}

void lp_gpu_report_result_text(FILE *f, const struct lp_gpu_result *r)
{
	const struct lp_gpu_test *t = r->test;
	char size[32];

	lp_fmt_size(size, sizeof(size), r->size);
	fprintf(f, "\n%s: %s\n", t->key, t->desc);
	if (r->status == LP_GPU_WAIVED && r->reason[0]) {
		fprintf(f, "  WAIVED: %s\n", r->reason);
		return;
	}
	fprintf(f, "  %s, %s, median%s; rows: from (source), columns: to (destination); %s\n", size,
		lp_unit(t), t->latency ? " per load" : " (percent of expected ceiling)", t->orient);
	for (unsigned s = 0; s < t->nseries; s++)
		series_table(f, r, s);
	if (r->note[0])
		fprintf(f, "  note: %s\n", r->note);
	/* Reasons for N/A (except the obvious diagonal) and errors, once per cell. */
	for (unsigned from = 0; from < r->ncols; from++) {
		for (unsigned to = 0; to < r->nrows; to++) {
			const struct lp_gpu_cell *cell = cell_from_to(r, 0, from, to);

			if (cell->status == LP_GPU_OK ||
			    (t->shape == LP_GPU_SHAPE_GPU_GPU && from == to &&
			     cell->status == LP_GPU_WAIVED))
				continue;
			fprintf(f, "  %s -> %s: %s: %s\n", r->colname[from], r->rowname[to],
				cell->status == LP_GPU_ERROR ? "ERROR" : "waived", cell->reason);
		}
	}
}

void lp_gpu_report_text(FILE *f, const struct lp_gpu_report *rep)
{
	lp_gpu_report_topo_text(f, rep->topo);
	for (unsigned i = 0; i < rep->nres; i++)
		lp_gpu_report_result_text(f, &rep->res[i]);
}

/* One CSV line: a cell of series s, from -> to. */
static void csv_cell(FILE *f, const struct lp_gpu_result *r, unsigned s, unsigned from, unsigned to)
{
	const struct lp_gpu_test *t = r->test;
	const struct lp_gpu_cell *cell = cell_from_to(r, s, from, to);
	bool ok = cell->status == LP_GPU_OK;

	fprintf(f, "%s,%s,%llu,", t->key, lp_method(t), (unsigned long long)r->size);
	lp_csv_field(f, t->series[s] ? t->series[s] : "", 0);
	fprintf(f, "%s,%s,%s,%s,", r->colname[from], r->rowname[to],
		lp_gpu_status_name(cell->status), lp_unit(t));
	if (ok)
		fprintf(f, "%.6g,%.6g,%.6g,%u,", cell->med, cell->min, cell->max, cell->samples);
	else
		fprintf(f, ",,,0,");
	if (ok && cell->ceiling > 0)
		fprintf(f, "%.6g,%.2f,", cell->ceiling, lp_percent_of(cell->med, cell->ceiling));
	else
		fprintf(f, ",,");
	fprintf(f, "%s,", ok && cell->verified ? "true" : "false");
	lp_csv_field(f, cell->reason, 1);
}

void lp_gpu_report_csv(FILE *f, const struct lp_gpu_report *rep)
{
	fprintf(f, "test,method,size_bytes,series,from,to,status,unit,median,min,max,samples,"
		   "ceiling,pct_of_ceiling,verified,reason\n");
	for (unsigned i = 0; i < rep->nres; i++) {
		const struct lp_gpu_result *r = &rep->res[i];

		for (unsigned s = 0; s < r->test->nseries; s++)
			for (unsigned from = 0; from < r->ncols; from++)
				for (unsigned to = 0; to < r->nrows; to++)
					csv_cell(f, r, s, from, to);
	}
}

/* ---- JSON: linkperf.gpu/2, written from its records (gpu/doc.h) ------------------------- */

static void cell_view(struct lp_gpu_doc_cell *d, const struct lp_gpu_result *r, unsigned s,
		      unsigned from, unsigned to)
{
	const struct lp_gpu_cell *c = cell_from_to(r, s, from, to);
	bool ok = c->status == LP_GPU_OK, ceil = ok && c->ceiling > 0;

	*d = (struct lp_gpu_doc_cell){
		.median = ok ? c->med : NAN,
		.min = ok ? c->min : NAN,
		.max = ok ? c->max : NAN,
		.samples = ok ? c->samples : 0,
		.ceiling = ceil ? c->ceiling : NAN,
		.pct_of_ceiling = ceil ? lp_percent_of(c->med, c->ceiling) : NAN,
		.verified = ok && c->verified,
	};
	snprintf(d->from, sizeof(d->from), "%s", r->colname[from]);
	snprintf(d->to, sizeof(d->to), "%s", r->rowname[to]);
	snprintf(d->status, sizeof(d->status), "%s", lp_gpu_status_name(c->status));
	snprintf(d->reason, sizeof(d->reason), "%s", ok ? "" : c->reason);
}

/* A series' cells, source by source. 0 or -ENOMEM. */
static int series_view(struct lp_gpu_doc_series *d, const struct lp_gpu_result *r, unsigned s)
{
	snprintf(d->label, sizeof(d->label), "%s",
		 r->test->series[s] ? r->test->series[s] : "value");
	d->cells = calloc((size_t)r->ncols * r->nrows + 1, sizeof(*d->cells));
	if (!d->cells)
		return -ENOMEM;
	for (unsigned from = 0; from < r->ncols; from++)
		for (unsigned to = 0; to < r->nrows; to++)
			cell_view(&d->cells[d->ncells++], r, s, from, to);
	return 0;
}

static int result_view(struct lp_gpu_doc_result *d, const struct lp_gpu_result *r)
{
	const struct lp_gpu_test *t = r->test;
	int ret = 0;

	*d = (struct lp_gpu_doc_result){ .size = r->size,
					 .waived = r->status == LP_GPU_WAIVED,
					 .has_note = r->note[0] != '\0' };
	snprintf(d->test, sizeof(d->test), "%s", t->key);
	snprintf(d->description, sizeof(d->description), "%s", t->desc);
	snprintf(d->copy_method, sizeof(d->copy_method), "%s", lp_method(t));
	snprintf(d->unit, sizeof(d->unit), "%s", lp_unit(t));
	snprintf(d->matrix, sizeof(d->matrix), "%s", t->orient);
	snprintf(d->status, sizeof(d->status), "%s", lp_gpu_status_name(r->status));
	snprintf(d->reason, sizeof(d->reason), "%s", r->reason);
	snprintf(d->note, sizeof(d->note), "%s", r->note);
	d->series = calloc(t->nseries + 1, sizeof(*d->series));
	if (!d->series)
		return -ENOMEM;
	for (unsigned s = 0; s < t->nseries && !ret; s++, d->nseries++)
		ret = series_view(&d->series[s], r, s);
	return ret;
}

static void gpu_view(struct lp_gpu_doc_gpu *d, const struct lp_gpu_dev_info *g, int i)
{
	*d = (struct lp_gpu_doc_gpu){
		.index = i,
		.cuda_device = g->cuda_dev,
		.numa_node = g->numa_node,
		.memory_bytes = g->mem_bytes,
		.sm_count = g->sm_count,
		.l2_bytes = g->l2_bytes,
		.cc_major = g->cc_major,
		.cc_minor = g->cc_minor,
		.memory_clock_mhz = g->mem_clock_mhz,
		.memory_bus_width_bits = g->mem_bus_width,
		.pcie = { g->pcie.cur_gen, g->pcie.cur_width, g->pcie.max_gen, g->pcie.max_width,
			  "", g->pcie_gbs },
		.nvlink = { g->nvlink_links, g->nvlink_up, g->nvlink_to_switch, "", g->nvlink_gbs },
		.hbm_ceiling_gbytes_per_s = g->hbm_gbs,
	};
	snprintf(d->name, sizeof(d->name), "%s", g->name);
	snprintf(d->bus_id, sizeof(d->bus_id), "%s", g->bus_id);
	snprintf(d->pcie.source, sizeof(d->pcie.source), "%s",
		 g->pcie.source ? g->pcie.source : "");
	snprintf(d->nvlink.version, sizeof(d->nvlink.version), "%s",
		 lp_gpu_nvlink_version_name(g->nvlink_version));
}

/* The GPUs, every ordered pair's link and the topology's warnings. 0 or -ENOMEM. */
static int topo_view(struct lp_gpu_doc *d, const struct lp_gpu_topo *t)
{
	d->gpus = calloc((size_t)t->n + 1, sizeof(*d->gpus));
	d->pairs = calloc((size_t)t->n * t->n + 1, sizeof(*d->pairs));
	if (!d->gpus || !d->pairs)
		return -ENOMEM;
	for (int a = 0; a < t->n; a++, d->ngpus++)
		gpu_view(&d->gpus[a], &t->gpu[a], a);
	for (int a = 0; a < t->n; a++)
		for (int b = 0; b < t->n; b++) {
			struct lp_gpu_doc_pair *pr = &d->pairs[d->npairs];

			if (a == b)
				continue;
			*pr = (struct lp_gpu_doc_pair){ a,
							b,
							t->pair[a][b].p2p_access,
							t->pair[a][b].nvlinks,
							"",
							t->pair[a][b].ceiling_gbs };
			snprintf(pr->link, sizeof(pr->link), "%s", t->pair[a][b].link);
			d->npairs++;
		}
	d->nwarnings = (uint32_t)lp_gpu_topo_warnings(t, d->warnings, LP_GPU_WARN_MAX);
	return 0;
}

static void driver_view(struct lp_gpu_doc_driver *d, const struct lp_gpu_topo *t)
{
	snprintf(d->nvidia_driver, sizeof(d->nvidia_driver), "%s", t->driver_version);
	lp_ver(d->cuda_driver, sizeof(d->cuda_driver), t->cuda_driver_version);
	lp_ver(d->cuda_runtime, sizeof(d->cuda_runtime), t->cuda_runtime_version);
	d->nvml = t->nvml;
	snprintf(d->nvml_note, sizeof(d->nvml_note), "%s", t->nvml ? "" : t->nvml_note);
}

/* The document's view of rep (its arrays malloc'ed: lp_gpu_doc_free). 0 or -ENOMEM. */
static int doc_view(struct lp_gpu_doc *d, const struct lp_gpu_report *rep)
{
	const struct lp_gpu_params *p = rep->params;
	int ret;

	memset(d, 0, sizeof(*d));
	snprintf(d->tool, sizeof(d->tool), "lp-gpu");
	snprintf(d->schema, sizeof(d->schema), "%s", LP_GPU_DOC_SCHEMA);
	d->has_host = rep->host != NULL;
	if (d->has_host)
		d->host = *rep->host;
	driver_view(&d->driver, rep->topo);
	d->has_params = p != NULL;
	if (p)
		d->params =
			(struct lp_gpu_doc_params){ p->sizes,	  p->iters,	p->warmup,
						    p->samples,	  p->lat_iters, p->hold_timeout_s,
						    !p->no_verify };
	ret = topo_view(d, rep->topo);
	d->results = ret ? NULL : calloc(rep->nres + 1, sizeof(*d->results));
	if (!ret && !d->results)
		ret = -ENOMEM;
	for (unsigned i = 0; i < rep->nres && !ret; i++, d->nresults++)
		ret = result_view(&d->results[i], &rep->res[i]);
	return ret;
}

static void method_json(const char *key, struct lp_json *j)
{
	lp_json_obj_begin(j, key);
	lp_method_json(j);
	lp_json_str(
		j, "gpu_timing",
		"spin kernel holds each stream while warm-up copies, a start event, the timed copies "
		"and a stop event are queued; CUDA event time; median of samples");
	lp_json_str(j, "matrix",
		    "cells name their source (from) and destination (to); tables put the source on "
		    "rows");
	lp_json_str(j, "device_local", "bytes read + bytes written (2 x size per copy)");
	lp_json_str(j, "bidirectional",
		    "each direction measured with the other running; sum = the two rates added");
	lp_json_str(j, "latency", "one dependent uncached GPU load (pointer chase), ns per load");
	lp_json_obj_end(j);
}

int lp_gpu_report_json(FILE *f, const struct lp_gpu_report *rep)
{
	struct lp_gpu_doc *d = malloc(sizeof(*d));
	struct lp_json j;
	int ret = d ? doc_view(d, rep) : -ENOMEM;

	if (!ret) {
		lp_json_init(&j, f, true);
		lp_json_obj_begin(&j, NULL);
		lp_record_json(&lp_gpu_doc_record, d, &j);
		method_json("method", &j);
		lp_json_obj_end(&j);
		ret = lp_json_finish(&j);
	}
	if (d)
		lp_gpu_doc_free(d);
	free(d);
	return ret;
}

int lp_gpu_report_schema(FILE *f)
{
	struct lp_json j;

	lp_json_init(&j, f, true);
	lp_json_obj_begin(&j, NULL);
	lp_record_schema_head(&j, LP_GPU_DOC_SCHEMA, "lp-gpu's JSON document (--json)",
			      "generated from the records (gpu/doc.c: lp-gpu --json-schema); "
			      "docs/schema/README.md describes the conventions");
	lp_record_schema_open(&lp_gpu_doc_record, &j);
	lp_record_schema_object(
		&j, "method",
		"units, clock and version, and how lp-gpu times and reads its matrices");
	lp_record_schema_object(&j, "qualification",
				"--expect, floors, --baseline: the verdicts (qual/qual.h)");
	lp_record_schema_close(&lp_gpu_doc_record, (const char *const[]){ "method", NULL }, &j);
	lp_json_obj_end(&j);
	return lp_json_finish(&j);
}
