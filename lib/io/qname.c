// SPDX-License-Identifier: GPL-2.0-only
/*
 * The name, ifname and queue keys of every per-queue JSON object, for
 * device queues and trace names alike (lib/io/qname.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/io/jsonw.h"
#include "lib/io/out.h"
#include "lib/io/qname.h"

bool qname_split(const char *name, size_t *devlen, unsigned int *queue)
{
	const char *colon = strrchr(name, ':'), *p;
	uint64_t n = 0;

	if (!colon || colon == name || strncmp(colon + 1, "tx-", 3))
		return false;
	p = colon + 4;
	/* "tx-0", not "tx-", "tx-01", "tx-+1", "tx-1 " or "tx-1a" */
	if (*p < '0' || *p > '9' || (*p == '0' && p[1]))
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		n = n * 10 + (uint64_t)(*p - '0');
		if (n > UINT32_MAX)
			return false;
	}
	if (*p)
		return false;
	*devlen = (size_t)(colon - name);
	*queue = (unsigned int)n;
	return true;
}

void qname_out_queue(struct bql_ctx *c, const char *ifname, unsigned int queue)
{
	size_t n = strlen(ifname) + sizeof(":tx-4294967295");
	char small[64], *s;

	if (!out_is_json(c))
		return;
	s = n <= sizeof(small) ? small : malloc(n);
	if (s) {
		snprintf(s, n, "%s:tx-%u", ifname, queue);
		out_str(c, OUT_JSON, "name", NULL, s);
		if (s != small)
			free(s);
	} else {
		out_json(c, "name", NULL);	/* out of memory: nothing is printed */
	}
	out_str(c, OUT_JSON, "ifname", NULL, ifname);
	out_u64(c, OUT_JSON, "queue", NULL, queue);
}

void qname_out_dev(struct bql_ctx *c, const char *ifname)
{
	out_str(c, OUT_JSON, "name", NULL, ifname);
	out_str(c, OUT_JSON, "ifname", NULL, ifname);
	out_null(c, "queue");
}

void qname_out_trace(struct bql_ctx *c, const char *name)
{
	unsigned int q;
	size_t dl;

	out_str(c, OUT_JSON, "name", NULL, name);
	if (!out_is_json(c) || !qname_split(name, &dl, &q))
		return;
	out_json(c, "ifname", json_object_new_string_len(name, (int)dl));
	out_u64(c, OUT_JSON, "queue", NULL, q);
}

void qname_jsonw_trace(struct jsonw *w, const char *name)
{
	unsigned int q;
	size_t dl;

	jsonw_str(w, "name", name);
	if (!qname_split(name, &dl, &q))
		return;
	jsonw_strn(w, "ifname", name, dl);
	jsonw_u64(w, "queue", q);
}
