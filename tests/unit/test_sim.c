// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the closed-loop NIC model (dql/sim.c): conservation, the
 * link's capacity, BQL's behaviour under the model (full link with the
 * defaults, starvation with a tiny limit_max, hold_time decay, the stall
 * detector), determinism, the delay histogram, and that every record the
 * model emits replays to the same limits (dql/replay.c).
 */
#include <errno.h>
#include <inttypes.h>
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
	}
}
#define NMODELS 4

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

/* packets over the qdisc limit are dropped, bulk flows never */
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
	/* 1G bulk 1514 B for 1 s: 1e9 / (1514 * 8) packets */
	sim_config_init(&c);
	sim_work_count(&c, &w);
	assert_int_equal(w.packets, 82562);
	assert_int_equal(w.arrivals, 0);
	/* one interrupt per 50 us coalescing + 5 us latency: 1e9 / 55e3 + 1 */
	assert_int_equal(w.irqs, 18182);
	/* and a poll per interrupt plus one per 256 packets */
	assert_int_equal(w.polls, 18505);
	assert_int_equal(w.total, w.packets + w.irqs + w.polls);
	assert_int_equal(sim_work_estimate(&c), w.total);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
