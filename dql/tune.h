/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The BQL settings advisor behind `bqltool tune`, pure: the candidate
 * settings to simulate (a coarse sweep, then a refinement around the best),
 * one evaluation (a sim run, callable from any thread) and the choice; the
 * model fitted from a replayed trace is in tune_fit.h. No I/O, no threads:
 * the caller runs the evaluations, in parallel or not; the results are the
 * same.
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

#endif
