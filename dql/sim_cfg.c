// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulator's configuration (defaults, the checks the kernel's sysfs
 * would make, flow to queue hashing), its delay histograms, and its records
 * as bqltrace records. See sim.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim.h"
#include "sim_rng.h"
#include "dql_util.h"		/* last: poisons the I/O functions */

#define NS_PER_SEC	1000000000ull

/* ------------------------------------------------------------ histogram */

/* the largest value of bucket @i */
static uint64_t hist_upper(unsigned int i)
{
	unsigned int e, sub;

	if (i < SIM_HIST_SUB)
		return i;
	e = i / SIM_HIST_SUB + SIM_HIST_SUB_BITS - 1;
	sub = i % SIM_HIST_SUB;
	if (e == 63 && sub == SIM_HIST_SUB - 1)
		return UINT64_MAX;
	return (((uint64_t)SIM_HIST_SUB + sub + 1) << (e - SIM_HIST_SUB_BITS)) - 1;
}

void sim_hist_add(struct sim_hist *h, uint64_t v)
{
	sim_hist_count(&h->n, &h->max, &h->sum, h->b, v);
}

void sim_hist_merge(struct sim_hist *dst, const struct sim_hist *src)
{
	dst->n += src->n;
	dst->sum += src->sum;
	if (src->max > dst->max)
		dst->max = src->max;
	if (!src->n)
		return;
	/*
	 * No bucket above the maximum's has a count: the buckets above it
	 * are not read (most of a histogram's 30 KiB are never touched, and
	 * reading them would fault in its pages, 16 ms on 64 queues)
	 */
	for (unsigned int i = 0, top = sim_hist_idx(src->max); i <= top; i++)
		dst->b[i] += src->b[i];
}

uint64_t sim_hist_quantile(const struct sim_hist *h, double q)
{
	uint64_t rank, cum = 0;
	double r;

	if (!h->n)
		return 0;
	r = ceil(q * (double)h->n);
	rank = r < 1 ? 1 : r > (double)h->n ? h->n : (uint64_t)r;
	for (unsigned int i = 0; i < SIM_HIST_BUCKETS; i++) {
		cum += h->b[i];
		if (cum >= rank) {
			uint64_t u = hist_upper(i);

			return u < h->max ? u : h->max;
		}
	}
	return h->max;
}

/* ------------------------------------------------------------ config */

void sim_config_init(struct sim_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->link_bps = 1000000000ull;
	cfg->nqueues = 1;
	cfg->qlen = 1000;
	cfg->ring = 256;
	cfg->coalesce_usecs = 50;
	cfg->coalesce_frames = 0;
	cfg->napi_budget = 256;
	cfg->irq_latency_ns = 5000;
	cfg->irq_jitter_ns = 0;
	cfg->hz = 250;
	cfg->kflags = DQL_K_NEWEST;
	cfg->duration_ns = NS_PER_SEC;
	cfg->seed = 1;
	cfg->nflows = 1;
	cfg->flows[0].kind = SIM_T_BULK;
	cfg->flows[0].size.kind = SIM_SIZE_FIXED;
	cfg->flows[0].size.a = 1514;
	cfg->frag_size = SIM_FRAG_SIZE;
}

static int check_size(const struct sim_size *sz, unsigned int f,
		      struct bql_err *e)
{
	switch (sz->kind) {
	case SIM_SIZE_FIXED:
	case SIM_SIZE_TSO:
		if (sz->a < 1 || sz->a > SIM_PKT_MAX)
			return bql_err_set(e, EINVAL, "--size: flow %u: %" PRIu32
					   " bytes: expected 1..%u", f, sz->a, SIM_PKT_MAX);
		if (sz->kind == SIM_SIZE_TSO && sz->b && (sz->b < 88 || sz->b > SIM_PKT_MAX))
			return bql_err_set(e, EINVAL, "--size: flow %u: MSS %" PRIu32
					   ": expected 88..%u", f, sz->b, SIM_PKT_MAX);
		return 0;
	case SIM_SIZE_UNIFORM:
	case SIM_SIZE_BIMODAL:
		if (sz->a < 1 || sz->a > SIM_PKT_MAX || sz->b < 1 || sz->b > SIM_PKT_MAX)
			return bql_err_set(e, EINVAL, "--size: flow %u: sizes %" PRIu32 " and %"
					   PRIu32 ": expected 1..%u", f, sz->a, sz->b, SIM_PKT_MAX);
		if (sz->kind == SIM_SIZE_UNIFORM && sz->a > sz->b)
			return bql_err_set(e, EINVAL, "--size: flow %u: uniform:%" PRIu32 ":%"
					   PRIu32 ": A must not exceed B", f, sz->a, sz->b);
		if (sz->kind == SIM_SIZE_BIMODAL && !(sz->p >= 0 && sz->p <= 1))
			return bql_err_set(e, EINVAL, "--size: flow %u: probability %g: expected 0..1",
					   f, sz->p);
		return 0;
	case SIM_SIZE_IMIX:
		return 0;
	}
	return bql_err_set(e, EINVAL, "--size: flow %u: unknown kind", f);
}

/* the kernel's sysfs store for @kv on a scratch queue */
static int check_kv(const struct sim_kv *kv, unsigned int hz, const char *what,
		    struct bql_err *e)
{
	struct dql d;

	dql_init(&d, hz, DQL_K_NEWEST, 0);
	switch (kv->key) {
	case BQLT_K_LIMIT_MIN:
	case BQLT_K_LIMIT_MAX:
		if (kv->val > DQL_MAX_LIMIT)
			return bql_err_set(e, ERANGE, "%s %s=%" PRIu64
					   ": above the kernel's maximum %u",
					   what, bqlt_key_name(kv->key), kv->val,
					   (unsigned int)DQL_MAX_LIMIT);
		return 0;
	case BQLT_K_HOLD_TIME:
		if (dql_store_hold_time_ms(&d, kv->val, hz))
			return bql_err_set(e, ERANGE, "%s hold_time=%" PRIu64
					   ": above the kernel's maximum %u ms",
					   what, kv->val, UINT32_MAX);
		return 0;
	case BQLT_K_STALL_THRS:
		if (dql_store_stall_thrs_ms(&d, kv->val, hz, 0))
			return bql_err_set(e, ERANGE, "%s stall_thrs=%" PRIu64
					   ": %" PRIu64 " jiffies at HZ %u, outside the kernel's window %u..%u",
					   what, kv->val,
					   (uint64_t)(uint32_t)dql_msecs_to_jiffies(kv->val, hz),
					   hz, DQL_STALL_THRS_MIN, DQL_STALL_THRS_MAX);
		return 0;
	default:
		return bql_err_set(e, EINVAL, "%s: %s: not a setting (limit_min, limit_max, hold_time, stall_thrs)",
				   what, bqlt_key_name(kv->key));
	}
}

int sim_config_check(const struct sim_config *cfg, struct bql_err *e)
{
	unsigned int i;
	int ret;

	if (cfg->link_bps < SIM_LINK_MIN || cfg->link_bps > SIM_LINK_MAX)
		return bql_err_set(e, EINVAL, "--link: %" PRIu64 " bit/s: expected 10M..400G",
				   cfg->link_bps);
	if (cfg->nqueues < 1 || cfg->nqueues > SIM_MAX_QUEUES)
		return bql_err_set(e, EINVAL, "--queues: %u: expected 1..%u", cfg->nqueues,
				   SIM_MAX_QUEUES);
	if (cfg->qlen < 1 || cfg->qlen > SIM_QLEN_MAX)
		return bql_err_set(e, EINVAL, "--qlen: %u: expected 1..%u", cfg->qlen, SIM_QLEN_MAX);
	if (cfg->ring < 1 || cfg->ring > SIM_RING_MAX)
		return bql_err_set(e, EINVAL, "--ring: %u: expected 1..%u", cfg->ring, SIM_RING_MAX);
	if (cfg->frag_size && (cfg->frag_size < SIM_FRAG_MIN || cfg->frag_size > SIM_PKT_MAX))
		return bql_err_set(e, EINVAL, "--frag-size: %u: expected %u..%u", cfg->frag_size,
				   SIM_FRAG_MIN, SIM_PKT_MAX);
	if (cfg->coalesce_usecs > 1000000)
		return bql_err_set(e, EINVAL, "--coalesce-usecs: %u: expected 0..1000000",
				   cfg->coalesce_usecs);
	if (cfg->napi_budget < 1 || cfg->napi_budget > SIM_RING_MAX)
		return bql_err_set(e, EINVAL, "--napi-budget: %u: expected 1..%u",
				   cfg->napi_budget, SIM_RING_MAX);
	if (cfg->irq_latency_ns > SIM_IRQ_LAT_MAX || cfg->irq_jitter_ns > SIM_IRQ_LAT_MAX)
		return bql_err_set(e, EINVAL, "--irq-latency: at most 1 s");
	if (!dql_hz_valid(cfg->hz))
		return bql_err_set(e, EINVAL, "--hz: %u: expected %u..%u", cfg->hz,
				   DQL_HZ_MIN, DQL_HZ_MAX);
	if (!cfg->duration_ns || cfg->duration_ns > SIM_DURATION_MAX)
		return bql_err_set(e, EINVAL, "--duration: %" PRIu64 " ns: expected more than 0, at most 1 h",
				   cfg->duration_ns);
	if (cfg->nflows < 1 || cfg->nflows > SIM_MAX_FLOWS)
		return bql_err_set(e, EINVAL, "--traffic: %u flows: expected 1..%u", cfg->nflows,
				   SIM_MAX_FLOWS);
	for (i = 0; i < cfg->nflows; i++) {
		const struct sim_flow *f = &cfg->flows[i];

		if (f->kind != SIM_T_BULK && (f->rate_bps < 1 || f->rate_bps > SIM_LINK_MAX))
			return bql_err_set(e, EINVAL, "--traffic: flow %u: rate %" PRIu64
					   " bit/s: expected 1..400G", i, f->rate_bps);
		if (f->kind == SIM_T_ONOFF && (!f->on_ns || f->on_ns > SIM_DURATION_MAX ||
					       f->off_ns > SIM_DURATION_MAX))
			return bql_err_set(e, EINVAL, "--traffic: flow %u: on/off times must be positive, at most 1 h",
					   i);
		if (f->pinned && f->queue >= cfg->nqueues)
			return bql_err_set(e, EINVAL, "--traffic: flow %u pinned to queue %u (@%u), but --queues is %u",
					   i, f->queue, f->queue, cfg->nqueues);
		ret = check_size(&f->size, i, e);
		if (ret)
			return ret;
		if (sim_descs(cfg, sim_size_max(&f->size)) > cfg->ring)
			return bql_err_set(e, EINVAL, "--ring: %u descriptors cannot hold flow %u's %"
					   PRIu32 "-byte packet (%" PRIu32 " descriptors at --frag-size %u)",
					   cfg->ring, i, sim_size_max(&f->size),
					   sim_descs(cfg, sim_size_max(&f->size)),
					   cfg->frag_size ? cfg->frag_size : SIM_FRAG_SIZE);
	}
	if (cfg->nset > SIM_MAX_SET || cfg->nat > SIM_MAX_AT || cfg->nstalls > SIM_MAX_STALLS)
		return bql_err_set(e, EINVAL, "too many --set, --at or --stall options");
	for (i = 0; i < cfg->nset; i++) {
		ret = check_kv(&cfg->set[i], cfg->hz, "--set", e);
		if (ret)
			return ret;
	}
	for (i = 0; i < cfg->nat; i++) {
		ret = check_kv(&cfg->at[i].kv, cfg->hz, "--at", e);
		if (ret)
			return ret;
	}
	for (i = 0; i < cfg->nstalls; i++)
		if (!cfg->stalls[i].len_ns || cfg->stalls[i].len_ns > SIM_DURATION_MAX)
			return bql_err_set(e, EINVAL, "--stall: duration must be positive, at most 1 h");
	return 0;
}

/*
 * Flows not pinned are spread as a balanced RSS indirection table spreads
 * them: each goes, in index order, to a queue with the fewest flows so far
 * (pinned ones counted), ties broken by an order of the queues that the
 * seed shuffles. N flows on N queues leave none idle, whatever the seed,
 * and which flow lands where still depends on the seed.
 */
unsigned int sim_flow_queue(const struct sim_config *cfg, unsigned int flow)
{
	unsigned int nq = cfg->nqueues, order[SIM_MAX_QUEUES], load[SIM_MAX_QUEUES] = { 0 };
	unsigned int nf = cfg->nflows < SIM_MAX_FLOWS ? cfg->nflows : SIM_MAX_FLOWS;
	uint64_t x = cfg->seed;

	if (cfg->flows[flow].pinned)
		return cfg->flows[flow].queue;
	if (nq <= 1)
		return 0;
	if (nq > SIM_MAX_QUEUES)
		nq = SIM_MAX_QUEUES;
	for (unsigned int i = 0; i < nq; i++)
		order[i] = i;
	for (unsigned int i = nq - 1; i > 0; i--) {	/* Fisher-Yates */
		unsigned int j = (unsigned int)(splitmix64(&x) % (i + 1)), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (unsigned int i = 0; i < nf; i++)
		if (cfg->flows[i].pinned && cfg->flows[i].queue < nq)
			load[cfg->flows[i].queue]++;
	for (unsigned int i = 0; i < nf && i <= flow; i++) {
		unsigned int best = order[0];

		if (cfg->flows[i].pinned)
			continue;
		for (unsigned int k = 1; k < nq; k++)
			if (load[order[k]] < load[best])
				best = order[k];
		if (i == flow)
			return best;
		load[best]++;
	}
	return order[0];	/* @flow past SIM_MAX_FLOWS: not simulated */
}

/* ------------------------------------------------------------ work */

double sim_size_mean(const struct sim_size *sz)
{
	switch (sz->kind) {
	case SIM_SIZE_UNIFORM:
		return ((double)sz->a + sz->b) / 2;
	case SIM_SIZE_IMIX:
		return (7.0 * 60 + 4.0 * 590 + 1514) / 12;
	case SIM_SIZE_BIMODAL:
		return sz->p * sz->a + (1 - sz->p) * sz->b;
	case SIM_SIZE_FIXED:
	case SIM_SIZE_TSO:
	default:
		return sz->a;
	}
}

uint32_t sim_size_max(const struct sim_size *sz)
{
	switch (sz->kind) {
	case SIM_SIZE_UNIFORM:
		return sz->b;
	case SIM_SIZE_IMIX:
		return 1514;
	case SIM_SIZE_BIMODAL:
		return sz->a > sz->b ? sz->a : sz->b;
	case SIM_SIZE_FIXED:
	case SIM_SIZE_TSO:
	default:
		return sz->a;
	}
}

uint32_t sim_segments(const struct sim_size *sz, uint32_t len)
{
	uint32_t mss = sim_size_mss(sz);

	if (sz->kind != SIM_SIZE_TSO || len <= SIM_TSO_HDR + mss)
		return 1;
	return (len - SIM_TSO_HDR + mss - 1) / mss;
}

uint32_t sim_wire_bytes(const struct sim_config *cfg, const struct sim_size *sz, uint32_t len)
{
	uint32_t n;

	if (cfg->no_framing)
		return len;
	n = sim_segments(sz, len);
	if (n == 1)
		return (len < SIM_FRAME_MIN ? SIM_FRAME_MIN : len) + SIM_FRAME_OVERHEAD;
	/* every segment's frame is its headers, its payload and the overhead */
	return len - SIM_TSO_HDR + n * (SIM_TSO_HDR + SIM_FRAME_OVERHEAD);
}

/*
 * The mean time a packet of @sz holds the link, in byte-times; for mixed
 * sizes at most the true mean (padding short frames only adds), so the
 * packet count it gives is an upper bound.
 */
static double wire_mean(const struct sim_config *cfg, const struct sim_size *sz)
{
	double m = sim_size_mean(sz);

	if (sz->kind == SIM_SIZE_TSO || sz->kind == SIM_SIZE_FIXED)
		return sim_wire_bytes(cfg, sz, sz->a);
	if (cfg->no_framing)
		return m;
	return (m < SIM_FRAME_MIN ? SIM_FRAME_MIN : m) + SIM_FRAME_OVERHEAD;
}

static uint64_t sat(double v)
{
	return v >= 1.8e19 ? UINT64_MAX : v <= 0 ? 0 : (uint64_t)v;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void sim_work_count(const struct sim_config *cfg, struct sim_work *w)
{
	double dur = (double)cfg->duration_ns / 1e9, wmin = 0, pkts, arr = 0, per = 0;
	double tpkt, cycle, irqs, polls;
	bool bulk = false;

	memset(w, 0, sizeof(*w));
	for (unsigned int i = 0; i < cfg->nflows && i < SIM_MAX_FLOWS; i++) {
		const struct sim_flow *f = &cfg->flows[i];
		double wb = wire_mean(cfg, &f->size);

		if (wb < 1)
			wb = 1;
		if (!wmin || wb < wmin)
			wmin = wb;
		if (f->kind == SIM_T_BULK) {
			bulk = true;
			continue;
		}
		/* offered packets, sent or dropped: each is an event */
		arr += (double)f->rate_bps * dur / (8 * fmax(sim_size_mean(&f->size), 1));
		if (f->kind == SIM_T_ONOFF)
			per += (double)cfg->duration_ns / (double)(f->on_ns + f->off_ns);
	}
	if (!wmin)
		wmin = 1;
	pkts = (double)cfg->link_bps * dur / (8 * wmin);
	if (!bulk && arr < pkts)
		pkts = arr;
	/*
	 * An interrupt per completed packet at most; per queue, one per
	 * cycle of coalescing (or the frames that end it sooner) and IRQ
	 * latency, the time it stays masked.
	 */
	tpkt = 8 * wmin * 1e9 / (double)cfg->link_bps;
	cycle = (double)cfg->coalesce_usecs * 1000;
	if (cfg->coalesce_frames && cfg->coalesce_frames * tpkt < cycle)
		cycle = cfg->coalesce_frames * tpkt;
	if (!cfg->coalesce_usecs)
		cycle = 0;
	cycle += (double)(cfg->irq_latency_ns > cfg->irq_jitter_ns ?
			  cfg->irq_latency_ns - cfg->irq_jitter_ns : 0);
	irqs = pkts;
	if (cycle > 0 && cfg->nqueues * ((double)cfg->duration_ns / cycle + 1) < irqs)
		irqs = cfg->nqueues * ((double)cfg->duration_ns / cycle + 1);
	polls = irqs + pkts / (cfg->napi_budget ? cfg->napi_budget : 1);
	w->arrivals = sat(arr);
	w->packets = sat(pkts);
	w->irqs = sat(irqs);
	w->polls = sat(polls);
	w->periods = sat(per);
	w->total = sat_add(sat_add(sat_add(w->arrivals, w->packets), sat_add(w->irqs, w->polls)),
			   sat_add(w->periods, cfg->nat));
}

uint64_t sim_work_estimate(const struct sim_config *cfg)
{
	struct sim_work w;

	sim_work_count(cfg, &w);
	return w.total;
}

/* ------------------------------------------------------------ warnings */

char *sim_fmt_ns(char *buf, size_t n, uint64_t ns)
{
	static const char *const unit[] = { "us", "ms", "s" };
	static const double div[] = { 1e3, 1e6, 1e9 };

	if (ns < 1000) {
		snprintf(buf, n, "%" PRIu64 " ns", ns);
		return buf;
	}
	for (unsigned int i = 0; i < 3; i++) {
		double v = (double)ns / div[i];

		/* %.3g prints 999.5 and above as 1e+03: the next unit then */
		if (v < 999.5 || i == 2) {
			snprintf(buf, n, v < 999.5 ? "%.3g %s" : "%.0f %s", v, unit[i]);
			break;
		}
	}
	return buf;
}

/* the ring-bound warning into @w, if the model is; whether it is */
static bool ring_bound(const struct sim_config *cfg, struct sim_warning *w)
{
	double ns_per_byte = 8e9 / (double)cfg->link_bps, ring_ns = 0, pkt_ns = 0;
	double cycle, coal = (double)cfg->coalesce_usecs * 1000, offered = 0, cap;
	bool used[SIM_MAX_QUEUES] = { false }, bulk = false;
	unsigned int nact = 0, ring_pkts = 0;
	uint32_t pkt_len = 0;
	char t_ring[32], t_cycle[32];

	for (unsigned int i = 0; i < cfg->nflows && i < SIM_MAX_FLOWS; i++) {
		const struct sim_flow *f = &cfg->flows[i];
		unsigned int q = sim_flow_queue(cfg, i);
		double mean = sim_size_mean(&f->size), wire = wire_mean(cfg, &f->size);
		uint32_t len = (uint32_t)llround(mean);
		unsigned int pk = cfg->ring / sim_descs(cfg, len ? len : 1);

		if (q < SIM_MAX_QUEUES && !used[q]) {
			used[q] = true;
			nact++;
		}
		/* the flow whose packets fill a ring with the most time */
		if (pk * wire * ns_per_byte > ring_ns) {
			ring_ns = pk * wire * ns_per_byte;
			pkt_ns = wire * ns_per_byte;
			ring_pkts = pk;
			pkt_len = len;
		}
		if (f->kind == SIM_T_BULK)
			bulk = true;
		else
			offered += (double)f->rate_bps * wire / fmax(mean, 1);
	}
	/* round robin: each of the busy rings drains at its share of the link */
	ring_ns *= nact;
	cycle = coal;
	if (cfg->coalesce_frames && cfg->coalesce_frames * pkt_ns < cycle)
		cycle = cfg->coalesce_frames * pkt_ns;
	cycle += (double)cfg->irq_latency_ns;
	if (!nact || ring_ns >= cycle)
		return false;
	cap = (double)cfg->link_bps * ring_ns / cycle;
	if (!bulk && offered <= cap)
		return false;
	memset(w, 0, sizeof(*w));
	w->kind = SIM_WARN_RING_BOUND;
	w->ring_ns = (uint64_t)llround(ring_ns);
	w->cycle_ns = (uint64_t)llround(cycle);
	w->cap_bps = (uint64_t)llround(cap);
	w->offered_bps = bulk ? UINT64_MAX : (uint64_t)llround(offered);
	sim_fmt_ns(t_ring, sizeof(t_ring), w->ring_ns);
	sim_fmt_ns(t_cycle, sizeof(t_cycle), w->cycle_ns);
	snprintf(w->msg, sizeof(w->msg),
		 "the model is ring-bound: %u ring%s of %u descriptors hold%s %s of the "
		 "link (%u packets of %" PRIu32 " bytes each), less than the %s from a "
		 "completion to its poll (--coalesce-usecs, --irq-latency): the link carries "
		 "at most %.0f%% whatever BQL does; give a larger --ring or a smaller "
		 "--coalesce-usecs",
		 nact, nact == 1 ? "" : "s", cfg->ring, nact == 1 ? "s" : "", t_ring, ring_pkts,
		 pkt_len, t_cycle, 100 * cap / (double)cfg->link_bps);
	return true;
}

/*
 * @count of the --at (or, @stall, --stall) times, the earliest @first, at
 * or after the end of the run: the warning into @w
 */
static void after_end(const struct sim_config *cfg, bool stall, unsigned int count,
		      uint64_t first, struct sim_warning *w)
{
	char t_first[32], t_end[32];

	memset(w, 0, sizeof(*w));
	w->kind = SIM_WARN_AFTER_END;
	w->option = stall ? "--stall" : "--at";
	w->count = count;
	w->t_ns = first;
	w->end_ns = cfg->duration_ns;
	sim_fmt_ns(t_first, sizeof(t_first), first);
	sim_fmt_ns(t_end, sizeof(t_end), cfg->duration_ns);
	if (count == 1)
		snprintf(w->msg, sizeof(w->msg),
			 "%s %s is at or after the end of the run (--duration %s): the %s never %s; "
			 "give an earlier time or a longer --duration", w->option, t_first, t_end,
			 stall ? "stall" : "setting", stall ? "happens" : "applies");
	else
		snprintf(w->msg, sizeof(w->msg),
			 "%u %s times, the first %s, are at or after the end of the run "
			 "(--duration %s): those %s never %s; give earlier times or a longer --duration",
			 count, w->option, t_first, t_end, stall ? "stalls" : "settings",
			 stall ? "happen" : "apply");
}

/* a time @t at or after @end: counted in *@n, the least in *@first */
static void late(uint64_t t, uint64_t end, unsigned int *n, uint64_t *first)
{
	if (t < end)
		return;
	(*n)++;
	if (t < *first)
		*first = t;
}

unsigned int sim_model_warnings(const struct sim_config *cfg, struct sim_warning *w,
				unsigned int max)
{
	struct sim_warning tmp;
	unsigned int n = 0, nlate[2] = { 0, 0 };	/* --at, --stall */
	uint64_t first[2] = { UINT64_MAX, UINT64_MAX };

	/* each into w[n] while there is room, else only counted */
	if (ring_bound(cfg, n < max ? &w[n] : &tmp))
		n++;
	for (unsigned int i = 0; i < cfg->nat && i < SIM_MAX_AT; i++)
		late(cfg->at[i].t_ns, cfg->duration_ns, &nlate[0], &first[0]);
	for (unsigned int i = 0; i < cfg->nstalls && i < SIM_MAX_STALLS; i++)
		late(cfg->stalls[i].t_ns, cfg->duration_ns, &nlate[1], &first[1]);
	for (unsigned int k = 0; k < 2; k++) {
		if (nlate[k]) {
			after_end(cfg, k == 1, nlate[k], first[k], n < max ? &w[n] : &tmp);
			n++;
		}
	}
	return n;
}

/* ------------------------------------------------------------ records */

void sim_queue_to_bqlt(const struct sim_config *cfg, unsigned int q, const char *qname,
		       uint64_t line, struct bqlt_rec *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->kind = BQLT_QUEUE;
	rec->line = line;
	rec->hz = cfg->hz;
	rec->queue = q;
	rec->qname = qname;
	for (unsigned int k = 0; k < cfg->nset && k < BQLT_KV_MAX; k++) {
		rec->kv[k].key = cfg->set[k].key;
		rec->kv[k].val = cfg->set[k].val;
		rec->nkv++;
	}
}

void sim_rec_to_bqlt(const struct sim_rec *r, const char *qname, unsigned int hz,
		     uint64_t line, struct bqlt_rec *rec)
{
	rec->kind = r->kind;
	rec->has = r->kind == BQLT_C ? BQLT_HAS_LIMIT : 0;
	rec->line = line;
	rec->hz = hz;
	rec->queue = r->queue;
	rec->qname = qname;
	rec->t_ns = r->t_ns;
	rec->jiffies = r->jiffies;
	rec->bytes = r->bytes;
	rec->limit = r->limit;
	rec->nkv = 0;
	if (r->kind == BQLT_P) {
		rec->kv[0].key = r->kv.key;
		rec->kv[0].val = r->kv.val;
		rec->nkv = 1;
	}
}
