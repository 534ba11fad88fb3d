// SPDX-License-Identifier: MIT
/* The model transport's model: a JSON file into struct lp_sweep_model, and its draws. */
#include "sweep/model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "common/lp.h"
#include "common/opt.h"
#include "sweep/result.h"

_Static_assert(LP_SWEEP_MODEL_MAX_METRICS == LP_SWEEP_MAX_METRICS, "a base per sweep metric");

const char *const lp_sweep_model_target_names[] = { "node", "link", "leaf", "uplink", "rail", NULL };
const char *const lp_sweep_model_tail_names[] = { "gauss", "t", "mixture", NULL };

void lp_sweep_model_init(struct lp_sweep_model *m)
{
	memset(m, 0, sizeof(*m));
	m->seed = 1;
	m->rails = 1;
	snprintf(m->name_fmt, sizeof(m->name_fmt), "n%%d");
	m->lat_us = 2;
	m->bw_gbps = 100;
	m->df = 4;
	m->mix_scale = 5;
	m->blip_lo = m->blip_hi = 0.5;
	m->cong_factor = 0.7;
	m->test_s = 0.001;
	m->round_s = m->round_rank_s = m->worker_s = m->start_s = -1;
}

/* ---- the draws ---- */

/* splitmix64's finaliser: a counter-based generator, one stream per (seed, key) */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Streams of draws, one per purpose, so that adding blips leaves the noise as it was. */
enum { S_NOISE = 1, S_BLIP, S_CONG, S_FAIL };

struct rng {
	uint64_t s;
};

static struct rng stream(uint64_t seed, int purpose, int64_t k1, int64_t k2, int64_t k3, int64_t k4)
{
	uint64_t s = mix64(seed ^ (uint64_t)purpose * 0x2545f4914f6cdd1dull);

	s = mix64(s ^ (uint64_t)k1);
	s = mix64(s ^ (uint64_t)k2);
	s = mix64(s ^ (uint64_t)k3);
	return (struct rng){ mix64(s ^ (uint64_t)k4) };
}

static double uni(struct rng *g)
{
	g->s = mix64(g->s);
	return ((double)(g->s >> 11) + 0.5) * 0x1p-53; /* (0, 1) */
}

static double gauss(struct rng *g)
{
	return sqrt(-2 * log(uni(g))) * cos(2 * M_PI * uni(g));
}

/* The noise's standard draw: unit variance, the model's tail. */
static double noise_z(const struct lp_sweep_model *m, struct rng *g)
{
	double z = gauss(g), chi2 = 0;
	int df = (int)m->df;

	switch (m->tail) {
	case LP_SWEEP_MODEL_STUDENT:
		for (int i = 0; i < df; i++) {
			double y = gauss(g);

			chi2 += y * y;
		}
		return z / sqrt(chi2 / df) / sqrt((double)df / (df - 2));
	case LP_SWEEP_MODEL_MIXTURE:
		return uni(g) < m->mix_p ? z * m->mix_scale : z;
	default:
		return z;
	}
}

static int node_of(const struct lp_sweep_model *m, int rank)
{
	return rank / m->rails;
}

int lp_sweep_model_rail(const struct lp_sweep_model *m, int rank)
{
	return rank % m->rails;
}

static int leaf_of(const struct lp_sweep_model *m, int rank)
{
	return m->leaf_size > 0 ? node_of(m, rank) / m->leaf_size : 0;
}

void lp_sweep_model_host(const struct lp_sweep_model *m, int rank, char *buf, size_t len)
{
	snprintf(buf, len, m->name_fmt, node_of(m, rank));
}

void lp_sweep_model_name(const struct lp_sweep_model *m, int rank, char *buf, size_t len)
{
	char node[64];

	lp_sweep_model_host(m, rank, node, sizeof(node));
	if (m->rails > 1)
		snprintf(buf, len, "%s/%d", node, lp_sweep_model_rail(m, rank));
	else
		snprintf(buf, len, "%s", node);
}

/* Does fault f touch cell a -> b of a metric of kind `kind`? */
static bool touches(const struct lp_sweep_model *m, const struct lp_sweep_model_fault *f, int a,
		    int b, unsigned kind)
{
	int la = leaf_of(m, a), lb = leaf_of(m, b);

	if (!(f->kinds & kind))
		return false;
	if (f->target != LP_SWEEP_MODEL_RAIL && f->rail >= 0 &&
	    lp_sweep_model_rail(m, a) != f->rail)
		return false;
	switch (f->target) {
	case LP_SWEEP_MODEL_NODE:
		return ((f->roles & LP_SWEEP_MODEL_CLIENT) && node_of(m, a) == f->a) ||
		       ((f->roles & LP_SWEEP_MODEL_SERVER) && node_of(m, b) == f->a);
	case LP_SWEEP_MODEL_LINK:
		return node_of(m, a) == f->a && node_of(m, b) == f->b;
	case LP_SWEEP_MODEL_LEAF:
		return f->all ? la == f->a || lb == f->a : (la == f->a) != (lb == f->a);
	case LP_SWEEP_MODEL_UPLINK:
		return (la == f->a && lb == f->b) || (la == f->b && lb == f->a);
	case LP_SWEEP_MODEL_RAIL:
		return lp_sweep_model_rail(m, a) == f->a;
	}
	return false;
}

/* Is round `round` of this phase and attempt congested? */
static bool congested(const struct lp_sweep_model *m, const struct lp_sweep_model_key *k)
{
	struct rng g;

	if (k->phase == LP_PHASE_SWEEP && k->attempt == 0)
		for (int i = 0; i < m->ncong; i++)
			if (m->cong_rounds[i] == k->round)
				return true;
	if (m->cong_rate <= 0)
		return false;
	g = stream(m->seed, S_CONG, k->phase, k->attempt, k->round, 0);
	return uni(&g) < m->cong_rate;
}

int lp_sweep_model_draw(const struct lp_sweep_model *m, const struct lp_sweep_model_key *k,
			double *value_p, struct lp_fail *fail)
{
	unsigned kind;
	double good = 1;
	struct rng g;

	if (k->metric < 0 || k->metric >= m->nmetrics || k->a < 0 || k->b < 0 ||
	    k->a >= m->nranks || k->b >= m->nranks)
		return lp_fail_set(fail, -EINVAL, "model: cell %d -> %d, metric %d out of range",
				   k->a, k->b, k->metric);
	kind = m->mkind[k->metric];
	for (int i = 0; i < m->nfaults; i++) {
		const struct lp_sweep_model_fault *f = &m->faults[i];

		if (!touches(m, f, k->a, k->b, kind))
			continue;
		if (f->factor <= 0)
			return lp_fail_set(fail, -EIO, "model: fault %d (%s) fails this cell", i,
					   lp_sweep_model_target_names[f->target]);
		good *= f->factor;
	}
	g = stream(m->seed, S_FAIL, k->a, k->b, k->metric, 0);
	if (m->fail_rate > 0 && uni(&g) < m->fail_rate)
		return lp_fail_set(fail, -EIO, "model: a failed cell (failures rate %g)",
				   m->fail_rate);
	g = stream(m->seed, S_NOISE, k->a, k->b, k->metric, (int64_t)k->phase << 32 | k->attempt);
	good *= exp(log1p(m->cv) * noise_z(m, &g));
	g = stream(m->seed, S_BLIP, k->a, k->b, k->metric, (int64_t)k->phase << 32 | k->attempt);
	if (m->blip_rate > 0 && uni(&g) < m->blip_rate)
		good *= m->blip_lo + (m->blip_hi - m->blip_lo) * uni(&g);
	if (congested(m, k))
		good *= m->cong_factor;
	*value_p = kind == LP_SWEEP_MODEL_LAT ? m->mbase[k->metric] / good
					      : m->mbase[k->metric] * good;
	return 0;
}

/* ---- binding to a job ---- */

/* A node named in a fault: its index (and a rail from "NAME/RAIL"), or -1. */
static int resolve_name(const struct lp_sweep_model *m, const char *name, int nodes, int *rail_p)
{
	char buf[80], node[64];
	char *slash;

	snprintf(buf, sizeof(buf), "%s", name);
	slash = strrchr(buf, '/');
	if (slash && m->rails > 1) {
		*slash = 0;
		*rail_p = atoi(slash + 1);
	}
	for (int i = 0; i < nodes; i++) {
		snprintf(node, sizeof(node), m->name_fmt, i);
		if (!strcmp(node, buf))
			return i;
	}
	return -1;
}

static int bind_faults(struct lp_sweep_model *m, int nodes, struct lp_fail *fail)
{
	for (int i = 0; i < m->nfaults; i++) {
		struct lp_sweep_model_fault *f = &m->faults[i];
		int *ends[2] = { &f->a, &f->b };
		const char *names[2] = { f->name_a, f->name_b };
		int leaves = m->leaf_size > 0 ? (nodes + m->leaf_size - 1) / m->leaf_size : 1;
		int limit = f->target == LP_SWEEP_MODEL_RAIL ? m->rails
			    : f->target == LP_SWEEP_MODEL_LEAF || f->target == LP_SWEEP_MODEL_UPLINK
				    ? leaves
				    : nodes;

		for (int e = 0; e < 2; e++) {
			if (names[e][0]) {
				*ends[e] = resolve_name(m, names[e], nodes, &f->rail);
				if (*ends[e] < 0)
					return lp_fail_set(
						fail, -EINVAL,
						"fault %d: no node \"%s\" among the %d nodes", i,
						names[e], nodes);
			}
			if (*ends[e] >= limit || f->rail >= m->rails)
				return lp_fail_set(
					fail, -EINVAL,
					"fault %d: %s %d out of range (%d nodes, %d leaves, %d rails)",
					i, lp_sweep_model_target_names[f->target], *ends[e], nodes,
					leaves, m->rails);
		}
	}
	return 0;
}

/*
 * A base key names the metric: its test and size ("write_bw 64 KiB", as its
 * label; "write_bw 64KiB" and "write_bw 65536" too: the size is parsed), or
 * its test alone (pass 1).
 */
static bool names_metric(const char *key, const struct lp_sweep_metric *mt, int pass)
{
	size_t n = strlen(mt->test);
	char sz[32];
	uint64_t v;
	int k = 0;

	if (pass)
		return !strcmp(key, mt->test);
	if (strncmp(key, mt->test, n) || key[n] != ' ')
		return false;
	for (const char *p = key + n + 1; *p && k < (int)sizeof(sz) - 1; p++)
		if (*p != ' ')
			sz[k++] = *p;
	sz[k] = 0;
	return !lp_parse_size(sz, &v) && v == mt->size;
}

/* A metric's base: its test and size, else its test, else the kind's. */
static double base_of(const struct lp_sweep_model *m, const struct lp_sweep_metric *mt)
{
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < m->nbase; i++)
			if (names_metric(m->base[i].key, mt, pass))
				return m->base[i].value;
	return mt->lat ? m->lat_us : m->bw_gbps;
}

int lp_sweep_model_bind(struct lp_sweep_model *m, int nranks, const struct lp_sweep_metric *metrics,
			int nmetrics, struct lp_fail *fail)
{
	int nodes = nranks / m->rails;

	if (nranks % m->rails)
		return lp_fail_set(fail, -EINVAL, "%d ranks are not whole nodes of %d rails",
				   nranks, m->rails);
	if (m->nodes && m->nodes != nodes)
		return lp_fail_set(fail, -EINVAL,
				   "the model has %d nodes, the job %d (%d ranks, %d rails)",
				   m->nodes, nodes, nranks, m->rails);
	if (nmetrics > LP_SWEEP_MODEL_MAX_METRICS)
		return lp_fail_set(fail, -EINVAL, "too many metrics");
	m->nranks = nranks;
	m->nmetrics = nmetrics;
	for (int i = 0; i < nmetrics; i++) {
		const struct lp_sweep_metric *mt = &metrics[i];

		m->mbase[i] = base_of(m, mt);
		m->mkind[i] = mt->lat ? LP_SWEEP_MODEL_LAT : LP_SWEEP_MODEL_BW;
	}
	return bind_faults(m, nodes, fail);
}

/* ---- the file ---- */

int lp_sweep_model_read(const char *path, char **text_p, size_t *len_p)
{
	FILE *f = fopen(path, "r");
	char *buf = malloc((1 << 20) + 1);
	size_t n = 0;
	int ret = 0;

	*text_p = NULL;
	if (!f || !buf) {
		ret = f ? -ENOMEM : -errno;
		goto out;
	}
	n = fread(buf, 1, 1 << 20, f);
	if (ferror(f))
		ret = -EIO;
	else if (!feof(f))
		ret = -EFBIG;
out:
	if (f)
		fclose(f);
	if (ret) {
		free(buf);
		return ret;
	}
	buf[n] = 0;
	*text_p = buf;
	*len_p = n;
	return 0;
}

#ifdef LP_HAVE_JANSSON
#include <jansson.h>

/* Every key of o is one of names: a typo is an error, not a fault that never applies. */
static int keys_known(const json_t *o, const char *where, const char *const *names,
		      struct lp_fail *fail)
{
	const char *key;
	json_t *v;

	if (!json_is_object(o))
		return lp_fail_set(fail, -EINVAL, "%s: not an object", where);
	json_object_foreach((json_t *)o, key, v)
	{
		if (lp_choice_index(names, key) < 0)
			return lp_fail_set(fail, -EINVAL, "%s: unknown key \"%s\"", where, key);
	}
	return 0;
}

/* o[key], when there, into *dst: a number in [lo, hi]. */
static int num(const json_t *o, const char *where, const char *key, double lo, double hi,
	       double *dst, struct lp_fail *fail)
{
	const json_t *v = json_object_get(o, key);

	if (!v)
		return 0;
	if (!json_is_number(v) || json_number_value(v) < lo || json_number_value(v) > hi)
		return lp_fail_set(fail, -EINVAL, "%s.%s: a number in [%g, %g]", where, key, lo,
				   hi);
	*dst = json_number_value(v);
	return 0;
}

static int integer(const json_t *o, const char *where, const char *key, int lo, int hi, int *dst,
		   struct lp_fail *fail)
{
	const json_t *v = json_object_get(o, key);

	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
		return lp_fail_set(fail, -EINVAL, "%s.%s: an integer in [%d, %d]", where, key, lo,
				   hi);
	*dst = (int)json_integer_value(v);
	return 0;
}

/* A string member that must be one of names: its index into *dst. */
static int choice(const json_t *o, const char *where, const char *key, const char *const *names,
		  int *dst, struct lp_fail *fail)
{
	const json_t *v = json_object_get(o, key);
	int i;

	if (!v)
		return 0;
	i = json_is_string(v) ? lp_choice_index(names, json_string_value(v)) : -1;
	if (i < 0) {
		char list[LP_FAIL_MSG_LEN] = "";

		for (int k = 0; names[k]; k++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), " %s", names[k]);
		return lp_fail_set(fail, -EINVAL, "%s.%s: one of%s", where, key, list);
	}
	*dst = i;
	return 0;
}

/* A node reference: an index, or a name resolved when the model is bound. */
static int node_ref(const json_t *v, int *idx, char *name, size_t len)
{
	if (json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) < 1 << 24) {
		*idx = (int)json_integer_value(v);
		return 0;
	}
	if (json_is_string(v) && json_string_length(v) > 0 && json_string_length(v) < len) {
		snprintf(name, len, "%s", json_string_value(v));
		return 0;
	}
	return -EINVAL;
}

/* The fault's target: exactly one of node, link, leaf, uplink (rail alone is the target). */
static int fault_target(const json_t *o, struct lp_sweep_model_fault *f, const char *where,
			struct lp_fail *fail)
{
	int found = 0;

	for (int t = 0; t < LP_SWEEP_MODEL_RAIL; t++) {
		const json_t *v = json_object_get(o, lp_sweep_model_target_names[t]);
		bool two = t == LP_SWEEP_MODEL_LINK || t == LP_SWEEP_MODEL_UPLINK;
		int bad;

		if (!v)
			continue;
		found++;
		f->target = (enum lp_sweep_model_target)t;
		if (two)
			bad = json_array_size(v) != 2 ||
			      node_ref(json_array_get(v, 0), &f->a, f->name_a, sizeof(f->name_a)) ||
			      node_ref(json_array_get(v, 1), &f->b, f->name_b, sizeof(f->name_b));
		else
			bad = node_ref(v, &f->a, f->name_a, sizeof(f->name_a));
		if (!bad && t != LP_SWEEP_MODEL_NODE && t != LP_SWEEP_MODEL_LINK &&
		    (f->name_a[0] || f->name_b[0]))
			bad = 1; /* leaves are numbers */
		if (bad)
			return lp_fail_set(
				fail, -EINVAL, "%s.%s: %s", where, lp_sweep_model_target_names[t],
				two ? "two node names or indices" : "a node name or index");
	}
	if (!found && json_object_get(o, "rail")) {
		f->target = LP_SWEEP_MODEL_RAIL;
		f->rail = -1;
		return integer(o, where, "rail", 0, 1 << 16, &f->a, fail);
	}
	if (found != 1)
		return lp_fail_set(fail, -EINVAL, "%s: one of node, link, leaf, uplink or rail",
				   where);
	return integer(o, where, "rail", 0, 1 << 16, &f->rail, fail);
}

static int parse_fault(const json_t *o, int i, struct lp_sweep_model_fault *f, struct lp_fail *fail)
{
	static const char *const keys[] = { "node", "link",    "leaf",	"uplink", "rail", "factor",
					    "role", "metrics", "scope", "fail",	  "note", NULL };
	static const char *const roles[] = { "", "client", "server", "both", NULL };
	static const char *const kinds[] = { "", "lat", "bw", "all", NULL };
	static const char *const scopes[] = { "cross", "all", NULL };
	char where[32];
	int role = 3, kind = 3, scope = 0, rc;

	snprintf(where, sizeof(where), "faults[%d]", i);
	memset(f, 0, sizeof(*f));
	f->rail = -1;
	f->factor = 1;
	rc = keys_known(o, where, keys, fail);
	if (!rc)
		rc = fault_target(o, f, where, fail);
	if (!rc)
		rc = num(o, where, "factor", 0, 1e6, &f->factor, fail);
	if (!rc)
		rc = choice(o, where, "role", roles, &role, fail);
	if (!rc)
		rc = choice(o, where, "metrics", kinds, &kind, fail);
	if (!rc)
		rc = choice(o, where, "scope", scopes, &scope, fail);
	if (rc)
		return rc;
	if (json_is_true(json_object_get(o, "fail")))
		f->factor = 0;
	else if (!json_object_get(o, "factor"))
		return lp_fail_set(fail, -EINVAL, "%s: a factor (or \"fail\": true)", where);
	f->roles = (unsigned)role;
	f->kinds = (unsigned)kind;
	f->all = scope == 1;
	return 0;
}

static int parse_faults(struct lp_sweep_model *m, const json_t *arr, struct lp_fail *fail)
{
	if (!arr)
		return 0;
	if (!json_is_array(arr) || json_array_size(arr) > LP_SWEEP_MODEL_MAX_FAULTS)
		return lp_fail_set(fail, -EINVAL, "faults: an array of at most %d objects",
				   LP_SWEEP_MODEL_MAX_FAULTS);
	for (size_t i = 0; i < json_array_size(arr); i++) {
		int rc = parse_fault(json_array_get(arr, i), (int)i, &m->faults[i], fail);

		if (rc)
			return rc;
		m->nfaults++;
	}
	return 0;
}

/* "base": {"lat_us": .., "bw_gbps": .., "rate_gbps": .., LABEL-or-TEST: ..} */
static int parse_base(struct lp_sweep_model *m, const json_t *o, struct lp_fail *fail)
{
	const char *key;
	json_t *v;

	if (!o)
		return 0;
	if (!json_is_object(o))
		return lp_fail_set(fail, -EINVAL, "base: not an object");
	json_object_foreach((json_t *)o, key, v)
	{
		double x = json_number_value(v);

		if (!json_is_number(v) || x <= 0 || x > 1e9)
			return lp_fail_set(fail, -EINVAL, "base.%s: a positive number", key);
		if (!strcmp(key, "lat_us"))
			m->lat_us = x;
		else if (!strcmp(key, "bw_gbps"))
			m->bw_gbps = x;
		else if (!strcmp(key, "rate_gbps"))
			m->rate_gbps = x;
		else if (m->nbase < LP_SWEEP_MODEL_MAX_BASE &&
			 strlen(key) < sizeof(m->base[0].key)) {
			snprintf(m->base[m->nbase].key, sizeof(m->base[0].key), "%s", key);
			m->base[m->nbase++].value = x;
		} else
			return lp_fail_set(fail, -EINVAL, "base.%s: too many or too long", key);
	}
	return 0;
}

/* "noise": {"cv", "tail", "df", "p", "scale"} */
static int parse_noise(struct lp_sweep_model *m, const json_t *o, struct lp_fail *fail)
{
	static const char *const keys[] = { "cv", "tail", "df", "p", "scale", NULL };
	int tail = 0, rc;

	if (!o)
		return 0;
	rc = keys_known(o, "noise", keys, fail);
	if (!rc)
		rc = num(o, "noise", "cv", 0, 10, &m->cv, fail);
	if (!rc)
		rc = choice(o, "noise", "tail", lp_sweep_model_tail_names, &tail, fail);
	if (!rc)
		rc = num(o, "noise", "df", 3, 100, &m->df, fail);
	if (!rc)
		rc = num(o, "noise", "p", 0, 1, &m->mix_p, fail);
	if (!rc)
		rc = num(o, "noise", "scale", 1, 1000, &m->mix_scale, fail);
	m->tail = (enum lp_sweep_model_tail)tail;
	m->df = floor(m->df);
	return rc;
}

/* "blips": {"rate", "factor": F | [LO, HI]} */
static int parse_blips(struct lp_sweep_model *m, const json_t *o, struct lp_fail *fail)
{
	static const char *const keys[] = { "rate", "factor", NULL };
	const json_t *f = json_object_get(o, "factor");
	int rc;

	if (!o)
		return 0;
	rc = keys_known(o, "blips", keys, fail);
	if (!rc)
		rc = num(o, "blips", "rate", 0, 1, &m->blip_rate, fail);
	if (rc || !f)
		return rc;
	if (json_is_number(f)) {
		m->blip_lo = m->blip_hi = json_number_value(f);
	} else if (json_array_size(f) == 2 && json_is_number(json_array_get(f, 0)) &&
		   json_is_number(json_array_get(f, 1))) {
		m->blip_lo = json_number_value(json_array_get(f, 0));
		m->blip_hi = json_number_value(json_array_get(f, 1));
	} else {
		m->blip_lo = -1;
	}
	if (m->blip_lo <= 0 || m->blip_hi < m->blip_lo || m->blip_hi > 1e6)
		return lp_fail_set(fail, -EINVAL, "blips.factor: F or [LO, HI], 0 < LO <= HI");
	return 0;
}

/* "congested": {"rate", "factor", "rounds": [..]} */
static int parse_congested(struct lp_sweep_model *m, const json_t *o, struct lp_fail *fail)
{
	static const char *const keys[] = { "rate", "factor", "rounds", NULL };
	const json_t *r = json_object_get(o, "rounds");
	int rc;

	if (!o)
		return 0;
	rc = keys_known(o, "congested", keys, fail);
	if (!rc)
		rc = num(o, "congested", "rate", 0, 1, &m->cong_rate, fail);
	if (!rc)
		rc = num(o, "congested", "factor", 1e-6, 1e6, &m->cong_factor, fail);
	if (rc || !r)
		return rc;
	if (!json_is_array(r) || json_array_size(r) > LP_SWEEP_MODEL_MAX_ROUNDS)
		return lp_fail_set(fail, -EINVAL, "congested.rounds: at most %d round numbers",
				   LP_SWEEP_MODEL_MAX_ROUNDS);
	for (size_t i = 0; i < json_array_size(r); i++) {
		const json_t *v = json_array_get(r, i);

		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > 1 << 30)
			return lp_fail_set(fail, -EINVAL, "congested.rounds[%zu]: a round number",
					   i);
		m->cong_rounds[m->ncong++] = (int)json_integer_value(v);
	}
	return 0;
}

/* "time": {"setup_ms", "test_ms", and the harness's "round_ms", "round_rank_us", "worker_ms",
 * "start_s"}: one unit a key, as given; the harness's figures stay < 0 when absent */
static int parse_time(struct lp_sweep_model *m, const json_t *o, struct lp_fail *fail)
{
	static const char *const keys[] = { "setup_ms",	 "test_ms", "round_ms", "round_rank_us",
					    "worker_ms", "start_s", NULL };
	static const double scale[] = { 1e-3, 1e-3, 1e-3, 1e-6, 1e-3, 1 };
	double *dst[] = { &m->setup_s,	    &m->test_s,	  &m->round_s,
			  &m->round_rank_s, &m->worker_s, &m->start_s };
	int rc;

	if (!o)
		return 0;
	rc = keys_known(o, "time", keys, fail);
	for (size_t i = 0; !rc && i < LP_ARRAY_SIZE(dst); i++) {
		double v = -1;

		rc = num(o, "time", keys[i], 0, 3.6e6, &v, fail);
		if (!rc && v >= 0)
			*dst[i] = v * scale[i];
	}
	return rc;
}

/* "names": a printf format with one %d (and no other conversion). */
static int parse_names(struct lp_sweep_model *m, const json_t *v, struct lp_fail *fail)
{
	const char *s = json_string_value(v), *p;
	int convs = 0;

	if (!v)
		return 0;
	for (p = s; p && *p; p++)
		if (*p == '%') {
			p += strspn(p + 1, "0123456789") + 1;
			convs += *p == 'd' ? 1 : 100;
		}
	if (!s || convs != 1 || strlen(s) >= sizeof(m->name_fmt) - 8)
		return lp_fail_set(fail, -EINVAL, "names: a format with one %%d, as \"n%%03d\"");
	snprintf(m->name_fmt, sizeof(m->name_fmt), "%s", s);
	return 0;
}

static int parse_top(struct lp_sweep_model *m, const json_t *root, struct lp_fail *fail)
{
	static const char *const keys[] = { "schema",	 "note",     "seed", "nodes",  "rails",
					    "leaf_size", "names",    "base", "noise",  "blips",
					    "congested", "failures", "time", "faults", NULL };
	const char *schema = json_string_value(json_object_get(root, "schema"));
	const json_t *seed = json_object_get(root, "seed"), *fl = json_object_get(root, "failures");
	int rc = keys_known(root, "the model", keys, fail);

	if (rc)
		return rc;
	if (!schema || strcmp(schema, LP_SWEEP_MODEL_SCHEMA))
		return lp_fail_set(fail, -EINVAL, "not a model: \"schema\" must be \"%s\"",
				   LP_SWEEP_MODEL_SCHEMA);
	if (seed && (!json_is_integer(seed) || json_integer_value(seed) < 0))
		return lp_fail_set(fail, -EINVAL, "seed: a non-negative integer");
	if (seed)
		m->seed = (uint64_t)json_integer_value(seed);
	rc = integer(root, "model", "nodes", 2, 1 << 20, &m->nodes, fail);
	if (!rc)
		rc = integer(root, "model", "rails", 1, 64, &m->rails, fail);
	if (!rc)
		rc = integer(root, "model", "leaf_size", 0, 1 << 20, &m->leaf_size, fail);
	if (!rc && fl &&
	    (rc = keys_known(fl, "failures", (const char *const[]){ "rate", NULL }, fail)) == 0)
		rc = num(fl, "failures", "rate", 0, 1, &m->fail_rate, fail);
	return rc;
}

int lp_sweep_model_parse(struct lp_sweep_model *m, const char *text, size_t len,
			 struct lp_fail *fail)
{
	json_error_t err;
	json_t *root = json_loadb(text, len, 0, &err);
	int rc;

	if (!root)
		return lp_fail_set(fail, -EINVAL, "not JSON: line %d: %s", err.line, err.text);
	rc = parse_top(m, root, fail);
	if (!rc)
		rc = parse_names(m, json_object_get(root, "names"), fail);
	if (!rc)
		rc = parse_base(m, json_object_get(root, "base"), fail);
	if (!rc)
		rc = parse_noise(m, json_object_get(root, "noise"), fail);
	if (!rc)
		rc = parse_blips(m, json_object_get(root, "blips"), fail);
	if (!rc)
		rc = parse_congested(m, json_object_get(root, "congested"), fail);
	if (!rc)
		rc = parse_time(m, json_object_get(root, "time"), fail);
	if (!rc)
		rc = parse_faults(m, json_object_get(root, "faults"), fail);
	json_decref(root);
	return rc;
}
#else
int lp_sweep_model_parse(struct lp_sweep_model *m, const char *text, size_t len,
			 struct lp_fail *fail)
{
	(void)m;
	(void)text;
	(void)len;
	return lp_fail_set(fail, -ENOTSUP, "built without a JSON library (libjansson-dev)");
}
#endif
