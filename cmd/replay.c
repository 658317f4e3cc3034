// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool replay TRACE...: re-run DQL over bqltrace files (dql/trace.c,
 * dql/replay.c) and report per queue; --timeline, --verify, what-if --set.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cmd/cmd.h"
#include "dql/dql.h"
#include "dql/replay.h"
#include "dql/trace.h"
#include "lib/out.h"
#include "lib/table.h"
#include "lib/units.h"

#define RBUF_SIZE	(1u << 20)	/* read block; also the longest line */
#define OBUF_SIZE	(1u << 20)
#define OBUF_ROW	1024		/* room one timeline row needs at most */
#define MAX_LISTED	10		/* mismatches listed on stderr */

struct rfile {
	const char *path;
	struct bqlt_parser p;
	struct replay r;
	bool live;		/* p and r initialised */
};

struct mismatch {
	const char *path;
	uint64_t line;
	const char *queue;
	uint32_t observed, computed;
};

/* buffered writer on a file descriptor (the timeline) */
struct obuf {
	int fd;
	char *buf;
	size_t len;
	int err;		/* first errno */
};

struct rx {
	struct bql_ctx *c;
	/* options */
	const char *timeline;
	bool all_events, jsonl, verify, quiet;
	unsigned int hz;
	const char *kernel;
	struct replay_opts opts;
	/* state */
	struct rfile *files;
	int nfiles;
	const char *path;	/* file being replayed */
	struct obuf tl;
	char *tl_tmp;		/* temporary timeline, renamed on success */
	uint64_t nmismatch;
	struct mismatch listed[MAX_LISTED];
	/* progress */
	bool progress;
	uint64_t lines, records, bytes, next_check;
	bool drawn;		/* a progress line is on the terminal */
	struct timespec t0, shown;
};

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

static int trace_fail(struct rx *x, const struct bql_err *e)
{
	char buf[sizeof(e->msg) + 512];

	progress_clear(x);
	file_msg(buf, sizeof(buf), x->path, e->msg);
	return cmd_fail(x->c, "%s", buf);
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

/* ------------------------------------------------------------ timeline */

static void ob_flush(struct obuf *o)
{
	size_t off = 0;

	while (off < o->len && !o->err) {
		ssize_t n = write(o->fd, o->buf + off, o->len - off);

		if (n < 0) {
			if (errno != EINTR)
				o->err = errno;
			continue;
		}
		off += (size_t)n;
	}
	o->len = 0;
}

static char *put_u64(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

/* queue name as a CSV field (names have no blanks or control characters) */
static char *put_csv_name(char *p, const char *s)
{
	if (!strpbrk(s, ",\"\r\n"))
		return put_str(p, s);
	*p++ = '"';
	for (; *s; s++) {
		if (*s == '"')
			*p++ = '"';
		*p++ = *s;
	}
	*p++ = '"';
	return p;
}

static char *put_json_name(char *p, const char *s)
{
	*p++ = '"';
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			*p++ = '\\';
		*p++ = *s;
	}
	*p++ = '"';
	return p;
}

static const char kind_name[] = {
	[BQLT_Q] = 'Q', [BQLT_C] = 'C', [BQLT_P] = 'P', [BQLT_S] = 'S',
	[BQLT_R] = 'R',
};

static void on_event(void *arg, const struct replay_event *ev)
{
	struct rx *x = arg;
	struct obuf *o = &x->tl;
	char *p;

	if (ev->kind != BQLT_C && !x->all_events)
		return;
	if (o->len + OBUF_ROW > OBUF_SIZE)
		ob_flush(o);
	p = o->buf + o->len;
	if (x->jsonl) {
		p = put_str(p, "{\"line\":");
		p = put_u64(p, ev->line);
		p = put_str(p, ",\"t_ns\":");
		p = put_u64(p, ev->t_ns);
		p = put_str(p, ",\"queue\":");
		p = put_json_name(p, ev->qname);
		p = put_str(p, ",\"event\":\"");
		*p++ = kind_name[ev->kind];
		p = put_str(p, "\",\"bytes\":");
		p = put_u64(p, ev->bytes);
		p = put_str(p, ",\"inflight\":");
		p = put_u64(p, ev->inflight);
		p = put_str(p, ",\"limit\":");
		p = put_u64(p, ev->limit);
		*p++ = '}';
	} else {
		p = put_u64(p, ev->line);
		*p++ = ',';
		p = put_u64(p, ev->t_ns);
		*p++ = ',';
		p = put_csv_name(p, ev->qname);
		*p++ = ',';
		*p++ = kind_name[ev->kind];
		*p++ = ',';
		p = put_u64(p, ev->bytes);
		*p++ = ',';
		p = put_u64(p, ev->inflight);
		*p++ = ',';
		p = put_u64(p, ev->limit);
	}
	*p++ = '\n';
	o->len = (size_t)(p - o->buf);
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcmp(s + n - m, suf);
}

/*
 * Open the timeline. A regular file (or a new one) is written under a
 * temporary name in the same directory and renamed when the whole replay
 * succeeded, so a failed replay leaves no half-written timeline behind.
 * Anything else (/dev/stdout, a FIFO) is written directly.
 */
static int timeline_open(struct rx *x)
{
	struct obuf *o = &x->tl;
	struct stat st;
	mode_t um;

	o->buf = malloc(OBUF_SIZE);
	if (!o->buf)
		return cmd_fail(x->c, "%s: %s", x->timeline, strerror(ENOMEM));
	if (stat(x->timeline, &st) == 0 && !S_ISREG(st.st_mode)) {
		o->fd = open(x->timeline, O_WRONLY | O_TRUNC | O_CLOEXEC);
	} else {
		if (asprintf(&x->tl_tmp, "%s.XXXXXX", x->timeline) < 0) {
			x->tl_tmp = NULL;
			return cmd_fail(x->c, "%s: %s", x->timeline, strerror(ENOMEM));
		}
		o->fd = mkostemp(x->tl_tmp, O_CLOEXEC);
		if (o->fd >= 0) {
			um = umask(0);
			umask(um);
			if (fchmod(o->fd, 0666 & ~um))
				o->err = errno;
		}
	}
	if (o->fd < 0) {
		int err = errno;

		free(x->tl_tmp);
		x->tl_tmp = NULL;
		return cmd_fail(x->c, "%s: %s", x->timeline, strerror(err));
	}
	if (!x->jsonl) {
		memcpy(o->buf, "line,t_ns,queue,event,bytes,inflight,limit\n", 43);
		o->len = 43;
	}
	return 0;
}

/* @ok: keep it (rename into place) or throw it away */
static int timeline_close(struct rx *x, bool ok)
{
	struct obuf *o = &x->tl;
	int ret = 0;

	if (!o->buf)
		return 0;
	if (ok) {
		ob_flush(o);
		if (!o->err && x->tl_tmp && fsync(o->fd) && errno != EINVAL)
			o->err = errno;
	}
	if (close(o->fd) && ok && !o->err)
		o->err = errno;
	if (ok && o->err)
		ret = cmd_fail(x->c, "%s: write error: %s", x->timeline,
			       strerror(o->err));
	if (x->tl_tmp) {
		if (ok && !ret && rename(x->tl_tmp, x->timeline))
			ret = cmd_fail(x->c, "%s: %s", x->timeline, strerror(errno));
		if (!ok || ret)
			unlink(x->tl_tmp);
		free(x->tl_tmp);
		x->tl_tmp = NULL;
	}
	free(o->buf);
	o->buf = NULL;
	return ret;
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
	fprintf(stderr, "\r\033[Kbqltool: replay: %s: %" PRIu64 " records, %.1f MB/s",
		x->path, x->records, el > 0 ? (double)x->bytes / el / 1e6 : 0.0);
	x->shown = now;
	x->drawn = true;
}

static int feed_line(struct rx *x, struct rfile *f, const char *s, size_t n)
{
	struct bqlt_rec rec;
	struct bql_err e;
	int ret;

	ret = bqlt_parse_line(&f->p, s, n, &rec, &e);
	if (ret == 1) {
		x->records++;
		ret = replay_feed(&f->r, &rec, &e);
	}
	if (ret < 0)
		return trace_fail(x, &e);
	return 0;
}

static const struct replay_ops rx_ops_plain = {
	.mismatch = on_mismatch, .warn = on_warn,
};
static const struct replay_ops rx_ops_timeline = {
	.event = on_event, .mismatch = on_mismatch, .warn = on_warn,
};

/* Replay one file, reading big blocks and splitting lines in place. */
static int replay_file(struct rx *x, struct rfile *f, char *buf)
{
	bool is_stdin = !strcmp(f->path, "-");
	size_t have = 0;
	struct bql_err e;
	int fd, ret = 0;

	x->path = f->path;
	bqlt_parser_init(&f->p, x->hz);
	replay_init(&f->r, &x->opts, x->timeline ? &rx_ops_timeline : &rx_ops_plain, x);
	f->live = true;

	fd = is_stdin ? STDIN_FILENO : open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cmd_fail(x->c, "%s: %s", f->path, strerror(errno));
	if (!is_stdin)
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	for (;;) {
		ssize_t n = read(fd, buf + have, RBUF_SIZE - have);
		char *s, *end, *nl;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			progress_clear(x);
			ret = cmd_fail(x->c, "%s: read error: %s", f->path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		x->bytes += (uint64_t)n;
		s = buf;
		end = buf + have + n;
		while ((nl = memchr(s, '\n', (size_t)(end - s)))) {
			ret = feed_line(x, f, s, (size_t)(nl - s + 1));
			if (ret)
				goto out;
			s = nl + 1;
			x->lines++;
		}
		have = (size_t)(end - s);
		if (have == RBUF_SIZE) {
			progress_clear(x);
			ret = cmd_fail(x->c, "%s:%" PRIu64 ": line longer than %u bytes",
				       f->path, f->p.line + 1, RBUF_SIZE);
			goto out;
		}
		memmove(buf, s, have);
		if (x->progress && x->lines >= x->next_check) {
			x->next_check = x->lines + 65536;
			progress_show(x);
		}
	}
	if (have) {
		ret = feed_line(x, f, buf, have);
		if (ret)
			goto out;
		x->lines++;
	}
	if (bqlt_parse_end(&f->p, &e) < 0)
		ret = trace_fail(x, &e);
out:
	if (!is_stdin)
		close(fd);
	return ret;
}

/* ------------------------------------------------------------ summary */

static const char *kernel_label(const struct rx *x)
{
	return x->kernel ? x->kernel : "newest";
}

static void json_queue(struct rx *x, const struct rfile *f, unsigned int i)
{
	struct bql_ctx *c = x->c;
	struct replay_stats st;
	char mean[32];

	replay_queue_stats(&f->r, i, &st);
	out_open_obj(c, NULL);
	out_str(c, OUT_JSON, "file", NULL, f->path);
	out_str(c, OUT_JSON, "queue", NULL, replay_queue_name(&f->r, i));
	out_u64(c, OUT_JSON, "hz", NULL, f->p.hz);
	out_str(c, OUT_JSON, "kernel", NULL, kernel_label(x));
	out_u64(c, OUT_JSON, "records", NULL, st.records);
	out_u64(c, OUT_JSON, "completions", NULL, st.completions);
	out_u64(c, OUT_JSON, "bytes_queued", NULL, st.bytes_queued);
	out_u64(c, OUT_JSON, "bytes_completed", NULL, st.bytes_completed);
	out_open_obj(c, "limit");
	if (st.created)
		out_u64(c, OUT_JSON, "final", NULL, st.limit_final);
	else
		out_null(c, "final");
	if (st.completions) {
		out_u64(c, OUT_JSON, "min", NULL, st.limit_min);
		out_u64(c, OUT_JSON, "max", NULL, st.limit_max);
		snprintf(mean, sizeof(mean), "%.1f", st.limit_mean);
		out_json(c, "mean", json_object_new_double_s(st.limit_mean, mean));
	} else {
		out_null(c, "min");
		out_null(c, "max");
		out_null(c, "mean");
	}
	out_close_obj(c);
	out_u64(c, OUT_JSON, "increases", NULL, st.increases);
	out_u64(c, OUT_JSON, "decreases", NULL, st.decreases);
	out_u64(c, OUT_JSON, "starvations", NULL, st.starvations);
	out_u64(c, OUT_JSON, "stops", NULL, st.stops);
	out_u64(c, OUT_JSON, "stall_cnt", NULL, st.stall_cnt);
	out_u64(c, OUT_JSON, "stall_max", NULL, st.stall_max);
	out_open_obj(c, "verify");
	out_u64(c, OUT_JSON, "checked", NULL, st.verify_checked);
	out_u64(c, OUT_JSON, "mismatches", NULL, st.verify_mismatches);
	out_close_obj(c);
	out_u64(c, OUT_JSON, "nq_disagree", NULL, st.nq_disagree);
	out_u64(c, OUT_JSON, "queued_ignored", NULL, st.queued_ignored);
	out_close_obj(c);
}

static const char *const text_cols[] = {
	"queue", "completions", "final", "min", "max", "mean", "starvations",
	"stops", "increases", "decreases", "stalls", "stall_max", "verify",
};
#define NCOLS	((int)(sizeof(text_cols) / sizeof(text_cols[0])))

static void text_file(struct rx *x, const struct rfile *f)
{
	unsigned int nq = replay_queue_count(&f->r);
	struct table t;
	char ms[32];

	out_text(x->c, "%s: hz %u, kernel %s, %u queue%s\n", f->path, f->p.hz,
		 kernel_label(x), nq, nq == 1 ? "" : "s");
	if (!nq)
		return;
	table_init(&t, NCOLS, 1u << 0, 2);
	if (table_row(&t))
		return;
	for (int k = 0; k < NCOLS; k++)
		table_cell(&t, k, "%s", text_cols[k]);
	for (unsigned int i = 0; i < nq; i++) {
		struct replay_stats st;

		replay_queue_stats(&f->r, i, &st);
		if (table_row(&t))
			break;
		table_cell(&t, 0, "%s", replay_queue_name(&f->r, i));
		table_cell(&t, 1, "%" PRIu64, st.completions);
		if (st.created)
			table_cell(&t, 2, "%" PRIu32, st.limit_final);
		else
			table_cell(&t, 2, "-");
		if (st.completions) {
			table_cell(&t, 3, "%" PRIu32, st.limit_min);
			table_cell(&t, 4, "%" PRIu32, st.limit_max);
			table_cell(&t, 5, "%.1f", st.limit_mean);
		} else {
			table_cell(&t, 3, "-");
			table_cell(&t, 4, "-");
			table_cell(&t, 5, "-");
		}
		table_cell(&t, 6, "%" PRIu64, st.starvations);
		table_cell(&t, 7, "%" PRIu64, st.stops);
		table_cell(&t, 8, "%" PRIu64, st.increases);
		table_cell(&t, 9, "%" PRIu64, st.decreases);
		table_cell(&t, 10, "%" PRIu64, st.stall_cnt);
		table_cell(&t, 11, "%s", units_fmt_ms(ms, sizeof(ms),
			   dql_jiffies_to_msecs(st.stall_max, f->p.hz)));
		if (!st.verify_checked)
			table_cell(&t, 12, "-");
		else if (!st.verify_mismatches)
			table_cell(&t, 12, "ok %" PRIu64, st.verify_checked);
		else
			table_cell(&t, 12, "FAIL %" PRIu64 "/%" PRIu64,
				   st.verify_mismatches, st.verify_checked);
	}
	table_print(&t, x->c->out);
	table_free(&t);
}

static int summary(struct rx *x)
{
	struct bql_ctx *c = x->c;

	if (c->json) {
		out_begin(c, false);
		out_open_arr(c, "queues");
		for (int k = 0; k < x->nfiles; k++)
			for (unsigned int i = 0; i < replay_queue_count(&x->files[k].r); i++)
				json_queue(x, &x->files[k], i);
		out_close_arr(c);
	} else {
		for (int k = 0; k < x->nfiles; k++) {
			if (k)
				out_nl(c);
			text_file(x, &x->files[k]);
		}
	}
	if (out_end(c) < 0)
		return cmd_fail(c, "write error on standard output");
	return 0;
}

static int verify_report(struct rx *x)
{
	uint64_t checked = 0;
	uint64_t i;

	for (int k = 0; k < x->nfiles; k++) {
		for (unsigned int q = 0; q < replay_queue_count(&x->files[k].r); q++) {
			struct replay_stats st;

			replay_queue_stats(&x->files[k].r, q, &st);
			checked += st.verify_checked;
		}
	}
	if (!checked) {
		if (!x->quiet)
			cmd_warn(x->c, "--verify: no C record carries limit=, nothing was verified");
		return BQL_EXIT_OK;
	}
	if (!x->nmismatch)
		return BQL_EXIT_OK;
	for (i = 0; i < x->nmismatch && i < MAX_LISTED; i++) {
		const struct mismatch *m = &x->listed[i];

		fprintf(stderr, "bqltool: replay: %s:%" PRIu64 ": queue %s: limit observed %"
			PRIu32 ", computed %" PRIu32 "\n", m->path, m->line, m->queue,
			m->observed, m->computed);
	}
	if (x->nmismatch > MAX_LISTED)
		fprintf(stderr, "bqltool: replay: ... and %" PRIu64 " more\n",
			x->nmismatch - MAX_LISTED);
	fprintf(stderr, "bqltool: replay: verification failed: %" PRIu64 " of %" PRIu64
		" limits differ\n", x->nmismatch, checked);
	return BQL_EXIT_MISMATCH;
}

/* ------------------------------------------------------------ options */

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
	return 0;
}

enum {
	OPT_TIMELINE = 256,
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
		{ "all-events",	no_argument,		NULL, OPT_ALL_EVENTS },
		{ "verify",	no_argument,		NULL, OPT_VERIFY },
		{ "set",	required_argument,	NULL, OPT_SET },
		{ "hz",		required_argument,	NULL, OPT_HZ },
		{ "kernel",	required_argument,	NULL, OPT_KERNEL },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	struct bql_err e;
	uint64_t v;
	int opt, ret;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":q", opts, NULL)) != -1) {
		switch (opt) {
		case OPT_TIMELINE:
			if (!*optarg || !strcmp(optarg, "-"))
				return cmd_usage(x->c, "--timeline: expected a file name (/dev/stdout for standard output)");
			x->timeline = optarg;
			x->jsonl = has_suffix(optarg, ".jsonl") || has_suffix(optarg, ".ndjson");
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
		case OPT_HZ:
			if (units_parse_u64(optarg, &v) || !v || v > UINT32_MAX)
				return cmd_usage(x->c, "--hz: expected a positive integer, got '%s'",
						 optarg);
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
		case ':':
			return cmd_usage(x->c, "option '%s' needs an argument", argv[optind - 1]);
		default:
			return cmd_usage(x->c, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cmd_usage(x->c, "no trace given (- reads standard input)");
	if (x->all_events && !x->timeline)
		return cmd_usage(x->c, "--all-events needs --timeline");
	if (x->timeline && argc - optind > 1)
		return cmd_usage(x->c, "--timeline takes exactly one TRACE");
	return 0;
}

static int replay_run(struct bql_ctx *c, int argc, char **argv)
{
	struct rx x;
	char *buf = NULL;
	int ret, k;

	memset(&x, 0, sizeof(x));
	x.c = c;
	replay_opts_init(&x.opts);
	ret = parse_opts(&x, argc, argv);
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
	if (x.timeline) {
		ret = timeline_open(&x);
		if (ret)
			goto out;
	}
	x.progress = !c->json && !x.quiet && isatty(STDERR_FILENO);
	x.next_check = 65536;
	clock_gettime(CLOCK_MONOTONIC, &x.t0);
	for (k = 0; k < x.nfiles; k++) {
		ret = replay_file(&x, &x.files[k], buf);
		if (ret)
			break;
	}
	progress_clear(&x);
	if (x.timeline) {
		int tret = timeline_close(&x, !ret);

		if (!ret)
			ret = tret;
	}
	if (ret)
		goto out;
	if (!x.quiet) {
		ret = summary(&x);
		if (ret)
			goto out;
	}
	if (x.verify)
		ret = verify_report(&x);
out:
	if (x.tl.buf)
		timeline_close(&x, false);
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
	.synopsis = "replay [--verify] [--timeline FILE [--all-events]] [--set KEY=VALUE]... "
		    "[--hz N] [--kernel VERSION] [-q] TRACE...",
	.summary = "Re-run DQL over a captured bqltrace and recompute every limit",
	.help = "  --verify             compare with each C record's limit=; exit 3 on a mismatch\n"
		"  --timeline FILE      one row per C record: CSV (line,t_ns,queue,event,bytes,\n"
		"                       inflight,limit), or JSON lines if FILE ends in .jsonl/.ndjson\n"
		"  --all-events         with --timeline: one row per record (Q, C, P, S, R)\n"
		"  --set KEY=VALUE      what-if: limit_min, limit_max (bytes: 64K, 1.5M, max),\n"
		"                       hold_time, stall_thrs (250ms, 1s), for every queue, for\n"
		"                       the whole trace (P records no longer change it)\n"
		"  --hz N               HZ of the traced machine, instead of the trace's hz\n"
		"  --kernel VERSION     algorithm of that kernel (3.3, 3.5, 6.1, 6.9, 6.15, newest)\n"
		"  -q, --quiet          no summary, no warnings, no progress\n"
		"\nTRACE is a bqltrace v1 file (bqltrace(5)); - reads standard input. Each file is\n"
		"replayed on its own. Limits are in bytes; mean is time-weighted between\n"
		"completions. A malformed trace stops with FILE:LINE: reason and exit 1.\n",
	.run = replay_run,
};
