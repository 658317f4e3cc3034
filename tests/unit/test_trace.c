// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the bqltrace v1 parser (dql/trace.c, trace_scan.c,
 * trace_fast.c): the records and settings of each kind of line, jiffies,
 * queues, numbers and names, and the errors. The fast paths (random
 * lines, the jiffies cache, batches, shared scans, escaped names) are in
 * test_trace_fast.c; the shared helpers in tracetest.h.
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
#include "dql/trace.h"
#include "tracetest.h"

#define MAXREC 64

struct run {
	struct bqlt_parser p;
	struct bqlt_rec rec[MAXREC];
	int n;			/* records produced */
	int rc;			/* first error, or 0 */
	struct bql_err e;
};

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
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
	};

	return run_without_and_with_simd(tests, sizeof(tests) / sizeof(tests[0]));
}
