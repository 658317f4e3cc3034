// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulator's random numbers (dql/sim_rng.h, through dql/sim.c, included
 * here for its statics):
 * wyrand streams, bounded integers, and the ziggurat exponential
 * against the moments and tails of Exp(1); the winner tree's pick against
 * a scan of every source; a histogram's bucket against its definition.
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

/*
 * The winner tree and the sources off it (ev_set(), ev_next()) pick what a
 * scan of every source's time picks: the earliest, a tie to the lowest id;
 * over random updates of random sources, ties and T_NEVER included, for
 * trees of 1 to 128 leaves.
 */
static void test_next_is_min(void **state)
{
	static const unsigned int nq[] = { 1, 2, 3, 4, 5, 17, 64 };
	static const struct sim_ops none;
	struct sim_rng r;

	(void)state;
	rng_seed(&r, 7, 0);
	for (size_t k = 0; k < sizeof(nq) / sizeof(nq[0]); k++) {
		struct sim_config c;
		struct bql_err e;
		struct sim *s;

		sim_config_init(&c);
		c.nqueues = nq[k];
		c.nflows = 64;
		for (unsigned int i = 0; i < c.nflows; i++) {
			c.flows[i] = c.flows[0];
			c.flows[i].kind = i % 2 ? SIM_T_CBR : SIM_T_POISSON;
			c.flows[i].rate_bps = 1000000000ull;
		}
		assert_int_equal(sim_new(&s, &c, &e), 0);
		s->ops = &none;
		sim_start(s);
		for (int n = 0; n < 20000; n++) {
			unsigned int id = (unsigned int)rng_below(&r, s->nsrc), want = 0;
			uint64_t t = rng_below(&r, 8) ? rng_below(&r, 50) : T_NEVER;

			ev_set(s, id, t);
			for (unsigned int i = 1; i < s->nsrc; i++)
				if (s->tm[i] < s->tm[want])
					want = i;
			assert_int_equal(ev_next(s), want);
		}
		sim_free(s);
	}
}

/* sim_hist_idx() without a branch is the bucket of the definition (sim.h) */
static void test_hist_idx(void **state)
{
	struct sim_rng r;

	(void)state;
	rng_seed(&r, 3, 0);
	for (int i = 0; i < 200000; i++) {
		/* every value below 2^16, then random ones of every length */
		uint64_t v = i < 65536 ? (uint64_t)i : rng_next(&r) >> (i % 64), want;
		unsigned int e = v ? 63u - (unsigned int)__builtin_clzll(v) : 0;

		want = v < SIM_HIST_SUB ? v :
		       (e - SIM_HIST_SUB_BITS + 1) * SIM_HIST_SUB + ((v >> (e - SIM_HIST_SUB_BITS)) & (SIM_HIST_SUB - 1));
		assert_int_equal(sim_hist_idx(v), want);
	}
	assert_int_equal(sim_hist_idx(UINT64_MAX), SIM_HIST_BUCKETS - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exp_moments),
		cmocka_unit_test(test_streams),
		cmocka_unit_test(test_next_is_min),
		cmocka_unit_test(test_hist_idx),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
