// SPDX-License-Identifier: GPL-2.0-only
/* Selectors -> targets -> snapshot, with the messages every command uses. */
#include <errno.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/common.h"
#include "lib/hz.h"
#include "lib/netns.h"
#include "lib/nl.h"

int cmd_select(struct bql_ctx *c, int argc, char **argv, struct cmd_state *st)
{
	struct bql_err e;

	memset(st, 0, sizeof(*st));
	if (sel_parse(&st->sel, argc, argv, &e))
		return cmd_usage(c, "%s", e.msg);
	if (sel_resolve(c, &st->sel, &st->targets, &e)) {
		cmd_error(c, &e);
		sel_free(&st->sel);
		return BQL_EXIT_FAIL;
	}
	return BQL_EXIT_OK;
}

int cmd_netns_option(struct bql_ctx *c, const char *netns)
{
	struct bql_err e;

	if (!netns)
		return BQL_EXIT_OK;
	if (c->netns || c->root_overridden)
		return cmd_usage(c, "-n: a namespace or --sysfs-root is already given");
	if (cmd_check_netns(c, netns))
		return BQL_EXIT_USAGE;
	if (netns_switch(netns, &e)) {
		cmd_error(c, &e);
		return BQL_EXIT_FAIL;
	}
	c->netns = netns;
	return BQL_EXIT_OK;
}

void cmd_open_netlink(struct bql_ctx *c, struct cmd_state *st)
{
	struct bql_err e;

	if (c->root_overridden || st->nl)
		return;
	if (bnl_open(&st->nl, &e)) {
		st->nl = NULL;
		cmd_warn(c, "netlink unavailable, device context from sysfs: %s", e.msg);
	}
}

int cmd_collect(struct bql_ctx *c, int argc, char **argv, struct cmd_state *st)
{
	struct bql_err e;
	int ret;

	ret = cmd_select(c, argc, argv, st);
	if (ret)
		return ret;
	cmd_open_netlink(c, st);
	if (snapshot_take(c, st->nl, &st->targets, &st->snap, &e)) {
		cmd_error(c, &e);
		cmd_state_free(st);
		return BQL_EXIT_FAIL;
	}
	if (c->verbose) {
		const struct hz_info *hz = hz_get();

		if (st->snap.note[0])
			cmd_note(c, "%s", st->snap.note);
		cmd_note(c, "HZ %u (%s)", hz->hz, hz_source_name(hz->src));
	}
	return BQL_EXIT_OK;
}

void cmd_state_free(struct cmd_state *st)
{
	snapshot_free(&st->snap);
	sel_result_free(&st->targets);
	sel_free(&st->sel);
	bnl_close(st->nl);
	st->nl = NULL;
}
