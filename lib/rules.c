// SPDX-License-Identifier: GPL-2.0-only
/* The settings rules set and check share (lib/rules.h). */
#include <stdio.h>

#include "lib/plan.h"
#include "lib/rules.h"

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
