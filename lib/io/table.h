/* SPDX-License-Identifier: GPL-2.0-only */
/* Aligned text tables: cells are added row by row, printed once. */
#ifndef BQLTOOL_LIB_TABLE_H
#define BQLTOOL_LIB_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define TABLE_MAX_COLS	24

/* one cell: its text in the table's pool (off 0: empty) and display width */
struct table_cellref {
	uint32_t off;		/* 1 + offset in @pool; 0: empty */
	uint32_t width : 31;
	uint32_t plain : 1;	/* printable ASCII without '\\': printed as is */
};

/*
 * Cells are as long as their text: a long queue name is never cut. Their
 * text lives in one pool: a table reset with table_reset() and filled
 * again allocates nothing once it has grown to its size.
 */
struct table {
	int ncols;
	int nrows, caprows;
	bool oom;		/* a cell could not be stored: table_row() fails */
	struct table_cellref (*cells)[TABLE_MAX_COLS];
	char *pool;
	size_t pool_len, pool_cap;
	int width[TABLE_MAX_COLS];
	unsigned int left;	/* bit per column: left-aligned (default right) */
	int indent;
};

void table_init(struct table *t, int ncols, unsigned int left_cols, int indent);
/* table_init() that keeps the memory of @t (initialised before) for reuse */
void table_reset(struct table *t, int ncols, unsigned int left_cols, int indent);
/*
 * Append a row; returns 0 or -ENOMEM (also when a cell of an earlier row
 * could not be stored). Unused cells stay empty.
 */
int table_row(struct table *t);
void table_cell(struct table *t, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* a cell's text without printf: @len bytes of @s (no NUL needed), or a string */
void table_cell_n(struct table *t, int col, const char *s, size_t len);
void table_cell_str(struct table *t, int col, const char *s);
/* the text of a cell ("" when empty) */
const char *table_text(const struct table *t, int row, int col);
/* Drop columns whose every non-header cell is empty. */
void table_drop_empty(struct table *t, int header_rows);
void table_print(const struct table *t, FILE *f);
void table_free(struct table *t);

#endif
