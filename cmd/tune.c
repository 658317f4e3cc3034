// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool tune [SEL]: recommend limit_min, limit_max and hold_time for a
 * latency/throughput goal by simulating candidates on all cores (the
 * engine: lib/model/tune_eval.c over dql/tune.c, dql/sim.c). Here: the
 * options, the model from them, a trace (--from) or the live device
 * (read-only), and --apply through set's all-or-nothing path. The advice
 * in words and the report are in tune_out.c.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
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
#include "lib/kernel/nl.h"
#include "lib/kernel/nl_ethtool.h"
#include "lib/model/plan.h"
#include "lib/kernel/sysfs.h"
#include "lib/io/units.h"

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

/* the engine's progress, on the terminal (x->progress) */
static void progress(void *arg, const struct tune_engine *e, unsigned int done, unsigned int n)
{
	struct tx *x = arg;

	fprintf(stderr, "\r\033[Kbqltool: tune: %s: %u of %u simulations (%u so far)",
		e->stage, done, n, e->sims + done);
	x->drawn = true;
}

static void progress_clear(struct tx *x)
{
	if (x->drawn)
		fprintf(stderr, "\r\033[K");
	x->drawn = false;
}

static void threads_short(void *arg, unsigned int started, unsigned int wanted, int err)
{
	struct tx *x = arg;

	if (x->c->verbose)
		cmd_warn(x->c, "%u of %u threads started (%s): the results are the same, only slower",
			 started, wanted, strerror(err));
}

/* the work of the whole search, before it starts: past TUNE_WORK_MAX, what to change */
static int work_check(struct tx *x)
{
	if (!tune_engine_plan(&x->eng))
		return 0;
	return cmd_usage(x->c, "the search needs about %.3g simulated events (%u members x up to %u settings, each run %s or %u hold times), more than the %.3g tune may take: give a shorter --duration, a larger --size, a slower --link, a larger --coalesce-usecs or --irq-latency",
			 (double)x->eng.work, x->eng.nmem, TUNE_WORK_SETTINGS, "--duration",
			 TUNE_HOLDS, (double)TUNE_WORK_MAX);
}

static int search(struct tx *x)
{
	static const struct tune_engine_ops ops = {
		.threads_short = threads_short,
	}, ops_progress = {
		.progress = progress, .threads_short = threads_short,
	};
	struct bql_err e;
	int ret;

	x->eng.ops = x->progress ? &ops_progress : &ops;
	x->eng.ops_arg = x;
	ret = tune_engine_search(&x->eng, &e);
	progress_clear(x);
	if (ret) {
		cmd_error(x->c, &e);
		return BQL_EXIT_FAIL;
	}
	return 0;
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

	if (x->eng.pick < 0)
		tune_defaults(&s);
	else
		s = x->eng.res[x->eng.pick].set;
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
	if (x->eng.pick < 0 && !plan_pending(&p)) {
		printf("\nnothing applied: the queues hold the defaults\n");
		plan_free(&p);
		return BQL_EXIT_OK;
	}
	printf(x->eng.pick < 0 ? "\napplying the defaults (old -> new):\n" : "\napplying (old -> new):\n");
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
	OPT_MARGIN,
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
			x->eng.qdisc = kinds[i].q;
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
		{ "margin",	required_argument,	NULL, OPT_MARGIN },
		{ "stall",	required_argument,	NULL, SO_STALL },
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
			ret = parse_fraction(x, "--keep", optarg, false, "0.995", &x->eng.keep);
			if (ret)
				return ret;
			break;
		case OPT_MIN_GAIN:
			ret = parse_fraction(x, "--min-gain", optarg, true, "0.1",
					     &x->eng.min_gain);
			if (ret)
				return ret;
			break;
		case OPT_THREADS:
			if (units_parse_arg_u64(optarg, &v) || !v || v > TUNE_MAX_THREADS)
				return cmd_usage(x->c, "--threads: '%s': expected 1..%u", optarg,
						 TUNE_MAX_THREADS);
			x->eng.threads = (unsigned int)v;
			break;
		case OPT_APPLY:
			x->apply = true;
			break;
		case OPT_QDISC:
			ret = parse_qdisc(x, optarg);
			if (ret)
				return ret;
			break;
		case OPT_MARGIN: {
			struct bql_err e;
			uint64_t ns;

			ret = units_parse_sec_ns("--margin", optarg, &ns, &e);
			if (!ret && ns > TUNE_MARGIN_CEIL_NS)
				ret = bql_err_set(&e, ERANGE, "--margin: '%s': at most 5 ms (the margin's ceiling)",
						  optarg);
			if (ret)
				return cmd_usage(x->c, "%s", e.msg);
			x->eng.margin_given_ns = ns;
			break;
		}
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
	int ret;

	x = calloc(1, sizeof(*x));
	if (!x)
		return cmd_fail(c, "%s", strerror(ENOMEM));
	x->c = c;
	sim_opts_init(&x->o);
	tune_engine_init(&x->eng, &x->o.cfg);	/* the model is filled in below */
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
	tx_advise(x);
	tx_quote_command(x);
	ret = tx_report(x);
	if (!ret && x->apply)
		ret = apply(x, &st.targets);
out:
	if (have_st)
		cmd_state_free(&st);
	tune_engine_free(&x->eng);
	free(x);
	return ret;
}

const struct cmd_entry cmd_tune_entry = {
	.name = "tune",
	.synopsis = "tune [SEL] [--from TRACE] [--keep FRACTION] [--min-gain FRACTION] "
		    "[--threads N] [--qdisc KIND] [--margin TIME] [--stall TIME:DURATION]... [--apply] [--force] [MODEL OPTIONS]",
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
		"  --margin TIME        every setting must also carry the link with interrupts\n"
		"                       this late (else half of what the defaults hold; 5ms max)\n"
		"  --threads N          simulations in parallel (default: the CPUs it may run on,\n"
		"                       its affinity); results do not depend on it\n"
		"  --apply              write the recommendation to SEL, all-or-nothing as set\n"
		"  --force              search even where the trace fits no model, or is of\n"
		"                       another device than SEL (it says what does not fit)\n"
		"MODEL OPTIONS, as for sim (they override what was fitted or read):\n"
		SIM_OPTS_HELP
		"  --stall TIME:DURATION  delay every NAPI poll due in that window to its end\n"
		"                       (repeatable: completions that stall now and then)\n"
		"\nWith SEL and no --from, the link speed and queue count come from the device\n"
		"(read-only) and each queue carries a backlogged flow. The search: how late\n"
		"interrupts may come before the defaults starve the link (D, up to 5 ms), then\n"
		"a sweep of limit_max x hold_time and two refinements around the best. Every\n"
		"setting is judged in an ensemble (interrupts M = D/2 later +-M/2, 1 and N/2\n"
		"busy queues, load +-20%, other seeds; runs of 5 hold times) and kept only if\n"
		"it keeps the throughput in each; the best must hold M on the model too. Ring\n"
		"delay is from netdev_tx_sent_queue() to the wire (see bqltool-sim(8)).\n",
	.flags = 0,
	.run = tune_run,
};
