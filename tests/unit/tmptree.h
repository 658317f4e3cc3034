/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers of the unit tests that build fake sysfs trees in /tmp. */
#ifndef BQLTOOL_TESTS_UNIT_TMPTREE_H
#define BQLTOOL_TESTS_UNIT_TMPTREE_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Run a shell command built from @fmt; the test fails if it fails. */
static void __attribute__((format(printf, 1, 2))) sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

#endif
