/* SPDX-License-Identifier: GPL-2.0-only */
/* Private to cmd/sim*.c: one `bqltool sim` run. */
#ifndef BQLTOOL_CMD_SIM_H
#define BQLTOOL_CMD_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "cmd/replay.h"
#include "cmd/sim_opts.h"
#include "dql/sim.h"
#include "lib/io/ctx.h"

#define SIM_QNAME_MAX	20

struct sim_trace;

struct sx {
	struct bql_ctx *c;
	struct sim_opts o;
	const char *trace, *timeline, *plot;
	bool all_events, jsonl, quiet;
	struct sim *s;
	char qname[SIM_MAX_QUEUES][SIM_QNAME_MAX];
	uint64_t line;		/* line of the trace a record is (or would be) on */
	struct sim_trace *tw;	/* --trace */
	/* --timeline, --plot: replay's writers, fed through a replay */
	struct rx x;
	struct rfile rf;
	char plot_title[2048];	/* the model: link, queues, traffic, seed, settings */
	struct rx_mark marks[SIM_MAX_STALLS + SIM_MAX_AT];	/* --stall, --at */
	struct sim_warning warn[SIM_MAX_WARN];
	unsigned int nwarn;
	bool rx_on;
	int rx_err;
	struct bql_err rx_e;
	uint64_t rx_mismatch;
	/* progress */
	bool progress, drawn;
	uint64_t shown_ns;
};

/* sim_out.c: the summary, text or JSON */
int sx_summary(struct sx *x);

#endif
