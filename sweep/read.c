// SPDX-License-Identifier: MIT
/*
 * Reading a recorded run back (lp-sweep --diagnose, --resume, baselines): a
 * linkperf.sweep/2 document through the records it was written with, a /1
 * document through records of the old form (sweep/read1.c), a journal
 * (sweep/journal.c) through the same parts. Strict, and bounded by what the
 * file holds: counts are checked against the arrays present before anything
 * is allocated for them.
 */
#include "sweep/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "common/lp.h"
#include "sweep/collrun.h"
#include "sweep/journal.h"

#ifdef LP_HAVE_JANSSON
#include <jansson.h>

/* "nodes[3]: what" */
static int at_index(int rc, const char *what, size_t i, struct lp_fail *f)
{
	if (rc == -EINVAL)
		lp_fail_prefix(f, "%s[%zu].", what, i);
	return rc;
}

static int read_metrics(struct lp_sweep_run *r, const json_t *metrics, struct lp_fail *f)
{
	static const char *const more[] = { "diagnosis", "effects", "error_control", NULL };
	const json_t *v;
	size_t i;

	json_array_foreach(metrics, i, v)
	{
		struct lp_sweep_metric mt = { 0 };
		int rc = lp_record_read_json_more(&lp_sweep_metric_record, &mt, v, more, f);

		if (rc)
			return at_index(rc, "metrics", i, f);
		if (lp_sweep_add_metric(r, mt.test, -1, mt.lat, mt.size) < 0)
			return lp_fail_set(f, -EINVAL, "metrics: more than %d",
					   LP_SWEEP_MAX_METRICS);
	}
	return 0;
}

int lp_sweep_read_head(struct lp_sweep_run *r, const json_t *o, struct lp_fail *f)
{
	const json_t *run = json_object_get(o, "run"), *nodes = json_object_get(o, "nodes"),
		     *metrics = json_object_get(o, "metrics"), *v;
	struct lp_sweep_run tmp = { 0 };
	size_t i;
	int rc;

	memset(r, 0, sizeof(*r));
	if (!json_is_array(nodes) || !json_is_array(metrics))
		return lp_fail_set(f, -EINVAL, "no \"nodes\" and \"metrics\" arrays");
	lp_diag_opts_default(&tmp.dopts); /* what older documents leave out (fp_rate) */
	rc = lp_record_read_json(&lp_sweep_run_record, &tmp, run, f);
	lp_record_free(&lp_sweep_run_record, &tmp); /* only its node count is wanted here */
	if (rc == -EINVAL)
		lp_fail_prefix(f, "run%s", lp_fail_msg(f)[0] == 'n' && !run ? ": " : ".");
	if (rc)
		return rc;
	if ((size_t)tmp.n != json_array_size(nodes))
		return lp_fail_set(f, -EINVAL, "run.nodes says %d, the file holds %zu nodes", tmp.n,
				   json_array_size(nodes));
	rc = lp_sweep_run_init(r, tmp.n);
	if (!rc)
		rc = lp_record_read_json(&lp_sweep_run_record, r, run, f);
	json_array_foreach(nodes, i, v)
	{
		if (!rc)
			rc = at_index(lp_record_read_json(&lp_sweep_node_record, &r->nodes[i], v,
							  f),
				      "nodes", i, f);
	}
	if (!rc)
		rc = read_metrics(r, metrics, f);
	if (rc)
		lp_sweep_run_free(r);
	return rc;
}

static int add_attempt(void *obj, size_t row, void *arg)
{
	(void)row;
	return lp_sweep_add_cell(arg, obj);
}

int lp_sweep_read_attempts(struct lp_sweep_run *r, const json_t *cols, struct lp_fail *f)
{
	struct lp_sweep_cell c, tmpl;
	int rc;

	lp_sweep_cell_init(&tmpl, 0, 0, 0, 0, 0);
	rc = lp_record_read_columns(&lp_sweep_cell_record, 0, cols, SIZE_MAX, &c, &tmpl,
				    add_attempt, r, f);
	if (rc == -EINVAL) /* add_attempt's refusal has no words of its own */
		lp_fail_set(f, rc, "an attempt's metric or node is out of range");
	return rc;
}

/* One block's sweep attempts: their metric, client, server and phase from where they sit. */
struct block_in {
	struct lp_sweep_run *r;
	const struct lp_sweep_block *blk;
};

static int add_block_cell(void *obj, size_t row, void *arg)
{
	const struct block_in *bi = arg;
	struct lp_sweep_cell *c = obj;

	c->metric = bi->blk->metric;
	c->phase = LP_PHASE_SWEEP;
	c->a = bi->blk->node[row / (size_t)bi->blk->nb];
	c->b = bi->blk->node[row % (size_t)bi->blk->nb];
	return c->a == c->b ? -EINVAL : lp_sweep_add_cell(bi->r, c);
}

/* The block's node list: indices of r's nodes, ascending (so each appears once). */
static int block_check(const struct lp_sweep_run *r, const struct lp_sweep_block *blk,
		       struct lp_fail *f)
{
	if (blk->metric >= r->nmetrics)
		return lp_fail_set(f, -EINVAL, "metric %d: the run has %d", blk->metric,
				   r->nmetrics);
	for (int k = 0; k < blk->nb; k++)
		if (blk->node[k] < 0 || blk->node[k] >= r->n ||
		    (k && blk->node[k] <= blk->node[k - 1]))
			return lp_fail_set(f, -EINVAL, "nodes: not ascending indices below %d",
					   r->n);
	return 0;
}

static int read_block(struct lp_sweep_run *r, const json_t *v, struct lp_fail *f)
{
	static const char *const more[] = { "cells", "sweep", NULL };
	struct lp_sweep_block blk = { 0 };
	struct lp_sweep_cell c, tmpl;
	const json_t *sweep = json_object_get(v, "sweep");
	int rc = lp_record_read_json_more(&lp_sweep_block_record, &blk, v, more, f);
	size_t nn = (size_t)blk.nb * (size_t)blk.nb;

	lp_sweep_cell_init(&tmpl, 0, -1, -1, 0, 0); /* client and server: from where each sits */
	if (!rc)
		rc = block_check(r, &blk, f);
	if (!rc && json_is_integer(json_object_get(sweep, "n"))) /* room at once: no doubling */
		rc = lp_sweep_reserve(
			r, LP_MIN((size_t)json_integer_value(json_object_get(sweep, "n")), nn));
	if (!rc)
		rc = lp_record_read_columns(&lp_sweep_cell_record, lp_sweep_block_implied(), sweep,
					    nn, &c, &tmpl, add_block_cell,
					    &(struct block_in){ r, &blk }, f);
	if (rc == -EINVAL) /* add_block_cell's refusal has no words of its own */
		lp_fail_set(f, rc, "sweep: a self pair or a node out of range");
	lp_record_free(&lp_sweep_block_record, &blk);
	return rc;
}

/* Block i of a document (its json), read into the run arg. */
struct blocks_in {
	struct lp_sweep_run *r;
	struct lp_fail *f;
};

static int each_block(const json_t *v, size_t i, void *arg)
{
	struct blocks_in *b = arg;

	return at_index(read_block(b->r, v, b->f), "blocks", i, b->f);
}

/* The blocks: root's "blocks" array, or the span of its text (blocks->p; text the document). */
static int read_blocks(struct lp_sweep_run *r, const json_t *root,
		       const struct lp_sweep_span *blocks, const char *text, struct lp_fail *f)
{
	struct blocks_in b = { r, f };
	const json_t *arr = json_object_get(root, "blocks"), *v;
	size_t i;
	int rc = 0;

	if (blocks && blocks->p)
		return lp_sweep_span_each(blocks, text, each_block, &b, f);
	if (!json_is_array(arr))
		return lp_fail_set(f, -EINVAL, "no \"blocks\" array");
	json_array_foreach(arr, i, v)
	{
		if (!rc)
			rc = each_block(v, i, &b);
	}
	return rc;
}

/*
 * A linkperf.sweep/2 document's run: its head, blocks and attempts (the rest
 * is derived); the blocks in root, or apart (blocks, a span of text).
 */
static int read_doc2(struct lp_sweep_run *r, const json_t *root, const struct lp_sweep_span *blocks,
		     const char *text, struct lp_fail *f)
{
	int rc = lp_sweep_read_head(r, root, f);

	if (rc)
		return rc;
	rc = read_blocks(r, root, blocks, text, f);
	if (!rc)
		rc = lp_sweep_read_attempts(r, json_object_get(root, "attempts"), f);
	if (!rc)
		rc = lp_sweep_coll_read(r, json_object_get(root, "collectives"));
	if (rc == -EINVAL && !strstr(lp_fail_msg(f), "attempts") &&
	    !strstr(lp_fail_msg(f), "blocks"))
		at_index(rc, "attempts", 0, f);
	if (!rc) /* its errors name their path ("topology.leaf") */
		rc = lp_sweep_topology_read(r, json_object_get(root, "topology"), f);
	if (rc)
		lp_sweep_run_free(r);
	return rc;
}

static int read_root(struct lp_sweep_run *r, json_t *root, const struct lp_sweep_span *blocks,
		     const char *text, struct lp_fail *f)
{
	const char *schema = json_string_value(json_object_get(root, "schema"));
	int rc;

	memset(r, 0, sizeof(*r));
	if (schema && !strcmp(schema, LP_SWEEP_SCHEMA))
		rc = read_doc2(r, root, blocks, text, f);
	else if (schema && !strcmp(schema, LP_SWEEP_SCHEMA_V1))
		rc = lp_sweep_read_doc1(r, root, f);
	else
		rc = lp_fail_set(f, -EINVAL, "not an lp-sweep document (schema %s or %s)",
				 LP_SWEEP_SCHEMA, LP_SWEEP_SCHEMA_V1);
	json_decref(root);
	return rc;
}

/*
 * A document read apart (sweep/readspan.c: its blocks one at a time); where
 * the top level does not come apart, the whole tree, so that jansson's own
 * word on a broken file is the error.
 */
static int read_text(struct lp_sweep_run *r, const char *text, size_t len, bool mapped,
		     struct lp_fail *f)
{
	struct lp_sweep_span blocks;
	json_t *root = NULL;

	memset(r, 0, sizeof(*r));
	if (lp_sweep_journal_is(text, len))
		return lp_sweep_journal_parse(r, text, len, NULL, f);
	/* where the top level does not come apart, its cause is not the file's: jansson says */
	if (!lp_sweep_span_root(text, len, mapped, &root, &blocks, &(struct lp_fail){ 0 }))
		return read_root(r, root, &blocks, text, f);
	root = lp_record_loadb(text, len, f);
	return root ? read_root(r, root, NULL, text, f) : -EINVAL;
}

int lp_sweep_read_text(struct lp_sweep_run *r, const char *text, size_t len, struct lp_fail *f)
{
	return read_text(r, text, len, false, f);
}

int lp_sweep_read_mapped(struct lp_sweep_run *r, const char *text, size_t len, struct lp_fail *f)
{
	return read_text(r, text, len, true, f);
}
#else
int lp_sweep_read_text(struct lp_sweep_run *r, const char *text, size_t len, struct lp_fail *f)
{
	(void)text;
	(void)len;
	memset(r, 0, sizeof(*r));
	return lp_fail_set(f, -ENOTSUP, "built without a JSON library (libjansson-dev)");
}

int lp_sweep_read_mapped(struct lp_sweep_run *r, const char *text, size_t len, struct lp_fail *f)
{
	return lp_sweep_read_text(r, text, len, f);
}
#endif

int lp_sweep_read_json(struct lp_sweep_run *r, const char *path, struct lp_fail *f)
{
	return lp_sweep_read_run(r, path, NULL, f);
}
