// SPDX-License-Identifier: GPL-2.0-only
/* The BQL attribute table and per-queue reads and writes. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "dql/dql.h"
#include "lib/io/units.h"
#include "lib/kernel/bql.h"
#include "lib/kernel/sysfs.h"

const struct bql_attr_desc bql_attrs[BQL_ATTR_NR] = {
	[BQL_LIMIT]	 = { "limit", UNIT_BYTES, true, false,
			     "current limit in bytes (DQL moves it at every completion)" },
	[BQL_LIMIT_MIN]	 = { "limit_min", UNIT_BYTES, true, false,
			     "lower bound of the limit in bytes" },
	[BQL_LIMIT_MAX]	 = { "limit_max", UNIT_BYTES, true, false,
			     "upper bound of the limit in bytes" },
	[BQL_HOLD_TIME]	 = { "hold_time", UNIT_MS, true, false,
			     "time over which the limit may shrink, in ms" },
	[BQL_INFLIGHT]	 = { "inflight", UNIT_BYTES, false, false,
			     "bytes queued to the device and not yet completed" },
	[BQL_STALL_THRS] = { "stall_thrs", UNIT_MS, true, true,
			     "stall detector threshold in ms, 0 = off (6.9+)" },
	[BQL_STALL_CNT]	 = { "stall_cnt", UNIT_COUNT, false, true,
			     "stalls detected (6.9+)" },
	[BQL_STALL_MAX]	 = { "stall_max", UNIT_JIFFIES, true, true,
			     "longest stall seen, in jiffies as sysfs shows it; writing 0 clears it (6.9+)" },
};

const char *bql_unit_name(enum unit u)
{
	switch (u) {
	case UNIT_BYTES:	return "bytes";
	case UNIT_MS:		return "ms";
	case UNIT_JIFFIES:	return "jiffies";
	case UNIT_COUNT:	return "count";
	}
	return "?";
}

char *bql_fmt_human(char *buf, size_t n, enum bql_attr a, uint64_t v,
		    unsigned int hz)
{
	switch (a) {
	case BQL_LIMIT_MIN:
	case BQL_LIMIT_MAX:
		if (v == DQL_MAX_LIMIT)
			return units_put(buf, n, "max", 3);
		return units_fmt_bytes(buf, n, v);
	case BQL_LIMIT:
	case BQL_INFLIGHT:
		return units_fmt_bytes(buf, n, v);
	case BQL_STALL_THRS:
		if (!v)
			return units_put(buf, n, "off", 3);
		return units_fmt_ms(buf, n, v);
	case BQL_HOLD_TIME:
		return units_fmt_ms(buf, n, v);
	case BQL_STALL_MAX:	/* sysfs shows jiffies */
		return units_fmt_ms(buf, n, dql_jiffies_to_msecs(v, hz));
	default:
		return units_fmt_u64(buf, n, v);
	}
}

int bql_attr_find(const char *name)
{
	for (int i = 0; i < BQL_ATTR_NR; i++)
		if (!strcmp(bql_attrs[i].name, name))
			return i;
	return -1;
}

/*
 * The largest value the kernel can show in each file: the limits are
 * stored refused above DQL_MAX_LIMIT (bql_set() in net/core/net-sysfs.c),
 * hold_time, inflight, stall_thrs and stall_max are unsigned ints (or
 * shorter) printed with %u, stall_cnt an unsigned long. More is not a
 * kernel's value: passing it on would show "16777216 TiB" and save a
 * profile that apply refuses.
 */
uint64_t bql_attr_max(enum bql_attr a)
{
	switch (a) {
	case BQL_LIMIT:
	case BQL_LIMIT_MIN:
	case BQL_LIMIT_MAX:
		return DQL_MAX_LIMIT;
	case BQL_STALL_CNT:
		return UINT64_MAX;
	default:
		return UINT32_MAX;
	}
}

int bql_attr_check(enum bql_attr a, uint64_t v, const char *obj, const char *path,
		   struct bql_err *e)
{
	if (v <= bql_attr_max(a))
		return 0;
	return bql_err_set(e, ERANGE,
			   "%s: value %" PRIu64 "%s%s is above what the kernel can hold (at most %" PRIu64 "): not a BQL value",
			   obj, v, path ? " in " : "", path ? path : "", bql_attr_max(a));
}

int bql_queue_read(const struct bql_ctx *c, const char *ifname, unsigned int q,
		   struct bql_queue *out, struct bql_err *e)
{
	char path[4096], obj[64];
	struct stat st;
	int ret;

	memset(out, 0, sizeof(*out));
	out->index = q;
	if (sysfs_bql_path(c, path, sizeof(path), ifname, q, NULL))
		return bql_err_set(e, ENAMETOOLONG, "%s: path too long", ifname);
	ret = sysfs_stat(c, path, &st);
	if (ret == -EXDEV)
		return bql_err_set(e, EXDEV,
				   "%s:tx-%u: %s leads outside the sysfs root %s (a symbolic link points out of it): refused",
				   ifname, q, path, c->sysfs_root);
	if (ret || !S_ISDIR(st.st_mode)) {
		char qdir[4096];
		char qname[32];

		if (!sysfs_dev_exists(c, ifname))
			return bql_err_set(e, ENODEV, "%s: no such device", ifname);
		/* the queue itself gone (ethtool -L since the device was listed) */
		snprintf(qname, sizeof(qname), "queues/tx-%u", q);
		if (ret == -ENOENT && !sysfs_dev_path(c, qdir, sizeof(qdir), ifname, qname) &&
		    sysfs_stat(c, qdir, &st) == -ENOENT)
			return bql_err_set(e, ENOENT, "%s:tx-%u: no such TX queue (no %s; its queues changed since it was listed?)",
					   ifname, q, qdir);
		return bql_err_set(e, EOPNOTSUPP, "%s:tx-%u: queue does not use BQL (no %s)",
				   ifname, q, path);
	}
	for (int a = 0; a < BQL_ATTR_NR; a++) {
		sysfs_bql_path(c, path, sizeof(path), ifname, q, bql_attrs[a].name);
		snprintf(obj, sizeof(obj), "%s:tx-%u: %s", ifname, q, bql_attrs[a].name);
		ret = sysfs_read_u64(c, path, &out->val[a], obj, e);
		if (ret == -ENOENT && bql_attrs[a].optional)
			continue;
		if (ret)
			return ret;
		ret = bql_attr_check(a, out->val[a], obj, path, e);
		if (ret)
			return ret;
		out->present |= 1u << a;
	}
	return 0;
}

int bql_queue_write(const struct bql_ctx *c, const char *ifname, unsigned int q,
		    enum bql_attr a, uint64_t v, struct bql_err *e)
{
	char path[4096], obj[64], val[32];

	if (sysfs_bql_path(c, path, sizeof(path), ifname, q, bql_attrs[a].name))
		return bql_err_set(e, ENAMETOOLONG, "%s: path too long", ifname);
	snprintf(obj, sizeof(obj), "%s:tx-%u: %s", ifname, q, bql_attrs[a].name);
	snprintf(val, sizeof(val), "%" PRIu64, v);
	return sysfs_write(c, path, val, obj, e);
}
