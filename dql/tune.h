/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The BQL settings advisor behind `bqltool tune`, pure: the candidate
 * settings to simulate (a coarse sweep, then a refinement around the best),
 * one evaluation (a sim run, callable from any thread) and the choice; the
 * model fitted from a replayed trace is in tune_fit.h. No I/O, no threads:
 * the caller runs the evaluations, in parallel or not (lib/model/tune_eval.c
 * does, over the ensemble); the results are the same.
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
/* how many of @s's three settings differ from the defaults */
unsigned int tune_changes(const struct tune_settings *s);

/*
 * One simulation of a setting, or (tune_fold) a setting over the ensemble:
 * then the scalar fields are the nominal member's (the first), and
 * @worst_* and @fail_member cover every member evaluated.
 */
struct tune_result {
	struct tune_settings set;
	uint64_t bytes_tx;
	double throughput_bps;
	uint64_t p50, p99, max;		/* ring delay, ns */
	uint64_t qdisc_p99;		/* qdisc delay, ns */
	uint64_t lat;			/* the latency optimized (tune_latency) */
	uint64_t starved_ns;
	uint32_t peak_limit;		/* highest limit of any queue */
	double mean_limit;		/* mean of the queues' mean limits */
	bool feasible;			/* throughput within keep of the baseline */
	int err;			/* -errno: could not simulate */
	/* over the ensemble */
	unsigned int members;		/* evaluated */
	uint64_t worst_lat;		/* highest @lat of any member */
	int worst_lat_member;
	double worst_ratio;		/* lowest throughput / the defaults' in a member */
	int worst_ratio_member;
	int fail_member;		/* the first member below keep, -1: none */
	bool short_margin;		/* held the ensemble, not the engine's lateness on the model */
	uint64_t margin_held_ns;	/* ... where it held up to this lateness */
	bool margin_unmeasured;		/* held the ensemble; tune gave up before its margin */
};

/*
 * tune_eval - simulate @cfg with @s replacing its BQL settings (any other
 * --set of @cfg is dropped). Allocates and frees one sim; thread-safe.
 */
void tune_eval(const struct sim_config *cfg, const struct tune_settings *s,
	       struct tune_result *r);

/*
 * tune_latency - what a sparse flow waits behind bulk traffic, from one
 * simulation: the p99 ring delay behind a flow-isolating qdisc (or an
 * unknown one), the p99 qdisc delay plus the p99 ring delay (a bound of
 * the p99 of their sum) behind a FIFO.
 */
uint64_t tune_latency(const struct tune_result *r, enum tune_qdisc q);

/*
 * tune_whole_periods - @dur rounded up to whole periods (on + off) of the
 * longest on/off flow of @cfg, so that a run carries each flow's mean rate
 * whatever its length (unchanged if none, or past SIM_DURATION_MAX).
 */
uint64_t tune_whole_periods(const struct sim_config *cfg, uint64_t dur);

/* ------------------------------------------------------------ ensemble */

/*
 * The ensemble: the conditions every candidate is judged under, the model
 * first. Interrupts come later by the margin the search requires (the
 * engine's late_ns: at least half of what the defaults tolerate), with half
 * that as jitter; the offered load of rate flows is
 * TUNE_LOAD_PCT % higher and lower; on a model of N queues carrying
 * traffic only 1 and N/2 of them are busy; each member has its own seed.
 * Every run is at least TUNE_HOLDS hold times long (and the model's
 * duration), so that DQL shrinks several times.
 */
#define TUNE_MAX_MEMBERS	8
#define TUNE_IRQ_LATE_NS	20000ull
#define TUNE_IRQ_JITTER_NS	10000ull
#define TUNE_LOAD_PCT		20
#define TUNE_HOLDS		5

struct tune_member {
	uint64_t irq_late_ns;		/* added to the model's IRQ latency */
	uint64_t irq_jitter_ns;		/* replaces the model's jitter if larger */
	unsigned int busy;		/* queues with traffic, 0: the model's */
	int load_pct;			/* rate flows' rates scaled by 100 + this % */
	uint64_t seed_add;		/* added to the model's seed */
	/*
	 * judged for throughput only: interrupts late by the margin set the
	 * ring delay there whatever BQL does, so its latency judges nothing
	 */
	bool throughput_only;
};

/*
 * tune_ensemble - the members for @cfg, the model first; returns the count.
 * The member of late interrupts has them @late_ns later, with @late_ns / 2
 * jitter (0: TUNE_IRQ_LATE_NS and TUNE_IRQ_JITTER_NS).
 */
unsigned int tune_ensemble(const struct sim_config *cfg, uint64_t late_ns,
			   struct tune_member *m, unsigned int max);
/*
 * tune_member_cfg - @cfg perturbed as @m says, run for at least
 * TUNE_HOLDS x @hold_time ms.
 */
void tune_member_cfg(const struct sim_config *cfg, const struct tune_member *m,
		     uint32_t hold_time, struct sim_config *out);
/* tune_member_fmt - "interrupts 20 us later, +-10 us", "1 of 8 queues busy", ... */
char *tune_member_fmt(char *buf, size_t n, const struct sim_config *cfg,
		      const struct tune_member *m);
/* the queues carrying traffic in @cfg */
unsigned int tune_busy_queues(const struct sim_config *cfg);

/*
 * tune_fold - add member @mi's result @r of a setting, against the
 * defaults' result @base in the same member, to the setting's @agg (member
 * 0 initializes it). @judge_lat: its latency counts in @agg's worst (not
 * for a throughput_only member). @keep: the throughput fraction to keep.
 */
void tune_fold(struct tune_result *agg, const struct tune_result *r,
	       const struct tune_result *base, unsigned int mi, bool judge_lat, double keep,
	       enum tune_qdisc q);

/*
 * tune_coarse - the first sweep, from the baseline's (defaults') result:
 * limit_max on a geometric grid from one packet (or @floor, if larger) to
 * twice the highest limit the defaults reached, and no cap, each with
 * hold_time 100 and 20 ms (a run lasts TUNE_HOLDS hold times: 1000 ms
 * comes in the refinement). @floor: the lowest limit_max the advice may
 * have (the rules check applies to the device, lib/model/rules.h; 0: none).
 * Returns the count (at most @max).
 */
unsigned int tune_coarse(const struct sim_config *cfg, const struct tune_result *base,
			 uint32_t floor, struct tune_settings *out, unsigned int max);
/*
 * tune_refine - after the sweep: limit_max between the best feasible
 * candidate and the next lower grid value (never below @floor, as for
 * tune_coarse), and limit_min floors under the best limit_max. Only
 * settings not in @done are returned. "Best": the lowest latency judged,
 * over the ensemble if the results were folded (worst_lat), else the run's
 * p99 ring delay.
 */
unsigned int tune_refine(const struct tune_result *done, unsigned int ndone, uint32_t floor,
			 struct tune_settings *out, unsigned int max);
/*
 * tune_hold_default - the best feasible capped candidate with the default
 * hold_time (1000 ms), into @out, if it was not tried: the last candidate,
 * as its runs are the longest.
 */
bool tune_hold_default(const struct tune_result *done, unsigned int ndone,
		       struct tune_settings *out);
/* tune_mark - set ->feasible: throughput >= @keep x the baseline's */
void tune_mark(struct tune_result *r, unsigned int n, const struct tune_result *base,
	       double keep);
/*
 * tune_pick - the feasible candidate with the lowest latency judged (as
 * tune_refine; ties: higher throughput, then the earlier one); -1 if none
 * is feasible or the best does not cut the baseline's by at least
 * @min_gain (0.1 = 10%) and by at least @min_ns. *@best (may be NULL) is the best feasible one
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
