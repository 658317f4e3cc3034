// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool top's live view loop: samples at the -d rate, redraws at most
 * TOP_FRAME_NS apart, answers keys at once. The model is lib/model/topmodel.c,
 * the screen top_view.c and top_draw.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cmd/cmd.h"
#include "cmd/top.h"
#include "cmd/top_lat.h"
#include "cmd/top_view.h"
#include "lib/kernel/hz.h"
#include "lib/kernel/sampler.h"
#include "lib/model/topmodel.h"


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
	char shortage[512];
	char lat_status[320];
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
	case '*': case 'E':	/* every device: expand, or collapse when all are */
		topmodel_expand_all(&u->m, topmodel_any_collapsed(&u->m));
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

int top_run_live(struct bql_ctx *c, struct sampler *s, const struct top_opts *o,
			   bool selected)
{
	struct tv_opts vo = { .color = c->color };
	uint64_t interval = o->delay_ns, next, samples = 0, drawn = 0;
	/*
	 * dirty: a sample or key not drawn yet; stale: the model's rows point
	 * into the sampler as it was before the last tick (they are rebuilt
	 * when drawn, or before a key uses them, never followed stale)
	 */
	bool dirty = true, force = true, stale = true;
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
	u.f.netns = c->netns;
	u.f.hz = hz_get()->hz;
	u.f.m = &u.m;
	u.f.filter_edit = u.filter_edit;

	/* counters (rates) need not be read faster than the screen shows them */
	s->stats_min_ns = TOP_FRAME_NS;
	/* the first sample before curses: errors print plainly */
	if (sampler_tick(s, &e)) {
		topmodel_free(&u.m);
		cmd_error(c, &e);
		return BQL_EXIT_FAIL;
	}
	top_lat_tick(c, o->lat, s);
	if (top_lat_on(o->lat)) {
		u.m.lat = top_lat_fill;
		u.m.lat_arg = o->lat;
	}
	/* the header says whether time is measured, and why not (on a real kernel) */
	u.f.lat_status = c->root_overridden ? NULL :
		top_lat_status(o->lat, u.lat_status, sizeof(u.lat_status));
	samples = 1;
	if (tv_init(&vo, err, sizeof(err))) {
		topmodel_free(&u.m);
		return cmd_fail(c, "%s", err);
	}
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
			top_lat_tick(c, o->lat, s);
			news(&u);
			dirty = stale = true;
			next += interval;
			if (next < now)
				next = now + interval;
		}
		/* sample at the asked rate, draw at most TOP_FRAME_NS apart */
		if (dirty && (force || now - drawn >= TOP_FRAME_NS)) {
			rebuild(&u);
			stale = false;
			u.f.interval_ns = interval;
			u.f.real_ns = s->real_ns;
			u.f.qstats = s->qstats;
			u.f.qdiscs = sampler_has_qdiscs(s);
			u.f.ethtool = sampler_has_ethtool(s);
			u.f.lat = top_lat_on(o->lat);
			if (!c->root_overridden)
				u.f.lat_status = top_lat_status(o->lat, u.lat_status, sizeof(u.lat_status));
			u.f.message = u.message[0] && now < u.message_until ? u.message : NULL;
			u.f.shortage = s->shortage.err ?
				sampler_short_text(u.shortage, sizeof(u.shortage), s) : NULL;
			tv_draw(&u.f, &u.scroll);
			drawn = now;
			dirty = force = false;
		}
		now = top_mono_now();
		timeout = u.f.paused ? -1 : next > now ? (int)((next - now + 999999) / 1000000) : 0;
		if (dirty) {
			uint64_t due = drawn + TOP_FRAME_NS;
			int t = due > now ? (int)((due - now + 999999) / 1000000) : 0;

			timeout = timeout < 0 || t < timeout ? t : timeout;
		}
		ch = tv_getkey(timeout);
		if (ch == TV_KEY_SIGNAL)
			break;
		if (ch == TV_KEY_NONE)
			continue;
		dirty = force = true;	/* a key or a resize: answer at once */
		if (stale) {		/* keys look at rows: the current ones */
			rebuild(&u);
			stale = false;
		}
		if (ch == TV_KEY_RESIZE)
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

