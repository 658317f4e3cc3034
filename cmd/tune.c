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

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/common.h"
#include "cmd/plan_cmd.h"
#include "cmd/replay.h"
#include "cmd/tune.h"
#include "dql/replay.h"
#include "dql/trace.h"
#include "lib/cpus.h"
#include "lib/nl.h"
#include "lib/nl_ethtool.h"
#include "lib/plan.h"
#include "lib/sysfs.h"
#include "lib/units.h"

#define MAX_THREADS	256

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
			cmd_warn(x->c, "%s: %u queues, modelled on %u (trace queue i on model queue i mod %u): give --queues to choose",
				 x->from, x->fit.nqueues, x->o.cfg.nqueues, x->o.cfg.nqueues);
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

		ADD("%sthe fitted model, simulated, does not reproduce it: completion interval %s (trace %s), %" PRIu64 " bytes per completion (trace %" PRIu64 "), %s completed (trace %s), mean limit %.0f (trace %.0f)",
		    o ? "; " : "",
		    sim_fmt_ns(a, sizeof(a), busy ? g->model.busy_gap_p50_ns : g->model.gap_p50_ns),
		    sim_fmt_ns(b, sizeof(b), busy ? f->busy_gap_p50_ns : f->gap_p50_ns),
		    busy ? g->model.busy_batch_p50 : g->model.batch_p50,
		    busy ? f->busy_batch_p50 : f->batch_p50,
		    sim_fmt_rate(d, sizeof(d), g->model.completed_bps),
		    sim_fmt_rate(t, sizeof(t), f->completed_bps), g->model.limit_mean, f->limit_mean);
	}
#undef ADD
}

/*
 * After the options: the fitted model, simulated, against the trace. A
 * trace that fits no model gets no recommendation (exit 1), unless --force.
 */
static int fit_verdict(struct tx *x)
{
	char why[1536];
	int ret;

	if (x->o.link_given)
		x->fit.misfit &= ~(unsigned int)(TUNE_MISFIT_NEVER_BUSY | TUNE_MISFIT_RANGE);
	ret = tune_fit_check(&x->fit_cfg, true, &x->fit, &x->gof);
	if (ret)
		return cmd_fail(x->c, "%s: the fitted model cannot be simulated: %s", x->from,
				strerror(-ret));
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

struct batch {
	const struct sim_config *cfg;
	const struct tune_settings *set;
	struct tune_result *res;
	unsigned int n;
	atomic_uint next;
};

static void *worker(void *arg)
{
	struct batch *b = arg;
	unsigned int i;

	while ((i = atomic_fetch_add(&b->next, 1)) < b->n)
		tune_eval(b->cfg, &b->set[i], &b->res[i]);
	return NULL;
}

/* evaluate @n settings into @res on up to x->threads threads */
static void run_batch(struct tx *x, const struct tune_settings *set, struct tune_result *res,
		      unsigned int n)
{
	pthread_t th[MAX_THREADS];
	unsigned int nt = x->threads < n ? x->threads : n, started = 0;
	struct batch b = { &x->o.cfg, set, res, n, 0 };

	for (unsigned int i = 1; i < nt; i++) {
		if (pthread_create(&th[started], NULL, worker, &b))
			break;
		started++;
	}
	worker(&b);
	for (unsigned int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
}

static int search(struct tx *x)
{
	struct tune_settings def, set[TUNE_MAX_CAND];
	unsigned int n;

	x->res = calloc(TUNE_MAX_CAND, sizeof(*x->res));
	if (!x->res)
		return cmd_fail(x->c, "%s", strerror(ENOMEM));
	tune_defaults(&def);
	tune_eval(&x->o.cfg, &def, &x->base);
	if (x->base.err)
		return cmd_fail(x->c, "cannot simulate the model: %s", strerror(-x->base.err));
	x->base.feasible = true;
	n = tune_coarse(&x->o.cfg, &x->base, set, TUNE_MAX_CAND);
	run_batch(x, set, x->res, n);
	x->nres = x->ncoarse = n;
	tune_mark(x->res, x->nres, &x->base, x->keep);
	/* two rounds of refinement around the best so far */
	for (int round = 0; round < 2; round++) {
		n = tune_refine(x->res, x->nres, set, TUNE_MAX_CAND - x->nres);
		if (!n)
			break;
		run_batch(x, set, x->res + x->nres, n);
		x->nres += n;
		tune_mark(x->res, x->nres, &x->base, x->keep);
	}
	x->pick = tune_pick(x->res, x->nres, &x->base, x->min_gain,
			    tune_min_gain_ns(&x->o.cfg), &x->best);
	return 0;
}

/* ------------------------------------------------------------ the advice */

static void advise(struct tx *x)
{
	char a[32], b[32];

	x->command[0] = '\0';
	if (x->pick < 0) {
		snprintf(x->reason, sizeof(x->reason),
			 "no setting cuts the kernel defaults' p99 ring delay of %s by %.0f%% (and %s) with throughput within %.1f%% of theirs",
			 sim_fmt_ns(a, sizeof(a), x->base.p99), x->min_gain * 100,
			 sim_fmt_ns(b, sizeof(b), tune_min_gain_ns(&x->o.cfg)), (1 - x->keep) * 100);
		return;
	}
	{
		const struct tune_result *r = &x->res[x->pick];

		snprintf(x->reason, sizeof(x->reason),
			 "p99 ring delay %s -> %s at %.1f%% of default throughput",
			 sim_fmt_ns(a, sizeof(a), x->base.p99), sim_fmt_ns(b, sizeof(b), r->p99),
			 x->base.bytes_tx ? 100.0 * (double)r->bytes_tx / (double)x->base.bytes_tx : 100.0);
		snprintf(x->command, sizeof(x->command),
			 "bqltool set %s limit_min=%" PRIu32 " limit_max=%" PRIu32 " hold_time=%" PRIu32,
			 x->sel ? x->sel : "DEV", r->set.limit_min, r->set.limit_max, r->set.hold_time);
	}
}

/* --apply: the recommendation through set's all-or-nothing path */
static int apply(struct tx *x, const struct sel_result *t)
{
	const struct tune_result *r = &x->res[x->pick];
	const struct { enum bql_attr a; uint64_t v; } kv[] = {
		{ BQL_LIMIT_MIN, r->set.limit_min },
		{ BQL_LIMIT_MAX, r->set.limit_max },
		{ BQL_HOLD_TIME, r->set.hold_time },
	};
	unsigned int hz = cmd_plan_hz(x->c, true);
	struct bql_err e;
	struct plan p;
	int ret = 0;

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
	printf("\napplying (old -> new):\n");
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
};

/*
 * A fraction in (0, 1] (--keep), or in [0, 1] with @zero_ok (--min-gain):
 * a plain decimal like every number typed (lib/units.c), no sign or
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
	ret = search(x);
	if (ret)
		goto out;
	advise(x);
	tx_quote_command(x);
	ret = tx_report(x);
	if (!ret && x->apply) {
		if (x->pick < 0)
			printf("\nnothing applied: the defaults stay\n");
		else
			ret = apply(x, &st.targets);
	}
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
		    "[--threads N] [--apply] [--force] [MODEL OPTIONS]",
	.summary = "Recommend limit_min, limit_max and hold_time for a latency goal, by simulation",
	.help = "  --from TRACE         fit the model (link rate, completion batches and\n"
		"                       intervals, offered load, packet sizes, queues) from a\n"
		"                       bqltrace, plain, .gz or .zst (- reads standard input)\n"
		"  --keep FRACTION      keep throughput within this fraction of the kernel\n"
		"                       defaults' on the same traffic (0.995)\n"
		"  --min-gain FRACTION  recommend a change only if it cuts the defaults' p99 ring\n"
		"                       delay by this much (0.1); else keep the defaults\n"
		"  --threads N          simulations in parallel (default: the CPUs it may run on,\n"
		"                       its affinity); results do not depend on it\n"
		"  --apply              write the recommendation to SEL, all-or-nothing as set\n"
		"  --force              search even where the trace fits no model, or is of\n"
		"                       another device than SEL (it says what does not fit)\n"
		"MODEL OPTIONS, as for sim (they override what was fitted or read):\n"
		SIM_OPTS_HELP
		"\nWith SEL and no --from, the link speed and queue count come from the device\n"
		"(read-only) and each queue carries a backlogged flow. The search: a sweep of\n"
		"limit_max x hold_time, then two refinements around the best. Ring delay is\n"
		"from netdev_tx_sent_queue() to the wire (see bqltool-sim(8)).\n",
	.flags = 0,
	.run = tune_run,
};
