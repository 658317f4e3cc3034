/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Dynamic queue limits, as the Linux kernel computes them
 * (lib/dynamic_queue_limits.c, include/linux/dynamic_queue_limits.h,
 * originally by Tom Herbert, stall detector by Jakub Kicinski and
 * Breno Leitao). This is an independent re-implementation made pure:
 * time ("jiffies") is an explicit 64-bit argument, the kernel's BUG_ON
 * becomes an error return, and the semantics of older kernels can be
 * selected with DQL_K_* flags.
 *
 * The model is a 64-bit kernel: BITS_PER_LONG = 64, jiffies are 64-bit and
 * compared by signed difference (time_after), byte counters are u32 and
 * wrap modulo 2^32 exactly as in the kernel.
 */
#ifndef BQLTOOL_DQL_DQL_H
#define BQLTOOL_DQL_DQL_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "err.h"

#define DQL_MAX_OBJECT		(UINT_MAX / 16)			/* 268435455 */
#define DQL_MAX_LIMIT		((UINT_MAX / 2) - DQL_MAX_OBJECT)	/* 1879048192 */
#define DQL_HIST_LEN		4
#define DQL_BITS_PER_LONG	64
/* stall_thrs window enforced by the sysfs store, in jiffies */
#define DQL_STALL_THRS_MIN	4
#define DQL_STALL_THRS_MAX	(4 / 2 * DQL_BITS_PER_LONG)	/* 128 */
/* msecs_to_jiffies() result for "infinite": (LONG_MAX >> 1) - 1 */
#define DQL_MAX_JIFFY_OFFSET	((uint64_t)(INT64_MAX >> 1) - 1)
/* HZ values the kernel accepts (include/linux/jiffies.h, SHIFT_HZ table) */
#define DQL_HZ_MIN		12
#define DQL_HZ_MAX		12287

/*
 * Kernel semantics, one flag per behaviour that changed. A kernel version
 * maps to a set of flags (dql_kernel_parse()).
 */
enum {
	DQL_K_POSDIFF_WRAP	= 1u << 0,	/* 3.5: wrap-aware POSDIFF, AFTER_EQ */
	DQL_K_CLAMP_61		= 1u << 1,	/* 6.1: clamp() min wins if min > max */
	DQL_K_STALL		= 1u << 2,	/* 6.9: stall detector */
	DQL_K_HIST_ON_THRS	= 1u << 3,	/* 6.10: history only while stall_thrs */
	DQL_K_QUEUED_WARN	= 1u << 4,	/* 6.10: oversized dql_queued ignored */
	DQL_K_RESET_MIN		= 1u << 5,	/* 6.15: dql_reset sets limit=min_limit */
};
#define DQL_K_NEWEST	(DQL_K_POSDIFF_WRAP | DQL_K_CLAMP_61 | DQL_K_STALL | \
			 DQL_K_HIST_ON_THRS | DQL_K_QUEUED_WARN | DQL_K_RESET_MIN)

/* Field names, types and meaning as the kernel's struct dql. */
struct dql {
	/* producer side */
	uint32_t num_queued;
	uint32_t adj_limit;
	uint32_t last_obj_cnt;
	uint16_t stall_thrs;		/* jiffies, 0 = detector off */
	uint64_t history_head;		/* jiffies / 64 of the newest word */
	uint64_t history[DQL_HIST_LEN];

	/* consumer side */
	uint32_t limit;
	uint32_t num_completed;
	uint32_t prev_ovlimit;
	uint32_t prev_num_queued;
	uint32_t prev_last_obj_cnt;
	uint32_t lowest_slack;
	uint64_t slack_start_time;	/* jiffies */

	/* configuration */
	uint32_t max_limit;
	uint32_t min_limit;
	uint32_t slack_hold_time;	/* jiffies */
	uint16_t stall_max;		/* jiffies, truncated to 16 bits */
	uint64_t last_reap;		/* jiffies */
	uint64_t stall_cnt;

	/* not in the kernel */
	unsigned int kflags;		/* DQL_K_* semantics in force */
	uint64_t ignored_queued;	/* dql_queued() calls ignored (6.10+) */
	uint64_t starvations;		/* dql_completed() calls that took the
					 * starvation (limit increase) branch */
	uint32_t last_stall_len;	/* now - t of the last stall detected:
					 * the "len" of the kernel's
					 * dql_stall_detected tracepoint (u32,
					 * not truncated like stall_max) */
};

/* dql_init - as the kernel's dql_init(dql, hold_time) at jiffies @now. */
void dql_init(struct dql *d, unsigned int hold_time, unsigned int kflags,
	      uint64_t now);
/* dql_reset - netdev_tx_reset_queue(): semantics depend on DQL_K_RESET_MIN. */
void dql_reset(struct dql *d, uint64_t now);
/*
 * dql_queued - the driver queued @count bytes.
 * Returns 0; 1 if the call was ignored (count > DQL_MAX_OBJECT on 6.10+,
 * counted in ignored_queued); -ERANGE where the kernel would BUG().
 * On error the state is unchanged.
 */
static inline int dql_queued(struct dql *d, unsigned int count, uint64_t now);
/* dql_avail - bytes that may still be queued; negative = over the limit. */
static inline int dql_avail(const struct dql *d);
/* the stall detector's history bit for @now (dql_queued() calls it) */
void dql_queue_stall(struct dql *d, uint64_t now);
/*
 * dql_completed - the driver completed @count bytes.
 * Returns 0, or -ERANGE (state unchanged) if @count exceeds the bytes in
 * flight, where the kernel would BUG().
 */
int dql_completed(struct dql *d, unsigned int count, uint64_t now);
/* bytes in flight, as sysfs "inflight" shows it */
uint32_t dql_inflight(const struct dql *d);

/*
 * sysfs stores (net/core/net-sysfs.c), with the kernel's validation.
 * Each returns 0 or -EINVAL/-ERANGE (state unchanged).
 */
int dql_store_limit(struct dql *d, uint64_t bytes);	/* writes limit directly */
int dql_store_limit_min(struct dql *d, uint64_t bytes);
int dql_store_limit_max(struct dql *d, uint64_t bytes);
void dql_store_hold_time(struct dql *d, unsigned int jiffies);
/*
 * stall_thrs in jiffies: 0, or DQL_STALL_THRS_MIN..MAX, else -ERANGE.
 * 0 -> non-zero sets last_reap = @now. Accepted whatever the kflags (the
 * file only exists since 6.9; without DQL_K_STALL it has no effect).
 */
int dql_store_stall_thrs(struct dql *d, uint64_t jiffies, uint64_t now);
void dql_store_stall_max(struct dql *d);		/* any write clears it */
/*
 * The same two stores given the value written to sysfs, in ms, exactly as
 * the kernel converts it: ms > UINT_MAX -> -ERANGE (kstrtouint), then
 * msecs_to_jiffies() truncated to the kernel's 32-bit variable, then the
 * checks above.
 */
int dql_store_hold_time_ms(struct dql *d, uint64_t ms, unsigned int hz);
int dql_store_stall_thrs_ms(struct dql *d, uint64_t ms, unsigned int hz,
			    uint64_t now);

/*
 * Kernel time conversions (include/linux/jiffies.h, kernel/time/time.c)
 * for a given HZ, on a 64-bit kernel.
 *
 * dql_msecs_to_jiffies: the kernel takes an unsigned int; ms >= 2^31 (a
 * "negative" int, and anything above UINT_MAX here) gives
 * DQL_MAX_JIFFY_OFFSET, as do the kernel's own overflow checks for HZ > 1000.
 * dql_jiffies_to_msecs: the kernel returns an unsigned int, so the result
 * is reduced modulo 2^32 exactly as the kernel's is.
 * Both return 0 for hz == 0; other HZ outside DQL_HZ_MIN..DQL_HZ_MAX (which
 * no kernel builds with) are computed with the same formulas.
 */
uint64_t dql_msecs_to_jiffies(uint64_t ms, unsigned int hz);
uint64_t dql_jiffies_to_msecs(uint64_t j, unsigned int hz);
/* true if a kernel can be built with this HZ (DQL_HZ_MIN..DQL_HZ_MAX) */
bool dql_hz_valid(unsigned int hz);

/*
 * dql_kernel_parse - "3.3", "3.5", "5.15", "6.1", "6.9", "6.10", "6.15",
 * "newest"/"latest" (and any [v]X.Y[.Z] optionally followed by "-..." or
 * "+...", so `uname -r` works) -> DQL_K_* flags of mainline X.Y.0; stable
 * backports are not modelled (5.15.164 got the 6.1 clamp; "5.15.164" still
 * means the legacy clamp). Versions before 3.3 have no DQL: -EINVAL
 * "kernel 3.2: DQL appeared in 3.3"; anything else -EINVAL
 * "kernel 'abc': expected a version like 6.9". *kflags is set only on
 * success.
 */
int dql_kernel_parse(const char *s, unsigned int *kflags, struct bql_err *e);

/*
 * dql_queued() and dql_avail() run once per packet: inline, as the kernel
 * has them in its header.
 */
static inline int dql_queued(struct dql *d, unsigned int count, uint64_t now)
{
	if (__builtin_expect(count > DQL_MAX_OBJECT, 0)) {
		/* 6.10+: WARN_ON_ONCE and ignore; before: BUG_ON. */
		if (d->kflags & DQL_K_QUEUED_WARN) {
			d->ignored_queued++;
			return 1;
		}
		return -ERANGE;
	}

	d->last_obj_cnt = count;
	d->num_queued += count;		/* wraps modulo 2^32 */

	/* 6.9 fills the history on every call, 6.10+ only while enabled. */
	if ((d->kflags & DQL_K_STALL) &&
	    (!(d->kflags & DQL_K_HIST_ON_THRS) || d->stall_thrs))
		dql_queue_stall(d, now);
	return 0;
}

static inline int dql_avail(const struct dql *d)
{
	/* adj_limit - num_queued as the kernel's int: two's complement */
	uint32_t v = d->adj_limit - d->num_queued;

	return v <= (uint32_t)INT_MAX ? (int)v : -(int)(UINT32_MAX - v) - 1;
}

#endif
