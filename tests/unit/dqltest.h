/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers of the unit tests of the pure DQL core (test_dql.c,
 * test_dql_stall.c): the kernel behaviour sets, and dql_queued() /
 * dql_completed() calls that must succeed. It defines DQL_NO_POISON
 * before the dql/ headers (the tests need the C library's I/O, which
 * dql_util.h poisons), so it comes before any other dql/ header.
 */
#ifndef BQLTOOL_TESTS_UNIT_DQLTEST_H
#define BQLTOOL_TESTS_UNIT_DQLTEST_H

#include <stdint.h>

#define DQL_NO_POISON
#include "dql/dql.h"
#include "dql/dql_util.h"

#define K_33	0u
#define K_35	(DQL_K_POSDIFF_WRAP)
#define K_61	(K_35 | DQL_K_CLAMP_61)
#define K_69	(K_61 | DQL_K_STALL)
#define K_610	(K_69 | DQL_K_HIST_ON_THRS | DQL_K_QUEUED_WARN)
#define K_615	(K_610 | DQL_K_RESET_MIN)

static void q(struct dql *d, unsigned int n, uint64_t now)
{
	assert_int_equal(dql_queued(d, n, now), 0);
}

static void c(struct dql *d, unsigned int n, uint64_t now)
{
	assert_int_equal(dql_completed(d, n, now), 0);
}

#endif
