// SPDX-License-Identifier: MIT
/* ERROR: a peer's errno and reason; the receiver returns the errno and prints the reason. */
#include "tests/fuzz/fuzz.h"

LP_FUZZ_QUIET_INIT

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	union lp_fuzz_msg m;

	if (lp_fuzz_msg(LP_MSG_ERROR, &m, data, size))
		return 0;
	/* What the caller gets is a negative errno it can pass to strerror(), and a string. */
	if (m.error.status >= 0 || m.error.status < -LP_RDMA_MAX_ERRNO)
		abort();
	/* printed and logged as it is: no escape sequence or line break survives the decoder */
	lp_fuzz_clean_text(m.error.text, sizeof(m.error.text));
	return 0;
}
