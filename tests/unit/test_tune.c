// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the settings advisor (dql/tune.c): the sweep and the
 * refinement, the choice and its margins, results that do not depend on
 * the order of evaluation (hence not on the thread count), the known cases
 * of the issue, and the model fitted from a simulated trace.
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

/* ------------------------------------------------------------ fitting */

struct fitrun {
	struct replay r;
	struct tune_fit f;
	char names[SIM_MAX_QUEUES][16];
	unsigned int hz;
	uint64_t line;
	int err;
	struct bql_err e;
};

static void fr_event(void *arg, const struct replay_event *ev)
{
	struct fitrun *p = arg;

	tune_fit_event(&p->f, ev, p->hz);
}

static void fr_record(void *arg, const struct sim_rec *r)
{
	struct fitrun *p = arg;
	struct bqlt_rec rec;

	sim_rec_to_bqlt(r, p->names[r->queue], p->hz, ++p->line, &rec);
	if (!p->err)
		p->err = replay_feed(&p->r, &rec, &p->e);
}

/* simulate @c, fit a model from its records, into @out */
static void fit(const struct sim_config *c, struct sim_config *out, struct tune_fitted *fd)
{
	static const struct replay_ops rops = {
		.event = fr_event, .event_kinds = (1u << BQLT_Q) | (1u << BQLT_C),
	};
	static const struct sim_ops ops = { .record = fr_record };
	struct fitrun *p = calloc(1, sizeof(*p));
	struct replay_opts ro;
	struct bql_err e;
	struct sim *s;

	assert_non_null(p);
	p->hz = c->hz;
	replay_opts_init(&ro);
	replay_init(&p->r, &ro, &rops, p);
	tune_fit_init(&p->f);
	for (unsigned int i = 0; i < c->nqueues; i++) {
		struct bqlt_rec rec;

		snprintf(p->names[i], sizeof(p->names[i]), "q%u", i);
		sim_queue_to_bqlt(c, i, p->names[i], 0, &rec);
		assert_int_equal(replay_feed(&p->r, &rec, &p->e), 0);
	}
	assert_int_equal(sim_new(&s, c, &e), 0);
	sim_run(s, &ops, p);
	sim_free(s);
	assert_int_equal(p->err, 0);
	sim_config_init(out);
	assert_int_equal(tune_fit_finish(&p->f, out, false, false, false, fd, &e), 0);
	tune_fit_free(&p->f);
	replay_free(&p->r);
	free(p);
}

/*
 * A trace of more queues than the simulator has (300): the model has 64,
 * trace queue i's traffic on model queue i mod 64, all of the load kept;
 * with --queues 4 (keep_queues) the same on 4.
 */
static void test_fit_many_queues(void **state)
{
	const unsigned int nq = 300;
	struct tune_fitted fd;
	struct sim_config out;
	struct tune_fit f;
	struct bql_err e;

	(void)state;
	for (int keep = 0; keep < 2; keep++) {
		uint64_t sum = 0, t = 1000000000ull;

		tune_fit_init(&f);
		for (unsigned int round = 0; round < 20; round++)
			for (unsigned int q = 0; q < nq; q++) {
				/* queue q sends (q % 7 + 1) * 1000 bytes a round */
				struct replay_event ev = {
					.t_ns = t, .queue = q, .kind = BQLT_Q,
					.bytes = (q % 7 + 1) * 1000, .inflight = (q % 7 + 1) * 1000,
				};

				tune_fit_event(&f, &ev, 1000);
				ev.t_ns = t += 1000;
				ev.kind = BQLT_C;
				ev.inflight = 0;
				tune_fit_event(&f, &ev, 1000);
				t += 1000;
			}
		sim_config_init(&out);
		if (keep)
			out.nqueues = 4;
		assert_int_equal(tune_fit_finish(&f, &out, false, keep, false, &fd, &e), 0);
		assert_int_equal(fd.nqueues, nq);
		assert_int_equal(fd.active, nq);
		assert_true(fd.folded);
		assert_int_equal(out.nqueues, keep ? 4 : SIM_MAX_QUEUES);
		assert_int_equal(out.nflows, out.nqueues);
		for (unsigned int i = 0; i < out.nflows; i++) {
			assert_int_equal(out.flows[i].queue, i);
			sum += out.flows[i].kind == SIM_T_POISSON ? out.flows[i].rate_bps : 0;
		}
		/* the flows carry the whole offered load (rounding aside) */
		assert_true(fabs((double)sum - fd.offered_bps) < (double)out.nflows + 1);
		tune_fit_free(&f);
	}
}

static void test_fit_link(void **state)
{
	static const uint64_t links[] = { 100 * M, 1 * G, 10 * G, 25 * G };
	struct sim_config c, out;
	struct tune_fitted fd;

	(void)state;
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		sim_config_init(&c);
		c.link_bps = links[i];
		c.ring = 1024;
		c.coalesce_usecs = 100;
		c.duration_ns = 100 * MS;
		c.hz = 1000;
		fit(&c, &out, &fd);
		assert_true(fd.link_ok);
		/* within 5% of the simulated link */
		assert_true((double)fd.link_bps > 0.95 * (double)links[i]);
		assert_true((double)fd.link_bps < 1.05 * (double)links[i]);
		assert_int_equal(out.link_bps, fd.link_bps);
		assert_true(fd.bulk);
		assert_int_equal(out.hz, 1000);
		assert_int_equal(out.flows[0].kind, SIM_T_BULK);
		assert_int_equal(out.flows[0].size.kind, SIM_SIZE_FIXED);
		assert_int_equal(out.flows[0].size.a, 1514);
		/*
		 * The interrupt interval, give or take the IRQ latency; at 100M
		 * one packet takes longer than the coalescing time (121 us).
		 */
		if (links[i] >= G)
			assert_true(out.coalesce_usecs >= 90 && out.coalesce_usecs <= 110);
	}
}

static void test_fit_load(void **state)
{
	struct sim_config c, out;
	struct tune_fitted fd;

	(void)state;
	sim_config_init(&c);
	c.nqueues = 2;
	c.nflows = 2;
	memset(c.flows, 0, sizeof(c.flows[0]) * 2);
	for (unsigned int i = 0; i < 2; i++) {
		c.flows[i].kind = SIM_T_POISSON;
		c.flows[i].pinned = true;
		c.flows[i].queue = i;
		c.flows[i].size = (struct sim_size){ SIM_SIZE_IMIX, 0, 0, 0 };
	}
	c.flows[0].rate_bps = 300 * M;
	c.flows[1].rate_bps = 200 * M;
	c.duration_ns = 300 * MS;
	fit(&c, &out, &fd);
	assert_int_equal(fd.nqueues, 2);
	assert_false(fd.bulk);
	assert_true(fd.offered_bps > 480 * M && fd.offered_bps < 520 * M);
	assert_int_equal(out.nflows, 2);
	assert_int_equal(out.flows[0].kind, SIM_T_POISSON);
	assert_true(out.flows[0].pinned && out.flows[1].pinned);
	assert_true(out.flows[0].rate_bps > 280 * M && out.flows[0].rate_bps < 320 * M);
	assert_true(out.flows[1].rate_bps > 185 * M && out.flows[1].rate_bps < 215 * M);
	assert_int_equal(fd.pkt_min, 60);
	assert_int_equal(fd.pkt_max, 1514);
	assert_int_equal(out.flows[0].size.kind, SIM_SIZE_BIMODAL);
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
		cmocka_unit_test(test_fit_link),
		cmocka_unit_test(test_fit_load),
		cmocka_unit_test(test_fit_many_queues),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
