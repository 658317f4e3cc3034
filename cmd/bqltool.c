// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool: see, tune and understand Linux Byte Queue Limits.
 * main(): global options, context, command dispatch, exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json_c_version.h>
#include <netlink/version.h>
#include <zlib.h>
#include <zstd.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "lib/kernel/hz.h"
#include "lib/kernel/netns.h"
#include "lib/kernel/recbpf.h"

/*
 * Standard output must reach its file: a write error (a full disk,
 * /dev/full, a closed pipe with SIGPIPE ignored, a standard output that
 * was closed) fails the run, reported once. fclose() catches what only
 * shows at close (NFS). A command that failed has reported its own
 * errors, a write error on standard output included.
 */
static int finish(const char *cmd, int ret)
{
	bool bad;
	int err;

	errno = 0;
	bad = fflush(stdout) != 0;
	err = errno;
	bad |= ferror(stdout) != 0;
	if (fclose(stdout) && !bad) {
		bad = true;
		err = errno;
	}
	if (!bad || ret != BQL_EXIT_OK)
		return ret;
	fprintf(stderr, "bqltool: %s%swrite error on standard output%s%s\n",
		cmd ? cmd : "", cmd ? ": " : "", err ? ": " : "", err ? strerror(err) : "");
	return BQL_EXIT_FAIL;
}

/*
 * Before anything opens a file: a closed 0, 1 or 2 gets /dev/null, opened
 * the "wrong" way round (as gnulib's stdopen does) so that any use fails
 * instead of reaching whatever file or socket would otherwise get that
 * number: output to a closed stdout is then a write error (exit 1), not a
 * table sent into a netlink socket.
 */
static void std_fds(void)
{
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		int nfd;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		nfd = open("/dev/null", fd == STDIN_FILENO ? O_WRONLY : O_RDONLY);
		if (nfd < 0)
			_exit(BQL_EXIT_FAIL);	/* no /dev/null, nowhere to say so */
		if (nfd != fd) {
			if (dup2(nfd, fd) < 0)
				_exit(BQL_EXIT_FAIL);
			close(nfd);
		}
	}
}

/* -h/--help anywhere before "--" in a command's arguments. */
static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	}
	return false;
}

/*
 * -V: the version and what this build can do, as bpftool -V names its
 * libbpf and features: BPF for record (and the libbpf it runs with), the
 * compressors and the libraries. With -j (given before -V), one object.
 */
static void print_version(const struct bql_ctx *c)
{
	const char *bpf = recbpf_libbpf_version();

	if (c->json) {
		printf("{\"version\":\"%s\",\"features\":{\"bpf\":%s,\"gzip\":true,\"zstd\":true},"
		       "\"libraries\":{", BQLTOOL_VERSION, bpf ? "true" : "false");
		if (bpf)
			printf("\"libbpf\":\"%s\",", bpf);
		printf("\"zlib\":\"%s\",\"zstd\":\"%s\",\"json_c\":\"%s\",\"libnl\":\"%s\"}}\n",
		       zlibVersion(), ZSTD_versionString(), json_c_version(), LIBNL_VERSION);
		return;
	}
	printf("bqltool %s\n", BQLTOOL_VERSION);
	if (bpf)
		printf("using libbpf %s\n", bpf);
	printf("features: %s, gzip (zlib %s), zstd %s, json-c %s, libnl %s\n",
	       bpf ? "bpf (record)" : "no bpf (record is not built in)", zlibVersion(),
	       ZSTD_versionString(), json_c_version(), LIBNL_VERSION);
}

int main(int argc, char **argv)
{
	const struct cmd_entry *ce;
	struct bql_ctx ctx;
	struct bql_err e;
	const char *env;
	int opt, ret;

	std_fds();
	/* a file size limit (ulimit -f) is an error to report and roll back, not a kill */
	signal(SIGXFSZ, SIG_IGN);
	bql_ctx_init(&ctx);
	env = getenv("BQLTOOL_SYSFS_ROOT");
	if (env && *env) {
		ctx.sysfs_root = env;
		ctx.root_overridden = true;
	}
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:jpn:vhV", cmd_global_opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			cmd_print_overview(stdout);
			return finish(NULL, BQL_EXIT_OK);
		case 'V':
			print_version(&ctx);
			return finish(NULL, BQL_EXIT_OK);
		case ':':
		case '?':
			return cmd_bad_option(&ctx, opt, argv);
		default:
			if (cmd_global_apply(&ctx, opt, optarg))
				return BQL_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		cmd_print_overview(stderr);
		return BQL_EXIT_USAGE;
	}
	ce = cmd_find(argv[optind], &e);
	if (!ce)
		return cmd_usage(&ctx, "%s", e.msg);
	ctx.cmd = ce->name;
	argc -= optind;
	argv += optind;
	if (wants_help(argc, argv)) {
		cmd_print_help(ce, stdout);
		return finish(ce->name, BQL_EXIT_OK);
	}
	if (strcmp(ce->name, "help") && hz_env_check(&e))
		return cmd_usage(&ctx, "%s", e.msg);
	ret = cmd_global_finish(&ctx);
	if (ret)
		return ret;
	if (ctx.netns && netns_switch(ctx.netns, &e)) {
		cmd_error(&ctx, &e);
		return BQL_EXIT_FAIL;
	}
	/* commands run getopt_long again on their own argv, where the global
	 * options are accepted too (cmd_getopt) */
	optind = 0;
	ret = ce->run(&ctx, argc, argv);
	return finish(ce->name, ret);
}
