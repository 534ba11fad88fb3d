// SPDX-License-Identifier: MIT
/* A sweep node record (one rank's device metadata) as rank 0 receives it, then written out. */
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/sweep_run.h"

LP_FUZZ_QUIET_INIT

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lp_sweep_run run;
	struct lp_wbuf w;

	lp_fuzz_sweep_init(&run);
	if (lp_record_decode_body(&lp_sweep_node_record, &run.nodes[1], data, size) == 0) {
		lp_wbuf_init(&w);
		lp_record_encode(&lp_sweep_node_record, &run.nodes[1], &w);
		lp_fuzz_same(&w, data, size, "sweep node");
		lp_fuzz_sweep_report(&run);
	}
	lp_sweep_run_free(&run);
	return 0;
}
