/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A deterministic discrete-event model of one NIC's transmit path driven by
 * the kernel-exact DQL engine (dql.c): traffic generators, a pfifo qdisc and
 * a descriptor ring per TX queue, one link shared round-robin by the
 * queues, interrupt coalescing, NAPI polls with a budget, and BQL exactly as
 * netdev_tx_sent_queue()/netdev_tx_completed_queue() drive it.
 *
 * Pure: no I/O. Memory is allocated by sim_new() only (qdisc and ring
 * slots, fixed-size delay histograms), so it does not grow with the
 * simulated duration, and the event loop allocates nothing. Results come
 * back through callbacks (every DQL call, as a bqltrace record) and the
 * statistics accessors below.
 */
#ifndef BQLTOOL_DQL_SIM_H
#define BQLTOOL_DQL_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "dql.h"
#include "err.h"
#include "trace.h"

#define SIM_MAX_QUEUES		64
#define SIM_MAX_FLOWS		64
#define SIM_MAX_SET		16
#define SIM_MAX_AT		64
#define SIM_MAX_STALLS		16
#define SIM_LINK_MIN		10000000ull		/* 10M */
#define SIM_LINK_MAX		400000000000ull		/* 400G */
#define SIM_RING_MAX		65536
#define SIM_QLEN_MAX		100000
#define SIM_PKT_MAX		65536			/* a TSO super-packet */
#define SIM_DURATION_MAX	(3600ull * 1000000000ull)	/* one hour */
#define SIM_IRQ_LAT_MAX		(1000000000ull)		/* 1 s */

/*
 * Ethernet framing: a frame of L bytes (skb->len, without FCS) holds the
 * wire for max(L, 60) + 4 (FCS) + 8 (preamble, SFD) + 12 (inter-frame
 * gap) byte-times: 1538 for 1514, 84 for 60 or less.
 */
#define SIM_FRAME_MIN		60			/* 64 with the FCS */
#define SIM_FRAME_OVERHEAD	24
/* TSO: headers (Ethernet 14, IPv4 20, TCP with timestamps 32) replicated per segment */
#define SIM_TSO_HDR		66
#define SIM_TSO_MSS		1448			/* default payload per segment */
#define SIM_FRAG_SIZE		4096			/* default --frag-size */
#define SIM_FRAG_MIN		512

/* packet size distributions (--size) */
enum sim_size_kind {
	SIM_SIZE_FIXED,		/* a */
	SIM_SIZE_UNIFORM,	/* a..b inclusive */
	SIM_SIZE_IMIX,		/* 60, 590, 1514 bytes in 7:4:1 */
	SIM_SIZE_BIMODAL,	/* a with probability p, else b */
	SIM_SIZE_TSO,		/* a (a super-packet, up to 64 KiB), MSS b (0: SIM_TSO_MSS) */
};

struct sim_size {
	enum sim_size_kind kind;
	uint32_t a, b;
	double p;
};

/* traffic kinds (--traffic) */
enum sim_traffic_kind {
	SIM_T_BULK,		/* backlogged: the qdisc is never empty */
	SIM_T_CBR,		/* constant bit rate */
	SIM_T_POISSON,		/* exponential gaps, mean rate */
	SIM_T_ONOFF,		/* CBR for on_ns, silent for off_ns, repeated */
};

struct sim_flow {
	enum sim_traffic_kind kind;
	bool pinned;		/* on queue @queue, not hashed */
	unsigned int queue;
	uint64_t rate_bps;	/* CBR/POISSON/ONOFF: offered bits/s */
	uint64_t on_ns, off_ns;	/* ONOFF */
	struct sim_size size;
};

/* a setting: key is BQLT_K_LIMIT_MIN/LIMIT_MAX/HOLD_TIME/STALL_THRS, sysfs units */
struct sim_kv {
	enum bqlt_key key;
	uint64_t val;
};

/* --at TIME:KEY=VALUE */
struct sim_at {
	uint64_t t_ns;
	struct sim_kv kv;
};

/* --stall TIME:DURATION: NAPI polls due in [t_ns, t_ns + len_ns) run at the end */
struct sim_stall {
	uint64_t t_ns, len_ns;
};

/*
 * struct sim_config - the model. sim_config_init() sets the defaults:
 * 1 Gbit/s, 1 queue, qlen 1000, ring 256, coalescing 50 us / 0 frames,
 * a TX clean budget of 256 per poll, IRQ latency 5 us without jitter, HZ 250, newest kernel,
 * 1 s, seed 1, and one bulk flow of 1514-byte packets.
 *
 * Coalescing: a queue's interrupt is raised coalesce_usecs after the first
 * packet completed on the wire since the last poll, or as soon as
 * coalesce_frames have completed (0 = no frame limit), whichever is first;
 * coalesce_usecs 0 raises it for every packet. The NAPI poll runs
 * irq_latency +- irq_jitter later (uniform) and reaps at most napi_budget
 * descriptors (the driver's TX work limit: 256 in ixgbe and i40e), polling
 * again at once while the budget is exhausted; the qdisc runs after the
 * last poll, as NET_TX_SOFTIRQ runs after the NET_RX polling loop.
 */
struct sim_config {
	uint64_t link_bps;
	unsigned int nqueues;
	unsigned int qlen;		/* qdisc backlog limit, packets */
	unsigned int ring;		/* descriptors per queue */
	unsigned int coalesce_usecs;
	unsigned int coalesce_frames;
	unsigned int napi_budget;
	uint64_t irq_latency_ns, irq_jitter_ns;
	unsigned int hz;
	unsigned int kflags;		/* DQL_K_* */
	uint64_t duration_ns;
	uint64_t seed;
	unsigned int nflows;
	struct sim_flow flows[SIM_MAX_FLOWS];
	unsigned int nset;		/* initial settings, applied in order */
	struct sim_kv set[SIM_MAX_SET];
	unsigned int nat;		/* sorted by time by sim_new() */
	struct sim_at at[SIM_MAX_AT];
	unsigned int nstalls;
	struct sim_stall stalls[SIM_MAX_STALLS];
	/*
	 * The wire and the ring (#21). Framing: a frame's time on the wire
	 * is its bytes plus SIM_FRAME_OVERHEAD (at least SIM_FRAME_MIN + it),
	 * a TSO packet is sent as its segments, each with SIM_TSO_HDR bytes
	 * of headers; @no_framing: a packet's bytes only, as before. DQL
	 * counts skb->len either way. Descriptors: a packet of at most
	 * @frag_size bytes takes one, a larger one 1 + ceil((len -
	 * SIM_TSO_HDR) / @frag_size) (a header descriptor and its page
	 * fragments); @ring counts descriptors.
	 */
	bool no_framing;
	unsigned int frag_size;
};

void sim_config_init(struct sim_config *cfg);
/*
 * sim_config_check - every value in range, every setting accepted by the
 * kernel's sysfs stores at this HZ. 0 or -EINVAL/-ERANGE with @e naming
 * the option ("--link", "--set stall_thrs", ...) and the value.
 */
int sim_config_check(const struct sim_config *cfg, struct bql_err *e);
/*
 * the TX queue of a flow: its pinned queue, or one with the fewest flows
 * before it (pinned ones counted), ties broken in an order the seed shuffles
 */
unsigned int sim_flow_queue(const struct sim_config *cfg, unsigned int flow);

/*
 * SIM_WORK_MAX - the most simulated events (see sim_work_estimate()) one
 * run may take: about 10 s of CPU at the engine's speed (some 30..50 M
 * packets per second). 400 Gbit/s of bulk 1514-byte frames for 1 s is
 * about 33 M, 400G of imix for 1 s about 130 M; a day of work for a
 * minute of 400G or 1-byte frames with an interrupt each is refused.
 */
#define SIM_WORK_MAX		400000000ull

/*
 * struct sim_work - what sim_work_estimate() counted, for a message that
 * names what to change: @arrivals (packets the non-bulk flows offer,
 * dropped or not), @packets (on the link), @irqs, @polls, @periods (the
 * on/off switches of the onoff flows) and @total, their sum (saturating).
 */
struct sim_work {
	uint64_t arrivals, packets, irqs, polls, periods, total;
};

/*
 * sim_work_estimate - an upper-bound-ish count of the events a run of
 * @cfg takes: packets on the link at line rate for the duration (at the
 * smallest mean frame size of the flows; no more than the non-bulk flows
 * offer if none is bulk), the arrivals of the non-bulk flows, interrupts
 * (at most one per packet, and per queue one per coalescing + IRQ latency
 * cycle), NAPI polls (one per interrupt plus one per budget of packets),
 * the on/off periods and the --at writes. Cheap (no allocation), valid
 * for any @cfg that sim_config_check() accepts. sim_work_count() gives
 * the parts.
 */
uint64_t sim_work_estimate(const struct sim_config *cfg);

/*
 * struct sim_warning - a model that cannot fill its link whatever BQL
 * does: the descriptor rings of the busy queues hold @ring_ns of the link
 * (at the mean frame of their flows), less than the @cycle_ns from a
 * completion to the poll that reaps it (coalescing, or the frames that end
 * it sooner, plus the IRQ latency), so the link idles each cycle and
 * carries at most @cap_bps of @offered_bps (UINT64_MAX: backlogged).
 * @msg says so and what to change.
 *
 * The NAPI budget cannot cap the completion rate in this model: a poll
 * that uses its budget polls again at once (as net_rx_action() does
 * while time remains), so there is no warning for it.
 *
 * SIM_WARN_AFTER_END: @count of the @option (--at, --stall) times, the
 * earliest @t_ns, are at or after the end of the run (@end_ns): those
 * settings never apply, those stalls never happen.
 */
enum sim_warn_kind {
	SIM_WARN_RING_BOUND = 1,
	SIM_WARN_AFTER_END,
};

struct sim_warning {
	enum sim_warn_kind kind;
	uint64_t ring_ns, cycle_ns;
	uint64_t cap_bps, offered_bps;
	const char *option;
	unsigned int count;
	uint64_t t_ns, end_ns;
	char msg[400];
};

/*
 * sim_fmt_ns - a duration in ns as text, three significant digits: "812 ns",
 * "12.3 us", "1.25 ms", "3600 s". The unit is chosen after rounding, so
 * that 999.6 us is "1 ms", not "1e+03 us". Returns @buf.
 */
char *sim_fmt_ns(char *buf, size_t n, uint64_t ns);

/* sim_model_warnings - up to @max warnings into @w; how many there are */
unsigned int sim_model_warnings(const struct sim_config *cfg, struct sim_warning *w,
				unsigned int max);

/* the mean and the largest packet (skb->len) of @sz */
double sim_size_mean(const struct sim_size *sz);
uint32_t sim_size_max(const struct sim_size *sz);
/* the MSS of a TSO size */
static inline uint32_t sim_size_mss(const struct sim_size *sz)
{
	return sz->b ? sz->b : SIM_TSO_MSS;
}
/* the segments a packet of @len bytes of @sz is sent as (1 unless TSO) */
uint32_t sim_segments(const struct sim_size *sz, uint32_t len);
/* the byte-times a packet of @len bytes of @sz holds the wire in @cfg */
uint32_t sim_wire_bytes(const struct sim_config *cfg, const struct sim_size *sz, uint32_t len);
/* the descriptors a packet of @len bytes takes in @cfg's ring */
static inline uint32_t sim_descs(const struct sim_config *cfg, uint32_t len)
{
	uint32_t frag = cfg->frag_size ? cfg->frag_size : SIM_FRAG_SIZE;

	if (len <= frag)
		return 1;
	return 1 + (len - SIM_TSO_HDR + frag - 1) / frag;
}
void sim_work_count(const struct sim_config *cfg, struct sim_work *w);

/*
 * Fixed-size log-linear histogram of nanosecond delays: exact below 64 ns,
 * then 64 buckets per power of two (relative error below 1/64). Mergeable
 * by adding bucket counts.
 */
#define SIM_HIST_SUB_BITS	6
#define SIM_HIST_SUB		(1u << SIM_HIST_SUB_BITS)
#define SIM_HIST_BUCKETS	((64 - SIM_HIST_SUB_BITS + 1) * SIM_HIST_SUB)

struct sim_hist {
	uint64_t n, max, sum;
	uint64_t b[SIM_HIST_BUCKETS];
};

void sim_hist_add(struct sim_hist *h, uint64_t v);
void sim_hist_merge(struct sim_hist *dst, const struct sim_hist *src);
/*
 * sim_hist_quantile - the q-quantile (0 < q <= 1): the upper bound of the
 * bucket that holds the ceil(q * n)-th smallest value, capped at the exact
 * maximum; 0 when empty.
 */
uint64_t sim_hist_quantile(const struct sim_hist *h, double q);

/*
 * struct sim_qstats - one TX queue at the end of the run.
 * @packets, @bytes_tx:	sent on the wire
 * @packets_queued, @bytes_queued: passed to dql_queued() (entered the ring)
 * @bytes_completed:	passed to dql_completed()
 * @inflight:		dql_inflight() at the end
 * @completions:	dql_completed() calls (NAPI polls that reaped bytes)
 * @stops:		BQL stops (STACK_XOFF set by netdev_tx_sent_queue)
 * @ring_stops:		driver stops because the ring was full
 * @drops:		packets refused by a full qdisc (not bulk flows)
 * @starved_ns:		this queue's ring had nothing to send while its
 *			qdisc had packets
 * @limit_*:		the limit after each completion: min, max, mean
 *			weighted by time between completions (as replay
 *			computes it), and the final limit
 * @ring_delay:		ring enqueue (netdev_tx_sent_queue) -> start on the wire
 * @qdisc_delay:	qdisc enqueue -> dequeue into the ring
 */
struct sim_qstats {
	uint64_t packets, bytes_tx;
	uint64_t wire_bytes;		/* byte-times on the wire, framing included */
	uint64_t packets_queued, bytes_queued, bytes_completed;
	uint32_t inflight;
	uint64_t completions, stops, ring_stops, drops;
	uint64_t starved_ns;
	uint32_t limit_min, limit_max, limit_final;
	double limit_mean;
	uint64_t stall_cnt;
	uint32_t stall_max;		/* jiffies */
	struct sim_hist ring_delay, qdisc_delay;	/* last: 30 KiB each */
};

/* the link: sums over queues, merged histograms */
struct sim_totals {
	uint64_t duration_ns, link_bps;
	uint64_t packets, bytes_tx;
	double throughput_bps, utilization;
	uint64_t starved_ns;		/* link idle while a qdisc had packets */
	uint64_t packets_queued, bytes_queued, bytes_completed, inflight;
	uint64_t completions, stops, ring_stops, drops;
	uint64_t stall_cnt;
	uint32_t stall_max;
	const struct sim_hist *ring_delay, *qdisc_delay;
	uint64_t wire_bytes;		/* utilization: these over the link's for the duration */
	uint64_t arrivals_ahead;	/* taken ahead of time order (sim_set_ahead()) */
	uint64_t polls_fifo;		/* events kept off the tree (sim_set_poll_fifo()) */
};

/* struct sim_rec - one DQL call or sysfs write, as a bqltrace record */
struct sim_rec {
	enum bqlt_kind kind;	/* BQLT_R, BQLT_Q, BQLT_C or BQLT_P */
	unsigned int queue;
	uint64_t t_ns;
	uint64_t jiffies;
	uint32_t bytes;		/* Q, C */
	uint32_t limit;		/* the limit after the call */
	uint32_t inflight;	/* after the call */
	struct sim_kv kv;	/* P */
};

/*
 * struct sim_ops - callbacks, each may be NULL.
 * @record:	every dql_reset/queued/completed call and sysfs write, in
 *		time order. At t=0 each queue gets an R (the driver's
 *		netdev_tx_reset_queue() at ifup), after dql_init() and the
 *		initial settings, which is how replay creates a queue.
 * @progress:	now and then, with the simulated time reached
 */
struct sim_ops {
	void (*record)(void *arg, const struct sim_rec *r);
	void (*progress)(void *arg, uint64_t t_ns);
};

/*
 * sim_rec_to_bqlt - the record as bqlt_parse_line() would return it from
 * the trace line `bqltool sim --trace` writes (on line @line, queue @qname,
 * which must outlive @rec), C records with limit=.
 */
void sim_rec_to_bqlt(const struct sim_rec *r, const char *qname, unsigned int hz,
		     uint64_t line, struct bqlt_rec *rec);

/*
 * sim_queue_to_bqlt - the `queue` directive of queue @q (named @qname) in
 * that trace: the model's initial settings, in order.
 */
void sim_queue_to_bqlt(const struct sim_config *cfg, unsigned int q, const char *qname,
		       uint64_t line, struct bqlt_rec *rec);

struct sim;

/* sim_new - check @cfg (as sim_config_check) and allocate; 0 or -errno. */
int sim_new(struct sim **sp, const struct sim_config *cfg, struct bql_err *e);
/*
 * sim_set_ahead - take the arrivals that commute with the events due
 * before them (into a qdisc that holds packets, or dropped) ahead of
 * those: the same results, with fewer branches that no processor can
 * predict (on by default). Off: every event in time order; the tests
 * check that both give the same.
 */
void sim_set_ahead(struct sim *s, bool on);
/*
 * sim_set_poll_fifo - keep the polls that come in the order they are set
 * in a FIFO, not in the event tree (unless a frame count can replace a
 * coalescing timer): the same results, with fewer instructions per poll
 * (on by default). Off: every event on the tree; the tests check that
 * both give the same.
 */
void sim_set_poll_fifo(struct sim *s, bool on);
/* sim_run - run once, from 0 to the duration. */
void sim_run(struct sim *s, const struct sim_ops *ops, void *arg);
const struct sim_config *sim_cfg(const struct sim *s);
const struct sim_qstats *sim_queue_stats(const struct sim *s, unsigned int q);
const struct dql *sim_queue_dql(const struct sim *s, unsigned int q);
void sim_get_totals(const struct sim *s, struct sim_totals *t);
void sim_free(struct sim *s);

#endif
