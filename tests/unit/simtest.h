/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers of the unit tests of the closed-loop NIC model (test_sim.c,
 * test_sim_model.c, test_sim_mg1.c): units, a model built from the
 * defaults with flows and --set values, and a run that must start.
 */
#ifndef BQLTOOL_TESTS_UNIT_SIMTEST_H
#define BQLTOOL_TESTS_UNIT_SIMTEST_H

#include <stdint.h>
#include <string.h>

#include "dql/dql.h"
#include "dql/sim.h"
#include "dql/trace.h"

#define MS	1000000ull
#define SEC	1000000000ull
#define G	1000000000ull
#define M	1000000ull

static struct sim *run(const struct sim_config *cfg, const struct sim_ops *ops, void *arg)
{
	struct bql_err e;
	struct sim *s;

	memset(&e, 0, sizeof(e));
	if (sim_new(&s, cfg, &e))
		fail_msg("sim_new: %s", e.msg);
	sim_run(s, ops, arg);
	return s;
}

static void base(struct sim_config *c)
{
	sim_config_init(c);
	c->duration_ns = 200 * MS;
}

static void add_flow(struct sim_config *c, enum sim_traffic_kind k, uint64_t rate,
		     enum sim_size_kind sk, uint32_t a, uint32_t b)
{
	struct sim_flow *f = &c->flows[c->nflows++];

	memset(f, 0, sizeof(*f));
	f->kind = k;
	f->rate_bps = rate;
	f->size.kind = sk;
	f->size.a = a;
	f->size.b = b;
	f->size.p = 0.5;
}

static void set(struct sim_config *c, enum bqlt_key k, uint64_t v)
{
	c->set[c->nset].key = k;
	c->set[c->nset++].val = v;
}


#endif
