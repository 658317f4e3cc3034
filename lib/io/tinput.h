/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tinput: the one way bqltool reads a trace (a path, or "-" for stdin),
 * plain or compressed. gzip and zstd streams are recognised by their magic
 * bytes, not the file name, and decompressed while streaming: no temporary
 * file, memory bounded by the decompressor's window and the caller's buffer.
 * Concatenated frames/members are read as one stream.
 */
#ifndef BQLTOOL_LIB_TINPUT_H
#define BQLTOOL_LIB_TINPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dql/err.h"

struct tinput;

enum tinput_codec { TINPUT_PLAIN, TINPUT_GZIP, TINPUT_ZSTD };

/* tinput_open - open @path ("-" = stdin); 0 or -errno with @e set. */
int tinput_open(struct tinput **tp, const char *path, struct bql_err *e);
/*
 * tinput_read - up to @len decompressed bytes into @buf: > 0 bytes, 0 at the
 * clean end of the stream, -errno on failure with @e naming the path and what
 * went wrong ("PATH: truncated zstd stream", "PATH: corrupt gzip data: ...").
 */
ssize_t tinput_read(struct tinput *t, void *buf, size_t len, struct bql_err *e);
enum tinput_codec tinput_codec(const struct tinput *t);
/* the input opened is a regular file (reads always end), not a pipe or tty */
bool tinput_regular(const struct tinput *t);
/* compressed bytes consumed so far (for progress) */
uint64_t tinput_raw_bytes(const struct tinput *t);
/* at most this much more is decompressed by tinput_blame() */
#define TINPUT_BLAME_MAX	(64u << 20)
/*
 * tinput_blame - the caller found what it read wrong (@e, a parse error):
 * when @t is compressed, read on (at most TINPUT_BLAME_MAX more bytes,
 * discarded) and, if the decompressor then fails, add to @e that the input
 * is possibly corrupt and why ("... (possibly corrupt input: PATH: corrupt
 * gzip data: incorrect data check)"): a flipped byte mid-stream yields
 * garbage text first and the decompressor's verdict only later. Returns
 * true if it did; @t is then at its end. Plain input: false, nothing read.
 */
bool tinput_blame(struct tinput *t, struct bql_err *e);
/* tinput_close - close and free; NULL is a no-op. */
void tinput_close(struct tinput *t);

#endif
