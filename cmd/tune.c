// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool tune [SEL]: recommend limit_min, limit_max and hold_time for a
 * latency/throughput goal by simulating candidates (dql/tune.c, dql/sim.c)
 * on all cores; the model comes from options, a trace (--from) or the live
 * device (read-only). --apply writes through set's all-or-nothing path.
 * The report is in tune_out.c.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/common.h"
#include "cmd/plan_cmd.h"
#include "cmd/replay.h"
#include "cmd/tune.h"
#include "dql/replay.h"
#include "dql/trace.h"
#include "lib/io/cpus.h"
#include "lib/kernel/nl.h"
#include "lib/kernel/nl_ethtool.h"
#include "lib/model/plan.h"
#include "lib/io/stops.h"
#include "lib/kernel/sysfs.h"
#include "lib/io/units.h"

#define MAX_THREADS	256
/*
 * The most simulated events one tune may plan (sim_work_estimate summed
 * over every run it may make): about 10 minutes of one core. A 100G model
 * of 64 backlogged queues plans about a third of it.
 */
#define TUNE_WORK_MAX	10000000000ull

/* ------------------------------------------------------------ the trace */

struct fitctx {
	struct tune_fit f;
	const struct bqlt_parser *p;
	const struct sel_result *sel;	/* SEL, or NULL */
	unsigned int named;		/* trace queues whose names were checked */
	unsigned int foreign;		/* ... that are none of SEL's queues */
	char first_foreign[64];
};

/* is @name one of the selected queues ("IFNAME:tx-N")? */
static bool sel_has(const struct sel_result *t, const char *name)
{
	char want[BQL_IFNAMSIZ + 16];

	for (size_t d = 0; d < t->n; d++)
		for (unsigned int k = 0; k < t->t[d].nqueues; k++) {
			snprintf(want, sizeof(want), "%s:tx-%u", t->t[d].ifname, t->t[d].queues[k]);
			if (!strcmp(want, name))
				return true;
		}
	return false;
}

static void fit_event(void *arg, const struct replay_event *ev)
{
	struct fitctx *fc = arg;

	if (fc->sel && ev->queue >= fc->named && ev->qname) {
		fc->named = ev->queue + 1;
		if (!sel_has(fc->sel, ev->qname) && !fc->foreign++)
			snprintf(fc->first_foreign, sizeof(fc->first_foreign), "%s", ev->qname);
	}
	tune_fit_event(&fc->f, ev, fc->p->hz);
}

/* replay the trace into the fitter, through replay's own reading path */
static int fit_trace(struct tx *x, struct fitctx *fc)
{
	static const struct replay_ops ops = {
		.event = fit_event, .event_kinds = (1u << BQLT_Q) | (1u << BQLT_C),
	};
	struct rfile rf;
	struct rx rx;
	int ret;

	memset(&rf, 0, sizeof(rf));
	rx_init(&rx, x->c);
	rx.opts.kflags = x->o.cfg.kflags;
	rx.ops = &ops;
	rx.ops_arg = fc;
	rf.path = x->from;
	fc->p = &rf.p;
	tune_fit_init(&fc->f);
	ret = rx_replay_one(&rx, &rf);
	if (rf.live) {
		replay_free(&rf.r);
		bqlt_parser_free(&rf.p);
	}
	return ret;
}

/* ------------------------------------------------------------ the model */

static int model_from_trace(struct tx *x, const struct sel_result *sel)
{
	struct fitctx *fc = calloc(1, sizeof(*fc));
	struct bql_err e;
	int ret;

	if (!fc)
		return cmd_fail(x->c, "%s", strerror(ENOMEM));
	fc->sel = sel;
	ret = fit_trace(x, fc);
	if (!ret && tune_fit_finish(&fc->f, &x->o.cfg, x->o.link_given, x->o.queues_given,
				    x->o.traffic_given, &x->fit, &e))
		ret = cmd_fail(x->c, "%s: %s", x->from, e.msg);
	if (!ret) {
		/*
		 * The model as fitted, no option over it, what is checked
		 * against the trace; but --link, where the trace cannot show
		 * the link, is the piece the user supplied.
		 */
		struct tune_fitted pure;

		sim_config_init(&x->fit_cfg);
		x->fit_cfg.link_bps = x->o.cfg.link_bps;
		x->fit_cfg.kflags = x->o.cfg.kflags;
		x->fit_cfg.seed = x->o.cfg.seed;
		x->fit_cfg.irq_latency_ns = x->o.cfg.irq_latency_ns;
		x->fit_cfg.irq_jitter_ns = x->o.cfg.irq_jitter_ns;
		if (tune_fit_finish(&fc->f, &x->fit_cfg, x->o.link_given && !x->fit.link_ok, false,
				    false, &pure, &e))
			ret = cmd_fail(x->c, "%s: %s", x->from, e.msg);
	}
	if (!ret && fc->foreign) {
		if (x->force)
			cmd_warn(x->c, "%s: %u of its %u queues (%s first) are not queues of '%s': the trace is of another device (--force: modelled all the same)",
				 x->from, fc->foreign, fc->named, fc->first_foreign, x->sel);
		else
			ret = cmd_fail(x->c, "%s: %u of its %u queues (%s first) are not queues of '%s': the trace is of another device, so its model says nothing about '%s' (give the traced device, or --force)",
				       x->from, fc->foreign, fc->named, fc->first_foreign, x->sel, x->sel);
	}
	if (!ret) {
		x->fitted = true;
		if (x->fit.folded)
			cmd_warn(x->c, "%s: %u queues, modelled on %u (trace queue i on model queue i mod %u)%s",
				 x->from, x->fit.nqueues, x->o.cfg.nqueues, x->o.cfg.nqueues,
				 x->o.queues_given ? ", as --queues asks" : ": give --queues to choose");
		if (x->fit.pkt_clamped)
			cmd_warn(x->c, "%s: packets of up to %" PRIu32 " bytes, modelled as %u, the simulator's largest (a TSO super-packet)",
				 x->from, x->fit.pkt_max_seen, SIM_PKT_MAX);
		/* the fitted flows keep their sizes */
		if (!x->o.traffic_given)
			for (unsigned int i = 0; i < x->o.cfg.nflows; i++)
				x->o.flow_sized[i] = true;
	}
	tune_fit_free(&fc->f);
	free(fc);
	return ret;
}

/* what does not fit, in words, into @buf ("" if all does) */
static void misfit_text(const struct tx *x, char *buf, size_t n)
{
	const struct tune_fitted *f = &x->fit;
	char a[32], b[32], d[32], t[32];
	size_t o = 0;

	buf[0] = '\0';
#define ADD(...) do { if (o < n) o += (size_t)snprintf(buf + o, n - o, __VA_ARGS__); } while (0)
	if (f->misfit & TUNE_MISFIT_FEW)
		ADD("%s%" PRIu64 " completions (C records), at least %u needed", o ? "; " : "",
		    f->completions, TUNE_FIT_MIN_COMPLETIONS);
	if (f->misfit & TUNE_MISFIT_NEVER_BUSY)
		ADD("%sthe link rate cannot be seen: %" PRIu64 " busy completion windows (a queue that still had bytes to send at its next completion) over %.1f%% of the trace, at least %u over %.0f%% needed; give --link",
		    o ? "; " : "", f->busy_intervals, f->busy_frac * 100, TUNE_FIT_MIN_BUSY,
		    TUNE_FIT_MIN_BUSY_FRAC * 100);
	if (f->misfit & TUNE_MISFIT_RANGE)
		ADD("%sthe fitted link of %s is outside the simulator's range (10 Mbit/s..400 Gbit/s)",
		    o ? "; " : "", sim_fmt_rate(a, sizeof(a), (double)f->link_bps));
	if (f->misfit & TUNE_MISFIT_OVERLOAD)
		ADD("%sit offers %s, %.0f%% of the %s link it fits: more than a link carries",
		    o ? "; " : "", sim_fmt_rate(a, sizeof(a), f->offered_bps), f->load * 100,
		    sim_fmt_rate(b, sizeof(b), (double)x->o.cfg.link_bps));
	if (f->misfit & TUNE_MISFIT_SIM) {
		const struct tune_gof *g = &x->gof;
		bool busy = f->busy_intervals >= TUNE_FIT_MIN_BUSY &&
			    g->model.busy_intervals >= TUNE_FIT_MIN_BUSY;

		char b1[32], b2[32], l1[32], l2[32];

		ADD("%sthe fitted model, simulated, does not reproduce it: completion interval %s (trace %s), %s per completion (trace %s), %s completed (trace %s), mean limit %s (trace %s)",
		    o ? "; " : "",
		    sim_fmt_ns(a, sizeof(a), busy ? g->model.busy_gap_p50_ns : g->model.gap_p50_ns),
		    sim_fmt_ns(b, sizeof(b), busy ? f->busy_gap_p50_ns : f->gap_p50_ns),
		    units_fmt_bytes(b1, sizeof(b1), busy ? g->model.busy_batch_p50 : g->model.batch_p50),
		    units_fmt_bytes(b2, sizeof(b2), busy ? f->busy_batch_p50 : f->batch_p50),
		    sim_fmt_rate(d, sizeof(d), g->model.completed_bps),
		    sim_fmt_rate(t, sizeof(t), f->completed_bps),
		    units_fmt_bytes(l1, sizeof(l1), (uint64_t)(g->model.limit_mean + 0.5)),
		    units_fmt_bytes(l2, sizeof(l2), (uint64_t)(f->limit_mean + 0.5)));
	}
#undef ADD
}

/*
 * After the options: the fitted model, simulated, against the trace. A
 * trace that fits no model gets no recommendation (exit 1), unless --force.
 */
static int fit_verdict(struct tx *x)
{
	struct bql_err e = { 0, "" };
	char why[1536];
	int ret;

	if (x->o.link_given)
		x->fit.misfit &= ~(unsigned int)(TUNE_MISFIT_NEVER_BUSY | TUNE_MISFIT_RANGE);
	ret = tune_fit_check(&x->fit_cfg, true, &x->fit, &x->gof, &e);
	if (ret)	/* the value out of range, as fitted_finish() names it */
		return cmd_fail(x->c, "%s: the fitted model cannot be simulated: %s", x->from,
				e.msg[0] ? e.msg : strerror(-ret));
	if (!x->o.coal_usecs_given)	/* as calibrated */
		x->o.cfg.coalesce_usecs = x->fit_cfg.coalesce_usecs;
	x->gof_done = true;
	if (!x->fit.misfit)
		return 0;
	misfit_text(x, why, sizeof(why));
	if (x->force) {
		cmd_warn(x->c, "%s: does not fit: %s (--force: recommending all the same)", x->from, why);
		return 0;
	}
	return cmd_fail(x->c, "%s: the trace fits no model, so there is no recommendation: %s (--force to search anyway)",
			x->from, why);
}

/*
 * The fitted model and the options over it: a model the simulator cannot
 * run is the trace's fault (exit 1, naming it), never an option's the user
 * did not give; then the verdict.
 */
static int fitted_finish(struct tx *x)
{
	struct sim_opts o = x->o;
	struct bql_err e;
	bool opts = x->o.traffic_given || x->o.link_given || x->o.queues_given ||
		    x->o.ring_given || x->o.coal_usecs_given || x->o.coal_frames_given ||
		    x->o.size_given;

	for (unsigned int i = 0; i < o.cfg.nflows; i++)
		if (!o.flow_sized[i])
			o.cfg.flows[i].size = o.size;
	if (sim_config_check(&x->fit_cfg, &e))
		return cmd_fail(x->c, "%s: the model fitted from it cannot be simulated: %s", x->from,
				e.msg);
	if (sim_config_check(&o.cfg, &e))
		return cmd_fail(x->c, "%s: the model fitted from it%s cannot be simulated: %s", x->from,
				opts ? ", with the options given," : "", e.msg);
	if (sim_opts_finish(x->c, &x->o))
		return BQL_EXIT_USAGE;
	return fit_verdict(x);
}

/* ------------------------------------------------------------ the search */

/*
 * One simulation: a setting in a member of the ensemble (or at a lateness
 * of the margin ladder: then @m carries it).
 */
struct job {
	struct tune_settings set;
	struct tune_member m;
	bool model_duration;		/* the margin: runs as long as the model's */
	uint32_t win_hold;		/* runs as long as for this hold time (0: set's) */
	struct tune_result r;
};

struct batch {
	struct tx *x;
	struct job *j;
	unsigned int n;
	atomic_uint next, done;
};

static void job_run(const struct tx *x, struct job *j)
{
	struct sim_config c;

	tune_member_cfg(&x->o.cfg, &j->m, j->win_hold ? j->win_hold : j->set.hold_time, &c);
	if (j->model_duration)
		c.duration_ns = tune_whole_periods(&c, x->o.cfg.duration_ns);
	tune_eval(&c, &j->set, &j->r);
}

static void progress(struct tx *x, unsigned int done, unsigned int n)
{
	if (!x->progress)
		return;
	fprintf(stderr, "\r\033[Kbqltool: tune: %s: %u of %u simulations (%u so far)",
		x->stage, done, n, x->sims + done);
	x->drawn = true;
}

static void progress_clear(struct tx *x)
{
	if (x->drawn)
		fprintf(stderr, "\r\033[K");
	x->drawn = false;
}

static void *worker(void *arg)
{
	struct batch *b = arg;
	unsigned int i;

	while ((i = atomic_fetch_add(&b->next, 1)) < b->n) {
		job_run(b->x, &b->j[i]);
		atomic_fetch_add(&b->done, 1);
	}
	return NULL;
}

/*
 * Run @n jobs on up to x->threads threads (the results do not depend on
 * how many). A job that ran out of memory while others ran is run again
 * alone; one that still cannot run fails the command: a simulation that
 * cannot run is never a candidate.
 */
static int run_jobs(struct tx *x, struct job *j, unsigned int n)
{
	pthread_t th[MAX_THREADS];
	unsigned int nt = x->threads < n ? x->threads : n, started = 0, i;
	struct batch b = { .x = x, .j = j, .n = n };
	pthread_attr_t attr;
	bool attr_ok;
	int err = 0;

	/* a simulation needs little stack: 256 threads must not cost 2 GB of it */
	attr_ok = !pthread_attr_init(&attr) && !pthread_attr_setstacksize(&attr, 1u << 20);
	for (i = 1; i < nt; i++) {
		err = stops_thread_create(&th[started], attr_ok ? &attr : NULL, worker, &b);
		if (err)
			break;
		started++;
	}
	if (attr_ok)
		pthread_attr_destroy(&attr);
	if (err && !x->thread_note) {
		x->thread_note = true;
		if (x->c->verbose)
			cmd_warn(x->c, "%u of %u threads started (%s): the results are the same, only slower",
				 started + 1, nt, strerror(err));
	}
	if (x->progress) {
		/* the calling thread works too, and draws the progress between jobs */
		while ((i = atomic_fetch_add(&b.next, 1)) < n) {
			job_run(x, &j[i]);
			progress(x, atomic_fetch_add(&b.done, 1) + 1, n);
		}
	} else {
		worker(&b);
	}
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	x->sims += n;
	for (i = 0; i < n; i++) {
		if (j[i].r.err == -ENOMEM)
			job_run(x, &j[i]);	/* alone now */
		if (j[i].r.err) {
			char a[64], m[160];

			progress_clear(x);
			return cmd_fail(x->c, "cannot simulate limit_min=%" PRIu32 " limit_max=%s hold_time=%" PRIu32 " (%s): %s",
					j[i].set.limit_min,
					j[i].set.limit_max == DQL_MAX_LIMIT ? "max" :
					(snprintf(a, sizeof(a), "%" PRIu32, j[i].set.limit_max), a),
					j[i].set.hold_time,
					tune_member_fmt(m, sizeof(m), &x->o.cfg, &j[i].m),
					j[i].r.err == -ENOMEM ? "out of memory" : strerror(-j[i].r.err));
		}
	}
	return 0;
}

/* the window of runs of hold time @hold, -1 if none yet */
static int win_find(const struct tx *x, uint32_t hold)
{
	for (unsigned int w = 0; w < x->nwin; w++)
		if (x->win_hold[w] == hold)
			return (int)w;
	return -1;
}

/*
 * The defaults over the runs of every hold time of @set not yet seen, in
 * every member: a setting's throughput is judged against the defaults'
 * over as long a run of the same arrivals, so that runs of a few packets
 * (light traffic, short hold times) compare like with like. A run of 5
 * hold times of traffic at its rate carries that rate only within the
 * noise of its packets; the defaults run 5 s.
 */
static int eval_windows(struct tx *x, const struct tune_settings *set, unsigned int n)
{
	struct job j[TUNE_MAX_MEMBERS];
	int ret;

	for (unsigned int i = 0; i < n; i++) {
		uint32_t hold = set[i].hold_time;

		if (win_find(x, hold) >= 0)
			continue;
		if (x->nwin == TUNE_MAX_WINDOWS)
			return cmd_fail(x->c, "more than %u hold times to judge", TUNE_MAX_WINDOWS);
		memset(j, 0, sizeof(j));
		for (unsigned int mi = 0; mi < x->nmem; mi++) {
			tune_defaults(&j[mi].set);
			j[mi].m = x->mem[mi];
			j[mi].win_hold = hold;
		}
		ret = run_jobs(x, j, x->nmem);
		if (ret)
			return ret;
		for (unsigned int mi = 0; mi < x->nmem; mi++)
			x->base_w[x->nwin][mi] = j[mi].r;
		x->win_hold[x->nwin++] = hold;
	}
	return 0;
}

/*
 * Evaluate @n settings over the ensemble into @agg: member by member, a
 * setting that failed to keep the throughput in one member is not run in
 * the next (early stopping). Which members a setting ran in depends only
 * on the results, never on the threads.
 */
static int eval_settings(struct tx *x, const struct tune_settings *set, unsigned int n,
			 struct tune_result *agg)
{
	struct job *j = calloc(n ? n : 1, sizeof(*j));
	unsigned int *idx = calloc(n ? n : 1, sizeof(*idx));
	int ret = 0;

	if (!j || !idx) {
		free(j);
		free(idx);
		return cmd_fail(x->c, "out of memory");
	}
	ret = eval_windows(x, set, n);
	for (unsigned int mi = 0; mi < x->nmem && !ret; mi++) {
		unsigned int k = 0;

		for (unsigned int i = 0; i < n; i++) {
			if (mi && !agg[i].feasible)
				continue;
			idx[k] = i;
			j[k].set = set[i];
			j[k].m = x->mem[mi];
			k++;
		}
		if (!k)
			break;
		ret = run_jobs(x, j, k);
		for (unsigned int i = 0; i < k && !ret; i++)
			tune_fold(&agg[idx[i]], &j[i].r,
				  &x->base_w[win_find(x, j[i].set.hold_time)][mi], mi, x->keep,
				  x->qdisc);
	}
	free(j);
	free(idx);
	return ret;
}

/* the baseline: the defaults in every member, each member's reference */
static int eval_base(struct tx *x)
{
	struct job j[TUNE_MAX_MEMBERS];
	int ret;

	memset(j, 0, sizeof(j));
	for (unsigned int mi = 0; mi < x->nmem; mi++) {
		tune_defaults(&j[mi].set);
		j[mi].m = x->mem[mi];
	}
	ret = run_jobs(x, j, x->nmem);
	if (ret)
		return ret;
	for (unsigned int mi = 0; mi < x->nmem; mi++) {
		x->base_m[mi] = x->base_w[0][mi] = j[mi].r;
		tune_fold(&x->base, &j[mi].r, &j[mi].r, mi, x->keep, x->qdisc);
	}
	x->win_hold[0] = j[0].set.hold_time;
	x->nwin = 1;
	x->base.feasible = true;
	return 0;
}

/*
 * The margin: how much later than the model's interrupts may come (with
 * half that as jitter) before a setting keeps less than --keep of what
 * the defaults carry on the model. A coarse ladder is climbed RUNGS rungs
 * at a time, for the recommendation and the defaults together, then the
 * step between the last rung held and the first failed is split in four.
 */
static const unsigned int late_us[] = { 10, 20, 40, 80, 160, 320, 640, 1000 };
#define NLATE	(sizeof(late_us) / sizeof(late_us[0]))
#define RUNGS	4
#define SPLIT	3

static bool holds_at(const struct tx *x, const struct job *j)
{
	double ratio = x->margin_ref > 0 ? j->r.throughput_bps / x->margin_ref : 1;

	return ratio >= x->keep;
}

static void late_job(struct job *j, const struct tune_settings *s, uint64_t late_ns)
{
	memset(j, 0, sizeof(*j));
	j->set = *s;
	j->m.irq_late_ns = late_ns;
	j->m.irq_jitter_ns = late_ns / 2;
	j->model_duration = true;
}

static int margins(struct tx *x, const struct tune_settings *s, unsigned int ns,
		   struct tune_margin *out)
{
	struct job j[2 * RUNGS];
	struct tune_settings def;
	uint64_t fail_ns[2] = { 0, 0 };
	unsigned int base = 0, n, k, r;
	int ret;

	for (k = 0; k < ns; k++)
		out[k] = (struct tune_margin){ 0 };
	/*
	 * Runs of the model's duration, shorter than the ensemble's for the
	 * defaults: DQL grows its limit at once when starved, it only shrinks
	 * after hold times, so a short run flatters the defaults, never the
	 * recommendation. The reference is the defaults on the model, as long.
	 */
	tune_defaults(&def);
	late_job(&j[0], &def, 0);
	ret = run_jobs(x, j, 1);
	if (ret)
		return ret;
	x->margin_ref = j[0].r.throughput_bps;
	for (; base < NLATE; base += RUNGS) {
		for (n = 0, k = 0; k < ns; k++)
			for (r = base; !out[k].known && r < base + RUNGS && r < NLATE; r++)
				late_job(&j[n++], &s[k], late_us[r] * 1000ull);
		if (!n)
			break;
		ret = run_jobs(x, j, n);
		if (ret)
			return ret;
		for (n = 0, k = 0; k < ns; k++) {
			unsigned int end = base + RUNGS < NLATE ? base + RUNGS : NLATE, first = n;

			if (out[k].known)
				continue;
			n += end - base;	/* this setting's rungs of the round */
			for (r = base; r < end; r++) {
				if (!holds_at(x, &j[first + r - base])) {
					out[k].known = true;
					fail_ns[k] = late_us[r] * 1000ull;
					break;
				}
				out[k].held_ns = late_us[r] * 1000ull;
			}
		}
	}
	/* between the last rung held and the first failed */
	for (n = 0, k = 0; k < ns; k++) {
		if (!out[k].known) {
			out[k].known = out[k].beyond = true;
			continue;
		}
		for (r = 1; r <= SPLIT; r++)
			late_job(&j[n++], &s[k], out[k].held_ns +
				 (fail_ns[k] - out[k].held_ns) * r / (SPLIT + 1));
	}
	if (!n)
		return 0;
	ret = run_jobs(x, j, n);
	if (ret)
		return ret;
	for (n = 0, k = 0; k < ns; k++) {
		bool failed = false;

		if (out[k].beyond)
			continue;
		for (r = 1; r <= SPLIT; r++, n++)
			if (!failed && holds_at(x, &j[n]))
				out[k].held_ns = j[n].m.irq_late_ns;
			else
				failed = true;
	}
	return 0;
}

/*
 * The work of the whole search, before it starts: every member of every
 * setting the sweep and the refinements may run (as if none stopped
 * early) and the margin ladders, in simulated events (sim_work_estimate).
 * Past TUNE_WORK_MAX it is refused, naming what to change.
 */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static int work_check(struct tx *x)
{
	/*
	 * settings per hold time: defaults + refinements at 1000, the sweep
	 * at 100, 20, each with the defaults over as long a run
	 */
	static const struct { uint32_t hold; unsigned int n; } plan[] = {
		{ 1000, 1 + 1 }, { 100, 1 + 13 + 2 * 7 }, { 20, 1 + 13 },
	};
	struct sim_config c;
	uint64_t w = 0;

	x->nmem = tune_ensemble(&x->o.cfg, x->mem, TUNE_MAX_MEMBERS);
	for (unsigned int mi = 0; mi < x->nmem; mi++)
		for (size_t k = 0; k < sizeof(plan) / sizeof(plan[0]); k++) {
			tune_member_cfg(&x->o.cfg, &x->mem[mi], plan[k].hold, &c);
			w = sat_add(w, sat_mul(sim_work_estimate(&c), plan[k].n));
		}
	w = sat_add(w, sat_mul(sim_work_estimate(&x->o.cfg), 1 + 2 * (NLATE + SPLIT)));
	x->work = w;
	if (w <= TUNE_WORK_MAX)
		return 0;
	return cmd_usage(x->c, "the search needs about %.3g simulated events (%u members x up to %u settings, each run %s or %u hold times), more than the %.3g tune may take: give a shorter --duration, a larger --size, a slower --link, a larger --coalesce-usecs or --irq-latency",
			 (double)w, x->nmem, 1 + 13 + 13 + 2 * 8, "--duration", TUNE_HOLDS,
			 (double)TUNE_WORK_MAX);
}

static int search(struct tx *x)
{
	struct tune_settings set[TUNE_MAX_CAND];
	unsigned int n;
	int ret;

	x->res = calloc(TUNE_MAX_CAND, sizeof(*x->res));
	if (!x->res)
		return cmd_fail(x->c, "out of memory");
	x->nmem = tune_ensemble(&x->o.cfg, x->mem, TUNE_MAX_MEMBERS);
	x->stage = "the defaults";
	ret = eval_base(x);
	if (ret)
		return ret;
	n = tune_coarse(&x->o.cfg, &x->base, x->floor, set, TUNE_MAX_CAND);
	x->stage = "the sweep";
	ret = eval_settings(x, set, n, x->res);
	if (ret)
		return ret;
	x->nres = x->ncoarse = n;
	/* two rounds of refinement around the best so far */
	x->stage = "refining";
	for (int round = 0; round < 2; round++) {
		n = tune_refine(x->res, x->nres, x->floor, set, TUNE_MAX_CAND - x->nres);
		if (!n)
			break;
		ret = eval_settings(x, set, n, x->res + x->nres);
		if (ret)
			return ret;
		x->nres += n;
	}
	if (tune_hold_default(x->res, x->nres, &set[0])) {
		ret = eval_settings(x, set, 1, x->res + x->nres);
		if (ret)
			return ret;
		x->nres++;
	}
	x->pick = tune_pick(x->res, x->nres, &x->base, x->min_gain,
			    tune_min_gain_ns(&x->o.cfg), &x->best);
	/* the margins of the recommendation (or the best) and of the defaults */
	{
		struct tune_settings ms[2];
		unsigned int nm = 0;

		tune_defaults(&ms[nm++]);
		if (x->best >= 0)
			ms[nm++] = x->res[x->best].set;
		x->stage = "the margin";
		ret = margins(x, ms, nm, x->margin);
		x->have_margin = !ret;
	}
	progress_clear(x);
	return ret;
}

/* ------------------------------------------------------------ the advice */

/* a limit_max in the one human format ("8.87 KiB"), or "max" */
static void fmt_cap(char *buf, size_t n, uint32_t v)
{
	if (v == DQL_MAX_LIMIT)
		snprintf(buf, n, "max");
	else
		units_fmt_bytes(buf, n, v);
}

/* "starves the link once interrupts are more than 23 us late" */
static void fmt_margin(char *buf, size_t n, const struct tune_margin *m, const char *verb_fail,
		       const char *verb_hold)
{
	char a[32];

	if (m->beyond)
		snprintf(buf, n, "%s with interrupts up to %u us late", verb_hold,
			 late_us[NLATE - 1]);
	else if (!m->held_ns)
		snprintf(buf, n, "%s already when interrupts come %u us late", verb_fail, late_us[0]);
	else
		snprintf(buf, n, "%s once interrupts are more than %s late", verb_fail,
			 sim_fmt_ns(a, sizeof(a), m->held_ns));
}

#define WHY(...) do { \
		if (x->nwhy < sizeof(x->why) / sizeof(x->why[0])) \
			snprintf(x->why[x->nwhy++], sizeof(x->why[0]), __VA_ARGS__); \
	} while (0)

/* the candidate that shows what would starve the link: the highest cap below @r's that failed */
static const struct tune_result *starving(const struct tx *x, const struct tune_result *r)
{
	const struct tune_result *s = NULL;

	for (unsigned int i = 0; i < x->nres; i++) {
		const struct tune_result *c = &x->res[i];

		if (c->feasible || c->set.limit_max >= r->set.limit_max)
			continue;
		if (!s || c->set.limit_max > s->set.limit_max ||
		    (c->set.limit_max == s->set.limit_max && c->set.hold_time == r->set.hold_time))
			s = c;
	}
	return s;
}

static void why_starve(struct tx *x, const struct tune_result *s, const char *lead)
{
	char a[32], m[160];

	fmt_cap(a, sizeof(a), s->set.limit_max);
	WHY("%s (limit_max %s, hold_time %" PRIu32 " ms) starves the link: %.1f%% of the defaults' throughput with %s",
	    lead, a, s->set.hold_time, 100 * s->worst_ratio,
	    tune_member_fmt(m, sizeof(m), &x->o.cfg, &x->mem[s->worst_ratio_member]));
}

static void why_qdisc(struct tx *x, const struct tune_result *r)
{
	char a[32], b[32];

	if (x->qdisc == TUNE_QDISC_FIFO)
		WHY("behind a FIFO qdisc a sparse flow waits for the qdisc's backlog (p99 %s) and the ring (p99 %s): a smaller limit moves the queue from the ring into the qdisc; a flow-isolating qdisc cuts the wait to the ring's (tc qdisc replace dev %s root fq_codel)",
		    sim_fmt_ns(a, sizeof(a), r->qdisc_p99), sim_fmt_ns(b, sizeof(b), r->p99),
		    x->from_device ? x->dev : "DEV");
	else if (x->qdisc == TUNE_QDISC_FQ)
		WHY("behind a flow-isolating qdisc (fq_codel, fq, cake) a sparse flow waits for the ring only: the ring delay is the latency that counts");
	else
		WHY("the qdisc is not known (give --qdisc): assumed flow-isolating, as fq_codel, so that a sparse flow waits for the ring only; behind a FIFO the qdisc's backlog (p99 %s) adds to it",
		    sim_fmt_ns(a, sizeof(a), r->qdisc_p99));
}

static void advise(struct tx *x)
{
	const char *what = x->qdisc == TUNE_QDISC_FIFO ? "qdisc + ring delay" : "ring delay";
	const struct tune_margin *md = &x->margin[0], *mb = &x->margin[1];
	char a[32], b[32], d[32], m1[160], m2[160];

	x->command[0] = '\0';
	x->nwhy = 0;
	if (x->pick < 0) {
		snprintf(x->reason, sizeof(x->reason),
			 "no setting cuts the kernel defaults' worst p99 %s of %s by %.0f%% (and %s) with throughput within %.1f%% of theirs in each of %u conditions",
			 what, sim_fmt_ns(a, sizeof(a), x->base.worst_lat), x->min_gain * 100,
			 sim_fmt_ns(b, sizeof(b), tune_min_gain_ns(&x->o.cfg)), (1 - x->keep) * 100,
			 x->nmem);
		if (x->qdisc == TUNE_QDISC_FIFO && x->base.qdisc_p99 > x->base.p99)
			WHY("the qdisc, not BQL, holds the queue: behind a FIFO the p99 qdisc delay is %s against %s in the ring; change the qdisc (tc qdisc replace dev %s root fq_codel)",
			    sim_fmt_ns(a, sizeof(a), x->base.qdisc_p99),
			    sim_fmt_ns(b, sizeof(b), x->base.p99), x->from_device ? x->dev : "DEV");
		if (x->best >= 0) {
			const struct tune_result *r = &x->res[x->best];

			fmt_cap(d, sizeof(d), r->set.limit_max);
			WHY("the best setting that keeps the throughput everywhere (limit_max %s, hold_time %" PRIu32 " ms) cuts the worst p99 %s only from %s to %s",
			    d, r->set.hold_time, what, sim_fmt_ns(a, sizeof(a), x->base.worst_lat),
			    sim_fmt_ns(b, sizeof(b), r->worst_lat));
			const struct tune_result *s = starving(x, r);

			if (s)
				why_starve(x, s, "a lower cap");
		} else {
			/* every candidate failed somewhere: show the one that came closest */
			const struct tune_result *s = NULL;

			for (unsigned int i = 0; i < x->nres; i++)
				if (!s || x->res[i].worst_ratio > s->worst_ratio)
					s = &x->res[i];
			if (s)
				why_starve(x, s, "every setting tried starves the link somewhere; the closest");
		}
		if (x->have_margin) {
			fmt_margin(m1, sizeof(m1), md, "starve the link", "hold");
			WHY("margin: the defaults %s", m1);
		}
		why_qdisc(x, &x->base);
		return;
	}
	{
		const struct tune_result *r = &x->res[x->pick], *s = starving(x, r);
		double lat_ns = (double)r->set.limit_max * 8e9 / (double)x->o.cfg.link_bps;

		snprintf(x->reason, sizeof(x->reason),
			 "worst p99 %s %s -> %s over %u conditions, throughput at least %.1f%% of the defaults' in each",
			 what, sim_fmt_ns(a, sizeof(a), x->base.worst_lat),
			 sim_fmt_ns(b, sizeof(b), r->worst_lat), x->nmem, 100 * r->worst_ratio);
		snprintf(x->command, sizeof(x->command),
			 "bqltool set %s limit_min=%" PRIu32 " limit_max=%" PRIu32 " hold_time=%" PRIu32,
			 x->sel ? x->sel : "DEV", r->set.limit_min, r->set.limit_max, r->set.hold_time);
		if (r->set.limit_max != DQL_MAX_LIMIT)
			WHY("the cap limits the ring delay: limit_max %s is %s of the link per queue, where the defaults let DQL grow to %s",
			    units_fmt_bytes(d, sizeof(d), r->set.limit_max),
			    sim_fmt_ns(a, sizeof(a), (uint64_t)lat_ns),
			    units_fmt_bytes(b, sizeof(b), x->base.peak_limit));
		else
			WHY("hold_time %" PRIu32 " ms lets DQL shrink the limit sooner after a burst (peak %s, the defaults' %s)",
			    r->set.hold_time, units_fmt_bytes(a, sizeof(a), r->peak_limit),
			    units_fmt_bytes(b, sizeof(b), x->base.peak_limit));
		if (s)
			why_starve(x, s, "a lower cap");
		if (x->have_margin) {
			fmt_margin(m1, sizeof(m1), mb, "starves the link", "holds");
			fmt_margin(m2, sizeof(m2), md, "starve the link", "hold");
			WHY("margin: it %s; the defaults %s", m1, m2);
		}
		why_qdisc(x, r);
	}
}

/* --apply: the recommendation through set's all-or-nothing path */
/*
 * --apply: the recommendation, or where the defaults stay, the defaults
 * (limit_min, limit_max, hold_time of dql_init()): a queue left at other
 * values (limit_min above limit_max) would not be what tune judged best.
 * All-or-nothing, as set.
 */
static int apply(struct tx *x, const struct sel_result *t)
{
	struct tune_settings s;
	unsigned int hz = cmd_plan_hz(x->c, true);
	struct bql_err e;
	struct plan p;
	int ret = 0;

	if (x->pick < 0)
		tune_defaults(&s);
	else
		s = x->res[x->pick].set;
	const struct { enum bql_attr a; uint64_t v; } kv[] = {
		{ BQL_LIMIT_MIN, s.limit_min },
		{ BQL_LIMIT_MAX, s.limit_max },
		{ BQL_HOLD_TIME, s.hold_time },
	};
	plan_init(&p, hz);
	for (size_t d = 0; d < t->n && !ret; d++)
		for (unsigned int k = 0; k < t->t[d].nqueues && !ret; k++)
			for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]) && !ret; i++) {
				struct plan_value pv;

				if (plan_value(kv[i].a, kv[i].v, hz, bql_attrs[kv[i].a].name, &pv, &e) ||
				    plan_add(&p, t->t[d].ifname, t->t[d].queues[k], kv[i].a, &pv, false, &e))
					ret = -1;
			}
	if (!ret && plan_read(x->c, &p, &e))
		ret = -1;
	if (ret) {
		cmd_error(x->c, &e);
		plan_free(&p);
		return BQL_EXIT_FAIL;
	}
	if (x->pick < 0 && !plan_pending(&p)) {
		printf("\nnothing applied: the queues hold the defaults\n");
		plan_free(&p);
		return BQL_EXIT_OK;
	}
	printf(x->pick < 0 ? "\napplying the defaults (old -> new):\n" : "\napplying (old -> new):\n");
	fflush(stdout);
	ret = cmd_plan_commit(x->c, &p, &(struct plan_opts){ 0 });
	plan_free(&p);
	return ret;
}

/* ------------------------------------------------------------ options */

enum {
	OPT_FROM = 256,
	OPT_FORCE,
	OPT_KEEP,
	OPT_MIN_GAIN,
	OPT_THREADS,
	OPT_APPLY,
	OPT_QDISC,
};

/*
 * A fraction in (0, 1] (--keep), or in [0, 1] with @zero_ok (--min-gain):
 * a plain decimal like every number typed (lib/io/units.c), no sign or
 * exponent. @dflt is the option's default, shown as an example.
 */
static int parse_fraction(struct tx *x, const char *opt, const char *arg, bool zero_ok,
			  const char *dflt, double *out)
{
	double v;

	if (units_parse_fraction(arg, &v) || v > 1 || (!zero_ok && v <= 0))
		return cmd_usage(x->c, "%s: '%s': expected a fraction %s 0, at most 1, like %s",
				 opt, arg, zero_ok ? "from" : "above", dflt);
	*out = v;
	return 0;
}

/* --qdisc KIND: what a sparse flow waits behind (see enum tune_qdisc) */
static int parse_qdisc(struct tx *x, const char *arg)
{
	static const struct { const char *name; enum tune_qdisc q; } kinds[] = {
		{ "fq_codel", TUNE_QDISC_FQ }, { "fq", TUNE_QDISC_FQ },
		{ "cake", TUNE_QDISC_FQ }, { "fifo", TUNE_QDISC_FIFO },
		{ "pfifo_fast", TUNE_QDISC_FIFO }, { "pfifo", TUNE_QDISC_FIFO },
		{ "bfifo", TUNE_QDISC_FIFO },
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(arg, kinds[i].name)) {
			x->qdisc = kinds[i].q;
			x->qdisc_given = true;
			return 0;
		}
	return cmd_usage(x->c, "--qdisc: '%s': expected fq_codel, fq, cake (flow-isolating) or fifo, pfifo_fast, pfifo, bfifo",
			 arg);
}

static int parse_opts(struct tx *x, int argc, char **argv)
{
	static const struct option opts[] = {
		SIM_OPTS_LONG,
		{ "from",	required_argument,	NULL, OPT_FROM },
		{ "force",	no_argument,		NULL, OPT_FORCE },
		{ "keep",	required_argument,	NULL, OPT_KEEP },
		{ "min-gain",	required_argument,	NULL, OPT_MIN_GAIN },
		{ "threads",	required_argument,	NULL, OPT_THREADS },
		{ "apply",	no_argument,		NULL, OPT_APPLY },
		{ "qdisc",	required_argument,	NULL, OPT_QDISC },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int opt, ret;

	optind = 0;
	opterr = 0;
	while ((opt = cmd_getopt(x->c, argc, argv, ":", opts)) != -1) {
		switch (opt) {
		case OPT_FROM:
			if (!*optarg)
				return cmd_usage(x->c, "--from: expected a trace file (- for standard input)");
			x->from = optarg;
			break;
		case OPT_FORCE:
			x->force = true;
			break;
		case OPT_KEEP:
			ret = parse_fraction(x, "--keep", optarg, false, "0.995", &x->keep);
			if (ret)
				return ret;
			break;
		case OPT_MIN_GAIN:
			ret = parse_fraction(x, "--min-gain", optarg, true, "0.1", &x->min_gain);
			if (ret)
				return ret;
			break;
		case OPT_THREADS:
			if (units_parse_arg_u64(optarg, &v) || !v || v > MAX_THREADS)
				return cmd_usage(x->c, "--threads: '%s': expected 1..%u", optarg,
						 MAX_THREADS);
			x->threads = (unsigned int)v;
			break;
		case OPT_APPLY:
			x->apply = true;
			break;
		case OPT_QDISC:
			ret = parse_qdisc(x, optarg);
			if (ret)
				return ret;
			break;
		case ':':
		case '?':
		case GOPT_FAILED:	/* a bad global option after the command */
			return cmd_bad_option(x->c, opt, argv);
		default:
			ret = sim_opts_parse(x->c, &x->o, opt, optarg);
			if (ret)
				return ret == 1 ? cmd_bad_option(x->c, '?', argv) : ret;
			break;
		}
	}
	if (argc - optind > 1)
		return cmd_usage(x->c, "one selector at most, got '%s' and '%s'", argv[optind],
				 argv[optind + 1]);
	if (optind < argc)
		x->sel = argv[optind];
	if (x->apply && !x->sel)
		return cmd_usage(x->c, "--apply needs a selector (the queues to write)");
	if (x->apply && x->c->json)
		return cmd_usage(x->c, "--apply reports its writes as text: run without -j");
	return 0;
}

static int tune_run(struct bql_ctx *c, int argc, char **argv)
{
	struct cmd_state st;
	bool have_st = false;
	struct tx *x;
	int ncpu, ret;

	x = calloc(1, sizeof(*x));
	if (!x)
		return cmd_fail(c, "%s", strerror(ENOMEM));
	x->c = c;
	x->keep = 0.995;
	x->min_gain = 0.10;
	ncpu = cpus_usable();
	x->threads = ncpu > MAX_THREADS ? MAX_THREADS : (unsigned int)ncpu;
	sim_opts_init(&x->o);
	ret = parse_opts(x, argc, argv);
	if (ret)
		goto out;
	if (x->sel) {
		ret = cmd_select(c, 1, &x->sel, &st);
		if (ret)
			goto out;
		have_st = true;
	}
	if (x->from)
		ret = model_from_trace(x, have_st ? &st.targets : NULL);
	else if (x->sel)
		ret = tx_model_from_device(x, &st.targets);
	if (ret)
		goto out;
	if (x->fitted)
		ret = fitted_finish(x);
	else
		ret = sim_opts_finish(c, &x->o);
	if (ret)
		goto out;
	if (x->sel)
		tx_limit_floor(x, &st.targets);
	ret = work_check(x);
	if (ret)
		goto out;
	x->nwarn = sim_opts_warnings(c, &x->o.cfg, x->warn);
	x->progress = !c->json && isatty(STDERR_FILENO);
	ret = search(x);
	if (ret)
		goto out;
	advise(x);
	tx_quote_command(x);
	ret = tx_report(x);
	if (!ret && x->apply)
		ret = apply(x, &st.targets);
out:
	if (have_st)
		cmd_state_free(&st);
	free(x->res);
	free(x);
	return ret;
}

const struct cmd_entry cmd_tune_entry = {
	.name = "tune",
	.synopsis = "tune [SEL] [--from TRACE] [--keep FRACTION] [--min-gain FRACTION] "
		    "[--threads N] [--qdisc KIND] [--apply] [--force] [MODEL OPTIONS]",
	.summary = "Recommend limit_min, limit_max and hold_time for a latency goal, by simulation",
	.help = "  --from TRACE         fit the model (link rate, completion batches and\n"
		"                       intervals, offered load, packet sizes, queues) from a\n"
		"                       bqltrace, plain, .gz or .zst (- reads standard input)\n"
		"  --keep FRACTION      keep throughput within this fraction of the kernel\n"
		"                       defaults' on the same traffic (0.995)\n"
		"  --min-gain FRACTION  recommend a change only if it cuts the defaults' worst p99\n"
		"                       latency by this much (0.1); else keep the defaults\n"
		"  --qdisc KIND         the qdisc in front: fq_codel, fq, cake (the ring delay\n"
		"                       counts) or fifo, pfifo_fast, pfifo, bfifo (qdisc + ring)\n"
		"  --threads N          simulations in parallel (default: the CPUs it may run on,\n"
		"                       its affinity); results do not depend on it\n"
		"  --apply              write the recommendation to SEL, all-or-nothing as set\n"
		"  --force              search even where the trace fits no model, or is of\n"
		"                       another device than SEL (it says what does not fit)\n"
		"MODEL OPTIONS, as for sim (they override what was fitted or read):\n"
		SIM_OPTS_HELP
		"\nWith SEL and no --from, the link speed and queue count come from the device\n"
		"(read-only) and each queue carries a backlogged flow. The search: a sweep of\n"
		"limit_max x hold_time, then two refinements around the best. Every setting is\n"
		"judged in an ensemble (interrupts 20 us later +-10 us, 1 and N/2 busy queues,\n"
		"load +-20%, other seeds; runs of 5 hold times) and kept only if it keeps the\n"
		"throughput in each. Ring delay is from netdev_tx_sent_queue() to the wire\n"
		"(see bqltool-sim(8)).\n",
	.flags = 0,
	.run = tune_run,
};
