// SPDX-License-Identifier: MIT
/*
 * lp-rdma's server: the accept loop and who may use the device.
 *
 * Each connection gets a thread of its own (at most LP_SERVER_CONNS at once;
 * more are closed at once) that checks the peer's address against the
 * allow-list, runs the opening (rdma/auth.c: the wire version, the shared key)
 * within the server's timeout, and then claims the device. One session holds
 * the device at a time - two tests at once would measure each other - so a
 * client that finds it held gets BUSY with an estimate of when to try again
 * (the current phase's deadline), after a short grace for the previous
 * session's teardown. The session itself (rdma/session.c) bounds every phase
 * and refuses what is over the operator's limits. Every connection's end is
 * reported once through cfg->report, at most LP_REPORT_BURST per
 * LP_REPORT_WINDOW_S seconds (then one line says how many were left out), so
 * a flood of connections cannot flood the log.
 */
#include "rdma/internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/lp.h"
#include "common/sock.h"

#define LP_SERVER_CONNS	   16	/* connections at once (openings and the session) */
#define LP_SERVER_GRACE_MS 2000 /* a granted client waits this long for the last teardown */
#define LP_REPORT_WINDOW_S 10
#define LP_REPORT_BURST	   40 /* failed connections reported one by one per window */

struct server {
	struct lp_rdma_dev *dev;
	const struct lp_rdma_server_cfg *cfg;
	pthread_mutex_t lock;
	pthread_cond_t cond; /* a connection ended, or the device was released */
	int fds[LP_SERVER_CONNS];
	unsigned nconns;
	/* the session that holds the device */
	bool held;
	char holder[64];
	uint64_t held_since;
	const struct lp_oob *held_oob; /* its phase's deadline: BUSY's estimate */
	bool closing;		       /* --once: the one session is over */
	int once_status;
	/* reports in the current window, and those left out */
	uint64_t win_start;
	unsigned win_n, win_quiet;
};

struct conn {
	struct server *s;
	int slot, fd;
	char peer[64];
};

/*
 * One connection's end. A failed one is counted against the window's burst
 * (past it, only counted); a session that ended well is always reported.
 */
static void report(struct server *s, const char *peer, int status, const char *why)
{
	const struct lp_rdma_server_cfg *cfg = s->cfg;
	uint64_t now = lp_now_ns();
	struct lp_rdma_server_event e = { .peer = peer, .status = status, .why = why };

	pthread_mutex_lock(&s->lock);
	if (now - s->win_start > LP_REPORT_WINDOW_S * 1000000000ull) {
		if (s->win_quiet && cfg->report)
			cfg->report(cfg->ctx, &(struct lp_rdma_server_event){
						      .quiet = s->win_quiet,
						      .window_s = LP_REPORT_WINDOW_S });
		s->win_start = now;
		s->win_n = s->win_quiet = 0;
	}
	if ((!status || s->win_n++ < LP_REPORT_BURST) && cfg->report)
		cfg->report(cfg->ctx, &e);
	else
		s->win_quiet++;
	pthread_mutex_unlock(&s->lock);
}

/* The words for how a connection ended, where its cause was not recorded in words. */
static const char *status_words(int status)
{
	switch (-status) {
	case EPROTO:
		return "malformed or unexpected message (dropped)";
	case ECONNRESET:
		return "connection lost";
	case ETIMEDOUT:
		return "timed out";
	default:
		return strerror(-status);
	}
}

/*
 * The device for this connection's session: GRANT, after a short grace for the
 * previous session's teardown; else BUSY with when to try again (or an ERROR
 * while the server closes). 0, or -EBUSY with the cause in f.
 */
static int claim(struct server *s, struct conn *cn, struct lp_oob *oob, struct lp_fail *f)
{
	struct lp_proto_busy busy = { 0 };
	struct timespec ts;
	uint64_t now, end;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += LP_SERVER_GRACE_MS / 1000;
	pthread_mutex_lock(&s->lock);
	while (s->held && !s->closing && !(s->cfg->stop && *s->cfg->stop))
		if (pthread_cond_timedwait(&s->cond, &s->lock, &ts) == ETIMEDOUT)
			break;
	if (!s->held && !s->closing) {
		s->held = true;
		s->held_since = lp_now_ns();
		s->held_oob = oob;
		snprintf(s->holder, sizeof(s->holder), "%s", cn->peer);
		pthread_mutex_unlock(&s->lock);
		return lp_proto_send(oob, LP_MSG_GRANT, NULL);
	}
	now = lp_now_ns();
	end = s->held_oob ? __atomic_load_n(&s->held_oob->deadline_ns, __ATOMIC_RELAXED) : 0;
	busy.retry_s = (uint32_t)(end > now ? LP_MIN((end - now) / 1000000000ull + 1, 3600ull)
					    : (uint64_t)(s->cfg->timeout_ms + 999) / 1000);
	snprintf(busy.text, sizeof(busy.text),
		 s->closing ? "the server is closing (--once)"
			    : "another client (%s) has held it for %llu s (its current phase ends "
			      "within %u s)",
		 s->holder, (unsigned long long)((now - s->held_since) / 1000000000ull),
		 busy.retry_s);
	pthread_mutex_unlock(&s->lock);
	lp_proto_send(oob, LP_MSG_BUSY, &busy);
	return lp_fail_set(f, -EBUSY, "refused: busy (%s)", busy.text);
}

/* The session is over: the device is free (and with --once the server closes). */
static void release(struct server *s, int status)
{
	pthread_mutex_lock(&s->lock);
	s->held = false;
	s->held_oob = NULL;
	if (s->cfg->once) {
		s->closing = true;
		s->once_status = status;
	}
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

/* A session's status as reported: a client's signal or its own set-up failure was logged. */
static int session_status(int ret)
{
	return ret == -ECANCELED || ret == -ECONNABORTED ? 0 : ret;
}

/* One connection: address, opening, the device, the session; its end reported once. */
static void *conn_main(void *arg)
{
	struct conn *cn = arg;
	struct server *s = cn->s;
	const struct lp_rdma_server_cfg *cfg = s->cfg;
	struct lp_oob oob = { .ops = &lp_oob_tcp_ops,
			      .ctx = &cn->fd,
			      .timeout_ms = cfg->timeout_ms,
			      .peer_name = cn->peer,
			      .stop = cfg->stop };
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct lp_fail f = { 0 }, sess = { 0 };
	int ret;

	lp_sock_peer_addr(cn->fd, cn->peer, sizeof(cn->peer), &oob.peer_family);
	if (getpeername(cn->fd, (struct sockaddr *)&ss, &sl) ||
	    !lp_sock_allow_match(cfg->allow, (struct sockaddr *)&ss)) {
		lp_proto_send_error(&oob, -EACCES, "this server does not serve %s (its --allow)",
				    cn->peer);
		ret = lp_fail_set(&f, -EACCES, "refused: address not in --allow");
	} else {
		lp_oob_phase(&oob, "opening", cfg->timeout_ms);
		ret = lp_auth_server_open(&oob, cfg->key, &f);
		lp_oob_phase(&oob, "claim", LP_SERVER_GRACE_MS + cfg->timeout_ms);
		if (!ret)
			ret = claim(s, cn, &oob, &f);
		if (!ret) {
			ret = lp_rdma_server_session(s->dev, &oob, &cfg->session, &sess);
			release(s, ret);
			ret = session_status(ret);
			if (ret)
				lp_fail_take(&f, &sess);
		}
	}
	report(s, cn->peer, ret, f.err ? f.msg : status_words(ret));
	lp_sock_close_gently(cn->fd, 500);
	pthread_mutex_lock(&s->lock);
	s->fds[cn->slot] = -1;
	s->nconns--;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	free(cn);
	return NULL;
}

/* A thread for a new connection, or - all slots busy - it is closed at once. */
static void conn_start(struct server *s, int fd)
{
	struct conn *cn = calloc(1, sizeof(*cn));
	pthread_attr_t attr;
	pthread_t t;
	int slot = -1;

	pthread_mutex_lock(&s->lock);
	for (int i = 0; i < LP_SERVER_CONNS && slot < 0 && cn; i++)
		if (s->fds[i] < 0)
			slot = i;
	if (slot >= 0) {
		s->fds[slot] = fd;
		s->nconns++;
	}
	pthread_mutex_unlock(&s->lock);
	if (slot < 0) {
		char peer[64] = "?";
		int family;

		lp_sock_peer_addr(fd, peer, sizeof(peer), &family);
		close(fd);
		free(cn);
		report(s, peer, -EMFILE, "refused: too many connections at once");
		return;
	}
	*cn = (struct conn){ .s = s, .slot = slot, .fd = fd, .peer = "?" };
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, conn_main, cn)) {
		pthread_mutex_lock(&s->lock);
		s->fds[slot] = -1;
		s->nconns--;
		pthread_mutex_unlock(&s->lock);
		close(fd);
		free(cn);
		report(s, "?", -EAGAIN, "refused: no thread for the connection");
	}
	pthread_attr_destroy(&attr);
}

/* Every connection is over (with --once those still opening are cut short); the last summary. */
static void drain(struct server *s)
{
	pthread_mutex_lock(&s->lock);
	if (s->closing)
		for (int i = 0; i < LP_SERVER_CONNS; i++)
			if (s->fds[i] >= 0)
				shutdown(s->fds[i], SHUT_RDWR);
	while (s->nconns)
		pthread_cond_wait(&s->cond, &s->lock);
	pthread_mutex_unlock(&s->lock);
	if (s->win_quiet && s->cfg->report)
		s->cfg->report(s->cfg->ctx,
			       &(struct lp_rdma_server_event){ .quiet = s->win_quiet,
							       .window_s = LP_REPORT_WINDOW_S });
}

static bool closing(struct server *s)
{
	bool c;

	pthread_mutex_lock(&s->lock);
	c = s->closing;
	pthread_mutex_unlock(&s->lock);
	return c;
}

int lp_rdma_server_run(struct lp_rdma_dev *dev, int lfd, const struct lp_rdma_server_cfg *cfg)
{
	struct server s = { .dev = dev, .cfg = cfg, .win_start = lp_now_ns() };
	pthread_condattr_t ca;
	int ret = 0;

	pthread_mutex_init(&s.lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s.cond, &ca);
	pthread_condattr_destroy(&ca);
	for (int i = 0; i < LP_SERVER_CONNS; i++)
		s.fds[i] = -1;
	while (!closing(&s)) {
		int fd;

		ret = lp_sock_accept(lfd, 200, cfg->stop, &fd, NULL, 0);
		if (ret == -EMFILE || ret == -ENFILE || ret == -ENOBUFS || ret == -ENOMEM)
			lp_sleep_ms(100); /* out of descriptors for now: the connections end */
		else if (!ret)
			conn_start(&s, fd);
		else if (ret != -ETIMEDOUT)
			break;
		ret = 0;
	}
	drain(&s);
	pthread_cond_destroy(&s.cond);
	pthread_mutex_destroy(&s.lock);
	if (cfg->stop && *cfg->stop)
		return -EINTR;
	return ret ? ret : s.once_status;
}
