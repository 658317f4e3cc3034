// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool record SEL: capture a bqltrace v1 from the running kernel with
 * BPF (lib/kernel/recbpf.c, lib/kernel/bpf/record.bpf.c), written by lib/kernel/recwriter.c
 * through ofile (atomic -o FILE, .gz/.zst by name). This file: options,
 * the queues, the backend and its limits; the capture is record_cap.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/common.h"
#include "cmd/record.h"
#include "lib/kernel/bql.h"
#include "lib/kernel/sysfs.h"
#include "lib/io/units.h"

/* ------------------------------------------------------------ set-up */

/* IFF_UP in ROOT/class/net/@dev/flags */
static bool dev_up(const struct bql_ctx *c, const char *dev)
{
	char path[512], buf[32];

	if (sysfs_dev_path(c, path, sizeof(path), dev, "flags") ||
	    sysfs_read(c, path, buf, sizeof(buf), dev, NULL))
		return false;
	return strtoul(buf, NULL, 16) & 1;
}

/* a device of no bus (ifb, dummy...): under /sys/devices/virtual, no "device" link */
static bool dev_virtual(const struct bql_ctx *c, const char *dev)
{
	char path[512];
	struct stat sb;

	return sysfs_dev_path(c, path, sizeof(path), dev, "device") ||
	       sysfs_stat(c, path, &sb);
}

/*
 * With no selector, record takes the devices that are up and on which BQL
 * runs: a device with a bus (its driver's xmit path), or a virtual one whose
 * queues show BQL state (ifb has the sysfs files but never calls DQL).
 */
static bool auto_skip(const struct bql_ctx *c, const struct sel_target *tg,
		      const struct bql_queue *bq, char *why, size_t n)
{
	bool active = false;

	if (!dev_up(c, tg->ifname)) {
		snprintf(why, n, "down");
		return true;
	}
	for (unsigned int k = 0; k < tg->nqueues; k++)
		active |= bq[k].val[BQL_LIMIT] || bq[k].val[BQL_INFLIGHT];
	if (!active && dev_virtual(c, tg->ifname)) {
		snprintf(why, n, "virtual, BQL never ran");
		return true;
	}
	return false;
}

/* the selected queues, their names and their sysfs settings */
static int collect(struct rec_run *r, const struct cmd_state *st, bool all)
{
	char skipped[256] = "", why[64];
	size_t sk = 0;
	struct bql_err e;
	unsigned int n = 0;

	for (size_t i = 0; i < st->targets.n; i++)
		n += st->targets.t[i].nqueues;
	r->q = calloc(n ? n : 1, sizeof(*r->q));
	r->t = calloc(n ? n : 1, sizeof(*r->t));
	if (!r->q || !r->t)
		return cmd_fail(r->c, "out of memory");
	for (size_t i = 0; i < st->targets.n; i++) {
		const struct sel_target *tg = &st->targets.t[i];
		struct bql_queue *bq = calloc(tg->nqueues ? tg->nqueues : 1, sizeof(*bq));

		if (!bq)
			return cmd_fail(r->c, "out of memory");
		for (unsigned int k = 0; k < tg->nqueues; k++)
			if (bql_queue_read(r->c, tg->ifname, tg->queues[k], &bq[k], &e)) {
				free(bq);
				cmd_error(r->c, &e);
				return BQL_EXIT_FAIL;
			}
		if (all && auto_skip(r->c, tg, bq, why, sizeof(why))) {
			if (r->c->verbose)
				cmd_note(r->c, "%s: not recorded (%s); name it to record it", tg->ifname, why);
			if (sk < sizeof(skipped))
				sk += (size_t)snprintf(skipped + sk, sizeof(skipped) - sk, "%s%s (%s)",
						       sk ? ", " : "", tg->ifname, why);
			free(bq);
			continue;
		}
		for (unsigned int k = 0; k < tg->nqueues; k++) {
			struct recw_queue *q = &r->q[r->n];
			struct recbpf_target *t = &r->t[r->n];

			snprintf(q->name, sizeof(q->name), "%s:tx-%u", tg->ifname, tg->queues[k]);
			q->limit_min = bq[k].val[BQL_LIMIT_MIN];
			q->limit_max = bq[k].val[BQL_LIMIT_MAX];
			q->hold_time = bq[k].val[BQL_HOLD_TIME];
			q->stall_thrs = bql_has(&bq[k], BQL_STALL_THRS) ? bq[k].val[BQL_STALL_THRS] : 0;
			snprintf(t->ifname, sizeof(t->ifname), "%s", tg->ifname);
			t->ifindex = tg->ifindex;
			t->queue = tg->queues[k];
			r->n++;
		}
		free(bq);
	}
	if (!r->n && sk)
		return cmd_fail(r->c, "no network device that is up and uses BQL to record "
				"(skipped: %s); name a device to record it anyway", skipped);
	if (!r->n)
		return cmd_fail(r->c, "no network device with byte queue limits selected");
	return BQL_EXIT_OK;
}

/*
 * The backends to try, in order: tracepoints (BPF tracepoints alone, no
 * queue limit), then fentry, then watchpoints; BQLTOOL_RECORD_BACKEND
 * names one instead.
 */
static int choose_backends(struct rec_run *r)
{
	const char *env = getenv("BQLTOOL_RECORD_BACKEND");
	int b;

	if (env && *env && strcmp(env, "auto")) {
		b = recbpf_backend_parse(env);
		if (b < 0)
			return cmd_usage(r->c, "BQLTOOL_RECORD_BACKEND: unknown backend '%s' "
					 "(auto, tracepoints, fentry, watchpoint)", env);
		r->order[0] = (enum recbpf_backend)b;
		r->norder = 1;
		r->forced = true;
		return BQL_EXIT_OK;
	}
	r->order[0] = RECBPF_TP;
	r->order[1] = RECBPF_FENTRY;
	r->order[2] = RECBPF_WATCH;
	r->norder = 3;
	return BQL_EXIT_OK;
}

/*
 * Does the selection fit backend @b? The watchpoint backend takes one debug
 * register per queue (two with --queued) of the 4 each CPU has; fentry
 * takes registers only for --queued (num_queued watchpoints); the
 * tracepoint backend none. 0, or -E2BIG with @why saying so.
 */
int record_budget(struct rec_run *r, enum recbpf_backend b, char *why, size_t n)
{
	bool regs = b == RECBPF_WATCH || (b == RECBPF_FENTRY && r->o->queued);
	unsigned int per = b == RECBPF_WATCH ? recbpf_regs_per_queue(r->o->queued, false) : 1;
	unsigned int fit = RECBPF_DEBUG_REGS / per;
	char eg[64];

	r->limit_watch = false;
	if (!regs) {
		if (r->n <= REC_MAX_SLOTS)
			return 0;
		snprintf(why, n, "%u queues selected, at most %d can be recorded at once",
			 r->n, REC_MAX_SLOTS);
		return -E2BIG;
	}
	if (r->n > fit) {
		/* a selection that fits: the first queues of the first device */
		if (fit > 1 && !strcmp(r->t[fit - 1].ifname, r->t[0].ifname))
			snprintf(eg, sizeof(eg), "%s:%u-%u", r->t[0].ifname, r->t[0].queue,
				 r->t[fit - 1].queue);
		else
			snprintf(eg, sizeof(eg), "%s:%u", r->t[0].ifname, r->t[0].queue);
		snprintf(why, n, "%u queues selected, but the %s backend can record at most %u "
			 "at once%s: each queue takes %u of the %d hardware debug registers "
			 "per CPU; select fewer (e.g. %s)", r->n, recbpf_backend_name(b), fit,
			 r->o->queued ? " with --queued" : "", per, RECBPF_DEBUG_REGS, eg);
		return -E2BIG;
	}
	/* the limit watchpoint (exact sysfs limit writes) where registers are left */
	r->limit_watch = b == RECBPF_WATCH &&
		r->n * recbpf_regs_per_queue(r->o->queued, true) <= RECBPF_DEBUG_REGS;
	return 0;
}

/* ------------------------------------------------------------ options */

static int record_run(struct bql_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "duration",	required_argument,	NULL, 'd' },
		{ "count",	required_argument,	NULL, 'c' },
		{ "output",	required_argument,	NULL, 'o' },
		{ "queued",	no_argument,		NULL, 'Q' },
		{ "no-spin",	no_argument,		NULL, 'S' },
		{ "latency",	no_argument,		NULL, 'L' },
		{ "netns",	required_argument,	NULL, 'n' },
		{ "verbose",	no_argument,		NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct rec_opts o = { 0 };
	struct rec_run r = { .c = c, .o = &o };
	const char *netns = NULL;
	struct cmd_state st;
	struct bql_err e;
	int opt, ret;

	while ((opt = cmd_getopt(c, argc, argv, ":d:c:o:n:v", opts)) != -1) {
		switch (opt) {
		case 'd':
			if (units_parse_sec_ns("-d", optarg, &o.dur_ns, &e))
				return cmd_usage(c, "%s", e.msg);
			if (!o.dur_ns)
				return cmd_usage(c, "-d: the duration must be above 0");
			break;
		case 'c':
			if (units_parse_arg_u64(optarg, &o.count) || !o.count)
				return cmd_usage(c, "-c: invalid count '%s' (expected a whole number >= 1)",
						 optarg);
			break;
		case 'o': {
			int bad = cmd_out_name(c, "-o", optarg, &cmd_out_record, NULL);

			if (bad)
				return bad;
			o.out = optarg;
		}
			break;
		case 'Q':
			o.queued = true;
			break;
		case 'S':
			o.no_spin = true;
			break;
		case 'L':
			o.latency = true;
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
	if (o.dur_ns && o.count)
		return cmd_usage(c, "-d and -c exclude each other");
	if (c->root_overridden)
		return cmd_usage(c, "--sysfs-root: record captures the running kernel, "
				 "not a sysfs tree");
	if (!recbpf_available())
		return cmd_fail(c, "this bqltool was built without BPF support "
				"(libbpf, clang, bpftool or /sys/kernel/btf/vmlinux were missing at "
				"build time)");
	ret = cmd_netns_option(c, netns);
	if (ret)
		return ret;
	ret = cmd_select(c, argc - optind, argv + optind, &st);
	if (ret)
		return ret;
	ret = collect(&r, &st, argc == optind);
	if (!ret)
		ret = choose_backends(&r);
	if (!ret && r.forced) {
		char why[320];

		/* a backend named by hand that cannot take the selection: say so first */
		if (record_budget(&r, r.order[0], why, sizeof(why)))
			ret = cmd_fail(c, "%s", why);
	}
	if (!ret)
		ret = record_capture(&r);
	free(r.q);
	free(r.t);
	cmd_state_free(&st);
	return ret;
}

const struct cmd_entry cmd_record_entry = {
	.name = "record",
	.synopsis = "record [-d SEC | -c COUNT] [-o FILE] [--queued] [--latency] [--no-spin] [-n NS] [-v] [SEL...]",
	.summary = "Capture a bqltrace of BQL completions from the running kernel (BPF)",
	.help = "  -d, --duration SEC  stop after SEC seconds (fractional; default: until Ctrl-C)\n"
		"  -c, --count N       stop after N completion (C) records\n"
		"  -o, --output FILE   write FILE (atomically, when the capture ends) instead of\n"
		"                      stdout; FILE.gz and FILE.zst are compressed\n"
		"      --queued        also record dql_queued() as Q records\n"
		"      --latency       also run latency's observer: the ring time, interrupt\n"
		"                      delay, qdisc wait and stops as comments at the end\n"
		"      --no-spin       no idle spinners (watchpoints only; more lost traps in VMs)\n"
		"  -n, --netns NS      record devices of network namespace NS\n"
		"  -v, --verbose       report the backend, the events and the repairs on stderr\n"
		"\nBackends, tried in this order: tracepoints (the queue's struct dql observed at\n"
		"net_dev_start_xmit, net_dev_xmit and napi_poll; BPF tracepoints alone, up to 64\n"
		"queues), fentry/fexit on dql_completed, hardware write watchpoints (at most 4\n"
		"queues, 2 with --queued: 4 debug registers per CPU).\n"
		"BQLTOOL_RECORD_BACKEND=tracepoints|fentry|watchpoint forces one; -v says why the\n"
		"others were not used. With no SEL, the devices that are up and on which BQL runs.\n"
		"Ctrl-C and SIGTERM end the capture cleanly. Needs root (CAP_BPF and CAP_PERFMON).\n",
	.flags = CMD_NO_JSON,
	.run = record_run,
};
