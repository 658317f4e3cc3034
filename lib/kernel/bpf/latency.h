/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the latency observer's BPF programs (lib/kernel/bpf/latency.bpf.c)
 * share with their loader (lib/kernel/latbpf.c): the observed queues, the
 * per-queue counters, the event of a stall or a watchdog timeout, the
 * device walk. Histograms and their buckets are dql/lat.h's.
 */
#ifndef BQLTOOL_LIB_BPF_LATENCY_H
#define BQLTOOL_LIB_BPF_LATENCY_H

#include "dql/lat.h"

/* queues one observer can hold */
#define LAT_MAX_SLOTS	64
/* nested transmits one CPU can be inside (XMIT_RECURSION_LIMIT is 8) */
#define LAT_XMIT_DEPTH	8
/* kfree_skb reasons counted one by one; above: the last counter */
#define LAT_NREASONS	128
/* CPUs with an interrupt-delay histogram of their own */
#define LAT_MAX_CPUS	64

/* per-queue counters (per CPU in the kernel), index into lat_cnt.v */
enum lat_cnt_idx {
	LAT_C_ENQ,		/* qdisc_enqueue of the queue's packets */
	LAT_C_DEQ,		/* packets handed out by qdisc_dequeue */
	LAT_C_DEQ_UNTIMED,	/* ... with no enqueue seen (before the start, lost) */
	LAT_C_XMIT,		/* driver xmits that returned NETDEV_TX_OK */
	LAT_C_XMIT_BUSY,	/* ... that returned anything else (requeued) */
	LAT_C_DROP,		/* qdisc drops (kfree_skb with a qdisc reason) */
	LAT_C_DROP_QUEUED,	/* ... of packets the qdisc held (enqueued, then dropped) */
	LAT_C_SENT,		/* packets whose bytes DQL counted (FIFO pushes) */
	LAT_C_FIFO_FULL,	/* ... not timed: the FIFO was full */
	LAT_C_FIFO_RESET,	/* positions went back (dql_reset): FIFO emptied */
	LAT_C_STOP_BQL,		/* stops that began with STACK_XOFF alone */
	LAT_C_STOP_RING,	/* ... with DRV_XOFF alone */
	LAT_C_STOP_BOTH,	/* ... with both */
	LAT_C_POLLS,		/* NAPI polls of the device observed for this queue */
	LAT_C_POLLS_DONE,	/* ... that completed some of its packets */
	LAT_C_STALLS,		/* dql_stall_detected */
	LAT_C_TIMEOUTS,		/* net_dev_xmit_timeout */
	LAT_C_NR,
};

struct lat_cnt {
	lat_u64 v[LAT_C_NR];
};

/*
 * The counters of every packet and every poll live in the queue's slot,
 * on the cache lines those runs touch anyway (an atomic add), not in the
 * per-CPU map (one more cold line a run); user space adds them to
 * lat_cnt's: hot[k] counts lat_cnt.v[LAT_HOT_CNT(k)].
 */
enum lat_hot_idx {
	LAT_HOT_XMIT,
	LAT_HOT_SENT,
	LAT_HOT_POLLS,
	LAT_HOT_POLLS_DONE,
	LAT_HOT_NR,
};
#define LAT_HOT_CNT(k)	((k) == LAT_HOT_XMIT ? LAT_C_XMIT : (k) == LAT_HOT_SENT ? LAT_C_SENT : \
			 (k) == LAT_HOT_POLLS ? LAT_C_POLLS : LAT_C_POLLS_DONE)

/*
 * struct lat_slot - one observed queue: its addresses (filled by user
 * space before attaching) and the state the programs share between CPUs:
 * the stop in progress, the FIFO indices, the last num_queued pushed.
 */
struct lat_slot {
	lat_u64 txq;		/* struct netdev_queue * */
	lat_u64 dev;		/* struct net_device * */
	lat_u64 dql;		/* &txq->dql */
	lat_u32 queue;
	lat_u32 stopped;	/* enum lat_stop in progress, 0 = running */
	lat_u64 stop_since;	/* bpf_ktime_get_ns() when it began */
	lat_u32 head, tail;	/* FIFO (map fifo): [head, tail) in flight */
	lat_u32 last_pos;	/* num_queued of the last push */
	lat_u32 armed;		/* last_pos is valid */
	lat_u64 hot[LAT_HOT_NR];	/* enum lat_hot_idx */
} __attribute__((aligned(64)));

/* a device: its slots are [first, first + n) */
struct lat_dev {
	lat_u64 dev;		/* struct net_device * */
	lat_u32 first, n;
};

enum lat_ev_kind {
	LAT_EV_STALL = 1,	/* napi:dql_stall_detected */
	LAT_EV_TIMEOUT,		/* net:net_dev_xmit_timeout */
};

/* struct lat_event - a stall or a watchdog timeout, with the queue's state then */
struct lat_event {
	lat_u64 t_ns;
	lat_u32 kind;		/* enum lat_ev_kind */
	lat_s32 slot;		/* observed queue, or -1 */
	lat_s32 queue;		/* TX queue index, -1 if unknown */
	lat_s32 ifindex;
	char ifname[16];
	/* stall: the tracepoint's arguments (jiffies) */
	lat_u64 thrs, len, last_reap, hist_head, now;
	/* the queue then */
	lat_u64 state;		/* netdev_queue.state */
	lat_u32 limit, num_queued, num_completed, qlen;
	lat_u32 backlog, pad;
};

/* device walk request/answer (one per slot), see lat_find in latency.bpf.c */
struct lat_find {
	lat_s32 ifindex;	/* in */
	lat_u32 queue;		/* in */
	lat_u64 txq;		/* out: 0 = not found */
	lat_u64 dql;		/* out */
	lat_u64 dev;		/* out */
	lat_u32 real_num_tx;	/* out */
	lat_u32 found_dev;	/* out */
	char name[16];		/* out */
};

#endif
