// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool save [SEL...] and bqltool apply FILE: the writable BQL settings
 * as a versioned JSON profile, and that profile applied back all-or-nothing
 * (or compared with the live state: apply --check).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/common.h"
#include "cmd/plan_cmd.h"
#include "lib/kernel/hz.h"
#include "lib/io/ofile.h"
#include "lib/io/out.h"
#include "lib/io/qname.h"
#include "lib/model/plan.h"
#include "lib/model/profile.h"
#include "lib/io/stops.h"
#include "lib/io/esc.h"
#include "lib/kernel/sysfs.h"

/* ------------------------------------------------------------ save */

static int save_dev(struct bql_ctx *c, struct profile *p,
		    const struct sel_target *t)
{
	struct bql_queue *qs = calloc(t->nqueues ? t->nqueues : 1, sizeof(*qs));
	struct bql_err e;
	int ret = 0;

	if (!qs)
		return cmd_fail(c, "out of memory");
	/*
	 * A JSON profile cannot hold a name that is not UTF-8: one that no
	 * selector names (every device, a glob) is left out with a warning,
	 * the rest of the namespace saved; a named one is an error (below)
	 */
	if (!t->named && esc_utf8_valid(t->ifname, strlen(t->ifname)) != strlen(t->ifname)) {
		free(qs);
		cmd_warn(c, "%s: the device name is not valid UTF-8, which a JSON profile cannot hold: left out",
			 t->ifname);
		return BQL_EXIT_OK;
	}
	for (unsigned int k = 0; k < t->nqueues && !ret; k++)
		ret = bql_queue_read(c, t->ifname, t->queues[k], &qs[k], &e);
	if (ret && sel_target_vanished(c, t, ret)) {
		/* gone since the listing, and nobody named it: not in the profile */
		free(qs);
		if (c->verbose)
			cmd_note(c, "%s vanished while read: left out", t->ifname);
		return BQL_EXIT_OK;
	}
	if (!ret)
		ret = profile_add_dev(p, t->ifname, qs, t->nqueues,
				      t->nqueues == t->ntx, &e);
	free(qs);
	if (ret) {
		cmd_error(c, &e);
		return BQL_EXIT_FAIL;
	}
	return BQL_EXIT_OK;
}

static int save_run(struct bql_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	const struct hz_info *hz = hz_get();
	const char *file = NULL;
	struct cmd_state st;
	struct profile p;
	struct utsname u;
	struct ofile *of = NULL;
	struct stops stops;
	struct bql_err e;
	char *text;
	int opt, sig = 0, ret = BQL_EXIT_OK;

	while ((opt = cmd_getopt(c, argc, argv, ":o:", opts)) != -1) {
		switch (opt) {
		case 'o':
			file = optarg;
			break;
		default:
			return cmd_bad_option(c, opt, argv);
		}
	}
	if (file) {
		ret = cmd_out_name(c, "-o", file, &cmd_out_profile, NULL);
		if (ret)
			return ret;
	}
	/* a file that cannot be written fails before any work */
	/* while a temporary beside FILE exists, a stop removes it, never kills */
	stops_hold(&stops);
	if (file && strcmp(file, "-") && ofile_open(&of, file, 0, &e)) {
		stops_release(&stops);
		cmd_error(c, &e);
		return BQL_EXIT_FAIL;
	}
	ret = cmd_select(c, argc - optind, argv + optind, &st);
	if (ret) {
		ofile_abort(of);
		stops_release(&stops);
		return ret;
	}
	profile_init(&p);
	snprintf(p.tool_version, sizeof(p.tool_version), "%s", BQLTOOL_VERSION);
	if (!uname(&u))
		snprintf(p.kernel, sizeof(p.kernel), "%s", u.release);
	if (hz->src != HZ_SRC_FALLBACK)
		p.hz = hz->hz;
	for (size_t i = 0; i < st.targets.n && !ret && !(sig = stops_arrived(&stops)); i++)
		ret = save_dev(c, &p, &st.targets.t[i]);
	cmd_state_free(&st);
	if (!ret && (sig || (sig = stops_arrived(&stops))))
		ret = cmd_fail(c, "interrupted by %s: %s", stops_name(sig),
			       of ? "no profile written" : "nothing printed");
	if (ret) {
		profile_free(&p);
		ofile_abort(of);
		stops_release(&stops);
		return ret;
	}
	if (!p.ndev)
		cmd_warn(c, "no network device with byte queue limits found: the profile is empty");
	text = profile_to_json(&p);
	profile_free(&p);
	if (!text) {
		ofile_abort(of);
		stops_release(&stops);
		return cmd_fail(c, "out of memory");
	}
	/* the profile is JSON whatever -j/-p say */
	if (of) {
		ofile_write(of, text, strlen(text));
		if (ofile_commit(of, &e)) {
			cmd_error(c, &e);
			ret = BQL_EXIT_FAIL;
		}
		stops_release(&stops);	/* the file is in place, or gone */
	} else {
		stops_release(&stops);
		errno = 0;
		if (fputs(text, c->out) < 0 || fflush(c->out))
			ret = cmd_output_done(c, errno ? -errno : -EIO);
	}
	free(text);
	return ret;
}

/* ------------------------------------------------------------ apply */

struct apply_opts {
	bool dry_run, check, skip_missing, quiet, wait;
	char **only;
	size_t nonly;
	const char *file;
};

/* something --check reports besides values: an absent device or queue */
struct absent {
	char ifname[BQL_IFNAMSIZ];
	long queue;		/* -1: the whole device */
	const char *why;
};

struct apply {
	struct bql_ctx *c;
	const struct apply_opts *o;
	struct profile prof;
	struct plan plan;
	struct absent *abs;
	size_t nabs, capabs;
};

static bool only_has(const struct apply_opts *o, const char *ifname)
{
	if (!o->nonly)
		return true;
	for (size_t i = 0; i < o->nonly; i++)
		if (!strcmp(o->only[i], ifname))
			return true;
	return false;
}

/* Check every value of the profile for this kernel; exit 2 naming it. */
static int validate(struct apply *ap)
{
	char path[256];
	struct bql_err e;
	struct plan_value pv;

	for (size_t i = 0; i < ap->prof.ndev; i++) {
		const struct profile_dev *d = &ap->prof.dev[i];
		size_t n = d->all ? 1 : d->nq;

		for (size_t k = 0; k < n; k++) {
			const struct profile_vals *v = d->all ? &d->v : &d->q[k].v;

			for (int a = 0; a < BQL_ATTR_NR; a++) {
				if (!(v->present & (1u << a)))
					continue;
				profile_path(path, sizeof(path), d, d->all ? PROFILE_ALL : k,
					     bql_attrs[a].name);
				if (plan_value(a, v->val[a], ap->plan.hz, path, &pv, &e))
					return cmd_usage(ap->c, "%s: %s", ap->o->file, e.msg);
				if (!ap->o->check && only_has(ap->o, d->ifname))
					cmd_plan_warn_rounding(ap->c, path, a, &pv, ap->plan.hz);
			}
		}
	}
	return BQL_EXIT_OK;
}

static int note_absent(struct apply *ap, const char *ifname, long queue,
		       const char *why)
{
	struct absent *n = ap->abs;

	/* doubling: a profile may name 65536 absent queues (linear, not quadratic) */
	if (ap->nabs == ap->capabs) {
		size_t cap = ap->capabs ? 2 * ap->capabs : 16;

		n = realloc(ap->abs, cap * sizeof(*n));
		if (!n)
			return cmd_fail(ap->c, "out of memory");
		ap->abs = n;
		ap->capabs = cap;
	}
	snprintf(n[ap->nabs].ifname, sizeof(n[ap->nabs].ifname), "%s", ifname);
	n[ap->nabs].queue = queue;
	n[ap->nabs].why = why;
	ap->nabs++;
	return BQL_EXIT_OK;
}

static int add_vals(struct apply *ap, const char *ifname, unsigned int q,
		    const struct profile_vals *v)
{
	struct plan_value pv;
	struct bql_err e;

	for (int a = 0; a < BQL_ATTR_NR; a++) {
		if (!(v->present & (1u << a)))
			continue;
		/* validated already */
		if (plan_value(a, v->val[a], ap->plan.hz, bql_attrs[a].name, &pv, &e) ||
		    plan_add(&ap->plan, ifname, q, a, &pv,
			     a == BQL_STALL_THRS && !pv.req, &e)) {
			cmd_error(ap->c, &e);
			return BQL_EXIT_FAIL;
		}
	}
	return BQL_EXIT_OK;
}

/*
 * A NIC that just appeared (udev, --only) may not have its queues in sysfs
 * yet: the kernel announces the device before it adds queues/. Wait a bit.
 */
static void wait_for_queues(const struct bql_ctx *c, const char *ifname)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	char path[4096];
	struct stat st;

	if (sysfs_dev_path(c, path, sizeof(path), ifname, "queues/tx-0"))
		return;
	for (int i = 0; i < 40 && sysfs_dev_exists(c, ifname) && sysfs_stat(c, path, &st); i++)
		nanosleep(&ts, NULL);
}

/* One profile device -> plan items; absent things are errors or notes. */
static int build_dev(struct apply *ap, const struct profile_dev *d)
{
	const struct apply_opts *o = ap->o;
	char path[256];
	unsigned int ntx;
	struct bql_err e;
	int ret;

	profile_path(path, sizeof(path), d, PROFILE_DEV, NULL);
	if (o->nonly)
		wait_for_queues(ap->c, d->ifname);
	ret = sysfs_dev_check(ap->c, d->ifname, &e);
	if (ret && ret != -ENODEV) {
		/* leads out of the sysfs root: refused, even with --missing=skip */
		cmd_error(ap->c, &e);
		return BQL_EXIT_FAIL;
	}
	if (ret) {
		if (o->skip_missing) {
			if (!o->check && ap->c->verbose)
				cmd_note(ap->c, "%s: not present, skipped", d->ifname);
			return BQL_EXIT_OK;
		}
		if (o->check)
			return note_absent(ap, d->ifname, -1, "not present");
		return cmd_fail(ap->c, "%s: %s: no such device (--missing=skip skips absent devices)",
				o->file, path);
	}
	if (!sysfs_dev_has_bql(ap->c, d->ifname)) {
		if (o->check)
			return note_absent(ap, d->ifname, -1, "does not use BQL");
		return cmd_fail(ap->c, "%s: %s: %s does not use BQL (no byte_queue_limits in its TX queues)",
				o->file, path, d->ifname);
	}
	if (sysfs_count_txq(ap->c, d->ifname, &ntx, &e)) {
		cmd_error(ap->c, &e);
		return BQL_EXIT_FAIL;
	}
	if (d->all) {
		for (unsigned int q = 0; q < ntx; q++) {
			ret = add_vals(ap, d->ifname, q, &d->v);
			if (ret)
				return ret;
		}
		return BQL_EXIT_OK;
	}
	for (size_t k = 0; k < d->nq; k++) {
		if (d->q[k].queue >= ntx) {
			if (o->check) {
				ret = note_absent(ap, d->ifname, d->q[k].queue, "not present");
				if (ret)
					return ret;
				continue;
			}
			profile_path(path, sizeof(path), d, k, NULL);
			return cmd_fail(ap->c, "%s: %s: %s has no tx-%u (it has %u TX queue%s)",
					o->file, path, d->ifname, d->q[k].queue, ntx,
					ntx == 1 ? "" : "s");
		}
		ret = add_vals(ap, d->ifname, d->q[k].queue, &d->q[k].v);
		if (ret)
			return ret;
	}
	return BQL_EXIT_OK;
}

/* --check: every difference between the live state and the profile */
static int check_print(struct apply *ap)
{
	struct bql_ctx *c = ap->c;
	size_t ndiff = ap->nabs;

	out_begin(c, true);
	for (size_t i = 0; i < ap->nabs; i++) {
		const struct absent *a = &ap->abs[i];

		if (c->json) {
			out_open_obj(c, NULL);
			if (a->queue >= 0)
				qname_out_queue(c, a->ifname, (unsigned int)a->queue);
			else
				qname_out_dev(c, a->ifname);
			out_str(c, OUT_JSON, "problem", NULL, a->why);
			out_close_obj(c);
		} else if (a->queue >= 0) {
			out_text(c, "%s:tx-%ld: %s\n", a->ifname, a->queue, a->why);
		} else {
			out_text(c, "%s: %s\n", a->ifname, a->why);
		}
	}
	for (size_t i = 0; i < ap->plan.n; i++) {
		const struct plan_item *it = &ap->plan.it[i];
		char l[32], p[32], s[32];

		if (it->state == PLAN_UNCHANGED)
			continue;
		ndiff++;
		if (c->json) {
			out_open_obj(c, NULL);
			qname_out_queue(c, it->ifname, it->queue);
			out_str(c, OUT_JSON, "key", NULL, bql_attrs[it->attr].name);
			out_u64(c, OUT_JSON, "live", NULL, it->old);
			out_u64(c, OUT_JSON, "profile", NULL, it->v.req);
			out_close_obj(c);
			continue;
		}
		cmd_plan_fmt(l, sizeof(l), it->attr, it->old);
		cmd_plan_fmt(p, sizeof(p), it->attr, it->v.req);
		cmd_plan_fmt(s, sizeof(s), it->attr, it->v.shown);
		out_text(c, "%s:tx-%u %s: %s, profile %s", it->ifname, it->queue,
			 bql_attrs[it->attr].name, l, p);
		if (it->v.shown != it->v.req)	/* rounded to jiffies */
			out_text(c, " (reads back as %s with HZ=%u)", s, ap->plan.hz);
		out_nl(c);
	}
	if (cmd_output_done(c, out_end(c)))
		return BQL_EXIT_FAIL;
	if (!ndiff && !c->json && !ap->o->quiet) {
		/* the queues and devices the comparison covered */
		size_t nq = 0, nd = 0;

		for (size_t i = 0; i < ap->plan.n; i++) {
			const struct plan_item *it = &ap->plan.it[i];
			bool newq = true, newd = true;

			for (size_t k = 0; k < i && (newq || newd); k++) {
				const struct plan_item *o = &ap->plan.it[k];
				bool same_dev = !strcmp(o->ifname, it->ifname);

				newd &= !same_dev;
				newq &= !(same_dev && o->queue == it->queue);
			}
			nq += newq;
			nd += newd;
		}
		cmd_info(c, "the live state matches %s: every value in place "
			 "(%zu queue%s of %zu device%s)", ap->o->file, nq, nq == 1 ? "" : "s", nd,
			 nd == 1 ? "" : "s");
	}
	return ndiff ? BQL_EXIT_FAIL : BQL_EXIT_OK;
}

static bool profile_has_ms(const struct profile *p)
{
	const uint32_t ms = (1u << BQL_HOLD_TIME) | (1u << BQL_STALL_THRS);

	for (size_t i = 0; i < p->ndev; i++) {
		if (p->dev[i].all && (p->dev[i].v.present & ms))
			return true;
		for (size_t k = 0; k < p->dev[i].nq; k++)
			if (p->dev[i].q[k].v.present & ms)
				return true;
	}
	return false;
}

static int apply_profile(struct apply *ap, const char *text, size_t len)
{
	struct plan_opts po = { 0 };
	struct bql_err e;
	size_t keep = 0;
	int ret;

	if (profile_parse(text, len, &ap->prof, &e))
		return cmd_usage(ap->c, "%s: %s", ap->o->file, e.msg);
	/* the whole profile is checked, whatever --only picks */
	plan_init(&ap->plan, cmd_plan_hz(ap->c, profile_has_ms(&ap->prof)));
	ret = validate(ap);
	if (ret)
		return ret;
	/* --only: the devices asked for; absent from the profile is fine */
	for (size_t i = 0; i < ap->prof.ndev; i++) {
		if (only_has(ap->o, ap->prof.dev[i].ifname))
			ap->prof.dev[keep++] = ap->prof.dev[i];
		else
			free(ap->prof.dev[i].q);
	}
	ap->prof.ndev = keep;
	if (!keep && ap->o->nonly && ap->c->verbose)
		cmd_note(ap->c, "%s has no entry for the devices given with --only",
			 ap->o->file);
	for (size_t i = 0; i < ap->prof.ndev && !ret; i++)
		ret = build_dev(ap, &ap->prof.dev[i]);
	if (ret)
		return ret;
	if (plan_read(ap->c, &ap->plan, &e)) {
		cmd_error(ap->c, &e);
		return BQL_EXIT_FAIL;
	}
	if (ap->o->check)
		return check_print(ap);
	/* a profile restores a state once saved: rule breaks warn, never refuse */
	po.dry_run = ap->o->dry_run;
	po.quiet = ap->o->quiet;
	po.force = true;
	po.wait = ap->o->wait;
	return cmd_plan_commit(ap->c, &ap->plan, &po);
}

static int apply_run(struct bql_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'D' },
		{ "check", no_argument, NULL, 'c' },
		{ "missing", required_argument, NULL, 'm' },
		{ "only", required_argument, NULL, 'O' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "wait", no_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 },
	};
	struct apply_opts o = { 0 };
	struct apply ap = { 0 };
	struct bql_err e;
	char *text = NULL;
	size_t len;
	int opt, ret;

	o.only = calloc((size_t)argc, sizeof(*o.only));
	if (!o.only)
		return cmd_fail(c, "out of memory");
	ret = BQL_EXIT_OK;
	while (!ret && (opt = cmd_getopt(c, argc, argv, ":q", opts)) != -1) {
		switch (opt) {
		case 'D':
			o.dry_run = true;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'c':
			o.check = true;
			break;
		case 'W':
			o.wait = true;
			break;
		case 'm':
			if (!strcmp(optarg, "skip"))
				o.skip_missing = true;
			else if (!strcmp(optarg, "error"))
				o.skip_missing = false;
			else
				ret = cmd_usage(c, "--missing: invalid value '%s' (expected error or skip)",
						optarg);
			break;
		case 'O':
			if (!sysfs_valid_ifname(optarg))
				ret = cmd_usage(c, "--only: '%s' is not a valid device name", optarg);
			else
				o.only[o.nonly++] = optarg;
			break;
		default:
			ret = cmd_bad_option(c, opt, argv);
			break;
		}
	}
	if (!ret && optind >= argc)
		ret = cmd_usage(c, "which profile? give a FILE (- for standard input)");
	if (!ret && argc - optind > 1)
		ret = cmd_usage(c, "'%s': one profile at a time", argv[optind + 1]);
	if (!ret && !*argv[optind])
		ret = cmd_usage(c, "empty file name (- for standard input)");
	if (!ret && o.check && o.dry_run)
		ret = cmd_usage(c, "--check and --dry-run exclude each other");
	if (ret) {
		free(o.only);
		return ret;
	}
	o.file = strcmp(argv[optind], "-") ? argv[optind] : "<stdin>";
	if (profile_read_file(argv[optind], &text, &len, &e)) {
		free(o.only);
		/* a file that cannot be read is a runtime failure, as in replay;
		 * one too large to be a profile is a bad profile */
		if (e.code == EFBIG)
			return cmd_usage(c, "%s", e.msg);
		cmd_error(c, &e);
		return BQL_EXIT_FAIL;
	}
	ap.c = c;
	ap.o = &o;
	ret = apply_profile(&ap, text, len);
	free(text);
	free(ap.abs);
	plan_free(&ap.plan);
	profile_free(&ap.prof);
	free(o.only);
	return ret;
}

const struct cmd_entry cmd_save_entry = {
	.name = "save",
	.synopsis = "save [-o FILE] [SEL...]",
	.summary = "Write the writable BQL settings as a JSON profile",
	.help = "  -o, --output FILE   write FILE atomically (temporary file + rename);\n"
		"                      default standard output\n"
		"\nThe profile holds limit_min, limit_max, hold_time and stall_thrs (sysfs units:\n"
		"bytes, ms) per device: one \"all\" entry when every queue has the same\n"
		"settings, else one entry per queue; plus the kernel, HZ and bqltool version\n"
		"it was saved with (informational). It is JSON whatever -j says.\n",
	.flags = 0,
	.run = save_run,
};

const struct cmd_entry cmd_apply_entry = {
	.name = "apply",
	.synopsis = "apply [--dry-run | --check] [--wait] [-q] [--missing=error|skip] [--only DEV]... FILE",
	.summary = "Apply a JSON profile all-or-nothing, or compare it with the live state",
	.help = "      --dry-run          print old -> new for every file that would change,\n"
		"                         write nothing\n"
		"  -q, --quiet            print nothing on success; -v (global) also lists\n"
		"                         the files that already hold their value\n"
		"      --check            write nothing; list every difference between the\n"
		"                         live state and FILE; exit 1 if there is one\n"
		"      --missing=WHAT     a profile device absent here: error (default) or skip\n"
		"      --only DEV         apply only DEV's entry (repeatable; for udev)\n"
		"      --wait             wait for another bqltool writing in this namespace\n"
		"                         (else that is an error, exit 1)\n"
		"\nFILE is a profile from 'bqltool save' (- reads standard input). Every value is\n"
		"checked for this kernel before anything is written, then the profile is\n"
		"written all-or-nothing as set does. An \"all\" entry covers every TX queue\n"
		"the device has now. Exit status: 0 applied (or equal with --check), 1 failure\n"
		"(or differences with --check), 2 a bad profile or usage error.\n",
	.flags = CMD_WRITES,
	.run = apply_run,
};
