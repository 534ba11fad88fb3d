/* SPDX-License-Identifier: MIT */
/*
 * Records declared once. A record is a C struct plus one table of field
 * descriptors (LP_RECORD below); its wire encoder, its bounds-checked decoder
 * and its JSON members all come from that table, so the two sides of an
 * exchange cannot drift apart and a new field is one line. In the spirit of
 * rdma-core's DECLARE_CMD (libibverbs/kern-abi.h) and fio's option table.
 *
 *	struct pt { uint32_t n; uint64_t v[8]; char name[16]; };
 *	const struct lp_record pt_record = LP_RECORD(struct pt,
 *		LP_REC_U32(struct pt, n, LP_REC_RANGE(1, 8)),
 *		LP_REC_ARRAY(struct pt, v, n, LP_REC_T_U64, uint64_t),
 *		LP_REC_STR(struct pt, name));
 *
 * (Field tables sit between clang-format off/on comments: one field per line.)
 *
 * Wire form: the fields in table order, big-endian, through lp_wbuf/lp_rbuf
 * (common/wire.h); nothing is padded or copied as a struct. Types:
 *   u8 u16 u32 u64 i32 i64 f64  the C member's own size (checked at compile time);
 *                               an enum member is declared as u32 or i32
 *   bool                        one byte, 0 or 1 (decode rejects others)
 *   str                         char[N]: u16 length and the bytes; decode rejects
 *                               N or more bytes and an embedded NUL
 *   bytes                       uint8_t[N]: N raw bytes (JSON: lowercase hex)
 *   nest                        a record inside a record (LP_REC_NEST)
 *   arrays                      C array m[N] of any type above, with a count member
 *                               (an unsigned integer declared earlier in the record):
 *                               count elements travel; decode rejects count > N
 * Integers may carry a range (LP_REC_RANGE): decode rejects values outside it,
 * and encode refuses them (the peer would).
 */
#ifndef LP_RECORD_H
#define LP_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/json.h"
#include "common/wire.h"

enum lp_rec_type {
	LP_REC_T_U8,
	LP_REC_T_U16,
	LP_REC_T_U32,
	LP_REC_T_U64,
	LP_REC_T_I32,
	LP_REC_T_I64,
	LP_REC_T_F64,
	LP_REC_T_BOOL,
	LP_REC_T_STR,
	LP_REC_T_BYTES,
	LP_REC_T_NEST,
};

/* Field flags. */
#define LP_REC_F_NOJSON 1u /* wire only: lp_record_json leaves it out */

struct lp_record;

/* One field: a member of the record's struct. Written by the LP_REC_* macros, not by hand. */
struct lp_rec_field {
	const char *name; /* the C member's name (messages) */
	const char *key;  /* JSON key; NULL = name */
	enum lp_rec_type type;
	size_t off;  /* offsetof the member */
	size_t size; /* bytes of one element (str, bytes, nest: of the whole member) */
	const struct lp_record *rec; /* nest: the nested record */
	size_t max;		     /* arrays: elements of the C array; 0 = not an array */
	size_t count_off;	     /* arrays: the count member (an unsigned integer) */
	size_t count_size;
	bool ranged; /* integers: [lo, hi] is enforced */
	int64_t lo, hi;
	unsigned flags; /* LP_REC_F_* */
};

struct lp_record {
	const char *name; /* the struct's name, for messages */
	size_t size;	  /* sizeof the struct */
	const struct lp_rec_field *fields;
	size_t nfields;
};

/*
 * Encode obj's fields onto w. Returns w->err: 0, -E2BIG when the body is full,
 * -EINVAL when a value is out of its declared range or a count exceeds its array.
 */
int lp_record_encode(const struct lp_record *rec, const void *obj, struct lp_wbuf *w);
/*
 * Decode the next fields from r into obj (zeroed first). Takes any bytes:
 * 0, or -EPROTO (and r->err set) for a short read, a bad bool, an overlong
 * string, a value out of range or a count over its array; never reads past r.
 */
int lp_record_decode(const struct lp_record *rec, void *obj, struct lp_rbuf *r);
/* Decode a whole body: lp_record_decode, and every byte must be consumed. */
int lp_record_decode_body(const struct lp_record *rec, void *obj, const void *body, size_t len);
/*
 * Many records of one kind in one blob (lp-sweep's gathers): a big-endian u32
 * count, then each record as a u16 length and its body. lp_record_pack takes n
 * objects stride bytes apart and returns a malloc'ed blob (NULL: -ENOMEM) of
 * *len_p bytes; an object that does not encode is left out and counted in
 * *skipped_p (may be NULL). lp_record_unpack decodes each record of buf into
 * obj (rec->size bytes) and calls each(obj, arg); a record that does not
 * decode is skipped. It returns the records decoded, or -EPROTO for a blob cut
 * short (the records before the cut were handed over).
 */
uint8_t *lp_record_pack(const struct lp_record *rec, const void *objs, size_t n, size_t stride,
			size_t *len_p, size_t *skipped_p);
int lp_record_unpack(const struct lp_record *rec, const void *buf, size_t len, void *obj,
		     void (*each)(void *obj, void *arg), void *arg);
/* Write obj's fields as members of the current JSON object (arrays: count elements). */
void lp_record_json(const struct lp_record *rec, const void *obj, struct lp_json *j);

struct json_t; /* jansson's */
/*
 * The reverse of lp_record_json, for a jansson object o: each scalar, string
 * and nested member that rec names is stored into obj (null reads as NaN for
 * f64; a string is cut to its member); an absent or mistyped member leaves its
 * field as it was, arrays and bytes are not read. Integers out of a field's
 * declared range are refused. 0, -EINVAL (the first bad field's name in why,
 * may be NULL) or -ENOTSUP (built without jansson).
 */
int lp_record_read_json(const struct lp_record *rec, void *obj, const struct json_t *o, char *why,
			size_t why_len);

/* ---- declaring records -------------------------------------------------------------------- */

#define LP_REC_MEMBER(T, m) (((T *)0)->m)
/* sizeof(ctype), and a compile error when member m of T has another size. */
#define LP_REC_SIZE_AS(T, m, ctype)                                                                \
	(sizeof(ctype) +                                                                           \
	 0 * sizeof(struct {                                                                       \
		 _Static_assert(sizeof(LP_REC_MEMBER(T, m)) == sizeof(ctype),                      \
				#T "." #m ": the member's size does not match its wire type");     \
		 int lp_unused;                                                                    \
	 }))
/* The element count of array member m, and a compile error when m is not an array. */
#define LP_REC_NELEM(T, m)                                                                         \
	(sizeof(LP_REC_MEMBER(T, m)) / sizeof(LP_REC_MEMBER(T, m)[0]) +                            \
	 0 * sizeof(struct {                                                                       \
		 _Static_assert(                                                                   \
			 !__builtin_types_compatible_p(__typeof__(LP_REC_MEMBER(T, m)),            \
						       __typeof__(&LP_REC_MEMBER(T, m)[0])),       \
			 #T "." #m ": not an array");                                              \
		 int lp_unused;                                                                    \
	 }))

/* Extras after a field's member: a range, a JSON key, flags. */
#define LP_REC_RANGE(min, max) .ranged = true, .lo = (min), .hi = (max)
#define LP_REC_KEY(k)	       .key = (k)
#define LP_REC_NOJSON	       .flags = LP_REC_F_NOJSON

#define LP_REC_FIELD(T, m, t, ctype, ...)                                                          \
	{                                                                                          \
		.name = #m, .type = (t), .off = offsetof(T, m),                                    \
		.size = LP_REC_SIZE_AS(T, m, ctype), __VA_ARGS__                                   \
	}
#define LP_REC_U8(T, m, ...)   LP_REC_FIELD(T, m, LP_REC_T_U8, uint8_t, __VA_ARGS__)
#define LP_REC_U16(T, m, ...)  LP_REC_FIELD(T, m, LP_REC_T_U16, uint16_t, __VA_ARGS__)
#define LP_REC_U32(T, m, ...)  LP_REC_FIELD(T, m, LP_REC_T_U32, uint32_t, __VA_ARGS__)
#define LP_REC_U64(T, m, ...)  LP_REC_FIELD(T, m, LP_REC_T_U64, uint64_t, __VA_ARGS__)
#define LP_REC_I32(T, m, ...)  LP_REC_FIELD(T, m, LP_REC_T_I32, int32_t, __VA_ARGS__)
#define LP_REC_I64(T, m, ...)  LP_REC_FIELD(T, m, LP_REC_T_I64, int64_t, __VA_ARGS__)
#define LP_REC_F64(T, m, ...)  LP_REC_FIELD(T, m, LP_REC_T_F64, double, __VA_ARGS__)
#define LP_REC_BOOL(T, m, ...) LP_REC_FIELD(T, m, LP_REC_T_BOOL, bool, __VA_ARGS__)

/* char m[N] as a string; uint8_t m[N] as N raw bytes. */
#define LP_REC_STR(T, m, ...)                                                                      \
	{                                                                                          \
		.name = #m, .type = LP_REC_T_STR, .off = offsetof(T, m),                           \
		.size = LP_REC_NELEM(T, m) * LP_REC_SIZE_AS(T, m[0], char), __VA_ARGS__            \
	}
#define LP_REC_BYTES(T, m, ...)                                                                    \
	{                                                                                          \
		.name = #m, .type = LP_REC_T_BYTES, .off = offsetof(T, m),                         \
		.size = LP_REC_NELEM(T, m) * LP_REC_SIZE_AS(T, m[0], uint8_t), __VA_ARGS__         \
	}
/* A member that is itself a record (record: a struct lp_record object of the member's type). */
#define LP_REC_NEST(T, m, record, ...)                                                             \
	{                                                                                          \
		.name = #m, .type = LP_REC_T_NEST, .off = offsetof(T, m),                          \
		.size = sizeof(LP_REC_MEMBER(T, m)), .rec = &(record), __VA_ARGS__                 \
	}

/* Array member m[N] of elements of type t (C type ctype), count in member `count`. */
#define LP_REC_ARRAY(T, m, count, t, ctype, ...)                                                   \
	{                                                                                          \
		.name = #m, .type = (t), .off = offsetof(T, m),                                    \
		.size = LP_REC_SIZE_AS(T, m[0], ctype), .max = LP_REC_NELEM(T, m),                 \
		.count_off = offsetof(T, count), .count_size = sizeof(LP_REC_MEMBER(T, count)),    \
		__VA_ARGS__                                                                        \
	}
/* Array member m[N] of records. */
#define LP_REC_ARRAY_NEST(T, m, count, record, ...)                                                \
	{                                                                                          \
		.name = #m, .type = LP_REC_T_NEST, .off = offsetof(T, m),                          \
		.size = sizeof(LP_REC_MEMBER(T, m)[0]), .rec = &(record),                          \
		.max = LP_REC_NELEM(T, m), .count_off = offsetof(T, count),                        \
		.count_size = sizeof(LP_REC_MEMBER(T, count)), __VA_ARGS__                         \
	}

/* The initializer of a struct lp_record for struct type T from its field list. */
#define LP_RECORD(T, ...)                                                                          \
	{                                                                                          \
		.name = #T, .size = sizeof(T),                                                     \
		.fields = (const struct lp_rec_field[]){ __VA_ARGS__ },                            \
		.nfields = sizeof((const struct lp_rec_field[]){ __VA_ARGS__ }) /                  \
			   sizeof(struct lp_rec_field)                                             \
	}

#endif
