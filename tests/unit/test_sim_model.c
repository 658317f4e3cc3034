// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the closed-loop NIC model (dql/sim.c) in its details:
 * the TX ring (full, its bound), framing on the wire, descriptors in
 * flight, the model's warnings, interrupt coalescing, the qdisc's drops,
 * constant bit rate flows, durations as text, the config checks, the
 * work estimate and the delay histogram. The properties that hold over
 * every model are in test_sim.c, the M/G/1 checks in test_sim_mg1.c.
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
#include "simtest.h"

/* ------------------------------------------------------------ model details */

/* with a ring of 4 and no limit the driver, not BQL, stops the queue */
static void test_ring_full(void **state)
{
	struct sim_config c;
	struct sim *s;
	const struct sim_qstats *st;

	(void)state;
	base(&c);
	c.ring = 4;
	set(&c, BQLT_K_LIMIT_MIN, 1000000);
	s = run(&c, NULL, NULL);
	st = sim_queue_stats(s, 0);
	assert_true(st->ring_stops > 0);
	/*
	 * BQL stops it once: dql_reset() leaves adj_limit at 0, so the very
	 * first packet finds dql_avail() < 0, as in the kernel.
	 */
	assert_int_equal(st->stops, 1);
	assert_true(st->inflight <= 4 * 1514);
	sim_free(s);
}

/*
 * Framing: at 1G a bulk flow of 1514-byte frames sends one per 1538 * 8 =
 * 12304 ns (81274 a second), 60-byte frames one per 84 * 8 = 672 ns, and
 * without framing 1514 bytes take 12112 ns. The link idles only while
 * starved (the qdisc is never empty), so packets fill the rest exactly.
 */
static void framing_run(uint32_t bytes, bool no_framing, uint64_t ns_per_pkt, uint32_t wire)
{
	struct sim_config c;
	struct sim_totals t;
	struct sim *s;

	sim_config_init(&c);
	c.flows[0].size.a = bytes;
	c.no_framing = no_framing;
	s = run(&c, NULL, NULL);
	sim_get_totals(s, &t);
	assert_true(t.packets * ns_per_pkt + t.starved_ns <= SEC);
	assert_true((t.packets + 1) * ns_per_pkt + t.starved_ns > SEC);
	assert_int_equal(t.bytes_tx, t.packets * bytes);
	assert_int_equal(t.wire_bytes, t.packets * wire);
	assert_true(t.utilization > 0.999 && t.utilization <= 1.0);
	sim_free(s);
}

static void test_framing(void **state)
{
	struct sim_config c;
	struct sim_size tso = { .kind = SIM_SIZE_TSO, .a = 64000 };
	struct sim_size fx = { .kind = SIM_SIZE_FIXED, .a = 1 };

	(void)state;
	framing_run(1514, false, 12304, 1538);
	framing_run(60, false, 672, 84);
	framing_run(1514, true, 12112, 1514);
	sim_config_init(&c);
	assert_int_equal(sim_wire_bytes(&c, &fx, 1), 84);
	fx.a = 61;
	assert_int_equal(sim_wire_bytes(&c, &fx, 61), 85);
	/* 64000 B TSO, MSS 1448: 63934 B of payload in 45 segments of 66 + 24 */
	assert_int_equal(sim_segments(&tso, 64000), 45);
	assert_int_equal(sim_wire_bytes(&c, &tso, 64000), 63934 + 45 * 90);
	/* a TSO packet that fits one segment is one frame */
	assert_int_equal(sim_segments(&tso, 1514), 1);
	assert_int_equal(sim_wire_bytes(&c, &tso, 1514), 1538);
	/* MSS 8948 (9000 MTU): 8 segments */
	tso.b = 8948;
	assert_int_equal(sim_segments(&tso, 64000), 8);
	assert_int_equal(sim_wire_bytes(&c, &tso, 64000), 63934 + 8 * 90);
	c.no_framing = true;
	assert_int_equal(sim_wire_bytes(&c, &tso, 64000), 64000);
}

/* the most bytes in flight (queued, not yet reaped) */
static void rec_inflight(void *arg, const struct sim_rec *r)
{
	uint32_t *peak = arg;

	if (r->inflight > *peak)
		*peak = r->inflight;
}

/*
 * Descriptors: a 64000-byte TSO packet takes 1 + ceil(63934 / 4096) = 17,
 * so a 256-descriptor ring holds 15 of them (15 * 17 = 255) with BQL out
 * of the way: 960000 bytes in flight at most, and reached. With 64K
 * fragments (one descriptor a packet) it holds 256.
 */
static void test_descriptors(void **state)
{
	static const struct sim_ops ops = { .record = rec_inflight };
	struct sim_config c;
	struct bql_err e;
	struct sim *s;
	uint32_t peak = 0;

	(void)state;
	sim_config_init(&c);
	assert_int_equal(sim_descs(&c, 64000), 17);
	assert_int_equal(sim_descs(&c, 4096), 1);
	assert_int_equal(sim_descs(&c, 4097), 2);
	assert_int_equal(sim_descs(&c, 1514), 1);
	c.link_bps = 10 * G;
	c.duration_ns = 20 * MS;
	c.flows[0].size.kind = SIM_SIZE_TSO;
	c.flows[0].size.a = 64000;
	set(&c, BQLT_K_LIMIT_MIN, DQL_MAX_LIMIT);
	s = run(&c, &ops, &peak);
	assert_int_equal(peak, 15 * 64000);
	assert_true(sim_queue_stats(s, 0)->ring_stops > 0);
	sim_free(s);
	peak = 0;
	c.frag_size = SIM_PKT_MAX;
	s = run(&c, &ops, &peak);
	assert_int_equal(peak, 256 * 64000);
	sim_free(s);
	/* a ring that cannot hold one packet is refused, naming --ring */
	c.frag_size = 0;
	c.ring = 16;
	memset(&e, 0, sizeof(e));
	assert_int_equal(sim_new(&s, &c, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "--ring: 16 descriptors cannot hold flow 0's 64000-byte packet (17"));
}

/*
 * The ring-bound warning: at 100G a 256-descriptor ring of 1514-byte
 * frames holds 256 * 1538 * 8 / 100 = 31498 ns, less than 50 us of
 * coalescing + 5 us of IRQ latency: at most 31498 / 55000 = 57.3% of the
 * link, and the run agrees within a percent. Four busy queues hold four
 * times as much (no warning), as does a 1024 ring; a CBR flow below the
 * cap is no reason to warn; 10G is fine.
 */
static void test_ring_bound_warning(void **state)
{
	struct sim_warning w;
	struct sim_config c;
	struct sim_totals t;
	struct sim *s;

	(void)state;
	sim_config_init(&c);
	c.link_bps = 100 * G;
	c.duration_ns = 100 * MS;
	assert_int_equal(sim_model_warnings(&c, &w, 1), 1);
	assert_int_equal(w.kind, SIM_WARN_RING_BOUND);
	assert_int_equal(w.ring_ns, 31498);
	assert_int_equal(w.cycle_ns, 55000);
	assert_true(w.cap_bps > 57260000000ull && w.cap_bps < 57280000000ull);
	assert_non_null(strstr(w.msg, "--ring"));
	assert_non_null(strstr(w.msg, "--coalesce-usecs"));
	s = run(&c, NULL, NULL);
	sim_get_totals(s, &t);
	assert_true(fabs(t.utilization - 0.5727) < 0.01);
	sim_free(s);
	/* coalescing ended by 16 frames: 16 * 123 ns + 5 us, the ring lasts */
	c.coalesce_frames = 16;
	assert_int_equal(sim_model_warnings(&c, &w, 1), 0);
	c.coalesce_frames = 0;
	c.ring = 1024;
	assert_int_equal(sim_model_warnings(&c, &w, 1), 0);
	c.ring = 256;
	c.nqueues = 4;
	c.nflows = 0;
	for (unsigned int i = 0; i < 4; i++) {
		add_flow(&c, SIM_T_BULK, 0, SIM_SIZE_FIXED, 1514, 0);
		c.flows[i].pinned = true;
		c.flows[i].queue = i;
	}
	assert_int_equal(sim_model_warnings(&c, &w, 1), 0);
	c.nqueues = 1;
	c.nflows = 0;
	add_flow(&c, SIM_T_CBR, 40 * G, SIM_SIZE_FIXED, 1514, 0);
	assert_int_equal(sim_model_warnings(&c, &w, 1), 0);
	c.flows[0].rate_bps = 80 * G;
	assert_int_equal(sim_model_warnings(&c, &w, 1), 1);
	sim_config_init(&c);
	c.link_bps = 10 * G;
	assert_int_equal(sim_model_warnings(&c, &w, 1), 0);
}

/*
 * --at and --stall times at or after the end never take effect (the run
 * stops first): one warning each, counting them, naming the earliest; a
 * time just before the end is fine. Warnings past @max are counted, not
 * written.
 */
static void test_after_end_warning(void **state)
{
	struct sim_warning w[3];
	struct sim_config c;

	(void)state;
	sim_config_init(&c);
	c.duration_ns = 100 * MS;
	c.nat = 3;
	c.at[0].t_ns = 100 * MS - 1;
	c.at[1].t_ns = 300 * MS;
	c.at[2].t_ns = 100 * MS;
	c.at[0].kv.key = c.at[1].kv.key = c.at[2].kv.key = BQLT_K_LIMIT_MAX;
	c.at[0].kv.val = c.at[1].kv.val = c.at[2].kv.val = 3000;
	assert_int_equal(sim_model_warnings(&c, w, 3), 1);
	assert_int_equal(w[0].kind, SIM_WARN_AFTER_END);
	assert_string_equal(w[0].option, "--at");
	assert_int_equal(w[0].count, 2);
	assert_int_equal(w[0].t_ns, 100 * MS);
	assert_int_equal(w[0].end_ns, 100 * MS);
	assert_non_null(strstr(w[0].msg, "2 --at times, the first 100 ms"));
	c.nstalls = 1;
	c.stalls[0].t_ns = 5000 * MS;
	c.stalls[0].len_ns = MS;
	c.link_bps = 100 * G;		/* ring-bound too: it comes first */
	assert_int_equal(sim_model_warnings(&c, w, 3), 3);
	assert_int_equal(w[0].kind, SIM_WARN_RING_BOUND);
	assert_int_equal(w[1].kind, SIM_WARN_AFTER_END);
	assert_int_equal(w[2].kind, SIM_WARN_AFTER_END);
	assert_string_equal(w[2].option, "--stall");
	assert_int_equal(w[2].count, 1);
	assert_non_null(strstr(w[2].msg, "--stall 5 s is at or after the end of the run (--duration 100 ms)"));
	assert_int_equal(sim_model_warnings(&c, w, 1), 3);
	assert_int_equal(w[0].kind, SIM_WARN_RING_BOUND);
	c.duration_ns = 10000 * MS;	/* all within the run now */
	c.link_bps = 10 * G;
	assert_int_equal(sim_model_warnings(&c, w, 3), 0);
}

/* packets over the qdisc limit are dropped, bulk flows never */
/* the completions (C records): when, and how many bytes */
struct crec {
	unsigned int n;
	uint64_t t[8];
	uint32_t bytes[8];
};

static void rec_c(void *arg, const struct sim_rec *r)
{
	struct crec *c = arg;

	if (r->kind != BQLT_C || c->n >= 8)
		return;
	c->t[c->n] = r->t_ns;
	c->bytes[c->n++] = r->bytes;
}

/*
 * Coalescing by hand: 1514-byte CBR packets every 30280 ns (400 Mbit/s)
 * on 1G (12304 ns on the wire, framed), 50 us coalescing, 5 us to the
 * poll, limit_min far above the traffic. As in the kernel, the first
 * packet stops the queue (adj_limit is 0 until the first completion):
 * packet 0 alone is done at 12304, the timer fires at 62304, the poll at
 * 67304 reaps it, and packets 1 and 2 follow back to back (done at 79608
 * and 91912).
 * - Timer only: 79608 arms it, the poll at 134608 reaps packets 1-4
 *   (packet 4: 121120 + 12304 = 133424); packet 5 (done 163704) arms the
 *   next, at 218704, which reaps 5 and 6; then two packets every 60560.
 * - --coalesce-frames 2: the second completion fires it: 91912 -> poll at
 *   96912 (packets 1, 2); 104216 arms, 133424 fires -> 138424 (3, 4);
 *   then two packets every 60560.
 */
static void coalesce_run(uint32_t frames, const uint64_t *t, const uint32_t *pkts)
{
	static const struct sim_ops ops = { .record = rec_c };
	struct sim_config c;
	struct crec r = { 0 };
	struct sim *s;

	sim_config_init(&c);
	c.duration_ns = 2 * MS;
	c.nflows = 0;
	add_flow(&c, SIM_T_CBR, 400 * M, SIM_SIZE_FIXED, 1514, 0);
	c.coalesce_usecs = 50;
	c.coalesce_frames = frames;
	c.irq_latency_ns = 5000;
	c.irq_jitter_ns = 0;
	set(&c, BQLT_K_LIMIT_MIN, 100000);
	s = run(&c, &ops, &r);
	assert_int_equal(r.n, 8);
	for (unsigned int k = 0; k < r.n; k++) {
		uint64_t want_t = k < 4 ? t[k] : t[3] + (k - 3) * 60560;
		uint32_t want_b = (k < 4 ? pkts[k] : 2) * 1514;

		print_message("frames %u: C %u bytes at %" PRIu64 " ns (want %u at %" PRIu64 ")\n",
			      frames, r.bytes[k], r.t[k], want_b, want_t);
		assert_int_equal(r.t[k], want_t);
		assert_int_equal(r.bytes[k], want_b);
	}
	sim_free(s);
}

static void test_coalescing(void **state)
{
	static const uint64_t t_timer[] = { 67304, 134608, 218704, 279264 };
	static const uint64_t t_frames[] = { 67304, 96912, 138424, 198984 };
	static const uint32_t p_timer[] = { 1, 4, 2, 2 }, p_frames[] = { 1, 2, 2, 2 };

	(void)state;
	coalesce_run(0, t_timer, p_timer);
	coalesce_run(2, t_frames, p_frames);
}

/* durations as text: three digits, the unit after rounding, never 1e+03 */
static void test_fmt_ns(void **state)
{
	static const struct {
		uint64_t ns;
		const char *want;
	} c[] = {
		{ 0, "0 ns" }, { 999, "999 ns" }, { 1000, "1 us" }, { 12345, "12.3 us" },
		{ 999499, "999 us" }, { 999500, "1 ms" }, { 999999, "1 ms" },
		{ 1500000, "1.5 ms" }, { 999600000, "1 s" }, { 31260000, "31.3 ms" },
		{ 999400000000ull, "999 s" }, { 999600000000ull, "1000 s" },
		{ 3600000000000ull, "3600 s" }, { UINT64_MAX, "18446744074 s" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		assert_string_equal(sim_fmt_ns(buf, sizeof(buf), c[i].ns), c[i].want);
}

static void test_qdisc_drops(void **state)
{
	struct sim_config c;
	struct sim_totals t;
	struct sim *s;

	(void)state;
	base(&c);
	c.nflows = 0;
	add_flow(&c, SIM_T_CBR, 2 * G, SIM_SIZE_FIXED, 1514, 0);	/* twice the link */
	c.qlen = 100;
	s = run(&c, NULL, NULL);
	sim_get_totals(s, &t);
	assert_true(t.drops > 0);
	assert_true(t.utilization > 0.99);
	/* about half of what was offered got through */
	assert_true(t.packets > t.drops / 2 && t.packets < t.drops * 2);
	sim_free(s);
}

/* a CBR flow well below the link: throughput equals the offered rate */
static void test_cbr_rate(void **state)
{
	struct sim_config c;
	struct sim_totals t;
	struct sim *s;

	(void)state;
	base(&c);
	c.duration_ns = SEC;
	c.nflows = 0;
	add_flow(&c, SIM_T_CBR, 300 * M, SIM_SIZE_FIXED, 1000, 0);
	s = run(&c, NULL, NULL);
	sim_get_totals(s, &t);
	assert_true(t.throughput_bps > 299.5 * M && t.throughput_bps <= 300 * M);
	/* only at the start: the first packet stops the queue (see above) */
	assert_true(t.starved_ns < 200000);
	assert_int_equal(t.drops, 0);
	sim_free(s);
}

static void test_config_check(void **state)
{
	struct sim_config c;
	struct bql_err e;

	(void)state;
	sim_config_init(&c);
	assert_int_equal(sim_config_check(&c, &e), 0);
	c.link_bps = 0;
	assert_int_equal(sim_config_check(&c, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "--link"));
	sim_config_init(&c);
	c.flows[0].kind = SIM_T_CBR;
	c.flows[0].rate_bps = 0;
	assert_int_equal(sim_config_check(&c, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "--traffic"));
	sim_config_init(&c);
	set(&c, BQLT_K_STALL_THRS, 2);		/* 0 jiffies at HZ 250 */
	assert_int_equal(sim_config_check(&c, &e), -ERANGE);
	assert_non_null(strstr(e.msg, "--set stall_thrs=2"));
	sim_config_init(&c);
	set(&c, BQLT_K_LIMIT_MAX, (uint64_t)DQL_MAX_LIMIT + 1);
	assert_int_equal(sim_config_check(&c, &e), -ERANGE);
	assert_non_null(strstr(e.msg, "limit_max"));
	sim_config_init(&c);
	c.duration_ns = 0;
	assert_int_equal(sim_config_check(&c, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "--duration"));
}

/* ------------------------------------------------------------ histogram */

/*
 * The work estimate against hand computations, and the budget: what must
 * run (400G bulk 1514 B or imix for 1 s) and what must not (#23 class 1).
 */
static void test_work_estimate(void **state)
{
	struct sim_config c;
	struct sim_work w;

	(void)state;
	/* 1G bulk 1514 B for 1 s: 1e9 / (1538 * 8) frames */
	sim_config_init(&c);
	sim_work_count(&c, &w);
	assert_int_equal(w.packets, 81274);
	assert_int_equal(w.arrivals, 0);
	/* one interrupt per 50 us coalescing + 5 us latency: 1e9 / 55e3 + 1 */
	assert_int_equal(w.irqs, 18182);
	/* and a poll per interrupt plus one per 256 packets */
	assert_int_equal(w.polls, 18500);
	assert_int_equal(w.total, w.packets + w.irqs + w.polls);
	assert_int_equal(sim_work_estimate(&c), w.total);
	/* without framing: 1e9 / (1514 * 8) */
	c.no_framing = true;
	sim_work_count(&c, &w);
	assert_int_equal(w.packets, 82562);
	c.no_framing = false;
	/* coalescing 0: an interrupt per packet */
	c.coalesce_usecs = 0;
	c.irq_latency_ns = 0;
	sim_work_count(&c, &w);
	assert_int_equal(w.irqs, w.packets);

	/* runs: 400G of bulk 1514 B, or imix, for 1 s, on 64 queues too */
	sim_config_init(&c);
	c.link_bps = 400 * G;
	assert_true(sim_work_estimate(&c) <= SIM_WORK_MAX);
	c.flows[0].size.kind = SIM_SIZE_IMIX;
	c.nqueues = 64;
	assert_true(sim_work_estimate(&c) <= SIM_WORK_MAX);

	/* refused: 1-byte packets at 400G with an interrupt each */
	sim_config_init(&c);
	c.link_bps = 400 * G;
	c.flows[0].size.a = 1;
	c.coalesce_usecs = 0;
	c.irq_latency_ns = 0;
	sim_work_count(&c, &w);
	assert_true(w.total > SIM_WORK_MAX);
	assert_true(w.irqs > SIM_WORK_MAX / 4);
	/* an hour of 400G */
	sim_config_init(&c);
	c.link_bps = 400 * G;
	c.duration_ns = 3600 * SEC;
	assert_true(sim_work_estimate(&c) > SIM_WORK_MAX);
	/* onoff:400G:1ns:1ns on the default link: its periods */
	sim_config_init(&c);
	c.nflows = 0;
	add_flow(&c, SIM_T_ONOFF, 400 * G, SIM_SIZE_FIXED, 1514, 0);
	c.flows[0].on_ns = 1;
	c.flows[0].off_ns = 1;
	sim_work_count(&c, &w);
	assert_int_equal(w.periods, 500000000);
	assert_true(w.total > SIM_WORK_MAX);
	/* the packets a slow link carries are what the flows offer at most */
	sim_config_init(&c);
	c.nflows = 0;
	add_flow(&c, SIM_T_CBR, 10 * M, SIM_SIZE_FIXED, 1250, 0);
	sim_work_count(&c, &w);
	assert_int_equal(w.arrivals, 1000);
	assert_int_equal(w.packets, 1000);
}

static void test_hist(void **state)
{
	static struct sim_hist h, h2;

	(void)state;
	memset(&h, 0, sizeof(h));
	assert_int_equal(sim_hist_quantile(&h, 0.5), 0);
	for (uint64_t v = 1; v <= 50; v++)
		sim_hist_add(&h, v);		/* exact below 64 */
	assert_int_equal(sim_hist_quantile(&h, 0.5), 25);
	assert_int_equal(sim_hist_quantile(&h, 0.99), 50);
	assert_int_equal(sim_hist_quantile(&h, 1.0), 50);
	assert_int_equal(h.max, 50);

	/* within 1/64 above the true quantile, never above the maximum */
	memset(&h, 0, sizeof(h));
	for (uint64_t v = 1000; v < 1001000; v += 1000)
		sim_hist_add(&h, v);
	for (double q = 0.1; q < 1.0; q += 0.1) {
		uint64_t want = (uint64_t)(q * 1000 + 0.5) * 1000, got = sim_hist_quantile(&h, q);

		assert_true(got >= want);
		assert_true(got <= want + want / 64);
	}
	assert_int_equal(sim_hist_quantile(&h, 1.0), 1000000);

	/* merging two halves is the whole */
	memset(&h2, 0, sizeof(h2));
	sim_hist_add(&h2, UINT64_MAX);
	sim_hist_merge(&h2, &h);
	assert_int_equal(h2.n, h.n + 1);
	assert_int_equal(h2.max, UINT64_MAX);
	assert_int_equal(sim_hist_quantile(&h2, 1.0), UINT64_MAX);
	assert_int_equal(sim_hist_quantile(&h2, 0.5), sim_hist_quantile(&h, 0.5));

	/* a merge reads up to the maximum's bucket only: it is a copy all the same */
	memset(&h2, 0, sizeof(h2));
	sim_hist_merge(&h2, &h);
	assert_memory_equal(&h2, &h, sizeof(h));
	sim_hist_add(&h, UINT64_MAX);	/* the last bucket */
	memset(&h2, 0, sizeof(h2));
	sim_hist_merge(&h2, &h);
	assert_memory_equal(&h2, &h, sizeof(h));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_full),
		cmocka_unit_test(test_qdisc_drops),
		cmocka_unit_test(test_cbr_rate),
		cmocka_unit_test(test_config_check),
		cmocka_unit_test(test_hist),
		cmocka_unit_test(test_work_estimate),
		cmocka_unit_test(test_framing),
		cmocka_unit_test(test_descriptors),
		cmocka_unit_test(test_coalescing),
		cmocka_unit_test(test_fmt_ns),
		cmocka_unit_test(test_ring_bound_warning),
		cmocka_unit_test(test_after_end_warning),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
