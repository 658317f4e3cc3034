// SPDX-License-Identifier: GPL-2.0-only
/*
 * ethtool_get: drive lib/kernel/nl_ethtool.c for tests/integration/ethtool.bats.
 *   usage: ethtool_get [-w] DEV|-i IFINDEX [ring|coalesce]
 * Prints, with only the fields the driver reported:
 *   ring tx=N tx_max=N
 *   coalesce tx_usecs=N tx_max_frames=N ... (booleans as 0/1)
 * An error is printed on stderr as the library words it and the exit
 * status is 1 (the other request is still made); 2 for bad usage.
 * -i IFINDEX skips the name lookup, so a deleted device reaches the kernel.
 * -w: after looking DEV up, print "resolved IFINDEX" and wait for a line on
 * stdin before asking (the test deletes the device in between).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/kernel/nl.h"
#include "lib/kernel/nl_ethtool.h"

static void put(const char *name, unsigned int present, unsigned int bit,
		unsigned long v)
{
	if (present & bit)
		printf(" %s=%lu", name, v);
}

static int do_ring(struct bnl *h, int ifindex)
{
	struct bql_err e = { 0 };
	struct bnl_ring r;

	if (bnl_ring_get(h, ifindex, &r, &e) < 0) {
		fprintf(stderr, "ethtool_get: %s\n", e.msg);
		return 1;
	}
	printf("ring");
	put("tx", r.present, BNL_RING_TX, r.tx);
	put("tx_max", r.present, BNL_RING_TX_MAX, r.tx_max);
	printf("\n");
	return 0;
}

static int do_coal(struct bnl *h, int ifindex)
{
	struct bql_err e = { 0 };
	struct bnl_coal c;

	if (bnl_coal_get(h, ifindex, &c, &e) < 0) {
		fprintf(stderr, "ethtool_get: %s\n", e.msg);
		return 1;
	}
	printf("coalesce");
	for (int i = 0; i < BNL_COAL_NFIELDS; i++)
		put(bnl_coal_fields[i].key, c.present, bnl_coal_fields[i].bit,
		    bnl_coal_value(&c, &bnl_coal_fields[i]));
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct bql_err e = { 0 };
	struct bnl_link l;
	struct bnl *h;
	const char *what = NULL;
	const char *dev = NULL;
	bool wait = false;
	int ifindex, rc = 0, i = 1;

	if (argc > 1 && !strcmp(argv[1], "-w")) {
		wait = true;
		i = 2;
	}
	if (!wait && argc > 2 && !strcmp(argv[1], "-i")) {
		ifindex = atoi(argv[2]);
		i = 3;
	} else if (argc > i) {
		ifindex = 0;
		dev = argv[i++];
	} else {
		goto usage;
	}
	if (argc > i + 1)
		goto usage;
	if (argc == i + 1) {
		what = argv[i];
		if (strcmp(what, "ring") && strcmp(what, "coalesce"))
			goto usage;
	}

	if (bnl_open(&h, &e) < 0) {
		fprintf(stderr, "ethtool_get: %s\n", e.msg);
		return 1;
	}
	if (!ifindex) {
		if (bnl_link_get(h, dev, &l, &e) < 0) {
			fprintf(stderr, "ethtool_get: %s\n", e.msg);
			bnl_close(h);
			return 1;
		}
		ifindex = l.ifindex;
	}
	if (wait) {
		char line[16];

		printf("resolved %d\n", ifindex);
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			line[0] = '\0';
	}
	if (!what || !strcmp(what, "ring"))
		rc |= do_ring(h, ifindex);
	if (!what || !strcmp(what, "coalesce"))
		rc |= do_coal(h, ifindex);
	bnl_close(h);
	return rc;
usage:
	fprintf(stderr, "usage: ethtool_get [-w] DEV|-i IFINDEX [ring|coalesce]\n");
	return 2;
}
