/* SPDX-License-Identifier: GPL-2.0-only */
/* Steps that several commands share: selectors -> targets -> snapshot. */
#ifndef BQLTOOL_CMD_COMMON_H
#define BQLTOOL_CMD_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/io/ctx.h"
#include "lib/kernel/sel.h"
#include "lib/model/snapshot.h"

struct bnl;

struct cmd_state {
	struct sel sel;
	struct sel_result targets;
	struct bnl *nl;		/* NULL with --sysfs-root or when unavailable */
	struct snapshot snap;
};

/*
 * Parse @argc/@argv as selectors, resolve them and take a snapshot.
 * Prints its own errors; returns an enum bql_exit (0 = @st is filled and
 * must be released with cmd_state_free()).
 */
int cmd_collect(struct bql_ctx *c, int argc, char **argv, struct cmd_state *st);
/* Selectors and targets only (for writers); same conventions. */
struct bnl_qdisc;
struct bnl_ring;
struct bnl_coal;
/* JSON: a qdisc object named @key (tc -s -j's keys); a device's "ring" and "coalesce" */
void cmd_json_qdisc(struct bql_ctx *c, const char *key, const struct bnl_qdisc *q);
void cmd_json_ring_coal(struct bql_ctx *c, const struct bnl_ring *ring,
			const struct bnl_coal *coal);
/* one counter of a "stats" object: its key, its value, whether it was read */
struct cmd_stat {
	const char *key;
	uint64_t v;
	bool present;
};
/*
 * JSON: "stats":{KEY:V,...} with the @n counters of @st that were read, in
 * that order; absent when none was. A device's counters nest so in every
 * command (show -j, top -b -j), whatever subset each one reads.
 */
void cmd_json_stats(struct bql_ctx *c, const struct cmd_stat *st, size_t n);

int cmd_select(struct bql_ctx *c, int argc, char **argv, struct cmd_state *st);
/*
 * A command's own -n NS (top, record): enter the namespace as the global
 * -n does; a usage error if a namespace or --sysfs-root is already given.
 * NULL is a no-op. Prints its own errors; returns an enum bql_exit.
 */
int cmd_netns_option(struct bql_ctx *c, const char *netns);
/* Open netlink unless --sysfs-root; a failure is a warning, not an error. */
void cmd_open_netlink(struct bql_ctx *c, struct cmd_state *st);
void cmd_state_free(struct cmd_state *st);

/* Prometheus exposition of a snapshot on c->out; returns enum bql_exit. */
int cmd_print_prometheus(struct bql_ctx *c, const struct snapshot *s);
struct latbpf_target;
struct latbpf_snap;
/*
 * export --latency: the observer's reading of @n queues over @dur_ns as
 * summaries (ring time, qdisc wait, interrupt delay) and stop gauges of
 * that window; returns enum bql_exit.
 */
int cmd_print_prometheus_latency(struct bql_ctx *c, const struct latbpf_target *t,
				 unsigned int n, const struct latbpf_snap *s, uint64_t dur_ns);
/* export: bql_export_timestamp_seconds, the wall time @real_ns of the write */
int cmd_print_prometheus_written(struct bql_ctx *c, uint64_t real_ns);

#endif
