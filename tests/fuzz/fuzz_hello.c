// SPDX-License-Identifier: MIT
/* HELLO: the test parameters a client sends; the server decodes and validates them. */
#include "tests/fuzz/fuzz.h"

LP_FUZZ_QUIET_INIT

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	union lp_fuzz_msg m;
	struct lp_fail why = { 0 };

	if (!lp_fuzz_msg(LP_MSG_HELLO, &m, data, size))
		lp_rdma_params_check(&m.hello, &why);
	return 0;
}
