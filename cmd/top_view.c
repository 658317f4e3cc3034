// SPDX-License-Identifier: GPL-2.0-only
/*
 * top's screen: curses setup with a terminal that is always restored (as
 * htop's CRT.c), and the drawing of a struct tv_frame. No sysfs here.
 */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cmd/top_view.h"
#include "dql/dql.h"
#include "lib/esc.h"
#include "lib/bql.h"
#include "lib/units.h"

enum {
	PAIR_COLHDR = 1, PAIR_CURSOR, PAIR_LOW, PAIR_MID, PAIR_HIGH, PAIR_NEW,
	PAIR_GONE, PAIR_WARN, PAIR_KEY, PAIR_SPARK, PAIR_TITLE,
};

#define HEADER_ROWS	3	/* title, counts, news */

/* ------------------------------------------------- terminal and signals */

static bool tv_active;
static bool tv_color, tv_utf8;
static SCREEN *tv_screen;
static int tv_pipe[2] = { -1, -1 };
static volatile sig_atomic_t tv_quit_sig, tv_winch;
static int tv_saved_stderr = -1;
static FILE *tv_errbuf;

static const int quit_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static const int crash_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
static struct sigaction old_quit[4], old_crash[5], old_winch;

static void wake(void)
{
	int saved = errno;
	char c = 0;

	if (tv_pipe[1] >= 0 && write(tv_pipe[1], &c, 1) < 0) {
		/* pipe full: a wake-up is already pending */
	}
	errno = saved;
}

static void on_quit(int sig)
{
	tv_quit_sig = sig;
	wake();
}

static void on_winch(int sig)
{
	(void)sig;
	tv_winch = 1;
	wake();
}

/* A crash: give the terminal back first, then die as the signal says. */
static void on_crash(int sig)
{
	if (tv_active) {
		endwin();
		if (tv_saved_stderr >= 0)
			dup2(tv_saved_stderr, STDERR_FILENO);
	}
	for (size_t i = 0; i < sizeof(crash_sigs) / sizeof(crash_sigs[0]); i++)
		if (crash_sigs[i] == sig)
			sigaction(sig, &old_crash[i], NULL);
	raise(sig);
}

static void set_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_quit;	/* no SA_RESTART: poll() returns */
	for (size_t i = 0; i < 4; i++)
		sigaction(quit_sigs[i], &sa, &old_quit[i]);
	sa.sa_handler = on_winch;
	sigaction(SIGWINCH, &sa, &old_winch);
	sa.sa_handler = on_crash;
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < 5; i++)
		sigaction(crash_sigs[i], &sa, &old_crash[i]);
}

static void restore_handlers(void)
{
	for (size_t i = 0; i < 4; i++)
		sigaction(quit_sigs[i], &old_quit[i], NULL);
	sigaction(SIGWINCH, &old_winch, NULL);
	for (size_t i = 0; i < 5; i++)
		sigaction(crash_sigs[i], &old_crash[i], NULL);
}

/* stderr goes to a temp file while curses owns the screen */
static void stderr_capture(void)
{
	fflush(stderr);
	tv_errbuf = tmpfile();
	if (!tv_errbuf)
		return;
	tv_saved_stderr = dup(STDERR_FILENO);
	if (tv_saved_stderr < 0 || dup2(fileno(tv_errbuf), STDERR_FILENO) < 0) {
		fclose(tv_errbuf);
		tv_errbuf = NULL;
		if (tv_saved_stderr >= 0)
			close(tv_saved_stderr);
		tv_saved_stderr = -1;
	}
}

static void stderr_replay(void)
{
	char buf[4096];
	size_t n;

	if (!tv_errbuf)
		return;
	fflush(stderr);
	dup2(tv_saved_stderr, STDERR_FILENO);
	close(tv_saved_stderr);
	tv_saved_stderr = -1;
	rewind(tv_errbuf);
	while ((n = fread(buf, 1, sizeof(buf), tv_errbuf)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(tv_errbuf);
	tv_errbuf = NULL;
	fflush(stderr);
}

static void init_colors(void)
{
	static const struct { short pair, fg, bg; } pairs[] = {
		{ PAIR_COLHDR, COLOR_BLACK, COLOR_GREEN },
		{ PAIR_CURSOR, COLOR_BLACK, COLOR_CYAN },
		{ PAIR_LOW, COLOR_GREEN, -1 },
		{ PAIR_MID, COLOR_YELLOW, -1 },
		{ PAIR_HIGH, COLOR_RED, -1 },
		{ PAIR_NEW, COLOR_GREEN, -1 },
		{ PAIR_GONE, COLOR_RED, -1 },
		{ PAIR_WARN, COLOR_YELLOW, -1 },
		{ PAIR_KEY, COLOR_BLACK, COLOR_CYAN },
		{ PAIR_SPARK, COLOR_CYAN, -1 },
		{ PAIR_TITLE, COLOR_CYAN, -1 },
	};

	start_color();
	if (use_default_colors() == ERR)
		assume_default_colors(COLOR_WHITE, COLOR_BLACK);
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		init_pair(pairs[i].pair, pairs[i].fg, pairs[i].bg);
}

int tv_init(const struct tv_opts *o, char *err, size_t n)
{
	const char *cs = nl_langinfo(CODESET);

	if (tv_active)
		return 0;
	if (pipe2(tv_pipe, O_CLOEXEC | O_NONBLOCK)) {
		snprintf(err, n, "cannot create a pipe: %s", strerror(errno));
		return -errno;
	}
	tv_utf8 = cs && !strcmp(cs, "UTF-8");
	tv_quit_sig = tv_winch = 0;
	set_handlers();		/* before curses, so it keeps its hands off them */
	tv_screen = newterm(NULL, stdout, stdin);
	if (!tv_screen) {
		const char *term = getenv("TERM");

		restore_handlers();
		close(tv_pipe[0]);
		close(tv_pipe[1]);
		tv_pipe[0] = tv_pipe[1] = -1;
		snprintf(err, n, "cannot use terminal type '%s'; use -b for batch output",
			 term ? term : "(unset)");
		return -ENOTTY;
	}
	stderr_capture();
	tv_active = true;
	set_term(tv_screen);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	tv_color = o->color && has_colors();
	if (tv_color)
		init_colors();
	return 0;
}

void tv_done(void)
{
	if (!tv_active)
		return;
	tv_active = false;
	endwin();
	delscreen(tv_screen);
	tv_screen = NULL;
	restore_handlers();
	close(tv_pipe[0]);
	close(tv_pipe[1]);
	tv_pipe[0] = tv_pipe[1] = -1;
	stderr_replay();
}

static void handle_resize(void)
{
	struct winsize ws;

	tv_winch = 0;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col)
		resizeterm(ws.ws_row, ws.ws_col);
	clearok(curscr, TRUE);
}

static int map_key(int ch)
{
	static const struct { int curses, tv; } map[] = {
		{ KEY_UP, TV_KEY_UP }, { KEY_DOWN, TV_KEY_DOWN },
		{ KEY_PPAGE, TV_KEY_PGUP }, { KEY_NPAGE, TV_KEY_PGDN },
		{ KEY_HOME, TV_KEY_HOME }, { KEY_END, TV_KEY_END },
		{ KEY_ENTER, TV_KEY_ENTER }, { '\n', TV_KEY_ENTER }, { '\r', TV_KEY_ENTER },
		{ KEY_BACKSPACE, TV_KEY_BACKSPACE }, { 127, TV_KEY_BACKSPACE },
		{ 8, TV_KEY_BACKSPACE }, { 27, TV_KEY_ESC },
		{ KEY_F(1), TV_KEY_F1 }, { KEY_F(3), TV_KEY_F3 }, { KEY_F(4), TV_KEY_F4 },
		{ KEY_F(6), TV_KEY_F6 }, { KEY_F(10), TV_KEY_F10 }, { KEY_RESIZE, TV_KEY_RESIZE },
	};

	if (ch == 12) {		/* ^L */
		clearok(curscr, TRUE);
		return TV_KEY_RESIZE;
	}
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].curses == ch)
			return map[i].tv;
	return ch > 0 && ch < 256 ? ch : TV_KEY_OTHER;
}

int tv_getkey(int timeout_ms)
{
	struct pollfd p[2] = {
		{ .fd = STDIN_FILENO, .events = POLLIN },
		{ .fd = tv_pipe[0], .events = POLLIN },
	};
	int ch;

	for (;;) {
		if (tv_quit_sig)
			return TV_KEY_SIGNAL;
		if (tv_winch) {
			handle_resize();
			return TV_KEY_RESIZE;
		}
		ch = getch();
		if (ch != ERR)
			return map_key(ch);
		if (poll(p, 2, timeout_ms) <= 0) {
			if (errno == EINTR && (tv_quit_sig || tv_winch))
				continue;
			return TV_KEY_NONE;
		}
		if (p[1].revents) {
			char buf[64];

			while (read(tv_pipe[0], buf, sizeof(buf)) > 0)
				;
			continue;
		}
		ch = getch();
		return ch == ERR ? TV_KEY_NONE : map_key(ch);
	}
}

int tv_page_rows(void)
{
	int rows = LINES - HEADER_ROWS - 2;

	return rows > 1 ? rows : 1;
}

/* ------------------------------------------------------------ drawing */

static void pen_on(int pair, attr_t mono)
{
	if (tv_color && pair)
		attron(COLOR_PAIR(pair));
	else
		attron(mono);
}

static void pen_off(int pair, attr_t mono)
{
	if (tv_color && pair)
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
	    V_PPS, V_STOP, V_WAKE, V_STALLS, V_STALLMAX, V_FLAGS, V_NR };

static const struct {
	const char *title;
	int width, prio;
	enum tm_col col;	/* sort column it shows */
	bool left;
} vcols[V_NR] = {
	[V_NAME]     = { "DEVICE/QUEUE",	16, 100, TM_COL_NAME, true },
	[V_LIMIT]    = { "LIMIT",		10, 99, TM_COL_LIMIT, false },
	[V_INFLIGHT] = { "INFLIGHT",		10, 98, TM_COL_INFLIGHT, false },
	[V_FILL]     = { "FILL",		17, 97, TM_COL_FILL, true },
	[V_SPARK]    = { "LIMIT HISTORY",	16, 80, TM_COL_NR, true },
	[V_MIN]      = { "MIN",			9, 60, TM_COL_LIMIT_MIN, false },
	[V_MAX]      = { "MAX",			9, 61, TM_COL_LIMIT_MAX, false },
	[V_RATE]     = { "TX RATE",		12, 90, TM_COL_TX_BYTES, false },
	[V_PPS]      = { "PKT/S",		7, 70, TM_COL_TX_PACKETS, false },
	[V_STOP]     = { "STOP/S",		7, 65, TM_COL_TX_STOP, false },
	[V_WAKE]     = { "WAKE/S",		7, 64, TM_COL_TX_WAKE, false },
	[V_STALLS]   = { "STALLS",		7, 85, TM_COL_STALL_CNT, false },
	[V_STALLMAX] = { "STALL MAX",		9, 62, TM_COL_STALL_MAX, false },
	[V_FLAGS]    = { "FLAGS",		14, 95, TM_COL_NR, true },
};

struct layout {
	bool on[V_NR];
	int x[V_NR], w[V_NR];
};

static void make_layout(struct layout *l, int cols, bool qstats)
{
	int total = 0, extra;

	memset(l, 0, sizeof(*l));
	for (int v = 0; v < V_NR; v++) {
		l->w[v] = vcols[v].width;
		l->on[v] = !(!qstats && (v == V_STOP || v == V_WAKE));
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
			if (l->on[v] && v != V_NAME && (lowest < 0 || vcols[v].prio < vcols[lowest].prio))
				lowest = v;
		if (lowest < 0)
			break;
		l->on[lowest] = false;
	}
	/* spare room widens the sparkline, then the bar */
	extra = cols - total;
	if (l->on[V_SPARK] && extra > 0) {
		int add = extra > 32 - l->w[V_SPARK] ? 32 - l->w[V_SPARK] : extra;

		l->w[V_SPARK] += add;
		extra -= add;
	}
	if (l->on[V_FILL] && extra > 0)
		l->w[V_FILL] += extra > 8 ? 8 : extra;
	for (int v = 0, x = 0; v < V_NR; v++) {
		l->x[v] = x;
		if (l->on[v])
			x += l->w[v] + 1;
	}
}

static void put_cell(const struct layout *l, int y, int v, const char *raw)
{
	char s[4 * 64 + 1];	/* a cell escaped (lib/esc.h): names are bytes */
	int w = l->w[v], len;

	esc_text(s, sizeof(s), raw);
	len = (int)strlen(s);

	if (!l->on[v])
		return;
	if (len > w)
		len = w;
	if (vcols[v].left)
		mvaddnstr(y, l->x[v], s, len);
	else
		mvaddnstr(y, l->x[v] + w - len, s, len);
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
			addstr(tv_utf8 ? "█" : "|");
		else if (left > 0)
			addstr(tv_utf8 ? eighths[left] : (left >= 4 ? "|" : " "));
		else
			addch(' ');
	}
	pen_off(level_pair(fill), A_BOLD);
	addch(']');
	snprintf(pct, sizeof(pct), "%4.0f%%", fmin(fill * 100, 999));
	mvaddstr(y, x + w + 2, pct);
}

/* limit history, newest on the right, scaled 0..max of the window */
static void draw_spark(const struct layout *l, int y, const struct tm_row *r)
{
	static const char *const blocks[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	static const char ascii[] = "._-~=+*#";
	int w = l->w[V_SPARK], len = 0;
	uint64_t vals[SAMPLER_HIST], max = 0;

	if (!l->on[V_SPARK])
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
	for (int i = 0; i < len; i++)
		max = vals[i] > max ? vals[i] : max;
	pen_on(PAIR_SPARK, 0);
	for (int i = 0; i < len; i++) {
		int lvl = max ? (int)((vals[i] * 7 + max / 2) / max) : 0;

		move(y, l->x[V_SPARK] + w - 1 - i);
		if (tv_utf8)
			addstr(blocks[lvl]);
		else
			addch((chtype)ascii[lvl]);
	}
	pen_off(PAIR_SPARK, 0);
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
	char buf[64], name[40];
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
	else
		snprintf(name, sizeof(name), "%s %s", r->expanded ? (tv_utf8 ? "▾" : "-") :
			 (tv_utf8 ? "▸" : "+"), r->dev->ifname);
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

static void draw_header(const struct tv_frame *f)
{
	const struct topmodel *m = f->m;
	char iv[32], tbuf[32], line[256], shown[4 * 256 + 1];	/* escaped: lib/esc.h */
	time_t t = (time_t)(f->real_ns / 1000000000ull);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(tbuf, sizeof(tbuf), "%H:%M:%S", &tm);
	fmt_interval(iv, sizeof(iv), f->interval_ns);
	pen_on(PAIR_TITLE, A_BOLD);
	mvaddstr(0, 0, "bqltool top");
	pen_off(PAIR_TITLE, A_BOLD);
	snprintf(line, sizeof(line), "  host %s  kernel %s  HZ %u  every %s  %s",
		 f->host, f->kernel, f->hz, iv, tbuf);
	esc_text(shown, sizeof(shown), line);	/* the host name is anyone's */
	addnstr(shown, COLS - 11 > 0 ? COLS - 11 : 0);
	if (f->paused) {
		pen_on(PAIR_WARN, A_REVERSE);
		mvaddstr(0, COLS - 8 > 0 ? COLS - 8 : 0, " PAUSED ");
		pen_off(PAIR_WARN, A_REVERSE);
	}
	snprintf(line, sizeof(line), "devices %zu shown of %zu", m->nshown, m->ndev);
	if (m->nidle)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 ", %zu idle hidden (a)", m->nidle);
	if (m->nfiltered)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 ", %zu filtered", m->nfiltered);
	snprintf(line + strlen(line), sizeof(line) - strlen(line),
		 "   queues %zu   sort %s %s", m->nqueues, tm_cols[m->sort].name,
		 (tm_cols[m->sort].descending != m->reverse) ? "desc" : "asc");
	if (m->filter[0])
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 "   filter '%s'", m->filter);
	esc_text(shown, sizeof(shown), line);	/* the filter may be pasted */
	mvaddnstr(1, 0, shown, COLS);
	if (m->nflag[3] || m->nflag[2] || m->nflag[0] || m->nflag[1]) {
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
	if (f->message) {
		esc_text(line, sizeof(line), f->message);
		addnstr(line, COLS > getcurx(stdscr) ? COLS - getcurx(stdscr) : 0);
	}
}

static void draw_status(const struct tv_frame *f)
{
	static const char *const keys[][2] = {
		{ "h", "Help" }, { "s", "Sort" }, { "r", "Reverse" }, { "/", "Filter" },
		{ "Space", "Pause" }, { "+-", "Interval" }, { "Enter", "Expand" },
		{ "a", "All" }, { "q", "Quit" },
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

static void draw_help(const struct tv_frame *f)
{
	static const char *const lines[] = {
		"Keys",
		"  q, F10            quit (Ctrl-C too)",
		"  h, ?, F1          this help",
		"  s, F6             choose the sort column;  < >  previous/next column",
		"  r                 reverse the sort order",
		"  /                 filter devices by glob or text ('eth*', 'mlx'; 'eth0:tx-1*' for queues)",
		"  Space, p          pause or resume sampling",
		"  + -               sample less or more often",
		"  Enter, e          expand or collapse the device under the cursor",
		"  a                 show all devices, idle ones included (toggle)",
		"  Up Down PgUp PgDn Home End   move;  Ctrl-L redraw",
		"",
		"Columns (device rows sum their queues)",
		"  LIMIT, INFLIGHT   byte_queue_limits limit and inflight (bytes)",
		"  FILL              inflight / limit;  LIMIT HISTORY  the limit over the last samples",
		"  MIN, MAX          limit_min, limit_max;  TX RATE, PKT/S  transmit rate",
		"  STOP/S, WAKE/S    driver queue stops/wakes per second (netdev qstats, where reported)",
		"  STALLS, STALL MAX stall_cnt and stall_max (shown in ms)",
		"",
		"Flags",
		"  STALL   the kernel's stall detector fired (shown for about a second)",
		"  PINNED  inflight stayed at or above the limit with no completions (stall suspicion)",
		"  MIN     the limit sat at limit_min for a while although the queue was busy",
		"  OSC     the limit swung up and down repeatedly",
		"  new / gone   the device or queue appeared / vanished",
		"",
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

	erase();
	if (f->mode == TV_HELP) {
		draw_help(f);
		refresh();
		return;
	}
	draw_header(f);
	make_layout(&l, COLS, f->qstats);
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
	for (int i = 0; i < rows && *scroll + (size_t)i < m->nrows; i++)
		draw_row(&l, y0 + i, &m->rows[*scroll + (size_t)i], f->hz,
			 *scroll + (size_t)i == f->cursor);
	if (!m->nrows) {
		const char *why = m->nfiltered && m->filter[0] ?
			"No device matches the filter (/ to change it)." :
			m->nidle ? "Every device is idle: press a to show them all." :
			"No network device with byte queue limits.";

		mvaddnstr(y0 + 1, 2, why, COLS - 2);
	}
	if (f->mode == TV_SORT_MENU)
		draw_sort_menu(f);
	draw_status(f);
	refresh();
}
