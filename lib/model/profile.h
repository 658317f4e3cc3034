/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BQL profiles: the writable settings of some devices as versioned JSON,
 * written by `save` and read back by `apply`:
 *
 *   { "bqltool_profile": 1, "bqltool_version": "0.1.0",
 *     "kernel": "6.8.0-45-generic", "hz": 250,
 *     "devices": {
 *       "eth0": { "all": { "limit_min": 0, "limit_max": 1879048192,
 *                          "hold_time": 1000, "stall_thrs": 0 } },
 *       "eth1": { "queues": [ { "queue": 0, "limit_max": 65536 }, ... ] } } }
 *
 * Values are in sysfs units (bytes; ms). "all" applies to every TX queue
 * the device has when the profile is applied; "queues" lists some queues.
 * Keys may be left out (not changed). kernel, hz and bqltool_version
 * describe the machine the profile was saved on and are informational.
 * Errors name the JSON path: devices.eth0.queues[3].limit_max.
 */
#ifndef BQLTOOL_LIB_PROFILE_H
#define BQLTOOL_LIB_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dql/err.h"
#include "lib/kernel/bql.h"
#include "lib/kernel/sysfs.h"

#define PROFILE_VERSION		1
#define PROFILE_MAX_SIZE	(16u << 20)	/* bytes read from a file */
#define PROFILE_MAX_QUEUE	65535u

/* attributes a profile holds: limit_min, limit_max, hold_time, stall_thrs */
bool profile_key(enum bql_attr a);

struct profile_vals {
	uint32_t present;		/* bit (1 << attr) per key given */
	uint64_t val[BQL_ATTR_NR];
};

struct profile_queue {
	unsigned int queue;
	struct profile_vals v;
};

struct profile_dev {
	char ifname[BQL_IFNAMSIZ];
	bool all;			/* "all": @v for every queue */
	struct profile_vals v;
	struct profile_queue *q;	/* "queues", ascending by queue */
	size_t nq;
};

struct profile {
	unsigned int version;
	unsigned int hz;		/* 0 = not recorded */
	char kernel[65];
	char tool_version[32];
	struct profile_dev *dev;
	size_t ndev;
	size_t capdev;			/* profile_add_dev(): room in @dev */
};

void profile_init(struct profile *p);
void profile_free(struct profile *p);

/*
 * profile_parse - parse JSON @text (@len bytes). Malformed or truncated
 * JSON names the line and column; a wrong version, type, key or name names
 * the JSON path. Values are only type-checked here (unsigned integers);
 * kernel ranges are the caller's (plan_value()).
 */
int profile_parse(const char *text, size_t len, struct profile *p,
		  struct bql_err *e);
/*
 * profile_read_file - read @path ("-" = stdin) into a NUL-terminated
 * malloc'd buffer; at most PROFILE_MAX_SIZE bytes.
 */
int profile_read_file(const char *path, char **text, size_t *len,
		      struct bql_err *e);

/*
 * profile_add_dev - add a device from the values read from its queues
 * @qs[0..@n-1]. @complete: @qs are all the device's queues; if they also
 * have equal settings the device gets one "all" entry, else one entry per
 * queue. Attributes a queue lacks (stall_thrs before 6.9) are left out.
 */
int profile_add_dev(struct profile *p, const char *ifname,
		    const struct bql_queue *qs, size_t n, bool complete,
		    struct bql_err *e);
/* profile_to_json - the profile as indented JSON text (malloc'd, ends in \n). */
char *profile_to_json(const struct profile *p);

/* @qi values of profile_path() besides an index into ->q */
#define PROFILE_DEV	SIZE_MAX		/* the device: devices.eth0 */
#define PROFILE_ALL	(SIZE_MAX - 1)		/* its "all": devices.eth0.all */

/*
 * profile_path - the JSON path of a device (@qi PROFILE_DEV), its "all"
 * entry (PROFILE_ALL) or queue entry @qi, and of one @key in it (@key may be
 * NULL): devices.eth0.all.hold_time, devices["eth0.100"].queues[2].
 */
char *profile_path(char *buf, size_t n, const struct profile_dev *d, size_t qi,
		   const char *key);

#endif
