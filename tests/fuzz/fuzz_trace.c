// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for the bqltrace parser and the replay engine: the
 * input is split into lines, fed to bqlt_parse_line() and every record to
 * replay_feed(). Two more passes check that bqlt_parse_next() and
 * bqlt_parse_batch() (+ replay_feed_batch()) give exactly the same
 * records, errors and statistics, as trace.h promises.
 *
 * An optional header "\x01ABC" (3 config bytes) picks an HZ override, the
 * kernel semantics and what-if settings; without it, the defaults. The
 * fast path runs without SIMD on inputs of odd size, with it on even.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dql/dql.h"
#include "dql/replay.h"
#include "dql/trace.h"

#define MAX_RECS	4096

struct cfg {
	unsigned int hz;		/* override, 0 = none */
	struct replay_opts opts;
	unsigned int batch;		/* records per bqlt_parse_batch() */
};

/* one result of the reference pass */
struct res {
	int ret;
	struct bqlt_rec rec;
	struct bql_err e;
};

static void die(const char *what, size_t i)
{
	fprintf(stderr, "fuzz_trace: %s differ at result %zu\n", what, i);
	abort();
}

static void on_event(void *arg, const struct replay_event *ev)
{
	volatile size_t n = strlen(ev->qname);

	(void)arg;
	(void)n;
	if (ev->kind < BQLT_Q || ev->kind > BQLT_R)
		abort();
}

static void on_warn(void *arg, const char *msg)
{
	volatile size_t n = strlen(msg);

	(void)arg;
	(void)n;
}

static const struct replay_ops ops = {
	.event = on_event, .mismatch = on_event, .warn = on_warn,
};

static void get_cfg(const uint8_t **data, size_t *size, struct cfg *c)
{
	static const unsigned int hzs[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 100, 250, 300, 1000, 1, 12, 12287, UINT32_MAX,
	};
	static const char *const kernels[8] = {
		"newest", "3.3", "3.5", "6.1", "6.9", "6.10", "6.15", "5.4",
	};
	static const uint64_t vals[4] = { 0, 1514, 1000, DQL_MAX_LIMIT };
	static const char *const keys[4] = {
		"limit_min", "limit_max", "hold_time", "stall_thrs",
	};
	uint8_t b1, b2, b3;

	memset(c, 0, sizeof(*c));
	replay_opts_init(&c->opts);
	c->batch = 3;
	if (*size < 4 || (*data)[0] != 1)
		return;
	b1 = (*data)[1];
	b2 = (*data)[2];
	b3 = (*data)[3];
	*data += 4;
	*size -= 4;
	c->hz = hzs[b1 & 15];
	c->batch = 1 + (b1 >> 4);
	if (dql_kernel_parse(kernels[b2 & 7], &c->opts.kflags, NULL))
		abort();
	for (unsigned int k = 0; k < 4; k++)
		if (b3 & (1u << k)) {
			uint64_t v = k >= 2 ? (b3 >> 4) * 7u : vals[(b2 >> 3) & 3];

			replay_opts_set(&c->opts, keys[k], v, NULL);
		}
}

static int same_rec(const struct bqlt_rec *a, const struct bqlt_rec *b)
{
	if (a->kind != b->kind || a->line != b->line || a->hz != b->hz)
		return 0;
	if (a->kind == BQLT_HZ)
		return 1;
	if (a->queue != b->queue || strcmp(a->qname, b->qname))
		return 0;
	if (a->kind == BQLT_QUEUE)
		goto kv;
	if (a->t_ns != b->t_ns || a->jiffies != b->jiffies || a->has != b->has ||
	    a->bytes != b->bytes)
		return 0;
	if (a->kind == BQLT_C &&
	    (((a->has & BQLT_HAS_NQ) && a->nq != b->nq) ||
	     ((a->has & BQLT_HAS_LO) && a->lo != b->lo) ||
	     ((a->has & BQLT_HAS_LIMIT) && a->limit != b->limit)))
		return 0;
	if (a->kind != BQLT_P && a->kind != BQLT_S)
		return 1;
kv:
	if (a->nkv != b->nkv || a->nkv > BQLT_KV_MAX)
		return 0;
	for (unsigned int i = 0; i < a->nkv; i++) {
		if (a->kv[i].key != b->kv[i].key)
			return 0;
		if (a->kv[i].key == BQLT_S_HISTORY) {
			if (memcmp(a->history, b->history, sizeof(a->history)))
				return 0;
		} else if (a->kv[i].val != b->kv[i].val) {
			return 0;
		}
	}
	return 1;
}

static void check(const struct res *r, size_t i, int ret,
		  const struct bqlt_rec *rec, const struct bql_err *e)
{
	if (ret != r->ret)
		die("return values", i);
	if (ret < 0 && (e->code != r->e.code || strcmp(e->msg, r->e.msg)))
		die("error messages", i);
	if (ret == 1 && !same_rec(rec, &r->rec))
		die("records", i);
}

static void same_stats(const struct replay *a, const struct replay *b)
{
	unsigned int n = replay_queue_count(a);

	if (n != replay_queue_count(b))
		die("queue counts", 0);
	for (unsigned int q = 0; q < n; q++) {
		struct replay_stats x, y;

		memset(&x, 0, sizeof(x));
		memset(&y, 0, sizeof(y));
		if (replay_queue_stats(a, q, &x) || replay_queue_stats(b, q, &y))
			abort();
		if (strcmp(replay_queue_name(a, q), replay_queue_name(b, q)))
			die("queue names", q);
#define SAME(f) (x.f == y.f)
		/* limit_mean is computed the same way: compare its bits */
		if (!SAME(created) || !SAME(records) || !SAME(completions) ||
		    !SAME(bytes_queued) || !SAME(bytes_completed) ||
		    !SAME(limit_final) || !SAME(limit_min) || !SAME(limit_max) ||
		    memcmp(&x.limit_mean, &y.limit_mean, sizeof(double)) ||
		    !SAME(increases) || !SAME(decreases) || !SAME(starvations) ||
		    !SAME(stops) || !SAME(queued_ignored) || !SAME(stall_cnt) ||
		    !SAME(stall_max) || !SAME(verify_checked) ||
		    !SAME(verify_mismatches) || !SAME(nq_disagree))
			die("statistics", q);
#undef SAME
	}
	if (replay_queue_stats(a, n, &(struct replay_stats){ 0 }) >= 0 ||
	    replay_queue_dql(a, n) || replay_queue_name(a, n) ||
	    (n && !replay_queue_dql(a, n - 1)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct res res[MAX_RECS];
	const char *buf, *end, *pos;
	char *copy;
	struct bqlt_parser p1, p, p3;
	struct replay r1, r2;
	struct bqlt_rec *recs;
	struct bql_err e;
	struct cfg c;
	size_t nres = 0, i;
	int ret = 0, err;

	get_cfg(&data, &size, &c);
	/* the fast path without SIMD on odd sizes, with it (if any) on even */
	bqlt_fast_simd(!(size & 1));
	/* an exactly sized copy: ASan sees any read past the input */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	buf = copy;
	end = buf + size;

	/* 1. reference: bqlt_parse_line() on each line, copied exactly */
	bqlt_parser_init(&p1, c.hz);
	replay_init(&r1, &c.opts, &ops, NULL);
	for (pos = buf; pos < end && nres < MAX_RECS;) {
		const char *nl = memchr(pos, '\n', (size_t)(end - pos));
		size_t len = nl ? (size_t)(nl - pos) + 1 : (size_t)(end - pos);
		char *line = malloc(len ? len : 1);
		struct res *rs = &res[nres++];

		memcpy(line, pos, len);
		pos += len;
		memset(&rs->e, 0, sizeof(rs->e));
		rs->ret = bqlt_parse_line(&p1, line, len, &rs->rec, &rs->e);
		free(line);
		if (rs->ret == 1 && replay_feed(&r1, &rs->rec, &e) < 0)
			break;
		if (rs->ret < 0)
			break;
	}
	if (nres && res[nres - 1].ret >= 0 && pos == end)
		ret = bqlt_parse_end(&p1, &e);
	(void)ret;
	/* the other passes see the lines the reference saw */
	end = pos;
	for (i = 0; i < bqlt_queue_count(&p1); i++)
		if (!bqlt_queue_name(&p1, i))
			abort();
	/* p1 lives on: the records point at its queue names */

	/* 2. bqlt_parse_next() over the buffer */
	bqlt_parser_init(&p, c.hz);
	for (pos = buf, i = 0; pos < end && i < nres; i++) {
		struct bqlt_rec rec;

		memset(&e, 0, sizeof(e));
		ret = bqlt_parse_next(&p, &pos, end, &rec, &e);
		check(&res[i], i, ret, &rec, &e);
		if (ret < 0)
			break;
	}
	bqlt_parser_free(&p);

	/* 3. bqlt_parse_batch() + replay_feed_batch() */
	recs = calloc(c.batch, sizeof(*recs));
	bqlt_parser_init(&p3, c.hz);
	replay_init(&r2, &c.opts, &ops, NULL);
	i = 0;
	for (pos = buf; pos < end && i < nres;) {
		unsigned int n;

		memset(&e, 0, sizeof(e));
		n = bqlt_parse_batch(&p3, &pos, end, recs, c.batch, &err, &e);
		if (n > c.batch)
			abort();
		for (unsigned int k = 0; k < n; k++) {
			while (i < nres && res[i].ret == 0)
				i++;
			if (i >= nres)
				die("record counts", i);
			check(&res[i], i, 1, &recs[k], NULL);
			i++;
		}
		if (replay_feed_batch(&r2, recs, n, NULL) < 0)
			break;
		if (err < 0) {
			while (i < nres && res[i].ret == 0)
				i++;
			if (i >= nres)
				die("error positions", i);
			check(&res[i], i, err, NULL, &e);
			break;
		}
	}
	free(recs);
	same_stats(&r1, &r2);
	replay_free(&r1);
	replay_free(&r2);
	/* the replays point at their parsers' queue names: free them last */
	bqlt_parser_free(&p1);
	bqlt_parser_free(&p3);
	free(copy);
	return 0;
}
