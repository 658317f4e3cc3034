/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What record's BPF programs (lib/kernel/bpf/record.bpf.c) share with user space:
 * the event each program puts on the ring buffer, the per-queue slots and
 * the counters. Fixed-width types only; included by BPF C and by lib/.
 */
#ifndef BQLTOOL_LIB_BPF_RECORD_H
#define BQLTOOL_LIB_BPF_RECORD_H

#ifdef __VMLINUX_H__
typedef __u64 rec_u64;
typedef __u32 rec_u32;
typedef __s32 rec_s32;
typedef __u16 rec_u16;
#else
#include <stdint.h>
typedef uint64_t rec_u64;
typedef uint32_t rec_u32;
typedef int32_t rec_s32;
typedef uint16_t rec_u16;
#endif

/* queues one recording can hold (the watchpoint backend: debug registers) */
#define REC_MAX_SLOTS	64
/* nested transmits one CPU can be inside (the kernel's XMIT_RECURSION_LIMIT is 8) */
#define REC_XMIT_DEPTH	8

enum rec_ev_kind {
	REC_EV_C = 1,	/* dql_completed() returned: post-call state */
	REC_EV_Q,	/* dql_queued() stored num_queued */
	REC_EV_LIMIT,	/* limit written outside dql_completed/dql_reset (sysfs) */
	REC_EV_RESET,	/* dql_reset() ran */
	REC_EV_CHECK,	/* checkpoint: the state moved without an event (full state) */
	REC_EV_OBS,	/* tracepoint backend: the state changed since the last observation */
};

/* where a tracepoint observation was taken (rec_event.where) */
enum rec_obs_where {
	REC_AT_NONE = 0,
	REC_AT_START_XMIT,	/* net:net_dev_start_xmit, TX lock held, before the driver */
	REC_AT_XMIT,		/* net:net_dev_xmit, TX lock held, after the driver */
	REC_AT_NAPI,		/* napi:napi_poll, after a poll of one of the device's NAPIs */
	REC_AT_NR,
};

/*
 * struct rec_snap - a copy of struct dql, field by field (CO-RE reads in
 * BPF, so the kernel's layout is never assumed here).
 */
struct rec_snap {
	rec_u32 num_queued;
	rec_u32 adj_limit;
	rec_u32 last_obj_cnt;
	rec_u32 limit;
	rec_u32 num_completed;
	rec_u32 prev_ovlimit;
	rec_u32 prev_num_queued;
	rec_u32 prev_last_obj_cnt;
	rec_u32 lowest_slack;
	rec_u32 max_limit;
	rec_u32 min_limit;
	rec_u32 slack_hold_time;
	rec_u16 stall_thrs;
	rec_u16 stall_max;
	rec_u32 pad;
	rec_u64 slack_start_time;
	rec_u64 history_head;
	rec_u64 last_reap;
	rec_u64 stall_cnt;
	rec_u64 history[4];
};

/* struct rec_event - one ring-buffer record */
struct rec_event {
	rec_u64 t_ns;		/* bpf_ktime_get_ns() */
	rec_u64 jiffies;		/* bpf_jiffies64() */
	rec_u64 ip;		/* trapping instruction + 1 (watchpoints), else 0 */
	rec_u32 kind;		/* enum rec_ev_kind */
	rec_u32 slot;		/* queue index in the record's list */
	struct rec_snap s;
	/* REC_EV_OBS only */
	rec_u64 j_prev;		/* jiffies before the previous observation of the queue read it */
	rec_u32 where;		/* enum rec_obs_where */
	rec_u32 cpu;
};

/*
 * struct rec_slot - one recorded queue. User space fills @dql (from the
 * device walk) and @queued before attaching; the programs keep the last_*
 * values seen by a trap, which the in-lock checkpoint compares with.
 */
struct rec_slot {
	rec_u64 dql;		/* kernel address of the queue's struct dql, 0 = unused */
	rec_u32 queued;		/* --queued: check num_queued too */
	rec_u32 armed;		/* a C event was delivered: the checkpoint may compare */
	rec_u32 resync;		/* dql_reset seen: next checkpoint sends the full state */
	rec_u32 last_nc;
	rec_u32 last_nq;
	rec_u32 last_limit;
	rec_u32 last_min;
	rec_u32 last_max;
	rec_u32 last_hold;
	rec_u32 last_stall;	/* stall_thrs | stall_max << 16 (tracepoint backend) */
	rec_u64 dev;		/* struct net_device * of the queue (tracepoint backend) */
	rec_u64 last_j;		/* jiffies before the last observation read the state */
	rec_u32 queue;		/* TX queue index */
	rec_u32 pad;
};

/* tracepoint backend: one recorded device, its slots are [first, first + n) */
struct rec_dev {
	rec_u64 dev;		/* struct net_device * */
	rec_u32 first, n;
};

/* device walk request/answer (one per slot), see find_dql in record.bpf.c */
struct rec_find {
	rec_s32 ifindex;		/* in */
	rec_u32 queue;		/* in */
	rec_u64 dql;		/* out: 0 = not found */
	rec_u64 addr_c;		/* out: &dql->prev_num_queued */
	rec_u64 addr_q;		/* out: &dql->num_queued */
	rec_u64 addr_limit;	/* out: &dql->limit */
	rec_u64 dev;		/* out: the struct net_device */
	rec_u32 real_num_tx;	/* out */
	rec_u32 found_dev;	/* out: the ifindex exists in the caller's netns */
	char name[16];		/* out: the device's name */
};

/* per-CPU counters (index) */
enum rec_stat {
	REC_ST_TRAP_C,		/* prev_num_queued traps in dql_completed (or fexit calls) */
	REC_ST_TRAP_Q,		/* num_queued traps */
	REC_ST_TRAP_LIMIT,	/* limit traps outside dql_completed */
	REC_ST_TRAP_OTHER,	/* traps whose writer is none of the above */
	REC_ST_CHECKPOINT,	/* in-lock checkpoints on a recorded queue */
	REC_ST_MISSED_C,	/* checkpoints that found num_completed moved */
	REC_ST_MISSED_Q,	/* checkpoints that found num_queued moved */
	REC_ST_DROP,		/* ring buffer full: event dropped */
	REC_ST_OBS,		/* tracepoint observations of a recorded queue */
	REC_ST_OBS_CHANGED,	/* ... that found the state changed (an event) */
	REC_ST_NR,
};

#endif
