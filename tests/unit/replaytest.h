/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers of the unit tests of the replay engine (test_replay.c,
 * test_replay_records.c): a trace text parsed and replayed with every
 * event, mismatch and warning kept (play(), also through the batch
 * interfaces, which must agree), then its statistics.
 */
#ifndef BQLTOOL_TESTS_UNIT_REPLAYTEST_H
#define BQLTOOL_TESTS_UNIT_REPLAYTEST_H

#include <stdio.h>
#include <string.h>

#include "dql/dql.h"
#include "dql/replay.h"
#include "dql/trace.h"

#define MAXEV 64

struct run {
	struct bqlt_parser p;
	struct replay r;
	struct bql_err e;
	int rc;
	int nev, nmis, nwarn;
	struct replay_event ev[MAXEV];
	struct replay_event mis[MAXEV];
	char warn[4][256];
};

static void on_event(void *arg, const struct replay_event *ev)
{
	struct run *r = arg;

	assert_true(r->nev < MAXEV);
	r->ev[r->nev++] = *ev;
}

static void on_mismatch(void *arg, const struct replay_event *ev)
{
	struct run *r = arg;

	assert_true(r->nmis < MAXEV);
	r->mis[r->nmis++] = *ev;
}

static void on_warn(void *arg, const char *msg)
{
	struct run *r = arg;

	if (r->nwarn < 4)
		snprintf(r->warn[r->nwarn], sizeof(r->warn[0]), "%s", msg);
	r->nwarn++;
}

static const struct replay_ops ops = {
	.event = on_event, .mismatch = on_mismatch, .warn = on_warn,
};

static void play_batched(struct run *r, const char *text,
			 const struct replay_opts *o, unsigned int batch);
static void same_runs(struct run *a, struct run *b);
static void done(struct run *r);

/*
 * Parse and replay @text; the run stops at the first error (r->rc).
 * The same text replayed in batches (bqlt_parse_batch, replay_feed_batch)
 * must give the same events, warnings, errors and statistics.
 */
static void play(struct run *r, const char *text, const struct replay_opts *o)
{
	static const unsigned int batches[] = { 1, 3, 64 };
	const char *s = text;
	size_t i;

	memset(r, 0, sizeof(*r));
	bqlt_parser_init(&r->p, 0);
	replay_init(&r->r, o, &ops, r);
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) + 1 : strlen(s);
		struct bqlt_rec rec;
		int ret = bqlt_parse_line(&r->p, s, len, &rec, &r->e);

		if (ret == 1)
			ret = replay_feed(&r->r, &rec, &r->e);
		if (ret < 0) {
			r->rc = ret;
			break;
		}
		s += len;
	}
	for (i = 0; i < sizeof(batches) / sizeof(batches[0]); i++) {
		static struct run b;

		play_batched(&b, text, o, batches[i]);
		same_runs(r, &b);
		done(&b);
	}
}

/* play() through the batch interfaces, as `bqltool replay` feeds them */
static void play_batched(struct run *r, const char *text,
			 const struct replay_opts *o, unsigned int batch)
{
	const char *pos = text, *end = text + strlen(text);
	struct bqlt_rec recs[64];
	struct bql_err pe;
	int perr;

	memset(r, 0, sizeof(*r));
	bqlt_parser_init(&r->p, 0);
	replay_init(&r->r, o, &ops, r);
	while (pos < end) {
		unsigned int n = bqlt_parse_batch(&r->p, &pos, end, recs, batch,
						  &perr, &pe);

		r->rc = replay_feed_batch(&r->r, recs, n, &r->e);
		if (!r->rc && perr) {
			r->rc = perr;
			r->e = pe;
		}
		if (r->rc)
			return;
	}
}

static void same_event(const struct replay_event *a, const struct replay_event *b)
{
	assert_true(a->line == b->line && a->t_ns == b->t_ns && a->jiffies == b->jiffies);
	assert_int_equal(a->queue, b->queue);
	assert_string_equal(a->qname, b->qname);
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->bytes, b->bytes);
	assert_int_equal(a->inflight, b->inflight);
	assert_int_equal(a->limit, b->limit);
	assert_int_equal(a->has_observed, b->has_observed);
	assert_int_equal(a->observed, b->observed);
	assert_int_equal(a->starved, b->starved);
	assert_int_equal(a->stopped, b->stopped);
}

static void same_runs(struct run *a, struct run *b)
{
	unsigned int q;
	int i;

	assert_int_equal(a->rc, b->rc);
	if (a->rc)
		assert_string_equal(a->e.msg, b->e.msg);
	assert_int_equal(a->nev, b->nev);
	for (i = 0; i < a->nev; i++)
		same_event(&a->ev[i], &b->ev[i]);
	assert_int_equal(a->nmis, b->nmis);
	for (i = 0; i < a->nmis; i++)
		same_event(&a->mis[i], &b->mis[i]);
	assert_int_equal(a->nwarn, b->nwarn);
	for (i = 0; i < a->nwarn && i < 4; i++)
		assert_string_equal(a->warn[i], b->warn[i]);
	assert_int_equal(replay_queue_count(&a->r), replay_queue_count(&b->r));
	for (q = 0; q < replay_queue_count(&a->r); q++) {
		struct replay_stats x, y;

		assert_int_equal(replay_queue_stats(&a->r, q, &x), 0);
		assert_int_equal(replay_queue_stats(&b->r, q, &y), 0);
		assert_int_equal(x.created, y.created);
		assert_true(x.records == y.records && x.completions == y.completions);
		assert_true(x.bytes_queued == y.bytes_queued &&
			    x.bytes_completed == y.bytes_completed);
		assert_true(x.limit_final == y.limit_final && x.limit_min == y.limit_min &&
			    x.limit_max == y.limit_max);
		assert_true(x.limit_mean == y.limit_mean);
		assert_true(x.increases == y.increases && x.decreases == y.decreases &&
			    x.starvations == y.starvations && x.stops == y.stops);
		assert_true(x.queued_ignored == y.queued_ignored &&
			    x.stall_cnt == y.stall_cnt && x.stall_max == y.stall_max);
		assert_true(x.verify_checked == y.verify_checked &&
			    x.verify_mismatches == y.verify_mismatches &&
			    x.nq_disagree == y.nq_disagree);
	}
}

static void done(struct run *r)
{
	replay_free(&r->r);
	bqlt_parser_free(&r->p);
}

static struct replay_stats stats(struct run *r, unsigned int q)
{
	struct replay_stats st;

	assert_int_equal(replay_queue_stats(&r->r, q, &st), 0);
	return st;
}

static struct replay_opts kernel(const char *v)
{
	struct replay_opts o;

	replay_opts_init(&o);
	assert_int_equal(dql_kernel_parse(v, &o.kflags, NULL), 0);
	return o;
}

#endif
