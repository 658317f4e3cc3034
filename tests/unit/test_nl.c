// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/kernel/nl.c: the NLE->errno table and the qstats parser on hand-built
 * messages, then read-only checks against the live host (lo, eth0), each
 * compared with sysfs. Live tests skip with a reason where they can't run.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>

#include <netlink/netlink.h>
#include <netlink/errno.h>
#include <netlink/genl/genl.h>

#include "lib/kernel/nl.h"

#define SYS_NET "/sys/class/net"
#define STABLE_IFF (IFF_UP | IFF_BROADCAST | IFF_LOOPBACK | IFF_NOARP | \
		    IFF_MULTICAST | IFF_POINTOPOINT)

/* ------------------------------------------------------------- helpers */

static int sys_read(const char *dev, const char *attr, char *buf, size_t n)
{
	char path[256];
	FILE *f;
	size_t len;

	snprintf(path, sizeof(path), SYS_NET "/%s/%s", dev, attr);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)n, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	len = strlen(buf);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	return 0;
}

static uint64_t sys_u64(const char *dev, const char *attr)
{
	char buf[64];

	assert_int_equal(sys_read(dev, attr, buf, sizeof(buf)), 0);
	return strtoull(buf, NULL, 0);	/* "flags" is hex */
}

static bool sys_has(const char *dev)
{
	char path[256];

	snprintf(path, sizeof(path), SYS_NET "/%s", dev);
	return access(path, F_OK) == 0;
}

static unsigned int sys_count_txq(const char *dev)
{
	char path[256];
	struct dirent *de;
	unsigned int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), SYS_NET "/%s/queues", dev);
	d = opendir(path);
	assert_non_null(d);
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "tx-", 3))
			n++;
	closedir(d);
	return n;
}

/* open or skip: a sandbox without netlink is a precondition, not a bug */
static struct bnl *open_or_skip(void)
{
	struct bql_err e = { 0 };
	struct bnl *h = NULL;
	int ret = bnl_open(&h, &e);

	if (ret < 0) {
		print_message("skip: bnl_open: %s\n", e.msg);
		skip();
	}
	assert_non_null(h);
	return h;
}

/* ------------------------------------------------- (a) NLE -> errno */

static void test_errno_table(void **state)
{
	static const struct { int nle, err; } t[] = {
		{ NLE_SUCCESS, 0 },
		{ NLE_NOMEM, ENOMEM },
		{ NLE_PERM, EPERM },
		{ NLE_NOACCESS, EACCES },
		{ NLE_OBJ_NOTFOUND, ENODEV },
		{ NLE_NODEV, ENODEV },
		{ NLE_OPNOTSUPP, EOPNOTSUPP },
		{ NLE_INVAL, EINVAL },
		{ NLE_AGAIN, EAGAIN },
		{ NLE_BUSY, EBUSY },
		{ NLE_INTR, EINTR },
		{ NLE_EXIST, EEXIST },
		{ NLE_RANGE, ERANGE },
		{ NLE_BAD_SOCK, EBADF },
		{ NLE_AF_NOSUPPORT, EAFNOSUPPORT },
		{ NLE_PROTO_MISMATCH, EPROTONOSUPPORT },
		{ NLE_DUMP_INTR, EAGAIN },
		/* no errno of their own */
		{ NLE_FAILURE, EIO },
		{ NLE_SEQ_MISMATCH, EIO },
		{ NLE_MSG_TRUNC, EIO },
		{ NLE_PARSE_ERR, EIO },
		{ NLE_MAX + 7, EIO },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		/* libnl returns them negative; accept both signs */
		assert_int_equal(bnl_errno(-t[i].nle), t[i].err);
		assert_int_equal(bnl_errno(t[i].nle), t[i].err);
	}
}

/* libnl's own errno -> NLE direction, inverted, is the identity */
static void test_errno_roundtrip(void **state)
{
	static const int errs[] = {
		ENOMEM, EPERM, EACCES, ENODEV, EOPNOTSUPP, EINVAL, EAGAIN,
		EBUSY, EEXIST, ERANGE, EINTR, EBADF, EAFNOSUPPORT,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		assert_int_equal(bnl_errno(nl_syserr2nlerr(errs[i])), errs[i]);
	/* ENOENT -> NLE_OBJ_NOTFOUND -> ENODEV: "not found" is the object */
	assert_int_equal(bnl_errno(nl_syserr2nlerr(ENOENT)), ENODEV);
}

/* --------------------------------------- qstats parser, built messages */

enum { A_IFINDEX = 1, A_QTYPE = 2, A_QID = 3, A_TX_PACKETS = 10,
       A_TX_BYTES = 11, A_TX_HW_DROPS = 24, A_TX_STOP = 33, A_TX_WAKE = 34 };

static struct nl_msg *qs_msg(void)
{
	struct nl_msg *m = nlmsg_alloc();

	assert_non_null(m);
	assert_non_null(genlmsg_put(m, 0, 0, 42, 0, NLM_F_MULTI, 12, 1));
	return m;
}

static void test_parse_tx_4_and_8_bytes(void **state)
{
	struct nl_msg *m = qs_msg();
	struct bnl_qstats q;

	(void)state;
	assert_int_equal(nla_put_u32(m, A_IFINDEX, 7), 0);
	assert_int_equal(nla_put_u32(m, A_QTYPE, 1), 0);
	assert_int_equal(nla_put_u32(m, A_QID, 3), 0);
	assert_int_equal(nla_put_u32(m, A_TX_PACKETS, 4000000000u), 0);
	assert_int_equal(nla_put_u64(m, A_TX_BYTES, 0x123456789abcULL), 0);
	assert_int_equal(nla_put_u32(m, A_TX_STOP, 5), 0);
	assert_int_equal(nla_put_u64(m, A_TX_WAKE, 6), 0);
	/* an id from a newer kernel is ignored */
	assert_int_equal(nla_put_u32(m, 60, 1), 0);

	assert_int_equal(bnl_qstats_parse(nlmsg_hdr(m), &q), 1);
	assert_int_equal(q.ifindex, 7);
	assert_int_equal(q.queue, 3);
	assert_int_equal(q.present, BNL_QS_TX_PACKETS | BNL_QS_TX_BYTES |
			 BNL_QS_TX_STOP | BNL_QS_TX_WAKE);
	assert_true(q.tx_packets == 4000000000u);
	assert_true(q.tx_bytes == 0x123456789abcULL);
	assert_true(q.tx_stop == 5 && q.tx_wake == 6);
	assert_true(q.tx_hw_drops == 0);
	nlmsg_free(m);
}

static void test_parse_hw_drops_only(void **state)
{
	struct nl_msg *m = qs_msg();
	struct bnl_qstats q;

	(void)state;
	assert_int_equal(nla_put_u32(m, A_IFINDEX, 2), 0);
	assert_int_equal(nla_put_u32(m, A_QTYPE, 1), 0);
	assert_int_equal(nla_put_u32(m, A_QID, 0), 0);
	assert_int_equal(nla_put_u64(m, A_TX_HW_DROPS, UINT64_MAX), 0);
	assert_int_equal(bnl_qstats_parse(nlmsg_hdr(m), &q), 1);
	assert_int_equal(q.present, BNL_QS_TX_HW_DROPS);
	assert_true(q.tx_hw_drops == UINT64_MAX);
	assert_true(q.tx_bytes == 0 && q.tx_packets == 0);
	nlmsg_free(m);
}

static void test_parse_not_tx(void **state)
{
	struct nl_msg *rx = qs_msg(), *dev = qs_msg();
	struct bnl_qstats q;

	(void)state;
	/* an RX queue */
	assert_int_equal(nla_put_u32(rx, A_IFINDEX, 2), 0);
	assert_int_equal(nla_put_u32(rx, A_QTYPE, 0), 0);
	assert_int_equal(nla_put_u32(rx, A_QID, 0), 0);
	assert_int_equal(nla_put_u32(rx, 8, 10), 0);
	assert_int_equal(bnl_qstats_parse(nlmsg_hdr(rx), &q), 0);
	/* device-scope totals: no queue-type, no queue-id */
	assert_int_equal(nla_put_u32(dev, A_IFINDEX, 2), 0);
	assert_int_equal(nla_put_u32(dev, A_TX_BYTES, 10), 0);
	assert_int_equal(bnl_qstats_parse(nlmsg_hdr(dev), &q), 0);
	nlmsg_free(rx);
	nlmsg_free(dev);
}

static void test_parse_malformed(void **state)
{
	static const uint8_t six[6] = { 1, 2, 3, 4, 5, 6 };
	struct nl_msg *odd = qs_msg(), *small = qs_msg(), *big = qs_msg();
	struct bnl_qstats q;

	(void)state;
	/* a counter of 6 bytes is neither u32 nor u64 */
	assert_int_equal(nla_put_u32(odd, A_IFINDEX, 2), 0);
	assert_int_equal(nla_put_u32(odd, A_QTYPE, 1), 0);
	assert_int_equal(nla_put_u32(odd, A_QID, 0), 0);
	assert_int_equal(nla_put(odd, A_TX_BYTES, sizeof(six), six), 0);
	assert_int_equal(bnl_qstats_parse(nlmsg_hdr(odd), &q), -EPROTO);
	/* 2 bytes: below the policy's minimum */
	assert_int_equal(nla_put_u16(small, A_TX_BYTES, 1), 0);
	assert_int_equal(bnl_qstats_parse(nlmsg_hdr(small), &q), -EPROTO);
	/* 16 bytes: above its maximum */
	assert_int_equal(nla_put(big, A_TX_STOP, 16, "0123456789abcdef"), 0);
	assert_int_equal(bnl_qstats_parse(nlmsg_hdr(big), &q), -EPROTO);
	nlmsg_free(odd);
	nlmsg_free(small);
	nlmsg_free(big);
}

static void test_parse_short_message(void **state)
{
	struct nlmsghdr h = { .nlmsg_len = sizeof(h), .nlmsg_type = 42 };
	struct bnl_qstats q;

	(void)state;
	/* no genl header at all */
	assert_int_equal(bnl_qstats_parse(&h, &q), -EPROTO);
}

/* ---------------------------------------------------- (b) live, read-only */

static void test_open_close(void **state)
{
	struct bnl *h = open_or_skip();

	(void)state;
	bnl_close(h);
	bnl_close(NULL);
}

static void test_lo(void **state)
{
	struct bql_err e = { 0 };
	struct bnl_link l, byidx;
	struct bnl *h;
	char oper[32];

	(void)state;
	if (!sys_has("lo")) {
		print_message("skip: no %s/lo\n", SYS_NET);
		skip();
	}
	h = open_or_skip();
	assert_int_equal(bnl_link_get(h, "lo", &l, &e), 0);
	assert_int_equal(l.ifindex, 1);
	assert_string_equal(l.ifname, "lo");
	assert_int_equal(l.mtu, sys_u64("lo", "mtu"));
	assert_int_equal(l.txqlen, sys_u64("lo", "tx_queue_len"));
	assert_int_equal(sys_read("lo", "operstate", oper, sizeof(oper)), 0);
	assert_string_equal(l.operstate, oper);
	assert_true(l.flags & IFF_LOOPBACK);
	assert_string_equal(l.kind, "");
	assert_true(l.has_stats);
	/* the host's lo as the brief describes it */
	if (l.flags & IFF_UP) {
		assert_int_equal(l.mtu, 65536);
		assert_string_equal(l.operstate, "unknown");
	}
	assert_int_equal(bnl_link_get_index(h, 1, &byidx, &e), 0);
	assert_string_equal(byidx.ifname, "lo");
	bnl_close(h);
}

static void test_eth0(void **state)
{
	struct bql_err e = { 0 };
	uint64_t txb0, txp0, txb1, txp1;
	struct bnl_link l;
	struct bnl *h;
	char oper[32];

	(void)state;
	if (!sys_has("eth0")) {
		print_message("skip: no %s/eth0 on this host\n", SYS_NET);
		skip();
	}
	h = open_or_skip();
	txb0 = sys_u64("eth0", "statistics/tx_bytes");
	txp0 = sys_u64("eth0", "statistics/tx_packets");
	/* the first lookup after open takes the snapshot */
	assert_int_equal(bnl_link_get(h, "eth0", &l, &e), 0);
	txb1 = sys_u64("eth0", "statistics/tx_bytes");
	txp1 = sys_u64("eth0", "statistics/tx_packets");

	assert_string_equal(l.ifname, "eth0");
	assert_int_equal(l.ifindex, sys_u64("eth0", "ifindex"));
	assert_int_equal(l.mtu, sys_u64("eth0", "mtu"));
	assert_int_equal(l.txqlen, sys_u64("eth0", "tx_queue_len"));
	/* sysfs shows dev->flags; rtnetlink adds RUNNING, LOWER_UP, ... */
	assert_int_equal(l.flags & STABLE_IFF,
			 sys_u64("eth0", "flags") & STABLE_IFF);
	assert_int_equal(sys_read("eth0", "operstate", oper, sizeof(oper)), 0);
	assert_string_equal(l.operstate, oper);
	/* real_num_tx_queues (the tx-N dirs) never exceeds num_tx_queues */
	assert_true(l.num_tx_queues >= sys_count_txq("eth0"));
	assert_true(l.has_stats);
	/* counters only grow: sysfs before <= netlink <= sysfs after */
	assert_true(l.tx_bytes >= txb0 && l.tx_bytes <= txb1);
	assert_true(l.tx_packets >= txp0 && l.tx_packets <= txp1);
	print_message("eth0: ifindex %d mtu %u txqlen %u num_tx_queues %u qdisc %s "
		      "operstate %s tx_bytes %" PRIu64 "\n", l.ifindex, l.mtu,
		      l.txqlen, l.num_tx_queues, l.qdisc, l.operstate, l.tx_bytes);
	bnl_close(h);
}

static void test_snapshot_until_refresh(void **state)
{
	struct bql_err e = { 0 };
	struct bnl_link a, b;
	struct bnl *h;

	(void)state;
	h = open_or_skip();
	assert_int_equal(bnl_link_get(h, "lo", &a, &e), 0);
	/* no dump in between: the very same copy */
	assert_int_equal(bnl_link_get(h, "lo", &b, &e), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(bnl_refresh(h, &e), 0);
	assert_int_equal(bnl_link_get(h, "lo", &b, &e), 0);
	assert_true(b.tx_packets >= a.tx_packets);
	bnl_close(h);
}

static void test_nosuchdev(void **state)
{
	struct bql_err e = { 0 };
	struct bnl_link l;
	struct bnl *h;

	(void)state;
	if (sys_has("nosuchdev0")) {
		print_message("skip: nosuchdev0 exists here\n");
		skip();
	}
	h = open_or_skip();
	assert_int_equal(bnl_link_get(h, "nosuchdev0", &l, &e), -ENODEV);
	assert_int_equal(e.code, ENODEV);
	assert_non_null(strstr(e.msg, "nosuchdev0"));
	assert_int_equal(bnl_link_get_index(h, -5, &l, &e), -ENODEV);
	bnl_close(h);
}

struct walk {
	int last, n;
	bool lo, eth0;
};

static int walk_cb(const struct bnl_link *l, void *arg)
{
	struct walk *w = arg;

	assert_true(l->ifindex > w->last);
	w->last = l->ifindex;
	w->n++;
	w->lo |= !strcmp(l->ifname, "lo");
	w->eth0 |= !strcmp(l->ifname, "eth0");
	return 0;
}

static int stop_cb(const struct bnl_link *l, void *arg)
{
	(void)l;
	++*(int *)arg;
	return 42;
}

static void test_foreach(void **state)
{
	struct walk w = { 0 };
	struct bnl *h;
	int calls = 0;

	(void)state;
	h = open_or_skip();
	assert_int_equal(bnl_link_foreach(h, walk_cb, &w), 0);
	assert_true(w.n >= 1);
	assert_true(w.lo);
	assert_true(w.eth0 == sys_has("eth0"));
	assert_int_equal(bnl_link_foreach(h, stop_cb, &calls), 42);
	assert_int_equal(calls, 1);
	bnl_close(h);
}

/* -EOPNOTSUPP is allowed only with a message naming the family */
static bool qstats_unsupported(int ret, const struct bql_err *e)
{
	if (ret != -EOPNOTSUPP)
		return false;
	assert_non_null(strstr(e->msg, "'netdev'"));
	print_message("skip: %s\n", e->msg);
	return true;
}

static void test_qstats_eth0(void **state)
{
	struct bql_err e = { 0 };
	struct bnl_qstats *q = NULL;
	unsigned int ntxq;
	uint64_t txb;
	int ifindex, n;
	struct bnl *h;

	(void)state;
	if (!sys_has("eth0")) {
		print_message("skip: no %s/eth0 on this host\n", SYS_NET);
		skip();
	}
	h = open_or_skip();
	ifindex = (int)sys_u64("eth0", "ifindex");
	ntxq = sys_count_txq("eth0");
	n = bnl_qstats_dump(h, ifindex, &q, &e);
	txb = sys_u64("eth0", "statistics/tx_bytes");
	if (qstats_unsupported(n, &e)) {
		bnl_close(h);
		skip();
	}
	assert_true(n >= 0);
	if (n == 0) {
		assert_null(q);
		print_message("eth0: driver reports no per-queue stats\n");
	}
	for (int i = 0; i < n; i++) {
		assert_int_equal(q[i].ifindex, ifindex);
		assert_true(q[i].queue < ntxq);
		if (i)
			assert_true(q[i].queue > q[i - 1].queue);
		assert_true(q[i].present != 0);
		/* per queue, since the last reconfiguration: <= the total */
		if (q[i].present & BNL_QS_TX_BYTES)
			assert_true(q[i].tx_bytes <= txb);
		if (q[i].present & BNL_QS_TX_PACKETS &&
		    q[i].present & BNL_QS_TX_BYTES)
			assert_true(q[i].tx_bytes >= q[i].tx_packets);
		print_message("eth0 tx-%u: present %#x packets %" PRIu64
			      " bytes %" PRIu64 " stop %" PRIu64 " wake %" PRIu64
			      " hw_drops %" PRIu64 "\n", q[i].queue, q[i].present,
			      q[i].tx_packets, q[i].tx_bytes, q[i].tx_stop,
			      q[i].tx_wake, q[i].tx_hw_drops);
	}
	free(q);
	bnl_close(h);
}

static void test_qstats_all_and_lo(void **state)
{
	struct bql_err e = { 0 };
	struct bnl_qstats *q = NULL;
	struct bnl_link l;
	struct bnl *h;
	int n;

	(void)state;
	h = open_or_skip();
	n = bnl_qstats_dump(h, 0, &q, &e);
	if (qstats_unsupported(n, &e)) {
		bnl_close(h);
		skip();
	}
	assert_true(n >= 0);
	for (int i = 0; i < n; i++) {
		assert_int_equal(bnl_link_get_index(h, q[i].ifindex, &l, &e), 0);
		if (i)
			assert_true(q[i].ifindex > q[i - 1].ifindex ||
				    (q[i].ifindex == q[i - 1].ifindex &&
				     q[i].queue > q[i - 1].queue));
	}
	free(q);
	/* lo has no per-queue stats: the kernel's EOPNOTSUPP is "0 entries" */
	n = bnl_qstats_dump(h, 1, &q, &e);
	assert_true(n >= 0);
	for (int i = 0; i < n; i++)
		assert_int_equal(q[i].ifindex, 1);
	free(q);
	bnl_close(h);
}

static int max_cb(const struct bnl_link *l, void *arg)
{
	int *max = arg;

	if (l->ifindex > *max)
		*max = l->ifindex;
	return 0;
}

static void test_qstats_nosuch_ifindex(void **state)
{
	static struct bnl_qstats sentinel;
	struct bql_err e = { 0 };
	struct bnl_qstats *q = &sentinel;
	char want[32];
	struct bnl *h;
	int n, max = 0;

	(void)state;
	h = open_or_skip();
	assert_int_equal(bnl_link_foreach(h, max_cb, &max), 0);
	n = bnl_qstats_dump(h, max + 100000, &q, &e);
	if (qstats_unsupported(n, &e)) {
		bnl_close(h);
		skip();
	}
	assert_int_equal(n, -ENODEV);
	assert_null(q);
	snprintf(want, sizeof(want), "ifindex %d", max + 100000);
	assert_non_null(strstr(e.msg, want));
	bnl_close(h);
}

static void test_genl_family_absent(void **state)
{
	struct bql_err e = { 0 };
	struct bnl *h;

	(void)state;
	h = open_or_skip();
	assert_int_equal(bnl_genl_family(h, "bqltool_nosuch", &e), -EOPNOTSUPP);
	assert_non_null(strstr(e.msg, "'bqltool_nosuch'"));
	/* nlctrl always exists */
	assert_true(bnl_genl_family(h, "nlctrl", &e) > 0);
	bnl_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errno_table),
		cmocka_unit_test(test_errno_roundtrip),
		cmocka_unit_test(test_parse_tx_4_and_8_bytes),
		cmocka_unit_test(test_parse_hw_drops_only),
		cmocka_unit_test(test_parse_not_tx),
		cmocka_unit_test(test_parse_malformed),
		cmocka_unit_test(test_parse_short_message),
		cmocka_unit_test(test_open_close),
		cmocka_unit_test(test_lo),
		cmocka_unit_test(test_eth0),
		cmocka_unit_test(test_snapshot_until_refresh),
		cmocka_unit_test(test_nosuchdev),
		cmocka_unit_test(test_foreach),
		cmocka_unit_test(test_qstats_eth0),
		cmocka_unit_test(test_qstats_all_and_lo),
		cmocka_unit_test(test_qstats_nosuch_ifindex),
		cmocka_unit_test(test_genl_family_absent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
