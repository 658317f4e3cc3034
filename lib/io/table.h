/* SPDX-License-Identifier: GPL-2.0-only */
/* Aligned text tables: cells are added row by row, printed once. */
#ifndef BQLTOOL_LIB_TABLE_H
#define BQLTOOL_LIB_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#define TABLE_MAX_COLS	24

/* cells are as long as their text: a long queue name is never cut */
struct table {
	int ncols;
	int nrows, caprows;
	bool oom;		/* a cell could not be stored: table_row() fails */
	char *(*cells)[TABLE_MAX_COLS];	/* NULL: empty */
	int width[TABLE_MAX_COLS];
	unsigned int left;	/* bit per column: left-aligned (default right) */
	int indent;
};

void table_init(struct table *t, int ncols, unsigned int left_cols, int indent);
/*
 * Append a row; returns 0 or -ENOMEM (also when a cell of an earlier row
 * could not be stored). Unused cells stay empty.
 */
int table_row(struct table *t);
void table_cell(struct table *t, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Drop columns whose every non-header cell is empty. */
void table_drop_empty(struct table *t, int header_rows);
void table_print(const struct table *t, FILE *f);
void table_free(struct table *t);

#endif
