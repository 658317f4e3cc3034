// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/model/plan.c: kernel validation per HZ (100, 250, 300, 1000), ms <-> jiffies
 * round trips, then writes on a temp tree with write(2) failing at every
 * position (-Wl,--wrap=write): the tree must be byte-identical afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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

#include "dql/dql.h"
#include "lib/model/plan.h"

/* ------------------------------------------------ write(2) fault injection */

/*
 * While armed, files opened for writing behave like sysfs attributes: O_TRUNC
 * is ignored at open and a successful write(2) replaces the content, a
 * failed one (the kernel's store returning an error) leaves it as it was.
 */
int __real_open(const char *path, int flags, ...);
int __wrap_open(const char *path, int flags, ...);
ssize_t __real_write(int fd, const void *buf, size_t n);
ssize_t __wrap_write(int fd, const void *buf, size_t n);

static int writes;		/* write() calls seen while armed */
static int fail_at;		/* 1-based call that fails; 0 = none */
static int fail_also;		/* a second failing call (a restore) */
static bool fail_destroys;	/* a failing call first empties the file */

int __wrap_open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	if (fail_at)
		flags &= ~O_TRUNC;
	return __real_open(path, flags, mode);
}

ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
	ssize_t w;

	if (!fail_at)
		return __real_write(fd, buf, n);
	writes++;
	if (writes == fail_at || writes == fail_also) {
		/* a write that fails after it changed the file (O_TRUNC, then EFBIG) */
		if (fail_destroys && ftruncate(fd, 0))
			return -1;
		errno = EBUSY;
		return -1;
	}
	w = __real_write(fd, buf, n);
	if (w >= 0 && ftruncate(fd, w))
		return -1;
	return w;
}

static void arm(int at, int also)
{
	writes = 0;
	fail_at = at;
	fail_also = also;
	fail_destroys = false;
}

/* ------------------------------------------------ a temp tree */

static char root[256];
static struct bql_ctx ctx;

/* eth0 and eth1, 4 queues each, the kernel defaults; eth1 has no stall_* */
static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/bqlt-plan-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	bql_ctx_init(&ctx);
	ctx.sysfs_root = root;
	for (int d = 0; d < 2; d++) {
		for (int q = 0; q < 4; q++) {
			char dir[512];

			snprintf(dir, sizeof(dir), "%s/class/net/eth%d/queues/tx-%d/byte_queue_limits",
				 root, d, q);
			sh("mkdir -p '%s' && cd '%s' && echo %d > limit && echo 0 > limit_min && "
			   "echo 1879048192 > limit_max && echo 1000 > hold_time && echo 0 > inflight",
			   dir, dir, 3028 + q);
			if (!d)
				sh("cd '%s' && echo 0 > stall_thrs && echo 0 > stall_cnt && echo 0 > stall_max",
				   dir);
		}
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	arm(0, 0);
	sh("rm -rf '%s'", root);
	return 0;
}

/* every file of the tree with its bytes */
static char *digest(void)
{
	char cmd[512], *buf = calloc(1, 1 << 16);
	FILE *f;
	size_t n;

	assert_non_null(buf);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && find . -type f | sort | while read -r f; do printf '%%s=' \"$f\"; "
		 "od -An -c \"$f\"; done", root);
	f = popen(cmd, "r");
	assert_non_null(f);
	n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	pclose(f);
	return buf;
}

static uint64_t rd(const char *dev, int q, const char *attr)
{
	char path[512], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/class/net/%s/queues/tx-%d/byte_queue_limits/%s",
		 root, dev, q, attr);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	return strtoull(buf, NULL, 10);
}

static void add(struct plan *p, const char *dev, unsigned int q, enum bql_attr a,
		uint64_t v)
{
	struct plan_value pv;
	struct bql_err e;

	assert_int_equal(plan_value(a, v, p->hz, "test", &pv, &e), 0);
	assert_int_equal(plan_add(p, dev, q, a, &pv, false, &e), 0);
}

/* ------------------------------------------------ validation per HZ */

static void test_limits(void **state)
{
	struct plan_value pv;
	struct bql_err e;

	(void)state;
	for (int a = BQL_LIMIT; a <= BQL_LIMIT_MAX; a++) {
		assert_int_equal(plan_value(a, 0, 250, "x", &pv, &e), 0);
		assert_int_equal(plan_value(a, DQL_MAX_LIMIT, 250, "x", &pv, &e), 0);
		assert_true(pv.wval == DQL_MAX_LIMIT && pv.shown == DQL_MAX_LIMIT);
		assert_int_equal(plan_value(a, DQL_MAX_LIMIT + 1ull, 250, "limit_max=1879048193",
					    &pv, &e), -EINVAL);
		assert_non_null(strstr(e.msg, "limit_max=1879048193: 1879048193 bytes is above the kernel's maximum 1879048192"));
		assert_int_equal(plan_value(a, UINT32_MAX, 250, "x", &pv, &e), -EINVAL);
		assert_int_equal(plan_value(a, UINT64_MAX, 250, "x", &pv, &e), -EINVAL);
	}
	/* hold_time: kstrtouint takes 0..UINT_MAX, no range check */
	assert_int_equal(plan_value(BQL_HOLD_TIME, 0, 250, "x", &pv, &e), 0);
	assert_int_equal(plan_value(BQL_HOLD_TIME, UINT32_MAX, 250, "x", &pv, &e), 0);
	assert_int_equal(plan_value(BQL_HOLD_TIME, UINT32_MAX + 1ull, 250, "hold_time=4294967296",
				    &pv, &e), -ERANGE);
	assert_non_null(strstr(e.msg, "hold_time=4294967296: 4294967296 ms is above"));
	assert_int_equal(plan_value(BQL_STALL_THRS, UINT32_MAX + 1ull, 250, "x", &pv, &e), -ERANGE);
	/* read-only files */
	assert_int_equal(plan_value(BQL_INFLIGHT, 0, 250, "inflight=0", &pv, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "inflight is read-only"));
	/* stall_max: any write clears it, so 0 only */
	assert_int_equal(plan_value(BQL_STALL_MAX, 0, 250, "x", &pv, &e), 0);
	assert_int_equal(plan_value(BQL_STALL_MAX, 5, 250, "stall_max=5", &pv, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "stall_max=5: stall_max can only be cleared: write 0"));
	assert_int_equal(plan_value(BQL_STALL_CNT, 0, 250, "x", &pv, &e), -EINVAL);
}

static const struct {
	unsigned int hz;
	uint64_t lo, hi;	/* valid non-zero stall_thrs, ms */
} ranges[] = {
	{ 100, 31, 1280 },
	{ 250, 13, 512 },
	/* 426 ms is the largest value the kernel stores as <= 128 jiffies; 427
	 * is how 128 jiffies read back, and bqltool writes 426 for it */
	{ 300, 11, 427 },
	{ 1000, 4, 128 },
};

static void test_stall_window_per_hz(void **state)
{
	struct plan_value pv;
	struct bql_err e;
	char want[128];

	(void)state;
	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
		unsigned int hz = ranges[i].hz;
		uint64_t lo, hi;

		plan_stall_range(hz, &lo, &hi);
		if (lo != ranges[i].lo || hi != ranges[i].hi)
			fail_msg("HZ=%u: range %" PRIu64 "..%" PRIu64, hz, lo, hi);
		assert_int_equal(plan_value(BQL_STALL_THRS, 0, hz, "x", &pv, &e), 0);
		assert_int_equal(pv.jiffies, 0);
		assert_int_equal(plan_value(BQL_STALL_THRS, lo, hz, "x", &pv, &e), 0);
		assert_int_equal(pv.jiffies, 4);
		assert_int_equal(plan_value(BQL_STALL_THRS, hi, hz, "x", &pv, &e), 0);
		assert_int_equal(pv.jiffies, 128);
		/* every value in between is accepted, none outside */
		for (uint64_t m = 1; m < hi + 200; m++) {
			int ret = plan_value(BQL_STALL_THRS, m, hz, "x", &pv, &e);

			if ((m >= lo && m <= hi) != !ret)
				fail_msg("HZ=%u: stall_thrs=%" PRIu64 " gives %d", hz, m, ret);
		}
		assert_int_equal(plan_value(BQL_STALL_THRS, lo - 1, hz, "stall_thrs=x", &pv, &e),
				 -ERANGE);
		snprintf(want, sizeof(want), "with HZ=%u use 0 (off) or %" PRIu64 "..%" PRIu64 " ms",
			 hz, lo, hi);
		assert_non_null(strstr(e.msg, want));
		assert_non_null(strstr(e.msg, "stall_thrs=x: "));
		assert_non_null(strstr(e.msg, "window of 4..128 jiffies"));
		assert_int_equal(plan_value(BQL_STALL_THRS, hi + 1, hz, "x", &pv, &e), -ERANGE);
		assert_int_equal(plan_value(BQL_STALL_THRS, UINT32_MAX, hz, "x", &pv, &e), -ERANGE);
	}
	/* the kernel checks the jiffies truncated to an unsigned int */
	assert_int_equal(plan_value(BQL_STALL_THRS, 1, 250, "stall_thrs=1", &pv, &e), -ERANGE);
	assert_non_null(strstr(e.msg, "1 ms is 1 jiffy,"));
}

static void test_rounding(void **state)
{
	struct plan_value pv;
	struct bql_err e;

	(void)state;
	/* HZ=250: 1001 ms -> 251 jiffies -> 1004 ms (kernel-dql.md section 6) */
	assert_int_equal(plan_value(BQL_HOLD_TIME, 1001, 250, "x", &pv, &e), 0);
	assert_true(pv.req == 1001 && pv.wval == 1001 && pv.jiffies == 251 && pv.shown == 1004);
	assert_int_equal(plan_value(BQL_HOLD_TIME, 1000, 250, "x", &pv, &e), 0);
	assert_true(pv.shown == 1000 && pv.jiffies == 250);
	/* HZ=100: 15 ms -> 2 jiffies -> 20 ms */
	assert_int_equal(plan_value(BQL_HOLD_TIME, 15, 100, "x", &pv, &e), 0);
	assert_true(pv.shown == 20 && pv.jiffies == 2);
	/* HZ=300: 1 jiffy shows as 4 ms, but writing 4 stores 2: write 3 */
	assert_int_equal(plan_value(BQL_HOLD_TIME, 4, 300, "x", &pv, &e), 0);
	assert_true(pv.wval == 3 && pv.shown == 4 && pv.jiffies == 1);
	/* HZ=300: 5 ms is no jiffy count's value: the kernel rounds it */
	assert_int_equal(plan_value(BQL_HOLD_TIME, 5, 300, "x", &pv, &e), 0);
	assert_true(pv.wval == 5 && pv.jiffies == 2 && pv.shown == 7);
	/* HZ=1000: exact */
	assert_int_equal(plan_value(BQL_HOLD_TIME, 1001, 1000, "x", &pv, &e), 0);
	assert_true(pv.shown == 1001 && pv.wval == 1001);
	/* hold_time beyond INT_MAX: msecs_to_jiffies saturates; shown wraps */
	assert_int_equal(plan_value(BQL_HOLD_TIME, 3000000000ull, 250, "x", &pv, &e), 0);
	assert_true(pv.jiffies == 0xfffffffeu && pv.shown == 4294967288ull);
}

/*
 * Restoring writes the read-back ms value: it must store the same jiffies.
 * j -> ms -> j is stable with HZ 100, 250 and 1000 but not with HZ 300 (or
 * 24, 48: HZ that do not divide 1000): 1 jiffy reads as 4 ms at HZ 300, and
 * 4 ms stores 2 jiffies. plan_ms_write() picks the ms value to write.
 */
static void test_round_trip(void **state)
{
	static const unsigned int hzs[] = { 100, 250, 300, 1000, 24, 48 };

	(void)state;
	for (size_t i = 0; i < sizeof(hzs) / sizeof(hzs[0]); i++) {
		unsigned int hz = hzs[i];
		bool naive = true;

		for (uint64_t j = 0; j < 20000; j++) {
			uint64_t ms = dql_jiffies_to_msecs(j, hz), w;

			naive &= dql_msecs_to_jiffies(ms, hz) == j;
			if (!plan_ms_write(ms, hz, &w))
				fail_msg("HZ=%u: no write value for %" PRIu64 " ms (j=%" PRIu64 ")",
					 hz, ms, j);
			if ((uint32_t)dql_msecs_to_jiffies(w, hz) != j)
				fail_msg("HZ=%u: writing %" PRIu64 " for %" PRIu64 " ms stores %" PRIu64
					 ", not %" PRIu64, hz, w, ms, dql_msecs_to_jiffies(w, hz), j);
			if (plan_ms_shown(w, hz) != ms)
				fail_msg("HZ=%u: %" PRIu64 " reads back wrong", hz, ms);
		}
		if (naive != (1000 % hz == 0))
			fail_msg("HZ=%u: naive round trip %s", hz, naive ? "holds" : "fails");
	}
	/* the saturated end: 0xfffffffe jiffies at HZ=250 */
	{
		uint64_t w;

		assert_true(plan_ms_write(4294967288ull, 250, &w));
		assert_int_equal((uint32_t)dql_msecs_to_jiffies(w, 250), 0xfffffffeu);
	}
}

static void test_clamp_rule(void **state)
{
	(void)state;
	assert_non_null(strstr(plan_clamp_rule("6.1.0"), "(6.1 or later) limit_min wins"));
	assert_non_null(strstr(plan_clamp_rule("6.18.44-fc-v1147"), "limit_min wins unless"));
	assert_non_null(strstr(plan_clamp_rule("6.0.19"), "(before 6.1) limit_max wins"));
	assert_non_null(strstr(plan_clamp_rule("5.15.164-1-generic"), "backport"));
	assert_non_null(strstr(plan_clamp_rule("4.19.0"), "limit_max wins"));
	assert_non_null(strstr(plan_clamp_rule("garbage"), "on Linux 6.1 and later"));
	assert_non_null(strstr(plan_clamp_rule(NULL), "limit_max wins before 6.1"));
}

/* ------------------------------------------------ plans on the tree */

static void test_read_and_unchanged(void **state)
{
	struct plan p;
	struct bql_err e;

	(void)state;
	plan_init(&p, 250);
	add(&p, "eth0", 0, BQL_LIMIT_MIN, 0);		/* already 0 */
	add(&p, "eth0", 0, BQL_HOLD_TIME, 1001);	/* 1000 -> shows 1004 */
	add(&p, "eth0", 0, BQL_LIMIT_MIN, 5);		/* replaces the first */
	add(&p, "eth0", 1, BQL_HOLD_TIME, 1000);	/* unchanged */
	assert_int_equal(p.n, 3);
	assert_int_equal(plan_read(&ctx, &p, &e), 0);
	assert_int_equal(p.nq, 2);
	assert_int_equal(p.it[0].state, PLAN_PENDING);
	assert_int_equal(p.it[0].v.req, 5);
	assert_int_equal(p.it[1].state, PLAN_PENDING);
	assert_int_equal(p.it[1].old, 1000);
	assert_int_equal(p.it[2].state, PLAN_UNCHANGED);
	assert_int_equal(plan_pending(&p), 2);
	assert_int_equal(plan_check_access(&ctx, &p, &e), 0);
	plan_free(&p);
}

static void test_optional_and_missing(void **state)
{
	struct plan_value pv;
	struct plan p;
	struct bql_err e;

	(void)state;
	plan_init(&p, 250);
	assert_int_equal(plan_value(BQL_STALL_THRS, 0, 250, "x", &pv, &e), 0);
	assert_int_equal(plan_add(&p, "eth1", 0, BQL_STALL_THRS, &pv, true, &e), 0);
	add(&p, "eth1", 0, BQL_LIMIT_MAX, 9000);
	assert_int_equal(plan_read(&ctx, &p, &e), 0);
	assert_int_equal(p.n, 1);	/* stall_thrs dropped: eth1 has none */
	assert_int_equal(p.it[0].attr, BQL_LIMIT_MAX);
	plan_free(&p);

	plan_init(&p, 250);
	add(&p, "eth1", 2, BQL_STALL_THRS, 100);
	assert_int_equal(plan_read(&ctx, &p, &e), -EOPNOTSUPP);
	assert_non_null(strstr(e.msg, "eth1:tx-2: stall_thrs: not supported by this kernel (the stall detector needs Linux 6.9 or later)"));
	plan_free(&p);

	plan_init(&p, 250);
	add(&p, "eth0", 9, BQL_LIMIT_MAX, 9000);
	/* no tx-9 at all: a queue gone, not one without BQL */
	assert_int_equal(plan_read(&ctx, &p, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "eth0:tx-9: no such TX queue"));
	plan_free(&p);

	plan_init(&p, 250);
	add(&p, "nope0", 0, BQL_LIMIT_MAX, 9000);
	assert_int_equal(plan_read(&ctx, &p, &e), -ENODEV);
	plan_free(&p);
}

static void test_restore_values_hz300(void **state)
{
	struct plan p;
	struct bql_err e;

	(void)state;
	sh("echo 4 > '%s/class/net/eth0/queues/tx-3/byte_queue_limits/hold_time'", root);
	plan_init(&p, 300);
	add(&p, "eth0", 3, BQL_HOLD_TIME, 500);
	assert_int_equal(plan_read(&ctx, &p, &e), 0);
	assert_int_equal(p.it[0].old, 4);
	assert_int_equal(p.it[0].restore, 3);	/* stores 1 jiffy again, shows 4 */
	plan_free(&p);
	sh("echo 1000 > '%s/class/net/eth0/queues/tx-3/byte_queue_limits/hold_time'", root);
}

static void test_minmax(void **state)
{
	const struct plan_queue *q;
	uint64_t lo, hi;
	struct plan p;
	struct bql_err e;

	(void)state;
	plan_init(&p, 250);
	add(&p, "eth0", 0, BQL_LIMIT_MIN, 5000);		/* max stays 'max' */
	add(&p, "eth0", 1, BQL_LIMIT_MAX, 3000);		/* min stays 0 */
	add(&p, "eth0", 2, BQL_LIMIT_MIN, 5000);
	add(&p, "eth0", 2, BQL_LIMIT_MAX, 3000);		/* 5000 > 3000 */
	add(&p, "eth0", 3, BQL_LIMIT_MAX, 3000);
	assert_int_equal(plan_read(&ctx, &p, &e), 0);
	assert_int_equal(plan_minmax(&p, &q, &lo, &hi), 1);
	assert_int_equal(q->queue, 2);
	assert_true(lo == 5000 && hi == 3000);
	plan_free(&p);

	/* the existing value counts: limit_min is 4000 already on tx-1 */
	sh("echo 4000 > '%s/class/net/eth0/queues/tx-1/byte_queue_limits/limit_min'", root);
	plan_init(&p, 250);
	add(&p, "eth0", 1, BQL_LIMIT_MAX, 3000);
	add(&p, "eth0", 3, BQL_LIMIT_MAX, 3000);
	assert_int_equal(plan_read(&ctx, &p, &e), 0);
	assert_int_equal(plan_minmax(&p, &q, &lo, &hi), 1);
	assert_true(q->queue == 1 && lo == 4000 && hi == 3000);
	plan_free(&p);
	sh("echo 0 > '%s/class/net/eth0/queues/tx-1/byte_queue_limits/limit_min'", root);
}

/* 2 devices x 4 queues x limit_min, hold_time: 16 writes */
static void build16(struct plan *p)
{
	struct bql_err e;

	plan_init(p, 250);
	for (int d = 0; d < 2; d++) {
		for (unsigned int q = 0; q < 4; q++) {
			add(p, d ? "eth1" : "eth0", q, BQL_LIMIT_MIN, 3000 + q);
			add(p, d ? "eth1" : "eth0", q, BQL_HOLD_TIME, 500);
		}
	}
	assert_int_equal(plan_read(&ctx, p, &e), 0);
	assert_int_equal(plan_pending(p), 16);
}

static void test_execute_ok(void **state)
{
	struct plan p;
	struct bql_err e;

	(void)state;
	build16(&p);
	arm(0, 0);
	assert_int_equal(plan_execute(&ctx, &p, &e), 0);
	for (size_t i = 0; i < p.n; i++)
		assert_int_equal(p.it[i].state, PLAN_WRITTEN);
	assert_int_equal(rd("eth1", 3, "limit_min"), 3003);
	assert_int_equal(rd("eth0", 2, "hold_time"), 500);
	plan_free(&p);
	/* undo with a second plan: the restore values */
	plan_init(&p, 250);
	for (int d = 0; d < 2; d++)
		for (unsigned int q = 0; q < 4; q++) {
			add(&p, d ? "eth1" : "eth0", q, BQL_LIMIT_MIN, 0);
			add(&p, d ? "eth1" : "eth0", q, BQL_HOLD_TIME, 1000);
		}
	assert_int_equal(plan_read(&ctx, &p, &e), 0);
	assert_int_equal(plan_execute(&ctx, &p, &e), 0);
	plan_free(&p);
}

/*
 * Fail write k of 16, for every k: the tree must end byte-identical.
 * @destroys: the failing write first empties its file (a write that fails
 * after O_TRUNC); it is then rolled back too, with one more write.
 */
static void fail_at_every_position(bool destroys)
{
	char *before = digest();

	for (int k = 1; k <= 16; k++) {
		struct plan p;
		struct bql_err e;
		char *after;

		build16(&p);
		arm(k, 0);
		fail_destroys = destroys;
		assert_int_equal(plan_execute(&ctx, &p, &e), -EBUSY);
		/* k writes, then k - 1 restores, and the failed one if it changed */
		assert_int_equal(writes, k + k - 1 + destroys);
		arm(0, 0);
		/* the failure names the file, the value and the reason */
		assert_non_null(strstr(e.msg, ": cannot write "));
		assert_non_null(strstr(e.msg, "Device or resource busy"));
		assert_true(p.it[k - 1].write_failed);
		assert_int_equal(p.it[k - 1].state, destroys ? PLAN_RESTORED : PLAN_FAILED);
		for (int i = 0; i < k - 1; i++) {
			assert_false(p.it[i].write_failed);
			assert_int_equal(p.it[i].state, PLAN_RESTORED);
		}
		for (size_t i = (size_t)k; i < p.n; i++)
			assert_int_equal(p.it[i].state, PLAN_PENDING);
		after = digest();
		if (strcmp(before, after))
			fail_msg("write %d failed%s: tree changed:\n%s\n---\n%s", k,
				 destroys ? " after emptying its file" : "", before, after);
		free(after);
		plan_free(&p);
	}
	free(before);
}

static void test_execute_fails_at_every_position(void **state)
{
	(void)state;
	fail_at_every_position(false);
}

/* The write that fails is rolled back too, when it changed its file. */
static void test_failed_write_is_restored(void **state)
{
	(void)state;
	fail_at_every_position(true);
	/* its restore failing too is reported on it */
	{
		struct plan p;
		struct bql_err e;

		build16(&p);
		arm(3, 4);
		fail_destroys = true;
		assert_int_equal(plan_execute(&ctx, &p, &e), -EBUSY);
		arm(0, 0);
		assert_int_equal(p.it[2].state, PLAN_RESTORE_FAILED);
		assert_non_null(p.it[2].err);
		assert_non_null(strstr(p.it[2].err, "eth0:tx-1: limit_min: cannot write 0 to "));
		assert_int_equal(p.it[1].state, PLAN_RESTORED);
		assert_int_equal(p.it[0].state, PLAN_RESTORED);
		plan_free(&p);
		sh("echo 0 > '%s/class/net/eth0/queues/tx-1/byte_queue_limits/limit_min'", root);
	}
}

static void test_restore_fails_too(void **state)
{
	struct plan p;
	struct bql_err e;

	(void)state;
	build16(&p);
	/* writes 1-5 succeed, the 6th fails; restores are calls 7 (item 5),
	 * 8 (item 4), 9 (item 3: fails too), 10, 11 */
	arm(6, 9);
	assert_int_equal(plan_execute(&ctx, &p, &e), -EBUSY);
	arm(0, 0);
	assert_int_equal(p.it[5].state, PLAN_FAILED);
	assert_int_equal(p.it[4].state, PLAN_RESTORED);
	assert_int_equal(p.it[3].state, PLAN_RESTORED);
	assert_int_equal(p.it[2].state, PLAN_RESTORE_FAILED);
	assert_non_null(p.it[2].err);
	assert_non_null(strstr(p.it[2].err, "eth0:tx-1: limit_min: cannot write 0 to "));
	assert_int_equal(p.it[1].state, PLAN_RESTORED);
	assert_int_equal(p.it[0].state, PLAN_RESTORED);
	assert_int_equal(rd("eth0", 1, "limit_min"), 3001);	/* left written */
	assert_int_equal(rd("eth0", 0, "limit_min"), 0);
	plan_free(&p);
	sh("echo 0 > '%s/class/net/eth0/queues/tx-1/byte_queue_limits/limit_min'", root);
}

static void test_access(void **state)
{
	char path[512];
	struct plan p;
	struct bql_err e;

	(void)state;
	snprintf(path, sizeof(path), "%s/class/net/eth0/queues/tx-2/byte_queue_limits/limit_min",
		 root);
	build16(&p);
	assert_int_equal(plan_check_access(&ctx, &p, &e), 0);
	/* a file that vanished after reading */
	sh("rm '%s'", path);
	assert_int_equal(plan_check_access(&ctx, &p, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "eth0:tx-2: limit_min: cannot open"));
	assert_non_null(strstr(e.msg, "No such file or directory; nothing was written"));
	sh("echo 0 > '%s'", path);
	if (geteuid()) {
		/* root passes access() whatever the mode */
		assert_int_equal(chmod(path, 0444), 0);
		assert_int_equal(plan_check_access(&ctx, &p, &e), -EACCES);
		assert_non_null(strstr(e.msg, "changing BQL settings needs root"));
		assert_int_equal(chmod(path, 0644), 0);
	}
	plan_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_stall_window_per_hz),
		cmocka_unit_test(test_rounding),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_clamp_rule),
		cmocka_unit_test(test_read_and_unchanged),
		cmocka_unit_test(test_optional_and_missing),
		cmocka_unit_test(test_restore_values_hz300),
		cmocka_unit_test(test_minmax),
		cmocka_unit_test(test_execute_ok),
		cmocka_unit_test(test_execute_fails_at_every_position),
		cmocka_unit_test(test_failed_write_is_restored),
		cmocka_unit_test(test_restore_fails_too),
		cmocka_unit_test(test_access),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
