// SPDX-License-Identifier: MIT
/* The TCP out-of-band channel: framed lp_wire messages over a connected socket. */
#include "rdma/internal.h"

#include <errno.h>
#include <poll.h>

static int tcp_send(void *ctx, uint16_t type, const struct lp_wbuf *body, int timeout_ms)
{
	return lp_wire_send(*(int *)ctx, type, body, timeout_ms);
}

static int tcp_recv(void *ctx, uint16_t *type_p, uint8_t *body, size_t *len_p, int timeout_ms)
{
	return lp_wire_recv(*(int *)ctx, type_p, body, len_p, timeout_ms);
}

static int tcp_ready(void *ctx)
{
	struct pollfd p = { .fd = *(int *)ctx, .events = POLLIN };
	int n = poll(&p, 1, 0);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	return n > 0;
}

const struct lp_oob_ops lp_oob_tcp_ops = {
	.send = tcp_send,
	.recv = tcp_recv,
	.ready = tcp_ready,
};
