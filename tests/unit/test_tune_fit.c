// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the model tune fits from a trace (dql/tune_fit.c): traces
 * simulated from known models, replayed into the fitter, and the model it
 * recovers.
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
#include "dql/tune_fit.h"

#define MS	1000000ull
#define G	1000000000ull
#define M	1000000ull

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
		cmocka_unit_test(test_fit_link),
		cmocka_unit_test(test_fit_load),
		cmocka_unit_test(test_fit_many_queues),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
