// SPDX-License-Identifier: GPL-2.0-only
/* The qdisc of each TX queue, from libnl-route's qdisc cache (nl_qdisc.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/cache.h>
#include <netlink/msg.h>
#include <netlink/socket.h>
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

const struct bnl_qdisc *bnl_qdiscs(const struct bnl *h, size_t *n)
{
	*n = h->nqd;
	return h->qd;
}

/*
 * The direct dump (bnl_qdisc_dump): the messages read into one buffer kept
 * with the handle and parsed where they lie, with the policies and the
 * precedence of libnl's rtnl_tc_msg_parse (lib/route/tc.c) so that every
 * field is what the cache would hold: TCA_STATS2's basic and queue stats,
 * else the old TCA_STATS (no requeues there); a message libnl would refuse
 * (no kind, a bad attribute) is left out.
 */
#define DUMP_BUF	(64 * 1024)	/* a dump skb is at most ~32 KiB (netlink_recvmsg) */

static struct nla_policy tc_policy[TCA_MAX + 1] = {
	[TCA_KIND]	= { .type = NLA_STRING, .maxlen = 16 /* TCKINDSIZ */ },
	[TCA_STATS]	= { .minlen = sizeof(struct tc_stats) },
	[TCA_STATS2]	= { .type = NLA_NESTED },
};

static struct nla_policy tc_stats2_policy[TCA_STATS_MAX + 1] = {
	[TCA_STATS_BASIC]	= { .minlen = sizeof(struct gnet_stats_basic) },
	[TCA_STATS_RATE_EST]	= { .minlen = sizeof(struct gnet_stats_rate_est) },
	[TCA_STATS_QUEUE]	= { .minlen = sizeof(struct gnet_stats_queue) },
};

/* one RTM_NEWQDISC into @q; false: one libnl would not have cached */
static bool parse_one(struct nlmsghdr *n, struct bnl_qdisc *q)
{
	struct nlattr *tb[TCA_MAX + 1];
	const struct tcmsg *tm;

	if (nlmsg_parse(n, sizeof(*tm), tb, TCA_MAX, tc_policy) < 0 || !tb[TCA_KIND])
		return false;
	tm = nlmsg_data(n);
	memset(q, 0, sizeof(*q));
	nla_strlcpy(q->kind, tb[TCA_KIND], sizeof(q->kind));
	q->ifindex = tm->tcm_ifindex;
	q->handle = tm->tcm_handle;
	q->parent = tm->tcm_parent;
	if (tb[TCA_STATS2]) {
		struct nlattr *tbs[TCA_STATS_MAX + 1];

		if (nla_parse_nested(tbs, TCA_STATS_MAX, tb[TCA_STATS2], tc_stats2_policy) < 0)
			return false;
		if (tbs[TCA_STATS_BASIC]) {
			struct gnet_stats_basic bs;

			memcpy(&bs, nla_data(tbs[TCA_STATS_BASIC]), sizeof(bs));
			q->bytes = bs.bytes;
			q->packets = bs.packets;
		}
		if (tbs[TCA_STATS_QUEUE]) {
			struct gnet_stats_queue qs;

			memcpy(&qs, nla_data(tbs[TCA_STATS_QUEUE]), sizeof(qs));
			q->qlen = qs.qlen;
			q->backlog = qs.backlog;
			q->drops = qs.drops;
			q->requeues = qs.requeues;
			q->overlimits = qs.overlimits;
		}
	} else if (tb[TCA_STATS]) {
		struct tc_stats st;

		memcpy(&st, nla_data(tb[TCA_STATS]), sizeof(st));
		q->bytes = st.bytes;
		q->packets = st.packets;
		q->qlen = st.qlen;
		q->backlog = st.backlog;
		q->drops = st.drops;
		q->overlimits = st.overlimits;
	}
	return true;
}

static int qd_reserve(struct bnl *h, size_t n)
{
	struct bnl_qdisc *qd;
	size_t cap;

	if (n <= h->qd_cap)
		return 0;
	cap = h->qd_cap ? h->qd_cap * 2 : 64;
	while (cap < n)
		cap *= 2;
	qd = realloc(h->qd, cap * sizeof(*qd));
	if (!qd)
		return -ENOMEM;
	h->qd = qd;
	h->qd_cap = cap;
	return 0;
}

/* one dump: 0, -EAGAIN (interrupted: the kernel's list changed), or -errno */
static int dump_once(struct bnl *h, struct bql_err *e)
{
	int fd = nl_socket_get_fd(h->rt);
	/* a sequence of its own: libnl's (s_seq_next, s_seq_expect) stays as it was */
	unsigned int seq = ++h->dump_seq;
	struct {
		struct nlmsghdr n;
		struct tcmsg t;
	} req = {
		.n = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETQDISC,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = seq },
		.t = { .tcm_family = AF_UNSPEC },
	};
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	bool intr = false, oom = false;

	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return bql_err_set(e, errno, "rtnetlink qdisc dump: %s", strerror(errno));
	h->nqd = 0;
	for (;;) {
		struct iovec iov = { h->dump_buf, DUMP_BUF };
		struct sockaddr_nl from;
		struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof(from),
				     .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t len = recvmsg(fd, &mh, 0);
		int left;

		if (len < 0) {
			if (errno == EINTR)
				continue;
			return bql_err_set(e, errno, "rtnetlink qdisc dump: %s", strerror(errno));
		}
		if (mh.msg_flags & MSG_TRUNC)
			return bql_err_set(e, EMSGSIZE, "rtnetlink qdisc dump: message truncated");
		if (from.nl_pid != 0)		/* not from the kernel */
			continue;
		left = (int)len;
		for (struct nlmsghdr *n = (struct nlmsghdr *)h->dump_buf; nlmsg_ok(n, left);
		     n = nlmsg_next(n, &left)) {
			if (n->nlmsg_seq != seq)	/* an earlier request's leftover */
				continue;
			if (n->nlmsg_flags & NLM_F_DUMP_INTR)
				intr = true;
			if (n->nlmsg_type == NLMSG_DONE) {
				if (oom)
					return bql_err_set(e, ENOMEM, "qdiscs: out of memory");
				return intr ? -EAGAIN : 0;
			}
			if (n->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *err = nlmsg_data(n);
				int ev = n->nlmsg_len >= NLMSG_LENGTH(sizeof(*err)) && err->error ?
					 -err->error : EIO;

				return bql_err_set(e, ev, "rtnetlink qdisc dump: %s", strerror(ev));
			}
			if (n->nlmsg_type != RTM_NEWQDISC || oom)
				continue;
			/* out of memory: the dump is read to its end all the same, so
			 * that nothing of it is left for libnl's next request */
			if (qd_reserve(h, h->nqd + 1)) {
				oom = true;
				continue;
			}
			if (parse_one(n, &h->qd[h->nqd]))
				h->nqd++;
		}
	}
}

int bnl_qdisc_dump(struct bnl *h, struct bql_err *e)
{
	int ret;

	if (!h->dump_buf && !(h->dump_buf = malloc(DUMP_BUF)))
		return bql_err_set(e, ENOMEM, "qdiscs: out of memory");
	for (int tries = 0; tries < 8; tries++) {
		ret = dump_once(h, e);
		if (ret != -EAGAIN)
			break;
	}
	if (ret == -EAGAIN)
		ret = bql_err_set(e, EAGAIN, "rtnetlink qdisc dump: interrupted, try again");
	if (ret) {
		h->nqd = 0;
		bnl_qdisc_index_build(&h->qix, h->qd, 0);
		return ret;
	}
	bnl_qdisc_index_build(&h->qix, h->qd, h->nqd);
	return 0;
}
