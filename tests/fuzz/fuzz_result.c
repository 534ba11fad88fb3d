// SPDX-License-Identifier: MIT
/* RESULT: the server's end of a test (status, verification, its bandwidth), decoded by the client. */
#include "tests/fuzz/fuzz.h"

#include <errno.h>

#include "rdma/internal.h"

LP_FUZZ_QUIET_INIT

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lp_rdma_result_msg m, m2;
	struct lp_wbuf w, w2;

	if (lp_rdma_result_msg_decode(&m, data, size))
		return 0;
	if (m.status > 0 || m.status < -LP_RDMA_MAX_ERRNO || m.verify > 2)
		abort();
	/* Unknown status codes read as -ECONNABORTED: compare re-encodings. */
	lp_wbuf_init(&w);
	lp_rdma_result_msg_encode(&m, &w);
	if (lp_rdma_result_msg_decode(&m2, w.data, w.len))
		abort();
	lp_wbuf_init(&w2);
	lp_rdma_result_msg_encode(&m2, &w2);
	lp_fuzz_same(&w2, w.data, w.len, "RESULT");
	return 0;
}
