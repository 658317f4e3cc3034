// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool record, the capture: spinners, BPF (lib/recbpf.c), the trace
 * writer (lib/recwriter.c) into ofile, progress, the end and the report.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/record.h"
#include "lib/esc.h"
#include "lib/hz.h"

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
	char when[64];
	time_t now = time(NULL);
	struct tm tm;
	size_t k;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	k = (size_t)snprintf(buf, n, "recorded by bqltool %s record, started %s\n",
			     BQLTOOL_VERSION, when);
	if (r->backend == RECBPF_FENTRY)
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
	fprintf(stderr, "bqltool: record: backend %s%s%s%s\n", recbpf_backend_name(r->backend),
		r->why_not_fentry[0] ? " (fentry not used: " : "", r->why_not_fentry,
		r->why_not_fentry[0] ? ")" : "");
	for (unsigned int i = 0; i < r->n; i++) {
		/* a queue name is a device name: escaped (lib/esc.h) */
		fputs("bqltool: record: ", stderr);
		esc_text_fputs(r->q[i].name, stderr);
		fprintf(stderr, ": struct dql at 0x%" PRIx64 ", %" PRIu64
			" C, %" PRIu64 " Q, %" PRIu64 " P, %" PRIu64
			" re-seeds after lost C events, %" PRIu64 " Q from checkpoints%s\n",
			r->dql[i], r->q[i].n_c, r->q[i].n_q,
			r->q[i].n_p, r->q[i].n_reseed, r->q[i].n_lost_q,
			r->q[i].seeded ? "" : " (no completion seen: nothing to replay)");
	}
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

/* a queue without a completion has nothing to replay: say so */
static void unseeded(struct rec_run *r)
{
	unsigned int n = 0, first = 0;

	for (unsigned int i = r->n; i-- > 0;)
		if (!r->q[i].seeded) {
			n++;
			first = i;
		}
	if (n == 1)
		cmd_warn(r->c, "%s: no completion seen during the capture", r->q[first].name);
	else if (n)
		cmd_warn(r->c, "%u of %u queues (%s, ...) saw no completion during the capture",
			 n, r->n, r->q[first].name);
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
	char comment[512];
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
	/* before any BPF object exists: children must not inherit BPF fds */
	if (!r->o->no_spin && (r->backend == RECBPF_WATCH || r->o->queued) &&
	    spin_start(&r->spin, &e)) {
		cmd_error(r->c, &e);
		ofile_abort(r->of);
		return BQL_EXIT_FAIL;
	}
	if (recbpf_open(&r->bpf, &bo, r->backend, &e)) {
		ret = BQL_EXIT_FAIL;
		cmd_error(r->c, &e);
		goto fail;
	}
	for (unsigned int i = 0; i < r->n; i++)
		r->dql[i] = recbpf_dql_addr(r->bpf, i);
	if (hz_get()->src == HZ_SRC_FALLBACK)
		cmd_warn(r->c, "HZ unknown (no kernel config found), the trace says hz %u: "
			 "set BQLTOOL_HZ if that is wrong", hz_get()->hz);
	header_comment(r, comment, sizeof(comment));
	recw_init(&r->w, hz_get()->hz, r->q, r->n, r->o->queued, sink, r->of);
	recw_header(&r->w, comment);
	r->progress = isatty(STDERR_FILENO) && (r->o->out || !isatty(STDOUT_FILENO));
	r->t0 = r->last_shown = mono_ns();
	if (r->c->verbose)
		fprintf(stderr, "bqltool: record: recording %u queue%s with the %s backend%s\n",
			r->n, r->n == 1 ? "" : "s", recbpf_backend_name(r->backend),
			r->o->dur_ns || r->o->count ? "" : "; Ctrl-C ends the capture");
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
	recw_footer(&r->w, st);
	if (r->w.err) {
		ret = cmd_fail(r->c, "%s: write error: %s", ofile_path(r->of), strerror(-r->w.err));
		goto fail;
	}
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
	unseeded(r);
	return BQL_EXIT_OK;
fail:
	progress_clear(r);
	recbpf_close(r->bpf);
	r->bpf = NULL;
	spin_stop(&r->spin);
	ofile_abort(r->of);
	r->of = NULL;
	return ret;
}
