// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtnetlink links (libnl-route link cache, copied into a snapshot sorted by
 * ifindex) and the `netdev` generic netlink family's qstats-get dump.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/netlink.h>
#include <netlink/cache.h>
#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/route/link.h>

#include "lib/kernel/nl.h"
#include "lib/kernel/nl_int.h"

/*
 * include/uapi/linux/netdev.h (generated from
 * Documentation/netlink/specs/netdev.yaml). Ids are ABI and only ever
 * appended; copied here because distro linux-libc-dev may predate them.
 */
#define NETDEV_FAMILY		"netdev"
#define NETDEV_VERSION		1
#define NETDEV_CMD_QSTATS_GET	12	/* dump only, since 6.9 */
enum {
	QS_A_IFINDEX	= 1,	/* u32 */
	QS_A_QUEUE_TYPE	= 2,	/* u32, enum netdev_queue_type */
	QS_A_QUEUE_ID	= 3,	/* u32 */
	QS_A_SCOPE	= 4,	/* uint, flags netdev_qstats_scope */
	QS_A_TX_PACKETS	= 10,	/* counters: uint, 4 or 8 bytes */
	QS_A_TX_BYTES	= 11,
	QS_A_TX_HW_DROPS = 24,
	QS_A_TX_STOP	= 33,
	QS_A_TX_WAKE	= 34,
	QS_A_MAX	= QS_A_TX_WAKE,	/* later ids are ignored */
};
#define NETDEV_QUEUE_TYPE_TX		1
#define NETDEV_QSTATS_SCOPE_QUEUE	1


int bnl_errno(int nlerr)
{
	static const struct { int nle, err; } map[] = {
		{ NLE_SUCCESS,		0 },
		{ NLE_INTR,		EINTR },
		{ NLE_BAD_SOCK,		EBADF },
		{ NLE_AGAIN,		EAGAIN },
		{ NLE_NOMEM,		ENOMEM },
		{ NLE_EXIST,		EEXIST },
		{ NLE_INVAL,		EINVAL },
		{ NLE_RANGE,		ERANGE },
		{ NLE_MSGSIZE,		EMSGSIZE },
		{ NLE_OPNOTSUPP,	EOPNOTSUPP },
		{ NLE_AF_NOSUPPORT,	EAFNOSUPPORT },
		{ NLE_OBJ_NOTFOUND,	ENODEV },
		{ NLE_NOADDR,		EADDRNOTAVAIL },
		{ NLE_BUSY,		EBUSY },
		{ NLE_PROTO_MISMATCH,	EPROTONOSUPPORT },
		{ NLE_NOACCESS,		EACCES },
		{ NLE_PERM,		EPERM },
		{ NLE_NODEV,		ENODEV },
		{ NLE_DUMP_INTR,	EAGAIN },	/* retry the dump */
	};
	int nle = nlerr < 0 ? -nlerr : nlerr;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].nle == nle)
			return map[i].err;
	return EIO;
}

/* "WHAT: libnl text" with the mapped errno; returns -errno. */
int bnl_err(struct bql_err *e, int nlerr, const char *fmt, ...)
{
	char what[192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return bql_err_set(e, bnl_errno(nlerr), "%s: %s", what,
			   nl_geterror(nlerr));
}

static void copy_str(char *dst, size_t n, const char *src)
{
	size_t len = src ? strlen(src) : 0;

	if (len >= n)
		len = n - 1;
	if (len)
		memcpy(dst, src, len);
	dst[len] = '\0';
}

int bnl_open(struct bnl **out, struct bql_err *e)
{
	struct bnl *h;
	int ret;

	*out = NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return bql_err_set(e, ENOMEM, "netlink: out of memory");

	h->rt = nl_socket_alloc();
	if (!h->rt) {
		ret = bql_err_set(e, ENOMEM, "rtnetlink socket: out of memory");
		goto fail;
	}
	ret = nl_connect(h->rt, NETLINK_ROUTE);
	if (ret < 0) {
		ret = bnl_err(e, ret, "rtnetlink socket");
		goto fail;
	}
	/* empty cache: no socket means no dump yet */
	ret = rtnl_link_alloc_cache(NULL, AF_UNSPEC, &h->cache);
	if (ret < 0) {
		ret = bnl_err(e, ret, "rtnetlink link cache");
		goto fail;
	}

	/*
	 * The genl socket is made now, not when qstats are first asked for,
	 * because a netlink socket stays in the netns it was created in.
	 * Qstats are optional: a failure here is reported by
	 * bnl_qstats_dump, and bnl_open still succeeds.
	 */
	h->gn = nl_socket_alloc();
	if (!h->gn) {
		h->gn_err = NLE_NOMEM;
	} else if ((ret = genl_connect(h->gn)) < 0) {
		h->gn_err = -ret;
		nl_socket_free(h->gn);
		h->gn = NULL;
	} else {
		/* dumps are not ACKed; genl_ctrl_resolve copes either way */
		nl_socket_disable_auto_ack(h->gn);
	}

	*out = h;
	return 0;
fail:
	bnl_close(h);
	return ret;
}

void bnl_close(struct bnl *h)
{
	if (!h)
		return;
	if (h->cache)
		nl_cache_free(h->cache);
	if (h->qdiscs)
		nl_cache_free(h->qdiscs);
	free(h->qd);
	free(h->dump_buf);
	bnl_qdisc_index_free(&h->qix);
	if (h->rt)
		nl_socket_free(h->rt);
	if (h->gn)
		nl_socket_free(h->gn);
	free(h->links);
	free(h);
}

/* ---------------------------------------------------------------- links */

/* libnl keeps which attributes arrived in a private mask; its names do not */
static bool link_has_stats(struct rtnl_link *rl)
{
	char buf[1024], *tok, *save = NULL;

	nl_object_attr_list(OBJ_CAST(rl), buf, sizeof(buf));
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		if (!strcmp(tok, "stats"))
			return true;
	}
	return false;
}

static void link_from_rtnl(struct rtnl_link *rl, struct bnl_link *l)
{
	char buf[32];

	memset(l, 0, sizeof(*l));
	l->ifindex = rtnl_link_get_ifindex(rl);
	copy_str(l->ifname, sizeof(l->ifname), rtnl_link_get_name(rl));
	rtnl_link_operstate2str(rtnl_link_get_operstate(rl), buf, sizeof(buf));
	copy_str(l->operstate, sizeof(l->operstate), buf);
	for (char *p = l->operstate; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	l->mtu = rtnl_link_get_mtu(rl);
	l->txqlen = rtnl_link_get_txqlen(rl);
	l->num_tx_queues = rtnl_link_get_num_tx_queues(rl);
	copy_str(l->qdisc, sizeof(l->qdisc), rtnl_link_get_qdisc(rl));
	copy_str(l->kind, sizeof(l->kind), rtnl_link_get_type(rl));
	l->flags = rtnl_link_get_flags(rl);
	l->has_stats = link_has_stats(rl);
	l->tx_bytes = rtnl_link_get_stat(rl, RTNL_LINK_TX_BYTES);
	l->tx_packets = rtnl_link_get_stat(rl, RTNL_LINK_TX_PACKETS);
	l->tx_errors = rtnl_link_get_stat(rl, RTNL_LINK_TX_ERRORS);
	l->tx_dropped = rtnl_link_get_stat(rl, RTNL_LINK_TX_DROPPED);
	l->rx_bytes = rtnl_link_get_stat(rl, RTNL_LINK_RX_BYTES);
	l->rx_packets = rtnl_link_get_stat(rl, RTNL_LINK_RX_PACKETS);
}

static int link_cmp(const void *a, const void *b)
{
	const struct bnl_link *x = a, *y = b;

	return (x->ifindex > y->ifindex) - (x->ifindex < y->ifindex);
}

int bnl_refresh(struct bnl *h, struct bql_err *e)
{
	struct bnl_link *v = NULL;
	struct nl_object *o;
	size_t n = 0;
	int ret, cnt;

	ret = nl_cache_refill(h->rt, h->cache);
	if (ret < 0)
		return bnl_err(e, ret, "rtnetlink link dump");

	cnt = nl_cache_nitems(h->cache);
	if (cnt > 0) {
		v = calloc((size_t)cnt, sizeof(*v));
		if (!v)
			return bql_err_set(e, ENOMEM,
					   "rtnetlink link dump: out of memory");
	}
	for (o = nl_cache_get_first(h->cache); o && n < (size_t)cnt;
	     o = nl_cache_get_next(o))
		link_from_rtnl((struct rtnl_link *)o, &v[n++]);
	/* the dump's order is the kernel's hash order on older kernels */
	if (n > 1)
		qsort(v, n, sizeof(*v), link_cmp);

	free(h->links);
	h->links = v;
	h->nlinks = n;
	h->loaded = true;
	/* the copies are all we use: give the objects back now */
	nl_cache_clear(h->cache);
	return 0;
}

static int ensure_loaded(struct bnl *h, struct bql_err *e)
{
	return h->loaded ? 0 : bnl_refresh(h, e);
}

int bnl_link_get(struct bnl *h, const char *ifname, struct bnl_link *out,
		 struct bql_err *e)
{
	int ret = ensure_loaded(h, e);

	if (ret < 0)
		return ret;
	for (size_t i = 0; i < h->nlinks; i++) {
		if (!strcmp(h->links[i].ifname, ifname)) {
			*out = h->links[i];
			return 0;
		}
	}
	return bql_err_set(e, ENODEV, "%s: no such device", ifname);
}

int bnl_link_get_index(struct bnl *h, int ifindex, struct bnl_link *out,
		       struct bql_err *e)
{
	int ret = ensure_loaded(h, e);

	if (ret < 0)
		return ret;
	for (size_t i = 0; i < h->nlinks; i++) {
		if (h->links[i].ifindex == ifindex) {
			*out = h->links[i];
			return 0;
		}
	}
	return bql_err_set(e, ENODEV, "ifindex %d: no such device", ifindex);
}

int bnl_link_foreach(struct bnl *h,
		     int (*cb)(const struct bnl_link *l, void *arg), void *arg)
{
	int ret = ensure_loaded(h, NULL);

	if (ret < 0)
		return ret;
	for (size_t i = 0; i < h->nlinks; i++) {
		ret = cb(&h->links[i], arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* --------------------------------------------------------- genl qstats */

struct nl_cb *bnl_genl_cb(struct bnl *h)
{
	struct nl_cb *base = nl_socket_get_cb(h->gn);	/* honours NLCB=debug */
	struct nl_cb *cb = nl_cb_clone(base);

	nl_cb_put(base);
	return cb;
}

int bnl_genl_family(struct bnl *h, const char *name, struct bql_err *e)
{
	int id;

	if (!h->gn)
		return bnl_err(e, h->gn_err, "generic netlink socket");
	id = genl_ctrl_resolve(h->gn, name);
	if (id == -NLE_OBJ_NOTFOUND)
		return bql_err_set(e, EOPNOTSUPP,
				   "generic netlink family '%s' not found%s",
				   name, strcmp(name, NETDEV_FAMILY) ? "" :
				   ": kernel before 6.3?");
	if (id < 0)
		return bnl_err(e, id, "generic netlink family '%s'", name);
	return id;
}

static int netdev_family(struct bnl *h, struct bql_err *e)
{
	int id;

	if (h->netdev_id < 0)	/* absent: do not ask on every sample */
		return bql_err_set(e, EOPNOTSUPP,
				   "generic netlink family '%s' not found: %s",
				   NETDEV_FAMILY, "kernel before 6.3?");
	if (h->netdev_id > 0)
		return h->netdev_id;
	id = bnl_genl_family(h, NETDEV_FAMILY, e);
	if (id == -EOPNOTSUPP)
		h->netdev_id = -1;
	else if (id > 0)
		h->netdev_id = id;
	return id;
}

/* an NLA_UINT: the kernel sends 4 bytes when the value fits, else 8 */
static int get_uint(const struct nlattr *a, uint64_t *v)
{
	uint32_t v32;

	switch (nla_len(a)) {
	case 4:
		memcpy(&v32, nla_data(a), sizeof(v32));
		*v = v32;
		return 0;
	case 8:
		memcpy(v, nla_data(a), sizeof(*v));
		return 0;
	}
	return -EPROTO;
}

int bnl_qstats_parse(struct nlmsghdr *nlh, struct bnl_qstats *q)
{
	static const struct { int attr; unsigned int bit; size_t off; } ctr[] = {
		{ QS_A_TX_PACKETS, BNL_QS_TX_PACKETS,
		  offsetof(struct bnl_qstats, tx_packets) },
		{ QS_A_TX_BYTES, BNL_QS_TX_BYTES,
		  offsetof(struct bnl_qstats, tx_bytes) },
		{ QS_A_TX_STOP, BNL_QS_TX_STOP,
		  offsetof(struct bnl_qstats, tx_stop) },
		{ QS_A_TX_WAKE, BNL_QS_TX_WAKE,
		  offsetof(struct bnl_qstats, tx_wake) },
		{ QS_A_TX_HW_DROPS, BNL_QS_TX_HW_DROPS,
		  offsetof(struct bnl_qstats, tx_hw_drops) },
	};
	struct nla_policy pol[QS_A_MAX + 1];
	struct nlattr *tb[QS_A_MAX + 1];
	uint64_t v;

	memset(pol, 0, sizeof(pol));
	pol[QS_A_IFINDEX].type = NLA_U32;
	pol[QS_A_QUEUE_TYPE].type = NLA_U32;
	pol[QS_A_QUEUE_ID].type = NLA_U32;
	for (size_t i = 0; i < sizeof(ctr) / sizeof(ctr[0]); i++) {
		pol[ctr[i].attr].minlen = 4;
		pol[ctr[i].attr].maxlen = 8;
	}
	if (!genlmsg_valid_hdr(nlh, 0) ||
	    genlmsg_parse(nlh, 0, tb, QS_A_MAX, pol) < 0)
		return -EPROTO;
	/* device-scope totals have no queue; RX queues are not ours */
	if (!tb[QS_A_IFINDEX] || !tb[QS_A_QUEUE_TYPE] || !tb[QS_A_QUEUE_ID] ||
	    nla_get_u32(tb[QS_A_QUEUE_TYPE]) != NETDEV_QUEUE_TYPE_TX)
		return 0;

	memset(q, 0, sizeof(*q));
	q->ifindex = (int)nla_get_u32(tb[QS_A_IFINDEX]);
	q->queue = nla_get_u32(tb[QS_A_QUEUE_ID]);
	for (size_t i = 0; i < sizeof(ctr) / sizeof(ctr[0]); i++) {
		if (!tb[ctr[i].attr])
			continue;
		if (get_uint(tb[ctr[i].attr], &v) < 0)
			return -EPROTO;
		memcpy((char *)q + ctr[i].off, &v, sizeof(v));
		q->present |= ctr[i].bit;
	}
	return 1;
}

struct qs_dump {
	struct bnl_qstats *v;
	size_t n, cap;
	int ifindex;		/* 0 = every device */
	int parse_err;		/* first -errno from a reply */
	int done_err;		/* the errno the kernel put in NLMSG_DONE */
};

static int qs_valid_cb(struct nl_msg *msg, void *arg)
{
	struct qs_dump *d = arg;
	struct bnl_qstats q;
	int ret = bnl_qstats_parse(nlmsg_hdr(msg), &q);

	/* never stop early: the rest of the dump would stay queued */
	if (ret < 0) {
		if (!d->parse_err)
			d->parse_err = ret;
		return NL_SKIP;
	}
	if (!ret || (d->ifindex && q.ifindex != d->ifindex))
		return NL_OK;
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 16;
		struct bnl_qstats *nv = realloc(d->v, cap * sizeof(*nv));

		if (!nv) {
			if (!d->parse_err)
				d->parse_err = -ENOMEM;
			return NL_SKIP;
		}
		d->v = nv;
		d->cap = cap;
	}
	d->v[d->n++] = q;
	return NL_OK;
}

/*
 * A dump that fails once started (no such ifindex, driver without stats)
 * ends with NLMSG_DONE carrying the negative errno; libnl ignores it.
 */
static int qs_finish_cb(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct qs_dump *d = arg;
	int err = 0;

	if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(err)))
		memcpy(&err, nlmsg_data(nlh), sizeof(err));
	d->done_err = err;
	return NL_STOP;
}

/* One dump; returns 0 or a negative NLE_* code (the request or the ack). */
static int qs_dump_once(struct bnl *h, int family, struct qs_dump *d)
{
	struct nl_cb *cb;
	struct nl_msg *msg;
	int ret;

	msg = nlmsg_alloc();
	if (!msg)
		return -NLE_NOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_DUMP,
			 NETDEV_CMD_QSTATS_GET, NETDEV_VERSION) ||
	    (d->ifindex > 0 &&
	     nla_put_u32(msg, QS_A_IFINDEX, (uint32_t)d->ifindex) < 0) ||
	    nla_put_u32(msg, QS_A_SCOPE, NETDEV_QSTATS_SCOPE_QUEUE) < 0) {
		nlmsg_free(msg);
		return -NLE_NOMEM;
	}

	cb = bnl_genl_cb(h);
	if (!cb) {
		nlmsg_free(msg);
		return -NLE_NOMEM;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, qs_valid_cb, d);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, qs_finish_cb, d);

	ret = nl_send_auto(h->gn, msg);
	nlmsg_free(msg);
	if (ret >= 0)
		ret = nl_recvmsgs(h->gn, cb);
	nl_cb_put(cb);
	return ret < 0 ? ret : 0;
}

static int qs_cmp(const void *a, const void *b)
{
	const struct bnl_qstats *x = a, *y = b;

	if (x->ifindex != y->ifindex)
		return (x->ifindex > y->ifindex) - (x->ifindex < y->ifindex);
	return (x->queue > y->queue) - (x->queue < y->queue);
}

/* "eth0: " / "ifindex 7: " / "" for messages */
static void qs_obj(struct bnl *h, int ifindex, char *buf, size_t n)
{
	buf[0] = '\0';
	if (ifindex <= 0)
		return;
	for (size_t i = 0; i < h->nlinks; i++) {
		if (h->links[i].ifindex == ifindex) {
			snprintf(buf, n, "%s: ", h->links[i].ifname);
			return;
		}
	}
	snprintf(buf, n, "ifindex %d: ", ifindex);
}

int bnl_qstats_dump(struct bnl *h, int ifindex, struct bnl_qstats **out,
		    struct bql_err *e)
{
	struct qs_dump d;
	char obj[40];
	int family, ret;

	*out = NULL;
	family = netdev_family(h, e);
	if (family < 0)
		return family;
	qs_obj(h, ifindex, obj, sizeof(obj));

	for (int tries = 0;; tries++) {
		memset(&d, 0, sizeof(d));
		d.ifindex = ifindex > 0 ? ifindex : 0;
		ret = qs_dump_once(h, family, &d);
		if (ret != -NLE_DUMP_INTR || tries == 3)
			break;
		free(d.v);
	}

	if (ret == -NLE_OPNOTSUPP) {
		/* refused before the dump started: the command is unknown */
		ret = bql_err_set(e, EOPNOTSUPP,
				  "generic netlink family '%s' has no qstats-get "
				  "command: kernel before 6.9?", NETDEV_FAMILY);
	} else if (ret < 0) {
		ret = bnl_err(e, ret, "%snetdev qstats-get dump", obj);
	} else if (d.parse_err == -ENOMEM) {
		ret = bql_err_set(e, ENOMEM, "%snetdev qstats-get dump: out of memory",
				  obj);
	} else if (d.parse_err) {
		ret = bql_err_set(e, EPROTO, "%snetdev qstats-get dump: malformed reply",
				  obj);
	} else if (d.done_err == -EOPNOTSUPP && d.ifindex) {
		ret = 0;	/* the driver has no per-queue stats */
		d.n = 0;
	} else if (d.done_err == -ENODEV) {
		ret = bql_err_set(e, ENODEV, "%sno such device",
				  obj[0] ? obj : "netdev qstats-get: ");
	} else if (d.done_err < 0) {
		ret = bql_err_set(e, -d.done_err, "%snetdev qstats-get dump: %s",
				  obj, strerror(-d.done_err));
	} else {
		ret = 0;
	}
	if (ret < 0 || !d.n) {
		free(d.v);
		return ret;
	}
	qsort(d.v, d.n, sizeof(*d.v), qs_cmp);
	*out = d.v;
	return (int)d.n;
}
