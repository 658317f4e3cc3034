// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for units: the input (cut at its first NUL) goes to
 * units_parse_u64/bytes/ms/sec_ns, and every answer is checked against a
 * slow reference written here from units.h: the exact value of the decimal
 * times the unit, computed with a small bignum, must be a whole number
 * that fits in 64 bits. The formatters get the raw bytes as numbers.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/io/units.h"

/* ------------------------------------------------------------ bignum */

#define LIMBS	16	/* 512 bits: a 64-bit integer part, 18 digits, 2^40 */

struct big {
	uint32_t l[LIMBS];	/* little-endian */
};

static int big_mul(struct big *b, uint32_t m)
{
	uint64_t carry = 0;

	for (int i = 0; i < LIMBS; i++) {
		uint64_t x = (uint64_t)b->l[i] * m + carry;

		b->l[i] = (uint32_t)x;
		carry = x >> 32;
	}
	return carry ? -1 : 0;
}

static int big_add(struct big *b, uint32_t a)
{
	uint64_t carry = a;

	for (int i = 0; i < LIMBS && carry; i++) {
		uint64_t x = (uint64_t)b->l[i] + carry;

		b->l[i] = (uint32_t)x;
		carry = x >> 32;
	}
	return carry ? -1 : 0;
}

/* b /= d, returns the remainder */
static uint32_t big_div(struct big *b, uint32_t d)
{
	uint64_t rem = 0;

	for (int i = LIMBS - 1; i >= 0; i--) {
		uint64_t x = (rem << 32) | b->l[i];

		b->l[i] = (uint32_t)(x / d);
		rem = x % d;
	}
	return (uint32_t)rem;
}

/* ------------------------------------------------------------ reference */

/*
 * The reference: [+]DIGITS[.DIGITS]SUFFIX with at least one digit, at most
 * 18 fraction digits and an integer part below 2^64 (units.c's documented
 * limits), value * mul / div whole (else -EDOM) and at most UINT64_MAX
 * (else -ERANGE). -EINVAL for syntax and unknown suffixes.
 * @mul is given as two 32-bit factors.
 */
struct sfx {
	const char *s;
	uint32_t mul1, mul2, div;
};

static int ref_parse(const char *s, const struct sfx *t, size_t nt, int icase,
		     uint64_t *out)
{
	struct big b;
	const char *p = s;
	unsigned int fd = 0, id = 0;
	int overflow = 0, whole = 1, fits = 1;
	uint64_t ip = 0;
	size_t k;

	memset(&b, 0, sizeof(b));
	if (*p == '+')
		p++;
	for (; *p >= '0' && *p <= '9'; p++, id++) {
		if (ip > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			overflow = 1;
		ip = ip * 10 + (uint64_t)(*p - '0');
		if (big_mul(&b, 10) || big_add(&b, (uint32_t)(*p - '0')))
			overflow = 1;
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, fd++)
			if (!overflow && fd < 18 &&
			    (big_mul(&b, 10) || big_add(&b, (uint32_t)(*p - '0'))))
				abort();
	}
	if (!id && !fd)
		return -EINVAL;
	if (overflow)
		return -ERANGE;	/* checked while scanning, before the fraction */
	if (fd > 18)
		return -EINVAL;
	for (k = 0; k < nt; k++)
		if (icase ? !strcasecmp(p, t[k].s) : !strcmp(p, t[k].s))
			break;
	if (k == nt)
		return -EINVAL;
	if (big_mul(&b, t[k].mul1) || big_mul(&b, t[k].mul2))
		abort();	/* LIMBS is large enough */
	for (unsigned int i = 0; i < fd; i++)
		whole &= !big_div(&b, 10);
	whole &= !big_div(&b, t[k].div);
	for (int i = 2; i < LIMBS; i++)
		fits &= !b.l[i];
	if (!whole && !fits)
		return -EDOM - ERANGE;	/* either answer is right */
	if (!whole)
		return -EDOM;
	if (!fits)
		return -ERANGE;
	*out = (uint64_t)b.l[1] << 32 | b.l[0];
	return 0;
}

static const struct sfx byte_sfx[] = {
	{ "", 1, 1, 1 }, { "b", 1, 1, 1 },
	{ "k", 1024, 1, 1 }, { "kb", 1024, 1, 1 }, { "kib", 1024, 1, 1 },
	{ "m", 1u << 20, 1, 1 }, { "mb", 1u << 20, 1, 1 }, { "mib", 1u << 20, 1, 1 },
	{ "g", 1u << 30, 1, 1 }, { "gb", 1u << 30, 1, 1 }, { "gib", 1u << 30, 1, 1 },
	{ "t", 1u << 20, 1u << 20, 1 }, { "tb", 1u << 20, 1u << 20, 1 },
	{ "tib", 1u << 20, 1u << 20, 1 },
};
/* times: ours, tc's spellings, minutes and hours; a bare "m" is refused */
static const struct sfx ms_sfx[] = {
	{ "", 1, 1, 1 },
	{ "ns", 1, 1, 1000000 }, { "nsec", 1, 1, 1000000 }, { "nsecs", 1, 1, 1000000 },
	{ "us", 1, 1, 1000 }, { "usec", 1, 1, 1000 }, { "usecs", 1, 1, 1000 },
	{ "ms", 1, 1, 1 }, { "msec", 1, 1, 1 }, { "msecs", 1, 1, 1 },
	{ "s", 1000, 1, 1 }, { "sec", 1000, 1, 1 }, { "secs", 1000, 1, 1 },
	{ "min", 60000, 1, 1 }, { "mins", 60000, 1, 1 }, { "h", 3600000, 1, 1 },
};
static const struct sfx sec_sfx[] = {
	{ "", 1000000000u, 1, 1 },
	{ "ns", 1u, 1, 1 }, { "nsec", 1u, 1, 1 }, { "nsecs", 1u, 1, 1 },
	{ "us", 1000u, 1, 1 }, { "usec", 1000u, 1, 1 }, { "usecs", 1000u, 1, 1 },
	{ "ms", 1000000u, 1, 1 }, { "msec", 1000000u, 1, 1 }, { "msecs", 1000000u, 1, 1 },
	{ "s", 1000000000u, 1, 1 }, { "sec", 1000000000u, 1, 1 }, { "secs", 1000000000u, 1, 1 },
	{ "min", 60, 1000000000u, 1 }, { "mins", 60, 1000000000u, 1 },
	{ "h", 3600, 1000000000u, 1 },
};

#define N(a)	(sizeof(a) / sizeof((a)[0]))

/* the answer of the library against the reference's */
static void compare(const char *fn, const char *s, int ret, uint64_t v,
		    const struct bql_err *e, int ref, uint64_t rv)
{
	/* the library reports "not whole" as -EINVAL */
	int want = ref == -EDOM ? -EINVAL : ref;
	size_t n = strlen(s) < 200 ? strlen(s) : 200;	/* msg is 256 bytes */

	if (ref == -EDOM - ERANGE)
		want = ret == -ERANGE ? -ERANGE : -EINVAL;
	if (ret != want || (!ret && v != rv)) {
		if (ref == -EDOM - ERANGE)
			ref = -EDOM;
		fprintf(stderr, "%s('%s'): got %d/%" PRIu64 ", reference %d/%" PRIu64 "\n",
			fn, s, ret, v, ref, rv);
		abort();
	}
	/* a message names the thing, and the value as typed */
	if (ret && (strncmp(e->msg, "what: invalid value '", 21) ||
		    strncmp(e->msg + 21, s, n) ||
		    e->code != -ret)) {
		fprintf(stderr, "%s('%s'): bad message '%s'\n", fn, s, e->msg);
		abort();
	}
}

static int ref_u64(const char *s, uint64_t *out)
{
	size_t n = strlen(s);
	struct big b;

	memset(&b, 0, sizeof(b));
	if (n && s[n - 1] == '\n')
		n--;
	if (!n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		if (big_mul(&b, 10) || big_add(&b, (uint32_t)(s[i] - '0')))
			return -ERANGE;
	}
	for (int i = 2; i < LIMBS; i++)
		if (b.l[i])
			return -ERANGE;
	*out = (uint64_t)b.l[1] << 32 | b.l[0];
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), buf[64];
	struct bql_err e;
	uint64_t v = 0, rv = 0, x = 0;
	int ret, ref;

	memcpy(s, data, size);
	s[size] = '\0';

	ret = units_parse_u64(s, &v);
	ref = ref_u64(s, &rv);
	/* a digit string that overflows may also end in junk: then either */
	if (ret != ref && !(ret == -ERANGE && ref == -EINVAL)) {
		fprintf(stderr, "units_parse_u64('%s'): got %d, reference %d\n", s, ret, ref);
		abort();
	}
	if (!ret && v != rv)
		abort();

	for (int mw = 0; mw < 2; mw++) {
		uint64_t max_word = mw ? 1879048192 : 0;

		memset(&e, 0, sizeof(e));
		v = rv = 0;
		ret = units_parse_bytes("what", s, max_word, &v, &e);
		if (max_word && !strcmp(s, "max")) {
			if (ret || v != max_word)
				abort();
			continue;
		}
		ref = *s == '-' ? -EINVAL : ref_parse(s, byte_sfx, N(byte_sfx), 1, &rv);
		compare("units_parse_bytes", s, ret, v, &e, ref, rv);
	}

	memset(&e, 0, sizeof(e));
	v = rv = 0;
	ret = units_parse_ms("what", s, &v, &e);
	ref = *s == '-' ? -EINVAL : ref_parse(s, ms_sfx, N(ms_sfx), 0, &rv);
	compare("units_parse_ms", s, ret, v, &e, ref, rv);

	memset(&e, 0, sizeof(e));
	v = rv = 0;
	ret = units_parse_sec_ns("what", s, &v, &e);
	ref = *s == '-' ? -EINVAL : ref_parse(s, sec_sfx, N(sec_sfx), 0, &rv);
	if (!ref && rv > UNITS_MAX_INTERVAL_NS)	/* intervals: at most a day */
		ref = -ERANGE;
	compare("units_parse_sec_ns", s, ret, v, &e, ref, rv);

	/* the formatters never overrun and always terminate */
	memcpy(&x, data, size < sizeof(x) ? size : sizeof(x));
	for (size_t n = 1; n <= sizeof(buf); n += 7) {
		if (strlen(units_fmt_bytes(buf, n, x)) >= n ||
		    strlen(units_fmt_ms(buf, n, x)) >= n ||
		    strlen(units_fmt_wire(buf, n, x, x >> 20)) >= n ||
		    strlen(units_fmt_rate(buf, n, (double)x / 7)) >= n)
			abort();
	}
	free(s);
	return 0;
}
