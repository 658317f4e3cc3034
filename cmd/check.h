/* SPDX-License-Identifier: GPL-2.0-only */
/* Private to cmd/check*.c: one `bqltool check` run, its rows and reasons. */
#ifndef BQLTOOL_CMD_CHECK_H
#define BQLTOOL_CMD_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/io/ctx.h"
#include "lib/kernel/hz.h"
#include "lib/kernel/sel.h"
#include "lib/kernel/sysfs.h"
#include "lib/model/snapshot.h"

#define MAX_REASONS	10	/* more than the checks that can fire on one queue */
#define SAMPLE_NS	(10ull * 1000 * 1000)	/* --interval: limit and inflight every 10 ms */

enum level { LV_INFO, LV_WARN, LV_FAIL };

struct reason {
	enum level level;
	const char *code;
	char msg[320];
};

/* what one queue's limit and inflight did over --interval (sampled) */
struct seen {
	uint64_t n, busy;		/* samples, and those with something in flight */
	uint64_t lim_lo, lim_hi, changes, last_lim;
	uint64_t infl_max, infl_max_lim;	/* the most in flight, and the limit then */
	uint64_t falls, last_infl;	/* samples after which inflight fell: completions seen */
};

/* --interval's evidence as numbers, for JSON ("seen"): what the message says */
enum { EV_PACKETS = 1u << 0, EV_STOPS = 1u << 1, EV_QDISC = 1u << 2 };
struct evidence {
	struct seen sn;
	unsigned int has;		/* EV_* */
	uint64_t tx_packets, tx_stop, tx_wake;	/* during the interval */
	char qd_kind[16];
	uint64_t qd_backlog0, qd_backlog1, qd_drops, qd_bytes;
};

struct row {
	char ifname[BQL_IFNAMSIZ];
	int queue;		/* -1: the whole device (no BQL) */
	bool nobql;
	bool unused;		/* BQL never used and nothing to judge it by */
	bool has_ev;
	struct evidence ev;
	int nr;
	struct reason r[MAX_REASONS];
};

struct check {
	struct bql_ctx *c;
	struct seen *seen;		/* per queue of the first snapshot, in its order */
	const struct hz_info *hz;
	uint64_t interval_ns;	/* 0: one snapshot */
	struct row *rows;
	size_t nrows, cap;
	struct reason notes[4];
	int nnotes;
	bool oom;
	struct check_time *time;	/* --interval: the latency observer's reading */
};


/* the verdicts, in the order of the summary's counts */
enum verdict { VD_OK, VD_WARN, VD_FAIL, VD_NOBQL, VD_UNUSED, VD_NR };

extern const char *const check_level_names[];

/* check.c */
void check_add_reason(struct reason *r, int *n, enum level lv, const char *code,
		      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
enum level check_row_level(const struct row *r);
enum verdict check_row_vd(const struct row *r);
/* the verdict's name: ok, warn, fail, no_bql, unused */
const char *check_row_verdict(const struct row *r);

/* check_out.c */
/* the notes about the whole run: the stall detector off, HZ assumed */
void check_add_notes(struct check *k, const struct snapshot *s, const struct sel *keep);
void check_print_json(struct check *k, const size_t cnt[VD_NR]);
void check_print_text(struct check *k, const size_t cnt[VD_NR]);

#endif
