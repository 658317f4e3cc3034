// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool tune --from: what the fit saw beyond the model (busy queues and
 * periods) and how well the fitted model, simulated, reproduces the trace,
 * for the report of tune_out.c, text or JSON.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "cmd/cmd.h"
#include "cmd/sim_opts.h"
#include "cmd/tune.h"
#include "lib/io/out.h"
#include "lib/io/units.h"

/* what does not fit, as words (the keys of TUNE_MISFIT_*) */
static const struct { unsigned int bit; const char *key; } misfits[] = {
	{ TUNE_MISFIT_FEW, "few_completions" },
	{ TUNE_MISFIT_NEVER_BUSY, "never_busy" },
	{ TUNE_MISFIT_OVERLOAD, "above_link" },
	{ TUNE_MISFIT_RANGE, "link_out_of_range" },
	{ TUNE_MISFIT_SIM, "not_reproduced" },
};

/* "misfit" and "goodness_of_fit": the fitted model simulated, against the trace */
void tx_json_fit(struct tx *x)
{
	const struct tune_gof *g = &x->gof;
	struct bql_ctx *c = x->c;

	out_open_arr(c, "misfit");
	for (size_t i = 0; i < sizeof(misfits) / sizeof(misfits[0]); i++)
		if (x->fit.misfit & misfits[i].bit)
			out_str(c, OUT_JSON, NULL, NULL, misfits[i].key);
	out_close_arr(c);
	if (!x->gof_done) {
		out_null(c, "goodness_of_fit");
		return;
	}
	out_open_obj(c, "goodness_of_fit");
	out_bool(c, OUT_JSON, "ok", NULL, g->ok);
	out_open_obj(c, "model");
	out_u64(c, OUT_JSON, "busy_intervals", NULL, g->model.busy_intervals);
	out_u64(c, OUT_JSON, "busy_interval_p50_ns", NULL, g->model.busy_gap_p50_ns);
	out_u64(c, OUT_JSON, "busy_bytes_p50", NULL, g->model.busy_batch_p50);
	out_u64(c, OUT_JSON, "completion_interval_p50_ns", NULL, g->model.gap_p50_ns);
	out_u64(c, OUT_JSON, "completion_bytes_p50", NULL, g->model.batch_p50);
	out_u64(c, OUT_JSON, "completed_bps", NULL, (uint64_t)llround(g->model.completed_bps));
	out_open_obj(c, "limit");
	out_u64(c, OUT_JSON, "min", NULL, g->model.limit_min);
	out_u64(c, OUT_JSON, "max", NULL, g->model.limit_max);
	out_dbl_fixed(c, "mean", g->model.limit_mean, 1);
	out_close_obj(c);
	out_close_obj(c);
	out_dbl_fixed(c, "interval_error", g->interval_err, 4);
	out_dbl_fixed(c, "batch_error", g->batch_err, 4);
	out_dbl_fixed(c, "throughput_error", g->throughput_err, 4);
	out_dbl_fixed(c, "limit_error", g->limit_err, 4);
	out_close_obj(c);
}

/* the fitted model simulated against the trace, one line */
void tx_text_fit(struct tx *x)
{
	const struct tune_fitted *f = &x->fit, *m = &x->gof.model;
	const struct tune_gof *g = &x->gof;
	struct bql_ctx *c = x->c;
	char a[32], b[32], d[32], e[32], b1[32], b2[32], l1[32], l2[32];
	bool busy;

	out_text(c, "  %u of %u active queue%s busy most of the time, busy %.0f%% of the trace (%" PRIu64 " busy periods)\n",
		 f->busy_queues, f->active, f->active == 1 ? "" : "s", f->busy_frac * 100,
		 f->busy_periods);
	if (!x->gof_done)
		return;
	busy = f->busy_intervals >= TUNE_FIT_MIN_BUSY && m->busy_intervals >= TUNE_FIT_MIN_BUSY;
	out_text(c, "  goodness of fit (the model simulated vs the trace): %scompletion interval %s vs %s (%+.0f%%), %s vs %s per completion (%+.0f%%), %s vs %s completed (%+.0f%%), mean limit %s vs %s (%+.0f%%): %s\n",
		 busy ? "busy " : "",
		 sim_fmt_ns(a, sizeof(a), busy ? m->busy_gap_p50_ns : m->gap_p50_ns),
		 sim_fmt_ns(b, sizeof(b), busy ? f->busy_gap_p50_ns : f->gap_p50_ns),
		 g->interval_err * 100 * ((busy ? m->busy_gap_p50_ns : m->gap_p50_ns) <
					  (busy ? f->busy_gap_p50_ns : f->gap_p50_ns) ? -1 : 1),
		 units_fmt_bytes(b1, sizeof(b1), busy ? m->busy_batch_p50 : m->batch_p50),
		 units_fmt_bytes(b2, sizeof(b2), busy ? f->busy_batch_p50 : f->batch_p50),
		 g->batch_err * 100 * ((busy ? m->busy_batch_p50 : m->batch_p50) <
				       (busy ? f->busy_batch_p50 : f->batch_p50) ? -1 : 1),
		 sim_fmt_rate(d, sizeof(d), m->completed_bps), sim_fmt_rate(e, sizeof(e), f->completed_bps),
		 g->throughput_err * 100 * (m->completed_bps < f->completed_bps ? -1 : 1),
		 units_fmt_bytes(l1, sizeof(l1), (uint64_t)(m->limit_mean + 0.5)),
		 units_fmt_bytes(l2, sizeof(l2), (uint64_t)(f->limit_mean + 0.5)), g->limit_err * 100 * (m->limit_mean < f->limit_mean ? -1 : 1),
		 g->ok ? "fits" : "does not fit");
}
