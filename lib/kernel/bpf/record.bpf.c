// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool record, kernel side: BQL state of selected TX queues put on one
 * ring buffer (global order). Three backends share the event format:
 * - tracepoints: the queue's struct dql observed where drivers call
 *   dql_queued()/dql_completed() in between (net_dev_start_xmit and
 *   net_dev_xmit around the driver's xmit, napi_poll after each poll); a
 *   state that changed since the last observation is sent whole, and user
 *   space (lib/kernel/recwriter.c) works out the call that explains it;
 * - fentry/fexit on dql_completed/dql_reset;
 * - hardware write watchpoints (perf breakpoint events) on the struct dql
 *   fields that dql_completed() and dql_queued() store last, checked under
 *   the TX lock at net_dev_start_xmit.
 * Every struct offset comes from CO-RE.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "lib/kernel/bpf/record.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * The reader polls every 100 ms and is woken past RB_WAKE (a wake-up per
 * record costs microseconds in a VM); a record lost to a full ring is
 * counted, and the next state sent repairs it (a re-seed).
 */
#define RB_SIZE		(1024u << 10)
#define RB_WAKE		(256u << 10)	/* wake user space past this backlog */
#define MAX_DEVS	4096		/* device-list walk bound */
#define DQL_BUF		256		/* >= sizeof(struct dql) */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, RB_SIZE);
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, REC_ST_NR);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* set by user space before attaching */
struct rec_slot slots[REC_MAX_SLOTS];
rec_u32 nslots;
rec_u32 tp_queued;			/* tracepoints: num_queued changes are events too */
rec_u32 lc_adjacent;			/* tracepoints: num_completed right after limit */
struct rec_dev devs[REC_MAX_SLOTS];	/* tracepoints: the devices of slots[] */
rec_u32 ndevs;
rec_u64 completed_lo, completed_hi;	/* [start, end) of dql_completed, 0 = unknown */
rec_u64 reset_lo, reset_hi;		/* the same for dql_reset */
struct rec_find finds[REC_MAX_SLOTS];	/* find_dql() request and answer */

static __always_inline void stat_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v)
		(*v)++;
}

static __always_inline void submit(struct rec_event *e)
{
	__u64 fl = bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) > RB_WAKE ?
		   BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;

	bpf_ringbuf_submit(e, fl);
}

/* ------------------------------------------------------------ struct dql */

#define OFF(f)		bpf_core_field_offset(struct dql, f)
#define D32(b, f)	(*(__u32 *)((b) + OFF(f)))
#define D16(b, f)	(*(__u16 *)((b) + OFF(f)))
#define D64(b, f)	(*(__u64 *)((b) + OFF(f)))

/* One probe read of the whole struct; fields are then taken at CO-RE offsets. */
static __always_inline int dql_read(char *buf, __u64 addr)
{
	__u32 sz = bpf_core_type_size(struct dql);

	if (sz > DQL_BUF)
		return -1;
	return bpf_probe_read_kernel(buf, sz, (const void *)addr);
}

static __always_inline void snap_fill(struct rec_snap *s, const char *b)
{
	s->num_queued = D32(b, num_queued);
	s->adj_limit = D32(b, adj_limit);
	s->last_obj_cnt = D32(b, last_obj_cnt);
	s->limit = D32(b, limit);
	s->num_completed = D32(b, num_completed);
	s->prev_ovlimit = D32(b, prev_ovlimit);
	s->prev_num_queued = D32(b, prev_num_queued);
	s->prev_last_obj_cnt = D32(b, prev_last_obj_cnt);
	s->lowest_slack = D32(b, lowest_slack);
	s->max_limit = D32(b, max_limit);
	s->min_limit = D32(b, min_limit);
	s->slack_hold_time = D32(b, slack_hold_time);
	s->stall_thrs = D16(b, stall_thrs);
	s->stall_max = D16(b, stall_max);
	s->pad = 0;
	s->slack_start_time = D64(b, slack_start_time);
	s->history_head = D64(b, history_head);
	s->last_reap = D64(b, last_reap);
	s->stall_cnt = D64(b, stall_cnt);
	for (int i = 0; i < 4; i++)
		s->history[i] = *(__u64 *)(b + OFF(history) + i * 8);
}

static __always_inline struct rec_event *ev_new(__u32 kind, __u32 slot, __u64 ip)
{
	struct rec_event *e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);

	if (!e) {
		stat_inc(REC_ST_DROP);
		return NULL;
	}
	e->t_ns = bpf_ktime_get_ns();
	e->jiffies = bpf_jiffies64();
	e->ip = ip;
	e->kind = kind;
	e->slot = slot;
	return e;
}

static __always_inline void remember(struct rec_slot *s, const struct rec_snap *n)
{
	s->last_nc = n->num_completed;
	s->last_limit = n->limit;
	s->last_min = n->min_limit;
	s->last_max = n->max_limit;
	s->last_hold = n->slack_hold_time;
}

/* dql_completed() has returned (its last store trapped, or fexit) */
static __always_inline void on_completed(__u32 i, struct rec_slot *s, __u64 ip,
					 char *buf)
{
	struct rec_event *e;

	stat_inc(REC_ST_TRAP_C);
	if (dql_read(buf, s->dql))
		return;
	/* on a drop last_nc stays behind: the next checkpoint re-seeds */
	e = ev_new(REC_EV_C, i, ip);
	if (!e)
		return;
	snap_fill(&e->s, buf);
	remember(s, &e->s);
	if (!s->armed)
		s->last_nq = e->s.num_queued;
	s->armed = 1;
	submit(e);
}

static __always_inline void on_reset(__u32 i, struct rec_slot *s, __u64 ip)
{
	struct rec_event *e = ev_new(REC_EV_RESET, i, ip);

	s->resync = 1;	/* the checkpoint after sends the whole reset state */
	s->last_nc = 0;
	s->last_nq = 0;
	if (!e)
		return;
	__builtin_memset(&e->s, 0, sizeof(e->s));
	submit(e);
}

/*
 * Compare the live state with what the last events said; under the TX lock
 * (or at fentry) no dql_completed/dql_queued runs, so any difference is a
 * lost event or a settings write, and the state read is exact.
 */
static __always_inline void do_check(__u32 i, struct rec_slot *s, char *buf)
{
	struct rec_event *e;
	bool moved_c, moved_q, set;

	if (!s->armed)
		return;
	stat_inc(REC_ST_CHECKPOINT);
	if (dql_read(buf, s->dql))
		return;
	moved_c = D32(buf, num_completed) != s->last_nc;
	moved_q = s->queued && D32(buf, num_queued) != s->last_nq;
	set = D32(buf, limit) != s->last_limit || D32(buf, min_limit) != s->last_min ||
	      D32(buf, max_limit) != s->last_max ||
	      D32(buf, slack_hold_time) != s->last_hold;
	if (!moved_c && !moved_q && !set && !s->resync)
		return;
	if (moved_c)
		stat_inc(REC_ST_MISSED_C);
	if (moved_q)
		stat_inc(REC_ST_MISSED_Q);
	e = ev_new(REC_EV_CHECK, i, 0);
	if (!e)
		return;		/* state unchanged: retried at the next one */
	snap_fill(&e->s, buf);
	remember(s, &e->s);
	s->last_nq = e->s.num_queued;
	s->resync = 0;
	submit(e);
}

static __always_inline int slot_of(__u64 dql)
{
	for (int i = 0; i < REC_MAX_SLOTS; i++) {
		if (i >= nslots)
			break;
		if (slots[i].dql == dql)
			return i;
	}
	return -1;
}

static __always_inline bool in(__u64 ip, __u64 lo, __u64 hi)
{
	return lo && ip >= lo && ip < hi;
}

/* ------------------------------------------------------------ watchpoints */

SEC("perf_event")
int rec_trap(struct bpf_perf_event_data *ctx)
{
	__u64 addr = ctx->addr, ip = PT_REGS_IP(&ctx->regs);
	char buf[DQL_BUF] __attribute__((aligned(8)));

	for (int i = 0; i < REC_MAX_SLOTS; i++) {
		struct rec_slot *s = &slots[i];
		struct rec_event *e;

		if (i >= nslots)
			break;
		if (addr == s->dql + OFF(prev_num_queued)) {
			if (in(ip, reset_lo, reset_hi))
				on_reset(i, s, ip);
			else if (!completed_lo || in(ip, completed_lo, completed_hi))
				on_completed(i, s, ip, buf);
			else {
				stat_inc(REC_ST_TRAP_OTHER);
				s->resync = 1;
			}
			return 0;
		}
		if (addr == s->dql + OFF(num_queued)) {
			stat_inc(REC_ST_TRAP_Q);
			if (in(ip, reset_lo, reset_hi) || !s->armed)
				return 0;
			if (dql_read(buf, s->dql))
				return 0;
			e = ev_new(REC_EV_Q, i, ip);
			if (!e)
				return 0;	/* the checkpoint finds it */
			snap_fill(&e->s, buf);
			s->last_nq = e->s.num_queued;
			submit(e);
			return 0;
		}
		if (addr == s->dql + OFF(limit)) {
			if (in(ip, completed_lo, completed_hi) || in(ip, reset_lo, reset_hi))
				return 0;
			stat_inc(REC_ST_TRAP_LIMIT);
			if (!s->armed || dql_read(buf, s->dql))
				return 0;
			e = ev_new(REC_EV_LIMIT, i, ip);
			if (!e)
				return 0;
			snap_fill(&e->s, buf);
			s->last_limit = e->s.limit;
			submit(e);
			return 0;
		}
	}
	return 0;
}

/* the in-lock checkpoint: net_dev_start_xmit runs with the TX queue locked */
SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(rec_xmit, const struct sk_buff *skb, const struct net_device *dev)
{
	__u64 q = BPF_CORE_READ(skb, queue_mapping);
	__u64 dql = (__u64)BPF_CORE_READ(dev, _tx) +
		    q * bpf_core_type_size(struct netdev_queue) +
		    bpf_core_field_offset(struct netdev_queue, dql);
	char buf[DQL_BUF] __attribute__((aligned(8)));
	int i = slot_of(dql);

	if (i >= 0 && i < REC_MAX_SLOTS)
		do_check(i, &slots[i], buf);
	return 0;
}

/* ------------------------------------------------------------ tracepoints */

/*
 * The queues a CPU is transmitting on, innermost last: net_dev_start_xmit
 * pushes the slot (or -1), net_dev_xmit pops it. The two fire on the same
 * CPU around one ndo_start_xmit with bottom halves off, so the pair always
 * matches; the skb may already be freed at net_dev_xmit, so it is not read
 * there. A stacked device transmits from inside its own xmit: nested.
 */
struct xmit_stack {
	__u32 depth;
	__s32 slot[REC_XMIT_DEPTH];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xmit_stack);
} xstack SEC(".maps");

/* the whole struct dql is read here, not on the programs' small stack */
struct dql_buf {
	char b[DQL_BUF];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dql_buf);
} scratch SEC(".maps");

/*
 * One observation of slot @i. The test is one small read: limit and
 * num_completed (and num_queued with --queued), what only a completion, a
 * reset or a limit write moves. Settings (limit_min, limit_max, hold_time,
 * stall_thrs) act on the limit only at the next completion, so they are
 * sent with it. If something moved, reserve a ring-buffer record, read
 * the whole struct dql into it (after the reservation, so that records
 * are in the order of their reads, also across CPUs) and send it with the
 * jiffies taken before the previous observation's read: the completion it
 * shows ran in between.
 */
static __always_inline void observe(__u32 i, __u32 where)
{
	__u32 zero = 0;
	char *buf = bpf_map_lookup_elem(&scratch, &zero);
	struct rec_slot *s;
	struct rec_event *e;
	__u64 k = i, j0, lc;
	__u32 nq = 0;

	if (i >= REC_MAX_SLOTS || !buf)
		return;
	/*
	 * The compiler drops a bound test (or mask) where it can prove i < 64;
	 * the verifier cannot: a mask it cannot see through.
	 */
	asm volatile("%[k] &= %[m]" : [k] "+r"(k) : [m] "i"(REC_MAX_SLOTS - 1));
	i = (__u32)k;
	s = &slots[k];
	j0 = bpf_jiffies64();
	stat_inc(REC_ST_OBS);
	if (lc_adjacent) {
		if (bpf_probe_read_kernel(&lc, sizeof(lc), (const void *)(s->dql + OFF(limit))))
			return;
	} else {
		__u32 l = 0, c = 0;

		bpf_probe_read_kernel(&l, sizeof(l), (const void *)(s->dql + OFF(limit)));
		bpf_probe_read_kernel(&c, sizeof(c), (const void *)(s->dql + OFF(num_completed)));
		lc = (__u64)l | (__u64)c << 32;
	}
	if (tp_queued)
		bpf_probe_read_kernel(&nq, sizeof(nq), (const void *)(s->dql + OFF(num_queued)));
	if (s->armed && (__u32)lc == s->last_limit && (__u32)(lc >> 32) == s->last_nc &&
	    (!tp_queued || nq == s->last_nq)) {
		/* written only when it moved: the slot stays shared between CPUs */
		if (s->last_j != j0)
			s->last_j = j0;
		return;
	}
	stat_inc(REC_ST_OBS_CHANGED);
	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e) {
		/* last_* stay behind: the next observation sends the state */
		stat_inc(REC_ST_DROP);
		return;
	}
	if (dql_read(buf, s->dql)) {
		bpf_ringbuf_discard(e, BPF_RB_NO_WAKEUP);
		return;
	}
	snap_fill(&e->s, buf);
	e->t_ns = bpf_ktime_get_ns();
	e->jiffies = bpf_jiffies64();
	e->ip = 0;
	e->kind = REC_EV_OBS;
	e->slot = i;
	e->j_prev = s->armed ? s->last_j : 0;
	e->where = where;
	e->cpu = bpf_get_smp_processor_id();
	remember(s, &e->s);
	s->last_nq = e->s.num_queued;
	s->last_j = j0;
	s->armed = 1;
	submit(e);
}

/* the slot of queue @q of device @dev, or -1 */
static __always_inline int tp_slot(__u64 dev, __u32 q)
{
	for (int d = 0; d < REC_MAX_SLOTS; d++) {
		if (d >= ndevs)
			break;
		if (devs[d].dev != dev)
			continue;
		for (int k = 0; k < REC_MAX_SLOTS; k++) {
			__u32 i = devs[d].first + k;

			if (k >= devs[d].n || i >= REC_MAX_SLOTS)
				break;
			if (slots[i].queue == q)
				return (int)i;
		}
		return -1;
	}
	return -1;
}

SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(rec_tp_start, const struct sk_buff *skb, const struct net_device *dev)
{
	struct xmit_stack *xs;
	__u32 zero = 0;
	int i;

	xs = bpf_map_lookup_elem(&xstack, &zero);
	if (!xs)
		return 0;
	i = tp_slot((__u64)dev, skb->queue_mapping);
	if (xs->depth < REC_XMIT_DEPTH)
		xs->slot[xs->depth & (REC_XMIT_DEPTH - 1)] = i;
	xs->depth++;
	if (i >= 0)
		observe((__u32)i, REC_AT_START_XMIT);
	return 0;
}

SEC("tp_btf/net_dev_xmit")
int BPF_PROG(rec_tp_xmit, struct sk_buff *skb, int rc, struct net_device *dev,
	     unsigned int skb_len)
{
	struct xmit_stack *xs;
	__u32 zero = 0;
	int i;

	xs = bpf_map_lookup_elem(&xstack, &zero);
	/* depth 0: the start_xmit came before we were attached */
	if (!xs || !xs->depth)
		return 0;
	xs->depth--;
	if (xs->depth >= REC_XMIT_DEPTH)
		return 0;
	i = xs->slot[xs->depth & (REC_XMIT_DEPTH - 1)];
	if (i >= 0)
		observe((__u32)i, REC_AT_XMIT);
	return 0;
}

struct napi_walk {
	__u32 first, n;
};

static long napi_one(__u32 k, struct napi_walk *w)
{
	if (k >= w->n)
		return 1;
	observe(w->first + k, REC_AT_NAPI);
	return 0;
}

/* after each NAPI poll of a recorded device: every recorded queue of it */
SEC("tp_btf/napi_poll")
int BPF_PROG(rec_tp_napi, struct napi_struct *napi, int work, int budget)
{
	__u64 dev = (__u64)napi->dev;

	for (int d = 0; d < REC_MAX_SLOTS; d++) {
		struct napi_walk w;

		if (d >= ndevs)
			break;
		if (devs[d].dev != dev)
			continue;
		/* one queue (the usual single-queue device) without the loop's call */
		if (devs[d].n == 1) {
			observe(devs[d].first, REC_AT_NAPI);
			break;
		}
		w.first = devs[d].first;
		w.n = devs[d].n;
		bpf_loop(REC_MAX_SLOTS, napi_one, &w, 0);
		break;
	}
	return 0;
}

/* ------------------------------------------------------------ fentry backend */

SEC("fexit/dql_completed")
int BPF_PROG(rec_fexit_completed, struct dql *dql, unsigned int count)
{
	char buf[DQL_BUF] __attribute__((aligned(8)));
	int i = slot_of((__u64)dql);

	if (i >= 0 && i < REC_MAX_SLOTS)
		on_completed(i, &slots[i], 0, buf);
	return 0;
}

/* settings or limit written between calls are seen on entry */
SEC("fentry/dql_completed")
int BPF_PROG(rec_fentry_completed, struct dql *dql, unsigned int count)
{
	char buf[DQL_BUF] __attribute__((aligned(8)));
	int i = slot_of((__u64)dql);

	if (i >= 0 && i < REC_MAX_SLOTS)
		do_check(i, &slots[i], buf);
	return 0;
}

SEC("fexit/dql_reset")
int BPF_PROG(rec_fexit_reset, struct dql *dql)
{
	int i = slot_of((__u64)dql);

	if (i >= 0 && i < REC_MAX_SLOTS)
		on_reset(i, &slots[i], 0);
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
	for (int k = 0; k < REC_MAX_SLOTS; k++) {
		struct rec_find *f = &finds[k];
		__u64 dql;

		if (!f->ifindex || f->ifindex != ifindex)
			continue;
		f->found_dev = 1;
		f->real_num_tx = BPF_CORE_READ(dev, real_num_tx_queues);
		BPF_CORE_READ_STR_INTO(&f->name, dev, name);
		if (f->queue >= f->real_num_tx)
			continue;
		dql = (__u64)BPF_CORE_READ(dev, _tx) +
		      f->queue * bpf_core_type_size(struct netdev_queue) +
		      bpf_core_field_offset(struct netdev_queue, dql);
		f->dql = dql;
		f->addr_c = dql + OFF(prev_num_queued);
		f->addr_q = dql + OFF(num_queued);
		f->addr_limit = dql + OFF(limit);
		f->dev = (__u64)dev;
	}
	lh = (struct list_head *)w->pos;
	w->pos = (__u64)BPF_CORE_READ(lh, next);
	return 0;
}

/*
 * Run once by user space with BPF_PROG_TEST_RUN (never attached): walks the
 * caller's network namespace (current->nsproxy->net_ns) and answers finds[].
 */
SEC("raw_tp")
int find_dql(void *ctx)
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
