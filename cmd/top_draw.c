// SPDX-License-Identifier: GPL-2.0-only
/*
 * top's screen, the drawing half: header, column layout for the terminal
 * width, the queue table with fill bars and limit history, the help
 * screen and the sort menu. Terminal setup and keys are top_view.c.
 */
#include <curses.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/latency.h"
#include "cmd/top_view.h"
#include "cmd/top_view_int.h"
#include "dql/dql.h"
#include "lib/kernel/bql.h"
#include "lib/io/esc.h"
#include "lib/io/units.h"

static void pen_on(int pair, attr_t mono)
{
	if (tv_term.color && pair)
		attron(COLOR_PAIR(pair));
	else
		attron(mono);
}

static void pen_off(int pair, attr_t mono)
{
	if (tv_term.color && pair)
		attroff(COLOR_PAIR(pair));
	else
		attroff(mono);
}

static char *fmt_count(char *buf, size_t n, double v)
{
	if (v < 10 && v != floor(v))
		snprintf(buf, n, "%.1f", v);
	else if (v < 1e4)
		snprintf(buf, n, "%.0f", v);
	else if (v < 1e6)
		snprintf(buf, n, "%.1fk", v / 1e3);
	else
		snprintf(buf, n, "%.2fM", v / 1e6);
	return buf;
}


/* Table columns in display order; lower prio is dropped first. */
enum vcol { V_NAME, V_LIMIT, V_INFLIGHT, V_FILL, V_SPARK, V_MIN, V_MAX, V_RATE,
	    V_PPS, V_STOP, V_WAKE, V_QBACKLOG, V_QDROPS, V_RINGP99, V_QDP99, V_BQLSTOP,
	    V_RINGSTOP, V_STALLS, V_STALLMAX, V_RING, V_COAL, V_FLAGS, V_NR };

static const struct {
	const char *title;
	int width, prio;
	enum tm_col col;	/* sort column it shows */
	bool left;
} vcols[V_NR] = {
	[V_NAME]     = { "DEVICE/QUEUE",	16, 100, TM_COL_NAME, true },
	[V_LIMIT]    = { "LIMIT",		10, 99, TM_COL_LIMIT, false },
	[V_INFLIGHT] = { "INFLIGHT",		10, 98, TM_COL_INFLIGHT, false },
	[V_FILL]     = { "FILL",		12, 97, TM_COL_FILL, true },
	[V_SPARK]    = { "LIMIT HISTORY",	18, 80, TM_COL_NR, true },
	/* the sysfs names: "MIN MAX" beside the history read as its range */
	[V_MIN]      = { "LIMIT_MIN",		9, 60, TM_COL_LIMIT_MIN, false },
	[V_MAX]      = { "LIMIT_MAX",		9, 61, TM_COL_LIMIT_MAX, false },
	[V_RATE]     = { "TX RATE",		12, 90, TM_COL_TX_BYTES, false },
	[V_PPS]      = { "PKT/S",		7, 70, TM_COL_TX_PACKETS, false },
	[V_STOP]     = { "STOP/S",		7, 65, TM_COL_TX_STOP, false },
	[V_WAKE]     = { "WAKE/S",		7, 64, TM_COL_TX_WAKE, false },
	[V_QBACKLOG] = { "BACKLOG",		9, 66, TM_COL_QD_BACKLOG, false },
	[V_QDROPS]   = { "QDROP/S",		8, 63, TM_COL_QD_DROPS, false },
	/* measured time: on when the observer runs, the first to go when narrow */
	[V_RINGP99]  = { "RING P99",		9, 57, TM_COL_RING_P99, false },
	[V_QDP99]    = { "QDISC P99",		9, 56, TM_COL_QDISC_P99, false },
	[V_BQLSTOP]  = { "BQLSTOP/S",		9, 55, TM_COL_STOP_BQL, false },
	[V_RINGSTOP] = { "RINGSTOP/S",		10, 55, TM_COL_STOP_RING, false },
	[V_STALLS]   = { "STALLS",		7, 85, TM_COL_STALL_CNT, false },
	[V_STALLMAX] = { "STALL MAX",		9, 62, TM_COL_STALL_MAX, false },
	[V_RING]     = { "RING",		5, 59, TM_COL_RING, false },
	[V_COAL]     = { "TX-USECS",		8, 58, TM_COL_COAL_USECS, false },
	[V_FLAGS]    = { "FLAGS",		14, 95, TM_COL_NR, true },
};

/*
 * @avail: the column has data here (stop/wake need netdev qstats, ...)
 * @nhidden: columns with data that the width left out
 */
struct layout {
	bool on[V_NR], avail[V_NR];
	int x[V_NR], w[V_NR];
	int nhidden;
};

/* widen column @v (if shown) up to @to with at most @extra; what it took */
static int widen(struct layout *l, int v, int to, int extra)
{
	int add = to - l->w[v];

	if (!l->on[v] || add <= 0 || extra <= 0)
		return 0;
	add = add < extra ? add : extra;
	l->w[v] += add;
	return add;
}

/*
 * Columns for @cols terminal columns, the least important going first; the
 * name and the sort column @sort_v (-1: none) stay, so the sort and its
 * marker are always in sight (htop keeps its sort column too). @lat: the
 * latency observer runs (its measured columns).
 */
static void make_layout(struct layout *l, int cols, bool qstats, bool qdiscs, bool ethtool,
			bool lat, int sort_v)
{
	int total = 0, extra;

	memset(l, 0, sizeof(*l));
	for (int v = 0; v < V_NR; v++) {
		int need = (int)strlen(vcols[v].title) + 1;	/* room for the sort mark */

		l->w[v] = vcols[v].width > need ? vcols[v].width : need;
		l->on[v] = !(!qstats && (v == V_STOP || v == V_WAKE)) &&
			   !(!qdiscs && (v == V_QBACKLOG || v == V_QDROPS)) &&
			   !(!ethtool && (v == V_RING || v == V_COAL)) &&
			   !(!lat && v >= V_RINGP99 && v <= V_RINGSTOP);
		l->avail[v] = l->on[v];
	}
	for (;;) {
		int lowest = -1;

		total = 0;
		for (int v = 0; v < V_NR; v++)
			if (l->on[v])
				total += l->w[v] + 1;
		if (total <= cols)
			break;
		for (int v = 0; v < V_NR; v++)
			if (l->on[v] && v != V_NAME && v != sort_v &&
			    (lowest < 0 || vcols[v].prio < vcols[lowest].prio))
				lowest = v;
		/* too narrow even for the name and the sort column: the name stays */
		if (lowest < 0 && sort_v > 0 && l->on[sort_v])
			lowest = sort_v;
		if (lowest < 0)
			break;
		l->on[lowest] = false;
		l->nhidden++;
	}
	/* spare room widens the bar to 17, the sparkline to 32, the bar to 25 */
	extra = cols - total;
	extra -= widen(l, V_FILL, 17, extra);
	extra -= widen(l, V_SPARK, 32, extra);
	widen(l, V_FILL, 25, extra);
	for (int v = 0, x = 0; v < V_NR; v++) {
		l->x[v] = x;
		if (l->on[v])
			x += l->w[v] + 1;
	}
}

static void put_cell(const struct layout *l, int y, int v, const char *raw)
{
	char s[4 * 64 + 1];	/* a cell escaped (lib/io/esc.h): names are bytes */
	int w = l->w[v], len;

	esc_text(s, sizeof(s), raw);
	len = (int)strlen(s);

	if (!l->on[v])
		return;
	/* cut whole characters until the cell's columns hold it ("▾" is 3 bytes, 1 column) */
	while (len > 0 && (int)esc_text_width(s) > w) {
		while (len > 0 && ((unsigned char)s[len - 1] & 0xc0) == 0x80)
			len--;
		s[len > 0 ? --len : 0] = '\0';
	}
	if (vcols[v].left)
		mvaddnstr(y, l->x[v], s, len);
	else
		mvaddnstr(y, l->x[v] + w - (int)esc_text_width(s), s, len);
}

static int level_pair(double fill)
{
	return fill < 0.5 ? PAIR_LOW : fill < 0.9 ? PAIR_MID : PAIR_HIGH;
}

/* [█████▌    ] 55%: inflight / limit */
static void draw_bar(const struct layout *l, int y, const struct tm_row *r)
{
	static const char *const eighths[] = { "", "▏", "▎", "▍", "▌", "▋", "▊", "▉" };
	int w = l->w[V_FILL] - 7, x = l->x[V_FILL];
	double fill;
	int cells8;
	char pct[8];

	if (!l->on[V_FILL] || w < 2 || !(r->valid & (1u << TM_COL_FILL)))
		return;
	fill = r->v[TM_COL_FILL];
	cells8 = (int)(fmin(fill, 1.0) * w * 8 + 0.5);
	mvaddch(y, x, '[');
	pen_on(level_pair(fill), A_BOLD);
	for (int i = 0; i < w; i++) {
		int left = cells8 - i * 8;

		if (left >= 8)
			addstr(tv_term.utf8 ? "█" : "|");
		else if (left > 0)
			addstr(tv_term.utf8 ? eighths[left] : (left >= 4 ? "|" : " "));
		else
			addch(' ');
	}
	pen_off(level_pair(fill), A_BOLD);
	addch(']');
	snprintf(pct, sizeof(pct), "%4.0f%%", fmin(fill * 100, 999));
	mvaddstr(y, x + w + 2, pct);
}

/*
 * "1B", "870B", "2.18K", "64.0K", "148K", "1.50M": at most 5 characters,
 * the digits units_fmt_bytes() gives the LIMIT column (2.18 KiB), so the
 * range beside a row reads as the same number
 */
static char *fmt_short_bytes(char *buf, size_t n, uint64_t v)
{
	static const char units[] = "KMGT";
	double x = (double)v;
	int u = -1;

	if (v < 1024) {
		snprintf(buf, n, "%lluB", (unsigned long long)v);
		return buf;
	}
	while (x >= 1024 && u < 3) {
		x /= 1024;
		u++;
	}
	snprintf(buf, n, x < 10 ? "%.2f%c" : x < 100 ? "%.1f%c" : "%.0f%c", x, units[u]);
	return buf;
}

/*
 * Limit history, newest on the right, on a zero baseline (0 draws as
 * nothing, the top block is the row's maximum) with that range printed
 * after it ("0-2.2K"): a 1 B limit and a 2.18 KiB one both fill their
 * bars, but say what the bar means.
 */
#define SPARK_LABEL	7	/* "0-1023B" */

static void draw_spark(const struct layout *l, int y, const struct tm_row *r)
{
	static const char *const blocks[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	static const char ascii[] = "._-~=+*#";
	int w = l->w[V_SPARK] - SPARK_LABEL - 1, len = 0;
	uint64_t vals[SAMPLER_HIST], max = 0;
	char range[24], num[16];

	if (!l->on[V_SPARK] || w < 1)
		return;
	if (w > SAMPLER_HIST)
		w = SAMPLER_HIST;
	if (r->q) {
		len = (int)r->q->hist_len < w ? (int)r->q->hist_len : w;
		for (int i = 0; i < len; i++)
			vals[i] = sampler_hist(r->q->hist_limit, r->q, (unsigned int)i);
	} else {
		/* the device: sum of its queues' limits */
		len = w;
		for (unsigned int k = 0; k < r->dev->nq; k++) {
			const struct sampler_queue *q = &r->dev->q[k];

			if ((int)q->hist_len < len)
				len = (int)q->hist_len;
		}
		if (!r->dev->nq)
			len = 0;
		for (int i = 0; i < len; i++) {
			vals[i] = 0;
			for (unsigned int k = 0; k < r->dev->nq; k++)
				vals[i] += sampler_hist(r->dev->q[k].hist_limit, &r->dev->q[k],
							(unsigned int)i);
		}
	}
	if (!len)
		return;
	for (int i = 0; i < len; i++)
		max = vals[i] > max ? vals[i] : max;
	pen_on(PAIR_SPARK, 0);
	for (int i = 0; i < len; i++) {
		/* 0: the baseline (blank); else 1..8 eighths of the maximum */
		int lvl = max ? (int)((vals[i] * 8 + max - 1) / max) : 0;

		if (!lvl)
			continue;
		move(y, l->x[V_SPARK] + w - 1 - i);
		if (tv_term.utf8)
			addstr(blocks[lvl - 1]);
		else
			addch((chtype)ascii[lvl - 1]);
	}
	pen_off(PAIR_SPARK, 0);
	snprintf(range, sizeof(range), "0-%s", fmt_short_bytes(num, sizeof(num), max));
	mvaddstr(y, l->x[V_SPARK] + w + 1 + SPARK_LABEL - (int)strlen(range), range);
}

static void flag_text(char *buf, size_t n, unsigned int f)
{
	snprintf(buf, n, "%s%s%s%s%s%s", f & TM_F_STALL ? "STALL " : "",
		 f & TM_F_PINNED ? "PINNED " : "", f & TM_F_AT_MIN ? "MIN " : "",
		 f & TM_F_OSC ? "OSC " : "", f & TM_F_NEW ? "new " : "",
		 f & TM_F_GONE ? "gone " : "");
}

static void draw_row(const struct layout *l, int y, const struct tm_row *r,
		     unsigned int hz, bool cursor)
{
	char buf[64], name[64];
	const struct bql_queue *b = r->q ? &r->q->bql : NULL;
	bool gone = r->flags & TM_F_GONE;
	int pair = cursor ? PAIR_CURSOR : gone ? PAIR_GONE : (r->flags & TM_F_NEW) ? PAIR_NEW : 0;
	attr_t mono = cursor ? A_REVERSE : gone ? A_DIM : (r->flags & TM_F_NEW) ? A_BOLD : 0;

	if (pair || mono) {
		pen_on(pair, mono);
		mvhline(y, 0, ' ', COLS);
	}
	if (r->q)
		snprintf(name, sizeof(name), "   tx-%u", r->q->index);
	else if (r->nq < r->dev->ntx)	/* a selector or the filter shows some: the sum is theirs */
		snprintf(name, sizeof(name), "%s %s (%u of %u)", r->expanded ?
			 (tv_term.utf8 ? "▾" : "-") : (tv_term.utf8 ? "▸" : "+"), r->dev->ifname,
			 r->nq, r->dev->ntx);
	else
		snprintf(name, sizeof(name), "%s %s", r->expanded ? (tv_term.utf8 ? "▾" : "-") :
			 (tv_term.utf8 ? "▸" : "+"), r->dev->ifname);
	if (!r->q && !cursor && !pair)
		attron(A_BOLD);
	put_cell(l, y, V_NAME, name);
	if (!r->q && !cursor && !pair)
		attroff(A_BOLD);
#define CELL(v, col, fmt_expr) \
	do { if (r->valid & (1u << (col))) put_cell(l, y, (v), (fmt_expr)); } while (0)
	CELL(V_LIMIT, TM_COL_LIMIT, units_fmt_bytes(buf, sizeof(buf), (uint64_t)r->v[TM_COL_LIMIT]));
	CELL(V_INFLIGHT, TM_COL_INFLIGHT,
	     units_fmt_bytes(buf, sizeof(buf), (uint64_t)r->v[TM_COL_INFLIGHT]));
	CELL(V_MIN, TM_COL_LIMIT_MIN, bql_fmt_human(buf, sizeof(buf), BQL_LIMIT_MIN, (uint64_t)r->v[TM_COL_LIMIT_MIN], 0));
	CELL(V_MAX, TM_COL_LIMIT_MAX, bql_fmt_human(buf, sizeof(buf), BQL_LIMIT_MAX, (uint64_t)r->v[TM_COL_LIMIT_MAX], 0));
	CELL(V_RATE, TM_COL_TX_BYTES, units_fmt_rate(buf, sizeof(buf), r->v[TM_COL_TX_BYTES]));
	CELL(V_PPS, TM_COL_TX_PACKETS, fmt_count(buf, sizeof(buf), r->v[TM_COL_TX_PACKETS]));
	CELL(V_STOP, TM_COL_TX_STOP, fmt_count(buf, sizeof(buf), r->v[TM_COL_TX_STOP]));
	CELL(V_WAKE, TM_COL_TX_WAKE, fmt_count(buf, sizeof(buf), r->v[TM_COL_TX_WAKE]));
	CELL(V_QBACKLOG, TM_COL_QD_BACKLOG,
	     units_fmt_bytes(buf, sizeof(buf), (uint64_t)r->v[TM_COL_QD_BACKLOG]));
	CELL(V_QDROPS, TM_COL_QD_DROPS, fmt_count(buf, sizeof(buf), r->v[TM_COL_QD_DROPS]));
	CELL(V_RINGP99, TM_COL_RING_P99,
	     latency_fmt_ns(buf, sizeof(buf), (uint64_t)r->v[TM_COL_RING_P99]));
	CELL(V_QDP99, TM_COL_QDISC_P99,
	     latency_fmt_ns(buf, sizeof(buf), (uint64_t)r->v[TM_COL_QDISC_P99]));
	CELL(V_BQLSTOP, TM_COL_STOP_BQL, fmt_count(buf, sizeof(buf), r->v[TM_COL_STOP_BQL]));
	CELL(V_RINGSTOP, TM_COL_STOP_RING, fmt_count(buf, sizeof(buf), r->v[TM_COL_STOP_RING]));
	CELL(V_RING, TM_COL_RING, fmt_count(buf, sizeof(buf), r->v[TM_COL_RING]));
	CELL(V_COAL, TM_COL_COAL_USECS, fmt_count(buf, sizeof(buf), r->v[TM_COL_COAL_USECS]));
	CELL(V_STALLS, TM_COL_STALL_CNT, fmt_count(buf, sizeof(buf), r->v[TM_COL_STALL_CNT]));
	CELL(V_STALLMAX, TM_COL_STALL_MAX,
	     units_fmt_ms(buf, sizeof(buf),
			  dql_jiffies_to_msecs((uint64_t)r->v[TM_COL_STALL_MAX], hz)));
#undef CELL
	(void)b;
	if (!gone) {
		draw_bar(l, y, r);
		draw_spark(l, y, r);
	}
	flag_text(buf, sizeof(buf), r->flags);
	if (buf[0] && l->on[V_FLAGS]) {
		int fp = (r->flags & (TM_F_STALL | TM_F_PINNED)) ? PAIR_HIGH : PAIR_WARN;

		if (!cursor)
			pen_on(fp, A_BOLD);
		put_cell(l, y, V_FLAGS, buf);
		if (!cursor)
			pen_off(fp, A_BOLD);
	}
	if (pair || mono)
		pen_off(pair, mono);
}

static void fmt_interval(char *buf, size_t n, uint64_t ns)
{
	if (ns % 1000000000ull == 0)
		snprintf(buf, n, "%llus", (unsigned long long)(ns / 1000000000ull));
	else if (ns < 1000000000ull)
		snprintf(buf, n, "%llums", (unsigned long long)(ns / 1000000ull));
	else
		snprintf(buf, n, "%.2fs", (double)ns / 1e9);
}

/* the view column that shows sort column @c, or -1 */
static int vcol_of(enum tm_col c)
{
	for (int v = 0; v < V_NR; v++)
		if (vcols[v].col == c)
			return v;
	return -1;
}

/*
 * A header line is fields with priorities: when the line is wider than
 * the terminal, it gives way in steps, the lowest step first: a field with
 * a short form (@sprio) takes it, a field that may go (@prio below
 * HDR_KEEP) goes; never a field cut mid-word. The state the user chose
 * (sort, filter) and the line's subject stay (HDR_KEEP and above) unless
 * nothing else is left to give; the rest keep their order, two spaces apart.
 */
#define HDR_MAX_FIELDS	8
#define HDR_KEEP	85

struct hdr_line {
	char text[HDR_MAX_FIELDS][4 * 160 + 1];	/* escaped: lib/io/esc.h */
	char shrt[HDR_MAX_FIELDS][4 * 160 + 1];	/* its short form, or "" */
	int prio[HDR_MAX_FIELDS];
	int sprio[HDR_MAX_FIELDS];	/* the step at which the short form is taken */
	int n;
};

static void __attribute__((format(printf, 3, 4)))
hdr_add(struct hdr_line *h, int prio, const char *fmt, ...)
{
	char raw[160];
	va_list ap;

	if (h->n >= HDR_MAX_FIELDS)
		return;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	esc_text(h->text[h->n], sizeof(h->text[h->n]), raw);	/* names are anyone's */
	h->shrt[h->n][0] = '\0';
	h->prio[h->n++] = prio;
}

/* the short form of the field added last, taken at step @sprio */
static void __attribute__((format(printf, 3, 4)))
hdr_short(struct hdr_line *h, int sprio, const char *fmt, ...)
{
	char raw[160];
	va_list ap;

	if (!h->n)
		return;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	esc_text(h->shrt[h->n - 1], sizeof(h->shrt[h->n - 1]), raw);
	h->sprio[h->n - 1] = sprio;
}

/* @keep[i]: 0 gone, 1 whole, 2 its short form */
static const char *hdr_text(const struct hdr_line *h, int i, const int *keep)
{
	return keep[i] == 2 ? h->shrt[i] : h->text[i];
}

/* which fields of @h fit in @cols columns, and in which form; the width used */
static int hdr_fit(const struct hdr_line *h, int cols, int *keep)
{
	int total;

	for (int i = 0; i < h->n; i++)
		keep[i] = 1;
	for (;;) {
		int step = -1, lowest = -1, k = 0;
		bool shorten = false;

		total = 0;
		for (int i = 0; i < h->n; i++)
			if (keep[i])
				total += (k++ ? 2 : 0) + (int)esc_text_width(hdr_text(h, i, keep));
		if (total <= cols)
			return total;
		/* the next step: a short form, or a field below HDR_KEEP going */
		for (int i = 0; i < h->n; i++) {
			if (keep[i] == 1 && h->shrt[i][0] && (step < 0 || h->sprio[i] < step)) {
				step = h->sprio[i];
				lowest = i;
				shorten = true;
			}
			if (keep[i] && i && h->prio[i] < HDR_KEEP && (step < 0 || h->prio[i] < step)) {
				step = h->prio[i];
				lowest = i;
				shorten = false;
			}
		}
		if (lowest >= 0) {
			keep[lowest] = shorten ? 2 : 0;
			continue;
		}
		/* nothing left to give: the lowest field goes, the subject never */
		for (int i = 1; i < h->n; i++)
			if (keep[i] && (lowest < 0 || h->prio[i] < h->prio[lowest]))
				lowest = i;
		if (lowest < 0)		/* the first field is the line's subject: cut, never dropped */
			return total;
		keep[lowest] = 0;
	}
}

/* draw @h at row @y from column 0; field 0 in @pair0/@mono0 */
static void hdr_draw(const struct hdr_line *h, int y, int cols, int pair0, attr_t mono0)
{
	int keep[HDR_MAX_FIELDS];
	int k = 0;

	hdr_fit(h, cols, keep);
	move(y, 0);
	for (int i = 0; i < h->n; i++) {
		int room = cols - getcurx(stdscr);

		if (!keep[i] || room <= 0)
			continue;
		if (k++)
			addnstr("  ", room);
		room = cols - getcurx(stdscr);
		if (!i)
			pen_on(pair0, mono0);
		addnstr(hdr_text(h, i, keep), room > 0 ? room : 0);
		if (!i)
			pen_off(pair0, mono0);
	}
}

/* "2 hidden: 1 down, 1 BQL unused (a shows)": zero counts left out */
static void hidden_note(char *buf, size_t n, const struct topmodel *m)
{
	size_t len = (size_t)snprintf(buf, n, "%zu hidden:", m->nhidden);

	if (m->ndown && len < n)
		len += (size_t)snprintf(buf + len, n - len, " %zu down%s", m->ndown,
					m->nunused ? "," : "");
	if (m->nunused && len < n)
		len += (size_t)snprintf(buf + len, n - len, " %zu BQL unused", m->nunused);
	if (len < n)
		snprintf(buf + len, n - len, " (a shows)");
}

static void draw_header(const struct tv_frame *f, const struct layout *l)
{
	const struct topmodel *m = f->m;
	char iv[32], tbuf[32], note[128], shown[4 * 320 + 1];	/* escaped: lib/io/esc.h */
	time_t t = (time_t)(f->real_ns / 1000000000ull);
	int sv = vcol_of(m->sort);
	struct hdr_line h;
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(tbuf, sizeof(tbuf), "%H:%M:%S", &tm);
	fmt_interval(iv, sizeof(iv), f->interval_ns);
	/* line 0: what is watched, how often, when; PAUSED keeps its corner */
	memset(&h, 0, sizeof(h));
	hdr_add(&h, 100, "bqltool top");
	hdr_add(&h, 50, "host %s", f->host);
	if (f->netns)
		hdr_add(&h, 90, "netns %s", f->netns);
	hdr_add(&h, 30, "kernel %s", f->kernel);
	hdr_add(&h, 20, "HZ %u", f->hz);
	hdr_add(&h, 80, "every %s", iv);
	hdr_add(&h, 70, "%s", tbuf);
	hdr_draw(&h, 0, f->paused ? COLS - 9 : COLS, PAIR_TITLE, A_BOLD);
	if (f->paused) {
		pen_on(PAIR_WARN, A_REVERSE);
		mvaddstr(0, COLS - 8 > 0 ? COLS - 8 : 0, " PAUSED ");
		pen_off(PAIR_WARN, A_REVERSE);
	}
	/*
	 * line 1: what is shown of what there is, and the state the user chose
	 * (filter, sort): at 80 columns the counts give way first, then the
	 * long forms, never the filter or the sort
	 */
	memset(&h, 0, sizeof(h));
	if (m->all_forced) {
		hdr_add(&h, 100, "devices %zu shown of %zu (all down or BQL never used: shown anyway)",
			m->nshown, m->ndev);
		hdr_short(&h, 36, "devices %zu of %zu (shown anyway)", m->nshown, m->ndev);
	} else {
		hdr_add(&h, 100, "devices %zu shown of %zu", m->nshown, m->ndev);
		hdr_short(&h, 36, "devices %zu of %zu", m->nshown, m->ndev);
	}
	if (m->nhidden) {
		hidden_note(note, sizeof(note), m);
		hdr_add(&h, 90, "%s", note);
		hdr_short(&h, 35, "%zu hidden (a shows)", m->nhidden);
	}
	if (m->filter[0] && m->nfiltered) {	/* the filter may be pasted: escaped */
		hdr_add(&h, 95, "filter '%s' hides %zu", m->filter, m->nfiltered);
		hdr_short(&h, 37, "filter '%s'", m->filter);
	} else if (m->filter[0]) {
		hdr_add(&h, 95, "filter '%s'", m->filter);
	}
	hdr_add(&h, 30, "queues %zu", m->nqueues);
	if (f->lat_status)
		hdr_add(&h, 35, "%s", f->lat_status);
	hdr_add(&h, 96, "sort %s %s%s", tm_cols[m->sort].name,
		(tm_cols[m->sort].descending != m->reverse) ? "desc" : "asc",
		sv < 0 || l->on[sv] ? "" : l->avail[sv] ? " (column hidden)" : " (not reported)");
	if (l->nhidden)
		hdr_add(&h, 40, "%d column%s hidden", l->nhidden, l->nhidden == 1 ? "" : "s");
	hdr_draw(&h, 1, COLS, 0, 0);
	if (f->shortage) {
		/* what is not covered beats flags and news: the counts above depend on it */
		pen_on(PAIR_HIGH, A_BOLD);
		mvaddnstr(2, 0, f->shortage, COLS);
		pen_off(PAIR_HIGH, A_BOLD);
	} else if (m->nflag[3] || m->nflag[2] || m->nflag[0] || m->nflag[1]) {
		char line[160];

		snprintf(line, sizeof(line), "queues flagged: %zu STALL  %zu PINNED  %zu MIN  %zu OSC",
			 m->nflag[3], m->nflag[2], m->nflag[0], m->nflag[1]);
		pen_on(PAIR_WARN, A_BOLD);
		mvaddnstr(2, 0, line, COLS);
		pen_off(PAIR_WARN, A_BOLD);
		if (f->message)
			addnstr("   ", COLS);
	} else {
		move(2, 0);
	}
	if (f->message && !f->shortage) {
		esc_text(shown, sizeof(shown), f->message);
		addnstr(shown, COLS > getcurx(stdscr) ? COLS - getcurx(stdscr) : 0);
	}
}

static void draw_status(const struct tv_frame *f)
{
	static const char *const keys[][2] = {
		{ "h", "Help" }, { "s", "Sort" }, { "r", "Reverse" }, { "/", "Filter" },
		{ "Space", "Pause" }, { "+-", "Interval" }, { "Enter", "Expand" }, { "*", "All" },
		{ "a", "Hidden" }, { "q", "Quit" },
	};
	int y = LINES - 1;

	move(y, 0);
	clrtoeol();
	if (f->mode == TV_FILTER) {
		pen_on(PAIR_KEY, A_REVERSE);
		addstr("Filter:");
		pen_off(PAIR_KEY, A_REVERSE);
		printw(" %s", f->filter_edit ? f->filter_edit : "");
		curs_set(1);
		addstr("   (glob or text; dev:tx-N for queues; Enter keep, Esc cancel)");
		move(y, 8 + (int)strlen(f->filter_edit ? f->filter_edit : ""));
		return;
	}
	curs_set(0);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (getcurx(stdscr) + (int)strlen(keys[i][0]) + (int)strlen(keys[i][1]) + 1 >= COLS)
			break;
		pen_on(PAIR_KEY, A_REVERSE);
		addstr(keys[i][0]);
		pen_off(PAIR_KEY, A_REVERSE);
		printw("%s ", keys[i][1]);
	}
}

static void draw_sort_menu(const struct tv_frame *f)
{
	int h = TM_COL_NR + 2, w = 24, y0 = HEADER_ROWS + 1, x0 = 2;

	/* a modal menu: the table rows it covers are cleared, not mixed in */
	for (int y = y0; y < y0 + h && y < LINES - 1; y++) {
		move(y, 0);
		clrtoeol();
	}
	pen_on(PAIR_COLHDR, A_REVERSE);
	mvprintw(y0, x0, " %-*s", w - 1, "Sort by");
	pen_off(PAIR_COLHDR, A_REVERSE);
	for (int c = 0; c < TM_COL_NR && y0 + 1 + c < LINES - 1; c++) {
		bool sel = c == f->menu_sel;

		if (sel)
			pen_on(PAIR_CURSOR, A_REVERSE);
		mvprintw(y0 + 1 + c, x0, " %c %-*s", c == (int)f->m->sort ? '*' : ' ', w - 4,
			 tm_cols[c].name);
		if (sel)
			pen_off(PAIR_CURSOR, A_REVERSE);
	}
	mvhline(y0 + h - 1 < LINES - 1 ? y0 + h - 1 : LINES - 2, x0, ' ', w);
}

/* fits 80x24: no line over 79 columns, title + blank + 21 lines */
static void draw_help(const struct tv_frame *f)
{
	static const char *const lines[] = {
		"Keys",
		"  q F10 ^C  quit                     h ? F1    this help",
		"  s F6      choose the sort column   < >       previous/next sort column",
		"  r         reverse the sort         /         filter: glob, text, DEV:tx-N*",
		"  Space p   pause or resume          + -       sample less/more often",
		"  Enter e   expand/collapse device   * E       expand/collapse every device",
		"  a         show hidden devices too  Up Down PgUp PgDn Home End move, ^L redraw",
		"Columns (device rows sum the queues shown)",
		"  LIMIT INFLIGHT  limit, inflight    FILL      inflight / limit",
		"  LIMIT_MIN _MAX  the settings       TX RATE PKT/S  transmit rate",
		"  STOP/S WAKE/S   queue stops/wakes per second (netdev qstats, if reported)",
		"  BACKLOG QDROP/S the queue's qdisc: backlog, drops/s; RING TX-USECS ethtool",
		"  STALLS          stall_cnt          STALL MAX stall_max in ms",
		"Flags",
		"  STALL  the stall detector fired (kept about a second)",
		"  PINNED inflight stayed at or above the limit with no completions",
		"  MIN    the limit sat at limit_min while busy   OSC  the limit swung",
		"  new / gone  the device or queue appeared / vanished",
		"Hidden by default: down devices, devices whose BQL was never used.",
		"The screen is redrawn at most 10 times a second; settings (limit_min,",
		"limit_max, hold_time, stall_thrs) are re-read at least once a second.",
		"Press any key to return.",
	};

	(void)f;
	pen_on(PAIR_TITLE, A_BOLD);
	mvaddstr(0, 0, "bqltool top - help");
	pen_off(PAIR_TITLE, A_BOLD);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]) && (int)i + 2 < LINES; i++) {
		bool title = lines[i][0] && lines[i][0] != ' ';

		if (title)
			attron(A_BOLD);
		mvaddnstr((int)i + 2, 0, lines[i], COLS);
		if (title)
			attroff(A_BOLD);
	}
}

void tv_draw(const struct tv_frame *f, size_t *scroll)
{
	const struct topmodel *m = f->m;
	struct layout l;
	int rows = tv_page_rows(), y0 = HEADER_ROWS + 1;
	size_t start, parent;

	erase();
	if (f->mode == TV_HELP) {
		draw_help(f);
		refresh();
		return;
	}
	make_layout(&l, COLS, f->qstats, f->qdiscs, f->ethtool, f->lat, vcol_of(m->sort));
	draw_header(f, &l);
	pen_on(PAIR_COLHDR, A_REVERSE);
	mvhline(HEADER_ROWS, 0, ' ', COLS);
	for (int v = 0; v < V_NR; v++) {
		bool sorted = vcols[v].col == m->sort;
		char t[40];

		snprintf(t, sizeof(t), "%s%s", vcols[v].title,
			 sorted ? ((tm_cols[m->sort].descending != m->reverse) ? "v" : "^") : "");
		if (sorted)
			attron(A_BOLD);
		put_cell(&l, HEADER_ROWS, v, t);
		if (sorted)
			attroff(A_BOLD);
	}
	pen_off(PAIR_COLHDR, A_REVERSE);
	if (f->cursor < *scroll)
		*scroll = f->cursor;
	if (f->cursor >= *scroll + (size_t)rows)
		*scroll = f->cursor - (size_t)rows + 1;
	if (*scroll + (size_t)rows > m->nrows)
		*scroll = m->nrows > (size_t)rows ? m->nrows - (size_t)rows : 0;
	/* a device's row stays above its queues when the page starts among them */
	start = tv_window(m, *scroll, f->cursor, rows, &parent);
	if (parent != SIZE_MAX) {
		draw_row(&l, y0++, &m->rows[parent], f->hz, false);
		rows--;
	}
	for (int i = 0; i < rows && start + (size_t)i < m->nrows; i++)
		draw_row(&l, y0 + i, &m->rows[start + (size_t)i], f->hz,
			 start + (size_t)i == f->cursor);
	if (!m->nrows) {
		const char *why = m->nfiltered && m->filter[0] ?
			"No device matches the filter (/ to change it)." :
			"No network device with byte queue limits.";

		mvaddnstr(y0 + 1, 2, why, COLS - 2);
	}
	if (f->mode == TV_SORT_MENU)
		draw_sort_menu(f);
	draw_status(f);
	refresh();
}
