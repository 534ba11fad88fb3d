// SPDX-License-Identifier: MIT
/* The lp_oob channel over MPI: framed messages (u16 type + body) on a per-session tag. */
#include "sweep/mpi/sweep_mpi.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/lp.h"

#define FRAME_MAX (2 + LP_WIRE_MAX_BODY)

/* polls at once before the first sleep; the sleep as a fraction of the wait (1/8) */
#define BACKOFF_POLLS  32
#define BACKOFF_SHIFT  3
#define BACKOFF_MIN_US 10

void lp_mpi_backoff_init(struct lp_mpi_backoff *b, int poll_max_us)
{
	*b = (struct lp_mpi_backoff){
		.t0 = lp_now_ns(),
		.cap_us = poll_max_us > 0 ? (unsigned)poll_max_us : LP_SWEEP_POLL_MS * 1000,
	};
}

unsigned lp_mpi_backoff_next(struct lp_mpi_backoff *b)
{
	uint64_t waited_us;

	/* a few polls for a quick answer, then sleep: the core belongs to the test */
	if (b->polls < BACKOFF_POLLS) {
		b->polls++;
		return 0;
	}
	waited_us = (lp_now_ns() - b->t0) / 1000;
	return (unsigned)LP_MAX(BACKOFF_MIN_US,
				LP_MIN(waited_us >> BACKOFF_SHIFT, (uint64_t)b->cap_us));
}

void lp_mpi_backoff_pause(struct lp_mpi_backoff *b)
{
	unsigned us = lp_mpi_backoff_next(b);

	if (us)
		usleep(us);
}

int lp_mpi_wait(MPI_Request *req, MPI_Status *st, uint64_t deadline_ns, int poll_max_us)
{
	struct lp_mpi_backoff b;
	int flag = 0;

	lp_mpi_backoff_init(&b, poll_max_us);
	for (;;) {
		if (MPI_Test(req, &flag, st ? st : MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return -EIO;
		if (flag)
			return 0;
		if (deadline_ns && lp_now_ns() >= deadline_ns)
			return -ETIMEDOUT;
		lp_mpi_backoff_pause(&b);
	}
}

/* The earlier of the session deadline and now + timeout_ms. */
static uint64_t bound(const struct lp_mpi_oob *o, int timeout_ms)
{
	uint64_t t = lp_now_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000ull;

	return o->deadline_ns && o->deadline_ns < t ? o->deadline_ns : t;
}

static int mpi_send(void *ctx, uint16_t type, const struct lp_wbuf *body, int timeout_ms)
{
	struct lp_mpi_oob *o = ctx;
	uint8_t *buf;
	MPI_Request req;
	int ret;

	if (body->err)
		return body->err;
	buf = malloc(2 + body->len);
	if (!buf)
		return -ENOMEM;
	buf[0] = (uint8_t)(type >> 8);
	buf[1] = (uint8_t)type;
	memcpy(buf + 2, body->data, body->len);
	if (MPI_Isend(buf, (int)(2 + body->len), MPI_BYTE, o->peer, o->tag, o->comm, &req) !=
	    MPI_SUCCESS) {
		free(buf);
		return -EIO;
	}
	ret = lp_mpi_wait(&req, NULL, bound(o, timeout_ms), o->poll_max_us);
	if (ret == -ETIMEDOUT) {
		/* The peer never took it (rendezvous): let MPI finish or drop it later.
		 * The buffer must outlive the request, so it is leaked on purpose. */
		MPI_Request_free(&req);
		return ret;
	}
	free(buf);
	return ret;
}

static int mpi_recv(void *ctx, uint16_t *type_p, uint8_t *body, size_t *len_p, int timeout_ms)
{
	struct lp_mpi_oob *o = ctx;
	uint8_t buf[FRAME_MAX];
	MPI_Request req;
	MPI_Status st;
	int ret, count = 0;

	if (MPI_Irecv(buf, FRAME_MAX, MPI_BYTE, o->peer, o->tag, o->comm, &req) != MPI_SUCCESS)
		return -EIO;
	ret = lp_mpi_wait(&req, &st, bound(o, timeout_ms), o->poll_max_us);
	if (ret == -ETIMEDOUT) {
		int flag = 0;

		/* cancel; if the message slipped in meanwhile, it completes instead */
		MPI_Cancel(&req);
		MPI_Wait(&req, &st);
		MPI_Test_cancelled(&st, &flag);
		if (flag)
			return -ETIMEDOUT;
	} else if (ret) {
		return ret;
	}
	MPI_Get_count(&st, MPI_BYTE, &count);
	if (count < 2 || count > FRAME_MAX)
		return -EPROTO;
	*type_p = (uint16_t)(buf[0] << 8 | buf[1]);
	*len_p = (size_t)count - 2;
	memcpy(body, buf + 2, *len_p);
	return 0;
}

static int mpi_ready(void *ctx)
{
	struct lp_mpi_oob *o = ctx;
	int flag = 0;

	if (MPI_Iprobe(o->peer, o->tag, o->comm, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
		return -EIO;
	/* past the session's deadline a passive loop must end as if the peer went away */
	if (!flag && o->deadline_ns && lp_now_ns() >= o->deadline_ns)
		return -ETIMEDOUT;
	return flag;
}

const struct lp_oob_ops lp_oob_mpi_ops = {
	.send = mpi_send,
	.recv = mpi_recv,
	.ready = mpi_ready,
};
