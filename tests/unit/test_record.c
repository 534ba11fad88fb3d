// SPDX-License-Identifier: MIT
/* Unit tests for common/record: one declaration gives the encoder, the decoder and JSON names. */
#include "lp_test.h"

#include <errno.h>

#include "common/record.h"
#include "common/stats.h"

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
	};

	return cmocka_run_group_tests_name("record", tests, NULL, NULL);
}
