/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Queue selectors: DEV, DEV:3, DEV:tx-3, DEV:0-3,7, and shell globs on the
 * device name ('eth*', 'eth*:0'). Parsing is pure (usage errors, exit 2);
 * resolution against sysfs names what does not exist (exit 1).
 */
#ifndef BQLTOOL_LIB_SEL_H
#define BQLTOOL_LIB_SEL_H

#include <stdbool.h>
#include <stddef.h>

#include "dql/err.h"
#include "lib/io/ctx.h"
#include "lib/kernel/sysfs.h"

struct sel_range {
	unsigned int lo, hi;	/* inclusive */
};

/* a glob may be longer than the names it matches: 'wlp[0-9]s[0-9]f[0-9]*' */
#define SEL_PAT_MAX 256

struct sel_item {
	char pat[SEL_PAT_MAX];	/* a name (< BQL_IFNAMSIZ bytes) or a glob */
	bool glob;		/* pat has * ? or [ */
	struct sel_range *ranges;	/* NULL = all queues */
	size_t nranges;
	const char *text;	/* the argument as typed, for messages */
};

struct sel {
	struct sel_item *items;
	size_t n;
};

/* Parse every argument; -EINVAL with a message naming the bad one. */
int sel_parse(struct sel *s, int argc, char *const *argv, struct bql_err *e);
void sel_free(struct sel *s);

struct sel_target {
	char ifname[BQL_IFNAMSIZ];
	int ifindex;
	unsigned int ntx;		/* TX queues the device has */
	unsigned int *queues;		/* selected, ascending, unique */
	unsigned int nqueues;
	bool named;			/* a selector names it (not a glob, not "every device") */
};

struct sel_result {
	struct sel_target *t;
	size_t n;
};

/*
 * Resolve @s (n == 0: every device with BQL) against sysfs, in ifindex
 * order. Errors (-ENODEV, -EOPNOTSUPP, -ERANGE) name the selector: an
 * unknown device, a named device without BQL, a queue it does not have, a
 * glob that matches nothing. A device that only "every device" or a glob
 * selects and that vanishes while it is resolved is left out, as
 * `ip link show` leaves it out; a named one is -ENODEV.
 */
int sel_resolve(const struct bql_ctx *c, const struct sel *s,
		struct sel_result *r, struct bql_err *e);
void sel_result_free(struct sel_result *r);

/*
 * sel_target_vanished - reading @t failed with @ret: is it because a
 * device nobody named (@t->named false) vanished since it was listed?
 * -ENODEV, or -ENOENT / -EOPNOTSUPP (a queue or its BQL directory gone)
 * with the device gone too, no longer alive (being unregistered) or its
 * name now another device's (another ifindex). The caller leaves it out.
 */
bool sel_target_vanished(const struct bql_ctx *c, const struct sel_target *t, int ret);

#endif
