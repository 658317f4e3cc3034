// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the SVG chart writer (lib/io/svgplot*.c): well-formed XML
 * (xmllint when installed), escaping, downsampling that keeps every
 * series' extremes as exact points of its polyline, bands, panels, ticks
 * at 1-2-5 steps of their unit, titles that wrap. (Layout facts of whole
 * plots: tests/cli/plots.bats with tests/tools/svgfacts.c.)
 */
#include <errno.h>
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


/* how many times @needle occurs in @hay */
static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *s = strstr(hay, needle); s; s = strstr(s + 1, needle))
		n++;
	return n;
}

static void test_small_exact(void **state)
{
	struct svgplot *p = svgplot_new("limit", "time", "bytes");
	struct poly pl;
	char *svg;
	int g, a, b;

	(void)state;
	assert_non_null(p);
	g = svgplot_group(p, "eth0:tx-0", 0);
	assert_int_equal(g, 0);
	a = svgplot_series(p, g, SVGPLOT_LINE, "eth0:tx-0 limit");
	b = svgplot_series(p, g, SVGPLOT_BAND, "eth0:tx-0 inflight");
	assert_int_equal(a, 0);
	assert_int_equal(b, 1);
	assert_int_equal(svgplot_series(p, 5, SVGPLOT_LINE, "x"), -EINVAL);
	assert_int_equal(svgplot_legend(p, SVGPLOT_LINE, "limit"), 0);
	assert_int_equal(svgplot_legend(p, SVGPLOT_REF, "not drawn: no such series"), 0);
	svgplot_set_x_time(p, true);
	svgplot_point(p, a, 0, 3028);
	svgplot_point(p, a, 0.5, 4542);
	svgplot_point(p, a, 1.25, 1514);
	svgplot_point(p, b, 0, 0);
	svgplot_point(p, b, 1.25, 1514);
	assert_int_equal(svgplot_npoints(p, a), 3);
	svg = render(p);
	assert_non_null(strstr(svg, "<?xml version=\"1.0\""));
	assert_non_null(strstr(svg, "xmlns=\"http://www.w3.org/2000/svg\""));
	assert_non_null(strstr(svg, "font-family=\"DejaVu Sans,"));
	/* one group: its name is the panel's title, in its colour */
	assert_non_null(strstr(svg, "fill=\"#1f77b4\">eth0:tx-0</text>"));
	assert_non_null(strstr(svg, ">limit</text>"));	/* the legend says what a line is */
	assert_null(strstr(svg, "not drawn"));
	assert_non_null(strstr(svg, ">time (ms)</text>"));
	assert_non_null(strstr(svg, "<path class=\"band\" data-name=\"eth0:tx-0 inflight\" fill=\"#1f77b4\""));
	assert_non_null(strstr(svg, "<polyline class=\"series\" data-name=\"eth0:tx-0 limit\" fill=\"none\" stroke=\"#1f77b4\""));
	assert_int_equal(count(svg, "class=\"panel\""), 1);
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
	int g, s;

	(void)state;
	g = svgplot_group(p, "q&<>\\", 0);
	s = svgplot_series(p, g, SVGPLOT_LINE, "q&<>");
	svgplot_point(p, s, 1, 1);
	svg = render(p);
	assert_non_null(strstr(svg, "<title>a&lt;b &amp; &quot;c&quot; &apos;d&apos;</title>"));
	assert_non_null(strstr(svg, ">x&gt;y</text>"));
	/* controls in their escaped form, as on a terminal (lib/io/esc.h) */
	assert_non_null(strstr(svg, ">\\x01ctl</text>"));
	assert_non_null(strstr(svg, "data-name=\"q&amp;&lt;&gt;\""));
	assert_non_null(strstr(svg, ">q&amp;&lt;&gt;\\\\</text>"));	/* a backslash doubled once */
	assert_null(strstr(svg, "q&<>"));
	xml_check(svg);
	free(svg);
	svgplot_free(p);

	/* C1 controls and invalid UTF-8 would make the file invalid or unsafe */
	p = svgplot_new("t\xc2\x9b" "x\xff", NULL, NULL);
	g = svgplot_group(p, "\x1b[2J", 0);
	s = svgplot_series(p, g, SVGPLOT_BAND, "\x1b[2J");
	svgplot_point(p, s, 1, 1);
	svg = render(p);
	assert_non_null(strstr(svg, "<title>t\\u009bx\\xff</title>"));
	assert_non_null(strstr(svg, ">t\\u009bx\\xff</text>"));
	assert_non_null(strstr(svg, "data-name=\"\\x1b[2J\""));
	xml_check(svg);
	free(svg);
	svgplot_free(p);

	/* long names of wide characters: shortened, never inside a character */
	{
		char wide[2 * 400 + 1] = "";

		for (int i = 0; i < 400; i++)
			strcat(wide, "\xc3\xa9");
		p = svgplot_new(wide, wide, wide);
		for (int i = 0; i < 2; i++) {
			s = svgplot_series(p, svgplot_group(p, wide, 0), SVGPLOT_BAND, wide);
			svgplot_point(p, s, 1, 1);
		}
		assert_int_equal(svgplot_legend(p, SVGPLOT_BAND, wide), 0);
		assert_int_equal(svgplot_mark(p, 1, 1, wide), 0);
		svg = render(p);
		assert_true(strstr(svg, "\xe2\x80\xa6") != NULL);	/* the title's ellipsis */
		xml_check(svg);
		free(svg);
		svgplot_free(p);
	}
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
static void downsample_case(uint64_t npts)
{
	struct svgplot *p = svgplot_new("big", "time", "bytes");
	double lo = INFINITY, hi = -INFINITY, plo = INFINITY, phi = -INFINITY;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	int g = svgplot_group(p, "q", 0), h = svgplot_group(p, "r", 0);
	int s = svgplot_series(p, g, SVGPLOT_LINE, "noise"), t = svgplot_series(p, h, SVGPLOT_LINE, "ramp");
	double top = NAN, bottom = NAN;
	struct poly pl, px;
	char *svg;

	svgplot_set_layout(p, SVGPLOT_OVERLAY);
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
	assert_int_equal(px.n, 2 * pl.n - 1);
	for (size_t i = 0; i < pl.n; i++) {
		if (pl.y[i] == hi)
			top = px.y[2 * i];
		if (pl.y[i] == lo)
			bottom = px.y[2 * i];
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
	downsample_case(1000000);
	downsample_case(SVGPLOT_BUCKETS * 3 + 1);	/* right after a merge */
}

static void test_empty_and_nan(void **state)
{
	struct svgplot *p = svgplot_new(NULL, NULL, NULL);
	char *svg;
	int g, s;

	(void)state;
	svg = render(p);
	assert_non_null(strstr(svg, ">no data</text>"));
	assert_null(strstr(svg, "<polyline"));
	xml_check(svg);
	free(svg);
	g = svgplot_group(p, "g", 0);
	s = svgplot_series(p, g, SVGPLOT_LINE, "flat");
	svgplot_point(p, s, NAN, 1);
	svgplot_point(p, s, 1, INFINITY);
	svgplot_point(p, 7, 1, 1);	/* no such series */
	assert_true(svgplot_count(p, s) == 0);
	svg = render(p);
	assert_non_null(strstr(svg, ">no data</text>"));
	free(svg);
	svgplot_point(p, s, 5, 42);	/* one point: a degenerate range */
	svg = render(p);
	assert_null(strstr(svg, ">no data</text>"));
	assert_non_null(strstr(svg, "<polyline"));
	xml_check(svg);
	free(svg);
	svgplot_free(p);
}

/* the tick labels of the first panel's y (anchor end) or x (middle) axis, "|"-joined */
static void ticks_of(const char *svg, const char *anchor, char *out, size_t n)
{
	const char *s = strstr(svg, "<g class=\"ticks\""), *end = strstr(s, "</g>");
	char key[64];
	size_t len = 0;

	snprintf(key, sizeof(key), "text-anchor=\"%s\">", anchor);
	out[0] = '\0';
	for (s = strstr(s, key); s && s < end; s = strstr(s + 1, key)) {
		const char *v = s + strlen(key), *e = strchr(v, '<');

		len += (size_t)snprintf(out + len, n - len, "%s%.*s", len ? "|" : "", (int)(e - v), v);
	}
}

/* one line from (0, @y0) to (@x1, @y1), bytes or not, time or not: its ticks */
static void ticks_case(double x1, double y0, double y1, bool bytes, bool time, bool zero,
		       const char *want_x, const char *want_y, const char *xlabel)
{
	struct svgplot *p = svgplot_new("t", "time", "bytes");
	int s = svgplot_series(p, svgplot_group(p, "q", 0), SVGPLOT_LINE, "limit");
	char got[512], *svg;

	svgplot_set_y_bytes(p, bytes);
	svgplot_set_x_time(p, time);
	svgplot_set_y_zero(p, zero);
	svgplot_point(p, s, 0, y0);
	svgplot_point(p, s, x1, y1);
	svg = render(p);
	ticks_of(svg, "middle", got, sizeof(got));
	if (strcmp(got, want_x))
		fail_msg("x ticks of 0..%g: '%s', want '%s'", x1, got, want_x);
	ticks_of(svg, "end", got, sizeof(got));
	if (strcmp(got, want_y))
		fail_msg("y ticks of %g..%g: '%s', want '%s'", y0, y1, got, want_y);
	if (xlabel)
		assert_non_null(strstr(svg, xlabel));
	assert_null(strstr(svg, ">-0"));
	free(svg);
	svgplot_free(p);
}

/* 1-2-5 steps, whole numbers of the unit: no 204.8 B, no 0.01 s */
static void test_ticks(void **state)
{
	(void)state;
	/* bytes in KiB from 0; seconds */
	ticks_case(2.5, 3000, 58000, true, true, true, "0|500|1000|1500|2000|2500",
		   "0|10 KiB|20 KiB|30 KiB|40 KiB|50 KiB|60 KiB", ">time (ms)</text>");
	ticks_case(20, 3000, 58000, true, true, true, "0|2|4|6|8|10|12|14|16|18|20",
		   "0|10 KiB|20 KiB|30 KiB|40 KiB|50 KiB|60 KiB", ">time (s)</text>");
	/* 1.17 KiB: steps of 200 B, not 0.2 KiB */
	ticks_case(0.06, 0, 1200, true, true, true, "0|10|20|30|40|50|60",
		   "0|200 B|400 B|600 B|800 B|1000 B|1200 B", ">time (ms)</text>");
	/* 3 MiB in MiB (not 500 KiB steps up to 3000 KiB); us, or ns */
	ticks_case(3e-6, 0, 3 << 20, true, true, true, "0|1|2|3",
		   "0|1 MiB|2 MiB|3 MiB", ">time (us)</text>");
	ticks_case(2e-6, 0, 2 << 20, true, true, true, "0|200|400|600|800|1000|1200|1400|1600|1800|2000",
		   "0|500 KiB|1000 KiB|1500 KiB|2000 KiB|2500 KiB", ">time (ns)</text>");
	ticks_case(30e-6, 0, 3 << 20, true, true, true, "0|5|10|15|20|25|30",
		   "0|1 MiB|2 MiB|3 MiB", ">time (us)</text>");
	/* neither bytes nor time: decimals where the step needs them */
	ticks_case(0.25, 50000, 58000, false, false, false,
		   "0.00|0.05|0.10|0.15|0.20|0.25",
		   "50000|51000|52000|53000|54000|55000|56000|57000|58000", NULL);
}

/* the chosen groups and their series are kept, renumbered; the title can change at the end */
static void test_keep(void **state)
{
	struct svgplot *p = svgplot_new("t", NULL, NULL);
	bool keep[4] = { false, true, false, true };
	char name[8], *svg;

	(void)state;
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		assert_int_equal(svgplot_group(p, name, 0), i);
		assert_int_equal(svgplot_series(p, i, SVGPLOT_LINE, name), 2 * i);
		assert_int_equal(svgplot_series(p, i, SVGPLOT_BAND, "band"), 2 * i + 1);
		svgplot_point(p, 2 * i, 1, i + 1);
	}
	svgplot_band_cap(p, 7, 6);
	svgplot_keep(p, keep);
	assert_int_equal(svgplot_count(p, 0), 1);
	assert_int_equal(svgplot_count(p, 1), 0);
	assert_int_equal(svgplot_count(p, 2), 1);
	assert_int_equal(svgplot_count(p, 4), 0);
	assert_int_equal(svgplot_set_title(p, "new <title>"), 0);
	svg = render(p);
	assert_null(strstr(svg, "data-name=\"s0\""));
	assert_non_null(strstr(svg, "data-name=\"s1\""));
	assert_null(strstr(svg, "data-name=\"s2\""));
	assert_non_null(strstr(svg, "data-name=\"s3\""));
	/* colours stay with their groups: s1 and s3 kept theirs */
	assert_non_null(strstr(svg, "data-name=\"s1\" fill=\"none\" stroke=\"#ff7f0e\""));
	assert_non_null(strstr(svg, "data-name=\"s3\" fill=\"none\" stroke=\"#d62728\""));
	assert_non_null(strstr(svg, "<title>new &lt;title&gt;</title>"));
	xml_check(svg);
	free(svg);
	svgplot_free(p);
}

/* @n groups peaking at @peak(i), the first with @note: how many panels */
static int panels_of(int n, double (*peak)(int), bool total, const char *note, char **out)
{
	struct svgplot *p = svgplot_new("panels", "time", "bytes");
	char name[32], *svg;
	int np;

	assert_int_equal(svgplot_group_note(p, 0, "idle"), -EINVAL);	/* no group yet */
	for (int i = 0; i < n; i++) {
		int s;

		snprintf(name, sizeof(name), "ens1f0:tx-%d", i);
		s = svgplot_series(p, svgplot_group(p, name, 0), SVGPLOT_LINE, name);
		if (!i && note)
			assert_int_equal(svgplot_group_note(p, 0, note), 0);
		svgplot_point(p, s, 0, 0);
		svgplot_point(p, s, 1, peak(i));
	}
	if (total) {
		int s = svgplot_series(p, svgplot_group(p, "total", SVGPLOT_TOTAL), SVGPLOT_BAND, "total");

		svgplot_point(p, s, 0, 1e6);
	}
	svg = render(p);
	xml_check(svg);
	np = count(svg, "class=\"panel\"");
	if (out)
		*out = svg;
	else
		free(svg);
	svgplot_free(p);
	return np;
}

static double same(int i)
{
	return 10000 + i;
}

static double tenfold(int i)
{
	return i ? 100000 : 10000;
}

/*
 * Small multiples: one panel for a few queues of one scale, one per queue
 * when they differ in scale or are many, the total always apart; every
 * queue has its own colour.
 */
static void test_panels(void **state)
{
	char *svg;

	(void)state;
	assert_int_equal(panels_of(1, same, false, NULL, NULL), 1);
	assert_int_equal(panels_of(3, same, false, NULL, &svg), 1);
	/* overlaid: the legend names each group in its colour */
	assert_non_null(strstr(svg, "fill=\"#2ca02c\">ens1f0:tx-2</text>"));
	free(svg);
	/* a group's note: in the middle of its panel, or after its name in the legend */
	assert_int_equal(panels_of(2, same, false, "idle", &svg), 1);
	assert_non_null(strstr(svg, ">ens1f0:tx-0 (idle)</text>"));
	free(svg);
	assert_int_equal(panels_of(1, same, false, "idle", &svg), 1);
	assert_non_null(strstr(svg, "fill=\"#777777\">idle</text>"));
	free(svg);
	assert_int_equal(panels_of(2, tenfold, false, NULL, NULL), 2);
	assert_int_equal(panels_of(5, same, false, NULL, NULL), 5);
	assert_int_equal(panels_of(3, same, true, NULL, NULL), 2);
	assert_int_equal(panels_of(8, same, true, NULL, &svg), 9);
	for (int i = 0; i < 8; i++) {
		static const char *const c[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
						 "#9467bd", "#8c564b", "#e377c2", "#bcbd22" };
		char want[96];

		snprintf(want, sizeof(want), "data-name=\"ens1f0:tx-%d\" fill=\"none\" stroke=\"%s\"", i, c[i]);
		assert_non_null(strstr(svg, want));
	}
	free(svg);
	/* 64 queues: the canvas grows, every panel has its name */
	assert_int_equal(panels_of(64, same, false, NULL, &svg), 64);
	assert_true(atoi(strstr(svg, "height=\"") + 8) >= 32 * 90);
	assert_non_null(strstr(svg, ">ens1f0:tx-63</text>"));
	free(svg);
}

/* the title's <text> lines (font-size 16) into @lines; how many */
static int title_lines(const char *svg, char lines[][512], int max)
{
	const char *key = "font-size=\"16\" text-anchor=\"middle\">";
	int n = 0;

	for (const char *s = strstr(svg, key); s && n < max; s = strstr(s + 1, key)) {
		const char *v = s + strlen(key), *e = strchr(v, '<');

		snprintf(lines[n++], 512, "%.*s", (int)(e - v), v);
	}
	return n;
}

/* titles wrap at words (rather after a comma), then shorten; none is cut by the canvas */
static void test_title_wrap(void **state)
{
	const char *t = "bqltool sim: 1 Gbit/s link, 4 queues, seed 1, traffic poisson 600 Mbit/s imix -> tx-1, "
			"cbr 200 Mbit/s imix -> tx-3, onoff 300 Mbit/s imix -> tx-1";
	char lines[8][512], path[700], *svg;
	struct svgplot *p = svgplot_new(t, "time", "bytes");
	int n, s;

	(void)state;
	s = svgplot_series(p, svgplot_group(p, "q", 0), SVGPLOT_LINE, "l");
	svgplot_point(p, s, 0, 1);
	svg = render(p);
	n = title_lines(svg, lines, 8);
	assert_int_equal(n, 2);
	assert_string_equal(lines[0], "bqltool sim: 1 Gbit/s link, 4 queues, seed 1, traffic poisson 600 Mbit/s "
			    "imix -&gt; tx-1, cbr 200 Mbit/s imix -&gt; tx-3,");
	assert_string_equal(lines[1], "onoff 300 Mbit/s imix -&gt; tx-1");
	for (int i = 0; i < n; i++)
		assert_true(svgplot_text_width(lines[i], 16) <= 960 - 24);
	free(svg);
	/* a path without spaces, far too long: cut where it must, 3 lines, an ellipsis */
	memset(path, 'a', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	assert_int_equal(svgplot_set_title(p, path), 0);
	svg = render(p);
	n = title_lines(svg, lines, 8);
	assert_int_equal(n, 3);
	assert_non_null(strstr(lines[2], "\xe2\x80\xa6"));
	assert_non_null(strstr(svg, path));	/* whole in <title> */
	free(svg);
	svgplot_free(p);
	/* DejaVu Sans advance widths */
	assert_true(svgplot_text_width("W", 2048) == 2025);
	assert_true(svgplot_text_width("iW", 16) == (569 + 2025) * 16 / 2048.0);
	assert_true(svgplot_text_width("\xc3\xa9", 10) == 10);	/* beyond ASCII: an em */
}

/*
 * A band spans, in each pixel column, the lowest to the highest value the
 * series took there, even between the telling points of a bucket: the
 * same points as a line reach exactly its top and bottom.
 */
static void test_band(void **state)
{
	struct svgplot *p = svgplot_new("band", "time", "bytes");
	int g = svgplot_group(p, "q", 0), ln = svgplot_series(p, g, SVGPLOT_LINE, "line");
	int b = svgplot_series(p, g, SVGPLOT_BAND, "band"), cap = svgplot_series(p, g, SVGPLOT_REF, "cap");
	double ltop = INFINITY, lbot = -INFINITY, btop = INFINITY, bbot = -INFINITY;
	uint64_t seed = 7;
	struct poly px;
	char *svg, *d, *e;

	(void)state;
	for (int i = 0; i < 200000; i++) {
		double y = (double)(rnd(&seed) % 50000) + (i == 123457 ? 90000 : 0);

		svgplot_point(p, ln, i * 1e-6, y);
		svgplot_point(p, b, i * 1e-6, y);
	}
	svgplot_point(p, cap, 0, 200000);
	svgplot_point(p, cap, 0.2, 200000);
	svgplot_band_cap(p, b, cap);	/* above everything: nothing hatched */
	svg = render(p);
	assert_null(strstr(svg, "band-over"));
	parse_attr(svg, 1, "points", &px);	/* the cap (a reference) is drawn first */
	for (size_t i = 0; i < px.n; i++) {
		ltop = fmin(ltop, px.y[i]);
		lbot = fmax(lbot, px.y[i]);
	}
	poly_free(&px);
	d = strstr(strstr(svg, "<path class=\"band\""), " d=\"") + 4;
	e = strchr(d, '"');
	/* M x y, then H x and V y: the y values */
	for (char *c = d; c < e; c++) {
		if (*c == 'V' || *c == 'M') {
			double y;

			if (*c == 'M')
				c = strchr(c, ' ');
			y = strtod(c + 1, NULL);
			btop = fmin(btop, y);
			bbot = fmax(bbot, y);
		}
	}
	assert_true(fabs(btop - ltop) < 0.01);
	assert_true(fabs(bbot - lbot) < 0.01);
	free(svg);
	svgplot_free(p);
}

/* a band above its cap (recorded inflight above a what-if limit) is hatched there */
static void test_band_cap(void **state)
{
	struct svgplot *p = svgplot_new("what-if", "time", "bytes");
	int g = svgplot_group(p, "q", 0), lim = svgplot_series(p, g, SVGPLOT_LINE, "q limit");
	int b = svgplot_series(p, g, SVGPLOT_BAND, "q inflight");
	char *svg;

	(void)state;
	assert_int_equal(svgplot_legend(p, SVGPLOT_NKINDS, "above the limit"), 0);
	svgplot_band_cap(p, b, lim);
	for (int i = 0; i < 100; i++) {
		svgplot_point(p, lim, i * 1e-3, 8192);
		svgplot_point(p, b, i * 1e-3, i < 50 ? 4000 : 20000);
	}
	svg = render(p);
	assert_int_equal(count(svg, "<path class=\"band-over\" data-name=\"q inflight\""), 1);
	assert_non_null(strstr(svg, "fill=\"url(#hatch)\""));
	assert_non_null(strstr(svg, ">above the limit</text>"));
	xml_check(svg);
	free(svg);
	svgplot_free(p);
}

/* marks: a span shaded, a line dashed, labelled in the top panel and the legend */
static void test_marks(void **state)
{
	struct svgplot *p = svgplot_new("m", "time", "bytes");
	int s = svgplot_series(p, svgplot_group(p, "q", 0), SVGPLOT_LINE, "l");
	char *svg;

	(void)state;
	svgplot_point(p, s, 0, 1);
	svgplot_point(p, s, 1, 2);
	assert_int_equal(svgplot_mark(p, 0.5, 0.52, "stall <2 ms>"), 0);
	assert_int_equal(svgplot_mark(p, 0.8, 0.8, "limit_max=8000"), 0);
	assert_int_equal(svgplot_mark(p, NAN, 1, "x"), -EINVAL);
	for (int i = 2; i < 16; i++)
		assert_int_equal(svgplot_mark(p, 0.9, 0.9, ""), 0);
	assert_int_equal(svgplot_mark(p, 0.9, 0.9, "17th"), -ENOSPC);
	svg = render(p);
	assert_int_equal(count(svg, "<rect class=\"mark\""), 1);
	assert_int_equal(count(svg, "<line class=\"mark\""), 15);
	assert_int_equal(count(svg, ">stall &lt;2 ms&gt;</text>"), 2);
	assert_int_equal(count(svg, ">limit_max=8000</text>"), 2);
	xml_check(svg);
	free(svg);
	svgplot_free(p);
}

/* the same input, the same bytes */
static void test_deterministic(void **state)
{
	char *a = NULL, *b = NULL;

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct svgplot *p = svgplot_new("d", "time", "bytes");
		uint64_t seed = 99;

		svgplot_set_y_bytes(p, true);
		svgplot_set_x_time(p, true);
		for (int g = 0; g < 3; g++) {
			int q = svgplot_group(p, g ? "q" : "total", g ? 0 : SVGPLOT_TOTAL);
			int l = svgplot_series(p, q, SVGPLOT_LINE, "l"), i = svgplot_series(p, q, SVGPLOT_BAND, "i");

			for (int n = 0; n < 50000; n++) {
				svgplot_point(p, l, n * 1e-6, (double)(rnd(&seed) % 9000));
				svgplot_point(p, i, n * 1e-6, (double)(rnd(&seed) % 9000));
			}
		}
		*(k ? &b : &a) = render(p);
		svgplot_free(p);
	}
	assert_string_equal(a, b);
	free(a);
	free(b);
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
	struct svgplot *p = svgplot_new("bursts", "time", "bytes");
	int s = svgplot_series(p, svgplot_group(p, "q", 0), SVGPLOT_LINE, "inflight");
	uint64_t seed = 12345;
	struct poly pl;
	double t = 0;
	size_t gaps = 0;
	char *svg;

	(void)state;
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
		cmocka_unit_test(test_empty_and_nan),
		cmocka_unit_test(test_ticks),
		cmocka_unit_test(test_keep),
		cmocka_unit_test(test_panels),
		cmocka_unit_test(test_title_wrap),
		cmocka_unit_test(test_band),
		cmocka_unit_test(test_band_cap),
		cmocka_unit_test(test_marks),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_bursts_gaps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
