// SPDX-License-Identifier: GPL-2.0-only
/* top's model: device and queue rows, sort, filter, expand, flags. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/model/topmodel.h"

/* devices with more queues than this in total start collapsed */
#define EXPAND_MAX_QUEUES	64

const struct tm_col_desc tm_cols[TM_COL_NR] = {
	[TM_COL_NAME]	    = { "DEVICE",	"name",		false },
	[TM_COL_LIMIT]	    = { "LIMIT",	"limit",	true },
	[TM_COL_INFLIGHT]   = { "INFLIGHT",	"inflight",	true },
	[TM_COL_FILL]	    = { "FILL",		"fill",		true },
	[TM_COL_LIMIT_MIN]  = { "LIMIT_MIN",	"limit_min",	true, "min" },
	[TM_COL_LIMIT_MAX]  = { "LIMIT_MAX",	"limit_max",	true, "max" },
	[TM_COL_TX_BYTES]   = { "TX RATE",	"tx_rate",	true, "tx_bytes" },
	[TM_COL_TX_PACKETS] = { "PKT/S",	"pkt_rate",	true, "tx_packets" },
	[TM_COL_TX_STOP]    = { "STOP/S",	"stop_rate",	true, "tx_stop" },
	[TM_COL_TX_WAKE]    = { "WAKE/S",	"wake_rate",	true, "tx_wake" },
	[TM_COL_STALL_CNT]  = { "STALLS",	"stall_cnt",	true },
	[TM_COL_STALL_MAX]  = { "STALL MAX",	"stall_max",	true },
	[TM_COL_QD_BACKLOG] = { "BACKLOG",	"qdisc_backlog", true },
	[TM_COL_QD_DROPS]   = { "QDROP/S",	"qdrop_rate",	true, "qdisc_drops" },
	[TM_COL_RING]	    = { "RING",		"ring",		true },
	[TM_COL_COAL_USECS] = { "TX-USECS",	"tx_usecs",	true },
	[TM_COL_RING_P99]   = { "RING P99",	"ring_p99",	true },
	[TM_COL_QDISC_P99]  = { "QDISC P99",	"qdisc_p99",	true },
	[TM_COL_STOP_BQL]   = { "BQL STOP/S",	"bql_stop_rate", true },
	[TM_COL_STOP_RING]  = { "RING STOP/S",	"ring_stop_rate", true },
};

void topmodel_init(struct topmodel *m)
{
	memset(m, 0, sizeof(*m));
	m->sort = TM_COL_NAME;
}

void topmodel_free(struct topmodel *m)
{
	free(m->rows);
	free(m->exp);
	memset(m, 0, sizeof(*m));
}

int topmodel_col_find(const char *name)
{
	/* the headers of top -b's text, where they differ from the above */
	static const struct {
		const char *name;
		enum tm_col col;
	} batch[] = {
		{ "device", TM_COL_NAME }, { "queue", TM_COL_NAME },
		{ "stalls+", TM_COL_STALL_CNT }, { "backlog", TM_COL_QD_BACKLOG },
		{ "qdrops/s", TM_COL_QD_DROPS },
	};

	for (int c = 0; c < TM_COL_NR; c++)
		if (!strcasecmp(name, tm_cols[c].name) || !strcasecmp(name, tm_cols[c].title) ||
		    (tm_cols[c].alias && !strcasecmp(name, tm_cols[c].alias)))
			return c;
	for (size_t i = 0; i < sizeof(batch) / sizeof(batch[0]); i++)
		if (!strcasecmp(name, batch[i].name))
			return (int)batch[i].col;
	return -1;
}

void topmodel_sort(struct topmodel *m, enum tm_col col)
{
	if (col == m->sort)
		m->reverse = !m->reverse;
	else
		m->reverse = false;
	m->sort = col;
}

void topmodel_set_filter(struct topmodel *m, const char *pattern)
{
	snprintf(m->filter, sizeof(m->filter), "%s", pattern ? pattern : "");
}

static struct tm_expand *exp_find(const struct topmodel *m, const char *ifname)
{
	for (size_t i = 0; i < m->nexp; i++)
		if (!strcmp(m->exp[i].ifname, ifname))
			return &m->exp[i];
	return NULL;
}

bool topmodel_is_expanded(const struct topmodel *m, const char *ifname)
{
	const struct tm_expand *x = exp_find(m, ifname);

	return x ? x->expanded : m->expand_default;
}

int topmodel_toggle(struct topmodel *m, const char *ifname)
{
	struct tm_expand *x = exp_find(m, ifname);

	if (!x) {
		x = realloc(m->exp, (m->nexp + 1) * sizeof(*x));
		if (!x)
			return -ENOMEM;
		m->exp = x;
		x = &m->exp[m->nexp++];
		snprintf(x->ifname, sizeof(x->ifname), "%s", ifname);
		x->expanded = m->expand_default;
	}
	x->expanded = !x->expanded;
	return 0;
}

void topmodel_expand_all(struct topmodel *m, bool expanded)
{
	free(m->exp);
	m->exp = NULL;
	m->nexp = 0;
	m->expand_default = expanded;
	m->expand_default_set = true;
}

bool topmodel_any_collapsed(const struct topmodel *m)
{
	for (size_t i = 0; i < m->nrows; i++)
		if (!m->rows[i].q && !m->rows[i].expanded && m->rows[i].nq)
			return true;
	return false;
}

/* ------------------------------------------------------------- flags */

unsigned int topmodel_queue_flags(const struct sampler_queue *q,
				  unsigned int window)
{
	const struct bql_queue *b = &q->bql;
	unsigned int f = 0, n;

	if (q->flags & SAMPLER_NEW)
		f |= TM_F_NEW;
	if (q->flags & SAMPLER_VANISHED)
		f |= TM_F_GONE;
	if (window < 3)
		window = 3;
	if (window > SAMPLER_HIST)
		window = SAMPLER_HIST;
	/* a stall stays flagged for the window, long enough to be seen */
	if ((q->has_stall_delta && q->stall_cnt_delta) || q->since_stall < window)
		f |= TM_F_STALL;

	/* pinned: inflight unchanged, non-zero and >= limit for the window */
	if (q->hist_len >= window) {
		uint64_t in0 = sampler_hist(q->hist_inflight, q, 0);
		bool pinned = in0 > 0;

		for (unsigned int i = 0; i < window && pinned; i++)
			pinned = sampler_hist(q->hist_inflight, q, i) == in0 &&
				 in0 >= sampler_hist(q->hist_limit, q, i);
		if (pinned)
			f |= TM_F_PINNED;
	}

	/* at min: limit == limit_min < limit_max for the window, with traffic */
	if (q->hist_len >= window && bql_has(b, BQL_LIMIT_MIN) &&
	    bql_has(b, BQL_LIMIT_MAX) && b->val[BQL_LIMIT_MIN] < b->val[BQL_LIMIT_MAX]) {
		bool at_min = true, busy = false;

		for (unsigned int i = 0; i < window && at_min; i++) {
			at_min = sampler_hist(q->hist_limit, q, i) == b->val[BQL_LIMIT_MIN];
			busy |= sampler_hist(q->hist_inflight, q, i) > 0;
		}
		if (at_min && busy)
			f |= TM_F_AT_MIN;
	}

	/* oscillating: the limit turned at least 4 times, by over a quarter */
	n = q->hist_len < 16 ? q->hist_len : 16;
	if (n >= 5) {
		uint64_t lo = UINT64_MAX, hi = 0;
		int dir = 0, turns = 0;

		for (unsigned int i = n - 1; i > 0; i--) {
			uint64_t a = sampler_hist(q->hist_limit, q, i);
			uint64_t c = sampler_hist(q->hist_limit, q, i - 1);
			int d = c > a ? 1 : c < a ? -1 : 0;

			lo = a < lo ? a : lo;
			hi = a > hi ? a : hi;
			if (!d)
				continue;
			if (dir && d != dir)
				turns++;
			dir = d;
		}
		lo = sampler_hist(q->hist_limit, q, 0) < lo ? sampler_hist(q->hist_limit, q, 0) : lo;
		hi = sampler_hist(q->hist_limit, q, 0) > hi ? sampler_hist(q->hist_limit, q, 0) : hi;
		if (turns >= 4 && hi - lo > hi / 4)
			f |= TM_F_OSC;
	}
	return f;
}

/* -------------------------------------------------------------- rows */

static void set(struct tm_row *r, enum tm_col c, double v)
{
	r->v[c] = v;
	r->valid |= 1u << c;
}

static void queue_row(struct tm_row *r, const struct sampler_dev *d,
		      const struct sampler_queue *q, unsigned int window)
{
	const struct bql_queue *b = &q->bql;
	static const struct { enum bql_attr a; enum tm_col c; } map[] = {
		{ BQL_LIMIT, TM_COL_LIMIT }, { BQL_INFLIGHT, TM_COL_INFLIGHT },
		{ BQL_LIMIT_MIN, TM_COL_LIMIT_MIN }, { BQL_LIMIT_MAX, TM_COL_LIMIT_MAX },
		{ BQL_STALL_CNT, TM_COL_STALL_CNT }, { BQL_STALL_MAX, TM_COL_STALL_MAX },
	};
	static const enum tm_col rate_col[SQS_NR] = {
		[SQS_TX_BYTES] = TM_COL_TX_BYTES, [SQS_TX_PACKETS] = TM_COL_TX_PACKETS,
		[SQS_TX_STOP] = TM_COL_TX_STOP, [SQS_TX_WAKE] = TM_COL_TX_WAKE,
	};

	memset(r, 0, sizeof(*r));
	r->dev = d;
	r->q = q;
	set(r, TM_COL_NAME, q->index);
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (bql_has(b, map[i].a))
			set(r, map[i].c, (double)b->val[map[i].a]);
	if (bql_has(b, BQL_LIMIT) && bql_has(b, BQL_INFLIGHT) && b->val[BQL_LIMIT])
		set(r, TM_COL_FILL, (double)b->val[BQL_INFLIGHT] / (double)b->val[BQL_LIMIT]);
	for (int k = 0; k < SQS_NR; k++)
		if (q->rate_valid & (1u << k))
			set(r, rate_col[k], q->rate[k]);
	if (q->has_qd)
		set(r, TM_COL_QD_BACKLOG, (double)q->qd.backlog);
	if (q->qd_drops_rate_valid)
		set(r, TM_COL_QD_DROPS, q->qd_drops_rate);
	r->flags = topmodel_queue_flags(q, window);
}

/* Device aggregate from its queue rows @qr[0..n). */
static void dev_row(struct tm_row *r, const struct sampler_dev *d,
		    const struct tm_row *qr, unsigned int n)
{
	static const enum tm_col sums[] = {
		TM_COL_LIMIT, TM_COL_INFLIGHT, TM_COL_TX_BYTES, TM_COL_TX_PACKETS,
		TM_COL_TX_STOP, TM_COL_TX_WAKE, TM_COL_STALL_CNT, TM_COL_QD_BACKLOG,
		TM_COL_QD_DROPS,
	};

	memset(r, 0, sizeof(*r));
	r->dev = d;
	r->nq = n;
	set(r, TM_COL_NAME, d->ifindex);
	for (size_t i = 0; i < sizeof(sums) / sizeof(sums[0]); i++) {
		enum tm_col c = sums[i];
		double sum = 0;
		bool any = false;

		for (unsigned int k = 0; k < n; k++) {
			if (!(qr[k].valid & (1u << c)))
				continue;
			sum += qr[k].v[c];
			any = true;
		}
		if (any)
			set(r, c, sum);
	}
	/* limit_min/max: shown when every queue agrees; stall_max: the max */
	for (int c = TM_COL_LIMIT_MIN; c <= TM_COL_LIMIT_MAX; c++) {
		bool same = n > 0;

		for (unsigned int k = 0; k < n && same; k++)
			same = (qr[k].valid & (1u << c)) && qr[k].v[c] == qr[0].v[c];
		if (same)
			set(r, c, qr[0].v[c]);
	}
	for (unsigned int k = 0; k < n; k++)
		if ((qr[k].valid & (1u << TM_COL_STALL_MAX)) &&
		    (!(r->valid & (1u << TM_COL_STALL_MAX)) || qr[k].v[TM_COL_STALL_MAX] > r->v[TM_COL_STALL_MAX]))
			set(r, TM_COL_STALL_MAX, qr[k].v[TM_COL_STALL_MAX]);
	if ((r->valid & (1u << TM_COL_LIMIT)) && (r->valid & (1u << TM_COL_INFLIGHT)) &&
	    r->v[TM_COL_LIMIT] > 0)
		set(r, TM_COL_FILL, r->v[TM_COL_INFLIGHT] / r->v[TM_COL_LIMIT]);
	if (d->ring.present & BNL_RING_TX)
		set(r, TM_COL_RING, d->ring.tx);
	if (d->coal.present & BNL_COAL_TX_USECS)
		set(r, TM_COL_COAL_USECS, d->coal.tx_usecs);
	/* one root qdisc over every queue: the device row shows its backlog */
	if (d->qd_shared)
		set(r, TM_COL_QD_BACKLOG, (double)d->qd.backlog);
	/* the device's own counters (stats64) beat a sum of per-queue ones */
	if (d->has_rate) {
		set(r, TM_COL_TX_BYTES, d->tx_bytes_rate);
		set(r, TM_COL_TX_PACKETS, d->tx_packets_rate);
	}
	for (unsigned int k = 0; k < n; k++)
		r->flags |= qr[k].flags & ~(TM_F_NEW | TM_F_GONE);
	if (d->flags & SAMPLER_NEW)
		r->flags |= TM_F_NEW;
	if (d->flags & SAMPLER_VANISHED)
		r->flags |= TM_F_GONE;
}

/*
 * Why a device is hidden by default: 1 down (operstate), 2 its BQL was
 * never used (every limit and inflight 0, no traffic), 0 shown. Devices
 * just appeared or vanished, and flagged ones, are always shown.
 */
static int hidden_why(const struct tm_row *r)
{
	if (r->flags & (TM_F_NEW | TM_F_GONE | TM_F_STALL | TM_F_PINNED))
		return 0;
	if (sampler_dev_down(r->dev))
		return 1;
	if ((r->valid & (1u << TM_COL_LIMIT)) && r->v[TM_COL_LIMIT] > 0)
		return 0;
	if ((r->valid & (1u << TM_COL_INFLIGHT)) && r->v[TM_COL_INFLIGHT] > 0)
		return 0;
	if ((r->valid & (1u << TM_COL_TX_BYTES)) && r->v[TM_COL_TX_BYTES] > 0)
		return 0;
	return 2;
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static bool match(const char *pat, const char *s)
{
	return has_glob(pat) ? fnmatch(pat, s, 0) == 0 : strstr(s, pat) != NULL;
}

/* Sorting compares one column; rows without a value go last. */
static const struct topmodel *sort_model;

static int row_cmp(const void *a, const void *b)
{
	const struct tm_row *x = a, *y = b;
	enum tm_col c = sort_model->sort;
	bool desc = tm_cols[c].descending != sort_model->reverse;
	bool hx = x->valid & (1u << c), hy = y->valid & (1u << c);
	int r = 0;

	if (c == TM_COL_NAME) {
		r = x->q ? (x->q->index > y->q->index) - (x->q->index < y->q->index)
			 : strverscmp(x->dev->ifname, y->dev->ifname);
		return sort_model->reverse ? -r : r;
	}
	if (hx != hy)
		return hx ? -1 : 1;
	if (hx && x->v[c] != y->v[c])
		r = x->v[c] < y->v[c] ? -1 : 1;
	if (r)
		return desc ? -r : r;
	/* ties: natural order */
	if (x->q)
		return (x->q->index > y->q->index) - (x->q->index < y->q->index);
	return strverscmp(x->dev->ifname, y->dev->ifname);
}

static int grow(struct topmodel *m, size_t need)
{
	struct tm_row *n;

	if (need <= m->caprows)
		return 0;
	n = realloc(m->rows, need * sizeof(*n));
	if (!n)
		return -ENOMEM;
	m->rows = n;
	m->caprows = need;
	return 0;
}

static int build_rows(struct topmodel *m, const struct sampler *s, bool show_all)
{
	unsigned int window = 3;
	size_t nq = sampler_nqueues(s), nd = 0;
	struct tm_row *devs;
	char qname[BQL_IFNAMSIZ + 16];
	bool qfilter = strchr(m->filter, ':') != NULL;

	if (s->dt_ns)
		window = (unsigned int)(1000000000ull / s->dt_ns) + 1;
	if (!m->expand_default_set) {
		m->expand_default = nq <= EXPAND_MAX_QUEUES || s->ndev <= 1;
		m->expand_default_set = true;
	}
	/* worst case: every device and every queue, plus device rows kept apart */
	if (grow(m, nq + 2 * s->ndev + 1))
		return -ENOMEM;
	devs = m->rows + nq + s->ndev;	/* scratch at the end */
	m->nrows = 0;
	m->ndev = m->nshown = m->nhidden = m->ndown = m->nunused = m->nfiltered = 0;
	m->nqueues = 0;
	memset(m->nflag, 0, sizeof(m->nflag));

	/* 1. per device: queue rows (filtered) into rows[], the device row into devs[] */
	struct { size_t first, n; } *span = calloc(s->ndev + 1, sizeof(*span));
	size_t qbase = 0;

	if (!span)
		return -ENOMEM;
	for (size_t i = 0; i < s->ndev; i++) {
		const struct sampler_dev *d = &s->dev[i];
		struct tm_row *qr = m->rows + qbase;
		unsigned int n = 0, shown = 0;
		int why;
		bool dev_match = !m->filter[0] || (!qfilter && match(m->filter, d->ifname));

		for (unsigned int k = 0; k < d->nq; k++) {
			queue_row(&qr[n], d, &d->q[k], window);
			if (m->lat)
				qr[n].valid |= m->lat(m->lat_arg, d->ifname, (int)d->q[k].index, qr[n].v);
			for (int b = 0; b < 6; b++)
				if (!(d->flags & SAMPLER_VANISHED) && (qr[n].flags & (1u << b)))
					m->nflag[b]++;
			n++;
		}
		if (!(d->flags & SAMPLER_VANISHED)) {
			m->ndev++;
			m->nqueues += d->nq;
		}
		/* hidden or not, by the whole device */
		dev_row(&devs[nd], d, qr, n);
		if (m->lat)
			devs[nd].valid |= m->lat(m->lat_arg, d->ifname, -1, devs[nd].v);
		why = show_all ? 0 : hidden_why(&devs[nd]);
		/*
		 * queue filter: keep only matching queues; the device row sums
		 * the queues shown, as it does under a selector (one rule)
		 */
		if (qfilter) {
			for (unsigned int k = 0; k < n; k++) {
				snprintf(qname, sizeof(qname), "%s:tx-%u", d->ifname, qr[k].q->index);
				if (match(m->filter, qname))
					qr[shown++] = qr[k];
			}
			dev_match = shown > 0;
			n = shown;
			dev_row(&devs[nd], d, qr, n);
			if (m->lat)
				devs[nd].valid |= m->lat(m->lat_arg, d->ifname, -1, devs[nd].v);
		}
		if (!dev_match) {
			m->nfiltered++;
			continue;
		}
		if (why) {
			m->nhidden++;
			if (why == 1)
				m->ndown++;
			else
				m->nunused++;
			continue;
		}
		devs[nd].expanded = topmodel_is_expanded(m, d->ifname);
		span[nd].first = qbase;
		span[nd].n = n;
		qbase += n;
		nd++;
	}
	m->nshown = nd;

	/* 2. sort the devices (few: insertion sort), then lay out each device
	 * row followed by its sorted queues when expanded */
	size_t *order = malloc((nd + 1) * sizeof(*order));
	struct tm_row *out = malloc((qbase + nd + 1) * sizeof(*out));
	size_t n = 0;

	if (!order || !out) {
		free(order);
		free(out);
		free(span);
		return -ENOMEM;
	}
	sort_model = m;
	for (size_t i = 0; i < nd; i++) {
		size_t v = i, j = i;

		devs[i].nq = (unsigned int)span[i].n;
		while (j > 0 && row_cmp(&devs[order[j - 1]], &devs[v]) > 0) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = v;
	}
	for (size_t i = 0; i < nd; i++) {
		size_t di = order[i];

		out[n++] = devs[di];
		if (!devs[di].expanded)
			continue;
		memcpy(&out[n], m->rows + span[di].first, span[di].n * sizeof(*out));
		qsort(&out[n], span[di].n, sizeof(*out), row_cmp);
		n += span[di].n;
	}
	memcpy(m->rows, out, n * sizeof(*out));
	m->nrows = n;
	free(out);
	free(order);
	free(span);
	return 0;
}

/*
 * When the default would hide every device (all down, or none has used
 * BQL yet: a fresh namespace), an empty screen helps nobody: show them
 * all, and say so (@all_forced).
 */
int topmodel_build(struct topmodel *m, const struct sampler *s)
{
	int ret = build_rows(m, s, m->show_all);

	m->all_forced = false;
	if (!ret && !m->show_all && !m->nshown && m->nhidden) {
		m->all_forced = true;
		ret = build_rows(m, s, true);
	}
	return ret;
}
