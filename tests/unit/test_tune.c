// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the settings advisor (dql/tune.c): the sweep and the
 * refinement, the choice and its margins, results that do not depend on
 * the order of evaluation (hence not on the thread count) and the known
 * cases of the issue. The fitted model is tested in test_tune_fit.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dql/dql.h"
#include "dql/replay.h"
#include "dql/sim.h"
#include "dql/trace.h"
#include "dql/tune.h"

#define MS	1000000ull
#define G	1000000000ull
#define M	1000000ull

static void model_coarse_irq(struct sim_config *c)
{
	sim_config_init(c);		/* 1G, one bulk flow */
	c->coalesce_usecs = 500;
	c->duration_ns = 300 * MS;
}

/* the whole search, sequentially, in the order given or reversed */
struct search {
	struct tune_result base;
	struct tune_result res[TUNE_MAX_CAND];
	unsigned int n;
	int pick, best;
};

static void eval_all(const struct sim_config *c, const struct tune_settings *set,
		     struct tune_result *res, unsigned int n, bool reverse)
{
	for (unsigned int k = 0; k < n; k++) {
		unsigned int i = reverse ? n - 1 - k : k;

		tune_eval(c, &set[i], &res[i]);
	}
}

static void search(const struct sim_config *c, struct search *s, bool reverse)
{
	struct tune_settings def, set[TUNE_MAX_CAND];
	unsigned int n;

	memset(s, 0, sizeof(*s));
	tune_defaults(&def);
	tune_eval(c, &def, &s->base);
	assert_int_equal(s->base.err, 0);
	n = tune_coarse(c, &s->base, set, TUNE_MAX_CAND);
	eval_all(c, set, s->res, n, reverse);
	s->n = n;
	tune_mark(s->res, s->n, &s->base, 0.995);
	for (int round = 0; round < 2; round++) {
		n = tune_refine(s->res, s->n, set, TUNE_MAX_CAND - s->n);
		eval_all(c, set, s->res + s->n, n, reverse);
		s->n += n;
		tune_mark(s->res, s->n, &s->base, 0.995);
	}
	s->pick = tune_pick(s->res, s->n, &s->base, 0.1, tune_min_gain_ns(c), &s->best);
}

static void test_known_case(void **state)
{
	static struct search s;
	struct sim_config c;
	const struct tune_result *r;

	(void)state;
	model_coarse_irq(&c);
	search(&c, &s, false);
	assert_true(s.pick >= 0);
	r = &s.res[s.pick];
	assert_true(r->p99 < s.base.p99);
	assert_true((double)r->bytes_tx >= 0.995 * (double)s.base.bytes_tx);
	assert_true(r->set.limit_max < DQL_MAX_LIMIT);
	/* no feasible candidate has a lower p99 */
	for (unsigned int i = 0; i < s.n; i++)
		if (s.res[i].feasible)
			assert_true(s.res[i].p99 >= r->p99);
}

static void test_defaults_best(void **state)
{
	static struct search s;
	struct sim_config c;

	(void)state;
	sim_config_init(&c);
	c.flows[0].kind = SIM_T_POISSON;
	c.flows[0].rate_bps = 300 * M;
	c.duration_ns = 300 * MS;
	search(&c, &s, false);
	assert_int_equal(s.pick, -1);
}

static void test_order_independent(void **state)
{
	static struct search a, b;
	struct sim_config c;

	(void)state;
	model_coarse_irq(&c);
	c.flows[0].kind = SIM_T_POISSON;	/* random traffic: seeds matter */
	c.flows[0].rate_bps = 950 * M;
	c.irq_jitter_ns = 3000;
	search(&c, &a, false);
	search(&c, &b, true);
	assert_int_equal(a.n, b.n);
	assert_int_equal(a.pick, b.pick);
	for (unsigned int i = 0; i < a.n; i++) {
		assert_memory_equal(&a.res[i].set, &b.res[i].set, sizeof(a.res[i].set));
		assert_int_equal(a.res[i].bytes_tx, b.res[i].bytes_tx);
		assert_int_equal(a.res[i].p99, b.res[i].p99);
	}
}

static void test_coarse(void **state)
{
	struct tune_settings set[TUNE_MAX_CAND];
	struct tune_result base;
	struct sim_config c;
	unsigned int n, capped = 0;
	uint32_t lo = UINT32_MAX, hi = 0;

	(void)state;
	sim_config_init(&c);
	memset(&base, 0, sizeof(base));
	base.peak_limit = 100000;
	n = tune_coarse(&c, &base, set, TUNE_MAX_CAND);
	assert_true(n >= 30);
	for (unsigned int i = 0; i < n; i++) {
		assert_false(tune_is_default(&set[i]));
		for (unsigned int k = 0; k < i; k++)
			assert_false(!memcmp(&set[i], &set[k], sizeof(set[i])));
		if (set[i].limit_max == DQL_MAX_LIMIT)
			continue;
		capped++;
		if (set[i].limit_max < lo)
			lo = set[i].limit_max;
		if (set[i].limit_max > hi)
			hi = set[i].limit_max;
	}
	assert_int_equal(lo, 1514);		/* one packet */
	assert_int_equal(hi, 200000);		/* twice the defaults' peak */
	assert_true(capped >= 24);
}

static void test_refine(void **state)
{
	struct tune_result done[3];
	struct tune_settings set[TUNE_MAX_CAND];
	unsigned int n;

	(void)state;
	memset(done, 0, sizeof(done));
	done[0].set = (struct tune_settings){ 0, 10000, 1000 };
	done[0].p99 = 100;
	done[1].set = (struct tune_settings){ 0, 20000, 1000 };
	done[1].p99 = 200;
	done[1].feasible = true;
	done[2].set = (struct tune_settings){ 0, 40000, 1000 };
	done[2].p99 = 400;
	done[2].feasible = true;
	n = tune_refine(done, 3, set, TUNE_MAX_CAND);
	assert_true(n >= 5);
	for (unsigned int i = 0; i < n; i++) {
		if (set[i].limit_max == 20000) {	/* a floor under the best cap */
			assert_true(set[i].limit_min > 0 && set[i].limit_min < 20000);
			continue;
		}
		assert_true(set[i].limit_max > 10000 && set[i].limit_max < 20000);
		assert_int_equal(set[i].hold_time, 1000);
	}
	/* nothing feasible: nothing to refine */
	done[1].feasible = done[2].feasible = false;
	assert_int_equal(tune_refine(done, 3, set, TUNE_MAX_CAND), 0);
}

static void test_pick_margins(void **state)
{
	struct tune_result base, r[2];
	int best;

	(void)state;
	memset(&base, 0, sizeof(base));
	memset(r, 0, sizeof(r));
	base.p99 = 1000;
	base.bytes_tx = 1000;
	r[0].p99 = 950;			/* 5% better */
	r[0].bytes_tx = 1000;
	r[1].p99 = 500;			/* 50% better but too slow */
	r[1].bytes_tx = 900;
	tune_mark(r, 2, &base, 0.995);
	assert_true(r[0].feasible);
	assert_false(r[1].feasible);
	assert_int_equal(tune_pick(r, 2, &base, 0.1, 0, &best), -1);
	assert_int_equal(best, 0);
	assert_int_equal(tune_pick(r, 2, &base, 0.04, 0, &best), 0);
	/* and the absolute margin */
	assert_int_equal(tune_pick(r, 2, &base, 0.04, 60, &best), -1);
	tune_mark(r, 2, &base, 0.9);
	assert_int_equal(tune_pick(r, 2, &base, 0.1, 0, &best), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_case),
		cmocka_unit_test(test_defaults_best),
		cmocka_unit_test(test_order_independent),
		cmocka_unit_test(test_coarse),
		cmocka_unit_test(test_refine),
		cmocka_unit_test(test_pick_margins),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
