// SPDX-License-Identifier: GPL-2.0-only
/* Selectors: parsing (pure) and resolution against fake sysfs trees. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/kernel/sel.h"

/* ---------------------------------------------------------- parsing */

struct parse_case {
	const char *arg;
	int ret;		/* 0 or -EINVAL */
	const char *pat;
	int glob;
	size_t nranges;
	struct sel_range r[3];
	const char *msg;	/* substring of the error */
};

static const struct parse_case parse_cases[] = {
	{ "eth0", 0, "eth0", 0, 0, { { 0, 0 } }, NULL },
	{ "eth0:3", 0, "eth0", 0, 1, { { 3, 3 } }, NULL },
	{ "eth0:tx-3", 0, "eth0", 0, 1, { { 3, 3 } }, NULL },
	{ "eth0:0-3,7", 0, "eth0", 0, 2, { { 0, 3 }, { 7, 7 } }, NULL },
	{ "eth0:tx-0-tx-2", 0, "eth0", 0, 1, { { 0, 2 } }, NULL },
	{ "eth*", 0, "eth*", 1, 0, { { 0, 0 } }, NULL },
	{ "en?[0-9]:1", 0, "en?[0-9]", 1, 1, { { 1, 1 } }, NULL },
	{ "a23456789012345", 0, "a23456789012345", 0, 0, { { 0, 0 } }, NULL },
	{ "eth0:", -EINVAL, NULL, 0, 0, { { 0, 0 } }, "missing queue list" },
	{ ":3", -EINVAL, NULL, 0, 0, { { 0, 0 } }, "missing device name" },
	{ "", -EINVAL, NULL, 0, 0, { { 0, 0 } }, "missing device name" },
	{ "a234567890123456", -EINVAL, NULL, 0, 0, { { 0, 0 } }, "longer than 15" },
	{ "..", -EINVAL, NULL, 0, 0, { { 0, 0 } }, "not a valid device name" },
	{ ".", -EINVAL, NULL, 0, 0, { { 0, 0 } }, "not a valid device name" },
	{ "a/b", -EINVAL, NULL, 0, 0, { { 0, 0 } }, "not a valid device name" },
	{ "e*/x", -EINVAL, NULL, 0, 0, { { 0, 0 } }, "not a valid device pattern" },
	{ "eth0:x", -EINVAL, NULL, 0, 0, { { 0, 0 } }, "bad queue list" },
	{ "eth0:1,", -EINVAL, NULL, 0, 0, { { 0, 0 } }, "bad queue list" },
	{ "eth0:3-1", -EINVAL, NULL, 0, 0, { { 0, 0 } }, "backwards" },
	{ "eth0:-1", -EINVAL, NULL, 0, 0, { { 0, 0 } }, "bad queue list" },
	{ "eth0:99999999999", -EINVAL, NULL, 0, 0, { { 0, 0 } }, "too large" },
	{ "eth0:1:2", -EINVAL, NULL, 0, 0, { { 0, 0 } }, "bad queue list" },
	/* the ':' of a bracket expression is the glob's, not the queue list's */
	{ "[[:alpha:]]*:1", 0, "[[:alpha:]]*", 1, 1, { { 1, 1 } }, NULL },
	{ "[[:alnum:]]*", 0, "[[:alnum:]]*", 1, 0, { { 0, 0 } }, NULL },
	{ "eth[:]:2", 0, "eth[:]", 1, 1, { { 2, 2 } }, NULL },
	{ "eth[0:1", 0, "eth[0", 1, 1, { { 1, 1 } }, NULL },	/* '[' unclosed: literal */
	/* a glob may be longer than the names it matches */
	{ "wlp[0-9]s[0-9]f[0-9]*:0-1", 0, "wlp[0-9]s[0-9]f[0-9]*", 1, 1, { { 0, 1 } }, NULL },
};

static void test_parse_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
		const struct parse_case *pc = &parse_cases[i];
		char *argv[] = { (char *)(uintptr_t)pc->arg };
		struct bql_err e = { 0, "" };
		struct sel s;
		int ret = sel_parse(&s, 1, argv, &e);

		if (ret != pc->ret)
			fail_msg("'%s': got %d want %d (%s)", pc->arg, ret, pc->ret, e.msg);
		if (ret) {
			if (!strstr(e.msg, pc->msg))
				fail_msg("'%s': message '%s' lacks '%s'", pc->arg, e.msg, pc->msg);
			/* the message names the argument as typed */
			assert_non_null(strstr(e.msg, pc->arg));
			continue;
		}
		assert_string_equal(s.items[0].pat, pc->pat);
		assert_int_equal(s.items[0].glob, pc->glob);
		assert_int_equal(s.items[0].nranges, pc->nranges);
		for (size_t k = 0; k < pc->nranges; k++) {
			assert_int_equal(s.items[0].ranges[k].lo, pc->r[k].lo);
			assert_int_equal(s.items[0].ranges[k].hi, pc->r[k].hi);
		}
		sel_free(&s);
	}
}

static void test_parse_none(void **state)
{
	struct sel s;

	(void)state;
	assert_int_equal(sel_parse(&s, 0, NULL, NULL), 0);
	assert_int_equal(s.n, 0);
	sel_free(&s);
}

/* ---------------------------------------------------- resolution */

static char root[256];

static void mk(const char *fmt, ...)
{
	char path[512], cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", root, path);
	assert_int_equal(system(cmd), 0);
}

static void put(const char *rel, const char *val)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(val, f);
	fclose(f);
}

/* devices: lo(1, no BQL), eth0(2, 4 queues), eth1(3, 2 queues), veth0(4, none) */
static int setup_tree(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/bqlt-sel-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	mk("class/net/lo/queues/tx-0");
	put("class/net/lo/ifindex", "1\n");
	for (int q = 0; q < 4; q++)
		mk("class/net/eth0/queues/tx-%d/byte_queue_limits", q);
	put("class/net/eth0/ifindex", "2\n");
	for (int q = 0; q < 2; q++)
		mk("class/net/eth1/queues/tx-%d/byte_queue_limits", q);
	put("class/net/eth1/ifindex", "3\n");
	mk("class/net/veth0/queues/tx-0");
	put("class/net/veth0/ifindex", "4\n");
	return 0;
}

static int teardown_tree(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) ? -1 : 0;
}

static int resolve(const char *const *args, int n, struct sel_result *r,
		   struct bql_err *e)
{
	struct bql_ctx c;
	struct sel s;
	int ret;

	bql_ctx_init(&c);
	c.sysfs_root = root;
	ret = sel_parse(&s, n, (char *const *)(uintptr_t)args, e);
	assert_int_equal(ret, 0);
	ret = sel_resolve(&c, &s, r, e);
	sel_free(&s);
	return ret;
}

static void test_resolve_all(void **state)
{
	struct sel_result r;
	struct bql_err e;

	(void)state;
	assert_int_equal(resolve(NULL, 0, &r, &e), 0);
	/* lo and veth0 have no BQL: skipped; ifindex order */
	assert_int_equal(r.n, 2);
	assert_string_equal(r.t[0].ifname, "eth0");
	assert_int_equal(r.t[0].ifindex, 2);
	assert_int_equal(r.t[0].ntx, 4);
	assert_int_equal(r.t[0].nqueues, 4);
	assert_string_equal(r.t[1].ifname, "eth1");
	assert_int_equal(r.t[1].nqueues, 2);
	sel_result_free(&r);
}

static void test_resolve_ranges_merge(void **state)
{
	const char *args[] = { "eth0:3", "eth0:0-1", "eth0:tx-1" };
	struct sel_result r;
	struct bql_err e;

	(void)state;
	assert_int_equal(resolve(args, 3, &r, &e), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.t[0].nqueues, 3);
	assert_int_equal(r.t[0].queues[0], 0);
	assert_int_equal(r.t[0].queues[1], 1);
	assert_int_equal(r.t[0].queues[2], 3);
	sel_result_free(&r);
}

static void test_resolve_glob(void **state)
{
	const char *args[] = { "eth*:1" };
	const char *all[] = { "*" };
	struct sel_result r;
	struct bql_err e;

	(void)state;
	assert_int_equal(resolve(args, 1, &r, &e), 0);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.t[0].nqueues, 1);
	assert_int_equal(r.t[0].queues[0], 1);
	assert_int_equal(r.t[1].queues[0], 1);
	sel_result_free(&r);
	/* a glob skips devices without BQL instead of failing */
	assert_int_equal(resolve(all, 1, &r, &e), 0);
	assert_int_equal(r.n, 2);
	sel_result_free(&r);
}

static void test_resolve_errors(void **state)
{
	static const struct {
		const char *arg;
		int ret;
		const char *msg;
	} cases[] = {
		{ "nosuch0", -ENODEV, "nosuch0: no such device" },
		{ "lo", -EOPNOTSUPP, "lo: device does not use BQL" },
		{ "eth1:2", -ERANGE, "eth1: no TX queue 2 (the device has 2: tx-0..tx-1)" },
		/* every missing queue is named, not only the first or the last */
		{ "eth0:2-9", -ERANGE, "eth0: no TX queues 4-9 (the device has 4: tx-0..tx-3)" },
		{ "eth0:1,9", -ERANGE, "eth0: no TX queue 9 (the device has 4: tx-0..tx-3)" },
		{ "eth1:4-9,12", -ERANGE, "eth1: no TX queues 4-9,12 (the device has 2:" },
		{ "eth0:0,5,7-8", -ERANGE, "eth0: no TX queues 5,7-8 (" },
		/* one queue: no range to spell out */
		{ "wlan0:1", -ERANGE, "wlan0: no TX queue 1 (the device has 1: tx-0)" },
		{ "xy*", -ENODEV, "'xy*': no device with BQL matches" },
		{ "veth*", -ENODEV, "'veth*': no device with BQL matches" },
	};

	(void)state;
	mk("class/net/wlan0/queues/tx-0/byte_queue_limits");	/* one queue */
	put("class/net/wlan0/ifindex", "5\n");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[] = { cases[i].arg };
		struct sel_result r;
		struct bql_err e = { 0, "" };
		int ret = resolve(args, 1, &r, &e);

		if (ret != cases[i].ret || !strstr(e.msg, cases[i].msg))
			fail_msg("'%s': got %d '%s'", cases[i].arg, ret, e.msg);
		assert_null(r.t);
	}
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s/class/net/wlan0'", root);
		assert_int_equal(system(cmd), 0);
	}
}

static void test_resolve_gap(void **state)
{
	const char *args[] = { "eth0" };
	struct sel_result r;
	struct bql_err e = { 0, "" };
	char path[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/class/net/eth0/queues/tx-2/byte_queue_limits", root);
	assert_int_equal(rmdir(path), 0);
	snprintf(path, sizeof(path), "%s/class/net/eth0/queues/tx-2", root);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(resolve(args, 1, &r, &e), -EIO);
	assert_non_null(strstr(e.msg, "not numbered"));
	assert_int_equal(mkdir(path, 0755), 0);
	strcat(path, "/byte_queue_limits");
	assert_int_equal(mkdir(path, 0755), 0);
}

static void test_missing_root(void **state)
{
	struct bql_ctx c;
	struct sel s = { 0 };
	struct sel_result r;
	struct bql_err e = { 0, "" };

	(void)state;
	bql_ctx_init(&c);
	c.sysfs_root = "/nonexistent/bqltool";
	assert_int_equal(sel_resolve(&c, &s, &r, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "/nonexistent/bqltool/class/net"));
}

int main(void)
{
	const struct CMUnitTest parse[] = {
		cmocka_unit_test(test_parse_table),
		cmocka_unit_test(test_parse_none),
	};
	const struct CMUnitTest res[] = {
		cmocka_unit_test(test_resolve_all),
		cmocka_unit_test(test_resolve_ranges_merge),
		cmocka_unit_test(test_resolve_glob),
		cmocka_unit_test(test_resolve_errors),
		cmocka_unit_test(test_resolve_gap),
		cmocka_unit_test(test_missing_root),
	};
	int fails = cmocka_run_group_tests_name("sel_parse", parse, NULL, NULL);

	return fails + cmocka_run_group_tests_name("sel_resolve", res, setup_tree,
						   teardown_tree);
}
