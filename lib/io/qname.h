/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How a queue is named in machine output (DESIGN.md): every per-queue
 * object of every command starts with "name" ("eth0:tx-0", or a trace's own
 * queue name), then "ifname" and "queue" (the integer index) wherever the
 * queue is a device TX queue or a trace name of the form DEV:tx-N. One rule,
 * one writer for each output path: out_* (json-c tree) and jsonw (streamed).
 * Names go through the usual escaping (lib/io/esc.h) like any other string.
 */
#ifndef BQLTOOL_LIB_QNAME_H
#define BQLTOOL_LIB_QNAME_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/io/ctx.h"
#include "lib/io/jsonw.h"

/*
 * qname_split - true when @name is DEV:tx-N: DEV is everything before the
 * last ':' (at least one byte), N a decimal integer up to UINT32_MAX with
 * no sign, space, leading zero or anything after it, so that the name is
 * exactly DEV ":tx-" N again. Then *@devlen is DEV's length and *@queue N.
 */
bool qname_split(const char *name, size_t *devlen, unsigned int *queue);

/*
 * qname_out_queue - JSON only: a device TX queue,
 * "name":"IFNAME:tx-Q","ifname":IFNAME,"queue":Q
 */
void qname_out_queue(struct bql_ctx *c, const char *ifname, unsigned int queue);
/*
 * qname_out_dev - JSON only: a row about a whole device in a list of
 * queues (a device without BQL, a device a profile names that is absent):
 * "name":IFNAME,"ifname":IFNAME,"queue":null
 */
void qname_out_dev(struct bql_ctx *c, const char *ifname);
/*
 * qname_out_trace - JSON only: a trace's (or the simulator's) queue,
 * "name":NAME and, when qname_split() takes it, "ifname":DEV,"queue":N
 */
void qname_out_trace(struct bql_ctx *c, const char *name);
/* qname_jsonw_trace - the same keys through a streaming writer */
void qname_jsonw_trace(struct jsonw *w, const char *name);

#endif
