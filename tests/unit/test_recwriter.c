// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for record's writer (lib/kernel/recwriter.c). A kernel model
 * (dql/dql.c, exact to the kernel) runs dql_queued/dql_completed; its
 * post-call states become the events the BPF programs would send, some
 * of them lost on purpose; the trace written must then replay with every
 * limit verified (dql/trace.c + dql/replay.c), and have the expected lines.
 * The tracepoint backend's observations are in test_recwriter_tp.c; the
 * shared helpers in recwritertest.h.
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

/* ------------------------------------------------------------ kernel model */

static void send(struct model *m, enum rec_ev_kind kind)
{
	struct rec_event ev = { .t_ns = m->t, .jiffies = m->j, .kind = kind };

	snap(&m->d, &ev.s);
	assert_int_equal(recw_event(&m->w, &ev), 0);
}

static void queue(struct model *m, unsigned int bytes, bool lose)
{
	assert_int_equal(dql_queued(&m->d, bytes, m->j), 0);
	m->t += 1000;
	if (!lose)
		send(m, REC_EV_Q);
}

static void complete(struct model *m, unsigned int bytes, bool lose)
{
	assert_int_equal(dql_completed(&m->d, bytes, m->j), 0);
	m->t += 1000;
	if (!lose)
		send(m, REC_EV_C);
}

/* the checkpoint only reports when the state moved without an event */
static void checkpoint(struct model *m)
{
	const struct rec_snap *l = &m->q.last;

	m->t += 500;
	if (!m->q.seeded)
		return;
	if (m->d.num_completed != l->num_completed ||
	    (m->w.queued && m->d.num_queued != l->num_queued) ||
	    m->d.limit != l->limit || m->d.min_limit != l->min_limit ||
	    m->d.max_limit != l->max_limit || m->d.slack_hold_time != l->slack_hold_time ||
	    m->q.resync)
		send(m, REC_EV_CHECK);
}

/*
 * A traffic pattern that takes every branch of dql_completed: steady
 * ACK-sized packets, bursts that complete everything (starvation: the
 * limit rises), then a long quiet tail with slack (the limit decays).
 * @lose_c/@lose_q: every Nth event lost (0 = none).
 */
static void traffic(struct model *m, int rounds, int lose_c, int lose_q)
{
	unsigned int n = 0;

	for (int r = 0; r < rounds; r++) {
		/* a burst beyond the limit, completed at once: starvation */
		for (unsigned int k = 0; k < 2 ||
		     m->d.num_queued - m->d.num_completed <= m->d.limit + 300 * (unsigned int)(r % 4);
		     k++) {
			checkpoint(m);
			queue(m, 600 + 37 * k, lose_q && ++n % (unsigned int)lose_q == 0);
		}
		tick(m, 1);
		checkpoint(m);
		complete(m, m->d.num_queued - m->d.num_completed,
			 lose_c && ++n % (unsigned int)lose_c == 0);
		/*
		 * small packets, three in flight, completed one by one: the
		 * queue stays busy with slack; long gaps every other round (decay)
		 */
		checkpoint(m);
		queue(m, 66, lose_q && ++n % (unsigned int)lose_q == 0);
		checkpoint(m);
		queue(m, 67, lose_q && ++n % (unsigned int)lose_q == 0);
		for (int k = 0; k < 10; k++) {
			checkpoint(m);
			queue(m, 68 + (unsigned int)k, lose_q && ++n % (unsigned int)lose_q == 0);
			tick(m, (unsigned int)(r % 2 ? 40 : 1));
			checkpoint(m);
			complete(m, 66 + (unsigned int)k,
				 lose_c && ++n % (unsigned int)lose_c == 0);
		}
		tick(m, 1);
		checkpoint(m);
		complete(m, m->d.num_queued - m->d.num_completed,
			 lose_c && ++n % (unsigned int)lose_c == 0);
	}
	checkpoint(m);
}

/* ------------------------------------------------------------ tests */

static void test_header(void **state)
{
	struct model m;

	(void)state;
	model_init(&m, false);
	assert_string_equal(m.out.s, "bqltrace 1\n# test\n# second line\nhz 250\n"
			    "queue eth0:tx-0 limit_min=0 limit_max=1879048192 hold_time=1000 "
			    "stall_thrs=0\n");
	model_free(&m);
}

/* the first C is the seed S, Q before it are dropped, then C lines */
static void test_seed_then_c(void **state)
{
	struct model m;
	char want[256];
	const char *s;

	(void)state;
	model_init(&m, true);
	queue(&m, 100, false);		/* before any C: dropped */
	assert_false(m.q.completed);
	complete(&m, 100, false);	/* the seed: a completion seen */
	assert_true(m.q.completed);
	assert_int_equal(m.q.n_early_q, 1);
	s = strstr(m.out.s, "eth0:tx-0 S ");
	assert_non_null(s);
	assert_non_null(strstr(s, " num_queued=100 num_completed=100 "));
	assert_non_null(strstr(s, " history=0,0,0,0\n"));
	assert_null(strstr(m.out.s, " Q "));
	assert_null(strstr(m.out.s, " C "));

	queue(&m, 1514, false);
	tick(&m, 2);
	complete(&m, 1514, false);
	snprintf(want, sizeof(want), " eth0:tx-0 Q 1514 j=%" PRIu64 "\n", m.j - 2);
	assert_non_null(strstr(m.out.s, want));
	snprintf(want, sizeof(want), " eth0:tx-0 C 1514 j=%" PRIu64 " nq=1614 lo=1514 limit=%u\n",
		 m.j, m.d.limit);
	assert_non_null(strstr(m.out.s, want));
	assert_int_equal(m.q.n_c, 1);
	assert_int_equal(m.q.n_q, 1);
	model_free(&m);
}

/* a clean stream replays with every limit verified, through every branch */
static void test_replay_exact(void **state)
{
	struct model m;
	struct verdict v;

	(void)state;
	model_init(&m, false);
	traffic(&m, 60, 0, 0);
	recw_footer(&m.w, NULL);
	replay_text(m.out.s, &v);
	assert_int_equal(v.rc, 0);
	assert_int_equal(v.mismatches, 0);
	assert_int_equal(v.checked, m.q.n_c);
	assert_true(v.checked > 300);
	assert_int_equal(v.limit_final, m.d.limit);
	assert_int_equal(m.q.n_reseed, 0);
	/* the limit really moved both ways */
	assert_true(v.increases > 5);
	assert_true(v.decreases > 5);
	model_free(&m);
}

/*
 * issue #37 class 2: a device named with ESC was recorded, then replay
 * refused its queue line. Whatever a device may be called (the kernel
 * refuses only '/', ':', blanks), the trace holds it escaped (clean text:
 * no control, valid UTF-8), and the parser reads back the very bytes,
 * every record verified.
 */
static void test_hostile_names_round_trip(void **state)
{
	static const char *const names[] = {
		"\x1b[31mRED:tx-0", "\x1b]0;PWN\a:tx-3", "a\\x41:tx-0", "b=c\xff:tx-0",
		"c\xc2\x9b" "31m:tx-1", "r\xe2\x80\xaeo:tx-0", "back\\slash:tx-0",
		"del\x7f\x01:tx-0", "\xe2\x82\xac#:tx-2", "sp ace\ttab:tx-0", "eth0:tx-0",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct bqlt_parser p;
		struct bqlt_rec rec;
		struct bql_err e;
		struct verdict v;
		struct model m;
		bool declared = false;

		model_init_name(&m, false, names[i]);
		traffic(&m, 10, 0, 0);
		recw_footer(&m.w, NULL);
		/* clean text: no control but newlines, valid UTF-8, no C1 */
		for (const char *s = m.out.s; *s; s++)
			if ((unsigned char)*s < 0x20 && *s != '\n')
				fail_msg("name %zu: control 0x%02x written raw", i, (unsigned char)*s);
		assert_null(strchr(m.out.s, 0x7f));
		assert_int_equal(esc_utf8_valid(m.out.s, strlen(m.out.s)), strlen(m.out.s));
		assert_null(strstr(m.out.s, "\xc2\x9b"));
		/* the queue line names exactly the device's bytes */
		bqlt_parser_init(&p, 0);
		for (const char *s = m.out.s; *s;) {
			const char *nl = strchr(s, '\n');
			size_t len = (size_t)(nl - s) + 1;
			int ret = bqlt_parse_line(&p, s, len, &rec, &e);

			if (ret < 0)
				fail_msg("name %zu: %s", i, e.msg);
			if (ret == 1 && rec.kind == BQLT_QUEUE) {
				assert_string_equal(rec.qname, names[i]);
				declared = true;
			} else if (ret == 1 && rec.kind != BQLT_HZ) {
				assert_string_equal(rec.qname, names[i]);
			}
			s += len;
		}
		bqlt_parser_free(&p);
		assert_true(declared);
		/* and replays with every limit verified */
		replay_text(m.out.s, &v);
		assert_int_equal(v.rc, 0);
		assert_int_equal(v.mismatches, 0);
		assert_int_equal(v.checked, m.q.n_c);
		assert_true(v.checked > 50);
		model_free(&m);
	}
}

/* lost C events: the checkpoint re-seeds exactly, replay still verifies */
static void test_lost_c_repaired(void **state)
{
	struct model m;
	struct verdict v;

	(void)state;
	model_init(&m, false);
	traffic(&m, 60, 7, 0);
	recw_footer(&m.w, NULL);
	assert_true(m.q.n_reseed > 10);
	assert_int_equal(count_str(m.out.s, "MISSED C trap, re-seeding"), (int)m.q.n_reseed);
	/* one seed + one S per repair */
	assert_int_equal(count_str(m.out.s, " S j="), (int)m.q.n_reseed + 1);
	replay_text(m.out.s, &v);
	assert_int_equal(v.rc, 0);
	assert_int_equal(v.mismatches, 0);
	assert_int_equal(v.checked, m.q.n_c);
	assert_int_equal(v.limit_final, m.d.limit);
	model_free(&m);
}

/* the same without the checkpoint: the trace is wrong, which is what the repair is for */
static void test_lost_c_unrepaired_mismatches(void **state)
{
	struct model m;

	(void)state;
	model_init(&m, false);
	complete(&m, 0, false);		/* seed */
	queue(&m, 3000, true);
	tick(&m, 1);
	complete(&m, 3000, true);	/* lost, and no checkpoint */
	queue(&m, 200, true);
	tick(&m, 1);
	complete(&m, 200, false);
	/* C says 3200 bytes (two calls' worth) in one record */
	assert_non_null(strstr(m.out.s, " C 3200 "));
	model_free(&m);
}

/* --queued: lost Q events become Q records of the byte difference */
static void test_lost_q_repaired(void **state)
{
	struct model m;
	struct verdict v;

	(void)state;
	model_init(&m, true);
	traffic(&m, 40, 0, 5);
	recw_footer(&m.w, NULL);
	assert_true(m.q.n_lost_q > 10);
	assert_int_equal(count_str(m.out.s, "MISSED Q trap"), (int)m.q.n_lost_q);
	replay_text(m.out.s, &v);
	assert_int_equal(v.rc, 0);
	assert_int_equal(v.mismatches, 0);
	assert_int_equal(v.checked, m.q.n_c);
	/* the Q sums agree with every nq= */
	assert_int_equal(v.nq_disagree, 0);
	model_free(&m);
}

/* both kinds lost at once */
static void test_lost_both(void **state)
{
	struct model m;
	struct verdict v;

	(void)state;
	model_init(&m, true);
	traffic(&m, 50, 5, 3);
	replay_text(m.out.s, &v);
	assert_int_equal(v.rc, 0);
	assert_int_equal(v.mismatches, 0);
	assert_true(m.q.n_reseed > 0 && m.q.n_lost_q > 0);
	assert_int_equal(v.nq_disagree, 0);
	model_free(&m);
}

/* settings written between calls: P at the checkpoint or before the next C */
static void test_settings_p(void **state)
{
	struct model m;
	struct verdict v;
	char want[128];

	(void)state;
	model_init(&m, false);
	traffic(&m, 5, 0, 0);
	/* seen at a checkpoint */
	assert_int_equal(dql_store_limit_min(&m.d, 3000), 0);
	checkpoint(&m);
	snprintf(want, sizeof(want), " eth0:tx-0 P j=%" PRIu64 " limit_min=3000\n", m.j);
	assert_non_null(strstr(m.out.s, want));
	traffic(&m, 5, 0, 0);
	/* seen by the C trap itself (no checkpoint in between) */
	dql_store_hold_time(&m.d, 100);		/* 400 ms at HZ 250 */
	assert_int_equal(dql_store_limit_max(&m.d, 20000), 0);
	queue(&m, 500, false);
	complete(&m, 500, false);
	assert_non_null(strstr(m.out.s, " limit_max=20000 hold_time=400\n"));
	traffic(&m, 10, 0, 0);
	/* a sysfs limit write caught by the limit watchpoint */
	assert_int_equal(dql_store_limit(&m.d, 5000), 0);
	send(&m, REC_EV_LIMIT);
	snprintf(want, sizeof(want), " eth0:tx-0 P j=%" PRIu64 " limit=5000\n", m.j);
	assert_non_null(strstr(m.out.s, want));
	traffic(&m, 5, 0, 0);
	/* one only the checkpoint sees */
	assert_int_equal(dql_store_limit(&m.d, 7000), 0);
	checkpoint(&m);
	assert_non_null(strstr(m.out.s, " limit=7000\n"));
	traffic(&m, 5, 0, 0);
	assert_int_equal(m.q.n_p, 4);
	replay_text(m.out.s, &v);
	assert_int_equal(v.rc, 0);
	assert_int_equal(v.mismatches, 0);
	assert_int_equal(v.checked, m.q.n_c);
	model_free(&m);
}

/* dql_reset: R, then the checkpoint sends the reset state as S (no loss counted) */
static void test_reset(void **state)
{
	struct model m;
	struct verdict v;

	(void)state;
	model_init(&m, false);
	traffic(&m, 5, 0, 0);
	dql_reset(&m.d, m.j);
	send(&m, REC_EV_RESET);
	assert_true(m.q.resync);
	checkpoint(&m);
	assert_false(m.q.resync);
	assert_int_equal(m.q.n_r, 1);
	assert_int_equal(m.q.n_reseed, 0);
	traffic(&m, 5, 0, 0);
	replay_text(m.out.s, &v);
	assert_int_equal(v.rc, 0);
	assert_int_equal(v.mismatches, 0);
	model_free(&m);
}

/* times never go backwards within a queue (events from several CPUs) */
static void test_time_monotonic(void **state)
{
	struct model m;
	struct verdict v;

	(void)state;
	model_init(&m, false);
	complete(&m, 0, false);
	queue(&m, 100, true);
	m.t -= 5000;		/* this CPU's clock read came earlier */
	complete(&m, 100, false);
	replay_text(m.out.s, &v);
	assert_int_equal(v.rc, 0);
	assert_int_equal(v.checked, 1);
	model_free(&m);
}

/* hold_time that ms cannot express (HZ above 1000) is written as S slack_hold_time */
static void test_hold_time_high_hz(void **state)
{
	struct buf out = { .fail_after = -1 };
	struct recw_queue q = { .name = "x:tx-0" };
	struct recw w;
	struct rec_event ev = { .kind = REC_EV_C, .t_ns = 1, .jiffies = 10 };

	(void)state;
	recw_init(&w, 1200, &q, 1, false, sink, &out);
	ev.s.slack_hold_time = 1200;
	recw_event(&w, &ev);			/* seed */
	ev.s.slack_hold_time = 1201;		/* no whole ms gives 1201 at HZ 1200 */
	ev.t_ns = 2;
	recw_event(&w, &ev);
	assert_non_null(strstr(out.s, " S j=10 slack_hold_time=1201\n"));
	assert_null(strstr(out.s, " hold_time="));
	free(out.s);
}

/* a sink error is sticky and returned; nothing more is written */
static void test_sink_error(void **state)
{
	struct model m;
	struct rec_event ev = { .kind = REC_EV_C, .t_ns = 5 };

	(void)state;
	model_init(&m, false);
	m.out.fail_after = m.out.lines + 1;
	assert_int_equal(recw_event(&m.w, &ev), 0);	/* seed line */
	ev.t_ns = 6;
	assert_int_equal(recw_event(&m.w, &ev), -ENOSPC);
	assert_int_equal(recw_event(&m.w, &ev), -ENOSPC);
	assert_int_equal(recw_footer(&m.w, NULL), -ENOSPC);
	model_free(&m);
}

/* the footer names every count; events of unknown slots are ignored */
static void test_footer(void **state)
{
	struct model m;
	uint64_t st[REC_ST_NR] = { 10, 20, 1, 0, 40, 2, 3, 4 };
	struct rec_event ev = { .kind = REC_EV_C, .slot = 7 };

	(void)state;
	model_init(&m, true);
	assert_int_equal(recw_event(&m.w, &ev), 0);
	traffic(&m, 3, 0, 0);
	assert_int_equal(recw_footer(&m.w, st), 0);
	assert_non_null(strstr(m.out.s, "# selfcheck eth0:tx-0 seeded=yes C="));
	assert_non_null(strstr(m.out.s, "C_traps=10 Q_traps=20 limit_traps=1 other_traps=0 "
			       "checkpoints=40 missed_C=2 missed_Q=3 ringbuf_drops=4\n"));
	model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_seed_then_c),
		cmocka_unit_test(test_replay_exact),
		cmocka_unit_test(test_hostile_names_round_trip),
		cmocka_unit_test(test_lost_c_repaired),
		cmocka_unit_test(test_lost_c_unrepaired_mismatches),
		cmocka_unit_test(test_lost_q_repaired),
		cmocka_unit_test(test_lost_both),
		cmocka_unit_test(test_settings_p),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_time_monotonic),
		cmocka_unit_test(test_hold_time_high_hz),
		cmocka_unit_test(test_sink_error),
		cmocka_unit_test(test_footer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
