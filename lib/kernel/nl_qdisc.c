// SPDX-License-Identifier: GPL-2.0-only
/* The qdisc of each TX queue, from libnl-route's qdisc cache (nl_qdisc.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/netlink.h>
#include <netlink/cache.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/tc.h>

#include "lib/kernel/nl_int.h"
#include "lib/kernel/nl_qdisc.h"

#define TC_MAJ(h)	((h) & 0xFFFF0000u)
#define TC_MIN(h)	((h) & 0x0000FFFFu)

const char *bnl_tc_handle_str(uint32_t h, char *buf, size_t n)
{
	if (h == BNL_TC_H_ROOT)
		snprintf(buf, n, "root");
	else if (!h)
		snprintf(buf, n, "0:");	/* a qdisc's default handle */
	else if (h == BNL_TC_H_INGRESS)
		snprintf(buf, n, "ingress");
	else if (!TC_MAJ(h))
		snprintf(buf, n, ":%x", TC_MIN(h));
	else if (!TC_MIN(h))
		snprintf(buf, n, "%x:", TC_MAJ(h) >> 16);
	else
		snprintf(buf, n, "%x:%x", TC_MAJ(h) >> 16, TC_MIN(h));
	return buf;
}

enum bnl_qdisc_scope bnl_qdisc_map(const struct bnl_qdisc *qd, size_t n, int ifindex,
				   unsigned int ntx, unsigned int queue, struct bnl_qdisc *out)
{
	const struct bnl_qdisc *root = NULL;

	for (size_t i = 0; i < n && !root; i++)
		if (qd[i].ifindex == ifindex && qd[i].parent == BNL_TC_H_ROOT)
			root = &qd[i];
	if (!root || queue >= ntx)
		return BNL_QD_NONE;
	if (!strcmp(root->kind, "mq") || !strcmp(root->kind, "mqprio")) {
		/* mq_queue_get(): class N is TX queue N - 1 */
		uint32_t want = TC_MAJ(root->handle) | (queue + 1);

		for (size_t i = 0; i < n; i++)
			if (qd[i].ifindex == ifindex && qd[i].parent == want) {
				*out = qd[i];
				return BNL_QD_QUEUE;
			}
		return BNL_QD_NONE;
	}
	*out = *root;
	return ntx == 1 ? BNL_QD_QUEUE : BNL_QD_DEVICE;
}

enum bnl_qdisc_scope bnl_qdisc_for_queue(const struct bnl *h, int ifindex, unsigned int ntx,
					 unsigned int queue, struct bnl_qdisc *out)
{
	return bnl_qdisc_map(h->qd, h->nqd, ifindex, ntx, queue, out);
}

static void copy_one(struct nl_object *obj, void *arg)
{
	struct bnl *h = arg;
	struct rtnl_tc *tc = TC_CAST(obj);
	struct bnl_qdisc *q = &h->qd[h->nqd];
	const char *kind = rtnl_tc_get_kind(tc);

	if (h->nqd >= h->qd_cap)
		return;
	memset(q, 0, sizeof(*q));
	q->ifindex = rtnl_tc_get_ifindex(tc);
	snprintf(q->kind, sizeof(q->kind), "%s", kind ? kind : "");
	q->handle = rtnl_tc_get_handle(tc);
	q->parent = rtnl_tc_get_parent(tc);
	q->bytes = rtnl_tc_get_stat(tc, RTNL_TC_BYTES);
	q->packets = rtnl_tc_get_stat(tc, RTNL_TC_PACKETS);
	q->drops = rtnl_tc_get_stat(tc, RTNL_TC_DROPS);
	q->requeues = rtnl_tc_get_stat(tc, RTNL_TC_REQUEUES);
	q->overlimits = rtnl_tc_get_stat(tc, RTNL_TC_OVERLIMITS);
	q->backlog = rtnl_tc_get_stat(tc, RTNL_TC_BACKLOG);
	q->qlen = rtnl_tc_get_stat(tc, RTNL_TC_QLEN);
	h->nqd++;
}

int bnl_qdisc_refresh(struct bnl *h, struct bql_err *e)
{
	int ret, n;

	/* an empty cache first (no socket: no dump), as bnl_open makes the link cache */
	if (!h->qdiscs && (ret = rtnl_qdisc_alloc_cache(NULL, &h->qdiscs)) < 0) {
		h->qdiscs = NULL;
		return bnl_err(e, ret, "rtnetlink qdisc cache");
	}
	ret = nl_cache_refill(h->rt, h->qdiscs);
	if (ret < 0)
		return bnl_err(e, ret, "rtnetlink qdisc dump");
	n = nl_cache_nitems(h->qdiscs);
	if ((size_t)n > h->qd_cap) {
		struct bnl_qdisc *qd = realloc(h->qd, (size_t)n * sizeof(*qd));

		if (!qd)
			return bql_err_set(e, ENOMEM, "qdiscs: out of memory");
		h->qd = qd;
		h->qd_cap = (size_t)n;
	}
	h->nqd = 0;
	nl_cache_foreach(h->qdiscs, copy_one, h);
	return 0;
}
