/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rules on a TX queue's settings that `set` and `check` share: what
 * check fails, set refuses (unless --force); what check warns about, set
 * warns about. One place, so the two can never disagree.
 */
#ifndef BQLTOOL_LIB_RULES_H
#define BQLTOOL_LIB_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/kernel/bql.h"

#define ETH_FRAME_OVERHEAD	14	/* a full-size frame is MTU + the Ethernet header */
#define RULES_MAX		2	/* hits rules_settings() can return */

enum rule_level { RULE_INFO = 0, RULE_WARN = 1, RULE_FAIL = 2 };

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

#define RULES_PATH_MAX		3	/* hits rules_path() can return */
#define RULES_DARK_RING_US	2000	/* a ring holding more is a standing queue of its own */

/*
 * What check knows of one TX queue's transmit path. 0 / false / NULL:
 * unknown (the rule that needs it does not fire).
 */
struct rules_path_in {
	const char *ifname;
	bool active;			/* BQL runs here: limit or inflight seen non-zero */
	uint64_t limit, limit_max;	/* bytes */
	uint64_t speed_mbps;
	unsigned int mtu;
	bool has_ring;
	unsigned int ring_tx;		/* descriptors */
	bool has_usecs, has_frames;
	unsigned int tx_usecs, tx_frames;	/* TX coalescing */
	const char *qdisc_kind;		/* the qdisc that feeds the queue */
	const char *qdisc_where;	/* "root" or "parent 1:3", for the tc command */
	uint64_t qdisc_backlog;		/* the most it was seen holding, bytes */
	uint64_t qdisc_drops;		/* packets it dropped during @interval_ns */
	uint64_t interval_ns;		/* 0: one snapshot, drops since it was created */
};

/*
 * rules_irq_worth - the bytes one TX interrupt completes at line rate:
 * tx-usecs of the link, or tx-frames frames of MTU + 14 bytes, whichever
 * comes first; 0 when unknown (no speed, or neither is set).
 */
uint64_t rules_irq_worth(const struct rules_path_in *in);

/*
 * rules_path - the findings that need the qdisc, the ring and the
 * coalescing; fills @hits (RULES_PATH_MAX) and returns how many:
 * - limit-max-below-irq (warn): limit_max below one interrupt's worth at
 *   line rate: the link starves between completions;
 * - dark-buffer (warn): BQL is not active and the ring holds more than
 *   RULES_DARK_RING_US of MTU-sized frames at line rate;
 * - fifo-qdisc (warn): BQL is active in front of a FIFO (pfifo_fast, pfifo,
 *   bfifo, pfifo_head_drop) seen holding a backlog or dropping, which does
 *   not manage the queue BQL moved into it; nothing without that evidence.
 */
int rules_path(const struct rules_path_in *in, struct rule_hit *hits);

/*
 * rules_limit_max_floor - the lowest limit_max that neither rule on it
 * flags for the queue @in describes (only mtu, speed_mbps and the
 * coalescing are read): one full-size frame (limit-max-below-frame) and
 * one TX interrupt's worth at line rate (limit-max-below-irq); 0 when
 * neither is known. What tune may advise for a device, so that check and
 * set never warn about the advice.
 */
uint64_t rules_limit_max_floor(const struct rules_path_in *in);

#endif
