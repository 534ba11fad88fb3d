/* SPDX-License-Identifier: MIT */
/*
 * TCP helpers for the out-of-band exchange. Every call that waits takes a
 * timeout in milliseconds (never infinite), and a peer that closes the
 * connection is reported as -ECONNRESET, a timeout as -ETIMEDOUT.
 */
#ifndef LP_SOCK_H
#define LP_SOCK_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* Listen on bind_addr (NULL = any, IPv6 dual-stack when available). */
int lp_sock_listen(const char *bind_addr, uint16_t port, int *fd_p);

/*
 * Wait up to timeout_ms for a client; also returns -EINTR early once *stop is
 * set. The peer's numeric address goes to peer (may be NULL).
 */
int lp_sock_accept(int lfd, int timeout_ms, const volatile sig_atomic_t *stop, int *fd_p,
		   char *peer, size_t peer_len);

/* Connect to host:port (name or address), each attempt bounded by timeout_ms. */
int lp_sock_connect(const char *host, uint16_t port, int timeout_ms, int *fd_p);

/* Move exactly len bytes, or fail; timeout_ms bounds the wait for each chunk. */
int lp_sock_send_all(int fd, const void *buf, size_t len, int timeout_ms);
int lp_sock_recv_all(int fd, void *buf, size_t len, int timeout_ms);

/* Numeric local address of a connected socket (for GID address-family matching). */
int lp_sock_local_addr(int fd, char *buf, size_t len, int *family_p);
/* Numeric peer address of a connected socket. */
int lp_sock_peer_addr(int fd, char *buf, size_t len, int *family_p);

#endif
