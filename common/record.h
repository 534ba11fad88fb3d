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
 *   enum                        an integer member (u8, u16, u32 or i32 by its size) whose JSON
 *                               form is a name from a NULL-terminated table (LP_REC_ENUM); the
 *                               wire carries the integer, decode and the JSON reader reject a
 *                               value or name outside the table
 *   name                        a `const char *` member pointing into a NULL-terminated table
 *                               (LP_REC_NAME): JSON the string, wire its index (u16)
 *   vec                         `T *m` with a count member: count elements of T (a scalar type
 *                               or a record) in JSON; the JSON reader allocates them (freed by
 *                               lp_record_free). Not on the wire (encode refuses it).
 * Integers may carry a range (LP_REC_RANGE): decode rejects values outside it,
 * and encode refuses them (the peer would).
 *
 * JSON (lp_record_json / lp_record_read_json): an object with one member per
 * field, keyed by its JSON key (LP_REC_KEY, else the C name). NaN is null. The
 * reader is strict: a member of the wrong type (a string where a number
 * belongs, a real where an integer belongs), an integer outside its type or
 * range, an unknown enum name, a string that does not fit, bytes that are not
 * 2N hex digits, an array longer than its member or of another length than its
 * count, an unknown member, or a missing one (unless LP_REC_OPTIONAL) is an
 * error naming the member's path ("cells.latency.p50: a string where a number
 * belongs"); a record may add its own check (LP_RECORD_CHECKED: "client ==
 * server"). Documents are parsed with JSON_REJECT_DUPLICATES (lp_record_load).
 *
 * Documents of several parts (lp-rdma's and lp-gpu's) are records too: a
 * field may be present only when a bool of its struct says so (LP_REC_WHEN:
 * left out of the JSON otherwise, or written as null with LP_REC_NULL; not
 * required by the schema; the reader sets the bool from the member's
 * presence), and a nested record may put its members in the object itself
 * (LP_REC_FLAT: a part shared by several objects, or present as a whole only
 * when its bool is true). Neither applies to columns, CSV or the wire.
 *
 * Columns (lp_record_json_columns / lp_record_read_columns): many records of
 * one kind as one object with one array per field, in row order:
 *
 *	{"n": 3, "rows": [0, 4, 7], "value": [1.5, null, 2], "phase": "sweep",
 *	 "error": {"at": [1], "values": ["timeout"]}, "latency": {"p50": [...], ...}}
 *
 * n is the number of entries per column; rows (present when some of the
 * caller's rows are absent) their row indices, ascending; a column whose
 * entries are all equal is that one value; a LP_REC_SPARSE field lists only
 * the entries that are set (at: indices into the columns); a nested record is
 * an object of columns. lp_record_schema writes a JSON Schema (draft 2020-12)
 * of either form, so the published schema comes from the same tables.
 */
#ifndef LP_RECORD_H
#define LP_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
	LP_REC_T_ENUM,
	LP_REC_T_NAME,
};

/* Field flags. */
#define LP_REC_F_NOJSON	  1u  /* wire only: lp_record_json leaves it out */
#define LP_REC_F_OPTIONAL 2u  /* the JSON reader takes its absence (the field keeps its value) */
#define LP_REC_F_SPARSE	  4u  /* columns: only the set entries are listed (rare data) */
#define LP_REC_F_NULL	  8u  /* the JSON reader takes null (the field keeps its value) */
#define LP_REC_F_MARK	  16u /* a bool set when its record is read from JSON; not in JSON */
#define LP_REC_F_FLAT	  32u /* a nested record whose members sit in this object (LP_REC_FLAT) */

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
	bool vec;		     /* a pointer member with count elements (LP_REC_VEC) */
	size_t count_off;	     /* arrays: the count member (an unsigned integer) */
	size_t count_size;
	bool ranged; /* integers: [lo, hi] is enforced */
	int64_t lo, hi;
	unsigned flags;		  /* LP_REC_F_* */
	const char *const *names; /* enum, name: the NULL-terminated table */
	const char *doc;	  /* the schema's description, or NULL */
	size_t when; /* 1 + offset of a bool of the struct: in JSON only when true (LP_REC_WHEN) */
};

struct lp_fail; /* common/fail.h */

struct lp_record {
	const char *name; /* the struct's name, for messages */
	size_t size;	  /* sizeof the struct */
	const struct lp_rec_field *fields;
	size_t nfields;
	/* after reading JSON: 0, or -EINVAL recorded in f (a self pair, ...); NULL none */
	int (*check)(const void *obj, struct lp_fail *f);
	bool lenient; /* reading JSON: members it does not know are skipped (older documents) */
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
/* Member key (NULL in an array): an array of the n objects at base, stride bytes apart, each
 * as lp_record_json writes it (rows; lp_record_json_columns writes columns). */
void lp_record_json_array(const struct lp_record *rec, const void *base, size_t n, size_t stride,
			  const char *key, struct lp_json *j);

struct json_t; /* jansson's */
/*
 * The reverse of lp_record_json, strict (see the top): obj's fields from the
 * members of the jansson object o (obj keeps its values for absent optional
 * members). 0, -EINVAL (recorded in f: which member and what; f may be NULL),
 * -ENOMEM (a vec) or -ENOTSUP (built without jansson). A vec read before an
 * error stays in obj: lp_record_free it.
 */
int lp_record_read_json(const struct lp_record *rec, void *obj, const struct json_t *o,
			struct lp_fail *f);
/* The same, members named in more (NULL-terminated: read by the caller) left alone. */
int lp_record_read_json_more(const struct lp_record *rec, void *obj, const struct json_t *o,
			     const char *const *more, struct lp_fail *f);
/* Free the vec members of obj (recursively) and clear them. */
void lp_record_free(const struct lp_record *rec, void *obj);
/*
 * A JSON text or file parsed as documents are read here (duplicate keys
 * rejected): NULL with the cause in f ("not JSON: duplicate object key ... (line 3)") on error.
 */
struct json_t *lp_record_loadb(const char *buf, size_t len, struct lp_fail *f);
struct json_t *lp_record_load_file(const char *path, struct lp_fail *f);

/* The fields of rec whose C names are listed (NULL-terminated), as a mask (bit i: fields[i]). */
uint64_t lp_record_mask(const struct lp_record *rec, const char *const *names);

/* Rows for lp_record_json_columns. */
struct lp_rec_rows {
	size_t n; /* rows */
	/* row i: get(arg, i), NULL when there is none; without get: base + i * stride */
	const void *(*get)(void *arg, size_t i);
	void *arg;
	const void *base;
	size_t stride;
	uint64_t skip; /* fields the caller implies (bit i: fields[i]): not written */
};
/* Member key (NULL in an array) holding the rows' columns (see the top). */
void lp_record_json_columns(const struct lp_record *rec, const struct lp_rec_rows *rows,
			    const char *key, struct lp_json *j);
/*
 * The reverse: for each entry of the columns object o, obj is set to *tmpl,
 * its fields (those not in skip) read from the columns, checked, and
 * each(obj, row, arg) called with its row (from "rows", else its index); a
 * non-zero return stops the reading and is returned. The number of entries is
 * bounded by the arrays o holds, and by max_rows (rows >= max_rows are
 * refused). 0, -EINVAL (recorded in f), or each's return.
 */
int lp_record_read_columns(const struct lp_record *rec, uint64_t skip, const struct json_t *o,
			   size_t max_rows, void *obj, const void *tmpl,
			   int (*each)(void *obj, size_t row, void *arg), void *arg,
			   struct lp_fail *f);

/*
 * CSV: the columns of rec's fields (not in skip; a nested record's as "key.sub"; arrays, vecs
 * and sparse fields left out), each preceded by a comma unless it is the line's first.
 * header writes the keys, row the values (NaN and absent: empty; names as names; bools 0/1).
 */
void lp_record_csv_header(const struct lp_record *rec, uint64_t skip, FILE *f, bool first);
void lp_record_csv_row(const struct lp_record *rec, const void *obj, uint64_t skip, FILE *f,
		       bool first);

/*
 * JSON Schema (draft 2020-12) of rec's JSON form, as members of the current
 * object: type, properties, required, additionalProperties. The columns form
 * (skip as lp_rec_rows's): lp_record_schema_columns.
 */
void lp_record_schema(const struct lp_record *rec, struct lp_json *j);
void lp_record_schema_columns(const struct lp_record *rec, uint64_t skip, struct lp_json *j);
/*
 * lp_record_schema in two halves, for an object with more members than the
 * record's: open leaves "properties" open for the caller's members; close
 * ends it and requires the record's members and extra (NULL-terminated),
 * and no other member. close with rec NULL ends an object schema of the
 * caller's own members (extra required).
 */
void lp_record_schema_open(const struct lp_record *rec, struct lp_json *j);
void lp_record_schema_close(const struct lp_record *rec, const char *const *extra,
			    struct lp_json *j);
/*
 * Member key: an array of rec objects (rows, not columns). The _open/_close
 * halves leave the items' "properties" open for the caller's members, as
 * lp_record_schema_open/close.
 */
void lp_record_schema_array(const struct lp_record *rec, const char *key, struct lp_json *j);
void lp_record_schema_array_open(const struct lp_record *rec, const char *key, struct lp_json *j);
void lp_record_schema_array_close(const struct lp_record *rec, const char *const *extra,
				  struct lp_json *j);
/*
 * A document's schema begins (members of its top object): "$schema" (draft
 * 2020-12), "$id" ("urn:linkperf:schema:" and id, the document's "schema"
 * member), "title" and "description".
 */
void lp_record_schema_head(struct lp_json *j, const char *id, const char *title, const char *about);
/* The property key of a schema: an object another module writes, described by about. */
void lp_record_schema_object(struct lp_json *j, const char *key, const char *about);

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

/* Extras after a field's member: a range, a JSON key, flags, a description (one flags extra each). */
#define LP_REC_RANGE(min, max) .ranged = true, .lo = (min), .hi = (max)
#define LP_REC_KEY(k)	       .key = (k)
#define LP_REC_NOJSON	       .flags = LP_REC_F_NOJSON
#define LP_REC_OPTIONAL	       .flags = LP_REC_F_OPTIONAL
#define LP_REC_SPARSE	       .flags = LP_REC_F_SPARSE
#define LP_REC_NULL	       .flags = LP_REC_F_NULL
#define LP_REC_FLAGS(f)	       .flags = (f)
#define LP_REC_DOC(text)       .doc = (text)
/* The field is in the JSON form only when bool member m of T (the record's struct) is true. */
#define LP_REC_WHEN(T, m)                                                                          \
	.when = 1 + offsetof(T, m) +                                                               \
		0 * sizeof(struct {                                                                \
			_Static_assert(__builtin_types_compatible_p(__typeof__(((T *)0)->m),       \
								    bool),                         \
				       #T "." #m ": a field's presence is a bool");                \
			int lp_unused;                                                             \
		})

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

/*
 * An enum-like integer member shown by name: names is a NULL-terminated table
 * (const char *const[]) indexed by the value.
 */
#define LP_REC_ENUM(T, m, table, ...)                                                              \
	{                                                                                          \
		.name = #m, .type = LP_REC_T_ENUM, .off = offsetof(T, m),                          \
		.size = sizeof(LP_REC_MEMBER(T, m)), .names = (table), __VA_ARGS__                 \
	}
/* A `const char *` member pointing into the NULL-terminated table names. */
#define LP_REC_NAME(T, m, table, ...)                                                              \
	{                                                                                          \
		.name = #m, .type = LP_REC_T_NAME, .off = offsetof(T, m),                          \
		.size = LP_REC_SIZE_AS(T, m, const char *), .names = (table), __VA_ARGS__          \
	}
/* `ctype *m` holding `count` elements of type t (LP_REC_T_NEST: pass the record as rec). */
#define LP_REC_VEC(T, m, count, t, ctype, ...)                                                     \
	{                                                                                          \
		.name = #m, .type = (t), .off = offsetof(T, m),                                    \
		.size = LP_REC_SIZE_AS(T, m[0], ctype), .vec = true,                               \
		.count_off = offsetof(T, count), .count_size = sizeof(LP_REC_MEMBER(T, count)),    \
		__VA_ARGS__                                                                        \
	}
#define LP_REC_VEC_NEST(T, m, count, record, ...)                                                  \
	{                                                                                          \
		.name = #m, .type = LP_REC_T_NEST, .off = offsetof(T, m),                          \
		.size = sizeof(*LP_REC_MEMBER(T, m)), .rec = &(record), .vec = true,               \
		.count_off = offsetof(T, count), .count_size = sizeof(LP_REC_MEMBER(T, count)),    \
		__VA_ARGS__                                                                        \
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

/* Record member m whose fields are members of this object (no key of its own; see the top). */
#define LP_REC_FLAT(T, m, record, ...)                                                             \
	{                                                                                          \
		.name = #m, .type = LP_REC_T_NEST, .off = offsetof(T, m),                          \
		.size = sizeof(LP_REC_MEMBER(T, m)), .rec = &(record), .flags = LP_REC_F_FLAT,     \
		__VA_ARGS__                                                                        \
	}

/*
 * A JSON object whose members are more fields of T (record: a struct
 * lp_record of T itself): a grouping in the JSON form only.
 */
#define LP_REC_INLINE(T, k, record, ...)                                                           \
	{                                                                                          \
		.name = (k), .key = (k), .type = LP_REC_T_NEST, .off = 0, .size = sizeof(T),       \
		.rec = &(record), __VA_ARGS__                                                      \
	}

/* The initializer of a struct lp_record for struct type T from its field list. */
#define LP_RECORD(T, ...) LP_RECORD_CHECKED(T, NULL, __VA_ARGS__)
/* The same with a check run after reading JSON: int check(const void *obj, struct lp_fail *f). */
#define LP_RECORD_CHECKED(T, chk, ...)                                                             \
	{                                                                                          \
		.name = #T, .size = sizeof(T),                                                     \
		.fields = (const struct lp_rec_field[]){ __VA_ARGS__ },                            \
		.nfields = sizeof((const struct lp_rec_field[]){ __VA_ARGS__ }) /                  \
			   sizeof(struct lp_rec_field),                                            \
		.check = (chk)                                                                     \
	}
/* A record of an older document's form, read only: members it does not name are skipped. */
#define LP_RECORD_LEGACY(T, ...)                                                                   \
	{                                                                                          \
		.name = #T, .size = sizeof(T),                                                     \
		.fields = (const struct lp_rec_field[]){ __VA_ARGS__ },                            \
		.nfields = sizeof((const struct lp_rec_field[]){ __VA_ARGS__ }) /                  \
			   sizeof(struct lp_rec_field),                                            \
		.lenient = true                                                                    \
	}

#endif
