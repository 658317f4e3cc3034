// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for lib/io/cpus.c: the CPUs this process may run on. Linked with
 * -Wl,--wrap=sched_getaffinity (test_cpus.ldflags): the wrapper passes
 * through, or plays a kernel with more CPUs than a cpu_set_t holds, or
 * one that refuses.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/io/cpus.h"

enum fake { REAL, BIG, REFUSE };

static enum fake fake = REAL;
static unsigned int calls;

int __real_sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set);
int __wrap_sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set);
int __wrap_sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set)
{
	calls++;
	switch (fake) {
	case REAL:
		break;
	case BIG:	/* 5000 CPUs: a set of fewer is refused; 3 and 4321 usable */
		if (size < CPU_ALLOC_SIZE(5000)) {
			errno = EINVAL;
			return -1;
		}
		CPU_ZERO_S(size, set);
		CPU_SET_S(3, size, set);
		CPU_SET_S(4321, size, set);
		return 0;
	case REFUSE:
		errno = EPERM;
		return -1;
	}
	return __real_sched_getaffinity(pid, size, set);
}

static int teardown(void **state)
{
	(void)state;
	fake = REAL;
	return 0;
}

/* the mask as the kernel gives it, in a set far larger than needed */
static cpu_set_t *mask(size_t *size)
{
	cpu_set_t *set = CPU_ALLOC(1 << 16);

	assert_non_null(set);
	*size = CPU_ALLOC_SIZE(1 << 16);
	assert_int_equal(__real_sched_getaffinity(0, *size, set), 0);
	return set;
}

static long online(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n;
}

/* the count is the mask's, and the list names the mask's CPUs */
static void test_usable_is_the_mask(void **state)
{
	static bool on[1 << 16];
	size_t size;
	cpu_set_t *set = mask(&size);
	int n = CPU_COUNT_S(size, set);

	(void)state;
	assert_true(n >= 1);
	assert_int_equal(cpus_usable(), n);
	assert_int_equal(cpus_usable_list(on, 1 << 16), n);
	for (int i = 0; i < 1 << 16; i++)
		assert_int_equal(on[i], !!CPU_ISSET_S(i, size, set));
	CPU_FREE(set);
}

/* after sched_setaffinity to one CPU (as taskset -c), one; then back */
static void test_one_cpu(void **state)
{
	static bool on[1 << 16];
	size_t size, one_size = CPU_ALLOC_SIZE(1 << 16);
	cpu_set_t *set = mask(&size), *one = CPU_ALLOC(1 << 16);
	int cpu = -1;

	(void)state;
	assert_non_null(one);
	for (int i = 0; i < 1 << 16 && cpu < 0; i++)
		if (CPU_ISSET_S(i, size, set))
			cpu = i;
	assert_true(cpu >= 0);
	CPU_ZERO_S(one_size, one);
	CPU_SET_S(cpu, one_size, one);
	assert_int_equal(sched_setaffinity(0, one_size, one), 0);
	assert_int_equal(cpus_usable(), 1);
	assert_int_equal(cpus_usable_list(on, 1 << 16), 1);
	assert_true(on[cpu]);
	assert_int_equal(sched_setaffinity(0, size, set), 0);
	assert_int_equal(cpus_usable(), CPU_COUNT_S(size, set));
	CPU_FREE(one);
	CPU_FREE(set);
}

/* a kernel with more CPUs than CPU_SETSIZE: the set grows until it fits */
static void test_more_cpus_than_a_cpu_set(void **state)
{
	static bool on[8192];

	(void)state;
	fake = BIG;
	calls = 0;
	assert_int_equal(cpus_usable(), 2);
	assert_true(calls > 1);		/* 1024 was refused first */
	assert_int_equal(cpus_usable_list(on, 8192), 2);
	assert_true(on[3] && on[4321] && !on[0] && !on[4] && !on[4320]);
	/* beyond @max is left out, not overrun */
	assert_int_equal(cpus_usable_list(on, 16), 1);
	assert_true(on[3]);
}

/* no mask to read: the online count, CPUs 0..n-1 in the list */
static void test_no_mask(void **state)
{
	bool on[4];
	long n = online();

	(void)state;
	fake = REFUSE;
	assert_int_equal(cpus_usable(), n);
	assert_int_equal(cpus_usable_list(on, 4), n < 4 ? n : 4);
	assert_true(on[0]);
	for (int i = 0; i < 4; i++)
		assert_int_equal(on[i], i < n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_usable_is_the_mask, teardown),
		cmocka_unit_test_teardown(test_one_cpu, teardown),
		cmocka_unit_test_teardown(test_more_cpus_than_a_cpu_set, teardown),
		cmocka_unit_test_teardown(test_no_mask, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
