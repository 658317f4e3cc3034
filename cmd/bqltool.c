// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool: see, tune and understand Linux Byte Queue Limits.
 * main(): global options, context, command dispatch, exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "lib/netns.h"

static const struct option global_opts[] = {
	{ "json",	no_argument,		NULL, 'j' },
	{ "pretty",	no_argument,		NULL, 'p' },
	{ "netns",	required_argument,	NULL, 'n' },
	{ "sysfs-root",	required_argument,	NULL, 'R' },
	{ "color",	optional_argument,	NULL, 'C' },
	{ "colour",	optional_argument,	NULL, 'C' },
	{ "verbose",	no_argument,		NULL, 'v' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int parse_color(struct bql_ctx *c, const char *arg)
{
	if (!arg || !strcmp(arg, "always") || !strcmp(arg, "yes"))
		c->color_opt = BQL_COLOR_ALWAYS;
	else if (!strcmp(arg, "auto"))
		c->color_opt = BQL_COLOR_AUTO;
	else if (!strcmp(arg, "never") || !strcmp(arg, "no"))
		c->color_opt = BQL_COLOR_NEVER;
	else
		return cmd_usage(c, "--color: invalid value '%s' (expected auto, always or never)",
				 arg);
	return 0;
}

/* As iproute2: NO_COLOR disables auto colour, JSON never has colour. */
static void resolve_color(struct bql_ctx *c)
{
	const char *nc = getenv("NO_COLOR");

	switch (c->color_opt) {
	case BQL_COLOR_ALWAYS:
		c->color = true;
		break;
	case BQL_COLOR_NEVER:
		c->color = false;
		break;
	case BQL_COLOR_AUTO:
		c->color = isatty(STDOUT_FILENO) && !(nc && *nc);
		break;
	}
	if (c->json)
		c->color = false;
}

/*
 * Standard output must reach its file: a write error (a full disk,
 * /dev/full, a closed pipe with SIGPIPE ignored, a standard output that
 * was closed) fails the run, reported once. fclose() catches what only
 * shows at close (NFS). A command that failed has reported its own
 * errors, a write error on standard output included.
 */
static int finish(const char *cmd, int ret)
{
	bool bad;
	int err;

	errno = 0;
	bad = fflush(stdout) != 0;
	err = errno;
	bad |= ferror(stdout) != 0;
	if (fclose(stdout) && !bad) {
		bad = true;
		err = errno;
	}
	if (!bad || ret != BQL_EXIT_OK)
		return ret;
	fprintf(stderr, "bqltool: %s%swrite error on standard output%s%s\n",
		cmd ? cmd : "", cmd ? ": " : "", err ? ": " : "", err ? strerror(err) : "");
	return BQL_EXIT_FAIL;
}

/*
 * Before anything opens a file: a closed 0, 1 or 2 gets /dev/null, opened
 * the "wrong" way round (as gnulib's stdopen does) so that any use fails
 * instead of reaching whatever file or socket would otherwise get that
 * number: output to a closed stdout is then a write error (exit 1), not a
 * table sent into a netlink socket.
 */
static void std_fds(void)
{
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		int nfd;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		nfd = open("/dev/null", fd == STDIN_FILENO ? O_WRONLY : O_RDONLY);
		if (nfd < 0)
			_exit(BQL_EXIT_FAIL);	/* no /dev/null, nowhere to say so */
		if (nfd != fd) {
			if (dup2(nfd, fd) < 0)
				_exit(BQL_EXIT_FAIL);
			close(nfd);
		}
	}
}

/* -h/--help anywhere before "--" in a command's arguments. */
static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	const struct cmd_entry *ce;
	struct bql_ctx ctx;
	struct bql_err e;
	bool root_from_env = false;
	const char *env;
	int opt, ret;

	std_fds();
	/* a file size limit (ulimit -f) is an error to report and roll back, not a kill */
	signal(SIGXFSZ, SIG_IGN);
	bql_ctx_init(&ctx);
	env = getenv("BQLTOOL_SYSFS_ROOT");
	if (env && *env) {
		ctx.sysfs_root = env;
		ctx.root_overridden = true;
		root_from_env = true;
	}
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:jpn:vhV", global_opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			ctx.json = true;
			break;
		case 'p':
			ctx.json = ctx.pretty = true;
			break;
		case 'n':
			ctx.netns = optarg;
			break;
		case 'R':
			if (!*optarg)
				return cmd_usage(&ctx, "--sysfs-root: empty directory name");
			ctx.sysfs_root = optarg;
			ctx.root_overridden = true;
			root_from_env = false;
			break;
		case 'C':
			if (parse_color(&ctx, optarg))
				return BQL_EXIT_USAGE;
			break;
		case 'v':
			ctx.verbose++;
			break;
		case 'h':
			cmd_print_overview(stdout);
			return finish(NULL, BQL_EXIT_OK);
		case 'V':
			printf("bqltool %s\n", BQLTOOL_VERSION);
			return finish(NULL, BQL_EXIT_OK);
		default:
			return cmd_bad_option(&ctx, opt, argv);
		}
	}
	if (optind >= argc) {
		cmd_print_overview(stderr);
		return BQL_EXIT_USAGE;
	}
	ce = cmd_find(argv[optind], &e);
	if (!ce)
		return cmd_usage(&ctx, "%s", e.msg);
	ctx.cmd = ce->name;
	argc -= optind;
	argv += optind;
	if (wants_help(argc, argv)) {
		cmd_print_help(ce, stdout);
		return finish(ce->name, BQL_EXIT_OK);
	}
	if (ctx.json && (ce->flags & CMD_NO_JSON) && strcmp(ce->name, "help"))
		return cmd_usage(&ctx, "this command has no JSON output");
	if (ctx.netns && cmd_check_netns(&ctx, ctx.netns))
		return BQL_EXIT_USAGE;
	if (ctx.netns && ctx.root_overridden)
		return cmd_usage(&ctx, "-n/--netns and %s exclude each other",
				 root_from_env ? "BQLTOOL_SYSFS_ROOT (set in the environment)"
					       : "--sysfs-root");
	if (ctx.netns && netns_switch(ctx.netns, &e)) {
		cmd_error(&ctx, &e);
		return BQL_EXIT_FAIL;
	}
	resolve_color(&ctx);
	optind = 0;	/* commands run getopt_long again on their own argv */
	ret = ce->run(&ctx, argc, argv);
	return finish(ce->name, ret);
}
