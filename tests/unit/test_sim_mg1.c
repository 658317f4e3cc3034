// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the closed-loop NIC model (dql/sim.c) against queueing
 * theory: with BQL out of the way, Poisson arrivals into the ring are an
 * M/G/1 queue, whose waiting times the test computes on its own (the
 * Lindley recursion) and compares with the model's ring delay; and the
 * Poisson flows, one superposed process, each still offer their own
 * rate and sizes (imix). The rest is in test_sim.c and
 * test_sim_model.c.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_poisson_mg1),
		cmocka_unit_test(test_poisson_flows_rates),
		cmocka_unit_test(test_poisson_flows_imix),
		cmocka_unit_test(test_poisson_flows_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
