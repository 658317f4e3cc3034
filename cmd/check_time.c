// SPDX-License-Identifier: GPL-2.0-only
/*
 * check --interval: time in the transmit path over the interval, from the
 * latency observer, as evidence lines (check_time.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/check_time.h"
#include "cmd/latency.h"
#include "dql/lathist.h"
#include "lib/kernel/latbpf.h"

struct check_time {
	struct latbpf *l;
	struct latbpf_target t[LAT_MAX_SLOTS];
	unsigned int n;
	struct latbpf_snap *s;
	bool read;
};

struct check_time *check_time_start(struct bql_ctx *c, const struct snapshot *s,
				    char *why, size_t n)
{
	struct latbpf_opts o = { 0 };
	struct check_time *t;
	struct bql_err e;
	size_t nq = 0;

	for (size_t d = 0; d < s->n; d++)
		nq += s->dev[d].nq;
	if (c->root_overridden) {
		snprintf(why, n, "a sysfs tree has no kernel to observe");
		return NULL;
	}
	if (!latbpf_available()) {
		snprintf(why, n, "this bqltool was built without BPF support");
		return NULL;
	}
	if (geteuid() != 0) {
		snprintf(why, n, "observing the kernel needs root");
		return NULL;
	}
	if (!nq || nq > LAT_MAX_SLOTS) {
		snprintf(why, n, "%zu queues: the observer holds 1 to %d", nq, LAT_MAX_SLOTS);
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (t)
		t->s = calloc(1, sizeof(*t->s));
	if (!t || !t->s) {
		free(t);
		snprintf(why, n, "out of memory");
		return NULL;
	}
	for (size_t d = 0; d < s->n; d++)
		for (unsigned int q = 0; q < s->dev[d].nq; q++) {
			struct latbpf_target *tg = &t->t[t->n++];

			snprintf(tg->ifname, sizeof(tg->ifname), "%s", s->dev[d].ifname);
			tg->ifindex = s->dev[d].ifindex;
			tg->queue = s->dev[d].q[q].bql.index;
		}
	o.t = t->t;
	o.n = t->n;
	if (latbpf_open(&t->l, &o, &e)) {
		snprintf(why, n, "%s", e.msg);
		check_time_free(t);
		return NULL;
	}
	return t;
}

bool check_time_stop(struct check_time *t, char *why, size_t n)
{
	struct bql_err e;

	if (latbpf_read(t->l, t->s, &e)) {
		snprintf(why, n, "%s", e.msg);
		latbpf_detach(t->l);
		return false;
	}
	latbpf_detach(t->l);
	t->read = true;
	return true;
}

bool check_time_line(const struct check_time *t, size_t idx, uint64_t dur_ns,
		     char *buf, size_t n)
{
	const struct latbpf_queue *q;
	struct lat_summary ring, qw, irq;
	struct lat_hist *h;
	uint64_t xm, via, byp, st_bql, st_ring, st_both, stops;
	char a[24], b[24], d[24];
	size_t m = 0;

	if (!t || !t->read || idx >= t->n)
		return false;
	q = &t->s->q[idx];
	xm = q->c.v[LAT_C_XMIT];
	if (!xm && !q->c.v[LAT_C_ENQ])
		return false;
	via = q->c.v[LAT_C_DEQ] > q->c.v[LAT_C_XMIT_BUSY] ?
	      q->c.v[LAT_C_DEQ] - q->c.v[LAT_C_XMIT_BUSY] : 0;
	byp = xm > via ? xm - via : 0;
	h = malloc(sizeof(*h));
	if (!h)
		return false;
	memcpy(h, &q->h[LAT_H_QDISC], sizeof(*h));
	lathist_add_zeros(h, byp);
	lathist_summary(h, &qw);
	free(h);
	lathist_summary(&q->h[LAT_H_RING], &ring);
	lathist_summary(&q->h[LAT_H_IRQ], &irq);
	if (ring.count)
		m += (size_t)snprintf(buf + m, n - m, "p99 ring time %s (p50 %s, %" PRIu64
				      " packets)", latency_fmt_ns(a, sizeof(a), ring.p99),
				      latency_fmt_ns(b, sizeof(b), ring.p50), ring.count);
	else
		m += (size_t)snprintf(buf + m, n - m, "no ring time (DQL counted no bytes)");
	if (m < n && qw.count)
		m += (size_t)snprintf(buf + m, n - m, "; p99 qdisc wait %s (%.0f%% bypass)",
				      latency_fmt_ns(d, sizeof(d), qw.p99),
				      xm ? 100.0 * (double)byp / (double)xm : 0.0);
	st_bql = q->c.v[LAT_C_STOP_BQL];
	st_ring = q->c.v[LAT_C_STOP_RING];
	st_both = q->c.v[LAT_C_STOP_BOTH];
	stops = st_bql + st_ring + st_both;
	if (m < n && stops)
		m += (size_t)snprintf(buf + m, n - m, "; %" PRIu64 " stops (%.2f/s): %.0f%% were "
				      "the ring, not BQL", stops, (double)stops * 1e9 / (double)dur_ns,
				      100.0 * (double)(st_ring + st_both) / (double)stops);
	else if (m < n)
		m += (size_t)snprintf(buf + m, n - m, "; no stop");
	if (m < n && irq.count)
		snprintf(buf + m, n - m, "; interrupt delay p99 %s",
			 latency_fmt_ns(a, sizeof(a), irq.p99));
	return true;
}

void check_time_free(struct check_time *t)
{
	if (!t)
		return;
	latbpf_close(t->l);
	free(t->s);
	free(t);
}
