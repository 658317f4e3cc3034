// SPDX-License-Identifier: GPL-2.0-only
/*
 * The closed-loop NIC model behind `bqltool sim` and `bqltool tune`: an
 * event loop over a handful of sources (settings changes, the link, one
 * interrupt/NAPI state per queue, one arrival process for the Poisson
 * flows together and one per CBR or on/off flow) that calls the DQL
 * engine as a driver does. Events are taken in time order, but for the
 * Poisson arrivals that commute with the events due before them, which
 * are taken ahead of those (parr_ahead()): the same results. See sim.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "sim.h"
#include "sim_rng.h"
#include "dql_util.h"		/* last: poisons the I/O functions */

#define NS_PER_SEC	1000000000ull
/* the per-packet path, inlined into the event loop: no calls */
#define HOT		static inline __attribute__((always_inline))
#define T_NEVER		UINT64_MAX
#define PROGRESS_NS	1000000ull	/* simulated ns between progress calls */

/* ------------------------------------------------------------ state */

struct pkt {
	uint64_t t;		/* when it entered the qdisc / the ring */
	uint32_t bytes;		/* skb->len, what DQL counts */
	uint32_t wire;		/* byte-times on the wire */
};

/* why a queue is stopped (squeue's xoff): one test for both */
#define XOFF_STACK	1u		/* __QUEUE_STATE_STACK_XOFF: DQL's limit */
#define XOFF_DRV	2u		/* __QUEUE_STATE_DRV_XOFF: the ring is full */

enum napi_state {
	NAPI_IDLE,		/* interrupt enabled, nothing pending */
	NAPI_ARMED,		/* coalescing timer running */
	NAPI_POLL,		/* interrupt raised, poll scheduled */
};

/*
 * A flow: what each of its packets reads (the first 48 bytes) in one
 * cache line, the flows a few lines apart (64 bulk flows take turns)
 */
struct flow {
	struct sim_size size;	/* f->size: what an arrival reads first */
	unsigned int q;
	uint32_t wire_fixed;	/* FIXED, TSO: the wire bytes of every packet */
	const struct sim_flow *f;
	struct sim_rng rng;
	uint64_t rem;		/* CBR: ns fraction carried, times rate */
	uint64_t on_end;	/* ONOFF: end of the current on period */
	uint64_t period;	/* ONOFF: start of the current period */
} __attribute__((aligned(64)));

/*
 * The Poisson flows, superposed: one Poisson process of the summed packet
 * rate, each arrival a flow's with probability its share of the rate (a
 * Walker alias table: a slot uniform, then the slot's flow or its alias).
 * One source instead of one per flow, and off the winner tree.
 */
struct parr {
	unsigned int n;			/* Poisson flows, alias slots */
	uint64_t thr[SIM_MAX_FLOWS];	/* keep the slot's flow below, of 2^32 */
	unsigned char own[SIM_MAX_FLOWS], alias[SIM_MAX_FLOWS];
	unsigned char fq[SIM_MAX_FLOWS];	/* flow i's queue */
	bool imix;			/* every Poisson flow's sizes are IMIX */
	double gap_mean;		/* ns, at the summed rate */
	double frac;			/* ns fraction carried */
	struct sim_rng rng;
	/* the next arrival (at tm[SRC_PARR]), drawn ahead: parr_draw() */
	unsigned int nq;		/* its queue */
	uint32_t nbytes, nwire;
};

struct qcnt {
	/* sent (packets, bytes, wire): the queued less the ring's, at the end */
	uint64_t packets_queued, bytes_queued, wire_queued, bytes_completed;
	uint64_t completions, stops, ring_stops, drops, starved_ns;
	uint32_t limit_min, limit_max;
};

/* a histogram's n, max and sum (struct sim_hist's), apart from its buckets */
struct hhead {
	uint64_t n, max, sum;
};

static inline void hput(struct hhead *h, uint64_t *b, uint64_t v)
{
	sim_hist_count(&h->n, &h->max, &h->sum, b, v);
}

struct squeue {
	/* the transmit path: what every packet touches, first */
	uint32_t qd_cap, qd_head, qd_cnt;	/* qdisc: a FIFO of qd_cap slots */
	/* ring: counters run freely, slot = counter & ring_mask */
	uint32_t ring_mask, ring_size, wake;	/* ring_size, wake: descriptors */
	uint32_t r_reap, r_tx, r_tail;	/* packets: reap <= tx <= tail */
	uint32_t desc;			/* descriptors in use (reap .. tail) */
	uint32_t desc_need;		/* the most one packet of this queue takes */
	uint8_t xoff;			/* XOFF_*: the queue does not run */
	bool starving;
	uint8_t napi;			/* enum napi_state */
	bool timed;			/* a CBR or on/off flow sends here */
	uint32_t pending;		/* completed since the interrupt was enabled */
	uint32_t done_bytes;		/* reap .. tx: sent, not reaped (mod 2^32) */
	struct pkt *qd, *ring;
	/*
	 * Counted here, in the few cache lines an event touches, and given
	 * to sim_qstats (s->qst, which only the buckets of the delay
	 * histograms are in during the run) by sim_finish().
	 */
	uint64_t *b_ring, *b_qdisc;	/* s->qst[i]'s buckets */
	struct hhead h_ring, h_qdisc;
	struct qcnt c;
	uint64_t starve_since;
	struct dql d;
	/* limit series, as replay computes it */
	uint64_t t_first, t_prev;
	uint32_t l_prev;
	unsigned __int128 wsum, lsum;
	/* backlogged flows, taken in turn */
	unsigned int nbulk, bulk_rr;
	unsigned char bulk[SIM_MAX_FLOWS];
	struct sim_rng rng;		/* interrupt jitter */
};

/*
 * IMIX: 60, 590 and 1514 bytes in 7:4:1, a lookup of a uniform index (not
 * branches: which size comes is not predictable); sim's imix_wire[] holds
 * their wire bytes at the same index (imix_pick())
 */
#define IMIX_N	12
static const uint16_t imix_size[IMIX_N] = {
	60, 60, 60, 60, 60, 60, 60, 590, 590, 590, 590, 1514
};

struct sim {
	struct sim_config cfg;
	const struct sim_ops *ops;
	bool rec;			/* ops->record is set */
	bool arrivals;			/* a flow is not backlogged (bulk) */
	void *arg;
	uint64_t now;
	/* jiffies cache: jiffies of [.., j_next) is j */
	uint64_t j, j_next;
	/*
	 * event sources: 0 settings, 1 link, 2 the Poisson flows, 3.. the
	 * queues, then the CBR and on/off flows (bulk flows have no events)
	 */
	unsigned int nsrc, tsize;	/* the winner tree: tsize leaves */
	/*
	 * The link or the Poisson flows go first, past ev_next(), at a time
	 * below lim: the root's time + 1, the settings' time, the end of
	 * the run and the next progress call, whichever is first (lim_set)
	 */
	uint64_t lim;
	uint64_t lim_end;		/* min(end, settings' time, next progress call) */
	uint64_t dmin;			/* a completion's earliest event on the tree: ns */
	bool ahead;			/* parr_ahead() runs (sim_set_ahead()) */
	uint64_t nahead;		/* arrivals it took */
	uint64_t prog;			/* the next progress call */
	unsigned int tdepth;		/* log2(tsize): the levels above the leaves */
	uint64_t *nt;
	/*
	 * The polls, in a FIFO apart from the tree where they come in the
	 * order they are set (q_ev_set()): keys, pf_mask + 1 slots
	 */
	uint64_t *pf;
	unsigned int pf_head, pf_n, pf_mask;
	uint64_t pf_key;		/* the head's key, KEY_NEVER if empty */
	uint64_t pf_tail;		/* the last key in (kept: a load fewer a push) */
	bool pf_want, pf_on;		/* sim_set_poll_fifo(); and the model allows it */
	uint64_t npf;			/* polls that went into the FIFO */
	uint64_t qroot;			/* the lesser of the tree's root and pf_key */
	uint64_t *tm;
	unsigned char *srcflow;		/* source id - SRC_FLOW0: its flow */
	struct parr pa;
	unsigned int at_next;
	/* link */
	bool busy;
	unsigned int cur_q, rr;
	uint32_t cur_bytes;		/* the packet on the wire's */
	uint64_t ready;			/* bit q: queue q's ring has a packet to send */
	uint64_t wire_rem;		/* ns fraction carried, times link_bps */
	struct wtime wire;		/* per-size times on the link */
	uint32_t frag;			/* bytes per descriptor */
	uint32_t frame_min, frame_over;	/* framing: SIM_FRAME_*, or 0 */
	uint32_t imix_wire[IMIX_N];	/* imix_size[]'s wire bytes */
	uint32_t frames_max;		/* --coalesce-frames, 0: never */
	unsigned int nonempty;		/* queues whose qdisc has packets */
	bool link_starving;
	uint64_t link_starve_since, link_starved;
	struct squeue *q;
	struct pkt *slots;		/* the queues' rings and qdiscs */
	struct sim_qstats *qst;		/* per queue: see struct squeue */
	struct flow *fl;
	struct wtime *fwt;		/* CBR flow i's per-size times at its rate */
	struct sim_hist tot_ring, tot_qdisc;
	struct zig zig;
};

#define SRC_AT		0u
#define SRC_LINK	1u
#define SRC_PARR	2u
#define SRC_EXT		3u		/* the sources off the tree: 0..2 */
#define SRC_Q(i)	(SRC_EXT + (i))
#define SRC_FLOW0(s)	(SRC_EXT + (s)->cfg.nqueues)

/* ------------------------------------------------------------ events */

/* the least power of two >= @n (n <= 2^31) */
static uint32_t pow2_up(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/*
 * The next event: a winner (tournament) tree over the sources. A node
 * holds the least key of its subtree; a source's key is its time and its
 * id in one word, (t << 8) | id, so that the least key is the earliest
 * event and, of those at the same time, the lowest id; times from 2^56
 * ns (two years, past any run: SIM_DURATION_MAX) are KEY_NEVER. The
 * leaves tsize.. are the sources (padded with KEY_NEVER); an update walks
 * one leaf-to-root path, a compare and a select a level. The busiest
 * sources, the link and the Poisson flows, and the settings stay out of
 * the tree: ev_next() compares their times with the root's. So do the
 * polls that come in the order they are set, in a FIFO (q_ev_set()):
 * qroot is the lesser key of the tree's root and the FIFO's head.
 */
#define KEY_NEVER	UINT64_MAX
#define KEY_T_MAX	(1ull << 56)
_Static_assert(SIM_DURATION_MAX < KEY_T_MAX, "a run's times fit a key");
_Static_assert(SRC_EXT + SIM_MAX_QUEUES + SIM_MAX_FLOWS <= 256, "an id fits a key");

/* the fast path's bound (struct sim's lim), from the next key (qroot) */
static inline void lim_set(struct sim *s, uint64_t root)
{
	/* KEY_NEVER's time + 1 is 2^56, past any end */
	uint64_t l = (root >> 8) + 1;

	s->lim = s->lim_end < l ? s->lim_end : l;
}

/* after the settings' time or the next progress call moved */
static void lim_end_set(struct sim *s)
{
	uint64_t l = s->cfg.duration_ns;

	l = s->prog < l ? s->prog : l;
	s->lim_end = s->tm[SRC_AT] < l ? s->tm[SRC_AT] : l;
	lim_set(s, s->qroot);
}

/* after the tree's root (@root) or the FIFO's head moved */
static inline void qroot_set(struct sim *s, uint64_t root)
{
	s->qroot = root < s->pf_key ? root : s->pf_key;
	lim_set(s, s->qroot);
}

/* source @id (on the tree) has its next event at @t */
HOT void tree_set(struct sim *s, unsigned int id, uint64_t t)
{
	uint64_t *nt = s->nt, key;
	size_t k;		/* a word: no zero-extension a level */

	s->tm[id] = t;
	key = t < KEY_T_MAX ? t << 8 | id : KEY_NEVER;
	k = (size_t)s->tsize + id - SRC_EXT;
	nt[k] = key;
	/*
	 * The least key so far stays in a register; only the siblings are
	 * loaded, and their addresses do not depend on the comparisons. The
	 * walk unrolled: the depth is the model's, the jump to it predicted.
	 */
#define EV_UP	do {						\
		uint64_t sk = nt[k ^ 1];			\
								\
		key = sk < key ? sk : key;			\
		k >>= 1;					\
		nt[k] = key;					\
	} while (0)
	_Static_assert(SIM_MAX_QUEUES + SIM_MAX_FLOWS <= 1 << 7, "a tree of 7 levels at most");
	switch (s->tdepth) {
	case 7:
		EV_UP;
		__attribute__((fallthrough));
	case 6:
		EV_UP;
		__attribute__((fallthrough));
	case 5:
		EV_UP;
		__attribute__((fallthrough));
	case 4:
		EV_UP;
		__attribute__((fallthrough));
	case 3:
		EV_UP;
		__attribute__((fallthrough));
	case 2:
		EV_UP;
		__attribute__((fallthrough));
	default:
		EV_UP;
	}
#undef EV_UP
	qroot_set(s, key);	/* key is the root's now */
}

/* source @id has its next event at @t */
static void ev_set(struct sim *s, unsigned int id, uint64_t t)
{
	if (id >= SRC_EXT) {
		tree_set(s, id, t);
		return;
	}
	s->tm[id] = t;
	if (id == SRC_AT)
		lim_end_set(s);
}

/*
 * Queue @qi's next event (a poll, or the coalescing timer) at @t. A poll
 * comes a fixed time after the completion that raises it, give or take
 * the jitter: the polls come mostly in the order they are set, and those
 * that do go into a FIFO, a few instructions, not two walks of the tree
 * for each poll. A key that would not keep the FIFO in order goes on the
 * tree: one the jitter set earlier than the last, a poll again at once
 * when the budget ran out, or one at the same time as the last with a
 * lower id (after a stall). The next event is the lesser of the tree's
 * root and the FIFO's head (qroot). A queue's event in the FIFO is
 * replaced only while it is handled, when it is the head: an interrupt
 * is raised only for a queue with no poll set. A coalescing timer that a
 * frame count replaces is not (pf_on is false where one is armed).
 */
static void q_ev_set(struct sim *s, unsigned int qi, uint64_t t)
{
	unsigned int id = SRC_Q(qi);
	uint64_t key = (t << 8) | id;

	if (s->pf_n && (s->pf_key & 0xff) == id) {
		/* its event, the head, is handled: out of the FIFO */
		s->pf_head = (s->pf_head + 1) & s->pf_mask;
		s->pf_key = --s->pf_n ? s->pf[s->pf_head] : KEY_NEVER;
		s->tm[id] = T_NEVER;
		qroot_set(s, s->nt[1]);
		if (t == T_NEVER)
			return;
	}
	if (s->pf_on && t < KEY_T_MAX && s->nt[s->tsize + id - SRC_EXT] == KEY_NEVER &&
	    (!s->pf_n || key > s->pf_tail)) {
		s->pf[(s->pf_head + s->pf_n++) & s->pf_mask] = key;
		s->pf_tail = key;
		s->npf++;
		s->tm[id] = t;
		if (s->pf_n == 1) {
			s->pf_key = key;
			qroot_set(s, s->nt[1]);
		}
		return;
	}
	tree_set(s, id, t);
}

static inline unsigned int ev_next(const struct sim *s)
{
	const uint64_t *tm = s->tm;
	uint64_t key = s->qroot;
	uint64_t best = key == KEY_NEVER ? T_NEVER : key >> 8;
	/* an empty tree's id is never returned: the settings win a tie */
	unsigned int id = (unsigned int)(key & 0xff);

	/* the tree's ids are all above SRC_EXT: a tie goes off the tree */
	_Static_assert(SRC_EXT == 3, "three sources off the tree");
	id = tm[SRC_PARR] <= best ? SRC_PARR : id;
	best = tm[SRC_PARR] <= best ? tm[SRC_PARR] : best;
	id = tm[SRC_LINK] <= best ? SRC_LINK : id;
	best = tm[SRC_LINK] <= best ? tm[SRC_LINK] : best;
	return tm[SRC_AT] <= best ? SRC_AT : id;
}

/* ------------------------------------------------------------ helpers */

static inline uint64_t jiffies_at(struct sim *s, uint64_t t)
{
	if (t >= s->j_next) {
		s->j = bqlt_ns_to_jiffies(t, s->cfg.hz);
		s->j_next = ((s->j + 1) * NS_PER_SEC + s->cfg.hz - 1) / s->cfg.hz;
	}
	return s->j;
}

/* a packet of any size kind but IMIX (pkt_draw(), on_parr()) */
static inline uint32_t size_draw(const struct sim_size *sz, struct sim_rng *r)
{
	switch (sz->kind) {
	case SIM_SIZE_UNIFORM:
		return sz->a + (uint32_t)rng_below(r, (uint64_t)sz->b - sz->a + 1);
	case SIM_SIZE_BIMODAL:
		return rng_unit(r) < sz->p ? sz->a : sz->b;
	case SIM_SIZE_FIXED:
	case SIM_SIZE_TSO:
	default:
		return sz->a;
	}
}

static void emit(struct sim *s, enum bqlt_kind kind, unsigned int qi,
		 uint32_t bytes, const struct sim_kv *kv)
{
	struct squeue *q = &s->q[qi];
	struct sim_rec r;

	r.kind = kind;
	r.queue = qi;
	r.t_ns = s->now;
	r.jiffies = jiffies_at(s, s->now);
	r.bytes = bytes;
	r.limit = q->d.limit;
	r.inflight = dql_inflight(&q->d);
	if (kv)
		r.kv = *kv;
	else
		memset(&r.kv, 0, sizeof(r.kv));
	s->ops->record(s->arg, &r);
}

/*
 * Starvation bookkeeping: called where the conditions may have changed,
 * not after every event. A queue starves while its qdisc has packets and
 * its ring none to send (q_starve: after a packet enters an empty qdisc,
 * the ring's last packet goes on the wire, and a poll); the link while it
 * is idle and a qdisc has packets (link_starve: where s->busy or
 * s->nonempty change while the link is idle).
 */
static inline void q_starve(struct sim *s, struct squeue *q)
{
	bool starving = q->qd_cnt && q->r_tail == q->r_tx;

	if (starving == q->starving)
		return;
	if (starving)
		q->starve_since = s->now;
	else
		q->c.starved_ns += s->now - q->starve_since;
	q->starving = starving;
}

static inline void link_starve(struct sim *s)
{
	bool starving = !s->busy && s->nonempty;

	if (starving == s->link_starving)
		return;
	if (starving)
		s->link_starve_since = s->now;
	else
		s->link_starved += s->now - s->link_starve_since;
	s->link_starving = starving;
}

static void store(struct sim *s, struct squeue *q, const struct sim_kv *kv)
{
	uint64_t j = jiffies_at(s, s->now);

	/* validated by sim_config_check(): the stores cannot fail */
	switch (kv->key) {
	case BQLT_K_LIMIT_MIN:
		dql_store_limit_min(&q->d, kv->val);
		break;
	case BQLT_K_LIMIT_MAX:
		dql_store_limit_max(&q->d, kv->val);
		break;
	case BQLT_K_HOLD_TIME:
		dql_store_hold_time_ms(&q->d, kv->val, s->cfg.hz);
		break;
	case BQLT_K_STALL_THRS:
		dql_store_stall_thrs_ms(&q->d, kv->val, s->cfg.hz, j);
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------ the link */

/* put the next packet of queue @qi on the wire */
HOT void link_start(struct sim *s, unsigned int qi)
{
	struct squeue *q = &s->q[qi];
	const struct pkt *p = &q->ring[q->r_tx & q->ring_mask];
	uint64_t d = s->now - p->t;

	hput(&q->h_ring, q->b_ring, d);
	s->busy = true;
	s->cur_q = qi;
	s->cur_bytes = p->bytes;
	s->tm[SRC_LINK] = s->now + wtime(&s->wire, p->wire, &s->wire_rem);	/* off the tree */
}

/*
 * The next queue after @from (round robin) with a descriptor to send:
 * the first bit of s->ready (SIM_MAX_QUEUES is 64) after @from, else
 * the first one at all (@from itself included).
 */
_Static_assert(SIM_MAX_QUEUES <= 64, "s->ready is one 64-bit word");

static inline bool link_pick(const struct sim *s, unsigned int from, unsigned int *out)
{
	uint64_t m = s->ready, hi;

	if (!m)
		return false;
	hi = m & ((~0ull << from) << 1);	/* from is at most 63 */
	*out = (unsigned int)__builtin_ctzll(hi ? hi : m);
	return true;
}

/* ------------------------------------------------------------ interrupts */

HOT uint64_t stall_defer(const struct sim *s, uint64_t t)
{
	bool moved = s->cfg.nstalls != 0;

	/* a deferred poll may land in a later stall: repeat until none */
	while (moved) {
		moved = false;
		for (unsigned int i = 0; i < s->cfg.nstalls; i++) {
			const struct sim_stall *st = &s->cfg.stalls[i];

			if (t >= st->t_ns && t - st->t_ns < st->len_ns) {
				t = st->t_ns + st->len_ns;
				moved = true;
			}
		}
	}
	return t;
}

/*
 * The interrupt is raised at @t (now, or when the coalescing timer
 * fires): the poll runs after the latency
 */
HOT void irq_fire_at(struct sim *s, unsigned int qi, uint64_t t)
{
	struct squeue *q = &s->q[qi];
	uint64_t lat = s->cfg.irq_latency_ns;

	if (s->cfg.irq_jitter_ns) {
		uint64_t j = s->cfg.irq_jitter_ns;
		uint64_t lo = lat > j ? lat - j : 0;

		lat = lo + rng_below(&q->rng, lat + j - lo + 1);
	}
	q->napi = NAPI_POLL;
	q_ev_set(s, qi, stall_defer(s, t + lat));
}

HOT void irq_fire(struct sim *s, unsigned int qi)
{
	irq_fire_at(s, qi, s->now);
}

/* a packet of queue @qi finished on the wire: the coalescing logic */
HOT void irq_on_done(struct sim *s, unsigned int qi)
{
	struct squeue *q = &s->q[qi];

	switch (q->napi) {
	case NAPI_IDLE:
		q->pending = 1;
		if (!s->cfg.coalesce_usecs || s->cfg.coalesce_frames == 1) {
			irq_fire(s, qi);
			return;
		}
		if (s->frames_max == UINT32_MAX) {
			/*
			 * No frame count fires it early: the timer fires at
			 * its time, and nothing happens until then but
			 * completions the interrupt would not see. The poll
			 * is set now, an event fewer, with the same jitter
			 * draw (the queue's next) and the same time.
			 */
			irq_fire_at(s, qi, s->now + (uint64_t)s->cfg.coalesce_usecs * 1000);
			return;
		}
		q->napi = NAPI_ARMED;
		q_ev_set(s, qi, s->now + (uint64_t)s->cfg.coalesce_usecs * 1000);
		return;
	case NAPI_ARMED:
		q->pending++;
		if (q->pending >= s->frames_max)
			irq_fire(s, qi);
		return;
	case NAPI_POLL:
		return;		/* masked until the poll completes */
	}
}

/* ------------------------------------------------------------ transmit */

/* the wire bytes of a packet of @bytes of flow @f */
static inline uint32_t pkt_wire(const struct sim *s, const struct flow *f, uint32_t bytes)
{
	if (f->wire_fixed)
		return f->wire_fixed;
	return (bytes < s->frame_min ? s->frame_min : bytes) + s->frame_over;
}

/* the descriptors of a packet of @bytes (sim_descs()) */
static inline uint32_t pkt_descs(const struct sim *s, uint32_t bytes)
{
	if (bytes <= s->frag)
		return 1;
	return 1 + (bytes - SIM_TSO_HDR + s->frag - 1) / s->frag;
}

/* the IMIX packet of index @x (< IMIX_N): its bytes, and its wire bytes */
static inline uint32_t imix_pick(const struct sim *s, uint64_t x, uint32_t *wire)
{
	*wire = s->imix_wire[x];
	return imix_size[x];
}

/* a packet of flow @f: its size drawn from @r, and its wire bytes (*@wire) */
HOT uint32_t pkt_draw(const struct sim *s, const struct flow *f, struct sim_rng *r,
		      uint32_t *wire)
{
	uint32_t bytes;

	if (f->size.kind == SIM_SIZE_IMIX)
		return imix_pick(s, rng_below(r, IMIX_N), wire);
	bytes = size_draw(&f->size, r);
	*wire = pkt_wire(s, f, bytes);
	return bytes;
}

/* a packet at the tail of @q's qdisc (not full), at @t */
HOT void qdisc_put(struct squeue *q, uint64_t t, uint32_t bytes, uint32_t wire)
{
	uint32_t i = q->qd_head + q->qd_cnt++;
	struct pkt *p = &q->qd[i >= q->qd_cap ? i - q->qd_cap : i];

	p->t = t;
	p->bytes = bytes;
	p->wire = wire;
}

HOT void qdisc_push(struct sim *s, struct squeue *q, uint32_t bytes, uint32_t wire)
{
	qdisc_put(q, s->now, bytes, wire);
	if (q->qd_cnt == 1) {
		s->nonempty++;
		if (!s->busy)
			link_starve(s);
	}
}

/* fill the qdisc with the backlogged flows' packets, in turn (at time 0) */
static void bulk_fill(struct sim *s, struct squeue *q)
{
	while (q->qd_cnt < q->qd_cap) {
		struct flow *f = &s->fl[q->bulk[q->bulk_rr]];

		if (++q->bulk_rr == q->nbulk)
			q->bulk_rr = 0;
		uint32_t wire, bytes = pkt_draw(s, f, &f->rng, &wire);

		qdisc_push(s, q, bytes, wire);
	}
}

/*
 * A packet of @bytes (@wire on the wire) of queue @qi into the ring now,
 * through netdev_tx_sent_queue(): dql_queued(), then STACK_XOFF if
 * dql_avail() < 0. The driver stops the queue itself when the ring is
 * full.
 */
HOT void ring_push(struct sim *s, struct squeue *q, unsigned int qi,
		  uint32_t bytes, uint32_t wire, uint64_t j)
{
	struct pkt *slot = &q->ring[q->r_tail++ & q->ring_mask];

	s->ready |= 1ull << qi;
	slot->t = s->now;
	slot->bytes = bytes;
	slot->wire = wire;
	q->desc += pkt_descs(s, bytes);
	dql_queued(&q->d, bytes, j);
	q->c.packets_queued++;
	q->c.bytes_queued += bytes;
	q->c.wire_queued += wire;
	if (s->rec)
		emit(s, BQLT_Q, qi, bytes, NULL);
	if (dql_avail(&q->d) < 0) {
		q->xoff |= XOFF_STACK;
		q->c.stops++;
	}
	/* as drivers do: stop while the next packet might not fit */
	if (q->ring_size - q->desc < q->desc_need) {
		q->xoff |= XOFF_DRV;
		q->c.ring_stops++;
	}
	if (!s->busy) {
		link_start(s, qi);
		link_starve(s);
	}
}

/* qdisc_run: move packets from the qdisc into the ring while the queue runs */
static void xmit(struct sim *s, unsigned int qi)
{
	struct squeue *q = &s->q[qi];
	uint64_t j = 0;

	if (q->xoff || !q->qd_cnt)
		return;
	j = jiffies_at(s, s->now);
	if (q->nbulk) {
		/*
		 * Backlogged: the qdisc is full (bulk_fill()) and stays
		 * full, a packet in for each one out, into the slot that one
		 * leaves: no count, no wrap of the tail.
		 */
		while (!q->xoff) {
			struct pkt *slot = &q->qd[q->qd_head];
			struct pkt p = *slot;
			struct flow *f = &s->fl[q->bulk[q->bulk_rr]];
			uint32_t bytes, wire;

			if (++q->qd_head == q->qd_cap)
				q->qd_head = 0;
			if (++q->bulk_rr == q->nbulk)
				q->bulk_rr = 0;
			hput(&q->h_qdisc, q->b_qdisc, s->now - p.t);
			ring_push(s, q, qi, p.bytes, p.wire, j);
			bytes = pkt_draw(s, f, &f->rng, &wire);
			slot->t = s->now;
			slot->bytes = bytes;
			slot->wire = wire;
		}
		return;
	}
	while (q->qd_cnt && !q->xoff) {
		struct pkt p = q->qd[q->qd_head];

		if (++q->qd_head == q->qd_cap)
			q->qd_head = 0;
		/* empty: start again at slot 0, which stays in the cache */
		if (!--q->qd_cnt) {
			s->nonempty--;
			q->qd_head = 0;
			if (!s->busy)
				link_starve(s);
		}
		hput(&q->h_qdisc, q->b_qdisc, s->now - p.t);
		ring_push(s, q, qi, p.bytes, p.wire, j);
	}
}

/* ------------------------------------------------------------ handlers */

HOT void on_link(struct sim *s)
{
	unsigned int qi = s->cur_q, next;
	struct squeue *q = &s->q[qi];
	bool empty = ++q->r_tx == q->r_tail;

	/*
	 * With arrivals, whether the ring is now empty is not predictable on
	 * a busy link: the ready bit is cleared without a branch. Backlogged
	 * queues empty (or not) in a pattern, which a branch follows best.
	 */
	if (s->arrivals)
		s->ready &= ~((uint64_t)empty << qi);
	else if (empty)
		s->ready &= ~(1ull << qi);
	q->done_bytes += s->cur_bytes;
	irq_on_done(s, qi);
	if (link_pick(s, qi, &next)) {
		link_start(s, next);	/* busy still */
	} else {
		s->busy = false;
		s->tm[SRC_LINK] = T_NEVER;
		link_starve(s);
	}
	/*
	 * q_starve(): the ring had a packet, so the queue did not starve; it
	 * does now if the ring is empty while its qdisc holds packets. The
	 * qdisc's test first: mostly empty, or mostly not, it is predictable.
	 */
	if (q->qd_cnt && empty)
		q_starve(s, q);
}

static void limit_series(struct squeue *q, uint64_t t)
{
	uint32_t l = q->d.limit;

	if (!q->c.completions) {
		q->t_first = t;
		q->c.limit_min = l;
		q->c.limit_max = l;
	} else {
		q->wsum += (unsigned __int128)q->l_prev * (t - q->t_prev);
		if (l < q->c.limit_min)
			q->c.limit_min = l;
		if (l > q->c.limit_max)
			q->c.limit_max = l;
	}
	q->lsum += l;
	q->t_prev = t;
	q->l_prev = l;
	q->c.completions++;
}

/*
 * The NAPI poll: reap up to the budget, netdev_tx_completed_queue() (which
 * ignores 0 bytes; clears STACK_XOFF once dql_avail() >= 0), the driver's
 * own wake; then poll again while the budget is used up, or complete and
 * let the qdisc run.
 */
static void napi_poll(struct sim *s, unsigned int qi)
{
	struct squeue *q = &s->q[qi];
	uint32_t n = q->r_tx - q->r_reap, bytes = 0, desc = 0;

	if (n > s->cfg.napi_budget)
		n = s->cfg.napi_budget;
	if (q->desc_need == 1 && n == q->r_tx - q->r_reap) {
		/*
		 * All that was sent is reaped (the budget did not stop it),
		 * and no packet of this queue takes more than one descriptor:
		 * the bytes as the link counted them
		 */
		bytes = q->done_bytes;
		desc = n;
	} else {
		for (uint32_t k = 0; k < n; k++) {
			uint32_t b = q->ring[(q->r_reap + k) & q->ring_mask].bytes;

			bytes += b;
			desc += pkt_descs(s, b);
		}
	}
	q->r_reap += n;
	q->done_bytes -= bytes;
	q->desc -= desc;
	if (bytes) {
		dql_completed(&q->d, bytes, jiffies_at(s, s->now));
		q->c.bytes_completed += bytes;
		limit_series(q, s->now);
		if (s->rec)
			emit(s, BQLT_C, qi, bytes, NULL);
		if ((q->xoff & XOFF_STACK) && dql_avail(&q->d) >= 0)
			q->xoff &= (uint8_t)~XOFF_STACK;
	}
	if ((q->xoff & XOFF_DRV) && q->ring_size - q->desc >= q->wake)
		q->xoff &= (uint8_t)~XOFF_DRV;
	if (n == s->cfg.napi_budget && q->r_tx != q->r_reap) {
		/* budget spent: net_rx_action() polls again at once */
		q_ev_set(s, qi, stall_defer(s, s->now));
		return;
	}
	q->napi = NAPI_IDLE;	/* napi_complete: interrupt enabled */
	q->pending = 0;
	q_ev_set(s, qi, T_NEVER);
	/*
	 * The wake (netif_schedule) raised NET_TX_SOFTIRQ, which runs after
	 * the NET_RX softirq's polling loop: the qdisc runs now.
	 */
	xmit(s, qi);
	q_starve(s, q);
}

static void on_queue(struct sim *s, unsigned int qi)
{
	if (s->q[qi].napi == NAPI_ARMED)
		irq_fire(s, qi);	/* coalescing timer expired */
	else
		napi_poll(s, qi);
}

/*
 * A packet arrives at queue @qi: into the ring at once if the
 * qdisc is empty and the queue runs (what qdisc_push() then xmit() would
 * do, with a qdisc delay of 0), else into the qdisc, or dropped. The queue
 * does not run while its qdisc holds packets: xmit() has nothing to do.
 */
HOT void flow_arrive(struct sim *s, unsigned int qi, uint32_t bytes, uint32_t wire)
{
	struct squeue *q = &s->q[qi];

	if (!q->qd_cnt && !q->xoff) {
		/* its qdisc delay, 0, is counted by sim_finish() */
		ring_push(s, q, qi, bytes, wire, jiffies_at(s, s->now));
	} else if (q->qd_cnt < q->qd_cap) {
		qdisc_push(s, q, bytes, wire);
		q_starve(s, q);
	} else {
		q->c.drops++;
	}
}

/*
 * The next arrival of the Poisson flows: the gap does not depend on the
 * size of this packet (sizes are drawn independently); whole ns now, the
 * fraction carried, so that the mean rate holds.
 */
static inline uint64_t parr_gap(struct sim *s)
{
	struct parr *a = &s->pa;
	double g = zig_exp(&s->zig, &a->rng) * a->gap_mean + a->frac;
	int64_t whole;

	if (g >= 9e18)
		return (uint64_t)9e18;
	/*
	 * 0 <= g < 2^63: truncation is floor(), and signed conversions are
	 * one instruction each way (unsigned ones a branch and a few)
	 */
	whole = (int64_t)g;
	a->frac = g - (double)whole;
	return (uint64_t)whole;
}

/*
 * Draw the Poisson flows' next arrival (at tm[SRC_PARR]): its flow and
 * size. The draws come in the order they did when each arrival drew them
 * as it came: its gap, then the next one's flow and size.
 */
HOT void parr_draw(struct sim *s)
{
	struct parr *a = &s->pa;
	uint64_t u = rng_next(&a->rng);
	/*
	 * The high half picks a slot: n times it, the high word; the low
	 * half, the slot's flow or its alias. The low word of n times the
	 * high half is uniform too, whatever the slot (in steps of n), and
	 * independent of the low half: an IMIX size from it saves a draw.
	 */
	uint64_t m = (u >> 32) * a->n;
	unsigned int k = (unsigned int)(m >> 32);
	unsigned int fi = (u & 0xffffffffu) < a->thr[k] ? a->own[k] : a->alias[k];
	const struct flow *f;

	/* the queue, and IMIX sizes, without the flow's own cache line */
	a->nq = a->fq[fi];
	if (a->imix) {
		a->nbytes = imix_pick(s, ((m & 0xffffffffu) * IMIX_N) >> 32, &a->nwire);
		return;
	}
	f = &s->fl[fi];
	if (f->size.kind == SIM_SIZE_IMIX) {
		a->nbytes = imix_pick(s, ((m & 0xffffffffu) * IMIX_N) >> 32, &a->nwire);
	} else {
		a->nbytes = size_draw(&f->size, &a->rng);
		a->nwire = pkt_wire(s, f, a->nbytes);
	}
}

/*
 * Arrivals that commute with what is due before them, taken ahead of it.
 * An arrival at a queue whose qdisc holds packets goes into the qdisc, or
 * is dropped: it reads and writes that queue's qdisc and drop count only
 * (the qdisc stays non-empty: s->nonempty and the starving states do not
 * change), and the link, the other queues and DQL do not read those. Only
 * that queue's poll takes packets out of its qdisc, and only a timed flow
 * of that queue puts packets in out of this process's order; the events
 * due first cannot bring either before the arrival: a poll that a
 * completion causes comes dmin or more after it, and no completion comes
 * before the link's next one or the tree's next event. So each such
 * arrival is taken now, in this process's order, while its time is below
 * the run's settings, progress and end (lim_end), the earliest event the
 * pending ones may cause (min(link, tree) + dmin), its queue's next event
 * (a tie goes to the arrival), and the tree's next event if a timed flow
 * sends to its queue. The first that is not stays the next arrival.
 */
static void parr_ahead(struct sim *s)
{
	struct parr *a = &s->pa;
	uint64_t root = s->qroot >> 8;
	uint64_t t0 = s->tm[SRC_LINK] < root ? s->tm[SRC_LINK] : root;
	uint64_t bound = t0 + s->dmin;	/* t0 < 2^56: no overflow */

	if (bound > s->lim_end)
		bound = s->lim_end;
	for (;;) {
		unsigned int qi = a->nq;
		struct squeue *q = &s->q[qi];
		uint64_t t = s->tm[SRC_PARR];

		if (!q->qd_cnt || t >= bound || t > (q->timed ? root : s->tm[SRC_Q(qi)]))
			return;
		s->now = t;
		s->nahead++;
		if (q->qd_cnt < q->qd_cap)
			qdisc_put(q, t, a->nbytes, a->nwire);
		else
			q->c.drops++;
		s->tm[SRC_PARR] = t + parr_gap(s);
		parr_draw(s);
	}
}

HOT void on_parr(struct sim *s)
{
	struct parr *a = &s->pa;

	flow_arrive(s, a->nq, a->nbytes, a->nwire);
	s->tm[SRC_PARR] = s->now + parr_gap(s);	/* off the tree */
	parr_draw(s);
	/* mostly, the next one's qdisc is empty: parr_ahead() out of line */
	if (s->q[a->nq].qd_cnt && s->ahead)
		parr_ahead(s);
}

/* a CBR or on/off flow's packet */
static void on_flow(struct sim *s, unsigned int src)
{
	unsigned int fi = s->srcflow[src - SRC_FLOW0(s)];
	struct flow *f = &s->fl[fi];
	uint32_t wire, bytes = pkt_draw(s, f, &f->rng, &wire);
	uint64_t next;

	flow_arrive(s, f->q, bytes, wire);
	next = s->now + wtime(&s->fwt[fi], bytes, &f->rem);
	if (f->f->kind == SIM_T_ONOFF && next >= f->on_end) {
		f->period += f->f->on_ns + f->f->off_ns;
		f->on_end = f->period + f->f->on_ns;
		f->rem = 0;
		if (next < f->period)
			next = f->period;
	}
	tree_set(s, src, next);	/* a flow's packet: inline */
}

static void on_at(struct sim *s)
{
	const struct sim_at *a = &s->cfg.at[s->at_next++];

	for (unsigned int i = 0; i < s->cfg.nqueues; i++) {
		store(s, &s->q[i], &a->kv);
		if (s->rec)
			emit(s, BQLT_P, i, 0, &a->kv);
	}
	ev_set(s, SRC_AT, s->at_next < s->cfg.nat ? s->cfg.at[s->at_next].t_ns : T_NEVER);
}

/* ------------------------------------------------------------ setup */

/*
 * The Poisson flows' alias table (Vose's construction): slot k keeps its
 * own flow with probability thr[k] / 2^32, else gives its alias, so that
 * flow i arrives with probability rate_i / sum of the rates, in packets.
 */
static void parr_init(struct sim *s)
{
	struct parr *a = &s->pa;
	double p[SIM_MAX_FLOWS], sum = 0;
	unsigned int small[SIM_MAX_FLOWS], large[SIM_MAX_FLOWS], ns = 0, nl = 0;

	a->n = 0;
	a->imix = true;
	for (unsigned int i = 0; i < s->cfg.nflows; i++) {
		const struct sim_flow *f = &s->cfg.flows[i];

		a->fq[i] = (unsigned char)s->fl[i].q;
		if (f->kind != SIM_T_POISSON)
			continue;
		if (f->size.kind != SIM_SIZE_IMIX)
			a->imix = false;
		/* packets per ns: the bit rate over the mean packet's bits */
		p[a->n] = (double)f->rate_bps / (sim_size_mean(&f->size) * 8e9);
		sum += p[a->n];
		a->own[a->n++] = (unsigned char)i;
	}
	if (!a->n)
		return;
	rng_seed(&a->rng, s->cfg.seed, 2000);
	a->gap_mean = 1.0 / sum;
	for (unsigned int k = 0; k < a->n; k++) {
		p[k] = p[k] * a->n / sum;
		if (p[k] < 1.0)
			small[ns++] = k;
		else
			large[nl++] = k;
	}
	for (unsigned int k = 0; k < a->n; k++) {
		a->thr[k] = 1ull << 32;
		a->alias[k] = a->own[k];
	}
	while (ns && nl) {
		unsigned int l = small[--ns], g = large[nl - 1];

		a->thr[l] = (uint64_t)(p[l] * 4294967296.0);
		a->alias[l] = a->own[g];
		p[g] -= 1.0 - p[l];
		if (p[g] < 1.0) {
			nl--;
			small[ns++] = g;
		}
	}
	/* what is left is 1 up to rounding: the slot keeps its own flow */
}

/*
 * The least time from a completion to the event on the tree it causes
 * (irq_on_done()), with lo the latency less the jitter: the poll after lo
 * (no coalescing, or a frame count of 1); after the coalescing timer and
 * lo (no frame count); or with a frame count, the timer or, when the
 * count fires the interrupt, the poll after lo, whichever is sooner.
 */
static uint64_t sim_irq_dmin(const struct sim_config *cfg)
{
	uint64_t j = cfg->irq_jitter_ns, lat = cfg->irq_latency_ns;
	uint64_t lo = lat - (j < lat ? j : lat), co = (uint64_t)cfg->coalesce_usecs * 1000;

	if (!cfg->coalesce_usecs || cfg->coalesce_frames == 1)
		return lo;
	if (!cfg->coalesce_frames)
		return co + lo;
	return co < lo ? co : lo;
}

int sim_new(struct sim **sp, const struct sim_config *cfg, struct bql_err *e)
{
	struct sim *s;
	unsigned int i, nev = 0;
	uint32_t d, sz;
	int ret;

	*sp = NULL;
	ret = sim_config_check(cfg, e);
	if (ret)
		return ret;
	s = calloc(1, sizeof(*s));
	if (!s)
		return bql_err_set(e, ENOMEM, "out of memory");
	s->cfg = *cfg;
	s->frag = cfg->frag_size ? cfg->frag_size : SIM_FRAG_SIZE;
	s->frame_min = cfg->no_framing ? 0 : SIM_FRAME_MIN;
	s->frame_over = cfg->no_framing ? 0 : SIM_FRAME_OVERHEAD;
	for (i = 0; i < IMIX_N; i++)
		s->imix_wire[i] = sim_wire_bytes(cfg, &(const struct sim_size){ .kind = SIM_SIZE_IMIX },
						 imix_size[i]);
	s->frames_max = cfg->coalesce_frames ? cfg->coalesce_frames : UINT32_MAX;
	zig_init(&s->zig);
	wtime_init(&s->wire, cfg->link_bps);
	/* --at in time order, ties in the order given (insertion sort: stable) */
	for (i = 1; i < s->cfg.nat; i++) {
		struct sim_at a = s->cfg.at[i];
		unsigned int k = i;

		while (k && s->cfg.at[k - 1].t_ns > a.t_ns) {
			s->cfg.at[k] = s->cfg.at[k - 1];
			k--;
		}
		s->cfg.at[k] = a;
	}
	s->nsrc = SRC_EXT + cfg->nqueues;
	for (i = 0; i < cfg->nflows; i++)
		if (cfg->flows[i].kind == SIM_T_CBR || cfg->flows[i].kind == SIM_T_ONOFF)
			s->nsrc++;
	for (s->tsize = 2, s->tdepth = 1; s->tsize < s->nsrc - SRC_EXT; s->tsize <<= 1)
		s->tdepth++;
	s->nt = calloc(2 * s->tsize, sizeof(*s->nt));
	sz = pow2_up(cfg->nqueues);
	s->pf = calloc(sz, sizeof(*s->pf));
	s->pf_mask = sz - 1;
	s->tm = calloc(s->nsrc, sizeof(*s->tm));
	s->srcflow = calloc(cfg->nflows + 1, sizeof(*s->srcflow));
	s->q = calloc(cfg->nqueues, sizeof(*s->q));
	s->qst = calloc(cfg->nqueues, sizeof(*s->qst));
	/* nflows >= 1 (sim_config_check()); the size a multiple of 64 */
	s->fl = aligned_alloc(_Alignof(struct flow), cfg->nflows * sizeof(*s->fl));
	if (s->fl)
		memset(s->fl, 0, cfg->nflows * sizeof(*s->fl));
	s->fwt = calloc(cfg->nflows, sizeof(*s->fwt));
	if (!s->nt || !s->pf || !s->tm || !s->srcflow || !s->q || !s->qst || !s->fl || !s->fwt)
		goto nomem;
	/*
	 * Every queue's ring and qdisc slots in one block: a large calloc is
	 * fresh zero pages, faulted in where the model writes, not cleared
	 * up front (64 queues: 1.3 MiB, a millisecond per run before, which
	 * is what tune's short runs paid)
	 */
	sz = pow2_up(cfg->ring);
	s->slots = calloc((size_t)cfg->nqueues * (sz + cfg->qlen), sizeof(*s->slots));
	if (!s->slots)
		goto nomem;
	for (i = 0; i < cfg->nqueues; i++) {
		struct squeue *q = &s->q[i];

		q->ring = s->slots + (size_t)i * (sz + cfg->qlen);
		q->qd = q->ring + sz;
		q->b_ring = s->qst[i].ring_delay.b;
		q->b_qdisc = s->qst[i].qdisc_delay.b;
		q->ring_mask = sz - 1;
		q->ring_size = cfg->ring;
		q->desc_need = 1;
		q->qd_cap = cfg->qlen;
		rng_seed(&q->rng, cfg->seed, 1000 + i);
	}
	for (i = 0; i < cfg->nflows; i++) {
		struct flow *f = &s->fl[i];

		f->f = &s->cfg.flows[i];
		f->size = f->f->size;
		f->q = sim_flow_queue(cfg, i);
		rng_seed(&f->rng, cfg->seed, i);
		if (f->f->rate_bps)
			wtime_init(&s->fwt[i], f->f->rate_bps);
		if (f->f->kind == SIM_T_CBR || f->f->kind == SIM_T_ONOFF) {
			s->srcflow[nev++] = (unsigned char)i;
			s->q[f->q].timed = true;
		}
		if (f->f->kind != SIM_T_BULK)
			s->arrivals = true;
		if (f->f->size.kind == SIM_SIZE_FIXED || f->f->size.kind == SIM_SIZE_TSO)
			f->wire_fixed = sim_wire_bytes(cfg, &f->f->size, f->f->size.a);
		d = sim_descs(cfg, sim_size_max(&f->f->size));
		if (d > s->q[f->q].desc_need)
			s->q[f->q].desc_need = d;
		if (f->f->kind == SIM_T_BULK) {
			struct squeue *q = &s->q[f->q];

			q->bulk[q->nbulk++] = i;
		}
	}
	parr_init(s);
	s->dmin = sim_irq_dmin(cfg);
	s->ahead = true;
	s->pf_want = true;
	/* the driver wakes the queue once a quarter of the ring, and a packet, is free */
	for (i = 0; i < cfg->nqueues; i++) {
		struct squeue *q = &s->q[i];

		q->wake = cfg->ring >= 4 ? cfg->ring / 4 : 1;
		if (q->wake < q->desc_need)
			q->wake = q->desc_need;
	}
	*sp = s;
	return 0;
nomem:
	sim_free(s);
	return bql_err_set(e, ENOMEM, "out of memory for %u queues of %u ring and %u qdisc slots",
			   cfg->nqueues, cfg->ring, cfg->qlen);
}

void sim_free(struct sim *s)
{
	if (!s)
		return;
	free(s->slots);
	free(s->q);
	free(s->qst);
	free(s->fl);
	free(s->fwt);
	free(s->nt);
	free(s->pf);
	free(s->tm);
	free(s->srcflow);
	free(s);
}

/* time zero: each queue born as the kernel makes it, then reset at ifup */
static void sim_start(struct sim *s)
{
	unsigned int i;
	uint64_t j0;

	s->now = 0;
	s->nahead = 0;
	s->npf = 0;
	s->pf_head = 0;
	s->pf_n = 0;
	s->pf_key = KEY_NEVER;
	s->pf_tail = 0;
	s->qroot = KEY_NEVER;
	/* no coalescing timer armed, which a frame count would replace */
	s->pf_on = s->pf_want && (!s->cfg.coalesce_usecs || s->cfg.coalesce_frames <= 1);
	s->j_next = 0;
	j0 = jiffies_at(s, 0);
	for (i = 0; i < s->nsrc; i++)
		s->tm[i] = T_NEVER;
	/* every subtree's winner: its leftmost leaf, all times T_NEVER */
	for (i = 1; i < 2 * s->tsize; i++)
		s->nt[i] = KEY_NEVER;
	for (i = 0; i < s->cfg.nqueues; i++) {
		struct squeue *q = &s->q[i];

		dql_init(&q->d, s->cfg.hz, s->cfg.kflags, j0);
		for (unsigned int k = 0; k < s->cfg.nset; k++)
			store(s, q, &s->cfg.set[k]);
		dql_reset(&q->d, j0);
		if (s->rec)
			emit(s, BQLT_R, i, 0, NULL);
	}
	if (s->cfg.nat)
		ev_set(s, SRC_AT, s->cfg.at[0].t_ns);
	for (i = 0; SRC_FLOW0(s) + i < s->nsrc; i++) {
		struct flow *f = &s->fl[s->srcflow[i]];

		f->on_end = f->f->on_ns;
		ev_set(s, SRC_FLOW0(s) + i, 0);
	}
	/* a Poisson process from time 0: its first arrival after a gap */
	if (s->pa.n) {
		s->pa.frac = 0;
		ev_set(s, SRC_PARR, parr_gap(s));
		parr_draw(s);
	}
	/* the backlogged queues start full and start sending */
	for (i = 0; i < s->cfg.nqueues; i++) {
		if (s->q[i].nbulk) {
			bulk_fill(s, &s->q[i]);
			xmit(s, i);
		}
	}
}

static void sim_finish(struct sim *s)
{
	unsigned int i;

	s->now = s->cfg.duration_ns;
	if (s->link_starving)
		s->link_starved += s->now - s->link_starve_since;
	s->link_starving = false;
	memset(&s->tot_ring, 0, sizeof(s->tot_ring));
	memset(&s->tot_qdisc, 0, sizeof(s->tot_qdisc));
	for (i = 0; i < s->cfg.nqueues; i++) {
		struct squeue *q = &s->q[i];
		struct sim_qstats *st = &s->qst[i];

		if (q->starving)
			q->c.starved_ns += s->now - q->starve_since;
		q->starving = false;
		/*
		 * Sent: what went into the ring less what is still to go on
		 * the wire (the packet on the wire counts when it is done)
		 */
		st->packets = q->c.packets_queued - (q->r_tail - q->r_tx);
		st->bytes_tx = q->c.bytes_queued;
		st->wire_bytes = q->c.wire_queued;
		for (uint32_t k = q->r_tx; k != q->r_tail; k++) {
			st->bytes_tx -= q->ring[k & q->ring_mask].bytes;
			st->wire_bytes -= q->ring[k & q->ring_mask].wire;
		}
		st->packets_queued = q->c.packets_queued;
		st->bytes_queued = q->c.bytes_queued;
		st->bytes_completed = q->c.bytes_completed;
		st->completions = q->c.completions;
		st->stops = q->c.stops;
		st->ring_stops = q->c.ring_stops;
		st->drops = q->c.drops;
		st->starved_ns = q->c.starved_ns;
		st->limit_min = q->c.limit_min;
		st->limit_max = q->c.limit_max;
		st->ring_delay.n = q->h_ring.n;
		st->ring_delay.max = q->h_ring.max;
		st->ring_delay.sum = q->h_ring.sum;
		/*
		 * Every packet into the ring has a qdisc delay: xmit()'s
		 * counted as they came, flow_arrive()'s (0, straight into the
		 * ring) the rest
		 */
		st->qdisc_delay.n = q->c.packets_queued;
		st->qdisc_delay.b[0] += q->c.packets_queued - q->h_qdisc.n;
		st->qdisc_delay.max = q->h_qdisc.max;
		st->qdisc_delay.sum = q->h_qdisc.sum;
		st->inflight = dql_inflight(&q->d);
		st->limit_final = q->d.limit;
		st->stall_cnt = q->d.stall_cnt;
		st->stall_max = q->d.stall_max;
		st->limit_mean = replay_limit_mean(q->wsum, q->lsum, st->completions,
						   q->t_first, q->t_prev);
		sim_hist_merge(&s->tot_ring, &st->ring_delay);
		sim_hist_merge(&s->tot_qdisc, &st->qdisc_delay);
	}
}

void sim_set_ahead(struct sim *s, bool on)
{
	s->ahead = on;
}

void sim_set_poll_fifo(struct sim *s, bool on)
{
	s->pf_want = on;
}

void sim_run(struct sim *s, const struct sim_ops *ops, void *arg)
{
	static const struct sim_ops none;
	struct sim_ops o = ops ? *ops : none;
	uint64_t end = s->cfg.duration_ns;

	s->ops = &o;
	s->rec = o.record != NULL;
	s->arg = arg;
	s->prog = PROGRESS_NS;
	sim_start(s);
	lim_end_set(s);
	for (;;) {
		const uint64_t *tm = s->tm;
		uint64_t tl = tm[SRC_LINK], tp = tm[SRC_PARR], t;
		unsigned int id;

		/*
		 * Most events are the link's and the Poisson flows': what
		 * ev_next() would pick first (a tie goes to the settings, the
		 * link, the Poisson flows, then the tree), without its scan
		 * and the dispatch below. Below lim, neither the tree nor the
		 * settings have an event as early, and the run has not ended.
		 */
		if (tl <= tp) {
			if (tl < s->lim) {
				s->now = tl;
				on_link(s);
				continue;
			}
		} else if (tp < s->lim) {
			s->now = tp;
			on_parr(s);
			continue;
		}
		/*
		 * Neither is below lim: if the root is below lim_end, lim is
		 * its time + 1, so the root is the earliest event, strictly
		 * (a KEY_NEVER root's time, 2^56 - 1, is past any lim_end)
		 */
		t = s->qroot >> 8;
		if (t < s->lim_end) {
			id = (unsigned int)(s->qroot & 0xff);
			s->now = t;
			if (id < SRC_FLOW0(s))
				on_queue(s, id - SRC_Q(0));
			else
				on_flow(s, id);
			continue;
		}
		/* the settings, the next progress call or the end: in order */
		id = ev_next(s);
		t = tm[id];
		if (t >= end)
			break;
		if (t >= s->prog) {
			/* progress: now and then, in simulated time */
			if (o.progress)
				o.progress(arg, t);
			s->prog = (t / PROGRESS_NS + 1) * PROGRESS_NS;
			lim_end_set(s);
		}
		s->now = t;
		if (id == SRC_LINK)
			on_link(s);
		else if (id >= SRC_Q(0) && id < SRC_Q(s->cfg.nqueues))
			on_queue(s, id - SRC_Q(0));
		else if (id == SRC_PARR)
			on_parr(s);
		else if (id == SRC_AT)
			on_at(s);
		else
			on_flow(s, id);
	}
	sim_finish(s);
	s->ops = NULL;
}

/* ------------------------------------------------------------ results */

const struct sim_config *sim_cfg(const struct sim *s)
{
	return &s->cfg;
}

const struct sim_qstats *sim_queue_stats(const struct sim *s, unsigned int q)
{
	return q < s->cfg.nqueues ? &s->qst[q] : NULL;
}

const struct dql *sim_queue_dql(const struct sim *s, unsigned int q)
{
	return q < s->cfg.nqueues ? &s->q[q].d : NULL;
}

void sim_get_totals(const struct sim *s, struct sim_totals *t)
{
	memset(t, 0, sizeof(*t));
	t->duration_ns = s->cfg.duration_ns;
	t->link_bps = s->cfg.link_bps;
	t->starved_ns = s->link_starved;
	t->arrivals_ahead = s->nahead;
	t->polls_fifo = s->npf;
	for (unsigned int i = 0; i < s->cfg.nqueues; i++) {
		const struct sim_qstats *st = &s->qst[i];

		t->packets += st->packets;
		t->bytes_tx += st->bytes_tx;
		t->wire_bytes += st->wire_bytes;
		t->packets_queued += st->packets_queued;
		t->bytes_queued += st->bytes_queued;
		t->bytes_completed += st->bytes_completed;
		t->inflight += st->inflight;
		t->completions += st->completions;
		t->stops += st->stops;
		t->ring_stops += st->ring_stops;
		t->drops += st->drops;
		t->stall_cnt += st->stall_cnt;
		if (st->stall_max > t->stall_max)
			t->stall_max = st->stall_max;
	}
	t->throughput_bps = (double)t->bytes_tx * 8.0 * 1e9 / (double)t->duration_ns;
	t->utilization = (double)t->wire_bytes * 8.0 * 1e9 / (double)t->duration_ns /
			 (double)t->link_bps;
	t->ring_delay = &s->tot_ring;
	t->qdisc_delay = &s->tot_qdisc;
}
