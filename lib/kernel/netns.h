/* SPDX-License-Identifier: GPL-2.0-only */
/* -n NAME: enter a named network namespace as `ip -n NAME` does. */
#ifndef BQLTOOL_LIB_NETNS_H
#define BQLTOOL_LIB_NETNS_H

#include <stdbool.h>

#include "dql/err.h"

/*
 * A name `ip netns` accepts: not empty, not "." or "..", no '/', at most
 * NAME_MAX bytes. Anything else is a usage error.
 */
bool netns_valid_name(const char *name);

/*
 * Enter /run/netns/@name (setns), then give this process a private mount
 * namespace with a fresh sysfs mount on /sys: sysfs shows the network
 * namespace of whoever mounted it, not of the reader. Call before any
 * sysfs or netlink access. -errno naming the namespace on failure.
 */
int netns_switch(const char *name, struct bql_err *e);

#endif
