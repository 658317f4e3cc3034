/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Time in the transmit path, the part shared by the latency observer's BPF
 * programs (lib/kernel/bpf/latency.bpf.c) and user space: histogram
 * buckets, the stop causes, the struct dql -> netdev_queue arithmetic of a
 * stall, and the order of DQL byte positions. Pure inline functions on
 * fixed-width types (BPF C has no libc), tested by tests/unit/test_lat.c.
 */
#ifndef BQLTOOL_DQL_LAT_H
#define BQLTOOL_DQL_LAT_H

#ifdef __VMLINUX_H__
typedef __u64 lat_u64;
typedef __u32 lat_u32;
typedef __s32 lat_s32;
typedef __s64 lat_s64;
#else
#include <stdint.h>
typedef uint64_t lat_u64;
typedef uint32_t lat_u32;
typedef int32_t lat_s32;
typedef int64_t lat_s64;
#endif

/*
 * Buckets: values 0..7 exactly, then 8 buckets per power of two (each at
 * most 1/8 of its lower bound wide: percentiles within 12.5%), up to
 * 2^LAT_MSB_MAX; larger values fall into the last bucket (the exact max
 * and sum are kept beside).
 */
#define LAT_SUB_BITS	3
#define LAT_SUB		(1u << LAT_SUB_BITS)
#define LAT_MSB_MAX	41			/* 2^42 ns: 73 minutes */
#define LAT_NB		((LAT_MSB_MAX - 1) * LAT_SUB)	/* 320 */

/* the bucket of @v */
static inline lat_u32 lat_bucket(lat_u64 v)
{
	lat_u32 msb = 0;
	lat_u64 x = v;

	if (v < LAT_SUB)
		return (lat_u32)v;
	/* binary search for the highest set bit (BPF has no clz) */
	if (x >> 32) { msb += 32; x >>= 32; }
	if (x >> 16) { msb += 16; x >>= 16; }
	if (x >> 8) { msb += 8; x >>= 8; }
	if (x >> 4) { msb += 4; x >>= 4; }
	if (x >> 2) { msb += 2; x >>= 2; }
	if (x >> 1) { msb += 1; }
	if (msb > LAT_MSB_MAX)
		return LAT_NB - 1;
	return (msb - LAT_SUB_BITS + 1) * LAT_SUB +
	       (lat_u32)((v >> (msb - LAT_SUB_BITS)) & (LAT_SUB - 1));
}

/* the smallest value of bucket @b */
static inline lat_u64 lat_bucket_lo(lat_u32 b)
{
	lat_u32 msb;

	if (b < LAT_SUB)
		return b;
	msb = b / LAT_SUB + LAT_SUB_BITS - 1;
	return (lat_u64)(LAT_SUB + b % LAT_SUB) << (msb - LAT_SUB_BITS);
}

/* the largest value of bucket @b (the last one has no end: its lower bound x 2) */
static inline lat_u64 lat_bucket_hi(lat_u32 b)
{
	if (b < LAT_SUB)
		return b;
	if (b >= LAT_NB - 1)
		return lat_bucket_lo(LAT_NB - 1) * 2;
	return lat_bucket_lo(b + 1) - 1;
}

/* one distribution; per CPU in the kernel, summed in user space */
struct lat_hist {
	lat_u64 count;
	lat_u64 sum;
	lat_u64 max;
	lat_u64 b[LAT_NB];
};

static inline void lat_hist_add(struct lat_hist *h, lat_u64 v)
{
	lat_u32 b = lat_bucket(v);

	h->count++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
	if (b < LAT_NB)
		h->b[b]++;
}

/* the distributions of one TX queue */
enum lat_kind {
	LAT_H_QDISC,		/* qdisc wait, enqueue -> dequeue (ns) */
	LAT_H_RING,		/* ring time, sent -> completion observed (ns) */
	LAT_H_STOP_BQL,		/* time stopped by BQL alone (ns) */
	LAT_H_STOP_RING,	/* time stopped by the driver, ring full (ns) */
	LAT_H_STOP_BOTH,	/* time stopped by both at once (ns) */
	LAT_H_IRQ,		/* interrupt -> poll delay of polls that completed TX (ns) */
	LAT_H_CPP,		/* packets completed per NAPI poll that completed some */
	LAT_H_NR,
};

/* ------------------------------------------------------------ stops */

enum lat_stop {
	LAT_STOP_NONE,
	LAT_STOP_BQL,		/* __QUEUE_STATE_STACK_XOFF: BQL's limit reached */
	LAT_STOP_RING,		/* __QUEUE_STATE_DRV_XOFF: the driver's ring is full */
	LAT_STOP_BOTH,
	LAT_STOP_NR,
};

/*
 * lat_stop_cause - why a netdev_queue with @state is stopped, given the
 * bit numbers of __QUEUE_STATE_DRV_XOFF and __QUEUE_STATE_STACK_XOFF (the
 * kernel's enum netdev_queue_state_t, read through BTF). __QUEUE_STATE_FROZEN
 * is not a stop of the queue's own.
 */
static inline enum lat_stop lat_stop_cause(lat_u64 state, lat_u32 drv_bit, lat_u32 stack_bit)
{
	int drv = drv_bit < 64 && (state >> drv_bit) & 1;
	int stack = stack_bit < 64 && (state >> stack_bit) & 1;

	if (drv && stack)
		return LAT_STOP_BOTH;
	if (drv)
		return LAT_STOP_RING;
	if (stack)
		return LAT_STOP_BQL;
	return LAT_STOP_NONE;
}

/* the histogram of a stop cause */
static inline enum lat_kind lat_stop_kind(enum lat_stop s)
{
	return s == LAT_STOP_BQL ? LAT_H_STOP_BQL : s == LAT_STOP_RING ? LAT_H_STOP_RING
									: LAT_H_STOP_BOTH;
}

/* ------------------------------------------------------------ stalls */

/*
 * lat_stall_txq - dql_stall_detected() passes dql->history, a pointer into
 * the struct dql embedded in a struct netdev_queue: container_of twice.
 * @off_hist: offsetof(struct dql, history); @off_dql: offsetof(struct
 * netdev_queue, dql). 0 if @hist cannot be such a pointer.
 */
static inline lat_u64 lat_stall_txq(lat_u64 hist, lat_u64 off_hist, lat_u64 off_dql)
{
	if (hist < off_hist + off_dql)
		return 0;
	return hist - off_hist - off_dql;
}

/*
 * lat_txq_index - the index of queue @txq in a device whose queue array
 * starts at @tx, @txq_size bytes each, @ntx queues; -1 if @txq is not one
 * of them (not in the array, or not at a queue's start).
 */
static inline lat_s32 lat_txq_index(lat_u64 txq, lat_u64 tx, lat_u64 txq_size, lat_u32 ntx)
{
	lat_u64 off;

	if (!txq_size || txq < tx)
		return -1;
	off = txq - tx;
	if (off % txq_size || off / txq_size >= ntx)
		return -1;
	return (lat_s32)(off / txq_size);
}

/* ------------------------------------------------------------ byte positions */

/*
 * DQL counts bytes in u32 positions that wrap: num_completed has passed
 * the position @pos (the last byte of a packet queued when num_queued
 * became @pos) once it is at or after it, compared as the kernel compares
 * (signed difference).
 */
static inline int lat_pos_done(lat_u32 num_completed, lat_u32 pos)
{
	return (lat_s32)(num_completed - pos) >= 0;
}

/* the per-queue FIFO of sent packets: (time, num_queued after the packet) */
#define LAT_FIFO	1024		/* a power of two */

struct lat_fifo_ent {
	lat_u64 t;
	lat_u32 pos;
	lat_u32 pad;
};

#endif
