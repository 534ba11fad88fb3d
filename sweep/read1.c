// SPDX-License-Identifier: MIT
/*
 * linkperf.sweep/1 documents (lp-sweep 0.1 and 0.2), read through records of
 * their form: one object per cell, the node's port flattened into it, the
 * schedule and the load options in objects of their own. Read only: lp-sweep
 * writes /2.
 */
#include "sweep/internal.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "rdma/counters.h"
#include "sweep/load.h"

#ifdef LP_HAVE_JANSSON
#include <jansson.h>

static const char *const kind_names[] = { "bandwidth", "latency", NULL };

/* clang-format off */
static const struct lp_record node1_record = LP_RECORD_LEGACY(struct lp_sweep_node,
	LP_REC_I32(struct lp_sweep_node, rank),
	LP_REC_I32(struct lp_sweep_node, rail),
	LP_REC_STR(struct lp_sweep_node, host),
	LP_REC_STR(struct lp_sweep_node, name),
	LP_REC_I32(struct lp_sweep_node, status),
	LP_REC_STR(struct lp_sweep_node, error, LP_REC_NULL),
	LP_REC_STR(struct lp_sweep_node, dev.name, LP_REC_KEY("device"), LP_REC_NULL),
	LP_REC_I32(struct lp_sweep_node, dev.port, LP_REC_KEY("port")),
	LP_REC_STR(struct lp_sweep_node, dev.link_layer, LP_REC_KEY("link_layer"), LP_REC_NULL),
	LP_REC_F64(struct lp_sweep_node, dev.rate_gbps, LP_REC_KEY("rate_gbps")),
	LP_REC_STR(struct lp_sweep_node, dev.speed, LP_REC_KEY("speed"), LP_REC_NULL),
	LP_REC_U32(struct lp_sweep_node, dev.width, LP_REC_KEY("width")),
	LP_REC_STR(struct lp_sweep_node, dev.gid_type, LP_REC_KEY("gid_type"), LP_REC_NULL),
	LP_REC_STR(struct lp_sweep_node, dev.gid, LP_REC_KEY("gid"), LP_REC_NULL),
	LP_REC_I32(struct lp_sweep_node, dev.gid_index, LP_REC_KEY("gid_index")),
	LP_REC_U32(struct lp_sweep_node, dev.active_mtu, LP_REC_KEY("mtu")),
	LP_REC_STR(struct lp_sweep_node, dev.fw, LP_REC_KEY("firmware"), LP_REC_NULL),
	LP_REC_STR(struct lp_sweep_node, dev.netdev, LP_REC_KEY("netdev"), LP_REC_NULL),
	LP_REC_I32(struct lp_sweep_node, dev.numa_node, LP_REC_KEY("numa_node")),
	LP_REC_STR(struct lp_sweep_node, mem),
	LP_REC_STR(struct lp_sweep_node, gpu_bdf, LP_REC_FLAGS(LP_REC_F_NULL | LP_REC_F_OPTIONAL)),
	LP_REC_STR(struct lp_sweep_node, gpu_nic, LP_REC_KEY("gpu_nic_distance"), LP_REC_FLAGS(LP_REC_F_NULL | LP_REC_F_OPTIONAL)),
	LP_REC_STR(struct lp_sweep_node, kernel, LP_REC_FLAGS(LP_REC_F_NULL | LP_REC_F_OPTIONAL)));

static const struct lp_record metric1_record = LP_RECORD_LEGACY(struct lp_sweep_metric,
	LP_REC_STR(struct lp_sweep_metric, test),
	LP_REC_U64(struct lp_sweep_metric, size),
	LP_REC_ENUM(struct lp_sweep_metric, lat, kind_names, LP_REC_KEY("kind")));

static const struct lp_record lat1_record = LP_RECORD_LEGACY(struct lp_sweep_cell,
	LP_REC_U64(struct lp_sweep_cell, lat.n, LP_REC_KEY("n")),
	LP_REC_BOOL(struct lp_sweep_cell, halved, LP_REC_KEY("one_way_is_rtt_half")),
	LP_REC_F64(struct lp_sweep_cell, lat.min, LP_REC_KEY("min")),
	LP_REC_F64(struct lp_sweep_cell, lat.p50, LP_REC_KEY("p50")),
	LP_REC_F64(struct lp_sweep_cell, lat.p90, LP_REC_KEY("p90")),
	LP_REC_F64(struct lp_sweep_cell, lat.p99, LP_REC_KEY("p99")),
	LP_REC_F64(struct lp_sweep_cell, lat.p999, LP_REC_KEY("p999")),
	LP_REC_F64(struct lp_sweep_cell, lat.max, LP_REC_KEY("max")),
	LP_REC_F64(struct lp_sweep_cell, lat.mean, LP_REC_KEY("mean")),
	LP_REC_F64(struct lp_sweep_cell, lat.stdev, LP_REC_KEY("stdev")));

static const struct lp_record bw1_record = LP_RECORD_LEGACY(struct lp_sweep_cell,
	LP_REC_F64(struct lp_sweep_cell, gbytes_s),
	LP_REC_F64(struct lp_sweep_cell, gbits_s),
	LP_REC_F64(struct lp_sweep_cell, mmsg_s),
	LP_REC_F64(struct lp_sweep_cell, pct_link));

static const struct lp_record counter1_record = LP_RECORD_LEGACY(struct lp_counter,
	LP_REC_STR(struct lp_counter, name),
	LP_REC_ENUM(struct lp_counter, src, lp_ctr_src_names, LP_REC_KEY("source")),
	LP_REC_U64(struct lp_counter, value, LP_REC_KEY("delta")),
	LP_REC_BOOL(struct lp_counter, reset, LP_REC_OPTIONAL));

static const struct lp_record end1_record = LP_RECORD_LEGACY(struct lp_sweep_ctr_end,
	LP_REC_BOOL(struct lp_sweep_ctr_end, valid, LP_REC_FLAGS(LP_REC_F_MARK)),
	LP_REC_U32(struct lp_sweep_ctr_end, more, LP_REC_KEY("omitted")),
	LP_REC_U32(struct lp_sweep_ctr_end, n, LP_REC_RANGE(0, LP_SWEEP_CELL_CTR), LP_REC_NOJSON),
	LP_REC_ARRAY_NEST(struct lp_sweep_ctr_end, c, n, counter1_record, LP_REC_KEY("moved")));

static const struct lp_record counters1_record = LP_RECORD_LEGACY(struct lp_sweep_cell,
	LP_REC_NEST(struct lp_sweep_cell, ctr_client, end1_record, LP_REC_KEY("client"), LP_REC_NULL),
	LP_REC_NEST(struct lp_sweep_cell, ctr_server, end1_record, LP_REC_KEY("server"), LP_REC_NULL));

static const struct lp_record cell1_record = LP_RECORD_LEGACY(struct lp_sweep_cell,
	LP_REC_I32(struct lp_sweep_cell, metric, LP_REC_RANGE(0, LP_SWEEP_MAX_METRICS - 1)),
	LP_REC_I32(struct lp_sweep_cell, a, LP_REC_RANGE(0, INT32_MAX), LP_REC_KEY("client")),
	LP_REC_I32(struct lp_sweep_cell, b, LP_REC_RANGE(0, INT32_MAX), LP_REC_KEY("server")),
	LP_REC_ENUM(struct lp_sweep_cell, phase, lp_sweep_phase_names),
	LP_REC_I32(struct lp_sweep_cell, round),
	LP_REC_I32(struct lp_sweep_cell, attempt, LP_REC_RANGE(1, INT32_MAX), LP_REC_OPTIONAL),
	LP_REC_I32(struct lp_sweep_cell, status),
	LP_REC_STR(struct lp_sweep_cell, error, LP_REC_NULL),
	LP_REC_F64(struct lp_sweep_cell, value),
	LP_REC_F64(struct lp_sweep_cell, wall_s),
	LP_REC_U64(struct lp_sweep_cell, iters),
	LP_REC_F64(struct lp_sweep_cell, ival_min, LP_REC_KEY("interval_min"), LP_REC_OPTIONAL),
	LP_REC_F64(struct lp_sweep_cell, ival_max, LP_REC_KEY("interval_max"), LP_REC_OPTIONAL),
	LP_REC_INLINE(struct lp_sweep_cell, "latency_us", lat1_record, LP_REC_OPTIONAL),
	LP_REC_INLINE(struct lp_sweep_cell, "bandwidth", bw1_record, LP_REC_OPTIONAL),
	LP_REC_INLINE(struct lp_sweep_cell, "counters", counters1_record, LP_REC_OPTIONAL));

static const struct lp_record diag1_record = LP_RECORD_LEGACY(struct lp_sweep_run,
	LP_REC_F64(struct lp_sweep_run, dopts.k, LP_REC_KEY("k_mad")),
	LP_REC_F64(struct lp_sweep_run, dopts.rel, LP_REC_KEY("rel")),
	LP_REC_F64(struct lp_sweep_run, dopts.rel_max, LP_REC_KEY("rel_max")),
	LP_REC_F64(struct lp_sweep_run, dopts.vote, LP_REC_KEY("vote")),
	LP_REC_F64(struct lp_sweep_run, dopts.min_gbps, LP_REC_KEY("min_gbps")),
	LP_REC_F64(struct lp_sweep_run, dopts.max_lat_us, LP_REC_KEY("max_lat_us")),
	LP_REC_F64(struct lp_sweep_run, dopts.min_errors, LP_REC_KEY("min_errors"), LP_REC_OPTIONAL),
	LP_REC_F64(struct lp_sweep_run, dopts.impact_max, LP_REC_KEY("impact_max"), LP_REC_OPTIONAL),
	LP_REC_F64(struct lp_sweep_run, dopts.fair_min, LP_REC_KEY("fair_min"), LP_REC_OPTIONAL),
	LP_REC_I32(struct lp_sweep_run, retest_max),
	LP_REC_I32(struct lp_sweep_run, retest_rounds));

static const struct lp_record run1_record = LP_RECORD_LEGACY(struct lp_sweep_run,
	LP_REC_STR(struct lp_sweep_run, started),
	LP_REC_BOOL(struct lp_sweep_run, interrupted, LP_REC_OPTIONAL),
	LP_REC_BOOL(struct lp_sweep_run, incomplete, LP_REC_OPTIONAL),
	LP_REC_I32(struct lp_sweep_run, attempt, LP_REC_RANGE(1, INT32_MAX), LP_REC_OPTIONAL),
	LP_REC_STR(struct lp_sweep_run, resumed, LP_REC_KEY("resumed_from"), LP_REC_FLAGS(LP_REC_F_NULL | LP_REC_F_OPTIONAL)),
	LP_REC_F64(struct lp_sweep_run, wall_s),
	LP_REC_F64(struct lp_sweep_run, sweep_s),
	LP_REC_F64(struct lp_sweep_run, retest_s),
	LP_REC_F64(struct lp_sweep_run, load_s, LP_REC_OPTIONAL),
	LP_REC_I32(struct lp_sweep_run, n, LP_REC_RANGE(1, LP_SWEEP_MAX_NODES), LP_REC_KEY("nodes")),
	LP_REC_I32(struct lp_sweep_run, rails),
	LP_REC_F64(struct lp_sweep_run, pair_timeout_s),
	LP_REC_U64(struct lp_sweep_run, bw_iters),
	LP_REC_U64(struct lp_sweep_run, lat_iters),
	LP_REC_U64(struct lp_sweep_run, nretests, LP_REC_KEY("retests")),
	LP_REC_INLINE(struct lp_sweep_run, "diagnosis", diag1_record));

static const struct lp_record schedule1_record = LP_RECORD_LEGACY(struct lp_sweep_run,
	LP_REC_NAME(struct lp_sweep_run, sched_name, lp_sched_names, LP_REC_KEY("kind")),
	LP_REC_I32(struct lp_sweep_run, random_k),
	LP_REC_U64(struct lp_sweep_run, seed),
	LP_REC_U64(struct lp_sweep_run, rounds, LP_REC_OPTIONAL));

static const struct lp_record load1_record = LP_RECORD_LEGACY(struct lp_sweep_run,
	LP_REC_NAME(struct lp_sweep_run, load, lp_sweep_load_names, LP_REC_KEY("modes"), LP_REC_NULL),
	LP_REC_F64(struct lp_sweep_run, load_time_s, LP_REC_KEY("time_s")),
	LP_REC_I32(struct lp_sweep_run, incast_k));

/* The run's own members: how it ran, and its optional load options. */
static const struct lp_record doc1_record = LP_RECORD_LEGACY(struct lp_sweep_run,
	LP_REC_INLINE(struct lp_sweep_run, "run", run1_record),
	LP_REC_INLINE(struct lp_sweep_run, "schedule", schedule1_record),
	LP_REC_INLINE(struct lp_sweep_run, "load", load1_record, LP_REC_OPTIONAL));
/* clang-format on */

/* /1 wrote null for "none" where /2 writes 0. */
static void doc1_defaults(struct lp_sweep_run *r)
{
	if (!isfinite(r->dopts.min_gbps))
		r->dopts.min_gbps = 0;
	if (!isfinite(r->dopts.max_lat_us))
		r->dopts.max_lat_us = 0;
	if (!isfinite(r->load_time_s))
		r->load_time_s = 0;
	for (int i = 0; i < r->n; i++)
		if (!isfinite(r->nodes[i].dev.rate_gbps))
			r->nodes[i].dev.rate_gbps = 0;
}

static int read_cells1(struct lp_sweep_run *r, const json_t *cells, struct lp_fail *f);

int lp_sweep_read_doc1(struct lp_sweep_run *r, const json_t *root, struct lp_fail *f)
{
	const json_t *nodes = json_object_get(root, "nodes"),
		     *metrics = json_object_get(root, "metrics");
	struct lp_sweep_run tmp = { 0 };
	const json_t *v;
	size_t i;
	int rc;

	memset(r, 0, sizeof(*r));
	lp_diag_opts_default(&tmp.dopts);
	rc = lp_record_read_json(&doc1_record, &tmp, root, f);
	if (!rc && (!json_is_array(nodes) || (size_t)tmp.n != json_array_size(nodes) ||
		    !json_is_array(metrics)))
		rc = lp_fail_set(f, -EINVAL, "run.nodes says %d, the file holds %zu nodes", tmp.n,
				 json_array_size(nodes));
	if (!rc && (rc = lp_sweep_run_init(r, tmp.n)) == 0) {
		lp_diag_opts_default(&r->dopts);
		rc = lp_record_read_json(&doc1_record, r, root, f);
	}
	json_array_foreach(nodes, i, v)
	{
		if (!rc)
			rc = lp_record_read_json(&node1_record, &r->nodes[i], v, f);
	}
	json_array_foreach(metrics, i, v)
	{
		struct lp_sweep_metric mt = { 0 };

		if (!rc)
			rc = lp_record_read_json(&metric1_record, &mt, v, f);
		if (!rc && lp_sweep_add_metric(r, mt.test, -1, mt.lat, mt.size) < 0)
			rc = lp_fail_set(f, -EINVAL, "metrics: more than %d", LP_SWEEP_MAX_METRICS);
	}
	if (!rc)
		rc = read_cells1(r, json_object_get(root, "cells"), f);
	if (!rc)
		doc1_defaults(r);
	else if (r->nodes)
		lp_sweep_run_free(r);
	return rc;
}

static int read_cells1(struct lp_sweep_run *r, const json_t *cells, struct lp_fail *f)
{
	const json_t *v;
	size_t i;

	if (!json_is_array(cells))
		return lp_fail_set(f, -EINVAL, "no \"cells\" array");
	json_array_foreach(cells, i, v)
	{
		struct lp_sweep_cell c;
		int rc;

		lp_sweep_cell_init(&c, 0, 0, 0, 0, 0);
		rc = lp_record_read_json(&cell1_record, &c, v, f);
		if (!rc && c.a == c.b)
			rc = lp_fail_set(f, -EINVAL, "client == server (%d): a self pair", c.a);
		if (!rc && lp_sweep_add_cell(r, &c))
			rc = lp_fail_set(f, -EINVAL, "metric or node out of range");
		if (rc) {
			lp_fail_wrap(f, "cells[%zu]", i);
			return rc;
		}
	}
	return 0;
}
#endif
