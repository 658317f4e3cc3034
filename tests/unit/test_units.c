// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/io/units.c parsing: every byte and time suffix, the boundaries set
 * cares about (0, 2^32-1, DQL_MAX_LIMIT and one more, 2^64-1), overflow,
 * negatives and garbage, with messages that name the value.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dql/dql.h"
#include "lib/io/units.h"

struct ucase {
	const char *in;
	int ret;		/* 0, -EINVAL or -ERANGE */
	uint64_t want;		/* when ret == 0 */
	const char *msg;	/* substring of the message when ret != 0 */
};

#define OK(s, v)	{ s, 0, v, NULL }
#define BAD(s, m)	{ s, -EINVAL, 0, m }
#define BIG(s)		{ s, -ERANGE, 0, "too large" }

static void run_bytes(const struct ucase *c, size_t n, uint64_t max_word)
{
	for (size_t i = 0; i < n; i++) {
		struct bql_err e = { 0 };
		uint64_t v = 12345;
		int ret = units_parse_bytes("limit_max", c[i].in, max_word, &v, &e);

		if (ret != c[i].ret)
			fail_msg("'%s': ret %d, want %d (%s)", c[i].in, ret, c[i].ret, e.msg);
		if (!ret && v != c[i].want)
			fail_msg("'%s': %" PRIu64 ", want %" PRIu64, c[i].in, v, c[i].want);
		if (ret) {
			char named[64];

			/* the message names the key and the value as typed */
			snprintf(named, sizeof(named), "limit_max: invalid value '%s'", c[i].in);
			if (!strstr(e.msg, named) || !strstr(e.msg, c[i].msg))
				fail_msg("'%s': message '%s'", c[i].in, e.msg);
			if (v != 12345)
				fail_msg("'%s': output written on error", c[i].in);
		}
	}
}

static void test_bytes_suffixes(void **state)
{
	static const struct ucase c[] = {
		OK("0", 0), OK("1", 1), OK("1514", 1514),
		OK("1b", 1), OK("1B", 1),
		OK("64k", 65536), OK("64K", 65536), OK("64kb", 65536), OK("64KB", 65536),
		OK("64KiB", 65536), OK("64kib", 65536),
		OK("2m", 2097152), OK("2M", 2097152), OK("2MB", 2097152), OK("2MiB", 2097152),
		OK("1g", 1073741824), OK("1G", 1073741824), OK("1GB", 1073741824),
		OK("1GiB", 1073741824),
		OK("1t", 1099511627776ull), OK("1T", 1099511627776ull), OK("1TB", 1099511627776ull),
		OK("1TiB", 1099511627776ull),
		OK("1.5M", 1572864), OK("1.5K", 1536), OK("0.5K", 512), OK(".5K", 512),
		OK("1.75G", 1879048192), OK("+64K", 65536), OK("007", 7),
		OK("1.000000000000000000", 1),		/* 18 fraction digits */
	};

	(void)state;
	run_bytes(c, sizeof(c) / sizeof(c[0]), DQL_MAX_LIMIT);
}

static void test_bytes_boundaries(void **state)
{
	static const struct ucase c[] = {
		OK("4294967295", 4294967295ull),		/* 2^32-1 */
		OK("4294967296", 4294967296ull),
		OK("1879048192", DQL_MAX_LIMIT),
		OK("1879048193", DQL_MAX_LIMIT + 1ull),		/* plan_value() rejects it */
		OK("18446744073709551615", UINT64_MAX),	/* 2^64-1 */
		OK("16777215T", 16777215ull << 40),	/* whole multiples below 2^64 */
		OK("17179869183G", 17179869183ull << 30),
	};
	static const struct ucase big[] = {
		BIG("18446744073709551616"),			/* 2^64 */
		BIG("99999999999999999999999"),
		BIG("16777216T"),				/* 2^64 */
		BIG("17179869184G"),				/* 2^64 */
		BIG("18446744073709551615K"),
		/* 2^88 + 5^18 in units of 10^-18 TiB: wrapped 128 bits to 4 MiB */
		BIG("309485009.821348883422046681T"),
		BIG("18446744073709551615.999999999999999999T"),
	};

	(void)state;
	run_bytes(c, sizeof(c) / sizeof(c[0]), DQL_MAX_LIMIT);
	run_bytes(big, sizeof(big) / sizeof(big[0]), DQL_MAX_LIMIT);
}

static void test_bytes_max_word(void **state)
{
	static const struct ucase with[] = { OK("max", DQL_MAX_LIMIT) };
	static const struct ucase without[] = { BAD("max", "expected bytes") };
	static const struct ucase cased[] = { BAD("MAX", "or 'max'"), BAD("max1", "or 'max'") };

	(void)state;
	run_bytes(with, 1, DQL_MAX_LIMIT);
	run_bytes(without, 1, 0);
	run_bytes(cased, 2, DQL_MAX_LIMIT);
}

static void test_bytes_garbage(void **state)
{
	static const struct ucase c[] = {
		BAD("-1", "must not be negative"),
		BAD("-0", "must not be negative"),
		BAD("", "expected bytes"),
		BAD("K", "expected bytes"),
		BAD(".", "expected bytes"),
		BAD("+", "expected bytes"),
		BAD("++1", "expected bytes"),
		BAD("+-1", "expected bytes"),
		BAD(" 64K", "expected bytes"),
		BAD("abc", "expected bytes"),
		BAD("1x", "unknown unit"),
		BAD("1 K", "unknown unit"),
		BAD("1e3", "unknown unit"),
		BAD("64KiBB", "unknown unit"),
		BAD("1Ki", "unknown unit"),
		BAD("0x10", "unknown unit"),
		BAD("1,5M", "unknown unit"),
		BAD("1.1", "not a whole number of bytes"),
		BAD("0.3K", "not a whole number of bytes"),
		BAD("1.0000000000000000000", "expected bytes"),	/* 19 fraction digits */
		BAD("1..5K", "unknown unit"),
		BAD("1.5.K", "unknown unit"),
		BAD("1514\n", "unknown unit"),
	};

	(void)state;
	run_bytes(c, sizeof(c) / sizeof(c[0]), DQL_MAX_LIMIT);
}

static void run_ms(const struct ucase *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct bql_err e = { 0 };
		uint64_t v = 12345;
		int ret = units_parse_ms("hold_time", c[i].in, &v, &e);

		if (ret != c[i].ret)
			fail_msg("'%s': ret %d, want %d (%s)", c[i].in, ret, c[i].ret, e.msg);
		if (!ret && v != c[i].want)
			fail_msg("'%s': %" PRIu64 ", want %" PRIu64, c[i].in, v, c[i].want);
		if (ret) {
			char named[64];

			snprintf(named, sizeof(named), "hold_time: invalid value '%s'", c[i].in);
			if (!strstr(e.msg, named) || !strstr(e.msg, c[i].msg))
				fail_msg("'%s': message '%s'", c[i].in, e.msg);
		}
	}
}

static void test_ms(void **state)
{
	static const struct ucase c[] = {
		OK("0", 0), OK("250", 250), OK("250ms", 250), OK("1s", 1000), OK("1.5s", 1500),
		OK("0.001s", 1), OK("2000us", 2), OK("1min", 60000),
		OK("4294967295", 4294967295ull), OK("4294967296ms", 4294967296ull),
		OK("18446744073709551615", UINT64_MAX),
		BIG("18446744073709551616"),
		BIG("18446744073709552s"),
		BIG("307445734561825861min"),
		BAD("1500us", "not a whole number of milliseconds"),
		/* not whole, and far below 2^64: not "too large" (fuzz_units) */
		BAD("11844000619407369.50955161954770470", "not a whole number of milliseconds"),
		BAD("0.0005s", "not a whole number of milliseconds"),
		BAD("-5", "must not be negative"),
		BAD("-5ms", "must not be negative"),
		OK("+5ms", 5),
		BAD("", "expected a time"),
		BAD("ms", "expected a time"),
		BAD("5 ms", "unknown unit"),
		BAD("5MS", "unknown unit (use ms, s, us, min or h)"),
		/* tc's spellings, minutes and hours */
		OK("5sec", 5000), OK("2secs", 2000), OK("10msec", 10), OK("3msecs", 3),
		OK("2000usec", 2), OK("3000000nsec", 3), OK("2mins", 120000), OK("5h", 18000000),
		BAD("1nsec", "not a whole number of milliseconds"),
		BAD("5hr", "unknown unit"),
		BAD("5Sec", "unknown unit"),
		BAD("max", "expected a time"),
		/* 1m reads as one minute or a slip for 1ms: "min" is required */
		BAD("1m", "ambiguous unit 'm' (write 'min' for minutes, 'ms' for milliseconds)"),
	};

	(void)state;
	run_ms(c, sizeof(c) / sizeof(c[0]));
}

/* seconds into ns: s, ms, us and ns, exact, whole ns only */
static void test_sec_ns(void **state)
{
	static const struct {
		const char *in;
		int ret;
		uint64_t want;
		const char *msg;
	} c[] = {
		{ "1", 0, 1000000000ull, NULL },
		{ "0.5", 0, 500000000ull, NULL },
		{ "200ms", 0, 200000000ull, NULL },
		{ "50us", 0, 50000ull, NULL },
		{ "1.5us", 0, 1500ull, NULL },
		{ "800ns", 0, 800ull, NULL },
		{ "0ns", 0, 0, NULL },
		{ "0.5ns", -EINVAL, 0, "finer than a nanosecond" },
		{ "1.0001us", -EINVAL, 0, "finer than a nanosecond" },
		{ "5min", 0, 300000000000ull, NULL },
		{ "1h", 0, 3600000000000ull, NULL },
		{ "1.5sec", 0, 1500000000ull, NULL },
		{ "20msec", 0, 20000000ull, NULL },
		{ "50usecs", 0, 50000ull, NULL },
		{ "7nsec", 0, 7ull, NULL },
		{ "25h", -ERANGE, 0, "at most 86400 s" },
		{ "1m", -EINVAL, 0, "ambiguous unit 'm' (write 'min' for minutes" },
		{ "5d", -EINVAL, 0, "unknown unit (use s, ms, us, ns, min or h)" },
		{ "5MS", -EINVAL, 0, "unknown unit" },
		{ "-1", -EINVAL, 0, "must not be negative" },
		{ "+1", 0, 1000000000ull, NULL },
		{ "+-1", -EINVAL, 0, "expected seconds" },
		{ " 1", -EINVAL, 0, "expected seconds" },
		{ "1e0", -EINVAL, 0, "unknown unit" },
		{ "x", -EINVAL, 0, "expected seconds like 1, 0.5, 200ms or 50us" },
		/* at most one day: top -d 18446744073 overflowed */
		{ "86400", 0, 86400ull * 1000000000ull, NULL },
		{ "86400.000000001", -ERANGE, 0, "too large (at most 86400 s, one day)" },
		{ "18446744073", -ERANGE, 0, "at most 86400 s" },
		{ "18446744074", -ERANGE, 0, "too large" },
		{ "99999999999999999999999", -ERANGE, 0, "too large" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct bql_err e = { 0 };
		uint64_t v = 12345;
		int ret = units_parse_sec_ns("--duration", c[i].in, &v, &e);

		if (ret != c[i].ret)
			fail_msg("'%s': ret %d, want %d (%s)", c[i].in, ret, c[i].ret, e.msg);
		if (!ret && v != c[i].want)
			fail_msg("'%s': %" PRIu64 ", want %" PRIu64, c[i].in, v, c[i].want);
		if (ret && (!strstr(e.msg, "--duration") || !strstr(e.msg, c[i].msg)))
			fail_msg("'%s': message '%s'", c[i].in, e.msg);
	}
}

static void test_u64_strict(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(units_parse_u64("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(units_parse_u64("1879048192\n", &v), 0);
	assert_int_equal(v, DQL_MAX_LIMIT);
	assert_int_equal(units_parse_u64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(units_parse_u64("18446744073709551616", &v), -ERANGE);
	assert_int_equal(units_parse_u64("", &v), -EINVAL);
	assert_int_equal(units_parse_u64("+1", &v), -EINVAL);
	assert_int_equal(units_parse_u64("-1", &v), -EINVAL);
	assert_int_equal(units_parse_u64("1 ", &v), -EINVAL);
	assert_int_equal(units_parse_u64("1\n\n", &v), -EINVAL);
}

/* numbers typed on a command line: digits only, as the units refuse the rest */
static void test_arg_u64(void **state)
{
	static const char *const bad[] = {
		"", "+", "++1", "+-1", "+ 1", "-1", "-0", " 1", "1 ", "1\n", "+1\n", "0x10",
		"1e3", "1.0", "1,0", "\n",
	};
	uint64_t v = 7;

	(void)state;
	assert_int_equal(units_parse_arg_u64("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(units_parse_arg_u64("0064", &v), 0);
	assert_int_equal(v, 64);
	assert_int_equal(units_parse_arg_u64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(units_parse_arg_u64("+18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(units_parse_arg_u64("+0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(units_parse_arg_u64("18446744073709551616", &v), -ERANGE);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		if (units_parse_arg_u64(bad[i], &v) != -EINVAL || v != 7)
			fail_msg("'%s' accepted", bad[i]);
	}
}

static void test_fraction(void **state)
{
	static const struct {
		const char *in;
		double want;
	} ok[] = {
		{ "0", 0 }, { "1", 1 }, { "0.995", 0.995 }, { ".5", 0.5 }, { "5.", 5 },
		{ "0.0000000000000000000000001", 1e-25 }, { "007.5", 7.5 }, { "+0.5", 0.5 },
	};
	static const char *const bad[] = {
		"", ".", "+", "+.", "++0.5", "-0.5", "-0", " 0.5", "0.5 ", "0.5\n", "0x0.8", "0x1p-1",
		"1e-1", "5E-1", "nan", "NAN", "inf", "-inf", "infinity", "0.5.1", "0,5", "1/2",
	};
	double v;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = -1;
		if (units_parse_fraction(ok[i].in, &v) || v != ok[i].want)
			fail_msg("'%s': %g", ok[i].in, v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = -1;
		if (units_parse_fraction(bad[i], &v) != -EINVAL || v != -1)
			fail_msg("'%s' accepted", bad[i]);
	}
}

/* the printf the formatting functions stand for (lib/io/units.c before #40) */
static void ref_bytes(char *buf, size_t n, uint64_t v)
{
	static const char *const u[] = { "KiB", "MiB", "GiB", "TiB" };
	double x = (double)v;
	int i = -1;

	if (v < 1024) {
		snprintf(buf, n, "%" PRIu64 " B", v);
		return;
	}
	while (x >= 1024 && i < 3) {
		x /= 1024;
		i++;
	}
	snprintf(buf, n, x < 10 ? "%.2f %s" : x < 100 ? "%.1f %s" : "%.0f %s", x, u[i]);
}

static void ref_rate(char *buf, size_t n, double bps)
{
	double bits = bps * 8;

	if (bits < 1e3)
		snprintf(buf, n, "%.0f bit/s", bits);
	else if (bits < 1e6)
		snprintf(buf, n, "%.1f kbit/s", bits / 1e3);
	else if (bits < 1e9)
		snprintf(buf, n, "%.1f Mbit/s", bits / 1e6);
	else
		snprintf(buf, n, "%.2f Gbit/s", bits / 1e9);
}

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void check_bytes(uint64_t v)
{
	char a[64], b[64];

	ref_bytes(a, sizeof(a), v);
	units_fmt_bytes(b, sizeof(b), v);
	if (strcmp(a, b))
		fail_msg("bytes %" PRIu64 ": '%s', printf '%s'", v, b, a);
}

static void check_fixed(double x)
{
	char a[64], b[64];

	ref_rate(a, sizeof(a), x);
	units_fmt_rate(b, sizeof(b), x);
	if (strcmp(a, b))
		fail_msg("rate %.17g: '%s', printf '%s'", x, b, a);
	for (int d = 0; d <= 3; d++) {
		snprintf(a, sizeof(a), "%.*f/s", d, x);
		units_fmt_fixed(b, sizeof(b), x, d, "/s");
		if (strcmp(a, b))
			fail_msg("%%.%df of %.17g: '%s', printf '%s'", d, x, b, a);
	}
}

/* the formatting without printf writes what printf would, byte for byte */
static void test_fmt_as_printf(void **state)
{
	uint64_t s = 88172645463325252ull;
	char a[64], b[64];

	(void)state;
	for (uint64_t v = 0; v < 120000; v++)
		check_bytes(v);
	for (int k = 10; k < 64; k++)	/* around every power of two, ties */
		for (int64_t dv = -3000; dv <= 3000; dv++)
			check_bytes((1ull << k) + (uint64_t)dv);
	for (int k = 10; k <= 40; k += 10)
		for (uint64_t m = 1; m < 40000; m++)	/* x.xx5 ties and edges */
			check_bytes(m << (k - 3));
	check_bytes(UINT64_MAX);
	check_bytes(DQL_MAX_LIMIT);
	for (int i = 0; i < 150000; i++) {
		uint64_t v = rng_next(&s);

		check_bytes(v >> (v % 64));
		check_fixed((double)(v >> 11) / (double)(1ull << (v % 64)) * 1e3);
	}
	for (int i = 0; i < 40000; i++) {	/* decimal fractions: near ties */
		check_fixed((double)i / 1000.0);
		check_fixed((double)i * 0.05);
		check_fixed((double)i / 8.0 * 1e3);
		check_fixed((double)i * 1e4 / 8);
	}
	check_fixed(0.0);
	check_fixed(-0.0);
	check_fixed(-1.5);
	check_fixed(1e300);
	check_fixed(0.0 / 0.0);
	for (uint64_t v = 0; v < 100000; v += 7) {
		snprintf(a, sizeof(a), "%" PRIu64, v * 1000003);
		assert_string_equal(units_fmt_u64(b, sizeof(b), v * 1000003), a);
		snprintf(a, sizeof(a), v < 10000 || v % 1000 ? "%" PRIu64 " ms" : "%" PRIu64 " s",
			 v < 10000 || v % 1000 ? v : v / 1000);
		assert_string_equal(units_fmt_ms(b, sizeof(b), v), a);
	}
	assert_string_equal(units_fmt_u64(b, sizeof(b), UINT64_MAX), "18446744073709551615");
	assert_string_equal(units_fmt_ms(b, sizeof(b), UINT64_MAX), "18446744073709551615 ms");
	/* cut short as snprintf cuts */
	assert_string_equal(units_fmt_bytes(b, 4, 1536), "1.5");
	assert_int_equal(units_u64_len(b, 3, 12345, " B"), 7);
	assert_string_equal(b, "12");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes_suffixes),
		cmocka_unit_test(test_bytes_boundaries),
		cmocka_unit_test(test_bytes_max_word),
		cmocka_unit_test(test_bytes_garbage),
		cmocka_unit_test(test_ms),
		cmocka_unit_test(test_sec_ns),
		cmocka_unit_test(test_u64_strict),
		cmocka_unit_test(test_arg_u64),
		cmocka_unit_test(test_fraction),
		cmocka_unit_test(test_fmt_as_printf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
