/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The engine behind `bqltool tune`: every candidate judged in an ensemble
 * of conditions against the defaults in the same, the margins of interrupt
 * lateness, the work budget, on a pool of threads. dql/tune.h gives the
 * pieces (the grid, one evaluation, the fold, the choice); this drives them.
 * No printing: errors come back in a struct bql_err, progress through a
 * callback, so a command or a test can run it.
 */
#ifndef BQLTOOL_LIB_TUNE_EVAL_H
#define BQLTOOL_LIB_TUNE_EVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "dql/err.h"
#include "dql/sim.h"
#include "dql/tune.h"

/* the most threads one search runs on (--threads 1..TUNE_MAX_THREADS) */
#define TUNE_MAX_THREADS	256
/* the defaults of --keep and --min-gain */
#define TUNE_KEEP_DEFAULT	0.995
#define TUNE_MIN_GAIN_DEFAULT	0.10
/*
 * The most simulated events one tune may plan (sim_work_estimate summed
 * over every run it may make): about 10 minutes of one core. A 100G model
 * of 64 backlogged queues plans about a third of it.
 */
#define TUNE_WORK_MAX		10000000000ull
/* the most settings one member may run: defaults, sweep, refinements */
#define TUNE_WORK_SETTINGS	(1 + 13 + 13 + 2 * 8)
/* the run lengths candidates are judged over: one per hold time searched */
#define TUNE_MAX_WINDOWS	8
/*
 * The margin's ladder: interrupts this much later than the model's, in us,
 * up to TUNE_MARGIN_CEIL_NS (5 ms: past it a setting "holds beyond").
 */
#define TUNE_NLATE		10
#define TUNE_MARGIN_CEIL_NS	5000000ull
extern const unsigned int tune_late_us[TUNE_NLATE];
/* the most settings one tune_engine_margins() call measures */
#define TUNE_MARGIN_MAX		8
/* the frontier: the defaults, the best and up to 2 settings that cut more */
#define TUNE_FRONTIER_MAX	4
/* the best settings found short of the required margin before tune gives up */
#define TUNE_REPICK_MAX		3

/**
 * struct tune_margin - how late interrupts may come before a setting
 * starves the link
 * @known: measured
 * @beyond: held at every rung of the ladder (tune_late_us)
 * @held_ns: the latest lateness held (0: not even the first rung)
 * @fail_ratio: throughput / the defaults' where it first failed (0: it never did)
 */
struct tune_margin {
	bool known;
	bool beyond;
	uint64_t held_ns;
	double fail_ratio;
};

/* where the lateness every candidate must hold comes from */
enum tune_late_from {
	TUNE_LATE_FLOOR,		/* the ladder's first rung: the defaults hold less */
	TUNE_LATE_HALF_DEFAULTS,	/* half of what the defaults hold */
	TUNE_LATE_MEASURED,		/* twice the host's measured interrupt delay */
	TUNE_LATE_GIVEN,		/* the margin asked for (--margin) */
};

enum tune_front_kind {
	TUNE_FRONT_CUT,		/* cuts the latency further, with less margin */
	TUNE_FRONT_PICK,	/* the recommendation */
	TUNE_FRONT_BEST,	/* the best admissible, not worth a change */
	TUNE_FRONT_DEFAULTS,
};

/**
 * struct tune_frontier - one row of the trade-off between latency and margin
 * @set: the setting; @lat: its latency on the model; @worst_lat: over the
 *	members it ran in
 * @margin: how late interrupts may come before it starves the link
 * @admissible: it holds in every member, the required lateness among them
 */
struct tune_frontier {
	struct tune_settings set;
	uint64_t lat, worst_lat;
	struct tune_margin margin;
	bool admissible;
	enum tune_front_kind kind;
};

struct tune_engine;

/**
 * struct tune_engine_ops - what the engine tells its caller, on the
 * calling thread (either may be NULL)
 * @progress: after each simulation the calling thread ran, @done of the
 *	@n of this batch (e->stage, e->sims: before the batch). With it the
 *	calling thread runs simulations one at a time between the calls;
 *	without it, as the other threads do.
 * @threads_short: once per engine: only @started of @wanted threads
 *	started (@err: pthread_create's); the results are the same.
 */
struct tune_engine_ops {
	void (*progress)(void *arg, const struct tune_engine *e, unsigned int done,
			 unsigned int n);
	void (*threads_short)(void *arg, unsigned int started, unsigned int wanted, int err);
};

/**
 * struct tune_engine - one search: what the caller fills (tune_engine_init
 * sets the defaults), then what the engine found
 * @cfg: the model (kept by the caller while the engine runs)
 * @keep: the throughput fraction of the defaults' a setting must keep, in
 *	every member
 * @min_gain: the cut of the defaults' worst latency worth a change
 * @qdisc: the qdisc in front, for the latency judged (tune_latency)
 * @floor: the lowest limit_max a candidate may have (0: none)
 * @threads: simulations in parallel (1..TUNE_MAX_THREADS); the results do
 *	not depend on it
 * @ops, @ops_arg: progress and notes, or NULL
 * @margin_given_ns: the least lateness a candidate must hold (--margin; 0: none)
 * @irq_measured_ns: the host's measured interrupt delay (p99.9; 0: unknown):
 *	a candidate must hold twice it
 *
 * @mem, @nmem: the ensemble, the model first (tune_ensemble)
 * @work: the simulated events the search may take (tune_engine_plan)
 * @base: the defaults folded over the ensemble; @base_m: in each member
 * @win_hold, @base_w, @nwin: the defaults in each member over the runs of
 *	a setting of hold time @win_hold[w] (as long, the same arrivals): what
 *	its throughput is judged against. Window 0 is @base_m's (1000 ms).
 * @res, @nres: candidates, in evaluation order, @ncoarse of them the sweep
 * @pick, @best: tune_pick()'s
 * @margin, @have_margin: the defaults' and (if @best >= 0) the best's
 * @margin_ref: the defaults' throughput on the model, over their own runs
 *	(TUNE_HOLDS hold times: 5 s), the reference of their margin
 * @late_ns, @late_from: the lateness every candidate must hold (with half
 *	of it as jitter, in the ensemble and on the model), and why
 * @nshort: best settings found short of @late_ns on the model, passed over
 * @frontier, @nfrontier: the trade-off, lowest latency first, the defaults last
 * @sims: simulations run
 * @stage: what runs now, for progress ("the sweep")
 */
struct tune_engine {
	const struct sim_config *cfg;
	double keep, min_gain;
	enum tune_qdisc qdisc;
	uint32_t floor;
	unsigned int threads;
	const struct tune_engine_ops *ops;
	void *ops_arg;
	uint64_t margin_given_ns;
	uint64_t irq_measured_ns;

	struct tune_member mem[TUNE_MAX_MEMBERS];
	unsigned int nmem;
	uint64_t work;
	struct tune_result base;
	struct tune_result base_m[TUNE_MAX_MEMBERS];
	uint32_t win_hold[TUNE_MAX_WINDOWS];
	struct tune_result base_w[TUNE_MAX_WINDOWS][TUNE_MAX_MEMBERS];
	unsigned int nwin;
	struct tune_result *res;
	unsigned int nres, ncoarse;
	int pick, best;
	struct tune_margin margin[2];
	bool have_margin;
	double margin_ref;
	uint32_t mref_hold[TUNE_MAX_WINDOWS];	/* the defaults' throughput, no lateness, */
	double mref[TUNE_MAX_WINDOWS];		/* ... over the runs of these hold times */
	struct tune_result mref_r[TUNE_MAX_WINDOWS];	/* ... and those runs */
	unsigned int nmref;
	uint64_t late_ns;
	enum tune_late_from late_from;
	unsigned int nshort;
	struct tune_frontier frontier[TUNE_FRONTIER_MAX];
	unsigned int nfrontier;
	unsigned int sims;
	const char *stage;
	bool thread_note;		/* threads_short said */
	bool eval_all;			/* tune_engine_eval: no early stopping */
};

/*
 * tune_engine_init - @e with the defaults (keep, min_gain, no floor, an
 * unknown qdisc) and as many threads as the CPUs this process may run on
 * (lib/io/cpus.h), at most TUNE_MAX_THREADS, for the model @cfg.
 */
void tune_engine_init(struct tune_engine *e, const struct sim_config *cfg);
/* tune_engine_free - what the search allocated (@e may be searched again) */
void tune_engine_free(struct tune_engine *e);

/*
 * tune_engine_plan - the ensemble, and the work of the whole search before
 * it starts, into e->work: every member of every setting the sweep and the
 * refinements may run (as if none stopped early) and the margin ladders, in
 * simulated events (sim_work_estimate). 0, or -E2BIG past TUNE_WORK_MAX
 * (the caller says which of its options to change).
 */
int tune_engine_plan(struct tune_engine *e);

/*
 * tune_engine_search - the whole search: the defaults' margin and from it
 * the lateness every candidate must hold (e->late_ns), the defaults in the
 * ensemble, the sweep, two refinements, the best capped setting at the
 * default hold time, the choice (e->pick, e->best) among the settings that
 * hold e->late_ns also on the model, and the frontier. 0 or -errno with @err naming
 * what failed ("cannot simulate limit_min=... (the member): reason").
 */
int tune_engine_search(struct tune_engine *e, struct bql_err *err);

/*
 * The steps of the search, for tests. tune_engine_base - the ensemble and
 * the defaults in each member (e->base, e->base_m, window 0).
 */
int tune_engine_base(struct tune_engine *e, struct bql_err *err);
/*
 * tune_engine_eval - @n settings over the ensemble into @agg, after
 * tune_engine_base: member by member, a setting that failed to keep the
 * throughput in one member is not run in the next (early stopping). Which
 * members a setting ran in depends only on the results, never on the
 * threads.
 */
int tune_engine_eval(struct tune_engine *e, const struct tune_settings *set, unsigned int n,
		     struct tune_result *agg, struct bql_err *err);
/*
 * tune_engine_margins - the margins of @ns (at most TUNE_MARGIN_MAX)
 * settings: how much later than the model's interrupts may come (with half
 * that as jitter) before a setting keeps less than e->keep of what the
 * defaults carry on the model over as long a run (TUNE_HOLDS hold times of
 * the setting, at least the model's duration: in a short run the defaults
 * have no time to grow their limit, and look less tolerant than they are).
 * The references are measured once per hold time and engine.
 */
int tune_engine_margins(struct tune_engine *e, const struct tune_settings *s, unsigned int ns,
			struct tune_margin *out, struct bql_err *err);
/*
 * tune_engine_margins_from - the same, where setting k is known to hold
 * @from_ns[k] late: the ladder starts at the first rung above it.
 */
int tune_engine_margins_from(struct tune_engine *e, const struct tune_settings *s,
			     unsigned int ns, const uint64_t *from_ns, struct tune_margin *out,
			     struct bql_err *err);

#endif
