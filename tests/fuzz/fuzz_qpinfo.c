// SPDX-License-Identifier: MIT
/* QPINFO: the QP numbers, PSNs, GID, key and address each side sends the other. */
#include "tests/fuzz/fuzz.h"

#include "rdma/internal.h"

LP_FUZZ_QUIET_INIT

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lp_qpinfo q, q2;
	struct lp_rbuf r;
	struct lp_wbuf w, w2;

	lp_rbuf_init(&r, data, size);
	if (lp_qpinfo_decode(&q, &r))
		return 0;
	/* PSNs are 24 bits: the decoder drops the top byte, so compare re-encodings. */
	lp_wbuf_init(&w);
	lp_qpinfo_encode(&q, &w);
	lp_rbuf_init(&r, w.data, w.len);
	if (lp_qpinfo_decode(&q2, &r))
		abort();
	lp_wbuf_init(&w2);
	lp_qpinfo_encode(&q2, &w2);
	lp_fuzz_same(&w2, w.data, w.len, "QPINFO");
	return 0;
}
