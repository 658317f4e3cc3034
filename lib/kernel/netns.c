// SPDX-License-Identifier: GPL-2.0-only
/* Entering a named network namespace, with a sysfs that belongs to it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "lib/kernel/netns.h"
#include "lib/kernel/sysfs.h"

#define NETNS_RUN_DIR "/run/netns"
#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673
#endif

/* what @st is, for a file in /run/netns that is not a namespace */
static const char *file_kind(const struct stat *st)
{
	if (S_ISFIFO(st->st_mode))
		return "a FIFO";
	if (S_ISDIR(st->st_mode))
		return "a directory";
	if (S_ISSOCK(st->st_mode))
		return "a socket";
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		return "a device node";
	return "a plain file";
}

bool netns_valid_name(const char *name)
{
	return *name && strlen(name) <= NAME_MAX && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..");
}

int netns_switch(const char *name, struct bql_err *e)
{
	char path[512];
	int fd, err;

	if (!netns_valid_name(name))
		return bql_err_set(e, EINVAL, "netns '%s': invalid namespace name", name);
	snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, name);
	/* O_NONBLOCK: a FIFO put there must not hang the open */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		err = errno;
		return bql_err_set(e, err, "netns '%s': cannot open %s: %s%s", name,
				   path, strerror(err),
				   err == ENOENT ? " (see 'ip netns list')" : "");
	}
	/* what ip netns add mounts there is an nsfs file; anything else is not one */
	{
		struct statfs sf;
		struct stat st;

		if (!fstatfs(fd, &sf) && (unsigned long)sf.f_type != NSFS_MAGIC &&
		    !fstat(fd, &st)) {
			close(fd);
			return bql_err_set(e, EINVAL, "netns '%s': %s is %s, not a network namespace (see 'ip netns list')",
					   name, path, file_kind(&st));
		}
	}
	if (setns(fd, CLONE_NEWNET)) {
		err = errno;
		close(fd);
		if (err == EINVAL)
			return bql_err_set(e, err, "netns '%s': %s is a namespace of another kind, not a network namespace",
					   name, path);
		return bql_err_set(e, err, "netns '%s': cannot enter it: %s%s", name,
				   strerror(err),
				   err == EPERM ? " (needs CAP_SYS_ADMIN)" : "");
	}
	close(fd);
	if (unshare(CLONE_NEWNS)) {
		err = errno;
		return bql_err_set(e, err, "netns '%s': cannot create a mount namespace: %s",
				   name, strerror(err));
	}
	/* Keep our mounts from propagating back to the parent namespace. */
	if (mount("", "/", "none", MS_SLAVE | MS_REC, NULL)) {
		err = errno;
		return bql_err_set(e, err, "netns '%s': cannot make / a slave mount: %s",
				   name, strerror(err));
	}
	/* Mount a sysfs of this network namespace over /sys. */
	if (umount2("/sys", MNT_DETACH) && errno != EINVAL && errno != ENOENT) {
		err = errno;
		return bql_err_set(e, err, "netns '%s': cannot unmount /sys: %s",
				   name, strerror(err));
	}
	if (mount(name, "/sys", "sysfs", 0, NULL)) {
		err = errno;
		return bql_err_set(e, err, "netns '%s': cannot mount sysfs on /sys: %s",
				   name, strerror(err));
	}
	return 0;
}
