// SPDX-License-Identifier: GPL-2.0-only
/* The command table, command lookup, messages, and the `help` command. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "lib/kernel/sysfs.h"
#include "lib/kernel/bql.h"
#include "lib/io/esc.h"
#include "lib/io/out.h"
#include "lib/kernel/netns.h"
#include "lib/io/ofile.h"

const struct cmd_entry *const cmd_table[] = {
	&cmd_show_entry,
	&cmd_set_entry,
	&cmd_reset_entry,
	&cmd_save_entry,
	&cmd_apply_entry,
	&cmd_top_entry,
	&cmd_replay_entry,
	&cmd_record_entry,
	&cmd_latency_entry,
	&cmd_sim_entry,
	&cmd_tune_entry,
	&cmd_check_entry,
	&cmd_export_entry,
	&cmd_help_entry,
	NULL,
};

const struct cmd_entry *cmd_find(const char *word, struct bql_err *e)
{
	const struct cmd_entry *found = NULL;
	char cand[200] = "";
	size_t len = strlen(word);
	int n = 0;

	for (int i = 0; cmd_table[i]; i++)
		if (!strcmp(cmd_table[i]->name, word))
			return cmd_table[i];
	for (int i = 0; len && cmd_table[i]; i++) {
		if (cmd_table[i]->flags & CMD_HIDDEN)
			continue;
		if (strncmp(cmd_table[i]->name, word, len))
			continue;
		found = cmd_table[i];
		snprintf(cand + strlen(cand), sizeof(cand) - strlen(cand),
			 "%s%s", n ? ", " : "", found->name);
		n++;
	}
	if (n == 1)
		return found;
	if (n > 1)
		bql_err_set(e, EINVAL, "ambiguous command '%s', could be: %s",
			    word, cand);
	else
		bql_err_set(e, EINVAL, "unknown command '%s'", word);
	return NULL;
}

/*
 * Every message is one line on stderr, and whatever it quotes (device
 * names, sysfs contents, profile keys, trace names, arguments) is escaped
 * for the terminal: lib/io/esc.h.
 */
static void put_msg(const char *kind, const char *msg)
{
	fputs("bqltool: ", stderr);
	if (kind)
		fprintf(stderr, "%s: ", kind);
	esc_text_fputs(msg, stderr);
	fputc('\n', stderr);
}

static void vmsg(const struct bql_ctx *c, const char *kind, const char *fmt,
		 va_list ap)
{
	char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	if (!kind && c && c->cmd) {
		fprintf(stderr, "bqltool: %s: ", c->cmd);
		esc_text_fputs(msg ? msg : fmt, stderr);
		fputc('\n', stderr);
	} else {
		put_msg(kind, msg ? msg : fmt);
	}
	free(msg);
}

void cmd_error(const struct bql_ctx *c, const struct bql_err *e)
{
	put_msg(c && c->cmd ? c->cmd : NULL, e->msg);
}

void cmd_info(const struct bql_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(c, NULL, fmt, ap);
	va_end(ap);
}

void cmd_note(const struct bql_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(c, "note", fmt, ap);
	va_end(ap);
}

int cmd_check_netns(const struct bql_ctx *c, const char *name)
{
	if (netns_valid_name(name))
		return 0;
	return cmd_usage(c, "-n/--netns: invalid namespace name '%s' (not empty, '.', '..' or with '/', as ip netns)",
			 name);
}

#define FMT(f)	(1u << (f))
const struct cmd_out_kind cmd_out_plot = {
	"the plot", "SVG, PNG or PDF", ".svg, .png or .pdf",
	FMT(OFILE_FMT_SVG) | FMT(OFILE_FMT_PNG) | FMT(OFILE_FMT_PDF), true, false,
};
const struct cmd_out_kind cmd_out_timeline = {
	"the timeline", "CSV or JSON lines", ".csv, .jsonl or .ndjson",
	FMT(OFILE_FMT_OTHER) | FMT(OFILE_FMT_CSV) | FMT(OFILE_FMT_JSONL), true, false,
};
const struct cmd_out_kind cmd_out_trace = {
	"the trace", "a bqltrace", ".bqlt", FMT(OFILE_FMT_OTHER) | FMT(OFILE_FMT_BQLT), true, false,
};
const struct cmd_out_kind cmd_out_record = {	/* record -o -: standard output */
	"the trace", "a bqltrace", ".bqlt", FMT(OFILE_FMT_OTHER) | FMT(OFILE_FMT_BQLT), true, true,
};
const struct cmd_out_kind cmd_out_profile = {
	"the profile", "JSON", ".json", FMT(OFILE_FMT_OTHER) | FMT(OFILE_FMT_JSON), false, true,
};

int cmd_out_name(const struct bql_ctx *c, const char *opt, const char *path,
		 const struct cmd_out_kind *k, enum ofile_fmt *fmt)
{
	struct ofile_name n;

	if (!*path)
		return k->dash ? cmd_usage(c, "%s: empty file name (- for standard output)", opt) :
				 cmd_usage(c, "%s: expected a file name (/dev/stdout for standard output)",
					   opt);
	if (!strcmp(path, "-")) {
		if (!k->dash)
			return cmd_usage(c, "%s: expected a file name (/dev/stdout for standard output)",
					 opt);
		if (fmt)
			*fmt = OFILE_FMT_OTHER;
		return 0;
	}
	ofile_name_parse(path, &n);
	if (fmt)
		*fmt = n.device ? OFILE_FMT_OTHER : n.fmt;
	if (n.device)
		return 0;
	if (n.foreign_zip)
		return cmd_usage(c, "%s: '%s': bqltool does not write %s files; %s is %s: give a name ending in %s%s",
				 opt, path, n.foreign_zip, k->what, k->is, k->endings,
				 k->zip ? " (a further .gz or .zst compresses it)" : "");
	if (n.zip && !k->zip)
		return cmd_usage(c, "%s: '%s': %s is %s, not compressed: give a name ending in %s",
				 opt, path, k->what, k->is, k->endings);
	if (n.zip && (n.fmt == OFILE_FMT_PNG || n.fmt == OFILE_FMT_PDF))
		return cmd_usage(c, "%s: '%s': %s is compressed already: give a name ending in %s",
				 opt, path, ofile_fmt_name(n.fmt), n.fmt_ext);
	if (!(k->fmts & FMT(n.fmt)))
		return cmd_usage(c, "%s: '%s': %s is %s; give a name ending in %s (or /dev/stdout)",
				 opt, path, k->what, k->is, k->endings);
	return 0;
}
#undef FMT

int cmd_output_done(const struct bql_ctx *c, int ret)
{
	if (!ret)
		return BQL_EXIT_OK;
	if (ret == -ENOMEM)	/* out_end(): a json-c allocation failed */
		return cmd_fail(c, "out of memory building the JSON output (nothing printed)");
	return cmd_fail(c, "write error on standard output: %s", strerror(-ret));
}

int cmd_fail(const struct bql_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(c, NULL, fmt, ap);
	va_end(ap);
	return BQL_EXIT_FAIL;
}

void cmd_warn(const struct bql_ctx *c, const char *fmt, ...)
{
	va_list ap;

	(void)c;
	va_start(ap, fmt);
	vmsg(c, "warning", fmt, ap);
	va_end(ap);
}

int cmd_usage(const struct bql_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(c, NULL, fmt, ap);
	va_end(ap);
	if (c && c->cmd)
		fprintf(stderr, "Try 'bqltool help %s'.\n", c->cmd);
	else
		fprintf(stderr, "Try 'bqltool help'.\n");
	return BQL_EXIT_USAGE;
}

/* @w is a cluster of short options ("-jx", not "--x") with @ch last, or inside */
static bool in_cluster(const char *w, int ch, bool last)
{
	size_t n = w ? strlen(w) : 0;

	if (n < 2 || w[0] != '-' || w[1] == '-' || !ch)
		return false;
	return last ? w[n - 1] == ch : memchr(w + 1, ch, n - 2) != NULL;
}

/*
 * --NAME[=VALUE] that getopt refused without naming an option: an
 * abbreviation of several (listed), or of none.
 */
static int bad_long_option(const struct bql_ctx *c, const char *word)
{
	const struct option *lo = cmd_getopt_longopts();
	const char *name = word + 2;
	size_t len = strcspn(name, "=");
	char list[256] = "";
	unsigned int n = 0;

	for (; lo && lo->name; lo++)	/* as cmd_find() lists commands */
		if (!strncmp(lo->name, name, len))
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s--%s",
				 n++ ? ", " : "", lo->name);
	if (n > 1)
		return cmd_usage(c, "ambiguous option '--%.*s', could be: %s", (int)len, name,
				 list);
	return cmd_usage(c, "unknown option '%s'", word);
}

int cmd_bad_option(const struct bql_ctx *c, int opt, char **argv)
{
	const char *word = optind > 0 ? argv[optind - 1] : "?";
	const char *cur = optind > 0 ? argv[optind] : NULL;

	if (opt == GOPT_FAILED)		/* a global option after the command: reported */
		return cmd_getopt_status();

	if (opt == ':') {
		if (optopt && strncmp(word, "--", 2))
			return cmd_usage(c, "option '-%c' needs an argument", optopt);
		return cmd_usage(c, "option '%s' needs an argument", word);
	}
	/*
	 * A bad letter in a cluster: getopt moves past the cluster only after
	 * its last letter, so the cluster is the word before, or the word at
	 * optind when the letter came before the end (-xj).
	 */
	if (in_cluster(word, optopt, true))
		return strlen(word) == 2 ? cmd_usage(c, "unknown option '%s'", word)
			: cmd_usage(c, "unknown option '-%c' in '%s'", optopt, word);
	if (in_cluster(cur, optopt, false))
		return cmd_usage(c, "unknown option '-%c' in '%s'", optopt, cur);
	/* a known long option given a value: optopt is its letter */
	if (optopt && !strncmp(word, "--", 2) && strchr(word, '='))
		return cmd_usage(c, "option '%.*s' takes no argument",
				 (int)(strchr(word, '=') - word), word);
	if (optopt)
		return cmd_usage(c, "unknown option '-%c'", optopt);
	if (!strncmp(word, "--", 2) && word[2])
		return bad_long_option(c, word);
	return cmd_usage(c, "unknown option '%s'", word);
}

void cmd_print_help(const struct cmd_entry *ce, FILE *f)
{
	fprintf(f, "Usage: bqltool [GLOBAL OPTIONS] %s\n\n%s.\n", ce->synopsis,
		ce->summary);
	if (ce->help && *ce->help)
		fprintf(f, "\n%s", ce->help);
	fprintf(f, "\nSee bqltool-%s(8).\n", ce->name);
}

static void print_overview(FILE *f)
{
	fputs("Usage: bqltool [GLOBAL OPTIONS] COMMAND [ARGS]\n\n"
	      "Global options:\n"
	      "  -j, --json             JSON output\n"
	      "  -p, --pretty           indented JSON (implies -j)\n"
	      "  -n, --netns NAME       run inside network namespace NAME (/run/netns/NAME)\n"
	      "      --sysfs-root DIR   read sysfs from DIR instead of /sys (env BQLTOOL_SYSFS_ROOT)\n"
	      "      --color[=WHEN]     auto, always or never (NO_COLOR is honoured)\n"
	      "  -v, --verbose          explain degraded features\n"
	      "  -h, --help             this help; 'bqltool help COMMAND' for one command\n"
	      "  -V, --version          print the version\n"
	      "Global options may also follow the command (bqltool show -j eth0), as with\n"
	      "ip and bpftool; a command's own option of the same name wins (top -n).\n\n"
	      "Commands:\n", f);
	for (int i = 0; cmd_table[i]; i++) {
		const struct cmd_entry *ce = cmd_table[i];

		if (!(ce->flags & CMD_HIDDEN))
			fprintf(f, "  %-8s %s\n", ce->name, ce->summary);
	}
	fputs("\nSelectors: DEV, DEV:N, DEV:tx-N, DEV:0-3,7, 'eth*' (no selector: every BQL device).\n"
	      "Exit status: 0 ok, 1 failure, 2 usage error, 3 replay verification mismatch.\n", f);
}

/* `help --keys`: the attribute table, for completions and man checks. */
static void print_keys(FILE *f)
{
	for (int i = 0; i < BQL_ATTR_NR; i++)
		fprintf(f, "%s %s %s\n", bql_attrs[i].name,
			bql_attrs[i].writable ? "rw" : "ro",
			bql_unit_name(bql_attrs[i].unit));
}

/*
 * `help --devices`: the devices with BQL (--all-devices: every one) that
 * -n NS or --sysfs-root see, one per line: the rule commands apply to
 * "no selector", for completions on the host and in namespaces alike.
 */
static int print_devices(struct bql_ctx *c, bool all)
{
	struct sysfs_dev *devs = NULL;
	struct bql_err e;
	size_t n = 0;

	if (sysfs_list_devs(c, &devs, &n, &e)) {
		cmd_error(c, &e);
		return BQL_EXIT_FAIL;
	}
	out_begin(c, true);
	for (size_t i = 0; i < n; i++)
		if (all || sysfs_dev_has_bql(c, devs[i].name)) {
			if (c->json)
				out_str(c, OUT_JSON, NULL, NULL, devs[i].name);
			else
				printf("%s\n", devs[i].name);
		}
	free(devs);
	return cmd_output_done(c, out_end(c));
}

/*
 * `help --queues DEV`: DEV's TX queue numbers, one per line, as -n NS or
 * --sysfs-root see them: what completions offer after "DEV:".
 */
static int print_queues(struct bql_ctx *c, const char *dev)
{
	struct bql_err e;
	unsigned int nq;

	if (sysfs_dev_check(c, dev, &e) || sysfs_count_txq(c, dev, &nq, &e)) {
		cmd_error(c, &e);
		return BQL_EXIT_FAIL;
	}
	out_begin(c, true);
	for (unsigned int q = 0; q < nq; q++) {
		if (c->json)
			out_u64(c, OUT_JSON, NULL, NULL, q);
		else
			printf("%u\n", q);
	}
	return cmd_output_done(c, out_end(c));
}

/* one command as JSON: what `help CMD` prints, by part */
static void json_command(struct bql_ctx *c, const struct cmd_entry *ce, bool options)
{
	char man[64];

	snprintf(man, sizeof(man), "bqltool-%s(8)", ce->name);
	out_open_obj(c, NULL);
	out_str(c, OUT_JSON, "name", NULL, ce->name);
	out_str(c, OUT_JSON, "synopsis", NULL, ce->synopsis);
	out_str(c, OUT_JSON, "summary", NULL, ce->summary);
	if (options)
		out_str(c, OUT_JSON, "options", NULL, ce->help ? ce->help : "");
	out_str(c, OUT_JSON, "man", NULL, man);
	out_close_obj(c);
}

/*
 * help -j: the same facts as data (bpftool prints null; a list of
 * commands with their synopses serves scripts and completions better)
 */
static int help_json(struct bql_ctx *c, int argc, char **argv)
{
	const struct cmd_entry *ce;
	struct bql_err e;

	if (argc < 2) {
		out_begin(c, false);
		out_str(c, OUT_JSON, "usage", NULL, "bqltool [GLOBAL OPTIONS] COMMAND [ARGS]");
		out_open_arr(c, "commands");
		for (int i = 0; cmd_table[i]; i++)
			if (!(cmd_table[i]->flags & CMD_HIDDEN))
				json_command(c, cmd_table[i], false);
		out_close_arr(c);
		return cmd_output_done(c, out_end(c));
	}
	if (!strcmp(argv[1], "--commands")) {
		out_begin(c, true);
		for (int i = 0; cmd_table[i]; i++)
			if (!(cmd_table[i]->flags & CMD_HIDDEN))
				out_str(c, OUT_JSON, NULL, NULL, cmd_table[i]->name);
		return cmd_output_done(c, out_end(c));
	}
	if (!strcmp(argv[1], "--keys")) {
		out_begin(c, true);
		for (int i = 0; i < BQL_ATTR_NR; i++) {
			out_open_obj(c, NULL);
			out_str(c, OUT_JSON, "name", NULL, bql_attrs[i].name);
			out_bool(c, OUT_JSON, "writable", NULL, bql_attrs[i].writable);
			out_str(c, OUT_JSON, "unit", NULL, bql_unit_name(bql_attrs[i].unit));
			out_close_obj(c);
		}
		return cmd_output_done(c, out_end(c));
	}
	ce = cmd_find(argv[1], &e);
	if (!ce)
		return cmd_usage(c, "%s", e.msg);
	out_begin(c, false);
	out_open_arr(c, "commands");
	json_command(c, ce, true);
	out_close_arr(c);
	return cmd_output_done(c, out_end(c));
}

static int help_run(struct bql_ctx *c, int argc, char **argv)
{
	const struct cmd_entry *ce;
	struct bql_err e;

	if (argc < 2 && c->json)
		return help_json(c, argc, argv);
	if (argc < 2) {
		print_overview(stdout);
		return BQL_EXIT_OK;
	}
	if (!strcmp(argv[1], "--queues")) {
		if (argc != 3)
			return cmd_usage(c, "--queues needs one device name");
		return print_queues(c, argv[2]);
	}
	if (argc > 2)
		return cmd_usage(c, "too many arguments");
	if (!strcmp(argv[1], "--devices") || !strcmp(argv[1], "--all-devices"))
		return print_devices(c, !strcmp(argv[1], "--all-devices"));
	if (c->json)
		return help_json(c, argc, argv);
	if (!strcmp(argv[1], "--keys")) {
		print_keys(stdout);
		return BQL_EXIT_OK;
	}
	if (!strcmp(argv[1], "--commands")) {
		for (int i = 0; cmd_table[i]; i++)
			if (!(cmd_table[i]->flags & CMD_HIDDEN))
				printf("%s\n", cmd_table[i]->name);
		return BQL_EXIT_OK;
	}
	ce = cmd_find(argv[1], &e);
	if (!ce)
		return cmd_usage(c, "%s", e.msg);
	cmd_print_help(ce, stdout);
	return BQL_EXIT_OK;
}

const struct cmd_entry cmd_help_entry = {
	.name = "help",
	.synopsis = "help [COMMAND]",
	.summary = "Show help for bqltool or one command",
	.help = "  --commands     list the command names, one per line\n"
		"  --keys         list the BQL attributes: name, rw|ro, unit\n"
		"  --devices      list the devices with BQL (what no selector means), one per\n"
		"                 line, in the namespace of -n; --all-devices lists every one\n"
		"  --queues DEV   list DEV's TX queue numbers, one per line (namespace of -n)\n"
		"With -j: the same as JSON (commands with synopsis, summary, options, man page;\n"
		"arrays for the lists)\n",
	.run = help_run,
};

void cmd_print_overview(FILE *f)
{
	print_overview(f);
}
