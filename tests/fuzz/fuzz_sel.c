// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for queue selectors: the input, split at '\n', is the
 * argument list of sel_parse(); what parses is resolved by sel_resolve()
 * against a small fake sysfs tree made once in a temporary directory.
 * Checks the invariants sel.h promises on both results.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/kernel/sel.h"

#define MAX_ARGS	16

static char root[64];
static struct bql_ctx ctx;

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		abort();
}

static void dir(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (mkdir(path, 0755) && errno != EEXIST)
		abort();
}

/* DEV with @ntx TX queues (BQL or not) and ifindex @idx */
static void dev(const char *name, int idx, unsigned int ntx, int bql)
{
	char rel[256], num[16];

	snprintf(rel, sizeof(rel), "class/net/%s", name);
	dir(rel);
	snprintf(rel, sizeof(rel), "class/net/%s/ifindex", name);
	snprintf(num, sizeof(num), "%d\n", idx);
	put(rel, num);
	snprintf(rel, sizeof(rel), "class/net/%s/queues", name);
	dir(rel);
	for (unsigned int q = 0; q < ntx; q++) {
		snprintf(rel, sizeof(rel), "class/net/%s/queues/tx-%u", name, q);
		dir(rel);
		if (!bql)
			continue;
		snprintf(rel, sizeof(rel), "class/net/%s/queues/tx-%u/byte_queue_limits",
			 name, q);
		dir(rel);
	}
}

static void cleanup(void)
{
	char cmd[128];

	if (root[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd))
			fprintf(stderr, "fuzz_sel: could not remove %s\n", root);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(root, sizeof(root), "%s/fuzz_sel.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root))
		abort();
	atexit(cleanup);
	dir("class");
	dir("class/net");
	dev("lo", 1, 1, 0);
	dev("eth0", 2, 4, 1);
	dev("eth1", 3, 1, 1);
	dev("eth10", 4, 2, 1);
	dev("wlan0", 5, 3, 1);
	dev("a[b", 6, 1, 1);
	dev("veth0", 7, 2, 0);
	bql_ctx_init(&ctx);
	ctx.sysfs_root = root;
	ctx.root_overridden = true;
	return 0;
}

static void check_parse(const struct sel *s, int argc, char **argv)
{
	if ((int)s->n != argc)
		abort();
	for (size_t i = 0; i < s->n; i++) {
		const struct sel_item *it = &s->items[i];

		if (it->text != argv[i] || !memchr(it->pat, 0, sizeof(it->pat)) ||
		    !it->pat[0] || strncmp(it->pat, argv[i], strlen(it->pat)))
			abort();
		/*
		 * the pattern is the text up to the ':' of the queue list, if
		 * any (a ':' inside a bracket expression is the glob's)
		 */
		if (!it->ranges != !it->nranges ||
		    (it->ranges ? argv[i][strlen(it->pat)] != ':' : strcmp(it->pat, argv[i])))
			abort();
		for (size_t k = 0; k < it->nranges; k++)
			if (it->ranges[k].lo > it->ranges[k].hi ||
			    it->ranges[k].hi > 65535)
				abort();
	}
}

static void check_resolve(const struct sel_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct sel_target *t = &r->t[i];

		if (!t->nqueues || t->nqueues > t->ntx)
			abort();
		for (unsigned int k = 0; k < t->nqueues; k++)
			if (t->queues[k] >= t->ntx ||
			    (k && t->queues[k] <= t->queues[k - 1]))
				abort();
		for (size_t j = 0; j < i; j++)
			if (!strcmp(r->t[j].ifname, t->ifname) ||
			    r->t[j].ifindex > t->ifindex)
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_ARGS + 1], *buf;
	struct sel_result r;
	struct bql_err e;
	struct sel s;
	int argc = 0, ret;
	size_t i, start = 0;

	/* the arguments, each an exactly sized NUL-terminated copy */
	for (i = 0; i <= size && argc < MAX_ARGS; i++) {
		if (i < size && data[i] != '\n')
			continue;
		buf = malloc(i - start + 1);
		memcpy(buf, data + start, i - start);
		buf[i - start] = '\0';
		argv[argc++] = buf;
		start = i + 1;
	}
	argv[argc] = NULL;

	memset(&e, 0, sizeof(e));
	ret = sel_parse(&s, argc, argv, &e);
	if (ret) {
		if (ret != -EINVAL || !e.msg[0] || s.n || s.items)
			abort();
		goto out;
	}
	check_parse(&s, argc, argv);
	memset(&e, 0, sizeof(e));
	ret = sel_resolve(&ctx, &s, &r, &e);
	if (ret) {
		if (ret >= 0 || !e.msg[0] || r.n || r.t)
			abort();
	} else {
		check_resolve(&r);
		sel_result_free(&r);
	}
	sel_free(&s);
out:
	for (int k = 0; k < argc; k++)
		free(argv[k]);
	return 0;
}
