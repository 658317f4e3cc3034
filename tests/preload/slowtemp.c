// SPDX-License-Identifier: GPL-2.0-only
/*
 * slowtemp.so: an LD_PRELOAD shim for tests. A mkostemp() whose name holds
 * SLOWTEMP_MATCH creates its file, then creates the file SLOWTEMP_MARK (the
 * test's cue) and sleeps SLOWTEMP_MS milliseconds before it returns: a
 * signal sent meanwhile lands between a temporary's creation and the moment
 * its creator learns its name.
 *
 *   LD_PRELOAD=build/tests/preload/slowtemp.so SLOWTEMP_MATCH=.t.svg. \
 *   SLOWTEMP_MARK=cue SLOWTEMP_MS=2000 bqltool sim --plot t.svg ...
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int mkostemp(char *tmpl, int flags)
{
	static int (*real)(char *, int);
	const char *match = getenv("SLOWTEMP_MATCH"), *mark = getenv("SLOWTEMP_MARK");
	const char *ms = getenv("SLOWTEMP_MS");
	int fd, m;

	if (!real)
		real = (int (*)(char *, int))dlsym(RTLD_NEXT, "mkostemp");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	fd = real(tmpl, flags);
	if (fd < 0 || !match || !*match || !strstr(tmpl, match))
		return fd;
	if (mark) {
		m = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (m >= 0)
			close(m);
	}
	if (ms) {
		long v = strtol(ms, NULL, 10);
		struct timespec d = { v / 1000, (v % 1000) * 1000000L };

		while (v > 0 && nanosleep(&d, &d) && errno == EINTR)
			;
	}
	return fd;
}
