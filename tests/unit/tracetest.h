/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers of the unit tests of the bqltrace v1 parser (test_trace.c,
 * test_trace_fast.c): every way of parsing a text (line by line,
 * bqlt_parse_next(), bqlt_scan() cloned, shared or ahead, in batches of
 * any size) must give the same records and errors.
 */
#ifndef BQLTOOL_TESTS_UNIT_TRACETEST_H
#define BQLTOOL_TESTS_UNIT_TRACETEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dql/dql.h"
#include "dql/trace.h"

#define FAST_PAD 200	/* blank lines after a text: every line may take the fast path */

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

/*
 * Run every test twice: the fast path without SIMD, then with (if any);
 * the number of tests failed.
 */
static int run_without_and_with_simd(const struct CMUnitTest *tests, size_t n)
{
	int ret;

	bqlt_fast_simd(0);
	ret = _cmocka_run_group_tests("fast path without SIMD", tests, n, NULL, NULL);
	if (bqlt_fast_simd(1))
		ret += _cmocka_run_group_tests("fast path with SSE4.1", tests, n, NULL, NULL);
	return ret;
}

#endif
