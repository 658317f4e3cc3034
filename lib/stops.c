// SPDX-License-Identifier: GPL-2.0-only
/* Stop signals held, then taken, around work that must not be cut. */
#include <stddef.h>
#include <time.h>

#include "lib/stops.h"

static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2 };

const char *stops_name(int sig)
{
	switch (sig) {
	case SIGINT:	return "SIGINT";
	case SIGTERM:	return "SIGTERM";
	case SIGHUP:	return "SIGHUP";
	case SIGQUIT:	return "SIGQUIT";
	case SIGALRM:	return "SIGALRM";
	case SIGUSR1:	return "SIGUSR1";
	case SIGUSR2:	return "SIGUSR2";
	}
	return "a signal";
}

void stops_hold(struct stops *s)
{
	sigemptyset(&s->held);
	for (size_t k = 0; k < sizeof(stop_sigs) / sizeof(stop_sigs[0]); k++)
		sigaddset(&s->held, stop_sigs[k]);
	sigprocmask(SIG_BLOCK, &s->held, &s->old);
}

int stops_arrived(struct stops *s)
{
	static const struct timespec now = { 0, 0 };
	sigset_t pend;

	if (sigpending(&pend))
		return 0;
	for (size_t k = 0; k < sizeof(stop_sigs) / sizeof(stop_sigs[0]); k++)
		if (sigismember(&pend, stop_sigs[k]) && !sigismember(&s->old, stop_sigs[k]))
			return sigtimedwait(&s->held, NULL, &now) > 0 ? stop_sigs[k] : 0;
	return 0;
}

void stops_release(struct stops *s)
{
	while (stops_arrived(s))
		;
	sigprocmask(SIG_SETMASK, &s->old, NULL);
}
