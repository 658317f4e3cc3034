// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool record SEL: capture a bqltrace v1 from the running kernel with
 * BPF (lib/recbpf.c, lib/bpf/record.bpf.c), written by lib/recwriter.c
 * through ofile (atomic -o FILE, .gz/.zst by name). This file: options,
 * the queues, the backend and its limits; the capture is record_cap.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/common.h"
#include "cmd/record.h"
#include "lib/bql.h"
#include "lib/units.h"

/* ------------------------------------------------------------ set-up */

/* the selected queues, their names and their sysfs settings */
static int collect(struct rec_run *r, const struct cmd_state *st)
{
	struct bql_err e;
	unsigned int n = 0;

	for (size_t i = 0; i < st->targets.n; i++)
		n += st->targets.t[i].nqueues;
	if (!n)
		return cmd_fail(r->c, "no network device with byte queue limits selected");
	r->q = calloc(n, sizeof(*r->q));
	r->t = calloc(n, sizeof(*r->t));
	if (!r->q || !r->t)
		return cmd_fail(r->c, "out of memory");
	for (size_t i = 0; i < st->targets.n; i++) {
		const struct sel_target *tg = &st->targets.t[i];

		for (unsigned int k = 0; k < tg->nqueues; k++) {
			struct recw_queue *q = &r->q[r->n];
			struct recbpf_target *t = &r->t[r->n];
			struct bql_queue bq;

			if (bql_queue_read(r->c, tg->ifname, tg->queues[k], &bq, &e)) {
				cmd_error(r->c, &e);
				return BQL_EXIT_FAIL;
			}
			snprintf(q->name, sizeof(q->name), "%s:tx-%u", tg->ifname, tg->queues[k]);
			q->limit_min = bq.val[BQL_LIMIT_MIN];
			q->limit_max = bq.val[BQL_LIMIT_MAX];
			q->hold_time = bq.val[BQL_HOLD_TIME];
			q->stall_thrs = bql_has(&bq, BQL_STALL_THRS) ? bq.val[BQL_STALL_THRS] : 0;
			snprintf(t->ifname, sizeof(t->ifname), "%s", tg->ifname);
			t->ifindex = tg->ifindex;
			t->queue = tg->queues[k];
			r->n++;
		}
	}
	return BQL_EXIT_OK;
}

/* fentry where the kernel allows it, else watchpoints; BQLTOOL_RECORD_BACKEND forces one */
static int choose_backend(struct rec_run *r)
{
	const char *env = getenv("BQLTOOL_RECORD_BACKEND");
	struct bql_err e;

	if (env && *env && strcmp(env, "auto")) {
		if (!strcmp(env, "fentry"))
			r->backend = RECBPF_FENTRY;
		else if (!strcmp(env, "watchpoint"))
			r->backend = RECBPF_WATCH;
		else
			return cmd_usage(r->c, "BQLTOOL_RECORD_BACKEND: unknown backend '%s' "
					 "(auto, fentry, watchpoint)", env);
		snprintf(r->why_not_fentry, sizeof(r->why_not_fentry),
			 "BQLTOOL_RECORD_BACKEND=%s", env);
		return BQL_EXIT_OK;
	}
	if (!recbpf_probe_fentry(r->c->verbose, &e)) {
		r->backend = RECBPF_FENTRY;
		return BQL_EXIT_OK;
	}
	if (e.code == EPERM && geteuid() != 0 && strstr(e.msg, "open"))
		goto perm;
	r->backend = RECBPF_WATCH;
	snprintf(r->why_not_fentry, sizeof(r->why_not_fentry), "%s", e.msg);
	return BQL_EXIT_OK;
perm:
	cmd_error(r->c, &e);
	return BQL_EXIT_FAIL;
}

/* the debug-register budget of the watchpoint backend */
static int check_budget(struct rec_run *r)
{
	bool watch = r->backend == RECBPF_WATCH;
	/* fentry takes registers only for --queued (num_queued watchpoints) */
	unsigned int per = watch ? recbpf_regs_per_queue(r->o->queued, false) : 1;
	unsigned int fit = RECBPF_DEBUG_REGS / per;

	if (!watch && !r->o->queued) {
		if (r->n > REC_MAX_SLOTS)
			return cmd_fail(r->c, "%u queues selected, at most %d can be recorded at once",
					r->n, REC_MAX_SLOTS);
		return BQL_EXIT_OK;
	}
	if (r->n > fit) {
		char eg[64];

		/* a selection that fits: the first queues of the first device */
		if (fit > 1 && !strcmp(r->t[fit - 1].ifname, r->t[0].ifname))
			snprintf(eg, sizeof(eg), "%s:%u-%u", r->t[0].ifname, r->t[0].queue,
				 r->t[fit - 1].queue);
		else
			snprintf(eg, sizeof(eg), "%s:%u", r->t[0].ifname, r->t[0].queue);
		return cmd_fail(r->c, "%u queues selected, but the %s backend can record at most %u "
				"at once%s: each queue takes %u of the %d hardware debug registers "
				"per CPU; select fewer (e.g. %s)", r->n,
				recbpf_backend_name(r->backend), fit,
				r->o->queued ? " with --queued" : "", per, RECBPF_DEBUG_REGS, eg);
	}
	/* the limit watchpoint (exact sysfs limit writes) where registers are left */
	r->limit_watch = watch &&
		r->n * recbpf_regs_per_queue(r->o->queued, true) <= RECBPF_DEBUG_REGS;
	return BQL_EXIT_OK;
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
		case 'o':
			if (!*optarg)
				return cmd_usage(c, "-o: empty file name");
			o.out = optarg;
			break;
		case 'Q':
			o.queued = true;
			break;
		case 'S':
			o.no_spin = true;
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
	ret = collect(&r, &st);
	if (!ret)
		ret = choose_backend(&r);
	if (!ret)
		ret = check_budget(&r);
	if (!ret)
		ret = record_capture(&r);
	free(r.q);
	free(r.t);
	cmd_state_free(&st);
	return ret;
}

const struct cmd_entry cmd_record_entry = {
	.name = "record",
	.synopsis = "record [-d SEC | -c COUNT] [-o FILE] [--queued] [--no-spin] [-n NS] [-v] [SEL...]",
	.summary = "Capture a bqltrace of BQL completions from the running kernel (BPF)",
	.help = "  -d, --duration SEC  stop after SEC seconds (fractional; default: until Ctrl-C)\n"
		"  -c, --count N       stop after N completion (C) records\n"
		"  -o, --output FILE   write FILE (atomically, when the capture ends) instead of\n"
		"                      stdout; FILE.gz and FILE.zst are compressed\n"
		"      --queued        also record dql_queued() as Q records\n"
		"      --no-spin       no idle spinners (watchpoint backend; more lost traps in VMs)\n"
		"  -n, --netns NS      record devices of network namespace NS\n"
		"  -v, --verbose       report the backend, the events and the repairs on stderr\n"
		"\nBackends, chosen automatically: fentry/fexit on dql_completed where the kernel\n"
		"allows it, else hardware write watchpoints (at most 4 queues, 2 with --queued:\n"
		"4 debug registers per CPU). Ctrl-C and SIGTERM end the capture cleanly. Needs\n"
		"root (CAP_BPF and CAP_PERFMON). BQLTOOL_RECORD_BACKEND=fentry|watchpoint forces one.\n",
	.flags = CMD_NO_JSON,
	.run = record_run,
};
