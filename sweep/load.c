// SPDX-License-Identifier: MIT
/* lp-sweep's load modes from the cells: impact factors, incast shares, verdicts, sinks. */
#include "sweep/load.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "common/stats.h"
#include "common/table.h"
#include "common/units.h"

const char *const lp_sweep_load_names[] = { "none", "latency", "incast", "both", NULL };

double lp_jain_index(const double *x, size_t n)
{
	double s = 0, s2 = 0;

	for (size_t i = 0; i < n; i++) {
		s += x[i];
		s2 += x[i] * x[i];
	}
	return n && s2 > 0 ? s * s / ((double)n * s2) : NAN;
}

static double ratio(double num, double den)
{
	return isfinite(num) && isfinite(den) && num > 0 && den > 0 ? num / den : NAN;
}

void lp_load_cell_impact(struct lp_load_cell *c)
{
	c->cif_p50 = ratio(c->load_p50, c->idle_p50);
	c->cif_p99 = ratio(c->load_p99, c->idle_p99);
}

/* The last successful cell of (m, a, b) in phase (NULL: none). */
static const struct lp_sweep_att *ok_cell(const struct lp_sweep_run *r, int m, int a, int b,
					  int phase)
{
	const struct lp_sweep_att *last = NULL;

	for (size_t k = 0; k < r->ncells; k++) {
		const struct lp_sweep_att *c = &r->cells[k];

		if (c->metric == m && c->a == a && c->b == b && c->phase == phase && !c->status)
			last = c;
	}
	return last;
}

/* A node's median of v (n*n) over the pairs it is in, either side; NaN when none. */
static double node_median(const double *v, int n, int i, double *tmp)
{
	size_t k = 0;

	for (int j = 0; j < n; j++)
		if (j != i) {
			if (isfinite(v[(size_t)i * n + j]))
				tmp[k++] = v[(size_t)i * n + j];
			if (isfinite(v[(size_t)j * n + i]))
				tmp[k++] = v[(size_t)j * n + i];
		}
	return k ? lp_median(tmp, k) : NAN;
}

/* Ordered pair (a, b) at latency metric m: idle (sweep, else retest) vs phase ph. NaN: none. */
static void pair_impact(const struct lp_sweep_run *r, int m, int a, int b, int ph,
			struct lp_load_cell *c)
{
	const struct lp_sweep_att *idle = NULL, *ld = NULL;

	if (m >= 0 && a >= 0) {
		idle = ok_cell(r, m, a, b, LP_PHASE_SWEEP);
		if (!idle)
			idle = ok_cell(r, m, a, b, LP_PHASE_RETEST);
		ld = ok_cell(r, m, a, b, ph);
	}
	c->idle_p50 = idle ? idle->lat.p50 : NAN;
	c->idle_p99 = idle ? idle->lat.p99 : NAN;
	c->load_p50 = ld ? ld->lat.p50 : NAN;
	c->load_p99 = ld ? ld->lat.p99 : NAN;
	lp_load_cell_impact(c);
}

int lp_sweep_load_matrix(const struct lp_sweep_run *r, int m, struct lp_load_cell *lc,
			 double *node_cif50, double *node_cif99)
{
	int n = r->n, both = 0;
	size_t nn = (size_t)n * n;
	double *v50 = malloc(nn * sizeof(double)), *v99 = malloc(nn * sizeof(double)),
	       *tmp = malloc((2 * (size_t)n + 1) * sizeof(double));

	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++) {
			struct lp_load_cell *c = &lc[(size_t)a * n + b];

			pair_impact(r, m, a, b, LP_PHASE_LOADED, c);
			both += isfinite(c->cif_p50);
			if (v50 && v99) {
				v50[(size_t)a * n + b] = c->cif_p50;
				v99[(size_t)a * n + b] = c->cif_p99;
			}
		}
	for (int i = 0; i < n && v50 && v99 && tmp; i++) {
		if (node_cif50)
			node_cif50[i] = node_median(v50, n, i, tmp);
		if (node_cif99)
			node_cif99[i] = node_median(v99, n, i, tmp);
	}
	if (!v50 || !v99 || !tmp)
		both = -ENOMEM;
	free(v50);
	free(v99);
	free(tmp);
	return both;
}

int lp_sweep_incast(const struct lp_sweep_run *r, int m, int recv, struct lp_incast *ic,
		    const struct lp_sweep_att **cells)
{
	double rate = r->nodes[recv].dev.rate_gbps;
	double *x = malloc(((size_t)r->n + 1) * sizeof(double));

	memset(ic, 0, sizeof(*ic));
	ic->recv = recv;
	ic->agg_pct = ic->jain = ic->ref_gbps = NAN;
	ic->victim = ic->vic_metric = -1;
	if (!x)
		return 0;
	for (size_t k = 0; k < r->ncells; k++) {
		const struct lp_sweep_att *c = &r->cells[k];
		bool ok = !c->status && isfinite(c->gbits_s);

		if (c->phase == LP_PHASE_INCAST_VICTIM && c->b == recv && ic->vic_metric < 0) {
			ic->victim = c->a;
			ic->vic_metric = c->metric;
		}
		if (c->metric != m || c->b != recv || c->phase != LP_PHASE_INCAST ||
		    ic->nsend >= r->n)
			continue;
		if (cells)
			cells[ic->nsend] = c;
		x[ic->nsend++] = ok ? c->gbits_s : 0;
		ic->nfail += !ok;
		ic->agg_gbps += ok ? c->gbits_s : 0;
	}
	if (ic->nsend) {
		ic->jain = lp_jain_index(x, (size_t)ic->nsend);
		if (rate > 0)
			ic->agg_pct = 100 * ic->agg_gbps / rate;
	}
	pair_impact(r, ic->vic_metric, ic->victim, recv, LP_PHASE_INCAST_VICTIM, &ic->vic);
	free(x);
	return ic->nsend;
}

/* Metric m has cells of phase ph. */
static bool has_phase(const struct lp_sweep_run *r, int m, int ph)
{
	for (size_t k = 0; k < r->ncells; k++)
		if (r->cells[k].metric == m && r->cells[k].phase == ph)
			return true;
	return false;
}

/* Every receiver's incast at m, ref_gbps filled (ics: n). Returns the receivers with one. */
static int incasts(const struct lp_sweep_run *r, int m, struct lp_incast *ics)
{
	double *agg = malloc(((size_t)r->n + 1) * sizeof(double));
	int cnt = 0;

	if (!agg)
		return 0;
	for (int b = 0; b < r->n; b++)
		if (lp_sweep_incast(r, m, b, &ics[b], NULL))
			cnt++;
	for (int b = 0; b < r->n; b++) {
		size_t k = 0;

		for (int o = 0; o < r->n; o++)
			if (o != b && ics[o].nsend)
				agg[k++] = ics[o].agg_gbps;
		ics[b].ref_gbps = k ? lp_median(agg, k) : NAN;
	}
	free(agg);
	return cnt;
}

/* ---- verdicts ---- */

static void evidence(struct lp_verdict *ev, double ratio_, int cells)
{
	memset(ev, 0, sizeof(*ev));
	ev->ratio = ratio_;
	ev->z = ev->noise_cv = NAN;
	ev->cells = cells;
}

/* Count of finite values among node i's pairs in lc's p99 CIF. */
static int node_pairs(const struct lp_load_cell *lc, int n, int i)
{
	int k = 0;

	for (int j = 0; j < n; j++)
		if (j != i)
			k += isfinite(lc[(size_t)i * n + j].cif_p99) +
			     isfinite(lc[(size_t)j * n + i].cif_p99);
	return k;
}

/*
 * Node i's impact factor cif[i] against the other nodes' median (at least
 * two of them): a load_impact verdict when it is impact_max times that (and
 * at least impact_max), or an inconclusive one when metric m's idle cells are
 * too noisy to be the reference (a name would be a guess). A factor that
 * rests on one cell per node (the incast victims) has no noise estimate
 * behind it: it must stand impact_max above every other node's, not their
 * median (a healthy TCG fabric put them at 8-42x in one run). where: "under
 * load (median of its 6 pairs)", ...
 */
static int impact_verdict(struct lp_sweep_run *r, int m, int i, const double *cif, const char *pct,
			  int cells, const char *where)
{
	double *oth = malloc(((size_t)r->n + 1) * sizeof(double)), ref;
	bool noisy = r->diag && r->diag[m].inconclusive;
	struct lp_verdict ev;
	char why[400], imax[24];
	size_t k = 0;
	int rc;

	if (!oth)
		return -ENOMEM;
	for (int j = 0; j < r->n; j++)
		if (j != i && isfinite(cif[j]))
			oth[k++] = cif[j];
	if (k >= 2 && cells == 1) {
		ref = oth[0];
		for (size_t x = 1; x < k; x++)
			ref = fmax(ref, oth[x]);
	} else {
		ref = k >= 2 ? lp_median(oth, k) : NAN;
	}
	free(oth);
	if (!isfinite(cif[i]) || !isfinite(ref) || cif[i] < r->dopts.impact_max * LP_MAX(ref, 1.0))
		return 0;
	lp_fmt_sig(imax, sizeof(imax), r->dopts.impact_max, 3);
	snprintf(why, sizeof(why),
		 "%s: %s %s %.2fx its idle %s %s, the other nodes %s %.2fx (impact_max %s)%s",
		 r->metrics[m].label, r->nodes[i].name, pct, cif[i], pct, where,
		 cells == 1 ? "up to" : "at a median", ref, imax,
		 noisy ? "; not named: the idle cells of this metric are too noisy (inconclusive) "
			 "for the reference to hold"
		       : "");
	evidence(&ev, LP_MAX(ref, 1.0) / cif[i], cells);
	rc = lp_sweep_verdict_add(r, noisy ? LP_VERDICT_INCONCLUSIVE : LP_VERDICT_LOAD_IMPACT,
				  noisy ? -1 : i, noisy ? -1 : i, 0, r->metrics[m].label, why, &ev);
	return rc;
}

static int impact_verdicts(struct lp_sweep_run *r, int m)
{
	int n = r->n, rc = 0;
	struct lp_load_cell *lc = calloc((size_t)n * n, sizeof(*lc));
	double *c99 = calloc(n, sizeof(double));
	char where[96];

	if (!lc || !c99 || lp_sweep_load_matrix(r, m, lc, NULL, c99) < 0)
		rc = -ENOMEM;
	for (int i = 0; i < n && !rc; i++) {
		snprintf(where, sizeof(where), "under load (median of its %d pairs)",
			 node_pairs(lc, n, i));
		rc = impact_verdict(r, m, i, c99, "p99", node_pairs(lc, n, i), where);
	}
	free(lc);
	free(c99);
	return rc;
}

static int incast_verdicts(struct lp_sweep_run *r, int m)
{
	struct lp_incast *ics = calloc(r->n, sizeof(*ics));
	double *vic = calloc(r->n, sizeof(double));
	const char *label = r->metrics[m].label;
	int rc = 0;

	if (!ics || !vic) {
		free(ics);
		free(vic);
		return -ENOMEM;
	}
	incasts(r, m, ics);
	/* one victim cell per receiver: its median, not the p99 of its slowest few samples */
	for (int b = 0; b < r->n; b++)
		vic[b] = ics[b].vic.cif_p50;
	for (int b = 0; b < r->n && !rc; b++) {
		const struct lp_incast *ic = &ics[b];
		double lim = (1 - r->dopts.rel_max) * ic->ref_gbps;
		bool floor = r->dopts.min_gbps > 0 && ic->agg_gbps < r->dopts.min_gbps;
		struct lp_verdict ev;
		char why[400], v[2][24];

		if (!ic->nsend)
			continue;
		if (floor || (isfinite(lim) && ic->agg_gbps < lim)) {
			lp_fmt_sig(v[0], sizeof(v[0]), ic->agg_gbps, 3);
			lp_fmt_sig(v[1], sizeof(v[1]), ic->ref_gbps, 3);
			snprintf(why, sizeof(why),
				 "%s incast of %d senders (%d failed): %s Gb/s in all, the other "
				 "receivers' median %s (below %.0f%% of it%s)",
				 label, ic->nsend, ic->nfail, v[0], v[1],
				 100 * (1 - r->dopts.rel_max),
				 floor ? ", and below the floor" : "");
			evidence(&ev, ratio(ic->agg_gbps, ic->ref_gbps), ic->nsend);
			if (!isfinite(ev.ratio))
				ev.ratio = 0;
			rc = lp_sweep_verdict_add(r, LP_VERDICT_INCAST_SLOW, b, b, 0, label, why,
						  &ev);
		}
		if (!rc && ic->victim >= 0) {
			snprintf(why, sizeof(why), "into it from %s during its incast",
				 r->nodes[ic->victim].name);
			rc = impact_verdict(r, ic->vic_metric, b, vic, "p50", 1, why);
		}
		if (!rc && ic->nsend >= 2 && isfinite(ic->jain) && ic->jain < r->dopts.fair_min) {
			snprintf(why, sizeof(why),
				 "%s incast of %d senders: Jain's fairness index %.2f (1 = equal "
				 "shares, %.2f = one takes all), below %.2f",
				 label, ic->nsend, ic->jain, 1.0 / ic->nsend, r->dopts.fair_min);
			evidence(&ev, ic->jain, ic->nsend);
			rc = lp_sweep_verdict_add(r, LP_VERDICT_INCAST_UNFAIR, b, b, 0, label, why,
						  &ev);
		}
	}
	free(ics);
	free(vic);
	return rc;
}

int lp_sweep_load_diagnose(struct lp_sweep_run *r)
{
	int rc = 0;

	for (int m = 0; m < r->nmetrics && !rc; m++) {
		if (r->metrics[m].lat && has_phase(r, m, LP_PHASE_LOADED))
			rc = impact_verdicts(r, m);
		if (!rc && !r->metrics[m].lat && has_phase(r, m, LP_PHASE_INCAST))
			rc = incast_verdicts(r, m);
	}
	return rc;
}

/* ---- JSON ---- */

/* struct lp_load_cell's JSON keys: matrices of them, or one pair's object. */
/* clang-format off */
static const struct lp_record load_cell_record = LP_RECORD(struct lp_load_cell,
	LP_REC_F64(struct lp_load_cell, idle_p50, LP_REC_KEY("idle_p50_us"), LP_REC_DOC("the sweep's cell (idle)")),
	LP_REC_F64(struct lp_load_cell, load_p50, LP_REC_KEY("loaded_p50_us")),
	LP_REC_F64(struct lp_load_cell, idle_p99, LP_REC_KEY("idle_p99_us")),
	LP_REC_F64(struct lp_load_cell, load_p99, LP_REC_KEY("loaded_p99_us")),
	LP_REC_F64(struct lp_load_cell, cif_p50, LP_REC_KEY("impact_p50"), LP_REC_DOC("congestion impact factor: loaded / idle")),
	LP_REC_F64(struct lp_load_cell, cif_p99, LP_REC_KEY("impact_p99")));

/* One latency metric under load: which metric loaded it, then its cells and nodes as columns. */
struct load_lat {
	int metric, loaded_by;
};

static const struct lp_record load_lat_record = LP_RECORD(struct load_lat,
	LP_REC_I32(struct load_lat, metric),
	LP_REC_I32(struct load_lat, loaded_by, LP_REC_DOC("the bandwidth metric the round's other pairs ran, -1 unknown")));

/* A node's congestion impact factor: the median over its pairs. */
struct load_node {
	double cif50, cif99;
	int pairs;
};

static const struct lp_record load_node_record = LP_RECORD(struct load_node,
	LP_REC_F64(struct load_node, cif50, LP_REC_KEY("impact_p50")),
	LP_REC_F64(struct load_node, cif99, LP_REC_KEY("impact_p99")),
	LP_REC_I32(struct load_node, pairs));

static const struct lp_record incast_record = LP_RECORD(struct lp_incast,
	LP_REC_I32(struct lp_incast, recv, LP_REC_KEY("node"), LP_REC_DOC("the receiver")),
	LP_REC_I32(struct lp_incast, nsend, LP_REC_KEY("senders_n")),
	LP_REC_I32(struct lp_incast, nfail, LP_REC_KEY("failed")),
	LP_REC_F64(struct lp_incast, agg_gbps, LP_REC_KEY("aggregate_gbits_s")),
	LP_REC_F64(struct lp_incast, agg_pct, LP_REC_KEY("aggregate_pct_link")),
	LP_REC_F64(struct lp_incast, jain, LP_REC_DOC("Jain's fairness index of the senders' Gb/s")),
	LP_REC_F64(struct lp_incast, ref_gbps, LP_REC_KEY("others_median_gbits_s")),
	LP_REC_I32(struct lp_incast, victim, LP_REC_DOC("the node that measured latency into the receiver meanwhile, -1 none")),
	LP_REC_I32(struct lp_incast, vic_metric, LP_REC_KEY("victim_metric")),
	LP_REC_NEST(struct lp_incast, vic, load_cell_record, LP_REC_KEY("victim_latency")));

/* One sender of an incast. */
struct incast_sender {
	int node, status;
	double gbits_s, share;
};

static const struct lp_record sender_record = LP_RECORD(struct incast_sender,
	LP_REC_I32(struct incast_sender, node),
	LP_REC_I32(struct incast_sender, status),
	LP_REC_F64(struct incast_sender, gbits_s),
	LP_REC_F64(struct incast_sender, share));
/* clang-format on */

/* The load_cell_record fields the CSV writes, by key (the JSON keys). */
static double load_val(const struct lp_load_cell *c, size_t k)
{
	return *(const double *)((const char *)c + load_cell_record.fields[k].off);
}

#define NLOAD_KEYS 6

/* The bandwidth metric that loaded latency metric m's victims (-1: none recorded). */
static int loader_metric(const struct lp_sweep_run *r)
{
	for (size_t k = 0; k < r->ncells; k++)
		if (r->cells[k].phase == LP_PHASE_LOADER)
			return r->cells[k].metric;
	return -1;
}

static const void *measured_pair(void *arg, size_t i)
{
	const struct lp_load_cell *c = (const struct lp_load_cell *)arg + i;

	return isfinite(c->load_p50) || isfinite(c->idle_p50) ? c : NULL;
}

static void json_latency(struct lp_json *j, const struct lp_sweep_run *r, int m)
{
	int n = r->n;
	struct load_lat ll = { m, loader_metric(r) };
	struct lp_load_cell *lc = calloc((size_t)n * n, sizeof(*lc));
	double *c50 = calloc(n, sizeof(double)), *c99 = calloc(n, sizeof(double));
	struct load_node *ln = calloc(n, sizeof(*ln));

	if (!lc || !c50 || !c99 || !ln || lp_sweep_load_matrix(r, m, lc, c50, c99) < 0)
		goto out;
	for (int i = 0; i < n; i++)
		ln[i] = (struct load_node){ c50[i], c99[i], node_pairs(lc, n, i) };
	lp_json_obj_begin(j, NULL);
	lp_record_json(&load_lat_record, &ll, j);
	lp_record_json_columns(
		&load_cell_record,
		&(struct lp_rec_rows){ .n = (size_t)n * n, .get = measured_pair, .arg = lc },
		"cells", j);
	lp_record_json_columns(
		&load_node_record,
		&(struct lp_rec_rows){ .n = (size_t)n, .base = ln, .stride = sizeof(*ln) }, "nodes",
		j);
	lp_json_obj_end(j);
out:
	free(lc);
	free(c50);
	free(c99);
	free(ln);
}

static void json_receiver(struct lp_json *j, const struct lp_sweep_run *r, int m, int b,
			  const struct lp_incast *all, const struct lp_sweep_att **cells)
{
	struct lp_incast ic;

	lp_sweep_incast(r, m, b, &ic, cells);
	ic.ref_gbps = all[b].ref_gbps;
	lp_json_obj_begin(j, NULL);
	lp_record_json(&incast_record, &ic, j);
	lp_json_arr_begin(j, "senders");
	for (int s = 0; s < ic.nsend; s++) {
		double x = cells[s]->status ? 0 : cells[s]->gbits_s;
		struct incast_sender is = { cells[s]->a, cells[s]->status, x,
					    ratio(x, ic.agg_gbps) };

		lp_json_obj_begin(j, NULL);
		lp_record_json(&sender_record, &is, j);
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);
	lp_json_obj_end(j);
}

static void json_incast(struct lp_json *j, const struct lp_sweep_run *r, int m)
{
	struct lp_incast *ics = calloc(r->n, sizeof(*ics));
	const struct lp_sweep_att **cells = calloc(r->n, sizeof(*cells));

	if (!ics || !cells)
		goto out;
	incasts(r, m, ics);
	lp_json_obj_begin(j, NULL);
	lp_json_int(j, "metric", m);
	lp_json_arr_begin(j, "receivers");
	for (int b = 0; b < r->n; b++)
		if (ics[b].nsend)
			json_receiver(j, r, m, b, ics, cells);
	lp_json_arr_end(j);
	lp_json_obj_end(j);
out:
	free(ics);
	free(cells);
}

void lp_sweep_load_json(struct lp_json *j, const struct lp_sweep_run *r)
{
	lp_json_obj_begin(j, "load");
	lp_json_arr_begin(j, "latency");
	for (int m = 0; m < r->nmetrics; m++)
		if (r->metrics[m].lat && has_phase(r, m, LP_PHASE_LOADED))
			json_latency(j, r, m);
	lp_json_arr_end(j);
	lp_json_arr_begin(j, "incast");
	for (int m = 0; m < r->nmetrics; m++)
		if (!r->metrics[m].lat && has_phase(r, m, LP_PHASE_INCAST))
			json_incast(j, r, m);
	lp_json_arr_end(j);
	lp_json_obj_end(j);
}

/* An array of objects: rec's members and more (members: key, schema writer) */
static void schema_metric(struct lp_json *j)
{
	lp_json_obj_begin(j, "metric");
	lp_json_str(j, "type", "integer");
	lp_json_obj_end(j);
}

void lp_sweep_load_schema(struct lp_json *j)
{
	lp_json_obj_begin(j, "load");
	lp_json_str(j, "description",
		    "--load: the latency under load and incast figures, from the attempts");
	lp_json_str(j, "type", "object");
	lp_json_obj_begin(j, "properties");
	lp_record_schema_array_open(&load_lat_record, "latency", j);
	lp_json_obj_begin(j, "cells");
	lp_record_schema_columns(&load_cell_record, 0, j);
	lp_json_obj_end(j);
	lp_json_obj_begin(j, "nodes");
	lp_record_schema_columns(&load_node_record, 0, j);
	lp_json_obj_end(j);
	lp_record_schema_array_close(&load_lat_record,
				     (const char *const[]){ "cells", "nodes", NULL }, j);
	lp_json_obj_begin(j, "incast");
	lp_json_str(j, "type", "array");
	lp_json_obj_begin(j, "items");
	lp_json_str(j, "type", "object");
	lp_json_obj_begin(j, "properties");
	schema_metric(j);
	lp_record_schema_array_open(&incast_record, "receivers", j);
	lp_record_schema_array(&sender_record, "senders", j);
	lp_record_schema_array_close(&incast_record, (const char *const[]){ "senders", NULL }, j);
	lp_record_schema_close(NULL, (const char *const[]){ "metric", "receivers", NULL }, j);
	lp_json_obj_end(j);
	lp_json_obj_end(j);
	lp_record_schema_close(NULL, (const char *const[]){ "latency", "incast", NULL }, j);
	lp_json_obj_end(j);
}

/* ---- CSV and summary ---- */

static void csv_num(FILE *f, double v, bool last)
{
	if (isfinite(v))
		fprintf(f, "%.6g", v);
	fputc(last ? '\n' : ',', f);
}

/*
 * Latency metric m under load: PREFIX-load-<test>-<size>.csv, a row per ordered
 * pair (idle, loaded, impact), and PREFIX-impact-<test>-<size>.csv, the p99
 * impact matrix (rows clients, columns servers).
 */
static int csv_latency(const struct lp_sweep_run *r, int m, const char *prefix,
		       struct lp_load_cell *lc)
{
	const struct lp_sweep_metric *mt = &r->metrics[m];
	int n = r->n, rc;
	char path[4096];
	FILE *f;

	if (lp_sweep_load_matrix(r, m, lc, NULL, NULL) < 0)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s-load-%s-%llu.csv", prefix, mt->test,
		 (unsigned long long)mt->size);
	f = lp_out_open(path);
	if (!f)
		return -EIO;
	fprintf(f, "client,server,client_name,server_name");
	for (size_t k = 0; k < NLOAD_KEYS; k++)
		fprintf(f, ",%s", load_cell_record.fields[k].key);
	fputc('\n', f);
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++) {
			if (a == b)
				continue;
			fprintf(f, "%d,%d,", a, b);
			lp_csv_field(f, r->nodes[a].name, 0);
			lp_csv_field(f, r->nodes[b].name, 0);
			for (size_t k = 0; k < NLOAD_KEYS; k++)
				csv_num(f, load_val(&lc[(size_t)a * n + b], k),
					k + 1 == NLOAD_KEYS);
		}
	rc = lp_out_close(f, path);
	snprintf(path, sizeof(path), "%s-impact-%s-%llu.csv", prefix, mt->test,
		 (unsigned long long)mt->size);
	f = rc ? NULL : lp_out_open(path);
	if (!f)
		return -EIO;
	lp_csv_field(f, "client\\server [p99 loaded/idle]", 0);
	for (int b = 0; b < n; b++)
		lp_csv_field(f, r->nodes[b].name, b == n - 1);
	for (int a = 0; a < n; a++) {
		lp_csv_field(f, r->nodes[a].name, 0);
		for (int b = 0; b < n; b++)
			csv_num(f, lc[(size_t)a * n + b].cif_p99, b == n - 1);
	}
	return lp_out_close(f, path);
}

/* Per metric under load: csv_latency's files; per incast: PREFIX-incast-<test>-<size>.csv. */
int lp_sweep_load_csv(const struct lp_sweep_run *r, const char *prefix)
{
	int n = r->n, rc = 0;
	struct lp_load_cell *lc = calloc((size_t)n * n, sizeof(*lc));
	const struct lp_sweep_att **cells = calloc(n, sizeof(*cells));
	struct lp_incast *ics = calloc(n, sizeof(*ics));
	char path[4096];
	FILE *f;

	if (!lc || !cells || !ics) {
		rc = -ENOMEM;
		goto out;
	}
	for (int m = 0; m < r->nmetrics && !rc; m++) {
		const struct lp_sweep_metric *mt = &r->metrics[m];

		if (mt->lat && has_phase(r, m, LP_PHASE_LOADED))
			rc = csv_latency(r, m, prefix, lc);
		if (!rc && !mt->lat && has_phase(r, m, LP_PHASE_INCAST)) {
			snprintf(path, sizeof(path), "%s-incast-%s-%llu.csv", prefix, mt->test,
				 (unsigned long long)mt->size);
			f = lp_out_open(path);
			if (!f) {
				rc = -EIO;
				break;
			}
			incasts(r, m, ics);
			fprintf(f, "receiver,sender,receiver_name,sender_name,status,gbits_s,share,"
				   "aggregate_gbits_s,others_median_gbits_s,jain,victim,"
				   "victim_idle_p99_us,victim_loaded_p99_us,victim_impact_p99\n");
			for (int b = 0; b < n; b++) {
				struct lp_incast ic;

				lp_sweep_incast(r, m, b, &ic, cells);
				for (int s = 0; s < ic.nsend; s++) {
					double x = cells[s]->status ? 0 : cells[s]->gbits_s;

					fprintf(f, "%d,%d,", b, cells[s]->a);
					lp_csv_field(f, r->nodes[b].name, 0);
					lp_csv_field(f, r->nodes[cells[s]->a].name, 0);
					fprintf(f, "%d,", cells[s]->status);
					csv_num(f, x, false);
					csv_num(f, ratio(x, ic.agg_gbps), false);
					csv_num(f, ic.agg_gbps, false);
					csv_num(f, ics[b].ref_gbps, false);
					csv_num(f, ic.jain, false);
					lp_csv_field(f,
						     ic.victim >= 0 ? r->nodes[ic.victim].name : "",
						     0);
					csv_num(f, ic.vic.idle_p99, false);
					csv_num(f, ic.vic.load_p99, false);
					csv_num(f, ic.vic.cif_p99, true);
				}
			}
			rc = lp_out_close(f, path);
		}
	}
out:
	free(lc);
	free(cells);
	free(ics);
	return rc;
}

/* An impact factor for the summary, "1.23x" right-aligned in width columns, LP_NA for none. */
static const char *factor(char *buf, double v, int width)
{
	char x[24];

	if (isfinite(v))
		snprintf(x, sizeof(x), "%.2fx", v);
	else
		snprintf(x, sizeof(x), "%s", LP_NA);
	return lp_fmt_rjust(buf, 40, x, width);
}

/* One receiver's incast row: numbers in plain decimal, LP_NA for what was not measured. */
static void incast_row(FILE *f, const char *name, const struct lp_incast *ic)
{
	char v[5][40], a[24];

	lp_fmt_sig(a, sizeof(a), ic->agg_gbps, 3);
	lp_fmt_rjust(v[0], sizeof(v[0]), a, 12);
	lp_fmt_sig(a, sizeof(a), ic->ref_gbps, 3);
	lp_fmt_rjust(v[1], sizeof(v[1]), a, 8);
	lp_fmt_fixed(a, sizeof(a), ic->jain, 2);
	lp_fmt_rjust(v[2], sizeof(v[2]), a, 6);
	fprintf(f, "  %-20s %7d %s %s %s %s\n", name, ic->nsend, v[0], v[1], v[2],
		factor(v[3], ic->vic.cif_p50, 8));
}

void lp_sweep_load_summary(const struct lp_sweep_run *r, FILE *f)
{
	int n = r->n, lm = loader_metric(r);
	char v[2][40];
	struct lp_load_cell *lc = calloc((size_t)n * n, sizeof(*lc));
	double *c50 = calloc(n, sizeof(double)), *c99 = calloc(n, sizeof(double));
	struct lp_incast *ics = calloc(n, sizeof(*ics));

	if (!lc || !c50 || !c99 || !ics)
		goto out;
	for (int m = 0; m < r->nmetrics; m++) {
		if (r->metrics[m].lat && has_phase(r, m, LP_PHASE_LOADED) &&
		    lp_sweep_load_matrix(r, m, lc, c50, c99) >= 0) {
			fprintf(f,
				"\n%s under load (loaded by %s on the round's other pairs): "
				"congestion impact factor = loaded / idle, median of each node's "
				"pairs\n  %-20s %10s %10s\n",
				r->metrics[m].label, lm >= 0 ? r->metrics[lm].label : "?", "node",
				"p50", "p99");
			for (int i = 0; i < n; i++)
				fprintf(f, "  %-20s %s %s\n", r->nodes[i].name,
					factor(v[0], c50[i], 10), factor(v[1], c99[i], 10));
		}
		if (!r->metrics[m].lat && has_phase(r, m, LP_PHASE_INCAST)) {
			incasts(r, m, ics);
			fprintf(f,
				"\n%s incast: senders writing to one receiver at once (impact: "
				"a victim's p50 latency into it meanwhile / idle)\n"
				"  %-20s %7s %12s %8s %6s %8s\n",
				r->metrics[m].label, "receiver", "senders", "aggr Gb/s", "others",
				"Jain", "impact");
			for (int b = 0; b < n; b++)
				if (ics[b].nsend)
					incast_row(f, r->nodes[b].name, &ics[b]);
		}
	}
out:
	free(lc);
	free(c50);
	free(c99);
	free(ics);
}
