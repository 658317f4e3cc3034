/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The model of `bqltool tune --from TRACE`, pure: fed with every record of
 * a replay over the trace, it writes a sim_config and describes what it
 * fitted. No I/O.
 */
#ifndef BQLTOOL_DQL_TUNE_FIT_H
#define BQLTOOL_DQL_TUNE_FIT_H

#include <stdbool.h>
#include <stdint.h>

#include "replay.h"
#include "sim.h"

/*
 * struct tune_fit - a model from a trace, fed with every replayed record
 * (tune_fit_event) of a replay over it.
 */
struct tune_fit_queue {
	uint32_t inflight;
	uint64_t q_bytes, q_pkts;
	uint64_t c_bytes, c_cnt, c_last;
};

struct tune_fit {
	unsigned int nq;		/* queues seen */
	unsigned int hz;
	bool any;
	uint64_t t_first, t_last;
	/* per queue of the trace, as many as it has (grown as they come) */
	struct tune_fit_queue *q;
	unsigned int qcap;
	uint64_t inflight;		/* of all queues */
	/* packet sizes (Q records, else lo=) */
	uint64_t pkts, pkt_bytes;
	uint32_t pkt_min, pkt_max;
	/* link: completions while the ring did not run dry */
	uint64_t busy_bytes, busy_ns, busy_n;
	uint64_t total_at_c, last_c;
	bool have_c;
	struct sim_hist c_size, c_gap, busy_gap;
	int err;			/* -ENOMEM */
};

/* struct tune_fitted - what was fitted, for the report */
struct tune_fitted {
	bool link_ok;			/* the link rate could be observed */
	bool link_assumed;		/* not observed: a common rate above the load */
	uint64_t link_bps;
	uint64_t busy_intervals;
	uint64_t gap_p50_ns, gap_p10_ns;	/* between completions of a queue */
	uint64_t batch_p50;		/* bytes per completion */
	unsigned int coalesce_usecs;
	double offered_bps;
	double load;			/* offered / link */
	bool bulk;			/* modelled as backlogged */
	unsigned int nqueues, active;	/* of the trace */
	bool folded;			/* more than SIM_MAX_QUEUES: i on i mod it */
	bool pkt_seen;			/* sizes from Q records, else assumed 1514 */
	uint32_t pkt_min, pkt_max;
	double pkt_mean;
	uint64_t duration_ns;
	unsigned int hz;
};

void tune_fit_init(struct tune_fit *f);
void tune_fit_free(struct tune_fit *f);
void tune_fit_event(struct tune_fit *f, const struct replay_event *ev, unsigned int hz);
/*
 * tune_fit_finish - write the fitted model into @cfg (link unless
 * @keep_link, queues unless @keep_queues, traffic unless @keep_traffic,
 * coalescing, HZ) and describe it in @out. The model has the trace's
 * queues, at most SIM_MAX_QUEUES (or @cfg's with @keep_queues): the
 * traffic of trace queue i goes to model queue i modulo their number.
 * -EINVAL with @e if the trace has no completion, -ENOMEM.
 */
int tune_fit_finish(const struct tune_fit *f, struct sim_config *cfg, bool keep_link,
		    bool keep_queues, bool keep_traffic, struct tune_fitted *out,
		    struct bql_err *e);

#endif
