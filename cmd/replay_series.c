// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool replay: the outputs fed record by record, --timeline (CSV or
 * JSON lines) and --plot (SVG), each written in full or not at all.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/replay.h"
#include "lib/io/cpus.h"
#include "lib/io/esc.h"
#include "lib/io/ofile.h"
#include "lib/io/stops.h"

#define OBUF_SIZE	(1u << 20)	/* timeline buffer */
#define OBUF_ROW	1024		/* room one timeline row needs at most */

/* ------------------------------------------------------------ files */

/*
 * Each output goes through lib/io/ofile.c: a temporary beside the target
 * (through symlinks, keeping mode and owner) renamed only when the replay
 * succeeded, or a spool copied then to a FIFO, a device or /dev/stdout.
 */
int rx_out_open(struct rx *x, struct ofile **o, const char *path, unsigned int flags)
{
	struct bql_err e;

	if (ofile_open(o, path, flags, &e))
		return cmd_fail(x->c, "%s", e.msg);
	return 0;
}

int rx_out_finish(struct rx *x, struct ofile *o)
{
	struct bql_err e;

	if (ofile_finish(o, &e))
		return cmd_fail(x->c, "%s", e.msg);
	return 0;
}

/* @keep: put a finished file in place; else drop it, the target untouched */
int rx_out_end(struct rx *x, struct ofile **o, bool keep)
{
	struct bql_err e;
	int ret = 0;

	if (keep && *o && ofile_commit(*o, &e))
		ret = cmd_fail(x->c, "%s", e.msg);
	else if (!keep)
		ofile_abort(*o);
	*o = NULL;
	return ret;
}

/* ------------------------------------------------------------ timeline */

/*
 * Decimal numbers, written in place (the timeline is mostly numbers). On
 * little-endian machines eight digits at a time: digits8() spreads a
 * number below 1e8 over the 8 bytes of a word, most significant digit in
 * the lowest byte, with a few multiplications and no loop or branch
 * (4 + 4 digits, then 2 + 2 in each half, then 1 + 1); the leading zeros
 * are dropped by shifting the word before the one 8-byte store. Each put
 * may store up to 8 bytes past the end it returns (never more than 20
 * bytes from @p in all).
 */
/* "00" to "99" */
static const char d2[200] =
	"0001020304050607080910111213141516171819"
	"2021222324252627282930313233343536373839"
	"4041424344454647484950515253545556575859"
	"6061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ASCII0	0x3030303030303030ull

static inline __attribute__((always_inline)) uint64_t digits8(uint32_t v)
{
	uint64_t x = v / 10000 | (uint64_t)(v % 10000) << 32, h;

	h = (x * 10486 >> 20) & 0x0000007f0000007full;		/* / 100 below 1e4 */
	x = h | (x - h * 100) << 16;
	h = (x * 103 >> 10) & 0x000f000f000f000full;		/* / 10 below 100 */
	return h | (x - h * 10) << 8;
}

/* all 8 digits of @d (from digits8()) */
static inline __attribute__((always_inline)) char *put_d8(char *p, uint64_t d)
{
	d += ASCII0;
	memcpy(p, &d, 8);
	return p + 8;
}

/* @v < 1e8 without leading zeros ("0" for 0) */
static inline __attribute__((always_inline)) char *put_lead8(char *p, uint32_t v)
{
	uint64_t d = digits8(v);
	/* the leading zero bytes; at most 7, so 0 is "0" */
	unsigned int z = (unsigned int)__builtin_ctzll(d | 1ull << 56) >> 3;

	d = (d + ASCII0) >> 8 * z;
	memcpy(p, &d, 8);
	return p + 8 - z;
}

static inline __attribute__((always_inline)) char *put_u32i(char *p, uint32_t v)
{
	if (v < 100000000)
		return put_lead8(p, v);
	p = put_lead8(p, v / 100000000);
	return put_d8(p, digits8(v % 100000000));
}

static inline __attribute__((always_inline)) char *put_u64i(char *p, uint64_t v)
{
	if (v < 100000000)
		return put_lead8(p, (uint32_t)v);
	if (v < 10000000000000000ull) {
		p = put_lead8(p, (uint32_t)(v / 100000000));
		return put_d8(p, digits8((uint32_t)(v % 100000000)));
	}
	p = put_lead8(p, (uint32_t)(v / 10000000000000000ull));	/* <= 1844 */
	v %= 10000000000000000ull;
	p = put_d8(p, digits8((uint32_t)(v / 100000000)));
	return put_d8(p, digits8((uint32_t)(v % 100000000)));
}
#else
/* the number of decimal digits of @v */
static unsigned int ndigits(uint64_t v)
{
	static const uint64_t p10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
		10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
		100000000000ull, 1000000000000ull, 10000000000000ull,
		100000000000000ull, 1000000000000000ull, 10000000000000000ull,
		100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
	};
	unsigned int t;

	if (v < 10)
		return 1;
	t = (unsigned int)(64 - __builtin_clzll(v)) * 1233 >> 12;	/* ~log10 */
	return t + (v >= p10[t]);
}

/* two digits at a time from the end */
static inline __attribute__((always_inline)) char *put_u64i(char *p, uint64_t v)
{
	char *end = p + ndigits(v), *e = end;

	while (v >= 100) {
		e -= 2;
		memcpy(e, d2 + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		e -= 2;
		memcpy(e, d2 + 2 * v, 2);
	} else {
		*--e = (char)('0' + v);
	}
	return end;
}

static inline __attribute__((always_inline)) char *put_u32i(char *p, uint32_t v)
{
	return put_u64i(p, v);
}
#endif

/* exactly 8 digits of @v < 1e8, leading zeros included */
static inline __attribute__((always_inline)) char *put_fixed8(char *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return put_d8(p, digits8(v));
#else
	for (int i = 6; i >= 0; i -= 2, v /= 100)
		memcpy(p + i, d2 + 2 * (v % 100), 2);
	return p + 8;
#endif
}

char *put_u64(char *p, uint64_t v)
{
	return put_u64i(p, v);
}

/*
 * Columns that change slowly from row to row: the line number (its digits
 * but the last two) and t_ns (but the last eight) are made once and copied
 * while they stay the same; a queue's limit, which changes at a few of its
 * completions, the same way (struct tl_name). Each put stores up to 24
 * bytes from @p.
 */
static __attribute__((noinline)) void tl_digits_make(struct tl_digits *c, uint64_t hi)
{
	c->len = (uint32_t)(put_u64i(c->s, hi) - c->s);
	c->hi = hi;
}

static void tl_digits_reset(struct rx *x)
{
	x->tl_line.hi = x->tl_t.hi = UINT64_MAX;
}

static inline __attribute__((always_inline)) char *
put_hi_cached(struct tl_digits *c, char *p, uint64_t hi)
{
	if (__builtin_expect(hi != c->hi, 0))
		tl_digits_make(c, hi);
	memcpy(p, c->s, 24);
	return p + c->len;
}

static inline __attribute__((always_inline)) char *put_line(struct rx *x, char *p, uint64_t v)
{
	uint64_t hi = v / 100;

	if (__builtin_expect(!hi, 0))
		return put_u32i(p, (uint32_t)v);
	p = put_hi_cached(&x->tl_line, p, hi);
	memcpy(p, d2 + 2 * (v - hi * 100), 2);
	return p + 2;
}

static inline __attribute__((always_inline)) char *put_t(struct rx *x, char *p, uint64_t v)
{
	uint64_t hi = v / 100000000;

	if (!hi)
		return put_u32i(p, (uint32_t)v);
	p = put_hi_cached(&x->tl_t, p, hi);
	return put_fixed8(p, (uint32_t)(v - hi * 100000000));
}

static char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

/* a string literal: a constant-size copy, a few stores */
#define PUT_LIT(p, lit)	(memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

/*
 * queue name as a CSV field: names have no blanks or C0 controls, but may
 * hold C1 controls or invalid UTF-8, written in their escaped form
 * (lib/io/esc.h) so the file is valid UTF-8 and safe to cat
 */
static char *put_csv_name(char *p, const char *raw)
{
	char s[4 * BQLT_NAME_MAX + 1];

	esc_text(s, sizeof(s), raw);
	if (!strpbrk(s, ",\"\r\n"))
		return put_str(p, s);
	*p++ = '"';
	for (const char *c = s; *c; c++) {
		if (*c == '"')
			*p++ = '"';
		*p++ = *c;
	}
	*p++ = '"';
	return p;
}

_Static_assert(ESC_MAX_PER_BYTE * BQLT_NAME_MAX + 3 + 6 * 20 + 80 <= OBUF_ROW,
	       "a timeline row with the longest escaped name fits OBUF_ROW");

/* a JSON string: valid UTF-8, controls escaped (lib/io/esc.h); fits OBUF_ROW */
static char *put_json_name(char *p, const char *s)
{
	return p + esc_json_str(p, ESC_MAX_PER_BYTE * BQLT_NAME_MAX + 3, s);
}

static const char kind_name[] = {
	[BQLT_Q] = 'Q', [BQLT_C] = 'C', [BQLT_P] = 'P', [BQLT_S] = 'S',
	[BQLT_R] = 'R',
};

/*
 * The part of a row between t_ns and the event that depends only on the
 * queue, escaped and quoted once per queue: ",NAME," in CSV,
 * ",\"queue\":\"NAME\",\"event\":\"" in JSON lines. @s has room for at
 * least TL_NAME_PAD bytes, so a short one is copied with a constant size.
 */
#define TL_NAME_PAD	32
struct tl_name {
	const char *raw;	/* the parser's name it was made from */
	char *s;
	size_t len;
	uint32_t limit;		/* the queue's last limit ... */
	uint32_t limit_len;
	char limit_s[24];	/* ... its digits, copied 16 bytes at a time */
};

static char *put_name_mid(char *p, bool jsonl, const char *raw)
{
	if (jsonl) {
		p = PUT_LIT(p, ",\"queue\":");
		p = put_json_name(p, raw);
		return PUT_LIT(p, ",\"event\":\"");
	}
	*p++ = ',';
	p = put_csv_name(p, raw);
	*p++ = ',';
	return p;
}

/* queue @q's part into the cache (NULL: out of memory, no cache) */
static __attribute__((noinline)) struct tl_name *
tl_name_make(struct rx *x, unsigned int q, const char *raw)
{
	char tmp[OBUF_ROW], *e, *s;
	struct tl_name *n;

	if (q >= x->tl_nnames) {
		unsigned int nn = q + 1 > 2 * x->tl_nnames ? q + 1 : 2 * x->tl_nnames;
		struct tl_name *t = realloc(x->tl_names, nn * sizeof(*t));

		if (!t)
			return NULL;
		memset(t + x->tl_nnames, 0, (nn - x->tl_nnames) * sizeof(*t));
		x->tl_names = t;
		x->tl_nnames = nn;
	}
	n = &x->tl_names[q];
	e = put_name_mid(tmp, x->jsonl, raw);
	s = malloc((size_t)(e - tmp) > TL_NAME_PAD ? (size_t)(e - tmp) : TL_NAME_PAD);
	if (!s)
		return NULL;
	memcpy(s, tmp, (size_t)(e - tmp));
	free(n->s);
	n->s = s;
	n->len = (size_t)(e - tmp);
	n->raw = raw;
	n->limit = 0;
	n->limit_len = 1;
	n->limit_s[0] = '0';
	return n;
}

/* queue @q's entry, made on its first row (NULL: out of memory) */
static inline __attribute__((always_inline)) struct tl_name *
tl_name_get(struct rx *x, unsigned int q, const char *raw)
{
	struct tl_name *n = q < x->tl_nnames ? &x->tl_names[q] : NULL;

	if (__builtin_expect(!n || n->raw != raw, 0))
		n = tl_name_make(x, q, raw);
	return n;
}

/* queue @n's part of the row */
static inline __attribute__((always_inline)) char *put_name_cached(char *p, const struct tl_name *n)
{
	if (n->len <= TL_NAME_PAD)
		memcpy(p, n->s, TL_NAME_PAD);
	else
		memcpy(p, n->s, n->len);
	return p + n->len;
}

static __attribute__((noinline)) void tl_limit_make(struct tl_name *n, uint32_t v)
{
	n->limit_len = (uint32_t)(put_u32i(n->limit_s, v) - n->limit_s);
	n->limit = v;
}

/* the limit, as queue @n's last one if it is the same */
static inline __attribute__((always_inline)) char *put_limit(char *p, struct tl_name *n, uint32_t v)
{
	if (__builtin_expect(v != n->limit, 0))
		tl_limit_make(n, v);
	memcpy(p, n->limit_s, 16);
	return p + n->limit_len;
}

static void tl_names_free(struct rx *x)
{
	for (unsigned int q = 0; q < x->tl_nnames; q++)
		free(x->tl_names[q].s);
	free(x->tl_names);
	x->tl_names = NULL;
	x->tl_nnames = 0;
}

/* one timeline row at @p (OBUF_ROW bytes of room); returns its end */
static char *timeline_row(struct rx *x, char *p, const struct replay_event *ev)
{
	struct tl_name *n = tl_name_get(x, ev->queue, ev->qname);

	if (x->jsonl) {
		p = PUT_LIT(p, "{\"line\":");
		p = put_line(x, p, ev->line);
		p = PUT_LIT(p, ",\"t_ns\":");
		p = put_t(x, p, ev->t_ns);
		p = n ? put_name_cached(p, n) : put_name_mid(p, true, ev->qname);
		*p++ = kind_name[ev->kind];
		p = PUT_LIT(p, "\",\"bytes\":");
		p = put_u32i(p, ev->bytes);
		p = PUT_LIT(p, ",\"inflight\":");
		p = put_u32i(p, ev->inflight);
		p = PUT_LIT(p, ",\"limit\":");
		p = n ? put_limit(p, n, ev->limit) : put_u32i(p, ev->limit);
		*p++ = '}';
	} else {
		p = put_line(x, p, ev->line);
		*p++ = ',';
		p = put_t(x, p, ev->t_ns);
		p = n ? put_name_cached(p, n) : put_name_mid(p, false, ev->qname);
		*p++ = kind_name[ev->kind];
		*p++ = ',';
		p = put_u32i(p, ev->bytes);
		*p++ = ',';
		p = put_u32i(p, ev->inflight);
		*p++ = ',';
		p = n ? put_limit(p, n, ev->limit) : put_u32i(p, ev->limit);
	}
	*p++ = '\n';
	return p;
}

/*
 * The writer thread: with more than one CPU, full buffers are handed to a
 * thread that writes (and compresses) them through the ofile while the
 * replay goes on: write(2) into the page cache costs about as much as
 * making the rows. TL_NBUF buffers go round; the replay waits only when
 * all are full. The ofile is the thread's until it is joined.
 */
#define TL_NBUF		4

struct tl_writer {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *buf[TL_NBUF];
	size_t len[TL_NBUF];	/* > 0: full, to be written */
	unsigned int fill;	/* the buffer the replay fills (x->tl_buf) */
	unsigned int next;	/* the next buffer the thread writes */
	bool stop;		/* end once everything handed over is written */
	bool drop;		/* end now: the replay failed, the file goes */
	struct ofile *o;
};

static void *tl_thread(void *arg)
{
	struct tl_writer *w = arg;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		unsigned int i = w->next;

		while (!w->len[i] && !w->stop)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->len[i] || w->drop)
			break;		/* stopped, everything written (or dropped) */
		pthread_mutex_unlock(&w->mu);
		ofile_write(w->o, w->buf[i], w->len[i]);	/* errors are sticky */
		pthread_mutex_lock(&w->mu);
		w->len[i] = 0;
		w->next = (i + 1) % TL_NBUF;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* hand x->tl_buf to the thread (or write it), continue in an empty one */
static void timeline_submit(struct rx *x)
{
	struct tl_writer *w = x->tlw;
	unsigned int i;

	if (!x->tl_len)
		return;
	if (!w) {
		ofile_write(x->tl, x->tl_buf, x->tl_len);
		x->tl_len = 0;
		return;
	}
	pthread_mutex_lock(&w->mu);
	w->len[w->fill] = x->tl_len;
	pthread_cond_broadcast(&w->cv);
	i = (w->fill + 1) % TL_NBUF;
	while (w->len[i])
		pthread_cond_wait(&w->cv, &w->mu);
	w->fill = i;
	pthread_mutex_unlock(&w->mu);
	x->tl_buf = w->buf[i];
	x->tl_len = 0;
}

/*
 * The thread ends once everything handed to it is written (@drop: at
 * once, the rest unwritten); the ofile is ours again.
 */
static void tl_writer_stop(struct rx *x, bool drop)
{
	struct tl_writer *w = x->tlw;

	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	w->drop = drop;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->th, NULL);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	for (unsigned int i = 0; i < TL_NBUF; i++)
		free(w->buf[i]);
	free(w);
	x->tlw = NULL;
	x->tl_buf = NULL;	/* it was one of w->buf */
}

/* a thread when there is a CPU for it; none (written inline) otherwise */
static void tl_writer_start(struct rx *x)
{
	struct tl_writer *w;

	if (cpus_usable() < 2)
		return;
	w = calloc(1, sizeof(*w));
	if (!w)
		return;
	for (unsigned int i = 0; i < TL_NBUF; i++) {
		w->buf[i] = i ? malloc(OBUF_SIZE) : x->tl_buf;
		if (!w->buf[i])
			goto fail;
	}
	w->o = x->tl;
	if (pthread_mutex_init(&w->mu, NULL))
		goto fail;
	if (pthread_cond_init(&w->cv, NULL)) {
		pthread_mutex_destroy(&w->mu);
		goto fail;
	}
	if (stops_thread_create(&w->th, NULL, tl_thread, w)) {
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		goto fail;
	}
	x->tlw = w;
	return;
fail:
	for (unsigned int i = 1; i < TL_NBUF; i++)
		free(w->buf[i]);
	free(w);
}

/* one row per C record (per record with --all-events) */
static void timeline_event(struct rx *x, const struct replay_event *ev)
{
	if (ev->kind != BQLT_C && !x->all_events)
		return;
	if (x->tl_len + OBUF_ROW > OBUF_SIZE)
		timeline_submit(x);
	x->tl_len = (size_t)(timeline_row(x, x->tl_buf + x->tl_len, ev) - x->tl_buf);
}

static int timeline_open(struct rx *x)
{
	int ret;

	x->tl_buf = malloc(OBUF_SIZE);
	if (!x->tl_buf)
		return cmd_fail(x->c, "%s: %s", x->timeline, strerror(ENOMEM));
	ret = rx_out_open(x, &x->tl, x->timeline, OFILE_COMPRESS_BY_NAME);
	if (ret)
		return ret;
	if (!x->jsonl) {
		memcpy(x->tl_buf, "line,t_ns,queue,event,bytes,inflight,limit\n", 43);
		x->tl_len = 43;
	}
	tl_writer_start(x);
	return 0;
}

/* the rest of the rows, synced */
static int timeline_finish(struct rx *x)
{
	timeline_submit(x);
	tl_writer_stop(x, false);
	return rx_out_finish(x, x->tl);
}

/* ------------------------------------------------------------ both */

void rx_on_event(void *arg, const struct replay_event *ev)
{
	struct rx *x = arg;

	if (x->plot_path)
		rx_plot_event(x, ev);
	if (x->timeline)
		timeline_event(x, ev);
}

void rx_init(struct rx *x, struct bql_ctx *c)
{
	memset(x, 0, sizeof(*x));
	x->c = c;
	tl_digits_reset(x);
}

int rx_outputs_open(struct rx *x)
{
	int ret = 0;

	if (x->timeline)
		ret = timeline_open(x);
	if (!ret && x->plot_path)
		ret = rx_plot_open(x);
	return ret;
}

int rx_outputs_close(struct rx *x, bool ok)
{
	int ret = 0, r;

	if (!ok)
		tl_writer_stop(x, true);	/* before the ofile goes */
	/* both written and synced before either is renamed: all or nothing */
	if (ok && x->tl)
		ret = timeline_finish(x);
	if (ok && !ret && x->plot.out)
		ret = rx_plot_finish(x);
	r = rx_out_end(x, &x->tl, ok && !ret);
	if (!ret)
		ret = r;
	r = rx_out_end(x, &x->plot.out, ok && !ret);
	if (!ret)
		ret = r;
	free(x->tl_buf);
	x->tl_buf = NULL;
	tl_names_free(x);
	rx_plot_free(x);
	return ret;
}
