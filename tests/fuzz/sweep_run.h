/* SPDX-License-Identifier: MIT */
/* A small sweep (3 nodes, a latency and a bandwidth metric) that the sweep harnesses feed records into. */
#ifndef LP_FUZZ_SWEEP_RUN_H
#define LP_FUZZ_SWEEP_RUN_H

#include "sweep/result.h"
#include "sweep/retest.h"

#define LP_FUZZ_NODES 3

/* Every pair measured once, well, so the diagnosis has a baseline to compare a decoded record with. */
static inline void lp_fuzz_sweep_init(struct lp_sweep_run *run)
{
	if (lp_sweep_run_init(run, LP_FUZZ_NODES))
		abort();
	for (int i = 0; i < LP_FUZZ_NODES; i++) {
		run->nodes[i].rank = i;
		snprintf(run->nodes[i].name, sizeof(run->nodes[i].name), "node%d", i);
	}
	lp_sweep_add_metric(run, "write_lat", 0, true, 2);
	lp_sweep_add_metric(run, "write_bw", 3, false, 65536);
	for (int m = 0; m < run->nmetrics; m++)
		for (int a = 0; a < LP_FUZZ_NODES; a++)
			for (int b = 0; b < LP_FUZZ_NODES; b++) {
				struct lp_sweep_cell c;

				if (a == b)
					continue;
				lp_sweep_cell_init(&c, m, a, b, LP_PHASE_SWEEP, 0);
				c.value = m ? 90.0 + a + b : 2.0 + 0.1 * (a + b);
				lp_sweep_add_cell(run, &c);
			}
}

/* Everything rank 0 does with the records: diagnose, pick retests, write JSON and the summary. */
static inline void lp_fuzz_sweep_report(struct lp_sweep_run *run)
{
	int32_t pairs[2 * LP_FUZZ_NODES * LP_FUZZ_NODES];
	char *out = NULL;
	size_t outlen = 0;
	FILE *f;

	if (lp_sweep_diagnose(run))
		abort();
	lp_sweep_suspects(run, &(struct lp_retest_plan){ .per_node = 2, .rounds = 3 }, pairs,
			  LP_FUZZ_NODES * LP_FUZZ_NODES);
	f = open_memstream(&out, &outlen);
	if (!f)
		abort();
	if (lp_sweep_write_json(run, f, 0))
		abort();
	lp_sweep_print_summary(run, f);
	fclose(f);
	free(out);
}

#endif
