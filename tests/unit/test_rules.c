// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for lib/model/rules.c's transmit-path findings, against hand
 * computations: one interrupt's worth of bytes at line rate, a ring's time
 * on the wire, a FIFO in front of BQL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/model/rules.h"

static struct rules_path_in base(void)
{
	struct rules_path_in in = {
		.ifname = "eth9", .active = true, .limit = 30000, .limit_max = UINT64_MAX,
		.speed_mbps = 10000, .mtu = 1500,
	};

	return in;
}

static const struct rule_hit *find(const struct rule_hit *h, int n, const char *code)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(h[i].code, code))
			return &h[i];
	return NULL;
}

/* 50 us at 10 Gbit/s = 62500 bytes; 32 frames of 1514 = 48448: the smaller wins */
static void test_irq_worth(void **state)
{
	struct rules_path_in in = base();

	(void)state;
	assert_int_equal(rules_irq_worth(&in), 0);	/* no coalescing known */
	in.has_usecs = true;
	in.tx_usecs = 50;
	assert_int_equal(rules_irq_worth(&in), 62500);
	in.has_frames = true;
	in.tx_frames = 32;
	assert_int_equal(rules_irq_worth(&in), 32 * 1514);
	in.tx_frames = 1;			/* an interrupt per frame: the time alone */
	assert_int_equal(rules_irq_worth(&in), 62500);
	in.tx_usecs = 0;			/* per frame, no delay: nothing to say */
	assert_int_equal(rules_irq_worth(&in), 0);
	in.speed_mbps = 0;
	in.tx_usecs = 50;
	assert_int_equal(rules_irq_worth(&in), 0);	/* speed unknown */
}

/* the floor is the larger of the two limits, and neither rule flags it */
static void test_limit_max_floor(void **state)
{
	struct rules_path_in in = base();
	struct rule_hit h[RULES_PATH_MAX];
	struct bql_queue q = { .present = 1u << BQL_LIMIT_MAX };
	struct rule_hit hs[RULES_MAX];

	(void)state;
	in.speed_mbps = 0;
	in.mtu = 0;
	assert_int_equal(rules_limit_max_floor(&in), 0);	/* nothing known */
	in.mtu = 9000;
	assert_int_equal(rules_limit_max_floor(&in), 9014);	/* the frame */
	in.speed_mbps = 10000;
	in.has_usecs = true;
	in.tx_usecs = 50;
	assert_int_equal(rules_limit_max_floor(&in), 62500);	/* the interrupt */
	in.limit_max = rules_limit_max_floor(&in);
	assert_null(find(h, rules_path(&in, h), "limit-max-below-irq"));
	q.val[BQL_LIMIT_MAX] = in.limit_max;
	assert_int_equal(rules_settings(&q, in.mtu, NULL, hs), 0);
	in.limit_max--;
	assert_non_null(find(h, rules_path(&in, h), "limit-max-below-irq"));
}

static void test_limit_max_below_irq(void **state)
{
	struct rules_path_in in = base();
	struct rule_hit h[RULES_PATH_MAX];
	const struct rule_hit *x;
	int n;

	(void)state;
	in.has_usecs = true;
	in.tx_usecs = 50;
	in.limit_max = 62499;
	n = rules_path(&in, h);
	x = find(h, n, "limit-max-below-irq");
	assert_non_null(x);
	assert_int_equal(x->level, RULE_WARN);
	assert_non_null(strstr(x->msg, "tx-usecs 50, tx-frames 0 at 10000 Mbit/s"));
	in.limit_max = 62500;
	n = rules_path(&in, h);
	assert_null(find(h, n, "limit-max-below-irq"));
}

/* 256 descriptors x 1514 bytes at 1 Gbit/s = 3.10 ms; at 10 Gbit/s 310 us */
static void test_dark_buffer(void **state)
{
	struct rules_path_in in = base();
	struct rule_hit h[RULES_PATH_MAX];
	const struct rule_hit *x;
	int n;

	(void)state;
	in.active = false;
	in.limit = 0;
	in.has_ring = true;
	in.ring_tx = 256;
	in.speed_mbps = 1000;
	n = rules_path(&in, h);
	x = find(h, n, "dark-buffer");
	assert_non_null(x);
	assert_non_null(strstr(x->msg, "256 descriptors holds 3.10 ms"));
	in.speed_mbps = 10000;			/* 310 us: no standing queue to speak of */
	n = rules_path(&in, h);
	assert_null(find(h, n, "dark-buffer"));
	in.speed_mbps = 1000;
	in.active = true;			/* BQL runs: the ring is managed */
	n = rules_path(&in, h);
	assert_null(find(h, n, "dark-buffer"));
}

static void test_fifo(void **state)
{
	struct rules_path_in in = base();
	struct rule_hit h[RULES_PATH_MAX];
	const struct rule_hit *x;
	int n;

	(void)state;
	in.qdisc_kind = "pfifo_fast";
	in.qdisc_where = "parent 1:3";
	/* no backlog, no drops: no evidence, no finding (#38) */
	n = rules_path(&in, h);
	assert_null(find(h, n, "fifo-qdisc"));
	in.qdisc_backlog = 12345;
	n = rules_path(&in, h);
	x = find(h, n, "fifo-qdisc");
	assert_non_null(x);
	assert_int_equal(x->level, RULE_WARN);
	assert_non_null(strstr(x->msg, "pfifo_fast held up to 12.1 KiB: BQL moves the standing queue"));
	assert_non_null(strstr(x->msg, "'tc qdisc replace dev eth9 parent 1:3 fq_codel'"));
	in.qdisc_drops = 3;
	in.interval_ns = 2000000000;
	n = rules_path(&in, h);
	assert_non_null(strstr(find(h, n, "fifo-qdisc")->msg,
			       "pfifo_fast held up to 12.1 KiB and dropped 3 packets in 2 s: "));
	in.qdisc_backlog = 0;
	in.qdisc_drops = 1;
	in.interval_ns = 0;
	n = rules_path(&in, h);
	assert_non_null(strstr(find(h, n, "fifo-qdisc")->msg,
			       "pfifo_fast dropped 1 packet since it was created: "));
	in.qdisc_kind = "fq_codel";
	n = rules_path(&in, h);
	assert_null(find(h, n, "fifo-qdisc"));
	in.qdisc_kind = "bfifo";
	in.active = false;			/* no BQL in front of it: nothing moved */
	n = rules_path(&in, h);
	assert_null(find(h, n, "fifo-qdisc"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_irq_worth),
		cmocka_unit_test(test_limit_max_floor),
		cmocka_unit_test(test_limit_max_below_irq),
		cmocka_unit_test(test_dark_buffer),
		cmocka_unit_test(test_fifo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
