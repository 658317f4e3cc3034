/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record's BPF side, user half: choose a backend, load and attach the
 * programs of lib/kernel/bpf/record.bpf.c, find each queue's struct dql in the
 * kernel, deliver ring-buffer events, and detach everything. Without the
 * BPF toolchain at build time every entry point fails with -ENOTSUP.
 */
#ifndef BQLTOOL_LIB_RECBPF_H
#define BQLTOOL_LIB_RECBPF_H

#include <stdbool.h>
#include <stdint.h>

#include "dql/err.h"
#include "lib/kernel/bpf/record.h"
#include "lib/kernel/bpfstats.h"
#include "lib/kernel/sysfs.h"

/* debug registers per CPU the watchpoint backend may use (x86: DR0-DR3) */
#define RECBPF_DEBUG_REGS	4

enum recbpf_backend {
	RECBPF_FENTRY,		/* fentry/fexit on dql_completed and dql_reset */
	RECBPF_WATCH,		/* hardware write watchpoints + in-lock checkpoints */
	RECBPF_TP,		/* tracepoints: struct dql observed around each xmit and poll */
	RECBPF_NR,
};

struct recbpf_target {
	char ifname[BQL_IFNAMSIZ];
	int ifindex;
	unsigned int queue;
};

struct recbpf_opts {
	const struct recbpf_target *t;
	unsigned int n;			/* <= REC_MAX_SLOTS */
	bool queued;			/* Q records */
	bool limit_watch;		/* watch limit too (sysfs writes exactly) */
	int verbose;			/* >= 2: libbpf's own messages on stderr */
	bool prog_stats;		/* kernel run-time statistics (BPF_ENABLE_STATS) */
};


struct recbpf;

/* true if this binary was built with BPF support */
bool recbpf_available(void);
/* the libbpf it runs with ("1.1"), NULL without BPF support */
const char *recbpf_libbpf_version(void);
const char *recbpf_backend_name(enum recbpf_backend b);
/* the backend named @s ("tracepoints", "fentry", "watchpoint"), or -1 */
int recbpf_backend_parse(const char *s);
/* debug registers one queue needs */
unsigned int recbpf_regs_per_queue(bool queued, bool limit_watch);

/*
 * recbpf_probe_fentry - can fexit programs be loaded and attached to
 * dql_completed here? Loads, attaches and destroys a probe: no BPF object
 * is left. 0 = yes; else -errno and @e says why not.
 */
int recbpf_probe_fentry(int verbose, struct bql_err *e);

/*
 * recbpf_open - load the programs for backend @b, resolve every target's
 * struct dql in the caller's network namespace, attach. On failure nothing
 * stays loaded or attached. @e names the queue or the step; *@refused
 * (may be NULL) is true where the kernel refused the backend's programs
 * or events (another backend may work), false for anything else (a
 * device gone, no memory).
 */
int recbpf_open(struct recbpf **rp, const struct recbpf_opts *o,
		enum recbpf_backend b, struct bql_err *e, bool *refused);
/* the dql address found for target @i (for -v) */
uint64_t recbpf_dql_addr(const struct recbpf *r, unsigned int i);
/*
 * recbpf_probe_watch - could a write watchpoint be set on target 0's
 * struct dql here? Opens one breakpoint event on CPU 0 and closes it
 * (nothing is attached). 0 = yes; else -errno and @e says why not.
 */
int recbpf_probe_watch(const struct recbpf *r, struct bql_err *e);

typedef int (*recbpf_event_fn)(void *arg, const struct rec_event *ev);
/*
 * recbpf_poll - wait up to @timeout_ms, then deliver every pending event
 * in ring-buffer (global) order. Returns events delivered, or -errno
 * (-EINTR on a signal), or the callback's non-zero return.
 */
int recbpf_poll(struct recbpf *r, int timeout_ms, recbpf_event_fn fn, void *arg);
/* recbpf_detach - destroy every link (programs stop firing); events stay queued. */
void recbpf_detach(struct recbpf *r);
/* recbpf_drain - deliver what is left without waiting. */
int recbpf_drain(struct recbpf *r, recbpf_event_fn fn, void *arg);
/* the per-CPU counters summed (enum rec_stat) */
void recbpf_stats(const struct recbpf *r, uint64_t st[REC_ST_NR]);
/*
 * recbpf_prog_stats - run counts and run time of each attached program
 * kind (with opts.prog_stats); returns how many were filled (<= @max).
 */
int recbpf_prog_stats(const struct recbpf *r, struct bpf_prog_runs *out, int max);
/* close everything; NULL is a no-op */
void recbpf_close(struct recbpf *r);

#endif
