// SPDX-License-Identifier: MIT
/*
 * lp-sweep's JSON document (linkperf.sweep/2, docs/schema/README.md) and its
 * JSON Schema, side by side: every member is a record of sweep/records.c (one
 * per node, metric, verdict...) or many records as columns (the cells of a
 * block, the attempts). What is written here is only the document's shape.
 */
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

/* ---- the cells: blocks of resolved values and sweep attempts, then the other attempts ---- */

/* The rows of a block's "sweep" columns and of "attempts": cells of r by index, NULL none. */
struct cell_rows {
	const struct lp_sweep_run *r;
	const size_t *idx; /* per row: a cell index, or SIZE_MAX; NULL: from + row */
	size_t from;
	struct lp_sweep_cell c; /* the row asked for last, unpacked */
};

static const void *cell_row(void *arg, size_t i)
{
	struct cell_rows *cr = arg;
	size_t k = cr->idx ? cr->idx[i] : cr->from + i;

	if (k == SIZE_MAX)
		return NULL;
	lp_sweep_cell_get(cr->r, k, &cr->c);
	return &cr->c;
}

int lp_sweep_cells_json(struct lp_json *j, const struct lp_sweep_run *r, const size_t *idx,
			size_t from, size_t n, uint64_t skip, const char *key)
{
	struct cell_rows *cr = malloc(sizeof(*cr)); /* 1,352 bytes: off the stack */

	if (!cr)
		return -ENOMEM;
	*cr = (struct cell_rows){ .r = r, .idx = idx, .from = from };
	lp_record_json_columns(
		&lp_sweep_cell_record,
		&(struct lp_rec_rows){ .n = n, .get = cell_row, .arg = cr, .skip = skip }, key, j);
	free(cr);
	return 0;
}

/* Block blk's sweep attempt per ordered pair (the first measured), marking the cells taken. */
static void block_sweep(const struct lp_sweep_run *r, const struct lp_sweep_block *blk,
			const int *pos, size_t *idx, uint8_t *taken)
{
	size_t nn = (size_t)blk->nb * blk->nb;

	for (size_t x = 0; x < nn; x++)
		idx[x] = SIZE_MAX;
	for (size_t k = 0; k < r->ncells; k++) {
		const struct lp_sweep_att *c = &r->cells[k];
		size_t x;

		if (c->metric != blk->metric || c->phase != LP_PHASE_SWEEP || pos[c->a] < 0 ||
		    pos[c->b] < 0 || taken[k])
			continue;
		x = (size_t)pos[c->a] * blk->nb + pos[c->b];
		if (idx[x] == SIZE_MAX) {
			idx[x] = k;
			taken[k] = 1;
		}
	}
}

/* What one block's resolved cells need: the block's matrix and the diagnosis's classes. */
struct block_out {
	struct lp_sweep_rcell *rc;
	double *v, *best, *spread;
	uint8_t *fail, *sched, *att;
	size_t *idx;
	int *pos;
};

static void block_out_free(struct block_out *o)
{
	free(o->rc);
	free(o->v);
	free(o->best);
	free(o->spread);
	free(o->fail);
	free(o->sched);
	free(o->att);
	free(o->idx);
	free(o->pos);
}

static int block_out_alloc(struct block_out *o, const struct lp_sweep_run *r, int nb)
{
	size_t nn = (size_t)nb * nb + 1;

	*o = (struct block_out){ malloc(nn * sizeof(*o->rc)),
				 malloc(nn * sizeof(double)),
				 malloc(nn * sizeof(double)),
				 malloc(nn * sizeof(double)),
				 malloc(nn),
				 malloc(nn),
				 malloc(nn),
				 malloc(nn * sizeof(size_t)),
				 malloc(((size_t)r->n + 1) * sizeof(int)) };
	if (o->rc && o->v && o->best && o->spread && o->fail && o->sched && o->att && o->idx &&
	    o->pos)
		return 0;
	block_out_free(o);
	return -ENOMEM;
}

/* The resolved cells of blk: lp_sweep_block_matrix's values, the diagnosis's classes. */
static int block_resolve(const struct lp_sweep_run *r, const struct lp_sweep_block *blk,
			 struct block_out *o)
{
	const struct lp_diag *d = r->diag ? &r->diag[blk->metric] : NULL;
	int rc = lp_sweep_block_matrix(r, blk, o->v, o->fail, o->sched, o->att, o->best, o->spread,
				       NULL);

	for (int a = 0; !rc && a < blk->nb; a++)
		for (int b = 0; b < blk->nb; b++) {
			size_t x = (size_t)a * blk->nb + b;
			size_t g = d ? lp_diag_at(&d->lay, blk->node[a], blk->node[b]) : 0;
			uint8_t cls = d && d->cls   ? d->cls[g]
				      : o->fail[x]  ? LP_CELL_FAIL
				      : o->sched[x] ? LP_CELL_OK
						    : LP_CELL_NONE;

			o->rc[x] = (struct lp_sweep_rcell){ o->v[x], cls, o->att[x], o->spread[x] };
		}
	return rc;
}

static int json_block(struct lp_json *j, const struct lp_sweep_run *r,
		      const struct lp_sweep_block *blk, uint8_t *taken)
{
	size_t nn = (size_t)blk->nb * blk->nb;
	struct block_out o;
	int rc = block_out_alloc(&o, r, blk->nb);

	if (rc)
		return rc;
	for (int i = 0; i < r->n; i++)
		o.pos[i] = -1;
	for (int k = 0; k < blk->nb; k++)
		o.pos[blk->node[k]] = k;
	rc = block_resolve(r, blk, &o);
	if (!rc) {
		block_sweep(r, blk, o.pos, o.idx, taken);
		lp_json_obj_begin(j, NULL);
		lp_record_json(&lp_sweep_block_record, blk, j);
		lp_record_json_columns(
			&lp_sweep_rcell_record,
			&(struct lp_rec_rows){ .n = nn, .base = o.rc, .stride = sizeof(*o.rc) },
			"cells", j);
		rc = lp_sweep_cells_json(j, r, o.idx, 0, nn, lp_sweep_block_implied(), "sweep");
		lp_json_obj_end(j);
	}
	block_out_free(&o);
	return rc;
}

/* "blocks": the resolved cells and sweep attempts per metric (and rail); "attempts": the rest. */
static int json_cells(struct lp_json *j, const struct lp_sweep_run *r)
{
	struct lp_sweep_block *blocks = NULL;
	uint8_t *taken = calloc(r->ncells + 1, 1);
	size_t *rest = malloc((r->ncells + 1) * sizeof(size_t)), nrest = 0;
	int nblocks = 0, rc = taken && rest ? lp_sweep_blocks(r, &blocks, &nblocks) : -ENOMEM;

	lp_json_arr_begin(j, "blocks");
	for (int b = 0; b < nblocks && !rc; b++)
		rc = json_block(j, r, &blocks[b], taken);
	lp_json_arr_end(j);
	for (size_t k = 0; !rc && k < r->ncells; k++)
		if (!taken[k])
			rest[nrest++] = k;
	if (!rc)
		rc = lp_sweep_cells_json(j, r, rest, 0, nrest, 0, "attempts");
	lp_sweep_blocks_free(blocks, nblocks);
	free(taken);
	free(rest);
	return rc;
}

/* ---- the rest of the document ---- */

static void json_metrics(struct lp_json *j, const struct lp_sweep_run *r)
{
	lp_json_arr_begin(j, "metrics");
	for (int m = 0; m < r->nmetrics; m++) {
		const struct lp_diag *d = r->diag ? &r->diag[m] : NULL;

		lp_json_obj_begin(j, NULL);
		lp_record_json(&lp_sweep_metric_record, &r->metrics[m], j);
		if (d) {
			lp_json_obj_begin(j, "diagnosis");
			lp_record_json(&lp_sweep_diag_record, d, j);
			lp_json_obj_end(j);
			lp_json_obj_begin(j, "effects");
			lp_record_json(&lp_sweep_effects_record, d, j);
			lp_json_obj_end(j);
			lp_json_obj_begin(j, "error_control");
			lp_record_json(&lp_sweep_errctl_record, d, j);
			lp_json_obj_end(j);
		} else {
			lp_json_null(j, "diagnosis");
			lp_json_null(j, "effects");
			lp_json_null(j, "error_control");
		}
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);
}

static void json_missing_pair(void *arg, const struct lp_sweep_run *r, int a, int b,
			      const char *labels)
{
	struct lp_sweep_missing ms = { a, b, "" };

	(void)r;
	snprintf(ms.metrics, sizeof(ms.metrics), "%s", labels);
	lp_json_obj_begin(arg, NULL);
	lp_record_json(&lp_sweep_missing_record, &ms, arg);
	lp_json_obj_end(arg);
}

void lp_sweep_json_head(struct lp_json *j, const struct lp_sweep_run *r)
{
	lp_json_str(j, "tool", "lp-sweep");
	lp_json_str(j, "schema", LP_SWEEP_SCHEMA);
	lp_json_obj_begin(j, "method");
	lp_method_json(j);
	lp_json_obj_end(j);
	lp_json_obj_begin(j, "run");
	lp_record_json(&lp_sweep_run_record, r, j);
	lp_json_obj_end(j);
	lp_record_json_array(&lp_sweep_node_record, r->nodes, (size_t)r->n, sizeof(*r->nodes),
			     "nodes", j);
	json_metrics(j, r);
}

void lp_sweep_json_verdicts(struct lp_json *j, const struct lp_sweep_run *r)
{
	lp_record_json_array(&lp_verdict_record, r->verdicts, (size_t)r->nverdicts,
			     sizeof(*r->verdicts), "verdicts", j);
}

/* "counter_nodes": each node's partners with counters read, and those whose pair moved. */
static void json_ctr_nodes(struct lp_json *j, const struct lp_sweep_run *r)
{
	struct lp_sweep_ctr_node *cn = calloc((size_t)r->n + 1, sizeof(*cn));
	size_t n = r->ev.partners && r->ev.moved ? (size_t)r->n : 0;

	for (size_t i = 0; cn && i < n; i++)
		cn[i] = (struct lp_sweep_ctr_node){ r->ev.partners[i], r->ev.moved[i] };
	if (!cn)
		j->err = j->err ? j->err : -ENOMEM;
	else
		lp_record_json_columns(
			&lp_sweep_ctr_node_record,
			&(struct lp_rec_rows){ .n = n, .base = cn, .stride = sizeof(*cn) },
			"counter_nodes", j);
	free(cn);
}

int lp_sweep_write_json_extra(const struct lp_sweep_run *r, FILE *f, int exit_code,
			      void (*extra)(struct lp_json *j, const void *arg), const void *arg)
{
	struct lp_json j;
	int rc;

	lp_json_init(&j, f, true);
	lp_json_obj_begin(&j, NULL);
	lp_sweep_json_head(&j, r);
	lp_sweep_topology_json(&j, r);
	rc = json_cells(&j, r);
	lp_json_arr_begin(&j, "missing");
	lp_sweep_each_missing(r, json_missing_pair, &j);
	lp_json_arr_end(&j);
	lp_sweep_load_json(&j, r);
	lp_sweep_coll_json(&j, r);
	lp_sweep_json_verdicts(&j, r);
	lp_record_json_array(&lp_sweep_ctr_sum_record, r->ev.sums, r->ev.nsums, sizeof(*r->ev.sums),
			     "counter_sums", &j);
	json_ctr_nodes(&j, r);
	if (extra)
		extra(&j, arg);
	lp_json_int(&j, "exit_code", exit_code);
	lp_json_obj_end(&j);
	return rc ? rc : lp_json_finish(&j);
}

int lp_sweep_write_json(const struct lp_sweep_run *r, FILE *f, int exit_code)
{
	return lp_sweep_write_json_extra(r, f, exit_code, NULL, NULL);
}

/* ---- the schema: the same shape, from the same records ---- */

static void schema_rec(struct lp_json *j, const char *key, const struct lp_record *rec,
		       bool nullable)
{
	lp_json_obj_begin(j, key);
	if (nullable) {
		lp_json_arr_begin(j, "anyOf");
		lp_json_obj_begin(j, NULL);
		lp_json_str(j, "type", "null");
		lp_json_obj_end(j);
		lp_json_obj_begin(j, NULL);
	}
	lp_record_schema(rec, j);
	if (nullable) {
		lp_json_obj_end(j);
		lp_json_arr_end(j);
	}
	lp_json_obj_end(j);
}

static void schema_const(struct lp_json *j, const char *key, const char *val)
{
	lp_json_obj_begin(j, key);
	lp_json_str(j, "const", val);
	lp_json_obj_end(j);
}

static void schema_metrics(struct lp_json *j)
{
	lp_record_schema_array_open(&lp_sweep_metric_record, "metrics", j);
	schema_rec(j, "diagnosis", &lp_sweep_diag_record, true);
	schema_rec(j, "effects", &lp_sweep_effects_record, true);
	schema_rec(j, "error_control", &lp_sweep_errctl_record, true);
	lp_record_schema_array_close(
		&lp_sweep_metric_record,
		(const char *const[]){ "diagnosis", "effects", "error_control", NULL }, j);
}

static void schema_blocks(struct lp_json *j)
{
	lp_record_schema_array_open(&lp_sweep_block_record, "blocks", j);
	lp_json_obj_begin(j, "cells");
	lp_json_str(j, "description", "nodes x nodes resolved cells in row order (row = client)");
	lp_record_schema_columns(&lp_sweep_rcell_record, 0, j);
	lp_json_obj_end(j);
	lp_json_obj_begin(j, "sweep");
	lp_json_str(
		j, "description",
		"each ordered pair's sweep attempt (rows: its index in the matrix); metric, client, server and phase implied");
	lp_record_schema_columns(&lp_sweep_cell_record, lp_sweep_block_implied(), j);
	lp_json_obj_end(j);
	lp_record_schema_array_close(&lp_sweep_block_record,
				     (const char *const[]){ "cells", "sweep", NULL }, j);
}

static void schema_body(struct lp_json *j, void (*extra)(struct lp_json *j))
{
	lp_json_obj_begin(j, "properties");
	schema_const(j, "tool", "lp-sweep");
	schema_const(j, "schema", LP_SWEEP_SCHEMA);
	lp_json_obj_begin(j, "method");
	lp_json_str(j, "description", "units, clock and version (common/meta.c)");
	lp_json_str(j, "type", "object");
	lp_json_obj_end(j);
	schema_rec(j, "run", &lp_sweep_run_record, false);
	lp_record_schema_array(&lp_sweep_node_record, "nodes", j);
	schema_metrics(j);
	schema_rec(j, "topology", &lp_sweep_topo_record, true);
	schema_blocks(j);
	lp_json_obj_begin(j, "attempts");
	lp_json_str(
		j, "description",
		"every attempt not in a block's sweep columns: retests, load modes, repeated attempts");
	lp_record_schema_columns(&lp_sweep_cell_record, 0, j);
	lp_json_obj_end(j);
	lp_record_schema_array(&lp_sweep_missing_record, "missing", j);
	lp_sweep_load_schema(j);
	lp_json_obj_begin(j, "collectives");
	lp_json_str(
		j, "description",
		"lp-sweep --collective: results, links, ceilings, verdicts, imports, claims (sweep/collrun.c)");
	lp_json_str(j, "type", "object");
	lp_json_obj_end(j);
	lp_record_schema_array(&lp_verdict_record, "verdicts", j);
	lp_record_schema_array(&lp_sweep_ctr_sum_record, "counter_sums", j);
	lp_json_obj_begin(j, "counter_nodes");
	lp_json_str(j, "description", "per node (entry k: node k; none without counters)");
	lp_record_schema_columns(&lp_sweep_ctr_node_record, 0, j);
	lp_json_obj_end(j);
	if (extra)
		extra(j);
	lp_json_obj_begin(j, "exit_code");
	lp_json_str(j, "type", "integer");
	lp_json_obj_end(j);
	lp_json_obj_end(j);
	lp_json_arr_begin(j, "required");
	for (const char *const *k =
		     (const char *const[]){ "tool", "schema", "method", "run", "nodes", "metrics",
					    "blocks", "attempts", "missing", "verdicts",
					    "counter_sums", "counter_nodes", "exit_code", NULL };
	     *k; k++)
		lp_json_str(j, NULL, *k);
	lp_json_arr_end(j);
	lp_json_bool(j, "additionalProperties", false);
}

int lp_sweep_write_schema_extra(FILE *f, void (*extra)(struct lp_json *j))
{
	struct lp_json j;

	lp_json_init(&j, f, true);
	lp_json_obj_begin(&j, NULL);
	lp_record_schema_head(
		&j, LP_SWEEP_SCHEMA, "lp-sweep document (" LP_SWEEP_SCHEMA ")",
		"generated from the records (lp-judge --schema sweep); docs/schema/README.md describes the tree");
	lp_json_str(&j, "type", "object");
	schema_body(&j, extra);
	lp_json_obj_end(&j);
	return lp_json_finish(&j);
}

int lp_sweep_write_schema(FILE *f)
{
	return lp_sweep_write_schema_extra(f, NULL);
}
