// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/kernel/sampler.c on temp trees whose values change between ticks, with an
 * injected clock: values, rates, counter wraps and resets, devices
 * appearing, vanishing and being replaced, queue count changes,
 * selectors, history rings, bad values, and files opened once.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/tmptree.h"

#include "lib/kernel/sampler.h"

static char root[256];
static struct bql_ctx ctx;

struct fake_clock {
	uint64_t mono, real;
};

static uint64_t fake_mono(void *arg)
{
	return ((struct fake_clock *)arg)->mono;
}

static uint64_t fake_real(void *arg)
{
	return ((struct fake_clock *)arg)->real;
}

static struct fake_clock fclk;
static const struct sampler_clock clk = { fake_mono, fake_real, &fclk };

/* Rewrite a file in place (same inode, as sysfs values change). */
static void put(const char *val, const char *fmt, ...)
{
	char rel[512], path[1024];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/class/net/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", val);
	fclose(f);
}

static void putq(const char *dev, unsigned int q, const char *attr, uint64_t v)
{
	char val[32];

	snprintf(val, sizeof(val), "%llu", (unsigned long long)v);
	put(val, "%s/queues/tx-%u/byte_queue_limits/%s", dev, q, attr);
}

static void putstat(const char *dev, const char *stat, uint64_t v)
{
	char val[32];

	snprintf(val, sizeof(val), "%llu", (unsigned long long)v);
	put(val, "%s/statistics/%s", dev, stat);
}

static void mkqueue(const char *dev, unsigned int q)
{
	static const char *const attrs[] = { "limit", "limit_min", "limit_max", "hold_time",
					     "inflight", "stall_thrs", "stall_cnt", "stall_max" };
	const uint64_t vals[] = { 3028 + q * 1514, 0, 1879048192, 1000, q * 100, 0, q, q * 2 };

	sh("mkdir -p '%s/class/net/%s/queues/tx-%u/byte_queue_limits'", root, dev, q);
	for (int a = 0; a < 8; a++)
		putq(dev, q, attrs[a], vals[a]);
}

static void mkdev(const char *dev, int ifindex, unsigned int ntx, bool bql)
{
	char v[16];

	sh("mkdir -p '%s/class/net/%s/statistics' '%s/class/net/%s/queues/rx-0'",
	   root, dev, root, dev);
	snprintf(v, sizeof(v), "%d", ifindex);
	put(v, "%s/ifindex", dev);
	putstat(dev, "tx_bytes", 1000);
	putstat(dev, "tx_packets", 10);
	for (unsigned int q = 0; q < ntx; q++) {
		if (bql)
			mkqueue(dev, q);
		else
			sh("mkdir -p '%s/class/net/%s/queues/tx-%u'", root, dev, q);
	}
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/bqlt-sampler-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	bql_ctx_init(&ctx);
	ctx.sysfs_root = root;
	ctx.root_overridden = true;
	fclk.mono = 5000000000ull;
	fclk.real = 1700000000000000000ull;
	mkdev("lo", 1, 1, false);
	mkdev("eth0", 2, 4, true);
	mkdev("eth1", 3, 2, true);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf '%s'", root);
	return 0;
}

static void tick(struct sampler *s, uint64_t advance_ns)
{
	struct bql_err e;
	int ret;

	fclk.mono += advance_ns;
	fclk.real += advance_ns;
	ret = sampler_tick(s, &e);
	if (ret)
		fail_msg("sampler_tick: %s", e.msg);
}

static const struct sampler_dev *dev(const struct sampler *s, const char *name)
{
	for (size_t i = 0; i < s->ndev; i++)
		if (!strcmp(s->dev[i].ifname, name))
			return &s->dev[i];
	return NULL;
}

static bool has_event(const struct sampler *s, enum sampler_event_type t, const char *name)
{
	for (size_t i = 0; i < s->nev; i++)
		if (s->ev[i].type == t && !strcmp(s->ev[i].ifname, name))
			return true;
	return false;
}

/* ------------------------------------------------------------- tests */

static void test_counter_delta(void **state)
{
	static const struct {
		uint64_t prev, cur, delta;
		bool ok;
	} t[] = {
		{ 10, 20, 10, true },
		{ 5, 5, 0, true },
		{ UINT32_MAX - 5, 4, 10, true },		/* 32-bit wrap */
		{ (1ull << 31), 0, (1ull << 31), true },	/* half way round */
		{ UINT64_MAX - 4, 5, 10, true },		/* 64-bit wrap */
		{ 1000, 5, 0, false },				/* reset */
		{ (1ull << 40), 7, 0, false },			/* 64-bit reset */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t d = 12345;
		bool ok = sampler_counter_delta(t[i].prev, t[i].cur, &d);

		assert_int_equal(ok, t[i].ok);
		if (ok)
			assert_int_equal(d, t[i].delta);
	}
}

static void test_first_sample(void **state)
{
	struct sampler s;
	const struct sampler_dev *d;

	(void)state;
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	tick(&s, 0);
	assert_int_equal(s.seq, 1);
	assert_int_equal(s.ndev, 2);		/* lo has no BQL */
	assert_int_equal(s.nev, 0);
	assert_int_equal(s.dt_ns, 0);
	assert_int_equal(s.mono_ns, fclk.mono);
	assert_int_equal(s.real_ns, fclk.real);
	assert_string_equal(s.dev[0].ifname, "eth0");
	assert_string_equal(s.dev[1].ifname, "eth1");
	d = dev(&s, "eth0");
	assert_int_equal(d->ifindex, 2);
	assert_int_equal(d->ntx, 4);
	assert_int_equal(d->nq, 4);
	assert_int_equal(d->flags, 0);
	assert_true(d->has_stats);
	assert_false(d->has_rate);
	assert_int_equal(d->tx_bytes, 1000);
	for (unsigned int q = 0; q < 4; q++) {
		const struct sampler_queue *sq = &d->q[q];

		assert_int_equal(sq->index, q);
		assert_int_equal(sq->flags, 0);
		assert_int_equal(sq->bql.present, (1u << BQL_ATTR_NR) - 1);
		assert_int_equal(sq->bql.val[BQL_LIMIT], 3028 + q * 1514);
		assert_int_equal(sq->bql.val[BQL_INFLIGHT], q * 100);
		assert_int_equal(sq->bql.val[BQL_LIMIT_MAX], 1879048192);
		assert_int_equal(sq->bql.val[BQL_STALL_MAX], q * 2);
		assert_false(sq->has_stall_delta);
		assert_int_equal(sq->rate_valid, 0);
		assert_int_equal(sq->hist_len, 1);
	}
	assert_int_equal(sampler_nqueues(&s), 6);
	sampler_free(&s);
}

static void test_rates_and_changes(void **state)
{
	struct sampler s;
	const struct sampler_dev *d;
	int fd0;

	(void)state;
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	tick(&s, 0);
	fd0 = dev(&s, "eth0")->q[1].fd[BQL_LIMIT];
	assert_true(fd0 >= 0);
	putstat("eth0", "tx_bytes", 1000 + 250000);
	putstat("eth0", "tx_packets", 10 + 500);
	putq("eth0", 1, "limit", 9000);
	putq("eth0", 1, "inflight", 4500);
	putq("eth0", 1, "stall_cnt", 1 + 3);
	tick(&s, 500000000ull);		/* 0.5 s */
	assert_int_equal(s.dt_ns, 500000000ull);
	d = dev(&s, "eth0");
	assert_true(d->has_rate);
	assert_float_equal(d->tx_bytes_rate, 500000.0, 1e-6);
	assert_float_equal(d->tx_packets_rate, 1000.0, 1e-6);
	assert_int_equal(d->q[1].bql.val[BQL_LIMIT], 9000);
	assert_int_equal(d->q[1].bql.val[BQL_INFLIGHT], 4500);
	assert_true(d->q[1].has_stall_delta);
	assert_int_equal(d->q[1].stall_cnt_delta, 3);
	assert_true(d->q[0].has_stall_delta);
	assert_int_equal(d->q[0].stall_cnt_delta, 0);
	/* the file was not reopened: pread on the same fd saw the new value */
	assert_int_equal(d->q[1].fd[BQL_LIMIT], fd0);
	/* history: newest first */
	assert_int_equal(d->q[1].hist_len, 2);
	assert_int_equal(sampler_hist(d->q[1].hist_limit, &d->q[1], 0), 9000);
	assert_int_equal(sampler_hist(d->q[1].hist_limit, &d->q[1], 1), 3028 + 1514);
	assert_int_equal(sampler_hist(d->q[1].hist_inflight, &d->q[1], 0), 4500);

	/* a 32-bit counter wraps: the rate stays right */
	putstat("eth1", "tx_bytes", UINT32_MAX - 999);
	tick(&s, 1000000000ull);
	putstat("eth1", "tx_bytes", 1000);
	tick(&s, 1000000000ull);
	d = dev(&s, "eth1");
	assert_true(d->has_rate);
	assert_float_equal(d->tx_bytes_rate, 2000.0, 1e-6);

	/* a reset (counter went down from a small value): no rate this time */
	putstat("eth1", "tx_bytes", 10);
	tick(&s, 1000000000ull);
	assert_false(dev(&s, "eth1")->has_rate);
	tick(&s, 1000000000ull);
	assert_true(dev(&s, "eth1")->has_rate);
	assert_float_equal(dev(&s, "eth1")->tx_bytes_rate, 0.0, 1e-9);

	/* the clock did not move: no rates, no division by zero */
	tick(&s, 0);
	assert_false(dev(&s, "eth1")->has_rate);
	sampler_free(&s);
}

/*
 * limit and inflight are read at every tick; the slow files (settings,
 * stall_cnt, stall_max) of a slice of the queues at each tick, so that
 * every queue's are read within SAMPLER_SLOW_NS (1 s): never staler.
 */
static void test_settings_cadence(void **state)
{
	const struct sampler_queue *q;
	struct sampler s;
	int seen_at = -1;

	(void)state;
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	tick(&s, 0);
	putq("eth0", 0, "limit", 7000);
	putq("eth1", 1, "limit_max", 65536);	/* the last of 6 queues */
	putq("eth1", 1, "hold_time", 500);
	putq("eth1", 1, "stall_max", 9);
	tick(&s, 10000000ull);		/* 10 ms: a slice of 1 queue in 6 */
	assert_int_equal(dev(&s, "eth0")->q[0].bql.val[BQL_LIMIT], 7000);
	q = &dev(&s, "eth1")->q[1];
	assert_int_equal(q->bql.val[BQL_LIMIT_MAX], 1879048192);	/* not yet */
	assert_int_equal(q->bql.val[BQL_STALL_MAX], 2);
	assert_true(bql_has(&q->bql, BQL_LIMIT_MAX));
	for (int i = 2; i <= 100 && seen_at < 0; i++) {	/* 1 s after the first tick */
		tick(&s, 10000000ull);
		if (dev(&s, "eth1")->q[1].bql.val[BQL_LIMIT_MAX] == 65536)
			seen_at = i;
	}
	assert_true(seen_at > 1);
	q = &dev(&s, "eth1")->q[1];
	assert_int_equal(q->bql.val[BQL_LIMIT_MAX], 65536);	/* within 1 s */
	assert_int_equal(q->bql.val[BQL_HOLD_TIME], 500);
	assert_int_equal(q->bql.val[BQL_STALL_MAX], 9);
	assert_true(q->slow_seen);
	assert_int_equal(q->slow_ns, s.mono_ns);

	/* ticks 2 s apart: every queue's slow files at every tick */
	putq("eth0", 2, "stall_thrs", 3);
	putq("eth1", 0, "limit_min", 1514);
	tick(&s, 2000000000ull);
	assert_int_equal(dev(&s, "eth0")->q[2].bql.val[BQL_STALL_THRS], 3);
	assert_int_equal(dev(&s, "eth1")->q[0].bql.val[BQL_LIMIT_MIN], 1514);

	/* irregular ticks: no queue's read grows older than 1 s */
	for (int i = 0; i < 200; i++) {
		tick(&s, (uint64_t)(i % 7) * 37000000ull + 1000000ull);
		for (size_t k = 0; k < s.ndev; k++)
			for (unsigned int j = 0; j < s.dev[k].nq; j++)
				assert_true(s.mono_ns - s.dev[k].q[j].slow_ns < SAMPLER_SLOW_NS);
	}
	sampler_free(&s);
}

/*
 * stats_min_ns: traffic counters read at most that often, rates over the
 * span; stall_cnt follows the slow files (within 1 s), its delta counts
 * at the sample that read it
 */
static void test_stats_min_interval(void **state)
{
	struct sampler s;
	const struct sampler_queue *q;
	bool seen = false;

	(void)state;
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	s.stats_min_ns = 100000000ull;
	tick(&s, 0);
	putstat("eth0", "tx_bytes", 1000 + 5000);
	tick(&s, 10000000ull);
	assert_false(dev(&s, "eth0")->has_rate);	/* not read yet */
	assert_int_equal(dev(&s, "eth0")->tx_bytes, 1000);
	for (int i = 0; i < 9; i++)
		tick(&s, 10000000ull);
	assert_true(dev(&s, "eth0")->has_rate);
	assert_float_equal(dev(&s, "eth0")->tx_bytes_rate, 50000.0, 1e-6);
	putq("eth0", 1, "limit", 9000);
	putq("eth0", 1, "stall_cnt", 1 + 2);
	tick(&s, 10000000ull);			/* limit/inflight still every tick */
	assert_int_equal(dev(&s, "eth0")->q[1].bql.val[BQL_LIMIT], 9000);
	assert_true(dev(&s, "eth0")->has_rate);	/* the last rate stays */
	for (int i = 0; i < 100 && !seen; i++) {
		q = &dev(&s, "eth0")->q[1];
		if (q->bql.val[BQL_STALL_CNT] == 3) {
			seen = true;
			break;
		}
		assert_true(q->has_stall_delta);
		assert_int_equal(q->stall_cnt_delta, 0);
		tick(&s, 10000000ull);
	}
	assert_true(seen);
	q = &dev(&s, "eth0")->q[1];
	assert_true(q->has_stall_delta);
	assert_int_equal(q->stall_cnt_delta, 2);
	assert_int_equal(q->since_stall, 0);
	tick(&s, 10000000ull);
	q = &dev(&s, "eth0")->q[1];
	assert_int_equal(q->since_stall, 1);
	assert_int_equal(q->stall_cnt_delta, 0);
	sampler_free(&s);
}

/* operstate is kept per device and refreshed by the full scans */
static void test_operstate(void **state)
{
	struct sampler s;

	(void)state;
	put("up", "eth0/operstate");
	put("down", "eth1/operstate");
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	tick(&s, 0);
	assert_string_equal(dev(&s, "eth0")->operstate, "up");
	assert_false(sampler_dev_down(dev(&s, "eth0")));
	assert_true(sampler_dev_down(dev(&s, "eth1")));
	put("unknown", "eth1/operstate");
	tick(&s, 1000000000ull);
	assert_false(sampler_dev_down(dev(&s, "eth1")));
	sampler_free(&s);
}

static void test_device_vanishes_and_appears(void **state)
{
	struct sampler s;
	const struct sampler_dev *d;

	(void)state;
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	tick(&s, 0);
	sh("rm -rf '%s/class/net/eth1'", root);
	tick(&s, 100000000ull);
	assert_true(has_event(&s, SEV_VANISHED, "eth1"));
	d = dev(&s, "eth1");
	assert_non_null(d);	/* kept one tick, marked */
	assert_int_equal(d->flags, SAMPLER_VANISHED);
	assert_true(d->q[0].flags & SAMPLER_VANISHED);
	tick(&s, 100000000ull);
	assert_null(dev(&s, "eth1"));
	assert_int_equal(s.nev, 0);
	assert_int_equal(s.ndev, 1);

	mkdev("eth2", 7, 3, true);
	mkdev("veth9", 8, 1, false);	/* no BQL: never shown */
	tick(&s, 100000000ull);
	assert_true(has_event(&s, SEV_APPEARED, "eth2"));
	assert_int_equal(s.nev, 1);
	d = dev(&s, "eth2");
	assert_non_null(d);
	assert_int_equal(d->flags, SAMPLER_NEW);
	assert_int_equal(d->nq, 3);
	assert_false(d->has_rate);
	assert_int_equal(d->q[2].bql.val[BQL_LIMIT], 3028 + 2 * 1514);
	assert_null(dev(&s, "veth9"));
	putstat("eth2", "tx_bytes", 1100);
	tick(&s, 100000000ull);
	d = dev(&s, "eth2");
	assert_int_equal(d->flags, 0);
	assert_true(d->has_rate);
	assert_float_equal(d->tx_bytes_rate, 1000.0, 1e-6);
	sampler_free(&s);
}

static void test_device_replaced(void **state)
{
	struct sampler s;

	(void)state;
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	tick(&s, 0);
	/* same name, new ifindex: the old one is gone, a new one came */
	sh("rm -rf '%s/class/net/eth1'", root);
	mkdev("eth1", 9, 2, true);
	tick(&s, 1000000000ull);	/* a full scan is due after 1 s */
	assert_true(has_event(&s, SEV_VANISHED, "eth1"));
	assert_true(has_event(&s, SEV_APPEARED, "eth1"));
	tick(&s, 100000000ull);
	assert_int_equal(dev(&s, "eth1")->ifindex, 9);
	assert_int_equal(s.ndev, 2);
	sampler_free(&s);
}

static void test_queue_count_change(void **state)
{
	struct sampler s;
	const struct sampler_dev *d;

	(void)state;
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	tick(&s, 0);
	putq("eth0", 0, "limit", 5555);
	tick(&s, 100000000ull);
	mkqueue("eth0", 4);
	mkqueue("eth0", 5);
	tick(&s, 100000000ull);
	assert_int_equal(s.nev, 1);
	assert_int_equal(s.ev[0].type, SEV_QUEUES);
	assert_int_equal(s.ev[0].old_ntx, 4);
	assert_int_equal(s.ev[0].new_ntx, 6);
	d = dev(&s, "eth0");
	assert_int_equal(d->ntx, 6);
	assert_int_equal(d->nq, 6);
	assert_int_equal(d->q[4].flags, SAMPLER_NEW);
	assert_int_equal(d->q[4].bql.val[BQL_LIMIT], 3028 + 4 * 1514);
	/* queues that stayed keep their history */
	assert_int_equal(d->q[0].flags, 0);
	assert_int_equal(d->q[0].hist_len, 3);

	sh("rm -rf '%s/class/net/eth0/queues/tx-5' '%s/class/net/eth0/queues/tx-4' "
	   "'%s/class/net/eth0/queues/tx-3'", root, root, root);
	tick(&s, 100000000ull);
	assert_int_equal(s.nev, 1);
	assert_int_equal(s.ev[0].old_ntx, 6);
	assert_int_equal(s.ev[0].new_ntx, 3);
	d = dev(&s, "eth0");
	assert_int_equal(d->ntx, 3);
	assert_int_equal(d->nq, 6);	/* three marked vanished for one tick */
	assert_true(d->q[3].flags & SAMPLER_VANISHED);
	assert_true(d->q[5].flags & SAMPLER_VANISHED);
	tick(&s, 100000000ull);
	assert_int_equal(dev(&s, "eth0")->nq, 3);
	assert_int_equal(dev(&s, "eth0")->q[0].bql.val[BQL_LIMIT], 5555);
	sampler_free(&s);
}

static void test_selectors(void **state)
{
	char a0[] = "eth*:1", a1[] = "eth1";
	char *argv[] = { a0, a1 };
	struct sel sel;
	struct sampler s;
	struct bql_err e;
	const struct sampler_dev *d;

	(void)state;
	assert_int_equal(sel_parse(&sel, 2, argv, &e), 0);
	sampler_init(&s, &ctx, &sel, NULL, &clk);
	tick(&s, 0);
	d = dev(&s, "eth0");
	assert_int_equal(d->nq, 1);
	assert_int_equal(d->q[0].index, 1);
	assert_int_equal(dev(&s, "eth1")->nq, 2);
	/* a device that matches the glob appears later; one that does not is ignored */
	mkdev("eth5", 10, 2, true);
	mkdev("wlan0", 11, 2, true);
	tick(&s, 100000000ull);
	assert_true(has_event(&s, SEV_APPEARED, "eth5"));
	assert_null(dev(&s, "wlan0"));
	assert_int_equal(dev(&s, "eth5")->nq, 1);
	assert_int_equal(dev(&s, "eth5")->q[0].index, 1);
	sampler_free(&s);
	sel_free(&sel);
}

static void test_prestall_kernel(void **state)
{
	struct sampler s;

	(void)state;
	sh("rm -f '%s'/class/net/eth1/queues/tx-*/byte_queue_limits/stall_*", root);
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	tick(&s, 0);
	tick(&s, 100000000ull);
	assert_false(dev(&s, "eth1")->q[0].bql.present & (1u << BQL_STALL_CNT));
	assert_false(dev(&s, "eth1")->q[0].has_stall_delta);
	assert_true(dev(&s, "eth0")->q[0].has_stall_delta);
	sampler_free(&s);
}

static void test_bad_value(void **state)
{
	struct sampler s;
	struct bql_err e;

	(void)state;
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	tick(&s, 0);
	put("12abc", "eth1/queues/tx-1/byte_queue_limits/limit");
	fclk.mono += 100000000ull;
	assert_int_equal(sampler_tick(&s, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "eth1:tx-1: limit"));
	assert_non_null(strstr(e.msg, "12abc"));
	sampler_free(&s);
}

static void test_history_ring(void **state)
{
	struct sampler s;
	const struct sampler_queue *q;

	(void)state;
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	for (unsigned int i = 0; i < SAMPLER_HIST + 10; i++) {
		putq("eth0", 2, "limit", 1000 + i);
		tick(&s, 10000000ull);
	}
	q = &dev(&s, "eth0")->q[2];
	assert_int_equal(q->hist_len, SAMPLER_HIST);
	assert_int_equal(sampler_hist(q->hist_limit, q, 0), 1000 + SAMPLER_HIST + 9);
	assert_int_equal(sampler_hist(q->hist_limit, q, SAMPLER_HIST - 1), 1000 + 10);
	sampler_free(&s);
}

static void test_empty_and_missing_root(void **state)
{
	struct sampler s;
	struct bql_err e;
	struct bql_ctx c2;

	(void)state;
	sh("rm -rf '%s/class/net/eth0' '%s/class/net/eth1'", root, root);
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	tick(&s, 0);
	assert_int_equal(s.ndev, 0);
	mkdev("eth0", 2, 1, true);
	tick(&s, 100000000ull);
	assert_true(has_event(&s, SEV_APPEARED, "eth0"));
	sampler_free(&s);

	bql_ctx_init(&c2);
	c2.sysfs_root = "/nonexistent/bqltool";
	sampler_init(&s, &c2, NULL, NULL, &clk);
	assert_int_equal(sampler_tick(&s, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "/nonexistent/bqltool/class/net"));
	sampler_free(&s);
}

/* descriptors this process has open */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own */
}

/*
 * Below the descriptor limit every BQL file stays open (8 per queue, plus
 * 2 statistics files per device without netlink); a change to a setting
 * shows within a second.
 */
static void test_fds_per_queue(void **state)
{
	const struct sampler_queue *q;
	struct sampler s;
	int before;

	(void)state;
	before = open_fds();
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	tick(&s, 0);
	assert_int_equal(sampler_nqueues(&s), 6);
	assert_int_equal(open_fds() - before, 6 * 8 + 2 * 2);
	q = &dev(&s, "eth0")->q[1];
	assert_int_equal(q->bql.val[BQL_LIMIT_MAX], 1879048192);
	assert_int_equal(q->bql.val[BQL_HOLD_TIME], 1000);
	assert_true(bql_has(&q->bql, BQL_STALL_THRS));
	putq("eth0", 1, "hold_time", 250);
	tick(&s, 1000000000ull);
	q = &dev(&s, "eth0")->q[1];
	assert_int_equal(q->bql.val[BQL_HOLD_TIME], 250);
	assert_int_equal(s.shortage.nq_reopen, 0);
	assert_int_equal(s.shortage.err, 0);
	sampler_free(&s);
	assert_int_equal(open_fds(), before);
}

/*
 * Short of descriptors for all 8 files, the hot ones (limit, inflight) of
 * every queue stay open first: the slow files of the last queues give
 * theirs up, and are read by path at their turn, which is no shortage.
 */
static void test_fd_hot_first(void **state)
{
	struct rlimit old, low;
	struct sampler s;
	size_t slow_open = 0;
	int before;

	(void)state;
	mkdev("big0", 4, 16, true);
	before = open_fds();
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	/* 22 queues: 44 hot files fit, not all 176 */
	low.rlim_cur = (rlim_t)(before + SAMPLER_FD_RESERVE + 100);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	tick(&s, 0);
	assert_int_equal(sampler_nqueues(&s), 22);
	for (size_t i = 0; i < s.ndev; i++)
		for (unsigned int k = 0; k < s.dev[i].nq; k++) {
			const struct sampler_queue *q = &s.dev[i].q[k];

			assert_true(q->fd[BQL_LIMIT] >= 0);
			assert_true(q->fd[BQL_INFLIGHT] >= 0);
			assert_int_equal(q->reopen, 0);
			for (int a = 0; a < BQL_ATTR_NR; a++)
				slow_open += (SAMPLER_SLOW & (1u << a)) && q->fd[a] >= 0;
		}
	assert_true(slow_open > 0 && slow_open < 22 * 6);
	assert_int_equal(s.shortage.nq_reopen, 0);
	assert_int_equal(s.shortage.err, 0);
	/* the last queue's settings: read by path, still followed */
	putq("big0", 15, "limit_max", 30000);
	for (int i = 0; i < 100; i++)
		tick(&s, 10000000ull);
	assert_int_equal(dev(&s, "big0")->q[15].bql.val[BQL_LIMIT_MAX], 30000);
	sampler_free(&s);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_int_equal(open_fds(), before);
}

/*
 * Past the descriptor limit no device is dropped: the files that do not
 * fit are opened at each read, every queue is sampled, and the shortage
 * is counted (and said) with what is still covered.
 */
static void test_fd_shortage_covers_all(void **state)
{
	struct rlimit old, low;
	const struct sampler_dev *d;
	struct sampler s;
	char text[512];

	(void)state;
	mkdev("big0", 4, 64, true);
	mkdev("big1", 5, 64, true);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = 160;	/* 134 queues x 4 files do not fit */
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	tick(&s, 0);
	assert_int_equal(s.ndev, 4);
	assert_int_equal(sampler_nqueues(&s), 134);
	assert_true(s.shortage.nq_reopen > 0);
	assert_int_equal(s.shortage.err, EMFILE);
	assert_int_equal(s.shortage.ndev_skipped, 0);
	assert_int_equal(s.shortage.fd_limit, 160);
	assert_true(open_fds() < 160 - SAMPLER_FD_RESERVE + 8);
	/* the last queue of the last device: read, and followed */
	d = dev(&s, "big1");
	assert_non_null(d);
	assert_int_equal(d->nq, 64);
	assert_true(d->q[63].reopen != 0);
	assert_int_equal(d->q[63].bql.val[BQL_LIMIT], 3028 + 63 * 1514);
	putq("big1", 63, "limit", 4242);
	tick(&s, 10000000ull);
	assert_int_equal(dev(&s, "big1")->q[63].bql.val[BQL_LIMIT], 4242);
	sampler_short_text(text, sizeof(text), &s);
	assert_non_null(strstr(text, "out of file descriptors (ulimit -n 160)"));
	assert_non_null(strstr(text, "read by reopening their files"));
	assert_non_null(strstr(text, "covering 4 devices, 134 queues"));
	sampler_free(&s);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
}

/* the soft limit goes up to the hard one */
static void test_raise_nofile(void **state)
{
	struct rlimit old, low, now;

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	if (old.rlim_max < 200)
		skip();
	low = old;
	low.rlim_cur = 100;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	assert_true(sampler_raise_nofile() == (old.rlim_max == RLIM_INFINITY ? UINT64_MAX :
					       (uint64_t)old.rlim_max));
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &now), 0);
	assert_true(now.rlim_cur == old.rlim_max);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_delta),
		cmocka_unit_test_setup_teardown(test_first_sample, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rates_and_changes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_settings_cadence, setup, teardown),
		cmocka_unit_test_setup_teardown(test_operstate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stats_min_interval, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_vanishes_and_appears, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_replaced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_count_change, setup, teardown),
		cmocka_unit_test_setup_teardown(test_selectors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prestall_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_value, setup, teardown),
		cmocka_unit_test_setup_teardown(test_history_ring, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_and_missing_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fds_per_queue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd_hot_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd_shortage_covers_all, setup, teardown),
		cmocka_unit_test(test_raise_nofile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
