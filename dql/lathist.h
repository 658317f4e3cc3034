/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Distributions of time in the transmit path (dql/lat.h buckets) in user
 * space: sums of per-CPU copies, differences between two readings,
 * percentiles; and the ring time computed offline from a bqltrace with Q
 * and C records (the FIFO of byte positions the observer keeps in the
 * kernel, fed by records instead). No I/O.
 */
#ifndef BQLTOOL_DQL_LATHIST_H
#define BQLTOOL_DQL_LATHIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dql/err.h"
#include "dql/lat.h"
#include "dql/trace.h"

/* dst += src */
void lathist_add(struct lat_hist *dst, const struct lat_hist *src);
/*
 * lathist_delta - @dst = @now - @before, bucket by bucket (readings of
 * the same cumulative counters; a counter that went back counts 0). The
 * max of an interval is not known from two readings: @now's max is kept
 * when the interval has values, capped by its highest bucket's end.
 */
void lathist_delta(struct lat_hist *dst, const struct lat_hist *now,
		   const struct lat_hist *before);
/* add @n values of 0 (packets that bypassed the qdisc) */
void lathist_add_zeros(struct lat_hist *h, uint64_t n);

/*
 * lathist_quantile - the value at quantile @q (0 < q <= 1): the bucket
 * holding the ceil(q * count)-th smallest value, interpolated linearly
 * inside it by rank, never above the max. 0 for an empty distribution.
 */
uint64_t lathist_quantile(const struct lat_hist *h, double q);
/* sum / count, 0 when empty */
double lathist_mean(const struct lat_hist *h);

/* p50, p90, p99, max, count, mean of one distribution */
struct lat_summary {
	uint64_t p50, p90, p99, max, count;
	double mean;
};
void lathist_summary(const struct lat_hist *h, struct lat_summary *s);

/* ------------------------------------------------------------ offline ring time */

/*
 * struct ringtime_queue - one queue of a trace: DQL's byte positions
 * (num_queued as the Q records sum it, num_completed as the C records do,
 * both seeded by S records), the packets sent and not yet completed, and
 * the distribution of their ring times.
 */
struct ringtime_queue {
	char name[BQLT_NAME_MAX];
	uint32_t nq, nc;
	bool seeded;			/* an S gave the positions (else from 0) */
	struct lat_fifo_ent *fifo;	/* ring of @cap entries */
	size_t head, tail, cap;
	struct lat_hist ring;
	uint64_t n_q, n_c, n_reseed, n_reset, n_overflow, n_early_q;
};

struct ringtime {
	struct ringtime_queue *q;
	unsigned int n;
	bool saw_q;			/* any Q record at all */
};

void ringtime_init(struct ringtime *r);
void ringtime_free(struct ringtime *r);
/*
 * ringtime_feed - one record of a trace (bqlt_parse_line() order). A Q
 * pushes (t, num_queued after it); a C moves num_completed and each packet
 * it passes completes at the C's time; S re-seeds the positions, R resets
 * them. 0 or -ENOMEM.
 */
int ringtime_feed(struct ringtime *r, const struct bqlt_rec *rec, struct bql_err *e);

#endif
