// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for the profile path with duplicate keys and deep
 * nesting. The first byte picks a mode:
 *   even: the rest is JSON text; jscan_check() and profile_parse() must
 *	   not crash whatever it holds (jscan is robust on any bytes).
 *   odd:  the rest drives a generator of profiles whose objects draw their
 *	   keys from small sets (so duplicates are frequent) and whose values
 *	   nest objects and arrays up to 40 deep (past json-c's 32). The
 *	   generator knows whether it wrote a duplicate key; jscan_check() on
 *	   text json-c accepts must report one exactly then, and
 *	   profile_parse() must refuse such a profile.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/io/jscan.h"
#include "lib/model/profile.h"

struct gen {
	const uint8_t *d;
	size_t n, i;
	char *out;
	size_t len, cap;
	bool dup;
};

static unsigned int take(struct gen *g)
{
	return g->i < g->n ? g->d[g->i++] : 0;
}

static void emit(struct gen *g, const char *s)
{
	size_t l = strlen(s);

	if (g->len + l + 1 > g->cap) {
		g->cap = (g->len + l + 1) * 2;
		g->out = realloc(g->out, g->cap);
		if (!g->out)
			abort();
	}
	memcpy(g->out + g->len, s, l + 1);
	g->len += l;
}

static const char *const keys[] = {
	"limit_min", "limit_max", "hold_time", "stall_thrs", "queue",
	"all", "queues", "eth0", "eth1", "\\u0065th0", "e\\u001b", "",
};
/* the key each spelling decodes to, for the generator's own bookkeeping */
static const char *const decoded[] = {
	"limit_min", "limit_max", "hold_time", "stall_thrs", "queue",
	"all", "queues", "eth0", "eth1", "eth0", "e\x1b", "",
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static void value(struct gen *g, int depth);

/* an object of 0-5 keys drawn from keys[]; remembers duplicates */
static void object(struct gen *g, int depth)
{
	unsigned int n = take(g) % 6;
	const char *seen[6];

	emit(g, "{");
	for (unsigned int k = 0; k < n; k++) {
		unsigned int ki = take(g) % NKEYS;

		for (unsigned int j = 0; j < k; j++)
			if (!strcmp(seen[j], decoded[ki]))
				g->dup = true;
		seen[k] = decoded[ki];
		emit(g, k ? ",\"" : "\"");
		emit(g, keys[ki]);
		emit(g, "\":");
		value(g, depth + 1);
	}
	emit(g, "}");
}

static void value(struct gen *g, int depth)
{
	unsigned int kind = take(g) % 5;
	char num[24];

	if (depth >= 40 || g->i >= g->n)
		kind = 4;
	switch (kind) {
	case 0:
	case 1:
		object(g, depth);
		break;
	case 2: {
		unsigned int n = take(g) % 4;

		emit(g, "[");
		for (unsigned int k = 0; k < n; k++) {
			if (k)
				emit(g, ",");
			value(g, depth + 1);
		}
		emit(g, "]");
		break;
	}
	case 3:
		emit(g, "\"s\"");
		break;
	default:
		snprintf(num, sizeof(num), "%u", take(g));
		emit(g, num);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gen g = { .d = data + 1, .n = size ? size - 1 : 0 };
	struct json_object *o;
	struct bql_err e;
	struct profile p;
	int ret;

	if (!size)
		return 0;
	if (!(data[0] & 1)) {
		ret = jscan_check((const char *)data + 1, size - 1, &e);
		if (ret && ret != -EINVAL && ret != -ENOMEM)
			abort();
		if (!profile_parse((const char *)data + 1, size - 1, &p, &e))
			profile_free(&p);
		return 0;
	}
	/* a profile: the generated devices object inside a valid envelope */
	emit(&g, "{\"bqltool_profile\":1,\"devices\":");
	object(&g, 1);
	emit(&g, "}");
	o = json_tokener_parse(g.out);
	if (o) {
		memset(&e, 0, sizeof(e));
		ret = jscan_check(g.out, g.len, &e);
		if (g.dup != (ret == -EINVAL) ||
		    (ret && !strstr(e.msg, "duplicate key")) || (!ret && e.msg[0]))
			abort();
		json_object_put(o);
	}
	ret = profile_parse(g.out, g.len, &p, &e);
	if (!ret) {
		if (g.dup)
			abort();	/* a duplicate was accepted */
		profile_free(&p);
	}
	free(g.out);
	return 0;
}
