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
	table_reset(t, ncols, left_cols, indent);
}

void table_reset(struct table *t, int ncols, unsigned int left_cols, int indent)
{
	t->ncols = ncols > TABLE_MAX_COLS ? TABLE_MAX_COLS : ncols;
	t->left = left_cols;
	t->indent = indent;
	t->nrows = 0;
	t->oom = false;
	t->pool_len = 0;
	memset(t->width, 0, sizeof(t->width));
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

/* room for @n more bytes in the pool */
static bool pool_room(struct table *t, size_t n)
{
	size_t cap = t->pool_cap ? t->pool_cap : 4096;
	char *p;

	if (t->pool_len + n <= t->pool_cap)
		return true;
	while (cap < t->pool_len + n)
		cap *= 2;
	if (cap > UINT32_MAX)
		return false;
	p = realloc(t->pool, cap);
	if (!p)
		return false;
	t->pool = p;
	t->pool_cap = cap;
	return true;
}

void table_cell(struct table *t, int col, const char *fmt, ...)
{
	struct table_cellref *cell;
	const unsigned char *s;
	bool plain = true;
	va_list ap;
	size_t len;
	int n;

	if (!t->nrows || col < 0 || col >= t->ncols)
		return;
	cell = &t->cells[t->nrows - 1][col];
	cell->off = 0;
	va_start(ap, fmt);
	if (!strcmp(fmt, "%s")) {	/* the common case: no printf */
		const char *arg = va_arg(ap, const char *);

		len = strlen(arg);
		if (!pool_room(t, len + 1)) {
			va_end(ap);
			t->oom = true;
			return;
		}
		memcpy(t->pool + t->pool_len, arg, len + 1);
	} else {
		size_t avail = t->pool_cap - t->pool_len;
		va_list aq;

		va_copy(aq, ap);
		n = vsnprintf(avail ? t->pool + t->pool_len : NULL, avail, fmt, aq);
		va_end(aq);
		if (n >= 0 && (size_t)n + 1 > avail) {	/* did not fit: grow, again */
			if (!pool_room(t, (size_t)n + 1))
				n = -1;
			else
				vsnprintf(t->pool + t->pool_len, (size_t)n + 1, fmt, ap);
		}
		if (n < 0) {
			va_end(ap);
			t->oom = true;
			return;
		}
		len = (size_t)n;
	}
	va_end(ap);
	s = (const unsigned char *)t->pool + t->pool_len;
	for (size_t i = 0; i < len && plain; i++)
		plain = s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\';
	cell->off = (uint32_t)t->pool_len + 1;
	cell->plain = plain;
	cell->width = plain ? (uint32_t)len : (uint32_t)esc_text_width((const char *)s);
	t->pool_len += len + 1;
	if ((int)cell->width > t->width[col])
		t->width[col] = (int)cell->width;
}

const char *table_text(const struct table *t, int row, int col)
{
	uint32_t off = t->cells[row][col].off;

	return off ? t->pool + off - 1 : "";
}

void table_drop_empty(struct table *t, int header_rows)
{
	for (int c = 0; c < t->ncols; c++) {
		bool empty = true;

		for (int r = header_rows; r < t->nrows && empty; r++)
			empty = !*table_text(t, r, c);
		if (empty && t->nrows > header_rows)
			t->width[c] = -1;
	}
}

/* @n spaces */
static void pad(FILE *f, int n)
{
	static const char sp[] = "                                                                ";

	while (n > 0) {
		int k = n < (int)sizeof(sp) - 1 ? n : (int)sizeof(sp) - 1;

		fwrite(sp, 1, (size_t)k, f);
		n -= k;
	}
}

/* cells quote the outside (names): printed escaped unless plain */
static void put_cell(FILE *f, const struct table_cellref *cell, const char *s)
{
	if (cell->plain)
		fwrite(s, 1, strlen(s), f);
	else
		esc_text_fputs(s, f);
}

void table_print(const struct table *t, FILE *f)
{
	for (int r = 0; r < t->nrows; r++) {
		int pending = 0;	/* spaces owed before the next cell */

		pad(f, t->indent);
		for (int c = 0, first = 1; c < t->ncols; c++) {
			const struct table_cellref *cell = &t->cells[r][c];
			const char *s = table_text(t, r, c);
			int w = t->width[c];

			if (w < 0)
				continue;
			if (!first)
				pending += 2;
			first = 0;
			/* an empty cell is owed like padding: no spaces end a line */
			if (!*s) {
				pending += w;
				continue;
			}
			if (t->left & (1u << c)) {
				pad(f, pending);
				put_cell(f, cell, s);
				pending = w - (int)cell->width;
			} else {
				pad(f, pending + w - (int)cell->width);
				put_cell(f, cell, s);
				pending = 0;
			}
		}
		fputc('\n', f);
	}
}

void table_free(struct table *t)
{
	free(t->cells);
	free(t->pool);
	memset(t, 0, sizeof(*t));
}
