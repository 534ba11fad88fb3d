// SPDX-License-Identifier: MIT
/*
 * Documents: the cells of any linkperf JSON document (lp-rdma, lp-gpu, lp-sweep), and a run
 * judged through its own document, so that a live run, a baseline and lp-report all see the
 * same cells under the same names.
 */
#include "qual/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "common/fail.h"
#include "common/record.h"
#include "gpu/doc.h"
#include "qual/node.h"
#ifdef LP_HAVE_VERBS
#include "rdma/doc.h"
#include "sweep/result.h"
#endif

#ifdef LP_HAVE_JANSSON
#include <jansson.h>

/* The number at a "a.b.c" path below o; NaN when any step is missing (or JSON null). */
static double num_at(const json_t *o, const char *path)
{
	char key[64];

	while (o && *path) {
		size_t n = strcspn(path, ".");

		snprintf(key, sizeof(key), "%.*s", (int)n, path);
		o = json_object_get(o, key);
		path += n + (path[n] == '.');
	}
	return json_is_number(o) ? json_number_value(o) : NAN;
}

static const char *str_at(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* Growable cell array; an allocation failure sticks in err (the readers return it). */
struct cellv {
	struct lp_qual_cell *v;
	size_t n, cap;
	int err;
};

static void cell_add(struct cellv *cv, const char *test, uint64_t size, const char *pair,
		     enum lp_qual_kind kind, double value, double spread, double ceiling)
{
	if (cv->n == cv->cap) {
		size_t cap = cv->cap ? 2 * cv->cap : 64;
		struct lp_qual_cell *v = cv->err ? NULL : realloc(cv->v, cap * sizeof(*v));

		if (!v) {
			cv->err = -ENOMEM;
			return;
		}
		cv->v = v;
		cv->cap = cap;
	}
	lp_qual_cell_set(&cv->v[cv->n++], test, size, pair, kind, value, spread, ceiling);
}

/* The bandwidth directions of an lp-rdma run: one way, or each direction and the sum. */
static const char *const rdma_dirs[][2] = { { "bandwidth", "" },
					    { "client_to_server", "client->server" },
					    { "server_to_client", "server->client" },
					    { "sum", "sum" } };

/* linkperf.rdma/1 (lp-rdma 0.1, no "schema" member): read by path, as it was written. */
static int rdma1_cells(const json_t *doc, struct cellv *cv)
{
	size_t i;
	json_t *r;

	json_array_foreach(json_object_get(doc, "results"), i, r)
	{
		const char *test = str_at(r, "test");
		uint64_t size = (uint64_t)num_at(r, "size");
		double ceil = num_at(r, "link_rate_gbps") / 8;
		bool ok = !strcmp(str_at(r, "status"), "ok");

		if (strstr(test, "_lat")) {
			cell_add(cv, test, size, "", LP_QUAL_LAT,
				 ok ? num_at(r, "latency_us.p50") : NAN,
				 num_at(r, "latency_us.stdev"), 0);
			if (!cv->err &&
			    isfinite(num_at(r, "gpu_poll.sides"))) /* GPU memory's notification */
				cv->v[cv->n - 1].allowance = lp_qual_gpu_allowance_us(
					(unsigned)num_at(r, "gpu_poll.sides"),
					num_at(r, "gpu_poll.notification_us"));
			continue;
		}
		for (size_t d = 0; d < LP_ARRAY_SIZE(rdma_dirs); d++) {
			char key[64];

			snprintf(key, sizeof(key), "%s.gbytes_per_s", rdma_dirs[d][0]);
			if (ok ? isfinite(num_at(r, key)) : d == 0)
				cell_add(cv, test, size, rdma_dirs[d][1], LP_QUAL_BW,
					 ok ? num_at(r, key) : NAN, 0, d == 3 ? 2 * ceil : ceil);
		}
	}
	return cv->err;
}

#ifdef LP_HAVE_VERBS
/* One run of a linkperf.rdma/2 document: its latency, or each bandwidth direction it has. */
static void rdma2_result(const struct lp_rdma_doc_result *r, struct cellv *cv)
{
	const struct lp_rdma_doc_bw *bw[] = { &r->bw, &r->bw, &r->reverse, NULL };
	bool has[] = { r->one_way, r->both_ways, r->both_ways, r->both_ways };
	double ceil = r->link_rate_gbps / 8;

	if (strstr(r->head.test, "_lat")) {
		cell_add(cv, r->head.test, r->head.size, "", LP_QUAL_LAT,
			 r->is_lat ? r->lat.latency_us.p50 : NAN,
			 r->is_lat ? r->lat.latency_us.stdev : NAN, 0);
		if (!cv->err && r->has_gpu_poll) /* GPU memory's notification (qual/node.h) */
			cv->v[cv->n - 1].allowance = lp_qual_gpu_allowance_us(
				r->gpu_poll.sides, r->gpu_poll.notification_us);
		return;
	}
	if (r->failed) {
		cell_add(cv, r->head.test, r->head.size, "", LP_QUAL_BW, NAN, 0, NAN);
		return;
	}
	for (size_t d = 0; d < LP_ARRAY_SIZE(rdma_dirs); d++)
		if (has[d])
			cell_add(cv, r->head.test, r->head.size, rdma_dirs[d][1], LP_QUAL_BW,
				 bw[d] ? bw[d]->gbytes_per_s : r->sum.gbytes_per_s, 0,
				 d == 3 ? 2 * ceil : ceil);
}
#endif

/* lp-rdma: linkperf.rdma/2 through its records (rdma/doc.h), one cell per run and direction. */
static int rdma_cells(const json_t *doc, const char *name, struct cellv *cv, struct lp_fail *f)
{
#ifndef LP_HAVE_VERBS
	(void)cv;
	return lp_fail_set(f, -EOPNOTSUPP,
			   "%s: lp-rdma documents need a build with rdma-core (libibverbs-dev)",
			   name);
#else
	struct lp_rdma_doc *d;
	struct lp_fail why = { 0 };
	int err;

	if (!json_object_get(doc, "schema"))
		return rdma1_cells(doc, cv);
	d = calloc(1, sizeof(*d));
	err = d ? lp_record_read_json_more(&lp_rdma_doc_record, d, doc, lp_rdma_doc_more, &why)
		: -ENOMEM;
	if (err == -EINVAL)
		lp_fail_set(f, err, "%s: not an lp-rdma document (%s): %s", name,
			    LP_RDMA_DOC_SCHEMA, lp_fail_msg(&why));
	for (uint32_t i = 0; !err && i < d->nresults; i++)
		rdma2_result(&d->results[i], cv);
	if (d)
		lp_rdma_doc_free(d);
	free(d);
	return err ? err : cv->err;
#endif
}

/* One lp-gpu cell: "to<-from", the series' label unless it is the value. */
static void gpu_cell(struct cellv *cv, const char *test, uint64_t size, const char *unit,
		     const char *label, const char *to, const char *from, bool ok, double median,
		     double min, double max, double ceiling)
{
	bool lat = !strcmp(unit, "ns") || !strcmp(unit, "us");
	double scale = !strcmp(unit, "ns") ? 1e-3 : 1;
	char pair[LP_QUAL_PAIR];

	snprintf(pair, sizeof(pair), "%s<-%s%s%s", to, from, strcmp(label, "value") ? " " : "",
		 strcmp(label, "value") ? label : "");
	cell_add(cv, test, size, pair, lat ? LP_QUAL_LAT : LP_QUAL_BW, ok ? median * scale : NAN,
		 (max - min) / 2 * scale, ceiling);
}

/* lp-gpu's linkperf.gpu/1 (row <- column, no "schema" member): read by path, as it was written. */
static int gpu1_cells(const json_t *doc, struct cellv *cv)
{
	size_t i, k, m;
	json_t *r, *s, *c;

	json_array_foreach(json_object_get(doc, "results"), i, r)
	{
		json_array_foreach(json_object_get(r, "series"), k, s)
		{
			json_array_foreach(json_object_get(s, "cells"), m, c)
				gpu_cell(cv, str_at(r, "test"), (uint64_t)num_at(r, "size"),
					 str_at(r, "unit"), str_at(s, "label"), str_at(c, "row"),
					 str_at(c, "column"), !strcmp(str_at(c, "status"), "ok"),
					 num_at(c, "median"), num_at(c, "min"), num_at(c, "max"),
					 num_at(c, "ceiling"));
		}
	}
	return cv->err;
}

/* lp-gpu: linkperf.gpu/2 through its records (gpu/doc.h), each series' cells from and to. */
static int gpu_cells(const json_t *doc, const char *name, struct cellv *cv, struct lp_fail *f)
{
	struct lp_gpu_doc *d;
	struct lp_fail why = { 0 };
	int err;

	if (!json_object_get(doc, "schema"))
		return gpu1_cells(doc, cv);
	d = calloc(1, sizeof(*d));
	err = d ? lp_record_read_json_more(&lp_gpu_doc_record, d, doc, lp_gpu_doc_more, &why)
		: -ENOMEM;
	if (err == -EINVAL)
		lp_fail_set(f, err, "%s: not an lp-gpu document (%s): %s", name, LP_GPU_DOC_SCHEMA,
			    lp_fail_msg(&why));
	for (uint32_t i = 0; !err && i < d->nresults; i++) {
		const struct lp_gpu_doc_result *r = &d->results[i];

		for (uint32_t k = 0; k < r->nseries; k++)
			for (uint32_t m = 0; m < r->series[k].ncells; m++) {
				const struct lp_gpu_doc_cell *c = &r->series[k].cells[m];

				gpu_cell(cv, r->test, r->size, r->unit, r->series[k].label, c->to,
					 c->from, !strcmp(c->status, "ok"), c->median, c->min,
					 c->max, c->ceiling);
			}
	}
	if (d)
		lp_gpu_doc_free(d);
	free(d);
	return err ? err : cv->err;
}

/*
 * lp-sweep: the document read back by lp-sweep's own reader (any schema version) and diagnosed,
 * so its cells are the resolved values every output shows, with the one noise field.
 */
static int sweep_cells(const char *path, const char *text, size_t len, struct cellv *cv,
		       struct lp_fail *f)
{
#ifndef LP_HAVE_VERBS
	(void)cv;
	return lp_fail_set(f, -EOPNOTSUPP,
			   "%s: lp-sweep documents need a build with rdma-core (libibverbs-dev)",
			   path);
#else
	struct lp_sweep_run r;
	struct lp_fail why = { 0 };
	int err =
		text ? lp_sweep_read_text(&r, text, len, &why) : lp_sweep_read_json(&r, path, &why);

	if (err)
		return lp_fail_set(f, err == -ENOMEM ? err : -EINVAL, "%s: %s", path,
				   lp_fail_msg(&why));
	err = lp_sweep_diagnose(&r);
	if (!err)
		err = lp_qual_sweep_cells(&r, &cv->v, &cv->n);
	lp_sweep_run_free(&r);
	return err;
#endif
}

/*
 * The cells of a parsed document; name is the file (read again by lp-sweep's reader) or, with
 * text, what the error line calls it.
 */
static int doc_cells(const json_t *doc, const char *name, const char *text,
		     struct lp_qual_cell **cells_p, size_t *n_p, struct lp_fail *f)
{
	static const struct {
		const char *tool;
		int (*cells)(const json_t *doc, const char *name, struct cellv *cv,
			     struct lp_fail *f);
	} readers[] = { { "lp-rdma", rdma_cells }, { "lp-gpu", gpu_cells } };
	struct cellv cv = { 0 };
	const char *tool = str_at(doc, "tool");
	int err = -ENOENT;

	for (size_t i = 0; i < LP_ARRAY_SIZE(readers); i++)
		if (!strcmp(tool, readers[i].tool))
			err = readers[i].cells(doc, name, &cv, f);
	if (!strcmp(tool, "lp-sweep"))
		err = sweep_cells(name, text, text ? strlen(text) : 0, &cv, f);
	if (err == -ENOENT)
		err = lp_fail_set(
			f, -EINVAL,
			"%s: not a linkperf result (\"tool\" is \"%s\", want lp-rdma, lp-gpu or lp-sweep)",
			name, tool);
	if (err) {
		free(cv.v);
		return err;
	}
	*cells_p = cv.v;
	*n_p = cv.n;
	return 0;
}

/* The document at path (*doc_p: its tree, the caller's) and its cells. 0 or -EINVAL (f says why). */
static int doc_load(const char *path, json_t **doc_p, struct lp_qual_cell **cells_p, size_t *n_p,
		    struct lp_fail *f)
{
	struct lp_fail why = { 0 };

	*doc_p = lp_record_load_file(path, &why);
	if (!*doc_p)
		return lp_fail_set(f, -EINVAL, "%s: %s", path, lp_fail_msg(&why));
	return doc_cells(*doc_p, path, NULL, cells_p, n_p, f);
}

int lp_qual_doc_cells(const char *path, struct lp_qual_cell **cells_p, size_t *n_p,
		      struct lp_fail *f)
{
	json_t *doc;
	int err = doc_load(path, &doc, cells_p, n_p, f);

	json_decref(doc);
	return err;
}

/* What write() prints, in memory. */
static char *capture(int (*write)(FILE *f, const void *arg), const void *arg, int *err_p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		*err_p = -ENOMEM;
		return NULL;
	}
	*err_p = write(f, arg);
	if (fclose(f) && !*err_p)
		*err_p = -ENOMEM;
	if (*err_p) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* {"qualification": {...}} as the streaming writer makes it. */
static int qual_doc(FILE *f, const void *q)
{
	struct lp_json j;

	lp_json_init(&j, f, false);
	lp_json_obj_begin(&j, NULL);
	lp_qual_json(q, &j);
	lp_json_obj_end(&j);
	return lp_json_finish(&j);
}

/* The document with the "qualification" object added (and its exit code, when it records one,
 * raised to 1 for a failed qualification), to path. */
static int doc_write(const struct lp_qual *q, json_t *doc, const char *path)
{
	int err = 0;
	char *text = capture(qual_doc, q, &err);
	json_t *qj = text ? json_loads(text, 0, NULL) : NULL;
	FILE *f;

	free(text);
	if (!qj)
		return err ? err : -ENOMEM;
	json_object_set(doc, "qualification", json_object_get(qj, "qualification"));
	json_decref(qj);
	if (lp_qual_failed(q) && json_integer_value(json_object_get(doc, "exit_code")) == 0 &&
	    json_is_integer(json_object_get(doc, "exit_code")))
		json_object_set_new(doc, "exit_code", json_integer(1));
	f = lp_out_open(path);
	if (!f)
		return -EIO;
	err = json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) ? -EIO : 0;
	fputc('\n', f);
	return lp_out_end(f, path, err) ? -EIO : 0;
}

int lp_qual_judge_doc(struct lp_qual *q, const char *path, const char *json_path)
{
	struct lp_qual_cell *cells = NULL;
	size_t n = 0;
	json_t *doc;
	int err = doc_load(path, &doc, &cells, &n, &q->fail);

	bool judged = !err;

	if (judged)
		err = lp_qual_judge(q, cells, n);
	/* a baseline that did not match: the document is written all the same, with the reason */
	if (judged && (!err || (err == -EINVAL && q->opts.baseline && !q->base_compared)) &&
	    json_path) {
		int werr = doc_write(q, doc, json_path);

		err = err ? err : werr;
	}
	free(cells);
	json_decref(doc);
	return err;
}

int lp_qual_run(struct lp_qual *q, int (*write)(FILE *f, const void *arg), const void *arg,
		const char *json_path)
{
	struct lp_qual_cell *cells = NULL;
	size_t n = 0;
	int err;
	char *text = capture(write, arg, &err);
	json_t *doc = text ? lp_record_loadb(text, strlen(text), NULL) : NULL;

	if (!doc) {
		free(text);
		return lp_fail_set(&q->fail, err ? err : -EINVAL,
				   "qualification: the run's own JSON document did not parse");
	}
	err = doc_cells(doc, "the run", text, &cells, &n, &q->fail);
	free(text);
	if (!err)
		err = lp_qual_judge(q, cells, n);
	if (!err && json_path)
		err = doc_write(q, doc, json_path);
	free(cells);
	json_decref(doc);
	return err;
}

#else

int lp_qual_doc_cells(const char *path, struct lp_qual_cell **cells_p, size_t *n_p,
		      struct lp_fail *f)
{
	(void)cells_p;
	(void)n_p;
	return lp_fail_set(f, -EOPNOTSUPP, "%s: built without a JSON library (libjansson-dev)",
			   path);
}

int lp_qual_judge_doc(struct lp_qual *q, const char *path, const char *json_path)
{
	(void)q;
	(void)json_path;
	return lp_fail_set(&q->fail, -EOPNOTSUPP,
			   "%s: built without a JSON library (libjansson-dev)", path);
}

int lp_qual_run(struct lp_qual *q, int (*write)(FILE *f, const void *arg), const void *arg,
		const char *json_path)
{
	(void)write;
	(void)arg;
	(void)json_path;
	return lp_fail_set(&q->fail, -EOPNOTSUPP,
			   "qualification: built without a JSON library (libjansson-dev)");
}

#endif
