// SPDX-License-Identifier: GPL-2.0-only
/*
 * svgfacts: layout facts of a plot (replay --plot, sim --plot), for the
 * tests. Reads the SVG, measures every <text> with the advance widths of
 * the font the plot names (svgplot_text_width(): DejaVu Sans), and checks:
 *   - no text outside the canvas, no text overlapping another;
 *   - one colour per queue: a queue's series (NAME limit, NAME inflight,
 *     NAME recorded limit) share one colour, no two queues share one;
 *   - tick labels at whole 1-2-5 steps of their unit (no 0.2 KiB, no 0.01).
 * Prints the facts, one a line ("canvas W H", "panels N", "queue NAME
 * COLOUR", "xticks ...", "yticks ...") and each violation as "FAIL: why";
 * exits 1 when there is one.
 *   usage: svgfacts FILE.svg
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/io/svgplot.h"

struct box {
	double x0, y0, x1, y1;
	char *text;
};

static int fails;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fails++;
}

/* the value of attribute @name in the tag [@s, @e), into @out; false if none */
static bool attr(const char *s, const char *e, const char *name, char *out, size_t n)
{
	size_t len = strlen(name);

	for (const char *p = s + 1; p + len + 2 < e; p++) {
		const char *q;

		if ((p[-1] != ' ' && p[-1] != '\n') || strncmp(p, name, len) || p[len] != '=' ||
		    p[len + 1] != '"')
			continue;
		p += len + 2;
		q = memchr(p, '"', (size_t)(e - p));
		if (!q)
			return false;
		snprintf(out, n, "%.*s", (int)(q - p), p);
		return true;
	}
	return false;
}

/* XML character data to text: the five entities back to their characters */
static void unescape(const char *s, size_t len, char *out, size_t n)
{
	static const char *const ent[][2] = {
		{ "&amp;", "&" }, { "&lt;", "<" }, { "&gt;", ">" }, { "&quot;", "\"" }, { "&apos;", "'" },
	};
	size_t o = 0;

	for (size_t i = 0; i < len && o + 1 < n;) {
		bool done = false;

		for (int k = 0; k < 5 && !done; k++)
			if (!strncmp(s + i, ent[k][0], strlen(ent[k][0]))) {
				out[o++] = ent[k][1][0];
				i += strlen(ent[k][0]);
				done = true;
			}
		if (!done)
			out[o++] = s[i++];
	}
	out[o] = '\0';
}

/* a tick label: a number and a unit ("200 B", "5 KiB", "10"); false if not */
static bool tick_value(const char *s, double *v, char *unit, size_t n)
{
	char *end;

	*v = strtod(s, &end);
	if (end == s)
		return false;
	while (*end == ' ')
		end++;
	snprintf(unit, n, "%s", end);
	return true;
}

/* whole 1-2-5 steps of one unit (0 may stand alone) */
static void check_ticks(const char *axis, char labels[][64], int n)
{
	char unit[32] = "", u[32], all[2048] = "";
	double prev = NAN, step = NAN;
	size_t len = 0;

	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(all + len, sizeof(all) - len, "%s%s", i ? " | " : "", labels[i]);
	printf("%s %s\n", axis, all);
	for (int i = 0; i < n; i++) {
		double v, m, norm;

		if (!tick_value(labels[i], &v, u, sizeof(u))) {
			fail("%s: '%s' is no number", axis, labels[i]);
			return;
		}
		if (v != floor(v))
			fail("%s: '%s' is not a whole number of its unit", axis, labels[i]);
		if (v != 0) {
			if (unit[0] && strcmp(unit, u))
				fail("%s: units differ (%s)", axis, all);
			snprintf(unit, sizeof(unit), "%s", u);
		}
		if (!isnan(prev)) {
			double d = v - prev;

			if (!isnan(step) && fabs(d - step) > 1e-9 * fabs(step))
				fail("%s: uneven steps (%s)", axis, all);
			step = d;
			m = pow(10, floor(log10(fabs(d)) + 1e-12));
			norm = fabs(d) / m;
			if (fabs(norm - 1) > 1e-9 && fabs(norm - 2) > 1e-9 && fabs(norm - 5) > 1e-9)
				fail("%s: steps not 1, 2 or 5 times a power of ten (%s)", axis, all);
		}
		prev = v;
	}
}

static bool overlap(const struct box *a, const struct box *b)
{
	const double tol = 0.5;

	return a->x0 < b->x1 - tol && b->x0 < a->x1 - tol &&
	       a->y0 < b->y1 - tol && b->y0 < a->y1 - tol;
}

struct qcolour {
	char name[256], colour[32];
};

/* NAME limit / NAME inflight / NAME recorded limit -> NAME */
static void queue_of(const char *series, char *out, size_t n)
{
	static const char *const sfx[] = { " recorded limit", " limit", " inflight" };
	size_t len = strlen(series);

	snprintf(out, n, "%s", series);
	for (int k = 0; k < 3; k++) {
		size_t sl = strlen(sfx[k]);

		if (len > sl && !strcmp(series + len - sl, sfx[k])) {
			out[len - sl] = '\0';
			return;
		}
	}
}

int main(int argc, char **argv)
{
	static struct box boxes[4096];
	static struct qcolour qc[256];
	static char xt[64][64], yt[64][64];
	double width = 0, height = 0, fsize[64] = { 16 };
	int nb = 0, nq = 0, nxt = 0, nyt = 0, depth = 0, panels = 0, tick_depth = -1;
	char *svg, *p;
	size_t len = 0, cap = 1 << 20;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: svgfacts FILE.svg\n");
		return 2;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	svg = malloc(cap);
	for (size_t r; (r = fread(svg + len, 1, cap - len - 1, f)) > 0;) {
		len += r;
		if (len + 1 == cap)
			svg = realloc(svg, cap *= 2);
	}
	fclose(f);
	svg[len] = '\0';

	for (p = strchr(svg, '<'); p; p = strchr(p + 1, '<')) {
		char *e = strchr(p, '>'), v[512], name[32];
		bool closing = p[1] == '/', selfclose;
		int nl = 0;

		if (!e)
			break;
		selfclose = e[-1] == '/';
		while (isalnum((unsigned char)p[1 + closing + nl]) && nl < 31)
			nl++;
		snprintf(name, sizeof(name), "%.*s", nl, p + 1 + closing);
		if (closing) {
			if (!strcmp(name, "g") || !strcmp(name, "svg")) {
				if (tick_depth == depth)
					tick_depth = -1;
				depth--;
			}
			continue;
		}
		if (!strcmp(name, "svg") || (!strcmp(name, "g") && !selfclose)) {
			depth++;
			fsize[depth] = fsize[depth - 1];
			if (attr(p, e, "font-size", v, sizeof(v)))
				fsize[depth] = atof(v);
			if (!strcmp(name, "svg")) {
				attr(p, e, "width", v, sizeof(v));
				width = atof(v);
				attr(p, e, "height", v, sizeof(v));
				height = atof(v);
			}
			if (attr(p, e, "class", v, sizeof(v))) {
				if (!strcmp(v, "ticks"))
					tick_depth = depth;
				if (!strcmp(v, "panel"))
					panels++;
			}
			continue;
		}
		if ((!strcmp(name, "polyline") || !strcmp(name, "path")) &&
		    attr(p, e, "data-name", v, sizeof(v))) {
			char q[256], c[32] = "", cls[32] = "";
			int k;

			attr(p, e, "class", cls, sizeof(cls));
			if (!strcmp(cls, "band-over"))
				continue;
			if (!attr(p, e, !strcmp(name, "path") ? "fill" : "stroke", c, sizeof(c)))
				continue;
			unescape(v, strlen(v), q, sizeof(q));
			queue_of(q, v, sizeof(v));
			for (k = 0; k < nq && strcmp(qc[k].name, v); k++)
				;
			if (k == nq && nq < 256) {
				snprintf(qc[nq].name, sizeof(qc[nq].name), "%s", v);
				snprintf(qc[nq++].colour, sizeof(qc[0].colour), "%s", c);
			} else if (k < nq && strcmp(qc[k].colour, c)) {
				fail("queue '%s': series in two colours (%s)", v, c);
			}
			continue;
		}
		if (!strcmp(name, "text") && nb < 4096) {
			char *end = strstr(e, "</text>"), anchor[16] = "start", tr[128];
			double x, y, size = fsize[depth], w;
			struct box *b = &boxes[nb];

			if (!end)
				break;
			b->text = malloc((size_t)(end - e) + 1);
			unescape(e + 1, (size_t)(end - e - 1), b->text, (size_t)(end - e));
			attr(p, e, "x", v, sizeof(v));
			x = atof(v);
			attr(p, e, "y", v, sizeof(v));
			y = atof(v);
			if (attr(p, e, "font-size", v, sizeof(v)))
				size = atof(v);
			attr(p, e, "text-anchor", anchor, sizeof(anchor));
			w = svgplot_text_width(b->text, size);
			b->x0 = !strcmp(anchor, "middle") ? x - w / 2 : !strcmp(anchor, "end") ? x - w : x;
			b->x1 = b->x0 + w;
			b->y0 = y - 0.8 * size;
			b->y1 = y + 0.25 * size;
			if (attr(p, e, "transform", tr, sizeof(tr)) && strstr(tr, "rotate(-90")) {
				/* turned about (x, y): across becomes down */
				double dx0 = b->x0 - x, dx1 = b->x1 - x;

				b->x0 = x - 0.8 * size;
				b->x1 = x + 0.25 * size;
				b->y0 = y - dx1;
				b->y1 = y - dx0;
			}
			if (tick_depth >= 0 && tick_depth <= depth) {
				if (!strcmp(anchor, "end") && nyt < 64)
					snprintf(yt[nyt++], 64, "%s", b->text);
				else if (!strcmp(anchor, "middle") && nxt < 64)
					snprintf(xt[nxt++], 64, "%s", b->text);
			}
			nb++;
			p = end;
		}
		/* a tick group ends a panel's ticks: check them there */
		if (tick_depth < 0 && (nxt || nyt)) {
			if (nxt)
				check_ticks("xticks", xt, nxt);
			if (nyt)
				check_ticks("yticks", yt, nyt);
			nxt = nyt = 0;
		}
	}
	if (nxt)
		check_ticks("xticks", xt, nxt);
	if (nyt)
		check_ticks("yticks", yt, nyt);
	printf("canvas %g %g\npanels %d\ntexts %d\n", width, height, panels, nb);
	for (int i = 0; i < nb; i++) {
		const struct box *b = &boxes[i];

		if (b->x0 < -0.5 || b->y0 < -0.5 || b->x1 > width + 0.5 || b->y1 > height + 0.5)
			fail("text outside the canvas: '%s'", b->text);
		for (int j = 0; j < i; j++)
			if (overlap(b, &boxes[j]))
				fail("texts overlap: '%s' and '%s'", boxes[j].text, b->text);
	}
	for (int i = 0; i < nq; i++) {
		printf("queue %s %s\n", qc[i].name, qc[i].colour);
		for (int j = 0; j < i; j++)
			if (!strcmp(qc[i].colour, qc[j].colour))
				fail("queues '%s' and '%s' share a colour", qc[j].name, qc[i].name);
	}
	for (int i = 0; i < nb; i++)
		free(boxes[i].text);
	free(svg);
	return fails ? 1 : 0;
}
