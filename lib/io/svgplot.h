/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small, self-contained SVG line chart: several series of (x, y) points,
 * axes with nice ticks, a legend, a title. Memory per series is bounded:
 * points are downsampled as they arrive, keeping the first, last, lowest
 * and highest point of every bucket, so the extremes are always plotted
 * exactly. The caller supplies the FILE; nothing here prints elsewhere.
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
/* Upper bound of the points one series draws (before SVGPLOT_STEP doubling). */
#define SVGPLOT_MAX_POINTS	(6 * SVGPLOT_BUCKETS)

/* Series flags. */
enum {
	SVGPLOT_DASHED	= 1u << 0,	/* dashed line (e.g. inflight beside limit) */
	SVGPLOT_STEP	= 1u << 1,	/* hold each y until the next x (a limit is a step) */
};

struct svgplot;

/**
 * svgplot_new - an empty chart
 * @title: heading; @xlabel, @ylabel: axis labels with their unit, e.g.
 *	"time (s)", "bytes". Copied. Any may be NULL.
 *
 * Defaults: 960x540 pixels (taller when the legend needs it), y axis
 * starting at 0 when every y is positive. Returns NULL when out of memory.
 */
struct svgplot *svgplot_new(const char *title, const char *xlabel,
			    const char *ylabel);
/* Canvas size in pixels (minimum 320x200). */
void svgplot_set_size(struct svgplot *p, unsigned int width, unsigned int height);
/* true: y values are bytes, ticks in 1024-based units ("24 KiB"). */
void svgplot_set_y_bytes(struct svgplot *p, bool bytes);
/* false: the y axis spans the data only, instead of starting at 0. */
void svgplot_set_y_zero(struct svgplot *p, bool from_zero);

/**
 * svgplot_series - add a series named @name (the legend text, copied)
 *
 * Returns its index (0, 1, ...) for svgplot_point(), or -ENOMEM.
 * Colours cycle through a 10-colour palette in the order series are added.
 */
int svgplot_series(struct svgplot *p, const char *name);
/* Replace the title (copied); 0 or -ENOMEM. */
int svgplot_set_title(struct svgplot *p, const char *title);
/*
 * svgplot_keep - keep only the series whose @keep[index] is true (an array
 * of one bool per series), freeing the others; the kept ones are
 * renumbered 0, 1, ... in their order. For choosing what to draw at the end.
 */
void svgplot_keep(struct svgplot *p, const bool *keep);
/* SVGPLOT_DASHED | SVGPLOT_STEP for series @s. */
void svgplot_series_flags(struct svgplot *p, int s, unsigned int flags);

/**
 * svgplot_point - append (@x, @y) to series @s
 *
 * Points are drawn in the order given (x is normally non-decreasing).
 * NaN and infinite values and unknown series are ignored. Never
 * allocates: a series' buckets are allocated by svgplot_series().
 */
void svgplot_point(struct svgplot *p, int s, double x, double y);

/* Points series @s will draw (after downsampling, before step doubling). */
size_t svgplot_npoints(const struct svgplot *p, int s);
/* Points given to series @s so far. */
unsigned long long svgplot_count(const struct svgplot *p, int s);

/**
 * svgplot_write - the whole SVG document to @f
 *
 * Every series is one <polyline class="series" data-name="NAME"> whose
 * points are in pixels, in arrival order, and whose data-xy attribute
 * holds the same points (before SVGPLOT_STEP corners) in data units,
 * exactly, so plotted values can be read back from the file.
 * Returns 0, or -EIO with @e filled.
 */
int svgplot_write(struct svgplot *p, FILE *f, struct bql_err *e);
void svgplot_free(struct svgplot *p);

#endif
