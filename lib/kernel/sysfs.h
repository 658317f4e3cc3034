/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sysfs access under a root that tests (and offline snapshots) can redirect:
 * devices are ROOT/class/net/DEV, TX queues ROOT/class/net/DEV/queues/tx-N.
 */
#ifndef BQLTOOL_LIB_SYSFS_H
#define BQLTOOL_LIB_SYSFS_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "dql/err.h"
#include "lib/io/ctx.h"

#define BQL_IFNAMSIZ	16	/* IFNAMSIZ: 15 bytes + NUL */

struct sysfs_dev {
	char name[BQL_IFNAMSIZ];
	int ifindex;		/* -1 if unreadable */
};

/* dev_valid_name(): 1..15 bytes, not "." or "..", no '/', ':' or space. */
bool sysfs_valid_ifname(const char *name);

/* ROOT/class/net/@dev[/@rel]; -ENAMETOOLONG if it does not fit. */
int sysfs_dev_path(const struct bql_ctx *c, char *buf, size_t n,
		   const char *dev, const char *rel);
/* ROOT/class/net/@dev/queues/tx-@q/byte_queue_limits[/@attr] */
int sysfs_bql_path(const struct bql_ctx *c, char *buf, size_t n,
		   const char *dev, unsigned int q, const char *attr);

/*
 * sysfs_open - open @path (from sysfs_dev_path()/sysfs_bql_path(), so it
 * starts with c->sysfs_root) resolved beneath the root: every component,
 * symbolic links included, must stay inside it (openat2 RESOLVE_BENEATH,
 * or the same rules walked by hand where openat2 is missing); a path that
 * leads out is -EXDEV. @flags: O_RDONLY or O_WRONLY opens an attribute,
 * which must be a regular file (a FIFO, device node or directory is
 * refused before it is opened, and the open is O_NONBLOCK); O_DIRECTORY
 * a directory; O_PATH anything (to fstat it). O_CLOEXEC is added.
 * Returns the fd, or -errno with @e (may be NULL) naming @obj and @path.
 */
int sysfs_open(const struct bql_ctx *c, const char *path, int flags,
	       const char *obj, struct bql_err *e);
/* stat(2) of @path, resolved as sysfs_open() does; 0 or -errno. */
int sysfs_stat(const struct bql_ctx *c, const char *path, struct stat *st);
/* opendir(3) of @path, resolved as sysfs_open() does; NULL with errno. */
DIR *sysfs_opendir(const struct bql_ctx *c, const char *path, const char *obj,
		   struct bql_err *e);
/*
 * Read an attribute from an open @fd from offset 0 into @buf (@n bytes
 * with the NUL). Returns the length, or -errno: -EOVERFLOW if the value
 * does not fit, -EILSEQ if it holds a NUL byte (refused, never cut short).
 */
ssize_t sysfs_pread(int fd, char *buf, size_t n);
/*
 * Read a whole small attribute file into @buf (NUL-terminated, trailing
 * newline removed). @obj names the thing in messages. -errno;
 * -EOVERFLOW if the value is longer than @buf, -EILSEQ if it holds a NUL.
 */
int sysfs_read(const struct bql_ctx *c, const char *path, char *buf, size_t n,
	       const char *obj, struct bql_err *e);
/* Read an unsigned decimal attribute strictly. -EINVAL names the value. */
int sysfs_read_u64(const struct bql_ctx *c, const char *path, uint64_t *v,
		   const char *obj, struct bql_err *e);
/*
 * Write @s in one write(2); the kernel's store answer becomes the error.
 * Never truncates first: a failed write leaves the old value in place.
 */
int sysfs_write(const struct bql_ctx *c, const char *path, const char *s,
		const char *obj, struct bql_err *e);

/*
 * The order devices are listed in: ifindex, unknown (-1) last, name on
 * ties. A qsort-style result.
 */
int sysfs_dev_order(int ifindex_a, const char *name_a, int ifindex_b,
		    const char *name_b);
/*
 * Every entry of ROOT/class/net with a valid name, sorted by name, each
 * ifindex -1: nothing is read in the devices' directories (top lists the
 * names every tick to see devices come and go). -errno, @e says why.
 */
int sysfs_list_names(const struct bql_ctx *c, struct sysfs_dev **out,
		     size_t *n, struct bql_err *e);
/* The same with each ifindex read (-1 if unreadable), in sysfs_dev_order(). */
int sysfs_list_devs(const struct bql_ctx *c, struct sysfs_dev **out,
		    size_t *n, struct bql_err *e);
bool sysfs_dev_exists(const struct bql_ctx *c, const char *dev);
/*
 * 0 if ROOT/class/net/@dev is a directory beneath the root; -ENODEV "no
 * such device", -EXDEV when it leads outside the root (refused), or
 * another -errno, with @e naming the device.
 */
int sysfs_dev_check(const struct bql_ctx *c, const char *dev, struct bql_err *e);
/*
 * Number of TX queues (tx-0 .. tx-N-1). The kernel numbers them densely;
 * a gap is reported as -EIO naming the device.
 */
int sysfs_count_txq(const struct bql_ctx *c, const char *dev,
		    unsigned int *nq, struct bql_err *e);
/* true if tx-0 has a byte_queue_limits directory */
bool sysfs_dev_has_bql(const struct bql_ctx *c, const char *dev);
/* link speed in Mbit/s from ROOT/class/net/DEV/speed; 0 if unknown */
uint64_t sysfs_link_speed(const struct bql_ctx *c, const char *dev);
/* MTU in bytes from ROOT/class/net/DEV/mtu; 0 if unknown */
unsigned int sysfs_dev_mtu(const struct bql_ctx *c, const char *dev);

#endif
