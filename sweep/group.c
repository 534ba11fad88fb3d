// SPDX-License-Identifier: MIT
/*
 * Faults shared by a group of nodes (diag.h): a leaf switch, a leaf's uplinks,
 * the path between two leaves, a rail; without a topology, a block of nodes
 * whose cells with each other are fine while their cells with everyone else
 * are slow. A shared fault is one verdict naming the group and its members,
 * fitted into the model before nodes and links are tested, so that its cells
 * are not also named node by node or link by link.
 *
 * Mean shifts (every cell of the scope slowed): in the two-way fit a leaf's
 * slowdown is absorbed by its members' node effects except in the cells among
 * the members, which then look *better* than the node effects predict; the
 * block's interaction (its weighted residual sum over ||M 1_S||^2, the
 * Frisch-Waugh-Lovell coefficient of the block's indicator) is tested at the
 * run's node level, and the scope that explains it best (all cells through the
 * switch, those crossing it, out of it, into it, among its members) is fitted.
 * A block between two leaves that is slow is the path between them.
 *
 * Partial faults (a share of a scope's cells slowed: ECMP hashing flows over a
 * bad uplink): the scope's cells that stand out in their first attempt, against
 * the others (Fisher's exact test at the same level), spread over two members
 * at least (one node's partial fault is the node's).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/stats.h"
#include "sweep/diag_int.h"
#include "sweep/dist.h"

#define MAX_PASSES     6    /* groups fitted one after the other */
#define EXCESS_MIN_N   9    /* a node's partial fault needs this many nodes (8 cells a role) */
#define SCREEN_Z       1.5  /* a block's score z worth a likelihood-ratio test (accept) */
#define BLOCK_SCREEN_P 0.01 /* no topology: a node role this unlikely starts a partial block */
#define BLOCK_EXTEND_P 0.2  /* and one this unlikely, apart from no member, joins it */

static bool member(const struct lp_diag *d, int g, int a)
{
	return (d->gmask[a] >> g) & 1u;
}

bool lp_diag_group_covers(const struct lp_diag *d, const struct lp_diag_group *g, int a, int b)
{
	int gi = (int)(g - d->group);
	bool ma = member(d, gi, a), mb = member(d, gi, b);

	switch (g->scope) {
	case LP_SCOPE_ALL:
		return ma || mb;
	case LP_SCOPE_CROSS:
		return ma != mb;
	case LP_SCOPE_OUT:
		return ma && !mb;
	case LP_SCOPE_IN:
		return !ma && mb;
	case LP_SCOPE_INTRA:
		return ma && mb;
	case LP_SCOPE_PATH:
		return ma && d->leaf_of && d->leaf_of[b] == g->g2;
	default: /* LP_SCOPE_PAIR */
		return d->leaf_of &&
		       ((ma && d->leaf_of[b] == g->g2) || (mb && d->leaf_of[a] == g->g2));
	}
}

/*
 * The tests the groups make, in the Sidak family: a block per ordered leaf pair
 * and a rail each (or, without leaves, up to N / 3 blocks of three from N = 6);
 * a partial fault per node role (from N = EXCESS_MIN_N: fewer cells cannot
 * show a share slow) and per leaf's uplinks and path.
 */
int lp_diag_groups_ntests(const struct lp_diag *d)
{
	int l = d->leaf_of ? d->nleaf : 0, n = d->n;
	int shift = d->leaf_of ? l * l : n >= 6 ? n / 3 : 0;
	int excess = (n >= EXCESS_MIN_N ? 2 * n : 0) + 2 * l + l * (l - 1);

	return shift + (d->rail_of ? d->nrail : 0) + excess;
}

/* A new group of kind/scope whose members are the nodes with grp[i] == id (or mem[] given). */
static struct lp_diag_group *group_new(struct lp_diag *d, int kind, int scope, int g1, int g2,
				       const int *grp, const int *mem, int nmem)
{
	struct lp_diag_group *g;
	int gi = d->ngroup;

	if (gi >= LP_DIAG_MAX_GROUPS)
		return NULL;
	g = &d->group[gi];
	memset(g, 0, sizeof(*g));
	g->mem = malloc((size_t)d->n * sizeof(int));
	if (!g->mem)
		return NULL;
	for (int i = 0; i < d->n; i++)
		if (grp ? grp[i] == g1 : false)
			g->mem[g->nmem++] = i;
	for (int i = 0; i < nmem; i++)
		g->mem[g->nmem++] = mem[i];
	for (int i = 0; i < g->nmem; i++)
		d->gmask[g->mem[i]] |= (uint16_t)(1u << gi);
	g->kind = (uint8_t)kind;
	g->scope = (uint8_t)scope;
	g->g1 = g1;
	g->g2 = g2;
	d->ngroup++;
	return g;
}

static void group_drop_last(struct lp_diag *d, struct work *w)
{
	int gi = --d->ngroup;

	for (int i = 0; i < d->n; i++)
		d->gmask[i] &= (uint16_t) ~(1u << gi);
	free(d->group[gi].mem);
	d->group[gi].mem = NULL;
	w->gfx[gi] = 0;
}

/* The fit's state, to try a scope and go back. */
struct saved {
	double mu, *r, *c, gfx[LP_DIAG_MAX_GROUPS];
	double *wt; /* n*n */
};

static void save(const struct work *w, struct saved *s)
{
	s->mu = w->mu;
	memcpy(s->r, w->r, (size_t)w->n * sizeof(double));
	memcpy(s->c, w->c, (size_t)w->n * sizeof(double));
	memcpy(s->gfx, w->gfx, sizeof(s->gfx));
}

static void restore(struct work *w, const struct saved *s)
{
	w->mu = s->mu;
	memcpy(w->r, s->r, (size_t)w->n * sizeof(double));
	memcpy(w->c, s->c, (size_t)w->n * sizeof(double));
	memcpy(w->gfx, s->gfx, sizeof(s->gfx));
}

/*
 * The interaction of block rows x cols (membership by rg/cg == ri/ci, or the
 * mask of group bit when rg is NULL), over every measured cell of the block
 * (those the fit set aside too: a slow leaf's cells among its members are the
 * outliers of a fit without it): the median residual, robust to a blip or a
 * slow link inside the block, as the coefficient; its z against the median's
 * standard error 1.2533 sigma / ||M 1_S||, the Frisch-Waugh-Lovell norm of the
 * block's indicator (cells x (1 - rows / N)(1 - columns / N)).
 */
static double block_z(const struct lp_diag *d, const struct work *w, const int *rg, int ri,
		      const int *cg, int ci, int bit, double *coef_p, double *sum_p, double *norm_p)
{
	int n = d->n, kr = 0, kc = 0, known = 0;
	size_t k = 0;
	double norm, med;

	for (int i = 0; i < n; i++) {
		bool in_r = rg ? rg[i] == ri : (d->gmask[i] >> bit) & 1u,
		     in_c = cg ? cg[i] == ci : (d->gmask[i] >> bit) & 1u;

		kr += in_r;
		kc += in_c;
		known += rg ? rg[i] >= 0 : 1;
		LP_DIAG_PEERS (w->L, i, j) {
			size_t x = lp_diag_cell(w->L, i, j);

			if (!in_r)
				break;
			if (isfinite(w->y[x]) && (cg ? cg[j] == ci : (d->gmask[j] >> bit) & 1u))
				w->tmp[2 * n + k++] = w->y[x] - lp_diag_fitted(d, w, i, j);
		}
	}
	norm = (double)k * (1 - (double)kr / known) * (1 - (double)kc / known);
	med = k ? lp_median(w->tmp + 2 * n, k) : 0;
	*sum_p = med * norm;
	*norm_p = norm > 0 ? norm : 0;
	*coef_p = med;
	if (!(norm > 0) || !(d->sigma > 0) || k < 2)
		return 0;
	return med * sqrt(norm) / (1.2533 * d->sigma);
}

/* The mean effect of the group's members as senders (dir 0) or receivers (1). */
static double member_mean(const struct work *w, const int *grp, int g1, const int *mem, int nmem,
			  int n, int dir)
{
	double s = 0;
	int k = 0;

	for (int i = 0; i < n; i++) {
		bool in = grp ? grp[i] == g1 : false;

		for (int j = 0; !grp && j < nmem; j++)
			in = in || mem[j] == i;
		if (in && isfinite(dir ? w->c[i] : w->r[i])) {
			s += dir ? w->c[i] : w->r[i];
			k++;
		}
	}
	return k ? s / k : 0;
}

/*
 * The scope a block's interaction stands for. With every node effect free, a
 * slowdown of the cells through a group (all), crossing it (cross), out of it
 * or into it all show as the same interaction lambda of its own block: its
 * members' cells with each other better than their node effects predict. The
 * scopes differ in what they leave to the members' node effects (lambda and
 * the members' mean effects mr, mc of the fit without the group):
 *     all: gamma = -lambda, left r = mr + lambda, c = mc + lambda
 *     cross: gamma = -lambda / 2, left mr + lambda / 2, mc + lambda / 2
 *     out: gamma = -lambda, left mr + lambda, mc;  in: left mr, mc + lambda
 * and the group explains its members best where least is left. A block worse
 * than its node effects predict (lambda < 0) is the cells among them (intra).
 */
static int pick_scope(double lambda, double mr, double mc, double *gamma_p)
{
	static const double lr[] = { 1, 0.5, 1, 0 }, lc[] = { 1, 0.5, 0, 1 },
			    gk[] = { 1, 0.5, 1, 1 };
	static const int scope[] = { LP_SCOPE_ALL, LP_SCOPE_CROSS, LP_SCOPE_OUT, LP_SCOPE_IN };
	double best = INFINITY;
	int k = 0;

	if (lambda < 0) {
		*gamma_p = lambda;
		return LP_SCOPE_INTRA;
	}
	for (int i = 0; i < 4; i++) {
		double r = mr + lr[i] * lambda, c = mc + lc[i] * lambda;

		if (r * r + c * c < best) {
			best = r * r + c * c;
			k = i;
		}
	}
	*gamma_p = -gk[k] * lambda;
	return scope[k];
}

/* A group for a block's interaction: its scope picked, its effect started. 1, or -ENOMEM. */
static int add_scoped(struct lp_diag *d, struct work *w, int kind, int g1, const int *grp,
		      const int *mem, int nmem, double lambda)
{
	double gamma, mr = member_mean(w, grp, g1, mem, nmem, d->n, 0),
		      mc = member_mean(w, grp, g1, mem, nmem, d->n, 1);
	int scope = pick_scope(lambda, mr, mc, &gamma);

	if (kind == LP_GROUP_SWITCH && (scope == LP_SCOPE_OUT || scope == LP_SCOPE_IN))
		kind = LP_GROUP_UPLINK;
	if (!group_new(d, kind, scope, g1, -1, grp, mem, nmem))
		return -ENOMEM;
	w->gfx[d->ngroup - 1] = gamma;
	return 1;
}

/* A block's interaction that may be a group: its score, coefficient, kind, leaves, scope. */
struct cand {
	double z, coef;
	int kind, g1, g2;
	int scope; /* a path's: LP_SCOPE_PATH or LP_SCOPE_PAIR; -1 a leaf's own block */
	const int *grp;
};

/* Candidates tried and refused (their likelihood-ratio test failed): not tried again. */
struct tried {
	int n;
	struct cand c[MAX_PASSES];
};

static bool was_tried(const struct tried *t, const struct cand *c)
{
	for (int i = 0; t && i < t->n; i++)
		if (t->c[i].kind == c->kind && t->c[i].g1 == c->g1 && t->c[i].g2 == c->g2 &&
		    t->c[i].scope == c->scope)
			return true;
	return false;
}

/*
 * A candidate stronger than *best and beyond SCREEN_Z (a score test with the
 * noise of the fit without it: a large group fault inflates that noise, so the
 * screen is low; the likelihood ratio of accept() decides): it replaces it.
 */
static void consider(const struct tried *t, struct cand *best, struct cand c)
{
	if (fabs(c.z) >= SCREEN_Z && fabs(c.z) > fabs(best->z) && !was_tried(t, &c))
		*best = c;
}

/* Is a group of this family (rails or leaves) already fitted for leaf l1 (and l2)? */
static bool fitted_already(const struct lp_diag *d, int kind, int l1, int l2)
{
	for (int g = 0; g < d->ngroup; g++) {
		const struct lp_diag_group *gr = &d->group[g];

		if (gr->kind != LP_GROUP_BLOCK &&
		    (gr->kind == LP_GROUP_RAIL) == (kind == LP_GROUP_RAIL) &&
		    ((gr->g1 == l1 && (l1 == l2 || gr->g2 == l2)) ||
		     (gr->scope == LP_SCOPE_PAIR && gr->g1 == l2 && gr->g2 == l1)))
			return true;
	}
	return false;
}

/*
 * The blocks of leaf (or rail) pairs: a leaf's own block either way (its
 * members' cells better or worse than their node effects predict), a path
 * between two leaves one way or both ways (slower only). The strongest beyond
 * the node level is the candidate.
 */
static void leaf_candidates(const struct lp_diag *d, const struct work *w, const int *grp, int ng,
			    int kind, const struct tried *t, struct cand *best)
{
	for (int l1 = 0; l1 < ng; l1++)
		for (int l2 = l1; l2 < ng; l2++) {
			double c12, c21, s12, s21, n12, n21, z12, z21, zp;

			if ((kind == LP_GROUP_RAIL && l1 != l2) || fitted_already(d, kind, l1, l2))
				continue;
			z12 = block_z(d, w, grp, l1, grp, l2, 0, &c12, &s12, &n12);
			if (l1 == l2) {
				consider(t, best, (struct cand){ z12, c12, kind, l1, -1, -1, grp });
				continue;
			}
			z21 = block_z(d, w, grp, l2, grp, l1, 0, &c21, &s21, &n21);
			zp = n12 + n21 > 0 ? (s12 + s21) / (1.2533 * d->sigma * sqrt(n12 + n21))
					   : 0;
			if (zp < 0 && -zp >= fmax(-z12, -z21) && z12 < 0 && z21 < 0)
				consider(t, best,
					 (struct cand){ zp, (s12 + s21) / (n12 + n21), kind, l1, l2,
							LP_SCOPE_PAIR, grp });
			else if (z12 < z21 && z12 < 0)
				consider(t, best,
					 (struct cand){ z12, c12, kind, l1, l2, LP_SCOPE_PATH,
							grp });
			else if (z21 < 0)
				consider(t, best,
					 (struct cand){ z21, c21, kind, l2, l1, LP_SCOPE_PATH,
							grp });
		}
}

/* Union-find root. */
static int root(int *up, int i)
{
	while (up[i] != i)
		i = up[i] = up[up[i]];
	return i;
}

/*
 * Without a topology: nodes slow in a role (beyond rel/2 and SUSPECT_Z standard
 * errors) whose cells with each other sit nearer normal than their node
 * effects predict, both ways, joined; a block of three or more is a candidate.
 * Fills mem with the largest such block.
 */
static int block_members(const struct lp_diag *d, const struct work *w, double lrel, int *mem,
			 int *up)
{
	int n = d->n, best = -1, nbest = 0, nm = 0;

	for (int i = 0; i < n; i++)
		up[i] = i;
	for (int i = 0; i < n; i++)
		LP_DIAG_PEERS (w->L, i, j) {
			if (j <= i)
				continue;
			bool ci = (w->r[i] < lrel / 2 && w->r[i] < -SUSPECT_Z * d->se_src[i]) ||
				  (w->c[i] < lrel / 2 && w->c[i] < -SUSPECT_Z * d->se_dst[i]);
			bool cj = (w->r[j] < lrel / 2 && w->r[j] < -SUSPECT_Z * d->se_src[j]) ||
				  (w->c[j] < lrel / 2 && w->c[j] < -SUSPECT_Z * d->se_dst[j]);
			double eij = w->y[lp_diag_cell(w->L, i, j)] - lp_diag_fitted(d, w, i, j),
			       eji = w->y[lp_diag_cell(w->L, j, i)] - lp_diag_fitted(d, w, j, i);

			if (ci && cj && !(d->gmask[i] | d->gmask[j]) &&
			    eij > -(w->r[i] + w->c[j]) / 2 && eji > -(w->r[j] + w->c[i]) / 2)
				up[root(up, i)] = root(up, j);
		}
	for (int i = 0; i < n; i++) {
		int k = 0;

		for (int j = 0; j < n; j++)
			k += root(up, j) == root(up, i);
		if (k > nbest) {
			nbest = k;
			best = root(up, i);
		}
	}
	for (int i = 0; nbest >= 3 && i < n; i++)
		if (root(up, i) == best)
			mem[nm++] = i;
	return nm;
}

/* The block of mem: its interaction as a candidate (bit: a scratch group bit). */
static double block_candidate(struct lp_diag *d, const struct work *w, const int *mem, int nm,
			      double *coef)
{
	int bit = LP_DIAG_MAX_GROUPS - 1;
	double z;

	if (d->ngroup >= bit)
		return 0;
	for (int i = 0; i < nm; i++)
		d->gmask[mem[i]] |= (uint16_t)(1u << bit);
	double sum, norm;

	z = block_z(d, w, NULL, 0, NULL, 0, bit, coef, &sum, &norm);
	for (int i = 0; i < nm; i++)
		d->gmask[mem[i]] &= (uint16_t) ~(1u << bit);
	return z;
}

/* Sum of squared residuals over the cells in the fit. */
static double kept_ss(const struct lp_diag *d, const struct work *w)
{
	int n = d->n;
	double ss = 0;

	for (int a = 0; a < n; a++)
		LP_DIAG_PEERS (w->L, a, b) {
			size_t x = lp_diag_cell(w->L, a, b);
			double e;

			if (!(w->wt[x] > 0))
				continue;
			e = w->y[x] - lp_diag_fitted(d, w, a, b);
			ss += e * e;
		}
	return ss;
}

/*
 * The likelihood ratio of the last group: the model refitted with it against
 * the same cells without it, sqrt((SS without - SS with)) / sigma with, as a z.
 */
static double group_lr(struct lp_diag *d, struct work *w, struct saved *tmp)
{
	int g = d->ngroup - 1;
	double ss1 = kept_ss(d, w), ss0, keep = w->gfx[g];

	save(w, tmp);
	w->gfx[g] = 0; /* out of the fit: backfit_group skips it */
	lp_diag_backfit(d, w, 40);
	ss0 = kept_ss(d, w);
	restore(w, tmp);
	w->gfx[g] = keep;
	return d->sigma_fit > 0 && ss0 > ss1 ? sqrt(ss0 - ss1) / d->sigma_fit : 0;
}

/*
 * Accept one candidate: fit its best scope (a path is its own), refit, and
 * keep it when its likelihood ratio passes the node level and its effect is
 * beyond rel. 1 kept, 0 refused (the fit as it was), -ENOMEM.
 */
static int accept(struct lp_diag *d, struct work *w, const struct cand *c, const int *mem, int nm,
		  double lrel, struct saved *sv, struct saved *tmp)
{
	double sigma = d->sigma_fit, z;
	int rc;

	save(w, sv);
	memcpy(sv->wt, w->wt, (d->lay.ncell + 1) * sizeof(double));
	if (c->g2 >= 0 && c->g2 != c->g1) {
		if (!group_new(d, LP_GROUP_UPLINK, c->scope, c->g1, c->g2, c->grp, NULL, 0))
			return -ENOMEM;
		w->gfx[d->ngroup - 1] = c->coef;
	} else {
		rc = add_scoped(d, w, c->kind, c->g1, c->grp, mem, nm, c->coef);
		if (rc < 0)
			return rc;
	}
	lp_diag_refit(d, w);
	z = group_lr(d, w, tmp);
	if (w->gfx[d->ngroup - 1] < lrel && z >= d->t_node) {
		d->group[d->ngroup - 1].z = -z;
		return 1;
	}
	group_drop_last(d, w); /* within the floor, or not beyond the level: the fit as it was */
	restore(w, sv);
	memcpy(w->wt, sv->wt, (d->lay.ncell + 1) * sizeof(double));
	lp_diag_fit_df(d, w);
	d->sigma_fit = sigma;
	return 0;
}

/* Rails that share no cell (--rails): each rail's level against the median rail's. */
static int rail_levels(struct lp_diag *d, struct work *w, double lrel)
{
	int n = d->n, nr = d->nrail, rc = 0;
	double *lr = calloc((size_t)nr * 3 + 1, sizeof(double)), *lc = lr + nr, *lvl = lc + nr, mr,
	       mc, ml;

	if (!lr)
		return -ENOMEM;
	for (int g = 0; g < nr; g++) {
		int k = 0;

		for (int pass = 0; pass < 2; pass++) {
			k = 0;
			for (int i = 0; i < n; i++)
				if (d->rail_of[i] == g && isfinite(pass ? w->c[i] : w->r[i]))
					w->tmp[k++] = pass ? w->c[i] : w->r[i];
			(pass ? lc : lr)[g] = k ? lp_median(w->tmp, (size_t)k) : NAN;
		}
		lvl[g] = lr[g] + lc[g];
	}
	mr = lp_median(lr, (size_t)nr);
	mc = lp_median(lc, (size_t)nr);
	ml = mr + mc;
	for (int g = 0; g < nr && !rc; g++) {
		int k = 0;
		double se, dl = lvl[g] - ml;

		for (int i = 0; i < n; i++)
			k += d->rail_of[i] == g;
		se = 1.2533 * d->sigma * sqrt(2 / fmax(1, k * (k - 1.0)) * (1 + M_PI / (2.0 * nr)));
		if (k < 2 || !(dl < lrel) || !(dl < -d->t_node * se))
			continue;
		if (!group_new(d, LP_GROUP_RAIL, LP_SCOPE_INTRA, g, -1, d->rail_of, NULL, 0)) {
			rc = -ENOMEM;
			break;
		}
		w->gfx[d->ngroup - 1] = dl;
		d->group[d->ngroup - 1].z = dl / se;
		for (int i = 0; i < n; i++)
			if (d->rail_of[i] == g)
				w->r[i] -= lr[g] - mr, w->c[i] -= lc[g] - mc;
	}
	free(lr);
	return rc;
}

/* Do the rails share no cell (each a separate sweep)? */
static bool rails_apart(const struct lp_diag *d, const struct work *w)
{
	int n = d->n;

	if (!d->rail_of || d->nrail < 2)
		return false;
	for (int a = 0; a < n; a++)
		LP_DIAG_PEERS (w->L, a, b)
			if (isfinite(w->y[lp_diag_cell(w->L, a, b)]) &&
			    (d->rail_of[a] < 0 || d->rail_of[a] != d->rail_of[b]))
				return false;
	return true;
}

/* The evidence of the groups fitted: their ratio, z and cells. */
static void group_evidence(struct lp_diag *d, const struct work *w)
{
	int n = d->n;

	for (int g = 0; g < d->ngroup; g++) {
		struct lp_diag_group *gr = &d->group[g];
		double wsum = 0;

		if (gr->partial)
			continue;
		gr->ratio = exp(w->gfx[g]);
		gr->cells = 0;
		for (int a = 0; a < n; a++)
			LP_DIAG_PEERS (w->L, a, b)
				if (w->wt[lp_diag_cell(w->L, a, b)] > 0 &&
				    lp_diag_group_covers(d, gr, a, b)) {
					gr->cells++;
					wsum += w->wt[lp_diag_cell(w->L, a, b)];
				}
		gr->slow = gr->cells;
		gr->frac = 1;
		if (!(gr->z <
		      0)) /* the likelihood ratio's, or the rail level's, when there is one */
			gr->z = wsum > 0 ? w->gfx[g] / (d->sigma * sqrt(1.0 / wsum)) : NAN;
	}
}

int lp_diag_groups_fit(struct lp_diag *d, struct work *w, const struct lp_diag_opts *o, double lrel)
{
	int n = d->n, rc = 0, *mem = malloc(2 * (size_t)n * sizeof(int));
	struct saved sv = { 0 }, tmp = { 0 };
	struct tried tr = { 0 };

	(void)o;
	sv.r = malloc((size_t)n * sizeof(double));
	sv.c = malloc((size_t)n * sizeof(double));
	sv.wt = malloc((d->lay.ncell + 1) * sizeof(double));
	tmp.r = malloc((size_t)n * sizeof(double));
	tmp.c = malloc((size_t)n * sizeof(double));
	tmp.wt = malloc((d->lay.ncell + 1) * sizeof(double));
	if (!mem || !sv.r || !sv.c || !sv.wt || !tmp.r || !tmp.c || !tmp.wt) {
		rc = -ENOMEM;
		goto out;
	}
	if (d->few_df || !(d->sigma > 0))
		goto out;
	if (rails_apart(d, w) && (rc = rail_levels(d, w, lrel)))
		goto out;
	for (int pass = 0; pass < MAX_PASSES && d->ngroup < LP_DIAG_MAX_GROUPS - 5; pass++) {
		struct cand c = { 0 };
		int nm = 0;

		if (d->leaf_of)
			leaf_candidates(d, w, d->leaf_of, d->nleaf, LP_GROUP_SWITCH, &tr, &c);
		if (d->rail_of && !rails_apart(d, w))
			leaf_candidates(d, w, d->rail_of, d->nrail, LP_GROUP_RAIL, &tr, &c);
		if (!d->leaf_of && n >= 6 && (nm = block_members(d, w, lrel, mem, mem + n)) >= 3) {
			double coef, z = block_candidate(d, w, mem, nm, &coef);

			if (z >= SCREEN_Z && !tr.n)
				c = (struct cand){ z, coef, LP_GROUP_BLOCK, -1, -1, -1, NULL };
		}
		if (c.z == 0)
			break;
		rc = accept(d, w, &c, mem, c.grp ? 0 : nm, lrel, &sv, &tmp);
		if (rc < 0)
			break;
		if (!rc)
			tr.c[tr.n++] = c;
		rc = 0;
	}
	group_evidence(d, w);
out:
	free(mem);
	free(sv.r);
	free(sv.c);
	free(sv.wt);
	free(tmp.r);
	free(tmp.c);
	free(tmp.wt);
	return rc < 0 ? rc : 0;
}

/* ---- partial faults: an excess of cells that stand out ---- */

/* One scope tested for an excess: a node's role, a leaf's uplinks one way, a path. */
struct excess {
	int kind;  /* 0 node as sender, 1 node as receiver, 2 leaf out, 3 leaf in, 4 path */
	int i, j;  /* node, or leaf (and the path's other leaf) */
	long s, m; /* slow cells, cells */
	double p;
};

/* Is cell a -> b in scope e? */
static bool excess_covers(const struct lp_diag *d, const struct excess *e, int a, int b)
{
	const int *l = d->leaf_of;

	switch (e->kind) {
	case 0:
		return a == e->i;
	case 1:
		return b == e->i;
	case 2:
		return l[a] == e->i && l[b] != e->i && l[b] >= 0;
	case 3:
		return l[b] == e->i && l[a] != e->i && l[a] >= 0;
	default:
		return l[a] == e->i && l[b] == e->j;
	}
}

/* A cell counted in a scope: measured, and not yet explained by a group or a partial node. */
static bool excess_open(const struct lp_diag *d, const struct work *w, size_t x)
{
	return isfinite(w->z1[x]) && !(d->link[x] & (LP_LINK_GROUP | LP_LINK_PARTIAL));
}

/*
 * A node's scope (its row as sender, its column as receiver) in O(n): one
 * member, so its slow cells each sit in their own column (row) of the other
 * role: the same counts as the general walk over every cell below.
 */
static void excess_count_node(const struct lp_diag *d, const struct work *w, const uint8_t *slow,
			      struct excess *e, int *senders, int *receivers, int *top)
{
	e->s = e->m = 0;
	LP_DIAG_PEERS (&d->lay, e->i, k) {
		size_t x =
			e->kind ? lp_diag_cell(&d->lay, k, e->i) : lp_diag_cell(&d->lay, e->i, k);

		if (!excess_open(d, w, x))
			continue;
		e->m++;
		e->s += slow[x];
	}
	*top = (int)e->s;
	*senders = e->kind ? (int)e->s : e->s > 0;
	*receivers = e->kind ? e->s > 0 : (int)e->s;
}

/* Counts of slow and measured cells of scope e among cells not yet explained. */
static void excess_count(const struct lp_diag *d, const struct work *w, const uint8_t *slow,
			 struct excess *e, int *senders, int *receivers, int *top)
{
	int n = d->n;

	if (e->kind < 2) {
		excess_count_node(d, w, slow, e, senders, receivers, top);
		return;
	}
	e->s = e->m = 0;
	*senders = *receivers = *top = 0;
	for (int a = 0; a < n; a++) {
		int row = 0;

		LP_DIAG_PEERS (&d->lay, a, b) {
			size_t x = lp_diag_cell(&d->lay, a, b);

			if (!excess_open(d, w, x) || !excess_covers(d, e, a, b))
				continue;
			e->m++;
			e->s += slow[x];
			row += slow[x];
		}
		*senders += row > 0;
		*top = row > *top ? row : *top;
	}
	for (int b = 0; b < n; b++) {
		int col = 0;

		LP_DIAG_PEERS (&d->lay, b, a) {
			size_t x = lp_diag_cell(&d->lay, a, b);

			col += slow[x] && excess_open(d, w, x) && excess_covers(d, e, a, b);
		}
		*receivers += col > 0;
		*top = col > *top ? col : *top;
	}
}

/*
 * Fisher's exact test of e's slow cells against the rest (S slow of M cells in
 * all): the chance that e's m cells hold s or more of the S slow ones by luck
 * (the rate outside is estimated, so not a binomial against it).
 */
static double excess_p(struct excess *e, long S, long M)
{
	double p0 = M > e->m ? (double)(S - e->s) / (double)(M - e->m) : 0;

	if (e->s < 3 || (double)e->s / (double)e->m < 2 * p0)
		return 1;
	return lp_dist_hypergeom_sf(e->s, M, S, e->m);
}

/* The slow cells of scope e: marked explained (flag), their median ratio to the reference. */
static double excess_mark(struct lp_diag *d, struct work *w, const uint8_t *slow,
			  const struct excess *e, uint8_t flag)
{
	int n = d->n;
	size_t k = 0;

	for (int a = 0; a < n; a++)
		LP_DIAG_PEERS (w->L, a, b) {
			size_t x = lp_diag_cell(w->L, a, b);

			if (!isfinite(w->z1[x]) || !slow[x] ||
			    (d->link[x] & (LP_LINK_GROUP | LP_LINK_PARTIAL)) ||
			    !excess_covers(d, e, a, b))
				continue;
			d->link[x] |= flag;
			w->tmp[k++] = w->y1[x] - lp_diag_flagged_fit(d, w, a, b);
		}
	return k ? exp(lp_median(w->tmp, k)) : NAN;
}

/* The most significant scope with an excess, spread over two members at least (groups). */
static bool excess_best(const struct lp_diag *d, const struct work *w, const uint8_t *slow, long S,
			long M, struct excess *best)
{
	int n = d->n, l = d->leaf_of ? d->nleaf : 0, ncand = 2 * n + 2 * l + l * l;
	bool found = false;

	best->p = 1;
	for (int k = n >= EXCESS_MIN_N ? 0 : 2 * n; k < ncand; k++) {
		struct excess e = { 0 };
		int senders, receivers, top;

		if (k < 2 * n)
			e = (struct excess){ k % 2, k / 2, -1, 0, 0, 1 };
		else if (k < 2 * n + 2 * l)
			e = (struct excess){ 2 + (k - 2 * n) % 2, (k - 2 * n) / 2, -1, 0, 0, 1 };
		else
			e = (struct excess){
				4, (k - 2 * n - 2 * l) / l, (k - 2 * n - 2 * l) % l, 0, 0, 1
			};
		if (e.kind == 4 && e.i == e.j)
			continue;
		excess_count(d, w, slow, &e, &senders, &receivers, &top);
		e.p = excess_p(&e, S, M);
		if (e.p > d->alpha_node || e.p >= best->p)
			continue;
		/* a group's excess must not be one node's: spread, and no member with most of it */
		if (e.kind >= 2 && (senders < 2 || receivers < 2 || 2 * top > e.s))
			continue;
		*best = e;
		found = true;
	}
	return found;
}

/* Slow and measured cells of the block mem (role: out of it, or into it), and among it. */
static void block_counts(const struct lp_diag *d, const struct work *w, const uint8_t *slow,
			 unsigned role, const int *mem, int nm, const uint8_t *in, long cnt[4])
{
	int n = d->n;

	memset(cnt, 0, 4 * sizeof(long)); /* s_out, m_out, s_in, m_in */
	for (int i = 0; i < nm; i++)
		for (int j = 0; j < n; j++) {
			int a = role == LP_NODE_SLOW_SRC ? mem[i] : j,
			    b = role == LP_NODE_SLOW_SRC ? j : mem[i];
			size_t x = lp_diag_cell(&d->lay, a, b);

			if (j == mem[i] || !isfinite(w->z1[x]) ||
			    (d->link[x] & (LP_LINK_GROUP | LP_LINK_PARTIAL)))
				continue;
			cnt[in[j] ? 2 : 0] += slow[x];
			cnt[in[j] ? 3 : 1]++;
		}
}

/* The nodes whose cells in one role hold more slow ones than chance (a loose screen). */
static int block_screen(struct lp_diag *d, const struct work *w, const uint8_t *slow, unsigned role,
			long S, long M, int *up)
{
	int n = d->n, nc = 0;

	for (int i = 0; i < n; i++) {
		struct excess e = { role == LP_NODE_SLOW_SRC ? 0 : 1, i, -1, 0, 0, 1 };
		int senders, receivers, top;

		excess_count(d, w, slow, &e, &senders, &receivers, &top);
		up[i] = excess_p(&e, S, M) <= BLOCK_SCREEN_P && !d->gmask[i] ? i : -1;
		nc += up[i] >= 0;
	}
	return nc;
}

/*
 * A block grows by the nodes with a milder excess in the same role (p up to
 * BLOCK_EXTEND_P) whose cells with 80 % of its members are not slow: a
 * member whose own count came out low by chance is still one of them.
 */
static int block_extend(const struct lp_diag *d, const struct work *w, const uint8_t *slow,
			unsigned role, long S, long M, int *mem, int nm, uint8_t *in)
{
	int n = d->n, n0 = nm;

	for (int i = 0; i < n; i++) {
		struct excess e = { role == LP_NODE_SLOW_SRC ? 0 : 1, i, -1, 0, 0, 1 };
		int senders, receivers, top, apart = 0;

		if (in[i] || d->gmask[i])
			continue;
		excess_count(d, w, slow, &e, &senders, &receivers, &top);
		if (excess_p(&e, S, M) > BLOCK_EXTEND_P)
			continue;
		for (int k = 0; k < n0; k++)
			apart += slow[lp_diag_cell(&d->lay, i, mem[k])] ||
				 slow[lp_diag_cell(&d->lay, mem[k], i)];
		if (apart <= n0 / 5)
			in[mem[nm++] = i] = 1;
	}
	return nm;
}

/*
 * Without a topology, partial faults shared by a block: the nodes whose cells
 * in one role (out of them, or into them) hold an excess of slow ones at a
 * loose screen, joined when their cells with each other are not slow; the
 * largest block of three or more is one fault when its pooled cells with the
 * others hold an excess beyond the node level (Fisher's exact test) and its
 * cells among themselves far fewer (a binomial lower tail under 1 %).
 */
static int excess_blocks(struct lp_diag *d, const struct work *w, const uint8_t *slow,
			 unsigned role, long S, long M, int *mem, int *up)
{
	int n = d->n, nm = 0, best = -1, nbest = 0;
	uint8_t *in = calloc((size_t)n, 1);
	struct lp_diag_group *g;
	long cnt[4];

	if (!in)
		return -ENOMEM;
	if (block_screen(d, w, slow, role, S, M, up) >= 3) {
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++)
				if (up[i] >= 0 && up[j] >= 0 &&
				    !slow[lp_diag_cell(&d->lay, i, j)] &&
				    !slow[lp_diag_cell(&d->lay, j, i)])
					up[root(up, i)] = root(up, j);
		for (int i = 0; i < n; i++) {
			int k = 0;

			for (int j = 0; up[i] >= 0 && j < n; j++)
				k += up[j] >= 0 && root(up, j) == root(up, i);
			if (k > nbest)
				nbest = k, best = root(up, i);
		}
	}
	for (int i = 0; nbest >= 3 && i < n; i++)
		if (up[i] >= 0 && root(up, i) == best)
			in[mem[nm++] = i] = 1;
	if (nm >= 3)
		nm = block_extend(d, w, slow, role, S, M, mem, nm, in);
	block_counts(d, w, slow, role, mem, nm, in, cnt);
	free(in);
	if (nm < 3 || !cnt[1] || lp_dist_hypergeom_sf(cnt[0], M, S, cnt[1]) > d->alpha_node ||
	    1 - lp_dist_binom_sf(cnt[2] + 1, cnt[3], (double)cnt[0] / (double)cnt[1]) > 0.01)
		return 0;
	g = group_new(d, LP_GROUP_BLOCK, role == LP_NODE_SLOW_SRC ? LP_SCOPE_OUT : LP_SCOPE_IN, -1,
		      -1, NULL, mem, nm);
	if (!g)
		return d->ngroup >= LP_DIAG_MAX_GROUPS ? 0 : -ENOMEM;
	g->partial = true;
	g->slow = (int)cnt[0];
	g->cells = (int)cnt[1];
	g->frac = (double)cnt[0] / (double)cnt[1];
	g->z = lp_dist_norm_isf(fmax(lp_dist_hypergeom_sf(cnt[0], M, S, cnt[1]), 1e-300));
	return 1;
}

/* Slow (S) and measured (M) cells not explained yet. */
static void excess_totals(const struct lp_diag *d, const struct work *w, const uint8_t *slow,
			  long *S, long *M)
{
	*S = *M = 0;
	for (size_t x = 0; x < d->lay.ncell; x++)
		if (isfinite(w->z1[x]) && !(d->link[x] & (LP_LINK_GROUP | LP_LINK_PARTIAL))) {
			(*M)++;
			*S += slow[x];
		}
}

/* The slow cells a block group's scope holds: explained by it; its ratio. */
static void block_mark(struct lp_diag *d, struct work *w, const uint8_t *slow, int g)
{
	int n = d->n;
	size_t k = 0;

	for (int a = 0; a < n; a++)
		LP_DIAG_PEERS (w->L, a, b) {
			size_t x = lp_diag_cell(w->L, a, b);

			if (isfinite(w->z1[x]) && slow[x] && !(d->link[x] & LP_LINK_GROUP) &&
			    lp_diag_group_covers(d, &d->group[g], a, b)) {
				d->link[x] =
					(uint8_t)((d->link[x] & ~LP_LINK_PARTIAL) | LP_LINK_GROUP);
				w->tmp[k++] = w->y1[x] - lp_diag_flagged_fit(d, w, a, b);
			}
		}
	d->group[g].ratio = k ? exp(lp_median(w->tmp, k)) : NAN;
}

int lp_diag_groups_excess(struct lp_diag *d, struct work *w, const struct lp_diag_opts *o,
			  double lrel, const uint8_t *slow)
{
	int n = d->n, *mem = malloc(2 * (size_t)n * sizeof(int)), rc = 0;
	struct excess e;
	long S, M;

	(void)o;
	(void)lrel;
	if (!mem)
		return -ENOMEM;
	for (int role = 1; !d->leaf_of && n >= EXCESS_MIN_N && role <= 2; role++) {
		excess_totals(d, w, slow, &S, &M);
		while ((rc = excess_blocks(d, w, slow, (unsigned)role, S, M, mem, mem + n)) == 1) {
			block_mark(d, w, slow, d->ngroup - 1);
			excess_totals(d, w, slow, &S, &M);
		}
	}
	for (int pass = 0; rc >= 0 && pass < 4 * n && d->ngroup < LP_DIAG_MAX_GROUPS; pass++) {
		excess_totals(d, w, slow, &S, &M);
		if (!excess_best(d, w, slow, S, M, &e))
			break;
		if (e.kind < 2) {
			d->node[e.i] |=
				LP_NODE_PARTIAL | (e.kind ? LP_NODE_SLOW_DST : LP_NODE_SLOW_SRC);
			excess_mark(d, w, slow, &e, LP_LINK_PARTIAL);
			continue;
		}
		struct lp_diag_group *g =
			group_new(d, LP_GROUP_UPLINK,
				  e.kind == 2	? LP_SCOPE_OUT
				  : e.kind == 3 ? LP_SCOPE_IN
						: LP_SCOPE_PATH,
				  e.i, e.kind == 4 ? e.j : -1, d->leaf_of, NULL, 0);

		if (!g) {
			rc = d->ngroup >= LP_DIAG_MAX_GROUPS ? 0 : -ENOMEM;
			break;
		}
		g->partial = true;
		g->slow = (int)e.s;
		g->cells = (int)e.m;
		g->frac = (double)e.s / (double)e.m;
		g->z = lp_dist_norm_isf(fmax(e.p, 1e-300));
		g->ratio = excess_mark(d, w, slow, &e, LP_LINK_GROUP);
	}
	free(mem);
	return rc < 0 ? rc : 0;
}

double lp_diag_group_limit(const struct lp_diag *d, double lrel)
{
	int n = d->n, *size, k = 0, known = 0, nl = 0;
	double se, norm, tp, *sz;

	if (!d->leaf_of || d->nleaf < 2 || !(d->sigma > 0))
		return NAN;
	size = calloc((size_t)d->nleaf, sizeof(int));
	if (!size)
		return NAN;
	for (int i = 0; i < n; i++)
		if (d->leaf_of[i] >= 0 && d->leaf_of[i] < d->nleaf)
			size[d->leaf_of[i]]++, known++;
	sz = malloc((size_t)d->nleaf * sizeof(double));
	for (int l = 0; sz && l < d->nleaf; l++)
		if (size[l] >= 2)
			sz[nl++] = size[l];
	k = nl ? (int)lp_median(sz, (size_t)nl) : 0; /* the median leaf */
	free(sz);
	free(size);
	if (k < 2 || k >= known)
		return NAN;
	norm = k * (k - 1.0) * (1 - (double)k / known) * (1 - (double)k / known);
	/* the median block test's standard error, at the noise's upper 90 % bound */
	se = 1.2533 * d->sigma * sqrt(1.0 / norm) * lp_dist_sigma_upper(d->df > 1 ? d->df : 1, 0.1);
	tp = lp_dist_t_isf(0.1, d->df > 0 ? d->df : 1);
	return exp(-(fmax(-lrel, d->t_node * se) + tp * se));
}
