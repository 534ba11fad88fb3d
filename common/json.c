// SPDX-License-Identifier: MIT
#include "json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>

void lp_json_init(struct lp_json *j, FILE *f, bool pretty)
{
	*j = (struct lp_json){ .f = f, .pretty = pretty };
}

void lp_json_write_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
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
	if (!j->pretty)
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
		indent(j);
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

void lp_json_int(struct lp_json *j, const char *key, int64_t val)
{
	if (begin_value(j, key))
		fprintf(j->f, "%" PRId64, val);
}

void lp_json_uint(struct lp_json *j, const char *key, uint64_t val)
{
	if (begin_value(j, key))
		fprintf(j->f, "%" PRIu64, val);
}

void lp_json_num(struct lp_json *j, const char *key, double val)
{
	if (!begin_value(j, key))
		return;
	if (!isfinite(val))
		fputs("null", j->f);
	/* Range first: converting a double beyond int64_t is undefined behaviour. */
	else if (fabs(val) < 1e15 && val == (double)(int64_t)val)
		fprintf(j->f, "%" PRId64, (int64_t)val);
	else
		fprintf(j->f, "%.15g", val);
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
