// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool latency, the printers: one reading of every queue as text (a
 * block per queue, per device, per CPU; log2 histograms with --hist, as
 * bcc's biolatency draws them) or one JSON document. Time in ns in JSON,
 * as {"p50","p90","p99","max","count","mean"} under one key per quantity.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/latency.h"
#include "lib/io/out.h"

char *latency_fmt_ns(char *buf, size_t n, uint64_t ns)
{
	double v = (double)ns;

	if (ns < 1000)
		snprintf(buf, n, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, n, "%.*f us", v < 1e4 ? 2 : v < 1e5 ? 1 : 0, v / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, n, "%.*f ms", v < 1e7 ? 2 : v < 1e8 ? 1 : 0, v / 1e6);
	else
		snprintf(buf, n, "%.2f s", v / 1e9);
	return buf;
}

void latency_delta(struct latbpf_snap *d, const struct latbpf_snap *now,
		   const struct latbpf_snap *before)
{
	d->n = now->n;
	d->ncpu = now->ncpu;
	d->t_ns = now->t_ns;
	for (unsigned int i = 0; i < now->n; i++) {
		const struct latbpf_queue *a = &now->q[i], *b = &before->q[i];
		struct latbpf_queue *q = &d->q[i];

		for (int k = 0; k < LAT_H_NR; k++)
			lathist_delta(&q->h[k], &a->h[k], &b->h[k]);
		for (int k = 0; k < LAT_C_NR; k++)
			q->c.v[k] = a->c.v[k] >= b->c.v[k] ? a->c.v[k] - b->c.v[k] : 0;
		for (int r = 0; r < LAT_NREASONS; r++)
			q->drops[r] = a->drops[r] >= b->drops[r] ? a->drops[r] - b->drops[r] : 0;
	}
	for (unsigned int c = 0; c < now->ncpu; c++)
		lathist_delta(&d->cpu_irq[c], &now->cpu_irq[c], &before->cpu_irq[c]);
}

/* the quantities of one queue (or a device's queues summed) */
struct qview {
	struct lat_hist qdisc, ring, stop[3], cpp, irq;
	uint64_t c[LAT_C_NR];
	uint64_t bypass;
	uint64_t drops[LAT_NREASONS];
};

/*
 * Packets that bypassed the qdisc: the driver's successful xmits less the
 * packets the qdisc handed out (less those requeued after NETDEV_TX_BUSY,
 * dequeued again later): no event marks a bypass itself.
 */
static uint64_t bypassed(const uint64_t *c)
{
	uint64_t via = c[LAT_C_DEQ] > c[LAT_C_XMIT_BUSY] ? c[LAT_C_DEQ] - c[LAT_C_XMIT_BUSY] : 0;

	return c[LAT_C_XMIT] > via ? c[LAT_C_XMIT] - via : 0;
}

static void qview_add(struct qview *v, const struct latbpf_queue *q)
{
	struct lat_hist tmp;

	memcpy(&tmp, &q->h[LAT_H_QDISC], sizeof(tmp));
	lathist_add_zeros(&tmp, bypassed(q->c.v));
	lathist_add(&v->qdisc, &tmp);
	lathist_add(&v->ring, &q->h[LAT_H_RING]);
	lathist_add(&v->stop[0], &q->h[LAT_H_STOP_BQL]);
	lathist_add(&v->stop[1], &q->h[LAT_H_STOP_RING]);
	lathist_add(&v->stop[2], &q->h[LAT_H_STOP_BOTH]);
	lathist_add(&v->cpp, &q->h[LAT_H_CPP]);
	lathist_add(&v->irq, &q->h[LAT_H_IRQ]);
	for (int k = 0; k < LAT_C_NR; k++)
		v->c[k] += q->c.v[k];
	v->bypass += bypassed(q->c.v);
	for (int r = 0; r < LAT_NREASONS; r++)
		v->drops[r] += q->drops[r];
}

/* ------------------------------------------------------------ JSON */

void latency_json_dist(struct bql_ctx *c, const char *key, const struct lat_hist *h)
{
	struct lat_summary s;

	lathist_summary(h, &s);
	out_open_obj(c, key);
	out_u64(c, OUT_JSON, "p50", NULL, s.p50);
	out_u64(c, OUT_JSON, "p90", NULL, s.p90);
	out_u64(c, OUT_JSON, "p99", NULL, s.p99);
	out_u64(c, OUT_JSON, "max", NULL, s.max);
	out_u64(c, OUT_JSON, "count", NULL, s.count);
	out_dbl_fixed(c, "mean", s.mean, 1);
	out_close_obj(c);
}

static const char *const stop_keys[3] = { "bql", "ring", "both" };
static const int stop_cnt[3] = { LAT_C_STOP_BQL, LAT_C_STOP_RING, LAT_C_STOP_BOTH };

static void json_view(struct bql_ctx *c, const struct qview *v, const struct lat_report *r)
{
	uint64_t xm = v->c[LAT_C_XMIT];

	latency_json_dist(c, "qdisc_wait", &v->qdisc);
	out_u64(c, OUT_JSON, "enqueued", NULL, v->c[LAT_C_ENQ]);
	out_u64(c, OUT_JSON, "dequeued", NULL, v->c[LAT_C_DEQ]);
	out_u64(c, OUT_JSON, "untimed", NULL, v->c[LAT_C_DEQ_UNTIMED]);
	out_u64(c, OUT_JSON, "bypass", NULL, v->bypass);
	if (xm)
		out_dbl_fixed(c, "bypass_share", (double)v->bypass / (double)xm, 4);
	out_u64(c, OUT_JSON, "xmit", NULL, xm);
	out_u64(c, OUT_JSON, "xmit_busy", NULL, v->c[LAT_C_XMIT_BUSY]);
	latency_json_dist(c, "ring_time", &v->ring);
	out_u64(c, OUT_JSON, "sent", NULL, v->c[LAT_C_SENT]);
	out_u64(c, OUT_JSON, "fifo_full", NULL, v->c[LAT_C_FIFO_FULL]);
	out_open_obj(c, "stops");
	for (int k = 0; k < 3; k++) {
		out_open_obj(c, stop_keys[k]);
		out_u64(c, OUT_JSON, "count", NULL, v->c[stop_cnt[k]]);
		if (r->dur_ns)
			out_dbl_fixed(c, "per_sec", (double)v->c[stop_cnt[k]] * 1e9 /
				      (double)r->dur_ns, 3);
		latency_json_dist(c, "stopped", &v->stop[k]);
		out_close_obj(c);
	}
	out_close_obj(c);
	out_u64(c, OUT_JSON, "polls", NULL, v->c[LAT_C_POLLS]);
	out_u64(c, OUT_JSON, "polls_completing", NULL, v->c[LAT_C_POLLS_DONE]);
	latency_json_dist(c, "completions_per_poll", &v->cpp);
	if (!r->no_irq)
		latency_json_dist(c, "irq_delay", &v->irq);
	out_open_obj(c, "drops");
	out_u64(c, OUT_JSON, "count", NULL, v->c[LAT_C_DROP]);
	out_u64(c, OUT_JSON, "queued", NULL, v->c[LAT_C_DROP_QUEUED]);
	out_open_obj(c, "reasons");
	for (unsigned int k = 0; k < LAT_NREASONS; k++) {
		const char *nm = latbpf_reason_name(r->l, k);
		char buf[32];

		if (!v->drops[k])
			continue;
		if (!nm) {
			snprintf(buf, sizeof(buf), "%u", k);
			nm = buf;
		}
		out_u64(c, OUT_JSON, nm, NULL, v->drops[k]);
	}
	out_close_obj(c);
	out_close_obj(c);
	out_u64(c, OUT_JSON, "stalls", NULL, v->c[LAT_C_STALLS]);
	out_u64(c, OUT_JSON, "timeouts", NULL, v->c[LAT_C_TIMEOUTS]);
}

/* ------------------------------------------------------------ text */

static void text_dist(struct bql_ctx *c, const struct lat_hist *h, bool ns)
{
	struct lat_summary s;
	char a[24], b[24], d[24], m[24];

	lathist_summary(h, &s);
	if (!s.count) {
		out_text(c, "-");
		return;
	}
	if (ns)
		out_text(c, "p50 %s  p90 %s  p99 %s  max %s", latency_fmt_ns(a, sizeof(a), s.p50),
			 latency_fmt_ns(b, sizeof(b), s.p90), latency_fmt_ns(d, sizeof(d), s.p99),
			 latency_fmt_ns(m, sizeof(m), s.max));
	else
		out_text(c, "p50 %" PRIu64 "  p90 %" PRIu64 "  p99 %" PRIu64 "  max %" PRIu64,
			 s.p50, s.p90, s.p99, s.max);
}

/* biolatency's picture: power-of-two rows from the first to the last non-empty */
static void text_hist(struct bql_ctx *c, const struct lat_hist *h)
{
	uint64_t rows[64] = { 0 }, top = 0;
	int lo = -1, hi = -1;

	for (unsigned int b = 0; b < LAT_NB; b++) {
		uint64_t v = lat_bucket_lo(b);
		int p = 0;

		if (!h->b[b])
			continue;
		while (p < 63 && (v >> (p + 1)))
			p++;
		if (!v)
			p = -1;
		rows[p + 1] += h->b[b];
	}
	for (int p = 0; p < 64; p++) {
		if (!rows[p])
			continue;
		if (lo < 0)
			lo = p;
		hi = p;
		if (rows[p] > top)
			top = rows[p];
	}
	if (lo < 0)
		return;
	out_text(c, "  %22s : %-10s %s\n", "range", "count", "distribution");
	for (int p = lo; p <= hi; p++) {
		char l[24], u[24], bar[41];
		uint64_t from = p ? 1ull << (p - 1) : 0, to = p ? (1ull << p) - 1 : 0;
		int w = top ? (int)((rows[p] * 40 + top - 1) / top) : 0;

		memset(bar, '*', (size_t)w);
		bar[w] = 0;
		out_text(c, "  %10s -> %-9s : %-10" PRIu64 " |%-40s|\n",
			 latency_fmt_ns(l, sizeof(l), from), latency_fmt_ns(u, sizeof(u), to),
			 rows[p], bar);
	}
}

static void text_view(struct bql_ctx *c, const char *name, const struct qview *v,
		      const struct lat_report *r)
{
	uint64_t xm = v->c[LAT_C_XMIT];
	double sec = (double)r->dur_ns / 1e9;

	out_text(c, "%s\n", name);
	out_text(c, "  qdisc wait   %" PRIu64 " packets", v->qdisc.count);
	if (xm)
		out_text(c, ", %.1f%% bypass", 100.0 * (double)v->bypass / (double)xm);
	out_text(c, ": ");
	text_dist(c, &v->qdisc, true);
	out_text(c, "\n");
	if (r->hist)
		text_hist(c, &v->qdisc);
	out_text(c, "  ring time    %" PRIu64 " packets: ", v->ring.count);
	text_dist(c, &v->ring, true);
	out_text(c, "\n");
	if (r->hist)
		text_hist(c, &v->ring);
	out_text(c, "  stops        BQL %" PRIu64 ", ring full %" PRIu64 ", both %" PRIu64,
		 v->c[LAT_C_STOP_BQL], v->c[LAT_C_STOP_RING], v->c[LAT_C_STOP_BOTH]);
	if (sec > 0)
		out_text(c, " (%.2f/s)", (double)(v->c[LAT_C_STOP_BQL] + v->c[LAT_C_STOP_RING] +
						   v->c[LAT_C_STOP_BOTH]) / sec);
	out_text(c, "\n");
	for (int k = 0; k < 3; k++) {
		if (!v->stop[k].count)
			continue;
		out_text(c, "    stopped by %-9s ", k == 0 ? "BQL:" : k == 1 ? "the ring:" : "both:");
		text_dist(c, &v->stop[k], true);
		out_text(c, "\n");
	}
	out_text(c, "  polls        %" PRIu64 ", %" PRIu64 " completing; packets per poll: ",
		 v->c[LAT_C_POLLS], v->c[LAT_C_POLLS_DONE]);
	text_dist(c, &v->cpp, false);
	out_text(c, "\n");
	if (r->no_irq) {
		out_text(c, "  irq delay    not measured (--no-irq)\n");
	} else {
		out_text(c, "  irq delay    %" PRIu64 " polls: ", v->irq.count);
		text_dist(c, &v->irq, true);
		out_text(c, "\n");
	}
	if (v->c[LAT_C_DROP]) {
		out_text(c, "  drops        %" PRIu64 ":", v->c[LAT_C_DROP]);
		for (unsigned int k = 0; k < LAT_NREASONS; k++) {
			const char *nm = latbpf_reason_name(r->l, k);

			if (!v->drops[k])
				continue;
			if (nm)
				out_text(c, " %s %" PRIu64, nm, v->drops[k]);
			else
				out_text(c, " reason %u %" PRIu64, k, v->drops[k]);
		}
		out_text(c, "\n");
	}
	if (v->c[LAT_C_STALLS] || v->c[LAT_C_TIMEOUTS])
		out_text(c, "  stalls       %" PRIu64 ", watchdog timeouts %" PRIu64 "\n",
			 v->c[LAT_C_STALLS], v->c[LAT_C_TIMEOUTS]);
}

static void print_event(struct bql_ctx *c, const struct lat_event *ev)
{
	const char *kind = ev->kind == LAT_EV_STALL ? "stall" : "timeout";
	uint32_t inflight = ev->num_queued - ev->num_completed;

	if (c->json) {
		out_open_obj(c, NULL);
		out_str(c, OUT_JSON, "kind", NULL, kind);
		out_u64(c, OUT_JSON, "t_ns", NULL, ev->t_ns);
		out_str(c, OUT_JSON, "ifname", NULL, ev->ifname);
		if (ev->queue >= 0)
			out_u64(c, OUT_JSON, "queue", NULL, (uint64_t)ev->queue);
		if (ev->kind == LAT_EV_STALL) {
			out_u64(c, OUT_JSON, "stall_thrs", NULL, ev->thrs);
			out_u64(c, OUT_JSON, "stall_len", NULL, ev->len);
		}
		out_u64(c, OUT_JSON, "limit", NULL, ev->limit);
		out_u64(c, OUT_JSON, "inflight", NULL, inflight);
		out_u64(c, OUT_JSON, "state", NULL, ev->state);
		out_u64(c, OUT_JSON, "qlen", NULL, ev->qlen);
		out_u64(c, OUT_JSON, "backlog", NULL, ev->backlog);
		out_close_obj(c);
		return;
	}
	out_text(c, "%s:tx-%d: %s", ev->ifname, ev->queue, kind);
	if (ev->kind == LAT_EV_STALL)
		out_text(c, " of %" PRIu64 " jiffies (stall_thrs %" PRIu64 ")", ev->len, ev->thrs);
	out_text(c, "; then limit %u, inflight %u, state 0x%" PRIx64 ", qdisc qlen %u backlog %u\n",
		 ev->limit, inflight, ev->state, ev->qlen, ev->backlog);
}

/* --from: the ring time of each queue of a trace */
static void print_trace(struct bql_ctx *c, const struct lat_report *r)
{
	out_open_arr(c, "queues");
	for (unsigned int i = 0; i < r->rt->n; i++) {
		const struct ringtime_queue *q = &r->rt->q[i];

		if (!q->name[0])
			continue;
		if (c->json) {
			out_open_obj(c, NULL);
			out_str(c, OUT_JSON, "name", NULL, q->name);
			latency_json_dist(c, "ring_time", &q->ring);
			out_u64(c, OUT_JSON, "sent", NULL, q->n_q);
			out_u64(c, OUT_JSON, "completions", NULL, q->n_c);
			out_u64(c, OUT_JSON, "in_flight_at_end", NULL, q->tail - q->head);
			out_u64(c, OUT_JSON, "reseeds", NULL, q->n_reseed);
			out_close_obj(c);
			continue;
		}
		out_text(c, "%s\n  ring time    %" PRIu64 " packets: ", q->name, q->ring.count);
		text_dist(c, &q->ring, true);
		out_text(c, "\n");
		if (r->hist)
			text_hist(c, &q->ring);
		out_text(c, "  %" PRIu64 " Q, %" PRIu64 " C records, %zu in flight at the end, %"
			 PRIu64 " re-seeds\n", q->n_q, q->n_c, q->tail - q->head, q->n_reseed);
	}
	out_close_arr(c);
}

int latency_print(struct bql_ctx *c, const struct lat_report *r)
{
	char d[24];

	out_begin(c, false);
	if (r->rt) {
		print_trace(c, r);
		return out_end(c);
	}
	out_u64(c, OUT_JSON, "duration_ns", NULL, r->dur_ns);
	if (!c->json)
		out_text(c, "%s observed%s%s\n", latency_fmt_ns(d, sizeof(d), r->dur_ns),
			 r->missing[0] ? "; no tracepoint " : "", r->missing);
	if (r->missing[0])
		out_str(c, OUT_JSON, "missing", NULL, r->missing);
	out_open_arr(c, "devices");
	for (unsigned int i = 0; i < r->n;) {
		unsigned int j = i;
		struct qview *dv = calloc(1, sizeof(*dv));

		while (j < r->n && !strcmp(r->t[j].ifname, r->t[i].ifname))
			j++;
		if (!dv) {
			out_discard(c);
			return -ENOMEM;
		}
		out_open_obj(c, NULL);
		out_str(c, OUT_JSON, "ifname", NULL, r->t[i].ifname);
		out_open_arr(c, "queues");
		for (unsigned int k = i; k < j; k++) {
			struct qview *v = calloc(1, sizeof(*v));
			char name[64];

			if (!v) {
				free(dv);
				out_discard(c);
				return -ENOMEM;
			}
			qview_add(v, &r->s->q[k]);
			snprintf(name, sizeof(name), "%s:tx-%u", r->t[k].ifname, r->t[k].queue);
			out_open_obj(c, NULL);
			out_str(c, OUT_JSON, "name", NULL, name);
			out_str(c, OUT_JSON, "ifname", NULL, r->t[k].ifname);
			out_u64(c, OUT_JSON, "queue", NULL, r->t[k].queue);
			if (c->json)
				json_view(c, v, r);
			else
				text_view(c, name, v, r);
			out_close_obj(c);
			free(v);
		}
		out_close_arr(c);
		/* the device: its queues summed (printed in text when it has several) */
		memset(dv, 0, sizeof(*dv));
		for (unsigned int k = i; k < j; k++)
			qview_add(dv, &r->s->q[k]);
		if (c->json)
			json_view(c, dv, r);
		else if (j - i > 1)
			text_view(c, r->t[i].ifname, dv, r);
		out_close_obj(c);
		free(dv);
		i = j;
	}
	out_close_arr(c);
	out_open_arr(c, "cpus");
	for (unsigned int k = 0; k < r->s->ncpu; k++) {
		if (!r->s->cpu_irq[k].count)
			continue;
		out_open_obj(c, NULL);
		out_u64(c, OUT_JSON, "cpu", NULL, k);
		if (c->json) {
			latency_json_dist(c, "irq_delay", &r->s->cpu_irq[k]);
		} else {
			out_text(c, "cpu%-3u       interrupt -> NET_RX softirq, %" PRIu64 ": ", k,
				 r->s->cpu_irq[k].count);
			text_dist(c, &r->s->cpu_irq[k], true);
			out_text(c, "\n");
		}
		out_close_obj(c);
	}
	out_close_arr(c);
	out_open_arr(c, "events");
	for (unsigned int k = 0; k < r->nev; k++)
		print_event(c, &r->ev[k]);
	out_close_arr(c);
	if (r->ev_lost)
		out_u64(c, OUT_ANY, "events_lost", "%" PRIu64 " more events not kept\n", r->ev_lost);
	return out_end(c);
}
