// SPDX-License-Identifier: MIT
/*
 * RESULT: the server's end of a test (status, verification, its bandwidth,
 * its message counts per QP), decoded by the client.
 */
#include "tests/fuzz/fuzz.h"

LP_FUZZ_QUIET_INIT

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	union lp_fuzz_msg m;

	if (lp_fuzz_msg(LP_MSG_RESULT, &m, data, size))
		return 0;
	if (m.result.status > 0 || m.result.status < -LP_RDMA_MAX_ERRNO ||
	    m.result.verify > LP_VERIFY_BAD || m.result.nqps < 1 || m.result.nqps > LP_RDMA_MAX_QPS)
		abort();
	return 0;
}
