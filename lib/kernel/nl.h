/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Netlink through libnl-3: links and their stats64 from rtnetlink
 * (libnl-route), per-queue TX stats from the `netdev` generic netlink
 * family (libnl-genl). Everything is prefixed bnl_ because libnl owns nl_.
 */
#ifndef BQLTOOL_LIB_NL_H
#define BQLTOOL_LIB_NL_H

#include <stdbool.h>
#include <stdint.h>

#include "dql/err.h"

struct nlmsghdr;

/* Route socket + link snapshot, genl socket, netdev family id. Opaque. */
struct bnl;

/**
 * bnl_open - open the netlink sockets of the current network namespace
 * @out: the new handle
 * @e: error report
 *
 * Both sockets (rtnetlink and generic netlink) are created here, so they
 * belong to the netns the thread is in *now*: a caller that switches
 * netns for -n switches before bnl_open and may switch back right after.
 * Nothing is dumped yet; the `netdev` family id is resolved on first use.
 * Returns 0 or -errno.
 */
int bnl_open(struct bnl **out, struct bql_err *e);
/* bnl_close - free everything bnl_open allocated; NULL is fine. */
void bnl_close(struct bnl *h);

/**
 * struct bnl_link - one link as rtnetlink reports it
 * @ifindex: interface index
 * @ifname: name (IFNAMSIZ)
 * @operstate: RFC 2863 state, lowercase: "up", "down", "unknown",
 *	"dormant", "notpresent", "lowerlayerdown", "testing"
 * @mtu: IFLA_MTU
 * @txqlen: IFLA_TXQLEN (tx_queue_len)
 * @num_tx_queues: IFLA_NUM_TX_QUEUES (allocated TX queues; libnl-3.7
 *	does not expose IFLA_REAL_NUM_TX_QUEUES, count sysfs tx-N for that)
 * @qdisc: root qdisc kind ("mq", "noqueue", ...), "" if none reported
 * @kind: IFLA_INFO_KIND ("veth", "ifb", ...), "" for plain devices
 * @flags: IFF_* flags
 * @has_stats: the kernel sent IFLA_STATS64/IFLA_STATS
 * @tx_bytes: stats64 counters (0 if !@has_stats)
 */
struct bnl_link {
	int ifindex;
	char ifname[16];
	char operstate[16];
	unsigned int mtu;
	unsigned int txqlen;
	unsigned int num_tx_queues;
	char qdisc[32];
	char kind[32];
	unsigned int flags;
	bool has_stats;
	uint64_t tx_bytes, tx_packets, tx_errors, tx_dropped;
	uint64_t rx_bytes, rx_packets;
};

/**
 * bnl_refresh - dump all links again (one RTM_GETLINK dump)
 *
 * The link functions below answer from the snapshot taken by the last
 * bnl_refresh(); the first of them after bnl_open() takes it. `top` calls
 * this once per sample. Returns 0 or -errno.
 */
int bnl_refresh(struct bnl *h, struct bql_err *e);
/*
 * bnl_link_get - the link named @ifname, from the snapshot (see
 * bnl_refresh); a missing name does not trigger another dump.
 * -ENODEV ("NAME: no such device") if absent.
 */
int bnl_link_get(struct bnl *h, const char *ifname, struct bnl_link *out,
		 struct bql_err *e);
/* bnl_link_get_index - the same, by ifindex. -ENODEV if absent. */
int bnl_link_get_index(struct bnl *h, int ifindex, struct bnl_link *out,
		       struct bql_err *e);
/*
 * bnl_link_foreach - call @cb for every link in ifindex order; a non-zero
 * return from @cb stops the walk and is returned. If no snapshot exists
 * yet one is taken; its failure is returned as -errno without a message
 * (call bnl_refresh first to get one).
 */
int bnl_link_foreach(struct bnl *h,
		     int (*cb)(const struct bnl_link *l, void *arg), void *arg);

/* netdev genl qstats, scope=queue, TX only: which counters were present */
enum {
	BNL_QS_TX_PACKETS	= 1u << 0,
	BNL_QS_TX_BYTES		= 1u << 1,
	BNL_QS_TX_STOP		= 1u << 2,
	BNL_QS_TX_WAKE		= 1u << 3,
	BNL_QS_TX_HW_DROPS	= 1u << 4,
};

/**
 * struct bnl_qstats - counters of one TX queue (netdev qstats-get)
 * @ifindex: device
 * @queue: TX queue index (tx-@queue in sysfs)
 * @present: BNL_QS_* bits of the counters the driver reported; the others
 *	are 0 and mean "unknown", not zero
 * @tx_stop: times the driver stopped the queue because it was full (BQL's
 *	own stops are not counted here)
 *
 * Per-queue values count since the last reconfiguration of the queue.
 */
struct bnl_qstats {
	int ifindex;
	unsigned int queue;
	unsigned int present;
	uint64_t tx_packets, tx_bytes, tx_stop, tx_wake, tx_hw_drops;
};

/**
 * bnl_qstats_dump - per-queue TX statistics of @ifindex (0 = all devices)
 * @out: malloc'd array sorted by (ifindex, queue), caller free()s it;
 *	NULL when 0 is returned
 *
 * Returns the number of entries (>= 0). 0 entries is the normal answer of
 * a driver without per-queue stats (or a device that is down). Errors:
 * -EOPNOTSUPP when the kernel has no `netdev` family (before 6.3) or no
 * qstats-get command (before 6.9), the message says which; -ENODEV when
 * @ifindex does not exist; else -errno.
 */
int bnl_qstats_dump(struct bnl *h, int ifindex, struct bnl_qstats **out,
		    struct bql_err *e);

/**
 * bnl_genl_family - resolve a generic netlink family id by @name
 *
 * Returns the id (> 0); -EOPNOTSUPP if the kernel does not know @name
 * ("generic netlink family 'NAME' not found"); else -errno. The netdev id
 * used by bnl_qstats_dump is cached; other names are not.
 */
int bnl_genl_family(struct bnl *h, const char *name, struct bql_err *e);

/**
 * bnl_qstats_parse - decode one qstats-get reply (@nlh points at the
 * netlink header of a genl message)
 *
 * Counters may be 4 or 8 bytes long (NLA_UINT); other sizes are -EPROTO.
 * Returns 1 and fills @q for a TX queue entry, 0 for anything else (RX
 * queue, device-scope totals), -EPROTO for a malformed message.
 */
int bnl_qstats_parse(struct nlmsghdr *nlh, struct bnl_qstats *q);

/*
 * bnl_errno - the errno for a libnl NLE_* code (either sign), the inverse
 * of libnl's nl_syserr2nlerr for the codes it produces; EIO otherwise.
 */
int bnl_errno(int nlerr);

#endif
