// SPDX-License-Identifier: GPL-2.0-only
/* sysfs and per-queue BQL reads on temp trees: good, garbage, empty, unreadable. */
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

#include "tests/unit/tmptree.h"

#include "lib/bql.h"
#include "lib/sysfs.h"

static char root[256];
static struct bql_ctx ctx;

static const char *const attrs[] = { "limit", "limit_min", "limit_max", "hold_time",
				     "inflight", "stall_thrs", "stall_cnt", "stall_max" };
static const char *const vals[] = { "3028", "0", "1879048192", "1000", "1514", "0", "2", "7" };

/* eth0 with 2 queues and every attribute; values above */
static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/bqlt-sysfs-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	bql_ctx_init(&ctx);
	ctx.sysfs_root = root;
	for (int q = 0; q < 2; q++) {
		char dir[512];

		snprintf(dir, sizeof(dir), "%s/class/net/eth0/queues/tx-%d/byte_queue_limits",
			 root, q);
		sh("mkdir -p '%s'", dir);
		for (int a = 0; a < 8; a++)
			sh("echo %s > '%s/%s'", vals[a], dir, attrs[a]);
	}
	sh("echo 7 > '%s/class/net/eth0/ifindex'", root);
	sh("echo 10000 > '%s/class/net/eth0/speed'", root);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf '%s'", root);
	return 0;
}

static void bqlfile(char *buf, size_t n, unsigned int q, const char *attr)
{
	snprintf(buf, n, "%s/class/net/eth0/queues/tx-%u/byte_queue_limits/%s", root, q, attr);
}

static void test_read_all(void **state)
{
	struct bql_queue bq;
	struct bql_err e;

	(void)state;
	assert_int_equal(bql_queue_read(&ctx, "eth0", 1, &bq, &e), 0);
	assert_int_equal(bq.index, 1);
	assert_int_equal(bq.present, (1u << BQL_ATTR_NR) - 1);
	for (int a = 0; a < BQL_ATTR_NR; a++)
		assert_int_equal(bq.val[a], strtoull(vals[a], NULL, 10));
	/* the table's names are the sysfs names, in this order */
	for (int a = 0; a < BQL_ATTR_NR; a++)
		assert_string_equal(bql_attrs[a].name, attrs[a]);
}

static void test_prestall_kernel(void **state)
{
	struct bql_queue bq;
	struct bql_err e;
	char p[512];

	(void)state;
	for (int a = 5; a < 8; a++) {
		bqlfile(p, sizeof(p), 0, attrs[a]);
		assert_int_equal(unlink(p), 0);
	}
	assert_int_equal(bql_queue_read(&ctx, "eth0", 0, &bq, &e), 0);
	assert_int_equal(bq.present, (1u << BQL_STALL_THRS) - 1);
	assert_false(bql_has(&bq, BQL_STALL_CNT));
	/* a core attribute missing is an error, not an omission */
	bqlfile(p, sizeof(p), 0, "limit_min");
	assert_int_equal(unlink(p), 0);
	assert_int_equal(bql_queue_read(&ctx, "eth0", 0, &bq, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "eth0:tx-0: limit_min"));
	/* restore for the next tests */
	teardown(NULL);
	setup(NULL);
}

static void test_bad_values(void **state)
{
	static const struct {
		const char *content;	/* written with printf %s */
		int ret;
		const char *msg;
	} cases[] = {
		{ "12abc\n", -EINVAL, "invalid value '12abc'" },
		{ "", -EINVAL, "invalid value ''" },
		{ "\n", -EINVAL, "invalid value ''" },
		{ "-1\n", -EINVAL, "invalid value '-1'" },
		{ " 5\n", -EINVAL, "invalid value ' 5'" },
		{ "18446744073709551616\n", -ERANGE, "too large" },
		{ "18446744073709551615\n", 0, NULL },
		{ "4096", 0, NULL },
	};
	struct bql_queue bq;
	struct bql_err e;
	char p[512];

	(void)state;
	bqlfile(p, sizeof(p), 1, "limit");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *f = fopen(p, "w");

		assert_non_null(f);
		fputs(cases[i].content, f);
		fclose(f);
		e.msg[0] = '\0';
		int ret = bql_queue_read(&ctx, "eth0", 1, &bq, &e);

		if (ret != cases[i].ret)
			fail_msg("'%s': got %d (%s)", cases[i].content, ret, e.msg);
		if (ret) {
			assert_non_null(strstr(e.msg, cases[i].msg));
			/* the message names the queue, the attribute and the file */
			assert_non_null(strstr(e.msg, "eth0:tx-1: limit"));
			assert_non_null(strstr(e.msg, p));
		}
	}
	sh("echo 3028 > '%s'", p);
}

static void test_unreadable(void **state)
{
	struct bql_queue bq;
	struct bql_err e;
	char p[512];

	(void)state;
	/* a directory where the file should be: refused before reading */
	bqlfile(p, sizeof(p), 0, "inflight");
	assert_int_equal(unlink(p), 0);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(bql_queue_read(&ctx, "eth0", 0, &bq, &e), -EISDIR);
	assert_non_null(strstr(e.msg, "eth0:tx-0: inflight: cannot open"));
	assert_non_null(strstr(e.msg, "it is a directory, not a regular file: refused"));
	assert_int_equal(rmdir(p), 0);
	sh("echo 1514 > '%s'", p);
}

static void test_no_bql_and_no_device(void **state)
{
	struct bql_queue bq;
	struct bql_err e;

	(void)state;
	sh("mkdir -p '%s/class/net/veth0/queues/tx-0'", root);
	assert_int_equal(bql_queue_read(&ctx, "veth0", 0, &bq, &e), -EOPNOTSUPP);
	assert_non_null(strstr(e.msg, "veth0:tx-0: queue does not use BQL"));
	assert_false(sysfs_dev_has_bql(&ctx, "veth0"));
	assert_true(sysfs_dev_has_bql(&ctx, "eth0"));
	assert_int_equal(bql_queue_read(&ctx, "gone0", 0, &bq, &e), -ENODEV);
	assert_non_null(strstr(e.msg, "gone0: no such device"));
}

static void test_write(void **state)
{
	struct bql_queue bq;
	struct bql_err e;
	char p[512];

	(void)state;
	assert_int_equal(bql_queue_write(&ctx, "eth0", 0, BQL_LIMIT_MIN, 4096, &e), 0);
	assert_int_equal(bql_queue_read(&ctx, "eth0", 0, &bq, &e), 0);
	assert_int_equal(bq.val[BQL_LIMIT_MIN], 4096);
	/* a link out of the root (to /dev/full) is refused, nothing is written */
	bqlfile(p, sizeof(p), 0, "limit_max");
	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink("/dev/full", p), 0);
	assert_int_equal(bql_queue_write(&ctx, "eth0", 0, BQL_LIMIT_MAX, 9000, &e), -EXDEV);
	assert_non_null(strstr(e.msg, "eth0:tx-0: limit_max: cannot open"));
	assert_non_null(strstr(e.msg, "leads outside the sysfs root"));
	assert_int_equal(unlink(p), 0);
	sh("echo 1879048192 > '%s'", p);
	sh("echo 0 > '%s/class/net/eth0/queues/tx-0/byte_queue_limits/limit_min'", root);
}

static void test_count_and_speed(void **state)
{
	struct bql_err e;
	unsigned int nq = 0;

	(void)state;
	assert_int_equal(sysfs_count_txq(&ctx, "eth0", &nq, &e), 0);
	assert_int_equal(nq, 2);
	assert_int_equal(sysfs_count_txq(&ctx, "nope0", &nq, &e), -ENODEV);
	assert_int_equal(sysfs_link_speed(&ctx, "eth0"), 10000);
	sh("echo -1 > '%s/class/net/eth0/speed'", root);
	assert_int_equal(sysfs_link_speed(&ctx, "eth0"), 0);
	assert_int_equal(sysfs_link_speed(&ctx, "veth0"), 0);
}

static void test_valid_ifname(void **state)
{
	(void)state;
	assert_true(sysfs_valid_ifname("eth0"));
	assert_true(sysfs_valid_ifname("a23456789012345"));
	assert_false(sysfs_valid_ifname("a234567890123456"));
	assert_false(sysfs_valid_ifname(""));
	assert_false(sysfs_valid_ifname("."));
	assert_false(sysfs_valid_ifname(".."));
	assert_false(sysfs_valid_ifname("../x"));
	assert_false(sysfs_valid_ifname("eth0:1"));
	assert_false(sysfs_valid_ifname("a b"));
}

static void test_fmt_human(void **state)
{
	static const struct {
		enum bql_attr a;
		uint64_t v;
		const char *want;
	} cases[] = {
		{ BQL_LIMIT, 3028, "2.96 KiB" },
		{ BQL_LIMIT, 1879048192, "1.75 GiB" },	/* the limit itself is never "max" */
		{ BQL_LIMIT_MIN, 0, "0 B" },
		{ BQL_LIMIT_MAX, 1879048192, "max" },
		{ BQL_LIMIT_MAX, 1879048191, "1.75 GiB" },
		{ BQL_INFLIGHT, 100, "100 B" },
		{ BQL_HOLD_TIME, 1000, "1000 ms" },
		{ BQL_STALL_THRS, 0, "off" },
		{ BQL_STALL_THRS, 20, "20 ms" },
		{ BQL_STALL_CNT, 7, "7" },
		{ BQL_STALL_MAX, 6, "24 ms" },	/* jiffies at HZ 250 */
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(bql_fmt_human(buf, sizeof(buf), cases[i].a, cases[i].v, 250),
				    cases[i].want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_all),
		cmocka_unit_test(test_prestall_kernel),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_no_bql_and_no_device),
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_count_and_speed),
		cmocka_unit_test(test_valid_ifname),
		cmocka_unit_test(test_fmt_human),
	};

	return cmocka_run_group_tests_name("sysfs", tests, setup, teardown);
}
