// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool export --textfile DIR [SEL...]: DIR/bqltool.prom (under -n NS
 * DIR/bqltool-netns-NS.prom) for the node_exporter textfile collector,
 * replaced atomically (temp + rename).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/common.h"
#include "lib/io/ofile.h"
#include "lib/io/units.h"
#include "lib/kernel/latbpf.h"

/*
 * The file name: bqltool.prom for the host, bqltool-netns-NS.prom under
 * -n NS, so exports of several namespaces share one directory; the series
 * carry a netns label too (cmd/prom.c). One file per namespace name: a
 * byte other than a letter, digit, '-', '_' or '.' is %HH ("rt3 a" and
 * "rt3_a" are two files); a name whose file name would pass 255 bytes
 * keeps its first 200 and gets the FNV-1a hash of the whole name.
 */
static const char *export_name(const struct bql_ctx *c)
{
	static char name[256];
	uint64_t h = 0xcbf29ce484222325ull;
	size_t len, k, base;

	if (!c->netns)
		return "bqltool.prom";
	len = k = base = (size_t)snprintf(name, sizeof(name), "bqltool-netns-");
	for (const unsigned char *p = (const unsigned char *)c->netns; *p; p++) {
		unsigned char ch = *p;
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			  (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch == '.';

		h = (h ^ ch) * 0x100000001b3ull;
		if (len + 3 + 5 < sizeof(name)) {
			len += (size_t)snprintf(name + len, sizeof(name) - len,
						ok ? "%c" : "%%%02X", ch);
			if (len <= base + 200)
				k = len;	/* whole escapes within the first 200 */
		} else {
			len = sizeof(name);	/* too long */
		}
	}
	if (len + 5 >= sizeof(name))
		snprintf(name + k, sizeof(name) - k, "-%016" PRIx64 ".prom", h);
	else
		snprintf(name + len, sizeof(name) - len, ".prom");
	return name;
}
#define EXPORT_FILE export_name(c)

/*
 * Write the exposition to @o (lib/io/ofile.c: a temporary in DIR renamed over
 * DIR/bqltool.prom, so the collector never reads half a file; the
 * temporary's name does not end in .prom, so the collector ignores it).
 */
/* --latency: the observer over one window, read and detached */
struct export_lat {
	uint64_t ns;			/* the window, 0 = none */
	struct latbpf_target t[LAT_MAX_SLOTS];
	unsigned int n;
	struct latbpf_snap *s;		/* the reading, NULL if none */
	uint64_t dur_ns;
};

/*
 * Observe the snapshot's queues for the window. The observer is a degraded
 * feature here: when it cannot run, a warning says why and the file is
 * written without the latency families.
 */
static void export_observe(struct bql_ctx *c, const struct snapshot *snap,
			   struct export_lat *x)
{
	struct latbpf_opts o = { 0 };
	struct latbpf *l = NULL;
	struct timespec ts, t0, t1;
	struct bql_err e;

	for (size_t d = 0; d < snap->n; d++)
		for (unsigned int q = 0; q < snap->dev[d].nq; q++) {
			struct latbpf_target *t;

			if (x->n == LAT_MAX_SLOTS) {
				cmd_warn(c, "--latency: more than %d queues: the others are not observed",
					 LAT_MAX_SLOTS);
				goto enough;
			}
			t = &x->t[x->n++];
			snprintf(t->ifname, sizeof(t->ifname), "%s", snap->dev[d].ifname);
			t->ifindex = snap->dev[d].ifindex;
			t->queue = snap->dev[d].q[q].bql.index;
		}
enough:
	if (!x->n)
		return;
	x->s = calloc(1, sizeof(*x->s));
	if (!x->s) {
		cmd_warn(c, "--latency: out of memory: no latency families");
		return;
	}
	o.t = x->t;
	o.n = x->n;
	o.verbose = c->verbose;
	if (latbpf_open(&l, &o, &e)) {
		cmd_warn(c, "--latency: no latency families: %s", e.msg);
		free(x->s);
		x->s = NULL;
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ts.tv_sec = (time_t)(x->ns / 1000000000u);
	ts.tv_nsec = (long)(x->ns % 1000000000u);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	x->dur_ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u +
		    (uint64_t)(t1.tv_nsec - t0.tv_nsec);
	if (latbpf_read(l, x->s, &e)) {
		cmd_warn(c, "--latency: no latency families: %s", e.msg);
		free(x->s);
		x->s = NULL;
	}
	latbpf_close(l);
}

static int export_write(struct bql_ctx *c, struct ofile *o, const struct snapshot *s,
			const struct export_lat *x)
{
	FILE *saved = c->out, *f;
	struct bql_err e;
	int ret;

	f = ofile_stdio(o);
	if (!f) {
		ofile_abort(o);
		return cmd_fail(c, "%s: %s", ofile_path(o), strerror(ENOMEM));
	}
	c->out = f;
	ret = cmd_print_prometheus(c, s);
	if (!ret && x->s)
		ret = cmd_print_prometheus_latency(c, x->t, x->n, x->s, x->dur_ns);
	if (!ret) {
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		ret = cmd_print_prometheus_written(c, (uint64_t)now.tv_sec * 1000000000u +
						   (uint64_t)now.tv_nsec);
	}
	c->out = saved;
	fclose(f);	/* a write error is the ofile's */
	if (ret) {
		ofile_abort(o);
		return ret;
	}
	if (ofile_commit(o, &e)) {
		cmd_error(c, &e);
		return BQL_EXIT_FAIL;
	}
	return BQL_EXIT_OK;
}

static int export_run(struct bql_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "textfile", required_argument, NULL, 't' },
		{ "latency", required_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	struct export_lat x = { 0 };
	const char *dir = NULL;
	char path[4096];
	struct cmd_state st;
	struct ofile *o;
	struct bql_err e;
	struct stat sb;
	int opt, ret;

	while ((opt = cmd_getopt(c, argc, argv, ":t:", opts)) != -1) {
		switch (opt) {
		case 't':
			dir = optarg;
			break;
		case 'L':
			if (units_parse_sec_ns("--latency", optarg, &x.ns, &e))
				return cmd_usage(c, "%s", e.msg);
			if (!x.ns || x.ns > 60ull * 1000000000u)
				return cmd_usage(c, "--latency: '%s' out of range (0 < SEC <= 60: "
						 "export runs from a timer)", optarg);
			break;
		default:
			return cmd_bad_option(c, opt, argv);
		}
	}
	if (!dir) {
		/* "export /var/lib/...": a directory where a selector goes */
		for (int i = optind; i < argc; i++)
			if (!stat(argv[i], &sb) && S_ISDIR(sb.st_mode))
				return cmd_usage(c, "missing --textfile DIR: did you mean 'export "
						 "--textfile %s'? (words after export are selectors)",
						 argv[i]);
		return cmd_usage(c, "missing --textfile DIR (the node_exporter textfile directory)");
	}
	if (!*dir)
		return cmd_usage(c, "--textfile: empty directory name");
	/* check the directory first: no point reading sysfs for nothing */
	if (stat(dir, &sb))
		return cmd_fail(c, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return cmd_fail(c, "%s: not a directory", dir);
	if (access(dir, W_OK | X_OK))
		return cmd_fail(c, "%s: directory is not writable: %s", dir, strerror(errno));
	if (snprintf(path, sizeof(path), "%s/%s", dir, EXPORT_FILE) >= (int)sizeof(path))
		return cmd_fail(c, "%s: path too long", dir);
	/*
	 * mode 0644 for a new file: the collector may run as another user;
	 * the collector reads regular files: anything else there is refused
	 * at once (a FIFO without a reader blocked the timer's run for ever)
	 */
	if (ofile_open(&o, path, OFILE_PUBLIC | OFILE_REGULAR, &e)) {
		cmd_error(c, &e);
		return BQL_EXIT_FAIL;
	}
	ret = cmd_collect(c, argc - optind, argv + optind, &st);
	if (ret) {
		ofile_abort(o);
		return ret;
	}
	if (x.ns) {
		if (c->root_overridden)
			cmd_warn(c, "--latency: a sysfs tree has no kernel to observe: no latency families");
		else
			export_observe(c, &st.snap, &x);
	}
	ret = export_write(c, o, &st.snap, &x);
	free(x.s);
	cmd_state_free(&st);
	return ret;
}

const struct cmd_entry cmd_export_entry = {
	.name = "export",
	.synopsis = "export --textfile DIR [--latency SEC] [SEL...]",
	.summary = "Write DIR/bqltool.prom for the node_exporter textfile collector",
	.help = "  -t, --textfile DIR   directory of node_exporter's textfile collector\n"
		"      --latency SEC    observe the queues for SEC (BPF, root) and add summaries\n"
		"                       of that window: ring time, qdisc wait, interrupt delay,\n"
		"                       stops by cause\n"
		"\nWrites the same metrics as 'show --format prometheus' to DIR/bqltool.prom,\n"
		"atomically (temporary file, fsync, rename); a new file is mode 0644, an\n"
		"existing one keeps its mode and owner. Under -n NS the file is\n"
		"DIR/bqltool-netns-NS.prom and every series has a netns=\"NS\" label, so the\n"
		"host and several namespaces export into one directory. Run it from a timer\n"
		"(contrib/bqltool-export.timer).\n",
	.flags = CMD_NEEDS_NL | CMD_NO_JSON,
	.run = export_run,
};
