/* SPDX-License-Identifier: GPL-2.0-only */
/* The command table: one entry per command file (cmd/<name>.c). */
#ifndef BQLTOOL_CMD_CMD_H
#define BQLTOOL_CMD_CMD_H

#include "dql/err.h"
#include "lib/io/ctx.h"
#include "lib/io/ofile.h"

enum {
	CMD_WRITES	= 1u << 0,	/* changes kernel state */
	CMD_NEEDS_NL	= 1u << 1,	/* uses netlink */
	CMD_NO_JSON	= 1u << 2,	/* has no JSON output */
	CMD_HIDDEN	= 1u << 3,	/* not listed in help */
};

struct cmd_entry {
	const char *name;
	const char *synopsis;	/* "show [SEL...]" */
	const char *summary;	/* one line for `bqltool help` */
	const char *help;	/* options block for `bqltool help CMD` */
	unsigned int flags;
	/* argv[0] is the command name; returns enum bql_exit */
	int (*run)(struct bql_ctx *ctx, int argc, char **argv);
};

extern const struct cmd_entry *const cmd_table[];

/* exact name, else unique prefix; NULL + message in @e otherwise */
const struct cmd_entry *cmd_find(const char *word, struct bql_err *e);

/* Report @e on stderr: "bqltool: CMD: MSG[: strerror]". */
void cmd_error(const struct bql_ctx *c, const struct bql_err *e);
/* Runtime error from a format; returns BQL_EXIT_FAIL. */
int cmd_fail(const struct bql_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "bqltool: warning: ..." on stderr; never changes the exit code. */
void cmd_warn(const struct bql_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * "bqltool: CMD: ..." on stderr, escaped as every message is: a line of a
 * report that is not an error (record -v, apply --check); no exit code.
 */
void cmd_info(const struct bql_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "bqltool: note: ..." on stderr (callers decide when: -v, dry runs). */
void cmd_note(const struct bql_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * cmd_output_done - @ret from out_end() (0 or -errno): BQL_EXIT_OK, or
 * "write error on standard output: REASON" and BQL_EXIT_FAIL; -ENOMEM is
 * "out of memory building the JSON output (nothing printed)".
 */
int cmd_output_done(const struct bql_ctx *c, int ret);
/* -n NAME: 0 if `ip netns` would accept @name, else a usage error (2). */
int cmd_check_netns(const struct bql_ctx *c, const char *name);

/**
 * struct cmd_out_kind - what one kind of output file holds, for its name
 * @what: "the plot", "the timeline" ... for messages
 * @is: what it is: "SVG", "CSV or JSON lines"
 * @endings: the endings to suggest: ".svg"
 * @fmts: the formats its name may say (a bit per enum ofile_fmt)
 * @zip: written compressed when the name ends in .gz or .zst
 * @dash: "-" is standard output (else a usage error naming /dev/stdout)
 */
struct cmd_out_kind {
	const char *what, *is, *endings;
	unsigned int fmts;
	bool zip, dash;
};
extern const struct cmd_out_kind cmd_out_plot, cmd_out_timeline, cmd_out_trace,
	cmd_out_record, cmd_out_profile;
/*
 * cmd_out_name - the one check of an output file's name, for every
 * command (--plot, --timeline, --trace, -o): a name, not "" (nor "-" but
 * where @k allows it); no compression bqltool does not write (.bz2, .xz,
 * .svgz ...), none where @k is not compressed; no ending that promises
 * another format than @k writes (x.png for a plot, x.svg for a timeline).
 * Names under /dev/ say nothing of their content and pass. @opt is the
 * option as the user knows it. 0 (*@fmt, if not NULL: the format the name
 * chose) or a usage error (2).
 */
int cmd_out_name(const struct bql_ctx *c, const char *opt, const char *path,
		 const struct cmd_out_kind *k, enum ofile_fmt *fmt);
/*
 * Usage error: "bqltool: CMD: MSG" + "Try 'bqltool help CMD'."; returns
 * BQL_EXIT_USAGE.
 */
int cmd_usage(const struct bql_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * The usage error for what getopt_long() returned as @opt (':' or '?'),
 * naming the option as typed; returns BQL_EXIT_USAGE.
 */
int cmd_bad_option(const struct bql_ctx *c, int opt, char **argv);
/* print the full help of one command to @f */
void cmd_print_help(const struct cmd_entry *ce, FILE *f);
/* the top-level usage: global options and the command list */
void cmd_print_overview(FILE *f);

/* each command file exports its entry */
extern const struct cmd_entry cmd_show_entry;
extern const struct cmd_entry cmd_set_entry;
extern const struct cmd_entry cmd_reset_entry;
extern const struct cmd_entry cmd_save_entry;
extern const struct cmd_entry cmd_apply_entry;
extern const struct cmd_entry cmd_top_entry;
extern const struct cmd_entry cmd_replay_entry;
extern const struct cmd_entry cmd_record_entry;
extern const struct cmd_entry cmd_latency_entry;
extern const struct cmd_entry cmd_sim_entry;
extern const struct cmd_entry cmd_tune_entry;
extern const struct cmd_entry cmd_check_entry;
extern const struct cmd_entry cmd_export_entry;
extern const struct cmd_entry cmd_help_entry;

#endif
