// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool top -b: one text block or one NDJSON line per sample, until the
 * count is reached or a signal ends the stream between two samples.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cmd/cmd.h"
#include "cmd/common.h"
#include "cmd/top.h"
#include "cmd/top_lat.h"
#include "lib/model/topmodel.h"
#include "lib/kernel/hz.h"
#include "lib/io/out.h"
#include "lib/io/qname.h"
#include "lib/kernel/sampler.h"
#include "lib/io/table.h"
#include "lib/io/units.h"
#include "cmd/latency.h"

static volatile sig_atomic_t top_stop;

static void on_stop(int sig)
{
	(void)sig;
	top_stop = 1;
}

/* ------------------------------------------------------------- batch */

static void json_queue(struct bql_ctx *c, const struct sampler_dev *d,
		       const struct sampler_queue *q, const struct top_lat *tl)
{
	struct cmd_stat st[SQS_NR];

	out_open_obj(c, NULL);
	qname_out_queue(c, d->ifname, q->index);
	for (int a = 0; a < BQL_ATTR_NR; a++)
		if (bql_has(&q->bql, a))
			out_u64(c, OUT_JSON, bql_attrs[a].name, NULL, q->bql.val[a]);
	/* netdev qstats, nested as show -j nests them; the rates beside */
	for (int k = 0; k < SQS_NR; k++)
		st[k] = (struct cmd_stat){ sampler_qs_names[k], q->qs[k],
					   q->qs_present & (1u << k) };
	cmd_json_stats(c, st, SQS_NR);
	for (int k = 0; k < SQS_NR; k++) {
		char key[32];

		if (!(q->rate_valid & (1u << k)))
			continue;
		snprintf(key, sizeof(key), "%s_rate", sampler_qs_names[k]);
		out_dbl(c, OUT_JSON, key, NULL, q->rate[k]);
	}
	if (q->has_stall_delta)
		out_u64(c, OUT_JSON, "stall_cnt_delta", NULL, q->stall_cnt_delta);
	if (q->has_qd)
		cmd_json_qdisc(c, "qdisc", &q->qd);
	if (q->qd_drops_rate_valid)
		out_dbl(c, OUT_JSON, "qdisc_drops_rate", NULL, q->qd_drops_rate);
	top_lat_json_queue(c, tl, d->ifname, q->index);
	out_close_obj(c);
}

static void json_sample(struct bql_ctx *c, const struct sampler *s, const struct top_lat *tl)
{
	out_begin(c, false);
	out_u64(c, OUT_JSON, "mono_ns", NULL, s->mono_ns);
	/*
	 * wall clock in µs: exact in any JSON reader (doubles hold integers to
	 * 2^53: µs until 2255; real_ns lost its last digits in jq and JS).
	 * real_ns stays, deprecated (bqltool-top(8))
	 */
	out_u64(c, OUT_JSON, "real_us", NULL, s->real_ns / 1000);
	out_u64(c, OUT_JSON, "real_ns", NULL, s->real_ns);
	out_u64(c, OUT_JSON, "seq", NULL, s->seq);
	if (s->dt_ns)
		out_u64(c, OUT_JSON, "interval_ns", NULL, s->dt_ns);
	out_open_arr(c, "devices");
	for (size_t i = 0; i < s->ndev; i++) {
		const struct sampler_dev *d = &s->dev[i];
		/* the same counters as show -j's, nested the same way */
		const struct cmd_stat st[] = {
			{ "tx_bytes", d->tx_bytes, d->has_stats },
			{ "tx_packets", d->tx_packets, d->has_stats },
			{ "tx_errors", d->tx_errors, d->has_errs },
			{ "tx_dropped", d->tx_dropped, d->has_errs },
		};

		if (d->flags & SAMPLER_VANISHED)
			continue;
		out_open_obj(c, NULL);
		out_str(c, OUT_JSON, "ifname", NULL, d->ifname);
		if (d->ifindex >= 0)
			out_u64(c, OUT_JSON, "ifindex", NULL, (uint64_t)d->ifindex);
		out_u64(c, OUT_JSON, "num_tx_queues", NULL, d->ntx);
		if (d->operstate[0])
			out_str(c, OUT_JSON, "operstate", NULL, d->operstate);
		/* nested as show -j nests them */
		cmd_json_stats(c, st, sizeof(st) / sizeof(st[0]));
		if (d->has_rate) {
			out_dbl(c, OUT_JSON, "tx_bytes_rate", NULL, d->tx_bytes_rate);
			out_dbl(c, OUT_JSON, "tx_packets_rate", NULL, d->tx_packets_rate);
		}
		cmd_json_ring_coal(c, &d->ring, &d->coal);
		if (d->qd_shared)
			cmd_json_qdisc(c, "shared_qdisc", &d->qd);
		out_open_arr(c, "queues");
		for (unsigned int k = 0; k < d->nq; k++)
			if (!(d->q[k].flags & SAMPLER_VANISHED))
				json_queue(c, d, &d->q[k], tl);
		out_close_arr(c);
		out_close_obj(c);
	}
	out_close_arr(c);
	if (s->shortage.err) {
		const struct sampler_short *sh = &s->shortage;
		char text[512];

		out_open_obj(c, "shortage");
		out_str(c, OUT_JSON, "reason", NULL, sh->err == ENOMEM ? "ENOMEM" :
			sh->err == ENFILE ? "ENFILE" : "EMFILE");
		out_str(c, OUT_JSON, "message", NULL, sampler_short_text(text, sizeof(text), s));
		if (sh->fd_limit && sh->fd_limit != UINT64_MAX)
			out_u64(c, OUT_JSON, "fd_limit", NULL, sh->fd_limit);
		out_u64(c, OUT_JSON, "ndevices_skipped", NULL, sh->ndev_skipped);
		out_u64(c, OUT_JSON, "nqueues_skipped", NULL, sh->nq_skipped);
		out_u64(c, OUT_JSON, "nqueues_reopened", NULL, sh->nq_reopen);
		out_u64(c, OUT_JSON, "nqueues_unread", NULL, sh->nq_unread);
		out_close_obj(c);
	}
	if (!c->root_overridden)
		top_lat_json_status(c, tl);
	out_open_arr(c, "events");
	for (size_t i = 0; i < s->nev; i++) {
		const struct sampler_event *ev = &s->ev[i];

		out_open_obj(c, NULL);
		out_str(c, OUT_JSON, "type", NULL, sampler_event_name(ev->type));
		out_str(c, OUT_JSON, "ifname", NULL, ev->ifname);
		if (ev->type == SEV_QUEUES) {
			out_u64(c, OUT_JSON, "old_num_tx_queues", NULL, ev->old_ntx);
			out_u64(c, OUT_JSON, "num_tx_queues", NULL, ev->new_ntx);
		}
		out_close_obj(c);
	}
	out_close_arr(c);
}

enum { TC_DEV, TC_QUEUE, TC_STATE, TC_LIMIT, TC_INFLIGHT, TC_MIN, TC_MAX, TC_HOLD, TC_THRS,
       TC_STALLS, TC_STALLMAX, TC_RATE, TC_PPS, TC_STOP, TC_WAKE, TC_DSTALL, TC_QDISC,
       TC_QBACKLOG, TC_QDROPS, TC_RINGP99, TC_QDP99, TC_BQLSTOP, TC_RINGSTOP, TC_NR };

/* measured time (the latency observer, when on): empty cells otherwise, dropped */
static void text_lat(struct table *t, const struct top_lat *tl, const char *ifname, int queue)
{
	double v[TM_COL_NR];
	unsigned int valid = tl ? top_lat_fill((void *)(uintptr_t)tl, ifname, queue, v) : 0;
	char buf[32];

	if (valid & (1u << TM_COL_RING_P99))
		table_cell_str(t, TC_RINGP99, latency_fmt_ns(buf, sizeof(buf), (uint64_t)v[TM_COL_RING_P99]));
	if (valid & (1u << TM_COL_QDISC_P99))
		table_cell_str(t, TC_QDP99, latency_fmt_ns(buf, sizeof(buf), (uint64_t)v[TM_COL_QDISC_P99]));
	if (valid & (1u << TM_COL_STOP_BQL))
		table_cell_str(t, TC_BQLSTOP,
			       units_fmt_fixed(buf, sizeof(buf), v[TM_COL_STOP_BQL], 1, ""));
	if (valid & (1u << TM_COL_STOP_RING))
		table_cell_str(t, TC_RINGSTOP,
			       units_fmt_fixed(buf, sizeof(buf), v[TM_COL_STOP_RING], 1, ""));
}

static void text_rate(struct table *t, int col, bool counted, bool valid, double v,
		      bool bytes)
{
	char buf[32];

	if (!counted)
		return;
	if (!valid)
		table_cell_n(t, col, "-", 1);
	else if (bytes)
		table_cell_str(t, col, units_fmt_rate(buf, sizeof(buf), v));
	else
		table_cell_str(t, col, units_fmt_fixed(buf, sizeof(buf), v, 1, ""));
}

static void text_queue(struct table *t, const struct sampler_queue *q, unsigned int hz)
{
	static const struct { enum bql_attr a; int col; } map[] = {
		{ BQL_LIMIT, TC_LIMIT }, { BQL_INFLIGHT, TC_INFLIGHT },
		{ BQL_LIMIT_MIN, TC_MIN }, { BQL_LIMIT_MAX, TC_MAX },
		{ BQL_HOLD_TIME, TC_HOLD }, { BQL_STALL_THRS, TC_THRS },
		{ BQL_STALL_CNT, TC_STALLS }, { BQL_STALL_MAX, TC_STALLMAX },
	};
	const struct bql_queue *b = &q->bql;
	char buf[32];

	memcpy(buf, "tx-", 3);
	table_cell_n(t, TC_QUEUE, buf, 3 + units_u64_len(buf + 3, sizeof(buf) - 3, q->index, ""));
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (bql_has(b, map[i].a))
			table_cell_str(t, map[i].col, bql_fmt_human(buf, sizeof(buf), map[i].a,
								     b->val[map[i].a], hz));
	if (bql_has(b, BQL_STALL_CNT))
		table_cell_str(t, TC_DSTALL, q->has_stall_delta ?
			       units_fmt_u64(buf, sizeof(buf), q->stall_cnt_delta) : "-");
	for (int k = 0; k < SQS_NR; k++)
		text_rate(t, TC_RATE + k, q->qs_present & (1u << k),
			  q->rate_valid & (1u << k), q->rate[k], k == SQS_TX_BYTES);
	if (q->has_qd) {
		table_cell_str(t, TC_QDISC, q->qd.kind);
		table_cell_str(t, TC_QBACKLOG, units_fmt_bytes(buf, sizeof(buf), q->qd.backlog));
		text_rate(t, TC_QDROPS, true, q->qd_drops_rate_valid, q->qd_drops_rate, false);
	}
}

/*
 * The device row: limit and inflight summed over the selected queues (as
 * the live view sums them), labelled "all" when every TX queue of the
 * device is selected and "N of M" otherwise; the device's own traffic.
 */
static void text_device(struct table *t, const struct sampler_dev *d)
{
	uint64_t sum[2] = { 0, 0 };
	bool has[2] = { false, false };
	unsigned int n = 0;
	char buf[32];

	for (unsigned int k = 0; k < d->nq; k++) {
		const struct bql_queue *b = &d->q[k].bql;

		if (d->q[k].flags & SAMPLER_VANISHED)
			continue;
		n++;
		for (int i = 0; i < 2; i++) {
			enum bql_attr a = i ? BQL_INFLIGHT : BQL_LIMIT;

			if (bql_has(b, a)) {
				sum[i] += b->val[a];
				has[i] = true;
			}
		}
	}
	table_cell_str(t, TC_DEV, d->ifname);
	/* every device is listed, down ones too: the state says which */
	table_cell_str(t, TC_STATE, d->operstate[0] ? d->operstate : "?");
	if (n == d->ntx)
		table_cell_n(t, TC_QUEUE, "all", 3);
	else
		table_cell(t, TC_QUEUE, "%u of %u", n, d->ntx);
	if (has[0])
		table_cell_str(t, TC_LIMIT, bql_fmt_human(buf, sizeof(buf), BQL_LIMIT, sum[0], 0));
	if (has[1])
		table_cell_str(t, TC_INFLIGHT, bql_fmt_human(buf, sizeof(buf), BQL_INFLIGHT, sum[1], 0));
	if (d->has_stats) {
		text_rate(t, TC_RATE, true, d->has_rate, d->tx_bytes_rate, true);
		text_rate(t, TC_PPS, true, d->has_rate, d->tx_packets_rate, false);
	}
	if (d->qd_shared) {
		table_cell_str(t, TC_QDISC, d->qd.kind);
		table_cell_str(t, TC_QBACKLOG, units_fmt_bytes(buf, sizeof(buf), d->qd.backlog));
	}
}

/* the widest text of each column's values (bql_fmt_human, units_fmt_rate, %.1f) */
static const int text_widths[TC_NR] = {
	[TC_STATE] = 7,						/* "unknown" */
	[TC_LIMIT] = 8, [TC_INFLIGHT] = 8, [TC_MIN] = 8, [TC_MAX] = 8,	/* "1023 KiB" */
	[TC_HOLD] = 9, [TC_THRS] = 9, [TC_STALLMAX] = 9,	/* "999999 ms" */
	[TC_STALLS] = 9, [TC_DSTALL] = 7,
	[TC_RATE] = 12,						/* "999.9 Mbit/s" */
	[TC_PPS] = 9, [TC_STOP] = 9, [TC_WAKE] = 9, [TC_QDROPS] = 9,	/* "9999999.9" */
	[TC_QBACKLOG] = 8,
	[TC_RINGP99] = 9, [TC_QDP99] = 9,			/* "999.9 ms" */
	[TC_BQLSTOP] = 9, [TC_RINGSTOP] = 9,
};

/* @t: the table of the samples before, reset (its memory reused) */
static int text_sample(struct bql_ctx *c, const struct sampler *s, unsigned int hz,
		       const struct top_lat *tl, struct table *t)
{
	static const char *const hdr[TC_NR] = {
		"device", "queue", "state", "limit", "inflight", "limit_min", "limit_max",
		"hold_time", "stall_thrs", "stall_cnt", "stall_max", "tx_rate",
		"pkt/s", "stop/s", "wake/s", "stalls+", "qdisc", "backlog", "qdrops/s",
		"ring_p99", "qdisc_p99", "bqlstop/s", "ringstop/s",
	};
	time_t sec = (time_t)(s->real_ns / NS_PER_SEC);
	char when[64];
	struct tm tm;

	localtime_r(&sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(c->out, "%s.%03u  sample %" PRIu64, when,
		(unsigned int)(s->real_ns % NS_PER_SEC / 1000000), s->seq);
	if (s->dt_ns)
		fprintf(c->out, "  interval %.3fs", (double)s->dt_ns / 1e9);
	fputc('\n', c->out);
	table_reset(t, TC_NR, 1u << TC_DEV | 1u << TC_QUEUE | 1u << TC_STATE, 0);
	/* value columns as wide as their widest value, so that a column keeps
	 * its place from one sample to the next ("-" then "812.4 Mbit/s") */
	for (int i = 0; i < TC_NR; i++)
		t->width[i] = text_widths[i];
	if (table_row(t))
		return -ENOMEM;
	for (int i = 0; i < TC_NR; i++)
		table_cell_str(t, i, hdr[i]);
	for (size_t i = 0; i < s->ndev; i++) {
		const struct sampler_dev *d = &s->dev[i];

		if (d->flags & SAMPLER_VANISHED)
			continue;
		if (table_row(t))
			return -ENOMEM;
		text_device(t, d);
		text_lat(t, tl, d->ifname, -1);
		for (unsigned int k = 0; k < d->nq; k++) {
			if (d->q[k].flags & SAMPLER_VANISHED)
				continue;
			if (table_row(t))
				return -ENOMEM;
			table_cell_str(t, TC_DEV, d->ifname);
			text_queue(t, &d->q[k], hz);
			text_lat(t, tl, d->ifname, (int)d->q[k].index);
		}
	}
	table_drop_empty(t, 1);
	table_print(t, c->out);
	if (s->shortage.err) {
		char text[512];

		fprintf(c->out, "shortage: %s\n", sampler_short_text(text, sizeof(text), s));
	}
	for (size_t i = 0; i < s->nev; i++) {
		const struct sampler_event *ev = &s->ev[i];

		/* out_text(): the name is printed escaped */
		if (ev->type == SEV_QUEUES)
			out_text(c, "event: %s: TX queues %u -> %u\n", ev->ifname,
				 ev->old_ntx, ev->new_ntx);
		else
			out_text(c, "event: %s: %s\n", ev->ifname,
				 sampler_event_name(ev->type));
	}
	fputc('\n', c->out);
	return 0;
}

/* A reader that went away (`| head`) ends the stream quietly. */
static int output_done(struct bql_ctx *c, int ret)
{
	int err = errno;
	int fd;

	if (!ret && !fflush(c->out) && !ferror(c->out))
		return 0;
	err = out_write_errno();
	if (!err)
		err = errno ? errno : EIO;
	if (err != EPIPE)
		return cmd_fail(c, "write error on standard output: %s", strerror(err));
	/* leave nothing for main's final flush to complain about */
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, fileno(c->out));
		close(fd);
	}
	clearerr(c->out);
	return -1;
}

static void sleep_until(uint64_t t_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(t_ns / NS_PER_SEC),
			       .tv_nsec = (long)(t_ns % NS_PER_SEC) };

	while (!top_stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

uint64_t top_mono_now(void)
{
	return sampler_clock_system.mono_ns(NULL);
}

/* top_run_batch()'s loop, with one text table for every sample */
static int run_batch(struct bql_ctx *c, struct sampler *s, const struct top_opts *o,
		     unsigned int hz, struct table *t)
{
	uint64_t next = 0, now;
	bool warned = false;
	struct bql_err e;
	int ret;

	for (uint64_t n = 0; !o->count || n < o->count; n++) {
		if (n)
			sleep_until(next);
		if (top_stop)
			break;
		if (sampler_tick(s, &e)) {
			cmd_error(c, &e);
			return BQL_EXIT_FAIL;
		}
		top_lat_tick(c, o->lat, s);
		if (c->verbose && n == 0 && s->note[0])
			cmd_note(c, "%s", s->note);
		if (c->verbose && n == 0 && !c->root_overridden) {
			char st[320];

			cmd_note(c, "%s", top_lat_status(o->lat, st, sizeof(st)));
		}
		if (s->shortage.err && !warned) {
			char text[512];

			/* once on stderr too: the stream says it in every sample */
			cmd_warn(c, "%s", sampler_short_text(text, sizeof(text), s));
			warned = true;
		}
		if (c->json) {
			json_sample(c, s, o->lat);
			ret = out_end(c);
		} else {
			ret = text_sample(c, s, hz, o->lat, t);
		}
		ret = output_done(c, ret);
		if (ret)
			return ret < 0 ? BQL_EXIT_OK : ret;
		/*
		 * The cadence starts at the first sample's own read, not at
		 * the clock read before it: a preemption in between would make
		 * the first interval short by as much.
		 */
		if (n == 0)
			next = s->mono_ns;
		next += o->delay_ns;
		now = top_mono_now();
		if (next < now)		/* fell behind: no burst to catch up */
			next = now;
	}
	return BQL_EXIT_OK;
}

int top_run_batch(struct bql_ctx *c, struct sampler *s, const struct top_opts *o)
{
	struct sigaction sa;
	unsigned int hz = hz_get()->hz;
	struct table t;
	int ret = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;	/* no SA_RESTART: the sleep ends */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	json_c_set_serialization_double_format("%.3f", JSON_C_OPTION_GLOBAL);
	table_init(&t, TC_NR, 0, 0);
	ret = run_batch(c, s, o, hz, &t);
	table_free(&t);
	return ret;
}
