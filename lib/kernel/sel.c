// SPDX-License-Identifier: GPL-2.0-only
/* Selector parsing and resolution against the devices in sysfs. */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "lib/kernel/sel.h"

#define SEL_MAX_QUEUE 65535u	/* the kernel caps TX queues well below this */
#define CLIP 48			/* bytes of an argument quoted in a message */

/*
 * @s quoted in a message: at most CLIP bytes, cut at a character and
 * marked "...", so a 5000-byte selector leaves room for the reason
 * (bql_err holds 256 bytes).
 */
struct clip {
	char s[CLIP + 4];
};

static struct clip clip(const char *s)
{
	struct clip c;
	size_t n = strlen(s);

	if (n <= CLIP) {
		memcpy(c.s, s, n + 1);
		return c;
	}
	n = CLIP - 3;
	while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	memcpy(c.s, s, n);
	memcpy(c.s + n, "...", 4);
	return c;
}

static int parse_num(const char *s, const char **end, unsigned int *v)
{
	unsigned long x = 0;
	const char *p = s;

	if (!strncmp(p, "tx-", 3))
		p += 3;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		x = x * 10 + (unsigned long)(*p - '0');
		if (x > SEL_MAX_QUEUE)
			return -ERANGE;
	}
	*v = (unsigned int)x;
	*end = p;
	return 0;
}

static int parse_ranges(struct sel_item *it, const char *q, struct bql_err *e)
{
	size_t cap = 1;
	const char *p = q;

	for (const char *x = q; *x; x++)
		cap += *x == ',';
	it->ranges = calloc(cap, sizeof(*it->ranges));
	if (!it->ranges)
		return bql_err_set(e, ENOMEM, "out of memory");
	for (;;) {
		struct sel_range r;
		int ret = parse_num(p, &p, &r.lo);

		if (!ret) {
			r.hi = r.lo;
			if (*p == '-')
				ret = parse_num(p + 1, &p, &r.hi);
		}
		if (ret == -ERANGE)
			return bql_err_set(e, EINVAL, "selector '%s': queue number too large (max %u)",
					   clip(it->text).s, SEL_MAX_QUEUE);
		if (ret || (*p && *p != ','))
			return bql_err_set(e, EINVAL,
					   "selector '%s': bad queue list '%s' (expected N, tx-N, N-M or a comma list)",
					   clip(it->text).s, clip(q).s);
		if (r.hi < r.lo)
			return bql_err_set(e, EINVAL, "selector '%s': range %u-%u is backwards",
					   clip(it->text).s, r.lo, r.hi);
		it->ranges[it->nranges++] = r;
		if (!*p)
			return 0;
		p++;
	}
}

/*
 * The ':' that starts the queue list: the first one outside a bracket
 * expression of the glob ('[[:alpha:]]*:1' is the glob '[[:alpha:]]*' and
 * queue 1). A device name never holds ':' (the kernel's dev_valid_name).
 */
static const char *sel_colon(const char *s)
{
	for (const char *p = s; *p; p++) {
		const char *q;

		if (*p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (*p == ':')
			return p;
		if (*p != '[')
			continue;
		q = p + 1;
		if (*q == '!' || *q == '^')
			q++;
		if (*q == ']')
			q++;	/* a leading ']' is a member */
		while (*q && *q != ']') {
			if (*q == '[' && (q[1] == ':' || q[1] == '.' || q[1] == '=')) {
				const char *r = q + 2;

				while (*r && !(r[0] == q[1] && r[1] == ']'))
					r++;
				if (!*r)
					break;
				q = r + 2;
				continue;
			}
			q++;
		}
		if (*q == ']')
			p = q;	/* a whole bracket expression; else '[' is literal */
	}
	return NULL;
}

static int parse_one(struct sel_item *it, const char *arg, struct bql_err *e)
{
	const char *colon = sel_colon(arg);
	size_t dlen = colon ? (size_t)(colon - arg) : strlen(arg);

	it->text = arg;
	if (!dlen)
		return bql_err_set(e, EINVAL, "selector '%s': missing device name", clip(arg).s);
	it->glob = strcspn(arg, "*?[") < dlen;
	if (!it->glob && dlen >= BQL_IFNAMSIZ)
		return bql_err_set(e, EINVAL, "selector '%s': device name longer than %d bytes",
				   clip(arg).s, BQL_IFNAMSIZ - 1);
	if (dlen >= sizeof(it->pat))
		return bql_err_set(e, EINVAL, "selector '%s': device pattern longer than %zu bytes",
				   clip(arg).s, sizeof(it->pat) - 1);
	memcpy(it->pat, arg, dlen);
	it->pat[dlen] = '\0';
	if (!it->glob && !sysfs_valid_ifname(it->pat))
		return bql_err_set(e, EINVAL, "selector '%s': '%s' is not a valid device name",
				   clip(arg).s, clip(it->pat).s);
	if (it->glob && (strchr(it->pat, '/') || strchr(it->pat, ' ')))
		return bql_err_set(e, EINVAL, "selector '%s': '%s' is not a valid device pattern",
				   clip(arg).s, clip(it->pat).s);
	if (!colon)
		return 0;
	if (!colon[1])
		return bql_err_set(e, EINVAL,
				   "selector '%s': missing queue list after ':' (e.g. %s:0 or %s:0-3)",
				   clip(arg).s, clip(it->pat).s, clip(it->pat).s);
	return parse_ranges(it, colon + 1, e);
}

int sel_parse(struct sel *s, int argc, char *const *argv, struct bql_err *e)
{
	memset(s, 0, sizeof(*s));
	if (argc <= 0)
		return 0;
	s->items = calloc((size_t)argc, sizeof(*s->items));
	if (!s->items)
		return bql_err_set(e, ENOMEM, "out of memory");
	for (int i = 0; i < argc; i++) {
		int ret = parse_one(&s->items[i], argv[i], e);

		s->n++;
		if (ret) {
			sel_free(s);
			return ret;
		}
	}
	return 0;
}

void sel_free(struct sel *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->items[i].ranges);
	free(s->items);
	memset(s, 0, sizeof(*s));
}

void sel_result_free(struct sel_result *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->t[i].queues);
	free(r->t);
	memset(r, 0, sizeof(*r));
}

static bool item_matches(const struct sel_item *it, const char *name)
{
	return it->glob ? fnmatch(it->pat, name, 0) == 0 : !strcmp(it->pat, name);
}

/*
 * Mark the queues @it selects on a device with @ntx queues; *@hit is set
 * if it selects at least one.
 */
static int mark(const struct sel_item *it, unsigned char *want,
		unsigned int ntx, const char *dev, bool *hit, struct bql_err *e)
{
	if (!it->ranges) {
		memset(want, 1, ntx);
		*hit |= ntx > 0;
		return 0;
	}
	char missing[160] = "", have[40];
	size_t len = 0;
	bool several = false;

	for (size_t i = 0; i < it->nranges; i++) {
		const struct sel_range *r = &it->ranges[i];
		unsigned int lo = r->lo > ntx ? r->lo : ntx;

		if (r->hi >= ntx) {
			if (it->glob)	/* a glob asks "where it exists" */
				continue;
			/* name every queue asked for that is not there */
			several |= len > 0 || r->hi > lo;
			if (len < sizeof(missing) - 24)
				len += (size_t)snprintf(missing + len, sizeof(missing) - len,
							lo == r->hi ? "%s%u" : "%s%u-%u",
							len ? "," : "", lo, r->hi);
			if (r->lo >= ntx)
				continue;
		}
		memset(want + r->lo, 1, (r->hi < ntx ? r->hi : ntx - 1) - r->lo + 1);
		*hit = true;
	}
	if (!len)
		return 0;
	if (ntx == 1)
		snprintf(have, sizeof(have), "1: tx-0");
	else
		snprintf(have, sizeof(have), "%u: tx-0..tx-%u", ntx, ntx - 1);
	return bql_err_set(e, ERANGE, "%s: no TX queue%s %s (the device has %s)", dev,
			   several ? "s" : "", missing, have);
}

static int add_target(struct sel_result *r, const char *dev, int ifindex,
		      unsigned int ntx, const unsigned char *want,
		      struct bql_err *e)
{
	struct sel_target *t, *nt;
	unsigned int cnt = 0;

	for (unsigned int q = 0; q < ntx; q++)
		cnt += want[q];
	if (!cnt)
		return 0;
	nt = realloc(r->t, (r->n + 1) * sizeof(*r->t));
	if (!nt)
		return bql_err_set(e, ENOMEM, "out of memory");
	r->t = nt;
	t = &r->t[r->n];
	memset(t, 0, sizeof(*t));
	t->queues = malloc(cnt * sizeof(*t->queues));
	if (!t->queues)
		return bql_err_set(e, ENOMEM, "out of memory");
	snprintf(t->ifname, sizeof(t->ifname), "%s", dev);
	t->ifindex = ifindex;
	t->ntx = ntx;
	for (unsigned int q = 0; q < ntx; q++)
		if (want[q])
			t->queues[t->nqueues++] = q;
	r->n++;
	return 0;
}

int sel_resolve(const struct bql_ctx *c, const struct sel *s,
		struct sel_result *r, struct bql_err *e)
{
	struct sysfs_dev *devs = NULL;
	bool *used = NULL, *matched = NULL;
	unsigned int *most = NULL;	/* per item: most TX queues of a matched device */
	size_t ndev = 0;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = sysfs_list_devs(c, &devs, &ndev, e);
	if (ret)
		return ret;
	used = calloc(s->n ? s->n : 1, sizeof(*used));
	matched = calloc(s->n ? s->n : 1, sizeof(*matched));
	most = calloc(s->n ? s->n : 1, sizeof(*most));
	if (!used || !matched || !most) {
		ret = bql_err_set(e, ENOMEM, "out of memory");
		goto out;
	}
	/* Named (non-glob) devices must exist and use BQL. */
	for (size_t i = 0; i < s->n; i++) {
		const struct sel_item *it = &s->items[i];

		if (it->glob)
			continue;
		ret = sysfs_dev_check(c, it->pat, e);	/* absent, or leads out */
		if (ret)
			goto out;
		if (!sysfs_dev_has_bql(c, it->pat)) {
			ret = bql_err_set(e, EOPNOTSUPP,
					  "%s: device does not use BQL (no byte_queue_limits in its TX queues)",
					  it->pat);
			goto out;
		}
	}
	for (size_t d = 0; d < ndev; d++) {
		const char *name = devs[d].name;
		unsigned char *want = NULL;
		unsigned int ntx;
		bool any = !s->n, named;

		for (size_t i = 0; i < s->n && !any; i++)
			any = item_matches(&s->items[i], name);
		if (!any || !sysfs_dev_has_bql(c, name))
			continue;
		named = false;
		for (size_t i = 0; i < s->n && !named; i++)
			named = !s->items[i].glob && !strcmp(s->items[i].pat, name);
		ret = sysfs_count_txq(c, name, &ntx, e);
		if (ret == -ENODEV && !named) {
			ret = 0;	/* gone since the listing, and nobody asked for it */
			continue;
		}
		if (ret)
			goto out;
		want = calloc(ntx ? ntx : 1, 1);
		if (!want) {
			ret = bql_err_set(e, ENOMEM, "out of memory");
			goto out;
		}
		if (!s->n)
			memset(want, 1, ntx);
		for (size_t i = 0; i < s->n && !ret; i++) {
			if (!item_matches(&s->items[i], name))
				continue;
			matched[i] = true;
			if (ntx > most[i])
				most[i] = ntx;
			ret = mark(&s->items[i], want, ntx, name, &used[i], e);
		}
		if (!ret)
			ret = add_target(r, name, devs[d].ifindex, ntx, want, e);
		if (!ret && r->n && !strcmp(r->t[r->n - 1].ifname, name))
			r->t[r->n - 1].named = named;
		free(want);
		if (ret)
			goto out;
	}
	/* every selector must select something: a glob that picks no queue is an error */
	for (size_t i = 0; i < s->n; i++) {
		if (used[i])
			continue;
		if (matched[i])
			ret = bql_err_set(e, ERANGE,
					  "'%s': selects no TX queue (the devices it matches have at most %u: tx-0..tx-%u)",
					  clip(s->items[i].text).s, most[i], most[i] ? most[i] - 1 : 0);
		else
			ret = bql_err_set(e, ENODEV, "'%s': no device with BQL matches",
					  clip(s->items[i].text).s);
		goto out;
	}
out:
	free(most);
	free(matched);
	free(used);
	free(devs);
	if (ret)
		sel_result_free(r);
	return ret;
}

bool sel_target_vanished(const struct bql_ctx *c, const struct sel_target *t, int ret)
{
	char path[4096];
	uint64_t idx;

	if (t->named || (ret != -ENODEV && ret != -ENOENT && ret != -EOPNOTSUPP))
		return false;
	if (ret == -ENODEV || !sysfs_dev_exists(c, t->ifname))
		return true;
	/*
	 * A queue or its byte_queue_limits gone, the device still there:
	 * being unregistered (its queues go first, and its attributes no
	 * longer read: EINVAL from
	 * netdev_show() once it is not alive), or its name now another
	 * device's (another ifindex). Only the same device, alive, with
	 * fewer queues (ethtool -L) is an error.
	 */
	if (sysfs_dev_path(c, path, sizeof(path), t->ifname, "ifindex") ||
	    sysfs_read_u64(c, path, &idx, t->ifname, NULL))
		return true;
	return t->ifindex > 0 && idx != (uint64_t)t->ifindex;
}
