// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool show [SEL...]: every selected TX queue's byte_queue_limits state,
 * with device context from rtnetlink and per-queue stats from netdev genl.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/common.h"
#include "lib/kernel/hz.h"
#include "lib/io/out.h"
#include "lib/io/qname.h"
#include "lib/model/snapshot.h"
#include "lib/io/table.h"
#include "lib/io/units.h"

enum show_format { FMT_TEXT, FMT_JSON, FMT_PROMETHEUS };

static void json_dev(struct bql_ctx *c, const struct snap_dev *d)
{
	bool has_stats = d->present & SD_STATS;
	const struct cmd_stat st[] = {
		{ "tx_bytes", d->tx_bytes, has_stats },
		{ "tx_packets", d->tx_packets, has_stats },
		{ "tx_errors", d->tx_errors, has_stats },
		{ "tx_dropped", d->tx_dropped, has_stats },
	};

	out_open_obj(c, NULL);
	out_str(c, OUT_JSON, "ifname", NULL, d->ifname);
	if (d->present & SD_IFINDEX)
		out_u64(c, OUT_JSON, "ifindex", NULL, (uint64_t)d->ifindex);
	if (d->present & SD_OPERSTATE)
		out_str(c, OUT_JSON, "operstate", NULL, d->operstate);
	if (d->present & SD_MTU)
		out_u64(c, OUT_JSON, "mtu", NULL, d->mtu);
	if (d->present & SD_TXQLEN)
		out_u64(c, OUT_JSON, "txqueuelen", NULL, d->txqlen);
	/*
	 * "qdisc" is an object wherever it is (a queue's, top -j's): here the
	 * root qdisc the link reports, by its kind (ip link's "qdisc")
	 */
	if (d->present & SD_QDISC) {
		out_open_obj(c, "qdisc");
		out_str(c, OUT_JSON, "kind", NULL, d->qdisc);
		out_close_obj(c);
	}
	out_u64(c, OUT_JSON, "num_tx_queues", NULL, d->ntx);
	if (d->present & SD_SPEED)
		out_u64(c, OUT_JSON, "speed", NULL, d->speed_mbps);
	cmd_json_stats(c, st, sizeof(st) / sizeof(st[0]));
	cmd_json_ring_coal(c, &d->ring, &d->coal);
	if (d->qd_shared)
		cmd_json_qdisc(c, "shared_qdisc", &d->qd);
	out_open_arr(c, "queues");
	for (unsigned int k = 0; k < d->nq; k++) {
		const struct snap_queue *q = &d->q[k];
		/* netdev qstats, nested as the device's counters are */
		const struct cmd_stat qst[] = {
			{ "tx_bytes", q->tx_bytes, q->qs_present & SQ_TX_BYTES },
			{ "tx_packets", q->tx_packets, q->qs_present & SQ_TX_PACKETS },
			{ "tx_stop", q->tx_stop, q->qs_present & SQ_TX_STOP },
			{ "tx_wake", q->tx_wake, q->qs_present & SQ_TX_WAKE },
			{ "tx_hw_drops", q->tx_hw_drops, q->qs_present & SQ_TX_HW_DROPS },
		};

		out_open_obj(c, NULL);
		qname_out_queue(c, d->ifname, q->bql.index);
		for (int a = 0; a < BQL_ATTR_NR; a++)
			if (bql_has(&q->bql, a))
				out_u64(c, OUT_JSON, bql_attrs[a].name, NULL, q->bql.val[a]);
		cmd_json_stats(c, qst, sizeof(qst) / sizeof(qst[0]));
		if (q->qd_scope == BNL_QD_QUEUE)
			cmd_json_qdisc(c, "qdisc", &q->qd);
		out_close_obj(c);
	}
	out_close_arr(c);
	out_close_obj(c);
}

/* One text cell per attribute in human units; the limit also as wire time. */
/* "180 KiB", or "180 KiB = 1.47 ms" where the link speed is known */
static const char *sized(char *buf, size_t n, uint64_t bytes, const struct snap_dev *d)
{
	char b[32], w[32];

	units_fmt_bytes(b, sizeof(b), bytes);
	if (d->present & SD_SPEED)
		snprintf(buf, n, "%s = %s", b, units_fmt_wire(w, sizeof(w), bytes, d->speed_mbps));
	else
		snprintf(buf, n, "%s", b);
	return buf;
}

static void text_attr(char *buf, size_t n, enum bql_attr a, uint64_t v,
		      const struct snap_dev *d, unsigned int hz)
{
	if (a != BQL_LIMIT || !(d->present & SD_SPEED))
		bql_fmt_human(buf, n, a, v, hz);
	else
		sized(buf, n, v, d);
}

/*
 * "ring tx 256 (max 256) = 3.1 ms  coalesce tx-usecs 0 tx-frames 1": what the
 * driver reports, in ethtool's words; the ring as time on the wire of
 * MTU-sized frames where the speed is known
 */
static void text_ring_coal(struct bql_ctx *c, const struct snap_dev *d)
{
	const struct bnl_coal *k = &d->coal;
	char w[32];

	if (!d->ring.present && !k->present)
		return;
	out_text(c, "   ");
	if (d->ring.present & BNL_RING_TX) {
		out_text(c, " ring tx %u", d->ring.tx);
		if (d->ring.present & BNL_RING_TX_MAX)
			out_text(c, " (max %u)", d->ring.tx_max);
		if ((d->present & SD_SPEED) && (d->present & SD_MTU))
			out_text(c, " = %s", units_fmt_wire(w, sizeof(w),
				 (uint64_t)d->ring.tx * (d->mtu + 14), d->speed_mbps));
	}
	if (k->present) {
		out_text(c, "  coalesce");
		for (int i = 0; i < BNL_COAL_NFIELDS; i++) {
			const struct bnl_coal_field *f = &bnl_coal_fields[i];
			uint32_t v = bnl_coal_value(k, f);

			if (!(k->present & f->bit))
				continue;
			if (f->boolean)
				out_text(c, " %s %s", f->word, v ? "on" : "off");
			else
				out_text(c, " %s %u", f->word, v);
		}
	}
	out_nl(c);
}

static void text_dev_header(struct bql_ctx *c, const struct snap_dev *d)
{
	char b1[32], b2[32];

	out_color(c, "\033[1m");
	out_text(c, "%s", d->ifname);
	out_color(c, "\033[0m");
	out_text(c, ":");
	if (d->present & SD_IFINDEX)
		out_text(c, " ifindex %d", d->ifindex);
	if (d->present & SD_OPERSTATE) {
		const char *col = !strcmp(d->operstate, "up") ? "\033[32m" :
				  !strcmp(d->operstate, "down") ? "\033[31m" : NULL;

		out_text(c, " state ");
		out_color(c, col);
		out_text(c, "%s", d->operstate);
		if (col)
			out_color(c, "\033[0m");
	}
	if (d->present & SD_MTU)
		out_text(c, " mtu %u", d->mtu);
	if (d->present & SD_TXQLEN)
		out_text(c, " qlen %u", d->txqlen);
	if (d->present & SD_QDISC)
		out_text(c, " qdisc %s", d->qdisc);
	if (d->present & SD_SPEED)
		out_text(c, " speed %" PRIu64 "Mb/s", d->speed_mbps);
	out_text(c, " txqueues %u", d->ntx);
	out_nl(c);
	if (d->present & SD_STATS)
		out_text(c, "    tx: %s  %" PRIu64 " packets  %" PRIu64 " errors  %" PRIu64
			 " dropped\n", units_fmt_bytes(b1, sizeof(b1), d->tx_bytes),
			 d->tx_packets, d->tx_errors, d->tx_dropped);
	text_ring_coal(c, d);
	(void)b2;
}

static void text_qdisc_line(struct bql_ctx *c, const struct bnl_qdisc *q,
			    const struct snap_dev *d)
{
	char h1[16], h2[16], b[64], s1[32];

	out_text(c, "    qdisc %s %s parent %s (all %u queues): backlog %s (%" PRIu64 " pkts)  "
		 "drops %" PRIu64 "  requeues %" PRIu64 "  overlimits %" PRIu64 "  sent %s\n",
		 q->kind, bnl_tc_handle_str(q->handle, h1, sizeof(h1)),
		 bnl_tc_handle_str(q->parent, h2, sizeof(h2)), d->ntx, sized(b, sizeof(b), q->backlog, d),
		 q->qlen, q->drops, q->requeues, q->overlimits,
		 units_fmt_bytes(s1, sizeof(s1), q->bytes));
}

/*
 * The transmit path per queue: what waits in the qdisc that feeds it, what
 * BQL lets into the ring (as time on the wire where the speed is known).
 */
static int text_path(struct bql_ctx *c, const struct snap_dev *d)
{
	struct table t;
	bool any = false;
	char b[64], h1[16], h2[16];

	for (unsigned int k = 0; k < d->nq; k++)
		any |= d->q[k].qd_scope == BNL_QD_QUEUE;
	if (!any)
		return 0;
	table_init(&t, 9, 1u << 0 | 1u << 1, 4);
	if (table_row(&t))
		return -1;
	table_cell(&t, 0, "queue");
	table_cell(&t, 1, "qdisc");
	table_cell(&t, 2, "backlog");
	table_cell(&t, 3, "qlen");
	table_cell(&t, 4, "drops");
	table_cell(&t, 5, "requeues");
	table_cell(&t, 6, "overlimits");
	table_cell(&t, 7, "sent");
	table_cell(&t, 8, "bql inflight / limit");
	for (unsigned int k = 0; k < d->nq; k++) {
		const struct snap_queue *q = &d->q[k];
		char in[64];

		if (q->qd_scope != BNL_QD_QUEUE)
			continue;
		if (table_row(&t)) {
			table_free(&t);
			return -1;
		}
		table_cell(&t, 0, "tx-%u", q->bql.index);
		table_cell(&t, 1, "%s %s %s", q->qd.kind, bnl_tc_handle_str(q->qd.handle, h1, sizeof(h1)),
			   bnl_tc_handle_str(q->qd.parent, h2, sizeof(h2)));
		table_cell(&t, 2, "%s", sized(b, sizeof(b), q->qd.backlog, d));
		table_cell(&t, 3, "%" PRIu64, q->qd.qlen);
		table_cell(&t, 4, "%" PRIu64, q->qd.drops);
		table_cell(&t, 5, "%" PRIu64, q->qd.requeues);
		table_cell(&t, 6, "%" PRIu64, q->qd.overlimits);
		table_cell(&t, 7, "%s", units_fmt_bytes(b, sizeof(b), q->qd.bytes));
		if (bql_has(&q->bql, BQL_INFLIGHT) && bql_has(&q->bql, BQL_LIMIT))
			table_cell(&t, 8, "%s / %s", sized(in, sizeof(in), q->bql.val[BQL_INFLIGHT], d),
				   units_fmt_bytes(b, sizeof(b), q->bql.val[BQL_LIMIT]));
	}
	table_print(&t, c->out);
	table_free(&t);
	return 0;
}

static int text_dev(struct bql_ctx *c, const struct snap_dev *d, unsigned int hz)
{
	static const char *const qs_names[] = { "tx_packets", "tx_bytes", "tx_stop", "tx_wake" };
	struct table t;
	int ret = 0;

	text_dev_header(c, d);
	table_init(&t, 1 + BQL_ATTR_NR + 4, 1u << 0, 4);
	if (table_row(&t))
		return -1;
	table_cell(&t, 0, "queue");
	for (int a = 0; a < BQL_ATTR_NR; a++)
		table_cell(&t, 1 + a, "%s", bql_attrs[a].name);
	for (int i = 0; i < 4; i++)
		table_cell(&t, 1 + BQL_ATTR_NR + i, "%s", qs_names[i]);
	for (unsigned int k = 0; k < d->nq; k++) {
		const struct snap_queue *q = &d->q[k];
		char buf[48];

		if (table_row(&t)) {
			table_free(&t);
			return -1;	/* nothing of the table printed */
		}
		table_cell(&t, 0, "tx-%u", q->bql.index);
		for (int a = 0; a < BQL_ATTR_NR; a++) {
			if (!bql_has(&q->bql, a))
				continue;
			text_attr(buf, sizeof(buf), a, q->bql.val[a], d, hz);
			table_cell(&t, 1 + a, "%s", buf);
		}
		if (q->qs_present & SQ_TX_PACKETS)
			table_cell(&t, 1 + BQL_ATTR_NR, "%" PRIu64, q->tx_packets);
		if (q->qs_present & SQ_TX_BYTES)
			table_cell(&t, 2 + BQL_ATTR_NR, "%s",
				   units_fmt_bytes(buf, sizeof(buf), q->tx_bytes));
		if (q->qs_present & SQ_TX_STOP)
			table_cell(&t, 3 + BQL_ATTR_NR, "%" PRIu64, q->tx_stop);
		if (q->qs_present & SQ_TX_WAKE)
			table_cell(&t, 4 + BQL_ATTR_NR, "%" PRIu64, q->tx_wake);
	}
	table_drop_empty(&t, 1);
	table_print(&t, c->out);
	table_free(&t);
	if (d->qd_shared)
		text_qdisc_line(c, &d->qd, d);
	return ret ? ret : text_path(c, d);
}

static int show_run(struct bql_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	enum show_format fmt = c->json ? FMT_JSON : FMT_TEXT;
	bool fmt_given = false;
	struct cmd_state st;
	const struct hz_info *hz;
	int opt, ret;

	while ((opt = cmd_getopt(c, argc, argv, ":f:", opts)) != -1) {
		switch (opt) {
		case 'f':
			fmt_given = true;
			if (!strcmp(optarg, "text"))
				fmt = FMT_TEXT;
			else if (!strcmp(optarg, "json"))
				fmt = FMT_JSON;
			else if (!strcmp(optarg, "prometheus"))
				fmt = FMT_PROMETHEUS;
			else
				return cmd_usage(c, "--format: unknown format '%s' (text, json, prometheus)",
						 optarg);
			break;
		default:
			return cmd_bad_option(c, opt, argv);
		}
	}
	if (fmt_given && fmt != FMT_JSON && c->json)
		return cmd_usage(c, "--format %s and -j/-p exclude each other",
				 fmt == FMT_TEXT ? "text" : "prometheus");
	if (fmt == FMT_JSON)
		c->json = true;
	ret = cmd_collect(c, argc - optind, argv + optind, &st);
	if (ret)
		return ret;
	hz = hz_get();
	if (fmt == FMT_PROMETHEUS) {
		int err;

		errno = 0;
		ret = cmd_print_prometheus(c, &st.snap);
		err = errno ? errno : EIO;
		cmd_state_free(&st);
		/* it does not say what failed: standard output did */
		return ret ? cmd_output_done(c, -err) : BQL_EXIT_OK;
	}
	if (!st.snap.n && !c->json)
		cmd_warn(c, "no network device with byte queue limits found");
	out_begin(c, true);
	for (size_t i = 0; i < st.snap.n; i++) {
		if (c->json) {
			json_dev(c, &st.snap.dev[i]);
			continue;
		}
		if (i)
			out_nl(c);
		if (text_dev(c, &st.snap.dev[i], hz->hz)) {
			cmd_state_free(&st);
			return cmd_fail(c, "out of memory building the table");
		}
	}
	ret = out_end(c);
	cmd_state_free(&st);
	return cmd_output_done(c, ret);
}

const struct cmd_entry cmd_show_entry = {
	.name = "show",
	.synopsis = "show [--format text|json|prometheus] [SEL...]",
	.summary = "Show the BQL state of TX queues with device context",
	.help = "  -f, --format FMT   text (default), json (same as -j) or prometheus\n"
		"\nColumns are the sysfs files of byte_queue_limits, in human units; JSON keeps\n"
		"sysfs units (bytes, ms; stall_max in jiffies). Where the link speed is known,\n"
		"the limit is also shown as time on the wire.\n",
	.flags = CMD_NEEDS_NL,
	.run = show_run,
};
