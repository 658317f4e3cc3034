/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bqltrace v1 parser (spec/bqltrace.md): streaming, fed one line at a time
 * by the caller, which owns all I/O. No allocation per line or per record:
 * the only allocations happen when a `queue` directive declares a queue.
 */
#ifndef BQLTOOL_DQL_TRACE_H
#define BQLTOOL_DQL_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define BQLT_VERSION		1
#define BQLT_DEFAULT_HZ		250
#define BQLT_NAME_MAX		128	/* longest queue name, bytes */

/* What a line produced (rec->kind). */
enum bqlt_kind {
	BQLT_HZ = 1,	/* "hz N": rec->hz is the HZ now in force */
	BQLT_QUEUE,	/* "queue NAME k=v...": rec->queue, rec->kv settings */
	BQLT_Q,		/* dql_queued(bytes) */
	BQLT_C,		/* dql_completed(bytes) [nq= lo= limit=] */
	BQLT_P,		/* sysfs writes: rec->kv, in the order written */
	BQLT_S,		/* state snapshot: rec->kv of struct dql fields */
	BQLT_R,		/* dql_reset() */
};

/*
 * Keys of rec->kv. The sysfs settings (queue directive and P records) are
 * in sysfs units: bytes, and milliseconds for hold_time and stall_thrs.
 * The S keys are struct dql fields in the struct's own units (bytes,
 * jiffies). "limit" and "stall_thrs"/"stall_max" exist in both families
 * and are told apart by the record kind.
 */
enum bqlt_key {
	/* queue directive and P */
	BQLT_K_LIMIT_MIN,	/* bytes; "max" = DQL_MAX_LIMIT */
	BQLT_K_LIMIT_MAX,	/* bytes; "max" = DQL_MAX_LIMIT */
	BQLT_K_HOLD_TIME,	/* ms */
	BQLT_K_STALL_THRS,	/* ms */
	/* P only */
	BQLT_K_LIMIT,		/* bytes, written directly as sysfs does */
	BQLT_K_STALL_MAX,	/* any value clears stall_max, as sysfs */
	BQLT_K_SETTINGS_NR,

	/* S: struct dql fields */
	BQLT_S_LIMIT = BQLT_K_SETTINGS_NR,
	BQLT_S_NUM_QUEUED,
	BQLT_S_NUM_COMPLETED,
	BQLT_S_ADJ_LIMIT,
	BQLT_S_LAST_OBJ_CNT,
	BQLT_S_PREV_NUM_QUEUED,
	BQLT_S_PREV_LAST_OBJ_CNT,
	BQLT_S_PREV_OVLIMIT,
	BQLT_S_LOWEST_SLACK,
	BQLT_S_SLACK_START_TIME,	/* jiffies */
	BQLT_S_MIN_LIMIT,
	BQLT_S_MAX_LIMIT,
	BQLT_S_SLACK_HOLD_TIME,		/* jiffies */
	BQLT_S_STALL_THRS,		/* jiffies (u16) */
	BQLT_S_STALL_MAX,		/* jiffies (u16) */
	BQLT_S_STALL_CNT,
	BQLT_S_LAST_REAP,		/* jiffies */
	BQLT_S_HISTORY_HEAD,		/* jiffies / 64 */
	BQLT_S_HISTORY,			/* value in rec->history[] */
	BQLT_KEY_NR,
};

/* the most keys one line can carry (each key at most once) */
#define BQLT_KV_MAX	(BQLT_KEY_NR - BQLT_K_SETTINGS_NR)

struct bqlt_kv {
	enum bqlt_key key;
	uint64_t val;
};

/* rec->has: which optional fields a record carried */
enum {
	BQLT_HAS_J	= 1u << 0,
	BQLT_HAS_NQ	= 1u << 1,
	BQLT_HAS_LO	= 1u << 2,
	BQLT_HAS_LIMIT	= 1u << 3,
};

/*
 * struct bqlt_rec - one parsed line. Only the fields of @kind are set;
 * the others keep stale values.
 * @line:	line number in the trace, from 1
 * @hz:		HZ in force (trace's "hz", an override, or the default)
 * @queue:	queue index (declaration order), for all but BQLT_HZ
 * @qname:	queue name, NUL-terminated, valid while the parser lives
 * @t_ns:	record time
 * @jiffies:	j= if given, else floor(t_ns * hz / 1e9) mod 2^64
 * @bytes:	Q/C byte count
 * @nq, @lo, @limit: C keys (see @has)
 * @kv/@nkv:	queue/P settings or S fields, in the order written
 * @history:	S history=, lowest index first
 */
struct bqlt_rec {
	enum bqlt_kind kind;
	unsigned int has;
	uint64_t line;
	unsigned int hz;
	unsigned int queue;
	const char *qname;
	uint64_t t_ns;
	uint64_t jiffies;
	uint32_t bytes;
	uint32_t nq, lo, limit;
	unsigned int nkv;
	struct bqlt_kv kv[BQLT_KV_MAX];
	uint64_t history[4];
};

struct bqlt_queue_ent {
	char *name;
	size_t len;
	uint64_t decl_line;
	uint64_t last_t_ns;
	bool seen;			/* a record named it */
};

/*
 * A queue in the name hash: the name's words (trace_int.h), the declared
 * name and its index. A slot is filled once, @idx1 last: bqlt_scan() in
 * other threads reads the table while the parser adds to it.
 */
struct bqlt_slot {
	uint64_t w0, w1;
	uint64_t wm;			/* names of 17+ bytes: bytes 8..15 */
	const char *name;		/* the declared name (never moves) */
	uint32_t len;			/* | BQLT_SLOT_ESC: the name holds a backslash */
	uint32_t idx1;			/* index + 1, 0 = free */
};

/*
 * In bqlt_slot.len: the name holds a backslash, so a token of the same
 * bytes may be an escape that spells another name ("\x41"): the fast
 * paths, which compare bytes as written, never match it.
 */
#define BQLT_SLOT_ESC	0x80000000u

/* the name hash: open addressing, at most half full (a slot is 40 bytes) */
struct bqlt_htab {
	unsigned int mask;
	unsigned int shift;		/* 64 - log2(table size) */
	uint64_t gen;			/* retired: the generation it ended */
	struct bqlt_htab *next;		/* retired: the one retired before */
	struct bqlt_slot slot[];
};

/* struct bqlt_parser - all fields private; use the functions below */
struct bqlt_parser {
	uint64_t line;
	unsigned int hz;		/* in force */
	unsigned int hz_override;	/* 0 = none */
	uint64_t hz_line;		/* line of the "hz" directive, 0 = none */
	unsigned int trace_hz;		/* the trace's own (its "hz", or the default) */
	bool magic;			/* "bqltrace 1" seen */
	bool any_record;
	bool shared;			/* bqlt_parser_share(): tables retired */
	unsigned int nqueues, cap;
	struct bqlt_queue_ent *queues;
	struct bqlt_htab *ht;		/* NULL before the first queue */
	struct bqlt_htab *retired;	/* outgrown while shared, newest first */
	uint64_t gen;			/* tables retired so far */
	/* jiffies cache: t_ns in [jc_lo, jc_lo + jc_span) gives jc_j */
	uint64_t jc_lo, jc_span, jc_j;
};

/*
 * bqlt_parser_init - a parser at line 0. @hz_override, if not 0, replaces
 * the trace's "hz" (which is still checked) for every jiffies computation.
 */
void bqlt_parser_init(struct bqlt_parser *p, unsigned int hz_override);
void bqlt_parser_free(struct bqlt_parser *p);

/*
 * bqlt_parse_line - parse the next line of the trace (@len bytes, without
 * or with its "\n" or "\r\n"). Every call counts one line.
 * Returns 1 when @rec was filled (a record or a hz/queue directive),
 * 0 for a line that produces nothing (blank, comment, the magic line), or
 * a negative errno with @e->msg = "line N: what: reason".
 * After an error the parser must not be fed further.
 */
int bqlt_parse_line(struct bqlt_parser *p, const char *line, size_t len,
		    struct bqlt_rec *rec, struct bql_err *e);

/*
 * bqlt_parse_next - parse the line that starts at *@pos in a buffer that
 * ends at @end: the line ends after the first '\n', or at @end if there
 * is none (the caller hands over complete lines, and the last line of the
 * input, which may lack its '\n'). *@pos moves past the line.
 *
 * Exactly bqlt_parse_line() on that line, same results and messages, but
 * ordinary Q and C records are parsed in place, without a separate search
 * for the line's end; anything else takes bqlt_parse_line().
 */
int bqlt_parse_next(struct bqlt_parser *p, const char **pos, const char *end,
		    struct bqlt_rec *rec, struct bql_err *e);

/*
 * bqlt_parse_batch - bqlt_parse_next() over the lines from *@pos until
 * @max records are in @recs, *@pos reaches @end, or a line fails. Returns
 * the records filled; *@err is 0, or the negative errno of the line that
 * failed (then @e has its message, the records before it are in @recs and
 * *@pos is past it). One call per batch instead of one per line.
 */
unsigned int bqlt_parse_batch(struct bqlt_parser *p, const char **pos,
			      const char *end, struct bqlt_rec *recs,
			      unsigned int max, int *err, struct bql_err *e);

/*
 * Scanning ahead, in other threads: bqlt_scan() reads a block of lines
 * with the parser's queue table (shared, or a clone) and turns the
 * ordinary Q and C lines into struct bqlt_fast; the parser then takes
 * them in file order with bqlt_accept(), which alone changes its state.
 * The records and messages are exactly bqlt_parse_next()'s on the same
 * lines.
 *
 * struct bqlt_fast - one entry of bqlt_scan()'s output.
 * @kind:	BQLT_Q or BQLT_C; 0 for a run of @len bytes of lines (whole
 *		lines, each ending in '\n' but perhaps the last of the input)
 *		that the parser must parse itself, with bqlt_parse_next()
 * @len:	bytes of the line (or the run of lines) in the input
 * @jiffies:	j= if @has says so, else unset (bqlt_accept() computes it)
 * the others as in struct bqlt_rec.
 */
struct bqlt_fast {
	uint64_t t_ns;
	uint64_t jiffies;
	uint32_t bytes, nq, lo, limit;
	uint32_t queue;
	uint32_t len;
	uint8_t kind;
	uint8_t has;
};

/*
 * bqlt_parser_clone - a copy of @p's queue table and settings for
 * bqlt_scan() (its own allocation: free it with bqlt_parser_clone_free()).
 * NULL when out of memory. Queues declared in @p later are not in the
 * clone: their records come out as lines for the parser, which is slower
 * but gives the same result. A copy costs memory and time in proportion
 * to the queues: to scan in other threads, share @p instead.
 */
struct bqlt_parser *bqlt_parser_clone(const struct bqlt_parser *p);
void bqlt_parser_clone_free(struct bqlt_parser *clone);

/*
 * Scanning with the parser itself, in other threads, while it parses on
 * in its own: after bqlt_parser_share(@p), bqlt_scan(@p, ...) may run in
 * any number of threads at once, each reading the one queue table @p
 * holds (no copy). A scan may see queues that @p declares while it runs,
 * even those declared after the lines it scans: bqlt_accept() takes a
 * record only if @p knows its queue by then, so the records are the
 * same. A table @p outgrows is kept, not freed, until
 * bqlt_parser_reclaim(@p, G) with G no less than the generation it ended
 * in: a scanning thread notes G = bqlt_parser_gen(@p) before it starts,
 * and @p's thread reclaims with the least G of the scans still running,
 * or UINT64_MAX when none runs. bqlt_parser_gen() may be called from any
 * thread; the others only from @p's.
 */
void bqlt_parser_share(struct bqlt_parser *p);
uint64_t bqlt_parser_gen(const struct bqlt_parser *p);
void bqlt_parser_reclaim(struct bqlt_parser *p, uint64_t gen);
/* whether a table waits for bqlt_parser_reclaim() */
bool bqlt_parser_retired(const struct bqlt_parser *p);

/*
 * bqlt_scan - scan the lines from *@pos (complete lines, as for
 * bqlt_parse_next()) into @out until @max entries are filled or *@pos
 * reaches @end. Reads @snap's queue table only (a clone, or a parser
 * shared with bqlt_parser_share()); safe to run in many threads at once.
 * Returns the entries filled; *@pos moves past their lines.
 */
unsigned int bqlt_scan(const struct bqlt_parser *snap, const char **pos,
		       const char *end, struct bqlt_fast *out, unsigned int max);

/*
 * bqlt_accept - the parser takes entry @f of bqlt_scan(), whose line
 * starts at the parser's current position in the input: 1 with @rec
 * filled, as bqlt_parse_next() would (the line is consumed: the caller
 * moves on by @f->len bytes); 0 when the parser must parse the line (or
 * run of lines, @f->kind == 0) itself with bqlt_parse_next(): nothing was
 * changed.
 */
int bqlt_accept(struct bqlt_parser *p, const struct bqlt_fast *f,
		struct bqlt_rec *rec);

/*
 * bqlt_accept_run - bqlt_accept() of @f[0], @f[1] ... into @recs, up to
 * @n entries, stopping before the first entry the parser must parse
 * itself: returns the entries accepted (one record each), *@len the bytes
 * of their lines. One call per run instead of one per record.
 */
unsigned int bqlt_accept_run(struct bqlt_parser *p, const struct bqlt_fast *f,
			     unsigned int n, struct bqlt_rec *recs, size_t *len);

/*
 * bqlt_fast_simd - whether the fast path reads numbers with SSE4.1 (x86-64
 * CPUs that have it; decided once). @on >= 0 first forces it off (0) or
 * back on where the CPU allows (1), for tests that run both variants;
 * -1 only asks. Not to be called while another thread parses.
 */
bool bqlt_fast_simd(int on);

/* bqlt_parse_end - at end of input: an error if no magic line was seen. */
int bqlt_parse_end(struct bqlt_parser *p, struct bql_err *e);

unsigned int bqlt_queue_count(const struct bqlt_parser *p);
/* the HZ the trace gives (its "hz" directive, else the default): the
 * recorded one, whatever the override */
unsigned int bqlt_trace_hz(const struct bqlt_parser *p);
const char *bqlt_queue_name(const struct bqlt_parser *p, unsigned int idx);
/* name of a key as written in a trace ("limit_min", "slack_hold_time") */
const char *bqlt_key_name(enum bqlt_key k);

/* floor(t_ns * hz / 1e9) modulo 2^64, without intermediate overflow */
uint64_t bqlt_ns_to_jiffies(uint64_t t_ns, unsigned int hz);

#endif
