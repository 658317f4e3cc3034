// SPDX-License-Identifier: GPL-2.0-only
/* Collect BQL state plus device context for a set of selected queues. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/kernel/nl.h"
#include "lib/model/snapshot.h"
#include "lib/kernel/sysfs.h"

static void read_u32_attr(const struct bql_ctx *c, struct snap_dev *d,
			  const char *attr, unsigned int *v, unsigned int bit)
{
	char path[4096];
	uint64_t x;

	if (!sysfs_dev_path(c, path, sizeof(path), d->ifname, attr) &&
	    !sysfs_read_u64(c, path, &x, d->ifname, NULL) && x <= UINT32_MAX) {
		*v = (unsigned int)x;
		d->present |= bit;
	}
}

/* Device context from sysfs: what --sysfs-root trees and fallbacks give. */
static void dev_from_sysfs(const struct bql_ctx *c, struct snap_dev *d)
{
	static const char *const stat_files[] = {
		"statistics/tx_bytes", "statistics/tx_packets",
		"statistics/tx_errors", "statistics/tx_dropped",
	};
	uint64_t *stat_vals[] = { &d->tx_bytes, &d->tx_packets, &d->tx_errors,
				  &d->tx_dropped };
	char path[4096];
	unsigned int idx = 0;
	int nstats = 0;

	read_u32_attr(c, d, "ifindex", &idx, SD_IFINDEX);
	d->ifindex = (int)idx;
	read_u32_attr(c, d, "mtu", &d->mtu, SD_MTU);
	read_u32_attr(c, d, "tx_queue_len", &d->txqlen, SD_TXQLEN);
	if (!sysfs_dev_path(c, path, sizeof(path), d->ifname, "operstate") &&
	    !sysfs_read(c, path, d->operstate, sizeof(d->operstate), d->ifname, NULL))
		d->present |= SD_OPERSTATE;
	for (int i = 0; i < 4; i++)
		if (!sysfs_dev_path(c, path, sizeof(path), d->ifname, stat_files[i]) &&
		    !sysfs_read_u64(c, path, stat_vals[i], d->ifname, NULL))
			nstats++;
	if (nstats == 4)
		d->present |= SD_STATS;
}

static int dev_from_netlink(struct bnl *nl, struct snap_dev *d,
			    struct bql_err *e)
{
	struct bnl_link l;
	int ret = bnl_link_get(nl, d->ifname, &l, e);

	if (ret)
		return ret;
	d->ifindex = l.ifindex;
	snprintf(d->operstate, sizeof(d->operstate), "%s", l.operstate);
	snprintf(d->qdisc, sizeof(d->qdisc), "%s", l.qdisc);
	d->mtu = l.mtu;
	d->txqlen = l.txqlen;
	d->present |= SD_IFINDEX | SD_OPERSTATE | SD_MTU | SD_TXQLEN;
	if (l.qdisc[0])
		d->present |= SD_QDISC;
	if (l.has_stats) {
		d->tx_bytes = l.tx_bytes;
		d->tx_packets = l.tx_packets;
		d->tx_errors = l.tx_errors;
		d->tx_dropped = l.tx_dropped;
		d->present |= SD_STATS;
	}
	return 0;
}

static void apply_qstats(struct snapshot *s, const struct bnl_qstats *qs,
			 int nqs)
{
	for (int i = 0; i < nqs; i++) {
		for (size_t d = 0; d < s->n; d++) {
			struct snap_dev *dev = &s->dev[d];

			if (dev->ifindex != qs[i].ifindex || !(dev->present & SD_IFINDEX))
				continue;
			for (unsigned int k = 0; k < dev->nq; k++) {
				struct snap_queue *q = &dev->q[k];

				if (q->bql.index != qs[i].queue)
					continue;
				q->tx_packets = qs[i].tx_packets;
				q->tx_bytes = qs[i].tx_bytes;
				q->tx_stop = qs[i].tx_stop;
				q->tx_wake = qs[i].tx_wake;
				q->tx_hw_drops = qs[i].tx_hw_drops;
				q->qs_present = qs[i].present;
			}
		}
	}
}

/* add @msg to the note (for -v), once, after what is already there */
static void note_add(struct snapshot *s, const char *msg)
{
	size_t k = strlen(s->note);

	if (!strstr(s->note, msg))
		snprintf(s->note + k, sizeof(s->note) - k, "%s%s", k ? "; " : "", msg);
}

/* the qdisc feeding each queue (one dump for every device); none if the dump fails */
static void apply_qdiscs(struct bnl *nl, struct snapshot *s)
{
	struct bql_err qe;

	if (bnl_qdisc_refresh(nl, &qe)) {
		note_add(s, qe.msg);
		return;
	}
	s->qdiscs = true;
	for (size_t d = 0; d < s->n; d++) {
		struct snap_dev *dev = &s->dev[d];

		if (!(dev->present & SD_IFINDEX))
			continue;
		for (unsigned int k = 0; k < dev->nq; k++) {
			struct snap_queue *q = &dev->q[k];

			q->qd_scope = bnl_qdisc_for_queue(nl, dev->ifindex, dev->ntx,
							  q->bql.index, &q->qd);
			if (q->qd_scope == BNL_QD_DEVICE) {
				dev->qd_shared = true;
				dev->qd = q->qd;
			}
		}
	}
}

/*
 * TX ring and coalescing (ethtool genl). A device that has none (ifb:
 * EOPNOTSUPP) simply has none; the first other reason goes to the note.
 */
static void apply_ethtool(struct bnl *nl, struct snapshot *s, struct snap_dev *d)
{
	struct bql_err ee;

	if (!(d->present & SD_IFINDEX))
		return;
	if (bnl_ring_get(nl, d->ifindex, &d->ring, &ee) && ee.code != EOPNOTSUPP)
		note_add(s, ee.msg);
	if (bnl_coal_get(nl, d->ifindex, &d->coal, &ee) && ee.code != EOPNOTSUPP)
		note_add(s, ee.msg);
}

/* sel_target_vanished(), and unknown to rtnetlink while its sysfs directory is being removed */
static bool target_vanished(const struct bql_ctx *c, struct bnl *nl,
			    const struct sel_target *t, int ret)
{
	struct bnl_link l;
	struct bql_err le;

	if (t->named)
		return false;
	if (sel_target_vanished(c, t, ret))
		return true;
	return (ret == -ENOENT || ret == -EOPNOTSUPP) && nl && bnl_link_get(nl, t->ifname, &l, &le) == -ENODEV;
}

static int read_dev(const struct bql_ctx *c, struct bnl *nl, const struct sel_target *t,
		    struct snap_dev *d, struct bql_err *e)
{
	int ret;

	snprintf(d->ifname, sizeof(d->ifname), "%s", t->ifname);
	d->ntx = t->ntx;
	d->q = calloc(t->nqueues ? t->nqueues : 1, sizeof(*d->q));
	if (!d->q)
		return bql_err_set(e, ENOMEM, "out of memory");
	for (unsigned int k = 0; k < t->nqueues; k++) {
		ret = bql_queue_read(c, t->ifname, t->queues[k], &d->q[k].bql, e);
		if (ret)
			return ret;
		d->nq++;
	}
	if (nl) {
		ret = dev_from_netlink(nl, d, e);
		if (ret)
			return ret;
	} else {
		dev_from_sysfs(c, d);
	}
	d->speed_mbps = sysfs_link_speed(c, d->ifname);
	if (d->speed_mbps)
		d->present |= SD_SPEED;
	return 0;
}

int snapshot_take(const struct bql_ctx *c, struct bnl *nl,
		  const struct sel_result *r, struct snapshot *s,
		  struct bql_err *e)
{
	char first[BQL_IFNAMSIZ] = "";
	int ret = 0;

	memset(s, 0, sizeof(*s));
	s->dev = calloc(r->n ? r->n : 1, sizeof(*s->dev));
	if (!s->dev)
		return bql_err_set(e, ENOMEM, "out of memory");
	s->netlink = nl != NULL;
	for (size_t i = 0; i < r->n; i++) {
		const struct sel_target *t = &r->t[i];
		struct snap_dev *d = &s->dev[s->n++];

		ret = read_dev(c, nl, t, d, e);
		if (ret && target_vanished(c, nl, t, ret)) {
			if (!s->nvanished++)
				snprintf(first, sizeof(first), "%s", t->ifname);
			free(d->q);
			memset(d, 0, sizeof(*d));
			s->n--;
			ret = 0;
		}
		if (ret)
			goto fail;
	}
	if (nl && s->n) {
		struct bnl_qstats *qs = NULL;
		struct bql_err qe;
		int nqs = bnl_qstats_dump(nl, 0, &qs, &qe);

		if (nqs >= 0) {
			s->qstats = true;
			apply_qstats(s, qs, nqs);
			if (!nqs)
				snprintf(s->note, sizeof(s->note),
					 "no driver here reports per-queue stats (netdev qstats-get)");
		} else {
			snprintf(s->note, sizeof(s->note), "%s", qe.msg);
		}
		free(qs);
	} else if (!nl) {
		snprintf(s->note, sizeof(s->note),
			 "netlink not consulted (--sysfs-root): device context read from sysfs");
	}
	if (nl && s->n)
		apply_qdiscs(nl, s);
	for (size_t i = 0; nl && i < s->n; i++)
		apply_ethtool(nl, s, &s->dev[i]);
	if (s->nvanished) {
		char msg[96];

		snprintf(msg, sizeof(msg), "%zu device%s vanished while read, left out (%s%s)",
			 s->nvanished, s->nvanished == 1 ? "" : "s", first,
			 s->nvanished > 1 ? ", ..." : "");
		note_add(s, msg);
	}
	return 0;
fail:
	snapshot_free(s);
	return ret;
}

void snapshot_free(struct snapshot *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->dev[i].q);
	free(s->dev);
	memset(s, 0, sizeof(*s));
}
