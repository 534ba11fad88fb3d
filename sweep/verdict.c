// SPDX-License-Identifier: MIT
/* lp-sweep verdicts: the diagnosis of every metric turned into named nodes and links, and the exit code. */
#include "sweep/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "common/table.h"
#include "sweep/load.h"

const char *const lp_verdict_names[] = { "node_slow",	 "node_failed",	  "link_slow",
					 "link_failed",	 "pair_slow",	  "ambiguous",
					 "inconclusive", "errors",	  "load_impact",
					 "incast_slow",	 "incast_unfair", NULL };

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
			lp_sweep_fmt_val(v, sizeof(v), c->value, r->metrics[m].lat);
		lp_strcatf(buf, len, " %s%s", v, c->phase == LP_PHASE_RETEST ? "" : " (sweep)");
	}
}

static int node_verdicts(struct lp_sweep_run *r, int m, const struct lp_diag *d)
{
	const struct lp_sweep_metric *mt = &r->metrics[m];
	char ref[32], why[512], noise[160];
	int rc = 0;

	lp_sweep_fmt_val(ref, sizeof(ref), d->ref, mt->lat);
	lp_sweep_fmt_noise(noise, sizeof(noise), d);
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
			ev.retests = lp_sweep_count_retests(r, m, dir ? -1 : i, dir ? i : -1);
			lp_sweep_fmt_val(vs, sizeof(vs), value_of(d, score), mt->lat);
			snprintf(
				why, sizeof(why),
				"%s as %s: effect %.2fx (%s against %s %s; %.1f standard errors), %d of %d "
				"partners agree, %d retests, %s",
				mt->label, dir ? "server" : "client", score, vs, ref,
				lp_sweep_unit(mt), ev.z, ev.agree, ev.cells, ev.retests, noise);
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

	lp_sweep_fmt_val(ref, sizeof(ref), d->ref, mt->lat);
	lp_sweep_fmt_noise(noise, sizeof(noise), d);
	for (int a = 0; a < n && !rc; a++)
		for (int b = 0; b < n && !rc; b++) {
			size_t x = (size_t)a * n + b;
			int lo = LP_MIN(a, b), hi = LP_MAX(a, b);
			unsigned dir = a < b ? LP_DIR_XY : LP_DIR_YX;
			const struct lp_sweep_cell *sw, *re;
			struct lp_verdict ev;

			if (!d->link[x])
				continue;
			sw = lp_sweep_find_cell(r, m, a, b, LP_PHASE_SWEEP);
			re = lp_sweep_find_cell(r, m, a, b, LP_PHASE_RETEST);
			evidence_init(&ev);
			ev.cells = 1;
			ev.retests = lp_sweep_count_retests(r, m, a, b);
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
				lp_sweep_fmt_val(vs, sizeof(vs), value_of(d, d->ratio[x]), mt->lat);
				if (re) /* every attempt, so a reader sees it was not a blip */
					attempts(r, m, a, b, rs, sizeof(rs));
				snprintf(
					why, sizeof(why),
					"%s %s->%s: %s against %s %s (%.2fx of the reference, %.2fx of what "
					"both nodes do with others; %.1f standard errors%s)%s, %d retests, %s; "
					"both nodes fine with other partners",
					mt->label, r->nodes[a].name, r->nodes[b].name, vs, ref,
					lp_sweep_unit(mt), d->ratio[x], ev.ratio, ev.z, rs,
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
	lp_sweep_fmt_noise(noise, sizeof(noise), d);
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
	ev.retests = lp_sweep_count_retests(r, m, -1, -1);
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
	ev.retests = lp_sweep_count_retests(r, m, -1, -1);
	lp_sweep_fmt_noise(noise, sizeof(noise), d);
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
