// SPDX-License-Identifier: MIT
/* lp-sweep results: containers, verdicts, JSON/CSV/summary sinks, gather encoding. */
#include "sweep/result.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/lp.h"
#include "common/meta.h"
#include "common/table.h"
#include "common/units.h"
#include "sweep/load.h"

const char *const lp_verdict_names[] = { "node_slow",	 "node_failed",	  "link_slow",
					 "link_failed",	 "pair_slow",	  "ambiguous",
					 "inconclusive", "errors",	  "load_impact",
					 "incast_slow",	 "incast_unfair", NULL };

const char *const lp_sweep_phase_names[] = { "sweep",  "retest",	"loaded", "loader",
					     "incast", "incast_victim", NULL };

int lp_sweep_run_init(struct lp_sweep_run *r, int n)
{
	memset(r, 0, sizeof(*r));
	if (n < 1)
		return -EINVAL;
	r->n = n;
	r->nodes = calloc(n, sizeof(*r->nodes));
	if (!r->nodes)
		return -ENOMEM;
	lp_diag_opts_default(&r->dopts);
	r->sched_name = "round-robin";
	r->attempt = 1;
	return 0;
}

void lp_sweep_run_free(struct lp_sweep_run *r)
{
	if (r->diag)
		for (int m = 0; m < r->nmetrics; m++)
			lp_diag_free(&r->diag[m]);
	free(r->diag);
	free(r->verdicts);
	free(r->cells);
	free(r->nodes);
	if (r->sched_own)
		lp_sched_free(r->sched_own);
	free(r->sched_own);
	lp_sweep_evidence_free(&r->ev);
	memset(r, 0, sizeof(*r));
}

int lp_sweep_add_metric(struct lp_sweep_run *r, const char *test, int test_id, bool lat,
			uint64_t size)
{
	struct lp_sweep_metric *m;
	char sz[32];

	if (r->nmetrics >= LP_SWEEP_MAX_METRICS)
		return -E2BIG;
	m = &r->metrics[r->nmetrics];
	memset(m, 0, sizeof(*m));
	snprintf(m->test, sizeof(m->test), "%s", test);
	m->test_id = test_id;
	m->lat = lat;
	m->size = size;
	lp_fmt_size(sz, sizeof(sz), size); /* "64 KiB": one way to write a size everywhere */
	snprintf(m->label, sizeof(m->label), "%s %s", test, sz);
	return r->nmetrics++;
}

void lp_sweep_cell_init(struct lp_sweep_cell *c, int metric, int a, int b, int phase, int round)
{
	memset(c, 0, sizeof(*c));
	c->metric = metric;
	c->a = a;
	c->b = b;
	c->phase = phase;
	c->round = round;
	c->attempt = 1;
	c->value = NAN;
	c->lat.min = c->lat.max = c->lat.mean = c->lat.stdev = NAN;
	c->lat.p50 = c->lat.p90 = c->lat.p99 = c->lat.p999 = c->lat.p9999 = NAN;
	c->gbytes_s = c->gbits_s = c->mmsg_s = c->pct_link = NAN;
	c->ival_min = c->ival_max = NAN;
}

int lp_sweep_add_cell(struct lp_sweep_run *r, const struct lp_sweep_cell *c)
{
	if (c->metric < 0 || c->metric >= r->nmetrics || c->a < 0 || c->a >= r->n || c->b < 0 ||
	    c->b >= r->n)
		return -EINVAL;
	if (r->ncells == r->cap) {
		size_t nc = r->cap ? r->cap * 2 : 256;
		struct lp_sweep_cell *p = realloc(r->cells, nc * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->cells = p;
		r->cap = nc;
	}
	r->cells[r->ncells++] = *c;
	return 0;
}

/* One successful attempt of a cell, in the order measured (k: its index in r->cells). */
struct attempt {
	size_t x, k;
	double v;
};

static int attempt_cmp(const void *pa, const void *pb)
{
	const struct attempt *a = pa, *b = pb;

	return a->x != b->x ? (a->x < b->x ? -1 : 1) : a->k < b->k ? -1 : a->k > b->k;
}

int lp_sweep_matrix(const struct lp_sweep_run *r, int metric, double *v, uint8_t *fail,
		    uint8_t *sched, uint8_t *att, double *best, double *spread,
		    struct lp_diag_in *rep_p)
{
	size_t nn = (size_t)r->n * r->n, na = 0, nd = 0;
	struct attempt *at = malloc((r->ncells + 1) * sizeof(*at));
	double *vals = malloc((r->ncells + 1) * sizeof(double)),
	       *diffs = malloc((r->ncells + 1) * sizeof(double));
	int rc = -ENOMEM;

	if (!at || !vals || !diffs)
		goto out;
	for (size_t i = 0; i < nn; i++) {
		v[i] = NAN;
		fail[i] = 0;
		sched[i] = 0;
		if (att)
			att[i] = 0;
		if (best)
			best[i] = NAN;
		if (spread)
			spread[i] = NAN;
	}
	for (size_t i = 0; i < r->ncells; i++) {
		const struct lp_sweep_cell *c = &r->cells[i];
		size_t x = (size_t)c->a * r->n + c->b;

		if (c->metric != metric || c->phase > LP_PHASE_RETEST)
			continue; /* load cells are their own metrics (sweep/load.c) */
		if (!sched[x])
			fail[x] = 1; /* until some attempt succeeds */
		sched[x] = 1;
		if (c->status == 0 && isfinite(c->value) && c->value > 0) {
			fail[x] = 0;
			at[na++] = (struct attempt){ x, i, c->value };
		}
	}
	qsort(at, na, sizeof(*at), attempt_cmp);
	for (size_t i = 0, j; i < na; i = j) {
		size_t k = 0;

		for (j = i; j < na && at[j].x == at[i].x; j++) {
			vals[k++] = at[j].v;
			/* two retests of one cell: the noise between them (the sweep attempt is
			 * left out, it made the cell a suspect by being extreme) */
			if (j > i && r->cells[at[j - 1].k].phase == LP_PHASE_RETEST)
				diffs[nd++] = log(at[j].v / at[j - 1].v);
		}
		v[at[i].x] = lp_diag_combine(vals, k, r->metrics[metric].lat); /* sorts vals */
		if (best)
			best[at[i].x] = r->metrics[metric].lat ? vals[0] : vals[k - 1];
		if (att)
			att[at[i].x] = (uint8_t)LP_MIN(k, 255);
		if (spread)
			spread[at[i].x] = lp_diag_spread(vals, k); /* logs vals */
	}
	if (rep_p) {
		rep_p->rep_pairs = (int)nd;
		rep_p->rep_sigma = lp_diag_rep_sigma(diffs, nd);
	}
	rc = 0;
out:
	free(at);
	free(vals);
	free(diffs);
	return rc;
}

/* ---- verdicts ---- */

/* Numbers behind a verdict: the evidence of one metric. */
static void evidence_init(struct lp_verdict *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->ratio = ev->z = ev->noise_cv = NAN;
}

static int add_verdict(struct lp_sweep_run *r, enum lp_verdict_kind kind, int a, int b,
		       unsigned dirs, const char *label, const char *reason,
		       const struct lp_verdict *ev)
{
	struct lp_verdict *v = NULL;

	for (int i = 0; i < r->nverdicts; i++)
		if (r->verdicts[i].kind == kind && r->verdicts[i].a == a && r->verdicts[i].b == b)
			v = &r->verdicts[i];
	if (!v) {
		struct lp_verdict *p = realloc(r->verdicts, (r->nverdicts + 1) * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->verdicts = p;
		v = &p[r->nverdicts++];
		evidence_init(v);
		v->kind = kind;
		v->a = a;
		v->b = b;
	}
	v->dirs |= dirs;
	if (ev && (isnan(v->ratio) || ev->ratio < v->ratio)) { /* the strongest metric's numbers */
		v->ratio = ev->ratio;
		v->z = ev->z;
		v->noise_cv = ev->noise_cv;
		v->cells = ev->cells;
		v->agree = ev->agree;
		v->retests = ev->retests;
	}
	for (int i = 0; ev && i < ev->ncand; i++) {
		bool have = false;

		for (int k = 0; k < v->ncand; k++)
			have = have ||
			       (v->cand[k].kind == ev->cand[i].kind &&
				v->cand[k].a == ev->cand[i].a && v->cand[k].b == ev->cand[i].b);
		if (!have && v->ncand < LP_DIAG_MAX_CAND)
			v->cand[v->ncand++] = ev->cand[i];
	}
	if (!strstr(v->metrics, label))
		lp_strcatf(v->metrics, sizeof(v->metrics), "%s%s", v->metrics[0] ? "," : "", label);
	lp_strcatf(v->reason, sizeof(v->reason), "%s%s", v->reason[0] ? "; " : "", reason);
	return 0;
}

int lp_sweep_verdict_add(struct lp_sweep_run *r, enum lp_verdict_kind kind, int a, int b,
			 unsigned dirs, const char *label, const char *reason,
			 const struct lp_verdict *ev)
{
	return add_verdict(r, kind, a, b, dirs, label, reason, ev);
}

static const char *unit_of(const struct lp_sweep_metric *m)
{
	return m->lat ? "us" : "Gb/s";
}

static void fmt_val(char *buf, size_t len, double v, bool lat)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (lat)
		snprintf(buf, len, "%.1f", v);
	else
		lp_fmt_sig(buf, len, v, 3);
}

/* The value a goodness ratio stands for (ratio 0.5 of a latency reference is twice the time). */
static double value_of(const struct lp_diag *d, double ratio)
{
	return d->lat ? d->ref / ratio : d->ref * ratio;
}

/* The first error message among a node's failed cells (or its device error). */
static const char *node_error(const struct lp_sweep_run *r, int metric, int i)
{
	if (r->nodes[i].status)
		return r->nodes[i].error;
	for (size_t k = 0; k < r->ncells; k++) {
		const struct lp_sweep_cell *c = &r->cells[k];

		if (c->metric == metric && c->status && (c->a == i || c->b == i))
			return c->error;
	}
	return "";
}

static const struct lp_sweep_cell *find_cell(const struct lp_sweep_run *r, int metric, int a, int b,
					     int phase)
{
	const struct lp_sweep_cell *last = NULL;

	for (size_t k = 0; k < r->ncells; k++) {
		const struct lp_sweep_cell *c = &r->cells[k];

		if (c->metric == metric && c->a == a && c->b == b && c->phase == phase)
			last = c;
	}
	return last;
}

/* Isolated retests of metric m among the cells with client a (or any: -1) and server b (or any). */
static int count_retests(const struct lp_sweep_run *r, int m, int a, int b)
{
	int k = 0;

	for (size_t i = 0; i < r->ncells; i++) {
		const struct lp_sweep_cell *c = &r->cells[i];

		k += c->metric == m && c->phase == LP_PHASE_RETEST && (a < 0 || c->a == a) &&
		     (b < 0 || c->b == b);
	}
	return k;
}

/* ", attempts: 0.0136, 0.0141, failed" over the sweep and retests of one cell. */
static void attempts(const struct lp_sweep_run *r, int m, int a, int b, char *buf, size_t len)
{
	snprintf(buf, len, ", attempts:");
	for (size_t k = 0; k < r->ncells; k++) {
		const struct lp_sweep_cell *c = &r->cells[k];
		char v[32];

		if (c->metric != m || c->a != a || c->b != b)
			continue;
		if (c->status)
			snprintf(v, sizeof(v), "failed");
		else
			fmt_val(v, sizeof(v), c->value, r->metrics[m].lat);
		lp_strcatf(buf, len, " %s%s", v, c->phase == LP_PHASE_RETEST ? "" : " (sweep)");
	}
}

/* "noise 4.8% per cell (residuals, 41 df; repeats 3.9%, 12 pairs)" */
static void fmt_noise(char *buf, size_t len, const struct lp_diag *d)
{
	snprintf(buf, len, "noise %.1f%% per cell (", 100 * d->cv);
	if (isfinite(d->sigma_fit))
		lp_strcatf(buf, len, "residuals %.1f%%, %d df", 100 * (exp(d->sigma_fit) - 1),
			   d->df);
	else
		lp_strcatf(buf, len, "too few cells for residuals");
	if (isfinite(d->sigma_rep))
		lp_strcatf(buf, len, "; repeats %.1f%%, %d pairs", 100 * (exp(d->sigma_rep) - 1),
			   d->rep_pairs);
	lp_strcatf(buf, len, ")");
}

static int node_verdicts(struct lp_sweep_run *r, int m, const struct lp_diag *d)
{
	const struct lp_sweep_metric *mt = &r->metrics[m];
	char ref[32], why[512], noise[160];
	int rc = 0;

	fmt_val(ref, sizeof(ref), d->ref, mt->lat);
	fmt_noise(noise, sizeof(noise), d);
	for (int i = 0; i < r->n && !rc; i++) {
		struct lp_verdict ev;

		evidence_init(&ev);
		if (d->node[i] & LP_NODE_FAILED) {
			snprintf(why, sizeof(why), "%s: %d of %d cells failed (%s)", mt->label,
				 d->fail[i], d->ncell[i], node_error(r, m, i));
			ev.cells = d->ncell[i];
			rc = add_verdict(r, LP_VERDICT_NODE_FAILED, i, i, LP_NODE_FAILED, mt->label,
					 why, &ev);
		}
		for (int dir = 0; dir < 2 && !rc; dir++) {
			unsigned flag = dir ? LP_NODE_SLOW_DST : LP_NODE_SLOW_SRC;
			double score = dir ? d->score_dst[i] : d->score_src[i];
			double se = dir ? d->se_dst[i] : d->se_src[i];
			char vs[32];

			if (!(d->node[i] & flag))
				continue;
			ev.ratio = score;
			ev.z = se > 0 ? log(score) / se : NAN;
			ev.noise_cv = d->cv;
			ev.cells = dir ? d->n_dst[i] : d->n_src[i];
			ev.agree = dir ? d->slow_dst[i] : d->slow_src[i];
			ev.retests = count_retests(r, m, dir ? -1 : i, dir ? i : -1);
			fmt_val(vs, sizeof(vs), value_of(d, score), mt->lat);
			snprintf(
				why, sizeof(why),
				"%s as %s: effect %.2fx (%s against %s %s; %.1f standard errors), %d of %d "
				"partners agree, %d retests, %s",
				mt->label, dir ? "server" : "client", score, vs, ref, unit_of(mt),
				ev.z, ev.agree, ev.cells, ev.retests, noise);
			rc = add_verdict(r, LP_VERDICT_NODE_SLOW, i, i, flag, mt->label, why, &ev);
		}
	}
	return rc;
}

static int link_verdicts(struct lp_sweep_run *r, int m, const struct lp_diag *d)
{
	const struct lp_sweep_metric *mt = &r->metrics[m];
	int n = r->n, rc = 0;
	char ref[32], why[512], noise[160];

	fmt_val(ref, sizeof(ref), d->ref, mt->lat);
	fmt_noise(noise, sizeof(noise), d);
	for (int a = 0; a < n && !rc; a++)
		for (int b = 0; b < n && !rc; b++) {
			size_t x = (size_t)a * n + b;
			int lo = LP_MIN(a, b), hi = LP_MAX(a, b);
			unsigned dir = a < b ? LP_DIR_XY : LP_DIR_YX;
			const struct lp_sweep_cell *sw, *re;
			struct lp_verdict ev;

			if (!d->link[x])
				continue;
			sw = find_cell(r, m, a, b, LP_PHASE_SWEEP);
			re = find_cell(r, m, a, b, LP_PHASE_RETEST);
			evidence_init(&ev);
			ev.cells = 1;
			ev.retests = count_retests(r, m, a, b);
			if (d->link[x] & LP_LINK_FAILED) {
				snprintf(why, sizeof(why), "%s %s->%s failed: %s%s", mt->label,
					 r->nodes[a].name, r->nodes[b].name,
					 sw && sw->status ? sw->error : "",
					 re ? (re->status ? " (retest failed too)" : "") : "");
				rc = add_verdict(r, LP_VERDICT_LINK_FAILED, lo, hi, dir, mt->label,
						 why, &ev);
			} else if (d->link[x] & LP_LINK_SLOW) {
				char vs[32], rs[160] = "";

				ev.ratio = exp(d->resid[x]);
				ev.z = d->zlink[x];
				ev.noise_cv = d->cv;
				fmt_val(vs, sizeof(vs), value_of(d, d->ratio[x]), mt->lat);
				if (re) /* every attempt, so a reader sees it was not a blip */
					attempts(r, m, a, b, rs, sizeof(rs));
				snprintf(
					why, sizeof(why),
					"%s %s->%s: %s against %s %s (%.2fx of the reference, %.2fx of what "
					"both nodes do with others; %.1f standard errors%s)%s, %d retests, %s; "
					"both nodes fine with other partners",
					mt->label, r->nodes[a].name, r->nodes[b].name, vs, ref,
					unit_of(mt), d->ratio[x], ev.ratio, ev.z, rs,
					d->abs_bad[x] ? ", below the absolute floor" : "",
					ev.retests, noise);
				rc = add_verdict(r, LP_VERDICT_LINK_SLOW, lo, hi, dir, mt->label,
						 why, &ev);
			}
		}
	return rc;
}

static void fmt_item(char *buf, size_t len, const struct lp_sweep_run *r,
		     const struct lp_diag_item *it)
{
	if (it->kind == LP_ITEM_LINK)
		snprintf(buf, len, "link %s->%s", r->nodes[it->a].name, r->nodes[it->b].name);
	else
		snprintf(buf, len, "node %s as %s", r->nodes[it->a].name,
			 it->kind == LP_ITEM_SRC ? "client" : "server");
}

/* N = 2 and 3: the explanations that fit equally well, and what would tell them apart. */
static int ambiguous_verdict(struct lp_sweep_run *r, int m, const struct lp_diag *d)
{
	const struct lp_sweep_metric *mt = &r->metrics[m];
	bool pair = r->n == 2;
	char why[768], item[128], noise[160];
	struct lp_verdict ev;

	evidence_init(&ev);
	fmt_noise(noise, sizeof(noise), d);
	snprintf(why, sizeof(why), "%s: %s; candidates:", mt->label,
		 pair ? "pair slow: node or link cannot be told apart with two nodes"
		      : "several explanations fit the cells equally well");
	for (int i = 0; i < d->ncand; i++) {
		fmt_item(item, sizeof(item), r, &d->cand[i]);
		lp_strcatf(why, sizeof(why), "%s %s (%.2fx)", i ? "," : "", item, d->cand[i].ratio);
		ev.ratio = isnan(ev.ratio) ? d->cand[i].ratio : fmin(ev.ratio, d->cand[i].ratio);
	}
	lp_strcatf(why, sizeof(why), "; %s; %s", noise,
		   pair ? "a third node would tell them apart (measure both against it)"
			: "a fourth node, or retests, would tell them apart");
	ev.noise_cv = d->cv;
	ev.ncand = d->ncand;
	memcpy(ev.cand, d->cand, sizeof(ev.cand));
	ev.retests = count_retests(r, m, -1, -1);
	return add_verdict(r, pair ? LP_VERDICT_PAIR_SLOW : LP_VERDICT_AMBIGUOUS, pair ? 0 : -1,
			   pair ? 1 : -1, 0, mt->label, why, &ev);
}

static int inconclusive_verdict(struct lp_sweep_run *r, int m, const struct lp_diag *d)
{
	const struct lp_sweep_metric *mt = &r->metrics[m];
	char why[768], noise[160];
	struct lp_verdict ev;

	evidence_init(&ev);
	ev.noise_cv = d->cv;
	ev.retests = count_retests(r, m, -1, -1);
	fmt_noise(noise, sizeof(noise), d);
	if (d->few_df)
		snprintf(why, sizeof(why),
			 "%s: %d residual degree(s) of freedom among the measured cells (failed "
			 "nodes or cells leave too few): no noise estimate, nothing is named on "
			 "statistics; remedy: the failed node repaired or left out, retests, "
			 "more nodes",
			 mt->label, d->df);
	else
		snprintf(
			why, sizeof(why),
			"%s: %s; the smallest node fault it could detect is %.2fx (a link %.2fx), beyond "
			"--rel-max %.2f: a milder fault could hide, only what stands out by a Student-t "
			"margin at this noise is named; remedy: an isolated schedule "
			"(--schedule isolated), a longer -D, fewer ranks per host, a quieter time",
			mt->label, noise, d->min_node, d->min_link, r->dopts.rel_max);
	return add_verdict(r, LP_VERDICT_INCONCLUSIVE, -1, -1, 0, mt->label, why, &ev);
}

int lp_sweep_diagnose(struct lp_sweep_run *r)
{
	size_t nn = (size_t)r->n * r->n;
	double *v = malloc(nn * sizeof(double)), *best = malloc(nn * sizeof(double));
	double *spread = malloc(nn * sizeof(double));
	uint8_t *fail = malloc(nn), *sched = malloc(nn), *att = malloc(nn);
	int rc = -ENOMEM;

	if (r->diag)
		for (int m = 0; m < r->nmetrics; m++)
			lp_diag_free(&r->diag[m]);
	free(r->diag);
	free(r->verdicts);
	r->verdicts = NULL;
	r->nverdicts = 0;
	r->diag = calloc(r->nmetrics ? r->nmetrics : 1, sizeof(*r->diag));
	if (!v || !best || !spread || !fail || !sched || !att || !r->diag)
		goto out;
	/* nodes whose device did not open: one verdict each, whatever the cells say */
	for (int i = 0; i < r->n; i++)
		if (r->nodes[i].status) {
			char why[256];

			snprintf(why, sizeof(why), "device: %s", r->nodes[i].error);
			rc = add_verdict(r, LP_VERDICT_NODE_FAILED, i, i, LP_NODE_FAILED, "device",
					 why, NULL);
			if (rc)
				goto out;
		}
	for (int m = 0; m < r->nmetrics; m++) {
		struct lp_diag_in in = { .n = r->n,
					 .lat = r->metrics[m].lat,
					 .v = v,
					 .fail = fail,
					 .sched = sched,
					 .att = att,
					 .best = best,
					 .spread = spread };
		const struct lp_diag *d = &r->diag[m];

		rc = lp_sweep_matrix(r, m, v, fail, sched, att, best, spread, &in);
		if (!rc)
			rc = lp_diag_run(&r->diag[m], &in, &r->dopts);
		if (!rc)
			rc = node_verdicts(r, m, d);
		if (!rc)
			rc = link_verdicts(r, m, d);
		if (!rc && d->ambiguous)
			rc = ambiguous_verdict(r, m, d);
		if (!rc && d->inconclusive)
			rc = inconclusive_verdict(r, m, d);
		if (rc)
			goto out;
	}
	rc = lp_sweep_load_diagnose(r);
	if (!rc) /* after every verdict: each cites what moved on its nodes */
		rc = lp_sweep_evidence(r);
out:
	free(v);
	free(fail);
	free(sched);
	free(att);
	free(best);
	free(spread);
	return rc;
}

size_t lp_sweep_missing(const struct lp_sweep_run *r, uint8_t *miss)
{
	size_t n = (size_t)r->n, nm = (size_t)r->nmetrics, cnt = 0;
	uint8_t *have;

	if (!r->sched || !nm)
		return 0;
	have = calloc(n * n * nm, 1);
	if (!have)
		return 0;
	for (size_t i = 0; i < r->ncells; i++)
		have[((size_t)r->cells[i].a * n + (size_t)r->cells[i].b) * nm +
		     (size_t)r->cells[i].metric] = 1;
	if (miss)
		memset(miss, 0, n * n * nm);
	for (size_t i = 0; i < r->sched->nslots; i++) {
		const struct lp_slot *sl = &r->sched->slots[i];

		for (int d = 0; d < 2; d++) {
			size_t a = (size_t)(d ? sl->y : sl->x), b = (size_t)(d ? sl->x : sl->y);

			if (!(sl->dirs & (d ? LP_DIR_YX : LP_DIR_XY)) || a >= n || b >= n)
				continue;
			for (size_t m = 0; m < nm; m++) {
				size_t k = (a * n + b) * nm + m;

				if (have[k])
					continue;
				have[k] = 1; /* a pair scheduled twice counts once */
				cnt++;
				if (miss)
					miss[k] = 1;
			}
		}
	}
	free(have);
	return cnt;
}

int lp_sweep_exit_code(const struct lp_sweep_run *r)
{
	int code = LP_EXIT_OK;

	if (lp_sweep_missing(r, NULL))
		return LP_EXIT_FAIL; /* not every scheduled cell was measured: not a pass */

	for (int i = 0; i < r->nverdicts; i++) {
		if (r->verdicts[i].kind != LP_VERDICT_INCONCLUSIVE)
			return LP_EXIT_FAIL;
		code = LP_SWEEP_EXIT_INCONCLUSIVE;
	}
	return code;
}

static bool have_pair(const int32_t *pairs, size_t np, int a, int b)
{
	for (size_t i = 0; i < np; i++)
		if (pairs[2 * i] == a && pairs[2 * i + 1] == b)
			return true;
	return false;
}

size_t lp_sweep_suspects(const struct lp_sweep_run *r, int per_node, int round, int32_t *pairs,
			 size_t max)
{
	size_t np = 0;
	int n = r->n;

	if (!r->diag)
		return 0;
#define PUSH(a_, b_)                                                                               \
	do {                                                                                       \
		if (np < max && !r->nodes[a_].status && !r->nodes[b_].status &&                    \
		    !have_pair(pairs, np, a_, b_)) {                                               \
			pairs[2 * np] = a_;                                                        \
			pairs[2 * np + 1] = b_;                                                    \
			np++;                                                                      \
		}                                                                                  \
	} while (0)
	/* links and cells close to one first: the verdicts a transient blip fakes most easily */
	for (int m = 0; m < r->nmetrics; m++)
		for (int a = 0; a < n; a++)
			for (int b = 0; b < n; b++)
				if (r->diag[m].link[(size_t)a * n + b] ||
				    r->diag[m].suspect[(size_t)a * n + b])
					PUSH(a, b);
	for (int m = 0; m < r->nmetrics; m++) {
		const struct lp_diag *d = &r->diag[m];

		for (int i = 0; i < n; i++) {
			/*
			 * A role never retested gets its look whatever the round (a role
			 * may first stand out after another one's retests moved the fit);
			 * later, a unanimous vote is settled, a split one is worth another.
			 */
			bool src = (d->node[i] & LP_NODE_SLOW_SRC) &&
				   (!round || !count_retests(r, m, i, -1) ||
				    d->slow_src[i] < d->n_src[i]);
			bool dst = (d->node[i] & LP_NODE_SLOW_DST) &&
				   (!round || !count_retests(r, m, -1, i) ||
				    d->slow_dst[i] < d->n_dst[i]);

			/* against the healthiest partners: the best effect in the matching role */
			for (int dir = 0; dir < 2; dir++) {
				const double *eff = dir ? d->eff_src : d->eff_dst;
				int got = 0;

				if (!(dir ? dst : src))
					continue;
				while (got < per_node) {
					int best = -1;

					for (int j = 0; j < n; j++) {
						size_t x =
							dir ? (size_t)j * n + i : (size_t)i * n + j;

						if (j != i && !d->node[j] &&
						    d->cls[x] == LP_CELL_SLOW &&
						    !have_pair(pairs, np, dir ? j : i,
							       dir ? i : j) &&
						    (best < 0 || eff[j] > eff[best]))
							best = j;
					}
					if (best < 0 || np >= max)
						break;
					if (dir)
						PUSH(best, i);
					else
						PUSH(i, best);
					got++;
				}
			}
		}
	}
#undef PUSH
	return np;
}

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
	lp_json_obj_end(j);
}

/* One metric's matrix as lp_sweep_matrix fills it: n*n values, failed and scheduled flags. */
struct matrix {
	double *v;
	uint8_t *fail, *sched;
};

static void matrix_free(struct matrix *mx)
{
	free(mx->v);
	free(mx->fail);
	free(mx->sched);
}

static int matrix_alloc(struct matrix *mx, int n)
{
	size_t nn = (size_t)n * n;

	mx->v = malloc(nn * sizeof(double));
	mx->fail = malloc(nn);
	mx->sched = malloc(nn);
	if (mx->v && mx->fail && mx->sched)
		return 0;
	matrix_free(mx);
	return -ENOMEM;
}

static int matrix_fill(const struct lp_sweep_run *r, int m, struct matrix *mx)
{
	return lp_sweep_matrix(r, m, mx->v, mx->fail, mx->sched, NULL, NULL, NULL, NULL);
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
static void json_matrix(struct lp_json *j, int n, const struct matrix *mx, const struct lp_diag *d)
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

static void json_metric(struct lp_json *j, const struct lp_sweep_run *r, int m, struct matrix *mx)
{
	const struct lp_sweep_metric *mt = &r->metrics[m];
	const struct lp_diag *d = r->diag ? &r->diag[m] : NULL;

	matrix_fill(r, m, mx);
	lp_json_obj_begin(j, NULL);
	lp_json_int(j, "index", m);
	lp_json_str(j, "label", mt->label);
	lp_json_str(j, "test", mt->test);
	lp_json_uint(j, "size", mt->size);
	lp_json_str(j, "kind", mt->lat ? "latency" : "bandwidth");
	lp_json_str(j, "unit", unit_of(mt));
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

/*
 * A cell's "latency_us" and "bandwidth" objects in linkperf.sweep/1: their
 * keys, declared once for the writer and the reader (--diagnose). The summary's
 * keys are this schema's own ("n", "p999"), not lp_summary_record's.
 */
/* clang-format off */
static const struct lp_record cell_lat_json = LP_RECORD(struct lp_sweep_cell,
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

static const struct lp_record cell_bw_json = LP_RECORD(struct lp_sweep_cell,
	LP_REC_F64(struct lp_sweep_cell, gbytes_s),
	LP_REC_F64(struct lp_sweep_cell, gbits_s),
	LP_REC_F64(struct lp_sweep_cell, mmsg_s),
	LP_REC_F64(struct lp_sweep_cell, pct_link));
/* clang-format on */

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
	lp_json_str(j, "unit", unit_of(mt));
	lp_json_num(j, "wall_s", c->wall_s);
	lp_json_uint(j, "iters", c->iters);
	lp_json_num(j, "interval_min", c->ival_min);
	lp_json_num(j, "interval_max", c->ival_max);
	lp_json_obj_begin(j, mt->lat ? "latency_us" : "bandwidth");
	lp_record_json(mt->lat ? &cell_lat_json : &cell_bw_json, c, j);
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
	lp_json_int(j, "tclass", r->tclass);
	lp_json_int(j, "sl", r->sl);
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

/* A link verdict: link slow or failed, or errors on a pair. */
static bool is_link(const struct lp_verdict *vd)
{
	return vd->kind == LP_VERDICT_LINK_SLOW || vd->kind == LP_VERDICT_LINK_FAILED ||
	       (vd->kind == LP_VERDICT_ERRORS && vd->a != vd->b);
}

static void json_verdict(struct lp_json *j, const struct lp_sweep_run *r,
			 const struct lp_verdict *vd)
{
	lp_json_obj_begin(j, NULL);
	lp_json_str(j, "kind", lp_verdict_names[vd->kind]);
	if (is_link(vd)) {
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

/*
 * Each ordered pair with scheduled cells that were never measured (an
 * interrupted or incomplete run): "missing": [{client, server, names, metrics}].
 * cb is called per pair with the metrics' labels joined by ", ".
 */
static size_t each_missing(const struct lp_sweep_run *r,
			   void (*cb)(void *arg, const struct lp_sweep_run *r, int a, int b,
				      const char *labels),
			   void *arg)
{
	size_t n = (size_t)r->n, nm = (size_t)r->nmetrics;
	uint8_t *miss = r->sched ? malloc(n * n * nm + 1) : NULL;
	size_t cnt = miss ? lp_sweep_missing(r, miss) : 0;

	for (size_t x = 0; cnt && x < n * n; x++) {
		char labels[LP_SWEEP_MAX_METRICS * 34] = "";

		for (size_t m = 0; m < nm; m++)
			if (miss[x * nm + m])
				snprintf(labels + strlen(labels), sizeof(labels) - strlen(labels),
					 "%s%s", labels[0] ? ", " : "", r->metrics[m].label);
		if (labels[0])
			cb(arg, r, (int)(x / n), (int)(x % n), labels);
	}
	free(miss);
	return cnt;
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
	each_missing(r, json_missing_pair, j);
	lp_json_arr_end(j);
}

int lp_sweep_write_json(const struct lp_sweep_run *r, FILE *f, int exit_code)
{
	struct matrix mx;
	struct lp_json j;
	int rc;

	if (matrix_alloc(&mx, r->n))
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
	lp_json_arr_begin(&j, "verdicts");
	for (int i = 0; i < r->nverdicts; i++)
		json_verdict(&j, r, &r->verdicts[i]);
	lp_json_arr_end(&j);
	lp_sweep_evidence_json(&j, r);
	lp_json_int(&j, "exit_code", exit_code);
	lp_json_obj_end(&j);
	rc = lp_json_finish(&j);
	matrix_free(&mx);
	return rc;
}

/* ---- CSV ---- */

/* A number, or an empty field when there is none (NaN). */
static void csv_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.6g", v);
}

/* PREFIX-<test>-<size>.csv: the matrix of metric m, ERR for failed cells. */
static int csv_matrix(const struct lp_sweep_run *r, int m, const char *prefix, struct matrix *mx)
{
	const struct lp_sweep_metric *mt = &r->metrics[m];
	char path[4096], buf[64];
	FILE *f;

	snprintf(path, sizeof(path), "%s-%s-%llu.csv", prefix, mt->test,
		 (unsigned long long)mt->size);
	if (matrix_fill(r, m, mx))
		return -ENOMEM;
	f = lp_out_open(path);
	if (!f)
		return -EIO;
	snprintf(buf, sizeof(buf), "client\\server [%s]", unit_of(mt));
	lp_csv_field(f, buf, 0);
	for (int b = 0; b < r->n; b++)
		lp_csv_field(f, r->nodes[b].name, b == r->n - 1);
	for (int a = 0; a < r->n; a++) {
		lp_csv_field(f, r->nodes[a].name, 0);
		for (int b = 0; b < r->n; b++) {
			size_t x = (size_t)a * r->n + b;

			if (mx->fail[x])
				snprintf(buf, sizeof(buf), "ERR");
			else if (isfinite(mx->v[x]))
				snprintf(buf, sizeof(buf), "%.6g", mx->v[x]);
			else
				buf[0] = 0;
			lp_csv_field(f, buf, b == r->n - 1);
		}
	}
	return lp_out_close(f, path);
}

/* PREFIX-cells.csv: one row per cell, sweep and retests. */
static int csv_cells(const struct lp_sweep_run *r, const char *prefix)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s-cells.csv", prefix);
	f = lp_out_open(path);
	if (!f)
		return -EIO;
	fprintf(f, "test,size,client,server,client_name,server_name,phase,round,status,value,unit,"
		   "p50_us,p99_us,gbits_s,wall_s,error,run_interrupted,attempt,run_incomplete\n");
	for (size_t i = 0; i < r->ncells; i++) {
		const struct lp_sweep_cell *c = &r->cells[i];
		const struct lp_sweep_metric *mt = &r->metrics[c->metric];

		fprintf(f, "%s,%llu,%d,%d,", mt->test, (unsigned long long)mt->size, c->a, c->b);
		lp_csv_field(f, r->nodes[c->a].name, 0);
		lp_csv_field(f, r->nodes[c->b].name, 0);
		fprintf(f, "%s,%d,%d,", lp_sweep_phase_names[c->phase], c->round, c->status);
		csv_num(f, c->value);
		fprintf(f, ",%s,", unit_of(mt));
		csv_num(f, c->lat.p50);
		fputc(',', f);
		csv_num(f, c->lat.p99);
		fputc(',', f);
		csv_num(f, c->gbits_s);
		fprintf(f, ",%.3f,", c->wall_s);
		lp_csv_field(f, c->status ? c->error : "", 0);
		fprintf(f, "%d,%d,%d\n", r->interrupted, c->attempt, r->incomplete);
	}
	return lp_out_close(f, path);
}

int lp_sweep_write_csv(const struct lp_sweep_run *r, const char *prefix)
{
	struct matrix mx;
	int rc;

	if (matrix_alloc(&mx, r->n))
		return -ENOMEM;
	for (int m = 0; m < r->nmetrics; m++) {
		rc = csv_matrix(r, m, prefix, &mx);
		if (rc)
			goto out;
	}
	rc = csv_cells(r, prefix);
	if (!rc)
		rc = lp_sweep_load_csv(r, prefix);
out:
	matrix_free(&mx);
	return rc;
}

/* ---- summary ---- */

/* Metric m's matrix as a table (! slow, x failed), with its reference and noise. */
static void summary_metric(FILE *f, const struct lp_sweep_run *r, int m, const struct matrix *mx,
			   int w)
{
	const struct lp_sweep_metric *mt = &r->metrics[m];
	const struct lp_diag *d = r->diag ? &r->diag[m] : NULL;
	int n = r->n;
	char ref[32];

	fmt_val(ref, sizeof(ref), d ? d->ref : NAN, mt->lat);
	fprintf(f,
		"\n%s [%s], rows = client, columns = server; reference %s %s (! slow, x failed)\n",
		mt->label, mt->lat ? "one-way p50 us" : "Gb/s", ref, unit_of(mt));
	if (d) {
		char noise[160];

		fmt_noise(noise, sizeof(noise), d);
		fprintf(f, "  %s; smallest detectable fault: node %.2fx, link %.2fx%s\n", noise,
			d->min_node, d->min_link, d->inconclusive ? " (inconclusive)" : "");
	}
	if (n > 32) {
		fprintf(f, "  (matrix of %d nodes: see the CSV/JSON)\n", n);
		return;
	}
	fprintf(f, "%*s", w, "");
	for (int b = 0; b < n; b++)
		fprintf(f, " %*.*s", w, w, r->nodes[b].name);
	fprintf(f, "\n");
	for (int a = 0; a < n; a++) {
		fprintf(f, "%*.*s", w, w, r->nodes[a].name);
		for (int b = 0; b < n; b++) {
			size_t x = (size_t)a * n + b;
			char cell[40], val[32];
			uint8_t c = d ? d->cls[x] : LP_CELL_NONE;

			if (a == b)
				snprintf(cell, sizeof(cell), "-");
			else if (mx->fail[x])
				snprintf(cell, sizeof(cell), "x");
			else {
				fmt_val(val, sizeof(val), mx->v[x], mt->lat);
				snprintf(cell, sizeof(cell), "%s%s", val,
					 c == LP_CELL_SLOW ? "!" : "");
			}
			fprintf(f, " %*s", w, cell);
		}
		fprintf(f, "\n");
	}
}

static void summary_verdict(FILE *f, const struct lp_sweep_run *r, const struct lp_verdict *vd)
{
	if (vd->a < 0 || vd->kind == LP_VERDICT_PAIR_SLOW)
		fprintf(f, "verdict: %s: %s\n", lp_verdict_names[vd->kind], vd->reason);
	else if (is_link(vd))
		fprintf(f, "verdict: %s %s%s%s: %s\n", lp_verdict_names[vd->kind],
			r->nodes[vd->dirs == LP_DIR_YX ? vd->b : vd->a].name,
			vd->dirs == LP_DIR_BOTH ? "<->" : "->",
			r->nodes[vd->dirs == LP_DIR_YX ? vd->a : vd->b].name, vd->reason);
	else
		fprintf(f, "verdict: %s %s: %s\n", lp_verdict_names[vd->kind], r->nodes[vd->a].name,
			vd->reason);
}

struct missing_lines {
	FILE *f;
	int shown;
};

static void summary_missing_pair(void *arg, const struct lp_sweep_run *r, int a, int b,
				 const char *labels)
{
	struct missing_lines *ml = arg;

	if (ml->shown++ < 20)
		fprintf(ml->f, "  missing: %s -> %s: %s\n", r->nodes[a].name, r->nodes[b].name,
			labels);
}

/* An incomplete run says so, and which cells it lacks (the first 20 pairs; the JSON has all). */
static void summary_missing(FILE *f, const struct lp_sweep_run *r)
{
	struct missing_lines ml = { f, 0 };
	size_t cnt = lp_sweep_missing(r, NULL);

	if (!cnt && !r->incomplete)
		return;
	fprintf(f, "run incomplete%s: %zu scheduled cell(s) never measured\n",
		r->incomplete ? " (the journal has no end)" : "", cnt);
	each_missing(r, summary_missing_pair, &ml);
	if (ml.shown > 20)
		fprintf(f, "  ... and %d more pair(s) (see the JSON's \"missing\")\n",
			ml.shown - 20);
}

void lp_sweep_print_summary(const struct lp_sweep_run *r, FILE *f)
{
	struct matrix mx;
	int w = 8;

	if (matrix_alloc(&mx, r->n))
		return;
	for (int i = 0; i < r->n; i++)
		w = LP_MAX(w, (int)strlen(r->nodes[i].name) + 1);
	w = LP_MIN(w, 20);
	fprintf(f, "lp-sweep: %d nodes, schedule %s, %zu rounds, %zu cells (%zu retests), %.1f s\n",
		r->n, r->sched_name, r->sched ? r->sched->nrounds : 0, r->ncells, r->nretests,
		r->wall_s);
	for (int m = 0; m < r->nmetrics; m++) {
		if (matrix_fill(r, m, &mx))
			break;
		summary_metric(f, r, m, &mx, w);
	}
	lp_sweep_load_summary(r, f);
	fprintf(f, "\n");
	summary_missing(f, r);
	if (r->nverdicts == 0)
		fprintf(f, "verdict: healthy (nothing flagged)\n");
	for (int i = 0; i < r->nverdicts; i++)
		summary_verdict(f, r, &r->verdicts[i]);
	matrix_free(&mx);
}

/* ---- the records ranks send rank 0 ---- */

/* clang-format off */
const struct lp_record lp_sweep_node_record = LP_RECORD(struct lp_sweep_node,
	LP_REC_I32(struct lp_sweep_node, rank),
	LP_REC_I32(struct lp_sweep_node, rail),
	LP_REC_STR(struct lp_sweep_node, host),
	LP_REC_STR(struct lp_sweep_node, name),
	LP_REC_I32(struct lp_sweep_node, status),
	LP_REC_STR(struct lp_sweep_node, error),
	LP_REC_NEST(struct lp_sweep_node, dev, lp_rdma_devinfo_record),
	LP_REC_STR(struct lp_sweep_node, mem),
	LP_REC_STR(struct lp_sweep_node, gpu_bdf),
	LP_REC_STR(struct lp_sweep_node, gpu_nic),
	LP_REC_STR(struct lp_sweep_node, kernel));

static const struct lp_record ctr_end_record = LP_RECORD(struct lp_sweep_ctr_end,
	LP_REC_BOOL(struct lp_sweep_ctr_end, valid),
	LP_REC_U32(struct lp_sweep_ctr_end, more),
	LP_REC_U32(struct lp_sweep_ctr_end, n, LP_REC_RANGE(0, LP_SWEEP_CELL_CTR)),
	LP_REC_ARRAY_NEST(struct lp_sweep_ctr_end, c, n, lp_counter_record));

const struct lp_record lp_sweep_cell_record = LP_RECORD(struct lp_sweep_cell,
	LP_REC_I32(struct lp_sweep_cell, metric),
	LP_REC_I32(struct lp_sweep_cell, a),
	LP_REC_I32(struct lp_sweep_cell, b),
	LP_REC_I32(struct lp_sweep_cell, phase, LP_REC_RANGE(LP_PHASE_SWEEP, LP_PHASE_INCAST_VICTIM)),
	LP_REC_I32(struct lp_sweep_cell, round),
	LP_REC_I32(struct lp_sweep_cell, attempt),
	LP_REC_I32(struct lp_sweep_cell, status),
	LP_REC_STR(struct lp_sweep_cell, error),
	LP_REC_F64(struct lp_sweep_cell, value),
	LP_REC_F64(struct lp_sweep_cell, wall_s),
	LP_REC_NEST(struct lp_sweep_cell, lat, lp_summary_record),
	LP_REC_BOOL(struct lp_sweep_cell, halved),
	LP_REC_F64(struct lp_sweep_cell, gbytes_s),
	LP_REC_F64(struct lp_sweep_cell, gbits_s),
	LP_REC_F64(struct lp_sweep_cell, mmsg_s),
	LP_REC_F64(struct lp_sweep_cell, pct_link),
	LP_REC_U64(struct lp_sweep_cell, iters),
	LP_REC_F64(struct lp_sweep_cell, ival_min, LP_REC_KEY("interval_min")),
	LP_REC_F64(struct lp_sweep_cell, ival_max, LP_REC_KEY("interval_max")),
	LP_REC_NEST(struct lp_sweep_cell, ctr_client, ctr_end_record),
	LP_REC_NEST(struct lp_sweep_cell, ctr_server, ctr_end_record));
/* clang-format on */

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
		lp_record_read_json(&cell_lat_json, &c, l, NULL, 0);
	if (b)
		lp_record_read_json(&cell_bw_json, &c, b, NULL, 0);
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
	r->tclass = json_is_integer(json_object_get(run, "tclass")) ? (int)jint(run, "tclass") : -1;
	r->sl = (int)jint(run, "sl");
	r->bw_iters = (uint64_t)jint(run, "bw_iters");
	r->lat_iters = (uint64_t)jint(run, "lat_iters");
	r->nretests = (size_t)jint(run, "retests");
	r->interrupted = json_is_true(json_object_get(run, "interrupted"));
	r->incomplete = json_is_true(json_object_get(run, "incomplete"));
	r->attempt =
		json_is_integer(json_object_get(run, "attempt")) ? (int)jint(run, "attempt") : 1;
	jstr(run, "resumed_from", r->resumed, sizeof(r->resumed));
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
