/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to dql/trace*.c: word-at-a-time scanning, the queue-name hash
 * and the jiffies cache, shared by the strict line parser (trace.c) and
 * the fast path for ordinary Q/C records (trace_fast.c).
 */
#ifndef BQLTOOL_DQL_TRACE_INT_H
#define BQLTOOL_DQL_TRACE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "err.h"
#include "trace.h"

#define NS_PER_SEC	1000000000u

/*
 * Scanning 8 bytes at a time (SWAR) needs a little-endian load; elsewhere
 * the fast path is off and every line takes the strict parser.
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BQLT_SWAR	1
#else
#define BQLT_SWAR	0
#endif

#define ONES	0x0101010101010101ull
#define HIGHS	0x8080808080808080ull

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline uint64_t load8(const char *s)
{
	uint64_t w;

	memcpy(&w, s, 8);
	return w;
}

/*
 * High bit of each byte of @v that is zero. Exact up to and including the
 * first zero byte (a borrow may mark bytes above it), which is all that
 * the ctz-based callers look at.
 */
static inline uint64_t zero_bytes(uint64_t v)
{
	return (v - ONES) & ~v & HIGHS;
}

/*
 * High bit of each byte of @w below 0x21 (blanks, control characters):
 * exact up to and including the first one; bytes >= 0x80 are not.
 */
static inline uint64_t ctl_or_blank_bytes(uint64_t w)
{
	return (w - ONES * 0x21) & ~w & HIGHS;
}

/* high bits of the bytes of @w that are blanks (exact up to the first) */
static inline uint64_t blank_bytes(uint64_t w)
{
	return zero_bytes(w ^ (ONES * ' ')) | zero_bytes(w ^ (ONES * '\t'));
}

/*
 * @t = a word minus ONES * '0': high bit of each byte that is not a digit
 * (exact up to and including the first one).
 */
static inline uint64_t nondigit_bytes(uint64_t t)
{
	return (t | (t + ONES * (0x80 - 10))) & HIGHS;
}

/*
 * Eight digit values (0..9, one per byte, the first digit in the lowest
 * byte) -> their decimal value: pairs, then quads, then the eight, each
 * step one multiplication (10 * 2^8 + 1 puts 10 * d0 + d1 in byte 1).
 * Leading zero bytes are leading zeros.
 */
static inline __attribute__((always_inline)) uint64_t swar_value(uint64_t t)
{
	t = (t * (10 * 256 + 1)) >> 8 & 0x00FF00FF00FF00FFull;
	t = (t * (100 * 65536 + 1)) >> 16 & 0x0000FFFF0000FFFFull;
	return (t * (10000 * 4294967296ull + 1)) >> 32;
}

/* the first @k (1..7) digit values of @t as a number */
static inline __attribute__((always_inline)) uint64_t
swar_prefix(uint64_t t, unsigned int k)
{
	return swar_value(t << (64 - 8 * k));
}

extern const uint64_t bqlt_pow10[9];

/*
 * A queue name as two words: the first 8 bytes, and the next up to 8
 * (names of 9..16 bytes) or the last 8 (longer names), zero-padded. Names
 * hold no NUL, so with the length they tell names apart for n <= 16.
 */
static inline void name_words(const char *s, size_t n, uint64_t *w0,
			      uint64_t *w1)
{
	*w0 = 0;
	*w1 = 0;
	if (n >= 8) {
		memcpy(w0, s, 8);
		if (n > 16)
			memcpy(w1, s + n - 8, 8);
		else
			memcpy(w1, s + 8, n - 8);
	} else {
		memcpy(w0, s, n);
	}
}

/* the hash table slot of a name: the top bits of a multiplicative hash */
static inline unsigned int name_slot(const struct bqlt_htab *ht, uint64_t w0,
				     uint64_t w1, size_t n)
{
	uint64_t h = (w0 ^ (w1 * 0x9E3779B97F4A7C15ull) ^ n) * 0xC2B2AE3D27D4EB4Full;

	return (unsigned int)(h >> ht->shift);
}

/*
 * The parser's table and a slot's index + 1 (0: free), as bqlt_scan()
 * in another thread reads them while the parser adds queues: a table is
 * published, and a slot's @idx1 written, after what they hold (trace.c).
 */
static inline const struct bqlt_htab *ht_get(const struct bqlt_parser *p)
{
	return __atomic_load_n(&p->ht, __ATOMIC_ACQUIRE);
}

static inline uint32_t slot_idx1(const struct bqlt_slot *sl)
{
	return __atomic_load_n(&sl->idx1, __ATOMIC_ACQUIRE);
}

/* index of the declared queue @s/@n (words from name_words()), or -1 */
static inline int queue_find(const struct bqlt_parser *p, const char *s,
			     size_t n, uint64_t w0, uint64_t w1)
{
	const struct bqlt_htab *ht = ht_get(p);
	const struct bqlt_slot *sl;
	unsigned int i;
	uint32_t idx1;

	if (!ht)
		return -1;
	for (i = name_slot(ht, w0, w1, n); (idx1 = slot_idx1(sl = &ht->slot[i])); i = (i + 1) & ht->mask) {
		if (sl->w0 == w0 && sl->w1 == w1 && (sl->len & ~BQLT_SLOT_ESC) == n &&
		    (n <= 16 || !memcmp(sl->name, s, n)))
			return (int)idx1 - 1;
	}
	return -1;
}

/* ------------------------------------------------- trace_scan.c */

#define SHOW_MAX	40	/* bytes of a bad token quoted in a message */

struct tok {
	const char *s;
	size_t n;
};

/* the unparsed rest of a line */
struct cur {
	const char *p, *end;
};

/* a token as quoted in a message: printable, at most SHOW_MAX bytes */
const char *bqlt_show(const char *s, size_t n, char buf[SHOW_MAX + 4]);
/* @e = "line N: " + the message; returns -@code */
int bqlt_perr(const struct bqlt_parser *p, struct bql_err *e, int code,
	      const char *fmt, ...) __attribute__((format(__printf__, 4, 5)));
/* next blank-separated token; false at the end of the line */
bool bqlt_next_tok(struct cur *c, struct tok *t);
/*
 * After blanks, 1..19 digits ending at a blank or the end of the line:
 * true with the value; else false, cursor unchanged (the caller then
 * parses the token with bqlt_get_num(), which words the error; 20-digit
 * values are valid and also go that way).
 */
bool bqlt_scan_u64(struct cur *c, uint64_t *v);
/* the number @s/@n, at most @max; else a message naming @what */
int bqlt_get_num(const struct bqlt_parser *p, struct bql_err *e,
		 const char *ctx, const char *what, const char *s, size_t n,
		 uint64_t max, uint64_t *v);
/* "w0,w1,w2,w3", each 1..16 hex digits with an optional 0x */
bool bqlt_parse_history(const char *s, size_t n, uint64_t h[4]);

/* the jiffies of a record at @t_ns without j=: cached per jiffy */
uint64_t bqlt_jiffies_fill(struct bqlt_parser *p, uint64_t t_ns);

static inline uint64_t bqlt_jiffies(struct bqlt_parser *p, uint64_t t_ns)
{
	if (t_ns - p->jc_lo < p->jc_span)
		return p->jc_j;
	return bqlt_jiffies_fill(p, t_ns);
}

#endif
