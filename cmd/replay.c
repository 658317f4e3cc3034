// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool replay TRACE...: re-run DQL over bqltrace files (dql/trace*.c,
 * dql/replay.c) and report per queue (replay_out.c); --verify, what-if
 * --set, and per-record outputs --timeline and --plot (replay_series.c);
 * -J N reads a trace file with threads scanning ahead (replay_par.c).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/replay.h"
#include "dql/dql.h"
#include "lib/io/cpus.h"
#include "lib/io/esc.h"
#include "lib/io/ofile.h"
#include "lib/io/tinput.h"
#include "lib/io/units.h"

#define RBUF_SIZE	RX_LINE_MAX	/* read buffer: the longest line */
#define RCHUNK		RX_READ		/* read at most this, so that the
					 * lines are still in L2 when parsed */
#define BATCH		RX_BATCH

/* ------------------------------------------------------------ messages */

/*
 * "line N: reason" from dql/ becomes "FILE:N: reason", the usual
 * compiler-style position; other messages get "FILE: ".
 */
static void file_msg(char *buf, size_t n, const char *path, const char *msg)
{
	const char *s = msg + 5;

	if (!strncmp(msg, "line ", 5) && *s >= '0' && *s <= '9') {
		while (*s >= '0' && *s <= '9')
			s++;
		if (s[0] == ':' && s[1] == ' ') {
			snprintf(buf, n, "%s:%.*s: %s", path, (int)(s - msg - 5),
				 msg + 5, s + 2);
			return;
		}
	}
	snprintf(buf, n, "%s: %s", path, msg);
}

static void progress_clear(struct rx *x)
{
	if (x->drawn)
		fputs("\r\033[K", stderr);
	x->drawn = false;
}

static int trace_fail_print(struct rx *x, const struct bql_err *e)
{
	char buf[sizeof(e->msg) + 512];

	progress_clear(x);
	file_msg(buf, sizeof(buf), x->path, e->msg);
	return cmd_fail(x->c, "%s", buf);
}

int rx_trace_fail(struct rx *x, const struct bql_err *e)
{
	if (!x->tfail_defer)
		return trace_fail_print(x, e);
	if (!x->tfail) {	/* the first error is the one */
		x->tfail = true;
		x->tfail_e = *e;
	}
	return BQL_EXIT_FAIL;
}

static void on_warn(void *arg, const char *msg)
{
	struct rx *x = arg;
	char buf[1024];

	if (x->quiet)
		return;
	progress_clear(x);
	file_msg(buf, sizeof(buf), x->path, msg);
	cmd_warn(x->c, "%s", buf);
}

static void on_mismatch(void *arg, const struct replay_event *ev)
{
	struct rx *x = arg;

	if (x->nmismatch < MAX_LISTED) {
		struct mismatch *m = &x->listed[x->nmismatch];

		m->path = x->path;
		m->line = ev->line;
		m->queue = ev->qname;
		m->observed = ev->observed;
		m->computed = ev->limit;
	}
	x->nmismatch++;
}

/* ------------------------------------------------------------ replay */

static void progress_show(struct rx *x)
{
	struct timespec now;
	double el, since;

	clock_gettime(CLOCK_MONOTONIC, &now);
	since = (double)(now.tv_sec - x->shown.tv_sec) +
		(double)(now.tv_nsec - x->shown.tv_nsec) / 1e9;
	if (x->drawn && since < 0.2)
		return;
	el = (double)(now.tv_sec - x->t0.tv_sec) +
	     (double)(now.tv_nsec - x->t0.tv_nsec) / 1e9;
	fputs("\r\033[Kbqltool: replay: ", stderr);
	esc_text_fputs(x->path, stderr);
	fprintf(stderr, ": %" PRIu64 " records, %.1f MB/s", x->records, el > 0 ? (double)x->bytes / el / 1e6 : 0.0);
	x->shown = now;
	x->drawn = true;
}

void rx_progress(struct rx *x)
{
	if (x->progress && x->records >= x->next_check) {
		x->next_check = x->records + 65536;
		progress_show(x);
	}
}

int rx_replay_recs(struct rx *x, struct rfile *f, const struct bqlt_rec *recs,
		   unsigned int n, const struct bql_err *perr)
{
	struct bql_err e;

	x->records += n;
	/* the records before a bad line are replayed first */
	if (replay_feed_batch(&f->r, recs, n, &e) < 0)
		return rx_trace_fail(x, &e);
	return perr ? rx_trace_fail(x, perr) : 0;
}

/* Parse and replay the complete lines in [s, end). */
int rx_feed_block(struct rx *x, struct rfile *f, const char *s, const char *end)
{
	struct bqlt_rec recs[BATCH];
	struct bql_err pe;
	int perr, ret;

	while (s < end) {
		unsigned int n = bqlt_parse_batch(&f->p, &s, end, recs, BATCH,
						  &perr, &pe);

		ret = rx_replay_recs(x, f, recs, n, perr < 0 ? &pe : NULL);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * "PATH: truncated gzip stream" from lib/io/tinput.c becomes "PATH:N: ...",
 * N the line being read when the input failed: the records before it
 * were replayed.
 */
int rx_read_fail(struct rx *x, struct rfile *f, const struct bql_err *e)
{
	size_t n = strlen(f->path);

	progress_clear(x);
	if (!strncmp(e->msg, f->path, n) && !strncmp(e->msg + n, ": ", 2))
		return cmd_fail(x->c, "%s:%" PRIu64 ": %s", f->path, f->p.line + 1,
				e->msg + n + 2);
	return cmd_fail(x->c, "%s", e->msg);
}

int rx_long_line(struct rx *x, struct rfile *f)
{
	progress_clear(x);
	return cmd_fail(x->c, "%s:%" PRIu64 ": line longer than %u bytes",
			f->path, f->p.line + 1, RBUF_SIZE);
}

/*
 * -J: threads scan ahead only in a regular file (plain or compressed),
 * whose reads always end; a pipe may stall, and a replay that already
 * failed must not wait in a read for data that may never come.
 */
static unsigned int jobs_for(const struct rx *x, const struct tinput *in)
{
	unsigned int jobs = x->jobs ? x->jobs : rx_jobs_default();

	/* the file opened, not the name: it may have been replaced since */
	return jobs > 1 && tinput_regular(in) ? jobs : 1;
}

/* -v: the -J in effect for @f (jobs_for's), and why that many */
static void rx_note_jobs(const struct rx *x, const struct rfile *f, unsigned int jobs)
{
	unsigned int want = x->jobs ? x->jobs : rx_jobs_default();
	char why[128];
	int ncpu;

	if (want > 1 && jobs == 1) {
		snprintf(why, sizeof(why), "not a regular file: one thread reads it");
	} else if (x->jobs) {
		snprintf(why, sizeof(why), "given");
	} else {
		ncpu = cpus_usable();
		snprintf(why, sizeof(why), "default: the %d CPU%s this process may run on, "
			 "at most %u", ncpu, ncpu == 1 ? "" : "s", RX_JOBS_DEFAULT_MAX);
	}
	cmd_note(x->c, "replay: %s: -J %u (%s)", f->path, jobs, why);
}

static const struct replay_ops rx_ops_plain = {
	.mismatch = on_mismatch, .warn = on_warn,
};
/* --timeline of C records only: the other records need no event */
static const struct replay_ops rx_ops_c = {
	.event = rx_on_event, .mismatch = on_mismatch, .warn = on_warn,
	.event_kinds = 1u << BQLT_C,
};
/* --plot (inflight after every record), --all-events */
static const struct replay_ops rx_ops_all = {
	.event = rx_on_event, .mismatch = on_mismatch, .warn = on_warn,
};

static const struct replay_ops *rx_ops(const struct rx *x)
{
	if (x->plot_path || x->all_events)
		return &rx_ops_all;
	return x->timeline ? &rx_ops_c : &rx_ops_plain;
}

/*
 * Replay one file, plain or compressed (lib/io/tinput.c), reading big blocks
 * and splitting lines in place.
 */
static int replay_file(struct rx *x, struct rfile *f, char *buf)
{
	struct tinput *in;
	unsigned int jobs;
	size_t have = 0;
	struct bql_err e;
	int ret = 0;

	x->path = f->path;
	bqlt_parser_init(&f->p, x->hz);
	if (x->ops)
		replay_init(&f->r, &x->opts, x->ops, x->ops_arg);
	else
		replay_init(&f->r, &x->opts, rx_ops(x), x);
	f->live = true;

	if (tinput_open(&in, f->path, &e)) {
		progress_clear(x);
		return cmd_fail(x->c, "%s", e.msg);
	}
	x->tfail_defer = true;
	x->tfail = false;
	jobs = jobs_for(x, in);
	if (x->c->verbose)
		rx_note_jobs(x, f, jobs);
	/* a compressed input is decompressed by a thread: one of the N */
	if (jobs > 1 && tinput_codec(in) != TINPUT_PLAIN)
		jobs--;
	if (jobs > 1) {
		ret = rx_replay_par(x, f, in, jobs);
		if (ret != RX_PAR_SERIAL)
			goto out;
		ret = 0;
	}
	for (;;) {
		size_t room = RBUF_SIZE - have;
		ssize_t n = tinput_read(in, buf + have, room < RCHUNK ? room : RCHUNK, &e);
		char *end, *nl;

		if (n < 0) {
			ret = rx_read_fail(x, f, &e);
			goto out;
		}
		if (n == 0)
			break;
		x->bytes += (uint64_t)n;
		end = buf + have + n;
		nl = memrchr(buf + have, '\n', (size_t)n);
		if (nl) {
			ret = rx_feed_block(x, f, buf, nl + 1);
			if (ret)
				goto out;
			have = (size_t)(end - (nl + 1));
			memmove(buf, nl + 1, have);
		} else {
			have = (size_t)(end - buf);
		}
		if (have == RBUF_SIZE) {
			ret = rx_long_line(x, f);
			goto out;
		}
		rx_progress(x);
	}
	if (have) {
		ret = rx_feed_block(x, f, buf, buf + have);
		if (ret)
			goto out;
	}
	if (bqlt_parse_end(&f->p, &e) < 0)
		ret = rx_trace_fail(x, &e);
out:
	/*
	 * Garbage from a flipped byte mid-stream reaches the parser before
	 * the decompressor's check fails: read on, and say so (the threads
	 * of rx_replay_par() are joined by now: the input is ours)
	 */
	x->tfail_defer = false;
	if (x->tfail) {
		x->tfail = false;
		tinput_blame(in, &x->tfail_e);
		trace_fail_print(x, &x->tfail_e);
	}
	tinput_close(in);
	return ret;
}

int rx_replay_one(struct rx *x, struct rfile *f)
{
	char *buf = malloc(RBUF_SIZE);
	int ret;

	if (!buf)
		return cmd_fail(x->c, "%s: %s", f->path, strerror(ENOMEM));
	ret = replay_file(x, f, buf);
	free(buf);
	return ret;
}

/* ------------------------------------------------------------ options */

static const char *const set_keys[4] = {
	"limit_min", "limit_max", "hold_time", "stall_thrs",
};

static int parse_set(struct rx *x, const char *arg)
{
	char key[32], what[48];
	const char *eq = strchr(arg, '=');
	struct bql_err e;
	uint64_t v;
	size_t n;
	int ret;

	if (!eq || eq == arg || (n = (size_t)(eq - arg)) >= sizeof(key))
		return cmd_usage(x->c, "--set: expected KEY=VALUE, got '%s'", arg);
	memcpy(key, arg, n);
	key[n] = '\0';
	snprintf(what, sizeof(what), "--set %s", key);
	if (!strcmp(key, "limit_min") || !strcmp(key, "limit_max"))
		ret = units_parse_bytes(what, eq + 1, DQL_MAX_LIMIT, &v, &e);
	else if (!strcmp(key, "hold_time") || !strcmp(key, "stall_thrs"))
		ret = units_parse_ms(what, eq + 1, &v, &e);
	else
		ret = bql_err_set(&e, EINVAL,
				  "--set %s: unknown setting (limit_min, limit_max, hold_time, stall_thrs)",
				  key);
	if (!ret)
		ret = replay_opts_set(&x->opts, key, v, &e);
	if (ret)
		return cmd_usage(x->c, "%s", e.msg);
	for (int i = 0; i < 4; i++) {
		if (strcmp(key, set_keys[i]))
			continue;
		if (x->set_arg[i])	/* as set refuses a key given twice */
			return cmd_usage(x->c, "--set %s: given twice ('%s', then '%s')", key,
					 x->set_arg[i], arg);
		x->set_arg[i] = arg;
	}
	return 0;
}

enum {
	OPT_TIMELINE = 256,
	OPT_PLOT,
	OPT_ALL_EVENTS,
	OPT_VERIFY,
	OPT_SET,
	OPT_HZ,
	OPT_KERNEL,
};

static int parse_opts(struct rx *x, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "timeline",	required_argument,	NULL, OPT_TIMELINE },
		{ "plot",	required_argument,	NULL, OPT_PLOT },
		{ "all-events",	no_argument,		NULL, OPT_ALL_EVENTS },
		{ "verify",	no_argument,		NULL, OPT_VERIFY },
		{ "set",	required_argument,	NULL, OPT_SET },
		{ "hz",		required_argument,	NULL, OPT_HZ },
		{ "kernel",	required_argument,	NULL, OPT_KERNEL },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "threads",	required_argument,	NULL, 'J' },
		{ NULL, 0, NULL, 0 },
	};
	struct bql_err e;
	uint64_t v;
	int opt, ret;

	optind = 0;
	opterr = 0;
	while ((opt = cmd_getopt(x->c, argc, argv, ":qJ:", opts)) != -1) {
		switch (opt) {
		case OPT_TIMELINE:
		{
			enum ofile_fmt f;

			ret = cmd_out_name(x->c, "--timeline", optarg, &cmd_out_timeline, &f);
			if (ret)
				return ret;
			x->timeline = optarg;
			x->jsonl = f == OFILE_FMT_JSONL;
			break;
		}
		case OPT_PLOT:
			ret = cmd_out_name(x->c, "--plot", optarg, &cmd_out_plot, NULL);
			if (ret)
				return ret;
			x->plot_path = optarg;
			break;
		case OPT_ALL_EVENTS:
			x->all_events = true;
			break;
		case OPT_VERIFY:
			x->verify = true;
			break;
		case OPT_SET:
			ret = parse_set(x, optarg);
			if (ret)
				return ret;
			break;
		case OPT_HZ:	/* the range sim and BQLTOOL_HZ take: a kernel's */
			if (units_parse_arg_u64(optarg, &v) || v > DQL_HZ_MAX ||
			    !dql_hz_valid((unsigned int)v))
				return cmd_usage(x->c, "--hz: '%s': expected %u..%u (100, 250, 300, 1000)",
						 optarg, DQL_HZ_MIN, DQL_HZ_MAX);
			x->hz = (unsigned int)v;
			break;
		case OPT_KERNEL:
			if (dql_kernel_parse(optarg, &x->opts.kflags, &e))
				return cmd_usage(x->c, "--%s", e.msg);
			x->kernel = optarg;
			break;
		case 'q':
			x->quiet = true;
			break;
		case 'J':
			if (units_parse_arg_u64(optarg, &v) || !v || v > RX_JOBS_MAX)
				return cmd_usage(x->c, "-J: '%s': expected 1..%u threads", optarg,
						 RX_JOBS_MAX);
			x->jobs = (unsigned int)v;
			break;
		default:	/* also ':', GOPT_FAILED */
			return cmd_bad_option(x->c, opt, argv);
		}
	}
	if (x->set_arg[3] && !(x->opts.kflags & DQL_K_STALL))
		return cmd_usage(x->c, "--set %s: the kernel of --kernel %s has no stall detector (Linux 6.9 and later)",
				 x->set_arg[3], x->kernel ? x->kernel : "?");
	if (optind >= argc)
		return cmd_usage(x->c, "no trace given (- reads standard input)");
	if (x->all_events && !x->timeline)
		return cmd_usage(x->c, "--all-events needs --timeline");
	if (x->timeline && argc - optind > 1)
		return cmd_usage(x->c, "--timeline takes exactly one TRACE");
	if (x->plot_path && argc - optind > 1)
		return cmd_usage(x->c, "--plot takes exactly one TRACE");
	return 0;
}

/*
 * An output that would replace a trace being read destroys it; two
 * outputs on one file lose one of them (lib/io/ofile.c: ofile_clash()).
 * Standard input can be read once: a second "-" would be an empty trace.
 */
static int check_files(struct rx *x, int argc, char **argv)
{
	const char *out[2] = { x->timeline, x->plot_path };
	static const char *const opt[2] = { "--timeline", "--plot" };
	int k, i, nstdin = 0;

	for (k = optind; k < argc; k++)
		if (!strcmp(argv[k], "-") && ++nstdin > 1)
			return cmd_usage(x->c, "'-' given twice: standard input can be read once");
	for (i = 0; i < 2; i++) {
		if (!out[i])
			continue;
		for (k = optind; k < argc; k++)
			if (ofile_clash(out[i], argv[k]))
				return cmd_usage(x->c, "%s: '%s' is the trace %s%s%s: "
						 "refusing to overwrite the input", opt[i], out[i],
						 strcmp(argv[k], "-") ? "'" : "read from ",
						 strcmp(argv[k], "-") ? argv[k] : "standard input",
						 strcmp(argv[k], "-") ? "'" : "");
	}
	if (out[0] && out[1] && ofile_clash(out[1], out[0]))
		return cmd_usage(x->c, "--plot: '%s' is also the --timeline file: "
				 "each output needs a file of its own", out[1]);
	return 0;
}

static int replay_run(struct bql_ctx *c, int argc, char **argv)
{
	struct rx x;
	char *buf = NULL;
	int ret, r, k;

	rx_init(&x, c);
	replay_opts_init(&x.opts);
	ret = parse_opts(&x, argc, argv);
	if (!ret)
		ret = check_files(&x, argc, argv);
	if (ret)
		return ret;
	x.nfiles = argc - optind;
	x.files = calloc((size_t)x.nfiles, sizeof(*x.files));
	buf = malloc(RBUF_SIZE);
	if (!x.files || !buf) {
		ret = cmd_fail(c, "%s", strerror(ENOMEM));
		goto out;
	}
	for (k = 0; k < x.nfiles; k++)
		x.files[k].path = argv[optind + k];
	ret = rx_outputs_open(&x);
	if (ret)
		goto out;
	x.progress = !c->json && !x.quiet && isatty(STDERR_FILENO);
	x.next_check = 65536;
	clock_gettime(CLOCK_MONOTONIC, &x.t0);
	for (k = 0; k < x.nfiles; k++) {
		ret = replay_file(&x, &x.files[k], buf);
		if (ret)
			break;
	}
	progress_clear(&x);
	/* --timeline and --plot only stay if the whole replay succeeded */
	r = rx_outputs_close(&x, !ret);
	if (!ret)
		ret = r;
	if (ret)
		goto out;
	if (!x.quiet) {
		ret = rx_summary(&x);
		if (ret)
			goto out;
	}
	if (x.verify)
		ret = rx_verify_report(&x);
out:
	rx_outputs_close(&x, false);
	for (k = 0; x.files && k < x.nfiles; k++) {
		if (x.files[k].live) {
			replay_free(&x.files[k].r);
			bqlt_parser_free(&x.files[k].p);
		}
	}
	free(x.files);
	free(buf);
	return ret;
}

const struct cmd_entry cmd_replay_entry = {
	.name = "replay",
	.synopsis = "replay [--verify] [--timeline FILE [--all-events]] [--plot FILE.svg|.png|.pdf] [--set KEY=VALUE]... "
		    "[--hz N] [--kernel VERSION] [-J N] [-q] TRACE...",
	.summary = "Re-run DQL over a captured bqltrace and recompute every limit",
	.help = "  --verify             compare with each C record's limit=; exit 3 on a mismatch\n"
		"  --timeline FILE      one row per C record: CSV (line,t_ns,queue,event,bytes,\n"
		"                       inflight,limit), or JSON lines if FILE ends in .jsonl/.ndjson\n"
		"  --all-events         with --timeline: one row per record (Q, C, P, S, R)\n"
		"  --plot FILE.svg      a chart of each queue's limit (after each C record)\n"
		"                       and inflight (a band: lowest to highest per pixel) over\n"
		"                       time since the first record; a panel per queue when\n"
		"                       they differ in scale; with --set, the recorded limit\n"
		"                       beside the what-if one; one TRACE only; the name must\n"
		"                       end in .svg (.svg.gz, .svg.zst: compressed), .png or\n"
		"                       .pdf (drawn with cairo), or be /dev/stdout (SVG)\n"
		"  --set KEY=VALUE      what-if: limit_min, limit_max (bytes: 64K, 1.5M, max),\n"
		"                       hold_time, stall_thrs (250ms, 1s), for every queue, for\n"
		"                       the whole trace (P records no longer change it); a\n"
		"                       what-if (--set, --kernel, --hz) shows how it differs\n"
		"                       from the recorded limits, a verdict only with --verify\n"
		"  --hz N               HZ of the traced machine, instead of the trace's hz\n"
		"  --kernel VERSION     algorithm of that kernel (3.3, 3.5, 6.1, 6.9, 6.15, newest);\n"
		"                       the summary says which semantics a version maps to\n"
		"  -J, --threads N      threads that parse (scan) a trace file ahead: 1..64,\n"
		"                       default: the CPUs it may run on (its affinity), at\n"
		"                       most 8; 1 = no threads; -v tells the N in use.\n"
		"                       The output is the same whatever N (standard input\n"
		"                       and pipes are read by one thread; decompressing a\n"
		"                       compressed trace is one of the N)\n"
		"  -q, --quiet          no summary, no warnings, no progress\n"
		"\nTRACE is a bqltrace v1 file (bqltrace(5)); - reads standard input. Each file is\n"
		"replayed on its own. Limits are in B, KiB, MiB (1024-based; -j: bytes); mean\n"
		"is time-weighted between completions. A malformed trace stops with\n"
		"FILE:LINE: reason and exit 1, and leaves no --timeline or --plot file behind.\n",
	.run = replay_run,
};
