// SPDX-License-Identifier: GPL-2.0-only
/* sysfs reads and writes below a redirectable root. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/sysfs.h"
#include "lib/units.h"

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

int sysfs_read(const char *path, char *buf, size_t n, const char *obj,
	       struct bql_err *e)
{
	ssize_t len;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		return bql_err_set(e, err, "%s: cannot open %s: %s", obj, path,
				   strerror(err));
	}
	len = read(fd, buf, n - 1);
	err = errno;
	close(fd);
	if (len < 0)
		return bql_err_set(e, err, "%s: cannot read %s: %s", obj, path,
				   strerror(err));
	buf[len] = '\0';
	if (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	return 0;
}

int sysfs_read_u64(const char *path, uint64_t *v, const char *obj,
		   struct bql_err *e)
{
	char buf[64];
	int ret = sysfs_read(path, buf, sizeof(buf), obj, e);

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

int sysfs_write(const char *path, const char *s, const char *obj,
		struct bql_err *e)
{
	size_t len = strlen(s);
	ssize_t w;
	int fd, err;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		return bql_err_set(e, err, "%s: cannot open %s for writing: %s",
				   obj, path, strerror(err));
	}
	w = write(fd, s, len);
	err = errno;
	if (close(fd) && w >= 0) {
		w = -1;
		err = errno;
	}
	if (w < 0)
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
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
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

int sysfs_list_devs(const struct bql_ctx *c, struct sysfs_dev **out,
		    size_t *n, struct bql_err *e)
{
	struct sysfs_dev *v = NULL, *nv;
	size_t cnt = 0, cap = 0;
	char path[4096];
	struct dirent *de;
	DIR *d;
	int err;

	snprintf(path, sizeof(path), "%s/class/net", c->sysfs_root);
	d = opendir(path);
	if (!d) {
		err = errno;
		return bql_err_set(e, err, "cannot list network devices in %s: %s",
				   path, strerror(err));
	}
	while ((de = readdir(d))) {
		char ipath[4096];
		uint64_t idx;

		if (de->d_name[0] == '.' || !sysfs_valid_ifname(de->d_name))
			continue;
		if (cnt == cap) {
			cap = cap ? cap * 2 : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(d);
				return bql_err_set(e, ENOMEM, "out of memory");
			}
			v = nv;
		}
		memcpy(v[cnt].name, de->d_name, strlen(de->d_name) + 1);
		v[cnt].ifindex = -1;
		if (!sysfs_dev_path(c, ipath, sizeof(ipath), de->d_name, "ifindex") &&
		    !sysfs_read_u64(ipath, &idx, de->d_name, NULL) && idx <= INT32_MAX)
			v[cnt].ifindex = (int)idx;
		cnt++;
	}
	closedir(d);
	if (cnt)
		qsort(v, cnt, sizeof(*v), dev_cmp);
	*out = v;
	*n = cnt;
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
	d = opendir(path);
	if (!d) {
		err = errno;
		if (err == ENOENT && !sysfs_dev_exists(c, dev))
			return bql_err_set(e, ENODEV, "%s: no such device", dev);
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
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

uint64_t sysfs_link_speed(const struct bql_ctx *c, const char *dev)
{
	char path[4096], buf[32];
	char *end;
	long v;

	if (sysfs_dev_path(c, path, sizeof(path), dev, "speed") ||
	    sysfs_read(path, buf, sizeof(buf), dev, NULL))
		return 0;
	v = strtol(buf, &end, 10);
	/* -1 (SPEED_UNKNOWN) or garbage: unknown */
	return (*end || v <= 0) ? 0 : (uint64_t)v;
}
