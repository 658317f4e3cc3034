// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool top [SEL...]: the live view (ncurses, see top_view.c) and the
 * batch stream (-b: text blocks or NDJSON). Sampling is lib/sampler.c,
 * rows, sorting and flags lib/topmodel.c; this file drives them.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cmd/cmd.h"
#include "cmd/common.h"
#include "cmd/top_view.h"
#include "dql/dql.h"
#include "lib/hz.h"
#include "lib/netns.h"
#include "lib/out.h"
#include "lib/sampler.h"
#include "lib/table.h"
#include "lib/topmodel.h"
#include "lib/units.h"

#define NS_PER_SEC	1000000000ull
#define MIN_DELAY_NS	10000000ull	/* 0.01 s */

struct top_opts {
	uint64_t delay_ns;
	uint64_t count;		/* 0 = until stopped */
	bool batch;
	bool all;
	int sort;		/* -1 = default */
};

static volatile sig_atomic_t top_stop;

static void on_stop(int sig)
{
	(void)sig;
	top_stop = 1;
}

/* ------------------------------------------------------------- batch */

static void json_queue(struct bql_ctx *c, const struct sampler_queue *q)
{
	out_open_obj(c, NULL);
	out_u64(c, OUT_JSON, "queue", NULL, q->index);
	for (int a = 0; a < BQL_ATTR_NR; a++)
		if (bql_has(&q->bql, a))
			out_u64(c, OUT_JSON, bql_attrs[a].name, NULL, q->bql.val[a]);
	for (int k = 0; k < SQS_NR; k++)
		if (q->qs_present & (1u << k))
			out_u64(c, OUT_JSON, sampler_qs_names[k], NULL, q->qs[k]);
	for (int k = 0; k < SQS_NR; k++) {
		char key[32];

		if (!(q->rate_valid & (1u << k)))
			continue;
		snprintf(key, sizeof(key), "%s_rate", sampler_qs_names[k]);
		out_dbl(c, OUT_JSON, key, NULL, q->rate[k]);
	}
	if (q->has_stall_delta)
		out_u64(c, OUT_JSON, "stall_cnt_delta", NULL, q->stall_cnt_delta);
	out_close_obj(c);
}

static void json_sample(struct bql_ctx *c, const struct sampler *s)
{
	out_begin(c, false);
	out_u64(c, OUT_JSON, "mono_ns", NULL, s->mono_ns);
	out_u64(c, OUT_JSON, "real_ns", NULL, s->real_ns);
	out_u64(c, OUT_JSON, "seq", NULL, s->seq);
	if (s->dt_ns)
		out_u64(c, OUT_JSON, "interval_ns", NULL, s->dt_ns);
	out_open_arr(c, "devices");
	for (size_t i = 0; i < s->ndev; i++) {
		const struct sampler_dev *d = &s->dev[i];

		if (d->flags & SAMPLER_VANISHED)
			continue;
		out_open_obj(c, NULL);
		out_str(c, OUT_JSON, "ifname", NULL, d->ifname);
		if (d->ifindex >= 0)
			out_u64(c, OUT_JSON, "ifindex", NULL, (uint64_t)d->ifindex);
		out_u64(c, OUT_JSON, "num_tx_queues", NULL, d->ntx);
		if (d->has_stats) {
			out_u64(c, OUT_JSON, "tx_bytes", NULL, d->tx_bytes);
			out_u64(c, OUT_JSON, "tx_packets", NULL, d->tx_packets);
		}
		if (d->has_rate) {
			out_dbl(c, OUT_JSON, "tx_bytes_rate", NULL, d->tx_bytes_rate);
			out_dbl(c, OUT_JSON, "tx_packets_rate", NULL, d->tx_packets_rate);
		}
		out_open_arr(c, "queues");
		for (unsigned int k = 0; k < d->nq; k++)
			if (!(d->q[k].flags & SAMPLER_VANISHED))
				json_queue(c, &d->q[k]);
		out_close_arr(c);
		out_close_obj(c);
	}
	out_close_arr(c);
	out_open_arr(c, "events");
	for (size_t i = 0; i < s->nev; i++) {
		const struct sampler_event *ev = &s->ev[i];

		out_open_obj(c, NULL);
		out_str(c, OUT_JSON, "type", NULL, sampler_event_name(ev->type));
		out_str(c, OUT_JSON, "ifname", NULL, ev->ifname);
		if (ev->type == SEV_QUEUES) {
			out_u64(c, OUT_JSON, "old_num_tx_queues", NULL, ev->old_ntx);
			out_u64(c, OUT_JSON, "num_tx_queues", NULL, ev->new_ntx);
		}
		out_close_obj(c);
	}
	out_close_arr(c);
}

enum { TC_DEV, TC_QUEUE, TC_LIMIT, TC_INFLIGHT, TC_MIN, TC_MAX, TC_HOLD, TC_THRS,
       TC_STALLS, TC_STALLMAX, TC_RATE, TC_PPS, TC_STOP, TC_WAKE, TC_DSTALL, TC_NR };

static void text_rate(struct table *t, int col, bool counted, bool valid, double v,
		      bool bytes)
{
	char buf[32];

	if (!counted)
		return;
	if (!valid)
		table_cell(t, col, "-");
	else if (bytes)
		table_cell(t, col, "%s", units_fmt_rate(buf, sizeof(buf), v));
	else
		table_cell(t, col, "%.1f", v);
}

static void text_queue(struct table *t, const struct sampler_queue *q, unsigned int hz)
{
	static const struct { enum bql_attr a; int col; } map[] = {
		{ BQL_LIMIT, TC_LIMIT }, { BQL_INFLIGHT, TC_INFLIGHT },
		{ BQL_LIMIT_MIN, TC_MIN }, { BQL_LIMIT_MAX, TC_MAX },
	};
	const struct bql_queue *b = &q->bql;
	char buf[32];

	table_cell(t, TC_QUEUE, "tx-%u", q->index);
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (!bql_has(b, map[i].a))
			continue;
		if (b->val[map[i].a] == DQL_MAX_LIMIT && map[i].a != BQL_LIMIT)
			table_cell(t, map[i].col, "max");
		else
			table_cell(t, map[i].col, "%s",
				   units_fmt_bytes(buf, sizeof(buf), b->val[map[i].a]));
	}
	if (bql_has(b, BQL_HOLD_TIME))
		table_cell(t, TC_HOLD, "%s", units_fmt_ms(buf, sizeof(buf), b->val[BQL_HOLD_TIME]));
	if (bql_has(b, BQL_STALL_THRS))
		table_cell(t, TC_THRS, "%s", b->val[BQL_STALL_THRS] ?
			   units_fmt_ms(buf, sizeof(buf), b->val[BQL_STALL_THRS]) : "off");
	if (bql_has(b, BQL_STALL_CNT))
		table_cell(t, TC_STALLS, "%" PRIu64, b->val[BQL_STALL_CNT]);
	if (bql_has(b, BQL_STALL_MAX))
		table_cell(t, TC_STALLMAX, "%s", units_fmt_ms(buf, sizeof(buf),
			   dql_jiffies_to_msecs(b->val[BQL_STALL_MAX], hz)));
	if (bql_has(b, BQL_STALL_CNT))
		table_cell(t, TC_DSTALL, q->has_stall_delta ? "%" PRIu64 : "-",
			   q->stall_cnt_delta);
	for (int k = 0; k < SQS_NR; k++)
		text_rate(t, TC_RATE + k, q->qs_present & (1u << k),
			  q->rate_valid & (1u << k), q->rate[k], k == SQS_TX_BYTES);
}

static int text_sample(struct bql_ctx *c, const struct sampler *s, unsigned int hz)
{
	static const char *const hdr[TC_NR] = {
		"device", "queue", "limit", "inflight", "limit_min", "limit_max",
		"hold_time", "stall_thrs", "stall_cnt", "stall_max", "tx_rate",
		"pkt/s", "stop/s", "wake/s", "stalls+",
	};
	time_t sec = (time_t)(s->real_ns / NS_PER_SEC);
	char when[64];
	struct table t;
	struct tm tm;

	localtime_r(&sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(c->out, "%s.%03u  sample %" PRIu64, when,
		(unsigned int)(s->real_ns % NS_PER_SEC / 1000000), s->seq);
	if (s->dt_ns)
		fprintf(c->out, "  interval %.3fs", (double)s->dt_ns / 1e9);
	fputc('\n', c->out);
	table_init(&t, TC_NR, 1u << TC_DEV | 1u << TC_QUEUE, 0);
	if (table_row(&t))
		return -ENOMEM;
	for (int i = 0; i < TC_NR; i++)
		table_cell(&t, i, "%s", hdr[i]);
	for (size_t i = 0; i < s->ndev; i++) {
		const struct sampler_dev *d = &s->dev[i];

		if (d->flags & SAMPLER_VANISHED)
			continue;
		if (d->has_stats) {
			if (table_row(&t)) {
				table_free(&t);
				return -ENOMEM;
			}
			table_cell(&t, TC_DEV, "%s", d->ifname);
			table_cell(&t, TC_QUEUE, "all");
			text_rate(&t, TC_RATE, true, d->has_rate, d->tx_bytes_rate, true);
			text_rate(&t, TC_PPS, true, d->has_rate, d->tx_packets_rate, false);
		}
		for (unsigned int k = 0; k < d->nq; k++) {
			if (d->q[k].flags & SAMPLER_VANISHED)
				continue;
			if (table_row(&t)) {
				table_free(&t);
				return -ENOMEM;
			}
			table_cell(&t, TC_DEV, "%s", d->ifname);
			text_queue(&t, &d->q[k], hz);
		}
	}
	table_drop_empty(&t, 1);
	table_print(&t, c->out);
	table_free(&t);
	for (size_t i = 0; i < s->nev; i++) {
		const struct sampler_event *ev = &s->ev[i];

		if (ev->type == SEV_QUEUES)
			fprintf(c->out, "event: %s: TX queues %u -> %u\n", ev->ifname,
				ev->old_ntx, ev->new_ntx);
		else
			fprintf(c->out, "event: %s: %s\n", ev->ifname,
				sampler_event_name(ev->type));
	}
	fputc('\n', c->out);
	return 0;
}

/* A reader that went away (`| head`) ends the stream quietly. */
static int output_done(struct bql_ctx *c, int ret)
{
	int err = errno;
	int fd;

	if (!ret && !fflush(c->out) && !ferror(c->out))
		return 0;
	err = errno;
	if (err != EPIPE)
		return cmd_fail(c, "write error on standard output: %s", strerror(err));
	/* leave nothing for main's final flush to complain about */
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, fileno(c->out));
		close(fd);
	}
	clearerr(c->out);
	return -1;
}

static void sleep_until(uint64_t t_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(t_ns / NS_PER_SEC),
			       .tv_nsec = (long)(t_ns % NS_PER_SEC) };

	while (!top_stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static uint64_t mono_now(void)
{
	return sampler_clock_system.mono_ns(NULL);
}

static int run_batch(struct bql_ctx *c, struct sampler *s, const struct top_opts *o)
{
	struct sigaction sa;
	unsigned int hz = hz_get()->hz;
	uint64_t next = mono_now();
	struct bql_err e;
	int ret;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;	/* no SA_RESTART: the sleep ends */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	json_c_set_serialization_double_format("%.3f", JSON_C_OPTION_GLOBAL);
	for (uint64_t n = 0; !o->count || n < o->count; n++) {
		if (n)
			sleep_until(next);
		if (top_stop)
			break;
		if (sampler_tick(s, &e)) {
			cmd_error(c, &e);
			return BQL_EXIT_FAIL;
		}
		if (c->verbose && n == 0 && s->note[0])
			fprintf(stderr, "bqltool: note: %s\n", s->note);
		if (c->json) {
			json_sample(c, s);
			ret = out_end(c);
		} else {
			ret = text_sample(c, s, hz);
		}
		ret = output_done(c, ret);
		if (ret)
			return ret < 0 ? BQL_EXIT_OK : ret;
		next += o->delay_ns;
		if (next < mono_now())	/* fell behind: no burst to catch up */
			next = mono_now();
	}
	return BQL_EXIT_OK;
}

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
	u->message_until = mono_now() + 10 * NS_PER_SEC;
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
	next = mono_now() + interval;
	for (;;) {
		uint64_t now = mono_now();
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
		now = mono_now();
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
			next = mono_now() + interval;
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
	ret = o.batch ? run_batch(c, &s, &o) : run_interactive(c, &s, &o, st.sel.n > 0);
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
