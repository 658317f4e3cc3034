// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/io/ofile.c: a target is written in full or not at all. New files get
 * the umask, existing ones keep mode and owner; symlinks (dangling too)
 * are kept and their target written; FIFOs, devices and standard output
 * get data only at commit; abort and write errors (RLIMIT_FSIZE, a full
 * tmpfs, /dev/full) leave the target untouched and no temporary behind;
 * .gz and .zst outputs read back through tinput.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cmocka.h>

#include "lib/io/ofile.h"
#include "lib/io/tinput.h"
#include "tests/unit/tmptree.h"

static char dir[64];

static const char *at(const char *name)
{
	static char path[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

static void put(const char *name, const char *s, mode_t mode)
{
	FILE *f = fopen(at(name), "w");

	assert_non_null(f);
	fputs(s, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(at(name), mode), 0);
}

/* the whole file (decompressed by tinput), NUL-terminated */
static char *slurp(const char *path)
{
	struct tinput *t;
	struct bql_err e;
	size_t len = 0;
	char *s = NULL;
	char b[8192];
	ssize_t n;

	if (tinput_open(&t, path, &e))
		fail_msg("%s", e.msg);
	while ((n = tinput_read(t, b, sizeof(b), &e)) > 0) {
		s = realloc(s, len + (size_t)n + 1);
		memcpy(s + len, b, (size_t)n);
		len += (size_t)n;
	}
	if (n < 0)
		fail_msg("%s", e.msg);
	tinput_close(t);
	if (!s)
		s = calloc(1, 1);
	s[len] = '\0';
	return s;
}

static void assert_content(const char *name, const char *want)
{
	char *s = slurp(at(name));

	assert_string_equal(s, want);
	free(s);
}

/* the names in dir, sorted, space-separated: no temporary left behind */
static char *listing(void)
{
	static char out[1024];
	struct dirent **ents;
	int n, i;

	out[0] = '\0';
	n = scandir(dir, &ents, NULL, alphasort);
	assert_true(n >= 0);
	for (i = 0; i < n; i++) {
		if (strcmp(ents[i]->d_name, ".") && strcmp(ents[i]->d_name, "..")) {
			strcat(out, ents[i]->d_name);
			strcat(out, " ");
		}
		free(ents[i]);
	}
	free(ents);
	return out;
}

static int write_file(const char *path, unsigned int flags, const char *s, struct bql_err *e)
{
	struct ofile *o;
	int ret = ofile_open(&o, path, flags, e);

	if (ret)
		return ret;
	ofile_printf(o, "%s", s);
	return ofile_commit(o, e);
}

static int setup(void **state)
{
	(void)state;
	umask(022);
	strcpy(dir, "/tmp/bqltool-ofile.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	sh("umount '%s/small' 2>/dev/null; rm -rf '%s'", dir, dir);
	return 0;
}

/* each test starts in an empty directory */
static int clean(void **state)
{
	(void)state;
	sh("rm -rf '%s'/* '%s'/.[!.]*", dir, dir);
	return 0;
}

static void test_new_file(void **state)
{
	struct bql_err e;
	struct stat st;

	(void)state;
	assert_int_equal(write_file(at("new"), 0, "hello\n", &e), 0);
	assert_content("new", "hello\n");
	assert_int_equal(stat(at("new"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	umask(077);
	assert_int_equal(write_file(at("private"), 0, "x", &e), 0);
	umask(022);
	assert_int_equal(stat(at("private"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	/* OFILE_PUBLIC: readable by another user whatever the umask */
	umask(077);
	assert_int_equal(write_file(at("public"), OFILE_PUBLIC, "x", &e), 0);
	umask(022);
	assert_int_equal(stat(at("public"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_string_equal(listing(), "new private public ");
}

/* an existing file is replaced (a new inode) and keeps its mode and owner */
static void test_keeps_mode_and_owner(void **state)
{
	struct stat before, after;
	struct bql_err e;

	(void)state;
	put("p.json", "old\n", 0600);
	if (!geteuid())
		assert_int_equal(chown(at("p.json"), 1234, 5678), 0);
	assert_int_equal(stat(at("p.json"), &before), 0);
	assert_int_equal(write_file(at("p.json"), 0, "new\n", &e), 0);
	assert_content("p.json", "new\n");
	assert_int_equal(stat(at("p.json"), &after), 0);
	assert_int_equal(after.st_mode & 07777, 0600);
	assert_int_equal(after.st_uid, before.st_uid);
	assert_int_equal(after.st_gid, before.st_gid);
	assert_int_not_equal(after.st_ino, before.st_ino);
	put("odd", "old", 0640);
	assert_int_equal(write_file(at("odd"), OFILE_PUBLIC, "new", &e), 0);
	assert_int_equal(stat(at("odd"), &after), 0);
	assert_int_equal(after.st_mode & 07777, 0640);
	assert_string_equal(listing(), "odd p.json ");
}

static void test_abort(void **state)
{
	struct ofile *o;
	struct bql_err e;

	(void)state;
	put("keep", "precious\n", 0644);
	assert_int_equal(ofile_open(&o, at("keep"), 0, &e), 0);
	assert_string_equal(ofile_path(o), at("keep"));
	assert_int_equal(ofile_write(o, "garbage", 7), 0);
	assert_int_equal(ofile_flush(o), 0);
	/* an unnamed file (O_TMPFILE): nothing in the directory, ever */
	assert_string_equal(listing(), "keep ");
	ofile_abort(o);
	assert_content("keep", "precious\n");
	/* without O_TMPFILE, the temporary exists beside the target until the end */
	setenv("BQLTOOL_NO_O_TMPFILE", "1", 1);
	assert_int_equal(ofile_open(&o, at("keep"), 0, &e), 0);
	assert_int_equal(ofile_write(o, "garbage", 7), 0);
	assert_int_equal(ofile_flush(o), 0);
	assert_string_not_equal(listing(), "keep ");
	ofile_abort(o);
	unsetenv("BQLTOOL_NO_O_TMPFILE");
	assert_content("keep", "precious\n");
	assert_int_equal(ofile_open(&o, at("none"), OFILE_COMPRESS_BY_NAME, &e), 0);
	ofile_printf(o, "%d", 42);
	ofile_abort(o);
	ofile_abort(NULL);
	assert_string_equal(listing(), "keep ");
}

/*
 * issue #37 class 4: a name of 248-255 bytes: ".NAME.XXXXXX" passed
 * NAME_MAX and every writer failed "File name too long". Both ways: the
 * unnamed file named at commit, and the named temporary (its NAME cut).
 */
static void test_long_names(void **state)
{
	char name[NAME_MAX + 1], path[PATH_MAX];
	struct bql_err e;

	(void)state;
	for (int named = 0; named < 2; named++) {
		if (named)
			setenv("BQLTOOL_NO_O_TMPFILE", "1", 1);
		for (size_t n = 240; n <= NAME_MAX; n++) {
			memset(name, 'a' + (int)(n % 26), n);
			name[n] = '\0';
			snprintf(path, sizeof(path), "%s/%s", dir, name);
			assert_int_equal(write_file(path, 0, "one", &e), 0);
			assert_int_equal(write_file(path, OFILE_COMPRESS_BY_NAME, "two", &e), 0);	/* replaced */
			assert_content(name, "two");
			assert_int_equal(unlink(path), 0);
		}
		/* a UTF-8 name is never cut inside a character */
		strcpy(name, "");
		for (int i = 0; i < 84; i++)
			strcat(name, "\xe2\x82\xac");	/* 252 bytes */
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		assert_int_equal(write_file(path, 0, "euro", &e), 0);
		assert_content(name, "euro");
		assert_int_equal(unlink(path), 0);
		assert_string_equal(listing(), "");
		unsetenv("BQLTOOL_NO_O_TMPFILE");
	}
	/* one byte more is the kernel's refusal, named */
	memset(name, 'z', NAME_MAX);
	snprintf(path, sizeof(path), "%s/%sz", dir, name);
	assert_int_equal(write_file(path, 0, "x", &e), -ENAMETOOLONG);
}

static void test_symlinks(void **state)
{
	struct bql_err e;
	struct stat st;
	char link[256];
	ssize_t n;

	(void)state;
	/* a link to a file: the link stays, the file is replaced, mode kept */
	put("real", "old", 0600);
	assert_int_equal(symlink("real", at("link")), 0);
	assert_int_equal(write_file(at("link"), 0, "new", &e), 0);
	assert_int_equal(lstat(at("link"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_content("real", "new");
	assert_int_equal(stat(at("real"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	/* a dangling link: its target is created, the link kept */
	assert_int_equal(mkdir(at("sub"), 0755), 0);
	assert_int_equal(symlink("sub/../sub/made", at("dangling")), 0);
	assert_int_equal(write_file(at("dangling"), 0, "made", &e), 0);
	assert_int_equal(lstat(at("dangling"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_content("sub/made", "made");
	/* a chain of links, relative and absolute */
	assert_int_equal(symlink(at("link"), at("sub/abs")), 0);
	assert_int_equal(symlink("sub/abs", at("chain")), 0);
	if (write_file(at("chain"), 0, "chained", &e))
		fail_msg("%s", e.msg);
	assert_content("real", "chained");
	n = readlink(at("chain"), link, sizeof(link));
	assert_int_equal(n, 7);
	/* a loop is an error naming the path, nothing made */
	assert_int_equal(symlink("loop2", at("loop1")), 0);
	assert_int_equal(symlink("loop1", at("loop2")), 0);
	assert_int_equal(write_file(at("loop1"), 0, "x", &e), -ELOOP);
	assert_non_null(strstr(e.msg, "loop1: Too many levels of symbolic links"));
	/* a link into a missing directory */
	assert_int_equal(symlink("nodir/x", at("nowhere")), 0);
	assert_int_equal(write_file(at("nowhere"), 0, "x", &e), -ENOENT);
	assert_non_null(strstr(e.msg, "nowhere: cannot create a temporary file in "));
	assert_string_equal(listing(), "chain dangling link loop1 loop2 nowhere real sub ");
}

static void test_bad_targets(void **state)
{
	struct ofile *o = (struct ofile *)1;
	struct bql_err e;
	char want[300];

	(void)state;
	assert_int_equal(ofile_open(&o, dir, 0, &e), -EISDIR);
	assert_null(o);
	snprintf(want, sizeof(want), "%s: Is a directory", dir);
	assert_string_equal(e.msg, want);
	assert_int_equal(ofile_open(&o, at("nodir/f"), 0, &e), -ENOENT);
	snprintf(want, sizeof(want), "%s: cannot create a temporary file in %s/nodir: "
		 "No such file or directory", at("nodir/f"), dir);
	assert_string_equal(e.msg, want);
	assert_int_equal(ofile_open(&o, "", 0, &e), -ENOENT);
	assert_string_equal(listing(), "");
}

/* a FIFO is written only at commit, never replaced by a file */
static void test_fifo(void **state)
{
	struct ofile *o;
	struct bql_err e;
	struct stat st;
	char b[64];
	int rd;

	(void)state;
	assert_int_equal(mkfifo(at("fifo"), 0644), 0);
	rd = open(at("fifo"), O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	assert_int_equal(ofile_open(&o, at("fifo"), 0, &e), 0);
	assert_int_equal(ofile_printf(o, "%s", "all at once\n"), 0);
	assert_int_equal(ofile_flush(o), 0);
	assert_int_equal(read(rd, b, sizeof(b)), 0);	/* no writer yet: EOF */
	assert_int_equal(ofile_commit(o, &e), 0);
	assert_int_equal(read(rd, b, sizeof(b)), 12);
	assert_memory_equal(b, "all at once\n", 12);
	/* aborted: the FIFO never sees a byte */
	assert_int_equal(ofile_open(&o, at("fifo"), 0, &e), 0);
	assert_int_equal(ofile_printf(o, "half"), 0);
	ofile_abort(o);
	assert_int_equal(read(rd, b, sizeof(b)), 0);
	close(rd);
	assert_int_equal(lstat(at("fifo"), &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	/* a character device: /dev/null stays one */
	assert_int_equal(write_file("/dev/null", 0, "x", &e), 0);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_string_equal(listing(), "fifo ");
}

/* run @fn with standard output redirected to @path (opened with @oflags) */
static void with_stdout(const char *path, int oflags, void (*fn)(void))
{
	int saved = dup(1), fd = open(path, O_WRONLY | O_CREAT | oflags, 0644);

	assert_true(saved >= 0 && fd >= 0);
	fflush(stdout);
	assert_int_equal(dup2(fd, 1), 1);
	close(fd);
	fn();
	assert_int_equal(dup2(saved, 1), 1);
	close(saved);
}

static void stdout_spooled(void)
{
	struct ofile *o;
	struct bql_err e;

	assert_int_equal(ofile_open(&o, "-", 0, &e), 0);
	assert_int_equal(ofile_printf(o, "spooled\n"), 0);
	assert_int_equal(ofile_flush(o), 0);
	assert_content("out", "");
	assert_int_equal(ofile_commit(o, &e), 0);
	assert_content("out", "spooled\n");
	assert_int_equal(ofile_open(&o, "-", 0, &e), 0);
	assert_int_equal(ofile_printf(o, "dropped\n"), 0);
	ofile_abort(o);
	assert_content("out", "spooled\n");
}

static void stdout_streamed(void)
{
	struct ofile *o;
	struct bql_err e;

	assert_int_equal(ofile_open(&o, "-", OFILE_STREAM, &e), 0);
	assert_int_equal(ofile_printf(o, "live\n"), 0);
	assert_int_equal(ofile_flush(o), 0);
	assert_content("out", "live\n");
	assert_int_equal(ofile_commit(o, &e), 0);
	/* standard output stays open */
	assert_true(fcntl(1, F_GETFD) >= 0);
}

/* /dev/stdout and /proc/self/fd/1 are the descriptor, not the file behind it */
static void stdout_by_name(void)
{
	struct bql_err e;
	struct stat before, after;

	assert_int_equal(stat(at("out"), &before), 0);
	assert_int_equal(write_file("/dev/stdout", 0, "one\n", &e), 0);
	assert_int_equal(write_file("/proc/self/fd/1", 0, "two\n", &e), 0);
	assert_int_equal(stat(at("out"), &after), 0);
	assert_int_equal(after.st_ino, before.st_ino);
}

static void test_stdout(void **state)
{
	(void)state;
	with_stdout(at("out"), O_TRUNC, stdout_spooled);
	with_stdout(at("out"), O_TRUNC, stdout_streamed);
	put("out", "old\n", 0644);
	/* appended, as the shell's >> asks */
	with_stdout(at("out"), O_APPEND, stdout_by_name);
	assert_content("out", "old\none\ntwo\n");
	assert_string_equal(listing(), "out ");
}

/* every way of writing, small and large, ends up in the file in order */
static void test_printf_and_write(void **state)
{
	size_t big = 200000, i;
	char *s = malloc(big + 1), *want, *got;
	struct ofile *o;
	struct bql_err e;
	FILE *m;
	size_t wlen;

	(void)state;
	for (i = 0; i < big; i++)
		s[i] = (char)('a' + i % 26);
	s[big] = '\0';
	m = open_memstream(&want, &wlen);
	assert_int_equal(ofile_open(&o, at("mix"), 0, &e), 0);
	for (i = 0; i < 3000; i++) {
		assert_int_equal(ofile_printf(o, "%zu,%s\n", i, "row"), 0);
		fprintf(m, "%zu,%s\n", i, "row");
		if (i % 1000 == 999) {
			/* larger than the buffer, through printf and write */
			assert_int_equal(ofile_printf(o, "%s", s), 0);
			assert_int_equal(ofile_write(o, s, big - i), 0);
			fprintf(m, "%s%.*s", s, (int)(big - i), s);
		}
	}
	fclose(m);
	assert_int_equal(ofile_commit(o, &e), 0);
	got = slurp(at("mix"));
	assert_int_equal(strlen(got), wlen);
	assert_string_equal(got, want);
	free(got);
	free(want);
	free(s);
}

static void check_compressed(const char *name, enum tinput_codec codec)
{
	struct ofile *o;
	struct tinput *t;
	struct bql_err e;
	char *got, *want;
	size_t wlen;
	FILE *m = open_memstream(&want, &wlen);
	unsigned int i;

	assert_int_equal(ofile_open(&o, at(name), OFILE_COMPRESS_BY_NAME, &e), 0);
	for (i = 0; i < 100000; i++) {
		ofile_printf(o, "%u q C %u\n", i * 1000, i % 9000);
		fprintf(m, "%u q C %u\n", i * 1000, i % 9000);
		if (i == 5000)
			assert_int_equal(ofile_flush(o), 0);
	}
	fclose(m);
	assert_int_equal(ofile_commit(o, &e), 0);
	assert_int_equal(tinput_open(&t, at(name), &e), 0);
	assert_int_equal(tinput_codec(t), codec);
	assert_true(tinput_raw_bytes(t) > 0);
	tinput_close(t);
	got = slurp(at(name));
	assert_string_equal(got, want);
	free(got);
	free(want);
}

static void test_compressed(void **state)
{
	struct bql_err e;
	char *s;

	(void)state;
	check_compressed("t.bqlt.gz", TINPUT_GZIP);
	check_compressed("t.bqlt.zst", TINPUT_ZSTD);
	/* only with the flag, only by the name's ending */
	assert_int_equal(write_file(at("plain.gz"), 0, "plain", &e), 0);
	assert_content("plain.gz", "plain");
	assert_int_equal(write_file(at("t.zstd"), OFILE_COMPRESS_BY_NAME, "plain", &e), 0);
	assert_content("t.zstd", "plain");
	/* empty compressed outputs are valid, empty streams */
	assert_int_equal(write_file(at("e.gz"), OFILE_COMPRESS_BY_NAME, "", &e), 0);
	assert_int_equal(write_file(at("e.zst"), OFILE_COMPRESS_BY_NAME, "", &e), 0);
	s = slurp(at("e.gz"));
	assert_string_equal(s, "");
	free(s);
	s = slurp(at("e.zst"));
	assert_string_equal(s, "");
	free(s);
}

/* a live compressed stream: what was flushed decodes before the end */
static void test_compressed_flush(void **state)
{
	static const char *const names[] = { "-.gz", "-.zst" };
	unsigned int k;

	(void)state;
	for (k = 0; k < 2; k++) {
		unsigned char raw[4096], out[256];
		struct ofile *o;
		struct bql_err e;
		int p[2], saved = dup(1);
		ssize_t n;
		size_t got;

		assert_int_equal(pipe(p), 0);
		assert_int_equal(dup2(p[1], 1), 1);
		close(p[1]);
		/* the name's ending asks for compression: a link *.gz to /dev/stdout */
		unlink(at(names[k]));
		assert_int_equal(symlink("/dev/stdout", at(names[k])), 0);
		assert_int_equal(ofile_open(&o, at(names[k]), OFILE_COMPRESS_BY_NAME |
					    OFILE_STREAM, &e), 0);
		assert_int_equal(ofile_printf(o, "first batch\n"), 0);
		assert_int_equal(ofile_flush(o), 0);
		n = read(p[0], raw, sizeof(raw));
		assert_true(n > 0);
		if (k == 0) {
			z_stream z = { 0 };

			assert_int_equal(inflateInit2(&z, 31), Z_OK);
			z.next_in = raw;
			z.avail_in = (uInt)n;
			z.next_out = out;
			z.avail_out = sizeof(out);
			assert_int_equal(inflate(&z, Z_SYNC_FLUSH), Z_OK);
			got = sizeof(out) - z.avail_out;
			inflateEnd(&z);
		} else {
			ZSTD_DStream *d = ZSTD_createDStream();
			ZSTD_inBuffer in = { raw, (size_t)n, 0 };
			ZSTD_outBuffer ob = { out, sizeof(out), 0 };

			assert_false(ZSTD_isError(ZSTD_decompressStream(d, &ob, &in)));
			got = ob.pos;
			ZSTD_freeDStream(d);
		}
		assert_int_equal(got, 12);
		assert_memory_equal(out, "first batch\n", 12);
		assert_int_equal(ofile_commit(o, &e), 0);
		assert_int_equal(dup2(saved, 1), 1);
		close(saved);
		close(p[0]);
		unlink(at(names[k]));
	}
}

/*
 * In a child: SIGXFSZ ignored, files limited to @limit bytes, then @big
 * bytes written over "old". The commit must fail with EFBIG naming the
 * file; the target keeps "old".
 */
static void test_rlimit_fsize(void **state)
{
	static const char *const names[] = { "f", "f.gz", "f.zst" };
	unsigned int k;

	(void)state;
	for (k = 0; k < 3; k++) {
		pid_t pid;
		int status;

		put(names[k], "old", 0600);
		pid = fork();
		assert_true(pid >= 0);
		if (!pid) {
			struct rlimit rl = { 4096, 4096 };
			struct ofile *o;
			struct bql_err e;
			char want[300];
			unsigned int i;
			int ret;

			signal(SIGXFSZ, SIG_IGN);
			if (setrlimit(RLIMIT_FSIZE, &rl))
				_exit(10);
			if (ofile_open(&o, at(names[k]), OFILE_COMPRESS_BY_NAME, &e))
				_exit(11);
			for (i = 0; i < 300000; i++)
				ofile_printf(o, "%u,%u\n", i * 2654435761u, i);
			ret = ofile_commit(o, &e);
			snprintf(want, sizeof(want), "%s: write error: File too large", at(names[k]));
			if (ret != -EFBIG)
				_exit(12);
			if (strcmp(e.msg, want))
				_exit(13);
			_exit(0);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
		assert_content(names[k], "old");
	}
	assert_string_equal(listing(), "f f.gz f.zst ");
}

/* a full file system: a small tmpfs (root only), and /dev/full */
static void test_full(void **state)
{
	char *big = malloc(1 << 20);
	struct bql_err e;
	struct ofile *o;
	char want[300];
	int ret;

	(void)state;
	memset(big, 'x', 1 << 20);
	big[(1 << 20) - 1] = '\0';
	if (!access("/dev/full", W_OK)) {
		assert_int_equal(write_file("/dev/full", 0, "x", &e), -ENOSPC);
		assert_string_equal(e.msg, "/dev/full: write error: No space left on device");
		/* sticky: later writes fail at once */
		assert_int_equal(ofile_open(&o, "/dev/full", OFILE_STREAM, &e), 0);
		ofile_write(o, big, 1 << 19);
		ofile_write(o, big, 1 << 19);
		assert_int_equal(ofile_write(o, "x", 1), -ENOSPC);
		assert_int_equal(ofile_printf(o, "x"), -ENOSPC);
		assert_int_equal(ofile_flush(o), -ENOSPC);
		assert_int_equal(ofile_commit(o, &e), -ENOSPC);
	}
	assert_int_equal(mkdir(at("small"), 0755), 0);
	if (mount("tmpfs", at("small"), "tmpfs", 0, "size=64k")) {
		free(big);
		skip();
	}
	put("small/p.json", "old", 0644);
	ret = write_file(at("small/p.json"), 0, big, &e);
	assert_int_equal(ret, -ENOSPC);
	snprintf(want, sizeof(want), "%s: write error: No space left on device",
		 at("small/p.json"));
	assert_string_equal(e.msg, want);
	assert_content("small/p.json", "old");
	sh("test \"$(ls -A '%s/small')\" = p.json", dir);
	umount(at("small"));
	free(big);
}

/* a stdio stream into an ofile: fprintf lands in the file, errors in the ofile */
static void test_stdio_and_finish(void **state)
{
	struct ofile *a, *b;
	struct bql_err e;
	FILE *f;

	(void)state;
	put("a", "old a", 0644);
	put("b", "old b", 0644);
	assert_int_equal(ofile_open(&a, at("a"), 0, &e), 0);
	assert_int_equal(ofile_open(&b, at("b"), OFILE_COMPRESS_BY_NAME, &e), 0);
	f = ofile_stdio(a);
	assert_non_null(f);
	fprintf(f, "<svg>%d</svg>\n", 42);
	assert_int_equal(fclose(f), 0);
	ofile_printf(b, "b");
	/* both finished (written, synced), neither in place yet */
	assert_int_equal(ofile_finish(a, &e), 0);
	assert_int_equal(ofile_finish(b, &e), 0);
	assert_int_equal(ofile_finish(b, &e), 0);
	assert_content("a", "old a");
	assert_int_equal(ofile_write(a, "late", 4), -EINVAL);
	assert_int_equal(ofile_commit(a, &e), -EINVAL);
	assert_content("a", "old a");
	assert_int_equal(ofile_commit(b, &e), 0);
	assert_content("b", "b");
	/* a write error through stdio is the ofile's */
	if (!access("/dev/full", W_OK)) {
		char big[5000];

		memset(big, 'x', sizeof(big));
		assert_int_equal(ofile_open(&a, "/dev/full", OFILE_STREAM, &e), 0);
		f = ofile_stdio(a);
		for (int i = 0; i < 100; i++)
			fwrite(big, 1, sizeof(big), f);
		fclose(f);
		assert_int_equal(ofile_finish(a, &e), -ENOSPC);
		assert_string_equal(e.msg, "/dev/full: write error: No space left on device");
		ofile_abort(a);
	}
	assert_string_equal(listing(), "a b ");
}

/* what a name's ending says: the format, the compression, foreign compressors */
static void test_name_parse(void **state)
{
	struct ofile_name n;

	(void)state;
	ofile_name_parse("t.jsonl.gz", &n);
	assert_int_equal(n.fmt, OFILE_FMT_JSONL);
	assert_string_equal(n.zip, ".gz");
	ofile_name_parse("P.SVG.ZST", &n);
	assert_int_equal(n.fmt, OFILE_FMT_SVG);
	assert_string_equal(n.zip, ".zst");
	ofile_name_parse("x.svgz", &n);
	assert_string_equal(n.foreign_zip, ".svgz");
	ofile_name_parse("t.bqlt.bz2", &n);
	assert_string_equal(n.foreign_zip, ".bz2");
	ofile_name_parse("trace", &n);
	assert_int_equal(n.fmt, OFILE_FMT_OTHER);
	assert_null(n.zip);
	assert_false(n.device);
	ofile_name_parse("/dev/stdout", &n);
	assert_true(n.device);
	ofile_name_parse("x.json", &n);
	assert_int_equal(n.fmt, OFILE_FMT_JSON);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_parse),
		cmocka_unit_test_setup(test_new_file, clean),
		cmocka_unit_test_setup(test_keeps_mode_and_owner, clean),
		cmocka_unit_test_setup(test_abort, clean),
		cmocka_unit_test_setup(test_long_names, clean),
		cmocka_unit_test_setup(test_symlinks, clean),
		cmocka_unit_test_setup(test_bad_targets, clean),
		cmocka_unit_test_setup(test_fifo, clean),
		cmocka_unit_test_setup(test_stdout, clean),
		cmocka_unit_test_setup(test_printf_and_write, clean),
		cmocka_unit_test_setup(test_compressed, clean),
		cmocka_unit_test_setup(test_compressed_flush, clean),
		cmocka_unit_test_setup(test_rlimit_fsize, clean),
		cmocka_unit_test_setup(test_full, clean),
		cmocka_unit_test_setup(test_stdio_and_finish, clean),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
