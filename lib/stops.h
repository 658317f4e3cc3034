/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Stop signals held across work that must not be cut half-way: the writes
 * of a plan (all-or-nothing), an output file's temporary (never left
 * behind). A stop that arrives meanwhile is taken and reported by the
 * caller, who then undoes what it did.
 */
#ifndef BQLTOOL_LIB_STOPS_H
#define BQLTOOL_LIB_STOPS_H

#include <signal.h>

struct stops {
	sigset_t held, old;
};

/*
 * stops_hold - block SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1
 * and SIGUSR2 (what a user, timeout or a service manager sends to stop a
 * process); stops_release() restores the mask.
 */
void stops_hold(struct stops *s);
/* stops_arrived - the first held signal pending, taken (it will not act); or 0 */
int stops_arrived(struct stops *s);
/* stops_release - take every held signal still pending, restore the mask */
void stops_release(struct stops *s);
/* stops_name - "SIGINT" ... for messages */
const char *stops_name(int sig);

#endif
