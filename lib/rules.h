/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rules on a TX queue's settings that `set` and `check` share: what
 * check fails, set refuses (unless --force); what check warns about, set
 * warns about. One place, so the two can never disagree.
 */
#ifndef BQLTOOL_LIB_RULES_H
#define BQLTOOL_LIB_RULES_H

#include "lib/bql.h"

#define ETH_FRAME_OVERHEAD	14	/* a full-size frame is MTU + the Ethernet header */
#define RULES_MAX		2	/* hits rules_settings() can return */

enum rule_level { RULE_WARN = 1, RULE_FAIL = 2 };

/**
 * struct rule_hit - one rule a queue breaks
 * @level: RULE_FAIL (check fails, set refuses) or RULE_WARN
 * @code: stable name for JSON ("limit-min-above-max")
 * @msg: the reason, values in human units ("limit_min 4.88 KiB > ...")
 */
struct rule_hit {
	enum rule_level level;
	const char *code;
	char msg[320];
};

/*
 * rules_settings - check the settings in @q (limit_min, limit_max; sysfs
 * units) of a device with MTU @mtu (0: unknown) on kernel @release (uname
 * -r; NULL: unknown, e.g. a snapshot tree). Fills @hits (RULES_MAX) and
 * returns how many.
 *
 * Rules: limit_min > limit_max contradict each other (fail: which one wins
 * depends on the kernel); limit_max below one full-size frame lets one
 * packet at a time in flight (warn).
 */
int rules_settings(const struct bql_queue *q, unsigned int mtu,
		   const char *release, struct rule_hit *hits);

#endif
