// SPDX-License-Identifier: GPL-2.0-only
/*
 * lateclock.so: an LD_PRELOAD shim for tests. Every CLOCK_MONOTONIC read
 * returns the time it was read and then sleeps LATECLOCK_MS milliseconds,
 * as if the caller had been preempted right after reading the clock. Code
 * that schedules from a clock read taken before its work shows the gap.
 *
 *   LD_PRELOAD=build/tests/preload/lateclock.so LATECLOCK_MS=20 bqltool ...
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long late_ns;

__attribute__((constructor)) static void lateclock_init(void)
{
	const char *v = getenv("LATECLOCK_MS");
	char *end;
	long ms;

	if (!v)
		return;
	ms = strtol(v, &end, 10);
	if (*v && !*end && ms > 0 && ms <= 10000)
		late_ns = ms * 1000000L;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	/* the system call, not libc's: no loop through this shim or ASan's */
	long ret = syscall(SYS_clock_gettime, id, ts);

	if (!ret && id == CLOCK_MONOTONIC && late_ns) {
		struct timespec d = { late_ns / 1000000000L, late_ns % 1000000000L };

		while (nanosleep(&d, &d) && errno == EINTR)
			;
	}
	return (int)ret;
}
