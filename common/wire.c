// SPDX-License-Identifier: MIT
#include "wire.h"
#include "sock.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

void lp_wbuf_init(struct lp_wbuf *w)
{
	w->len = 0;
	w->err = 0;
}

/* Room for len more bytes? Else the first error sticks (-E2BIG when this one is it). */
static bool room(struct lp_wbuf *w, size_t len)
{
	if (!w->err && w->len + len > sizeof(w->data))
		w->err = -E2BIG;
	return !w->err;
}

static void put(struct lp_wbuf *w, uint64_t v, unsigned bytes)
{
	if (!room(w, bytes))
		return;
	for (unsigned i = 0; i < bytes; i++)
		w->data[w->len + i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
	w->len += bytes;
}

void lp_wbuf_u8(struct lp_wbuf *w, uint8_t v)
{
	put(w, v, 1);
}

void lp_wbuf_u16(struct lp_wbuf *w, uint16_t v)
{
	put(w, v, 2);
}

void lp_wbuf_u32(struct lp_wbuf *w, uint32_t v)
{
	put(w, v, 4);
}

void lp_wbuf_u64(struct lp_wbuf *w, uint64_t v)
{
	put(w, v, 8);
}

void lp_wbuf_f64(struct lp_wbuf *w, double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	put(w, u, 8);
}

void lp_wbuf_bytes(struct lp_wbuf *w, const void *p, size_t len)
{
	if (!room(w, len))
		return;
	memcpy(w->data + w->len, p, len);
	w->len += len;
}

void lp_wbuf_str(struct lp_wbuf *w, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n > UINT16_MAX) {
		w->err = w->err ? w->err : -E2BIG;
		return;
	}
	lp_wbuf_u16(w, (uint16_t)n);
	lp_wbuf_bytes(w, s, n);
}

void lp_rbuf_init(struct lp_rbuf *r, const void *data, size_t len)
{
	*r = (struct lp_rbuf){ .data = data, .len = len };
}

static uint64_t get(struct lp_rbuf *r, unsigned bytes)
{
	uint64_t v = 0;

	if (r->err || r->off + bytes > r->len) {
		r->err = -EPROTO;
		return 0;
	}
	for (unsigned i = 0; i < bytes; i++)
		v = (v << 8) | r->data[r->off + i];
	r->off += bytes;
	return v;
}

uint8_t lp_rbuf_u8(struct lp_rbuf *r)
{
	return (uint8_t)get(r, 1);
}

uint16_t lp_rbuf_u16(struct lp_rbuf *r)
{
	return (uint16_t)get(r, 2);
}

uint32_t lp_rbuf_u32(struct lp_rbuf *r)
{
	return (uint32_t)get(r, 4);
}

uint64_t lp_rbuf_u64(struct lp_rbuf *r)
{
	return get(r, 8);
}

double lp_rbuf_f64(struct lp_rbuf *r)
{
	uint64_t u = get(r, 8);
	double v;

	memcpy(&v, &u, sizeof(v));
	return v;
}

void lp_rbuf_bytes(struct lp_rbuf *r, void *p, size_t len)
{
	if (r->err || r->off + len > r->len) {
		r->err = -EPROTO;
		memset(p, 0, len);
		return;
	}
	memcpy(p, r->data + r->off, len);
	r->off += len;
}

void lp_rbuf_str(struct lp_rbuf *r, char *buf, size_t len)
{
	uint16_t n = lp_rbuf_u16(r);

	buf[0] = '\0';
	if (r->err)
		return;
	if ((size_t)n >= len || r->off + n > r->len || memchr(r->data + r->off, 0, n)) {
		r->err = -EPROTO;
		return;
	}
	memcpy(buf, r->data + r->off, n);
	buf[n] = '\0';
	r->off += n;
	lp_wire_str_clean(buf);
}

void lp_wire_str_clean(char *s)
{
	/* A peer's text reaches terminals and logs: no escape sequence, line break or control
	 * byte, and no byte past ASCII (a lone 0x9b is CSI to some terminals). */
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			*s = '?';
}

int lp_rbuf_done(const struct lp_rbuf *r)
{
	if (r->err)
		return r->err;
	return r->off == r->len ? 0 : -EPROTO;
}

void lp_wire_hdr_encode(uint8_t hdr[LP_WIRE_HDR_LEN], uint16_t type, uint32_t body_len)
{
	struct lp_wbuf w;

	lp_wbuf_init(&w);
	lp_wbuf_u32(&w, LP_WIRE_MAGIC);
	lp_wbuf_u16(&w, LP_WIRE_VERSION);
	lp_wbuf_u16(&w, type);
	lp_wbuf_u32(&w, body_len);
	memcpy(hdr, w.data, LP_WIRE_HDR_LEN);
}

int lp_wire_hdr_decode(const uint8_t hdr[LP_WIRE_HDR_LEN], uint16_t *type_p, uint32_t *len_p,
		       uint16_t *version_p, uint32_t max_body)
{
	struct lp_rbuf r;
	uint32_t magic;

	lp_rbuf_init(&r, hdr, LP_WIRE_HDR_LEN);
	magic = lp_rbuf_u32(&r);
	*version_p = lp_rbuf_u16(&r);
	*type_p = lp_rbuf_u16(&r);
	*len_p = lp_rbuf_u32(&r);
	if (magic != LP_WIRE_MAGIC)
		return -EPROTO;
	if (*version_p != LP_WIRE_VERSION)
		return -EPROTONOSUPPORT;
	if (*len_p > max_body)
		return -EPROTO;
	return 0;
}

int lp_wire_send(int fd, uint16_t type, const struct lp_wbuf *body, int timeout_ms)
{
	uint8_t frame[LP_WIRE_HDR_LEN + LP_WIRE_MAX_BODY];

	if (body->err)
		return body->err;
	lp_wire_hdr_encode(frame, type, (uint32_t)body->len);
	memcpy(frame + LP_WIRE_HDR_LEN, body->data, body->len);
	return lp_sock_send_all(fd, frame, LP_WIRE_HDR_LEN + body->len, timeout_ms);
}

int lp_wire_recv(int fd, uint16_t *type_p, uint8_t *body, size_t *len_p, int timeout_ms)
{
	uint64_t deadline = lp_sock_deadline(timeout_ms); /* the whole frame's, header and body */
	uint8_t hdr[LP_WIRE_HDR_LEN];
	uint16_t version;
	uint32_t len;
	int ret;

	ret = lp_sock_recv_until(fd, hdr, sizeof(hdr), deadline);
	if (ret)
		return ret;
	ret = lp_wire_hdr_decode(hdr, type_p, &len, &version, LP_WIRE_MAX_BODY);
	if (ret == -EPROTONOSUPPORT)
		*type_p = version; /* the one thing worth saying about such a peer */
	if (ret)
		return ret;
	ret = lp_sock_recv_until(fd, body, len, deadline);
	if (ret)
		return ret;
	*len_p = len;
	return 0;
}
