// SPDX-License-Identifier: GPL-2.0-only
/* PLACEHOLDER: Prometheus exposition is being written (issue 6). */
#include "cmd/cmd.h"
#include "cmd/common.h"

int cmd_print_prometheus(struct bql_ctx *c, const struct snapshot *s)
{
	(void)s;
	return cmd_fail(c, "--format prometheus: not implemented yet");
}
