/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private helpers of the DQL core: the integer idioms the kernel's
 * lib/dynamic_queue_limits.c, include/linux/jiffies.h and
 * include/linux/minmax.h rely on, written as typed static inline functions
 * so that the wrap-around semantics are explicit.
 *
 * Every helper is exact for all inputs: "(int)(a - b) > 0" in the kernel
 * means "the 32-bit difference, read as two's complement, is positive",
 * which is tested here on the sign bit instead of through an
 * implementation-defined conversion.
 *
 * Including this header also poisons the C library's I/O and process
 * functions, so that dql/ stays pure (no I/O, no printing, no exit). A test
 * that needs them defines DQL_NO_POISON before including it.
 */
#ifndef BQLTOOL_DQL_DQL_UTIL_H
#define BQLTOOL_DQL_DQL_UTIL_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "dql.h"

/* ---------------------------------------------------------- 32-bit counters */

/*
 * u32 -> int as the kernel's "(int)x" does on every architecture it runs on
 * (two's complement): values >= 2^31 become negative.
 */
static inline int dql_u32_as_int(uint32_t x)
{
	if (x <= (uint32_t)INT_MAX)
		return (int)x;
	return -(int)(UINT32_MAX - x) - 1;
}

/*
 * POSDIFF since 3.5: ((int)(A - B) > 0 ? A - B : 0). The difference is taken
 * modulo 2^32 and is "positive" if it is non-zero and below 2^31, so
 * counters that wrapped past 2^32 still compare correctly as long as they
 * are less than 2^31 apart.
 */
static inline uint32_t dql_posdiff_wrap(uint32_t a, uint32_t b)
{
	uint32_t d = a - b;

	return (d != 0 && !(d & 0x80000000u)) ? d : 0;
}

/*
 * POSDIFF of 3.3-3.4: (A > B ? A - B : 0), a plain unsigned comparison.
 * Wrong once a counter wraps: POSDIFF(5, 0xfffffffe) is 0, not 7.
 */
static inline uint32_t dql_posdiff_legacy(uint32_t a, uint32_t b)
{
	return a > b ? a - b : 0;
}

/* AFTER_EQ(A, B) since 3.5: ((int)(A - B) >= 0), wrap-aware a >= b. */
static inline bool dql_after_eq(uint32_t a, uint32_t b)
{
	return !((uint32_t)(a - b) & 0x80000000u);
}

/* ------------------------------------------------------------------ jiffies */

/*
 * time_after(a, b) on a 64-bit kernel: ((long)((b) - (a)) < 0), i.e. a is
 * later than b if b - a, modulo 2^64, has its sign bit set. So a time up to
 * 2^63 - 1 jiffies "ahead" is after, even across the 2^64 wrap:
 * time_after(2, UINT64_MAX) is true.
 */
static inline bool dql_time_after(uint64_t a, uint64_t b)
{
	return ((b - a) >> 63) != 0;
}

/* time_before(a, b) = time_after(b, a) */
static inline bool dql_time_before(uint64_t a, uint64_t b)
{
	return dql_time_after(b, a);
}

/* time_after_eq(a, b): ((long)((a) - (b)) >= 0) */
static inline bool dql_time_after_eq(uint64_t a, uint64_t b)
{
	return ((a - b) >> 63) == 0;
}

/* time_before_eq(a, b) = time_after_eq(b, a) */
static inline bool dql_time_before_eq(uint64_t a, uint64_t b)
{
	return dql_time_after_eq(b, a);
}

/* -------------------------------------------------------------------- clamp */

/*
 * clamp() of 3.3-6.0: min(max(v, lo), hi). When lo > hi the upper bound is
 * applied last, so hi wins: clamp(1000, 5000, 3000) = 3000.
 */
static inline uint32_t dql_clamp_legacy(uint32_t v, uint32_t lo, uint32_t hi)
{
	uint32_t x = v < lo ? lo : v;

	return x > hi ? hi : x;
}

/*
 * clamp() since 6.1 (2122e2a4efc2 "minmax: clamp more efficiently by
 * avoiding extra comparison"): v >= hi ? hi : (v <= lo ? lo : v).
 * When lo > hi the result is hi if v >= hi and lo otherwise:
 * clamp(1000, 5000, 3000) = 5000, clamp(4000, 5000, 3000) = 3000.
 */
static inline uint32_t dql_clamp_61(uint32_t v, uint32_t lo, uint32_t hi)
{
	if (v >= hi)
		return hi;
	return v <= lo ? lo : v;
}

/* ---------------------------------------------- version-dependent wrappers */

static inline uint32_t dql_posdiff(unsigned int kflags, uint32_t a, uint32_t b)
{
	return (kflags & DQL_K_POSDIFF_WRAP) ? dql_posdiff_wrap(a, b)
					     : dql_posdiff_legacy(a, b);
}

static inline uint32_t dql_clamp(unsigned int kflags, uint32_t v, uint32_t lo,
				 uint32_t hi)
{
	return (kflags & DQL_K_CLAMP_61) ? dql_clamp_61(v, lo, hi)
					 : dql_clamp_legacy(v, lo, hi);
}

/* ------------------------------------------------------------------- purity */

#ifndef DQL_NO_POISON
#pragma GCC poison printf fprintf vprintf vfprintf puts fputs putchar perror
#pragma GCC poison fopen fwrite fread open read write exit abort system
#endif

#endif
