// SPDX-License-Identifier: GPL-2.0-only
/*
 * The model `bqltool tune --from TRACE` fits from a replayed trace. See
 * tune_fit.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune_fit.h"
#include "dql_util.h"		/* last: poisons the I/O functions */

void tune_fit_init(struct tune_fit *f)
{
	memset(f, 0, sizeof(*f));
	f->pkt_min = UINT32_MAX;
}

void tune_fit_free(struct tune_fit *f)
{
	free(f->q);
	f->q = NULL;
	f->qcap = 0;
}

/* room for queue @q: false when out of memory (then f->err is set) */
static bool fit_grow(struct tune_fit *f, unsigned int q)
{
	unsigned int cap = f->qcap ? f->qcap : 16;
	struct tune_fit_queue *n;

	while (cap <= q && cap < UINT_MAX / 2)
		cap *= 2;
	n = cap > q ? realloc(f->q, (size_t)cap * sizeof(*n)) : NULL;
	if (!n) {
		f->err = -ENOMEM;
		return false;
	}
	memset(n + f->qcap, 0, (size_t)(cap - f->qcap) * sizeof(*n));
	f->q = n;
	f->qcap = cap;
	return true;
}

static void fit_pkt(struct tune_fit *f, uint32_t bytes)
{
	f->pkts++;
	f->pkt_bytes += bytes;
	if (bytes < f->pkt_min)
		f->pkt_min = bytes;
	if (bytes > f->pkt_max)
		f->pkt_max = bytes;
}

void tune_fit_event(struct tune_fit *f, const struct replay_event *ev, unsigned int hz)
{
	unsigned int q = ev->queue;
	struct tune_fit_queue *fq;

	if (f->err || (q >= f->qcap && !fit_grow(f, q)))
		return;
	fq = &f->q[q];
	if (q >= f->nq)
		f->nq = q + 1;
	if (!f->any) {
		f->t_first = ev->t_ns;
		f->any = true;
	}
	f->hz = hz;
	if (ev->t_ns > f->t_last)
		f->t_last = ev->t_ns;
	f->inflight += ev->inflight;
	f->inflight -= fq->inflight;
	fq->inflight = ev->inflight;
	if (ev->kind == BQLT_Q) {
		fq->q_bytes += ev->bytes;
		fq->q_pkts++;
		fit_pkt(f, ev->bytes);
		return;
	}
	if (ev->kind != BQLT_C)
		return;
	fq->c_bytes += ev->bytes;
	if (fq->c_cnt++ && ev->t_ns > fq->c_last)
		sim_hist_add(&f->c_gap, ev->t_ns - fq->c_last);
	fq->c_last = ev->t_ns;
	sim_hist_add(&f->c_size, ev->bytes);
	/*
	 * The link was busy from the previous completion (of any queue) to
	 * this one if what was in flight then covers what completed since:
	 * the NIC had that much to send all along.
	 */
	if (f->have_c && ev->t_ns > f->last_c && f->total_at_c >= ev->bytes) {
		f->busy_bytes += ev->bytes;
		f->busy_ns += ev->t_ns - f->last_c;
		f->busy_n++;
		sim_hist_add(&f->busy_gap, ev->t_ns - f->last_c);
	}
	f->total_at_c = f->inflight;
	f->last_c = ev->t_ns;
	f->have_c = true;
}

int tune_fit_finish(const struct tune_fit *f, struct sim_config *cfg, bool keep_link,
		    bool keep_queues, bool keep_traffic, struct tune_fitted *out,
		    struct bql_err *e)
{
	uint64_t cbytes = 0, qbytes = 0, dur;
	unsigned int i;

	memset(out, 0, sizeof(*out));
	if (f->err)
		return bql_err_set(e, -f->err, "fitting the trace: %s", strerror(-f->err));
	if (!f->c_size.n)
		return bql_err_set(e, EINVAL, "the trace has no completion (C record) to fit");
	dur = f->t_last > f->t_first ? f->t_last - f->t_first : 1;
	out->duration_ns = dur;
	out->hz = f->hz;
	out->nqueues = f->nq;
	for (i = 0; i < f->nq; i++) {
		cbytes += f->q[i].c_bytes;
		qbytes += f->q[i].q_bytes;
		if (f->q[i].c_cnt || f->q[i].q_pkts)
			out->active++;
	}
	/* the link: bytes over time while busy, if that was seen often enough */
	out->busy_intervals = f->busy_n;
	out->link_ok = f->busy_n >= 10 && f->busy_ns > 0;
	if (out->link_ok)
		out->link_bps = (uint64_t)llround((double)f->busy_bytes * 8e9 / (double)f->busy_ns);
	if (out->link_ok && !keep_link) {
		cfg->link_bps = out->link_bps;
		if (cfg->link_bps < SIM_LINK_MIN)
			cfg->link_bps = SIM_LINK_MIN;
		if (cfg->link_bps > SIM_LINK_MAX)
			cfg->link_bps = SIM_LINK_MAX;
	}
	/* offered load, over the trace */
	out->offered_bps = (double)(qbytes ? qbytes : cbytes) * 8e9 / (double)dur;
	if (!out->link_ok && !keep_link) {
		/* never busy: the smallest common rate that carries the load at 90% */
		static const uint64_t rates[] = {
			10000000ull, 100000000ull, 1000000000ull, 2500000000ull, 5000000000ull,
			10000000000ull, 25000000000ull, 40000000000ull, 50000000000ull,
			100000000000ull, 200000000000ull, 400000000000ull,
		};

		for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
			if (out->offered_bps <= 0.9 * (double)rates[i] || rates[i] == SIM_LINK_MAX) {
				cfg->link_bps = rates[i];
				break;
			}
		out->link_assumed = true;
	}
	/* completions: how often and how much */
	out->gap_p50_ns = sim_hist_quantile(&f->c_gap, 0.5);
	out->gap_p10_ns = sim_hist_quantile(&f->c_gap, 0.1);
	out->batch_p50 = sim_hist_quantile(&f->c_size, 0.5);
	{
		/* the interrupt interval while busy is coalescing + IRQ latency */
		uint64_t gap = f->busy_gap.n >= 10 ? sim_hist_quantile(&f->busy_gap, 0.5)
						   : out->gap_p10_ns;
		uint64_t lat = cfg->irq_latency_ns;

		out->coalesce_usecs = gap > lat ? (unsigned int)((gap - lat + 500) / 1000) : 0;
		if (out->coalesce_usecs > 1000000)
			out->coalesce_usecs = 1000000;
		cfg->coalesce_usecs = out->coalesce_usecs;
		cfg->coalesce_frames = 0;
	}
	/* packet sizes */
	if (f->pkts) {
		out->pkt_seen = true;
		out->pkt_min = f->pkt_min;
		out->pkt_max = f->pkt_max > SIM_PKT_MAX ? SIM_PKT_MAX : f->pkt_max;
		out->pkt_mean = (double)f->pkt_bytes / (double)f->pkts;
	} else {
		out->pkt_min = out->pkt_max = 1514;
		out->pkt_mean = 1514;
	}
	out->load = out->offered_bps / (double)cfg->link_bps;
	out->bulk = out->load >= 0.95;
	if (dql_hz_valid(f->hz))
		cfg->hz = f->hz;
	if (!keep_queues)
		cfg->nqueues = !f->nq ? 1 : f->nq > SIM_MAX_QUEUES ? SIM_MAX_QUEUES : f->nq;
	out->folded = f->nq > cfg->nqueues;
	if (!keep_traffic) {
		struct sim_size sz;

		memset(&sz, 0, sizeof(sz));
		if (out->pkt_min == out->pkt_max || out->pkt_min < 1) {
			sz.kind = SIM_SIZE_FIXED;
			sz.a = (uint32_t)llround(out->pkt_mean);
		} else {
			/* the extremes, mixed to give the mean */
			sz.kind = SIM_SIZE_BIMODAL;
			sz.a = out->pkt_min;
			sz.b = out->pkt_max;
			sz.p = ((double)sz.b - out->pkt_mean) / ((double)sz.b - sz.a);
			if (sz.p < 0)
				sz.p = 0;
			if (sz.p > 1)
				sz.p = 1;
		}
		if (sz.a < 1)
			sz.a = 1;
		uint64_t qb[SIM_MAX_QUEUES] = { 0 };

		/* each model queue carries its trace queues' bytes */
		for (i = 0; i < f->nq; i++)
			qb[i % cfg->nqueues] += f->q[i].q_bytes ? f->q[i].q_bytes : f->q[i].c_bytes;
		cfg->nflows = 0;
		for (i = 0; i < cfg->nqueues; i++) {
			uint64_t b = qb[i];
			struct sim_flow *fl;

			if (!b)
				continue;
			fl = &cfg->flows[cfg->nflows++];
			memset(fl, 0, sizeof(*fl));
			fl->pinned = true;
			fl->queue = i;
			fl->size = sz;
			if (out->bulk) {
				fl->kind = SIM_T_BULK;
			} else {
				fl->kind = SIM_T_POISSON;
				fl->rate_bps = (uint64_t)llround((double)b * 8e9 / (double)dur);
				if (fl->rate_bps < 1)
					fl->rate_bps = 1;
			}
		}
		if (!cfg->nflows) {
			cfg->flows[0].kind = SIM_T_BULK;
			cfg->flows[0].size = sz;
			cfg->nflows = 1;
		}
	}
	return 0;
}
