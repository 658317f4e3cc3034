// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the pure DQL core (dql/dql.c, dql/dql_util.h): the stall
 * detector, the sysfs stores, the ms/jiffies conversions and the kernel
 * version names. The rest (init, queued, completed, reset) is in
 * test_dql.c.
 *
 * Every expected number is worked out by hand from the kernel's code
 * (lib/dynamic_queue_limits.c and friends); the comment next to each
 * scenario shows the arithmetic, in the notation of test_dql.c.
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

/* -------------------------------------------------------- stall detector */

/*
 * init @1000 (history_head 1000/64 = 15), stall_thrs 0 -> 8 @1000 sets
 * last_reap 1000. Q 1500 @1002: word 15 % 4 = 3, bit 1002 % 64 = 42.
 * C 1500 @1020: 1020 >= 1000 + 8 -> look:
 *   start = (15 - 3) * 64 = 768, before last_reap + 1 = 1001 -> 1001;
 *   end = 15 * 64 + 63 = 1023; 1020 < 1023 + 8/2 -> end = 1020 - 4 = 1016;
 *   first set bit in 1001..1016 is 1002: stall of 1020 - 1002 = 18.
 *   last_reap = 1020.
 */
static void stall_setup(struct dql *d, unsigned int kflags)
{
	dql_init(d, 250, kflags, 1000);
	assert_int_equal(dql_store_stall_thrs(d, 8, 1000), 0);
	assert_int_equal(d->last_reap, 1000);
}

static void test_stall_detected(void **state)
{
	struct dql d;

	(void)state;
	stall_setup(&d, DQL_K_NEWEST);
	q(&d, 1500, 1002);
	assert_int_equal(d.history_head, 15);
	assert_int_equal(d.history[3], (uint64_t)1 << 42);
	c(&d, 1500, 1020);
	assert_int_equal(d.stall_cnt, 1);
	assert_int_equal(d.stall_max, 18);
	assert_int_equal(d.last_stall_len, 18);
	assert_int_equal(d.last_reap, 1020);
	assert_int_equal(d.limit, 1500);	/* the DQL part still ran */

	/*
	 * A second, longer stall beyond the u16: Q @1030 (word 16 % 4 = 0,
	 * bit 1030 - 1024 = 6; head 15 -> 16 clears word 0 first).
	 * C @1030 + 65546 = 66576: start = max((16-3)*64 = 832, 1021) = 1021,
	 * end = 16 * 64 + 63 = 1087 (now is far later): t = 1030,
	 * len = 65546 -> (u16) 65546 - 65536 = 10 < 18: stall_max stays 18.
	 */
	q(&d, 100, 1030);
	assert_int_equal(d.history_head, 16);
	assert_int_equal(d.history[0], (uint64_t)1 << 6);
	c(&d, 100, 1030 + 65546);
	assert_int_equal(d.stall_cnt, 2);
	assert_int_equal(d.last_stall_len, 65546);
	assert_int_equal(d.stall_max, 18);

	/* same long stall on a fresh queue: stall_max = 10 */
	stall_setup(&d, DQL_K_NEWEST);
	q(&d, 100, 1030);
	c(&d, 100, 1030 + 65546);
	assert_int_equal(d.stall_cnt, 1);
	assert_int_equal(d.stall_max, 10);

	/* sysfs: any write to stall_max clears it */
	dql_store_stall_max(&d);
	assert_int_equal(d.stall_max, 0);
	assert_int_equal(d.stall_cnt, 1);
}

/*
 * Nothing queued in the window: Q @1002, C @1005 (5 < 8: no look,
 * last_reap 1005). C 0 @1030: 1030 >= 1013 -> look: start = max(768, 1006)
 * = 1006, end = 1023 (1030 < 1027? no); bits 1006..1023 all clear.
 */
static void test_stall_not_detected(void **state)
{
	struct dql d;

	(void)state;
	stall_setup(&d, DQL_K_NEWEST);
	q(&d, 1500, 1002);
	c(&d, 1000, 1005);
	assert_int_equal(d.last_reap, 1005);
	c(&d, 0, 1030);
	assert_int_equal(d.stall_cnt, 0);
	assert_int_equal(d.stall_max, 0);
	assert_int_equal(d.last_reap, 1030);
}

/*
 * The last thrs/2 jiffies do not count: C @1020 scans up to 1016.
 * Q @1017 -> no stall; Q @1016 -> a stall of 1020 - 1016 = 4 (more than
 * half the threshold, which the ABI doc allows).
 */
static void test_stall_half_threshold(void **state)
{
	struct dql d;

	(void)state;
	stall_setup(&d, DQL_K_NEWEST);
	q(&d, 1500, 1017);
	c(&d, 1500, 1020);
	assert_int_equal(d.stall_cnt, 0);

	stall_setup(&d, DQL_K_NEWEST);
	q(&d, 1500, 1016);
	c(&d, 1500, 1020);
	assert_int_equal(d.stall_cnt, 1);
	assert_int_equal(d.stall_max, 4);
}

/*
 * Edges of the window (thrs 8, last_reap 1000, head word 15 = 960..1023):
 * - exactly thrs jiffies: C @1008 >= 1000 + 8 -> look; end =
 *   1008 - 4 = 1004; Q @1002 is found: stall of 6.
 * - queued in the jiffy of the last completion: start is last_reap + 1,
 *   so Q @1000 is never seen: C @1020 counts nothing.
 * - now just past the newest word: Q @1023, C @1025: end = 1023, but
 *   1025 < 1023 + 4 -> end = 1025 - 4 = 1021: nothing; C @1027 instead
 *   keeps end 1023 (1027 < 1027 is false) and finds 1023: stall of 4.
 * - one jiffy short: C @1007 < 1008: no look at all.
 */
static void test_stall_edges(void **state)
{
	struct dql d;

	(void)state;
	stall_setup(&d, DQL_K_NEWEST);
	q(&d, 100, 1002);
	c(&d, 100, 1008);
	assert_int_equal(d.stall_cnt, 1);
	assert_int_equal(d.stall_max, 6);

	stall_setup(&d, DQL_K_NEWEST);
	q(&d, 100, 1002);
	c(&d, 100, 1007);
	assert_int_equal(d.stall_cnt, 0);
	assert_int_equal(d.last_reap, 1007);

	stall_setup(&d, DQL_K_NEWEST);
	q(&d, 100, 1000);
	c(&d, 100, 1020);
	assert_int_equal(d.stall_cnt, 0);

	stall_setup(&d, DQL_K_NEWEST);
	q(&d, 100, 1023);
	c(&d, 100, 1025);
	assert_int_equal(d.stall_cnt, 0);

	stall_setup(&d, DQL_K_NEWEST);
	q(&d, 100, 1023);
	c(&d, 100, 1027);
	assert_int_equal(d.stall_cnt, 1);
	assert_int_equal(d.stall_max, 4);
}

/* Detector off: last_reap keeps its init value; nothing counted. */
static void test_stall_thrs_zero(void **state)
{
	struct dql d;

	(void)state;
	dql_init(&d, 250, DQL_K_NEWEST, 1000);
	q(&d, 1500, 1002);
	c(&d, 1500, 5000);
	assert_int_equal(d.last_reap, 1000);
	assert_int_equal(d.stall_cnt, 0);
	/* 6.10+: no history while off */
	assert_int_equal(d.history[3], 0);
	assert_int_equal(d.history_head, 15);

	/* before 6.9 there is no detector at all, even when "on" */
	stall_setup(&d, K_61);
	q(&d, 1500, 1002);
	c(&d, 1500, 1020);
	assert_int_equal(d.stall_cnt, 0);
	assert_int_equal(d.last_reap, 1000);
	assert_int_equal(d.history[3], 0);
}

/*
 * 6.9 writes the history on every dql_queued(), 6.10+ only while
 * stall_thrs != 0. Q @1002 with the detector off: 6.9 sets word 3 bit 42;
 * Q @1100 (word 17 % 4 = 1, bit 1100 - 1088 = 12) moves the head to 17
 * and clears words 0 and 1 first.
 */
static void test_stall_hist_on_thrs(void **state)
{
	struct dql d;

	(void)state;
	dql_init(&d, 250, K_69, 1000);
	q(&d, 1, 1002);
	assert_int_equal(d.history[3], (uint64_t)1 << 42);
	q(&d, 1, 1100);
	assert_int_equal(d.history_head, 17);
	assert_int_equal(d.history[1], (uint64_t)1 << 12);
	assert_int_equal(d.history[3], (uint64_t)1 << 42);

	dql_init(&d, 250, K_610, 1000);
	q(&d, 1, 1002);
	q(&d, 1, 1100);
	assert_int_equal(d.history_head, 15);
	assert_int_equal(d.history[1], 0);
	assert_int_equal(d.history[3], 0);
	/* turned on: recorded */
	assert_int_equal(dql_store_stall_thrs(&d, 8, 1101), 0);
	q(&d, 1, 1101);
	assert_int_equal(d.history_head, 17);
	assert_int_equal(d.history[1], (uint64_t)1 << 13);

	/* the 6.9 detector finds the same stall as newest */
	stall_setup(&d, K_69);
	q(&d, 1500, 1002);
	c(&d, 1500, 1020);
	assert_int_equal(d.stall_cnt, 1);
	assert_int_equal(d.stall_max, 18);
}

/*
 * A gap of more than 256 jiffies clears the whole ring: Q @1002 (word 3),
 * Q @1400 (word 21 % 4 = 1): head 15 -> 21, the loop clears words
 * (15+1..15+4) % 4 = all four, then sets word 1 bit 1400 - 1344 = 56.
 */
static void test_stall_ring_clear(void **state)
{
	struct dql d;

	(void)state;
	stall_setup(&d, DQL_K_NEWEST);
	q(&d, 1, 1002);
	q(&d, 1, 1400);
	assert_int_equal(d.history_head, 21);
	assert_int_equal(d.history[0], 0);
	assert_int_equal(d.history[1], (uint64_t)1 << 56);
	assert_int_equal(d.history[2], 0);
	assert_int_equal(d.history[3], 0);
}

/*
 * Stall detection across the 2^64 wrap, which needs the deliberate
 * top-6-bit drop of the clearing loop.
 * init @2^64-70: head = (2^64-70)/64 = 2^58-2. thrs 8, last_reap 2^64-70.
 * Q @2^64-2: now_hi 2^58-1; i=0: (2^58-2)*64 != (2^58-1)*64 -> clear word
 *   (2^58-1) % 4 = 3; i=1: equal -> stop. Set word 3 bit 62.
 * Q @3: now_hi 0; i=0: 0 != (2^58-1)*64 -> clear word 2^58 % 4 = 0;
 *   i=1: 2^58 * 64 = 2^64 = 0 (mod 2^64) == 0 -> stop (without the drop,
 *   all four words would be cleared, losing the bit of 2^64-2).
 *   head 0, word 0 bit 3.
 * C @20: 20 - (last_reap + 8 = 2^64-62) = 82 >= 0 -> look:
 *   start = (0 - 3) * 64 = 2^64-192, before last_reap+1 = 2^64-69 ->
 *   2^64-69; end = 63, 20 < 63 + 4 -> end = 16. From 2^64-69 up, the
 *   first set bit is t = 2^64-2 ((2^64-2) % 256 = 254: word 3, bit 62):
 *   stall of 20 - (2^64-2) = 22.
 */
static void test_stall_jiffies_wrap(void **state)
{
	const uint64_t t0 = UINT64_MAX - 69;	/* 2^64 - 70 */
	struct dql d;

	(void)state;
	dql_init(&d, 250, DQL_K_NEWEST, t0);
	assert_int_equal(d.history_head, ((uint64_t)1 << 58) - 2);
	assert_int_equal(dql_store_stall_thrs(&d, 8, t0), 0);
	q(&d, 10, UINT64_MAX - 1);
	assert_int_equal(d.history_head, ((uint64_t)1 << 58) - 1);
	assert_int_equal(d.history[3], (uint64_t)1 << 62);
	q(&d, 10, 3);
	assert_int_equal(d.history_head, 0);
	assert_int_equal(d.history[0], (uint64_t)1 << 3);
	assert_int_equal(d.history[3], (uint64_t)1 << 62);
	c(&d, 20, 20);
	assert_int_equal(d.stall_cnt, 1);
	assert_int_equal(d.stall_max, 22);
	assert_int_equal(d.last_reap, 20);
}

/* ---------------------------------------------------------- sysfs stores */

static void test_store_limits(void **state)
{
	struct dql d, before;

	(void)state;
	dql_init(&d, 250, DQL_K_NEWEST, 0);
	assert_int_equal(dql_store_limit_max(&d, DQL_MAX_LIMIT), 0);
	assert_int_equal(d.max_limit, 1879048192u);
	assert_int_equal(dql_store_limit_min(&d, DQL_MAX_LIMIT), 0);
	assert_int_equal(d.min_limit, 1879048192u);
	assert_int_equal(dql_store_limit_max(&d, 0), 0);
	assert_int_equal(d.max_limit, 0);
	/* min > max is accepted */
	assert_int_equal(dql_store_limit_min(&d, 5000), 0);
	assert_int_equal(dql_store_limit_max(&d, 3000), 0);

	memcpy(&before, &d, sizeof(d));
	assert_int_equal(dql_store_limit_max(&d, DQL_MAX_LIMIT + 1ull), -EINVAL);
	assert_int_equal(dql_store_limit_min(&d, DQL_MAX_LIMIT + 1ull), -EINVAL);
	assert_int_equal(dql_store_limit(&d, DQL_MAX_LIMIT + 1ull), -EINVAL);
	assert_int_equal(dql_store_limit(&d, UINT_MAX), -EINVAL);
	/* beyond unsigned int: kstrtouint's -ERANGE */
	assert_int_equal(dql_store_limit(&d, (uint64_t)UINT_MAX + 1), -ERANGE);
	assert_int_equal(dql_store_limit_max(&d, UINT64_MAX), -ERANGE);
	assert_memory_equal(&d, &before, sizeof(d));

	/* limit is written directly: adj_limit not recomputed, no clamp */
	assert_int_equal(dql_store_limit(&d, 9000), 0);
	assert_int_equal(d.limit, 9000);
	assert_int_equal(d.adj_limit, 0);

	dql_store_hold_time(&d, 42);
	assert_int_equal(d.slack_hold_time, 42);
}

static void test_store_stall_thrs(void **state)
{
	static const struct {
		uint64_t j;
		int ret;
	} t[] = {
		{ 0, 0 }, { 1, -ERANGE }, { 3, -ERANGE }, { 4, 0 },
		{ 8, 0 }, { 128, 0 }, { 129, -ERANGE }, { 65536 + 8, -ERANGE },
		{ (uint64_t)1 << 32 | 8, -ERANGE },
	};
	struct dql d;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		dql_init(&d, 250, DQL_K_NEWEST, 0);
		d.stall_thrs = 5;
		assert_int_equal(dql_store_stall_thrs(&d, t[i].j, 77), t[i].ret);
		assert_int_equal(d.stall_thrs, t[i].ret ? 5 : t[i].j);
		/* 5 -> x never touches last_reap (init value 0) */
		assert_int_equal(d.last_reap, 0);
	}

	/* 0 -> non-zero starts the clock; non-zero -> non-zero does not */
	dql_init(&d, 250, DQL_K_NEWEST, 10);
	assert_int_equal(dql_store_stall_thrs(&d, 8, 500), 0);
	assert_int_equal(d.last_reap, 500);
	assert_int_equal(dql_store_stall_thrs(&d, 16, 600), 0);
	assert_int_equal(d.last_reap, 500);
	assert_int_equal(dql_store_stall_thrs(&d, 0, 700), 0);
	assert_int_equal(d.last_reap, 500);
	assert_int_equal(dql_store_stall_thrs(&d, 0, 800), 0);
	assert_int_equal(d.last_reap, 500);
	assert_int_equal(dql_store_stall_thrs(&d, 4, 900), 0);
	assert_int_equal(d.last_reap, 900);
}

/*
 * Writes in ms, converted as the kernel converts them.
 * HZ=250: hold_time 1001 ms -> ceil(1001 / 4) = 251 jiffies, shown as
 *   251 * 4 = 1004 ms.
 * stall_thrs windows (ms -> jiffies): HZ=1000 3->3 x, 4->4 ok, 128 ok,
 *   129 x; HZ=100: 30 -> 3 x, 31 -> ceil(3.1) = 4 ok, 1280 -> 128 ok,
 *   1281 -> 129 x; HZ=250: 12 -> 3 x, 13 -> 4, 512 -> 128, 513 -> 129 x;
 *   HZ=300 (ceil(m * 0.3)): 10 -> 3 x, 11 -> 4, 426 -> 128, 427 -> 129 x.
 * ms >= 2^31 -> MAX_JIFFY_OFFSET, truncated to 0xfffffffe -> x.
 * ms > UINT_MAX -> kstrtouint -ERANGE.
 * HZ=5000 (a multiple of 1000: m * 5): 858993460 ms -> 4294967300
 *   jiffies, which the kernel's unsigned int holds as 4: accepted.
 */
static void test_store_ms(void **state)
{
	static const struct {
		unsigned int hz;
		uint64_t ms;
		int ret;
		uint16_t thrs;
	} t[] = {
		{ 1000, 3, -ERANGE, 0 }, { 1000, 4, 0, 4 },
		{ 1000, 128, 0, 128 }, { 1000, 129, -ERANGE, 0 },
		{ 100, 30, -ERANGE, 0 }, { 100, 31, 0, 4 },
		{ 100, 1280, 0, 128 }, { 100, 1281, -ERANGE, 0 },
		{ 250, 12, -ERANGE, 0 }, { 250, 13, 0, 4 },
		{ 250, 512, 0, 128 }, { 250, 513, -ERANGE, 0 },
		{ 300, 10, -ERANGE, 0 }, { 300, 11, 0, 4 },
		{ 300, 426, 0, 128 }, { 300, 427, -ERANGE, 0 },
		{ 250, 0, 0, 0 },
		{ 1000, 2147483648ull, -ERANGE, 0 },
		{ 1000, 4294967296ull, -ERANGE, 0 },
		{ 5000, 858993460, 0, 4 },
	};
	struct dql d;
	size_t i;

	(void)state;
	dql_init(&d, 250, DQL_K_NEWEST, 0);
	assert_int_equal(dql_store_hold_time_ms(&d, 1001, 250), 0);
	assert_int_equal(d.slack_hold_time, 251);
	assert_int_equal(dql_jiffies_to_msecs(d.slack_hold_time, 250), 1004);
	/* 2^31 ms: MAX_JIFFY_OFFSET truncated to unsigned int = 0xfffffffe,
	 * shown as 4 * 0xfffffffe mod 2^32 = 0xfffffff8 */
	assert_int_equal(dql_store_hold_time_ms(&d, 2147483648ull, 250), 0);
	assert_int_equal(d.slack_hold_time, 0xfffffffeu);
	assert_int_equal(dql_jiffies_to_msecs(d.slack_hold_time, 250),
			 4294967288u);
	assert_int_equal(dql_store_hold_time_ms(&d, 4294967296ull, 250),
			 -ERANGE);
	assert_int_equal(d.slack_hold_time, 0xfffffffeu);

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		dql_init(&d, 250, DQL_K_NEWEST, 0);
		assert_int_equal(dql_store_stall_thrs_ms(&d, t[i].ms, t[i].hz, 9),
				 t[i].ret);
		assert_int_equal(d.stall_thrs, t[i].thrs);
	}
}

/* ------------------------------------------------------ time conversions */

/*
 * HZ=100/250/1000/2000/5000: whole factors. ms->jiffies rounds up,
 * jiffies->ms multiplies (or rounds up for HZ > 1000).
 * HZ=300 (timeconst: MUL 2576980378, ADJ 7730941132, SHR 33, i.e.
 * ceil(m * 0.3)); jiffies->ms = ceil(j * 10 / 3).
 *   m2j(4) = (4 * 2576980378 + 7730941132) >> 33 = 18038862644 >> 33 = 2.
 * HZ=24 (MUL 3298534884, ADJ 136339441844, SHR 37):
 *   m2j(42) = (42 * MUL + ADJ) >> 37 = 274877906972 >> 37 = 2 (1.008 -> 2);
 *   j2m(1) = ceil(1 * 125 / 3) = 42.
 * HZ=1024 (MUL 2199023256, ADJ 2130303778, SHR 31):
 *   m2j(1000) = (2199023256000 + 2130303778) >> 31 = 1024;
 *   j2m(1) = ceil(125 / 128) = 1.
 * HZ=1200 (MUL 2576980378, ADJ 1717986918, SHR 31):
 *   m2j(1) = 4294967296 >> 31 = 2; j2m(1) = ceil(5 / 6) = 1.
 * HZ=3000: the kernel refuses m > jiffies_to_msecs(MAX_JIFFY_OFFSET) =
 *   (u32)((2^62 - 2 + 2) / 3) = (u32)0x1555555555555555 = 1431655765.
 * Saturation: m >= 2^31 ("negative") -> MAX_JIFFY_OFFSET at any HZ.
 * j2m returns an unsigned int: HZ=1000 j2m(2^32 + 5) = 5,
 *   j2m(MAX_JIFFY_OFFSET) = (2^62 - 2) mod 2^32 = 4294967294.
 */
static void test_msecs_jiffies(void **state)
{
	static const struct {
		unsigned int hz;
		uint64_t ms, j;
	} m2j[] = {
		{ 100, 0, 0 }, { 100, 1, 1 }, { 100, 10, 1 }, { 100, 11, 2 },
		{ 100, 1000, 100 }, { 100, 1001, 101 },
		{ 250, 1, 1 }, { 250, 4, 1 }, { 250, 5, 2 }, { 250, 1000, 250 },
		{ 250, 1001, 251 },
		{ 300, 0, 0 }, { 300, 1, 1 }, { 300, 3, 1 }, { 300, 4, 2 },
		{ 300, 10, 3 }, { 300, 11, 4 }, { 300, 1000, 300 },
		{ 300, 1001, 301 }, { 300, 2147483647ull, 644245095 },
		{ 1000, 0, 0 }, { 1000, 1, 1 }, { 1000, 1001, 1001 },
		{ 1000, 2147483647ull, 2147483647ull },
		{ 24, 1, 1 }, { 24, 42, 2 }, { 24, 1000, 24 },
		{ 1024, 1000, 1024 }, { 1200, 1, 2 }, { 1200, 1000, 1200 },
		{ 2000, 5, 10 }, { 5000, 858993460, 4294967300ull },
		{ 3000, 1431655765, 4294967295ull },
		{ 3000, 1431655766, DQL_MAX_JIFFY_OFFSET },
		{ 100, 2147483648ull, DQL_MAX_JIFFY_OFFSET },
		{ 300, 2147483648ull, DQL_MAX_JIFFY_OFFSET },
		{ 1000, 4294967295ull, DQL_MAX_JIFFY_OFFSET },
		{ 1000, (uint64_t)1 << 40, DQL_MAX_JIFFY_OFFSET },
		{ 1000, UINT64_MAX, DQL_MAX_JIFFY_OFFSET },
		{ 0, 1000, 0 },
	};
	static const struct {
		unsigned int hz;
		uint64_t j, ms;
	} j2m[] = {
		{ 100, 0, 0 }, { 100, 1, 10 }, { 100, 101, 1010 },
		{ 250, 1, 4 }, { 250, 251, 1004 },
		{ 300, 1, 4 }, { 300, 3, 10 }, { 300, 4, 14 }, { 300, 300, 1000 },
		{ 300, 301, 1004 },
		{ 1000, 1, 1 }, { 1000, 128, 128 },
		{ 1000, ((uint64_t)1 << 32) + 5, 5 },
		{ 1000, DQL_MAX_JIFFY_OFFSET, 4294967294ull },
		{ 24, 1, 42 }, { 1024, 1, 1 }, { 1024, 1024, 1000 },
		{ 1200, 1, 1 }, { 1200, 1200, 1000 }, { 2000, 3, 2 },
		{ 3000, DQL_MAX_JIFFY_OFFSET, 1431655765 },
		{ 0, 5, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(m2j) / sizeof(m2j[0]); i++)
		assert_int_equal(dql_msecs_to_jiffies(m2j[i].ms, m2j[i].hz),
				 m2j[i].j);
	for (i = 0; i < sizeof(j2m) / sizeof(j2m[0]); i++)
		assert_int_equal(dql_jiffies_to_msecs(j2m[i].j, j2m[i].hz),
				 j2m[i].ms);
}

/*
 * Round trips ms -> jiffies -> ms never lose time (ms -> jiffies rounds
 * up): HZ=250 1001 -> 251 -> 1004, HZ=300 1001 -> ceil(300.3) = 301 ->
 * ceil(3010 / 3) = 1004, HZ=100 1001 -> 101 -> 1010.
 */
static void test_msecs_round_trip(void **state)
{
	static const unsigned int hzs[] = { 100, 250, 300, 1000 };
	size_t i;
	uint64_t m;

	(void)state;
	for (i = 0; i < sizeof(hzs) / sizeof(hzs[0]); i++) {
		for (m = 0; m <= 5000; m++) {
			uint64_t j = dql_msecs_to_jiffies(m, hzs[i]);
			uint64_t back = dql_jiffies_to_msecs(j, hzs[i]);

			assert_true(back >= m);
			/* at most one jiffy, rounded up to ms, more */
			assert_true(back <= m + (1000 + hzs[i] - 1) / hzs[i]);
			/*
			 * jiffies -> ms -> jiffies is the identity when HZ
			 * divides 1000 (m is a jiffies count here)
			 */
			if (1000 % hzs[i] == 0)
				assert_int_equal(dql_msecs_to_jiffies(
					dql_jiffies_to_msecs(m, hzs[i]),
					hzs[i]), m);
		}
	}
	/*
	 * ... but not at HZ=300: 4 jiffies show as ceil(40 / 3) = 14 ms, and
	 * writing 14 ms back gives ceil(14 * 0.3) = ceil(4.2) = 5 jiffies.
	 */
	assert_int_equal(dql_jiffies_to_msecs(4, 300), 14);
	assert_int_equal(dql_msecs_to_jiffies(14, 300), 5);
	assert_int_equal(dql_jiffies_to_msecs(1, 300), 4);
	assert_int_equal(dql_msecs_to_jiffies(4, 300), 2);
	assert_int_equal(dql_jiffies_to_msecs(dql_msecs_to_jiffies(1001, 250),
					      250), 1004);
	assert_int_equal(dql_jiffies_to_msecs(dql_msecs_to_jiffies(1001, 300),
					      300), 1004);
	assert_int_equal(dql_jiffies_to_msecs(dql_msecs_to_jiffies(1001, 100),
					      100), 1010);
	assert_true(dql_hz_valid(12));
	assert_true(dql_hz_valid(1000));
	assert_true(dql_hz_valid(12287));
	assert_false(dql_hz_valid(11));
	assert_false(dql_hz_valid(12288));
	assert_false(dql_hz_valid(0));
}

/* ------------------------------------------------------- kernel versions */

static void test_kernel_parse(void **state)
{
	static const struct {
		const char *s;
		unsigned int kflags;
	} ok[] = {
		{ "3.3", K_33 }, { "3.4", K_33 }, { "3.4.113", K_33 },
		{ "3.5", K_35 }, { "3.10", K_35 }, { "4.19", K_35 },
		{ "5.15", K_35 }, { "5.15.164", K_35 }, { "6.0", K_35 },
		{ "6.1", K_61 }, { "6.8", K_61 }, { "6.8.0-45-generic", K_61 },
		{ "6.9", K_69 }, { "v6.9", K_69 }, { "6.9+", K_69 },
		{ "6.10", K_610 }, { "6.14.2", K_610 }, { "6.10-rc1", K_610 },
		{ "6.15", K_615 }, { "6.18", K_615 }, { "7.0", K_615 },
		{ "newest", DQL_K_NEWEST }, { "latest", DQL_K_NEWEST },
	};
	static const struct {
		const char *s, *msg;
	} bad[] = {
		{ "3.2", "kernel 3.2: DQL appeared in 3.3" },
		{ "2.6.32", "kernel 2.6.32: DQL appeared in 3.3" },
		{ "3.0", "kernel 3.0: DQL appeared in 3.3" },
		{ "abc", "kernel 'abc': expected a version like 6.9" },
		{ "", "kernel '': expected a version like 6.9" },
		{ "6", "kernel '6': expected a version like 6.9" },
		{ "6.", "kernel '6.': expected a version like 6.9" },
		{ "6.x", "kernel '6.x': expected a version like 6.9" },
		{ "6.9x", "kernel '6.9x': expected a version like 6.9" },
		{ "6..9", "kernel '6..9': expected a version like 6.9" },
		{ "6.9.", "kernel '6.9.': expected a version like 6.9" },
		{ ".9", "kernel '.9': expected a version like 6.9" },
		{ "-6.9", "kernel '-6.9': expected a version like 6.9" },
		{ " 6.9", "kernel ' 6.9': expected a version like 6.9" },
		{ "6.9 ", "kernel '6.9 ': expected a version like 6.9" },
		{ "9999999.1", "kernel '9999999.1': expected a version like 6.9" },
		{ "Newest", "kernel 'Newest': expected a version like 6.9" },
	};
	struct bql_err e;
	unsigned int kf;
	size_t i;

	(void)state;
	assert_int_equal(K_615, DQL_K_NEWEST);
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		kf = 0xdead;
		memset(&e, 0, sizeof(e));
		assert_int_equal(dql_kernel_parse(ok[i].s, &kf, &e), 0);
		assert_int_equal(kf, ok[i].kflags);
		assert_int_equal(e.code, 0);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		kf = 0xdead;
		memset(&e, 0, sizeof(e));
		assert_int_equal(dql_kernel_parse(bad[i].s, &kf, &e), -EINVAL);
		assert_int_equal(kf, 0xdead);
		assert_int_equal(e.code, EINVAL);
		assert_string_equal(e.msg, bad[i].msg);
	}
	kf = 0xdead;
	assert_int_equal(dql_kernel_parse(NULL, &kf, NULL), -EINVAL);
	assert_int_equal(dql_kernel_parse("abc", &kf, NULL), -EINVAL);
	assert_int_equal(kf, 0xdead);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stall_detected),
		cmocka_unit_test(test_stall_not_detected),
		cmocka_unit_test(test_stall_half_threshold),
		cmocka_unit_test(test_stall_edges),
		cmocka_unit_test(test_stall_thrs_zero),
		cmocka_unit_test(test_stall_hist_on_thrs),
		cmocka_unit_test(test_stall_ring_clear),
		cmocka_unit_test(test_stall_jiffies_wrap),
		cmocka_unit_test(test_store_limits),
		cmocka_unit_test(test_store_stall_thrs),
		cmocka_unit_test(test_store_ms),
		cmocka_unit_test(test_msecs_jiffies),
		cmocka_unit_test(test_msecs_round_trip),
		cmocka_unit_test(test_kernel_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
