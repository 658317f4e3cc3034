// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the SVG chart writer (lib/io/svgplot.c): well-formed XML
 * (xmllint when installed), escaping, and downsampling that keeps every
 * series' extremes as exact points of its polyline.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/io/svgplot.h"

/* The whole document of @p as a malloc'd string. */
static char *render(struct svgplot *p)
{
	struct bql_err e = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(svgplot_write(p, f, &e), 0);
	fclose(f);
	return buf;
}

struct poly {
	double *x, *y;
	size_t n;
};

/* The @attr ("points" or "data-xy") of the @idx-th series polyline in @svg. */
static void parse_attr(const char *svg, int idx, const char *attr, struct poly *out)
{
	const char *s = svg, *end;
	char key[32];
	size_t cap = 1024;

	for (int i = 0; i <= idx; i++) {
		s = strstr(s, "<polyline class=\"series\"");
		assert_non_null(s);
		s++;
	}
	snprintf(key, sizeof(key), " %s=\"", attr);
	s = strstr(s, key);
	assert_non_null(s);
	s += strlen(key);
	end = strchr(s, '"');
	assert_non_null(end);
	memset(out, 0, sizeof(*out));
	out->x = malloc(cap * sizeof(double));
	out->y = malloc(cap * sizeof(double));
	while (s < end) {
		char *e1, *e2;
		double x = strtod(s, &e1), y;

		assert_int_equal(*e1, ',');
		y = strtod(e1 + 1, &e2);
		assert_true(e2 > e1 + 1);
		if (out->n == cap) {
			cap *= 2;
			out->x = realloc(out->x, cap * sizeof(double));
			out->y = realloc(out->y, cap * sizeof(double));
		}
		out->x[out->n] = x;
		out->y[out->n++] = y;
		s = e2;
		while (*s == ' ')
			s++;
	}
}

/* data-xy: the plotted points in data units */
static void parse_poly(const char *svg, int idx, struct poly *out)
{
	parse_attr(svg, idx, "data-xy", out);
}

static void poly_free(struct poly *p)
{
	free(p->x);
	free(p->y);
}

/* Run xmllint --noout over @svg if xmllint is installed. */
static void xml_check(const char *svg)
{
	char path[] = "/tmp/test_svgplot_XXXXXX", cmd[128];
	int fd;

	if (system("command -v xmllint >/dev/null 2>&1")) {
		fprintf(stderr, "# xmllint not installed: well-formedness not checked\n");
		return;
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, svg, strlen(svg)), (ssize_t)strlen(svg));
	close(fd);
	snprintf(cmd, sizeof(cmd), "xmllint --noout %s", path);
	assert_int_equal(system(cmd), 0);
	unlink(path);
}

static void test_small_exact(void **state)
{
	struct svgplot *p = svgplot_new("limit", "time (s)", "bytes");
	struct poly pl;
	char *svg;
	int a, b;

	(void)state;
	assert_non_null(p);
	a = svgplot_series(p, "eth0:tx-0 limit");
	b = svgplot_series(p, "eth0:tx-0 inflight");
	assert_int_equal(a, 0);
	assert_int_equal(b, 1);
	svgplot_series_flags(p, b, SVGPLOT_DASHED);
	svgplot_point(p, a, 0, 3028);
	svgplot_point(p, a, 0.5, 4542);
	svgplot_point(p, a, 1.25, 1514);
	svgplot_point(p, b, 0, 0);
	svgplot_point(p, b, 1.25, 1514);
	assert_int_equal(svgplot_npoints(p, a), 3);
	svg = render(p);
	assert_non_null(strstr(svg, "<?xml version=\"1.0\""));
	assert_non_null(strstr(svg, "xmlns=\"http://www.w3.org/2000/svg\""));
	assert_non_null(strstr(svg, "stroke-dasharray"));
	assert_non_null(strstr(svg, ">eth0:tx-0 inflight</text>"));	/* legend */
	assert_non_null(strstr(svg, ">time (s)</text>"));
	parse_poly(svg, 0, &pl);
	assert_int_equal(pl.n, 3);
	assert_true(pl.x[1] == 0.5 && pl.y[1] == 4542);
	assert_true(pl.x[2] == 1.25 && pl.y[2] == 1514);
	poly_free(&pl);
	xml_check(svg);
	free(svg);
	svgplot_free(p);
}

static void test_escaping(void **state)
{
	struct svgplot *p = svgplot_new("a<b & \"c\" 'd'", "x>y", "\x01" "ctl");
	char *svg;
	int s;

	(void)state;
	s = svgplot_series(p, "q&<>");
	svgplot_point(p, s, 1, 1);
	svg = render(p);
	assert_non_null(strstr(svg, "<title>a&lt;b &amp; &quot;c&quot; &apos;d&apos;</title>"));
	assert_non_null(strstr(svg, ">x&gt;y</text>"));
	/* controls in their escaped form, as on a terminal (lib/io/esc.h) */
	assert_non_null(strstr(svg, ">\\x01ctl</text>"));
	assert_non_null(strstr(svg, "data-name=\"q&amp;&lt;&gt;\""));
	assert_null(strstr(svg, "q&<>"));
	xml_check(svg);
	free(svg);
	svgplot_free(p);

	/* C1 controls and invalid UTF-8 would make the file invalid or unsafe */
	p = svgplot_new("t\xc2\x9b" "x\xff", NULL, NULL);
	s = svgplot_series(p, "\x1b[2J");
	svgplot_point(p, s, 1, 1);
	svg = render(p);
	assert_non_null(strstr(svg, "<title>t\\u009bx\\xff</title>"));
	assert_non_null(strstr(svg, "data-name=\"\\x1b[2J\""));
	xml_check(svg);
	free(svg);
	svgplot_free(p);
}

/* xorshift: reproducible noise without libc's rand() state */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * A million points per series: the polyline stays within
 * SVGPLOT_MAX_POINTS, and its lowest and highest y are exactly the data's,
 * as are its first and last points.
 */
static void downsample_case(unsigned int flags, uint64_t npts)
{
	struct svgplot *p = svgplot_new("big", "time (s)", "bytes");
	double lo = INFINITY, hi = -INFINITY, plo = INFINITY, phi = -INFINITY;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	int s = svgplot_series(p, "noise"), t = svgplot_series(p, "ramp");
	double top = NAN, bottom = NAN;
	struct poly pl, px;
	char *svg;

	svgplot_series_flags(p, s, flags);
	for (uint64_t i = 0; i < npts; i++) {
		/* bytes-like values with rare spikes and dips */
		double y = (double)(1514 + rnd(&seed) % 60000);

		if (i == npts / 3)
			y = 1879048192;	/* DQL_MAX_LIMIT: one spike */
		if (i == npts / 2 + 7)
			y = 0;		/* one dip */
		lo = fmin(lo, y);
		hi = fmax(hi, y);
		svgplot_point(p, s, (double)i * 1e-6, y);
		svgplot_point(p, t, (double)i * 1e-6, (double)i);
	}
	assert_true(svgplot_count(p, s) == npts);
	assert_true(svgplot_npoints(p, s) <= SVGPLOT_MAX_POINTS);
	assert_true(svgplot_npoints(p, s) > SVGPLOT_MAX_POINTS / 4);
	svg = render(p);
	parse_poly(svg, 0, &pl);
	assert_int_equal(pl.n, svgplot_npoints(p, s));
	for (size_t i = 0; i < pl.n; i++) {
		plo = fmin(plo, pl.y[i]);
		phi = fmax(phi, pl.y[i]);
		if (i)
			assert_true(pl.x[i] >= pl.x[i - 1]);	/* arrival order kept */
	}
	assert_true(plo == lo);
	assert_true(phi == hi);
	assert_true(pl.x[0] == 0);
	assert_true(pl.x[pl.n - 1] == (double)(npts - 1) * 1e-6);
	/* and in pixels: the data maximum is the top-most vertex, the minimum
	 * the lowest (step corners sit between data points) */
	parse_attr(svg, 0, "points", &px);
	assert_int_equal(px.n, (flags & SVGPLOT_STEP) ? 2 * pl.n - 1 : pl.n);
	for (size_t i = 0; i < pl.n; i++) {
		size_t j = (flags & SVGPLOT_STEP) ? 2 * i : i;

		if (pl.y[i] == hi)
			top = px.y[j];
		if (pl.y[i] == lo)
			bottom = px.y[j];
	}
	for (size_t j = 0; j < px.n; j++) {
		assert_true(px.y[j] >= top);
		assert_true(px.y[j] <= bottom);
	}
	assert_true(top < bottom);
	poly_free(&px);
	poly_free(&pl);
	parse_poly(svg, 1, &pl);
	assert_true(pl.y[0] == 0 && pl.y[pl.n - 1] == (double)(npts - 1));
	poly_free(&pl);
	xml_check(svg);
	free(svg);
	svgplot_free(p);
}

static void test_downsample(void **state)
{
	(void)state;
	downsample_case(0, 1000000);
	downsample_case(0, SVGPLOT_BUCKETS * 3 + 1);	/* right after a merge */
}

static void test_downsample_step(void **state)
{
	(void)state;
	downsample_case(SVGPLOT_STEP | SVGPLOT_DASHED, 300000);
}

static void test_empty_and_nan(void **state)
{
	struct svgplot *p = svgplot_new(NULL, NULL, NULL);
	char *svg;
	int s;

	(void)state;
	svg = render(p);
	assert_non_null(strstr(svg, ">no data</text>"));
	assert_null(strstr(svg, "<polyline"));
	xml_check(svg);
	free(svg);
	s = svgplot_series(p, "flat");
	svgplot_point(p, s, NAN, 1);
	svgplot_point(p, s, 1, INFINITY);
	svgplot_point(p, 7, 1, 1);	/* no such series */
	assert_true(svgplot_count(p, s) == 0);
	svgplot_point(p, s, 5, 42);	/* one point: a degenerate range */
	svg = render(p);
	assert_null(strstr(svg, ">no data</text>"));
	assert_non_null(strstr(svg, "<polyline"));
	xml_check(svg);
	free(svg);
	svgplot_free(p);
}

static void test_ticks(void **state)
{
	struct svgplot *p = svgplot_new("t", "time (s)", "bytes");
	char *svg;
	int s;

	(void)state;
	s = svgplot_series(p, "limit");
	svgplot_point(p, s, 0, 3000);
	svgplot_point(p, s, 2.5, 58000);
	svg = render(p);
	/* y from 0 with thousands as k; x in plain decimals */
	assert_non_null(strstr(svg, ">0</text>"));
	assert_non_null(strstr(svg, ">60k</text>"));
	assert_non_null(strstr(svg, ">2.5</text>"));
	assert_null(strstr(svg, ">-0"));
	free(svg);
	svgplot_free(p);

	/* without the zero base the axis hugs the data */
	p = svgplot_new("t", "time (s)", "bytes");
	s = svgplot_series(p, "limit");
	svgplot_point(p, s, 0, 50000);
	svgplot_point(p, s, 1, 58000);
	svgplot_set_y_zero(p, false);
	svgplot_set_size(p, 10, 10);	/* clamped to the minimum */
	svg = render(p);
	assert_non_null(strstr(svg, "width=\"320\""));
	assert_non_null(strstr(svg, ">50k</text>"));
	assert_null(strstr(svg, ">0</text>"));
	assert_non_null(strstr(svg, "data-xy=\"0,50000 1,58000\""));
	xml_check(svg);
	free(svg);
	svgplot_free(p);

	/* bytes: 1024-based ticks in KiB, as everything else prints bytes */
	p = svgplot_new("t", "time (s)", "bytes");
	s = svgplot_series(p, "limit");
	svgplot_point(p, s, 0, 3000);
	svgplot_point(p, s, 1, 58000);
	svgplot_set_y_bytes(p, true);
	svg = render(p);
	assert_non_null(strstr(svg, ">10 KiB</text>"));
	assert_non_null(strstr(svg, ">60 KiB</text>"));
	assert_null(strstr(svg, "k</text>"));
	assert_non_null(strstr(svg, "data-xy=\"0,3000 1,58000\""));	/* data stays exact */
	xml_check(svg);
	free(svg);
	svgplot_free(p);
}

/* the chosen series are kept, renumbered; the title can change at the end */
static void test_keep(void **state)
{
	struct svgplot *p = svgplot_new("t", NULL, NULL);
	bool keep[4] = { false, true, false, true };
	char name[8], *svg;

	(void)state;
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		assert_int_equal(svgplot_series(p, name), i);
		svgplot_point(p, i, 1, i + 1);
	}
	svgplot_keep(p, keep);
	assert_int_equal(svgplot_count(p, 0), 1);
	assert_int_equal(svgplot_count(p, 1), 1);
	assert_int_equal(svgplot_count(p, 2), 0);
	assert_int_equal(svgplot_set_title(p, "new <title>"), 0);
	svg = render(p);
	assert_null(strstr(svg, "data-name=\"s0\""));
	assert_non_null(strstr(svg, "data-name=\"s1\""));
	assert_null(strstr(svg, "data-name=\"s2\""));
	assert_non_null(strstr(svg, "data-name=\"s3\""));
	assert_non_null(strstr(svg, "<title>new &lt;title&gt;</title>"));
	xml_check(svg);
	free(svg);
	svgplot_free(p);
}

static void test_many_series_legend(void **state)
{
	struct svgplot *p = svgplot_new("64 queues", "time (s)", "bytes");
	char name[32], *svg, *h;

	(void)state;
	for (int i = 0; i < 64; i++) {
		snprintf(name, sizeof(name), "ens1f0:tx-%d limit", i);
		assert_int_equal(svgplot_series(p, name), i);
		svgplot_point(p, i, 0, i);
		svgplot_point(p, i, 1, 2 * i);
	}
	svg = render(p);
	/* the canvas grows so that every legend line fits */
	h = strstr(svg, "height=\"");
	assert_non_null(h);
	assert_true(atoi(h + 8) >= 64 * 18);
	assert_non_null(strstr(svg, ">ens1f0:tx-63 limit</text>"));
	xml_check(svg);
	free(svg);
	svgplot_free(p);
}


/*
 * Bursts that drain to 0, then an idle gap, many times over and far more
 * points than the buckets hold: across every gap the line must hold the
 * last value before it (0), never the burst's maximum. Before the gap's
 * ends were kept, a bucket spanning a gap kept the maximum and the next
 * burst's values, and drew the maximum across the idle time.
 */
static void test_bursts_gaps(void **state)
{
	struct svgplot *p = svgplot_new("bursts", "time (s)", "bytes");
	int s = svgplot_series(p, "inflight");
	uint64_t seed = 12345;
	struct poly pl;
	double t = 0;
	size_t gaps = 0;
	char *svg;

	(void)state;
	svgplot_series_flags(p, s, SVGPLOT_STEP);
	for (int burst = 0; burst < 40; burst++) {
		/*
		 * a burst that empties now and then (0s the bucket's minimum may
		 * keep), peaks just before it drains to exactly 0
		 */
		for (int k = 0; k < 700; k++) {
			t += 1e-6;
			svgplot_point(p, s, t, k % 50 == 0 ? 0 : (double)(1000 + rnd(&seed) % 56000));
		}
		t += 1e-6;
		svgplot_point(p, s, t, 60000);
		t += 1e-6;
		svgplot_point(p, s, t, 0);
		t += 15e-3;	/* idle */
	}
	svg = render(p);
	parse_poly(svg, 0, &pl);
	for (size_t i = 1; i < pl.n; i++)
		if (pl.x[i] - pl.x[i - 1] > 5e-3) {
			gaps++;
			assert_true(pl.y[i - 1] == 0);
		}
	assert_int_equal(gaps, 39);
	assert_true(pl.n <= SVGPLOT_MAX_POINTS);
	poly_free(&pl);
	free(svg);
	svgplot_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_exact),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_downsample),
		cmocka_unit_test(test_downsample_step),
		cmocka_unit_test(test_empty_and_nan),
		cmocka_unit_test(test_ticks),
		cmocka_unit_test(test_many_series_legend),
		cmocka_unit_test(test_keep),
		cmocka_unit_test(test_bursts_gaps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
