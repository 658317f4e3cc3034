// SPDX-License-Identifier: GPL-2.0-only
/* PLACEHOLDER: `top` is being written; this stub keeps the table linkable. */
#include "cmd/cmd.h"

static int top_run(struct bql_ctx *c, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_fail(c, "not implemented yet");
}

const struct cmd_entry cmd_top_entry = {
	.name = "top",
	.synopsis = "top",
	.summary = "(not implemented yet)",
	.flags = CMD_HIDDEN,
	.run = top_run,
};
