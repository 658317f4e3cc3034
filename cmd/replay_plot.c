// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool replay --plot: limit and inflight of the busiest queues over
 * time, an SVG chart (lib/io/svgplot.c) fed by the same events as
 * --timeline (replay_series.c) and put in place with it, all or nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/replay.h"
#include "lib/io/ofile.h"
#include "lib/io/svgplot.h"

/*
 * The two series of a queue, made at its first record: "NAME inflight"
 * after every record, dashed, and "NAME limit" after each C record (a
 * step: the kernel holds it until the next completion), drawn on top.
 */
static int plot_queue(struct rplot *pl, unsigned int q, const char *name)
{
	char label[BQLT_NAME_MAX + 16];
	int s;

	if (q >= pl->nq) {
		unsigned int nq = q + 8, i;
		int *ser = realloc(pl->series, 2 * nq * sizeof(*ser));

		if (!ser)
			return -ENOMEM;
		for (i = 2 * pl->nq; i < 2 * nq; i++)
			ser[i] = -1;
		pl->series = ser;
		pl->nq = nq;
	}
	snprintf(label, sizeof(label), "%s inflight", name);
	s = svgplot_series(pl->svg, label);
	if (s < 0)
		return s;
	/* inflight moves in steps (a packet queued or completed), as the limit */
	svgplot_series_flags(pl->svg, s, SVGPLOT_DASHED | SVGPLOT_STEP);
	pl->series[2 * q + 1] = s;
	snprintf(label, sizeof(label), "%s limit", name);
	s = svgplot_series(pl->svg, label);
	if (s < 0)
		return s;
	svgplot_series_flags(pl->svg, s, SVGPLOT_STEP);
	pl->series[2 * q] = s;
	return 0;
}

/* per-queue counts and the running total of inflight, for every queue */
static int plot_count(struct rplot *pl, const struct replay_event *ev)
{
	unsigned int q = ev->queue;

	if (q >= pl->ncount) {
		unsigned int n = q + 1 > 2 * pl->ncount ? q + 1 : 2 * pl->ncount;
		uint64_t *c = realloc(pl->count, n * sizeof(*c)), *i;

		if (!c)
			return -ENOMEM;
		pl->count = c;
		i = realloc(pl->inflight, n * sizeof(*i));
		if (!i)
			return -ENOMEM;
		pl->inflight = i;
		memset(c + pl->ncount, 0, (n - pl->ncount) * sizeof(*c));
		memset(i + pl->ncount, 0, (n - pl->ncount) * sizeof(*i));
		pl->ncount = n;
	}
	pl->count[q]++;
	pl->total += ev->inflight - pl->inflight[q];	/* wraps back exactly */
	pl->inflight[q] = ev->inflight;
	return 0;
}

/* x: seconds since the first record (negative for an earlier t_ns) */
void rx_plot_event(struct rx *x, const struct replay_event *ev)
{
	struct rplot *pl = &x->plot;
	double t;

	if (pl->err)
		return;
	if (!pl->started) {
		pl->t0 = ev->t_ns;
		pl->started = true;
		pl->agg = svgplot_series(pl->svg, "total inflight");
		if (pl->agg < 0) {
			pl->err = pl->agg;
			return;
		}
		svgplot_series_flags(pl->svg, pl->agg, SVGPLOT_STEP);
	}
	pl->err = plot_count(pl, ev);
	if (pl->err)
		return;
	t = ev->t_ns >= pl->t0 ? (double)(ev->t_ns - pl->t0) / 1e9
			       : -((double)(pl->t0 - ev->t_ns) / 1e9);
	svgplot_point(pl->svg, pl->agg, t, (double)pl->total);
	if (ev->queue >= RPLOT_TRACK)
		return;		/* counted and in the total, not drawn alone */
	if (ev->queue >= pl->nq || pl->series[2 * ev->queue] < 0) {
		/* queues in the order declared, in the legend as in the summary */
		const struct replay *r = &x->files[0].r;	/* the one TRACE */
		unsigned int q;

		for (q = 0; q <= ev->queue && !pl->err; q++)
			if (q >= pl->nq || pl->series[2 * q] < 0)
				pl->err = plot_queue(pl, q, replay_queue_name(r, q));
		if (pl->err)
			return;
	}
	svgplot_point(pl->svg, pl->series[2 * ev->queue + 1], t, ev->inflight);
	if (ev->kind == BQLT_C)
		svgplot_point(pl->svg, pl->series[2 * ev->queue], t, ev->limit);
}

/*
 * Keep the RPLOT_DRAW busiest queues (most records, the first declared on
 * a tie) of those with series, and the total only when some queue is left
 * out; say so in the title and on stderr. 0 or -ENOMEM.
 */
static int plot_choose(struct rx *x)
{
	struct rplot *pl = &x->plot;
	unsigned int nseen = 0, drawn = 0, q, k;
	bool *keep;
	char title[600];

	if (!pl->started)
		return 0;
	for (q = 0; q < pl->ncount; q++)
		nseen += pl->count[q] > 0;
	keep = calloc((size_t)2 * pl->nq + 1, sizeof(*keep));
	if (!keep)
		return -ENOMEM;
	/* RPLOT_DRAW rounds of "the busiest not yet kept": n * RPLOT_TRACK */
	for (k = 0; k < RPLOT_DRAW; k++) {
		unsigned int best = UINT32_MAX;

		for (q = 0; q < pl->nq && q < pl->ncount; q++) {
			if (pl->series[2 * q] < 0 || keep[pl->series[2 * q]] || !pl->count[q])
				continue;
			if (best == UINT32_MAX || pl->count[q] > pl->count[best])
				best = q;
		}
		if (best == UINT32_MAX)
			break;
		keep[pl->series[2 * best]] = keep[pl->series[2 * best + 1]] = true;
		drawn++;
	}
	keep[pl->agg] = nseen > drawn;
	svgplot_keep(pl->svg, keep);
	free(keep);
	if (nseen <= drawn)
		return 0;
	snprintf(title, sizeof(title), "bqltool replay: %s: the %u busiest of %u queues%s, and the total",
		 x->files[0].path, drawn, nseen,
		 nseen > RPLOT_TRACK ? " (of the first 64 declared)" : "");
	cmd_note(x->c, "--plot: %u queues: drawing the %u busiest%s (most records) and the total inflight of all",
		 nseen, drawn, nseen > RPLOT_TRACK ? " of the first 64 declared" : "");
	return svgplot_set_title(pl->svg, title);
}

int rx_plot_open(struct rx *x)
{
	struct rplot *pl = &x->plot;
	char title[512];

	if (x->plot_title)
		snprintf(title, sizeof(title), "%s", x->plot_title);
	else
		snprintf(title, sizeof(title), "bqltool replay: %s", x->files[0].path);
	pl->svg = svgplot_new(title, "time (s)", "bytes");
	if (pl->svg)
		svgplot_set_y_bytes(pl->svg, true);
	if (!pl->svg)
		return cmd_fail(x->c, "%s: %s", x->plot_path, strerror(ENOMEM));
	return rx_out_open(x, &pl->out, x->plot_path, OFILE_COMPRESS_BY_NAME);
}

/* the chart into its file, synced */
int rx_plot_finish(struct rx *x)
{
	struct rplot *pl = &x->plot;
	struct bql_err e;
	int ret, r;
	FILE *f;

	if (!pl->err)
		pl->err = plot_choose(x);
	if (pl->err)
		return cmd_fail(x->c, "%s: %s", x->plot_path, strerror(-pl->err));
	f = ofile_stdio(pl->out);
	if (!f)
		return cmd_fail(x->c, "%s: %s", x->plot_path, strerror(ENOMEM));
	ret = svgplot_write(pl->svg, f, &e);
	if (fclose(f) && !ret)
		ret = -errno;
	/* a write error is the ofile's: out_finish() names it */
	r = rx_out_finish(x, pl->out);
	if (!r && ret)
		r = cmd_fail(x->c, "%s: write error: %s", x->plot_path, strerror(-ret));
	return r;
}

void rx_plot_free(struct rx *x)
{
	svgplot_free(x->plot.svg);
	x->plot.svg = NULL;
	free(x->plot.series);
	x->plot.series = NULL;
	x->plot.nq = 0;
	free(x->plot.count);
	free(x->plot.inflight);
	x->plot.count = x->plot.inflight = NULL;
	x->plot.ncount = 0;
}
