// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for record's writer (lib/kernel/recwriter.c) fed by the
 * tracepoint backend: the kernel model of test_recwriter.c observed as
 * observe() in lib/kernel/bpf/record.bpf.c does at each tracepoint; the
 * trace written must then replay with every limit verified (dql/trace.c
 * + dql/replay.c), and have the expected lines.
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

#include "recwritertest.h"

/* ------------------------------------------------------------ tracepoint backend */

/*
 * What observe() in lib/kernel/bpf/record.bpf.c does at a tracepoint: send the
 * whole state when limit or num_completed (num_queued with --queued) moved
 * since the last observation, with the jiffies before that observation.
 */
static void observe(struct model *m, enum rec_obs_where where)
{
	struct rec_event ev = { .kind = REC_EV_OBS, .where = where };
	uint64_t j0 = m->j;

	m->t += 300;
	if (m->armed && m->d.limit == m->last_limit && m->d.num_completed == m->last_nc &&
	    (!m->w.queued || m->d.num_queued == m->last_nq)) {
		m->last_j = j0;
		return;
	}
	ev.t_ns = m->t;
	ev.jiffies = m->j;
	ev.j_prev = m->armed ? m->last_j : 0;
	snap(&m->d, &ev.s);
	assert_int_equal(recw_event(&m->w, &ev), 0);
	m->last_limit = m->d.limit;
	m->last_nc = m->d.num_completed;
	m->last_nq = m->d.num_queued;
	m->last_j = j0;
	m->armed = true;
}

/* the driver's xmit: virtio_net completes what is done, then queues (@done bytes, 0 = none) */
static void tp_xmit(struct model *m, unsigned int bytes, unsigned int done)
{
	observe(m, REC_AT_START_XMIT);
	if (done)
		assert_int_equal(dql_completed(&m->d, done, m->j), 0);
	assert_int_equal(dql_queued(&m->d, bytes, m->j), 0);
	m->t += 1000;
	observe(m, REC_AT_XMIT);
}

/* a NAPI poll that completes @bytes (0: a poll with nothing done, RX only) */
static void tp_napi(struct model *m, unsigned int bytes)
{
	if (bytes)
		assert_int_equal(dql_completed(&m->d, bytes, m->j), 0);
	m->t += 1000;
	observe(m, REC_AT_NAPI);
}

static uint32_t inflight(const struct model *m)
{
	return m->d.num_queued - m->d.num_completed;
}

/*
 * Every branch of dql_completed under tracepoints: bursts completed at once
 * (starvation), a busy queue with slack (decreases after the hold time),
 * completions in NAPI and inside xmit, empty polls, ticks inside windows.
 */
static void tp_traffic(struct model *m, int rounds)
{
	for (int r = 0; r < rounds; r++) {
		for (unsigned int k = 0; k < 2 || inflight(m) <= m->d.limit + 300 * (unsigned int)(r % 4); k++)
			tp_xmit(m, 600 + 37 * k, 0);
		tick(m, 1);
		tp_napi(m, inflight(m));
		tp_napi(m, 0);
		tp_xmit(m, 66, 0);
		tp_xmit(m, 67, 0);
		for (int k = 0; k < 10; k++) {
			/* every third completion inside the xmit, before its queueing */
			tp_xmit(m, 68 + (unsigned int)k, k % 3 == 2 ? 66 + (unsigned int)k - 1 : 0);
			tick(m, (unsigned int)(r % 2 ? 40 : 1));
			if (k % 3 != 1)
				tp_napi(m, 66 + (unsigned int)k);
		}
		tick(m, 1);
		tp_napi(m, inflight(m));
	}
}

static void verify_all(struct model *m, struct verdict *v)
{
	recw_footer(&m->w, NULL);
	replay_text(m->out.s, v);
	assert_int_equal(v->rc, 0);
	assert_int_equal(v->mismatches, 0);
	assert_int_equal(v->checked, m->q.n_c);
	assert_int_equal(v->limit_final, m->d.limit);
}

/* one call per window: every completion an exact C, through every branch */
static void test_tp_exact(void **state)
{
	struct model m;
	struct verdict v;

	(void)state;
	model_init(&m, false);
	assert_false(m.q.completed);
	tp_traffic(&m, 60);
	assert_true(m.q.completed);
	verify_all(&m, &v);
	assert_int_equal(m.q.n_reseed, 0);
	assert_int_equal(m.q.n_exact, m.q.n_windows);
	assert_int_equal(m.q.n_c, m.q.n_windows);
	assert_true(v.checked > 500);
	assert_true(v.increases > 5);
	assert_true(v.decreases > 5);
	assert_int_equal(count_str(m.out.s, " S j="), 1);
	assert_non_null(strstr(m.out.s, "# selfcheck eth0:tx-0 observations="));
	model_free(&m);
}

/* --queued: Q before or after the C as prev_num_queued says, sums agree with nq= */
static void test_tp_queued(void **state)
{
	struct model m;
	struct verdict v;
	char want[128];
	const char *c, *q;

	(void)state;
	model_init(&m, true);
	tp_traffic(&m, 20);
	/* a completion inside the xmit: C (nq = the bytes before), then the xmit's Q */
	tp_xmit(&m, 500, 0);
	tp_xmit(&m, 1000, 500);
	snprintf(want, sizeof(want), " eth0:tx-0 C 500 j=%" PRIu64 " nq=%u ", m.j,
		 m.d.num_queued - 1000);
	c = strstr(m.out.s, want);
	assert_non_null(c);
	q = strstr(c, " eth0:tx-0 Q 1000 ");
	assert_non_null(q);
	verify_all(&m, &v);
	assert_int_equal(v.nq_disagree, 0);
	assert_int_equal(m.q.n_reseed, 0);
	assert_true(m.q.n_q > 200);
	model_free(&m);
}

/* a call's jiffies inside a window of several: the one that explains it */
static void test_tp_jiffies_window(void **state)
{
	struct model m;
	struct verdict v;
	uint64_t j_call;
	char want[128];

	(void)state;
	model_init(&m, false);
	tp_traffic(&m, 4);
	/* busy with slack, then the hold time runs out between two observations */
	for (int k = 0; k < 5; k++) {
		tp_xmit(&m, 3000, 0);
		tp_xmit(&m, 3000, 0);
		tick(&m, 1);
		tp_napi(&m, 3000);
	}
	tick(&m, 300);			/* past slack_start_time + hold */
	j_call = m.j;
	assert_int_equal(dql_completed(&m.d, 1000, m.j), 0);	/* a decrease at j_call */
	tick(&m, 7);			/* observed 7 jiffies later */
	tp_napi(&m, 0);
	assert_int_equal(m.d.slack_start_time, j_call);
	snprintf(want, sizeof(want), " C 1000 j=%" PRIu64 " ", j_call);
	assert_non_null(strstr(m.out.s, want));
	/* no decrease in a window that crosses the hold time's end: the last j before it */
	tp_traffic(&m, 2);
	tp_xmit(&m, 3000, 0);
	tp_xmit(&m, 3000, 0);
	tp_napi(&m, 3000);
	tick(&m, (unsigned int)(m.d.slack_start_time + m.d.slack_hold_time - m.j));
	j_call = m.j;
	assert_int_equal(dql_completed(&m.d, 1000, m.j), 0);	/* hold not over yet */
	tick(&m, 9);
	tp_napi(&m, 0);
	snprintf(want, sizeof(want), " C 1000 j=%" PRIu64 " ", j_call);
	assert_non_null(strstr(m.out.s, want));
	tp_traffic(&m, 4);
	verify_all(&m, &v);
	assert_int_equal(m.q.n_reseed, 0);
	model_free(&m);
}

/* two completions in one window: an exact S, the reason said, then exact again */
static void test_tp_two_calls(void **state)
{
	struct model m;
	struct verdict v;

	(void)state;
	model_init(&m, false);
	tp_traffic(&m, 5);
	tp_xmit(&m, 1500, 0);
	tp_xmit(&m, 1500, 0);
	assert_int_equal(dql_completed(&m.d, 1500, m.j), 0);	/* a path no tracepoint brackets */
	tp_napi(&m, 1500);
	assert_int_equal(m.q.n_reseed, 1);
	assert_int_equal(m.q.n_why[RECW_RS_CALLS], 1);
	assert_non_null(strstr(m.out.s, " eth0:tx-0 re-seed: no single completion explains "
			       "the change (observed at napi_poll)\n"));
	tp_traffic(&m, 5);
	verify_all(&m, &v);
	assert_int_equal(count_str(m.out.s, " S j="), 2);
	assert_int_equal(m.q.n_exact + 1, m.q.n_windows);
	model_free(&m);
}

/*
 * Two CPUs: a read of an older state reaches the ring after a newer one.
 * Seen before: dropped. Never seen: re-seeded, and the next window from it
 * re-seeds too; every C written still verifies.
 */
static void test_tp_race(void **state)
{
	struct model m;
	struct verdict v;
	struct rec_event old = { .kind = REC_EV_OBS, .where = REC_AT_START_XMIT };
	struct rec_event mid = { .kind = REC_EV_OBS, .where = REC_AT_START_XMIT };
	char want[64];

	(void)state;
	model_init(&m, false);
	tp_traffic(&m, 3);
	tp_xmit(&m, 900, 0);
	snap(&m.d, &old.s);		/* CPU B reads here ... */
	old.t_ns = m.t;
	old.jiffies = old.j_prev = m.j;
	tp_napi(&m, inflight(&m));	/* ... CPU A completes and sends first */
	assert_int_equal(recw_event(&m.w, &old), 0);	/* B's record arrives late */
	assert_int_equal(m.q.n_stale, 1);
	assert_int_equal(m.q.n_reseed, 0);
	/* a state never sent: k, k+2 arrive, then k+1 */
	tp_xmit(&m, 700, 0);
	tp_xmit(&m, 800, 0);
	assert_int_equal(dql_completed(&m.d, 700, m.j), 0);
	snap(&m.d, &mid.s);
	mid.t_ns = m.t;
	mid.jiffies = mid.j_prev = m.j;
	tp_napi(&m, 800);		/* k+2 first: two calls */
	assert_int_equal(recw_event(&m.w, &mid), 0);	/* then k+1: back to a state not seen */
	assert_int_equal(m.q.n_why[RECW_RS_CALLS], 1);
	assert_int_equal(m.q.n_why[RECW_RS_BACK], 1);
	m.armed = false;		/* the programs' last_* were overwritten by B */
	/* the next state sent is k+2 again: one call from k+1, exact */
	tp_traffic(&m, 3);
	verify_all(&m, &v);
	assert_int_equal(m.q.n_why[RECW_RS_CALLS], 1);
	assert_int_equal(m.q.n_reseed, 2);
	assert_int_equal(m.q.n_exact + 1, m.q.n_windows);
	/* a read from before a sysfs limit write, overtaken by one after it: no P of the old limit */
	snap(&m.d, &old.s);
	old.t_ns = m.t;
	old.jiffies = old.j_prev = m.j;
	assert_int_equal(dql_store_limit(&m.d, 77777), 0);
	tp_xmit(&m, 100, 0);
	assert_non_null(strstr(m.out.s, " limit=77777\n"));
	assert_int_equal(recw_event(&m.w, &old), 0);
	assert_int_equal(m.q.n_stale, 2);
	snprintf(want, sizeof(want), " limit=%u\n", old.s.limit);
	assert_null(strstr(strstr(m.out.s, " limit=77777\n"), want));
	tp_traffic(&m, 2);
	verify_all(&m, &v);
	model_free(&m);
}

/* dql_reset: num_completed back to 0, a state never seen: re-seeded */
static void test_tp_reset(void **state)
{
	struct model m;
	struct verdict v;

	(void)state;
	model_init(&m, false);
	tp_traffic(&m, 5);
	dql_reset(&m.d, m.j);
	tp_napi(&m, 0);
	assert_int_equal(m.q.n_why[RECW_RS_BACK], 1);
	assert_non_null(strstr(m.out.s, " re-seed: num_completed went back (observed at napi_poll)\n"));
	tp_traffic(&m, 5);
	verify_all(&m, &v);
	assert_int_equal(m.q.n_reseed, 1);
	model_free(&m);
}

/* a queue that never completes (ifb): the seed, nothing else to replay */
static void test_tp_never_completes(void **state)
{
	struct model m;
	struct verdict v;

	(void)state;
	model_init(&m, false);
	for (int k = 0; k < 50; k++)
		tp_xmit(&m, 1000, 0);
	/* seeded by the xmit's observation, but no completion seen (record warns) */
	assert_true(m.q.seeded);
	assert_false(m.q.completed);
	assert_int_equal(m.q.n_obs, 1);
	assert_null(strstr(m.out.s, " C "));
	verify_all(&m, &v);
	assert_int_equal(v.completions, 0);
	model_free(&m);
}

/* settings act at the next completion: P before (or after) its C; a limit write alone is a P */
static void test_tp_settings(void **state)
{
	struct model m;
	struct verdict v;
	char want[128];
	const char *p, *c;

	(void)state;
	model_init(&m, false);
	tp_traffic(&m, 5);
	/* written before the call: the call clamps to it */
	assert_int_equal(dql_store_limit_max(&m.d, 2000), 0);
	tp_xmit(&m, 5000, 0);
	tp_napi(&m, inflight(&m));
	p = strstr(m.out.s, " P j=");
	assert_non_null(p);
	assert_non_null(strstr(p, " limit_max=2000\n"));
	assert_non_null(strstr(p, " C "));
	assert_int_equal(m.d.limit, 2000);
	/*
	 * written after the call, before the observation: C, then P (a
	 * starvation the old limit_max clamped: the new one would not have)
	 */
	tp_xmit(&m, 5000, 0);
	tick(&m, 1);
	assert_int_equal(dql_completed(&m.d, inflight(&m), m.j), 0);
	assert_int_equal(m.d.limit, 2000);
	assert_int_equal(dql_store_limit_max(&m.d, DQL_MAX_LIMIT), 0);
	tp_napi(&m, 0);
	snprintf(want, sizeof(want), " C 5000 j=%" PRIu64 " nq=%u lo=5000 limit=2000\n", m.j,
		 m.d.num_queued);
	c = strstr(p + 1, want);
	assert_non_null(c);
	/* the P follows its C at once */
	c = strchr(c + 1, '\n') + 1;
	snprintf(want, sizeof(want), "eth0:tx-0 P j=%" PRIu64 " limit_max=1879048192\n", m.j);
	assert_non_null(strstr(c, want));
	assert_true(strstr(c, want) < strchr(c, '\n'));
	/* a sysfs limit write with no completion: P limit= */
	assert_int_equal(dql_store_limit(&m.d, 4321), 0);
	tp_xmit(&m, 100, 0);
	assert_non_null(strstr(m.out.s, " P j="));
	assert_non_null(strstr(m.out.s, " limit=4321\n"));
	tp_traffic(&m, 5);
	/* a limit write just before a completion in one window: no call explains it */
	tp_xmit(&m, 3000, 0);
	tp_xmit(&m, 3000, 0);
	assert_int_equal(dql_store_limit(&m.d, 9999), 0);
	tp_napi(&m, 3000);
	assert_int_equal(m.q.n_reseed, 1);
	tp_traffic(&m, 5);
	verify_all(&m, &v);
	assert_int_equal(m.q.n_why[RECW_RS_CALLS], 1);
	model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tp_exact),
		cmocka_unit_test(test_tp_queued),
		cmocka_unit_test(test_tp_jiffies_window),
		cmocka_unit_test(test_tp_two_calls),
		cmocka_unit_test(test_tp_race),
		cmocka_unit_test(test_tp_reset),
		cmocka_unit_test(test_tp_never_completes),
		cmocka_unit_test(test_tp_settings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
