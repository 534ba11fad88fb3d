/* SPDX-License-Identifier: MIT */
/* Inside common/: what the record's wire side (record.c) and JSON side (record_json.c) share. */
#ifndef LP_COMMON_INTERNAL_H
#define LP_COMMON_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/record.h"

/* An integer element (or an enum's) widened to 64 bits (signed types sign-extended). */
uint64_t lp_rec_load_int(const struct lp_rec_field *f, const uint8_t *p);
/* Store v into an integer element of f->size bytes. */
void lp_rec_store_int(const struct lp_rec_field *f, uint8_t *p, uint64_t v);
/* An unsigned integer member of 1, 2, 4 or 8 bytes (a count) as uint64_t. */
uint64_t lp_rec_load_uint(const uint8_t *p, size_t size);
bool lp_rec_is_signed(const struct lp_rec_field *f);
/* v is within the field's type, declared range and (enum) table. */
bool lp_rec_in_range(const struct lp_rec_field *f, uint64_t v);
/* Entries of an enum's or a name's table. */
size_t lp_rec_nnames(const struct lp_rec_field *f);
/* Elements that travel: 1 for a plain member, the count for an array or vec (-1: over max). */
int64_t lp_rec_elems(const struct lp_rec_field *f, const uint8_t *obj);
/* Where element k of field f of obj is (a vec: in its allocation). */
const uint8_t *lp_rec_elem(const struct lp_rec_field *f, const uint8_t *obj, size_t k);
/* The name table index of a name member's pointer; -1 when it is not in the table. */
int lp_rec_name_index(const struct lp_rec_field *f, const uint8_t *p);

#endif
