/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * top's screen (ncurses only, no sysfs): terminal setup and restore, keys
 * with a timeout (top_view.c); the header, the queue table with fill bars
 * and limit sparklines, the help screen, the sort menu and the filter
 * prompt (top_draw.c).
 */
#ifndef BQLTOOL_CMD_TOP_VIEW_H
#define BQLTOOL_CMD_TOP_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/model/topmodel.h"

/* tv_getkey answers: a character (1..255) or one of these */
enum {
	TV_KEY_NONE	= -1,	/* timeout */
	TV_KEY_SIGNAL	= -2,	/* SIGINT, SIGTERM, SIGHUP or SIGQUIT arrived */
	TV_KEY_UP	= 0x1000,
	TV_KEY_DOWN,
	TV_KEY_PGUP,
	TV_KEY_PGDN,
	TV_KEY_HOME,
	TV_KEY_END,
	TV_KEY_ENTER,		/* also '\n' and '\r' */
	TV_KEY_BACKSPACE,	/* also DEL and ^H */
	TV_KEY_ESC,
	TV_KEY_F1,
	TV_KEY_F3,
	TV_KEY_F4,
	TV_KEY_F6,
	TV_KEY_F10,
	TV_KEY_RESIZE,		/* the terminal changed size, or ^L: redraw */
	TV_KEY_OTHER,		/* a key with no meaning here */
};

enum tv_mode { TV_TABLE, TV_HELP, TV_SORT_MENU, TV_FILTER };

struct tv_opts {
	bool color;	/* --color and NO_COLOR allow it (has_colors() decides too) */
};

/**
 * struct tv_frame - everything one screen shows
 * @host: @kernel: from uname
 * @netns: the namespace watched (-n), or NULL
 * @hz: kernel HZ (stall_max is in jiffies)
 * @interval_ns: sampling interval
 * @real_ns: time of the sample shown
 * @paused: sampling stopped
 * @m: the model (rows, counts, sort, filter)
 * @cursor: selected row index
 * @mode: table, help, sort menu or filter prompt
 * @menu_sel: column selected in the sort menu
 * @filter_edit: the filter being typed (TV_FILTER)
 * @message: one line of news (events, errors), or NULL
 * @qstats: per-queue stats from netdev genl are available
 */
struct tv_frame {
	const char *host, *kernel, *netns;
	unsigned int hz;
	uint64_t interval_ns;
	uint64_t real_ns;
	bool paused;
	const struct topmodel *m;
	size_t cursor;
	enum tv_mode mode;
	int menu_sel;
	const char *filter_edit;
	const char *message;
	const char *shortage;	/* what the sampler could not cover, or NULL */
	bool qstats;
	bool qdiscs;		/* some queue's qdisc is known: its columns are shown */
	bool ethtool;		/* some device's ring or coalescing is known */
	bool lat;		/* the latency observer runs: its columns are shown */
	const char *lat_status;	/* "latency on, N queues", "latency off: why"; NULL: not said */
};

/*
 * tv_init - take over the terminal: signal handlers that restore it,
 * stderr buffered in a temp file until tv_done, curses in raw-ish mode.
 * -errno with a message in @err (size @n) if the terminal can't be used.
 */
int tv_init(const struct tv_opts *o, char *err, size_t n);
/* tv_done - restore the terminal and replay buffered stderr; idempotent */
void tv_done(void);
/* wait up to @timeout_ms (-1: forever) for a key; see TV_KEY_* */
int tv_getkey(int timeout_ms);
/* rows of the table area, for page up/down */
int tv_page_rows(void);
/* draw @f; @scroll: first table row shown, adjusted to keep the cursor in view */
void tv_draw(const struct tv_frame *f, size_t *scroll);
/*
 * tv_window - what the table's @rows lines show, scrolled to @scroll with
 * the cursor on row @cursor: the first row of the list (returned), and in
 * *@parent the device row kept on the first line when the list starts
 * among that device's queues, a sticky header as htop keeps a tree's
 * context (then the list has @rows - 1 lines, and starts a row later if
 * the cursor would fall off its end), or SIZE_MAX.
 */
size_t tv_window(const struct topmodel *m, size_t scroll, size_t cursor, int rows,
		 size_t *parent);

#endif
