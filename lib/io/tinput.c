// SPDX-License-Identifier: GPL-2.0-only
/*
 * tinput: a trace file or stdin, plain, gzip or zstd (by magic bytes),
 * decompressed while streaming (see tinput.h). A compressed input is
 * decompressed by a thread of its own into a few blocks, so that the
 * caller parses one block while the next is being decompressed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "lib/io/stops.h"
#include "lib/io/tinput.h"

#define TINPUT_BUF	(128u << 10)	/* compressed bytes read at a time */
#define TINPUT_BLK	(64u << 10)	/* decompressed bytes handed over at a time */
#define TINPUT_NBLK	8		/* blocks in flight: memory is NBLK * BLK */

/* decompressed blocks from the decompressing thread to the reader */
struct tblock {
	char *data;
	size_t len;
};

struct tpipe {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;		/* a block filled, freed, or the end */
	struct tblock blk[TINPUT_NBLK];
	unsigned int head, count;	/* filled blocks: head .. head + count - 1 */
	size_t off;			/* bytes of blk[head] the reader took */
	bool done, stop;		/* worker finished; reader gone */
	int stopfd;			/* eventfd: wakes a worker waiting for input */
	ssize_t result;			/* 0 or -errno after the last block */
	struct bql_err e;
};

struct tinput {
	char *path;
	int fd;
	bool is_stdin;
	bool eof;		/* read(2) returned 0 */
	bool boundary;		/* between gzip members / zstd frames */
	enum tinput_codec codec;
	unsigned char *in;	/* raw bytes [pos, len) not yet used */
	size_t pos, len;
	uint64_t raw;
	z_stream z;
	bool z_live;
	ZSTD_DStream *zd;
	struct tpipe *pipe;	/* compressed input: the decompressing thread */
	bool no_thread;		/* none could be started: decompress inline */
};

static const char *const codec_name[] = {
	[TINPUT_PLAIN] = "plain", [TINPUT_GZIP] = "gzip", [TINPUT_ZSTD] = "zstd",
};

/* read(2) more raw bytes after those kept; 0 at EOF, -errno */
static ssize_t fill(struct tinput *t, struct bql_err *e)
{
	ssize_t n;

	if (t->pos == t->len) {
		t->pos = 0;
		t->len = 0;
	} else if (t->pos) {
		memmove(t->in, t->in + t->pos, t->len - t->pos);
		t->len -= t->pos;
		t->pos = 0;
	}
	if (t->eof || t->len == TINPUT_BUF)
		return 0;
	/*
	 * The decompressing thread waits for input (a pipe whose producer may
	 * never end) in poll(), so that tinput_close() can wake it up.
	 */
	if (t->pipe) {
		struct pollfd pf[2] = {
			{ .fd = t->fd, .events = POLLIN },
			{ .fd = t->pipe->stopfd, .events = POLLIN },
		};

		while (poll(pf, 2, -1) < 0)
			if (errno != EINTR)
				return bql_err_set(e, errno, "%s: read error: %s", t->path,
						   strerror(errno));
		if (pf[1].revents)
			return bql_err_set(e, ECANCELED, "%s: closed", t->path);
	}
	do {
		n = read(t->fd, t->in + t->len, TINPUT_BUF - t->len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return bql_err_set(e, errno, "%s: read error: %s", t->path, strerror(errno));
	if (n == 0)
		t->eof = true;
	t->len += (size_t)n;
	__atomic_store_n(&t->raw, t->raw + (uint64_t)n, __ATOMIC_RELAXED);
	return n;
}

/* at least @n raw bytes buffered, or as many as there are before EOF */
static int want(struct tinput *t, size_t n, struct bql_err *e)
{
	while (t->len - t->pos < n && !t->eof) {
		ssize_t r = fill(t, e);

		if (r < 0)
			return (int)r;
	}
	return 0;
}

static bool is_gzip(const unsigned char *p, size_t n)
{
	return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

/* a zstd frame or a skippable frame (0x184D2A5?) */
static bool is_zstd(const unsigned char *p, size_t n)
{
	return n >= 4 && ((p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd) ||
			  ((p[0] & 0xf0) == 0x50 && p[1] == 0x2a && p[2] == 0x4d && p[3] == 0x18));
}

/* could these few bytes before EOF be the start of a member/frame? */
static bool is_magic_prefix(enum tinput_codec c, const unsigned char *p, size_t n)
{
	static const unsigned char gz[] = { 0x1f, 0x8b }, zs[] = { 0x28, 0xb5, 0x2f, 0xfd };

	if (c == TINPUT_GZIP)
		return n < sizeof(gz) && !memcmp(p, gz, n);
	return n < sizeof(zs) && !memcmp(p, zs, n);
}

int tinput_open(struct tinput **tp, const char *path, struct bql_err *e)
{
	struct tinput *t;
	int ret;

	*tp = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return bql_err_set(e, ENOMEM, "%s: out of memory", path);
	t->fd = -1;
	t->path = strdup(path);
	t->in = malloc(TINPUT_BUF);
	if (!t->path || !t->in) {
		tinput_close(t);
		return bql_err_set(e, ENOMEM, "%s: out of memory", path);
	}
	t->is_stdin = !strcmp(path, "-");
	if (t->is_stdin) {
		t->fd = STDIN_FILENO;
	} else {
		t->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (t->fd < 0) {
			ret = bql_err_set(e, errno, "%s: %s", path, strerror(errno));
			tinput_close(t);
			return ret;
		}
		posix_fadvise(t->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	}
	ret = want(t, 4, e);
	if (ret) {
		tinput_close(t);
		return ret;
	}
	if (is_gzip(t->in, t->len)) {
		t->codec = TINPUT_GZIP;
		if (inflateInit2(&t->z, 15 + 16) != Z_OK) {
			tinput_close(t);
			return bql_err_set(e, ENOMEM, "%s: out of memory", path);
		}
		t->z_live = true;
	} else if (is_zstd(t->in, t->len)) {
		t->codec = TINPUT_ZSTD;
		t->zd = ZSTD_createDStream();
		if (!t->zd) {
			tinput_close(t);
			return bql_err_set(e, ENOMEM, "%s: out of memory", path);
		}
	}
	*tp = t;
	return 0;
}

/*
 * Between members or frames: the clean end of the input, the next one
 * (1), or what follows is not one.
 */
static int next_member(struct tinput *t, struct bql_err *e)
{
	size_t need = t->codec == TINPUT_GZIP ? 2 : 4, have;
	const unsigned char *p;
	int ret = want(t, need, e);

	if (ret)
		return ret;
	p = t->in + t->pos;
	have = t->len - t->pos;
	if (!have)
		return 0;
	if (t->codec == TINPUT_GZIP ? is_gzip(p, have) : is_zstd(p, have)) {
		t->boundary = false;
		if (t->codec == TINPUT_GZIP && inflateReset(&t->z) != Z_OK)
			return bql_err_set(e, EIO, "%s: gzip: cannot restart", t->path);
		return 1;
	}
	if (have < need && is_magic_prefix(t->codec, p, have))
		return bql_err_set(e, EPIPE, "%s: truncated %s stream", t->path,
				   codec_name[t->codec]);
	return bql_err_set(e, EILSEQ, "%s: trailing garbage after the %s data", t->path,
			   codec_name[t->codec]);
}

static ssize_t read_gzip(struct tinput *t, void *buf, size_t len, struct bql_err *e)
{
	for (;;) {
		size_t avail_in, made;
		int zr;

		if (t->boundary) {
			int r = next_member(t, e);

			if (r <= 0)
				return r;
		}
		if (t->pos == t->len) {
			ssize_t n = fill(t, e);

			if (n < 0)
				return n;
			if (n == 0)
				return bql_err_set(e, EPIPE, "%s: truncated gzip stream", t->path);
		}
		avail_in = t->len - t->pos;
		t->z.next_in = t->in + t->pos;
		t->z.avail_in = (uInt)avail_in;
		t->z.next_out = buf;
		t->z.avail_out = len > UINT32_MAX ? UINT32_MAX : (uInt)len;
		made = t->z.avail_out;
		zr = inflate(&t->z, Z_NO_FLUSH);
		t->pos += avail_in - t->z.avail_in;
		made -= t->z.avail_out;
		switch (zr) {
		case Z_STREAM_END:
			t->boundary = true;
			break;
		case Z_OK:
		case Z_BUF_ERROR:	/* no progress: needs more input */
			break;
		case Z_MEM_ERROR:
			return bql_err_set(e, ENOMEM, "%s: out of memory", t->path);
		default:
			return bql_err_set(e, EILSEQ, "%s: corrupt gzip data: %s", t->path,
					   t->z.msg ? t->z.msg : "invalid stream");
		}
		if (made)
			return (ssize_t)made;
	}
}

static ssize_t read_zstd(struct tinput *t, void *buf, size_t len, struct bql_err *e)
{
	for (;;) {
		ZSTD_outBuffer out = { buf, len, 0 };
		ZSTD_inBuffer in;
		size_t r;

		if (t->boundary) {
			int n = next_member(t, e);

			if (n <= 0)
				return n;
		}
		if (t->pos == t->len) {
			ssize_t n = fill(t, e);

			if (n < 0)
				return n;
			if (n == 0)
				return bql_err_set(e, EPIPE, "%s: truncated zstd stream", t->path);
		}
		in.src = t->in;
		in.size = t->len;
		in.pos = t->pos;
		r = ZSTD_decompressStream(t->zd, &out, &in);
		t->pos = in.pos;
		if (ZSTD_isError(r)) {
			if (ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation)
				return bql_err_set(e, ENOMEM, "%s: out of memory", t->path);
			return bql_err_set(e, EILSEQ, "%s: corrupt zstd data: %s", t->path,
					   ZSTD_getErrorName(r));
		}
		if (r == 0)	/* a frame decoded and flushed */
			t->boundary = true;
		if (out.pos)
			return (ssize_t)out.pos;
	}
}

/* decompress @len bytes or fewer, in this thread */
static ssize_t read_codec(struct tinput *t, void *buf, size_t len, struct bql_err *e)
{
	return t->codec == TINPUT_GZIP ? read_gzip(t, buf, len, e) : read_zstd(t, buf, len, e);
}

/* the decompressing thread: fills free blocks until the end or an error */
static void *pipe_worker(void *arg)
{
	struct tinput *t = arg;
	struct tpipe *pp = t->pipe;
	struct bql_err e = { 0 };
	ssize_t n = 0;

	for (;;) {
		struct tblock *b;
		size_t len = 0;

		pthread_mutex_lock(&pp->mu);
		while (pp->count == TINPUT_NBLK && !pp->stop)
			pthread_cond_wait(&pp->cv, &pp->mu);
		if (pp->stop) {
			pthread_mutex_unlock(&pp->mu);
			return NULL;
		}
		b = &pp->blk[(pp->head + pp->count) % TINPUT_NBLK];
		pthread_mutex_unlock(&pp->mu);
		/* a whole block, unless the input ends or fails first */
		while (len < TINPUT_BLK) {
			n = read_codec(t, b->data + len, TINPUT_BLK - len, &e);
			if (n <= 0)
				break;
			len += (size_t)n;
		}
		pthread_mutex_lock(&pp->mu);
		if (len) {
			b->len = len;
			pp->count++;
		}
		if (n <= 0) {
			pp->done = true;
			pp->result = n;
			pp->e = e;
		}
		pthread_cond_broadcast(&pp->cv);
		pthread_mutex_unlock(&pp->mu);
		if (n <= 0)
			return NULL;
	}
}

static void pipe_free(struct tpipe *pp)
{
	unsigned int i;

	for (i = 0; i < TINPUT_NBLK; i++)
		free(pp->blk[i].data);
	if (pp->stopfd >= 0)
		close(pp->stopfd);
	pthread_mutex_destroy(&pp->mu);
	pthread_cond_destroy(&pp->cv);
	free(pp);
}

/* start decompressing in a thread; without one, tinput_read() does it */
static void pipe_start(struct tinput *t)
{
	struct tpipe *pp = calloc(1, sizeof(*pp));
	unsigned int i;

	t->no_thread = true;
	if (!pp)
		return;
	pthread_mutex_init(&pp->mu, NULL);
	pthread_cond_init(&pp->cv, NULL);
	pp->stopfd = eventfd(0, EFD_CLOEXEC);
	if (pp->stopfd < 0) {
		pipe_free(pp);
		return;
	}
	for (i = 0; i < TINPUT_NBLK; i++) {
		pp->blk[i].data = malloc(TINPUT_BLK);
		if (!pp->blk[i].data) {
			pipe_free(pp);
			return;
		}
	}
	t->pipe = pp;
	if (stops_thread_create(&pp->thread, NULL, pipe_worker, t)) {
		t->pipe = NULL;
		pipe_free(pp);
	}
}

/* the next decompressed bytes from the thread's blocks */
static ssize_t pipe_read(struct tinput *t, void *buf, size_t len, struct bql_err *e)
{
	struct tpipe *pp = t->pipe;
	struct tblock *b;
	size_t k;

	pthread_mutex_lock(&pp->mu);
	while (!pp->count && !pp->done)
		pthread_cond_wait(&pp->cv, &pp->mu);
	if (!pp->count) {
		ssize_t r = pp->result;

		if (r < 0 && e)
			*e = pp->e;
		pthread_mutex_unlock(&pp->mu);
		return r;
	}
	b = &pp->blk[pp->head];
	pthread_mutex_unlock(&pp->mu);
	/* the head block is the reader's until it is used up */
	k = b->len - pp->off < len ? b->len - pp->off : len;
	memcpy(buf, b->data + pp->off, k);
	pp->off += k;
	if (pp->off == b->len) {
		pthread_mutex_lock(&pp->mu);
		pp->off = 0;
		pp->head = (pp->head + 1) % TINPUT_NBLK;
		pp->count--;
		pthread_cond_broadcast(&pp->cv);
		pthread_mutex_unlock(&pp->mu);
	}
	return (ssize_t)k;
}

ssize_t tinput_read(struct tinput *t, void *buf, size_t len, struct bql_err *e)
{
	ssize_t n;

	if (!len)
		return 0;
	if (t->codec != TINPUT_PLAIN) {
		if (!t->pipe && !t->no_thread)
			pipe_start(t);
		if (t->pipe)
			return pipe_read(t, buf, len, e);
		return read_codec(t, buf, len, e);
	}
	if (t->pos < t->len) {	/* the bytes read to sniff the format */
		size_t k = t->len - t->pos < len ? t->len - t->pos : len;

		memcpy(buf, t->in + t->pos, k);
		t->pos += k;
		return (ssize_t)k;
	}
	if (t->eof)
		return 0;
	do {
		n = read(t->fd, buf, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return bql_err_set(e, errno, "%s: read error: %s", t->path, strerror(errno));
	if (n == 0)
		t->eof = true;
	t->raw += (uint64_t)n;
	return n;
}

enum tinput_codec tinput_codec(const struct tinput *t)
{
	return t->codec;
}

bool tinput_regular(const struct tinput *t)
{
	struct stat st;

	return !fstat(t->fd, &st) && S_ISREG(st.st_mode);
}

uint64_t tinput_raw_bytes(const struct tinput *t)
{
	return __atomic_load_n(&t->raw, __ATOMIC_RELAXED);
}

void tinput_close(struct tinput *t)
{
	if (!t)
		return;
	if (t->pipe) {
		struct tpipe *pp = t->pipe;

		pthread_mutex_lock(&pp->mu);
		pp->stop = true;
		pthread_cond_broadcast(&pp->cv);
		pthread_mutex_unlock(&pp->mu);
		eventfd_write(pp->stopfd, 1);	/* a worker in poll() wakes up */
		pthread_join(pp->thread, NULL);
		pipe_free(pp);
	}
	if (t->fd >= 0 && !t->is_stdin)
		close(t->fd);
	if (t->z_live)
		inflateEnd(&t->z);
	ZSTD_freeDStream(t->zd);
	free(t->in);
	free(t->path);
	free(t);
}

bool tinput_blame(struct tinput *t, struct bql_err *e)
{
	size_t cap = 64 << 10, done = 0;
	struct bql_err de;
	char *scratch;
	ssize_t n = 0;

	if (!t || t->codec == TINPUT_PLAIN)
		return false;
	scratch = malloc(cap);
	if (!scratch)
		return false;
	while (done < TINPUT_BLAME_MAX && (n = tinput_read(t, scratch, cap, &de)) > 0)
		done += (size_t)n;
	free(scratch);
	if (n >= 0)
		return false;
	{
		char msg[sizeof(e->msg)];

		memcpy(msg, e->msg, sizeof(msg));
		bql_fmt_fit(e->msg, sizeof(e->msg), "%s (possibly corrupt input: %s)", msg, de.msg);
	}
	return true;
}
