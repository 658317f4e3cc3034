// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool check [-a] [-i SEC] [SEL...]: a doctor for byte queue limits.
 * One verdict per TX queue (ok, warn, fail) with the reasons; exit 1 when
 * any queue fails.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/common.h"
#include "cmd/check.h"
#include "cmd/check_time.h"
#include "dql/dql.h"
#include "lib/kernel/hz.h"
#include "lib/kernel/nl.h"
#include "lib/io/esc.h"
#include "lib/io/out.h"
#include "lib/io/qname.h"
#include "lib/model/rules.h"
#include "lib/kernel/sampler.h"
#include "lib/kernel/sysfs.h"
#include "lib/io/units.h"

const char *const check_level_names[] = { "info", "warn", "fail" };

void check_add_reason(struct reason *r, int *n, enum level lv, const char *code,
		       const char *fmt, ...)
{
	va_list ap;

	if (*n >= MAX_REASONS)
		return;
	r[*n].level = lv;
	r[*n].code = code;
	va_start(ap, fmt);
	bql_vfmt_fit(r[*n].msg, sizeof(r[*n].msg), fmt, ap);
	va_end(ap);
	(*n)++;
}

static struct row *new_row(struct check *k, const char *ifname, int queue)
{
	struct row *nr;

	if (k->nrows == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 16;

		nr = realloc(k->rows, cap * sizeof(*nr));
		if (!nr) {
			k->oom = true;
			return NULL;
		}
		k->rows = nr;
		k->cap = cap;
	}
	nr = &k->rows[k->nrows++];
	memset(nr, 0, sizeof(*nr));
	snprintf(nr->ifname, sizeof(nr->ifname), "%s", ifname);
	nr->queue = queue;
	return nr;
}

enum level check_row_level(const struct row *r)
{
	enum level lv = LV_INFO;

	for (int i = 0; i < r->nr; i++)
		if (r->r[i].level > lv)
			lv = r->r[i].level;
	return lv;
}


enum verdict check_row_vd(const struct row *r)
{
	enum level lv = check_row_level(r);

	if (r->nobql && lv != LV_FAIL)
		return VD_NOBQL;
	/* no evidence, no verdict: "ok" would claim what nobody saw */
	if (r->unused && lv == LV_INFO)
		return VD_UNUSED;
	return lv == LV_FAIL ? VD_FAIL : lv == LV_WARN ? VD_WARN : VD_OK;
}

const char *check_row_verdict(const struct row *r)
{
	/* identifiers, as the summary's keys that count them: no_bql, not no-bql */
	static const char *const v[VD_NR] = { "ok", "warn", "fail", "no_bql", "unused" };

	return v[check_row_vd(r)];
}

/* Why @dev has no byte_queue_limits: what the kernel's netdev_uses_bql() checks. */
static void nobql_reason(struct check *k, struct bnl *nl, const char *dev,
			 char *buf, size_t n)
{
	char path[4096], val[32], what[96] = "";
	unsigned int ntx = 0;
	struct bnl_link l;
	struct bql_err e;

	if (sysfs_dev_check(k->c, dev, &e) == -EXDEV) {
		snprintf(buf, n, "refused: its directory leads outside the sysfs root");
		return;
	}

	if (!sysfs_count_txq(k->c, dev, &ntx, NULL) && !ntx) {
		snprintf(buf, n, "no TX queues in sysfs");
		return;
	}
	if (nl && !bnl_link_get(nl, dev, &l, NULL)) {
		if (l.flags & IFF_LOOPBACK)
			snprintf(what, sizeof(what), "loopback (lltx, IFF_NO_QUEUE)");
		else if (!strcmp(l.qdisc, "noqueue"))
			snprintf(what, sizeof(what), "%s%sroot qdisc noqueue (IFF_NO_QUEUE)",
				 l.kind, l.kind[0] ? " device, " : "");
		else if (l.kind[0])
			snprintf(what, sizeof(what), "%s device (virtual devices are usually lltx)",
				 l.kind);
	} else if (!sysfs_dev_path(k->c, path, sizeof(path), dev, "flags") &&
		   !sysfs_read(k->c, path, val, sizeof(val), dev, NULL)) {
		if (strtoul(val, NULL, 16) & IFF_LOOPBACK)
			snprintf(what, sizeof(what), "loopback (lltx, IFF_NO_QUEUE)");
	}
	snprintf(buf, n, "%s%sno byte_queue_limits directory (since 6.9 the kernel has none "
		 "for lltx or IFF_NO_QUEUE devices, nor without CONFIG_BQL)",
		 what, what[0] ? ": " : "");
}

/* true if every TX queue of @d (selected or not) has limit 0 */
static bool dev_limits_all_zero(struct check *k, const struct snap_dev *d)
{
	struct bql_queue bq;

	for (unsigned int q = 0; q < d->ntx; q++) {
		const struct bql_queue *p = NULL;

		for (unsigned int i = 0; i < d->nq; i++)
			if (d->q[i].bql.index == q)
				p = &d->q[i].bql;
		if (!p) {
			if (bql_queue_read(k->c, d->ifname, q, &bq, NULL))
				return false;
			p = &bq;
		}
		if (p->val[BQL_LIMIT])
			return false;
	}
	return true;
}

static const struct snap_dev *find_dev(const struct snapshot *s, const char *name)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (!strcmp(s->dev[i].ifname, name))
			return &s->dev[i];
	return NULL;
}

/* uname -r for the clamp rule; NULL for a tree that is not this kernel's */
static const char *kernel_release(const struct bql_ctx *c, struct utsname *u)
{
	return c->root_overridden || uname(u) ? NULL : u->release;
}

/* the qdisc that feeds @q: its own, or the device's shared one; NULL if unknown */
static const struct bnl_qdisc *queue_qdisc(const struct snap_dev *d, const struct snap_queue *q)
{
	if (q->qd_scope == BNL_QD_QUEUE)
		return &q->qd;
	if (q->qd_scope == BNL_QD_DEVICE)
		return &d->qd;
	return NULL;
}

/* the findings that need the transmit path: qdisc, ring, coalescing (lib/model/rules.c) */
static void check_path(struct row *r, const struct snap_dev *d, const struct snap_queue *q,
		       const struct snap_dev *d2, const struct snap_queue *q2, uint64_t interval_ns)
{
	static const enum level lv[] = { [RULE_INFO] = LV_INFO, [RULE_WARN] = LV_WARN,
					 [RULE_FAIL] = LV_FAIL };
	const uint64_t *v = q->bql.val;
	const struct bnl_qdisc *qd = queue_qdisc(d, q), *qd2 = q2 ? queue_qdisc(d2, q2) : NULL;
	struct rule_hit hits[RULES_PATH_MAX];
	struct rules_path_in in = {
		.ifname = d->ifname,
		.active = v[BQL_LIMIT] || v[BQL_INFLIGHT] ||
			  (q2 && (q2->bql.val[BQL_LIMIT] || q2->bql.val[BQL_INFLIGHT])),
		.limit = v[BQL_LIMIT],
		.limit_max = bql_has(&q->bql, BQL_LIMIT_MAX) ? v[BQL_LIMIT_MAX] : UINT64_MAX,
		.speed_mbps = (d->present & SD_SPEED) ? d->speed_mbps : 0,
		.mtu = (d->present & SD_MTU) ? d->mtu : 0,
		.has_ring = d->ring.present & BNL_RING_TX,
		.ring_tx = d->ring.tx,
		.has_usecs = d->coal.present & BNL_COAL_TX_USECS,
		.tx_usecs = d->coal.tx_usecs,
		.has_frames = d->coal.present & BNL_COAL_TX_MAX_FRAMES,
		.tx_frames = d->coal.tx_max_frames,
		.qdisc_kind = qd ? qd->kind : NULL,
		.qdisc_backlog = !qd ? 0 : qd2 && qd2->backlog > qd->backlog ? qd2->backlog :
				 qd->backlog,
		/* with an interval, the drops it saw; else since the qdisc was created */
		.qdisc_drops = !qd ? 0 : !q2 ? qd->drops :
			       qd2 && !strcmp(qd->kind, qd2->kind) && qd2->drops > qd->drops ?
			       qd2->drops - qd->drops : 0,
		.interval_ns = q2 ? interval_ns : 0,
	};
	char where[32] = "root", h[16];
	int n;

	if (qd && qd->parent != BNL_TC_H_ROOT)
		snprintf(where, sizeof(where), "parent %s", bnl_tc_handle_str(qd->parent, h, sizeof(h)));
	in.qdisc_where = where;
	n = rules_path(&in, hits);
	for (int i = 0; i < n; i++)
		check_add_reason(r->r, &r->nr, lv[hits[i].level], hits[i].code, "%s", hits[i].msg);
}

/* the --interval as text, "0.5 s", "1200 s": three digits, never 1e+03 */
static void fmt_sec(char *buf, size_t n, uint64_t ns)
{
	double sec = (double)ns / 1e9;

	snprintf(buf, n, sec < 999.5 ? "%.3g s" : "%.0f s", sec);
}

/* --interval: what was seen, as one line of evidence */
static void check_seen(struct check *k, struct row *r, const struct snap_dev *d,
		       const struct snap_queue *q, const struct snap_dev *d2,
		       const struct snap_queue *q2, const struct seen *sn)
{
	char msg[320], h1[32], h2[32], h3[32], sec[32];
	size_t m = 0;
	const struct bnl_qdisc *qd = queue_qdisc(d, q), *qd2 = q2 ? queue_qdisc(d2, q2) : NULL;

	if (!sn || !sn->n)
		return;
	fmt_sec(sec, sizeof(sec), k->interval_ns);
	m += (size_t)snprintf(msg + m, sizeof(msg) - m, "over %s (%" PRIu64 " samples): limit ",
			      sec, sn->n);
	if (sn->lim_lo == sn->lim_hi)
		m += (size_t)snprintf(msg + m, sizeof(msg) - m, "%s (no change)",
				      units_fmt_bytes(h1, sizeof(h1), sn->lim_lo));
	else
		m += (size_t)snprintf(msg + m, sizeof(msg) - m, "%s..%s (%" PRIu64 " changes)",
				      units_fmt_bytes(h1, sizeof(h1), sn->lim_lo),
				      units_fmt_bytes(h2, sizeof(h2), sn->lim_hi), sn->changes);
	if (m < sizeof(msg))
		m += (size_t)snprintf(msg + m, sizeof(msg) - m, ", inflight up to %s",
				      units_fmt_bytes(h1, sizeof(h1), sn->infl_max));
	if (m < sizeof(msg) && sn->infl_max && sn->infl_max_lim)
		m += (size_t)snprintf(msg + m, sizeof(msg) - m, " (%.0f%% of the limit then)",
				      100.0 * (double)sn->infl_max / (double)sn->infl_max_lim);
	if (m < sizeof(msg))
		m += (size_t)snprintf(msg + m, sizeof(msg) - m, ", busy in %.0f%% of samples, "
				      "inflight fell %" PRIu64 " times (completions)", 100.0 * (double)sn->busy /
				      (double)sn->n, sn->falls);
	/* the same facts as numbers for -j (print_json) */
	memset(&r->ev, 0, sizeof(r->ev));
	r->ev.sn = *sn;
	r->has_ev = true;
	if (q2 && (q->qs_present & SQ_TX_PACKETS) && (q2->qs_present & SQ_TX_PACKETS)) {
		r->ev.has |= EV_PACKETS;
		r->ev.tx_packets = q2->tx_packets - q->tx_packets;
	}
	if (q2 && (q->qs_present & SQ_TX_STOP) && (q2->qs_present & SQ_TX_STOP)) {
		r->ev.has |= EV_STOPS;
		r->ev.tx_stop = q2->tx_stop - q->tx_stop;
		r->ev.tx_wake = q2->tx_wake - q->tx_wake;
	}
	if (qd && qd2 && !strcmp(qd->kind, qd2->kind)) {
		r->ev.has |= EV_QDISC;
		snprintf(r->ev.qd_kind, sizeof(r->ev.qd_kind), "%s", qd->kind);
		r->ev.qd_backlog0 = qd->backlog;
		r->ev.qd_backlog1 = qd2->backlog;
		r->ev.qd_drops = qd2->drops - qd->drops;
		r->ev.qd_bytes = qd2->bytes - qd->bytes;
	}
	if (m < sizeof(msg) && (r->ev.has & EV_PACKETS))
		m += (size_t)snprintf(msg + m, sizeof(msg) - m, "; sent %" PRIu64 " packets",
				      r->ev.tx_packets);
	if (m < sizeof(msg) && (r->ev.has & EV_STOPS))
		m += (size_t)snprintf(msg + m, sizeof(msg) - m, " (tx_stop +%" PRIu64 ", tx_wake +%" PRIu64 ")",
				      r->ev.tx_stop, r->ev.tx_wake);
	if (m < sizeof(msg) && (r->ev.has & EV_QDISC))
		snprintf(msg + m, sizeof(msg) - m, "; qdisc %s: backlog %s -> %s, drops +%" PRIu64
			 ", sent %s", qd->kind, units_fmt_bytes(h1, sizeof(h1), qd->backlog),
			 units_fmt_bytes(h2, sizeof(h2), qd2->backlog), r->ev.qd_drops,
			 units_fmt_bytes(h3, sizeof(h3), r->ev.qd_bytes));
	check_add_reason(r->r, &r->nr, LV_INFO, "seen", "%s", msg);
}

/*
 * Whether @q (or its device, when the queue has no counters) sent
 * anything: during the interval with @q2, else ever; unknown counts as not
 */
static bool queue_sent(const struct snap_queue *q, const struct snap_queue *q2,
		       const struct snap_dev *d, const struct snap_dev *d2)
{
	if (q->qs_present & SQ_TX_BYTES)
		return q2 ? q2->tx_bytes > q->tx_bytes : q->tx_bytes > 0;
	if (d->present & SD_STATS)
		return d2 ? d2->tx_bytes > d->tx_bytes : d->tx_bytes > 0;
	return false;
}

static void check_queue(struct check *k, struct row *r, const struct snap_dev *d,
			const struct snap_queue *q, const struct snap_dev *d2,
			const struct snap_queue *q2, int *dev_zero)
{
	const uint64_t *v = q->bql.val;
	char sec[32];
	bool down = (d->present & SD_OPERSTATE) && !strcmp(d->operstate, "down");

	struct rule_hit hits[RULES_MAX];
	struct utsname u;
	char h1[32], h2[32];
	int nh = rules_settings(&q->bql, (d->present & SD_MTU) ? d->mtu : 0,
				kernel_release(k->c, &u), hits);

	fmt_sec(sec, sizeof(sec), k->interval_ns);
	/* the settings rules, shared with set */
	for (int i = 0; i < nh; i++)
		check_add_reason(r->r, &r->nr, hits[i].level == RULE_FAIL ? LV_FAIL : LV_WARN,
			   hits[i].code, "%s", hits[i].msg);
	if (bql_has(&q->bql, BQL_STALL_CNT) && v[BQL_STALL_CNT]) {
		uint64_t j = bql_has(&q->bql, BQL_STALL_MAX) ? v[BQL_STALL_MAX] : 0;

		check_add_reason(r->r, &r->nr, LV_WARN, "stalls",
			   "%" PRIu64 " stall%s detected, longest %" PRIu64 " ms (stall_max %" PRIu64
			   " jiffies at HZ %u, %s%s)", v[BQL_STALL_CNT],
			   v[BQL_STALL_CNT] == 1 ? "" : "s", dql_jiffies_to_msecs(j, k->hz->hz), j,
			   k->hz->hz, k->hz->src == HZ_SRC_FALLBACK ? "" : "from ",
			   hz_source_name(k->hz->src));
	}
	/* limit 0 while bytes go out: the driver does not feed DQL */
	if (!v[BQL_LIMIT] && !down && (!q2 || !q2->bql.val[BQL_LIMIT])) {
		const char *who = NULL, *src = NULL, *all = "";
		uint64_t sent = 0, a0 = 0, a1 = 0;

		if (q->qs_present & SQ_TX_BYTES) {
			a0 = q->tx_bytes;
			a1 = q2 ? q2->tx_bytes : 0;
			who = "this queue";
			src = "netdev qstats";
		} else if (d->present & SD_STATS) {
			if (*dev_zero < 0)	/* once per device */
				*dev_zero = dev_limits_all_zero(k, d);
			a0 = d->tx_bytes;
			a1 = d2 ? d2->tx_bytes : 0;
			who = "the device";
			src = k->c->root_overridden ? "device statistics" : "rtnetlink stats";
			all = " on every TX queue";
			if (!*dev_zero)
				who = NULL;
		}
		if (who && q2)
			sent = a1 > a0 ? a1 - a0 : 0;
		if (sent)
			check_add_reason(r->r, &r->nr, LV_FAIL, "no-completions",
				   "limit stayed 0%s while %s sent %s in %s (%s): "
				   "the driver does not report TX completions to BQL", all, who,
				   units_fmt_bytes(h1, sizeof(h1), sent), sec, src);
		else if (who && a0)	/* no interval, or nothing sent during it */
			check_add_reason(r->r, &r->nr, LV_WARN, "no-completions",
				   "limit is 0%s although %s sent %s (%s): the driver "
				   "may not report TX completions to BQL (%s)", all, who,
				   units_fmt_bytes(h1, sizeof(h1), a0), src,
				   q2 ? "nothing sent during the interval" : "confirm with --interval 1");
	}
	/*
	 * BQL never used (limit and inflight 0 in every sample) on a device
	 * that is down or sent nothing: nothing says whether it works
	 */
	if (!v[BQL_LIMIT] && !v[BQL_INFLIGHT] &&
	    (!q2 || (!q2->bql.val[BQL_LIMIT] && !q2->bql.val[BQL_INFLIGHT])) &&
	    (down || !queue_sent(q, q2, d, d2))) {
		r->unused = true;
		if (check_row_level(r) == LV_INFO)	/* a finding above is evidence enough */
			check_add_reason(r->r, &r->nr, LV_INFO, "bql-unused",
				   "BQL was never used here (limit and inflight 0) and %s: "
				   "nothing to judge it by", down ? "the device is down" :
				   q2 ? "nothing was sent during the interval" : "nothing was sent");
	}
	/* inflight at the limit: BQL has stopped the queue */
	if (v[BQL_LIMIT] && v[BQL_INFLIGHT] >= v[BQL_LIMIT]) {
		if (q2 && q2->bql.val[BQL_INFLIGHT] == v[BQL_INFLIGHT] &&
		    q2->bql.val[BQL_LIMIT] == v[BQL_LIMIT])
			check_add_reason(r->r, &r->nr, LV_FAIL, "inflight-stuck",
				   "inflight stuck at %s >= limit %s for %s: no TX completions "
				   "arrive (hung queue?)",
				   bql_fmt_human(h1, sizeof(h1), BQL_INFLIGHT, v[BQL_INFLIGHT], 0),
				   bql_fmt_human(h2, sizeof(h2), BQL_LIMIT, v[BQL_LIMIT], 0), sec);
		else if (!q2)
			check_add_reason(r->r, &r->nr, LV_INFO, "inflight-at-limit",
				   "inflight %s >= limit %s: BQL has stopped the queue at this "
				   "instant (normal under load; --interval tells a stuck queue)",
				   bql_fmt_human(h1, sizeof(h1), BQL_INFLIGHT, v[BQL_INFLIGHT], 0),
				   bql_fmt_human(h2, sizeof(h2), BQL_LIMIT, v[BQL_LIMIT], 0));
	}
	check_path(r, d, q, d2, q2, k->interval_ns);
}

static bool item_matches(const struct sel_item *it, const char *name)
{
	return it->glob ? !fnmatch(it->pat, name, 0) : !strcmp(it->pat, name);
}

/* queue @q of @sd in the flat per-queue order of @s */
static size_t seen_index(const struct snapshot *s, const struct snap_dev *sd, unsigned int q)
{
	size_t base = 0;

	for (const struct snap_dev *d = s->dev; d < sd; d++)
		base += d->nq;
	return base + q;
}

/* read one queue's limit and inflight into @sn */
static void sample_one(struct check *k, const struct snap_dev *d, unsigned int q,
		       struct seen *sn)
{
	char path[512];
	uint64_t lim, infl;

	if (sysfs_bql_path(k->c, path, sizeof(path), d->ifname, q, "limit") ||
	    sysfs_read_u64(k->c, path, &lim, d->ifname, NULL) ||
	    sysfs_bql_path(k->c, path, sizeof(path), d->ifname, q, "inflight") ||
	    sysfs_read_u64(k->c, path, &infl, d->ifname, NULL))
		return;
	if (!sn->n) {
		sn->lim_lo = sn->lim_hi = sn->last_lim = lim;
	} else {
		sn->falls += infl < sn->last_infl;
		sn->changes += lim != sn->last_lim;
		sn->last_lim = lim;
		sn->lim_lo = lim < sn->lim_lo ? lim : sn->lim_lo;
		sn->lim_hi = lim > sn->lim_hi ? lim : sn->lim_hi;
	}
	if (infl > sn->infl_max || !sn->n) {
		sn->infl_max = infl;
		sn->infl_max_lim = lim;
	}
	sn->n++;
	sn->busy += infl != 0;
	sn->last_infl = infl;
}

/*
 * --interval: sample every queue's limit and inflight every 10 ms (every
 * 100 ms past 64 queues) until the interval is over.
 */
static int sample_interval(struct check *k, const struct snapshot *s)
{
	size_t nq = 0, i;
	uint64_t period = SAMPLE_NS, end;
	struct timespec ts;

	for (size_t d = 0; d < s->n; d++)
		nq += s->dev[d].nq;
	if (nq > 64)
		period *= 10;
	k->seen = calloc(nq ? nq : 1, sizeof(*k->seen));
	if (!k->seen)
		return -ENOMEM;
	end = sampler_clock_system.mono_ns(NULL) + k->interval_ns;
	for (;;) {
		uint64_t now, left;

		i = 0;
		for (size_t d = 0; d < s->n; d++)
			for (unsigned int q = 0; q < s->dev[d].nq; q++)
				sample_one(k, &s->dev[d], s->dev[d].q[q].bql.index, &k->seen[i++]);
		now = sampler_clock_system.mono_ns(NULL);
		if (now >= end)
			return 0;
		left = end - now < period ? end - now : period;
		ts.tv_sec = (time_t)(left / 1000000000u);
		ts.tv_nsec = (long)(left % 1000000000u);
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
}

/*
 * One row per checked queue, in the order of @devs (ifindex); devices
 * without BQL get a row when named (a failure) or listed by -a.
 */
static void build_rows(struct check *k, const struct cmd_state *st,
		       const struct snapshot *s2, const struct sel *sel,
		       const bool *named_nobql, bool all,
		       const struct sysfs_dev *devs, size_t ndev)
{
	for (size_t d = 0; d < ndev; d++) {
		const char *name = devs[d].name;
		const struct snap_dev *sd = find_dev(&st->snap, name);
		bool named = false, listed = all && !sel->n;
		struct row *r;

		for (size_t i = 0; i < sel->n; i++) {
			named |= named_nobql[i] && !strcmp(sel->items[i].pat, name);
			listed |= all && item_matches(&sel->items[i], name);
		}
		if (sd && k->interval_ns && !find_dev(s2, name)) {
			/* nobody named it (or the second sample would have failed) */
			cmd_warn(k->c, "%s: vanished during the --interval: not checked", name);
		} else if (sd) {
			const struct snap_dev *sd2 = find_dev(s2, name);
			int zero = -1;

			for (unsigned int q = 0; q < sd->nq; q++) {
				r = new_row(k, name, (int)sd->q[q].bql.index);
				if (!r)
					continue;
				check_queue(k, r, sd, &sd->q[q], sd2,
					    sd2 && q < sd2->nq ? &sd2->q[q] : NULL, &zero);
				if (k->seen)
					check_seen(k, r, sd, &sd->q[q], sd2,
						   sd2 && q < sd2->nq ? &sd2->q[q] : NULL,
						   &k->seen[seen_index(&st->snap, sd, q)]);
				if (k->time) {
					char msg[300];

					if (check_time_line(k->time, seen_index(&st->snap, sd, q),
							    k->interval_ns, msg, sizeof(msg)))
						check_add_reason(r->r, &r->nr, LV_INFO, "time", "%s", msg);
				}
			}
		} else if ((named || listed) && !sysfs_dev_has_bql(k->c, name)) {
			char why[300];

			r = new_row(k, name, -1);
			if (!r)
				continue;
			r->nobql = true;
			nobql_reason(k, st->nl, name, why, sizeof(why));
			check_add_reason(r->r, &r->nr, named ? LV_FAIL : LV_INFO, "no-bql",
				   "%s%s", named ? "device does not use BQL: " : "", why);
		}
	}
}

static int check_run(struct bql_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "interval", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	struct check k = { .c = c };
	struct cmd_state st = { 0 };
	struct snapshot s2 = { 0 };
	struct sysfs_dev *devs = NULL;
	struct sel sel = { 0 }, keep = { 0 };
	bool all = false, *named_nobql = NULL;
	size_t ndev = 0, cnt[VD_NR] = { 0 };
	struct bql_err e;
	int opt, ret = BQL_EXIT_FAIL;

	while ((opt = cmd_getopt(c, argc, argv, ":ai:", opts)) != -1) {
		switch (opt) {
		case 'a':
			all = true;
			break;
		case 'i':
			ret = units_parse_sec_ns("--interval", optarg, &k.interval_ns, &e);
			/* above a day is above the hour too: one message names the range */
			if (ret && ret != -ERANGE)
				return cmd_usage(c, "%s", e.msg);
			if (ret || !k.interval_ns || k.interval_ns > 3600ull * 1000000000ull)
				return cmd_usage(c, "--interval: '%s' out of range (0 < SEC <= 3600)",
						 optarg);
			break;
		default:
			return cmd_bad_option(c, opt, argv);
		}
	}
	k.hz = hz_get();
	if (sel_parse(&sel, argc - optind, argv + optind, &e))
		return cmd_usage(c, "%s", e.msg);
	if (sysfs_list_devs(c, &devs, &ndev, &e)) {
		cmd_error(c, &e);
		goto out;
	}
	/*
	 * A device named without BQL is a verdict, not an error; with -a a glob
	 * matching only such devices lists them. Resolve the rest as usual.
	 */
	named_nobql = calloc(sel.n + 1, sizeof(*named_nobql));
	keep.items = calloc(sel.n + 1, sizeof(*keep.items));
	if (!named_nobql || !keep.items) {
		ret = cmd_fail(c, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < sel.n; i++) {
		const struct sel_item *it = &sel.items[i];
		bool any = false, bql = false;

		if (!it->glob && sysfs_dev_check(c, it->pat, &e)) {
			cmd_error(c, &e);
			ret = BQL_EXIT_FAIL;
			goto out;
		}
		for (size_t d = 0; d < ndev; d++)
			if (item_matches(it, devs[d].name)) {
				any = true;
				bql |= sysfs_dev_has_bql(c, devs[d].name);
			}
		named_nobql[i] = !it->glob && !bql;
		if (!named_nobql[i] && (bql || !all || !any))
			keep.items[keep.n++] = *it;
	}
	if (keep.n || !sel.n) {
		if (sel_resolve(c, &keep, &st.targets, &e)) {
			cmd_error(c, &e);
			goto out;
		}
		cmd_open_netlink(c, &st);
		if (snapshot_take(c, st.nl, &st.targets, &st.snap, &e)) {
			cmd_error(c, &e);
			goto out;
		}
	}
	if (k.interval_ns && st.snap.n) {
		char why[300] = "";

		/* time in the transmit path over the interval, where BPF is allowed */
		k.time = check_time_start(c, &st.snap, why, sizeof(why));
		if (!k.time && c->verbose)
			cmd_note(c, "--interval: no time in the transmit path: %s", why);
		if (sample_interval(&k, &st.snap)) {
			ret = cmd_fail(c, "out of memory");
			goto out;
		}
		if (k.time && !check_time_stop(k.time, why, sizeof(why))) {
			cmd_warn(c, "--interval: the latency observer's reading failed: %s", why);
			check_time_free(k.time);
			k.time = NULL;
		}
		if ((st.nl && bnl_refresh(st.nl, &e)) ||
		    snapshot_take(c, st.nl, &st.targets, &s2, &e)) {
			/* a device or queue that vanished (or changed) meanwhile */
			ret = cmd_fail(c, "second sample, after the --interval: %s", e.msg);
			goto out;
		}
	}
	build_rows(&k, &st, &s2, &sel, named_nobql, all, devs, ndev);
	if (k.oom) {
		ret = cmd_fail(c, "out of memory");
		goto out;
	}
	check_add_notes(&k, &st.snap, &keep);
	for (size_t i = 0; i < k.nrows; i++)
		cnt[check_row_vd(&k.rows[i])]++;
	if (!k.nrows && !c->json)
		cmd_warn(c, "no network device with byte queue limits found "
			 "(-a lists every device and why)");
	if (c->json)
		check_print_json(&k, cnt);
	else
		check_print_text(&k, cnt);
	ret = cmd_output_done(c, out_end(c));
	if (!ret)
		ret = cnt[VD_FAIL] ? BQL_EXIT_FAIL : BQL_EXIT_OK;
out:
	snapshot_free(&s2);
	cmd_state_free(&st);
	free(keep.items);
	free(named_nobql);
	sel_free(&sel);
	free(devs);
	free(k.rows);
	free(k.seen);
	check_time_free(k.time);
	return ret;
}

const struct cmd_entry cmd_check_entry = {
	.name = "check",
	.synopsis = "check [-a] [-i SEC] [SEL...]",
	.summary = "Diagnose BQL per TX queue: stalls, contradictions, silent drivers",
	.help = "  -a, --all            also list devices without BQL and the kernel's reason\n"
		"  -i, --interval SEC   sample twice, SEC apart, to tell stuck queues and\n"
		"                       drivers that never report completions; as root, with\n"
		"                       the latency observer: the time packets waited (\"time\")\n"
		"\nOne verdict per queue: ok, warn or fail, with the reasons. Exit status 1\n"
		"when any queue fails; warnings alone exit 0.\n",
	.flags = CMD_NEEDS_NL,
	.run = check_run,
};
