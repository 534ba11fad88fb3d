// SPDX-License-Identifier: MIT
/*
 * One side of a pair's test in a child process (issue 18): a crash in a verbs
 * provider, a CUDA error that poisons the context or a hang then costs one
 * cell, not the rank. The child opens its own device context (the parent
 * registers no memory, so fork needs no ibv_fork_init; librdmacm's shared
 * contexts are the parent's, and the kernel refuses a child's verbs on them), speaks lp_wire frames on a
 * socketpair that the parent relays to the session's MPI tag, never calls MPI
 * and leaves with _exit. It dies with its rank (PR_SET_PDEATHSIG): an orphan
 * would hold the rank's stdout and stderr open, and mpirun counts a rank dead
 * only once they close, so a killed rank's survivors would wait for its child.
 */
#include "sweep/mpi/sweep_mpi.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/lp.h"

/* The relay's message to the peer's relay: "my side's process is gone without a word". */
#define RELAY_GONE 0xffffu
#define GRACE_MS   2000 /* bound on one relayed message */
#define STOP_MS	   1000 /* after SIGINT/SIGTERM: the child's time to end before SIGKILL */

/* The child: its own device like x->dev, the socket as its lp_oob, the result on res_fd. */
static void __attribute__((noreturn))
child(const struct lp_sweep_mpi *x, pid_t rank, int sock, int res_fd, const struct lp_oob *tmpl,
      void (*side)(struct lp_rdma_dev *, struct lp_oob *, void *, struct lp_wbuf *), void *arg)
{
	const struct lp_rdma_devinfo *di = lp_rdma_dev_info(x->dev);
	struct lp_rdma_devsel sel = { .dev = di->name,
				      .port = di->port,
				      .gid_index = di->gid_index,
				      .tclass = x->tclass,
				      .sl = x->sl,
				      .own_context = true };
	struct lp_oob oob = *tmpl;
	struct lp_rdma_dev *dev = NULL;
	struct lp_wbuf *out = malloc(sizeof(*out));
	uint32_t len;
	int ret;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != rank)
		_exit(6); /* the rank died before the line above: nobody waits for this test */
	oob.ops = &lp_oob_tcp_ops;
	oob.ctx = &sock;
	if (!out)
		_exit(3);
	lp_wbuf_init(out);
	ret = lp_rdma_dev_open(&sel, AF_INET, &dev);
	if (ret)
		_exit(4);
	side(dev, &oob, arg, out);
	len = (uint32_t)out->len;
	if (write(res_fd, &len, 4) != 4 || write(res_fd, out->data, len) != (ssize_t)len)
		_exit(5);
	lp_rdma_dev_close(dev);
	_exit(0);
}

/* One frame from the child to the peer. false: the child's end is closed (it exited). */
static bool relay_up(struct lp_mpi_oob *o, int sock)
{
	struct lp_wbuf w; /* on the stack: load modes relay several sessions on threads */
	uint16_t type;

	lp_wbuf_init(&w);
	if (lp_wire_recv(sock, &type, w.data, &w.len, 1000))
		return false;
	lp_oob_mpi_ops.send(o, type, &w, GRACE_MS);
	return true;
}

/* One frame from the peer to the child; the peer's GONE closes the child's channel. */
static void relay_down(struct lp_mpi_oob *o, int sock)
{
	struct lp_wbuf w;
	uint16_t type;

	lp_wbuf_init(&w);
	if (lp_oob_mpi_ops.recv(o, &type, w.data, &w.len, 1000))
		return;
	if (type == RELAY_GONE)
		shutdown(sock, SHUT_RDWR); /* the child's next read ends: the peer is gone */
	else
		lp_wire_send(sock, type, &w, 1000);
}

/* The child's result: 0 and out, or an errno and why from how it ended. */
static int child_result(int st, bool killed, int res_fd, double timeout_s, struct lp_wbuf *out,
			char *why, size_t why_len)
{
	uint32_t len = 0;

	if (killed) {
		snprintf(why, why_len, "test process killed past the pair timeout (%.0f s)",
			 timeout_s);
		return -ETIMEDOUT;
	}
	if (WIFSIGNALED(st)) {
		snprintf(why, why_len, "test process killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
		return -ECHILD;
	}
	if (read(res_fd, &len, 4) == 4 && len <= sizeof(out->data) &&
	    read(res_fd, out->data, len) == (ssize_t)len) {
		out->len = len;
		return 0;
	}
	snprintf(why, why_len, "test process exited with status %d without a result",
		 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return -ECHILD;
}

int lp_sweep_isolated(const struct lp_sweep_mpi *x, struct lp_mpi_oob *o, const struct lp_oob *oob,
		      void (*side)(struct lp_rdma_dev *, struct lp_oob *, void *, struct lp_wbuf *),
		      void *arg, struct lp_wbuf *out, char *why, size_t why_len)
{
	uint64_t deadline = o->deadline_ns, t;
	unsigned sleep_us = 50;
	int sv[2], res[2], st = 0, ret;
	bool up = true, killed = false, signalled = false;
	pid_t pid, rank;

	lp_wbuf_init(out);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		goto fail;
	if (pipe2(res, O_CLOEXEC | O_NONBLOCK)) {
		close(sv[0]);
		close(sv[1]);
		goto fail;
	}
	fflush(NULL); /* nothing buffered is written twice */
	rank = getpid();
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		close(res[0]);
		child(x, rank, sv[1], res[1], oob, side, arg);
	}
	close(sv[1]);
	close(res[1]);
	if (pid < 0) {
		close(sv[0]);
		close(res[0]);
		goto fail;
	}
	o->deadline_ns =
		0; /* the relay bounds itself: each hop by GRACE_MS, the whole by deadline */
	for (;;) {
		struct pollfd p = { .fd = sv[0], .events = POLLIN };
		bool busy = false;

		if (up && poll(&p, 1, 0) > 0) {
			up = relay_up(o, sv[0]);
			busy = true;
		}
		if (lp_oob_mpi_ops.ready(o) > 0) {
			relay_down(o, sv[0]);
			busy = true;
		}
		if (!busy && waitpid(pid, &st, WNOHANG) == pid) {
			while (up && poll(&p, 1, 0) > 0) /* what it said last (a BYE) goes out */
				up = relay_up(o, sv[0]);
			break;
		}
		t = lp_now_ns();
		if (oob->stop && *oob->stop && !signalled) {
			kill(pid, SIGTERM);	    /* it stops its test as the rank would, */
			shutdown(sv[0], SHUT_RDWR); /* and a wait on its channel ends too */
			up = false;
			signalled = true;
			deadline =
				LP_MIN(deadline ? deadline : UINT64_MAX, t + STOP_MS * 1000000ull);
		}
		if (deadline && t >= deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			killed = !signalled;
			break;
		}
		if (busy) {
			sleep_us = 50;
			continue;
		}
		usleep(sleep_us);
		sleep_us = LP_MIN(sleep_us * 2,
				  (unsigned)(o->poll_max_us > 0 ? o->poll_max_us : 20000));
	}
	ret = child_result(st, killed, res[0], oob->timeout_ms / 1000.0, out, why, why_len);
	close(sv[0]);
	close(res[0]);
	if (ret) {
		struct lp_wbuf none;

		lp_wbuf_init(&none);
		lp_oob_mpi_ops.send(o, RELAY_GONE, &none, GRACE_MS);
	}
	return ret;
fail:
	ret = -errno;
	snprintf(why, why_len, "cannot start the test process: %s", strerror(errno));
	return ret;
}
