/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to cmd/sim.c: `sim --trace FILE`, the bqltrace of a simulation,
 * written through lib/ofile (in full or not at all; .gz/.zst compressed).
 */
#ifndef BQLTOOL_CMD_SIM_TRACE_H
#define BQLTOOL_CMD_SIM_TRACE_H

#include "dql/err.h"
#include "dql/sim.h"

struct sim_trace;

/* 0 or -errno with @e naming @path */
int sim_trace_open(struct sim_trace **tp, const char *path, struct bql_err *e);
/* a header line (directive or comment), with its '\n' */
void sim_trace_line(struct sim_trace *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* one record of queue @qname */
void sim_trace_record(struct sim_trace *t, const struct sim_rec *r, const char *qname);
/* finish, sync, rename into place; frees @t. 0 or -errno with @e. */
int sim_trace_commit(struct sim_trace *t, struct bql_err *e);
/* drop it: the target is untouched; frees @t (NULL is a no-op) */
void sim_trace_abort(struct sim_trace *t);

#endif
