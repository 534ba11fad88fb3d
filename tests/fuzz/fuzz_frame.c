// SPDX-License-Identifier: MIT
/*
 * The framing (12-byte header + body) read from a real socket, as a server
 * reads a client: frames until the stream ends or breaks, each body handed to
 * the decoder its type names. A HELLO that passes the server's check sets the
 * QP count DONE and RESULT are decoded with, as in a session.
 */
#include "tests/fuzz/fuzz.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

LP_FUZZ_QUIET_INIT

static void decode_body(struct lp_rdma_params *test, uint16_t type, const uint8_t *body, size_t len)
{
	union {
		struct lp_rdma_params p;
		uint64_t msgs[LP_RDMA_MAX_QPS];
		struct lp_rdma_devinfo d;
		struct lp_qpinfo q;
		struct lp_rdma_result_msg m;
	} u;
	struct lp_rbuf r;
	char text[160], why[160];
	int code;

	lp_rbuf_init(&r, body, len);
	switch (type) {
	case LP_MSG_HELLO:
		if (!lp_rdma_params_decode(&u.p, &r) && !lp_rdma_params_check(&u.p, why, sizeof(why)))
			*test = u.p;
		break;
	case LP_MSG_DONE:
		lp_rdma_done_decode(test, body, len, u.msgs);
		break;
	case LP_MSG_ACCEPT:
		lp_rdma_devinfo_decode(&u.d, &r);
		break;
	case LP_MSG_ERROR:
		lp_rdma_error_decode(body, len, &code, text, sizeof(text));
		break;
	case LP_MSG_QPINFO:
		lp_qpinfo_decode(&u.q, &r);
		break;
	case LP_MSG_RESULT:
		lp_rdma_result_msg_decode(&u.m, test, body, len);
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t body[LP_WIRE_MAX_BODY];
	struct lp_rdma_params test;
	int sv[2], ret;

	lp_rdma_params_default(&test, LP_RDMA_WRITE_LAT);

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
			decode_body(&test, type, body, len);
	} while (ret == 0);
	/* A closed stream ends the session; nothing may wait for the timeout. */
	if (ret != -ECONNRESET && ret != -EPROTO && ret != -EPROTONOSUPPORT)
		abort();
	close(sv[0]);
	close(sv[1]);
	return 0;
}
