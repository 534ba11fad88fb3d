/* SPDX-License-Identifier: MIT */
/*
 * Nodes that belong in a sweep but have no rank: the scheduler left them out of
 * the job (drained, down, slurmd not responding). They are recorded, not
 * dropped: each becomes a node of the run whose cells fail with the reason, so
 * the diagnosis names it failed and the rest of the sweep stands.
 */
#ifndef LP_SWEEP_ABSENT_H
#define LP_SWEEP_ABSENT_H
#include <stddef.h>

#include "sweep/result.h"

/*
 * spec: "NAME=REASON" items separated by ';' or newlines (NULL or "" adds
 * nothing). Appends each NAME to r (rank -1, status -EHOSTDOWN, error REASON)
 * with one failed sweep cell per ordered pair it is in, at every metric of r;
 * a NAME that is already a node of r is skipped. Call after the metrics and
 * the ranks' nodes are in r. 0, -EINVAL (bad spec; f says what) or -ENOMEM.
 */
int lp_sweep_add_absent(struct lp_sweep_run *r, const char *spec, struct lp_fail *f);

/* One node without a rank appended to r (rank -1, status -EHOSTDOWN, error reason). 0 or -ENOMEM. */
int lp_sweep_add_node(struct lp_sweep_run *r, const char *name, const char *reason);
/*
 * Failed cells (-EHOSTDOWN, its error, attempt r->attempt) between node j
 * (without a rank) and every other node, both ways, every metric, except
 * those already measured successfully and those with a later node without a
 * rank (its own call adds them). 0 or -ENOMEM.
 */
int lp_sweep_absent_cells(struct lp_sweep_run *r, int j);

#endif
