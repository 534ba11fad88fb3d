// SPDX-License-Identifier: MIT
/* QPINFO: the QP numbers, PSNs, GID, key, address and memory kind each side sends the other. */
#include "tests/fuzz/fuzz.h"

LP_FUZZ_QUIET_INIT

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	union lp_fuzz_msg m;

	if (!lp_fuzz_msg(LP_MSG_QPINFO, &m, data, size) &&
	    (m.qpinfo.nqps < 1 || m.qpinfo.nqps > LP_RDMA_MAX_QPS))
		abort();
	return 0;
}
