// SPDX-License-Identifier: GPL-2.0-only
/*
 * The `ethtool` generic netlink family: one RINGS_GET and one COALESCE_GET
 * request per call (never a dump), answered on the handle's genl socket.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/msg.h>
#include <netlink/genl/genl.h>

#include "lib/kernel/nl_ethtool.h"
#include "lib/kernel/nl_int.h"

/*
 * ABI values from include/uapi/linux/ethtool_netlink.h (since 6.14 the
 * enums live in include/uapi/linux/ethtool_netlink_generated.h, generated
 * from Documentation/netlink/specs/ethtool.yaml). Ids are only ever
 * appended; they are copied here because Debian 12's linux-libc-dev stops
 * before the TX aggregation ones, and prefixed ET_ so that they can never
 * clash with the installed header.
 */
#define ET_FAMILY			"ethtool"
#define ET_VERSION			1
#define ET_MSG_RINGS_GET		15	/* user -> kernel */
#define ET_MSG_COALESCE_GET		19
#define ET_MSG_RINGS_GET_REPLY		16	/* kernel -> user */
#define ET_MSG_COALESCE_GET_REPLY	20

enum {	/* ETHTOOL_A_HEADER_* (nest) */
	ET_A_HEADER_DEV_INDEX		= 1,	/* u32 */
};

enum {	/* ETHTOOL_A_RINGS_* */
	ET_A_RINGS_HEADER		= 1,	/* nest */
	ET_A_RINGS_TX_MAX		= 5,	/* u32 */
	ET_A_RINGS_TX			= 9,	/* u32 */
	ET_A_RINGS_LAST			= ET_A_RINGS_TX, /* later ids ignored */
};

enum {	/* ETHTOOL_A_COALESCE_* */
	ET_A_COALESCE_HEADER		= 1,	/* nest */
	ET_A_COALESCE_TX_USECS		= 6,	/* u32 */
	ET_A_COALESCE_TX_MAX_FRAMES	= 7,	/* u32 */
	ET_A_COALESCE_TX_USECS_IRQ	= 8,	/* u32 */
	ET_A_COALESCE_TX_MAX_FRAMES_IRQ	= 9,	/* u32 */
	ET_A_COALESCE_USE_ADAPTIVE_TX	= 12,	/* u8 */
	ET_A_COALESCE_USE_CQE_MODE_TX	= 24,	/* u8, 5.15 */
	ET_A_COALESCE_TX_AGGR_MAX_BYTES	= 26,	/* u32, 6.2 */
	ET_A_COALESCE_TX_AGGR_MAX_FRAMES = 27,	/* u32, 6.2 */
	ET_A_COALESCE_TX_AGGR_TIME_USECS = 28,	/* u32, 6.2 */
	ET_A_COALESCE_LAST		= ET_A_COALESCE_TX_AGGR_TIME_USECS,
};

#define ET_A_MAX	32	/* >= every *_LAST above: one table size */

/* ------------------------------------------------------------- parsing */

/* one attribute we read: its id, size (4 = u32, 1 = u8 as bool), slot */
struct et_field {
	int attr;
	unsigned int bit;
	unsigned int len;
	size_t off;
};

struct et_kind {
	const char *req;		/* "rings-get", for messages */
	const char *what;		/* "ring parameters" */
	uint8_t cmd, reply_cmd;
	int hdr_attr, last;
	const struct et_field *f;
	size_t nf;
	size_t size;			/* of the output struct */
	size_t present_off;
};

static const struct et_field ring_fields[] = {
	{ ET_A_RINGS_TX, BNL_RING_TX, 4, offsetof(struct bnl_ring, tx) },
	{ ET_A_RINGS_TX_MAX, BNL_RING_TX_MAX, 4, offsetof(struct bnl_ring, tx_max) },
};

#define COAL(a, b, l, m) { ET_A_COALESCE_##a, BNL_COAL_##b, l, offsetof(struct bnl_coal, m) }
static const struct et_field coal_fields[] = {
	COAL(TX_USECS, TX_USECS, 4, tx_usecs),
	COAL(TX_MAX_FRAMES, TX_MAX_FRAMES, 4, tx_max_frames),
	COAL(TX_USECS_IRQ, TX_USECS_IRQ, 4, tx_usecs_irq),
	COAL(TX_MAX_FRAMES_IRQ, TX_MAX_FRAMES_IRQ, 4, tx_max_frames_irq),
	COAL(USE_ADAPTIVE_TX, USE_ADAPTIVE_TX, 1, use_adaptive_tx),
	COAL(USE_CQE_MODE_TX, USE_CQE_MODE_TX, 1, use_cqe_mode_tx),
	COAL(TX_AGGR_MAX_BYTES, TX_AGGR_MAX_BYTES, 4, tx_aggr_max_bytes),
	COAL(TX_AGGR_MAX_FRAMES, TX_AGGR_MAX_FRAMES, 4, tx_aggr_max_frames),
	COAL(TX_AGGR_TIME_USECS, TX_AGGR_TIME_USECS, 4, tx_aggr_time_usecs),
};
#undef COAL

static const struct et_kind ring_kind = {
	.req = "rings-get", .what = "ring parameters",
	.cmd = ET_MSG_RINGS_GET, .reply_cmd = ET_MSG_RINGS_GET_REPLY,
	.hdr_attr = ET_A_RINGS_HEADER, .last = ET_A_RINGS_LAST,
	.f = ring_fields, .nf = sizeof(ring_fields) / sizeof(ring_fields[0]),
	.size = sizeof(struct bnl_ring),
	.present_off = offsetof(struct bnl_ring, present),
};

static const struct et_kind coal_kind = {
	.req = "coalesce-get", .what = "interrupt coalescing parameters",
	.cmd = ET_MSG_COALESCE_GET, .reply_cmd = ET_MSG_COALESCE_GET_REPLY,
	.hdr_attr = ET_A_COALESCE_HEADER, .last = ET_A_COALESCE_LAST,
	.f = coal_fields, .nf = sizeof(coal_fields) / sizeof(coal_fields[0]),
	.size = sizeof(struct bnl_coal),
	.present_off = offsetof(struct bnl_coal, present),
};

static int et_parse(const struct et_kind *k, struct nlmsghdr *nlh, void *out)
{
	struct nla_policy pol[ET_A_MAX + 1];
	struct nlattr *tb[ET_A_MAX + 1];
	unsigned int present = 0;
	struct genlmsghdr *gh;

	memset(out, 0, k->size);
	if (!genlmsg_valid_hdr(nlh, 0))
		return -EPROTO;
	gh = nlmsg_data(nlh);
	if (gh->cmd != k->reply_cmd)
		return -EPROTO;

	/* exact sizes: libnl checks minlen and maxlen, the type only names it */
	memset(pol, 0, sizeof(pol));
	/* libnl does not size-check a nest; the kernel's always holds at
	 * least the ifindex and the name */
	pol[k->hdr_attr].type = NLA_NESTED;
	pol[k->hdr_attr].minlen = NLA_HDRLEN;
	for (size_t i = 0; i < k->nf; i++) {
		pol[k->f[i].attr].type = k->f[i].len == 4 ? NLA_U32 : NLA_U8;
		pol[k->f[i].attr].minlen = (uint16_t)k->f[i].len;
		pol[k->f[i].attr].maxlen = (uint16_t)k->f[i].len;
	}
	/* ids above k->last (newer kernels, RX side we skip) are not kept */
	if (genlmsg_parse(nlh, 0, tb, k->last, pol) < 0)
		return -EPROTO;

	for (size_t i = 0; i < k->nf; i++) {
		struct nlattr *a = tb[k->f[i].attr];
		char *slot = (char *)out + k->f[i].off;

		if (!a)
			continue;
		if (k->f[i].len == 4) {
			uint32_t v = nla_get_u32(a);

			memcpy(slot, &v, sizeof(v));
		} else {
			bool v = nla_get_u8(a) != 0;

			memcpy(slot, &v, sizeof(v));
		}
		present |= k->f[i].bit;
	}
	memcpy((char *)out + k->present_off, &present, sizeof(present));
	return 0;
}

int bnl_ring_parse(struct nlmsghdr *nlh, struct bnl_ring *out)
{
	return et_parse(&ring_kind, nlh, out);
}

int bnl_coal_parse(struct nlmsghdr *nlh, struct bnl_coal *out)
{
	return et_parse(&coal_kind, nlh, out);
}

/* ------------------------------------------------------------- request */

static int ethtool_family(struct bnl *h, struct bql_err *e)
{
	int id;

	if (h->ethtool_id < 0)	/* absent: do not ask the controller again */
		return bql_err_set(e, EOPNOTSUPP,
				   "generic netlink family '%s' not found",
				   ET_FAMILY);
	if (h->ethtool_id > 0)
		return h->ethtool_id;
	id = bnl_genl_family(h, ET_FAMILY, e);
	if (id == -EOPNOTSUPP)
		h->ethtool_id = -1;
	else if (id > 0)
		h->ethtool_id = id;
	return id;
}

/* "eth0" from the snapshot if there is one, else "ifindex 7" */
static void et_obj(const struct bnl *h, int ifindex, char *buf, size_t n)
{
	for (size_t i = 0; h->loaded && i < h->nlinks; i++) {
		if (h->links[i].ifindex == ifindex) {
			snprintf(buf, n, "%s", h->links[i].ifname);
			return;
		}
	}
	snprintf(buf, n, "ifindex %d", ifindex);
}

struct et_reply {
	const struct et_kind *k;
	void *out;
	uint32_t seq;		/* of our request */
	bool done;		/* the reply, an error or an ACK arrived */
	bool got_reply;
	int kerr;		/* negative errno from NLMSG_ERROR, 0 if none */
	int parse_err;
};

/* No auto-ack on h->gn means no libnl sequence check: do our own. */
static int et_seq_cb(struct nl_msg *msg, void *arg)
{
	struct et_reply *r = arg;

	return nlmsg_hdr(msg)->nlmsg_seq == r->seq ? NL_OK : NL_SKIP;
}

static int et_valid_cb(struct nl_msg *msg, void *arg)
{
	struct et_reply *r = arg;

	r->parse_err = et_parse(r->k, nlmsg_hdr(msg), r->out);
	r->got_reply = true;
	r->done = true;
	return NL_STOP;
}

static int et_err_cb(struct sockaddr_nl *who, struct nlmsgerr *err, void *arg)
{
	struct et_reply *r = arg;

	(void)who;
	r->kerr = err->error;
	r->done = true;
	return NL_STOP;
}

/* an ACK we did not ask for would otherwise leave us waiting */
static int et_ack_cb(struct nl_msg *msg, void *arg)
{
	struct et_reply *r = arg;

	(void)msg;
	r->done = true;
	return NL_STOP;
}

/* Send one GET; 0 (see @r) or a negative NLE_* code. */
static int et_request(struct bnl *h, int family, int ifindex,
		      struct et_reply *r)
{
	struct nl_cb *cb;
	struct nlattr *hdr;
	struct nl_msg *msg;
	int ret;

	msg = nlmsg_alloc();
	if (!msg)
		return -NLE_NOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0,
			 r->k->cmd, ET_VERSION) ||
	    !(hdr = nla_nest_start(msg, r->k->hdr_attr)) ||
	    nla_put_u32(msg, ET_A_HEADER_DEV_INDEX, (uint32_t)ifindex) < 0) {
		nlmsg_free(msg);
		return -NLE_NOMEM;
	}
	nla_nest_end(msg, hdr);

	cb = bnl_genl_cb(h);
	if (!cb) {
		nlmsg_free(msg);
		return -NLE_NOMEM;
	}
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, et_seq_cb, r);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, et_valid_cb, r);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, et_ack_cb, r);
	nl_cb_err(cb, NL_CB_CUSTOM, et_err_cb, r);

	ret = nl_send_auto(h->gn, msg);
	if (ret >= 0) {
		r->seq = nlmsg_hdr(msg)->nlmsg_seq;
		/* a stale message (skipped) can come first: read on */
		for (int i = 0; i < 16 && !r->done; i++) {
			ret = nl_recvmsgs(h->gn, cb);
			if (r->done)	/* the error path returns the NLE */
				ret = 0;
			if (ret < 0)
				break;
		}
		if (ret >= 0 && !r->done)
			ret = -NLE_FAILURE;
	}
	nlmsg_free(msg);
	nl_cb_put(cb);
	return ret < 0 ? ret : 0;
}

static int et_get(struct bnl *h, const struct et_kind *k, int ifindex,
		  void *out, struct bql_err *e)
{
	struct et_reply r;
	char obj[40];
	int family, ret;

	memset(out, 0, k->size);
	if (ifindex <= 0)
		return bql_err_set(e, EINVAL, "ifindex %d: ethtool %s: invalid ifindex",
				   ifindex, k->req);
	family = ethtool_family(h, e);
	if (family < 0)
		return family;

	memset(&r, 0, sizeof(r));
	r.k = k;
	r.out = out;
	ret = et_request(h, family, ifindex, &r);
	et_obj(h, ifindex, obj, sizeof(obj));
	if (ret < 0)
		ret = bnl_err(e, ret, "%s: ethtool %s", obj, k->req);
	else if (r.kerr == -EOPNOTSUPP)
		ret = bql_err_set(e, EOPNOTSUPP,
				  "%s: no %s (the driver does not report them)",
				  obj, k->what);
	else if (r.kerr == -ENODEV)
		ret = bql_err_set(e, ENODEV, "%s: no such device", obj);
	else if (r.kerr < 0)
		ret = bql_err_set(e, -r.kerr, "%s: ethtool %s: %s", obj, k->req,
				  strerror(-r.kerr));
	else if (!r.got_reply)	/* an ACK alone: the kernel sent no data */
		ret = bql_err_set(e, EPROTO, "%s: ethtool %s: no reply",
				  obj, k->req);
	else if (r.parse_err)
		ret = bql_err_set(e, EPROTO, "%s: ethtool %s: malformed reply",
				  obj, k->req);
	else
		ret = 0;
	if (ret < 0)
		memset(out, 0, k->size);
	return ret;
}

int bnl_ring_get(struct bnl *h, int ifindex, struct bnl_ring *out,
		 struct bql_err *e)
{
	return et_get(h, &ring_kind, ifindex, out, e);
}

int bnl_coal_get(struct bnl *h, int ifindex, struct bnl_coal *out,
		 struct bql_err *e)
{
	return et_get(h, &coal_kind, ifindex, out, e);
}

const struct bnl_coal_field bnl_coal_fields[BNL_COAL_NFIELDS] = {
	{ BNL_COAL_TX_USECS,		"tx_usecs",		"tx-usecs",		false },
	{ BNL_COAL_TX_MAX_FRAMES,	"tx_max_frames",	"tx-frames",		false },
	{ BNL_COAL_TX_USECS_IRQ,	"tx_usecs_irq",		"tx-usecs-irq",		false },
	{ BNL_COAL_TX_MAX_FRAMES_IRQ,	"tx_max_frames_irq",	"tx-frames-irq",	false },
	{ BNL_COAL_USE_ADAPTIVE_TX,	"use_adaptive_tx",	"adaptive-tx",		true },
	{ BNL_COAL_USE_CQE_MODE_TX,	"use_cqe_mode_tx",	"cqe-mode-tx",		true },
	{ BNL_COAL_TX_AGGR_MAX_BYTES,	"tx_aggr_max_bytes",	"tx-aggr-max-bytes",	false },
	{ BNL_COAL_TX_AGGR_MAX_FRAMES,	"tx_aggr_max_frames",	"tx-aggr-max-frames",	false },
	{ BNL_COAL_TX_AGGR_TIME_USECS,	"tx_aggr_time_usecs",	"tx-aggr-time-usecs",	false },
};

uint32_t bnl_coal_value(const struct bnl_coal *c, const struct bnl_coal_field *f)
{
	switch (f->bit) {
	case BNL_COAL_TX_USECS:		return c->tx_usecs;
	case BNL_COAL_TX_MAX_FRAMES:	return c->tx_max_frames;
	case BNL_COAL_TX_USECS_IRQ:	return c->tx_usecs_irq;
	case BNL_COAL_TX_MAX_FRAMES_IRQ: return c->tx_max_frames_irq;
	case BNL_COAL_USE_ADAPTIVE_TX:	return c->use_adaptive_tx;
	case BNL_COAL_USE_CQE_MODE_TX:	return c->use_cqe_mode_tx;
	case BNL_COAL_TX_AGGR_MAX_BYTES: return c->tx_aggr_max_bytes;
	case BNL_COAL_TX_AGGR_MAX_FRAMES: return c->tx_aggr_max_frames;
	default:			return c->tx_aggr_time_usecs;
	}
}
