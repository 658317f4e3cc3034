// SPDX-License-Identifier: GPL-2.0-only
/*
 * qdisc_cmp: lib/kernel/nl_qdisc.c's direct dump (bnl_qdisc_dump, what the
 * sampler reads every tick) against libnl's qdisc cache (bnl_qdisc_refresh)
 * in the current namespace, for tests/integration/qdisc.bats.
 *   usage: qdisc_cmp [-p]
 * Dumps both ways (direct, libnl, direct again: counters that moved between
 * the dumps of a busy qdisc are then bracketed) and compares the lists entry
 * by entry: same length, order, ifindex, kind, handle, parent; counters
 * equal (or, when they moved, libnl's between the two direct ones).
 * Prints "qdiscs N" and with -p one line per qdisc as the direct dump read
 * it; on a difference prints it on stderr and exits 1 (2: an error).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/kernel/nl.h"
#include "lib/kernel/nl_qdisc.h"

static struct bnl_qdisc *copy(const struct bnl_qdisc *qd, size_t n)
{
	struct bnl_qdisc *c = malloc((n ? n : 1) * sizeof(*c));

	if (!c) {
		perror("qdisc_cmp");
		exit(2);
	}
	memcpy(c, qd, n * sizeof(*c));
	return c;
}

static int between(const char *what, size_t i, uint64_t a, uint64_t lib, uint64_t b)
{
	if ((a <= lib && lib <= b) || (a == lib && lib == b))
		return 0;
	fprintf(stderr, "qdisc %zu: %s direct %" PRIu64 "..%" PRIu64 " libnl %" PRIu64 "\n",
		i, what, a, b, lib);
	return 1;
}

int main(int argc, char **argv)
{
	struct bql_err e = { 0 };
	struct bnl *h;
	const struct bnl_qdisc *l;
	struct bnl_qdisc *a, *lib, *b;
	size_t na, nl, nb;
	int bad = 0;
	bool print = argc > 1 && !strcmp(argv[1], "-p");

	if (bnl_open(&h, &e) || bnl_qdisc_dump(h, &e)) {
		fprintf(stderr, "qdisc_cmp: %s\n", e.msg);
		return 2;
	}
	l = bnl_qdiscs(h, &na);
	a = copy(l, na);
	if (bnl_qdisc_refresh(h, &e)) {
		fprintf(stderr, "qdisc_cmp: %s\n", e.msg);
		return 2;
	}
	l = bnl_qdiscs(h, &nl);
	lib = copy(l, nl);
	if (bnl_qdisc_dump(h, &e)) {
		fprintf(stderr, "qdisc_cmp: %s\n", e.msg);
		return 2;
	}
	l = bnl_qdiscs(h, &nb);
	b = copy(l, nb);
	if (na != nl || nb != nl) {
		fprintf(stderr, "qdisc_cmp: direct %zu/%zu qdiscs, libnl %zu\n", na, nb, nl);
		return 1;
	}
	for (size_t i = 0; i < nl; i++) {
		if (a[i].ifindex != lib[i].ifindex || b[i].ifindex != lib[i].ifindex ||
		    strcmp(a[i].kind, lib[i].kind) || strcmp(b[i].kind, lib[i].kind) ||
		    a[i].handle != lib[i].handle || b[i].handle != lib[i].handle ||
		    a[i].parent != lib[i].parent || b[i].parent != lib[i].parent) {
			fprintf(stderr, "qdisc %zu: direct %d %s %x %x libnl %d %s %x %x\n", i,
				a[i].ifindex, a[i].kind, a[i].handle, a[i].parent,
				lib[i].ifindex, lib[i].kind, lib[i].handle, lib[i].parent);
			bad = 1;
			continue;
		}
		/* monotonic counters bracketed; qlen and backlog may go either way */
		bad |= between("bytes", i, a[i].bytes, lib[i].bytes, b[i].bytes);
		bad |= between("packets", i, a[i].packets, lib[i].packets, b[i].packets);
		bad |= between("drops", i, a[i].drops, lib[i].drops, b[i].drops);
		bad |= between("requeues", i, a[i].requeues, lib[i].requeues, b[i].requeues);
		bad |= between("overlimits", i, a[i].overlimits, lib[i].overlimits,
			       b[i].overlimits);
		if (a[i].qlen == b[i].qlen && a[i].qlen != lib[i].qlen)
			bad |= between("qlen", i, a[i].qlen, lib[i].qlen, b[i].qlen);
		if (a[i].backlog == b[i].backlog && a[i].backlog != lib[i].backlog)
			bad |= between("backlog", i, a[i].backlog, lib[i].backlog, b[i].backlog);
	}
	printf("qdiscs %zu\n", nl);
	for (size_t i = 0; print && i < nl; i++) {
		char hb[16], pb[16];

		printf("%d %s %s %s bytes=%" PRIu64 " packets=%" PRIu64 " drops=%" PRIu64
		       " requeues=%" PRIu64 " overlimits=%" PRIu64 " backlog=%" PRIu64
		       " qlen=%" PRIu64 "\n", a[i].ifindex, a[i].kind,
		       bnl_tc_handle_str(a[i].handle, hb, sizeof(hb)),
		       bnl_tc_handle_str(a[i].parent, pb, sizeof(pb)), a[i].bytes, a[i].packets,
		       a[i].drops, a[i].requeues, a[i].overlimits, a[i].backlog, a[i].qlen);
	}
	free(a);
	free(lib);
	free(b);
	bnl_close(h);
	return bad;
}
