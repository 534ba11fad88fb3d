// SPDX-License-Identifier: MIT
/* A sweep run's collectives: its links as a fabric, its groups, every ceiling, imports, claims. */
#include "sweep/collrun.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "common/lp.h"
#include "sweep/collimport.h"

const char *const lp_coll_paths_choices[] = { "mpi", "ring", "nccl", NULL };
const char *const lp_coll_bisect_when_names[] = { "auto", "always", "never", "blind", NULL };

#define CO struct lp_coll_opts
/* clang-format off */
const struct lp_opt lp_coll_opt_rows[] = {
	{ .name = "collective", LP_OPT_LIST_AT(CO, colls), .choices = lp_coll_names,
	  .metavar = "LIST",
	  .help = "after the sweep, collectives over all ranks and each rail with nccl-tests' "
		  "conventions (algbw, busbw), beside what the links allow: allreduce, allgather, "
		  "reducescatter, alltoall, broadcast, reduce, sendrecv" },
	{ .name = "coll-paths", LP_OPT_LIST_AT(CO, paths), .choices = lp_coll_paths_choices,
	  .metavar = "LIST", .def = "mpi,ring,nccl",
	  .help = "mpi: the MPI library's (host memory); ring: linkperf's ring all-reduce in the "
		  "run's order; nccl: NCCL on GPU memory where libnccl.so.2 loads" },
	{ .name = "coll-sizes", LP_OPT_SIZES_AT(CO, sizes), .min = 4, .max = 1e12,
	  .metavar = "SIZES", .def = "1M:16M",
	  .help = "collective sizes in bytes, nccl-tests' size column (A:B doubles from A to B)" },
	{ .name = "coll-iters", LP_OPT_UINT_AT(CO, iters), .min = 1, .max = 1e6, .metavar = "N",
	  .def = "20", .help = "timed operations per size (nccl-tests -n)" },
	{ .name = "coll-warmup", LP_OPT_UINT_AT(CO, warmup), .max = 1e6, .metavar = "N",
	  .def = "5", .help = "untimed operations first (nccl-tests -w)" },
	{ .name = "coll-nocheck", LP_OPT_FLAG_AT(CO, nocheck),
	  .help = "skip the data check after each size (nccl-tests -c 0)" },
	{ .name = "coll-timeout", LP_OPT_SECONDS_AT(CO, timeout_s), .min = 1, .max = 86400,
	  .metavar = "SECS", .def = "60",
	  .help = "bound on one size of one collective, warm-up and check included" },
	{ .name = "coll-floor", LP_OPT_DOUBLE_AT(CO, floor), .max = 1e6, .metavar = "GB/S",
	  .help = "all-reduce busbw floor in GB/s: below it, the search for the guilty part "
		  "runs" },
	{ .name = "coll-bisect", LP_OPT_CHOICE_AT(CO, bisect), .choices = lp_coll_bisect_when_names,
	  .metavar = "WHEN", .def = "auto",
	  .help = "find the node, link or rail behind a slow all-reduce: auto (a slow edge holds "
		  "its ring, or it is below the floor or its links), always, never, blind (always, "
		  "by the bisection alone: no targeted retests of the edges the matrix shows "
		  "slow)" },
	{ .name = "coll-ratio", LP_OPT_DOUBLE_AT(CO, ratio), .min = 0.05, .max = 0.99,
	  .metavar = "F", .def = "0.9",
	  .help = "the search names a part whose edges run below F x the healthy ones, beyond "
		  "their noise" },
	{ .name = "coll-limit", LP_OPT_DOUBLE_AT(CO, limit), .min = 0.01, .max = 1, .metavar = "F",
	  .def = "0.8",
	  .help = "a collective at F x what its links allow or more is at their limit; below, it "
		  "points at software or configuration" },
	{ .name = "coll-probes", LP_OPT_UINT_AT(CO, probes), .min = 4, .max = 10000, .metavar = "N",
	  .def = "96", .help = "bound on the search's probes (rings and pair retests)" },
	{ .name = "links", LP_OPT_STR_AT(CO, intra), .metavar = "LP-GPU.json",
	  .help = "lp-gpu's JSON: its GPU peer matrix stands for every host's GPU pairs in the "
		  "ceilings" },
	{ .name = "import", LP_OPT_LIST_AT(CO, imports), .metavar = "FILE[,FILE]",
	  .help = "a nccl-tests output (its table, -J JSON) and/or NCCL_DEBUG=INFO lines, set "
		  "beside the links (also with --diagnose)" },
	{ .name = "claim", LP_OPT_STR_AT(CO, claims), .metavar = "CLAIM[;CLAIM]",
	  .help = "check a claim against the links, e.g. busbw=380GB/s@8n (also "
		  "efficiency=E@Nn,compute=S,bytes=B and share=P%@Nn,step=S,bytes=B: "
		  "docs/METHOD.md, Claims)" },
	{ 0 },
};
/* clang-format on */

bool lp_coll_opts_wanted(const struct lp_coll_opts *o)
{
	return o->colls || o->imports || o->claims || o->intra;
}

int lp_sweep_coll_link_metric(const struct lp_sweep_run *r)
{
	int best = -1;

	for (int m = 0; m < r->nmetrics; m++) {
		const struct lp_sweep_metric *mt = &r->metrics[m],
					     *b = best >= 0 ? &r->metrics[best] : NULL;

		if (mt->lat)
			continue;
		if (!b || mt->size > b->size ||
		    (mt->size == b->size && !strcmp(mt->test, "write_bw") &&
		     strcmp(b->test, "write_bw")))
			best = m;
	}
	return best;
}

/* Local index of each rank: its rail, else its place among the ranks of its host. */
static void hosts_of(const struct lp_sweep_run *r, int *host, int *local)
{
	for (int i = 0; i < r->n; i++) {
		host[i] = i;
		local[i] = r->rails ? r->nodes[i].rail : 0;
		for (int j = 0; j < i; j++)
			if (!strcmp(r->nodes[j].host, r->nodes[i].host) && r->nodes[i].host[0]) {
				host[i] = host[j];
				if (!r->rails)
					local[i]++;
			}
	}
}

const char **lp_sweep_coll_names(const struct lp_sweep_run *r)
{
	const char **names = calloc((size_t)r->n + 1, sizeof(*names));

	for (int i = 0; names && i < r->n; i++)
		names[i] = r->nodes[i].name;
	return names;
}

int lp_sweep_coll_links(const struct lp_sweep_run *r, const char *intra_path,
			struct lp_coll_links *L, struct lp_fail *f)
{
	size_t nn = (size_t)r->n * r->n;
	uint8_t *fail = malloc(nn), *sched = malloc(nn);
	int rc = -ENOMEM;

	memset(L, 0, sizeof(*L));
	L->bw = malloc(sizeof(double) * nn);
	L->host = malloc(sizeof(int) * r->n);
	L->local = malloc(sizeof(int) * r->n);
	L->names = lp_sweep_coll_names(r);
	L->metric = lp_sweep_coll_link_metric(r);
	if (!fail || !sched || !L->bw || !L->host || !L->local || !L->names)
		goto out;
	for (size_t i = 0; i < nn; i++)
		L->bw[i] = NAN;
	if (L->metric >= 0) {
		rc = lp_sweep_matrix(r, L->metric, L->bw, fail, sched, NULL, NULL, NULL, NULL);
		if (rc)
			goto out;
		for (size_t i = 0; i < nn; i++)
			L->bw[i] =
				fail[i] ? 0
					: L->bw[i] / 8; /* Gb/s -> GB/s; a failed pair carries 0 */
		snprintf(L->label, sizeof(L->label), "%s", r->metrics[L->metric].label);
	}
	hosts_of(r, L->host, L->local);
	rc = intra_path ? lp_coll_read_gpu_matrix(intra_path, &L->intra, &L->ng, f) : 0;
	L->f = (struct lp_coll_fabric){ .n = r->n,
					.bw = L->bw,
					.host = L->host,
					.local = L->local,
					.ng = L->ng,
					.intra = L->intra,
					.names = L->names };
out:
	free(fail);
	free(sched);
	if (rc)
		lp_sweep_coll_links_free(L);
	return rc;
}

void lp_sweep_coll_links_free(struct lp_coll_links *L)
{
	free(L->bw);
	free(L->host);
	free(L->local);
	free(L->names);
	free(L->intra);
	memset(L, 0, sizeof(*L));
}

/* ---- groups ---- */

void lp_coll_groups_free(struct lp_coll_group *g, int n)
{
	for (int i = 0; g && i < n; i++)
		free(g[i].ranks);
	free(g);
}

int lp_coll_groups(int n, const int *rail, struct lp_coll_group **g_p, int *n_p)
{
	int nrails = 0, ng;
	struct lp_coll_group *g;

	for (int i = 0; rail && i < n; i++)
		nrails = LP_MAX(nrails, rail[i] + 1);
	ng = 1 + (nrails > 1 ? nrails : 0);
	g = calloc((size_t)ng, sizeof(*g));
	if (!g)
		return -ENOMEM;
	for (int k = 0; k < ng; k++) {
		g[k].ranks = malloc(sizeof(int) * (n + 1));
		if (!g[k].ranks) {
			lp_coll_groups_free(g, ng);
			return -ENOMEM;
		}
		if (k)
			snprintf(g[k].name, sizeof(g[k].name), "rail %d", k - 1);
		else
			snprintf(g[k].name, sizeof(g[k].name), "all");
		for (int i = 0; i < n; i++)
			if (!k || rail[i] == k - 1)
				g[k].ranks[g[k].n++] = i;
	}
	*g_p = g;
	*n_p = ng;
	return 0;
}

/* ---- ceilings ---- */

/* The collectives the run has figures of (measured or imported), all-reduce always. */
static unsigned colls_of(const struct lp_coll_run *cr)
{
	unsigned m = 1u << LP_COLL_ALLREDUCE;

	for (size_t i = 0; i < cr->nres; i++) {
		int k = lp_coll_kind_parse(cr->res[i].coll);

		if (k >= 0)
			m |= 1u << k;
	}
	return m;
}

static bool wants(const struct lp_coll_links *L, const struct lp_coll_group *g,
		  enum lp_coll_scheme s)
{
	bool several = false;

	if (s == LP_COLL_SCHEME_RING_BEST)
		return g->n <= LP_COLL_BEST_MAX;
	if (s != LP_COLL_SCHEME_RAILS)
		return true;
	for (int i = 1; i < g->n; i++) /* rails: hosts with more than one rank */
		several = several || L->host[g->ranks[i]] == L->host[g->ranks[0]];
	return several;
}

static int group_ceilings(struct lp_coll_run *cr, const struct lp_coll_links *L,
			  const struct lp_coll_group *g, unsigned colls)
{
	int rc = 0;

	for (int k = 0; k < LP_COLL_NKINDS && !rc; k++)
		for (int s = 0; s < LP_COLL_NSCHEMES && !rc && (colls >> k & 1); s++) {
			struct lp_coll_ceiling c;

			if (!lp_coll_scheme_fits(k, s) || !wants(L, g, s) || g->n < 2)
				continue;
			rc = lp_coll_ceiling(&L->f, k, s, g->ranks, g->n, &c);
			if (rc == -EINVAL || rc == -E2BIG) { /* not this layout (rails): none */
				rc = 0;
				continue;
			}
			snprintf(c.group, sizeof(c.group), "%s", g->name);
			if (!rc && isfinite(c.busbw)) /* none of its edges measured: no ceiling */
				rc = lp_coll_run_add_ceiling(cr, &c);
		}
	return rc;
}

/* NCCL's own rings of each import, over the nodes its ranks map to. */
static int import_ceilings(const struct lp_sweep_run *r, const struct lp_coll_links *L)
{
	const char **hosts = calloc((size_t)r->n + 1, sizeof(*hosts));
	int *rails = malloc(sizeof(int) * (r->n + 1)), rc = 0;

	if (!hosts || !rails) {
		rc = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < r->n; i++) {
		hosts[i] = r->nodes[i].host[0] ? r->nodes[i].host : r->nodes[i].name;
		rails[i] = r->nodes[i].rail;
	}
	for (int t = 0; t < r->coll->ntopo && !rc; t++) {
		struct lp_coll_ceiling c;

		lp_coll_topo_map(r->coll->topo[t], hosts, r->rails ? rails : NULL, r->n);
		rc = lp_coll_topo_ceiling(r->coll->topo[t], &L->f, &c);
		if (rc == -ENOENT)
			rc = 0; /* no ring in it, or none of its ranks on these nodes */
		else if (!rc)
			rc = lp_coll_run_add_ceiling(r->coll, &c);
	}
out:
	free(hosts);
	free(rails);
	return rc;
}

int lp_sweep_coll_ceilings(struct lp_sweep_run *r, const struct lp_coll_links *L)
{
	struct lp_coll_group *g;
	int ng, rc;

	if (!r->coll)
		r->coll = lp_coll_run_new();
	if (!r->coll)
		return -ENOMEM;
	r->coll->nceil = 0;
	snprintf(r->coll->echo.link_metric, sizeof(r->coll->echo.link_metric), "%s", L->label);
	int *rail = malloc(sizeof(int) * (r->n + 1));

	for (int i = 0; rail && i < r->n; i++)
		rail[i] = r->nodes[i].rail;
	rc = rail ? lp_coll_groups(r->n, r->rails ? rail : NULL, &g, &ng) : -ENOMEM;
	free(rail);
	if (rc)
		return rc;
	for (int i = 0; i < ng && !rc; i++)
		rc = group_ceilings(r->coll, L, &g[i], colls_of(r->coll));
	lp_coll_groups_free(g, ng);
	return rc ? rc : import_ceilings(r, L);
}

int lp_sweep_coll_claims(struct lp_sweep_run *r, const char *const *claims, int n,
			 struct lp_fail *f)
{
	for (int i = 0; i < n; i++) {
		struct lp_coll_claim c;
		struct lp_fail cf = { 0 };
		int rc = lp_coll_claim_parse(claims[i], &c, &cf);

		if (rc)
			return lp_fail_set(f, rc, "--claim %s: %s", claims[i], lp_fail_msg(&cf));
		if (!r->coll && !(r->coll = lp_coll_run_new()))
			return -ENOMEM;
		lp_coll_claim_judge(&c, r->coll);
		rc = lp_coll_run_add_claim(r->coll, &c);
		if (rc)
			return rc;
	}
	return 0;
}

void lp_sweep_coll_json(struct lp_json *j, const struct lp_sweep_run *r)
{
	const char **names;

	if (!r->coll)
		return;
	names = lp_sweep_coll_names(r);
	lp_coll_json(j, r->coll, names, names ? r->n : 0);
	free(names);
}

void lp_sweep_coll_summary(const struct lp_sweep_run *r, FILE *f)
{
	const char **names;

	if (!r->coll)
		return;
	names = lp_sweep_coll_names(r);
	lp_coll_summary(f, r->coll, names, names ? r->n : 0);
	free(names);
}

/* Each item of a list split at sep (a copy in buf), one call each; the first error stops. */
static int each_item(const char *list, char sep, char *buf, size_t len,
		     int (*fn)(struct lp_sweep_run *, const char *, struct lp_fail *),
		     struct lp_sweep_run *r, struct lp_fail *f)
{
	char *save = NULL, seps[2] = { sep, 0 };
	int rc = 0;

	if (!list)
		return 0;
	snprintf(buf, len, "%s", list);
	for (char *it = strtok_r(buf, seps, &save); it && !rc; it = strtok_r(NULL, seps, &save))
		rc = fn(r, it, f);
	return rc;
}

static int import_one(struct lp_sweep_run *r, const char *path, struct lp_fail *f)
{
	struct lp_fail imp = { 0 };
	int rc = lp_coll_import(r->coll, path, NULL, &imp);

	if (rc)
		lp_fail_set(f, rc, "--import %s: %s", path, lp_fail_msg(&imp));
	return rc;
}

static int claim_one(struct lp_sweep_run *r, const char *claim, struct lp_fail *f)
{
	return lp_sweep_coll_claims(r, &claim, 1, f);
}

static int claim_check(struct lp_sweep_run *r, const char *claim, struct lp_fail *f)
{
	struct lp_coll_claim c;
	struct lp_fail cf = { 0 };

	(void)r;
	if (!lp_coll_claim_parse(claim, &c, &cf))
		return 0;
	return lp_fail_set(f, -EINVAL, "--claim %s: %s", claim, lp_fail_msg(&cf));
}

int lp_coll_opts_check(const struct lp_coll_opts *o, struct lp_fail *f)
{
	char buf[4096];

	return each_item(o->claims, ';', buf, sizeof(buf), claim_check, NULL, f);
}

int lp_sweep_coll_offline(struct lp_sweep_run *r, const struct lp_coll_opts *o, struct lp_fail *f)
{
	struct lp_coll_links L;
	char buf[4096];
	int rc;

	if (!r->coll && !(r->coll = lp_coll_run_new()))
		return -ENOMEM;
	rc = each_item(o->imports, ',', buf, sizeof(buf), import_one, r, f);
	if (!rc)
		rc = lp_sweep_coll_links(r, o->intra, &L, f);
	if (rc)
		return rc;
	rc = lp_sweep_coll_ceilings(r, &L);
	lp_sweep_coll_links_free(&L);
	if (!rc)
		rc = each_item(o->claims, ';', buf, sizeof(buf), claim_one, r, f);
	return rc;
}

/* ---- lp-gpu's peer matrix ---- */

#ifdef LP_HAVE_JANSSON
#include <jansson.h>

/* The p2p result to read: the preferred test at its largest size. */
static const json_t *p2p_result(const json_t *results)
{
	static const char *const prefer[] = { "p2p_write_ce", "p2p_write_sm", "p2p_read_ce",
					      "p2p_read_sm", NULL };

	for (int p = 0; prefer[p]; p++) {
		const json_t *best = NULL, *o;
		size_t i;

		json_array_foreach(results, i, o)
		{
			const char *test = json_string_value(json_object_get(o, "test"));

			if (test && !strcmp(test, prefer[p]) &&
			    (!best || json_integer_value(json_object_get(o, "size")) >
					      json_integer_value(json_object_get(best, "size"))))
				best = o;
		}
		if (best)
			return best;
	}
	return NULL;
}

/* "GPU3" -> 3; -1 else. */
static int gpu_index(const char *s)
{
	char *end;
	long v;

	if (!s || strncmp(s, "GPU", 3))
		return -1;
	v = strtol(s + 3, &end, 10);
	return end != s + 3 && !*end && v >= 0 && v < 4096 ? (int)v : -1;
}

int lp_coll_read_gpu_matrix(const char *path, double **m_p, int *ng_p, struct lp_fail *f)
{
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err);
	const json_t *res, *cells, *c;
	const char *tool;
	size_t ng, i;
	double *m;

	if (!root)
		return lp_fail_set(f, -EINVAL, "%s: not JSON: %s (line %d)", path, err.text,
				   err.line);
	tool = json_string_value(json_object_get(root, "tool"));
	ng = json_array_size(json_object_get(root, "gpus"));
	res = p2p_result(json_object_get(root, "results"));
	cells = json_object_get(json_array_get(json_object_get(res, "series"), 0), "cells");
	if (!tool || strcmp(tool, "lp-gpu") || ng < 1 || ng > 4096 || !json_is_array(cells)) {
		json_decref(root);
		return lp_fail_set(f, -EINVAL,
				   "%s: not an lp-gpu document with a p2p test (lp-gpu -t "
				   "p2p_write_ce --json FILE)",
				   path);
	}
	m = malloc(sizeof(double) * ng * ng);
	if (!m) {
		json_decref(root);
		return -ENOMEM;
	}
	for (i = 0; i < ng * ng; i++)
		m[i] = NAN;
	json_array_foreach(cells, i, c)
	{
		int dst = gpu_index(json_string_value(json_object_get(c, "row"))),
		    src = gpu_index(json_string_value(json_object_get(c, "column")));
		const json_t *v = json_object_get(c, "median");

		if (src >= 0 && dst >= 0 && (size_t)src < ng && (size_t)dst < ng &&
		    json_is_number(v))
			m[(size_t)src * ng + dst] = json_number_value(v); /* column -> row */
	}
	json_decref(root);
	*m_p = m;
	*ng_p = (int)ng;
	return 0;
}
#else
int lp_coll_read_gpu_matrix(const char *path, double **m_p, int *ng_p, struct lp_fail *f)
{
	(void)m_p;
	(void)ng_p;
	return lp_fail_set(f, -ENOTSUP,
			   "%s: reading lp-gpu's JSON needs a build with libjansson-dev", path);
}
#endif

/* ---- a recorded run's collectives ---- */

#ifdef LP_HAVE_JANSSON
/* Every object of array key through rec into a fresh element, added by add. */
static int read_records(struct lp_coll_run *cr, const json_t *arr, const struct lp_record *rec,
			void *obj, int (*add)(struct lp_coll_run *, const void *))
{
	const json_t *o;
	size_t i;

	json_array_foreach(arr, i, o)
	{
		int rc;

		memset(obj, 0, rec->size);
		if (lp_record_read_json(rec, obj, o, NULL))
			continue; /* a member out of range: left out, as a cell would be */
		rc = add(cr, obj);
		if (rc)
			return rc;
	}
	return 0;
}

static int add_result(struct lp_coll_run *cr, const void *r)
{
	return lp_coll_run_add_result(cr, r);
}

static int add_verdict(struct lp_coll_run *cr, const void *v)
{
	struct lp_coll_verdict *w = (struct lp_coll_verdict *)v;

	w->nprobe = 0; /* its evidence array is not read back */
	return lp_coll_run_add_verdict(cr, w);
}

int lp_sweep_coll_read(struct lp_sweep_run *r, const json_t *coll)
{
	struct lp_coll_result res;
	struct lp_coll_verdict *v = malloc(sizeof(*v));
	int rc;

	if (!json_is_object(coll)) {
		free(v);
		return 0;
	}
	if (!v || (!r->coll && !(r->coll = lp_coll_run_new()))) {
		free(v);
		return -ENOMEM;
	}
	lp_record_read_json(&lp_coll_echo_record, &r->coll->echo, json_object_get(coll, "run"),
			    NULL);
	rc = read_records(r->coll, json_object_get(coll, "results"), &lp_coll_result_record, &res,
			  add_result);
	if (!rc) /* verdicts without their evidence arrays: the figures and the reason */
		rc = read_records(r->coll, json_object_get(coll, "verdicts"),
				  &lp_coll_verdict_record, v, add_verdict);
	free(v);
	return rc;
}
/* A journal line's own members, beside the record's. */
static const char *const line_keys[] = { "type", "time", NULL };

int lp_sweep_coll_journal_line(struct lp_sweep_run *r, const char *type, const json_t *o,
			       struct lp_fail *f)
{
	bool res = !strcmp(type, "coll_result"), verd = !strcmp(type, "coll_verdict");
	struct lp_coll_verdict *v;
	struct lp_coll_result cr;
	int rc;

	if (!res && !verd)
		return 0; /* a later version's kind: skipped */
	if (!r->coll && !(r->coll = lp_coll_run_new()))
		return -ENOMEM;
	if (res) {
		memset(&cr, 0, sizeof(cr));
		rc = lp_record_read_json_more(&lp_coll_result_record, &cr, o, line_keys, f);
		return rc ? rc : lp_coll_run_add_result(r->coll, &cr);
	}
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	rc = lp_record_read_json_more(&lp_coll_verdict_record, v, o, line_keys, f);
	v->nprobe = 0; /* arrays are not read back: the evidence stays in the journal line */
	if (!rc)
		rc = lp_coll_run_add_verdict(r->coll, v);
	free(v);
	return rc;
}
#else
int lp_sweep_coll_journal_line(struct lp_sweep_run *r, const char *type, const struct json_t *o,
			       struct lp_fail *f)
{
	(void)r, (void)type, (void)o, (void)f;
	return 0;
}

int lp_sweep_coll_read(struct lp_sweep_run *r, const struct json_t *coll)
{
	(void)r;
	(void)coll;
	return 0;
}
#endif
