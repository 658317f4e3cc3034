/* SPDX-License-Identifier: GPL-2.0-only */
/* bqltool record: what the option parsing (record.c) hands the capture (record_cap.c). */
#ifndef BQLTOOL_CMD_RECORD_H
#define BQLTOOL_CMD_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/io/ctx.h"
#include "lib/io/ofile.h"
#include "lib/kernel/latbpf.h"
#include "lib/kernel/recbpf.h"
#include "lib/kernel/recwriter.h"
#include "lib/io/spinner.h"

#define REC_NPS		8

struct rec_opts {
	uint64_t dur_ns;	/* -d, 0 = until a signal */
	uint64_t count;		/* -c: C records, 0 = no limit */
	const char *out;	/* -o, NULL = stdout */
	bool queued, no_spin;
	bool latency;		/* --latency: the observer's summaries in the footer */
};

struct rec_run {
	struct bql_ctx *c;
	const struct rec_opts *o;
	struct ofile *of;
	struct recw w;
	struct recw_queue *q;
	struct recbpf_target *t;
	unsigned int n;
	struct recbpf *bpf;
	struct latbpf *lat;			/* --latency */
	struct latbpf_target lt[LAT_MAX_SLOTS];
	struct spinners spin;
	enum recbpf_backend backend;		/* the one in use */
	enum recbpf_backend order[RECBPF_NR];	/* the ones to try, in order */
	unsigned int norder;
	bool forced;				/* BQLTOOL_RECORD_BACKEND named one */
	bool limit_watch;
	char why_not[RECBPF_NR][320];		/* per backend: why it is not the one used */
	uint64_t dql[REC_MAX_SLOTS];	/* for -v */
	bool count_done;		/* -c COUNT reached */
	struct bpf_prog_runs ps[REC_NPS];	/* BQLTOOL_RECORD_STATS=1 */
	int nps;
	bool progress, drawn;
	uint64_t t0, last_shown, last_events;
};

/* record.c: does the selection fit backend @b (0), or why not (-E2BIG, @why) */
int record_budget(struct rec_run *r, enum recbpf_backend b, char *why, size_t n);

/*
 * record_capture - open the output, start the spinners (before any BPF
 * object), load and attach, write the trace until the end condition or a
 * signal, detach, write the footer and commit. Returns an enum bql_exit;
 * on failure nothing stays attached and no output is left.
 */
int record_capture(struct rec_run *r);

#endif
