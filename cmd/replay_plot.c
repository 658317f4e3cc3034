// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool replay --plot: limit and inflight of the busiest queues over
 * time, an SVG chart (lib/io/svgplot.c) fed by the same events as
 * --timeline (replay_series.c) and put in place with it, all or nothing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/replay.h"
#include "lib/io/ofile.h"
#include "lib/io/svgplot.h"

/* the entries of rplot.series per queue */
enum { RP_GROUP, RP_LIMIT, RP_INFLIGHT, RP_RECORDED };

/*
 * A queue's group and series, made at its first record: "NAME limit"
 * after each C record (a step: the kernel holds it until the next
 * completion), "NAME inflight" after every record, a band; in a what-if
 * the limit is the replayed one, the inflight is the recorded one (the
 * trace's traffic, which no what-if changes), hatched above the what-if
 * limit, and "NAME recorded limit" is the trace's limit= beside it.
 */
static int plot_queue(struct rplot *pl, unsigned int q, const char *name)
{
	char label[BQLT_NAME_MAX + 32];
	int *ser = pl->series, g, s;

	if (q >= pl->nq) {
		unsigned int nq = q + 8, i;

		ser = realloc(pl->series, RPLOT_NS * nq * sizeof(*ser));
		if (!ser)
			return -ENOMEM;
		for (i = RPLOT_NS * pl->nq; i < RPLOT_NS * nq; i++)
			ser[i] = -1;
		pl->series = ser;
		pl->nq = nq;
	}
	ser += RPLOT_NS * q;
	g = svgplot_group(pl->svg, name, 0);
	if (g < 0)
		return g;
	ser[RP_GROUP] = g;
	snprintf(label, sizeof(label), "%s inflight", name);
	s = svgplot_series(pl->svg, g, SVGPLOT_BAND, label);
	if (s < 0)
		return s;
	ser[RP_INFLIGHT] = s;
	snprintf(label, sizeof(label), "%s limit", name);
	s = svgplot_series(pl->svg, g, SVGPLOT_LINE, label);
	if (s < 0)
		return s;
	ser[RP_LIMIT] = s;
	if (pl->whatif) {
		svgplot_band_cap(pl->svg, ser[RP_INFLIGHT], s);
		snprintf(label, sizeof(label), "%s recorded limit", name);
		s = svgplot_series(pl->svg, g, SVGPLOT_REF, label);
		if (s < 0)
			return s;
		ser[RP_RECORDED] = s;
	}
	return 0;
}

/* the total's group and series, and the legend, at the first record */
static int plot_start(struct rx *x)
{
	struct rplot *pl = &x->plot;
	int ret;

	pl->whatif = rx_whatif(x, &x->files[0]);
	pl->agg_group = svgplot_group(pl->svg, pl->whatif ? "total inflight of all queues, recorded"
				      : "total inflight of all queues", SVGPLOT_TOTAL);
	if (pl->agg_group < 0)
		return pl->agg_group;
	pl->agg = svgplot_series(pl->svg, pl->agg_group, SVGPLOT_BAND, "total inflight");
	if (pl->agg < 0)
		return pl->agg;
	if (!pl->whatif) {
		ret = svgplot_legend(pl->svg, SVGPLOT_LINE, "limit after each completion");
		if (!ret)
			ret = svgplot_legend(pl->svg, SVGPLOT_BAND,
					     "inflight: lowest to highest in each pixel column");
		return ret;
	}
	ret = svgplot_legend(pl->svg, SVGPLOT_LINE, "what-if limit, replayed");
	if (!ret)
		ret = svgplot_legend(pl->svg, SVGPLOT_REF, "recorded limit (the trace's limit=)");
	if (!ret)
		ret = svgplot_legend(pl->svg, SVGPLOT_BAND,
				     "recorded inflight, lowest to highest per pixel column");
	if (!ret)
		ret = svgplot_legend(pl->svg, SVGPLOT_NKINDS, "recorded inflight above the "
				     "what-if limit: there the queue would have been stopped");
	return ret;
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

/*
 * A P record (settings written) of the trace, a mark on the time axis: the
 * first RPLOT_MARKS distinct times, one mark for the queues written at once.
 */
static void plot_setting(struct rplot *pl, const struct replay_event *ev)
{
	struct rx_mark *m;

	if (pl->nptimes && pl->plast == ev->t_ns)
		return;
	pl->nptimes++;
	pl->plast = ev->t_ns;
	if (pl->npmarks == RPLOT_MARKS)
		return;
	m = &pl->pmark[pl->npmarks++];
	m->t_ns = ev->t_ns;
	m->len_ns = 0;
	snprintf(m->label, sizeof(m->label), "settings written (line %" PRIu64 ")", ev->line);
}

/* x: seconds since the first record (negative for an earlier t_ns) */
void rx_plot_event(struct rx *x, const struct replay_event *ev)
{
	struct rplot *pl = &x->plot;
	const int *ser;
	double t;

	if (pl->err)
		return;
	if (!pl->started) {
		pl->t0 = ev->t_ns;
		pl->started = true;
		pl->err = plot_start(x);
		if (pl->err)
			return;
	}
	pl->err = plot_count(pl, ev);
	if (pl->err)
		return;
	t = ev->t_ns >= pl->t0 ? (double)(ev->t_ns - pl->t0) / 1e9
			       : -((double)(pl->t0 - ev->t_ns) / 1e9);
	svgplot_point(pl->svg, pl->agg, t, (double)pl->total);
	if (ev->kind == BQLT_P && !x->marks)
		plot_setting(pl, ev);
	if (ev->queue >= RPLOT_TRACK)
		return;		/* counted and in the total, not drawn alone */
	if (ev->queue >= pl->nq || pl->series[RPLOT_NS * ev->queue] < 0) {
		/* queues in the order declared, in the legend as in the summary */
		const struct replay *r = &x->files[0].r;	/* the one TRACE */
		unsigned int q;

		for (q = 0; q <= ev->queue && !pl->err; q++)
			if (q >= pl->nq || pl->series[RPLOT_NS * q] < 0)
				pl->err = plot_queue(pl, q, replay_queue_name(r, q));
		if (pl->err)
			return;
	}
	ser = pl->series + RPLOT_NS * ev->queue;
	svgplot_point(pl->svg, ser[RP_INFLIGHT], t, ev->inflight);
	if (ev->kind != BQLT_C)
		return;
	svgplot_point(pl->svg, ser[RP_LIMIT], t, ev->limit);
	if (ev->has_observed && ser[RP_RECORDED] >= 0) {
		svgplot_point(pl->svg, ser[RP_RECORDED], t, ev->observed);
		pl->observed = true;
	}
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
	int ng = 0;

	if (!pl->started)
		return 0;
	for (q = 0; q < pl->ncount; q++)
		nseen += pl->count[q] > 0;
	for (q = 0; q < pl->nq; q++)
		ng += pl->series[RPLOT_NS * q + RP_GROUP] >= 0;
	keep = calloc((size_t)ng + 2, sizeof(*keep));
	if (!keep)
		return -ENOMEM;
	/* RPLOT_DRAW rounds of "the busiest not yet kept": n * RPLOT_TRACK */
	for (k = 0; k < RPLOT_DRAW; k++) {
		unsigned int best = UINT32_MAX;

		for (q = 0; q < pl->nq && q < pl->ncount; q++) {
			int g = pl->series[RPLOT_NS * q + RP_GROUP];

			if (g < 0 || keep[g] || !pl->count[q])
				continue;
			if (best == UINT32_MAX || pl->count[q] > pl->count[best])
				best = q;
		}
		if (best == UINT32_MAX)
			break;
		keep[pl->series[RPLOT_NS * best + RP_GROUP]] = true;
		drawn++;
	}
	keep[pl->agg_group] = nseen > drawn;
	/* a drawn queue without a limit had no completion: say so, not a flat 0 */
	for (q = 0; q < pl->nq; q++) {
		const int *ser = pl->series + RPLOT_NS * q;

		if (ser[RP_GROUP] >= 0 && keep[ser[RP_GROUP]] && !svgplot_count(pl->svg, ser[RP_LIMIT]) &&
		    svgplot_group_note(pl->svg, ser[RP_GROUP], "no completions")) {
			free(keep);
			return -ENOMEM;
		}
	}
	svgplot_keep(pl->svg, keep);
	free(keep);
	pl->nseen = nseen;
	pl->drawn = drawn;
	if (nseen > drawn)
		cmd_note(x->c, "--plot: %u queues: drawing the %u busiest%s (most records) and the total inflight of all",
			 nseen, drawn, nseen > RPLOT_TRACK ? " of the first 64 declared" : "");
	return 0;
}

/*
 * The title: the command and the trace (or the caller's), a what-if's
 * options, the queues left out; a what-if's note; the marks. 0 or -ENOMEM.
 */
static int plot_words(struct rx *x)
{
	struct rplot *pl = &x->plot;
	char title[1400], opts[512];
	size_t n;
	int ret;

	if (pl->whatif) {
		rx_whatif_text(opts, sizeof(opts), x, &x->files[0]);
		n = (size_t)snprintf(title, sizeof(title), "bqltool replay what-if (%s): %s", opts,
				     x->files[0].path);
	} else if (x->plot_title) {
		n = (size_t)snprintf(title, sizeof(title), "%s", x->plot_title);
	} else {
		n = (size_t)snprintf(title, sizeof(title), "bqltool replay: %s", x->files[0].path);
	}
	if (pl->nseen > pl->drawn && n < sizeof(title))
		snprintf(title + n, sizeof(title) - n, ": the %u busiest of %u queues%s, and the total",
			 pl->drawn, pl->nseen, pl->nseen > RPLOT_TRACK ? " (of the first 64 declared)" : "");
	n = strlen(title);
	if (!x->marks && pl->nptimes > RPLOT_MARKS)
		snprintf(title + n, sizeof(title) - n, " (the first %u of %" PRIu64 " settings changes marked)",
			 RPLOT_MARKS, pl->nptimes);
	ret = svgplot_set_title(pl->svg, title);
	if (!ret && pl->whatif)
		ret = svgplot_set_note(pl->svg, pl->observed ?
			"The what-if limits are DQL's over the recorded completions; the inflight is "
			"the recorded traffic, which did not react to them." :
			"The what-if limits are DQL's over the recorded completions; the inflight is "
			"the recorded traffic, which did not react to them. The trace records no "
			"limit= to draw beside them.");
	for (unsigned int i = 0; i < (x->marks ? x->nmarks : pl->npmarks) && !ret; i++) {
		const struct rx_mark *m = x->marks ? &x->marks[i] : &pl->pmark[i];
		double a = m->t_ns >= pl->t0 ? (double)(m->t_ns - pl->t0) / 1e9
					     : -((double)(pl->t0 - m->t_ns) / 1e9);

		ret = svgplot_mark(pl->svg, a, a + (double)m->len_ns / 1e9, m->label);
		if (ret == -ENOSPC)
			ret = 0;	/* the title says them all */
	}
	return ret;
}

int rx_plot_open(struct rx *x)
{
	struct rplot *pl = &x->plot;
	char title[512];

	if (x->plot_title)
		snprintf(title, sizeof(title), "%s", x->plot_title);
	else
		snprintf(title, sizeof(title), "bqltool replay: %s", x->files[0].path);
	pl->svg = svgplot_new(title, "time", "bytes");
	if (pl->svg) {
		svgplot_set_y_bytes(pl->svg, true);
		svgplot_set_x_time(pl->svg, true);
	}
	if (!pl->svg)
		return cmd_fail(x->c, "%s: %s", x->plot_path, strerror(ENOMEM));
	return rx_out_open(x, &pl->out, x->plot_path, OFILE_COMPRESS_BY_NAME);
}

/* what --plot's name asks for: .png, .pdf, else SVG (also a /dev/ name) */
static enum svgplot_format plot_format(const char *path)
{
	struct ofile_name n;

	ofile_name_parse(path, &n);
	if (n.device)
		return SVGPLOT_SVG;
	return n.fmt == OFILE_FMT_PNG ? SVGPLOT_PNG : n.fmt == OFILE_FMT_PDF ? SVGPLOT_PDF :
		SVGPLOT_SVG;
}

/* the chart into its file, synced */
int rx_plot_finish(struct rx *x)
{
	struct rplot *pl = &x->plot;
	struct bql_err e = { 0 };
	int ret, r;
	FILE *f;

	if (!pl->err)
		pl->err = plot_choose(x);
	if (!pl->err && pl->started)
		pl->err = plot_words(x);
	if (pl->err)
		return cmd_fail(x->c, "%s: %s", x->plot_path, strerror(-pl->err));
	f = ofile_stdio(pl->out);
	if (!f)
		return cmd_fail(x->c, "%s: %s", x->plot_path, strerror(ENOMEM));
	ret = svgplot_write_as(pl->svg, f, plot_format(x->plot_path), &e);
	if (fclose(f) && !ret)
		ret = -errno;
	/* a write error is the ofile's: out_finish() names it */
	r = rx_out_finish(x, pl->out);
	if (!r && ret)
		r = ret == -EIO && !strncmp(e.msg, "plot: cairo: ", 13) ?
			cmd_fail(x->c, "%s: %s", x->plot_path, e.msg + 6) :
			cmd_fail(x->c, "%s: write error: %s", x->plot_path, strerror(-ret));
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
