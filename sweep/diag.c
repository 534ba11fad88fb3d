// SPDX-License-Identifier: MIT
/* lp-sweep diagnosis (method in diag.h and docs/SWEEP.md). Pure: no MPI, no I/O. */
#include "sweep/diag.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/stats.h"

#define MAD_TO_SIGMA 1.4826

void lp_diag_opts_default(struct lp_diag_opts *o)
{
	o->k = 3.0;
	o->rel = 0.2;
	o->rel_max = 0.5;
	o->vote = 0.5;
	o->min_gbps = 0;
	o->max_lat_us = 0;
}

void lp_diag_free(struct lp_diag *d)
{
	free(d->ratio);
	free(d->cls);
	free(d->abs_bad);
	free(d->score_src);
	free(d->score_dst);
	free(d->slow_src);
	free(d->slow_dst);
	free(d->n_src);
	free(d->n_dst);
	free(d->fail);
	free(d->ncell);
	free(d->node);
	free(d->link);
	memset(d, 0, sizeof(*d));
}

/* Median of row (dir 0) or column (dir 1) i of m over usable cells; NaN if none. */
static double line_median(const double *m, int n, int i, int dir, double *tmp)
{
	size_t c = 0;

	for (int j = 0; j < n; j++) {
		double x = dir ? m[(size_t)j * n + i] : m[(size_t)i * n + j];

		if (j != i && isfinite(x))
			tmp[c++] = x;
	}
	return c ? lp_median(tmp, c) : NAN;
}

static double goodness(double v, double ref, bool lat)
{
	if (!isfinite(v) || !(ref > 0))
		return NAN;
	if (lat)
		return v > 0 ? ref / v : NAN;
	return v / ref;
}

int lp_diag_run(struct lp_diag *d, int n, bool lat, const double *v, const uint8_t *fail,
		const uint8_t *sched, const struct lp_diag_opts *o)
{
	size_t nn = (size_t)n * n;
	double *tmp, *med = NULL;
	bool *healthy = NULL;
	uint8_t *strong = NULL;
	int rc = -ENOMEM;

	memset(d, 0, sizeof(*d));
	if (n < 1 || o->vote <= 0 || o->vote >= 1 || o->rel < 0 || o->rel_max < 0 || o->k < 0)
		return -EINVAL;
	d->n = n;
	d->lat = lat;
	d->ratio = malloc(nn * sizeof(double));
	d->cls = calloc(nn, 1);
	d->abs_bad = calloc(nn, 1);
	d->score_src = malloc(n * sizeof(double));
	d->score_dst = malloc(n * sizeof(double));
	d->slow_src = calloc(n, sizeof(int));
	d->slow_dst = calloc(n, sizeof(int));
	d->n_src = calloc(n, sizeof(int));
	d->n_dst = calloc(n, sizeof(int));
	d->fail = calloc(n, sizeof(int));
	d->ncell = calloc(n, sizeof(int));
	d->node = calloc(n, 1);
	d->link = calloc(nn, 1);
	tmp = malloc((nn + 2 * (size_t)n + 1) * sizeof(double));
	med = malloc(2 * (size_t)n * sizeof(double));
	healthy = malloc(n * sizeof(bool));
	strong = calloc(n, 1);
	if (!d->ratio || !d->cls || !d->abs_bad || !d->score_src || !d->score_dst || !d->slow_src ||
	    !d->slow_dst || !d->n_src || !d->n_dst || !d->fail || !d->ncell || !d->node || !d->link ||
	    !tmp || !med || !healthy || !strong)
		goto out;
	for (int i = 0; i < n; i++)
		healthy[i] = true;

	/* usable values only: scheduled, not failed, finite and positive */
	double *val = d->ratio;	/* reused: first the raw values, then the ratios */
	for (size_t c = 0; c < nn; c++) {
		bool on = (size_t)(c / n) != c % n && (!sched || sched[c]);
		bool bad = on && fail && fail[c];

		val[c] = on && !bad && isfinite(v[c]) && v[c] > 0 ? v[c] : NAN;
		d->cls[c] = !on ? LP_CELL_NONE : bad ? LP_CELL_FAIL : isfinite(val[c]) ? LP_CELL_OK
										     : LP_CELL_NONE;
	}

	/* 1. reference: median of the 2N row/column medians, then of the healthy nodes' cells */
	double set_aside = fmax(o->rel, o->rel_max);
	size_t m = 0;
	for (int i = 0; i < n; i++)
		for (int dir = 0; dir < 2; dir++) {
			double x = line_median(val, n, i, dir, tmp);

			if (isfinite(x))
				med[m++] = x;
		}
	if (m == 0) {
		d->ref = NAN;
	} else {
		d->ref = lp_median(med, m);
		for (int it = 0; it < 2; it++) {
			size_t c = 0;

			d->nhealthy = 0;
			for (int i = 0; i < n; i++) {
				double rs = goodness(line_median(val, n, i, 0, tmp), d->ref, lat);
				double cs = goodness(line_median(val, n, i, 1, tmp), d->ref, lat);

				/* only clearly bad nodes: on a noisy fabric rel would set aside
				 * healthy ones and leave too few cells for the spread */
				healthy[i] = !(rs < 1 - set_aside) && !(cs < 1 - set_aside);
				d->nhealthy += healthy[i];
			}
			for (int a = 0; a < n; a++)
				for (int b = 0; b < n; b++)
					if (healthy[a] && healthy[b] && isfinite(val[(size_t)a * n + b]))
						tmp[c++] = val[(size_t)a * n + b];
			if (c < 2)
				break;
			d->ref = lp_median(tmp, c);
		}
	}

	/* 2. ratios; 3. spread among the healthy nodes' cells and the threshold */
	size_t c = 0;
	for (size_t x = 0; x < nn; x++) {
		val[x] = goodness(val[x], d->ref, lat);
		if (isfinite(val[x]) && healthy[x / n] && healthy[x % n])
			tmp[c++] = val[x];
	}
	if (c < 3) {	/* too few healthy cells: the spread of all of them (the clamp bounds it) */
		c = 0;
		for (size_t x = 0; x < nn; x++)
			if (isfinite(val[x]))
				tmp[c++] = val[x];
	}
	d->sigma = c >= 3 ? MAD_TO_SIGMA * lp_mad(tmp, c) : 0;
	d->thresh = 1 - fmax(o->rel, fmin(o->k * d->sigma, o->rel_max));

	for (size_t x = 0; x < nn; x++) {
		if (d->cls[x] != LP_CELL_OK)
			continue;
		if (val[x] < d->thresh)
			d->cls[x] = LP_CELL_SLOW;
		if ((!lat && o->min_gbps > 0 && v[x] < o->min_gbps) ||
		    (lat && o->max_lat_us > 0 && v[x] > o->max_lat_us)) {
			d->cls[x] = LP_CELL_SLOW;
			d->abs_bad[x] = 1;
		}
	}

	/* 4. per-node scores and failures */
	for (int i = 0; i < n; i++) {
		int fail_partners = 0;

		d->score_src[i] = line_median(val, n, i, 0, tmp);
		d->score_dst[i] = line_median(val, n, i, 1, tmp);
		for (int j = 0; j < n; j++) {
			uint8_t r = d->cls[(size_t)i * n + j], col = d->cls[(size_t)j * n + i];

			d->fail[i] += (r == LP_CELL_FAIL) + (col == LP_CELL_FAIL);
			d->ncell[i] += (r != LP_CELL_NONE) + (col != LP_CELL_NONE);
			fail_partners += r == LP_CELL_FAIL || col == LP_CELL_FAIL;
		}
		/* as for slowness, one partner cannot tell a failed node from a failed link */
		if (fail_partners >= 2 && d->fail[i] > o->vote * d->ncell[i])
			d->node[i] |= LP_NODE_FAILED;
	}

	/*
	 * Votes. First every partner votes. Then a split vote (say 2 of 3) is
	 * counted again without the partners that every one of their own partners
	 * sees slow in the matching role: node 3 slow as a client makes every 3->i
	 * cell slow and must not make node i look slow as a server. Unanimous
	 * verdicts stand, so "everyone is below the floor" stays everyone.
	 */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < n; i++) {
			bool split_src = (d->node[i] & LP_NODE_SLOW_SRC) && d->slow_src[i] < d->n_src[i];
			bool split_dst = (d->node[i] & LP_NODE_SLOW_DST) && d->slow_dst[i] < d->n_dst[i];

			if (pass == 1 && !split_src && !split_dst)
				continue;
			if (pass == 0 || split_src)
				d->n_src[i] = d->slow_src[i] = 0;
			if (pass == 0 || split_dst)
				d->n_dst[i] = d->slow_dst[i] = 0;
			for (int j = 0; j < n; j++) {
				uint8_t r = d->cls[(size_t)i * n + j], col = d->cls[(size_t)j * n + i];

				if (pass == 0 || (split_src && !(strong[j] & LP_NODE_SLOW_DST))) {
					d->n_src[i] += r == LP_CELL_OK || r == LP_CELL_SLOW;
					d->slow_src[i] += r == LP_CELL_SLOW;
				}
				if (pass == 0 || (split_dst && !(strong[j] & LP_NODE_SLOW_SRC))) {
					d->n_dst[i] += col == LP_CELL_OK || col == LP_CELL_SLOW;
					d->slow_dst[i] += col == LP_CELL_SLOW;
				}
			}
			if (pass == 0 || split_src) {
				d->node[i] &= (uint8_t)~LP_NODE_SLOW_SRC;
				if (d->slow_src[i] >= 2 && d->slow_src[i] > o->vote * d->n_src[i])
					d->node[i] |= LP_NODE_SLOW_SRC;
			}
			if (pass == 0 || split_dst) {
				d->node[i] &= (uint8_t)~LP_NODE_SLOW_DST;
				if (d->slow_dst[i] >= 2 && d->slow_dst[i] > o->vote * d->n_dst[i])
					d->node[i] |= LP_NODE_SLOW_DST;
			}
			if (pass == 0)
				strong[i] = (uint8_t)(((d->node[i] & LP_NODE_SLOW_SRC) &&
						       d->slow_src[i] == d->n_src[i] ? LP_NODE_SLOW_SRC : 0) |
						      ((d->node[i] & LP_NODE_SLOW_DST) &&
						       d->slow_dst[i] == d->n_dst[i] ? LP_NODE_SLOW_DST : 0) |
						      (d->node[i] & LP_NODE_FAILED));
		}

	/* 5. links: bad cells that no node verdict explains */
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++) {
			size_t x = (size_t)a * n + b;

			if (d->cls[x] == LP_CELL_SLOW && !(d->node[a] & (LP_NODE_SLOW_SRC | LP_NODE_FAILED)) &&
			    !(d->node[b] & (LP_NODE_SLOW_DST | LP_NODE_FAILED)))
				d->link[x] |= LP_LINK_SLOW;
			if (d->cls[x] == LP_CELL_FAIL && !(d->node[a] & LP_NODE_FAILED) &&
			    !(d->node[b] & LP_NODE_FAILED))
				d->link[x] |= LP_LINK_FAILED;
		}
	rc = 0;
out:
	free(tmp);
	free(med);
	free(healthy);
	free(strong);
	if (rc)
		lp_diag_free(d);
	return rc;
}
