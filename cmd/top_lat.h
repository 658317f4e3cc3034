/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * top's measured time: the latency observer (lib/kernel/latbpf.c) over the
 * selected queues, read at every sample; the interval's ring
 * time and qdisc wait p99 and the stops per second by cause, for the model
 * (tm_lat_fn), the batch stream and the header.
 */
#ifndef BQLTOOL_CMD_TOP_LAT_H
#define BQLTOOL_CMD_TOP_LAT_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/io/ctx.h"
#include "lib/kernel/sampler.h"
#include "lib/kernel/sel.h"

struct top_lat;

struct top_lat *top_lat_new(void);
void top_lat_free(struct top_lat *tl);
/*
 * top_lat_start - attach the observer to the selected queues (the first 64)
 * before the first sample, or note why not (top_lat_status). Devices that
 * appear later are not observed.
 */
void top_lat_start(struct bql_ctx *c, struct top_lat *tl, const struct sel_result *r);
/* top_lat_tick - after each sampler tick: what the interval saw. NULL is a no-op. */
void top_lat_tick(struct bql_ctx *c, struct top_lat *tl, const struct sampler *s);
/* the observer runs */
bool top_lat_on(const struct top_lat *tl);
/* "on, 3 queues", "off: observing the kernel needs root" */
const char *top_lat_status(const struct top_lat *tl, char *buf, size_t n);
/* tm_lat_fn for the model: @arg is the struct top_lat */
unsigned int top_lat_fill(void *arg, const char *ifname, int queue, double *v);
/*
 * JSON of queue @queue of @ifname (top -b -j): "ring_time" and
 * "qdisc_wait" distributions of the interval, "stops" by cause with
 * per_sec; nothing when not measured.
 */
void top_lat_json_queue(struct bql_ctx *c, const struct top_lat *tl, const char *ifname,
			unsigned int queue);
/* JSON of the sample: "latency": {"on": ..., "why": ...} */
void top_lat_json_status(struct bql_ctx *c, const struct top_lat *tl);

#endif
