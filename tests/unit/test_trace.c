// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the bqltrace v1 parser (dql/trace.c, trace_scan.c, trace_fast.c). */
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
#include "dql/trace.h"

#define MAXREC 64
#define FAST_PAD 200	/* blank lines after a text: every line may take the fast path */

struct run {
	struct bqlt_parser p;
	struct bqlt_rec rec[MAXREC];
	int n;			/* records produced */
	int rc;			/* first error, or 0 */
	struct bql_err e;
};

static void check_next(const char *text, unsigned int hz_override);

/*
 * Feed @text line by line (split on \n, kept in the line as a reader would).
 * Every text also goes through bqlt_parse_next(), which must agree.
 */
static void feed(struct run *r, const char *text, unsigned int hz_override)
{
	const char *s = text;

	check_next(text, hz_override);
	memset(r, 0, sizeof(*r));
	bqlt_parser_init(&r->p, hz_override);
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) + 1 : strlen(s);
		struct bqlt_rec tmp;
		int ret = bqlt_parse_line(&r->p, s, len, &tmp, &r->e);

		if (ret < 0) {
			r->rc = ret;
			return;
		}
		if (ret == 1) {
			assert_true(r->n < MAXREC);
			r->rec[r->n++] = tmp;
		}
		s += len;
	}
	r->rc = bqlt_parse_end(&r->p, &r->e);
}

/* the fields of @a and @b that their kind sets are equal */
static void rec_equal(const struct bqlt_rec *a, const struct bqlt_rec *b,
		      const char *where)
{
	unsigned int i;

	if (a->kind != b->kind || a->line != b->line || a->hz != b->hz)
		fail_msg("%s: kind/line/hz %d/%" PRIu64 "/%u vs %d/%" PRIu64 "/%u", where,
			 a->kind, a->line, a->hz, b->kind, b->line, b->hz);
	if (a->kind == BQLT_HZ)
		return;
	if (a->queue != b->queue || strcmp(a->qname, b->qname) || a->nkv != b->nkv)
		fail_msg("%s: queue/nkv", where);
	for (i = 0; i < a->nkv; i++) {
		if (a->kv[i].key != b->kv[i].key || a->kv[i].val != b->kv[i].val)
			fail_msg("%s: kv[%u]", where, i);
		if (a->kv[i].key == BQLT_S_HISTORY &&
		    memcmp(a->history, b->history, sizeof(a->history)))
			fail_msg("%s: history", where);
	}
	if (a->kind == BQLT_QUEUE)
		return;
	if (a->has != b->has || a->t_ns != b->t_ns || a->jiffies != b->jiffies ||
	    a->bytes != b->bytes)
		fail_msg("%s: has/t_ns/jiffies/bytes %u/%" PRIu64 "/%" PRIu64 "/%u vs %u/%"
			 PRIu64 "/%" PRIu64 "/%u", where, a->has, a->t_ns, a->jiffies,
			 a->bytes, b->has, b->t_ns, b->jiffies, b->bytes);
	if (((a->has & BQLT_HAS_NQ) && a->nq != b->nq) ||
	    ((a->has & BQLT_HAS_LO) && a->lo != b->lo) ||
	    ((a->has & BQLT_HAS_LIMIT) && a->limit != b->limit))
		fail_msg("%s: nq/lo/limit", where);
}

/*
 * Both parsers over @text of @n bytes: bqlt_parse_line() line by line and
 * bqlt_parse_next() over the whole buffer must return the same, fill the
 * same records and word errors the same. Returns the records compared.
 */
static int compare_parsers(const char *text, size_t n, unsigned int hz_override)
{
	struct bqlt_parser a, b;
	struct bql_err ea, eb;
	const char *s = text, *pos = text, *end = text + n;
	int ra = 0, rb = 0, count = 0;

	bqlt_parser_init(&a, hz_override);
	bqlt_parser_init(&b, hz_override);
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) + 1 : (size_t)(end - s);
		struct bqlt_rec x, y;
		char where[64];

		memset(&x, 0, sizeof(x));
		memset(&y, 0, sizeof(y));
		memset(&ea, 0, sizeof(ea));
		memset(&eb, 0, sizeof(eb));
		ra = bqlt_parse_line(&a, s, len, &x, &ea);
		rb = bqlt_parse_next(&b, &pos, end, &y, &eb);
		/* the line may end the buffer, without a NUL */
		snprintf(where, sizeof(where), "line %" PRIu64 " '%.*s'", a.line,
			 (int)(len < 30 ? len : 30), s);
		s += len;
		if (ra != rb || pos != s)
			fail_msg("%s: %d vs %d (%s | %s)", where, ra, rb, ea.msg, eb.msg);
		if (ra < 0) {
			assert_string_equal(ea.msg, eb.msg);
			break;
		}
		if (ra == 1) {
			rec_equal(&x, &y, where);
			count++;
		}
	}
	if (ra >= 0) {
		ra = bqlt_parse_end(&a, &ea);
		rb = bqlt_parse_end(&b, &eb);
		assert_int_equal(ra, rb);
		if (ra)
			assert_string_equal(ea.msg, eb.msg);
	}
	assert_true(a.line == b.line);
	bqlt_parser_free(&a);
	bqlt_parser_free(&b);
	return count;
}

/* one result of a parser: a record, or an error (rc < 0) */
struct res {
	int rc;
	struct bqlt_rec rec;
	char msg[sizeof(((struct bql_err *)0)->msg)];
};

/*
 * bqlt_scan() ahead with a clone taken after the first @cut lines, then
 * bqlt_accept(), bqlt_accept_run() or bqlt_parse_next() in file order,
 * @max entries per scan
 * call: the same records and the same first error as bqlt_parse_line()
 * line by line. Returns the records compared.
 */
/* what compare_scan_with() scans with */
enum { SCAN_CLONE, SCAN_SHARED, SCAN_AHEAD };

static int compare_scan_with(const char *text, size_t n, unsigned int hz_override,
			     unsigned int cut, unsigned int max, int with)
{
	struct bqlt_parser a, b, c, *snap;
	const char *s = text, *end = text + n, *pos = text;
	struct res *ra = NULL;
	unsigned int na = 0, nc = 0, i, acap = 0;
	struct bqlt_fast f[8];
	struct bql_err e;
	int ret = 0, count = 0;

	/* A: line by line */
	bqlt_parser_init(&a, hz_override);
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) + 1 : (size_t)(end - s);
		struct res *x;

		if (na == acap) {	/* doubling: texts of 10^4 records */
			acap = acap ? 2 * acap : 64;
			ra = realloc(ra, acap * sizeof(*ra));
			assert_non_null(ra);
		}
		x = &ra[na];
		memset(x, 0, sizeof(*x));
		x->rc = bqlt_parse_line(&a, s, len, &x->rec, &e);
		s += len;
		if (x->rc < 0)
			snprintf(x->msg, sizeof(x->msg), "%s", e.msg);
		if (x->rc)
			na++;
		if (x->rc < 0)
			break;
	}

	/* C: parse_next for @cut lines, then scan ahead with a clone */
	bqlt_parser_init(&c, hz_override);
#define C_NEXT(stop)							\
	do {								\
		struct bqlt_rec yy;					\
		memset(&yy, 0, sizeof(yy));			\
		ret = bqlt_parse_next(&c, &pos, end, &yy, &e);	\
		if (ret) {						\
			assert_true(nc < na);				\
			assert_int_equal(ret, ra[nc].rc);		\
			if (ret < 0)					\
				assert_string_equal(e.msg, ra[nc].msg);	\
			else						\
				rec_equal(&ra[nc].rec, &yy, "scan");	\
			nc++;						\
			count += ret > 0;				\
		}							\
	} while (ret >= 0 && pos < (stop))
	for (i = 0; i < cut && pos < end && ret >= 0; i++)
		C_NEXT(pos);
	if (with == SCAN_CLONE) {
		snap = bqlt_parser_clone(&c);
		assert_non_null(snap);
	} else if (with == SCAN_SHARED) {
		/* the parser itself, which declares queues as it goes */
		bqlt_parser_share(&c);
		snap = &c;
	} else {
		/*
		 * a parser that has read the whole text: it knows queues
		 * declared after the lines scanned, which the parser must
		 * still refuse as it would without them
		 */
		const char *bp = text;
		struct bqlt_rec yy;

		/* its magic line and queue directives, in the text's order */
		bqlt_parser_init(&b, hz_override);
		bqlt_parser_share(&b);
		while (bp < end) {
			const char *nl = memchr(bp, '\n', (size_t)(end - bp));
			size_t len = nl ? (size_t)(nl - bp) + 1 : (size_t)(end - bp);

			if ((!strncmp(bp, "bqltrace", 8) || !strncmp(bp, "queue", 5)) &&
			    bqlt_parse_line(&b, bp, len, &yy, &e) < 0)
				break;
			bp += len;
		}
		snap = &b;
	}
	while (pos < end && ret >= 0) {
		const char *sp = pos;
		unsigned int k, m = bqlt_scan(snap, &sp, end, f, max);

		assert_true(m > 0);
		/* one entry at a time (bqlt_accept), or runs (bqlt_accept_run) */
		for (k = 0; k < m && ret >= 0;) {
			struct bqlt_rec y[3];
			const char *stop = pos + f[k].len;
			unsigned int want = 1 + (k + max + cut) % 3, got, j;
			size_t len = 0;

			if (want > m - k)
				want = m - k;
			memset(y, 0, sizeof(y));
			if (want == 1) {
				got = (unsigned int)bqlt_accept(&c, &f[k], &y[0]);
				len = got ? f[k].len : 0;
			} else {
				got = bqlt_accept_run(&c, &f[k], want, y, &len);
			}
			if (got) {
				size_t sum = 0;

				for (j = 0; j < got; j++) {
					assert_true(nc < na);
					assert_int_equal(ra[nc].rc, 1);
					rec_equal(&ra[nc].rec, &y[j], "accept");
					nc++;
					count++;
					sum += f[k + j].len;
				}
				assert_int_equal(len, sum);
				pos += len;
				k += got;
				continue;
			}
			C_NEXT(stop);
			if (ret >= 0)
				assert_ptr_equal(pos, stop);
			k++;
		}
		if (ret >= 0)
			assert_ptr_equal(pos, sp);
	}
#undef C_NEXT
	assert_int_equal(nc, na);
	if (with == SCAN_CLONE)
		bqlt_parser_clone_free(snap);
	else if (with == SCAN_AHEAD)
		bqlt_parser_free(&b);
	bqlt_parser_free(&c);
	bqlt_parser_free(&a);	/* after: the records point to its names */
	free(ra);
	return count;
}

/* compare_scan_with() a clone, the parser shared, and one ahead: the same */
static int compare_scan(const char *text, size_t n, unsigned int hz_override,
			unsigned int cut, unsigned int max)
{
	int count = compare_scan_with(text, n, hz_override, cut, max, SCAN_CLONE);

	assert_int_equal(compare_scan_with(text, n, hz_override, cut, max, SCAN_SHARED), count);
	assert_int_equal(compare_scan_with(text, n, hz_override, cut, max, SCAN_AHEAD), count);
	return count;
}

/*
 * @text as given, and followed by blank lines, so that its lines have the
 * bytes behind them that the fast path of bqlt_parse_next() wants (a line
 * with a long queue name wants the name and 48 more).
 */
static void check_next(const char *text, unsigned int hz_override)
{
	char pad[FAST_PAD + 1];
	size_t n = strlen(text);
	char *buf = malloc(n + sizeof(pad));

	assert_non_null(buf);
	memset(pad, '\n', FAST_PAD);
	pad[FAST_PAD] = '\0';
	compare_parsers(text, n, hz_override);
	memcpy(buf, text, n);
	memcpy(buf + n, pad, sizeof(pad));
	compare_parsers(buf, n + sizeof(pad) - 1, hz_override);
	for (unsigned int cut = 0; cut < 6; cut++) {
		compare_scan(buf, n + sizeof(pad) - 1, hz_override, cut, 1);
		compare_scan(buf, n + sizeof(pad) - 1, hz_override, cut, 8);
	}
	free(buf);
}

static void done(struct run *r)
{
	bqlt_parser_free(&r->p);
}

#define HDR "bqltrace 1\nqueue eth0:tx-0\n"

static void test_basic(void **state)
{
	struct run r;

	(void)state;
	feed(&r,
	     "# a comment before the magic line\n"
	     "\n"
	     "bqltrace 1\n"
	     "hz 1000\n"
	     "queue eth0:tx-0 hold_time=1000\n"
	     "1000000   eth0:tx-0 Q 1514\n"
	     "1001000\teth0:tx-0\tQ\t1514 j=77\n"
	     "1050000   eth0:tx-0 C 3028\n", 0);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.n, 5);
	assert_int_equal(r.rec[0].kind, BQLT_HZ);
	assert_int_equal(r.rec[0].hz, 1000);
	assert_int_equal(r.rec[0].line, 4);
	assert_int_equal(r.rec[1].kind, BQLT_QUEUE);
	assert_int_equal(r.rec[1].queue, 0);
	assert_string_equal(r.rec[1].qname, "eth0:tx-0");
	assert_int_equal(r.rec[1].nkv, 1);
	assert_int_equal(r.rec[1].kv[0].key, BQLT_K_HOLD_TIME);
	assert_int_equal(r.rec[1].kv[0].val, 1000);
	assert_int_equal(r.rec[2].kind, BQLT_Q);
	assert_int_equal(r.rec[2].line, 6);
	assert_int_equal(r.rec[2].t_ns, 1000000);
	assert_int_equal(r.rec[2].bytes, 1514);
	assert_int_equal(r.rec[2].jiffies, 1);		/* 1 ms at HZ 1000 */
	assert_int_equal(r.rec[2].has, 0);
	assert_string_equal(r.rec[2].qname, "eth0:tx-0");
	assert_int_equal(r.rec[3].kind, BQLT_Q);
	assert_int_equal(r.rec[3].jiffies, 77);		/* j= wins */
	assert_int_equal(r.rec[3].has, BQLT_HAS_J);
	assert_int_equal(r.rec[4].kind, BQLT_C);
	assert_int_equal(r.rec[4].bytes, 3028);
	assert_int_equal(r.rec[4].jiffies, 1);
	assert_int_equal(r.rec[4].line, 8);
	assert_int_equal(r.rec[4].hz, 1000);
	done(&r);
}

static void test_crlf_comments_blanks(void **state)
{
	struct run r;

	(void)state;
	feed(&r,
	     "\r\n"
	     "   # indented comment\r\n"
	     "bqltrace 1\r\n"
	     "\t\r\n"
	     "queue a\r\n"
	     "\t # another\r\n"
	     "5 a Q 10\r\n"
	     "6 a C 10 nq=10 lo=10 limit=0\r\n"
	     "7 a R", 0);	/* no final newline */
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.n, 4);
	assert_int_equal(r.rec[1].line, 7);
	assert_int_equal(r.rec[1].bytes, 10);
	assert_int_equal(r.rec[2].line, 8);
	assert_int_equal(r.rec[2].limit, 0);
	assert_int_equal(r.rec[2].has, BQLT_HAS_NQ | BQLT_HAS_LO | BQLT_HAS_LIMIT);
	assert_int_equal(r.rec[3].kind, BQLT_R);
	assert_int_equal(r.rec[3].line, 9);
	done(&r);
}

static void test_c_keys(void **state)
{
	struct run r;

	(void)state;
	feed(&r, HDR
	     "10 eth0:tx-0 C 100 limit=4294967295 lo=7 j=18446744073709551615 nq=4294967295\n"
	     "10 eth0:tx-0 C 0\n", 0);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.rec[1].has, BQLT_HAS_J | BQLT_HAS_NQ | BQLT_HAS_LO | BQLT_HAS_LIMIT);
	assert_int_equal(r.rec[1].nq, UINT32_MAX);
	assert_int_equal(r.rec[1].lo, 7);
	assert_int_equal(r.rec[1].limit, UINT32_MAX);
	assert_true(r.rec[1].jiffies == UINT64_MAX);
	assert_int_equal(r.rec[2].bytes, 0);
	assert_int_equal(r.rec[2].has, 0);
	done(&r);
}

static void test_queue_and_p_settings(void **state)
{
	struct run r;

	(void)state;
	feed(&r, "bqltrace 1\n"
	     "queue q0 limit_min=1000 limit_max=max hold_time=250 stall_thrs=8\n"
	     "1 q0 P limit=max stall_max=0 j=3 limit_min=0 hold_time=4294967295 stall_thrs=0 limit_max=5000\n", 0);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.rec[0].nkv, 4);
	assert_int_equal(r.rec[0].kv[0].key, BQLT_K_LIMIT_MIN);
	assert_int_equal(r.rec[0].kv[0].val, 1000);
	assert_int_equal(r.rec[0].kv[1].key, BQLT_K_LIMIT_MAX);
	assert_int_equal(r.rec[0].kv[1].val, DQL_MAX_LIMIT);
	assert_int_equal(r.rec[0].kv[2].key, BQLT_K_HOLD_TIME);
	assert_int_equal(r.rec[0].kv[3].key, BQLT_K_STALL_THRS);
	assert_int_equal(r.rec[0].kv[3].val, 8);
	/* P: order as written, j= not among the settings */
	assert_int_equal(r.rec[1].kind, BQLT_P);
	assert_int_equal(r.rec[1].nkv, 6);
	assert_int_equal(r.rec[1].has, BQLT_HAS_J);
	assert_int_equal(r.rec[1].jiffies, 3);
	assert_int_equal(r.rec[1].kv[0].key, BQLT_K_LIMIT);
	assert_int_equal(r.rec[1].kv[0].val, DQL_MAX_LIMIT);
	assert_int_equal(r.rec[1].kv[1].key, BQLT_K_STALL_MAX);
	assert_int_equal(r.rec[1].kv[2].key, BQLT_K_LIMIT_MIN);
	assert_int_equal(r.rec[1].kv[2].val, 0);
	assert_int_equal(r.rec[1].kv[3].key, BQLT_K_HOLD_TIME);
	assert_int_equal(r.rec[1].kv[3].val, UINT32_MAX);
	assert_int_equal(r.rec[1].kv[4].key, BQLT_K_STALL_THRS);
	assert_int_equal(r.rec[1].kv[5].key, BQLT_K_LIMIT_MAX);
	assert_int_equal(r.rec[1].kv[5].val, 5000);
	done(&r);
}

static void test_s_keys(void **state)
{
	static const struct { const char *name; enum bqlt_key key; uint64_t v; } k[] = {
		{ "limit", BQLT_S_LIMIT, 1 },
		{ "num_queued", BQLT_S_NUM_QUEUED, 2 },
		{ "num_completed", BQLT_S_NUM_COMPLETED, 3 },
		{ "adj_limit", BQLT_S_ADJ_LIMIT, 4 },
		{ "last_obj_cnt", BQLT_S_LAST_OBJ_CNT, 5 },
		{ "prev_num_queued", BQLT_S_PREV_NUM_QUEUED, 6 },
		{ "prev_last_obj_cnt", BQLT_S_PREV_LAST_OBJ_CNT, 7 },
		{ "prev_ovlimit", BQLT_S_PREV_OVLIMIT, 8 },
		{ "lowest_slack", BQLT_S_LOWEST_SLACK, 4294967295u },
		{ "slack_start_time", BQLT_S_SLACK_START_TIME, 18446744073709551615u },
		{ "min_limit", BQLT_S_MIN_LIMIT, 11 },
		{ "max_limit", BQLT_S_MAX_LIMIT, 12 },
		{ "slack_hold_time", BQLT_S_SLACK_HOLD_TIME, 13 },
		{ "stall_thrs", BQLT_S_STALL_THRS, 65535 },
		{ "stall_max", BQLT_S_STALL_MAX, 15 },
		{ "stall_cnt", BQLT_S_STALL_CNT, 16 },
		{ "last_reap", BQLT_S_LAST_REAP, 17 },
		{ "history_head", BQLT_S_HISTORY_HEAD, 18 },
	};
	char text[2048];
	struct run r;
	size_t i, n;

	(void)state;
	n = (size_t)snprintf(text, sizeof(text), HDR "1 eth0:tx-0 S");
	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, " %s=%" PRIu64,
				      k[i].name, k[i].v);
	snprintf(text + n, sizeof(text) - n,
		 " history=0x1,FFFFFFFFFFFFFFFF,0,0xabc j=9\n");
	feed(&r, text, 0);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.rec[1].kind, BQLT_S);
	assert_int_equal(r.rec[1].nkv, sizeof(k) / sizeof(k[0]) + 1);
	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		assert_int_equal(r.rec[1].kv[i].key, k[i].key);
		assert_true(r.rec[1].kv[i].val == k[i].v);
		assert_string_equal(bqlt_key_name(k[i].key), k[i].name);
	}
	assert_int_equal(r.rec[1].kv[i].key, BQLT_S_HISTORY);
	assert_true(r.rec[1].history[0] == 1);
	assert_true(r.rec[1].history[1] == UINT64_MAX);
	assert_true(r.rec[1].history[2] == 0);
	assert_true(r.rec[1].history[3] == 0xabc);
	assert_int_equal(r.rec[1].jiffies, 9);
	done(&r);
}

/* jiffies = floor(t_ns * hz / 1e9), exact and overflow-free */
static void test_jiffies(void **state)
{
	struct run r;

	(void)state;
	assert_true(bqlt_ns_to_jiffies(0, 250) == 0);
	assert_true(bqlt_ns_to_jiffies(3999999, 250) == 0);
	assert_true(bqlt_ns_to_jiffies(4000000, 250) == 1);
	/* HZ 300: 1 jiffy = 3333333.33 ns */
	assert_true(bqlt_ns_to_jiffies(3333333, 300) == 0);
	assert_true(bqlt_ns_to_jiffies(3333334, 300) == 1);
	assert_true(bqlt_ns_to_jiffies(9999999, 300) == 2);
	assert_true(bqlt_ns_to_jiffies(10000000, 300) == 3);
	/*
	 * UINT64_MAX ns = 18446744073 s + 709551615 ns:
	 * HZ 1000: 18446744073000 + 709 ; HZ 300: 5534023221900 + 212
	 * (t_ns * hz would overflow 64 bits).
	 */
	assert_true(bqlt_ns_to_jiffies(UINT64_MAX, 1000) == 18446744073709ull);
	assert_true(bqlt_ns_to_jiffies(UINT64_MAX, 300) == 5534023222112ull);
	assert_true(bqlt_ns_to_jiffies(UINT64_MAX, 1) == 18446744073ull);
	/* HZ 4294967295 wraps modulo 2^64, as jiffies do */
	assert_true(bqlt_ns_to_jiffies(UINT64_MAX, UINT32_MAX) ==
		    (uint64_t)(((unsigned __int128)UINT64_MAX * UINT32_MAX) / 1000000000u));

	feed(&r, "bqltrace 1\nhz 300\nqueue a\n"
	     "3333333 a Q 1\n"
	     "3333334 a Q 1\n"
	     "18446744073709551615 a C 2\n"
	     "18446744073709551615 a R j=5\n", 0);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.n, 6);
	assert_int_equal(r.rec[2].jiffies, 0);
	assert_int_equal(r.rec[3].jiffies, 1);
	assert_true(r.rec[4].jiffies == 5534023222112ull);
	assert_true(r.rec[4].t_ns == UINT64_MAX);
	assert_int_equal(r.rec[5].jiffies, 5);
	done(&r);

	/* default HZ is 250 */
	feed(&r, "bqltrace 1\nqueue a\n8000000 a Q 1\n", 0);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.rec[1].hz, 250);
	assert_int_equal(r.rec[1].jiffies, 2);
	done(&r);

	/* an override replaces the trace's hz (still checked) */
	feed(&r, "bqltrace 1\nhz 100\nqueue a\n8000000 a Q 1\n", 1000);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.rec[0].kind, BQLT_HZ);
	assert_int_equal(r.rec[0].hz, 1000);
	assert_int_equal(r.rec[2].hz, 1000);
	assert_int_equal(r.rec[2].jiffies, 8);
	done(&r);
	feed(&r, "bqltrace 1\nhz 0\n", 1000);
	assert_int_equal(r.rc, -EINVAL);
	done(&r);
}

/* t_ns may repeat and queues are independent */
static void test_time_per_queue(void **state)
{
	struct run r;

	(void)state;
	feed(&r, "bqltrace 1\nqueue a\nqueue b\n"
	     "100 a Q 1\n"
	     "50 b Q 1\n"
	     "100 a C 1\n"
	     "60 b C 1\n", 0);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.n, 6);
	assert_int_equal(r.rec[3].queue, 1);
	assert_string_equal(r.rec[3].qname, "b");
	done(&r);
}

/* queue names are interned: many queues, lookups stay right */
static void test_many_queues(void **state)
{
	char text[64 * 1024];
	struct run r;
	size_t n = 0;
	int i;

	(void)state;
	n += (size_t)snprintf(text + n, sizeof(text) - n, "bqltrace 1\n");
	for (i = 0; i < 300; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "queue dev%d:tx-%d\n", i % 7, i);
	for (i = 299; i >= 240; i -= 3)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%d dev%d:tx-%d Q %d\n",
				      i, i % 7, i, i);
	memset(&r, 0, sizeof(r));
	bqlt_parser_init(&r.p, 0);
	{
		const char *s = text;
		int q = 299, ret;

		while (*s) {
			const char *nl = strchr(s, '\n');
			struct bqlt_rec rec;

			ret = bqlt_parse_line(&r.p, s, (size_t)(nl - s), &rec, &r.e);
			assert_int_equal(ret, s == text ? 0 : 1);
			if (ret && rec.kind == BQLT_Q) {
				assert_int_equal(rec.queue, q);
				assert_int_equal(rec.bytes, q);
				q -= 3;
			}
			s = nl + 1;
		}
	}
	assert_int_equal(bqlt_queue_count(&r.p), 300);
	assert_string_equal(bqlt_queue_name(&r.p, 123), "dev4:tx-123");
	assert_null(bqlt_queue_name(&r.p, 300));
	done(&r);
}

/*
 * Numbers of every length, in every position of a line (the scanner reads
 * 8 bytes at a time where it can), and names that only differ at the start,
 * the middle or the end (the lookup compares words).
 */
static void test_numbers_and_names(void **state)
{
	static const char *const names[] = {
		"q", "eth0:tx", "eth0:tx-", "eth0:tx-1", "eth1:tx-1", "eth0:tx-10",
		"eth1:tx-10", "enp3s0f0:tx-15", "enp3s0f1:tx-15", "enp3s0f0np0:tx-1",
		"enp3s0f0np1:tx-1", "enp3s0f0np0:tx-12", "enp3s0f0np0:tx-13",
		"a23456789012345678901234567890:tx-0", "b23456789012345678901234567890:tx-0",
		/* 17..31 bytes that differ only in bytes 8..15, or 16..23 */
		"abcdefgh1234567:tx-9", "abcdefgh7654321:tx-9", "abcdefghMIDDLE01qrstuvwx",
		"abcdefghMIDDLE02qrstuvwx", "abcdefghijklmnopXXXXyz:tx-12",
		"abcdefghijklmnopYYYYyz:tx-12", "abcdefghijklmnopqrstuvw:tx-1023",
		"abcdefghijklmnopqrstuvW:tx-1023",
	};
	const size_t nn = sizeof(names) / sizeof(names[0]);
	struct bqlt_parser p;
	struct bqlt_rec rec;
	struct bql_err e;
	char line[256];
	uint64_t v = 0;
	size_t i, tn = 0, tcap = 256 * 1024;
	char *all = malloc(tcap);	/* all the lines, for bqlt_parse_next() */
	int d, ret;

	(void)state;
	assert_non_null(all);
	tn += (size_t)snprintf(all + tn, tcap - tn, "bqltrace 1\n");
	bqlt_parser_init(&p, 1000000000u);	/* jiffies = t_ns */
	assert_int_equal(bqlt_parse_line(&p, "bqltrace 1", 10, &rec, &e), 0);
	for (i = 0; i < nn; i++) {
		snprintf(line, sizeof(line), "queue %s", names[i]);
		assert_int_equal(bqlt_parse_line(&p, line, strlen(line), &rec, &e), 1);
		tn += (size_t)snprintf(all + tn, tcap - tn, "%s\n", line);
	}
	for (d = 1; d <= 20; d++) {
		static const char *const tails[] = { "", " ", "\t", "\r\n", "  j=7", " lo=1 nq=2" };

		v = v * 10 + (uint64_t)(d % 10);
		if (d == 20)
			v = UINT64_MAX;
		for (i = 0; i < nn; i++) {
			const char *q = names[i];
			size_t k;

			/* t_ns of d digits (increasing with d), bytes up to 10 digits */
			for (k = 0; k < sizeof(tails) / sizeof(tails[0]); k++) {
				uint32_t bytes = (uint32_t)(v % 4294967296ull);
				int n = snprintf(line, sizeof(line), "%" PRIu64 " %s C %" PRIu32 "%s",
						 v, q, bytes, tails[k]);

				ret = bqlt_parse_line(&p, line, (size_t)n, &rec, &e);
				if (ret != 1)
					fail_msg("'%s': %d %s", line, ret, e.msg);
				assert_true(tn + (size_t)n + 2 < tcap);
				memcpy(all + tn, line, (size_t)n);
				tn += (size_t)n;
				if (k != 3)
					all[tn++] = '\n';
				assert_true(rec.t_ns == v);
				assert_int_equal(rec.bytes, bytes);
				assert_int_equal(rec.queue, i);
				if (k == 4)
					assert_int_equal(rec.jiffies, 7);
				else
					assert_true(rec.jiffies == v);
			}
		}
	}
	bqlt_parser_free(&p);
	/* the same lines in one buffer: bqlt_parse_next() agrees on all */
	assert_int_equal(compare_parsers(all, tn, 1000000000u),
			 nn + 20 * nn * 6);
	assert_int_equal(compare_scan(all, tn, 1000000000u, 2, 8), nn + 20 * nn * 6);
	free(all);

	/* garbage at every position of a long number is refused */
	for (d = 0; d < 20; d++) {
		char num[24] = "12345678901234567890";
		struct run r;
		char text[128], want[160];

		num[d] = 'x';
		snprintf(text, sizeof(text), "bqltrace 1\nqueue a\n%s a Q 1\n", num);
		feed(&r, text, 0);
		if (d == 0)
			snprintf(want, sizeof(want), "line 3: unknown directive '%s'", num);
		else
			snprintf(want, sizeof(want),
				 "line 3: record: expected t_ns (unsigned 64-bit nanoseconds), got '%s'", num);
		assert_int_equal(r.rc, -EINVAL);
		assert_string_equal(r.e.msg, want);
		done(&r);
		snprintf(text, sizeof(text), "bqltrace 1\nqueue a\n1 a Q %.*sx\n", d, num);
		feed(&r, text, 0);
		assert_int_not_equal(r.rc, 0);
		done(&r);
	}
	/* 18446744073709551615 is the largest t_ns; 21 digits overflow */
	{
		struct run r;

		feed(&r, "bqltrace 1\nqueue a\n18446744073709551615 a Q 1\n", 0);
		assert_int_equal(r.rc, 0);
		done(&r);
		feed(&r, "bqltrace 1\nqueue a\n000000000000000000001 a Q 4294967295\n", 0);
		assert_int_equal(r.rc, 0);
		assert_int_equal(r.rec[1].t_ns, 1);
		done(&r);
		feed(&r, "bqltrace 1\nqueue a\n100000000000000000000 a Q 1\n", 0);
		assert_int_equal(r.rc, -ERANGE);
		done(&r);
		feed(&r, "bqltrace 1\nqueue a\n1 a Q 00000000004294967296\n", 0);
		assert_int_equal(r.rc, -ERANGE);
		done(&r);
	}
}

/* xorshift64*: the same lines on every run */
static uint64_t rnd_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 2685821657736338717ull;
}

static uint64_t rnd_num(void)
{
	static const uint64_t edge[] = {
		0, 1, 9, 10, 99999999, 100000000, 999999999, 4294967295ull,
		4294967296ull, 9999999999ull, 1234567890123456ull,
		9999999999999999999ull, 18446744073709551615ull,
	};

	switch (rnd() % 4) {
	case 0:
		return edge[rnd() % (sizeof(edge) / sizeof(edge[0]))];
	case 1:
		return rnd() % 2000;
	case 2:
		return rnd() % 5000000000ull;
	default:
		return rnd() >> (rnd() % 64);
	}
}

/*
 * Random record lines, most of them well formed, some with one byte
 * changed, inserted or dropped: bqlt_parse_next() (fast path included)
 * and bqlt_parse_line() must agree on every one, errors included.
 */
static void test_next_random(void **state)
{
	static const char *const names[] = {
		"eth0:tx-0", "eth0:tx-1", "a", "enp3s0f0np0:tx-12",
		"abcdefgh", "abcdefghijklmnop", "q2345678901234567890123456789012345",
	};
	static const char *const keys[] = { "j", "nq", "lo", "limit", "limits", "x" };
	static const char alpha[] = "0123456789 \t\r\n=QCPSRjnqlo#x-:\001\377";
	size_t cap = 64 * 1024;
	char *text = malloc(cap);
	int iter, total = 0;

	(void)state;
	assert_non_null(text);
	for (iter = 0; iter < 3000; iter++) {
		size_t n = 0, i;
		uint64_t t = rnd() % 1000000000000ull;
		int l;

		n += (size_t)snprintf(text + n, cap - n, "bqltrace 1\n%s",
				      rnd() % 2 ? "hz 1000\n" : "");
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			n += (size_t)snprintf(text + n, cap - n, "queue %s\n", names[i]);
		for (l = 0; l < 60; l++) {
			char line[256];
			bool is_c = rnd() % 3 == 0;
			unsigned int used = 0;
			int m, k, nk = (int)(rnd() % (is_c ? 5 : 2));

			t += rnd() % 3 ? rnd() % 100000 : 0;
			m = snprintf(line, sizeof(line), "%" PRIu64 "%s%s%s%c%s%" PRIu64,
				     rnd() % 100 ? t : rnd_num(), rnd() % 10 ? " " : " \t ",
				     names[rnd() % (sizeof(names) / sizeof(names[0]))],
				     rnd() % 10 ? " " : "\t", is_c ? 'C' : 'Q',
				     rnd() % 20 ? " " : "  ",
				     rnd() % 20 ? rnd() % 70000 : rnd_num());
			for (k = 0; k < nk; k++) {
				/* j= on any record, the others on C; rarely a repeat or a stranger */
				unsigned int key = is_c ? (unsigned int)(rnd() % 4) : 0;
				uint64_t v = rnd() % 3 ? rnd() % 100000 : rnd() % 4294967296ull;

				if (rnd() % 100 == 0)
					key = 4 + (unsigned int)(rnd() % 2);
				else if ((used & (1u << key)) && rnd() % 20)
					continue;
				used |= 1u << key;
				if (key == 0 || rnd() % 40 == 0)
					v = rnd_num();
				m += snprintf(line + m, sizeof(line) - (size_t)m, "%s%s=%" PRIu64,
					      rnd() % 10 ? " " : " \t", keys[key], v);
			}
			if (rnd() % 8 == 0)
				line[m++] = rnd() % 2 ? ' ' : '\r';
			if (rnd() % 60 == 0) {	/* one byte changed, added or dropped */
				int at = (int)(rnd() % (uint64_t)m);
				char ch = alpha[rnd() % (sizeof(alpha) - 1)];

				switch (rnd() % 3) {
				case 0:
					line[at] = ch;
					break;
				case 1:
					memmove(line + at + 1, line + at, (size_t)(m - at));
					line[at] = ch;
					m++;
					break;
				default:
					memmove(line + at, line + at + 1, (size_t)(m - at - 1));
					m--;
					break;
				}
			}
			assert_true(n + (size_t)m + 2 < cap);
			memcpy(text + n, line, (size_t)m);
			n += (size_t)m;
			text[n++] = '\n';
		}
		if (rnd() % 2)
			n--;	/* no final newline */
		total += compare_parsers(text, n, 0);
		/* and scanned ahead by a clone after the header or before it */
		assert_int_equal(compare_scan(text, n, 0, 3 + rnd() % 4, 1 + rnd() % 8),
				 compare_parsers(text, n, 0));
		compare_scan(text, n, 0, rnd() % 3, 8);
	}
	if (total < 3000 * 20)	/* most traces run long */
		fail_msg("only %d records", total);
	free(text);
}

/* the jiffies cache of the parser gives floor(t_ns * hz / 1e9) every time */
static void test_jiffies_cache(void **state)
{
	static const unsigned int hz[] = {
		1, 3, 100, 250, 300, 1000, 1024, 999999999, 1000000000,
		1000000001, 4294967295u,
	};
	size_t cap = 256 * 1024;
	char *text = malloc(cap);
	size_t h;

	(void)state;
	assert_non_null(text);
	for (h = 0; h < sizeof(hz) / sizeof(hz[0]); h++) {
		struct bqlt_parser p;
		struct bqlt_rec rec;
		struct bql_err e;
		const char *pos, *end;
		/* 3000 steps add at most 1.5e13 */
		uint64_t t[3] = { 0, 999999990, UINT64_MAX - 20000000000000ull };
		size_t n = 0;
		int i, ret, recs = 0;

		n += (size_t)snprintf(text + n, cap - n,
				      "bqltrace 1\nqueue a\nqueue b\nqueue c\n");
		for (i = 0; i < 3000; i++) {
			int q = (int)(rnd() % 3);

			/* steps of about a jiffy, sub-jiffy, and jumps */
			switch (rnd() % 4) {
			case 0:
				t[q] += 1000000000u / hz[h];
				break;
			case 1:
				t[q] += rnd() % 7;
				break;
			case 2:
				t[q] += rnd() % 3000000;
				break;
			default:
				t[q] += rnd() % 5000000000ull;
				break;
			}
			n += (size_t)snprintf(text + n, cap - n, "%" PRIu64 " %c Q 1\n",
					      t[q], 'a' + q);
		}
		bqlt_parser_init(&p, hz[h]);
		pos = text;
		end = text + n;
		while (pos < end) {
			ret = bqlt_parse_next(&p, &pos, end, &rec, &e);
			if (ret < 0)
				fail_msg("hz %u: %s", hz[h], e.msg);
			if (ret == 1 && rec.kind == BQLT_Q) {
				if (rec.jiffies != bqlt_ns_to_jiffies(rec.t_ns, hz[h]))
					fail_msg("hz %u t_ns %" PRIu64 ": %" PRIu64, hz[h],
						 rec.t_ns, rec.jiffies);
				recs++;
			}
		}
		assert_int_equal(recs, 3000);
		bqlt_parser_free(&p);
		compare_parsers(text, n, hz[h]);
		compare_scan(text, n, hz[h], 4, 8);
	}
	free(text);
}

/* batches: full ones, the rest, and the records before a bad line */
static void test_batch(void **state)
{
	static const char text[] =
		"bqltrace 1\nqueue eth0:tx-0\n"
		"1000 eth0:tx-0 Q 1514\n2000 eth0:tx-0 Q 1514\n# c\n"
		"3000 eth0:tx-0 C 3028 nq=3028 lo=1514 limit=3028\n"
		"4000 eth0:tx-0 Q 1514\n5000 eth0:tx-0 C 1514x\n6000 eth0:tx-0 Q 1\n"
		"\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n";
	const char *pos = text, *end = text + sizeof(text) - 1;
	struct bqlt_parser p;
	struct bqlt_rec recs[3];
	struct bql_err e;
	unsigned int n;
	int err = 1;

	(void)state;
	bqlt_parser_init(&p, 0);
	n = bqlt_parse_batch(&p, &pos, end, recs, 3, &err, &e);
	assert_int_equal(n, 3);		/* queue, Q, Q */
	assert_int_equal(err, 0);
	assert_int_equal(recs[0].kind, BQLT_QUEUE);
	assert_int_equal(recs[2].line, 4);
	assert_ptr_equal(pos, strstr(text, "# c"));
	n = bqlt_parse_batch(&p, &pos, end, recs, 3, &err, &e);
	assert_int_equal(n, 2);		/* C, Q, then the bad line */
	assert_int_equal(err, -EINVAL);
	assert_string_equal(e.msg, "line 8: C record: expected bytes, got '1514x'");
	assert_int_equal(recs[0].kind, BQLT_C);
	assert_int_equal(recs[0].limit, 3028);
	assert_int_equal(recs[1].line, 7);
	assert_ptr_equal(pos, strstr(text, "6000"));
	bqlt_parser_free(&p);

	/* max 0: nothing parsed */
	bqlt_parser_init(&p, 0);
	pos = text;
	assert_int_equal(bqlt_parse_batch(&p, &pos, end, recs, 0, &err, &e), 0);
	assert_ptr_equal(pos, text);
	assert_int_equal(err, 0);
	bqlt_parser_free(&p);
}

struct bad {
	const char *text;
	const char *msg;
	int code;
};

/* every error class, with its line number */
static const struct bad bad[] = {
	/* magic */
	{ "", "empty input: not a bqltrace (no 'bqltrace 1' magic line)", EINVAL },
	{ "# only a comment\n\n", "line 2: not a bqltrace: no 'bqltrace 1' magic line", EINVAL },
	{ "# c\nhz 100\n", "line 2: expected the magic line 'bqltrace 1', got 'hz'", EINVAL },
	{ "1 a Q 1\n", "line 1: expected the magic line 'bqltrace 1', got '1'", EINVAL },
	{ "bqltrace\n", "line 1: magic line: expected a version after 'bqltrace'", EINVAL },
	{ "bqltrace 2\n", "line 1: unsupported bqltrace version '2' (this bqltool reads version 1)", EINVAL },
	{ "bqltrace 1 x\n", "line 1: magic line: unexpected 'x'", EINVAL },
	{ "bqltrace 1\nbqltrace 1\n", "line 2: magic line repeated", EINVAL },
	/* directives */
	{ "bqltrace 1\nqueues a\n", "line 2: unknown directive 'queues'", EINVAL },
	{ "bqltrace 1\nHZ 100\n", "line 2: unknown directive 'HZ'", EINVAL },
	{ "bqltrace 1\nhz\n", "line 2: hz: expected a positive integer, got nothing", EINVAL },
	{ "bqltrace 1\nhz 0\n", "line 2: hz: must be a positive integer, got 0", EINVAL },
	{ "bqltrace 1\nhz -5\n", "line 2: hz: expected a positive integer, got '-5'", EINVAL },
	{ "bqltrace 1\nhz 4294967296\n", "line 2: hz: a positive integer 4294967296 out of range (max 4294967295)", ERANGE },
	{ "bqltrace 1\nhz 100 200\n", "line 2: hz: unexpected '200'", EINVAL },
	{ "bqltrace 1\nhz 100\n\nhz 100\n", "line 4: hz: given twice (first at line 2)", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a Q 1\nhz 100\n", "line 4: hz: must come before the first record", EINVAL },
	{ "bqltrace 1\nqueue\n", "line 2: queue: expected a queue name, got nothing", EINVAL },
	{ "bqltrace 1\nqueue limit_min=5\n", "line 2: queue: expected a queue name, got 'limit_min=5'", EINVAL },
	{ "bqltrace 1\nqueue a\rb\n", "line 2: queue: expected a queue name, got 'a?b'", EINVAL },
	{ "bqltrace 1\nqueue aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
	  "line 2: queue: name 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' longer than 128 bytes", EINVAL },
	{ "bqltrace 1\nqueue a\nqueue b\nqueue a\n", "line 4: queue a: declared twice (first at line 2)", EINVAL },
	{ "bqltrace 1\nqueue a limit=5\n", "line 2: queue a: unknown key 'limit'", EINVAL },
	{ "bqltrace 1\nqueue a bogus\n", "line 2: queue a: expected key=value, got 'bogus'", EINVAL },
	{ "bqltrace 1\nqueue a hold_time=1 hold_time=2\n", "line 2: queue a: duplicate key 'hold_time'", EINVAL },
	{ "bqltrace 1\nqueue a hold_time=\n", "line 2: queue a: expected hold_time, got nothing", EINVAL },
	{ "bqltrace 1\nqueue a hold_time=1ms\n", "line 2: queue a: expected hold_time, got '1ms'", EINVAL },
	{ "bqltrace 1\nqueue a limit_max=4294967296\n", "line 2: queue a: limit_max 4294967296 out of range (max 4294967295)", ERANGE },
	{ "bqltrace 1\nqueue a stall_thrs=99999999999999999999999\n",
	  "line 2: queue a: stall_thrs 99999999999999999999999 out of range (max 4294967295)", ERANGE },
	/* record heads */
	{ "bqltrace 1\nqueue a\n1x a Q 1\n", "line 3: record: expected t_ns (unsigned 64-bit nanoseconds), got '1x'", EINVAL },
	{ "bqltrace 1\nqueue a\n18446744073709551616 a Q 1\n",
	  "line 3: record: t_ns (unsigned 64-bit nanoseconds) 18446744073709551616 out of range (max 18446744073709551615)", ERANGE },
	{ "bqltrace 1\nqueue a\n1\n", "line 3: record: expected a queue name after t_ns", EINVAL },
	{ "bqltrace 1\nqueue a\n1 b Q 1\n", "line 3: record: queue 'b' is not declared", EINVAL },
	{ "bqltrace 1\n1 a Q 1\nqueue a\n", "line 2: record: queue 'a' is not declared", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a\n", "line 3: record: expected a record type (Q, C, P, S or R), got nothing", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a q 1\n", "line 3: record: expected a record type (Q, C, P, S or R), got 'q'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a QC 1\n", "line 3: record: expected a record type (Q, C, P, S or R), got 'QC'", EINVAL },
	{ "bqltrace 1\nqueue a\n5 a Q 1\n4 a Q 1\n", "line 4: Q record: t_ns 4 goes back in time (queue a was at 5)", EINVAL },
	/* Q / C / R */
	{ "bqltrace 1\nqueue a\n1 a Q\n", "line 3: Q record: expected bytes, got nothing", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a C x\n", "line 3: C record: expected bytes, got 'x'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a C -1\n", "line 3: C record: expected bytes, got '-1'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a Q 4294967296\n", "line 3: Q record: bytes 4294967296 out of range (max 4294967295)", ERANGE },
	{ "bqltrace 1\nqueue a\n1 a Q 1 nq=1\n", "line 3: Q record: unknown key 'nq'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a Q 1 2\n", "line 3: Q record: unexpected '2'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a Q 1 # no trailing comments\n", "line 3: Q record: unexpected '#'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a C 1 nq=1 nq=1\n", "line 3: C record: duplicate key 'nq'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a C 1 j=1 j=2\n", "line 3: C record: duplicate key 'j'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a C 1 lo=4294967296\n", "line 3: C record: lo 4294967296 out of range (max 4294967295)", ERANGE },
	{ "bqltrace 1\nqueue a\n1 a C 1 limit=1k\n", "line 3: C record: expected limit, got '1k'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a C 1 limits=1\n", "line 3: C record: unknown key 'limits'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a C 1 nq\n", "line 3: C record: unexpected 'nq'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a R j=18446744073709551616\n",
	  "line 3: R record: j 18446744073709551616 out of range (max 18446744073709551615)", ERANGE },
	{ "bqltrace 1\nqueue a\n1 a R 5\n", "line 3: R record: unexpected '5'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a R limit=5\n", "line 3: R record: unknown key 'limit'", EINVAL },
	/* P */
	{ "bqltrace 1\nqueue a\n1 a P\n", "line 3: P record: expected at least one key=value", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a P j=1\n", "line 3: P record: expected at least one key=value", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a P inflight=1\n", "line 3: P record: unknown key 'inflight'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a P limit=1 limit=2\n", "line 3: P record: duplicate key 'limit'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a P limit=MAX\n", "line 3: P record: expected limit, got 'MAX'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a P hold_time=max\n", "line 3: P record: expected hold_time, got 'max'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a P 5\n", "line 3: P record: expected key=value, got '5'", EINVAL },
	/* S */
	{ "bqltrace 1\nqueue a\n1 a S\n", "line 3: S record: expected at least one key=value", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a S limit_min=1\n", "line 3: S record: unknown key 'limit_min'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a S limit=4294967296\n", "line 3: S record: limit 4294967296 out of range (max 4294967295)", ERANGE },
	{ "bqltrace 1\nqueue a\n1 a S stall_thrs=65536\n", "line 3: S record: stall_thrs 65536 out of range (max 65535)", ERANGE },
	{ "bqltrace 1\nqueue a\n1 a S stall_max=70000\n", "line 3: S record: stall_max 70000 out of range (max 65535)", ERANGE },
	{ "bqltrace 1\nqueue a\n1 a S num_queued=1 num_queued=1\n", "line 3: S record: duplicate key 'num_queued'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a S history=0,0,0\n",
	  "line 3: S record: history: expected four comma-separated hex words, got '0,0,0'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a S history=0,0,0,0,0\n",
	  "line 3: S record: history: expected four comma-separated hex words, got '0,0,0,0,0'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a S history=0,,0,0\n",
	  "line 3: S record: history: expected four comma-separated hex words, got '0,,0,0'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a S history=0,0,0,g\n",
	  "line 3: S record: history: expected four comma-separated hex words, got '0,0,0,g'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a S history=0,0,0,11112222333344445\n",
	  "line 3: S record: history: expected four comma-separated hex words, got '0,0,0,11112222333344445'", EINVAL },
	{ "bqltrace 1\nqueue a\n1 a S history=0,0,0,0,\n",
	  "line 3: S record: history: expected four comma-separated hex words, got '0,0,0,0,'", EINVAL },
};

static void test_errors(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct run r;

		feed(&r, bad[i].text, 0);
		if (r.rc != -bad[i].code || strcmp(r.e.msg, bad[i].msg))
			fail_msg("case %zu: rc %d msg '%s', want %d '%s'", i, r.rc,
				 r.e.msg, -bad[i].code, bad[i].msg);
		done(&r);
	}
}

/* an error at line N after good lines, and through CRLF */
static void test_error_line_crlf(void **state)
{
	struct run r;

	(void)state;
	feed(&r, "bqltrace 1\r\nqueue a\r\n# x\r\n1 a Q 1\r\n2 a C 1 nq=1\r\n3 a C 2x\r\n", 0);
	assert_int_equal(r.rc, -EINVAL);
	assert_int_equal(r.n, 3);
	assert_string_equal(r.e.msg, "line 6: C record: expected bytes, got '2x'");
	done(&r);
}

/*
 * The record lines of @text (after its header of @nhead lines) that
 * bqlt_scan() takes itself, with a clone after the header: the fast path.
 * @text is followed by FAST_PAD blank lines here.
 */
static unsigned int count_fast(const char *text, unsigned int nhead)
{
	size_t n = strlen(text);
	char *buf = malloc(n + FAST_PAD);
	const char *pos, *end;
	struct bqlt_parser p, *snap;
	struct bqlt_rec rec;
	struct bql_err e;
	struct bqlt_fast f[64];
	unsigned int i, fast = 0;

	assert_non_null(buf);
	memcpy(buf, text, n);
	memset(buf + n, '\n', FAST_PAD);
	pos = buf;
	end = buf + n + FAST_PAD;
	bqlt_parser_init(&p, 0);
	for (i = 0; i < nhead; i++)
		assert_true(bqlt_parse_next(&p, &pos, end, &rec, &e) >= 0);
	snap = bqlt_parser_clone(&p);
	assert_non_null(snap);
	while (pos < end) {
		unsigned int k, m = bqlt_scan(snap, &pos, end, f, 64);

		for (k = 0; k < m; k++)
			fast += f[k].kind != 0;
	}
	bqlt_parser_clone_free(snap);
	bqlt_parser_free(&p);
	free(buf);
	return fast;
}

/* @text in a buffer of exactly its length (no NUL, no padding) */
static void compare_exact(const char *text, unsigned int hz_override)
{
	size_t n = strlen(text);
	char *buf = malloc(n ? n : 1);

	assert_non_null(buf);
	memcpy(buf, text, n);
	compare_parsers(buf, n, hz_override);
	compare_scan(buf, n, hz_override, 2, 8);
	free(buf);
}

/*
 * The shapes of issue 14 take the fast path, with the records of the
 * strict parser: names of 1..128 bytes (and names that differ only in one
 * byte of their middle), a thousand queues, blanks and tabs, CRLF, all
 * the C keys, values at UINT32_MAX; their neighbours that the strict
 * parser refuses (UINT32_MAX + 1, 20-digit j=, a 129-byte name) still get
 * its message; and lines that end at the very end of the buffer.
 */
/*
 * Queues declared mid-trace, and records that name a queue before it is
 * declared (an error): scanning with a clone, with the parser shared
 * while it declares them, and with one that knows every queue already
 * gives the records and the error of the line-by-line parser. Many
 * queues: the shared parser outgrows its table while scans hold it.
 */
static void test_scan_shared(void **state)
{
	static const char *const tails[] = {
		"",						/* no error */
		"5000000 late:tx-0 Q 100\nqueue late:tx-0\n",	/* before it */
		"5000000 late:tx-long-name-0123456789abcdef C 1\n"
		"queue late:tx-long-name-0123456789abcdef\n",
	};
	size_t cap = 1u << 20, n, m, k;
	char *text = malloc(cap + FAST_PAD);
	unsigned int t, i;

	(void)state;
	assert_non_null(text);
	for (t = 0; t < sizeof(tails) / sizeof(tails[0]); t++) {
		n = (size_t)snprintf(text, cap, "bqltrace 1\nhz 1000\nqueue eth0:tx-0\n");
		for (i = 0; i < 3000; i++) {
			/* each queue declared just before its first record */
			n += (size_t)snprintf(text + n, cap - n,
					      "queue q%u\n%u q%u Q %u\n%u q%u C %u\n%u eth0:tx-0 Q 60\n",
					      i, 1000 + 3 * i, i, 60 + i % 1400, 1001 + 3 * i, i,
					      60 + i % 1400, 1002 + 3 * i);
			if (i == 1500)
				n += (size_t)snprintf(text + n, cap - n, "%s", tails[t]);
		}
		assert_true(n < cap);
		memset(text + n, '\n', FAST_PAD);
		m = n + FAST_PAD;
		for (k = 1; k <= 8; k *= 2) {
			compare_scan(text, m, 0, 3, (unsigned int)k);
			compare_scan(text, m, 0, 3000, (unsigned int)k);
		}
	}
	free(text);
}

/* a shared parser keeps the tables it outgrows until they are reclaimed */
static void test_share_reclaim(void **state)
{
	struct bqlt_parser p;
	struct bqlt_rec rec;
	struct bql_err e;
	char line[64];
	unsigned int i;

	(void)state;
	for (int shared = 0; shared < 2; shared++) {
		bqlt_parser_init(&p, 0);
		if (shared)
			bqlt_parser_share(&p);
		assert_int_equal(bqlt_parse_line(&p, "bqltrace 1\n", 11, &rec, &e), 0);
		/* tables of 64, 128, 256 slots: two outgrown */
		for (i = 0; i < 100; i++) {
			snprintf(line, sizeof(line), "queue q%u\n", i);
			assert_int_equal(bqlt_parse_line(&p, line, strlen(line), &rec, &e), 1);
		}
		assert_int_equal(bqlt_parser_gen(&p), shared ? 2 : 0);
		assert_int_equal(bqlt_parser_retired(&p), shared);
		bqlt_parser_reclaim(&p, 1);	/* a scan that began at gen 1 runs */
		assert_int_equal(bqlt_parser_retired(&p), shared);
		bqlt_parser_reclaim(&p, 2);
		assert_false(bqlt_parser_retired(&p));
		/* and every queue is still found */
		for (i = 0; i < 100; i++) {
			snprintf(line, sizeof(line), "%u q%u Q 1\n", 10 + i, i);
			assert_int_equal(bqlt_parse_line(&p, line, strlen(line), &rec, &e), 1);
			assert_int_equal(rec.queue, i);
		}
		bqlt_parser_free(&p);
	}
}

static void test_fast_shapes(void **state)
{
	static const char *const tails[] = {
		"\n", "\r\n", " \n", "\t\r\n", "  j=7\n", " j=18446744073709551615\n",
		"\tnq=4294967295 lo=4294967295  limit=4294967295\r\n",
		" limit=1 lo=2 nq=3 j=4 \n",
	};
	const size_t ntails = sizeof(tails) / sizeof(tails[0]);
	size_t cap = 4u << 20, n = 0, len, i, k;
	char *text = malloc(cap), name[BQLT_NAME_MAX + 2];
	unsigned int nq = 0, nrec = 0, nhead;

	(void)state;
	assert_non_null(text);
	n += (size_t)snprintf(text + n, cap - n, "bqltrace 1\nhz 1000\n");
	/* every length 1..128; for 25.. a twin that differs in byte 16 + len % 8 */
	for (len = 1; len <= BQLT_NAME_MAX; len++) {
		for (i = 0; i < len; i++)
			name[i] = (char)('a' + (i * 7 + len) % 26);
		name[len] = '\0';
		n += (size_t)snprintf(text + n, cap - n, "queue %s\n", name);
		nq++;
		if (len >= 25) {
			name[16 + len % 8] = '#';
			n += (size_t)snprintf(text + n, cap - n, "queue %s\n", name);
			nq++;
		}
	}
	/* a thousand short names: long probe chains in the hash */
	for (i = 0; i < 1000; i++, nq++)
		n += (size_t)snprintf(text + n, cap - n, "queue eth%zu:tx-%zu\n", i % 7, i);
	nhead = 2 + nq;
	/* records: every queue, every tail, Q and C */
	for (i = 0; i < nq; i++) {
		const char *qn = text;
		size_t qlen;
		unsigned int line = 0;

		/* the name of queue i: the (i + 3)th line's second token */
		for (qn = text; line < i + 2; qn++)
			line += *qn == '\n';
		qn += 6;
		qlen = strcspn(qn, "\n");
		for (k = 0; k < ntails; k++) {
			const char *kind = (k >= 6 || (i + k) % 2) ? "C" : "Q";

			assert_true(n + qlen + 128 + FAST_PAD < cap);
			n += (size_t)snprintf(text + n, cap - n, "%zu%s%.*s %s %s%s",
					      /* 13 digits, then 17, 18, 19 */
					      (k < 4 ? 1000000000000u : k == 4 ? 10000000000000000u :
					       k == 5 ? 100000000000000000u : 1000000000000000000u)
					      + i * 1000 + k,
					      k % 3 ? " " : " \t ", (int)qlen, qn, kind,
					      k == 7 ? "4294967295" : "1514", tails[k]);
			nrec++;
		}
	}
	text[n] = '\0';
	memset(text + n, '\n', FAST_PAD);	/* behind it: every line may be fast */
	compare_parsers(text, n + FAST_PAD, 0);
	compare_scan(text, n + FAST_PAD, 0, nhead, 8);
	compare_scan(text, n + FAST_PAD, 0, 3, 8);	/* a clone before the queues */
	text[n] = '\0';
	/* all but the 20-digit j= (left to the strict parser) */
	assert_int_equal(count_fast(text, nhead), nrec - nq);
	free(text);

	/* the strict parser's refusals, also at the end of the buffer */
	{
		static const char *const refused[] = {
			"1 a C 4294967296\n", "1 a C 1 nq=4294967296\n",
			"1 a C 1 lo=4294967296\n", "1 a C 1 limit=4294967296\n",
			"1 a Q 1 j=18446744073709551616\n", "1 a Q 1 j=100000000000000000000\n",
			"18446744073709551616 a Q 1\n", "1 a Q 1 nq=1\n", "1 a C 1 nq=1 nq=1\n",
			"1 a C 1 j=1 j=2\n", "1 a C 1 limit=\n", "1 a C 1 lim=1\n",
			"1 a C 1\r\r\n", "1 a C 1\rx\n", "1 a C 1 \r \n", "1 a\rC 1\n",
			"1 b Q 1\n", "1 a\x01 Q 1\n", "1 a Q 1\x01\n", "1 a CC 1\n",
			"1 a q 1\n", "1 a Q 0x1\n", "1 a Q 1 j=1x\n",
		};
		static const char *const good[] = {
			"1 a C 0\n", "1 a C 4294967295\n", "00000000000000000001 a Q 1\n",
			"18446744073709551615 a Q 1\n", "1 a Q 1 j=0000000000000000001\n",
			"1 a C 1 nq=4294967295 lo=0 limit=4294967295 j=18446744073709551615\n",
			"1\ta\tQ\t1\t\n", "1   a   C   1   nq=1   \r\n",
		};
		char t2[512], longname[BQLT_NAME_MAX + 2];
		size_t j;

		for (j = 0; j < sizeof(refused) / sizeof(refused[0]) + sizeof(good) / sizeof(good[0]); j++) {
			const char *l = j < sizeof(refused) / sizeof(refused[0]) ? refused[j] :
					good[j - sizeof(refused) / sizeof(refused[0])];
			int m = snprintf(t2, sizeof(t2), "bqltrace 1\nqueue a\n%s", l);

			check_next(t2, 0);
			compare_exact(t2, 0);
			/* and without the final newline, ending at the buffer's end */
			t2[m - 1] = '\0';
			compare_exact(t2, 0);
		}
		memset(longname, 'n', sizeof(longname));
		longname[BQLT_NAME_MAX + 1] = '\0';	/* 129 bytes */
		snprintf(t2, sizeof(t2), "bqltrace 1\nqueue a\n1 %s Q 1\n", longname);
		check_next(t2, 0);
		longname[BQLT_NAME_MAX] = '\0';		/* 128 bytes, not declared */
		snprintf(t2, sizeof(t2), "bqltrace 1\nqueue a\n1 %s Q 1\n", longname);
		check_next(t2, 0);
		snprintf(t2, sizeof(t2), "bqltrace 1\nqueue %s\n1 %s Q 1\n", longname, longname);
		check_next(t2, 0);
		compare_exact(t2, 0);
		assert_int_equal(count_fast(t2, 2), 1);
	}
}

/*
 * issue #37 class 2: queue names written with \xHH escapes (bqltrace(5)),
 * by the strict and the fast parser alike. A backslash not followed by x
 * and two hex digits is itself, as before escapes existed; a name that
 * holds a backslash is never matched by the fast path's byte compare, so
 * "a\x41" in a record is the queue aA, not the queue declared a\x5cx41.
 */
static void test_name_escapes(void **state)
{
	static const char text[] =
		"bqltrace 1\n"
		"queue \\x1b[31mRED:tx-0\n"		/* ESC */
		"queue a\\x5cx41:tx-0\n"		/* the bytes a\x41 */
		"queue aA:tx-0\n"
		"queue old\\q\\x4:tx-0\n"		/* no escape: as written */
		"queue sp\\x20c\\x3D\\xFF:tx-0\n"	/* blank, '=', 0xff; either case */
		"1 \\x1b[31mRED:tx-0 Q 100\n"
		"2 \\x1B\\x5b31mRED:tx-0 Q 100\n"	/* another spelling, the same queue */
		"3 a\\x41:tx-0 Q 100\n"		/* aA */
		"4 a\\x5cx41:tx-0 Q 100\n"		/* a\x41 */
		"5 old\\q\\x4:tx-0 Q 100\n"
		"6 sp\\x20c\\x3d\\xff:tx-0 Q 100\n"
		"7 aA:tx-0 Q 100\n";
	static const char *const names[] = {
		"\x1b[31mRED:tx-0", "a\\x41:tx-0", "aA:tx-0", "old\\q\\x4:tx-0", "sp c=\xff:tx-0",
	};
	static const int rec_queue[] = { 0, 0, 2, 1, 3, 4, 2 };
	struct bqlt_rec recs[16];
	struct bqlt_parser p;
	const char *pos, *end = text + sizeof(text) - 1;
	struct bql_err e;
	unsigned int n, k = 0;
	int err;

	(void)state;
	for (int pass = 0; pass < 2; pass++) {	/* line by line, then batched (fast path) */
		bqlt_parser_init(&p, 0);
		pos = text;
		k = 0;
		if (!pass) {
			while (pos < end) {
				const char *nl = strchr(pos, '\n');
				int ret = bqlt_parse_line(&p, pos, (size_t)(nl - pos) + 1, &recs[k], &e);

				if (ret < 0)
					fail_msg("%s", e.msg);
				k += ret == 1;
				pos = nl + 1;
			}
		} else {
			while (pos < end) {
				n = bqlt_parse_batch(&p, &pos, end, recs + k, 16 - k, &err, &e);
				if (err)
					fail_msg("%s", e.msg);
				k += n;
			}
		}
		assert_int_equal(k, 12);
		for (unsigned int i = 0; i < 5; i++) {
			assert_int_equal(recs[i].kind, BQLT_QUEUE);
			assert_string_equal(recs[i].qname, names[i]);
		}
		for (unsigned int i = 0; i < 7; i++) {
			assert_int_equal(recs[5 + i].kind, BQLT_Q);
			assert_int_equal(recs[5 + i].queue, rec_queue[i]);
		}
		bqlt_parser_free(&p);
	}
	/* refused: a NUL, a name too long once decoded, a raw control */
	{
		static const char *const refused[] = {
			"queue a\\x00b\n", "queue \x1b[31m\n", NULL,
		};
		char longname[BQLT_NAME_MAX * 4 + 16] = "queue ";

		for (int i = 0; i <= BQLT_NAME_MAX; i++)
			strcat(longname, "\\x41");
		strcat(longname, "\n");
		for (int i = 0; i < 3; i++) {
			const char *line = refused[i] ? refused[i] : longname;
			struct bqlt_rec rec;

			bqlt_parser_init(&p, 0);
			assert_int_equal(bqlt_parse_line(&p, "bqltrace 1\n", 11, &rec, &e), 0);
			assert_true(bqlt_parse_line(&p, line, strlen(line), &rec, &e) < 0);
			bqlt_parser_free(&p);
		}
		assert_non_null(strstr(e.msg, "longer than 128 bytes"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_name_escapes),
		cmocka_unit_test(test_crlf_comments_blanks),
		cmocka_unit_test(test_c_keys),
		cmocka_unit_test(test_queue_and_p_settings),
		cmocka_unit_test(test_s_keys),
		cmocka_unit_test(test_jiffies),
		cmocka_unit_test(test_time_per_queue),
		cmocka_unit_test(test_many_queues),
		cmocka_unit_test(test_numbers_and_names),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_error_line_crlf),
		cmocka_unit_test(test_next_random),
		cmocka_unit_test(test_jiffies_cache),
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_fast_shapes),
		cmocka_unit_test(test_scan_shared),
		cmocka_unit_test(test_share_reclaim),
	};

	int ret;

	/* every test twice: the fast path without SIMD, then with (if any) */
	bqlt_fast_simd(0);
	ret = cmocka_run_group_tests_name("fast path without SIMD", tests, NULL, NULL);
	if (bqlt_fast_simd(1))
		ret += cmocka_run_group_tests_name("fast path with SSE4.1", tests, NULL, NULL);
	return ret;
}
