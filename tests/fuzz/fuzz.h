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

#include <errno.h>
#include <stdbool.h>
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

/* Abort (a finding) when two encodings differ. */
static inline void lp_fuzz_same(const struct lp_wbuf *a, const void *b, size_t blen,
				const char *what)
{
	if (a->err || a->len != blen || memcmp(a->data, b, blen)) {
		fprintf(stderr, "fuzz: %s: re-encoding differs (%zu vs %zu bytes, err %d)\n", what,
			a->len, blen, a->err);
		abort();
	}
}

/* Any message body (rdma/proto.h). */
union lp_fuzz_msg {
	struct lp_rdma_params hello;
	struct lp_rdma_devinfo accept;
	struct lp_proto_error error;
	struct lp_qpinfo qpinfo;
	struct lp_proto_done done;
	struct lp_rdma_result_msg result;
};

/*
 * One message decoder's contract, for every type alike: a body it accepts
 * re-encodes (the real encoder, no error) to bytes that decode and encode to
 * the same bytes again; and unless the decoder rewrote a field (a peer's
 * EINTR reads as ECANCELED), those bytes are the input. 0 with the message in
 * *m, or -1 when the decoder refused the input.
 */
static inline int lp_fuzz_msg(uint16_t type, union lp_fuzz_msg *m, const uint8_t *data, size_t size)
{
	union lp_fuzz_msg m2;
	struct lp_wbuf w, w2;
	bool rewritten;

	if (lp_proto_decode(type, m, data, size))
		return -1;
	if (lp_proto_encode(type, m, &w) || lp_proto_decode(type, &m2, w.data, w.len)) {
		fprintf(stderr, "fuzz: %s: what was decoded does not re-encode and decode\n",
			lp_proto_name(type));
		abort();
	}
	lp_proto_encode(type, &m2, &w2);
	lp_fuzz_same(&w2, w.data, w.len, lp_proto_name(type));
	rewritten = (type == LP_MSG_ERROR && m->error.status == -ECANCELED) ||
		    (type == LP_MSG_RESULT && m->result.status == -ECANCELED);
	if (!rewritten)
		lp_fuzz_same(&w, data, size, lp_proto_name(type));
	return 0;
}

#endif
