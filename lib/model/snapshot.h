/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One reading of the selected devices and queues: BQL state from sysfs,
 * device context from rtnetlink and per-queue TX stats from the netdev
 * generic netlink family. show, check and export print it; top samples it.
 */
#ifndef BQLTOOL_LIB_SNAPSHOT_H
#define BQLTOOL_LIB_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/kernel/bql.h"
#include "lib/kernel/nl_ethtool.h"
#include "lib/kernel/nl_qdisc.h"
#include "lib/kernel/sel.h"

struct bnl;

enum {
	SQ_TX_PACKETS	= 1u << 0,
	SQ_TX_BYTES	= 1u << 1,
	SQ_TX_STOP	= 1u << 2,
	SQ_TX_WAKE	= 1u << 3,
	SQ_TX_HW_DROPS	= 1u << 4,
};

struct snap_queue {
	struct bql_queue bql;
	unsigned int qs_present;	/* SQ_* from netdev qstats */
	uint64_t tx_packets, tx_bytes, tx_stop, tx_wake, tx_hw_drops;
	enum bnl_qdisc_scope qd_scope;	/* BNL_QD_QUEUE: @qd feeds this queue alone */
	struct bnl_qdisc qd;
};

enum {
	SD_IFINDEX	= 1u << 0,
	SD_OPERSTATE	= 1u << 1,
	SD_MTU		= 1u << 2,
	SD_TXQLEN	= 1u << 3,
	SD_STATS	= 1u << 4,
	SD_SPEED	= 1u << 5,
	SD_QDISC	= 1u << 6,
};

struct snap_dev {
	char ifname[BQL_IFNAMSIZ];
	unsigned int present;		/* SD_* */
	int ifindex;
	char operstate[16];
	char qdisc[32];
	unsigned int mtu, txqlen;
	unsigned int ntx;		/* TX queues (tx-N directories) */
	uint64_t speed_mbps;
	uint64_t tx_bytes, tx_packets, tx_errors, tx_dropped;
	unsigned int nq;		/* selected queues */
	struct snap_queue *q;
	bool qd_shared;			/* one root qdisc (@qd) feeds all the TX queues */
	struct bnl_qdisc qd;
	struct bnl_ring ring;		/* ethtool genl; present 0: not reported */
	struct bnl_coal coal;
};

struct snapshot {
	struct snap_dev *dev;
	size_t n;
	bool netlink;			/* device context came from rtnetlink */
	bool qstats;			/* netdev genl family answered */
	bool qdiscs;			/* the qdisc dump answered */
	size_t nvanished;		/* unnamed targets gone while read, left out */
	char note[256];			/* why a source is missing (for -v) */
};

/*
 * snapshot_take - read everything about the targets in @r.
 * @nl: an open netlink handle, or NULL to read device context from sysfs
 *	only (--sysfs-root, or netlink unavailable).
 * A device that vanished between selection and reading is -ENODEV naming
 * it if a selector named it (sel_target.named); one that only "every
 * device" or a glob selected is left out (counted in @s->nvanished and
 * named in the note), as `ip link show` leaves it out: on a host whose
 * containers come and go, a whole-host reading does not fail because of
 * one of them. Returns 0 or -errno.
 */
int snapshot_take(const struct bql_ctx *c, struct bnl *nl,
		  const struct sel_result *r, struct snapshot *s,
		  struct bql_err *e);
void snapshot_free(struct snapshot *s);

#endif
