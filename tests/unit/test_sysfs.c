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
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/tmptree.h"

#include "lib/kernel/bql.h"
#include "lib/kernel/sysfs.h"

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
		/* a u64 that parses but no kernel shows in limit (bql_attr_max) */
		{ "18446744073709551615\n", -ERANGE, "above what the kernel can hold (at most 1879048192)" },
		{ "1879048192\n", 0, NULL },
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

/* ------------------------------------------------ beneath the root */

static const char *const resolvers[] = { "0", "1" };	/* openat2, the walk */

static int open_rel(const char *rel, int flags, struct bql_err *e)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	return sysfs_open(&ctx, p, flags, "obj", e);
}

/* every case under openat2 and under the fallback walk: same answers */
static void test_open_beneath(void **state)
{
	static const struct {
		const char *rel;
		int flags;
		int ret;	/* 0: opens */
		const char *msg;
	} cases[] = {
		{ "class/net/eth0/ifindex", O_RDONLY, 0, NULL },
		{ "in/link_rel", O_RDONLY, 0, NULL },		/* -> ../class/net/eth0/ifindex */
		{ "in/chain", O_RDONLY, 0, NULL },		/* -> link_rel -> ... */
		{ "class/net/eth1/ifindex", O_RDONLY, 0, NULL },	/* eth1 -> ../../devices/eth1 */
		{ "class/net/eth1", O_RDONLY | O_DIRECTORY, 0, NULL },
		{ "class/net/eth1/queues", O_PATH, 0, NULL },
		{ "in/abs", O_RDONLY, -EXDEV, "leads outside the sysfs root" },
		{ "in/abs_inside", O_RDONLY, -EXDEV, "leads outside" },
		{ "in/up", O_RDONLY, -EXDEV, "leads outside" },	/* ../../outside/secret */
		{ "in/up", O_WRONLY, -EXDEV, "leads outside" },
		{ "class/net/evil0/ifindex", O_RDONLY, -EXDEV, "leads outside" },
		{ "class/net/evil0", O_RDONLY | O_DIRECTORY, -EXDEV, "leads outside" },
		{ "../outside/secret", O_RDONLY, -EXDEV, "leads outside" },
		{ "in/fifo", O_RDONLY, -EINVAL, "it is a FIFO, not a regular file: refused" },
		{ "in/fifo", O_WRONLY, -EINVAL, "FIFO" },
		{ "in/fifo_link", O_RDONLY, -EINVAL, "FIFO" },
		{ "in", O_RDONLY, -EISDIR, "it is a directory" },
		{ "in/loop", O_RDONLY, -ELOOP, "Too many levels" },
		{ "in/dangling", O_RDONLY, -ENOENT, "No such file" },
		{ "in/dangling", O_WRONLY, -ENOENT, "No such file" },
		{ "class/net/eth0/ifindex/x", O_RDONLY, -ENOTDIR, "Not a directory" },
		{ "class/net/eth0/ifindex", O_RDONLY | O_DIRECTORY, -ENOTDIR, NULL },
	};
	char out[512], p[512];

	(void)state;
	snprintf(out, sizeof(out), "%s.outside", root);
	sh("mkdir -p '%s' && echo SECRET > '%s/secret'", out, out);
	sh("cd '%s' && mkdir -p in devices/eth1/queues && echo 9 > devices/eth1/ifindex && "
	   "ln -s ../../devices/eth1 class/net/eth1 && ln -s '%s' class/net/evil0 && "
	   "ln -s ../class/net/eth0/ifindex in/link_rel && ln -s link_rel in/chain && "
	   "ln -s '%s/secret' in/abs && ln -s '%s/class/net/eth0/ifindex' in/abs_inside && "
	   "ln -s '../../%s/secret' in/up && mkfifo in/fifo && ln -s fifo in/fifo_link && "
	   "ln -s loop2 in/loop && ln -s loop in/loop2 && ln -s nothere in/dangling",
	   root, out, out, root, strrchr(out, '/') + 1);
	for (size_t r = 0; r < 2; r++) {
		setenv("BQLTOOL_NO_OPENAT2", resolvers[r], 1);
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct bql_err e = { 0, "" };
			int fd = open_rel(cases[i].rel, cases[i].flags, &e);

			if (fd >= 0)
				close(fd);
			if ((cases[i].ret ? fd : fd < 0 ? fd : 0) != cases[i].ret)
				fail_msg("%s '%s' flags %#x: got %d (%s)", r ? "walk" : "openat2",
					 cases[i].rel, cases[i].flags, fd, e.msg);
			if (cases[i].msg && !strstr(e.msg, cases[i].msg))
				fail_msg("%s '%s': message '%s'", r ? "walk" : "openat2",
					 cases[i].rel, e.msg);
			if (cases[i].ret)	/* the message names the object and the path */
				assert_non_null(strstr(e.msg, "obj: cannot open "));
		}
		/* the escape was refused, so the secret is unread and unwritten */
		snprintf(p, sizeof(p), "%s/in/up", root);
		assert_int_equal(sysfs_write(&ctx, p, "1\n", "obj", NULL), -EXDEV);
		/* stat and opendir follow the same rules */
		{
			struct stat st;
			DIR *d;

			snprintf(p, sizeof(p), "%s/class/net/eth1/queues", root);
			assert_int_equal(sysfs_stat(&ctx, p, &st), 0);
			assert_true(S_ISDIR(st.st_mode));
			snprintf(p, sizeof(p), "%s/class/net/evil0", root);
			assert_int_equal(sysfs_stat(&ctx, p, &st), -EXDEV);
			d = sysfs_opendir(&ctx, p, "x", NULL);
			assert_null(d);
			assert_int_equal(errno, EXDEV);
			snprintf(p, sizeof(p), "%s/class/net/eth1", root);
			d = sysfs_opendir(&ctx, p, "x", NULL);
			assert_non_null(d);
			closedir(d);
		}
		/* a path that does not start with the root is refused */
		assert_int_equal(sysfs_open(&ctx, "/etc/passwd", O_RDONLY, "x", NULL), -EXDEV);
	}
	unsetenv("BQLTOOL_NO_OPENAT2");
	sh("cat '%s/secret' | grep -qx SECRET", out);
	sh("cd '%s' && rm -rf in devices class/net/eth1 class/net/evil0 && rm -rf '%s'", root, out);
}

/* a value longer than the buffer is refused, never cut to a number */
static void test_long_values(void **state)
{
	struct bql_queue bq;
	struct bql_err e;
	char p[512], buf[8];
	int fd;

	(void)state;
	bqlfile(p, sizeof(p), 1, "limit");
	sh("printf '%%064d\\n' 123 > '%s'", p);
	assert_int_equal(bql_queue_read(&ctx, "eth0", 1, &bq, &e), -EOVERFLOW);
	assert_non_null(strstr(e.msg, "eth0:tx-1: limit: value in "));
	assert_non_null(strstr(e.msg, "is longer than 63 bytes: refused"));
	sh("printf '%%062d\\n' 123 > '%s'", p);	/* 63 bytes: fits */
	assert_int_equal(bql_queue_read(&ctx, "eth0", 1, &bq, &e), 0);
	assert_int_equal(bq.val[BQL_LIMIT], 123);
	/* sysfs_pread: n - 1 bytes fit, one more does not */
	sh("printf 1234567 > '%s'", p);
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(sysfs_pread(fd, buf, sizeof(buf)), 7);
	assert_string_equal(buf, "1234567");
	assert_int_equal(sysfs_pread(fd, buf, 7), -EOVERFLOW);
	close(fd);
	/* a NUL inside cuts a value as surely: refused */
	sh("printf '123\\0999\\n' > '%s'", p);
	assert_int_equal(bql_queue_read(&ctx, "eth0", 1, &bq, &e), -EILSEQ);
	assert_non_null(strstr(e.msg, "eth0:tx-1: limit: value in "));
	assert_non_null(strstr(e.msg, "contains a NUL byte: refused"));
	sh("echo 3028 > '%s'", p);
}

/*
 * A write that fails (EFBIG under RLIMIT_FSIZE 0 with SIGXFSZ ignored, as
 * bqltool runs) leaves the old bytes: nothing is truncated first.
 */
static void test_write_keeps_value_on_failure(void **state)
{
	struct rlimit old, zero = { 0, 0 };
	struct bql_err e;
	char p[512], buf[64];
	void (*oldsig)(int);
	FILE *f;

	(void)state;
	bqlfile(p, sizeof(p), 0, "limit_max");
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	zero.rlim_max = old.rlim_max;
	oldsig = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &zero), 0);
	int ret = sysfs_write(&ctx, p, "1000\n", "eth0:tx-0: limit_max", &e);

	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, oldsig);
	assert_int_equal(ret, -EFBIG);
	assert_non_null(strstr(e.msg, "File too large"));
	f = fopen(p, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "1879048192\n");
	/* and a successful shorter write leaves no stale tail */
	assert_int_equal(sysfs_write(&ctx, p, "7\n", "x", &e), 0);
	f = fopen(p, "r");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, sizeof(buf), f), 2);
	fclose(f);
	sh("echo 1879048192 > '%s'", p);
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

/* @v as "name:ifindex ...", in its order */
static void list_str(char *buf, size_t n, const struct sysfs_dev *v, size_t nv)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < nv && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s:%d", i ? " " : "",
					v[i].name, v[i].ifindex);
}

/*
 * sysfs_list_names: valid names, by name, nothing read in the devices'
 * directories (each ifindex -1); sysfs_list_devs: the same devices with
 * their ifindex, in ifindex order, unknown last, names on ties.
 */
static void test_list_names_and_devs(void **state)
{
	char r2[256], buf[512];
	struct bql_ctx c2;
	struct sysfs_dev *v;
	struct bql_err e;
	size_t n;

	(void)state;
	snprintf(r2, sizeof(r2), "/tmp/bqlt-list-XXXXXX");
	assert_non_null(mkdtemp(r2));
	bql_ctx_init(&c2);
	c2.sysfs_root = r2;
	/* no class/net: the error names the directory */
	assert_int_equal(sysfs_list_names(&c2, &v, &n, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "cannot list network devices in"));
	assert_int_equal(sysfs_list_devs(&c2, &v, &n, &e), -ENOENT);
	sh("mkdir -p '%s/class/net' && cd '%s/class/net' && mkdir b0 a0 c0 d0 e0 'x y' .z && "
	   "echo 2 >b0/ifindex && echo 5 >a0/ifindex && echo 2 >e0/ifindex && "
	   "echo garbage >d0/ifindex", r2, r2);
	assert_int_equal(sysfs_list_names(&c2, &v, &n, &e), 0);
	list_str(buf, sizeof(buf), v, n);
	assert_string_equal(buf, "a0:-1 b0:-1 c0:-1 d0:-1 e0:-1");
	free(v);
	assert_int_equal(sysfs_list_devs(&c2, &v, &n, &e), 0);
	list_str(buf, sizeof(buf), v, n);
	assert_string_equal(buf, "b0:2 e0:2 a0:5 c0:-1 d0:-1");
	free(v);
	/* an empty class/net: none, no error */
	sh("rm -rf '%s/class/net' && mkdir '%s/class/net'", r2, r2);
	assert_int_equal(sysfs_list_names(&c2, &v, &n, &e), 0);
	assert_int_equal(n, 0);
	free(v);
	/* class/net linked out of the root: refused, saying so */
	sh("rmdir '%s/class/net' && ln -s /sys/class/net '%s/class/net'", r2, r2);
	assert_int_equal(sysfs_list_names(&c2, &v, &n, &e), -EXDEV);
	assert_non_null(strstr(e.msg, "leads outside the sysfs root"));
	assert_int_equal(sysfs_list_devs(&c2, &v, &n, &e), -EXDEV);
	assert_non_null(strstr(e.msg, "leads outside the sysfs root"));
	sh("rm -rf '%s'", r2);
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
		cmocka_unit_test(test_open_beneath),
		cmocka_unit_test(test_long_values),
		cmocka_unit_test(test_write_keeps_value_on_failure),
		cmocka_unit_test(test_valid_ifname),
		cmocka_unit_test(test_fmt_human),
		cmocka_unit_test(test_list_names_and_devs),
	};

	return cmocka_run_group_tests_name("sysfs", tests, setup, teardown);
}
