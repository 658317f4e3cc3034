/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The BQL settings advisor behind `bqltool tune`, pure: the candidate
 * settings to simulate (a coarse sweep, then a refinement around the best),
 * one evaluation (a sim run, callable from any thread), the choice, and a
 * model fitted from a replayed trace. No I/O, no threads: the caller runs
 * the evaluations, in parallel or not; the results are the same.
 */
#ifndef BQLTOOL_DQL_TUNE_H
#define BQLTOOL_DQL_TUNE_H

#include <stdbool.h>
#include <stdint.h>

#include "replay.h"
#include "sim.h"

#define TUNE_MAX_CAND	256

/*
 * The qdisc in front of the TX queues, for the latency a sparse flow sees
 * behind bulk traffic: behind a flow-isolating qdisc (fq_codel, fq, cake)
 * it waits for the ring only; behind a FIFO (pfifo_fast, pfifo, bfifo) for
 * the qdisc's backlog and the ring. UNKNOWN: not read, not given.
 */
enum tune_qdisc {
	TUNE_QDISC_UNKNOWN,
	TUNE_QDISC_FIFO,
	TUNE_QDISC_FQ,
};

/* the three settings searched, in sysfs units */
struct tune_settings {
	uint32_t limit_min, limit_max;
	uint32_t hold_time;		/* ms */
};

/* the kernel defaults (dql_init) */
void tune_defaults(struct tune_settings *s);
bool tune_is_default(const struct tune_settings *s);

struct tune_result {
	struct tune_settings set;
	uint64_t bytes_tx;
	double throughput_bps;
	uint64_t p50, p99, max;		/* ring delay, ns */
	uint64_t starved_ns;
	uint32_t peak_limit;		/* highest limit of any queue */
	double mean_limit;		/* mean of the queues' mean limits */
	bool feasible;			/* throughput within keep of the baseline */
	int err;			/* -errno: could not simulate */
};

/*
 * tune_eval - simulate @cfg with @s replacing its BQL settings (any other
 * --set of @cfg is dropped). Allocates and frees one sim; thread-safe.
 */
void tune_eval(const struct sim_config *cfg, const struct tune_settings *s,
	       struct tune_result *r);

/*
 * tune_coarse - the first sweep, from the baseline's (defaults') result:
 * limit_max on a geometric grid from one packet to twice the highest limit
 * the defaults reached, each with hold_time 1000, 100 and 20 ms. Returns the
 * count (at most @max).
 */
unsigned int tune_coarse(const struct sim_config *cfg, const struct tune_result *base,
			 struct tune_settings *out, unsigned int max);
/*
 * tune_refine - after the sweep: limit_max between the best feasible
 * candidate and the next lower grid value, and limit_min floors under the
 * best limit_max. Only settings not in @done are returned.
 */
unsigned int tune_refine(const struct tune_result *done, unsigned int ndone,
			 struct tune_settings *out, unsigned int max);
/* tune_mark - set ->feasible: throughput >= @keep x the baseline's */
void tune_mark(struct tune_result *r, unsigned int n, const struct tune_result *base,
	       double keep);
/*
 * tune_pick - the feasible candidate with the lowest p99 ring delay (ties:
 * higher throughput, then the earlier one); -1 if none is feasible or the
 * best does not cut the baseline's p99 by at least @min_gain (0.1 = 10%)
 * and by at least @min_ns. *@best (may be NULL) is the best feasible one
 * even then, or -1.
 */
int tune_pick(const struct tune_result *r, unsigned int n, const struct tune_result *base,
	      double min_gain, uint64_t min_ns, int *best);
/*
 * tune_min_gain_ns - the smallest p99 cut worth a change: the time two of
 * the largest packets take on the link (less is within one packet's jitter).
 */
uint64_t tune_min_gain_ns(const struct sim_config *cfg);

/* ------------------------------------------------------------ fitting */

/*
 * struct tune_fit - a model from a trace, fed with every replayed record
 * (tune_fit_event) of a replay over it.
 */
struct tune_fit_queue {
	uint32_t inflight;
	uint64_t q_bytes, q_pkts;
	uint64_t c_bytes, c_cnt, c_last;
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
	/* packet sizes (Q records, else lo=) */
	uint64_t pkts, pkt_bytes;
	uint32_t pkt_min, pkt_max;
	/* link: completions while the ring did not run dry */
	uint64_t busy_bytes, busy_ns, busy_n;
	uint64_t total_at_c, last_c;
	bool have_c;
	struct sim_hist c_size, c_gap, busy_gap;
	int err;			/* -ENOMEM */
};

/* struct tune_fitted - what was fitted, for the report */
struct tune_fitted {
	bool link_ok;			/* the link rate could be observed */
	bool link_assumed;		/* not observed: a common rate above the load */
	uint64_t link_bps;
	uint64_t busy_intervals;
	uint64_t gap_p50_ns, gap_p10_ns;	/* between completions of a queue */
	uint64_t batch_p50;		/* bytes per completion */
	unsigned int coalesce_usecs;
	double offered_bps;
	double load;			/* offered / link */
	bool bulk;			/* modelled as backlogged */
	unsigned int nqueues, active;	/* of the trace */
	bool folded;			/* more than SIM_MAX_QUEUES: i on i mod it */
	bool pkt_seen;			/* sizes from Q records, else assumed 1514 */
	uint32_t pkt_min, pkt_max;
	double pkt_mean;
	uint64_t duration_ns;
	unsigned int hz;
};

void tune_fit_init(struct tune_fit *f);
void tune_fit_free(struct tune_fit *f);
void tune_fit_event(struct tune_fit *f, const struct replay_event *ev, unsigned int hz);
/*
 * tune_fit_finish - write the fitted model into @cfg (link unless
 * @keep_link, queues unless @keep_queues, traffic unless @keep_traffic,
 * coalescing, HZ) and describe it in @out. The model has the trace's
 * queues, at most SIM_MAX_QUEUES (or @cfg's with @keep_queues): the
 * traffic of trace queue i goes to model queue i modulo their number.
 * -EINVAL with @e if the trace has no completion, -ENOMEM.
 */
int tune_fit_finish(const struct tune_fit *f, struct sim_config *cfg, bool keep_link,
		    bool keep_queues, bool keep_traffic, struct tune_fitted *out,
		    struct bql_err *e);

#endif
