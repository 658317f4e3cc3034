/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The netlink handle's insides, shared by lib/nl*.c only (the files that
 * add a family or a dump to struct bnl); everyone else sees lib/kernel/nl.h.
 */
#ifndef BQLTOOL_LIB_NL_INT_H
#define BQLTOOL_LIB_NL_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/kernel/nl.h"
#include "lib/kernel/nl_qdisc.h"

struct nl_sock;
struct nl_cache;

struct bnl {
	struct nl_sock *rt;		/* NETLINK_ROUTE */
	struct nl_cache *cache;		/* route/link, refilled by refresh */
	struct bnl_link *links;		/* snapshot, ifindex order */
	size_t nlinks;
	bool loaded;			/* a snapshot was taken */
	struct nl_sock *gn;		/* NETLINK_GENERIC, NULL if it failed */
	int gn_err;			/* NLE_* from connecting gn */
	int netdev_id;			/* >0 resolved, 0 not yet, <0 absent */
	int ethtool_id;			/* the same for the ethtool family */
	struct nl_cache *qdiscs;	/* route/qdisc, filled by bnl_qdisc_refresh */
	struct bnl_qdisc *qd;		/* ... copied out of it */
	size_t nqd, qd_cap;
	struct bnl_qdisc_index qix;	/* ... indexed by ifindex and parent */
	void *dump_buf;			/* bnl_qdisc_dump's receive buffer */
	unsigned int dump_seq;		/* ... and its requests' sequence numbers */
};

struct nl_cb;
/* a callback set for one request on the genl socket (a clone of the socket's); NULL: no memory */
struct nl_cb *bnl_genl_cb(struct bnl *h);

/* "WHAT: libnl text" with the mapped errno in @e; returns -errno */
int bnl_err(struct bql_err *e, int nlerr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
