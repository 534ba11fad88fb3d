// SPDX-License-Identifier: MIT
/*
 * diag-sim: the accuracy benchmark of lp-sweep's diagnosis, in process.
 * Synthetic clusters (tests/sweep/diag-bench.c: noise, blips, heavy tails,
 * congested rounds, node, link, leaf, uplink, path and rail faults) go through
 * the library exactly as a run does: a round-robin sweep's cells into an
 * lp_sweep_run, the diagnosis, the engine's own retest planner
 * (lp_sweep_retest_plan: its policy and time budget) and fresh draws for the
 * pairs it picks, the diagnosis again, the verdicts, scored against the truth.
 * scripts/bench-diag.sh runs the grid; --check asserts the targets (docs/SWEEP.md).
 *
 * The same scenarios for the real engine: --emit-model DIR writes each trial as
 * an lp-sweep model file (and its topology), --score DOC,... scores the
 * documents lp-sweep --model wrote for them (trial order, same options), and
 * --model FILE --replay RUN draws an lp-sweep --model run again in this one
 * process (its cells, retests and verdicts).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/fail.h"
#include "common/lp.h"
#include "common/opt.h"
#include "diag-bench.h"
#include "sweep/journal.h"
#include "sweep/model.h"
#include "sweep/result.h"
#include "sweep/retest.h"
#include "sweep/sched.h"

/* CPU seconds of this process (the diagnosis time on a loaded host) */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One attempt of cell a -> b in every metric (its value, or a failure), phase and round. */
static int measure(struct lp_sweep_run *r, const struct bench_trial *t, struct bench_rng *g, int a,
		   int b, int phase, int round)
{
	for (int m = 0; m < r->nmetrics; m++) {
		struct lp_sweep_cell c;
		double v = bench_draw(t, g, a, b, r->metrics[m].lat,
				      phase == LP_PHASE_SWEEP ? round : -1);
		int rc;

		lp_sweep_cell_init(&c, m, a, b, phase, round);
		c.wall_s = 1.0; /* one test time: the retest budget counts in these */
		c.value = v;
		if (!isfinite(v)) {
			c.status = -ETIMEDOUT;
			snprintf(c.error, sizeof(c.error), "simulated failure");
		}
		if ((rc = lp_sweep_add_cell(r, &c)))
			return rc;
	}
	return 0;
}

/* The sweep: round-robin (within each rail), every ordered pair once. */
static int sweep(struct lp_sweep_run *r, const struct bench_trial *t, struct bench_rng *g)
{
	struct lp_sched sc;
	int *grp = malloc((size_t)t->nranks * sizeof(int)), rc;

	for (int i = 0; grp && i < t->nranks; i++)
		grp[i] = bench_rail(t->s, i);
	rc = grp ? lp_sched_build_groups(&sc, LP_SCHED_ROUND_ROBIN, t->nranks, grp, 0, 1) : -ENOMEM;
	free(grp);
	for (size_t k = 0; !rc && k < sc.nrounds; k++) {
		size_t cnt;
		const struct lp_slot *sl = lp_sched_round(&sc, k, &cnt);

		for (size_t i = 0; !rc && i < cnt; i++) {
			if (sl[i].dirs & LP_DIR_XY)
				rc = measure(r, t, g, sl[i].x, sl[i].y, LP_PHASE_SWEEP, (int)k);
			if (!rc && (sl[i].dirs & LP_DIR_YX))
				rc = measure(r, t, g, sl[i].y, sl[i].x, LP_PHASE_SWEEP, (int)k);
		}
	}
	if (!rc) {
		r->sweep_s = (double)sc.nrounds * 2 * r->nmetrics; /* in test times */
		lp_sched_free(&sc);
	}
	return rc;
}

/* The engine's retest rounds: its planner, lp-sweep's default policy with the setting's budget. */
static int retests(struct lp_sweep_run *r, const struct bench_trial *t, struct bench_rng *g)
{
	struct lp_sweep_retest_policy pol;
	int rc = 0;

	lp_sweep_retest_policy_default(&pol);
	pol.rounds = t->s->retest_rounds;
	pol.time_s = t->s->retest_time * r->nmetrics; /* in test times, as wall_s */
	pol.order = t->s->planner;
	for (int rr = 0; !rc; rr++) {
		int32_t *pairs;
		size_t np;

		rc = lp_sweep_retest_plan(r, &pol, rr, &pairs, &np);
		r->nretests += np;
		for (size_t k = 0; !rc && k < np; k++)
			rc = measure(r, t, g, pairs[2 * k], pairs[2 * k + 1], LP_PHASE_RETEST, rr);
		free(pairs);
		if (!np)
			break;
	}
	return rc;
}

/* One cluster: sweep, retests, the final diagnosis into r. */
static int simulate(struct lp_sweep_run *r, const struct bench_trial *t, struct bench_rng *g,
		    double *diag_s)
{
	double t0;
	int rc = bench_run_setup(t, r);

	if (!rc)
		rc = sweep(r, t, g);
	if (!rc)
		rc = retests(r, t, g);
	t0 = now_s();
	if (!rc)
		rc = lp_sweep_diagnose(r);
	*diag_s += now_s() - t0;
	return rc;
}

/* The stated limit of a setting: a healthy cluster's, for the fault's kind and metric. */
static double stated_limit(const struct bench_setting *s, struct bench_rng *g)
{
	struct bench_setting h = *s;
	struct bench_trial t;
	struct lp_sweep_run r;
	double lim = NAN, dummy = 0;
	int m;

	h.kind = BK_NONE;
	if (bench_trial_make(&t, &h, g, 1) || simulate(&r, &t, g, &dummy)) {
		bench_trial_free(&t);
		return NAN;
	}
	m = s->lat_only && r.nmetrics > 1 ? 1 : 0;
	lim = s->kind == BK_LINK			 ? r.diag[m].min_link
	      : s->kind >= BK_LEAF && s->kind <= BK_PATH ? r.diag[m].min_group
							 : r.diag[m].min_node;
	lp_sweep_run_free(&r);
	bench_trial_free(&t);
	return lim;
}

/* The targets (docs/SWEEP.md); false and why when a setting misses them. */
static bool check(const struct bench_setting *s, const struct bench_tally *t, bool at_limit,
		  char *why, size_t len)
{
	double fr = t->faults ? (double)t->found / t->faults : 1,
	       hr = t->faults ? (double)t->honest / t->faults : 1,
	       g1 = t->trials ? (double)t->group_one / t->trials : 1;

	why[0] = 0;
	if (s->kind == BK_NONE) {
		if (s->cv <= 0.05 && s->blip <= 0.02 && t->confident_runs > 0.01 * t->trials)
			snprintf(why, len, "a confident verdict in %ld of %ld healthy runs",
				 t->confident_runs, t->trials);
	} else if (at_limit) { /* the promise: of the faults the run said it would find, >= 90 % */
		if (t->promised && t->kept < 0.9 * t->promised)
			snprintf(why, len, "%ld of %ld found where the run's limit promised it",
				 t->kept, t->promised);
	} else if (s->cv <= 0.05 && s->sev <= 0.8 && s->kind <= BK_BOTH && s->tail_df == 0) {
		if (s->n >= 6 && (fr < 0.99 || t->misattr_runs > 0.01 * t->trials))
			snprintf(why, len, "recall %.1f%%, %ld runs with a wrong name", 100 * fr,
				 t->misattr_runs);
		else if (s->n >= 3 && s->n <= 4 && (hr < 0.99 || t->misattr_runs))
			snprintf(why, len, "found or honest %.1f%%, %ld wrong names", 100 * hr,
				 t->misattr_runs);
	} else if (s->kind >= BK_LEAF && s->cv <= 0.05 && s->sev <= 0.8 && g1 < 0.95) {
		snprintf(why, len, "one verdict, right group in %.1f%%", 100 * g1);
	}
	return !why[0];
}

/* The grid's lists, as given. */
struct grid {
	const char *nodes, *cvs, *faults, *sevs, *blips;
	char bn[256], bc[256], bf[256], bs[256], bb[256];
	const char *ln[32], *lc[32], *lf[32], *ls[32], *lb[32];
	int nn, nc, nf, nsv, nb;
};

static int grid_split(struct grid *gr)
{
	return lp_split_list(gr->nodes, gr->bn, sizeof(gr->bn), gr->ln, 32, &gr->nn) ||
	       lp_split_list(gr->cvs, gr->bc, sizeof(gr->bc), gr->lc, 32, &gr->nc) ||
	       lp_split_list(gr->faults, gr->bf, sizeof(gr->bf), gr->lf, 32, &gr->nf) ||
	       lp_split_list(gr->sevs, gr->bs, sizeof(gr->bs), gr->ls, 32, &gr->nsv) ||
	       lp_split_list(gr->blips, gr->bb, sizeof(gr->bb), gr->lb, 32, &gr->nb);
}

struct job {
	const char *emit_dir; /* --emit-model */
	const char *doc_dir;  /* --write-doc */
	const char *score;    /* --score DOC,DOC,... */
	FILE *csv;	      /* --csv */
	bool check, dump;
	int misses;
};

/* --emit-model: trial i's model and topology as DIR/N-KIND-SEV-i.model.json, .topo */
static int emit(const struct job *j, const struct bench_setting *s, const struct bench_trial *t,
		int i)
{
	char path[512];
	FILE *f;
	int rc;

	for (int k = 0; k < 2; k++) {
		snprintf(path, sizeof(path), "%s/n%d-%s-%g-%d.%s", j->emit_dir, s->n,
			 bench_kind_names[s->kind], s->sev, i, k ? "topo" : "model.json");
		f = fopen(path, "w");
		if (!f)
			return -errno;
		rc = k ? bench_write_topology(s, f) : bench_write_model(t, f);
		if (fclose(f) || rc)
			return -EIO;
	}
	return 0;
}

/* --write-doc: trial i's run as lp-sweep's JSON document (DIR/N-KIND-SEV-i.json). */
static int write_doc(const struct job *j, const struct bench_setting *s,
		     const struct lp_sweep_run *r, int i)
{
	char path[512];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/n%d-%s-%g-%d.json", j->doc_dir, s->n,
		 bench_kind_names[s->kind], s->sev, i);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	rc = lp_sweep_write_json(r, f, lp_sweep_exit_code(r));
	return fclose(f) || rc ? -EIO : 0;
}

/* --score: trial i's document (the i-th of the list) read and diagnosed as lp-sweep wrote it. */
static int score_doc(const struct job *j, int i, struct lp_sweep_run *r)
{
	char buf[8192];
	struct lp_fail why = { 0 };
	const char *items[512];
	int n = 0, rc;

	if (lp_split_list(j->score, buf, sizeof(buf), items, 512, &n) || i >= n)
		return -EINVAL;
	rc = lp_sweep_read_json(r, items[i], &why);
	if (rc)
		lp_err("%s: %s", items[i], lp_fail_msg(&why));
	return rc ? rc : lp_sweep_diagnose(r);
}

/* Every trial of one setting. */
static int run_setting(struct job *j, struct bench_setting *s, struct bench_rng *g)
{
	struct bench_tally ty;
	bool at_limit = s->sev <= 0;
	double sev = at_limit ? stated_limit(s, g) : s->sev;
	char why[160];
	int rc = bench_tally_init(&ty, s->trials);

	for (int i = 0; !rc && i < s->trials; i++) {
		struct bench_trial t;
		struct lp_sweep_run r;

		if ((rc = bench_trial_make(&t, s, g, sev)))
			break;
		if (j->emit_dir) {
			rc = emit(j, s, &t, i);
		} else {
			struct bench_tally before = ty;

			rc = j->score ? score_doc(j, i, &r) : simulate(&r, &t, g, &ty.diag_s);
			if (!rc)
				bench_score(&t, &r, &ty);
			if (!rc && j->doc_dir)
				rc = write_doc(j, s, &r, i);
			/* --dump: the summary of every trial that missed a fault or named a wrong one */
			if (!rc && j->dump &&
			    (ty.found - before.found < ty.faults - before.faults ||
			     ty.misattr_runs > before.misattr_runs ||
			     (s->kind == BK_NONE && ty.confident_runs > before.confident_runs))) {
				for (int k = 0; k < t.nf; k++)
					printf("truth: %s %d %d %.3g\n",
					       bench_kind_names[t.f[k].kind], t.f[k].a, t.f[k].b,
					       t.f[k].sev);
				lp_sweep_print_summary(&r, stdout);
			}
			lp_sweep_run_free(&r);
		}
		bench_trial_free(&t);
	}
	if (rc || j->emit_dir) {
		bench_tally_free(&ty);
		return rc;
	}
	s->sev = at_limit ? sev : s->sev;
	bool ok = check(s, &ty, at_limit, why, sizeof(why));

	j->misses += !ok;
	printf("%5d %5.2f %-6s %6.3f%s %5.3f %6ld | %6.1f%% %6.1f%% %6.1f%% %6.1f%% %5ld %5ld | %5ld %5ld | %7.1f%s%s\n",
	       s->n, s->cv, bench_kind_names[s->kind], s->kind == BK_NONE ? 1.0 : sev,
	       at_limit ? "L" : " ", s->blip, ty.trials,
	       ty.faults ? 100.0 * ty.found / ty.faults : NAN,
	       ty.faults ? 100.0 * ty.honest / ty.faults : NAN,
	       ty.promised ? 100.0 * ty.kept / ty.promised : NAN, 100.0 * ty.group_one / ty.trials,
	       ty.misattr_runs, ty.confident_runs, ty.unconf_runs, ty.inconcl_runs,
	       ty.retests / ty.trials, ok ? "" : "  MISSED: ", why);
	if (j->csv)
		bench_csv_row(j->csv, s, &ty, j->score ? "model" : "diag-sim", at_limit);
	fflush(stdout);
	bench_tally_free(&ty);
	return 0;
}

/* Every setting of the grid. */
static int run_grid(struct job *j, struct grid *gr, const struct bench_setting *base)
{
	struct bench_rng g = { base->seed * 0x9E3779B97F4A7C15ull + 1 };

	printf("%5s %5s %-6s %7s %5s %6s | %7s %7s %7s %7s %5s %5s | %5s %5s | %7s\n", "N", "cv",
	       "fault", "sev", "blip", "trials", "found", "honest", "promise", "1group", "misat",
	       "conf", "unconf", "incon", "retests");
	for (int i = 0; i < gr->nn; i++)
		for (int c = 0; c < gr->nc; c++)
			for (int b = 0; b < gr->nb; b++)
				for (int f = 0; f < gr->nf; f++)
					for (int v = 0; v < gr->nsv; v++) {
						struct bench_setting s = *base;
						int rc;

						s.n = atoi(gr->ln[i]);
						s.cv = atof(gr->lc[c]);
						s.blip = atof(gr->lb[b]);
						s.kind = lp_choice_index(bench_kind_names,
									 gr->lf[f]);
						s.sev = atof(gr->ls[v]);
						if (!s.leaf_size)
							s.leaf_size =
								LP_MIN(32, LP_MAX(4, s.n / 4));
						if (s.kind < 0 || s.n < 2 || s.n > 4096) {
							lp_err("bad setting: %s nodes, fault %s",
							       gr->ln[i], gr->lf[f]);
							return LP_EXIT_USAGE;
						}
						if (s.kind == BK_NONE && v > 0)
							continue;
						rc = run_setting(j, &s, &g);
						if (rc) {
							lp_err("setting failed: %s", strerror(-rc));
							return LP_EXIT_FAIL;
						}
					}
	return j->check && j->misses ? LP_EXIT_FAIL : LP_EXIT_OK;
}

/* One attempt of cell a -> b at metric m, drawn from the model as the model transport draws it. */
static int draw_cell(struct lp_sweep_run *r, const struct lp_sweep_model *m, int a, int b,
		     int metric, int phase, int attempt, int round)
{
	struct lp_sweep_model_key k = { a, b, metric, phase, attempt, round };
	struct lp_sweep_cell c;
	struct lp_fail mf = { 0 };

	lp_sweep_cell_init(&c, metric, a, b, phase, round);
	c.status = lp_sweep_model_draw(m, &k, &c.value, &mf);
	if (c.status) {
		c.value = NAN;
		snprintf(c.error, sizeof(c.error), "%s", lp_fail_msg(&mf));
	}
	return lp_sweep_add_cell(r, &c);
}

/*
 * The engine without MPI: every round of the schedule s (each slot's
 * directions, every metric) drawn from m, then the engine's retest rounds --
 * its planner, its budget pol -- and the diagnosis. 0 or -ENOMEM.
 */
static int model_simulate(struct lp_sweep_run *r, const struct lp_sweep_model *m,
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
					       LP_PHASE_RETEST, rr + 1, rr); /* the engine's key */
	}
	free(pairs);
	return rc ? rc : lp_sweep_diagnose(r);
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
	r->retest_time_s = run->retest_time_s;
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
	struct lp_fail mf = { 0 };
	char *text = NULL;
	size_t len;
	int code, rc = m ? lp_sweep_read_run(&run, run_path, NULL, &mf) : -ENOMEM;

	if (rc) {
		lp_err("%s: %s", run_path, lp_fail_msg(&mf));
		free(m);
		return LP_EXIT_USAGE;
	}
	lp_sweep_model_init(m);
	rc = replay_setup(&run, &r, &sc);
	if (!rc && (rc = lp_sweep_model_read(model_path, &text, &len)))
		lp_fail_set(&mf, rc, "%s", strerror(-rc));
	if (!rc)
		rc = lp_sweep_model_parse(m, text, len, &mf);
	if (!rc)
		rc = lp_sweep_model_bind(m, r.n, r.metrics, r.nmetrics, &mf);
	if (rc) {
		lp_err("%s: %s", model_path, lp_fail_ok(&mf) ? strerror(-rc) : lp_fail_msg(&mf));
	} else {
		struct lp_sweep_retest_policy pol = { r.retest_max, per_node, r.retest_rounds,
						      r.retest_time_s, LP_RETEST_RANKED };

		rc = model_simulate(&r, m, &sc, &pol);
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
	struct grid gr;
	struct bench_setting s;
	struct job j;
	const char *csv, *model, *replay, *json, *planner;
	unsigned trials, rounds, metrics, rails, leaf;
	bool no_topo;
};

#define SO struct sim_opts
/* clang-format off */
static const struct lp_opt sim_rows[] = {
	{ .name = "nodes", .shortname = 'n', LP_OPT_STR_AT(SO, gr.nodes), .metavar = "LIST", .help = "cluster sizes (default 4,8)" },
	{ .name = "cv", LP_OPT_STR_AT(SO, gr.cvs), .metavar = "LIST", .help = "per-cell noise CV (default 0.05)" },
	{ .name = "fault", .shortname = 'f', LP_OPT_STR_AT(SO, gr.faults), .metavar = "LIST", .help = "none,src,dst,both,link,two,leaf,uplink,path,rail,fail (default none..link)" },
	{ .name = "sev", .shortname = 's', LP_OPT_STR_AT(SO, gr.sevs), .metavar = "LIST", .help = "severities as goodness ratios (0.8 = 0.8x bandwidth, 1.25x latency); 0 = the limit the run states (default 0.8)" },
	{ .name = "blip", LP_OPT_STR_AT(SO, gr.blips), .metavar = "LIST", .help = "share of attempts that are transient blips at 0.3-0.8x (default 0.02)" },
	{ .name = "tail", LP_OPT_DOUBLE_AT(SO, s.tail_df), .max = 100, .metavar = "DF", .help = "Student-t noise of DF degrees of freedom (heavy tails; default Gaussian)" },
	{ .name = "congest", LP_OPT_DOUBLE_AT(SO, s.congest), .max = 1, .metavar = "F", .help = "share of sweep rounds congested, every cell at 0.8x (default 0)" },
	{ .name = "metrics", LP_OPT_UINT_AT(SO, metrics), .min = 1, .max = 2, .metavar = "N", .help = "1: bandwidth (latency with --lat), 2: both (default 1)" },
	{ .name = "lat", LP_OPT_FLAG_AT(SO, s.lat), .help = "one latency metric" },
	{ .name = "lat-only", LP_OPT_FLAG_AT(SO, s.lat_only), .help = "the fault touches latency only (with --metrics 2)" },
	{ .name = "rails", LP_OPT_UINT_AT(SO, rails), .min = 1, .max = 64, .metavar = "R", .help = "rails per node: ranks = nodes x R, cells within a rail (default 1)" },
	{ .name = "leaf-size", LP_OPT_UINT_AT(SO, leaf), .max = 4096, .metavar = "K", .help = "nodes per leaf switch (default: N / 4, 4 to 32)" },
	{ .name = "no-topology", LP_OPT_FLAG_AT(SO, no_topo), .help = "do not give the diagnosis the topology (it finds blocks itself)" },
	{ .name = "share", LP_OPT_DOUBLE_AT(SO, s.share), .max = 1, .metavar = "F", .help = "uplink: share of the leaf's flows on the bad uplink (default 0.25)" },
	{ .name = "trials", .shortname = 't', LP_OPT_UINT_AT(SO, trials), .min = 1, .max = 1000000, .metavar = "N", .help = "clusters per setting (default 100)" },
	{ .name = "retest-rounds", LP_OPT_UINT_AT(SO, rounds), .max = 20, .metavar = "N", .help = "retest rounds (default 3, as lp-sweep)" },
	{ .name = "retest-time", LP_OPT_DOUBLE_AT(SO, s.retest_time), .max = 1e9, .metavar = "T", .help = "retest budget in test times (default: the sweep's, as lp-sweep)" },
	{ .name = "planner", LP_OPT_STR_AT(SO, planner), .metavar = "ORDER", .help = "the retest planner: ranked (lp-sweep's), share (the one before 2026-12-02: worst first, 2/3 of the time left a round), random (first looks blind to the evidence: a bad planner)" },
	{ .name = "seed", LP_OPT_U64_AT(SO, s.seed), .metavar = "N", .help = "random seed (default 1)" },
	{ .name = "csv", LP_OPT_STR_AT(SO, csv), .metavar = "FILE", .help = "append one CSV row per setting" },
	{ .name = "emit-model", LP_OPT_STR_AT(SO, j.emit_dir), .metavar = "DIR", .help = "write each trial as an lp-sweep model file and its topology, nothing else" },
	{ .name = "write-doc", LP_OPT_STR_AT(SO, j.doc_dir), .metavar = "DIR", .help = "also write each simulated trial as an lp-sweep document (for --diagnose)" },
	{ .name = "score", LP_OPT_STR_AT(SO, j.score), .metavar = "DOCS", .help = "score these lp-sweep documents (one per trial, in order) instead of simulating" },
	{ .name = "check", LP_OPT_FLAG_AT(SO, j.check), .help = "exit 1 when a setting misses the targets" },
	{ .name = "dump", LP_OPT_FLAG_AT(SO, j.dump), .help = "print every trial's summary (debugging)" },
	{ .name = "model", LP_OPT_STR_AT(SO, model), .metavar = "FILE", .help = "with --replay: draw from this model (lp-sweep --model's format)" },
	{ .name = "replay", LP_OPT_STR_AT(SO, replay), .metavar = "RUN", .help = "an lp-sweep --model run (JSON or journal): draw it again here, in one process, and print its summary" },
	{ .name = "json", LP_OPT_STR_AT(SO, json), .metavar = "FILE", .help = "with --replay: the replayed run's JSON document" },
	{ 0 },
};
/* clang-format on */

static const struct lp_opt_cmd sim_cmd = {
	.synopsis = "diag-sim [options]",
	.groups = (const struct lp_opt_group[]){ { NULL, sim_rows, 0 }, { 0 } },
};

int main(int argc, char **argv)
{
	struct sim_opts o = { .gr = { .nodes = "4,8",
				      .cvs = "0.05",
				      .faults = "none,src,dst,both,link",
				      .sevs = "0.8",
				      .blips = "0.02" },
			      .trials = 100,
			      .rounds = 3,
			      .metrics = 1,
			      .rails = 1 };
	const char *pos[1];
	bool help = false;
	int npos, rc;

	bench_setting_default(&o.s);
	if (lp_opt_parse(&sim_cmd, &o, argc, argv, pos, &npos, &help) || help) {
		lp_opt_usage(&sim_cmd, help ? stdout : stderr);
		return help ? LP_EXIT_OK : LP_EXIT_USAGE;
	}
	if (!o.model != !o.replay) {
		lp_err("--model and --replay go together");
		return LP_EXIT_USAGE;
	}
	if (o.model)
		return replay(o.model, o.replay, o.json, LP_SWEEP_RETEST_PER_NODE);
	if (grid_split(&o.gr)) {
		lp_err("bad list");
		return LP_EXIT_USAGE;
	}
	o.s.trials = (int)o.trials;
	o.s.retest_rounds = (int)o.rounds;
	o.s.planner = o.planner ? lp_choice_index(lp_retest_order_names, o.planner) : 0;
	if (o.s.planner < 0) {
		lp_err("--planner: ranked, share or random");
		return LP_EXIT_USAGE;
	}
	o.s.metrics = (int)o.metrics;
	o.s.rails = (int)o.rails;
	o.s.leaf_size = (int)o.leaf;
	o.s.topo = !o.no_topo;
	if (o.csv && !(o.j.csv = fopen(o.csv, "a"))) {
		lp_err("%s: %s", o.csv, strerror(errno));
		return LP_EXIT_FAIL;
	}
	if (o.j.csv && ftell(o.j.csv) == 0)
		bench_csv_header(o.j.csv);
	rc = run_grid(&o.j, &o.gr, &o.s);
	if (o.j.csv)
		fclose(o.j.csv);
	return rc;
}
