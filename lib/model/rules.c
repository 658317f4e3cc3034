// SPDX-License-Identifier: GPL-2.0-only
/* The settings rules set and check share (lib/model/rules.h). */
#include <stdio.h>
#include <string.h>

#include "lib/model/plan.h"
#include "lib/model/rules.h"
#include "lib/io/units.h"
#include <inttypes.h>

int rules_settings(const struct bql_queue *q, unsigned int mtu,
		   const char *release, struct rule_hit *hits)
{
	const uint64_t *v = q->val;
	char a[32], b[32];
	int n = 0;

	if (bql_has(q, BQL_LIMIT_MIN) && bql_has(q, BQL_LIMIT_MAX) &&
	    v[BQL_LIMIT_MIN] > v[BQL_LIMIT_MAX]) {
		hits[n].level = RULE_FAIL;
		hits[n].code = "limit-min-above-max";
		snprintf(hits[n].msg, sizeof(hits[n].msg),
			 "limit_min %s > limit_max %s contradict each other: %s",
			 bql_fmt_human(a, sizeof(a), BQL_LIMIT_MIN, v[BQL_LIMIT_MIN], 0),
			 bql_fmt_human(b, sizeof(b), BQL_LIMIT_MAX, v[BQL_LIMIT_MAX], 0),
			 plan_clamp_rule(release));
		n++;
	}
	if (mtu && bql_has(q, BQL_LIMIT_MAX) &&
	    v[BQL_LIMIT_MAX] < (uint64_t)mtu + ETH_FRAME_OVERHEAD) {
		hits[n].level = RULE_WARN;
		hits[n].code = "limit-max-below-frame";
		snprintf(hits[n].msg, sizeof(hits[n].msg),
			 "limit_max %s is below one full-size frame (MTU %u + %d): "
			 "BQL lets one packet at a time in flight",
			 bql_fmt_human(a, sizeof(a), BQL_LIMIT_MAX, v[BQL_LIMIT_MAX], 0), mtu,
			 ETH_FRAME_OVERHEAD);
		n++;
	}
	return n;
}

uint64_t rules_irq_worth(const struct rules_path_in *in)
{
	uint64_t by_time = 0, by_frames = 0;

	if (!in->speed_mbps)
		return 0;
	if (in->has_usecs && in->tx_usecs)
		by_time = (uint64_t)in->tx_usecs * in->speed_mbps / 8;
	if (in->has_frames && in->tx_frames > 1 && in->mtu)
		by_frames = (uint64_t)in->tx_frames * (in->mtu + ETH_FRAME_OVERHEAD);
	if (by_time && by_frames)
		return by_time < by_frames ? by_time : by_frames;
	return by_time ? by_time : by_frames;
}

uint64_t rules_limit_max_floor(const struct rules_path_in *in)
{
	uint64_t frame = in->mtu ? (uint64_t)in->mtu + ETH_FRAME_OVERHEAD : 0;
	uint64_t worth = rules_irq_worth(in);

	return frame > worth ? frame : worth;
}

static bool fifo_kind(const char *kind)
{
	return !strcmp(kind, "pfifo_fast") || !strcmp(kind, "pfifo") || !strcmp(kind, "bfifo") ||
	       !strcmp(kind, "pfifo_head_drop");
}

int rules_path(const struct rules_path_in *in, struct rule_hit *hits)
{
	uint64_t worth = rules_irq_worth(in);
	char a[32], b[32];
	int n = 0;

	if (worth && in->limit_max < worth) {
		hits[n].level = RULE_WARN;
		hits[n].code = "limit-max-below-irq";
		snprintf(hits[n].msg, sizeof(hits[n].msg),
			 "limit_max %s is below one TX interrupt's worth at line rate (%s: "
			 "tx-usecs %u, tx-frames %u at %" PRIu64 " Mbit/s): the link starves "
			 "between completions", units_fmt_bytes(a, sizeof(a), in->limit_max),
			 units_fmt_bytes(b, sizeof(b), worth), in->has_usecs ? in->tx_usecs : 0,
			 in->has_frames ? in->tx_frames : 0, in->speed_mbps);
		n++;
	}
	if (!in->active && in->has_ring && in->speed_mbps && in->mtu) {
		uint64_t bytes = (uint64_t)in->ring_tx * (in->mtu + ETH_FRAME_OVERHEAD);

		if (bytes * 8 / in->speed_mbps > RULES_DARK_RING_US) {
			hits[n].level = RULE_WARN;
			hits[n].code = "dark-buffer";
			snprintf(hits[n].msg, sizeof(hits[n].msg),
				 "BQL is not active on this queue, and the TX ring of %u descriptors "
				 "holds %s of MTU-sized frames at line rate: a standing queue nothing "
				 "manages", in->ring_tx,
				 units_fmt_wire(a, sizeof(a), bytes, in->speed_mbps));
			n++;
		}
	}
	/*
	 * no evidence, no verdict: only a FIFO seen holding a backlog or
	 * dropping is a standing queue BQL moved there; the finding says what
	 * was seen
	 */
	if (in->active && in->limit && in->qdisc_kind && fifo_kind(in->qdisc_kind) &&
	    (in->qdisc_backlog || in->qdisc_drops)) {
		char seen[96] = "", span[32] = "since it was created";

		if (in->interval_ns)
			snprintf(span, sizeof(span), "in %.3g s", (double)in->interval_ns / 1e9);
		if (in->qdisc_backlog && in->qdisc_drops)
			snprintf(seen, sizeof(seen), "held up to %s and dropped %" PRIu64 " packet%s %s",
				 units_fmt_bytes(a, sizeof(a), in->qdisc_backlog), in->qdisc_drops,
				 in->qdisc_drops == 1 ? "" : "s", span);
		else if (in->qdisc_backlog)
			snprintf(seen, sizeof(seen), "held up to %s",
				 units_fmt_bytes(a, sizeof(a), in->qdisc_backlog));
		else
			snprintf(seen, sizeof(seen), "dropped %" PRIu64 " packet%s %s", in->qdisc_drops,
				 in->qdisc_drops == 1 ? "" : "s", span);
		hits[n].level = RULE_WARN;
		hits[n].code = "fifo-qdisc";
		snprintf(hits[n].msg, sizeof(hits[n].msg),
			 "%s %s: BQL moves the standing queue out of the ring into this FIFO, "
			 "which does not manage it: an AQM such as fq_codel would ('tc qdisc "
			 "replace dev %s %s fq_codel')", in->qdisc_kind, seen,
			 in->ifname ? in->ifname : "DEV", in->qdisc_where ? in->qdisc_where : "root");
		n++;
	}
	return n;
}
