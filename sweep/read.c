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

#include "common/lp.h"
#include "sweep/collrun.h"
#include "sweep/journal.h"

#ifdef LP_HAVE_JANSSON
#include <jansson.h>

/* "nodes[3]: what" */
static int at_index(int rc, const char *what, size_t i, char *why, size_t why_len)
{
	char msg[256];

	if (rc == -EINVAL) {
		snprintf(msg, sizeof(msg), "%s", why);
		snprintf(why, why_len, "%s[%zu].%s", what, i, msg);
	}
	return rc;
}

static int read_metrics(struct lp_sweep_run *r, const json_t *metrics, char *why, size_t why_len)
{
	static const char *const more[] = { "diagnosis", "effects", "error_control", NULL };
	const json_t *v;
	size_t i;

	json_array_foreach(metrics, i, v)
	{
		struct lp_sweep_metric mt = { 0 };
		int rc = lp_record_read_json_more(&lp_sweep_metric_record, &mt, v, more, why,
						  why_len);

		if (rc)
			return at_index(rc, "metrics", i, why, why_len);
		if (lp_sweep_add_metric(r, mt.test, -1, mt.lat, mt.size) < 0) {
			snprintf(why, why_len, "metrics: more than %d", LP_SWEEP_MAX_METRICS);
			return -EINVAL;
		}
	}
	return 0;
}

int lp_sweep_read_head(struct lp_sweep_run *r, const json_t *o, char *why, size_t why_len)
{
	const json_t *run = json_object_get(o, "run"), *nodes = json_object_get(o, "nodes"),
		     *metrics = json_object_get(o, "metrics"), *v;
	struct lp_sweep_run tmp = { 0 };
	size_t i;
	int rc;

	memset(r, 0, sizeof(*r));
	if (!json_is_array(nodes) || !json_is_array(metrics)) {
		snprintf(why, why_len, "no \"nodes\" and \"metrics\" arrays");
		return -EINVAL;
	}
	lp_diag_opts_default(&tmp.dopts); /* what older documents leave out (fp_rate) */
	rc = lp_record_read_json(&lp_sweep_run_record, &tmp, run, why, why_len);
	lp_record_free(&lp_sweep_run_record, &tmp); /* only its node count is wanted here */
	if (rc == -EINVAL) {
		char msg[256];

		snprintf(msg, sizeof(msg), "%s", why);
		snprintf(why, why_len, "run%s%s", msg[0] == 'n' && !run ? ": " : ".", msg);
	}
	if (rc)
		return rc;
	if ((size_t)tmp.n != json_array_size(nodes)) {
		snprintf(why, why_len, "run.nodes says %d, the file holds %zu nodes", tmp.n,
			 json_array_size(nodes));
		return -EINVAL;
	}
	rc = lp_sweep_run_init(r, tmp.n);
	if (!rc)
		rc = lp_record_read_json(&lp_sweep_run_record, r, run, why, why_len);
	json_array_foreach(nodes, i, v)
	{
		if (!rc)
			rc = at_index(lp_record_read_json(&lp_sweep_node_record, &r->nodes[i], v,
							  why, why_len),
				      "nodes", i, why, why_len);
	}
	if (!rc)
		rc = read_metrics(r, metrics, why, why_len);
	if (rc)
		lp_sweep_run_free(r);
	return rc;
}

static int add_attempt(void *obj, size_t row, void *arg)
{
	(void)row;
	return lp_sweep_add_cell(arg, obj);
}

int lp_sweep_read_attempts(struct lp_sweep_run *r, const json_t *cols, char *why, size_t why_len)
{
	struct lp_sweep_cell c, tmpl;
	int rc;

	lp_sweep_cell_init(&tmpl, 0, 0, 0, 0, 0);
	rc = lp_record_read_columns(&lp_sweep_cell_record, 0, cols, SIZE_MAX, &c, &tmpl,
				    add_attempt, r, why, why_len);
	if (rc == -EINVAL && !why[0])
		snprintf(why, why_len, "an attempt's metric or node is out of range");
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
static int block_check(const struct lp_sweep_run *r, const struct lp_sweep_block *blk, char *why,
		       size_t why_len)
{
	if (blk->metric >= r->nmetrics) {
		snprintf(why, why_len, "metric %d: the run has %d", blk->metric, r->nmetrics);
		return -EINVAL;
	}
	for (int k = 0; k < blk->nb; k++)
		if (blk->node[k] < 0 || blk->node[k] >= r->n ||
		    (k && blk->node[k] <= blk->node[k - 1])) {
			snprintf(why, why_len, "nodes: not ascending indices below %d", r->n);
			return -EINVAL;
		}
	return 0;
}

static int read_block(struct lp_sweep_run *r, const json_t *v, char *why, size_t why_len)
{
	static const char *const more[] = { "cells", "sweep", NULL };
	struct lp_sweep_block blk = { 0 };
	struct lp_sweep_cell c, tmpl;
	const json_t *sweep = json_object_get(v, "sweep");
	int rc = lp_record_read_json_more(&lp_sweep_block_record, &blk, v, more, why, why_len);
	size_t nn = (size_t)blk.nb * (size_t)blk.nb;

	lp_sweep_cell_init(&tmpl, 0, -1, -1, 0, 0); /* client and server: from where each sits */
	if (!rc)
		rc = block_check(r, &blk, why, why_len);
	if (!rc && json_is_integer(json_object_get(sweep, "n"))) /* room at once: no doubling */
		rc = lp_sweep_reserve(
			r, LP_MIN((size_t)json_integer_value(json_object_get(sweep, "n")), nn));
	if (!rc)
		rc = lp_record_read_columns(&lp_sweep_cell_record, lp_sweep_block_implied(), sweep,
					    nn, &c, &tmpl, add_block_cell,
					    &(struct block_in){ r, &blk }, why, why_len);
	if (rc == -EINVAL && !why[0])
		snprintf(why, why_len, "sweep: a self pair or a node out of range");
	lp_record_free(&lp_sweep_block_record, &blk);
	return rc;
}

/* Block i of a document (its json), read into the run arg. */
struct blocks_in {
	struct lp_sweep_run *r;
	char *why;
	size_t why_len;
};

static int each_block(const json_t *v, size_t i, void *arg)
{
	struct blocks_in *b = arg;

	return at_index(read_block(b->r, v, b->why, b->why_len), "blocks", i, b->why, b->why_len);
}

/* The blocks: root's "blocks" array, or the span of its text (blocks->p; text the document). */
static int read_blocks(struct lp_sweep_run *r, const json_t *root,
		       const struct lp_sweep_span *blocks, const char *text, char *why,
		       size_t why_len)
{
	struct blocks_in b = { r, why, why_len };
	const json_t *arr = json_object_get(root, "blocks"), *v;
	size_t i;
	int rc = 0;

	if (blocks && blocks->p)
		return lp_sweep_span_each(blocks, text, each_block, &b, why, why_len);
	if (!json_is_array(arr)) {
		snprintf(why, why_len, "no \"blocks\" array");
		return -EINVAL;
	}
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
		     const char *text, char *why, size_t why_len)
{
	int rc = lp_sweep_read_head(r, root, why, why_len);

	if (rc)
		return rc;
	rc = read_blocks(r, root, blocks, text, why, why_len);
	if (!rc)
		rc = lp_sweep_read_attempts(r, json_object_get(root, "attempts"), why, why_len);
	if (!rc)
		rc = lp_sweep_coll_read(r, json_object_get(root, "collectives"));
	if (rc == -EINVAL && !strstr(why, "attempts") && !strstr(why, "blocks"))
		at_index(rc, "attempts", 0, why, why_len);
	if (!rc) /* its errors name their path ("topology.leaf") */
		rc = lp_sweep_topology_read(r, json_object_get(root, "topology"), why, why_len);
	if (rc)
		lp_sweep_run_free(r);
	return rc;
}

static int read_root(struct lp_sweep_run *r, json_t *root, const struct lp_sweep_span *blocks,
		     const char *text, char *why, size_t why_len)
{
	const char *schema = json_string_value(json_object_get(root, "schema"));
	int rc;

	memset(r, 0, sizeof(*r));
	if (schema && !strcmp(schema, LP_SWEEP_SCHEMA))
		rc = read_doc2(r, root, blocks, text, why, why_len);
	else if (schema && !strcmp(schema, LP_SWEEP_SCHEMA_V1))
		rc = lp_sweep_read_doc1(r, root, why, why_len);
	else {
		snprintf(why, why_len, "not an lp-sweep document (schema %s or %s)",
			 LP_SWEEP_SCHEMA, LP_SWEEP_SCHEMA_V1);
		rc = -EINVAL;
	}
	json_decref(root);
	return rc;
}

/*
 * A document read apart (sweep/readspan.c: its blocks one at a time); where
 * the top level does not come apart, the whole tree, so that jansson's own
 * word on a broken file is the error.
 */
static int read_text(struct lp_sweep_run *r, const char *text, size_t len, bool mapped, char *why,
		     size_t why_len)
{
	struct lp_sweep_span blocks;
	json_t *root = NULL;

	memset(r, 0, sizeof(*r));
	why[0] = '\0';
	if (lp_sweep_journal_is(text, len))
		return lp_sweep_journal_parse(r, text, len, NULL, why, why_len);
	if (!lp_sweep_span_root(text, len, &root, &blocks, why, why_len)) {
		blocks.mapped = mapped;
		return read_root(r, root, &blocks, text, why, why_len);
	}
	why[0] = '\0';
	root = lp_record_loadb(text, len, why, why_len);
	return root ? read_root(r, root, NULL, text, why, why_len) : -EINVAL;
}

int lp_sweep_read_text(struct lp_sweep_run *r, const char *text, size_t len, char *why,
		       size_t why_len)
{
	return read_text(r, text, len, false, why, why_len);
}

int lp_sweep_read_mapped(struct lp_sweep_run *r, const char *text, size_t len, char *why,
			 size_t why_len)
{
	return read_text(r, text, len, true, why, why_len);
}
#else
int lp_sweep_read_text(struct lp_sweep_run *r, const char *text, size_t len, char *why,
		       size_t why_len)
{
	(void)text;
	(void)len;
	memset(r, 0, sizeof(*r));
	snprintf(why, why_len, "built without a JSON library (libjansson-dev)");
	return -ENOTSUP;
}

int lp_sweep_read_mapped(struct lp_sweep_run *r, const char *text, size_t len, char *why,
			 size_t why_len)
{
	return lp_sweep_read_text(r, text, len, why, why_len);
}
#endif

int lp_sweep_read_json(struct lp_sweep_run *r, const char *path, char *why, size_t why_len)
{
	return lp_sweep_read_run(r, path, NULL, why, why_len);
}
