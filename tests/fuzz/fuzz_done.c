// SPDX-License-Identifier: MIT
/* DONE: the client's iterations and message counts per QP, decoded by the server. */
#include "tests/fuzz/fuzz.h"

LP_FUZZ_QUIET_INIT

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	union lp_fuzz_msg m;

	if (!lp_fuzz_msg(LP_MSG_DONE, &m, data, size) &&
	    (m.done.nqps < 1 || m.done.nqps > LP_RDMA_MAX_QPS))
		abort();
	return 0;
}
