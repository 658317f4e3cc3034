// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/model/topmodel.c: rows built from a sampler over a temp tree (aggregates,
 * expand/collapse, idle devices, sorting, filtering), and the queue flags
 * (pinned, at limit_min, oscillating, stall) on hand-made histories.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/tmptree.h"

#include "lib/model/topmodel.h"

static char root[256];
static struct bql_ctx ctx;
static uint64_t now_ns = 1000000000ull;

static uint64_t fake_ns(void *arg)
{
	(void)arg;
	return now_ns;
}

static const struct sampler_clock clk = { fake_ns, fake_ns, NULL };

static void put(uint64_t v, const char *fmt, ...)
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
	fprintf(f, "%llu\n", (unsigned long long)v);
	fclose(f);
}

/* queue q of @dev: limit @limit, inflight @inflight, other values fixed */
static void mkqueue(const char *dev, unsigned int q, uint64_t limit, uint64_t inflight)
{
	static const char *const attrs[] = { "limit_min", "limit_max", "hold_time",
					     "stall_thrs", "stall_cnt", "stall_max" };
	static const uint64_t vals[] = { 0, 1879048192, 1000, 0, 0, 0 };

	sh("mkdir -p '%s/class/net/%s/queues/tx-%u/byte_queue_limits'", root, dev, q);
	put(limit, "%s/queues/tx-%u/byte_queue_limits/limit", dev, q);
	put(inflight, "%s/queues/tx-%u/byte_queue_limits/inflight", dev, q);
	for (int a = 0; a < 6; a++)
		put(vals[a], "%s/queues/tx-%u/byte_queue_limits/%s", dev, q, attrs[a]);
}

static void mkdev(const char *dev, int ifindex)
{
	sh("mkdir -p '%s/class/net/%s/statistics'", root, dev);
	put((uint64_t)ifindex, "%s/ifindex", dev);
	put(0, "%s/statistics/tx_bytes", dev);
	put(0, "%s/statistics/tx_packets", dev);
}

/*
 * eth0: 3 queues, limits 1000/5000/3000, inflight 100/0/2900
 * eth1: 1 queue, limit 9000, inflight 10
 * wlan0: 2 queues, BQL never used (limit and inflight 0, no traffic)
 */
static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/bqlt-topmodel-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	bql_ctx_init(&ctx);
	ctx.sysfs_root = root;
	mkdev("eth0", 2);
	mkqueue("eth0", 0, 1000, 100);
	mkqueue("eth0", 1, 5000, 0);
	mkqueue("eth0", 2, 3000, 2900);
	mkdev("eth1", 3);
	mkqueue("eth1", 0, 9000, 10);
	mkdev("wlan0", 4);
	mkqueue("wlan0", 0, 0, 0);
	mkqueue("wlan0", 1, 0, 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf '%s'", root);
	return 0;
}

static void tick(struct sampler *s)
{
	struct bql_err e;

	now_ns += 1000000000ull;
	if (sampler_tick(s, &e))
		fail_msg("sampler_tick: %s", e.msg);
}

/* "eth0 tx-2 eth1 ..." for the rows, to compare orders in one assert */
static const char *layout(const struct topmodel *m)
{
	static char buf[512];
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < m->nrows; i++) {
		const struct tm_row *r = &m->rows[i];

		if (r->q)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%u",
						len ? " " : "", r->q->index);
		else
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
						len ? " " : "", r->dev->ifname);
	}
	return buf;
}

static void test_rows_and_aggregates(void **state)
{
	struct sampler s;
	struct topmodel m;
	const struct tm_row *r;

	(void)state;
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	tick(&s);
	topmodel_init(&m);
	assert_int_equal(topmodel_build(&m, &s), 0);
	/* wlan0's BQL was never used (limit 0) and it is hidden; few
	 * queues: devices start expanded */
	assert_string_equal(layout(&m), "eth0 0 1 2 eth1 0");
	assert_int_equal(m.ndev, 3);
	assert_int_equal(m.nshown, 2);
	assert_int_equal(m.nhidden, 1);
	assert_int_equal(m.nunused, 1);
	assert_int_equal(m.ndown, 0);
	assert_int_equal(m.nqueues, 6);
	r = &m.rows[0];
	assert_null(r->q);
	assert_true(r->expanded);
	assert_int_equal(r->nq, 3);
	assert_float_equal(r->v[TM_COL_LIMIT], 9000, 0);
	assert_float_equal(r->v[TM_COL_INFLIGHT], 3000, 0);
	assert_float_equal(r->v[TM_COL_FILL], 3000.0 / 9000.0, 1e-12);
	assert_float_equal(r->v[TM_COL_LIMIT_MAX], 1879048192, 0);
	assert_false(r->valid & (1u << TM_COL_TX_BYTES));	/* no rate yet */
	r = &m.rows[3];
	assert_float_equal(r->v[TM_COL_FILL], 2900.0 / 3000.0, 1e-12);

	/* traffic: rates appear; wlan0 with traffic is no longer idle */
	put(125000, "wlan0/statistics/tx_bytes");
	tick(&s);
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_string_equal(layout(&m), "eth0 0 1 2 eth1 0 wlan0 0 1");
	assert_float_equal(m.rows[6].v[TM_COL_TX_BYTES], 125000, 1e-6);

	/* show_all keeps a hidden device */
	tick(&s);
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_int_equal(m.nhidden, 1);
	m.show_all = true;
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_string_equal(layout(&m), "eth0 0 1 2 eth1 0 wlan0 0 1");

	/* collapse and expand again */
	assert_int_equal(topmodel_toggle(&m, "eth0"), 0);
	assert_false(topmodel_is_expanded(&m, "eth0"));
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_string_equal(layout(&m), "eth0 eth1 0 wlan0 0 1");
	assert_int_equal(topmodel_toggle(&m, "eth0"), 0);
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_string_equal(layout(&m), "eth0 0 1 2 eth1 0 wlan0 0 1");
	topmodel_free(&m);
	sampler_free(&s);
}

/* An idle device whose BQL was used is shown; a down one is hidden. */
static void test_hidden_rule(void **state)
{
	struct sampler s;
	struct topmodel m;

	(void)state;
	put(3028, "wlan0/queues/tx-0/byte_queue_limits/limit");	/* used once, idle now */
	sh("echo down > '%s/class/net/eth1/operstate'", root);
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	tick(&s);
	topmodel_init(&m);
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_string_equal(layout(&m), "eth0 0 1 2 wlan0 0 1");
	assert_int_equal(m.nhidden, 1);
	assert_int_equal(m.ndown, 1);
	assert_int_equal(m.nunused, 0);
	m.show_all = true;
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_string_equal(layout(&m), "eth0 0 1 2 eth1 0 wlan0 0 1");
	assert_int_equal(m.nhidden, 0);
	topmodel_free(&m);
	sampler_free(&s);
}

static void test_sort(void **state)
{
	struct sampler s;
	struct topmodel m;

	(void)state;
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	tick(&s);
	topmodel_init(&m);
	m.show_all = true;
	/* limit: biggest first; devices by their sum (eth0 9000 = eth1 9000: name) */
	topmodel_sort(&m, TM_COL_LIMIT);
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_string_equal(layout(&m), "eth0 1 2 0 eth1 0 wlan0 0 1");
	/* the same column again reverses */
	topmodel_sort(&m, TM_COL_LIMIT);
	assert_true(m.reverse);
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_string_equal(layout(&m), "wlan0 0 1 eth0 0 2 1 eth1 0");
	/* fill */
	topmodel_sort(&m, TM_COL_FILL);
	assert_false(m.reverse);
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_string_equal(layout(&m), "eth0 2 0 1 eth1 0 wlan0 0 1");
	/* name: natural order (eth2 < eth10), reversed with r */
	topmodel_sort(&m, TM_COL_NAME);
	m.reverse = true;
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_string_equal(layout(&m), "wlan0 1 0 eth1 0 eth0 2 1 0");
	/* rows without a value go last whatever the direction */
	topmodel_sort(&m, TM_COL_TX_BYTES);
	m.reverse = false;
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_string_equal(layout(&m), "eth0 0 1 2 eth1 0 wlan0 0 1");
	assert_int_equal(topmodel_col_find("inflight"), TM_COL_INFLIGHT);
	assert_int_equal(topmodel_col_find("TX RATE"), TM_COL_TX_BYTES);
	assert_int_equal(topmodel_col_find("nope"), -1);
	/* top -b's text headers */
	assert_int_equal(topmodel_col_find("device"), TM_COL_NAME);
	assert_int_equal(topmodel_col_find("queue"), TM_COL_NAME);
	assert_int_equal(topmodel_col_find("pkt/s"), TM_COL_TX_PACKETS);
	assert_int_equal(topmodel_col_find("stalls+"), TM_COL_STALL_CNT);
	assert_int_equal(topmodel_col_find("backlog"), TM_COL_QD_BACKLOG);
	assert_int_equal(topmodel_col_find("QDROPS/S"), TM_COL_QD_DROPS);
	topmodel_free(&m);
	sampler_free(&s);
}

static void test_filter(void **state)
{
	struct sampler s;
	struct topmodel m;

	(void)state;
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	tick(&s);
	topmodel_init(&m);
	m.show_all = true;
	topmodel_set_filter(&m, "eth*");
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_string_equal(layout(&m), "eth0 0 1 2 eth1 0");
	assert_int_equal(m.nfiltered, 1);
	topmodel_set_filter(&m, "lan");		/* substring */
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_string_equal(layout(&m), "wlan0 0 1");
	topmodel_set_filter(&m, "eth0:tx-[02]");	/* queues */
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_string_equal(layout(&m), "eth0 0 2");
	assert_int_equal(m.rows[0].nq, 2);
	/* the device row sums the queues shown, as under a selector (#38) */
	assert_true(m.rows[0].v[TM_COL_LIMIT] == 1000 + 3000);
	assert_true(m.rows[0].v[TM_COL_INFLIGHT] == 100 + 2900);
	assert_true(m.rows[0].v[TM_COL_FILL] == 3000.0 / 4000.0);
	topmodel_set_filter(&m, "eth0:tx-1");
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_string_equal(layout(&m), "eth0 1");
	assert_int_equal(m.rows[0].nq, 1);
	assert_true(m.rows[0].v[TM_COL_LIMIT] == 5000);
	assert_true(m.rows[0].v[TM_COL_INFLIGHT] == 0);
	topmodel_set_filter(&m, "nomatch*");
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_int_equal(m.nrows, 0);
	assert_int_equal(m.nfiltered, 3);
	topmodel_set_filter(&m, NULL);
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_int_equal(m.nrows, 9);
	topmodel_free(&m);
	sampler_free(&s);
}

static void test_vanished_rows(void **state)
{
	struct sampler s;
	struct topmodel m;

	(void)state;
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	tick(&s);
	topmodel_init(&m);
	sh("rm -rf '%s/class/net/eth1'", root);
	mkdev("eth7", 9);
	mkqueue("eth7", 0, 100, 0);
	tick(&s);
	assert_int_equal(topmodel_build(&m, &s), 0);
	/* gone and new rows are shown (never idle-hidden) with their marks */
	assert_string_equal(layout(&m), "eth0 0 1 2 eth1 0 eth7 0");
	assert_true(m.rows[4].flags & TM_F_GONE);
	assert_true(m.rows[6].flags & TM_F_NEW);
	assert_int_equal(m.ndev, 3);	/* eth0, wlan0, eth7 */
	tick(&s);
	assert_int_equal(topmodel_build(&m, &s), 0);
	/* eth7 stays: idle, but its BQL was used (limit 100) */
	assert_string_equal(layout(&m), "eth0 0 1 2 eth7 0");
	topmodel_free(&m);
	sampler_free(&s);
}

static void test_many_queues_collapse(void **state)
{
	struct sampler s;
	struct topmodel m;

	(void)state;
	for (unsigned int q = 3; q < 70; q++)
		mkqueue("eth0", q, 1000, 10);
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	tick(&s);
	topmodel_init(&m);
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_string_equal(layout(&m), "eth0 eth1");
	assert_int_equal(m.rows[0].nq, 70);
	topmodel_free(&m);
	sampler_free(&s);
}

/* a queue with the given limit/inflight history, oldest first */
static void fake_queue(struct sampler_queue *q, const uint64_t *limit,
		       const uint64_t *inflight, unsigned int n, uint64_t lmin)
{
	memset(q, 0, sizeof(*q));
	for (unsigned int i = 0; i < n; i++) {
		q->hist_limit[q->hist_head] = limit[i];
		q->hist_inflight[q->hist_head] = inflight[i];
		q->hist_head = (q->hist_head + 1) % SAMPLER_HIST;
		q->hist_len++;
	}
	q->since_stall = UINT_MAX;
	q->bql.present = (1u << BQL_ATTR_NR) - 1;
	q->bql.val[BQL_LIMIT] = limit[n - 1];
	q->bql.val[BQL_INFLIGHT] = inflight[n - 1];
	q->bql.val[BQL_LIMIT_MIN] = lmin;
	q->bql.val[BQL_LIMIT_MAX] = 1879048192;
}

static void test_flags(void **state)
{
	static const uint64_t flat[] = { 3000, 3000, 3000, 3000, 3000 };
	static const uint64_t pinned[] = { 100, 3000, 3000, 3000, 3000 };
	static const uint64_t moving[] = { 100, 3000, 2000, 3000, 1000 };
	static const uint64_t zero[] = { 0, 0, 0, 0, 0 };
	static const uint64_t osc[] = { 1000, 5000, 1000, 5000, 1000, 5000, 1000 };
	static const uint64_t gentle[] = { 1000, 1100, 1200, 1300, 1400, 1500, 1600 };
	static const uint64_t busy[] = { 10, 10, 10, 10, 10, 10, 10 };
	struct sampler_queue q;

	(void)state;
	/* pinned: inflight >= limit and unchanged over the window */
	fake_queue(&q, flat, pinned, 5, 0);
	assert_int_equal(topmodel_queue_flags(&q, 3), TM_F_PINNED);
	assert_int_equal(topmodel_queue_flags(&q, 5), 0);	/* not over 5 samples */
	fake_queue(&q, flat, moving, 5, 0);
	assert_int_equal(topmodel_queue_flags(&q, 3), 0);
	fake_queue(&q, flat, zero, 5, 0);
	assert_int_equal(topmodel_queue_flags(&q, 3), 0);	/* empty is not stuck */
	/* at limit_min while busy; not when idle; not when min == max */
	fake_queue(&q, flat, moving, 5, 3000);
	assert_int_equal(topmodel_queue_flags(&q, 3), TM_F_AT_MIN);
	fake_queue(&q, flat, zero, 5, 3000);
	assert_int_equal(topmodel_queue_flags(&q, 3), 0);
	/* oscillating */
	fake_queue(&q, osc, busy, 7, 0);
	assert_int_equal(topmodel_queue_flags(&q, 3), TM_F_OSC);
	fake_queue(&q, gentle, busy, 7, 0);
	assert_int_equal(topmodel_queue_flags(&q, 3), 0);
	/* the kernel counted a stall; marks pass through */
	fake_queue(&q, gentle, busy, 7, 0);
	q.has_stall_delta = true;
	q.stall_cnt_delta = 2;
	q.flags = SAMPLER_NEW;
	assert_int_equal(topmodel_queue_flags(&q, 3), TM_F_STALL | TM_F_NEW);
	/* and stays flagged for the window after it */
	q.has_stall_delta = false;
	q.flags = 0;
	q.since_stall = 2;
	assert_int_equal(topmodel_queue_flags(&q, 3), TM_F_STALL);
	q.since_stall = 3;
	assert_int_equal(topmodel_queue_flags(&q, 3), 0);
	/* too little history: nothing */
	fake_queue(&q, flat, pinned + 3, 2, 3000);
	assert_int_equal(topmodel_queue_flags(&q, 3), 0);
}

static void test_flags_from_tree(void **state)
{
	struct sampler s;
	struct topmodel m;

	(void)state;
	put(3000, "eth0/queues/tx-2/byte_queue_limits/inflight");	/* = limit */
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	topmodel_init(&m);
	for (int i = 0; i < 3; i++)
		tick(&s);
	put(4, "eth1/queues/tx-0/byte_queue_limits/stall_cnt");
	tick(&s);
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_string_equal(layout(&m), "eth0 0 1 2 eth1 0");
	assert_int_equal(m.rows[3].flags, TM_F_PINNED);
	assert_int_equal(m.rows[0].flags, TM_F_PINNED);	/* the device carries it */
	assert_int_equal(m.rows[5].flags, TM_F_STALL);
	assert_int_equal(m.nflag[2], 1);	/* TM_F_PINNED */
	assert_int_equal(m.nflag[3], 1);	/* TM_F_STALL */
	tick(&s);
	tick(&s);
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_int_equal(m.rows[5].flags, TM_F_STALL);	/* still, within the window */
	tick(&s);
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_int_equal(m.rows[5].flags, 0);
	assert_int_equal(m.nflag[3], 0);
	topmodel_free(&m);
	sampler_free(&s);
}

/*
 * When the default would hide every device (a fresh namespace: up, but no
 * BQL used yet; or all down), all are shown and the model says so.
 */
static void test_all_hidden_shows_all(void **state)
{
	struct sampler s;
	struct topmodel m;

	(void)state;
	sh("echo down > '%s/class/net/eth0/operstate'", root);
	sh("echo down > '%s/class/net/eth1/operstate'", root);
	sampler_init(&s, &ctx, NULL, NULL, &clk);
	tick(&s);
	topmodel_init(&m);
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_true(m.all_forced);
	assert_int_equal(m.nshown, 3);
	assert_int_equal(m.nhidden, 0);
	assert_string_equal(layout(&m), "eth0 0 1 2 eth1 0 wlan0 0 1");
	/* one device comes up with BQL used: back to the default rule */
	sh("echo up > '%s/class/net/eth0/operstate'", root);
	tick(&s);
	tick(&s);
	assert_int_equal(topmodel_build(&m, &s), 0);
	assert_false(m.all_forced);
	assert_string_equal(layout(&m), "eth0 0 1 2");
	assert_int_equal(m.nhidden, 2);
	topmodel_free(&m);
	sampler_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rows_and_aggregates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hidden_rule, setup, teardown),
		cmocka_unit_test_setup_teardown(test_all_hidden_shows_all, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sort, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vanished_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_queues_collapse, setup, teardown),
		cmocka_unit_test(test_flags),
		cmocka_unit_test_setup_teardown(test_flags_from_tree, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
