// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool tune: the advice in words (why this setting, or the defaults, and
 * their margins), then the report (model, candidates, choice, command), text
 * or JSON.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cmd/cmd.h"
#include "cmd/tune.h"
#include "dql/dql.h"
#include "lib/io/out.h"
#include "lib/io/table.h"
#include "lib/io/units.h"

const char *tune_qdisc_name(enum tune_qdisc q)
{
	return q == TUNE_QDISC_FIFO ? "fifo" : q == TUNE_QDISC_FQ ? "fq" : "unknown";
}

/* throughput against the defaults' on the model (runs of different lengths) */
static double ratio(const struct tx *x, const struct tune_result *r)
{
	double base = x->eng.base.throughput_bps;

	return base > 0 ? r->throughput_bps / base : 1.0;
}

static void json_settings(struct bql_ctx *c, const struct tune_settings *s)
{
	out_open_obj(c, "settings");
	out_u64(c, OUT_JSON, "limit_min", NULL, s->limit_min);
	out_u64(c, OUT_JSON, "limit_max", NULL, s->limit_max);
	out_u64(c, OUT_JSON, "hold_time", NULL, s->hold_time);
	out_close_obj(c);
}

static void json_result(struct tx *x, const char *key, const struct tune_result *r)
{
	struct bql_ctx *c = x->c;

	out_open_obj(c, key);
	json_settings(c, &r->set);
	out_u64(c, OUT_JSON, "throughput_bps", NULL, (uint64_t)llround(r->throughput_bps));
	out_dbl_fixed(c, "throughput_ratio", ratio(x, r), 4);
	out_open_obj(c, "ring_delay_ns");
	out_u64(c, OUT_JSON, "p50", NULL, r->p50);
	out_u64(c, OUT_JSON, "p99", NULL, r->p99);
	out_u64(c, OUT_JSON, "max", NULL, r->max);
	out_close_obj(c);
	out_u64(c, OUT_JSON, "qdisc_delay_p99_ns", NULL, r->qdisc_p99);
	out_u64(c, OUT_JSON, "latency_ns", NULL, r->lat);
	out_u64(c, OUT_JSON, "starved_ns", NULL, r->starved_ns);
	out_u64(c, OUT_JSON, "peak_limit", NULL, r->peak_limit);
	out_open_obj(c, "worst");
	out_u64(c, OUT_JSON, "latency_ns", NULL, r->worst_lat);
	out_u64(c, OUT_JSON, "latency_member", NULL, (uint64_t)r->worst_lat_member);
	out_dbl_fixed(c, "throughput_ratio", r->worst_ratio, 4);
	out_u64(c, OUT_JSON, "throughput_member", NULL, (uint64_t)r->worst_ratio_member);
	out_close_obj(c);
	out_u64(c, OUT_JSON, "members_run", NULL, r->members);
	if (r->fail_member >= 0)
		out_u64(c, OUT_JSON, "fails_in", NULL, (uint64_t)r->fail_member);
	else
		out_null(c, "fails_in");
	if (key == NULL)
		out_bool(c, OUT_JSON, "feasible", NULL, r->feasible);
	out_close_obj(c);
}

static void json_margin(struct bql_ctx *c, const char *key, const struct tune_margin *m)
{
	out_open_obj(c, key);
	out_u64(c, OUT_JSON, "irq_late_held_ns", NULL, m->held_ns);
	out_bool(c, OUT_JSON, "beyond_ladder", NULL, m->beyond);
	out_close_obj(c);
}

static const char *const late_from[] = {
	[TUNE_LATE_FLOOR] = "floor",
	[TUNE_LATE_HALF_DEFAULTS] = "half-defaults",
	[TUNE_LATE_MEASURED] = "measured",
	[TUNE_LATE_GIVEN] = "given",
};

static const char *const front_kind[] = {
	[TUNE_FRONT_CUT] = "cut", [TUNE_FRONT_PICK] = "recommended",
	[TUNE_FRONT_BEST] = "best", [TUNE_FRONT_DEFAULTS] = "defaults",
};

static void json_frontier(struct tx *x)
{
	struct bql_ctx *c = x->c;

	out_open_arr(c, "frontier");
	for (unsigned int i = 0; i < x->eng.nfrontier; i++) {
		const struct tune_frontier *f = &x->eng.frontier[i];

		out_open_obj(c, NULL);
		out_str(c, OUT_JSON, "kind", NULL, front_kind[f->kind]);
		json_settings(c, &f->set);
		out_u64(c, OUT_JSON, "latency_ns", NULL, f->lat);
		out_u64(c, OUT_JSON, "worst_latency_ns", NULL, f->worst_lat);
		out_u64(c, OUT_JSON, "irq_late_held_ns", NULL, f->margin.held_ns);
		out_bool(c, OUT_JSON, "beyond_ladder", NULL, f->margin.beyond);
		out_bool(c, OUT_JSON, "admissible", NULL, f->admissible);
		out_close_obj(c);
	}
	out_close_arr(c);
}

static void json_report(struct tx *x)
{
	const struct sim_config *cfg = &x->o.cfg;
	struct bql_ctx *c = x->c;
	char tr[1024];

	out_begin(c, false);
	out_open_obj(c, "model");
	out_u64(c, OUT_JSON, "link_bps", NULL, cfg->link_bps);
	out_u64(c, OUT_JSON, "nqueues", NULL, cfg->nqueues);
	out_str(c, OUT_JSON, "traffic", NULL, sim_fmt_traffic(tr, sizeof(tr), cfg));
	out_u64(c, OUT_JSON, "ring", NULL, cfg->ring);
	out_u64(c, OUT_JSON, "coalesce_usecs", NULL, cfg->coalesce_usecs);
	out_u64(c, OUT_JSON, "coalesce_frames", NULL, cfg->coalesce_frames);
	out_u64(c, OUT_JSON, "napi_budget", NULL, cfg->napi_budget);
	out_u64(c, OUT_JSON, "hz", NULL, cfg->hz);
	out_u64(c, OUT_JSON, "duration_ns", NULL, cfg->duration_ns);
	out_u64(c, OUT_JSON, "seed", NULL, cfg->seed);
	out_close_obj(c);
	sim_opts_warnings_json(c, x->warn, x->nwarn);
	if (x->fitted) {
		const struct tune_fitted *f = &x->fit;

		out_open_obj(c, "fitted");
		out_str(c, OUT_JSON, "trace", NULL, x->from);
		if (f->link_ok)
			out_u64(c, OUT_JSON, "link_bps", NULL, f->link_bps);
		else
			out_null(c, "link_bps");
		out_u64(c, OUT_JSON, "busy_intervals", NULL, f->busy_intervals);
		out_u64(c, OUT_JSON, "completion_interval_p50_ns", NULL, f->gap_p50_ns);
		out_u64(c, OUT_JSON, "completion_bytes_p50", NULL, f->batch_p50);
		out_u64(c, OUT_JSON, "coalesce_usecs", NULL, f->coalesce_usecs);
		out_u64(c, OUT_JSON, "offered_bps", NULL, (uint64_t)llround(f->offered_bps));
		out_dbl_fixed(c, "load", f->load, 4);
		out_bool(c, OUT_JSON, "backlogged", NULL, f->bulk);
		out_u64(c, OUT_JSON, "nqueues", NULL, f->nqueues);
		out_bool(c, OUT_JSON, "packet_sizes_seen", NULL, f->pkt_seen);
		out_str(c, OUT_JSON, "packet_sizes_from", NULL,
			f->pkt_from == TUNE_PKT_Q ? "q_records" :
			f->pkt_from == TUNE_PKT_LO ? "last_obj_cnt" : "assumed");
		out_u64(c, OUT_JSON, "nqueues_bursty", NULL, f->bursty);
		out_u64(c, OUT_JSON, "packet_min", NULL, f->pkt_min);
		out_u64(c, OUT_JSON, "packet_max", NULL, f->pkt_max);
		out_u64(c, OUT_JSON, "packet_p50", NULL, f->pkt_p50);
		out_dbl_fixed(c, "packet_mean", f->pkt_mean, 1);
		out_u64(c, OUT_JSON, "duration_ns", NULL, f->duration_ns);
		out_u64(c, OUT_JSON, "hz", NULL, f->hz);
		out_u64(c, OUT_JSON, "completions", NULL, f->completions);
		out_u64(c, OUT_JSON, "busy_periods", NULL, f->busy_periods);
		out_dbl_fixed(c, "busy_fraction", f->busy_frac, 4);
		out_u64(c, OUT_JSON, "nqueues_busy", NULL, f->busy_queues);
		out_u64(c, OUT_JSON, "nqueues_active", NULL, f->active);
		out_u64(c, OUT_JSON, "busy_interval_p50_ns", NULL, f->busy_gap_p50_ns);
		out_u64(c, OUT_JSON, "busy_bytes_p50", NULL, f->busy_batch_p50);
		out_u64(c, OUT_JSON, "irq_latency_ns", NULL, f->irq_latency_ns);
		out_u64(c, OUT_JSON, "packet_max_seen", NULL, f->pkt_max_seen);
		out_open_obj(c, "limit");
		out_u64(c, OUT_JSON, "min", NULL, f->limit_min);
		out_u64(c, OUT_JSON, "max", NULL, f->limit_max);
		out_dbl_fixed(c, "mean", f->limit_mean, 1);
		out_close_obj(c);
		tx_json_fit(x);
		out_close_obj(c);
	}
	if (x->from_device) {
		out_open_obj(c, "device");
		out_str(c, OUT_JSON, "ifname", NULL, x->dev);
		if (x->dev_mbps)	/* unknown: absent, never 0 */
			out_u64(c, OUT_JSON, "speed_mbps", NULL, x->dev_mbps);
		out_u64(c, OUT_JSON, "nqueues", NULL, x->dev_queues);
		if (x->dev_info.mtu)
			out_u64(c, OUT_JSON, "mtu", NULL, x->dev_info.mtu);
		if (x->dev_has_ring) {
			out_open_obj(c, "ring");
			out_u64(c, OUT_JSON, "tx", NULL, x->dev_ring);
			out_close_obj(c);
		}
		if (x->dev_has_usecs || x->dev_has_frames) {
			out_open_obj(c, "coalesce");
			if (x->dev_has_usecs)
				out_u64(c, OUT_JSON, "tx_usecs", NULL, x->dev_coal_usecs);
			if (x->dev_has_frames)
				out_u64(c, OUT_JSON, "tx_max_frames", NULL, x->dev_coal_frames);
			out_close_obj(c);
		}
		if (x->dev_info.qdisc_kind[0]) {
			out_open_obj(c, "qdisc");
			out_str(c, OUT_JSON, "kind", NULL, x->dev_info.qdisc_kind);
			out_close_obj(c);
		}
		out_close_obj(c);
	}
	if (x->eng.floor) {
		out_open_obj(c, "limit_max_floor");
		out_u64(c, OUT_JSON, "bytes", NULL, x->eng.floor);
		out_str(c, OUT_JSON, "ifname", NULL, x->floor_dev);
		out_str(c, OUT_JSON, "rule", NULL, x->floor_rule);
		out_close_obj(c);
	}
	out_open_obj(c, "qdisc");
	out_str(c, OUT_JSON, "kind", NULL, tune_qdisc_name(x->eng.qdisc));
	out_bool(c, OUT_JSON, "given", NULL, x->qdisc_given);
	out_str(c, OUT_JSON, "latency", NULL,
		x->eng.qdisc == TUNE_QDISC_FIFO ? "qdisc+ring" : "ring");
	out_close_obj(c);
	out_open_arr(c, "ensemble");
	for (unsigned int i = 0; i < x->eng.nmem; i++) {
		const struct tune_member *m = &x->eng.mem[i];
		char d[160];

		out_open_obj(c, NULL);
		out_str(c, OUT_JSON, "what", NULL, tune_member_fmt(d, sizeof(d), cfg, m));
		out_u64(c, OUT_JSON, "irq_late_ns", NULL, m->irq_late_ns);
		out_u64(c, OUT_JSON, "irq_jitter_ns", NULL, m->irq_jitter_ns);
		out_u64(c, OUT_JSON, "nqueues_busy", NULL, m->busy);
		out_s64(c, OUT_JSON, "load_pct", NULL, m->load_pct);
		out_u64(c, OUT_JSON, "seed", NULL, cfg->seed + m->seed_add);
		json_result(x, "defaults", &x->eng.base_m[i]);
		out_close_obj(c);
	}
	out_close_arr(c);
	out_u64(c, OUT_JSON, "simulations", NULL, x->eng.sims);
	out_u64(c, OUT_JSON, "work_events_planned", NULL, x->eng.work);
	out_dbl_fixed(c, "keep", x->eng.keep, 4);
	out_dbl_fixed(c, "min_gain", x->eng.min_gain, 4);
	json_result(x, "baseline", &x->eng.base);
	json_result(x, "recommended", x->eng.pick < 0 ? &x->eng.base : &x->eng.res[x->eng.pick]);
	out_bool(c, OUT_JSON, "keep_defaults", NULL, x->eng.pick < 0);
	out_str(c, OUT_JSON, "reason", NULL, x->reason);
	out_str(c, OUT_JSON, "answer", NULL, x->eng.pick < 0 ? "keep the defaults" : x->command);
	out_open_arr(c, "why");
	for (unsigned int i = 0; i < x->nwhy; i++)
		out_str(c, OUT_JSON, NULL, NULL, x->why[i]);
	out_close_arr(c);
	if (x->eng.have_margin) {
		out_open_obj(c, "margin");
		out_u64(c, OUT_JSON, "required_ns", NULL, x->eng.late_ns);
		out_str(c, OUT_JSON, "required_from", NULL, late_from[x->eng.late_from]);
		out_u64(c, OUT_JSON, "ceiling_ns", NULL, TUNE_MARGIN_CEIL_NS);
		json_margin(c, "defaults", &x->eng.margin[0]);
		if (x->eng.best >= 0)
			json_margin(c, x->eng.pick < 0 ? "best" : "recommended", &x->eng.margin[1]);
		out_close_obj(c);
	}
	json_frontier(x);
	out_open_arr(c, "candidates");
	for (unsigned int i = 0; i < x->eng.nres; i++)
		json_result(x, NULL, &x->eng.res[i]);
	out_close_arr(c);
	if (x->eng.pick < 0)
		out_null(c, "command");
	else
		out_str(c, OUT_JSON, "command", NULL, x->command);
}

/* a limit setting in the one human format ("8.87 KiB"), or "max"; -j has bytes */
static void fmt_limit(char *buf, size_t n, uint32_t v)
{
	if (v == DQL_MAX_LIMIT)
		snprintf(buf, n, "max");
	else
		units_fmt_bytes(buf, n, v);
}

/* the candidates, best worst-case latency first among the feasible, then the others */
static int cand_cmp(const void *a, const void *b, void *arg)
{
	const struct tune_result *r = arg;
	const struct tune_result *x = &r[*(const unsigned int *)a], *y = &r[*(const unsigned int *)b];

	if (x->feasible != y->feasible)
		return x->feasible ? -1 : 1;
	if (x->feasible && x->worst_lat != y->worst_lat)
		return x->worst_lat < y->worst_lat ? -1 : 1;
	if (x->feasible && tune_changes(&x->set) != tune_changes(&y->set))	/* as tune_pick's ties */
		return tune_changes(&x->set) < tune_changes(&y->set) ? -1 : 1;
	if (x->feasible && x->worst_ratio != y->worst_ratio)
		return x->worst_ratio > y->worst_ratio ? -1 : 1;
	if (x->feasible && x->throughput_bps != y->throughput_bps)
		return x->throughput_bps > y->throughput_bps ? -1 : 1;
	if (!x->feasible && x->worst_ratio != y->worst_ratio)	/* closest to feasible first */
		return x->worst_ratio > y->worst_ratio ? -1 : 1;
	return *(const unsigned int *)a < *(const unsigned int *)b ? -1 : 1;
}

static const char *const cols[] = {
	"", "limit_min", "limit_max", "hold_time", "throughput", "of_default", "ring_p50",
	"ring_p99", "worst_p99", "worst_tput", "ok",
};
#define NCOLS	((int)(sizeof(cols) / sizeof(cols[0])))
#define SHOWN	5		/* candidates shown without -v */

static void row(struct tx *x, struct table *t, const struct tune_result *r, const char *mark)
{
	char a[32];

	if (table_row(t))
		return;
	table_cell(t, 0, "%s", mark);
	fmt_limit(a, sizeof(a), r->set.limit_min);
	table_cell(t, 1, "%s", a);
	fmt_limit(a, sizeof(a), r->set.limit_max);
	table_cell(t, 2, "%s", a);
	table_cell(t, 3, "%" PRIu32 " ms", r->set.hold_time);
	table_cell(t, 4, "%s", sim_fmt_rate(a, sizeof(a), r->throughput_bps));
	table_cell(t, 5, "%.1f%%", 100.0 * ratio(x, r));
	table_cell(t, 6, "%s", sim_fmt_ns(a, sizeof(a), r->p50));
	table_cell(t, 7, "%s", sim_fmt_ns(a, sizeof(a), r->p99));
	table_cell(t, 8, "%s", sim_fmt_ns(a, sizeof(a), r->worst_lat));
	table_cell(t, 9, "%.1f%%", 100.0 * r->worst_ratio);
	if (r->feasible || mark[0] == 'd')
		table_cell(t, 10, "yes");
	else if (r->short_margin)
		table_cell(t, 10, "no: margin");
	else if (r->margin_unmeasured)
		table_cell(t, 10, "no: margin?");
	else
		table_cell(t, 10, "no: [%d]", r->fail_member + 1);
}

/* a margin in the one human format: "420 us", "< 10 us", "> 5 ms" */
static char *fmt_held(char *buf, size_t n, const struct tune_margin *m)
{
	char a[32];

	if (m->beyond)
		snprintf(buf, n, "> %s", sim_fmt_ns(a, sizeof(a), TUNE_MARGIN_CEIL_NS));
	else if (!m->held_ns)
		snprintf(buf, n, "< %s", sim_fmt_ns(a, sizeof(a), tune_late_us[0] * 1000ull));
	else
		sim_fmt_ns(buf, n, m->held_ns);
	return buf;
}

const char *tx_late_why(const struct tx *x, char *buf, size_t n)
{
	const struct tune_engine *e = &x->eng;
	char a[32], b[32];

	switch (e->late_from) {
	case TUNE_LATE_HALF_DEFAULTS:
		if (e->margin[0].beyond)
			snprintf(buf, n, "half of the %s ceiling, which the defaults hold",
				 sim_fmt_ns(a, sizeof(a), TUNE_MARGIN_CEIL_NS));
		else
			snprintf(buf, n, "half of the %s the defaults hold",
				 fmt_held(a, sizeof(a), &e->margin[0]));
		break;
	case TUNE_LATE_MEASURED:
		snprintf(buf, n, "twice this host's measured interrupt delay, p99.9 %s",
			 sim_fmt_ns(a, sizeof(a), e->irq_measured_ns));
		break;
	case TUNE_LATE_GIVEN:
		snprintf(buf, n, "--margin");
		break;
	default:
		snprintf(buf, n, "the least checked: the defaults hold %s",
			 fmt_held(b, sizeof(b), &e->margin[0]));
		break;
	}
	return buf;
}

/*
 * The trade-off between latency and margin: settings that cut the latency
 * further (and how little lateness they take), the recommendation or the
 * best admissible, the defaults.
 */
static void text_frontier(struct tx *x)
{
	static const char *const fcols[] = {
		"", "limit_min", "limit_max", "hold_time", "p99", "worst_p99", "margin", "",
	};
	const struct tune_engine *e = &x->eng;
	struct bql_ctx *c = x->c;
	char a[32], b[160];
	struct table t;

	if (!e->nfrontier)
		return;
	sim_fmt_ns(a, sizeof(a), e->late_ns);
	out_text(c, "trade-off: %s on the model and the worst over the conditions, and how late interrupts may come before each setting starves the link; every setting must hold %s (%s):\n",
		 e->qdisc == TUNE_QDISC_FIFO ? "p99 qdisc + ring delay" : "p99 ring delay", a,
		 tx_late_why(x, b, sizeof(b)));
	table_init(&t, 8, 1u << 0 | 1u << 7, 2);
	if (!table_row(&t)) {
		for (int k = 0; k < 8; k++)
			table_cell(&t, k, "%s", fcols[k]);
		for (unsigned int i = 0; i < e->nfrontier; i++) {
			const struct tune_frontier *f = &e->frontier[i];

			if (table_row(&t))
				break;
			table_cell(&t, 0, "%s", f->kind == TUNE_FRONT_PICK ? "*" :
				   f->kind == TUNE_FRONT_DEFAULTS ? "default" : "");
			fmt_limit(a, sizeof(a), f->set.limit_min);
			table_cell(&t, 1, "%s", a);
			fmt_limit(a, sizeof(a), f->set.limit_max);
			table_cell(&t, 2, "%s", a);
			table_cell(&t, 3, "%" PRIu32 " ms", f->set.hold_time);
			table_cell(&t, 4, "%s", sim_fmt_ns(a, sizeof(a), f->lat));
			table_cell(&t, 5, "%s", sim_fmt_ns(a, sizeof(a), f->worst_lat));
			table_cell(&t, 6, "%s", fmt_held(a, sizeof(a), &f->margin));
			table_cell(&t, 7, "%s", f->kind == TUNE_FRONT_CUT ?
				   (!f->margin.beyond && f->margin.held_ns < e->late_ns ?
				    "short of the margin" : "starves in a condition") :
				   f->kind == TUNE_FRONT_BEST ? "best admissible" : "");
		}
		table_print(&t, c->out);
	}
	table_free(&t);
	out_nl(c);
}

static void text_answer(struct tx *x)
{
	struct bql_ctx *c = x->c;

	if (x->eng.pick < 0) {
		out_text(c, "keep the defaults: %s\n", x->reason);
	} else {
		out_text(c, "recommended (*): %s\n", x->reason);
		out_text(c, "  %s\n", x->command);
	}
	for (unsigned int i = 0; i < x->nwhy; i++)
		out_text(c, "%s %s\n", i ? "    " : "why:", x->why[i]);
	out_nl(c);
	text_frontier(x);
}

static void text_report(struct tx *x)
{
	const struct sim_config *cfg = &x->o.cfg;
	struct bql_ctx *c = x->c;
	char a[32], b[32], d[32], e[32], tr[1024];
	unsigned int *order, shown;
	struct table t;

	text_answer(x);
	out_text(c, "model: %s link, %u queue%s, ring %u, coalescing %u us / %u frames, TX budget %u, HZ %u, %s per run, seed %" PRIu64 ", qdisc %s%s\n",
		 sim_fmt_rate(a, sizeof(a), (double)cfg->link_bps), cfg->nqueues,
		 cfg->nqueues == 1 ? "" : "s", cfg->ring, cfg->coalesce_usecs, cfg->coalesce_frames,
		 cfg->napi_budget, cfg->hz, sim_fmt_ns(b, sizeof(b), cfg->duration_ns), cfg->seed,
		 x->eng.qdisc == TUNE_QDISC_FIFO ? "FIFO" : x->eng.qdisc == TUNE_QDISC_FQ ?
		 "flow-isolating" : "unknown (assumed flow-isolating)",
		 x->qdisc_given ? "" : "");
	out_text(c, "traffic: %s\n", sim_fmt_traffic(tr, sizeof(tr), cfg));
	if (x->fitted) {
		const struct tune_fitted *f = &x->fit;

		if (f->link_ok)
			out_text(c, "fitted from %s: link %s (over %" PRIu64 " busy intervals)", x->from,
				 sim_fmt_rate(a, sizeof(a), (double)f->link_bps), f->busy_intervals);
		else if (x->o.link_given)
			out_text(c, "fitted from %s: link rate not observable (--link %s)", x->from,
				 sim_fmt_rate(a, sizeof(a), (double)cfg->link_bps));
		else
			out_text(c, "fitted from %s: link rate not observable (assumed %s)", x->from,
				 sim_fmt_rate(a, sizeof(a), (double)cfg->link_bps));
		out_text(c, "; completions every %s (median) of %s -> coalesce-usecs %u; offered %s (%.0f%% of the link%s); ",
			 sim_fmt_ns(d, sizeof(d), f->gap_p50_ns),
			 units_fmt_bytes(e, sizeof(e), f->batch_p50), f->coalesce_usecs,
			 sim_fmt_rate(b, sizeof(b), f->offered_bps), f->load * 100,
			 f->bulk ? ": backlogged" : "");
		if (f->pkt_seen)
			out_text(c, "packets %" PRIu32 "..%" PRIu32 " bytes, mean %.0f%s", f->pkt_min,
				 f->pkt_max, f->pkt_mean, f->pkt_from == TUNE_PKT_LO ?
				 " (no Q records: the last packet queued before each completion, lo=)" : "");
		else
			out_text(c, "packet sizes not in the trace (no Q records): 1514 assumed");
		out_text(c, "; %u queue%s", f->nqueues, f->nqueues == 1 ? "" : "s");
		if (f->bursty)
			out_text(c, " (%u sending in bursts between silences: on/off)", f->bursty);
		out_text(c, "; HZ %u\n", f->hz);
		tx_text_fit(x);
	}
	if (x->from_device) {
		out_text(c, "device %s: ", x->dev);
		if (x->dev_mbps)
			out_text(c, "%" PRIu64 " Mbit/s", x->dev_mbps);
		else
			out_text(c, "link speed unknown");
		out_text(c, ", %u queue%s selected (read-only)", x->dev_queues,
			 x->dev_queues == 1 ? "" : "s");
		if (x->dev_info.mtu)
			out_text(c, ", MTU %u", x->dev_info.mtu);
		if (x->dev_has_ring)
			out_text(c, ", ring %u", x->dev_ring);
		if (x->dev_has_usecs)
			out_text(c, ", tx-usecs %u", x->dev_coal_usecs);
		if (x->dev_has_frames)
			out_text(c, ", tx-frames %u", x->dev_coal_frames);
		if (x->dev_info.qdisc_kind[0])
			out_text(c, ", qdisc %s", x->dev_info.qdisc_kind);
		if (!x->dev_has_ring || !x->dev_has_usecs)
			out_text(c, " (%s%s%s not reported%s%s: the model's default)",
				 x->dev_has_ring ? "" : "ring",
				 !x->dev_has_ring && !x->dev_has_usecs ? " and " : "",
				 x->dev_has_usecs ? "" : "tx-usecs",
				 x->dev_eth_note[0] ? ": " : "", x->dev_eth_note);
		out_nl(c);
	}
	if (x->eng.floor)
		out_text(c, "limit_max at least %" PRIu32 " bytes, %s of %s, below which check warns\n",
			 x->eng.floor, !strcmp(x->floor_rule, "limit-max-below-frame") ?
			 "one full-size frame (MTU + 14)" :
			 "one TX interrupt's worth at line rate (tx-usecs, tx-frames)",
			 x->floor_dev);
	out_text(c, "each setting is judged in %u conditions, each run at least %u hold times, throughput against the defaults' in the same:\n",
		 x->eng.nmem, TUNE_HOLDS);
	for (unsigned int i = 0; i < x->eng.nmem; i++) {
		char m[160];

		out_text(c, "  [%u] %s\n", i + 1,
			 tune_member_fmt(m, sizeof(m), cfg, &x->eng.mem[i]));
	}
	out_text(c, "baseline (kernel defaults: limit_min 0, limit_max max, hold_time 1000 ms): %s, ring delay p50 %s, p99 %s, worst p99 %s%s\n",
		 sim_fmt_rate(a, sizeof(a), x->eng.base.throughput_bps),
		 sim_fmt_ns(b, sizeof(b), x->eng.base.p50),
		 sim_fmt_ns(d, sizeof(d), x->eng.base.p99),
		 sim_fmt_ns(tr, sizeof(tr), x->eng.base.worst_lat),
		 x->eng.qdisc == TUNE_QDISC_FIFO ? " (qdisc + ring)" : "");
	shown = c->verbose || x->eng.nres <= SHOWN ? x->eng.nres : SHOWN;
	out_text(c, "%u candidates (%u in the sweep, %u refining), %u simulations, %u thread%s; %u shown%s; ok = throughput at least %.1f%% of the defaults' in every condition ([N]: the first it fails)\n\n",
		 x->eng.nres, x->eng.ncoarse, x->eng.nres - x->eng.ncoarse, x->eng.sims,
		 x->eng.threads,
		 x->eng.threads == 1 ? "" : "s", shown, shown < x->eng.nres ? " (-v: all)" : "",
		 x->eng.keep * 100);
	order = malloc((x->eng.nres ? x->eng.nres : 1) * sizeof(*order));
	table_init(&t, NCOLS, 1u << 0, 2);
	if (order && !table_row(&t)) {
		for (int k = 0; k < NCOLS; k++)
			table_cell(&t, k, "%s", cols[k]);
		row(x, &t, &x->eng.base, "default");
		for (unsigned int i = 0; i < x->eng.nres; i++)
			order[i] = i;
		qsort_r(order, x->eng.nres, sizeof(*order), cand_cmp, x->eng.res);
		for (unsigned int i = 0; i < shown; i++)
			row(x, &t, &x->eng.res[order[i]], (int)order[i] == x->eng.pick ? "*" : "");
		table_print(&t, c->out);
	}
	table_free(&t);
	free(order);
}

/* ------------------------------------------------------------ the advice */

/* "starves the link once interrupts are more than 23 us late" */
static void fmt_margin(char *buf, size_t n, const struct tune_margin *m, const char *verb_fail,
		       const char *verb_hold)
{
	char a[32];

	if (m->beyond)
		snprintf(buf, n, "%s with interrupts up to %u us late", verb_hold,
			 tune_late_us[TUNE_NLATE - 1]);
	else if (!m->held_ns)
		snprintf(buf, n, "%s already when interrupts come %u us late", verb_fail,
			 tune_late_us[0]);
	else
		snprintf(buf, n, "%s once interrupts are more than %s late", verb_fail,
			 sim_fmt_ns(a, sizeof(a), m->held_ns));
}

#define WHY(...) do { \
		if (x->nwhy < sizeof(x->why) / sizeof(x->why[0])) \
			snprintf(x->why[x->nwhy++], sizeof(x->why[0]), __VA_ARGS__); \
	} while (0)

/* the candidate that shows what would starve the link: the highest cap below @r's that failed */
static const struct tune_result *starving(const struct tx *x, const struct tune_result *r)
{
	const struct tune_result *s = NULL;

	for (unsigned int i = 0; i < x->eng.nres; i++) {
		const struct tune_result *c = &x->eng.res[i];

		if (c->feasible || c->set.limit_max >= r->set.limit_max)
			continue;
		if (!s || c->set.limit_max > s->set.limit_max ||
		    (c->set.limit_max == s->set.limit_max && c->set.hold_time == r->set.hold_time))
			s = c;
	}
	return s;
}

static void why_starve(struct tx *x, const struct tune_result *s, const char *lead)
{
	char a[32], m[160];

	fmt_limit(a, sizeof(a), s->set.limit_max);
	WHY("%s (limit_max %s, hold_time %" PRIu32 " ms) starves the link: %.1f%% of the defaults' throughput with %s",
	    lead, a, s->set.hold_time, 100 * s->worst_ratio,
	    tune_member_fmt(m, sizeof(m), &x->o.cfg, &x->eng.mem[s->worst_ratio_member]));
}

static void why_qdisc(struct tx *x, const struct tune_result *r)
{
	char a[32], b[32];

	if (x->eng.qdisc == TUNE_QDISC_FIFO)
		WHY("behind a FIFO qdisc a sparse flow waits for the qdisc's backlog (p99 %s) and the ring (p99 %s): a smaller limit moves the queue from the ring into the qdisc; a flow-isolating qdisc cuts the wait to the ring's (tc qdisc replace dev %s root fq_codel)",
		    sim_fmt_ns(a, sizeof(a), r->qdisc_p99), sim_fmt_ns(b, sizeof(b), r->p99),
		    x->from_device ? x->dev : "DEV");
	else if (x->eng.qdisc == TUNE_QDISC_FQ)
		WHY("behind a flow-isolating qdisc (fq_codel, fq, cake) a sparse flow waits for the ring only: the ring delay is the latency that counts");
	else
		WHY("the qdisc is not known (give --qdisc): assumed flow-isolating, as fq_codel, so that a sparse flow waits for the ring only; behind a FIFO the qdisc's backlog (p99 %s) adds to it",
		    sim_fmt_ns(a, sizeof(a), r->qdisc_p99));
}

/* the lower worst latency of two candidates short of the margin */
static bool better_short(const struct tune_result *a, const struct tune_result *b)
{
	return a->worst_lat < b->worst_lat;
}

/* the row of the frontier that cuts the latency most, if it cuts more than @than */
static const struct tune_frontier *lowest_cut(const struct tx *x, uint64_t than)
{
	const struct tune_engine *e = &x->eng;

	if (e->nfrontier && e->frontier[0].kind == TUNE_FRONT_CUT && e->frontier[0].worst_lat < than)
		return &e->frontier[0];
	return NULL;
}

/* what a lower latency would cost: the frontier's lowest, its margin against the required */
static void why_risk(struct tx *x, uint64_t than)
{
	const struct tune_frontier *f = lowest_cut(x, than);
	char a[32], b[32], d[32], m[48], r[32];

	if (!f)
		return;
	fmt_limit(d, sizeof(d), f->set.limit_max);
	WHY("a lower latency costs margin: limit_max %s (hold_time %" PRIu32 " ms) cuts the worst p99 to %s, and starves the link once interrupts are %s late, short of the %s required",
	    d, f->set.hold_time, sim_fmt_ns(a, sizeof(a), f->worst_lat),
	    f->margin.held_ns ? (snprintf(m, sizeof(m), "more than %s",
					  sim_fmt_ns(b, sizeof(b), f->margin.held_ns)), m) :
	    (snprintf(m, sizeof(m), "%s", sim_fmt_ns(b, sizeof(b), tune_late_us[0] * 1000ull)), m),
	    sim_fmt_ns(r, sizeof(r), x->eng.late_ns));
}

void tx_advise(struct tx *x)
{
	const struct tune_engine *e = &x->eng;
	const char *what = e->qdisc == TUNE_QDISC_FIFO ? "qdisc + ring delay" : "ring delay";
	const struct tune_margin *md = &e->margin[0], *mb = &e->margin[1];
	char a[32], b[32], d[32], l[32], m1[160], m2[160], lw[160];
	uint64_t min_ns = tune_min_gain_ns(&x->o.cfg);

	x->command[0] = '\0';
	x->nwhy = 0;
	sim_fmt_ns(l, sizeof(l), e->late_ns);
	tx_late_why(x, lw, sizeof(lw));
	if (e->pick < 0) {
		snprintf(x->reason, sizeof(x->reason),
			 "no setting that carries the link with interrupts %s late (%s) cuts the kernel defaults' worst p99 %s of %s by %.0f%% (and %s) with throughput within %.1f%% of theirs in each of %u conditions",
			 l, lw, what, sim_fmt_ns(a, sizeof(a), e->base.worst_lat), e->min_gain * 100,
			 sim_fmt_ns(b, sizeof(b), min_ns), (1 - e->keep) * 100, e->nmem);
		if (e->qdisc == TUNE_QDISC_FIFO && e->base.qdisc_p99 > e->base.p99)
			WHY("the qdisc, not BQL, holds the queue: behind a FIFO the p99 qdisc delay is %s against %s in the ring; change the qdisc (tc qdisc replace dev %s root fq_codel)",
			    sim_fmt_ns(a, sizeof(a), e->base.qdisc_p99),
			    sim_fmt_ns(b, sizeof(b), e->base.p99), x->from_device ? x->dev : "DEV");
		if (e->best >= 0 && !tune_is_default(&e->res[e->best].set) &&
		    e->res[e->best].worst_lat < e->base.worst_lat) {
			const struct tune_result *r = &e->res[e->best];
			uint64_t cut = e->base.worst_lat - r->worst_lat;

			fmt_limit(d, sizeof(d), r->set.limit_max);
			WHY("the best admissible setting (limit_min %" PRIu32 ", limit_max %s, hold_time %" PRIu32 " ms) would gain %s of worst p99 %s (%s -> %s, %.0f%%): less than the %.0f%% and %s a change must gain",
			    r->set.limit_min, d, r->set.hold_time, sim_fmt_ns(m1, sizeof(m1), cut),
			    what, sim_fmt_ns(a, sizeof(a), e->base.worst_lat),
			    sim_fmt_ns(b, sizeof(b), r->worst_lat),
			    100.0 * (double)cut / (double)e->base.worst_lat, e->min_gain * 100,
			    sim_fmt_ns(m2, sizeof(m2), min_ns));
		} else if (e->best >= 0) {
			WHY("no admissible setting cuts the worst p99 %s at all: the defaults are the best that holds the margin",
			    what);
		} else {
			/*
			 * every candidate failed somewhere: the margin's checks on
			 * the model, or a condition of the ensemble (the closest)
			 */
			const struct tune_result *c = NULL, *sh = NULL;

			for (unsigned int i = 0; i < e->nres; i++) {
				if (e->res[i].short_margin && (!sh || better_short(&e->res[i], sh)))
					sh = &e->res[i];
				if (!e->res[i].short_margin && !e->res[i].margin_unmeasured &&
				    (!c || e->res[i].worst_ratio > c->worst_ratio))
					c = &e->res[i];
			}
			if (sh) {
				fmt_limit(d, sizeof(d), sh->set.limit_max);
				WHY("%u setting%s kept the throughput in every condition but not on the model with interrupts %s late; the best of them (limit_max %s, hold_time %" PRIu32 " ms, worst p99 %s) holds %s",
				    e->nshort, e->nshort == 1 ? "" : "s", l, d, sh->set.hold_time,
				    sim_fmt_ns(a, sizeof(a), sh->worst_lat),
				    (snprintf(m2, sizeof(m2), "less than %s", l), m2));
			} else if (c) {
				why_starve(x, c, "every setting tried starves the link somewhere; the closest");
			}
		}
		why_risk(x, e->base.worst_lat);
		if (e->have_margin) {
			fmt_margin(m1, sizeof(m1), md, "starve the link", "hold");
			WHY("margin: the defaults %s", m1);
		}
		why_qdisc(x, &e->base);
		return;
	}
	{
		const struct tune_result *r = &e->res[e->pick];
		double lat_ns = (double)r->set.limit_max * 8e9 / (double)x->o.cfg.link_bps;

		snprintf(x->reason, sizeof(x->reason),
			 "worst p99 %s %s -> %s over %u conditions, throughput at least %.1f%% of the defaults' in each, interrupts up to %s late (%s) among them",
			 what, sim_fmt_ns(a, sizeof(a), e->base.worst_lat),
			 sim_fmt_ns(b, sizeof(b), r->worst_lat), e->nmem, 100 * r->worst_ratio, l, lw);
		snprintf(x->command, sizeof(x->command),
			 "bqltool set %s limit_min=%" PRIu32 " limit_max=%" PRIu32 " hold_time=%" PRIu32,
			 x->sel ? x->sel : "DEV", r->set.limit_min, r->set.limit_max, r->set.hold_time);
		if (r->set.limit_max != DQL_MAX_LIMIT && r->set.limit_max < e->base.peak_limit)
			WHY("the cap limits the ring delay: limit_max %s is %s of the link per queue, where the defaults let DQL grow to %s",
			    units_fmt_bytes(d, sizeof(d), r->set.limit_max),
			    sim_fmt_ns(a, sizeof(a), (uint64_t)lat_ns),
			    units_fmt_bytes(b, sizeof(b), e->base.peak_limit));
		else if (r->set.limit_max != DQL_MAX_LIMIT && r->set.limit_min)
			WHY("limit_min %s keeps the limit from shrinking below it between bursts; the cap, limit_max %s, is above the %s the defaults reach and binds only where late completions would inflate the limit",
			    units_fmt_bytes(a, sizeof(a), r->set.limit_min),
			    units_fmt_bytes(d, sizeof(d), r->set.limit_max),
			    units_fmt_bytes(b, sizeof(b), e->base.peak_limit));
		else if (r->set.limit_max != DQL_MAX_LIMIT)
			WHY("the cap, limit_max %s, is above the %s the defaults reach: it binds only where late completions or bursts would inflate the limit (peak %s, the defaults' %s over the conditions)",
			    units_fmt_bytes(d, sizeof(d), r->set.limit_max),
			    units_fmt_bytes(b, sizeof(b), e->base.peak_limit),
			    units_fmt_bytes(a, sizeof(a), r->peak_limit),
			    units_fmt_bytes(m1, sizeof(m1), e->base.peak_limit));
		else
			WHY("hold_time %" PRIu32 " ms lets DQL shrink the limit sooner after a stall or a burst has grown it: a mean limit of %s against the defaults' %s (both up to %s), with no cap to starve late interrupts",
			    r->set.hold_time, units_fmt_bytes(a, sizeof(a), (uint64_t)r->mean_limit),
			    units_fmt_bytes(b, sizeof(b), (uint64_t)e->base.mean_limit),
			    units_fmt_bytes(d, sizeof(d), r->peak_limit > e->base.peak_limit ?
					    r->peak_limit : e->base.peak_limit));
		{
			const struct tune_result *lo = starving(x, r);

			if (lo)
				why_starve(x, lo, "a lower cap");
		}
		why_risk(x, r->worst_lat);
		if (e->have_margin) {
			fmt_margin(m1, sizeof(m1), mb, "starves the link", "holds");
			fmt_margin(m2, sizeof(m2), md, "starve the link", "hold");
			WHY("margin: it %s; the defaults %s", m1, m2);
		}
		why_qdisc(x, r);
	}
}

int tx_report(struct tx *x)
{
	if (x->c->json)
		json_report(x);
	else
		text_report(x);
	return cmd_output_done(x->c, out_end(x->c));
}
