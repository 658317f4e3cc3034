// SPDX-License-Identifier: GPL-2.0-only
/* sysfs reads and writes below a redirectable root. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/kernel/sysfs.h"
#include "lib/io/units.h"

bool sysfs_valid_ifname(const char *name)
{
	size_t len = strlen(name);

	if (!len || len >= BQL_IFNAMSIZ)
		return false;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (const char *p = name; *p; p++)
		if (*p == '/' || *p == ':' || *p == ' ' || *p == '\t' ||
		    *p == '\n' || *p == '\r')
			return false;
	return true;
}

int sysfs_dev_path(const struct bql_ctx *c, char *buf, size_t n,
		   const char *dev, const char *rel)
{
	int len = snprintf(buf, n, "%s/class/net/%s%s%s", c->sysfs_root, dev,
			   rel ? "/" : "", rel ? rel : "");

	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

int sysfs_bql_path(const struct bql_ctx *c, char *buf, size_t n,
		   const char *dev, unsigned int q, const char *attr)
{
	int len = snprintf(buf, n, "%s/class/net/%s/queues/tx-%u/byte_queue_limits%s%s",
			   c->sysfs_root, dev, q, attr ? "/" : "", attr ? attr : "");

	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

/* ------------------------------------------------ opening beneath the root */

#define SYSFS_MAX_LINKS	40	/* the kernel's MAXSYMLINKS */
#define SYSFS_MAX_DEPTH	128	/* directories deep, below the root */

/* openat2(2) answered ENOSYS once: walk from then on */
static bool openat2_missing;

/*
 * openat2, unless it is missing or BQLTOOL_NO_OPENAT2 is set (non-empty,
 * not "0"): tests use it to run the fallback walk on any kernel.
 */
static bool openat2_wanted(void)
{
	const char *env = getenv("BQLTOOL_NO_OPENAT2");

	return !openat2_missing && !(env && *env && strcmp(env, "0"));
}

static int resolve_openat2(int rootfd, const char *rel, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(unsigned int)flags,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	/* EAGAIN: a rename raced with ".." resolution; the kernel asks for a retry */
	for (int i = 0; i < 8; i++) {
		fd = syscall(SYS_openat2, rootfd, *rel ? rel : ".", &how, sizeof(how));
		if (fd >= 0 || errno != EAGAIN)
			break;
	}
	return fd < 0 ? -errno : (int)fd;
}

/*
 * The fallback: the semantics of RESOLVE_BENEATH done by hand. Each
 * component is opened O_PATH|O_NOFOLLOW relative to the directory before
 * it; a symbolic link is read and its target put in front of the rest
 * (an absolute target, or ".." above the root, is -EXDEV); the last
 * component is opened with @flags (and O_NOFOLLOW: it was checked).
 */
static int resolve_walk(int rootfd, const char *rel, int flags)
{
	char work[2 * PATH_MAX], tmp[2 * PATH_MAX], name[NAME_MAX + 1];
	char link[PATH_MAX];
	int stack[SYSFS_MAX_DEPTH], depth = 0, links = 0, ret;
	const char *p = work;

	if (strlen(rel) >= sizeof(work))
		return -ENAMETOOLONG;
	strcpy(work, rel);
	for (;;) {
		const char *end;
		struct stat st;
		int cur, fd;
		bool last;
		ssize_t ll;
		size_t len;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		end = strchrnul(p, '/');
		len = (size_t)(end - p);
		if (len > NAME_MAX) {
			ret = -ENAMETOOLONG;
			goto out;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		for (p = end; *p == '/'; p++)
			;
		last = !*p;
		cur = depth ? stack[depth - 1] : rootfd;
		if (!strcmp(name, "."))
			continue;
		if (!strcmp(name, "..")) {
			if (!depth) {
				ret = -EXDEV;
				goto out;
			}
			close(stack[--depth]);
			continue;
		}
		fd = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st)) {
			ret = -errno;
			if (fd >= 0)
				close(fd);
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			ll = readlinkat(fd, "", link, sizeof(link));
			ret = -errno;
			close(fd);
			if (ll < 0)
				goto out;
			if ((size_t)ll >= sizeof(link) || ++links > SYSFS_MAX_LINKS) {
				ret = (size_t)ll >= sizeof(link) ? -ENAMETOOLONG : -ELOOP;
				goto out;
			}
			if (!ll || link[0] == '/') {
				ret = ll ? -EXDEV : -ENOENT;
				goto out;
			}
			len = (size_t)snprintf(tmp, sizeof(tmp), "%.*s/%s", (int)ll, link, p);
			if (len >= sizeof(tmp)) {
				ret = -ENAMETOOLONG;
				goto out;
			}
			memcpy(work, tmp, len + 1);
			p = work;
			continue;
		}
		if (last) {
			if (flags & O_PATH) {
				if ((flags & O_DIRECTORY) && !S_ISDIR(st.st_mode)) {
					close(fd);
					ret = -ENOTDIR;
				} else {
					ret = fd;
				}
				goto out;
			}
			close(fd);
			ret = openat(cur, name, flags | O_NOFOLLOW);
			if (ret < 0)
				ret = -errno;
			goto out;
		}
		if (!S_ISDIR(st.st_mode) || depth == SYSFS_MAX_DEPTH) {
			close(fd);
			ret = S_ISDIR(st.st_mode) ? -ENAMETOOLONG : -ENOTDIR;
			goto out;
		}
		stack[depth++] = fd;
	}
	/* the path ends at a directory: the root, or after ".." */
	ret = openat(depth ? stack[depth - 1] : rootfd, ".", flags);
	if (ret < 0)
		ret = -errno;
out:
	while (depth)
		close(stack[--depth]);
	return ret;
}

static int resolve(int rootfd, const char *rel, int flags)
{
	int fd;

	if (openat2_wanted()) {
		fd = resolve_openat2(rootfd, rel, flags);
		/*
		 * Walk instead: no openat2 (before 5.6), a seccomp filter refusing
		 * it, or EAGAIN after retries (RESOLVE_BENEATH gives up on ".."
		 * while any rename happens anywhere, e.g. devices renamed or
		 * moved between namespaces; the walk holds its own directories).
		 */
		if (fd != -ENOSYS && fd != -EPERM && fd != -EAGAIN)
			return fd;
		if (fd == -ENOSYS)
			openat2_missing = true;
	}
	return resolve_walk(rootfd, rel, flags);
}

static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

static int open_err(const struct bql_ctx *c, int err, const char *path,
		    const char *obj, struct bql_err *e)
{
	if (err == EXDEV)
		return bql_err_set(e, EXDEV,
				   "%s: cannot open %s: it leads outside the sysfs root %s (a symbolic link points out of it): refused",
				   obj, path, c->sysfs_root);
	return bql_err_set(e, err, "%s: cannot open %s: %s", obj, path, strerror(err));
}

int sysfs_open(const struct bql_ctx *c, const char *path, int flags,
	       const char *obj, struct bql_err *e)
{
	size_t rl = strlen(c->sysfs_root);
	struct stat st, st2;
	const char *rel;
	int rootfd, fd;

	if (strncmp(path, c->sysfs_root, rl) ||
	    (path[rl] && path[rl] != '/' && (!rl || c->sysfs_root[rl - 1] != '/')))
		return open_err(c, EXDEV, path, obj, e);
	for (rel = path + rl; *rel == '/'; rel++)
		;
	rootfd = open(c->sysfs_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return open_err(c, errno, c->sysfs_root, obj, e);
	flags |= O_CLOEXEC;
	if (flags & (O_PATH | O_DIRECTORY)) {
		fd = resolve(rootfd, rel, flags);
		close(rootfd);
		return fd < 0 ? open_err(c, -fd, path, obj, e) : fd;
	}
	/* an attribute: look before opening, so a device node is never opened */
	fd = resolve(rootfd, rel, O_PATH | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		int err = fd < 0 ? -fd : errno;

		if (fd >= 0)
			close(fd);
		close(rootfd);
		return open_err(c, err, path, obj, e);
	}
	close(fd);
	if (!S_ISREG(st.st_mode)) {
		close(rootfd);
		return bql_err_set(e, S_ISDIR(st.st_mode) ? EISDIR : EINVAL,
				   "%s: cannot open %s: it is %s, not a regular file: refused",
				   obj, path, file_kind(st.st_mode));
	}
	/* O_NONBLOCK: should it become a FIFO after all, no open or read hangs */
	fd = resolve(rootfd, rel, flags | O_NONBLOCK | O_NOCTTY);
	close(rootfd);
	if (fd < 0)
		return open_err(c, -fd, path, obj, e);
	if (fstat(fd, &st2) || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino) {
		close(fd);
		return bql_err_set(e, EAGAIN, "%s: cannot open %s: it changed while being opened: refused",
				   obj, path);
	}
	return fd;
}

int sysfs_stat(const struct bql_ctx *c, const char *path, struct stat *st)
{
	int fd = sysfs_open(c, path, O_PATH, "", NULL), ret = 0;

	if (fd < 0)
		return fd;
	if (fstat(fd, st))
		ret = -errno;
	close(fd);
	return ret;
}

DIR *sysfs_opendir(const struct bql_ctx *c, const char *path, const char *obj,
		   struct bql_err *e)
{
	int fd = sysfs_open(c, path, O_RDONLY | O_DIRECTORY, obj, e);
	DIR *d;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	d = fdopendir(fd);
	if (!d) {
		int err = errno;

		close(fd);
		bql_err_set(e, err, "%s: cannot list %s: %s", obj, path, strerror(err));
		errno = err;
	}
	return d;
}

/* ------------------------------------------------ reads and writes */

/*
 * One pread: a regular file returns all it has up to the count, and a
 * sysfs attribute is produced whole by its first read. Only a full buffer
 * costs a second call, to see whether there is more.
 */
ssize_t sysfs_pread(int fd, char *buf, size_t n)
{
	size_t len;
	ssize_t r;
	char extra;

	r = pread(fd, buf, n - 1, 0);
	if (r < 0)
		return -errno;
	len = (size_t)r;
	buf[len] = '\0';
	if (len == n - 1) {
		/* full: is there more? A longer value is refused, never cut */
		r = pread(fd, &extra, 1, (off_t)len);
		if (r < 0)
			return -errno;
		if (r)
			return -EOVERFLOW;
	}
	/* a NUL inside would cut the value as surely as a short buffer */
	if (memchr(buf, '\0', len))
		return -EILSEQ;
	return (ssize_t)len;
}

int sysfs_read(const struct bql_ctx *c, const char *path, char *buf, size_t n,
	       const char *obj, struct bql_err *e)
{
	ssize_t len;
	int fd;

	fd = sysfs_open(c, path, O_RDONLY, obj, e);
	if (fd < 0)
		return fd;
	len = sysfs_pread(fd, buf, n);
	close(fd);
	if (len == -EOVERFLOW)
		return bql_err_set(e, EOVERFLOW,
				   "%s: value in %s is longer than %zu bytes: refused (not cut short)",
				   obj, path, n - 1);
	if (len == -EILSEQ)
		return bql_err_set(e, EILSEQ,
				   "%s: value in %s contains a NUL byte: refused (not cut short)",
				   obj, path);
	if (len < 0)
		return bql_err_set(e, (int)-len, "%s: cannot read %s: %s", obj, path,
				   strerror((int)-len));
	if (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	return 0;
}

int sysfs_read_u64(const struct bql_ctx *c, const char *path, uint64_t *v,
		   const char *obj, struct bql_err *e)
{
	char buf[64];
	int ret = sysfs_read(c, path, buf, sizeof(buf), obj, e);

	if (ret)
		return ret;
	ret = units_parse_u64(buf, v);
	if (ret == -ERANGE)
		return bql_err_set(e, ERANGE, "%s: value '%s' in %s is too large",
				   obj, buf, path);
	if (ret)
		return bql_err_set(e, EINVAL,
				   "%s: invalid value '%s' in %s (expected an unsigned integer)",
				   obj, buf, path);
	return 0;
}

/*
 * No O_TRUNC: a write that fails (EFBIG under `ulimit -f`, ENOSPC, the
 * kernel's store refusing the value) must leave the old value in place.
 * sysfs takes the whole buffer as the new value; a regular file (a fake
 * tree) is cut to the written length only after the write succeeded.
 */
int sysfs_write(const struct bql_ctx *c, const char *path, const char *s,
		const char *obj, struct bql_err *e)
{
	size_t len = strlen(s);
	struct statfs sfs;
	ssize_t w;
	int fd, err = 0;

	fd = sysfs_open(c, path, O_WRONLY, obj, e);
	if (fd < 0)
		return fd;
	w = write(fd, s, len);
	if (w < 0)
		err = errno;
	else if ((size_t)w == len && (fstatfs(fd, &sfs) || sfs.f_type != SYSFS_MAGIC) &&
		 ftruncate(fd, (off_t)len))
		err = errno;
	if (close(fd) && !err && w >= 0)
		err = errno;
	if (err)
		return bql_err_set(e, err, "%s: writing '%s' to %s: %s", obj, s,
				   path, strerror(err));
	if ((size_t)w != len)
		return bql_err_set(e, EIO, "%s: short write of '%s' to %s", obj,
				   s, path);
	return 0;
}

bool sysfs_dev_exists(const struct bql_ctx *c, const char *dev)
{
	char path[4096];
	struct stat st;

	if (sysfs_dev_path(c, path, sizeof(path), dev, NULL))
		return false;
	return sysfs_stat(c, path, &st) == 0 && S_ISDIR(st.st_mode);
}

int sysfs_dev_check(const struct bql_ctx *c, const char *dev, struct bql_err *e)
{
	char path[4096];
	struct stat st;
	int ret;

	if (sysfs_dev_path(c, path, sizeof(path), dev, NULL))
		return bql_err_set(e, ENAMETOOLONG, "%s: path too long", dev);
	ret = sysfs_stat(c, path, &st);
	if (!ret && S_ISDIR(st.st_mode))
		return 0;
	if (!ret || ret == -ENOENT || ret == -ENOTDIR)
		return bql_err_set(e, ENODEV, "%s: no such device", dev);
	return open_err(c, -ret, path, dev, e);
}

int sysfs_dev_order(int ifindex_a, const char *name_a, int ifindex_b,
		    const char *name_b)
{
	if (ifindex_a != ifindex_b) {
		/* unknown ifindex (-1) sorts last */
		if (ifindex_a < 0 || ifindex_b < 0)
			return ifindex_a < 0 ? 1 : -1;
		return ifindex_a < ifindex_b ? -1 : 1;
	}
	return strcmp(name_a, name_b);
}

static int dev_cmp(const void *a, const void *b)
{
	const struct sysfs_dev *x = a, *y = b;

	return sysfs_dev_order(x->ifindex, x->name, y->ifindex, y->name);
}

int sysfs_list_names(const struct bql_ctx *c, struct sysfs_dev **out,
		     size_t *n, struct bql_err *e)
{
	struct sysfs_dev *v = NULL, *nv;
	size_t cnt = 0, cap = 0;
	char path[4096];
	struct dirent *de;
	DIR *d;
	int err;

	snprintf(path, sizeof(path), "%s/class/net", c->sysfs_root);
	d = sysfs_opendir(c, path, "network devices", NULL);
	if (!d) {
		err = errno;
		if (err == EXDEV)
			return open_err(c, err, path, "network devices", e);
		return bql_err_set(e, err, "cannot list network devices in %s: %s",
				   path, strerror(err));
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !sysfs_valid_ifname(de->d_name))
			continue;
		if (cnt == cap) {
			cap = cap ? cap * 2 : 32;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(d);
				return bql_err_set(e, ENOMEM, "out of memory");
			}
			v = nv;
		}
		memcpy(v[cnt].name, de->d_name, strlen(de->d_name) + 1);
		v[cnt++].ifindex = -1;
	}
	closedir(d);
	if (cnt > 1)	/* every ifindex -1: by name */
		qsort(v, cnt, sizeof(*v), dev_cmp);
	*out = v;
	*n = cnt;
	return 0;
}

int sysfs_list_devs(const struct bql_ctx *c, struct sysfs_dev **out,
		    size_t *n, struct bql_err *e)
{
	int ret = sysfs_list_names(c, out, n, e);

	if (ret)
		return ret;
	for (size_t i = 0; i < *n; i++) {
		struct sysfs_dev *v = &(*out)[i];
		char ipath[4096];
		uint64_t idx;

		if (!sysfs_dev_path(c, ipath, sizeof(ipath), v->name, "ifindex") &&
		    !sysfs_read_u64(c, ipath, &idx, v->name, NULL) && idx <= INT32_MAX)
			v->ifindex = (int)idx;
	}
	if (*n > 1)
		qsort(*out, *n, sizeof(**out), dev_cmp);
	return 0;
}

int sysfs_count_txq(const struct bql_ctx *c, const char *dev,
		    unsigned int *nq, struct bql_err *e)
{
	char path[4096];
	unsigned long max = 0, cnt = 0;
	struct dirent *de;
	DIR *d;
	int err;

	if (sysfs_dev_path(c, path, sizeof(path), dev, "queues"))
		return bql_err_set(e, ENAMETOOLONG, "%s: path too long", dev);
	d = sysfs_opendir(c, path, dev, NULL);
	if (!d) {
		err = errno;
		if (err == ENOENT && !sysfs_dev_exists(c, dev))
			return bql_err_set(e, ENODEV, "%s: no such device", dev);
		if (err == EXDEV)
			return open_err(c, err, path, dev, e);
		return bql_err_set(e, err, "%s: cannot list queues in %s: %s",
				   dev, path, strerror(err));
	}
	while ((de = readdir(d))) {
		char *end;
		unsigned long q;

		if (strncmp(de->d_name, "tx-", 3) || !de->d_name[3])
			continue;
		errno = 0;
		q = strtoul(de->d_name + 3, &end, 10);
		if (*end || errno || de->d_name[3] < '0' || de->d_name[3] > '9')
			continue;
		if (q + 1 > max)
			max = q + 1;
		cnt++;
	}
	closedir(d);
	if (cnt != max)
		return bql_err_set(e, EIO, "%s: TX queues in %s are not numbered 0..%lu",
				   dev, path, max ? max - 1 : 0);
	*nq = (unsigned int)cnt;
	return 0;
}

bool sysfs_dev_has_bql(const struct bql_ctx *c, const char *dev)
{
	char path[4096];
	struct stat st;

	if (sysfs_bql_path(c, path, sizeof(path), dev, 0, NULL))
		return false;
	return sysfs_stat(c, path, &st) == 0 && S_ISDIR(st.st_mode);
}

uint64_t sysfs_link_speed(const struct bql_ctx *c, const char *dev)
{
	char path[4096], buf[32];
	char *end;
	long long v;

	if (sysfs_dev_path(c, path, sizeof(path), dev, "speed") ||
	    sysfs_read(c, path, buf, sizeof(buf), dev, NULL))
		return 0;
	/*
	 * The kernel prints the u32 ethtool speed with "%d" (speed_show() in
	 * net/core/net-sysfs.c): SPEED_UNKNOWN (U32_MAX) reads "-1", and
	 * nothing above INT_MAX Mb/s can be real. Those, out-of-range numbers
	 * (never clamped) and garbage mean unknown.
	 */
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || end == buf || *end || v <= 0 || v > INT32_MAX)
		return 0;
	return (uint64_t)v;
}

unsigned int sysfs_dev_mtu(const struct bql_ctx *c, const char *dev)
{
	char path[4096];
	uint64_t v;

	if (sysfs_dev_path(c, path, sizeof(path), dev, "mtu") ||
	    sysfs_read_u64(c, path, &v, dev, NULL) || v > UINT32_MAX)
		return 0;
	return (unsigned int)v;
}
