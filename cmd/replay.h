/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to cmd/replay*.c: the state of one `bqltool replay` run, shared
 * by the command (replay.c), its summary (replay_out.c) and its per-record
 * outputs, --timeline and --plot (replay_series.c).
 */
#ifndef BQLTOOL_CMD_REPLAY_H
#define BQLTOOL_CMD_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "cmd/put.h"
#include "dql/replay.h"
#include "dql/trace.h"
#include "lib/io/ctx.h"

struct ofile;
struct tl_name;		/* replay_series.c: a queue's timeline text, made once */
struct tl_writer;	/* replay_series.c: the thread writing the timeline */

/*
 * replay_series.c: the leading digits of a timeline column, made once and
 * copied while they stay the same (line / 100, t_ns / 1e8)
 */
struct tl_digits {
	uint64_t hi;		/* UINT64_MAX: none yet */
	uint32_t len;
	char s[28];		/* copied 24 bytes at a time */
};

#define MAX_LISTED	10		/* mismatches listed on stderr */

struct rfile {
	const char *path;
	struct bqlt_parser p;
	struct replay r;
	bool live;		/* p and r initialised */
};

struct mismatch {
	const char *path;
	uint64_t line;
	const char *queue;
	uint32_t observed, computed;
};

/*
 * --plot: one chart, a group of series per queue (its limit, its inflight
 * and, in a what-if, the recorded limit). Memory and output are bounded:
 * series exist for the first RPLOT_TRACK queues declared; at the end the
 * RPLOT_DRAW busiest of them (most records) are drawn, plus the total
 * inflight of every queue when there are more than RPLOT_DRAW.
 */
/* a span of a --plot's time axis (sim's stalls and --at
 * changes, a trace's P records), with its label */
struct rx_mark {
	uint64_t t_ns, len_ns;
	char label[96];
};

#define RPLOT_TRACK	64
#define RPLOT_DRAW	8
#define RPLOT_NS	4	/* per queue: group, limit, inflight, recorded limit */
#define RPLOT_MARKS	16	/* P records marked (at distinct times), at most */
struct rplot {
	struct svgplot *svg;
	struct ofile *out;	/* lib/io/ofile.h */
	int *series;		/* per queue q: [RPLOT_NS q + RPLOT_*], -1: none */
	unsigned int nq;	/* queues in series[] */
	uint64_t *count;	/* per queue: records seen */
	uint64_t *inflight;	/* per queue: inflight after its last record */
	unsigned int ncount;	/* entries in count[] and inflight[] */
	uint64_t total;		/* sum of inflight[] */
	int agg, agg_group;	/* the series and group of the total */
	bool whatif;		/* the limits are a what-if's (rx_whatif()) */
	bool observed;		/* a C record carried the recorded limit= */
	unsigned int nseen, drawn;	/* queues with records, and drawn */
	struct rx_mark pmark[RPLOT_MARKS];	/* the trace's settings changes */
	unsigned int npmarks;
	uint64_t nptimes;	/* distinct times of P records */
	uint64_t plast;		/* the time of the last P record */
	uint64_t t0;		/* t_ns of the first record: x = 0 */
	bool started;
	int err;		/* out of memory while plotting */
};

struct rx {
	struct bql_ctx *c;
	/* options */
	const char *timeline, *plot_path;
	const char *plot_title;	/* NULL: "bqltool replay: TRACE" */
	const struct rx_mark *marks;	/* spans of time marked (NULL: P records) */
	unsigned int nmarks;
	/* another command's callbacks for the replay (NULL: replay's own) */
	const struct replay_ops *ops;
	void *ops_arg;
	bool all_events, jsonl, verify, quiet;
	unsigned int hz;
	unsigned int jobs;	/* -J: threads; 0 = rx_jobs_default() */
	const char *kernel;
	struct replay_opts opts;
	const char *set_arg[4];	/* --set KEY=VALUE as given, by REPLAY key */
	/* state */
	struct rfile *files;
	int nfiles;
	const char *path;	/* file being replayed */
	struct ofile *tl;	/* --timeline (lib/io/ofile.h) */
	char *tl_buf;
	size_t tl_len;
	struct tl_name *tl_names;	/* per queue index */
	unsigned int tl_nnames;
	struct tl_digits tl_line, tl_t;	/* line / 100, t_ns / 1e8 */
	struct tl_writer *tlw;	/* NULL: written by the replay itself */
	struct rplot plot;	/* --plot */
	uint64_t nmismatch;
	struct mismatch listed[MAX_LISTED];
	/* progress */
	bool progress;
	uint64_t records, bytes, next_check;
	bool drawn;		/* a progress line is on the terminal */
	struct timespec t0, shown;
};

/*
 * replay.c: replay @f->path (plain, gzip or zstd; "-" is standard input)
 * with @x's options, as replay does, into f->r (f->p, f->r live after,
 * even on failure: replay_free() and bqlt_parser_free() them); a failure
 * is reported ("FILE:LINE: reason") and returned as an enum bql_exit.
 */
int rx_replay_one(struct rx *x, struct rfile *f);

/* replay.c, for replay_par.c: the single-threaded reading path's pieces */
#define RX_LINE_MAX	(1u << 20)	/* the longest line, with its '\n' */
#define RX_READ		(1u << 18)	/* bytes read at a time, at most */
#define RX_BATCH	64		/* records parsed, then replayed, at a time */
/*
 * replay @n parsed records, then report @perr (the line after them that
 * failed to parse), if not NULL; 0 or the exit status of the error
 */
int rx_replay_recs(struct rx *x, struct rfile *f, const struct bqlt_rec *recs,
		   unsigned int n, const struct bql_err *perr);
/* parse and replay the complete lines in [s, end) */
int rx_feed_block(struct rx *x, struct rfile *f, const char *s, const char *end);
/* report a parse or replay error ("FILE:LINE: reason"); its exit status */
int rx_trace_fail(struct rx *x, const struct bql_err *e);
/* report a failed read (lib/io/tinput.c), at the line being read */
int rx_read_fail(struct rx *x, struct rfile *f, const struct bql_err *e);
/* "FILE:LINE: line longer than RX_LINE_MAX bytes", LINE the next one */
int rx_long_line(struct rx *x, struct rfile *f);
/* the progress line, every 65536 records (when x->progress) */
void rx_progress(struct rx *x);

/*
 * replay_par.c: -J. rx_jobs_default() is the number of CPUs this process
 * may run on (cpus_usable()), at most RX_JOBS_DEFAULT_MAX. rx_replay_par() replays @in, opened on
 * f->path and not read yet, with @jobs threads scanning ahead, into f->p
 * and f->r (initialised), with the very output of the single-threaded
 * path; its threads are joined before it returns.
 */
#define RX_JOBS_MAX		64
#define RX_JOBS_DEFAULT_MAX	8
/*
 * rx_replay_par()'s answer when not even two threads' chunks fit in
 * memory (ulimit -v): nothing read; the caller replays in one thread
 */
#define RX_PAR_SERIAL		(-1)
struct tinput;
unsigned int rx_jobs_default(void);
int rx_replay_par(struct rx *x, struct rfile *f, struct tinput *in, unsigned int jobs);

/*
 * replay_out.c: the per-queue summary, text or JSON, and --verify's
 * verdict. rx_whatif(): whether @f's replay departs from the recorded run
 * (--set, a --kernel of other semantics than the newest, a --hz other
 * than the trace's): then the summary tells how the limits differ from
 * the recorded ones instead of a verdict, unless --verify asks for one.
 */
bool rx_whatif(const struct rx *x, const struct rfile *f);
/* "--kernel 3.5, --set hold_time=100ms": the options of a what-if for @f */
void rx_whatif_text(char *buf, size_t n, const struct rx *x, const struct rfile *f);
int rx_summary(struct rx *x);
int rx_verify_report(struct rx *x);

/* replay_series.c: --timeline and --plot, fed by rx_on_event() */
/* an empty run for @c: no file open */
void rx_init(struct rx *x, struct bql_ctx *c);
int rx_outputs_open(struct rx *x);
/* @ok: keep the files (the replay succeeded) or remove them */
int rx_outputs_close(struct rx *x, bool ok);
void rx_on_event(void *arg, const struct replay_event *ev);
/*
 * replay_series.c: an output file through lib/io/ofile.c; errors are
 * reported (cmd_fail) and returned. rx_out_end() puts a finished file in
 * place (@keep) or drops it, the target untouched.
 */
int rx_out_open(struct rx *x, struct ofile **o, const char *path, unsigned int flags);
int rx_out_finish(struct rx *x, struct ofile *o);
int rx_out_end(struct rx *x, struct ofile **o, bool keep);

/* replay_plot.c: --plot's chart (x->plot), drawn as the events come */
int rx_plot_open(struct rx *x);
void rx_plot_event(struct rx *x, const struct replay_event *ev);
/* the chart written to its file, not yet put in place (rx_out_end) */
int rx_plot_finish(struct rx *x);
void rx_plot_free(struct rx *x);

#endif
