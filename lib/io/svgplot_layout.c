// SPDX-License-Identifier: GPL-2.0-only
/*
 * The chart's layout (lib/io/svgplot.h): axes with ticks at 1-2-5 steps of
 * their unit, title and note lines, the legend, the panels' places, all
 * measured in pixels with svgplot_text_width(). Drawn by svgplot_draw.c.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/io/svgplot.h"
#include "lib/io/svgplot_int.h"

/* ------------------------------------------------------------ axes */



/* 1, 2 or 5 times a power of ten, about @raw */
static double nice_step(double raw)
{
	double mag = pow(10, floor(log10(raw))), norm = raw / mag;

	if (norm < 1.5)
		return mag;
	if (norm < 3)
		return 2 * mag;
	if (norm < 7)
		return 5 * mag;
	return 10 * mag;
}

/* the next 1-2-5 step after @s */
static double next_step(double s)
{
	double mag = pow(10, floor(log10(s) + 1e-9)), norm = s / mag;

	return norm < 1.5 ? 2 * mag : norm < 3 ? 5 * mag : 10 * mag;
}

static void axis_span(struct axis *a)
{
	double s = a->step * a->unit;

	a->lo = floor(a->lo / s + 1e-9) * s;
	a->hi = ceil(a->hi / s - 1e-9) * s;
	if (a->hi <= a->lo)
		a->hi = a->lo + s;
}

/*
 * Ticks of [lo, hi] about @target of them: bytes in B/KiB/MiB/GiB/TiB,
 * time (seconds) in s/ms/us/ns, each the largest unit whose 1-2-5 step is
 * a whole number of it (or a step of 1 when that gives 4 ticks or more);
 * else decimals. No step spans fewer than @minpx
 * pixels of @px (the axis length).
 */
static void axis_fit(struct axis *a, double lo, double hi, int target, bool bytes, bool time,
		     double px, double minpx)
{
	static const char *const bsfx[] = { " B", " KiB", " MiB", " GiB", " TiB" };
	double range;

	if (hi <= lo) {
		double d = fabs(lo) > 0 ? fabs(lo) / 10 : 1;

		lo -= d;
		hi += d;
	}
	range = hi - lo;
	a->lo = lo;
	a->hi = hi;
	a->decimals = 0;
	a->suffix = "";
	a->unit = 1;
	if (bytes) {
		double big = fmax(fabs(lo), fabs(hi));
		int k = 0;

		while (k < 4 && big >= 1024 * a->unit) {
			a->unit *= 1024;
			k++;
		}
		for (;;) {
			a->step = nice_step(range / a->unit / target);
			if (a->step < 1 && range / a->unit >= 3)
				a->step = 1;	/* fewer ticks rather than 1000 KiB */
			if (a->step >= 1 || !k)
				break;
			a->unit /= 1024;
			k--;
		}
		if (a->step < 1)
			a->step = 1;
		a->suffix = bsfx[k];
	} else if (time) {
		static const double tu[] = { 1, 1e-3, 1e-6, 1e-9 };
		int k = 0;

		for (;;) {
			a->unit = tu[k];
			a->step = nice_step(range / a->unit / target);
			if (a->step < 1 && range / a->unit >= 3)
				a->step = 1;
			if (a->step >= 1 || k == 3)
				break;
			k++;
		}
		if (a->step < 1)
			a->step = 1;
	} else {
		a->step = nice_step(range / target);
		a->decimals = (int)-floor(log10(a->step) + 1e-9);
		if (a->decimals < 0)
			a->decimals = 0;
	}
	axis_span(a);
	while ((a->step * a->unit) / (a->hi - a->lo) * px < minpx && a->hi > a->lo) {
		a->step = next_step(a->step);
		a->lo = lo;
		a->hi = hi;
		axis_span(a);
		if (!bytes && !time) {
			a->decimals = (int)-floor(log10(a->step) + 1e-9);
			if (a->decimals < 0)
				a->decimals = 0;
		}
	}
}

/* the unit of a time axis, for its label */
const char *sp_time_unit(const struct axis *a)
{
	return a->unit == 1 ? "s" : a->unit == 1e-3 ? "ms" : a->unit == 1e-6 ? "us" : "ns";
}

int sp_axis_nticks(const struct axis *a)
{
	double n = (a->hi - a->lo) / (a->step * a->unit);

	return (int)fmin(1000, floor(n + 0.5)) + 1;
}

/* the value of tick @i, and its label into @buf */
double sp_axis_tick(const struct axis *a, int i, char *buf, size_t n)
{
	double first = floor(a->lo / (a->step * a->unit) + 0.5);	/* whole steps */
	double u = (first + i) * a->step;	/* in units */

	if (fabs(u) < a->step / 1e6)
		u = 0;	/* no "-0" and no 1e-17 from rounding */
	if (buf) {
		if (a->decimals)
			snprintf(buf, n, "%.*f%s", a->decimals, u, u ? a->suffix : "");
		else
			snprintf(buf, n, "%.0f%s", u, u ? a->suffix : "");
	}
	return u * a->unit;
}

/* the widest tick label of @a at @size */
static double axis_label_width(const struct sp_font *ft, const struct axis *a, double size)
{
	double w = 0;
	char lab[48];

	for (int i = 0; i < sp_axis_nticks(a); i++) {
		sp_axis_tick(a, i, lab, sizeof(lab));
		w = fmax(w, sp_text_w(ft, lab, size));
	}
	return w;
}

/* ------------------------------------------------------------ layout */

static const char *const palette[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2", "#bcbd22", "#17becf", "#393b79",
};
#define NPALETTE	(int)(sizeof(palette) / sizeof(palette[0]))

const char *sp_colour(const struct sp_group *g)
{
	return g->colour < 0 ? TOTAL_COLOUR : palette[g->colour % NPALETTE];
}




/* the groups with data: one flag each in @has (ng of them) */
void sp_groups_with_data(const struct svgplot *p, bool *has)
{
	memset(has, 0, (size_t)p->ng * sizeof(*has));
	for (int i = 0; i < p->ns; i++)
		if (p->s[i].count)
			has[p->s[i].group] = true;
}

/* the x range, and the y ranges of the queues' and the total's series */
static bool data_ranges(const struct svgplot *p, double *x, double *yq, double *yt)
{
	bool any = false, q = false, t = false;

	for (int i = 0; i < p->ns; i++) {
		const struct sp_series *sr = &p->s[i];
		bool tot = p->g[sr->group].flags & SVGPLOT_TOTAL;
		double *y = tot ? yt : yq, lo, hi;
		bool *seen = tot ? &t : &q;

		if (!sr->count)
			continue;
		sp_series_yrange(sr, &lo, &hi);
		x[0] = any ? fmin(x[0], sr->xmin) : sr->xmin;
		x[1] = any ? fmax(x[1], sr->xmax) : sr->xmax;
		y[0] = *seen ? fmin(y[0], lo) : lo;
		y[1] = *seen ? fmax(y[1], hi) : hi;
		any = *seen = true;
	}
	return any;
}

/* one panel per group: more than 4, or peaks more than 2.5 apart */
static bool want_panels(const struct svgplot *p, const bool *has)
{
	double pmin = INFINITY, pmax = 0;
	int n = 0;

	if (p->layout != SVGPLOT_AUTO)
		return p->layout == SVGPLOT_PANELS;
	for (int g = 0; g < p->ng; g++) {
		double peak = 0, lo, hi;

		if (!has[g] || (p->g[g].flags & SVGPLOT_TOTAL))
			continue;
		n++;
		for (int i = 0; i < p->ns; i++)
			if (p->s[i].group == g && p->s[i].count) {
				sp_series_yrange(&p->s[i], &lo, &hi);
				peak = fmax(peak, fabs(hi));
			}
		pmin = fmin(pmin, peak);
		pmax = fmax(pmax, peak);
	}
	return n > 4 || (n > 1 && pmax > 2.5 * pmin);
}


/* @s printed and fitted on one line of @width at @size into @out */
int sp_fit_line(const struct sp_font *ft, const char *s, double size, double width, char *out,
		size_t n)
{
	char *t = sp_printed(s), buf[SP_LINE];

	if (!t)
		return -ENOMEM;
	if (!sp_wrap(ft, t, size, width, 1, buf, sizeof(buf)))
		buf[0] = '\0';
	free(t);
	if (strlen(buf) >= n) {
		/* cut short: at a character's start, never inside one */
		size_t k = n - 1;

		while (k && (buf[k] & 0xc0) == 0x80)
			k--;
		buf[k] = '\0';
	}
	snprintf(out, n, "%s", buf);
	return 0;
}

static int add_key(const struct sp_font *ft, struct key *k, int *nk, int kind,
		   const char *colour, const char *text, double width)
{
	struct key *e = &k[*nk];
	int ret;

	if (*nk == MAX_KEYS)
		return 0;
	e->kind = kind;
	e->colour = colour;
	ret = sp_fit_line(ft, text, F_LEGEND, width - KEY_SAMPLE - 6, e->text, sizeof(e->text));
	if (ret)
		return ret;
	e->w = KEY_SAMPLE + 6 + sp_text_w(ft, e->text, F_LEGEND);
	(*nk)++;
	return 0;
}

/* what the legend says: groups sharing a panel, kinds drawn, marks */
static int make_keys(const struct svgplot *p, const struct layout *L, const bool *has,
		     struct key *k, int *nk)
{
	double room = L->width - 2 * MARGIN;
	bool kind_used[SVGPLOT_NKINDS + 1] = { false };
	int ret = 0;

	*nk = 0;
	for (int i = 0; i < L->npanels; i++) {
		int n = 0;

		if (L->pn[i].group >= 0 || L->pn[i].total)
			continue;
		for (int g = 0; g < p->ng; g++)
			n += has[g] && !(p->g[g].flags & SVGPLOT_TOTAL);
		for (int g = 0; g < p->ng && n > 1 && !ret; g++) {
			char name[1024];

			if (!has[g] || (p->g[g].flags & SVGPLOT_TOTAL))
				continue;
			snprintf(name, sizeof(name), "%s%s%s%s", p->g[g].name, p->g[g].note ? " (" : "",
				 p->g[g].note ? p->g[g].note : "", p->g[g].note ? ")" : "");
			ret = add_key(p->font, k, nk, KEY_GROUP, sp_colour(&p->g[g]), name, room);
		}
	}
	for (int i = 0; i < p->ns; i++)
		if (p->s[i].count) {
			kind_used[p->s[i].kind] = true;
			if (p->s[i].cap >= 0)
				kind_used[SVGPLOT_NKINDS] = true;
		}
	for (int kd = 0; kd <= SVGPLOT_NKINDS && !ret; kd++)
		if (kind_used[kd] && p->legend[kd] && p->legend[kd][0])
			ret = add_key(p->font, k, nk, kd, KEY_COLOUR, p->legend[kd], room);
	for (int m = 0; m < p->nmarks && !ret; m++)
		ret = add_key(p->font, k, nk, p->mark[m].x1 > p->mark[m].x0 ? KEY_SPAN : KEY_LINE,
			      MARK_LINE, p->mark[m].label, room);
	return ret;
}

/* the keys in rows from @y; returns the y below them */
static double place_keys(struct key *k, int nk, double width, double y)
{
	double x = MARGIN;

	if (!nk)
		return y;
	y += 14;
	for (int i = 0; i < nk; i++) {
		if (x > MARGIN && x + k[i].w > width - MARGIN) {
			x = MARGIN;
			y += 18;
		}
		k[i].x = x;
		k[i].y = y;
		x += k[i].w + 18;
	}
	return y + 10;
}

/*
 * Everything's place: title and note lines, the legend, the panels (one
 * column, or two when more than 3 queue panels; the total full width at
 * the bottom), the axes' ticks. 0 or -ENOMEM.
 */
int sp_lay_out(const struct svgplot *p, struct layout *L, const bool *has,
		   struct key *keys, int *nkeys)
{
	double xr[2] = { 0, 1 }, yq[2] = { 0, 1 }, yt[2] = { 0, 1 };
	double y, left, plot_w, plot_h, lw, col_gap = 0, xlw;
	int nq = 0, cols, rows, ret;
	bool panels;
	char *t;

	memset(L, 0, sizeof(*L));
	L->width = p->width;
	L->empty = !data_ranges(p, xr, yq, yt);
	for (int g = 0; g < p->ng; g++) {
		if (!has[g])
			continue;
		if (p->g[g].flags & SVGPLOT_TOTAL)
			L->has_total = true;
		else
			nq++;
	}
	L->has_queues = nq > 0 || !L->has_total;
	if (p->y_zero) {
		yq[0] = fmin(yq[0], 0);
		yt[0] = fmin(yt[0], 0);
		yq[1] = fmax(yq[1], 0);
		yt[1] = fmax(yt[1], 0);
	}
	for (int m = 0; m < p->nmarks && !L->empty; m++) {
		xr[0] = fmin(xr[0], p->mark[m].x0);
		xr[1] = fmax(xr[1], p->mark[m].x1);
	}
	panels = want_panels(p, has);

	/* the panels, in order: queues, then the total */
	if (panels) {
		for (int g = 0; g < p->ng && L->npanels < MAX_PANELS - 1; g++)
			if (has[g] && !(p->g[g].flags & SVGPLOT_TOTAL))
				L->pn[L->npanels++].group = g;
	} else if (L->has_queues) {
		L->pn[L->npanels++].group = -1;
		if (nq == 1)
			for (int g = 0; g < p->ng; g++)
				if (has[g] && !(p->g[g].flags & SVGPLOT_TOTAL))
					L->pn[0].group = g;
	}
	nq = L->npanels;
	if (L->has_total) {
		for (int g = 0; g < p->ng; g++)
			if (has[g] && (p->g[g].flags & SVGPLOT_TOTAL))
				L->pn[L->npanels].group = g;
		L->pn[L->npanels++].total = true;
	}
	cols = nq > 3 ? 2 : 1;
	rows = (nq + cols - 1) / cols + L->has_total;
	plot_h = rows <= 1 ? p->height - 170.0 : rows == 2 ? 170 : rows <= 4 ? 120 : 90;

	/* title, note, legend */
	y = MARGIN;
	t = sp_printed(p->title);
	if (!t)
		return -ENOMEM;
	L->ntitle = sp_wrap(p->font, t, F_TITLE, L->width - 2 * MARGIN, TITLE_LINES, L->title,
			    sizeof(L->title));
	free(t);
	L->title_y = y + F_TITLE;
	y += L->ntitle * 20.0;
	t = sp_printed(p->note);
	if (!t)
		return -ENOMEM;
	L->nnote = p->note[0] ? sp_wrap(p->font, t, F_NOTE, L->width - 2 * MARGIN, TITLE_LINES,
					 L->note, sizeof(L->note)) : 0;
	free(t);
	L->note_y = y + F_NOTE;
	y += L->nnote * 16.0;
	ret = make_keys(p, L, has, keys, nkeys);
	if (ret)
		return ret;
	L->legend_y = y;
	y = place_keys(keys, *nkeys, L->width, y) + 8;

	/* axes: y first (its labels' width sets the plot's left) */
	axis_fit(&L->y, yq[0], yq[1], plot_h >= 200 ? 6 : plot_h >= 120 ? 4 : 3,
		 p->y_bytes, false, plot_h, 16);
	axis_fit(&L->ytot, yt[0], yt[1], plot_h >= 200 ? 6 : plot_h >= 120 ? 4 : 3,
		 p->y_bytes, false, plot_h, 16);
	lw = fmax(L->has_queues ? axis_label_width(p->font, &L->y, F_TICK) : 0,
		  L->has_total ? axis_label_width(p->font, &L->ytot, F_TICK) : 0);
	left = MARGIN + 20 + lw + 6;
	if (cols > 1)
		col_gap = lw + 6 + 24;
	/* x: a first guess of the plot's width, then its labels' room */
	plot_w = (L->width - left - MARGIN - 20 - (cols - 1) * col_gap) / cols;
	axis_fit(&L->x, xr[0], xr[1], (int)fmax(4, plot_w / 110), false, p->x_time, plot_w, 40);
	for (;;) {
		double spacing;

		xlw = axis_label_width(p->font, &L->x, F_TICK);
		plot_w = (L->width - left - MARGIN - xlw / 2 - (cols - 1) * (col_gap + xlw / 2)) / cols;
		spacing = L->x.step * L->x.unit / (L->x.hi - L->x.lo) * plot_w;
		if (spacing >= xlw + 10 || sp_axis_nticks(&L->x) <= 2)
			break;
		L->x.step = next_step(L->x.step);
		L->x.lo = xr[0];
		L->x.hi = xr[1];
		axis_span(&L->x);
	}

	/* the panels' places: rows of queue panels, then the total */
	for (int r = 0; r * cols < nq; r++) {
		bool xt = false;

		for (int c = 0; c < cols && r * cols + c < nq; c++) {
			struct panel *pn = &L->pn[r * cols + c];

			pn->left = left + c * (plot_w + col_gap + xlw / 2);
			pn->w = plot_w;
			pn->top = y + 20;
			pn->h = plot_h;
			pn->xticks = r * cols + c + cols >= nq;
			pn->first_row = r == 0;
			xt |= pn->xticks;
		}
		y += 20 + plot_h + (xt ? 24 : 8);
	}
	if (L->has_total) {
		struct panel *pn = &L->pn[L->npanels - 1];

		pn->left = left;
		pn->w = L->width - left - MARGIN - xlw / 2;
		pn->top = y + 20;
		pn->h = plot_h;
		pn->xticks = true;
		pn->first_row = !nq;
		y += 20 + plot_h + 24;
	}
	L->xlabel_y = y + 10;
	L->height = L->xlabel_y + 6 + MARGIN;
	return 0;
}
