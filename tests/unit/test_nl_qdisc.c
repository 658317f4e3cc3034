// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/kernel/nl_qdisc.c: which qdisc feeds which TX queue, tc's handle names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/kernel/nl_qdisc.h"

#define ROOT BNL_TC_H_ROOT

static struct bnl_qdisc qd(int ifindex, const char *kind, uint32_t handle, uint32_t parent,
			   uint64_t backlog)
{
	struct bnl_qdisc q = { .ifindex = ifindex, .handle = handle, .parent = parent,
			       .backlog = backlog };

	strncpy(q.kind, kind, sizeof(q.kind) - 1);
	return q;
}

/* mq: the child with parent MAJ:N feeds tx-(N-1), whatever the dump's order */
static void test_mq_children(void **state)
{
	struct bnl_qdisc list[] = {
		qd(3, "fq_codel", 0, 0x00000003, 30),		/* :3 -> tx-2 */
		qd(3, "mq", 0, ROOT, 0),
		qd(3, "fq_codel", 0, 0x00000001, 10),		/* :1 -> tx-0 */
		qd(7, "pfifo_fast", 0, ROOT, 70),		/* another device */
		qd(3, "fq_codel", 0, 0x00000002, 20),
		qd(3, "ingress", 0xffff0000, BNL_TC_H_INGRESS, 0),
	};
	struct bnl_qdisc out;

	(void)state;
	for (unsigned int q = 0; q < 3; q++) {
		assert_int_equal(bnl_qdisc_map(list, 6, 3, 4, q, &out), BNL_QD_QUEUE);
		assert_int_equal(out.backlog, 10 * (q + 1));
		assert_string_equal(out.kind, "fq_codel");
	}
	/* tx-3 has no child in the dump; a queue past the device's: none */
	assert_int_equal(bnl_qdisc_map(list, 6, 3, 4, 3, &out), BNL_QD_NONE);
	assert_int_equal(bnl_qdisc_map(list, 6, 3, 4, 9, &out), BNL_QD_NONE);
}

/* mq with a handle of its own (1:): children are 1:N; :N of another tree do not count */
static void test_mq_handle(void **state)
{
	struct bnl_qdisc list[] = {
		qd(2, "mqprio", 0x00010000, ROOT, 0),
		qd(2, "tbf", 0x00110000, 0x00010001, 5),
		qd(2, "tbf", 0x00120000, 0x00010002, 6),
		qd(2, "htb", 0x00200000, 0x00000002, 99),
	};
	struct bnl_qdisc out;

	(void)state;
	assert_int_equal(bnl_qdisc_map(list, 4, 2, 2, 1, &out), BNL_QD_QUEUE);
	assert_int_equal(out.backlog, 6);
	assert_int_equal(out.handle, 0x00120000);
}

/* another root: tx-0's on a single-queue device, the device's over several */
static void test_root(void **state)
{
	struct bnl_qdisc list[] = {
		qd(4, "pfifo_fast", 0, ROOT, 1),
		qd(5, "htb", 0x00050000, ROOT, 2),
		qd(5, "fq_codel", 0x00100000, 0x00050001, 3),
	};
	struct bnl_qdisc out;

	(void)state;
	assert_int_equal(bnl_qdisc_map(list, 3, 4, 1, 0, &out), BNL_QD_QUEUE);
	assert_string_equal(out.kind, "pfifo_fast");
	assert_int_equal(bnl_qdisc_map(list, 3, 5, 4, 2, &out), BNL_QD_DEVICE);
	assert_string_equal(out.kind, "htb");
	assert_int_equal(bnl_qdisc_map(list, 3, 6, 1, 0, &out), BNL_QD_NONE);
	assert_int_equal(bnl_qdisc_map(NULL, 0, 4, 1, 0, &out), BNL_QD_NONE);
}

/*
 * The index answers as bnl_qdisc_map() for every device and queue of a
 * dump in random order: mq and mqprio roots (some with a handle), shared
 * roots, duplicates (the first listed wins), children without a root.
 */
static void test_index_matches_map(void **state)
{
	static const char *const kinds[] = { "mq", "mqprio", "htb", "fq_codel", "pfifo_fast" };
	enum { NDEV = 40, NQ = 9, MAXQD = NDEV * (NQ + 3) };
	static struct bnl_qdisc list[MAXQD];
	struct bnl_qdisc_index ix = { 0 };
	unsigned int seed = 40;
	size_t n = 0;

	(void)state;
	for (int d = 1; d <= NDEV; d++) {
		const char *k = kinds[rand_r(&seed) % 5];
		uint32_t maj = (rand_r(&seed) % 3) ? 0 : 0x80010000u;

		if (d % 7)
			list[n++] = qd(d, k, maj, ROOT, 0);
		for (unsigned int q = 0; q < NQ; q++)
			if (rand_r(&seed) % 4)
				list[n++] = qd(d, "fq_codel", 0, maj | (q + 1), q * 100 + (uint64_t)d);
		if (d % 5 == 0)	/* a duplicate child: the first one listed counts */
			list[n++] = qd(d, "sfq", 0, maj | 1, 1);
		list[n++] = qd(d, "ingress", 0xffff0000, BNL_TC_H_INGRESS, 0);
	}
	for (size_t i = n - 1; i > 0; i--) {	/* shuffle */
		size_t j = (size_t)rand_r(&seed) % (i + 1);
		struct bnl_qdisc t = list[i];

		list[i] = list[j];
		list[j] = t;
	}
	assert_int_equal(bnl_qdisc_index_build(&ix, list, n), 0);
	for (int d = 0; d <= NDEV + 1; d++)
		for (unsigned int ntx = 1; ntx <= NQ; ntx += NQ - 1)
			for (unsigned int q = 0; q <= NQ; q++) {
				struct bnl_qdisc a, b;
				enum bnl_qdisc_scope sa = bnl_qdisc_map(list, n, d, ntx, q, &a);

				assert_int_equal(bnl_qdisc_index_map(&ix, d, ntx, q, &b), sa);
				if (sa != BNL_QD_NONE)
					assert_memory_equal(&a, &b, sizeof(a));
			}
	/* rebuilt over a shorter list, memory reused */
	assert_int_equal(bnl_qdisc_index_build(&ix, list, 3), 0);
	for (unsigned int q = 0; q < NQ; q++) {
		struct bnl_qdisc a, b;
		int d = list[0].ifindex;

		assert_int_equal(bnl_qdisc_index_map(&ix, d, NQ, q, &b),
				 bnl_qdisc_map(list, 3, d, NQ, q, &a));
	}
	bnl_qdisc_index_free(&ix);
	assert_int_equal(bnl_qdisc_index_map(&ix, 1, 1, 0, NULL), BNL_QD_NONE);
}

/* handles as tc prints them */
static void test_handle_str(void **state)
{
	char b[16];

	(void)state;
	assert_string_equal(bnl_tc_handle_str(ROOT, b, sizeof(b)), "root");
	assert_string_equal(bnl_tc_handle_str(BNL_TC_H_INGRESS, b, sizeof(b)), "ingress");
	assert_string_equal(bnl_tc_handle_str(0, b, sizeof(b)), "0:");
	assert_string_equal(bnl_tc_handle_str(0x80010000, b, sizeof(b)), "8001:");
	assert_string_equal(bnl_tc_handle_str(0x00000003, b, sizeof(b)), ":3");
	assert_string_equal(bnl_tc_handle_str(0x0001000a, b, sizeof(b)), "1:a");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mq_children),
		cmocka_unit_test(test_mq_handle),
		cmocka_unit_test(test_root),
		cmocka_unit_test(test_index_matches_map),
		cmocka_unit_test(test_handle_str),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
