/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check --interval's evidence in time: the latency observer
 * (lib/kernel/latbpf.c) attached over the interval, its reading turned
 * into one line per queue ("p99 ring time 85 us; 38% of stops were the
 * ring, not BQL").
 */
#ifndef BQLTOOL_CMD_CHECK_TIME_H
#define BQLTOOL_CMD_CHECK_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/io/ctx.h"
#include "lib/model/snapshot.h"

struct check_time;

/*
 * check_time_start - attach the observer to every queue of @s, in its
 * order. NULL when it cannot (no root, no BPF, --sysfs-root, more than 64
 * queues): @why (if @n) says why, for a note.
 */
struct check_time *check_time_start(struct bql_ctx *c, const struct snapshot *s,
				    char *why, size_t n);
/* take the reading and detach everything; false (and @why) if the reading failed */
bool check_time_stop(struct check_time *t, char *why, size_t n);
/*
 * check_time_line - the evidence of queue @idx (snapshot order) over
 * @dur_ns as one line into @buf; false when the queue sent nothing.
 */
bool check_time_line(const struct check_time *t, size_t idx, uint64_t dur_ns,
		     char *buf, size_t n);
void check_time_free(struct check_time *t);

#endif
