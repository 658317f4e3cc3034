/* SPDX-License-Identifier: GPL-2.0-only */
/* The write path that set, reset and apply share (cmd/set.c). */
#ifndef BQLTOOL_CMD_PLAN_CMD_H
#define BQLTOOL_CMD_PLAN_CMD_H

#include <stdbool.h>

#include "lib/io/ctx.h"
#include "lib/model/plan.h"

/*
 * cmd_plan_commit - @p has been read (plan_read). Apply check's settings
 * rules (lib/model/rules.h) to the values the plan leaves: what check fails is
 * refused (exit 2) unless @force, warnings are printed. Then either print
 * old -> new (@dry_run) or take the write lock of the namespace
 * (lib/kernel/wlock.h: another writer is an error, or waited for with @wait),
 * read the old values again under it, check that every file can be written, write
 * all-or-nothing and print the changes. Failures are reported on stderr
 * (with any restore that failed too). Text lists the files that change
 * (would change), every file with -v, nothing with @po->quiet; JSON lists
 * every file. Returns an enum bql_exit.
 */
struct plan_opts {
	bool dry_run;	/* print, write nothing */
	bool force;	/* write what the rules refuse, with a warning */
	bool quiet;	/* -q: no text lines (JSON still lists every file) */
	bool wait;	/* --wait: for another writer's lock, instead of failing */
};
int cmd_plan_commit(struct bql_ctx *c, struct plan *p, const struct plan_opts *po);
/*
 * cmd_plan_hz - the HZ to validate with; warns once when HZ had to be
 * assumed and @ms_keys (hold_time or stall_thrs are involved).
 */
unsigned int cmd_plan_hz(struct bql_ctx *c, bool ms_keys);
/* Warn that a ms value will read back rounded; @what names it. */
void cmd_plan_warn_rounding(struct bql_ctx *c, const char *what,
			    enum bql_attr a, const struct plan_value *pv,
			    unsigned int hz);
/* A value for text output, as show prints it (bql_fmt_human). */
void cmd_plan_fmt(char *buf, size_t n, enum bql_attr a, uint64_t v);
/*
 * cmd_queue_list - "tx-3", "0-7", "0-3,5" (selector syntax) for the ascending queue
 * indexes @q (malloc'ed; NULL when out of memory)
 */
char *cmd_queue_list(const unsigned int *q, size_t n);

#endif
