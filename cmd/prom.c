// SPDX-License-Identifier: GPL-2.0-only
/*
 * Prometheus text exposition of a snapshot (show --format prometheus and
 * export --textfile): base units, HELP/TYPE per family, no timestamps.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/common.h"
#include "dql/dql.h"
#include "dql/lathist.h"
#include "lib/io/esc.h"
#include "lib/kernel/hz.h"
#include "lib/kernel/latbpf.h"

enum prom_src {
	SRC_RAW,	/* the sysfs value as is (bytes, count) */
	SRC_MS,		/* sysfs ms -> seconds */
	SRC_JIFFIES,	/* sysfs jiffies -> seconds with the kernel HZ */
	SRC_QSTAT,	/* a netdev qstats counter */
	SRC_QDISC,	/* a counter of the qdisc that feeds the queue alone */
};

/* which counter of struct bnl_qdisc (SRC_QDISC) */
enum { QD_BACKLOG, QD_QLEN, QD_BYTES, QD_PACKETS, QD_DROPS, QD_REQUEUES, QD_OVERLIMITS };

struct prom_family {
	const char *name;
	const char *type;	/* "gauge" or "counter" */
	enum prom_src src;
	int attr;		/* enum bql_attr, or SQ_* bit for SRC_QSTAT */
	const char *help;
};

static const struct prom_family families[] = {
	{ "bql_limit_bytes", "gauge", SRC_RAW, BQL_LIMIT,
	  "Current BQL limit of the TX queue in bytes (sysfs limit)." },
	{ "bql_limit_min_bytes", "gauge", SRC_RAW, BQL_LIMIT_MIN,
	  "Lower bound of the BQL limit in bytes (sysfs limit_min)." },
	{ "bql_limit_max_bytes", "gauge", SRC_RAW, BQL_LIMIT_MAX,
	  "Upper bound of the BQL limit in bytes (sysfs limit_max)." },
	{ "bql_hold_time_seconds", "gauge", SRC_MS, BQL_HOLD_TIME,
	  "Time over which the BQL limit may shrink (sysfs hold_time)." },
	{ "bql_inflight_bytes", "gauge", SRC_RAW, BQL_INFLIGHT,
	  "Bytes queued to the device and not yet completed (sysfs inflight)." },
	{ "bql_stall_threshold_seconds", "gauge", SRC_MS, BQL_STALL_THRS,
	  "Stall detector threshold, 0 when the detector is off (sysfs stall_thrs)." },
	{ "bql_stall_events_total", "counter", SRC_RAW, BQL_STALL_CNT,
	  "Stalls detected by the BQL stall detector (sysfs stall_cnt)." },
	{ "bql_stall_max_seconds", "gauge", SRC_JIFFIES, BQL_STALL_MAX,
	  "Longest stall detected (sysfs stall_max, jiffies converted with the kernel HZ)." },
	{ "bql_queue_tx_bytes_total", "counter", SRC_QSTAT, SQ_TX_BYTES,
	  "Bytes sent on the TX queue (netdev qstats, since the queue was last reconfigured)." },
	{ "bql_queue_tx_packets_total", "counter", SRC_QSTAT, SQ_TX_PACKETS,
	  "Packets sent on the TX queue (netdev qstats, since the queue was last reconfigured)." },
	{ "bql_queue_tx_stop_total", "counter", SRC_QSTAT, SQ_TX_STOP,
	  "Times the driver stopped the TX queue because it was full (netdev qstats)." },
	{ "bql_queue_tx_wake_total", "counter", SRC_QSTAT, SQ_TX_WAKE,
	  "Times the driver woke the TX queue (netdev qstats)." },
	{ "bql_queue_tx_hw_drops_total", "counter", SRC_QSTAT, SQ_TX_HW_DROPS,
	  "Packets dropped by the device on the TX queue (netdev qstats)." },
	{ "bql_qdisc_backlog_bytes", "gauge", SRC_QDISC, QD_BACKLOG,
	  "Bytes waiting in the qdisc that feeds the TX queue (tc backlog)." },
	{ "bql_qdisc_backlog_packets", "gauge", SRC_QDISC, QD_QLEN,
	  "Packets waiting in the qdisc that feeds the TX queue (tc qlen)." },
	{ "bql_qdisc_sent_bytes_total", "counter", SRC_QDISC, QD_BYTES,
	  "Bytes sent by the qdisc that feeds the TX queue." },
	{ "bql_qdisc_sent_packets_total", "counter", SRC_QDISC, QD_PACKETS,
	  "Packets sent by the qdisc that feeds the TX queue." },
	{ "bql_qdisc_drops_total", "counter", SRC_QDISC, QD_DROPS,
	  "Packets dropped by the qdisc that feeds the TX queue." },
	{ "bql_qdisc_requeues_total", "counter", SRC_QDISC, QD_REQUEUES,
	  "Packets requeued by the qdisc that feeds the TX queue (the driver was busy)." },
	{ "bql_qdisc_overlimits_total", "counter", SRC_QDISC, QD_OVERLIMITS,
	  "Overlimit events of the qdisc that feeds the TX queue." },
};

/*
 * @v units of 1/@per second (@per 1000 or 1000000) as exact decimal
 * seconds, no trailing zeros: 1000 ms -> "1", 250 ms -> "0.25", 50 us -> "0.00005".
 */
static void fmt_as_seconds(char *buf, size_t n, uint64_t v, unsigned int per)
{
	unsigned int frac = (unsigned int)(v % per);
	int digits = per == 1000 ? 3 : 6;

	if (!frac) {
		snprintf(buf, n, "%" PRIu64, v / per);
		return;
	}
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	snprintf(buf, n, "%" PRIu64 ".%0*u", v / per, digits, frac);
}

static uint64_t qstat(const struct snap_queue *q, int bit)
{
	switch (bit) {
	case SQ_TX_BYTES:	return q->tx_bytes;
	case SQ_TX_PACKETS:	return q->tx_packets;
	case SQ_TX_STOP:	return q->tx_stop;
	case SQ_TX_WAKE:	return q->tx_wake;
	default:		return q->tx_hw_drops;
	}
}

/* The sample value of @fam for @q in @buf; false if @q has none. */
static bool family_value(const struct prom_family *fam, const struct snap_queue *q,
			 unsigned int hz, char *buf, size_t n)
{
	uint64_t v;

	if (fam->src == SRC_QSTAT) {
		if (!(q->qs_present & (unsigned int)fam->attr))
			return false;
		snprintf(buf, n, "%" PRIu64, qstat(q, fam->attr));
		return true;
	}
	if (fam->src == SRC_QDISC) {
		const uint64_t vals[] = {
			[QD_BACKLOG] = q->qd.backlog, [QD_QLEN] = q->qd.qlen,
			[QD_BYTES] = q->qd.bytes, [QD_PACKETS] = q->qd.packets,
			[QD_DROPS] = q->qd.drops, [QD_REQUEUES] = q->qd.requeues,
			[QD_OVERLIMITS] = q->qd.overlimits,
		};

		if (q->qd_scope != BNL_QD_QUEUE)
			return false;
		snprintf(buf, n, "%" PRIu64, vals[fam->attr]);
		return true;
	}
	if (!bql_has(&q->bql, (enum bql_attr)fam->attr))
		return false;
	v = q->bql.val[fam->attr];
	if (fam->src == SRC_RAW)
		snprintf(buf, n, "%" PRIu64, v);
	else
		fmt_as_seconds(buf, n, fam->src == SRC_MS ? v : dql_jiffies_to_msecs(v, hz), 1000);
	return true;
}

/*
 * Label values: \ " and newline as the text exposition format escapes
 * them, other controls and invalid UTF-8 as visible text (lib/io/esc.h): the
 * exposition must be valid UTF-8 and may be read on a terminal.
 */
static void put_label(FILE *f, const char *name, const char *v, bool first)
{
	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	esc_prom_fputs(v, f);
	fputc('"', f);
}

static void put_family_header(FILE *f, const char *name, const char *type,
			      const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* netns="NS" under -n (host series have none), after the other labels */
static void put_netns(FILE *f, const char *netns)
{
	if (netns)
		put_label(f, "netns", netns, false);
}

static void put_queue_families(FILE *f, const struct snapshot *s, unsigned int hz,
			       const char *netns)
{
	char val[48], qname[24];

	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		const struct prom_family *fam = &families[i];
		bool header = false;

		for (size_t d = 0; d < s->n; d++) {
			const struct snap_dev *dev = &s->dev[d];

			for (unsigned int k = 0; k < dev->nq; k++) {
				if (!family_value(fam, &dev->q[k], hz, val, sizeof(val)))
					continue;
				if (!header) {
					put_family_header(f, fam->name, fam->type, fam->help);
					header = true;
				}
				snprintf(qname, sizeof(qname), "tx-%u", dev->q[k].bql.index);
				fprintf(f, "%s{", fam->name);
				put_label(f, "device", dev->ifname, true);
				put_label(f, "queue", qname, false);
				put_netns(f, netns);
				fprintf(f, "} %s\n", val);
			}
		}
	}
}

/*
 * A root qdisc over several queues feeds none of them alone (show -j's
 * "shared_qdisc"): the same counters as bql_qdisc_*, per device, named
 * bql_shared_qdisc_*, with its kind.
 */
static void put_shared_qdisc_families(FILE *f, const struct snapshot *s, const char *netns)
{
	char name[64], help[160];

	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		const struct prom_family *fam = &families[i];
		bool header = false;

		if (fam->src != SRC_QDISC)
			continue;
		snprintf(name, sizeof(name), "bql_shared_%s", fam->name + 4);
		/* "Bytes waiting in the qdisc that feeds ..." -> "... in the root qdisc shared ..." */
		const char *cut = strstr(fam->help, " the qdisc");

		snprintf(help, sizeof(help), "%.*s the root qdisc shared by all the device's TX queues.",
			 cut ? (int)(cut - fam->help) : (int)strlen(fam->help), fam->help);
		for (size_t d = 0; d < s->n; d++) {
			const struct snap_dev *dev = &s->dev[d];
			const uint64_t vals[] = {
				[QD_BACKLOG] = dev->qd.backlog, [QD_QLEN] = dev->qd.qlen,
				[QD_BYTES] = dev->qd.bytes, [QD_PACKETS] = dev->qd.packets,
				[QD_DROPS] = dev->qd.drops, [QD_REQUEUES] = dev->qd.requeues,
				[QD_OVERLIMITS] = dev->qd.overlimits,
			};

			if (!dev->qd_shared)
				continue;
			if (!header)
				put_family_header(f, name, fam->type, help);
			header = true;
			fprintf(f, "%s{", name);
			put_label(f, "device", dev->ifname, true);
			put_label(f, "kind", dev->qd.kind, false);
			put_netns(f, netns);
			fprintf(f, "} %" PRIu64 "\n", vals[fam->attr]);
		}
	}
}

/* the per-device ethtool values (absent where the driver does not report them) */
enum { DV_RING_TX, DV_RING_TX_MAX, DV_COAL_USECS, DV_COAL_FRAMES };

static bool dev_value(const struct snap_dev *d, int what, char *buf, size_t n)
{
	switch (what) {
	case DV_RING_TX:
		if (!(d->ring.present & BNL_RING_TX))
			return false;
		snprintf(buf, n, "%u", d->ring.tx);
		return true;
	case DV_RING_TX_MAX:
		if (!(d->ring.present & BNL_RING_TX_MAX))
			return false;
		snprintf(buf, n, "%u", d->ring.tx_max);
		return true;
	case DV_COAL_USECS:
		if (!(d->coal.present & BNL_COAL_TX_USECS))
			return false;
		fmt_as_seconds(buf, n, d->coal.tx_usecs, 1000000);
		return true;
	default:
		if (!(d->coal.present & BNL_COAL_TX_MAX_FRAMES))
			return false;
		snprintf(buf, n, "%u", d->coal.tx_max_frames);
		return true;
	}
}

static void put_dev_u32(FILE *f, const struct snapshot *s, const char *netns,
			const char *name, const char *help, int what)
{
	char val[32];
	bool header = false;

	for (size_t d = 0; d < s->n; d++) {
		if (!dev_value(&s->dev[d], what, val, sizeof(val)))
			continue;
		if (!header)
			put_family_header(f, name, "gauge", help);
		header = true;
		fprintf(f, "%s{", name);
		put_label(f, "device", s->dev[d].ifname, true);
		put_netns(f, netns);
		fprintf(f, "} %s\n", val);
	}
}

static void put_device_families(FILE *f, const struct snapshot *s, const char *netns)
{
	char num[24];

	if (!s->n)
		return;
	put_family_header(f, "bql_device_info", "gauge",
			  "Device context of BQL devices; the value is always 1.");
	for (size_t d = 0; d < s->n; d++) {
		const struct snap_dev *dev = &s->dev[d];

		fputs("bql_device_info{", f);
		put_label(f, "device", dev->ifname, true);
		if (dev->present & SD_IFINDEX) {
			snprintf(num, sizeof(num), "%d", dev->ifindex);
			put_label(f, "ifindex", num, false);
		}
		if (dev->present & SD_OPERSTATE)
			put_label(f, "operstate", dev->operstate, false);
		if (dev->present & SD_QDISC)
			put_label(f, "qdisc", dev->qdisc, false);
		put_netns(f, netns);
		fputs("} 1\n", f);
	}
	put_family_header(f, "bql_device_tx_queues", "gauge",
			  "Number of TX queues of the device.");
	for (size_t d = 0; d < s->n; d++) {
		fputs("bql_device_tx_queues{", f);
		put_label(f, "device", s->dev[d].ifname, true);
		put_netns(f, netns);
		fprintf(f, "} %u\n", s->dev[d].ntx);
	}
	put_dev_u32(f, s, netns, "bql_device_tx_ring_descriptors",
		    "TX ring size in descriptors (ethtool -g).", DV_RING_TX);
	put_dev_u32(f, s, netns, "bql_device_tx_ring_max_descriptors",
		    "Largest TX ring the device allows (ethtool -g).", DV_RING_TX_MAX);
	put_dev_u32(f, s, netns, "bql_device_tx_coalesce_seconds",
		    "TX interrupt coalescing delay (ethtool -c tx-usecs).", DV_COAL_USECS);
	put_dev_u32(f, s, netns, "bql_device_tx_coalesce_frames",
		    "TX completions coalesced into one interrupt (ethtool -c tx-frames).",
		    DV_COAL_FRAMES);
}

int cmd_print_prometheus(struct bql_ctx *c, const struct snapshot *s)
{
	const struct hz_info *hz = hz_get();
	FILE *f = c->out;

	put_queue_families(f, s, hz->hz, c->netns);
	put_device_families(f, s, c->netns);
	put_shared_qdisc_families(f, s, c->netns);
	put_family_header(f, "bql_kernel_hz", "gauge",
			  "Kernel HZ used to convert jiffies to seconds; source says where it came from.");
	fputs("bql_kernel_hz{", f);
	put_label(f, "source", hz_source_name(hz->src), true);
	put_netns(f, c->netns);
	fprintf(f, "} %u\n", hz->hz);
	/* the caller names what failed: main() standard output, export its file */
	return fflush(f) || ferror(f) ? BQL_EXIT_FAIL : BQL_EXIT_OK;
}

/* export's own gauge: when the file was written, so that a stale file can be alerted on */
int cmd_print_prometheus_written(struct bql_ctx *c, uint64_t real_ns)
{
	FILE *f = c->out;

	put_family_header(f, "bql_export_timestamp_seconds", "gauge",
			  "When bqltool export wrote this file (Unix time): alert when it stops moving.");
	fputs("bql_export_timestamp_seconds", f);
	if (c->netns) {
		fputc('{', f);
		put_label(f, "netns", c->netns, true);
		fputc('}', f);
	}
	fprintf(f, " %" PRIu64 ".%03u\n", real_ns / 1000000000u,
		(unsigned int)(real_ns % 1000000000u / 1000000u));
	return fflush(f) || ferror(f) ? BQL_EXIT_FAIL : BQL_EXIT_OK;
}

/* @ns nanoseconds as exact decimal seconds, no trailing zeros: 431 -> "0.000000431" */
static void fmt_ns_seconds(char *buf, size_t n, uint64_t ns)
{
	unsigned int frac = (unsigned int)(ns % 1000000000u);
	int digits = 9;

	if (!frac) {
		snprintf(buf, n, "%" PRIu64, ns / 1000000000u);
		return;
	}
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	snprintf(buf, n, "%" PRIu64 ".%0*u", ns / 1000000000u, digits, frac);
}

/* one summary family over the window: quantiles, _sum and _count in seconds */
static void put_summary(FILE *f, const char *name, const char *help,
			const struct latbpf_target *t, unsigned int n,
			const struct lat_hist *const *h, const char *netns)
{
	static const double qs[] = { 0.5, 0.9, 0.99 };
	static const char *const qn[] = { "0.5", "0.9", "0.99" };
	char qname[24], v[48];
	bool header = false;

	for (unsigned int i = 0; i < n; i++) {
		if (!h[i] || !h[i]->count)
			continue;
		if (!header)
			put_family_header(f, name, "summary", help);
		header = true;
		snprintf(qname, sizeof(qname), "tx-%u", t[i].queue);
		for (int k = 0; k < 3; k++) {
			fmt_ns_seconds(v, sizeof(v), lathist_quantile(h[i], qs[k]));
			fprintf(f, "%s{", name);
			put_label(f, "device", t[i].ifname, true);
			put_label(f, "queue", qname, false);
			put_netns(f, netns);
			fprintf(f, ",quantile=\"%s\"} %s\n", qn[k], v);
		}
		fmt_ns_seconds(v, sizeof(v), h[i]->sum);
		fprintf(f, "%s_sum{", name);
		put_label(f, "device", t[i].ifname, true);
		put_label(f, "queue", qname, false);
		put_netns(f, netns);
		fprintf(f, "} %s\n%s_count{", v, name);
		put_label(f, "device", t[i].ifname, true);
		put_label(f, "queue", qname, false);
		put_netns(f, netns);
		fprintf(f, "} %" PRIu64 "\n", h[i]->count);
	}
}

int cmd_print_prometheus_latency(struct bql_ctx *c, const struct latbpf_target *t,
				 unsigned int n, const struct latbpf_snap *s, uint64_t dur_ns)
{
	static const char *const causes[3] = { "bql", "ring", "both" };
	static const int cnt[3] = { LAT_C_STOP_BQL, LAT_C_STOP_RING, LAT_C_STOP_BOTH };
	const struct lat_hist *h[LAT_MAX_SLOTS] = { NULL };
	struct lat_hist *qw = calloc(n ? n : 1, sizeof(*qw));
	char qname[24], v[48];
	FILE *f = c->out;

	if (!qw || n > LAT_MAX_SLOTS) {
		free(qw);
		return BQL_EXIT_FAIL;
	}
	put_family_header(f, "bql_latency_window_seconds", "gauge",
			  "Length of the window the bql_*_seconds summaries and bql_latency_window_* "
			  "gauges cover (bqltool export --latency): they are of that window, not cumulative.");
	fmt_ns_seconds(v, sizeof(v), dur_ns);
	fputs("bql_latency_window_seconds", f);
	if (c->netns) {
		fputc('{', f);
		put_label(f, "netns", c->netns, true);
		fputc('}', f);
	}
	fprintf(f, " %s\n", v);
	for (unsigned int i = 0; i < n; i++)
		h[i] = &s->q[i].h[LAT_H_RING];
	put_summary(f, "bql_ring_time_seconds", "Time from netdev_tx_sent_queue() to the completion "
		    "that covers the packet, over the window.", t, n, h, c->netns);
	for (unsigned int i = 0; i < n; i++) {
		const uint64_t *cv = s->q[i].c.v;
		uint64_t via = cv[LAT_C_DEQ] > cv[LAT_C_XMIT_BUSY] ? cv[LAT_C_DEQ] - cv[LAT_C_XMIT_BUSY] : 0;

		qw[i] = s->q[i].h[LAT_H_QDISC];
		lathist_add_zeros(&qw[i], cv[LAT_C_XMIT] > via ? cv[LAT_C_XMIT] - via : 0);
		h[i] = &qw[i];
	}
	put_summary(f, "bql_qdisc_wait_seconds", "Time from qdisc enqueue to dequeue (a bypass "
		    "waits 0), over the window.", t, n, h, c->netns);
	for (unsigned int i = 0; i < n; i++)
		h[i] = &s->q[i].h[LAT_H_IRQ];
	put_summary(f, "bql_irq_delay_seconds", "Delay from the NET_RX softirq raise to its run, "
		    "for polls that completed the queue's packets, over the window.", t, n, h, c->netns);
	put_family_header(f, "bql_latency_window_stops", "gauge",
			  "Stops of the TX queue in the window, by cause: bql (the limit), ring "
			  "(the driver, ring full) or both.");
	for (unsigned int i = 0; i < n; i++)
		for (int k = 0; k < 3; k++) {
			snprintf(qname, sizeof(qname), "tx-%u", t[i].queue);
			fputs("bql_latency_window_stops{", f);
			put_label(f, "device", t[i].ifname, true);
			put_label(f, "queue", qname, false);
			put_label(f, "cause", causes[k], false);
			put_netns(f, c->netns);
			fprintf(f, "} %" PRIu64 "\n", s->q[i].c.v[cnt[k]]);
		}
	free(qw);
	return fflush(f) || ferror(f) ? BQL_EXIT_FAIL : BQL_EXIT_OK;
}
