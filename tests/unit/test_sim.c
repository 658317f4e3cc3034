// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the closed-loop NIC model (dql/sim.c): conservation, the
 * link's capacity, BQL's behaviour under the model (full link with the
 * defaults, starvation with a tiny limit_max, hold_time decay, the stall
 * detector), determinism, the delay histogram, that every record the
 * model emits replays to the same limits (dql/replay.c), and that arrivals
 * taken ahead of time order change nothing.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dql/dql.h"
#include "dql/replay.h"
#include "dql/sim.h"
#include "dql/trace.h"

#define MS	1000000ull
#define SEC	1000000000ull
#define G	1000000000ull
#define M	1000000ull

static struct sim *run(const struct sim_config *cfg, const struct sim_ops *ops, void *arg)
{
	struct bql_err e;
	struct sim *s;

	memset(&e, 0, sizeof(e));
	if (sim_new(&s, cfg, &e))
		fail_msg("sim_new: %s", e.msg);
	sim_run(s, ops, arg);
	return s;
}

static void base(struct sim_config *c)
{
	sim_config_init(c);
	c->duration_ns = 200 * MS;
}

static void add_flow(struct sim_config *c, enum sim_traffic_kind k, uint64_t rate,
		     enum sim_size_kind sk, uint32_t a, uint32_t b)
{
	struct sim_flow *f = &c->flows[c->nflows++];

	memset(f, 0, sizeof(*f));
	f->kind = k;
	f->rate_bps = rate;
	f->size.kind = sk;
	f->size.a = a;
	f->size.b = b;
	f->size.p = 0.5;
}

static void set(struct sim_config *c, enum bqlt_key k, uint64_t v)
{
	c->set[c->nset].key = k;
	c->set[c->nset++].val = v;
}

/* a few different models, used by the property tests */
static void model(struct sim_config *c, int i)
{
	base(c);
	switch (i) {
	case 0:		/* the defaults: one bulk flow, 1G */
		break;
	case 1:		/* 4 queues, mixed traffic and sizes, jitter, settings */
		c->nflows = 0;
		c->nqueues = 4;
		add_flow(c, SIM_T_POISSON, 3 * G, SIM_SIZE_IMIX, 0, 0);
		add_flow(c, SIM_T_CBR, 2 * G, SIM_SIZE_UNIFORM, 64, 9000);
		add_flow(c, SIM_T_ONOFF, 8 * G, SIM_SIZE_BIMODAL, 64, 1514);
		c->flows[2].on_ns = 5 * MS;
		c->flows[2].off_ns = 15 * MS;
		add_flow(c, SIM_T_BULK, 0, SIM_SIZE_TSO, 65536, 0);
		c->link_bps = 10 * G;
		c->irq_jitter_ns = 4000;
		c->coalesce_frames = 16;
		set(c, BQLT_K_HOLD_TIME, 20);
		set(c, BQLT_K_LIMIT_MIN, 3000);
		break;
	case 2:		/* a stall, the detector on, a setting changed midway */
		c->nflows = 0;
		add_flow(c, SIM_T_CBR, 300 * M, SIM_SIZE_FIXED, 1514, 0);
		set(c, BQLT_K_STALL_THRS, 20);
		c->stalls[c->nstalls].t_ns = 80 * MS;
		c->stalls[c->nstalls++].len_ns = 40 * MS;
		c->at[c->nat].t_ns = 150 * MS;
		c->at[c->nat].kv.key = BQLT_K_LIMIT_MAX;
		c->at[c->nat++].kv.val = 4000;
		c->hz = 1000;
		break;
	case 3:		/* tiny ring, per-packet interrupts, small budget, old kernel */
		c->ring = 8;
		c->coalesce_usecs = 0;
		c->napi_budget = 3;
		c->kflags = DQL_K_POSDIFF_WRAP;		/* 3.5 */
		c->link_bps = 100 * M;
		break;
	case 4:		/* no framing, one descriptor a packet, flows pinned, 3.3 */
		c->nflows = 0;
		c->nqueues = 3;
		add_flow(c, SIM_T_BULK, 0, SIM_SIZE_IMIX, 0, 0);
		c->flows[0].pinned = true;
		c->flows[0].queue = 2;
		add_flow(c, SIM_T_POISSON, 400 * M, SIM_SIZE_UNIFORM, 1, 9000);
		c->flows[1].pinned = true;
		c->flows[1].queue = 2;
		add_flow(c, SIM_T_CBR, 300 * M, SIM_SIZE_FIXED, 60, 0);
		c->flows[2].pinned = true;
		c->flows[2].queue = 0;
		c->no_framing = true;
		c->frag_size = SIM_PKT_MAX;
		c->kflags = 0;				/* 3.3 */
		break;
	case 5:		/* TSO with a jumbo MSS on a 10G ring of small fragments */
		c->nflows = 0;
		c->nqueues = 2;
		add_flow(c, SIM_T_BULK, 0, SIM_SIZE_TSO, 64000, 8948);
		add_flow(c, SIM_T_POISSON, 2 * G, SIM_SIZE_TSO, 30000, 0);
		c->flows[1].pinned = true;
		c->flows[1].queue = 1;
		c->link_bps = 10 * G;
		c->frag_size = 1024;
		c->ring = 512;
		break;
	}
}
#define NMODELS 6

/* ------------------------------------------------------------ properties */

static void test_conservation(void **state)
{
	(void)state;
	for (int m = 0; m < NMODELS; m++) {
		struct sim_config c;
		struct sim *s;

		model(&c, m);
		s = run(&c, NULL, NULL);
		for (unsigned int i = 0; i < c.nqueues; i++) {
			const struct sim_qstats *st = sim_queue_stats(s, i);

			assert_int_equal(st->bytes_queued, st->bytes_completed + st->inflight);
			assert_int_equal(st->inflight, dql_inflight(sim_queue_dql(s, i)));
			/* what left the ring was sent, what was sent was queued */
			assert_true(st->bytes_completed <= st->bytes_tx);
			assert_true(st->bytes_tx <= st->bytes_queued);
			assert_true(st->packets <= st->packets_queued);
		}
		sim_free(s);
	}
}

static void test_link_capacity(void **state)
{
	(void)state;
	for (int m = 0; m < NMODELS; m++) {
		struct sim_config c;
		struct sim_totals t;
		struct sim *s;

		model(&c, m);
		s = run(&c, NULL, NULL);
		sim_get_totals(s, &t);
		/* bytes * 8 / duration <= rate, in integers */
		assert_true((unsigned __int128)t.bytes_tx * 8 * SEC <=
			    (unsigned __int128)c.link_bps * c.duration_ns);
		assert_true(t.utilization <= 1.0);
		assert_true(t.starved_ns <= c.duration_ns);
		sim_free(s);
	}
}

static void test_defaults_fill_1g(void **state)
{
	struct sim_config c;
	struct sim_totals t;
	struct sim *s;

	(void)state;
	sim_config_init(&c);	/* 1G, one bulk flow, 1 s */
	s = run(&c, NULL, NULL);
	sim_get_totals(s, &t);
	assert_true(t.utilization >= 0.99);
	assert_int_equal(t.drops, 0);
	sim_free(s);
}

static void test_tiny_limit_starves(void **state)
{
	struct sim_config c;
	struct sim_totals dflt, tiny;
	uint64_t dflt_p99, tiny_p99;
	struct sim *s;

	(void)state;
	base(&c);
	c.link_bps = 10 * G;
	s = run(&c, NULL, NULL);
	sim_get_totals(s, &dflt);
	dflt_p99 = sim_hist_quantile(dflt.ring_delay, 0.99);
	sim_free(s);

	set(&c, BQLT_K_LIMIT_MAX, 3000);
	s = run(&c, NULL, NULL);
	sim_get_totals(s, &tiny);
	tiny_p99 = sim_hist_quantile(tiny.ring_delay, 0.99);
	assert_true(sim_queue_stats(s, 0)->limit_max <= 3000);
	sim_free(s);

	assert_true(dflt.utilization >= 0.99);
	assert_true(tiny.utilization < 0.5);
	assert_true(tiny.starved_ns > c.duration_ns / 2);
	assert_true(tiny.starved_ns > 10 * dflt.starved_ns);
	/* and less data waits in the ring */
	assert_true(tiny_p99 < dflt_p99);
}

/* the limit right after the last completion before @before and before @at */
struct limit_at {
	uint64_t before, at;
	uint32_t limit_before, limit;
	uint32_t peak;
};

static void rec_limit(void *arg, const struct sim_rec *r)
{
	struct limit_at *l = arg;

	if (r->kind != BQLT_C || r->t_ns >= l->at)
		return;
	if (r->t_ns < l->before)
		l->limit_before = r->limit;
	l->limit = r->limit;
	if (r->limit > l->peak)
		l->peak = r->limit;
}

/*
 * A backlogged 10G queue settles at a limit of about twice what one
 * interrupt completes. A 2 ms NAPI stall at 50 ms lets the ring drain
 * while the queue is stopped: the completion after it is starvation and
 * grows the limit. Then the slack is given back, one decrease per hold
 * period at most (the last completion before 45 ms, and before 300 ms).
 */
static void limit_after_burst(unsigned int hold_ms, struct limit_at *l)
{
	static const struct sim_ops ops = { .record = rec_limit };
	struct sim_config c;
	struct sim *s;

	base(&c);
	c.duration_ns = 300 * MS;
	c.link_bps = 10 * G;
	c.hz = 1000;
	c.stalls[0].t_ns = 50 * MS;
	c.stalls[0].len_ns = 2 * MS;
	c.nstalls = 1;
	set(&c, BQLT_K_HOLD_TIME, hold_ms);
	memset(l, 0, sizeof(*l));
	l->before = 45 * MS;
	l->at = 300 * MS;
	s = run(&c, &ops, l);
	sim_free(s);
}

static void test_hold_time_decay(void **state)
{
	struct limit_at fast, slow;

	(void)state;
	limit_after_burst(10, &fast);
	limit_after_burst(1000, &slow);
	/* the same steady state before, and the stall grew the limit in both */
	assert_int_equal(fast.limit_before, slow.limit_before);
	assert_true(fast.peak > fast.limit_before);
	assert_int_equal(fast.peak, slow.peak);
	/* 250 ms later: back to the steady state with 10 ms holds, not with 1 s */
	assert_int_equal(fast.limit, fast.limit_before);
	assert_int_equal(slow.limit, slow.peak);
}

static void stall_run(bool thrs, bool stall, struct sim_totals *t)
{
	struct sim_config c;
	struct sim *s;

	model(&c, 2);
	c.nat = 0;
	if (!thrs)
		c.nset = 0;
	if (!stall)
		c.nstalls = 0;
	s = run(&c, NULL, NULL);
	sim_get_totals(s, t);
	sim_free(s);
}

static void test_stall_detector(void **state)
{
	struct sim_totals t;

	(void)state;
	stall_run(true, true, &t);
	assert_int_equal(t.stall_cnt, 1);
	/* 40 ms stall at HZ 1000: about 40 jiffies, at least thrs */
	assert_true(t.stall_max >= 20 && t.stall_max <= 41);
	stall_run(false, true, &t);		/* detector off */
	assert_int_equal(t.stall_cnt, 0);
	stall_run(true, false, &t);		/* no stall */
	assert_int_equal(t.stall_cnt, 0);
}

/* ------------------------------------------------------------ determinism */

struct digest {
	uint64_t h, n;
};

static void rec_digest(void *arg, const struct sim_rec *r)
{
	struct digest *d = arg;
	uint64_t v[5] = { r->t_ns, r->kind, r->queue, r->bytes, r->limit };

	for (int i = 0; i < 5; i++)
		d->h = (d->h ^ v[i]) * 0x100000001b3ull;
	d->n++;
}

static struct digest digest_of(int m, uint64_t seed)
{
	static const struct sim_ops ops = { .record = rec_digest };
	struct digest d = { 0xcbf29ce484222325ull, 0 };
	struct sim_config c;

	model(&c, m);
	c.seed = seed;
	sim_free(run(&c, &ops, &d));
	return d;
}

static void test_determinism(void **state)
{
	(void)state;
	for (int m = 0; m < NMODELS; m++) {
		struct digest a = digest_of(m, 42), b = digest_of(m, 42);

		assert_true(a.n > 100);
		assert_int_equal(a.h, b.h);
		assert_int_equal(a.n, b.n);
	}
	/* random traffic depends on the seed */
	assert_int_not_equal(digest_of(1, 42).h, digest_of(1, 43).h);
}

/* the statistics too, not only the records */
static void test_determinism_stats(void **state)
{
	struct sim_config c;
	struct sim *a, *b;

	(void)state;
	model(&c, 1);
	a = run(&c, NULL, NULL);
	b = run(&c, NULL, NULL);
	for (unsigned int i = 0; i < c.nqueues; i++)
		assert_memory_equal(sim_queue_stats(a, i), sim_queue_stats(b, i),
				    sizeof(struct sim_qstats));
	sim_free(a);
	sim_free(b);
}

/* ------------------------------------------------------------ ahead */

/*
 * @c run with arrivals taken ahead (@ahead) or in time order, and the
 * polls in a FIFO where they can be (@fifo) or all on the tree: its
 * records' digest
 */
static struct sim *run_opt(const struct sim_config *c, bool ahead, bool fifo, struct digest *d)
{
	static const struct sim_ops ops = { .record = rec_digest };
	struct bql_err e;
	struct sim *s;

	memset(&e, 0, sizeof(e));
	d->h = 0xcbf29ce484222325ull;
	d->n = 0;
	if (sim_new(&s, c, &e))
		fail_msg("sim_new: %s", e.msg);
	sim_set_ahead(s, ahead);
	sim_set_poll_fifo(s, fifo);
	sim_run(s, &ops, d);
	return s;
}

/* model @m: a property model, then @extra's from NMODELS on */
static void pick(struct sim_config *c, int m, void (*extra)(struct sim_config *, int))
{
	if (m < NMODELS)
		model(c, m);
	else
		extra(c, m - NMODELS);
}

/*
 * @c run with both optimisations on and with @ahead and @fifo: every
 * record's digest and every queue's statistics are the same. The totals
 * of both in @on and @off; the number of records.
 */
static uint64_t same_both(const struct sim_config *c, bool ahead, bool fifo,
			  struct sim_totals *on, struct sim_totals *off)
{
	struct digest da, db;
	struct sim *a = run_opt(c, true, true, &da);
	struct sim *b = run_opt(c, ahead, fifo, &db);

	assert_true(da.n > 100);
	assert_int_equal(da.h, db.h);
	assert_int_equal(da.n, db.n);
	for (unsigned int i = 0; i < c->nqueues; i++)
		assert_memory_equal(sim_queue_stats(a, i), sim_queue_stats(b, i),
				    sizeof(struct sim_qstats));
	sim_get_totals(a, on);
	sim_get_totals(b, off);
	assert_int_equal(on->starved_ns, off->starved_ns);
	assert_int_equal(on->drops, off->drops);
	sim_free(a);
	sim_free(b);
	return da.n;
}

static void pin(struct sim_config *c, unsigned int flow, unsigned int q)
{
	c->flows[flow].pinned = true;
	c->flows[flow].queue = q;
}

/*
 * Overloaded queues, where parr_ahead() takes arrivals ahead: 0, the
 * bench's 40G model (two Poisson flows on a ring-bound queue, a CBR flow
 * on another); 1, a Poisson and a CBR flow on one queue with a short
 * qdisc (the tree bounds it), frame coalescing, latency less jitter 1 us;
 * 2, an on/off and a Poisson flow on one queue, a Poisson flow on
 * another, a stall, a setting changed, a NAPI budget of 2, and a poll
 * at once after each completion (no coalescing, no latency: dmin 0).
 */
static void ahead_model(struct sim_config *c, int i)
{
	base(c);
	c->nflows = 0;
	c->duration_ns = 10 * MS;
	switch (i) {
	case 0:
		c->link_bps = 40 * G;
		c->nqueues = 4;
		add_flow(c, SIM_T_POISSON, 15 * G, SIM_SIZE_IMIX, 0, 0);
		add_flow(c, SIM_T_CBR, 10 * G, SIM_SIZE_IMIX, 0, 0);
		add_flow(c, SIM_T_POISSON, 10 * G, SIM_SIZE_IMIX, 0, 0);
		c->irq_jitter_ns = 2000;
		break;
	case 1:
		c->link_bps = 10 * G;
		c->nqueues = 2;
		add_flow(c, SIM_T_POISSON, 7 * G, SIM_SIZE_UNIFORM, 64, 1514);
		add_flow(c, SIM_T_CBR, 4 * G, SIM_SIZE_FIXED, 1514, 0);
		add_flow(c, SIM_T_POISSON, 1 * G, SIM_SIZE_FIXED, 60, 0);
		c->qlen = 20;
		c->coalesce_usecs = 20;
		c->coalesce_frames = 8;
		c->irq_jitter_ns = 4000;
		set(c, BQLT_K_LIMIT_MAX, 20000);
		break;
	case 2:
		c->link_bps = 1 * G;
		c->nqueues = 2;
		add_flow(c, SIM_T_ONOFF, 900 * M, SIM_SIZE_BIMODAL, 64, 1514);
		c->flows[0].on_ns = 2 * MS;
		c->flows[0].off_ns = 1 * MS;
		add_flow(c, SIM_T_POISSON, 600 * M, SIM_SIZE_IMIX, 0, 0);
		add_flow(c, SIM_T_POISSON, 300 * M, SIM_SIZE_TSO, 30000, 0);
		c->irq_latency_ns = 0;
		c->coalesce_usecs = 0;
		c->napi_budget = 2;
		c->stalls[c->nstalls].t_ns = 3 * MS;
		c->stalls[c->nstalls++].len_ns = 2 * MS;
		c->at[c->nat].t_ns = 7 * MS;
		c->at[c->nat].kv.key = BQLT_K_LIMIT_MAX;
		c->at[c->nat++].kv.val = 6000;
		break;
	}
	if (i > 0) {		/* the first two flows on queue 0, the third on 1 */
		pin(c, 0, 0);
		pin(c, 1, 0);
		pin(c, 2, 1);
	}
}

/*
 * Arrivals taken ahead change nothing: every record (time, kind, queue,
 * bytes, limit) and every statistic as in time order, on the property
 * models and on overloaded ones, where most arrivals are taken ahead.
 */
static void test_ahead_same(void **state)
{
	(void)state;
	for (int m = 0; m < NMODELS + 3; m++) {
		struct sim_config c;
		struct sim_totals ta, tt;
		uint64_t n;

		pick(&c, m, ahead_model);
		n = same_both(&c, false, true, &ta, &tt);
		print_message("  model %d: %" PRIu64 " records\n", m, n);
		assert_int_equal(tt.arrivals_ahead, 0);
		if (m >= NMODELS) {
			/* the path is taken: a good share of the arrivals */
			print_message("  model %d: %" PRIu64 " of %" PRIu64 " packets' arrivals ahead, %" PRIu64 " drops\n",
				      m, ta.arrivals_ahead, ta.packets_queued + ta.drops, ta.drops);
			assert_true(ta.arrivals_ahead * 10 > ta.packets_queued + ta.drops);
			assert_true(ta.drops > 0);
		}
	}
}

/* ------------------------------------------------------------ poll FIFO */

/*
 * Where the polls go into the FIFO: 0, 16 queues of bulk traffic (the
 * bench's 64-queue model, smaller) with the coalescing timer alone, two
 * overlapping stalls (polls deferred to the same time, which the FIFO
 * cannot take in id order) and a budget of 1 (a poll again at once, on
 * the tree); 1, Poisson flows on 8 queues and one CBR flow, no
 * coalescing and no latency (each poll at its completion's time); 2, a
 * frame count of 1, TSO and IMIX flows, a budget of 2, a setting
 * changed midway; 3, 16 bulk queues with jitter (polls out of the order
 * they were set: on the tree); 4, a frame count of 4 with the timer
 * (which the count replaces: the FIFO is off).
 */
static void fifo_model(struct sim_config *c, int i)
{
	base(c);
	c->nflows = 0;
	c->duration_ns = 10 * MS;
	switch (i) {
	case 0:
		c->link_bps = 10 * G;
		c->nqueues = 16;
		for (unsigned int k = 0; k < 16; k++)
			add_flow(c, SIM_T_BULK, 0, SIM_SIZE_FIXED, 1514, 0);
		c->napi_budget = 1;
		c->stalls[c->nstalls].t_ns = 3 * MS;
		c->stalls[c->nstalls++].len_ns = 1 * MS;
		c->stalls[c->nstalls].t_ns = 3500000;
		c->stalls[c->nstalls++].len_ns = 1 * MS;
		break;
	case 1:
		c->link_bps = 10 * G;
		c->nqueues = 8;
		for (unsigned int k = 0; k < 8; k++)
			add_flow(c, SIM_T_POISSON, 1100 * M, SIM_SIZE_IMIX, 0, 0);
		add_flow(c, SIM_T_CBR, 500 * M, SIM_SIZE_FIXED, 60, 0);
		c->coalesce_usecs = 0;
		c->irq_latency_ns = 0;
		break;
	case 2:
		c->link_bps = 40 * G;
		c->nqueues = 4;
		add_flow(c, SIM_T_BULK, 0, SIM_SIZE_TSO, 65536, 0);
		add_flow(c, SIM_T_POISSON, 20 * G, SIM_SIZE_IMIX, 0, 0);
		add_flow(c, SIM_T_POISSON, 15 * G, SIM_SIZE_IMIX, 0, 0);
		c->coalesce_frames = 1;
		c->napi_budget = 2;
		c->at[c->nat].t_ns = 4 * MS;
		c->at[c->nat].kv.key = BQLT_K_LIMIT_MAX;
		c->at[c->nat++].kv.val = 20000;
		break;
	case 3:
		c->link_bps = 10 * G;
		c->nqueues = 16;
		for (unsigned int k = 0; k < 16; k++)
			add_flow(c, SIM_T_BULK, 0, SIM_SIZE_IMIX, 0, 0);
		c->irq_jitter_ns = 2000;
		break;
	case 4:
		c->link_bps = 10 * G;
		c->nqueues = 4;
		for (unsigned int k = 0; k < 4; k++)
			add_flow(c, SIM_T_POISSON, 2200 * M, SIM_SIZE_IMIX, 0, 0);
		c->coalesce_usecs = 20;
		c->coalesce_frames = 4;
		break;
	}
}

/*
 * The polls in the FIFO change nothing: every record and statistic as
 * with every event on the tree, on the property models (some with jitter
 * or a frame count, where the FIFO is off) and on the FIFO's own, where
 * a good share of the polls go into it.
 */
static void test_pfifo_same(void **state)
{
	(void)state;
	for (int m = 0; m < NMODELS + 5; m++) {
		struct sim_config c;
		struct sim_totals tf, tt;
		uint64_t n;

		pick(&c, m, fifo_model);
		n = same_both(&c, true, false, &tf, &tt);
		assert_int_equal(tt.polls_fifo, 0);
		print_message("  model %d: %" PRIu64 " records, %" PRIu64 " of %" PRIu64
			      " completions' polls in the FIFO\n", m, n, tf.polls_fifo,
			      tf.completions);
		if (c.coalesce_usecs && c.coalesce_frames > 1)
			assert_int_equal(tf.polls_fifo, 0);
		else if (m >= NMODELS)	/* the path is taken: a good share of the polls */
			assert_true(tf.polls_fifo * 4 > tf.completions);
	}
}

/* ------------------------------------------------------------ replay agrees */

struct rp {
	struct replay r;
	char names[SIM_MAX_QUEUES][16];
	uint64_t line, mismatches;
	unsigned int hz;
	int err;
	struct bql_err e;
};

static void rp_mismatch(void *arg, const struct replay_event *ev)
{
	struct rp *p = arg;

	(void)ev;
	p->mismatches++;
}

static void rp_record(void *arg, const struct sim_rec *r)
{
	struct rp *p = arg;
	struct bqlt_rec rec;

	sim_rec_to_bqlt(r, p->names[r->queue], p->hz, ++p->line, &rec);
	if (!p->err)
		p->err = replay_feed(&p->r, &rec, &p->e);
}

static void test_replay_agrees(void **state)
{
	static const struct replay_ops rops = { .mismatch = rp_mismatch };
	static const struct sim_ops ops = { .record = rp_record };

	(void)state;
	for (int m = 0; m < NMODELS; m++) {
		struct replay_opts ro;
		struct sim_config c;
		struct rp *p = calloc(1, sizeof(*p));
		struct sim *s;
		uint64_t checked = 0;

		assert_non_null(p);
		model(&c, m);
		replay_opts_init(&ro);
		ro.kflags = c.kflags;
		replay_init(&p->r, &ro, &rops, p);
		for (unsigned int i = 0; i < c.nqueues; i++) {
			struct bqlt_rec rec;

			snprintf(p->names[i], sizeof(p->names[i]), "q%u", i);
			sim_queue_to_bqlt(&c, i, p->names[i], 0, &rec);
			assert_int_equal(replay_feed(&p->r, &rec, &p->e), 0);
		}
		p->hz = c.hz;
		s = run(&c, &ops, p);
		if (p->err)
			fail_msg("model %d: %s", m, p->e.msg);
		assert_int_equal(p->mismatches, 0);
		for (unsigned int i = 0; i < c.nqueues; i++) {
			const struct sim_qstats *st = sim_queue_stats(s, i);
			struct replay_stats rs;

			replay_queue_stats(&p->r, i, &rs);
			checked += rs.verify_checked;
			assert_int_equal(rs.completions, st->completions);
			assert_int_equal(rs.stops, st->stops);
			assert_int_equal(rs.limit_final, st->limit_final);
			assert_int_equal(rs.stall_cnt, st->stall_cnt);
			if (st->completions)
				assert_true(rs.limit_mean == st->limit_mean);
		}
		assert_true(checked > 10);
		sim_free(s);
		replay_free(&p->r);
		free(p);
	}
}

/* ------------------------------------------------------------ model details */

/* with a ring of 4 and no limit the driver, not BQL, stops the queue */
static void test_ring_full(void **state)
{
	struct sim_config c;
	struct sim *s;
	const struct sim_qstats *st;

	(void)state;
	base(&c);
	c.ring = 4;
	set(&c, BQLT_K_LIMIT_MIN, 1000000);
	s = run(&c, NULL, NULL);
	st = sim_queue_stats(s, 0);
	assert_true(st->ring_stops > 0);
	/*
	 * BQL stops it once: dql_reset() leaves adj_limit at 0, so the very
	 * first packet finds dql_avail() < 0, as in the kernel.
	 */
	assert_int_equal(st->stops, 1);
	assert_true(st->inflight <= 4 * 1514);
	sim_free(s);
}

/*
 * Framing: at 1G a bulk flow of 1514-byte frames sends one per 1538 * 8 =
 * 12304 ns (81274 a second), 60-byte frames one per 84 * 8 = 672 ns, and
 * without framing 1514 bytes take 12112 ns. The link idles only while
 * starved (the qdisc is never empty), so packets fill the rest exactly.
 */
static void framing_run(uint32_t bytes, bool no_framing, uint64_t ns_per_pkt, uint32_t wire)
{
	struct sim_config c;
	struct sim_totals t;
	struct sim *s;

	sim_config_init(&c);
	c.flows[0].size.a = bytes;
	c.no_framing = no_framing;
	s = run(&c, NULL, NULL);
	sim_get_totals(s, &t);
	assert_true(t.packets * ns_per_pkt + t.starved_ns <= SEC);
	assert_true((t.packets + 1) * ns_per_pkt + t.starved_ns > SEC);
	assert_int_equal(t.bytes_tx, t.packets * bytes);
	assert_int_equal(t.wire_bytes, t.packets * wire);
	assert_true(t.utilization > 0.999 && t.utilization <= 1.0);
	sim_free(s);
}

static void test_framing(void **state)
{
	struct sim_config c;
	struct sim_size tso = { .kind = SIM_SIZE_TSO, .a = 64000 };
	struct sim_size fx = { .kind = SIM_SIZE_FIXED, .a = 1 };

	(void)state;
	framing_run(1514, false, 12304, 1538);
	framing_run(60, false, 672, 84);
	framing_run(1514, true, 12112, 1514);
	sim_config_init(&c);
	assert_int_equal(sim_wire_bytes(&c, &fx, 1), 84);
	fx.a = 61;
	assert_int_equal(sim_wire_bytes(&c, &fx, 61), 85);
	/* 64000 B TSO, MSS 1448: 63934 B of payload in 45 segments of 66 + 24 */
	assert_int_equal(sim_segments(&tso, 64000), 45);
	assert_int_equal(sim_wire_bytes(&c, &tso, 64000), 63934 + 45 * 90);
	/* a TSO packet that fits one segment is one frame */
	assert_int_equal(sim_segments(&tso, 1514), 1);
	assert_int_equal(sim_wire_bytes(&c, &tso, 1514), 1538);
	/* MSS 8948 (9000 MTU): 8 segments */
	tso.b = 8948;
	assert_int_equal(sim_segments(&tso, 64000), 8);
	assert_int_equal(sim_wire_bytes(&c, &tso, 64000), 63934 + 8 * 90);
	c.no_framing = true;
	assert_int_equal(sim_wire_bytes(&c, &tso, 64000), 64000);
}

/* the most bytes in flight (queued, not yet reaped) */
static void rec_inflight(void *arg, const struct sim_rec *r)
{
	uint32_t *peak = arg;

	if (r->inflight > *peak)
		*peak = r->inflight;
}

/*
 * Descriptors: a 64000-byte TSO packet takes 1 + ceil(63934 / 4096) = 17,
 * so a 256-descriptor ring holds 15 of them (15 * 17 = 255) with BQL out
 * of the way: 960000 bytes in flight at most, and reached. With 64K
 * fragments (one descriptor a packet) it holds 256.
 */
static void test_descriptors(void **state)
{
	static const struct sim_ops ops = { .record = rec_inflight };
	struct sim_config c;
	struct bql_err e;
	struct sim *s;
	uint32_t peak = 0;

	(void)state;
	sim_config_init(&c);
	assert_int_equal(sim_descs(&c, 64000), 17);
	assert_int_equal(sim_descs(&c, 4096), 1);
	assert_int_equal(sim_descs(&c, 4097), 2);
	assert_int_equal(sim_descs(&c, 1514), 1);
	c.link_bps = 10 * G;
	c.duration_ns = 20 * MS;
	c.flows[0].size.kind = SIM_SIZE_TSO;
	c.flows[0].size.a = 64000;
	set(&c, BQLT_K_LIMIT_MIN, DQL_MAX_LIMIT);
	s = run(&c, &ops, &peak);
	assert_int_equal(peak, 15 * 64000);
	assert_true(sim_queue_stats(s, 0)->ring_stops > 0);
	sim_free(s);
	peak = 0;
	c.frag_size = SIM_PKT_MAX;
	s = run(&c, &ops, &peak);
	assert_int_equal(peak, 256 * 64000);
	sim_free(s);
	/* a ring that cannot hold one packet is refused, naming --ring */
	c.frag_size = 0;
	c.ring = 16;
	memset(&e, 0, sizeof(e));
	assert_int_equal(sim_new(&s, &c, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "--ring: 16 descriptors cannot hold flow 0's 64000-byte packet (17"));
}

/*
 * The ring-bound warning: at 100G a 256-descriptor ring of 1514-byte
 * frames holds 256 * 1538 * 8 / 100 = 31498 ns, less than 50 us of
 * coalescing + 5 us of IRQ latency: at most 31498 / 55000 = 57.3% of the
 * link, and the run agrees within a percent. Four busy queues hold four
 * times as much (no warning), as does a 1024 ring; a CBR flow below the
 * cap is no reason to warn; 10G is fine.
 */
static void test_ring_bound_warning(void **state)
{
	struct sim_warning w;
	struct sim_config c;
	struct sim_totals t;
	struct sim *s;

	(void)state;
	sim_config_init(&c);
	c.link_bps = 100 * G;
	c.duration_ns = 100 * MS;
	assert_int_equal(sim_model_warnings(&c, &w, 1), 1);
	assert_int_equal(w.kind, SIM_WARN_RING_BOUND);
	assert_int_equal(w.ring_ns, 31498);
	assert_int_equal(w.cycle_ns, 55000);
	assert_true(w.cap_bps > 57260000000ull && w.cap_bps < 57280000000ull);
	assert_non_null(strstr(w.msg, "--ring"));
	assert_non_null(strstr(w.msg, "--coalesce-usecs"));
	s = run(&c, NULL, NULL);
	sim_get_totals(s, &t);
	assert_true(fabs(t.utilization - 0.5727) < 0.01);
	sim_free(s);
	/* coalescing ended by 16 frames: 16 * 123 ns + 5 us, the ring lasts */
	c.coalesce_frames = 16;
	assert_int_equal(sim_model_warnings(&c, &w, 1), 0);
	c.coalesce_frames = 0;
	c.ring = 1024;
	assert_int_equal(sim_model_warnings(&c, &w, 1), 0);
	c.ring = 256;
	c.nqueues = 4;
	c.nflows = 0;
	for (unsigned int i = 0; i < 4; i++) {
		add_flow(&c, SIM_T_BULK, 0, SIM_SIZE_FIXED, 1514, 0);
		c.flows[i].pinned = true;
		c.flows[i].queue = i;
	}
	assert_int_equal(sim_model_warnings(&c, &w, 1), 0);
	c.nqueues = 1;
	c.nflows = 0;
	add_flow(&c, SIM_T_CBR, 40 * G, SIM_SIZE_FIXED, 1514, 0);
	assert_int_equal(sim_model_warnings(&c, &w, 1), 0);
	c.flows[0].rate_bps = 80 * G;
	assert_int_equal(sim_model_warnings(&c, &w, 1), 1);
	sim_config_init(&c);
	c.link_bps = 10 * G;
	assert_int_equal(sim_model_warnings(&c, &w, 1), 0);
}

/*
 * --at and --stall times at or after the end never take effect (the run
 * stops first): one warning each, counting them, naming the earliest; a
 * time just before the end is fine. Warnings past @max are counted, not
 * written.
 */
static void test_after_end_warning(void **state)
{
	struct sim_warning w[3];
	struct sim_config c;

	(void)state;
	sim_config_init(&c);
	c.duration_ns = 100 * MS;
	c.nat = 3;
	c.at[0].t_ns = 100 * MS - 1;
	c.at[1].t_ns = 300 * MS;
	c.at[2].t_ns = 100 * MS;
	c.at[0].kv.key = c.at[1].kv.key = c.at[2].kv.key = BQLT_K_LIMIT_MAX;
	c.at[0].kv.val = c.at[1].kv.val = c.at[2].kv.val = 3000;
	assert_int_equal(sim_model_warnings(&c, w, 3), 1);
	assert_int_equal(w[0].kind, SIM_WARN_AFTER_END);
	assert_string_equal(w[0].option, "--at");
	assert_int_equal(w[0].count, 2);
	assert_int_equal(w[0].t_ns, 100 * MS);
	assert_int_equal(w[0].end_ns, 100 * MS);
	assert_non_null(strstr(w[0].msg, "2 --at times, the first 100 ms"));
	c.nstalls = 1;
	c.stalls[0].t_ns = 5000 * MS;
	c.stalls[0].len_ns = MS;
	c.link_bps = 100 * G;		/* ring-bound too: it comes first */
	assert_int_equal(sim_model_warnings(&c, w, 3), 3);
	assert_int_equal(w[0].kind, SIM_WARN_RING_BOUND);
	assert_int_equal(w[1].kind, SIM_WARN_AFTER_END);
	assert_int_equal(w[2].kind, SIM_WARN_AFTER_END);
	assert_string_equal(w[2].option, "--stall");
	assert_int_equal(w[2].count, 1);
	assert_non_null(strstr(w[2].msg, "--stall 5 s is at or after the end of the run (--duration 100 ms)"));
	assert_int_equal(sim_model_warnings(&c, w, 1), 3);
	assert_int_equal(w[0].kind, SIM_WARN_RING_BOUND);
	c.duration_ns = 10000 * MS;	/* all within the run now */
	c.link_bps = 10 * G;
	assert_int_equal(sim_model_warnings(&c, w, 3), 0);
}

/* ------------------------------------------------------------ M/G/1 */

/* the test's own random numbers (splitmix64), independent of the model's */
static uint64_t t_rand(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double t_unit(uint64_t *x)
{
	return ((double)(t_rand(x) >> 11) + 0.5) * 0x1.0p-53;	/* (0, 1) */
}

static uint32_t t_size(const struct sim_size *sz, uint64_t *x)
{
	uint64_t k;

	switch (sz->kind) {
	case SIM_SIZE_IMIX:
		k = t_rand(x) % 12;
		return k < 7 ? 60 : k < 11 ? 590 : 1514;
	case SIM_SIZE_UNIFORM:
		return sz->a + (uint32_t)(t_rand(x) % (sz->b - sz->a + 1));
	case SIM_SIZE_BIMODAL:
		return t_unit(x) < sz->p ? sz->a : sz->b;
	default:
		return sz->a;
	}
}

/*
 * The waiting time of an M/G/1 FIFO queue by Lindley's recursion,
 * W(n+1) = max(0, W(n) + S(n) - A(n+1)): Poisson arrivals of mean gap
 * mean_size * 8 / rate, sizes drawn independently, service the frame's
 * time on the wire. Into @h, in ns.
 */
static void lindley(const struct sim_config *c, uint64_t n, struct sim_hist *h)
{
	const struct sim_size *sz = &c->flows[0].size;
	double gap = sim_size_mean(sz) * 8e9 / (double)c->flows[0].rate_bps;
	double ns_per_byte = 8e9 / (double)c->link_bps, w = 0;
	uint64_t x = 12345;

	for (uint64_t i = 0; i < n; i++) {
		uint32_t len = t_size(sz, &x);
		double svc = sim_wire_bytes(c, sz, len) * ns_per_byte;

		sim_hist_add(h, (uint64_t)llround(w));
		w += svc + gap * log(t_unit(&x));	/* minus an exponential gap */
		if (w < 0)
			w = 0;
	}
}

/* one queue, BQL out of the way, a ring and a qdisc that never fill, no flow yet */
static void mg1_config(struct sim_config *c)
{
	sim_config_init(c);
	c->link_bps = 10 * G;
	c->ring = SIM_RING_MAX;
	c->qlen = SIM_QLEN_MAX;
	c->frag_size = SIM_PKT_MAX;
	c->duration_ns = 2 * SEC;
	set(c, BQLT_K_LIMIT_MIN, DQL_MAX_LIMIT);
	c->nflows = 0;
}

/* the ring delay @got: p50 and p99 within 3% of Lindley's for @c's one flow, into @ref */
static void mg1_check(const struct sim_config *c, const struct sim_hist *got_h, struct sim_hist *ref)
{
	lindley(c, 4 * got_h->n, ref);	/* 4x: less noise in the reference */
	for (int qi = 0; qi < 2; qi++) {
		double q = qi ? 0.99 : 0.5;
		double got = (double)sim_hist_quantile(got_h, q);
		double want = (double)sim_hist_quantile(ref, q);

		print_message("  p%g sim %.0f ns, Lindley %.0f ns\n", q * 100, got, want);
		assert_true(want > 0);
		assert_true(fabs(got - want) <= 0.03 * want);
	}
}

/*
 * With BQL out of the way (limit_min at the maximum) and a ring that
 * never fills, every packet goes into the ring as it arrives and the ring
 * is the one FIFO queue of the single server, the link: the ring delay
 * (sent to the driver -> start on the wire) is the M/G/1 waiting time.
 * p50 and p99 within 3% of the recursion's, at loads whose p50 is not 0
 * (the queue is empty with probability 1 - load).
 */
static void test_poisson_mg1(void **state)
{
	static const struct {
		enum sim_size_kind kind;
		uint32_t a, b;
		double p, load;		/* of the wire, framing included */
	} cases[] = {
		{ SIM_SIZE_IMIX, 0, 0, 0, 0.6 },
		{ SIM_SIZE_IMIX, 0, 0, 0, 0.8 },
		{ SIM_SIZE_UNIFORM, 64, 1514, 0, 0.7 },
		{ SIM_SIZE_BIMODAL, 64, 1514, 0.5, 0.75 },
		{ SIM_SIZE_BIMODAL, 64, 9000, 0.9, 0.65 },
		{ SIM_SIZE_FIXED, 1514, 0, 0, 0.8 },	/* M/D/1 */
	};

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct sim_hist *ref = calloc(1, sizeof(*ref));
		struct sim_config c;
		struct sim_totals t;
		struct sim_size *sz;
		struct sim *s;
		double wire, rate;

		assert_non_null(ref);
		mg1_config(&c);
		add_flow(&c, SIM_T_POISSON, 1, cases[k].kind, cases[k].a, cases[k].b);
		sz = &c.flows[0].size;
		sz->p = cases[k].p;
		/* the offered skb rate that loads the wire so much */
		wire = cases[k].kind == SIM_SIZE_IMIX ? (7.0 * 84 + 4.0 * 614 + 1538) / 12 :
		       cases[k].kind == SIM_SIZE_UNIFORM ? (64.0 + 1514) / 2 + 24 :
		       cases[k].kind == SIM_SIZE_FIXED ? cases[k].a + 24.0 :
		       cases[k].p * (cases[k].a + 24) + (1 - cases[k].p) * (cases[k].b + 24);
		rate = cases[k].load * (double)c.link_bps * sim_size_mean(sz) / wire;
		c.flows[0].rate_bps = (uint64_t)rate;
		s = run(&c, NULL, NULL);
		sim_get_totals(s, &t);
		assert_int_equal(t.drops, 0);
		assert_int_equal(t.ring_stops, 0);
		assert_true(fabs(t.utilization - cases[k].load) < 0.01 * cases[k].load);
		print_message("M/G/1 case %zu load %.2f:\n", k, cases[k].load);
		mg1_check(&c, t.ring_delay, ref);
		sim_free(s);
		free(ref);
	}
}

/* 25G, 1 s, 5 queues and no flows yet: for add_pinned_poisson() */
static void five_queues(struct sim_config *c)
{
	base(c);
	c->link_bps = 25 * G;
	c->duration_ns = SEC;
	c->nqueues = 5;
	c->nflows = 0;
}

/* a Poisson flow on the queue of its own index (flow i on queue i) */
static void add_pinned_poisson(struct sim_config *c, uint64_t rate, enum sim_size_kind kind,
			       uint32_t a, uint32_t b)
{
	struct sim_flow *f = &c->flows[c->nflows];

	add_flow(c, SIM_T_POISSON, rate, kind, a, b);
	f->pinned = true;
	f->queue = c->nflows - 1;
}

/*
 * The Poisson flows are one superposed process (an alias table picks each
 * arrival's flow): each flow still offers its own rate, whatever the
 * others' rates and sizes. Five flows pinned to five queues, rates a
 * factor 40 apart: each queue's bytes within 2% (over 4 standard
 * deviations of its packet count) of rate x duration.
 */
static void test_poisson_flows_rates(void **state)
{
	static const struct {
		uint64_t rate;
		enum sim_size_kind kind;
		uint32_t a, b;
	} fl[] = {
		{ 600 * M, SIM_SIZE_FIXED, 1514, 0 },
		{ 1 * G, SIM_SIZE_IMIX, 0, 0 },
		{ 2 * G, SIM_SIZE_UNIFORM, 64, 1514 },
		{ 3 * G, SIM_SIZE_BIMODAL, 64, 1514 },
		{ 200 * M, SIM_SIZE_FIXED, 100, 0 },
	};
	struct sim_config c;
	struct sim *s;

	(void)state;
	five_queues(&c);
	for (unsigned int i = 0; i < 5; i++)
		add_pinned_poisson(&c, fl[i].rate, fl[i].kind, fl[i].a, fl[i].b);
	s = run(&c, NULL, NULL);
	for (unsigned int i = 0; i < 5; i++) {
		const struct sim_qstats *st = sim_queue_stats(s, i);
		double got = (double)st->bytes_queued * 8, want = (double)fl[i].rate;

		print_message("flow %u: %.4g bit/s offered, %.4g queued\n", i, want, got);
		assert_int_equal(st->drops, 0);
		assert_true(fabs(got - want) <= 0.02 * want);
	}
	sim_free(s);
}

/*
 * IMIX sizes of superposed Poisson flows come from the draw that picks the
 * flow (on_parr()): they must not depend on which flow it picked. Five
 * flows at 1:2:3:4:5 Gbit/s, each on its own queue: each gets its rate in
 * packets (7 * 60 + 4 * 590 + 1514) / 12 = 358.17 bytes on average, to
 * within 1% (five standard errors of the mean for the slowest flow).
 */
static void test_poisson_flows_imix(void **state)
{
	const double mean = (7.0 * 60 + 4.0 * 590 + 1514) / 12;
	struct sim_config c;
	struct sim *s;

	(void)state;
	five_queues(&c);
	for (unsigned int i = 0; i < 5; i++)
		add_pinned_poisson(&c, (i + 1) * G, SIM_SIZE_IMIX, 0, 0);
	s = run(&c, NULL, NULL);
	for (unsigned int i = 0; i < 5; i++) {
		const struct sim_qstats *st = sim_queue_stats(s, i);
		double got = (double)st->bytes_queued / (double)st->packets_queued;
		double pkts = (double)(i + 1) * G / 8 / mean;

		print_message("flow %u: %.2f bytes a packet, %" PRIu64 " packets (want %.0f)\n",
			      i, got, st->packets_queued, pkts);
		assert_int_equal(st->drops, 0);
		assert_true(fabs(got - mean) <= 0.01 * mean);
		assert_true(fabs((double)st->packets_queued - pkts) <= 0.02 * pkts);
	}
	sim_free(s);
}

/*
 * Superposed on one queue, Poisson flows are still a Poisson process: three
 * flows of imix at rates 1:2:3 give the M/G/1 waiting time of one flow of
 * their summed rate (Lindley's recursion), p50 and p99 within 3%.
 */
static void test_poisson_flows_merge(void **state)
{
	struct sim_hist *ref = calloc(1, sizeof(*ref));
	struct sim_config c, one;
	struct sim_totals t;
	struct sim *s;
	/* 70% of the wire: imix's mean frame is 358.17 bytes + 24 on the wire */
	double total = 0.7 * 10e9 * sim_size_mean(&(struct sim_size){ .kind = SIM_SIZE_IMIX }) /
		       ((7.0 * 84 + 4.0 * 614 + 1538) / 12);

	(void)state;
	assert_non_null(ref);
	mg1_config(&c);
	for (int i = 1; i <= 3; i++)
		add_flow(&c, SIM_T_POISSON, (uint64_t)(total * i / 6), SIM_SIZE_IMIX, 0, 0);
	one = c;
	one.nflows = 1;
	one.flows[0].rate_bps = c.flows[0].rate_bps + c.flows[1].rate_bps + c.flows[2].rate_bps;
	s = run(&c, NULL, NULL);
	sim_get_totals(s, &t);
	assert_int_equal(t.drops, 0);
	assert_true(fabs(t.utilization - 0.7) < 0.007);
	print_message("3 flows merged:\n");
	mg1_check(&one, t.ring_delay, ref);
	sim_free(s);
	free(ref);
}

/* packets over the qdisc limit are dropped, bulk flows never */
/* the completions (C records): when, and how many bytes */
struct crec {
	unsigned int n;
	uint64_t t[8];
	uint32_t bytes[8];
};

static void rec_c(void *arg, const struct sim_rec *r)
{
	struct crec *c = arg;

	if (r->kind != BQLT_C || c->n >= 8)
		return;
	c->t[c->n] = r->t_ns;
	c->bytes[c->n++] = r->bytes;
}

/*
 * Coalescing by hand: 1514-byte CBR packets every 30280 ns (400 Mbit/s)
 * on 1G (12304 ns on the wire, framed), 50 us coalescing, 5 us to the
 * poll, limit_min far above the traffic. As in the kernel, the first
 * packet stops the queue (adj_limit is 0 until the first completion):
 * packet 0 alone is done at 12304, the timer fires at 62304, the poll at
 * 67304 reaps it, and packets 1 and 2 follow back to back (done at 79608
 * and 91912).
 * - Timer only: 79608 arms it, the poll at 134608 reaps packets 1-4
 *   (packet 4: 121120 + 12304 = 133424); packet 5 (done 163704) arms the
 *   next, at 218704, which reaps 5 and 6; then two packets every 60560.
 * - --coalesce-frames 2: the second completion fires it: 91912 -> poll at
 *   96912 (packets 1, 2); 104216 arms, 133424 fires -> 138424 (3, 4);
 *   then two packets every 60560.
 */
static void coalesce_run(uint32_t frames, const uint64_t *t, const uint32_t *pkts)
{
	static const struct sim_ops ops = { .record = rec_c };
	struct sim_config c;
	struct crec r = { 0 };
	struct sim *s;

	sim_config_init(&c);
	c.duration_ns = 2 * MS;
	c.nflows = 0;
	add_flow(&c, SIM_T_CBR, 400 * M, SIM_SIZE_FIXED, 1514, 0);
	c.coalesce_usecs = 50;
	c.coalesce_frames = frames;
	c.irq_latency_ns = 5000;
	c.irq_jitter_ns = 0;
	set(&c, BQLT_K_LIMIT_MIN, 100000);
	s = run(&c, &ops, &r);
	assert_int_equal(r.n, 8);
	for (unsigned int k = 0; k < r.n; k++) {
		uint64_t want_t = k < 4 ? t[k] : t[3] + (k - 3) * 60560;
		uint32_t want_b = (k < 4 ? pkts[k] : 2) * 1514;

		print_message("frames %u: C %u bytes at %" PRIu64 " ns (want %u at %" PRIu64 ")\n",
			      frames, r.bytes[k], r.t[k], want_b, want_t);
		assert_int_equal(r.t[k], want_t);
		assert_int_equal(r.bytes[k], want_b);
	}
	sim_free(s);
}

static void test_coalescing(void **state)
{
	static const uint64_t t_timer[] = { 67304, 134608, 218704, 279264 };
	static const uint64_t t_frames[] = { 67304, 96912, 138424, 198984 };
	static const uint32_t p_timer[] = { 1, 4, 2, 2 }, p_frames[] = { 1, 2, 2, 2 };

	(void)state;
	coalesce_run(0, t_timer, p_timer);
	coalesce_run(2, t_frames, p_frames);
}

/* durations as text: three digits, the unit after rounding, never 1e+03 */
static void test_fmt_ns(void **state)
{
	static const struct {
		uint64_t ns;
		const char *want;
	} c[] = {
		{ 0, "0 ns" }, { 999, "999 ns" }, { 1000, "1 us" }, { 12345, "12.3 us" },
		{ 999499, "999 us" }, { 999500, "1 ms" }, { 999999, "1 ms" },
		{ 1500000, "1.5 ms" }, { 999600000, "1 s" }, { 31260000, "31.3 ms" },
		{ 999400000000ull, "999 s" }, { 999600000000ull, "1000 s" },
		{ 3600000000000ull, "3600 s" }, { UINT64_MAX, "18446744074 s" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		assert_string_equal(sim_fmt_ns(buf, sizeof(buf), c[i].ns), c[i].want);
}

static void test_qdisc_drops(void **state)
{
	struct sim_config c;
	struct sim_totals t;
	struct sim *s;

	(void)state;
	base(&c);
	c.nflows = 0;
	add_flow(&c, SIM_T_CBR, 2 * G, SIM_SIZE_FIXED, 1514, 0);	/* twice the link */
	c.qlen = 100;
	s = run(&c, NULL, NULL);
	sim_get_totals(s, &t);
	assert_true(t.drops > 0);
	assert_true(t.utilization > 0.99);
	/* about half of what was offered got through */
	assert_true(t.packets > t.drops / 2 && t.packets < t.drops * 2);
	sim_free(s);
}

/* a CBR flow well below the link: throughput equals the offered rate */
static void test_cbr_rate(void **state)
{
	struct sim_config c;
	struct sim_totals t;
	struct sim *s;

	(void)state;
	base(&c);
	c.duration_ns = SEC;
	c.nflows = 0;
	add_flow(&c, SIM_T_CBR, 300 * M, SIM_SIZE_FIXED, 1000, 0);
	s = run(&c, NULL, NULL);
	sim_get_totals(s, &t);
	assert_true(t.throughput_bps > 299.5 * M && t.throughput_bps <= 300 * M);
	/* only at the start: the first packet stops the queue (see above) */
	assert_true(t.starved_ns < 200000);
	assert_int_equal(t.drops, 0);
	sim_free(s);
}

static void test_config_check(void **state)
{
	struct sim_config c;
	struct bql_err e;

	(void)state;
	sim_config_init(&c);
	assert_int_equal(sim_config_check(&c, &e), 0);
	c.link_bps = 0;
	assert_int_equal(sim_config_check(&c, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "--link"));
	sim_config_init(&c);
	c.flows[0].kind = SIM_T_CBR;
	c.flows[0].rate_bps = 0;
	assert_int_equal(sim_config_check(&c, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "--traffic"));
	sim_config_init(&c);
	set(&c, BQLT_K_STALL_THRS, 2);		/* 0 jiffies at HZ 250 */
	assert_int_equal(sim_config_check(&c, &e), -ERANGE);
	assert_non_null(strstr(e.msg, "--set stall_thrs=2"));
	sim_config_init(&c);
	set(&c, BQLT_K_LIMIT_MAX, (uint64_t)DQL_MAX_LIMIT + 1);
	assert_int_equal(sim_config_check(&c, &e), -ERANGE);
	assert_non_null(strstr(e.msg, "limit_max"));
	sim_config_init(&c);
	c.duration_ns = 0;
	assert_int_equal(sim_config_check(&c, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "--duration"));
}

/* ------------------------------------------------------------ histogram */

/*
 * The work estimate against hand computations, and the budget: what must
 * run (400G bulk 1514 B or imix for 1 s) and what must not (#23 class 1).
 */
static void test_work_estimate(void **state)
{
	struct sim_config c;
	struct sim_work w;

	(void)state;
	/* 1G bulk 1514 B for 1 s: 1e9 / (1538 * 8) frames */
	sim_config_init(&c);
	sim_work_count(&c, &w);
	assert_int_equal(w.packets, 81274);
	assert_int_equal(w.arrivals, 0);
	/* one interrupt per 50 us coalescing + 5 us latency: 1e9 / 55e3 + 1 */
	assert_int_equal(w.irqs, 18182);
	/* and a poll per interrupt plus one per 256 packets */
	assert_int_equal(w.polls, 18500);
	assert_int_equal(w.total, w.packets + w.irqs + w.polls);
	assert_int_equal(sim_work_estimate(&c), w.total);
	/* without framing: 1e9 / (1514 * 8) */
	c.no_framing = true;
	sim_work_count(&c, &w);
	assert_int_equal(w.packets, 82562);
	c.no_framing = false;
	/* coalescing 0: an interrupt per packet */
	c.coalesce_usecs = 0;
	c.irq_latency_ns = 0;
	sim_work_count(&c, &w);
	assert_int_equal(w.irqs, w.packets);

	/* runs: 400G of bulk 1514 B, or imix, for 1 s, on 64 queues too */
	sim_config_init(&c);
	c.link_bps = 400 * G;
	assert_true(sim_work_estimate(&c) <= SIM_WORK_MAX);
	c.flows[0].size.kind = SIM_SIZE_IMIX;
	c.nqueues = 64;
	assert_true(sim_work_estimate(&c) <= SIM_WORK_MAX);

	/* refused: 1-byte packets at 400G with an interrupt each */
	sim_config_init(&c);
	c.link_bps = 400 * G;
	c.flows[0].size.a = 1;
	c.coalesce_usecs = 0;
	c.irq_latency_ns = 0;
	sim_work_count(&c, &w);
	assert_true(w.total > SIM_WORK_MAX);
	assert_true(w.irqs > SIM_WORK_MAX / 4);
	/* an hour of 400G */
	sim_config_init(&c);
	c.link_bps = 400 * G;
	c.duration_ns = 3600 * SEC;
	assert_true(sim_work_estimate(&c) > SIM_WORK_MAX);
	/* onoff:400G:1ns:1ns on the default link: its periods */
	sim_config_init(&c);
	c.nflows = 0;
	add_flow(&c, SIM_T_ONOFF, 400 * G, SIM_SIZE_FIXED, 1514, 0);
	c.flows[0].on_ns = 1;
	c.flows[0].off_ns = 1;
	sim_work_count(&c, &w);
	assert_int_equal(w.periods, 500000000);
	assert_true(w.total > SIM_WORK_MAX);
	/* the packets a slow link carries are what the flows offer at most */
	sim_config_init(&c);
	c.nflows = 0;
	add_flow(&c, SIM_T_CBR, 10 * M, SIM_SIZE_FIXED, 1250, 0);
	sim_work_count(&c, &w);
	assert_int_equal(w.arrivals, 1000);
	assert_int_equal(w.packets, 1000);
}

static void test_hist(void **state)
{
	static struct sim_hist h, h2;

	(void)state;
	memset(&h, 0, sizeof(h));
	assert_int_equal(sim_hist_quantile(&h, 0.5), 0);
	for (uint64_t v = 1; v <= 50; v++)
		sim_hist_add(&h, v);		/* exact below 64 */
	assert_int_equal(sim_hist_quantile(&h, 0.5), 25);
	assert_int_equal(sim_hist_quantile(&h, 0.99), 50);
	assert_int_equal(sim_hist_quantile(&h, 1.0), 50);
	assert_int_equal(h.max, 50);

	/* within 1/64 above the true quantile, never above the maximum */
	memset(&h, 0, sizeof(h));
	for (uint64_t v = 1000; v < 1001000; v += 1000)
		sim_hist_add(&h, v);
	for (double q = 0.1; q < 1.0; q += 0.1) {
		uint64_t want = (uint64_t)(q * 1000 + 0.5) * 1000, got = sim_hist_quantile(&h, q);

		assert_true(got >= want);
		assert_true(got <= want + want / 64);
	}
	assert_int_equal(sim_hist_quantile(&h, 1.0), 1000000);

	/* merging two halves is the whole */
	memset(&h2, 0, sizeof(h2));
	sim_hist_add(&h2, UINT64_MAX);
	sim_hist_merge(&h2, &h);
	assert_int_equal(h2.n, h.n + 1);
	assert_int_equal(h2.max, UINT64_MAX);
	assert_int_equal(sim_hist_quantile(&h2, 1.0), UINT64_MAX);
	assert_int_equal(sim_hist_quantile(&h2, 0.5), sim_hist_quantile(&h, 0.5));

	/* a merge reads up to the maximum's bucket only: it is a copy all the same */
	memset(&h2, 0, sizeof(h2));
	sim_hist_merge(&h2, &h);
	assert_memory_equal(&h2, &h, sizeof(h));
	sim_hist_add(&h, UINT64_MAX);	/* the last bucket */
	memset(&h2, 0, sizeof(h2));
	sim_hist_merge(&h2, &h);
	assert_memory_equal(&h2, &h, sizeof(h));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conservation),
		cmocka_unit_test(test_link_capacity),
		cmocka_unit_test(test_defaults_fill_1g),
		cmocka_unit_test(test_tiny_limit_starves),
		cmocka_unit_test(test_hold_time_decay),
		cmocka_unit_test(test_stall_detector),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_determinism_stats),
		cmocka_unit_test(test_replay_agrees),
		cmocka_unit_test(test_ring_full),
		cmocka_unit_test(test_qdisc_drops),
		cmocka_unit_test(test_cbr_rate),
		cmocka_unit_test(test_config_check),
		cmocka_unit_test(test_hist),
		cmocka_unit_test(test_work_estimate),
		cmocka_unit_test(test_framing),
		cmocka_unit_test(test_descriptors),
		cmocka_unit_test(test_poisson_mg1),
		cmocka_unit_test(test_poisson_flows_rates),
		cmocka_unit_test(test_poisson_flows_imix),
		cmocka_unit_test(test_coalescing),
		cmocka_unit_test(test_fmt_ns),
		cmocka_unit_test(test_poisson_flows_merge),
		cmocka_unit_test(test_ring_bound_warning),
		cmocka_unit_test(test_after_end_warning),
		cmocka_unit_test(test_ahead_same),
		cmocka_unit_test(test_pfifo_same),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
