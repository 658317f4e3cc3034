// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool tune SEL: the model read from the selected device, read-only:
 * link speed (sysfs), the selected TX queues, the TX ring and coalescing
 * (ethtool genl) and the qdisc kind in front of the queues (rtnetlink).
 * What the device does not report stays the model's default and the
 * report says so; what cannot be modelled (no speed, a speed outside the
 * simulator's range, devices that differ) is refused, naming the option
 * that answers it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/tune.h"
#include "lib/kernel/nl.h"
#include "lib/kernel/nl_ethtool.h"
#include "lib/kernel/nl_qdisc.h"
#include "lib/model/rules.h"
#include "lib/kernel/sysfs.h"

/* the qdisc kinds a sparse flow does not queue behind bulk traffic in */
static const char *const fq_kinds[] = { "fq_codel", "fq", "cake", "fq_pie", "sfq", NULL };
static const char *const fifo_kinds[] = { "pfifo_fast", "pfifo", "bfifo", "pfifo_head_drop", NULL };

static bool kind_in(const char *kind, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(kind, *list))
			return true;
	return false;
}

enum tune_qdisc tx_qdisc_kind(const char *kind)
{
	if (kind_in(kind, fq_kinds))
		return TUNE_QDISC_FQ;
	if (kind_in(kind, fifo_kinds))
		return TUNE_QDISC_FIFO;
	return TUNE_QDISC_UNKNOWN;
}

/*
 * The qdisc in front of the selected queues: one kind if they all have
 * the same, else "" (mixed or not found: the model does not know it).
 */
static void dev_qdisc(struct bnl *nl, struct tx_dev *d, const struct sel_target *t)
{
	d->qdisc_kind[0] = '\0';
	for (unsigned int k = 0; k < t->nqueues; k++) {
		struct bnl_qdisc qd;

		if (bnl_qdisc_for_queue(nl, t->ifindex, t->ntx, t->queues[k], &qd) == BNL_QD_NONE) {
			d->qdisc_kind[0] = '\0';
			return;
		}
		if (!k) {
			snprintf(d->qdisc_kind, sizeof(d->qdisc_kind), "%s", qd.kind);
		} else if (strcmp(d->qdisc_kind, qd.kind)) {
			snprintf(d->qdisc_kind, sizeof(d->qdisc_kind), "mixed");
			break;
		}
	}
	d->qdisc = tx_qdisc_kind(d->qdisc_kind);
}

/*
 * The device's TX ring size, coalescing and qdisc from netlink (read
 * only); what the driver does not report stays unknown, with the reason.
 */
static void dev_netlink(struct tx *x, struct tx_dev *d, const struct sel_target *t)
{
	struct bnl *nl = NULL;
	struct bnl_ring ring;
	struct bnl_coal coal;
	struct bql_err e;

	if (x->c->root_overridden || t->ifindex <= 0)
		return;
	if (bnl_open(&nl, &e)) {
		snprintf(d->eth_note, sizeof(d->eth_note), "%s", e.msg);
		return;
	}
	(void)bnl_refresh(nl, &e);	/* the device's name in messages */
	if (!bnl_ring_get(nl, t->ifindex, &ring, &e) && (ring.present & BNL_RING_TX)) {
		d->has_ring = true;
		d->ring = ring.tx;
	} else if (ring.present == 0) {
		snprintf(d->eth_note, sizeof(d->eth_note), "%s", e.msg);
	}
	if (!bnl_coal_get(nl, t->ifindex, &coal, &e)) {
		d->has_usecs = coal.present & BNL_COAL_TX_USECS;
		d->coal_usecs = coal.tx_usecs;
		d->has_frames = coal.present & BNL_COAL_TX_MAX_FRAMES;
		d->coal_frames = coal.tx_max_frames;
	} else if (!d->eth_note[0]) {
		snprintf(d->eth_note, sizeof(d->eth_note), "%s", e.msg);
	}
	if (!bnl_qdisc_refresh(nl, &e))
		dev_qdisc(nl, d, t);
	bnl_close(nl);
}

static void dev_read(struct tx *x, struct tx_dev *d, const struct sel_target *t)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->ifname, sizeof(d->ifname), "%s", t->ifname);
	d->mbps = sysfs_link_speed(x->c, t->ifname);
	d->mtu = sysfs_dev_mtu(x->c, t->ifname);
	d->queues = t->nqueues;
	dev_netlink(x, d, t);
}

/* what of @a and @b the model would take differently, or NULL */
static const char *dev_differs(const struct tx *x, const struct tx_dev *a, const struct tx_dev *b)
{
	const struct sim_opts *o = &x->o;

	if (!o->link_given && a->mbps != b->mbps)
		return "link speed";
	if (!o->queues_given && a->queues != b->queues)
		return "queue count";
	if (!o->ring_given && (a->has_ring != b->has_ring || a->ring != b->ring))
		return "TX ring size";
	if (!o->coal_usecs_given && (a->has_usecs != b->has_usecs || a->coal_usecs != b->coal_usecs))
		return "tx-usecs";
	if (!o->coal_frames_given &&
	    (a->has_frames != b->has_frames || a->coal_frames != b->coal_frames))
		return "tx-frames";
	if (!x->qdisc_given && a->qdisc != b->qdisc)
		return "qdisc";
	return NULL;
}

static void fmt_dev(char *buf, size_t n, const struct tx_dev *d, const char *what)
{
	if (!strcmp(what, "link speed")) {
		if (d->mbps)
			snprintf(buf, n, "%s %" PRIu64 " Mbit/s", d->ifname, d->mbps);
		else
			snprintf(buf, n, "%s unknown", d->ifname);
	} else if (!strcmp(what, "queue count")) {
		snprintf(buf, n, "%s %u", d->ifname, d->queues);
	} else if (!strcmp(what, "TX ring size")) {
		snprintf(buf, n, d->has_ring ? "%s %u" : "%s unknown", d->ifname, d->ring);
	} else if (!strcmp(what, "tx-usecs")) {
		snprintf(buf, n, d->has_usecs ? "%s %u" : "%s unknown", d->ifname, d->coal_usecs);
	} else if (!strcmp(what, "tx-frames")) {
		snprintf(buf, n, d->has_frames ? "%s %u" : "%s unknown", d->ifname, d->coal_frames);
	} else {
		snprintf(buf, n, "%s %s", d->ifname, d->qdisc_kind[0] ? d->qdisc_kind : "unknown");
	}
}

int tx_model_from_device(struct tx *x, const struct sel_result *t)
{
	struct sim_config *cfg = &x->o.cfg;
	struct tx_dev *d = &x->dev_info, other;

	x->from_device = true;
	dev_read(x, d, &t->t[0]);
	/* one model for every selected device, or none */
	for (size_t i = 1; i < t->n; i++) {
		const char *what;
		char a[128], b[128];

		dev_read(x, &other, &t->t[i]);
		what = dev_differs(x, d, &other);
		if (!what)
			continue;
		fmt_dev(a, sizeof(a), d, what);
		fmt_dev(b, sizeof(b), &other, what);
		return cmd_usage(x->c, "'%s' selects devices that differ in %s (%s, %s): one model cannot fit both; tune one device at a time",
				 x->sel, what, a, b);
	}
	/* legacy fields of the report */
	snprintf(x->dev, sizeof(x->dev), "%s", d->ifname);
	x->dev_mbps = d->mbps;
	x->dev_queues = d->queues;
	x->dev_has_ring = d->has_ring;
	x->dev_ring = d->ring;
	x->dev_has_usecs = d->has_usecs;
	x->dev_coal_usecs = d->coal_usecs;
	x->dev_has_frames = d->has_frames;
	x->dev_coal_frames = d->coal_frames;
	snprintf(x->dev_eth_note, sizeof(x->dev_eth_note), "%s", d->eth_note);
	if (!x->qdisc_given)	/* --qdisc wins */
		x->eng.qdisc = d->qdisc;
	if (!x->o.link_given) {
		uint64_t bps = d->mbps * 1000000;

		if (!d->mbps)
			return cmd_usage(x->c, "%s: link speed unknown (the driver reports none): no recommendation without the rate to model; give --link RATE",
					 d->ifname);
		if (bps < SIM_LINK_MIN || bps > SIM_LINK_MAX)
			return cmd_usage(x->c, "%s: link speed %" PRIu64 " Mbit/s is outside what the simulator models (%llu Mbit/s..%llu Gbit/s): give --link RATE to model a rate in that range",
					 d->ifname, d->mbps, SIM_LINK_MIN / 1000000, SIM_LINK_MAX / 1000000000);
		cfg->link_bps = bps;
	}
	if (!x->o.queues_given) {
		cfg->nqueues = d->queues > SIM_MAX_QUEUES ? SIM_MAX_QUEUES : d->queues;
		if (d->queues > SIM_MAX_QUEUES)
			cmd_warn(x->c, "%s: %u queues selected, modelled on %u, the simulator's most (each busier than on the device): give --queues to choose, or select at most %u queues",
				 d->ifname, d->queues, SIM_MAX_QUEUES, SIM_MAX_QUEUES);
	}
	if (d->has_ring && !x->o.ring_given)
		cfg->ring = d->ring > SIM_RING_MAX ? SIM_RING_MAX : d->ring;
	if (d->has_usecs && !x->o.coal_usecs_given)
		cfg->coalesce_usecs = d->coal_usecs > 1000000 ? 1000000 : d->coal_usecs;
	if (d->has_frames && !x->o.coal_frames_given)
		cfg->coalesce_frames = d->coal_frames > SIM_RING_MAX ? SIM_RING_MAX : d->coal_frames;
	if (!x->o.traffic_given) {
		/* every queue backlogged: the case where the limit matters */
		cfg->nflows = cfg->nqueues;
		for (unsigned int i = 0; i < cfg->nflows; i++) {
			memset(&cfg->flows[i], 0, sizeof(cfg->flows[i]));
			cfg->flows[i].kind = SIM_T_BULK;
			cfg->flows[i].pinned = true;
			cfg->flows[i].queue = i;
			cfg->flows[i].size = x->o.size;
			x->o.flow_sized[i] = true;
		}
	}
	return 0;
}

void tx_limit_floor(struct tx *x, const struct sel_result *t)
{
	x->eng.floor = 0;
	for (size_t i = 0; i < t->n; i++) {
		struct tx_dev d;
		struct rules_path_in in;
		uint64_t f, frame;

		if (i == 0 && x->from_device)
			d = x->dev_info;
		else
			dev_read(x, &d, &t->t[i]);
		in = (struct rules_path_in){
			.ifname = d.ifname, .speed_mbps = d.mbps, .mtu = d.mtu,
			.has_usecs = d.has_usecs, .tx_usecs = d.coal_usecs,
			.has_frames = d.has_frames, .tx_frames = d.coal_frames,
		};
		f = rules_limit_max_floor(&in);
		if (f > DQL_MAX_LIMIT)
			f = DQL_MAX_LIMIT;
		if (f <= x->eng.floor)
			continue;
		x->eng.floor = (uint32_t)f;
		snprintf(x->floor_dev, sizeof(x->floor_dev), "%s", d.ifname);
		frame = d.mtu ? (uint64_t)d.mtu + ETH_FRAME_OVERHEAD : 0;
		x->floor_rule = f == frame ? "limit-max-below-frame" : "limit-max-below-irq";
	}
}

/*
 * @s as one shell word: as is when every byte is safe, else in single
 * quotes (a quote inside as '\''). NULL if that does not fit in @n.
 */
char *tx_shell_word(char *buf, size_t n, const char *s)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789@%+=:,./-_";
	size_t need = 2, o = 0, len = strlen(s);

	if (len && strspn(s, safe) == len) {
		if (len >= n)
			return NULL;
		memcpy(buf, s, len + 1);
		return buf;
	}
	for (size_t i = 0; i < len; i++)
		need += s[i] == '\'' ? 4 : 1;
	if (need >= n)
		return NULL;
	buf[o++] = '\'';
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\'') {	/* close, an escaped quote, reopen */
			memcpy(buf + o, "'\\''", 4);
			o += 4;
		} else {
			buf[o++] = s[i];
		}
	}
	buf[o++] = '\'';
	buf[o] = '\0';
	return buf;
}

void tx_quote_command(struct tx *x)
{
	static const char pre[] = "bqltool set ";
	size_t np = sizeof(pre) - 1, ns, nq, nr;
	char w[256], rest[sizeof(x->command)];
	const char *q;

	if (!x->sel || strncmp(x->command, pre, np))
		return;
	ns = strlen(x->sel);
	if (strncmp(x->command + np, x->sel, ns) || x->command[np + ns] != ' ')
		return;
	q = tx_shell_word(w, sizeof(w), x->sel);
	if (!q)
		q = "DEV";	/* too long to print as one word */
	nq = strlen(q);
	nr = strlen(x->command + np + ns);
	if (np + nq + nr >= sizeof(x->command)) {
		q = "DEV";	/* never an unquoted selector */
		nq = 3;
	}
	memcpy(rest, x->command + np + ns, nr + 1);
	memcpy(x->command + np, q, nq);
	memcpy(x->command + np + nq, rest, nr + 1);
}
