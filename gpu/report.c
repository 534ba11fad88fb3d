// SPDX-License-Identifier: MIT
/* lp-gpu sinks: text tables, CSV and one JSON document (linkperf.gpu/2), from results alone. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/lp.h"
#include "common/recdoc.h"
#include "common/table.h"
#include "common/units.h"
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

/* ---- JSON: linkperf.gpu/2, written from records (common/recdoc.h) ------------------------ */

struct doc_top {
	char tool[16], schema[24];
};

struct doc_driver {
	char nvidia_driver[32], cuda_driver[16], cuda_runtime[16];
	bool nvml;
	char nvml_note[128]; /* why not, when NVML was not loaded */
};

struct doc_link {
	uint32_t current_gen, current_width, max_gen, max_width;
	char source[8];
	double ceiling_gbytes_per_s; /* one direction */
};

struct doc_nvlink {
	uint32_t links, up, to_switch;
	char version[8];
	double ceiling_gbytes_per_s; /* all active links, one direction */
};

struct doc_gpu {
	int32_t index, cuda_device;
	char name[96], bus_id[32];
	int32_t numa_node;
	uint64_t memory_bytes;
	int32_t sm_count;
	uint64_t l2_bytes;
	int32_t cc_major, cc_minor;
	double memory_clock_mhz;
	uint32_t memory_bus_width_bits;
	struct doc_link pcie;
	struct doc_nvlink nvlink;
	double hbm_ceiling_gbytes_per_s;
};

struct doc_pair {
	int32_t from, to;
	bool p2p_access;
	uint32_t nvlinks;
	char link[40];
	double ceiling_gbytes_per_s; /* one direction; 0 unknown */
};

struct doc_params {
	struct lp_sizes sizes;
	uint32_t iters, warmup, samples, latency_loads;
	double hold_timeout_s;
	bool verify;
};

/* One cell: the copies from `from` to `to` (median, min, max null when it did not run). */
struct doc_cell {
	char from[16], to[16], status[8];
	double median, min, max;
	uint32_t samples;
	double ceiling, pct_of_ceiling; /* null: no ceiling known */
	bool verified;
	char reason[LP_GPU_REASON]; /* "" when ok */
};

struct doc_result {
	char test[16], description[96], copy_method[4], unit[8];
	uint64_t size;
	char matrix[96], status[8], reason[LP_GPU_REASON], note[LP_GPU_REASON];
	bool waived, has_note;
	const struct lp_gpu_result *r;
};

struct doc_series {
	char label[24];
	unsigned s;
	const struct lp_gpu_result *r;
};

struct doc {
	struct doc_top top;
	struct lp_host_meta host;
	struct doc_driver driver;
	struct doc_params params;
	bool has_host, has_params;
	const struct lp_gpu_report *rep;
};

/* clang-format off */
static const struct lp_record top_rec = LP_RECORD(struct doc_top,
	LP_REC_STR(struct doc_top, tool),
	LP_REC_STR(struct doc_top, schema));
static const struct lp_record driver_rec = LP_RECORD(struct doc_driver,
	LP_REC_STR(struct doc_driver, nvidia_driver),
	LP_REC_STR(struct doc_driver, cuda_driver),
	LP_REC_STR(struct doc_driver, cuda_runtime),
	LP_REC_BOOL(struct doc_driver, nvml),
	LP_REC_STR(struct doc_driver, nvml_note));
static const struct lp_record link_rec = LP_RECORD(struct doc_link,
	LP_REC_U32(struct doc_link, current_gen),
	LP_REC_U32(struct doc_link, current_width),
	LP_REC_U32(struct doc_link, max_gen),
	LP_REC_U32(struct doc_link, max_width),
	LP_REC_STR(struct doc_link, source),
	LP_REC_F64(struct doc_link, ceiling_gbytes_per_s));
static const struct lp_record nvlink_rec = LP_RECORD(struct doc_nvlink,
	LP_REC_U32(struct doc_nvlink, links),
	LP_REC_U32(struct doc_nvlink, up),
	LP_REC_U32(struct doc_nvlink, to_switch),
	LP_REC_STR(struct doc_nvlink, version),
	LP_REC_F64(struct doc_nvlink, ceiling_gbytes_per_s));
static const struct lp_record gpu_rec = LP_RECORD(struct doc_gpu,
	LP_REC_I32(struct doc_gpu, index),
	LP_REC_I32(struct doc_gpu, cuda_device),
	LP_REC_STR(struct doc_gpu, name),
	LP_REC_STR(struct doc_gpu, bus_id),
	LP_REC_I32(struct doc_gpu, numa_node),
	LP_REC_U64(struct doc_gpu, memory_bytes),
	LP_REC_I32(struct doc_gpu, sm_count),
	LP_REC_U64(struct doc_gpu, l2_bytes),
	LP_REC_I32(struct doc_gpu, cc_major),
	LP_REC_I32(struct doc_gpu, cc_minor),
	LP_REC_F64(struct doc_gpu, memory_clock_mhz),
	LP_REC_U32(struct doc_gpu, memory_bus_width_bits),
	LP_REC_NEST(struct doc_gpu, pcie, link_rec),
	LP_REC_NEST(struct doc_gpu, nvlink, nvlink_rec),
	LP_REC_F64(struct doc_gpu, hbm_ceiling_gbytes_per_s));
static const struct lp_record pair_rec = LP_RECORD(struct doc_pair,
	LP_REC_I32(struct doc_pair, from),
	LP_REC_I32(struct doc_pair, to),
	LP_REC_BOOL(struct doc_pair, p2p_access),
	LP_REC_U32(struct doc_pair, nvlinks),
	LP_REC_STR(struct doc_pair, link),
	LP_REC_F64(struct doc_pair, ceiling_gbytes_per_s));
static const struct lp_record params_rec = LP_RECORD(struct doc_params,
	LP_REC_ARRAY(struct doc_params, sizes.v, sizes.n, LP_REC_T_U64, uint64_t, LP_REC_KEY("sizes")),
	LP_REC_U32(struct doc_params, iters),
	LP_REC_U32(struct doc_params, warmup),
	LP_REC_U32(struct doc_params, samples),
	LP_REC_U32(struct doc_params, latency_loads),
	LP_REC_F64(struct doc_params, hold_timeout_s),
	LP_REC_BOOL(struct doc_params, verify));
static const struct lp_record cell_rec = LP_RECORD(struct doc_cell,
	LP_REC_STR(struct doc_cell, from),
	LP_REC_STR(struct doc_cell, to),
	LP_REC_STR(struct doc_cell, status),
	LP_REC_F64(struct doc_cell, median),
	LP_REC_F64(struct doc_cell, min),
	LP_REC_F64(struct doc_cell, max),
	LP_REC_U32(struct doc_cell, samples),
	LP_REC_F64(struct doc_cell, ceiling),
	LP_REC_F64(struct doc_cell, pct_of_ceiling),
	LP_REC_BOOL(struct doc_cell, verified),
	LP_REC_STR(struct doc_cell, reason));
static const struct lp_record result_rec = LP_RECORD(struct doc_result,
	LP_REC_STR(struct doc_result, test),
	LP_REC_STR(struct doc_result, description),
	LP_REC_STR(struct doc_result, copy_method),
	LP_REC_STR(struct doc_result, unit),
	LP_REC_U64(struct doc_result, size),
	LP_REC_STR(struct doc_result, matrix),
	LP_REC_STR(struct doc_result, status));
static const struct lp_record reason_rec = LP_RECORD(struct doc_result,
	LP_REC_STR(struct doc_result, reason));
static const struct lp_record note_rec = LP_RECORD(struct doc_result,
	LP_REC_STR(struct doc_result, note));
static const struct lp_record series_rec = LP_RECORD(struct doc_series,
	LP_REC_STR(struct doc_series, label));

static const struct lp_recdoc_part series_parts[] = {
	{ LP_RECDOC_FIELDS, .rec = &series_rec },
	{ LP_RECDOC_ARRAY, "cells", &cell_rec, .about = "every source (from) and destination (to)" },
};
static const struct lp_recdoc_obj series_obj = LP_RECDOC_OBJ_OF(series_parts);

static const struct lp_recdoc_part result_parts[] = {
	{ LP_RECDOC_FIELDS, .rec = &result_rec },
	{ LP_RECDOC_FIELDS, .rec = &reason_rec, LP_RECDOC_WHEN(struct doc_result, waived) },
	{ LP_RECDOC_FIELDS, .rec = &note_rec, LP_RECDOC_WHEN(struct doc_result, has_note) },
	{ LP_RECDOC_ARRAY, "series", .obj = &series_obj,
	  .about = "one matrix, or each direction and the sum of a bidirectional test" },
};
static const struct lp_recdoc_obj result_obj = LP_RECDOC_OBJ_OF(result_parts);

static const struct lp_recdoc_part doc_parts[] = {
	{ LP_RECDOC_FIELDS, .rec = &top_rec, .off = offsetof(struct doc, top) },
	{ LP_RECDOC_OPEN, "method", .types = "object",
	  .about = "units, clock and version, and how lp-gpu times and reads its matrices" },
	{ LP_RECDOC_NEST, "host", &lp_host_meta_record, .off = offsetof(struct doc, host),
	  LP_RECDOC_WHEN(struct doc, has_host) },
	{ LP_RECDOC_NEST, "driver", &driver_rec, .off = offsetof(struct doc, driver) },
	{ LP_RECDOC_ARRAY, "gpus", &gpu_rec, .about = "the selected GPUs; GPU i of every matrix" },
	{ LP_RECDOC_ARRAY, "pairs", &pair_rec, .about = "every ordered pair of GPUs: its link" },
	{ LP_RECDOC_ARRAY, "warnings", .types = "string",
	  .about = "links trained down, NVLinks not all up" },
	{ LP_RECDOC_NEST, "params", &params_rec, .off = offsetof(struct doc, params),
	  LP_RECDOC_WHEN(struct doc, has_params) },
	{ LP_RECDOC_ARRAY, "results", .obj = &result_obj, .about = "one per test and size" },
	{ LP_RECDOC_OPEN, "qualification", .types = "object", .later = true,
	  .about = "--expect, floors, --baseline: the verdicts (qual/qual.h)" },
};
static const struct lp_recdoc_obj doc_obj = LP_RECDOC_OBJ_OF(doc_parts);
/* clang-format on */

static void cell_json(const struct lp_gpu_result *r, unsigned s, unsigned from, unsigned to,
		      struct lp_json *j)
{
	const struct lp_gpu_cell *c = cell_from_to(r, s, from, to);
	bool ok = c->status == LP_GPU_OK, ceil = ok && c->ceiling > 0;
	struct doc_cell d = {
		.median = ok ? c->med : NAN,
		.min = ok ? c->min : NAN,
		.max = ok ? c->max : NAN,
		.samples = ok ? c->samples : 0,
		.ceiling = ceil ? c->ceiling : NAN,
		.pct_of_ceiling = ceil ? lp_percent_of(c->med, c->ceiling) : NAN,
		.verified = ok && c->verified,
	};

	snprintf(d.from, sizeof(d.from), "%s", r->colname[from]);
	snprintf(d.to, sizeof(d.to), "%s", r->rowname[to]);
	snprintf(d.status, sizeof(d.status), "%s", lp_gpu_status_name(c->status));
	snprintf(d.reason, sizeof(d.reason), "%s", ok ? "" : c->reason);
	lp_json_obj_begin(j, NULL);
	lp_record_json(&cell_rec, &d, j);
	lp_json_obj_end(j);
}

static void series_member(const void *ctx, const char *key, struct lp_json *j)
{
	const struct doc_series *d = ctx;

	lp_json_arr_begin(j, key);
	for (unsigned from = 0; from < d->r->ncols; from++)
		for (unsigned to = 0; to < d->r->nrows; to++)
			cell_json(d->r, d->s, from, to, j);
	lp_json_arr_end(j);
}

static void result_member(const void *ctx, const char *key, struct lp_json *j)
{
	const struct lp_gpu_result *r = ((const struct doc_result *)ctx)->r;

	lp_json_arr_begin(j, key);
	for (unsigned s = 0; s < r->test->nseries; s++) {
		struct doc_series d = { .s = s, .r = r };

		snprintf(d.label, sizeof(d.label), "%s",
			 r->test->series[s] ? r->test->series[s] : "value");
		lp_json_obj_begin(j, NULL);
		lp_recdoc_write(&series_obj, &d, j, series_member, &d);
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);
}

static void result_json(const struct lp_gpu_result *r, struct lp_json *j)
{
	const struct lp_gpu_test *t = r->test;
	struct doc_result d = { .size = r->size,
				.waived = r->status == LP_GPU_WAIVED,
				.has_note = r->note[0] != '\0',
				.r = r };

	snprintf(d.test, sizeof(d.test), "%s", t->key);
	snprintf(d.description, sizeof(d.description), "%s", t->desc);
	snprintf(d.copy_method, sizeof(d.copy_method), "%s", lp_method(t));
	snprintf(d.unit, sizeof(d.unit), "%s", lp_unit(t));
	snprintf(d.matrix, sizeof(d.matrix), "%s", t->orient);
	snprintf(d.status, sizeof(d.status), "%s", lp_gpu_status_name(r->status));
	snprintf(d.reason, sizeof(d.reason), "%s", r->reason);
	snprintf(d.note, sizeof(d.note), "%s", r->note);
	lp_json_obj_begin(j, NULL);
	lp_recdoc_write(&result_obj, &d, j, result_member, &d);
	lp_json_obj_end(j);
}

static void gpu_json(const struct lp_gpu_dev_info *g, int i, struct lp_json *j)
{
	struct doc_gpu d = {
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

	snprintf(d.name, sizeof(d.name), "%s", g->name);
	snprintf(d.bus_id, sizeof(d.bus_id), "%s", g->bus_id);
	snprintf(d.pcie.source, sizeof(d.pcie.source), "%s", g->pcie.source ? g->pcie.source : "");
	snprintf(d.nvlink.version, sizeof(d.nvlink.version), "%s",
		 lp_gpu_nvlink_version_name(g->nvlink_version));
	lp_json_obj_begin(j, NULL);
	lp_record_json(&gpu_rec, &d, j);
	lp_json_obj_end(j);
}

static void pairs_json(const struct lp_gpu_topo *t, const char *key, struct lp_json *j)
{
	lp_json_arr_begin(j, key);
	for (int a = 0; a < t->n; a++) {
		for (int b = 0; b < t->n; b++) {
			struct doc_pair d = { a,
					      b,
					      t->pair[a][b].p2p_access,
					      t->pair[a][b].nvlinks,
					      "",
					      t->pair[a][b].ceiling_gbs };

			if (a == b)
				continue;
			snprintf(d.link, sizeof(d.link), "%s", t->pair[a][b].link);
			lp_json_obj_begin(j, NULL);
			lp_record_json(&pair_rec, &d, j);
			lp_json_obj_end(j);
		}
	}
	lp_json_arr_end(j);
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

static void doc_member(const void *ctx, const char *key, struct lp_json *j)
{
	const struct lp_gpu_report *rep = ((const struct doc *)ctx)->rep;
	const struct lp_gpu_topo *t = rep->topo;
	char warn[LP_GPU_WARN_MAX][LP_GPU_WARN_LEN];
	int nw;

	if (!strcmp(key, "method")) {
		method_json(key, j);
		return;
	}
	if (!strcmp(key, "pairs")) {
		pairs_json(t, key, j);
		return;
	}
	lp_json_arr_begin(j, key);
	if (!strcmp(key, "gpus")) {
		for (int i = 0; i < t->n; i++)
			gpu_json(&t->gpu[i], i, j);
	} else if (!strcmp(key, "warnings")) {
		nw = lp_gpu_topo_warnings(t, warn, LP_GPU_WARN_MAX);
		for (int i = 0; i < nw; i++)
			lp_json_str(j, NULL, warn[i]);
	} else {
		for (unsigned i = 0; i < rep->nres; i++)
			result_json(&rep->res[i], j);
	}
	lp_json_arr_end(j);
}

static void doc_view(struct doc *d, const struct lp_gpu_report *rep)
{
	const struct lp_gpu_topo *t = rep->topo;
	const struct lp_gpu_params *p = rep->params;

	memset(d, 0, sizeof(*d));
	d->rep = rep;
	snprintf(d->top.tool, sizeof(d->top.tool), "lp-gpu");
	snprintf(d->top.schema, sizeof(d->top.schema), "%s", LP_GPU_DOC_SCHEMA);
	d->has_host = rep->host != NULL;
	if (d->has_host)
		d->host = *rep->host;
	snprintf(d->driver.nvidia_driver, sizeof(d->driver.nvidia_driver), "%s", t->driver_version);
	lp_ver(d->driver.cuda_driver, sizeof(d->driver.cuda_driver), t->cuda_driver_version);
	lp_ver(d->driver.cuda_runtime, sizeof(d->driver.cuda_runtime), t->cuda_runtime_version);
	d->driver.nvml = t->nvml;
	snprintf(d->driver.nvml_note, sizeof(d->driver.nvml_note), "%s",
		 t->nvml ? "" : t->nvml_note);
	d->has_params = p != NULL;
	if (p)
		d->params = (struct doc_params){ p->sizes,     p->iters,     p->warmup,
						 p->samples,   p->lat_iters, p->hold_timeout_s,
						 !p->no_verify };
}

int lp_gpu_report_json(FILE *f, const struct lp_gpu_report *rep)
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
	return lp_json_finish(&j);
}

int lp_gpu_report_schema(FILE *f)
{
	return lp_recdoc_schema_doc(f, LP_GPU_DOC_SCHEMA, "lp-gpu's JSON document (--json)",
				    &doc_obj);
}
