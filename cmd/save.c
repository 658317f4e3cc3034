// SPDX-License-Identifier: GPL-2.0-only
/* PLACEHOLDER: `save` is being written; this stub keeps the table linkable. */
#include "cmd/cmd.h"

static int save_run(struct bql_ctx *c, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_fail(c, "not implemented yet");
}

const struct cmd_entry cmd_save_entry = {
	.name = "save",
	.synopsis = "save",
	.summary = "(not implemented yet)",
	.flags = CMD_HIDDEN,
	.run = save_run,
};
