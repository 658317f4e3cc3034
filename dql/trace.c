// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltrace v1 parser (spec/bqltrace.md): one line in, one record out, with
 * every malformed line reported by number; the queue table. Hand-written
 * scanning (trace_scan.c), no sscanf/strtok and no allocation except when
 * a queue is declared. Ordinary Q/C records take the fast path of
 * trace_fast.c, which falls back to this parser for anything else.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dql.h"
#include "trace.h"
#include "trace_int.h"
#include "dql_util.h"		/* last: poisons the I/O functions */

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

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/*
 * A queue name as written, @s/@n, into @out (BQLT_NAME_MAX + 1 bytes): a
 * "\xHH" (two hex digits) is the byte 0xHH, any other backslash is
 * itself (names written before escapes existed read as they did). The
 * length, or -1: longer than BQLT_NAME_MAX once decoded, -2: a NUL byte.
 */
static int name_decode(const char *s, size_t n, char *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		int hi, lo;

		if (c == '\\' && i + 3 < n && s[i + 1] == 'x' &&
		    (hi = hexval(s[i + 2])) >= 0 && (lo = hexval(s[i + 3])) >= 0) {
			c = (char)(hi << 4 | lo);
			if (!c)
				return -2;
			i += 3;
		}
		if (k == BQLT_NAME_MAX)
			return -1;
		out[k++] = c;
	}
	out[k] = '\0';
	return (int)k;
}

/* the queue named @s/@n (decoded), or -1 */
static int lookup(const struct bqlt_parser *p, const char *s, size_t n)
{
	uint64_t w0, w1;

	name_words(s, n, &w0, &w1);
	return queue_find(p, s, n, w0, w1);
}

/* the queue a record's token @s/@n names, escapes and all, or -1 */
static int lookup_tok(const struct bqlt_parser *p, const char *s, size_t n)
{
	char name[BQLT_NAME_MAX + 1];
	int k;

	if (!memchr(s, '\\', n))
		return lookup(p, s, n);
	k = name_decode(s, n, name);	/* escapes: the name they spell */
	return k < 0 ? -1 : lookup(p, name, (size_t)k);
}

/* a table of @size slots (a power of two), all free */
static struct bqlt_htab *ht_new(unsigned int size)
{
	struct bqlt_htab *ht = calloc(1, sizeof(*ht) + (size_t)size * sizeof(ht->slot[0]));

	if (!ht)
		return NULL;
	ht->mask = size - 1;
	ht->shift = 64 - (unsigned int)__builtin_ctz(size);
	return ht;
}

/*
 * Fill a free slot of @ht for queue @idx, its index last: a scan in
 * another thread that sees the index sees the rest.
 */
static void hash_insert(struct bqlt_htab *ht, const struct bqlt_queue_ent *q,
			unsigned int idx)
{
	struct bqlt_slot *sl;
	uint64_t w0, w1, wm = 0;
	unsigned int i;

	name_words(q->name, q->len, &w0, &w1);
	if (q->len > 16)	/* lets the fast path compare most names in the slot */
		memcpy(&wm, q->name + 8, 8);
	i = name_slot(ht, w0, w1, q->len);
	while (ht->slot[i].idx1)
		i = (i + 1) & ht->mask;
	sl = &ht->slot[i];
	sl->w0 = w0;
	sl->w1 = w1;
	sl->wm = wm;
	sl->name = q->name;
	/*
	 * A name with a backslash: a record's token of the same bytes may
	 * be an escape that spells another name, so the fast path, which
	 * compares bytes as written, must never match it (the flag makes the
	 * lengths differ); lookup() decodes first and masks it
	 */
	sl->len = (uint32_t)q->len | (memchr(q->name, '\\', q->len) ? BQLT_SLOT_ESC : 0);
	__atomic_store_n(&sl->idx1, idx + 1, __ATOMIC_RELEASE);
}

/*
 * Replace the table with one twice as big (the first: 64 slots), filled
 * before it is published. The old one is freed, or, while scans may read
 * it (bqlt_parser_share()), kept until bqlt_parser_reclaim().
 */
static int hash_grow(struct bqlt_parser *p)
{
	struct bqlt_htab *old = p->ht, *ht = ht_new(old ? (old->mask + 1) * 2 : 64);
	unsigned int i;

	if (!ht)
		return -ENOMEM;
	for (i = 0; i < p->nqueues; i++)
		hash_insert(ht, &p->queues[i], i);
	__atomic_store_n(&p->ht, ht, __ATOMIC_RELEASE);
	if (!old)
		return 0;
	if (!p->shared) {
		free(old);
		return 0;
	}
	old->gen = p->gen + 1;
	old->next = p->retired;
	p->retired = old;
	/* after the new table is published: a scan that sees gen sees it */
	__atomic_store_n(&p->gen, p->gen + 1, __ATOMIC_RELEASE);
	return 0;
}

/* append a queue; the only allocations of the parser */
static int add_queue(struct bqlt_parser *p, struct bql_err *e, const char *s,
		     size_t n)
{
	struct bqlt_queue_ent *q;

	if (p->nqueues == p->cap) {
		unsigned int cap = p->cap ? p->cap * 2 : 8;

		q = realloc(p->queues, cap * sizeof(*q));
		if (!q)
			return bqlt_perr(p, e, ENOMEM, "queue: out of memory");
		p->queues = q;
		p->cap = cap;
	}
	if (!p->ht || (p->nqueues + 1) * 2 > p->ht->mask + 1) {
		if (hash_grow(p))
			return bqlt_perr(p, e, ENOMEM, "queue: out of memory");
	}
	q = &p->queues[p->nqueues];
	q->name = malloc(n + 1);
	if (!q->name)
		return bqlt_perr(p, e, ENOMEM, "queue: out of memory");
	memcpy(q->name, s, n);
	q->name[n] = '\0';
	q->len = n;
	q->decl_line = p->line;
	q->last_t_ns = 0;
	q->seen = false;
	hash_insert(p->ht, q, p->nqueues);
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
		return bqlt_perr(p, e, EINVAL, "%s: expected key=value, got '%s'",
			    ctx, bqlt_show(t->s, t->n, b));
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
		return bqlt_perr(p, e, EINVAL, "%s: unknown key '%s'", ctx,
			    bqlt_show(t->s, kn, b));
	if (*seen & (1ull << k->key))
		return bqlt_perr(p, e, EINVAL, "%s: duplicate key '%s'", ctx, k->name);
	*seen |= 1ull << k->key;

	if (k->type == V_HIST) {
		if (!bqlt_parse_history(v, vn, rec->history))
			return bqlt_perr(p, e, EINVAL,
				    "%s: history: expected four comma-separated hex words, got '%s'",
				    ctx, bqlt_show(v, vn, b));
	} else if (k->type == V_U32_MAX && vn == 3 && !memcmp(v, "max", 3)) {
		val = DQL_MAX_LIMIT;
	} else {
		ret = bqlt_get_num(p, e, ctx, k->name, v, vn, vmax(k->type), &val);
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
		return bqlt_perr(p, e, EINVAL,
			    "expected the magic line 'bqltrace %d', got '%s'",
			    BQLT_VERSION, bqlt_show(t->s, t->n, b));
	if (!bqlt_next_tok(c, &v))
		return bqlt_perr(p, e, EINVAL, "magic line: expected a version after 'bqltrace'");
	if (v.n != 1 || v.s[0] != '0' + BQLT_VERSION)
		return bqlt_perr(p, e, EINVAL,
			    "unsupported bqltrace version '%s' (this bqltool reads version %d)",
			    bqlt_show(v.s, v.n, b), BQLT_VERSION);
	if (bqlt_next_tok(c, &v))
		return bqlt_perr(p, e, EINVAL, "magic line: unexpected '%s'",
			    bqlt_show(v.s, v.n, b));
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
		return bqlt_perr(p, e, EINVAL, "hz: given twice (first at line %" PRIu64 ")",
			    p->hz_line);
	if (p->any_record)
		return bqlt_perr(p, e, EINVAL, "hz: must come before the first record");
	if (!bqlt_next_tok(c, &t))
		return bqlt_perr(p, e, EINVAL, "hz: expected a positive integer, got nothing");
	ret = bqlt_get_num(p, e, "hz", "a positive integer", t.s, t.n, UINT32_MAX, &hz);
	if (ret)
		return ret;
	if (!hz)
		return bqlt_perr(p, e, EINVAL, "hz: must be a positive integer, got 0");
	if (bqlt_next_tok(c, &t))
		return bqlt_perr(p, e, EINVAL, "hz: unexpected '%s'", bqlt_show(t.s, t.n, b));
	p->hz_line = p->line;
	p->trace_hz = (unsigned int)hz;
	if (!p->hz_override) {
		p->hz = (unsigned int)hz;
		p->jc_span = 0;		/* the jiffies cache was for the old HZ */
	}
	rec->kind = BQLT_HZ;
	rec->hz = p->hz;
	return 1;
}

static int parse_queue(struct bqlt_parser *p, struct cur *c,
		       struct bqlt_rec *rec, struct bql_err *e)
{
	char b[SHOW_MAX + 4], nm[BQLT_NAME_MAX + 1];
	uint64_t seen = 0;
	struct tok t;
	size_t i;
	int idx, ret, nlen;

	if (!bqlt_next_tok(c, &t))
		return bqlt_perr(p, e, EINVAL, "queue: expected a queue name, got nothing");
	for (i = 0; i < t.n; i++) {
		unsigned char ch = (unsigned char)t.s[i];

		if (ch < 0x20 || ch == 0x7f || ch == '=')
			return bqlt_perr(p, e, EINVAL,
				    "queue: expected a queue name, got '%s'",
				    bqlt_show(t.s, t.n, b));
	}
	nlen = name_decode(t.s, t.n, nm);
	if (nlen == -2)
		return bqlt_perr(p, e, EINVAL, "queue: name '%s': a NUL byte (escape 00) cannot be in a name",
			    bqlt_show(t.s, t.n, b));
	if (nlen < 0)
		return bqlt_perr(p, e, EINVAL, "queue: name '%s' longer than %d bytes",
			    bqlt_show(t.s, t.n, b), BQLT_NAME_MAX);
	idx = lookup(p, nm, (size_t)nlen);
	if (idx >= 0)
		return bqlt_perr(p, e, EINVAL,
			    "queue %.*s: declared twice (first at line %" PRIu64 ")",
			    (int)t.n, t.s, p->queues[idx].decl_line);

	rec->nkv = 0;
	{
		char ctx[BQLT_NAME_MAX + 8];
		struct tok name = t;

		snprintf(ctx, sizeof(ctx), "queue %.*s", (int)name.n, name.s);
		while (bqlt_next_tok(c, &t)) {
			ret = parse_kv(p, e, ctx, set_keys, QUEUE_NKEYS, &t, &seen, rec);
			if (ret)
				return ret;
		}
		(void)name;
		idx = add_queue(p, e, nm, (size_t)nlen);
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

	if (bqlt_scan_u64(c, v) && *v <= max)
		return 0;
	*c = start;
	if (!bqlt_next_tok(c, &t))
		return bqlt_perr(p, e, EINVAL, "%s: expected %s, got nothing", ctx, what);
	return bqlt_get_num(p, e, ctx, what, t.s, t.n, max, v);
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
		return bqlt_perr(p, e, EINVAL, "%s: duplicate key '%s'", ctx, name);
	c->p = k + kn + 1;
	if (c->p == c->end || is_blank(*c->p))
		return bqlt_perr(p, e, EINVAL, "%s: expected %s, got nothing", ctx, name);
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
	if (!bqlt_next_tok(c, &t))
		return bqlt_perr(p, e, EINVAL, "record: expected a queue name after t_ns");
	idx = lookup_tok(p, t.s, t.n);
	if (idx < 0)
		return bqlt_perr(p, e, EINVAL, "record: queue '%s' is not declared",
			    bqlt_show(t.s, t.n, b));
	q = &p->queues[idx];
	if (!bqlt_next_tok(c, &t))
		return bqlt_perr(p, e, EINVAL,
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
		return bqlt_perr(p, e, EINVAL,
			    "record: expected a record type (Q, C, P, S or R), got '%s'",
			    bqlt_show(t.s, t.n, b));
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
		bqlt_next_tok(c, &t);
		if (kind == BQLT_P)
			ret = parse_kv(p, e, ctx, set_keys, P_NKEYS, &t, &seen, rec);
		else if (kind == BQLT_S)
			ret = parse_kv(p, e, ctx, s_keys, NKEYS(s_keys), &t, &seen, rec);
		else if (memchr(t.s, '=', t.n))
			ret = bqlt_perr(p, e, EINVAL, "%s: unknown key '%s'", ctx,
				   bqlt_show(t.s, (size_t)((const char *)memchr(t.s, '=', t.n) - t.s), b));
		else
			ret = bqlt_perr(p, e, EINVAL, "%s: unexpected '%s'", ctx,
				   bqlt_show(t.s, t.n, b));
		if (ret)
			return ret;
	}
	if ((kind == BQLT_P || kind == BQLT_S) && !rec->nkv)
		return bqlt_perr(p, e, EINVAL, "%s: expected at least one key=value", ctx);
	if (q->seen && t_ns < q->last_t_ns)
		return bqlt_perr(p, e, EINVAL,
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
		rec->jiffies = bqlt_jiffies(p, t_ns);
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
	if (!bqlt_next_tok(&c, &t))
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
		return bqlt_perr(p, e, EINVAL, "magic line repeated");
	return bqlt_perr(p, e, EINVAL, "unknown directive '%s'", bqlt_show(t.s, t.n, b));
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
	p->trace_hz = BQLT_DEFAULT_HZ;
}

void bqlt_parser_free(struct bqlt_parser *p)
{
	unsigned int i;

	bqlt_parser_reclaim(p, UINT64_MAX);
	for (i = 0; i < p->nqueues; i++)
		free(p->queues[i].name);
	free(p->queues);
	free(p->ht);
	memset(p, 0, sizeof(*p));
}

void bqlt_parser_share(struct bqlt_parser *p)
{
	p->shared = true;
}

uint64_t bqlt_parser_gen(const struct bqlt_parser *p)
{
	return __atomic_load_n(&p->gen, __ATOMIC_ACQUIRE);
}

void bqlt_parser_reclaim(struct bqlt_parser *p, uint64_t gen)
{
	struct bqlt_htab **pp = &p->retired, *ht;

	/* newest first: the ones that ended at or before @gen are the tail */
	while ((ht = *pp) && ht->gen > gen)
		pp = &ht->next;
	*pp = NULL;
	while (ht) {
		struct bqlt_htab *next = ht->next;

		free(ht);
		ht = next;
	}
}

bool bqlt_parser_retired(const struct bqlt_parser *p)
{
	return p->retired;
}

struct bqlt_parser *bqlt_parser_clone(const struct bqlt_parser *p)
{
	struct bqlt_parser *c = calloc(1, sizeof(*c));
	unsigned int i;

	if (!c)
		return NULL;
	*c = *p;
	c->queues = NULL;
	c->ht = NULL;
	c->retired = NULL;
	c->shared = false;
	c->nqueues = c->cap = 0;
	if (p->nqueues) {
		c->queues = calloc(p->nqueues, sizeof(*c->queues));
		if (!c->queues)
			goto fail;
		c->cap = p->nqueues;
		for (i = 0; i < p->nqueues; i++) {
			c->queues[i] = p->queues[i];
			c->queues[i].name = malloc(p->queues[i].len + 1);
			if (!c->queues[i].name)
				goto fail;
			memcpy(c->queues[i].name, p->queues[i].name, p->queues[i].len + 1);
			c->nqueues = i + 1;
		}
	}
	if (p->ht) {
		size_t size = (size_t)p->ht->mask + 1;

		c->ht = malloc(sizeof(*c->ht) + size * sizeof(c->ht->slot[0]));
		if (!c->ht)
			goto fail;
		memcpy(c->ht, p->ht, sizeof(*c->ht) + size * sizeof(c->ht->slot[0]));
		c->ht->next = NULL;
		/* the names the clone's slots compare are its own */
		for (i = 0; i < size; i++)
			if (c->ht->slot[i].idx1)
				c->ht->slot[i].name = c->queues[c->ht->slot[i].idx1 - 1].name;
	}
	return c;
fail:
	bqlt_parser_clone_free(c);
	return NULL;
}

void bqlt_parser_clone_free(struct bqlt_parser *clone)
{
	if (!clone)
		return;
	bqlt_parser_free(clone);
	free(clone);
}

unsigned int bqlt_trace_hz(const struct bqlt_parser *p)
{
	return p->trace_hz;
}

unsigned int bqlt_queue_count(const struct bqlt_parser *p)
{
	return p->nqueues;
}

const char *bqlt_queue_name(const struct bqlt_parser *p, unsigned int idx)
{
	return idx < p->nqueues ? p->queues[idx].name : NULL;
}
