// SPDX-License-Identifier: GPL-2.0-only
/* Stop signals held, then taken, around work that must not be cut. */
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "lib/io/stops.h"

/*
 * Every signal whose default action ends the process (signal(7): "Term"
 * or "Core"), less SIGKILL and SIGSTOP, which no process can catch. The
 * asynchronous ones are requests to stop (a user, timeout(1), a service
 * manager, a CPU or file size limit): they may be held. The synchronous
 * ones (a fault, abort(), a seccomp kill) come from the process itself
 * and cannot wait: they are never held, only cleaned up after.
 */
static const struct fatal_sig {
	int sig;
	const char *name;
	bool sync;
} fatal_sigs[] = {
	{ SIGHUP, "SIGHUP", false },
	{ SIGINT, "SIGINT", false },
	{ SIGQUIT, "SIGQUIT", false },
	{ SIGTERM, "SIGTERM", false },
	{ SIGPIPE, "SIGPIPE", false },
	{ SIGALRM, "SIGALRM", false },
	{ SIGUSR1, "SIGUSR1", false },
	{ SIGUSR2, "SIGUSR2", false },
	{ SIGXCPU, "SIGXCPU", false },
	{ SIGXFSZ, "SIGXFSZ", false },
	{ SIGVTALRM, "SIGVTALRM", false },
	{ SIGPROF, "SIGPROF", false },
	{ SIGIO, "SIGIO", false },	/* SIGPOLL */
#ifdef SIGPWR
	{ SIGPWR, "SIGPWR", false },
#endif
#ifdef SIGSTKFLT
	{ SIGSTKFLT, "SIGSTKFLT", false },
#endif
	{ SIGABRT, "SIGABRT", true },
	{ SIGSYS, "SIGSYS", true },
	{ SIGSEGV, "SIGSEGV", true },
	{ SIGBUS, "SIGBUS", true },
	{ SIGILL, "SIGILL", true },
	{ SIGFPE, "SIGFPE", true },
	{ SIGTRAP, "SIGTRAP", true },
};

#define N_FATAL	(sizeof(fatal_sigs) / sizeof(fatal_sigs[0]))

static const struct fatal_sig *fatal_find(int sig)
{
	for (size_t k = 0; k < N_FATAL; k++)
		if (fatal_sigs[k].sig == sig)
			return &fatal_sigs[k];
	return NULL;
}

static bool is_rt(int sig)
{
	return sig >= SIGRTMIN && sig <= SIGRTMAX;
}

int stops_fatal(int sig)
{
	const struct fatal_sig *f = fatal_find(sig);

	if (f)
		return f->sync ? STOPS_SYNC : STOPS_ASYNC;
	return is_rt(sig) ? STOPS_ASYNC : 0;
}

void stops_async_set(sigset_t *set)
{
	sigemptyset(set);
	for (int sig = 1; sig < NSIG; sig++)
		if (stops_fatal(sig) == STOPS_ASYNC)
			sigaddset(set, sig);
}

const char *stops_name(int sig)
{
	const struct fatal_sig *f = fatal_find(sig);

	if (f)
		return f->name;
	return is_rt(sig) ? "a real-time signal" : "a signal";
}

/*
 * SIGPIPE is not held: it is raised by a write to a closed pipe, in the
 * thread that writes, and says that the output is gone, not that the work
 * should stop; a plan's writes go to sysfs, never to a pipe.
 */
void stops_hold(struct stops *s)
{
	stops_async_set(&s->held);
	sigdelset(&s->held, SIGPIPE);
	sigprocmask(SIG_BLOCK, &s->held, &s->old);
}

int stops_arrived(struct stops *s)
{
	static const struct timespec now = { 0, 0 };
	sigset_t pend, want;
	bool any = false;
	int sig;

	if (sigpending(&pend))
		return 0;
	sigemptyset(&want);
	for (sig = 1; sig < NSIG; sig++)
		if (sigismember(&s->held, sig) == 1 && sigismember(&s->old, sig) != 1) {
			sigaddset(&want, sig);
			any |= sigismember(&pend, sig) == 1;
		}
	if (!any)
		return 0;
	sig = sigtimedwait(&want, NULL, &now);
	return sig > 0 ? sig : 0;
}

void stops_release(struct stops *s)
{
	while (stops_arrived(s))
		;
	sigprocmask(SIG_SETMASK, &s->old, NULL);
}

int stops_thread_create(pthread_t *th, const pthread_attr_t *attr,
			void *(*fn)(void *), void *arg)
{
	sigset_t quiet, old;
	int err;

	stops_async_set(&quiet);
	sigdelset(&quiet, SIGPIPE);
	/* the new thread starts with the creator's mask */
	pthread_sigmask(SIG_BLOCK, &quiet, &old);
	err = pthread_create(th, attr, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}
