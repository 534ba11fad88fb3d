// SPDX-License-Identifier: MIT
/* lp-sweep verdicts: the diagnosis of every metric turned into named nodes and links, and the exit code. */
#include "sweep/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "common/table.h"
#include "sweep/dist.h"
#include "sweep/load.h"

const char *const lp_verdict_names[] = {
	"node_slow",   "node_failed", "link_slow",     "link_failed",
	"pair_slow",   "ambiguous",   "inconclusive",  "errors",
	"load_impact", "incast_slow", "incast_unfair", "switch_slow",
	"uplink_slow", "rail_slow",   "group_suspect", "unconfirmed",
	NULL
};

#define UNCONF_NAMED 32 /* unconfirmed link cells named one by one per metric (worst first) */

/* ---- verdicts ---- */

/* Numbers behind a verdict: the evidence of one metric. */
static void evidence_init(struct lp_verdict *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->ratio = ev->z = ev->noise_cv = ev->p = ev->level = ev->frac = NAN;
}

static int add_verdict(struct lp_sweep_run *r, enum lp_verdict_kind kind, int a, int b,
		       unsigned dirs, const char *label, const char *reason,
		       const struct lp_verdict *ev)
{
	struct lp_verdict *v = NULL;

	for (int i = 0; i < r->nverdicts; i++)
		if (r->verdicts[i].kind == kind && r->verdicts[i].a == a && r->verdicts[i].b == b &&
		    !strcmp(r->verdicts[i].group, ev ? ev->group : "") &&
		    (!ev || !ev->nmembers || r->verdicts[i].nmembers == ev->nmembers))
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
		v->p = ev->p;
		v->level = ev->level;
		v->partial = ev->partial;
		v->frac = ev->frac;
	}
	if (ev && !v->group[0] && !v->nmembers) { /* a group's identity, once */
		memcpy(v->group, ev->group, sizeof(v->group));
		memcpy(v->scope, ev->scope, sizeof(v->scope));
		v->nmembers = ev->nmembers;
		v->nlisted = ev->nlisted;
		memcpy(v->members, ev->members, sizeof(v->members));
	}
	if (ev && ev->settle[0] && !v->settle[0])
		memcpy(v->settle, ev->settle, sizeof(v->settle));
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
		const struct lp_sweep_att *c = &r->cells[k];

		if (c->metric == metric && c->status && (c->a == i || c->b == i))
			return lp_sweep_att_error(r, c);
	}
	return "";
}

/* ", attempts: 0.0136, 0.0141, failed" over the sweep and retests of one cell. */
static void attempts(const struct lp_sweep_run *r, int m, int a, int b, char *buf, size_t len)
{
	snprintf(buf, len, ", attempts:");
	for (size_t k = 0; k < r->ncells; k++) {
		const struct lp_sweep_att *c = &r->cells[k];
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

/* "--tests write_bw -s 1M" (or --lat-sizes) for metric m: what an lp-rdma or lp-sweep command runs. */
static void metric_args(const struct lp_sweep_metric *mt, char *buf, size_t len)
{
	snprintf(buf, len, "-t %s -s %llu", mt->test, (unsigned long long)mt->size);
}

/* The command that settles an unconfirmed link a -> b: lp-rdma between the two, three times. */
static void settle_link(const struct lp_sweep_run *r, int m, int a, int b, char *buf, size_t len)
{
	char args[64];

	metric_args(&r->metrics[m], args, sizeof(args));
	snprintf(buf, len, "on %s: lp-rdma --server%s%s; on %s, three times: lp-rdma %s%s%s %s",
		 r->nodes[b].host, r->nodes[b].dev.name[0] ? " -d " : "", r->nodes[b].dev.name,
		 r->nodes[a].host, r->nodes[b].host, r->nodes[a].dev.name[0] ? " -d " : "",
		 r->nodes[a].dev.name, args);
}

/* The command that settles a node's close call: an isolated sweep with three healthy partners. */
static void settle_node(const struct lp_sweep_run *r, int m, const struct lp_diag *d, int i,
			char *buf, size_t len)
{
	char args[64], hosts[256];
	int got = 0;

	metric_args(&r->metrics[m], args, sizeof(args));
	snprintf(hosts, sizeof(hosts), "%s", r->nodes[i].host);
	for (int j = 0; j < r->n && got < 3; j++)
		if (j != i && !d->node[j] && !d->unode[j] && !r->nodes[j].status) {
			lp_strcatf(hosts, sizeof(hosts), ",%s", r->nodes[j].host);
			got++;
		}
	snprintf(buf, len, "mpirun -np %d --host %s lp-sweep --schedule isolated %s", got + 1,
		 hosts, args);
}

/* P(effect this low | healthy) for a node effect at z standard errors (the residuals' df). */
static double node_p(const struct lp_diag *d, double z)
{
	return isfinite(z) ? lp_dist_t_sf(-z, d->df > 0 ? d->df : 1) : NAN;
}

/* A node slow in a share of its cells only: its slow cells' median, how many. */
static void node_partial(const struct lp_sweep_run *r, const struct lp_diag *d, int i, int dir,
			 struct lp_verdict *ev)
{
	int slow = 0;
	double *v = malloc((size_t)r->n * sizeof(double));

	LP_DIAG_PEERS (&d->lay, i, j) {
		size_t x = dir ? lp_diag_at(&d->lay, j, i) : lp_diag_at(&d->lay, i, j);

		if (v && d->link[x] & LP_LINK_PARTIAL)
			v[slow++] = d->ratio[x];
	}
	ev->partial = true;
	ev->cells = dir ? d->n_dst[i] : d->n_src[i];
	ev->agree = slow;
	ev->frac = ev->cells ? (double)slow / ev->cells : NAN;
	ev->ratio = slow ? lp_median(v, (size_t)slow) : NAN;
	ev->level = d->alpha_node;
	free(v);
}

static int node_role_verdict(struct lp_sweep_run *r, int m, const struct lp_diag *d, int i, int dir,
			     const char *ref, const char *noise)
{
	const struct lp_sweep_metric *mt = &r->metrics[m];
	unsigned flag = dir ? LP_NODE_SLOW_DST : LP_NODE_SLOW_SRC;
	double score = dir ? d->score_dst[i] : d->score_src[i];
	double se = dir ? d->se_dst[i] : d->se_src[i];
	bool named = d->node[i] & flag, partial = named && (d->node[i] & LP_NODE_PARTIAL);
	struct lp_verdict ev;
	char vs[32], why[640];

	if (!named && !(d->unode[i] & flag))
		return 0;
	evidence_init(&ev);
	ev.ratio = score;
	ev.z = se > 0 ? log(score) / se : NAN;
	ev.p = node_p(d, ev.z);
	ev.level = d->alpha_node;
	ev.noise_cv = d->cv;
	ev.cells = dir ? d->n_dst[i] : d->n_src[i];
	ev.agree = dir ? d->slow_dst[i] : d->slow_src[i];
	ev.retests = lp_sweep_count_retests(r, m, dir ? -1 : i, dir ? i : -1);
	lp_sweep_fmt_val(vs, sizeof(vs), value_of(d, score), mt->lat);
	if (partial) {
		node_partial(r, d, i, dir, &ev);
		snprintf(why, sizeof(why),
			 "%s as %s: %d of %d cells slow, at %.2fx (median), the others healthy "
			 "(effect %.2fx): a partial fault, one of its paths (a port, a cable, an "
			 "uplink its flows hash onto); %d retests, %s",
			 mt->label, dir ? "server" : "client", ev.agree, ev.cells, ev.ratio, score,
			 ev.retests, noise);
	} else {
		char ps[32], as[32], z[96]; /* p values as people read them: no exponent */
		unsigned both = LP_NODE_SLOW_SRC | LP_NODE_SLOW_DST;

		lp_fmt_sig(ps, sizeof(ps), ev.p, 2);
		lp_fmt_sig(as, sizeof(as), d->alpha_node, 2);
		snprintf(z, sizeof(z), "%.1f standard errors", ev.z);
		if (named && (d->node[i] & both) == both && !(ev.z <= -d->t_node)) {
			ev.z = log(d->score_src[i] * d->score_dst[i]) /
			       hypot(d->se_src[i], d->se_dst[i]);
			ev.p = node_p(d, ev.z);
			lp_fmt_sig(ps, sizeof(ps), ev.p, 2);
			lp_strcatf(z, sizeof(z), ", %.1f with its other direction (one test)",
				   ev.z);
		}
		snprintf(why, sizeof(why),
			 "%s as %s: effect %.2fx (%s against %s %s; %s%s %.1f, "
			 "p %s against %s per test), %d of %d partners agree, %d retests, %s",
			 mt->label, dir ? "server" : "client", score, vs, ref, lp_sweep_unit(mt), z,
			 named ? ", beyond" : ", short of", -d->t_node, ps, as, ev.agree, ev.cells,
			 ev.retests, noise);
	}
	if (!named) {
		settle_node(r, m, d, i, ev.settle, sizeof(ev.settle));
		lp_strcatf(why, sizeof(why), "; a close call: unconfirmed; settle: %s", ev.settle);
	}
	return add_verdict(r, named ? LP_VERDICT_NODE_SLOW : LP_VERDICT_UNCONFIRMED, i, i,
			   flag | (partial ? LP_NODE_PARTIAL : 0), mt->label, why, &ev);
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
		for (int dir = 0; dir < 2 && !rc; dir++)
			rc = node_role_verdict(r, m, d, i, dir, ref, noise);
	}
	return rc;
}

/* Link a -> b slow, confirmed by its retests. */
static int link_slow_verdict(struct lp_sweep_run *r, int m, const struct lp_diag *d, int a, int b,
			     struct lp_verdict *ev, const char *ref, const char *noise)
{
	const struct lp_sweep_metric *mt = &r->metrics[m];
	size_t x = lp_diag_at(&d->lay, a, b);
	char vs[32], rs[160] = "", why[768], ps[32], ls[32];

	ev->ratio = exp(d->resid[x]);
	ev->z = d->zlink[x];
	ev->noise_cv = d->cv;
	ev->p = d->pconf[x];
	ev->level = d->thr_conf;
	lp_sweep_fmt_val(vs, sizeof(vs), value_of(d, d->ratio[x]), mt->lat);
	attempts(r, m, a, b, rs,
		 sizeof(rs)); /* every attempt, so a reader sees it was not a blip */
	lp_fmt_sig(ps, sizeof(ps), ev->p, 2);
	lp_fmt_sig(ls, sizeof(ls), ev->level, 2);
	snprintf(
		why, sizeof(why),
		"%s %s->%s: %s against %s %s (%.2fx of the reference, %.2fx of what both nodes do "
		"with others; %.1f standard errors%s)%s, confirmed by %d retests (p %s, BH "
		"threshold %s; transients at most %.1f%% of attempts), %s; both nodes fine with other "
		"partners",
		mt->label, r->nodes[a].name, r->nodes[b].name, vs, ref, lp_sweep_unit(mt),
		d->ratio[x], ev->ratio, ev->z, rs,
		d->abs_bad[x] ? ", below the absolute floor" : "", ev->retests, ps, ls,
		100 * d->blip, noise);
	return add_verdict(r, LP_VERDICT_LINK_SLOW, LP_MIN(a, b), LP_MAX(a, b),
			   a < b ? LP_DIR_XY : LP_DIR_YX, mt->label, why, ev);
}

/* Link a -> b stood out once (or its retests are still too few): unconfirmed, with its settle. */
static int link_unconf_verdict(struct lp_sweep_run *r, int m, const struct lp_diag *d, int a, int b,
			       struct lp_verdict *ev)
{
	const struct lp_sweep_metric *mt = &r->metrics[m];
	size_t x = lp_diag_at(&d->lay, a, b);
	char rs[160] = "", why[768], ps[32];

	ev->ratio = d->ratio[x];
	ev->z = d->zlink[x];
	ev->noise_cv = d->cv;
	ev->p = isfinite(d->pconf[x]) ? d->pconf[x] : d->pfirst[x];
	ev->level = isfinite(d->pconf[x]) ? d->thr_conf : d->thr_first;
	attempts(r, m, a, b, rs, sizeof(rs));
	settle_link(r, m, a, b, ev->settle, sizeof(ev->settle));
	lp_fmt_sig(ps, sizeof(ps), ev->p, 2);
	snprintf(why, sizeof(why),
		 "%s %s->%s: %.2fx in %s%s (p %s), %s; not a verdict until retests confirm it; "
		 "settle: %s",
		 mt->label, r->nodes[a].name, r->nodes[b].name, d->ratio[x],
		 ev->retests ? "its attempts" : "its one attempt", rs, ps,
		 ev->retests ? "its retests still slow but too few to tell it from transients"
			     : "stood out once, never retested (the retest budget ran out)",
		 ev->settle);
	return add_verdict(r, LP_VERDICT_UNCONFIRMED, LP_MIN(a, b), LP_MAX(a, b),
			   a < b ? LP_DIR_XY : LP_DIR_YX, mt->label, why, ev);
}

/* The worst UNCONF_NAMED unconfirmed cells by name, the rest counted in one verdict. */
static int unconf_rest(struct lp_sweep_run *r, int m, const struct lp_diag *d, int named)
{
	char why[512];
	struct lp_verdict ev;

	if (d->nunconf <= named)
		return 0;
	evidence_init(&ev);
	ev.cells = d->nunconf - named;
	snprintf(why, sizeof(why),
		 "%s: %d more link cells stood out once and were not confirmed (cell_class "
		 "\"unconfirmed\" in the document; the worst %d are named): more retest time "
		 "(--retest-time) settles them",
		 r->metrics[m].label, d->nunconf - named, named);
	return add_verdict(r, LP_VERDICT_UNCONFIRMED, -1, -1, 0, r->metrics[m].label, why, &ev);
}

/* Unconfirmed cells worst first (by the p-value they stood out with): their order. */
static int unconf_cmp(const void *x, const void *y, void *arg)
{
	const struct lp_diag *d = arg;
	double p = d->pfirst[*(const size_t *)x], q = d->pfirst[*(const size_t *)y];

	return (p > q) - (p < q);
}

static int link_verdicts(struct lp_sweep_run *r, int m, const struct lp_diag *d)
{
	const struct lp_sweep_metric *mt = &r->metrics[m];
	int n = r->n, rc = 0, nu = 0;
	size_t *unc = malloc(((size_t)d->nunconf + 1) * sizeof(size_t));
	char ref[32], why[512], noise[160];

	if (!unc)
		return -ENOMEM;
	lp_sweep_fmt_val(ref, sizeof(ref), d->ref, mt->lat);
	lp_sweep_fmt_noise(noise, sizeof(noise), d);
	for (int a = 0; a < n && !rc; a++)
		LP_DIAG_PEERS (&d->lay, a, b) {
			size_t x = lp_diag_at(&d->lay, a, b);
			const struct lp_sweep_att *sw, *re;
			struct lp_verdict ev;

			if (rc)
				break;
			if (!(d->link[x] & (LP_LINK_SLOW | LP_LINK_FAILED | LP_LINK_UNCONF)))
				continue;
			if (!(d->link[x] & (LP_LINK_SLOW | LP_LINK_FAILED))) {
				if ((size_t)nu < (size_t)d->nunconf)
					unc[nu++] = x; /* named below, worst first */
				continue;
			}
			evidence_init(&ev);
			ev.cells = 1;
			ev.retests = lp_sweep_count_retests(r, m, a, b);
			if (d->link[x] & LP_LINK_FAILED) {
				sw = lp_sweep_find_cell(r, m, a, b, LP_PHASE_SWEEP);
				re = lp_sweep_find_cell(r, m, a, b, LP_PHASE_RETEST);
				snprintf(why, sizeof(why), "%s %s->%s failed: %s%s", mt->label,
					 r->nodes[a].name, r->nodes[b].name,
					 sw && sw->status ? lp_sweep_att_error(r, sw) : "",
					 re ? (re->status ? " (retest failed too)" : "") : "");
				rc = add_verdict(r, LP_VERDICT_LINK_FAILED, LP_MIN(a, b),
						 LP_MAX(a, b), a < b ? LP_DIR_XY : LP_DIR_YX,
						 mt->label, why, &ev);
			} else {
				rc = link_slow_verdict(r, m, d, a, b, &ev, ref, noise);
			}
		}
	qsort_r(unc, (size_t)nu, sizeof(size_t), unconf_cmp, (void *)d);
	for (int i = 0; i < nu && i < UNCONF_NAMED && !rc; i++) {
		struct lp_verdict ev;
		int a = lp_diag_xa(&d->lay, unc[i]), b = lp_diag_xb(&d->lay, unc[i]);

		evidence_init(&ev);
		ev.cells = 1;
		ev.retests = lp_sweep_count_retests(r, m, a, b);
		rc = link_unconf_verdict(r, m, d, a, b, &ev);
	}
	if (!rc)
		rc = unconf_rest(r, m, d, LP_MIN(nu, UNCONF_NAMED));
	free(unc);
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
	char why[768], noise[160], link[48] = "none: no retest reaches it";
	struct lp_verdict ev;

	evidence_init(&ev);
	ev.noise_cv = d->cv;
	ev.retests = lp_sweep_count_retests(r, m, -1, -1);
	lp_sweep_fmt_noise(noise, sizeof(noise), d);
	if (d->min_link >= 0.005)
		snprintf(link, sizeof(link), "%.2fx", d->min_link);
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
			"%s: %s; a node fault is found with 90%% power from %.2fx on at this noise "
			"(a link %s), beyond --rel-max %.2f: a milder fault could hide, only "
			"what passes the run's error control is named; remedy: an isolated schedule "
			"(--schedule isolated), a longer -D, fewer ranks per host, a quieter time",
			mt->label, noise, d->min_node_noise, link, r->dopts.rel_max);
	return add_verdict(r, LP_VERDICT_INCONCLUSIVE, -1, -1, 0, mt->label, why, &ev);
}

/* A metric's attempts apart: the sweep's, the retests' best and combined, their count, the round. */
struct apart {
	double *first, *rbest, *rmed;
	uint8_t *ratt;
	int32_t *round;
	int32_t *rfirst; /* n*n: the retest round of the first retest, -1 none or unknown */
	size_t *off;	 /* n*n + 1: where each cell's retests start in vals */
	double *vals;
};

static void apart_free(struct apart *ap)
{
	free(ap->first);
	free(ap->rbest);
	free(ap->rmed);
	free(ap->ratt);
	free(ap->round);
	free(ap->rfirst);
	free(ap->off);
	free(ap->vals);
}

static int apart_alloc(struct apart *ap, const struct lp_sweep_run *r, const struct lp_diag_lay *L)
{
	size_t nn = L->ncell + 1;

	memset(ap, 0, sizeof(*ap));
	ap->first = malloc(nn * sizeof(double));
	ap->rbest = malloc(nn * sizeof(double));
	ap->rmed = malloc(nn * sizeof(double));
	ap->ratt = malloc(nn);
	ap->round = malloc(nn * sizeof(int32_t));
	ap->rfirst = malloc(nn * sizeof(int32_t));
	ap->off = malloc((nn + 1) * sizeof(size_t));
	ap->vals = malloc((r->ncells + 1) * sizeof(double));
	return ap->first && ap->rbest && ap->rmed && ap->ratt && ap->round && ap->rfirst &&
			       ap->off && ap->vals
		       ? 0
		       : -ENOMEM;
}

static bool idle_ok(const struct lp_sweep_att *c, int m)
{
	return c->metric == m && c->phase <= LP_PHASE_RETEST && c->status == 0 &&
	       isfinite(c->value) && c->value > 0;
}

/* Fill ap for metric m: a cell's sweep attempt (this run's attempt's round), its retests apart. */
static void apart_fill(struct apart *ap, const struct lp_sweep_run *r, int m,
		       const struct lp_diag_lay *L)
{
	size_t nn = L->ncell;
	bool lat = r->metrics[m].lat;

	memset(ap->off, 0, (nn + 1) * sizeof(size_t));
	for (size_t x = 0; x < nn; x++) {
		ap->first[x] = ap->rbest[x] = ap->rmed[x] = NAN;
		ap->ratt[x] = 0;
		ap->round[x] = ap->rfirst[x] = -1;
	}
	for (size_t i = 0; i < r->ncells; i++) {
		const struct lp_sweep_att *c = &r->cells[i];
		size_t x = lp_diag_at(L, c->a, c->b);

		if (!idle_ok(c, m) || x == nn)
			continue;
		if (c->phase == LP_PHASE_SWEEP) {
			ap->first[x] = c->value;
			ap->round[x] = c->attempt == r->attempt || r->attempt <= 1 ? c->round : -1;
		} else {
			ap->off[x + 1]++;
		}
	}
	for (size_t x = 0; x < nn; x++)
		ap->off[x + 1] += ap->off[x];
	for (size_t i = 0; i < r->ncells; i++) {
		const struct lp_sweep_att *c = &r->cells[i];
		size_t x = lp_diag_at(L, c->a, c->b);

		if (idle_ok(c, m) && c->phase == LP_PHASE_RETEST && x < nn) {
			/* the retest round (the engine's and diag-sim's; unknown: -1) */
			if (!ap->ratt[x])
				ap->rfirst[x] = c->round >= 0 && c->round < r->retest_rounds
							? c->round
							: -1;
			ap->vals[ap->off[x] + ap->ratt[x]++] = c->value;
		}
	}
	for (size_t x = 0; x < nn; x++) {
		double *v = ap->vals + ap->off[x];
		size_t k = ap->ratt[x];

		if (!k)
			continue;
		ap->rmed[x] = lp_diag_combine(v, k, lat); /* sorts v */
		ap->rbest[x] = lat ? v[0] : v[k - 1];
	}
}

/* Metric m's diagnosis and its verdicts. */
static int diagnose_metric(struct lp_sweep_run *r, int m, struct lp_diag_in *in, struct apart *ap,
			   const struct lp_sweep_topo *t)
{
	const struct lp_diag *d = &r->diag[m];
	int rc;

	rc = lp_sweep_matrix_lay(r, m, in->lay, (double *)in->v, (uint8_t *)in->fail,
				 (uint8_t *)in->sched, (uint8_t *)in->att, (double *)in->best, NULL,
				 in);
	if (rc)
		return rc;
	apart_fill(ap, r, m, in->lay);
	in->lat = r->metrics[m].lat;
	rc = lp_diag_run(&r->diag[m], in, &r->dopts);
	if (!rc && !lp_sweep_metric_screened(r, m)) {
		r->diag[m].inconclusive = false; /* --fast's other sizes: no matrix to judge */
		return 0;
	}
	if (!rc)
		rc = node_verdicts(r, m, d);
	if (!rc)
		rc = lp_sweep_group_verdicts(r, m, d, t);
	if (!rc)
		rc = link_verdicts(r, m, d);
	if (!rc && d->ambiguous)
		rc = ambiguous_verdict(r, m, d);
	if (!rc && d->inconclusive)
		rc = inconclusive_verdict(r, m, d);
	return rc;
}

/* Nodes whose device did not open: one verdict each, whatever the cells say. */
static int device_verdicts(struct lp_sweep_run *r)
{
	int rc = 0;

	for (int i = 0; i < r->n && !rc; i++)
		if (r->nodes[i].status) {
			char why[256];

			snprintf(why, sizeof(why), "device: %s", r->nodes[i].error);
			rc = add_verdict(r, LP_VERDICT_NODE_FAILED, i, i, LP_NODE_FAILED, "device",
					 why, NULL);
		}
	return rc;
}

int lp_sweep_diagnose(struct lp_sweep_run *r)
{
	struct lp_diag_lay lay;
	int rc = lp_sweep_layout(r, &lay);
	size_t nn = lay.ncell + 1;
	double *v = rc ? NULL : malloc(nn * sizeof(double)),
	       *best = rc ? NULL : malloc(nn * sizeof(double));
	uint8_t *fail = rc ? NULL : malloc(nn), *sched = rc ? NULL : malloc(nn),
		*att = rc ? NULL : malloc(nn);
	struct lp_sweep_topo topo = { 0 };
	struct apart ap = { 0 };

	if (rc)
		return rc;
	rc = apart_alloc(&ap, r, &lay);

	if (r->diag)
		for (int m = 0; m < r->nmetrics; m++)
			lp_diag_free(&r->diag[m]);
	free(r->diag);
	free(r->verdicts);
	r->verdicts = NULL;
	r->nverdicts = 0;
	r->diag = calloc(r->nmetrics ? r->nmetrics : 1, sizeof(*r->diag));
	if (rc || !v || !best || !fail || !sched || !att || !r->diag ||
	    lp_sweep_topo_map(r, &topo)) {
		rc = -ENOMEM;
		goto out;
	}
	rc = device_verdicts(r);
	for (int m = 0; m < r->nmetrics && !rc; m++) {
		struct lp_diag_in in = { .n = r->n,
					 .lay = &lay,
					 .v = v,
					 .fail = fail,
					 .sched = sched,
					 .att = att,
					 .best = best,
					 .first = ap.first,
					 .rbest = ap.rbest,
					 .rmed = ap.rmed,
					 .ratt = ap.ratt,
					 .round = ap.round,
					 .rfirst = ap.rfirst,
					 .leaf = topo.leaf,
					 .rail = topo.rail,
					 .nleaf = topo.nleaf,
					 .nrail = topo.nrail,
					 .family = r->nmetrics,
					 .retest_rounds =
						 r->retest_max > 0 ? r->retest_rounds : 0 };

		rc = diagnose_metric(r, m, &in, &ap, &topo);
	}
	if (!rc)
		rc = lp_sweep_load_diagnose(r);
	if (!rc) /* after every verdict: each cites what moved on its nodes */
		rc = lp_sweep_evidence(r);
out:
	lp_sweep_topo_free(&topo);
	apart_free(&ap);
	lp_diag_lay_free(&lay);
	free(v);
	free(fail);
	free(sched);
	free(att);
	free(best);
	return rc;
}

int lp_sweep_exit_code(const struct lp_sweep_run *r)
{
	int code = LP_EXIT_OK;

	if (lp_sweep_missing(r, NULL))
		return LP_EXIT_FAIL; /* not every scheduled cell was measured: not a pass */

	for (int i = 0; i < r->nverdicts; i++) {
		if (r->verdicts[i].kind != LP_VERDICT_INCONCLUSIVE &&
		    r->verdicts[i].kind != LP_VERDICT_UNCONFIRMED)
			return LP_EXIT_FAIL;
		code = LP_SWEEP_EXIT_INCONCLUSIVE; /* not a pass, nothing named with confidence */
	}
	return code;
}
