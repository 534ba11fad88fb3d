// SPDX-License-Identifier: MIT
/*
 * Collectives under the model transport (lp-sweep --model): a collective's
 * busbw drawn from the model's links, each a fresh draw with the model's
 * noise, blips and congestion, held by the slowest link its scheme uses --
 * the figure a real ring reaches over links of those rates (sweep/collrun.h).
 */
#include "sweep/collrun.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "common/fail.h"
#include "sweep/model.h"

int lp_coll_model_busbw(const struct lp_sweep_model *m, int metric, enum lp_coll_kind k,
			const int *ranks, int n, int draw, double *busbw_p, struct lp_fail *fail)
{
	enum lp_coll_scheme scheme = lp_coll_scheme_of(k);
	double *bw = n >= 2 ? malloc(sizeof(double) * (size_t)n * n) : NULL;
	int *order = n >= 2 ? malloc(sizeof(int) * (size_t)n) : NULL, rc = 0;
	struct lp_coll_fabric f = { .n = n, .bw = bw };
	struct lp_coll_ceiling c;

	*busbw_p = NAN;
	if (n < 2 || draw < 0 || !m || metric < 0) {
		rc = -EINVAL;
		goto out;
	}
	if (!bw || !order) {
		rc = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		order[i] = i;
		for (int j = 0; j < n; j++)
			bw[(size_t)i * n + j] = NAN;
	}
	/* the edges the scheme uses: the order's (a chain leaves the last one out), or every pair */
	for (int i = 0; i < n && !rc; i++)
		for (int j = 0; j < n && !rc; j++) {
			struct lp_sweep_model_key key = { .a = ranks[i],
							  .b = ranks[j],
							  .metric = metric,
							  .phase = LP_PHASE_RETEST,
							  .attempt = LP_COLL_MODEL_ATTEMPT + draw,
							  .round = draw };
			double v;

			if (i == j || (scheme != LP_COLL_SCHEME_DIRECT && j != (i + 1) % n))
				continue;
			rc = lp_sweep_model_draw(m, &key, &v, fail);
			bw[(size_t)i * n + j] = v / 8; /* Gb/s -> GB/s */
		}
	if (!rc)
		rc = lp_coll_ceiling(&f, k, scheme, order, n, &c);
	if (!rc)
		*busbw_p = c.busbw;
out:
	free(bw);
	free(order);
	return rc;
}
