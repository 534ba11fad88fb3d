// SPDX-License-Identifier: MIT
/*
 * Baselines: the cells of any linkperf JSON document, and the cell-by-cell comparison of a run
 * with an earlier one. A change is a regression when it is worse than the threshold and the
 * difference stands out of the noise of both runs: |new - old| > k * sqrt(s_new^2 + s_old^2).
 */
#include "qual/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"

const char *const lp_qual_change_names[] = { "", "new", "same", "better", "noise", "regression" };

void lp_qual_cell_set(struct lp_qual_cell *c, const char *test, uint64_t size, const char *pair,
		      enum lp_qual_kind kind, double value, double spread, double ceiling)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->test, sizeof(c->test), "%s", test);
	c->size = size;
	snprintf(c->pair, sizeof(c->pair), "%s", pair ? pair : "");
	c->kind = kind;
	c->value = value;
	c->spread = isfinite(spread) && spread > 0 ? spread : 0;
	c->ceiling = isfinite(ceiling) && ceiling > 0 ? ceiling : 0;
	c->limit = c->margin = c->base_value = c->base_spread = c->delta = NAN;
}

static bool same_cell(const struct lp_qual_cell *a, const struct lp_qual_cell *b)
{
	return a->size == b->size && a->kind == b->kind && !strcmp(a->test, b->test) &&
	       !strcmp(a->pair, b->pair);
}

/* Sets c->change from the baseline's cell b (see the comment at the top). */
static void compare_cell(const struct lp_qual_opts *o, struct lp_qual_cell *c,
			 const struct lp_qual_cell *b)
{
	double thr = o->regress_pct / 100, noise;

	c->base_value = b->value;
	c->base_spread = b->spread;
	c->delta = (c->kind == LP_QUAL_BW ? c->value - b->value : b->value - c->value) / b->value;
	noise = o->noise_k * sqrt(c->spread * c->spread + b->spread * b->spread);
	if (!isfinite(c->delta)) /* failed now or then: worse only if it worked then */
		c->change = isfinite(b->value) && !isfinite(c->value) ? LP_QUAL_REGRESSION
								      : LP_QUAL_SAME;
	else if (fabs(c->value - b->value) <= noise || fabs(c->delta) <= thr)
		c->change = c->delta < -thr ? LP_QUAL_NOISE : LP_QUAL_SAME;
	else
		c->change = c->delta < 0 ? LP_QUAL_REGRESSION : LP_QUAL_BETTER;
}

int lp_qual_compare(struct lp_qual *q, const char *path)
{
	struct lp_qual_cell *base;
	size_t nbase;
	bool *used;
	int err = lp_qual_doc_cells(path, &base, &nbase);

	if (err)
		return err;
	used = calloc(nbase + 1, sizeof(*used));
	q->missing = calloc(nbase + 1, sizeof(*q->missing));
	if (!used || !q->missing) {
		free(used);
		free(base);
		return -ENOMEM;
	}
	for (size_t i = 0; i < q->ncells; i++) {
		struct lp_qual_cell *c = &q->cells[i];

		c->change = LP_QUAL_NEW;
		for (size_t k = 0; k < nbase; k++) {
			if (used[k] || !same_cell(c, &base[k]))
				continue;
			used[k] = true;
			compare_cell(&q->opts, c, &base[k]);
			q->nregress += c->change == LP_QUAL_REGRESSION;
			break;
		}
	}
	for (size_t k = 0; k < nbase; k++)
		if (!used[k])
			snprintf(q->missing[q->nmissing++], sizeof(*q->missing), "%s %llu%s%s",
				 base[k].test, (unsigned long long)base[k].size,
				 base[k].pair[0] ? " " : "", base[k].pair);
	free(used);
	free(base);
	return 0;
}

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

/* lp-rdma: one result per test and size; bidirectional runs give each direction and the sum. */
static int rdma_cells(const json_t *doc, struct cellv *cv)
{
	static const char *const dirs[][2] = { { "bandwidth", "" },
					       { "client_to_server", "client->server" },
					       { "server_to_client", "server->client" },
					       { "sum", "sum" } };
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
			continue;
		}
		for (size_t d = 0; d < LP_ARRAY_SIZE(dirs); d++) {
			char key[64];

			snprintf(key, sizeof(key), "%s.gbytes_per_s", dirs[d][0]);
			if (ok ? isfinite(num_at(r, key)) : d == 0)
				cell_add(cv, test, size, dirs[d][1], LP_QUAL_BW,
					 ok ? num_at(r, key) : NAN, 0, d == 3 ? 2 * ceil : ceil);
		}
	}
	return cv->err;
}

/* lp-gpu: per test and size, each series' cells; latency in ns becomes us. */
static int gpu_cells(const json_t *doc, struct cellv *cv)
{
	size_t i, k, m;
	json_t *r, *s, *c;

	json_array_foreach(json_object_get(doc, "results"), i, r)
	{
		const char *unit = str_at(r, "unit");
		bool lat = !strcmp(unit, "ns") || !strcmp(unit, "us");
		double scale = !strcmp(unit, "ns") ? 1e-3 : 1;

		json_array_foreach(json_object_get(r, "series"), k, s)
		{
			const char *label = str_at(s, "label");

			json_array_foreach(json_object_get(s, "cells"), m, c)
			{
				char pair[LP_QUAL_PAIR];
				bool ok = !strcmp(str_at(c, "status"), "ok");

				snprintf(pair, sizeof(pair), "%s<-%s%s%s", str_at(c, "row"),
					 str_at(c, "column"), strcmp(label, "value") ? " " : "",
					 strcmp(label, "value") ? label : "");
				cell_add(cv, str_at(r, "test"), (uint64_t)num_at(r, "size"), pair,
					 lat ? LP_QUAL_LAT : LP_QUAL_BW,
					 ok ? num_at(c, "median") * scale : NAN,
					 (num_at(c, "max") - num_at(c, "min")) / 2 * scale,
					 num_at(c, "ceiling"));
			}
		}
	}
	return cv->err;
}

/* lp-sweep: the sweep's cells (not the retests); bandwidth cells take the metric's relative
 * spread (sigma) as theirs, latency cells their own sample stdev. */
static int sweep_cells(const json_t *doc, struct cellv *cv)
{
	const json_t *metrics = json_object_get(doc, "metrics"),
		     *nodes = json_object_get(doc, "nodes");
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(doc, "cells"), i, c)
	{
		const json_t *m = json_array_get(metrics, (size_t)num_at(c, "metric"));
		bool lat = !strcmp(str_at(c, "unit"), "us"), ok = num_at(c, "status") == 0;
		double v = num_at(c, "value") / (lat ? 1 : 8);
		double rate = fmin(
			num_at(json_array_get(nodes, (size_t)num_at(c, "client")), "rate_gbps"),
			num_at(json_array_get(nodes, (size_t)num_at(c, "server")), "rate_gbps"));
		char pair[LP_QUAL_PAIR];

		if (strcmp(str_at(c, "phase"), "sweep"))
			continue;
		snprintf(pair, sizeof(pair), "%s>%s", str_at(c, "client_name"),
			 str_at(c, "server_name"));
		cell_add(cv, str_at(c, "test"), (uint64_t)num_at(c, "size"), pair,
			 lat ? LP_QUAL_LAT : LP_QUAL_BW, ok ? v : NAN,
			 lat ? num_at(c, "latency_us.stdev") : num_at(m, "sigma") * v, rate / 8);
	}
	return cv->err;
}

int lp_qual_doc_cells(const char *path, struct lp_qual_cell **cells_p, size_t *n_p)
{
	static const struct {
		const char *tool;
		int (*cells)(const json_t *doc, struct cellv *cv);
	} readers[] = { { "lp-rdma", rdma_cells },
			{ "lp-gpu", gpu_cells },
			{ "lp-sweep", sweep_cells } };
	struct cellv cv = { 0 };
	json_error_t jerr;
	json_t *doc = json_load_file(path, 0, &jerr);
	const char *tool = str_at(doc, "tool");
	int err = -EINVAL;

	if (!doc) {
		lp_err("%s: not a JSON document (%s, line %d)", path, jerr.text, jerr.line);
		return -EINVAL;
	}
	for (size_t i = 0; i < LP_ARRAY_SIZE(readers); i++)
		if (!strcmp(tool, readers[i].tool))
			err = readers[i].cells(doc, &cv);
	json_decref(doc);
	if (err == -EINVAL)
		lp_err("%s: not a linkperf result (\"tool\" is \"%s\", want lp-rdma, lp-gpu or lp-sweep)",
		       path, tool);
	if (err) {
		free(cv.v);
		return err;
	}
	*cells_p = cv.v;
	*n_p = cv.n;
	return 0;
}

#else

int lp_qual_doc_cells(const char *path, struct lp_qual_cell **cells_p, size_t *n_p)
{
	(void)cells_p;
	(void)n_p;
	lp_err("%s: built without a JSON library (libjansson-dev)", path);
	return -EOPNOTSUPP;
}

#endif
