// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool set SEL key=value... and bqltool reset SEL...: validated as the
 * kernel validates, written all-or-nothing with rollback. Also the write
 * path apply shares (cmd/plan_cmd.h).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/common.h"
#include "cmd/plan_cmd.h"
#include "dql/dql.h"
#include "lib/kernel/hz.h"
#include "lib/io/out.h"
#include "lib/io/qname.h"
#include "lib/model/plan.h"
#include "lib/model/rules.h"
#include "lib/kernel/sysfs.h"
#include "lib/io/units.h"
#include "lib/kernel/wlock.h"

/* ------------------------------------------------ shared write path */

unsigned int cmd_plan_hz(struct bql_ctx *c, bool ms_keys)
{
	const struct hz_info *hz = hz_get();

	if (ms_keys && hz->src == HZ_SRC_FALLBACK)
		cmd_warn(c, "the kernel's HZ is unknown (no kernel config found), assuming %u: ms values may round differently; set BQLTOOL_HZ",
			 hz->hz);
	else if (c->verbose && ms_keys)
		cmd_note(c, "HZ=%u (%s)", hz->hz, hz_source_name(hz->src));
	return hz->hz;
}

void cmd_plan_warn_rounding(struct bql_ctx *c, const char *what,
			    enum bql_attr a, const struct plan_value *pv,
			    unsigned int hz)
{
	if (pv->shown == pv->req)
		return;
	cmd_warn(c, "%s: the kernel keeps %s in jiffies (HZ=%u): %" PRIu64 " ms is %" PRIu64
		 " %s and will read back as %" PRIu64 " ms",
		 what, bql_attrs[a].name, hz, pv->req, pv->jiffies,
		 pv->jiffies == 1 ? "jiffy" : "jiffies", pv->shown);
}

/* human text, as show prints it: the one formatter */
void cmd_plan_fmt(char *buf, size_t n, enum bql_attr a, uint64_t v)
{
	bql_fmt_human(buf, n, a, v, hz_get()->hz);
}

/* ---------------------------------------------- grouped write reports */

/*
 * A queue list as the reports print it: "tx-3", "tx-0..7", "tx-0..3,5,9..11"
 * (@q ascending). Returns a malloc'ed string, NULL when out of memory.
 */
char *cmd_queue_list(const unsigned int *q, size_t n)
{
	size_t cap = 8 + n * 24, k = 0;
	char *buf = malloc(cap);

	if (!buf)
		return NULL;
	k += (size_t)snprintf(buf, cap, "tx-");
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && q[j + 1] == q[j] + 1)
			j++;
		k += (size_t)snprintf(buf + k, cap - k, "%s%u", i ? "," : "", q[i]);
		if (j > i)
			k += (size_t)snprintf(buf + k, cap - k, "..%u", q[j]);
		i = j + 1;
	}
	return buf;
}

/* items of a plan compared by what a report line says: device, key, old, new */
static const struct plan_item *sort_items;

static int item_cmp(const void *a, const void *b)
{
	const struct plan_item *x = &sort_items[*(const size_t *)a];
	const struct plan_item *y = &sort_items[*(const size_t *)b];
	int r = strcmp(x->ifname, y->ifname);

	if (r)
		return r;
	if (x->attr != y->attr)
		return x->attr < y->attr ? -1 : 1;
	if (x->old != y->old)
		return x->old < y->old ? -1 : 1;
	if (x->v.shown != y->v.shown)
		return x->v.shown < y->v.shown ? -1 : 1;
	if (x->queue != y->queue)
		return x->queue < y->queue ? -1 : 1;
	return 0;
}

struct report_group {
	size_t first, n;	/* into the sorted index */
	size_t dev_order;	/* the plan's first item of the device */
	size_t key_order;	/* ... of the device and key */
	unsigned int queue;	/* the group's first queue */
};

/* devices and keys in the order the plan names them, then by queue */
static int group_cmp(const void *a, const void *b)
{
	const struct report_group *x = a, *y = b;

	if (x->dev_order != y->dev_order)
		return x->dev_order < y->dev_order ? -1 : 1;
	if (x->key_order != y->key_order)
		return x->key_order < y->key_order ? -1 : 1;
	return x->queue < y->queue ? -1 : x->queue > y->queue;
}

/*
 * One line per device, key and change: "i0:tx-0..7 hold_time: 1 s -> 100 ms",
 * in the order the plan first names them. -ENOMEM if the grouping cannot
 * be built (the caller prints per queue).
 */
static int print_grouped(struct bql_ctx *c, const struct plan *p)
{
	struct report_group *g = NULL;
	size_t *idx = malloc((p->n ? p->n : 1) * sizeof(*idx));
	unsigned int *q = malloc((p->n ? p->n : 1) * sizeof(*q));
	size_t n = 0, ng = 0;

	if (!idx || !q)
		goto oom;
	for (size_t i = 0; i < p->n; i++)
		if (p->it[i].state != PLAN_UNCHANGED)
			idx[n++] = i;
	sort_items = p->it;
	qsort(idx, n, sizeof(*idx), item_cmp);
	g = malloc((n ? n : 1) * sizeof(*g));
	if (!g)
		goto oom;
	for (size_t i = 0; i < n;) {
		const struct plan_item *a = &p->it[idx[i]];
		size_t j = i + 1;

		for (; j < n; j++) {
			const struct plan_item *b = &p->it[idx[j]];

			if (strcmp(a->ifname, b->ifname) || a->attr != b->attr ||
			    a->old != b->old || a->v.shown != b->v.shown)
				break;
		}
		g[ng++] = (struct report_group){ i, j - i, SIZE_MAX, SIZE_MAX, a->queue };
		i = j;
	}
	/* a device's groups are contiguous, and so are a key's within it */
	for (size_t k0 = 0, k1; k0 < ng; k0 = k1) {
		const struct plan_item *a = &p->it[idx[g[k0].first]];
		size_t dmin = SIZE_MAX;

		for (k1 = k0; k1 < ng && !strcmp(p->it[idx[g[k1].first]].ifname, a->ifname); k1++)
			for (size_t m = 0; m < g[k1].n; m++)
				dmin = idx[g[k1].first + m] < dmin ? idx[g[k1].first + m] : dmin;
		for (size_t k = k0, e1; k < k1; k = e1) {
			enum bql_attr at = p->it[idx[g[k].first]].attr;
			size_t kmin = SIZE_MAX;

			for (e1 = k; e1 < k1 && p->it[idx[g[e1].first]].attr == at; e1++)
				for (size_t m = 0; m < g[e1].n; m++)
					kmin = idx[g[e1].first + m] < kmin ? idx[g[e1].first + m] : kmin;
			for (size_t x = k; x < e1; x++) {
				g[x].dev_order = dmin;
				g[x].key_order = kmin;
			}
		}
	}
	qsort(g, ng, sizeof(*g), group_cmp);
	for (size_t k = 0; k < ng; k++) {
		const struct plan_item *a = &p->it[idx[g[k].first]];
		char o[32], nw[32], *list;

		for (size_t m = 0; m < g[k].n; m++)
			q[m] = p->it[idx[g[k].first + m]].queue;
		list = cmd_queue_list(q, g[k].n);
		if (!list)
			goto oom;
		cmd_plan_fmt(o, sizeof(o), a->attr, a->old);
		cmd_plan_fmt(nw, sizeof(nw), a->attr, a->v.shown);
		out_text(c, "%s:%s %s: %s -> %s\n", a->ifname, list, bql_attrs[a->attr].name, o, nw);
		free(list);
	}
	free(g);
	free(q);
	free(idx);
	return 0;
oom:
	free(g);
	free(q);
	free(idx);
	return -ENOMEM;
}

/*
 * old -> new: text lines for the files that change, one per device, key
 * and change (every file, one line each, with -v; none when quiet), or a
 * JSON array of every file (dry runs marked)
 */
static int plan_print(struct bql_ctx *c, const struct plan *p, bool dry_run, bool quiet)
{
	size_t nchanged = 0;
	bool grouped = false;

	out_begin(c, true);
	for (size_t i = 0; i < p->n; i++)
		nchanged += p->it[i].state != PLAN_UNCHANGED;
	if (!c->json && !quiet && !c->verbose)
		grouped = !print_grouped(c, p);
	for (size_t i = 0; i < p->n && !grouped; i++) {
		const struct plan_item *it = &p->it[i];
		bool changed = it->state != PLAN_UNCHANGED;
		char o[32], n[32];

		if (c->json) {
			out_open_obj(c, NULL);
			qname_out_queue(c, it->ifname, it->queue);
			out_str(c, OUT_JSON, "key", NULL, bql_attrs[it->attr].name);
			out_u64(c, OUT_JSON, "old", NULL, it->old);
			out_u64(c, OUT_JSON, "new", NULL, it->v.shown);
			out_bool(c, OUT_JSON, "changed", NULL, changed);
			if (dry_run)
				out_bool(c, OUT_JSON, "dry_run", NULL, true);
			out_close_obj(c);
			continue;
		}
		if (quiet || (!changed && !c->verbose))
			continue;
		cmd_plan_fmt(o, sizeof(o), it->attr, it->old);
		cmd_plan_fmt(n, sizeof(n), it->attr, it->v.shown);
		if (changed)
			out_text(c, "%s:tx-%u %s: %s -> %s\n", it->ifname, it->queue,
				 bql_attrs[it->attr].name, o, n);
		else
			out_text(c, "%s:tx-%u %s: %s (unchanged)\n", it->ifname, it->queue,
				 bql_attrs[it->attr].name, o);
	}
	if (!c->json && !quiet && !nchanged && p->n)
		fprintf(stderr, "bqltool: %s: nothing to change: every value is in place%s\n",
			c->cmd, c->verbose ? "" : " (-v lists them)");
	return cmd_output_done(c, out_end(c));
}

/*
 * The settings rules check applies (lib/model/rules.c), on each queue's values
 * as the plan leaves them, for queues whose limit_min or limit_max the
 * plan writes: what check would fail is refused (exit 2) unless @force,
 * what it would warn about is a warning. One line per rule, naming the
 * first queue and how many others.
 */
static int plan_rules(struct bql_ctx *c, const struct plan *p, bool force)
{
	struct { struct rule_hit hit; char where[BQL_IFNAMSIZ + 16]; size_t n; } seen[4];
	size_t nseen = 0, nfail = 0;
	struct utsname u;
	const char *rel = c->root_overridden || uname(&u) ? NULL : u.release;

	for (size_t i = 0; i < p->nq; i++) {
		const struct plan_queue *q = &p->q[i];
		struct bql_queue after = q->before;
		struct rule_hit hits[RULES_MAX];
		bool bounds = false;
		int n;

		for (size_t k = 0; k < p->n; k++) {
			const struct plan_item *it = &p->it[k];

			if (it->queue != q->queue || strcmp(it->ifname, q->ifname))
				continue;
			after.val[it->attr] = it->v.shown;
			after.present |= 1u << it->attr;
			bounds |= it->attr == BQL_LIMIT_MIN || it->attr == BQL_LIMIT_MAX;
		}
		if (!bounds)
			continue;
		n = rules_settings(&after, sysfs_dev_mtu(c, q->ifname), rel, hits);
		for (int h = 0; h < n; h++) {
			size_t k;

			for (k = 0; k < nseen && strcmp(seen[k].hit.code, hits[h].code); k++)
				;
			if (k == nseen) {
				if (nseen == sizeof(seen) / sizeof(seen[0]))
					continue;
				seen[k].hit = hits[h];
				snprintf(seen[k].where, sizeof(seen[k].where), "%s:tx-%u",
					 q->ifname, q->queue);
				seen[k].n = 0;
				nseen++;
			}
			seen[k].n++;
		}
	}
	for (size_t k = 0; k < nseen; k++) {
		char others[48] = "";

		if (seen[k].n > 1)
			snprintf(others, sizeof(others), " (and %zu other queue%s)", seen[k].n - 1,
				 seen[k].n > 2 ? "s" : "");
		if (seen[k].hit.level == RULE_FAIL && !force) {
			cmd_info(c, "%s%s: %s; 'bqltool check' fails this, so it "
				 "is refused (--force writes it anyway)", seen[k].where,
				 others, seen[k].hit.msg);
			nfail++;
		} else {
			cmd_warn(c, "%s%s: %s%s", seen[k].where, others, seen[k].hit.msg,
				 seen[k].hit.level == RULE_FAIL ? " ('bqltool check' fails this)" : "");
		}
	}
	if (nfail)
		return cmd_usage(c, "nothing was written");
	return BQL_EXIT_OK;
}

/*
 * The writes of device @dev (the plan's items from @from) that could not be
 * undone: one line with their count, keys and queues, and the first one's
 * reason (a device deleted meanwhile fails every file alike). -v lists each.
 */
static void report_lost_dev(struct bql_ctx *c, const struct plan *p, size_t from)
{
	const char *dev = p->it[from].ifname;
	const struct plan_item *first = NULL;
	unsigned int *q = malloc(p->n * sizeof(*q));
	char keys[96] = "", o[32], n[32], *list = NULL;
	uint32_t seen_keys = 0;
	size_t cnt = 0, nq = 0, k;

	for (size_t i = from; i < p->n; i++) {
		const struct plan_item *it = &p->it[i];

		if (strcmp(it->ifname, dev) || it->write_failed || it->state != PLAN_RESTORE_FAILED)
			continue;
		if (!first)
			first = it;
		cnt++;
		seen_keys |= 1u << it->attr;
		if (q) {
			for (k = 0; k < nq && q[k] != it->queue; k++)
				;
			if (k == nq)
				q[nq++] = it->queue;
		}
	}
	if (!first) {
		free(q);
		return;
	}
	cmd_plan_fmt(o, sizeof(o), first->attr, first->old);
	cmd_plan_fmt(n, sizeof(n), first->attr, first->v.shown);
	if (cnt == 1 || c->verbose || !q) {
		for (size_t i = from; i < p->n; i++) {
			const struct plan_item *it = &p->it[i];

			if (strcmp(it->ifname, dev) || it->write_failed ||
			    it->state != PLAN_RESTORE_FAILED)
				continue;
			cmd_plan_fmt(o, sizeof(o), it->attr, it->old);
			cmd_plan_fmt(n, sizeof(n), it->attr, it->v.shown);
			cmd_fail(c, "rollback failed: %s:tx-%u: %s is now %s, was %s: %s",
				 it->ifname, it->queue, bql_attrs[it->attr].name, n, o,
				 it->err ? it->err : "?");
		}
		free(q);
		return;
	}
	for (int a = 0; a < BQL_ATTR_NR; a++)
		if (seen_keys & (1u << a))
			snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "%s%s",
				 keys[0] ? ", " : "", bql_attrs[a].name);
	for (size_t i = 1; i < nq; i++)	/* insertion sort: few unsorted */
		for (k = i; k > 0 && q[k - 1] > q[k]; k--) {
			unsigned int t = q[k];

			q[k] = q[k - 1];
			q[k - 1] = t;
		}
	list = cmd_queue_list(q, nq);
	cmd_fail(c, "rollback failed: %s:%s: %zu writes (%s) could not be undone; the first, "
		 "%s:tx-%u: %s is now %s, was %s: %s (-v lists each)", dev, list ? list : "tx-?",
		 cnt, keys, dev, first->queue, bql_attrs[first->attr].name, n, o,
		 first->err ? first->err : "?");
	free(list);
	free(q);
}

static void report_failure(struct bql_ctx *c, const struct plan *p,
			   const struct bql_err *e)
{
	size_t restored = 0, lost = 0;

	cmd_error(c, e);
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_item *it = &p->it[i];
		char o[32];

		if (it->write_failed) {
			/* the failed write itself: restored if it changed the file */
			cmd_plan_fmt(o, sizeof(o), it->attr, it->old);
			if (it->state == PLAN_RESTORED)
				cmd_warn(c, "%s:tx-%u: %s: the failed write changed it: restored to %s",
					 it->ifname, it->queue, bql_attrs[it->attr].name, o);
			else if (it->state == PLAN_RESTORE_FAILED)
				cmd_fail(c, "rollback failed: %s:tx-%u: %s: the failed write changed it and it could not be restored to %s: %s",
					 it->ifname, it->queue, bql_attrs[it->attr].name, o,
					 it->err ? it->err : "?");
			lost += it->state == PLAN_RESTORE_FAILED;
			continue;
		}
		restored += it->state == PLAN_RESTORED;
		lost += it->state == PLAN_RESTORE_FAILED;
		/* a device's first item: its lost writes, in one line */
		if (!i || strcmp(p->it[i - 1].ifname, it->ifname)) {
			size_t k;

			for (k = 0; k < i && strcmp(p->it[k].ifname, it->ifname); k++)
				;
			if (k == i)
				report_lost_dev(c, p, i);
		}
	}
	if (lost)
		cmd_fail(c, "%zu of %zu writes could not be undone (listed above)",
			 lost, lost + restored);
	else if (restored)
		cmd_fail(c, "undid the %zu earlier write%s: nothing was changed", restored,
			 restored > 1 ? "s" : "");
	else
		cmd_fail(c, "nothing was changed");
}

/*
 * The write lock (lib/kernel/wlock.h) for @p's writes, and the old values read
 * again under it: what another writer did before is the old value now.
 */
static int plan_lock(struct bql_ctx *c, struct plan *p, const struct plan_opts *po,
		     struct wlock *lk)
{
	struct bql_err e;

	if (wlock_take(c, c->cmd, po->wait, lk, &e)) {
		if (e.code == EBUSY) {
			cmd_error(c, &e);
			return BQL_EXIT_FAIL;
		}
		/*
		 * no lock can be made here (no /run, a symlink or a file in
		 * its way): write as before there was one, but say so, -v or
		 * not; a user without the right to make it (writing a
		 * --sysfs-root tree of their own) hears it with -v only
		 */
		if ((e.code == EACCES || e.code == EPERM) && geteuid()) {
			if (c->verbose)
				cmd_note(c, "%s: writing without the lock", e.msg);
		} else {
			cmd_warn(c, "%s: writing without the lock (another bqltool writing now could leave a mix)",
				 e.msg);
		}
	}
	if (plan_read(c, p, &e)) {
		cmd_error(c, &e);
		wlock_release(lk);
		return BQL_EXIT_FAIL;
	}
	return BQL_EXIT_OK;
}

int cmd_plan_commit(struct bql_ctx *c, struct plan *p, const struct plan_opts *po)
{
	struct wlock lk = { .fd = -1 };
	struct bql_err e;
	int ret;

	if (!po->dry_run) {
		ret = plan_lock(c, p, po, &lk);
		if (ret)
			return ret;
	}
	ret = plan_rules(c, p, po->force);
	if (ret)
		goto out;
	if (po->dry_run) {
		ret = plan_print(c, p, true, po->quiet);
		if (!c->json && !ret)
			fprintf(stderr, "bqltool: %s: dry run: nothing was written\n", c->cmd);
		return ret;
	}
	if (plan_pending(p)) {
		if (plan_check_access(c, p, &e)) {
			cmd_error(c, &e);
			ret = BQL_EXIT_FAIL;
			goto out;
		}
		if (plan_execute(c, p, &e)) {
			report_failure(c, p, &e);
			ret = BQL_EXIT_FAIL;
			goto out;
		}
	}
	wlock_release(&lk);
	return plan_print(c, p, false, po->quiet);
out:
	wlock_release(&lk);
	return ret;
}

/* ------------------------------------------------ set and reset */

struct assign {
	enum bql_attr attr;
	const char *arg;	/* "limit_min=64K" as typed */
	struct plan_value v;
};

static int parse_assign(struct bql_ctx *c, char *arg, unsigned int hz,
			struct assign *as, uint32_t *seen)
{
	char *eq = strchr(arg, '='), key[32];
	const char *val = eq + 1;
	struct bql_err e;
	uint64_t v;
	size_t klen = (size_t)(eq - arg);
	int a, ret;

	if (!klen)
		return cmd_usage(c, "'%s': missing key before '='", arg);
	if (klen >= sizeof(key))
		return cmd_usage(c, "'%s': unknown key", arg);
	memcpy(key, arg, klen);
	key[klen] = '\0';
	a = bql_attr_find(key);
	if (a < 0)
		return cmd_usage(c, "'%s': unknown key '%s' (expected limit_min, limit_max, hold_time, stall_thrs, limit or stall_max=0)",
				 arg, key);
	if (!bql_attrs[a].writable)
		return cmd_usage(c, "'%s': %s is read-only", arg, key);
	if (*seen & (1u << a))
		return cmd_usage(c, "'%s': %s is given twice", arg, key);
	*seen |= 1u << a;
	if (!*val)
		return cmd_usage(c, "'%s': missing value after '='", arg);
	if (bql_attrs[a].unit == UNIT_BYTES)
		ret = units_parse_bytes(key, val, DQL_MAX_LIMIT, &v, &e);
	else if (a == BQL_STALL_THRS && !strcmp(val, "off"))
		ret = v = 0;	/* as show prints 0 */
	else if (a == BQL_STALL_MAX)
		ret = units_parse_arg_u64(val, &v) ?
		      bql_err_set(&e, EINVAL, "%s: stall_max can only be cleared: write 0", arg) : 0;
	else
		ret = units_parse_ms(key, val, &v, &e);
	if (!ret)
		ret = plan_value(a, v, hz, arg, &as->v, &e);
	if (ret)
		return cmd_usage(c, "%s", e.msg);
	as->attr = a;
	as->arg = arg;
	cmd_plan_warn_rounding(c, arg, a, &as->v, hz);
	return 0;
}

/* every selected queue x every assignment, queue by queue */
static int build(struct bql_ctx *c, struct plan *p, const struct sel_result *t,
		 const struct assign *as, size_t nas)
{
	struct bql_err e;

	for (size_t d = 0; d < t->n; d++) {
		for (unsigned int k = 0; k < t->t[d].nqueues; k++) {
			for (size_t i = 0; i < nas; i++) {
				/* stall_thrs=0 is what a kernel without it does;
				 * one without stall_max has nothing to clear */
				bool opt = (as[i].attr == BQL_STALL_THRS && !as[i].v.req) ||
					   as[i].attr == BQL_STALL_MAX;

				if (plan_add(p, t->t[d].ifname, t->t[d].queues[k], as[i].attr,
					     &as[i].v, opt, &e)) {
					cmd_error(c, &e);
					return BQL_EXIT_FAIL;
				}
			}
		}
	}
	if (plan_read(c, p, &e)) {
		cmd_error(c, &e);
		return BQL_EXIT_FAIL;
	}
	return BQL_EXIT_OK;
}

static int write_run(struct bql_ctx *c, int argc, char **argv, bool reset)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'D' },
		{ "force", no_argument, NULL, 'F' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "wait", no_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 },
	};
	struct assign as[BQL_ATTR_NR];
	struct cmd_state st;
	struct plan p;
	struct plan_opts po = { 0 };
	bool ms_keys = false;
	uint32_t seen = 0;
	size_t nas = 0;
	int nsel = 0, opt, ret;
	unsigned int hz;

	while ((opt = cmd_getopt(c, argc, argv, ":q", opts)) != -1) {
		switch (opt) {
		case 'D':
			po.dry_run = true;
			break;
		case 'F':
			if (reset)	/* the defaults break no rule: nothing to force */
				return cmd_usage(c, "--force: not an option of reset");
			po.force = true;
			break;
		case 'q':
			po.quiet = true;
			break;
		case 'W':
			po.wait = true;
			break;
		default:
			return cmd_bad_option(c, opt, argv);
		}
	}
	for (int i = optind; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (reset && eq)
			return cmd_usage(c, "'%s': reset takes no values (it writes the kernel defaults)",
					 argv[i]);
		if (eq)
			ms_keys |= !strncmp(argv[i], "hold_time=", 10) ||
				   !strncmp(argv[i], "stall_thrs=", 11);
		else
			nsel++;
	}
	if (!nsel)
		return cmd_usage(c, "which queues? give a selector (DEV, DEV:0-3, 'eth*')");
	hz = cmd_plan_hz(c, reset || ms_keys);
	if (reset) {
		static const struct { enum bql_attr a; uint64_t v; } defs[] = {
			{ BQL_LIMIT_MIN, PLAN_DEFAULT_LIMIT_MIN },
			{ BQL_LIMIT_MAX, DQL_MAX_LIMIT },
			{ BQL_HOLD_TIME, PLAN_DEFAULT_HOLD_TIME },
			{ BQL_STALL_THRS, PLAN_DEFAULT_STALL_THRS },
			{ BQL_STALL_MAX, 0 },	/* cleared, as at boot */
		};

		for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++) {
			struct bql_err e;

			as[nas].attr = defs[i].a;
			as[nas].arg = bql_attrs[defs[i].a].name;
			if (plan_value(defs[i].a, defs[i].v, hz, as[nas].arg, &as[nas].v, &e))
				return cmd_fail(c, "%s", e.msg);
			nas++;
		}
	} else {
		for (int i = optind; i < argc; i++) {
			if (!strchr(argv[i], '='))
				continue;
			ret = parse_assign(c, argv[i], hz, &as[nas], &seen);
			if (ret)
				return ret;
			nas++;
		}
		if (!nas)
			return cmd_usage(c, "nothing to set: give key=value (limit_min, limit_max, hold_time, stall_thrs, limit, stall_max=0)");
	}
	/* the selectors, in order, to the front (assignments are parsed) */
	nsel = 0;
	for (int i = optind; i < argc; i++)
		if (!strchr(argv[i], '='))
			argv[optind + nsel++] = argv[i];
	ret = cmd_select(c, nsel, argv + optind, &st);
	if (ret)
		return ret;
	plan_init(&p, hz);
	ret = build(c, &p, &st.targets, as, nas);
	if (!ret)
		ret = cmd_plan_commit(c, &p, &po);
	plan_free(&p);
	cmd_state_free(&st);
	return ret;
}

static int set_run(struct bql_ctx *c, int argc, char **argv)
{
	return write_run(c, argc, argv, false);
}

static int reset_run(struct bql_ctx *c, int argc, char **argv)
{
	return write_run(c, argc, argv, true);
}

const struct cmd_entry cmd_set_entry = {
	.name = "set",
	.synopsis = "set [--dry-run] [--force] [--wait] [-q] SEL... KEY=VALUE...",
	.summary = "Change limit_min, limit_max, hold_time or stall_thrs, all-or-nothing",
	.help = "      --dry-run   print old -> new for every file that changes, write nothing\n"
		"  -q, --quiet     print nothing on success (-v: unchanged files too)\n"
		"      --force     write settings that 'bqltool check' fails (limit_min above\n"
		"                  limit_max); refused otherwise\n"
		"      --wait      wait for another bqltool writing in this namespace (else\n"
		"                  that is an error, exit 1)\n"
		"\nset and check share one set of rules on limit_min and limit_max: what\n"
		"check fails (limit_min > limit_max) set refuses unless --force, what check\n"
		"warns about (limit_max below one full-size frame, MTU + 14) set warns about.\n"
		"\nKeys: limit_min, limit_max (bytes: 1514, 64K, 1.5M, 64KiB, 2G; 1024-based;\n"
		"'max' = 1879048192), hold_time, stall_thrs (ms: 500, 500ms, 1s, 1.5s;\n"
		"0 or 'off' = off), limit (DQL moves it again at the next completion) and\n"
		"stall_max=0, which clears the longest stall seen (only 0 is meaningful:\n"
		"the kernel clears it whatever is written, so other values are refused).\n"
		"Values are checked as the kernel checks them before anything is written:\n"
		"limits up to 1879048192, stall_thrs 0 or 4..128 jiffies (the ms range\n"
		"depends on HZ). hold_time and stall_thrs are kept in jiffies, so a ms value\n"
		"may read back rounded (a warning says so). Every old value is read first;\n"
		"if a write fails, the ones already done are undone in reverse order.\n"
		"One writer at a time per network namespace (a lock in /run/bqltool): the\n"
		"old values are read under it, so two writers never leave a mix.\n"
		"Files that already hold the value are not written (-v shows them).\n"
		"Output: one line per device, key and change (old -> new, in show's units;\n"
		"-v: one per file), or -j\n"
		"an array of {ifname, queue, key, old, new, changed} in sysfs units, each\n"
		"with \"dry_run\": true under --dry-run. Needs root.\n",
	.flags = CMD_WRITES,
	.run = set_run,
};

const struct cmd_entry cmd_reset_entry = {
	.name = "reset",
	.synopsis = "reset [--dry-run] [--wait] [-q] SEL...",
	.summary = "Restore the kernel defaults of TX queues, all-or-nothing",
	.help = "      --dry-run   print old -> new for every file that changes, write nothing\n"
		"  -q, --quiet     print nothing on success (-v: unchanged files too)\n"
		"      --wait      wait for another bqltool writing in this namespace\n"
		"\nWrites the defaults of dql_init(): limit_min 0, limit_max max (1879048192),\n"
		"hold_time 1000 ms and stall_thrs 0 (off, where the kernel has it), and clears\n"
		"stall_max (where the kernel has it), with the\n"
		"guarantees of set: validated first, all-or-nothing, rolled back on failure.\n",
	.flags = CMD_WRITES,
	.run = reset_run,
};
