// SPDX-License-Identifier: GPL-2.0-only
/* bqltool tune: the report (model, candidates, choice, command), text or JSON. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "cmd/cmd.h"
#include "cmd/tune.h"
#include "dql/dql.h"
#include "lib/out.h"
#include "lib/table.h"

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
	out_dbl_fixed(c, "throughput_ratio",
		 x->base.bytes_tx ? (double)r->bytes_tx / (double)x->base.bytes_tx : 1.0, 4);
	out_open_obj(c, "ring_delay_ns");
	out_u64(c, OUT_JSON, "p50", NULL, r->p50);
	out_u64(c, OUT_JSON, "p99", NULL, r->p99);
	out_u64(c, OUT_JSON, "max", NULL, r->max);
	out_close_obj(c);
	out_u64(c, OUT_JSON, "starved_ns", NULL, r->starved_ns);
	out_u64(c, OUT_JSON, "peak_limit", NULL, r->peak_limit);
	if (key == NULL)
		out_bool(c, OUT_JSON, "feasible", NULL, r->feasible);
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
	out_u64(c, OUT_JSON, "queues", NULL, cfg->nqueues);
	out_str(c, OUT_JSON, "traffic", NULL, sim_fmt_traffic(tr, sizeof(tr), cfg));
	out_u64(c, OUT_JSON, "ring", NULL, cfg->ring);
	out_u64(c, OUT_JSON, "coalesce_usecs", NULL, cfg->coalesce_usecs);
	out_u64(c, OUT_JSON, "coalesce_frames", NULL, cfg->coalesce_frames);
	out_u64(c, OUT_JSON, "napi_budget", NULL, cfg->napi_budget);
	out_u64(c, OUT_JSON, "hz", NULL, cfg->hz);
	out_u64(c, OUT_JSON, "duration_ns", NULL, cfg->duration_ns);
	out_u64(c, OUT_JSON, "seed", NULL, cfg->seed);
	out_close_obj(c);
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
		out_u64(c, OUT_JSON, "queues", NULL, f->nqueues);
		out_bool(c, OUT_JSON, "packet_sizes_seen", NULL, f->pkt_seen);
		out_u64(c, OUT_JSON, "packet_min", NULL, f->pkt_min);
		out_u64(c, OUT_JSON, "packet_max", NULL, f->pkt_max);
		out_dbl_fixed(c, "packet_mean", f->pkt_mean, 1);
		out_u64(c, OUT_JSON, "duration_ns", NULL, f->duration_ns);
		out_u64(c, OUT_JSON, "hz", NULL, f->hz);
		out_u64(c, OUT_JSON, "completions", NULL, f->completions);
		out_u64(c, OUT_JSON, "busy_periods", NULL, f->busy_periods);
		out_dbl_fixed(c, "busy_fraction", f->busy_frac, 4);
		out_u64(c, OUT_JSON, "busy_queues", NULL, f->busy_queues);
		out_u64(c, OUT_JSON, "active_queues", NULL, f->active);
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
		out_u64(c, OUT_JSON, "queues", NULL, x->dev_queues);
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
	out_dbl_fixed(c, "keep", x->keep, 4);
	out_dbl_fixed(c, "min_gain", x->min_gain, 4);
	json_result(x, "baseline", &x->base);
	json_result(x, "recommended", x->pick < 0 ? &x->base : &x->res[x->pick]);
	out_bool(c, OUT_JSON, "keep_defaults", NULL, x->pick < 0);
	out_str(c, OUT_JSON, "reason", NULL, x->reason);
	out_open_arr(c, "candidates");
	for (unsigned int i = 0; i < x->nres; i++)
		json_result(x, NULL, &x->res[i]);
	out_close_arr(c);
	if (x->pick < 0)
		out_null(c, "command");
	else
		out_str(c, OUT_JSON, "command", NULL, x->command);
}

static void fmt_limit(char *buf, size_t n, uint32_t v)
{
	if (v == DQL_MAX_LIMIT)
		snprintf(buf, n, "max");
	else
		snprintf(buf, n, "%" PRIu32, v);
}

/* the candidates, best p99 first among the feasible, then the others */
static int cand_cmp(const void *a, const void *b, void *arg)
{
	const struct tune_result *r = arg;
	const struct tune_result *x = &r[*(const unsigned int *)a], *y = &r[*(const unsigned int *)b];

	if (x->feasible != y->feasible)
		return x->feasible ? -1 : 1;
	if (x->p99 != y->p99)
		return x->p99 < y->p99 ? -1 : 1;
	return *(const unsigned int *)a < *(const unsigned int *)b ? -1 : 1;
}

static const char *const cols[] = {
	"", "limit_min", "limit_max", "hold_time", "throughput", "of_default", "ring_p50",
	"ring_p99", "ring_max", "starved", "ok",
};
#define NCOLS	((int)(sizeof(cols) / sizeof(cols[0])))

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
	table_cell(t, 5, "%.1f%%", x->base.bytes_tx ?
		   100.0 * (double)r->bytes_tx / (double)x->base.bytes_tx : 100.0);
	table_cell(t, 6, "%s", sim_fmt_ns(a, sizeof(a), r->p50));
	table_cell(t, 7, "%s", sim_fmt_ns(a, sizeof(a), r->p99));
	table_cell(t, 8, "%s", sim_fmt_ns(a, sizeof(a), r->max));
	table_cell(t, 9, "%s", sim_fmt_ns(a, sizeof(a), r->starved_ns));
	table_cell(t, 10, "%s", r->feasible ? "yes" : "no");
}

static void text_report(struct tx *x)
{
	const struct sim_config *cfg = &x->o.cfg;
	struct bql_ctx *c = x->c;
	char a[32], b[32], d[32], tr[1024];
	unsigned int *order;
	struct table t;

	out_text(c, "model: %s link, %u queue%s, ring %u, coalescing %u us / %u frames, TX budget %u, HZ %u, %s per run, seed %" PRIu64 "\n",
		 sim_fmt_rate(a, sizeof(a), (double)cfg->link_bps), cfg->nqueues,
		 cfg->nqueues == 1 ? "" : "s", cfg->ring, cfg->coalesce_usecs, cfg->coalesce_frames,
		 cfg->napi_budget, cfg->hz, sim_fmt_ns(b, sizeof(b), cfg->duration_ns), cfg->seed);
	out_text(c, "traffic: %s\n", sim_fmt_traffic(tr, sizeof(tr), cfg));
	if (x->fitted) {
		const struct tune_fitted *f = &x->fit;

		if (f->link_ok)
			out_text(c, "fitted from %s: link %s (over %" PRIu64 " busy intervals)", x->from,
				 sim_fmt_rate(a, sizeof(a), (double)f->link_bps), f->busy_intervals);
		else
			out_text(c, "fitted from %s: link rate not observable (assumed %s)", x->from,
				 sim_fmt_rate(a, sizeof(a), (double)cfg->link_bps));
		out_text(c, "; completions every %s (median) of %" PRIu64 " bytes -> coalesce-usecs %u; offered %s (%.0f%% of the link%s); ",
			 sim_fmt_ns(d, sizeof(d), f->gap_p50_ns), f->batch_p50, f->coalesce_usecs,
			 sim_fmt_rate(b, sizeof(b), f->offered_bps), f->load * 100,
			 f->bulk ? ": backlogged" : "");
		if (f->pkt_seen)
			out_text(c, "packets %" PRIu32 "..%" PRIu32 " bytes, mean %.0f", f->pkt_min,
				 f->pkt_max, f->pkt_mean);
		else
			out_text(c, "packet sizes not in the trace (no Q records): 1514 assumed");
		out_text(c, "; %u queue%s; HZ %u\n", f->nqueues, f->nqueues == 1 ? "" : "s", f->hz);
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
	out_text(c, "baseline (kernel defaults: limit_min 0, limit_max max, hold_time 1000 ms): %s, ring delay p50 %s, p99 %s\n",
		 sim_fmt_rate(a, sizeof(a), x->base.throughput_bps),
		 sim_fmt_ns(b, sizeof(b), x->base.p50), sim_fmt_ns(d, sizeof(d), x->base.p99));
	out_text(c, "%u candidates (%u in the sweep, %u refining), %u thread%s; ok = throughput at least %.1f%% of the baseline's\n\n",
		 x->nres, x->ncoarse, x->nres - x->ncoarse, x->threads, x->threads == 1 ? "" : "s",
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
		for (unsigned int i = 0; i < x->nres; i++)
			row(x, &t, &x->res[order[i]], (int)order[i] == x->pick ? "*" : "");
		table_print(&t, c->out);
	}
	table_free(&t);
	free(order);
	if (x->pick < 0) {
		out_text(c, "\nkeep the defaults: %s\n", x->reason);
	} else {
		out_text(c, "\nrecommended (*): %s\n", x->reason);
		out_text(c, "  %s\n", x->command);
	}
}

int tx_report(struct tx *x)
{
	if (x->c->json)
		json_report(x);
	else
		text_report(x);
	if (out_end(x->c) < 0)
		return cmd_fail(x->c, "write error on standard output");
	return 0;
}
