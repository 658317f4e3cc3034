// SPDX-License-Identifier: GPL-2.0-only
/* Global options before and after the command (cmd/opts.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "lib/kernel/netns.h"

const struct option cmd_global_opts[] = {
	{ "json",	no_argument,		NULL, 'j' },
	{ "pretty",	no_argument,		NULL, 'p' },
	{ "netns",	required_argument,	NULL, 'n' },
	{ "sysfs-root",	required_argument,	NULL, GOPT_SYSFS_ROOT },
	{ "color",	optional_argument,	NULL, GOPT_COLOR },
	{ "colour",	optional_argument,	NULL, GOPT_COLOR },
	{ "verbose",	no_argument,		NULL, 'v' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* the ones a command accepts too (-h is seen before the command runs) */
#define GLOBAL_AFTER	7	/* json .. verbose */

static int getopt_status;

int cmd_getopt_status(void)
{
	return getopt_status ? getopt_status : BQL_EXIT_USAGE;
}

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

int cmd_global_apply(struct bql_ctx *c, int opt, const char *arg)
{
	switch (opt) {
	case 'j':
		c->json = true;
		return 0;
	case 'p':
		c->json = c->pretty = true;
		return 0;
	case 'n':
		c->netns = arg;
		return 0;
	case GOPT_SYSFS_ROOT:
		if (!*arg)
			return cmd_usage(c, "--sysfs-root: empty directory name");
		c->sysfs_root = arg;
		c->root_overridden = true;
		return 0;
	case GOPT_COLOR:
		return parse_color(c, arg);
	case 'v':
		c->verbose++;
		return 0;
	}
	return cmd_usage(c, "unknown global option");
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

int cmd_global_finish(struct bql_ctx *c)
{
	const struct cmd_entry *ce = c->cmd ? cmd_find(c->cmd, NULL) : NULL;
	const char *env = getenv("BQLTOOL_SYSFS_ROOT");

	if (c->json && ce && (ce->flags & CMD_NO_JSON) && strcmp(ce->name, "help"))
		return cmd_usage(c, "this command has no JSON output");
	if (c->netns && cmd_check_netns(c, c->netns))
		return BQL_EXIT_USAGE;
	if (c->netns && c->root_overridden)
		return cmd_usage(c, "-n/--netns and %s exclude each other",
				 env && c->sysfs_root == env ?
				 "BQLTOOL_SYSFS_ROOT (set in the environment)" : "--sysfs-root");
	resolve_color(c);
	return 0;
}

/* does the command define option @code (as a letter or a long option)? */
static bool defines(const char *shortopts, const struct option *lo, int code,
		    const char *name)
{
	if (code < 256 && strchr(shortopts, code))
		return true;
	for (; lo && lo->name; lo++)
		if (lo->val == code || !strcmp(lo->name, name))
			return true;
	return false;
}

static struct option lbuf[64];	/* cmd_getopt()'s merged long options */
static bool lbuf_set;

const struct option *cmd_getopt_longopts(void)
{
	return lbuf_set ? lbuf : cmd_global_opts;
}

int cmd_getopt(struct bql_ctx *c, int argc, char **argv, const char *shortopts,
	       const struct option *longopts)
{
	static char sbuf[128];
	/* across the calls of one loop (optind 0 starts a new one) */
	static const char *netns_before;
	static bool changed;
	size_t n = 0, k;
	int opt;

	if (optind == 0) {
		netns_before = c->netns;
		changed = false;
	}

	/* the merged tables, the same at every call of one loop */
	snprintf(sbuf, sizeof(sbuf), "%s", shortopts);
	for (k = 0; longopts && longopts[k].name && n < 48; k++)
		lbuf[n++] = longopts[k];
	for (k = 0; k < GLOBAL_AFTER; k++) {
		const struct option *g = &cmd_global_opts[k];

		if (defines(shortopts, longopts, g->val, g->name))
			continue;
		lbuf[n++] = *g;
		if (g->val < 256 && !strchr(sbuf, g->val)) {
			size_t len = strlen(sbuf);

			sbuf[len] = (char)g->val;
			sbuf[len + 1] = '\0';
			if (g->has_arg == required_argument)
				strcat(sbuf, ":");
		}
	}
	memset(&lbuf[n], 0, sizeof(lbuf[n]));
	lbuf_set = true;
	for (;;) {
		bool global = false;
		int ret;

		opt = getopt_long(argc, argv, sbuf, lbuf, NULL);
		if (opt == -1)
			break;
		for (k = 0; k < GLOBAL_AFTER && !global; k++)
			global = cmd_global_opts[k].val == opt &&
				 !defines(shortopts, longopts, opt, cmd_global_opts[k].name);
		if (!global)
			return opt;
		if (opt == 'n' && netns_before)
			ret = cmd_usage(c, "-n: a namespace is already given (%s)", netns_before);
		else
			ret = cmd_global_apply(c, opt, optarg);
		if (ret) {
			getopt_status = ret;
			return GOPT_FAILED;
		}
		changed = true;
	}
	if (changed) {
		struct bql_err e;
		int ret = cmd_global_finish(c);

		changed = false;

		if (ret) {
			getopt_status = ret;
			return GOPT_FAILED;
		}
		if (c->netns && c->netns != netns_before && netns_switch(c->netns, &e)) {
			cmd_error(c, &e);
			getopt_status = BQL_EXIT_FAIL;
			return GOPT_FAILED;
		}
	}
	return -1;
}
