// SPDX-License-Identifier: GPL-2.0-only
/*
 * gentrace: a long synthetic bqltrace from a closed-loop NIC model, for
 * benchmarks and soak tests of `bqltool replay`.
 *
 * The model drives bqltool's own DQL core (dql/dql.c) to decide when the
 * stack is stopped, and (with -c) to write the limit= of each completion.
 * It is therefore NOT an independent reference: a replay of its output
 * can only show that the replay path agrees with the same DQL code, not
 * that the code agrees with the kernel. Hand-derived vectors (tests/unit)
 * and kernel-recorded traces do that.
 *
 * Model, per queue: a link of a given rate sends the frames the driver
 * handed it in order; a completion interrupt every 20..200 us reports the
 * frames sent so far (dql_completed); a qdisc backlog fed at a load that
 * wanders between 30% and 150% of the link rate; the driver dequeues while
 * the queue is not stopped (BQL: dql_avail() < 0 after a dql_queued();
 * or a full 1024-descriptor ring), which is what makes the limit ramp,
 * hold and decay.
 */
#include <getopt.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dql/dql.h"
#include "dql/trace.h"
#include "lib/io/ofile.h"

#define RING		1024		/* NIC descriptors per queue */
#define STEP_NS		10000u		/* simulation step: 10 us */
#define OUTBUF		(1u << 20)

struct pkt {
	uint32_t size;
	uint64_t done_ns;		/* fully on the wire at */
};

struct gq {
	struct dql d;
	char name[32];
	uint64_t rate;			/* link, bytes per second */
	double load;			/* offered load / rate */
	double credit;			/* bytes of arrivals not yet queued */
	uint64_t backlog;		/* packets waiting in the qdisc */
	uint64_t wire_free_ns;		/* link busy until */
	uint64_t next_irq_ns;
	uint64_t next_load_ns;
	struct pkt ring[RING];
	unsigned int head, n;		/* ring: oldest, count */
	bool xoff;
};

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static uint64_t rnd_range(uint64_t lo, uint64_t hi)
{
	return lo + rnd() % (hi - lo + 1);
}

static double rnd_unit(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0;
}

static uint32_t pkt_size(void)
{
	uint64_t r = rnd() % 100;

	if (r < 65)
		return 1514;
	if (r < 90)
		return (uint32_t)rnd_range(66, 300);
	return (uint32_t)rnd_range(3000, 65160);	/* GSO */
}

/* ------------------------------------------------------------ output */

static char obuf[OUTBUF];
static size_t olen;
static struct ofile *out_f;
static uint64_t nrec;
/* trace shape */
static bool with_j;		/* j= on every record */
static const char *eol = "\n";	/* or "\r\n" */

static void oflush(void)
{
	if (olen && ofile_write(out_f, obuf, olen)) {
		fprintf(stderr, "gentrace: %s: write error\n", ofile_path(out_f));
		exit(1);
	}
	olen = 0;
}

/* " j=N" when asked for, else nothing */
static const char *jfield(uint64_t now, unsigned int hz)
{
	static char b[32];

	if (!with_j)
		return "";
	snprintf(b, sizeof(b), " j=%" PRIu64, bqlt_ns_to_jiffies(now, hz));
	return b;
}

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void emit(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (olen + 512 > OUTBUF)
		oflush();
	va_start(ap, fmt);
	n = vsnprintf(obuf + olen, OUTBUF - olen, fmt, ap);
	va_end(ap);
	olen += (size_t)n;
}

/* ------------------------------------------------------------ model */

static void driver(struct gq *q, uint64_t now, unsigned int hz, bool conly)
{
	while (!q->xoff && q->backlog && q->n < RING) {
		struct pkt *p = &q->ring[(q->head + q->n) % RING];
		uint64_t start = q->wire_free_ns > now ? q->wire_free_ns : now;

		p->size = pkt_size();
		p->done_ns = start + (uint64_t)p->size * 1000000000u / q->rate;
		q->wire_free_ns = p->done_ns;
		q->n++;
		q->backlog--;
		dql_queued(&q->d, p->size, bqlt_ns_to_jiffies(now, hz));
		if (!conly) {
			emit("%" PRIu64 " %s Q %" PRIu32 "%s%s", now, q->name, p->size,
			     jfield(now, hz), eol);
			nrec++;
		}
		if (dql_avail(&q->d) < 0)
			q->xoff = true;
	}
}

static void irq(struct gq *q, uint64_t now, unsigned int hz, bool conly)
{
	uint32_t bytes = 0, nq = q->d.num_queued, lo = q->d.last_obj_cnt;

	while (q->n && q->ring[q->head].done_ns <= now) {
		bytes += q->ring[q->head].size;
		q->head = (q->head + 1) % RING;
		q->n--;
	}
	if (!bytes)
		return;
	if (dql_completed(&q->d, bytes, bqlt_ns_to_jiffies(now, hz))) {
		fprintf(stderr, "gentrace: internal error: over-completion\n");
		exit(1);
	}
	if (conly)
		emit("%" PRIu64 " %s C %" PRIu32 "%s nq=%" PRIu32 " lo=%" PRIu32
		     " limit=%" PRIu32 "%s", now, q->name, bytes, jfield(now, hz), nq, lo,
		     q->d.limit, eol);
	else
		emit("%" PRIu64 " %s C %" PRIu32 "%s%s", now, q->name, bytes,
		     jfield(now, hz), eol);
	nrec++;
	if (q->xoff && dql_avail(&q->d) >= 0)
		q->xoff = false;
}

static void usage(FILE *f)
{
	fputs("usage: gentrace [-n RECORDS] [-q QUEUES] [-s SEED] [-c] [--hz N] [-o FILE]\n"
	      "                [--t0 NS] [--jiffies] [--long-names] [--crlf]\n"
	      "  -n, --records N        stop after about N records (default 100000)\n"
	      "  -q, --queues N         number of TX queues (default 1, at most 1024)\n"
	      "  -s, --seed N           random seed (default 1)\n"
	      "  -c, --completion-only  only C records, with nq=/lo=/limit= (as a recorder)\n"
	      "      --hz N             HZ written in the trace (default 1000)\n"
	      "      --t0 NS            time of the first step (default 0; 1000000000\n"
	      "                         gives 10-digit timestamps)\n"
	      "      --jiffies          j= on every record\n"
	      "      --long-names       queues named enp129s0f1np1:tx-N, not eth0:tx-N\n"
	      "      --crlf             CRLF line ends\n"
	      "  -o, --output FILE      write there instead of standard output\n"
	      "                         (FILE.gz, FILE.zst: compressed)\n", f);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "records", required_argument, NULL, 'n' },
		{ "queues", required_argument, NULL, 'q' },
		{ "seed", required_argument, NULL, 's' },
		{ "completion-only", no_argument, NULL, 'c' },
		{ "hz", required_argument, NULL, 'H' },
		{ "output", required_argument, NULL, 'o' },
		{ "t0", required_argument, NULL, 'T' },
		{ "jiffies", no_argument, NULL, 'J' },
		{ "long-names", no_argument, NULL, 'L' },
		{ "crlf", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t records = 100000, seed = 1, now, t0 = 0;
	const char *qprefix = "eth0";
	struct bql_err e;
	unsigned int nqueues = 1, hz = 1000;
	const char *out = NULL;
	bool conly = false;
	struct gq *q;
	int opt;

	while ((opt = getopt_long(argc, argv, "n:q:s:co:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			records = strtoull(optarg, NULL, 10);
			break;
		case 'q':
			nqueues = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 10);
			break;
		case 'c':
			conly = true;
			break;
		case 'H':
			hz = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'o':
			out = optarg;
			break;
		case 'T':
			t0 = strtoull(optarg, NULL, 10);
			break;
		case 'J':
			with_j = true;
			break;
		case 'L':
			qprefix = "enp129s0f1np1";
			break;
		case 'R':
			eol = "\r\n";
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || !nqueues || nqueues > 1024 || !hz || !records) {
		usage(stderr);
		return 2;
	}
	rng_state ^= seed * 0x9E3779B97F4A7C15ull;
	if (!rng_state)
		rng_state = 1;
	if (ofile_open(&out_f, out ? out : "-", OFILE_COMPRESS_BY_NAME | OFILE_STREAM, &e)) {
		fprintf(stderr, "gentrace: %s\n", e.msg);
		return 1;
	}
	q = calloc(nqueues, sizeof(*q));
	if (!q) {
		perror("gentrace");
		return 1;
	}

	emit("# generated by gentrace -n %" PRIu64 " -q %u -s %" PRIu64 "%s --hz %u\n"
	     "# closed-loop NIC model driven by bqltool's own DQL code: NOT an\n"
	     "# independent reference for the kernel algorithm\n"
	     "bqltrace 1\nhz %u\n", records, nqueues, seed, conly ? " -c" : "", hz, hz);
	for (unsigned int i = 0; i < nqueues; i++) {
		snprintf(q[i].name, sizeof(q[i].name), "%s:tx-%u", qprefix, i);
		q[i].rate = 125000000ull * (1u << (rnd() % 4));	/* 1..8 Gbit/s */
		q[i].load = 0.3 + 1.2 * rnd_unit();
		dql_init(&q[i].d, hz, DQL_K_NEWEST, bqlt_ns_to_jiffies(t0, hz));
		emit("queue %s\n", q[i].name);
	}

	for (now = t0; nrec < records; now += STEP_NS) {
		for (unsigned int i = 0; i < nqueues && nrec < records; i++) {
			struct gq *g = &q[i];

			if (now >= g->next_load_ns) {
				g->load += (rnd_unit() - 0.5) * 0.4;
				if (g->load < 0.3)
					g->load = 0.3;
				if (g->load > 1.5)
					g->load = 1.5;
				g->next_load_ns = now + 10000000;
			}
			g->credit += g->load * (double)g->rate * STEP_NS / 1e9;
			while (g->credit >= 1514) {
				g->credit -= 1514;
				if (g->backlog < 1000)
					g->backlog++;
			}
			if (now >= g->next_irq_ns) {
				irq(g, now, hz, conly);
				g->next_irq_ns = now + rnd_range(20000, 200000);
			}
			driver(g, now, hz, conly);
		}
	}
	oflush();
	if (ofile_commit(out_f, &e)) {
		fprintf(stderr, "gentrace: %s\n", e.msg);
		return 1;
	}
	free(q);
	return 0;
}
