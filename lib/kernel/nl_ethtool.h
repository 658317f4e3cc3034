/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * TX ring size and TX interrupt coalescing of a device, from the kernel's
 * `ethtool` generic netlink family (RINGS_GET, COALESCE_GET) through
 * libnl-genl, on the generic netlink socket of a struct bnl (lib/kernel/nl.h).
 */
#ifndef BQLTOOL_LIB_NL_ETHTOOL_H
#define BQLTOOL_LIB_NL_ETHTOOL_H

#include <stdbool.h>
#include <stdint.h>

#include "dql/err.h"
#include "lib/kernel/nl.h"

struct nlmsghdr;

/* which fields the driver reported (an absent attribute is unknown, never 0) */
enum {
	BNL_RING_TX       = 1u << 0,
	BNL_RING_TX_MAX   = 1u << 1,
};

/*
 * struct bnl_ring - TX descriptor ring (ethtool -g)
 * @present: BNL_RING_* bits; fields without their bit are 0 = unknown. The
 *	kernel sends both or neither: a driver that leaves the TX maximum at
 *	0 reports no TX ring at all.
 * @tx: current TX ring size, in descriptors
 * @tx_max: the largest size the driver accepts
 */
struct bnl_ring { unsigned int present; uint32_t tx, tx_max; };

enum {
	BNL_COAL_TX_USECS          = 1u << 0,
	BNL_COAL_TX_MAX_FRAMES     = 1u << 1,
	BNL_COAL_TX_USECS_IRQ      = 1u << 2,
	BNL_COAL_TX_MAX_FRAMES_IRQ = 1u << 3,
	BNL_COAL_USE_ADAPTIVE_TX   = 1u << 4,
	BNL_COAL_USE_CQE_MODE_TX   = 1u << 5,
	BNL_COAL_TX_AGGR_MAX_BYTES = 1u << 6,
	BNL_COAL_TX_AGGR_MAX_FRAMES= 1u << 7,
	BNL_COAL_TX_AGGR_TIME_USECS= 1u << 8,
};

/*
 * struct bnl_coal - TX interrupt coalescing (ethtool -c), TX side only
 * @present: BNL_COAL_* bits. The kernel sends a parameter when the driver
 *	declares it supported, or when its value is not 0; fields without
 *	their bit are 0 = unknown.
 * @tx_usecs, @tx_max_frames: completion interrupt after this many µs /
 *	frames ("tx-usecs", "tx-frames"); @_irq: the same while an interrupt
 *	is being serviced
 * @use_adaptive_tx: the driver adapts the values itself (DIM)
 * @use_cqe_mode_tx: timer restarts on completion-queue entries
 * @tx_aggr_max_bytes, @tx_aggr_max_frames, @tx_aggr_time_usecs: TX
 *	aggregation of drivers that batch frames into one transfer (6.2+)
 */
struct bnl_coal {
	unsigned int present;
	uint32_t tx_usecs, tx_max_frames, tx_usecs_irq, tx_max_frames_irq;
	bool use_adaptive_tx, use_cqe_mode_tx;
	uint32_t tx_aggr_max_bytes, tx_aggr_max_frames, tx_aggr_time_usecs;
};

/*
 * bnl_ring_get / bnl_coal_get - one RINGS_GET / COALESCE_GET request (not a
 * dump) for @ifindex. 0 with *out filled (present may be 0: the driver
 * reported none of these); -EOPNOTSUPP when the kernel has no ethtool
 * family ("generic netlink family 'ethtool' not found") or the device has
 * no such operation (ifb, veth for rings...): the message says which;
 * -ENODEV when the device is gone; else -errno. Never fatal for others.
 *
 * The family id is resolved on first use and cached in the handle (its
 * absence too). Messages name the device from the handle's link snapshot
 * when one was taken (bnl_refresh, bnl_link_get...), else "ifindex N";
 * no dump is made for that.
 */
/*
 * The coalescing fields, one row each, in ethtool's order: the bit, the
 * JSON key (the kernel attribute's name in lower case), ethtool -c's word,
 * a boolean (on/off) or a count.
 */
struct bnl_coal_field {
	unsigned int bit;		/* BNL_COAL_* */
	const char *key;		/* "tx_usecs" */
	const char *word;		/* "tx-usecs" */
	bool boolean;
};
#define BNL_COAL_NFIELDS	9
extern const struct bnl_coal_field bnl_coal_fields[BNL_COAL_NFIELDS];
/* the value of field @f of @c (a boolean as 0/1) */
uint32_t bnl_coal_value(const struct bnl_coal *c, const struct bnl_coal_field *f);

int bnl_ring_get(struct bnl *h, int ifindex, struct bnl_ring *out, struct bql_err *e);
int bnl_coal_get(struct bnl *h, int ifindex, struct bnl_coal *out, struct bql_err *e);

/*
 * parse one reply (@nlh: netlink header of a genl message): 0, or -EPROTO
 * (malformed: bad header, another command than the GET reply, or one of
 * the attributes above with the wrong size). Unknown attributes are
 * ignored. *out is zeroed first, also on error.
 */
int bnl_ring_parse(struct nlmsghdr *nlh, struct bnl_ring *out);
int bnl_coal_parse(struct nlmsghdr *nlh, struct bnl_coal *out);

#endif
