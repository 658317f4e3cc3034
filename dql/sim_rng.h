/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to dql/sim*.c: the simulator's deterministic random numbers
 * (wyrand streams seeded through splitmix64, exponentials by the
 * ziggurat method) and exact transmission times without a division per
 * packet.
 */
#ifndef BQLTOOL_DQL_SIM_RNG_H
#define BQLTOOL_DQL_SIM_RNG_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sim.h"

/*
 * wyrand (Wang Yi; the generator of Go's runtime): a 64-bit Weyl sequence
 * through one 64x64->128 multiply, which passes BigCrush and PractRand
 * (its author's tests). One word of state and one multiply: a draw is
 * about half the instructions of xoshiro256**'s, and an arrival draws
 * three (#21).
 */
struct sim_rng {
	uint64_t s;
};

static inline uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* one independent stream per (seed, stream) pair */
static inline void rng_seed(struct sim_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1b54a32d192ed03ull);

	/* the stream's start: a hash of (seed, stream), far from the others' */
	r->s = splitmix64(&x);
}

static inline uint64_t rng_next(struct sim_rng *r)
{
	unsigned __int128 m;

	r->s += 0xa0761d6478bd642full;
	m = (unsigned __int128)r->s * (r->s ^ 0xe7037ed1a0b428dbull);
	return (uint64_t)(m >> 64) ^ (uint64_t)m;
}

/* uniform in 0..n-1 (multiply-shift; the bias is below n / 2^64) */
static inline uint64_t rng_below(struct sim_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

/* uniform in [0, 1) with 53 bits */
static inline double rng_unit(struct sim_rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/*
 * Exponential variates by the ziggurat method (Marsaglia and Tsang, "The
 * Ziggurat Method for Generating Random Variables", 2000), 256 layers: one
 * multiply in 98.9% of the draws instead of a log. The tables are built
 * per simulation (no global state), the same every time.
 */
#define ZIG_N	256

struct zig {
	uint32_t k[ZIG_N];
	double w[ZIG_N], f[ZIG_N];
};

static inline void zig_init(struct zig *z)
{
	const double m2 = 4294967296.0, ve = 3.949659822581572e-3;
	double de = 7.697117470131487, te = de, q = ve / exp(-de);

	z->k[0] = (uint32_t)((de / q) * m2);
	z->k[1] = 0;
	z->w[0] = q / m2;
	z->w[ZIG_N - 1] = de / m2;
	z->f[0] = 1.0;
	z->f[ZIG_N - 1] = exp(-de);
	for (int i = ZIG_N - 2; i >= 1; i--) {
		de = -log(ve / de + exp(-de));
		z->k[i + 1] = (uint32_t)((de / te) * m2);
		te = de;
		z->f[i] = exp(-de);
		z->w[i] = de / m2;
	}
}

/* an exponential variate of mean 1 */
static inline double zig_exp(const struct zig *z, struct sim_rng *r)
{
	for (;;) {
		uint64_t u = rng_next(r);
		uint32_t jz = (uint32_t)(u >> 32);
		unsigned int iz = (unsigned int)(u & (ZIG_N - 1));
		double x;

		if (jz < z->k[iz])
			return jz * z->w[iz];
		if (iz == 0)		/* the tail: 7.69711 + a fresh exponential */
			return 7.697117470131487 - log1p(-rng_unit(r));
		x = jz * z->w[iz];
		if (z->f[iz] + rng_unit(r) * (z->f[iz - 1] - z->f[iz]) < exp(-x))
			return x;
	}
}

/*
 * Exact transmission times without a division per packet: bytes * 8e9 =
 * q * rate + r is cached per packet size (direct mapped), and the carried
 * remainder adds at most one to q. The same integers as
 * (bytes * 8e9 + carry) / rate and % rate.
 */
#define WT_SLOTS	64

struct wtime {
	uint64_t rate;
	uint32_t bytes[WT_SLOTS];
	uint64_t q[WT_SLOTS], r[WT_SLOTS];
};

static inline void wtime_init(struct wtime *w, uint64_t rate)
{
	memset(w, 0, sizeof(*w));
	w->rate = rate;
}

/* ns for @bytes at the rate, *@carry the remainder carried (< rate) */
static inline uint64_t wtime(struct wtime *w, uint32_t bytes, uint64_t *carry)
{
	unsigned int k = bytes % WT_SLOTS;
	uint64_t q, r;
	bool c;

	/* a miss is rare (a few sizes, or the first of each): out of line */
	if (__builtin_expect(w->bytes[k] != bytes, 0)) {
		uint64_t num = (uint64_t)bytes * 8 * 1000000000ull;

		w->bytes[k] = bytes;
		w->q[k] = num / w->rate;
		w->r[k] = num % w->rate;
	}
	/* branch-free: whether the carry overflows is not predictable */
	r = w->r[k] + *carry;
	c = r >= w->rate;
	q = w->q[k] + c;
	*carry = r - (c ? w->rate : 0);
	return q;
}

/*
 * sim_hist_add() inline, for the event loop (sim.h's histogram). Bucket v
 * below SIM_HIST_SUB; above, SIM_HIST_SUB per octave: with e the
 * top bit of v, bucket (e - SUB_BITS + 1) * SUB + the SUB_BITS bits below
 * it. Without a branch: sh = the top bit of (v | SUB) - SUB_BITS is 0
 * below SUB, and v >> sh is then v, else SUB + those bits, so that the
 * bucket is sh * SUB + (v >> sh) either way.
 */
static inline unsigned int sim_hist_idx(uint64_t v)
{
	unsigned int sh = 63u - SIM_HIST_SUB_BITS - (unsigned int)__builtin_clzll(v | SIM_HIST_SUB);

	return sh * SIM_HIST_SUB + (unsigned int)(v >> sh);
}

/*
 * Count @v in a histogram: its n, max and sum, and its buckets @b. sim.h's
 * struct sim_hist has them in one struct; the event loop keeps n, max and
 * sum apart from the buckets (sim.c's struct hhead), so this takes them
 * one by one.
 */
static inline void sim_hist_count(uint64_t *n, uint64_t *max, uint64_t *sum, uint64_t *b,
				  uint64_t v)
{
	(*n)++;
	*sum += v;
	if (v > *max)
		*max = v;
	b[sim_hist_idx(v)]++;
}

#endif
