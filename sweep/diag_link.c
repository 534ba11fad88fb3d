// SPDX-License-Identifier: MIT
/*
 * Links (diag.h), once nodes and groups are tested: one attempt never makes a
 * link. Each cell's first attempt is screened against the reference plus the
 * flagged effects (Benjamini-Hochberg over the cells: a cell that passes
 * "stands out once"); a cell is a confirmed link only when its retests, on
 * their own, pass a second Benjamini-Hochberg step over the retested cells:
 * every retest slow, each beyond what noise or a transient (a share `blip` of
 * all attempts, estimated from the run) would give. Stood out and not
 * confirmed (never retested, or too few retests yet): unconfirmed.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "common/stats.h"
#include "sweep/diag_int.h"
#include "sweep/dist.h"

#define BLIP_MIN    0.01 /* transients slow at least this share of attempts: two retests, never one */
#define BLIP_FLOOR  0.005 /* ... and at least this share as slow as any given retest */
#define CLEAR_Z	    2.0 /* a retest within this many standard deviations of healthy clears a cell */
#define POWER	    0.9
#define LIMIT_DRAWS 2000 /* simulated links a step of the link limit's search */

double lp_diag_flagged_fit(const struct lp_diag *d, const struct work *w, int a, int b)
{
	return w->mu_link + (d->node[a] & LP_NODE_SLOW_SRC ? w->r[a] : 0) +
	       (d->node[b] & LP_NODE_SLOW_DST ? w->c[b] : 0) + lp_diag_group_part(d, w, a, b);
}

/*
 * The link test's noise: the kept cells against the reference plus the
 * flagged node and group effects, re-centred. The nodes not found slow are the
 * healthy majority (effect 0; a small real effect only adds to this noise), so
 * it rests on all kept cells, not on cells - 2N + 1.
 */
static void link_noise(struct lp_diag *d, struct work *w)
{
	double s = 0, ss = 0;
	int nflag = 0;

	w->mu_link = w->mu;
	w->kept = 0;
	for (int a = 0; a < d->n; a++)
		LP_DIAG_PEERS (w->L, a, b)
			if (w->keep[lp_diag_cell(w->L, a, b)]) {
				s += w->y[lp_diag_cell(w->L, a, b)] -
				     lp_diag_flagged_fit(d, w, a, b);
				w->kept++;
			}
	if (!w->kept)
		return;
	w->mu_link += s / w->kept;
	for (int a = 0; a < d->n; a++)
		LP_DIAG_PEERS (w->L, a, b)
			if (w->keep[lp_diag_cell(w->L, a, b)]) {
				double e = w->y[lp_diag_cell(w->L, a, b)] -
					   lp_diag_flagged_fit(d, w, a, b);

				ss += e * e;
			}
	for (int i = 0; i < d->n; i++)
		nflag += !!(d->node[i] & LP_NODE_SLOW_SRC) + !!(d->node[i] & LP_NODE_SLOW_DST);
	for (int g = 0; g < d->ngroup; g++)
		nflag += w->gfx[g] != 0;
	d->df_link = w->kept - 1 - nflag;
	d->sigma_link = d->df_link > 0 ? sqrt(ss / d->df_link) : NAN;
}

/* The standard deviation of one attempt of cell a -> b around the link reference. */
static double link_sd(const struct lp_diag *d, const struct work *w, int a, int b)
{
	double v = d->sigma_link * d->sigma_link * (1 + 1.0 / w->kept);

	if (d->node[a] & LP_NODE_SLOW_SRC)
		v += d->se_src[a] * d->se_src[a];
	if (d->node[b] & LP_NODE_SLOW_DST)
		v += d->se_dst[b] * d->se_dst[b];
	return sqrt(v);
}

/*
 * Attempt value y of cell x against what both its nodes do with everyone (the
 * full fit, every node effect, flagged or not), as if the cell were left out
 * of it: (y - fitted) / (1 - h), h = 1/cells(a) + 1/cells(b) - 1/kept. A
 * link is slow by this too: a node's real but unflagged effect is not a link.
 */
static double full_dev(const struct lp_diag *d, const struct work *w, int a, int b, double y)
{
	double h = 1.0 / fmax(1, d->n_src[a]) + 1.0 / fmax(1, d->n_dst[b]) - 1.0 / fmax(1, w->kept);

	return (y - lp_diag_fitted(d, w, a, b)) / (1 - fmin(0.9, h));
}

/* P(T <= z) at the link noise's df (a lower tail: slowdowns are negative). */
static double lower_p(double z, int df)
{
	return isnan(z) ? 1 : lp_dist_t_sf(-z, df > 0 ? df : 1);
}

/*
 * The first attempt of every cell: its z (w->z1), its p-value as a slowdown
 * beyond rel (d->pfirst; 1 when it is not beyond rel), and whether it counts
 * as slow (beyond rel and SUSPECT_Z: a suspect, and a vote in the partial
 * faults' counts).
 */
static void link_screen(struct lp_diag *d, struct work *w, double lrel, uint8_t *slow)
{
	int n = d->n;

	for (int a = 0; a < n; a++)
		LP_DIAG_PEERS (w->L, a, b) {
			size_t x = lp_diag_cell(w->L, a, b);
			double dev, z;

			w->z1[x] = NAN;
			if (!isfinite(w->y1[x]))
				continue;
			dev = w->y1[x] - lp_diag_flagged_fit(d, w, a, b);
			z = dev / link_sd(d, w, a, b);
			w->z1[x] = z;
			/* beyond rel against the reference and against both nodes' own effects */
			if (!(full_dev(d, w, a, b, w->y1[x]) < lrel))
				dev = 0;
			d->pfirst[x] = dev < lrel ? lower_p(z, d->df_link) : 1;
			slow[x] = dev < lrel && z < -SUSPECT_Z;
		}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Benjamini-Hochberg at level q over m tests: the largest p-value that passes (-1: none). */
static double bh_threshold(const double *p, size_t np, size_t m, double q, double *tmp)
{
	size_t k = 0;
	double thr = -1;

	for (size_t i = 0; i < np; i++)
		if (p[i] <= q)
			tmp[k++] = p[i];
	if (!k)
		return -1;
	qsort(tmp, k, sizeof(double), cmp_double);
	for (size_t i = 0; i < k; i++)
		if (tmp[i] <= (double)(i + 1) * q / (double)m)
			thr = tmp[i];
	return thr;
}

/* Cells already explained: by a partial node or group fault (flagged effects are in the fit). */
static bool explained(const struct lp_diag *d, size_t x)
{
	return d->link[x] & (LP_LINK_GROUP | LP_LINK_PARTIAL);
}

/*
 * Are the retests of cell x slow: the best one beyond rel / 2 and CLEAR_Z
 * standard deviations (a retest a healthy cell could give clears it), the
 * combined ones beyond rel?
 */
static bool retests_slow(const struct lp_diag *d, const struct work *w, size_t x, double lrel)
{
	int a = lp_diag_xa(w->L, x), b = lp_diag_xb(w->L, x);
	double ff = lp_diag_flagged_fit(d, w, a, b);

	return w->rb[x] - ff < lrel / 2 && w->rb[x] - ff < -CLEAR_Z * link_sd(d, w, a, b) &&
	       w->rm[x] - ff < lrel && full_dev(d, w, a, b, w->rm[x]) < lrel;
}

static bool retested(const struct work *w, size_t x)
{
	return w->ratt && w->ratt[x] && isfinite(w->rb[x]);
}

/*
 * The share of attempts a transient slows: cells slow in their first attempt
 * beyond what the noise gives (E), less those whose retests stayed slow
 * (persistent), over the cells, with two standard errors of that count on top
 * (a few dozen cells cannot say how rare it is); at least BLIP_MIN.
 */
static void blip_rate(struct lp_diag *d, struct work *w, const uint8_t *slow, double lrel)
{
	size_t m = 0;
	double k = 0, e = 0;

	w->nzs = 0;
	for (int a = 0; a < d->n; a++)
		LP_DIAG_PEERS (w->L, a, b) {
			size_t x = lp_diag_cell(w->L, a, b);
			bool persistent = retested(w, x) && retests_slow(d, w, x, lrel);
			double sd;

			if (!isfinite(w->z1[x]) || explained(d, x))
				continue;
			m++;
			sd = link_sd(d, w, a, b);
			e += lower_p(fmin(-SUSPECT_Z, lrel / sd), d->df_link);
			k += slow[x] && !persistent;
			if (!persistent)
				w->zs[w->nzs++] = w->z1[x];
		}
	d->blip = m ? fmax(BLIP_MIN, (k - e + 2 * sqrt(k)) / (double)m) : BLIP_MIN;
	lp_sort_doubles(w->zs, w->nzs);
}

/*
 * The share of attempts a transient makes as slow as z (standard deviations):
 * the sweep's first attempts at or below z beyond what the noise gives, with
 * two standard errors and one attempt on top; at most the overall rate, at
 * least BLIP_FLOOR (a transient deeper than any the sweep saw).
 */
static double blip_at(const struct lp_diag *d, const struct work *w, double z)
{
	size_t lo = 0, hi = w->nzs;
	double k, e;

	if (!w->nzs)
		return d->blip;
	while (lo < hi) { /* attempts at or below z */
		size_t mid = lo + (hi - lo) / 2;

		if (w->zs[mid] <= z)
			lo = mid + 1;
		else
			hi = mid;
	}
	k = (double)lo;
	e = (double)w->nzs * lower_p(z, d->df_link);
	return fmax(BLIP_FLOOR, fmin(d->blip, (k - e + 2 * sqrt(k) + 1) / (double)w->nzs));
}

/* p-value of a retested cell's retests, all of them slow: (worst single p)^retests; 1 cleared. */
static double confirm_p(const struct lp_diag *d, const struct work *w, size_t x, double lrel,
			double *z_p)
{
	int a = lp_diag_xa(w->L, x), b = lp_diag_xb(w->L, x);
	double z = (w->rb[x] - lp_diag_flagged_fit(d, w, a, b)) / link_sd(d, w, a, b);

	*z_p = z;
	if (!retests_slow(d, w, x, lrel))
		return 1;
	return pow(fmin(1, lower_p(z, d->df_link) + blip_at(d, w, z)), w->ratt[x]);
}

/*
 * How far the retests reached, for each number R of retests: when some slow
 * first attempts got fewer than R retests (the budget ran out; a cell cleared
 * by retests begun early enough to give it R counts as reached), a link must
 * have been slower in its first attempt than the slowest of them to be sure of
 * R: the planner takes a lone cell's first look by its p-value, and a cell it
 * ranked higher on other evidence (retest.c) moves none of the others back.
 */
static void retest_reach(struct lp_diag *d, const struct work *w, const uint8_t *slow, double lrel)
{
	size_t nn = d->lay.ncell;

	for (int k = 1; k < 8; k++) {
		double worst_missed = INFINITY;

		for (size_t x = 0; x < nn; x++) {
			int got = retested(w, x) ? w->ratt[x] : 0;
			int from = w->rfirst ? w->rfirst[x] : -1;

			if (!slow[x] || explained(d, x))
				continue;
			/* a cleared cell needed no more: had it stayed slow, it would have gone
			 * before every first look in the rounds after its first (retest.c) */
			if (got >= k || (got && from >= 0 && from + k <= d->retest_rounds &&
					 !retests_slow(d, w, x, lrel)))
				continue;
			if (!got || retests_slow(d, w, x, lrel))
				worst_missed = fmin(worst_missed, w->z1[x]);
		}
		d->z_reach[k] = fmin(worst_missed, -SUSPECT_Z);
	}
}

/* Stood out, confirmed, cleared, unconfirmed; and what is worth a retest. */
static int link_verdicts(struct lp_diag *d, struct work *w, const uint8_t *slow, double lrel)
{
	size_t nn = d->lay.ncell, m1 = 0, mr = 0;
	double *p1 = malloc((nn + 1) * sizeof(double)), *pr = malloc((nn + 1) * sizeof(double));
	double thr1, thrr;

	if (!p1 || !pr) {
		free(p1), free(pr);
		return -ENOMEM;
	}
	for (size_t x = 0; x < nn; x++) {
		double z;

		if (!isfinite(w->z1[x]) || explained(d, x))
			continue;
		p1[m1++] = d->pfirst[x];
		if (retested(w, x)) {
			d->pconf[x] = confirm_p(d, w, x, lrel, &z);
			pr[mr++] = d->pconf[x];
		}
	}
	thr1 = d->thr_first = bh_threshold(p1, m1, m1, d->q_link, w->tmp);
	thrr = d->thr_conf = bh_threshold(pr, mr, mr, d->q_link, w->tmp);
	d->nretested = (int)mr;
	retest_reach(d, w, slow, lrel);
	for (size_t x = 0; x < nn; x++) {
		bool stood, cleared, confirmed;
		double z;

		if (!isfinite(w->z1[x]) || explained(d, x))
			continue;
		stood = d->pfirst[x] <= thr1;
		cleared = retested(w, x) && !retests_slow(d, w, x, lrel);
		confirmed = retested(w, x) && d->pconf[x] <= thrr;
		d->zlink[x] = w->z1[x];
		if (confirmed) {
			confirm_p(d, w, x, lrel, &z);
			d->zlink[x] = z;
			d->link[x] |= LP_LINK_SLOW;
		} else if (!cleared &&
			   (stood || (retested(w, x) && slow[x] && d->pconf[x] <= d->q_link))) {
			/* stood out in its one attempt, or its retests alone would be a
			 * discovery were it the only cell retested (not yet among all) */
			d->link[x] |= LP_LINK_UNCONF;
			d->nunconf++;
		}
		if (!confirmed && !cleared && (stood || slow[x]))
			d->suspect[x] = 1;
	}
	free(p1);
	free(pr);
	return 0;
}

int lp_diag_links(struct lp_diag *d, struct work *w, const struct lp_diag_opts *o, double lrel)
{
	uint8_t *slow;
	int rc;

	link_noise(d, w);
	if (!isfinite(d->sigma_link))
		return 0;
	slow = calloc(d->lay.ncell + 1, 1);
	if (!slow)
		return -ENOMEM;
	link_screen(d, w, lrel, slow);
	rc = lp_diag_groups_excess(d, w, o, lrel, slow);
	if (!rc) {
		blip_rate(d, w, slow, lrel);
		rc = link_verdicts(d, w, slow, lrel);
	}
	free(slow);
	return rc;
}

/*
 * N = 3: the search's links need retests too (one attempt is unconfirmed);
 * residuals and z against the search's fit, close calls retested.
 */
void lp_diag_links_small(struct lp_diag *d, struct work *w, double lrel)
{
	int n = d->n;

	for (int a = 0; a < n; a++)
		LP_DIAG_PEERS (w->L, a, b) {
			size_t x = lp_diag_cell(w->L, a, b);
			double e, se;

			if (!isfinite(w->y[x]))
				continue;
			e = w->y[x] - lp_diag_fitted(d, w, a, b);
			se = d->sigma * sqrt(1.0 / d->att[x] + 1.0 / fmax(1, d->n_src[a]) +
					     1.0 / fmax(1, d->n_dst[b]));
			d->resid[x] = e;
			d->zlink[x] = se > 0 ? e / se : e < 0 ? -INFINITY : 0;
			if (e < lrel && d->zlink[x] < -SUSPECT_Z)
				d->suspect[x] = 1;
			if ((d->link[x] & LP_LINK_SLOW) && !retested(w, x)) {
				d->link[x] =
					(uint8_t)((d->link[x] & ~LP_LINK_SLOW) | LP_LINK_UNCONF);
				d->nunconf++;
				d->suspect[x] = 1;
			}
		}
}

/* A small counter-based generator: the limits are the same for the same run. */
static double lim_uni(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return ((*s >> 11) + 0.5) / 9007199254740992.0;
}

static double lim_gauss(uint64_t *s)
{
	return sqrt(-2 * log(lim_uni(s))) * cos(2 * M_PI * lim_uni(s));
}

/* The rules a link's attempts go through, for the limit's simulation. */
struct link_rule {
	double sd, thr1, lrel, q, clear;
	int rounds, df;
	double zconf[9]; /* R retests confirm when the best is beyond zconf[R] standard deviations */
};

/*
 * One link of log effect -delta through the rules of link_screen and
 * link_verdicts: its first attempt slow enough to be retested (thr1, beyond
 * rel); then retest after retest until its retests, all of them slow (the
 * best beyond rel / 2 and CLEAR_Z, the combined beyond rel), pass
 * (best p + transients as slow)^R <= q, or one clears it, or the rounds run out.
 */
static bool link_found(const struct link_rule *lr, double delta, uint64_t *g)
{
	double first = -delta + lr->sd * lim_gauss(g), best = -INFINITY, v[8];

	if (!(first < lr->thr1 && first < lr->lrel))
		return false;
	for (int r = 0; r < lr->rounds && r < 8; r++) {
		double med;

		v[r] = -delta + lr->sd * lim_gauss(g);
		best = fmax(best, v[r]);
		for (int i = r; i > 0 && v[i] < v[i - 1]; i--) {
			double t = v[i];

			v[i] = v[i - 1];
			v[i - 1] = t;
		}
		med = (r + 1) % 2 ? v[r / 2] : v[(r + 1) / 2]; /* even: the better middle */
		if (!(best < lr->lrel / 2 && best < -lr->clear * lr->sd && med < lr->lrel))
			return false; /* cleared */
		if (best < lr->zconf[r + 1] * lr->sd)
			return true;
	}
	return false;
}

/* The link found with POWER when its first attempt must pass lr->thr1 and it gets lr->rounds. */
static double link_limit_with(struct link_rule *lr, double lrel)
{
	double lo = 0, hi = -fmin(lr->thr1, lrel) + 20 * lr->sd, top = hi;

	for (int it = 0; it < 40 && hi - lo > 1e-4; it++) {
		double mid = 0.5 * (lo + hi);
		uint64_t g = 0x9E3779B97F4A7C15ull;
		int found = 0;

		for (int k = 0; k < LIMIT_DRAWS; k++)
			found += link_found(lr, mid, &g);
		if (found < POWER * LIMIT_DRAWS)
			lo = mid;
		else
			hi = mid;
	}
	return hi >= top - 1e-3 ? 0 : exp(-hi);
}

/*
 * The link found with POWER, by simulating the rules it goes through
 * (link_found; 2,000 draws a step, a fixed seed): its first attempt slow enough
 * for the retests to reach it (SUSPECT_Z standard deviations, or slower than
 * the slowest first attempt that got fewer than R when the budget ran out;
 * retest_reach), confirmed as a
 * lone discovery among the retested cells (BH at q / retested). The best over
 * R = 1 .. the run's rounds (a budget that ran out may have given the worst
 * suspects one retest and none a third). 0 when no link can be confirmed in
 * this run (no retest round, or the budget reached no cell).
 */
double lp_diag_link_limit(const struct lp_diag *d, const struct work *w, double lrel)
{
	struct link_rule lr;
	double best = 0;
	int avail = d->retest_rounds > 0 ? d->retest_rounds : 0;

	if (!isfinite(d->sigma_link) || !(d->q_link > 0)) {
		double s = d->sigma * sqrt(1 + 2.0 / (d->n > 1 ? d->n - 1 : 1));

		return exp(-fmax(-lrel, 5 * s) - 1.2816 * s);
	}
	/* the noise at its upper 90 % bound: a run whose noise came out low promises no more */
	lr = (struct link_rule){ .sd = d->sigma_link * sqrt(1 + 1.0 / (w->kept > 0 ? w->kept : 1)) *
				       lp_dist_sigma_upper(d->df_link > 1 ? d->df_link : 1,
							   1 - POWER),
				 .lrel = lrel,
				 .q = d->q_link / (d->nretested > 1 ? d->nretested : 1),
				 .clear = CLEAR_Z,
				 .df = d->df_link > 0 ? d->df_link : 1 };
	for (int k = 1; k < 9; k++) { /* (t p + transients)^R <= q, by bisection: p grows with z */
		double lo = -60, hi = 0;

		for (int it = 0; it < 50; it++) {
			double mid = 0.5 * (lo + hi);

			if (pow(fmin(1, lower_p(mid, lr.df) + blip_at(d, w, mid)), k) <= lr.q)
				lo = mid;
			else
				hi = mid;
		}
		lr.zconf[k] = lo;
	}
	for (int k = avail < 7 ? avail : 7; k >= 1; k--) {
		lr.rounds = k;
		lr.thr1 = d->z_reach[k] * lr.sd;
		if (isfinite(lr.thr1))
			best = fmax(best, link_limit_with(&lr, lrel));
		if (d->z_reach[k] >= -SUSPECT_Z)
			break; /* the budget reached every suspect with k: fewer is no better */
	}
	return best;
}
