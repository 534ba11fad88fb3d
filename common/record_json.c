// SPDX-License-Identifier: MIT
/*
 * Records as JSON, from the same field tables as the wire form (common/record.h):
 * the writer, the strict reader, the columns form of many records, and the JSON
 * Schema of both forms.
 */
#include "common/internal.h"
#include "common/table.h"
#include "fail.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *key_of(const struct lp_rec_field *f)
{
	return f->key ? f->key : f->name;
}

static bool is_list(const struct lp_rec_field *f)
{
	return f->max || f->vec;
}

/* A member of the JSON form. */
static bool in_json(const struct lp_rec_field *f)
{
	return !(f->flags & (LP_REC_F_NOJSON | LP_REC_F_MARK));
}

/* ---- writing ------------------------------------------------------------------------------ */

static void json_elem(const struct lp_rec_field *f, const uint8_t *p, const char *key,
		      struct lp_json *j)
{
	char hex[2 * 64 + 1];
	size_t nhex = f->size < 64 ? f->size : 64; /* bytes members are short (GIDs, GUIDs) */
	const char *s;
	double d;
	bool b;

	switch (f->type) {
	case LP_REC_T_F64:
		memcpy(&d, p, sizeof(d));
		lp_json_num(j, key, d);
		break;
	case LP_REC_T_BOOL:
		memcpy(&b, p, sizeof(b));
		lp_json_bool(j, key, b);
		break;
	case LP_REC_T_STR:
		lp_json_str(j, key, (const char *)p);
		break;
	case LP_REC_T_BYTES:
		hex[0] = '\0';
		for (size_t k = 0; k < nhex; k++)
			snprintf(hex + 2 * k, 3, "%02x", p[k]);
		lp_json_str(j, key, hex);
		break;
	case LP_REC_T_NEST:
		lp_json_obj_begin(j, key);
		lp_record_json(f->rec, p, j);
		lp_json_obj_end(j);
		break;
	case LP_REC_T_ENUM:
		lp_json_str(j, key,
			    lp_rec_in_range(f, lp_rec_load_int(f, p))
				    ? f->names[lp_rec_load_int(f, p)]
				    : NULL);
		break;
	case LP_REC_T_NAME:
		memcpy(&s, p, sizeof(s));
		lp_json_str(j, key, s);
		break;
	default:
		if (lp_rec_is_signed(f))
			lp_json_int(j, key, (int64_t)lp_rec_load_int(f, p));
		else
			lp_json_uint(j, key, lp_rec_load_int(f, p));
	}
}

/* Field f of obj as one JSON value (an array for arrays and vecs). */
static void json_field(const struct lp_rec_field *f, const uint8_t *obj, const char *key,
		       struct lp_json *j)
{
	int64_t n = lp_rec_elems(f, obj);

	if (!is_list(f)) {
		json_elem(f, obj + f->off, key, j);
		return;
	}
	if (f->type == LP_REC_T_NEST)
		lp_json_arr_begin(j, key);
	else
		lp_json_arr_begin_flat(j, key); /* numbers and names: one line */
	for (int64_t k = 0; k < n; k++)
		json_elem(f, lp_rec_elem(f, obj, (size_t)k), NULL, j);
	lp_json_arr_end(j);
}

/* A LP_REC_WHEN field's bool (true for every other field). */
static bool is_there(const struct lp_rec_field *f, const uint8_t *obj)
{
	return !f->when || *(const bool *)(obj + f->when - 1);
}

void lp_record_json(const struct lp_record *rec, const void *obj, struct lp_json *j)
{
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct lp_rec_field *f = &rec->fields[i];

		if (!in_json(f))
			continue;
		if (!is_there(f, obj)) {
			if (f->flags & LP_REC_F_NULL)
				lp_json_null(j, key_of(f));
		} else if (f->flags & LP_REC_F_FLAT) {
			lp_record_json(f->rec, (const uint8_t *)obj + f->off, j);
		} else {
			json_field(f, obj, key_of(f), j);
		}
	}
}

void lp_record_json_array(const struct lp_record *rec, const void *base, size_t n, size_t stride,
			  const char *key, struct lp_json *j)
{
	lp_json_arr_begin(j, key);
	for (size_t i = 0; i < n; i++) {
		lp_json_obj_begin(j, NULL);
		lp_record_json(rec, (const uint8_t *)base + i * stride, j);
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);
}

/* Element equality by value (padding aside): NaN equals NaN. */
static bool elem_equal(const struct lp_rec_field *f, const uint8_t *a, const uint8_t *b);

static bool rec_equal(const struct lp_record *rec, const uint8_t *a, const uint8_t *b)
{
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct lp_rec_field *f = &rec->fields[i];
		int64_t n = lp_rec_elems(f, a);

		if (n != lp_rec_elems(f, b))
			return false;
		for (int64_t k = 0; k < n; k++)
			if (!elem_equal(f, lp_rec_elem(f, a, (size_t)k),
					lp_rec_elem(f, b, (size_t)k)))
				return false;
	}
	return true;
}

static bool elem_equal(const struct lp_rec_field *f, const uint8_t *a, const uint8_t *b)
{
	double x, y;

	switch (f->type) {
	case LP_REC_T_F64:
		memcpy(&x, a, sizeof(x));
		memcpy(&y, b, sizeof(y));
		return x == y || (isnan(x) && isnan(y));
	case LP_REC_T_BOOL:
		return *(const bool *)a == *(const bool *)b;
	case LP_REC_T_STR:
		return !strncmp((const char *)a, (const char *)b, f->size);
	case LP_REC_T_NEST:
		return rec_equal(f->rec, a, b);
	case LP_REC_T_NAME:
		return lp_rec_name_index(f, a) == lp_rec_name_index(f, b);
	case LP_REC_T_BYTES:
		return !memcmp(a, b, f->size);
	default:
		return lp_rec_load_int(f, a) == lp_rec_load_int(f, b);
	}
}

/* An element as a zeroed struct holds it (0, 0.0, false, "", no name, every field of a record). */
static bool elem_default(const struct lp_rec_field *f, const uint8_t *p)
{
	static const uint8_t zero[256];

	if (f->type == LP_REC_T_NEST) {
		for (size_t i = 0; i < f->rec->nfields; i++) {
			const struct lp_rec_field *g = &f->rec->fields[i];

			if (is_list(g) ? lp_rec_elems(g, p) != 0 : !elem_default(g, p + g->off))
				return false;
		}
		return true;
	}
	if (f->type == LP_REC_T_STR)
		return !p[0];
	return f->size <= sizeof(zero) && elem_equal(f, p, zero);
}

/* A field's value in every present row, for the column writer. */
struct col {
	const uint8_t **row; /* the present rows, each already offset to the record written */
	size_t n;
};

static bool field_default(const struct lp_rec_field *f, const uint8_t *obj)
{
	return is_list(f) ? lp_rec_elems(f, obj) == 0 : elem_default(f, obj + f->off);
}

static bool field_equal(const struct lp_rec_field *f, const uint8_t *a, const uint8_t *b)
{
	int64_t n = lp_rec_elems(f, a);

	if (!is_list(f))
		return elem_equal(f, a + f->off, b + f->off);
	if (n != lp_rec_elems(f, b))
		return false;
	for (int64_t k = 0; k < n; k++)
		if (!elem_equal(f, lp_rec_elem(f, a, (size_t)k), lp_rec_elem(f, b, (size_t)k)))
			return false;
	return true;
}

static void json_sparse(const struct lp_rec_field *f, const struct col *c, struct lp_json *j)
{
	lp_json_obj_begin(j, key_of(f));
	lp_json_arr_begin_flat(j, "at");
	for (size_t k = 0; k < c->n; k++)
		if (!field_default(f, c->row[k]))
			lp_json_uint(j, NULL, k);
	lp_json_arr_end(j);
	lp_json_arr_begin_flat(j, "values");
	for (size_t k = 0; k < c->n; k++)
		if (!field_default(f, c->row[k]))
			json_field(f, c->row[k], NULL, j);
	lp_json_arr_end(j);
	lp_json_obj_end(j);
}

/*
 * The columns of rec's fields (not in skip) over c's rows; first: the first column carries n
 * (an array); top: sparse fields are written sparse (not inside a nested record).
 */
static void json_cols(const struct lp_record *rec, uint64_t skip, const struct col *c, bool first,
		      bool top, struct lp_json *j)
{
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct lp_rec_field *f = &rec->fields[i];
		bool same = c->n > 0 && !first;

		if ((skip >> i & 1) || !in_json(f))
			continue;
		if (top && (f->flags & LP_REC_F_SPARSE)) {
			json_sparse(f, c, j);
			continue;
		}
		if (f->type == LP_REC_T_NEST && !is_list(f)) {
			struct col sub = { malloc((c->n + 1) * sizeof(*sub.row)), c->n };

			for (size_t k = 0; sub.row && k < c->n; k++)
				sub.row[k] = c->row[k] + f->off;
			lp_json_obj_begin(j, key_of(f));
			if (sub.row)
				json_cols(f->rec, 0, &sub, false, false, j);
			lp_json_obj_end(j);
			free(sub.row);
			continue;
		}
		for (size_t k = 1; same && k < c->n; k++)
			same = field_equal(f, c->row[0], c->row[k]);
		first = false;
		if (same) { /* every entry the same: the value once */
			json_field(f, c->row[0], key_of(f), j);
			continue;
		}
		lp_json_arr_begin_flat(j, key_of(f));
		for (size_t k = 0; k < c->n; k++)
			json_field(f, c->row[k], NULL, j);
		lp_json_arr_end(j);
	}
}

void lp_record_json_columns(const struct lp_record *rec, const struct lp_rec_rows *rows,
			    const char *key, struct lp_json *j)
{
	struct col c = { malloc((rows->n + 1) * sizeof(*c.row)), 0 };

	if (!c.row) {
		j->err = j->err ? j->err : -ENOMEM;
		return;
	}
	for (size_t i = 0; i < rows->n; i++) {
		const void *p = rows->get ? rows->get(rows->arg, i)
					  : (const uint8_t *)rows->base + i * rows->stride;

		if (p)
			c.row[c.n++] = p;
	}
	lp_json_obj_begin(j, key);
	lp_json_uint(j, "n", c.n);
	if (c.n < rows->n) {
		lp_json_arr_begin_flat(j, "rows");
		for (size_t i = 0, k = 0; i < rows->n && k < c.n; i++) {
			const void *p = rows->get ? rows->get(rows->arg, i)
						  : (const uint8_t *)rows->base + i * rows->stride;

			if (p == c.row[k]) {
				lp_json_uint(j, NULL, i);
				k++;
			}
		}
		lp_json_arr_end(j);
	}
	json_cols(rec, rows->skip, &c, c.n == rows->n, true, j);
	lp_json_obj_end(j);
	free(c.row);
}

uint64_t lp_record_mask(const struct lp_record *rec, const char *const *names)
{
	uint64_t m = 0;

	for (size_t i = 0; i < rec->nfields && i < 64; i++)
		for (const char *const *n = names; *n; n++)
			if (!strcmp(rec->fields[i].name, *n))
				m |= 1ull << i;
	return m;
}

void lp_record_free(const struct lp_record *rec, void *obj)
{
	uint8_t *base = obj;

	for (size_t i = 0; i < rec->nfields; i++) {
		const struct lp_rec_field *f = &rec->fields[i];
		int64_t n = lp_rec_elems(f, base);
		void *p;

		for (int64_t k = 0; f->type == LP_REC_T_NEST && (f->vec || f->max) && k < n; k++)
			lp_record_free(f->rec, (void *)lp_rec_elem(f, base, (size_t)k));
		if (f->type == LP_REC_T_NEST && !is_list(f))
			lp_record_free(f->rec, base + f->off);
		if (!f->vec)
			continue;
		memcpy(&p, base + f->off, sizeof(p));
		free(p);
		p = NULL;
		memcpy(base + f->off, &p, sizeof(p));
		lp_rec_store_int(&(struct lp_rec_field){ .size = f->count_size },
				 base + f->count_off, 0);
	}
}

/* ---- CSV --------------------------------------------------------------------------------- */

static bool in_csv(const struct lp_rec_field *f, uint64_t skip, size_t i)
{
	return !(skip >> i & 1) && in_json(f) && !is_list(f) && !(f->flags & LP_REC_F_SPARSE);
}

static void csv_keys(const struct lp_record *rec, uint64_t skip, const char *prefix, FILE *f,
		     bool *first)
{
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct lp_rec_field *fl = &rec->fields[i];
		char key[128];

		if (!in_csv(fl, skip, i))
			continue;
		snprintf(key, sizeof(key), "%s%s%s", prefix, prefix[0] ? "." : "", key_of(fl));
		if (fl->type == LP_REC_T_NEST) {
			csv_keys(fl->rec, 0, key, f, first);
			continue;
		}
		if (!*first)
			fputc(',', f);
		*first = false;
		lp_csv_text(f, key);
	}
}

void lp_record_csv_header(const struct lp_record *rec, uint64_t skip, FILE *f, bool first)
{
	csv_keys(rec, skip, "", f, &first);
}

static void csv_value(const struct lp_rec_field *fl, const uint8_t *p, FILE *f)
{
	char buf[40];
	const char *s;
	double d;

	switch (fl->type) {
	case LP_REC_T_F64:
		memcpy(&d, p, sizeof(d));
		if (isfinite(d)) {
			lp_json_fmt_num(buf, sizeof(buf), d);
			fputs(buf, f);
		}
		break;
	case LP_REC_T_BOOL:
		fputc(*(const bool *)p ? '1' : '0', f);
		break;
	case LP_REC_T_STR:
		lp_csv_text(f, (const char *)p);
		break;
	case LP_REC_T_ENUM:
		if (lp_rec_in_range(fl, lp_rec_load_int(fl, p)))
			fputs(fl->names[lp_rec_load_int(fl, p)], f);
		break;
	case LP_REC_T_NAME:
		memcpy(&s, p, sizeof(s));
		if (s)
			lp_csv_text(f, s);
		break;
	case LP_REC_T_BYTES:
		for (size_t k = 0; k < fl->size; k++)
			fprintf(f, "%02x", p[k]);
		break;
	default:
		if (lp_rec_is_signed(fl))
			fprintf(f, "%lld", (long long)lp_rec_load_int(fl, p));
		else
			fprintf(f, "%llu", (unsigned long long)lp_rec_load_int(fl, p));
	}
}

static void csv_values(const struct lp_record *rec, const uint8_t *obj, uint64_t skip, FILE *f,
		       bool *first)
{
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct lp_rec_field *fl = &rec->fields[i];

		if (!in_csv(fl, skip, i))
			continue;
		if (fl->type == LP_REC_T_NEST) {
			csv_values(fl->rec, obj + fl->off, 0, f, first);
			continue;
		}
		if (!*first)
			fputc(',', f);
		*first = false;
		csv_value(fl, obj + fl->off, f);
	}
}

void lp_record_csv_row(const struct lp_record *rec, const void *obj, uint64_t skip, FILE *f,
		       bool first)
{
	csv_values(rec, obj, skip, f, &first);
}

/* ---- JSON Schema ------------------------------------------------------------------------- */

static void schema_int_bounds(const struct lp_rec_field *f, struct lp_json *j)
{
	if (f->ranged) {
		lp_json_int(j, "minimum", f->lo);
		lp_json_int(j, "maximum", f->hi);
	} else if (f->type == LP_REC_T_I32) {
		lp_json_int(j, "minimum", INT32_MIN);
		lp_json_int(j, "maximum", INT32_MAX);
	} else if (f->type == LP_REC_T_I64) {
		lp_json_int(j, "minimum", INT64_MIN);
		lp_json_int(j, "maximum", INT64_MAX);
	} else {
		lp_json_int(j, "minimum", 0);
		if (f->size < 8)
			lp_json_uint(j, "maximum", (1ull << (8 * f->size)) - 1);
	}
}

/* Members of the schema of one element of f. */
static void schema_elem(const struct lp_rec_field *f, struct lp_json *j)
{
	char pat[64];

	switch (f->type) {
	case LP_REC_T_F64:
		lp_json_arr_begin(j, "type");
		lp_json_str(j, NULL, "number");
		lp_json_str(j, NULL, "null");
		lp_json_arr_end(j);
		break;
	case LP_REC_T_BOOL:
		lp_json_str(j, "type", "boolean");
		break;
	case LP_REC_T_STR:
		lp_json_str(j, "type", "string");
		lp_json_uint(j, "maxLength", f->size - 1);
		break;
	case LP_REC_T_BYTES:
		lp_json_str(j, "type", "string");
		snprintf(pat, sizeof(pat), "^[0-9a-fA-F]{%zu}$", 2 * f->size);
		lp_json_str(j, "pattern", pat);
		break;
	case LP_REC_T_NEST:
		lp_record_schema(f->rec, j);
		break;
	case LP_REC_T_ENUM:
	case LP_REC_T_NAME:
		lp_json_arr_begin(j, "enum");
		for (size_t k = 0; f->names[k]; k++)
			lp_json_str(j, NULL, f->names[k]);
		if (f->type == LP_REC_T_NAME && (f->flags & LP_REC_F_NULL))
			lp_json_null(j, NULL); /* no name set */
		lp_json_arr_end(j);
		break;
	default:
		lp_json_str(j, "type", "integer");
		schema_int_bounds(f, j);
	}
}

/* Members of the schema of field f's JSON value (an array of elements for arrays and vecs). */
static void schema_field(const struct lp_rec_field *f, struct lp_json *j)
{
	if (f->doc)
		lp_json_str(j, "description", f->doc);
	if (f->when && (f->flags & LP_REC_F_NULL) && f->type == LP_REC_T_NEST) {
		lp_json_arr_begin(j, "anyOf"); /* null when its bool is false */
		lp_json_obj_begin(j, NULL);
		lp_json_str(j, "type", "null");
		lp_json_obj_end(j);
		lp_json_obj_begin(j, NULL);
		schema_elem(f, j);
		lp_json_obj_end(j);
		lp_json_arr_end(j);
		return;
	}
	if (!is_list(f)) {
		schema_elem(f, j);
		return;
	}
	lp_json_str(j, "type", "array");
	if (f->max)
		lp_json_uint(j, "maxItems", f->max);
	lp_json_obj_begin(j, "items");
	schema_elem(f, j);
	lp_json_obj_end(j);
}

/* The keys every object of rec holds (a LP_REC_WHEN field only when written as null). */
static void required_keys(const struct lp_record *rec, uint64_t skip, struct lp_json *j)
{
	for (size_t i = 0; rec && i < rec->nfields; i++) {
		const struct lp_rec_field *f = &rec->fields[i];

		if ((skip >> i & 1) || !in_json(f) || (f->flags & LP_REC_F_OPTIONAL) ||
		    (f->when && !(f->flags & LP_REC_F_NULL)))
			continue;
		if (f->flags & LP_REC_F_FLAT)
			required_keys(f->rec, 0, j);
		else
			lp_json_str(j, NULL, key_of(f));
	}
}

static void schema_required(const struct lp_record *rec, uint64_t skip, const char *const *extra,
			    struct lp_json *j)
{
	lp_json_arr_begin(j, "required");
	for (; extra && *extra; extra++)
		lp_json_str(j, NULL, *extra);
	required_keys(rec, skip, j);
	lp_json_arr_end(j);
}

/* The properties of rec's members (of a LP_REC_FLAT record's too), in the open "properties". */
static void schema_properties(const struct lp_record *rec, struct lp_json *j)
{
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct lp_rec_field *f = &rec->fields[i];

		if (!in_json(f))
			continue;
		if (f->flags & LP_REC_F_FLAT) {
			schema_properties(f->rec, j);
			continue;
		}
		lp_json_obj_begin(j, key_of(f));
		schema_field(f, j);
		lp_json_obj_end(j);
	}
}

void lp_record_schema_open(const struct lp_record *rec, struct lp_json *j)
{
	lp_json_str(j, "type", "object");
	lp_json_obj_begin(j, "properties");
	schema_properties(rec, j);
}

void lp_record_schema_close(const struct lp_record *rec, const char *const *extra,
			    struct lp_json *j)
{
	lp_json_obj_end(j);
	schema_required(rec, 0, extra, j);
	lp_json_bool(j, "additionalProperties", false);
}

void lp_record_schema(const struct lp_record *rec, struct lp_json *j)
{
	lp_record_schema_open(rec, j);
	lp_record_schema_close(rec, NULL, j);
}

void lp_record_schema_array_open(const struct lp_record *rec, const char *key, struct lp_json *j)
{
	lp_json_obj_begin(j, key);
	lp_json_str(j, "type", "array");
	lp_json_obj_begin(j, "items");
	lp_record_schema_open(rec, j);
}

void lp_record_schema_array_close(const struct lp_record *rec, const char *const *extra,
				  struct lp_json *j)
{
	lp_record_schema_close(rec, extra, j);
	lp_json_obj_end(j);
	lp_json_obj_end(j);
}

void lp_record_schema_array(const struct lp_record *rec, const char *key, struct lp_json *j)
{
	lp_record_schema_array_open(rec, key, j);
	lp_record_schema_array_close(rec, NULL, j);
}

void lp_record_schema_head(struct lp_json *j, const char *id, const char *title, const char *about)
{
	char urn[128];

	snprintf(urn, sizeof(urn), "urn:linkperf:schema:%s", id);
	lp_json_str(j, "$schema", "https://json-schema.org/draft/2020-12/schema");
	lp_json_str(j, "$id", urn);
	lp_json_str(j, "title", title);
	lp_json_str(j, "description", about);
}

void lp_record_schema_object(struct lp_json *j, const char *key, const char *about)
{
	lp_json_obj_begin(j, key);
	lp_json_str(j, "description", about);
	lp_json_str(j, "type", "object");
	lp_json_obj_end(j);
}

static void schema_cols(const struct lp_record *rec, uint64_t skip, bool top, struct lp_json *j);

/* Member key: an array of indices (non-negative integers). */
static void schema_indices(struct lp_json *j, const char *key, const char *doc)
{
	lp_json_obj_begin(j, key);
	if (doc)
		lp_json_str(j, "description", doc);
	lp_json_str(j, "type", "array");
	lp_json_obj_begin(j, "items");
	lp_json_str(j, "type", "integer");
	lp_json_int(j, "minimum", 0);
	lp_json_obj_end(j);
	lp_json_obj_end(j);
}

/* A column: an array of f's values, one value for all, or (sparse) the set entries. */
static void schema_col(const struct lp_rec_field *f, bool top, struct lp_json *j)
{
	if (top && (f->flags & LP_REC_F_SPARSE)) {
		lp_json_str(j, "description",
			    "sparse: the entries that are set (at: their indices)");
		lp_json_str(j, "type", "object");
		lp_json_obj_begin(j, "properties");
		schema_indices(j, "at", NULL);
		lp_json_obj_begin(j, "values");
		lp_json_str(j, "type", "array");
		lp_json_obj_begin(j, "items");
		schema_field(f, j);
		lp_json_obj_end(j);
		lp_json_obj_end(j);
		lp_record_schema_close(NULL, (const char *const[]){ "at", "values", NULL }, j);
		return;
	}
	if (f->type == LP_REC_T_NEST && !is_list(f)) {
		schema_cols(f->rec, 0, false, j);
		return;
	}
	lp_json_arr_begin(j, "anyOf");
	lp_json_obj_begin(j, NULL);
	lp_json_str(j, "type", "array");
	lp_json_obj_begin(j, "items");
	schema_field(f, j);
	lp_json_obj_end(j);
	lp_json_obj_end(j);
	lp_json_obj_begin(j, NULL);
	schema_field(f, j);
	lp_json_obj_end(j);
	lp_json_arr_end(j);
}

static void schema_cols(const struct lp_record *rec, uint64_t skip, bool top, struct lp_json *j)
{
	lp_json_str(j, "type", "object");
	lp_json_obj_begin(j, "properties");
	if (top) {
		lp_json_obj_begin(j, "n");
		lp_json_str(j, "description", "entries per column");
		lp_json_str(j, "type", "integer");
		lp_json_int(j, "minimum", 0);
		lp_json_obj_end(j);
		schema_indices(j, "rows",
			       "the row of each entry, ascending (absent: entry k is row k)");
	}
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct lp_rec_field *f = &rec->fields[i];

		if ((skip >> i & 1) || !in_json(f))
			continue;
		lp_json_obj_begin(j, key_of(f));
		schema_col(f, top, j);
		lp_json_obj_end(j);
	}
	lp_json_obj_end(j);
	schema_required(rec, skip, top ? (const char *const[]){ "n", NULL } : NULL, j);
	lp_json_bool(j, "additionalProperties", false);
}

void lp_record_schema_columns(const struct lp_record *rec, uint64_t skip, struct lp_json *j)
{
	schema_cols(rec, skip, true, j);
}

/* ---- reading ----------------------------------------------------------------------------- */

#ifdef LP_HAVE_JANSSON
#include <jansson.h>

/* Where a reader is in a document, for its error line ("cells.latency.p50[3]"). */
struct at {
	const struct at *up;
	const char *key; /* NULL: an index */
	size_t idx;
};

static size_t at_fmt(const struct at *a, char *buf, size_t len)
{
	size_t n = a->up ? at_fmt(a->up, buf, len) : 0;

	if (n >= len)
		return n;
	if (a->key)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "." : "", a->key);
	else
		n += (size_t)snprintf(buf + n, len - n, "[%zu]", a->idx);
	return n;
}

static int bad(const struct at *a, struct lp_fail *fail, const char *fmt, ...)
{
	char where[256] = "";
	char what[256];
	va_list ap;

	if (!fail || fail->err)
		return -EINVAL;
	if (a)
		at_fmt(a, where, sizeof(where));
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return lp_fail_set(fail, -EINVAL, "%s%s%s", where, where[0] ? ": " : "", what);
}

static const char *jtype(const json_t *v)
{
	if (!v)
		return "nothing";
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a real";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

static int read_rec(const struct lp_record *rec, uint8_t *obj, const json_t *o, const struct at *at,
		    struct lp_fail *fail);

static int read_int(const struct lp_rec_field *f, uint8_t *p, const json_t *v, const struct at *at,
		    struct lp_fail *fail)
{
	uint64_t u;

	if (!json_is_integer(v))
		return bad(at, fail, "%s where an integer belongs", jtype(v));
	u = (uint64_t)json_integer_value(v);
	if (!lp_rec_is_signed(f) && json_integer_value(v) < 0)
		return bad(at, fail, "%lld is negative", (long long)json_integer_value(v));
	if (!lp_rec_in_range(f, u))
		return bad(at, fail, "%lld is out of range", (long long)json_integer_value(v));
	lp_rec_store_int(f, p, u);
	return 0;
}

static int read_named(const struct lp_rec_field *f, uint8_t *p, const json_t *v,
		      const struct at *at, struct lp_fail *fail)
{
	const char *s = json_string_value(v);

	if (f->type == LP_REC_T_NAME && json_is_null(v) && (f->flags & LP_REC_F_NULL)) {
		memset(p, 0, sizeof(const char *));
		return 0;
	}
	if (!s)
		return bad(at, fail, "%s where a name belongs", jtype(v));
	for (size_t k = 0; f->names[k]; k++) {
		if (strcmp(f->names[k], s))
			continue;
		if (f->type == LP_REC_T_NAME)
			memcpy(p, &f->names[k], sizeof(f->names[k]));
		else
			lp_rec_store_int(f, p, k);
		return 0;
	}
	return bad(at, fail, "unknown name \"%.40s\"", s);
}

static int read_bytes(const struct lp_rec_field *f, uint8_t *p, const json_t *v,
		      const struct at *at, struct lp_fail *fail)
{
	const char *s = json_string_value(v);

	if (!s || json_string_length(v) != 2 * f->size)
		return bad(at, fail, "want %zu hex digits", 2 * f->size);
	for (size_t k = 0; k < f->size; k++) {
		unsigned x;

		if (!strchr("0123456789abcdefABCDEF", s[2 * k]) || !s[2 * k] ||
		    !strchr("0123456789abcdefABCDEF", s[2 * k + 1]) || !s[2 * k + 1] ||
		    sscanf(s + 2 * k, "%2x", &x) != 1)
			return bad(at, fail, "not hex digits");
		p[k] = (uint8_t)x;
	}
	return 0;
}

static int read_elem(const struct lp_rec_field *f, uint8_t *p, const json_t *v, const struct at *at,
		     struct lp_fail *fail)
{
	double d;
	bool b;

	switch (f->type) {
	case LP_REC_T_F64:
		if (!json_is_number(v) && !json_is_null(v))
			return bad(at, fail, "%s where a number belongs", jtype(v));
		d = json_is_null(v) ? NAN : json_number_value(v);
		memcpy(p, &d, sizeof(d));
		return 0;
	case LP_REC_T_BOOL:
		if (!json_is_boolean(v))
			return bad(at, fail, "%s where a boolean belongs", jtype(v));
		b = json_is_true(v);
		memcpy(p, &b, sizeof(b));
		return 0;
	case LP_REC_T_STR:
		if (!json_is_string(v))
			return bad(at, fail, "%s where a string belongs", jtype(v));
		if (json_string_length(v) >= f->size ||
		    strlen(json_string_value(v)) != json_string_length(v))
			return bad(at, fail, "a string over %zu bytes or with a NUL", f->size - 1);
		memcpy(p, json_string_value(v), json_string_length(v) + 1);
		return 0;
	case LP_REC_T_BYTES:
		return read_bytes(f, p, v, at, fail);
	case LP_REC_T_NEST:
		return read_rec(f->rec, p, v, at, fail);
	case LP_REC_T_ENUM:
	case LP_REC_T_NAME:
		return read_named(f, p, v, at, fail);
	default:
		return read_int(f, p, v, at, fail);
	}
}

static const struct lp_rec_field *count_field(const struct lp_record *rec,
					      const struct lp_rec_field *f)
{
	for (size_t i = 0; i < rec->nfields; i++)
		if (rec->fields[i].off == f->count_off && !is_list(&rec->fields[i]))
			return &rec->fields[i];
	return NULL;
}

/* An array or vec field: its count member is set from the array (or must match it). */
static int read_list(const struct lp_record *rec, const struct lp_rec_field *f, uint8_t *obj,
		     const json_t *v, const struct at *at, struct lp_fail *fail)
{
	const struct lp_rec_field *cf = count_field(rec, f);
	size_t n = json_array_size(v);
	uint8_t *p = obj + f->off;

	if (!json_is_array(v))
		return bad(at, fail, "%s where an array belongs", jtype(v));
	if (f->max && n > f->max)
		return bad(at, fail, "%zu entries, at most %zu", n, f->max);
	if (cf && !(cf->flags & LP_REC_F_NOJSON) &&
	    lp_rec_load_uint(obj + f->count_off, f->count_size) != n)
		return bad(at, fail, "%zu entries, its count says %llu", n,
			   (unsigned long long)lp_rec_load_uint(obj + f->count_off, f->count_size));
	if (f->vec) {
		p = calloc(n + 1, f->size);
		if (!p)
			return -ENOMEM;
		memcpy(obj + f->off, &p, sizeof(p));
	}
	lp_rec_store_int(&(struct lp_rec_field){ .size = f->count_size }, obj + f->count_off, n);
	for (size_t k = 0; k < n; k++) {
		struct at here = { at, NULL, k };
		int rc = read_elem(f, p + k * f->size, json_array_get(v, k), &here, fail);

		if (rc)
			return rc;
	}
	return 0;
}

static int read_field(const struct lp_record *rec, const struct lp_rec_field *f, uint8_t *obj,
		      const json_t *v, const struct at *at, struct lp_fail *fail)
{
	if ((f->flags & LP_REC_F_NULL) && json_is_null(v) && f->type != LP_REC_T_NAME) {
		if (f->type == LP_REC_T_STR && !is_list(f))
			obj[f->off] = '\0';
		return 0;
	}
	return is_list(f) ? read_list(rec, f, obj, v, at, fail)
			  : read_elem(f, obj + f->off, v, at, fail);
}

static const struct lp_rec_field *field_of(const struct lp_record *rec, uint64_t skip,
					   const char *key)
{
	for (size_t i = 0; i < rec->nfields; i++)
		if (!(skip >> i & 1) && in_json(&rec->fields[i]) &&
		    !strcmp(key_of(&rec->fields[i]), key))
			return &rec->fields[i];
	return NULL;
}

static bool listed(const char *const *more, const char *key)
{
	for (; more && *more; more++)
		if (!strcmp(*more, key))
			return true;
	return false;
}

/* A member of rec's JSON form (of a LP_REC_FLAT record's too). */
static bool known(const struct lp_record *rec, const char *key)
{
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct lp_rec_field *f = &rec->fields[i];

		if (!in_json(f))
			continue;
		if ((f->flags & LP_REC_F_FLAT) ? known(f->rec, key) : !strcmp(key_of(f), key))
			return true;
	}
	return false;
}

/* Some member of flat record rec is in o: the part is there. */
static bool flat_there(const struct lp_record *rec, const json_t *o)
{
	const char *key;
	const json_t *v;

	json_object_foreach((json_t *)o, key, v)
	{
		if (known(rec, key))
			return true;
	}
	return false;
}

static int read_members(const struct lp_record *rec, uint8_t *obj, const json_t *o,
			const struct at *at, struct lp_fail *fail);

/*
 * Field f from o: a LP_REC_WHEN field's bool set from its presence (or its
 * null), a LP_REC_FLAT record read from o itself. 0 or -EINVAL (fail).
 */
static int read_member(const struct lp_record *rec, const struct lp_rec_field *f, uint8_t *obj,
		       const json_t *o, const struct at *at, struct lp_fail *fail)
{
	const json_t *v = json_object_get(o, key_of(f));
	struct at here = { at, key_of(f), 0 };
	bool there = (f->flags & LP_REC_F_FLAT)
			     ? flat_there(f->rec, o) || !f->when
			     : v && !(f->when && json_is_null(v) && (f->flags & LP_REC_F_NULL));

	if (f->when) {
		*(bool *)(obj + f->when - 1) = there;
		if (!there && (v || !(f->flags & LP_REC_F_NULL) || (f->flags & LP_REC_F_FLAT)))
			return 0;
	}
	if (f->flags & LP_REC_F_FLAT)
		return read_members(f->rec, obj + f->off, o, at, fail);
	if (!v)
		return (f->flags & LP_REC_F_OPTIONAL) ? 0 : bad(&here, fail, "missing");
	return read_field(rec, f, obj, v, &here, fail);
}

/* rec's fields from the members of o (o's other members are the caller's to check). */
static int read_members(const struct lp_record *rec, uint8_t *obj, const json_t *o,
			const struct at *at, struct lp_fail *fail)
{
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct lp_rec_field *f = &rec->fields[i];
		int rc;

		if (f->flags & LP_REC_F_MARK)
			*(bool *)(obj + f->off) = true;
		if (!in_json(f))
			continue;
		rc = read_member(rec, f, obj, o, at, fail);
		if (rc)
			return rc;
	}
	return 0;
}

static int read_rec_more(const struct lp_record *rec, uint8_t *obj, const json_t *o,
			 const char *const *more, const struct at *at, struct lp_fail *fail)
{
	const char *key;
	const json_t *v;
	int rc;

	if (!json_is_object(o))
		return bad(at, fail, "%s where an object belongs", jtype(o));
	json_object_foreach((json_t *)o, key, v)
	{
		if (!rec->lenient && !known(rec, key) && !listed(more, key))
			return bad(at, fail, "unknown member \"%.40s\"", key);
	}
	rc = read_members(rec, obj, o, at, fail);
	if (rc)
		return rc;
	if (rec->check) {
		struct lp_fail cf = { 0 };

		if (rec->check(obj, &cf))
			return bad(at, fail, "%s", lp_fail_msg(&cf));
	}
	return 0;
}

static int read_rec(const struct lp_record *rec, uint8_t *obj, const json_t *o, const struct at *at,
		    struct lp_fail *fail)
{
	return read_rec_more(rec, obj, o, NULL, at, fail);
}

int lp_record_read_json(const struct lp_record *rec, void *obj, const json_t *o,
			struct lp_fail *fail)
{
	return read_rec(rec, obj, o, NULL, fail);
}

int lp_record_read_json_more(const struct lp_record *rec, void *obj, const json_t *o,
			     const char *const *more, struct lp_fail *fail)
{
	return read_rec_more(rec, obj, o, more, NULL, fail);
}

static json_t *loaded(json_t *root, const json_error_t *err, struct lp_fail *fail)
{
	if (!root && err->line < 0) /* not read at all */
		lp_fail_set(fail, -EINVAL, "%s", err->text);
	else if (!root)
		lp_fail_set(fail, -EINVAL, "not JSON: %s (line %d)", err->text, err->line);
	return root;
}

json_t *lp_record_loadb(const char *buf, size_t len, struct lp_fail *fail)
{
	json_error_t err;

	return loaded(json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err), &err, fail);
}

json_t *lp_record_load_file(const char *path, struct lp_fail *fail)
{
	json_error_t err;

	return loaded(json_load_file(path, JSON_REJECT_DUPLICATES, &err), &err, fail);
}

/* ---- reading columns --------------------------------------------------------------------- */

/* The reading of one columns object: its columns checked once, then entry by entry. */
struct cols {
	const struct lp_record *rec;
	uint64_t skip;
	const json_t *o;
	size_t n;
	size_t *cursor; /* sparse fields: the next "at" index, per field */
};

/* Check the shape of the columns of rec in o (each column n entries, or one value). */
static int cols_check(const struct lp_record *rec, uint64_t skip, const json_t *o, size_t n,
		      bool top, const struct at *at, struct lp_fail *fail)
{
	const char *key;
	const json_t *v;

	if (!json_is_object(o))
		return bad(at, fail, "%s where an object of columns belongs", jtype(o));
	json_object_foreach((json_t *)o, key, v)
	{
		if (!(top && (!strcmp(key, "n") || !strcmp(key, "rows"))) &&
		    !field_of(rec, skip, key))
			return bad(at, fail, "unknown column \"%.40s\"", key);
	}
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct lp_rec_field *f = &rec->fields[i];
		struct at here = { at, key_of(f), 0 };
		const json_t *c;

		if ((skip >> i & 1) || !in_json(f))
			continue;
		c = json_object_get(o, key_of(f));
		if (!c)
			return bad(&here, fail, "missing");
		if (top && (f->flags & LP_REC_F_SPARSE)) {
			const json_t *atv = json_object_get(c, "at"),
				     *vals = json_object_get(c, "values");

			if (!json_is_array(atv) || !json_is_array(vals) ||
			    json_array_size(atv) != json_array_size(vals) ||
			    json_object_size(c) != 2)
				return bad(&here, fail,
					   "want {\"at\": [...], \"values\": [...]} of one length");
		} else if (f->type == LP_REC_T_NEST && !is_list(f)) {
			int rc = cols_check(f->rec, 0, c, n, false, &here, fail);

			if (rc)
				return rc;
		} else if (json_is_array(c) && !is_list(f) && json_array_size(c) != n) {
			return bad(&here, fail, "%zu entries, want %zu", json_array_size(c), n);
		}
	}
	return 0;
}

/* The entry k of a column (one value for all: itself); NULL when a list column is ambiguous. */
static const json_t *col_at(const struct lp_rec_field *f, const json_t *c, size_t k, size_t n)
{
	if (!json_is_array(c))
		return c;
	if (!is_list(f))
		return json_array_get(c, k);
	/* a list field: an array of per-entry arrays, or one array for every entry */
	return json_array_size(c) == n && (!n || json_is_array(json_array_get(c, 0)))
		       ? json_array_get(c, k)
		       : c;
}

static int cols_entry(const struct cols *cs, const struct lp_record *rec, uint64_t skip,
		      const json_t *o, uint8_t *obj, size_t k, bool top, const struct at *at,
		      struct lp_fail *fail)
{
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct lp_rec_field *f = &rec->fields[i];
		const json_t *c, *v;
		struct at here = { at, key_of(f), 0 }, idx = { &here, NULL, k };
		int rc;

		if ((skip >> i & 1) || !in_json(f))
			continue;
		c = json_object_get(o, key_of(f));
		if (top && (f->flags & LP_REC_F_SPARSE)) {
			const json_t *atv = json_object_get(c, "at"),
				     *x = json_array_get(atv, cs->cursor[i]);

			if (!x)
				continue; /* every set entry read: the rest are defaults */
			if (!json_is_integer(x) || json_integer_value(x) < (json_int_t)k ||
			    (size_t)json_integer_value(x) >= cs->n)
				return bad(&here, fail, "at: not ascending indices below n");
			if (json_integer_value(x) != (json_int_t)k)
				continue;
			v = json_array_get(json_object_get(c, "values"), cs->cursor[i]++);
		} else if (f->type == LP_REC_T_NEST && !is_list(f)) {
			rc = cols_entry(cs, f->rec, 0, c, obj + f->off, k, false, &idx, fail);
			if (rc)
				return rc;
			continue;
		} else {
			v = col_at(f, c, k, cs->n);
		}
		rc = read_field(rec, f, obj, v, &idx, fail);
		if (rc)
			return rc;
	}
	return 0;
}

/* The rows list and the column that carries n, checked: 0 or -EINVAL. */
static int cols_rows(const struct cols *cs, const json_t *rows, size_t max_rows,
		     struct lp_fail *fail)
{
	size_t n = cs->n;
	json_int_t last = -1;

	if (rows) {
		if (!json_is_array(rows) || json_array_size(rows) != n)
			return bad(NULL, fail, "rows: want %zu ascending row indices", n);
		for (size_t k = 0; k < n; k++) {
			const json_t *r = json_array_get(rows, k);

			if (!json_is_integer(r) || json_integer_value(r) <= last ||
			    (uint64_t)json_integer_value(r) >= max_rows)
				return bad(NULL, fail,
					   "rows[%zu]: not an ascending row index below %zu", k,
					   max_rows);
			last = json_integer_value(r);
		}
		return 0;
	}
	if (n > max_rows)
		return bad(NULL, fail, "n %zu is over %zu rows", n, max_rows);
	for (size_t i = 0; i < cs->rec->nfields; i++) {
		const struct lp_rec_field *f = &cs->rec->fields[i];

		if ((cs->skip >> i & 1) || !in_json(f) || (f->flags & LP_REC_F_SPARSE) ||
		    (f->type == LP_REC_T_NEST && !is_list(f)))
			continue;
		if (n && !json_is_array(json_object_get(cs->o, key_of(f))))
			return bad(NULL, fail, "%s: its first column must be an array of n",
				   key_of(f));
		return 0;
	}
	return n ? bad(NULL, fail, "no column carries n") : 0;
}

int lp_record_read_columns(const struct lp_record *rec, uint64_t skip, const json_t *o,
			   size_t max_rows, void *obj, const void *tmpl,
			   int (*each)(void *obj, size_t row, void *arg), void *arg,
			   struct lp_fail *fail)
{
	const json_t *nv = json_object_get(o, "n"), *rows = json_object_get(o, "rows");
	struct cols cs = { rec, skip, o, 0, NULL };
	int rc;

	if (!json_is_object(o) || !json_is_integer(nv) || json_integer_value(nv) < 0)
		return bad(NULL, fail, "not an object of columns with n");
	cs.n = (size_t)json_integer_value(nv);
	rc = cols_rows(&cs, rows, max_rows, fail);
	if (!rc)
		rc = cols_check(rec, skip, o, cs.n, true, NULL, fail);
	if (rc)
		return rc;
	cs.cursor = calloc(rec->nfields + 1, sizeof(*cs.cursor));
	if (!cs.cursor)
		return -ENOMEM;
	for (size_t k = 0; k < cs.n && !rc; k++) {
		memcpy(obj, tmpl, rec->size);
		rc = cols_entry(&cs, rec, skip, o, obj, k, true, NULL, fail);
		if (!rc && rec->check && rec->check(obj, fail))
			rc = -EINVAL;
		if (!rc)
			rc = each(obj,
				  rows ? (size_t)json_integer_value(json_array_get(rows, k)) : k,
				  arg);
	}
	for (size_t i = 0; i < rec->nfields && !rc; i++)
		if (!(skip >> i & 1) && (rec->fields[i].flags & LP_REC_F_SPARSE) &&
		    cs.cursor[i] != json_array_size(json_object_get(
					    json_object_get(o, key_of(&rec->fields[i])), "at")))
			rc = bad(NULL, fail, "%s.at: not ascending indices below n",
				 key_of(&rec->fields[i]));
	free(cs.cursor);
	return rc;
}

#else
int lp_record_read_json(const struct lp_record *rec, void *obj, const struct json_t *o,
			struct lp_fail *fail)
{
	(void)rec;
	(void)obj;
	(void)o;
	return lp_fail_set(fail, -ENOTSUP, "built without a JSON library (libjansson-dev)");
}

struct json_t *lp_record_loadb(const char *buf, size_t len, struct lp_fail *fail)
{
	(void)buf;
	(void)len;
	lp_fail_set(fail, -ENOTSUP, "built without a JSON library (libjansson-dev)");
	return NULL;
}

struct json_t *lp_record_load_file(const char *path, struct lp_fail *fail)
{
	return lp_record_loadb(path, 0, fail);
}

int lp_record_read_columns(const struct lp_record *rec, uint64_t skip, const struct json_t *o,
			   size_t max_rows, void *obj, const void *tmpl,
			   int (*each)(void *obj, size_t row, void *arg), void *arg,
			   struct lp_fail *fail)
{
	(void)rec;
	(void)skip;
	(void)o;
	(void)max_rows;
	(void)obj;
	(void)tmpl;
	(void)each;
	(void)arg;
	return lp_record_read_json(NULL, NULL, NULL, fail);
}
#endif
