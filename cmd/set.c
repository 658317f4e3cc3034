// SPDX-License-Identifier: GPL-2.0-only
/* PLACEHOLDER: `set` is being written; this stub keeps the table linkable. */
#include "cmd/cmd.h"

static int set_run(struct bql_ctx *c, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_fail(c, "not implemented yet");
}

const struct cmd_entry cmd_set_entry = {
	.name = "set",
	.synopsis = "set",
	.summary = "(not implemented yet)",
	.flags = CMD_HIDDEN,
	.run = set_run,
};
