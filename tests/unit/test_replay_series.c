// SPDX-License-Identifier: GPL-2.0-only
/*
 * replay --timeline's row writer (cmd/replay_series.c, included here with
 * cmd/replay_plot.c, which it calls): the digits eight at a time and the per-queue cache of escaped names must give
 * the bytes printf and lib/io/esc.h give: numbers at 0, every power of ten and
 * its neighbours, UINT32_MAX, UINT64_MAX and random; rows in CSV and JSON
 * lines for names needing CSV quoting, JSON escaping, C1 controls and
 * invalid UTF-8, the longest name, every event kind; the cache rebuilt when
 * a queue's name changes; nothing stored past 20 bytes of a number.
 * The digits kept from row to row (line / 100, t_ns / 1e8, each queue's
 * last limit) against printf over runs of rows that cross every carry,
 * go back, drop to one digit and come back, and random walks.
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

#include "cmd/replay_series.c"
#include "cmd/replay_plot.c"

/* cmd/cmd.c's, which the file calls on failures these tests do not reach */
int cmd_fail(const struct bql_ctx *c, const char *fmt, ...)
{
	(void)c;
	(void)fmt;
	return BQL_EXIT_FAIL;
}

void cmd_note(const struct bql_ctx *c, const char *fmt, ...)
{
	(void)c;
	(void)fmt;
}

int cmd_usage(const struct bql_ctx *c, const char *fmt, ...)
{
	(void)c;
	(void)fmt;
	return BQL_EXIT_USAGE;
}

/* cmd/replay_out.c's, which --plot's title calls: no what-if in these tests */
bool rx_whatif(const struct rx *x, const struct rfile *f)
{
	(void)x;
	(void)f;
	return false;
}

void rx_whatif_text(char *buf, size_t n, const struct rx *x, const struct rfile *f)
{
	(void)x;
	(void)f;
	if (n)
		buf[0] = '\0';
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void check_u64(uint64_t v)
{
	char want[32], got[48];
	char *end;

	snprintf(want, sizeof(want), "%" PRIu64, v);
	memset(got, '#', sizeof(got));
	end = put_u64(got, v);
	assert_int_equal(end - got, strlen(want));
	assert_memory_equal(got, want, strlen(want));
	for (size_t i = 20; i < sizeof(got); i++)
		assert_int_equal(got[i], '#');
	if (v <= UINT32_MAX) {
		memset(got, '#', sizeof(got));
		end = put_u32i(got, (uint32_t)v);
		assert_int_equal(end - got, strlen(want));
		assert_memory_equal(got, want, strlen(want));
		for (size_t i = 20; i < sizeof(got); i++)
			assert_int_equal(got[i], '#');
	}
}

static void test_numbers(void **state)
{
	uint64_t p = 1;

	(void)state;
	for (uint64_t v = 0; v < 100000; v++)
		check_u64(v);
	for (int k = 0; k < 20; k++, p *= 10) {
		check_u64(p - 1);
		check_u64(p);
		check_u64(p + 1);
		check_u64(p * 5);
	}
	check_u64(UINT32_MAX - 1);
	check_u64(UINT32_MAX);
	check_u64((uint64_t)UINT32_MAX + 1);
	check_u64(UINT64_MAX - 1);
	check_u64(UINT64_MAX);
	for (int i = 0; i < 300000; i++) {
		uint64_t v = next();

		check_u64(v >> (v & 63));
	}
}

/* the row as the writer before the cache and the eight-digit put made it */
static size_t old_row(char *out, size_t n, bool jsonl, const struct replay_event *ev)
{
	char esc[4 * BQLT_NAME_MAX + 1], name[8 * BQLT_NAME_MAX + 8];
	char k = kind_name[ev->kind];

	if (jsonl) {
		esc_json_str(name, sizeof(name), ev->qname);
		return (size_t)snprintf(out, n, "{\"line\":%" PRIu64 ",\"t_ns\":%" PRIu64
					",\"queue\":%s,\"event\":\"%c\",\"bytes\":%" PRIu32
					",\"inflight\":%" PRIu32 ",\"limit\":%" PRIu32 "}\n",
					ev->line, ev->t_ns, name, k, ev->bytes, ev->inflight,
					ev->limit);
	}
	esc_text(esc, sizeof(esc), ev->qname);
	if (strpbrk(esc, ",\"\r\n")) {
		char *p = name;

		*p++ = '"';
		for (const char *c = esc; *c; c++) {
			if (*c == '"')
				*p++ = '"';
			*p++ = *c;
		}
		*p++ = '"';
		*p = '\0';
	} else {
		strcpy(name, esc);
	}
	return (size_t)snprintf(out, n, "%" PRIu64 ",%" PRIu64 ",%s,%c,%" PRIu32 ",%" PRIu32
				",%" PRIu32 "\n", ev->line, ev->t_ns, name, k, ev->bytes,
				ev->inflight, ev->limit);
}

static char longest_q[BQLT_NAME_MAX + 1], longest_bad[BQLT_NAME_MAX + 1];

static const char *const names[] = {
	"eth0:tx-0", "a,b", "q\"uote", "\"", "x\\y", "c1\xc2\x85" "csi\xc2\x9b", "bad\xff\xfe",
	"cut\xe2\x82", "rlo\xe2\x80\xae", "utf8\xc3\xa9\xf0\x9f\x98\x80", "cr\rlf\n", "\x7f",
	"a", "exactly-thirty-one-bytes-long-x", "exactly-thirty-two-bytes-long-xy",
	longest_q, longest_bad,
};
#define NNAMES	(sizeof(names) / sizeof(names[0]))

static void row_check(struct rx *x, const struct replay_event *ev)
{
	char got[OBUF_ROW + 64], want[4 * OBUF_ROW];
	size_t n = old_row(want, sizeof(want), x->jsonl, ev);
	char *end;

	assert_true(n < OBUF_ROW);
	memset(got, '#', sizeof(got));
	end = timeline_row(x, got, ev);
	assert_int_equal(end - got, n);
	assert_memory_equal(got, want, n);
	for (size_t i = OBUF_ROW; i < sizeof(got); i++)
		assert_int_equal(got[i], '#');
}

static void test_rows(void **state)
{
	static const uint64_t u64s[] = { 0, 9, 10, 99999999, 100000000, 1000000000,
					 9999999999999999ull, 10000000000000000ull, UINT64_MAX };
	static const uint32_t u32s[] = { 0, 1, 60, 1514, 99999999, 100000000, UINT32_MAX };
	static const enum bqlt_kind kinds[] = { BQLT_Q, BQLT_C, BQLT_P, BQLT_S, BQLT_R };
	/* copies: a queue's name at another address rebuilds its cache entry */
	char copies[NNAMES][BQLT_NAME_MAX + 1];
	struct bql_ctx c;

	(void)state;
	memset(longest_q, '"', BQLT_NAME_MAX);
	memset(longest_bad, '\x9b', BQLT_NAME_MAX);
	for (size_t i = 0; i < NNAMES; i++)
		strcpy(copies[i], names[i]);
	bql_ctx_init(&c);
	for (int jsonl = 0; jsonl < 2; jsonl++) {
		struct rx x;

		rx_init(&x, &c);
		x.jsonl = jsonl;
		for (int round = 0; round < 3; round++) {
			for (size_t i = 0; i < 400; i++) {
				struct replay_event ev = {
					.line = u64s[i % 9], .t_ns = u64s[(i / 9) % 9],
					.queue = (unsigned int)(i % NNAMES),
					.kind = kinds[i % 5],
					.bytes = u32s[i % 7], .inflight = u32s[(i / 7) % 7],
					.limit = u32s[(i / 49) % 7],
				};

				ev.qname = round == 1 ? copies[ev.queue] : names[ev.queue];
				row_check(&x, &ev);
				ev.line = next();
				ev.t_ns = next() >> (i % 64);
				ev.bytes = (uint32_t)next();
				ev.inflight = (uint32_t)(next() >> (i % 32));
				ev.limit = (uint32_t)next() >> (i % 32);
				row_check(&x, &ev);
			}
		}
		/* a queue index far past the others grows the cache */
		{
			struct replay_event ev = {
				.line = 1, .t_ns = 2, .queue = 300000, .qname = "far",
				.kind = BQLT_C, .bytes = 3, .inflight = 4, .limit = 5,
			};

			row_check(&x, &ev);
			assert_true(x.tl_nnames > 300000);
		}
		rx_outputs_close(&x, false);
		assert_null(x.tl_names);
	}
}

/* rows of @n events from @gen(i) through one struct rx, each against printf */
static void row_run(struct rx *x, unsigned int n, void (*gen)(unsigned int, struct replay_event *))
{
	for (unsigned int i = 0; i < n; i++) {
		struct replay_event ev = { .kind = BQLT_C, .bytes = 1514, .inflight = 0, .limit = 0 };

		gen(i, &ev);
		ev.qname = names[ev.queue % NNAMES];
		row_check(x, &ev);
	}
}

static uint64_t base_line, base_t;

/* counting up across carries: line step 1, t_ns step 7 ms from a base */
static void gen_up(unsigned int i, struct replay_event *ev)
{
	ev->line = base_line + i;
	ev->t_ns = base_t + (uint64_t)i * 7000000;
	ev->queue = i % 3;
	ev->limit = i / 5 % 2 ? 1514 : 100000000u + i / 7;	/* repeats, per queue and not */
	ev->inflight = i;
}

/* going back and forth: the cache must never hold stale digits */
static void gen_zigzag(unsigned int i, struct replay_event *ev)
{
	static const uint64_t v[] = { 0, 99, 100, 199, 5, 12345678901ull, 99999999,
				      100000000, 199999999, 200000000, 1, UINT64_MAX,
				      UINT64_MAX - 100, 9999999999999999999ull, 10 };
	static const uint32_t l[] = { 0, 9, 10, UINT32_MAX, 0, 100000000, 99999999, 1 };

	ev->line = v[i % 15];
	ev->t_ns = v[(i * 7 + 3) % 15];
	ev->queue = i % 2;
	ev->limit = l[i % 8];
}

static void gen_random(unsigned int i, struct replay_event *ev)
{
	uint64_t r = next();

	(void)i;
	/* small random steps, sometimes a jump */
	base_line += r & 0xff;
	base_t += (r >> 8) & 0xffffff;
	if (!(r >> 60))
		base_t = next() >> (r & 63);
	ev->line = base_line;
	ev->t_ns = base_t;
	ev->queue = (unsigned int)(r >> 32) % 5;
	ev->limit = (uint32_t)(r >> 40) % 4 ? 3028 : (uint32_t)next() >> (r & 31);
	ev->bytes = (uint32_t)next();
}

static void test_row_sequences(void **state)
{
	static const uint64_t lines[] = { 0, 1, 95, 9990, 99999950, 18446744073709551000ull };
	static const uint64_t ts[] = { 0, 50000000, 99999999990ull, 1700000000000000000ull,
				       18446744073700000000ull };
	struct bql_ctx c;

	(void)state;
	bql_ctx_init(&c);
	for (int jsonl = 0; jsonl < 2; jsonl++) {
		struct rx x;

		rx_init(&x, &c);
		x.jsonl = jsonl;
		for (size_t a = 0; a < sizeof(lines) / sizeof(lines[0]); a++)
			for (size_t b = 0; b < sizeof(ts) / sizeof(ts[0]); b++) {
				base_line = lines[a];
				base_t = ts[b];
				row_run(&x, lines[a] > UINT64_MAX - 1000 || ts[b] > UINT64_MAX / 2 ?
					500 : 3000, gen_up);
			}
		row_run(&x, 3000, gen_zigzag);
		base_line = 0;
		base_t = 1000000000;
		row_run(&x, 200000, gen_random);
		rx_outputs_close(&x, false);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_row_sequences),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
