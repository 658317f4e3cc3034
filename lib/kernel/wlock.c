// SPDX-License-Identifier: GPL-2.0-only
/* The advisory write lock of BQL settings, per network namespace. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/kernel/wlock.h"

/* FNV-1a, 64 bits: a short stable name for a --sysfs-root path */
static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static int lock_path(const struct bql_ctx *c, const char *dir, char *buf, size_t n,
		     struct bql_err *e)
{
	char real[PATH_MAX];
	struct stat st;
	int len;

	if (c->root_overridden) {
		if (!realpath(c->sysfs_root, real))
			snprintf(real, sizeof(real), "%s", c->sysfs_root);
		len = snprintf(buf, n, "%s/root-%016" PRIx64 ".lock", dir, fnv1a(real));
	} else {
		if (stat("/proc/self/ns/net", &st))
			return bql_err_set(e, errno, "write lock: cannot identify the network namespace (/proc/self/ns/net): %s",
					   strerror(errno));
		len = snprintf(buf, n, "%s/netns-%" PRIx64 "-%" PRIu64 ".lock", dir,
			       (uint64_t)st.st_dev, (uint64_t)st.st_ino);
	}
	if (len < 0 || (size_t)len >= n)
		return bql_err_set(e, ENAMETOOLONG, "write lock: %s: path too long", dir);
	return 0;
}

/* "PID CMD" of the holder, as it wrote it; "" if not (yet) written */
static void holder(int fd, char *buf, size_t n)
{
	ssize_t r = pread(fd, buf, n - 1, 0);

	buf[r > 0 ? r : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

int wlock_take(const struct bql_ctx *c, const char *cmd, bool wait, struct wlock *l,
	       struct bql_err *e)
{
	const char *dir = getenv("BQLTOOL_LOCK_DIR");
	char who[64], pid[80];
	struct stat st, now;
	int ret, err;

	l->fd = -1;
	if (!dir || !*dir)
		dir = WLOCK_DIR;
	ret = lock_path(c, dir, l->path, sizeof(l->path), e);
	if (ret)
		return ret;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return bql_err_set(e, errno, "write lock: cannot create %s: %s", dir, strerror(errno));
again:
	l->fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
	if (l->fd < 0)
		return bql_err_set(e, errno, "write lock: cannot open %s: %s", l->path, strerror(errno));
	while (flock(l->fd, LOCK_EX | (wait ? 0 : LOCK_NB))) {
		if (errno == EINTR)
			continue;
		err = errno;
		if (err == EWOULDBLOCK) {
			holder(l->fd, who, sizeof(who));
			if (*who) {
				int k = (int)strcspn(who, " ");

				snprintf(pid, sizeof(pid), "pid %.*s%s%s", k, who, who[k] ? ", " : "",
					 who[k] ? who + k + 1 : "");
			} else {
				snprintf(pid, sizeof(pid), "pid unknown");
			}
			ret = bql_err_set(e, EBUSY,
					  "another bqltool is writing BQL settings %s (%s; lock %s): "
					  "nothing was written (--wait waits for it)",
					  c->root_overridden ? "in this sysfs tree" :
					  "in this network namespace", pid, l->path);
		} else {
			ret = bql_err_set(e, err, "write lock: %s: %s", l->path, strerror(err));
		}
		close(l->fd);
		l->fd = -1;
		return ret;
	}
	/* the holder before removed the file as it let go: lock the one there now */
	if (fstat(l->fd, &st) || stat(l->path, &now) || st.st_dev != now.st_dev ||
	    st.st_ino != now.st_ino) {
		close(l->fd);
		goto again;
	}
	snprintf(who, sizeof(who), "%ld %s\n", (long)getpid(), cmd ? cmd : "bqltool");
	if (ftruncate(l->fd, 0) || pwrite(l->fd, who, strlen(who), 0) < 0) {
		/* the pid is for messages only: the lock is held */
	}
	return 0;
}

void wlock_release(struct wlock *l)
{
	if (l->fd < 0)
		return;
	/* removed while held, so no file stays behind (wlock_take checks) */
	unlink(l->path);
	close(l->fd);
	l->fd = -1;
}
