// SPDX-License-Identifier: GPL-2.0-only
/*
 * The strict bqltrace parser's scanning: tokens, numbers (8 digits at a
 * time where it can), the history words, the messages that quote a bad
 * token, and the conversion of t_ns to jiffies.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "trace.h"
#include "trace_int.h"
#include "dql_util.h"		/* last: poisons the I/O functions */

uint64_t bqlt_ns_to_jiffies(uint64_t t_ns, unsigned int hz)
{
	/*
	 * t = s * 1e9 + r: floor(t * hz / 1e9) = s * hz + floor(r * hz / 1e9)
	 * exactly; r * hz < 1e9 * 2^32 < 2^64, and s * hz wraps mod 2^64 as
	 * the result does.
	 */
	uint64_t s = t_ns / NS_PER_SEC, r = t_ns % NS_PER_SEC;

	return s * hz + r * hz / NS_PER_SEC;
}

/*
 * Fill the jiffies cache with the span of t_ns that has the jiffies of
 * @t_ns: within its second s, the r = t_ns - s * 1e9 with
 * floor(r * hz / 1e9) = jr are ceil(jr * 1e9 / hz) .. ceil((jr + 1) * 1e9 /
 * hz) - 1 (at most 1e9 - 1). jr < hz, so jr * 1e9 < 2^62.
 */
uint64_t bqlt_jiffies_fill(struct bqlt_parser *p, uint64_t t_ns)
{
	uint64_t hz = p->hz, s = t_ns / NS_PER_SEC, r = t_ns % NS_PER_SEC;
	uint64_t jr = r * hz / NS_PER_SEC;
	uint64_t lo = (jr * NS_PER_SEC + hz - 1) / hz;
	uint64_t hi = ((jr + 1) * NS_PER_SEC + hz - 1) / hz;

	if (hi > NS_PER_SEC)
		hi = NS_PER_SEC;
	p->jc_lo = s * NS_PER_SEC + lo;
	p->jc_span = hi - lo;
	p->jc_j = s * hz + jr;
	return p->jc_j;
}

/* ------------------------------------------------------------ messages */

/* a token as quoted in a message: printable, at most SHOW_MAX bytes */
const char *bqlt_show(const char *s, size_t n, char buf[SHOW_MAX + 4])
{
	size_t i, m = n > SHOW_MAX ? SHOW_MAX : n;

	for (i = 0; i < m; i++) {
		unsigned char ch = (unsigned char)s[i];

		buf[i] = (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
	}
	if (m < n)
		memcpy(buf + m, "...", 4);
	else
		buf[m] = '\0';
	return buf;
}

int bqlt_perr(const struct bqlt_parser *p, struct bql_err *e, int code,
		const char *fmt, ...)
{
	char buf[sizeof(e->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return bql_err_set(e, code, "line %" PRIu64 ": %s", p->line, buf);
}

/* ------------------------------------------------------------ scanning */

const uint64_t bqlt_pow10[9] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
};

/* the first blank at or after @s, or @end */
static inline const char *find_blank(const char *s, const char *end)
{
#if BQLT_SWAR
	while (end - s >= 8) {
		uint64_t w = load8(s);
		uint64_t z = zero_bytes(w ^ (ONES * ' ')) | zero_bytes(w ^ (ONES * '\t'));

		if (z)
			return s + (__builtin_ctzll(z) >> 3);
		s += 8;
	}
#endif
	while (s < end && !is_blank(*s))
		s++;
	return s;
}

/*
 * The hot path for record numbers: after blanks, 1..19 digits ending at a
 * blank or the end of the line. Returns false (cursor unchanged) for
 * anything else, which the caller then parses the slow way, with a
 * message on error (20-digit values are valid and also go that way).
 */
bool bqlt_scan_u64(struct cur *c, uint64_t *v)
{
	const char *s = c->p, *start, *end = c->end;
	uint64_t x = 0;

	while (s < end && is_blank(*s))
		s++;
	start = s;
#if BQLT_SWAR
	while (end - s >= 8) {
		/* digit values; bytes after the first non-digit are garbage */
		uint64_t t = load8(s) - ONES * '0';
		uint64_t nd = (t | (t + ONES * (0x80 - 10))) & HIGHS;
		unsigned int k;

		if (!nd) {
			if (s - start + 8 > 19)
				return false;
			x = x * 100000000u + swar_value(t);
			s += 8;
			continue;
		}
		k = (unsigned int)__builtin_ctzll(nd) >> 3;	/* leading digits */
		if (k) {
			if (s - start + k > 19)
				return false;
			/* the k digits to the top bytes: leading zeros below */
			x = x * bqlt_pow10[k] + swar_value(t << (64 - 8 * k));
			s += k;
		}
		goto done;
	}
#endif
	while (s < end && (unsigned int)(unsigned char)*s - '0' <= 9) {
		if (s - start >= 19)
			return false;
		x = x * 10 + (unsigned int)(*s - '0');
		s++;
	}
#if BQLT_SWAR
done:
#endif
	if (s == start || (s < end && !is_blank(*s)))
		return false;
	*v = x;
	c->p = s;
	return true;
}

/* next blank-separated token; false at the end of the line */
bool bqlt_next_tok(struct cur *c, struct tok *t)
{
	const char *s = c->p;

	while (s < c->end && is_blank(*s))
		s++;
	if (s == c->end) {
		c->p = s;
		return false;
	}
	t->s = s;
	s = find_blank(s, c->end);
	t->n = (size_t)(s - t->s);
	c->p = s;
	return true;
}

enum { NUM_OK = 0, NUM_BAD, NUM_BIG };

/* unsigned decimal, digits only, <= @max */
static inline int num_dec(const char *s, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	bool big = false;
	size_t i;

	if (n - 1 < 19) {
		/* the common case: up to 19 digits cannot overflow 64 bits */
		for (i = 0; i < n; i++) {
			unsigned int d = (unsigned int)(unsigned char)s[i] - '0';

			if (d > 9)
				return NUM_BAD;
			v = v * 10 + d;
		}
	} else {
		if (!n)
			return NUM_BAD;
		for (i = 0; i < n; i++) {
			unsigned int d = (unsigned int)(unsigned char)s[i] - '0';

			if (d > 9)
				return NUM_BAD;
			if (v > (UINT64_MAX - d) / 10)
				big = true;
			else
				v = v * 10 + d;
		}
	}
	if (big || v > max)
		return NUM_BIG;
	*out = v;
	return NUM_OK;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "w0,w1,w2,w3", each 1..16 hex digits with an optional 0x */
bool bqlt_parse_history(const char *s, size_t n, uint64_t h[4])
{
	const char *end = s + n;
	int w;

	for (w = 0; w < 4; w++) {
		uint64_t v = 0;
		int digits = 0;

		if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
			s += 2;
		while (s < end && *s != ',') {
			int d = hexval(*s++);

			if (d < 0 || ++digits > 16)
				return false;
			v = v << 4 | (uint64_t)d;
		}
		if (!digits)
			return false;
		h[w] = v;
		if (w < 3) {
			if (s == end)
				return false;
			s++;	/* the comma */
		}
	}
	return s == end;
}

/* the message for a number field that num_dec() refused */
static int __attribute__((noinline, cold))
num_err(const struct bqlt_parser *p, struct bql_err *e, const char *ctx,
	const char *what, const char *s, size_t n, uint64_t max)
{
	char b[SHOW_MAX + 4];
	uint64_t v;

	if (num_dec(s, n, max, &v) == NUM_BIG)
		return bqlt_perr(p, e, ERANGE, "%s: %s %s out of range (max %" PRIu64 ")",
			    ctx, what, bqlt_show(s, n, b), max);
	if (!n)
		return bqlt_perr(p, e, EINVAL, "%s: expected %s, got nothing", ctx, what);
	return bqlt_perr(p, e, EINVAL, "%s: expected %s, got '%s'", ctx, what,
		    bqlt_show(s, n, b));
}

/* a number field, with the message naming @what on failure */
int bqlt_get_num(const struct bqlt_parser *p, struct bql_err *e,
			  const char *ctx, const char *what, const char *s,
			  size_t n, uint64_t max, uint64_t *v)
{
	if (num_dec(s, n, max, v) == NUM_OK)
		return 0;
	*v = 0;		/* num_err() never returns 0; the compiler can't see it */
	return num_err(p, e, ctx, what, s, n, max);
}
