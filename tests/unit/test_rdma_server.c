// SPDX-License-Identifier: MIT
/*
 * The server's control channel, on this host without an RDMA device: the real
 * accept loop (lp_rdma_server_run), opening and session code over loopback
 * TCP, with a device that has a name and a GID table but no verbs context.
 * Every session here ends before a test would touch the device (refused, BYE),
 * so no verbs call is made; the real RDMA path runs in the Soft-RoCE guest
 * (tests/vm/lp-rdma-guest.sh). Each test is a finding of issue 25: a slow or
 * silent client bounded per frame and per phase, refused requests closed with
 * their reason, the operator's limits, the allow-list, the shared key, BUSY,
 * the operator's GID, and a peer's text sanitised.
 */
#include "lp_test.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/stat.h>

#include "common/clock.h"
#include "common/lp.h"
#include "common/sock.h"
#include "rdma/internal.h"

/* ---- a server in a thread ------------------------------------------------------ */

struct srv {
	pthread_t t;
	int lfd, ret;
	uint16_t port;
	struct lp_gid_entry gids[2];
	struct lp_rdma_dev dev;
	struct lp_rdma_server_cfg cfg;
	struct lp_sock_allow allow;
	struct lp_rdma_key key;
	volatile sig_atomic_t stop;
	pthread_mutex_t lock;
	unsigned nev, quiet;
	struct {
		int status;
		char why[256];
	} ev[64];
};

static void on_event(void *ctx, const struct lp_rdma_server_event *e)
{
	struct srv *s = ctx;

	pthread_mutex_lock(&s->lock);
	if (e->quiet)
		s->quiet += e->quiet;
	else if (s->nev < 64) {
		s->ev[s->nev].status = e->status;
		snprintf(s->ev[s->nev].why, sizeof(s->ev[0].why), "%s", e->why ? e->why : "");
		s->nev++;
	}
	pthread_mutex_unlock(&s->lock);
}

static void *srv_main(void *arg)
{
	struct srv *s = arg;

	s->ret = lp_rdma_server_run(&s->dev, s->lfd, &s->cfg);
	return NULL;
}

/* A server on 127.0.0.1 (or ::1), a fake RoCE device whose GID 1 is RoCE v2, 1 s timeout. */
static void srv_init(struct srv *s, const char *bind)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	s->gids[0] = (struct lp_gid_entry){ .raw = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 1 },
					    .type = LP_GID_ROCE_V1,
					    .valid = true };
	s->gids[1] = s->gids[0];
	s->gids[1].type = LP_GID_ROCE_V2;
	s->dev = (struct lp_rdma_dev){ .gids = s->gids, .ngids = 2, .is_roce = true };
	snprintf(s->dev.info.name, sizeof(s->dev.info.name), "fake0");
	s->dev.info.gid_index = 1;
	s->cfg = (struct lp_rdma_server_cfg){
		.session = { .mem_dev = -1,
			     .stop = &s->stop,
			     .max_mem = 1 << 20,
			     .max_duration_s = 600,
			     .max_timeout_ms = 60000,
			     .cm_port = 4791 },
		.timeout_ms = 1000,
		.stop = &s->stop,
		.report = on_event,
		.ctx = s,
	};
	assert_int_equal(lp_sock_listen(bind, 0, &s->lfd, NULL), 0);
	assert_int_equal(getsockname(s->lfd, (struct sockaddr *)&ss, &sl), 0);
	s->port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
						: ((struct sockaddr_in6 *)&ss)->sin6_port);
}

static void srv_start(struct srv *s)
{
	assert_int_equal(pthread_create(&s->t, NULL, srv_main, s), 0);
}

static void srv_stop(struct srv *s)
{
	s->stop = 1;
	pthread_join(s->t, NULL);
	close(s->lfd);
	assert_int_equal(s->ret, -EINTR);
}

/* The why of the n-th report, waiting up to 5 s for it. */
static const char *srv_event(struct srv *s, unsigned n, int *status_p)
{
	for (int i = 0; i < 500; i++) {
		pthread_mutex_lock(&s->lock);
		if (s->nev > n) {
			*status_p = s->ev[n].status;
			pthread_mutex_unlock(&s->lock);
			return s->ev[n].why;
		}
		pthread_mutex_unlock(&s->lock);
		lp_sleep_ms(10);
	}
	fail_msg("no report %u from the server", n);
	return NULL;
}

static int cli_connect(const struct srv *s, const char *host)
{
	int fd = -1;

	assert_int_equal(lp_sock_connect(host, s->port, 1000, &fd), 0);
	return fd;
}

static struct lp_oob cli_oob(int *fd)
{
	return (struct lp_oob){
		.ops = &lp_oob_tcp_ops, .ctx = fd, .timeout_ms = 3000, .peer_name = "server"
	};
}

/* Milliseconds until the server closes fd (-1: still open after limit_ms); input is dropped. */
static int wait_closed(int fd, int limit_ms)
{
	uint64_t t0 = lp_now_ns();
	char buf[4096];

	while (lp_now_ns() - t0 < (uint64_t)limit_ms * 1000000ull) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 50) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN))
			return (int)((lp_now_ns() - t0) / 1000000);
	}
	return -1;
}

static void send_msg(int fd, uint16_t type, const void *msg)
{
	struct lp_wbuf w;

	assert_int_equal(lp_proto_encode(type, msg, &w), 0);
	assert_int_equal(lp_wire_send(fd, type, &w, 1000), 0);
}

/* The next message must be an ERROR: its text. */
static const char *recv_error(int fd, struct lp_proto_error *e)
{
	uint8_t body[LP_WIRE_MAX_BODY];
	uint16_t type;
	size_t len;

	assert_int_equal(lp_wire_recv(fd, &type, body, &len, 3000), 0);
	assert_int_equal(type, LP_MSG_ERROR);
	assert_int_equal(lp_proto_decode(type, e, body, len), 0);
	return e->text;
}

/* A granted session on a fresh connection (no key). */
static int cli_open(const struct srv *s)
{
	int fd = cli_connect(s, "127.0.0.1");
	struct lp_oob oob = cli_oob(&fd);
	unsigned retry;
	struct lp_fail why;

	assert_int_equal(lp_rdma_client_open(&oob, NULL, &retry, lp_fresh(&why)), 0);
	return fd;
}

/* ---- deadlines ------------------------------------------------------------------ */

struct trickle {
	int fd;
	unsigned gap_ms, n;
	const uint8_t *data;
};

static void *trickle_main(void *arg)
{
	struct trickle *t = arg;

	for (unsigned i = 0; i < t->n; i++) {
		if (send(t->fd, t->data + i, 1, MSG_NOSIGNAL) != 1)
			break;
		lp_sleep_ms(t->gap_ms);
	}
	return NULL;
}

/*
 * A frame that trickles in one byte every 0.3 s: lp_wire_recv gives up at its
 * timeout (1 s) although bytes keep coming (the bound is the frame's, not each
 * read's).
 */
static void test_frame_deadline(void **state)
{
	uint8_t frame[LP_WIRE_HDR_LEN + 8] = { 0 }, body[LP_WIRE_MAX_BODY];
	struct trickle t = { .gap_ms = 300, .n = sizeof(frame), .data = frame };
	pthread_t th;
	uint16_t type;
	size_t len;
	int sv[2];
	uint64_t t0;

	(void)state;
	lp_wire_hdr_encode(frame, LP_MSG_AUTH, 8);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	t.fd = sv[1];
	pthread_create(&th, NULL, trickle_main, &t);
	t0 = lp_now_ns();
	assert_int_equal(lp_wire_recv(sv[0], &type, body, &len, 1000), -ETIMEDOUT);
	assert_true(lp_now_ns() - t0 < 1500000000ull);
	shutdown(sv[0], SHUT_RDWR);
	pthread_join(th, NULL);
	close(sv[0]);
	close(sv[1]);
}

/*
 * The slow client: one byte every 0.9 s to a server with a 1 s
 * timeout. The server drops it once the first frame is 1 s late (each byte
 * arrives within 1 s of the last: a bound per read never fires).
 */
static void test_slow_client(void **state)
{
	struct srv s;
	struct lp_proto_open op = { 0 };
	struct lp_wbuf w;
	uint8_t frame[LP_WIRE_HDR_LEN + LP_WIRE_MAX_BODY];
	struct trickle t = { .gap_ms = 900, .data = frame };
	pthread_t th;
	int status, ms;

	(void)state;
	srv_init(&s, "127.0.0.1");
	srv_start(&s);
	assert_int_equal(lp_proto_encode(LP_MSG_OPEN, &op, &w), 0);
	lp_wire_hdr_encode(frame, LP_MSG_OPEN, (uint32_t)w.len);
	memcpy(frame + LP_WIRE_HDR_LEN, w.data, w.len);
	t.n = (unsigned)(LP_WIRE_HDR_LEN + w.len);
	t.fd = cli_connect(&s, "127.0.0.1");
	pthread_create(&th, NULL, trickle_main, &t);
	ms = wait_closed(t.fd, 6000);
	assert_true(ms >= 0 && ms < 2500);
	assert_non_null(
		strstr(srv_event(&s, 0, &status), "opening phase took longer than its 1 s"));
	assert_int_equal(status, -ETIMEDOUT);
	shutdown(t.fd, SHUT_RDWR);
	pthread_join(th, NULL);
	close(t.fd);
	srv_stop(&s);
}

/* Each frame in time, the phase not: OPEN after 0.6 s, AUTH 0.6 s after CHALLENGE (limit 1 s). */
static void test_phase_deadline(void **state)
{
	struct srv s;
	struct lp_proto_open op = { 0 };
	struct lp_proto_auth au = { 0 };
	uint8_t body[LP_WIRE_MAX_BODY];
	struct lp_wbuf w;
	uint16_t type;
	size_t len;
	int fd, status;

	(void)state;
	srv_init(&s, "127.0.0.1");
	srv_start(&s);
	fd = cli_connect(&s, "127.0.0.1");
	lp_sleep_ms(600);
	send_msg(fd, LP_MSG_OPEN, &op);
	assert_int_equal(lp_wire_recv(fd, &type, body, &len, 2000), 0);
	assert_int_equal(type, LP_MSG_CHALLENGE);
	lp_sleep_ms(600);
	assert_int_equal(lp_proto_encode(LP_MSG_AUTH, &au, &w), 0);
	lp_wire_send(fd, LP_MSG_AUTH, &w, 100); /* may fail: the server closed at 1 s */
	assert_true(wait_closed(fd, 3000) >= 0);
	assert_non_null(strstr(srv_event(&s, 0, &status), "opening phase"));
	close(fd);
	srv_stop(&s);
}

/* ---- refused requests end the session, with the reason ---------------------------- */

/* A HELLO that fails: the client reads ERROR with the reason, then the close; one report. */
static void hello_refused(struct srv *s, const struct lp_rdma_params *p, const char *phrase)
{
	struct lp_proto_error e;
	int fd = cli_open(s), status;
	unsigned n = s->nev;

	send_msg(fd, LP_MSG_HELLO, p);
	send_msg(fd, LP_MSG_HELLO, p); /* a second one is never read */
	if (!strstr(recv_error(fd, &e), phrase))
		fail_msg("ERROR '%s' does not say '%s'", e.text, phrase);
	assert_true(wait_closed(fd, 2000) >= 0);
	assert_non_null(strstr(srv_event(s, n, &status), phrase));
	assert_true(status < 0);
	close(fd);
}

static void test_refused_hello(void **state)
{
	struct srv s;
	struct lp_rdma_params p;

	(void)state;
	srv_init(&s, "127.0.0.1");
	srv_start(&s);
	lp_rdma_params_default(&p, LP_RDMA_WRITE_BW);
	p.tx_depth = 0;
	hello_refused(&s, &p, "tx depth 0 out of range");
	/* the operator's limits (--max-mem 1 MiB, --max-duration 600, --max-timeout 60) */
	lp_rdma_params_default(&p, LP_RDMA_WRITE_BW);
	p.size = 1 << 20; /* two 1 MiB rings */
	hello_refused(&s, &p, "over this server's limit of 1 MiB (--max-mem)");
	lp_rdma_params_default(&p, LP_RDMA_WRITE_BW);
	p.iters = 0;
	p.duration_s = 700;
	hello_refused(&s, &p,
		      "a 700 s test is longer than this server allows (--max-duration 600)");
	lp_rdma_params_default(&p, LP_RDMA_WRITE_LAT);
	p.timeout_ms = 3600000;
	hello_refused(&s, &p, "a timeout of 3600 s is over this server's limit (--max-timeout 60)");
	lp_rdma_params_default(&p, LP_RDMA_WRITE_LAT);
	p.use_cm = true;
	p.cm_port = 5000;
	hello_refused(&s, &p, "rdma_cm connections on port 4791 only, not 5000");
	srv_stop(&s);
}

/* The GID the operator fixed (-x) stays; a client of another type is refused with the reason. */
static void test_gid_kept(void **state)
{
	struct srv s;
	struct lp_rdma_params p;

	(void)state;
	srv_init(&s, "127.0.0.1");
	s.cfg.session.gid_fixed = true;
	srv_start(&s);
	lp_rdma_params_default(&p, LP_RDMA_WRITE_LAT);
	p.gid_type = LP_GID_ROCE_V1;
	hello_refused(&s, &p, "uses GID index 1 (RoCEv2), set by its operator");
	assert_int_equal(s.dev.info.gid_index, 1);
	srv_stop(&s);
	/* Not fixed: a RoCE v1 client gets a v1 GID for its own session, on a copy of the device
	 * (this one is then refused for its size, so no verbs call is made): the device the next
	 * client's session starts from keeps the operator's RoCE v2 GID. */
	srv_init(&s, "127.0.0.1");
	srv_start(&s);
	p.size = 1 << 20;
	hello_refused(&s, &p, "--max-mem");
	assert_int_equal(s.dev.info.gid_index, 1);
	assert_string_equal(s.dev.info.gid_type, "");
	srv_stop(&s);
}

/* ---- who may connect ----------------------------------------------------------- */

static void test_allow_parse(void **state)
{
	struct lp_sock_allow a;
	struct sockaddr_in v4 = { .sin_family = AF_INET };
	struct sockaddr_in6 v6 = { .sin6_family = AF_INET6 }, m6 = { .sin6_family = AF_INET6 };
	struct lp_fail why;

	(void)state;
	assert_int_equal(lp_sock_allow_parse("10.1.2.3/8,192.0.2.7,fd00::/8", &a, lp_fresh(&why)),
			 0);
	assert_int_equal(a.n, 3);
	inet_pton(AF_INET, "10.200.0.1", &v4.sin_addr);
	assert_true(lp_sock_allow_match(&a, (struct sockaddr *)&v4));
	inet_pton(AF_INET, "192.0.2.8", &v4.sin_addr);
	assert_false(lp_sock_allow_match(&a, (struct sockaddr *)&v4));
	inet_pton(AF_INET6, "fd12::1", &v6.sin6_addr);
	assert_true(lp_sock_allow_match(&a, (struct sockaddr *)&v6));
	inet_pton(AF_INET6, "fe80::1", &v6.sin6_addr);
	assert_false(lp_sock_allow_match(&a, (struct sockaddr *)&v6));
	/* an IPv4 client on a dual-stack socket is IPv4 */
	inet_pton(AF_INET6, "::ffff:192.0.2.7", &m6.sin6_addr);
	assert_true(lp_sock_allow_match(&a, (struct sockaddr *)&m6));
	assert_true(lp_sock_allow_match(NULL, (struct sockaddr *)&m6));
	assert_int_equal(lp_sock_allow_parse("10.0.0.0/33", &a, lp_fresh(&why)), -EINVAL);
	assert_non_null(strstr(why.msg, "prefix length must be 0..32"));
	assert_int_equal(lp_sock_allow_parse("host.example", &a, lp_fresh(&why)), -EINVAL);
	assert_int_equal(lp_sock_allow_parse(",", &a, lp_fresh(&why)), -EINVAL);
	assert_int_equal(lp_sock_allow_parse("::/0", &a, lp_fresh(&why)), 0);
	assert_true(lp_sock_allow_match(&a, (struct sockaddr *)&v6));
	assert_false(lp_sock_allow_match(&a, (struct sockaddr *)&v4)); /* IPv6 networks only */
}

/* A client outside --allow reads why and the close; inside, it is served. */
static void test_allow(void **state)
{
	struct srv s;
	struct lp_proto_error e;
	struct lp_fail why;
	int fd, status;

	(void)state;
	srv_init(&s, NULL); /* dual-stack: IPv4 and IPv6 clients */
	assert_int_equal(lp_sock_allow_parse("10.9.0.0/16,fd00::/8", &s.allow, lp_fresh(&why)), 0);
	s.cfg.allow = &s.allow;
	srv_start(&s);
	fd = cli_connect(&s, "127.0.0.1");
	assert_non_null(strstr(recv_error(fd, &e), "does not serve 127.0.0.1 (its --allow)"));
	assert_true(wait_closed(fd, 2000) >= 0);
	assert_string_equal(srv_event(&s, 0, &status), "refused: address not in --allow");
	assert_int_equal(status, -EACCES);
	close(fd);
	if (!lp_sock_connect("::1", s.port, 1000, &fd)) { /* where the host has IPv6 loopback */
		assert_non_null(strstr(recv_error(fd, &e), "does not serve ::1"));
		close(fd);
	}
	srv_stop(&s);
	srv_init(&s, "127.0.0.1");
	assert_int_equal(lp_sock_allow_parse("127.0.0.0/8", &s.allow, lp_fresh(&why)), 0);
	s.cfg.allow = &s.allow;
	srv_start(&s);
	fd = cli_open(&s);
	send_msg(fd, LP_MSG_BYE, NULL);
	assert_true(wait_closed(fd, 2000) >= 0);
	srv_event(&s, 0, &status);
	assert_int_equal(status, 0);
	close(fd);
	srv_stop(&s);
}

/* ---- the shared key ---------------------------------------------------------------- */

static void key_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static void test_key_file(void **state)
{
	char dir[] = "/tmp/lp-key-XXXXXX", path[64];
	struct lp_fail why;
	struct lp_rdma_key k;

	(void)state;
	if (!lp_rdma_key_supported()) {
		assert_int_equal(lp_rdma_key_load("/dev/null", &k, lp_fresh(&why)), -EOPNOTSUPP);
		skip();
	}
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/key", dir);
	key_file(path, "0123456789abcdef0123\n", 0600);
	assert_int_equal(lp_rdma_key_load(path, &k, lp_fresh(&why)), 0);
	assert_int_equal(k.len, 20); /* the line break is not key */
	key_file(path, "0123456789abcdef0123\n", 0644);
	assert_int_equal(lp_rdma_key_load(path, &k, lp_fresh(&why)), -EINVAL);
	assert_non_null(strstr(why.msg, "open to its group or others (mode 0644)"));
	key_file(path, "0123456789abcdef0123\n", 0604);
	assert_int_equal(lp_rdma_key_load(path, &k, lp_fresh(&why)), -EINVAL);
	key_file(path, "short\n", 0600);
	assert_int_equal(lp_rdma_key_load(path, &k, lp_fresh(&why)), -EINVAL);
	assert_non_null(strstr(why.msg, "holds 5 bytes"));
	assert_int_equal(lp_rdma_key_load(dir, &k, lp_fresh(&why)), -EINVAL);
	unlink(path);
	assert_int_equal(lp_rdma_key_load(path, &k, lp_fresh(&why)), -EINVAL);
	rmdir(dir);
}

static void key_of(struct lp_rdma_key *k, const char *text)
{
	k->len = strlen(text);
	memcpy(k->k, text, k->len);
}

/* lp_rdma_client_open with key (NULL: none): its return and why. */
static int open_with(const struct srv *s, const struct lp_rdma_key *key, struct lp_fail *why)
{
	int fd = cli_connect(s, "127.0.0.1"), ret;
	struct lp_oob oob = cli_oob(&fd);
	unsigned retry;

	ret = lp_rdma_client_open(&oob, key, &retry, lp_fresh(why));
	if (!ret)
		send_msg(fd, LP_MSG_BYE, NULL);
	wait_closed(fd, 2000);
	close(fd);
	return ret;
}

static void test_key(void **state)
{
	struct srv s;
	struct lp_rdma_key good, bad;
	struct lp_proto_open op = { .nonce = { 9 } };
	struct lp_proto_auth au = { .mac = { 1 } };
	struct lp_proto_error e;
	uint8_t body[LP_WIRE_MAX_BODY];
	uint16_t type;
	size_t len;
	struct lp_fail why;
	int fd, status;

	(void)state;
	if (!lp_rdma_key_supported())
		skip();
	key_of(&good, "the right key, 32 bytes of it...");
	key_of(&bad, "another key, also long enough...");
	srv_init(&s, "127.0.0.1");
	s.key = good;
	s.cfg.key = &s.key;
	srv_start(&s);
	assert_int_equal(open_with(&s, &good, &why), 0);
	srv_event(&s, 0, &status);
	assert_int_equal(status, 0);
	/* the client with another key finds the server's proof wrong, and says so to both */
	assert_int_equal(open_with(&s, &bad, &why), -EACCES);
	assert_non_null(strstr(why.msg, "another key's proof"));
	assert_non_null(strstr(srv_event(&s, 1, &status), "the client refused the server"));
	/* no key at all */
	assert_int_equal(open_with(&s, NULL, &why), -EACCES);
	assert_non_null(strstr(why.msg, "requires a shared key: give the client --key FILE"));
	srv_event(&s, 2, &status);
	/* a client that answers without the key: the server refuses it */
	fd = cli_connect(&s, "127.0.0.1");
	send_msg(fd, LP_MSG_OPEN, &op);
	assert_int_equal(lp_wire_recv(fd, &type, body, &len, 2000), 0);
	assert_int_equal(type, LP_MSG_CHALLENGE);
	send_msg(fd, LP_MSG_AUTH, &au);
	assert_non_null(strstr(recv_error(fd, &e), "authentication failed"));
	assert_true(wait_closed(fd, 2000) >= 0);
	assert_string_equal(srv_event(&s, 3, &status),
			    "refused: wrong key (authentication failed)");
	assert_int_equal(status, -EACCES);
	close(fd);
	srv_stop(&s);
	/* a client with a key meets a server without one: it refuses to go on */
	srv_init(&s, "127.0.0.1");
	srv_start(&s);
	assert_int_equal(open_with(&s, &good, &why), -EACCES);
	assert_non_null(strstr(why.msg, "uses no key"));
	srv_stop(&s);
}

/* ---- one session at a time ------------------------------------------------------- */

static void test_busy(void **state)
{
	struct srv s;
	struct lp_fail why;
	unsigned retry = 0;
	int a, b, status;
	struct lp_oob oob;

	(void)state;
	srv_init(&s, "127.0.0.1");
	s.cfg.timeout_ms = 4000; /* A's session waits for its first test past B's grace */
	srv_start(&s);
	a = cli_open(&s); /* holds the device, between tests */
	b = cli_connect(&s, "127.0.0.1");
	oob = cli_oob(&b);
	status = lp_rdma_client_open(&oob, NULL, &retry, lp_fresh(&why));
	if (status != -EBUSY)
		fail_msg("not busy: %s", why.msg);
	assert_true(retry >= 1 && retry <= 3600);
	assert_non_null(strstr(why.msg, "is busy: another client (127.0.0.1) has held it for"));
	assert_non_null(strstr(why.msg, "try again in"));
	close(b);
	assert_non_null(strstr(srv_event(&s, 0, &status), "refused: busy"));
	assert_int_equal(status, -EBUSY);
	send_msg(a, LP_MSG_BYE, NULL);
	wait_closed(a, 2000);
	close(a);
	a = cli_open(&s); /* free again */
	send_msg(a, LP_MSG_BYE, NULL);
	close(a);
	srv_stop(&s);
}

/* --once: a connection refused before the device (garbage) does not end the server; the
 * first session that held it does, and its status is the server's. */
static void test_once(void **state)
{
	struct srv s;
	int fd, status;

	(void)state;
	srv_init(&s, "127.0.0.1");
	s.cfg.once = true;
	srv_start(&s);
	fd = cli_connect(&s, "127.0.0.1");
	assert_int_equal(send(fd, "garbage!garbage!", 16, MSG_NOSIGNAL), 16);
	assert_true(wait_closed(fd, 3000) >= 0);
	close(fd);
	srv_event(&s, 0, &status);
	assert_int_equal(status, -EPROTO);
	fd = cli_open(&s);
	send_msg(fd, LP_MSG_BYE, NULL);
	pthread_join(s.t, NULL); /* returns by itself */
	assert_int_equal(s.ret, 0);
	close(fd);
	close(s.lfd);
}

/* A flood of failing connections is reported 40 at a time, then summarised. */
static void test_report_flood(void **state)
{
	struct srv s;

	(void)state;
	srv_init(&s, "127.0.0.1");
	srv_start(&s);
	for (int i = 0; i < 50; i++) {
		int fd = cli_connect(&s, "127.0.0.1");

		assert_int_equal(send(fd, "GET / HTTP/1.0\r\n\r\n", 18, MSG_NOSIGNAL), 18);
		wait_closed(fd, 2000);
		close(fd);
	}
	srv_stop(&s);
	assert_int_equal(s.nev, 40);
	assert_int_equal(s.quiet, 10);
}

/* ---- a peer's words ------------------------------------------------------------------ */

/* An ERROR carrying escape sequences and line breaks reaches the user as plain text. */
static void test_peer_text(void **state)
{
	struct lp_proto_error e = { .status = -EINVAL };
	struct lp_fail f = { 0 };
	int sv[2];
	struct lp_oob oob = cli_oob(&sv[0]);

	(void)state;
	snprintf(e.text, sizeof(e.text), "bad\n\x1b[31mred\x07\r%cend", (char)0x9b);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	send_msg(sv[1], LP_MSG_ERROR, &e);
	assert_int_equal(lp_proto_expect(&oob, LP_MSG_ACCEPT, NULL, 1000, &f), -EINVAL);
	assert_string_equal(f.msg, "peer server: bad??[31mred???end");
	close(sv[0]);
	close(sv[1]);
}

/* An old server (wire version 4) reads OPEN as another version and closes: the client says so. */
static void *old_server_main(void *arg)
{
	int fd = *(int *)arg;
	uint8_t hdr[LP_WIRE_HDR_LEN];

	recv(fd, hdr, sizeof(hdr), MSG_WAITALL);
	shutdown(fd, SHUT_RDWR);
	return NULL;
}

static void test_old_server_open(void **state)
{
	int sv[2];
	struct lp_oob oob = cli_oob(&sv[0]);
	pthread_t t;
	unsigned retry;
	struct lp_fail why;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pthread_create(&t, NULL, old_server_main, &sv[1]);
	assert_int_equal(lp_rdma_client_open(&oob, NULL, &retry, lp_fresh(&why)), -ECONNRESET);
	assert_non_null(strstr(why.msg, "a server of wire version 5 or older"));
	pthread_join(t, NULL);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_deadline),
		cmocka_unit_test(test_slow_client),
		cmocka_unit_test(test_phase_deadline),
		cmocka_unit_test(test_refused_hello),
		cmocka_unit_test(test_gid_kept),
		cmocka_unit_test(test_allow_parse),
		cmocka_unit_test(test_allow),
		cmocka_unit_test(test_key_file),
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_busy),
		cmocka_unit_test(test_once),
		cmocka_unit_test(test_report_flood),
		cmocka_unit_test(test_peer_text),
		cmocka_unit_test(test_old_server_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
