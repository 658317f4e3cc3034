/* SPDX-License-Identifier: GPL-2.0-only */
/* The write path that set, reset and apply share (cmd/set.c). */
#ifndef BQLTOOL_CMD_PLAN_CMD_H
#define BQLTOOL_CMD_PLAN_CMD_H

#include <stdbool.h>

#include "lib/ctx.h"
#include "lib/plan.h"

/*
 * cmd_plan_commit - @p has been read (plan_read). Warn about limit_min >
 * limit_max, then either print old -> new (@dry_run) or check that every
 * file can be written, write all-or-nothing and print the changes. Failures
 * are reported on stderr (with any restore that failed too). Returns an
 * enum bql_exit.
 */
int cmd_plan_commit(struct bql_ctx *c, struct plan *p, bool dry_run);
/*
 * cmd_plan_hz - the HZ to validate with; warns once when HZ had to be
 * assumed and @ms_keys (hold_time or stall_thrs are involved).
 */
unsigned int cmd_plan_hz(struct bql_ctx *c, bool ms_keys);
/* Warn that a ms value will read back rounded; @what names it. */
void cmd_plan_warn_rounding(struct bql_ctx *c, const char *what,
			    enum bql_attr a, const struct plan_value *pv,
			    unsigned int hz);
/* A value for text output: "max", "off", "500 ms" or the number. */
void cmd_plan_fmt(char *buf, size_t n, enum bql_attr a, uint64_t v);

#endif
