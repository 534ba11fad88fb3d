/* SPDX-License-Identifier: MIT */
/*
 * `lp-sweep --resume JOURNAL`: an interrupted sweep continued (issue 18). The
 * cells the journal holds are matched to the new run by node name and metric;
 * those measured are not measured again, the nodes gone since are recorded as
 * missing, and the new run's document covers both parts, each cell with the
 * attempt that measured it. Plain C over runs (sweep/result.h): the engine
 * skips what lp_sweep_resume_done() marks, rank 0 merges.
 */
#ifndef LP_SWEEP_RESUME_H
#define LP_SWEEP_RESUME_H

#include <stddef.h>
#include <stdint.h>

#include "sweep/result.h"

/*
 * The parameters that decide what a cell measures must be the journal's: the
 * tests, bandwidth and latency sizes, iterations, schedule, partners, seed,
 * traffic class, service level and rails. 0, or -EINVAL with the first
 * difference in f, as one line: "--bw-sizes: journal 64 KiB, now 1 MiB".
 */
int lp_sweep_resume_check(const struct lp_sweep_run *prev, const struct lp_sweep_run *now,
			  struct lp_fail *f);

/*
 * done (nranks*nranks*now->nmetrics, index (a*nranks + b)*nmetrics + m) = 1
 * for every ordered pair of ranks, by the names in names[], that prev measured
 * successfully at metric m (any phase); 0 elsewhere.
 */
void lp_sweep_resume_done(const struct lp_sweep_run *prev, const struct lp_sweep_run *now,
			  const char (*names)[80], int nranks, uint8_t *done);

/*
 * Into now (its ranks' nodes in place, before any new cell): prev's cells,
 * mapped by node name and keeping their attempts; prev's nodes that are not
 * here now, as nodes without a rank whose error is "node missing since
 * <seen[i] or prev's start>", with a failed cell for each of their ordered
 * pairs and metrics prev never measured. now->attempt becomes one more than
 * prev's last, now->resumed the path. 0 or -ENOMEM.
 */
int lp_sweep_resume_merge(struct lp_sweep_run *now, const struct lp_sweep_run *prev,
			  const char (*seen)[32], const char *path);

#endif
