/* SPDX-License-Identifier: MIT */
/*
 * Documents as trees of records (common/record.h). An object of a document is
 * a list of parts, each part one record: its fields inline in the object, or
 * nested under a key; a part may be present only when a flag of the view says
 * so (a latency test has no "bandwidth"). A part may instead nest an object of
 * parts, hold an array of records or objects, or be an open member that its
 * own module writes (the port counters, the pre-flight report) with the JSON
 * types its schema allows.
 *
 * lp_recdoc_write() writes an object from a view: one struct holding every
 * part's struct at the offset its part names. lp_recdoc_schema() writes the
 * object's JSON Schema (draft 2020-12) from the same declarations, so a
 * document's published schema (docs/schema/) and the document cannot drift:
 * the tests validate every document the tools emit against it.
 */
#ifndef LP_RECDOC_H
#define LP_RECDOC_H

#include <stdbool.h>
#include <stddef.h>

#include "common/json.h"
#include "common/meta.h"
#include "common/record.h"

struct lp_recdoc_obj;

enum lp_recdoc_kind {
	LP_RECDOC_FIELDS, /* the record's fields are members of this object (no key) */
	LP_RECDOC_NEST,	  /* the record as an object under key */
	LP_RECDOC_OBJ,	  /* an object of parts (obj) under key, from the same view */
	LP_RECDOC_ARRAY,  /* an array under key: elements are rec or obj; the caller writes it */
	LP_RECDOC_OPEN,	  /* a member the caller writes; its schema allows `types` */
};

struct lp_recdoc_part {
	enum lp_recdoc_kind kind;
	const char *key;
	const struct lp_record *rec;
	const struct lp_recdoc_obj *obj;
	size_t off;	   /* the part's struct in the view (FIELDS, NEST, OBJ) */
	size_t when;	   /* 1 + offset of a bool in the view: present only when true; 0: always */
	const char *types; /* OPEN: its JSON types, "object", "object|null", "string|null", ... */
	bool later; /* OPEN: added by another writer afterwards (optional, never written here) */
	const char *about; /* the schema's description of the member, or NULL */
};

struct lp_recdoc_obj {
	const struct lp_recdoc_part *parts;
	size_t n;
};

/* A part's presence flag: bool member m of view type T. */
#define LP_RECDOC_WHEN(T, m) .when = 1 + offsetof(T, m)
#define LP_RECDOC_OBJ_OF(parts)                                                                    \
	{                                                                                          \
		(parts), sizeof(parts) / sizeof((parts)[0])                                        \
	}

/*
 * The members of obj from view into the current JSON object, in part order.
 * ARRAY and OPEN parts that are present call member(ctx, key, j), which writes
 * the member (key and value).
 */
void lp_recdoc_write(const struct lp_recdoc_obj *obj, const void *view, struct lp_json *j,
		     void (*member)(const void *ctx, const char *key, struct lp_json *j),
		     const void *ctx);

/*
 * The JSON Schema of obj as members of the current JSON object: "type",
 * "properties", "required" (the parts present always) and
 * "additionalProperties": false.
 */
void lp_recdoc_schema(const struct lp_recdoc_obj *obj, struct lp_json *j);
/* The same for one record's fields. */
void lp_recdoc_record_schema(const struct lp_record *rec, struct lp_json *j);

/*
 * A whole schema document: "$schema", "$id" (id, e.g. "linkperf.rdma/2"),
 * "title", then obj's schema, to f. 0 or the JSON writer's error.
 */
int lp_recdoc_schema_doc(FILE *f, const char *id, const char *title,
			 const struct lp_recdoc_obj *obj);

/* The host block every document carries (struct lp_host_meta, common/meta.h). */
extern const struct lp_record lp_host_meta_record;

#endif
