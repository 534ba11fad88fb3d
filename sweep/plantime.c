// SPDX-License-Identifier: MIT
/* lp-sweep's time model: the shape of a sweep, its measured costs, the prediction. */
#include "sweep/plantime.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "common/json.h"
#include "common/lp.h"
#include "common/units.h"
#include "sweep/fast.h"
#include "sweep/model.h"
#include "sweep/retest.h"

/*
 * The presets. Every figure's source is in docs/SWEEP.md ("Time model"), with
 * the raw outputs beside it in docs/data/; the harness figures are the model
 * transport's per-round overhead fitted over ranks (scripts/bench-harness.sh).
 */
static const struct lp_sweep_costs presets[] = {
	{ .name = "ndr",
	  .source =
		  "harness: barrier and waits 3 ms a round and 10 us per rank (assumed: an "
		  "oversubscribed 2-core host measures at most 65 us), rank 0 10 us per cell "
		  "(bench-journal, 2026-12-02); session set-up 10 ms (assumed, not measured on NDR), "
		  "4 ms with set-up reuse (a test worker's session over the side channel 3.9 ms, "
		  "bench-harness on the GPU machine 2026-12-02, + QP reset and reconnect 0.1 ms "
		  "assumed); "
		  "latency 1 us and 390 Gb/s (perftest#131, azurehpc-health-checks#152); start-up 30 s "
		  "(assumed)",
	  .start_s = 30,
	  .round_s = 0.003,
	  .round_rank_s = 10e-6,
	  .cell_s = 10e-6,
	  .session_s = 0.010,
	  .reuse_s = 0.004,
	  .lat_us = 1.0,
	  .gbps = 390 },
	{ .name = "model",
	  .source = "harness: the model transport on a 2-core host, 0.2 ms per rank a round, "
		    "a test worker's session 7 ms (bench-harness.sh, 2026-12-01/02, 16 and 64 "
		    "ranks oversubscribed); tests: the model's time",
	  .start_s = 5,
	  .round_rank_s = 0.0002,
	  .worker_s = 0.007 },
	{ .name = "softroce",
	  .source = "Soft-RoCE in 4 TCG guests on a 2-core host at load 30 (sweep-fabric, "
		    "2026-12-02, docs/data/fabric-time-20261202): set-up 0.3 s a session, 1.5 ms "
		    "one-way, 0.045 Gb/s, 50 ms harness a round, 20 s start-up",
	  .start_s = 20,
	  .round_s = 0.05,
	  .session_s = 0.3,
	  .lat_us = 1500,
	  .gbps = 0.045 },
};

const char *const lp_sweep_costs_names[] = { "ndr", "softroce", NULL }; /* "model" is --model's */

const struct lp_sweep_costs *lp_sweep_costs_find(const char *name)
{
	for (size_t i = 0; i < LP_ARRAY_SIZE(presets); i++)
		if (name && !strcmp(presets[i].name, name))
			return &presets[i];
	return NULL;
}

void lp_sweep_costs_reuse(struct lp_sweep_costs *c, bool reuse)
{
	c->first_s = 0;
	if (!reuse || !(c->reuse_s > 0) || c->reuse_s >= c->session_s)
		return;
	c->first_s = c->session_s - c->reuse_s;
	c->session_s = c->reuse_s;
}

void lp_sweep_costs_model(struct lp_sweep_costs *c, const struct lp_sweep_model *m, bool workers)
{
	*c = *lp_sweep_costs_find("model");
	if (m->round_s >= 0 || m->round_rank_s >= 0 || m->worker_s >= 0 || m->start_s >= 0)
		c->source = "harness: the model's own figures (its \"time\"), the preset's for the "
			    "rest; tests: the model's time";
	c->round_s = m->round_s >= 0 ? m->round_s : c->round_s;
	c->round_rank_s = m->round_rank_s >= 0 ? m->round_rank_s : c->round_rank_s;
	c->worker_s = m->worker_s >= 0 ? m->worker_s : c->worker_s;
	c->start_s = m->start_s >= 0 ? m->start_s : c->start_s;
	c->session_s = m->setup_s + (workers ? c->worker_s : 0);
	c->test_s = m->test_s > 0 ? m->test_s : 1e-9; /* "the model's time", even when it is none */
}

void lp_sweep_costs_dev(struct lp_sweep_costs *c, const struct lp_rdma_devinfo *dev)
{
	bool soft = !strncmp(dev->name, "rxe", 3) || !strncmp(dev->name, "siw", 3);

	*c = *lp_sweep_costs_find(soft ? "softroce" : "ndr");
	if (!soft && dev->rate_gbps > 0)
		c->gbps = 0.97 *
			  dev->rate_gbps; /* a healthy port's write_bw, as the profiles' floor */
}

/* ---- the shape ---- */

/* Rounds of the ring shift schedule: per shift 2, or 3 when its cycles are odd (sched.c). */
static size_t ring_rounds(int n)
{
	size_t r = 0;

	for (int d = 1; d < n; d++)
		r += (n / lp_gcd((uint64_t)n, (uint64_t)d)) & 1 ? 3 : 2;
	return r;
}

int lp_sweep_shape_of(struct lp_sweep_shape *sh, enum lp_sched_kind kind, int nodes, int rails,
		      int k, uint64_t seed)
{
	size_t n = (size_t)nodes;
	struct lp_sched s;
	int ret;

	memset(sh, 0, sizeof(*sh));
	if (nodes < 2 || nodes > 1 << 20 || rails < 1 || rails > 64)
		return -EINVAL;
	*sh = (struct lp_sweep_shape){ .nodes = nodes, .rails = rails, .kind = kind, .dirs = 2 };
	switch (kind) {
	case LP_SCHED_ROUND_ROBIN:
		sh->rounds = n - 1 + (n & 1);
		sh->pairs = n * (n - 1);
		break;
	case LP_SCHED_ISOLATED:
		sh->rounds = n * (n - 1) / 2;
		sh->pairs = n * (n - 1);
		break;
	case LP_SCHED_RING:
		sh->rounds = ring_rounds(nodes);
		sh->pairs = n * (n - 1);
		sh->dirs = 1;
		break;
	case LP_SCHED_RANDOM:
		ret = lp_sched_build(&s, kind, nodes, k, seed);
		if (ret)
			return ret;
		sh->rounds = s.nrounds;
		sh->pairs = lp_sched_ordered_pairs(&s);
		lp_sched_free(&s);
		break;
	default:
		return -EINVAL;
	}
	sh->pairs *= (size_t)rails;
	return 0;
}

void lp_sweep_shape_from(struct lp_sweep_shape *sh, const struct lp_sched *s, int ranks)
{
	*sh = (struct lp_sweep_shape){ .nodes = ranks,
				       .rails = 1,
				       .kind = s->kind,
				       .rounds = s->nrounds,
				       .pairs = lp_sched_ordered_pairs(s),
				       .dirs = 1 };
	for (size_t i = 0; i < s->nslots; i++)
		if (s->slots[i].dirs == LP_DIR_BOTH)
			sh->dirs = 2;
}

/* ---- load phases (the engine runs them with these spans) ---- */

double lp_sweep_time_loader_s(double load_time_s, int nlat)
{
	return nlat * (load_time_s + LP_SWEEP_LOAD_SETUP_S) + LP_SWEEP_LOAD_SETUP_S;
}

double lp_sweep_time_incast_s(double load_time_s, int nlat)
{
	return nlat ? lp_sweep_time_loader_s(load_time_s, nlat) : load_time_s;
}

double lp_sweep_time_load(const struct lp_sweep_load_plan *lp)
{
	double t = 0;

	if (!lp)
		return 0;
	if (lp->load & 1u) /* LP_LOAD_LATENCY */
		t += (double)lp->victims *
		     (lp_sweep_time_loader_s(lp->time_s, lp->nlat) + LP_SWEEP_LOAD_SETUP_S);
	if (lp->load & 2u) /* LP_LOAD_INCAST */
		t += lp->receivers *
		     (lp_sweep_time_incast_s(lp->time_s, lp->nlat) + LP_SWEEP_LOAD_SETUP_S);
	return t;
}

/* ---- the prediction ---- */

double lp_sweep_time_test(const struct lp_rdma_params *p, const struct lp_sweep_costs *c)
{
	double wire = (double)p->size * 8 / (c->gbps * 1e9), per, t;

	if (c->test_s > 0)
		return c->session_s + c->test_s;
	/* a latency iteration is a round trip of the message; bandwidth streams it */
	per = lp_rdma_test_is_lat(p->test) ? 2 * (c->lat_us * 1e-6 + wire) : wire;
	t = p->duration_s > 0 ? p->duration_s + (double)p->warmup * per
			      : (double)(p->warmup + p->iters) * per;
	return c->session_s + t;
}

void lp_sweep_predict(const struct lp_sweep_shape *sh, const struct lp_rdma_params *p, int nmetrics,
		      uint32_t screen, const struct lp_sweep_costs *c,
		      const struct lp_sweep_retest_policy *pol, double pair_timeout_s,
		      const struct lp_sweep_load_plan *lp, struct lp_sweep_prediction *out)
{
	size_t suspects = pol->max_pairs > 0 ? LP_MIN((size_t)pol->max_pairs, sh->pairs) : 0;
	double retests = (double)pol->rounds * (double)suspects, sized = 0, size_pair_s = 0, budget;
	int nscreen = 0;

	memset(out, 0, sizeof(*out));
	out->nmetrics = LP_MIN(nmetrics, (int)LP_ARRAY_SIZE(out->test_s));
	out->screen = screen;
	for (int m = 0; m < out->nmetrics; m++) {
		out->test_s[m] = lp_sweep_time_test(&p[m], c);
		if (!screen || (screen >> m & 1)) {
			out->pair_s += out->test_s[m];
			nscreen++;
		} else {
			size_pair_s += out->test_s[m];
		}
	}
	out->harness_s = c->round_s + c->round_rank_s * sh->nodes * sh->rails +
			 c->cell_s * (double)sh->pairs * nscreen / (double)LP_MAX(sh->rounds, 1);
	out->round_s = sh->dirs * out->pair_s + out->harness_s;
	out->start_s = c->start_s;
	out->sweep_s = (double)sh->rounds * out->round_s +
		       (double)LP_MIN(sh->rounds, 2) * sh->dirs * nscreen * c->first_s;
	/*
	 * a retest round runs its pairs one at a time, one direction each, within
	 * the planner's budget in time (sweep/retest.c: --retest-time, else as long
	 * as the sweep, 60 s at least)
	 */
	budget = pol->time_s > 0 ? pol->time_s : fmax(60, out->sweep_s);
	if (retests * (out->pair_s + out->harness_s) > budget)
		retests = ceil(budget / (out->pair_s + out->harness_s));
	out->retest_s = retests * (out->pair_s + out->harness_s);
	/* --fast: the suspects and the references at the other sizes, one pair at a time */
	if (size_pair_s > 0 && suspects)
		sized = (double)(LP_MIN(suspects, LP_SWEEP_FAST_SUSPECTS) + LP_SWEEP_FAST_REFS);
	out->sizes_s = sized * (size_pair_s + out->harness_s);
	out->load_s = lp_sweep_time_load(lp);
	out->total_s = out->start_s + out->sweep_s + out->load_s;
	out->bound_s = out->total_s + out->retest_s + out->sizes_s;
	out->worst_s = out->start_s + out->load_s +
		       ((double)sh->rounds * sh->dirs + retests) * nscreen * pair_timeout_s +
		       sized * (nmetrics - nscreen) * pair_timeout_s;
	out->slurm_min = (int)ceil((out->bound_s * 1.2 + 120) / 60);
}

/* ---- lp-sweep --plan ---- */

const char *lp_sweep_time_fmt(double s, char *buf, size_t len)
{
	if (s < 1e-3)
		snprintf(buf, len, "%.0f us", s * 1e6);
	else if (s < 1)
		snprintf(buf, len, "%.3g ms", s * 1e3);
	else if (s < 120)
		snprintf(buf, len, "%.3g s", s);
	else if (s < 7200)
		snprintf(buf, len, "%.3g min", s / 60);
	else if (s < 172800)
		snprintf(buf, len, "%.3g h", s / 3600);
	else
		snprintf(buf, len, "%.3g days", s / 86400);
	return buf;
}

void lp_sweep_plan_print(FILE *f, const struct lp_sweep_shape *sh, const struct lp_rdma_params *p,
			 int nmetrics, const struct lp_sweep_costs *c,
			 const struct lp_sweep_prediction *pr)
{
	char a[32], b[32], d[32], sz[32];
	int nscreen = pr->screen ? __builtin_popcount(pr->screen) : nmetrics;

	fprintf(f,
		"lp-sweep plan: %d nodes x %d rail%s = %d ranks, %s schedule: %zu rounds, "
		"%zu ordered pairs x %d tests",
		sh->nodes, sh->rails, sh->rails > 1 ? "s" : "", sh->nodes * sh->rails,
		lp_sched_names[sh->kind], sh->rounds, sh->pairs, nscreen);
	if (pr->screen)
		fprintf(f, " (--fast: the screen; %d more sizes on the suspects)",
			nmetrics - nscreen);
	fprintf(f, "\n");
	fprintf(f, "costs \"%s\": %s\n", c->name, c->source);
	for (int m = 0; m < pr->nmetrics; m++) {
		lp_fmt_size(sz, sizeof(sz), p[m].size);
		if (pr->screen && !(pr->screen >> m & 1))
			fprintf(f, "  %s %s: the size sweep's only (--fast), %s a pair\n",
				lp_rdma_test_names[p[m].test], sz,
				lp_sweep_time_fmt(pr->test_s[m], a, sizeof(a)));
		else if (c->test_s > 0)
			fprintf(f, "  %s %s: the model's %s + set-up %s\n",
				lp_rdma_test_names[p[m].test], sz,
				lp_sweep_time_fmt(c->test_s, a, sizeof(a)),
				lp_sweep_time_fmt(c->session_s, b, sizeof(b)));
		else if (p[m].duration_s > 0)
			fprintf(f, "  %s %s: %.3g s each + session set-up %s = %s\n",
				lp_rdma_test_names[p[m].test], sz, p[m].duration_s,
				lp_sweep_time_fmt(c->session_s, b, sizeof(b)),
				lp_sweep_time_fmt(pr->test_s[m], d, sizeof(d)));
		else
			fprintf(f,
				"  %s %s: %llu + %llu warm-up iterations %s + session set-up %s = %s\n",
				lp_rdma_test_names[p[m].test], sz, (unsigned long long)p[m].iters,
				(unsigned long long)p[m].warmup,
				lp_sweep_time_fmt(pr->test_s[m] - c->session_s, a, sizeof(a)),
				lp_sweep_time_fmt(c->session_s, b, sizeof(b)),
				lp_sweep_time_fmt(pr->test_s[m], d, sizeof(d)));
	}
	fprintf(f, "  a round: %u direction%s x %s + harness %s (%d ranks) = %s\n", sh->dirs,
		sh->dirs > 1 ? "s" : "", lp_sweep_time_fmt(pr->pair_s, a, sizeof(a)),
		lp_sweep_time_fmt(pr->harness_s, b, sizeof(b)), sh->nodes * sh->rails,
		lp_sweep_time_fmt(pr->round_s, d, sizeof(d)));
	if (c->first_s > 0)
		fprintf(f,
			"  set-up reuse: a session's set-up %s (%s more in the first 2 rounds, "
			"while the pools fill)\n",
			lp_sweep_time_fmt(c->session_s, a, sizeof(a)),
			lp_sweep_time_fmt(c->first_s, b, sizeof(b)));
	fprintf(f, "  sweep: %zu rounds = %s\n", sh->rounds,
		lp_sweep_time_fmt(pr->sweep_s, a, sizeof(a)));
	fprintf(f, "  retests: at most %s, one pair at a time\n",
		lp_sweep_time_fmt(pr->retest_s, a, sizeof(a)));
	if (pr->screen)
		fprintf(f,
			"  size sweep (--fast): the other sizes on the suspects and %d references "
			"at most %s, one pair at a time\n",
			LP_SWEEP_FAST_REFS, lp_sweep_time_fmt(pr->sizes_s, a, sizeof(a)));
	if (pr->load_s > 0)
		fprintf(f, "  load phases: %s\n", lp_sweep_time_fmt(pr->load_s, a, sizeof(a)));
	fprintf(f, "  start-up: %s\n", lp_sweep_time_fmt(pr->start_s, a, sizeof(a)));
	fprintf(f,
		"predicted: %s without suspects, %s with every retest (%.0f s); a fabric "
		"where every session hangs to its pair timeout: %s\n",
		lp_sweep_time_fmt(pr->total_s, a, sizeof(a)),
		lp_sweep_time_fmt(pr->bound_s, b, sizeof(b)), pr->bound_s,
		lp_sweep_time_fmt(pr->worst_s, d, sizeof(d)));
	fprintf(f, "Slurm: ask -t %d (minutes: the bound x 1.2 + 2 min)\n", pr->slurm_min);
}

int lp_sweep_plan_json(FILE *f, const struct lp_sweep_shape *sh, const struct lp_rdma_params *p,
		       int nmetrics, const struct lp_sweep_costs *c,
		       const struct lp_sweep_prediction *pr)
{
	struct lp_json j;

	lp_json_init(&j, f, true);
	lp_json_obj_begin(&j, NULL);
	lp_json_str(&j, "schema", LP_SWEEP_PLAN_SCHEMA);
	lp_json_int(&j, "nodes", sh->nodes);
	lp_json_int(&j, "rails", sh->rails);
	lp_json_int(&j, "ranks", sh->nodes * sh->rails);
	lp_json_str(&j, "schedule", lp_sched_names[sh->kind]);
	lp_json_uint(&j, "rounds", sh->rounds);
	lp_json_uint(&j, "ordered_pairs", sh->pairs);
	lp_json_uint(&j, "directions_per_slot", sh->dirs);
	lp_json_arr_begin(&j, "tests");
	for (int m = 0; m < pr->nmetrics && m < nmetrics; m++) {
		lp_json_obj_begin(&j, NULL);
		lp_json_str(&j, "test", lp_rdma_test_names[p[m].test]);
		lp_json_uint(&j, "size", p[m].size);
		lp_json_num(&j, "seconds", pr->test_s[m]);
		lp_json_bool(&j, "every_pair", !pr->screen || (pr->screen >> m & 1));
		lp_json_obj_end(&j);
	}
	lp_json_arr_end(&j);
	lp_json_obj_begin(&j, "costs");
	lp_json_str(&j, "name", c->name);
	lp_json_str(&j, "source", c->source);
	lp_json_num(&j, "start_s", c->start_s);
	lp_json_num(&j, "round_s", c->round_s);
	lp_json_num(&j, "round_rank_s", c->round_rank_s);
	lp_json_num(&j, "cell_s", c->cell_s);
	lp_json_num(&j, "session_s", c->session_s);
	lp_json_num(&j, "worker_s", c->worker_s);
	lp_json_num(&j, "first_s", c->first_s);
	lp_json_num(&j, "lat_us", c->test_s > 0 ? NAN : c->lat_us);
	lp_json_num(&j, "gbps", c->test_s > 0 ? NAN : c->gbps);
	lp_json_num(&j, "test_s", c->test_s > 0 ? c->test_s : NAN);
	lp_json_obj_end(&j);
	lp_json_obj_begin(&j, "predicted");
	lp_json_num(&j, "pair_s", pr->pair_s);
	lp_json_num(&j, "harness_s", pr->harness_s);
	lp_json_num(&j, "round_s", pr->round_s);
	lp_json_num(&j, "start_s", pr->start_s);
	lp_json_num(&j, "sweep_s", pr->sweep_s);
	lp_json_num(&j, "retest_s", pr->retest_s);
	lp_json_num(&j, "sizes_s", pr->sizes_s);
	lp_json_num(&j, "load_s", pr->load_s);
	lp_json_num(&j, "total_s", pr->total_s);
	lp_json_num(&j, "bound_s", pr->bound_s);
	lp_json_num(&j, "worst_s", pr->worst_s);
	lp_json_obj_end(&j);
	lp_json_int(&j, "slurm_minutes", pr->slurm_min);
	lp_json_obj_end(&j);
	return lp_json_finish(&j);
}
