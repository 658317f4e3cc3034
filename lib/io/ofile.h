/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ofile: every file bqltool writes (profiles, Prometheus textfiles, replay
 * timelines and plots, recorded and simulated traces) goes through here, so
 * that each is written in full or not at all.
 *
 * - A regular target (or a symlink to one, dangling or not: the link is kept
 *   and its target written) is written to an unnamed file (O_TMPFILE) in the
 *   real target's directory, linked as a temporary and renamed over it by
 *   ofile_commit() (where the filesystem has no O_TMPFILE, or with
 *   BQLTOOL_NO_O_TMPFILE=1, the temporary is named from the start:
 *   ".NAME.XXXXXX", NAME cut to fit NAME_MAX); ofile_abort() drops it and
 *   leaves the target untouched. An existing target keeps its
 *   mode and owner (an owner that cannot be kept, or a file the caller may
 *   not write, is an error at open); a new one gets 0666 & ~umask.
 * - A non-regular target (FIFO, character device such as /dev/null, or
 *   "/dev/stdout") is written only after success: the data is spooled to an
 *   unlinked temporary in $TMPDIR and copied at commit, unless OFILE_STREAM
 *   is given. A name for one of our descriptors (/dev/stdout, /dev/stderr,
 *   /dev/fd/N, /proc/self/fd/N, or a link to one) is written through that
 *   descriptor, never through the file behind it: its offset and O_APPEND
 *   are honoured and a file the shell opened is never replaced.
 * - "-" is standard output; with OFILE_STREAM it is written as it comes
 *   (record's live capture into a pipe), otherwise spooled like a
 *   non-regular target.
 * - With OFILE_COMPRESS_BY_NAME, a name ending in ".gz" (any case) is written through
 *   zlib (gzip format) and one ending in ".zst" through libzstd, streaming.
 *
 * Errors are sticky: the first write error is kept, later writes are
 * no-ops, and ofile_commit() reports it (and removes the temporary).
 * A fatal signal (SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGPIPE) that still has
 * its default action when a temporary is made removes every temporary
 * before it ends the process, as it would have.
 */
#ifndef BQLTOOL_LIB_OFILE_H
#define BQLTOOL_LIB_OFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "dql/err.h"

struct ofile;

enum {
	OFILE_COMPRESS_BY_NAME	= 1u << 0,	/* .gz / .zst by the name's ending */
	OFILE_STREAM		= 1u << 1,	/* "-" and non-regular targets: write through */
	OFILE_PUBLIC		= 1u << 2,	/* a new file is 0644 whatever the umask
						 * (read by another user: node_exporter) */
	OFILE_REGULAR		= 1u << 3,	/* only a regular file (new or replaced):
						 * a FIFO, device, socket or descriptor
						 * name is refused at open (export: a FIFO
						 * without a reader hung it for ever) */
};

/*
 * ofile_open - start writing @path ("-" = stdout). Checks up front that the
 * target's directory is writable (so a bad -o fails before any work).
 * Returns 0 and sets *@op, or -errno with @e naming the path and the reason.
 */
int ofile_open(struct ofile **op, const char *path, unsigned int flags, struct bql_err *e);
/* ofile_write - buffered write of @len bytes; 0, or -errno once an error is sticky. */
int ofile_write(struct ofile *o, const void *buf, size_t len);
int ofile_printf(struct ofile *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* ofile_flush - push buffered data down (record calls it between batches). */
int ofile_flush(struct ofile *o);
/* ofile_path - the name as given, for messages. */
const char *ofile_path(const struct ofile *o);
/*
 * ofile_stdio - a stdio stream that writes into @o, for code that prints to
 * a FILE * (Prometheus text, SVG). fclose() it before ofile_commit(); its
 * write errors are @o's. NULL when out of memory.
 */
FILE *ofile_stdio(struct ofile *o);
/*
 * ofile_finish - everything written: the compression trailer, the buffer,
 * fsync. The target is still untouched; ofile_commit() then only puts the
 * file in place. Lets a command with several outputs learn of any write
 * error before it replaces the first of them. 0 or -errno with @e set;
 * @o stays open either way (commit or abort it).
 */
int ofile_finish(struct ofile *o, struct bql_err *e);
/*
 * ofile_commit - finish the stream (compression trailer), fsync, rename into
 * place (or copy a spool to its non-regular target). Frees @o whatever
 * happens; on failure the target is untouched and @e says why.
 */
int ofile_commit(struct ofile *o, struct bql_err *e);
/* ofile_abort - drop everything written; the target is untouched. Frees @o. NULL is a no-op. */
void ofile_abort(struct ofile *o);
/*
 * ofile_clash - would writing @out (a name for ofile_open()) replace the
 * file @other names: a file the same command reads ("-": standard input)
 * or another of its outputs? Then the input would be destroyed, or one
 * output silently replaced by the other. Only regular files clash, after
 * symlinks: the same device and inode, or for outputs that do not exist
 * yet, the same directory and name. A descriptor name (/dev/stdout,
 * /dev/fd/N) never clashes: it is written through, not replaced, and
 * several outputs may share a terminal or /dev/null.
 */
bool ofile_clash(const char *out, const char *other);

/* what a file name's ending says the file holds (ofile_name_parse) */
enum ofile_fmt {
	OFILE_FMT_OTHER = 0,	/* no ending bqltool knows: any text */
	OFILE_FMT_CSV,		/* .csv */
	OFILE_FMT_JSONL,	/* .jsonl, .ndjson */
	OFILE_FMT_JSON,		/* .json */
	OFILE_FMT_SVG,		/* .svg */
	OFILE_FMT_BQLT,		/* .bqlt */
	OFILE_FMT_PROM,		/* .prom */
	OFILE_FMT_PNG,		/* .png */
	OFILE_FMT_PDF,		/* .pdf */
	OFILE_FMT_NR
};

/**
 * struct ofile_name - a name for ofile_open(), read by its ending
 * @fmt: the format the name promises, once a .gz or .zst is taken off
 * @fmt_ext: that ending as written (".SVG"), or NULL
 * @zip: ".gz" or ".zst" (what OFILE_COMPRESS_BY_NAME writes), or NULL
 * @foreign_zip: a compressed-file ending ofile never writes (".bz2", ".xz",
 *	".svgz" ...), or NULL
 * @device: a name under /dev/ or /proc/self/fd/ (standard output, a FIFO):
 *	its name says nothing of what it holds
 */
struct ofile_name {
	enum ofile_fmt fmt;
	const char *fmt_ext, *zip, *foreign_zip;
	bool device;
};

/*
 * ofile_attr_why - why root may not write the file open on @fd: "the file
 * is immutable (chattr +i; ...)" or "... append-only (chattr +a)", from its
 * inode flags; NULL when neither is set (or the filesystem has none).
 */
const char *ofile_attr_why(int fd);

/* ofile_name_parse - read @path's ending (case-insensitive) into @n */
void ofile_name_parse(const char *path, struct ofile_name *n);
/* ofile_fmt_name - "CSV", "SVG" ... for messages ("text" for OFILE_FMT_OTHER) */
const char *ofile_fmt_name(enum ofile_fmt f);

#endif
