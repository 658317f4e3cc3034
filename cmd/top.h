/* SPDX-License-Identifier: GPL-2.0-only */
/* bqltool top: what the command, its batch stream and its live view share. */
#ifndef BQLTOOL_CMD_TOP_H
#define BQLTOOL_CMD_TOP_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/io/ctx.h"
#include "lib/kernel/sampler.h"

#define NS_PER_SEC	1000000000ull
#define MIN_DELAY_NS	10000000ull	/* 0.01 s */
/*
 * The live view redraws at most this often (10 frames a second, faster
 * than numbers can be read); samples still come at the -d rate, and keys
 * are answered at once.
 */
#define TOP_FRAME_NS	100000000ull

struct top_opts {
	uint64_t delay_ns;
	uint64_t count;		/* 0 = until stopped */
	bool batch;
	bool all;
	int sort;		/* -1 = default */
	struct top_lat *lat;	/* measured time (cmd/top_lat.c), tried at the first sample */
};

/* CLOCK_MONOTONIC in ns */
uint64_t top_mono_now(void);
/*
 * the live view until q, a signal or the count; @selected: selectors were
 * given (every selected device is shown); returns enum bql_exit
 */
int top_run_live(struct bql_ctx *c, struct sampler *s, const struct top_opts *o,
		 bool selected);
/* -b: sample and print until the count or a signal; returns enum bql_exit */
int top_run_batch(struct bql_ctx *c, struct sampler *s, const struct top_opts *o);

#endif
