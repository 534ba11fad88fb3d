// SPDX-License-Identifier: MIT
/*
 * A sweep journal as --diagnose and --resume read it: any bytes after a valid header (the seeds
 * are the real writer's journals). Lines that do not parse are left out; what reads is a run
 * whose schedule was rebuilt and whose missing cells can be listed.
 */
#include "tests/fuzz/fuzz.h"
#include "sweep/journal.h"
#include "tests/fuzz/sweep_run.h"

LP_FUZZ_QUIET_INIT

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lp_sweep_journal_info info;
	struct lp_sweep_run r;

	if (!lp_sweep_journal_is((const char *)data, size) ||
	    lp_sweep_journal_parse(&r, (const char *)data, size, &info, NULL))
		return 0;
	if (info.lines > info.lines + info.cut)
		abort();
	if (r.n <= 16) {
		lp_sweep_missing(&r, NULL);
		lp_fuzz_sweep_report(&r);
	}
	lp_sweep_journal_info_free(&info);
	lp_sweep_run_free(&r);
	return 0;
}
