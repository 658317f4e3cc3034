// SPDX-License-Identifier: GPL-2.0-only
/* bqltool sim: the summary per queue and for the link, text or JSON. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include <json-c/json.h>

#include "cmd/cmd.h"
#include "cmd/sim.h"
#include "lib/io/out.h"
#include "lib/io/qname.h"
#include "lib/io/table.h"
#include "lib/io/units.h"

/*
 * A time in the transmit path as DESIGN.md has it everywhere: {"p50",
 * "p90", "p99", "max", "count"} in ns. A queue that sent nothing has
 * "count": 0 and no quantiles: unknown is absent, never a measured-looking 0.
 */
static void json_delay(struct bql_ctx *c, const char *key, const struct sim_hist *h)
{
	out_open_obj(c, key);
	if (h->n) {
		out_u64(c, OUT_JSON, "p50", NULL, sim_hist_quantile(h, 0.50));
		out_u64(c, OUT_JSON, "p90", NULL, sim_hist_quantile(h, 0.90));
		out_u64(c, OUT_JSON, "p99", NULL, sim_hist_quantile(h, 0.99));
		out_u64(c, OUT_JSON, "max", NULL, h->max);
	}
	out_u64(c, OUT_JSON, "count", NULL, h->n);
	out_close_obj(c);
}

/* the text of a quantile of @h (@q > 1: the maximum); "-" when it saw nothing */
static const char *text_delay(char *buf, size_t n, const struct sim_hist *h, double q)
{
	if (!h->n)
		return "-";
	return sim_fmt_ns(buf, n, q > 1 ? h->max : sim_hist_quantile(h, q));
}

static uint64_t rate_of(uint64_t bytes, uint64_t ns)
{
	return (uint64_t)llround((double)bytes * 8e9 / (double)ns);
}

static void json_queue(struct sx *x, unsigned int i)
{
	const struct sim_qstats *st = sim_queue_stats(x->s, i);
	const struct sim_config *cfg = &x->o.cfg;
	struct bql_ctx *c = x->c;

	out_open_obj(c, NULL);
	qname_out_trace(c, x->qname[i]);
	out_open_arr(c, "flows");
	for (unsigned int f = 0; f < cfg->nflows; f++)
		if (sim_flow_queue(cfg, f) == i)
			out_u64(c, OUT_JSON, NULL, NULL, f);
	out_close_arr(c);
	out_u64(c, OUT_JSON, "packets", NULL, st->packets);
	out_u64(c, OUT_JSON, "throughput_bps", NULL, rate_of(st->bytes_tx, cfg->duration_ns));
	out_u64(c, OUT_JSON, "starved_ns", NULL, st->starved_ns);
	json_delay(c, "ring_delay_ns", &st->ring_delay);
	json_delay(c, "qdisc_delay_ns", &st->qdisc_delay);
	out_open_obj(c, "limit");
	out_u64(c, OUT_JSON, "final", NULL, st->limit_final);
	if (st->completions) {
		out_u64(c, OUT_JSON, "min", NULL, st->limit_min);
		out_u64(c, OUT_JSON, "max", NULL, st->limit_max);
		out_dbl_fixed(c, "mean", st->limit_mean, 1);
	} else {
		out_null(c, "min");
		out_null(c, "max");
		out_null(c, "mean");
	}
	out_close_obj(c);
	out_u64(c, OUT_JSON, "stops", NULL, st->stops);
	out_u64(c, OUT_JSON, "ring_stops", NULL, st->ring_stops);
	out_u64(c, OUT_JSON, "completions", NULL, st->completions);
	out_u64(c, OUT_JSON, "packets_queued", NULL, st->packets_queued);
	out_u64(c, OUT_JSON, "bytes_queued", NULL, st->bytes_queued);
	out_u64(c, OUT_JSON, "bytes_completed", NULL, st->bytes_completed);
	out_u64(c, OUT_JSON, "inflight", NULL, st->inflight);
	out_u64(c, OUT_JSON, "drops", NULL, st->drops);
	out_u64(c, OUT_JSON, "stall_cnt", NULL, st->stall_cnt);
	out_u64(c, OUT_JSON, "stall_max", NULL, st->stall_max);
	out_close_obj(c);
}

static void json_summary(struct sx *x, const struct sim_totals *t)
{
	const struct sim_config *cfg = &x->o.cfg;
	struct bql_ctx *c = x->c;

	out_begin(c, false);
	out_u64(c, OUT_JSON, "link_bps", NULL, t->link_bps);
	out_u64(c, OUT_JSON, "duration_ns", NULL, t->duration_ns);
	out_u64(c, OUT_JSON, "seed", NULL, cfg->seed);
	out_u64(c, OUT_JSON, "hz", NULL, cfg->hz);
	out_str(c, OUT_JSON, "kernel", NULL, x->o.kernel ? x->o.kernel : "newest");
	out_u64(c, OUT_JSON, "throughput_bps", NULL, rate_of(t->bytes_tx, t->duration_ns));
	out_dbl_fixed(c, "utilization", t->utilization, 6);
	out_u64(c, OUT_JSON, "starved_ns", NULL, t->starved_ns);
	json_delay(c, "ring_delay_ns", t->ring_delay);
	json_delay(c, "qdisc_delay_ns", t->qdisc_delay);
	out_u64(c, OUT_JSON, "packets", NULL, t->packets);
	out_u64(c, OUT_JSON, "bytes_sent", NULL, t->bytes_tx);
	out_u64(c, OUT_JSON, "bytes_queued", NULL, t->bytes_queued);
	out_u64(c, OUT_JSON, "bytes_completed", NULL, t->bytes_completed);
	out_u64(c, OUT_JSON, "inflight", NULL, t->inflight);
	out_u64(c, OUT_JSON, "completions", NULL, t->completions);
	out_u64(c, OUT_JSON, "stops", NULL, t->stops);
	out_u64(c, OUT_JSON, "ring_stops", NULL, t->ring_stops);
	out_u64(c, OUT_JSON, "drops", NULL, t->drops);
	out_u64(c, OUT_JSON, "stall_cnt", NULL, t->stall_cnt);
	out_u64(c, OUT_JSON, "stall_max", NULL, t->stall_max);
	sim_opts_warnings_json(c, x->warn, x->nwarn);
	out_open_arr(c, "flows");
	for (unsigned int f = 0; f < cfg->nflows; f++) {
		out_open_obj(c, NULL);
		out_u64(c, OUT_JSON, "flow", NULL, f);
		/* the queue it is on, named as every queue object is */
		qname_out_trace(c, x->qname[sim_flow_queue(cfg, f)]);
		out_bool(c, OUT_JSON, "pinned", NULL, cfg->flows[f].pinned);
		out_close_obj(c);
	}
	out_close_arr(c);
	out_open_arr(c, "queues");
	for (unsigned int i = 0; i < cfg->nqueues; i++)
		json_queue(x, i);
	out_close_arr(c);
}

/*
 * The limit's columns are replay's (final, min, max, mean: the limit after
 * each completion, not the limit_min/limit_max settings), in the one human
 * format of bytes (units_fmt_bytes); -j has the bytes.
 */
static const char *const cols[] = {
	"queue", "flows", "throughput", "starved", "ring_p50", "ring_p99", "ring_max", "qdisc_p50",
	"qdisc_p99", "final", "min", "max", "mean", "stops", "completions",
	"inflight", "stalls",
};
#define NCOLS	((int)(sizeof(cols) / sizeof(cols[0])))

static void text_queues(struct sx *x)
{
	const struct sim_config *cfg = &x->o.cfg;
	char a[32], b[32], fl[SIM_MAX_FLOWS * 4 + 1];
	struct table t;

	table_init(&t, NCOLS, 1u << 0, 2);
	if (table_row(&t))
		return;
	for (int k = 0; k < NCOLS; k++)
		table_cell(&t, k, "%s", cols[k]);
	for (unsigned int i = 0; i < cfg->nqueues; i++) {
		const struct sim_qstats *st = sim_queue_stats(x->s, i);

		if (table_row(&t))
			break;
		table_cell(&t, 0, "%s", x->qname[i]);
		/* the flows' numbers, "#0,#2": a bare "0" would read as a count */
		fl[0] = '\0';
		for (unsigned int f = 0, n = 0; f < cfg->nflows && n + 5 < sizeof(fl); f++)
			if (sim_flow_queue(cfg, f) == i)
				n += (size_t)snprintf(fl + n, sizeof(fl) - n, "%s#%u", n ? "," : "", f);
		table_cell(&t, 1, "%s", fl[0] ? fl : "-");
		table_cell(&t, 2, "%s", sim_fmt_rate(a, sizeof(a),
			   (double)rate_of(st->bytes_tx, cfg->duration_ns)));
		table_cell(&t, 3, "%s", sim_fmt_ns(a, sizeof(a), st->starved_ns));
		table_cell(&t, 4, "%s", text_delay(a, sizeof(a), &st->ring_delay, 0.5));
		table_cell(&t, 5, "%s", text_delay(a, sizeof(a), &st->ring_delay, 0.99));
		table_cell(&t, 6, "%s", text_delay(a, sizeof(a), &st->ring_delay, 2));
		table_cell(&t, 7, "%s", text_delay(a, sizeof(a), &st->qdisc_delay, 0.5));
		table_cell(&t, 8, "%s", text_delay(a, sizeof(a), &st->qdisc_delay, 0.99));
		table_cell(&t, 9, "%s", units_fmt_bytes(a, sizeof(a), st->limit_final));
		if (st->completions) {
			table_cell(&t, 10, "%s", units_fmt_bytes(a, sizeof(a), st->limit_min));
			table_cell(&t, 11, "%s", units_fmt_bytes(a, sizeof(a), st->limit_max));
			table_cell(&t, 12, "%s", units_fmt_bytes(a, sizeof(a),
							     (uint64_t)(st->limit_mean + 0.5)));
		} else {
			table_cell(&t, 10, "-");
			table_cell(&t, 11, "-");
			table_cell(&t, 12, "-");
		}
		table_cell(&t, 13, "%" PRIu64, st->stops);
		table_cell(&t, 14, "%" PRIu64, st->completions);
		table_cell(&t, 15, "%s", units_fmt_bytes(a, sizeof(a), st->inflight));
		table_cell(&t, 16, "%" PRIu64 "/%s", st->stall_cnt,
			   units_fmt_ms(b, sizeof(b), dql_jiffies_to_msecs(st->stall_max, cfg->hz)));
	}
	table_print(&t, x->c->out);
	table_free(&t);
}

static void text_summary(struct sx *x, const struct sim_totals *t)
{
	const struct sim_config *cfg = &x->o.cfg;
	struct bql_ctx *c = x->c;
	char a[32], b[32], d[32], e[32], tr[1024];

	out_text(c, "sim: %s link, %u queue%s, %s simulated, seed %" PRIu64 ", HZ %u, kernel %s\n",
		 sim_fmt_rate(a, sizeof(a), (double)cfg->link_bps), cfg->nqueues,
		 cfg->nqueues == 1 ? "" : "s", sim_fmt_ns(b, sizeof(b), cfg->duration_ns),
		 cfg->seed, cfg->hz, x->o.kernel ? x->o.kernel : "newest");
	out_text(c, "traffic: %s\n", sim_fmt_traffic(tr, sizeof(tr), cfg));
	out_text(c, "link: %s, %.2f%% of the link; starved %s (idle while a qdisc had packets)\n",
		 sim_fmt_rate(a, sizeof(a), (double)rate_of(t->bytes_tx, t->duration_ns)),
		 t->utilization * 100, sim_fmt_ns(b, sizeof(b), t->starved_ns));
	out_text(c, "ring delay: p50 %s, p99 %s, max %s\n",
		 text_delay(a, sizeof(a), t->ring_delay, 0.5),
		 text_delay(b, sizeof(b), t->ring_delay, 0.99),
		 text_delay(d, sizeof(d), t->ring_delay, 2));
	out_text(c, "qdisc delay: p50 %s, p99 %s, max %s\n",
		 text_delay(a, sizeof(a), t->qdisc_delay, 0.5),
		 text_delay(b, sizeof(b), t->qdisc_delay, 0.99),
		 text_delay(d, sizeof(d), t->qdisc_delay, 2));
	out_text(c, "packets %" PRIu64 ", completions %" PRIu64 ", stops %" PRIu64
		 " (ring full %" PRIu64 "), drops %" PRIu64 "\n",
		 t->packets, t->completions, t->stops, t->ring_stops, t->drops);
	out_text(c, "bytes queued %s, completed %s, in flight %s; stalls %" PRIu64 ", longest %s\n",
		 units_fmt_bytes(a, sizeof(a), t->bytes_queued),
		 units_fmt_bytes(b, sizeof(b), t->bytes_completed),
		 units_fmt_bytes(d, sizeof(d), t->inflight), t->stall_cnt,
		 units_fmt_ms(e, sizeof(e), dql_jiffies_to_msecs(t->stall_max, cfg->hz)));
	out_nl(c);
	text_queues(x);
}

int sx_summary(struct sx *x)
{
	struct sim_totals t;

	sim_get_totals(x->s, &t);
	if (x->c->json)
		json_summary(x, &t);
	else
		text_summary(x, &t);
	return cmd_output_done(x->c, out_end(x->c));
}
