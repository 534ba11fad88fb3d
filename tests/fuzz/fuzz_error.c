// SPDX-License-Identifier: MIT
/* ERROR: a peer's errno and reason; the receiver returns the errno and prints the reason. */
#include "tests/fuzz/fuzz.h"

#include <errno.h>

#include "rdma/internal.h"

LP_FUZZ_QUIET_INIT

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[160];
	int code;
	int ret = lp_rdma_error_decode(data, size, &code, text, sizeof(text));

	/* Whatever arrived, the caller gets a negative errno it can pass to strerror(). */
	if (code >= 0 || code < -LP_RDMA_MAX_ERRNO || (ret && ret != -EPROTO))
		abort();
	if (!ret && strlen(text) >= sizeof(text))
		abort();
	return 0;
}
