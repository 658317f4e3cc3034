// SPDX-License-Identifier: GPL-2.0-only
/*
 * The latency observer's pure parts (dql/lat.h, dql/lathist.c) on synthetic
 * state: buckets, stop causes, stall attribution, byte positions, percentiles,
 * interval differences, and the ring time of a trace computed offline.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dql/lathist.h"

/* netdev_queue_state_t on 6.18: DRV_XOFF 0, STACK_XOFF 1, FROZEN 2 */
#define DRV	0
#define STACK	1
#define FROZEN	2

static void test_buckets(void **state)
{
	(void)state;
	/* 0..7 exact, then 8 per octave; every value lies in its bucket */
	for (uint64_t v = 0; v < 8; v++)
		assert_int_equal(lat_bucket(v), v);
	assert_int_equal(lat_bucket(8), 8);
	assert_int_equal(lat_bucket(15), 15);
	assert_int_equal(lat_bucket(16), 16);
	assert_int_equal(lat_bucket(17), 16);
	assert_int_equal(lat_bucket(18), 17);
	for (uint64_t v = 1; v < (1ull << 42); v = v * 3 + 1) {
		uint32_t b = lat_bucket(v);

		assert_true(b < LAT_NB);
		assert_true(lat_bucket_lo(b) <= v);
		assert_true(v <= lat_bucket_hi(b));
		/* at most 1/8 of the lower bound wide */
		assert_true(lat_bucket_hi(b) - lat_bucket_lo(b) + 1 <= (lat_bucket_lo(b) + 7) / 8 + 1);
	}
	/* contiguous: each bucket starts right after the previous one ends */
	for (uint32_t b = 1; b < LAT_NB - 1; b++)
		assert_int_equal(lat_bucket_lo(b), lat_bucket_hi(b - 1) + 1);
	/* beyond 2^42 ns everything is the last bucket */
	assert_int_equal(lat_bucket(UINT64_MAX), LAT_NB - 1);
	assert_int_equal(lat_bucket(1ull << 50), LAT_NB - 1);
	assert_int_equal(lat_bucket((1ull << 42) - 1), LAT_NB - 1);
}

static void test_stop_cause(void **state)
{
	static const struct { uint64_t st; enum lat_stop want; } cases[] = {
		{ 0, LAT_STOP_NONE },
		{ 1u << DRV, LAT_STOP_RING },
		{ 1u << STACK, LAT_STOP_BQL },
		{ (1u << DRV) | (1u << STACK), LAT_STOP_BOTH },
		/* frozen (netif_tx_lock) is nobody's stop */
		{ 1u << FROZEN, LAT_STOP_NONE },
		{ (1u << FROZEN) | (1u << STACK), LAT_STOP_BQL },
		{ ~0ull, LAT_STOP_BOTH },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(lat_stop_cause(cases[i].st, DRV, STACK), cases[i].want);
	/* the bit numbers come from the kernel's BTF: another numbering */
	assert_int_equal(lat_stop_cause(1u << 5, 5, 7), LAT_STOP_RING);
	assert_int_equal(lat_stop_cause(1u << 7, 5, 7), LAT_STOP_BQL);
	assert_int_equal(lat_stop_cause(1u << DRV, 5, 7), LAT_STOP_NONE);
	/* a bit number out of range is never set */
	assert_int_equal(lat_stop_cause(~0ull, 64, STACK), LAT_STOP_BQL);
	assert_int_equal(lat_stop_kind(LAT_STOP_BQL), LAT_H_STOP_BQL);
	assert_int_equal(lat_stop_kind(LAT_STOP_RING), LAT_H_STOP_RING);
	assert_int_equal(lat_stop_kind(LAT_STOP_BOTH), LAT_H_STOP_BOTH);
}

/*
 * dql_stall_detected() hands over dql->history only: a device with 4 queues
 * of 320 bytes, struct dql at 128 in each, history at 112 in struct dql (the
 * 6.18 layout, as BTF gives it).
 */
static void test_stall_attribution(void **state)
{
	const uint64_t tx = 0xffff888100e36800ull, size = 320, off_dql = 128, off_hist = 112;
	(void)state;
	for (uint32_t q = 0; q < 4; q++) {
		uint64_t hist = tx + q * size + off_dql + off_hist;
		uint64_t txq = lat_stall_txq(hist, off_hist, off_dql);

		assert_int_equal(txq, tx + q * size);
		assert_int_equal(lat_txq_index(txq, tx, size, 4), q);
	}
	/* a queue past the device's count, before its array, not at a queue's start */
	assert_int_equal(lat_txq_index(tx + 4 * size, tx, size, 4), -1);
	assert_int_equal(lat_txq_index(tx - size, tx, size, 4), -1);
	assert_int_equal(lat_txq_index(tx + size + 8, tx, size, 4), -1);
	assert_int_equal(lat_txq_index(tx, tx, 0, 4), -1);
	/* a pointer too small to sit inside a queue */
	assert_int_equal(lat_stall_txq(100, off_hist, off_dql), 0);
}

static void test_positions(void **state)
{
	(void)state;
	assert_true(lat_pos_done(100, 100));
	assert_true(lat_pos_done(101, 100));
	assert_false(lat_pos_done(99, 100));
	/* across the u32 wrap, as the kernel compares */
	assert_true(lat_pos_done(5, 0xfffffff0u));
	assert_false(lat_pos_done(0xfffffff0u, 5));
}

static void fill(struct lat_hist *h, const uint64_t *v, size_t n)
{
	memset(h, 0, sizeof(*h));
	for (size_t i = 0; i < n; i++)
		lat_hist_add(h, v[i]);
}

static void test_quantiles(void **state)
{
	struct lat_hist *h = calloc(1, sizeof(*h));
	struct lat_summary s;
	uint64_t v[1000];
	(void)state;
	assert_non_null(h);
	/* empty */
	lathist_summary(h, &s);
	assert_int_equal(s.count, 0);
	assert_int_equal(s.p50, 0);
	/* small values are exact */
	for (int i = 0; i < 100; i++)
		v[i] = (uint64_t)(i % 5);
	fill(h, v, 100);
	assert_int_equal(lathist_quantile(h, 0.5), 2);
	assert_int_equal(lathist_quantile(h, 0.99), 4);
	assert_int_equal(h->max, 4);
	/* 1..1000 us: each percentile within one bucket (12.5%) of the exact one */
	for (int i = 0; i < 1000; i++)
		v[i] = (uint64_t)(i + 1) * 1000;
	fill(h, v, 1000);
	lathist_summary(h, &s);
	assert_int_equal(s.count, 1000);
	assert_int_equal(s.max, 1000000);
	assert_true(s.p50 >= 500000 * 7 / 8 && s.p50 <= 500000 * 9 / 8);
	assert_true(s.p90 >= 900000 * 7 / 8 && s.p90 <= 900000 * 9 / 8);
	assert_true(s.p99 >= 990000 * 7 / 8 && s.p99 <= 990000 * 9 / 8);
	assert_true(s.mean > 500499 && s.mean < 500501);
	/* a percentile is never above the max */
	v[0] = 1000001;
	fill(h, v, 1);
	assert_int_equal(lathist_quantile(h, 0.99), 1000001);
	/* bypasses wait 0 */
	fill(h, v, 1);
	lathist_add_zeros(h, 99);
	assert_int_equal(h->count, 100);
	assert_int_equal(lathist_quantile(h, 0.5), 0);
	assert_int_equal(lathist_quantile(h, 0.99), 0);
	assert_int_equal(lathist_quantile(h, 1.0), 1000001);
	free(h);
}

static void test_delta(void **state)
{
	struct lat_hist *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b)),
			*d = calloc(1, sizeof(*d)), *sum = calloc(1, sizeof(*sum));
	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(d);
	assert_non_null(sum);
	lat_hist_add(a, 10);
	lat_hist_add(a, 1000000);	/* the max was before the interval */
	memcpy(b, a, sizeof(*a));
	lat_hist_add(b, 20);
	lat_hist_add(b, 30);
	lathist_delta(d, b, a);
	assert_int_equal(d->count, 2);
	assert_int_equal(d->sum, 50);
	/* the interval's max: capped by its highest bucket, not the old 1 ms */
	assert_true(d->max >= 30 && d->max <= lat_bucket_hi(lat_bucket(30)));
	/* nothing new: empty, max 0 */
	lathist_delta(d, a, a);
	assert_int_equal(d->count, 0);
	assert_int_equal(d->max, 0);
	/* per-CPU copies summed */
	lathist_add(sum, a);
	lathist_add(sum, b);
	assert_int_equal(sum->count, 6);
	assert_int_equal(sum->max, 1000000);
	free(a);
	free(b);
	free(d);
	free(sum);
}

/* feed one record of a synthetic trace */
static void feed(struct ringtime *r, enum bqlt_kind k, uint64_t t, uint32_t bytes)
{
	struct bqlt_rec rec;
	struct bql_err e;

	memset(&rec, 0, sizeof(rec));
	rec.kind = k;
	rec.queue = 0;
	rec.qname = "eth0:tx-0";
	rec.t_ns = t;
	rec.bytes = bytes;
	assert_int_equal(ringtime_feed(r, &rec, &e), 0);
}

static void seed(struct ringtime *r, uint64_t t, uint32_t nq, uint32_t nc)
{
	struct bqlt_rec rec;
	struct bql_err e;

	memset(&rec, 0, sizeof(rec));
	rec.kind = BQLT_S;
	rec.qname = "eth0:tx-0";
	rec.t_ns = t;
	rec.nkv = 2;
	rec.kv[0].key = BQLT_S_NUM_QUEUED;
	rec.kv[0].val = nq;
	rec.kv[1].key = BQLT_S_NUM_COMPLETED;
	rec.kv[1].val = nc;
	assert_int_equal(ringtime_feed(r, &rec, &e), 0);
}

static void test_ringtime(void **state)
{
	struct ringtime r;
	(void)state;
	ringtime_init(&r);
	/* a Q before the seed has no known position: dropped */
	feed(&r, BQLT_Q, 100, 60);
	/* positions near the u32 wrap: 3 packets, completed by two C records */
	seed(&r, 1000, 0xffffff00u, 0xffffff00u);
	assert_int_equal(r.q[0].n_early_q, 1);
	feed(&r, BQLT_Q, 2000, 100);	/* ends at 0xffffff64 */
	feed(&r, BQLT_Q, 3000, 200);	/* ends at 0x2c (wrapped) */
	feed(&r, BQLT_Q, 4000, 60);
	feed(&r, BQLT_C, 10000, 150);	/* passes the first only */
	assert_int_equal(r.q[0].ring.count, 1);
	assert_int_equal(r.q[0].ring.max, 8000);
	feed(&r, BQLT_C, 20000, 210);	/* all of it */
	assert_int_equal(r.q[0].ring.count, 3);
	assert_int_equal(r.q[0].ring.sum, 8000 + 17000 + 16000);
	assert_int_equal(r.q[0].ring.max, 17000);
	/* a re-seed that moves num_completed completes what it passes */
	feed(&r, BQLT_Q, 30000, 100);
	seed(&r, 35000, r.q[0].nq, r.q[0].nc + 100);
	assert_int_equal(r.q[0].ring.count, 4);
	assert_int_equal(r.q[0].n_reseed, 1);
	/* a reset empties the FIFO: nothing completes from before it */
	feed(&r, BQLT_Q, 40000, 100);
	feed(&r, BQLT_R, 41000, 0);
	feed(&r, BQLT_Q, 42000, 80);
	feed(&r, BQLT_C, 50000, 80);
	assert_int_equal(r.q[0].ring.count, 5);
	assert_int_equal(r.q[0].ring.max, 17000);
	assert_true(r.saw_q);
	ringtime_free(&r);
}

/* many packets in flight: the FIFO grows, order is kept */
static void test_ringtime_grow(void **state)
{
	struct ringtime r;
	(void)state;
	ringtime_init(&r);
	for (int i = 0; i < 5000; i++)
		feed(&r, BQLT_Q, (uint64_t)i, 1500);
	feed(&r, BQLT_C, 10000, 1500 * 2500);
	assert_int_equal(r.q[0].ring.count, 2500);
	assert_int_equal(r.q[0].ring.max, 10000);
	feed(&r, BQLT_C, 20000, 1500 * 2500);
	assert_int_equal(r.q[0].ring.count, 5000);
	assert_int_equal(r.q[0].ring.max, 20000 - 2500);
	assert_int_equal(r.q[0].tail - r.q[0].head, 0);
	ringtime_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_stop_cause),
		cmocka_unit_test(test_stall_attribution),
		cmocka_unit_test(test_positions),
		cmocka_unit_test(test_quantiles),
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_ringtime),
		cmocka_unit_test(test_ringtime_grow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
