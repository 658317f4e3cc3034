// SPDX-License-Identifier: GPL-2.0-only
/*
 * The chart as a PNG or a PDF (lib/io/svgplot.h), drawn with cairo: the
 * same layout as the SVG (svgplot_layout.c: panels, axes, legend, wrapped
 * titles) and the same bands (svgplot_draw.c's columns), but every text
 * measured by cairo in the font it draws with (DejaVu Sans through
 * fontconfig, hinting off so that measuring and drawing agree on any
 * surface), so nothing is cut even where the font differs from the table.
 * One-pixel lines (frames, grid) sit on pixel centres: crisp in a PNG.
 */
#include <cairo.h>
#include <cairo-pdf.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/io/svgplot.h"
#include "lib/io/svgplot_int.h"

#define FONT_FAMILY	"DejaVu Sans"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SP_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(SP_ASAN)
/*
 * The sanitizer build (make sanitize): fontconfig loses a block of its
 * configuration parsing fonts.conf the first time cairo looks a font up
 * (as tests/valgrind-fontconfig.supp says for valgrind); not ours.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libfontconfig.so\n";
}

/* and no list of the suppressions used on stderr (LSAN_OPTIONS still rules) */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}
#endif

struct cfont {
	struct sp_font ft;
	cairo_t *cr;		/* measures: the drawing context, or a scratch one */
};

/* @cr draws and measures text in the chart's font, unhinted */
static void set_font(cairo_t *cr)
{
	cairo_font_options_t *fo = cairo_font_options_create();

	cairo_select_font_face(cr, FONT_FAMILY, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
	cairo_set_font_options(cr, fo);
	cairo_font_options_destroy(fo);
}

/* the width of @s (@len bytes): its advance, or its ink where that reaches further */
static double cf_width(const struct sp_font *ft, const char *s, size_t len, double size)
{
	const struct cfont *cf = (const struct cfont *)ft;
	char small[256], *t = len < sizeof(small) ? small : malloc(len + 1);
	cairo_text_extents_t te;

	if (!t)
		return INFINITY;	/* fits nowhere: shortened rather than cut */
	memcpy(t, s, len);
	t[len] = '\0';
	cairo_set_font_size(cf->cr, size);
	cairo_text_extents(cf->cr, t, &te);
	if (t != small)
		free(t);
	return fmax(te.x_advance, te.x_bearing + te.width);
}

static void set_colour(cairo_t *cr, const char *hex, double alpha)
{
	unsigned long v = strtoul(hex + 1, NULL, 16);

	cairo_set_source_rgba(cr, (double)(v >> 16 & 0xff) / 255, (double)(v >> 8 & 0xff) / 255,
			      (double)(v & 0xff) / 255, alpha);
}

/* the centre of the pixel @v falls in: a one-pixel line there is crisp */
static double snap(double v)
{
	return floor(v) + 0.5;
}

static void line(cairo_t *cr, double x1, double y1, double x2, double y2)
{
	cairo_move_to(cr, x1, y1);
	cairo_line_to(cr, x2, y2);
	cairo_stroke(cr);
}

/* printed @s at (@x, @y baseline), anchored "start", "middle" or "end" */
static void text(cairo_t *cr, double x, double y, double size, const char *anchor,
		 const char *fill, const char *s)
{
	cairo_text_extents_t te;

	cairo_set_font_size(cr, size);
	cairo_text_extents(cr, s, &te);
	if (!strcmp(anchor, "middle"))
		x -= te.x_advance / 2;
	else if (!strcmp(anchor, "end"))
		x -= te.x_advance;
	set_colour(cr, fill ? fill : "#000000", 1);
	cairo_move_to(cr, x, y);
	cairo_show_text(cr, s);
	cairo_new_path(cr);
}

/* @s from outside, fitted to @width */
static int text_fit(const struct cfont *cf, double x, double y, double size, const char *anchor,
		    const char *fill, const char *s, double width)
{
	char buf[SP_LINE];
	int ret = sp_fit_line(&cf->ft, s, size, width, buf, sizeof(buf));

	if (!ret)
		text(cf->cr, x, y, size, anchor, fill, buf);
	return ret;
}

/* SVG's hatch: light red with dark red stripes at 45 degrees, 6 apart */
static cairo_pattern_t *hatch_pattern(void)
{
	cairo_rectangle_t r = { 0, 0, 6, 6 };
	cairo_surface_t *s = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, &r);
	cairo_t *cr = cairo_create(s);
	cairo_pattern_t *pat;
	cairo_matrix_t m;

	set_colour(cr, "#f5b7b1", 0.5);
	cairo_rectangle(cr, 0, 0, 6, 6);
	cairo_fill(cr);
	set_colour(cr, "#c0392b", 1);
	cairo_set_line_width(cr, 2);
	line(cr, 0, 0, 0, 6);
	cairo_destroy(cr);
	pat = cairo_pattern_create_for_surface(s);
	cairo_surface_destroy(s);
	cairo_pattern_set_extend(pat, CAIRO_EXTEND_REPEAT);
	cairo_matrix_init_rotate(&m, -M_PI / 4);
	cairo_pattern_set_matrix(pat, &m);
	return pat;
}

/* the runs of columns where @top is a number, as closed step outlines */
static void band_path(cairo_t *cr, const struct sp_scale *sc, const double *top,
		      const double *bot, int n)
{
	for (int c = 0; c < n;) {
		int a;

		while (c < n && isnan(top[c]))
			c++;
		a = c;
		while (c < n && !isnan(top[c]))
			c++;
		if (c == a)
			continue;
		cairo_move_to(cr, sc->left + a, top[a]);
		for (int k = a; k < c; k++) {
			cairo_line_to(cr, sc->left + k, top[k]);
			cairo_line_to(cr, sc->left + k + 1, top[k]);
		}
		for (int k = c - 1; k >= a; k--) {
			cairo_line_to(cr, sc->left + k + 1, bot[k]);
			cairo_line_to(cr, sc->left + k, bot[k]);
		}
		cairo_close_path(cr);
	}
}

static void draw_band(const struct svgplot *p, cairo_t *cr, cairo_pattern_t *hatch,
		      const struct sp_series *sr, const struct sp_scale *sc, double *cols, int n)
{
	double *top = cols + 4 * n, *bot = cols + 5 * n;

	sp_band_light(p, sr, sc, cols, n);
	band_path(cr, sc, top, bot, n);
	set_colour(cr, sp_colour(&p->g[sr->group]), 0.3);
	cairo_fill(cr);
	if (!sp_band_over(cols, n, sc))
		return;
	band_path(cr, sc, top, bot, n);
	cairo_set_source(cr, hatch);
	cairo_fill_preserve(cr);
	set_colour(cr, "#c0392b", 1);
	cairo_set_line_width(cr, 0.5);
	cairo_stroke(cr);
}

/* a limit (solid) or a reference (dashed) as a step line */
static void draw_line_series(const struct svgplot *p, cairo_t *cr, const struct sp_series *sr,
			     const struct sp_scale *sc)
{
	static const double dash[] = { 5, 3 };
	bool first = true;
	double prev_y = 0;

	for (size_t b = 0; b < sr->nb; b++) {
		struct sp_pt pts[6];
		int n = sp_bucket_points(&sr->b[b], pts);

		for (int k = 0; k < n; k++) {
			double x = sp_px_x(sc, pts[k].x), y = sp_px_y(sc, pts[k].y);

			if (first) {
				cairo_move_to(cr, x, y);
			} else {
				cairo_line_to(cr, x, prev_y);
				cairo_line_to(cr, x, y);
			}
			prev_y = y;
			first = false;
		}
	}
	set_colour(cr, sp_colour(&p->g[sr->group]), 1);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	cairo_set_line_width(cr, sr->kind == SVGPLOT_REF ? 1.2 : 1.5);
	cairo_set_dash(cr, dash, sr->kind == SVGPLOT_REF ? 2 : 0, 0);
	cairo_stroke(cr);
	cairo_set_dash(cr, NULL, 0, 0);
}

/* the marks of panel @pn: spans shaded, lines dashed */
static void draw_marks(const struct svgplot *p, cairo_t *cr, const struct panel *pn,
		       const struct sp_scale *sc)
{
	static const double dash[] = { 3, 2 };

	for (int m = 0; m < p->nmarks; m++) {
		double a = sp_px_x(sc, p->mark[m].x0), b = sp_px_x(sc, p->mark[m].x1);

		if (b - a >= 1) {
			cairo_rectangle(cr, a, pn->top, b - a, pn->h);
			set_colour(cr, MARK_FILL, 0.3);
			cairo_fill_preserve(cr);
			set_colour(cr, MARK_LINE, 1);
			cairo_set_line_width(cr, 0.8);
			cairo_stroke(cr);
		} else {
			set_colour(cr, MARK_LINE, 1);
			cairo_set_line_width(cr, 1.2);
			cairo_set_dash(cr, dash, 2, 0);
			line(cr, (a + b) / 2, pn->top, (a + b) / 2, sc->bottom);
			cairo_set_dash(cr, NULL, 0, 0);
		}
	}
}

/* grid, marks, series, frame, ticks and titles of panel @i, as put_panel() */
static int draw_panel(const struct svgplot *p, const struct cfont *cf, cairo_pattern_t *hatch,
		      const struct layout *L, int i, double *cols, int ncols)
{
	const struct panel *pn = &L->pn[i];
	const struct axis *ya = pn->total ? &L->ytot : &L->y, *xa = &L->x;
	cairo_t *cr = cf->cr;
	struct sp_scale sc;
	double right = pn->left + pn->w, label_end = -INFINITY;
	char lab[48];
	int ret = 0;

	sp_panel_scale(L, i, &sc);
	set_colour(cr, "#e3e3e3", 1);
	cairo_set_line_width(cr, 1);
	for (int k = 0; k < sp_axis_nticks(xa); k++) {
		double x = snap(sp_px_x(&sc, sp_axis_tick(xa, k, NULL, 0)));

		line(cr, x, pn->top, x, sc.bottom);
	}
	for (int k = 0; k < sp_axis_nticks(ya); k++) {
		double y = snap(sp_px_y(&sc, sp_axis_tick(ya, k, NULL, 0)));

		line(cr, pn->left, y, right, y);
	}
	draw_marks(p, cr, pn, &sc);
	cairo_save(cr);
	cairo_rectangle(cr, pn->left, pn->top - 1, pn->w, pn->h + 2);
	cairo_clip(cr);
	/* bands, then references, then limits on top */
	for (int kind = SVGPLOT_BAND; kind >= SVGPLOT_LINE; kind--)
		for (int s = 0; s < p->ns; s++) {
			const struct sp_series *sr = &p->s[s];
			bool tot = p->g[sr->group].flags & SVGPLOT_TOTAL;

			if (!sr->count || (int)sr->kind != kind || tot != pn->total ||
			    (pn->group >= 0 && sr->group != pn->group))
				continue;
			if (kind == SVGPLOT_BAND)
				draw_band(p, cr, hatch, sr, &sc, cols, ncols);
			else
				draw_line_series(p, cr, sr, &sc);
		}
	cairo_restore(cr);
	set_colour(cr, "#555555", 1);
	cairo_set_line_width(cr, 1);
	cairo_rectangle(cr, snap(pn->left), snap(pn->top), floor(right) - floor(pn->left),
			floor(sc.bottom) - floor(pn->top));
	cairo_stroke(cr);
	for (int k = 0; k < sp_axis_nticks(ya); k++) {
		double v = sp_axis_tick(ya, k, lab, sizeof(lab));

		text(cr, pn->left - 6, sp_px_y(&sc, v) + 4, F_TICK, "end", "#333333", lab);
	}
	for (int k = 0; pn->xticks && k < sp_axis_nticks(xa); k++) {
		double v = sp_axis_tick(xa, k, lab, sizeof(lab));

		text(cr, sp_px_x(&sc, v), sc.bottom + 16, F_TICK, "middle", "#333333", lab);
	}
	if (pn->group >= 0) {
		const struct sp_group *g = &p->g[pn->group];

		ret = text_fit(cf, pn->left, pn->top - 6, F_PANEL, "start", sp_colour(g), g->name,
			       pn->w);
		if (!ret && g->note)
			ret = text_fit(cf, pn->left + pn->w / 2, pn->top + pn->h / 2 + 4, F_PANEL,
				       "middle", "#777777", g->note, pn->w - 8);
	} else if (L->empty) {
		text(cr, pn->left + pn->w / 2, pn->top + pn->h / 2, 14, "middle", "#777777",
		     "no data");
	}
	for (int m = 0; m < p->nmarks && pn->first_row && !ret; m++) {
		char buf[SP_LINE];
		double x = sp_px_x(&sc, p->mark[m].x0) + 3, w;

		ret = sp_fit_line(&cf->ft, p->mark[m].label, F_MARK, right - x - 2, buf, sizeof(buf));
		w = sp_text_w(&cf->ft, buf, F_MARK);
		if (ret || x < label_end + 6 || x + w > right - 2 || x < pn->left)
			continue;
		text(cr, x, pn->top + 12, F_MARK, "start", MARK_LINE, buf);
		label_end = x + w;
	}
	return ret;
}

/* a legend entry's sample and text, as put_key() */
static void draw_key(cairo_t *cr, cairo_pattern_t *hatch, const struct key *k)
{
	static const double dash[] = { 5, 3 }, mdash[] = { 3, 2 };
	double x = k->x, y = k->y - 4;

	switch (k->kind) {
	case SVGPLOT_LINE:
	case SVGPLOT_REF:
		set_colour(cr, k->colour, 1);
		cairo_set_line_width(cr, k->kind == SVGPLOT_REF ? 1.2 : 2);
		cairo_set_dash(cr, dash, k->kind == SVGPLOT_REF ? 2 : 0, 0);
		line(cr, x, y, x + KEY_SAMPLE, y);
		cairo_set_dash(cr, NULL, 0, 0);
		break;
	case SVGPLOT_BAND:
	case KEY_GROUP:
	case KEY_SPAN:
		cairo_rectangle(cr, x, y - 5, KEY_SAMPLE, 10);
		set_colour(cr, k->kind == KEY_SPAN ? MARK_FILL : k->colour, 0.3);
		cairo_fill_preserve(cr);
		if (k->kind == KEY_SPAN) {
			set_colour(cr, MARK_LINE, 1);
			cairo_set_line_width(cr, 0.8);
			cairo_stroke(cr);
		}
		cairo_new_path(cr);
		if (k->kind == KEY_GROUP) {
			set_colour(cr, k->colour, 1);
			cairo_set_line_width(cr, 2);
			line(cr, x, y - 2, x + KEY_SAMPLE, y - 2);
		}
		break;
	case SVGPLOT_NKINDS:
		cairo_rectangle(cr, x, y - 5, KEY_SAMPLE, 10);
		cairo_set_source(cr, hatch);
		cairo_fill_preserve(cr);
		set_colour(cr, "#c0392b", 1);
		cairo_set_line_width(cr, 0.5);
		cairo_stroke(cr);
		break;
	default:
		set_colour(cr, MARK_LINE, 1);
		cairo_set_line_width(cr, 1.2);
		cairo_set_dash(cr, mdash, 2, 0);
		line(cr, x + KEY_SAMPLE / 2, y - 6, x + KEY_SAMPLE / 2, y + 6);
		cairo_set_dash(cr, NULL, 0, 0);
		break;
	}
	text(cr, x + KEY_SAMPLE + 6, k->y, F_LEGEND, "start",
	     k->kind == KEY_GROUP ? k->colour : "#222222", k->text);
}

/* everything, onto @cf's context (the canvas is white from 0,0) */
static int draw(struct svgplot *p, const struct cfont *cf, const struct layout *L,
		const struct key *keys, int nkeys, double *cols, int ncols)
{
	cairo_t *cr = cf->cr;
	cairo_pattern_t *hatch = hatch_pattern();
	char xlabel[600];
	const char *s;
	double mid, bottom;
	int ret = 0;

	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	s = L->title;
	for (int i = 0; i < L->ntitle; i++, s += strlen(s) + 1)
		text(cr, L->width / 2, L->title_y + i * 20.0, F_TITLE, "middle", NULL, s);
	s = L->note;
	for (int i = 0; i < L->nnote; i++, s += strlen(s) + 1)
		text(cr, L->width / 2, L->note_y + i * 16.0, F_NOTE, "middle", "#444444", s);
	for (int i = 0; i < nkeys; i++)
		draw_key(cr, hatch, &keys[i]);
	for (int i = 0; i < L->npanels && !ret; i++)
		ret = draw_panel(p, cf, hatch, L, i, cols, ncols);
	cairo_pattern_destroy(hatch);
	if (ret)
		return ret;
	snprintf(xlabel, sizeof(xlabel), "%s%s%s%s", p->xlabel, p->x_time ? " (" : "",
		 p->x_time ? sp_time_unit(&L->x) : "", p->x_time ? ")" : "");
	ret = text_fit(cf, L->pn[0].left + (L->width - MARGIN - L->pn[0].left) / 2, L->xlabel_y,
		       F_LABEL, "middle", NULL, xlabel, L->width - 2 * MARGIN);
	bottom = L->pn[L->npanels - 1].top + L->pn[L->npanels - 1].h;
	mid = (L->pn[0].top + bottom) / 2;
	if (!ret && p->ylabel[0]) {
		char buf[SP_LINE];

		ret = sp_fit_line(&cf->ft, p->ylabel, F_LABEL, bottom - L->pn[0].top, buf,
				  sizeof(buf));
		cairo_save(cr);
		cairo_translate(cr, MARGIN + 10, mid);
		cairo_rotate(cr, -M_PI / 2);
		text(cr, 0, 0, F_LABEL, "middle", NULL, buf);
		cairo_restore(cr);
	}
	return ret;
}

static cairo_status_t put_bytes(void *closure, const unsigned char *data, unsigned int len)
{
	return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS :
						       CAIRO_STATUS_WRITE_ERROR;
}

/* a cairo failure as -EIO (-ENOMEM for no memory) with @e saying which */
static int cairo_fail(cairo_status_t st, struct bql_err *e)
{
	if (st == CAIRO_STATUS_NO_MEMORY)
		return -ENOMEM;
	if (st == CAIRO_STATUS_WRITE_ERROR)
		return bql_err_set(e, EIO, "plot: write error");
	return bql_err_set(e, EIO, "plot: cairo: %s", cairo_status_to_string(st));
}

int sp_write_cairo(struct svgplot *p, FILE *f, bool pdf, struct bql_err *e)
{
	struct key *keys = malloc(MAX_KEYS * sizeof(*keys));
	struct layout *L = malloc(sizeof(*L));
	bool *has = calloc((size_t)p->ng + 1, sizeof(*has));
	cairo_surface_t *scratch = NULL, *surf = NULL;
	struct cfont cf = { .ft.width = cf_width };
	cairo_status_t st = CAIRO_STATUS_SUCCESS;
	double *cols = NULL;
	int nkeys = 0, ncols = 0, ret = -ENOMEM, w, h;

	if (!keys || !L || !has)
		goto out;
	/* laid out with cairo's measures, on a scratch surface (the size is its result) */
	scratch = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
	cf.cr = cairo_create(scratch);
	set_font(cf.cr);
	sp_groups_with_data(p, has);
	p->font = &cf.ft;
	ret = sp_lay_out(p, L, has, keys, &nkeys);
	p->font = NULL;
	st = cairo_status(cf.cr);
	cairo_destroy(cf.cr);
	cf.cr = NULL;
	if (ret || st)
		goto out;
	for (int i = 0; i < L->npanels; i++)
		ncols = (int)fmax(ncols, ceil(L->pn[i].w) + 1);
	cols = malloc((size_t)ncols * 6 * sizeof(*cols));
	if (!cols) {
		ret = -ENOMEM;
		goto out;
	}
	w = (int)L->width;
	h = (int)ceil(L->height);
	if (pdf) {
		surf = cairo_pdf_surface_create_for_stream(put_bytes, f, w, h);
		cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_TITLE, p->title);
		cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_CREATOR, "bqltool");
	} else {
		surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	}
	cf.cr = cairo_create(surf);
	set_font(cf.cr);
	p->font = &cf.ft;
	ret = draw(p, &cf, L, keys, nkeys, cols, ncols);
	p->font = NULL;
	st = cairo_status(cf.cr);
	cairo_destroy(cf.cr);
	if (ret || st)
		goto out;
	if (pdf) {
		cairo_surface_finish(surf);
		st = cairo_surface_status(surf);
	} else {
		st = cairo_surface_write_to_png_stream(surf, put_bytes, f);
	}
	if (!st && (fflush(f) || ferror(f)))
		st = CAIRO_STATUS_WRITE_ERROR;
out:
	if (!ret && st)
		ret = cairo_fail(st, e);
	if (surf)
		cairo_surface_destroy(surf);
	if (scratch)
		cairo_surface_destroy(scratch);
	/*
	 * cairo's font caches (fontconfig patterns) freed: no object of ours
	 * is left, and without this valgrind counts them as lost
	 */
	cairo_debug_reset_static_data();
	free(cols);
	free(has);
	free(L);
	free(keys);
	return ret;
}

int svgplot_write_as(struct svgplot *p, FILE *f, enum svgplot_format fmt, struct bql_err *e)
{
	if (fmt == SVGPLOT_SVG)
		return svgplot_write(p, f, e);
	return sp_write_cairo(p, f, fmt == SVGPLOT_PDF, e);
}
