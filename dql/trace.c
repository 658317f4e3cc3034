// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltrace v1 parser (spec/bqltrace.md): one line in, one record out, with
 * every malformed line reported by number. Hand-written scanning, no
 * sscanf/strtok and no allocation except when a queue is declared.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dql.h"
#include "trace.h"
#include "dql_util.h"		/* last: poisons the I/O functions */

#define NS_PER_SEC	1000000000u
#define SHOW_MAX	40	/* bytes of a bad token quoted in a message */

struct tok {
	const char *s;
	size_t n;
};

struct cur {
	const char *p, *end;
};

/* value ranges / syntaxes of keys */
enum vtype {
	V_U16,
	V_U32,
	V_U32_MAX,	/* u32 or "max" (DQL_MAX_LIMIT), as sysfs bql_set */
	V_U64,
	V_HIST,		/* four comma-separated 64-bit hex words */
};

struct keydesc {
	const char *name;
	enum bqlt_key key;
	enum vtype type;
};

/* queue directive: the first 4; P records: all 6 */
static const struct keydesc set_keys[] = {
	{ "limit_min",	BQLT_K_LIMIT_MIN,	V_U32_MAX },
	{ "limit_max",	BQLT_K_LIMIT_MAX,	V_U32_MAX },
	{ "hold_time",	BQLT_K_HOLD_TIME,	V_U32 },
	{ "stall_thrs",	BQLT_K_STALL_THRS,	V_U32 },
	{ "limit",	BQLT_K_LIMIT,		V_U32_MAX },
	{ "stall_max",	BQLT_K_STALL_MAX,	V_U32 },
};
#define QUEUE_NKEYS	4
#define P_NKEYS		6

/* S records: struct dql fields, in the struct's own types */
static const struct keydesc s_keys[] = {
	{ "limit",		BQLT_S_LIMIT,			V_U32 },
	{ "num_queued",		BQLT_S_NUM_QUEUED,		V_U32 },
	{ "num_completed",	BQLT_S_NUM_COMPLETED,		V_U32 },
	{ "adj_limit",		BQLT_S_ADJ_LIMIT,		V_U32 },
	{ "last_obj_cnt",	BQLT_S_LAST_OBJ_CNT,		V_U32 },
	{ "prev_num_queued",	BQLT_S_PREV_NUM_QUEUED,		V_U32 },
	{ "prev_last_obj_cnt",	BQLT_S_PREV_LAST_OBJ_CNT,	V_U32 },
	{ "prev_ovlimit",	BQLT_S_PREV_OVLIMIT,		V_U32 },
	{ "lowest_slack",	BQLT_S_LOWEST_SLACK,		V_U32 },
	{ "slack_start_time",	BQLT_S_SLACK_START_TIME,	V_U64 },
	{ "min_limit",		BQLT_S_MIN_LIMIT,		V_U32 },
	{ "max_limit",		BQLT_S_MAX_LIMIT,		V_U32 },
	{ "slack_hold_time",	BQLT_S_SLACK_HOLD_TIME,		V_U32 },
	{ "stall_thrs",		BQLT_S_STALL_THRS,		V_U16 },
	{ "stall_max",		BQLT_S_STALL_MAX,		V_U16 },
	{ "stall_cnt",		BQLT_S_STALL_CNT,		V_U64 },
	{ "last_reap",		BQLT_S_LAST_REAP,		V_U64 },
	{ "history_head",	BQLT_S_HISTORY_HEAD,		V_U64 },
	{ "history",		BQLT_S_HISTORY,			V_HIST },
};

#define NKEYS(a)	(sizeof(a) / sizeof((a)[0]))

const char *bqlt_key_name(enum bqlt_key k)
{
	size_t i;

	for (i = 0; i < NKEYS(set_keys); i++)
		if (set_keys[i].key == k)
			return set_keys[i].name;
	for (i = 0; i < NKEYS(s_keys); i++)
		if (s_keys[i].key == k)
			return s_keys[i].name;
	return "?";
}

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

/* ------------------------------------------------------------ messages */

/* a token as quoted in a message: printable, at most SHOW_MAX bytes */
static const char *show(const char *s, size_t n, char buf[SHOW_MAX + 4])
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

static int perr(const struct bqlt_parser *p, struct bql_err *e, int code,
		const char *fmt, ...) __attribute__((format(__printf__, 4, 5)));

static int perr(const struct bqlt_parser *p, struct bql_err *e, int code,
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

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Hot-path scanning, 8 bytes at a time (SWAR) on little-endian machines,
 * byte by byte elsewhere and for the last bytes of a line. Lines are only
 * read within [start, end).
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BQLT_SWAR	1
#else
#define BQLT_SWAR	0
#endif

#define ONES	0x0101010101010101ull
#define HIGHS	0x8080808080808080ull

static inline uint64_t load8(const char *s)
{
	uint64_t w;

	memcpy(&w, s, 8);
	return w;
}

/* high bit of each byte of @v that is zero (exact up to the first one) */
static inline uint64_t zero_bytes(uint64_t v)
{
	return (v - ONES) & ~v & HIGHS;
}

/*
 * Eight digit values (0..9, one per byte, the first digit in the lowest
 * byte) -> their decimal value.
 */
static inline uint64_t swar_value(uint64_t t)
{
	t = (t * 10 + (t >> 8)) & 0x00FF00FF00FF00FFull;
	t = (t * 100 + (t >> 16)) & 0x0000FFFF0000FFFFull;
	return (t * 10000 + (t >> 32)) & 0xFFFFFFFFull;
}

static const uint64_t pow10[9] = {
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
static inline bool scan_u64(struct cur *c, uint64_t *v)
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
			x = x * pow10[k] + swar_value(t << (64 - 8 * k));
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
static inline bool next_tok(struct cur *c, struct tok *t)
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
static bool parse_history(const char *s, size_t n, uint64_t h[4])
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
		return perr(p, e, ERANGE, "%s: %s %s out of range (max %" PRIu64 ")",
			    ctx, what, show(s, n, b), max);
	if (!n)
		return perr(p, e, EINVAL, "%s: expected %s, got nothing", ctx, what);
	return perr(p, e, EINVAL, "%s: expected %s, got '%s'", ctx, what,
		    show(s, n, b));
}

/* a number field, with the message naming @what on failure */
static inline int get_num(const struct bqlt_parser *p, struct bql_err *e,
			  const char *ctx, const char *what, const char *s,
			  size_t n, uint64_t max, uint64_t *v)
{
	if (num_dec(s, n, max, v) == NUM_OK)
		return 0;
	*v = 0;		/* num_err() never returns 0; the compiler can't see it */
	return num_err(p, e, ctx, what, s, n, max);
}

static uint64_t vmax(enum vtype t)
{
	switch (t) {
	case V_U16:
		return UINT16_MAX;
	case V_U64:
		return UINT64_MAX;
	default:
		return UINT32_MAX;
	}
}

/* ------------------------------------------------------------ queues */

/*
 * Queue names differ mostly at their end ("eth0:tx-3"): hash the last
 * (up to) 8 bytes and the length, one multiplication.
 */
static inline uint32_t name_hash(const char *s, size_t n)
{
	uint64_t w = 0;

	if (n >= 8)
		memcpy(&w, s + n - 8, 8);
	else
		memcpy(&w, s, n);
	return (uint32_t)(((w ^ n) * 0x9E3779B97F4A7C15ull) >> 32);
}

static inline bool name_eq(const struct bqlt_queue_ent *q, const char *s,
			   size_t n)
{
	if (q->len != n)
		return false;
	if (n >= 8 && n <= 16)	/* the usual "eth0:tx-3": two overlapping words */
		return load8(q->name + n - 8) == load8(s + n - 8) &&
		       load8(q->name) == load8(s);
	return !memcmp(q->name, s, n);
}

static int lookup(struct bqlt_parser *p, const char *s, size_t n)
{
	const struct bqlt_queue_ent *q;
	unsigned int i, idx;

	if (p->nqueues) {
		q = &p->queues[p->last];
		if (name_eq(q, s, n))
			return (int)p->last;
	} else {
		return -1;
	}
	for (i = name_hash(s, n) & p->hash_mask; (idx = p->hash[i]); i = (i + 1) & p->hash_mask) {
		q = &p->queues[idx - 1];
		if (name_eq(q, s, n)) {
			p->last = idx - 1;
			return (int)(idx - 1);
		}
	}
	return -1;
}

static void hash_insert(struct bqlt_parser *p, unsigned int idx)
{
	const struct bqlt_queue_ent *q = &p->queues[idx];
	unsigned int i = name_hash(q->name, q->len) & p->hash_mask;

	while (p->hash[i])
		i = (i + 1) & p->hash_mask;
	p->hash[i] = idx + 1;
}

/* append a queue; the only allocations of the parser */
static int add_queue(struct bqlt_parser *p, struct bql_err *e, const char *s,
		     size_t n)
{
	struct bqlt_queue_ent *q;
	unsigned int i;

	if (p->nqueues == p->cap) {
		unsigned int cap = p->cap ? p->cap * 2 : 8;

		q = realloc(p->queues, cap * sizeof(*q));
		if (!q)
			return perr(p, e, ENOMEM, "queue: out of memory");
		p->queues = q;
		p->cap = cap;
	}
	if ((p->nqueues + 1) * 2 > p->hash_mask + 1 || !p->hash) {
		unsigned int size = p->hash ? (p->hash_mask + 1) * 2 : 16;
		unsigned int *h = calloc(size, sizeof(*h));

		if (!h)
			return perr(p, e, ENOMEM, "queue: out of memory");
		free(p->hash);
		p->hash = h;
		p->hash_mask = size - 1;
		for (i = 0; i < p->nqueues; i++)
			hash_insert(p, i);
	}
	q = &p->queues[p->nqueues];
	q->name = malloc(n + 1);
	if (!q->name)
		return perr(p, e, ENOMEM, "queue: out of memory");
	memcpy(q->name, s, n);
	q->name[n] = '\0';
	q->len = n;
	q->decl_line = p->line;
	q->last_t_ns = 0;
	q->seen = false;
	hash_insert(p, p->nqueues);
	return (int)p->nqueues++;
}

/* ------------------------------------------------------------ key=value */

/*
 * One key=value token into rec->kv, checking the key against @keys[0..n),
 * duplicates (@seen bitmask over enum bqlt_key) and the value's range.
 */
static int parse_kv(const struct bqlt_parser *p, struct bql_err *e,
		    const char *ctx, const struct keydesc *keys, size_t nkeys,
		    const struct tok *t, uint64_t *seen, struct bqlt_rec *rec)
{
	const char *eq = memchr(t->s, '=', t->n);
	const struct keydesc *k = NULL;
	size_t kn, vn, i;
	const char *v;
	char b[SHOW_MAX + 4];
	uint64_t val = 0;
	int ret;

	if (!eq)
		return perr(p, e, EINVAL, "%s: expected key=value, got '%s'",
			    ctx, show(t->s, t->n, b));
	kn = (size_t)(eq - t->s);
	v = eq + 1;
	vn = t->n - kn - 1;
	for (i = 0; i < nkeys; i++) {
		if (strlen(keys[i].name) == kn && !memcmp(keys[i].name, t->s, kn)) {
			k = &keys[i];
			break;
		}
	}
	if (!k)
		return perr(p, e, EINVAL, "%s: unknown key '%s'", ctx,
			    show(t->s, kn, b));
	if (*seen & (1ull << k->key))
		return perr(p, e, EINVAL, "%s: duplicate key '%s'", ctx, k->name);
	*seen |= 1ull << k->key;

	if (k->type == V_HIST) {
		if (!parse_history(v, vn, rec->history))
			return perr(p, e, EINVAL,
				    "%s: history: expected four comma-separated hex words, got '%s'",
				    ctx, show(v, vn, b));
	} else if (k->type == V_U32_MAX && vn == 3 && !memcmp(v, "max", 3)) {
		val = DQL_MAX_LIMIT;
	} else {
		ret = get_num(p, e, ctx, k->name, v, vn, vmax(k->type), &val);
		if (ret)
			return ret;
	}
	rec->kv[rec->nkv].key = k->key;
	rec->kv[rec->nkv].val = val;
	rec->nkv++;
	return 0;
}

/* ------------------------------------------------------------ lines */

static int parse_magic(struct bqlt_parser *p, struct cur *c,
		       const struct tok *t, struct bql_err *e)
{
	char b[SHOW_MAX + 4];
	struct tok v;

	if (t->n != 8 || memcmp(t->s, "bqltrace", 8))
		return perr(p, e, EINVAL,
			    "expected the magic line 'bqltrace %d', got '%s'",
			    BQLT_VERSION, show(t->s, t->n, b));
	if (!next_tok(c, &v))
		return perr(p, e, EINVAL, "magic line: expected a version after 'bqltrace'");
	if (v.n != 1 || v.s[0] != '0' + BQLT_VERSION)
		return perr(p, e, EINVAL,
			    "unsupported bqltrace version '%s' (this bqltool reads version %d)",
			    show(v.s, v.n, b), BQLT_VERSION);
	if (next_tok(c, &v))
		return perr(p, e, EINVAL, "magic line: unexpected '%s'",
			    show(v.s, v.n, b));
	p->magic = true;
	return 0;
}

static int parse_hz(struct bqlt_parser *p, struct cur *c, struct bqlt_rec *rec,
		    struct bql_err *e)
{
	char b[SHOW_MAX + 4];
	struct tok t;
	uint64_t hz;
	int ret;

	if (p->hz_line)
		return perr(p, e, EINVAL, "hz: given twice (first at line %" PRIu64 ")",
			    p->hz_line);
	if (p->any_record)
		return perr(p, e, EINVAL, "hz: must come before the first record");
	if (!next_tok(c, &t))
		return perr(p, e, EINVAL, "hz: expected a positive integer, got nothing");
	ret = get_num(p, e, "hz", "a positive integer", t.s, t.n, UINT32_MAX, &hz);
	if (ret)
		return ret;
	if (!hz)
		return perr(p, e, EINVAL, "hz: must be a positive integer, got 0");
	if (next_tok(c, &t))
		return perr(p, e, EINVAL, "hz: unexpected '%s'", show(t.s, t.n, b));
	p->hz_line = p->line;
	if (!p->hz_override)
		p->hz = (unsigned int)hz;
	rec->kind = BQLT_HZ;
	rec->hz = p->hz;
	return 1;
}

static int parse_queue(struct bqlt_parser *p, struct cur *c,
		       struct bqlt_rec *rec, struct bql_err *e)
{
	char b[SHOW_MAX + 4];
	uint64_t seen = 0;
	struct tok t;
	size_t i;
	int idx, ret;

	if (!next_tok(c, &t))
		return perr(p, e, EINVAL, "queue: expected a queue name, got nothing");
	for (i = 0; i < t.n; i++) {
		unsigned char ch = (unsigned char)t.s[i];

		if (ch < 0x20 || ch == 0x7f || ch == '=')
			return perr(p, e, EINVAL,
				    "queue: expected a queue name, got '%s'",
				    show(t.s, t.n, b));
	}
	if (t.n > BQLT_NAME_MAX)
		return perr(p, e, EINVAL, "queue: name '%s' longer than %d bytes",
			    show(t.s, t.n, b), BQLT_NAME_MAX);
	idx = lookup(p, t.s, t.n);
	if (idx >= 0)
		return perr(p, e, EINVAL,
			    "queue %s: declared twice (first at line %" PRIu64 ")",
			    p->queues[idx].name, p->queues[idx].decl_line);

	rec->nkv = 0;
	{
		char ctx[BQLT_NAME_MAX + 8];
		struct tok name = t;

		snprintf(ctx, sizeof(ctx), "queue %.*s", (int)name.n, name.s);
		while (next_tok(c, &t)) {
			ret = parse_kv(p, e, ctx, set_keys, QUEUE_NKEYS, &t, &seen, rec);
			if (ret)
				return ret;
		}
		idx = add_queue(p, e, name.s, name.n);
		if (idx < 0)
			return idx;
	}
	rec->kind = BQLT_QUEUE;
	rec->hz = p->hz;
	rec->queue = (unsigned int)idx;
	rec->qname = p->queues[idx].name;
	return 1;
}

static const char *const kind_ctx[] = {
	[BQLT_Q] = "Q record", [BQLT_C] = "C record", [BQLT_P] = "P record",
	[BQLT_S] = "S record", [BQLT_R] = "R record",
};

/* a number token at the cursor: the fast scan, else parse it with messages */
static inline __attribute__((always_inline)) int rec_num(const struct bqlt_parser *p, struct cur *c,
			  struct bql_err *e, const char *ctx, const char *what,
			  uint64_t max, uint64_t *v)
{
	struct cur start = *c;
	struct tok t;

	if (scan_u64(c, v) && *v <= max)
		return 0;
	*c = start;
	if (!next_tok(c, &t))
		return perr(p, e, EINVAL, "%s: expected %s, got nothing", ctx, what);
	return get_num(p, e, ctx, what, t.s, t.n, max, v);
}

/*
 * j=, and for C records nq=/lo=/limit=, at the cursor (after blanks):
 * 1 (parsed, cursor after the value), 0 (something else: cursor
 * unchanged) or an error.
 */
static int parse_rec_key(const struct bqlt_parser *p, struct bql_err *e,
			 enum bqlt_kind kind, struct cur *c,
			 struct bqlt_rec *rec)
{
	const char *ctx = kind_ctx[kind], *k = c->p;
	size_t rem = (size_t)(c->end - k), kn;
	uint64_t v, max = UINT32_MAX;
	const char *name;
	unsigned int bit;
	int ret;

	if (rem >= 2 && k[0] == 'j' && k[1] == '=') {
		bit = BQLT_HAS_J, name = "j", max = UINT64_MAX, kn = 1;
	} else if (kind != BQLT_C) {
		return 0;
	} else if (rem >= 3 && k[2] == '=' && k[0] == 'n' && k[1] == 'q') {
		bit = BQLT_HAS_NQ, name = "nq", kn = 2;
	} else if (rem >= 3 && k[2] == '=' && k[0] == 'l' && k[1] == 'o') {
		bit = BQLT_HAS_LO, name = "lo", kn = 2;
	} else if (rem >= 6 && !memcmp(k, "limit=", 6)) {
		bit = BQLT_HAS_LIMIT, name = "limit", kn = 5;
	} else {
		return 0;
	}
	if (rec->has & bit)
		return perr(p, e, EINVAL, "%s: duplicate key '%s'", ctx, name);
	c->p = k + kn + 1;
	if (c->p == c->end || is_blank(*c->p))
		return perr(p, e, EINVAL, "%s: expected %s, got nothing", ctx, name);
	ret = rec_num(p, c, e, ctx, name, max, &v);
	if (ret)
		return ret;
	rec->has |= bit;
	switch (bit) {
	case BQLT_HAS_J:
		rec->jiffies = v;
		break;
	case BQLT_HAS_NQ:
		rec->nq = (uint32_t)v;
		break;
	case BQLT_HAS_LO:
		rec->lo = (uint32_t)v;
		break;
	default:
		rec->limit = (uint32_t)v;
		break;
	}
	return 1;
}

/* a record line, the cursor at its first token (which starts with a digit) */
static int parse_record(struct bqlt_parser *p, struct cur *c,
			struct bqlt_rec *rec, struct bql_err *e)
{
	char b[SHOW_MAX + 4];
	struct bqlt_queue_ent *q;
	enum bqlt_kind kind;
	uint64_t t_ns, v, seen = 0;
	struct tok t;
	const char *ctx;
	int idx, ret;

	ret = rec_num(p, c, e, "record", "t_ns (unsigned 64-bit nanoseconds)",
		      UINT64_MAX, &t_ns);
	if (ret)
		return ret;
	if (!next_tok(c, &t))
		return perr(p, e, EINVAL, "record: expected a queue name after t_ns");
	idx = lookup(p, t.s, t.n);
	if (idx < 0)
		return perr(p, e, EINVAL, "record: queue '%s' is not declared",
			    show(t.s, t.n, b));
	q = &p->queues[idx];
	if (!next_tok(c, &t))
		return perr(p, e, EINVAL,
			    "record: expected a record type (Q, C, P, S or R), got nothing");
	kind = 0;
	if (t.n == 1) {
		switch (t.s[0]) {
		case 'Q': kind = BQLT_Q; break;
		case 'C': kind = BQLT_C; break;
		case 'P': kind = BQLT_P; break;
		case 'S': kind = BQLT_S; break;
		case 'R': kind = BQLT_R; break;
		}
	}
	if (!kind)
		return perr(p, e, EINVAL,
			    "record: expected a record type (Q, C, P, S or R), got '%s'",
			    show(t.s, t.n, b));
	ctx = kind_ctx[kind];
	rec->has = 0;
	rec->nkv = 0;
	if (kind == BQLT_Q || kind == BQLT_C) {
		ret = rec_num(p, c, e, ctx, "bytes", UINT32_MAX, &v);
		if (ret)
			return ret;
		rec->bytes = (uint32_t)v;
	} else {
		rec->bytes = 0;
	}
	for (;;) {
		while (c->p < c->end && is_blank(*c->p))
			c->p++;
		if (c->p == c->end)
			break;
		ret = parse_rec_key(p, e, kind, c, rec);
		if (ret < 0)
			return ret;
		if (ret)
			continue;
		next_tok(c, &t);
		if (kind == BQLT_P)
			ret = parse_kv(p, e, ctx, set_keys, P_NKEYS, &t, &seen, rec);
		else if (kind == BQLT_S)
			ret = parse_kv(p, e, ctx, s_keys, NKEYS(s_keys), &t, &seen, rec);
		else if (memchr(t.s, '=', t.n))
			ret = perr(p, e, EINVAL, "%s: unknown key '%s'", ctx,
				   show(t.s, (size_t)((const char *)memchr(t.s, '=', t.n) - t.s), b));
		else
			ret = perr(p, e, EINVAL, "%s: unexpected '%s'", ctx,
				   show(t.s, t.n, b));
		if (ret)
			return ret;
	}
	if ((kind == BQLT_P || kind == BQLT_S) && !rec->nkv)
		return perr(p, e, EINVAL, "%s: expected at least one key=value", ctx);
	if (q->seen && t_ns < q->last_t_ns)
		return perr(p, e, EINVAL,
			    "%s: t_ns %" PRIu64 " goes back in time (queue %s was at %" PRIu64 ")",
			    ctx, t_ns, q->name, q->last_t_ns);
	q->seen = true;
	q->last_t_ns = t_ns;
	p->any_record = true;

	rec->kind = kind;
	rec->hz = p->hz;
	rec->queue = (unsigned int)idx;
	rec->qname = q->name;
	rec->t_ns = t_ns;
	if (!(rec->has & BQLT_HAS_J))
		rec->jiffies = bqlt_ns_to_jiffies(t_ns, p->hz);
	return 1;
}

int bqlt_parse_line(struct bqlt_parser *p, const char *line, size_t len,
		    struct bqlt_rec *rec, struct bql_err *e)
{
	char b[SHOW_MAX + 4];
	struct cur c;
	struct tok t;
	int ret;

	p->line++;
	if (len && line[len - 1] == '\n')
		len--;
	if (len && line[len - 1] == '\r')
		len--;
	c.p = line;
	c.end = line + len;
	while (c.p < c.end && is_blank(*c.p))
		c.p++;
	if (c.p == c.end || *c.p == '#')
		return 0;
	rec->line = p->line;
	if (p->magic && (unsigned int)(unsigned char)*c.p - '0' <= 9)
		return parse_record(p, &c, rec, e);
	if (!next_tok(&c, &t))
		return 0;	/* not reached: the line has a token */
	if (!p->magic) {
		ret = parse_magic(p, &c, &t, e);
		return ret < 0 ? ret : 0;
	}
	if (t.n == 2 && !memcmp(t.s, "hz", 2))
		return parse_hz(p, &c, rec, e);
	if (t.n == 5 && !memcmp(t.s, "queue", 5))
		return parse_queue(p, &c, rec, e);
	if (t.n == 8 && !memcmp(t.s, "bqltrace", 8))
		return perr(p, e, EINVAL, "magic line repeated");
	return perr(p, e, EINVAL, "unknown directive '%s'", show(t.s, t.n, b));
}

int bqlt_parse_end(struct bqlt_parser *p, struct bql_err *e)
{
	if (!p->magic && !p->line)
		return bql_err_set(e, EINVAL,
				   "empty input: not a bqltrace (no 'bqltrace %d' magic line)",
				   BQLT_VERSION);
	if (!p->magic)
		return bql_err_set(e, EINVAL,
				   "line %" PRIu64 ": not a bqltrace: no 'bqltrace %d' magic line",
				   p->line, BQLT_VERSION);
	return 0;
}

void bqlt_parser_init(struct bqlt_parser *p, unsigned int hz_override)
{
	memset(p, 0, sizeof(*p));
	p->hz_override = hz_override;
	p->hz = hz_override ? hz_override : BQLT_DEFAULT_HZ;
}

void bqlt_parser_free(struct bqlt_parser *p)
{
	unsigned int i;

	for (i = 0; i < p->nqueues; i++)
		free(p->queues[i].name);
	free(p->queues);
	free(p->hash);
	memset(p, 0, sizeof(*p));
}

unsigned int bqlt_queue_count(const struct bqlt_parser *p)
{
	return p->nqueues;
}

const char *bqlt_queue_name(const struct bqlt_parser *p, unsigned int idx)
{
	return idx < p->nqueues ? p->queues[idx].name : NULL;
}
