/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The global options (-j, -p, -n, -v, --color, --sysfs-root), one table
 * read before the command (main) and after it, among a command's own
 * options, as ip and bpftool users type them: `bqltool show -j eth0`.
 */
#ifndef BQLTOOL_CMD_OPTS_H
#define BQLTOOL_CMD_OPTS_H

#include <getopt.h>

#include "lib/io/ctx.h"

/* codes of the long-only global options (short ones are their letter) */
enum {
	GOPT_SYSFS_ROOT = 0x4000,
	GOPT_COLOR,
	/* cmd_getopt() returns this after reporting a bad global option */
	GOPT_FAILED,
};

/* for main(): every global option, -h/--help and -V/--version included */
extern const struct option cmd_global_opts[];

/*
 * cmd_global_apply - one global option @opt with @arg into @c. Returns 0
 * or BQL_EXIT_USAGE (reported).
 */
int cmd_global_apply(struct bql_ctx *c, int opt, const char *arg);

/*
 * cmd_global_finish - once all global options are in: -n against
 * --sysfs-root, -j against a command without JSON, colour. Does not switch
 * namespaces. Returns 0 or BQL_EXIT_USAGE (reported).
 */
int cmd_global_finish(struct bql_ctx *c);

/*
 * cmd_getopt - getopt_long() for a command, with the global options the
 * command does not define itself merged in: they are applied to @c and
 * not returned. At the end (-1), a namespace given after the command is
 * entered. A bad global option, a failed switch: GOPT_FAILED, after the
 * message; cmd_bad_option() turns it into its exit status.
 */
int cmd_getopt(struct bql_ctx *c, int argc, char **argv, const char *shortopts,
	       const struct option *longopts);

/* the exit status behind GOPT_FAILED */
int cmd_getopt_status(void);

/*
 * The long options of the last cmd_getopt() (the command's and the global
 * ones merged), or the global ones before any: what cmd_bad_option()
 * names when a long option is ambiguous.
 */
const struct option *cmd_getopt_longopts(void);

#endif
