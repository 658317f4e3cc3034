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
 * that every 8-byte load stays inside the buffer. Scanning (fast_scan) reads the queue table
 * only; accepting (accept) checks and advances the parser's state (a
 * queue's time going back is left to the strict parser), so that
 * bqlt_scan() can run ahead in other threads. tests/unit/test_trace.c runs
 * both parsers side by side over every test input and random lines.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "trace.h"
#include "trace_int.h"
#include "dql_util.h"		/* last: poisons the I/O functions */

#define WIN	32	/* bytes a stage may read from its start */
#define HOT	inline __attribute__((always_inline))

/*
 * 1..19 decimal digits at @s -> *@v; returns their count, or 0 for no
 * digit or more than 19 (left to the strict parser). Reads 24 bytes.
 */
static HOT unsigned int fast_u64(const char *s, uint64_t *v)
{
	uint64_t t0 = load8(s) - ONES * '0', t1, t2, nd, hi;
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
	hi = hi * 100000000u + swar_value(t1);
	t2 = load8(s + 16) - ONES * '0';
	nd = nondigit_bytes(t2);
	k = (unsigned int)__builtin_ctzll(nd | 1ull << 63) >> 3;	/* 7: no end */
	if (k > 3)
		return 0;
	*v = k ? hi * bqlt_pow10[k] + swar_prefix(t2, k) : hi;
	return 16 + k;
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
	const struct bqlt_slot *sl;
	uint64_t m, wl;
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
	if (len > BQLT_NAME_MAX || !is_blank(q[len]) || !p->hash)
		return -1;
	*n = len;
	wl = load8(q + len - 8);
	for (unsigned int i = name_slot(p, w0, wl, len); (sl = &p->hash[i])->idx1;
	     i = (i + 1) & p->hash_mask) {
		const char *d;
		size_t k;

		if (sl->w0 != w0 || sl->w1 != wl || sl->len != len || sl->wm != wm)
			continue;
		/* bytes 16..len-9, 8 at a time (the last word may overlap wl) */
		d = p->queues[sl->idx1 - 1].name;
		for (k = 16; k < len - 8 && load8(d + k) == load8(q + k); k += 8)
			;
		if (k >= len - 8)
			return (int)sl->idx1 - 1;
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
	const struct bqlt_slot *sl;
	uint64_t m, wm;
	unsigned int i;
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
	if (!is_blank(q[len]) || !p->hash)
		return -1;
	*n = len;
	/* 16..23 bytes: the words and bytes 8..15 are the name */
	for (i = name_slot(p, w0, w1, len); (sl = &p->hash[i])->idx1; i = (i + 1) & p->hash_mask)
		if (sl->w0 == w0 && sl->w1 == w1 && sl->len == len && sl->wm == wm)
			return (int)sl->idx1 - 1;
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
	const struct bqlt_slot *sl;
	uint64_t w0 = load8(q), w1 = 0, m;
	unsigned int i;
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
	if (!is_blank(q[len]) || !p->hash)
		return -1;
	*n = len;
	/* names of up to 15 bytes: the words are the name (queue_find) */
	for (i = name_slot(p, w0, w1, len); (sl = &p->hash[i])->idx1; i = (i + 1) & p->hash_mask)
		if (sl->w0 == w0 && sl->w1 == w1 && sl->len == len)
			return (int)sl->idx1 - 1;
	return -1;
}

/*
 * The fast path proper, on the line at @q: the end of the line with @f
 * filled (all but @f->jiffies without j=, which bqlt_accept() computes),
 * or NULL to hand the line to the strict parser. Reads @p only: the queue
 * table, which bqlt_scan() callers pass as a clone.
 */
static HOT const char *fast_scan(const struct bqlt_parser *p, const char *q,
				 const char *end, struct bqlt_fast *f)
{
	const char *lim = end - WIN;
	uint64_t t_ns, v, val[4] = { 0 };	/* j= nq= lo= limit= */
	unsigned int k, has = 0;		/* 1 << index of val[] */
	enum bqlt_kind kind;
	size_t n;
	int idx;

	/* t_ns and its blanks */
	k = fast_u64(q, &t_ns);
	if (!k || !is_blank(q[k]))
		return NULL;
	q = skip_blanks(q + k + 1, end);
	/* the queue */
	if (q > lim)
		return NULL;
	idx = fast_queue(p, q, end, &n);
	if (idx < 0)
		return NULL;
	q = skip_blanks(q + n + 1, end);	/* q[n] is the blank */
	/* Q or C, a blank, bytes */
	if (q > lim || !is_blank(q[1]))
		return NULL;
	if (q[0] == 'Q')
		kind = BQLT_Q;
	else if (q[0] == 'C')
		kind = BQLT_C;
	else
		return NULL;
	q = skip_blanks(q + 2, end);
	if (q > lim)
		return NULL;
	k = fast_u64(q, &v);
	if (!k || v > UINT32_MAX || (unsigned char)q[k] > ' ')
		return NULL;
	q += k;
	/*
	 * j=, and for C nq= lo= limit=, then the end of the line. A number
	 * ends at a byte <= ' ': a blank (then a key or the line's end
	 * follows) or the line's end ("\n", "\r\n"); else the strict parser
	 * decides.
	 */
	for (;;) {
		unsigned int slot, klen;
		uint64_t w, x;

		if (*q == '\n') {
			q++;
			break;
		}
		if (!is_blank(*q)) {
			if (q[0] != '\r' || q[1] != '\n')
				return NULL;
			q += 2;
			break;
		}
		q = skip_blanks(q + 1, end);
		if (q > lim)
			return NULL;
		w = load8(q);
		switch (w & 0xFF) {
		case 'j':
			if ((w & 0xFFFF) != 0x3D6A)			/* "j=" */
				return NULL;
			slot = 0, klen = 2;
			break;
		case 'n':
			if ((w & 0xFFFFFF) != 0x3D716E || kind != BQLT_C)	/* "nq=" */
				return NULL;
			slot = 1, klen = 3;
			break;
		case 'l':
			if ((w & 0xFFFFFF) == 0x3D6F6C)			/* "lo=" */
				slot = 2, klen = 3;
			else if ((w & 0xFFFFFFFFFFFFull) == 0x3D74696D696Cull)	/* "limit=" */
				slot = 3, klen = 6;
			else
				return NULL;
			if (kind != BQLT_C)
				return NULL;
			break;
		case '\n':	/* blanks before the line's end */
			q++;
			goto eol;
		case '\r':
			if ((w & 0xFFFF) != 0x0A0D)
				return NULL;
			q += 2;
			goto eol;
		default:
			return NULL;
		}
		if (has & (1u << slot))
			return NULL;
		has |= 1u << slot;
		q += klen;
		k = fast_u64(q, &x);
		if (!k || (unsigned char)q[k] > ' ' || (slot && x > UINT32_MAX))
			return NULL;
		q += k;
		val[slot] = x;
	}
eol:
	f->kind = (uint8_t)kind;
	f->has = (uint8_t)has;	/* val[] is in the order of the BQLT_HAS_* bits */
	f->queue = (uint32_t)idx;
	f->t_ns = t_ns;
	f->jiffies = val[0];
	f->bytes = (uint32_t)v;
	f->nq = (uint32_t)val[1];
	f->lo = (uint32_t)val[2];
	f->limit = (uint32_t)val[3];
	return q;
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

int bqlt_parse_next(struct bqlt_parser *p, const char **pos, const char *end,
		    struct bqlt_rec *rec, struct bql_err *e)
{
	struct bqlt_fast f;
	const char *q;

	if (fast_ok(p, *pos, end) && (q = fast_scan(p, *pos, end, &f)) &&
	    accept(p, &f, rec)) {
		*pos = q;
		return 1;
	}
	return parse_strict(p, pos, end, rec, e);
}

unsigned int bqlt_parse_batch(struct bqlt_parser *p, const char **pos,
			      const char *end, struct bqlt_rec *recs,
			      unsigned int max, int *err, struct bql_err *e)
{
	const char *s = *pos, *q;
	struct bqlt_fast f;
	unsigned int n = 0;
	int ret;

	*err = 0;
	while (n < max && s < end) {
		if (fast_ok(p, s, end) && (q = fast_scan(p, s, end, &f)) &&
		    accept(p, &f, &recs[n])) {
			s = q;
			n++;
			continue;
		}
		ret = parse_strict(p, &s, end, &recs[n], e);
		if (ret < 0) {
			*err = ret;
			break;
		}
		n += (unsigned int)ret;
	}
	*pos = s;
	return n;
}

unsigned int bqlt_scan(const struct bqlt_parser *snap, const char **pos,
		       const char *end, struct bqlt_fast *out, unsigned int max)
{
	const char *s = *pos, *q;
	unsigned int n = 0;

	while (n < max && s < end) {
		struct bqlt_fast *f = &out[n];

		if (fast_ok(snap, s, end) && (q = fast_scan(snap, s, end, f))) {
			f->len = (uint32_t)(q - s);
			s = q;
			n++;
			continue;
		}
		/* a line for the parser: joined to a run of them */
		q = memchr(s, '\n', (size_t)(end - s));
		q = q ? q + 1 : end;
		if (n && !out[n - 1].kind && out[n - 1].len <= UINT32_MAX - (q - s)) {
			out[n - 1].len += (uint32_t)(q - s);
		} else {
			f->kind = 0;
			f->len = (uint32_t)(q - s);
			n++;
		}
		s = q;
	}
	*pos = s;
	return n;
}

int bqlt_accept(struct bqlt_parser *p, const struct bqlt_fast *f,
		struct bqlt_rec *rec)
{
	/* a clone of a later state of the parser would name unknown queues */
	return f->kind && f->queue < p->nqueues && accept(p, f, rec);
}

unsigned int bqlt_accept_run(struct bqlt_parser *p, const struct bqlt_fast *f,
			     unsigned int n, struct bqlt_rec *recs, size_t *len)
{
	unsigned int i;
	size_t l = 0;

	for (i = 0; i < n; i++) {
		if (!f[i].kind || f[i].queue >= p->nqueues || !accept(p, &f[i], &recs[i]))
			break;
		l += f[i].len;
	}
	*len = l;
	return i;
}
