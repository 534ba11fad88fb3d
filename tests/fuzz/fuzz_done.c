// SPDX-License-Identifier: MIT
/* DONE: the client's iterations and message counts per QP, decoded by the server. First byte: the QP count. */
#include "tests/fuzz/fuzz.h"

LP_FUZZ_QUIET_INIT

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t msgs[LP_RDMA_MAX_QPS], iters = 0;
	struct lp_rdma_params p;
	struct lp_wbuf w;
	size_t off = lp_fuzz_qps(&p, data, size);

	if (!off || lp_rdma_done_decode(&p, data + off, size - off, msgs))
		return 0;
	/* The server does not keep the iteration count: take it from the input to re-encode. */
	for (int i = 0; i < 8; i++)
		iters = iters << 8 | data[off + i];
	lp_wbuf_init(&w);
	lp_rdma_done_encode(&p, iters, msgs, &w);
	lp_fuzz_same(&w, data + off, size - off, "DONE");
	return 0;
}
