/* SPDX-License-Identifier: MIT */
/*
 * Shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.c). Each harness feeds
 * arbitrary bytes to one decoder and checks its contract: no read outside the
 * input (ASan), no undefined behaviour (UBSan), and a body the decoder accepts
 * re-encodes to bytes that decode to the same encoding again (the decoder and
 * the real encoder agree).
 */
#ifndef LP_FUZZ_H
#define LP_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "common/wire.h"
#include "rdma/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The library logs bad input on stderr: one line per input would drown the fuzzer's own output. */
#define LP_FUZZ_QUIET_INIT                                                                         \
	int LLVMFuzzerInitialize(int *argc, char ***argv)                                          \
	{                                                                                          \
		(void)argc;                                                                        \
		(void)argv;                                                                        \
		lp_log_set_level(LP_LOG_QUIET);                                                    \
		return 0;                                                                          \
	}

/*
 * DONE and RESULT carry one count per QP: the test's QP count (1..64) comes
 * from the input's first byte, as the session's HELLO would have set it. 0 when
 * the input is empty, else 1 (the bytes consumed).
 */
static inline size_t lp_fuzz_qps(struct lp_rdma_params *p, const uint8_t *data, size_t size)
{
	lp_rdma_params_default(p, LP_RDMA_WRITE_BW);
	if (!size)
		return 0;
	p->num_qps = 1u + data[0] % LP_RDMA_MAX_QPS;
	return 1;
}

/* Abort (a finding) when two encodings differ. */
static inline void lp_fuzz_same(const struct lp_wbuf *a, const void *b, size_t blen, const char *what)
{
	if (a->err || a->len != blen || memcmp(a->data, b, blen)) {
		fprintf(stderr, "fuzz: %s: re-encoding differs (%zu vs %zu bytes, err %d)\n", what,
			a->len, blen, a->err);
		abort();
	}
}

#endif
