/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latency's BPF side, user half: load and attach the observer of
 * lib/kernel/bpf/latency.bpf.c (tracepoints only; a tracepoint this kernel
 * lacks is left out and named), find each queue in the kernel, read the
 * per-CPU histograms and counters summed, deliver stall and timeout
 * events, and detach everything. Without the BPF toolchain at build time
 * every entry point fails with -ENOTSUP.
 */
#ifndef BQLTOOL_LIB_LATBPF_H
#define BQLTOOL_LIB_LATBPF_H

#include <stdbool.h>
#include <stdint.h>

#include "dql/err.h"
#include "dql/lat.h"
#include "lib/kernel/bpf/latency.h"
#include "lib/kernel/bpfstats.h"
#include "lib/kernel/sysfs.h"

struct latbpf_target {
	char ifname[BQL_IFNAMSIZ];
	int ifindex;
	unsigned int queue;
};

struct latbpf_opts {
	const struct latbpf_target *t;
	unsigned int n;			/* <= LAT_MAX_SLOTS */
	int verbose;			/* >= 2: libbpf's own messages on stderr */
	bool prog_stats;		/* kernel run-time statistics (BPF_ENABLE_STATS) */
	bool no_irq;			/* leave the softirq programs out (no interrupt delay) */
	unsigned int kinds;		/* histograms to read (1 << enum lat_kind), 0 = all */
};

/* one queue's reading: every distribution and counter, summed over the CPUs */
struct latbpf_queue {
	struct lat_hist h[LAT_H_NR];
	struct lat_cnt c;
	uint64_t drops[LAT_NREASONS];
};

/* a reading of every queue, and each CPU's interrupt -> NET_RX softirq delay */
struct latbpf_snap {
	unsigned int n;
	struct latbpf_queue q[LAT_MAX_SLOTS];
	unsigned int ncpu;
	struct lat_hist cpu_irq[LAT_MAX_CPUS];
	uint64_t t_ns;			/* CLOCK_MONOTONIC of the reading */
};


struct latbpf;

/* true if this binary was built with BPF support */
bool latbpf_available(void);
/*
 * latbpf_open - load the observer, resolve every target in the caller's
 * network namespace, fill the tables, attach. Tracepoints the kernel does
 * not have are left out (latbpf_missing() names them). On failure nothing
 * stays loaded or attached; @e names the queue or the step.
 */
int latbpf_open(struct latbpf **lp, const struct latbpf_opts *o, struct bql_err *e);
/* the tracepoints left out, "" if none ("napi:dql_stall_detected, ...") */
const char *latbpf_missing(const struct latbpf *l);
/*
 * read every queue's counters and the histograms of the kinds opened with
 * (cumulative since attach; other kinds are left as they were in @s): a
 * batch of the maps per kind, no allocation
 */
int latbpf_read(const struct latbpf *l, struct latbpf_snap *s, struct bql_err *e);
/* the name of kfree_skb drop reason @r from BTF ("QDISC_DROP"), NULL if unknown */
const char *latbpf_reason_name(const struct latbpf *l, unsigned int r);

typedef void (*latbpf_event_fn)(void *arg, const struct lat_event *ev);
/* deliver the stall/timeout events pending; -errno on failure */
int latbpf_events(struct latbpf *l, latbpf_event_fn fn, void *arg);
/* program run counts and times (with prog_stats); how many filled (<= @max) */
int latbpf_prog_stats(const struct latbpf *l, struct bpf_prog_runs *out, int max);
/* detach: every link and BPF object gone (reason names stay); NULL is a no-op */
void latbpf_detach(struct latbpf *l);
/* detach and free everything; NULL is a no-op */
void latbpf_close(struct latbpf *l);

#endif
