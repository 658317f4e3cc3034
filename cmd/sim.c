// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool sim: run the closed-loop NIC + DQL model (dql/sim.c), write what
 * DQL saw as a bqltrace (--trace), and replay's --timeline and --plot of it;
 * the summary is in sim_out.c.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/sim.h"
#include "cmd/sim_trace.h"
#include "dql/replay.h"
#include "lib/io/ofile.h"
#include "lib/io/units.h"

/* ------------------------------------------------------------ the trace */

/* a header line (not a record): in the trace, and counted for the timeline */
static void header(struct sx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void header(struct sx *x, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	x->line++;
	if (!x->tw)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	sim_trace_line(x->tw, "%s", line);
}

/* the same record through a replay, for replay's --timeline and --plot */
static void rx_record(struct sx *x, const struct sim_rec *r)
{
	struct bqlt_rec rec;

	if (x->rx_err)
		return;
	sim_rec_to_bqlt(r, x->qname[r->queue], x->o.cfg.hz, x->line, &rec);
	x->rx_err = replay_feed(&x->rf.r, &rec, &x->rx_e);
}

static void on_record(void *arg, const struct sim_rec *r)
{
	struct sx *x = arg;

	x->line++;
	if (x->tw)
		sim_trace_record(x->tw, r, x->qname[r->queue]);
	if (x->rx_on)
		rx_record(x, r);
}

static void on_mismatch(void *arg, const struct replay_event *ev)
{
	struct sx *x = (struct sx *)((char *)arg - offsetof(struct sx, x));

	(void)ev;
	x->rx_mismatch++;
}

static void on_progress(void *arg, uint64_t t_ns)
{
	struct sx *x = arg;
	char a[32], b[32];

	if (!x->progress || (x->drawn && t_ns - x->shown_ns < x->o.cfg.duration_ns / 100))
		return;
	fprintf(stderr, "\r\033[Kbqltool: sim: %s of %s simulated",
		sim_fmt_ns(a, sizeof(a), t_ns), sim_fmt_ns(b, sizeof(b), x->o.cfg.duration_ns));
	x->shown_ns = t_ns;
	x->drawn = true;
}

/*
 * The plot's title: the model, and every setting that is not the
 * default: --set, --at and --stall, which are also marked on the time axis.
 */
static void plot_title(struct sx *x)
{
	const struct sim_config *cfg = &x->o.cfg;
	char traffic[1024], rate[32], a[32], b[32];
	size_t n, max = sizeof(x->plot_title);
	char *t = x->plot_title;

	n = (size_t)snprintf(t, max, "bqltool sim: %s link, %u queue%s, seed %" PRIu64 ", traffic %s",
			     sim_fmt_rate(rate, sizeof(rate), (double)cfg->link_bps), cfg->nqueues,
			     cfg->nqueues == 1 ? "" : "s", cfg->seed,
			     sim_fmt_traffic(traffic, sizeof(traffic), cfg));
	for (unsigned int k = 0; k < cfg->nset && n < max; k++)
		n += (size_t)snprintf(t + n, max - n, "%s%s=%" PRIu64, k ? " " : ", --set ",
				      bqlt_key_name(cfg->set[k].key), cfg->set[k].val);
	for (unsigned int k = 0; k < cfg->nat; k++) {
		struct rx_mark *m = &x->marks[x->x.nmarks++];

		m->t_ns = cfg->at[k].t_ns;
		m->len_ns = 0;
		snprintf(m->label, sizeof(m->label), "%s=%" PRIu64, bqlt_key_name(cfg->at[k].kv.key),
			 cfg->at[k].kv.val);
		if (n < max)
			n += (size_t)snprintf(t + n, max - n, ", at %s: %s",
					      sim_fmt_ns(a, sizeof(a), m->t_ns), m->label);
	}
	for (unsigned int k = 0; k < cfg->nstalls; k++) {
		struct rx_mark *m = &x->marks[x->x.nmarks++];

		m->t_ns = cfg->stalls[k].t_ns;
		m->len_ns = cfg->stalls[k].len_ns;
		snprintf(m->label, sizeof(m->label), "stall: NAPI polls held %s",
			 sim_fmt_ns(b, sizeof(b), m->len_ns));
		if (n < max)
			n += (size_t)snprintf(t + n, max - n, ", stall at %s for %s",
					      sim_fmt_ns(a, sizeof(a), m->t_ns), b);
	}
	x->x.marks = x->marks;
}

/* the header, and the queue declarations that go with it */
static int outputs_open(struct sx *x)
{
	static const struct replay_ops ops_c = {
		.event = rx_on_event, .mismatch = on_mismatch, .event_kinds = 1u << BQLT_C,
	};
	static const struct replay_ops ops_all = {
		.event = rx_on_event, .mismatch = on_mismatch,
	};
	const struct sim_config *cfg = &x->o.cfg;
	char traffic[1024], rate[32];
	int ret;

	if (x->trace) {
		struct bql_err e;

		if (sim_trace_open(&x->tw, x->trace, &e))
			return cmd_fail(x->c, "%s", e.msg);
	}
	if (x->timeline || x->plot) {
		struct replay_opts ro;

		replay_opts_init(&ro);
		ro.kflags = cfg->kflags;
		x->x.timeline = x->timeline;
		x->x.plot_path = x->plot;
		x->x.jsonl = x->jsonl;
		x->x.all_events = x->all_events;
		plot_title(x);
		x->x.plot_title = x->plot_title;
		x->rf.path = x->trace ? x->trace : "sim";
		x->x.files = &x->rf;
		x->x.nfiles = 1;
		x->x.path = x->rf.path;
		replay_init(&x->rf.r, &ro, (x->plot || x->all_events) ? &ops_all : &ops_c, &x->x);
		x->rf.live = true;
		x->rx_on = true;
		ret = rx_outputs_open(&x->x);
		if (ret)
			return ret;
	}
	header(x, "bqltrace 1\n");
	header(x, "# bqltool sim: %s link, %u queue%s, seed %" PRIu64 ", kernel %s%s\n",
	       sim_fmt_rate(rate, sizeof(rate), (double)cfg->link_bps), cfg->nqueues,
	       cfg->nqueues == 1 ? "" : "s", cfg->seed, x->o.kernel ? x->o.kernel : "newest",
	       x->o.kernel ? " (replay with the same --kernel)" : "");
	header(x, "# traffic: %s\n", sim_fmt_traffic(traffic, sizeof(traffic), cfg));
	header(x, "hz %u\n", cfg->hz);
	for (unsigned int i = 0; i < cfg->nqueues; i++) {
		char set[SIM_MAX_SET * 40] = "";
		size_t n = 0;

		snprintf(x->qname[i], SIM_QNAME_MAX, "sim:tx-%u", i);
		for (unsigned int k = 0; k < cfg->nset; k++)
			n += (size_t)snprintf(set + n, sizeof(set) - n, " %s=%" PRIu64,
					      bqlt_key_name(cfg->set[k].key), cfg->set[k].val);
		header(x, "queue %s%s\n", x->qname[i], set);
		if (x->rx_on && !x->rx_err) {
			struct bqlt_rec rec;

			sim_queue_to_bqlt(cfg, i, x->qname[i], x->line, &rec);
			x->rx_err = replay_feed(&x->rf.r, &rec, &x->rx_e);
		}
	}
	return 0;
}

static int outputs_close(struct sx *x, bool ok)
{
	int ret = 0, r;

	if (ok && x->rx_err)
		ret = cmd_fail(x->c, "internal error: replay of the simulation: %s", x->rx_e.msg);
	if (ok && !ret && x->rx_mismatch)
		ret = cmd_fail(x->c, "internal error: replay disagrees with the simulation on %" PRIu64
			       " limits", x->rx_mismatch);
	if (x->rx_on) {
		r = rx_outputs_close(&x->x, ok && !ret);
		if (!ret)
			ret = r;
	}
	if (x->tw && ok && !ret) {
		struct bql_err e;

		if (sim_trace_commit(x->tw, &e))
			ret = cmd_fail(x->c, "%s", e.msg);
	} else {
		sim_trace_abort(x->tw);
	}
	x->tw = NULL;
	if (x->rf.live) {
		replay_free(&x->rf.r);
		x->rf.live = false;
	}
	return ret;
}

/* ------------------------------------------------------------ options */

enum {
	OPT_TRACE = 256,
	OPT_TIMELINE,
	OPT_PLOT,
	OPT_ALL_EVENTS,
};

/*
 * Refuse up front a model whose run would take more than SIM_WORK_MAX
 * events, naming what makes it big.
 */
static int sim_work_check(struct bql_ctx *c, const struct sim_config *cfg)
{
	struct sim_work w;
	char what[256] = "a shorter --duration";

	sim_work_count(cfg, &w);
	if (w.total <= SIM_WORK_MAX)
		return 0;
	if (w.packets + w.arrivals >= w.total / 4)
		strcat(what, ", a larger --size, a slower --link or --traffic rate");
	if (w.irqs >= w.total / 4)
		strcat(what, ", a larger --coalesce-usecs or --irq-latency");
	if (w.periods >= w.total / 4)
		strcat(what, ", longer --traffic ON/OFF periods");
	return cmd_usage(c, "the model needs about %.3g simulated events (%.3g packets, %.3g arrivals, "
			 "%.3g interrupts, %.3g polls, %.3g on/off periods), more than the %.3g one run "
			 "may take: give %s",
			 (double)w.total, (double)w.packets, (double)w.arrivals, (double)w.irqs,
			 (double)w.polls, (double)w.periods, (double)SIM_WORK_MAX, what);
}

static int parse_opts(struct sx *x, int argc, char **argv)
{
	static const struct option opts[] = {
		SIM_OPTS_LONG,
		SIM_OPTS_WIRE_LONG,
		{ "set",	required_argument,	NULL, SO_SET },
		{ "at",		required_argument,	NULL, SO_AT },
		{ "stall",	required_argument,	NULL, SO_STALL },
		{ "trace",	required_argument,	NULL, OPT_TRACE },
		{ "timeline",	required_argument,	NULL, OPT_TIMELINE },
		{ "plot",	required_argument,	NULL, OPT_PLOT },
		{ "all-events",	no_argument,		NULL, OPT_ALL_EVENTS },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, ret;

	optind = 0;
	opterr = 0;
	while ((opt = cmd_getopt(x->c, argc, argv, ":q", opts)) != -1) {
		switch (opt) {
		case OPT_PLOT:
			ret = cmd_out_name(x->c, "--plot", optarg, &cmd_out_plot, NULL);
			if (ret)
				return ret;
			x->plot = optarg;
			break;
		case OPT_TRACE:
			ret = cmd_out_name(x->c, "--trace", optarg, &cmd_out_trace, NULL);
			if (ret)
				return ret;
			x->trace = optarg;
			break;
		case OPT_TIMELINE: {
			enum ofile_fmt f;

			ret = cmd_out_name(x->c, "--timeline", optarg, &cmd_out_timeline, &f);
			if (ret)
				return ret;
			x->timeline = optarg;
			x->jsonl = f == OFILE_FMT_JSONL;
			break;
		}
		case OPT_ALL_EVENTS:
			x->all_events = true;
			break;
		case 'q':
			x->quiet = true;
			break;
		case ':':
		case '?':
		case GOPT_FAILED:	/* a bad global option after the command */
			return cmd_bad_option(x->c, opt, argv);
		default:
			ret = sim_opts_parse(x->c, &x->o, opt, optarg);
			if (ret)
				return ret;
			break;
		}
	}
	if (optind < argc)
		return cmd_usage(x->c, "unexpected argument '%s'", argv[optind]);
	if (x->all_events && !x->timeline)
		return cmd_usage(x->c, "--all-events needs --timeline");
	/* two outputs on one file: the second would silently replace the first */
	{
		const char *out[3] = { x->trace, x->timeline, x->plot };
		static const char *const name[3] = { "--trace", "--timeline", "--plot" };

		for (int i = 1; i < 3; i++)
			for (int k = 0; k < i; k++)
				if (out[i] && out[k] && ofile_clash(out[i], out[k]))
					return cmd_usage(x->c, "%s: '%s' is also the %s file: "
							 "each output needs a file of its own",
							 name[i], out[i], name[k]);
	}
	ret = sim_opts_finish(x->c, &x->o);
	if (ret)
		return ret;
	return sim_work_check(x->c, &x->o.cfg);
}

static int sim_cmd_run(struct bql_ctx *c, int argc, char **argv)
{
	static const struct sim_ops ops_rec = { .record = on_record, .progress = on_progress };
	static const struct sim_ops ops_plain = { .progress = on_progress };
	struct bql_err e;
	struct sx *x;
	int ret;

	x = calloc(1, sizeof(*x));
	if (!x)
		return cmd_fail(c, "%s", strerror(ENOMEM));
	x->c = c;
	rx_init(&x->x, c);
	sim_opts_init(&x->o);
	ret = parse_opts(x, argc, argv);
	if (ret)
		goto out;
	if (sim_new(&x->s, &x->o.cfg, &e)) {
		ret = cmd_fail(c, "%s", e.msg);
		goto out;
	}
	ret = outputs_open(x);
	if (ret) {
		outputs_close(x, false);
		goto out;
	}
	x->nwarn = sim_opts_warnings(c, &x->o.cfg, x->warn);
	x->progress = !c->json && !x->quiet && isatty(STDERR_FILENO);
	sim_run(x->s, (x->trace || x->rx_on) ? &ops_rec : &ops_plain, x);
	if (x->drawn)
		fputs("\r\033[K", stderr);
	ret = outputs_close(x, true);
	if (!ret && !x->quiet)
		ret = sx_summary(x);
out:
	sim_free(x->s);
	free(x);
	return ret;
}

const struct cmd_entry cmd_sim_entry = {
	.name = "sim",
	.synopsis = "sim [--traffic SPEC]... [--size SPEC] [--link RATE] [--queues N] [--qlen PKTS] "
		    "[--ring N] [--frag-size BYTES] [--no-framing] [--coalesce-usecs N] [--coalesce-frames N] [--napi-budget N] "
		    "[--irq-latency MEAN[:JITTER]] [--hz N] [--kernel VERSION] [--set KEY=VALUE]... "
		    "[--at TIME:KEY=VALUE]... [--stall TIME:DURATION]... [--duration TIME] [--seed N] "
		    "[--trace FILE] [--timeline FILE [--all-events]] [--plot FILE.svg|.png|.pdf] [-q]",
	.summary = "Simulate a NIC's transmit path under DQL, closed loop, deterministically",
	.help = SIM_OPTS_HELP SIM_OPTS_WIRE_HELP SIM_OPTS_SET_HELP
		"  --trace FILE         write what DQL saw as a bqltrace (C records carry limit=,\n"
		"                       so 'bqltool replay --verify FILE' agrees); .gz, .zst\n"
		"                       compress it\n"
		"  --timeline FILE      as replay: one row per C record, CSV or .jsonl\n"
		"  --all-events         with --timeline: one row per record (R, Q, C, P)\n"
		"  --plot FILE.svg      as replay: limit and inflight of each queue over time\n"
		"                       (.png, .pdf: drawn with cairo)\n"
		"  -q, --quiet          no summary, no progress\n"
		"\nRATE is in bit/s (100M, 2.5G); TIME in seconds (1, 0.5, 200ms, 50us). Ring delay\n"
		"is the time from netdev_tx_sent_queue() to the start on the wire; quantiles are\n"
		"within 1.6%. The same options and seed give the same output, byte for byte.\n",
	.flags = 0,
	.run = sim_cmd_run,
};
