/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The write lock of BQL settings: set, reset, apply and tune --apply take
 * it around their reads and writes, so that two of them on the same
 * queues never end with a mix of both. Advisory (flock(2)), one per
 * network namespace, as package managers lock their database.
 */
#ifndef BQLTOOL_LIB_WLOCK_H
#define BQLTOOL_LIB_WLOCK_H

#include <stdbool.h>

#include "dql/err.h"
#include "lib/io/ctx.h"

/* the directory of the lock files; $BQLTOOL_LOCK_DIR overrides it */
#define WLOCK_DIR	"/run/bqltool"

struct wlock {
	int fd;		/* -1: not held */
	char path[256];
};

/*
 * wlock_take - lock the BQL settings @c writes: those of the current
 * network namespace (after -n, the named one), WLOCK_DIR/netns-DEV-INO.lock
 * by its /proc/self/ns/net, or of the --sysfs-root tree
 * (WLOCK_DIR/root-HASH.lock). @cmd ("set") is recorded with the pid for
 * the message another writer gets. @wait: block until the holder is done;
 * else -EBUSY, "another bqltool is writing ... (pid N, CMD)".
 * A lock that cannot be made (no WLOCK_DIR and no right to create it) is
 * -errno too, with @l->fd -1: the caller may go on without it.
 */
int wlock_take(const struct bql_ctx *c, const char *cmd, bool wait, struct wlock *l,
	       struct bql_err *e);
/* wlock_release - give it back, removing the file (nothing if not held) */
void wlock_release(struct wlock *l);

#endif
