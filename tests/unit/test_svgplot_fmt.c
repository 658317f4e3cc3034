// SPDX-License-Identifier: GPL-2.0-only
/*
 * The numbers lib/io/svgplot_draw.c (included here) writes without printf must be
 * printf's bytes: fmt_f2() against "%.2f" (exact ties to even, their
 * neighbours one ulp away, 0, -0, tiny, subnormal, the 1e13 edge, huge,
 * inf, NaN, and millions of random values of every magnitude), fmt_num()
 * against the "%.15g" then "%.17g" it replaces (integers, nanoseconds as
 * seconds, their neighbours, random doubles); and in a whole chart of
 * replay's kind, every number of its polylines as printf prints it.
 */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/io/svgplot_draw.c"

static uint64_t rng = 0x2545F4914F6CDD1Dull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* a double from 64 random bits: any finite value, sign and magnitude */
static double any_double(void)
{
	uint64_t b = next();
	double v;

	memcpy(&v, &b, sizeof(v));
	return v;
}

static unsigned long nf2, nnum;

static void check_f2(double v)
{
	char want[400], got[400 + 64];
	char *end;

	snprintf(want, sizeof(want), "%.2f", v);
	memset(got, '#', sizeof(got));
	end = fmt_f2(got, v);
	*end = '\0';
	if (strcmp(got, want))
		fail_msg("%%.2f of %a: printf \"%s\", fmt_f2 \"%s\"", v, want, got);
	nf2++;
}

/* lib/io/svgplot.c's put_num() before it was made without printf */
static void ref_num(char *buf, size_t n, double v)
{
	snprintf(buf, n, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, n, "%.17g", v);
}

static void check_num(double v)
{
	char want[64], got[64 + 64];
	char *end;

	ref_num(want, sizeof(want), v);
	memset(got, '#', sizeof(got));
	end = fmt_num(got, v);
	*end = '\0';
	if (strcmp(got, want))
		fail_msg("number %a: printf \"%s\", fmt_num \"%s\"", v, want, got);
	nnum++;
}

static void check_f2_both(double v)
{
	check_f2(v);
	check_f2(-v);
	check_f2(nextafter(v, 0));
	check_f2(nextafter(v, INFINITY));
}

static void test_f2(void **state)
{
	static const double edge[] = {
		0, 0.001, 0.004999, 0.005, 0.0050000001, 0.015, 0.025, 0.125, 0.375,
		0.5, 0.995, 0.9951, 1, 9.995, 99.995, 479.995, 1e-300, 4.9e-324,
		DBL_MIN, 1e12, 9999999999999.99, 9999999999999.995, 1e13, 1.0000000000001e13,
		1e15, 1e300, DBL_MAX, 4503599627370496.0, 123456.785,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		check_f2_both(edge[i]);
	check_f2(INFINITY);
	check_f2(-INFINITY);
	check_f2(NAN);
	check_f2(-NAN);
	/* exact ties (a multiple of 1/8 ending in 5 at the third decimal) */
	for (int k = 0; k < 200000; k++)
		check_f2_both(k / 8.0);
	/* near ties: the double nearest to k + 0.005 and its neighbours */
	for (int k = 0; k < 100000; k++)
		check_f2_both((k * 100 + 0.5) / 100.0);
	/* the pixel range, all precisions */
	for (int i = 0; i < 500000; i++)
		check_f2((double)(next() % 200000000) / 1e5 - 500);
	for (int i = 0; i < 500000; i++) {
		double v = any_double();

		check_f2(ldexp(frexp(v, &(int){ 0 }), (int)(next() % 100) - 50));
	}
	for (int i = 0; i < 200000; i++)
		check_f2(any_double());
	print_message("fmt_f2: %lu values\n", nf2);
}

static void test_num(void **state)
{
	(void)state;
	check_num(0);
	check_num(-0.0);
	check_num(1);
	check_num(-1);
	check_num(1e15 - 1);
	check_num(1e15);
	check_num(-1e15);
	check_num(9007199254740993.0);
	check_num(1e-4);
	check_num(nextafter(1e-4, 0));
	check_num(0.99999e-4);
	check_num(1e6);
	check_num(nextafter(1e6, 0));
	check_num(999999.999999999);
	check_num(0.1);
	check_num(1.0 / 3);
	check_num(INFINITY);
	check_num(NAN);
	check_num(DBL_MAX);
	check_num(4.9e-324);
	/* integers (bytes) */
	for (int i = 0; i < 150000; i++) {
		uint64_t n = next() >> (next() % 64);

		check_num((double)n);
		check_num(-(double)n);
	}
	/* seconds from nanoseconds, as replay makes them, and one ulp off */
	for (int i = 0; i < 300000; i++) {
		uint64_t n = next() >> (next() % 64);
		double v = (double)n / 1e9;

		check_num(v);
		check_num(-v);
		if (i % 4 == 0) {
			check_num(nextafter(v, 0));
			check_num(nextafter(v, INFINITY));
		}
	}
	for (int n = 0; n < 200000; n++)
		check_num((double)n / 1e9);
	/* anything */
	for (int i = 0; i < 200000; i++) {
		double v = any_double();

		check_num(v);
		check_num(ldexp(frexp(v, &(int){ 0 }), (int)(next() % 100) - 50));
	}
	print_message("fmt_num: %lu values\n", nnum);
}

/* replay's kind of chart: a step series of bytes over seconds, and a dashed one */
static void test_chart(void **state)
{
	struct svgplot *p = svgplot_new("t", "time", "bytes");
	char *buf = NULL, *s;
	size_t len = 0;
	struct bql_err e = { 0 };
	FILE *f;
	int a, b, g;

	(void)state;
	assert_non_null(p);
	svgplot_set_y_bytes(p, true);
	g = svgplot_group(p, "eth0:tx-0", 0);
	a = svgplot_series(p, g, SVGPLOT_LINE, "eth0:tx-0 limit");
	b = svgplot_series(p, g, SVGPLOT_REF, "eth0:tx-0 recorded limit");
	for (int i = 0; i < 100000; i++) {
		double t = (double)(1000000000ull + 30011ull * (uint64_t)i - 1000000000ull) / 1e9;

		svgplot_point(p, a, t, (double)(1514 * (i % 37) + i / 3));
		svgplot_point(p, b, t, (double)(next() % 100000));
	}
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(svgplot_write(p, f, &e), 0);
	fclose(f);
	/* every number of points= is printf's "%.2f" of itself, of data-xy= its %.15g/%.17g */
	s = buf;
	{
		for (int i = 0; i < 2; i++) {
			char *pts = strstr(s, " points=\""), *xy, *end;

			assert_non_null(pts);
			xy = strstr(pts, " data-xy=\"");
			assert_non_null(xy);
			end = strchr(xy + 10, '"');
			for (char *c = pts + 9; *c != '"'; ) {
				char *e2;
				double v = strtod(c, &e2), back;
				char tmp[400];

				assert_true(e2 > c);
				snprintf(tmp, sizeof(tmp), "%.2f", v);
				back = strtod(tmp, NULL);
				assert_true(back == v);
				assert_memory_equal(c, tmp, strlen(tmp));
				c = e2;
				if (*c == ',' || *c == ' ')
					c++;
			}
			for (char *c = xy + 10; c < end; ) {
				char *e2;
				double v = strtod(c, &e2);
				char tmp[64];

				assert_true(e2 > c);
				ref_num(tmp, sizeof(tmp), v);
				assert_int_equal((size_t)(e2 - c), strlen(tmp));
				assert_memory_equal(c, tmp, strlen(tmp));
				c = e2;
				if (*c == ',' || *c == ' ')
					c++;
			}
			s = end;
		}
	}
	free(buf);
	svgplot_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_f2),
		cmocka_unit_test(test_num),
		cmocka_unit_test(test_chart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
