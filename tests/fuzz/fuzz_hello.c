// SPDX-License-Identifier: MIT
/* HELLO: the test parameters a client sends; the server decodes and validates them. */
#include "tests/fuzz/fuzz.h"

#include "rdma/internal.h"

LP_FUZZ_QUIET_INIT

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lp_rdma_params p;
	struct lp_rbuf r;
	struct lp_wbuf w;
	char why[160];

	lp_rbuf_init(&r, data, size);
	if (lp_rdma_params_decode(&p, &r))
		return 0;
	lp_rdma_params_check(&p, why, sizeof(why));
	/* Every field is kept as sent: the encoding of what was decoded is the input. */
	lp_wbuf_init(&w);
	lp_rdma_params_encode(&p, &w);
	lp_fuzz_same(&w, data, size, "HELLO");
	return 0;
}
