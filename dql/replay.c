// SPDX-License-Identifier: GPL-2.0-only
/*
 * Replay engine: drives one struct dql per trace queue from parsed bqltrace
 * records, as the kernel would have, and keeps per-queue statistics.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "dql_util.h"		/* last: poisons the I/O functions */

struct replay_queue {
	const char *name;		/* the parser's copy */
	uint64_t decl_line;
	unsigned int nset;
	struct bqlt_kv set[REPLAY_NSET];	/* queue directive settings */

	struct dql d;
	bool created;
	bool stopped;			/* STACK_XOFF by BQL */
	bool q_seen;			/* Q records feed num_queued */
	bool warned_nq, warned_ignored;

	/* limit series after each C */
	uint64_t t_first, t_prev;
	uint32_t l_prev;
	unsigned __int128 wsum;		/* sum Li * (t(i+1) - ti) */
	unsigned __int128 lsum;		/* sum Li */

	struct replay_stats st;
};

/* what a record did, for the event callbacks (struct replay_event) */
enum {
	EV_STOPPED	= 1u << 0,
	EV_STARVED	= 1u << 1,
	EV_OBSERVED	= 1u << 2,	/* a C with limit= */
	EV_MISMATCH	= 1u << 3,	/* ... that differs from the replayed limit */
};

#define unlikely(x)	__builtin_expect(!!(x), 0)

static const char *const set_names[REPLAY_NSET] = {
	[BQLT_K_LIMIT_MIN] = "limit_min",
	[BQLT_K_LIMIT_MAX] = "limit_max",
	[BQLT_K_HOLD_TIME] = "hold_time",
	[BQLT_K_STALL_THRS] = "stall_thrs",
};

void replay_opts_init(struct replay_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->kflags = DQL_K_NEWEST;
}

int replay_opts_set(struct replay_opts *o, const char *key, uint64_t val,
		    struct bql_err *e)
{
	unsigned int k;

	for (k = 0; k < REPLAY_NSET; k++)
		if (!strcmp(key, set_names[k]))
			break;
	if (k == REPLAY_NSET)
		return bql_err_set(e, EINVAL,
				   "--set %s: unknown setting (limit_min, limit_max, hold_time, stall_thrs)",
				   key);
	if ((k == BQLT_K_LIMIT_MIN || k == BQLT_K_LIMIT_MAX) && val > DQL_MAX_LIMIT)
		return bql_err_set(e, EINVAL,
				   "--set %s=%" PRIu64 ": above the kernel's maximum %u",
				   key, val, (unsigned int)DQL_MAX_LIMIT);
	if (val > UINT32_MAX)
		return bql_err_set(e, EINVAL,
				   "--set %s=%" PRIu64 ": above %" PRIu32 " ms",
				   key, val, UINT32_MAX);
	o->set_mask |= 1u << k;
	o->set_val[k] = val;
	return 0;
}

int replay_init(struct replay *r, const struct replay_opts *o,
		const struct replay_ops *ops, void *arg)
{
	static const struct replay_ops none;

	memset(r, 0, sizeof(*r));
	if (o)
		r->opts = *o;
	else
		replay_opts_init(&r->opts);
	r->ops = ops ? ops : &none;
	r->arg = arg;
	if (r->ops->event)
		r->event_kinds = r->ops->event_kinds ? r->ops->event_kinds : ~0u;
	return 0;
}

void replay_free(struct replay *r)
{
	free(r->q);
	memset(r, 0, sizeof(*r));
}

static void warn(struct replay *r, const char *fmt, ...)
	__attribute__((format(__printf__, 2, 3)));

static void warn(struct replay *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->ops->warn)
		return;
	va_start(ap, fmt);
	bql_vfmt_fit(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	r->ops->warn(r->arg, r->msg);
}

/* ------------------------------------------------------------ settings */

/*
 * One sysfs write of a setting, validated as the kernel's store validates.
 * @who prefixes the message ("line 3: queue eth0:tx-0", "--set").
 */
static int store(struct dql *d, unsigned int key, uint64_t val,
		 unsigned int hz, uint64_t now, const char *who,
		 struct bql_err *e)
{
	int ret = 0;

	switch (key) {
	case BQLT_K_LIMIT_MIN:
		ret = dql_store_limit_min(d, val);
		break;
	case BQLT_K_LIMIT_MAX:
		ret = dql_store_limit_max(d, val);
		break;
	case BQLT_K_LIMIT:
		ret = dql_store_limit(d, val);
		break;
	case BQLT_K_HOLD_TIME:
		ret = dql_store_hold_time_ms(d, val, hz);
		break;
	case BQLT_K_STALL_MAX:
		dql_store_stall_max(d);
		break;
	case BQLT_K_STALL_THRS:
		ret = dql_store_stall_thrs_ms(d, val, hz, now);
		if (ret)
			return bql_err_set(e, -ret,
					   "%s: stall_thrs=%" PRIu64 ": %" PRIu64
					   " jiffies at HZ %u, outside the kernel's window %u..%u (sysfs would refuse it)",
					   who, val,
					   (uint64_t)(uint32_t)dql_msecs_to_jiffies(val, hz),
					   hz, DQL_STALL_THRS_MIN, DQL_STALL_THRS_MAX);
		break;
	default:
		return bql_err_set(e, EINVAL, "%s: not a setting", who);
	}
	if (ret)
		return bql_err_set(e, -ret,
				   "%s: %s=%" PRIu64 ": above the kernel's maximum %u (sysfs would refuse it)",
				   who, bqlt_key_name(key), val,
				   (unsigned int)DQL_MAX_LIMIT);
	return 0;
}

/* the queue's DQL is born at its first record, as netdev_init_one_queue() */
static int create(struct replay *r, struct replay_queue *q,
		  const struct bqlt_rec *rec, struct bql_err *e)
{
	char who[BQLT_NAME_MAX + 48];
	unsigned int i;
	int ret;

	dql_init(&q->d, rec->hz, r->opts.kflags, rec->jiffies);
	snprintf(who, sizeof(who), "line %" PRIu64 ": queue %s", q->decl_line,
		 q->name);
	for (i = 0; i < q->nset; i++) {
		ret = store(&q->d, q->set[i].key, q->set[i].val, rec->hz,
			    rec->jiffies, who, e);
		if (ret)
			return ret;
	}
	for (i = 0; i < REPLAY_NSET; i++) {
		if (!(r->opts.set_mask & (1u << i)))
			continue;
		ret = store(&q->d, i, r->opts.set_val[i], rec->hz, rec->jiffies,
			    "--set", e);
		if (ret)
			return ret;
	}
	q->created = true;
	q->st.created = true;
	return 0;
}

static bool overridden(const struct replay *r, enum bqlt_key k)
{
	switch (k) {
	case BQLT_K_LIMIT_MIN:
	case BQLT_S_MIN_LIMIT:
		return r->opts.set_mask & (1u << BQLT_K_LIMIT_MIN);
	case BQLT_K_LIMIT_MAX:
	case BQLT_S_MAX_LIMIT:
		return r->opts.set_mask & (1u << BQLT_K_LIMIT_MAX);
	case BQLT_K_HOLD_TIME:
	case BQLT_S_SLACK_HOLD_TIME:
		return r->opts.set_mask & (1u << BQLT_K_HOLD_TIME);
	case BQLT_K_STALL_THRS:
	case BQLT_S_STALL_THRS:
		return r->opts.set_mask & (1u << BQLT_K_STALL_THRS);
	default:
		return false;
	}
}

/* S: raw writes of struct dql fields */
static void snapshot(const struct replay *r, struct dql *d,
		     const struct bqlt_rec *rec)
{
	unsigned int i;

	for (i = 0; i < rec->nkv; i++) {
		uint64_t v = rec->kv[i].val;

		if (overridden(r, rec->kv[i].key))
			continue;
		switch (rec->kv[i].key) {
		case BQLT_S_LIMIT: d->limit = (uint32_t)v; break;
		case BQLT_S_NUM_QUEUED: d->num_queued = (uint32_t)v; break;
		case BQLT_S_NUM_COMPLETED: d->num_completed = (uint32_t)v; break;
		case BQLT_S_ADJ_LIMIT: d->adj_limit = (uint32_t)v; break;
		case BQLT_S_LAST_OBJ_CNT: d->last_obj_cnt = (uint32_t)v; break;
		case BQLT_S_PREV_NUM_QUEUED: d->prev_num_queued = (uint32_t)v; break;
		case BQLT_S_PREV_LAST_OBJ_CNT: d->prev_last_obj_cnt = (uint32_t)v; break;
		case BQLT_S_PREV_OVLIMIT: d->prev_ovlimit = (uint32_t)v; break;
		case BQLT_S_LOWEST_SLACK: d->lowest_slack = (uint32_t)v; break;
		case BQLT_S_SLACK_START_TIME: d->slack_start_time = v; break;
		case BQLT_S_MIN_LIMIT: d->min_limit = (uint32_t)v; break;
		case BQLT_S_MAX_LIMIT: d->max_limit = (uint32_t)v; break;
		case BQLT_S_SLACK_HOLD_TIME: d->slack_hold_time = (uint32_t)v; break;
		case BQLT_S_STALL_THRS: d->stall_thrs = (uint16_t)v; break;
		case BQLT_S_STALL_MAX: d->stall_max = (uint16_t)v; break;
		case BQLT_S_STALL_CNT: d->stall_cnt = v; break;
		case BQLT_S_LAST_REAP: d->last_reap = v; break;
		case BQLT_S_HISTORY_HEAD: d->history_head = v; break;
		case BQLT_S_HISTORY:
			memcpy(d->history, rec->history, sizeof(d->history));
			break;
		default:
			break;
		}
	}
}

/* ------------------------------------------------------------ records */

static int declare(struct replay *r, const struct bqlt_rec *rec,
		   struct bql_err *e)
{
	struct replay_queue *q;
	unsigned int i;

	if (rec->queue != r->nq)
		return bql_err_set(e, EINVAL,
				   "line %" PRIu64 ": queue %s: declared out of order",
				   rec->line, rec->qname);
	if (r->nq == r->cap) {
		unsigned int cap = r->cap ? r->cap * 2 : 8;

		q = realloc(r->q, cap * sizeof(*q));
		if (!q)
			return bql_err_set(e, ENOMEM, "line %" PRIu64 ": queue %s",
					   rec->line, rec->qname);
		r->q = q;
		r->cap = cap;
	}
	q = &r->q[r->nq++];
	memset(q, 0, sizeof(*q));
	q->name = rec->qname;
	q->decl_line = rec->line;
	for (i = 0; i < rec->nkv && i < REPLAY_NSET; i++)
		q->set[q->nset++] = rec->kv[i];
	return 0;
}

/* the hot paths (Q and C) are inlined into the feed loops */
static inline __attribute__((always_inline)) int
do_q(struct replay *r, struct replay_queue *q, const struct bqlt_rec *rec,
     unsigned int *flags, struct bql_err *e)
{
	int ret = dql_queued(&q->d, rec->bytes, rec->jiffies);

	if (unlikely(ret < 0))
		return bql_err_set(e, -ret,
				   "line %" PRIu64 ": Q record: %" PRIu32
				   " bytes is above DQL_MAX_OBJECT (%u): the kernel would BUG()",
				   rec->line, rec->bytes, (unsigned int)DQL_MAX_OBJECT);
	if (unlikely(ret)) {
		q->st.queued_ignored++;
		if (!q->warned_ignored) {
			q->warned_ignored = true;
			warn(r, "line %" PRIu64 ": queue %s: Q of %" PRIu32
			     " bytes is above DQL_MAX_OBJECT: ignored, as the kernel does since 6.10",
			     rec->line, q->name, rec->bytes);
		}
		return 0;
	}
	q->q_seen = true;
	q->st.bytes_queued += rec->bytes;
	if (!q->stopped && dql_avail(&q->d) < 0) {
		q->stopped = true;
		q->st.stops++;
		*flags |= EV_STOPPED;
	}
	return 0;
}

static inline __attribute__((always_inline)) int
do_c(struct replay *r, struct replay_queue *q, const struct bqlt_rec *rec,
     unsigned int *flags, struct bql_err *e)
{
	struct dql *d = &q->d;
	uint32_t old_nq = d->num_queued, old_lo = d->last_obj_cnt;
	uint32_t old_limit = d->limit, limit;
	uint64_t old_starv = d->starvations;
	int ret;

	if (rec->has & BQLT_HAS_NQ) {
		if (q->q_seen && rec->nq != d->num_queued) {
			q->st.nq_disagree++;
			if (!q->warned_nq) {
				q->warned_nq = true;
				warn(r, "line %" PRIu64 ": queue %s: nq=%" PRIu32
				     " disagrees with the Q records (%" PRIu32
				     " queued): using nq=, what the kernel saw",
				     rec->line, q->name, rec->nq, d->num_queued);
			}
		}
		d->num_queued = rec->nq;
	}
	if (rec->has & BQLT_HAS_LO)
		d->last_obj_cnt = rec->lo;

	ret = dql_completed(d, rec->bytes, rec->jiffies);
	if (unlikely(ret)) {
		uint32_t inflight = d->num_queued - d->num_completed;

		d->num_queued = old_nq;
		d->last_obj_cnt = old_lo;
		return bql_err_set(e, -ret,
				   "line %" PRIu64 ": C record: completes %" PRIu32
				   " bytes but only %" PRIu32
				   " are in flight on queue %s (the kernel would BUG())",
				   rec->line, rec->bytes, inflight, q->name);
	}
	limit = d->limit;
	if (d->starvations != old_starv)
		*flags |= EV_STARVED;

	q->st.completions++;
	q->st.bytes_completed += rec->bytes;
	if (limit > old_limit)
		q->st.increases++;
	else if (limit < old_limit)
		q->st.decreases++;
	if (q->st.completions == 1) {
		q->t_first = rec->t_ns;
		q->st.limit_min = q->st.limit_max = limit;
	} else {
		q->wsum += (unsigned __int128)q->l_prev * (rec->t_ns - q->t_prev);
		if (limit < q->st.limit_min)
			q->st.limit_min = limit;
		if (limit > q->st.limit_max)
			q->st.limit_max = limit;
	}
	q->lsum += limit;
	q->t_prev = rec->t_ns;
	q->l_prev = limit;

	if (q->stopped && dql_avail(d) >= 0)
		q->stopped = false;

	if (rec->has & BQLT_HAS_LIMIT) {
		*flags |= EV_OBSERVED;
		q->st.verify_checked++;
		q->st.observed_final = rec->limit;
		if (rec->limit != limit) {
			*flags |= EV_MISMATCH;
			q->st.verify_mismatches++;
		}
	}
	return 0;
}

static int do_p(struct replay *r, struct replay_queue *q,
		const struct bqlt_rec *rec, struct bql_err *e)
{
	char who[32];
	unsigned int i;
	int ret;

	snprintf(who, sizeof(who), "line %" PRIu64 ": P record", rec->line);
	for (i = 0; i < rec->nkv; i++) {
		if (overridden(r, rec->kv[i].key))
			continue;
		ret = store(&q->d, rec->kv[i].key, rec->kv[i].val, rec->hz,
			    rec->jiffies, who, e);
		if (ret)
			return ret;
	}
	return 0;
}

/* the record as a struct replay_event, to the callbacks */
static void __attribute__((noinline))
emit(struct replay *r, const struct replay_queue *q, const struct bqlt_rec *rec,
     unsigned int flags)
{
	struct replay_event ev = {
		.line = rec->line,
		.t_ns = rec->t_ns,
		.jiffies = rec->jiffies,
		.queue = rec->queue,
		.qname = q->name,
		.kind = rec->kind,
		.bytes = rec->bytes,
		.inflight = dql_inflight(&q->d),
		.limit = q->d.limit,
		.observed = (flags & EV_OBSERVED) ? rec->limit : 0,
		.num_queued = q->d.num_queued,
		.last_obj = q->d.last_obj_cnt,
		.has_observed = flags & EV_OBSERVED,
		.starved = flags & EV_STARVED,
		.stopped = flags & EV_STOPPED,
	};

	if (r->event_kinds & (1u << rec->kind))
		r->ops->event(r->arg, &ev);
	if ((flags & EV_MISMATCH) && r->ops->mismatch)
		r->ops->mismatch(r->arg, &ev);
}

/* a record of a declared queue whose DQL does not exist yet */
static int __attribute__((noinline))
feed_first(struct replay *r, const struct bqlt_rec *rec, struct bql_err *e)
{
	if (rec->kind == BQLT_HZ)
		return 0;
	if (rec->kind == BQLT_QUEUE)
		return declare(r, rec, e);
	if (rec->queue >= r->nq)
		return bql_err_set(e, EINVAL,
				   "line %" PRIu64 ": queue %s is not declared",
				   rec->line, rec->qname);
	return create(r, &r->q[rec->queue], rec, e);
}

static inline __attribute__((always_inline)) int
feed_one(struct replay *r, const struct bqlt_rec *rec, struct bql_err *e)
{
	struct replay_queue *q;
	unsigned int flags = 0;
	int ret;

	if (unlikely(rec->kind < BQLT_Q || rec->queue >= r->nq ||
		     !r->q[rec->queue].created)) {
		ret = feed_first(r, rec, e);
		if (ret || rec->kind < BQLT_Q)
			return ret;
	}
	q = &r->q[rec->queue];
	switch (rec->kind) {
	case BQLT_Q:
		ret = do_q(r, q, rec, &flags, e);
		break;
	case BQLT_C:
		ret = do_c(r, q, rec, &flags, e);
		break;
	case BQLT_P:
		ret = do_p(r, q, rec, e);
		break;
	case BQLT_S:
		snapshot(r, &q->d, rec);
		break;
	case BQLT_R:
		dql_reset(&q->d, rec->jiffies);
		q->stopped = false;	/* netdev_tx_reset_queue clears XOFF */
		break;
	default:
		return bql_err_set(e, EINVAL, "line %" PRIu64 ": unknown record",
				   rec->line);
	}
	if (unlikely(ret))
		return ret;
	q->st.records++;
	if ((r->event_kinds & (1u << rec->kind)) || unlikely(flags & EV_MISMATCH))
		emit(r, q, rec, flags);
	return 0;
}

int replay_feed(struct replay *r, const struct bqlt_rec *rec,
		struct bql_err *e)
{
	return feed_one(r, rec, e);
}

int replay_feed_batch(struct replay *r, const struct bqlt_rec *recs,
		      unsigned int n, struct bql_err *e)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = feed_one(r, &recs[i], e);
		if (ret)
			return ret;
	}
	return 0;
}

unsigned int replay_queue_count(const struct replay *r)
{
	return r->nq;
}

const char *replay_queue_name(const struct replay *r, unsigned int idx)
{
	return idx < r->nq ? r->q[idx].name : NULL;
}

const struct dql *replay_queue_dql(const struct replay *r, unsigned int idx)
{
	return idx < r->nq ? &r->q[idx].d : NULL;
}

int replay_queue_stats(const struct replay *r, unsigned int idx,
		       struct replay_stats *st)
{
	const struct replay_queue *q;

	if (idx >= r->nq)
		return -EINVAL;
	q = &r->q[idx];
	*st = q->st;
	if (!q->created)
		return 0;
	st->limit_final = q->d.limit;
	st->starvations = q->d.starvations;
	st->stall_cnt = q->d.stall_cnt;
	st->stall_max = q->d.stall_max;
	st->limit_mean = replay_limit_mean(q->wsum, q->lsum, st->completions, q->t_first,
					   q->t_prev);
	return 0;
}

double replay_limit_mean(unsigned __int128 wsum, unsigned __int128 lsum, uint64_t n,
			 uint64_t t_first, uint64_t t_last)
{
	if (!n)
		return 0;
	if (t_last == t_first)
		return (double)lsum / (double)n;
	return (double)wsum / (double)(t_last - t_first);
}
