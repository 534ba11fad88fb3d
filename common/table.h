/* SPDX-License-Identifier: MIT */
/*
 * Text sinks: an aligned table for people and RFC 4180 CSV for programs.
 * Rows are collected first so column widths fit the widest cell.
 */
#ifndef LP_TABLE_H
#define LP_TABLE_H

#include <stdio.h>

#include "common/units.h"

#define LP_TABLE_MAX_COLS 24
#define LP_TABLE_CELL	  40

struct lp_table {
	unsigned ncols, nrows, cap;
	char (*cells)[LP_TABLE_MAX_COLS][LP_TABLE_CELL]; /* row 0 is the header */
	int err;
};

/* header: ncols column names. Returns 0 or -ENOMEM / -E2BIG. */
int lp_table_init(struct lp_table *t, unsigned ncols, const char *const *header);
void lp_table_free(struct lp_table *t);
/* Start a row; then set cells with lp_table_set (printf-style). */
int lp_table_row(struct lp_table *t);
void lp_table_set(struct lp_table *t, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Right-aligned columns (by display width: LP_NA is one column), two spaces apart. */
void lp_table_print(const struct lp_table *t, FILE *f);
/* The same rows as CSV (header line first). */
void lp_table_csv(const struct lp_table *t, FILE *f);
/* Append printf output to the string in buf (len bytes in all), truncated to fit. */
void lp_strcatf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* One CSV field, quoted when it holds a comma, quote or newline; then a comma or the newline. */
void lp_csv_field(FILE *f, const char *s, int last);
/* The same field alone (no separator after it). */
void lp_csv_text(FILE *f, const char *s);

#endif
