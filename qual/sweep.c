// SPDX-License-Identifier: MIT
/*
 * lp-sweep's cells for qualification: the resolved value of every measured
 * ordered pair (the one the diagnosis used, after retests: lp_sweep_matrix),
 * and the metric's one noise field (sigma_log) as its spread. qual/ reads sweep
 * runs; sweep/ knows nothing of qual/.
 */
#include "qual/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#ifdef LP_HAVE_VERBS
#include "sweep/result.h"

/* Metric m's measured cells appended to cells (room for n*(n-1) more). */
static int metric_cells(const struct lp_sweep_run *r, int m, struct lp_qual_cell *cells, size_t *k)
{
	const struct lp_sweep_metric *mt = &r->metrics[m];
	const struct lp_diag *d = r->diag ? &r->diag[m] : NULL;
	size_t nn = (size_t)r->n * r->n;
	double *v = malloc(nn * sizeof(double));
	uint8_t *fail = malloc(nn), *sched = malloc(nn);
	double cv = d && isfinite(d->sigma) ? exp(d->sigma) - 1 : 0;
	int rc = v && fail && sched ? lp_sweep_matrix(r, m, v, fail, sched, NULL, NULL, NULL, NULL)
				    : -ENOMEM;

	for (int a = 0; !rc && a < r->n; a++)
		for (int b = 0; b < r->n; b++) {
			size_t x = (size_t)a * r->n + b;
			double val = fail[x] ? NAN : mt->lat ? v[x] : v[x] / 8;
			double rate = fmin(r->nodes[a].dev.rate_gbps, r->nodes[b].dev.rate_gbps);
			char pair[LP_QUAL_PAIR];

			if (!sched[x])
				continue;
			snprintf(pair, sizeof(pair), "%s>%s", r->nodes[a].name, r->nodes[b].name);
			lp_qual_cell_set(&cells[(*k)++], mt->test, mt->size, pair,
					 mt->lat ? LP_QUAL_LAT : LP_QUAL_BW, val, val * cv,
					 rate / 8);
		}
	free(v);
	free(fail);
	free(sched);
	return rc;
}

int lp_qual_sweep_cells(const struct lp_sweep_run *r, struct lp_qual_cell **cells_p, size_t *n_p)
{
	size_t k = 0;
	struct lp_qual_cell *cells =
		calloc((size_t)r->nmetrics * r->n * (r->n > 1 ? r->n - 1 : 1) + 1, sizeof(*cells));
	int rc = cells ? 0 : -ENOMEM;

	for (int m = 0; m < r->nmetrics && !rc; m++)
		rc = metric_cells(r, m, cells, &k);
	if (rc) {
		free(cells);
		return rc;
	}
	*cells_p = cells;
	*n_p = k;
	return 0;
}
#else
int lp_qual_sweep_cells(const struct lp_sweep_run *r, struct lp_qual_cell **cells_p, size_t *n_p)
{
	(void)r;
	(void)cells_p;
	(void)n_p;
	return -EOPNOTSUPP;
}
#endif
