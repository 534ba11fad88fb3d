// SPDX-License-Identifier: MIT
/*
 * lp-sweep retests: the planner shared by the engine and diag-sim (see
 * retest.h): the ordered pairs worth an isolated retest after a diagnosis,
 * the strongest evidence first, within a budget in time.
 */
#include "sweep/retest.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common/lp.h"
#include "common/stats.h"
#include "sweep/internal.h"

#define RETEST_MIN_S  60.0	/* the budget is never below this, whatever the sweep took */
#define ROUND_SHARE   (2.0 / 3) /* share: a round's part of the time left (not the last round's) */
#define SURVIVE_NOISE 0.0228	/* a healthy cell's retest beyond CLEAR_Z = 2 sd: P(z < -2) */

const char *const lp_retest_order_names[] = { "ranked", "share", "random", NULL };

struct pick {
	double key; /* smaller first */
	int32_t a, b;
};

static int pick_cmp(const void *x, const void *y)
{
	const struct pick *p = x, *q = y;

	return (p->key > q->key) - (p->key < q->key);
}

/* The retest time spent so far: the wall time of the retest cells (0 when not recorded). */
static double retest_spent(const struct lp_sweep_run *r)
{
	double sum = 0;

	for (size_t i = 0; i < r->ncells; i++)
		if (r->cells[i].phase == LP_PHASE_RETEST && isfinite(r->cells[i].wall_s))
			sum += r->cells[i].wall_s;
	return sum;
}

/* One pair's retest: the median wall time of a sweep cell, summed over the metrics (0: unknown). */
static double pair_time(const struct lp_sweep_run *r)
{
	double sum = 0, *t = malloc((r->ncells + 1) * sizeof(double));

	for (int m = 0; t && m < r->nmetrics; m++) {
		size_t k = 0;

		for (size_t i = 0; i < r->ncells; i++) {
			const struct lp_sweep_att *c = &r->cells[i];

			if (c->metric == m && c->phase == LP_PHASE_SWEEP && isfinite(c->wall_s) &&
			    c->wall_s > 0)
				t[k++] = c->wall_s;
		}
		sum += k ? lp_median(t, k) : 0;
	}
	free(t);
	return sum;
}

double lp_sweep_retest_time(const struct lp_sweep_run *r, const struct lp_retest_plan *p)
{
	return p->time_s > 0 ? p->time_s : fmax(RETEST_MIN_S, r->sweep_s);
}

/* Keep the smaller key of pair a -> b. */
static void want(const struct lp_sweep_run *r, double *key, int a, int b, double k)
{
	size_t x = (size_t)a * r->n + b;

	if (a != b && !r->nodes[a].status && !r->nodes[b].status && !(key[x] <= k))
		key[x] = k;
}

/* A number in (0, 1) of pair a -> b alone: the order of a planner blind to the evidence. */
static double blind(int a, int b)
{
	uint64_t h = ((uint64_t)(uint32_t)a << 32 | (uint32_t)b) * 0x9E3779B97F4A7C15ull;

	h ^= h >> 31;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 29;
	return ((h >> 11) + 0.5) / 9007199254740992.0;
}

/* A cell's first attempt, for its rank in its metric (slowest first: p-value, then z). */
struct first {
	double p, z;
	int32_t a, b;
};

static int first_cmp(const void *x, const void *y)
{
	const struct first *u = x, *v = y;

	if (u->p != v->p)
		return (u->p > v->p) - (u->p < v->p);
	return (u->z > v->z) - (u->z < v->z);
}

/*
 * The evidence of each ordered pair's first looks against transients. A cell's
 * is q, the share of its metric's first attempts at least as slow (its rank
 * over the cells: the chance that a transient or the noise of this run makes
 * a cell that slow, comparable across metrics; the p-value against the noise
 * alone says nothing of transients). A pair's is the log of the product
 * (independent attempts) over its suspect cells of every metric in
 * ev[2 (a*n + b)] (a fault of a link's direction slows every test on it), and
 * over those that stood out in ev[2 (a*n + b) + 1] (the reverse direction's
 * evidence: a one-way fault leaves it healthy, so a cell merely past the loose
 * suspect screen, as a few of the run's many are by noise, is none); 0 none.
 */
static int first_evidence(const struct lp_sweep_run *r, double *ev)
{
	struct first *f = malloc(((size_t)r->n * r->n + 1) * sizeof(*f));

	if (!f)
		return -ENOMEM;
	for (int m = 0; m < r->nmetrics; m++) {
		const struct lp_diag *d = &r->diag[m];
		size_t nf = 0;

		for (int a = 0; a < r->n; a++)
			LP_DIAG_PEERS (&d->lay, a, b) {
				size_t x = lp_diag_at(&d->lay, a, b);
				double z = isfinite(d->zlink[x]) ? d->zlink[x] : 0;

				if (isfinite(d->pfirst[x]))
					f[nf++] = (struct first){ d->pfirst[x], z, a, b };
			}
		qsort(f, nf, sizeof(*f), first_cmp);
		for (size_t i = 0; i < nf; i++) {
			size_t x = lp_diag_at(&d->lay, f[i].a, f[i].b);
			size_t xy = 2 * ((size_t)f[i].a * r->n + f[i].b);
			double l = log((double)(i + 1) / (double)nf);

			if (!(d->suspect[x] || (d->link[x] & LP_LINK_UNCONF)) ||
			    isfinite(d->pconf[x]))
				continue;
			ev[xy] += l;
			if (d->link[x] & LP_LINK_UNCONF)
				ev[xy + 1] += l;
		}
	}
	free(f);
	return 0;
}

/*
 * A first look's key: ranked, the chance that transients explain the pair's
 * suspect cells in every metric and the reverse direction's that stood out (a
 * lone cell: its q, so lone cells keep their p-value's order in a metric, and
 * a pair slow in two metrics or both ways, which one transient cannot explain,
 * comes before them); share, its p-value.
 */
static double first_key(const struct lp_sweep_run *r, const struct lp_retest_plan *p,
			const double *ev, int a, int b, double pf)
{
	if (p->order == LP_RETEST_RANDOM)
		return blind(a, b);
	if (p->order != LP_RETEST_RANKED || !ev)
		return pf;
	return exp(ev[2 * ((size_t)a * r->n + b)] + ev[2 * ((size_t)b * r->n + a) + 1]);
}

/*
 * Suspect cells and close calls of metric m (key: a first look's evidence in
 * (0, 1], or, retested and still slow, its retests' p-value less 1: first).
 */
static void want_cells(const struct lp_sweep_run *r, const struct lp_diag *d,
		       const struct lp_retest_plan *p, const double *ev, double *key)
{
	for (int a = 0; a < r->n; a++)
		LP_DIAG_PEERS (&d->lay, a, b) {
			size_t x = lp_diag_at(&d->lay, a, b);
			double k = d->pfirst[x];

			if (!d->suspect[x] && !(d->link[x] & LP_LINK_UNCONF))
				continue;
			if (isfinite(d->pconf[x]) && d->pconf[x] < 1)
				k = d->pconf[x] -
				    1; /* retested and still slow: nearest a verdict */
			else if (isfinite(k))
				k = first_key(r, p, ev, a, b, k);
			want(r, key, a, b, isfinite(k) ? k : -1); /* N <= 3: no p-value, first */
		}
}

/* A flagged node's slow cells against its healthiest partners (after every suspect: key 2). */
static void want_node(const struct lp_sweep_run *r, const struct lp_diag *d, int m, int i, int dir,
		      int per_node, double *key)
{
	const double *eff = dir ? d->eff_src : d->eff_dst;
	int n = r->n;

	for (int got = 0; got < per_node; got++) {
		int best = -1;

		for (int j = 0; j < n; j++) {
			size_t x = dir ? (size_t)j * n + i : (size_t)i * n + j;

			if (j != i && !d->node[j] &&
			    d->cls[dir ? lp_diag_at(&d->lay, j, i) : lp_diag_at(&d->lay, i, j)] ==
				    LP_CELL_SLOW &&
			    !(key[x] <= 2) && (best < 0 || eff[j] > eff[best]))
				best = j;
		}
		if (best < 0)
			return;
		want(r, key, dir ? best : i, dir ? i : best, 2 + m * 1e-3);
	}
}

static void want_nodes(const struct lp_sweep_run *r, int per_node, int round, double *key)
{
	for (int m = 0; m < r->nmetrics; m++) {
		const struct lp_diag *d = &r->diag[m];

		for (int i = 0; i < r->n; i++)
			for (int dir = 0; dir < 2; dir++) {
				unsigned flag = dir ? LP_NODE_SLOW_DST : LP_NODE_SLOW_SRC;
				int split = dir ? d->slow_dst[i] < d->n_dst[i]
						: d->slow_src[i] < d->n_src[i];

				/* a role never retested gets its look whatever the round; later a
				 * unanimous vote is settled, a split one is worth another */
				if ((d->node[i] & flag) && !(d->node[i] & LP_NODE_PARTIAL) &&
				    (!round ||
				     !lp_sweep_count_retests(r, m, dir ? -1 : i, dir ? i : -1) ||
				     split))
					want_node(r, d, m, i, dir, per_node, key);
			}
	}
}

/*
 * The share of first looks still slow after a retest: the run's transient
 * rate (the largest over the metrics) and the noise beyond CLEAR_Z
 * (diag_link.c), or the share of the retests so far that stayed slow when it
 * is larger (persistent faults among them).
 */
static double survive(const struct lp_sweep_run *r)
{
	double blip = 0;
	size_t tested = 0, slow = 0;

	for (int m = 0; m < r->nmetrics; m++) {
		const struct lp_diag *d = &r->diag[m];

		blip = fmax(blip, isfinite(d->blip) ? d->blip : 0);
		for (size_t x = 0; x < d->lay.ncell; x++)
			if (isfinite(d->pconf[x])) {
				tested++;
				slow += d->pconf[x] < 1;
			}
	}
	return fmin(1, fmax(blip + SURVIVE_NOISE, tested ? (double)slow / tested : 0));
}

/*
 * The pairs this round may take out of t that the time left allows. Ranked:
 * every cell still slow (p->follow) and first looks k, as many as can also get
 * their later retests -- each cell still slow one a round for the `after`
 * rounds after this one, each first look with the share p->survive:
 * follow (1 + after) + k (1 + survive after) <= t. Share: ROUND_SHARE of t
 * (so that what a round finds still slow can be confirmed in the rounds after
 * it). Both: all of t in the last round.
 */
static double round_pairs(const struct lp_retest_plan *p, double t)
{
	int after = p->rounds - p->round - 1;
	double k;

	if (after <= 0)
		return t;
	if (p->order != LP_RETEST_RANKED)
		return t * ROUND_SHARE;
	t = floor(t);
	k = (t - (double)p->follow * (1 + after)) / (1 + p->survive * after);
	return fmin(t, (double)p->follow + fmax(0, floor(k)));
}

/* The time and pair budget of this round (round_pairs), at most max_pairs and the suspects. */
static void budget(const struct lp_sweep_run *r, struct lp_retest_plan *p)
{
	double time_left;

	p->used_s = retest_spent(r);
	time_left = lp_sweep_retest_time(r, p) - p->used_s;
	p->pair_s = pair_time(r);
	if (p->pair_s > 0) { /* a document's times can be anything: no cast out of range */
		double n = time_left > 0 ? round_pairs(p, time_left / p->pair_s) : 0;

		p->budget = !(n >= 0) ? 0 : n >= 0x1p63 ? SIZE_MAX : (size_t)n;
	} else {
		p->budget = SIZE_MAX;
	}
	if (p->max_pairs && p->budget > p->max_pairs)
		p->budget = p->max_pairs;
	if (p->budget > p->suspects)
		p->budget = p->suspects;
	p->round_s = p->pair_s * (double)p->budget;
}

size_t lp_sweep_suspects(const struct lp_sweep_run *r, struct lp_retest_plan *p, int32_t *pairs,
			 size_t cap)
{
	size_t nn = (size_t)r->n * r->n, np = 0, take;
	double *key = r->diag ? malloc(nn * sizeof(double)) : NULL;
	double *ev = key ? calloc(2 * nn, sizeof(double)) : NULL;
	struct pick *all = ev ? malloc((nn + 1) * sizeof(*all)) : NULL;

	p->suspects = p->budget = p->follow = 0;
	if (!all) {
		free(key), free(ev);
		return 0;
	}
	for (size_t x = 0; x < nn; x++)
		key[x] = NAN;
	if (p->order == LP_RETEST_RANKED && first_evidence(r, ev)) {
		free(key), free(ev), free(all);
		return 0;
	}
	for (int m = 0; m < r->nmetrics; m++)
		want_cells(r, &r->diag[m], p, ev, key);
	want_nodes(r, p->per_node, p->round, key);
	for (size_t x = 0; x < nn; x++)
		if (!isnan(key[x])) {
			all[np++] =
				(struct pick){ key[x], (int32_t)(x / r->n), (int32_t)(x % r->n) };
			p->follow += key[x] < 0;
		}
	free(key), free(ev);
	qsort(all, np, sizeof(*all), pick_cmp); /* strongest first */
	p->suspects = np;
	p->survive = survive(r);
	budget(r, p);
	take = LP_MIN(LP_MIN(np, p->budget), cap);
	for (size_t i = 0; i < take; i++) {
		pairs[2 * i] = all[i].a;
		pairs[2 * i + 1] = all[i].b;
	}
	free(all);
	return take;
}

void lp_sweep_retest_policy_default(struct lp_sweep_retest_policy *pol)
{
	*pol = (struct lp_sweep_retest_policy){ .max_pairs = LP_SWEEP_RETEST_MAX,
						.per_node = LP_SWEEP_RETEST_PER_NODE,
						.rounds = LP_SWEEP_RETEST_ROUNDS };
}

int lp_sweep_retest_plan_round(struct lp_sweep_run *r, const struct lp_sweep_retest_policy *pol,
			       int round, int32_t **pairs_p, size_t *np_p,
			       struct lp_retest_plan *plan)
{
	struct lp_retest_plan p = { .order = pol->order,
				    .per_node = pol->per_node,
				    .round = round,
				    .rounds = pol->rounds,
				    .max_pairs = (size_t)LP_MAX(pol->max_pairs, 0),
				    .time_s = pol->time_s };
	size_t cap = (size_t)r->n * r->n;
	int ret = 0;

	*pairs_p = NULL;
	*np_p = 0;
	if (pol->max_pairs > 0 && round < pol->rounds) {
		cap = LP_MIN(cap, p.max_pairs);
		*pairs_p = malloc((cap + 1) * 2 * sizeof(int32_t));
		if (!*pairs_p)
			return -ENOMEM;
		ret = lp_sweep_diagnose(r);
		if (!ret)
			*np_p = lp_sweep_suspects(r, &p, *pairs_p, cap);
	}
	if (plan)
		*plan = p;
	return ret;
}

int lp_sweep_retest_plan(struct lp_sweep_run *r, const struct lp_sweep_retest_policy *pol,
			 int round, int32_t **pairs_p, size_t *np_p)
{
	return lp_sweep_retest_plan_round(r, pol, round, pairs_p, np_p, NULL);
}
