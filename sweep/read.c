// SPDX-License-Identifier: MIT
/* Reading an lp-sweep run back (lp-sweep --diagnose): the JSON document into a struct lp_sweep_run. */
#include "sweep/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "sweep/collrun.h"
#include "sweep/load.h"

/* ---- reading a run back (lp-sweep --diagnose) ---- */

#ifdef LP_HAVE_JANSSON
#include <jansson.h>

/* JSON null (NaN written by lp_json_num) reads back as NaN. */
static double jnum(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static long long jint(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? json_integer_value(v)
	       : json_is_real(v)  ? (long long)json_real_value(v)
				  : 0;
}

static void jstr(const json_t *o, const char *key, char *out, size_t len)
{
	const char *v = json_string_value(json_object_get(o, key));

	snprintf(out, len, "%s", v ? v : "");
}

static void read_node(struct lp_sweep_node *nd, const json_t *o)
{
	nd->rank = (int)jint(o, "rank");
	nd->rail = (int)jint(o, "rail");
	nd->status = (int)jint(o, "status");
	nd->dev.port = (int)jint(o, "port");
	nd->dev.gid_index = (int)jint(o, "gid_index");
	nd->dev.width = (unsigned)jint(o, "width");
	nd->dev.active_mtu = (unsigned)jint(o, "mtu");
	nd->dev.numa_node = (int)jint(o, "numa_node");
	nd->dev.rate_gbps = isfinite(jnum(o, "rate_gbps")) ? jnum(o, "rate_gbps") : 0;
	jstr(o, "name", nd->name, sizeof(nd->name));
	jstr(o, "host", nd->host, sizeof(nd->host));
	jstr(o, "error", nd->error, sizeof(nd->error));
	jstr(o, "device", nd->dev.name, sizeof(nd->dev.name));
	jstr(o, "link_layer", nd->dev.link_layer, sizeof(nd->dev.link_layer));
	jstr(o, "speed", nd->dev.speed, sizeof(nd->dev.speed));
	jstr(o, "gid_type", nd->dev.gid_type, sizeof(nd->dev.gid_type));
	jstr(o, "gid", nd->dev.gid, sizeof(nd->dev.gid));
	jstr(o, "firmware", nd->dev.fw, sizeof(nd->dev.fw));
	jstr(o, "netdev", nd->dev.netdev, sizeof(nd->dev.netdev));
	jstr(o, "mem", nd->mem, sizeof(nd->mem));
	jstr(o, "gpu_bdf", nd->gpu_bdf, sizeof(nd->gpu_bdf));
	jstr(o, "gpu_nic_distance", nd->gpu_nic, sizeof(nd->gpu_nic));
	jstr(o, "kernel", nd->kernel, sizeof(nd->kernel));
	if (json_is_object(json_object_get(o, "inventory"))) /* the GPUs' list is not read back */
		lp_record_read_json(&lp_inv_port_record, &nd->dev.inv,
				    json_object_get(o, "inventory"), NULL, 0);
}

/* One end's counters as lp_sweep_cell_ctr_json writes them; null or absent: not read. */
static void read_ctr_end(struct lp_sweep_ctr_end *e, const json_t *o)
{
	const json_t *v;
	size_t i;

	memset(e, 0, sizeof(*e));
	if (!json_is_object(o))
		return;
	e->valid = true;
	e->more = (uint32_t)jint(o, "omitted");
	json_array_foreach(json_object_get(o, "moved"), i, v)
	{
		struct lp_counter *c = &e->c[e->n];
		int src = lp_ctr_src_parse(json_string_value(json_object_get(v, "source")));

		if (e->n >= LP_SWEEP_CELL_CTR || src < 0) {
			e->more++;
			continue;
		}
		jstr(v, "name", c->name, sizeof(c->name));
		c->src = (uint8_t)src;
		c->value = (uint64_t)jint(v, "delta");
		c->reset = json_is_true(json_object_get(v, "reset"));
		e->n++;
	}
}

static int read_cell(struct lp_sweep_run *r, const json_t *o)
{
	struct lp_sweep_cell c;
	const json_t *l = json_object_get(o, "latency_us"), *b = json_object_get(o, "bandwidth");
	const char *phase = json_string_value(json_object_get(o, "phase"));
	int ph = LP_PHASE_SWEEP;

	for (int k = 0; phase && lp_sweep_phase_names[k]; k++)
		if (!strcmp(phase, lp_sweep_phase_names[k]))
			ph = k;
	lp_sweep_cell_init(&c, (int)jint(o, "metric"), (int)jint(o, "client"),
			   (int)jint(o, "server"), ph, (int)jint(o, "round"));
	c.status = (int32_t)jint(o, "status");
	jstr(o, "error", c.error, sizeof(c.error));
	c.value = jnum(o, "value");
	c.wall_s = jnum(o, "wall_s");
	c.iters = (uint64_t)jint(o, "iters");
	if (json_is_integer(json_object_get(o, "attempt")))
		c.attempt = (int32_t)jint(o, "attempt");
	if (l)
		lp_record_read_json(&lp_sweep_cell_lat_json, &c, l, NULL, 0);
	if (b)
		lp_record_read_json(&lp_sweep_cell_bw_json, &c, b, NULL, 0);
	read_ctr_end(&c.ctr_client, json_object_get(json_object_get(o, "counters"), "client"));
	read_ctr_end(&c.ctr_server, json_object_get(json_object_get(o, "counters"), "server"));
	return lp_sweep_add_cell(r, &c);
}

/* The load modes as recorded (the figures are recomputed from the cells). */
static void read_load(struct lp_sweep_run *r, const json_t *ld)
{
	const char *modes = json_string_value(json_object_get(ld, "modes"));

	for (int k = 0; modes && lp_sweep_load_names[k]; k++)
		if (!strcmp(modes, lp_sweep_load_names[k]))
			r->load = lp_sweep_load_names[k];
	r->load_time_s = jnum(ld, "time_s");
	r->incast_k = (int)jint(ld, "incast_k");
}

/* How it ran, echoed as recorded: the run, schedule and diagnosis objects. */
void lp_sweep_read_echo(struct lp_sweep_run *r, const json_t *run, const json_t *sc)
{
	const json_t *dg = json_object_get(run, "diagnosis");
	const char *kind = json_string_value(json_object_get(sc, "kind"));

	snprintf(r->started, sizeof(r->started), "%s",
		 json_string_value(json_object_get(run, "started")) ?: "");
	r->wall_s = jnum(run, "wall_s");
	r->sweep_s = jnum(run, "sweep_s");
	r->retest_s = jnum(run, "retest_s");
	r->load_s = jnum(run, "load_s");
	r->rails = (int)jint(run, "rails");
	r->pair_timeout_s = jnum(run, "pair_timeout_s");
	r->bw_iters = (uint64_t)jint(run, "bw_iters");
	r->lat_iters = (uint64_t)jint(run, "lat_iters");
	r->nretests = (size_t)jint(run, "retests");
	r->interrupted = json_is_true(json_object_get(run, "interrupted"));
	r->incomplete = json_is_true(json_object_get(run, "incomplete"));
	r->attempt =
		json_is_integer(json_object_get(run, "attempt")) ? (int)jint(run, "attempt") : 1;
	jstr(run, "resumed_from", r->resumed, sizeof(r->resumed));
	r->rounds = (size_t)jint(sc, "rounds");
	r->random_k = (int)jint(sc, "random_k");
	r->seed = (uint64_t)jint(sc, "seed");
	for (int k = 0; kind && lp_sched_names[k]; k++)
		if (!strcmp(kind, lp_sched_names[k]))
			r->sched_name = lp_sched_names[k];
	r->retest_max = (int)jint(dg, "retest_max");
	r->retest_rounds = (int)jint(dg, "retest_rounds");
	if (isfinite(jnum(dg, "k_mad")))
		r->dopts.k = jnum(dg, "k_mad");
	if (isfinite(jnum(dg, "rel")))
		r->dopts.rel = jnum(dg, "rel");
	if (isfinite(jnum(dg, "rel_max")))
		r->dopts.rel_max = jnum(dg, "rel_max");
	if (isfinite(jnum(dg, "vote")))
		r->dopts.vote = jnum(dg, "vote");
	if (isfinite(jnum(dg, "impact_max")))
		r->dopts.impact_max = jnum(dg, "impact_max");
	if (isfinite(jnum(dg, "fair_min")))
		r->dopts.fair_min = jnum(dg, "fair_min");
	r->dopts.min_gbps = isfinite(jnum(dg, "min_gbps")) ? jnum(dg, "min_gbps") : 0;
	r->dopts.max_lat_us = isfinite(jnum(dg, "max_lat_us")) ? jnum(dg, "max_lat_us") : 0;
	if (isfinite(jnum(dg, "min_errors")))
		r->dopts.min_errors = jnum(dg, "min_errors");
}

/* The nodes, metrics and cells arrays into r (initialised here). 0, -EINVAL (why says) or -ENOMEM. */
static int read_arrays(struct lp_sweep_run *r, const json_t *nodes, const json_t *metrics,
		       const json_t *cells, char *why, size_t why_len)
{
	const json_t *v;
	size_t i;
	int rc = lp_sweep_run_init(r, (int)json_array_size(nodes));

	if (rc)
		return rc;
	json_array_foreach(nodes, i, v) read_node(&r->nodes[i], v);
	json_array_foreach(metrics, i, v)
	{
		const char *test = json_string_value(json_object_get(v, "test"));
		const char *kind = json_string_value(json_object_get(v, "kind"));

		if (!test || !kind ||
		    lp_sweep_add_metric(r, test, -1, !strcmp(kind, "latency"),
					(uint64_t)jint(v, "size")) < 0) {
			snprintf(why, why_len, "metric %zu: no test or kind", i);
			return -EINVAL;
		}
	}
	json_array_foreach(cells, i, v)
	{
		rc = read_cell(r, v);
		if (rc) {
			snprintf(why, why_len, "cell %zu: metric or node out of range", i);
			return rc;
		}
	}
	return 0;
}

int lp_sweep_read_json(struct lp_sweep_run *r, const char *path, char *why, size_t why_len)
{
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err), *run, *nodes, *metrics, *cells;
	const char *schema;
	int rc = -EINVAL;

	memset(r, 0, sizeof(*r));
	if (!root) {
		snprintf(why, why_len, "not JSON: %s (line %d)", err.text, err.line);
		return -EINVAL;
	}
	schema = json_string_value(json_object_get(root, "schema"));
	run = json_object_get(root, "run");
	nodes = json_object_get(root, "nodes");
	metrics = json_object_get(root, "metrics");
	cells = json_object_get(root, "cells");
	if (!schema || strcmp(schema, "linkperf.sweep/1") || !json_is_object(run) ||
	    !json_is_array(nodes) || !json_is_array(metrics) || !json_is_array(cells) ||
	    json_array_size(nodes) < 1 || json_array_size(metrics) > LP_SWEEP_MAX_METRICS) {
		snprintf(
			why, why_len,
			"not an lp-sweep run (schema linkperf.sweep/1 with run, nodes, metrics, cells)");
		goto out;
	}
	rc = read_arrays(r, nodes, metrics, cells, why, why_len);
	if (!rc)
		read_load(r, json_object_get(root, "load"));
	if (!rc)
		rc = lp_sweep_coll_read(r, json_object_get(root, "collectives"));
	if (!rc)
		lp_sweep_read_echo(r, run, json_object_get(root, "schedule"));
out:
	if (rc && r->nodes)
		lp_sweep_run_free(r);
	json_decref(root);
	return rc;
}
#else
int lp_sweep_read_json(struct lp_sweep_run *r, const char *path, char *why, size_t why_len)
{
	(void)path;
	memset(r, 0, sizeof(*r));
	snprintf(why, why_len, "built without a JSON library (libjansson-dev)");
	return -ENOTSUP;
}
#endif
