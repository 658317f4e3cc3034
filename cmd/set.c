// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool set SEL key=value... and bqltool reset SEL...: validated as the
 * kernel validates, written all-or-nothing with rollback. Also the write
 * path apply shares (cmd/plan_cmd.h).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "cmd/cmd.h"
#include "cmd/common.h"
#include "cmd/plan_cmd.h"
#include "dql/dql.h"
#include "lib/hz.h"
#include "lib/out.h"
#include "lib/plan.h"
#include "lib/units.h"

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

void cmd_plan_fmt(char *buf, size_t n, enum bql_attr a, uint64_t v)
{
	if ((a == BQL_LIMIT_MIN || a == BQL_LIMIT_MAX) && v == DQL_MAX_LIMIT)
		snprintf(buf, n, "max");
	else if (a == BQL_STALL_THRS && !v)
		snprintf(buf, n, "off");
	else if (a == BQL_HOLD_TIME || a == BQL_STALL_THRS)
		snprintf(buf, n, "%" PRIu64 " ms", v);
	else
		snprintf(buf, n, "%" PRIu64, v);
}

/* old -> new for every item: text lines or a JSON array */
static int plan_print(struct bql_ctx *c, const struct plan *p)
{
	out_begin(c, true);
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_item *it = &p->it[i];
		bool changed = it->state != PLAN_UNCHANGED;
		char o[32], n[32];

		if (c->json) {
			out_open_obj(c, NULL);
			out_str(c, OUT_JSON, "ifname", NULL, it->ifname);
			out_u64(c, OUT_JSON, "queue", NULL, it->queue);
			out_str(c, OUT_JSON, "key", NULL, bql_attrs[it->attr].name);
			out_u64(c, OUT_JSON, "old", NULL, it->old);
			out_u64(c, OUT_JSON, "new", NULL, it->v.shown);
			out_bool(c, OUT_JSON, "changed", NULL, changed);
			out_close_obj(c);
			continue;
		}
		cmd_plan_fmt(o, sizeof(o), it->attr, it->old);
		cmd_plan_fmt(n, sizeof(n), it->attr, it->v.shown);
		if (changed)
			out_text(c, "%s:tx-%u %s: %s -> %s\n", it->ifname, it->queue,
				 bql_attrs[it->attr].name, o, n);
		else
			out_text(c, "%s:tx-%u %s: %s (unchanged)\n", it->ifname, it->queue,
				 bql_attrs[it->attr].name, o);
	}
	return cmd_output_done(c, out_end(c));
}

static void warn_minmax(struct bql_ctx *c, const struct plan *p)
{
	const struct plan_queue *q;
	struct utsname u;
	uint64_t lo, hi;
	size_t n = plan_minmax(p, &q, &lo, &hi);

	if (!n)
		return;
	cmd_warn(c, "%s:tx-%u%s: limit_min %" PRIu64 " > limit_max %" PRIu64
		 ": the kernel allows it; %s",
		 q->ifname, q->queue, n > 1 ? " and other queues" : "", lo, hi,
		 plan_clamp_rule(uname(&u) ? NULL : u.release));
}

static void report_failure(struct bql_ctx *c, const struct plan *p,
			   const struct bql_err *e)
{
	size_t restored = 0, lost = 0;

	cmd_error(c, e);
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_item *it = &p->it[i];
		char o[32], n[32];

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
		if (it->state == PLAN_RESTORED) {
			restored++;
		} else if (it->state == PLAN_RESTORE_FAILED) {
			lost++;
			cmd_plan_fmt(o, sizeof(o), it->attr, it->old);
			cmd_plan_fmt(n, sizeof(n), it->attr, it->v.shown);
			cmd_fail(c, "rollback failed: %s:tx-%u: %s is now %s, was %s: %s",
				 it->ifname, it->queue, bql_attrs[it->attr].name, n, o,
				 it->err ? it->err : "?");
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

int cmd_plan_commit(struct bql_ctx *c, struct plan *p, bool dry_run)
{
	struct bql_err e;

	warn_minmax(c, p);
	if (dry_run) {
		int ret = plan_print(c, p);

		if (!c->json && !ret)
			fprintf(stderr, "bqltool: %s: dry run: nothing was written\n", c->cmd);
		return ret;
	}
	if (plan_pending(p)) {
		if (plan_check_access(c, p, &e)) {
			cmd_error(c, &e);
			return BQL_EXIT_FAIL;
		}
		if (plan_execute(c, p, &e)) {
			report_failure(c, p, &e);
			return BQL_EXIT_FAIL;
		}
	}
	return plan_print(c, p);
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
		return cmd_usage(c, "'%s': unknown key '%s' (expected limit_min, limit_max, hold_time, stall_thrs or limit)",
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
				/* stall_thrs=0 is what a kernel without it does */
				bool opt = as[i].attr == BQL_STALL_THRS && !as[i].v.req;

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
		{ NULL, 0, NULL, 0 },
	};
	struct assign as[BQL_ATTR_NR];
	struct cmd_state st;
	struct plan p;
	bool dry_run = false, ms_keys = false;
	uint32_t seen = 0;
	size_t nas = 0;
	int nsel = 0, opt, ret;
	unsigned int hz;

	while ((opt = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (opt) {
		case 'D':
			dry_run = true;
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
			return cmd_usage(c, "nothing to set: give key=value (limit_min, limit_max, hold_time, stall_thrs, limit)");
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
		ret = cmd_plan_commit(c, &p, dry_run);
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
	.synopsis = "set [--dry-run] SEL... KEY=VALUE...",
	.summary = "Change limit_min, limit_max, hold_time or stall_thrs, all-or-nothing",
	.help = "      --dry-run   print old -> new for every file and write nothing\n"
		"\nKeys: limit_min, limit_max (bytes: 1514, 64K, 1.5M, 64KiB, 2G; 1024-based;\n"
		"'max' = 1879048192), hold_time, stall_thrs (ms: 500, 500ms, 1s, 1.5s;\n"
		"stall_thrs 0 = off) and limit (DQL moves it again at the next completion).\n"
		"Values are checked as the kernel checks them before anything is written:\n"
		"limits up to 1879048192, stall_thrs 0 or 4..128 jiffies (the ms range\n"
		"depends on HZ). hold_time and stall_thrs are kept in jiffies, so a ms value\n"
		"may read back rounded (a warning says so). Every old value is read first;\n"
		"if a write fails, the ones already done are undone in reverse order.\n"
		"Files that already hold the value are not written (shown as unchanged).\n"
		"Output: one line per file (old -> new), or with -j an array of\n"
		"{ifname, queue, key, old, new, changed}. Needs root.\n",
	.flags = CMD_WRITES,
	.run = set_run,
};

const struct cmd_entry cmd_reset_entry = {
	.name = "reset",
	.synopsis = "reset [--dry-run] SEL...",
	.summary = "Restore the kernel defaults of TX queues, all-or-nothing",
	.help = "      --dry-run   print old -> new for every file and write nothing\n"
		"\nWrites the defaults of dql_init(): limit_min 0, limit_max max (1879048192),\n"
		"hold_time 1000 ms and stall_thrs 0 (off, where the kernel has it), with the\n"
		"guarantees of set: validated first, all-or-nothing, rolled back on failure.\n",
	.flags = CMD_WRITES,
	.run = reset_run,
};
