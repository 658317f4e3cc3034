// SPDX-License-Identifier: GPL-2.0-only
/* The latency summaries of a recording (tlatency.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/io/tinput.h"
#include "lib/io/tlatency.h"

#define TLAT_LINE_MAX	4096	/* a longer line is no summary: skipped */

/* "key=N" at @s (up to @end): N into *@v; false if it is not that */
static bool kv(const char *s, const char *end, const char *key, uint64_t *v)
{
	size_t kl = strlen(key);
	uint64_t n = 0;
	const char *p;

	if ((size_t)(end - s) <= kl + 1 || memcmp(s, key, kl) || s[kl] != '=')
		return false;
	p = s + kl + 1;
	if (p == end || *p < '0' || *p > '9')
		return false;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (n > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return false;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	if (p != end)
		return false;
	*v = n;
	return true;
}

/* the next space-separated word of [*s, end): its bounds; false at the end */
static bool word(const char **s, const char *end, const char **w, const char **we)
{
	const char *p = *s;

	while (p < end && *p == ' ')
		p++;
	if (p == end)
		return false;
	*w = p;
	while (p < end && *p != ' ')
		p++;
	*we = p;
	*s = p;
	return true;
}

bool tlat_line(const char *line, size_t len, const char *kind, struct tlat_kind *k)
{
	static const char head[] = "# latency ";
	const char *s = line, *end = line + len, *w, *we;
	uint64_t p99 = 0, max = 0, count = 0;
	bool have_p99 = false, have_max = false, have_count = false;
	size_t kl = strlen(kind);

	if (len < sizeof(head) - 1 || memcmp(line, head, sizeof(head) - 1))
		return false;
	s += sizeof(head) - 1;
	if (!word(&s, end, &w, &we) || memchr(w, '=', (size_t)(we - w)))	/* QUEUE */
		return false;
	if (!word(&s, end, &w, &we) || (size_t)(we - w) != kl || memcmp(w, kind, kl))
		return false;
	while (word(&s, end, &w, &we)) {
		uint64_t v;

		if (kv(w, we, "p99", &v)) {
			p99 = v;
			have_p99 = true;
		} else if (kv(w, we, "max", &v)) {
			max = v;
			have_max = true;
		} else if (kv(w, we, "count", &v)) {
			count = v;
			have_count = true;
		}
	}
	if (!have_p99 || !have_max || !have_count || p99 > max)
		return false;
	if (!count)
		return true;	/* a queue with nothing measured */
	k->queues++;
	k->count += count;
	if (p99 > k->p99_ns)
		k->p99_ns = p99;
	if (max > k->max_ns)
		k->max_ns = max;
	return true;
}

int tlat_read(const char *path, const char *kind, struct tlat_kind *k, struct bql_err *e)
{
	char *buf = malloc(TLAT_LINE_MAX + 65536), *line;
	size_t have = 0;
	struct tinput *t = NULL;
	bool skip = false;	/* inside a line too long to be a summary */
	ssize_t n;
	int ret;

	memset(k, 0, sizeof(*k));
	if (!strcmp(path, "-")) {
		free(buf);
		return 0;
	}
	if (!buf)
		return bql_err_set(e, ENOMEM, "%s: out of memory", path);
	ret = tinput_open(&t, path, e);
	if (ret) {
		free(buf);
		return ret;
	}
	while ((n = tinput_read(t, buf + have, TLAT_LINE_MAX + 65536 - have, e)) > 0) {
		char *p = buf, *stop = buf + have + (size_t)n, *nl;

		while ((nl = memchr(p, '\n', (size_t)(stop - p)))) {
			line = p;
			if (!skip)
				tlat_line(line, (size_t)(nl - line), kind, k);
			skip = false;
			p = nl + 1;
		}
		have = (size_t)(stop - p);
		if (have >= TLAT_LINE_MAX) {	/* no summary: drop it, and its rest */
			skip = true;
			have = 0;
		}
		memmove(buf, p, have);
	}
	if (n == 0 && have && !skip)
		tlat_line(buf, have, kind, k);	/* a last line without its newline */
	ret = n < 0 ? (int)n : 0;
	tinput_close(t);
	free(buf);
	return ret;
}
