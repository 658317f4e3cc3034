/* SPDX-License-Identifier: GPL-2.0-only */
/* Private to cmd/tune*.c: a device as `bqltool tune SEL` reads it (tune_dev.c). */
#ifndef BQLTOOL_CMD_TUNE_DEV_H
#define BQLTOOL_CMD_TUNE_DEV_H

#include <stdbool.h>
#include <stdint.h>

#include "dql/tune.h"
#include "lib/kernel/sel.h"

/* one selected device as tune_dev.c read it; 0 / has_* false: not reported */
struct tx_dev {
	char ifname[BQL_IFNAMSIZ];
	uint64_t mbps;			/* sysfs speed, 0 = unknown */
	unsigned int queues;		/* selected */
	unsigned int mtu;		/* sysfs, 0 = unknown */
	unsigned int ring, coal_usecs, coal_frames;
	bool has_ring, has_usecs, has_frames;
	char qdisc_kind[16];		/* of the selected queues, "mixed", "" = unknown */
	enum tune_qdisc qdisc;
	char eth_note[256];		/* why ring or coalescing are unknown */
};

#endif
