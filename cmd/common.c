// SPDX-License-Identifier: GPL-2.0-only
/* Selectors -> targets -> snapshot, with the messages every command uses. */
#include <errno.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/common.h"
#include "lib/kernel/hz.h"
#include "lib/kernel/netns.h"
#include "lib/kernel/nl.h"
#include "lib/io/out.h"

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

/* a qdisc's identity and counters, named as tc -s -j names them */
void cmd_json_qdisc(struct bql_ctx *c, const char *key, const struct bnl_qdisc *q)
{
	char h[16];

	out_open_obj(c, key);
	out_str(c, OUT_JSON, "kind", NULL, q->kind);
	out_str(c, OUT_JSON, "handle", NULL, bnl_tc_handle_str(q->handle, h, sizeof(h)));
	out_str(c, OUT_JSON, "parent", NULL, bnl_tc_handle_str(q->parent, h, sizeof(h)));
	out_u64(c, OUT_JSON, "bytes", NULL, q->bytes);
	out_u64(c, OUT_JSON, "packets", NULL, q->packets);
	out_u64(c, OUT_JSON, "drops", NULL, q->drops);
	out_u64(c, OUT_JSON, "requeues", NULL, q->requeues);
	out_u64(c, OUT_JSON, "overlimits", NULL, q->overlimits);
	out_u64(c, OUT_JSON, "backlog", NULL, q->backlog);
	out_u64(c, OUT_JSON, "qlen", NULL, q->qlen);
	out_close_obj(c);
}

void cmd_json_stats(struct bql_ctx *c, const struct cmd_stat *st, size_t n)
{
	bool any = false;

	for (size_t i = 0; i < n; i++)
		any |= st[i].present;
	if (!any)
		return;
	out_open_obj(c, "stats");
	for (size_t i = 0; i < n; i++)
		if (st[i].present)
			out_u64(c, OUT_JSON, st[i].key, NULL, st[i].v);
	out_close_obj(c);
}

/* the TX coalescing the driver reports, ethtool's attribute names in lower case */
static void json_coal(struct bql_ctx *c, const struct bnl_coal *k)
{
	out_open_obj(c, "coalesce");
	for (int i = 0; i < BNL_COAL_NFIELDS; i++) {
		const struct bnl_coal_field *f = &bnl_coal_fields[i];

		if (!(k->present & f->bit))
			continue;
		if (f->boolean)
			out_bool(c, OUT_JSON, f->key, NULL, bnl_coal_value(k, f));
		else
			out_u64(c, OUT_JSON, f->key, NULL, bnl_coal_value(k, f));
	}
	out_close_obj(c);
}

void cmd_json_ring_coal(struct bql_ctx *c, const struct bnl_ring *ring, const struct bnl_coal *coal)
{
	if (ring->present) {
		out_open_obj(c, "ring");
		if (ring->present & BNL_RING_TX)
			out_u64(c, OUT_JSON, "tx", NULL, ring->tx);
		if (ring->present & BNL_RING_TX_MAX)
			out_u64(c, OUT_JSON, "tx_max", NULL, ring->tx_max);
		out_close_obj(c);
	}
	if (coal->present)
		json_coal(c, coal);
}
