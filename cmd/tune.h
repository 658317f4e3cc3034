/* SPDX-License-Identifier: GPL-2.0-only */
/* Private to cmd/tune*.c: one `bqltool tune` run. */
#ifndef BQLTOOL_CMD_TUNE_H
#define BQLTOOL_CMD_TUNE_H

#include <stdbool.h>
#include <stdint.h>

#include "cmd/sim_opts.h"
#include "dql/tune.h"
#include "dql/tune_fit.h"
#include "lib/ctx.h"

struct tx {
	struct bql_ctx *c;
	struct sim_opts o;
	const char *from;		/* --from TRACE */
	char *sel;			/* SEL as typed, NULL = none */
	double keep, min_gain;
	unsigned int threads;
	bool apply;
	/* the model's origin, for the report */
	bool fitted;
	struct tune_fitted fit;
	bool from_device;
	char dev[16];
	uint64_t dev_mbps;
	unsigned int dev_queues;
	/* the device's TX ring and coalescing (ethtool genl); present 0: unknown */
	unsigned int dev_ring, dev_coal_usecs, dev_coal_frames;
	bool dev_has_ring, dev_has_usecs, dev_has_frames;
	char dev_eth_note[256];		/* why they are unknown */
	/* results */
	struct tune_result base;
	struct tune_result *res;	/* candidates, in evaluation order */
	unsigned int nres, ncoarse;
	int pick, best;			/* tune_pick() */
	char command[512];		/* "bqltool set SEL ..." or "" */
	char reason[512];
};

/* tune_out.c: the report, text or JSON */
int tx_report(struct tx *x);

#endif
