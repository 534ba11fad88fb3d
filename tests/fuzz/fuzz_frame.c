// SPDX-License-Identifier: MIT
/*
 * The framing (12-byte header + body) read from a real socket, as a server
 * reads a client: frames until the stream ends or breaks, each body handed to
 * the decoder its type names.
 */
#include "tests/fuzz/fuzz.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

LP_FUZZ_QUIET_INIT

/* Each body through the decoder its type names (any type, any bytes). */
static void decode_body(uint16_t type, const uint8_t *body, size_t len)
{
	union lp_fuzz_msg m;

	lp_proto_decode(type, &m, body, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t body[LP_WIRE_MAX_BODY];
	int sv[2], ret;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		abort();
	/* The whole input fits the socket buffer (-max_len is far below it): write, then end the stream. */
	if (size && write(sv[0], data, size) != (ssize_t)size)
		abort();
	shutdown(sv[0], SHUT_WR);
	do {
		uint16_t type;
		size_t len = SIZE_MAX;

		ret = lp_wire_recv(sv[1], &type, body, &len, 1000);
		if (ret == 0 && len > LP_WIRE_MAX_BODY)
			abort();
		if (ret == 0)
			decode_body(type, body, len);
	} while (ret == 0);
	/* A closed stream ends the session; nothing may wait for the timeout. */
	if (ret != -ECONNRESET && ret != -EPROTO && ret != -EPROTONOSUPPORT)
		abort();
	close(sv[0]);
	close(sv[1]);
	return 0;
}
