// SPDX-License-Identifier: MIT
/* A sweep cell record as rank 0 receives it from another rank, then diagnosed and written out. */
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/sweep_run.h"

LP_FUZZ_QUIET_INIT

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lp_sweep_run run;
	struct lp_sweep_cell c;
	struct lp_wbuf w;

	if (lp_record_decode_body(&lp_sweep_cell_record, &c, data, size))
		return 0;
	lp_wbuf_init(&w);
	lp_record_encode(&lp_sweep_cell_record, &c, &w);
	lp_fuzz_same(&w, data, size, "sweep cell");
	lp_fuzz_sweep_init(&run);
	/* A cell naming a node or metric the run does not have is refused, not stored. */
	if (lp_sweep_add_cell(&run, &c) == 0)
		lp_fuzz_sweep_report(&run);
	lp_sweep_run_free(&run);
	return 0;
}
