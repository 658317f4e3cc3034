// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/kernel/nl_ethtool.c: both parsers on replies built with libnl (every field,
 * absent ones, unknown ids, wrong sizes, booleans), then the request's
 * error paths on a real handle (family cached absent, no genl socket) and
 * read-only live checks on lo. Live tests skip with a reason.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>
#include <net/if.h>

#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/socket.h>
#include <netlink/genl/genl.h>

#include "lib/kernel/nl.h"
#include "lib/kernel/nl_ethtool.h"
#include "lib/kernel/nl_int.h"

/* the kernel's ids (include/uapi/linux/ethtool_netlink*.h), spelled out */
enum { RINGS_REPLY = 16, COAL_REPLY = 20, RINGS_GET = 15 };
enum { H_DEV_INDEX = 1, H_DEV_NAME = 2 };
enum { R_HEADER = 1, R_RX_MAX = 2, R_TX_MAX = 5, R_RX = 6, R_TX = 9,
       R_TX_PUSH = 13, R_HDS_THRESH = 17 };
enum { C_HEADER = 1, C_RX_USECS = 2, C_RX_MAX_FRAMES = 3, C_TX_USECS = 6,
       C_TX_MAX_FRAMES = 7, C_TX_USECS_IRQ = 8, C_TX_MAX_FRAMES_IRQ = 9,
       C_USE_ADAPTIVE_RX = 11, C_USE_ADAPTIVE_TX = 12, C_USE_CQE_MODE_TX = 24,
       C_USE_CQE_MODE_RX = 25, C_TX_AGGR_MAX_BYTES = 26,
       C_TX_AGGR_MAX_FRAMES = 27, C_TX_AGGR_TIME_USECS = 28,
       C_TX_PROFILE = 30 };

/* a reply as the kernel builds it: genl header, then the header nest */
static struct nl_msg *reply(uint8_t cmd)
{
	struct nl_msg *m = nlmsg_alloc();
	struct nlattr *hdr;

	assert_non_null(m);
	assert_non_null(genlmsg_put(m, 0, 0, 42, 0, 0, cmd, 1));
	hdr = nla_nest_start(m, 1);	/* *_HEADER is 1 in both */
	assert_non_null(hdr);
	assert_int_equal(nla_put_u32(m, H_DEV_INDEX, 4), 0);
	assert_int_equal(nla_put_string(m, H_DEV_NAME, "eth0"), 0);
	nla_nest_end(m, hdr);
	return m;
}

/* ---------------------------------------------------------------- rings */

static void test_ring_all(void **state)
{
	struct nl_msg *m = reply(RINGS_REPLY);
	struct bnl_ring r;

	(void)state;
	assert_int_equal(nla_put_u32(m, R_RX_MAX, 4096), 0);
	assert_int_equal(nla_put_u32(m, R_TX_MAX, 4096), 0);
	assert_int_equal(nla_put_u32(m, R_RX, 1024), 0);
	assert_int_equal(nla_put_u32(m, R_TX, 512), 0);
	assert_int_equal(nla_put_u8(m, R_TX_PUSH, 0), 0);
	assert_int_equal(nla_put_u32(m, R_HDS_THRESH, 0), 0);	/* 6.13 */
	assert_int_equal(nla_put_u64(m, 60, 7), 0);	/* a future id */

	assert_int_equal(bnl_ring_parse(nlmsg_hdr(m), &r), 0);
	assert_int_equal(r.present, BNL_RING_TX | BNL_RING_TX_MAX);
	assert_int_equal(r.tx, 512);
	assert_int_equal(r.tx_max, 4096);
	nlmsg_free(m);
}

/* a driver with tx_max_pending 0: the kernel sends neither */
static void test_ring_absent(void **state)
{
	struct nl_msg *m = reply(RINGS_REPLY);
	struct bnl_ring r;

	(void)state;
	memset(&r, 0xff, sizeof(r));
	assert_int_equal(nla_put_u32(m, R_RX_MAX, 256), 0);
	assert_int_equal(nla_put_u32(m, R_RX, 256), 0);
	assert_int_equal(bnl_ring_parse(nlmsg_hdr(m), &r), 0);
	assert_int_equal(r.present, 0);
	assert_int_equal(r.tx, 0);
	assert_int_equal(r.tx_max, 0);
	nlmsg_free(m);
}

/* one of the two only (not what the kernel does, but each bit is its own) */
static void test_ring_tx_only(void **state)
{
	struct nl_msg *m = reply(RINGS_REPLY);
	struct bnl_ring r;

	(void)state;
	assert_int_equal(nla_put_u32(m, R_TX, 0), 0);
	assert_int_equal(bnl_ring_parse(nlmsg_hdr(m), &r), 0);
	assert_int_equal(r.present, BNL_RING_TX);	/* 0 is a value here */
	assert_int_equal(r.tx, 0);
	assert_int_equal(r.tx_max, 0);
	nlmsg_free(m);
}

static void test_ring_wrong_size(void **state)
{
	struct nl_msg *m;
	struct bnl_ring r;

	(void)state;
	m = reply(RINGS_REPLY);
	assert_int_equal(nla_put_u16(m, R_TX, 256), 0);
	memset(&r, 0xff, sizeof(r));
	assert_int_equal(bnl_ring_parse(nlmsg_hdr(m), &r), -EPROTO);
	assert_int_equal(r.present, 0);		/* zeroed, not half filled */
	assert_int_equal(r.tx, 0);
	nlmsg_free(m);

	m = reply(RINGS_REPLY);
	assert_int_equal(nla_put_u32(m, R_TX, 256), 0);
	assert_int_equal(nla_put_u64(m, R_TX_MAX, 256), 0);
	assert_int_equal(bnl_ring_parse(nlmsg_hdr(m), &r), -EPROTO);
	nlmsg_free(m);

	/* the header must be a nest, not a scalar of 1 byte */
	m = nlmsg_alloc();
	assert_non_null(m);
	assert_non_null(genlmsg_put(m, 0, 0, 42, 0, 0, RINGS_REPLY, 1));
	assert_int_equal(nla_put_u8(m, R_HEADER, 1), 0);
	assert_int_equal(bnl_ring_parse(nlmsg_hdr(m), &r), -EPROTO);
	nlmsg_free(m);
}

static void test_ring_not_a_reply(void **state)
{
	struct nl_msg *m;
	struct bnl_ring r;
	struct bnl_coal c;
	struct nlmsghdr *nlh;

	(void)state;
	/* a coalesce reply, or the request itself, is not a rings reply */
	m = reply(COAL_REPLY);
	assert_int_equal(nla_put_u32(m, R_TX, 256), 0);
	assert_int_equal(bnl_ring_parse(nlmsg_hdr(m), &r), -EPROTO);
	nlmsg_free(m);
	m = reply(RINGS_GET);
	assert_int_equal(bnl_ring_parse(nlmsg_hdr(m), &r), -EPROTO);
	nlmsg_free(m);
	m = reply(RINGS_REPLY);
	assert_int_equal(bnl_coal_parse(nlmsg_hdr(m), &c), -EPROTO);
	nlmsg_free(m);

	/* too short to hold a genl header */
	m = nlmsg_alloc();
	assert_non_null(m);
	nlh = nlmsg_put(m, 0, 0, 42, 2, 0);
	assert_non_null(nlh);
	assert_int_equal(bnl_ring_parse(nlh, &r), -EPROTO);
	assert_int_equal(bnl_coal_parse(nlh, &c), -EPROTO);
	nlmsg_free(m);
}

/* ------------------------------------------------------------- coalesce */

static void test_coal_all(void **state)
{
	struct nl_msg *m = reply(COAL_REPLY);
	struct nlattr *prof;
	struct bnl_coal c;

	(void)state;
	/* RX side and ids we do not read, in between */
	assert_int_equal(nla_put_u32(m, C_RX_USECS, 50), 0);
	assert_int_equal(nla_put_u32(m, C_RX_MAX_FRAMES, 64), 0);
	assert_int_equal(nla_put_u32(m, C_TX_USECS, 100), 0);
	assert_int_equal(nla_put_u32(m, C_TX_MAX_FRAMES, 32), 0);
	assert_int_equal(nla_put_u32(m, C_TX_USECS_IRQ, 20), 0);
	assert_int_equal(nla_put_u32(m, C_TX_MAX_FRAMES_IRQ, 4), 0);
	assert_int_equal(nla_put_u8(m, C_USE_ADAPTIVE_RX, 1), 0);
	assert_int_equal(nla_put_u8(m, C_USE_ADAPTIVE_TX, 1), 0);
	assert_int_equal(nla_put_u8(m, C_USE_CQE_MODE_TX, 1), 0);
	assert_int_equal(nla_put_u8(m, C_USE_CQE_MODE_RX, 0), 0);
	assert_int_equal(nla_put_u32(m, C_TX_AGGR_MAX_BYTES, 32768), 0);
	assert_int_equal(nla_put_u32(m, C_TX_AGGR_MAX_FRAMES, 16), 0);
	assert_int_equal(nla_put_u32(m, C_TX_AGGR_TIME_USECS, 300), 0);
	/* 6.10's nested DIM profile and something newer still */
	prof = nla_nest_start(m, C_TX_PROFILE);
	assert_non_null(prof);
	assert_int_equal(nla_put_u32(m, 1, 8), 0);
	nla_nest_end(m, prof);
	assert_int_equal(nla_put_u16(m, 50, 3), 0);

	assert_int_equal(bnl_coal_parse(nlmsg_hdr(m), &c), 0);
	assert_int_equal(c.present, BNL_COAL_TX_USECS | BNL_COAL_TX_MAX_FRAMES |
			 BNL_COAL_TX_USECS_IRQ | BNL_COAL_TX_MAX_FRAMES_IRQ |
			 BNL_COAL_USE_ADAPTIVE_TX | BNL_COAL_USE_CQE_MODE_TX |
			 BNL_COAL_TX_AGGR_MAX_BYTES | BNL_COAL_TX_AGGR_MAX_FRAMES |
			 BNL_COAL_TX_AGGR_TIME_USECS);
	assert_int_equal(c.tx_usecs, 100);
	assert_int_equal(c.tx_max_frames, 32);
	assert_int_equal(c.tx_usecs_irq, 20);
	assert_int_equal(c.tx_max_frames_irq, 4);
	assert_true(c.use_adaptive_tx);
	assert_true(c.use_cqe_mode_tx);
	assert_int_equal(c.tx_aggr_max_bytes, 32768);
	assert_int_equal(c.tx_aggr_max_frames, 16);
	assert_int_equal(c.tx_aggr_time_usecs, 300);
	nlmsg_free(m);
}

/* what virtio_net sends: tx-usecs 0, tx-frames 1, adaptive RX only */
static void test_coal_some_absent(void **state)
{
	struct nl_msg *m = reply(COAL_REPLY);
	struct bnl_coal c;

	(void)state;
	memset(&c, 0xff, sizeof(c));
	assert_int_equal(nla_put_u32(m, C_RX_USECS, 0), 0);
	assert_int_equal(nla_put_u32(m, C_RX_MAX_FRAMES, 1), 0);
	assert_int_equal(nla_put_u32(m, C_TX_USECS, 0), 0);
	assert_int_equal(nla_put_u32(m, C_TX_MAX_FRAMES, 1), 0);
	assert_int_equal(nla_put_u8(m, C_USE_ADAPTIVE_RX, 0), 0);

	assert_int_equal(bnl_coal_parse(nlmsg_hdr(m), &c), 0);
	assert_int_equal(c.present, BNL_COAL_TX_USECS | BNL_COAL_TX_MAX_FRAMES);
	assert_int_equal(c.tx_usecs, 0);
	assert_int_equal(c.tx_max_frames, 1);
	assert_int_equal(c.tx_usecs_irq, 0);
	assert_int_equal(c.tx_max_frames_irq, 0);
	assert_false(c.use_adaptive_tx);
	assert_false(c.use_cqe_mode_tx);
	assert_int_equal(c.tx_aggr_max_bytes, 0);
	assert_int_equal(c.tx_aggr_max_frames, 0);
	assert_int_equal(c.tx_aggr_time_usecs, 0);
	nlmsg_free(m);

	/* nothing at all: 0, present 0 */
	m = reply(COAL_REPLY);
	assert_int_equal(bnl_coal_parse(nlmsg_hdr(m), &c), 0);
	assert_int_equal(c.present, 0);
	nlmsg_free(m);
}

static void test_coal_bools(void **state)
{
	struct nl_msg *m;
	struct bnl_coal c;

	(void)state;
	/* present and false is not absent */
	m = reply(COAL_REPLY);
	assert_int_equal(nla_put_u8(m, C_USE_ADAPTIVE_TX, 0), 0);
	assert_int_equal(nla_put_u8(m, C_USE_CQE_MODE_TX, 0), 0);
	assert_int_equal(bnl_coal_parse(nlmsg_hdr(m), &c), 0);
	assert_int_equal(c.present, BNL_COAL_USE_ADAPTIVE_TX |
			 BNL_COAL_USE_CQE_MODE_TX);
	assert_false(c.use_adaptive_tx);
	assert_false(c.use_cqe_mode_tx);
	nlmsg_free(m);

	/* any non-zero byte is true */
	m = reply(COAL_REPLY);
	assert_int_equal(nla_put_u8(m, C_USE_ADAPTIVE_TX, 2), 0);
	assert_int_equal(bnl_coal_parse(nlmsg_hdr(m), &c), 0);
	assert_int_equal(c.present, BNL_COAL_USE_ADAPTIVE_TX);
	assert_true(c.use_adaptive_tx);
	assert_false(c.use_cqe_mode_tx);
	nlmsg_free(m);
}

static void test_coal_wrong_size(void **state)
{
	static const struct { int attr; int len; } bad[] = {
		{ C_TX_USECS, 1 }, { C_TX_USECS, 8 }, { C_TX_MAX_FRAMES, 2 },
		{ C_TX_USECS_IRQ, 0 }, { C_TX_MAX_FRAMES_IRQ, 8 },
		{ C_USE_ADAPTIVE_TX, 4 }, { C_USE_CQE_MODE_TX, 0 },
		{ C_USE_CQE_MODE_TX, 2 }, { C_TX_AGGR_MAX_BYTES, 1 },
		{ C_TX_AGGR_MAX_FRAMES, 8 }, { C_TX_AGGR_TIME_USECS, 2 },
	};
	static const uint8_t zero[8];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct nl_msg *m = reply(COAL_REPLY);
		struct bnl_coal c;

		assert_int_equal(nla_put_u32(m, C_TX_MAX_FRAMES_IRQ + 100, 1), 0);
		if (bad[i].attr != C_TX_USECS)
			assert_int_equal(nla_put_u32(m, C_TX_USECS, 9), 0);
		assert_int_equal(nla_put(m, bad[i].attr, bad[i].len, zero), 0);
		memset(&c, 0xff, sizeof(c));
		assert_int_equal(bnl_coal_parse(nlmsg_hdr(m), &c), -EPROTO);
		assert_int_equal(c.present, 0);
		assert_int_equal(c.tx_usecs, 0);
		nlmsg_free(m);
	}
	/* a wrong size on an id we do not read is not our business */
	{
		struct nl_msg *m = reply(COAL_REPLY);
		struct bnl_coal c;

		assert_int_equal(nla_put(m, C_RX_USECS, 1, zero), 0);
		assert_int_equal(nla_put_u32(m, C_TX_USECS, 9), 0);
		assert_int_equal(bnl_coal_parse(nlmsg_hdr(m), &c), 0);
		assert_int_equal(c.present, BNL_COAL_TX_USECS);
		assert_int_equal(c.tx_usecs, 9);
		nlmsg_free(m);
	}
}

/* ------------------------------------------ requests on a real handle */

static struct bnl *open_or_skip(void)
{
	struct bql_err e = { 0 };
	struct bnl *h = NULL;

	if (bnl_open(&h, &e) < 0) {
		print_message("skip: bnl_open: %s\n", e.msg);
		skip();
	}
	assert_non_null(h);
	return h;
}

static void test_get_family_cached_absent(void **state)
{
	struct bql_err e = { 0 };
	struct bnl *h = open_or_skip();
	struct bnl_ring r;
	struct bnl_coal c;

	(void)state;
	h->ethtool_id = -1;	/* as after a kernel without the family */
	assert_int_equal(bnl_ring_get(h, 1, &r, &e), -EOPNOTSUPP);
	assert_int_equal(e.code, EOPNOTSUPP);
	assert_string_equal(e.msg, "generic netlink family 'ethtool' not found");
	memset(&e, 0, sizeof(e));
	assert_int_equal(bnl_coal_get(h, 1, &c, &e), -EOPNOTSUPP);
	assert_string_equal(e.msg, "generic netlink family 'ethtool' not found");
	bnl_close(h);
}

static void test_get_no_genl_socket(void **state)
{
	struct bql_err e = { 0 };
	struct bnl *h = open_or_skip();
	struct bnl_ring r;

	(void)state;
	/* as bnl_open leaves it when genl_connect failed */
	nl_socket_free(h->gn);
	h->gn = NULL;
	h->gn_err = NLE_NOACCESS;
	assert_int_equal(bnl_ring_get(h, 1, &r, &e), -EACCES);
	assert_non_null(strstr(e.msg, "generic netlink socket"));
	assert_int_equal(h->ethtool_id, 0);	/* not cached: unknown */
	bnl_close(h);
}

static void test_get_bad_ifindex(void **state)
{
	struct bql_err e = { 0 };
	struct bnl *h = open_or_skip();
	struct bnl_ring r;

	(void)state;
	assert_int_equal(bnl_ring_get(h, 0, &r, &e), -EINVAL);
	assert_int_equal(bnl_ring_get(h, -3, &r, &e), -EINVAL);
	bnl_close(h);
}

/* lo has ethtool ops but neither ring nor coalesce ones */
static void test_live_lo(void **state)
{
	struct bql_err e = { 0 };
	struct bnl *h = open_or_skip();
	struct bnl_link l;
	struct bnl_ring r;
	struct bnl_coal c;
	int ret, id;

	(void)state;
	if (bnl_link_get(h, "lo", &l, &e) < 0) {
		bnl_close(h);
		print_message("skip: %s\n", e.msg);
		skip();
	}
	ret = bnl_ring_get(h, l.ifindex, &r, &e);
	if (ret == -EOPNOTSUPP && strstr(e.msg, "family")) {
		bnl_close(h);
		print_message("skip: %s\n", e.msg);
		skip();
	}
	assert_int_equal(ret, -EOPNOTSUPP);
	assert_string_equal(e.msg,
			    "lo: no ring parameters (the driver does not report them)");
	id = h->ethtool_id;
	assert_true(id > 0);
	memset(&e, 0, sizeof(e));
	assert_int_equal(bnl_coal_get(h, l.ifindex, &c, &e), -EOPNOTSUPP);
	assert_string_equal(e.msg, "lo: no interrupt coalescing parameters "
			    "(the driver does not report them)");
	assert_int_equal(h->ethtool_id, id);	/* resolved once */
	bnl_close(h);
}

/* the field table: each key reads its own field, every bit once */
static void test_coal_fields(void **state)
{
	struct bnl_coal c = {
		.tx_usecs = 1, .tx_max_frames = 2, .tx_usecs_irq = 3, .tx_max_frames_irq = 4,
		.use_adaptive_tx = true, .use_cqe_mode_tx = false, .tx_aggr_max_bytes = 7,
		.tx_aggr_max_frames = 8, .tx_aggr_time_usecs = 9,
	};
	static const uint32_t want[BNL_COAL_NFIELDS] = { 1, 2, 3, 4, 1, 0, 7, 8, 9 };
	unsigned int bits = 0;

	(void)state;
	for (int i = 0; i < BNL_COAL_NFIELDS; i++) {
		assert_int_equal(bnl_coal_value(&c, &bnl_coal_fields[i]), want[i]);
		assert_int_equal(bits & bnl_coal_fields[i].bit, 0);
		bits |= bnl_coal_fields[i].bit;
	}
	assert_int_equal(bits, (1u << BNL_COAL_NFIELDS) - 1);
	assert_string_equal(bnl_coal_fields[1].key, "tx_max_frames");
	assert_string_equal(bnl_coal_fields[1].word, "tx-frames");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_coal_fields),
		cmocka_unit_test(test_ring_all),
		cmocka_unit_test(test_ring_absent),
		cmocka_unit_test(test_ring_tx_only),
		cmocka_unit_test(test_ring_wrong_size),
		cmocka_unit_test(test_ring_not_a_reply),
		cmocka_unit_test(test_coal_all),
		cmocka_unit_test(test_coal_some_absent),
		cmocka_unit_test(test_coal_bools),
		cmocka_unit_test(test_coal_wrong_size),
		cmocka_unit_test(test_get_family_cached_absent),
		cmocka_unit_test(test_get_no_genl_socket),
		cmocka_unit_test(test_get_bad_ifindex),
		cmocka_unit_test(test_live_lo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
