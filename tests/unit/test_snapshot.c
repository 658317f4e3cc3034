// SPDX-License-Identifier: GPL-2.0-only
/*
 * Snapshots of every device while devices come and go: one that vanishes
 * between the listing and the reading is left out unless a selector named
 * it (then it is "no such device").
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/kernel/sel.h"
#include "lib/model/snapshot.h"
#include "lib/kernel/sysfs.h"
#include "tests/unit/tmptree.h"

static char root[64];

/* the device sysfs_count_txq() removes before it counts (a listing, then the race) */
static const char *vanish_in_count;

int __real_sysfs_count_txq(const struct bql_ctx *c, const char *dev, unsigned int *nq,
			   struct bql_err *e);
int __wrap_sysfs_count_txq(const struct bql_ctx *c, const char *dev, unsigned int *nq,
			   struct bql_err *e);
int __wrap_sysfs_count_txq(const struct bql_ctx *c, const char *dev, unsigned int *nq,
			   struct bql_err *e)
{
	if (vanish_in_count && !strcmp(dev, vanish_in_count))
		sh("rm -rf '%s/class/net/%s'", root, dev);
	return __real_sysfs_count_txq(c, dev, nq, e);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/bqlt-snap-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) ? -1 : 0;
}

static void fresh_tree(void)
{
	sh("rm -rf '%s' && mkdir -p '%s' && cp -a tests/data/sysfs/multi/. '%s/'", root, root, root);
	sh("rm -rf '%s/class/net/wlan0'", root);	/* eth0 (4 queues) and eth1 (2) */
}

/* resolve @args (none: every device), remove @gone, take the snapshot */
static int take(const char *const *args, int n, const char *gone, struct snapshot *s,
		struct bql_err *e)
{
	struct sel_result r;
	struct bql_ctx c;
	struct sel sl;
	int ret;

	bql_ctx_init(&c);
	c.sysfs_root = root;
	assert_int_equal(sel_parse(&sl, n, (char *const *)(uintptr_t)args, e), 0);
	ret = sel_resolve(&c, &sl, &r, e);
	sel_free(&sl);
	if (ret)
		return ret;
	if (gone)
		sh("rm -rf '%s/class/net/%s'", root, gone);
	ret = snapshot_take(&c, NULL, &r, s, e);
	sel_result_free(&r);
	return ret;
}

static void test_vanished_unnamed_left_out(void **state)
{
	const char *glob[] = { "eth*" };
	struct snapshot s;
	struct bql_err e;

	(void)state;
	fresh_tree();
	assert_int_equal(take(NULL, 0, "eth0", &s, &e), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.dev[0].ifname, "eth1");
	assert_int_equal(s.dev[0].nq, 2);
	assert_int_equal(s.nvanished, 1);
	assert_non_null(strstr(s.note, "1 device vanished while read, left out (eth0)"));
	snapshot_free(&s);

	fresh_tree();
	assert_int_equal(take(glob, 1, "eth1", &s, &e), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.dev[0].ifname, "eth0");
	snapshot_free(&s);

	/* every one gone: an empty reading, not an error */
	fresh_tree();
	sh("rm -rf '%s/class/net/wlan0'", root);
	vanish_in_count = NULL;
	{
		struct sel_result r;
		struct bql_ctx c;
		struct sel sl = { 0 };

		bql_ctx_init(&c);
		c.sysfs_root = root;
		assert_int_equal(sel_resolve(&c, &sl, &r, &e), 0);
		sh("rm -rf '%s/class/net/eth0' '%s/class/net/eth1'", root, root);
		assert_int_equal(snapshot_take(&c, NULL, &r, &s, &e), 0);
		assert_int_equal(s.n, 0);
		assert_int_equal(s.nvanished, r.n);
		snapshot_free(&s);
		sel_result_free(&r);
	}
}

static void test_vanished_named_is_error(void **state)
{
	const char *named[] = { "eth*", "eth1" };
	struct snapshot s;
	struct bql_err e;

	(void)state;
	fresh_tree();
	assert_int_equal(take(named, 2, "eth1", &s, &e), -ENODEV);
	assert_string_equal(e.msg, "eth1: no such device");
}

/* its name taken by a new device with fewer queues: the listed one is gone */
static void test_name_reused(void **state)
{
	struct snapshot s;
	struct bql_err e;
	struct sel_result r;
	struct bql_ctx c;
	struct sel sl = { 0 };

	(void)state;
	fresh_tree();
	bql_ctx_init(&c);
	c.sysfs_root = root;
	assert_int_equal(sel_resolve(&c, &sl, &r, &e), 0);
	sh("rm -rf '%s/class/net/eth0/queues/tx-3' && echo 77 >'%s/class/net/eth0/ifindex'",
	   root, root);
	assert_int_equal(snapshot_take(&c, NULL, &r, &s, &e), 0);
	assert_int_equal(s.nvanished, 1);
	snapshot_free(&s);
	/* being unregistered: its queues gone first, its attributes no longer read */
	sh("rm '%s/class/net/eth0/ifindex'", root);
	assert_int_equal(snapshot_take(&c, NULL, &r, &s, &e), 0);
	assert_int_equal(s.nvanished, 1);
	snapshot_free(&s);
	/* the same device with a queue fewer (ethtool -L) is still an error */
	sh("echo 2 >'%s/class/net/eth0/ifindex'", root);
	assert_int_equal(snapshot_take(&c, NULL, &r, &s, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "eth0:tx-3: no such TX queue"));
	sel_result_free(&r);
}

/* gone between the listing and the queue count, in sel_resolve itself */
static void test_vanished_while_resolved(void **state)
{
	const char *named[] = { "eth0" };
	struct sel_result r;
	struct bql_ctx c;
	struct bql_err e;
	struct sel sl = { 0 };

	(void)state;
	fresh_tree();
	bql_ctx_init(&c);
	c.sysfs_root = root;
	vanish_in_count = "eth0";
	assert_int_equal(sel_resolve(&c, &sl, &r, &e), 0);
	vanish_in_count = NULL;
	assert_int_equal(r.n, 1);
	assert_string_equal(r.t[0].ifname, "eth1");
	assert_false(r.t[0].named);
	sel_result_free(&r);

	fresh_tree();
	assert_int_equal(sel_parse(&sl, 1, (char *const *)(uintptr_t)named, &e), 0);
	assert_int_equal(sel_resolve(&c, &sl, &r, &e), 0);
	assert_true(r.t[0].named);
	sel_result_free(&r);
	vanish_in_count = "eth0";
	assert_int_equal(sel_resolve(&c, &sl, &r, &e), -ENODEV);
	vanish_in_count = NULL;
	assert_string_equal(e.msg, "eth0: no such device");
	sel_free(&sl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vanished_unnamed_left_out),
		cmocka_unit_test(test_vanished_named_is_error),
		cmocka_unit_test(test_name_reused),
		cmocka_unit_test(test_vanished_while_resolved),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
