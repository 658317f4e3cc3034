// SPDX-License-Identifier: GPL-2.0-only
/*
 * The chart's data (lib/io/svgplot.h): groups, series and marks, with
 * min/max-preserving downsampling as points arrive. Drawn by
 * svgplot_draw.c.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/io/svgplot.h"
#include "lib/io/svgplot_int.h"

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
	p->note = dup_or_empty(NULL);
	p->xlabel = dup_or_empty(xlabel);
	p->ylabel = dup_or_empty(ylabel);
	p->width = 960;
	p->height = 540;
	p->y_zero = true;
	if (!p->title || !p->note || !p->xlabel || !p->ylabel) {
		svgplot_free(p);
		return NULL;
	}
	return p;
}

void svgplot_set_y_bytes(struct svgplot *p, bool bytes)
{
	p->y_bytes = bytes;
}

void svgplot_set_x_time(struct svgplot *p, bool time)
{
	p->x_time = time;
}

void svgplot_set_y_zero(struct svgplot *p, bool from_zero)
{
	p->y_zero = from_zero;
}

void svgplot_set_layout(struct svgplot *p, enum svgplot_layout layout)
{
	p->layout = layout;
}

static int replace(char **dst, const char *s)
{
	char *t = dup_or_empty(s);

	if (!t)
		return -ENOMEM;
	free(*dst);
	*dst = t;
	return 0;
}

int svgplot_set_title(struct svgplot *p, const char *title)
{
	return replace(&p->title, title);
}

int svgplot_set_note(struct svgplot *p, const char *note)
{
	return replace(&p->note, note);
}

int svgplot_legend(struct svgplot *p, enum svgplot_kind kind, const char *text)
{
	if ((unsigned int)kind > SVGPLOT_NKINDS)
		return -EINVAL;
	return replace(&p->legend[kind], text);
}

int svgplot_mark(struct svgplot *p, double x0, double x1, const char *label)
{
	struct sp_mark *m;

	if (p->nmarks == SP_MAX_MARKS)
		return -ENOSPC;
	if (!isfinite(x0) || !isfinite(x1))
		return -EINVAL;
	m = &p->mark[p->nmarks];
	m->x0 = fmin(x0, x1);
	m->x1 = fmax(x0, x1);
	m->label = dup_or_empty(label);
	if (!m->label)
		return -ENOMEM;
	p->nmarks++;
	return 0;
}

int svgplot_group(struct svgplot *p, const char *name, unsigned int flags)
{
	struct sp_group *ng = realloc(p->g, ((size_t)p->ng + 1) * sizeof(*ng));

	if (!ng)
		return -ENOMEM;
	p->g = ng;
	ng = &p->g[p->ng];
	ng->name = dup_or_empty(name);
	ng->note = NULL;
	if (!ng->name)
		return -ENOMEM;
	ng->flags = flags;
	ng->colour = (flags & SVGPLOT_TOTAL) ? -1 : p->ncolours++;
	return p->ng++;
}

int svgplot_group_note(struct svgplot *p, int g, const char *note)
{
	if (g < 0 || g >= p->ng)
		return -EINVAL;
	return replace(&p->g[g].note, note);
}

int svgplot_series(struct svgplot *p, int g, enum svgplot_kind kind, const char *name)
{
	struct sp_series *ns;

	if (g < 0 || g >= p->ng || (unsigned int)kind >= SVGPLOT_NKINDS)
		return -EINVAL;
	ns = realloc(p->s, ((size_t)p->ns + 1) * sizeof(*ns));
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
	ns->group = g;
	ns->kind = kind;
	ns->cap = -1;
	ns->per = 1;
	return p->ns++;
}

void svgplot_band_cap(struct svgplot *p, int band, int cap)
{
	if (band >= 0 && band < p->ns && cap >= 0 && cap < p->ns &&
	    p->s[band].kind == SVGPLOT_BAND && p->s[cap].kind != SVGPLOT_BAND &&
	    p->s[band].group == p->s[cap].group)
		p->s[band].cap = cap;
}

void svgplot_keep(struct svgplot *p, const bool *keep)
{
	int *gmap = malloc(((size_t)p->ng + 1) * sizeof(*gmap));
	int *smap = malloc(((size_t)p->ns + 1) * sizeof(*smap));
	int n = 0;

	if (!gmap || !smap) {
		/* nothing renumbered: keep everything rather than fail */
		free(gmap);
		free(smap);
		return;
	}
	for (int i = 0; i < p->ng; i++) {
		gmap[i] = keep[i] ? n : -1;
		if (!keep[i]) {
			free(p->g[i].name);
			free(p->g[i].note);
			continue;
		}
		p->g[n++] = p->g[i];
	}
	p->ng = n;
	n = 0;
	for (int i = 0; i < p->ns; i++) {
		smap[i] = gmap[p->s[i].group] >= 0 ? n : -1;
		if (smap[i] < 0) {
			free(p->s[i].name);
			free(p->s[i].b);
			continue;
		}
		p->s[n] = p->s[i];
		p->s[n++].group = gmap[p->s[i].group];
	}
	p->ns = n;
	for (int i = 0; i < p->ns; i++)
		if (p->s[i].cap >= 0)
			p->s[i].cap = smap[p->s[i].cap];
	free(gmap);
	free(smap);
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

void sp_series_yrange(const struct sp_series *sr, double *lo, double *hi)
{
	*lo = sr->b[0].lo.y;
	*hi = sr->b[0].hi.y;
	for (size_t i = 1; i < sr->nb; i++) {
		*lo = sr->b[i].lo.y < *lo ? sr->b[i].lo.y : *lo;
		*hi = sr->b[i].hi.y > *hi ? sr->b[i].hi.y : *hi;
	}
}

int sp_bucket_points(const struct sp_bucket *b, struct sp_pt out[6])
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
		n += (size_t)sp_bucket_points(&p->s[s].b[i], pts);
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
	for (int i = 0; i < p->ng; i++) {
		free(p->g[i].name);
		free(p->g[i].note);
	}
	for (int i = 0; i < p->nmarks; i++)
		free(p->mark[i].label);
	for (int i = 0; i <= SVGPLOT_NKINDS; i++)
		free(p->legend[i]);
	free(p->s);
	free(p->g);
	free(p->title);
	free(p->note);
	free(p->xlabel);
	free(p->ylabel);
	free(p);
}
