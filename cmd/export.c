// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool export --textfile DIR [SEL...]: DIR/bqltool.prom for the
 * node_exporter textfile collector, replaced atomically (temp + rename).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/common.h"

#define EXPORT_FILE "bqltool.prom"

/*
 * Write the exposition to a temp file in @dir and rename it over
 * @dir/bqltool.prom, so the collector never reads half a file. The temp
 * name does not end in .prom: the collector ignores it.
 */
static int export_write(struct bql_ctx *c, const char *dir,
			const struct snapshot *s)
{
	char tmp[4096], dst[4096];
	FILE *saved = c->out, *f;
	int fd, ret, err;

	if (snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, EXPORT_FILE) >= (int)sizeof(tmp) ||
	    snprintf(dst, sizeof(dst), "%s/%s", dir, EXPORT_FILE) >= (int)sizeof(dst))
		return cmd_fail(c, "%s: path too long", dir);
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = errno;
		return cmd_fail(c, "%s: cannot create a file in the directory: %s", dir,
				strerror(err));
	}
	/* mkstemp makes 0600; the collector may run as another user */
	if (fchmod(fd, 0644)) {
		err = errno;
		goto fail_fd;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		goto fail_fd;
	}
	c->out = f;
	errno = 0;
	ret = cmd_print_prometheus(c, s);
	c->out = saved;
	if (ret || fflush(f) || ferror(f) || fsync(fileno(f))) {
		err = errno ? errno : EIO;
		fclose(f);
		unlink(tmp);
		return cmd_fail(c, "%s: write error: %s", tmp, strerror(err));
	}
	if (fclose(f)) {
		err = errno;
		unlink(tmp);
		return cmd_fail(c, "%s: write error: %s", tmp, strerror(err));
	}
	if (rename(tmp, dst)) {
		err = errno;
		unlink(tmp);
		return cmd_fail(c, "%s: cannot rename %s to %s: %s", dir, tmp, dst,
				strerror(err));
	}
	return BQL_EXIT_OK;
fail_fd:
	close(fd);
	unlink(tmp);
	return cmd_fail(c, "%s: %s", tmp, strerror(err));
}

static int export_run(struct bql_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "textfile", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL;
	struct cmd_state st;
	struct stat sb;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, ":t:", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			dir = optarg;
			break;
		default:
			return cmd_bad_option(c, opt, argv);
		}
	}
	if (!dir)
		return cmd_usage(c, "missing --textfile DIR (the node_exporter textfile directory)");
	if (!*dir)
		return cmd_usage(c, "--textfile: empty directory name");
	/* check the directory first: no point reading sysfs for nothing */
	if (stat(dir, &sb))
		return cmd_fail(c, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return cmd_fail(c, "%s: not a directory", dir);
	if (access(dir, W_OK | X_OK))
		return cmd_fail(c, "%s: directory is not writable: %s", dir, strerror(errno));
	ret = cmd_collect(c, argc - optind, argv + optind, &st);
	if (ret)
		return ret;
	ret = export_write(c, dir, &st.snap);
	cmd_state_free(&st);
	return ret;
}

const struct cmd_entry cmd_export_entry = {
	.name = "export",
	.synopsis = "export --textfile DIR [SEL...]",
	.summary = "Write DIR/bqltool.prom for the node_exporter textfile collector",
	.help = "  -t, --textfile DIR   directory of node_exporter's textfile collector\n"
		"\nWrites the same metrics as 'show --format prometheus' to DIR/bqltool.prom,\n"
		"atomically (temporary file, fsync, rename), mode 0644. Run it from a timer.\n",
	.flags = CMD_NEEDS_NL | CMD_NO_JSON,
	.run = export_run,
};
