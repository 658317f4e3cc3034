// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool top [SEL...]: the live view (ncurses, see top_view.c) and the
 * batch stream (-b: text blocks or NDJSON). Sampling is lib/sampler.c,
 * rows, sorting and flags lib/topmodel.c; this file drives them.
 */
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>


#include "cmd/cmd.h"
#include "cmd/common.h"
#include "cmd/top.h"
#include "cmd/top_view.h"
#include "lib/hz.h"
#include "lib/netns.h"
#include "lib/sampler.h"
#include "lib/topmodel.h"

/* ------------------------------------------------------- interactive */

static const uint64_t steps_ns[] = {
	10000000ull, 20000000ull, 50000000ull, 100000000ull, 200000000ull,
	500000000ull, 1000000000ull, 2000000000ull, 5000000000ull, 10000000000ull,
	30000000000ull, 60000000000ull,
};

static uint64_t next_step(uint64_t cur, bool up)
{
	size_t n = sizeof(steps_ns) / sizeof(steps_ns[0]);

	if (up) {
		for (size_t i = 0; i < n; i++)
			if (steps_ns[i] > cur)
				return steps_ns[i];
		return cur;
	}
	for (size_t i = n; i-- > 0;)
		if (steps_ns[i] < cur)
			return steps_ns[i];
	return cur;
}

struct ui {
	struct bql_ctx *c;
	struct sampler *s;
	struct topmodel m;
	struct tv_frame f;
	struct utsname un;
	size_t scroll;
	char sel_dev[BQL_IFNAMSIZ];	/* cursor identity across rebuilds */
	int sel_q;			/* -1: the device row */
	char filter_edit[64], filter_old[64];
	char message[256];
	uint64_t message_until;
};

static void remember_cursor(struct ui *u)
{
	const struct tm_row *r;

	if (u->f.cursor >= u->m.nrows)
		return;
	r = &u->m.rows[u->f.cursor];
	snprintf(u->sel_dev, sizeof(u->sel_dev), "%s", r->dev->ifname);
	u->sel_q = r->q ? (int)r->q->index : -1;
}

static void rebuild(struct ui *u)
{
	size_t best = 0;
	bool found = false;

	if (topmodel_build(&u->m, u->s))
		return;
	for (size_t i = 0; i < u->m.nrows && !found; i++) {
		const struct tm_row *r = &u->m.rows[i];

		if (strcmp(r->dev->ifname, u->sel_dev))
			continue;
		best = i;	/* at least the device */
		found = (r->q ? (int)r->q->index : -1) == u->sel_q;
	}
	u->f.cursor = u->m.nrows ? (best < u->m.nrows ? best : u->m.nrows - 1) : 0;
}

static void news(struct ui *u)
{
	size_t len = 0;

	if (!u->s->nev)
		return;
	u->message[0] = '\0';
	for (size_t i = 0; i < u->s->nev && len < sizeof(u->message) - 40; i++) {
		const struct sampler_event *ev = &u->s->ev[i];

		if (ev->type == SEV_QUEUES)
			len += (size_t)snprintf(u->message + len, sizeof(u->message) - len,
						"%s%s: TX queues %u -> %u", len ? ", " : "",
						ev->ifname, ev->old_ntx, ev->new_ntx);
		else
			len += (size_t)snprintf(u->message + len, sizeof(u->message) - len,
						"%s%s %s", len ? ", " : "", ev->ifname,
						sampler_event_name(ev->type));
	}
	u->message_until = top_mono_now() + 10 * NS_PER_SEC;
}

/* Keys while the filter prompt is open; true when it closes. */
static bool filter_key(struct ui *u, int ch)
{
	size_t len = strlen(u->filter_edit);

	if (ch == TV_KEY_ESC) {		/* back to what it was */
		topmodel_set_filter(&u->m, u->filter_old);
		return true;
	}
	if (ch == TV_KEY_ENTER)
		return true;
	if (ch == TV_KEY_BACKSPACE) {
		if (len)
			u->filter_edit[len - 1] = '\0';
	} else if (ch == 21) {		/* Ctrl-U */
		u->filter_edit[0] = '\0';
	} else if (ch >= 32 && ch < 127 && len + 1 < sizeof(u->filter_edit)) {
		u->filter_edit[len] = (char)ch;
		u->filter_edit[len + 1] = '\0';
	}
	topmodel_set_filter(&u->m, u->filter_edit);
	return false;
}

static void sort_menu_key(struct ui *u, int ch)
{
	switch (ch) {
	case TV_KEY_UP: case 'k':
		u->f.menu_sel = (u->f.menu_sel + TM_COL_NR - 1) % TM_COL_NR;
		return;
	case TV_KEY_DOWN: case 'j':
		u->f.menu_sel = (u->f.menu_sel + 1) % TM_COL_NR;
		return;
	case TV_KEY_ENTER:
		topmodel_sort(&u->m, (enum tm_col)u->f.menu_sel);
		break;
	default:
		break;
	}
	u->f.mode = TV_TABLE;
}

/*
 * One key in table mode. Returns 1 to quit, 0 otherwise; *resample is
 * set when the interval or pause state changed.
 */
static int table_key(struct ui *u, int ch, uint64_t *interval, bool *resample)
{
	size_t page = (size_t)tv_page_rows();

	switch (ch) {
	case 'q': case 'Q': case TV_KEY_F10:
		return 1;
	case 'h': case '?': case TV_KEY_F1:
		u->f.mode = TV_HELP;
		break;
	case 's': case TV_KEY_F6:
		u->f.mode = TV_SORT_MENU;
		u->f.menu_sel = (int)u->m.sort;
		break;
	case '<': case ',':
		topmodel_sort(&u->m, (enum tm_col)((u->m.sort + TM_COL_NR - 1) % TM_COL_NR));
		break;
	case '>': case '.':
		topmodel_sort(&u->m, (enum tm_col)((u->m.sort + 1) % TM_COL_NR));
		break;
	case 'r': case 'I':
		u->m.reverse = !u->m.reverse;
		break;
	case '/': case TV_KEY_F3: case TV_KEY_F4:
		u->f.mode = TV_FILTER;
		snprintf(u->filter_old, sizeof(u->filter_old), "%s", u->m.filter);
		snprintf(u->filter_edit, sizeof(u->filter_edit), "%s", u->m.filter);
		break;
	case ' ': case 'p': case 'P': case 'Z':
		u->f.paused = !u->f.paused;
		*resample = true;
		break;
	case '+': case '=':
		*interval = next_step(*interval, true);
		*resample = true;
		break;
	case '-': case '_':
		*interval = next_step(*interval, false);
		if (*interval < MIN_DELAY_NS)
			*interval = MIN_DELAY_NS;
		*resample = true;
		break;
	case TV_KEY_ENTER: case 'e':
		if (u->f.cursor < u->m.nrows) {
			const struct tm_row *r = &u->m.rows[u->f.cursor];

			topmodel_toggle(&u->m, r->dev->ifname);
			snprintf(u->sel_dev, sizeof(u->sel_dev), "%s", r->dev->ifname);
			u->sel_q = -1;	/* land on the device row */
			rebuild(u);
			return 0;
		}
		break;
	case 'a':
		u->m.show_all = !u->m.show_all;
		break;
	case TV_KEY_UP: case 'k':
		u->f.cursor -= u->f.cursor > 0;
		break;
	case TV_KEY_DOWN: case 'j':
		u->f.cursor += u->f.cursor + 1 < u->m.nrows;
		break;
	case TV_KEY_PGUP:
		u->f.cursor = u->f.cursor > page ? u->f.cursor - page : 0;
		break;
	case TV_KEY_PGDN:
		u->f.cursor = u->m.nrows ? (u->f.cursor + page < u->m.nrows ?
					    u->f.cursor + page : u->m.nrows - 1) : 0;
		break;
	case TV_KEY_HOME: case 'g':
		u->f.cursor = 0;
		break;
	case TV_KEY_END: case 'G':
		u->f.cursor = u->m.nrows ? u->m.nrows - 1 : 0;
		break;
	default:
		return 0;
	}
	remember_cursor(u);
	rebuild(u);
	return 0;
}

static int run_interactive(struct bql_ctx *c, struct sampler *s, const struct top_opts *o,
			   bool selected)
{
	struct tv_opts vo = { .color = c->color };
	uint64_t interval = o->delay_ns, next, samples = 0;
	struct bql_err e;
	char err[256];
	struct ui u;
	int ret = BQL_EXIT_OK;

	memset(&u, 0, sizeof(u));
	u.c = c;
	u.s = s;
	u.sel_q = -1;
	uname(&u.un);
	topmodel_init(&u.m);
	u.m.show_all = o->all || selected;
	if (o->sort >= 0)
		topmodel_sort(&u.m, (enum tm_col)o->sort);
	u.f.host = u.un.nodename;
	u.f.kernel = u.un.release;
	u.f.hz = hz_get()->hz;
	u.f.m = &u.m;
	u.f.filter_edit = u.filter_edit;

	/* the first sample before curses: errors print plainly */
	if (sampler_tick(s, &e)) {
		topmodel_free(&u.m);
		cmd_error(c, &e);
		return BQL_EXIT_FAIL;
	}
	samples = 1;
	if (tv_init(&vo, err, sizeof(err))) {
		topmodel_free(&u.m);
		return cmd_fail(c, "%s", err);
	}
	rebuild(&u);
	next = top_mono_now() + interval;
	for (;;) {
		uint64_t now = top_mono_now();
		bool resample = false;
		int ch, timeout;

		if (!u.f.paused && now >= next) {
			if (o->count && samples >= o->count)
				break;
			if (sampler_tick(s, &e)) {
				tv_done();
				cmd_error(c, &e);
				ret = BQL_EXIT_FAIL;
				goto out;
			}
			samples++;
			news(&u);
			rebuild(&u);
			next += interval;
			if (next < now)
				next = now + interval;
		}
		u.f.interval_ns = interval;
		u.f.real_ns = s->real_ns;
		u.f.qstats = s->qstats;
		u.f.message = u.message[0] && now < u.message_until ? u.message : NULL;
		tv_draw(&u.f, &u.scroll);
		now = top_mono_now();
		timeout = u.f.paused ? -1 : next > now ? (int)((next - now + 999999) / 1000000) : 0;
		ch = tv_getkey(timeout);
		if (ch == TV_KEY_SIGNAL)
			break;
		if (ch == TV_KEY_NONE || ch == TV_KEY_RESIZE)
			continue;
		if (u.f.mode == TV_HELP) {
			u.f.mode = TV_TABLE;
			continue;
		}
		if (u.f.mode == TV_SORT_MENU) {
			sort_menu_key(&u, ch);
			rebuild(&u);
			continue;
		}
		if (u.f.mode == TV_FILTER) {
			if (filter_key(&u, ch))
				u.f.mode = TV_TABLE;
			rebuild(&u);
			continue;
		}
		if (table_key(&u, ch, &interval, &resample))
			break;
		if (resample)
			next = top_mono_now() + interval;
	}
	tv_done();
out:
	topmodel_free(&u.m);
	return ret;
}

/* ------------------------------------------------------------ options */

static int top_run(struct bql_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "delay",	required_argument,	NULL, 'd' },
		{ "batch",	no_argument,		NULL, 'b' },
		{ "count",	required_argument,	NULL, 'c' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "netns",	required_argument,	NULL, 'n' },
		{ "sort",	required_argument,	NULL, 's' },
		{ "all",	no_argument,		NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	struct top_opts o = { .delay_ns = NS_PER_SEC, .sort = -1 };
	const char *netns = NULL;
	struct cmd_state st;
	struct sampler s;
	struct bql_err e;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, ":d:bc:jn:s:a", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			if (units_parse_sec_ns("-d", optarg, &o.delay_ns, &e))
				return cmd_usage(c, "%s", e.msg);
			if (o.delay_ns < MIN_DELAY_NS)
				return cmd_usage(c, "-d: interval '%s' is too short (at least 0.01 s)",
						 optarg);
			break;
		case 'b':
			o.batch = true;
			break;
		case 'c':
			if (units_parse_u64(optarg, &o.count) || !o.count)
				return cmd_usage(c, "-c: invalid count '%s' (expected a whole number >= 1)",
						 optarg);
			break;
		case 'j':
			c->json = true;
			c->color = false;
			break;
		case 'n':
			netns = optarg;
			break;
		case 's':
			o.sort = topmodel_col_find(optarg);
			if (o.sort < 0)
				return cmd_usage(c, "-s: unknown column '%s' (name, limit, inflight, fill, "
						 "limit_min, limit_max, tx_bytes, tx_packets, tx_stop, "
						 "tx_wake, stall_cnt, stall_max)", optarg);
			break;
		case 'a':
			o.all = true;
			break;
		default:
			return cmd_bad_option(c, opt, argv);
		}
	}
	if (c->json)
		o.batch = true;	/* JSON is a stream for programs */
	if (!o.batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		return cmd_usage(c, "not a terminal: the live view needs one; "
				 "use -b for batch output (e.g. top -b -c 5, -j for JSON lines)");
	if (netns) {
		if (c->netns || c->root_overridden)
			return cmd_usage(c, "-n: a namespace or --sysfs-root is already given");
		if (cmd_check_netns(c, netns))
			return BQL_EXIT_USAGE;
		if (netns_switch(netns, &e)) {
			cmd_error(c, &e);
			return BQL_EXIT_FAIL;
		}
		c->netns = netns;
	}
	ret = cmd_select(c, argc - optind, argv + optind, &st);
	if (ret)
		return ret;
	if (!st.targets.n)
		cmd_warn(c, "no network device with byte queue limits found (yet)");
	cmd_open_netlink(c, &st);
	sampler_init(&s, c, &st.sel, st.nl, NULL);
	if (!o.batch)
		setlocale(LC_ALL, "");
	ret = o.batch ? top_run_batch(c, &s, &o) : run_interactive(c, &s, &o, st.sel.n > 0);
	sampler_free(&s);
	cmd_state_free(&st);
	return ret;
}

const struct cmd_entry cmd_top_entry = {
	.name = "top",
	.synopsis = "top [-b] [-d SEC] [-c COUNT] [-j] [-s COLUMN] [-a] [-n NS] [SEL...]",
	.summary = "Live view of BQL limits, inflight bytes, rates and stalls; -b for a stream",
	.help = "  -d, --delay SEC    seconds between samples, fractional (default 1, at least 0.01)\n"
		"  -b, --batch        no screen: print one block per sample (text), or with -j\n"
		"                     one JSON object per line\n"
		"  -c, --count N      stop after N samples\n"
		"  -j, --json         batch output as JSON lines (implies -b)\n"
		"  -s, --sort COLUMN  initial sort: name, limit, inflight, fill, limit_min, limit_max,\n"
		"                     tx_bytes, tx_packets, tx_stop, tx_wake, stall_cnt, stall_max\n"
		"  -a, --all          show idle devices too (the default when selectors are given)\n"
		"  -n, --netns NS     watch the devices of network namespace NS\n"
		"\nKeys: q quit, h help, s/F6 or < > sort, r reverse, / filter, space pause,\n"
		"+/- interval, Enter expand/collapse a device, a show idle devices.\n"
		"\nJSON lines carry mono_ns and real_ns timestamps, each device's queues with\n"
		"their sysfs values (sysfs units), and from the second sample on the rates\n"
		"(*_rate, per second) and stall_cnt_delta; \"events\" lists devices that\n"
		"appeared or vanished and queue count changes. Without a terminal the live\n"
		"view refuses to start: use -b.\n",
	.flags = CMD_NEEDS_NL,
	.run = top_run,
};
