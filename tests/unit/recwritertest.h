/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers of the unit tests of record's writer (test_recwriter.c,
 * test_recwriter_tp.c): the trace written to memory (sink(), a line
 * count that can fail), its replay with every limit verified
 * (replay_text()), and the kernel model (dql/dql.c) whose post-call
 * states, snap()ped, become the events the BPF programs would send.
 */
#ifndef BQLTOOL_TESTS_UNIT_RECWRITERTEST_H
#define BQLTOOL_TESTS_UNIT_RECWRITERTEST_H

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void tick(struct model *m, unsigned int jiffies)
{
	m->j += jiffies;
	m->t += (uint64_t)jiffies * (1000000000ull / HZ);
}

static void model_free(struct model *m)
{
	free(m->out.s);
}

#endif
