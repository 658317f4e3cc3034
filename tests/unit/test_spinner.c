// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/spinner.c: the CPU list parser, and the loops' life. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/spinner.h"

static void test_cpu_list(void **state)
{
	bool on[16];

	(void)state;
	assert_int_equal(cpu_list_parse("0-3,5\n", on, 16), 5);
	assert_true(on[0] && on[3] && !on[4] && on[5] && !on[6]);
	assert_int_equal(cpu_list_parse("0", on, 16), 1);
	assert_true(on[0] && !on[1]);
	assert_int_equal(cpu_list_parse("0-1,1-2,8", on, 16), 4);
	/* beyond @max is cut, not overrun */
	assert_int_equal(cpu_list_parse("14-20", on, 16), 2);
	assert_int_equal(cpu_list_parse("", on, 16), 0);
	assert_int_equal(cpu_list_parse("x", on, 16), -1);
	assert_int_equal(cpu_list_parse("3-1", on, 16), -1);
	assert_int_equal(cpu_list_parse("1;2", on, 16), -1);
	assert_int_equal(cpu_list_parse("2-", on, 16), -1);
}

/* one SCHED_IDLE loop per online CPU, gone after spin_stop */
static void test_spin_start_stop(void **state)
{
	static bool on[SPIN_MAX_CPUS];
	struct spinners s;
	struct bql_err e;
	int n = cpu_online_list(on, SPIN_MAX_CPUS);

	(void)state;
	assert_true(n > 0);
	assert_int_equal(spin_start(&s, &e), 0);
	assert_int_equal(s.n, n);
	for (int i = 0; i < s.n; i++) {
		/* the child may not have switched yet: wait a little */
		int pol = -1;

		for (int k = 0; k < 200 && pol != SCHED_IDLE; k++) {
			pol = sched_getscheduler(s.pid[i]);
			if (pol != SCHED_IDLE)
				usleep(5000);
		}
		assert_int_equal(pol, SCHED_IDLE);
	}
	pid_t first = s.pid[0];

	spin_stop(&s);
	assert_int_equal(s.n, 0);
	assert_int_equal(kill(first, 0), -1);	/* reaped: no such process */
	spin_stop(&s);				/* twice is harmless */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_list),
		cmocka_unit_test(test_spin_start_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
