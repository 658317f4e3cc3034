// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the replay engine (dql/replay.c) beyond the limit
 * arithmetic of test_replay.c: queue settings and P records, snapshots
 * and resets, the stall detector, the mean limit, two queues and the
 * event kinds. Limits are derived by hand from the kernel algorithm in the
 * comments, in the notation of test_replay.c (NQ = num_queued, NC =
 * num_completed, prev_nq = prev_num_queued, "starve" = the
 * limit-increase branch).
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

/* Creation, queue settings in order, and P as sysfs stores. */
static void test_settings(void **state)
{
	const struct dql *d;
	struct run r;

	(void)state;
	/*
	 * HZ 250: created at the first record (j = 40 ms * 250 = 10) with
	 * hold_time HZ = 250 jiffies, then hold_time=1001 ms -> 251 jiffies,
	 * stall_thrs=20 ms -> 5 jiffies (turning it on sets last_reap = 10).
	 */
	play(&r, "bqltrace 1\nqueue q hold_time=1001 stall_thrs=20 limit_min=64 limit_max=max\n"
	     "40000000 q Q 100\n", NULL);
	assert_int_equal(r.rc, 0);
	d = replay_queue_dql(&r.r, 0);
	assert_int_equal(d->slack_hold_time, 251);
	assert_int_equal(d->stall_thrs, 5);
	assert_int_equal(d->last_reap, 10);
	assert_int_equal(d->slack_start_time, 10);
	assert_int_equal(d->min_limit, 64);
	assert_int_equal(d->max_limit, DQL_MAX_LIMIT);
	assert_int_equal(d->limit, 0);
	done(&r);

	/* default: hold_time = HZ jiffies */
	play(&r, "bqltrace 1\nhz 300\nqueue q\n0 q R\n", NULL);
	assert_int_equal(replay_queue_dql(&r.r, 0)->slack_hold_time, 300);
	done(&r);

	/* P: limit written directly, no clamp until the next completion */
	play(&r, "bqltrace 1\nhz 1000\nqueue q\n"
	     "0 q Q 1000\n"
	     "1 q P limit_max=500 limit=800\n"
	     "2 q P limit=max\n"
	     "3 q P limit=800 stall_thrs=4 stall_max=9\n"
	     "4 q C 1000\n", NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.ev[1].limit, 800);
	assert_int_equal(r.ev[2].limit, DQL_MAX_LIMIT);
	assert_int_equal(r.ev[3].limit, 800);
	assert_int_equal(r.ev[3].inflight, 1000);
	/* C: ovlimit=POSDIFF(1000, 800)=200, inprogress 0 -> starve:
	 * 800 + POSDIFF(1000, 0) = 1800, clamped to limit_max 500 */
	assert_int_equal(r.ev[4].limit, 500);
	assert_int_equal(replay_queue_dql(&r.r, 0)->stall_thrs, 4);
	done(&r);

	/* P stall_max=<any> clears stall_max, as any sysfs write does */
	play(&r, "bqltrace 1\nqueue q\n0 q S stall_max=77 stall_cnt=3\n1 q P stall_max=0\n", NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(replay_queue_dql(&r.r, 0)->stall_max, 0);
	assert_int_equal(replay_queue_dql(&r.r, 0)->stall_cnt, 3);
	done(&r);

	/* values sysfs would refuse are trace errors naming the line */
	play(&r, "bqltrace 1\nqueue q\n0 q Q 1\n1 q P limit=1879048193\n", NULL);
	assert_int_equal(r.rc, -EINVAL);
	assert_string_equal(r.e.msg,
			    "line 4: P record: limit=1879048193: above the kernel's maximum 1879048192 (sysfs would refuse it)");
	done(&r);
	play(&r, "bqltrace 1\nhz 1000\nqueue q\n0 q P stall_thrs=3\n", NULL);
	assert_int_equal(r.rc, -ERANGE);
	assert_string_equal(r.e.msg,
			    "line 4: P record: stall_thrs=3: 3 jiffies at HZ 1000, outside the kernel's window 4..128 (sysfs would refuse it)");
	done(&r);
	play(&r, "bqltrace 1\nhz 1000\nqueue q\n0 q P stall_thrs=129\n", NULL);
	assert_int_equal(r.rc, -ERANGE);
	done(&r);
	/* the queue directive's settings are checked when it is created */
	play(&r, "bqltrace 1\nqueue a\nqueue q limit_min=2000000000\n\n0 a Q 1\n1 q Q 1\n", NULL);
	assert_int_equal(r.rc, -EINVAL);
	assert_string_equal(r.e.msg,
			    "line 3: queue q: limit_min=2000000000: above the kernel's maximum 1879048192 (sysfs would refuse it)");
	done(&r);
	/* HZ 250: 1 ms -> 1 jiffy, too short; 512 ms -> 128 jiffies ok */
	play(&r, "bqltrace 1\nqueue q stall_thrs=1\n0 q Q 1\n", NULL);
	assert_int_equal(r.rc, -ERANGE);
	assert_string_equal(r.e.msg,
			    "line 2: queue q: stall_thrs=1: 1 jiffies at HZ 250, outside the kernel's window 4..128 (sysfs would refuse it)");
	done(&r);
	play(&r, "bqltrace 1\nqueue q stall_thrs=512\n0 q Q 1\n", NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(replay_queue_dql(&r.r, 0)->stall_thrs, 128);
	done(&r);
}

/* S overrides the fields it names; R resets. */
static void test_snapshot_reset(void **state)
{
	const struct dql *d;
	struct run r;

	(void)state;
	/*
	 * Mid-stream start: 5000 in flight (NQ 105000, NC 100000), limit
	 * 6000, prev_nq 105000. C 5000 @j: completed=105000, ovlimit=
	 * POSDIFF(5000, 6000)=0, inprogress 0, prev_ovlimit 0 -> no branch
	 * (inprogress 0 -> no decrease). limit 6000, inflight 0.
	 */
	play(&r, "bqltrace 1\nhz 1000\nqueue q\n"
	     "0 q S limit=6000 num_queued=105000 num_completed=100000 adj_limit=106000 "
	     "last_obj_cnt=1500 prev_num_queued=105000 prev_last_obj_cnt=1500 prev_ovlimit=0 "
	     "lowest_slack=4294967295 slack_start_time=7 min_limit=0 max_limit=1879048192 "
	     "slack_hold_time=1000 stall_thrs=0 stall_max=0 stall_cnt=2 last_reap=5 "
	     "history_head=0 history=1,2,3,4\n"
	     "1000000 q C 5000 limit=6000\n", NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.ev[0].kind, BQLT_S);
	assert_int_equal(r.ev[0].limit, 6000);
	assert_int_equal(r.ev[0].inflight, 5000);
	assert_int_equal(r.ev[1].limit, 6000);
	assert_int_equal(r.ev[1].inflight, 0);
	d = replay_queue_dql(&r.r, 0);
	assert_int_equal(d->num_completed, 105000);
	assert_int_equal(d->adj_limit, 111000);
	assert_int_equal(d->stall_cnt, 2);
	assert_int_equal(d->history[3], 4);
	assert_int_equal(d->slack_start_time, 7);
	assert_int_equal(stats(&r, 0).verify_mismatches, 0);
	done(&r);

	/* unnamed fields keep their value */
	play(&r, "bqltrace 1\nqueue q hold_time=500\n0 q S limit=77\n", NULL);
	d = replay_queue_dql(&r.r, 0);
	assert_int_equal(d->limit, 77);
	assert_int_equal(d->slack_hold_time, 125);
	assert_int_equal(d->max_limit, DQL_MAX_LIMIT);
	done(&r);

	/* R: counters back to 0, queue no longer stopped (XOFF cleared) */
	play(&r, "bqltrace 1\nqueue q\n0 q Q 1000\n1 q Q 1000\n2 q R\n3 q Q 10\n", NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.ev[2].inflight, 0);
	assert_true(r.ev[0].stopped);
	assert_false(r.ev[1].stopped);	/* already stopped */
	assert_true(r.ev[3].stopped);	/* stopped again after the reset */
	assert_int_equal(stats(&r, 0).stops, 2);
	d = replay_queue_dql(&r.r, 0);
	assert_int_equal(d->num_queued, 10);
	assert_int_equal(d->num_completed, 0);
	done(&r);
}

/*
 * Stall detector (hz 1000, stall_thrs 8 ms = 8 jiffies), created by R at
 * j100 (last_reap=100). Q at j102 sets history bit 102. C at j120: no
 * completion since 100 >= 8 jiffies; scan from last_reap+1=101 to
 * now - thrs/2 = 116 finds 102: a stall of 120-102 = 18 jiffies.
 * Before 6.9 there is no detector.
 */
static void test_stall(void **state)
{
	static const char t[] =
		"bqltrace 1\nhz 1000\nqueue q stall_thrs=8\n"
		"0 q R j=100\n"
		"1 q Q 1000 j=102\n"
		"2 q C 1000 j=120\n";
	struct replay_opts o;
	struct run r;

	(void)state;
	play(&r, t, NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(stats(&r, 0).stall_cnt, 1);
	assert_int_equal(stats(&r, 0).stall_max, 18);
	done(&r);
	o = kernel("6.8");
	play(&r, t, &o);
	assert_int_equal(r.rc, 0);
	assert_int_equal(stats(&r, 0).stall_cnt, 0);
	done(&r);
}

/* the limit mean: one completion, equal times, and the weighting */
static void test_mean(void **state)
{
	struct replay_stats st;
	struct run r;

	(void)state;
	/* one completion: its limit (1000) */
	play(&r, "bqltrace 1\nqueue q\n0 q Q 1000\n5 q C 1000\n", NULL);
	st = stats(&r, 0);
	assert_true(st.limit_mean == 1000.0);
	done(&r);
	/* all completions at one instant: plain mean of 1000, 2500 -> 1750 */
	play(&r, "bqltrace 1\nqueue q\n0 q Q 1000\n5 q C 1000\n5 q Q 1500\n5 q C 1500\n", NULL);
	st = stats(&r, 0);
	assert_int_equal(st.completions, 2);
	assert_true(st.limit_mean == 1750.0);
	done(&r);
	/*
	 * 1000 held for 1 ns, 2500 for 3 ns, then the last (2500) has no
	 * weight: (1000*1 + 2500*3) / 4 = 2125.
	 */
	play(&r, "bqltrace 1\nqueue q\n0 q Q 1000\n1 q C 1000\n1 q Q 1500\n2 q C 1500\n"
	     "3 q Q 100\n5 q C 100\n", NULL);
	st = stats(&r, 0);
	assert_true(st.limit_mean == 2125.0);
	done(&r);
	/* a declared queue without records: not created, all zero */
	play(&r, "bqltrace 1\nqueue q\nqueue unused\n0 q Q 1\n", NULL);
	assert_int_equal(replay_queue_count(&r.r), 2);
	st = stats(&r, 1);
	assert_false(st.created);
	assert_int_equal(st.completions, 0);
	assert_int_equal(st.limit_final, 0);
	assert_int_equal(replay_queue_stats(&r.r, 2, &st), -EINVAL);
	done(&r);
}

/* queues are independent DQL instances */
static void test_two_queues(void **state)
{
	struct run r;

	(void)state;
	play(&r, "bqltrace 1\nhz 1000\nqueue a\nqueue b limit_min=5000\n"
	     "0 a Q 1000\n0 b Q 1000\n1000000 a C 1000\n1000000 b C 1000\n", NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(stats(&r, 0).limit_final, 1000);
	/* b: starve to 1000, clamped up to limit_min 5000 */
	assert_int_equal(stats(&r, 1).limit_final, 5000);
	assert_int_equal(r.ev[3].queue, 1);
	assert_string_equal(r.ev[3].qname, "b");
	done(&r);
}

/* event_kinds: only the records asked for; mismatches all the same */
static void test_event_kinds(void **state)
{
	static const struct replay_ops c_only = {
		.event = on_event, .mismatch = on_mismatch, .warn = on_warn,
		.event_kinds = 1u << BQLT_C,
	};
	static const struct replay_ops q_only = {
		.event = on_event, .mismatch = on_mismatch, .warn = on_warn,
		.event_kinds = 1u << BQLT_Q,
	};
	static const char text[] = "bqltrace 1\nhz 1000\nqueue a\n"
		"0 a Q 1000\n1 a P limit_max=max\n1000000 a C 1000 limit=7\n"
		"1000001 a Q 10\n2000000 a C 10 limit=1000\n2000001 a R\n";
	struct run all, r;
	const char *s = text;
	int i, n = 0;

	(void)state;
	play(&all, text, NULL);
	assert_int_equal(all.rc, 0);
	assert_int_equal(all.nev, 6);
	assert_int_equal(all.nmis, 1);

	memset(&r, 0, sizeof(r));
	bqlt_parser_init(&r.p, 0);
	replay_init(&r.r, NULL, &c_only, &r);
	while (*s) {
		const char *nl = strchr(s, '\n');
		struct bqlt_rec rec;

		if (bqlt_parse_line(&r.p, s, (size_t)(nl - s) + 1, &rec, &r.e) == 1)
			assert_int_equal(replay_feed(&r.r, &rec, &r.e), 0);
		s = nl + 1;
	}
	for (i = 0; i < all.nev; i++)
		if (all.ev[i].kind == BQLT_C)
			same_event(&all.ev[i], &r.ev[n++]);
	assert_int_equal(r.nev, n);
	assert_int_equal(n, 2);
	assert_int_equal(r.nmis, 1);
	same_event(&all.mis[0], &r.mis[0]);
	done(&r);

	/* a mismatch is reported even when its C record's event is not wanted */
	memset(&r, 0, sizeof(r));
	bqlt_parser_init(&r.p, 0);
	replay_init(&r.r, NULL, &q_only, &r);
	for (s = text; *s;) {
		const char *nl = strchr(s, '\n');
		struct bqlt_rec rec;

		if (bqlt_parse_line(&r.p, s, (size_t)(nl - s) + 1, &rec, &r.e) == 1)
			assert_int_equal(replay_feed(&r.r, &rec, &r.e), 0);
		s = nl + 1;
	}
	assert_int_equal(r.nev, 2);
	assert_int_equal(r.ev[1].kind, BQLT_Q);
	assert_int_equal(r.nmis, 1);
	assert_int_equal(r.mis[0].line, 6);
	assert_int_equal(r.mis[0].observed, 7);
	done(&r);
	done(&all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_settings),
		cmocka_unit_test(test_snapshot_reset),
		cmocka_unit_test(test_stall),
		cmocka_unit_test(test_mean),
		cmocka_unit_test(test_two_queues),
		cmocka_unit_test(test_event_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
