// SPDX-License-Identifier: GPL-2.0-only
/*
 * The search of `bqltool tune` (candidates, evaluation, choice). See
 * tune.h; the model fitted from a trace is in tune_fit.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"
#include "dql_util.h"		/* last: poisons the I/O functions */

#define NS_PER_SEC	1000000000ull
#define GRID		12		/* limit_max values of the sweep */

/* the sweep's hold times; 1000 ms with a cap only at the end (tune_hold_default): runs are 5 s */
static const uint32_t holds[] = { 100, 20 };
#define NHOLDS	(sizeof(holds) / sizeof(holds[0]))

void tune_defaults(struct tune_settings *s)
{
	s->limit_min = 0;
	s->limit_max = DQL_MAX_LIMIT;
	s->hold_time = 1000;
}

bool tune_is_default(const struct tune_settings *s)
{
	return !s->limit_min && s->limit_max == DQL_MAX_LIMIT && s->hold_time == 1000;
}

static bool same(const struct tune_settings *a, const struct tune_settings *b)
{
	return a->limit_min == b->limit_min && a->limit_max == b->limit_max &&
	       a->hold_time == b->hold_time;
}

void tune_eval(const struct sim_config *cfg, const struct tune_settings *s,
	       struct tune_result *r)
{
	struct sim_config c = *cfg;
	struct sim_totals t;
	struct bql_err e;
	struct sim *sim;
	unsigned int i, n = 0, nc = 0;
	double msum = 0;

	memset(r, 0, sizeof(*r));
	r->set = *s;
	r->fail_member = -1;
	/* the searched keys replace the model's; stall_thrs and others stay */
	for (i = 0; i < c.nset; i++)
		if (c.set[i].key != BQLT_K_LIMIT_MIN && c.set[i].key != BQLT_K_LIMIT_MAX &&
		    c.set[i].key != BQLT_K_HOLD_TIME)
			c.set[n++] = c.set[i];
	if (n + 3 > SIM_MAX_SET) {
		r->err = -E2BIG;
		return;
	}
	c.set[n++] = (struct sim_kv){ BQLT_K_LIMIT_MIN, s->limit_min };
	c.set[n++] = (struct sim_kv){ BQLT_K_LIMIT_MAX, s->limit_max };
	c.set[n++] = (struct sim_kv){ BQLT_K_HOLD_TIME, s->hold_time };
	c.nset = n;
	r->err = sim_new(&sim, &c, &e);
	if (r->err)
		return;
	sim_run(sim, NULL, NULL);
	sim_get_totals(sim, &t);
	r->bytes_tx = t.bytes_tx;
	r->throughput_bps = t.throughput_bps;
	r->p50 = sim_hist_quantile(t.ring_delay, 0.50);
	r->p99 = sim_hist_quantile(t.ring_delay, 0.99);
	r->max = t.ring_delay->max;
	r->qdisc_p99 = sim_hist_quantile(t.qdisc_delay, 0.99);
	r->lat = r->worst_lat = r->p99;
	r->worst_ratio = 1;
	r->fail_member = -1;
	r->starved_ns = t.starved_ns;
	for (i = 0; i < c.nqueues; i++) {
		const struct sim_qstats *st = sim_queue_stats(sim, i);

		if (!st->completions)
			continue;
		if (st->limit_max > r->peak_limit)
			r->peak_limit = st->limit_max;
		msum += st->limit_mean;
		nc++;
	}
	n = nc;
	r->mean_limit = n ? msum / n : 0;
	sim_free(sim);
}

uint64_t tune_latency(const struct tune_result *r, enum tune_qdisc q)
{
	return q == TUNE_QDISC_FIFO ? r->qdisc_p99 + r->p99 : r->p99;
}

/* what the choice compares: over the ensemble if folded, else the run's p99 */
static uint64_t judged_lat(const struct tune_result *r)
{
	return r->members ? r->worst_lat : r->p99;
}

unsigned int tune_changes(const struct tune_settings *s)
{
	struct tune_settings d;

	tune_defaults(&d);
	return (s->limit_min != d.limit_min) + (s->limit_max != d.limit_max) +
	       (s->hold_time != d.hold_time);
}

/*
 * @a better than @b: lower latency judged; ties: fewer settings changed
 * from the defaults (a change that buys nothing is no advice), then the
 * higher worst-case throughput ratio, then the higher throughput (rates:
 * runs differ in length)
 */
static bool better(const struct tune_result *a, const struct tune_result *b)
{
	if (judged_lat(a) != judged_lat(b))
		return judged_lat(a) < judged_lat(b);
	if (tune_changes(&a->set) != tune_changes(&b->set))
		return tune_changes(&a->set) < tune_changes(&b->set);
	if (a->members && b->members && a->worst_ratio != b->worst_ratio)
		return a->worst_ratio > b->worst_ratio;
	if (a->throughput_bps != b->throughput_bps)
		return a->throughput_bps > b->throughput_bps;
	return a->bytes_tx > b->bytes_tx;
}

/* ------------------------------------------------------------ ensemble */

static bool rate_flow(const struct sim_flow *f)
{
	return f->kind != SIM_T_BULK;
}

unsigned int tune_busy_queues(const struct sim_config *cfg)
{
	bool seen[SIM_MAX_QUEUES] = { false };
	unsigned int n = 0;

	for (unsigned int f = 0; f < cfg->nflows; f++) {
		unsigned int q = sim_flow_queue(cfg, f);

		if (q < SIM_MAX_QUEUES && !seen[q]) {
			seen[q] = true;
			n++;
		}
	}
	return n;
}

static unsigned int member_add(struct tune_member *m, unsigned int n, unsigned int max,
			       const struct tune_member *v)
{
	if (n < max)
		m[n++] = *v;
	return n;
}

unsigned int tune_ensemble(const struct sim_config *cfg, uint64_t late_ns,
			   struct tune_member *m, unsigned int max)
{
	unsigned int n = 0, busy = tune_busy_queues(cfg), seed = 0;
	bool rates = false;

	for (unsigned int f = 0; f < cfg->nflows; f++)
		rates |= rate_flow(&cfg->flows[f]);
	/* the model itself, then the members most likely to starve the link */
	n = member_add(m, n, max, &(struct tune_member){ 0 });
	if (busy > 1)
		n = member_add(m, n, max, &(struct tune_member){ .busy = 1, .seed_add = ++seed });
	if (!late_ns)
		late_ns = TUNE_IRQ_LATE_NS;
	n = member_add(m, n, max, &(struct tune_member){ .irq_late_ns = late_ns,
		.irq_jitter_ns = late_ns / 2, .seed_add = ++seed, .throughput_only = true });
	if (busy >= 4)
		n = member_add(m, n, max, &(struct tune_member){ .busy = busy / 2,
			.seed_add = ++seed });
	if (rates) {
		n = member_add(m, n, max, &(struct tune_member){ .load_pct = TUNE_LOAD_PCT,
			.seed_add = ++seed });
		n = member_add(m, n, max, &(struct tune_member){ .load_pct = -TUNE_LOAD_PCT,
			.seed_add = ++seed });
	}
	/* another seed of the model */
	n = member_add(m, n, max, &(struct tune_member){ .seed_add = ++seed });
	return n;
}

uint64_t tune_whole_periods(const struct sim_config *cfg, uint64_t dur)
{
	uint64_t p = 0, n;

	for (unsigned int f = 0; f < cfg->nflows; f++) {
		const struct sim_flow *fl = &cfg->flows[f];

		if (fl->kind == SIM_T_ONOFF && fl->on_ns + fl->off_ns > p)
			p = fl->on_ns + fl->off_ns;
	}
	if (!p || !dur)
		return dur;
	n = dur / p + (dur % p != 0);
	return n <= SIM_DURATION_MAX / p ? n * p : dur;
}

void tune_member_cfg(const struct sim_config *cfg, const struct tune_member *m,
		     uint32_t hold_time, struct sim_config *out)
{
	uint64_t min_ns = (uint64_t)TUNE_HOLDS * hold_time * 1000000ull;

	*out = *cfg;
	out->seed = cfg->seed + m->seed_add;
	if (out->duration_ns < min_ns)
		out->duration_ns = min_ns < SIM_DURATION_MAX ? min_ns : SIM_DURATION_MAX;
	out->duration_ns = tune_whole_periods(cfg, out->duration_ns);
	out->irq_latency_ns += m->irq_late_ns;
	if (out->irq_latency_ns > SIM_IRQ_LAT_MAX)
		out->irq_latency_ns = SIM_IRQ_LAT_MAX;
	if (m->irq_jitter_ns > out->irq_jitter_ns)
		out->irq_jitter_ns = m->irq_jitter_ns;
	if (out->irq_jitter_ns > out->irq_latency_ns)
		out->irq_jitter_ns = out->irq_latency_ns;
	if (m->load_pct)
		for (unsigned int f = 0; f < out->nflows; f++) {
			struct sim_flow *fl = &out->flows[f];
			double r = (double)fl->rate_bps * (100.0 + m->load_pct) / 100.0;

			if (!rate_flow(fl))
				continue;
			/* a flow the simulator takes: 1 bit/s..400G */
			fl->rate_bps = r < 1 ? 1 : r > (double)SIM_LINK_MAX ? SIM_LINK_MAX : (uint64_t)llround(r);
		}
	if (m->busy) {
		/* keep the flows of the first @busy queues that carry any, in flow order */
		bool keep[SIM_MAX_QUEUES] = { false };
		unsigned int kept = 0, n = 0;

		for (unsigned int f = 0; f < out->nflows; f++) {
			unsigned int q = sim_flow_queue(out, f);

			if (q < SIM_MAX_QUEUES && !keep[q] && kept < m->busy) {
				keep[q] = true;
				kept++;
			}
		}
		for (unsigned int f = 0; f < out->nflows; f++) {
			unsigned int q = sim_flow_queue(out, f);

			if (q < SIM_MAX_QUEUES && keep[q]) {
				/* pinned where the hash put it in the model */
				out->flows[n] = out->flows[f];
				out->flows[n].pinned = true;
				out->flows[n].queue = q;
				n++;
			}
		}
		out->nflows = n;
	}
}

char *tune_member_fmt(char *buf, size_t n, const struct sim_config *cfg,
		      const struct tune_member *m)
{
	size_t k = 0;

	buf[0] = '\0';
#define PUT(...) do { \
		int w = snprintf(buf + k, n > k ? n - k : 0, __VA_ARGS__); \
		if (w > 0) \
			k += (size_t)w; \
	} while (0)
	if (m->irq_late_ns)
		PUT("%sinterrupts %" PRIu64 " us later, +-%" PRIu64 " us", k ? ", " : "",
		    m->irq_late_ns / 1000, m->irq_jitter_ns / 1000);
	if (m->busy)
		PUT("%straffic on %u of the %u queues that carry it", k ? ", " : "", m->busy,
		    tune_busy_queues(cfg));
	if (m->load_pct)
		PUT("%sload %+d%%", k ? ", " : "", m->load_pct);
	if (!k)
		PUT("the model");
	if (m->seed_add)
		PUT(", seed %" PRIu64, cfg->seed + m->seed_add);
	if (m->throughput_only)
		PUT(" (throughput only)");
#undef PUT
	return buf;
}

void tune_fold(struct tune_result *agg, const struct tune_result *r,
	       const struct tune_result *base, unsigned int mi, bool judge_lat, double keep,
	       enum tune_qdisc q)
{
	uint64_t lat = tune_latency(r, q);
	double ratio = base->throughput_bps > 0 ? r->throughput_bps / base->throughput_bps : 1;

	if (mi == 0) {
		*agg = *r;
		agg->members = 0;
		agg->lat = lat;
		agg->worst_lat = 0;
		agg->worst_lat_member = 0;
		agg->worst_ratio = ratio;
		agg->worst_ratio_member = 0;
		agg->fail_member = -1;
	}
	agg->members++;
	if (r->err && !agg->err)
		agg->err = r->err;
	if (mi == 0 || (judge_lat && lat > agg->worst_lat)) {
		agg->worst_lat = lat;
		agg->worst_lat_member = (int)mi;
	}
	if (ratio < agg->worst_ratio) {
		agg->worst_ratio = ratio;
		agg->worst_ratio_member = (int)mi;
	}
	if (agg->fail_member < 0 && (r->err || ratio < keep))
		agg->fail_member = (int)mi;
	agg->feasible = !agg->err && agg->fail_member < 0;
}

/* the largest packet the traffic sends */
static uint32_t max_packet(const struct sim_config *cfg)
{
	uint32_t m = 0;

	for (unsigned int i = 0; i < cfg->nflows; i++) {
		const struct sim_size *sz = &cfg->flows[i].size;
		uint32_t v = sz->kind == SIM_SIZE_IMIX ? 1514 :
			     sz->kind == SIM_SIZE_UNIFORM || sz->kind == SIM_SIZE_BIMODAL ?
			     (sz->a > sz->b ? sz->a : sz->b) : sz->a;

		if (v > m)
			m = v;
	}
	return m ? m : 1514;
}

static unsigned int add(struct tune_settings *out, unsigned int n, unsigned int max,
			const struct tune_settings *s)
{
	for (unsigned int i = 0; i < n; i++)
		if (same(&out[i], s))
			return n;
	if (n < max)
		out[n++] = *s;
	return n;
}

unsigned int tune_coarse(const struct sim_config *cfg, const struct tune_result *base,
			 uint32_t floor, struct tune_settings *out, unsigned int max)
{
	double lo = max_packet(cfg), hi = 2.0 * base->peak_limit;
	unsigned int n = 0;

	if (lo < floor)
		lo = floor;
	if (hi < 4 * lo)
		hi = 4 * lo;
	if (hi > DQL_MAX_LIMIT)
		hi = DQL_MAX_LIMIT;
	for (unsigned int h = 0; h < NHOLDS; h++) {
		struct tune_settings s = { 0, DQL_MAX_LIMIT, holds[h] };

		for (unsigned int g = 0; g < GRID; g++) {
			s.limit_max = (uint32_t)llround(lo * pow(hi / lo, (double)g / (GRID - 1)));
			n = add(out, n, max, &s);
		}
		s.limit_max = DQL_MAX_LIMIT;	/* no cap, another hold time */
		n = add(out, n, max, &s);
	}
	return n;
}

static bool done_has(const struct tune_result *done, unsigned int n, const struct tune_settings *s)
{
	for (unsigned int i = 0; i < n; i++)
		if (same(&done[i].set, s))
			return true;
	return false;
}

unsigned int tune_refine(const struct tune_result *done, unsigned int ndone, uint32_t floor,
			 struct tune_settings *out, unsigned int max)
{
	const struct tune_result *b = NULL;
	uint32_t lower = 0;
	unsigned int i, n = 0;

	for (i = 0; i < ndone; i++)
		if (done[i].feasible && !done[i].err && (!b || better(&done[i], b)))
			b = &done[i];
	if (!b || b->set.limit_max == DQL_MAX_LIMIT)
		return 0;
	/* the highest limit_max below the best's that was tried: infeasible or worse */
	for (i = 0; i < ndone; i++)
		if (done[i].set.limit_max < b->set.limit_max && done[i].set.limit_max > lower)
			lower = done[i].set.limit_max;
	if (!lower)
		lower = b->set.limit_max / 2;
	if (floor && lower < floor - 1)
		lower = floor - 1;	/* every candidate at least @floor */
	for (i = 1; i <= 5 && lower + 1 < b->set.limit_max; i++) {
		struct tune_settings s = b->set;

		s.limit_max = (uint32_t)llround((double)lower *
			       pow((double)b->set.limit_max / lower, i / 6.0));
		if (s.limit_max <= lower || s.limit_max >= b->set.limit_max)
			continue;
		if (s.limit_min > s.limit_max)
			s.limit_min = 0;
		if (!done_has(done, ndone, &s))
			n = add(out, n, max, &s);
	}
	/* a floor under the limit: less decay after bursts, at the same cap */
	for (i = 1; i <= 2; i++) {
		struct tune_settings s = b->set;

		s.limit_min = b->set.limit_max / 4 * (i + 1);	/* 1/2, 3/4 */
		if (!done_has(done, ndone, &s))
			n = add(out, n, max, &s);
	}
	return n;
}

bool tune_hold_default(const struct tune_result *done, unsigned int ndone,
		       struct tune_settings *out)
{
	const struct tune_result *b = NULL;

	for (unsigned int i = 0; i < ndone; i++)
		if (done[i].feasible && !done[i].err && (!b || better(&done[i], b)))
			b = &done[i];
	if (!b || b->set.hold_time == 1000 || b->set.limit_max == DQL_MAX_LIMIT)
		return false;
	*out = b->set;
	out->hold_time = 1000;
	return !done_has(done, ndone, out);
}

void tune_mark(struct tune_result *r, unsigned int n, const struct tune_result *base,
	       double keep)
{
	for (unsigned int i = 0; i < n; i++)
		r[i].feasible = !r[i].err && (double)r[i].bytes_tx >= keep * (double)base->bytes_tx;
}

uint64_t tune_min_gain_ns(const struct sim_config *cfg)
{
	return (uint64_t)max_packet(cfg) * 2 * 8 * NS_PER_SEC / cfg->link_bps;
}

int tune_pick(const struct tune_result *r, unsigned int n, const struct tune_result *base,
	      double min_gain, uint64_t min_ns, int *best)
{
	int b = -1;

	for (unsigned int i = 0; i < n; i++) {
		if (!r[i].feasible)
			continue;
		if (b < 0 || better(&r[i], &r[b]))
			b = (int)i;
	}
	if (best)
		*best = b;
	if (b < 0 || (double)judged_lat(&r[b]) > (1.0 - min_gain) * (double)judged_lat(base) ||
	    judged_lat(&r[b]) + min_ns > judged_lat(base))
		return -1;
	return b;
}
