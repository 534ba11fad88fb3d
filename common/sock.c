// SPDX-License-Identifier: MIT
#include "sock.h"
#include "clock.h"
#include "lp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void tune(int fd)
{
	int one = 1;

	/* The exchange is small request/response traffic: never wait for Nagle. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int lp_sock_listen(const char *bind_addr, uint16_t port, int *fd_p)
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
	if (ret) {
		lp_err("cannot resolve bind address %s: %s", bind_addr ? bind_addr : "*",
		       gai_strerror(ret));
		return -EINVAL;
	}
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
	if (fd < 0) {
		lp_err("cannot listen on %s port %u: %s", bind_addr ? bind_addr : "*", port,
		       strerror(-err));
		return err;
	}
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

static int wait_fd(int fd, short events, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int n;

	do
		n = poll(&p, 1, timeout_ms);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ETIMEDOUT;
	return 0;
}

int lp_sock_send_all(int fd, const void *buf, size_t len, int timeout_ms)
{
	const char *p = buf;

	while (len) {
		ssize_t n;
		int ret = wait_fd(fd, POLLOUT, timeout_ms);

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

int lp_sock_recv_all(int fd, void *buf, size_t len, int timeout_ms)
{
	char *p = buf;

	while (len) {
		ssize_t n;
		int ret = wait_fd(fd, POLLIN, timeout_ms);

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
