// SPDX-License-Identifier: GPL-2.0-only
/* The one list of fatal signals, and the stops held around a plan. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <signal.h>
#include <string.h>

#include <cmocka.h>

#include "lib/io/stops.h"

/* signal(7): every signal whose default action is Term or Core */
static void test_fatal_list(void **state)
{
	static const int async[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGALRM,
				     SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM,
				     SIGPROF, SIGIO, SIGPWR };
	static const int sync[] = { SIGABRT, SIGSYS, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP };
	static const int not[] = { SIGKILL, SIGSTOP, SIGCHLD, SIGCONT, SIGTSTP, SIGTTIN,
				   SIGTTOU, SIGURG, SIGWINCH, 0 };
	(void)state;
	for (size_t i = 0; i < sizeof(async) / sizeof(async[0]); i++)
		assert_int_equal(stops_fatal(async[i]), STOPS_ASYNC);
	for (size_t i = 0; i < sizeof(sync) / sizeof(sync[0]); i++)
		assert_int_equal(stops_fatal(sync[i]), STOPS_SYNC);
	for (size_t i = 0; i < sizeof(not) / sizeof(not[0]); i++)
		assert_int_equal(stops_fatal(not[i]), 0);
	assert_int_equal(stops_fatal(SIGRTMIN), STOPS_ASYNC);
	assert_int_equal(stops_fatal(SIGRTMAX), STOPS_ASYNC);
	assert_string_equal(stops_name(SIGXCPU), "SIGXCPU");
	assert_string_equal(stops_name(SIGUSR1), "SIGUSR1");
}

/* SIGXCPU, SIGUSR1 or a real-time signal mid-plan is held and taken, SIGPIPE is not held */
static void test_hold_takes(void **state)
{
	const int sigs[] = { SIGXCPU, SIGUSR1, SIGALRM, SIGVTALRM, SIGRTMIN + 2, SIGTERM };
	struct stops s;
	sigset_t cur;

	(void)state;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		stops_hold(&s);
		assert_int_equal(stops_arrived(&s), 0);
		raise(sigs[i]);		/* held: the default action does not kill */
		assert_int_equal(stops_arrived(&s), sigs[i]);
		assert_int_equal(stops_arrived(&s), 0);
		sigprocmask(SIG_SETMASK, NULL, &cur);
		assert_false(sigismember(&cur, SIGPIPE));
		stops_release(&s);
		sigprocmask(SIG_SETMASK, NULL, &cur);
		assert_false(sigismember(&cur, sigs[i]));
	}
}

/* a signal already blocked before the hold stays the caller's */
static void test_hold_keeps_old(void **state)
{
	struct stops s;
	sigset_t one, old;

	(void)state;
	sigemptyset(&one);
	sigaddset(&one, SIGUSR2);
	sigprocmask(SIG_BLOCK, &one, &old);
	raise(SIGUSR2);
	stops_hold(&s);
	assert_int_equal(stops_arrived(&s), 0);
	stops_release(&s);
	assert_int_equal(sigtimedwait(&one, NULL, &(struct timespec){ 0, 0 }), SIGUSR2);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fatal_list),
		cmocka_unit_test(test_hold_takes),
		cmocka_unit_test(test_hold_keeps_old),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
