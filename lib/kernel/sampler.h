/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sampler behind `top`: keeps the BQL files that change at every
 * completion (limit, inflight) of the selected queues open and re-reads
 * them with pread(2) at each tick, reads the slow files (settings, stall
 * counters) of a rotating slice of the queues at each tick so that each
 * queue's are at most SAMPLER_SLOW_NS old, follows devices and queues
 * appearing and vanishing, and turns counters into rates and histories.
 * What it cannot cover (descriptors or memory ran out) it counts in
 * struct sampler_short. The clock is injected so tests can drive it.
 */
#ifndef BQLTOOL_LIB_SAMPLER_H
#define BQLTOOL_LIB_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dql/err.h"
#include "lib/kernel/bql.h"
#include "lib/io/ctx.h"
#include "lib/kernel/nl_ethtool.h"
#include "lib/kernel/nl_qdisc.h"
#include "lib/kernel/sel.h"
#include "lib/kernel/sysfs.h"

struct bnl;

/**
 * struct sampler_clock - where time comes from
 * @mono_ns: CLOCK_MONOTONIC in ns (rates and timestamps)
 * @real_ns: CLOCK_REALTIME in ns (timestamps only)
 * @arg: passed to both
 */
struct sampler_clock {
	uint64_t (*mono_ns)(void *arg);
	uint64_t (*real_ns)(void *arg);
	void *arg;
};

/* the system clocks */
extern const struct sampler_clock sampler_clock_system;

/*
 * The files that change at every completion, read at every tick: limit
 * and inflight. Kept open first (2 descriptors per queue) when the
 * descriptor limit does not allow all of them.
 */
#define SAMPLER_HOT		(1u << BQL_LIMIT | 1u << BQL_INFLIGHT)

/*
 * The settings files: change only when someone writes them.
 */
#define SAMPLER_SETTINGS	(1u << BQL_LIMIT_MIN | 1u << BQL_LIMIT_MAX | \
				 1u << BQL_HOLD_TIME | 1u << BQL_STALL_THRS)

/* stall_cnt and stall_max: change only on a stall */
#define SAMPLER_COUNTERS	(1u << BQL_STALL_CNT | 1u << BQL_STALL_MAX)

/*
 * The slow files (settings and stall counters): read for every queue at
 * its first sample, then for a rotating slice of the queues at each tick,
 * sized so that every queue's are read again at most SAMPLER_SLOW_NS
 * after the last read (all of them at each tick when ticks are that far
 * apart): nothing shown is staler than that. They are kept open as the
 * descriptor limit allows after the hot files, else opened at their read.
 */
#define SAMPLER_SLOW		(SAMPLER_SETTINGS | SAMPLER_COUNTERS)
#define SAMPLER_SLOW_NS		1000000000ull

/*
 * Descriptors left free below RLIMIT_NOFILE for everything else (netlink,
 * the terminal, reads by path): a file that would be kept open past that
 * is opened at each read instead.
 */
#define SAMPLER_FD_RESERVE	64

/* samples of limit and inflight kept per queue */
#define SAMPLER_HIST	128

/* row marks (devices and queues) */
enum {
	SAMPLER_NEW	 = 1u << 0,	/* first sample it is in (not at start) */
	SAMPLER_VANISHED = 1u << 1,	/* gone: last values, dropped next tick */
};

/* per-queue counters from netdev genl qstats, and their rates */
enum sampler_qs {
	SQS_TX_BYTES,
	SQS_TX_PACKETS,
	SQS_TX_STOP,
	SQS_TX_WAKE,
	SQS_NR
};

/* JSON keys of enum sampler_qs, e.g. "tx_bytes" */
extern const char *const sampler_qs_names[SQS_NR];

/**
 * struct sampler_queue - one TX queue
 * @bql: the values of the last sample (@bql.present: files read)
 * @flags: SAMPLER_NEW / SAMPLER_VANISHED
 * @has_stall_delta: @stall_cnt_delta is known (not on a first sample): the
 *	growth of stall_cnt as last read since the sample before (stall_cnt
 *	is a slow file: a stall shows at its next read, within SAMPLER_SLOW_NS)
 * @since_stall: 0 when this sample saw stall_cnt grow, counts up after
 * @qs_present: bit (1 << SQS_*) per counter the driver reported
 * @rate_valid: bit (1 << SQS_*) per rate known this sample
 * @rate: counters per second over the last interval
 * @hist_limit: ring of limit values; use sampler_hist()
 * @hist_len: valid entries (<= SAMPLER_HIST)
 */
struct sampler_queue {
	unsigned int index;
	unsigned int flags;
	struct bql_queue bql;
	bool has_stall_delta;
	uint64_t stall_cnt_delta;
	unsigned int since_stall;	/* samples since stall_cnt last grew; UINT_MAX: never */
	unsigned int qs_present;
	uint64_t qs[SQS_NR];
	unsigned int rate_valid;
	double rate[SQS_NR];
	uint64_t hist_limit[SAMPLER_HIST];
	uint64_t hist_inflight[SAMPLER_HIST];
	unsigned int hist_len, hist_head;
	/* the qdisc that feeds this queue alone (BNL_QD_QUEUE), each stats tick */
	bool has_qd;
	struct bnl_qdisc qd;
	bool qd_drops_rate_valid;
	double qd_drops_rate;		/* drops/s over the last interval */
	/* private */
	bool had_qd;
	uint64_t prev_qd_drops;
	int fd[BQL_ATTR_NR];
	unsigned int prev_qs_present;
	uint64_t prev_qs[SQS_NR];
	uint32_t prev_present;
	uint64_t prev_stall_cnt;
	bool have_prev;
	bool opened;		/* queue_open() ran */
	bool slow_seen;		/* the slow files were read once: @slow_ns holds when */
	uint64_t slow_ns;	/* time of the last read of the slow files */
	uint32_t absent;	/* optional files that are not there */
	uint32_t reopen;	/* hot files over the descriptor budget: opened at each read */
	bool unread;		/* the last read of a file failed for want of descriptors or memory */
};

/**
 * struct sampler_dev - one device and its selected queues
 * @ntx: TX queues the device has (all of them, selected or not)
 * @has_stats: @tx_bytes/@tx_packets were read (rtnetlink stats64, or
 *	statistics/ in sysfs without netlink)
 * @has_errs: @tx_errors/@tx_dropped were read (the same sources; in sysfs
 *	by path at each sample, not kept open)
 * @has_rate: @tx_bytes_rate/@tx_packets_rate are known this sample
 * @operstate: as sysfs shows it ("up", "down", "unknown"...), "" when
 *	unknown; refreshed at every full scan
 * @q: the selected queues, ascending index
 */
struct sampler_dev {
	char ifname[BQL_IFNAMSIZ];
	int ifindex;
	unsigned int flags;
	unsigned int ntx;
	uint64_t speed_mbps;
	char operstate[16];
	bool has_stats, has_errs, has_rate;
	uint64_t tx_bytes, tx_packets, tx_errors, tx_dropped;
	double tx_bytes_rate, tx_packets_rate;
	unsigned int nq;
	struct sampler_queue *q;
	/* one root qdisc over all its queues; TX ring and coalescing (ethtool genl) */
	bool qd_shared;
	struct bnl_qdisc qd;
	struct bnl_ring ring;
	struct bnl_coal coal;
	/* private */
	bool eth_read;
	int fd_tx_bytes, fd_tx_packets;
	int qdir_fd;		/* O_PATH queues/ on a real sysfs, for reads by path; -1 */
	uint64_t queues_nlink;
	bool had_stats;
	uint64_t prev_tx_bytes, prev_tx_packets;
	bool rescan;
};

enum sampler_event_type {
	SEV_APPEARED,	/* a device matching the selectors appeared */
	SEV_VANISHED,	/* a device went away */
	SEV_QUEUES,	/* a device's TX queue count changed */
};

struct sampler_event {
	enum sampler_event_type type;
	char ifname[BQL_IFNAMSIZ];
	unsigned int old_ntx, new_ntx;	/* SEV_QUEUES */
};

const char *sampler_event_name(enum sampler_event_type t);

/**
 * struct sampler_short - what the sampler could not cover (all 0: everything)
 * @ndev_skipped: devices the selectors match that are not sampled at all
 *	(out of memory at the last full scan; retried at the next)
 * @nq_skipped: the TX queues of those devices
 * @nq_reopen: sampled queues whose hot files (limit, inflight) are opened
 *	at each read, because keeping them open would pass the descriptor
 *	limit (slower, complete); slow files not kept open are not counted
 * @nq_unread: sampled queues of which a file could not be read in the last
 *	sample for want of descriptors or memory: they show older values
 * @err: the errno of the shortage: EMFILE, ENFILE or ENOMEM (0: none)
 * @fd_limit: the RLIMIT_NOFILE soft limit the budget came from (0: none)
 */
struct sampler_short {
	size_t ndev_skipped, nq_skipped, nq_reopen, nq_unread;
	int err;
	uint64_t fd_limit;
};

/**
 * struct sampler - state of one sampling session
 * @seq: samples taken (1 after the first sampler_tick)
 * @mono_ns: @real_ns: time of the last sample
 * @dt_ns: time since the sample before (0 on the first)
 * @dev: devices in ifindex order, vanished ones included for one tick
 * @ev: what changed in the last tick
 * @qstats: the netdev genl family answered the last dump
 * @note: why a source is missing (for -v)
 * @stats_min_ns: read the traffic counters (the device's and the per-queue
 *	ones, the qdiscs) at most this often, 0 = every tick (set by the caller
 *	after sampler_init); rates then span the time between two reads.
 *	limit and inflight are read every tick, the slow files as SAMPLER_SLOW
 *	says.
 */
struct sampler {
	const struct bql_ctx *ctx;
	const struct sel *sel;
	struct bnl *nl;
	struct sampler_clock clock;
	uint64_t seq;
	uint64_t mono_ns, real_ns, dt_ns;
	struct sampler_dev *dev;
	size_t ndev;
	struct sampler_event *ev;
	size_t nev, capev;
	bool qstats;
	char note[256];
	uint64_t stats_min_ns;
	struct sampler_short shortage;
	/* private */
	int fd_budget;			/* keep no descriptor at or above this number */
	bool on_sysfs;			/* the root is a real sysfs (statfs SYSFS_MAGIC) */
	int short_err;			/* errno of the last shortage, kept across ticks */
	size_t scan_skipped_dev, scan_skipped_q;
	uint64_t stats_ns;		/* time of the last counter read */
	struct sysfs_dev *names;	/* ROOT/class/net at the last scan (names only) */
	size_t nnames;
	uint64_t last_scan_ns;		/* time of the last full scan */
	uint64_t last_quick_ns;		/* time of the last quick check */
	size_t slow_cursor;		/* where the next tick's slice of slow reads starts */
	bool qstats_off;
};

/**
 * sampler_init - prepare a sampler (opens nothing yet)
 * @sel: the selectors (n == 0: every device with BQL); kept by reference
 * @nl: netlink handle for device stats and qstats, or NULL (sysfs only)
 * @clk: clock, or NULL for sampler_clock_system
 */
void sampler_init(struct sampler *s, const struct bql_ctx *c,
		  const struct sel *sel, struct bnl *nl,
		  const struct sampler_clock *clk);

/**
 * sampler_tick - take one sample
 *
 * The first call discovers devices and opens their files. Each call checks
 * for devices and queues that came or went (one readdir of class/net and
 * one stat per device), reads every open file with pread, computes rates
 * against the previous sample and appends to the history rings. A file
 * that holds garbage is an error naming it; a device that disappears is
 * an event, not an error. Returns 0 or -errno.
 */
int sampler_tick(struct sampler *s, struct bql_err *e);
void sampler_free(struct sampler *s);

/*
 * sampler_raise_nofile - raise the soft RLIMIT_NOFILE to the hard limit
 * (a sampler keeps up to 8 descriptors per queue); returns the soft limit now
 */
uint64_t sampler_raise_nofile(void);

/*
 * sampler_short_text - one line saying what @sh leaves out and what is
 * still covered ("" when nothing): for the text stream and the live view
 */
char *sampler_short_text(char *buf, size_t n, const struct sampler *s);

/*
 * The device is down: operstate "down", "lowerlayerdown" or "notpresent".
 * "unknown" (ifb, tun, lo) and "dormant" count as up, as iproute2 shows
 * such devices with UP in their flags.
 */
bool sampler_dev_down(const struct sampler_dev *d);

/* number of queues (vanished ones included) over all devices */
size_t sampler_nqueues(const struct sampler *s);
/* some device or queue of the last sample has its qdisc known */
bool sampler_has_qdiscs(const struct sampler *s);
/* some device of the last sample has its TX ring or coalescing known */
bool sampler_has_ethtool(const struct sampler *s);

/* @i-th newest history sample (0 = the last); @i < q->hist_len */
static inline uint64_t sampler_hist(const uint64_t *ring,
				    const struct sampler_queue *q,
				    unsigned int i)
{
	return ring[(q->hist_head + SAMPLER_HIST - 1 - i) % SAMPLER_HIST];
}

/**
 * sampler_counter_delta - @cur - @prev for a counter that may wrap
 *
 * Counters are 64-bit, but drivers and older interfaces report 32-bit
 * ones. A value that went down is a 32-bit wrap when @prev was in the
 * upper half of the 32-bit range and @cur fits in 32 bits, a 64-bit wrap
 * when @prev was in the upper half of the 64-bit range, and otherwise a
 * reset (the kernel zeroes per-queue counters on reconfiguration): false,
 * no delta.
 */
bool sampler_counter_delta(uint64_t prev, uint64_t cur, uint64_t *delta);

#endif
