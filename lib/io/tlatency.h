/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The latency summaries a recording carries (bqltrace(5), "Latency
 * summaries": "# latency QUEUE KIND p50=NS p90=NS p99=NS max=NS count=N",
 * written by `record --latency`), read back: comments that the trace parser
 * skips, found by a pass of their own over the (plain or compressed) trace.
 */
#ifndef BQLTOOL_LIB_TLATENCY_H
#define BQLTOOL_LIB_TLATENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dql/err.h"

/**
 * struct tlat_kind - one KIND over the queues that have it
 * @queues: queues with a summary of it (count > 0)
 * @count: samples, all queues
 * @p99_ns: the highest p99 of any queue
 * @max_ns: the highest max of any queue
 */
struct tlat_kind {
	unsigned int queues;
	uint64_t count;
	uint64_t p99_ns, max_ns;
};

/*
 * tlat_line - fold one line (without its newline) into @k if it is a
 * summary of @kind ("irq_delay", "ring_time", "qdisc_wait"); false if it is
 * not one (any other line, or a malformed summary: skipped, as the parser
 * skips comments).
 */
bool tlat_line(const char *line, size_t len, const char *kind, struct tlat_kind *k);

/*
 * tlat_read - every summary of @kind in the trace at @path ("-" is not
 * read: standard input cannot be read twice). 0 (@k->queues 0: none), or
 * -errno with @e naming the path and the reason.
 */
int tlat_read(const char *path, const char *kind, struct tlat_kind *k, struct bql_err *e);

#endif
