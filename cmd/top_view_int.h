/* SPDX-License-Identifier: GPL-2.0-only */
/* Private to cmd/top_view.c and cmd/top_draw.c: what the terminal half
 * found out (colours, UTF-8) and the colour pairs it set up. */
#ifndef BQLTOOL_CMD_TOP_VIEW_INT_H
#define BQLTOOL_CMD_TOP_VIEW_INT_H

#include <stdbool.h>

enum {
	PAIR_COLHDR = 1, PAIR_CURSOR, PAIR_LOW, PAIR_MID, PAIR_HIGH, PAIR_NEW,
	PAIR_GONE, PAIR_WARN, PAIR_KEY, PAIR_SPARK, PAIR_TITLE,
};

#define HEADER_ROWS	3	/* title, counts, news */

/* set by tv_init: colours in use, the locale is UTF-8 */
struct tv_term {
	bool color, utf8;
};
extern struct tv_term tv_term;

#endif
