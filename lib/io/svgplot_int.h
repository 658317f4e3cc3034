/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to lib/io/svgplot*.c: the chart's data (svgplot.c), its text
 * measured and wrapped (svgplot_text.c), its layout (svgplot_layout.c)
 * and its drawing (svgplot_draw.c).
 */
#ifndef BQLTOOL_LIB_SVGPLOT_INT_H
#define BQLTOOL_LIB_SVGPLOT_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

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
	int group;
	enum svgplot_kind kind;
	int cap;		/* BAND: the series above which it is hatched, or -1 */
	struct sp_bucket *b;
	size_t nb;
	uint64_t per;		/* points per full bucket: 1, 2, 4, ... */
	uint64_t left;		/* points the last bucket still takes */
	uint64_t count;		/* points given */
	double xmin, xmax;	/* (the y range is that of the buckets' lo and hi) */
};

struct sp_group {
	char *name;
	char *note;		/* svgplot_group_note(), or NULL */
	unsigned int flags;
	int colour;		/* palette index; -1: the total's grey */
};

#define SP_MAX_MARKS	16
struct sp_mark {
	double x0, x1;
	char *label;
};

/*
 * How text is measured: the back end's font (cairo's, for PNG and PDF).
 * NULL everywhere stands for DejaVu Sans' advance-width table
 * (svgplot_text_width()), which keeps the SVG the same on every machine.
 */
struct sp_font {
	/* the advance width in pixels of the @len bytes at @s at @size */
	double (*width)(const struct sp_font *ft, const char *s, size_t len, double size);
};

struct svgplot {
	char *title, *note, *xlabel, *ylabel;
	const struct sp_font *font;	/* while a back end lays it out; NULL: the table */
	unsigned int width, height;
	bool y_zero, y_bytes, x_time;
	enum svgplot_layout layout;
	struct sp_group *g;
	int ng, ncolours;
	struct sp_series *s;
	int ns;
	char *legend[SVGPLOT_NKINDS + 1];	/* what each kind means */
	struct sp_mark mark[SP_MAX_MARKS];
	int nmarks;
};

/* the distinct telling points of @b in arrival order; returns how many */
int sp_bucket_points(const struct sp_bucket *b, struct sp_pt out[6]);
/* the least and greatest y of @sr (given points): its buckets' lo and hi */
void sp_series_yrange(const struct sp_series *sr, double *lo, double *hi);

/* svgplot_text.c */
/* @s in its printed form (lib/io/esc.h esc_text), malloc'd; NULL: no memory */
char *sp_printed(const char *s);
/* @s (printed form) as XML character data: & < > " ' as entities */
void sp_put_text(FILE *f, const char *s);
/*
 * sp_wrap - @s (printed form) in lines of at most @width pixels at @size:
 * broken at spaces, a word too long for a line broken where it must; at
 * most @maxlines, the last shortened with an ellipsis if more would be
 * needed. Lines are written into @buf (@n bytes), each ended by '\0';
 * returns the number of lines (at least 1), 0 when @buf is too small.
 */
int sp_wrap(const struct sp_font *ft, const char *s, double size, double width, int maxlines,
	    char *buf, size_t n);
/* the width of @s in pixels at @size, measured by @ft (NULL: the table) */
double sp_text_w(const struct sp_font *ft, const char *s, double size);

/* ------------------------------------------------ svgplot_layout.c */

#define F_TITLE		16.0
#define F_NOTE		12.0
#define F_LEGEND	12.0
#define F_PANEL		12.0
#define F_TICK		11.0
#define F_LABEL		13.0
#define F_MARK		10.0
#define MARGIN		12.0
#define TITLE_LINES	3

struct axis {
	double lo, hi;		/* data units */
	double unit;		/* tick labels are value / unit ... */
	const char *suffix;	/* ... then this ("" for time: the label says it) */
	double step;		/* in units: 1, 2 or 5 times a power of ten */
	int decimals;		/* of the labels (0 unless neither bytes nor time) */
};

struct panel {
	double left, top, w, h;		/* the plot area */
	int group;			/* the one group drawn, or -1: the overlay */
	bool total;			/* the total's panel: its own y axis */
	bool xticks;			/* tick labels under it */
	bool first_row;			/* mark labels go here */
};

#define MAX_PANELS	(64 + 1)

struct layout {
	double width, height;
	int ntitle, nnote;
	char title[2048], note[2048];	/* sp_wrap() lines */
	double title_y, note_y, legend_y, xlabel_y;
	struct axis x, y, ytot;
	bool has_total, has_queues, empty;
	struct panel pn[MAX_PANELS];
	int npanels;
};

/* the longest line of text drawn, in bytes */
#define SP_LINE		1024

/* a legend entry: a sample and its text */
enum { KEY_GROUP = SVGPLOT_NKINDS + 1, KEY_SPAN, KEY_LINE };
struct key {
	int kind;		/* enum svgplot_kind, SVGPLOT_NKINDS (hatched), KEY_* */
	const char *colour;
	char text[SP_LINE];	/* printed form, shortened to fit */
	double x, y, w;		/* sample's left, text baseline, whole width */
};
#define MAX_KEYS	(MAX_PANELS + SVGPLOT_NKINDS + 1 + SP_MAX_MARKS)
#define KEY_SAMPLE	26.0	/* sample width; the text starts 6 after */

#define TOTAL_COLOUR	"#444444"
#define KEY_COLOUR	"#666666"
#define MARK_FILL	"#f5b041"
#define MARK_LINE	"#b9770e"

/* the groups with data: one flag each in @has (ng of them) */
void sp_groups_with_data(const struct svgplot *p, bool *has);
/*
 * Everything's place in @L: title and note lines, the legend (@keys,
 * MAX_KEYS of them), the panels, the axes' ticks. 0 or -ENOMEM.
 */
int sp_lay_out(const struct svgplot *p, struct layout *L, const bool *has,
	       struct key *keys, int *nkeys);
int sp_axis_nticks(const struct axis *a);
/* the value of tick @i, and its label into @buf (if not NULL) */
double sp_axis_tick(const struct axis *a, int i, char *buf, size_t n);
/* the unit of a time axis, for its label */
const char *sp_time_unit(const struct axis *a);
const char *sp_colour(const struct sp_group *g);
/* @s printed and fitted on one line of @width at @size into @out; 0 or -ENOMEM */
int sp_fit_line(const struct sp_font *ft, const char *s, double size, double width, char *out,
		size_t n);

/* ------------------------------------------------ svgplot_draw.c */

/* data to pixels in one panel */
struct sp_scale {
	double x0, sx;		/* pixel x = left + (x - x0) * sx */
	double y0, sy;		/* pixel y = bottom - (y - y0) * sy */
	double left, bottom;
};

static inline double sp_px_x(const struct sp_scale *s, double x)
{
	return s->left + (x - s->x0) * s->sx;
}

static inline double sp_px_y(const struct sp_scale *s, double y)
{
	return s->bottom - (y - s->y0) * s->sy;
}

#define BAND_MIN	1.5	/* pixels: the thinnest a band is drawn */

/* panel @i's scale */
void sp_panel_scale(const struct layout *L, int i, struct sp_scale *sc);
/* the lowest and highest value of @sr in each of @n pixel columns (NaN: none) */
void sp_band_columns(const struct sp_series *sr, const struct sp_scale *sc, double *lo,
		     double *hi, int n);
/*
 * A band's light part, per pixel column: @cols holds 6 arrays of @n
 * (lo, hi, the cap's lo and hi, then top and bottom in pixels, NaN where
 * the band has no value). sp_band_over() then puts the hatched part above
 * the cap in top and bottom; false when there is none.
 */
void sp_band_light(const struct svgplot *p, const struct sp_series *sr,
		   const struct sp_scale *sc, double *cols, int n);
bool sp_band_over(double *cols, int n, const struct sp_scale *sc);

/* ------------------------------------------------ svgplot_cairo.c */

/* @p as a PNG (@pdf false) or a one-page PDF to @f; 0, -ENOMEM or -EIO with @e */
int sp_write_cairo(struct svgplot *p, FILE *f, bool pdf, struct bql_err *e);

#endif
