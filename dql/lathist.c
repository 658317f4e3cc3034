// SPDX-License-Identifier: GPL-2.0-only
/*
 * Distributions of time in the transmit path: sums, differences and
 * percentiles of dql/lat.h histograms, and the ring time of a trace's
 * packets computed offline from its Q and C records.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dql/lathist.h"

void lathist_add(struct lat_hist *dst, const struct lat_hist *src)
{
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->max > dst->max)
		dst->max = src->max;
	for (unsigned int b = 0; b < LAT_NB; b++)
		dst->b[b] += src->b[b];
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

void lathist_delta(struct lat_hist *dst, const struct lat_hist *now,
		   const struct lat_hist *before)
{
	unsigned int top = 0;

	/* nothing ever recorded (a kind not read, a queue idle since attach) */
	if (!now->count && !now->sum && !now->max) {
		if (dst->count || dst->sum || dst->max)
			memset(dst, 0, sizeof(*dst));
		return;
	}
	dst->count = 0;
	for (unsigned int b = 0; b < LAT_NB; b++) {
		dst->b[b] = sub0(now->b[b], before->b[b]);
		dst->count += dst->b[b];
		if (dst->b[b])
			top = b;
	}
	dst->sum = sub0(now->sum, before->sum);
	dst->max = 0;
	if (dst->count) {
		uint64_t hi = lat_bucket_hi(top);

		dst->max = now->max < hi ? now->max : hi;
		if (dst->max < lat_bucket_lo(top))
			dst->max = lat_bucket_lo(top);
	}
}

void lathist_add_zeros(struct lat_hist *h, uint64_t n)
{
	h->count += n;
	h->b[0] += n;
}

uint64_t lathist_quantile(const struct lat_hist *h, double q)
{
	uint64_t total = 0, rank, cum = 0;

	for (unsigned int b = 0; b < LAT_NB; b++)
		total += h->b[b];
	if (!total)
		return 0;
	if (q <= 0)
		q = 1e-9;
	if (q > 1)
		q = 1;
	rank = (uint64_t)(q * (double)total);
	if ((double)rank < q * (double)total)
		rank++;
	if (!rank)
		rank = 1;
	for (unsigned int b = 0; b < LAT_NB; b++) {
		uint64_t lo, hi, v;

		if (cum + h->b[b] < rank) {
			cum += h->b[b];
			continue;
		}
		lo = lat_bucket_lo(b);
		hi = lat_bucket_hi(b);
		/* the k-th of n values in [lo, hi]: spread evenly */
		v = lo + (uint64_t)((double)(hi - lo) * ((double)(rank - cum) - 0.5) /
				    (double)h->b[b]);
		if (h->max && v > h->max)
			v = h->max;
		return v;
	}
	return h->max;
}

double lathist_mean(const struct lat_hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}

void lathist_summary(const struct lat_hist *h, struct lat_summary *s)
{
	s->p50 = lathist_quantile(h, 0.50);
	s->p90 = lathist_quantile(h, 0.90);
	s->p99 = lathist_quantile(h, 0.99);
	s->max = h->max;
	s->count = h->count;
	s->mean = lathist_mean(h);
}

/* ------------------------------------------------------------ offline ring time */

void ringtime_init(struct ringtime *r)
{
	memset(r, 0, sizeof(*r));
}

void ringtime_free(struct ringtime *r)
{
	for (unsigned int i = 0; i < r->n; i++)
		free(r->q[i].fifo);
	free(r->q);
	memset(r, 0, sizeof(*r));
}

static struct ringtime_queue *rt_queue(struct ringtime *r, unsigned int idx,
				       const char *name, struct bql_err *e)
{
	if (idx >= r->n) {
		struct ringtime_queue *q = realloc(r->q, (idx + 1) * sizeof(*q));

		if (!q) {
			bql_err_set(e, ENOMEM, "out of memory");
			return NULL;
		}
		memset(q + r->n, 0, (idx + 1 - r->n) * sizeof(*q));
		r->q = q;
		r->n = idx + 1;
	}
	if (!r->q[idx].name[0] && name) {
		strncpy(r->q[idx].name, name, sizeof(r->q[idx].name) - 1);
	}
	return &r->q[idx];
}

static size_t rt_len(const struct ringtime_queue *q)
{
	return q->tail - q->head;
}

static int rt_push(struct ringtime_queue *q, uint64_t t, uint32_t pos, struct bql_err *e)
{
	if (rt_len(q) == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 256;
		struct lat_fifo_ent *f;

		/* past a million packets in flight a trace is not a ring's */
		if (cap > (1u << 20)) {
			q->n_overflow++;
			return 0;
		}
		f = malloc(cap * sizeof(*f));
		if (!f)
			return bql_err_set(e, ENOMEM, "out of memory");
		for (size_t i = 0; i < rt_len(q); i++)
			f[i] = q->fifo[(q->head + i) % (q->cap ? q->cap : 1)];
		q->tail = rt_len(q);
		q->head = 0;
		free(q->fifo);
		q->fifo = f;
		q->cap = cap;
	}
	q->fifo[q->tail % q->cap].t = t;
	q->fifo[q->tail % q->cap].pos = pos;
	q->tail++;
	return 0;
}

/* every packet num_completed has passed completes at @t */
static void rt_pop(struct ringtime_queue *q, uint64_t t)
{
	while (rt_len(q)) {
		const struct lat_fifo_ent *f = &q->fifo[q->head % q->cap];

		if (!lat_pos_done(q->nc, f->pos))
			break;
		lat_hist_add(&q->ring, t >= f->t ? t - f->t : 0);
		q->head++;
	}
}

static void rt_flush(struct ringtime_queue *q)
{
	q->head = q->tail = 0;
}

int ringtime_feed(struct ringtime *r, const struct bqlt_rec *rec, struct bql_err *e)
{
	struct ringtime_queue *q;
	bool has_nq = false, has_nc = false;
	uint32_t nq = 0, nc = 0;

	if (rec->kind != BQLT_Q && rec->kind != BQLT_C && rec->kind != BQLT_S &&
	    rec->kind != BQLT_R)
		return 0;
	q = rt_queue(r, rec->queue, rec->qname, e);
	if (!q)
		return -ENOMEM;
	switch (rec->kind) {
	case BQLT_Q:
		r->saw_q = true;
		q->n_q++;
		q->nq += rec->bytes;
		return rt_push(q, rec->t_ns, q->nq, e);
	case BQLT_C:
		q->n_c++;
		q->nc += rec->bytes;
		rt_pop(q, rec->t_ns);
		return 0;
	case BQLT_R:
		q->n_reset++;
		q->nq = q->nc = 0;
		rt_flush(q);
		return 0;
	default:
		break;
	}
	for (unsigned int i = 0; i < rec->nkv; i++) {
		if (rec->kv[i].key == BQLT_S_NUM_QUEUED) {
			has_nq = true;
			nq = (uint32_t)rec->kv[i].val;
		} else if (rec->kv[i].key == BQLT_S_NUM_COMPLETED) {
			has_nc = true;
			nc = (uint32_t)rec->kv[i].val;
		}
	}
	if (!has_nq && !has_nc)
		return 0;
	if (!q->seeded) {
		/* positions counted from 0 until now meant nothing: start here */
		q->n_early_q += rt_len(q);
		rt_flush(q);
		q->seeded = true;
		q->nq = has_nq ? nq : q->nq;
		q->nc = has_nc ? nc : q->nc;
		return 0;
	}
	/* a re-seed: packets the positions passed completed by now */
	q->n_reseed++;
	if (has_nc && nc != q->nc) {
		q->nc = nc;
		rt_pop(q, rec->t_ns);
	}
	if (has_nq && nq != q->nq) {
		/* bytes queued without a Q record: unknown packets, untimed */
		if ((int32_t)(nq - q->nq) < 0)
			rt_flush(q);
		q->nq = nq;
	}
	return 0;
}
