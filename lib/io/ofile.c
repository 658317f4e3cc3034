// SPDX-License-Identifier: GPL-2.0-only
/*
 * ofile: every output file written in full or not at all (see ofile.h):
 * a temporary beside the target renamed over it, or a spool copied to a
 * non-regular target, optionally gzip or zstd compressed on the way.
 * Names and paths are in ofile_path.c, the temporaries that fatal signals
 * remove in ofile_live.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "lib/io/ofile.h"
#include "lib/io/ofile_int.h"

#define OFILE_BUF	(64u << 10)	/* bytes gathered before a write(2) */
#define GZIP_LEVEL	6
#define ZSTD_LEVEL	3

enum ofile_kind {
	OFILE_RENAME,	/* temporary beside the target, renamed at commit */
	OFILE_SPOOL,	/* unlinked temporary, copied to the target at commit */
	OFILE_THROUGH,	/* written to the target as it comes (OFILE_STREAM) */
};

enum ofile_codec { OFILE_PLAIN, OFILE_GZIP, OFILE_ZSTD };

struct ofile {
	char *path;		/* as given, for messages */
	char *target;		/* resolved file: rename target, or opened at commit */
	char *tmp;		/* OFILE_RENAME: the temporary's name (none while
				 * @anon: named only at commit, then renamed) */
	bool anon;		/* OFILE_RENAME into an O_TMPFILE: nothing to leave */
	int slot;		/* its slot in ofile_live.c (removed on a fatal signal), -1 none */
	int fd;			/* where the bytes go now */
	int out_fd;		/* OFILE_SPOOL to a descriptor ("-", /dev/stdout): its dup */
	enum ofile_kind kind;
	enum ofile_codec codec;
	int err;		/* first errno, sticky */
	bool zerr;		/* err came from the compressor */
	bool finished;		/* ofile_finish() done: no more data */
	z_stream z;
	bool z_live;
	ZSTD_CStream *zs;
	unsigned char *buf;	/* uncompressed bytes not yet written */
	size_t len;
	unsigned char *zbuf;	/* compressor output */
	size_t zcap;
	off_t wpos;		/* OFILE_RENAME: bytes written to fd */
	off_t wb_done;		/* ... of which writeback was started */
};

/* ------------------------------------------------------------ helpers */

static int set_err(struct ofile *o, int err)
{
	if (!o->err)
		o->err = err;
	return -o->err;
}

static int write_all(int fd, const void *p, size_t len)
{
	const char *s = p;

	while (len) {
		ssize_t n = write(fd, s, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

static mode_t cur_umask(void)
{
	mode_t m = umask(022);

	umask(m);
	return m;
}

/* the directory spools go to: $TMPDIR, or /tmp */
static const char *spool_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

/* an unlinked file in $TMPDIR (or /tmp) to spool into */
static int spool_fd(void)
{
	const char *dir = spool_dir();
	char *name;
	int fd;

	fd = open(dir, O_RDWR | O_TMPFILE | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	if (asprintf(&name, "%s/bqltool-spool.XXXXXX", dir) < 0) {
		errno = ENOMEM;
		return -1;
	}
	fd = mkostemp(name, O_CLOEXEC);
	if (fd >= 0)
		unlink(name);
	free(name);
	return fd;
}

/* ------------------------------------------------------------ open */

static int open_codec(struct ofile *o, unsigned int flags)
{
	if (!(flags & OFILE_COMPRESS_BY_NAME))
		return 0;
	if (ofile_has_suffix(o->path, ".gz")) {
		o->codec = OFILE_GZIP;
		if (deflateInit2(&o->z, GZIP_LEVEL, Z_DEFLATED, 15 + 16, 8,
				 Z_DEFAULT_STRATEGY) != Z_OK)
			return -ENOMEM;
		o->z_live = true;
		o->zcap = OFILE_BUF;
	} else if (ofile_has_suffix(o->path, ".zst")) {
		o->codec = OFILE_ZSTD;
		o->zs = ZSTD_createCStream();
		if (!o->zs || ZSTD_isError(ZSTD_CCtx_setParameter(o->zs, ZSTD_c_compressionLevel,
								  ZSTD_LEVEL)))
			return -ENOMEM;
		o->zcap = ZSTD_CStreamOutSize();
	} else {
		return 0;
	}
	o->zbuf = malloc(o->zcap);
	return o->zbuf ? 0 : -ENOMEM;
}

/*
 * "DIR/.NAME.XXXXXX" for @target, NAME cut (never inside a UTF-8
 * sequence) so that the name fits NAME_MAX: a target of 248-255 bytes
 * gets a temporary too. NULL when out of memory.
 */
static char *tmp_name(const char *target)
{
	const char *slash = strrchr(target, '/'), *base = slash ? slash + 1 : target;
	size_t n = strlen(base), room = NAME_MAX - strlen("..XXXXXX");
	char *s;

	if (n > room) {
		n = room;
		while (n && ((unsigned char)base[n] & 0xc0) == 0x80)
			n--;
	}
	if (asprintf(&s, "%.*s.%.*s.XXXXXX", (int)(base - target), target, (int)n, base) < 0)
		return NULL;
	return s;
}

/*
 * An unnamed file (O_TMPFILE) in @target's directory, that a link can
 * name at commit (/proc/self/fd: linkat(2) needs no privilege then), or
 * -1: the filesystem has none (NFS, vfat), no /proc, or
 * BQLTOOL_NO_O_TMPFILE=1 (tests of the named temporary).
 */
static int anon_fd(const char *target)
{
	const char *no = getenv("BQLTOOL_NO_O_TMPFILE");
	char *dir, proc[64];
	int fd;

	if (no && *no && strcmp(no, "0"))
		return -1;
	dir = ofile_dir_of(target);
	if (!dir)
		return -1;
	fd = open(dir, O_WRONLY | O_TMPFILE | O_CLOEXEC, 0600);
	free(dir);
	if (fd < 0)
		return -1;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (access(proc, F_OK)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The file to write beside @o->target, with the mode and owner it must end
 * with: an unnamed one where the filesystem allows (a kill -9 leaves
 * nothing), else the temporary ".NAME.XXXXXX"
 */
static int open_rename(struct ofile *o, unsigned int flags, struct bql_err *e)
{
	const char *slash = strrchr(o->target, '/');
	struct stat st;
	bool exists;
	int err;

	o->tmp = tmp_name(o->target);
	if (!o->tmp)
		return bql_err_set(e, ENOMEM, "%s: out of memory", o->path);
	exists = !stat(o->target, &st);
	/* replacing is writing: a file the user may not write is not replaced */
	if (exists && faccessat(AT_FDCWD, o->target, W_OK, AT_EACCESS)) {
		const char *why = NULL;
		int fd;

		err = errno;
		free(o->tmp);
		o->tmp = NULL;
		/* root is refused by the inode's flags, not its permissions: say so */
		fd = err == EPERM ? open(o->target, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) : -1;
		if (fd >= 0) {
			why = ofile_attr_why(fd);
			close(fd);
		}
		return bql_err_set(e, err, "%s: %s%s%s", o->path, strerror(err), why ? ": " : "",
				   why ? why : "");
	}
	o->fd = anon_fd(o->target);
	if (o->fd >= 0) {
		o->anon = true;
		free(o->tmp);	/* made again at commit, when it is needed */
		o->tmp = NULL;
	} else {
		o->fd = ofile_live_mkstemp(o->tmp, &o->slot);
	}
	if (o->fd < 0) {
		err = errno;
		free(o->tmp);
		o->tmp = NULL;
		if (slash)
			return bql_err_set(e, err, "%s: cannot create a temporary file in %.*s: %s",
					   o->path, slash == o->target ? 1 : (int)(slash - o->target),
					   o->target, strerror(err));
		return bql_err_set(e, err, "%s: cannot create a temporary file in .: %s",
				   o->path, strerror(err));
	}
	o->kind = OFILE_RENAME;
	if (!exists)
		return fchmod(o->fd, flags & OFILE_PUBLIC ? 0644 : 0666 & ~cur_umask()) ?
			bql_err_set(e, errno, "%s: %s", o->path, strerror(errno)) : 0;
	/* chown before chmod: chown clears set-id bits */
	if ((st.st_uid != geteuid() || st.st_gid != getegid()) &&
	    fchown(o->fd, st.st_uid, st.st_gid)) {
		err = errno;
		return bql_err_set(e, err, "%s: cannot keep the owner %u:%u of the file: %s",
				   o->path, (unsigned int)st.st_uid, (unsigned int)st.st_gid,
				   strerror(err));
	}
	if (fchmod(o->fd, st.st_mode & 07777)) {
		err = errno;
		return bql_err_set(e, err, "%s: cannot keep the mode %04o of the file: %s",
				   o->path, (unsigned int)(st.st_mode & 07777), strerror(err));
	}
	return 0;
}

/* a descriptor target: "-", /dev/stdout, /proc/self/fd/N */
static int open_fd(struct ofile *o, int fdnum, unsigned int flags, struct bql_err *e)
{
	int fl = fcntl(fdnum, F_GETFL), err;

	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
		return bql_err_set(e, fl < 0 ? errno : EBADF, "%s: %s", o->path,
				   strerror(fl < 0 ? errno : EBADF));
	o->out_fd = fcntl(fdnum, F_DUPFD_CLOEXEC, 3);
	if (o->out_fd < 0)
		return bql_err_set(e, errno, "%s: %s", o->path, strerror(errno));
	if (flags & OFILE_STREAM) {
		o->kind = OFILE_THROUGH;
		o->fd = o->out_fd;
		o->out_fd = -1;
		return 0;
	}
	o->kind = OFILE_SPOOL;
	o->fd = spool_fd();
	if (o->fd < 0) {
		err = errno;
		return bql_err_set(e, err, "%s: cannot create the temporary file that holds the output until success in %s%s: %s",
				   o->path, spool_dir(), getenv("TMPDIR") && *getenv("TMPDIR") ? " ($TMPDIR)" : "",
				   strerror(err));
	}
	return 0;
}

/* a FIFO or a device: spooled, or written through with OFILE_STREAM */
static int open_special(struct ofile *o, unsigned int flags, struct bql_err *e)
{
	int err;

	if (flags & OFILE_STREAM) {
		o->kind = OFILE_THROUGH;
		o->fd = open(o->target, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (o->fd < 0)
			return bql_err_set(e, errno, "%s: %s", o->path, strerror(errno));
		return 0;
	}
	if (faccessat(AT_FDCWD, o->target, W_OK, AT_EACCESS))
		return bql_err_set(e, errno, "%s: %s", o->path, strerror(errno));
	o->kind = OFILE_SPOOL;
	o->fd = spool_fd();
	if (o->fd < 0) {
		err = errno;
		return bql_err_set(e, err, "%s: cannot create the temporary file that holds the output until success in %s%s: %s",
				   o->path, spool_dir(), getenv("TMPDIR") && *getenv("TMPDIR") ? " ($TMPDIR)" : "",
				   strerror(err));
	}
	return 0;
}

int ofile_open(struct ofile **op, const char *path, unsigned int flags, struct bql_err *e)
{
	struct ofile *o;
	struct stat st;
	char *refused = NULL;
	int fdnum, ret;

	*op = NULL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return bql_err_set(e, ENOMEM, "%s: out of memory", path);
	o->fd = -1;
	o->out_fd = -1;
	o->slot = -1;
	o->path = strdup(path);
	o->buf = malloc(OFILE_BUF);
	if (!o->path || !o->buf) {
		ret = bql_err_set(e, ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	if (!*path) {
		ret = bql_err_set(e, ENOENT, "empty file name");
		goto fail;
	}
	ret = open_codec(o, flags);
	if (ret) {
		bql_err_set(e, -ret, "%s: cannot start the compressor: %s", path, strerror(-ret));
		goto fail;
	}
	if (!strcmp(path, "-")) {
		ret = open_fd(o, STDOUT_FILENO, flags, e);
		goto done;
	}
	ret = ofile_resolve(path, &o->target, &fdnum, &refused);
	if (ret && refused) {
		char *dir = ofile_dir_of(refused);

		bql_err_set(e, -ret, "%s: %s is a symbolic link of another user in the sticky, world-writable %s: not followed (as fs.protected_symlinks refuses)",
			    path, refused, dir ? dir : "directory");
		free(dir);
		free(refused);
		goto fail;
	}
	if (ret) {
		bql_err_set(e, -ret, "%s: %s", path, strerror(-ret));
		goto fail;
	}
	if ((flags & OFILE_REGULAR) && fdnum >= 0)
		ret = bql_err_set(e, EINVAL, "%s: names a file descriptor, not a regular file: refused",
				  path);
	else if (fdnum >= 0)
		ret = open_fd(o, fdnum, flags, e);
	else if (stat(o->target, &st))
		ret = errno == ENOENT ? open_rename(o, flags, e)
			: bql_err_set(e, errno, "%s: %s", path, strerror(errno));
	else if (S_ISDIR(st.st_mode))
		ret = bql_err_set(e, EISDIR, "%s: %s", path, strerror(EISDIR));
	else if (S_ISREG(st.st_mode))
		ret = open_rename(o, flags, e);
	else if (flags & OFILE_REGULAR)
		ret = bql_err_set(e, EINVAL, "%s: %s, not a regular file: refused", path,
				  S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISSOCK(st.st_mode) ? "a socket" :
				  S_ISCHR(st.st_mode) ? "a character device" :
				  S_ISBLK(st.st_mode) ? "a block device" : "a special file");
	else
		ret = open_special(o, flags, e);
done:
	if (!ret) {
		*op = o;
		return 0;
	}
fail:
	ofile_abort(o);
	return ret;
}

/* ------------------------------------------------------------ write */

/*
 * A file that ofile_finish() fsyncs has its writeback started every
 * OFILE_WB_CHUNK bytes (sync_file_range, which does not wait for it), so
 * the disk writes while the rest is made and the fsync waits only for the
 * tail: a 50 MB replay --timeline's fsync went from ~100 to ~70 ms here.
 */
#define OFILE_WB_CHUNK	((off_t)8 << 20)

static int out_write(struct ofile *o, const void *p, size_t len)
{
	int ret = write_all(o->fd, p, len);

	if (ret || o->kind != OFILE_RENAME)
		return ret;
	o->wpos += (off_t)len;
	if (o->wpos - o->wb_done >= OFILE_WB_CHUNK) {
		sync_file_range(o->fd, o->wb_done, o->wpos - o->wb_done, SYNC_FILE_RANGE_WRITE);
		o->wb_done = o->wpos;
	}
	return 0;
}

enum emit_mode { EMIT_MORE, EMIT_FLUSH, EMIT_END };

/*
 * @len bytes through the compressor (if any) to the file; EMIT_FLUSH makes
 * everything so far decodable (a reader of a live pipe), EMIT_END ends the
 * stream.
 */
static int emit(struct ofile *o, const void *p, size_t len, enum emit_mode mode)
{
	if (o->err)
		return -o->err;
	if (o->codec == OFILE_PLAIN) {
		int ret = len ? out_write(o, p, len) : 0;

		return ret ? set_err(o, -ret) : 0;
	}
	if (o->codec == OFILE_GZIP) {
		int flush = mode == EMIT_END ? Z_FINISH : mode == EMIT_FLUSH ? Z_SYNC_FLUSH
							    : Z_NO_FLUSH;
		int zr;

		o->z.next_in = (Bytef *)(uintptr_t)p;
		o->z.avail_in = (uInt)len;
		do {
			int ret;

			o->z.next_out = o->zbuf;
			o->z.avail_out = (uInt)o->zcap;
			zr = deflate(&o->z, flush);
			if (zr == Z_STREAM_ERROR) {
				o->zerr = true;
				return set_err(o, EIO);
			}
			ret = out_write(o, o->zbuf, o->zcap - o->z.avail_out);
			if (ret)
				return set_err(o, -ret);
		} while (o->z.avail_out == 0 || o->z.avail_in ||
			 (flush == Z_FINISH && zr != Z_STREAM_END));
		return 0;
	}
	{
		ZSTD_EndDirective d = mode == EMIT_END ? ZSTD_e_end : mode == EMIT_FLUSH ? ZSTD_e_flush
					  : ZSTD_e_continue;
		ZSTD_inBuffer in = { p, len, 0 };
		size_t left;

		do {
			ZSTD_outBuffer out = { o->zbuf, o->zcap, 0 };
			int ret;

			left = ZSTD_compressStream2(o->zs, &out, &in, d);
			if (ZSTD_isError(left)) {
				o->zerr = true;
				return set_err(o, EIO);
			}
			ret = out_write(o, o->zbuf, out.pos);
			if (ret)
				return set_err(o, -ret);
		} while (d == ZSTD_e_continue ? in.pos < in.size : left != 0);
		return 0;
	}
}

int ofile_write(struct ofile *o, const void *buf, size_t len)
{
	if (o->err)
		return -o->err;
	if (o->finished)
		return set_err(o, EINVAL);
	if (o->len + len <= OFILE_BUF) {
		memcpy(o->buf + o->len, buf, len);
		o->len += len;
		return 0;
	}
	if (o->len && emit(o, o->buf, o->len, EMIT_MORE))
		return -o->err;
	o->len = 0;
	if (len >= OFILE_BUF)
		return emit(o, buf, len, EMIT_MORE);
	memcpy(o->buf, buf, len);
	o->len = len;
	return 0;
}

int ofile_printf(struct ofile *o, const char *fmt, ...)
{
	size_t room = OFILE_BUF - o->len;
	va_list ap;
	char *s;
	int n;

	if (o->err)
		return -o->err;
	if (o->finished)
		return set_err(o, EINVAL);
	va_start(ap, fmt);
	n = vsnprintf((char *)o->buf + o->len, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		return set_err(o, EINVAL);
	if ((size_t)n < room) {
		o->len += (size_t)n;
		return 0;
	}
	/* did not fit: write what is buffered, then try again */
	if (emit(o, o->buf, o->len, EMIT_MORE))
		return -o->err;
	o->len = 0;
	if ((size_t)n < OFILE_BUF) {
		va_start(ap, fmt);
		vsnprintf((char *)o->buf, OFILE_BUF, fmt, ap);
		va_end(ap);
		o->len = (size_t)n;
		return 0;
	}
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return set_err(o, ENOMEM);
	emit(o, s, (size_t)n, EMIT_MORE);
	free(s);
	return o->err ? -o->err : 0;
}

int ofile_flush(struct ofile *o)
{
	if (o->err)
		return -o->err;
	if (o->finished)
		return 0;
	emit(o, o->buf, o->len, EMIT_FLUSH);
	o->len = 0;
	return o->err ? -o->err : 0;
}

const char *ofile_path(const struct ofile *o)
{
	return o->path;
}

/* ------------------------------------------------------------ commit */

/* the spool, from its start, to @dst */
static int copy_spool(struct ofile *o, int dst)
{
	if (lseek(o->fd, 0, SEEK_SET) < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(o->fd, o->buf, OFILE_BUF);
		int ret;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		ret = write_all(dst, o->buf, (size_t)n);
		if (ret)
			return ret;
	}
}

static void fsync_dir(const char *target)
{
	char *dir = ofile_dir_of(target);
	int fd;

	if (!dir)
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);	/* the rename made durable, where it can be */
		close(fd);
	}
	free(dir);
}

static void ofile_free(struct ofile *o)
{
	if (o->fd >= 0)
		close(o->fd);
	if (o->out_fd >= 0)
		close(o->out_fd);
	if (o->tmp) {
		unlink(o->tmp);
		ofile_live_del(o->slot);
		free(o->tmp);
	}
	if (o->z_live)
		deflateEnd(&o->z);
	ZSTD_freeCStream(o->zs);
	free(o->zbuf);
	free(o->buf);
	free(o->target);
	free(o->path);
	free(o);
}

static int fail(struct ofile *o, int err, const char *what, struct bql_err *e)
{
	if (o->zerr)
		return bql_err_set(e, err, "%s: compression failed", o->path);
	return bql_err_set(e, err, "%s: %s: %s", o->path, what, strerror(err));
}

int ofile_finish(struct ofile *o, struct bql_err *e)
{
	if (!o->finished) {
		emit(o, o->buf, o->len, EMIT_END);
		o->len = 0;
		o->finished = true;
		if (!o->err && o->kind == OFILE_RENAME && fsync(o->fd) &&
		    errno != EINVAL && errno != EROFS)
			set_err(o, errno);
	}
	return o->err ? fail(o, o->err, "write error", e) : 0;
}

int ofile_commit(struct ofile *o, struct bql_err *e)
{
	const char *what = "write error";
	int ret, dst;

	ret = ofile_finish(o, e);
	if (ret) {
		ofile_free(o);
		return ret;
	}
	switch (o->kind) {
	case OFILE_RENAME:
		if (o->anon) {	/* a name now, then renamed as a temporary is */
			o->tmp = tmp_name(o->target);
			if (!o->tmp) {
				ret = ENOMEM;
				goto fail;
			}
			if (ofile_live_link(o->fd, o->tmp, &o->slot)) {
				ret = errno;
				free(o->tmp);
				o->tmp = NULL;
				what = "cannot create a temporary file";
				goto fail;
			}
		}
		ret = close(o->fd) ? errno : 0;
		o->fd = -1;
		if (ret)
			goto fail;
		if (rename(o->tmp, o->target)) {
			ret = errno;
			what = "cannot replace the file";
			goto fail;
		}
		ofile_live_del(o->slot);
		free(o->tmp);
		o->tmp = NULL;
		fsync_dir(o->target);
		break;
	case OFILE_SPOOL:
		dst = o->out_fd;
		if (dst < 0) {
			/* a FIFO: waits for its reader (a stop ends the wait) */
			dst = open(o->target, O_WRONLY | O_CLOEXEC | O_NOCTTY);
			if (dst < 0) {
				ret = errno;
				what = ret == EINTR ? "stopped while waiting for a reader, nothing written" :
				       "cannot open";
				goto fail;
			}
		}
		ret = -copy_spool(o, dst);
		if (close(dst) && !ret && errno != EINTR)
			ret = errno;
		o->out_fd = -1;
		if (ret)
			goto fail;
		break;
	case OFILE_THROUGH:
		ret = close(o->fd) && errno != EINTR ? errno : 0;
		o->fd = -1;
		if (ret)
			goto fail;
		break;
	}
	ofile_free(o);
	return 0;
fail:
	fail(o, ret, what, e);
	ofile_free(o);
	return -ret;
}

/* ------------------------------------------------------------ stdio */

/* fopencookie's write: all of @len, or 0 with errno on an error */
static ssize_t cookie_write(void *cookie, const char *buf, size_t len)
{
	int ret = ofile_write(cookie, buf, len);

	if (ret) {
		errno = -ret;
		return 0;
	}
	return (ssize_t)len;
}

FILE *ofile_stdio(struct ofile *o)
{
	static const cookie_io_functions_t io = { .write = cookie_write };

	return fopencookie(o, "w", io);
}

void ofile_abort(struct ofile *o)
{
	if (o)
		ofile_free(o);
}
