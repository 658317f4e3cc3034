// SPDX-License-Identifier: GPL-2.0-only
/* Exact unit parsing (integer arithmetic only) and human formatting. */
#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/io/units.h"

int units_parse_arg_u64(const char *s, uint64_t *out)
{
	/* a '+' as the units take it (parse_dec()), and as the kernel's kstrtou64 */
	if (*s == '+' && s[1] >= '0' && s[1] <= '9')
		s++;
	if (strchr(s, '\n'))
		return -EINVAL;
	return units_parse_u64(s, out);
}

int units_parse_fraction(const char *s, double *out)
{
	const char *p = s;
	bool digits = false;

	if (*p == '+')
		p++;
	for (; *p >= '0' && *p <= '9'; p++)
		digits = true;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			digits = true;
	if (!digits || *p)
		return -EINVAL;
	*out = strtod(s, NULL);
	return 0;
}

int units_parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = s;

	if (!*p || *p == '\n')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	if (*p == '\n')
		p++;
	if (*p)
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * Split "1.5K" into integer part, fraction digits and suffix. The number is
 * value = ip + fp / 10^fd, exact. Returns -EINVAL on syntax errors, -ERANGE
 * when the integer part overflows.
 */
struct dec {
	uint64_t ip, fp;
	unsigned int fd;
	const char *suffix;
};

static int parse_dec(const char *s, struct dec *d)
{
	const char *p = s;
	bool digits = false;

	memset(d, 0, sizeof(*d));
	if (*p == '+')
		p++;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned int v = (unsigned int)(*p - '0');

		if (d->ip > (UINT64_MAX - v) / 10)
			return -ERANGE;
		d->ip = d->ip * 10 + v;
		digits = true;
	}
	if (*p == '.') {
		p++;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (d->fd >= 18)
				return -EINVAL;	/* more precision than any unit needs */
			d->fp = d->fp * 10 + (uint64_t)(*p - '0');
			d->fd++;
			digits = true;
		}
	}
	if (!digits)
		return -EINVAL;
	d->suffix = p;
	return 0;
}

static uint64_t pow10u(unsigned int n)
{
	uint64_t r = 1;

	while (n--)
		r *= 10;
	return r;
}

/* value * mult exactly; -EDOM if not whole, -ERANGE on overflow */
static int scale(const struct dec *d, uint64_t mult, uint64_t div,
		 uint64_t *out)
{
	unsigned __int128 num, den, whole;

	den = (unsigned __int128)pow10u(d->fd) * div;
	num = (unsigned __int128)d->ip * pow10u(d->fd) + d->fp;	/* < 2^124 */
	/*
	 * The product can exceed 128 bits ("309485009.821348883422046681T"
	 * wrapped to 4 MiB); the value is then far above 64 bits.
	 */
	if (mult && num > ~(unsigned __int128)0 / mult)
		return -ERANGE;
	num *= mult;
	if (num % den)
		return -EDOM;
	whole = num / den;
	if (whole > UINT64_MAX)
		return -ERANGE;
	*out = (uint64_t)whole;
	return 0;
}

static const struct {
	const char *sfx;
	uint64_t mult;
} byte_sfx[] = {
	{ "", 1 }, { "b", 1 },
	{ "k", 1ull << 10 }, { "kb", 1ull << 10 }, { "kib", 1ull << 10 },
	{ "m", 1ull << 20 }, { "mb", 1ull << 20 }, { "mib", 1ull << 20 },
	{ "g", 1ull << 30 }, { "gb", 1ull << 30 }, { "gib", 1ull << 30 },
	{ "t", 1ull << 40 }, { "tb", 1ull << 40 }, { "tib", 1ull << 40 },
};

static int bad(struct bql_err *e, int code, const char *what, const char *s,
	       const char *why)
{
	return bql_err_set(e, code, "%s: invalid value '%s': %s", what, s, why);
}

int units_parse_bytes(const char *what, const char *s, uint64_t max_word,
		      uint64_t *out, struct bql_err *e)
{
	struct dec d;
	int ret;

	if (max_word && !strcmp(s, "max")) {
		*out = max_word;
		return 0;
	}
	if (*s == '-')
		return bad(e, EINVAL, what, s, "must not be negative");
	ret = parse_dec(s, &d);
	if (ret == -ERANGE)
		return bad(e, ERANGE, what, s, "too large");
	if (ret)
		return bad(e, EINVAL, what, s,
			   max_word ? "expected bytes like 1514, 64K, 1.5M or 'max'"
				    : "expected bytes like 1514, 64K or 1.5M");
	for (size_t i = 0; i < sizeof(byte_sfx) / sizeof(byte_sfx[0]); i++) {
		if (strcasecmp(d.suffix, byte_sfx[i].sfx))
			continue;
		ret = scale(&d, byte_sfx[i].mult, 1, out);
		if (ret == -EDOM)
			return bad(e, EINVAL, what, s, "not a whole number of bytes");
		if (ret)
			return bad(e, ERANGE, what, s, "too large");
		return 0;
	}
	return bad(e, EINVAL, what, s, "unknown unit (use B, K, M, G; 1024-based)");
}

/*
 * Time units, in ns: ours, tc's spellings (msec, usec, sec, with a plural
 * s too), minutes and hours. Case matters: 5MS is not taken for 5ms.
 */
static const struct {
	const char *sfx;
	uint64_t ns;
} time_sfx[] = {
	{ "ns", 1 }, { "nsec", 1 }, { "nsecs", 1 },
	{ "us", 1000 }, { "usec", 1000 }, { "usecs", 1000 },
	{ "ms", 1000000 }, { "msec", 1000000 }, { "msecs", 1000000 },
	{ "s", 1000000000ull }, { "sec", 1000000000ull }, { "secs", 1000000000ull },
	{ "min", 60000000000ull }, { "mins", 60000000000ull },
	{ "h", 3600000000000ull },
};

/* the ns per unit of @sfx; 0: none such. "" is @bare_ns (the default unit). */
static uint64_t time_unit(const char *sfx, uint64_t bare_ns)
{
	if (!*sfx)
		return bare_ns;
	for (size_t i = 0; i < sizeof(time_sfx) / sizeof(time_sfx[0]); i++)
		if (!strcmp(sfx, time_sfx[i].sfx))
			return time_sfx[i].ns;
	return 0;
}

/* a suffix that is no time unit: 1m reads as a minute or a slip for 1ms */
static int bad_time_unit(struct bql_err *e, const char *what, const char *s,
			 const char *sfx, const char *units)
{
	char why[96];

	if (!strcmp(sfx, "m"))
		return bad(e, EINVAL, what, s,
			   "ambiguous unit 'm' (write 'min' for minutes, 'ms' for milliseconds)");
	snprintf(why, sizeof(why), "unknown unit (use %s)", units);
	return bad(e, EINVAL, what, s, why);
}

int units_parse_ms(const char *what, const char *s, uint64_t *out,
		   struct bql_err *e)
{
	struct dec d;
	uint64_t unit;
	int ret;

	if (*s == '-')
		return bad(e, EINVAL, what, s, "must not be negative");
	ret = parse_dec(s, &d);
	if (ret == -ERANGE)
		return bad(e, ERANGE, what, s, "too large");
	if (ret)
		return bad(e, EINVAL, what, s, "expected a time like 250, 250ms or 1.5s");
	unit = time_unit(d.suffix, 1000000);
	if (!unit)
		return bad_time_unit(e, what, s, d.suffix, "ms, s, us, min or h");
	/*
	 * unit / 10^6 in lowest terms (every unit divides a millisecond or is
	 * a multiple of one): scale() multiplies before it divides, and a
	 * needless factor would overflow its 128 bits where the value itself
	 * is only not whole (1844...369.5095...: -EDOM, not -ERANGE)
	 */
	ret = unit >= 1000000 ? scale(&d, unit / 1000000, 1, out)
			      : scale(&d, 1, 1000000 / unit, out);
	if (ret == -EDOM)
		return bad(e, EINVAL, what, s, "not a whole number of milliseconds");
	if (ret)
		return bad(e, ERANGE, what, s, "too large");
	return 0;
}

int units_parse_sec_ns(const char *what, const char *s, uint64_t *ns,
		       struct bql_err *e)
{
	struct dec d;
	uint64_t unit;
	int ret;

	if (*s == '-')
		return bad(e, EINVAL, what, s, "must not be negative");
	ret = parse_dec(s, &d);
	if (ret == -ERANGE)
		return bad(e, ERANGE, what, s, "too large");
	if (ret)
		return bad(e, EINVAL, what, s, "expected seconds like 1, 0.5, 200ms or 50us");
	unit = time_unit(d.suffix, 1000000000ull);
	if (!unit)
		return bad_time_unit(e, what, s, d.suffix, "s, ms, us, ns, min or h");
	ret = scale(&d, unit, 1, ns);
	if (ret == -EDOM)
		return bad(e, EINVAL, what, s, "finer than a nanosecond");
	if (ret || *ns > UNITS_MAX_INTERVAL_NS)
		return bad(e, ERANGE, what, s, "too large (at most 86400 s, one day)");
	return 0;
}

/*
 * Formatting without printf: top -b formats some 40 000 values a sample
 * (issue #40). Each function writes what its printf format would, byte for
 * byte (tests/unit/test_units.c compares them), and falls back to printf
 * where it cannot be sure of that.
 */

/* @v in decimal, ending just before @end; returns where it starts */
static char *dec_back(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

char *units_put(char *buf, size_t n, const char *s, size_t len)
{
	if (!n)
		return buf;
	if (len >= n)
		len = n - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return buf;
}

size_t units_u64_len(char *buf, size_t n, uint64_t v, const char *sfx)
{
	char tmp[48], *end = tmp + 20, *p = dec_back(end, v);
	size_t sl = strlen(sfx), len;

	if (sl > sizeof(tmp) - 20)
		return (size_t)snprintf(buf, n, "%" PRIu64 "%s", v, sfx);
	memcpy(end, sfx, sl);
	len = (size_t)(end - p) + sl;
	units_put(buf, n, p, len);
	return len;
}

char *units_fmt_u64(char *buf, size_t n, uint64_t v)
{
	units_u64_len(buf, n, v, "");
	return buf;
}

/* @q / 10^@d with @d decimals, then @sfx ("%.<d>f%s" of a non-negative number) */
static void fixed_put(char *buf, size_t n, uint64_t q, int d, const char *sfx)
{
	char tmp[64], *end = tmp + 40, *p = end;
	size_t sl = strlen(sfx);

	for (int i = 0; i < d; i++) {
		*--p = (char)('0' + q % 10);
		q /= 10;
	}
	if (d)
		*--p = '.';
	p = dec_back(p, q);
	if (sl > sizeof(tmp) - 40) {
		snprintf(buf, n, "%.*s%s", (int)(end - p), p, sfx);
		return;
	}
	memcpy(end, sfx, sl);
	units_put(buf, n, p, (size_t)(end - p) + sl);
}

/*
 * "%.<d>f%s" of @x (d <= 3). printf rounds the exact binary value, ties
 * to even; x * 10^d in doubles is off by at most an ulp or so: where that
 * could matter (a fraction near one half), and for what is not a small
 * non-negative number, printf decides.
 */
char *units_fmt_fixed(char *buf, size_t n, double x, int d, const char *sfx)
{
	static const double p10[] = { 1, 10, 100, 1000 };
	double y, f, frac;
	uint64_t q;

	if (d < 0 || d > 3 || !(x >= 0) || signbit(x) || !(x < 1e15)) {
		snprintf(buf, n, "%.*f%s", d, x, sfx);
		return buf;
	}
	y = x * p10[d];
	f = floor(y);
	frac = y - f;		/* exact: y < 2^52 */
	if (fabs(frac - 0.5) <= y * 0x1p-50 + 0x1p-60) {
		snprintf(buf, n, "%.*f%s", d, x, sfx);
		return buf;
	}
	q = (uint64_t)f + (frac > 0.5);
	fixed_put(buf, n, q, d, sfx);
	return buf;
}

char *units_fmt_bytes(char *buf, size_t n, uint64_t v)
{
	static const char *const u[] = { "KiB", "MiB", "GiB", "TiB" };
	static const char *const su[] = { " KiB", " MiB", " GiB", " TiB" };
	double x = (double)v;
	int i = -1;

	if (v < 1024) {
		units_u64_len(buf, n, v, " B");
		return buf;
	}
	if (v < (1ull << 53)) {
		/*
		 * x = v / 2^k exactly: rounded to d decimals in integers,
		 * ties to even as printf
		 */
		unsigned int k = 10;
		unsigned __int128 s;
		uint64_t q, r, half;
		int d;

		for (i = 0; i < 3 && v >> k >= 1024; i++)
			k += 10;
		d = v < (10ull << k) ? 2 : v < (100ull << k) ? 1 : 0;
		s = (unsigned __int128)v * (d == 2 ? 100 : d == 1 ? 10 : 1);
		q = (uint64_t)(s >> k);
		r = (uint64_t)(s & (((unsigned __int128)1 << k) - 1));
		half = 1ull << (k - 1);
		q += r > half || (r == half && (q & 1));
		fixed_put(buf, n, q, d, su[i]);
		return buf;
	}
	while (x >= 1024 && i < 3) {
		x /= 1024;
		i++;
	}
	snprintf(buf, n, x < 10 ? "%.2f %s" : x < 100 ? "%.1f %s" : "%.0f %s",
		 x, u[i]);
	return buf;
}

char *units_fmt_ms(char *buf, size_t n, uint64_t ms)
{
	if (ms < 10000 || ms % 1000)
		units_u64_len(buf, n, ms, " ms");
	else
		units_u64_len(buf, n, ms / 1000, " s");
	return buf;
}

char *units_fmt_wire(char *buf, size_t n, uint64_t bytes, uint64_t mbps)
{
	double us;

	if (!mbps) {
		snprintf(buf, n, "%s", "");
		return buf;
	}
	us = (double)bytes * 8.0 / (double)mbps;	/* bits / (Mbit/s) = us */
	if (us < 10)
		snprintf(buf, n, "%.2f us", us);
	else if (us < 100)
		snprintf(buf, n, "%.1f us", us);
	else if (us < 1000)
		snprintf(buf, n, "%.0f us", us);
	else if (us < 1e6)
		snprintf(buf, n, "%.2f ms", us / 1000);
	else
		snprintf(buf, n, "%.2f s", us / 1e6);
	return buf;
}

char *units_fmt_rate(char *buf, size_t n, double bps)
{
	double bits = bps * 8;

	if (bits < 1e3)
		return units_fmt_fixed(buf, n, bits, 0, " bit/s");
	else if (bits < 1e6)
		return units_fmt_fixed(buf, n, bits / 1e3, 1, " kbit/s");
	else if (bits < 1e9)
		return units_fmt_fixed(buf, n, bits / 1e6, 1, " Mbit/s");
	else
		return units_fmt_fixed(buf, n, bits / 1e9, 2, " Gbit/s");
}
