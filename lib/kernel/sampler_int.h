/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to lib/sampler*.c: the discovery half (sampler_scan.c) as the
 * reading half (sampler.c) calls it.
 */
#ifndef BQLTOOL_LIB_SAMPLER_INT_H
#define BQLTOOL_LIB_SAMPLER_INT_H

#include <stdbool.h>

#include "lib/kernel/sampler.h"

/* a full rescan (ifindex, BQL, queue count, operstate of every device)
 * at least this often */
#define SAMPLER_FULL_SCAN_NS	1000000000ull

/* the cheap check of class/net at most this often */
#define SAMPLER_QUICK_CHECK_NS	100000000ull

/* a device statistics file read by path, not kept open (fd_tx_bytes...) */
#define SAMPLER_FD_BY_PATH	(-2)

/*
 * Open one BQL file of @q of @d for reading, not to keep: relative to the
 * device's queues/ directory when the root is a real sysfs (one openat2:
 * kernfs holds no device node, FIFO or link below queues/), else by
 * sysfs_open(). An fd, or -errno.
 */
int sampler_attr_open(const struct sampler *s, const struct sampler_dev *d,
		      const struct sampler_queue *q, int attr, const char *obj,
		      struct bql_err *e);

/*
 * Full scan: every device of class/net, matched by name and ifindex with
 * what we have. Devices that went away are marked vanished (kept one
 * tick), new ones opened and marked new (@events: not on the first scan).
 */
int sampler_scan_full(struct sampler *s, bool events, struct bql_err *e);
/* Cheap check (one readdir, one stat per device); *scan = a full one is due */
int sampler_scan_quick(struct sampler *s, bool *scan, struct bql_err *e);
/*
 * After a full scan: hot files (SAMPLER_HOT) that did not fit under the
 * descriptor budget take the descriptors of kept-open slow files; then
 * slow files not kept open are opened to keep while the budget allows.
 */
void sampler_rebalance_fds(struct sampler *s);
/* Drop what was reported vanished last tick; clear NEW marks. */
void sampler_scan_expire(struct sampler *s);
/* @d went away: close its files, mark it and its queues, add the event */
void sampler_dev_vanish(struct sampler *s, struct sampler_dev *d);
void sampler_dev_free(struct sampler_dev *d);

#endif
