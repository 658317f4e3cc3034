// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dynamic queue limits, re-implemented from the Linux kernel's
 * lib/dynamic_queue_limits.c and include/linux/dynamic_queue_limits.h
 * (Tom Herbert, 2011; stall detector by Jakub Kicinski and Breno Leitao,
 * 2024), the sysfs stores of net/core/net-sysfs.c and the time conversions
 * of include/linux/jiffies.h and kernel/time/time.c. See dql.h.
 *
 * Pure: no I/O, no allocation, no global state. Time is the @now argument.
 * Where the kernel calls BUG() the functions return -ERANGE and leave the
 * state untouched.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dql.h"
#include "dql_util.h"		/* last: poisons the I/O functions */

#pragma GCC poison malloc calloc realloc free

/* The ring covers DQL_HIST_LEN * 64 = 256 jiffies, one bit per jiffy. */
#define HIST_BITS	((uint64_t)DQL_HIST_LEN * DQL_BITS_PER_LONG)

static uint64_t *hist_ent(struct dql *d, uint64_t idx)
{
	return &d->history[idx % DQL_HIST_LEN];
}

/* ------------------------------------------------------------ init / reset */

void dql_reset(struct dql *d, uint64_t now)
{
	/* Reset every dynamic value; the configuration survives. */
	d->limit = (d->kflags & DQL_K_RESET_MIN) ? d->min_limit : 0;
	d->num_queued = 0;
	d->num_completed = 0;
	d->last_obj_cnt = 0;
	d->prev_num_queued = 0;
	d->prev_last_obj_cnt = 0;
	d->prev_ovlimit = 0;
	d->lowest_slack = UINT32_MAX;
	d->slack_start_time = now;
	/* adj_limit is deliberately left alone, as in the kernel. */

	if (d->kflags & DQL_K_STALL) {
		d->last_reap = now;
		d->history_head = now / DQL_BITS_PER_LONG;
		memset(d->history, 0, sizeof(d->history));
	}
}

void dql_init(struct dql *d, unsigned int hold_time, unsigned int kflags,
	      uint64_t now)
{
	/*
	 * The kernel's struct dql lives in a zero-allocated netdev_queue, so
	 * the fields dql_init() does not set (adj_limit, stall_cnt, stall_max,
	 * and before 6.9 the whole stall state) start at 0.
	 */
	memset(d, 0, sizeof(*d));
	d->kflags = kflags;
	d->max_limit = DQL_MAX_LIMIT;
	d->min_limit = 0;
	d->slack_hold_time = hold_time;
	d->stall_thrs = 0;
	dql_reset(d, now);
}

/* ------------------------------------------------------------------ queued */

/*
 * Record in the history ring that something was queued in jiffy @now.
 * Each bit of the 4 x 64-bit ring is one jiffy: word (now / 64) % 4,
 * bit now % 64. history_head is now / 64 of the newest word.
 */
void dql_queue_stall(struct dql *d, uint64_t now)
{
	uint64_t now_hi = now / DQL_BITS_PER_LONG;
	uint64_t i;

	if (now_hi != d->history_head) {
		/*
		 * Time moved into a new word: the words between the old head
		 * (exclusive) and the new one (inclusive) are about to be
		 * reused, so clear them, at most the whole ring. The two
		 * sides are multiplied by 64 before comparing, which drops
		 * their top 6 bits: head + i may have run past 2^58 - 1
		 * when jiffies wrapped, and must then still match now_hi.
		 */
		for (i = 0; i < DQL_HIST_LEN; i++) {
			if (now_hi * DQL_BITS_PER_LONG ==
			    (d->history_head + i) * DQL_BITS_PER_LONG)
				break;
			*hist_ent(d, d->history_head + i + 1) = 0;
		}
		d->history_head = now_hi;
	}

	/* One bit per jiffy in which something was queued. */
	*hist_ent(d, now_hi) |= (uint64_t)1 << (now % DQL_BITS_PER_LONG);
}

uint32_t dql_inflight(const struct dql *d)
{
	return d->num_queued - d->num_completed;
}

/* --------------------------------------------------------------- completed */

/*
 * Stall detector (6.9+), run after every completion. We are looking for a
 * period of at least @thrs jiffies without any completion, during the
 * first half of which something was queued. Detection is only attempted
 * on completions; last_reap, the time of the previous completion, is only
 * maintained while the detector is on.
 */
static void dql_check_stall(struct dql *d, uint16_t thrs, uint64_t now)
{
	uint64_t start, end, t;

	if (!thrs)
		return;

	/* Has there been no completion for at least thrs jiffies? */
	if (dql_time_after_eq(now, d->last_reap + thrs)) {
		/* The oldest jiffy the ring still describes ... */
		start = (d->history_head - DQL_HIST_LEN + 1) * DQL_BITS_PER_LONG;
		/* ... but nothing before the last completion matters. */
		if (dql_time_before(start, d->last_reap + 1))
			start = d->last_reap + 1;

		/* The newest jiffy the ring describes ... */
		end = d->history_head * DQL_BITS_PER_LONG +
		      (DQL_BITS_PER_LONG - 1);
		/*
		 * ... shrunk to now - thrs/2 if that is earlier: what was
		 * queued in the last thrs/2 jiffies had no time to stall.
		 */
		if (dql_time_before(now, end + thrs / 2))
			end = now - thrs / 2;

		/* The first jiffy in [start, end] with something queued. */
		for (t = start; dql_time_before_eq(t, end); t++) {
			uint64_t bit = t % HIST_BITS;

			if (d->history[bit / DQL_BITS_PER_LONG] &
			    ((uint64_t)1 << (bit % DQL_BITS_PER_LONG)))
				break;
		}

		if (dql_time_before_eq(t, end)) {
			/*
			 * A stall of now - t jiffies. The kernel keeps the
			 * longest one in a u16 (max_t(unsigned short, ...)
			 * truncates now - t first) and traces the u32 length.
			 * (Its "retry if history_head moved" only matters
			 * with a concurrent dql_queued().)
			 */
			uint16_t len16 = (uint16_t)(now - t);

			d->stall_cnt++;
			if (len16 > d->stall_max)
				d->stall_max = len16;
			d->last_stall_len = (uint32_t)(now - t);
		}
	}
	d->last_reap = now;
}

int dql_completed(struct dql *d, unsigned int count, uint64_t now)
{
	const unsigned int kf = d->kflags;
	uint32_t num_queued = d->num_queued;
	uint16_t stall_thrs = d->stall_thrs;
	uint32_t inprogress, prev_inprogress, limit, ovlimit, completed;
	bool all_prev_completed;

	/* Can't complete more than what's in the queue (kernel: BUG_ON). */
	if (count > num_queued - d->num_completed)
		return -ERANGE;

	completed = d->num_completed + count;
	limit = d->limit;
	/* Bytes in flight before this completion above the limit. */
	ovlimit = dql_posdiff(kf, num_queued - d->num_completed, limit);
	inprogress = num_queued - completed;
	prev_inprogress = d->prev_num_queued - d->num_completed;
	/*
	 * Everything queued up to the previous completion is now done.
	 * 3.3-3.4 computed it as POSDIFF(completed, prev_num_queued), which is
	 * false when the two are equal (and around the 2^32 wrap).
	 */
	if (kf & DQL_K_POSDIFF_WRAP)
		all_prev_completed = dql_after_eq(completed, d->prev_num_queued);
	else
		all_prev_completed =
			dql_posdiff_legacy(completed, d->prev_num_queued) != 0;

	if ((ovlimit && !inprogress) ||
	    (d->prev_ovlimit && all_prev_completed)) {
		/*
		 * The queue is considered starved if
		 *  - it was over the limit in the last interval and nothing
		 *    is left in it now, or
		 *  - it was over the limit in the previous interval and,
		 *    by the time more was queued, everything queued before
		 *    could have been consumed: it may have run dry between
		 *    the completion processing and the next enqueue.
		 *
		 * Then grow the limit by the bytes both queued and completed
		 * in the last interval, plus the previous over-limit amount.
		 */
		limit += dql_posdiff(kf, completed, d->prev_num_queued) +
			 d->prev_ovlimit;
		d->slack_start_time = now;
		d->lowest_slack = UINT32_MAX;
		d->starvations++;
	} else if (inprogress && prev_inprogress && !all_prev_completed) {
		/*
		 * Not starved. The limit may be lowered, but only if the
		 * queue was busy for the whole interval (checked above).
		 *
		 * Slack is the excess queued above what was needed to avoid
		 * starvation. To avoid hysteresis the smallest slack seen
		 * over a hold period is used. The slack of one completion is
		 * the larger of
		 *  - limit + previous over-limit - 2 * bytes completed (twice
		 *    the completed bytes being a basis for an upper bound of
		 *    the limit), and
		 *  - the part of the last queued object that was not part of
		 *    a non-zero previous over-limit: rounding down by the
		 *    non-over-limit portion of the last enqueue.
		 */
		uint32_t slack, slack_last_objs;

		slack = dql_posdiff(kf, limit + d->prev_ovlimit,
				    2u * (completed - d->num_completed));
		slack_last_objs = d->prev_ovlimit ?
			dql_posdiff(kf, d->prev_last_obj_cnt, d->prev_ovlimit) : 0;
		if (slack_last_objs > slack)
			slack = slack_last_objs;

		if (slack < d->lowest_slack)
			d->lowest_slack = slack;

		/* At most one decrease per hold period (strictly after). */
		if (dql_time_after(now, d->slack_start_time +
					d->slack_hold_time)) {
			limit = dql_posdiff(kf, limit, d->lowest_slack);
			d->slack_start_time = now;
			d->lowest_slack = UINT32_MAX;
		}
	}

	/* Enforce the bounds on the limit. */
	limit = dql_clamp(kf, limit, d->min_limit, d->max_limit);

	if (limit != d->limit) {
		d->limit = limit;
		ovlimit = 0;
	}

	d->adj_limit = limit + completed;
	d->prev_ovlimit = ovlimit;
	d->prev_last_obj_cnt = d->last_obj_cnt;
	d->num_completed = completed;
	d->prev_num_queued = num_queued;

	if (kf & DQL_K_STALL)
		dql_check_stall(d, stall_thrs, now);
	return 0;
}

/* ------------------------------------------------------------ sysfs stores */

/*
 * bql_set(): kstrtouint() (-ERANGE above UINT_MAX), then anything above
 * DQL_MAX_LIMIT is -EINVAL. ("max" is a string matter for the caller.)
 */
static int bql_set(uint64_t bytes, uint32_t *field)
{
	if (bytes > UINT32_MAX)
		return -ERANGE;
	if (bytes > DQL_MAX_LIMIT)
		return -EINVAL;
	*field = (uint32_t)bytes;
	return 0;
}

/* Written directly: nothing is clamped or recomputed until a completion. */
int dql_store_limit(struct dql *d, uint64_t bytes)
{
	return bql_set(bytes, &d->limit);
}

int dql_store_limit_min(struct dql *d, uint64_t bytes)
{
	return bql_set(bytes, &d->min_limit);
}

int dql_store_limit_max(struct dql *d, uint64_t bytes)
{
	return bql_set(bytes, &d->max_limit);
}

void dql_store_hold_time(struct dql *d, unsigned int jiffies)
{
	d->slack_hold_time = jiffies;
}

int dql_store_stall_thrs(struct dql *d, uint64_t jiffies, uint64_t now)
{
	/* 0 turns the detector off; otherwise 4 .. 4/2*BITS_PER_LONG. */
	if (jiffies && (jiffies < DQL_STALL_THRS_MIN ||
			jiffies > DQL_STALL_THRS_MAX))
		return -ERANGE;
	/* Turning it on starts the stall clock now: no false first stall. */
	if (!d->stall_thrs && jiffies)
		d->last_reap = now;
	d->stall_thrs = (uint16_t)jiffies;
	return 0;
}

void dql_store_stall_max(struct dql *d)
{
	d->stall_max = 0;
}

int dql_store_hold_time_ms(struct dql *d, uint64_t ms, unsigned int hz)
{
	if (ms > UINT32_MAX)
		return -ERANGE;
	/* slack_hold_time is an unsigned int: the jiffies are truncated. */
	d->slack_hold_time = (uint32_t)dql_msecs_to_jiffies(ms, hz);
	return 0;
}

int dql_store_stall_thrs_ms(struct dql *d, uint64_t ms, unsigned int hz,
			    uint64_t now)
{
	if (ms > UINT32_MAX)
		return -ERANGE;
	/*
	 * The kernel stores msecs_to_jiffies() into an unsigned int before
	 * the range check, so the truncated value is what is checked.
	 */
	return dql_store_stall_thrs(d, (uint32_t)dql_msecs_to_jiffies(ms, hz),
				    now);
}

/* ------------------------------------------------------- time conversions */

#define MSEC_PER_SEC	1000u

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * kernel/time/timeconst.bc, evaluated for one HZ: the constants of
 * "multiply by MUL, add ADJ, shift right by SHR", with MUL brought into
 * 2^31 <= MUL < 2^32 so that the result rounds up (ceil(m * n / d)).
 *   fmul(b, n, d) = (2^b * n + d - 1) / d
 *   fadj(b, n, d) = 2^b * (d' - 1) / d'  with d' = d / gcd(n, d)
 *   fmuls(32, n, d) = the smallest s with fmul(s, n, d) >= 2^31
 * For n = HZ, d = 1000 and any 1 <= HZ (s <= 41), every product fits in
 * 64 bits.
 */
static uint64_t tc_fmul(unsigned int s, uint64_t n, uint64_t d)
{
	return (((uint64_t)1 << s) * n + d - 1) / d;
}

static void msec_to_hz_consts(unsigned int hz, uint64_t *mul, uint64_t *adj,
			      unsigned int *shr)
{
	uint64_t d = MSEC_PER_SEC / gcd_u64(hz, MSEC_PER_SEC);
	unsigned int s = 0;

	while (tc_fmul(s, hz, MSEC_PER_SEC) < ((uint64_t)1 << 31))
		s++;
	*mul = tc_fmul(s, hz, MSEC_PER_SEC);
	*adj = ((uint64_t)1 << s) * (d - 1) / d;
	*shr = s;
}

uint64_t dql_jiffies_to_msecs(uint64_t j, unsigned int hz)
{
	uint64_t r;

	if (hz == 0)
		return 0;
	if (hz <= MSEC_PER_SEC && MSEC_PER_SEC % hz == 0) {
		/* a whole number of ms per jiffy */
		r = (uint64_t)(MSEC_PER_SEC / hz) * j;
	} else if (hz > MSEC_PER_SEC && hz % MSEC_PER_SEC == 0) {
		/* a whole number of jiffies per ms: round up */
		uint64_t k = hz / MSEC_PER_SEC;

		r = (j + k - 1) / k;
	} else {
		/*
		 * 64-bit generic case: DIV_ROUND_UP(j * NUM, DEN) with
		 * NUM/DEN = 1000/HZ in lowest terms; the product and the sum
		 * are unsigned long and wrap like the kernel's.
		 */
		uint64_t cd = gcd_u64(hz, MSEC_PER_SEC);
		uint64_t num = MSEC_PER_SEC / cd, den = hz / cd;

		r = (j * num + den - 1) / den;
	}
	/* The kernel returns an unsigned int. */
	return (uint32_t)r;
}

uint64_t dql_msecs_to_jiffies(uint64_t ms, unsigned int hz)
{
	uint32_t m;

	if (hz == 0)
		return 0;
	/* A negative int, and here anything beyond unsigned int: infinite. */
	if (ms > INT32_MAX)
		return DQL_MAX_JIFFY_OFFSET;
	m = (uint32_t)ms;

	if (hz <= MSEC_PER_SEC && MSEC_PER_SEC % hz == 0) {
		/* HZ divides 1000: divide by ms per jiffy, rounding up. */
		uint64_t k = MSEC_PER_SEC / hz;

		return (m + k - 1) / k;
	}
	if (hz > MSEC_PER_SEC && hz % MSEC_PER_SEC == 0) {
		/*
		 * HZ a multiple of 1000: multiply, unless the result could
		 * exceed MAX_JIFFY_OFFSET (the kernel compares with the
		 * unsigned int jiffies_to_msecs(MAX_JIFFY_OFFSET)).
		 */
		if (m > dql_jiffies_to_msecs(DQL_MAX_JIFFY_OFFSET, hz))
			return DQL_MAX_JIFFY_OFFSET;
		return (uint64_t)m * (hz / MSEC_PER_SEC);
	}
	/*
	 * Generic case (e.g. HZ=300): multiply, round and divide with the
	 * timeconst.bc constants, after the same overflow check when HZ is
	 * above 1000. The result is ceil(m * HZ / 1000).
	 */
	if (hz > MSEC_PER_SEC &&
	    m > dql_jiffies_to_msecs(DQL_MAX_JIFFY_OFFSET, hz))
		return DQL_MAX_JIFFY_OFFSET;
	{
		uint64_t mul, adj;
		unsigned int shr;

		msec_to_hz_consts(hz, &mul, &adj, &shr);
		return (mul * m + adj) >> shr;
	}
}

bool dql_hz_valid(unsigned int hz)
{
	return hz >= DQL_HZ_MIN && hz <= DQL_HZ_MAX;
}

/* --------------------------------------------------------- kernel versions */

/*
 * Parse a decimal component of at most 5 digits at *p; advance *p.
 * Returns -1 if there is no digit or too many.
 */
static long parse_component(const char **p)
{
	const char *s = *p;
	long v = 0;
	int n = 0;

	while (*s >= '0' && *s <= '9') {
		if (++n > 5)
			return -1;
		v = v * 10 + (*s - '0');
		s++;
	}
	if (n == 0)
		return -1;
	*p = s;
	return v;
}

/*
 * The semantics in force at the first release of mainline kernel X.Y.
 * Stable backports are not modelled: "5.15" and "5.15.170" both mean
 * mainline 5.15.0, i.e. the legacy clamp(), although 5.15.164 received
 * the 6.1 clamp() change and 5.10+ stable trees the 6.15 reset fix.
 */
static unsigned int flags_for(long major, long minor)
{
	long v = major * 1000 + minor;
	unsigned int f = 0;

	if (v >= 3005)
		f |= DQL_K_POSDIFF_WRAP;	/* 3.5: H. Shimoda's fixes */
	if (v >= 6001)
		f |= DQL_K_CLAMP_61;		/* 6.1: 2122e2a4efc2 */
	if (v >= 6009)
		f |= DQL_K_STALL;		/* 6.9: 6025b9135f7a */
	if (v >= 6010)
		f |= DQL_K_HIST_ON_THRS |	/* 6.10: 721f076b62cb */
		     DQL_K_QUEUED_WARN;		/* 6.10: 4854b463c4b2 */
	if (v >= 6015)
		f |= DQL_K_RESET_MIN;		/* 6.15: 3a17f23f7c36 */
	return f;
}

int dql_kernel_parse(const char *s, unsigned int *kflags, struct bql_err *e)
{
	const char *p = s;
	long major, minor;

	if (!s)
		return bql_err_set(e, EINVAL,
				   "kernel '': expected a version like 6.9");
	if (!strcmp(s, "newest") || !strcmp(s, "latest")) {
		*kflags = DQL_K_NEWEST;
		return 0;
	}

	/* [v]X.Y[.Z][-suffix|+suffix], e.g. "6.9", "v6.10", "6.8.0-45-generic" */
	if (*p == 'v')
		p++;
	major = parse_component(&p);
	if (major < 0 || *p != '.')
		goto bad;
	p++;
	minor = parse_component(&p);
	if (minor < 0)
		goto bad;
	if (*p == '.') {
		p++;
		if (parse_component(&p) < 0)
			goto bad;
	}
	if (*p != '\0' && *p != '-' && *p != '+')
		goto bad;
	if (major > 999 || minor > 999)
		goto bad;

	if (major < 3 || (major == 3 && minor < 3))
		return bql_err_set(e, EINVAL,
				   "kernel %s: DQL appeared in 3.3", s);
	*kflags = flags_for(major, minor);
	return 0;
bad:
	return bql_err_set(e, EINVAL,
			   "kernel '%s': expected a version like 6.9", s);
}
