// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool top [SEL...]: options, then the live view (top_live.c, drawn by
 * top_view.c and top_draw.c) or the batch stream (-b: text blocks or
 * NDJSON, top_batch.c). Sampling is lib/kernel/sampler.c, rows, sorting and
 * flags lib/model/topmodel.c.
 */
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/top_lat.h"
#include "cmd/common.h"
#include "cmd/top.h"
#include "lib/kernel/netns.h"
#include "lib/kernel/sampler.h"
#include "lib/model/topmodel.h"

/* ------------------------------------------------------------ options */

/*
 * top -b -n 5 is how procps top asks for 5 samples; here -n names a
 * namespace. A number that names none is that mistake: say so (usage).
 */
static int top_netns_number(struct bql_ctx *c, const char *netns)
{
	char path[64];

	if (!netns || !*netns || strspn(netns, "0123456789") != strlen(netns) ||
	    strlen(netns) > 20)
		return BQL_EXIT_OK;
	snprintf(path, sizeof(path), "/run/netns/%s", netns);
	if (!access(path, F_OK))
		return BQL_EXIT_OK;
	return cmd_usage(c, "-n %s: no network namespace '%s': -n names one (ip netns list); "
			 "the number of samples is -c (top -b -c %s)", netns, netns, netns);
}

static int top_run(struct bql_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "delay",	required_argument,	NULL, 'd' },
		{ "batch",	no_argument,		NULL, 'b' },
		{ "count",	required_argument,	NULL, 'c' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "netns",	required_argument,	NULL, 'n' },
		{ "sort",	required_argument,	NULL, 's' },
		{ "all",	no_argument,		NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	struct top_opts o = { .delay_ns = NS_PER_SEC, .sort = -1 };
	const char *netns = NULL;
	struct cmd_state st;
	struct sampler s;
	struct bql_err e;
	int opt, ret;

	while ((opt = cmd_getopt(c, argc, argv, ":d:bc:jn:s:a", opts)) != -1) {
		switch (opt) {
		case 'd':
			ret = units_parse_sec_ns("-d", optarg, &o.delay_ns, &e);
			/* examples top takes (the generic ones end in 50us, refused below) */
			if (ret && strstr(e.msg, "expected seconds like"))
				return cmd_usage(c, "-d: invalid value '%s': expected seconds like "
						 "1, 0.5 or 200ms (at least 0.01 s)", optarg);
			if (ret)
				return cmd_usage(c, "%s", e.msg);
			if (o.delay_ns < MIN_DELAY_NS)
				return cmd_usage(c, "-d: interval '%s' is too short (at least 0.01 s)",
						 optarg);
			break;
		case 'b':
			o.batch = true;
			break;
		case 'c':
			if (units_parse_arg_u64(optarg, &o.count) || !o.count)
				return cmd_usage(c, "-c: invalid count '%s' (expected a whole number >= 1)",
						 optarg);
			break;
		case 'j':
			c->json = true;
			c->color = false;
			break;
		case 'n':
			netns = optarg;
			break;
		case 's':
			o.sort = topmodel_col_find(optarg);
			if (o.sort < 0)
				return cmd_usage(c, "-s: unknown column '%s' (name, limit, inflight, fill, "
						 "limit_min, limit_max, tx_rate, pkt_rate, stop_rate, "
						 "wake_rate, stall_cnt, stall_max, qdisc_backlog, "
						 "qdrop_rate, ring, tx_usecs, ring_p99, qdisc_p99, "
						 "bql_stop_rate, ring_stop_rate)", optarg);
			break;
		case 'a':
			o.all = true;
			break;
		default:
			return cmd_bad_option(c, opt, argv);
		}
	}
	if (c->json)
		o.batch = true;	/* JSON is a stream for programs */
	if (!o.batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		return cmd_usage(c, "not a terminal: the live view needs one; "
				 "use -b for batch output (e.g. top -b -c 5, -j for JSON lines)");
	ret = top_netns_number(c, netns);
	if (!ret)
		ret = cmd_netns_option(c, netns);
	if (ret)
		return ret;
	ret = cmd_select(c, argc - optind, argv + optind, &st);
	if (ret)
		return ret;
	if (!st.targets.n)
		cmd_warn(c, "no network device with byte queue limits found (yet)");
	cmd_open_netlink(c, &st);
	/* up to 8 descriptors per queue: take what the hard limit allows */
	sampler_raise_nofile();
	sampler_init(&s, c, &st.sel, st.nl, NULL);
	if (!o.batch)
		setlocale(LC_ALL, "");
	o.lat = top_lat_new();
	top_lat_start(c, o.lat, &st.targets);
	ret = o.batch ? top_run_batch(c, &s, &o) : top_run_live(c, &s, &o, st.sel.n > 0);
	top_lat_free(o.lat);
	sampler_free(&s);
	cmd_state_free(&st);
	return ret;
}

const struct cmd_entry cmd_top_entry = {
	.name = "top",
	.synopsis = "top [-b] [-d SEC] [-c COUNT] [-j] [-s COLUMN] [-a] [-n NS] [SEL...]",
	.summary = "Live view of BQL limits, inflight bytes, rates and stalls; -b for a stream",
	.help = "  -d, --delay SEC    seconds between samples, fractional (default 1, at least 0.01)\n"
		"  -b, --batch        no screen: print one block per sample (text), or with -j\n"
		"                     one JSON object per line; a text block's device row sums\n"
		"                     limit and inflight over the selected queues (\"all\", or\n"
		"                     \"N of M\" when a selector picked some); every device is\n"
		"                     listed, down ones too, with its state\n"
		"  -c, --count N      stop after N samples\n"
		"  -j, --json         batch output as JSON lines (implies -b)\n"
		"  -s, --sort COLUMN  initial sort: name, limit, inflight, fill, limit_min, limit_max,\n"
		"                     tx_rate, pkt_rate, stop_rate, wake_rate (the rates shown),\n"
		"                     stall_cnt, stall_max, qdisc_backlog, qdrop_rate, ring, tx_usecs,\n"
		"                     ring_p99, qdisc_p99, bql_stop_rate, ring_stop_rate (measured)\n"
		"  -a, --all          the live view shows every device: by default down devices\n"
		"                     and devices whose BQL was never used (limit and inflight\n"
		"                     0, no traffic) are hidden, and the header says how many\n"
		"  -n, --netns NS     watch the devices of network namespace NS\n"
		"\nKeys: q quit, h help, s/F6 or < > sort, r reverse, / filter, space pause,\n"
		"+/- interval, Enter expand/collapse a device, * every device, a show hidden\n"
		"devices.\n"
		"\nThe live view samples every -d but redraws at most 10 times a second.\n"
		"limit and inflight are read at every sample; limit_min, limit_max,\n"
		"hold_time, stall_thrs, stall_cnt and stall_max of a slice of the queues\n"
		"at each sample, each queue's at least once a second: a change made\n"
		"meanwhile shows within a second. Traffic counters are read at every\n"
		"sample with -b, at most 10 times a second in the live view.\n"
		"\nJSON lines carry mono_ns and real_us timestamps, each device's queues with\n"
		"their sysfs values (sysfs units), and from the second sample on the rates\n"
		"(*_rate, per second) and stall_cnt_delta; \"events\" lists devices that\n"
		"appeared or vanished and queue count changes. Without a terminal the live\n"
		"view refuses to start: use -b.\n",
	.flags = CMD_NEEDS_NL,
	.run = top_run,
};
