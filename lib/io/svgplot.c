// SPDX-License-Identifier: GPL-2.0-only
/*
 * SVG line charts with bounded memory: min/max-preserving downsampling as
 * points arrive, nice axis ticks, a legend, escaped text.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/io/esc.h"
#include "lib/io/svgplot.h"

struct sp_pt {
	double x, y;
	uint64_t seq;		/* arrival order, to draw a bucket's points in order */
};

/*
 * A bucket stands for `per` consecutive points by its telling ones: first,
 * last, lowest, highest, and the two ends of its widest x gap. Without the
 * gap's ends a bucket that spans an idle period (a burst that drains to 0,
 * nothing, the next burst) could keep the burst's maximum and the next
 * burst's values and lose the drain: the line then carried the maximum
 * across the gap.
 */
struct sp_bucket {
	struct sp_pt first, last, lo, hi, gap_a, gap_b;
	double gap;		/* gap_b.x - gap_a.x, 0 while none */
	uint64_t n;
};

struct sp_series {
	char *name;
	unsigned int flags;
	struct sp_bucket *b;
	size_t nb;
	uint64_t per;		/* points per full bucket: 1, 2, 4, ... */
	uint64_t left;		/* points the last bucket still takes */
	uint64_t count;		/* points given */
	double xmin, xmax;	/* (the y range is that of the buckets' lo and hi) */
};

struct svgplot {
	char *title, *xlabel, *ylabel;
	unsigned int width, height;
	bool y_zero, y_bytes;
	struct sp_series *s;
	int ns;
};

static const char *const palette[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};
#define NPALETTE (int)(sizeof(palette) / sizeof(palette[0]))

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

struct svgplot *svgplot_new(const char *title, const char *xlabel,
			    const char *ylabel)
{
	struct svgplot *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->title = dup_or_empty(title);
	p->xlabel = dup_or_empty(xlabel);
	p->ylabel = dup_or_empty(ylabel);
	p->width = 960;
	p->height = 540;
	p->y_zero = true;
	if (!p->title || !p->xlabel || !p->ylabel) {
		svgplot_free(p);
		return NULL;
	}
	return p;
}

void svgplot_set_size(struct svgplot *p, unsigned int width, unsigned int height)
{
	p->width = width < 320 ? 320 : width;
	p->height = height < 200 ? 200 : height;
}

void svgplot_set_y_bytes(struct svgplot *p, bool bytes)
{
	p->y_bytes = bytes;
}

void svgplot_set_y_zero(struct svgplot *p, bool from_zero)
{
	p->y_zero = from_zero;
}

int svgplot_series(struct svgplot *p, const char *name)
{
	struct sp_series *ns = realloc(p->s, ((size_t)p->ns + 1) * sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	p->s = ns;
	ns = &p->s[p->ns];
	memset(ns, 0, sizeof(*ns));
	ns->name = dup_or_empty(name);
	ns->b = malloc(SVGPLOT_BUCKETS * sizeof(*ns->b));
	if (!ns->name || !ns->b) {
		free(ns->name);
		free(ns->b);
		return -ENOMEM;
	}
	ns->per = 1;
	return p->ns++;
}

int svgplot_set_title(struct svgplot *p, const char *title)
{
	char *t = dup_or_empty(title);

	if (!t)
		return -ENOMEM;
	free(p->title);
	p->title = t;
	return 0;
}

void svgplot_keep(struct svgplot *p, const bool *keep)
{
	int n = 0;

	for (int i = 0; i < p->ns; i++) {
		if (!keep[i]) {
			free(p->s[i].name);
			free(p->s[i].b);
			continue;
		}
		p->s[n++] = p->s[i];
	}
	p->ns = n;
}

void svgplot_series_flags(struct svgplot *p, int s, unsigned int flags)
{
	if (s >= 0 && s < p->ns)
		p->s[s].flags = flags;
}

/* @a then @b (consecutive) as one bucket; first minimum/maximum wins ties. */
static void bucket_merge(struct sp_bucket *out, const struct sp_bucket *a,
			 const struct sp_bucket *b)
{
	struct sp_bucket m = *a;
	double join = b->first.x - a->last.x;

	m.last = b->last;
	/* the widest gap: inside a, inside b, or between them */
	if (b->gap > m.gap) {
		m.gap = b->gap;
		m.gap_a = b->gap_a;
		m.gap_b = b->gap_b;
	}
	if (join > m.gap) {
		m.gap = join;
		m.gap_a = a->last;
		m.gap_b = b->first;
	}
	if (b->lo.y < m.lo.y)
		m.lo = b->lo;
	if (b->hi.y > m.hi.y)
		m.hi = b->hi;
	m.n = a->n + b->n;
	*out = m;
}

void svgplot_point(struct svgplot *p, int s, double x, double y)
{
	struct sp_series *sr;
	struct sp_bucket *b;
	struct sp_pt pt;

	if (s < 0 || s >= p->ns || !isfinite(x) || !isfinite(y))
		return;
	sr = &p->s[s];
	pt = (struct sp_pt){ x, y, sr->count };
	if (!sr->count)
		sr->xmin = sr->xmax = x;
	sr->xmin = x < sr->xmin ? x : sr->xmin;
	sr->xmax = x > sr->xmax ? x : sr->xmax;
	sr->count++;
	if (sr->left) {
		b = &sr->b[sr->nb - 1];
		if (x - b->last.x > b->gap) {
			b->gap = x - b->last.x;
			b->gap_a = b->last;
			b->gap_b = pt;
		}
		b->last = pt;
		if (y < b->lo.y)
			b->lo = pt;
		if (y > b->hi.y)
			b->hi = pt;
		b->n++;
		sr->left--;
		return;
	}
	if (sr->nb == SVGPLOT_BUCKETS) {
		/* full: pairs of buckets become one, twice as wide (all full) */
		for (size_t i = 0; i < SVGPLOT_BUCKETS / 2; i++)
			bucket_merge(&sr->b[i], &sr->b[2 * i], &sr->b[2 * i + 1]);
		sr->nb = SVGPLOT_BUCKETS / 2;
		sr->per *= 2;
	}
	b = &sr->b[sr->nb++];
	b->first = b->last = b->lo = b->hi = b->gap_a = b->gap_b = pt;
	b->gap = 0;
	b->n = 1;
	sr->left = sr->per - 1;
}

/* the least and greatest y of @sr (given points): its buckets' lo and hi */
static void series_yrange(const struct sp_series *sr, double *lo, double *hi)
{
	*lo = sr->b[0].lo.y;
	*hi = sr->b[0].hi.y;
	for (size_t i = 1; i < sr->nb; i++) {
		*lo = sr->b[i].lo.y < *lo ? sr->b[i].lo.y : *lo;
		*hi = sr->b[i].hi.y > *hi ? sr->b[i].hi.y : *hi;
	}
}

/* The distinct telling points of @b in arrival order; returns how many. */
static int bucket_points(const struct sp_bucket *b, struct sp_pt out[6])
{
	const struct sp_pt *c[6] = { &b->first, &b->lo, &b->hi, &b->gap_a, &b->gap_b, &b->last };
	int n = 0;

	for (int i = 0; i < 6; i++) {
		int j = n;
		bool dup = false;

		for (int k = 0; k < n; k++)
			dup |= out[k].seq == c[i]->seq;
		if (dup)
			continue;
		while (j > 0 && out[j - 1].seq > c[i]->seq) {
			out[j] = out[j - 1];
			j--;
		}
		out[j] = *c[i];
		n++;
	}
	return n;
}

size_t svgplot_npoints(const struct svgplot *p, int s)
{
	struct sp_pt pts[6];
	size_t n = 0;

	if (s < 0 || s >= p->ns)
		return 0;
	for (size_t i = 0; i < p->s[s].nb; i++)
		n += (size_t)bucket_points(&p->s[s].b[i], pts);
	return n;
}

unsigned long long svgplot_count(const struct svgplot *p, int s)
{
	return s >= 0 && s < p->ns ? p->s[s].count : 0;
}

void svgplot_free(struct svgplot *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->ns; i++) {
		free(p->s[i].name);
		free(p->s[i].b);
	}
	free(p->s);
	free(p->title);
	free(p->xlabel);
	free(p->ylabel);
	free(p);
}

/* ------------------------------------------------------------ axes */

struct axis {
	double lo, hi, step;
	double div;		/* tick labels are value / div ... */
	const char *suffix;	/* ... followed by this: "", "k", "M", "G" */
	int decimals;
};

/* 1, 2 or 5 times a power of ten, about @range / @target */
static double nice_step(double range, int target)
{
	double raw = range / target, mag = pow(10, floor(log10(raw))), norm = raw / mag;

	if (norm < 1.5)
		return mag;
	if (norm < 3)
		return 2 * mag;
	if (norm < 7)
		return 5 * mag;
	return 10 * mag;
}

/* 1024-based ticks for bytes: "24 KiB", as the rest of bqltool prints them */
static void axis_fit_bytes(struct axis *a, double lo, double hi, int target)
{
	static const char *const sfx[] = { " B", " KiB", " MiB", " GiB", " TiB" };
	double big = fmax(fabs(lo), fabs(hi)), u = 1;
	int k = 0;

	if (hi <= lo) {
		double d = fabs(lo) > 0 ? fabs(lo) / 10 : 1;

		lo -= d;
		hi += d;
	}
	while (k < 4 && big >= 1024 * u) {
		u *= 1024;
		k++;
	}
	a->step = nice_step((hi - lo) / u, target) * u;
	a->lo = floor(lo / a->step) * a->step;
	a->hi = ceil(hi / a->step) * a->step;
	a->div = u;
	a->suffix = sfx[k];
	a->decimals = (int)-floor(log10(a->step / a->div) + 1e-9);
	if (a->decimals < 0)
		a->decimals = 0;
}

static void axis_fit(struct axis *a, double lo, double hi, int target)
{
	double big;

	if (hi <= lo) {
		double d = fabs(lo) > 0 ? fabs(lo) / 10 : 1;

		lo -= d;
		hi += d;
	}
	a->step = nice_step(hi - lo, target);
	a->lo = floor(lo / a->step) * a->step;
	a->hi = ceil(hi / a->step) * a->step;
	big = fmax(fabs(a->lo), fabs(a->hi));
	a->div = 1;
	a->suffix = "";
	if (a->step >= 1000 && big >= 1e9) {
		a->div = 1e9;
		a->suffix = "G";
	} else if (a->step >= 1000 && big >= 1e6) {
		a->div = 1e6;
		a->suffix = "M";
	} else if (a->step >= 100 && big >= 1e4) {
		a->div = 1e3;
		a->suffix = "k";
	}
	a->decimals = (int)-floor(log10(a->step / a->div) + 1e-9);
	if (a->decimals < 0)
		a->decimals = 0;
}

static void fmt_tick(const struct axis *a, double v, char *buf, size_t n)
{
	double x = v / a->div;

	if (fabs(x) < a->step / a->div / 1e6)
		x = 0;	/* no "-0" and no 1e-17 from rounding */
	snprintf(buf, n, "%.*f%s", a->decimals, x, x ? a->suffix : "");
}

/* ------------------------------------------------------------ output */

/* text from outside (queue names, paths): valid XML, no raw control */
static void put_esc(FILE *f, const char *s)
{
	esc_xml_fputs(s, f);
}

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

struct frame {
	double left, right, top, bottom;	/* plot area in pixels */
	struct axis x, y;
	bool empty;
};

static void put_axes(const struct svgplot *p, FILE *f, const struct frame *fr)
{
	double sx = (fr->right - fr->left) / (fr->x.hi - fr->x.lo);
	double sy = (fr->bottom - fr->top) / (fr->y.hi - fr->y.lo);
	char lab[48];

	fprintf(f, "<g class=\"grid\" stroke=\"#dddddd\" stroke-width=\"1\">\n");
	for (int i = 0; i <= 1000; i++) {
		double v = fr->x.lo + i * fr->x.step, px = fr->left + (v - fr->x.lo) * sx;

		if (v > fr->x.hi + fr->x.step / 2)
			break;
		fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n",
			px, fr->top, px, fr->bottom);
	}
	for (int i = 0; i <= 1000; i++) {
		double v = fr->y.lo + i * fr->y.step, py = fr->bottom - (v - fr->y.lo) * sy;

		if (v > fr->y.hi + fr->y.step / 2)
			break;
		fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n",
			fr->left, py, fr->right, py);
	}
	fprintf(f, "</g>\n<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
		"fill=\"none\" stroke=\"#333333\"/>\n", fr->left, fr->top,
		fr->right - fr->left, fr->bottom - fr->top);
	fprintf(f, "<g class=\"ticks\" font-size=\"11\" fill=\"#333333\">\n");
	for (int i = 0; i <= 1000; i++) {
		double v = fr->x.lo + i * fr->x.step;

		if (v > fr->x.hi + fr->x.step / 2)
			break;
		fmt_tick(&fr->x, v, lab, sizeof(lab));
		fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%s</text>\n",
			fr->left + (v - fr->x.lo) * sx, fr->bottom + 16, lab);
	}
	for (int i = 0; i <= 1000; i++) {
		double v = fr->y.lo + i * fr->y.step;

		if (v > fr->y.hi + fr->y.step / 2)
			break;
		fmt_tick(&fr->y, v, lab, sizeof(lab));
		fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%s</text>\n",
			fr->left - 6, fr->bottom - (v - fr->y.lo) * sy + 4, lab);
	}
	fprintf(f, "</g>\n<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" font-size=\"13\">",
		(fr->left + fr->right) / 2, fr->bottom + 40);
	put_esc(f, p->xlabel);
	fprintf(f, "</text>\n<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" font-size=\"13\" "
		"transform=\"rotate(-90 %.2f %.2f)\">", 18.0, (fr->top + fr->bottom) / 2,
		18.0, (fr->top + fr->bottom) / 2);
	put_esc(f, p->ylabel);
	fputs("</text>\n", f);
	if (fr->empty)
		fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" font-size=\"14\" "
			"fill=\"#777777\">no data</text>\n", (fr->left + fr->right) / 2,
			(fr->top + fr->bottom) / 2);
}

/* One attribute with every point of @sr: pixels, or data units (@px NULL). */
static void put_points(struct sp_out *o, const struct sp_series *sr, const struct frame *fr,
		       const double *px)
{
	bool first = true, step = px && (sr->flags & SVGPLOT_STEP);
	double prev_py = 0;

	for (size_t b = 0; b < sr->nb; b++) {
		struct sp_pt pts[6];
		int n = bucket_points(&sr->b[b], pts);

		for (int k = 0; k < n; k++) {
			double x = pts[k].x, y = pts[k].y;
			char *p;

			if (o->n > SP_BUF - SP_ROOM)
				sp_flush(o);
			p = o->b + o->n;
			if (!first)
				*p++ = ' ';
			if (!px) {
				p = fmt_num(p, x);
				*p++ = ',';
				p = fmt_num(p, y);
			} else {
				x = fr->left + (x - fr->x.lo) * px[0];
				y = fr->bottom - (y - fr->y.lo) * px[1];
				if (step && !first) {
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

static void put_series(const struct svgplot *p, FILE *f, const struct frame *fr)
{
	double scale[2] = { (fr->right - fr->left) / (fr->x.hi - fr->x.lo),
			    (fr->bottom - fr->top) / (fr->y.hi - fr->y.lo) };
	struct sp_out o = { .f = f };

	fputs("<g class=\"data\" clip-path=\"url(#plotarea)\">\n", f);
	for (int i = 0; i < p->ns; i++) {
		const struct sp_series *sr = &p->s[i];

		if (!sr->count)
			continue;
		fputs("<polyline class=\"series\" data-name=\"", f);
		put_esc(f, sr->name);
		fprintf(f, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
			"stroke-linejoin=\"round\"%s\n points=\"", palette[i % NPALETTE],
			sr->flags & SVGPLOT_DASHED ? " stroke-dasharray=\"6 3\"" : "");
		put_points(&o, sr, fr, scale);
		/* the same points in data units, exact, for readers of the file */
		fputs("\"\n data-xy=\"", f);
		put_points(&o, sr, fr, NULL);
		fputs("\"><title>", f);
		put_esc(f, sr->name);
		fputs("</title></polyline>\n", f);
	}
	fputs("</g>\n", f);
}

static void put_legend(const struct svgplot *p, FILE *f, const struct frame *fr)
{
	double x = fr->right + 16, y = fr->top + 8;

	fprintf(f, "<g class=\"legend\" font-size=\"12\">\n");
	for (int i = 0; i < p->ns; i++, y += 18) {
		fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
			"stroke-width=\"2\"%s/>\n", x, y, x + 24, y, palette[i % NPALETTE],
			p->s[i].flags & SVGPLOT_DASHED ? " stroke-dasharray=\"6 3\"" : "");
		fprintf(f, "<text x=\"%.2f\" y=\"%.2f\">", x + 30, y + 4);
		put_esc(f, p->s[i].name);
		fputs("</text>\n", f);
	}
	fputs("</g>\n", f);
}

int svgplot_write(struct svgplot *p, FILE *f, struct bql_err *e)
{
	double xmin = 0, xmax = 1, ymin = 0, ymax = 1;
	unsigned int height = p->height;
	struct frame fr = { .empty = true };
	int legend_h = p->ns * 18 + 56;

	for (int i = 0; i < p->ns; i++) {
		const struct sp_series *sr = &p->s[i];
		double ylo, yhi;

		if (!sr->count)
			continue;
		series_yrange(sr, &ylo, &yhi);
		if (fr.empty) {
			xmin = sr->xmin;
			xmax = sr->xmax;
			ymin = ylo;
			ymax = yhi;
			fr.empty = false;
		}
		xmin = fmin(xmin, sr->xmin);
		xmax = fmax(xmax, sr->xmax);
		ymin = fmin(ymin, ylo);
		ymax = fmax(ymax, yhi);
	}
	if (p->y_zero && ymin > 0)
		ymin = 0;
	if (p->y_zero && ymax < 0)
		ymax = 0;
	if ((unsigned int)legend_h > height)
		height = (unsigned int)legend_h;
	fr.left = 80;
	fr.right = p->width - 220.0;
	fr.top = 40;
	fr.bottom = height - 60.0;
	axis_fit(&fr.x, xmin, xmax, 8);
	if (p->y_bytes)
		axis_fit_bytes(&fr.y, ymin, ymax, 6);
	else
		axis_fit(&fr.y, ymin, ymax, 6);

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%u\" "
		"height=\"%u\" viewBox=\"0 0 %u %u\" font-family=\"sans-serif\">\n<title>",
		p->width, height, p->width, height);
	put_esc(f, p->title);
	fprintf(f, "</title>\n<defs><clipPath id=\"plotarea\"><rect x=\"%.2f\" y=\"%.2f\" "
		"width=\"%.2f\" height=\"%.2f\"/></clipPath></defs>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
		fr.left - 2, fr.top - 2, fr.right - fr.left + 4, fr.bottom - fr.top + 4);
	fprintf(f, "<text x=\"%.2f\" y=\"24\" text-anchor=\"middle\" font-size=\"16\">",
		(fr.left + fr.right) / 2);
	put_esc(f, p->title);
	fputs("</text>\n", f);
	put_axes(p, f, &fr);
	put_series(p, f, &fr);
	put_legend(p, f, &fr);
	fputs("</svg>\n", f);
	if (fflush(f) || ferror(f))
		return bql_err_set(e, EIO, "plot: write error");
	return 0;
}
