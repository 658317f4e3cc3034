/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * recwriter: turns record's BPF events (struct rec_event, lib/kernel/bpf/record.h)
 * into bqltrace v1 lines (spec/bqltrace.md; a queue name with controls,
 * blanks, '=', a backslash or invalid UTF-8 written with \xHH escapes, as
 * bqltrace(5) says, so that replay reads back what record wrote). Pure
 * logic, no I/O: lines go
 * to a sink callback, so tests drive it with synthetic event streams.
 *
 * - The first C event of a queue becomes its seed S (the full post-call
 *   state), not a C record; Q events before it are dropped.
 * - C: count = num_completed minus the previous known num_completed, with
 *   the call's nq=/lo= (prev_num_queued, prev_last_obj_cnt), j= and the
 *   post-call limit=.
 * - A checkpoint (CHECK) that finds num_completed moved means C events were
 *   lost: a comment and a full S (exact: the state was read under the TX
 *   lock). num_queued moved (--queued): a Q of the difference. Settings or
 *   limit moved: P (or a partial S where ms cannot express the jiffies).
 * - Settings changed at a C: P before it. R for dql_reset; the checkpoint
 *   after it re-seeds.
 * - Record times never go backwards within a queue.
 *
 * The tracepoint backend sends observations (OBS): the whole state, each
 * time it changed since the previous observation of the queue. The first
 * is the seed S. Then, where num_completed moved, the writer looks for the
 * one dql_completed() call that turns the previous state into the new
 * one: count = the num_completed difference, the num_queued and
 * last_obj_cnt it read are the new prev_num_queued and prev_last_obj_cnt,
 * the settings are the old or the new ones, jiffies one of the few values
 * in the window that can matter. It runs the kernel's algorithm (dql/)
 * on each candidate and writes the C only if every completion-side field
 * comes out as observed; otherwise (two calls in one window, a race with
 * another CPU, a reset, a limit written just before the call) the new
 * state is written as an exact S and counted as a re-seed, with the reason.
 * An observation older than the state already written (a race between
 * CPUs) is dropped and counted. Without a completion, settings and limit
 * writes become P, num_queued growth (--queued) Q.
 */
#ifndef BQLTOOL_LIB_RECWRITER_H
#define BQLTOOL_LIB_RECWRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/kernel/bpf/record.h"

#define RECW_NAME_MAX	64

/* one queue: its name and the sysfs settings for its `queue` line */
struct recw_queue {
	char name[RECW_NAME_MAX];	/* "eth0:tx-0" */
	char tname[4 * RECW_NAME_MAX];	/* filled by recw_init(): as written
					 * (esc_bqlt_name(): "\x1b[31mRED:tx-0") */
	uint64_t limit_min, limit_max;	/* bytes */
	uint64_t hold_time, stall_thrs;	/* ms, as sysfs shows them */

	/* filled by the writer */
	bool seeded;			/* an S written: the first event (a completion, or any observation) */
	bool completed;			/* a completion seen during the capture */
	bool resync;			/* R emitted; next CHECK re-seeds */
	struct rec_snap last;		/* the state the trace so far implies */
	uint64_t last_t;
	uint64_t n_c, n_q, n_p, n_r;	/* records written */
	uint64_t n_reseed;		/* S after detected lost C events */
	uint64_t n_lost_q;		/* Q written from a checkpoint */
	uint64_t n_early_q;		/* Q dropped before the seed */

	/* tracepoint backend */
	uint64_t n_obs;			/* observations consumed */
	uint64_t n_at[REC_AT_NR];	/* ... by tracepoint (enum rec_obs_where) */
	uint64_t n_windows;		/* ... in which num_completed moved */
	uint64_t n_exact;		/* ... explained by one call: a C */
	uint64_t n_stale;		/* observations older than the written state */
	uint64_t n_why[4];		/* re-seeds by reason (enum recw_reseed) */
	struct rec_snap hist[4];	/* recent completion states, newest at hist_pos */
	unsigned int hist_pos;
};

/* why a tracepoint window became a re-seed */
enum recw_reseed {
	RECW_RS_CALLS,		/* no single call explains it: two or more completions */
	RECW_RS_NOCALL,		/* the state moved without a completion (reset, sysfs, race) */
	RECW_RS_BACK,		/* num_completed went back to an unseen state (reset) */
	RECW_RS_QUEUED,		/* num_queued went back (--queued) */
};

/* returns 0, or a negative errno that stops the writer */
typedef int (*recw_sink)(void *arg, const char *buf, size_t len);

struct recw {
	unsigned int hz;
	struct recw_queue *q;
	unsigned int nq;
	bool queued;
	unsigned int kflags;		/* DQL_K_* of the traced kernel (DQL_K_NEWEST) */
	recw_sink sink;
	void *arg;
	uint64_t events;		/* events consumed */
	uint64_t lines;			/* records written */
	int err;			/* first sink error (sticky) */
};

void recw_init(struct recw *w, unsigned int hz, struct recw_queue *q,
	       unsigned int nq, bool queued, recw_sink sink, void *arg);
/*
 * recw_header - "bqltrace 1", @comment (lines without '#', '\n'-separated,
 * may be NULL), "hz", one `queue` line per queue.
 */
int recw_header(struct recw *w, const char *comment);
/* recw_event - consume one event; 0 or the sink's error. */
int recw_event(struct recw *w, const struct rec_event *ev);
/* recw_comment - one "# ..." line */
int recw_comment(struct recw *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * recw_footer - the self-check comments: per queue what was written and
 * repaired, then the BPF counters @st (enum rec_stat; may be NULL).
 */
int recw_footer(struct recw *w, const uint64_t *st);
/* totals over all queues (for progress and -v) */
void recw_totals(const struct recw *w, uint64_t *c, uint64_t *lost_c, uint64_t *lost_q);
/* the re-seed reason, in words */
const char *recw_reseed_name(enum recw_reseed r);
/* the tracepoint of an observation (enum rec_obs_where): "net_dev_xmit", ... */
const char *recw_where_name(unsigned int where);

#endif
