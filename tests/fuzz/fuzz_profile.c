// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for profiles: profile_parse() on the input. A profile
 * that parses must keep profile.h's promises (valid device names, only the
 * four profile keys, queues ascending, unique and in range) and survive a
 * round trip: profile_to_json() then profile_parse() gives the same
 * profile, as `save` then `apply` relies on.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/model/profile.h"

static void check_vals(const struct profile_vals *v)
{
	for (int a = 0; a < BQL_ATTR_NR; a++)
		if ((v->present & (1u << a)) && !profile_key(a))
			abort();
	if (v->present >> BQL_ATTR_NR)
		abort();
}

static void check(const struct profile *p)
{
	if (p->version != PROFILE_VERSION ||
	    !memchr(p->kernel, 0, sizeof(p->kernel)) ||
	    !memchr(p->tool_version, 0, sizeof(p->tool_version)))
		abort();
	for (size_t i = 0; i < p->ndev; i++) {
		const struct profile_dev *d = &p->dev[i];

		if (!sysfs_valid_ifname(d->ifname) || (d->all && d->nq))
			abort();
		for (size_t j = 0; j < i; j++)
			if (!strcmp(p->dev[j].ifname, d->ifname))
				abort();
		check_vals(&d->v);
		for (size_t k = 0; k < d->nq; k++) {
			check_vals(&d->q[k].v);
			if (d->q[k].queue > PROFILE_MAX_QUEUE ||
			    (k && d->q[k].queue <= d->q[k - 1].queue))
				abort();
		}
	}
}

static int same_vals(const struct profile_vals *a, const struct profile_vals *b)
{
	if (a->present != b->present)
		return 0;
	for (int k = 0; k < BQL_ATTR_NR; k++)
		if ((a->present & (1u << k)) && a->val[k] != b->val[k])
			return 0;
	return 1;
}

/* @b is @a re-read: same devices in the same order, same values */
static void same(const struct profile *a, const struct profile *b)
{
	if (a->hz != b->hz || strcmp(a->kernel, b->kernel) ||
	    strcmp(a->tool_version, b->tool_version) || a->ndev != b->ndev)
		abort();
	for (size_t i = 0; i < a->ndev; i++) {
		const struct profile_dev *x = &a->dev[i], *y = &b->dev[i];

		if (strcmp(x->ifname, y->ifname) || x->all != y->all ||
		    x->nq != y->nq || (x->all && !same_vals(&x->v, &y->v)))
			abort();
		for (size_t k = 0; k < x->nq; k++)
			if (x->q[k].queue != y->q[k].queue ||
			    !same_vals(&x->q[k].v, &y->q[k].v))
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile p, q;
	struct bql_err e;
	char *text, path[200];
	int ret;

	memset(&e, 0, sizeof(e));
	ret = profile_parse((const char *)data, size, &p, &e);
	if (ret) {
		if (ret >= 0 || !e.msg[0] || p.ndev || p.dev)
			abort();
		return 0;
	}
	check(&p);
	for (size_t i = 0; i < p.ndev; i++) {
		profile_path(path, sizeof(path), &p.dev[i], PROFILE_DEV, NULL);
		profile_path(path, sizeof(path), &p.dev[i], PROFILE_ALL, "hold_time");
		if (p.dev[i].nq)
			profile_path(path, sizeof(path), &p.dev[i], p.dev[i].nq - 1, "queue");
	}

	text = profile_to_json(&p);
	if (!text)
		abort();
	memset(&e, 0, sizeof(e));
	ret = profile_parse(text, strlen(text), &q, &e);
	if (ret) {
		fprintf(stderr, "fuzz_profile: re-reading a saved profile: %s\n%s", e.msg, text);
		abort();
	}
	same(&p, &q);
	profile_free(&q);
	free(text);
	profile_free(&p);
	return 0;
}
