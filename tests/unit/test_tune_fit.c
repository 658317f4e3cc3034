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
#include "dql/tune.h"
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
	/* as record writes it: no Q records, C records with nq= and lo= */
	bool conly;
	uint32_t nq[SIM_MAX_QUEUES], lo[SIM_MAX_QUEUES];
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
	if (p->conly && rec.kind == BQLT_Q) {
		p->nq[rec.queue] += rec.bytes;
		p->lo[rec.queue] = rec.bytes;
		return;
	}
	if (p->conly && rec.kind == BQLT_C) {
		rec.has |= BQLT_HAS_NQ | BQLT_HAS_LO;
		rec.nq = p->nq[rec.queue];
		rec.lo = p->lo[rec.queue];
	}
	if (!p->err)
		p->err = replay_feed(&p->r, &rec, &p->e);
}

/* simulate @c, fit a model from its records (C records only: @conly), into @out */
static void fit_run(const struct sim_config *c, bool conly, struct sim_config *out,
		    struct tune_fitted *fd)
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
	p->conly = conly;
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

static void fit(const struct sim_config *c, struct sim_config *out, struct tune_fitted *fd)
{
	fit_run(c, false, out, fd);
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

/* ------------------------------------------------------------ known models */

static void flows_bulk(struct sim_config *c, unsigned int nq, unsigned int nbusy,
		       uint64_t other_bps)
{
	c->nqueues = nq;
	c->nflows = nq;
	memset(c->flows, 0, sizeof(c->flows[0]) * nq);
	for (unsigned int i = 0; i < nq; i++) {
		c->flows[i].pinned = true;
		c->flows[i].queue = i;
		c->flows[i].size = (struct sim_size){ SIM_SIZE_FIXED, 1514, 0, 0 };
		c->flows[i].kind = i < nbusy ? SIM_T_BULK : SIM_T_POISSON;
		c->flows[i].rate_bps = i < nbusy ? 0 : other_bps;
	}
}

static void assert_near(double got, double want, double tol, const char *what)
{
	if (fabs(got - want) > tol * want)
		fail_msg("%s: %.0f, expected %.0f within %.0f%%", what, got, want, tol * 100);
}

/*
 * The first case: 4 bulk queues at 10G. The old fit measured the
 * gaps between completions of any queue (1-6 us) and fitted coalescing 0;
 * per queue they are 50 us + the IRQ latency.
 */
static void test_fit_bulk_queues(void **state)
{
	struct sim_config c, out;
	struct tune_fitted fd;
	struct tune_gof g;

	(void)state;
	sim_config_init(&c);
	c.link_bps = 10 * G;
	c.duration_ns = 200 * MS;
	flows_bulk(&c, 4, 4, 0);
	fit(&c, &out, &fd);
	assert_true(fd.link_ok);
	assert_near((double)fd.link_bps, 10e9, 0.02, "link");
	assert_true(fd.coalesce_usecs >= 45 && fd.coalesce_usecs <= 60);
	assert_int_equal(fd.busy_queues, 4);
	assert_true(fd.bulk);
	assert_int_equal(fd.misfit, 0);
	assert_int_equal(out.nflows, 4);
	for (unsigned int i = 0; i < 4; i++)
		assert_int_equal(out.flows[i].kind, SIM_T_BULK);
	/* simulated, the fitted model gives the trace's completions back */
	assert_int_equal(tune_fit_check(&out, true, &fd, &g, NULL), 0);
	assert_true(g.ok);
	assert_true(g.interval_err < 0.05 && g.batch_err < 0.1 && g.throughput_err < 0.02);
	assert_true(out.coalesce_usecs >= 40 && out.coalesce_usecs <= 60);
}

/* one of 4 queues busy, the others light: the link is still seen, one bulk flow */
static void test_fit_one_busy(void **state)
{
	struct sim_config c, out;
	struct tune_fitted fd;

	(void)state;
	sim_config_init(&c);
	c.link_bps = 10 * G;
	c.duration_ns = 200 * MS;
	flows_bulk(&c, 4, 1, 10 * M);
	fit(&c, &out, &fd);
	assert_true(fd.link_ok);
	assert_near((double)fd.link_bps, 10e9, 0.02, "link");
	assert_int_equal(fd.active, 4);
	assert_int_equal(fd.busy_queues, 1);
	assert_false(fd.bulk);
	assert_int_equal(out.flows[0].kind, SIM_T_BULK);
	for (unsigned int i = 1; i < 4; i++) {
		assert_int_equal(out.flows[i].kind, SIM_T_POISSON);
		assert_near((double)out.flows[i].rate_bps, 10e6, 0.25, "light queue");
	}
	assert_true(fd.coalesce_usecs >= 45 && fd.coalesce_usecs <= 60);
}

/* TSO super-packets of 64 KiB on 25G, two bulk queues */
static void test_fit_tso(void **state)
{
	struct sim_config c, out;
	struct tune_fitted fd;
	struct tune_gof g;

	(void)state;
	sim_config_init(&c);
	c.link_bps = 25 * G;
	c.duration_ns = 200 * MS;
	flows_bulk(&c, 2, 2, 0);
	for (unsigned int i = 0; i < 2; i++)
		c.flows[i].size = (struct sim_size){ SIM_SIZE_TSO, 65536, 0, 0 };
	fit(&c, &out, &fd);
	assert_true(fd.link_ok);
	assert_near((double)fd.link_bps, 25e9, 0.02, "link");
	assert_int_equal(fd.pkt_min, 65536);
	assert_int_equal(out.flows[0].size.a, 65536);
	assert_int_equal(fd.busy_queues, 2);
	/* the busy interval is reproduced once calibrated */
	assert_int_equal(tune_fit_check(&out, true, &fd, &g, NULL), 0);
	assert_true(g.ok);
	assert_true(g.interval_err < 0.05);
}

/*
 * Coalescing by frames and usecs (100 us or 16 frames, 10G): the frame
 * limit binds, and the fit gives the interval it causes at this rate.
 */
static void test_fit_frames(void **state)
{
	struct sim_config c, out;
	struct tune_fitted fd;
	struct tune_gof g;
	uint64_t want;

	(void)state;
	sim_config_init(&c);
	c.link_bps = 10 * G;
	c.coalesce_usecs = 100;
	c.coalesce_frames = 16;
	c.duration_ns = 200 * MS;
	fit(&c, &out, &fd);
	assert_true(fd.link_ok);
	assert_near((double)fd.link_bps, 10e9, 0.02, "link");
	/* 16 frames of 1514 bytes: 19.4 us on the wire, then the IRQ latency */
	want = 16ull * 1514 * 8 * 1000000000ull / (10 * G) + c.irq_latency_ns;
	assert_near((double)fd.busy_gap_p50_ns, (double)want, 0.15, "interval");
	assert_true(fd.coalesce_usecs < 40);
	assert_int_equal(tune_fit_check(&out, true, &fd, &g, NULL), 0);
	assert_true(g.ok);
}

/*
 * The second case: 16 Poisson imix queues at 60% of 25G. The old
 * fit saw a 15G link; no queue is ever busy, so the link cannot be seen:
 * the fit says so instead of guessing.
 */
static void test_fit_poisson_never_busy(void **state)
{
	struct sim_config c, out;
	struct tune_fitted fd;

	(void)state;
	sim_config_init(&c);
	c.link_bps = 25 * G;
	c.duration_ns = 100 * MS;
	flows_bulk(&c, 16, 0, 937500000ull);
	for (unsigned int i = 0; i < 16; i++)
		c.flows[i].size = (struct sim_size){ SIM_SIZE_IMIX, 0, 0, 0 };
	fit(&c, &out, &fd);
	assert_true(fd.misfit & TUNE_MISFIT_NEVER_BUSY);
	assert_false(fd.link_ok && fd.link_bps < 20 * G);
	assert_false(fd.bulk);
	assert_int_equal(fd.busy_queues, 0);
	assert_near(fd.offered_bps, 15e9, 0.05, "offered");
	/* the assumed link carries the load */
	assert_true(out.link_bps >= 20 * G);
}

/*
 * A trace of C records only (record's: nq=, lo=) of Poisson imix traffic:
 * the bytes queued from nq=, the packet sizes from lo= (the last packet
 * queued before a completion), not the 1514 bytes assumed before; the
 * model as from the same records with their Q.
 */
static void test_fit_c_only(void **state)
{
	struct sim_config c, out, outq;
	struct tune_fitted fd, fq;

	(void)state;
	sim_config_init(&c);
	c.link_bps = 1 * G;
	c.duration_ns = 300 * MS;
	c.coalesce_usecs = 0;
	c.coalesce_frames = 1;
	c.nflows = 1;
	memset(&c.flows[0], 0, sizeof(c.flows[0]));
	c.flows[0].kind = SIM_T_POISSON;
	c.flows[0].rate_bps = 20 * M;
	c.flows[0].size = (struct sim_size){ SIM_SIZE_IMIX, 0, 0, 0 };
	fit(&c, &outq, &fq);
	fit_run(&c, true, &out, &fd);
	assert_int_equal(fq.pkt_from, TUNE_PKT_Q);
	assert_int_equal(fd.pkt_from, TUNE_PKT_LO);
	assert_true(fd.pkt_seen);
	assert_int_equal(fd.pkt_min, 60);
	assert_int_equal(fd.pkt_max, 1514);
	assert_near(fd.pkt_mean, fq.pkt_mean, 0.1, "packet mean from lo=");
	assert_near(fd.offered_bps, fq.offered_bps, 0.02, "offered from nq=");
	assert_near(fd.offered_bps, 20e6, 0.1, "offered");
	assert_int_equal(out.flows[0].kind, SIM_T_POISSON);
	assert_int_equal(out.flows[0].size.kind, SIM_SIZE_BIMODAL);
	assert_int_equal(fd.bursty, 0);
}

/*
 * Bursts between silences (on/off traffic, as TCP acknowledgements of
 * downloads): modelled on/off, while on at the median interval, the mean
 * rate kept; Poisson traffic at the same mean rate stays Poisson.
 */
static void test_fit_bursty(void **state)
{
	struct sim_config c, out;
	struct tune_fitted fd;
	double on;

	(void)state;
	sim_config_init(&c);
	c.link_bps = 1 * G;
	c.duration_ns = 2000 * MS;
	c.coalesce_usecs = 0;
	c.coalesce_frames = 1;
	c.nflows = 1;
	memset(&c.flows[0], 0, sizeof(c.flows[0]));
	/* 2 Mbit/s of 100-byte packets (400 us apart) for 5 ms of every 50 ms: 200 kbit/s */
	c.flows[0].kind = SIM_T_ONOFF;
	c.flows[0].rate_bps = 2 * M;
	c.flows[0].on_ns = 5 * MS;
	c.flows[0].off_ns = 45 * MS;
	c.flows[0].size = (struct sim_size){ SIM_SIZE_FIXED, 100, 0, 0 };
	fit_run(&c, true, &out, &fd);
	assert_int_equal(fd.bursty, 1);
	assert_int_equal(out.flows[0].kind, SIM_T_ONOFF);
	assert_near((double)out.flows[0].rate_bps, 2e6, 0.1, "rate while on");
	assert_near((double)(out.flows[0].on_ns + out.flows[0].off_ns), 50e6, 0.1, "period");
	on = (double)out.flows[0].on_ns + 400000.0 / 2;	/* a burst sends one packet more */
	assert_near((double)out.flows[0].rate_bps * on / (double)(out.flows[0].on_ns + out.flows[0].off_ns),
		    fd.offered_bps, 0.05, "mean rate");
	assert_near(fd.offered_bps, 2e5 * 13 / 12.5, 0.05, "offered");
	/* runs are whole periods */
	assert_int_equal(tune_whole_periods(&out, 1) % (out.flows[0].on_ns + out.flows[0].off_ns), 0);
	/* Poisson at the mean rate: no silences of 16 medians */
	c.flows[0].kind = SIM_T_POISSON;
	c.flows[0].rate_bps = 200 * 1000;
	fit_run(&c, true, &out, &fd);
	assert_int_equal(fd.bursty, 0);
	assert_int_equal(out.flows[0].kind, SIM_T_POISSON);
}

/* fit hand-made records: @n completions of @bytes every @gap ns, queued just before */
static void fit_hand(struct tune_fit *f, unsigned int n, uint32_t pkt, unsigned int per,
		     uint64_t gap)
{
	uint64_t t = 1000000;
	uint32_t infl = 0;

	tune_fit_init(f);
	for (unsigned int i = 0; i < n; i++) {
		struct replay_event ev = { .t_ns = t, .kind = BQLT_Q, .bytes = pkt };

		for (unsigned int k = 0; k < per; k++) {
			infl += pkt;
			ev.inflight = infl;
			ev.limit = 100000;
			tune_fit_event(f, &ev, 250);
		}
		t += gap;
		ev.t_ns = t;
		ev.kind = BQLT_C;
		ev.bytes = pkt * per;
		infl -= pkt * per;
		ev.inflight = infl;
		tune_fit_event(f, &ev, 250);
	}
}

/*
 * The sizes the model sends: most packets are the median's, whatever a
 * few odd ones (the old model mixed the extremes: one 42-byte ARP among
 * 66-byte acknowledgements made 98% of its packets 42 bytes)
 */
static void test_fit_size_median(void **state)
{
	struct sim_config out;
	struct tune_fitted fd;
	struct tune_fit f;
	struct bql_err e;
	uint64_t t = 1000000;

	(void)state;
	tune_fit_init(&f);
	for (unsigned int i = 0; i < 106; i++) {
		uint32_t pkt = i == 50 ? 42 : i % 20 == 7 ? 213 : 66;
		struct replay_event ev = { .t_ns = t, .kind = BQLT_Q, .bytes = pkt, .inflight = pkt };

		tune_fit_event(&f, &ev, 250);
		ev.t_ns = t += 400000;
		ev.kind = BQLT_C;
		ev.inflight = 0;
		tune_fit_event(&f, &ev, 250);
	}
	sim_config_init(&out);
	assert_int_equal(tune_fit_finish(&f, &out, false, false, false, &fd, &e), 0);
	assert_int_equal(fd.pkt_min, 42);
	assert_int_equal(fd.pkt_max, 213);
	assert_int_equal(fd.pkt_p50, 66);
	assert_int_equal(out.flows[0].size.kind, SIM_SIZE_BIMODAL);
	assert_int_equal(out.flows[0].size.a, 66);
	assert_int_equal(out.flows[0].size.b, 213);
	assert_true(out.flows[0].size.p > 0.9 && out.flows[0].size.p < 1);
	assert_near(out.flows[0].size.p * 66 + (1 - out.flows[0].size.p) * 213, fd.pkt_mean, 0.001,
		    "the mean");
	tune_fit_free(&f);
}

/* too few completions; more offered than the link carries (never busy) */
static void test_fit_misfits(void **state)
{
	struct sim_config out;
	struct tune_fitted fd;
	struct tune_fit f;
	struct bql_err e;

	(void)state;
	fit_hand(&f, 5, 1514, 2, 100000);
	sim_config_init(&out);
	assert_int_equal(tune_fit_finish(&f, &out, false, false, false, &fd, &e), 0);
	assert_true(fd.misfit & TUNE_MISFIT_FEW);
	tune_fit_free(&f);
	/* given a link of 1G, 3 x 1514 bytes every 4 us is 9 Gbit/s: 900% */
	fit_hand(&f, 100, 1514, 3, 4000);
	sim_config_init(&out);
	out.link_bps = 1 * G;
	assert_int_equal(tune_fit_finish(&f, &out, true, false, false, &fd, &e), 0);
	assert_true(fd.misfit & TUNE_MISFIT_OVERLOAD);
	assert_true(fd.load > 8);
	assert_false(fd.misfit & TUNE_MISFIT_FEW);
	tune_fit_free(&f);
}

/*
 * Q records of 268435455 bytes (valid in a trace): the model's packets are
 * the simulator's largest, and the model it writes is one sim_new() takes.
 */
static void test_fit_huge_packets(void **state)
{
	struct sim_config out;
	struct tune_fitted fd;
	struct tune_fit f;
	struct bql_err e;

	(void)state;
	fit_hand(&f, 40, 268435455u, 1, 100000);
	sim_config_init(&out);
	assert_int_equal(tune_fit_finish(&f, &out, false, false, false, &fd, &e), 0);
	assert_true(fd.pkt_clamped);
	assert_int_equal(fd.pkt_max_seen, 268435455u);
	assert_int_equal(fd.pkt_min, SIM_PKT_MAX);
	assert_int_equal(fd.pkt_max, SIM_PKT_MAX);
	assert_int_equal(sim_config_check(&out, &e), 0);
	assert_true(fd.misfit != 0);
	tune_fit_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit_link),
		cmocka_unit_test(test_fit_load),
		cmocka_unit_test(test_fit_many_queues),
		cmocka_unit_test(test_fit_bulk_queues),
		cmocka_unit_test(test_fit_one_busy),
		cmocka_unit_test(test_fit_tso),
		cmocka_unit_test(test_fit_frames),
		cmocka_unit_test(test_fit_poisson_never_busy),
		cmocka_unit_test(test_fit_misfits),
		cmocka_unit_test(test_fit_huge_packets),
		cmocka_unit_test(test_fit_c_only),
		cmocka_unit_test(test_fit_size_median),
		cmocka_unit_test(test_fit_bursty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
