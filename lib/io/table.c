// SPDX-License-Identifier: GPL-2.0-only
/* Aligned text tables. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/io/esc.h"
#include "lib/io/table.h"

void table_init(struct table *t, int ncols, unsigned int left_cols, int indent)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols > TABLE_MAX_COLS ? TABLE_MAX_COLS : ncols;
	t->left = left_cols;
	t->indent = indent;
}

int table_row(struct table *t)
{
	if (t->oom)
		return -ENOMEM;
	if (t->nrows == t->caprows) {
		int cap = t->caprows ? t->caprows * 2 : 16;
		void *n = realloc(t->cells, (size_t)cap * sizeof(*t->cells));

		if (!n)
			return -ENOMEM;
		t->cells = n;
		t->caprows = cap;
	}
	memset(t->cells[t->nrows], 0, sizeof(t->cells[0]));
	t->nrows++;
	return 0;
}

void table_cell(struct table *t, int col, const char *fmt, ...)
{
	char **cell;
	va_list ap;
	int len;

	if (!t->nrows || col < 0 || col >= t->ncols)
		return;
	cell = &t->cells[t->nrows - 1][col];
	free(*cell);
	*cell = NULL;
	va_start(ap, fmt);
	len = vasprintf(cell, fmt, ap);
	va_end(ap);
	if (len < 0) {
		*cell = NULL;
		t->oom = true;
		return;
	}
	len = (int)esc_text_width(*cell);
	if (len > t->width[col])
		t->width[col] = len;
}

void table_drop_empty(struct table *t, int header_rows)
{
	for (int c = 0; c < t->ncols; c++) {
		bool empty = true;

		for (int r = header_rows; r < t->nrows && empty; r++)
			empty = !t->cells[r][c] || !t->cells[r][c][0];
		if (empty && t->nrows > header_rows)
			t->width[c] = -1;
	}
}

void table_print(const struct table *t, FILE *f)
{
	for (int r = 0; r < t->nrows; r++) {
		int pending = 0;	/* spaces owed before the next cell */

		fprintf(f, "%*s", t->indent, "");
		for (int c = 0, first = 1; c < t->ncols; c++) {
			const char *s = t->cells[r][c] ? t->cells[r][c] : "";
			int w = t->width[c];

			if (w < 0)
				continue;
			if (!first)
				pending += 2;
			first = 0;
			/* cells quote the outside (names): printed escaped */
			if (t->left & (1u << c)) {
				if (!*s) {	/* nothing to print: no spaces at the end of a row */
					pending += w;
					continue;
				}
				fprintf(f, "%*s", pending, "");
				esc_text_fputs(s, f);
				pending = w - (int)esc_text_width(s);
			} else {
				fprintf(f, "%*s", pending + w - (int)esc_text_width(s), "");
				esc_text_fputs(s, f);
				pending = 0;
			}
		}
		fputc('\n', f);
	}
}

void table_free(struct table *t)
{
	for (int r = 0; r < t->nrows; r++)
		for (int c = 0; c < TABLE_MAX_COLS; c++)
			free(t->cells[r][c]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}
