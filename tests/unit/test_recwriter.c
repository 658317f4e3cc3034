// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for record's writer (lib/kernel/recwriter.c). A kernel model
 * (dql/dql.c, exact to the kernel) runs dql_queued/dql_completed; its
 * post-call states become the events the BPF programs would send, some
 * of them lost on purpose; the trace written must then replay with every
 * limit verified (dql/trace.c + dql/replay.c), and have the expected lines.
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
#include "dql/trace.h"
#include "lib/io/esc.h"
#include "lib/kernel/recwriter.h"

#define HZ	250

/* ------------------------------------------------------------ output */

struct buf {
	char *s;
	size_t n, cap;
	int fail_after;		/* sink fails once this many lines are written; -1 never */
	int lines;
};

static int sink(void *arg, const char *p, size_t len)
{
	struct buf *b = arg;

	if (b->fail_after >= 0 && b->lines >= b->fail_after)
		return -ENOSPC;
	if (b->n + len + 1 > b->cap) {
		b->cap = (b->n + len + 1) * 2;
		b->s = realloc(b->s, b->cap);
		assert_non_null(b->s);
	}
	memcpy(b->s + b->n, p, len);
	b->n += len;
	b->s[b->n] = 0;
	b->lines++;
	return 0;
}

static int count_str(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* ------------------------------------------------------------ replay */

struct verdict {
	int rc;
	struct bql_err e;
	uint64_t checked, mismatches, completions, nq_disagree, increases, decreases;
	uint32_t limit_final;
};

static void no_mismatch(void *arg, const struct replay_event *ev)
{
	(void)arg;
	fail_msg("mismatch at line %" PRIu64 ": observed %u, replayed %u", ev->line,
		 ev->observed, ev->limit);
}

static void replay_text(const char *text, struct verdict *v)
{
	static const struct replay_ops ops = { .mismatch = no_mismatch };
	struct bqlt_parser p;
	struct replay_opts o;
	struct replay r;
	struct replay_stats st;
	const char *s = text;

	memset(v, 0, sizeof(*v));
	bqlt_parser_init(&p, 0);
	replay_opts_init(&o);
	replay_init(&r, &o, &ops, NULL);
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) + 1 : strlen(s);
		struct bqlt_rec rec;
		int ret = bqlt_parse_line(&p, s, len, &rec, &v->e);

		if (ret == 1)
			ret = replay_feed(&r, &rec, &v->e);
		if (ret < 0) {
			v->rc = ret;
			break;
		}
		s += len;
	}
	if (!v->rc && replay_queue_count(&r) > 0) {
		assert_int_equal(replay_queue_stats(&r, 0, &st), 0);
		v->checked = st.verify_checked;
		v->mismatches = st.verify_mismatches;
		v->completions = st.completions;
		v->nq_disagree = st.nq_disagree;
		v->increases = st.increases;
		v->decreases = st.decreases;
		v->limit_final = st.limit_final;
	}
	replay_free(&r);
	bqlt_parser_free(&p);
}

/* ------------------------------------------------------------ kernel model */

struct model {
	struct dql d;
	uint64_t j, t;
	struct recw w;
	struct recw_queue q;
	struct buf out;
	/* the tracepoint programs' per-queue state (lib/kernel/bpf/record.bpf.c observe()) */
	bool armed;
	uint32_t last_limit, last_nc, last_nq;
	uint64_t last_j;
};

static void model_init_name(struct model *m, bool queued, const char *name)
{
	memset(m, 0, sizeof(*m));
	m->j = 4294667296ull;	/* near the 32-bit wrap, as a fresh kernel */
	m->t = 1000000000ull;
	dql_init(&m->d, HZ, DQL_K_NEWEST, m->j);
	snprintf(m->q.name, sizeof(m->q.name), "%s", name);
	m->q.limit_max = DQL_MAX_LIMIT;
	m->q.hold_time = 1000;
	m->out.fail_after = -1;
	recw_init(&m->w, HZ, &m->q, 1, queued, sink, &m->out);
	assert_int_equal(recw_header(&m->w, "test\nsecond line"), 0);
}

static void model_init(struct model *m, bool queued)
{
	model_init_name(m, queued, "eth0:tx-0");
}

static void snap(const struct dql *d, struct rec_snap *s)
{
	memset(s, 0, sizeof(*s));
	s->num_queued = d->num_queued;
	s->adj_limit = d->adj_limit;
	s->last_obj_cnt = d->last_obj_cnt;
	s->limit = d->limit;
	s->num_completed = d->num_completed;
	s->prev_ovlimit = d->prev_ovlimit;
	s->prev_num_queued = d->prev_num_queued;
	s->prev_last_obj_cnt = d->prev_last_obj_cnt;
	s->lowest_slack = d->lowest_slack;
	s->max_limit = d->max_limit;
	s->min_limit = d->min_limit;
	s->slack_hold_time = d->slack_hold_time;
	s->stall_thrs = d->stall_thrs;
	s->stall_max = d->stall_max;
	s->slack_start_time = d->slack_start_time;
	s->history_head = d->history_head;
	s->last_reap = d->last_reap;
	s->stall_cnt = d->stall_cnt;
	memcpy(s->history, d->history, sizeof(s->history));
}

static void send(struct model *m, enum rec_ev_kind kind)
{
	struct rec_event ev = { .t_ns = m->t, .jiffies = m->j, .kind = kind };

	snap(&m->d, &ev.s);
	assert_int_equal(recw_event(&m->w, &ev), 0);
}

static void tick(struct model *m, unsigned int jiffies)
{
	m->j += jiffies;
	m->t += (uint64_t)jiffies * (1000000000ull / HZ);
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

static void model_free(struct model *m)
{
	free(m->out.s);
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
