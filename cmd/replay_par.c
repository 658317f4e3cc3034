// SPDX-License-Identifier: GPL-2.0-only
/*
 * replay -J N: the trace is cut into chunks of whole lines, which threads
 * scan ahead (bqlt_scan() with the parser's own queue table, shared, not
 * copied: memory grows with the queues, not with the threads), while one thread,
 * the consumer, takes the records in file order (bqlt_accept_run()) and
 * replays them. Every record, warning, error and its line is exactly what
 * the single-threaded path (replay.c) produces on the same input.
 *
 * The chunks are a ring of slots. Whoever reads (under @rd, one at a
 * time, in file order) claims the next slot, fills it with the lines
 * after the previous chunk's (carrying a partial line over) and scans
 * it; the consumer takes the slots in order. When the chunk it needs is
 * not claimed yet, it reads it and parses it itself, as -J 1 would, so
 * that it never waits for a thread that has not run; when a thread is
 * still scanning it, the consumer reads and scans the next free one
 * meanwhile, and waits only when every slot is taken. A failed read and
 * a line too long end the chunk stream like the end of the input: the
 * consumer reports them after the lines before them, as replay.c does, so
 * the first error in file order wins. Memory: 2N + 2 slots, a few times
 * the chunk size each. Where scanning cannot win (queues declared as the
 * records come, lines that are no records) the threads rest and the
 * consumer reads alone (judge()).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/replay.h"
#include "lib/io/cpus.h"
#include "lib/io/stops.h"
#include "lib/io/tinput.h"

#define PAR_CHUNK	(256u << 10)	/* bytes of lines per chunk, about */
#define PAR_BACKOFF_MAX	256		/* chunks the threads rest, at most */

/* how a chunk ends the input (after its lines) */
enum { END_NONE, END_EOF, END_READ, END_LONG };

struct pchunk {
	char *buf;
	size_t len;		/* bytes of whole lines (the last may lack '\n') */
	uint64_t bytes;		/* bytes read into it (progress) */
	struct bqlt_fast *ent;	/* bqlt_scan() of [buf, buf + len) */
	unsigned int nent, cap;
	bool scanned;		/* ent[] holds its scan; else parse it all */
	bool scanning;		/* a thread scans it (with the table of gen) */
	uint64_t gen;		/* bqlt_parser_gen() before its scan */
	uint64_t seq;
	bool ready;		/* filled and scanned: the consumer's */
	int end;		/* END_* */
	struct bql_err e;	/* END_READ */
};

struct par {
	struct rx *x;
	struct rfile *f;
	struct tinput *in;
	pthread_mutex_t rd;	/* reading: the input, carry, eof */
	pthread_mutex_t mu;	/* the rest */
	pthread_cond_t cv;	/* a chunk ready or freed, or stop */
	struct pchunk *ck;
	unsigned int nck;
	size_t target, bufsize, readsize;
	uint64_t next_read;	/* the chunk the next read fills */
	uint64_t next_use;	/* the chunk the consumer takes next */
	bool in_done;		/* the last chunk was claimed */
	bool stop;
	char *carry;		/* the partial line after the last chunk */
	size_t ncarry;
	bool eof;
	bool scan_ok;		/* the parser is shared: threads may scan */
	/*
	 * Chunks before scan_from are not scanned (UINT64_MAX: until told).
	 * Two chunks in a row whose scan came to nothing (7/8 of their bytes
	 * parsed here: no records, or records of queues the parser had not
	 * declared yet when they were scanned) rest the threads: the
	 * consumer parses on alone, for at least @backoff chunks (twice as
	 * many each time a rest follows a rest), and until a chunk declares
	 * no queue. A trace that declares its queues as they appear is thus
	 * read by one thread, as fast as -J 1; one that declares a million
	 * queues up front is, after them.
	 */
	uint64_t scan_from;
	uint64_t rest_until;	/* the consumer's: the rest lasts until then */
	bool resting;
	unsigned int backoff, misses;
	uint64_t nscanned, nparsed;	/* bytes taken from scans; parsed here */
	pthread_t th[RX_JOBS_MAX];
	unsigned int nth;
};

unsigned int rx_jobs_default(void)
{
	unsigned int n = (unsigned int)cpus_usable();

	return n > RX_JOBS_DEFAULT_MAX ? RX_JOBS_DEFAULT_MAX : n;
}

/* ------------------------------------------------------------ reading */

/*
 * Under rd: fill @ck with the lines after the previous chunk's, at least
 * pp->target bytes of them, up to the end of a line. The line being read
 * when a read fails, or a line of RX_LINE_MAX bytes or more, ends the
 * chunk before it (ck->end says why), as replay.c reports them.
 */
static void fill(struct par *pp, struct pchunk *ck)
{
	size_t len = pp->ncarry, line = 0;	/* line: start of the partial line */
	bool nl = false;			/* a line ends in buf */
	char *b = ck->buf;

	memcpy(b, pp->carry, len);
	ck->end = END_NONE;
	ck->bytes = 0;
	for (;;) {
		ssize_t n;
		char *first;

		if (pp->eof) {
			ck->len = len;
			ck->end = END_EOF;
			pp->ncarry = 0;
			return;
		}
		if (nl && len >= pp->target)
			break;
		/* room: len < max(target, RX_LINE_MAX), bufsize is that + readsize */
		n = tinput_read(pp->in, b + len, pp->readsize, &ck->e);
		if (n < 0) {
			ck->len = line;
			ck->end = END_READ;
			return;
		}
		if (n == 0) {
			pp->eof = true;
			continue;
		}
		ck->bytes += (uint64_t)n;
		first = memchr(b + len, '\n', (size_t)n);
		if (first) {
			if ((size_t)(first - (b + line)) >= RX_LINE_MAX)
				goto long_line;
			line = (size_t)((char *)memrchr(first, '\n', (size_t)(b + len + n - first)) + 1 - b);
			nl = true;
		}
		len += (size_t)n;
		if (len - line >= RX_LINE_MAX)
			goto long_line;
	}
	ck->len = line;
	pp->ncarry = len - line;
	memcpy(pp->carry, b + line, pp->ncarry);
	return;
long_line:
	ck->len = line;
	ck->end = END_LONG;
}

/* bqlt_scan() @ck into its entries, grown as needed (this thread's now) */
static void scan(struct par *pp, struct pchunk *ck)
{
	const char *pos = ck->buf, *end = ck->buf + ck->len;

	ck->nent = 0;
	if (!ck->scanned)
		return;
	while (pos < end) {
		if (ck->nent == ck->cap) {
			unsigned int cap = ck->cap ? 2 * ck->cap : (unsigned int)(ck->len / 16) + 64;
			struct bqlt_fast *ent = realloc(ck->ent, (size_t)cap * sizeof(*ent));

			if (!ent) {	/* the consumer parses the whole chunk */
				ck->scanned = false;
				return;
			}
			ck->ent = ent;
			ck->cap = cap;
		}
		ck->nent += bqlt_scan(&pp->f->p, &pos, end, ck->ent + ck->nent,
				      ck->cap - ck->nent);
	}
}

/*
 * One step of any thread: claim the next chunk, fill and scan it. false
 * if there was none to claim (no free slot, the input done, stopped).
 */
static bool step(struct par *pp, bool scan_it)
{
	struct pchunk *ck;

	pthread_mutex_lock(&pp->rd);
	pthread_mutex_lock(&pp->mu);
	if (pp->stop || pp->in_done || pp->next_read - pp->next_use >= pp->nck) {
		pthread_mutex_unlock(&pp->mu);
		pthread_mutex_unlock(&pp->rd);
		return false;
	}
	ck = &pp->ck[pp->next_read % pp->nck];
	ck->seq = pp->next_read++;
	ck->scanned = ck->scanning = scan_it && pp->scan_ok && ck->seq >= pp->scan_from;
	/* before the scan reads the table: reclaim() keeps that one */
	if (ck->scanning)
		ck->gen = bqlt_parser_gen(&pp->f->p);
	pthread_mutex_unlock(&pp->mu);
	fill(pp, ck);
	if (ck->end) {
		pthread_mutex_lock(&pp->mu);
		pp->in_done = true;
		pthread_mutex_unlock(&pp->mu);
	}
	pthread_mutex_unlock(&pp->rd);
	scan(pp, ck);
	pthread_mutex_lock(&pp->mu);
	ck->scanning = false;
	ck->ready = true;
	pthread_cond_broadcast(&pp->cv);
	pthread_mutex_unlock(&pp->mu);
	return true;
}

/* under mu: whether a thread would claim the next chunk */
static bool worker_may(const struct par *pp)
{
	return pp->next_read - pp->next_use < pp->nck && pp->next_read >= pp->scan_from;
}

static void *worker(void *arg)
{
	struct par *pp = arg;

	pthread_mutex_lock(&pp->mu);
	while (!pp->stop && !pp->in_done) {
		if (!worker_may(pp)) {
			pthread_cond_wait(&pp->cv, &pp->mu);
			continue;
		}
		pthread_mutex_unlock(&pp->mu);
		step(pp, true);
		pthread_mutex_lock(&pp->mu);
	}
	pthread_mutex_unlock(&pp->mu);
	return NULL;
}

/* ------------------------------------------------------------ the consumer */

/*
 * Replay the lines of @ck: the scanned records the parser accepts, and
 * the other lines parsed here (bqlt_parse_batch() up to the entry's end),
 * in file order, RX_BATCH records at a time. *@nself: bytes parsed here.
 */
static int consume(struct par *pp, struct pchunk *ck, size_t *nself)
{
	struct rx *x = pp->x;
	struct rfile *f = pp->f;
	const char *pos = ck->buf;
	struct bqlt_rec recs[RX_BATCH];
	struct bql_err pe;
	unsigned int n = 0, i;
	int perr = 0, ret;

	x->bytes += ck->bytes;
	*nself = ck->len;
	if (!ck->scanned)
		return rx_feed_block(x, f, ck->buf, ck->buf + ck->len);
	*nself = 0;
	for (i = 0; i < ck->nent;) {
		const char *stop;
		unsigned int k, want;
		size_t len;

		if (n == RX_BATCH) {
			ret = rx_replay_recs(x, f, recs, n, NULL);
			if (ret)
				return ret;
			n = 0;
		}
		want = ck->nent - i < RX_BATCH - n ? ck->nent - i : RX_BATCH - n;
		k = bqlt_accept_run(&f->p, &ck->ent[i], want, recs + n, &len);
		if (k) {
			n += k;
			i += k;
			pos += len;
			continue;
		}
		/* a run of lines (or a record the parser refused): parse them */
		stop = pos + ck->ent[i++].len;
		*nself += (size_t)(stop - pos);
		while (pos < stop && perr >= 0) {
			if (n == RX_BATCH) {
				ret = rx_replay_recs(x, f, recs, n, NULL);
				if (ret)
					return ret;
				n = 0;
			}
			n += bqlt_parse_batch(&f->p, &pos, stop, recs + n, RX_BATCH - n, &perr, &pe);
		}
		if (perr < 0)
			break;
	}
	return rx_replay_recs(x, f, recs, n, perr < 0 ? &pe : NULL);
}

/* the chunk the consumer needs next, once it is filled (and scanned) */
static struct pchunk *take(struct par *pp)
{
	struct pchunk *ck = &pp->ck[pp->next_use % pp->nck];

	pthread_mutex_lock(&pp->mu);
	while (!(ck->ready && ck->seq == pp->next_use)) {
		if (pp->next_read == pp->next_use && !pp->in_done) {
			/*
			 * Nobody took it: read it here, and parse it as the
			 * single-threaded path does, without scanning it first
			 * (if a thread takes it meanwhile, this reads the next
			 * one, which is then parsed here all the same).
			 */
			pthread_mutex_unlock(&pp->mu);
			step(pp, false);
			pthread_mutex_lock(&pp->mu);
			continue;
		}
		if (!pp->in_done && pp->next_read - pp->next_use < pp->nck) {
			/*
			 * A thread is at it: rather than wait, read and scan
			 * the next free one (on two cores, waiting for the
			 * chunk in progress left a core idle a fifth of the
			 * time).
			 */
			pthread_mutex_unlock(&pp->mu);
			step(pp, true);
			pthread_mutex_lock(&pp->mu);
			continue;
		}
		pthread_cond_wait(&pp->cv, &pp->mu);
	}
	pthread_mutex_unlock(&pp->mu);
	return ck;
}

/*
 * After the consumer took @ck, scanned if @ck->scanned, @nself of its
 * @ck->len bytes parsed here, @declared queues declared in it: rest the
 * threads, or wake them (see struct par).
 */
static void judge(struct par *pp, struct pchunk *ck, size_t nself, unsigned int declared)
{
	pp->nparsed += nself;
	if (!ck->scanned) {
		if (!pp->resting || ck->seq < pp->rest_until || declared)
			return;
		pp->resting = false;
		pthread_mutex_lock(&pp->mu);
		pp->scan_from = pp->next_read;
		pthread_cond_broadcast(&pp->cv);
		pthread_mutex_unlock(&pp->mu);
		return;
	}
	pp->nscanned += ck->len - nself;
	if (nself * 8 < (size_t)ck->len * 7) {
		pp->misses = 0;
		pp->backoff = 0;
		return;
	}
	if (++pp->misses < 2 || pp->resting)
		return;
	pp->misses = 0;
	pp->backoff = pp->backoff ? 2 * pp->backoff : 4;
	if (pp->backoff > PAR_BACKOFF_MAX)
		pp->backoff = PAR_BACKOFF_MAX;
	pp->resting = true;
	pp->rest_until = ck->seq + pp->backoff;
	pthread_mutex_lock(&pp->mu);
	pp->scan_from = UINT64_MAX;
	pthread_mutex_unlock(&pp->mu);
}

static void release(struct par *pp, struct pchunk *ck)
{
	struct bqlt_parser *p = &pp->f->p;
	uint64_t gen = UINT64_MAX;
	unsigned int i;

	pthread_mutex_lock(&pp->mu);
	ck->ready = false;
	pp->next_use++;
	/* tables the parser outgrew, that no scan still running may read */
	if (bqlt_parser_retired(p)) {
		for (i = 0; i < pp->nck; i++)
			if (pp->ck[i].scanning && pp->ck[i].gen < gen)
				gen = pp->ck[i].gen;
		bqlt_parser_reclaim(p, gen);
	}
	pthread_cond_broadcast(&pp->cv);
	pthread_mutex_unlock(&pp->mu);
}

/* the end of the chunk stream: the input's end, or why it stopped */
static int finish(struct par *pp, struct pchunk *ck)
{
	struct rx *x = pp->x;
	struct rfile *f = pp->f;
	struct bql_err e;

	if (ck->end == END_READ)
		return rx_read_fail(x, f, &ck->e);
	if (ck->end == END_LONG)
		return rx_long_line(x, f);
	if (bqlt_parse_end(&f->p, &e) < 0)
		return rx_trace_fail(x, &e);
	return 0;
}

/* BQLTOOL_REPLAY_CHUNK=BYTES: tests cut small traces into many chunks */
static size_t chunk_target(void)
{
	const char *s = getenv("BQLTOOL_REPLAY_CHUNK");
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return PAR_CHUNK;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || !v || v > (64u << 20))
		return PAR_CHUNK;
	return (size_t)v;
}

static void par_bufs_free(struct par *pp)
{
	unsigned int i;

	for (i = 0; pp->ck && i < pp->nck; i++) {
		free(pp->ck[i].buf);
		free(pp->ck[i].ent);
	}
	free(pp->ck);
	free(pp->carry);
	pp->ck = NULL;
	pp->carry = NULL;
	pp->nck = 0;
}

static void par_free(struct par *pp)
{
	par_bufs_free(pp);
	pthread_mutex_destroy(&pp->rd);
	pthread_mutex_destroy(&pp->mu);
	pthread_cond_destroy(&pp->cv);
}

static int par_alloc(struct par *pp, unsigned int jobs)
{
	unsigned int i;

	pp->target = chunk_target();
	pp->readsize = pp->target < RX_READ ? pp->target : RX_READ;
	pp->bufsize = (pp->target > RX_LINE_MAX ? pp->target : RX_LINE_MAX) + pp->readsize;
	pp->nck = 2 * jobs + 2;
	pp->ck = calloc(pp->nck, sizeof(*pp->ck));
	pp->carry = malloc(RX_LINE_MAX);
	if (!pp->ck || !pp->carry)
		return -ENOMEM;
	/* malloc'd, not touched: only the bytes read take memory */
	for (i = 0; i < pp->nck; i++) {
		pp->ck[i].buf = malloc(pp->bufsize);
		if (!pp->ck[i].buf)
			return -ENOMEM;
	}
	return 0;
}

int rx_replay_par(struct rx *x, struct rfile *f, struct tinput *in, unsigned int jobs)
{
	struct par pp = { .x = x, .f = f, .in = in };
	struct pchunk *ck;
	unsigned int i;
	size_t nself;
	int ret;

	pthread_mutex_init(&pp.rd, NULL);
	pthread_mutex_init(&pp.mu, NULL);
	pthread_cond_init(&pp.cv, NULL);
	/*
	 * Each thread needs chunks in flight: under a tight address space
	 * (ulimit -v), fewer threads, down to the caller's single thread,
	 * whose output is the same
	 */
	for (unsigned int want = jobs; par_alloc(&pp, jobs); ) {
		par_bufs_free(&pp);
		if (jobs <= 2) {
			par_free(&pp);
			if (x->c->verbose)
				cmd_note(x->c, "replay: %s: -J %u: out of memory for the threads' "
					 "chunks: 1 thread", f->path, want);
			return RX_PAR_SERIAL;
		}
		jobs /= 2;
		if (x->c->verbose)
			cmd_note(x->c, "replay: %s: -J %u: out of memory for the threads' "
				 "chunks: trying %u", f->path, want, jobs);
	}
	/*
	 * The first chunk (the header: magic, hz, queues) is read and parsed
	 * here; then the threads scan with the parser's own queue table
	 * (bqlt_parser_share()); a trace of one chunk needs none.
	 */
	ck = take(&pp);
	ret = consume(&pp, ck, &nself);
	pp.nparsed += nself;
	if (!ret && !ck->end) {
		bqlt_parser_share(&f->p);
		pp.scan_ok = true;
		/* -J N: N threads, this one and N - 1 that scan ahead */
		for (i = 0; i + 1 < jobs && i < RX_JOBS_MAX; i++) {
			if (stops_thread_create(&pp.th[pp.nth], NULL, worker, &pp))
				break;	/* fewer threads: the consumer helps */
			pp.nth++;
		}
	}
	while (!ret && !ck->end) {
		unsigned int nq = bqlt_queue_count(&f->p);

		release(&pp, ck);
		ck = take(&pp);
		ret = consume(&pp, ck, &nself);
		rx_progress(x);
		if (!ret)
			judge(&pp, ck, nself, bqlt_queue_count(&f->p) - nq);
	}
	if (!ret)
		ret = finish(&pp, ck);
	pthread_mutex_lock(&pp.mu);
	pp.stop = true;
	pthread_cond_broadcast(&pp.cv);
	pthread_mutex_unlock(&pp.mu);
	for (i = 0; i < pp.nth; i++)
		pthread_join(pp.th[i], NULL);
	bqlt_parser_reclaim(&f->p, UINT64_MAX);
	if (!ret && pp.nth && x->c->verbose)
		cmd_note(x->c, "replay: %s: %.0f%% of the trace scanned ahead by the threads",
			 f->path, pp.nscanned + pp.nparsed ?
			 100.0 * (double)pp.nscanned / (double)(pp.nscanned + pp.nparsed) : 0.0);
	par_free(&pp);
	return ret;
}
