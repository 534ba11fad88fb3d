// SPDX-License-Identifier: MIT
/* Records declared once: the wire encoder and decoder driven by the field tables (JSON: record_json.c). */
#include "common/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t lp_rec_load_uint(const uint8_t *p, size_t size)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (size) {
	case 1:
		memcpy(&u8, p, 1);
		return u8;
	case 2:
		memcpy(&u16, p, 2);
		return u16;
	case 4:
		memcpy(&u32, p, 4);
		return u32;
	default:
		memcpy(&u64, p, 8);
		return u64;
	}
}

bool lp_rec_is_signed(const struct lp_rec_field *f)
{
	return f->type == LP_REC_T_I32 || f->type == LP_REC_T_I64;
}

uint64_t lp_rec_load_int(const struct lp_rec_field *f, const uint8_t *p)
{
	int32_t i32;
	int64_t i64;

	if (f->type == LP_REC_T_I32) {
		memcpy(&i32, p, 4);
		return (uint64_t)(int64_t)i32;
	}
	if (f->type == LP_REC_T_I64) {
		memcpy(&i64, p, 8);
		return (uint64_t)i64;
	}
	return lp_rec_load_uint(p, f->size);
}

void lp_rec_store_int(const struct lp_rec_field *f, uint8_t *p, uint64_t v)
{
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	switch (f->size) {
	case 1:
		memcpy(p, &u8, 1);
		break;
	case 2:
		memcpy(p, &u16, 2);
		break;
	case 4:
		memcpy(p, &u32, 4);
		break;
	default:
		memcpy(p, &v, 8);
	}
}

size_t lp_rec_nnames(const struct lp_rec_field *f)
{
	size_t n = 0;

	while (f->names && f->names[n])
		n++;
	return n;
}

bool lp_rec_in_range(const struct lp_rec_field *f, uint64_t v)
{
	if (f->type == LP_REC_T_ENUM)
		return v < lp_rec_nnames(f);
	if (!lp_rec_is_signed(f) && f->size < 8 && v >> (8 * f->size))
		return false; /* wider than the member */
	if (f->type == LP_REC_T_I32 && ((int64_t)v < INT32_MIN || (int64_t)v > INT32_MAX))
		return false;
	if (!f->ranged)
		return true;
	if (lp_rec_is_signed(f))
		return (int64_t)v >= f->lo && (int64_t)v <= f->hi;
	return (f->lo <= 0 || v >= (uint64_t)f->lo) && f->hi >= 0 && v <= (uint64_t)f->hi;
}

int lp_rec_name_index(const struct lp_rec_field *f, const uint8_t *p)
{
	const char *s;

	memcpy(&s, p, sizeof(s));
	for (size_t k = 0; s && f->names && f->names[k]; k++)
		if (f->names[k] == s || !strcmp(f->names[k], s))
			return (int)k;
	return -1;
}

/* Wire bytes of an integer type (an enum: its member's size). */
static unsigned wire_bytes(const struct lp_rec_field *f)
{
	static const unsigned bytes[] = {
		[LP_REC_T_U8] = 1,  [LP_REC_T_U16] = 2, [LP_REC_T_U32] = 4,
		[LP_REC_T_U64] = 8, [LP_REC_T_I32] = 4, [LP_REC_T_I64] = 8,
	};

	return f->type == LP_REC_T_ENUM ? (unsigned)f->size : bytes[f->type];
}

int64_t lp_rec_elems(const struct lp_rec_field *f, const uint8_t *obj)
{
	uint64_t n;

	if (!f->max && !f->vec)
		return 1;
	n = lp_rec_load_uint(obj + f->count_off, f->count_size);
	return f->max && n > f->max ? -1 : (int64_t)n;
}

const uint8_t *lp_rec_elem(const struct lp_rec_field *f, const uint8_t *obj, size_t k)
{
	const uint8_t *p = obj + f->off;

	if (f->vec)
		memcpy(&p, obj + f->off, sizeof(p));
	return p + k * f->size;
}

static void put_uint(struct lp_wbuf *w, uint64_t v, unsigned bytes)
{
	switch (bytes) {
	case 1:
		lp_wbuf_u8(w, (uint8_t)v);
		break;
	case 2:
		lp_wbuf_u16(w, (uint16_t)v);
		break;
	case 4:
		lp_wbuf_u32(w, (uint32_t)v);
		break;
	default:
		lp_wbuf_u64(w, v);
	}
}

static uint64_t get_uint(struct lp_rbuf *r, unsigned bytes)
{
	switch (bytes) {
	case 1:
		return lp_rbuf_u8(r);
	case 2:
		return lp_rbuf_u16(r);
	case 4:
		return lp_rbuf_u32(r);
	default:
		return lp_rbuf_u64(r);
	}
}

static void encode_elem(const struct lp_rec_field *f, const uint8_t *p, struct lp_wbuf *w)
{
	double d;
	bool b;

	switch (f->type) {
	case LP_REC_T_F64:
		memcpy(&d, p, sizeof(d));
		lp_wbuf_f64(w, d);
		break;
	case LP_REC_T_BOOL:
		memcpy(&b, p, sizeof(b));
		lp_wbuf_u8(w, b);
		break;
	case LP_REC_T_STR:
		if (!memchr(p, 0, f->size)) { /* unterminated: the peer could not take it */
			w->err = w->err ? w->err : -EINVAL;
			break;
		}
		lp_wbuf_str(w, (const char *)p);
		break;
	case LP_REC_T_BYTES:
		lp_wbuf_bytes(w, p, f->size);
		break;
	case LP_REC_T_NEST:
		lp_record_encode(f->rec, p, w);
		break;
	case LP_REC_T_NAME:
		if (lp_rec_name_index(f, p) < 0) {
			w->err = w->err ? w->err : -EINVAL;
			break;
		}
		lp_wbuf_u16(w, (uint16_t)lp_rec_name_index(f, p));
		break;
	default:
		if (!lp_rec_in_range(f, lp_rec_load_int(f, p))) {
			w->err = w->err ? w->err : -EINVAL;
			break;
		}
		put_uint(w, lp_rec_load_int(f, p), wire_bytes(f));
	}
}

int lp_record_encode(const struct lp_record *rec, const void *obj, struct lp_wbuf *w)
{
	const uint8_t *base = obj;

	for (size_t i = 0; i < rec->nfields; i++) {
		const struct lp_rec_field *f = &rec->fields[i];
		int64_t n = lp_rec_elems(f, base);

		if (n < 0 || f->vec) /* a vec does not travel */
			w->err = w->err ? w->err : -EINVAL;
		for (int64_t k = 0; k < n && !f->vec; k++)
			encode_elem(f, base + f->off + (size_t)k * f->size, w);
	}
	return w->err;
}

static void decode_elem(const struct lp_rec_field *f, uint8_t *p, struct lp_rbuf *r)
{
	uint64_t v;
	double d;
	bool b;

	switch (f->type) {
	case LP_REC_T_F64:
		d = lp_rbuf_f64(r);
		memcpy(p, &d, sizeof(d));
		break;
	case LP_REC_T_BOOL:
		v = lp_rbuf_u8(r);
		if (v > 1)
			r->err = -EPROTO;
		b = v == 1;
		memcpy(p, &b, sizeof(b));
		break;
	case LP_REC_T_STR:
		lp_rbuf_str(r, (char *)p, f->size);
		break;
	case LP_REC_T_BYTES:
		lp_rbuf_bytes(r, p, f->size);
		break;
	case LP_REC_T_NEST:
		if (f->rec->size != f->size)
			r->err = -EPROTO; /* a declaration error: caught by the unit tests */
		else
			lp_record_decode(f->rec, p, r);
		break;
	case LP_REC_T_NAME:
		v = lp_rbuf_u16(r);
		if (!r->err && v >= lp_rec_nnames(f))
			r->err = -EPROTO;
		if (!r->err)
			memcpy(p, &f->names[v], sizeof(f->names[v]));
		break;
	default:
		v = get_uint(r, wire_bytes(f));
		if (f->type == LP_REC_T_I32)
			v = (uint64_t)(int64_t)(int32_t)(uint32_t)v;
		if (!r->err && !lp_rec_in_range(f, v))
			r->err = -EPROTO;
		lp_rec_store_int(f, p, v);
	}
}

int lp_record_decode(const struct lp_record *rec, void *obj, struct lp_rbuf *r)
{
	uint8_t *base = obj;

	memset(obj, 0, rec->size);
	for (size_t i = 0; i < rec->nfields && !r->err; i++) {
		const struct lp_rec_field *f = &rec->fields[i];
		int64_t n = lp_rec_elems(f, base);

		if (n < 0 || f->vec)
			r->err = -EPROTO;
		for (int64_t k = 0; k < n && !r->err; k++)
			decode_elem(f, base + f->off + (size_t)k * f->size, r);
	}
	return r->err ? -EPROTO : 0;
}

int lp_record_decode_body(const struct lp_record *rec, void *obj, const void *body, size_t len)
{
	struct lp_rbuf r;

	lp_rbuf_init(&r, body, len);
	lp_record_decode(rec, obj, &r);
	return lp_rbuf_done(&r);
}

uint8_t *lp_record_pack(const struct lp_record *rec, const void *objs, size_t n, size_t stride,
			size_t *len_p, size_t *skipped_p)
{
	uint8_t *buf = malloc(4 + n * (2 + LP_WIRE_MAX_BODY));
	uint32_t cnt = 0;
	size_t len = 4, skipped = 0;
	struct lp_wbuf w;

	if (!buf)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		lp_wbuf_init(&w);
		if (lp_record_encode(rec, (const uint8_t *)objs + i * stride, &w)) {
			skipped++;
			continue;
		}
		buf[len] = (uint8_t)(w.len >> 8);
		buf[len + 1] = (uint8_t)w.len;
		memcpy(buf + len + 2, w.data, w.len);
		len += 2 + w.len;
		cnt++;
	}
	lp_wbuf_init(&w);
	lp_wbuf_u32(&w, cnt);
	memcpy(buf, w.data, 4);
	*len_p = len;
	if (skipped_p)
		*skipped_p = skipped;
	return buf;
}

int lp_record_unpack(const struct lp_record *rec, const void *buf, size_t len, void *obj,
		     void (*each)(void *obj, void *arg), void *arg)
{
	const uint8_t *p = buf;
	struct lp_rbuf r;
	uint32_t cnt;
	size_t off = 4;
	int got = 0;

	lp_rbuf_init(&r, buf, len);
	cnt = lp_rbuf_u32(&r);
	if (r.err)
		return -EPROTO;
	for (uint32_t k = 0; k < cnt; k++) {
		size_t rl;

		if (off + 2 > len)
			return -EPROTO;
		rl = (size_t)p[off] << 8 | p[off + 1];
		if (off + 2 + rl > len)
			return -EPROTO;
		if (!lp_record_decode_body(rec, obj, p + off + 2, rl)) {
			each(obj, arg);
			got++;
		}
		off += 2 + rl;
	}
	return got;
}
