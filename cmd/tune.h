/* SPDX-License-Identifier: GPL-2.0-only */
/* Private to cmd/tune*.c: one `bqltool tune` run. */
#ifndef BQLTOOL_CMD_TUNE_H
#define BQLTOOL_CMD_TUNE_H

#include <stdbool.h>
#include <stdint.h>

#include "cmd/sim_opts.h"
#include "cmd/tune_dev.h"
#include "dql/tune.h"
#include "dql/tune_fit.h"
#include "lib/io/ctx.h"
#include "lib/model/tune_eval.h"

struct tx {
	struct bql_ctx *c;
	struct sim_opts o;
	const char *from;		/* --from TRACE */
	bool force;			/* --force: past a trace that fits no model */
	char *sel;			/* SEL as typed, NULL = none */
	bool apply;
	bool qdisc_given;		/* --qdisc (else eng.qdisc is the device's) */
	/*
	 * The search (lib/model/tune_eval.h): its inputs, filled here
	 * (--keep, --min-gain, --threads, --qdisc, the floor below), and
	 * what it found, for the advice and the report.
	 */
	struct tune_engine eng;
	bool progress, drawn;		/* progress on the terminal, a line drawn */
	/* the model's origin, for the report */
	bool fitted;
	struct tune_fitted fit;
	struct sim_config fit_cfg;	/* the fitted model, no option over it */
	struct tune_gof gof;		/* fit_cfg simulated against the trace */
	bool gof_done;
	bool from_device;
	char dev[16];
	uint64_t dev_mbps;
	unsigned int dev_queues;
	/* the device's TX ring and coalescing (ethtool genl); present 0: unknown */
	unsigned int dev_ring, dev_coal_usecs, dev_coal_frames;
	bool dev_has_ring, dev_has_usecs, dev_has_frames;
	char dev_eth_note[256];		/* why they are unknown */
	struct tx_dev dev_info;		/* the first selected device, read */
	/* eng.floor: the lowest limit_max check's rules let the advice have on SEL (0: none) */
	char floor_dev[16];		/* the device it comes from */
	const char *floor_rule;		/* "limit-max-below-frame" or "-irq" */
	/* the advice */
	char command[512];		/* "bqltool set SEL ..." or "" */
	char reason[512];
	char why[4][512];		/* the answer's reasons, in words */
	struct sim_warning warn[SIM_MAX_WARN];	/* the model's, as sim says them */
	unsigned int nwarn;
	unsigned int nwhy;
};

/*
 * tune_dev.c: the model from the selected device(s), read-only; a usage
 * error (2) when the device does not give what the model needs (its link
 * speed) and no option does, or when the selected devices differ.
 */
int tx_model_from_device(struct tx *x, const struct sel_result *t);
/*
 * tx_limit_floor - x->eng.floor: the lowest limit_max that check's rules
 * (lib/model/rules.h rules_limit_max_floor) accept on every selected device, so
 * that the advice for SEL, printed or applied, is never one they flag.
 */
void tx_limit_floor(struct tx *x, const struct sel_result *t);
/* the qdisc kind of a tc kind name: fq_codel -> FQ, pfifo_fast -> FIFO */
enum tune_qdisc tx_qdisc_kind(const char *kind);
/* @s as one shell word (quoted if needed) in @buf, or NULL if it does not fit */
char *tx_shell_word(char *buf, size_t n, const char *s);
/* x->command ("bqltool set SEL ...") with SEL quoted for the shell where needed */
void tx_quote_command(struct tx *x);
/* tune_fit_out.c: what was fitted and how well, in the report */
void tx_json_fit(struct tx *x);
void tx_text_fit(struct tx *x);

/* tune_out.c: the advice in words (x->reason, x->why, x->command), then the report */
void tx_advise(struct tx *x);
/* why the engine requires the lateness it does: "half of the 760 us the defaults hold" */
const char *tx_late_why(const struct tx *x, char *buf, size_t n);
int tx_report(struct tx *x);
const char *tune_qdisc_name(enum tune_qdisc q);

#endif
