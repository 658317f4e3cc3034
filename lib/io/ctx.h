/* SPDX-License-Identifier: GPL-2.0-only */
/* The context every command runs with: global options and output state. */
#ifndef BQLTOOL_LIB_CTX_H
#define BQLTOOL_LIB_CTX_H

#include <stdbool.h>
#include <stdio.h>

struct json_object;

enum bql_exit {
	BQL_EXIT_OK = 0,
	BQL_EXIT_FAIL = 1,
	BQL_EXIT_USAGE = 2,
	BQL_EXIT_MISMATCH = 3,
};

enum bql_color { BQL_COLOR_AUTO, BQL_COLOR_ALWAYS, BQL_COLOR_NEVER };

struct out_frame;

struct bql_ctx {
	/* global options */
	bool json;			/* -j */
	bool pretty;			/* -p (implies json) */
	int verbose;			/* -v, repeatable */
	enum bql_color color_opt;	/* --color */
	bool color;			/* resolved: colour in use on stdout */
	const char *netns;		/* -n NAME, NULL = current */
	const char *sysfs_root;		/* "/sys" or --sysfs-root DIR */
	bool root_overridden;		/* --sysfs-root / env given: no netlink */
	const char *cmd;		/* running command's name, for messages */

	/* output (lib/io/out.c) */
	FILE *out;			/* stdout, or a test's memstream */
	struct json_object *jroot;	/* JSON document being built */
	struct out_frame *stack;	/* open objects/arrays */
	int depth;
	bool out_nomem;			/* an allocation failed: print nothing */
};

/* bql_ctx_init - defaults: text output, sysfs root "/sys", colour auto. */
void bql_ctx_init(struct bql_ctx *c);

#endif
