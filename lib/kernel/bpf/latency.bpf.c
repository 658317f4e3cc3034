// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool latency, kernel side: time in the transmit path of selected TX
 * queues, aggregated here into per-CPU histograms (dql/lat.h): no event
 * per packet leaves the kernel. Tracepoints only (tp_btf):
 * - qdisc wait: qdisc_enqueue stamps the skb (a hash keyed by its
 *   address), qdisc_dequeue (a list when bulk) takes the stamp;
 * - ring time: DQL's byte positions. net_dev_xmit (the driver returned,
 *   TX lock held) pushes (time, num_queued) on the queue's FIFO when
 *   num_queued moved; where num_completed is seen to pass a position
 *   (net_dev_xmit, napi_poll) that packet completed: no skb is followed,
 *   so pointer reuse, clones and GSO do not matter;
 * - stops: netdev_queue.state at each observation, the cause by bit;
 * - interrupt delay: softirq_raise -> softirq_entry of NET_RX per CPU,
 *   charged to the queues a poll of that softirq completed;
 * - drops (kfree_skb with a qdisc reason), stalls (dql_stall_detected:
 *   container_of from dql->history) and watchdog timeouts, the last two
 *   as events with the queue's state.
 * Every struct offset comes from CO-RE.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "lib/kernel/bpf/latency.h"

char LICENSE[] SEC("license") = "GPL";

#define MAX_DEVS	4096		/* device-list walk bound */
#define POP_MAX		128		/* packets one observation completes, at most */
#define BULK_MAX	64		/* skbs of one bulk dequeue followed */

#define READ_ONCE(x)	(*(volatile typeof(x) *)&(x))

/* ------------------------------------------------------------ maps */

struct enq_val {
	__u64 t;
	__u32 slot;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);		/* skb address */
	__type(value, struct enq_val);
} lat_enq_ts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LAT_MAX_SLOTS * LAT_H_NR);
	__type(key, __u32);		/* enum lat_kind * LAT_MAX_SLOTS + slot: a kind's in one batch */
	__type(value, struct lat_hist);
} lat_hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lat_hist);
} lat_cpu_irq SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LAT_MAX_SLOTS);
	__type(key, __u32);
	__type(value, struct lat_cnt);
} lat_cnts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LAT_MAX_SLOTS * LAT_NREASONS);
	__type(key, __u32);		/* slot * LAT_NREASONS + reason */
	__type(value, __u64);
} lat_drops SEC(".maps");

struct fifo {
	struct lat_fifo_ent e[LAT_FIFO];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LAT_MAX_SLOTS);
	__type(key, __u32);
	__type(value, struct fifo);
} lat_fifos SEC(".maps");

struct xmit_stack {
	__u32 depth;
	__s32 slot[LAT_XMIT_DEPTH];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xmit_stack);
} lat_xs SEC(".maps");

struct sirq {
	__u64 raise_t;		/* first NET_RX raise since the last entry, 0 = none */
	__u64 delay;		/* raise -> entry of the NET_RX softirq running now */
	__u32 in_rx;		/* inside a NET_RX softirq whose raise was seen */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sirq);
} lat_sirq SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 10);
} lat_ev SEC(".maps");

/* set by user space before attaching */
struct lat_slot slots[LAT_MAX_SLOTS];
__u32 nslots;
/*
 * The devices of slots[], each with its run of slots: a few compares find
 * a packet's queue, cheaper than a hash lookup for the handful of devices
 * one observes.
 */
struct lat_dev devs[LAT_MAX_SLOTS];
__u32 ndevs;
/*
 * Every observed device has one TX queue: net_dev_xmit knows the queue
 * from the device alone, and net_dev_start_xmit is not attached (one
 * program less per packet).
 */
__u32 single_q;
/* the softirq programs are attached: polls may read the interrupt delay */
__u32 irq_on;
__u64 qreasons[LAT_NREASONS / 64];	/* kfree_skb reasons that are qdisc drops */
struct lat_find finds[LAT_MAX_SLOTS];	/* lat_find() request and answer */

/* ------------------------------------------------------------ helpers */

static __always_inline struct lat_slot *slot_ptr(__u32 i)
{
	__u64 k = i;

	/* a mask the verifier sees (the compiler drops a bound it can prove) */
	asm volatile("%[k] &= %[m]" : [k] "+r"(k) : [m] "i"(LAT_MAX_SLOTS - 1));
	return &slots[k];
}

static __always_inline void cnt_inc(__u32 slot, __u32 idx)
{
	struct lat_cnt *c = bpf_map_lookup_elem(&lat_cnts, &slot);

	if (c && idx < LAT_C_NR)
		c->v[idx]++;
}

static __always_inline void hot_inc(struct lat_slot *s, __u32 k)
{
	if (k < LAT_HOT_NR)
		__sync_fetch_and_add(&s->hot[k], 1);
}

static __always_inline void hist_add(__u32 slot, __u32 kind, __u64 v)
{
	__u32 key = kind * LAT_MAX_SLOTS + slot;
	struct lat_hist *h = bpf_map_lookup_elem(&lat_hists, &key);

	if (h)
		lat_hist_add(h, v);
}

/* the index in devs[] of device @dev, or -1 */
static __always_inline int dev_find(__u64 dev)
{
	for (int d = 0; d < LAT_MAX_SLOTS; d++) {
		if (d >= ndevs)
			break;
		if (devs[d].dev == dev)
			return d;
	}
	return -1;
}

/* the slot of queue @q of device @dev, or -1 */
static __always_inline int slot_of_dev(__u64 dev, __u32 q)
{
	int d = dev_find(dev);
	__u32 first, n;

	if (d < 0 || d >= LAT_MAX_SLOTS)
		return -1;
	first = devs[d].first;
	n = devs[d].n;
	for (int k = 0; k < LAT_MAX_SLOTS; k++) {
		__u32 i = first + k;

		if (k >= n || i >= LAT_MAX_SLOTS)
			break;
		if (slot_ptr(i)->queue == q)
			return (int)i;
	}
	return -1;
}

/* the slot of queue @txq of device @dev, or -1 */
static __always_inline int slot_of_txq(__u64 dev, __u64 txq)
{
	int d = dev_find(dev);
	__u32 first, n;

	if (d < 0 || d >= LAT_MAX_SLOTS)
		return -1;
	first = devs[d].first;
	n = devs[d].n;
	for (int k = 0; k < LAT_MAX_SLOTS; k++) {
		__u32 i = first + k;

		if (k >= n || i >= LAT_MAX_SLOTS)
			break;
		if (slot_ptr(i)->txq == txq)
			return (int)i;
	}
	return -1;
}

static __always_inline __u64 rd64(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (const void *)addr);
	return v;
}

/*
 * The queue's struct dql and netdev_queue read by plain loads: a read-only
 * cast makes the verifier turn them into loads that cannot fault (as a
 * probe read, without the helper call on every packet).
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;

static __always_inline struct dql *dql_of(const struct lat_slot *s)
{
	return bpf_rdonly_cast((void *)s->dql, bpf_core_type_id_kernel(struct dql));
}

static __always_inline struct netdev_queue *txq_of(const struct lat_slot *s)
{
	return bpf_rdonly_cast((void *)s->txq, bpf_core_type_id_kernel(struct netdev_queue));
}

/*
 * The clock costs as much as an empty program here (about 70 ns a read in
 * this KVM guest): read it once per run, and only when a run needs it (a
 * poll that completes nothing and sees no stop begin or end needs none).
 */
static __always_inline __u64 now_of(__u64 *now)
{
	if (!*now)
		*now = bpf_ktime_get_ns();
	return *now;
}

#define DQL_OFF(f)	bpf_core_field_offset(struct dql, f)
#define TXQ_OFF(f)	bpf_core_field_offset(struct netdev_queue, f)

/* ------------------------------------------------------------ stops */

/* the queue's state now: a stop begins or ends */
static __always_inline void see_state(__u32 i, struct lat_slot *s, __u64 *now)
{
	__u64 state = txq_of(s)->state;
	__u32 drv = bpf_core_enum_value(enum netdev_queue_state_t, __QUEUE_STATE_DRV_XOFF);
	__u32 stack = bpf_core_enum_value(enum netdev_queue_state_t, __QUEUE_STATE_STACK_XOFF);
	__u32 cause = lat_stop_cause(state, drv, stack), cur = s->stopped;

	if (cause && !cur) {
		if (__sync_val_compare_and_swap(&s->stopped, 0, cause) != 0)
			return;
		s->stop_since = now_of(now);
		cnt_inc(i, cause == LAT_STOP_BQL ? LAT_C_STOP_BQL :
			   cause == LAT_STOP_RING ? LAT_C_STOP_RING : LAT_C_STOP_BOTH);
	} else if (!cause && cur) {
		__u64 since;

		if (__sync_val_compare_and_swap(&s->stopped, cur, 0) != cur)
			return;
		since = s->stop_since;
		s->stop_since = 0;
		if (since && now_of(now) > since)
			hist_add(i, lat_stop_kind(cur), *now - since);
	}
}

/* ------------------------------------------------------------ ring time */

struct pop_ctx {
	struct fifo *f;
	__u64 now;
	__u32 slot, h, t, nc;
};

/*
 * The loops' counter lives in a map, not in the context on the stack: a
 * value the verifier cannot know, so that it verifies each callback once
 * instead of once per iteration (a counter on the stack never converges).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} lat_popn SEC(".maps");

/* how many packets from the FIFO's head num_completed has passed */
static long pop_scan(__u32 k, struct pop_ctx *c)
{
	__u32 zero = 0, *n = bpf_map_lookup_elem(&lat_popn, &zero);

	if (!n || c->h + *n == c->t)
		return 1;
	if (!lat_pos_done(c->nc, c->f->e[(c->h + *n) & (LAT_FIFO - 1)].pos))
		return 1;
	(*n)++;
	return 0;
}

static long pop_take(__u32 k, struct pop_ctx *c)
{
	__u32 zero = 0, *n = bpf_map_lookup_elem(&lat_popn, &zero);
	__u64 ts;

	if (!n || k >= *n)
		return 1;
	ts = c->f->e[(c->h + k) & (LAT_FIFO - 1)].t;
	hist_add(c->slot, LAT_H_RING, c->now > ts ? c->now - ts : 0);
	return 0;
}

/* a few packets per observation are the rule: taken without bpf_loop */
#define POP_FAST	4

/*
 * Every packet whose last byte num_completed has passed completed by
 * @now: take them off the FIFO (several CPUs may observe at once: the one
 * whose compare-and-swap of head wins records them). Returns how many.
 */
static __always_inline __u32 complete(__u32 i, struct lat_slot *s, __u64 *nowp)
{
	__u32 key = i, zero = 0, *n, got = 0;
	struct pop_ctx c;
	__u64 now;

	c.h = READ_ONCE(s->head);
	c.t = READ_ONCE(s->tail);
	if (c.h == c.t)
		return 0;
	c.f = bpf_map_lookup_elem(&lat_fifos, &key);
	if (!c.f)
		return 0;
	c.nc = dql_of(s)->num_completed;
	/* the head not passed yet (a poll of receive only): nothing to do */
	if (!lat_pos_done(c.nc, c.f->e[c.h & (LAT_FIFO - 1)].pos))
		return 0;
	now = now_of(nowp);
	for (int k = 0; k < POP_FAST; k++) {
		if (c.h + got == c.t ||
		    !lat_pos_done(c.nc, c.f->e[(c.h + got) & (LAT_FIFO - 1)].pos))
			break;
		got++;
	}
	if (got == POP_FAST) {
		n = bpf_map_lookup_elem(&lat_popn, &zero);
		if (!n)
			return 0;
		c.now = now;
		c.slot = i;
		*n = got;
		bpf_loop(POP_MAX, pop_scan, &c, 0);
		got = *n;
	}
	if (__sync_val_compare_and_swap(&s->head, c.h, c.h + got) != c.h)
		return 0;
	if (got > POP_FAST) {
		bpf_loop(POP_MAX, pop_take, &c, 0);
		return got;
	}
	for (int k = 0; k < POP_FAST; k++) {
		__u64 ts;

		if (k >= got)
			break;
		ts = c.f->e[(c.h + k) & (LAT_FIFO - 1)].t;
		hist_add(i, LAT_H_RING, now > ts ? now - ts : 0);
	}
	return got;
}

/* after the driver's xmit, under the TX lock: the packet's position */
static __always_inline void sent(__u32 i, struct lat_slot *s, __u64 *now)
{
	__u32 key = i, nq, h, t;
	struct fifo *f;

	nq = dql_of(s)->num_queued;
	if (!s->armed) {
		s->last_pos = nq;
		s->armed = 1;
		return;
	}
	if (nq == s->last_pos)
		return;		/* no bytes counted: no BQL on this queue, or a drop */
	h = READ_ONCE(s->head);
	t = s->tail;
	if ((__s32)(nq - s->last_pos) < 0) {
		/* dql_reset(): the positions started again */
		__sync_val_compare_and_swap(&s->head, h, t);
		cnt_inc(i, LAT_C_FIFO_RESET);
		s->last_pos = nq;
		return;
	}
	s->last_pos = nq;
	f = bpf_map_lookup_elem(&lat_fifos, &key);
	if (!f)
		return;
	if (t - h >= LAT_FIFO) {
		cnt_inc(i, LAT_C_FIFO_FULL);
		return;
	}
	f->e[t & (LAT_FIFO - 1)].t = now_of(now);
	f->e[t & (LAT_FIFO - 1)].pos = nq;
	__sync_fetch_and_add(&s->tail, 1);	/* a full barrier: the entry first */
	hot_inc(s, LAT_HOT_SENT);
}

/* ------------------------------------------------------------ qdisc */

SEC("tp_btf/qdisc_enqueue")
int BPF_PROG(lat_enq, struct Qdisc *q, const struct netdev_queue *txq, struct sk_buff *skb)
{
	struct enq_val v = { .t = bpf_ktime_get_ns() };
	__u64 key = (__u64)skb;
	int i = slot_of_txq((__u64)txq->dev, (__u64)txq);

	if (i < 0)
		return 0;
	v.slot = (__u32)i;
	bpf_map_update_elem(&lat_enq_ts, &key, &v, BPF_ANY);
	cnt_inc(v.slot, LAT_C_ENQ);
	return 0;
}

SEC("tp_btf/qdisc_dequeue")
int BPF_PROG(lat_deq, struct Qdisc *q, const struct netdev_queue *txq, int packets,
	     struct sk_buff *skb)
{
	__u64 now, key;
	struct sk_buff *p = skb;
	int i;

	if (!skb)
		return 0;
	i = slot_of_txq((__u64)txq->dev, (__u64)txq);
	if (i < 0)
		return 0;
	now = bpf_ktime_get_ns();
	for (int k = 0; k < BULK_MAX; k++) {
		struct enq_val *v;

		if (!p || k >= packets)
			break;
		key = (__u64)p;
		v = bpf_map_lookup_elem(&lat_enq_ts, &key);
		if (v) {
			hist_add(v->slot, LAT_H_QDISC, now > v->t ? now - v->t : 0);
			cnt_inc(v->slot, LAT_C_DEQ);
			bpf_map_delete_elem(&lat_enq_ts, &key);
		} else {
			cnt_inc((__u32)i, LAT_C_DEQ);
			cnt_inc((__u32)i, LAT_C_DEQ_UNTIMED);
		}
		p = p->next;
	}
	/* a wake-up that no poll saw (ifb wakes from a tasklet) */
	see_state((__u32)i, slot_ptr((__u32)i), &now);
	return 0;
}

/* ------------------------------------------------------------ xmit */

/*
 * start_xmit pushes the queue's slot (or -1), net_dev_xmit pops it: the two
 * fire on one CPU around one ndo_start_xmit, and the skb may be freed by
 * the second (as in record.bpf.c).
 */
SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(lat_start, const struct sk_buff *skb, const struct net_device *dev)
{
	__u32 zero = 0;
	struct xmit_stack *xs = bpf_map_lookup_elem(&lat_xs, &zero);
	int i;

	if (!xs)
		return 0;
	i = slot_of_dev((__u64)dev, skb->queue_mapping);
	if (xs->depth < LAT_XMIT_DEPTH)
		xs->slot[xs->depth & (LAT_XMIT_DEPTH - 1)] = i;
	xs->depth++;
	return 0;
}

SEC("tp_btf/net_dev_xmit")
int BPF_PROG(lat_xmit, struct sk_buff *skb, int rc, struct net_device *dev, unsigned int len)
{
	__u32 zero = 0;
	struct xmit_stack *xs;
	struct lat_slot *s;
	__u64 now = 0;
	int i;

	if (single_q) {
		int d = dev_find((__u64)dev);

		/* a device given more queues since: its packets are not told apart */
		if (d < 0 || d >= LAT_MAX_SLOTS || dev->real_num_tx_queues != 1)
			return 0;
		i = (int)devs[d].first;
	} else {
		xs = bpf_map_lookup_elem(&lat_xs, &zero);
		if (!xs || !xs->depth)
			return 0;	/* its start_xmit came before we were attached */
		xs->depth--;
		if (xs->depth >= LAT_XMIT_DEPTH)
			return 0;
		i = xs->slot[xs->depth & (LAT_XMIT_DEPTH - 1)];
	}
	if (i < 0 || i >= LAT_MAX_SLOTS)
		return 0;
	s = slot_ptr((__u32)i);
	if (rc == 0)
		hot_inc(s, LAT_HOT_XMIT);
	else
		cnt_inc((__u32)i, LAT_C_XMIT_BUSY);
	/* completions the driver ran inside its xmit (virtio_net), then this packet */
	complete((__u32)i, s, &now);
	sent((__u32)i, s, &now);
	see_state((__u32)i, s, &now);
	return 0;
}

/* ------------------------------------------------------------ polls and interrupts */

struct napi_ctx {
	__u32 first, n;
	__u64 now;		/* 0 until a run needs the clock */
};

/* the interrupt delay of the NET_RX softirq this poll runs in, or 0 */
static __always_inline __u64 irq_delay(void)
{
	__u32 zero = 0;
	struct sirq *sq;

	if (!irq_on)
		return 0;
	sq = bpf_map_lookup_elem(&lat_sirq, &zero);
	return sq && sq->in_rx ? sq->delay : 0;
}

static long napi_one(__u32 k, struct napi_ctx *c)
{
	__u32 i = c->first + k, done;
	struct lat_slot *s;

	if (k >= c->n || i >= LAT_MAX_SLOTS)
		return 1;
	s = slot_ptr(i);
	done = complete(i, s, &c->now);
	hot_inc(s, LAT_HOT_POLLS);
	if (done) {
		__u64 delay = irq_delay();

		hot_inc(s, LAT_HOT_POLLS_DONE);
		hist_add(i, LAT_H_CPP, done);
		if (delay)
			hist_add(i, LAT_H_IRQ, delay);
	}
	/* a stop begins at a transmit; a poll sees it end */
	if (READ_ONCE(s->stopped))
		see_state(i, s, &c->now);
	return 0;
}

SEC("tp_btf/napi_poll")
int BPF_PROG(lat_napi, struct napi_struct *napi, int work, int budget)
{
	int d = dev_find((__u64)napi->dev);
	struct napi_ctx c;

	if (d < 0 || d >= LAT_MAX_SLOTS)
		return 0;
	c.first = devs[d].first;
	c.n = devs[d].n;
	c.now = 0;
	if (c.n == 1)
		napi_one(0, &c);
	else
		bpf_loop(LAT_MAX_SLOTS, napi_one, &c, 0);
	return 0;
}

SEC("tp_btf/softirq_raise")
int BPF_PROG(lat_raise, unsigned int vec)
{
	__u32 zero = 0;
	struct sirq *sq;

	if (vec != NET_RX_SOFTIRQ)
		return 0;
	sq = bpf_map_lookup_elem(&lat_sirq, &zero);
	if (sq && !sq->raise_t)
		sq->raise_t = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(lat_sentry, unsigned int vec)
{
	__u32 zero = 0;
	struct sirq *sq;
	struct lat_hist *h;
	__u64 now;

	if (vec != NET_RX_SOFTIRQ)
		return 0;
	sq = bpf_map_lookup_elem(&lat_sirq, &zero);
	if (!sq)
		return 0;
	if (!sq->raise_t) {
		sq->in_rx = 0;
		return 0;
	}
	now = bpf_ktime_get_ns();
	sq->delay = now > sq->raise_t ? now - sq->raise_t : 0;
	sq->raise_t = 0;
	sq->in_rx = 1;
	h = bpf_map_lookup_elem(&lat_cpu_irq, &zero);
	if (h)
		lat_hist_add(h, sq->delay);
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(lat_sexit, unsigned int vec)
{
	__u32 zero = 0;
	struct sirq *sq;

	if (vec != NET_RX_SOFTIRQ)
		return 0;
	sq = bpf_map_lookup_elem(&lat_sirq, &zero);
	if (sq)
		sq->in_rx = 0;
	return 0;
}

/* ------------------------------------------------------------ drops */

SEC("tp_btf/kfree_skb")
int BPF_PROG(lat_drop, struct sk_buff *skb, void *location, enum skb_drop_reason reason,
	     struct sock *sk)
{
	__u64 key = (__u64)skb;
	struct enq_val *v = bpf_map_lookup_elem(&lat_enq_ts, &key);
	__u32 r = reason < LAT_NREASONS ? (__u32)reason : LAT_NREASONS - 1, k;
	bool qd = (qreasons[(r / 64) & (LAT_NREASONS / 64 - 1)] >> (r % 64)) & 1;
	int i;

	if (v) {
		i = (int)v->slot;
		bpf_map_delete_elem(&lat_enq_ts, &key);
		cnt_inc((__u32)i, LAT_C_DROP_QUEUED);
	} else {
		if (!qd)
			return 0;
		i = slot_of_dev((__u64)skb->dev, skb->queue_mapping);
		if (i < 0)
			return 0;
	}
	if (i < 0 || i >= LAT_MAX_SLOTS)
		return 0;
	cnt_inc((__u32)i, LAT_C_DROP);
	k = (__u32)i * LAT_NREASONS + r;
	__u64 *c = bpf_map_lookup_elem(&lat_drops, &k);
	if (c)
		(*c)++;
	return 0;
}

/* ------------------------------------------------------------ stalls, timeouts */

static __always_inline void event(__u32 kind, __u64 txq, struct lat_event *e)
{
	struct net_device *dev;
	struct dql *dql;
	struct Qdisc *q;
	__u64 tx;
	__u32 ntx;

	e->t_ns = bpf_ktime_get_ns();
	e->kind = kind;
	dev = BPF_CORE_READ((struct netdev_queue *)txq, dev);
	e->slot = slot_of_txq((__u64)dev, txq);
	if (e->slot >= 0)
		cnt_inc((__u32)e->slot, kind == LAT_EV_STALL ? LAT_C_STALLS : LAT_C_TIMEOUTS);
	tx = (__u64)BPF_CORE_READ(dev, _tx);
	ntx = BPF_CORE_READ(dev, num_tx_queues);
	e->queue = lat_txq_index(txq, tx, bpf_core_type_size(struct netdev_queue), ntx);
	e->ifindex = BPF_CORE_READ(dev, ifindex);
	BPF_CORE_READ_STR_INTO(&e->ifname, dev, name);
	e->state = rd64(txq + TXQ_OFF(state));
	dql = (struct dql *)(txq + TXQ_OFF(dql));
	e->limit = BPF_CORE_READ(dql, limit);
	e->num_queued = BPF_CORE_READ(dql, num_queued);
	e->num_completed = BPF_CORE_READ(dql, num_completed);
	q = BPF_CORE_READ((struct netdev_queue *)txq, qdisc);
	e->qlen = q ? BPF_CORE_READ(q, q.qlen) : 0;
	e->backlog = q ? BPF_CORE_READ(q, qstats.backlog) : 0;
}

SEC("tp_btf/dql_stall_detected")
int BPF_PROG(lat_stall, unsigned short thrs, unsigned int len, unsigned long last_reap,
	     unsigned long hist_head, unsigned long now, unsigned long *hist)
{
	__u64 txq = lat_stall_txq((__u64)hist, DQL_OFF(history), TXQ_OFF(dql));
	struct lat_event *e;

	if (!txq)
		return 0;
	e = bpf_ringbuf_reserve(&lat_ev, sizeof(*e), 0);
	if (!e)
		return 0;
	__builtin_memset(e, 0, sizeof(*e));
	e->thrs = thrs;
	e->len = len;
	e->last_reap = last_reap;
	e->hist_head = hist_head;
	e->now = now;
	event(LAT_EV_STALL, txq, e);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/net_dev_xmit_timeout")
int BPF_PROG(lat_timeout, struct net_device *dev, int queue_index)
{
	__u64 txq = (__u64)BPF_CORE_READ(dev, _tx) +
		    (__u64)queue_index * bpf_core_type_size(struct netdev_queue);
	struct lat_event *e = bpf_ringbuf_reserve(&lat_ev, sizeof(*e), 0);

	if (!e)
		return 0;
	__builtin_memset(e, 0, sizeof(*e));
	event(LAT_EV_TIMEOUT, txq, e);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* ------------------------------------------------------------ device walk */

struct walk {
	__u64 head, pos;
};

static long walk_one(__u32 idx, struct walk *w)
{
	struct net_device *dev;
	struct list_head *lh;
	int ifindex;

	if (!w->pos || w->pos == w->head)
		return 1;
	dev = (void *)(w->pos - bpf_core_field_offset(struct net_device, dev_list));
	ifindex = BPF_CORE_READ(dev, ifindex);
	for (int k = 0; k < LAT_MAX_SLOTS; k++) {
		struct lat_find *f = &finds[k];
		__u64 txq;

		if (!f->ifindex || f->ifindex != ifindex)
			continue;
		f->found_dev = 1;
		f->real_num_tx = BPF_CORE_READ(dev, real_num_tx_queues);
		BPF_CORE_READ_STR_INTO(&f->name, dev, name);
		if (f->queue >= f->real_num_tx)
			continue;
		txq = (__u64)BPF_CORE_READ(dev, _tx) +
		      f->queue * bpf_core_type_size(struct netdev_queue);
		f->txq = txq;
		f->dql = txq + TXQ_OFF(dql);
		f->dev = (__u64)dev;
	}
	lh = (struct list_head *)w->pos;
	w->pos = (__u64)BPF_CORE_READ(lh, next);
	return 0;
}

/*
 * Run once by user space with BPF_PROG_TEST_RUN (never attached): walks the
 * caller's network namespace and answers finds[].
 */
SEC("raw_tp")
int lat_find(void *ctx)
{
	struct task_struct *t = (void *)bpf_get_current_task();
	struct net *net = BPF_CORE_READ(t, nsproxy, net_ns);
	struct walk w;

	if (!net)
		return 0;
	w.head = (__u64)net + bpf_core_field_offset(struct net, dev_base_head);
	w.pos = (__u64)BPF_CORE_READ(net, dev_base_head.next);
	bpf_loop(MAX_DEVS, walk_one, &w, 0);
	return 0;
}
