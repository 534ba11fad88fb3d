/* SPDX-License-Identifier: MIT */
/*
 * The fast qualification schedule (lp-sweep --fast; docs/SWEEP.md, "The fast
 * schedule"), plain C:
 *
 *   1. the screen: every ordered pair runs each test at one size -- a latency
 *      test at its smallest size, a bandwidth test at its largest -- and every
 *      bandwidth test moves a fixed byte count (its iterations derived from its
 *      size), so that a test's cost does not depend on the size asked;
 *   2. the retest rounds of the suspects, as in every sweep (screen metrics);
 *   3. the size sweep: the pairs the diagnosis then flags or suspects
 *      (lp_sweep_suspects, within the retest budget) and a few healthy
 *      reference pairs get every other size of every test, one pair at a time
 *      (cells of phase "sizes").
 *
 * The diagnosis judges the screen's matrices only; the size sweep is evidence
 * beside its verdicts (a fault at every size, or only at some), never a
 * matrix: most of its cells were never measured.
 */
#ifndef LP_SWEEP_FAST_H
#define LP_SWEEP_FAST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rdma/rdma.h"
#include "sweep/result.h"
#include "sweep/retest.h"

#define LP_SWEEP_FAST_BYTES (256ull << 20) /* --test-bytes with --fast unless given */
#define LP_SWEEP_FAST_REFS  2		   /* healthy reference pairs of the size sweep */
#define LP_SWEEP_FAST_SUSPECTS                                                                     \
	32 /* the size sweep's suspect pairs at most (--retest's cap if lower) */

/* Bandwidth tests' timed iterations so that each moves `bytes` (at least one iteration). */
void lp_sweep_fast_bytes(struct lp_rdma_params *p, int n, uint64_t bytes);

/*
 * The screen of the runs p[0..n): per test, the metric of its smallest size
 * (latency) or its largest (bandwidth), as bit m of the mask.
 */
uint32_t lp_sweep_fast_screen(const struct lp_rdma_params *p, int n);

/*
 * After the retests (rank 0): diagnose r and list the size sweep's ordered
 * pairs in *pairs_p (malloc'ed (a, b) couples): the links it names slow or
 * failed, then the suspects of the diagnosis (lp_sweep_suspects: links, cells
 * near one, per_node cells of each slow node; worst first), at most
 * LP_SWEEP_FAST_SUSPECTS and pol->max_pairs whatever the retests' time
 * budget; then, when there are any, up to
 * LP_SWEEP_FAST_REFS healthy reference pairs (both ends without a verdict,
 * every screen cell measured and not slow). *np_p = 0: nothing to sweep.
 * 0 or -ENOMEM.
 */
int lp_sweep_fast_pairs(struct lp_sweep_run *r, const struct lp_sweep_retest_policy *pol,
			int32_t **pairs_p, size_t *np_p);

/*
 * The size sweep in the summary: per test, each pair swept (a verdict's first,
 * then the references) with its value at every size and the ratio to the
 * reference pairs' median at that size. Nothing without size sweep cells.
 */
void lp_sweep_fast_summary(FILE *f, const struct lp_sweep_run *r);

#endif
