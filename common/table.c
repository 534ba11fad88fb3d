// SPDX-License-Identifier: MIT
#include "table.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int lp_table_init(struct lp_table *t, unsigned ncols, const char *const *header)
{
	memset(t, 0, sizeof(*t));
	if (ncols > LP_TABLE_MAX_COLS)
		return -E2BIG;
	t->ncols = ncols;
	if (lp_table_row(t))
		return -ENOMEM;
	for (unsigned c = 0; c < ncols; c++)
		lp_table_set(t, c, "%s", header[c]);
	return 0;
}

void lp_table_free(struct lp_table *t)
{
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

int lp_table_row(struct lp_table *t)
{
	if (t->nrows == t->cap) {
		unsigned cap = t->cap ? 2 * t->cap : 16;
		void *p = realloc(t->cells, cap * sizeof(*t->cells));

		if (!p) {
			t->err = -ENOMEM;
			return t->err;
		}
		t->cells = p;
		t->cap = cap;
	}
	memset(t->cells[t->nrows], 0, sizeof(t->cells[0]));
	t->nrows++;
	return 0;
}

void lp_table_set(struct lp_table *t, unsigned col, const char *fmt, ...)
{
	va_list ap;

	if (!t->nrows || col >= t->ncols)
		return;
	va_start(ap, fmt);
	vsnprintf(t->cells[t->nrows - 1][col], LP_TABLE_CELL, fmt, ap);
	va_end(ap);
}

void lp_table_print(const struct lp_table *t, FILE *f)
{
	size_t w[LP_TABLE_MAX_COLS] = { 0 };

	for (unsigned r = 0; r < t->nrows; r++)
		for (unsigned c = 0; c < t->ncols; c++)
			if ((size_t)lp_fmt_cols(t->cells[r][c]) > w[c])
				w[c] = (size_t)lp_fmt_cols(t->cells[r][c]);
	for (unsigned r = 0; r < t->nrows; r++) {
		for (unsigned c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r][c];

			fprintf(f, "%s%*s", c ? "  " : "", (int)(w[c] + strlen(s)) - lp_fmt_cols(s),
				s);
		}
		fputc('\n', f);
	}
}

void lp_csv_text(FILE *f, const char *s)
{
	if (strpbrk(s, ",\"\n\r")) {
		fputc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else {
		fputs(s, f);
	}
}

void lp_csv_field(FILE *f, const char *s, int last)
{
	lp_csv_text(f, s);
	fputc(last ? '\n' : ',', f);
}

void lp_table_csv(const struct lp_table *t, FILE *f)
{
	for (unsigned r = 0; r < t->nrows; r++)
		for (unsigned c = 0; c < t->ncols; c++)
			lp_csv_field(f, t->cells[r][c], c + 1 == t->ncols);
}

void lp_strcatf(char *buf, size_t len, const char *fmt, ...)
{
	size_t l = strlen(buf);
	va_list ap;

	if (l + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + l, len - l, fmt, ap);
	va_end(ap);
}
