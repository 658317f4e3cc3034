/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The qdisc that feeds each TX queue, from one rtnetlink dump of every
 * qdisc (libnl-route's qdisc cache): under mq or mqprio, the child whose
 * parent is MAJ:N feeds tx-(N-1) (net/sched/sch_mq.c, sch_mqprio.c); a
 * single-queue device's root qdisc feeds tx-0; any other root over
 * several queues (htb, fq_codel...) is the device's, shared by them all.
 */
#ifndef BQLTOOL_LIB_NL_QDISC_H
#define BQLTOOL_LIB_NL_QDISC_H

#include <stddef.h>
#include <stdint.h>

#include "dql/err.h"

struct bnl;

#define BNL_TC_H_ROOT		0xFFFFFFFFu
#define BNL_TC_H_INGRESS	0xFFFFFFF1u

/* one qdisc as the dump reported it; counters as `tc -s` shows them */
struct bnl_qdisc {
	int ifindex;
	char kind[16];
	uint32_t handle, parent;
	uint64_t bytes, packets, drops, requeues, overlimits;
	uint64_t backlog;		/* bytes waiting */
	uint64_t qlen;			/* packets waiting */
};

enum bnl_qdisc_scope {
	BNL_QD_NONE = 0,		/* no qdisc found for it */
	BNL_QD_QUEUE,			/* this qdisc feeds the queue alone */
	BNL_QD_DEVICE,			/* one root qdisc feeds all the device's queues */
};

/*
 * bnl_qdisc_refresh - dump every qdisc of the handle's namespace again
 * (one RTM_GETQDISC dump); bnl_qdisc_for_queue answers from it.
 * Returns 0 or -errno with @e.
 */
int bnl_qdisc_refresh(struct bnl *h, struct bql_err *e);

/*
 * bnl_qdisc_dump - the same, read directly (one RTM_GETQDISC dump parsed
 * in place into the handle's reused list, no libnl objects): what the
 * sampler calls every tick. Same list and values as bnl_qdisc_refresh.
 */
int bnl_qdisc_dump(struct bnl *h, struct bql_err *e);

/*
 * the list the last refresh or dump left (@n entries; valid until the next):
 * a test-only entry point (tests/tools/qdisc_cmp compares the two reads)
 */
const struct bnl_qdisc *bnl_qdiscs(const struct bnl *h, size_t *n);

/* the qdisc feeding @queue of device @ifindex (@ntx TX queues), from the
 * last refresh (indexed once per refresh: O(log n) a call) */
enum bnl_qdisc_scope bnl_qdisc_for_queue(const struct bnl *h, int ifindex, unsigned int ntx,
					 unsigned int queue, struct bnl_qdisc *out);

/* the same rule over any list of qdiscs (what the dump copies): for tests */
enum bnl_qdisc_scope bnl_qdisc_map(const struct bnl_qdisc *qd, size_t n, int ifindex,
				   unsigned int ntx, unsigned int queue, struct bnl_qdisc *out);

/*
 * An index over a list of qdiscs, by ifindex and parent: bnl_qdisc_map's
 * rule in O(log n) a queue, so that mapping q queues over a dump of n
 * qdiscs costs O((q + n) log n), not O(q * n). The list is not copied.
 */
struct bnl_qdisc_key {
	int ifindex;
	uint32_t parent;
	uint32_t pos;		/* in the list: the first one listed wins, as in bnl_qdisc_map */
};

struct bnl_qdisc_index {
	const struct bnl_qdisc *qd;
	size_t n, cap;
	struct bnl_qdisc_key *key;	/* sorted by ifindex, parent, pos */
};

/* (re)build @ix over @qd (reusing its memory); 0 or -ENOMEM (then empty) */
int bnl_qdisc_index_build(struct bnl_qdisc_index *ix, const struct bnl_qdisc *qd, size_t n);
/* bnl_qdisc_map() over the list @ix was built on */
enum bnl_qdisc_scope bnl_qdisc_index_map(const struct bnl_qdisc_index *ix, int ifindex,
					 unsigned int ntx, unsigned int queue,
					 struct bnl_qdisc *out);
void bnl_qdisc_index_free(struct bnl_qdisc_index *ix);

/* a handle as tc prints it: "root", "ingress", "1:", ":3", "1:3" (@buf of 16) */
const char *bnl_tc_handle_str(uint32_t h, char *buf, size_t n);

#endif
