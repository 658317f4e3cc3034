/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SVG charts of queues over time, written by hand: groups (one per queue,
 * one colour each) of series (a limit as a solid step line, a reference
 * limit dashed, inflight as a light band from the lowest to the highest
 * value in each pixel column), drawn in one panel, or one panel per group
 * with shared axes when the groups differ in scale; a total group always
 * gets a panel and a y axis of its own. Marks (stalls, setting changes)
 * span every panel's time axis. Text is measured with the advance widths
 * of DejaVu Sans (the font the SVG names; svgplot_text_width()), so titles
 * wrap or shorten instead of being cut, and no two texts overlap.
 *
 * Memory per series is bounded: points are downsampled as they arrive,
 * keeping the first, last, lowest and highest point of every bucket, so
 * the extremes are always plotted exactly. The same input gives the same
 * bytes. The caller supplies the FILE; nothing here prints elsewhere.
 */
#ifndef BQLTOOL_LIB_SVGPLOT_H
#define BQLTOOL_LIB_SVGPLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "dql/err.h"

/*
 * Buckets kept per series; each bucket gives at most 6 points: its first
 * and last, its minimum and maximum, and the two ends of its widest x gap.
 */
#define SVGPLOT_BUCKETS		512
/* Upper bound of the points one series draws (before step doubling). */
#define SVGPLOT_MAX_POINTS	(6 * SVGPLOT_BUCKETS)

/* How a series is drawn: every kind is a step (y holds until the next x). */
enum svgplot_kind {
	SVGPLOT_LINE,	/* solid line in its group's colour: a limit */
	SVGPLOT_REF,	/* thinner dashed line: a reference (the recorded limit) */
	SVGPLOT_BAND,	/* light band, lowest to highest y per pixel column */
	SVGPLOT_NKINDS
};

/* Group flags. */
enum {
	/* a sum over groups: its own panel and y axis, dark grey */
	SVGPLOT_TOTAL	= 1u << 0,
};

/* Layouts (svgplot_set_layout). */
enum svgplot_layout {
	SVGPLOT_AUTO,		/* panels when groups differ in scale, or > 4 */
	SVGPLOT_OVERLAY,	/* the groups in one panel (a total still apart) */
	SVGPLOT_PANELS,		/* one panel per group */
};

struct svgplot;

/**
 * svgplot_new - an empty chart
 * @title: heading; @xlabel, @ylabel: axis labels, e.g. "time", "bytes".
 *	Copied. Any may be NULL. Long titles wrap (3 lines at most, then
 *	shortened with an ellipsis); the whole title is the SVG's <title>.
 *
 * Defaults: 960 pixels wide, as tall as the panels need; y from 0 when
 * every y is positive. Returns NULL when out of memory.
 */
struct svgplot *svgplot_new(const char *title, const char *xlabel,
			    const char *ylabel);
/* true: y values are bytes, ticks at 1-2-5 steps of B, KiB, MiB, GiB. */
void svgplot_set_y_bytes(struct svgplot *p, bool bytes);
/*
 * true: x values are seconds, ticks at 1-2-5 steps of s, ms, us or ns,
 * whichever gives whole numbers, and the unit added to the x label.
 */
void svgplot_set_x_time(struct svgplot *p, bool time);
/*
 * Test-only entry points (tests/unit/test_svgplot.c): the commands keep the
 * defaults. false: the y axis spans the data only, instead of starting at 0.
 */
void svgplot_set_y_zero(struct svgplot *p, bool from_zero);
/* test-only: force a layout instead of the one the series' scales choose */
void svgplot_set_layout(struct svgplot *p, enum svgplot_layout layout);
/* Replace the title (copied); 0 or -ENOMEM. */
int svgplot_set_title(struct svgplot *p, const char *title);
/* A smaller line under the title (copied, wrapped as the title); 0 or -ENOMEM. */
int svgplot_set_note(struct svgplot *p, const char *note);

/**
 * svgplot_group - add a group (a queue) named @name (copied)
 *
 * Returns its index (0, 1, ...) or -ENOMEM. Groups without SVGPLOT_TOTAL
 * take the palette's colours in the order they are added (10 colours,
 * then around again); a total group is dark grey.
 */
int svgplot_group(struct svgplot *p, const char *name, unsigned int flags);
/*
 * svgplot_group_note - a remark on group @g (copied), e.g. "no completions":
 * in the middle of its panel, or after its name in the legend. 0 or -ENOMEM.
 */
int svgplot_group_note(struct svgplot *p, int g, const char *note);
/*
 * svgplot_keep - keep only the groups whose @keep[index] is true (one bool
 * per group) and their series, freeing the others; groups and series are
 * renumbered in their order. Colours stay with their groups.
 */
void svgplot_keep(struct svgplot *p, const bool *keep);

/**
 * svgplot_series - add a series of @kind named @name (copied: its
 * data-name in the SVG) to group @g
 *
 * Returns its index (0, 1, ...) for svgplot_point(), or -ENOMEM/-EINVAL.
 */
int svgplot_series(struct svgplot *p, int g, enum svgplot_kind kind, const char *name);
/*
 * svgplot_band_cap - band @band's values above series @cap's (a line of
 * the same group) are drawn hatched red instead of light: what cannot be
 * (recorded inflight above a what-if limit). Needs a legend entry.
 */
void svgplot_band_cap(struct svgplot *p, int band, int cap);
/*
 * svgplot_legend - what a kind of series means, in the legend with a grey
 * sample (@kind SVGPLOT_NKINDS: the hatched part of a capped band); with
 * more than one group in a panel the legend also names each group in its
 * colour. 0 or -ENOMEM.
 */
int svgplot_legend(struct svgplot *p, enum svgplot_kind kind, const char *text);
/*
 * svgplot_mark - a span [@x0, @x1] of the x axis (@x1 == @x0: a line),
 * shaded in every panel, labelled @label (copied) in the top panel where
 * it fits and in the legend. At most 16 marks; 0, -ENOMEM or -ENOSPC.
 */
int svgplot_mark(struct svgplot *p, double x0, double x1, const char *label);

/**
 * svgplot_point - append (@x, @y) to series @s
 *
 * Points are drawn in the order given (x is normally non-decreasing).
 * NaN and infinite values and unknown series are ignored. Never
 * allocates: a series' buckets are allocated by svgplot_series().
 */
void svgplot_point(struct svgplot *p, int s, double x, double y);

/* Test-only: points series @s will draw (after downsampling, before step doubling). */
size_t svgplot_npoints(const struct svgplot *p, int s);
/* Points given to series @s so far. */
unsigned long long svgplot_count(const struct svgplot *p, int s);

/*
 * svgplot_text_width - the advance width in pixels of @s (UTF-8, already
 * in its printed form) at @size pixels in DejaVu Sans: exact for ASCII,
 * an em for any other character (wider than most).
 */
double svgplot_text_width(const char *s, double size);

/**
 * svgplot_write - the whole SVG document to @f
 *
 * A LINE or REF series is one <polyline class="series" data-name="NAME">,
 * a BAND one <path class="band" data-name="NAME">; each has a data-xy
 * attribute with its points in data units, exactly, in arrival order, so
 * plotted values can be read back from the file. Every text is a <text>
 * with x, y, font-size and text-anchor attributes, inside the canvas and
 * overlapping no other. Returns 0, -ENOMEM, or -EIO with @e filled.
 */
int svgplot_write(struct svgplot *p, FILE *f, struct bql_err *e);

/* What svgplot_write_as() writes. */
enum svgplot_format {
	SVGPLOT_SVG,	/* svgplot_write(): the same bytes on every machine */
	SVGPLOT_PNG,	/* an 8-bit RGB image, a pixel per SVG unit */
	SVGPLOT_PDF,	/* one page of vector graphics, the title as its metadata */
};

/**
 * svgplot_write_as - the chart in @fmt to @f
 *
 * PNG and PDF are drawn with cairo from the same layout as the SVG, every
 * text measured by cairo in the font it is drawn with (DejaVu Sans where
 * fontconfig has it), so the layout may differ from the SVG's by a few
 * pixels but no text is cut. Returns 0, -ENOMEM, or -EIO with @e filled
 * (a write error or cairo's own, named).
 */
int svgplot_write_as(struct svgplot *p, FILE *f, enum svgplot_format fmt, struct bql_err *e);
void svgplot_free(struct svgplot *p);

#endif
