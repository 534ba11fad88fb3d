/* SPDX-License-Identifier: MIT */
/*
 * Internal to the diagnosis (sweep/diag.c, the shared faults of sweep/group.c):
 * the scratch of one metric's diagnosis and the fit both use.
 */
#ifndef LP_SWEEP_DIAG_INT_H
#define LP_SWEEP_DIAG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sweep/diag.h"

#define SUSPECT_Z 2.5 /* a cell or node effect this many standard errors out is worth a retest */

struct work {
	int n;
	const struct lp_diag_lay *L; /* where the cells are (the diagnosis's d->lay) */
	double *y;		     /* n*n log goodness of the combined attempts, NaN unusable */
	double *y1;		     /* n*n the first attempt's (the sweep's; else y) */
	double *ybest;		     /* n*n the best attempt's */
	double *rb;		     /* n*n the best retest's, NaN none */
	double *rm;		     /* n*n the retests combined, NaN none */
	const uint8_t *ratt;
	double *tmp; /* n*n + 1 scratch (ntmp; the tetrads of the scale may want more) */
	size_t ntmp;
	double *wt;    /* n*n weight in the fit: 1 in, Huber's below 1, 0 set aside */
	uint8_t *keep; /* n*n wt > 0 */
	double mu, *r, *c;
	double gfx[LP_DIAG_MAX_GROUPS]; /* log effect of d->group[g] in the fit (0: not fitted) */
	double mu_link;			/* the link test's reference */
	int kept;			/* cells behind it */
	double *z1;			/* n*n: the first attempt against the link reference */
	double *zs; /* the first attempts of the cells not found persistent, sorted */
	size_t nzs; /* how many */
	const double *spread;
	const int32_t *round;
	const int32_t *rfirst;
};

/* Cell a -> b's index in the layout (diag.h: L->ncell between blocks). */
static inline size_t lp_diag_cell(const struct lp_diag_lay *L, int a, int b)
{
	return lp_diag_at(L, a, b);
}

/* Enough repeated attempts to take their noise for the cells' (N <= 3 has nothing else). */
static inline bool lp_diag_rep_known(const struct lp_diag *d)
{
	return d->sigma_rep == d->sigma_rep && d->rep_pairs >= 3;
}

/* N = 3: every explanation of up to three faults, the simplest within the noise (diag_small.c). */
int lp_diag_fit_search(struct lp_diag *d, struct work *w, const struct lp_diag_opts *o,
		       double lrel);
/* N = 2: a slow pair with its three candidates. */
void lp_diag_fit_n2(struct lp_diag *d, struct work *w, const struct lp_diag_opts *o, double lrel);
/* Does candidate it hold cell a -> b? */
bool lp_diag_item_covers(const struct lp_diag_item *it, int a, int b);
/* Add a candidate to d->cand (once). */
void lp_diag_add_cand(struct lp_diag *d, struct lp_diag_item it);

/* Huber's fit of w->y (diag_fit.c): w->mu, r, c, wt, keep; d->sigma_fit (unbiased), d->df;
 * congested sweep rounds corrected (d->round_fx). */
void lp_diag_fit_twoway(struct lp_diag *d, struct work *w);
/* The fit's degrees of freedom and kept cells from its weights (d->df, w->keep). */
void lp_diag_fit_df(struct lp_diag *d, struct work *w);
/* The fit again from its current state (after a group was added to it). */
void lp_diag_refit(struct lp_diag *d, struct work *w);

/* Links once nodes and groups are tested (diag_link.c): screen, confirmation, unconfirmed. */
int lp_diag_links(struct lp_diag *d, struct work *w, const struct lp_diag_opts *o, double lrel);
/* N = 3: residuals, suspects; a link of the search without a retest is unconfirmed. */
void lp_diag_links_small(struct lp_diag *d, struct work *w, double lrel);
/* The link fault found with 90 % power (a ratio). */
double lp_diag_link_limit(const struct lp_diag *d, const struct work *w, double lrel);
/* The leaf fault found with 90 % power (a ratio; NaN without leaves). */
double lp_diag_group_limit(const struct lp_diag *d, double lrel);
/* What a healthy link between a and b gives: the reference, flagged node and fitted groups. */
double lp_diag_flagged_fit(const struct lp_diag *d, const struct work *w, int a, int b);
/* The fitted groups' part of cell a -> b. */
double lp_diag_group_part(const struct lp_diag *d, const struct work *w, int a, int b);

/* mu + node effects + fitted group effects for cell a -> b. */
double lp_diag_fitted(const struct lp_diag *d, const struct work *w, int a, int b);
/* The two-way fit of w->y with the current weights and groups (weighted backfitting). */
void lp_diag_backfit(struct lp_diag *d, struct work *w, int iters);
/* Sum of weighted squared residuals (the fit's objective). */
double lp_diag_wss(const struct lp_diag *d, const struct work *w);
/*
 * Shared faults: group effects fitted into the model (leaf, path, rail; blocks
 * without a topology), after the two-way fit and before the nodes' tests.
 * Returns the number of tests it made (for the Sidak family) or -ENOMEM.
 */
int lp_diag_groups_fit(struct lp_diag *d, struct work *w, const struct lp_diag_opts *o,
		       double lrel);
/* How many node and group tests the groups will make (before lp_diag_groups_fit). */
int lp_diag_groups_ntests(const struct lp_diag *d);
/*
 * Shared partial faults (a share of a node's or a group's cells slow, once
 * each: ECMP over a bad uplink): an excess of cells that stand out, after the
 * links' first-attempt screen. Marks the cells it explains. 0 or -ENOMEM.
 */
int lp_diag_groups_excess(struct lp_diag *d, struct work *w, const struct lp_diag_opts *o,
			  double lrel, const uint8_t *slow);

#endif
