// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool latency [SEL]: time in the transmit path, measured by the BPF
 * observer (lib/kernel/latbpf.c, lib/kernel/bpf/latency.bpf.c) that sums
 * histograms in the kernel: qdisc wait, ring time, stops by cause,
 * completions per poll, interrupt delay, drops, stalls and timeouts; or,
 * with --from TRACE, the ring time of a recording's Q and C records.
 * This file: options, the queues, the run and its end; printing is
 * latency_out.c.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/common.h"
#include "cmd/latency.h"
#include "lib/io/tinput.h"
#include "lib/io/units.h"
#include "lib/kernel/sysfs.h"

#define TICK_MS		100
#define MAX_NS		(24ull * 3600 * 1000000000ull)	/* a day */
#define NPS		16

struct lat_opts {
	uint64_t dur_ns;	/* -d, 0 = until a signal */
	uint64_t ivl_ns;	/* -i, 0 = one report at the end */
	const char *from;	/* --from TRACE */
	bool hist, no_irq;
};

struct lat_run {
	struct bql_ctx *c;
	const struct lat_opts *o;
	struct latbpf_target *t;
	unsigned int n;
	struct latbpf *l;
	struct lat_event ev[LAT_MAX_EVENTS];
	unsigned int nev;
	uint64_t ev_lost;
};

static volatile sig_atomic_t lat_stop;

static void on_signal(int sig)
{
	(void)sig;
	lat_stop = 1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* IFF_UP in ROOT/class/net/@dev/flags */
static bool dev_up(const struct bql_ctx *c, const char *dev)
{
	char path[512], buf[32];

	if (sysfs_dev_path(c, path, sizeof(path), dev, "flags") ||
	    sysfs_read(c, path, buf, sizeof(buf), dev, NULL))
		return false;
	return strtoul(buf, NULL, 16) & 1;
}

/* the selected queues; with no selector the devices that are up */
static int collect(struct lat_run *r, const struct cmd_state *st, bool all)
{
	unsigned int n = 0;

	for (size_t i = 0; i < st->targets.n; i++)
		n += st->targets.t[i].nqueues;
	r->t = calloc(n ? n : 1, sizeof(*r->t));
	if (!r->t)
		return cmd_fail(r->c, "out of memory");
	for (size_t i = 0; i < st->targets.n; i++) {
		const struct sel_target *tg = &st->targets.t[i];

		if (all && !dev_up(r->c, tg->ifname)) {
			if (r->c->verbose)
				cmd_note(r->c, "%s: not observed (down); name it to observe it",
					 tg->ifname);
			continue;
		}
		for (unsigned int k = 0; k < tg->nqueues; k++) {
			struct latbpf_target *t = &r->t[r->n++];

			snprintf(t->ifname, sizeof(t->ifname), "%s", tg->ifname);
			t->ifindex = tg->ifindex;
			t->queue = tg->queues[k];
		}
	}
	if (!r->n)
		return cmd_fail(r->c, "no network device that is up and has byte queue limits "
				"selected; name a device to observe it anyway");
	if (r->n > LAT_MAX_SLOTS)
		return cmd_fail(r->c, "%u queues selected, at most %d can be observed at once",
				r->n, LAT_MAX_SLOTS);
	return BQL_EXIT_OK;
}

static void on_event(void *arg, const struct lat_event *ev)
{
	struct lat_run *r = arg;

	if (r->nev < LAT_MAX_EVENTS)
		r->ev[r->nev++] = *ev;
	else
		r->ev_lost++;
}

static int report(struct lat_run *r, const struct latbpf_snap *s, uint64_t dur)
{
	struct lat_report rep = {
		.t = r->t, .n = r->n, .s = s, .dur_ns = dur, .l = r->l,
		.missing = latbpf_missing(r->l), .ev = r->ev, .nev = r->nev,
		.ev_lost = r->ev_lost, .hist = r->o->hist, .no_irq = r->o->no_irq,
	};
	int ret = latency_print(r->c, &rep);

	r->nev = 0;
	r->ev_lost = 0;
	fflush(stdout);
	return cmd_output_done(r->c, ret);
}

/* BQLTOOL_LATENCY_STATS=1: each program's runs and run time, on stderr */
static void prog_stats(struct lat_run *r)
{
	struct bpf_prog_runs ps[NPS];
	int n = latbpf_prog_stats(r->l, ps, NPS);

	for (int i = 0; i < n; i++)
		fprintf(stderr, "bqltool: latency: BPF program %s: %" PRIu64 " runs, %" PRIu64
			" ns, %.0f ns per run\n", ps[i].name, ps[i].runs, ps[i].run_ns,
			(double)ps[i].run_ns / (double)ps[i].runs);
}

/*
 * Attach, then every -i (or once at the end) print what the interval
 * saw. A signal (INT, TERM, HUP) ends the run like -d: the last reading
 * is taken, everything detached, then printed.
 */
static int observe(struct lat_run *r)
{
	const char *st = getenv("BQLTOOL_LATENCY_STATS");
	struct latbpf_opts lo = {
		.t = r->t, .n = r->n, .verbose = r->c->verbose,
		.prog_stats = st && *st == '1', .no_irq = r->o->no_irq,
	};
	struct latbpf_snap *prev = NULL, *now = NULL, *d = NULL;
	struct sigaction sa;
	struct bql_err e;
	uint64_t t0, end, next, last;
	int ret = BQL_EXIT_OK;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	prev = calloc(1, sizeof(*prev));
	now = calloc(1, sizeof(*now));
	d = calloc(1, sizeof(*d));
	if (!prev || !now || !d) {
		ret = cmd_fail(r->c, "out of memory");
		goto out;
	}
	if (latbpf_open(&r->l, &lo, &e)) {
		cmd_error(r->c, &e);
		ret = BQL_EXIT_FAIL;
		goto out;
	}
	if (latbpf_missing(r->l)[0])
		cmd_warn(r->c, "this kernel has no tracepoint %s: what it shows is not measured",
			 latbpf_missing(r->l));
	if (r->c->verbose)
		fprintf(stderr, "bqltool: latency: observing %u queue%s%s\n", r->n,
			r->n == 1 ? "" : "s",
			r->o->dur_ns ? "" : "; Ctrl-C ends the run");
	t0 = last = mono_ns();
	prev->n = r->n;
	end = r->o->dur_ns ? t0 + r->o->dur_ns : 0;
	next = r->o->ivl_ns ? t0 + r->o->ivl_ns : 0;
	while (!lat_stop) {
		uint64_t tn;

		usleep(TICK_MS * 1000);
		if (latbpf_events(r->l, on_event, r) < 0)
			break;
		tn = mono_ns();
		if (end && tn >= end)
			break;
		if (next && tn >= next && !lat_stop) {
			if (latbpf_read(r->l, now, &e)) {
				cmd_error(r->c, &e);
				ret = BQL_EXIT_FAIL;
				goto out;
			}
			latency_delta(d, now, prev);
			ret = report(r, d, now->t_ns - last);
			if (ret)
				goto out;
			memcpy(prev, now, sizeof(*prev));
			last = now->t_ns;
			next += r->o->ivl_ns;
		}
	}
	/* the end: read, detach, then print */
	latbpf_events(r->l, on_event, r);
	if (latbpf_read(r->l, now, &e)) {
		cmd_error(r->c, &e);
		ret = BQL_EXIT_FAIL;
		goto out;
	}
	if (lo.prog_stats)
		prog_stats(r);
	latbpf_detach(r->l);
	latency_delta(d, now, prev);
	/* with -i, a last part shorter than a tenth of an interval is not a reading */
	if (!r->o->ivl_ns || now->t_ns - last >= r->o->ivl_ns / 10)
		ret = report(r, d, now->t_ns - last);
out:
	latbpf_close(r->l);
	r->l = NULL;
	free(prev);
	free(now);
	free(d);
	return ret;
}

/* --from TRACE: the ring time of each queue from its Q and C records */
static int from_trace(struct bql_ctx *c, const struct lat_opts *o)
{
	struct bqlt_parser p;
	struct ringtime rt;
	struct tinput *in;
	struct bqlt_rec rec;
	struct bql_err e;
	char *buf = malloc(1 << 16), *line = NULL;
	size_t have = 0, cap = 0;
	int ret = BQL_EXIT_OK;
	bool eof = false;

	if (!buf)
		return cmd_fail(c, "out of memory");
	if (tinput_open(&in, o->from, &e)) {
		free(buf);
		return cmd_fail(c, "%s", e.msg);
	}
	bqlt_parser_init(&p, 0);
	ringtime_init(&rt);
	while (!eof) {
		ssize_t n = tinput_read(in, buf, 1 << 16, &e);

		if (n < 0) {
			ret = cmd_fail(c, "%s", e.msg);
			goto out;
		}
		eof = n == 0;
		for (ssize_t k = 0; k < n || (eof && have); k++) {
			bool nl = k < n && buf[k] == '\n';

			if (k < n && !nl) {
				if (have + 1 >= cap) {
					char *ln = realloc(line, cap ? cap * 2 : 256);

					if (!ln) {
						ret = cmd_fail(c, "out of memory");
						goto out;
					}
					line = ln;
					cap = cap ? cap * 2 : 256;
				}
				line[have++] = buf[k];
				continue;
			}
			int pr = bqlt_parse_line(&p, line ? line : "", have, &rec, &e);

			have = 0;
			if (pr < 0) {
				tinput_blame(in, &e);
				ret = cmd_fail(c, "%s: %s", o->from, e.msg);
				goto out;
			}
			if (pr > 0 && ringtime_feed(&rt, &rec, &e)) {
				ret = cmd_fail(c, "%s", e.msg);
				goto out;
			}
			if (k >= n)
				break;
		}
	}
	if (!rt.saw_q) {
		ret = cmd_fail(c, "%s: no Q records: the ring time needs the packets sent "
			       "(record --queued)", o->from);
		goto out;
	}
	{
		struct lat_report rep = { .rt = &rt, .missing = "", .hist = o->hist };

		ret = cmd_output_done(c, latency_print(c, &rep));
	}
out:
	ringtime_free(&rt);
	bqlt_parser_free(&p);
	tinput_close(in);
	free(buf);
	free(line);
	return ret;
}

static int latency_run(struct bql_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "duration",	required_argument,	NULL, 'd' },
		{ "interval",	required_argument,	NULL, 'i' },
		{ "from",	required_argument,	NULL, 'F' },
		{ "hist",	no_argument,		NULL, 'H' },
		{ "no-irq",	no_argument,		NULL, 'I' },
		{ "netns",	required_argument,	NULL, 'n' },
		{ "verbose",	no_argument,		NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct lat_opts o = { 0 };
	struct lat_run r = { .c = c, .o = &o };
	const char *netns = NULL;
	struct cmd_state st;
	struct bql_err e;
	int opt, ret;

	while ((opt = cmd_getopt(c, argc, argv, ":d:i:n:Hv", opts)) != -1) {
		switch (opt) {
		case 'd':
		case 'i': {
			uint64_t *v = opt == 'd' ? &o.dur_ns : &o.ivl_ns;
			const char *w = opt == 'd' ? "-d" : "-i";

			if (units_parse_sec_ns(w, optarg, v, &e))
				return cmd_usage(c, "%s", e.msg);
			if (!*v)
				return cmd_usage(c, "%s: the %s must be above 0", w,
						 opt == 'd' ? "duration" : "interval");
			if (*v > MAX_NS)
				return cmd_usage(c, "%s: at most a day (24h)", w);
			break;
		}
		case 'F':
			if (!*optarg)
				return cmd_usage(c, "--from: expected a trace file (- for standard input)");
			o.from = optarg;
			break;
		case 'H':
			o.hist = true;
			break;
		case 'I':
			o.no_irq = true;
			break;
		case 'n':
			netns = optarg;
			break;
		case 'v':
			c->verbose++;
			break;
		default:
			return cmd_bad_option(c, opt, argv);
		}
	}
	if (o.from) {
		if (o.dur_ns || o.ivl_ns || netns || o.no_irq || argc > optind)
			return cmd_usage(c, "--from reads a trace: no -d, -i, -n, --no-irq or selector");
		return from_trace(c, &o);
	}
	if (c->root_overridden)
		return cmd_usage(c, "--sysfs-root: latency observes the running kernel, "
				 "not a sysfs tree");
	if (!latbpf_available())
		return cmd_fail(c, "this bqltool was built without BPF support "
				"(libbpf, clang, bpftool or /sys/kernel/btf/vmlinux were missing at "
				"build time); --from TRACE works without it");
	ret = cmd_netns_option(c, netns);
	if (ret)
		return ret;
	ret = cmd_select(c, argc - optind, argv + optind, &st);
	if (ret)
		return ret;
	ret = collect(&r, &st, argc == optind);
	if (!ret)
		ret = observe(&r);
	free(r.t);
	cmd_state_free(&st);
	return ret;
}

const struct cmd_entry cmd_latency_entry = {
	.name = "latency",
	.synopsis = "latency [-d SEC] [-i SEC] [--hist] [--no-irq] [-n NS] [-v] [--from TRACE] [SEL...]",
	.summary = "Measure time in the transmit path per queue: qdisc wait, ring time, stops (BPF)",
	.help = "  -d, --duration SEC  stop after SEC seconds (fractional; default: until Ctrl-C)\n"
		"  -i, --interval SEC  print what each interval saw (default: once, at the end)\n"
		"      --hist          text: log2 histograms of the qdisc wait and the ring time\n"
		"      --no-irq        no interrupt delay: leave out the softirq tracepoints, which\n"
		"                      fire for every softirq of every CPU (the cost when TX is light)\n"
		"      --from TRACE    the ring time of a recording's Q and C records (record\n"
		"                      --queued), offline: no BPF, no root\n"
		"  -n, --netns NS      observe devices of network namespace NS\n"
		"  -v, --verbose       say what is observed\n"
		"\nPer TX queue and device: qdisc wait (enqueue -> dequeue; a bypass waits 0),\n"
		"ring time (netdev_tx_sent_queue -> the completion that covers the packet, from\n"
		"DQL's byte positions), stops by cause (BQL or a full ring) and how long they\n"
		"lasted, packets completed per NAPI poll, interrupt -> poll delay, qdisc drops by\n"
		"reason, stalls and watchdog timeouts; per CPU the interrupt -> NET_RX delay.\n"
		"BPF tracepoints only, summed in the kernel. With no SEL, the devices that are up.\n"
		"Ctrl-C, SIGTERM and SIGHUP end the run and print it. Needs root (CAP_BPF, CAP_PERFMON).\n",
	.run = latency_run,
};
