// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the settings advisor (dql/tune.c): the sweep and the
 * refinement, the choice and its margins, results that do not depend on
 * the order of evaluation (hence not on the thread count) and the known
 * cases of the issue. The fitted model is tested in test_tune_fit.c.
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
#include "dql/tune.h"

#define MS	1000000ull
#define G	1000000000ull
#define M	1000000ull

static void model_coarse_irq(struct sim_config *c)
{
	sim_config_init(c);		/* 1G, one bulk flow */
	c->coalesce_usecs = 500;
	c->duration_ns = 300 * MS;
}

/* the whole search, sequentially, in the order given or reversed */
struct search {
	struct tune_result base;
	struct tune_result res[TUNE_MAX_CAND];
	unsigned int n;
	int pick, best;
};

static void eval_all(const struct sim_config *c, const struct tune_settings *set,
		     struct tune_result *res, unsigned int n, bool reverse)
{
	for (unsigned int k = 0; k < n; k++) {
		unsigned int i = reverse ? n - 1 - k : k;

		tune_eval(c, &set[i], &res[i]);
	}
}

static void search(const struct sim_config *c, struct search *s, bool reverse)
{
	struct tune_settings def, set[TUNE_MAX_CAND];
	unsigned int n;

	memset(s, 0, sizeof(*s));
	tune_defaults(&def);
	tune_eval(c, &def, &s->base);
	assert_int_equal(s->base.err, 0);
	n = tune_coarse(c, &s->base, 0, set, TUNE_MAX_CAND);
	eval_all(c, set, s->res, n, reverse);
	s->n = n;
	tune_mark(s->res, s->n, &s->base, 0.995);
	for (int round = 0; round < 2; round++) {
		n = tune_refine(s->res, s->n, 0, set, TUNE_MAX_CAND - s->n);
		eval_all(c, set, s->res + s->n, n, reverse);
		s->n += n;
		tune_mark(s->res, s->n, &s->base, 0.995);
	}
	s->pick = tune_pick(s->res, s->n, &s->base, 0.1, tune_min_gain_ns(c), &s->best);
}

static void test_known_case(void **state)
{
	static struct search s;
	struct sim_config c;
	const struct tune_result *r;

	(void)state;
	model_coarse_irq(&c);
	search(&c, &s, false);
	assert_true(s.pick >= 0);
	r = &s.res[s.pick];
	assert_true(r->p99 < s.base.p99);
	assert_true((double)r->bytes_tx >= 0.995 * (double)s.base.bytes_tx);
	assert_true(r->set.limit_max < DQL_MAX_LIMIT);
	/* no feasible candidate has a lower p99 */
	for (unsigned int i = 0; i < s.n; i++)
		if (s.res[i].feasible)
			assert_true(s.res[i].p99 >= r->p99);
}

static void test_defaults_best(void **state)
{
	static struct search s;
	struct sim_config c;

	(void)state;
	sim_config_init(&c);
	c.flows[0].kind = SIM_T_POISSON;
	c.flows[0].rate_bps = 300 * M;
	c.duration_ns = 300 * MS;
	search(&c, &s, false);
	assert_int_equal(s.pick, -1);
}

static void test_order_independent(void **state)
{
	static struct search a, b;
	struct sim_config c;

	(void)state;
	model_coarse_irq(&c);
	c.flows[0].kind = SIM_T_POISSON;	/* random traffic: seeds matter */
	c.flows[0].rate_bps = 950 * M;
	c.irq_jitter_ns = 3000;
	search(&c, &a, false);
	search(&c, &b, true);
	assert_int_equal(a.n, b.n);
	assert_int_equal(a.pick, b.pick);
	for (unsigned int i = 0; i < a.n; i++) {
		assert_memory_equal(&a.res[i].set, &b.res[i].set, sizeof(a.res[i].set));
		assert_int_equal(a.res[i].bytes_tx, b.res[i].bytes_tx);
		assert_int_equal(a.res[i].p99, b.res[i].p99);
	}
}

static void test_coarse(void **state)
{
	struct tune_settings set[TUNE_MAX_CAND];
	struct tune_result base;
	struct sim_config c;
	unsigned int n, capped = 0;
	uint32_t lo = UINT32_MAX, hi = 0;

	(void)state;
	sim_config_init(&c);
	memset(&base, 0, sizeof(base));
	base.peak_limit = 100000;
	n = tune_coarse(&c, &base, 0, set, TUNE_MAX_CAND);
	assert_int_equal(n, 26);		/* 12 caps and none, x 100 and 20 ms */
	for (unsigned int i = 0; i < n; i++) {
		assert_false(tune_is_default(&set[i]));
		/* 1000 ms runs 5 s: not in the sweep */
		assert_true(set[i].hold_time == 100 || set[i].hold_time == 20);
		for (unsigned int k = 0; k < i; k++)
			assert_false(!memcmp(&set[i], &set[k], sizeof(set[i])));
		if (set[i].limit_max == DQL_MAX_LIMIT)
			continue;
		capped++;
		if (set[i].limit_max < lo)
			lo = set[i].limit_max;
		if (set[i].limit_max > hi)
			hi = set[i].limit_max;
	}
	assert_int_equal(lo, 1514);		/* one packet */
	assert_int_equal(hi, 200000);		/* twice the defaults' peak */
	assert_true(capped >= 24);
}

static void test_refine(void **state)
{
	struct tune_result done[3];
	struct tune_settings set[TUNE_MAX_CAND];
	unsigned int n;

	(void)state;
	memset(done, 0, sizeof(done));
	done[0].set = (struct tune_settings){ 0, 10000, 1000 };
	done[0].p99 = 100;
	done[1].set = (struct tune_settings){ 0, 20000, 1000 };
	done[1].p99 = 200;
	done[1].feasible = true;
	done[2].set = (struct tune_settings){ 0, 40000, 1000 };
	done[2].p99 = 400;
	done[2].feasible = true;
	n = tune_refine(done, 3, 0, set, TUNE_MAX_CAND);
	assert_true(n >= 5);
	for (unsigned int i = 0; i < n; i++) {
		if (set[i].limit_max == 20000) {	/* a floor under the best cap */
			assert_true(set[i].limit_min > 0 && set[i].limit_min < 20000);
			continue;
		}
		assert_true(set[i].limit_max > 10000 && set[i].limit_max < 20000);
		assert_int_equal(set[i].hold_time, 1000);
	}
	/* nothing feasible: nothing to refine */
	done[1].feasible = done[2].feasible = false;
	assert_int_equal(tune_refine(done, 3, 0, set, TUNE_MAX_CAND), 0);
}

/* a floor (the device's full-size frame, an interrupt's worth) bounds both steps */
static void test_floor(void **state)
{
	struct tune_settings set[TUNE_MAX_CAND];
	struct tune_result base, done[2];
	struct sim_config c;
	unsigned int n;

	(void)state;
	sim_config_init(&c);
	memset(&base, 0, sizeof(base));
	base.peak_limit = 100000;
	n = tune_coarse(&c, &base, 9014, set, TUNE_MAX_CAND);
	assert_true(n > 2);
	for (unsigned int i = 0; i < n; i++)
		assert_true(set[i].limit_max >= 9014);
	/* the best is the lowest cap tried: refine never goes under the floor */
	memset(done, 0, sizeof(done));
	done[0].set = (struct tune_settings){ 0, 9014, 100 };
	done[0].p99 = 100;
	done[0].feasible = true;
	done[1].set = (struct tune_settings){ 0, 20000, 100 };
	done[1].p99 = 200;
	done[1].feasible = true;
	n = tune_refine(done, 2, 9014, set, TUNE_MAX_CAND);
	for (unsigned int i = 0; i < n; i++)
		assert_true(set[i].limit_max >= 9014);
	/* without the floor it would have tried below it */
	n = tune_refine(done, 2, 0, set, TUNE_MAX_CAND);
	{
		bool below = false;

		for (unsigned int i = 0; i < n; i++)
			below |= set[i].limit_max < 9014;
		assert_true(below);
	}
}

static void test_pick_margins(void **state)
{
	struct tune_result base, r[2];
	int best;

	(void)state;
	memset(&base, 0, sizeof(base));
	memset(r, 0, sizeof(r));
	base.p99 = 1000;
	base.bytes_tx = 1000;
	r[0].p99 = 950;			/* 5% better */
	r[0].bytes_tx = 1000;
	r[1].p99 = 500;			/* 50% better but too slow */
	r[1].bytes_tx = 900;
	tune_mark(r, 2, &base, 0.995);
	assert_true(r[0].feasible);
	assert_false(r[1].feasible);
	assert_int_equal(tune_pick(r, 2, &base, 0.1, 0, &best), -1);
	assert_int_equal(best, 0);
	assert_int_equal(tune_pick(r, 2, &base, 0.04, 0, &best), 0);
	/* and the absolute margin */
	assert_int_equal(tune_pick(r, 2, &base, 0.04, 60, &best), -1);
	tune_mark(r, 2, &base, 0.9);
	assert_int_equal(tune_pick(r, 2, &base, 0.1, 0, &best), 1);
}

/*
 * Ties go to fewer changes: the same latency with hold_time 100 ms and
 * with the default hold time, in either order, picks the one that
 * changes less; a lower latency still wins over fewer changes.
 */
static void test_pick_tie_fewer_changes(void **state)
{
	struct tune_result base, r[2];
	int best;

	(void)state;
	for (int order = 0; order < 2; order++) {
		memset(&base, 0, sizeof(base));
		memset(r, 0, sizeof(r));
		base.p99 = 1000;
		base.bytes_tx = 1000;
		r[order].set = (struct tune_settings){ 7995, 10660, 100 };
		r[!order].set = (struct tune_settings){ 7995, 10660, 1000 };
		for (int i = 0; i < 2; i++) {
			r[i].p99 = 500;
			r[i].bytes_tx = 1000;
			r[i].throughput_bps = r[i].set.hold_time == 100 ? 1001 : 1000;
		}
		tune_mark(r, 2, &base, 0.995);
		assert_int_equal(tune_pick(r, 2, &base, 0.1, 0, &best), !order);
		assert_int_equal(tune_changes(&r[!order].set), 2);
		/* a lower latency wins whatever it changes */
		r[order].p99 = 499;
		assert_int_equal(tune_pick(r, 2, &base, 0.1, 0, &best), order);
	}
}

/* ------------------------------------------------------------ ensemble */

/* @n queues, one backlogged flow pinned to each */
static void model_pinned(struct sim_config *c, unsigned int n)
{
	sim_config_init(c);
	c->link_bps = 10 * G;
	c->nqueues = n;
	c->nflows = n;
	for (unsigned int i = 0; i < n; i++) {
		memset(&c->flows[i], 0, sizeof(c->flows[i]));
		c->flows[i].kind = SIM_T_BULK;
		c->flows[i].pinned = true;
		c->flows[i].queue = i;
		c->flows[i].size.kind = SIM_SIZE_FIXED;
		c->flows[i].size.a = 1514;
	}
}

static void test_ensemble_members(void **state)
{
	struct tune_member m[TUNE_MAX_MEMBERS];
	struct sim_config c;
	unsigned int n, busy1 = 0, busy4 = 0, late = 0, load = 0;

	(void)state;
	model_pinned(&c, 8);
	n = tune_ensemble(&c, 0, m, TUNE_MAX_MEMBERS);
	/* the model first, exactly */
	assert_true(n >= 5);
	assert_int_equal(m[0].irq_late_ns, 0);
	assert_int_equal(m[0].busy, 0);
	assert_int_equal(m[0].load_pct, 0);
	assert_int_equal(m[0].seed_add, 0);
	for (unsigned int i = 0; i < n; i++) {
		busy1 += m[i].busy == 1;
		busy4 += m[i].busy == 4;
		late += m[i].irq_late_ns == 20000 && m[i].irq_jitter_ns == 10000;
		load += m[i].load_pct != 0;
		for (unsigned int k = 0; k < i; k++)
			assert_true(m[i].seed_add != m[k].seed_add);
	}
	assert_int_equal(busy1, 1);
	assert_int_equal(busy4, 1);
	assert_int_equal(late, 1);
	assert_int_equal(load, 0);		/* bulk flows have no rate to scale */
	/* the required lateness: its member, with half as jitter, judged for throughput only */
	n = tune_ensemble(&c, 365000, m, TUNE_MAX_MEMBERS);
	late = 0;
	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(m[i].throughput_only, m[i].irq_late_ns != 0);
		late += m[i].irq_late_ns == 365000 && m[i].irq_jitter_ns == 182500;
	}
	assert_int_equal(late, 1);
	/* one queue, Poisson: no busy members, load +-20% */
	sim_config_init(&c);
	c.flows[0].kind = SIM_T_POISSON;
	c.flows[0].rate_bps = 500 * M;
	n = tune_ensemble(&c, 0, m, TUNE_MAX_MEMBERS);
	busy1 = load = 0;
	for (unsigned int i = 0; i < n; i++) {
		busy1 += m[i].busy != 0;
		if (m[i].load_pct)
			load += m[i].load_pct == 20 ? 1 : m[i].load_pct == -20 ? 2 : 100;
	}
	assert_int_equal(busy1, 0);
	assert_int_equal(load, 3);
}

static void test_member_cfg(void **state)
{
	struct sim_config c, o;
	struct tune_member m;
	char buf[160];

	(void)state;
	model_pinned(&c, 8);
	c.duration_ns = 300 * MS;
	c.irq_latency_ns = 5000;
	/* runs of 5 hold times, the latency added, the jitter at least the member's */
	m = (struct tune_member){ .irq_late_ns = 20000, .irq_jitter_ns = 10000, .seed_add = 3 };
	tune_member_cfg(&c, &m, 1000, &o);
	assert_int_equal(o.duration_ns, 5000 * MS);
	assert_int_equal(o.irq_latency_ns, 25000);
	assert_int_equal(o.irq_jitter_ns, 10000);
	assert_int_equal(o.seed, 4);
	assert_int_equal(o.nflows, 8);
	tune_member_cfg(&c, &m, 20, &o);
	assert_int_equal(o.duration_ns, 300 * MS);	/* longer than 5 x 20 ms already */
	assert_string_equal(tune_member_fmt(buf, sizeof(buf), &c, &m),
			    "interrupts 20 us later, +-10 us, seed 4");
	/* one busy queue of eight: only the flow of tx-0 is left */
	m = (struct tune_member){ .busy = 1 };
	tune_member_cfg(&c, &m, 100, &o);
	assert_int_equal(o.nflows, 1);
	assert_int_equal(o.flows[0].queue, 0);
	assert_true(o.flows[0].pinned);
	assert_int_equal(tune_busy_queues(&o), 1);
	/* hashed flows stay where the hash put them, pinned there */
	c.flows[0].pinned = c.flows[1].pinned = false;
	c.nflows = 2;
	tune_member_cfg(&c, &m, 100, &o);
	assert_int_equal(o.nflows, sim_flow_queue(&c, 0) == sim_flow_queue(&c, 1) ? 2 : 1);
	assert_int_equal(o.flows[0].queue, sim_flow_queue(&c, 0));
	/* load: rates scaled, bulk flows untouched */
	sim_config_init(&c);
	c.nflows = 2;
	c.flows[1] = c.flows[0];
	c.flows[0].kind = SIM_T_CBR;
	c.flows[0].rate_bps = 300 * M;
	m = (struct tune_member){ .load_pct = -20 };
	tune_member_cfg(&c, &m, 100, &o);
	assert_int_equal(o.flows[0].rate_bps, 240 * M);
	assert_int_equal(o.flows[1].kind, SIM_T_BULK);
	assert_int_equal(o.flows[1].rate_bps, 0);
}

static void test_fold(void **state)
{
	struct tune_result agg, r[3], base[3];

	(void)state;
	memset(r, 0, sizeof(r));
	memset(base, 0, sizeof(base));
	for (int i = 0; i < 3; i++) {
		base[i].throughput_bps = 1000;
		r[i].throughput_bps = 1000;
		r[i].p99 = 100 * (unsigned int)(i + 1);
		r[i].qdisc_p99 = 5000;
	}
	r[1].throughput_bps = 990;		/* 99%: below keep 0.995 */
	r[2].throughput_bps = 980;
	tune_fold(&agg, &r[0], &base[0], 0, true, 0.995, TUNE_QDISC_FQ);
	assert_true(agg.feasible);
	assert_int_equal(agg.worst_lat, 100);
	tune_fold(&agg, &r[1], &base[1], 1, true, 0.995, TUNE_QDISC_FQ);
	tune_fold(&agg, &r[2], &base[2], 2, true, 0.995, TUNE_QDISC_FQ);
	assert_false(agg.feasible);
	assert_int_equal(agg.fail_member, 1);		/* the first below keep */
	assert_int_equal(agg.worst_ratio_member, 2);
	assert_true(fabs(agg.worst_ratio - 0.98) < 1e-9);
	assert_int_equal(agg.worst_lat, 300);
	assert_int_equal(agg.worst_lat_member, 2);
	assert_int_equal(agg.members, 3);
	assert_int_equal(agg.p99, 100);			/* the model's */
	/* behind a FIFO the qdisc's wait counts too */
	tune_fold(&agg, &r[0], &base[0], 0, true, 0.995, TUNE_QDISC_FIFO);
	assert_int_equal(agg.worst_lat, 5100);
	assert_int_equal(tune_latency(&r[2], TUNE_QDISC_FIFO), 5300);
	assert_int_equal(tune_latency(&r[2], TUNE_QDISC_UNKNOWN), 300);
	/* a run that could not simulate is never feasible */
	r[0].err = -ENOMEM;
	tune_fold(&agg, &r[0], &base[0], 0, true, 0.995, TUNE_QDISC_FQ);
	assert_false(agg.feasible);
	assert_int_equal(agg.fail_member, 0);
	/* a throughput-only member: its ratio counts, its latency does not */
	r[0].err = 0;
	tune_fold(&agg, &r[0], &base[0], 0, true, 0.995, TUNE_QDISC_FQ);
	tune_fold(&agg, &r[2], &base[2], 1, false, 0.995, TUNE_QDISC_FQ);
	assert_int_equal(agg.worst_lat, 100);
	assert_int_equal(agg.worst_lat_member, 0);
	assert_false(agg.feasible);
	assert_int_equal(agg.fail_member, 1);
}

static void test_hold_default(void **state)
{
	struct tune_result done[3];
	struct tune_settings s;

	(void)state;
	memset(done, 0, sizeof(done));
	done[0].set = (struct tune_settings){ 0, 10000, 100 };
	done[0].members = 1;
	done[0].worst_lat = 50;
	done[0].feasible = true;
	done[1].set = (struct tune_settings){ 0, 5000, 20 };
	done[1].members = 1;
	done[1].worst_lat = 10;		/* better, infeasible */
	done[2].set = (struct tune_settings){ 0, DQL_MAX_LIMIT, 100 };
	done[2].members = 1;
	done[2].worst_lat = 90;
	done[2].feasible = true;
	assert_true(tune_hold_default(done, 3, &s));
	assert_int_equal(s.limit_max, 10000);
	assert_int_equal(s.hold_time, 1000);
	done[1].set = s;		/* tried already */
	assert_false(tune_hold_default(done, 3, &s));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_case),
		cmocka_unit_test(test_defaults_best),
		cmocka_unit_test(test_order_independent),
		cmocka_unit_test(test_coarse),
		cmocka_unit_test(test_refine),
		cmocka_unit_test(test_floor),
		cmocka_unit_test(test_pick_margins),
		cmocka_unit_test(test_pick_tie_fewer_changes),
		cmocka_unit_test(test_ensemble_members),
		cmocka_unit_test(test_member_cfg),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_hold_default),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
