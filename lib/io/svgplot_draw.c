// SPDX-License-Identifier: GPL-2.0-only
/*
 * The chart drawn (lib/io/svgplot.h): the layout of title, legend and
 * panels measured in pixels, axes with ticks at 1-2-5 steps of the unit,
 * limits as step lines, inflight as bands (lowest to highest per pixel
 * column), marks; numbers written without printf where there are many.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/io/esc.h"
#include "lib/io/svgplot.h"
#include "lib/io/svgplot_int.h"

/*
 * Numbers of the polylines, made without printf (its %f and %g cost ~600
 * instructions a number: most of svgplot_write()), with the very bytes
 * printf makes, into a buffer written in blocks.
 */
#define SP_BUF		8192
#define SP_ROOM		1400	/* the most one point writes: 4 x "%.2f" of DBL_MAX */

struct sp_out {
	FILE *f;
	size_t n;
	char b[SP_BUF];
};

static void sp_flush(struct sp_out *o)
{
	fwrite(o->b, 1, o->n, o->f);
	o->n = 0;
}

/* digits of @v at @p; returns the end */
static char *sp_u64(char *p, uint64_t v)
{
	char t[20];
	int n = 0;

	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = t[--n];
	return p;
}

/*
 * printf's "%.2f" of @v at @p (room for 320 bytes); returns the end. Below
 * 1e13 in magnitude: the exact value of |v| * 100 rounded to an integer,
 * a tie to the even one, as glibc rounds the exact binary value. fma()
 * rounds once, so the sign of fma(a, 100, -r) is that of the exact a * 100
 * - r: the floor is made exact, then the half compared exactly.
 */
static char *fmt_f2(char *p, double v)
{
	double a = fabs(v), r, d;
	uint64_t n;

	if (!(a < 1e13))
		return p + snprintf(p, 320, "%.2f", v);
	r = floor(a * 100);
	if (fma(a, 100, -r) < 0)
		r -= 1;
	else if (fma(a, 100, -(r + 1)) >= 0)
		r += 1;
	d = fma(a, 200, -(2 * r + 1));
	n = (uint64_t)r;
	if (d > 0 || (d == 0 && (n & 1)))
		n++;
	if (signbit(v))
		*p++ = '-';
	p = sp_u64(p, n / 100);
	*p++ = '.';
	*p++ = (char)('0' + n / 10 % 10);
	*p++ = (char)('0' + n % 10);
	return p;
}

/*
 * The shortest of "%.15g" and "%.17g" that reads back as the same double
 * at @p (room for 40 bytes); returns the end. Without printf for the two
 * kinds replay plots: an integer below 1e15 (bytes), which %.15g prints
 * whole; and a double that is the correctly rounded n / 1e9 for an
 * integer n below 1e15 (seconds from nanoseconds), from 1e-4 up: %.15g
 * prints n / 1e9 exactly then (the 15-digit neighbours are further than
 * half an ulp), without its trailing zeros, and it reads back.
 */
static char *fmt_num(char *p, double v)
{
	double a = fabs(v);

	if (a < 1e15 && v == trunc(v)) {
		if (signbit(v))
			*p++ = '-';
		return sp_u64(p, (uint64_t)a);
	}
	if (a >= 1e-4 && a < 1e6) {
		uint64_t n = (uint64_t)llround(a * 1e9), ip;
		char frac[9];
		int k = 9;

		if ((double)n / 1e9 == a) {
			ip = n / 1000000000;
			n %= 1000000000;
			for (int i = 8; i >= 0; i--, n /= 10)
				frac[i] = (char)('0' + n % 10);
			while (frac[k - 1] == '0')
				k--;
			if (signbit(v))
				*p++ = '-';
			p = sp_u64(p, ip);
			*p++ = '.';
			memcpy(p, frac, (size_t)k);
			return p + k;
		}
	}
	{
		char buf[40];

		snprintf(buf, sizeof(buf), "%.15g", v);
		if (strtod(buf, NULL) != v)
			snprintf(buf, sizeof(buf), "%.17g", v);
		return p + strlen(strcpy(p, buf));
	}
}


/* ------------------------------------------------------------ drawing */

/* a <text> of printed @s at (@x, @y) */
static void put_text(FILE *f, double x, double y, double size, const char *anchor,
		     const char *fill, const char *s)
{
	fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%g\" text-anchor=\"%s\"", x, y,
		size, anchor);
	if (fill)
		fprintf(f, " fill=\"%s\"", fill);
	fputc('>', f);
	sp_put_text(f, s);
	fputs("</text>\n", f);
}

/* the same with @s from outside (escaped, fitted to @width) */
static int put_text_fit(FILE *f, double x, double y, double size, const char *anchor,
			const char *fill, const char *s, double width)
{
	char line[SP_LINE];
	int ret = sp_fit_line(NULL, s, size, width, line, sizeof(line));

	if (!ret)
		put_text(f, x, y, size, anchor, fill, line);
	return ret;
}

void sp_panel_scale(const struct layout *L, int i, struct sp_scale *sc)
{
	const struct panel *pn = &L->pn[i];
	const struct axis *ya = pn->total ? &L->ytot : &L->y, *xa = &L->x;

	*sc = (struct sp_scale){
		.x0 = xa->lo, .sx = pn->w / (xa->hi - xa->lo),
		.y0 = ya->lo, .sy = pn->h / (ya->hi - ya->lo),
		.left = pn->left, .bottom = pn->top + pn->h,
	};
}

/* One attribute with every point of @sr: pixels (@sc), or data units (@sc NULL). */
static void put_points(struct sp_out *o, const struct sp_series *sr, const struct sp_scale *sc)
{
	bool first = true;
	double prev_py = 0;

	for (size_t b = 0; b < sr->nb; b++) {
		struct sp_pt pts[6];
		int n = sp_bucket_points(&sr->b[b], pts);

		for (int k = 0; k < n; k++) {
			double x = pts[k].x, y = pts[k].y;
			char *p;

			if (o->n > SP_BUF - SP_ROOM)
				sp_flush(o);
			p = o->b + o->n;
			if (!first)
				*p++ = ' ';
			if (!sc) {
				p = fmt_num(p, x);
				*p++ = ',';
				p = fmt_num(p, y);
			} else {
				x = sp_px_x(sc, x);
				y = sp_px_y(sc, y);
				if (!first) {
					/* a step: the level held until this x */
					p = fmt_f2(p, x);
					*p++ = ',';
					p = fmt_f2(p, prev_py);
					*p++ = ' ';
				}
				p = fmt_f2(p, x);
				*p++ = ',';
				p = fmt_f2(p, y);
				prev_py = y;
			}
			o->n = (size_t)(p - o->b);
			first = false;
		}
	}
	sp_flush(o);
}

/* columns [x(@xa), x(@xb)] of @lo/@hi (@n of them) take [@ya, @yb] */
static void col_span(const struct sp_scale *sc, double *lo, double *hi, int n,
		     double xa, double xb, double ya, double yb)
{
	double ca = floor((xa - sc->x0) * sc->sx), cb = floor((xb - sc->x0) * sc->sx);

	ca = fmax(0, fmin(n - 1, ca));
	cb = fmax(0, fmin(n - 1, cb));
	for (int c = (int)ca; c <= (int)cb; c++) {
		if (isnan(lo[c]) || ya < lo[c])
			lo[c] = ya;
		if (isnan(hi[c]) || yb > hi[c])
			hi[c] = yb;
	}
}

/*
 * The lowest and highest value of @sr, a step function, in each of the @n
 * pixel columns (NaN where it has none). Between two telling points of a
 * bucket that did not arrive one after the other lie points the bucket
 * only bounds: its whole range is taken there (a band never hides a value,
 * at worst it is a column wider).
 */
void sp_band_columns(const struct sp_series *sr, const struct sp_scale *sc, double *lo,
			 double *hi, int n)
{
	struct sp_pt prev = { 0 };
	bool have = false;

	for (int c = 0; c < n; c++)
		lo[c] = hi[c] = NAN;
	for (size_t b = 0; b < sr->nb; b++) {
		const struct sp_bucket *bk = &sr->b[b];
		struct sp_pt pts[6];
		int k = sp_bucket_points(bk, pts);

		for (int i = 0; i < k; i++) {
			if (have) {
				bool next = pts[i].seq == prev.seq + 1;

				if (next || i == 0)
					col_span(sc, lo, hi, n, prev.x, pts[i].x, prev.y, prev.y);
				else
					col_span(sc, lo, hi, n, prev.x, pts[i].x, bk->lo.y, bk->hi.y);
			}
			prev = pts[i];
			have = true;
		}
	}
	if (have)
		col_span(sc, lo, hi, n, prev.x, prev.x, prev.y, prev.y);
}

/*
 * A band's outline, columns [@a, @b) from @top to @bot (pixel y, per
 * column), as one closed path of horizontal and vertical steps.
 */
static void put_band_path(struct sp_out *o, const struct sp_scale *sc, const double *top,
			  const double *bot, int a, int b)
{
	char *p;

	for (int pass = 0; pass < 2; pass++) {
		const double *e = pass ? bot : top;
		int c = pass ? b - 1 : a, end = pass ? a - 1 : b, dir = pass ? -1 : 1;
		double prev = NAN;

		for (; c != end; c += dir) {
			if (o->n > SP_BUF - SP_ROOM)
				sp_flush(o);
			p = o->b + o->n;
			if (pass == 0 && c == a) {
				*p++ = 'M';
				p = fmt_f2(p, sc->left + c);
				*p++ = ' ';
				p = fmt_f2(p, e[c]);
			} else if (e[c] != prev) {
				/* a step: the level changes at this column's edge */
				*p++ = ' ';
				*p++ = 'H';
				p = fmt_f2(p, sc->left + (pass ? c + 1 : c));
				*p++ = ' ';
				*p++ = 'V';
				p = fmt_f2(p, e[c]);
			}
			prev = e[c];
			o->n = (size_t)(p - o->b);
		}
		p = o->b + o->n;
		*p++ = ' ';
		*p++ = 'H';
		p = fmt_f2(p, sc->left + (pass ? a : b));
		if (!pass) {
			*p++ = ' ';
			*p++ = 'V';
			p = fmt_f2(p, bot[b - 1]);
		}
		o->n = (size_t)(p - o->b);
	}
	o->b[o->n++] = 'Z';
	o->b[o->n++] = ' ';
}

/* the runs of columns where @top is a number, as one path */
static void put_band_runs(struct sp_out *o, const struct sp_scale *sc, const double *top,
			  const double *bot, int n)
{
	for (int c = 0; c < n;) {
		int a;

		while (c < n && isnan(top[c]))
			c++;
		a = c;
		while (c < n && !isnan(top[c]))
			c++;
		if (c > a)
			put_band_path(o, sc, top, bot, a, c);
	}
	if (o->n && o->b[o->n - 1] == ' ')
		o->n--;
	sp_flush(o);
}


/*
 * A band series: light where it may be, hatched above its cap (the part
 * of each column above the cap's highest value there). @cols: 6 arrays of
 * @n doubles to work in.
 */
static void put_band(const struct svgplot *p, FILE *f, const struct sp_series *sr,
		     const struct sp_scale *sc, double *cols, int n)
{
	double *top = cols + 4 * n, *bot = cols + 5 * n;
	const char *col = sp_colour(&p->g[sr->group]);
	struct sp_out o = { .f = f };

	sp_band_light(p, sr, sc, cols, n);
	fputs("<path class=\"band\" data-name=\"", f);
	esc_xml_fputs(sr->name, f);
	fprintf(f, "\" fill=\"%s\" fill-opacity=\"0.3\" stroke=\"none\"\n d=\"", col);
	put_band_runs(&o, sc, top, bot, n);
	fputs("\"\n data-xy=\"", f);
	put_points(&o, sr, NULL);
	fputs("\"><title>", f);
	esc_xml_fputs(sr->name, f);
	fputs("</title></path>\n", f);
	/* the part above the cap */
	if (!sp_band_over(cols, n, sc))
		return;
	fputs("<path class=\"band-over\" data-name=\"", f);
	esc_xml_fputs(sr->name, f);
	fputs("\" fill=\"url(#hatch)\" stroke=\"#c0392b\" stroke-width=\"0.5\"\n d=\"", f);
	put_band_runs(&o, sc, top, bot, n);
	fputs("\"/>\n", f);
}

void sp_band_light(const struct svgplot *p, const struct sp_series *sr,
		   const struct sp_scale *sc, double *cols, int n)
{
	double *lo = cols, *hi = cols + n, *clo = cols + 2 * n, *chi = cols + 3 * n;
	double *top = cols + 4 * n, *bot = cols + 5 * n;

	sp_band_columns(sr, sc, lo, hi, n);
	if (sr->cap >= 0 && p->s[sr->cap].count)
		sp_band_columns(&p->s[sr->cap], sc, clo, chi, n);
	else
		for (int c = 0; c < n; c++)
			clo[c] = chi[c] = NAN;
	for (int c = 0; c < n; c++) {
		double h = isnan(chi[c]) ? hi[c] : fmin(hi[c], fmax(lo[c], chi[c]));

		top[c] = isnan(lo[c]) ? NAN : sp_px_y(sc, h);
		bot[c] = isnan(lo[c]) ? NAN : sp_px_y(sc, lo[c]);
		if (bot[c] - top[c] < BAND_MIN) {
			/* a flat band shows, as thick as a line */
			double mid = (top[c] + bot[c]) / 2;

			top[c] = mid - BAND_MIN / 2;
			bot[c] = mid + BAND_MIN / 2;
		}
	}
}

bool sp_band_over(double *cols, int n, const struct sp_scale *sc)
{
	double *lo = cols, *hi = cols + n, *chi = cols + 3 * n;
	double *top = cols + 4 * n, *bot = cols + 5 * n;
	bool over = false;

	for (int c = 0; c < n; c++) {
		if (isnan(lo[c]) || isnan(chi[c]) || hi[c] <= chi[c]) {
			top[c] = bot[c] = NAN;
			continue;
		}
		top[c] = sp_px_y(sc, hi[c]);
		bot[c] = sp_px_y(sc, fmax(lo[c], chi[c]));
		if (bot[c] - top[c] < BAND_MIN)
			top[c] = bot[c] - BAND_MIN;
		over = true;
	}
	return over;
}

static void put_line_series(const struct svgplot *p, FILE *f, const struct sp_series *sr,
			    const struct sp_scale *sc)
{
	struct sp_out o = { .f = f };

	fputs("<polyline class=\"series\" data-name=\"", f);
	esc_xml_fputs(sr->name, f);
	fprintf(f, "\" fill=\"none\" stroke=\"%s\" stroke-linejoin=\"round\" %s\n points=\"",
		sp_colour(&p->g[sr->group]), sr->kind == SVGPLOT_REF ?
		"stroke-width=\"1.2\" stroke-dasharray=\"5 3\"" : "stroke-width=\"1.5\"");
	put_points(&o, sr, sc);
	/* the same points in data units, exact, for readers of the file */
	fputs("\"\n data-xy=\"", f);
	put_points(&o, sr, NULL);
	fputs("\"><title>", f);
	esc_xml_fputs(sr->name, f);
	fputs("</title></polyline>\n", f);
}

/* grid, frame, marks, series, ticks and title of panel @i */
static int put_panel(const struct svgplot *p, FILE *f, const struct layout *L, int i,
		     double *cols, int ncols)
{
	const struct panel *pn = &L->pn[i];
	const struct axis *ya = pn->total ? &L->ytot : &L->y, *xa = &L->x;
	struct sp_scale sc;
	double right = pn->left + pn->w, label_end = -INFINITY;
	char lab[48];
	int ret = 0;

	sp_panel_scale(L, i, &sc);
	fprintf(f, "<g class=\"panel\" data-panel=\"%d\">\n<clipPath id=\"clip%d\"><rect x=\"%.2f\" "
		"y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/></clipPath>\n", i, i, pn->left,
		pn->top - 1, pn->w, pn->h + 2);
	fputs("<g class=\"grid\" stroke=\"#e3e3e3\" stroke-width=\"1\">\n", f);
	for (int k = 0; k < sp_axis_nticks(xa); k++) {
		double x = sp_px_x(&sc, sp_axis_tick(xa, k, NULL, 0));

		fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n",
			x, pn->top, x, sc.bottom);
	}
	for (int k = 0; k < sp_axis_nticks(ya); k++) {
		double y = sp_px_y(&sc, sp_axis_tick(ya, k, NULL, 0));

		fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n",
			pn->left, y, right, y);
	}
	fputs("</g>\n", f);
	/* marks under the data */
	for (int m = 0; m < p->nmarks; m++) {
		double a = sp_px_x(&sc, p->mark[m].x0), b = sp_px_x(&sc, p->mark[m].x1);

		if (b - a >= 1)
			fprintf(f, "<rect class=\"mark\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				"height=\"%.2f\" fill=\"%s\" fill-opacity=\"0.3\" stroke=\"%s\" "
				"stroke-width=\"0.8\"/>\n", a, pn->top, b - a, pn->h, MARK_FILL,
				MARK_LINE);
		else
			fprintf(f, "<line class=\"mark\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
				"y2=\"%.2f\" stroke=\"%s\" stroke-width=\"1.2\" "
				"stroke-dasharray=\"3 2\"/>\n", (a + b) / 2, pn->top, (a + b) / 2,
				sc.bottom, MARK_LINE);
	}
	fprintf(f, "<g class=\"data\" clip-path=\"url(#clip%d)\">\n", i);
	/* bands, then references, then limits on top */
	for (int kind = SVGPLOT_BAND; kind >= SVGPLOT_LINE; kind--)
		for (int s = 0; s < p->ns; s++) {
			const struct sp_series *sr = &p->s[s];
			bool tot = p->g[sr->group].flags & SVGPLOT_TOTAL;

			if (!sr->count || (int)sr->kind != kind || tot != pn->total ||
			    (pn->group >= 0 && sr->group != pn->group))
				continue;
			if (kind == SVGPLOT_BAND)
				put_band(p, f, sr, &sc, cols, ncols);
			else
				put_line_series(p, f, sr, &sc);
		}
	fputs("</g>\n", f);
	fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" "
		"stroke=\"#555555\"/>\n", pn->left, pn->top, pn->w, pn->h);
	/* ticks */
	fprintf(f, "<g class=\"ticks\" fill=\"#333333\">\n");
	for (int k = 0; k < sp_axis_nticks(ya); k++) {
		double v = sp_axis_tick(ya, k, lab, sizeof(lab));

		put_text(f, pn->left - 6, sp_px_y(&sc, v) + 4, F_TICK, "end", NULL, lab);
	}
	for (int k = 0; pn->xticks && k < sp_axis_nticks(xa); k++) {
		double v = sp_axis_tick(xa, k, lab, sizeof(lab));

		put_text(f, sp_px_x(&sc, v), sc.bottom + 16, F_TICK, "middle", NULL, lab);
	}
	fputs("</g>\n", f);
	/* the panel's title: its group, in its colour */
	if (pn->group >= 0) {
		const struct sp_group *g = &p->g[pn->group];

		ret = put_text_fit(f, pn->left, pn->top - 6, F_PANEL, "start", sp_colour(g),
				   g->name, pn->w);
		if (!ret && g->note)
			ret = put_text_fit(f, pn->left + pn->w / 2, pn->top + pn->h / 2 + 4, F_PANEL,
					   "middle", "#777777", g->note, pn->w - 8);
	} else if (L->empty) {
		put_text(f, pn->left + pn->w / 2, pn->top + pn->h / 2, 14, "middle", "#777777",
			 "no data");
	}
	/* marks' labels in the top row, where they fit */
	for (int m = 0; m < p->nmarks && pn->first_row && !ret; m++) {
		char line[SP_LINE];
		double x = sp_px_x(&sc, p->mark[m].x0) + 3, w;

		ret = sp_fit_line(NULL, p->mark[m].label, F_MARK, right - x - 2, line, sizeof(line));
		w = svgplot_text_width(line, F_MARK);
		if (ret || x < label_end + 6 || x + w > right - 2 || x < pn->left)
			continue;
		put_text(f, x, pn->top + 12, F_MARK, "start", MARK_LINE, line);
		label_end = x + w;
	}
	fputs("</g>\n", f);
	return ret;
}

/* a legend entry's sample and text */
static void put_key(FILE *f, const struct key *k)
{
	double x = k->x, y = k->y - 4;

	switch (k->kind) {
	case SVGPLOT_LINE:
	case SVGPLOT_REF:
		fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" %s/>\n",
			x, y, x + KEY_SAMPLE, y, k->colour, k->kind == SVGPLOT_REF ?
			"stroke-width=\"1.2\" stroke-dasharray=\"5 3\"" : "stroke-width=\"2\"");
		break;
	case SVGPLOT_BAND:
		fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"10\" fill=\"%s\" "
			"fill-opacity=\"0.3\"/>\n", x, y - 5, KEY_SAMPLE, k->colour);
		break;
	case SVGPLOT_NKINDS:
		fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"10\" "
			"fill=\"url(#hatch)\" stroke=\"#c0392b\" stroke-width=\"0.5\"/>\n",
			x, y - 5, KEY_SAMPLE);
		break;
	case KEY_GROUP:
		fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"10\" fill=\"%s\" "
			"fill-opacity=\"0.3\"/>\n<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
			"y2=\"%.2f\" stroke=\"%s\" stroke-width=\"2\"/>\n", x, y - 5, KEY_SAMPLE,
			k->colour, x, y - 2, x + KEY_SAMPLE, y - 2, k->colour);
		break;
	case KEY_SPAN:
		fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"10\" fill=\"%s\" "
			"fill-opacity=\"0.3\" stroke=\"%s\" stroke-width=\"0.8\"/>\n", x, y - 5,
			KEY_SAMPLE, MARK_FILL, MARK_LINE);
		break;
	default:
		fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
			"stroke-width=\"1.2\" stroke-dasharray=\"3 2\"/>\n", x + KEY_SAMPLE / 2,
			y - 6, x + KEY_SAMPLE / 2, y + 6, MARK_LINE);
		break;
	}
	put_text(f, x + KEY_SAMPLE + 6, k->y, F_LEGEND, "start", k->kind == KEY_GROUP ?
		 k->colour : "#222222", k->text);
}

int svgplot_write(struct svgplot *p, FILE *f, struct bql_err *e)
{
	struct key *keys = malloc(MAX_KEYS * sizeof(*keys));
	struct layout *L = malloc(sizeof(*L));
	bool *has = calloc((size_t)p->ng + 1, sizeof(*has));
	double *cols = NULL, mid;
	int nkeys = 0, ncols = 0, ret = -ENOMEM;
	const char *s;
	char xlabel[600];

	if (!keys || !L || !has)
		goto out;
	sp_groups_with_data(p, has);
	ret = sp_lay_out(p, L, has, keys, &nkeys);
	if (ret)
		goto out;
	for (int i = 0; i < L->npanels; i++)
		ncols = (int)fmax(ncols, ceil(L->pn[i].w) + 1);
	cols = malloc((size_t)ncols * 6 * sizeof(*cols));
	if (!cols) {
		ret = -ENOMEM;
		goto out;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"font-family=\"DejaVu Sans, Bitstream Vera Sans, sans-serif\">\n<title>",
		L->width, ceil(L->height), L->width, ceil(L->height));
	esc_xml_fputs(p->title, f);
	fputs("</title>\n<defs><pattern id=\"hatch\" patternUnits=\"userSpaceOnUse\" width=\"6\" "
	      "height=\"6\" patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" "
	      "fill=\"#f5b7b1\" fill-opacity=\"0.5\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" "
	      "stroke=\"#c0392b\" stroke-width=\"2\"/></pattern></defs>\n"
	      "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n", f);
	s = L->title;
	for (int i = 0; i < L->ntitle; i++, s += strlen(s) + 1)
		put_text(f, L->width / 2, L->title_y + i * 20.0, F_TITLE, "middle", NULL, s);
	s = L->note;
	for (int i = 0; i < L->nnote; i++, s += strlen(s) + 1)
		put_text(f, L->width / 2, L->note_y + i * 16.0, F_NOTE, "middle", "#444444", s);
	fputs("<g class=\"legend\">\n", f);
	for (int i = 0; i < nkeys; i++)
		put_key(f, &keys[i]);
	fputs("</g>\n", f);
	for (int i = 0; i < L->npanels && !ret; i++)
		ret = put_panel(p, f, L, i, cols, ncols);
	if (ret)
		goto out;
	/* the axes' labels: x under everything, y along the panels */
	snprintf(xlabel, sizeof(xlabel), "%s%s%s%s", p->xlabel, p->x_time ? " (" : "",
		 p->x_time ? sp_time_unit(&L->x) : "", p->x_time ? ")" : "");
	ret = put_text_fit(f, L->pn[0].left + (L->width - MARGIN - L->pn[0].left) / 2,
			   L->xlabel_y, F_LABEL, "middle", NULL, xlabel, L->width - 2 * MARGIN);
	mid = (L->pn[0].top + L->pn[L->npanels - 1].top + L->pn[L->npanels - 1].h) / 2;
	if (!ret && p->ylabel[0]) {
		char line[SP_LINE];

		ret = sp_fit_line(NULL, p->ylabel, F_LABEL, L->pn[L->npanels - 1].top +
			       L->pn[L->npanels - 1].h - L->pn[0].top, line, sizeof(line));
		fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%g\" text-anchor=\"middle\" "
			"transform=\"rotate(-90 %.2f %.2f)\">", MARGIN + 10, mid, F_LABEL,
			MARGIN + 10, mid);
		sp_put_text(f, line);
		fputs("</text>\n", f);
	}
	fputs("</svg>\n", f);
	if (!ret && (fflush(f) || ferror(f)))
		ret = bql_err_set(e, EIO, "plot: write error");
out:
	free(cols);
	free(has);
	free(L);
	free(keys);
	return ret;
}
