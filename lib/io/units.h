/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Units: exact parsing of byte sizes and durations typed by users, and
 * human formatting for text output. Binary multiples throughout:
 * K = k = KB = KiB = 1024, M = MiB = 1024^2, G = GiB = 1024^3.
 */
#ifndef BQLTOOL_LIB_UNITS_H
#define BQLTOOL_LIB_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "dql/err.h"

enum unit { UNIT_BYTES, UNIT_MS, UNIT_JIFFIES, UNIT_COUNT };

/* strict unsigned decimal: digits only (a trailing '\n' is allowed) */
int units_parse_u64(const char *s, uint64_t *out);
/*
 * The same for a number typed on a command line (counts, threads, HZ,
 * seeds), with the grammar of every number there (sizes, times, rates,
 * fractions): decimal digits after an optional '+'; no '-', space,
 * newline, hex or exponent. 0, -EINVAL or -ERANGE (above 2^64 - 1).
 */
int units_parse_arg_u64(const char *s, uint64_t *out);
/*
 * A decimal fraction typed on a command line (0.995, .5, 1, +0.5): digits
 * with at most one '.' after an optional '+', as the units above; no '-',
 * exponent, hex, space, inf or nan (strtod() took them all). 0 or -EINVAL;
 * the range is the caller's.
 */
int units_parse_fraction(const char *s, double *out);
/*
 * Bytes: "1514", "64K", "1.5M", "64KiB", "2G", "max" (-> @max_word, when it
 * is non-zero). The result must be a whole number of bytes and fit in
 * 64 bits. -EINVAL/-ERANGE with a message naming @what and the value.
 */
int units_parse_bytes(const char *what, const char *s, uint64_t max_word,
		      uint64_t *out, struct bql_err *e);
/*
 * Milliseconds: "250" (ms), "250ms", "1s", "1.5s", "1500us", "2min". Whole
 * ms. Both time parsers take ns, us, ms, s, min and h, and tc's nsec,
 * usec, msec and sec (with a plural s); a bare "m" is refused as ambiguous.
 */
int units_parse_ms(const char *what, const char *s, uint64_t *out,
		   struct bql_err *e);
/*
 * An interval or a duration (top -d, check --interval, sim): seconds as a
 * decimal with up to 9 fraction digits: "0.5", "2", "100ms", "50us",
 * "800ns", "20msec", "5min". At most UNITS_MAX_INTERVAL_NS (one day), so
 * deadlines computed from it never overflow.
 */
#define UNITS_MAX_INTERVAL_NS	(86400ull * 1000000000ull)
int units_parse_sec_ns(const char *what, const char *s, uint64_t *ns,
		       struct bql_err *e);

/* @v in decimal then @sfx into @buf (as snprintf "%" PRIu64 "%s"); its length */
size_t units_u64_len(char *buf, size_t n, uint64_t v, const char *sfx);
/* @s of @len bytes and a NUL into @buf of @n, truncated as snprintf "%s" would */
char *units_put(char *buf, size_t n, const char *s, size_t len);
/* @v in decimal ("%" PRIu64); returns @buf */
char *units_fmt_u64(char *buf, size_t n, uint64_t v);
/* "%.<d>f%s" of @x, d from 0 to 3, as snprintf writes it; returns @buf */
char *units_fmt_fixed(char *buf, size_t n, double x, int d, const char *sfx);
/* "1514 B", "30.0 KiB", "1.75 MiB"; returns @buf */
char *units_fmt_bytes(char *buf, size_t n, uint64_t v);
/* "250 ms", "1.000 s" style; returns @buf */
char *units_fmt_ms(char *buf, size_t n, uint64_t ms);
/* time on the wire of @bytes at @mbps: "246 us", "1.23 ms"; "" if unknown */
char *units_fmt_wire(char *buf, size_t n, uint64_t bytes, uint64_t mbps);
/* "12.3 Mbit/s" from bytes per second */
char *units_fmt_rate(char *buf, size_t n, double bytes_per_sec);

#endif
