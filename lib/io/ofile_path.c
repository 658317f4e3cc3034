// SPDX-License-Identifier: GPL-2.0-only
/*
 * ofile's names and paths: what a name stands for (a descriptor, the
 * file at the end of its symlinks), whether two names write one file,
 * and what a name's suffixes ask for (format, compression).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/io/ofile.h"
#include "lib/io/ofile_int.h"

#define OFILE_HOPS	40		/* symlinks followed, as the kernel's MAXSYMLINKS */

/* the name ends in @suf, in any case (.gz, .GZ: both compressed) */
bool ofile_has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcasecmp(s + n - m, suf);
}

/*
 * The descriptor a name stands for: "/dev/stdout", "/dev/fd/N",
 * "/proc/self/fd/N", "/proc/PID/fd/N" of this process. Such a "magic"
 * link is not followed to the file behind it: writing through the
 * descriptor keeps its offset and O_APPEND, and never replaces a file the
 * shell opened for us. -1 for any other name.
 */
static int fd_of_name(const char *p)
{
	char self[32];
	const char *s = NULL;
	char *end;
	long n;

	if (!strcmp(p, "/dev/stdout"))
		return 1;
	if (!strcmp(p, "/dev/stderr"))
		return 2;
	snprintf(self, sizeof(self), "/proc/%ld/fd/", (long)getpid());
	if (!strncmp(p, "/dev/fd/", 8))
		s = p + 8;
	else if (!strncmp(p, "/proc/self/fd/", 14))
		s = p + 14;
	else if (!strncmp(p, "/proc/thread-self/fd/", 21))
		s = p + 21;
	else if (!strncmp(p, self, strlen(self)))
		s = p + strlen(self);
	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtol(s, &end, 10);
	if (*end || errno || n > INT_MAX)
		return -1;
	return (int)n;
}

/*
 * Follow @path's symlinks to the name that is really written: a dangling
 * link gives the file to create, a link chain the file at its end. Sets
 * *@target (malloc'd), or *@fdnum when the chain reaches a descriptor
 * name. 0 or -errno.
 *
 * A link is followed only where the kernel with fs.protected_symlinks=1
 * (the default of every distribution) would follow it: not one in a
 * sticky world-writable directory (/tmp) whose owner is neither us nor the
 * directory's owner, planted there by another user for root to write
 * through (-EACCES, *@refused, if not NULL, the link's name, malloc'd).
 */
static bool protected_link(const char *link, const struct stat *lst)
{
	char *dir = ofile_dir_of(link);
	struct stat dst;
	bool refuse = false;

	if (dir && !stat(dir, &dst))
		refuse = (dst.st_mode & S_ISVTX) && (dst.st_mode & S_IWOTH) &&
			 lst->st_uid != geteuid() && lst->st_uid != dst.st_uid;
	free(dir);
	return refuse;
}

int ofile_resolve(const char *path, char **target, int *fdnum, char **refused)
{
	char *cur = strdup(path), *next;
	char link[PATH_MAX];
	struct stat st;
	int hop;

	*target = NULL;
	*fdnum = -1;
	if (!cur)
		return -ENOMEM;
	for (hop = 0; hop <= OFILE_HOPS; hop++) {
		ssize_t n;

		*fdnum = fd_of_name(cur);
		if (*fdnum >= 0) {
			free(cur);
			return 0;
		}
		if (lstat(cur, &st) || !S_ISLNK(st.st_mode)) {
			*target = cur;
			return 0;
		}
		if (protected_link(cur, &st)) {
			if (refused)
				*refused = cur;
			else
				free(cur);
			return -EACCES;
		}
		n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0) {
			int err = errno;

			free(cur);
			return -err;
		}
		link[n] = '\0';
		if (link[0] == '/') {
			next = strdup(link);
		} else {
			char *slash = strrchr(cur, '/');

			if (!slash)
				next = strdup(link);
			else if (asprintf(&next, "%.*s/%s", (int)(slash - cur), cur, link) < 0)
				next = NULL;
		}
		free(cur);
		if (!next)
			return -ENOMEM;
		cur = next;
	}
	free(cur);
	return -ELOOP;
}

/* the directory part of @path ("." or "/" where it has none), malloc'd */
char *ofile_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/* ------------------------------------------------------------ clashes */

/* what a name would write or read: a regular file, by inode or by name */
struct fkey {
	bool reg;		/* an existing regular file: dev, ino */
	dev_t dev;
	ino_t ino;
	char *name;		/* not existing yet: its resolved directory/name */
};

/* the resolved directory of @target (realpath) and its last component */
static char *canonical(const char *target)
{
	const char *slash = strrchr(target, '/');
	char *dir = ofile_dir_of(target), *real, *out;

	if (!dir)
		return NULL;
	real = realpath(dir, NULL);
	free(dir);
	if (!real)
		return strdup(target);
	if (asprintf(&out, "%s/%s", real, slash ? slash + 1 : target) < 0)
		out = NULL;
	free(real);
	return out;
}

static void fkey_get(const char *path, struct fkey *k)
{
	struct stat st;
	char *target;
	int fdnum;

	memset(k, 0, sizeof(*k));
	if (!strcmp(path, "-")) {
		if (!fstat(STDIN_FILENO, &st) && S_ISREG(st.st_mode)) {
			k->reg = true;
			k->dev = st.st_dev;
			k->ino = st.st_ino;
		}
		return;
	}
	if (ofile_resolve(path, &target, &fdnum, NULL) || fdnum >= 0)
		return;
	if (!stat(target, &st)) {
		if (S_ISREG(st.st_mode)) {
			k->reg = true;
			k->dev = st.st_dev;
			k->ino = st.st_ino;
		}
	} else if (errno == ENOENT) {
		k->name = canonical(target);
	}
	free(target);
}

bool ofile_clash(const char *out, const char *other)
{
	struct fkey a, b;
	bool same;

	if (!strcmp(out, "-"))
		return false;	/* standard output: written through */
	fkey_get(out, &a);
	fkey_get(other, &b);
	if (a.reg && b.reg)
		same = a.dev == b.dev && a.ino == b.ino;
	else
		same = a.name && b.name && !strcmp(a.name, b.name);
	free(a.name);
	free(b.name);
	return same;
}

/* ------------------------------------------------------------ names */

static size_t suffix_ci(const char *s, size_t n, const char *suf)
{
	size_t m = strlen(suf);

	return n >= m && !strncasecmp(s + n - m, suf, m) ? m : 0;
}

void ofile_name_parse(const char *path, struct ofile_name *n)
{
	static const struct { const char *ext; enum ofile_fmt fmt; } fmts[] = {
		{ ".csv", OFILE_FMT_CSV }, { ".jsonl", OFILE_FMT_JSONL },
		{ ".ndjson", OFILE_FMT_JSONL }, { ".json", OFILE_FMT_JSON },
		{ ".svg", OFILE_FMT_SVG }, { ".bqlt", OFILE_FMT_BQLT },
		{ ".prom", OFILE_FMT_PROM }, { ".png", OFILE_FMT_PNG },
		{ ".pdf", OFILE_FMT_PDF },
	};
	/* compressors ofile does not write (.svgz is gzip by convention) */
	static const char *const foreign[] = {
		".bz2", ".xz", ".lz4", ".lzma", ".lz", ".z", ".br", ".zip", ".7z", ".svgz", ".tgz",
	};
	size_t len = strlen(path), k;

	memset(n, 0, sizeof(*n));
	n->device = !strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/self/fd/", 14);
	for (k = 0; k < sizeof(foreign) / sizeof(foreign[0]); k++)
		if (suffix_ci(path, len, foreign[k])) {
			n->foreign_zip = path + len - strlen(foreign[k]);
			return;
		}
	/* what ofile_open() compresses */
	if (ofile_has_suffix(path, ".gz")) {
		n->zip = ".gz";
		len -= 3;
	} else if (ofile_has_suffix(path, ".zst")) {
		n->zip = ".zst";
		len -= 4;
	}
	for (k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++)
		if (suffix_ci(path, len, fmts[k].ext)) {
			n->fmt = fmts[k].fmt;
			n->fmt_ext = path + len - strlen(fmts[k].ext);
			return;
		}
}

const char *ofile_fmt_name(enum ofile_fmt f)
{
	static const char *const names[OFILE_FMT_NR] = {
		"text", "CSV", "JSON lines", "JSON", "SVG", "a bqltrace", "Prometheus text",
		"PNG", "PDF",
	};

	return f < OFILE_FMT_NR ? names[f] : "text";
}

const char *ofile_attr_why(int fd)
{
	int flags = 0;

	if (ioctl(fd, FS_IOC_GETFLAGS, &flags))
		return NULL;
	if (flags & FS_IMMUTABLE_FL)
		return "the file is immutable (chattr +i; chattr -i allows writing it)";
	if (flags & FS_APPEND_FL)
		return "the file is append-only (chattr +a)";
	return NULL;
}
