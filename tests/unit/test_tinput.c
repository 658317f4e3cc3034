// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/io/tinput.c: plain, gzip and zstd input read back whole whatever the
 * read size; concatenated members and frames; truncated, corrupt and
 * trailing-garbage streams named as such; empty input; stdin (a file and
 * a pipe); missing files and directories.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cmocka.h>

#include "lib/io/tinput.h"
#include "tests/unit/tmptree.h"

static char dir[64];

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static void buf_add(struct buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = realloc(b->p, b->cap);
	}
	assert_non_null(b->p);
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

/* @n bytes of trace-like text that compresses, but not to nothing */
static struct buf text(size_t n, unsigned int seed)
{
	struct buf b = { NULL, 0, 0 };
	char line[64];

	while (b.len < n) {
		seed = seed * 1103515245u + 12345u;
		int k = snprintf(line, sizeof(line), "%u eth0:tx-%u C %u\n", seed >> 8,
				 seed % 12, seed % 65536);
		buf_add(&b, line, b.len + (size_t)k > n ? n - b.len : (size_t)k);
	}
	if (!b.p)
		b.p = malloc(1);
	return b;
}

static struct buf gz(const struct buf *in)
{
	struct buf b = { malloc(compressBound(in->len) + 64), 0, 0 };
	z_stream z = { 0 };

	assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = in->p;
	z.avail_in = (uInt)in->len;
	z.next_out = b.p;
	z.avail_out = (uInt)compressBound(in->len) + 64;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	b.len = z.total_out;
	deflateEnd(&z);
	return b;
}

/* a zstd frame with a checksum (so that any corruption is detected) */
static struct buf zst(const struct buf *in)
{
	size_t cap = ZSTD_compressBound(in->len);
	struct buf b = { malloc(cap), 0, 0 };
	ZSTD_CCtx *c = ZSTD_createCCtx();

	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	b.len = ZSTD_compress2(c, b.p, cap, in->p, in->len);
	assert_false(ZSTD_isError(b.len));
	ZSTD_freeCCtx(c);
	return b;
}

static char *put(const char *name, const void *p, size_t n)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* everything @path decodes to, read @chunk bytes at a time; -errno and @e on failure */
static ssize_t slurp(const char *path, size_t chunk, struct buf *out, struct bql_err *e,
		     enum tinput_codec *codec)
{
	struct tinput *t;
	unsigned char *tmp = malloc(chunk);
	ssize_t n;

	out->p = NULL;
	out->len = 0;
	out->cap = 0;
	assert_non_null(tmp);
	n = tinput_open(&t, path, e);
	if (n) {
		free(tmp);
		return n;
	}
	if (codec)
		*codec = tinput_codec(t);
	while ((n = tinput_read(t, tmp, chunk, e)) > 0) {
		assert_true((size_t)n <= chunk);
		buf_add(out, tmp, (size_t)n);
	}
	if (!n)
		assert_int_equal(tinput_read(t, tmp, chunk, e), 0);	/* stays at the end */
	tinput_close(t);
	free(tmp);
	return n < 0 ? n : (ssize_t)out->len;
}

static void assert_same(const struct buf *a, const struct buf *b)
{
	assert_int_equal(a->len, b->len);
	assert_memory_equal(a->p, b->p, a->len);
}

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/bqltool-tinput.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf '%s'", dir);
	return 0;
}

static const size_t chunks[] = { 1, 7, 4096, 1u << 20 };

static void check_round_trip(const char *name, const struct buf *file, const struct buf *want,
			     enum tinput_codec codec)
{
	const char *path = put(name, file->p, file->len);
	struct bql_err e;
	size_t i;

	for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		struct buf got;
		enum tinput_codec c;

		if (chunks[i] == 1 && want->len > 100000)
			continue;
		assert_int_equal(slurp(path, chunks[i], &got, &e, &c), (ssize_t)want->len);
		assert_int_equal(c, codec);
		assert_same(&got, want);
		free(got.p);
	}
}

static void test_plain(void **state)
{
	struct buf t = text(300000, 1);
	unsigned char ab[] = "ab";
	struct buf small = { ab, 2, 0 };

	(void)state;
	check_round_trip("plain", &t, &t, TINPUT_PLAIN);
	/* shorter than the magic bytes looked at */
	check_round_trip("small", &small, &small, TINPUT_PLAIN);
	free(t.p);
}

static void test_gzip(void **state)
{
	struct buf t = text(1u << 20, 2), z = gz(&t);

	(void)state;
	assert_true(z.len < t.len / 2);
	check_round_trip("t.gz", &z, &t, TINPUT_GZIP);
	/* the magic bytes decide, not the name */
	check_round_trip("t.bqlt", &z, &t, TINPUT_GZIP);
	free(t.p);
	free(z.p);
}

static void test_zstd(void **state)
{
	struct buf t = text(1u << 20, 3), z = zst(&t);

	(void)state;
	assert_true(z.len < t.len / 2);
	check_round_trip("t.zst", &z, &t, TINPUT_ZSTD);
	check_round_trip("t.trace", &z, &t, TINPUT_ZSTD);
	free(t.p);
	free(z.p);
}

/* members / frames one after the other read as one stream, empty ones too */
static void test_concatenated(void **state)
{
	unsigned char nothing[1] = "";
	struct buf a = text(70000, 4), b = text(5, 5), none = { nothing, 0, 0 };
	struct buf all = { NULL, 0, 0 }, file = { NULL, 0, 0 };
	struct buf za = gz(&a), zb = gz(&b), zn = gz(&none);
	struct buf sa = zst(&a), sb = zst(&b), sn = zst(&none);
	/* a skippable frame: magic, length 3, 3 bytes */
	static const unsigned char skip[] = { 0x5a, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3 };

	(void)state;
	buf_add(&all, a.p, a.len);
	buf_add(&all, b.p, b.len);
	buf_add(&all, a.p, a.len);

	buf_add(&file, za.p, za.len);
	buf_add(&file, zn.p, zn.len);
	buf_add(&file, zb.p, zb.len);
	buf_add(&file, za.p, za.len);
	check_round_trip("cat.gz", &file, &all, TINPUT_GZIP);

	free(file.p);
	file.p = NULL;
	file.len = file.cap = 0;
	buf_add(&file, sa.p, sa.len);
	buf_add(&file, skip, sizeof(skip));
	buf_add(&file, sb.p, sb.len);
	buf_add(&file, sn.p, sn.len);
	buf_add(&file, sa.p, sa.len);
	check_round_trip("cat.zst", &file, &all, TINPUT_ZSTD);

	free(file.p);
	free(all.p);
	free(a.p), free(b.p), free(za.p), free(zb.p), free(zn.p);
	free(sa.p), free(sb.p), free(sn.p);
}

/* one frame made of many blocks, flushed apart, as record writes it */
static void test_zstd_flushed_blocks(void **state)
{
	struct buf t = text(200000, 6), file = { NULL, 0, 0 };
	ZSTD_CStream *c = ZSTD_createCStream();
	unsigned char out[1 << 16];
	size_t off = 0;

	(void)state;
	while (off < t.len) {
		size_t n = t.len - off < 1000 ? t.len - off : 1000, left;
		ZSTD_inBuffer in = { t.p + off, n, 0 };

		do {
			ZSTD_outBuffer o = { out, sizeof(out), 0 };

			left = ZSTD_compressStream2(c, &o, &in, ZSTD_e_flush);
			assert_false(ZSTD_isError(left));
			buf_add(&file, out, o.pos);
		} while (left);
		off += n;
	}
	for (;;) {
		ZSTD_inBuffer in = { NULL, 0, 0 };
		ZSTD_outBuffer o = { out, sizeof(out), 0 };
		size_t left = ZSTD_compressStream2(c, &o, &in, ZSTD_e_end);

		buf_add(&file, out, o.pos);
		if (!left)
			break;
	}
	ZSTD_freeCStream(c);
	check_round_trip("blocks.zst", &file, &t, TINPUT_ZSTD);
	free(t.p);
	free(file.p);
}

static void check_fails(const char *name, const struct buf *file, const char *what)
{
	const char *path = put(name, file->p, file->len);
	char want[256];
	struct bql_err e;
	struct buf got;
	ssize_t n;

	snprintf(want, sizeof(want), "%s: %s", path, what);
	n = slurp(path, 4096, &got, &e, NULL);
	if (n >= 0 || strncmp(e.msg, want, strlen(want)))
		fail_msg("%s (%zu bytes): got %zd '%s', want '%s'", name, file->len, n,
			 n < 0 ? e.msg : "", want);
	free(got.p);
}

/* every cut of a stream is reported as truncated, never as a short trace */
static void test_truncated(void **state)
{
	struct buf t = text(3000, 7), z = gz(&t), s = zst(&t), cut = { NULL, 0, 0 };
	size_t n;

	(void)state;
	/* every cut in the headers and trailers, some in the data */
	for (n = 2; n < z.len; n += n < 30 || n > z.len - 30 ? 1 : 17) {
		cut.p = z.p;
		cut.len = n;
		check_fails("cut.gz", &cut, "truncated gzip stream");
	}
	for (n = 4; n < s.len; n += n < 30 || n > s.len - 30 ? 1 : 17) {
		cut.p = s.p;
		cut.len = n;
		check_fails("cut.zst", &cut, "truncated zstd stream");
	}
	/* a second member cut short: in its magic bytes, then later */
	{
		struct buf two = { NULL, 0, 0 };

		buf_add(&two, z.p, z.len);
		buf_add(&two, z.p, 1);
		check_fails("cut2.gz", &two, "truncated gzip stream");
		buf_add(&two, z.p + 1, 20);
		check_fails("cut2.gz", &two, "truncated gzip stream");
		two.len = 0;
		buf_add(&two, s.p, s.len);
		buf_add(&two, s.p, 3);
		check_fails("cut2.zst", &two, "truncated zstd stream");
		free(two.p);
	}
	free(t.p);
	free(z.p);
	free(s.p);
}

static void test_corrupt(void **state)
{
	struct buf t = text(20000, 8), z = gz(&t), s = zst(&t);
	size_t i;

	(void)state;
	/* the middle of the data, then the CRC of the trailer */
	z.p[z.len / 2] ^= 0x55;
	check_fails("bad.gz", &z, "corrupt gzip data: ");
	z.p[z.len / 2] ^= 0x55;
	z.p[z.len - 6] ^= 1;
	check_fails("bad.gz", &z, "corrupt gzip data: incorrect data check");
	z.p[z.len - 6] ^= 1;
	/* a flipped bit anywhere after the frame header (byte 4 has an unused bit) */
	for (i = 6; i < s.len; i += s.len / 40 + 1) {
		s.p[i] ^= 0x10;
		check_fails("bad.zst", &s, "");
		s.p[i] ^= 0x10;
	}
	s.p[s.len / 2] ^= 0x10;
	check_fails("bad.zst", &s, "corrupt zstd data: ");
	free(t.p);
	free(z.p);
	free(s.p);
}

/* a parse error in what a corrupt stream gave is blamed on the stream */
static void test_blame(void **state)
{
	struct buf t = text(200000, 9), z = gz(&t), s = zst(&t);
	struct bql_err e, oe;
	struct tinput *in;
	char buf[4096];
	const char *path;

	(void)state;
	/* the CRC of the trailer: the text is intact, the verdict comes at the end */
	z.p[z.len - 6] ^= 1;
	path = put("blame.gz", z.p, z.len);
	assert_int_equal(tinput_open(&in, path, &oe), 0);
	assert_true(tinput_read(in, buf, sizeof(buf), &oe) > 0);
	bql_err_set(&e, EINVAL, "line 7: bad record");
	assert_true(tinput_blame(in, &e));
	assert_non_null(strstr(e.msg, "line 7: bad record (possibly corrupt input: "));
	assert_non_null(strstr(e.msg, "blame.gz: corrupt gzip data: incorrect data check)"));
	tinput_close(in);
	/* an intact stream: the parse error is the trace's own */
	z.p[z.len - 6] ^= 1;
	path = put("fine.gz", z.p, z.len);
	assert_int_equal(tinput_open(&in, path, &oe), 0);
	assert_true(tinput_read(in, buf, sizeof(buf), &oe) > 0);
	bql_err_set(&e, EINVAL, "line 7: bad record");
	assert_false(tinput_blame(in, &e));
	assert_string_equal(e.msg, "line 7: bad record");
	tinput_close(in);
	/* zstd, a flipped byte mid-frame */
	s.p[s.len / 2] ^= 0x10;
	path = put("blame.zst", s.p, s.len);
	assert_int_equal(tinput_open(&in, path, &oe), 0);
	bql_err_set(&e, EINVAL, "line 1: bad record");
	assert_true(tinput_blame(in, &e));
	assert_non_null(strstr(e.msg, "(possibly corrupt input: "));
	tinput_close(in);
	/* plain input: nothing to blame, nothing read */
	path = put("plain.bqlt", t.p, t.len);
	assert_int_equal(tinput_open(&in, path, &oe), 0);
	assert_false(tinput_blame(in, &e));
	assert_true(tinput_read(in, buf, sizeof(buf), &oe) > 0);
	tinput_close(in);
	free(t.p);
	free(z.p);
	free(s.p);
}

static void test_trailing_garbage(void **state)
{
	struct buf t = text(5000, 9), z = gz(&t), s = zst(&t);
	size_t zl = z.len, sl = s.len;

	(void)state;
	buf_add(&z, "hello\n", 6);
	check_fails("junk.gz", &z, "trailing garbage after the gzip data");
	z.len = zl;
	buf_add(&z, "\0", 1);
	check_fails("junk.gz", &z, "trailing garbage after the gzip data");
	buf_add(&s, "hello\n", 6);
	check_fails("junk.zst", &s, "trailing garbage after the zstd data");
	s.len = sl;
	buf_add(&s, "\x28\x00", 2);
	check_fails("junk.zst", &s, "trailing garbage after the zstd data");
	/* another format after a gzip member is garbage too */
	z.len = zl;
	buf_add(&z, s.p, sl);
	check_fails("mixed.gz", &z, "trailing garbage after the gzip data");
	free(t.p);
	free(z.p);
	free(s.p);
}

static void test_empty(void **state)
{
	unsigned char nothing[1] = "";
	struct buf none = { nothing, 0, 0 }, z = gz(&none), s = zst(&none);

	(void)state;
	check_round_trip("empty", &none, &none, TINPUT_PLAIN);
	check_round_trip("empty.gz", &z, &none, TINPUT_GZIP);
	check_round_trip("empty.zst", &s, &none, TINPUT_ZSTD);
	free(z.p);
	free(s.p);
}

static void test_open_errors(void **state)
{
	char path[128];
	struct tinput *t = (struct tinput *)1;
	struct bql_err e;

	(void)state;
	snprintf(path, sizeof(path), "%s/none", dir);
	assert_int_equal(tinput_open(&t, path, &e), -ENOENT);
	assert_null(t);
	assert_string_equal(strstr(e.msg, "/none: "), "/none: No such file or directory");
	assert_int_equal(tinput_open(&t, dir, &e), -EISDIR);
	assert_string_equal(strstr(e.msg, ": read error"), ": read error: Is a directory");
	tinput_close(NULL);
}

/* "-" reads fd 0, a file or a pipe, and does not close it */
static void test_stdin(void **state)
{
	struct buf t = text(400000, 10), z = zst(&t), g = gz(&t), got;
	int saved = dup(0), p[2], fd;
	struct bql_err e;
	pid_t pid;

	(void)state;
	assert_true(saved >= 0);
	fd = open(put("in.zst", z.p, z.len), O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(dup2(fd, 0), 0);
	close(fd);
	assert_int_equal(slurp("-", 5000, &got, &e, NULL), (ssize_t)t.len);
	assert_same(&got, &t);
	free(got.p);
	assert_true(fcntl(0, F_GETFD) >= 0);

	/* a pipe, written in small pieces by another process */
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		size_t off;

		close(p[0]);
		for (off = 0; off < g.len; off += 777)
			if (write(p[1], g.p + off, g.len - off < 777 ? g.len - off : 777) < 0)
				_exit(1);
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(dup2(p[0], 0), 0);
	close(p[0]);
	assert_int_equal(slurp("-", 65536, &got, &e, NULL), (ssize_t)t.len);
	assert_same(&got, &t);
	free(got.p);
	waitpid(pid, NULL, 0);

	assert_int_equal(dup2(saved, 0), 0);
	close(saved);
	free(t.p);
	free(z.p);
	free(g.p);
}

/* tinput_regular(): what was opened, a file or a pipe (replay -J's choice) */
static void test_regular(void **state)
{
	struct buf t = text(1000, 12), z = zst(&t);
	int saved = dup(0), p[2];
	struct tinput *in;
	struct bql_err e;

	(void)state;
	assert_int_equal(tinput_open(&in, put("reg.bqlt", t.p, t.len), &e), 0);
	assert_true(tinput_regular(in));
	tinput_close(in);
	assert_int_equal(tinput_open(&in, put("reg.zst", z.p, z.len), &e), 0);
	assert_true(tinput_regular(in));
	tinput_close(in);

	assert_true(saved >= 0);
	assert_int_equal(pipe(p), 0);
	assert_true(write(p[1], "bqltrace 1\n", 11) == 11);
	close(p[1]);
	assert_int_equal(dup2(p[0], 0), 0);
	close(p[0]);
	assert_int_equal(tinput_open(&in, "-", &e), 0);
	assert_false(tinput_regular(in));
	tinput_close(in);
	assert_int_equal(dup2(saved, 0), 0);
	close(saved);
	free(t.p);
	free(z.p);
}

/*
 * Closing early while the producer of a compressed pipe is still running
 * (replay stopped at a bad line) does not wait for the producer's end.
 */
static void test_close_early(void **state)
{
	struct buf t = text(3u << 20, 12), z = zst(&t);
	int saved = dup(0), p[2];
	struct tinput *in;
	struct bql_err e;
	char b[100];
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(p[0]);
		/* an eighth, then never an end */
		if (write(p[1], z.p, z.len / 8) < 0)
			_exit(1);
		alarm(30);	/* never outlives a failed test for long */
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(dup2(p[0], 0), 0);
	close(p[0]);
	alarm(20);	/* a hang fails the test */
	assert_int_equal(tinput_open(&in, "-", &e), 0);
	assert_int_equal(tinput_read(in, b, sizeof(b), &e), sizeof(b));
	assert_memory_equal(b, t.p, sizeof(b));
	tinput_close(in);
	alarm(0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_int_equal(dup2(saved, 0), 0);
	close(saved);
	free(t.p);
	free(z.p);
}

static void test_raw_bytes(void **state)
{
	struct buf t = text(300000, 11), z = gz(&t);
	const char *path = put("raw.gz", z.p, z.len);
	struct tinput *in;
	struct bql_err e;
	char b[65536];

	(void)state;
	assert_int_equal(tinput_open(&in, path, &e), 0);
	while (tinput_read(in, b, sizeof(b), &e) > 0)
		;
	assert_int_equal(tinput_raw_bytes(in), z.len);
	tinput_close(in);
	free(t.p);
	free(z.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_zstd),
		cmocka_unit_test(test_concatenated),
		cmocka_unit_test(test_zstd_flushed_blocks),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_trailing_garbage),
		cmocka_unit_test(test_blame),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_stdin),
		cmocka_unit_test(test_close_early),
		cmocka_unit_test(test_raw_bytes),
		cmocka_unit_test(test_regular),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
