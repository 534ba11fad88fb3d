/* SPDX-License-Identifier: MIT */
/*
 * A small streaming JSON writer. Numbers are written as numbers (never as
 * strings), non-finite doubles as null (others as printf's %.15g, integral
 * ones below 1e15 as integers), strings escaped per RFC 8259 and always valid
 * UTF-8 (a byte that is not part of a valid UTF-8 sequence is written as
 * \u00XX, its Latin-1 reading). Nesting
 * is tracked so commas and keys are always right; a misuse (a key inside an
 * array, a missing key inside an object, an unbalanced end) sets `err` instead
 * of emitting invalid text, and lp_json_finish() reports it.
 */
#ifndef LP_JSON_H
#define LP_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define LP_JSON_MAX_DEPTH 32

struct lp_json {
	FILE *f;
	int depth;
	bool pretty;
	int err;			  /* first error (negative errno), sticky */
	bool in_array[LP_JSON_MAX_DEPTH]; /* container kind per level */
	bool has_items[LP_JSON_MAX_DEPTH];
	int flat; /* the depth of an array written on one line (lp_json_arr_begin_flat), 0 none */
};

/* pretty: newline and two-space indent per level; else compact. */
void lp_json_init(struct lp_json *j, FILE *f, bool pretty);

/* `key` must be non-NULL inside an object and NULL inside an array or at top level. */
void lp_json_obj_begin(struct lp_json *j, const char *key);
void lp_json_obj_end(struct lp_json *j);
void lp_json_arr_begin(struct lp_json *j, const char *key);
void lp_json_arr_end(struct lp_json *j);
/* An array whose items (and their contents) stay on one line even when pretty: long columns. */
void lp_json_arr_begin_flat(struct lp_json *j, const char *key);

void lp_json_str(struct lp_json *j, const char *key, const char *val); /* NULL val -> null */
void lp_json_int(struct lp_json *j, const char *key, int64_t val);
void lp_json_uint(struct lp_json *j, const char *key, uint64_t val);
void lp_json_num(struct lp_json *j, const char *key, double val); /* NaN/inf -> null */
void lp_json_bool(struct lp_json *j, const char *key, bool val);
void lp_json_null(struct lp_json *j, const char *key);

/* 0 if the document is complete and balanced, else the first error. Adds a newline. */
int lp_json_finish(struct lp_json *j);

/* Write s as a JSON string literal (with quotes) to f. */
void lp_json_write_string(FILE *f, const char *s);
/* A double as lp_json_num writes it ("null" when not finite), into buf (32 bytes at least). */
void lp_json_fmt_num(char *buf, size_t len, double v);

#endif
