/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's HZ (jiffies per second): sysfs shows hold_time and
 * stall_thrs in ms but the kernel stores jiffies, and stall_max is raw
 * jiffies, so exact units need HZ.
 */
#ifndef BQLTOOL_LIB_HZ_H
#define BQLTOOL_LIB_HZ_H

#include <stddef.h>

#include "dql/err.h"

enum hz_source {
	HZ_SRC_ENV,		/* BQLTOOL_HZ */
	HZ_SRC_KCONFIG,		/* the config file named by BQLTOOL_KCONFIG */
	HZ_SRC_BOOT_CONFIG,	/* /boot/config-$(uname -r) */
	HZ_SRC_PROC_CONFIG,	/* /proc/config.gz */
	HZ_SRC_FALLBACK,	/* nothing found: 250, Debian's and many distros' default */
};

#define HZ_FALLBACK 250

struct hz_info {
	unsigned int hz;
	enum hz_source src;
};

/*
 * Detect HZ once (cached): BQLTOOL_HZ, else the config file BQLTOOL_KCONFIG
 * names (only that one), else /boot/config-$(uname -r), else
 * /proc/config.gz. Never fails: falls back to HZ_FALLBACK.
 */
const struct hz_info *hz_get(void);
/* Parse "CONFIG_HZ=N" lines out of a kernel config text; 0 if absent. */
unsigned int hz_from_config(const char *text, size_t len);
/* HZ from a kernel config file, plain or gzip (as /proc/config.gz); 0 if none */
unsigned int hz_read_config(const char *path);
const char *hz_source_name(enum hz_source s);
/*
 * The environment's say: a BQLTOOL_HZ that is not a whole number 1..99999,
 * or a BQLTOOL_KCONFIG (without BQLTOOL_HZ) that names a file that cannot
 * be read, is an error naming the variable. 0 or -errno.
 */
int hz_env_check(struct bql_err *e);
/* for tests: forget the cached value */
void hz_reset_cache(void);

#endif
