// SPDX-License-Identifier: GPL-2.0-only
/* Aligned text tables. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/io/esc.h"
#include "lib/io/out.h"
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

/* the cell @col of the last row: its text, @len bytes at the pool's end, stored */
static void cell_done(struct table *t, struct table_cellref *cell, int col, size_t len)
{
	const unsigned char *s = (const unsigned char *)t->pool + t->pool_len;
	bool plain = true;

	for (size_t i = 0; i < len && plain; i++)
		plain = s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\';
	cell->off = (uint32_t)t->pool_len + 1;
	cell->plain = plain;
	cell->width = plain ? (uint32_t)len : (uint32_t)esc_text_width((const char *)s);
	t->pool_len += len + 1;
	if ((int)cell->width > t->width[col])
		t->width[col] = (int)cell->width;
}

void table_cell_n(struct table *t, int col, const char *s, size_t len)
{
	struct table_cellref *cell;

	if (!t->nrows || col < 0 || col >= t->ncols)
		return;
	cell = &t->cells[t->nrows - 1][col];
	cell->off = 0;
	if (!pool_room(t, len + 1)) {
		t->oom = true;
		return;
	}
	memcpy(t->pool + t->pool_len, s, len);
	t->pool[t->pool_len + len] = '\0';
	cell_done(t, cell, col, len);
}

void table_cell_str(struct table *t, int col, const char *s)
{
	table_cell_n(t, col, s, strlen(s));
}

void table_cell(struct table *t, int col, const char *fmt, ...)
{
	struct table_cellref *cell;
	size_t avail;
	va_list ap, aq;
	int n;

	if (!strcmp(fmt, "%s")) {	/* the common case: no printf */
		va_start(ap, fmt);
		table_cell_str(t, col, va_arg(ap, const char *));
		va_end(ap);
		return;
	}
	if (!t->nrows || col < 0 || col >= t->ncols)
		return;
	cell = &t->cells[t->nrows - 1][col];
	cell->off = 0;
	avail = t->pool_cap - t->pool_len;
	va_start(ap, fmt);
	va_copy(aq, ap);
	n = vsnprintf(avail ? t->pool + t->pool_len : NULL, avail, fmt, aq);
	va_end(aq);
	if (n >= 0 && (size_t)n + 1 > avail) {	/* did not fit: grow, again */
		if (!pool_room(t, (size_t)n + 1))
			n = -1;
		else
			vsnprintf(t->pool + t->pool_len, (size_t)n + 1, fmt, ap);
	}
	va_end(ap);
	if (n < 0) {
		t->oom = true;
		return;
	}
	cell_done(t, cell, col, (size_t)n);
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

/*
 * The text of a table on its way to @f: lines are put together here and
 * written in large pieces, not cell by cell (top -b prints 4000 rows 10
 * times a second, issue #40)
 */
struct obuf {
	FILE *f;
	size_t len;
	char b[8192];
};

static void ob_flush(struct obuf *o)
{
	if (o->len)
		out_fwrite(o->b, o->len, o->f);
	o->len = 0;
}

static void ob_put(struct obuf *o, const char *s, size_t n)
{
	if (n > sizeof(o->b) - o->len) {
		ob_flush(o);
		if (n > sizeof(o->b)) {
			out_fwrite(s, n, o->f);
			return;
		}
	}
	memcpy(o->b + o->len, s, n);
	o->len += n;
}

/* @n spaces */
static void ob_pad(struct obuf *o, int n)
{
	while (n > 0) {
		size_t room = sizeof(o->b) - o->len, k;

		if (!room) {
			ob_flush(o);
			room = sizeof(o->b);
		}
		k = (size_t)n < room ? (size_t)n : room;
		memset(o->b + o->len, ' ', k);
		o->len += k;
		n -= (int)k;
	}
}

/* cells quote the outside (names): printed escaped unless plain */
static void put_cell(struct obuf *o, const struct table_cellref *cell, const char *s)
{
	if (cell->plain) {
		ob_put(o, s, cell->width);
	} else {
		ob_flush(o);
		esc_text_fputs(s, o->f);
	}
}

void table_print(const struct table *t, FILE *f)
{
	struct obuf ob, *o = &ob;

	o->f = f;
	o->len = 0;
	for (int r = 0; r < t->nrows; r++) {
		int pending = 0;	/* spaces owed before the next cell */

		ob_pad(o, t->indent);
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
				ob_pad(o, pending);
				put_cell(o, cell, s);
				pending = w - (int)cell->width;
			} else {
				ob_pad(o, pending + w - (int)cell->width);
				put_cell(o, cell, s);
				pending = 0;
			}
		}
		ob_put(o, "\n", 1);
	}
	ob_flush(o);
}

void table_free(struct table *t)
{
	free(t->cells);
	free(t->pool);
	memset(t, 0, sizeof(*t));
}
