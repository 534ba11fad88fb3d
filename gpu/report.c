// SPDX-License-Identifier: MIT
/* lp-gpu sinks: text tables, CSV and one JSON document, from results alone (no CUDA). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/json.h"
#include "common/lp.h"
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
		char mem[32];

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
		lp_table_set(&tab, 6, "%.1f", g->pcie_gbs);
		lp_table_set(&tab, 7, "%s", mem);
		lp_table_set(&tab, 8, "%.0f", g->hbm_gbs);
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

		ph[0] = "link (row->col)";
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
				"\n# peer links, row -> column: link and expected GB/s per direction\n");
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
	fprintf(f, "  %s, %s, median%s; %s\n", size, lp_unit(t),
		t->latency ? " per load" : " (percent of expected ceiling)", t->orient);
	for (unsigned s = 0; s < t->nseries; s++) {
		const char *hdr[LP_GPU_MAX + 1];
		struct lp_table tab;
		char corner[40];

		snprintf(corner, sizeof(corner), "%s", t->series[s] ? t->series[s] : "");
		hdr[0] = corner;
		for (unsigned c = 0; c < r->ncols; c++)
			hdr[c + 1] = r->colname[c];
		if (lp_table_init(&tab, r->ncols + 1, hdr))
			return;
		for (unsigned row = 0; row < r->nrows; row++) {
			lp_table_row(&tab);
			lp_table_set(&tab, 0, "%s", r->rowname[row]);
			for (unsigned c = 0; c < r->ncols; c++) {
				char cell[64];

				lp_cell_text(cell, sizeof(cell), t, lp_gpu_cell_at(r, s, row, c));
				lp_table_set(&tab, c + 1, "%s", cell);
			}
		}
		lp_table_print(&tab, f);
		lp_table_free(&tab);
	}
	if (r->note[0])
		fprintf(f, "  note: %s\n", r->note);
	/* Reasons for N/A (except the obvious diagonal) and errors, once per cell. */
	for (unsigned row = 0; row < r->nrows; row++) {
		for (unsigned c = 0; c < r->ncols; c++) {
			const struct lp_gpu_cell *cell = lp_gpu_cell_at(r, 0, row, c);

			if (cell->status == LP_GPU_OK ||
			    (t->shape == LP_GPU_SHAPE_GPU_GPU && row == c &&
			     cell->status == LP_GPU_WAIVED))
				continue;
			fprintf(f, "  %s <- %s: %s: %s\n", r->rowname[row], r->colname[c],
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

void lp_gpu_report_csv(FILE *f, const struct lp_gpu_report *rep)
{
	fprintf(f,
		"test,method,size_bytes,series,row,column,status,unit,median,min,max,samples,ceiling,"
		"pct_of_ceiling,verified,reason\n");
	for (unsigned i = 0; i < rep->nres; i++) {
		const struct lp_gpu_result *r = &rep->res[i];
		const struct lp_gpu_test *t = r->test;

		for (unsigned s = 0; s < t->nseries; s++) {
			for (unsigned row = 0; row < r->nrows; row++) {
				for (unsigned c = 0; c < r->ncols; c++) {
					const struct lp_gpu_cell *cell =
						lp_gpu_cell_at(r, s, row, c);
					bool ok = cell->status == LP_GPU_OK;
					double pct = lp_percent_of(cell->med, cell->ceiling);

					fprintf(f, "%s,%s,%llu,", t->key, lp_method(t),
						(unsigned long long)r->size);
					lp_csv_field(f, t->series[s] ? t->series[s] : "", 0);
					fprintf(f, "%s,%s,%s,%s,", r->rowname[row], r->colname[c],
						lp_gpu_status_name(cell->status), lp_unit(t));
					if (ok)
						fprintf(f, "%.6g,%.6g,%.6g,%u,", cell->med,
							cell->min, cell->max, cell->samples);
					else
						fprintf(f, ",,,0,");
					if (ok && cell->ceiling > 0)
						fprintf(f, "%.6g,%.2f,", cell->ceiling, pct);
					else
						fprintf(f, ",,");
					fprintf(f, "%s,", ok && cell->verified ? "true" : "false");
					lp_csv_field(f, cell->reason, 1);
				}
			}
		}
	}
}

static void lp_json_gpu(struct lp_json *j, const struct lp_gpu_dev_info *g, int i)
{
	lp_json_obj_begin(j, NULL);
	lp_json_int(j, "index", i);
	lp_json_int(j, "cuda_device", g->cuda_dev);
	lp_json_str(j, "name", g->name);
	lp_json_str(j, "bus_id", g->bus_id);
	lp_json_int(j, "numa_node", g->numa_node);
	lp_json_uint(j, "memory_bytes", g->mem_bytes);
	lp_json_int(j, "sm_count", g->sm_count);
	lp_json_uint(j, "l2_bytes", g->l2_bytes);
	lp_json_int(j, "cc_major", g->cc_major);
	lp_json_int(j, "cc_minor", g->cc_minor);
	lp_json_num(j, "memory_clock_mhz", g->mem_clock_mhz);
	lp_json_uint(j, "memory_bus_width_bits", g->mem_bus_width);
	lp_json_obj_begin(j, "pcie");
	lp_json_uint(j, "current_gen", g->pcie.cur_gen);
	lp_json_uint(j, "current_width", g->pcie.cur_width);
	lp_json_uint(j, "max_gen", g->pcie.max_gen);
	lp_json_uint(j, "max_width", g->pcie.max_width);
	lp_json_str(j, "source", g->pcie.source);
	lp_json_num(j, "ceiling_gbs_per_direction", g->pcie_gbs);
	lp_json_obj_end(j);
	lp_json_obj_begin(j, "nvlink");
	lp_json_uint(j, "links", g->nvlink_links);
	lp_json_uint(j, "up", g->nvlink_up);
	lp_json_uint(j, "to_switch", g->nvlink_to_switch);
	lp_json_str(j, "version", lp_gpu_nvlink_version_name(g->nvlink_version));
	lp_json_num(j, "ceiling_gbs_per_direction", g->nvlink_gbs);
	lp_json_obj_end(j);
	lp_json_num(j, "hbm_ceiling_gbs", g->hbm_gbs);
	lp_json_obj_end(j);
}

static void lp_json_cell(struct lp_json *j, const struct lp_gpu_result *r, unsigned s, unsigned row,
			 unsigned c)
{
	const struct lp_gpu_cell *cell = lp_gpu_cell_at(r, s, row, c);
	bool ok = cell->status == LP_GPU_OK;

	lp_json_obj_begin(j, NULL);
	lp_json_str(j, "row", r->rowname[row]);
	lp_json_str(j, "column", r->colname[c]);
	lp_json_str(j, "status", lp_gpu_status_name(cell->status));
	if (ok) {
		lp_json_num(j, "median", cell->med);
		lp_json_num(j, "min", cell->min);
		lp_json_num(j, "max", cell->max);
		lp_json_uint(j, "samples", cell->samples);
		if (cell->ceiling > 0) {
			lp_json_num(j, "ceiling", cell->ceiling);
			lp_json_num(j, "pct_of_ceiling", lp_percent_of(cell->med, cell->ceiling));
		} else {
			lp_json_null(j, "ceiling");
			lp_json_null(j, "pct_of_ceiling");
		}
		if (!r->test->latency)
			lp_json_bool(j, "verified", cell->verified);
	} else {
		lp_json_str(j, "reason", cell->reason);
	}
	lp_json_obj_end(j);
}

static void json_method(struct lp_json *j)
{
	lp_json_obj_begin(j, "method");
	lp_method_json(j);
	lp_json_str(
		j, "gpu_timing",
		"spin kernel holds each stream while warm-up copies, a start event, the timed copies "
		"and a stop event are queued; CUDA event time; median of samples");
	lp_json_str(j, "matrix", "row <- column: data flows from the column to the row");
	lp_json_str(j, "device_local", "bytes read + bytes written (2 x size per copy)");
	lp_json_str(j, "bidirectional",
		    "each direction measured with the other running; sum = the two rates added");
	lp_json_str(j, "latency", "one dependent uncached GPU load (pointer chase), ns per load");
	lp_json_obj_end(j);
}

static void json_driver(struct lp_json *j, const struct lp_gpu_topo *t)
{
	char drv[16], rt[16];

	lp_ver(drv, sizeof(drv), t->cuda_driver_version);
	lp_ver(rt, sizeof(rt), t->cuda_runtime_version);
	lp_json_obj_begin(j, "driver");
	lp_json_str(j, "nvidia_driver", t->driver_version);
	lp_json_str(j, "cuda_driver", drv);
	lp_json_str(j, "cuda_runtime", rt);
	lp_json_bool(j, "nvml", t->nvml);
	if (!t->nvml)
		lp_json_str(j, "nvml_note", t->nvml_note);
	lp_json_obj_end(j);
}

/* The GPUs, every ordered pair's link and ceiling, and the topology's warnings. */
static void json_topo(struct lp_json *j, const struct lp_gpu_topo *t)
{
	char warn[LP_GPU_WARN_MAX][LP_GPU_WARN_LEN];
	int nw;

	lp_json_arr_begin(j, "gpus");
	for (int i = 0; i < t->n; i++)
		lp_json_gpu(j, &t->gpu[i], i);
	lp_json_arr_end(j);
	lp_json_arr_begin(j, "pairs");
	for (int a = 0; a < t->n; a++) {
		for (int b = 0; b < t->n; b++) {
			if (a == b)
				continue;
			lp_json_obj_begin(j, NULL);
			lp_json_int(j, "from", a);
			lp_json_int(j, "to", b);
			lp_json_bool(j, "p2p_access", t->pair[a][b].p2p_access);
			lp_json_uint(j, "nvlinks", t->pair[a][b].nvlinks);
			lp_json_str(j, "link", t->pair[a][b].link);
			lp_json_num(j, "ceiling_gbs_per_direction", t->pair[a][b].ceiling_gbs);
			lp_json_obj_end(j);
		}
	}
	lp_json_arr_end(j);
	nw = lp_gpu_topo_warnings(t, warn, LP_GPU_WARN_MAX);
	lp_json_arr_begin(j, "warnings");
	for (int i = 0; i < nw; i++)
		lp_json_str(j, NULL, warn[i]);
	lp_json_arr_end(j);
}

static void json_params(struct lp_json *j, const struct lp_gpu_params *p)
{
	lp_json_obj_begin(j, "params");
	lp_json_arr_begin(j, "sizes");
	for (unsigned i = 0; i < p->sizes.n; i++)
		lp_json_uint(j, NULL, p->sizes.v[i]);
	lp_json_arr_end(j);
	lp_json_uint(j, "iters", p->iters);
	lp_json_uint(j, "warmup", p->warmup);
	lp_json_uint(j, "samples", p->samples);
	lp_json_uint(j, "latency_loads", p->lat_iters);
	lp_json_num(j, "hold_timeout_s", p->hold_timeout_s);
	lp_json_bool(j, "verify", !p->no_verify);
	lp_json_obj_end(j);
}

static void json_result(struct lp_json *j, const struct lp_gpu_result *r)
{
	const struct lp_gpu_test *tt = r->test;

	lp_json_obj_begin(j, NULL);
	lp_json_str(j, "test", tt->key);
	lp_json_str(j, "description", tt->desc);
	lp_json_str(j, "copy_method", lp_method(tt));
	lp_json_str(j, "unit", lp_unit(tt));
	lp_json_uint(j, "size", r->size);
	lp_json_str(j, "matrix", tt->orient);
	lp_json_str(j, "status", lp_gpu_status_name(r->status));
	if (r->status == LP_GPU_WAIVED)
		lp_json_str(j, "reason", r->reason);
	if (r->note[0])
		lp_json_str(j, "note", r->note);
	lp_json_arr_begin(j, "series");
	for (unsigned s = 0; s < tt->nseries; s++) {
		lp_json_obj_begin(j, NULL);
		lp_json_str(j, "label", tt->series[s] ? tt->series[s] : "value");
		lp_json_arr_begin(j, "cells");
		for (unsigned row = 0; row < r->nrows; row++)
			for (unsigned c = 0; c < r->ncols; c++)
				lp_json_cell(j, r, s, row, c);
		lp_json_arr_end(j);
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);
	lp_json_obj_end(j);
}

int lp_gpu_report_json(FILE *f, const struct lp_gpu_report *rep)
{
	struct lp_json j;

	lp_json_init(&j, f, true);
	lp_json_obj_begin(&j, NULL);
	lp_json_str(&j, "tool", "lp-gpu");
	json_method(&j);
	if (rep->host) {
		lp_json_obj_begin(&j, "host");
		lp_host_meta_json(rep->host, &j);
		lp_json_obj_end(&j);
	}
	json_driver(&j, rep->topo);
	json_topo(&j, rep->topo);
	if (rep->params)
		json_params(&j, rep->params);
	lp_json_arr_begin(&j, "results");
	for (unsigned i = 0; i < rep->nres; i++)
		json_result(&j, &rep->res[i]);
	lp_json_arr_end(&j);
	lp_json_obj_end(&j);
	return lp_json_finish(&j);
}
