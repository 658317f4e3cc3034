// SPDX-License-Identifier: GPL-2.0-only
/*
 * top's screen, the terminal half: curses setup with a terminal that is
 * always restored (as htop's CRT.c), signals, keys with a timeout,
 * resizes. Drawing is top_draw.c. No sysfs here.
 */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmd/top_view.h"
#include "cmd/top_view_int.h"

/* ------------------------------------------------- terminal and signals */

static bool tv_active;
struct tv_term tv_term;
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
	tv_term.utf8 = cs && !strcmp(cs, "UTF-8");
	tv_quit_sig = tv_winch = 0;
	set_handlers();		/* before curses, so it keeps its hands off them */
	tv_screen = newterm(NULL, stdout, stdin);
	if (tv_screen) {
		/*
		 * a terminal that cannot move the cursor (TERM=dumb, a hardcopy or
		 * generic type) would get a garbled stream, not a screen: refuse it
		 */
		char *cup = tigetstr("cup");

		if (!cup || cup == (char *)-1 || tigetflag("hc") > 0 || tigetflag("gn") > 0) {
			const char *term = getenv("TERM");

			endwin();
			delscreen(tv_screen);
			tv_screen = NULL;
			restore_handlers();
			close(tv_pipe[0]);
			close(tv_pipe[1]);
			tv_pipe[0] = tv_pipe[1] = -1;
			snprintf(err, n, "terminal type '%s' cannot move the cursor; use -b for "
				 "batch output", term ? term : "(unset)");
			return -ENOTTY;
		}
	}
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
	tv_term.color = o->color && has_colors();
	if (tv_term.color)
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

size_t tv_window(const struct topmodel *m, size_t scroll, size_t cursor, int rows,
		 size_t *parent)
{
	size_t start = scroll;

	*parent = SIZE_MAX;
	if (rows <= 2 || scroll >= m->nrows || !m->rows[scroll].q)
		return scroll;
	/* under a header the list has a line less: the cursor stays in it */
	if (cursor > scroll + (size_t)rows - 2)
		start = scroll + 1;
	if (start >= m->nrows || !m->rows[start].q)
		return start;
	for (size_t p = start; p-- > 0;)
		if (!m->rows[p].q) {
			*parent = p;
			break;
		}
	return start;
}
