// SPDX-License-Identifier: GPL-2.0-only
/* record's event -> bqltrace v1 logic (see recwriter.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/recwriter.h"

#define LINE_MAX_LEN	1024

void recw_init(struct recw *w, unsigned int hz, struct recw_queue *q,
	       unsigned int nq, bool queued, recw_sink sink, void *arg)
{
	memset(w, 0, sizeof(*w));
	w->hz = hz;
	w->q = q;
	w->nq = nq;
	w->queued = queued;
	w->sink = sink;
	w->arg = arg;
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
		     " hold_time=%" PRIu64 " stall_thrs=%" PRIu64, q->name,
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
		    t, q->name, ev->jiffies, s->limit, s->num_queued, s->num_completed,
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
		line(w, "%" PRIu64 " %s P j=%" PRIu64 "%s", t, q->name, ev->jiffies, buf);
	}
	if (!exact_hold)
		line(w, "%" PRIu64 " %s S j=%" PRIu64 " slack_hold_time=%u", t, q->name,
		     ev->jiffies, s->slack_hold_time);
	if (s->stall_thrs != l->stall_thrs)
		line(w, "%" PRIu64 " %s S j=%" PRIu64 " stall_thrs=%u", t, q->name,
		     ev->jiffies, s->stall_thrs);
	return w->err;
}

static int on_c(struct recw *w, struct recw_queue *q, const struct rec_event *ev)
{
	const struct rec_snap *s = &ev->s;
	uint64_t t = rec_t(q, ev);

	if (!q->seeded) {
		q->seeded = true;
		q->last = *s;
		return put_s(w, q, t, ev);
	}
	put_settings(w, q, t, ev, false);
	q->n_c++;
	w->lines++;
	line(w, "%" PRIu64 " %s C %u j=%" PRIu64 " nq=%u lo=%u limit=%u", t, q->name,
	     s->num_completed - q->last.num_completed, ev->jiffies,
	     s->prev_num_queued, s->prev_last_obj_cnt, s->limit);
	q->last = *s;
	return w->err;
}

static int put_q(struct recw *w, struct recw_queue *q, uint64_t t,
		 const struct rec_event *ev)
{
	uint32_t bytes = ev->s.num_queued - q->last.num_queued;

	/* a checkpoint already accounted for it */
	if ((int32_t)bytes <= 0)
		return 0;
	q->last.num_queued = ev->s.num_queued;
	q->n_q++;
	w->lines++;
	return line(w, "%" PRIu64 " %s Q %u j=%" PRIu64, t, q->name, bytes, ev->jiffies);
}

static int on_check(struct recw *w, struct recw_queue *q, const struct rec_event *ev)
{
	const struct rec_snap *s = &ev->s;
	uint64_t t = rec_t(q, ev);

	if (!q->seeded)
		return 0;
	if (s->num_completed != q->last.num_completed || q->resync) {
		if (!q->resync) {
			q->n_reseed++;
			line(w, "# %" PRIu64 " %s MISSED C trap, re-seeding from in-lock checkpoint",
			     t, q->name);
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
			     t, q->name);
			put_q(w, q, t, ev);
		} else {
			line(w, "%" PRIu64 " %s S j=%" PRIu64 " num_queued=%u", t, q->name,
			     ev->jiffies, s->num_queued);
		}
	}
	put_settings(w, q, t, ev, true);
	q->last = *s;
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
		line(w, "%" PRIu64 " %s P j=%" PRIu64 " limit=%u", rec_t(q, ev), q->name,
		     ev->jiffies, ev->s.limit);
		q->last.limit = ev->s.limit;
		return w->err;
	case REC_EV_RESET:
		if (!q->seeded)
			return 0;
		q->n_r++;
		w->lines++;
		line(w, "%" PRIu64 " %s R j=%" PRIu64, rec_t(q, ev), q->name, ev->jiffies);
		q->resync = true;
		q->last.num_completed = 0;
		q->last.num_queued = 0;
		return w->err;
	case REC_EV_CHECK:
		return on_check(w, q, ev);
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
		     q->name, q->seeded ? "yes" : "no", q->n_c, q->n_q, q->n_p, q->n_r,
		     q->n_reseed, q->n_lost_q, q->n_early_q);
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
