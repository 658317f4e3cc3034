/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The model behind `top`'s screen: rows per device (aggregates) and per
 * queue built from a sampler, sorted by any column, filtered by a glob,
 * devices expanded or collapsed, and flags for queues that look wrong.
 * No terminal code here: the view only draws these rows.
 */
#ifndef BQLTOOL_LIB_TOPMODEL_H
#define BQLTOOL_LIB_TOPMODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/kernel/sampler.h"

enum tm_col {
	TM_COL_NAME,		/* device, or tx-N */
	TM_COL_LIMIT,
	TM_COL_INFLIGHT,
	TM_COL_FILL,		/* inflight / limit */
	TM_COL_LIMIT_MIN,
	TM_COL_LIMIT_MAX,
	TM_COL_TX_BYTES,	/* rate, bytes/s */
	TM_COL_TX_PACKETS,	/* rate, packets/s */
	TM_COL_TX_STOP,		/* rate, stops/s (netdev qstats) */
	TM_COL_TX_WAKE,		/* rate, wakes/s */
	TM_COL_STALL_CNT,
	TM_COL_STALL_MAX,	/* jiffies */
	TM_COL_QD_BACKLOG,	/* bytes waiting in the queue's qdisc */
	TM_COL_QD_DROPS,	/* rate, qdisc drops/s */
	TM_COL_RING,		/* device rows: TX ring descriptors (ethtool -g) */
	TM_COL_COAL_USECS,	/* device rows: tx-usecs (ethtool -c) */
	/* measured time (the latency observer, when on): over the last interval */
	TM_COL_RING_P99,	/* ring time p99, ns */
	TM_COL_QDISC_P99,	/* qdisc wait p99, ns (a bypass waits 0) */
	TM_COL_STOP_BQL,	/* rate, stops by BQL/s */
	TM_COL_STOP_RING,	/* rate, stops by a full ring (or both)/s */
	TM_COL_NR
};

/*
 * tm_lat_fn - measured time of queue @queue of @ifname (-1: the device,
 * its queues together) into @v[TM_COL_RING_P99 ..]; returns the valid bits
 * (1 << TM_COL_*), 0 when not measured.
 */
typedef unsigned int (*tm_lat_fn)(void *arg, const char *ifname, int queue, double *v);

struct tm_col_desc {
	const char *title;	/* column header */
	const char *name;	/* for the sort menu and help: rates are named *_rate */
	bool descending;	/* natural direction (numbers: biggest first) */
	const char *alias;	/* an older name -s still accepts (the counter's), or NULL */
};

extern const struct tm_col_desc tm_cols[TM_COL_NR];

/* row flags */
enum {
	TM_F_AT_MIN	= 1u << 0,	/* limit stuck at limit_min while busy */
	TM_F_OSC	= 1u << 1,	/* limit oscillating */
	TM_F_PINNED	= 1u << 2,	/* inflight pinned at limit, no completions */
	TM_F_STALL	= 1u << 3,	/* stall_cnt grew within the window */
	TM_F_NEW	= 1u << 4,	/* appeared this sample */
	TM_F_GONE	= 1u << 5,	/* vanished this sample */
};

/**
 * struct tm_row - one line of the table
 * @dev: the device (for queue rows: the queue's device)
 * @q: the queue, NULL on device rows
 * @expanded: device rows: its queues follow
 * @nq: device rows: number of queues
 * @valid: bit (1 << TM_COL_*) per column that has a value
 * @v: the value of each column, in sysfs units (rates per second)
 *
 * Pointers are into the sampler and live until its next tick.
 */
struct tm_row {
	const struct sampler_dev *dev;
	const struct sampler_queue *q;
	bool expanded;
	unsigned int nq;
	unsigned int flags;
	unsigned int valid;
	double v[TM_COL_NR];
};

struct tm_expand {
	char ifname[BQL_IFNAMSIZ];
	bool expanded;
};

/**
 * struct topmodel - what the screen shows
 * @sort: sort column; @reverse flips its natural direction
 * @filter: glob ('eth*', 'eth0:tx-1*') or substring; "" = everything
 * @show_all: include the devices hidden by default: down ones, and those
 *	whose BQL was never used (limit and inflight 0, no traffic)
 * @rows: the visible rows in display order, after topmodel_build()
 * @ndev: devices sampled (vanished ones excluded)
 * @nshown: devices with a row
 * @nhidden: devices hidden because !@show_all, @ndown + @nunused
 * @ndown: of which down (operstate)
 * @nunused: of which up but with BQL never used
 * @all_forced: every device would be hidden (down or BQL never used):
 *	they are all shown instead, as if @show_all
 * @nfiltered: devices hidden by the filter
 * @nqueues: queues sampled
 * @nflag: queues carrying each flag bit, over all devices
 */
struct topmodel {
	enum tm_col sort;
	bool reverse;
	char filter[64];
	bool show_all;
	bool all_forced;
	struct tm_expand *exp;
	size_t nexp;
	bool expand_default;		/* fixed by the first build */
	bool expand_default_set;
	struct tm_row *rows;
	size_t nrows, caprows;
	tm_lat_fn lat;		/* measured time, or NULL */
	void *lat_arg;
	size_t ndev, nshown, nhidden, ndown, nunused, nfiltered, nqueues;
	size_t nflag[6];
};

void topmodel_init(struct topmodel *m);
void topmodel_free(struct topmodel *m);
/* Rebuild the rows from the last sample of @s; 0 or -ENOMEM. */
int topmodel_build(struct topmodel *m, const struct sampler *s);

/* Sort by @col; choosing the current column again flips the direction. */
void topmodel_sort(struct topmodel *m, enum tm_col col);
/* Set the filter (NULL or "" clears it). */
void topmodel_set_filter(struct topmodel *m, const char *pattern);
/* Expanded state of a device; unknown devices follow the default. */
bool topmodel_is_expanded(const struct topmodel *m, const char *ifname);
/* Flip a device between expanded and collapsed; 0 or -ENOMEM. */
int topmodel_toggle(struct topmodel *m, const char *ifname);
/* Expand (or collapse) every device, those to come included. */
void topmodel_expand_all(struct topmodel *m, bool expanded);
/* some device row of the last build is collapsed */
bool topmodel_any_collapsed(const struct topmodel *m);
/* the column named @name (title or name, case-insensitive), or -1 */
int topmodel_col_find(const char *name);

/**
 * topmodel_queue_flags - TM_F_* of one queue from its history
 * @window: samples that make "a while" (about a second of samples, at
 *	least 3): pinned and at-min must hold over the whole window
 */
unsigned int topmodel_queue_flags(const struct sampler_queue *q,
				  unsigned int window);

#endif
