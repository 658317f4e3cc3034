// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool replay: the per-queue summary (text table or JSON) and the
 * verdict of --verify.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include <json-c/json.h>

#include "cmd/cmd.h"
#include "cmd/replay.h"
#include "dql/dql.h"
#include "lib/out.h"
#include "lib/table.h"
#include "lib/units.h"

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

static void json_queue(struct rx *x, const struct rfile *f, unsigned int i)
{
	struct bql_ctx *c = x->c;
	struct replay_stats st;
	char mean[32];

	replay_queue_stats(&f->r, i, &st);
	out_open_obj(c, NULL);
	out_str(c, OUT_JSON, "file", NULL, f->path);
	out_str(c, OUT_JSON, "queue", NULL, replay_queue_name(&f->r, i));
	out_u64(c, OUT_JSON, "hz", NULL, f->p.hz);
	out_str(c, OUT_JSON, "kernel", NULL, kernel_label(x));
	out_str(c, OUT_JSON, "semantics", NULL, semantics_range(x->opts.kflags));
	out_u64(c, OUT_JSON, "records", NULL, st.records);
	out_u64(c, OUT_JSON, "completions", NULL, st.completions);
	out_u64(c, OUT_JSON, "bytes_queued", NULL, st.bytes_queued);
	out_u64(c, OUT_JSON, "bytes_completed", NULL, st.bytes_completed);
	out_open_obj(c, "limit");
	if (st.created)
		out_u64(c, OUT_JSON, "final", NULL, st.limit_final);
	else
		out_null(c, "final");
	if (st.completions) {
		out_u64(c, OUT_JSON, "min", NULL, st.limit_min);
		out_u64(c, OUT_JSON, "max", NULL, st.limit_max);
		snprintf(mean, sizeof(mean), "%.1f", st.limit_mean);
		out_json(c, "mean", json_object_new_double_s(st.limit_mean, mean));
	} else {
		out_null(c, "min");
		out_null(c, "max");
		out_null(c, "mean");
	}
	out_close_obj(c);
	out_u64(c, OUT_JSON, "increases", NULL, st.increases);
	out_u64(c, OUT_JSON, "decreases", NULL, st.decreases);
	out_u64(c, OUT_JSON, "starvations", NULL, st.starvations);
	out_u64(c, OUT_JSON, "stops", NULL, st.stops);
	out_u64(c, OUT_JSON, "stall_cnt", NULL, st.stall_cnt);
	out_u64(c, OUT_JSON, "stall_max", NULL, st.stall_max);
	out_open_obj(c, "verify");
	out_u64(c, OUT_JSON, "checked", NULL, st.verify_checked);
	out_u64(c, OUT_JSON, "mismatches", NULL, st.verify_mismatches);
	out_close_obj(c);
	out_u64(c, OUT_JSON, "nq_disagree", NULL, st.nq_disagree);
	out_u64(c, OUT_JSON, "queued_ignored", NULL, st.queued_ignored);
	out_close_obj(c);
}

static const char *const text_cols[] = {
	"queue", "completions", "final", "min", "max", "mean", "starvations",
	"stops", "increases", "decreases", "stalls", "stall_max", "verify",
};
#define NCOLS	((int)(sizeof(text_cols) / sizeof(text_cols[0])))

/* 0, or -ENOMEM: the table could not be built (nothing of it printed) */
static int text_file(struct rx *x, const struct rfile *f)
{
	unsigned int nq = replay_queue_count(&f->r);
	struct table t;
	char ms[32];

	char sem[256];

	semantics_text(sem, sizeof(sem), x->opts.kflags);
	out_text(x->c, "%s: hz %u, kernel %s (%s), %u queue%s\n", f->path, f->p.hz,
		 kernel_label(x), sem, nq, nq == 1 ? "" : "s");
	if (!nq)
		return 0;
	table_init(&t, NCOLS, 1u << 0, 2);
	if (table_row(&t))
		return -ENOMEM;
	for (int k = 0; k < NCOLS; k++)
		table_cell(&t, k, "%s", text_cols[k]);
	for (unsigned int i = 0; i < nq; i++) {
		struct replay_stats st;

		replay_queue_stats(&f->r, i, &st);
		if (table_row(&t)) {
			table_free(&t);
			return -ENOMEM;
		}
		table_cell(&t, 0, "%s", replay_queue_name(&f->r, i));
		table_cell(&t, 1, "%" PRIu64, st.completions);
		if (st.created)
			table_cell(&t, 2, "%" PRIu32, st.limit_final);
		else
			table_cell(&t, 2, "-");
		if (st.completions) {
			table_cell(&t, 3, "%" PRIu32, st.limit_min);
			table_cell(&t, 4, "%" PRIu32, st.limit_max);
			table_cell(&t, 5, "%.1f", st.limit_mean);
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
		if (!st.verify_checked)
			table_cell(&t, 12, "-");
		else if (!st.verify_mismatches)
			table_cell(&t, 12, "ok %" PRIu64, st.verify_checked);
		else
			table_cell(&t, 12, "FAIL %" PRIu64 "/%" PRIu64,
				   st.verify_mismatches, st.verify_checked);
	}
	table_print(&t, x->c->out);
	table_free(&t);
	return 0;
}

int rx_summary(struct rx *x)
{
	struct bql_ctx *c = x->c;

	if (c->json) {
		out_begin(c, false);
		out_open_arr(c, "queues");
		for (int k = 0; k < x->nfiles; k++)
			for (unsigned int i = 0; i < replay_queue_count(&x->files[k].r); i++)
				json_queue(x, &x->files[k], i);
		out_close_arr(c);
	} else {
		for (int k = 0; k < x->nfiles; k++) {
			if (k)
				out_nl(c);
			if (text_file(x, &x->files[k])) {
				out_discard(c);
				return cmd_fail(c, "out of memory building the summary table");
			}
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
