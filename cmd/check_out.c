// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool check: its report, text and JSON, and the notes about the whole
 * run (the stall detector off, HZ assumed): what check.c found, printed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/check.h"
#include "cmd/cmd.h"
#include "cmd/common.h"
#include "cmd/check_time.h"
#include "dql/dql.h"
#include "lib/io/esc.h"
#include "lib/io/out.h"
#include "lib/io/qname.h"
#include "lib/io/units.h"
#include "lib/kernel/hz.h"
#include "lib/kernel/sysfs.h"

/*
 * -i's evidence as numbers: "seen": {"interval_ns", "nsamples", "limit":
 * {"min", "max", "nchanges"}, "inflight_max", "inflight_max_limit",
 * "nbusy", "ninflight_falls", "stats": {deltas}, "qdisc": {...}}
 */
static void json_seen(struct bql_ctx *c, const struct evidence *ev, uint64_t interval_ns)
{
	const struct seen *sn = &ev->sn;

	out_open_obj(c, "seen");
	out_u64(c, OUT_JSON, "interval_ns", NULL, interval_ns);
	out_u64(c, OUT_JSON, "nsamples", NULL, sn->n);
	out_open_obj(c, "limit");
	out_u64(c, OUT_JSON, "min", NULL, sn->lim_lo);
	out_u64(c, OUT_JSON, "max", NULL, sn->lim_hi);
	out_u64(c, OUT_JSON, "nchanges", NULL, sn->changes);
	out_close_obj(c);
	out_u64(c, OUT_JSON, "inflight_max", NULL, sn->infl_max);
	if (sn->infl_max)
		out_u64(c, OUT_JSON, "inflight_max_limit", NULL, sn->infl_max_lim);
	out_u64(c, OUT_JSON, "nbusy", NULL, sn->busy);
	out_u64(c, OUT_JSON, "ninflight_falls", NULL, sn->falls);
	if (ev->has & (EV_PACKETS | EV_STOPS)) {
		out_open_obj(c, "stats");
		if (ev->has & EV_PACKETS)
			out_u64(c, OUT_JSON, "tx_packets", NULL, ev->tx_packets);
		if (ev->has & EV_STOPS) {
			out_u64(c, OUT_JSON, "tx_stop", NULL, ev->tx_stop);
			out_u64(c, OUT_JSON, "tx_wake", NULL, ev->tx_wake);
		}
		out_close_obj(c);
	}
	if (ev->has & EV_QDISC) {
		out_open_obj(c, "qdisc");
		out_str(c, OUT_JSON, "kind", NULL, ev->qd_kind);
		out_u64(c, OUT_JSON, "backlog_first", NULL, ev->qd_backlog0);
		out_u64(c, OUT_JSON, "backlog_last", NULL, ev->qd_backlog1);
		out_u64(c, OUT_JSON, "drops", NULL, ev->qd_drops);
		out_u64(c, OUT_JSON, "bytes", NULL, ev->qd_bytes);
		out_close_obj(c);
	}
	out_close_obj(c);
}

/* The stall_thrs range (ms) that the kernel accepts at @hz: 4..128 jiffies. */
static void stall_thrs_range(unsigned int hz, uint64_t *lo, uint64_t *hi)
{
	uint64_t ms;

	/* bounded: HZ 12, the lowest the kernel builds with, gives 250..10666 */
	for (ms = 1; ms < 100000 && dql_msecs_to_jiffies(ms, hz) < DQL_STALL_THRS_MIN; ms++)
		;
	*lo = ms;
	while (ms < 100000 && dql_msecs_to_jiffies(ms + 1, hz) <= DQL_STALL_THRS_MAX)
		ms++;
	*hi = ms;
}

/* @s into @buf quoted for a shell where it needs it ('eth*'), with a space before */
static size_t put_word(char *buf, size_t n, size_t len, const char *s)
{
	bool plain = *s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				   "0123456789_.:,@%+=/-") == strlen(s) && !strchr(s, '\'');

	if (len >= n)
		return len;
	return len + (size_t)snprintf(buf + len, n - len, plain ? " %s" : " '%s'", s);
}

/*
 * The command that turns the stall detector on for what was checked, to be
 * pasted: the same -n or --sysfs-root, the selectors as typed ('*' for none:
 * every device with BQL, as check took them), and the first value that
 * reads back as written at this HZ (13 ms is 4 jiffies at HZ 250: 16 ms).
 */
static void stall_hint(char *buf, size_t n, const struct check *k, const struct sel *keep,
		       uint64_t lo, uint64_t hi, uint64_t *ms)
{
	const struct bql_ctx *c = k->c;
	size_t len = (size_t)snprintf(buf, n, "bqltool");

	*ms = dql_jiffies_to_msecs(DQL_STALL_THRS_MIN, k->hz->hz);
	for (uint64_t v = lo; v <= hi; v++)
		if (dql_jiffies_to_msecs(dql_msecs_to_jiffies(v, k->hz->hz), k->hz->hz) == v) {
			*ms = v;
			break;
		}
	if (c->netns) {
		len = put_word(buf, n, len, "-n");
		len = put_word(buf, n, len, c->netns);
	} else if (c->root_overridden && c->sysfs_root) {
		len = put_word(buf, n, len, "--sysfs-root");
		len = put_word(buf, n, len, c->sysfs_root);
	}
	len = put_word(buf, n, len, "set");
	for (size_t i = 0; i < keep->n; i++)
		len = put_word(buf, n, len, keep->items[i].text ? keep->items[i].text :
				     keep->items[i].pat);
	if (!keep->n)
		len = put_word(buf, n, len, "*");
	if (len < n)
		snprintf(buf + len, n - len, " stall_thrs=%" PRIu64 "ms", *ms);
}

void check_add_notes(struct check *k, const struct snapshot *s, const struct sel *keep)
{
	size_t with_stall = 0, thrs_on = 0;
	uint64_t lo, hi, ms;
	char cmd[200];

	for (size_t d = 0; d < s->n; d++)
		for (unsigned int i = 0; i < s->dev[d].nq; i++) {
			const struct bql_queue *b = &s->dev[d].q[i].bql;

			if (!bql_has(b, BQL_STALL_THRS))
				continue;
			with_stall++;
			thrs_on += b->val[BQL_STALL_THRS] != 0;
		}
	if (with_stall && !thrs_on) {
		stall_thrs_range(k->hz->hz, &lo, &hi);
		stall_hint(cmd, sizeof(cmd), k, keep, lo, hi, &ms);
		check_add_reason(k->notes, &k->nnotes, LV_INFO, "stall-detector-off",
			   "the stall detector is off on every queue checked (stall_thrs 0); "
			   "enable it with: %s (at HZ %u stall_thrs is %u..%u jiffies, %" PRIu64
			   "..%" PRIu64 " ms; %" PRIu64 " ms is the lowest that reads back as written)",
			   cmd, k->hz->hz,
			   DQL_STALL_THRS_MIN, DQL_STALL_THRS_MAX, lo, hi, ms);
	} else if (s->n && !with_stall) {
		check_add_reason(k->notes, &k->nnotes, LV_INFO, "no-stall-detector",
			   "no stall_* files: the kernel predates the BQL stall detector (6.9)");
	}
	if (k->hz->src == HZ_SRC_FALLBACK)
		check_add_reason(k->notes, &k->nnotes, LV_INFO, "hz-assumed",
			   "HZ %u assumed: no CONFIG_HZ in /boot/config-$(uname -r) or "
			   "/proc/config.gz; set BQLTOOL_HZ to convert jiffies exactly",
			   k->hz->hz);
}

void check_print_json(struct check *k, const size_t cnt[VD_NR])
{
	struct bql_ctx *c = k->c;
	static const char *const keys[VD_NR] = { "ok", "warn", "fail", "no_bql", "unused" };

	out_begin(c, false);
	out_open_arr(c, "queues");
	for (size_t i = 0; i < k->nrows; i++) {
		const struct row *r = &k->rows[i];

		out_open_obj(c, NULL);
		if (r->queue < 0)
			qname_out_dev(c, r->ifname);
		else
			qname_out_queue(c, r->ifname, (unsigned int)r->queue);
		out_str(c, OUT_JSON, "verdict", NULL, check_row_verdict(r));
		out_open_arr(c, "reasons");
		for (int j = 0; j < r->nr; j++) {
			out_open_obj(c, NULL);
			out_str(c, OUT_JSON, "level", NULL, check_level_names[r->r[j].level]);
			out_str(c, OUT_JSON, "code", NULL, r->r[j].code);
			out_str(c, OUT_JSON, "message", NULL, r->r[j].msg);
			out_close_obj(c);
		}
		out_close_arr(c);
		if (r->has_ev)
			json_seen(c, &r->ev, k->interval_ns);
		out_close_obj(c);
	}
	out_close_arr(c);
	out_open_arr(c, "notes");
	for (int j = 0; j < k->nnotes; j++) {
		out_open_obj(c, NULL);
		out_str(c, OUT_JSON, "level", NULL, check_level_names[k->notes[j].level]);
		out_str(c, OUT_JSON, "code", NULL, k->notes[j].code);
		out_str(c, OUT_JSON, "message", NULL, k->notes[j].msg);
		out_close_obj(c);
	}
	out_close_arr(c);
	out_open_obj(c, "hz");
	out_u64(c, OUT_JSON, "value", NULL, k->hz->hz);
	out_str(c, OUT_JSON, "source", NULL, hz_source_name(k->hz->src));
	out_close_obj(c);
	out_open_obj(c, "summary");
	for (int i = 0; i < VD_NR; i++)
		out_u64(c, OUT_JSON, keys[i], NULL, cnt[i]);
	/* deprecated (bqltool-check(8)): the old spelling, for the scripts that read it */
	out_u64(c, OUT_JSON, "no-bql", NULL, cnt[VD_NOBQL]);
	out_close_obj(c);
}

static int row_name(const struct row *r, char *buf, size_t n)
{
	if (r->queue >= 0)
		return snprintf(buf, n, "%s:tx-%d", r->ifname, r->queue);
	return snprintf(buf, n, "%s", r->ifname);
}

void check_print_text(struct check *k, const size_t cnt[VD_NR])
{
	static const char *const col[] = { "\033[32m", "\033[33m", "\033[31m" };
	struct bql_ctx *c = k->c;
	char name[48];
	int w = 0;

	/* names and messages quote the outside: printed escaped by out_text() */
	for (size_t i = 0; i < k->nrows; i++) {
		int l;

		row_name(&k->rows[i], name, sizeof(name));
		l = (int)esc_text_width(name);
		w = l > w ? l : w;
	}
	for (size_t i = 0; i < k->nrows; i++) {
		const struct row *r = &k->rows[i];
		bool color = check_row_vd(r) <= VD_FAIL;
		const char *verdict = check_row_verdict(r);

		row_name(r, name, sizeof(name));
		out_text(c, "%s%*s  ", name, w - (int)esc_text_width(name), "");
		if (color)
			out_color(c, col[check_row_level(r)]);
		out_text(c, "%s", verdict);
		if (color)
			out_color(c, "\033[0m");
		/* the first reason on the verdict line, the others below it */
		for (int j = 0; j < r->nr; j++)
			out_text(c, "%*s%s\n", j ? w + 10 : 8 - (int)strlen(verdict), "",
				 r->r[j].msg);
		if (!r->nr)
			out_nl(c);
	}
	for (int j = 0; j < k->nnotes; j++)
		out_text(c, "note: %s\n", k->notes[j].msg);
	out_text(c, "checked: %zu ok, %zu warn, %zu fail", cnt[0], cnt[1], cnt[2]);
	if (cnt[VD_NOBQL])
		out_text(c, ", %zu without BQL", cnt[VD_NOBQL]);
	if (cnt[VD_UNUSED])
		out_text(c, ", %zu unused", cnt[VD_UNUSED]);
	out_nl(c);
}

