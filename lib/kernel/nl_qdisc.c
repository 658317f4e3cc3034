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

static int key_cmp(const void *a, const void *b)
{
	const struct bnl_qdisc_key *x = a, *y = b;

	if (x->ifindex != y->ifindex)
		return x->ifindex < y->ifindex ? -1 : 1;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

int bnl_qdisc_index_build(struct bnl_qdisc_index *ix, const struct bnl_qdisc *qd, size_t n)
{
	ix->qd = qd;
	ix->n = 0;
	if (n > ix->cap) {
		struct bnl_qdisc_key *k = realloc(ix->key, n * sizeof(*k));

		if (!k)
			return -ENOMEM;
		ix->key = k;
		ix->cap = n;
	}
	for (size_t i = 0; i < n; i++)
		ix->key[i] = (struct bnl_qdisc_key){ qd[i].ifindex, qd[i].parent, (uint32_t)i };
	/* a dump lists them in order, or nearly: sorted only when not */
	for (size_t i = 1; i < n; i++)
		if (key_cmp(&ix->key[i - 1], &ix->key[i]) > 0) {
			qsort(ix->key, n, sizeof(*ix->key), key_cmp);
			break;
		}
	ix->n = n;
	return 0;
}

/* the first qdisc listed of @ifindex under @parent, or NULL */
static const struct bnl_qdisc *index_find(const struct bnl_qdisc_index *ix, int ifindex,
					  uint32_t parent)
{
	const struct bnl_qdisc_key want = { ifindex, parent, 0 };
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {	/* the first key >= want */
		size_t mid = lo + (hi - lo) / 2;

		if (key_cmp(&ix->key[mid], &want) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ix->n && ix->key[lo].ifindex == ifindex && ix->key[lo].parent == parent)
		return &ix->qd[ix->key[lo].pos];
	return NULL;
}

enum bnl_qdisc_scope bnl_qdisc_index_map(const struct bnl_qdisc_index *ix, int ifindex,
					 unsigned int ntx, unsigned int queue,
					 struct bnl_qdisc *out)
{
	const struct bnl_qdisc *root = index_find(ix, ifindex, BNL_TC_H_ROOT), *child;

	if (!root || queue >= ntx)
		return BNL_QD_NONE;
	if (!strcmp(root->kind, "mq") || !strcmp(root->kind, "mqprio")) {
		/* mq_queue_get(): class N is TX queue N - 1 */
		child = index_find(ix, ifindex, TC_MAJ(root->handle) | (queue + 1));
		if (!child)
			return BNL_QD_NONE;
		*out = *child;
		return BNL_QD_QUEUE;
	}
	*out = *root;
	return ntx == 1 ? BNL_QD_QUEUE : BNL_QD_DEVICE;
}

void bnl_qdisc_index_free(struct bnl_qdisc_index *ix)
{
	free(ix->key);
	memset(ix, 0, sizeof(*ix));
}

enum bnl_qdisc_scope bnl_qdisc_for_queue(const struct bnl *h, int ifindex, unsigned int ntx,
					 unsigned int queue, struct bnl_qdisc *out)
{
	if (h->qix.qd != h->qd || h->qix.n != h->nqd)	/* not indexed (no memory) */
		return bnl_qdisc_map(h->qd, h->nqd, ifindex, ntx, queue, out);
	return bnl_qdisc_index_map(&h->qix, ifindex, ntx, queue, out);
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
	/* once per dump: each queue's lookup is then a binary search */
	bnl_qdisc_index_build(&h->qix, h->qd, h->nqd);
	return 0;
}
