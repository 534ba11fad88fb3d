// SPDX-License-Identifier: MIT
/* Documents as trees of records, and their JSON Schema (common/recdoc.h). */
#include "common/recdoc.h"

#include <stdint.h>
#include <string.h>

/* clang-format off */
const struct lp_record lp_host_meta_record = LP_RECORD(struct lp_host_meta,
	LP_REC_STR(struct lp_host_meta, host),
	LP_REC_STR(struct lp_host_meta, kernel),
	LP_REC_STR(struct lp_host_meta, arch),
	LP_REC_STR(struct lp_host_meta, cpu),
	LP_REC_U32(struct lp_host_meta, ncpus),
	LP_REC_STR(struct lp_host_meta, time));
/* clang-format on */

static bool present(const struct lp_recdoc_part *p, const void *view)
{
	if (p->later)
		return false;
	return !p->when || *(const bool *)((const char *)view + p->when - 1);
}

void lp_recdoc_write(const struct lp_recdoc_obj *obj, const void *view, struct lp_json *j,
		     void (*member)(const void *ctx, const char *key, struct lp_json *j),
		     const void *ctx)
{
	for (size_t i = 0; i < obj->n; i++) {
		const struct lp_recdoc_part *p = &obj->parts[i];
		const char *at = (const char *)view + p->off;

		if (!present(p, view))
			continue;
		switch (p->kind) {
		case LP_RECDOC_FIELDS:
			lp_record_json(p->rec, at, j);
			break;
		case LP_RECDOC_NEST:
			lp_json_obj_begin(j, p->key);
			lp_record_json(p->rec, at, j);
			lp_json_obj_end(j);
			break;
		case LP_RECDOC_OBJ:
			lp_json_obj_begin(j, p->key);
			lp_recdoc_write(p->obj, view, j, member, ctx);
			lp_json_obj_end(j);
			break;
		case LP_RECDOC_ARRAY:
		case LP_RECDOC_OPEN:
			member(ctx, p->key, j);
			break;
		}
	}
}

/* ---- the schema ---------------------------------------------------------------------------- */

/* "type": "x" or ["x", "y"] from "x|y". */
static void schema_types(struct lp_json *j, const char *types)
{
	char buf[64];
	char *save = NULL, *t;

	if (!strchr(types, '|')) {
		lp_json_str(j, "type", types);
		return;
	}
	snprintf(buf, sizeof(buf), "%s", types);
	lp_json_arr_begin(j, "type");
	for (t = strtok_r(buf, "|", &save); t; t = strtok_r(NULL, "|", &save))
		lp_json_str(j, NULL, t);
	lp_json_arr_end(j);
}

static bool is_unsigned(enum lp_rec_type t)
{
	return t == LP_REC_T_U8 || t == LP_REC_T_U16 || t == LP_REC_T_U32 || t == LP_REC_T_U64;
}

/* The largest value an unsigned member of `size` bytes holds (JSON numbers: up to 2^64-1). */
static uint64_t umax(size_t size)
{
	return size >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * size)) - 1;
}

/* One element of field f: its type, range, length. */
static void elem_schema(const struct lp_rec_field *f, struct lp_json *j)
{
	switch (f->type) {
	case LP_REC_T_F64:
		schema_types(j, "number|null"); /* NaN and infinities are written as null */
		return;
	case LP_REC_T_BOOL:
		lp_json_str(j, "type", "boolean");
		return;
	case LP_REC_T_STR:
		lp_json_str(j, "type", "string");
		lp_json_uint(j, "maxLength", f->size - 1);
		return;
	case LP_REC_T_BYTES:
		lp_json_str(j, "type", "string");
		lp_json_str(j, "pattern", "^[0-9a-f]*$");
		lp_json_uint(j, "maxLength", 2 * f->size);
		return;
	case LP_REC_T_NEST:
		lp_recdoc_record_schema(f->rec, j);
		return;
	default:
		break;
	}
	lp_json_str(j, "type", "integer");
	if (f->ranged) {
		lp_json_int(j, "minimum", f->lo);
		lp_json_int(j, "maximum", f->hi);
	} else if (is_unsigned(f->type)) {
		lp_json_uint(j, "minimum", 0);
		lp_json_uint(j, "maximum", umax(f->size));
	}
}

static void field_schema(const struct lp_rec_field *f, struct lp_json *j)
{
	lp_json_obj_begin(j, f->key ? f->key : f->name);
	if (f->max) {
		lp_json_str(j, "type", "array");
		lp_json_uint(j, "maxItems", f->max);
		lp_json_obj_begin(j, "items");
		elem_schema(f, j);
		lp_json_obj_end(j);
	} else {
		elem_schema(f, j);
	}
	lp_json_obj_end(j);
}

static bool in_json(const struct lp_rec_field *f)
{
	return !(f->flags & LP_REC_F_NOJSON);
}

/* The properties of rec's fields (members of the current "properties" object). */
static void record_properties(const struct lp_record *rec, struct lp_json *j)
{
	for (size_t i = 0; i < rec->nfields; i++)
		if (in_json(&rec->fields[i]))
			field_schema(&rec->fields[i], j);
}

static void record_required(const struct lp_record *rec, struct lp_json *j)
{
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct lp_rec_field *f = &rec->fields[i];

		if (in_json(f))
			lp_json_str(j, NULL, f->key ? f->key : f->name);
	}
}

void lp_recdoc_record_schema(const struct lp_record *rec, struct lp_json *j)
{
	lp_json_str(j, "type", "object");
	lp_json_obj_begin(j, "properties");
	record_properties(rec, j);
	lp_json_obj_end(j);
	lp_json_arr_begin(j, "required");
	record_required(rec, j);
	lp_json_arr_end(j);
	lp_json_bool(j, "additionalProperties", false);
}

/* The schema of one keyed part (the value under its key). */
static void part_schema(const struct lp_recdoc_part *p, struct lp_json *j)
{
	lp_json_obj_begin(j, p->key);
	if (p->about)
		lp_json_str(j, "description", p->about);
	if (p->kind == LP_RECDOC_NEST) {
		lp_recdoc_record_schema(p->rec, j);
	} else if (p->kind == LP_RECDOC_OBJ) {
		lp_recdoc_schema(p->obj, j);
	} else if (p->kind == LP_RECDOC_ARRAY) {
		lp_json_str(j, "type", "array");
		lp_json_obj_begin(j, "items");
		if (p->rec)
			lp_recdoc_record_schema(p->rec, j);
		else if (p->obj)
			lp_recdoc_schema(p->obj, j);
		else
			schema_types(j, p->types);
		lp_json_obj_end(j);
	} else {
		schema_types(j, p->types);
	}
	lp_json_obj_end(j);
}

void lp_recdoc_schema(const struct lp_recdoc_obj *obj, struct lp_json *j)
{
	lp_json_str(j, "type", "object");
	lp_json_obj_begin(j, "properties");
	for (size_t i = 0; i < obj->n; i++) {
		if (obj->parts[i].kind == LP_RECDOC_FIELDS)
			record_properties(obj->parts[i].rec, j);
		else
			part_schema(&obj->parts[i], j);
	}
	lp_json_obj_end(j);
	lp_json_arr_begin(j, "required");
	for (size_t i = 0; i < obj->n; i++) {
		const struct lp_recdoc_part *p = &obj->parts[i];

		if (p->when || p->later)
			continue;
		if (p->kind == LP_RECDOC_FIELDS)
			record_required(p->rec, j);
		else
			lp_json_str(j, NULL, p->key);
	}
	lp_json_arr_end(j);
	lp_json_bool(j, "additionalProperties", false);
}

int lp_recdoc_schema_doc(FILE *f, const char *id, const char *title,
			 const struct lp_recdoc_obj *obj)
{
	struct lp_json j;

	lp_json_init(&j, f, true);
	lp_json_obj_begin(&j, NULL);
	lp_json_str(&j, "$schema", "https://json-schema.org/draft/2020-12/schema");
	lp_json_str(&j, "$id", id);
	lp_json_str(&j, "title", title);
	lp_recdoc_schema(obj, &j);
	lp_json_obj_end(&j);
	return lp_json_finish(&j);
}
