// SPDX-License-Identifier: GPL-2.0-only
/* record's event -> bqltrace v1 logic (see recwriter.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dql/dql.h"
#include "lib/io/esc.h"
#include "lib/kernel/recwriter.h"

#define LINE_MAX_LEN	1024

void recw_init(struct recw *w, unsigned int hz, struct recw_queue *q,
	       unsigned int nq, bool queued, recw_sink sink, void *arg)
{
	memset(w, 0, sizeof(*w));
	w->hz = hz;
	w->q = q;
	w->nq = nq;
	w->queued = queued;
	w->kflags = DQL_K_NEWEST;
	w->sink = sink;
	w->arg = arg;
	/* the names as the trace writes them: escaped, read back the same */
	for (unsigned int i = 0; i < nq; i++)
		esc_bqlt_name(q[i].tname, sizeof(q[i].tname), q[i].name);
}

static int put(struct recw *w, const char *buf, size_t n)
{
	if (w->err)
		return w->err;
	w->err = w->sink(w->arg, buf, n);
	return w->err;
}

static int vline(struct recw *w, const char *fmt, va_list ap)
{
	char buf[LINE_MAX_LEN];
	int n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);

	if (n < 0)
		return put(w, "", 0);
	if ((size_t)n > sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	return put(w, buf, (size_t)n);
}

static int line(struct recw *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int line(struct recw *w, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vline(w, fmt, ap);
	va_end(ap);
	return ret;
}

int recw_comment(struct recw *w, const char *fmt, ...)
{
	char buf[LINE_MAX_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return line(w, "# %s", buf);
}

int recw_header(struct recw *w, const char *comment)
{
	line(w, "bqltrace 1");
	while (comment && *comment) {
		const char *nl = strchr(comment, '\n');
		int n = nl ? (int)(nl - comment) : (int)strlen(comment);

		line(w, "# %.*s", n, comment);
		comment += n + (nl ? 1 : 0);
	}
	line(w, "hz %u", w->hz);
	for (unsigned int i = 0; i < w->nq; i++) {
		const struct recw_queue *q = &w->q[i];

		line(w, "queue %s limit_min=%" PRIu64 " limit_max=%" PRIu64
		     " hold_time=%" PRIu64 " stall_thrs=%" PRIu64, q->tname,
		     q->limit_min, q->limit_max, q->hold_time, q->stall_thrs);
	}
	return w->err;
}

/* the record time: never before the queue's previous record */
static uint64_t rec_t(struct recw_queue *q, const struct rec_event *ev)
{
	if (ev->t_ns > q->last_t)
		q->last_t = ev->t_ns;
	return q->last_t;
}

static int put_s(struct recw *w, struct recw_queue *q, uint64_t t,
		 const struct rec_event *ev)
{
	const struct rec_snap *s = &ev->s;

	return line(w, "%" PRIu64 " %s S j=%" PRIu64 " limit=%u num_queued=%u"
		    " num_completed=%u adj_limit=%u last_obj_cnt=%u prev_num_queued=%u"
		    " prev_last_obj_cnt=%u prev_ovlimit=%u lowest_slack=%u"
		    " slack_start_time=%" PRIu64 " min_limit=%u max_limit=%u"
		    " slack_hold_time=%u stall_thrs=%u stall_max=%u stall_cnt=%" PRIu64
		    " last_reap=%" PRIu64 " history_head=%" PRIu64
		    " history=%" PRIx64 ",%" PRIx64 ",%" PRIx64 ",%" PRIx64,
		    t, q->tname, ev->jiffies, s->limit, s->num_queued, s->num_completed,
		    s->adj_limit, s->last_obj_cnt, s->prev_num_queued,
		    s->prev_last_obj_cnt, s->prev_ovlimit, s->lowest_slack,
		    s->slack_start_time, s->min_limit, s->max_limit, s->slack_hold_time,
		    s->stall_thrs, s->stall_max, s->stall_cnt, s->last_reap,
		    s->history_head, s->history[0], s->history[1], s->history[2],
		    s->history[3]);
}

/*
 * hold_time in ms that the kernel's msecs_to_jiffies() turns back into
 * @j exactly, or -1 if there is none (HZ above 1000).
 */
static int64_t hold_ms(uint64_t j, unsigned int hz)
{
	uint64_t ms = j * 1000 / hz;

	if ((ms * hz + 999) / 1000 != j)
		return -1;
	return (int64_t)ms;
}

/* P (or S for what ms cannot say) for settings/limit that differ from q->last */
static int put_settings(struct recw *w, struct recw_queue *q, uint64_t t,
			const struct rec_event *ev, bool with_limit)
{
	const struct rec_snap *s = &ev->s, *l = &q->last;
	char buf[LINE_MAX_LEN];
	size_t n = 0;
	int64_t ms = -1;
	bool exact_hold = true;

	if (s->min_limit != l->min_limit)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " limit_min=%u", s->min_limit);
	if (s->max_limit != l->max_limit)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " limit_max=%u", s->max_limit);
	if (s->slack_hold_time != l->slack_hold_time) {
		ms = hold_ms(s->slack_hold_time, w->hz);
		if (ms >= 0)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n,
					      " hold_time=%" PRId64, ms);
		else
			exact_hold = false;
	}
	if (with_limit && s->limit != l->limit)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " limit=%u", s->limit);
	if (n) {
		q->n_p++;
		line(w, "%" PRIu64 " %s P j=%" PRIu64 "%s", t, q->tname, ev->jiffies, buf);
	}
	if (!exact_hold)
		line(w, "%" PRIu64 " %s S j=%" PRIu64 " slack_hold_time=%u", t, q->tname,
		     ev->jiffies, s->slack_hold_time);
	if (s->stall_thrs != l->stall_thrs)
		line(w, "%" PRIu64 " %s S j=%" PRIu64 " stall_thrs=%u", t, q->tname,
		     ev->jiffies, s->stall_thrs);
	return w->err;
}

static int on_c(struct recw *w, struct recw_queue *q, const struct rec_event *ev)
{
	const struct rec_snap *s = &ev->s;
	uint64_t t = rec_t(q, ev);

	q->completed = true;
	if (!q->seeded) {
		q->seeded = true;
		q->last = *s;
		return put_s(w, q, t, ev);
	}
	put_settings(w, q, t, ev, false);
	q->n_c++;
	w->lines++;
	line(w, "%" PRIu64 " %s C %u j=%" PRIu64 " nq=%u lo=%u limit=%u", t, q->tname,
	     s->num_completed - q->last.num_completed, ev->jiffies,
	     s->prev_num_queued, s->prev_last_obj_cnt, s->limit);
	q->last = *s;
	return w->err;
}

/* one Q record of @bytes (none for 0) */
static int put_q_bytes(struct recw *w, struct recw_queue *q, uint64_t t, uint32_t bytes,
		       uint64_t j)
{
	if (!bytes)
		return 0;
	q->n_q++;
	w->lines++;
	return line(w, "%" PRIu64 " %s Q %u j=%" PRIu64, t, q->tname, bytes, j);
}

static int put_q(struct recw *w, struct recw_queue *q, uint64_t t,
		 const struct rec_event *ev)
{
	uint32_t bytes = ev->s.num_queued - q->last.num_queued;

	/* a checkpoint already accounted for it */
	if ((int32_t)bytes <= 0)
		return 0;
	q->last.num_queued = ev->s.num_queued;
	return put_q_bytes(w, q, t, bytes, ev->jiffies);
}

static int on_check(struct recw *w, struct recw_queue *q, const struct rec_event *ev)
{
	const struct rec_snap *s = &ev->s;
	uint64_t t = rec_t(q, ev);

	if (!q->seeded)
		return 0;
	if (s->num_completed != q->last.num_completed || q->resync) {
		if (s->num_completed != q->last.num_completed)
			q->completed = true;
		if (!q->resync) {
			q->n_reseed++;
			line(w, "# %" PRIu64 " %s MISSED C trap, re-seeding from in-lock checkpoint",
			     t, q->tname);
		}
		q->resync = false;
		q->last = *s;
		w->lines++;
		return put_s(w, q, t, ev);
	}
	if (w->queued && s->num_queued != q->last.num_queued) {
		if ((int32_t)(s->num_queued - q->last.num_queued) > 0) {
			q->n_lost_q++;
			line(w, "# %" PRIu64 " %s MISSED Q trap, bytes from in-lock checkpoint",
			     t, q->tname);
			put_q(w, q, t, ev);
		} else {
			line(w, "%" PRIu64 " %s S j=%" PRIu64 " num_queued=%u", t, q->tname,
			     ev->jiffies, s->num_queued);
		}
	}
	put_settings(w, q, t, ev, true);
	q->last = *s;
	return w->err;
}


/* ------------------------------------------------------------ tracepoint observations */

static const char *const reseed_names[] = {
	[RECW_RS_CALLS] = "no single completion explains the change",
	[RECW_RS_NOCALL] = "the state moved without a completion",
	[RECW_RS_BACK] = "num_completed went back",
	[RECW_RS_QUEUED] = "num_queued went back",
};

const char *recw_where_name(unsigned int where)
{
	static const char *const names[REC_AT_NR] = {
		[REC_AT_NONE] = "?",
		[REC_AT_START_XMIT] = "net_dev_start_xmit",
		[REC_AT_XMIT] = "net_dev_xmit",
		[REC_AT_NAPI] = "napi_poll",
	};

	return where < REC_AT_NR ? names[where] : "?";
}

const char *recw_reseed_name(enum recw_reseed r)
{
	return (unsigned int)r < sizeof(reseed_names) / sizeof(reseed_names[0]) ?
	       reseed_names[r] : "?";
}

/* what dql_completed() writes, limit aside */
static bool same_done(const struct rec_snap *a, const struct rec_snap *b)
{
	return a->num_completed == b->num_completed && a->prev_ovlimit == b->prev_ovlimit &&
	       a->prev_num_queued == b->prev_num_queued &&
	       a->prev_last_obj_cnt == b->prev_last_obj_cnt && a->adj_limit == b->adj_limit &&
	       a->lowest_slack == b->lowest_slack && a->slack_start_time == b->slack_start_time;
}

static bool same_settings(const struct rec_snap *a, const struct rec_snap *b)
{
	return a->min_limit == b->min_limit && a->max_limit == b->max_limit &&
	       a->slack_hold_time == b->slack_hold_time && a->stall_thrs == b->stall_thrs;
}

/* @pre with the settings of @cfg, as the engine's struct dql */
static void to_dql(struct dql *d, const struct rec_snap *pre, const struct rec_snap *cfg,
		   unsigned int kflags)
{
	memset(d, 0, sizeof(*d));
	d->kflags = kflags;
	d->num_queued = pre->num_queued;
	d->adj_limit = pre->adj_limit;
	d->last_obj_cnt = pre->last_obj_cnt;
	d->history_head = pre->history_head;
	memcpy(d->history, pre->history, sizeof(d->history));
	d->limit = pre->limit;
	d->num_completed = pre->num_completed;
	d->prev_ovlimit = pre->prev_ovlimit;
	d->prev_num_queued = pre->prev_num_queued;
	d->prev_last_obj_cnt = pre->prev_last_obj_cnt;
	d->lowest_slack = pre->lowest_slack;
	d->slack_start_time = pre->slack_start_time;
	d->last_reap = pre->last_reap;
	d->stall_cnt = pre->stall_cnt;
	d->stall_max = pre->stall_max;
	d->min_limit = cfg->min_limit;
	d->max_limit = cfg->max_limit;
	d->slack_hold_time = cfg->slack_hold_time;
	d->stall_thrs = cfg->stall_thrs;
}

/*
 * Does one dql_completed(@count) at jiffies @j, on @pre with @cfg's
 * settings, reading the num_queued and last_obj_cnt that @post says the
 * call read, give @post?
 */
static bool one_call(const struct recw *w, const struct rec_snap *pre,
		     const struct rec_snap *cfg, const struct rec_snap *post,
		     uint32_t count, uint64_t j)
{
	struct dql d;

	to_dql(&d, pre, cfg, w->kflags);
	d.num_queued = post->prev_num_queued;
	d.last_obj_cnt = post->prev_last_obj_cnt;
	if (dql_completed(&d, count, j))
		return false;
	return d.limit == post->limit && d.num_completed == post->num_completed &&
	       d.prev_ovlimit == post->prev_ovlimit &&
	       d.prev_num_queued == post->prev_num_queued &&
	       d.prev_last_obj_cnt == post->prev_last_obj_cnt &&
	       d.adj_limit == post->adj_limit && d.lowest_slack == post->lowest_slack &&
	       d.slack_start_time == post->slack_start_time;
}

static bool in_window(uint64_t j, uint64_t lo, uint64_t hi)
{
	return (int64_t)(j - lo) >= 0 && (int64_t)(hi - j) >= 0;
}

/*
 * The jiffies of the call: only the slack branch's hold-time test and the
 * slack_start_time it stores depend on them, so few values in the window
 * [j_prev, jiffies] can differ in outcome: the new slack_start_time (a
 * decrease or a starvation stored it), the window's ends, the last value
 * at which the hold period has not yet run out, and the old start time.
 * Returns true with *@j and *@after (the settings changed after the call).
 */
static bool find_call(const struct recw *w, const struct rec_snap *pre,
		      const struct rec_event *ev, uint64_t *j, bool *after)
{
	const struct rec_snap *post = &ev->s;
	uint32_t count = post->num_completed - pre->num_completed;
	uint64_t hi = ev->jiffies, lo = ev->j_prev ? ev->j_prev : ev->jiffies;
	uint64_t cand[5];
	unsigned int nc = 0;
	bool moved = !same_settings(pre, post);

	/* a previous observation on another CPU may have read jiffies later */
	if ((int64_t)(hi - lo) < 0)
		lo = hi;
	if (post->slack_start_time != pre->slack_start_time)
		cand[nc++] = post->slack_start_time;
	cand[nc++] = hi;
	cand[nc++] = pre->slack_start_time + post->slack_hold_time;
	cand[nc++] = pre->slack_start_time + pre->slack_hold_time;
	cand[nc++] = lo;
	/* new settings first: a write is more likely long before the call than just after */
	for (int order = 0; order < (moved ? 2 : 1); order++) {
		const struct rec_snap *cfg = order ? pre : post;

		for (unsigned int k = 0; k < nc; k++) {
			if (!in_window(cand[k], lo, hi))
				continue;
			if (one_call(w, pre, cfg, post, count, cand[k])) {
				*j = cand[k];
				*after = order == 1;
				return true;
			}
		}
	}
	return false;
}

static void hist_push(struct recw_queue *q, const struct rec_snap *s)
{
	q->hist_pos = (q->hist_pos + 1) % (sizeof(q->hist) / sizeof(q->hist[0]));
	q->hist[q->hist_pos] = *s;
}

/*
 * An older state seen again: another CPU's read, overtaken by a newer one
 * (a state of the recent history other than the newest).
 */
static bool hist_has(const struct recw_queue *q, const struct rec_snap *s)
{
	for (size_t i = 0; i < sizeof(q->hist) / sizeof(q->hist[0]); i++)
		if (i != q->hist_pos && same_done(&q->hist[i], s) && q->hist[i].limit == s->limit)
			return true;
	return false;
}

static int reseed(struct recw *w, struct recw_queue *q, uint64_t t,
		  const struct rec_event *ev, enum recw_reseed why)
{
	q->n_reseed++;
	q->n_why[why]++;
	line(w, "# %" PRIu64 " %s re-seed: %s (observed at %s)", t, q->tname,
	     recw_reseed_name(why), recw_where_name(ev->where));
	q->last = ev->s;
	hist_push(q, &ev->s);
	w->lines++;
	return put_s(w, q, t, ev);
}

static int on_obs(struct recw *w, struct recw_queue *q, const struct rec_event *ev)
{
	const struct rec_snap *s = &ev->s, *l = &q->last;
	uint64_t t = rec_t(q, ev), j;
	int32_t dnc, q1, q2;
	bool after;

	q->n_obs++;
	q->n_at[ev->where < REC_AT_NR ? ev->where : REC_AT_NONE]++;
	if (!q->seeded) {
		q->seeded = true;
		q->last = *s;
		hist_push(q, s);
		w->lines++;
		return put_s(w, q, t, ev);
	}
	dnc = (int32_t)(s->num_completed - l->num_completed);
	if (dnc < 0) {
		if (hist_has(q, s)) {
			q->n_stale++;
			return 0;
		}
		return reseed(w, q, t, ev, RECW_RS_BACK);
	}
	if (!dnc) {
		if (!same_done(l, s))
			return reseed(w, q, t, ev, RECW_RS_NOCALL);
		/* the limit before a sysfs write, read by a CPU that was overtaken */
		if (s->limit != l->limit && hist_has(q, s)) {
			q->n_stale++;
			return 0;
		}
		if (w->queued && (int32_t)(s->num_queued - l->num_queued) < 0)
			return reseed(w, q, t, ev, RECW_RS_QUEUED);
		if (w->queued)
			put_q_bytes(w, q, t, s->num_queued - l->num_queued, ev->jiffies);
		put_settings(w, q, t, ev, true);
		if (!s->stall_max && l->stall_max) {
			q->n_p++;
			line(w, "%" PRIu64 " %s P j=%" PRIu64 " stall_max=0", t, q->tname, ev->jiffies);
		}
		if (s->limit != l->limit)
			hist_push(q, s);
		q->last = *s;
		return w->err;
	}
	q->n_windows++;
	q->completed = true;
	q1 = (int32_t)(s->prev_num_queued - l->num_queued);
	q2 = (int32_t)(s->num_queued - s->prev_num_queued);
	if ((w->queued && (q1 < 0 || q2 < 0)) || !find_call(w, l, ev, &j, &after))
		return reseed(w, q, t, ev, RECW_RS_CALLS);
	q->n_exact++;
	if (w->queued)
		put_q_bytes(w, q, t, (uint32_t)q1, ev->jiffies);
	if (!after)
		put_settings(w, q, t, ev, false);
	q->n_c++;
	w->lines++;
	line(w, "%" PRIu64 " %s C %u j=%" PRIu64 " nq=%u lo=%u limit=%u", t, q->tname,
	     (uint32_t)dnc, j, s->prev_num_queued, s->prev_last_obj_cnt, s->limit);
	if (after)
		put_settings(w, q, t, ev, false);
	if (w->queued)
		put_q_bytes(w, q, t, (uint32_t)q2, ev->jiffies);
	q->last = *s;
	hist_push(q, s);
	return w->err;
}

int recw_event(struct recw *w, const struct rec_event *ev)
{
	struct recw_queue *q;

	if (w->err)
		return w->err;
	if (ev->slot >= w->nq)
		return 0;
	q = &w->q[ev->slot];
	w->events++;
	switch (ev->kind) {
	case REC_EV_C:
		return on_c(w, q, ev);
	case REC_EV_Q:
		if (!q->seeded) {
			q->n_early_q++;
			return 0;
		}
		return put_q(w, q, rec_t(q, ev), ev);
	case REC_EV_LIMIT:
		if (!q->seeded || ev->s.limit == q->last.limit)
			return 0;
		q->n_p++;
		w->lines++;
		line(w, "%" PRIu64 " %s P j=%" PRIu64 " limit=%u", rec_t(q, ev), q->tname,
		     ev->jiffies, ev->s.limit);
		q->last.limit = ev->s.limit;
		return w->err;
	case REC_EV_RESET:
		if (!q->seeded)
			return 0;
		q->n_r++;
		w->lines++;
		line(w, "%" PRIu64 " %s R j=%" PRIu64, rec_t(q, ev), q->tname, ev->jiffies);
		q->resync = true;
		q->last.num_completed = 0;
		q->last.num_queued = 0;
		return w->err;
	case REC_EV_CHECK:
		return on_check(w, q, ev);
	case REC_EV_OBS:
		return on_obs(w, q, ev);
	default:
		return 0;
	}
}

void recw_totals(const struct recw *w, uint64_t *c, uint64_t *lost_c, uint64_t *lost_q)
{
	*c = *lost_c = *lost_q = 0;
	for (unsigned int i = 0; i < w->nq; i++) {
		*c += w->q[i].n_c;
		*lost_c += w->q[i].n_reseed;
		*lost_q += w->q[i].n_lost_q;
	}
}

int recw_footer(struct recw *w, const uint64_t *st)
{
	for (unsigned int i = 0; i < w->nq; i++) {
		const struct recw_queue *q = &w->q[i];

		line(w, "# selfcheck %s seeded=%s C=%" PRIu64 " Q=%" PRIu64 " P=%" PRIu64
		     " R=%" PRIu64 " reseeds_after_lost_C=%" PRIu64
		     " Q_from_checkpoints=%" PRIu64 " Q_before_seed_dropped=%" PRIu64,
		     q->tname, q->seeded ? "yes" : "no", q->n_c, q->n_q, q->n_p, q->n_r,
		     q->n_reseed, q->n_lost_q, q->n_early_q);
		if (q->n_obs)
			line(w, "# selfcheck %s observations=%" PRIu64 " completion_windows=%" PRIu64
			     " exact_C=%" PRIu64 " reseeds=%" PRIu64 " (multiple_calls=%" PRIu64
			     " no_call=%" PRIu64 " went_back=%" PRIu64 " queued_back=%" PRIu64
			     ") stale_dropped=%" PRIu64 " at_start_xmit=%" PRIu64 " at_xmit=%" PRIu64
			     " at_napi_poll=%" PRIu64, q->tname, q->n_obs, q->n_windows, q->n_exact,
			     q->n_reseed, q->n_why[RECW_RS_CALLS], q->n_why[RECW_RS_NOCALL],
			     q->n_why[RECW_RS_BACK], q->n_why[RECW_RS_QUEUED], q->n_stale,
			     q->n_at[REC_AT_START_XMIT], q->n_at[REC_AT_XMIT], q->n_at[REC_AT_NAPI]);
	}
	if (st)
		line(w, "# selfcheck events=%" PRIu64 " C_traps=%" PRIu64 " Q_traps=%" PRIu64
		     " limit_traps=%" PRIu64 " other_traps=%" PRIu64 " checkpoints=%" PRIu64
		     " missed_C=%" PRIu64 " missed_Q=%" PRIu64 " ringbuf_drops=%" PRIu64,
		     w->events, st[REC_ST_TRAP_C], st[REC_ST_TRAP_Q], st[REC_ST_TRAP_LIMIT],
		     st[REC_ST_TRAP_OTHER], st[REC_ST_CHECKPOINT], st[REC_ST_MISSED_C],
		     st[REC_ST_MISSED_Q], st[REC_ST_DROP]);
	return w->err;
}
