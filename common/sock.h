/* SPDX-License-Identifier: MIT */
/*
 * TCP helpers for the out-of-band exchange. Every call that waits takes a
 * timeout in milliseconds (never infinite), and a peer that closes the
 * connection is reported as -ECONNRESET, a timeout as -ETIMEDOUT.
 */
#ifndef LP_SOCK_H
#define LP_SOCK_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lp_fail; /* common/fail.h */
struct sockaddr;

/*
 * Listen on bind_addr (NULL = any, IPv6 dual-stack when available): 0, or
 * -EINVAL (an address that does not resolve) or socket/bind/listen's -errno,
 * with the cause in f.
 */
int lp_sock_listen(const char *bind_addr, uint16_t port, int *fd_p, struct lp_fail *f);

/*
 * Wait up to timeout_ms for a client; also returns -EINTR early once *stop is
 * set. The peer's numeric address goes to peer (may be NULL).
 */
int lp_sock_accept(int lfd, int timeout_ms, const volatile sig_atomic_t *stop, int *fd_p,
		   char *peer, size_t peer_len);

/* Connect to host:port (name or address), each attempt bounded by timeout_ms. */
int lp_sock_connect(const char *host, uint16_t port, int timeout_ms, int *fd_p);

/*
 * Move exactly len bytes, or fail: all of them within timeout_ms of the call
 * (the _until forms: by deadline, on lp_now_ns()'s clock). A peer that trickles
 * one byte at a time cannot stretch the wait: -ETIMEDOUT at the deadline.
 */
int lp_sock_send_all(int fd, const void *buf, size_t len, int timeout_ms);
int lp_sock_recv_all(int fd, void *buf, size_t len, int timeout_ms);
int lp_sock_send_until(int fd, const void *buf, size_t len, uint64_t deadline);
int lp_sock_recv_until(int fd, void *buf, size_t len, uint64_t deadline);
/* now + timeout_ms, as the deadline of the calls above */
uint64_t lp_sock_deadline(int timeout_ms);

/*
 * Close a connection after its last message: no more sending, the peer's
 * input drained for up to linger_ms (so the close is not a reset, which could
 * discard that message at the peer), then close.
 */
void lp_sock_close_gently(int fd, int linger_ms);

/* Numeric local address of a connected socket (for GID address-family matching). */
int lp_sock_local_addr(int fd, char *buf, size_t len, int *family_p);
/* Numeric peer address of a connected socket. */
int lp_sock_peer_addr(int fd, char *buf, size_t len, int *family_p);

/*
 * An allow-list of IPv4 and IPv6 networks ("10.0.0.0/8,fd00::/8,192.0.2.7"):
 * an address without a prefix is that host alone. An IPv4 peer on a dual-stack
 * socket (::ffff:a.b.c.d) matches the IPv4 networks.
 */
#define LP_SOCK_ALLOW_MAX 32

struct lp_sock_net {
	int family;	  /* AF_INET or AF_INET6 */
	uint8_t addr[16]; /* network bytes (host bits cleared) */
	unsigned prefix;  /* bits that must match */
	unsigned bits;	  /* 32 or 128 */
};

struct lp_sock_allow {
	unsigned n;
	struct lp_sock_net net[LP_SOCK_ALLOW_MAX];
};

/* Parse a comma list: 0, -EINVAL or -E2BIG with the cause in f (may be NULL). */
int lp_sock_allow_parse(const char *list, struct lp_sock_allow *a, struct lp_fail *f);
/* Is sa (AF_INET or AF_INET6) in a? A NULL list allows everyone. */
bool lp_sock_allow_match(const struct lp_sock_allow *a, const struct sockaddr *sa);

#endif
