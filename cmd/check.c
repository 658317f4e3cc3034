// SPDX-License-Identifier: GPL-2.0-only
/* PLACEHOLDER: `check` is being written; this stub keeps the table linkable. */
#include "cmd/cmd.h"

static int check_run(struct bql_ctx *c, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_fail(c, "not implemented yet");
}

const struct cmd_entry cmd_check_entry = {
	.name = "check",
	.synopsis = "check",
	.summary = "(not implemented yet)",
	.flags = CMD_HIDDEN,
	.run = check_run,
};
