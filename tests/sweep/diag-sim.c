// SPDX-License-Identifier: MIT
/*
 * diag-sim: a simulation benchmark of lp-sweep's diagnosis. Synthetic clusters
 * (N nodes, log-normal noise per cell, a few outlier cells, injected faults) go
 * through the library exactly as a run does: cells into an lp_sweep_run, the
 * engine's retest planner (lp_sweep_retest_plan: its policy and budget) and
 * isolated retests of its suspects (fresh draws), the diagnosis again, the
 * verdicts. Per setting it prints recall (fault named with the right
 * node or link and the right kind), ambiguous verdicts that contain the truth,
 * misattributions (named verdicts matching no fault), false positives per
 * healthy node and per healthy cluster, inconclusive runs.
 * scripts/diag-sim runs the grid; --check asserts the targets (docs/SWEEP.md).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "common/opt.h"
#include "sweep/journal.h"
#include "sweep/model.h"
#include "sweep/result.h"
#include "sweep/retest.h"

static const char *const fault_names[] = { "none", "src",   "dst",  "both",
					   "link", "multi", "fail", NULL };
enum fault { F_NONE, F_SRC, F_DST, F_BOTH, F_LINK, F_MULTI, F_FAIL };

struct truth {
	int kind; /* F_SRC, F_DST, F_BOTH, F_LINK */
	int a, b;
};

struct rng {
	uint64_t s;
};

static double uni(struct rng *g)
{
	g->s ^= g->s << 13;
	g->s ^= g->s >> 7;
	g->s ^= g->s << 17;
	return ((g->s >> 11) + 0.5) / 9007199254740992.0;
}

struct setting {
	int n;
	double cv, sev, outliers;
	int fault;
	bool lat;
	int trials;
	struct lp_sweep_retest_policy retest;
};

struct tally {
	long faults, found, amb_ok, misattr, trials, inconclusive, healthy_nodes, fp_nodes,
		fp_clusters;
};

static int pick_node(struct rng *g, int n, const bool *used)
{
	int i;

	do
		i = (int)(uni(g) * n);
	while (used[i]);
	return i;
}

/* The faults of one trial. */
static int make_faults(const struct setting *s, struct rng *g, struct truth *t, bool *used)
{
	int n = s->n, nt = 0, kinds = s->fault == F_MULTI ? LP_MAX(2, n / 10) : s->fault != F_NONE;

	for (int k = 0, free_nodes = n; k < kinds; k++) {
		int kind = s->fault == F_MULTI	? F_SRC + (int)(uni(g) * 4)
			   : s->fault == F_FAIL ? F_BOTH
						: s->fault;

		if (free_nodes < (kind == F_LINK ? 2 : 1) + (s->fault == F_MULTI))
			break; /* keep a healthy node at least */
		free_nodes -= kind == F_LINK ? 2 : 1;

		t[nt].kind = kind;
		t[nt].a = pick_node(g, n, used);
		used[t[nt].a] = true;
		t[nt].b = t[nt].a;
		if (kind == F_LINK) {
			t[nt].b = pick_node(g, n, used);
			used[t[nt].b] = true;
		}
		nt++;
	}
	return nt;
}

static bool cand_has(const struct lp_verdict *v, int kind, int a, int b)
{
	for (int i = 0; i < v->ncand; i++)
		if (v->cand[i].kind == kind && v->cand[i].a == a &&
		    (kind != LP_ITEM_LINK || v->cand[i].b == b))
			return true;
	return false;
}

/* Does verdict v name fault t exactly (node and kind, or link and direction)? */
static bool names(const struct lp_verdict *v, const struct truth *t)
{
	if (v->kind == LP_VERDICT_NODE_SLOW)
		return t->kind != F_LINK && v->a == t->a &&
		       v->dirs == (t->kind == F_SRC   ? LP_NODE_SLOW_SRC
				   : t->kind == F_DST ? LP_NODE_SLOW_DST
						      : 3u);
	if (v->kind == LP_VERDICT_LINK_SLOW)
		return t->kind == F_LINK && v->a == LP_MIN(t->a, t->b) &&
		       v->b == LP_MAX(t->a, t->b) &&
		       v->dirs == (t->a < t->b ? LP_DIR_XY : LP_DIR_YX);
	return false;
}

static bool ambiguous_has(const struct lp_verdict *v, const struct truth *t)
{
	if (v->kind != LP_VERDICT_AMBIGUOUS && v->kind != LP_VERDICT_PAIR_SLOW)
		return false;
	switch (t->kind) {
	case F_SRC:
		return cand_has(v, LP_ITEM_SRC, t->a, 0);
	case F_DST:
		return cand_has(v, LP_ITEM_DST, t->a, 0);
	case F_BOTH:
		return cand_has(v, LP_ITEM_SRC, t->a, 0) || cand_has(v, LP_ITEM_DST, t->a, 0);
	default:
		return cand_has(v, LP_ITEM_LINK, t->a, t->b);
	}
}

/* One attempt of cell a -> b at metric m, drawn from the model as the model transport draws it. */
static int draw_cell(struct lp_sweep_run *r, const struct lp_sweep_model *m, int a, int b,
		     int metric, int phase, int attempt, int round)
{
	struct lp_sweep_model_key k = { a, b, metric, phase, attempt, round };
	struct lp_sweep_cell c;

	lp_sweep_cell_init(&c, metric, a, b, phase, round);
	c.status = lp_sweep_model_draw(m, &k, &c.value, c.error, sizeof(c.error));
	if (c.status)
		c.value = NAN;
	return lp_sweep_add_cell(r, &c);
}

/*
 * The engine without MPI: every round of the schedule s (each slot's
 * directions, every metric) drawn from m, then the engine's retest rounds --
 * its planner, its budget pol -- and the diagnosis. 0 or -ENOMEM.
 */
static int simulate(struct lp_sweep_run *r, const struct lp_sweep_model *m,
		    const struct lp_sched *s, const struct lp_sweep_retest_policy *pol)
{
	int32_t *pairs = NULL;
	int rc = 0;

	for (size_t rd = 0; rd < s->nrounds && !rc; rd++) {
		size_t cnt;
		const struct lp_slot *sl = lp_sched_round(s, rd, &cnt);

		for (size_t i = 0; i < cnt && !rc; i++)
			for (int d = 0; d < 2 && !rc; d++)
				for (int mi = 0; mi < r->nmetrics && !rc; mi++)
					if (sl[i].dirs & (d ? LP_DIR_YX : LP_DIR_XY))
						rc = draw_cell(r, m, d ? sl[i].y : sl[i].x,
							       d ? sl[i].x : sl[i].y, mi,
							       LP_PHASE_SWEEP, 0, (int)rd);
	}
	for (int rr = 0; !rc; rr++) {
		size_t np;

		free(pairs);
		rc = lp_sweep_retest_plan(r, pol, rr, &pairs, &np);
		if (rc || !np)
			break;
		r->nretests += np;
		for (size_t k = 0; k < np && !rc; k++)
			for (int mi = 0; mi < r->nmetrics && !rc; mi++)
				rc = draw_cell(r, m, pairs[2 * k], pairs[2 * k + 1], mi,
					       LP_PHASE_RETEST, rr + 1, (int)k);
	}
	free(pairs);
	return rc ? rc : lp_sweep_diagnose(r);
}

/* The trial's model for run r: the setting's noise, its outliers as blips at 0.3-0.8x, faults t. */
static int trial_model(struct lp_sweep_model *m, const struct lp_sweep_run *r,
		       const struct setting *s, const struct truth *t, int nt, uint64_t seed)
{
	char why[200];

	lp_sweep_model_init(m);
	m->seed = seed;
	m->cv = s->cv;
	m->blip_rate = s->outliers;
	m->blip_lo = 0.3;
	m->blip_hi = 0.8;
	m->fail_rate = s->fault == F_FAIL ? 0.03 : 0; /* a few cells fail on every attempt */
	for (int i = 0; i < nt; i++)
		m->faults[m->nfaults++] = (struct lp_sweep_model_fault){
			.target = t[i].kind == F_LINK ? LP_SWEEP_MODEL_LINK : LP_SWEEP_MODEL_NODE,
			.a = t[i].a,
			.b = t[i].b,
			.rail = -1,
			.roles = t[i].kind == F_SRC ? LP_SWEEP_MODEL_CLIENT
				 : t[i].kind == F_DST
					 ? LP_SWEEP_MODEL_SERVER
					 : LP_SWEEP_MODEL_CLIENT | LP_SWEEP_MODEL_SERVER,
			.kinds = LP_SWEEP_MODEL_LAT | LP_SWEEP_MODEL_BW,
			.factor = s->sev,
		};
	return lp_sweep_model_bind(m, s->n, r->metrics, r->nmetrics, why, sizeof(why));
}

/* The verdicts of one trial against its faults into the tally. */
static void score(const struct setting *s, const struct lp_sweep_run *r, const struct truth *t,
		  int nt, const bool *used, struct tally *ty)
{
	bool named_any = false;

	ty->trials++;
	ty->faults += nt;
	for (int i = 0; i < nt; i++) {
		bool found = false, amb = false;

		for (int k = 0; k < r->nverdicts; k++) {
			found = found || names(&r->verdicts[k], &t[i]);
			amb = amb || ambiguous_has(&r->verdicts[k], &t[i]);
		}
		ty->found += found;
		ty->amb_ok += !found && amb;
	}
	for (int k = 0; k < r->nverdicts; k++) {
		const struct lp_verdict *v = &r->verdicts[k];
		bool match = false;

		ty->inconclusive += v->kind == LP_VERDICT_INCONCLUSIVE;
		if (v->kind != LP_VERDICT_NODE_SLOW && v->kind != LP_VERDICT_LINK_SLOW) {
			named_any = named_any || v->kind == LP_VERDICT_AMBIGUOUS ||
				    v->kind == LP_VERDICT_PAIR_SLOW;
			continue;
		}
		named_any = true;
		for (int i = 0; i < nt; i++)
			match = match || names(v, &t[i]);
		ty->misattr += !match && nt > 0;
		if (v->kind == LP_VERDICT_NODE_SLOW && !used[v->a])
			ty->fp_nodes++;
	}
	for (int i = 0; i < s->n; i++)
		ty->healthy_nodes += !used[i];
	ty->fp_clusters += nt == 0 && named_any;
}

static int trial(const struct setting *s, struct rng *g, struct tally *ty)
{
	struct lp_sweep_model *m = malloc(sizeof(*m));
	struct truth t[1024];
	struct lp_sweep_run r;
	struct lp_sched sc = { 0 };
	bool *used = calloc(s->n, 1);
	int nt, rc;

	rc = lp_sweep_run_init(&r, s->n);
	if (rc || !used || !m || (rc = lp_sched_build(&sc, LP_SCHED_ROUND_ROBIN, s->n, 0, 0)))
		goto out;
	for (int i = 0; i < s->n; i++)
		snprintf(r.nodes[i].name, sizeof(r.nodes[i].name), "n%d", i);
	lp_sweep_add_metric(&r, s->lat ? "write_lat" : "write_bw", 0, s->lat, s->lat ? 8 : 1 << 20);
	nt = make_faults(s, g, t, used);
	rc = trial_model(m, &r, s, t, nt, (uint64_t)(uni(g) * 0x1p53));
	if (!rc)
		rc = simulate(&r, m, &sc, &s->retest);
	if (rc)
		goto out;
	struct tally before = *ty;

	score(s, &r, t, nt, used, ty);
	if (getenv("DIAG_SIM_DUMP") && /* debugging aid: the summary of every trial that missed */
	    (ty->found - before.found < nt || ty->misattr > before.misattr ||
	     ty->fp_clusters > before.fp_clusters)) {
		for (int i = 0; i < nt; i++)
			printf("truth: %s %d %d\n", fault_names[t[i].kind], t[i].a, t[i].b);
		lp_sweep_print_summary(&r, stdout);
	}
out:
	lp_sweep_run_free(&r);
	lp_sched_free(&sc);
	free(used);
	free(m);
	return rc;
}

/* The targets of issue 11 for this setting; false and a reason when missed. */
static bool check(const struct setting *s, const struct tally *t, char *why, size_t len)
{
	double recall = t->faults ? (double)t->found / t->faults : 1;
	double amb = t->faults ? (double)(t->found + t->amb_ok) / t->faults : 1;
	bool strong = s->sev <= 0.8 && s->cv <= 0.05;

	why[0] = 0;
	if (s->fault == F_NONE) {
		if ((double)t->fp_nodes / LP_MAX(1, t->healthy_nodes) > 0.001)
			snprintf(why, len, "false positives on %.3f%% of healthy nodes",
				 100.0 * t->fp_nodes / t->healthy_nodes);
		else if ((double)t->fp_clusters / LP_MAX(1, t->trials) > 0.01)
			snprintf(why, len, "false positives in %.1f%% of healthy clusters",
				 100.0 * t->fp_clusters / t->trials);
		return !why[0];
	}
	if (!strong || s->n < 3)
		return true;
	if (s->n >= 4 && (recall < 0.99 || t->misattr))
		snprintf(why, len, "recall %.1f%%, %ld misattributions", 100 * recall, t->misattr);
	if (s->n == 3 && (amb < 0.99 || t->misattr))
		snprintf(why, len, "recall or ambiguous-with-truth %.1f%%, %ld misattributions",
			 100 * amb, t->misattr);
	return !why[0];
}

/* RUN's nodes, metrics and how it ran into r (initialised here), and its schedule into sc. */
static int replay_setup(const struct lp_sweep_run *run, struct lp_sweep_run *r, struct lp_sched *sc)
{
	int *groups = calloc((size_t)run->n, sizeof(int)), kind, rc;

	rc = groups ? lp_sweep_run_init(r, run->n) : -ENOMEM;
	for (int i = 0; i < run->n && !rc; i++) {
		r->nodes[i] = run->nodes[i];
		groups[i] = run->rails ? run->nodes[i].rail : 0;
	}
	for (int m = 0; m < run->nmetrics && !rc; m++)
		rc = lp_sweep_add_metric(r, run->metrics[m].test, run->metrics[m].test_id,
					 run->metrics[m].lat, run->metrics[m].size) < 0;
	kind = lp_choice_index(lp_sched_names, run->sched_name);
	if (!rc)
		rc = kind < 0 ? -EINVAL
			      : lp_sched_build_groups(sc, (enum lp_sched_kind)kind, run->n, groups,
						      run->random_k, run->seed);
	free(groups);
	if (rc)
		return rc;
	r->sched = sc;
	r->rounds = sc->nrounds;
	r->sched_name = run->sched_name;
	r->rails = run->rails;
	r->random_k = run->random_k;
	r->seed = run->seed;
	r->retest_max = run->retest_max;
	r->retest_rounds = run->retest_rounds;
	r->dopts = run->dopts;
	snprintf(r->model, sizeof(r->model), "%s", run->model);
	return 0;
}

/*
 * --model FILE --replay RUN: the run lp-sweep made of the model (its nodes,
 * metrics, schedule and retest budget; --retest-per-node as it was given),
 * drawn again in this one process: the same cells, the same retests, the same
 * verdicts, whatever the run's rank count. Its summary; its document to json.
 */
static int replay(const char *model_path, const char *run_path, const char *json, int per_node)
{
	struct lp_sweep_model *m = malloc(sizeof(*m));
	struct lp_sweep_run run, r = { 0 };
	struct lp_sched sc = { 0 };
	char *text = NULL, why[256] = "";
	size_t len;
	int code, rc = m ? lp_sweep_read_run(&run, run_path, NULL, why, sizeof(why)) : -ENOMEM;

	if (rc) {
		lp_err("%s: %s", run_path, why);
		free(m);
		return LP_EXIT_USAGE;
	}
	lp_sweep_model_init(m);
	rc = replay_setup(&run, &r, &sc);
	if (!rc && (rc = lp_sweep_model_read(model_path, &text, &len)))
		snprintf(why, sizeof(why), "%s", strerror(-rc));
	if (!rc)
		rc = lp_sweep_model_parse(m, text, len, why, sizeof(why));
	if (!rc)
		rc = lp_sweep_model_bind(m, r.n, r.metrics, r.nmetrics, why, sizeof(why));
	if (rc) {
		lp_err("%s: %s", model_path, why[0] ? why : strerror(-rc));
	} else {
		struct lp_sweep_retest_policy pol = { r.retest_max, per_node, r.retest_rounds };

		rc = simulate(&r, m, &sc, &pol);
		if (!rc) {
			FILE *f = json ? lp_out_open(json) : NULL;

			lp_sweep_print_summary(&r, stdout);
			if (json && (!f || lp_sweep_write_json(&r, f, lp_sweep_exit_code(&r)) ||
				     lp_out_close(f, json)))
				rc = -EIO;
		}
	}
	code = rc == -EINVAL ? LP_EXIT_USAGE : rc ? LP_EXIT_FAIL : lp_sweep_exit_code(&r);
	free(text);
	free(m);
	lp_sweep_run_free(&run);
	lp_sweep_run_free(&r);
	lp_sched_free(&sc);
	return code;
}

/* What the command line sets. */
struct sim_opts {
	const char *ns, *cvs, *faults, *sevs, *model, *replay, *json;
	unsigned trials, retest, rounds, per_node;
	uint64_t seed;
	double outliers;
	bool lat, check;
};

#define STR_(x) #x
#define STR(x)	STR_(x) /* a default from its one declaration, as option text */
#define SO	struct sim_opts
/* clang-format off */
static const struct lp_opt sim_rows[] = {
	{ .name = "nodes", .shortname = 'n', LP_OPT_STR_AT(SO, ns), .metavar = "LIST",
	  .help = "cluster sizes", .def = "4,8" },
	{ .name = "cv", LP_OPT_STR_AT(SO, cvs), .metavar = "LIST", .help = "per-cell noise CV",
	  .def = "0.05" },
	{ .name = "fault", .shortname = 'f', LP_OPT_STR_AT(SO, faults), .metavar = "LIST",
	  .help = "none,src,dst,both,link,multi,fail", .def = "none,src,dst,both,link,multi,fail" },
	{ .name = "sev", .shortname = 's', LP_OPT_STR_AT(SO, sevs), .metavar = "LIST",
	  .help = "severities as goodness ratios: 0.8 = 0.8x bandwidth or 1.25x latency",
	  .def = "0.8" },
	{ .name = "lat", LP_OPT_FLAG_AT(SO, lat),
	  .help = "simulate a latency metric (default bandwidth)" },
	{ .name = "outliers", LP_OPT_DOUBLE_AT(SO, outliers), .max = 1, .metavar = "F",
	  .help = "fraction of outlier measurements, 0.3-0.8x", .def = "0.02" },
	{ .name = "trials", .shortname = 't', LP_OPT_UINT_AT(SO, trials), .min = 1, .max = 1000000,
	  .metavar = "N", .help = "clusters per setting", .def = "100" },
	{ .name = "retest", LP_OPT_UINT_AT(SO, retest), .max = 1000000, .metavar = "N",
	  .help = "retested pairs per round at most (as lp-sweep's --retest)",
	  .def = STR(LP_SWEEP_RETEST_MAX) },
	{ .name = "retest-rounds", LP_OPT_UINT_AT(SO, rounds), .max = 20, .metavar = "N",
	  .help = "retest rounds (as lp-sweep's --retest-rounds)",
	  .def = STR(LP_SWEEP_RETEST_ROUNDS) },
	{ .name = "retest-per-node", LP_OPT_UINT_AT(SO, per_node), .min = 1, .max = 1000,
	  .metavar = "N", .help = "cells retested per suspect node (as lp-sweep's --retest-per-node)",
	  .def = STR(LP_SWEEP_RETEST_PER_NODE) },
	{ .name = "seed", LP_OPT_U64_AT(SO, seed), .metavar = "N", .help = "random seed",
	  .def = "1" },
	{ .name = "check", LP_OPT_FLAG_AT(SO, check),
	  .help = "exit 1 when a setting misses the targets" },
	{ .name = "model", LP_OPT_STR_AT(SO, model), .metavar = "FILE",
	  .help = "with --replay: draw from this model (lp-sweep --model's format)" },
	{ .name = "replay", LP_OPT_STR_AT(SO, replay), .metavar = "RUN",
	  .help = "an lp-sweep --model run (JSON or journal): draw it again here, in one process, "
		  "and print its summary" },
	{ .name = "json", LP_OPT_STR_AT(SO, json), .metavar = "FILE",
	  .help = "with --replay: the replayed run's JSON document" },
	{ 0 },
};
/* clang-format on */

static const struct lp_opt_cmd sim_cmd = {
	.synopsis = "diag-sim [options]",
	.groups = (const struct lp_opt_group[]){ { NULL, sim_rows, 0 }, { 0 } },
};

int main(int argc, char **argv)
{
	struct sim_opts o;
	bool help;
	char bn[256], bc[256], bf[256], bs[256], why[160];
	const char *ln[16], *lc[16], *lf[16], *ls[16];
	int nn, nc, nf, nsv, npos, misses = 0;

	if (lp_opt_parse(&sim_cmd, &o, argc, argv, NULL, &npos, &help) || help) {
		lp_opt_usage(&sim_cmd, help ? stdout : stderr);
		return help ? LP_EXIT_OK : LP_EXIT_USAGE;
	}
	if (!o.model != !o.replay) {
		lp_err("--model and --replay go together");
		return LP_EXIT_USAGE;
	}
	if (o.model)
		return replay(o.model, o.replay, o.json, (int)o.per_node);
	if (lp_split_list(o.ns, bn, sizeof(bn), ln, 16, &nn) ||
	    lp_split_list(o.cvs, bc, sizeof(bc), lc, 16, &nc) ||
	    lp_split_list(o.faults, bf, sizeof(bf), lf, 16, &nf) ||
	    lp_split_list(o.sevs, bs, sizeof(bs), ls, 16, &nsv)) {
		lp_err("bad list");
		return LP_EXIT_USAGE;
	}
	printf("%5s %5s %-6s %5s %4s %6s | %7s %7s %5s %7s | %9s %8s\n", "N", "cv", "fault", "sev",
	       o.lat ? "lat" : "bw", "trials", "recall", "amb-ok", "misat", "inconcl", "fp/node",
	       "fp/clus");
	for (int i = 0; i < nn; i++)
		for (int j = 0; j < nc; j++)
			for (int k = 0; k < nf; k++)
				for (int l = 0; l < nsv; l++) {
					struct setting s = { .n = atoi(ln[i]),
							     .cv = atof(lc[j]),
							     .sev = atof(ls[l]),
							     .outliers = o.outliers,
							     .lat = o.lat,
							     .trials = (int)o.trials,
							     .retest = { (int)o.retest,
									 (int)o.per_node,
									 (int)o.rounds } };
					struct tally t = { 0 };
					struct rng g = {
						o.seed * 0x9E3779B97F4A7C15ull +
						(uint64_t)(i * 1000 + j * 100 + k * 10 + l) + 1
					};

					s.fault = lp_choice_index(fault_names, lf[k]);
					if (s.fault < 0 || s.n < 2 || s.n > 4096) {
						lp_err("bad setting: %s nodes, fault %s", ln[i],
						       lf[k]);
						return LP_EXIT_USAGE;
					}
					if (s.fault == F_NONE && l > 0)
						continue;
					for (int tr = 0; tr < s.trials; tr++)
						if (trial(&s, &g, &t)) {
							lp_err("out of memory");
							return LP_EXIT_FAIL;
						}
					bool ok = check(&s, &t, why, sizeof(why));

					misses += !ok;
					printf("%5d %5.2f %-6s %5.2f %4s %6ld | %6.1f%% %6.1f%% %5ld %7ld | %8.4f%% %7.1f%%%s%s\n",
					       s.n, s.cv, fault_names[s.fault],
					       s.fault == F_NONE ? 1.0 : s.sev,
					       o.lat ? "lat" : "bw", t.trials,
					       t.faults ? 100.0 * t.found / t.faults : NAN,
					       t.faults ? 100.0 * t.amb_ok / t.faults : NAN,
					       t.misattr, t.inconclusive,
					       100.0 * t.fp_nodes / LP_MAX(1, t.healthy_nodes),
					       s.fault == F_NONE ? 100.0 * t.fp_clusters / t.trials
								 : NAN,
					       ok ? "" : "  MISSED: ", why);
					fflush(stdout);
				}
	return o.check && misses ? LP_EXIT_FAIL : LP_EXIT_OK;
}
