/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The model of `bqltool tune --from TRACE`, pure: fed with every record of
 * a replay over the trace, it writes a sim_config and describes what it
 * fitted. No I/O.
 */
#ifndef BQLTOOL_DQL_TUNE_FIT_H
#define BQLTOOL_DQL_TUNE_FIT_H

#include <stdbool.h>
#include <stdint.h>

#include "replay.h"
#include "sim.h"

/*
 * struct tune_fit - a model from a trace, fed with every replayed record
 * (tune_fit_event) of a replay over it, in time order.
 *
 * What the trace shows, per queue: a completion window (from one C of the
 * queue to its next) is busy when what was in flight right after the first
 * C, with the refill that follows it (TUNE_FIT_REFILL_NS), is more than the
 * next C completes: bytes queued before the window were
 * still not sent at its end, so the ring never ran dry and the link (shared
 * by the queues, work-conserving) sent all along. The completion interval
 * of busy windows is the coalescing time plus the IRQ latency; the link
 * rate is the bytes all queues completed over the union of the busy
 * windows (the busy periods of the sum of the queues), seen where they
 * cover at least TUNE_FIT_MIN_BUSY_FRAC of the trace.
 *
 * A trace of C records only (record's backends: nq=, lo=) has no Q: the
 * bytes queued between two C of a queue are the growth of num_queued, and
 * when it grew, lo= (last_obj_cnt) is the size of the last packet queued.
 *
 * A queue that is not busy most of the time sends in bursts when its
 * intervals come in runs of short ones between long silences (the mean
 * interval more than TUNE_FIT_BURSTY times the median, and at least two
 * intervals TUNE_FIT_GAP_LONG times the median): it is modelled on/off,
 * sending at the median interval while on, so that the intervals and the
 * load are the trace's; else Poisson at its rate.
 */
#define TUNE_FIT_GAP_SUB	8	/* buckets per octave of a queue's intervals */
#define TUNE_FIT_GAP_MIN_BITS	8	/* the first octave: 256 ns */
#define TUNE_FIT_GAP_BUCKETS	(TUNE_FIT_GAP_SUB * 34 + 1)	/* up to 2^42 ns */

struct tune_fit_queue {
	uint32_t inflight;		/* after the last record */
	uint32_t inflight_c;		/* right after the last C */
	uint64_t q_bytes, q_pkts;
	uint64_t nq_bytes;		/* queued, from nq= (no Q records) */
	uint32_t nq_last;		/* num_queued after the last C */
	bool nq_seen;
	uint64_t c_bytes, c_cnt, c_first, c_last;
	uint64_t cum_c;			/* f->c_cum right after the last C */
	uint64_t busy_ns, busy_n;	/* its busy windows */
	uint32_t gap[TUNE_FIT_GAP_BUCKETS];	/* its completion intervals */
};

struct tune_fit {
	unsigned int nq;		/* queues seen */
	unsigned int hz;
	bool any;
	uint64_t t_first, t_last;
	/* per queue of the trace, as many as it has (grown as they come) */
	struct tune_fit_queue *q;
	unsigned int qcap;
	uint64_t inflight;		/* of all queues */
	/* packet sizes (Q records) */
	uint64_t pkts, pkt_bytes;
	uint32_t pkt_min, pkt_max;
	/* ... or, without Q records, lo= of the C records after new bytes */
	uint64_t lo_n, lo_bytes;
	uint32_t lo_min, lo_max;
	struct sim_hist pkt_size, lo_size;	/* their distributions */
	/* completions of all queues */
	uint64_t c_n, c_cum;
	/* the busy period being joined, and those closed */
	bool in_period;
	uint64_t per_a, per_b, cum_a, cum_b;
	uint64_t busy_bytes, busy_ns, busy_periods;
	/* the limit after each C */
	uint32_t lim_min, lim_max;
	double lim_sum;
	struct sim_hist c_size;		/* bytes per completion */
	struct sim_hist c_gap;		/* interval between completions of a queue */
	struct sim_hist busy_gap;	/* ... in its busy windows */
	struct sim_hist busy_size;	/* bytes per completion of a busy window */
	int err;			/* -ENOMEM */
};

/* what does not fit: why no recommendation can be trusted (see tune_fitted) */
enum {
	TUNE_MISFIT_FEW = 1u << 0,	/* too few completions */
	TUNE_MISFIT_NEVER_BUSY = 1u << 1, /* the link rate was never observable */
	TUNE_MISFIT_OVERLOAD = 1u << 2,	/* more offered than the fitted link carries */
	TUNE_MISFIT_RANGE = 1u << 3,	/* a fitted link outside the simulator's range */
	TUNE_MISFIT_SIM = 1u << 4,	/* the fitted model does not reproduce the trace */
};

#define TUNE_FIT_MIN_COMPLETIONS	20
#define TUNE_FIT_MIN_BUSY		10	/* busy windows to see the link */
#define TUNE_FIT_MIN_BUSY_FRAC		0.05	/* ... over 5% of the trace */
/* Q records this soon after a queue's C refill the ring the poll emptied */
#define TUNE_FIT_REFILL_NS		5000
#define TUNE_FIT_FRAME_MAX		1514	/* a full Ethernet frame (skb->len) */
#define TUNE_FIT_BURSTY			2	/* mean interval / median: on/off */
#define TUNE_FIT_GAP_LONG		16	/* a silence: this many medians */
#define TUNE_FIT_BURST_MIN_GAPS		20	/* intervals of a queue to judge it */
#define TUNE_FIT_PERIOD_MAX_NS		100000000ull	/* on + off, shorter runs see many */
#define TUNE_FIT_BURST_PKTS		8	/* at least, per on period */

/* where the packet sizes came from */
enum tune_pkt_from {
	TUNE_PKT_ASSUMED,		/* not in the trace: 1514 */
	TUNE_PKT_Q,			/* Q records */
	TUNE_PKT_LO,			/* lo= (last_obj_cnt) of C records */
};

/* struct tune_fitted - what was fitted, for the report */
struct tune_fitted {
	bool link_ok;			/* the link rate could be observed */
	bool link_assumed;		/* not observed: a common rate above the load */
	uint64_t link_bps;		/* observed (link_ok) */
	uint64_t busy_intervals;	/* busy windows, all queues */
	uint64_t busy_periods;		/* their union */
	double busy_frac;		/* of the trace's duration */
	uint64_t gap_p50_ns, gap_p10_ns, gap_p01_ns;	/* between completions of a queue */
	uint64_t busy_gap_p50_ns;	/* ... in busy windows */
	uint64_t batch_p50;		/* bytes per completion */
	uint64_t busy_batch_p50;	/* ... in busy windows */
	unsigned int coalesce_usecs;
	uint64_t irq_latency_ns;	/* assumed: the model's */
	uint64_t completions;
	double offered_bps, completed_bps;
	double load;			/* offered / link */
	bool bulk;			/* every active queue modelled backlogged */
	unsigned int nqueues, active;	/* of the trace */
	unsigned int busy_queues;	/* modelled backlogged: busy most of the time */
	bool folded;			/* more than SIM_MAX_QUEUES: i on i mod it */
	bool pkt_seen;			/* sizes from the trace, else assumed 1514 */
	enum tune_pkt_from pkt_from;
	unsigned int bursty;		/* queues modelled on/off */
	bool pkt_clamped;		/* some above SIM_PKT_MAX */
	uint32_t pkt_min, pkt_max, pkt_max_seen;
	uint32_t pkt_p50;		/* the median packet */
	double pkt_mean;
	uint32_t limit_min, limit_max;	/* after the C records */
	double limit_mean;
	uint64_t duration_ns;
	unsigned int hz;
	unsigned int misfit;		/* TUNE_MISFIT_* */
};

/*
 * struct tune_gof - goodness of fit: the fitted model simulated and the
 * same measures taken from its records as from the trace. Each *_err is
 * |model - trace| / trace.
 */
struct tune_gof {
	struct tune_fitted model;	/* the measures of the simulated model */
	double interval_err, batch_err, throughput_err, limit_err;
	bool ok;			/* within TUNE_GOF_TOL (limits: 2x) */
};

#define TUNE_GOF_TOL	0.3

void tune_fit_init(struct tune_fit *f);
void tune_fit_free(struct tune_fit *f);
void tune_fit_event(struct tune_fit *f, const struct replay_event *ev, unsigned int hz);
/*
 * tune_fit_finish - write the fitted model into @cfg (link unless
 * @keep_link, queues unless @keep_queues, traffic unless @keep_traffic,
 * coalescing, HZ) and describe it in @out, with ->misfit saying what does
 * not fit (the model is written all the same: the caller decides). The
 * model has the trace's queues, at most SIM_MAX_QUEUES (or @cfg's with
 * @keep_queues): the traffic of trace queue i goes to model queue i
 * modulo their number; a queue busy most of the time carries a backlogged
 * flow, any other a Poisson flow at its rate. Every value written is in
 * the simulator's range. -EINVAL with @e if the trace has no completion,
 * -ENOMEM.
 */
int tune_fit_finish(const struct tune_fit *f, struct sim_config *cfg, bool keep_link,
		    bool keep_queues, bool keep_traffic, struct tune_fitted *out,
		    struct bql_err *e);
/*
 * tune_fit_check - simulate @cfg (with its settings, for the trace's
 * duration within 10 ms..TUNE_FIT_CHECK_MAX_NS) and compare it with @tr: the completion
 * interval and batch of busy windows (of all windows if either has too few
 * busy ones), the throughput and the limit's mean. With @calibrate, first
 * move @cfg's coalesce_usecs (up to TUNE_FIT_ROUNDS times) until the busy
 * interval matches the trace's. Sets TUNE_MISFIT_SIM in @tr->misfit if it
 * does not fit. 0, or -errno if the model cannot run, with @e (may be
 * NULL) naming the value out of range as the simulator or replay words it.
 */
int tune_fit_check(struct sim_config *cfg, bool calibrate, struct tune_fitted *tr,
		   struct tune_gof *g, struct bql_err *e);

#define TUNE_FIT_ROUNDS		4
#define TUNE_FIT_CHECK_MAX_NS	1000000000ull	/* 1 s */

#endif
