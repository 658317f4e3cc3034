// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the bqltrace v1 parser's fast paths (dql/trace_scan.c,
 * trace_fast.c): random lines, the jiffies cache, batches, bqlt_scan()
 * with shared and reclaimed clones, the shapes of line the fast path
 * takes, and escaped queue names; every way of parsing must agree with
 * bqlt_parse_line() (dql/trace.c). The records and errors of the line
 * parser are in test_trace.c.
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
		cmocka_unit_test(test_name_escapes),
		cmocka_unit_test(test_next_random),
		cmocka_unit_test(test_jiffies_cache),
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_fast_shapes),
		cmocka_unit_test(test_scan_shared),
		cmocka_unit_test(test_share_reclaim),
	};

	return run_without_and_with_simd(tests, sizeof(tests) / sizeof(tests[0]));
}
