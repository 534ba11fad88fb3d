// SPDX-License-Identifier: MIT
/*
 * The opening of a session (rdma/proto.h, rdma/auth.c): OPEN, CHALLENGE, AUTH
 * and BUSY, the bodies a server or client reads before any key is checked.
 * The input's first byte picks the message (its type modulo four, in that
 * order); the rest is its body. A BUSY's text reaches the user's terminal.
 */
#include "tests/fuzz/fuzz.h"

LP_FUZZ_QUIET_INIT

static const uint16_t types[] = { LP_MSG_OPEN, LP_MSG_CHALLENGE, LP_MSG_AUTH, LP_MSG_BUSY };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	union lp_fuzz_msg m;
	uint16_t type;

	if (!size)
		return 0;
	type = types[data[0] % 4];
	if (lp_fuzz_msg(type, &m, data + 1, size - 1))
		return 0;
	if (type == LP_MSG_BUSY)
		lp_fuzz_clean_text(m.busy.text, sizeof(m.busy.text));
	if (type == LP_MSG_CHALLENGE && m.challenge.key != 0 && m.challenge.key != 1)
		abort();
	return 0;
}
