// SPDX-License-Identifier: GPL-2.0-only
/* bqltool tune: the report (model, candidates, choice, command), text or JSON. */
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
	return x->base.throughput_bps > 0 ? r->throughput_bps / x->base.throughput_bps : 1.0;
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
	/* sim's shape, {"p99": ...} under qdisc_delay_ns; the flat key is deprecated */
	out_open_obj(c, "qdisc_delay_ns");
	out_u64(c, OUT_JSON, "p99", NULL, r->qdisc_p99);
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
	if (x->floor) {
		out_open_obj(c, "limit_max_floor");
		out_u64(c, OUT_JSON, "bytes", NULL, x->floor);
		out_str(c, OUT_JSON, "ifname", NULL, x->floor_dev);
		out_str(c, OUT_JSON, "rule", NULL, x->floor_rule);
		out_close_obj(c);
	}
	out_open_obj(c, "qdisc");
	out_str(c, OUT_JSON, "kind", NULL, tune_qdisc_name(x->qdisc));
	out_bool(c, OUT_JSON, "given", NULL, x->qdisc_given);
	out_str(c, OUT_JSON, "latency", NULL,
		x->qdisc == TUNE_QDISC_FIFO ? "qdisc+ring" : "ring");
	out_close_obj(c);
	out_open_arr(c, "ensemble");
	for (unsigned int i = 0; i < x->nmem; i++) {
		const struct tune_member *m = &x->mem[i];
		char d[160];

		out_open_obj(c, NULL);
		out_str(c, OUT_JSON, "what", NULL, tune_member_fmt(d, sizeof(d), cfg, m));
		out_u64(c, OUT_JSON, "irq_late_ns", NULL, m->irq_late_ns);
		out_u64(c, OUT_JSON, "irq_jitter_ns", NULL, m->irq_jitter_ns);
		out_u64(c, OUT_JSON, "nqueues_busy", NULL, m->busy);
		out_s64(c, OUT_JSON, "load_pct", NULL, m->load_pct);
		out_u64(c, OUT_JSON, "seed", NULL, cfg->seed + m->seed_add);
		json_result(x, "defaults", &x->base_m[i]);
		out_close_obj(c);
	}
	out_close_arr(c);
	out_u64(c, OUT_JSON, "simulations", NULL, x->sims);
	out_u64(c, OUT_JSON, "work_events_planned", NULL, x->work);
	out_dbl_fixed(c, "keep", x->keep, 4);
	out_dbl_fixed(c, "min_gain", x->min_gain, 4);
	json_result(x, "baseline", &x->base);
	json_result(x, "recommended", x->pick < 0 ? &x->base : &x->res[x->pick]);
	out_bool(c, OUT_JSON, "keep_defaults", NULL, x->pick < 0);
	out_str(c, OUT_JSON, "reason", NULL, x->reason);
	out_str(c, OUT_JSON, "answer", NULL, x->pick < 0 ? "keep the defaults" : x->command);
	out_open_arr(c, "why");
	for (unsigned int i = 0; i < x->nwhy; i++)
		out_str(c, OUT_JSON, NULL, NULL, x->why[i]);
	out_close_arr(c);
	if (x->have_margin) {
		out_open_obj(c, "margin");
		json_margin(c, "defaults", &x->margin[0]);
		if (x->best >= 0)
			json_margin(c, x->pick < 0 ? "best" : "recommended", &x->margin[1]);
		out_close_obj(c);
	}
	out_open_arr(c, "candidates");
	for (unsigned int i = 0; i < x->nres; i++)
		json_result(x, NULL, &x->res[i]);
	out_close_arr(c);
	if (x->pick < 0)
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
	if (x->feasible && x->worst_ratio != y->worst_ratio)	/* as tune_pick's ties */
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
	else
		table_cell(t, 10, "no: [%d]", r->fail_member + 1);
}

static void text_answer(struct tx *x)
{
	struct bql_ctx *c = x->c;

	if (x->pick < 0) {
		out_text(c, "keep the defaults: %s\n", x->reason);
	} else {
		out_text(c, "recommended (*): %s\n", x->reason);
		out_text(c, "  %s\n", x->command);
	}
	for (unsigned int i = 0; i < x->nwhy; i++)
		out_text(c, "%s %s\n", i ? "    " : "why:", x->why[i]);
	out_nl(c);
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
		 x->qdisc == TUNE_QDISC_FIFO ? "FIFO" : x->qdisc == TUNE_QDISC_FQ ?
		 "flow-isolating" : "unknown (assumed flow-isolating)",
		 x->qdisc_given ? "" : "");
	out_text(c, "traffic: %s\n", sim_fmt_traffic(tr, sizeof(tr), cfg));
	if (x->fitted) {
		const struct tune_fitted *f = &x->fit;

		if (f->link_ok)
			out_text(c, "fitted from %s: link %s (over %" PRIu64 " busy intervals)", x->from,
				 sim_fmt_rate(a, sizeof(a), (double)f->link_bps), f->busy_intervals);
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
	if (x->floor)
		out_text(c, "limit_max at least %" PRIu32 " bytes, %s of %s, below which check warns\n",
			 x->floor, !strcmp(x->floor_rule, "limit-max-below-frame") ?
			 "one full-size frame (MTU + 14)" :
			 "one TX interrupt's worth at line rate (tx-usecs, tx-frames)",
			 x->floor_dev);
	out_text(c, "each setting is judged in %u conditions, each run at least %u hold times, throughput against the defaults' in the same:\n",
		 x->nmem, TUNE_HOLDS);
	for (unsigned int i = 0; i < x->nmem; i++) {
		char m[160];

		out_text(c, "  [%u] %s\n", i + 1, tune_member_fmt(m, sizeof(m), cfg, &x->mem[i]));
	}
	out_text(c, "baseline (kernel defaults: limit_min 0, limit_max max, hold_time 1000 ms): %s, ring delay p50 %s, p99 %s, worst p99 %s%s\n",
		 sim_fmt_rate(a, sizeof(a), x->base.throughput_bps),
		 sim_fmt_ns(b, sizeof(b), x->base.p50), sim_fmt_ns(d, sizeof(d), x->base.p99),
		 sim_fmt_ns(tr, sizeof(tr), x->base.worst_lat),
		 x->qdisc == TUNE_QDISC_FIFO ? " (qdisc + ring)" : "");
	shown = c->verbose || x->nres <= SHOWN ? x->nres : SHOWN;
	out_text(c, "%u candidates (%u in the sweep, %u refining), %u simulations, %u thread%s; %u shown%s; ok = throughput at least %.1f%% of the defaults' in every condition ([N]: the first it fails)\n\n",
		 x->nres, x->ncoarse, x->nres - x->ncoarse, x->sims, x->threads,
		 x->threads == 1 ? "" : "s", shown, shown < x->nres ? " (-v: all)" : "",
		 x->keep * 100);
	order = malloc((x->nres ? x->nres : 1) * sizeof(*order));
	table_init(&t, NCOLS, 1u << 0, 2);
	if (order && !table_row(&t)) {
		for (int k = 0; k < NCOLS; k++)
			table_cell(&t, k, "%s", cols[k]);
		row(x, &t, &x->base, "default");
		for (unsigned int i = 0; i < x->nres; i++)
			order[i] = i;
		qsort_r(order, x->nres, sizeof(*order), cand_cmp, x->res);
		for (unsigned int i = 0; i < shown; i++)
			row(x, &t, &x->res[order[i]], (int)order[i] == x->pick ? "*" : "");
		table_print(&t, c->out);
	}
	table_free(&t);
	free(order);
}

int tx_report(struct tx *x)
{
	if (x->c->json)
		json_report(x);
	else
		text_report(x);
	return cmd_output_done(x->c, out_end(x->c));
}
