// SPDX-License-Identifier: MIT
#include "sock.h"
#include "clock.h"
#include "fail.h"
#include "lp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void tune(int fd)
{
	int one = 1;

	/* The exchange is small request/response traffic: never wait for Nagle. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int lp_sock_listen(const char *bind_addr, uint16_t port, int *fd_p, struct lp_fail *f)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
	struct addrinfo *res, *ai;
	char portstr[8];
	int fd = -1, ret, err = -EADDRNOTAVAIL;

	snprintf(portstr, sizeof(portstr), "%u", port);
	hints.ai_family = bind_addr ? AF_UNSPEC : AF_INET6;
	ret = getaddrinfo(bind_addr, portstr, &hints, &res);
	if (ret && !bind_addr) {
		hints.ai_family = AF_INET; /* no IPv6 in this kernel */
		ret = getaddrinfo(bind_addr, portstr, &hints, &res);
	}
	if (ret)
		return lp_fail_set(f, -EINVAL, "cannot resolve bind address %s: %s",
				   bind_addr ? bind_addr : "*", gai_strerror(ret));
	for (ai = res; ai; ai = ai->ai_next) {
		int one = 1, zero = 0;

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			err = -errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ai->ai_family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		if (!bind(fd, ai->ai_addr, ai->ai_addrlen) && !listen(fd, 16))
			break;
		err = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return lp_fail_set(f, err, "cannot listen on %s port %u: %s",
				   bind_addr ? bind_addr : "*", port, strerror(-err));
	*fd_p = fd;
	return 0;
}

int lp_sock_accept(int lfd, int timeout_ms, const volatile sig_atomic_t *stop, int *fd_p,
		   char *peer, size_t peer_len)
{
	uint64_t deadline = lp_now_ns() + (uint64_t)timeout_ms * 1000000ull;

	for (;;) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		uint64_t now = lp_now_ns();
		int fd, n;

		if (stop && *stop)
			return -EINTR;
		if (now >= deadline)
			return -ETIMEDOUT;
		/* Wake at least every 200 ms to notice the stop flag. */
		n = poll(&p, 1, (int)LP_MIN((deadline - now) / 1000000ull + 1, 200ull));
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n <= 0)
			continue;
		fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN)
				continue;
			return -errno;
		}
		tune(fd);
		if (peer && getnameinfo((struct sockaddr *)&ss, sl, peer, (socklen_t)peer_len, NULL,
					0, NI_NUMERICHOST))
			snprintf(peer, peer_len, "?");
		*fd_p = fd;
		return 0;
	}
}

static int connect_one(const struct addrinfo *ai, int timeout_ms, int *fd_p)
{
	struct pollfd p;
	int fd, err = 0, flags, n;
	socklen_t el = sizeof(err);

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
	if (fd < 0)
		return -errno;
	flags = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
		err = -errno;
		goto close_fd;
	}
	p = (struct pollfd){ .fd = fd, .events = POLLOUT };
	do
		n = poll(&p, 1, timeout_ms);
	while (n < 0 && errno == EINTR);
	if (n == 0) {
		err = -ETIMEDOUT;
		goto close_fd;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) || err) {
		err = err ? -err : -errno;
		goto close_fd;
	}
	fcntl(fd, F_SETFL, flags);
	tune(fd);
	*fd_p = fd;
	return 0;
close_fd:
	close(fd);
	return err;
}

int lp_sock_connect(const char *host, uint16_t port, int timeout_ms, int *fd_p)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *ai;
	char portstr[8];
	int ret, err = -EHOSTUNREACH;

	snprintf(portstr, sizeof(portstr), "%u", port);
	ret = getaddrinfo(host, portstr, &hints, &res);
	if (ret)
		return -EHOSTUNREACH;
	for (ai = res; ai; ai = ai->ai_next) {
		err = connect_one(ai, timeout_ms, fd_p);
		if (!err)
			break;
	}
	freeaddrinfo(res);
	return err;
}

/* Wait for events on fd until deadline (CLOCK_MONOTONIC ns): 0, -ETIMEDOUT or -errno. */
static int wait_fd(int fd, short events, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	int n;

	for (;;) {
		uint64_t now = lp_now_ns();

		if (now >= deadline)
			return -ETIMEDOUT;
		/* rounded up: a wait never ends a little before its deadline and spins */
		n = poll(&p, 1,
			 (int)LP_MIN((deadline - now + 999999) / 1000000, (uint64_t)INT_MAX));
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

uint64_t lp_sock_deadline(int timeout_ms)
{
	return lp_now_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000ull;
}

int lp_sock_send_until(int fd, const void *buf, size_t len, uint64_t deadline)
{
	const char *p = buf;

	while (len) {
		ssize_t n;
		int ret = wait_fd(fd, POLLOUT, deadline);

		if (ret)
			return ret;
		n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return errno == EPIPE ? -ECONNRESET : -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int lp_sock_recv_until(int fd, void *buf, size_t len, uint64_t deadline)
{
	char *p = buf;

	while (len) {
		ssize_t n;
		int ret = wait_fd(fd, POLLIN, deadline);

		if (ret)
			return ret;
		n = recv(fd, p, len, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ECONNRESET;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int lp_sock_send_all(int fd, const void *buf, size_t len, int timeout_ms)
{
	return lp_sock_send_until(fd, buf, len, lp_sock_deadline(timeout_ms));
}

int lp_sock_recv_all(int fd, void *buf, size_t len, int timeout_ms)
{
	return lp_sock_recv_until(fd, buf, len, lp_sock_deadline(timeout_ms));
}

static int addr_str(const struct sockaddr_storage *ss, socklen_t sl, char *buf, size_t len,
		    int *family_p)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

	*family_p = ss->ss_family;
	/* An IPv4 client on a dual-stack socket shows up as ::ffff:a.b.c.d. */
	if (ss->ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		*family_p = AF_INET;
		return inet_ntop(AF_INET, &s6->sin6_addr.s6_addr[12], buf, (socklen_t)len) ? 0
											   : -errno;
	}
	if (getnameinfo((const struct sockaddr *)ss, sl, buf, (socklen_t)len, NULL, 0,
			NI_NUMERICHOST))
		return -EINVAL;
	return 0;
}

int lp_sock_local_addr(int fd, char *buf, size_t len, int *family_p)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &sl))
		return -errno;
	return addr_str(&ss, sl, buf, len, family_p);
}

int lp_sock_peer_addr(int fd, char *buf, size_t len, int *family_p)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (getpeername(fd, (struct sockaddr *)&ss, &sl))
		return -errno;
	return addr_str(&ss, sl, buf, len, family_p);
}

void lp_sock_close_gently(int fd, int linger_ms)
{
	uint64_t deadline = lp_sock_deadline(linger_ms);
	char buf[512];

	/* Our last words first (FIN), then what the peer still sends is read and dropped: a close
	 * with unread input would reset the connection, and a reset can discard those words. */
	if (!shutdown(fd, SHUT_WR))
		while (!wait_fd(fd, POLLIN, deadline) &&
		       recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
			;
	close(fd);
}

/* ---- allow-lists ------------------------------------------------------------- */

/* An address as family and bytes; an IPv4 client on a dual-stack socket (::ffff:a.b.c.d) is IPv4. */
static int addr_bytes(const struct sockaddr *sa, uint8_t out[16], unsigned *bits_p)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

	if (sa->sa_family == AF_INET) {
		memcpy(out, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		*bits_p = 32;
		return AF_INET;
	}
	if (sa->sa_family != AF_INET6)
		return -1;
	if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		memcpy(out, &s6->sin6_addr.s6_addr[12], 4);
		*bits_p = 32;
		return AF_INET;
	}
	memcpy(out, &s6->sin6_addr, 16);
	*bits_p = 128;
	return AF_INET6;
}

/* Do the first `prefix` bits of a and b agree? */
static bool prefix_eq(const uint8_t *a, const uint8_t *b, unsigned prefix)
{
	unsigned whole = prefix / 8, rest = prefix % 8;

	if (memcmp(a, b, whole))
		return false;
	return !rest || !((a[whole] ^ b[whole]) & (uint8_t)(0xff << (8 - rest)));
}

/* One "ADDR" or "ADDR/PREFIX" into *n; -EINVAL with the reason. */
static int net_parse(const char *item, struct lp_sock_net *n, struct lp_fail *f)
{
	char addr[INET6_ADDRSTRLEN + 8], *slash, *end;
	unsigned long prefix;

	snprintf(addr, sizeof(addr), "%s", item);
	slash = strchr(addr, '/');
	if (slash)
		*slash = '\0';
	n->family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	n->bits = n->family == AF_INET ? 32 : 128;
	memset(n->addr, 0, sizeof(n->addr));
	if (strlen(item) >= sizeof(addr) - 4 || inet_pton(n->family, addr, n->addr) != 1)
		return lp_fail_set(f, -EINVAL, "'%s' is not an IPv4 or IPv6 address or network",
				   item);
	prefix = n->bits;
	if (slash) {
		errno = 0;
		prefix = strtoul(slash + 1, &end, 10);
		if (!slash[1] || *end || errno || prefix > n->bits)
			return lp_fail_set(f, -EINVAL, "'%s': the prefix length must be 0..%u",
					   item, n->bits);
	}
	n->prefix = (unsigned)prefix;
	/* host bits are not part of the network: 10.1.2.3/8 is 10.0.0.0/8 */
	for (unsigned b = n->prefix; b < n->bits; b++)
		n->addr[b / 8] &= (uint8_t) ~(0x80 >> (b % 8));
	return 0;
}

int lp_sock_allow_parse(const char *list, struct lp_sock_allow *a, struct lp_fail *f)
{
	char buf[1024];
	char *save = NULL, *item;

	memset(a, 0, sizeof(*a));
	if (!list || strlen(list) >= sizeof(buf))
		return lp_fail_set(
			f, -EINVAL,
			"expected a comma list of addresses and networks (ADDR[/PREFIX])");
	snprintf(buf, sizeof(buf), "%s", list);
	for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		if (a->n == LP_SOCK_ALLOW_MAX)
			return lp_fail_set(f, -E2BIG, "more than %d networks", LP_SOCK_ALLOW_MAX);
		if (net_parse(item, &a->net[a->n], f))
			return -EINVAL;
		a->n++;
	}
	if (!a->n)
		return lp_fail_set(f, -EINVAL, "an empty list would refuse every client");
	return 0;
}

bool lp_sock_allow_match(const struct lp_sock_allow *a, const struct sockaddr *sa)
{
	uint8_t b[16];
	unsigned bits;
	int family;

	if (!a)
		return true;
	family = addr_bytes(sa, b, &bits);
	for (unsigned i = 0; i < a->n; i++)
		if (a->net[i].family == family && prefix_eq(a->net[i].addr, b, a->net[i].prefix))
			return true;
	return false;
}
