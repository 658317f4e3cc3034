// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool record, the capture: spinners, BPF (lib/kernel/recbpf.c), the trace
 * writer (lib/kernel/recwriter.c) into ofile, progress, the end and the report.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/record.h"
#include "dql/dql.h"
#include "dql/lathist.h"
#include "lib/io/esc.h"
#include "lib/kernel/hz.h"
#include "lib/kernel/sysfs.h"

#define POLL_MS		100
#define FLUSH_NS	(1000ull * 1000 * 1000)
#define PROGRESS_NS	(500ull * 1000 * 1000)

static volatile sig_atomic_t rec_stop;

static void on_signal(int sig)
{
	(void)sig;
	rec_stop = 1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int sink(void *arg, const char *buf, size_t len)
{
	return ofile_write(arg, buf, len);
}

/* ring-buffer callback; after -c COUNT C records the rest is dropped */
static int on_event(void *arg, const struct rec_event *ev)
{
	struct rec_run *r = arg;
	uint64_t c, lc, lq;
	int ret;

	if (r->count_done)
		return 0;
	ret = recw_event(&r->w, ev);
	if (ret < 0)
		return ret;
	if (r->o->count) {
		recw_totals(&r->w, &c, &lc, &lq);
		r->count_done = c >= r->o->count;
	}
	return 0;
}

static void progress(struct rec_run *r, bool force)
{
	uint64_t now = mono_ns(), c, lc, lq, st[REC_ST_NR];
	double dt;

	if (!r->progress || (!force && now - r->last_shown < PROGRESS_NS))
		return;
	dt = (double)(now - r->last_shown) / 1e9;
	recw_totals(&r->w, &c, &lc, &lq);
	recbpf_stats(r->bpf, st);
	fprintf(stderr, "\r\033[Kbqltool: record: %.0f s, %" PRIu64 " events (%.0f/s), %"
		PRIu64 " C, lost C %" PRIu64 " (repaired), lost Q %" PRIu64
		", ring-buffer drops %" PRIu64,
		(double)(now - r->t0) / 1e9, r->w.events,
		dt > 0 ? (double)(r->w.events - r->last_events) / dt : 0.0, c, lc, lq,
		st[REC_ST_DROP]);
	r->last_shown = now;
	r->last_events = r->w.events;
	r->drawn = true;
}

static void progress_clear(struct rec_run *r)
{
	if (r->drawn)
		fputs("\r\033[K", stderr);
	r->drawn = false;
}

static void header_comment(struct rec_run *r, char *buf, size_t n)
{
	struct utsname un;
	char when[64];
	time_t now = time(NULL);
	struct tm tm;
	size_t k;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	k = (size_t)snprintf(buf, n, "recorded by bqltool %s record, started %s%s%s\n",
			     BQLTOOL_VERSION, when, uname(&un) ? "" : ", kernel ",
			     uname(&un) ? "" : un.release);
	if (r->backend == RECBPF_TP)
		k += (size_t)snprintf(buf + k, n - k,
				      "backend tracepoints: struct dql observed at net:net_dev_start_xmit, "
				      "net:net_dev_xmit and napi:napi_poll; a C where one dql_completed() "
				      "call explains the change, else an exact S (re-seed)%s",
				      r->o->queued ? "; Q from num_queued changes" : "");
	else if (r->backend == RECBPF_FENTRY)
		k += (size_t)snprintf(buf + k, n - k,
				      "backend fentry: fexit on dql_completed and dql_reset, "
				      "fentry on dql_completed for settings%s",
				      r->o->queued ? ", Q from num_queued watchpoints" : "");
	else
		k += (size_t)snprintf(buf + k, n - k,
				      "backend watchpoint: hardware write watchpoints on "
				      "prev_num_queued%s%s, in-lock checkpoints at "
				      "net:net_dev_start_xmit%s",
				      r->o->queued ? ", num_queued" : "",
				      r->limit_watch ? ", limit" : "",
				      r->o->no_spin ? ", no idle spinners" : ", idle spinners on");
	if (k < n && r->backend == RECBPF_WATCH && !r->limit_watch)
		snprintf(buf + k, n - k, "\nsysfs limit writes are seen at the next checkpoint only");
}

/* ------------------------------------------------------------ --latency */

/*
 * The latency observer beside the recorder (after its spinners: no child
 * inherits its fds). A degraded feature: a warning when it cannot run.
 */
static void lat_open(struct rec_run *r)
{
	struct latbpf_opts o = { .t = r->lt, .n = r->n, .verbose = r->c->verbose };
	struct bql_err e;

	if (!r->o->latency)
		return;
	if (r->n > LAT_MAX_SLOTS) {
		cmd_warn(r->c, "--latency: more than %d queues: no latency summaries", LAT_MAX_SLOTS);
		return;
	}
	for (unsigned int i = 0; i < r->n; i++) {
		snprintf(r->lt[i].ifname, sizeof(r->lt[i].ifname), "%s", r->t[i].ifname);
		r->lt[i].ifindex = r->t[i].ifindex;
		r->lt[i].queue = r->t[i].queue;
	}
	if (latbpf_open(&r->lat, &o, &e))
		cmd_warn(r->c, "--latency: no latency summaries: %s", e.msg);
}

static void lat_summary(struct rec_run *r, const char *q, const char *what,
			const struct lat_hist *h, const char *more)
{
	struct lat_summary s;

	lathist_summary(h, &s);
	recw_comment(&r->w, "latency %s %s p50=%" PRIu64 " p90=%" PRIu64 " p99=%" PRIu64
		     " max=%" PRIu64 " count=%" PRIu64 "%s", q, what, s.p50, s.p90, s.p99,
		     s.max, s.count, more);
}

/*
 * The summaries as comments (bqltrace(5): "# latency QUEUE KIND k=v ...",
 * ns), which readers that know nothing of them skip: ring time, interrupt
 * delay, qdisc wait, stops by cause.
 */
static void lat_footer(struct rec_run *r)
{
	struct latbpf_snap *s;
	struct bql_err e;
	uint64_t now = mono_ns();

	if (!r->lat)
		return;
	s = calloc(1, sizeof(*s));
	if (!s || latbpf_read(r->lat, s, &e)) {
		cmd_warn(r->c, "--latency: no latency summaries: %s", s ? e.msg : "out of memory");
		free(s);
		latbpf_detach(r->lat);
		return;
	}
	latbpf_detach(r->lat);
	recw_comment(&r->w, "latency window_ns=%" PRIu64 " (bqltool latency's observer, "
		     "times in ns)", now - r->t0);
	for (unsigned int i = 0; i < r->n; i++) {
		const struct latbpf_queue *q = &s->q[i];
		const uint64_t *c = q->c.v;
		uint64_t via = c[LAT_C_DEQ] > c[LAT_C_XMIT_BUSY] ? c[LAT_C_DEQ] - c[LAT_C_XMIT_BUSY] : 0;
		uint64_t byp = c[LAT_C_XMIT] > via ? c[LAT_C_XMIT] - via : 0;
		struct lat_hist *qw = malloc(sizeof(*qw));
		char more[64];

		lat_summary(r, r->q[i].name, "ring_time", &q->h[LAT_H_RING], "");
		lat_summary(r, r->q[i].name, "irq_delay", &q->h[LAT_H_IRQ], "");
		if (qw) {
			*qw = q->h[LAT_H_QDISC];
			lathist_add_zeros(qw, byp);
			snprintf(more, sizeof(more), " bypass=%" PRIu64, byp);
			lat_summary(r, r->q[i].name, "qdisc_wait", qw, more);
			free(qw);
		}
		recw_comment(&r->w, "latency %s stops bql=%" PRIu64 " ring=%" PRIu64 " both=%" PRIu64
			     " xmit=%" PRIu64 " sent=%" PRIu64 " polls=%" PRIu64, r->q[i].name,
			     c[LAT_C_STOP_BQL], c[LAT_C_STOP_RING], c[LAT_C_STOP_BOTH], c[LAT_C_XMIT],
			     c[LAT_C_SENT], c[LAT_C_POLLS]);
	}
	free(s);
}

/* ------------------------------------------------------------ capture */

static int capture(struct rec_run *r)
{
	uint64_t end = r->o->dur_ns ? mono_ns() + r->o->dur_ns : 0, last_flush = mono_ns();
	int n;

	while (!rec_stop) {
		n = recbpf_poll(r->bpf, POLL_MS, on_event, r);
		if (r->count_done)
			break;
		if (n < 0 && n != -EINTR) {
			progress_clear(r);
			if (r->w.err)
				return cmd_fail(r->c, "%s: write error: %s", ofile_path(r->of),
						strerror(-r->w.err));
			return cmd_fail(r->c, "ring buffer: %s", strerror(-n));
		}
		if (end && mono_ns() >= end)
			break;
		if (mono_ns() - last_flush >= FLUSH_NS) {
			if (ofile_flush(r->of) < 0) {
				progress_clear(r);
				return cmd_fail(r->c, "%s: write error: %s", ofile_path(r->of),
						strerror(-r->w.err ? -r->w.err : EIO));
			}
			last_flush = mono_ns();
		}
		progress(r, false);
	}
	return 0;
}

static void report(struct rec_run *r, const uint64_t *st)
{
	struct rusage ru;
	uint64_t c, lc, lq;

	recw_totals(&r->w, &c, &lc, &lq);
	fprintf(stderr, "bqltool: record: backend %s%s\n", recbpf_backend_name(r->backend),
		r->forced ? " (BQLTOOL_RECORD_BACKEND)" : "");
	for (int b = 0; b < RECBPF_NR; b++)
		if (b != (int)r->backend && r->why_not[b][0])	/* may quote a name */
			cmd_info(r->c, "backend %s not used: %s",
				 recbpf_backend_name((enum recbpf_backend)b), r->why_not[b]);
	for (unsigned int i = 0; i < r->n; i++) {
		const struct recw_queue *q = &r->q[i];

		/* a queue name is a device name: escaped (lib/io/esc.h) */
		fputs("bqltool: record: ", stderr);
		esc_text_fputs(q->name, stderr);
		if (r->backend == RECBPF_TP)
			fprintf(stderr, ": struct dql at 0x%" PRIx64 ", %" PRIu64 " observations, %"
				PRIu64 " completion windows: %" PRIu64 " exact C (%.2f%%), %" PRIu64
				" re-seeds (%" PRIu64 " several calls, %" PRIu64 " no call, %" PRIu64
				" went back), %" PRIu64 " stale dropped, %" PRIu64 " Q, %" PRIu64 " P%s\n",
				r->dql[i], q->n_obs, q->n_windows, q->n_exact,
				q->n_windows ? 100.0 * (double)q->n_exact / (double)q->n_windows : 100.0,
				q->n_reseed, q->n_why[RECW_RS_CALLS], q->n_why[RECW_RS_NOCALL],
				q->n_why[RECW_RS_BACK] + q->n_why[RECW_RS_QUEUED], q->n_stale,
				q->n_q, q->n_p,
				q->completed ? "" : " (no completion seen: nothing to replay)");
		else
			fprintf(stderr, ": struct dql at 0x%" PRIx64 ", %" PRIu64
				" C, %" PRIu64 " Q, %" PRIu64 " P, %" PRIu64
				" re-seeds after lost C events, %" PRIu64 " Q from checkpoints%s\n",
				r->dql[i], q->n_c, q->n_q,
				q->n_p, q->n_reseed, q->n_lost_q,
				q->completed ? "" : " (no completion seen: nothing to replay)");
	}
	if (r->backend == RECBPF_TP)
		fprintf(stderr, "bqltool: record: %" PRIu64 " events, %" PRIu64 " C records, %"
			PRIu64 " re-seeds, observations %" PRIu64 " (%" PRIu64 " with a change), "
			"ring-buffer drops %" PRIu64 "\n", r->w.events, c, lc, st[REC_ST_OBS],
			st[REC_ST_OBS_CHANGED], st[REC_ST_DROP]);
	else
		fprintf(stderr, "bqltool: record: %" PRIu64 " events, %" PRIu64 " C records, lost C %"
			PRIu64 " (repaired by re-seeding), lost Q %" PRIu64 " (repaired), traps C %"
			PRIu64 " Q %" PRIu64 " limit %" PRIu64 ", checkpoints %" PRIu64
			", ring-buffer drops %" PRIu64 "\n", r->w.events, c, lc, lq,
			st[REC_ST_TRAP_C], st[REC_ST_TRAP_Q], st[REC_ST_TRAP_LIMIT],
			st[REC_ST_CHECKPOINT], st[REC_ST_DROP]);
	if (!getrusage(RUSAGE_SELF, &ru))
		fprintf(stderr, "bqltool: record: own CPU %.3f s user, %.3f s system "
			"(start-up included, idle spinners not)\n",
			(double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
			(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
	for (int i = 0; i < r->nps; i++)
		fprintf(stderr, "bqltool: record: BPF program %s: %" PRIu64 " runs, %.0f ns per run\n",
			r->ps[i].name, r->ps[i].runs,
			(double)r->ps[i].run_ns / (double)r->ps[i].runs);
}

/* "eth0:tx-0", "eth0:tx-0 and 3 more": the queues, for the two lines below */
static void queue_names(const struct rec_run *r, char *buf, size_t n)
{
	char name[3 * 64];

	esc_text(name, sizeof(name), r->q[0].name);	/* a device name is anyone's */
	if (r->n == 1)
		snprintf(buf, n, "%s", name);
	else
		snprintf(buf, n, "%s and %u more", name, r->n - 1);
}

/* the file written, as the user named it ("standard output" for none) */
static const char *out_name(const struct rec_run *r, char *buf, size_t n)
{
	if (!r->o->out)
		return "standard output";
	esc_text(buf, n, r->o->out);
	return buf;
}

/* on stderr, always: what is captured, where to, until when */
static void started(const struct rec_run *r)
{
	char q[256], o[4 * 256], until[64];

	queue_names(r, q, sizeof(q));
	if (r->o->dur_ns)
		snprintf(until, sizeof(until), "for %.3g s", (double)r->o->dur_ns / 1e9);
	else if (r->o->count)
		snprintf(until, sizeof(until), "until %" PRIu64 " completions", r->o->count);
	else
		snprintf(until, sizeof(until), "until Ctrl-C");
	fprintf(stderr, "bqltool: record: capturing %u queue%s (%s) with the %s backend %s, to %s\n",
		r->n, r->n == 1 ? "" : "s", q, recbpf_backend_name(r->backend), until,
		out_name(r, o, sizeof(o)));
}

/* on stderr, always: what was captured, as tcpdump's "N packets captured" */
static void finished(const struct rec_run *r)
{
	uint64_t c, lc, lq;
	char q[256], o[4 * 256];

	recw_totals(&r->w, &c, &lc, &lq);
	queue_names(r, q, sizeof(q));
	fprintf(stderr, "bqltool: record: %" PRIu64 " completion%s (C records) of %u queue%s "
		"(%s) in %.1f s, %" PRIu64 " events, written to %s\n", c, c == 1 ? "" : "s",
		r->n, r->n == 1 ? "" : "s", q, (double)(mono_ns() - r->t0) / 1e9, r->w.events,
		out_name(r, o, sizeof(o)));
}

/* a queue without a completion has nothing to replay: say so */
/*
 * A device deleted (or deleted and made again: another ifindex) during
 * the capture: its queues' records end where it went, and the trace says
 * nothing of why; name it. Each device once.
 */
static void vanished(struct rec_run *r)
{
	for (unsigned int i = 0; i < r->n; i++) {
		const struct recbpf_target *t = &r->t[i];
		char path[4096];
		uint64_t idx = 0;
		bool seen = false;

		for (unsigned int k = 0; k < i && !seen; k++)
			seen = !strcmp(r->t[k].ifname, t->ifname);
		if (seen)
			continue;
		if (!sysfs_dev_exists(r->c, t->ifname))
			cmd_warn(r->c, "%s: the device was deleted during the capture: its queues' records end when it went",
				 t->ifname);
		else if (t->ifindex > 0 && !sysfs_dev_path(r->c, path, sizeof(path), t->ifname, "ifindex") &&
			 !sysfs_read_u64(r->c, path, &idx, t->ifname, NULL) && idx != (uint64_t)t->ifindex)
			cmd_warn(r->c, "%s: the device was deleted and another made under its name during the capture (ifindex %d, now %" PRIu64 "): its queues' records end when it went",
				 t->ifname, t->ifindex, idx);
	}
}

static void unseeded(struct rec_run *r)
{
	unsigned int n = 0, first = 0;

	for (unsigned int i = r->n; i-- > 0;)
		if (!r->q[i].completed) {
			n++;
			first = i;
		}
	if (n == 1)
		cmd_warn(r->c, "%s: no completion seen during the capture", r->q[first].name);
	else if (n)
		cmd_warn(r->c, "%u of %u queues (%s, ...) saw no completion during the capture",
			 n, r->n, r->q[first].name);
}

/* the kernel refused backend @b for a reason another backend may not have */
static void why_set(struct rec_run *r, enum recbpf_backend b, const struct bql_err *e)
{
	const char *name = e->code > 0 ? strerrorname_np(e->code) : NULL;

	snprintf(r->why_not[b], sizeof(r->why_not[b]), "%s%s%s%s", e->msg,
		 name ? " (" : "", name ? name : "", name ? ")" : "");
}

/*
 * Try the backends in r->order; the first that loads and attaches is used.
 * Spinners (watchpoints: lost traps in idle vCPUs) are started before that
 * backend's BPF objects exist, so that no child inherits their fds.
 */
static int open_backend(struct rec_run *r, struct recbpf_opts *bo)
{
	struct bql_err e;
	bool refused;

	for (unsigned int k = 0; k < r->norder; k++) {
		enum recbpf_backend b = r->order[k];
		bool spin = !r->o->no_spin &&
			    (b == RECBPF_WATCH || (b == RECBPF_FENTRY && r->o->queued));

		if (record_budget(r, b, r->why_not[b], sizeof(r->why_not[b])))
			continue;
		bo->limit_watch = r->limit_watch;
		if (spin && spin_start(&r->spin, &e)) {
			cmd_error(r->c, &e);
			return BQL_EXIT_FAIL;
		}
		if (!recbpf_open(&r->bpf, bo, b, &e, &refused)) {
			r->backend = b;
			r->why_not[b][0] = 0;
			return BQL_EXIT_OK;
		}
		if (spin)
			spin_stop(&r->spin);
		why_set(r, b, &e);
		/* not the backend's fault, or no privilege: the others fare no better */
		if (!refused || ((e.code == EPERM || e.code == EACCES) && geteuid() != 0) ||
		    r->norder == 1) {
			cmd_error(r->c, &e);
			return BQL_EXIT_FAIL;
		}
	}
	return cmd_fail(r->c, "no capture backend works on this kernel: tracepoints: %s; "
			"fentry: %s; watchpoint: %s", r->why_not[RECBPF_TP],
			r->why_not[RECBPF_FENTRY], r->why_not[RECBPF_WATCH]);
}

/* -v: for each backend not tried, whether it would have worked, and why not */
static void why_not_others(struct rec_run *r)
{
	bool limit_watch = r->limit_watch;	/* record_budget() sets it */
	struct bql_err e;

	for (int b = 0; b < RECBPF_NR; b++) {
		if (b == (int)r->backend || r->why_not[b][0])
			continue;
		if (record_budget(r, (enum recbpf_backend)b, r->why_not[b], sizeof(r->why_not[b])))
			continue;
		if (b == RECBPF_FENTRY && recbpf_probe_fentry(0, &e))
			why_set(r, RECBPF_FENTRY, &e);
		else if (b == RECBPF_WATCH && recbpf_probe_watch(r->bpf, &e))
			why_set(r, RECBPF_WATCH, &e);
		else
			snprintf(r->why_not[b], sizeof(r->why_not[b]),
				 "the kernel allows it, %s comes first (BQLTOOL_RECORD_BACKEND=%s "
				 "selects it)", recbpf_backend_name(r->backend),
				 recbpf_backend_name((enum recbpf_backend)b));
	}
	r->limit_watch = limit_watch;
}

int record_capture(struct rec_run *r)
{
	struct recbpf_opts bo = {
		.t = r->t, .n = r->n, .queued = r->o->queued,
		.limit_watch = r->limit_watch, .verbose = r->c->verbose,
		.prog_stats = getenv("BQLTOOL_RECORD_STATS") && *getenv("BQLTOOL_RECORD_STATS") == '1',
	};
	uint64_t st[REC_ST_NR];
	struct sigaction sa;
	struct bql_err e;
	struct utsname un;
	unsigned int kflags;
	char comment[1024];
	int ret;

	/* from here on, Ctrl-C and SIGTERM are a normal end of the capture */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (ofile_open(&r->of, r->o->out ? r->o->out : "-",
		       r->o->out ? OFILE_COMPRESS_BY_NAME : OFILE_STREAM, &e)) {
		cmd_error(r->c, &e);
		return BQL_EXIT_FAIL;
	}
	ret = open_backend(r, &bo);
	if (ret)
		goto fail;
	for (unsigned int i = 0; i < r->n; i++)
		r->dql[i] = recbpf_dql_addr(r->bpf, i);
	lat_open(r);
	if (r->c->verbose)
		why_not_others(r);
	if (hz_get()->src == HZ_SRC_FALLBACK)
		cmd_warn(r->c, "HZ unknown (no kernel config found), the trace says hz %u: "
			 "set BQLTOOL_HZ if that is wrong", hz_get()->hz);
	header_comment(r, comment, sizeof(comment));
	recw_init(&r->w, hz_get()->hz, r->q, r->n, r->o->queued, sink, r->of);
	if (!uname(&un) && !dql_kernel_parse(un.release, &kflags, NULL))
		r->w.kflags = kflags;
	recw_header(&r->w, comment);
	r->progress = isatty(STDERR_FILENO) && (r->o->out || !isatty(STDOUT_FILENO));
	r->t0 = r->last_shown = mono_ns();
	/* what it does and until when, as tcpdump says "listening on ..." */
	started(r);
	ret = capture(r);
	if (ret)
		goto fail;
	/* stop the programs, then take what they left on the ring */
	recbpf_detach(r->bpf);
	if (!r->count_done) {
		int n = recbpf_drain(r->bpf, on_event, r);

		if (n < 0) {
			ret = cmd_fail(r->c, "%s: write error: %s", ofile_path(r->of),
				       strerror(-n));
			goto fail;
		}
	}
	recbpf_stats(r->bpf, st);
	r->nps = recbpf_prog_stats(r->bpf, r->ps, REC_NPS);
	progress(r, true);
	progress_clear(r);
	lat_footer(r);
	recw_footer(&r->w, st);
	if (r->w.err) {
		ret = cmd_fail(r->c, "%s: write error: %s", ofile_path(r->of), strerror(-r->w.err));
		goto fail;
	}
	latbpf_close(r->lat);
	r->lat = NULL;
	recbpf_close(r->bpf);
	r->bpf = NULL;
	spin_stop(&r->spin);
	if (ofile_commit(r->of, &e)) {
		r->of = NULL;
		cmd_error(r->c, &e);
		return BQL_EXIT_FAIL;
	}
	r->of = NULL;
	if (r->c->verbose)
		report(r, st);
	finished(r);
	vanished(r);
	unseeded(r);
	return BQL_EXIT_OK;
fail:
	progress_clear(r);
	latbpf_close(r->lat);
	r->lat = NULL;
	recbpf_close(r->bpf);
	r->bpf = NULL;
	spin_stop(&r->spin);
	ofile_abort(r->of);
	r->of = NULL;
	return ret;
}
