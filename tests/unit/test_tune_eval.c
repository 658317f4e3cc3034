// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for tune's engine (lib/model/tune_eval.c), with no command
 * line: a starving candidate is rejected in the first member and run in no
 * other, the margins of a window-bound link against the hand computation,
 * the budget refusing before any simulation, a simulation that cannot run
 * failing the search by name, and the same search on 1, 2 and 3 threads.
 * The pieces it drives (grid, fold, choice) are tested in test_tune.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dql/dql.h"
#include "dql/sim.h"
#include "dql/tune.h"
#include "lib/model/tune_eval.h"

#define US	1000ull
#define MS	1000000ull
#define G	1000000000ull

/* 1 Gbit/s, one backlogged flow of 1514-byte packets, coarse coalescing */
static void model_coarse_irq(struct sim_config *c)
{
	sim_config_init(c);
	c->coalesce_usecs = 500;
	c->duration_ns = 100 * MS;
}

static struct tune_engine *engine(const struct sim_config *c, unsigned int threads)
{
	struct tune_engine *e = malloc(sizeof(*e));

	assert_non_null(e);
	tune_engine_init(e, c);
	e->threads = threads;
	return e;
}

static void engine_free(struct tune_engine *e)
{
	tune_engine_free(e);
	free(e);
}

static void test_init(void **state)
{
	struct sim_config c;
	struct tune_engine e;

	(void)state;
	sim_config_init(&c);
	tune_engine_init(&e, &c);
	assert_ptr_equal(e.cfg, &c);
	assert_true(e.keep == TUNE_KEEP_DEFAULT);
	assert_true(e.min_gain == TUNE_MIN_GAIN_DEFAULT);
	assert_int_equal(e.qdisc, TUNE_QDISC_UNKNOWN);
	assert_int_equal(e.floor, 0);
	/* sized by the CPUs this process may use */
	assert_true(e.threads >= 1 && e.threads <= TUNE_MAX_THREADS);
	assert_null(e.res);
	assert_int_equal(e.sims, 0);
	tune_engine_free(&e);
}

/*
 * limit_max of one packet under 500 us coalescing: DQL lets two packets
 * out (it stops the queue once past the limit), then waits for the
 * interrupt, 500 us after the first completion plus 5 us of latency: 2
 * packets of 1514 bytes per 12.3 + 500 + 5 us, 46.8 Mbit/s, 4.8% of the
 * defaults' 984 Mbit/s of payload. Rejected in the model, the first
 * member, and run in no other; no cap with the same hold time keeps the
 * throughput in all.
 */
static void test_starving_rejected(void **state)
{
	static const struct tune_settings set[] = {
		{ 0, 1514, 100 },
		{ 0, DQL_MAX_LIMIT, 100 },
	};
	struct tune_result agg[2];
	struct sim_config c;
	struct tune_engine *e;
	struct bql_err err;

	(void)state;
	model_coarse_irq(&c);
	e = engine(&c, 2);
	assert_int_equal(tune_engine_base(e, &err), 0);
	assert_int_equal(e->nmem, 3);		/* the model, late interrupts, a seed */
	assert_int_equal(e->sims, 3);
	assert_true(e->base.feasible);
	assert_int_equal(e->nwin, 1);
	assert_int_equal(e->win_hold[0], 1000);
	memset(agg, 0, sizeof(agg));
	assert_int_equal(tune_engine_eval(e, set, 2, agg, &err), 0);
	assert_false(agg[0].feasible);
	assert_int_equal(agg[0].fail_member, 0);
	assert_int_equal(agg[0].members, 1);	/* early stopping */
	assert_true(agg[0].worst_ratio > 0.04 && agg[0].worst_ratio < 0.05);
	assert_true(agg[0].starved_ns > 0);
	assert_true(agg[1].feasible);
	assert_int_equal(agg[1].fail_member, -1);
	assert_int_equal(agg[1].members, e->nmem);
	/* the defaults over runs of 100 ms hold times: one window more, run once */
	assert_int_equal(e->nwin, 2);
	assert_int_equal(e->win_hold[1], 100);
	/* 3 windows + the 2 settings in the model + the cap-less one in 2 more */
	assert_int_equal(e->sims, 3 + 3 + 2 + 2);
	assert_int_equal(tune_engine_eval(e, set + 1, 1, agg, &err), 0);
	assert_int_equal(e->nwin, 2);
	assert_int_equal(e->sims, 3 + 3 + 2 + 2 + 3);
	engine_free(e);
}

/* ------------------------------------------------------------ margins */

/*
 * The margin's ladder, one lateness at a time, as tune_eval.h says it:
 * runs of TUNE_HOLDS hold times (at least the model's duration), the rungs
 * until one fails, then three halvings of the step between the last held
 * and the first failed (a step of 4 us or less is not split). Returns the latest
 * lateness held; *@beyond if none failed.
 */
static bool late_holds(const struct sim_config *c, const struct tune_settings *s, double keep,
		       double ref, uint64_t late)
{
	struct tune_member m = { .irq_late_ns = late, .irq_jitter_ns = late / 2 };
	struct sim_config mc;
	struct tune_result res;

	tune_member_cfg(c, &m, s->hold_time, &mc);
	tune_eval(&mc, s, &res);
	assert_int_equal(res.err, 0);
	return res.throughput_bps / ref >= keep;
}

static uint64_t ladder(const struct sim_config *c, const struct tune_settings *s, double keep,
		       double ref, bool *beyond)
{
	uint64_t held = 0, fail = 0;

	for (unsigned int r = 0; r < TUNE_NLATE && !fail; r++) {
		uint64_t late = tune_late_us[r] * US;

		if (late_holds(c, s, keep, ref, late))
			held = late;
		else
			fail = late;
	}
	*beyond = !fail;
	for (unsigned int round = 0; fail && round < 3 && fail - held > 4 * US; round++) {
		uint64_t late = held + (fail - held) / 2;

		if (late_holds(c, s, keep, ref, late))
			held = late;
		else
			fail = late;
	}
	return held;
}

/*
 * A link bound by a window of k packets in flight, every interrupt at
 * once (no coalescing), 5 us late in the model: packet i + k leaves when
 * packet i's completion is polled. A 1514-byte frame takes t = 1538 x 8
 * = 12.304 us at 1 Gbit/s. With the margin's lateness L (jitter L / 2,
 * uniform) interrupts come 5 + L/2 .. 5 + 3L/2 us after a frame:
 *  - the link never idles while the latest comes within (k - 1) t:
 *    L <= ((k - 1) t - 5) / 1.5;
 *  - it carries at most k t / (t + the earliest) of the link, below keep
 *    once L > 2 (k t / keep - t - 5).
 * The defaults on a ring of 6 descriptors: k = 6, held from 37.7 us, lost
 * past 113.8 us. limit_min = limit_max = 3 frames pins DQL's limit, which
 * lets one frame more out: k = 4, held from 21.3 us, lost past 64.3 us.
 * The ladder (10, 20, 40, 80, 160 us, then three halvings between the last
 * held and the first failed) reports at least 35 us and 20 us, and below
 * the bounds where they must fail. The runs are 5 s (5 hold times of 1 s):
 * the bounds do not depend on the run's length.
 */
static void test_margins_hand(void **state)
{
	const double t = 1538 * 8, keep = TUNE_KEEP_DEFAULT;
	struct tune_settings s[2];
	struct tune_margin m[2];
	struct tune_result def;
	struct sim_config c;
	struct tune_engine *e;
	struct bql_err err;
	bool beyond;

	(void)state;
	sim_config_init(&c);
	c.coalesce_usecs = 0;
	c.ring = 6;
	c.duration_ns = 100 * MS;
	tune_defaults(&s[0]);
	s[1] = (struct tune_settings){ 3 * 1514, 3 * 1514, 1000 };
	e = engine(&c, 2);
	assert_int_equal(tune_engine_margins(e, s, 2, m, &err), 0);
	/*
	 * the reference: the defaults on the model over as long a run (5 hold
	 * times); 1514 of 1538 bytes of payload
	 */
	{
		struct tune_member none = { 0 };
		struct sim_config mc;

		tune_member_cfg(&c, &none, 1000, &mc);
		assert_int_equal(mc.duration_ns, 5000 * MS);
		tune_eval(&mc, &s[0], &def);
	}
	assert_true(e->margin_ref == def.throughput_bps);
	assert_true(e->margin_ref > 0.98 * G && e->margin_ref <= 1514.0 / 1538 * G);
	for (int k = 0; k < 2; k++) {
		unsigned int win = k ? 4 : 6;
		double held_from = ((win - 1) * t - 5000) / 1.5;
		double lost_past = 2 * (win * t / keep - t - 5000);

		assert_true(m[k].known);
		assert_false(m[k].beyond);
		assert_true((double)m[k].held_ns < lost_past);
		assert_true(m[k].held_ns >= (k ? 20 : 35) * US);
		assert_true(held_from >= (k ? 20 : 35) * US);	/* the bounds as said */
		/* the same as climbing the ladder one lateness at a time */
		assert_int_equal(m[k].held_ns,
				 ladder(&c, &s[k], keep, def.throughput_bps, &beyond));
		assert_false(beyond);
	}
	/* the cap holds less than the ring: its window is smaller */
	assert_true(m[1].held_ns < m[0].held_ns);
	/* more than TUNE_MARGIN_MAX settings at once is refused, naming it */
	{
		struct tune_settings many[TUNE_MARGIN_MAX + 1];
		struct tune_margin mm[TUNE_MARGIN_MAX + 1];

		for (int k = 0; k <= TUNE_MARGIN_MAX; k++)
			many[k] = s[0];
		assert_int_equal(tune_engine_margins(e, many, TUNE_MARGIN_MAX + 1, mm, &err),
				 -EINVAL);
		assert_non_null(strstr(err.msg, "8 at most"));
	}
	engine_free(e);
}

/* ------------------------------------------------------------ the budget */

static void test_budget(void **state)
{
	struct sim_config c;
	struct tune_engine *e;
	uint64_t small;

	(void)state;
	model_coarse_irq(&c);
	e = engine(&c, 1);
	assert_int_equal(tune_engine_plan(e), 0);
	assert_int_equal(e->nmem, 3);
	assert_true(e->work > 0 && e->work <= TUNE_WORK_MAX);
	small = e->work;
	/*
	 * A minute of 400 Gbit/s: some 2e9 frames a run, times the 23 margin
	 * runs alone is past 1e10 events. Refused up front: nothing simulated.
	 */
	c.link_bps = 400 * G;
	c.duration_ns = 60000 * MS;
	assert_int_equal(tune_engine_plan(e), -E2BIG);
	assert_true(e->work > TUNE_WORK_MAX);
	assert_true(e->work > 400 * small);
	assert_int_equal(e->sims, 0);
	assert_null(e->res);
	engine_free(e);
}

/* a simulation that cannot run fails the step, named, before any result */
static void test_cannot_simulate(void **state)
{
	struct sim_config c;
	struct tune_engine *e;
	struct bql_err err;

	(void)state;
	model_coarse_irq(&c);
	/* settings the search does not replace fill the table: no room for its 3 */
	for (c.nset = 0; c.nset < SIM_MAX_SET - 2; c.nset++)
		c.set[c.nset] = (struct sim_kv){ BQLT_K_STALL_THRS, 0 };
	e = engine(&c, 2);
	memset(&err, 0, sizeof(err));
	assert_int_equal(tune_engine_search(e, &err), -E2BIG);
	assert_int_equal(err.code, E2BIG);
	assert_string_equal(err.msg, "cannot simulate limit_min=0 limit_max=max hold_time=1000 (the model): Argument list too long");
	assert_int_equal(e->nres, 0);
	assert_false(e->have_margin);
	engine_free(e);
}

/* ------------------------------------------------------------ the search */

struct seen {
	unsigned int calls, last_done, last_n;
	bool bad;
};

static void on_progress(void *arg, const struct tune_engine *e, unsigned int done, unsigned int n)
{
	struct seen *s = arg;

	s->calls++;
	if (!e->stage || !done || done > n)
		s->bad = true;
	s->last_done = done;
	s->last_n = n;
}

static void on_threads_short(void *arg, unsigned int started, unsigned int wanted, int err)
{
	(void)started;
	(void)wanted;
	(void)err;
	((struct seen *)arg)->bad = true;
}

static void same_search(const struct tune_engine *a, const struct tune_engine *b)
{
	assert_int_equal(a->nres, b->nres);
	assert_int_equal(a->ncoarse, b->ncoarse);
	assert_int_equal(a->pick, b->pick);
	assert_int_equal(a->best, b->best);
	assert_int_equal(a->sims, b->sims);
	assert_int_equal(a->nwin, b->nwin);
	assert_int_equal(a->base.bytes_tx, b->base.bytes_tx);
	for (unsigned int i = 0; i < a->nres; i++) {
		assert_memory_equal(&a->res[i].set, &b->res[i].set, sizeof(a->res[i].set));
		assert_int_equal(a->res[i].bytes_tx, b->res[i].bytes_tx);
		assert_int_equal(a->res[i].p99, b->res[i].p99);
		assert_int_equal(a->res[i].worst_lat, b->res[i].worst_lat);
		assert_int_equal(a->res[i].members, b->res[i].members);
		assert_int_equal(a->res[i].feasible, b->res[i].feasible);
	}
	assert_int_equal(a->have_margin, b->have_margin);
	assert_int_equal(a->late_ns, b->late_ns);
	assert_int_equal(a->nfrontier, b->nfrontier);
	for (unsigned int k = 0; k < a->nfrontier; k++) {
		assert_memory_equal(&a->frontier[k].set, &b->frontier[k].set,
				    sizeof(a->frontier[k].set));
		assert_int_equal(a->frontier[k].margin.held_ns, b->frontier[k].margin.held_ns);
	}
	for (int k = 0; k < 2; k++) {
		assert_int_equal(a->margin[k].held_ns, b->margin[k].held_ns);
		assert_int_equal(a->margin[k].beyond, b->margin[k].beyond);
	}
}

/*
 * The whole search on 1, 2 and 3 threads, with the progress drawn on the
 * calling thread or not: the same candidates, results, choice and margins.
 */
static void test_threads_same(void **state)
{
	static const struct tune_engine_ops ops = {
		.progress = on_progress, .threads_short = on_threads_short,
	};
	struct tune_engine *e[3];
	struct sim_config c;
	struct bql_err err;
	struct seen seen = { 0 };

	(void)state;
	model_coarse_irq(&c);
	for (unsigned int i = 0; i < 3; i++) {
		e[i] = engine(&c, i + 1);
		if (i == 1) {
			e[i]->ops = &ops;
			e[i]->ops_arg = &seen;
		}
		assert_int_equal(tune_engine_search(e[i], &err), 0);
	}
	/*
	 * The required lateness is half of what the defaults hold, and the
	 * late member of the ensemble has it; the choice holds it on the model
	 */
	assert_true(e[0]->ncoarse > 0 && e[0]->nres >= e[0]->ncoarse);
	assert_true(e[0]->have_margin);
	assert_true(e[0]->margin[0].known);
	if (e[0]->late_from == TUNE_LATE_HALF_DEFAULTS)
		assert_int_equal(e[0]->late_ns, e[0]->margin[0].held_ns / 2);
	for (unsigned int mi = 0; mi < e[0]->nmem; mi++)
		if (e[0]->mem[mi].throughput_only)
			assert_int_equal(e[0]->mem[mi].irq_late_ns, e[0]->late_ns);
	if (e[0]->best >= 0)
		assert_true(e[0]->margin[1].beyond || e[0]->margin[1].held_ns >= e[0]->late_ns);
	/* the frontier ends with the defaults, lowest worst latency first */
	assert_true(e[0]->nfrontier >= 1);
	assert_int_equal(e[0]->frontier[e[0]->nfrontier - 1].kind, TUNE_FRONT_DEFAULTS);
	for (unsigned int k = 1; k < e[0]->nfrontier; k++)
		assert_true(e[0]->frontier[k - 1].worst_lat <= e[0]->frontier[k].worst_lat);
	same_search(e[0], e[1]);
	same_search(e[0], e[2]);
	/* progress: between the calling thread's runs, the last batch the margin's */
	assert_false(seen.bad);
	assert_true(seen.calls > 0 && seen.calls <= e[1]->sims);
	assert_true(seen.last_n <= 2 * 3);
	for (unsigned int i = 0; i < 3; i++)
		engine_free(e[i]);
}

/*
 * The required lateness: half of the defaults' margin, unless twice the
 * measured interrupt delay or --margin asks for more; every member of the
 * search runs with it, and what is picked holds it on the model.
 */
static void test_required_margin(void **state)
{
	struct sim_config c;
	struct tune_engine *e;
	struct bql_err err;

	(void)state;
	model_coarse_irq(&c);
	e = engine(&c, 2);
	assert_int_equal(tune_engine_search(e, &err), 0);
	assert_int_equal(e->late_from, TUNE_LATE_HALF_DEFAULTS);
	assert_int_equal(e->late_ns, e->margin[0].held_ns / 2);
	engine_free(e);

	e = engine(&c, 2);
	e->irq_measured_ns = 600 * US;		/* twice it above half the defaults' 1.84 ms */
	assert_int_equal(tune_engine_search(e, &err), 0);
	assert_true(e->margin[0].held_ns < 2 * 1200 * US);
	assert_int_equal(e->late_from, TUNE_LATE_MEASURED);
	assert_int_equal(e->late_ns, 1200 * US);
	if (e->best >= 0)
		assert_true(e->margin[1].beyond || e->margin[1].held_ns >= 1200 * US);
	engine_free(e);

	e = engine(&c, 2);
	e->irq_measured_ns = 600 * US;
	e->margin_given_ns = 2 * MS;
	assert_int_equal(tune_engine_search(e, &err), 0);
	assert_int_equal(e->late_from, TUNE_LATE_GIVEN);
	assert_int_equal(e->late_ns, 2 * MS);
	for (unsigned int mi = 0; mi < e->nmem; mi++)
		if (e->mem[mi].throughput_only)
			assert_int_equal(e->mem[mi].irq_late_ns, 2 * MS);
	if (e->best >= 0)
		assert_true(e->margin[1].beyond || e->margin[1].held_ns >= 2 * MS);
	engine_free(e);
}

/* no candidate below the floor check's rules set, where one packet would start */
static void test_floor(void **state)
{
	struct sim_config c;
	struct tune_engine *e;
	struct bql_err err;

	(void)state;
	model_coarse_irq(&c);
	e = engine(&c, 2);
	e->floor = 40000;
	assert_int_equal(tune_engine_search(e, &err), 0);
	assert_true(e->nres > 0);
	assert_int_equal(e->res[0].set.limit_max, 40000);	/* the grid starts there */
	for (unsigned int i = 0; i < e->nres; i++)
		assert_true(e->res[i].set.limit_max >= 40000);
	engine_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_starving_rejected),
		cmocka_unit_test(test_margins_hand),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_cannot_simulate),
		cmocka_unit_test(test_threads_same),
		cmocka_unit_test(test_required_margin),
		cmocka_unit_test(test_floor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
