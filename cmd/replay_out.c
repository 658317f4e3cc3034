// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool replay: the per-queue summary (text table or JSON) and the
 * verdict of --verify.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/replay.h"
#include "dql/dql.h"
#include "lib/io/esc.h"
#include "lib/io/jsonw.h"
#include "lib/io/out.h"
#include "lib/io/qname.h"
#include "lib/io/table.h"
#include "lib/io/units.h"

static const char *kernel_label(const struct rx *x)
{
	return x->kernel ? x->kernel : "newest";
}

/*
 * The DQL semantics a --kernel version selects: the mainline range with
 * the same behaviour ("3.5-6.0") and what differs from the newest.
 */
static const struct {
	const char *from, *range;
} eras[] = {
	{ "6.15", "6.15 and later" }, { "6.10", "6.10-6.14" }, { "6.9", "6.9" },
	{ "6.1", "6.1-6.8" }, { "3.5", "3.5-6.0" }, { "3.3", "3.3-3.4" },
};

static const char *semantics_range(unsigned int kflags)
{
	for (size_t i = 0; i < sizeof(eras) / sizeof(eras[0]); i++) {
		unsigned int f;

		if (!dql_kernel_parse(eras[i].from, &f, NULL) && f == kflags)
			return eras[i].range;
	}
	return "?";
}

static void semantics_text(char *buf, size_t n, unsigned int kflags)
{
	size_t len = (size_t)snprintf(buf, n, "DQL as in %s", semantics_range(kflags));

	if (!(kflags & DQL_K_POSDIFF_WRAP))
		len += (size_t)snprintf(buf + len, n - len, "; time compares without wrap");
	if (!(kflags & DQL_K_CLAMP_61))
		len += (size_t)snprintf(buf + len, n - len,
					"; limit_max wins when limit_min > limit_max");
	if (!(kflags & DQL_K_STALL))
		len += (size_t)snprintf(buf + len, n - len, "; no stall detector");
	else if (!(kflags & DQL_K_HIST_ON_THRS))
		len += (size_t)snprintf(buf + len, n - len,
					"; stall history kept with stall_thrs 0");
	if (!(kflags & DQL_K_RESET_MIN))
		snprintf(buf + len, n - len, "; reset leaves limit at 0");
}

bool rx_whatif(const struct rx *x, const struct rfile *f)
{
	unsigned int newest;

	if (x->opts.set_mask)
		return true;
	if (x->hz && x->hz != bqlt_trace_hz(&f->p))
		return true;
	return x->kernel && !dql_kernel_parse("newest", &newest, NULL) &&
	       newest != x->opts.kflags;
}

/* "--kernel 3.5, --set hold_time=100ms": the options of a what-if for @f */
void rx_whatif_text(char *buf, size_t n, const struct rx *x, const struct rfile *f)
{
	unsigned int newest;
	size_t len = 0;

	buf[0] = '\0';
	if (x->kernel && !dql_kernel_parse("newest", &newest, NULL) && newest != x->opts.kflags)
		len += (size_t)snprintf(buf + len, n - len, "--kernel %s", x->kernel);
	if (x->hz && x->hz != bqlt_trace_hz(&f->p) && len < n)
		len += (size_t)snprintf(buf + len, n - len, "%s--hz %u (the trace's: %u)",
					len ? ", " : "", x->hz, bqlt_trace_hz(&f->p));
	for (int i = 0; i < 4 && len < n; i++)
		if (x->set_arg[i])
			len += (size_t)snprintf(buf + len, n - len, "%s--set %s",
						len ? ", " : "", x->set_arg[i]);
}

/*
 * One queue's object, streamed (lib/io/jsonw.h): a json-c tree of 3e5 queues
 * took seconds and gigabytes; the bytes are those the tree printed. @file,
 * @kernel and @sem are the JSON strings, made once per file.
 */
static void json_queue(struct jsonw *w, const struct rfile *f, unsigned int i,
		       const char *file, const char *kernel, const char *sem, bool whatif)
{
	struct replay_stats st;
	char mean[32];

	replay_queue_stats(&f->r, i, &st);
	jsonw_obj_open(w, NULL);
	/* name, and ifname + queue for DEV:tx-N (lib/io/qname.h) */
	qname_jsonw_trace(w, replay_queue_name(&f->r, i));
	jsonw_raw(w, "file", file);
	jsonw_u64(w, "hz", f->p.hz);
	jsonw_raw(w, "kernel", kernel);
	jsonw_raw(w, "semantics", sem);
	jsonw_u64(w, "records", st.records);
	jsonw_u64(w, "completions", st.completions);
	jsonw_u64(w, "bytes_queued", st.bytes_queued);
	jsonw_u64(w, "bytes_completed", st.bytes_completed);
	jsonw_obj_open(w, "limit");
	if (st.created)
		jsonw_u64(w, "final", st.limit_final);
	else
		jsonw_null(w, "final");
	if (st.completions) {
		jsonw_u64(w, "min", st.limit_min);
		jsonw_u64(w, "max", st.limit_max);
		jsonw_fmt_1f(mean, sizeof(mean), st.limit_mean);
		jsonw_raw(w, "mean", mean);
	} else {
		jsonw_null(w, "min");
		jsonw_null(w, "max");
		jsonw_null(w, "mean");
	}
	jsonw_obj_close(w);
	jsonw_u64(w, "increases", st.increases);
	jsonw_u64(w, "decreases", st.decreases);
	jsonw_u64(w, "starvations", st.starvations);
	jsonw_u64(w, "stops", st.stops);
	jsonw_u64(w, "stall_cnt", st.stall_cnt);
	jsonw_u64(w, "stall_max", st.stall_max);
	jsonw_obj_open(w, "verify");
	jsonw_u64(w, "checked", st.verify_checked);
	jsonw_u64(w, "mismatches", st.verify_mismatches);
	jsonw_obj_close(w);
	/*
	 * a what-if is expected to differ from the recorded limits: how
	 * much it does, against the C records' limit= (verify's counts)
	 */
	jsonw_raw(w, "whatif", whatif ? "true" : "false");
	if (whatif) {
		jsonw_obj_open(w, "recorded");
		jsonw_u64(w, "ncompared", st.verify_checked);
		jsonw_u64(w, "ndiffer", st.verify_mismatches);
		if (st.verify_checked)
			jsonw_u64(w, "limit_final", st.observed_final);
		else
			jsonw_null(w, "limit_final");
		jsonw_obj_close(w);
	}
	jsonw_u64(w, "nq_disagree", st.nq_disagree);
	jsonw_u64(w, "queued_ignored", st.queued_ignored);
	jsonw_obj_close(w);
}

/* @s as a JSON string (lib/io/esc.h), malloc'd; NULL when out of memory */
static char *json_string(const char *s)
{
	size_t n = strlen(s);
	char *j = malloc(ESC_MAX_PER_BYTE * n + 3);

	if (j)
		j[esc_json_c_str(j, s, n)] = '\0';
	return j;
}

/*
 * {"queues":[...]}, streamed: 0 or -errno. Memory is taken before the
 * first byte (-ENOMEM then: nothing printed); later only an object over
 * the writer's 256 KiB could need more (a path of 40 KiB).
 */
static int json_summary(struct rx *x)
{
	char *kernel = json_string(kernel_label(x));
	char *sem = json_string(semantics_range(x->opts.kflags));
	struct jsonw w;
	int ret = -ENOMEM;

	if (!kernel || !sem || jsonw_init(&w, x->c->out, x->c->pretty))
		goto out;
	jsonw_obj_open(&w, NULL);
	jsonw_arr_open(&w, "queues");
	for (int k = 0; k < x->nfiles && !w.err; k++) {
		const struct rfile *f = &x->files[k];
		char *file = json_string(f->path);
		bool whatif = rx_whatif(x, f);

		if (!file) {
			w.err = -ENOMEM;
			break;
		}
		for (unsigned int i = 0; i < replay_queue_count(&f->r); i++) {
			json_queue(&w, f, i, file, kernel, sem, whatif);
			if (w.len >= 64 * 1024)
				jsonw_flush(&w);
		}
		free(file);
	}
	jsonw_arr_close(&w);
	jsonw_obj_close(&w);
	ret = jsonw_end(&w);
out:
	free(kernel);
	free(sem);
	return ret;
}

static const char *const text_cols[] = {
	"queue", "completions", "final", "min", "max", "mean", "starvations",
	"stops", "increases", "decreases", "stalls", "stall_max", "verify",
};
#define NCOLS	((int)(sizeof(text_cols) / sizeof(text_cols[0])))
/* a what-if's last columns, instead of verify: against the recorded run */
static const char *const whatif_cols[] = { "recorded_final", "differs" };

/* 0, or -ENOMEM: the table could not be built (nothing of it printed) */
static int text_file(struct rx *x, const struct rfile *f)
{
	unsigned int nq = replay_queue_count(&f->r);
	/* without --verify, a what-if shows how it differs, not a verdict */
	bool whatif = rx_whatif(x, f), diff = whatif && !x->verify;
	int ncols = diff ? NCOLS + 1 : NCOLS;
	uint64_t checked = 0, differ = 0;
	unsigned int ndiffer = 0;
	uint32_t rec_final = 0;
	char final[32] = "-", hb[32];
	struct table t;
	char ms[32];
	char sem[256], opts[512];

	semantics_text(sem, sizeof(sem), x->opts.kflags);
	out_text(x->c, "%s: hz %u, kernel %s (%s), %u queue%s\n", f->path, f->p.hz,
		 kernel_label(x), sem, nq, nq == 1 ? "" : "s");
	if (!nq)
		return 0;
	table_init(&t, ncols, 1u << 0, 2);
	if (table_row(&t))
		return -ENOMEM;
	for (int k = 0; k < NCOLS - 1; k++)
		table_cell(&t, k, "%s", text_cols[k]);
	if (diff) {
		table_cell(&t, NCOLS - 1, "%s", whatif_cols[0]);
		table_cell(&t, NCOLS, "%s", whatif_cols[1]);
	} else {
		table_cell(&t, NCOLS - 1, "%s", text_cols[NCOLS - 1]);
	}
	for (unsigned int i = 0; i < nq; i++) {
		struct replay_stats st;

		replay_queue_stats(&f->r, i, &st);
		if (table_row(&t)) {
			table_free(&t);
			return -ENOMEM;
		}
		table_cell(&t, 0, "%s", replay_queue_name(&f->r, i));
		table_cell(&t, 1, "%" PRIu64, st.completions);
		/* limits in the one human format (lib/io/units.c); -j has the bytes */
		if (st.created)
			table_cell(&t, 2, "%s", units_fmt_bytes(hb, sizeof(hb), st.limit_final));
		else
			table_cell(&t, 2, "-");
		if (st.completions) {
			table_cell(&t, 3, "%s", units_fmt_bytes(hb, sizeof(hb), st.limit_min));
			table_cell(&t, 4, "%s", units_fmt_bytes(hb, sizeof(hb), st.limit_max));
			table_cell(&t, 5, "%s", units_fmt_bytes(hb, sizeof(hb),
							    (uint64_t)(st.limit_mean + 0.5)));
		} else {
			table_cell(&t, 3, "-");
			table_cell(&t, 4, "-");
			table_cell(&t, 5, "-");
		}
		table_cell(&t, 6, "%" PRIu64, st.starvations);
		table_cell(&t, 7, "%" PRIu64, st.stops);
		table_cell(&t, 8, "%" PRIu64, st.increases);
		table_cell(&t, 9, "%" PRIu64, st.decreases);
		table_cell(&t, 10, "%" PRIu64, st.stall_cnt);
		table_cell(&t, 11, "%s", units_fmt_ms(ms, sizeof(ms),
			   dql_jiffies_to_msecs(st.stall_max, f->p.hz)));
		checked += st.verify_checked;
		differ += st.verify_mismatches;
		rec_final = st.observed_final;
		if (st.created)
			units_fmt_bytes(final, sizeof(final), st.limit_final);
		ndiffer += st.verify_mismatches > 0;
		if (diff && !st.verify_checked) {
			table_cell(&t, 12, "-");
			table_cell(&t, 13, "-");
		} else if (diff) {
			table_cell(&t, 12, "%s", units_fmt_bytes(hb, sizeof(hb), st.observed_final));
			table_cell(&t, 13, "%" PRIu64 "/%" PRIu64,
				   st.verify_mismatches, st.verify_checked);
		} else if (!st.verify_checked) {
			table_cell(&t, 12, "-");
		} else if (!st.verify_mismatches) {
			table_cell(&t, 12, "ok %" PRIu64, st.verify_checked);
		} else {
			table_cell(&t, 12, "FAIL %" PRIu64 "/%" PRIu64,
				   st.verify_mismatches, st.verify_checked);
		}
	}
	table_print(&t, x->c->out);
	table_free(&t);
	if (!diff)
		return 0;
	rx_whatif_text(opts, sizeof(opts), x, f);
	if (!checked)
		out_text(x->c, "what-if (%s): the trace records no limit= to compare with\n", opts);
	else if (nq == 1)
		out_text(x->c, "what-if (%s): differs from the recorded run at %" PRIu64 " of %"
			 PRIu64 " limits, final %s vs recorded %s (--verify: a verdict, exit 3)\n",
			 opts, differ, checked, final, units_fmt_bytes(hb, sizeof(hb), rec_final));
	else
		out_text(x->c, "what-if (%s): differs from the recorded run at %" PRIu64 " of %"
			 PRIu64 " limits, in %u of %u queues (--verify: a verdict, exit 3)\n",
			 opts, differ, checked, ndiffer, nq);
	return 0;
}

int rx_summary(struct rx *x)
{
	struct bql_ctx *c = x->c;

	if (c->json)
		return cmd_output_done(c, json_summary(x)) ? BQL_EXIT_FAIL : 0;
	for (int k = 0; k < x->nfiles; k++) {
		if (k)
			out_nl(c);
		if (text_file(x, &x->files[k])) {
			out_discard(c);
			return cmd_fail(c, "out of memory building the summary table");
		}
	}
	if (cmd_output_done(c, out_end(c)))
		return BQL_EXIT_FAIL;
	return 0;
}

int rx_verify_report(struct rx *x)
{
	uint64_t checked = 0;
	uint64_t i;

	for (int k = 0; k < x->nfiles; k++) {
		for (unsigned int q = 0; q < replay_queue_count(&x->files[k].r); q++) {
			struct replay_stats st;

			replay_queue_stats(&x->files[k].r, q, &st);
			checked += st.verify_checked;
		}
	}
	if (!checked) {
		if (!x->quiet)
			cmd_warn(x->c, "--verify: no C record carries limit=, nothing was verified");
		return BQL_EXIT_OK;
	}
	if (!x->nmismatch)
		return BQL_EXIT_OK;
	for (i = 0; i < x->nmismatch && i < MAX_LISTED; i++) {
		const struct mismatch *m = &x->listed[i];

		cmd_fail(x->c, "%s:%" PRIu64 ": queue %s: limit observed %" PRIu32
			 ", computed %" PRIu32, m->path, m->line, m->queue,
			 m->observed, m->computed);
	}
	if (x->nmismatch > MAX_LISTED)
		cmd_fail(x->c, "... and %" PRIu64 " more", x->nmismatch - MAX_LISTED);
	cmd_fail(x->c, "verification failed: %" PRIu64 " of %" PRIu64 " limits differ",
		 x->nmismatch, checked);
	return BQL_EXIT_MISMATCH;
}
