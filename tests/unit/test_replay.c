// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the replay engine (dql/replay.c): small traces whose
 * limits are derived by hand from the kernel algorithm, step by step in
 * the comments (NQ = num_queued, NC = num_completed, prev_nq =
 * prev_num_queued, "starve" = the limit-increase branch). Settings,
 * snapshots, resets, stalls, the mean and the event kinds are in
 * test_replay_records.c; the shared helpers in replaytest.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "replaytest.h"

/*
 * Limit ramping up from 0 by starvation (hz 1000, hold 1000 jiffies):
 *
 * L4 Q 1000 @0: NQ=1000; adj_limit=0 -> avail -1000 < 0: stop #1.
 * L5 C 1000 @1ms: completed=1000, ovlimit=POSDIFF(1000-0, limit 0)=1000,
 *    inprogress=0 -> starve: limit += POSDIFF(1000, prev_nq 0) + 0 = 1000.
 *    adj=2000, prev_nq=1000, NC=1000. avail 1000: running again.
 * L6 Q 1500 @2ms: NQ=2500, avail=2000-2500 < 0: stop #2.
 * L7 C 1500 @3ms: completed=2500, ovlimit=POSDIFF(1500, 1000)=500,
 *    inprogress=0 -> starve: limit += POSDIFF(2500, 1000)=1500 -> 2500.
 *    adj=5000, prev_nq=2500, NC=2500. avail 2500.
 * L8,L9 Q 1000 @4,5ms: NQ=4500, avail 500: no stop.
 * L10 C 1000 @7ms: completed=3500, ovlimit=POSDIFF(2000, 2500)=0,
 *    inprogress=1000, prev_ovlimit=0 -> no starve; prev_inprogress=
 *    2500-2500=0 -> no decrease. limit 2500.
 * Series: 1000@1ms, 2500@3ms, 2500@7ms.
 * mean = (1000*(3-1) + 2500*(7-3)) / (7-1) = 12000/6 = 2000.
 */
static const char ramp[] =
	"bqltrace 1\n"
	"hz 1000\n"
	"queue q\n"
	"0 q Q 1000\n"
	"1000000 q C 1000\n"
	"2000000 q Q 1500\n"
	"3000000 q C 1500\n"
	"4000000 q Q 1000\n"
	"5000000 q Q 1000\n"
	"7000000 q C 1000\n";

static void test_ramp(void **state)
{
	struct replay_stats st;
	struct run r;

	(void)state;
	play(&r, ramp, NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.nev, 7);
	assert_int_equal(r.ev[0].kind, BQLT_Q);
	assert_int_equal(r.ev[0].line, 4);
	assert_true(r.ev[0].stopped);
	assert_int_equal(r.ev[0].inflight, 1000);
	assert_int_equal(r.ev[0].limit, 0);
	assert_int_equal(r.ev[1].kind, BQLT_C);
	assert_int_equal(r.ev[1].limit, 1000);
	assert_int_equal(r.ev[1].inflight, 0);
	assert_true(r.ev[1].starved);
	assert_true(r.ev[2].stopped);
	assert_int_equal(r.ev[3].limit, 2500);
	assert_true(r.ev[3].starved);
	assert_false(r.ev[4].stopped);
	assert_false(r.ev[5].stopped);
	assert_int_equal(r.ev[5].inflight, 2000);
	assert_int_equal(r.ev[6].limit, 2500);
	assert_int_equal(r.ev[6].inflight, 1000);
	assert_false(r.ev[6].starved);
	assert_string_equal(r.ev[6].qname, "q");
	assert_int_equal(r.ev[6].t_ns, 7000000);
	assert_int_equal(r.ev[6].jiffies, 7);
	assert_int_equal(r.nwarn, 0);

	st = stats(&r, 0);
	assert_true(st.created);
	assert_int_equal(st.records, 7);
	assert_int_equal(st.completions, 3);
	assert_int_equal(st.bytes_queued, 4500);
	assert_int_equal(st.bytes_completed, 3500);
	assert_int_equal(st.limit_final, 2500);
	assert_int_equal(st.limit_min, 1000);
	assert_int_equal(st.limit_max, 2500);
	assert_true(st.limit_mean == 2000.0);
	assert_int_equal(st.starvations, 2);
	assert_int_equal(st.increases, 2);
	assert_int_equal(st.decreases, 0);
	assert_int_equal(st.stops, 2);
	assert_int_equal(st.verify_checked, 0);
	assert_int_equal(replay_queue_count(&r.r), 1);
	assert_string_equal(replay_queue_name(&r.r, 0), "q");
	done(&r);
}

/*
 * Hold-time slack decay (hz 1000, hold_time 10 ms = 10 jiffies).
 * The queue is created at L4 (j=0: slack_start_time=0); P limit=10000
 * writes the limit directly (adj_limit stays 0).
 *
 * L5-7 Q 3000 x3: NQ=9000; avail 0-3000 < 0 at L5: stop #1.
 * L8 C 3000 @j1: completed=3000, ovlimit=POSDIFF(9000, 10000)=0,
 *    inprogress=6000, prev_inprogress=0-0=0 -> no branch. adj=13000,
 *    prev_nq=9000, NC=3000; avail 4000: running.
 * L9 Q 3000: NQ=12000.
 * L10 C 3000 @j5: completed=6000, ovlimit 0, inprogress=6000,
 *    prev_inprogress=9000-3000=6000, all_prev_completed=(6000>=9000)=no
 *    -> decrease branch: slack=POSDIFF(10000+0, 2*3000)=4000,
 *    lowest_slack=4000; time_after(5, 0+10)? no. adj=16000, prev_nq=12000.
 * L11 Q 3000: NQ=15000.
 * L12 C 3000 @j11: same branch, slack 4000; time_after(11, 10) yes ->
 *    limit = 10000 - 4000 = 6000. adj=6000+9000=15000, avail 0.
 * Series: 10000@1ms, 10000@5ms, 6000@11ms:
 * mean = (10000*4 + 10000*6) / 10 = 10000.
 */
static const char decay[] =
	"bqltrace 1\n"
	"hz 1000\n"
	"queue q hold_time=10\n"
	"0 q P limit=10000\n"
	"0 q Q 3000\n"
	"0 q Q 3000\n"
	"0 q Q 3000\n"
	"1000000 q C 3000\n"
	"1000000 q Q 3000\n"
	"5000000 q C 3000\n"
	"5000000 q Q 3000\n"
	"11000000 q C 3000\n";

static void test_decay(void **state)
{
	struct replay_stats st;
	struct run r;

	(void)state;
	play(&r, decay, NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.nev, 9);
	assert_int_equal(r.ev[0].kind, BQLT_P);
	assert_int_equal(r.ev[0].limit, 10000);
	assert_int_equal(r.ev[0].bytes, 0);
	assert_int_equal(r.ev[4].limit, 10000);
	assert_int_equal(r.ev[6].limit, 10000);
	assert_int_equal(r.ev[8].limit, 6000);
	assert_int_equal(r.ev[8].line, 12);
	assert_int_equal(r.ev[8].inflight, 6000);
	assert_int_equal(replay_queue_dql(&r.r, 0)->slack_start_time, 11);
	assert_int_equal(replay_queue_dql(&r.r, 0)->lowest_slack, UINT32_MAX);
	st = stats(&r, 0);
	assert_int_equal(st.limit_final, 6000);
	assert_int_equal(st.limit_min, 6000);
	assert_int_equal(st.limit_max, 10000);
	assert_true(st.limit_mean == 10000.0);
	assert_int_equal(st.decreases, 1);
	assert_int_equal(st.increases, 0);
	assert_int_equal(st.starvations, 0);
	assert_int_equal(st.stops, 1);
	done(&r);
}

/*
 * What-if: the same trace without its hold_time keeps the default of HZ
 * jiffies (1000), so j11 is inside the hold period and the limit stays
 * 10000; --set hold_time=10 brings the decrease back. A P record of an
 * overridden key is left alone: hold_time=1000 at L4 does not undo it.
 */
static void test_whatif(void **state)
{
	static const char t[] =
		"bqltrace 1\n"
		"hz 1000\n"
		"queue q\n"
		"0 q P limit=10000 hold_time=1000\n"
		"0 q Q 3000\n"
		"0 q Q 3000\n"
		"0 q Q 3000\n"
		"1000000 q C 3000\n"
		"1000000 q Q 3000\n"
		"5000000 q C 3000\n"
		"5000000 q Q 3000\n"
		"11000000 q C 3000\n";
	struct replay_opts o;
	struct run r;

	(void)state;
	play(&r, t, NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(stats(&r, 0).limit_final, 10000);
	assert_int_equal(replay_queue_dql(&r.r, 0)->slack_hold_time, 1000);
	done(&r);

	replay_opts_init(&o);
	assert_int_equal(replay_opts_set(&o, "hold_time", 10, NULL), 0);
	play(&r, t, &o);
	assert_int_equal(r.rc, 0);
	assert_int_equal(stats(&r, 0).limit_final, 6000);
	assert_int_equal(replay_queue_dql(&r.r, 0)->slack_hold_time, 10);
	done(&r);

	/*
	 * limit_min=8000 is applied after the trace's own queue setting
	 * (limit_min=100) and holds against P and S: the decay to 6000 is
	 * clamped to 8000.
	 */
	replay_opts_init(&o);
	assert_int_equal(replay_opts_set(&o, "hold_time", 10, NULL), 0);
	assert_int_equal(replay_opts_set(&o, "limit_min", 8000, NULL), 0);
	play(&r, "bqltrace 1\nhz 1000\nqueue q limit_min=100\n"
	     "0 q P limit=10000 limit_min=0\n"
	     "0 q S min_limit=0 limit=10000\n"
	     "0 q Q 3000\n0 q Q 3000\n0 q Q 3000\n"
	     "1000000 q C 3000\n1000000 q Q 3000\n"
	     "5000000 q C 3000\n5000000 q Q 3000\n"
	     "11000000 q C 3000\n", &o);
	assert_int_equal(r.rc, 0);
	assert_int_equal(replay_queue_dql(&r.r, 0)->min_limit, 8000);
	assert_int_equal(stats(&r, 0).limit_final, 8000);
	done(&r);

	/* limit_max caps the ramp at 1200 (clamp in dql_completed) */
	replay_opts_init(&o);
	assert_int_equal(replay_opts_set(&o, "limit_max", 1200, NULL), 0);
	play(&r, ramp, &o);
	assert_int_equal(r.rc, 0);
	assert_int_equal(stats(&r, 0).limit_final, 1200);
	assert_int_equal(stats(&r, 0).limit_max, 1000 + 200);
	done(&r);

	/* bad overrides */
	replay_opts_init(&o);
	assert_int_equal(replay_opts_set(&o, "limit", 1, &r.e), -EINVAL);
	assert_string_equal(r.e.msg,
			    "--set limit: unknown setting (limit_min, limit_max, hold_time, stall_thrs)");
	assert_int_equal(replay_opts_set(&o, "limit_max", DQL_MAX_LIMIT + 1ull, &r.e), -EINVAL);
	assert_string_equal(r.e.msg, "--set limit_max=1879048193: above the kernel's maximum 1879048192");
	assert_int_equal(replay_opts_set(&o, "hold_time", 1ull << 32, &r.e), -EINVAL);
	assert_int_equal(o.set_mask, 0);
	/* 2 ms at HZ 1000 is 2 jiffies: below the 4..128 window */
	assert_int_equal(replay_opts_set(&o, "stall_thrs", 2, NULL), 0);
	play(&r, ramp, &o);
	assert_int_equal(r.rc, -ERANGE);
	assert_string_equal(r.e.msg,
			    "--set: stall_thrs=2: 2 jiffies at HZ 1000, outside the kernel's window 4..128 (sysfs would refuse it)");
	done(&r);
}

/*
 * Kernel versions differ (3.3 vs newest) on all_prev_completed when
 * completed == prev_num_queued (3.3 used POSDIFF, false when equal):
 *
 * L4 Q 1000, L5 C 1000 @j1: starve (both) -> limit 1000, prev_nq=1000,
 *    NC=1000, prev_ovlimit 0 (the limit changed).
 * L6,7 Q 1000 x2: NQ=3000, 2000 in flight.
 * L8 C 1000 @j2: completed=2000, ovlimit=POSDIFF(2000, 1000)=1000,
 *    inprogress=1000 -> no starve; prev_inprogress=1000-1000=0 -> no
 *    decrease; limit unchanged so prev_ovlimit=1000, prev_nq=3000.
 * L9 C 1000 @j3: completed=3000 == prev_nq, ovlimit 0, inprogress 0.
 *    newest: AFTER_EQ(3000, 3000) -> starve: limit += POSDIFF(3000,3000)
 *            + prev_ovlimit 1000 = 2000.
 *    3.3:    POSDIFF(3000, 3000) = 0 -> no branch: limit stays 1000.
 */
static const char eqcase[] =
	"bqltrace 1\nhz 1000\nqueue q\n"
	"0 q Q 1000\n"
	"1000000 q C 1000\n"
	"1000000 q Q 1000\n"
	"1000000 q Q 1000\n"
	"2000000 q C 1000\n"
	"3000000 q C 1000 limit=2000\n";

static void test_kernel_versions(void **state)
{
	struct replay_opts o;
	struct run r;

	(void)state;
	play(&r, eqcase, NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(stats(&r, 0).limit_final, 2000);
	assert_int_equal(stats(&r, 0).starvations, 2);
	assert_int_equal(stats(&r, 0).verify_mismatches, 0);
	assert_int_equal(r.nmis, 0);
	done(&r);

	o = kernel("3.3");
	play(&r, eqcase, &o);
	assert_int_equal(r.rc, 0);
	assert_int_equal(stats(&r, 0).limit_final, 1000);
	assert_int_equal(stats(&r, 0).starvations, 1);
	assert_int_equal(stats(&r, 0).verify_checked, 1);
	assert_int_equal(stats(&r, 0).verify_mismatches, 1);
	assert_int_equal(r.nmis, 1);
	assert_int_equal(r.mis[0].line, 9);
	assert_int_equal(r.mis[0].observed, 2000);
	assert_int_equal(r.mis[0].limit, 1000);
	done(&r);

	/* 3.5 has the fix */
	o = kernel("3.5");
	play(&r, eqcase, &o);
	assert_int_equal(stats(&r, 0).limit_final, 2000);
	done(&r);

	/*
	 * Reset (6.15: limit = min_limit, before: 0) after the ramp with
	 * limit_min=300: the first C starves to 1000 either way.
	 */
	play(&r, "bqltrace 1\nhz 1000\nqueue q limit_min=300\n"
	     "0 q Q 1000\n1000000 q C 1000\n2000000 q R\n", NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.ev[1].limit, 1000);
	assert_int_equal(r.ev[2].kind, BQLT_R);
	assert_int_equal(r.ev[2].limit, 300);
	assert_int_equal(r.ev[2].inflight, 0);
	assert_int_equal(stats(&r, 0).limit_final, 300);
	/* final is the end state; min/max are over the completions */
	assert_int_equal(stats(&r, 0).limit_min, 1000);
	done(&r);
	o = kernel("6.14");
	play(&r, "bqltrace 1\nhz 1000\nqueue q limit_min=300\n"
	     "0 q Q 1000\n1000000 q C 1000\n2000000 q R\n", &o);
	assert_int_equal(r.ev[2].limit, 0);
	done(&r);

	/*
	 * clamp() with limit_min 5000 > limit_max 3000: the first C starves
	 * to 1000; 6.1+ clamp gives min (1000 < max -> 5000), 6.0 gives 3000.
	 */
	play(&r, "bqltrace 1\nqueue q limit_min=5000 limit_max=3000\n"
	     "0 q Q 1000\n1 q C 1000\n", NULL);
	assert_int_equal(stats(&r, 0).limit_final, 5000);
	done(&r);
	o = kernel("6.0");
	play(&r, "bqltrace 1\nqueue q limit_min=5000 limit_max=3000\n"
	     "0 q Q 1000\n1 q C 1000\n", &o);
	assert_int_equal(stats(&r, 0).limit_final, 3000);
	done(&r);
}

/*
 * Completion-only records: nq=/lo= are taken as given.
 * L4 Q 1000 (Q sum 1000).
 * L5 C 1000 nq=1500 lo=1500 @j1: nq disagrees (1000 vs 1500): warning,
 *    nq wins: ovlimit=POSDIFF(1500-0, 0)=1500, inprogress=500 -> no
 *    starve (with NQ=1000 it would starve to 1000); prev_inprogress 0 ->
 *    no decrease; limit 0, prev_ovlimit=1500, prev_nq=1500, NC=1000.
 * L6 C 500 nq=1600 @j2: disagrees again (1500 vs 1600), no 2nd warning.
 *    completed=1500, prev_ovlimit 1500 and AFTER_EQ(1500, 1500) -> starve:
 *    limit += POSDIFF(1500, 1500) + 1500 = 1500. inflight 100.
 */
static void test_nq_precedence(void **state)
{
	struct replay_stats st;
	struct run r;

	(void)state;
	play(&r, "bqltrace 1\nhz 1000\nqueue q\n"
	     "0 q Q 1000\n"
	     "1000000 q C 1000 nq=1500 lo=1500 limit=0\n"
	     "2000000 q C 500 nq=1600 limit=1500\n", NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.nwarn, 1);
	assert_string_equal(r.warn[0],
			    "line 5: queue q: nq=1500 disagrees with the Q records (1000 queued): using nq=, what the kernel saw");
	assert_int_equal(r.ev[1].limit, 0);
	assert_int_equal(r.ev[1].inflight, 500);
	assert_int_equal(r.ev[2].limit, 1500);
	assert_int_equal(r.ev[2].inflight, 100);
	assert_int_equal(replay_queue_dql(&r.r, 0)->last_obj_cnt, 1500);
	st = stats(&r, 0);
	assert_int_equal(st.nq_disagree, 2);
	assert_int_equal(st.verify_checked, 2);
	assert_int_equal(st.verify_mismatches, 0);
	assert_int_equal(r.nmis, 0);
	done(&r);

	/* a completion-only trace (no Q at all) never warns */
	play(&r, "bqltrace 1\nhz 1000\nqueue q\n"
	     "1000000 q C 1000 nq=1000 lo=1000 limit=1000\n"
	     "2000000 q C 1000 nq=2000 lo=1000 limit=1000\n", NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.nwarn, 0);
	assert_int_equal(stats(&r, 0).nq_disagree, 0);
	assert_int_equal(stats(&r, 0).verify_mismatches, 0);
	assert_int_equal(stats(&r, 0).bytes_queued, 0);
	done(&r);
}

static void test_over_completion(void **state)
{
	struct run r;

	(void)state;
	play(&r, "bqltrace 1\nqueue eth0:tx-1\n0 eth0:tx-1 Q 1000\n"
	     "1 eth0:tx-1 C 600\n2 eth0:tx-1 C 600\n", NULL);
	assert_int_equal(r.rc, -ERANGE);
	assert_string_equal(r.e.msg,
			    "line 5: C record: completes 600 bytes but only 400 are in flight on queue eth0:tx-1 (the kernel would BUG())");
	done(&r);

	/* with nq= the in-flight amount is nq - NC */
	play(&r, "bqltrace 1\nqueue q\n1 q C 2000 nq=1000\n", NULL);
	assert_int_equal(r.rc, -ERANGE);
	assert_string_equal(r.e.msg,
			    "line 3: C record: completes 2000 bytes but only 1000 are in flight on queue q (the kernel would BUG())");
	done(&r);

	/* a Q over DQL_MAX_OBJECT: BUG before 6.10, ignored (warning) after */
	play(&r, "bqltrace 1\nqueue q\n1 q Q 268435456\n2 q Q 268435456\n3 q Q 268435455\n", NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.nwarn, 1);
	assert_string_equal(r.warn[0],
			    "line 3: queue q: Q of 268435456 bytes is above DQL_MAX_OBJECT: ignored, as the kernel does since 6.10");
	assert_int_equal(stats(&r, 0).queued_ignored, 2);
	assert_int_equal(stats(&r, 0).bytes_queued, 268435455);
	done(&r);
	{
		struct replay_opts o = kernel("6.9");

		play(&r, "bqltrace 1\nqueue q\n1 q Q 268435456\n", &o);
		assert_int_equal(r.rc, -ERANGE);
		assert_string_equal(r.e.msg,
				    "line 3: Q record: 268435456 bytes is above DQL_MAX_OBJECT (268435455): the kernel would BUG()");
		done(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ramp),
		cmocka_unit_test(test_decay),
		cmocka_unit_test(test_whatif),
		cmocka_unit_test(test_kernel_versions),
		cmocka_unit_test(test_nq_precedence),
		cmocka_unit_test(test_over_completion),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
