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

#include "tune.h"
#include "tune_fit.h"
#include "dql_util.h"		/* last: poisons the I/O functions */

void tune_fit_init(struct tune_fit *f)
{
	memset(f, 0, sizeof(*f));
	f->pkt_min = UINT32_MAX;
	f->lo_min = UINT32_MAX;
	f->lim_min = UINT32_MAX;
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
	sim_hist_add(&f->pkt_size, bytes);
	if (bytes < f->pkt_min)
		f->pkt_min = bytes;
	if (bytes > f->pkt_max)
		f->pkt_max = bytes;
}

/* ------------------------------------------------------------ a queue's intervals */

/* the bucket of an interval of @ns: 1/TUNE_FIT_GAP_SUB octave wide, 0 below 256 ns */
static unsigned int gap_bucket(uint64_t ns)
{
	unsigned int b, i;

	if (ns < (1ull << TUNE_FIT_GAP_MIN_BITS))
		return 0;
	b = 63u - (unsigned int)__builtin_clzll(ns);
	i = (b - TUNE_FIT_GAP_MIN_BITS) * TUNE_FIT_GAP_SUB +
	    (unsigned int)((ns >> (b - 3)) & (TUNE_FIT_GAP_SUB - 1)) + 1;
	return i < TUNE_FIT_GAP_BUCKETS ? i : TUNE_FIT_GAP_BUCKETS - 1;
}

/* the smallest interval of bucket @i (its end: bucket @i + 1's) */
static double gap_lower(unsigned int i)
{
	unsigned int o, sub;

	if (!i)
		return 0;
	o = (i - 1) / TUNE_FIT_GAP_SUB;
	sub = (i - 1) % TUNE_FIT_GAP_SUB;
	return ldexp(TUNE_FIT_GAP_SUB + sub, (int)(o + TUNE_FIT_GAP_MIN_BITS) - 3);
}

/* the median of a queue's intervals, interpolated in its bucket; 0 if none */
static double gap_median(const struct tune_fit_queue *fq, uint64_t n)
{
	double half = (double)n / 2, cum = 0;

	for (unsigned int i = 0; i < TUNE_FIT_GAP_BUCKETS; i++) {
		if (!fq->gap[i] || cum + fq->gap[i] < half) {
			cum += fq->gap[i];
			continue;
		}
		return gap_lower(i) + (gap_lower(i + 1) - gap_lower(i)) * (half - cum) / fq->gap[i];
	}
	return 0;
}

/* the intervals of a queue from @from ns on (whole buckets) */
static uint64_t gaps_above(const struct tune_fit_queue *fq, double from)
{
	uint64_t n = 0;

	for (unsigned int i = gap_bucket((uint64_t)from) + 1; i < TUNE_FIT_GAP_BUCKETS; i++)
		n += fq->gap[i];
	return n;
}

/* ------------------------------------------------------------ the busy periods */

/* close the busy period being joined */
static void period_close(struct tune_fit *f)
{
	if (!f->in_period)
		return;
	f->busy_bytes += f->cum_b - f->cum_a;
	f->busy_ns += f->per_b - f->per_a;
	f->busy_periods++;
	f->in_period = false;
}

/* the busy window [@a, @b] of a queue joins the busy periods of the sum */
static void period_add(struct tune_fit *f, uint64_t a, uint64_t cum_a, uint64_t b, uint64_t cum_b)
{
	if (f->in_period && a <= f->per_b) {
		if (a < f->per_a) {
			f->per_a = a;
			f->cum_a = cum_a;
		}
		f->per_b = b;
		f->cum_b = cum_b;
		return;
	}
	period_close(f);
	f->in_period = true;
	f->per_a = a;
	f->cum_a = cum_a;
	f->per_b = b;
	f->cum_b = cum_b;
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
		/* the refill right after a completion belongs to the window's start */
		if (fq->c_cnt && ev->t_ns - fq->c_last <= TUNE_FIT_REFILL_NS &&
		    ev->inflight > fq->inflight_c)
			fq->inflight_c = ev->inflight;
		return;
	}
	if (ev->kind != BQLT_C)
		return;
	/*
	 * No Q records: what the kernel counted as queued since the last C
	 * (nq=) and the size of the last packet of it (lo=)
	 */
	if (!fq->q_pkts) {
		uint32_t grew = ev->num_queued - fq->nq_last;

		if (fq->nq_seen && grew) {
			fq->nq_bytes += grew;
			if (ev->last_obj) {
				f->lo_n++;
				f->lo_bytes += ev->last_obj;
				sim_hist_add(&f->lo_size, ev->last_obj);
				if (ev->last_obj < f->lo_min)
					f->lo_min = ev->last_obj;
				if (ev->last_obj > f->lo_max)
					f->lo_max = ev->last_obj;
			}
		}
		fq->nq_last = ev->num_queued;
		fq->nq_seen = true;
	}
	f->c_n++;
	f->c_cum += ev->bytes;
	fq->c_bytes += ev->bytes;
	sim_hist_add(&f->c_size, ev->bytes);
	if (ev->limit < f->lim_min)
		f->lim_min = ev->limit;
	if (ev->limit > f->lim_max)
		f->lim_max = ev->limit;
	f->lim_sum += ev->limit;
	if (fq->c_cnt++ && ev->t_ns > fq->c_last) {
		uint64_t gap = ev->t_ns - fq->c_last;

		sim_hist_add(&f->c_gap, gap);
		fq->gap[gap_bucket(gap)]++;
		/*
		 * Busy: bytes in flight at the last C (or queued just after
		 * it) were not all sent by now (they would have completed),
		 * so the ring had work all along the window.
		 */
		if (fq->inflight_c > ev->bytes) {
			sim_hist_add(&f->busy_gap, gap);
			sim_hist_add(&f->busy_size, ev->bytes);
			fq->busy_ns += gap;
			fq->busy_n++;
			period_add(f, fq->c_last, fq->cum_c, ev->t_ns, f->c_cum);
		}
	}
	if (fq->c_cnt == 1)
		fq->c_first = ev->t_ns;
	fq->c_last = ev->t_ns;
	fq->cum_c = f->c_cum;
	fq->inflight_c = ev->inflight;
}

/* the smallest common rate that carries @bps at 90% */
static uint64_t common_rate(double bps)
{
	static const uint64_t rates[] = {
		10000000ull, 100000000ull, 1000000000ull, 2500000000ull, 5000000000ull,
		10000000000ull, 25000000000ull, 40000000000ull, 50000000000ull,
		100000000000ull, 200000000000ull, 400000000000ull,
	};
	size_t i;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]) - 1; i++)
		if (bps <= 0.9 * (double)rates[i])
			break;
	return rates[i];
}

static uint64_t clamp_link(uint64_t bps)
{
	return bps < SIM_LINK_MIN ? SIM_LINK_MIN : bps > SIM_LINK_MAX ? SIM_LINK_MAX : bps;
}

/* the bytes queue @fq was given: its Q records, else nq= of its C records, else what it completed */
static uint64_t fq_queued(const struct tune_fit_queue *fq)
{
	return fq->q_pkts ? fq->q_bytes : fq->nq_bytes ? fq->nq_bytes : fq->c_bytes;
}

/* the measures of @f into @out (no model written) */
static void fit_measure(const struct tune_fit *f, struct tune_fitted *out)
{
	uint64_t cbytes = 0, qbytes = 0, dur, busy_ns = f->busy_ns, busy_bytes = f->busy_bytes;
	uint64_t periods = f->busy_periods;
	unsigned int i;

	dur = f->t_last > f->t_first ? f->t_last - f->t_first : 1;
	out->duration_ns = dur;
	out->hz = f->hz;
	out->nqueues = f->nq;
	out->completions = f->c_n;
	for (i = 0; i < f->nq; i++) {
		cbytes += f->q[i].c_bytes;
		qbytes += fq_queued(&f->q[i]);
		out->busy_intervals += f->q[i].busy_n;
		if (f->q[i].c_cnt || f->q[i].q_pkts)
			out->active++;
		if ((double)f->q[i].busy_ns >= 0.8 * (double)dur)
			out->busy_queues++;
	}
	if (f->in_period) {	/* the one still open */
		busy_bytes += f->cum_b - f->cum_a;
		busy_ns += f->per_b - f->per_a;
		periods++;
	}
	out->busy_periods = periods;
	out->busy_frac = (double)busy_ns / (double)dur;
	/* short busy periods misjudge the other queues' share at their edges */
	out->link_ok = out->busy_intervals >= TUNE_FIT_MIN_BUSY && busy_bytes > 0 &&
		       out->busy_frac >= TUNE_FIT_MIN_BUSY_FRAC;
	if (out->link_ok)
		out->link_bps = (uint64_t)llround((double)busy_bytes * 8e9 / (double)busy_ns);
	out->offered_bps = (double)qbytes * 8e9 / (double)dur;
	out->completed_bps = (double)cbytes * 8e9 / (double)dur;
	out->gap_p50_ns = sim_hist_quantile(&f->c_gap, 0.5);
	out->gap_p10_ns = sim_hist_quantile(&f->c_gap, 0.1);
	out->gap_p01_ns = sim_hist_quantile(&f->c_gap, 0.01);
	out->batch_p50 = sim_hist_quantile(&f->c_size, 0.5);
	out->busy_gap_p50_ns = sim_hist_quantile(&f->busy_gap, 0.5);
	out->busy_batch_p50 = sim_hist_quantile(&f->busy_size, 0.5);
	if (f->c_n) {
		out->limit_min = f->lim_min;
		out->limit_max = f->lim_max;
		out->limit_mean = f->lim_sum / (double)f->c_n;
	}
	if (f->pkts || f->lo_n) {
		uint32_t lo = f->pkts ? f->pkt_min : f->lo_min, hi = f->pkts ? f->pkt_max : f->lo_max;

		out->pkt_seen = true;
		out->pkt_from = f->pkts ? TUNE_PKT_Q : TUNE_PKT_LO;
		out->pkt_max_seen = hi;
		out->pkt_clamped = hi > SIM_PKT_MAX;
		out->pkt_min = lo > SIM_PKT_MAX ? SIM_PKT_MAX : lo;
		out->pkt_max = hi > SIM_PKT_MAX ? SIM_PKT_MAX : hi;
		out->pkt_mean = f->pkts ? (double)f->pkt_bytes / (double)f->pkts :
			(double)f->lo_bytes / (double)f->lo_n;
		out->pkt_p50 = (uint32_t)sim_hist_quantile(f->pkts ? &f->pkt_size : &f->lo_size, 0.5);
		if (out->pkt_p50 < out->pkt_min)
			out->pkt_p50 = out->pkt_min;
		if (out->pkt_p50 > out->pkt_max)
			out->pkt_p50 = out->pkt_max;
		if (out->pkt_mean > out->pkt_max)
			out->pkt_mean = out->pkt_max;
		if (out->pkt_mean < out->pkt_min)
			out->pkt_mean = out->pkt_min;
	} else {
		out->pkt_min = out->pkt_max = out->pkt_p50 = 1514;
		out->pkt_mean = 1514;
	}
}

static struct sim_size fit_size(const struct tune_fitted *out)
{
	struct sim_size sz;

	memset(&sz, 0, sizeof(sz));
	/*
	 * The median, mixed with the extreme on the mean's side to give the
	 * mean: the median's share is most packets, as in the trace, whatever
	 * a few odd ones (one 42-byte ARP among TCP acknowledgements of 66)
	 */
	sz.a = out->pkt_p50;
	sz.b = out->pkt_mean >= sz.a ? out->pkt_max : out->pkt_min;
	if (out->pkt_min == out->pkt_max || out->pkt_min < 1 || sz.a == sz.b) {
		sz.kind = SIM_SIZE_FIXED;
		sz.a = (uint32_t)llround(out->pkt_mean);
		sz.b = 0;
	} else {
		sz.kind = SIM_SIZE_BIMODAL;
		sz.p = ((double)sz.b - out->pkt_mean) / ((double)sz.b - sz.a);
		if (sz.p < 0)
			sz.p = 0;
		if (sz.p > 1)
			sz.p = 1;
	}
	if (sz.a < 1)
		sz.a = 1;
	if (sz.a > SIM_PKT_MAX)
		sz.a = SIM_PKT_MAX;
	/* one size past a full frame: a TSO packet, sent as its segments */
	if (sz.kind == SIM_SIZE_FIXED && sz.a > TUNE_FIT_FRAME_MAX)
		sz.kind = SIM_SIZE_TSO;
	return sz;
}

/*
 * The link's byte-times per byte the trace counts (skb->len) for the
 * fitted sizes: the framing, and the headers of every TSO segment. The
 * busy periods give the rate of the counted bytes; the link is faster by
 * this much (1 when the model has no framing).
 */
static double fit_wire_factor(const struct sim_config *cfg, const struct tune_fitted *out)
{
	struct sim_size sz = fit_size(out), one;
	double w, b;

	if (sz.kind != SIM_SIZE_BIMODAL)
		return (double)sim_wire_bytes(cfg, &sz, sz.a) / (double)sz.a;
	one = (struct sim_size){ SIM_SIZE_FIXED, 0, 0, 0 };
	w = sz.p * sim_wire_bytes(cfg, &one, sz.a) + (1 - sz.p) * sim_wire_bytes(cfg, &one, sz.b);
	b = sz.p * sz.a + (1 - sz.p) * sz.b;
	return b > 0 ? w / b : 1;
}

/*
 * @fl as the on/off flow of the bursty queue @fq that was given @bytes
 * (see struct tune_fit_queue): while on, it sends @per_c bytes (a median
 * completion) per median interval of the queue; it is on for the share of
 * the time that gives its mean rate. Its period is set later (fit_periods);
 * @fl->on_ns holds the least it needs (the trace's silences apart, at most
 * TUNE_FIT_PERIOD_MAX_NS; long enough for TUNE_FIT_BURST_PKTS packets on)
 * and @duty its share, @pkt_ns the time of a packet while on. False, and
 * @fl untouched, if the queue is not bursty.
 */
static bool fit_onoff(const struct tune_fit_queue *fq, uint64_t bytes, double per_c,
		      double pkt_mean, uint64_t dur, uint64_t link_bps, struct sim_flow *fl,
		      double *duty, double *pkt_ns)
{
	double med, span, on_bps, d, period, pn;
	uint64_t n = 0, silences;

	for (unsigned int i = 0; i < TUNE_FIT_GAP_BUCKETS; i++)
		n += fq->gap[i];
	if (n < TUNE_FIT_BURST_MIN_GAPS || fq->c_last <= fq->c_first || !dur || pkt_mean <= 0 ||
	    per_c <= 0)
		return false;
	span = (double)(fq->c_last - fq->c_first);
	med = gap_median(fq, n);
	if (med <= 0 || span / (double)n < TUNE_FIT_BURSTY * med)
		return false;
	silences = gaps_above(fq, TUNE_FIT_GAP_LONG * med);
	if (silences < 2)
		return false;
	/* at a constant rate the interval follows the bytes: the median's at the median's */
	on_bps = per_c * 8e9 / med;
	if (on_bps > (double)link_bps)
		on_bps = (double)link_bps;
	d = (double)bytes * 8e9 / (double)dur / on_bps;
	if (d >= 1.0 / TUNE_FIT_BURSTY)
		return false;
	pn = pkt_mean * 8e9 / on_bps;
	period = span / (double)silences;
	if (period > (double)TUNE_FIT_PERIOD_MAX_NS)
		period = (double)TUNE_FIT_PERIOD_MAX_NS;
	if (period * d < TUNE_FIT_BURST_PKTS * pn)
		period = TUNE_FIT_BURST_PKTS * pn / d;
	if (period > (double)SIM_DURATION_MAX / 2)
		return false;
	fl->kind = SIM_T_ONOFF;
	fl->rate_bps = on_bps < 1 ? 1 : (uint64_t)llround(on_bps);
	fl->on_ns = (uint64_t)llround(period);
	*duty = d;
	*pkt_ns = pn;
	return true;
}

/*
 * One period for every on/off flow of the model, the longest any needs:
 * runs of whole periods (tune_whole_periods) then carry each flow's mean
 * rate, whatever their length. A burst sends a packet at its start and
 * one each @pkt_ns while on: half a packet more than its share of the
 * period holds, on average, so it is that much shorter.
 */
static void fit_periods(struct sim_config *cfg, const double *duty, const double *pkt_ns)
{
	uint64_t period = 0;
	unsigned int i;

	for (i = 0; i < cfg->nflows; i++)
		if (cfg->flows[i].kind == SIM_T_ONOFF && cfg->flows[i].on_ns > period)
			period = cfg->flows[i].on_ns;
	for (i = 0; i < cfg->nflows; i++) {
		struct sim_flow *fl = &cfg->flows[i];
		double on = (double)period * duty[i] - pkt_ns[i] / 2;

		if (fl->kind != SIM_T_ONOFF)
			continue;
		fl->on_ns = on < 1 ? 1 : (uint64_t)llround(on);
		fl->off_ns = period > fl->on_ns ? period - fl->on_ns : 0;
	}
}

int tune_fit_finish(const struct tune_fit *f, struct sim_config *cfg, bool keep_link,
		    bool keep_queues, bool keep_traffic, struct tune_fitted *out,
		    struct bql_err *e)
{
	unsigned int i;
	uint64_t gap;

	memset(out, 0, sizeof(*out));
	if (f->err)
		return bql_err_set(e, -f->err, "fitting the trace: %s", strerror(-f->err));
	if (!f->c_size.n)
		return bql_err_set(e, EINVAL, "the trace has no completion (C record) to fit");
	fit_measure(f, out);
	if (out->completions < TUNE_FIT_MIN_COMPLETIONS)
		out->misfit |= TUNE_MISFIT_FEW;
	/* the link: the counted bytes' rate, on the wire */
	if (out->link_ok)
		out->link_bps = (uint64_t)llround((double)out->link_bps * fit_wire_factor(cfg, out));
	if (!keep_link) {
		if (out->link_ok && (out->link_bps < SIM_LINK_MIN || out->link_bps > SIM_LINK_MAX))
			out->misfit |= TUNE_MISFIT_RANGE;
		if (out->link_ok) {
			cfg->link_bps = clamp_link(out->link_bps);
		} else {
			out->misfit |= TUNE_MISFIT_NEVER_BUSY;
			cfg->link_bps = common_rate(out->offered_bps);
			out->link_assumed = true;
		}
	}
	out->load = out->offered_bps / (double)cfg->link_bps;
	if (out->load > 1.05)
		out->misfit |= TUNE_MISFIT_OVERLOAD;
	/*
	 * Coalescing: a busy window is the coalescing time plus the IRQ
	 * latency (the model's; the trace cannot tell them apart).
	 */
	out->irq_latency_ns = cfg->irq_latency_ns;
	/*
	 * Without busy windows the intervals follow the arrivals, and the
	 * coalescing time is a floor under them: the 1st percentile (the
	 * 10th on fewer than 100 intervals).
	 */
	gap = out->busy_intervals >= TUNE_FIT_MIN_BUSY ? out->busy_gap_p50_ns :
	      f->c_gap.n >= 100 ? out->gap_p01_ns : out->gap_p10_ns;
	out->coalesce_usecs = gap > cfg->irq_latency_ns ?
			      (unsigned int)((gap - cfg->irq_latency_ns + 500) / 1000) : 0;
	if (out->coalesce_usecs > 1000000)
		out->coalesce_usecs = 1000000;
	cfg->coalesce_usecs = out->coalesce_usecs;
	cfg->coalesce_frames = 0;
	if (dql_hz_valid(f->hz))
		cfg->hz = f->hz;
	if (!keep_queues)
		cfg->nqueues = !f->nq ? 1 : f->nq > SIM_MAX_QUEUES ? SIM_MAX_QUEUES : f->nq;
	out->folded = f->nq > cfg->nqueues;
	out->bulk = out->active && out->busy_queues >= out->active;
	if (!keep_traffic) {
		struct sim_size sz = fit_size(out);
		uint64_t qb[SIM_MAX_QUEUES] = { 0 };
		bool busy[SIM_MAX_QUEUES] = { false };
		/* the one trace queue a model queue carries, -1: none, -2: several */
		int src[SIM_MAX_QUEUES];
		double duty[SIM_MAX_FLOWS] = { 0 }, pkt_ns[SIM_MAX_FLOWS] = { 0 };

		for (i = 0; i < SIM_MAX_QUEUES; i++)
			src[i] = -1;
		/* each model queue carries its trace queues' bytes */
		for (i = 0; i < f->nq; i++) {
			uint64_t b = fq_queued(&f->q[i]);
			unsigned int m = i % cfg->nqueues;

			qb[m] += b;
			if (b)
				src[m] = src[m] == -1 ? (int)i : -2;
			if ((double)f->q[i].busy_ns >= 0.8 * (double)out->duration_ns)
				busy[m] = true;
		}
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
			if (busy[i]) {
				fl->kind = SIM_T_BULK;
			} else if (src[i] >= 0 &&
				   fit_onoff(&f->q[src[i]], b, (double)out->batch_p50, out->pkt_mean,
					     out->duration_ns, cfg->link_bps, fl,
					     &duty[cfg->nflows - 1], &pkt_ns[cfg->nflows - 1])) {
				out->bursty++;
			} else {
				double bps = (double)b * 8e9 / (double)out->duration_ns;

				/*
				 * Below the simulator's 1 bit/s (a few packets over
				 * centuries): no model of it sends a packet while it is
				 * checked; say so rather than raise it to 1 bit/s
				 */
				if (bps < 0.5)
					return bql_err_set(e, ERANGE, "model queue %u: the fitted rate, %.3g bit/s (%" PRIu64
							   " bytes over the trace's %.3g s), is below the simulator's 1 bit/s",
							   i, bps, b, (double)out->duration_ns / 1e9);
				fl->kind = SIM_T_POISSON;
				fl->rate_bps = (uint64_t)llround(bps);
				if (fl->rate_bps > cfg->link_bps)
					fl->rate_bps = cfg->link_bps;
			}
		}
		fit_periods(cfg, duty, pkt_ns);
		if (!cfg->nflows) {
			memset(&cfg->flows[0], 0, sizeof(cfg->flows[0]));
			cfg->flows[0].kind = SIM_T_BULK;
			cfg->flows[0].size = sz;
			cfg->nflows = 1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------ goodness of fit */

struct check_run {
	struct replay r;
	struct tune_fit f;
	char names[SIM_MAX_QUEUES][8];
	unsigned int hz;
	uint64_t line;
	int err;
	struct bql_err e;
};

static void check_event(void *arg, const struct replay_event *ev)
{
	struct check_run *p = arg;

	tune_fit_event(&p->f, ev, p->hz);
}

static void check_record(void *arg, const struct sim_rec *r)
{
	struct check_run *p = arg;
	struct bqlt_rec rec;

	if (p->err)
		return;
	sim_rec_to_bqlt(r, p->names[r->queue], p->hz, ++p->line, &rec);
	p->err = replay_feed(&p->r, &rec, &p->e);
}

static double rel_err(double model, double trace)
{
	if (trace <= 0)
		return model <= 0 ? 0 : 1;
	return fabs(model - trace) / trace;
}

/* @model within a factor @f of @trace, either way (both 0: within) */
static bool within_factor(double model, double trace, double f)
{
	if (trace <= 0 || model <= 0)
		return trace <= 0 && model <= 0;
	return model <= f * trace && trace <= f * model;
}

static bool has_onoff(const struct sim_config *cfg)
{
	for (unsigned int i = 0; i < cfg->nflows; i++)
		if (cfg->flows[i].kind == SIM_T_ONOFF)
			return true;
	return false;
}

/* simulate @cfg for @dur, measure its records as the trace's were into @m */
static int sim_measure(const struct sim_config *cfg, uint64_t dur, struct tune_fitted *m,
		       struct bql_err *err)
{
	static const struct replay_ops rops = {
		.event = check_event, .event_kinds = (1u << BQLT_Q) | (1u << BQLT_C),
	};
	static const struct sim_ops ops = { .record = check_record };
	struct sim_config c = *cfg, scratch;
	struct check_run *p;
	struct replay_opts ro;
	struct bql_err e = { 0, "" };
	struct sim *s;
	int ret;

	c.duration_ns = dur;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->hz = c.hz;
	replay_opts_init(&ro);
	ro.kflags = c.kflags;
	ret = replay_init(&p->r, &ro, &rops, p);
	if (ret) {
		free(p);
		return ret < 0 ? ret : -ret;
	}
	tune_fit_init(&p->f);
	for (unsigned int i = 0; i < c.nqueues && !ret; i++) {
		struct bqlt_rec rec;

		/* "q0".."q63", without stdio */
		p->names[i][0] = 'q';
		p->names[i][1] = (char)(i >= 10 ? '0' + i / 10 : '0' + i);
		p->names[i][2] = (char)(i >= 10 ? '0' + i % 10 : '\0');
		p->names[i][3] = '\0';
		sim_queue_to_bqlt(&c, i, p->names[i], 0, &rec);
		ret = replay_feed(&p->r, &rec, &p->e);
	}
	if (!ret)
		ret = sim_new(&s, &c, &e);
	if (!ret) {
		sim_run(s, &ops, p);
		sim_free(s);
		ret = p->err ? p->err : p->f.err;
	}
	if (!ret) {
		scratch = c;
		ret = tune_fit_finish(&p->f, &scratch, true, true, true, m, &e);
		if (ret && !p->f.c_cum) {	/* about the model's run, not the trace */
			unsigned int slow = 0;

			for (unsigned int i = 1; i < c.nflows; i++)
				if (c.flows[i].kind != SIM_T_BULK &&
				    (c.flows[slow].kind == SIM_T_BULK ||
				     c.flows[i].rate_bps < c.flows[slow].rate_bps))
					slow = i;
			bql_err_set(&e, ERANGE, "simulated for %.3g s, the model completes no packet: its traffic is too slow (flow %u: %" PRIu64
				    " bit/s, a %.0f-byte packet every %.3g s)", (double)dur / 1e9, slow,
				    c.flows[slow].rate_bps, sim_size_mean(&c.flows[slow].size),
				    sim_size_mean(&c.flows[slow].size) * 8 /
				    (double)(c.flows[slow].rate_bps ? c.flows[slow].rate_bps : 1));
		}
	}
	/*
	 * On/off flows: the run is whole periods, so its mean rate is over
	 * all of it; from the first to the last completion it would leave out
	 * the last silence, one period in the few of a short run (the trace
	 * spans many)
	 */
	if (!ret && has_onoff(&c))
		m->completed_bps = (double)p->f.c_cum * 8e9 / (double)dur;
	if (ret && err)	/* what was out of range, in the words of whoever found it */
		*err = p->err ? p->e : e;
	tune_fit_free(&p->f);
	replay_free(&p->r);
	free(p);
	return ret < 0 ? ret : -ret;
}

static bool both_busy(const struct tune_fitted *a, const struct tune_fitted *b)
{
	return a->busy_intervals >= TUNE_FIT_MIN_BUSY && b->busy_intervals >= TUNE_FIT_MIN_BUSY;
}

int tune_fit_check(struct sim_config *cfg, bool calibrate, struct tune_fitted *tr,
		   struct tune_gof *g, struct bql_err *e)
{
	uint64_t dur = tr->duration_ns;
	bool busy;
	int ret;

	memset(g, 0, sizeof(*g));
	if (dur < 10000000ull)
		dur = 10000000ull;
	if (dur > TUNE_FIT_CHECK_MAX_NS)
		dur = TUNE_FIT_CHECK_MAX_NS;
	dur = tune_whole_periods(cfg, dur);
	for (int round = 0;; round++) {
		int64_t d;
		long us;

		ret = sim_measure(cfg, dur, &g->model, e);
		if (ret)
			return ret;
		if (!calibrate || round == TUNE_FIT_ROUNDS || !both_busy(tr, &g->model))
			break;
		/*
		 * The interval of a busy window is the coalescing time plus
		 * the latency plus the wait for the first packet to finish
		 * after the poll: move the coalescing time by what differs.
		 */
		d = (int64_t)tr->busy_gap_p50_ns - (int64_t)g->model.busy_gap_p50_ns;
		if (llabs(d) <= 1000 || (double)llabs(d) <= 0.02 * (double)tr->busy_gap_p50_ns)
			break;
		us = (long)cfg->coalesce_usecs + (long)llround((double)d / 1000);
		if (us < 0)
			us = 0;
		if ((unsigned long)us == cfg->coalesce_usecs)
			break;
		cfg->coalesce_usecs = (unsigned int)(us > 1000000 ? 1000000 : us);
		tr->coalesce_usecs = cfg->coalesce_usecs;
	}
	busy = both_busy(tr, &g->model);
	g->interval_err = busy ? rel_err((double)g->model.busy_gap_p50_ns, (double)tr->busy_gap_p50_ns)
			       : rel_err((double)g->model.gap_p50_ns, (double)tr->gap_p50_ns);
	g->batch_err = busy ? rel_err((double)g->model.busy_batch_p50, (double)tr->busy_batch_p50)
			    : rel_err((double)g->model.batch_p50, (double)tr->batch_p50);
	g->throughput_err = rel_err(g->model.completed_bps, tr->completed_bps);
	g->limit_err = rel_err(g->model.limit_mean, tr->limit_mean);
	/*
	 * The limit within a factor of two either way: a model whose limit
	 * stays far below the trace's (149 B against 1.64 KiB) does not fit
	 * any more than one far above it.
	 */
	g->ok = g->interval_err <= TUNE_GOF_TOL && g->batch_err <= TUNE_GOF_TOL &&
		g->throughput_err <= TUNE_GOF_TOL &&
		within_factor(g->model.limit_mean, tr->limit_mean, 2.0);
	if (!g->ok)
		tr->misfit |= TUNE_MISFIT_SIM;
	return 0;
}
