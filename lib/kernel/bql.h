/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The BQL attributes of a TX queue. One table drives show's columns, JSON
 * keys, set's keys, completions (`bqltool help --keys`) and man checks.
 */
#ifndef BQLTOOL_LIB_BQL_H
#define BQLTOOL_LIB_BQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dql/err.h"
#include "lib/io/ctx.h"
#include "lib/io/units.h"

enum bql_attr {
	BQL_LIMIT,
	BQL_LIMIT_MIN,
	BQL_LIMIT_MAX,
	BQL_HOLD_TIME,
	BQL_INFLIGHT,
	BQL_STALL_THRS,
	BQL_STALL_CNT,
	BQL_STALL_MAX,
	BQL_ATTR_NR
};

struct bql_attr_desc {
	const char *name;	/* sysfs file name = JSON key = set key */
	enum unit unit;		/* unit of the sysfs value */
	bool writable;		/* accepted by set (stall_max: only 0, to clear it) */
	bool optional;		/* absent on older kernels (stall_*: 6.9+) */
	const char *help;	/* one line for help and man checks */
};

extern const struct bql_attr_desc bql_attrs[BQL_ATTR_NR];

const char *bql_unit_name(enum unit u);
/* index of @name in bql_attrs, or -1 */
int bql_attr_find(const char *name);
/* the largest value a kernel shows in @a's file (DQL_MAX_LIMIT for limits) */
uint64_t bql_attr_max(enum bql_attr a);
/*
 * 0 if @v is at most bql_attr_max(@a); else -ERANGE with @e naming @obj
 * ("eth0:tx-0: limit_max") and, unless NULL, the file @path.
 */
int bql_attr_check(enum bql_attr a, uint64_t v, const char *obj, const char *path,
		   struct bql_err *e);

/*
 * bql_fmt_human - @v (in sysfs units) of attribute @a for text output:
 * bytes as "2.96 KiB", limit_min/limit_max at DQL_MAX_LIMIT as "max", ms as
 * "250 ms", stall_thrs 0 as "off", stall_max (jiffies) converted to ms with
 * @hz, counts as plain numbers. Returns @buf.
 */
char *bql_fmt_human(char *buf, size_t n, enum bql_attr a, uint64_t v,
		    unsigned int hz);

struct bql_queue {
	unsigned int index;
	uint32_t present;		/* bit (1 << attr) per file read */
	uint64_t val[BQL_ATTR_NR];
};

static inline bool bql_has(const struct bql_queue *q, enum bql_attr a)
{
	return q->present & (1u << a);
}

/*
 * Read every attribute of @ifname's TX queue @q. Optional files that are
 * absent are left out of @out->present; anything else unreadable,
 * malformed or beyond bql_attr_max() is an error naming the file. A
 * missing byte_queue_limits directory is -EOPNOTSUPP ("does not use BQL"),
 * a missing queue directory -ENOENT (gone since the device was listed).
 */
int bql_queue_read(const struct bql_ctx *c, const char *ifname, unsigned int q,
		   struct bql_queue *out, struct bql_err *e);
/* Write one attribute (decimal, in sysfs units). */
int bql_queue_write(const struct bql_ctx *c, const char *ifname, unsigned int q,
		    enum bql_attr a, uint64_t v, struct bql_err *e);

#endif
