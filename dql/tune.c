// SPDX-License-Identifier: GPL-2.0-only
/*
 * The search of `bqltool tune` (candidates, evaluation, choice). See
 * tune.h; the model fitted from a trace is in tune_fit.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"
#include "dql_util.h"		/* last: poisons the I/O functions */

#define NS_PER_SEC	1000000000ull
#define GRID		12		/* limit_max values of the sweep */

static const uint32_t holds[] = { 1000, 100, 20 };
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
			 struct tune_settings *out, unsigned int max)
{
	double lo = max_packet(cfg), hi = 2.0 * base->peak_limit;
	unsigned int n = 0;

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
		if (h) {	/* no cap, another hold time */
			s.limit_max = DQL_MAX_LIMIT;
			n = add(out, n, max, &s);
		}
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

unsigned int tune_refine(const struct tune_result *done, unsigned int ndone,
			 struct tune_settings *out, unsigned int max)
{
	const struct tune_result *b = NULL;
	uint32_t lower = 0;
	unsigned int i, n = 0;

	for (i = 0; i < ndone; i++)
		if (done[i].feasible && !done[i].err &&
		    (!b || done[i].p99 < b->p99 ||
		     (done[i].p99 == b->p99 && done[i].bytes_tx > b->bytes_tx)))
			b = &done[i];
	if (!b || b->set.limit_max == DQL_MAX_LIMIT)
		return 0;
	/* the highest limit_max below the best's that was tried: infeasible or worse */
	for (i = 0; i < ndone; i++)
		if (done[i].set.limit_max < b->set.limit_max && done[i].set.limit_max > lower)
			lower = done[i].set.limit_max;
	if (!lower)
		lower = b->set.limit_max / 2;
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
		if (b < 0 || r[i].p99 < r[b].p99 ||
		    (r[i].p99 == r[b].p99 && r[i].bytes_tx > r[b].bytes_tx))
			b = (int)i;
	}
	if (best)
		*best = b;
	if (b < 0 || (double)r[b].p99 > (1.0 - min_gain) * (double)base->p99 ||
	    r[b].p99 + min_ns > base->p99)
		return -1;
	return b;
}
