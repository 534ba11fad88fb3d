// SPDX-License-Identifier: MIT
#include "json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

void lp_json_init(struct lp_json *j, FILE *f, bool pretty)
{
	*j = (struct lp_json){ .f = f, .pretty = pretty };
}

/* Bytes of the valid UTF-8 sequence at c (RFC 3629: no overlongs, surrogates or > U+10FFFF), 0 none. */
static int utf8_len(const unsigned char *c)
{
	unsigned lo = 0x80, hi = 0xbf;
	int n;

	if (*c < 0x80)
		return 1;
	if (*c >= 0xc2 && *c <= 0xdf)
		n = 2;
	else if (*c >= 0xe0 && *c <= 0xef)
		n = 3;
	else if (*c >= 0xf0 && *c <= 0xf4)
		n = 4;
	else
		return 0;
	if (*c == 0xe0)
		lo = 0xa0;
	else if (*c == 0xed)
		hi = 0x9f;
	else if (*c == 0xf0)
		lo = 0x90;
	else if (*c == 0xf4)
		hi = 0x8f;
	if (c[1] < lo || c[1] > hi)
		return 0;
	for (int k = 2; k < n; k++)
		if (c[k] < 0x80 || c[k] > 0xbf)
			return 0;
	return n;
}

void lp_json_write_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		int n = *c >= 0x80 ? utf8_len(c) : 1;

		if (!n) { /* not UTF-8: the byte as its Latin-1 character */
			fprintf(f, "\\u%04x", *c);
			continue;
		}
		if (n > 1) {
			fwrite(c, 1, (size_t)n, f);
			c += n - 1;
			continue;
		}
		switch (*c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*c < 0x20)
				fprintf(f, "\\u%04x", *c);
			else
				fputc(*c, f);
		}
	}
	fputc('"', f);
}

static void indent(struct lp_json *j)
{
	if (!j->pretty || j->flat)
		return;
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Emits the separator and key for a new value; false (and err set) on misuse. */
static bool begin_value(struct lp_json *j, const char *key)
{
	if (j->err)
		return false;
	if (j->depth == 0) {
		if (key || j->has_items[0]) {
			j->err = -EINVAL;
			return false;
		}
		j->has_items[0] = true;
		return true;
	}
	if (j->in_array[j->depth] == (key != NULL)) {
		j->err = -EINVAL;
		return false;
	}
	if (j->has_items[j->depth])
		fputc(',', j->f);
	j->has_items[j->depth] = true;
	indent(j);
	if (key) {
		lp_json_write_string(j->f, key);
		fputs(j->pretty ? ": " : ":", j->f);
	}
	return true;
}

static void open_container(struct lp_json *j, const char *key, bool array)
{
	if (!begin_value(j, key))
		return;
	if (j->depth + 1 >= LP_JSON_MAX_DEPTH) {
		j->err = -E2BIG;
		return;
	}
	fputc(array ? '[' : '{', j->f);
	j->depth++;
	j->in_array[j->depth] = array;
	j->has_items[j->depth] = false;
}

void lp_json_arr_begin_flat(struct lp_json *j, const char *key)
{
	open_container(j, key, true);
	if (!j->err && !j->flat)
		j->flat = j->depth;
}

static void close_container(struct lp_json *j, bool array)
{
	bool had;

	if (j->err)
		return;
	if (j->depth == 0 || j->in_array[j->depth] != array) {
		j->err = -EINVAL;
		return;
	}
	had = j->has_items[j->depth];
	j->depth--;
	if (had)
		indent(j); /* not in a flat array, nor at its own end */
	if (j->flat == j->depth + 1)
		j->flat = 0;
	fputc(array ? ']' : '}', j->f);
}

void lp_json_obj_begin(struct lp_json *j, const char *key)
{
	open_container(j, key, false);
}

void lp_json_obj_end(struct lp_json *j)
{
	close_container(j, false);
}

void lp_json_arr_begin(struct lp_json *j, const char *key)
{
	open_container(j, key, true);
}

void lp_json_arr_end(struct lp_json *j)
{
	close_container(j, true);
}

void lp_json_str(struct lp_json *j, const char *key, const char *val)
{
	if (!begin_value(j, key))
		return;
	if (val)
		lp_json_write_string(j->f, val);
	else
		fputs("null", j->f);
}

/* Decimal digits of v at the end of buf (len bytes); returns where they start. */
static char *fmt_u64(char *buf, size_t len, uint64_t v)
{
	char *p = buf + len;

	*--p = '\0';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return p;
}

static void put_int(FILE *f, int64_t v)
{
	char buf[24];
	char *p = fmt_u64(buf, sizeof(buf), v < 0 ? 0 - (uint64_t)v : (uint64_t)v);

	if (v < 0)
		*--p = '-';
	fputs(p, f);
}

void lp_json_int(struct lp_json *j, const char *key, int64_t val)
{
	if (begin_value(j, key))
		put_int(j->f, val);
}

void lp_json_uint(struct lp_json *j, const char *key, uint64_t val)
{
	char buf[24];

	if (begin_value(j, key))
		fputs(fmt_u64(buf, sizeof(buf), val), j->f);
}

/*
 * %.15g for 1e-4 <= |v| < 1e15 without printf: m = v * 10^(14 - e) rounded is
 * the 15 significant digits when the product (one rounding, error below 0.07
 * at these magnitudes) is not near a half, which is checked; anything else
 * goes to snprintf. Same bytes as printf, a tenth of its time (documents of
 * millions of cells).
 */
static bool fmt_fast(char *buf, size_t len, double v)
{
	static const double p10[] = { 1e0,  1e1,  1e2,	1e3,  1e4,  1e5,  1e6,	1e7,  1e8, 1e9,
				      1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18 };
	double a = fabs(v), t, fr;
	int e = (int)floor(log10(a));
	char digits[24], *d, *o = buf;
	uint64_t m;

	if (!(a >= 1e-4 && a < 1e15) || len < 32)
		return false;
	for (int tries = 0; tries < 2; tries++) {
		if (e < -4 || e > 14)
			return false;
		t = a * p10[14 - e];
		fr = t - floor(t);
		if (fabs(fr - 0.5) < 0.07)
			return false; /* too near a half to trust the product's rounding */
		m = (uint64_t)llround(t);
		if (m >= 100000000000000ull && m < 1000000000000000ull)
			break;
		e += m >= 1000000000000000ull ? 1 : -1;
		m = 0;
	}
	if (!m)
		return false;
	d = fmt_u64(digits, sizeof(digits), m); /* 15 digits, value = d * 10^(e - 14) */
	if (v < 0)
		*o++ = '-';
	if (e < 0) {
		*o++ = '0';
		*o++ = '.';
		for (int k = -1; k > e; k--)
			*o++ = '0';
	}
	for (int k = 0; k < 15; k++) {
		if (k == e + 1 && e >= 0)
			*o++ = '.';
		*o++ = d[k];
	}
	*o = '\0';
	if (strchr(buf, '.')) { /* trailing zeros of the fraction, and a bare point, go */
		while (o[-1] == '0')
			*--o = '\0';
		if (o[-1] == '.')
			*--o = '\0';
	}
	return true;
}

void lp_json_fmt_num(char *buf, size_t len, double v)
{
	if (!isfinite(v))
		snprintf(buf, len, "null");
	/* Range first: converting a double beyond int64_t is undefined behaviour. */
	else if (fabs(v) < 1e15 && v == (double)(int64_t)v)
		snprintf(buf, len, "%" PRId64, (int64_t)v);
	else if (!fmt_fast(buf, len, v))
		snprintf(buf, len, "%.15g", v);
}

void lp_json_num(struct lp_json *j, const char *key, double val)
{
	char buf[40];

	if (!begin_value(j, key))
		return;
	if (isfinite(val) && fabs(val) < 1e15 && val == (double)(int64_t)val) {
		put_int(j->f, (int64_t)val);
		return;
	}
	lp_json_fmt_num(buf, sizeof(buf), val);
	fputs(buf, j->f);
}

void lp_json_bool(struct lp_json *j, const char *key, bool val)
{
	if (begin_value(j, key))
		fputs(val ? "true" : "false", j->f);
}

void lp_json_null(struct lp_json *j, const char *key)
{
	if (begin_value(j, key))
		fputs("null", j->f);
}

int lp_json_finish(struct lp_json *j)
{
	if (!j->err && (j->depth != 0 || !j->has_items[0]))
		j->err = -EINVAL;
	fputc('\n', j->f);
	if (fflush(j->f) || ferror(j->f))
		return j->err ? j->err : -EIO;
	return j->err;
}
