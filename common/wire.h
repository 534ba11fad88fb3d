/* SPDX-License-Identifier: MIT */
/*
 * The versioned, explicitly serialized exchange between two linkperf peers.
 * Structs are never copied onto the wire: each field is written in network
 * byte order by the lp_wbuf_* calls and read back, bounds-checked, by the
 * lp_rbuf_* calls. A frame is a 12-byte header (magic, version, type, body
 * length) and a body of at most LP_WIRE_MAX_BODY bytes.
 */
#ifndef LP_WIRE_H
#define LP_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define LP_WIRE_MAGIC	 0x4c50574bu /* "LPWK" */
#define LP_WIRE_VERSION	 6
#define LP_WIRE_HDR_LEN	 12
#define LP_WIRE_MAX_BODY 4096

/* A growing write buffer with fixed capacity (the frame body). */
struct lp_wbuf {
	uint8_t data[LP_WIRE_MAX_BODY];
	size_t len;
	int err; /* the first error (-E2BIG: a write did not fit); later writes are dropped */
};

void lp_wbuf_init(struct lp_wbuf *w);
void lp_wbuf_u8(struct lp_wbuf *w, uint8_t v);
void lp_wbuf_u16(struct lp_wbuf *w, uint16_t v);
void lp_wbuf_u32(struct lp_wbuf *w, uint32_t v);
void lp_wbuf_u64(struct lp_wbuf *w, uint64_t v);
void lp_wbuf_f64(struct lp_wbuf *w, double v);
void lp_wbuf_bytes(struct lp_wbuf *w, const void *p, size_t len);
/* A string as u16 length + bytes (no NUL). */
void lp_wbuf_str(struct lp_wbuf *w, const char *s);

/* A read cursor over a received body. */
struct lp_rbuf {
	const uint8_t *data;
	size_t len, off;
	int err; /* -EPROTO once a read ran past the end; later reads give 0 */
};

void lp_rbuf_init(struct lp_rbuf *r, const void *data, size_t len);
uint8_t lp_rbuf_u8(struct lp_rbuf *r);
uint16_t lp_rbuf_u16(struct lp_rbuf *r);
uint32_t lp_rbuf_u32(struct lp_rbuf *r);
uint64_t lp_rbuf_u64(struct lp_rbuf *r);
double lp_rbuf_f64(struct lp_rbuf *r);
void lp_rbuf_bytes(struct lp_rbuf *r, void *p, size_t len);
/*
 * Copies a string into buf (NUL-terminated); -EPROTO if it does not fit or holds
 * a NUL. It comes from a peer: every byte outside printable ASCII (control bytes,
 * ESC, line breaks, bytes over 0x7e) becomes '?' (lp_wire_str_clean), so it can
 * be printed and logged as it is.
 */
void lp_rbuf_str(struct lp_rbuf *r, char *buf, size_t len);
/* Replace every byte of s outside printable ASCII (0x20..0x7e) with '?'. */
void lp_wire_str_clean(char *s);
/* 0 if every byte was consumed and no read failed, else -EPROTO. */
int lp_rbuf_done(const struct lp_rbuf *r);

/* Header encode/decode (pure; used by the socket calls below and the tests). */
void lp_wire_hdr_encode(uint8_t hdr[LP_WIRE_HDR_LEN], uint16_t type, uint32_t body_len);
/* -EPROTO on bad magic or a body over max_body, -EPROTONOSUPPORT on another version. */
int lp_wire_hdr_decode(const uint8_t hdr[LP_WIRE_HDR_LEN], uint16_t *type_p, uint32_t *len_p,
		       uint16_t *version_p, uint32_t max_body);

/* Send one frame, all of it within timeout_ms. */
int lp_wire_send(int fd, uint16_t type, const struct lp_wbuf *body, int timeout_ms);
/*
 * Receive one frame into body (capacity LP_WIRE_MAX_BODY). The whole frame,
 * header and body, must arrive within timeout_ms of the call: the bound is the
 * frame's, not each read's, so a peer sending one byte at a time is cut off at
 * timeout_ms like a silent one. Errors: -ETIMEDOUT,
 * -ECONNRESET, -EPROTO (garbage), -EPROTONOSUPPORT (another version: *type_p
 * then holds the peer's version, for the message that names it).
 */
int lp_wire_recv(int fd, uint16_t *type_p, uint8_t *body, size_t *len_p, int timeout_ms);

#endif
