// SPDX-License-Identifier: MIT
/* lp-sweep --check: one rank's report as rank 0 receives it (a blob of line records), then shown. */
#include "tests/fuzz/fuzz.h"

#include "sweep/check.h"

LP_FUZZ_QUIET_INIT

static void take(void *line, void *rep)
{
	lp_check_line_add(rep, line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lp_sweep_check all;
	struct lp_check_line line;
	FILE *null = fopen("/dev/null", "w");

	if (!null || lp_sweep_check_init(&all, 1)) {
		if (null)
			fclose(null);
		return 0;
	}
	snprintf(all.hosts[0].name, sizeof(all.hosts[0].name), "node0");
	if (lp_record_unpack(&lp_check_line_record, data, size, &line, take, &all.hosts[0].rep) < 0)
		all.hosts[0].status = -EPROTO;
	lp_sweep_check_print(&all, null);
	lp_sweep_check_write_json(&all, null, 0);
	fclose(null);
	lp_sweep_check_free(&all);
	return 0;
}
