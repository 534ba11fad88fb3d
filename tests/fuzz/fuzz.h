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

/* Did the decoder's cleaning of a peer's text (lp_rbuf_str) turn byte b into a? */
static inline bool lp_fuzz_cleaned(uint8_t a, uint8_t b)
{
	return a == '?' && (b < 0x20 || b > 0x7e);
}

/*
 * Abort (a finding) when two encodings differ, but where a string byte outside
 * printable ASCII came back as '?' (what lp_rbuf_str does to a peer's text).
 */
static inline void lp_fuzz_same(const struct lp_wbuf *a, const void *b, size_t blen,
				const char *what)
{
	bool same = !a->err && a->len == blen;

	for (size_t i = 0; same && i < blen; i++)
		same = a->data[i] == ((const uint8_t *)b)[i] ||
		       lp_fuzz_cleaned(a->data[i], ((const uint8_t *)b)[i]);
	if (!same) {
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
	struct lp_proto_open open;
	struct lp_proto_challenge challenge;
	struct lp_proto_auth auth;
	struct lp_proto_busy busy;
};

/* A peer's text as the decoder leaves it: terminated, printable ASCII only (lp_rbuf_str). */
static inline void lp_fuzz_clean_text(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	if (n == cap)
		abort();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			abort();
}

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
