/* SPDX-License-Identifier: GPL-2.0-only */
/* Private to lib/io/ofile*.c: what ofile.c takes from its two neighbours. */
#ifndef BQLTOOL_LIB_OFILE_INT_H
#define BQLTOOL_LIB_OFILE_INT_H

#include <stdbool.h>

/* ofile_path.c */
/* @s ends in @suf, in any case (.gz, .GZ: both compressed) */
bool ofile_has_suffix(const char *s, const char *suf);
/*
 * ofile_resolve - follow @path's symlinks to the name that is really
 * written: a dangling link gives the file to create, a link chain the file
 * at its end. Sets *@target (malloc'd), or *@fdnum when the chain reaches a
 * descriptor name ("/dev/stdout", "/proc/self/fd/N" ...). 0 or -errno.
 * A link that fs.protected_symlinks would not follow (in a sticky
 * world-writable directory, owned by neither us nor the directory's owner)
 * is -EACCES, *@refused (if not NULL) its name, malloc'd.
 */
int ofile_resolve(const char *path, char **target, int *fdnum, char **refused);
/* the directory part of @path ("." or "/" where it has none), malloc'd */
char *ofile_dir_of(const char *path);

/* ofile_live.c */
/*
 * ofile_live_mkstemp - mkostemp(@tmpl) and its slot (*@slot, -1 if
 * untracked), with every signal held meanwhile: a fatal signal after the
 * file exists finds its name and removes it.
 */
int ofile_live_mkstemp(char *tmpl, int *slot);
/*
 * ofile_live_link - name the unnamed (O_TMPFILE) file @fd @tmpl, its
 * "XXXXXX" made unique, and its slot (*@slot, -1 if untracked), with every
 * signal held meanwhile as for ofile_live_mkstemp(). 0, or -1 with errno.
 */
int ofile_live_link(int fd, char *tmpl, int *slot);
/* ofile_live_del - @slot's temporary is gone or kept: no longer removed */
void ofile_live_del(int slot);

#endif
