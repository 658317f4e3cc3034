/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Offline replay of a bqltrace (spec/bqltrace.md): one struct dql per
 * queue, driven by the parsed records exactly as the kernel drives it,
 * with per-queue statistics. Results go out through callbacks; no I/O.
 */
#ifndef BQLTOOL_DQL_REPLAY_H
#define BQLTOOL_DQL_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "dql.h"
#include "err.h"
#include "trace.h"

/* the what-if settings (--set key=value), indexed by enum bqlt_key */
#define REPLAY_NSET	(BQLT_K_STALL_THRS + 1)

/*
 * struct replay_opts - how to replay.
 * @kflags:	kernel semantics (DQL_K_*, see dql_kernel_parse())
 * @set_mask:	what-if overrides in force, bit (1 << BQLT_K_LIMIT_MIN ..
 *		BQLT_K_STALL_THRS)
 * @set_val:	their values in sysfs units (bytes, ms)
 *
 * A what-if override is applied to every queue when it is created, after
 * the trace's own `queue` settings; later P records leave an overridden
 * setting alone, and so do S records for the matching struct dql field
 * (min_limit, max_limit, slack_hold_time, stall_thrs), so the setting
 * holds for the whole replay.
 *
 * HZ is not an option here: it comes with every record (rec->hz), set by
 * the trace or by the parser's override, so the jiffies of the records and
 * the ms conversions always agree.
 */
struct replay_opts {
	unsigned int kflags;
	unsigned int set_mask;
	uint64_t set_val[REPLAY_NSET];
};

/* replay_opts_init - newest kernel semantics, no overrides. */
void replay_opts_init(struct replay_opts *o);
/*
 * replay_opts_set - add a what-if override: @key is limit_min, limit_max
 * (bytes, at most DQL_MAX_LIMIT), hold_time or stall_thrs (ms, at most
 * UINT_MAX). The stall_thrs window depends on HZ and is checked when a
 * queue is created. 0 or -EINVAL with a message naming the key.
 */
int replay_opts_set(struct replay_opts *o, const char *key, uint64_t val,
		    struct bql_err *e);

/*
 * struct replay_event - one replayed record.
 * @inflight, @limit:	the queue's values right after the record
 * @observed:		C record's limit= (if @has_observed)
 * @num_queued, @last_obj: DQL's num_queued and last_obj_cnt right after
 *			the record: what a trace of C records only (nq=, lo=)
 *			tells of the bytes queued and the last packet's size
 * @starved:		a C took the starvation (limit increase) branch
 * @stopped:		a Q stopped the queue (see stops in replay_stats)
 */
struct replay_event {
	uint64_t line;
	uint64_t t_ns;
	uint64_t jiffies;
	unsigned int queue;
	const char *qname;
	enum bqlt_kind kind;		/* BQLT_Q, _C, _P, _S or _R */
	uint32_t bytes;			/* Q/C bytes, 0 for the others */
	uint32_t inflight;
	uint32_t limit;
	uint32_t observed;
	uint32_t num_queued;
	uint32_t last_obj;
	bool has_observed;
	bool starved;
	bool stopped;
};

/*
 * struct replay_ops - callbacks, each may be NULL. @arg is replay_init's.
 * @event:	every Q/C/P/S/R record, after it was applied
 * @mismatch:	a C whose limit= differs from the replayed limit
 *		(called after @event for the same record)
 * @warn:	a non-fatal remark ("line N: queue X: ..."); the string lives
 *		until the next callback
 * @event_kinds: the records @event wants, (1 << BQLT_C) | ...; 0 = all.
 *		The others cost nothing (a timeline of C records skips the Q).
 */
struct replay_ops {
	void (*event)(void *arg, const struct replay_event *ev);
	void (*mismatch)(void *arg, const struct replay_event *ev);
	void (*warn)(void *arg, const char *msg);
	unsigned int event_kinds;
};

/*
 * struct replay_stats - one queue's statistics.
 *
 * The limit series is the limit right after each C record, L1..Ln at
 * times t1..tn (what the timeline shows):
 * @limit_min, @limit_max:	over L1..Ln
 * @limit_mean:	time-weighted: each Li weighs the time until the next
 *		completion, t(i+1) - ti, over the window t1..tn:
 *		sum(Li * (t(i+1) - ti), i < n) / (tn - t1).
 *		When tn == t1 (one completion, or all at the same instant)
 *		it is the plain mean of L1..Ln, so one completion gives L1.
 * @limit_final:	the limit at the end of the trace (what sysfs would
 *		show), which differs from Ln only if P/S/R records follow
 *		the last C.
 * With no completion, min/max/mean are 0 and only @limit_final means
 * something (0 too if the queue never had a record: @created false).
 *
 * @increases, @decreases:	C records after which the limit was higher /
 *		lower than before (starvation, slack decay or the clamp)
 * @starvations:	C records that took the kernel's starvation branch
 * @stops:	times the queue went from running to stopped by BQL, as
 *		STACK_XOFF does: a Q leaving dql_avail() < 0 while running;
 *		it runs again after a C leaving dql_avail() >= 0, or an R
 * @bytes_queued:	bytes of Q records dql_queued() accepted
 * @queued_known:	@bytes_queued is what was queued: the queue had Q
 *		records, or no C record took num_queued from its nq= (a
 *		completion-only trace has no Q records: unknown, not 0)
 * @queued_ignored:	Q records above DQL_MAX_OBJECT ignored (6.10+)
 * @stall_cnt, @stall_max:	the struct dql's (stall_max in jiffies)
 * @verify_checked, @verify_mismatches:	C records with limit=, and those
 *		whose limit= differs from the replayed limit
 * @observed_final:	the limit= of the last C that carried one (the
 *		recorded final limit), if @verify_checked
 * @nq_disagree:	C records whose nq= differed from the sum of the Q
 *		records (nq= was used)
 */
struct replay_stats {
	bool created;
	uint64_t records;
	uint64_t completions;
	uint64_t bytes_queued;
	bool queued_known;
	uint64_t bytes_completed;
	uint32_t limit_final;
	uint32_t limit_min;
	uint32_t limit_max;
	double limit_mean;
	uint64_t increases;
	uint64_t decreases;
	uint64_t starvations;
	uint64_t stops;
	uint64_t queued_ignored;
	uint64_t stall_cnt;
	uint32_t stall_max;
	uint64_t verify_checked;
	uint64_t verify_mismatches;
	uint32_t observed_final;
	uint64_t nq_disagree;
};

/*
 * replay_limit_mean - @limit_mean of struct replay_stats from the sums of
 * @n completions between @t_first and @t_last: @wsum = sum Li * (t(i+1) - ti),
 * @lsum = sum Li. (Shared with the simulator, which keeps the same series.)
 */
double replay_limit_mean(unsigned __int128 wsum, unsigned __int128 lsum, uint64_t n,
			 uint64_t t_first, uint64_t t_last);

struct replay_queue;	/* private */

struct replay {
	struct replay_opts opts;
	const struct replay_ops *ops;
	void *arg;
	unsigned int event_kinds;	/* 1 << kind: @event wants it */
	struct replay_queue *q;
	unsigned int nq, cap;
	char msg[256];		/* warning text */
};

int replay_init(struct replay *r, const struct replay_opts *o,
		const struct replay_ops *ops, void *arg);
void replay_free(struct replay *r);

/*
 * replay_feed - apply one record from bqlt_parse_line() (all kinds; hz
 * records are accepted and ignored). 0, or a negative errno with
 * e->msg = "line N: what: reason" (a trace error: the replay must stop),
 * or for a bad what-if override "--set key=value: reason".
 */
int replay_feed(struct replay *r, const struct bqlt_rec *rec,
		struct bql_err *e);

/* replay_feed_batch - replay_feed() on @n records in turn, up to an error */
int replay_feed_batch(struct replay *r, const struct bqlt_rec *recs,
		      unsigned int n, struct bql_err *e);

unsigned int replay_queue_count(const struct replay *r);
const char *replay_queue_name(const struct replay *r, unsigned int idx);
/* the queue's DQL state (NULL if out of range); meaningless if !created */
const struct dql *replay_queue_dql(const struct replay *r, unsigned int idx);
/* statistics as of now; -EINVAL if @idx is out of range */
int replay_queue_stats(const struct replay *r, unsigned int idx,
		       struct replay_stats *st);

#endif
