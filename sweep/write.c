// SPDX-License-Identifier: MIT
/* lp-sweep's JSON document (linkperf.sweep/1). */
#include "sweep/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/lp.h"
#include "common/meta.h"
#include "sweep/collrun.h"
#include "sweep/load.h"

/* ---- JSON ---- */

static void json_node(struct lp_json *j, const struct lp_sweep_node *nd, int idx)
{
	lp_json_obj_begin(j, NULL);
	lp_json_int(j, "index", idx);
	lp_json_str(j, "name", nd->name);
	lp_json_str(j, "host", nd->host);
	lp_json_int(j, "rank", nd->rank);
	lp_json_int(j, "rail", nd->rail);
	lp_json_int(j, "status", nd->status);
	if (nd->status)
		lp_json_str(j, "error", nd->error);
	else
		lp_json_null(j, "error");
	lp_json_str(j, "device", nd->dev.name[0] ? nd->dev.name : NULL);
	lp_json_int(j, "port", nd->dev.port);
	lp_json_str(j, "link_layer", nd->dev.link_layer[0] ? nd->dev.link_layer : NULL);
	lp_json_num(j, "rate_gbps", nd->dev.rate_gbps > 0 ? nd->dev.rate_gbps : NAN);
	lp_json_str(j, "speed", nd->dev.speed[0] ? nd->dev.speed : NULL);
	lp_json_uint(j, "width", nd->dev.width);
	lp_json_str(j, "gid_type", nd->dev.gid_type[0] ? nd->dev.gid_type : NULL);
	lp_json_str(j, "gid", nd->dev.gid[0] ? nd->dev.gid : NULL);
	lp_json_int(j, "gid_index", nd->dev.gid_index);
	lp_json_uint(j, "mtu", nd->dev.active_mtu);
	lp_json_str(j, "firmware", nd->dev.fw[0] ? nd->dev.fw : NULL);
	lp_json_str(j, "netdev", nd->dev.netdev[0] ? nd->dev.netdev : NULL);
	lp_json_int(j, "numa_node", nd->dev.numa_node);
	lp_json_str(j, "mem", nd->mem);
	lp_json_str(j, "gpu", strncmp(nd->mem, "cuda", 4) == 0 ? nd->mem : NULL);
	lp_json_str(j, "gpu_bdf", nd->gpu_bdf[0] ? nd->gpu_bdf : NULL);
	lp_json_str(j, "gpu_nic_distance", nd->gpu_nic[0] ? nd->gpu_nic : NULL);
	lp_json_str(j, "kernel", nd->kernel[0] ? nd->kernel : NULL);
	lp_json_obj_begin(j, "inventory"); /* the port's (rdma/inventory.h) */
	lp_record_json(&lp_inv_port_record, &nd->dev.inv, j);
	lp_json_obj_end(j);
	lp_json_obj_begin(j, "gpus");
	lp_record_json(&lp_inv_gpus_record, &nd->gpus, j);
	lp_json_obj_end(j);
	lp_json_obj_end(j);
}

static const char *cls_name(uint8_t c)
{
	switch (c) {
	case LP_CELL_OK:
		return "ok";
	case LP_CELL_SLOW:
		return "slow";
	case LP_CELL_FAIL:
		return "fail";
	default:
		return NULL;
	}
}

/* The model and the noise a metric was diagnosed with. */
static void json_model(struct lp_json *j, const struct lp_diag *d)
{
	lp_json_num(j, "reference", d->ref);
	lp_json_str(j, "model",
		    "log(goodness) = reference + client effect + server effect + link residual");
	lp_json_num(j, "sigma_log", d->sigma);
	lp_json_num(j, "threshold_ratio", d->thresh);
	lp_json_int(j, "healthy_nodes", d->nhealthy);
	lp_json_obj_begin(j, "noise");
	lp_json_num(j, "cv", d->cv);
	lp_json_num(j, "cv_residuals", exp(d->sigma_fit) - 1);
	lp_json_int(j, "residual_df", d->df);
	lp_json_num(j, "cv_repeats", exp(d->sigma_rep) - 1);
	lp_json_int(j, "repeat_pairs", d->rep_pairs);
	lp_json_num(j, "min_detectable_node", d->min_node);
	lp_json_num(j, "min_detectable_link", d->min_link);
	lp_json_bool(j, "inconclusive", d->inconclusive);
	lp_json_obj_end(j);
	lp_json_bool(j, "ambiguous", d->ambiguous);
}

/* "matrix" (values) and "cell_class" (ok, slow, fail, null: not measured), rows = clients. */
static void json_matrix(struct lp_json *j, int n, const struct lp_sweep_mx *mx,
			const struct lp_diag *d)
{
	lp_json_arr_begin(j, "matrix");
	for (int a = 0; a < n; a++) {
		lp_json_arr_begin(j, NULL);
		for (int b = 0; b < n; b++)
			lp_json_num(j, NULL, mx->v[(size_t)a * n + b]);
		lp_json_arr_end(j);
	}
	lp_json_arr_end(j);
	lp_json_arr_begin(j, "cell_class");
	for (int a = 0; a < n; a++) {
		lp_json_arr_begin(j, NULL);
		for (int b = 0; b < n; b++) {
			size_t x = (size_t)a * n + b;

			lp_json_str(j, NULL,
				    d		   ? cls_name(d->cls[x])
				    : mx->fail[x]  ? "fail"
				    : mx->sched[x] ? "ok"
						   : NULL);
		}
		lp_json_arr_end(j);
	}
	lp_json_arr_end(j);
}

/* Each node's effects in one metric. */
static void json_node_effects(struct lp_json *j, int n, const struct lp_diag *d)
{
	lp_json_arr_begin(j, "nodes");
	for (int i = 0; i < n; i++) {
		lp_json_obj_begin(j, NULL);
		lp_json_int(j, "node", i);
		lp_json_num(j, "score_client", d->score_src[i]);
		lp_json_num(j, "score_server", d->score_dst[i]);
		lp_json_num(j, "z_client", log(d->score_src[i]) / d->se_src[i]);
		lp_json_num(j, "z_server", log(d->score_dst[i]) / d->se_dst[i]);
		lp_json_int(j, "agree_as_client", d->slow_src[i]);
		lp_json_int(j, "measured_as_client", d->n_src[i]);
		lp_json_int(j, "agree_as_server", d->slow_dst[i]);
		lp_json_int(j, "measured_as_server", d->n_dst[i]);
		lp_json_int(j, "failed_cells", d->fail[i]);
		lp_json_bool(j, "flag_client", d->node[i] & LP_NODE_SLOW_SRC);
		lp_json_bool(j, "flag_server", d->node[i] & LP_NODE_SLOW_DST);
		lp_json_bool(j, "flag_failed", d->node[i] & LP_NODE_FAILED);
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);
}

static void json_metric(struct lp_json *j, const struct lp_sweep_run *r, int m,
			struct lp_sweep_mx *mx)
{
	const struct lp_sweep_metric *mt = &r->metrics[m];
	const struct lp_diag *d = r->diag ? &r->diag[m] : NULL;

	lp_sweep_mx_fill(r, m, mx);
	lp_json_obj_begin(j, NULL);
	lp_json_int(j, "index", m);
	lp_json_str(j, "label", mt->label);
	lp_json_str(j, "test", mt->test);
	lp_json_uint(j, "size", mt->size);
	lp_json_str(j, "kind", mt->lat ? "latency" : "bandwidth");
	lp_json_str(j, "unit", lp_sweep_unit(mt));
	lp_json_str(j, "value",
		    mt->lat ? "one-way latency p50 (write/send: RTT/2; read: completion)"
			    : "client-direction bandwidth, Gb/s");
	lp_json_bool(j, "higher_is_better", !mt->lat);
	if (d)
		json_model(j, d);
	lp_json_str(j, "rows", "client (data source for write/send)");
	lp_json_str(j, "columns", "server");
	json_matrix(j, r->n, mx, d);
	if (d)
		json_node_effects(j, r->n, d);
	lp_json_obj_end(j);
}

static void json_cell(struct lp_json *j, const struct lp_sweep_run *r,
		      const struct lp_sweep_cell *c)
{
	const struct lp_sweep_metric *mt = &r->metrics[c->metric];

	lp_json_obj_begin(j, NULL);
	lp_json_int(j, "metric", c->metric);
	lp_json_str(j, "test", mt->test);
	lp_json_uint(j, "size", mt->size);
	lp_json_int(j, "client", c->a);
	lp_json_int(j, "server", c->b);
	lp_json_str(j, "client_name", r->nodes[c->a].name);
	lp_json_str(j, "server_name", r->nodes[c->b].name);
	lp_json_str(j, "phase", lp_sweep_phase_names[c->phase]);
	lp_json_int(j, "round", c->round);
	lp_json_int(j, "attempt", c->attempt);
	lp_json_int(j, "status", c->status);
	if (c->status)
		lp_json_str(j, "error", c->error);
	else
		lp_json_null(j, "error");
	lp_json_num(j, "value", c->value);
	lp_json_str(j, "unit", lp_sweep_unit(mt));
	lp_json_num(j, "wall_s", c->wall_s);
	lp_json_uint(j, "iters", c->iters);
	lp_json_num(j, "interval_min", c->ival_min);
	lp_json_num(j, "interval_max", c->ival_max);
	lp_json_obj_begin(j, mt->lat ? "latency_us" : "bandwidth");
	lp_record_json(mt->lat ? &lp_sweep_cell_lat_json : &lp_sweep_cell_bw_json, c, j);
	lp_json_obj_end(j);
	lp_sweep_cell_ctr_json(j, c);
	lp_json_obj_end(j);
}

/* How it ran: timings, options and the diagnosis thresholds. */
static void json_run(struct lp_json *j, const struct lp_sweep_run *r)
{
	lp_json_obj_begin(j, "run");
	lp_json_str(j, "started", r->started);
	lp_json_bool(j, "interrupted", r->interrupted);
	lp_json_bool(j, "incomplete", r->incomplete);
	lp_json_int(j, "attempt", r->attempt);
	lp_json_str(j, "resumed_from", r->resumed[0] ? r->resumed : NULL);
	lp_json_num(j, "wall_s", r->wall_s);
	lp_json_num(j, "sweep_s", r->sweep_s);
	lp_json_num(j, "retest_s", r->retest_s);
	lp_json_num(j, "load_s", r->load_s);
	lp_json_int(j, "nodes", r->n);
	lp_json_int(j, "rails", r->rails);
	lp_json_num(j, "pair_timeout_s", r->pair_timeout_s);
	lp_json_uint(j, "bw_iters", r->bw_iters);
	lp_json_uint(j, "lat_iters", r->lat_iters);
	lp_json_uint(j, "retests", r->nretests);
	lp_json_obj_begin(j, "diagnosis");
	lp_json_num(j, "k_mad", r->dopts.k);
	lp_json_num(j, "rel", r->dopts.rel);
	lp_json_num(j, "rel_max", r->dopts.rel_max);
	lp_json_num(j, "vote", r->dopts.vote);
	lp_json_num(j, "min_gbps", r->dopts.min_gbps > 0 ? r->dopts.min_gbps : NAN);
	lp_json_num(j, "max_lat_us", r->dopts.max_lat_us > 0 ? r->dopts.max_lat_us : NAN);
	lp_json_num(j, "min_errors", r->dopts.min_errors);
	lp_json_num(j, "impact_max", r->dopts.impact_max);
	lp_json_num(j, "fair_min", r->dopts.fair_min);
	lp_json_int(j, "retest_max", r->retest_max);
	lp_json_int(j, "retest_rounds", r->retest_rounds);
	lp_json_obj_end(j);
	lp_json_obj_end(j);
}

static void json_schedule(struct lp_json *j, const struct lp_sweep_run *r)
{
	lp_json_obj_begin(j, "schedule");
	lp_json_str(j, "kind", r->sched_name);
	if (r->sched) {
		lp_json_int(j, "rounds", (int64_t)r->sched->nrounds);
		lp_json_uint(j, "ordered_pairs", lp_sched_ordered_pairs(r->sched));
	} else if (r->rounds) {
		lp_json_int(j, "rounds",
			    (int64_t)r->rounds); /* a document read back keeps its count */
	}
	lp_json_int(j, "random_k", r->random_k);
	lp_json_uint(j, "seed", r->seed);
	/* rounds as [x, y, dirs] triples (dirs: 1 x->y, 2 y->x, 3 both); big schedules are left out */
	if (r->sched && r->sched->nslots <= 100000) {
		lp_json_arr_begin(j, "rounds_slots");
		for (size_t k = 0; k < r->sched->nrounds; k++) {
			size_t cnt;
			const struct lp_slot *sl = lp_sched_round(r->sched, k, &cnt);

			lp_json_arr_begin(j, NULL);
			for (size_t i = 0; i < cnt; i++) {
				lp_json_arr_begin(j, NULL);
				lp_json_int(j, NULL, sl[i].x);
				lp_json_int(j, NULL, sl[i].y);
				lp_json_int(j, NULL, sl[i].dirs);
				lp_json_arr_end(j);
			}
			lp_json_arr_end(j);
		}
		lp_json_arr_end(j);
	}
	lp_json_obj_end(j);
}

void lp_sweep_json_echo(struct lp_json *j, const struct lp_sweep_run *r)
{
	json_run(j, r);
	json_schedule(j, r);
}

void lp_sweep_json_pair(struct lp_json *j, const struct lp_sweep_run *r, int a, int b)
{
	lp_json_arr_begin(j, "nodes");
	lp_json_int(j, NULL, a);
	lp_json_int(j, NULL, b);
	lp_json_arr_end(j);
	lp_json_arr_begin(j, "names");
	lp_json_str(j, NULL, r->nodes[a].name);
	lp_json_str(j, NULL, r->nodes[b].name);
	lp_json_arr_end(j);
}

/* A link verdict's nodes, names and slow directions ([client, server] each). */
static void json_link(struct lp_json *j, const struct lp_sweep_run *r, const struct lp_verdict *vd)
{
	lp_sweep_json_pair(j, r, vd->a, vd->b);
	lp_json_arr_begin(j, "directions");
	for (int dir = 0; dir < 2; dir++) {
		if (!(vd->dirs & (dir ? LP_DIR_YX : LP_DIR_XY)))
			continue;
		lp_json_arr_begin(j, NULL);
		lp_json_int(j, NULL, dir ? vd->b : vd->a);
		lp_json_int(j, NULL, dir ? vd->a : vd->b);
		lp_json_arr_end(j);
	}
	lp_json_arr_end(j);
}

static void json_candidates(struct lp_json *j, const struct lp_sweep_run *r,
			    const struct lp_verdict *vd)
{
	lp_json_arr_begin(j, "candidates");
	for (int c = 0; c < vd->ncand; c++) {
		const struct lp_diag_item *it = &vd->cand[c];

		lp_json_obj_begin(j, NULL);
		lp_json_str(j, "kind",
			    it->kind == LP_ITEM_LINK  ? "link_slow"
			    : it->kind == LP_ITEM_SRC ? "node_slow_as_client"
						      : "node_slow_as_server");
		lp_json_str(j, "name", r->nodes[it->a].name);
		if (it->kind == LP_ITEM_LINK)
			lp_json_str(j, "to", r->nodes[it->b].name);
		lp_json_int(j, "node", it->a);
		if (it->kind == LP_ITEM_LINK)
			lp_json_int(j, "server", it->b);
		lp_json_num(j, "ratio", it->ratio);
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);
}

static void json_verdict(struct lp_json *j, const struct lp_sweep_run *r,
			 const struct lp_verdict *vd)
{
	lp_json_obj_begin(j, NULL);
	lp_json_str(j, "kind", lp_verdict_names[vd->kind]);
	if (lp_sweep_is_link(vd)) {
		json_link(j, r, vd);
	} else if (vd->a >= 0 && vd->a == vd->b) {
		lp_json_int(j, "node", vd->a);
		lp_json_str(j, "name", r->nodes[vd->a].name);
		lp_json_bool(j, "as_client", vd->dirs & LP_NODE_SLOW_SRC);
		lp_json_bool(j, "as_server", vd->dirs & LP_NODE_SLOW_DST);
	}
	lp_json_num(j, "ratio", vd->ratio);
	lp_json_num(j, "z", vd->z);
	lp_json_num(j, "noise_cv", vd->noise_cv);
	lp_json_int(j, "cells", vd->cells);
	lp_json_int(j, "partners_agreeing", vd->agree);
	lp_json_int(j, "retests", vd->retests);
	if (vd->ncand)
		json_candidates(j, r, vd);
	lp_verdict_ctr_json(j, r, vd);
	lp_json_str(j, "metrics", vd->metrics);
	lp_json_str(j, "reason", vd->reason);
	lp_json_obj_end(j);
}

static void json_missing_pair(void *arg, const struct lp_sweep_run *r, int a, int b,
			      const char *labels)
{
	struct lp_json *j = arg;

	lp_json_obj_begin(j, NULL);
	lp_json_int(j, "client", a);
	lp_json_int(j, "server", b);
	lp_json_str(j, "client_name", r->nodes[a].name);
	lp_json_str(j, "server_name", r->nodes[b].name);
	lp_json_str(j, "metrics", labels);
	lp_json_obj_end(j);
}

static void json_missing(struct lp_json *j, const struct lp_sweep_run *r)
{
	lp_json_arr_begin(j, "missing");
	lp_sweep_each_missing(r, json_missing_pair, j);
	lp_json_arr_end(j);
}

int lp_sweep_write_json(const struct lp_sweep_run *r, FILE *f, int exit_code)
{
	struct lp_sweep_mx mx;
	struct lp_json j;
	int rc;

	if (lp_sweep_mx_alloc(&mx, r->n))
		return -ENOMEM;
	lp_json_init(&j, f, true);
	lp_json_obj_begin(&j, NULL);
	lp_json_str(&j, "tool", "lp-sweep");
	lp_json_str(&j, "schema", "linkperf.sweep/1");
	lp_json_obj_begin(&j, "method");
	lp_method_json(&j);
	lp_json_obj_end(&j);
	lp_sweep_json_echo(&j, r);
	lp_json_arr_begin(&j, "nodes");
	for (int i = 0; i < r->n; i++)
		json_node(&j, &r->nodes[i], i);
	lp_json_arr_end(&j);
	lp_json_arr_begin(&j, "metrics");
	for (int m = 0; m < r->nmetrics; m++)
		json_metric(&j, r, m, &mx);
	lp_json_arr_end(&j);
	lp_json_arr_begin(&j, "cells");
	for (size_t i = 0; i < r->ncells; i++)
		json_cell(&j, r, &r->cells[i]);
	lp_json_arr_end(&j);
	json_missing(&j, r);
	lp_sweep_load_json(&j, r);
	lp_sweep_coll_json(&j, r);
	lp_json_arr_begin(&j, "verdicts");
	for (int i = 0; i < r->nverdicts; i++)
		json_verdict(&j, r, &r->verdicts[i]);
	lp_json_arr_end(&j);
	lp_sweep_evidence_json(&j, r);
	if (r->gates) { /* per node: its own port's profile and state (qual/node.h) */
		lp_json_str(&j, "fleet_profile", r->fleet_profile[0] ? r->fleet_profile : NULL);
		lp_json_arr_begin(&j, "node_gates");
		for (int i = 0; i < r->n; i++) {
			lp_json_obj_begin(&j, NULL);
			lp_json_str(&j, "node", r->nodes[i].name);
			lp_json_str(&j, "profile",
				    r->gates[i].profile[0] ? r->gates[i].profile : NULL);
			lp_json_str(&j, "verdict", lp_qual_verdict_names[r->gates[i].verdict]);
			lp_json_str(&j, "reason", r->gates[i].reason);
			lp_json_obj_end(&j);
		}
		lp_json_arr_end(&j);
	}
	lp_json_int(&j, "exit_code", exit_code);
	lp_json_obj_end(&j);
	rc = lp_json_finish(&j);
	lp_sweep_mx_free(&mx);
	return rc;
}
