// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool replay: the outputs fed record by record, --timeline (CSV or
 * JSON lines) and --plot (SVG), each written in full or not at all.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/replay.h"
#include "lib/esc.h"
#include "lib/ofile.h"
#include "lib/svgplot.h"

#define OBUF_SIZE	(1u << 20)	/* timeline buffer */
#define OBUF_ROW	1024		/* room one timeline row needs at most */

/* ------------------------------------------------------------ files */

/*
 * Each output goes through lib/ofile.c: a temporary beside the target
 * (through symlinks, keeping mode and owner) renamed only when the replay
 * succeeded, or a spool copied then to a FIFO, a device or /dev/stdout.
 */
static int out_open(struct rx *x, struct ofile **o, const char *path, unsigned int flags)
{
	struct bql_err e;

	if (ofile_open(o, path, flags, &e))
		return cmd_fail(x->c, "%s", e.msg);
	return 0;
}

static int out_finish(struct rx *x, struct ofile *o)
{
	struct bql_err e;

	if (ofile_finish(o, &e))
		return cmd_fail(x->c, "%s", e.msg);
	return 0;
}

/* @keep: put a finished file in place; else drop it, the target untouched */
static int out_end(struct rx *x, struct ofile **o, bool keep)
{
	struct bql_err e;
	int ret = 0;

	if (keep && *o && ofile_commit(*o, &e))
		ret = cmd_fail(x->c, "%s", e.msg);
	else if (!keep)
		ofile_abort(*o);
	*o = NULL;
	return ret;
}

/* ------------------------------------------------------------ timeline */

/* the number of decimal digits of @v */
static unsigned int ndigits(uint64_t v)
{
	static const uint64_t p10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
		10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
		100000000000ull, 1000000000000ull, 10000000000000ull,
		100000000000000ull, 1000000000000000ull, 10000000000000000ull,
		100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
	};
	unsigned int t;

	if (v < 10)
		return 1;
	t = (unsigned int)(64 - __builtin_clzll(v)) * 1233 >> 12;	/* ~log10 */
	return t + (v >= p10[t]);
}

/*
 * decimal, two digits at a time, written in place from the end (the
 * timeline is mostly numbers: no copy through a temporary)
 */
char *put_u64(char *p, uint64_t v)
{
	static const char d2[] =
		"0001020304050607080910111213141516171819"
		"2021222324252627282930313233343536373839"
		"4041424344454647484950515253545556575859"
		"6061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char *end = p + ndigits(v), *e = end;

	while (v >= 100) {
		e -= 2;
		memcpy(e, d2 + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		e -= 2;
		memcpy(e, d2 + 2 * v, 2);
	} else {
		*--e = (char)('0' + v);
	}
	return end;
}

static char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

/*
 * queue name as a CSV field: names have no blanks or C0 controls, but may
 * hold C1 controls or invalid UTF-8, written in their escaped form
 * (lib/esc.h) so the file is valid UTF-8 and safe to cat
 */
static char *put_csv_name(char *p, const char *raw)
{
	char s[4 * BQLT_NAME_MAX + 1];

	esc_text(s, sizeof(s), raw);
	if (!strpbrk(s, ",\"\r\n"))
		return put_str(p, s);
	*p++ = '"';
	for (const char *c = s; *c; c++) {
		if (*c == '"')
			*p++ = '"';
		*p++ = *c;
	}
	*p++ = '"';
	return p;
}

_Static_assert(ESC_MAX_PER_BYTE * BQLT_NAME_MAX + 3 + 6 * 20 + 80 <= OBUF_ROW,
	       "a timeline row with the longest escaped name fits OBUF_ROW");

/* a JSON string: valid UTF-8, controls escaped (lib/esc.h); fits OBUF_ROW */
static char *put_json_name(char *p, const char *s)
{
	return p + esc_json_str(p, ESC_MAX_PER_BYTE * BQLT_NAME_MAX + 3, s);
}

static const char kind_name[] = {
	[BQLT_Q] = 'Q', [BQLT_C] = 'C', [BQLT_P] = 'P', [BQLT_S] = 'S',
	[BQLT_R] = 'R',
};

/* one row per C record (per record with --all-events) */
static void timeline_event(struct rx *x, const struct replay_event *ev)
{
	char *p;

	if (ev->kind != BQLT_C && !x->all_events)
		return;
	if (x->tl_len + OBUF_ROW > OBUF_SIZE) {
		ofile_write(x->tl, x->tl_buf, x->tl_len);
		x->tl_len = 0;
	}
	p = x->tl_buf + x->tl_len;
	if (x->jsonl) {
		p = put_str(p, "{\"line\":");
		p = put_u64(p, ev->line);
		p = put_str(p, ",\"t_ns\":");
		p = put_u64(p, ev->t_ns);
		p = put_str(p, ",\"queue\":");
		p = put_json_name(p, ev->qname);
		p = put_str(p, ",\"event\":\"");
		*p++ = kind_name[ev->kind];
		p = put_str(p, "\",\"bytes\":");
		p = put_u64(p, ev->bytes);
		p = put_str(p, ",\"inflight\":");
		p = put_u64(p, ev->inflight);
		p = put_str(p, ",\"limit\":");
		p = put_u64(p, ev->limit);
		*p++ = '}';
	} else {
		p = put_u64(p, ev->line);
		*p++ = ',';
		p = put_u64(p, ev->t_ns);
		*p++ = ',';
		p = put_csv_name(p, ev->qname);
		*p++ = ',';
		*p++ = kind_name[ev->kind];
		*p++ = ',';
		p = put_u64(p, ev->bytes);
		*p++ = ',';
		p = put_u64(p, ev->inflight);
		*p++ = ',';
		p = put_u64(p, ev->limit);
	}
	*p++ = '\n';
	x->tl_len = (size_t)(p - x->tl_buf);
}

static int timeline_open(struct rx *x)
{
	int ret;

	x->tl_buf = malloc(OBUF_SIZE);
	if (!x->tl_buf)
		return cmd_fail(x->c, "%s: %s", x->timeline, strerror(ENOMEM));
	ret = out_open(x, &x->tl, x->timeline, OFILE_COMPRESS_BY_NAME);
	if (ret)
		return ret;
	if (!x->jsonl) {
		memcpy(x->tl_buf, "line,t_ns,queue,event,bytes,inflight,limit\n", 43);
		x->tl_len = 43;
	}
	return 0;
}

/* the rest of the rows, synced */
static int timeline_finish(struct rx *x)
{
	ofile_write(x->tl, x->tl_buf, x->tl_len);
	x->tl_len = 0;
	return out_finish(x, x->tl);
}

/* ------------------------------------------------------------ plot */

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
static void plot_event(struct rx *x, const struct replay_event *ev)
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

static int plot_open(struct rx *x)
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
	return out_open(x, &pl->out, x->plot_path, 0);
}

/* the chart into its file, synced */
static int plot_finish(struct rx *x)
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
	r = out_finish(x, pl->out);
	if (!r && ret)
		r = cmd_fail(x->c, "%s: write error: %s", x->plot_path, strerror(-ret));
	return r;
}

/* ------------------------------------------------------------ both */

void rx_on_event(void *arg, const struct replay_event *ev)
{
	struct rx *x = arg;

	if (x->plot_path)
		plot_event(x, ev);
	if (x->timeline)
		timeline_event(x, ev);
}

void rx_init(struct rx *x, struct bql_ctx *c)
{
	memset(x, 0, sizeof(*x));
	x->c = c;
}

int rx_outputs_open(struct rx *x)
{
	int ret = 0;

	if (x->timeline)
		ret = timeline_open(x);
	if (!ret && x->plot_path)
		ret = plot_open(x);
	return ret;
}

int rx_outputs_close(struct rx *x, bool ok)
{
	int ret = 0, r;

	/* both written and synced before either is renamed: all or nothing */
	if (ok && x->tl)
		ret = timeline_finish(x);
	if (ok && !ret && x->plot.out)
		ret = plot_finish(x);
	r = out_end(x, &x->tl, ok && !ret);
	if (!ret)
		ret = r;
	r = out_end(x, &x->plot.out, ok && !ret);
	if (!ret)
		ret = r;
	free(x->tl_buf);
	x->tl_buf = NULL;
	svgplot_free(x->plot.svg);
	x->plot.svg = NULL;
	free(x->plot.series);
	x->plot.series = NULL;
	x->plot.nq = 0;
	free(x->plot.count);
	free(x->plot.inflight);
	x->plot.count = x->plot.inflight = NULL;
	x->plot.ncount = 0;
	return ret;
}
