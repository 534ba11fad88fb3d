// SPDX-License-Identifier: MIT
/*
 * RESULT: the server's end of a test (status, verification, its bandwidth,
 * its message counts per QP), decoded by the client. First byte: the QP count.
 */
#include "tests/fuzz/fuzz.h"

LP_FUZZ_QUIET_INIT

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lp_rdma_result_msg m, m2;
	struct lp_rdma_params p;
	struct lp_wbuf w, w2;
	size_t off = lp_fuzz_qps(&p, data, size);

	if (!off || lp_rdma_result_msg_decode(&m, &p, data + off, size - off))
		return 0;
	if (m.status > 0 || m.status < -LP_RDMA_MAX_ERRNO || m.verify > 2)
		abort();
	/* Unknown status codes read as -ECONNABORTED: compare re-encodings. */
	lp_wbuf_init(&w);
	lp_rdma_result_msg_encode(&m, &p, &w);
	if (lp_rdma_result_msg_decode(&m2, &p, w.data, w.len))
		abort();
	lp_wbuf_init(&w2);
	lp_rdma_result_msg_encode(&m2, &p, &w2);
	lp_fuzz_same(&w2, w.data, w.len, "RESULT");
	return 0;
}
