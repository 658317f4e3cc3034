// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the closed-loop NIC model (dql/sim.c): conservation, the
 * link's capacity, BQL's behaviour under the model (full link with the
 * defaults, starvation with a tiny limit_max, hold_time decay, the stall
 * detector), determinism, that every record the model emits replays to
 * the same limits (dql/replay.c), and that arrivals taken ahead of time
 * order or polled in FIFO order change nothing. The model's details and
 * the delay histogram are in test_sim_model.c, the M/G/1 checks in
 * test_sim_mg1.c; the shared helpers in simtest.h.
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
#include "simtest.h"

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
		cmocka_unit_test(test_ahead_same),
		cmocka_unit_test(test_pfifo_same),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
