/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Write plans for set, reset and apply: a list of (device, queue, attribute,
 * old, new), checked against the kernel's rules for a given HZ, then written
 * all-or-nothing: every old value is read first, and on the first failed
 * write everything already written is restored, in reverse order.
 *
 * Values are in sysfs units (bytes; ms for hold_time and stall_thrs). The
 * kernel keeps hold_time and stall_thrs in jiffies, so a ms value reads
 * back rounded; plan_value() says what sysfs will show and which value to
 * write so that it shows the requested one when some jiffy count does.
 */
#ifndef BQLTOOL_LIB_PLAN_H
#define BQLTOOL_LIB_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dql/err.h"
#include "lib/kernel/bql.h"
#include "lib/io/ctx.h"
#include "lib/kernel/sysfs.h"

/* Kernel defaults (dql_init): what `reset` writes. */
#define PLAN_DEFAULT_LIMIT_MIN	0
#define PLAN_DEFAULT_HOLD_TIME	1000	/* ms: HZ jiffies */
#define PLAN_DEFAULT_STALL_THRS	0	/* off */
/* limit_max's default is DQL_MAX_LIMIT */

/**
 * struct plan_value - one requested value, checked for the kernel
 * @req:	the value asked for (sysfs units)
 * @wval:	the value to write
 * @shown:	what sysfs will show afterwards (@req unless rounded)
 * @jiffies:	hold_time, stall_thrs: what the kernel will store
 */
struct plan_value {
	uint64_t req, wval, shown, jiffies;
};

/*
 * plan_value - check @v for attribute @a as the kernel's sysfs store does,
 * for a kernel with @hz. @what names the value in messages
 * ("stall_thrs=1ms", "devices.eth0.all.limit_max").
 * Rules: limit, limit_min, limit_max <= DQL_MAX_LIMIT (else -EINVAL);
 * hold_time, stall_thrs <= UINT_MAX (kstrtouint, else -ERANGE); a
 * non-zero stall_thrs must be 4..128 jiffies (else -ERANGE, the message
 * gives the ms range for this HZ). Read-only attributes are -EINVAL.
 */
int plan_value(enum bql_attr a, uint64_t v, unsigned int hz, const char *what,
	       struct plan_value *pv, struct bql_err *e);
/* The ms values a non-zero stall_thrs may take with @hz (inclusive). */
void plan_stall_range(unsigned int hz, uint64_t *lo, uint64_t *hi);
/*
 * plan_ms_write - the ms value to write so that sysfs then shows @ms.
 * Returns true and sets *@w if some jiffy count shows as @ms (with HZ 100,
 * 250 and 1000 *@w == @ms; with HZ 300, 4 ms is 1 jiffy but writing 4
 * stores 2, so *@w is 3); false if none does (the kernel will round).
 */
bool plan_ms_write(uint64_t ms, unsigned int hz, uint64_t *w);
/* What sysfs shows after writing @ms: jiffies_to_msecs(msecs_to_jiffies). */
uint64_t plan_ms_shown(uint64_t ms, unsigned int hz);

enum plan_state {
	PLAN_PENDING,		/* to be written */
	PLAN_UNCHANGED,		/* sysfs already shows the new value: no write */
	PLAN_WRITTEN,
	PLAN_FAILED,		/* this write failed; the old value is still there */
	PLAN_RESTORED,		/* written (or a failed write that changed it), then rolled back */
	PLAN_RESTORE_FAILED,	/* written, and the rollback failed too */
};

struct plan_item {
	char ifname[BQL_IFNAMSIZ];
	unsigned int queue;
	enum bql_attr attr;
	struct plan_value v;	/* new value */
	bool optional;		/* file may be absent: drop the item */
	uint64_t old;		/* read by plan_read() */
	uint64_t restore;	/* written to restore @old */
	enum plan_state state;
	bool write_failed;	/* the write that failed the plan (then restored if needed) */
	char *err;		/* why the write or the restore failed */
};

/* One selected queue: its values before the plan, for checks across keys. */
struct plan_queue {
	char ifname[BQL_IFNAMSIZ];
	unsigned int queue;
	struct bql_queue before;
};

struct plan {
	struct plan_item *it;
	size_t n, cap;
	struct plan_queue *q;
	size_t nq;
	unsigned int hz;
};

void plan_init(struct plan *p, unsigned int hz);
void plan_free(struct plan *p);
/*
 * plan_add - append a write. Items of one queue should be added together
 * (plan_read() reads each queue once). A second write of the same file
 * replaces the first. @optional: drop the item if the kernel has no such
 * file (stall_thrs before 6.9), instead of failing.
 */
int plan_add(struct plan *p, const char *ifname, unsigned int queue,
	     enum bql_attr a, const struct plan_value *v, bool optional,
	     struct bql_err *e);
/*
 * plan_read - read every queue of the plan (every old value), drop
 * optional items whose file is absent, mark items whose file already shows
 * the new value as PLAN_UNCHANGED and compute restore values. Errors name
 * the file and end "; nothing was written" (nothing is).
 */
int plan_read(const struct bql_ctx *c, struct plan *p, struct bql_err *e);
/* Number of items plan_execute() would write. */
size_t plan_pending(const struct plan *p);
/*
 * plan_check_access - can every pending file be written? -EACCES/-EPERM
 * ("needs root") or another -errno naming the first file that cannot.
 * Writes nothing.
 */
int plan_check_access(const struct bql_ctx *c, const struct plan *p,
		      struct bql_err *e);
/*
 * plan_execute - write every pending item in order. On the first failure,
 * restore the items already written, newest first, and the failed one
 * itself if it no longer shows its old value; return that failure's
 * -errno with @e describing it; item states and ->err tell what was
 * restored and what could not be.
 */
int plan_execute(const struct bql_ctx *c, struct plan *p, struct bql_err *e);

/*
 * plan_minmax - queues whose limit_min will exceed limit_max once the plan
 * is applied (the kernel allows it). Returns how many; *@first (may be
 * NULL) is the first one, with its final values in *@min, *@max.
 */
size_t plan_minmax(const struct plan *p, const struct plan_queue **first,
		   uint64_t *min, uint64_t *max);
/*
 * plan_clamp_rule - which bound wins when limit_min > limit_max, for kernel
 * release @release (uname -r, e.g. "6.8.0-45-generic"): clamp() changed in
 * 6.1. A sentence for a warning; an unparsable release gives both rules.
 */
const char *plan_clamp_rule(const char *release);

#endif
