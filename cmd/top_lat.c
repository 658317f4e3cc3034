// SPDX-License-Identifier: GPL-2.0-only
/*
 * top's measured time (top_lat.h): the latency observer without its
 * softirq programs (top shows no interrupt delay), read every sample.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/latency.h"
#include "cmd/top_lat.h"
#include "dql/lathist.h"
#include "lib/io/out.h"
#include "lib/kernel/latbpf.h"
#include "lib/model/topmodel.h"

/* the distributions top shows: ring time and qdisc wait (read, summed) */
#define TOP_KINDS	(1u << LAT_H_RING | 1u << LAT_H_QDISC)

struct top_lat {
	bool tried, on;
	char why[256];
	struct latbpf *l;
	struct latbpf_target t[LAT_MAX_SLOTS];
	unsigned int n;
	/* the end of the run of slots of one device from each slot on */
	unsigned int run_end[LAT_MAX_SLOTS];
	struct latbpf_snap *prev, *cur, *d;
	bool have;			/* d holds an interval */
	uint64_t dt_ns;
	unsigned int skipped;		/* queues past LAT_MAX_SLOTS */
	struct latbpf_queue *sum;	/* gather()'s scratch, one for the whole run */
};

struct top_lat *top_lat_new(void)
{
	return calloc(1, sizeof(struct top_lat));
}

void top_lat_free(struct top_lat *tl)
{
	if (!tl)
		return;
	latbpf_close(tl->l);
	free(tl->prev);
	free(tl->cur);
	free(tl->d);
	free(tl->sum);
	free(tl);
}

void top_lat_start(struct bql_ctx *c, struct top_lat *tl, const struct sel_result *r)
{
	struct latbpf_opts o = { 0 };
	struct bql_err e;

	if (!tl)
		return;
	tl->tried = true;
	if (c->root_overridden) {
		snprintf(tl->why, sizeof(tl->why), "a sysfs tree has no kernel to observe");
		return;
	}
	if (!latbpf_available()) {
		snprintf(tl->why, sizeof(tl->why), "built without BPF support");
		return;
	}
	if (geteuid() != 0) {
		snprintf(tl->why, sizeof(tl->why), "observing the kernel needs root");
		return;
	}
	for (size_t i = 0; i < r->n; i++)
		for (unsigned int k = 0; k < r->t[i].nqueues; k++) {
			struct latbpf_target *t;

			if (tl->n == LAT_MAX_SLOTS) {
				tl->skipped++;
				continue;
			}
			t = &tl->t[tl->n++];
			snprintf(t->ifname, sizeof(t->ifname), "%s", r->t[i].ifname);
			t->ifindex = r->t[i].ifindex;
			t->queue = r->t[i].queues[k];
		}
	if (!tl->n) {
		snprintf(tl->why, sizeof(tl->why), "no queue to observe");
		return;
	}
	for (unsigned int i = tl->n; i-- > 0;)
		tl->run_end[i] = i + 1 == tl->n || strcmp(tl->t[i].ifname, tl->t[i + 1].ifname) ?
				 i + 1 : tl->run_end[i + 1];
	tl->prev = calloc(1, sizeof(*tl->prev));
	tl->cur = calloc(1, sizeof(*tl->cur));
	tl->d = calloc(1, sizeof(*tl->d));
	tl->sum = calloc(1, sizeof(*tl->sum));
	if (!tl->prev || !tl->cur || !tl->d || !tl->sum) {
		snprintf(tl->why, sizeof(tl->why), "out of memory");
		return;
	}
	o.t = tl->t;
	o.n = tl->n;
	o.no_irq = true;
	o.kinds = TOP_KINDS;
	if (latbpf_open(&tl->l, &o, &e)) {
		snprintf(tl->why, sizeof(tl->why), "%s", e.msg);
		return;
	}
	if (latbpf_read(tl->l, tl->prev, &e)) {
		snprintf(tl->why, sizeof(tl->why), "%s", e.msg);
		latbpf_close(tl->l);
		tl->l = NULL;
		return;
	}
	tl->on = true;
}

void top_lat_tick(struct bql_ctx *c, struct top_lat *tl, const struct sampler *s)
{
	struct latbpf_snap *t;
	struct bql_err e;

	(void)c;
	(void)s;
	if (!tl || !tl->on)
		return;
	if (latbpf_read(tl->l, tl->cur, &e)) {
		snprintf(tl->why, sizeof(tl->why), "%s", e.msg);
		tl->on = false;
		tl->have = false;
		latbpf_close(tl->l);
		tl->l = NULL;
		return;
	}
	latency_delta(tl->d, tl->cur, tl->prev);
	tl->dt_ns = tl->cur->t_ns - tl->prev->t_ns;
	tl->have = tl->dt_ns > 0;
	t = tl->prev;
	tl->prev = tl->cur;
	tl->cur = t;
}

bool top_lat_on(const struct top_lat *tl)
{
	return tl && tl->on;
}

const char *top_lat_status(const struct top_lat *tl, char *buf, size_t n)
{
	if (!tl || !tl->tried)
		snprintf(buf, n, "latency off");
	else if (tl->on && tl->skipped)
		snprintf(buf, n, "latency on, %u queues (%u more not observed)", tl->n, tl->skipped);
	else if (tl->on)
		snprintf(buf, n, "latency on, %u queue%s", tl->n, tl->n == 1 ? "" : "s");
	else
		snprintf(buf, n, "latency off: %s", tl->why);
	return buf;
}

/*
 * Whether the queue (or the device, @queue -1) is observed: one name
 * compared per device observed, not per slot (top -b asks for each of
 * thousands of rows, issue #40)
 */
static bool observed(const struct top_lat *tl, const char *ifname, int queue)
{
	if (!tl || !tl->on || !tl->have)
		return false;
	for (unsigned int i = 0; i < tl->n; i = tl->run_end[i]) {
		if (strcmp(tl->t[i].ifname, ifname))
			continue;
		if (queue < 0)
			return true;
		for (unsigned int j = i; j < tl->run_end[i]; j++)
			if (tl->t[j].queue == (unsigned int)queue)
				return true;
	}
	return false;
}

/*
 * The queue's (or the device's, @queue -1) interval, summed into tl->sum
 * (the kinds top reads); NULL if unobserved.
 */
static struct latbpf_queue *gather(const struct top_lat *tl, const char *ifname, int queue)
{
	struct latbpf_queue *q;
	bool any = false;

	/* most rows are not observed (64 slots of thousands of queues) */
	if (!observed(tl, ifname, queue))
		return NULL;
	q = tl->sum;
	for (int k = 0; k < LAT_H_NR; k++)
		if (TOP_KINDS & 1u << k)
			memset(&q->h[k], 0, sizeof(q->h[k]));
	memset(&q->c, 0, sizeof(q->c));
	for (unsigned int i = 0; i < tl->n; i = tl->run_end[i]) {
		if (strcmp(tl->t[i].ifname, ifname))
			continue;
		for (unsigned int j = i; j < tl->run_end[i]; j++) {
			const struct latbpf_queue *s = &tl->d->q[j];

			if (queue >= 0 && tl->t[j].queue != (unsigned int)queue)
				continue;
			for (int k = 0; k < LAT_H_NR; k++)
				if (TOP_KINDS & 1u << k)
					lathist_add(&q->h[k], &s->h[k]);
			for (int k = 0; k < LAT_C_NR; k++)
				q->c.v[k] += s->c.v[k];
			any = true;
		}
	}
	return any ? q : NULL;
}

static uint64_t bypassed(const uint64_t *c)
{
	uint64_t via = c[LAT_C_DEQ] > c[LAT_C_XMIT_BUSY] ? c[LAT_C_DEQ] - c[LAT_C_XMIT_BUSY] : 0;

	return c[LAT_C_XMIT] > via ? c[LAT_C_XMIT] - via : 0;
}

unsigned int top_lat_fill(void *arg, const char *ifname, int queue, double *v)
{
	const struct top_lat *tl = arg;
	struct latbpf_queue *q = gather(tl, ifname, queue);
	unsigned int valid = 0;
	double sec;

	if (!q)
		return 0;
	sec = (double)tl->dt_ns / 1e9;
	lathist_add_zeros(&q->h[LAT_H_QDISC], bypassed(q->c.v));
	if (q->h[LAT_H_RING].count) {
		v[TM_COL_RING_P99] = (double)lathist_quantile(&q->h[LAT_H_RING], 0.99);
		valid |= 1u << TM_COL_RING_P99;
	}
	if (q->h[LAT_H_QDISC].count) {
		v[TM_COL_QDISC_P99] = (double)lathist_quantile(&q->h[LAT_H_QDISC], 0.99);
		valid |= 1u << TM_COL_QDISC_P99;
	}
	v[TM_COL_STOP_BQL] = (double)q->c.v[LAT_C_STOP_BQL] / sec;
	v[TM_COL_STOP_RING] = (double)(q->c.v[LAT_C_STOP_RING] + q->c.v[LAT_C_STOP_BOTH]) / sec;
	valid |= 1u << TM_COL_STOP_BQL | 1u << TM_COL_STOP_RING;
	return valid;
}

void top_lat_json_queue(struct bql_ctx *c, const struct top_lat *tl, const char *ifname,
			unsigned int queue)
{
	static const char *const keys[3] = { "bql", "ring", "both" };
	static const int cnt[3] = { LAT_C_STOP_BQL, LAT_C_STOP_RING, LAT_C_STOP_BOTH };
	struct latbpf_queue *q = gather(tl, ifname, (int)queue);

	if (!q)
		return;
	lathist_add_zeros(&q->h[LAT_H_QDISC], bypassed(q->c.v));
	latency_json_dist(c, "ring_time", &q->h[LAT_H_RING]);
	latency_json_dist(c, "qdisc_wait", &q->h[LAT_H_QDISC]);
	out_open_obj(c, "stops");
	for (int k = 0; k < 3; k++) {
		out_open_obj(c, keys[k]);
		out_u64(c, OUT_JSON, "count", NULL, q->c.v[cnt[k]]);
		out_dbl(c, OUT_JSON, "per_sec", NULL, (double)q->c.v[cnt[k]] * 1e9 / (double)tl->dt_ns);
		out_close_obj(c);
	}
	out_close_obj(c);
}

void top_lat_json_status(struct bql_ctx *c, const struct top_lat *tl)
{
	out_open_obj(c, "latency");
	out_bool(c, OUT_JSON, "on", NULL, top_lat_on(tl));
	if (tl && tl->tried && !tl->on)
		out_str(c, OUT_JSON, "why", NULL, tl->why);
	out_close_obj(c);
}
