// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/io/spinner.c: the CPU list parser, and the loops' life. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/io/spinner.h"

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
	pid_t first = s.pid[0], watcher = s.watcher;

	assert_true(watcher > 0);
	spin_stop(&s);
	assert_int_equal(s.n, 0);
	assert_int_equal(kill(first, 0), -1);	/* reaped: no such process */
	assert_int_equal(kill(watcher, 0), -1);
	spin_stop(&s);				/* twice is harmless */
}

/* 'Z' when @pid is a zombie, else its state letter; 0 if gone */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	return p && p[1] ? p[2] : 0;
}

/*
 * The parent SIGKILLed (record killed -9): the watcher wakes at once and
 * gives every loop still alive SCHED_OTHER before killing it, so none waits,
 * SCHED_IDLE, for a CPU to idle before it can die.
 */
static void test_parent_killed(void **state)
{
	struct spinners s;
	int fds[2], left;
	pid_t parent, w;
	bool reaped[SPIN_MAX_CPUS] = { false };

	(void)state;
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);	/* orphans come back to us */
	assert_int_equal(pipe(fds), 0);
	parent = fork();
	assert_true(parent >= 0);
	if (parent == 0) {
		struct bql_err e;

		close(fds[0]);
		if (spin_start(&s, &e) || write(fds[1], &s, sizeof(s)) != (ssize_t)sizeof(s))
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &s, sizeof(s)), (ssize_t)sizeof(s));
	close(fds[0]);
	assert_true(s.watcher > 0);
	assert_int_equal(kill(parent, SIGKILL), 0);
	left = s.n;
	while ((w = waitpid(-1, NULL, 0)) > 0) {
		for (int i = 0; i < s.n; i++)
			if (s.pid[i] == w) {
				reaped[i] = true;
				left--;
			}
		if (w != s.watcher)
			continue;
		/* the watcher is done: each loop is dead, or no longer idle-only */
		for (int i = 0; i < s.n; i++) {
			char st;

			if (reaped[i])
				continue;
			st = proc_state(s.pid[i]);
			if (st && st != 'Z')
				assert_int_not_equal(sched_getscheduler(s.pid[i]), SCHED_IDLE);
		}
	}
	assert_int_equal(left, 0);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_list),
		cmocka_unit_test(test_spin_start_stop),
		cmocka_unit_test(test_parent_killed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
