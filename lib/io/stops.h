/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Stop signals held across work that must not be cut half-way: the writes
 * of a plan (all-or-nothing), an output file's temporary (never left
 * behind). A stop that arrives meanwhile is taken and reported by the
 * caller, who then undoes what it did.
 */
#ifndef BQLTOOL_LIB_STOPS_H
#define BQLTOOL_LIB_STOPS_H

#include <pthread.h>
#include <signal.h>

struct stops {
	sigset_t held, old;
};

/* stops_fatal() says a signal ends the process by default, and how */
enum {
	STOPS_ASYNC = 1,	/* sent to stop it (SIGTERM, SIGXCPU, SIGRTMIN+3 ...) */
	STOPS_SYNC,		/* raised by it (a fault, abort(), SIGSYS) */
};

/*
 * stops_fatal - STOPS_ASYNC, STOPS_SYNC or 0 for @sig: the one list of
 * the signals whose default action ends the process (signal(7) "Term" and
 * "Core", SIGKILL and SIGSTOP aside: they cannot be caught). Whatever must
 * not outlive the process (an output's temporary) is removed on every one.
 */
int stops_fatal(int sig);
/* stops_async_set - @set = every STOPS_ASYNC signal */
void stops_async_set(sigset_t *set);

/*
 * stops_hold - block every STOPS_ASYNC signal but SIGPIPE (what a user,
 * timeout(1), a service manager or a resource limit sends to stop a
 * process); stops_release() restores the mask.
 */
void stops_hold(struct stops *s);
/* stops_arrived - the first held signal pending, taken (it will not act); or 0 */
int stops_arrived(struct stops *s);
/* stops_release - take every held signal still pending, restore the mask */
void stops_release(struct stops *s);
/* stops_name - "SIGINT" ... for messages */
const char *stops_name(int sig);

/*
 * stops_thread_create - pthread_create() of a thread that never takes a
 * STOPS_ASYNC signal but SIGPIPE (raised in the thread that writes to a
 * closed pipe, as it must be). A stop sent to the process then reaches the
 * main thread only, where the sections that hold it (stops_hold(), an
 * output's temporary between its creation and its registration) can.
 * Every thread of bqltool starts through it.
 */
int stops_thread_create(pthread_t *th, const pthread_attr_t *attr,
			void *(*fn)(void *), void *arg);

#endif
