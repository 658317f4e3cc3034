// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqlt_parse_next() and bqlt_parse_batch(): ordinary Q and C record lines
 * parsed in place, a word at a time; everything else, and every line the
 * fast path has any doubt about, goes to the strict parser
 * (bqlt_parse_line), which alone words the errors.
 *
 * The fast path only ever accepts a line that bqlt_parse_line() would
 * accept with the same record, and changes no parser state before it has
 * accepted it, so giving up is always safe. It gives up on: leading
 * blanks, numbers of 20 digits, a queue name not declared, P/S/R
 * records, repeated or unknown keys, 32-bit values out of range, anything
 * but a blank or the line's end after a number, and lines that come
 * within 32 bytes of @end (a long queue name: within its length + 16), so
 * that every 8-byte (or 16-byte) load stays inside the buffer. Scanning
 * (fast_scan) reads the queue table only; accepting (accept) checks and
 * advances the parser's state (a queue's time going back is left to the
 * strict parser), so that bqlt_scan() can run ahead in other threads.
 *
 * The scanner and its loops (trace_fast_loop.h) are compiled twice: for
 * every CPU, and with SSE4.1 numbers where the CPU has it (chosen once at
 * run time). tests/unit/test_trace.c runs both variants beside the
 * strict parser over every test input and random lines.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define BQLT_SIMD	1
#else
#define BQLT_SIMD	0
#endif

#include "trace.h"
#include "trace_int.h"
#include "dql_util.h"		/* last: poisons the I/O functions */

#define WIN	32	/* bytes a stage may read from its start */
#define HOT	inline __attribute__((always_inline))

/*
 * @s holds 16 digits, worth @hi: with up to 3 more (20 are left to the
 * strict parser) -> *@v, their count; else 0.
 */
static HOT unsigned int digits_past16(const char *s, uint64_t hi, uint64_t *v)
{
	uint64_t t = load8(s + 16) - ONES * '0';
	unsigned int k = (unsigned int)__builtin_ctzll(nondigit_bytes(t) | 1ull << 63) >> 3;

	if (k > 3)	/* 7: no end */
		return 0;
	*v = k ? hi * bqlt_pow10[k] + swar_prefix(t, k) : hi;
	return 16 + k;
}

/*
 * 1..19 decimal digits at @s -> *@v; returns their count, or 0 for no
 * digit or more than 19 (left to the strict parser). Reads 24 bytes.
 */
static HOT unsigned int fast_u64(const char *s, uint64_t *v)
{
	uint64_t t0 = load8(s) - ONES * '0', t1, nd, hi;
	unsigned int k;

	nd = nondigit_bytes(t0);
	if (nd) {
		k = (unsigned int)__builtin_ctzll(nd) >> 3;
		*v = k ? swar_prefix(t0, k) : 0;
		return k;
	}
	hi = swar_value(t0);
	t1 = load8(s + 8) - ONES * '0';
	nd = nondigit_bytes(t1);
	if (nd) {
		k = (unsigned int)__builtin_ctzll(nd) >> 3;
		*v = k ? hi * bqlt_pow10[k] + swar_prefix(t1, k) : hi;
		return 8 + k;
	}
	return digits_past16(s, hi * 100000000u + swar_value(t1), v);
}

/* past blanks; reads only below @end */
static const char *__attribute__((noinline))
skip_more(const char *q, const char *end)
{
	while (q < end && is_blank(*q))
		q++;
	return q;
}

/* past the blanks at @q, which is below @end: usually none */
static HOT const char *skip_blanks(const char *q, const char *end)
{
	if (__builtin_expect(!is_blank(*q), 1))
		return q;
	return skip_more(q, end);
}

/*
 * A name of 24..BQLT_NAME_MAX bytes at @q, whose first 24 bytes have no
 * byte below 0x21 (@w0: bytes 0..7, @wm: 8..15): its index, *@n its
 * length, or -1. The slot holds the first 8 bytes, the last 8 and bytes
 * 8..15, which for a longer name leaves the middle to compare with the
 * declared name, which is as long. The name and 16 bytes after it must
 * lie below @end.
 */
static int __attribute__((noinline))
fast_queue_long(const struct bqlt_parser *p, const char *q, const char *end,
		uint64_t w0, uint64_t wm, size_t *n)
{
	const struct bqlt_htab *ht;
	const struct bqlt_slot *sl;
	uint64_t m, wl;
	uint32_t idx1;
	size_t len;

	if ((size_t)(end - q) >= BQLT_NAME_MAX + 24) {	/* no bound to check */
		for (len = 24; !(m = ctl_or_blank_bytes(load8(q + len))); len += 8)
			if (len >= BQLT_NAME_MAX)
				return -1;
	} else {
		for (len = 24;; len += 8) {
			if (len > BQLT_NAME_MAX || (size_t)(end - q) < len + 16)
				return -1;
			if ((m = ctl_or_blank_bytes(load8(q + len))))
				break;
		}
	}
	len += (size_t)__builtin_ctzll(m) >> 3;
	if (len > BQLT_NAME_MAX || !is_blank(q[len]) || !(ht = ht_get(p)))
		return -1;
	*n = len;
	wl = load8(q + len - 8);
	for (unsigned int i = name_slot(ht, w0, wl, len); (idx1 = slot_idx1(sl = &ht->slot[i]));
	     i = (i + 1) & ht->mask) {
		const char *d;
		size_t k;

		if (sl->w0 != w0 || sl->w1 != wl || sl->len != len || sl->wm != wm)
			continue;
		/* bytes 16..len-9, 8 at a time (the last word may overlap wl) */
		d = sl->name;
		for (k = 16; k < len - 8 && load8(d + k) == load8(q + k); k += 8)
			;
		if (k >= len - 8)
			return (int)idx1 - 1;
	}
	return -1;
}

/*
 * fast_queue() of a name whose first 16 bytes (@w0, @w1) have no byte
 * below 0x21: one of 16..23 bytes here, from the words the slot holds,
 * which are the whole name (the declared name is never read); a longer
 * one in fast_queue_long(). Not inlined: short names stay the fast case.
 */
static int __attribute__((noinline))
fast_queue_mid(const struct bqlt_parser *p, const char *q, const char *end,
	       uint64_t w0, uint64_t w1, size_t *n)
{
	const struct bqlt_htab *ht;
	const struct bqlt_slot *sl;
	uint64_t m, wm;
	unsigned int i;
	uint32_t idx1;
	size_t len;

	m = ctl_or_blank_bytes(load8(q + 16));
	if (!m)
		return fast_queue_long(p, q, end, w0, w1, n);
	len = 16 + ((size_t)__builtin_ctzll(m) >> 3);
	wm = 0;
	if (len > 16) {
		wm = w1;
		w1 = load8(q + len - 8);
	}
	if (!is_blank(q[len]) || !(ht = ht_get(p)))
		return -1;
	*n = len;
	/* 16..23 bytes: the words and bytes 8..15 are the name */
	for (i = name_slot(ht, w0, w1, len); (idx1 = slot_idx1(sl = &ht->slot[i])); i = (i + 1) & ht->mask)
		if (sl->w0 == w0 && sl->w1 == w1 && sl->len == len && sl->wm == wm)
			return (int)idx1 - 1;
	return -1;
}

/*
 * The queue name at @q (after blanks), ended by the first byte below
 * 0x21, which must be a blank: its index, *@n its length, or -1 (not
 * declared, or not a plain name: the strict parser decides). 32 bytes
 * from @q are readable. Up to 23 bytes, the words compared are the whole
 * name (as hash_insert() fills the slot: name_words(), and bytes 8..15 of
 * a name of 17 bytes and more), so the declared name is never read.
 */
static HOT int fast_queue(const struct bqlt_parser *p, const char *q,
			  const char *end, size_t *n)
{
	const struct bqlt_htab *ht;
	const struct bqlt_slot *sl;
	uint64_t w0 = load8(q), w1 = 0, m;
	unsigned int i;
	uint32_t idx1;
	size_t len;

	if ((m = ctl_or_blank_bytes(w0))) {
		len = (size_t)__builtin_ctzll(m) >> 3;
		if (!len)
			return -1;
		w0 &= ~0ull >> (64 - 8 * len);
	} else if ((m = ctl_or_blank_bytes(w1 = load8(q + 8)))) {
		len = 8 + ((size_t)__builtin_ctzll(m) >> 3);
		w1 &= ~(~0ull << (8 * (len - 8)));
	} else {
		return fast_queue_mid(p, q, end, w0, w1, n);
	}
	if (!is_blank(q[len]) || !(ht = ht_get(p)))
		return -1;
	*n = len;
	/* names of up to 15 bytes: the words are the name (queue_find) */
	for (i = name_slot(ht, w0, w1, len); (idx1 = slot_idx1(sl = &ht->slot[i])); i = (i + 1) & ht->mask)
		if (sl->w0 == w0 && sl->w1 == w1 && sl->len == len)
			return (int)idx1 - 1;
	return -1;
}

/*
 * The parser takes a scanned record: false if its own state says no (the
 * queue's time goes back: the strict parser words the error); else the
 * state is advanced and @rec filled, as parse_record() does.
 */
static HOT bool accept(struct bqlt_parser *p, const struct bqlt_fast *f,
		       struct bqlt_rec *rec)
{
	struct bqlt_queue_ent *qe = &p->queues[f->queue];

	if (qe->seen && f->t_ns < qe->last_t_ns)
		return false;
	qe->seen = true;
	qe->last_t_ns = f->t_ns;
	p->any_record = true;
	rec->kind = f->kind;
	rec->has = f->has;
	rec->line = ++p->line;
	rec->hz = p->hz;
	rec->queue = f->queue;
	rec->qname = qe->name;
	rec->t_ns = f->t_ns;
	rec->jiffies = (f->has & BQLT_HAS_J) ? f->jiffies : bqlt_jiffies(p, f->t_ns);
	rec->bytes = f->bytes;
	rec->nkv = 0;
	if (f->has) {	/* else stale, as the strict parser leaves them */
		rec->nq = f->nq;
		rec->lo = f->lo;
		rec->limit = f->limit;
	}
	return true;
}

/* any other line: find its end, the strict parser */
static int __attribute__((noinline))
parse_strict(struct bqlt_parser *p, const char **pos, const char *end,
	     struct bqlt_rec *rec, struct bql_err *e)
{
	const char *s = *pos, *nl = memchr(s, '\n', (size_t)(end - s));
	size_t len = nl ? (size_t)(nl - s) + 1 : (size_t)(end - s);

	*pos = s + len;
	return bqlt_parse_line(p, s, len, rec, e);
}

/* a line the fast path may take: a record, with 32 bytes to read */
static HOT bool fast_ok(const struct bqlt_parser *p, const char *s,
			const char *end)
{
	return BQLT_SWAR && p->magic && end - s >= WIN &&
	       (unsigned int)(unsigned char)*s - '0' <= 9;
}

/*
 * fast_ok() for bqlt_scan(), which does not read @p->magic (a shared
 * parser changes it in another thread): no queue is declared before the
 * magic line, so a record whose queue the parser knows at bqlt_accept()
 * comes after it.
 */
static HOT bool scan_ok(const char *s, const char *end)
{
	return BQLT_SWAR && end - s >= WIN && (unsigned int)(unsigned char)*s - '0' <= 9;
}

/* ------------------------------------------------------ the variants */

/* without SIMD: every CPU */
#define V(name)		name##_gen
#define VT
#define FAST_NUM	fast_u64
#include "trace_fast_loop.h"
#undef V
#undef VT
#undef FAST_NUM

#if BQLT_SIMD
/*
 * With SSSE3 and SSE4.1 (every x86-64 CPU since 2008 or so), chosen at
 * run time: numbers of up to 16 digits are read in one go, without a
 * branch on their length (fast_num). The same lines are taken and the
 * same values read:
 * tests/unit/test_trace.c runs both variants over every test input.
 */
#define SIMD_T	__attribute__((target("ssse3,sse4.1")))

/* ralign[k]: pshufb indices that move bytes 0..k-1 to 16-k..15, zeros before */
static const uint8_t ralign[17][16] __attribute__((aligned(16))) = {
	{ 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80 },
	{ 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0 },
	{ 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 1 },
	{ 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 1, 2 },
	{ 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 1, 2, 3 },
	{ 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 1, 2, 3, 4 },
	{ 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 1, 2, 3, 4, 5 },
	{ 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 1, 2, 3, 4, 5, 6 },
	{ 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 1, 2, 3, 4, 5, 6, 7 },
	{ 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 1, 2, 3, 4, 5, 6, 7, 8 },
	{ 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 },
	{ 0x80, 0x80, 0x80, 0x80, 0x80, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 },
	{ 0x80, 0x80, 0x80, 0x80, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 },
	{ 0x80, 0x80, 0x80, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 },
	{ 0x80, 0x80, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 },
	{ 0x80, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14 },
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
};

/*
 * fast_u64(), in one SSE pass for up to 16 digits, without a branch on
 * their count; 17..19 add a look at the next word. Reads 24 bytes.
 */
static HOT SIMD_T unsigned int fast_num(const char *s, uint64_t *v)
{
	const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
	const __m128i d = _mm_sub_epi8(x, _mm_set1_epi8('0'));
	/* bit i: s[i] is a digit (d <= 9 unsigned) */
	unsigned int dm = (unsigned int)_mm_movemask_epi8(
		_mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d));
	unsigned int k = (unsigned int)__builtin_ctz(~dm);	/* 0..16 */
	uint64_t w, hi;
	__m128i t;

	if (__builtin_expect(!k, 0))
		return 0;
	/* the digits right-aligned after zeros: pairs, quads, eights */
	t = _mm_shuffle_epi8(d, _mm_load_si128((const __m128i *)(const void *)ralign[k]));
	t = _mm_maddubs_epi16(t, _mm_setr_epi8(10, 1, 10, 1, 10, 1, 10, 1,
					       10, 1, 10, 1, 10, 1, 10, 1));
	t = _mm_madd_epi16(t, _mm_setr_epi16(100, 1, 100, 1, 100, 1, 100, 1));
	t = _mm_packus_epi32(t, t);
	t = _mm_madd_epi16(t, _mm_setr_epi16(10000, 1, 10000, 1, 10000, 1, 10000, 1));
	w = (uint64_t)_mm_cvtsi128_si64(t);
	hi = (w & 0xFFFFFFFFu) * 100000000u + (w >> 32);
	if (__builtin_expect(k < 16, 1)) {
		*v = hi;
		return k;
	}
	return digits_past16(s, hi, v);
}

#define V(name)		name##_simd
#define VT		SIMD_T
#define FAST_NUM	fast_num
#include "trace_fast_loop.h"
#undef V
#undef VT
#undef FAST_NUM

static int simd_state = -1;	/* -1: not decided yet */

static bool use_simd(void)
{
	int v = __atomic_load_n(&simd_state, __ATOMIC_RELAXED);

	if (__builtin_expect(v < 0, 0)) {
		__builtin_cpu_init();
		v = __builtin_cpu_supports("ssse3") && __builtin_cpu_supports("sse4.1");
		__atomic_store_n(&simd_state, v, __ATOMIC_RELAXED);
	}
	return v;
}

bool bqlt_fast_simd(int on)
{
	if (on >= 0) {
		__builtin_cpu_init();
		__atomic_store_n(&simd_state, on && __builtin_cpu_supports("ssse3") &&
				 __builtin_cpu_supports("sse4.1"), __ATOMIC_RELAXED);
	}
	return use_simd();
}
#define PICK(name, ...)	(use_simd() ? name##_simd(__VA_ARGS__) : name##_gen(__VA_ARGS__))
#else
bool bqlt_fast_simd(int on)
{
	(void)on;
	return false;
}
#define PICK(name, ...)	name##_gen(__VA_ARGS__)
#endif

int bqlt_parse_next(struct bqlt_parser *p, const char **pos, const char *end,
		    struct bqlt_rec *rec, struct bql_err *e)
{
	return PICK(parse_next, p, pos, end, rec, e);
}

unsigned int bqlt_parse_batch(struct bqlt_parser *p, const char **pos,
			      const char *end, struct bqlt_rec *recs,
			      unsigned int max, int *err, struct bql_err *e)
{
	return PICK(parse_batch, p, pos, end, recs, max, err, e);
}

unsigned int bqlt_scan(const struct bqlt_parser *snap, const char **pos,
		       const char *end, struct bqlt_fast *out, unsigned int max)
{
	return PICK(scan, snap, pos, end, out, max);
}

int bqlt_accept(struct bqlt_parser *p, const struct bqlt_fast *f,
		struct bqlt_rec *rec)
{
	size_t len;

	return (int)bqlt_accept_run(p, f, 1, rec, &len);
}

unsigned int bqlt_accept_run(struct bqlt_parser *p, const struct bqlt_fast *f,
			     unsigned int n, struct bqlt_rec *recs, size_t *len)
{
	unsigned int i;
	size_t l = 0;

	for (i = 0; i < n; i++) {
		/* a clone of a later state of the parser would name unknown queues */
		if (!f[i].kind || f[i].queue >= p->nqueues || !accept(p, &f[i], &recs[i]))
			break;
		l += f[i].len;
	}
	*len = l;
	return i;
}
