// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the pure DQL core (dql/dql.c, dql/dql_util.h): the util
 * helpers, init, queued, completed and reset. The stall detector, the
 * sysfs stores, the time conversions and the kernel versions are in
 * test_dql_stall.c; the shared helpers in dqltest.h.
 *
 * Every expected number is worked out by hand from the kernel's code
 * (lib/dynamic_queue_limits.c and friends); the comment next to each
 * scenario shows the arithmetic. Notation used in the comments:
 * NQ num_queued, NC num_completed (before the call), cnt the completed
 * count, ov ovlimit, inp inprogress, pinp prev_inprogress, apc
 * all_prev_completed, pov prev_ovlimit, pnq prev_num_queued,
 * plo prev_last_obj_cnt.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dqltest.h"

/* ------------------------------------------------------------- helpers */

static void test_util_posdiff_after_eq(void **state)
{
	static const struct {
		uint32_t a, b, wrap, legacy;
		bool after_eq;
	} t[] = {
		/* plain cases */
		{ 5000, 3000, 2000, 2000, true },
		{ 3000, 5000, 0, 0, false },
		{ 7, 7, 0, 0, true },
		/* across the 2^32 wrap: 5 - 0xfffffffe = 7 (mod 2^32) */
		{ 5, 0xfffffffeu, 7, 0, true },
		{ 0xfffffffeu, 5, 0, 0xfffffff9u, false },
		/* difference exactly 2^31: negative as int */
		{ 0x80000000u, 0, 0, 0x80000000u, false },
		/* difference 2^31 - 1: positive as int */
		{ 0x7fffffffu, 0, 0x7fffffffu, 0x7fffffffu, true },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(dql_posdiff_wrap(t[i].a, t[i].b), t[i].wrap);
		assert_int_equal(dql_posdiff_legacy(t[i].a, t[i].b),
				 t[i].legacy);
		assert_int_equal(dql_after_eq(t[i].a, t[i].b), t[i].after_eq);
		assert_int_equal(dql_posdiff(K_35, t[i].a, t[i].b), t[i].wrap);
		assert_int_equal(dql_posdiff(K_33, t[i].a, t[i].b),
				 t[i].legacy);
	}
	assert_int_equal(dql_u32_as_int(5), 5);
	assert_int_equal(dql_u32_as_int(0xffffffffu), -1);
	assert_int_equal(dql_u32_as_int(0x80000000u), INT_MIN);
	assert_int_equal(dql_u32_as_int(0x7fffffffu), INT_MAX);
}

static void test_util_time(void **state)
{
	(void)state;
	/* time_after(a,b) = (int64)(b - a) < 0 */
	assert_true(dql_time_after(11, 10));
	assert_false(dql_time_after(10, 10));
	assert_false(dql_time_after(9, 10));
	/* 2 - (2^64 - 1) = 3 (mod 2^64): 2 is after UINT64_MAX */
	assert_true(dql_time_after(2, UINT64_MAX));
	assert_false(dql_time_after(UINT64_MAX, 2));
	/* 2^63 apart: b - a has the sign bit set both ways round */
	assert_true(dql_time_after(0, (uint64_t)1 << 63));
	assert_true(dql_time_after((uint64_t)1 << 63, 0));
	assert_true(dql_time_after_eq(10, 10));
	assert_true(dql_time_before(UINT64_MAX, 0));
	assert_true(dql_time_before_eq(0, 0));
	assert_false(dql_time_before_eq(1, 0));
}

static void test_util_clamp(void **state)
{
	static const struct {
		uint32_t v, lo, hi, legacy, c61;
	} t[] = {
		{ 1000, 0, 3000, 1000, 1000 },
		{ 5000, 0, 3000, 3000, 3000 },
		{ 10, 500, 3000, 500, 500 },
		/* min > max: legacy max(1000,5000)=5000 -> min(5000,3000)=3000;
		 * 6.1: 1000 >= 3000? no; 1000 <= 5000 -> 5000 */
		{ 1000, 5000, 3000, 3000, 5000 },
		/* 4000 >= 3000 -> 3000 under both */
		{ 4000, 5000, 3000, 3000, 3000 },
		/* v == hi */
		{ 3000, 5000, 3000, 3000, 3000 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(dql_clamp_legacy(t[i].v, t[i].lo, t[i].hi),
				 t[i].legacy);
		assert_int_equal(dql_clamp_61(t[i].v, t[i].lo, t[i].hi),
				 t[i].c61);
		assert_int_equal(dql_clamp(K_35, t[i].v, t[i].lo, t[i].hi),
				 t[i].legacy);
		assert_int_equal(dql_clamp(K_61, t[i].v, t[i].lo, t[i].hi),
				 t[i].c61);
	}
}

/* ------------------------------------------------------- init / queued */

static void test_init_defaults(void **state)
{
	struct dql d;
	int i;

	(void)state;
	assert_int_equal(DQL_MAX_OBJECT, 268435455u);	/* 0xffffffff / 16 */
	assert_int_equal(DQL_MAX_LIMIT, 1879048192u);	/* 2147483647 - 268435455 */
	assert_int_equal(DQL_MAX_JIFFY_OFFSET, 0x3ffffffffffffffeull);

	dql_init(&d, 250, DQL_K_NEWEST, 1000);
	assert_int_equal(d.kflags, DQL_K_NEWEST);
	assert_int_equal(d.limit, 0);
	assert_int_equal(d.min_limit, 0);
	assert_int_equal(d.max_limit, DQL_MAX_LIMIT);
	assert_int_equal(d.slack_hold_time, 250);
	assert_int_equal(d.lowest_slack, UINT32_MAX);
	assert_int_equal(d.slack_start_time, 1000);
	assert_int_equal(d.stall_thrs, 0);
	assert_int_equal(d.last_reap, 1000);
	assert_int_equal(d.history_head, 15);	/* 1000 / 64 */
	for (i = 0; i < DQL_HIST_LEN; i++)
		assert_int_equal(d.history[i], 0);
	assert_int_equal(d.adj_limit, 0);
	assert_int_equal(dql_avail(&d), 0);
	assert_int_equal(dql_inflight(&d), 0);

	/* before 6.9 there is no stall state: nothing set */
	dql_init(&d, 250, K_61, 1000);
	assert_int_equal(d.last_reap, 0);
	assert_int_equal(d.history_head, 0);
	assert_int_equal(d.slack_start_time, 1000);
}

static void test_queued_basic(void **state)
{
	struct dql d;

	(void)state;
	dql_init(&d, 250, DQL_K_NEWEST, 0);
	q(&d, 1000, 1);
	q(&d, 514, 1);
	assert_int_equal(d.num_queued, 1514);
	assert_int_equal(d.last_obj_cnt, 514);
	assert_int_equal(dql_inflight(&d), 1514);
	/* adj_limit 0 - num_queued 1514 */
	assert_int_equal(dql_avail(&d), -1514);
	/* DQL_MAX_OBJECT itself is fine */
	q(&d, DQL_MAX_OBJECT, 2);
	assert_int_equal(d.num_queued, 1514u + 268435455u);
}

static void test_queued_oversize(void **state)
{
	struct dql d, before;

	(void)state;
	/* 6.10+: ignored, counted, no state change */
	dql_init(&d, 250, K_610, 0);
	q(&d, 100, 0);
	memcpy(&before, &d, sizeof(d));
	assert_int_equal(dql_queued(&d, DQL_MAX_OBJECT + 1u, 1), 1);
	assert_int_equal(d.ignored_queued, 1);
	before.ignored_queued = 1;
	assert_memory_equal(&d, &before, sizeof(d));

	/* 6.9 and 3.3: the kernel BUG()s: -ERANGE, no state change */
	dql_init(&d, 250, K_69, 0);
	q(&d, 100, 0);
	memcpy(&before, &d, sizeof(d));
	assert_int_equal(dql_queued(&d, UINT_MAX, 1), -ERANGE);
	assert_memory_equal(&d, &before, sizeof(d));

	dql_init(&d, 250, K_33, 0);
	memcpy(&before, &d, sizeof(d));
	assert_int_equal(dql_queued(&d, DQL_MAX_OBJECT + 1u, 1), -ERANGE);
	assert_memory_equal(&d, &before, sizeof(d));
}

/* ------------------------------------------------------------ completed */

static void test_completed_too_much(void **state)
{
	struct dql d, before;

	(void)state;
	dql_init(&d, 250, DQL_K_NEWEST, 0);
	/* nothing in flight: even 1 byte is too much */
	memcpy(&before, &d, sizeof(d));
	assert_int_equal(dql_completed(&d, 1, 5), -ERANGE);
	assert_memory_equal(&d, &before, sizeof(d));

	q(&d, 1000, 1);
	memcpy(&before, &d, sizeof(d));
	assert_int_equal(dql_completed(&d, 1001, 5), -ERANGE);
	assert_memory_equal(&d, &before, sizeof(d));
	c(&d, 1000, 5);		/* exactly the inflight amount is fine */
	assert_int_equal(dql_inflight(&d), 0);
}

/*
 * Starvation, first half of the test: over the limit and nothing left.
 * limit 0, Q 1000, C 1000 @1:
 *   completed = 0 + 1000 = 1000, ov = POSDIFF(1000 - 0, 0) = 1000,
 *   inp = 1000 - 1000 = 0 -> (ov && !inp) -> starved.
 *   limit += POSDIFF(completed 1000, pnq 0) + pov 0 = 1000.
 *   limit changed -> ov = 0; adj_limit = 1000 + 1000 = 2000.
 */
static void test_completed_starved_empty(void **state)
{
	struct dql d;

	(void)state;
	dql_init(&d, 250, DQL_K_NEWEST, 0);
	q(&d, 1000, 0);
	c(&d, 1000, 1);
	assert_int_equal(d.limit, 1000);
	assert_int_equal(d.starvations, 1);
	assert_int_equal(d.slack_start_time, 1);
	assert_int_equal(d.lowest_slack, UINT32_MAX);
	assert_int_equal(d.adj_limit, 2000);
	assert_int_equal(d.prev_ovlimit, 0);
	assert_int_equal(d.prev_last_obj_cnt, 1000);
	assert_int_equal(d.num_completed, 1000);
	assert_int_equal(d.prev_num_queued, 1000);
	/* avail = adj_limit 2000 - NQ 1000 */
	assert_int_equal(dql_avail(&d), 1000);
	q(&d, 1500, 2);
	/* 2000 - 2500 */
	assert_int_equal(dql_avail(&d), -500);
}

/*
 * "No change" branch, then starvation via prev_ovlimit && all_prev_completed,
 * and the same input under 3.3 where all_prev_completed is false on equality.
 *
 * limit 3000 (sysfs store), Q 5000 @0.
 * C 1000 @10: NC 0, completed 1000, ov = POSDIFF(5000, 3000) = 2000,
 *   inp = 4000, pinp = pnq 0 - 0 = 0, apc = AFTER_EQ(1000, 0) = true.
 *   (ov && !inp) no; pov 0 no; decrease needs pinp != 0: no change.
 *   limit unchanged, so ov is kept: pov = 2000. adj = 3000 + 1000 = 4000.
 *   plo = 5000, NC = 1000, pnq = 5000. avail = 4000 - 5000 = -1000.
 * Q 500 @11: NQ 5500, last_obj 500.
 * C 4000 @11: completed 5000, ov = POSDIFF(4500, 3000) = 1500, inp = 500,
 *   pinp = 5000 - 1000 = 4000, apc = AFTER_EQ(5000, 5000) = true.
 *   newest: pov 2000 && apc -> starved:
 *     limit = 3000 + POSDIFF(5000, 5000) 0 + pov 2000 = 5000; ov = 0;
 *     adj = 5000 + 5000 = 10000.
 *   3.3: apc = POSDIFF(5000, 5000) != 0 = false -> decrease branch:
 *     slack = POSDIFF(3000 + 2000, 2 * 4000) = 0,
 *     slack_last_objs = POSDIFF(plo 5000, pov 2000) = 3000 -> slack 3000,
 *     lowest_slack = 3000; time_after(11, 0 + 1000) no -> limit 3000,
 *     unchanged so pov = ov = 1500; adj = 3000 + 5000 = 8000.
 */
static void run_prev_ovlimit(struct dql *d, unsigned int kflags)
{
	dql_init(d, 1000, kflags, 0);
	assert_int_equal(dql_store_limit(d, 3000), 0);
	q(d, 5000, 0);
	c(d, 1000, 10);
	assert_int_equal(d->limit, 3000);
	assert_int_equal(d->prev_ovlimit, 2000);
	assert_int_equal(d->adj_limit, 4000);
	assert_int_equal(d->prev_last_obj_cnt, 5000);
	assert_int_equal(d->prev_num_queued, 5000);
	assert_int_equal(d->lowest_slack, UINT32_MAX);
	assert_int_equal(d->starvations, 0);
	assert_int_equal(dql_avail(d), -1000);
	q(d, 500, 11);
	c(d, 4000, 11);
}

static void test_completed_prev_ovlimit(void **state)
{
	struct dql d;

	(void)state;
	run_prev_ovlimit(&d, DQL_K_NEWEST);
	assert_int_equal(d.limit, 5000);
	assert_int_equal(d.starvations, 1);
	assert_int_equal(d.slack_start_time, 11);
	assert_int_equal(d.prev_ovlimit, 0);
	assert_int_equal(d.adj_limit, 10000);
	assert_int_equal(d.prev_last_obj_cnt, 500);

	/* 3.5 has the same arithmetic */
	run_prev_ovlimit(&d, K_35);
	assert_int_equal(d.limit, 5000);

	run_prev_ovlimit(&d, K_33);
	assert_int_equal(d.limit, 3000);
	assert_int_equal(d.starvations, 0);
	assert_int_equal(d.lowest_slack, 3000);
	assert_int_equal(d.prev_ovlimit, 1500);
	assert_int_equal(d.adj_limit, 8000);
}

/*
 * prev_ovlimit also feeds the increase: Q 100, C 0, C 100 (limit 0).
 * C 0 @1: completed 0, ov = POSDIFF(100, 0) = 100, inp = 100, pinp 0,
 *   apc AFTER_EQ(0, 0) true, pov 0 -> no change; pov = 100, adj = 0,
 *   pnq = 100.
 * C 100 @2: completed 100, ov = POSDIFF(100, 0) = 100, inp 0 -> starved:
 *   limit = 0 + POSDIFF(100, pnq 100) 0 + pov 100 = 100.
 */
static void test_completed_zero(void **state)
{
	struct dql d;

	(void)state;
	dql_init(&d, 250, DQL_K_NEWEST, 0);
	q(&d, 100, 0);
	c(&d, 0, 1);
	assert_int_equal(d.limit, 0);
	assert_int_equal(d.prev_ovlimit, 100);
	assert_int_equal(d.prev_num_queued, 100);
	assert_int_equal(d.num_completed, 0);
	assert_int_equal(d.adj_limit, 0);
	c(&d, 100, 2);
	assert_int_equal(d.limit, 100);
	assert_int_equal(d.adj_limit, 200);
}

/*
 * Decrease after the hold time, strictly after, by the lowest slack of the
 * hold period. hold 10 jiffies, limit 10000, init @0 (slack_start 0).
 * Q 6000 @0.
 * C 1000 @1: ov = POSDIFF(6000, 10000) = 0, inp 5000, pinp 0 -> no change.
 *   NC 1000, pnq 6000.
 * Q 1000 @2 (NQ 7000). C 1000 @3: completed 2000, ov 0, inp 5000,
 *   pinp = 6000 - 1000 = 5000, apc = AFTER_EQ(2000, 6000) false -> decrease
 *   branch: slack = POSDIFF(10000 + 0, 2 * 1000) = 8000, no last-objs part
 *   (pov 0); lowest 8000; time_after(3, 0 + 10) no.
 * Q 2000 @4 (NQ 9000). C 3000 @5: completed 5000, ov = POSDIFF(7000, 10000)
 *   = 0, inp 4000, pinp = 7000 - 2000 = 5000, apc false:
 *   slack = POSDIFF(10000, 6000) = 4000 -> lowest 4000. 5 > 10? no.
 * Q 1000 @6 (NQ 10000). C 500 @8: completed 5500, ov = POSDIFF(5000, 10000)
 *   = 0, inp 4500, pinp = 9000 - 5000 = 4000, apc false:
 *   slack = POSDIFF(10000, 1000) = 9000 -> lowest stays 4000.
 * Q 1000 @9 (NQ 11000). C 1000 @10: completed 6500, ov 0, inp 4500,
 *   pinp = 10000 - 5500 = 4500, apc false: slack 8000, lowest 4000;
 *   time_after(10, 10) is false: not yet.
 * Q 1000 @10 (NQ 12000). C 1000 @11: completed 7500, inp 4500,
 *   pinp = 11000 - 6500 = 4500: slack 8000, lowest 4000;
 *   time_after(11, 10) -> limit = POSDIFF(10000, 4000) = 6000,
 *   slack_start 11, lowest UINT_MAX; adj = 6000 + 7500 = 13500.
 */
static void test_completed_decrease(void **state)
{
	struct dql d;

	(void)state;
	dql_init(&d, 10, DQL_K_NEWEST, 0);
	assert_int_equal(dql_store_limit(&d, 10000), 0);
	q(&d, 6000, 0);
	c(&d, 1000, 1);
	assert_int_equal(d.lowest_slack, UINT32_MAX);
	q(&d, 1000, 2);
	c(&d, 1000, 3);
	assert_int_equal(d.lowest_slack, 8000);
	q(&d, 2000, 4);
	c(&d, 3000, 5);
	assert_int_equal(d.lowest_slack, 4000);
	q(&d, 1000, 6);
	c(&d, 500, 8);
	assert_int_equal(d.lowest_slack, 4000);
	q(&d, 1000, 9);
	c(&d, 1000, 10);
	assert_int_equal(d.limit, 10000);
	assert_int_equal(d.lowest_slack, 4000);
	assert_int_equal(d.slack_start_time, 0);
	q(&d, 1000, 10);
	c(&d, 1000, 11);
	assert_int_equal(d.limit, 6000);
	assert_int_equal(d.slack_start_time, 11);
	assert_int_equal(d.lowest_slack, UINT32_MAX);
	assert_int_equal(d.adj_limit, 13500);
	assert_int_equal(d.starvations, 0);
}

/*
 * The slack_last_objs path: hold 0, limit 3000, init @0.
 * Q 2500 @0, Q 2000 @0 (NQ 4500, last_obj 2000).
 * C 1000 @1: ov = POSDIFF(4500, 3000) = 1500, inp 3500, pinp 0 -> no
 *   change; pov 1500, plo 2000, NC 1000, pnq 4500, adj 4000.
 * Q 1000 @1 (NQ 5500, last_obj 1000).
 * C 2200 @2: completed 3200, ov = POSDIFF(4500, 3000) = 1500,
 *   inp 2300, pinp = 4500 - 1000 = 3500, apc = AFTER_EQ(3200, 4500) false
 *   -> decrease branch:
 *   slack = POSDIFF(3000 + 1500, 2 * 2200 = 4400) = 100,
 *   slack_last_objs = POSDIFF(plo 2000, pov 1500) = 500 -> slack 500,
 *   lowest 500, time_after(2, 0 + 0) -> limit = 3000 - 500 = 2500;
 *   changed -> ov 0; adj = 2500 + 3200 = 5700; plo = 1000.
 */
static void test_completed_slack_last_objs(void **state)
{
	struct dql d;

	(void)state;
	dql_init(&d, 0, DQL_K_NEWEST, 0);
	assert_int_equal(dql_store_limit(&d, 3000), 0);
	q(&d, 2500, 0);
	q(&d, 2000, 0);
	c(&d, 1000, 1);
	assert_int_equal(d.prev_ovlimit, 1500);
	assert_int_equal(d.prev_last_obj_cnt, 2000);
	q(&d, 1000, 1);
	c(&d, 2200, 2);
	assert_int_equal(d.limit, 2500);
	assert_int_equal(d.prev_ovlimit, 0);
	assert_int_equal(d.adj_limit, 5700);
	assert_int_equal(d.prev_last_obj_cnt, 1000);
	assert_int_equal(d.slack_start_time, 2);
	assert_int_equal(d.lowest_slack, UINT32_MAX);
}

/*
 * Clamp to max and to min.
 * max 1500: Q 2000, C 2000 -> starved, limit 0 + 2000 -> clamp 1500;
 *   adj = 1500 + 2000 = 3500.
 * min 5000: Q 1000, C 1000 -> limit 1000 -> clamp 5000; adj 6000.
 */
static void test_completed_clamp(void **state)
{
	struct dql d;

	(void)state;
	dql_init(&d, 250, DQL_K_NEWEST, 0);
	assert_int_equal(dql_store_limit_max(&d, 1500), 0);
	q(&d, 2000, 0);
	c(&d, 2000, 1);
	assert_int_equal(d.limit, 1500);
	assert_int_equal(d.adj_limit, 3500);

	dql_init(&d, 250, DQL_K_NEWEST, 0);
	assert_int_equal(dql_store_limit_min(&d, 5000), 0);
	q(&d, 1000, 0);
	c(&d, 1000, 1);
	assert_int_equal(d.limit, 5000);
	assert_int_equal(d.adj_limit, 6000);
}

/*
 * min 5000 > max 3000 (sysfs allows it).
 * Q 1000, C 1000 -> limit 1000 before the clamp:
 *   6.1+: 1000 >= 3000? no; 1000 <= 5000 -> 5000.
 *   3.5-6.0: min(max(1000, 5000), 3000) = 3000.
 * Q 4000, C 4000 -> limit 4000 before the clamp: 3000 under both.
 */
static void test_completed_clamp_min_gt_max(void **state)
{
	static const struct {
		unsigned int kflags, bytes, limit;
	} t[] = {
		{ DQL_K_NEWEST, 1000, 5000 },
		{ K_61, 1000, 5000 },
		{ K_35, 1000, 3000 },
		{ K_33, 1000, 3000 },
		{ DQL_K_NEWEST, 4000, 3000 },
		{ K_35, 4000, 3000 },
	};
	struct dql d;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		dql_init(&d, 250, t[i].kflags, 0);
		assert_int_equal(dql_store_limit_min(&d, 5000), 0);
		assert_int_equal(dql_store_limit_max(&d, 3000), 0);
		q(&d, t[i].bytes, 0);
		c(&d, t[i].bytes, 1);
		assert_int_equal(d.limit, t[i].limit);
	}
}

/*
 * 32-bit counters near UINT_MAX, seeded as an S record would.
 * X = 0xffffffff - 499 = 4294966796; NQ = NC = pnq = X, limit 500.
 * Q 1000: NQ = X + 1000 = 4294967796 - 2^32 = 500 (wrapped);
 *   inflight = 500 - X = 1000 (mod 2^32).
 * C 1000 @1: completed = X + 1000 = 500, ov = POSDIFF(1000, 500) = 500,
 *   inp = 500 - 500 = 0 -> starved.
 *   3.5+: limit = 500 + POSDIFF(500, X) + 0; 500 - X = 1000 (mod 2^32),
 *     positive as int -> 1000; limit 1500; adj = 1500 + 500 = 2000.
 *   3.3: POSDIFF(500, X) = (500 > X ? ..) = 0 -> limit stays 500,
 *     unchanged so pov = ov = 500; adj = 500 + 500 = 1000.
 */
static void test_completed_counter_wrap(void **state)
{
	const uint32_t x = UINT32_MAX - 499;
	static const struct {
		unsigned int kflags;
		uint32_t limit, pov, adj;
	} t[] = {
		{ DQL_K_NEWEST, 1500, 0, 2000 },
		{ K_35, 1500, 0, 2000 },
		{ K_33, 500, 500, 1000 },
	};
	struct dql d;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		dql_init(&d, 250, t[i].kflags, 0);
		d.num_queued = d.num_completed = d.prev_num_queued = x;
		d.limit = 500;
		q(&d, 1000, 0);
		assert_int_equal(d.num_queued, 500);
		assert_int_equal(dql_inflight(&d), 1000);
		c(&d, 1000, 1);
		assert_int_equal(d.num_completed, 500);
		assert_int_equal(d.limit, t[i].limit);
		assert_int_equal(d.prev_ovlimit, t[i].pov);
		assert_int_equal(d.adj_limit, t[i].adj);
		assert_int_equal(dql_inflight(&d), 0);
	}
}

/*
 * Hold time across the 2^64 jiffies wrap. hold 10, init @T0 = 2^64 - 6,
 * so slack_start_time + hold = 4 (mod 2^64). limit 10000, Q 6000.
 * C 1000 @T0+1: pinp 0 -> no change.
 * Each further "Q 1000; C 1000" is a decrease-branch completion:
 *   inflight before 6000 -> ov 0, inp 5000, pinp 5000, apc false,
 *   slack = POSDIFF(10000, 2000) = 8000.
 * @2^64-4: time_after(2^64-4, 4): 4 - (2^64-4) = 8 > 0 -> not after (an
 *   unsigned "now > start + hold" would wrongly say yes). limit 10000.
 * @4 (= T0 + 10): time_after(4, 4) no.
 * @5: yes -> limit = 10000 - 8000 = 2000, slack_start_time 5.
 */
static void test_completed_jiffies_wrap(void **state)
{
	const uint64_t t0 = UINT64_MAX - 5;
	struct dql d;

	(void)state;
	dql_init(&d, 10, DQL_K_NEWEST, t0);
	assert_int_equal(dql_store_limit(&d, 10000), 0);
	q(&d, 6000, t0);
	c(&d, 1000, t0 + 1);
	q(&d, 1000, t0 + 2);
	c(&d, 1000, t0 + 2);
	assert_int_equal(d.lowest_slack, 8000);
	assert_int_equal(d.limit, 10000);
	q(&d, 1000, 4);
	c(&d, 1000, 4);
	assert_int_equal(d.limit, 10000);
	q(&d, 1000, 5);
	c(&d, 1000, 5);
	assert_int_equal(d.limit, 2000);
	assert_int_equal(d.slack_start_time, 5);
}

/* ---------------------------------------------------------------- reset */

/*
 * After "Q 1000; C 1000" (limit 1000, adj 2000) with limit_min 500:
 * reset -> limit min_limit 500 (6.15+) or 0 (before); counters 0;
 * adj_limit is not reset, so avail is the stale 2000 - 0 = 2000.
 */
static void test_reset(void **state)
{
	static const struct {
		unsigned int kflags;
		uint32_t limit;
	} t[] = {
		{ K_615, 500 },
		{ K_610, 0 },
		{ K_33, 0 },
	};
	struct dql d;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		dql_init(&d, 250, t[i].kflags, 0);
		q(&d, 1000, 0);
		c(&d, 1000, 1);
		assert_int_equal(d.limit, 1000);
		assert_int_equal(dql_store_limit_min(&d, 500), 0);
		assert_int_equal(dql_store_stall_thrs(&d, 8, 1), 0);
		d.stall_cnt = 3;
		d.stall_max = 9;
		q(&d, 700, 2);
		dql_reset(&d, 130);
		assert_int_equal(d.limit, t[i].limit);
		assert_int_equal(d.num_queued, 0);
		assert_int_equal(d.num_completed, 0);
		assert_int_equal(d.last_obj_cnt, 0);
		assert_int_equal(d.prev_num_queued, 0);
		assert_int_equal(d.prev_last_obj_cnt, 0);
		assert_int_equal(d.prev_ovlimit, 0);
		assert_int_equal(d.lowest_slack, UINT32_MAX);
		assert_int_equal(d.slack_start_time, 130);
		assert_int_equal(d.adj_limit, 2000);
		assert_int_equal(dql_avail(&d), 2000);
		/* configuration and stall statistics survive */
		assert_int_equal(d.min_limit, 500);
		assert_int_equal(d.max_limit, DQL_MAX_LIMIT);
		assert_int_equal(d.slack_hold_time, 250);
		assert_int_equal(d.stall_thrs, 8);
		assert_int_equal(d.stall_cnt, 3);
		assert_int_equal(d.stall_max, 9);
		if (t[i].kflags & DQL_K_STALL) {
			assert_int_equal(d.last_reap, 130);
			assert_int_equal(d.history_head, 2);	/* 130 / 64 */
			assert_int_equal(d.history[0], 0);	/* bit 2 was set */
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_util_posdiff_after_eq),
		cmocka_unit_test(test_util_time),
		cmocka_unit_test(test_util_clamp),
		cmocka_unit_test(test_init_defaults),
		cmocka_unit_test(test_queued_basic),
		cmocka_unit_test(test_queued_oversize),
		cmocka_unit_test(test_completed_too_much),
		cmocka_unit_test(test_completed_starved_empty),
		cmocka_unit_test(test_completed_prev_ovlimit),
		cmocka_unit_test(test_completed_zero),
		cmocka_unit_test(test_completed_decrease),
		cmocka_unit_test(test_completed_slack_last_objs),
		cmocka_unit_test(test_completed_clamp),
		cmocka_unit_test(test_completed_clamp_min_gt_max),
		cmocka_unit_test(test_completed_counter_wrap),
		cmocka_unit_test(test_completed_jiffies_wrap),
		cmocka_unit_test(test_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
