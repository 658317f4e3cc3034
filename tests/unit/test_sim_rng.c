// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulator's random numbers (dql/sim_rng.h, through dql/sim.c, included
 * here for its statics):
 * xoshiro256** streams, bounded integers, and the ziggurat exponential
 * against the moments and tails of Exp(1); and the event order of the scan
 * (few sources) against the heap's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#define DQL_NO_POISON
#include "dql/sim.c"

#define N	2000000

static void test_exp_moments(void **state)
{
	static struct zig z;
	struct sim_rng r;
	double sum = 0, sum2 = 0;
	uint64_t over3 = 0, over8 = 0, neg = 0;

	(void)state;
	zig_init(&z);
	rng_seed(&r, 1, 0);
	for (int i = 0; i < N; i++) {
		double x = zig_exp(&z, &r);

		sum += x;
		sum2 += x * x;
		over3 += x > 3;
		over8 += x > 8;	/* beyond the base layer: the tail path */
		neg += x < 0;
	}
	assert_int_equal(neg, 0);
	/* mean 1, variance 1, P(X > 3) = e^-3, P(X > 8) = e^-8 */
	assert_true(fabs(sum / N - 1) < 0.003);
	assert_true(fabs(sum2 / N - (sum / N) * (sum / N) - 1) < 0.01);
	assert_true(fabs((double)over3 / N - exp(-3)) < 0.002);
	assert_true(fabs((double)over8 / N - exp(-8)) < 0.0001);
	assert_true(over8 > 0);
}

static void test_streams(void **state)
{
	struct sim_rng a, b, c;
	uint64_t hist[10] = { 0 };

	(void)state;
	rng_seed(&a, 7, 0);
	rng_seed(&b, 7, 0);
	rng_seed(&c, 7, 1);
	for (int i = 0; i < 1000; i++) {
		uint64_t x = rng_next(&a);

		assert_int_equal(x, rng_next(&b));	/* same seed, same stream */
		assert_int_not_equal(x, rng_next(&c));	/* another stream */
	}
	for (int i = 0; i < 100000; i++) {
		uint64_t v = rng_below(&a, 10);
		double u = rng_unit(&a);

		assert_true(v < 10);
		assert_true(u >= 0 && u < 1);
		hist[v]++;
	}
	for (int i = 0; i < 10; i++)
		assert_true(hist[i] > 9500 && hist[i] < 10500);
}

struct dg {
	uint64_t h, n;
};

static void on_rec(void *arg, const struct sim_rec *r)
{
	struct dg *d = arg;
	uint64_t v[4] = { r->t_ns, r->kind | (uint64_t)r->queue << 8, r->bytes, r->limit };

	for (int i = 0; i < 4; i++)
		d->h = (d->h ^ v[i]) * 0x100000001b3ull;
	d->n++;
}

/* the scan of few sources and the heap pick the same events in the same order */
static void test_scan_equals_heap(void **state)
{
	static const struct sim_ops ops = { .record = on_rec };
	struct sim_config c;
	struct dg d[2];

	(void)state;
	sim_config_init(&c);
	c.duration_ns = 100000000;
	c.nqueues = 4;
	c.nflows = 4;
	c.link_bps = 10000000000ull;
	c.irq_jitter_ns = 3000;
	for (unsigned int i = 1; i < 4; i++) {
		c.flows[i] = c.flows[0];
		c.flows[i].kind = i == 3 ? SIM_T_CBR : SIM_T_POISSON;
		c.flows[i].rate_bps = 2000000000ull * i;
		c.flows[i].size.kind = SIM_SIZE_IMIX;
	}
	for (int k = 0; k < 2; k++) {
		struct bql_err e;
		struct sim *s;

		assert_int_equal(sim_new(&s, &c, &e), 0);
		assert_true(s->linear);
		s->linear = k;		/* 0: the heap */
		d[k].h = 0xcbf29ce484222325ull;
		d[k].n = 0;
		sim_run(s, &ops, &d[k]);
		sim_free(s);
	}
	assert_true(d[0].n > 1000);
	assert_int_equal(d[0].n, d[1].n);
	assert_int_equal(d[0].h, d[1].h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exp_moments),
		cmocka_unit_test(test_streams),
		cmocka_unit_test(test_scan_equals_heap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
