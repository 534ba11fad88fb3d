// SPDX-License-Identifier: MIT
/* Unit tests for common/record: one declaration gives the encoder, the decoder and JSON names. */
#include "lp_test.h"

#include <errno.h>

#include "common/record.h"
#include "common/stats.h"

#include <jansson.h>
#include <math.h>

enum colour { RED, GREEN, BLUE };

struct t_inner {
	uint16_t a;
	char s[8];
};

/* clang-format off */
static const struct lp_record t_inner_record = LP_RECORD(struct t_inner,
	LP_REC_U16(struct t_inner, a),
	LP_REC_STR(struct t_inner, s));
/* clang-format on */

struct t_rec {
	uint8_t u8;
	uint16_t u16;
	uint32_t u32; /* 1..100 */
	uint64_t u64;
	int32_t i32;
	int64_t i64;
	double f64;
	bool b;
	char name[8];
	uint8_t raw[4];
	enum colour colour; /* an enum as u32, RED..BLUE */
	int32_t temp;	    /* -50..50 */
	struct t_inner inner;
	uint32_t nitems;
	struct t_inner items[3];
	uint8_t nv;
	uint64_t v[4];
	uint32_t secret; /* on the wire, not in JSON */
};

/* clang-format off */
static const struct lp_record t_record = LP_RECORD(struct t_rec,
	LP_REC_U8(struct t_rec, u8),
	LP_REC_U16(struct t_rec, u16),
	LP_REC_U32(struct t_rec, u32, LP_REC_RANGE(1, 100)),
	LP_REC_U64(struct t_rec, u64),
	LP_REC_I32(struct t_rec, i32),
	LP_REC_I64(struct t_rec, i64),
	LP_REC_F64(struct t_rec, f64, LP_REC_KEY("ratio")),
	LP_REC_BOOL(struct t_rec, b),
	LP_REC_STR(struct t_rec, name),
	LP_REC_BYTES(struct t_rec, raw),
	LP_REC_U32(struct t_rec, colour, LP_REC_RANGE(RED, BLUE)),
	LP_REC_I32(struct t_rec, temp, LP_REC_RANGE(-50, 50)),
	LP_REC_NEST(struct t_rec, inner, t_inner_record),
	LP_REC_U32(struct t_rec, nitems),
	LP_REC_ARRAY_NEST(struct t_rec, items, nitems, t_inner_record),
	LP_REC_U8(struct t_rec, nv),
	LP_REC_ARRAY(struct t_rec, v, nv, LP_REC_T_U64, uint64_t),
	LP_REC_U32(struct t_rec, secret, LP_REC_NOJSON));
/* clang-format on */

static void sample(struct t_rec *t)
{
	memset(t, 0, sizeof(*t)); /* padding too, so that memcmp compares values */
	t->u8 = 0xab;
	t->u16 = 0x1234;
	t->u32 = 42;
	t->u64 = 0x0102030405060708ull;
	t->i32 = -7;
	t->i64 = -(1ll << 40);
	t->f64 = -2.5;
	t->b = true;
	snprintf(t->name, sizeof(t->name), "rxe0");
	memcpy(t->raw, "\x01\x02\xfe\xff", 4);
	t->colour = BLUE;
	t->temp = -50;
	t->inner.a = 9;
	snprintf(t->inner.s, sizeof(t->inner.s), "in");
	t->nitems = 2;
	t->items[0].a = 1;
	snprintf(t->items[0].s, sizeof(t->items[0].s), "one");
	t->items[1].a = 2;
	snprintf(t->items[1].s, sizeof(t->items[1].s), "seven77"); /* the longest that fits */
	t->nv = 4;
	for (int k = 0; k < 4; k++)
		t->v[k] = (uint64_t)k * 1000;
	t->secret = 0xc0ffee;
}

static void encode(const struct t_rec *t, struct lp_wbuf *w)
{
	lp_wbuf_init(w);
	assert_int_equal(lp_record_encode(&t_record, t, w), 0);
}

static void test_record_roundtrip(void **state)
{
	struct t_rec in, out;
	struct lp_wbuf w;

	(void)state;
	sample(&in);
	encode(&in, &w);
	memset(&out, 0x55, sizeof(out));
	assert_int_equal(lp_record_decode_body(&t_record, &out, w.data, w.len), 0);
	assert_memory_equal(&in, &out, sizeof(in));
	/* Big-endian, in table order: u8, then u16. */
	assert_int_equal(w.data[0], 0xab);
	assert_int_equal(w.data[1], 0x12);
	assert_int_equal(w.data[2], 0x34);
	/* Only `count` elements travel: an empty array costs nothing. */
	in.nitems = 0;
	in.nv = 0;
	memset(in.items, 0, sizeof(in.items));
	memset(in.v, 0, sizeof(in.v));
	{
		struct lp_wbuf w2;

		encode(&in, &w2);
		assert_int_equal(w2.len, w.len - 2 * (2 + 2) - 3 - 7 - 4 * 8);
		assert_int_equal(lp_record_decode_body(&t_record, &out, w2.data, w2.len), 0);
		assert_memory_equal(&in, &out, sizeof(in));
	}
}

/* Every strict prefix of a valid body fails, and so does one byte more. */
static void test_record_truncated(void **state)
{
	struct t_rec in, out;
	struct lp_wbuf w;

	(void)state;
	sample(&in);
	encode(&in, &w);
	for (size_t len = 0; len < w.len; len++)
		assert_int_equal(lp_record_decode_body(&t_record, &out, w.data, len), -EPROTO);
	lp_wbuf_u8(&w, 0);
	assert_int_equal(lp_record_decode_body(&t_record, &out, w.data, w.len), -EPROTO);
}

/* The same wire layout as t_inner, with room for a longer string. */
struct t_wide {
	uint16_t a;
	char s[32];
};

/* clang-format off */
static const struct lp_record t_wide_record = LP_RECORD(struct t_wide,
	LP_REC_U16(struct t_wide, a),
	LP_REC_STR(struct t_wide, s));
/* clang-format on */

static void test_record_strings(void **state)
{
	struct t_wide wide = { .a = 1, .s = "seven77" };
	struct t_inner narrow;
	struct lp_wbuf w;
	struct lp_rbuf r;

	(void)state;
	lp_wbuf_init(&w);
	assert_int_equal(lp_record_encode(&t_wide_record, &wide, &w), 0);
	assert_int_equal(lp_record_decode_body(&t_inner_record, &narrow, w.data, w.len), 0);
	assert_string_equal(narrow.s, "seven77");
	/* 8 bytes do not fit char[8] with its NUL. */
	snprintf(wide.s, sizeof(wide.s), "eight888");
	lp_wbuf_init(&w);
	assert_int_equal(lp_record_encode(&t_wide_record, &wide, &w), 0);
	assert_int_equal(lp_record_decode_body(&t_inner_record, &narrow, w.data, w.len), -EPROTO);
	/* An embedded NUL is refused. */
	lp_wbuf_init(&w);
	lp_wbuf_u16(&w, 1);
	lp_wbuf_u16(&w, 3);
	lp_wbuf_bytes(&w, "a\0b", 3);
	assert_int_equal(lp_record_decode_body(&t_inner_record, &narrow, w.data, w.len), -EPROTO);
	/* The decoder stops at the first failure and leaves the error sticky. */
	lp_rbuf_init(&r, w.data, w.len);
	assert_int_equal(lp_record_decode(&t_inner_record, &narrow, &r), -EPROTO);
	assert_int_equal(r.err, -EPROTO);
	/* An unterminated member cannot be encoded. */
	memset(narrow.s, 'x', sizeof(narrow.s));
	lp_wbuf_init(&w);
	assert_int_equal(lp_record_encode(&t_inner_record, &narrow, &w), -EINVAL);
}

/* Re-encode in with one field changed by edit, and expect decode to give want. */
static void decode_edited(void (*edit)(struct t_rec *t), int want_enc, int want_dec)
{
	struct t_rec in, out;
	struct lp_wbuf w;

	sample(&in);
	edit(&in);
	lp_wbuf_init(&w);
	assert_int_equal(lp_record_encode(&t_record, &in, &w), want_enc);
	if (!want_enc)
		assert_int_equal(lp_record_decode_body(&t_record, &out, w.data, w.len), want_dec);
}

static void count_over(struct t_rec *t)
{
	t->nitems = 4;
}

static void u32_low(struct t_rec *t)
{
	t->u32 = 0;
}

static void u32_high(struct t_rec *t)
{
	t->u32 = 101;
}

static void enum_high(struct t_rec *t)
{
	t->colour = 3;
}

static void temp_low(struct t_rec *t)
{
	t->temp = -51;
}

static void temp_high(struct t_rec *t)
{
	t->temp = 51;
}

static void edges(struct t_rec *t)
{
	t->u32 = 100;
	t->temp = 50;
	t->colour = RED;
	t->nitems = 3;
}

/* The encoder refuses what the decoder would (count over its array, values out of range). */
static void test_record_bounds_encode(void **state)
{
	(void)state;
	decode_edited(count_over, -EINVAL, 0);
	decode_edited(u32_low, -EINVAL, 0);
	decode_edited(u32_high, -EINVAL, 0);
	decode_edited(enum_high, -EINVAL, 0);
	decode_edited(temp_low, -EINVAL, 0);
	decode_edited(temp_high, -EINVAL, 0);
	decode_edited(edges, 0, 0);
}

/* Offset of field `name` in t_record's wire form for sample(). */
static size_t wire_off(const char *name)
{
	struct t_rec t;
	struct lp_wbuf w;

	sample(&t);
	lp_wbuf_init(&w);
	for (size_t i = 0; i < t_record.nfields; i++) {
		struct lp_record one = { "one", sizeof(t), &t_record.fields[i], 1, NULL, false };

		if (!strcmp(t_record.fields[i].name, name))
			return w.len;
		lp_record_encode(&one, &t, &w);
	}
	fail_msg("no field %s", name);
	return 0;
}

/* Patch the wire bytes of a sample at field `name`, and decode. */
static int decode_patched(const char *name, const void *bytes, size_t n)
{
	struct t_rec t;
	struct lp_wbuf w;

	sample(&t);
	encode(&t, &w);
	memcpy(w.data + wire_off(name), bytes, n);
	return lp_record_decode_body(&t_record, &t, w.data, w.len);
}

/* The decoder takes any bytes: counts, ranges and bools from a peer are checked. */
static void test_record_bounds_decode(void **state)
{
	(void)state;
	assert_int_equal(decode_patched("u32", "\0\0\0\x64", 4), 0); /* 100 */
	assert_int_equal(decode_patched("u32", "\0\0\0\x65", 4), -EPROTO);
	assert_int_equal(decode_patched("u32", "\0\0\0\0", 4), -EPROTO);
	assert_int_equal(decode_patched("colour", "\0\0\0\3", 4), -EPROTO);
	assert_int_equal(decode_patched("temp", "\xff\xff\xff\xce", 4), 0); /* -50 */
	assert_int_equal(decode_patched("temp", "\xff\xff\xff\xcd", 4), -EPROTO);
	assert_int_equal(decode_patched("temp", "\x80\0\0\0", 4), -EPROTO);
	assert_int_equal(decode_patched("b", "\2", 1), -EPROTO);
	assert_int_equal(decode_patched("nitems", "\0\0\0\4", 4), -EPROTO); /* over items[3] */
	assert_int_equal(decode_patched("nitems", "\xff\xff\xff\xff", 4), -EPROTO);
	assert_int_equal(decode_patched("nv", "\5", 1), -EPROTO); /* over v[4] */
	/* A well-formed count that disagrees with the bytes that follow is a length error. */
	assert_int_equal(decode_patched("nv", "\3", 1), -EPROTO);
	assert_int_equal(decode_patched("i32", "\xff\xff\xff\xf9", 4), 0);
	assert_int_equal(decode_patched("i32", "\x7f\xff\xff\xff", 4), 0);
	assert_int_equal(decode_patched("i32", "\x80\0\0\0", 4), 0);
}

static void emit(struct lp_json *j, const void *arg)
{
	lp_record_json(&t_record, arg, j);
}

static void test_record_json(void **state)
{
	struct t_rec t;
	char *s;

	(void)state;
	sample(&t);
	s = lp_test_json_capture(emit, &t);
	assert_non_null(strstr(s, "\"u8\": 171"));
	assert_non_null(strstr(s, "\"i64\": -1099511627776"));
	assert_non_null(strstr(s, "\"ratio\": -2.5")); /* LP_REC_KEY */
	assert_null(strstr(s, "\"f64\""));
	assert_non_null(strstr(s, "\"b\": true"));
	assert_non_null(strstr(s, "\"name\": \"rxe0\""));
	assert_non_null(strstr(s, "\"raw\": \"0102feff\""));
	assert_non_null(strstr(s, "\"colour\": 2"));
	assert_non_null(strstr(s, "\"inner\": {"));
	assert_non_null(strstr(s, "\"s\": \"seven77\""));
	assert_non_null(strstr(s, "\"items\": ["));
	assert_null(strstr(s, "\"secret\"")); /* LP_REC_NOJSON */
	assert_null(strstr(s, "12648430"));
	free(s);
	/* Arrays show count elements. */
	t.nv = 1;
	s = lp_test_json_capture(emit, &t);
	assert_non_null(strstr(s, "\"v\": [0]"));
	free(s);
}

static void emit_summary(struct lp_json *j, const void *arg)
{
	lp_record_json(&lp_summary_record, arg, j);
}

/* The latency summary keeps the JSON names results have always had. */
static void test_record_summary(void **state)
{
	struct lp_summary a = { .n = 3,
				.min = 1,
				.max = 3,
				.mean = 2,
				.stdev = 1,
				.p50 = 2,
				.p90 = 3,
				.p99 = 3,
				.p999 = 3,
				.p9999 = 3,
				.exact = true };
	struct lp_summary b;
	struct lp_wbuf w;
	char *s;

	(void)state;
	s = lp_test_json_capture(emit_summary, &a);
	assert_non_null(strstr(s,
			       "\"samples\": 3,\n  \"min\": 1,\n  \"p50\": 2,\n  \"p90\": 3,\n"
			       "  \"p99\": 3,\n  \"p99_9\": 3,\n  \"p99_99\": 3,\n  \"max\": 3,\n"
			       "  \"mean\": 2,\n  \"stdev\": 1,\n  \"percentiles_exact\": true"));
	free(s);
	lp_wbuf_init(&w);
	assert_int_equal(lp_record_encode(&lp_summary_record, &a, &w), 0);
	assert_int_equal(w.len, 8 * 10 + 1);
	assert_int_equal(lp_record_decode_body(&lp_summary_record, &b, w.data, w.len), 0);
	assert_true(b.n == 3 && b.p9999 == 3 && b.exact);
}

/* ---- the JSON side: the strict reader, columns, the schema, UTF-8, numbers ---- */

static const char *const t_names[] = { "red", "green", "blue", NULL };

struct t_js {
	int32_t i; /* the check refuses 99 */
	uint8_t e; /* t_names */
	double d;
	char s[8];
	bool b;
	uint8_t raw[2];
	uint32_t n;
	int32_t v[3];
	uint32_t nvec;
	double *vec;
	struct t_inner in;
	char note[16]; /* sparse in columns */
};

static int t_js_check(const void *obj, struct lp_fail *f)
{
	if (((const struct t_js *)obj)->i != 99)
		return 0;
	return lp_fail_set(f, -EINVAL, "i is 99");
}

/* clang-format off */
static const struct lp_record t_js_record = LP_RECORD_CHECKED(struct t_js, t_js_check,
	LP_REC_I32(struct t_js, i, LP_REC_RANGE(-100, 100)),
	LP_REC_ENUM(struct t_js, e, t_names),
	LP_REC_F64(struct t_js, d),
	LP_REC_STR(struct t_js, s),
	LP_REC_BOOL(struct t_js, b),
	LP_REC_BYTES(struct t_js, raw),
	LP_REC_U32(struct t_js, n, LP_REC_NOJSON),
	LP_REC_ARRAY(struct t_js, v, n, LP_REC_T_I32, int32_t),
	LP_REC_U32(struct t_js, nvec, LP_REC_NOJSON),
	LP_REC_VEC(struct t_js, vec, nvec, LP_REC_T_F64, double),
	LP_REC_NEST(struct t_js, in, t_inner_record),
	LP_REC_STR(struct t_js, note, LP_REC_SPARSE));
/* clang-format on */

static void t_js_sample(struct t_js *t, int k)
{
	static double vec[2] = { 0.5, NAN };

	memset(t, 0, sizeof(*t));
	t->i = -7 + k;
	t->e = 2;
	t->d = k == 1 ? NAN : 1.25;
	snprintf(t->s, sizeof(t->s), "s%d", k);
	t->b = k & 1;
	t->raw[0] = 0xab;
	t->n = 2;
	t->v[0] = k;
	t->v[1] = -1;
	t->nvec = 2;
	t->vec = vec;
	t->in.a = 3;
	snprintf(t->in.s, sizeof(t->in.s), "in");
	if (k == 2)
		snprintf(t->note, sizeof(t->note), "rare");
}

static void emit_js(struct lp_json *j, const void *arg)
{
	lp_record_json(&t_js_record, arg, j);
}

/* text with "from" replaced by "to" (once), parsed and read: the reader's return, why in why. */
static int read_edited(const char *text, const char *from, const char *to, char *why, size_t len)
{
	char buf[4096];
	const char *at = strstr(text, from);
	struct t_js t = { 0 };
	struct lp_fail f = { 0 };
	json_t *o;
	int rc;

	assert_non_null(at);
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	o = lp_record_loadb(buf, strlen(buf), &f);
	snprintf(why, len, "%s", lp_fail_msg(&f));
	if (!o)
		return -EBADMSG;
	rc = lp_record_read_json(&t_js_record, &t, o, &f);
	snprintf(why, len, "%s", lp_fail_msg(&f));
	lp_record_free(&t_js_record, &t);
	json_decref(o);
	return rc;
}

/* Every field type reads back; each kind of fault is refused with the member's path. */
static void test_record_read_strict(void **state)
{
	struct t_js in, out = { 0 };
	char *text, why[256];
	json_t *o;

	(void)state;
	t_js_sample(&in, 0);
	text = lp_test_json_capture(emit_js, &in);
	o = lp_record_loadb(text, strlen(text), NULL);
	assert_non_null(o);
	assert_int_equal(lp_record_read_json(&t_js_record, &out, o, NULL), 0);
	json_decref(o);
	assert_true(out.i == -7 && out.e == 2 && out.d == 1.25 && !strcmp(out.s, "s0") && !out.b);
	assert_true(out.raw[0] == 0xab && out.n == 2 && out.v[0] == 0 && out.v[1] == -1);
	assert_true(out.nvec == 2 && out.vec[0] == 0.5 && isnan(out.vec[1]));
	assert_true(out.in.a == 3 && !strcmp(out.in.s, "in"));
	lp_record_free(&t_js_record, &out);
	assert_null(out.vec);
	assert_int_equal(read_edited(text, "\"i\": -7", "\"i\": 5", why, sizeof(why)), 0);
	assert_int_equal(read_edited(text, "\"i\": -7", "\"i\": \"5\"", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "i: a string where an integer belongs");
	assert_int_equal(read_edited(text, "\"i\": -7", "\"i\": 5.0", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "i: a real where an integer belongs");
	assert_int_equal(read_edited(text, "\"i\": -7", "\"i\": 101", why, sizeof(why)), -EINVAL);
	assert_int_equal(read_edited(text, "\"i\": -7", "\"i\": 99", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "i is 99");
	assert_int_equal(read_edited(text, "\"blue\"", "\"purple\"", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "e: unknown name \"purple\"");
	assert_int_equal(read_edited(text, "\"d\": 1.25", "\"d\": true", why, sizeof(why)),
			 -EINVAL);
	assert_int_equal(read_edited(text, "\"s0\"", "\"too long!\"", why, sizeof(why)), -EINVAL);
	assert_int_equal(read_edited(text, "\"ab00\"", "\"ab0\"", why, sizeof(why)), -EINVAL);
	assert_int_equal(read_edited(text, "\"ab00\"", "\"zz00\"", why, sizeof(why)), -EINVAL);
	assert_int_equal(read_edited(text, "[0,-1]", "[0,-1,2,3]", why, sizeof(why)), -EINVAL);
	assert_int_equal(read_edited(text, "\"a\": 3", "\"a\": 3, \"b\": 1", why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "in: unknown member \"b\"");
	assert_int_equal(read_edited(text, "\"a\": 3,", "", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "in.a: missing");
	assert_int_equal(read_edited(text, "[0.5,null]", "[0.5,\"x\"]", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "vec[1]: a string where a number belongs");
	assert_int_equal(read_edited(text, "\"i\": -7", "\"i\": -7, \"i\": -7", why, sizeof(why)),
			 -EBADMSG); /* duplicate keys: refused by the parser */
	free(text);
}

static int collect(void *obj, size_t row, void *arg)
{
	struct t_js *got = arg;

	got[row] = *(struct t_js *)obj;
	got[row].vec = NULL;
	return 0;
}

/* rr's rows as a compact columns object (a malloc'ed string). */
static char *columns_of(const struct lp_rec_rows *rr)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct lp_json j;

	assert_non_null(f);
	lp_json_init(&j, f, false);
	lp_record_json_columns(&t_js_record, rr, NULL, &j);
	assert_int_equal(lp_json_finish(&j), 0);
	fclose(f);
	return buf;
}

static int read_columns(const char *text, uint64_t skip, size_t max, struct t_js *got, char *why)
{
	struct t_js tmpl = { 0 }, scratch;
	struct lp_fail f = { 0 };
	json_t *o = lp_record_loadb(text, strlen(text), &f);
	int rc;

	assert_non_null(o);
	memset(got, 0, 8 * sizeof(*got));
	rc = lp_record_read_columns(&t_js_record, skip, o, max, &scratch, &tmpl, collect, got, &f);
	snprintf(why, 256, "%s", lp_fail_msg(&f));
	json_decref(o);
	return rc;
}

/* Row 1 absent (NULL), the others as t_js_sample makes them. */
static const void *every_but_one(void *arg, size_t i)
{
	return i == 1 ? NULL : (const struct t_js *)arg + i;
}

/* Rows handed out one at a time in one scratch record, as a packed store does: each row is
 * asked for once, in order, and not read after the next. */
struct one_at_a_time {
	const struct t_js *rows;
	struct t_js scratch;
	size_t next;
};

static const void *one_row(void *arg, size_t i)
{
	struct one_at_a_time *o = arg;

	assert_int_equal(i, o->next++);
	memset(&o->scratch, 0x5a, sizeof(o->scratch)); /* the last row's bytes are gone */
	o->scratch = o->rows[i];
	return &o->scratch;
}

/* Rows as columns and back: a column all equal, a sparse one, a nested record, absent rows. */
static void test_record_columns(void **state)
{
	struct t_js rows[4], got[8];
	struct lp_rec_rows rr = { .n = 4, .base = rows, .stride = sizeof(rows[0]) };
	char *text, why[256];

	(void)state;
	for (int k = 0; k < 4; k++)
		t_js_sample(&rows[k], k);
	rr.skip = lp_record_mask(&t_js_record, (const char *const[]){ "vec", "nvec", NULL });
	text = columns_of(&rr);
	assert_non_null(strstr(text, "{\"n\":4,\"i\":[-7,-6,-5,-4],\"e\":\"blue\","));
	assert_non_null(strstr(text, "\"d\":[1.25,null,1.25,1.25]"));
	assert_non_null(strstr(text, "\"v\":[[0,-1],[1,-1],[2,-1],[3,-1]]"));
	assert_non_null(strstr(text, "\"in\":{\"a\":3,\"s\":\"in\"}"));
	assert_non_null(strstr(text, "\"note\":{\"at\":[2],\"values\":[\"rare\"]}"));
	assert_int_equal(read_columns(text, rr.skip, 4, got, why), 0);
	for (int k = 0; k < 4; k++) {
		assert_true(got[k].i == rows[k].i && got[k].e == 2 && got[k].in.a == 3);
		assert_true(got[k].v[0] == k && got[k].n == 2);
		assert_true(k == 1 ? isnan(got[k].d) : got[k].d == 1.25);
		assert_string_equal(got[k].note, k == 2 ? "rare" : "");
	}
	/* more rows than the caller has room for */
	assert_int_equal(read_columns(text, rr.skip, 3, got, why), -EINVAL);
	/* the same text from rows that exist one at a time (a column equal up to its last row) */
	rows[3].in.a = 4;
	{
		struct one_at_a_time o = { .rows = rows };
		char *t2, *t3;

		t2 = columns_of(&rr);
		t3 = columns_of(&(struct lp_rec_rows){
			.n = 4, .get = one_row, .arg = &o, .skip = rr.skip });
		assert_string_equal(t2, t3);
		assert_non_null(strstr(t3, "\"in\":{\"a\":[3,3,3,4],"));
		assert_int_equal(o.next, 4);
		free(t2);
		free(t3);
	}
	rows[3].in.a = 3;
	free(text);
	rr.get = every_but_one;
	rr.arg = rows;
	text = columns_of(&rr);
	assert_non_null(strstr(text, "{\"n\":3,\"rows\":[0,2,3],\"i\":[-7,-5,-4],\"e\":\"blue\","));
	assert_non_null(strstr(text, "\"d\":1.25,")); /* the absent row's NaN is not there */
	assert_int_equal(read_columns(text, rr.skip, 4, got, why), 0);
	assert_true(got[2].i == -5 && got[3].i == -4 && got[1].i == 0);
	assert_string_equal(got[2].note, "rare");
	free(text);
	/* a column of the wrong length, rows not ascending, a sparse index past n: refused */
	assert_int_equal(
		read_columns("{\"n\":2,\"i\":[1],\"e\":\"red\",\"d\":1,\"s\":\"\",\"b\":true,"
			     "\"raw\":\"0000\",\"v\":[],\"in\":{\"a\":1,\"s\":\"\"},"
			     "\"note\":{\"at\":[],\"values\":[]}}",
			     rr.skip, 8, got, why),
		-EINVAL);
	assert_string_equal(why, "i: 1 entries, want 2");
	assert_int_equal(
		read_columns("{\"n\":2,\"rows\":[3,1],\"i\":1,\"e\":\"red\",\"d\":1,"
			     "\"s\":\"\",\"b\":true,\"raw\":\"0000\",\"v\":[],"
			     "\"in\":{\"a\":1,\"s\":\"\"},\"note\":{\"at\":[],\"values\":[]}}",
			     rr.skip, 8, got, why),
		-EINVAL);
	assert_int_equal(
		read_columns("{\"n\":1,\"i\":[1],\"e\":\"red\",\"d\":1,\"s\":\"\","
			     "\"b\":true,\"raw\":\"0000\",\"v\":[],\"in\":{\"a\":1,\"s\":\"\"},"
			     "\"note\":{\"at\":[5],\"values\":[\"x\"]}}",
			     rr.skip, 8, got, why),
		-EINVAL);
	/* n backed by no array: nothing is read for it */
	assert_int_equal(
		read_columns("{\"n\":1000000000,\"i\":1,\"e\":\"red\",\"d\":1,\"s\":\"\","
			     "\"b\":true,\"raw\":\"0000\",\"v\":[],\"in\":{\"a\":1,\"s\":\"\"},"
			     "\"note\":{\"at\":[],\"values\":[]}}",
			     rr.skip, SIZE_MAX, got, why),
		-EINVAL);
}

static void emit_schema(struct lp_json *j, const void *arg)
{
	(void)arg;
	lp_json_str(j, "$schema", "https://json-schema.org/draft/2020-12/schema");
	lp_record_schema(&t_js_record, j);
}

/* A temporary file holding text: its path in path (a mkstemp template). */
static void tmp_file(char *path, const char *text)
{
	FILE *f = fdopen(mkstemp(path), "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/*
 * python3-jsonschema's Draft 2020-12 validator v of schema s checks document d, then runs the
 * python statements steps (which may change d and assert on v.is_valid(d)); the test is skipped
 * where python3-jsonschema is missing.
 */
static void schema_check(const char *schema, const char *doc, const char *steps)
{
	char cmd[1024], sp[] = "/tmp/lp-schema-XXXXXX", dp[] = "/tmp/lp-doc-XXXXXX";
	int rc;

	if (system("python3 -c 'import jsonschema' 2>/dev/null"))
		skip();
	tmp_file(sp, schema);
	tmp_file(dp, doc);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys,jsonschema; s=json.load(open(sys.argv[1])); "
		 "d=json.load(open(sys.argv[2])); v=jsonschema.Draft202012Validator(s); "
		 "v.validate(d); %s' %s %s",
		 steps, sp, dp);
	rc = system(cmd);
	unlink(sp);
	unlink(dp);
	assert_int_equal(rc, 0);
}

/* The schema of a record validates its JSON (python3-jsonschema) and not a broken one. */
static void test_record_schema(void **state)
{
	struct t_js in;
	char *schema, *doc;

	(void)state;
	t_js_sample(&in, 2);
	schema = lp_test_json_capture(emit_schema, NULL);
	doc = lp_test_json_capture(emit_js, &in);
	schema_check(schema, doc,
		     "d[\"e\"]=\"purple\"; assert not v.is_valid(d); d[\"e\"]=\"red\"; "
		     "d[\"i\"]=1.5; assert not v.is_valid(d)");
	free(schema);
	free(doc);
}

/* A document of parts: a flat part, a field present only when a bool says so, a nullable nest. */
struct t_part {
	int32_t a;
	char s[8];
};

struct t_doc {
	struct t_part head;
	struct t_part extra; /* flat, only when has_extra */
	struct t_inner opt;  /* null when !has_opt */
	double x;	     /* only when has_x */
	bool has_extra, has_opt, has_x;
};

/* clang-format off */
static const struct lp_record t_part_record = LP_RECORD(struct t_part,
	LP_REC_I32(struct t_part, a),
	LP_REC_STR(struct t_part, s));
static const struct lp_record t_extra_record = LP_RECORD(struct t_part,
	LP_REC_I32(struct t_part, a, LP_REC_KEY("extra_a")));
static const struct lp_record t_doc_record = LP_RECORD(struct t_doc,
	LP_REC_FLAT(struct t_doc, head, t_part_record),
	LP_REC_FLAT(struct t_doc, extra, t_extra_record, LP_REC_WHEN(struct t_doc, has_extra)),
	LP_REC_NEST(struct t_doc, opt, t_inner_record, LP_REC_NULL, LP_REC_WHEN(struct t_doc, has_opt)),
	LP_REC_F64(struct t_doc, x, LP_REC_WHEN(struct t_doc, has_x)));
/* clang-format on */

static void emit_doc(struct lp_json *j, const void *arg)
{
	lp_record_json(&t_doc_record, arg, j);
}

static void emit_doc_schema(struct lp_json *j, const void *arg)
{
	(void)arg;
	lp_json_str(j, "$schema", "https://json-schema.org/draft/2020-12/schema");
	lp_record_schema(&t_doc_record, j);
}

/* text with "from" replaced by "to", read as a t_doc into *d: the reader's return. */
static int read_doc(const char *text, const char *from, const char *to, struct t_doc *d, char *why)
{
	char buf[1024];
	const char *at = strstr(text, from);
	struct lp_fail f = { 0 };
	json_t *o;
	int rc;

	assert_non_null(at);
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	memset(d, 0xff, sizeof(*d)); /* every bool set: the reader must clear the absent parts' */
	o = lp_record_loadb(buf, strlen(buf), NULL);
	assert_non_null(o);
	rc = lp_record_read_json(&t_doc_record, d, o, &f);
	snprintf(why, 256, "%s", lp_fail_msg(&f));
	json_decref(o);
	return rc;
}

/*
 * Parts: a flat record's members sit in the object, a LP_REC_WHEN field is left out (or null)
 * when its bool is false and the reader sets the bool from its presence; a missing flat member,
 * an unknown member and a null where a part is always present are refused; the schema requires
 * the parts always there and validates the document (python3-jsonschema), not a broken one.
 */
static void test_record_parts(void **state)
{
	struct t_doc in = { .head = { 7, "h" }, .x = 2.5, .has_x = true }, out;
	char *text, *schema, why[256];

	(void)state;
	text = lp_test_json_capture(emit_doc, &in);
	assert_non_null(strstr(text, "\"a\": 7,\n  \"s\": \"h\",\n  \"opt\": null,\n  \"x\": 2.5"));
	assert_null(strstr(text, "extra_a"));
	assert_int_equal(read_doc(text, "\"x\": 2.5", "\"x\": 2.5", &out, why), 0);
	assert_true(out.head.a == 7 && !strcmp(out.head.s, "h") && out.has_x && out.x == 2.5);
	assert_true(!out.has_extra && !out.has_opt);
	assert_int_equal(read_doc(text, "\"x\": 2.5", "\"extra_a\": 3", &out, why), 0);
	assert_true(out.has_extra && out.extra.a == 3 && !out.has_x);
	assert_int_equal(
		read_doc(text, "\"opt\": null", "\"opt\": {\"a\": 1, \"s\": \"o\"}", &out, why), 0);
	assert_true(out.has_opt && out.opt.a == 1);
	assert_int_equal(read_doc(text, "\"a\": 7,", "", &out, why), -EINVAL);
	assert_string_equal(why, "a: missing");
	assert_int_equal(read_doc(text, "\"x\": 2.5", "\"y\": 2.5", &out, why), -EINVAL);
	assert_string_equal(why, "unknown member \"y\"");
	assert_int_equal(read_doc(text, "\"opt\": null,", "", &out, why), -EINVAL);
	assert_string_equal(why, "opt: missing");
	assert_int_equal(read_doc(text, "\"x\": 2.5", "\"x\": null", &out, why), 0);
	assert_true(out.has_x && isnan(out.x)); /* a number's null is NaN, not absence */
	schema = lp_test_json_capture(emit_doc_schema, NULL);
	assert_non_null(
		strstr(schema, "\"required\": [\n    \"a\",\n    \"s\",\n    \"opt\"\n  ]"));
	schema_check(schema, text,
		     "d[\"extra_a\"]=1; v.validate(d); del d[\"s\"]; assert not v.is_valid(d)");
	free(schema);
	free(text);
}

/* Strings are valid UTF-8 whatever their bytes; numbers are printf's %.15g, faster. */
static void test_json_utf8_numbers(void **state)
{
	char *buf = NULL, a[64], b[64];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	uint64_t x = 88172645463325252ull;

	(void)state;
	lp_json_write_string(
		f, "caf\xc3\xa9 \xff\xfe \xe2\x82\xac \xed\xa0\x80 \xc0\xaf \xf4\x90\x80\x80");
	fclose(f);
	assert_string_equal(buf, "\"caf\xc3\xa9 \\u00ff\\u00fe \xe2\x82\xac \\u00ed\\u00a0\\u0080 "
				 "\\u00c0\\u00af \\u00f4\\u0090\\u0080\\u0080\"");
	free(buf);
	for (int i = 0; i < 200000; i++) {
		double v;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = ldexp((double)(x >> 11), (int)(x % 90) - 80) * (x & 1 ? -1 : 1);
		if (i % 3 == 0)
			v = (double)(x % 100000000) / 1000;
		lp_json_fmt_num(a, sizeof(a), v);
		if (fabs(v) < 1e15 && v == (double)(int64_t)v)
			snprintf(b, sizeof(b), "%lld", (long long)v);
		else
			snprintf(b, sizeof(b), "%.15g", v);
		assert_string_equal(a, b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_roundtrip),
		cmocka_unit_test(test_record_truncated),
		cmocka_unit_test(test_record_strings),
		cmocka_unit_test(test_record_bounds_encode),
		cmocka_unit_test(test_record_bounds_decode),
		cmocka_unit_test(test_record_json),
		cmocka_unit_test(test_record_summary),
		cmocka_unit_test(test_record_read_strict),
		cmocka_unit_test(test_record_columns),
		cmocka_unit_test(test_record_schema),
		cmocka_unit_test(test_record_parts),
		cmocka_unit_test(test_json_utf8_numbers),
	};

	return cmocka_run_group_tests_name("record", tests, NULL, NULL);
}
