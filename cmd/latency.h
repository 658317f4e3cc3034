/* SPDX-License-Identifier: GPL-2.0-only */
/* bqltool latency: what the run (latency.c) hands the printers (latency_out.c). */
#ifndef BQLTOOL_CMD_LATENCY_H
#define BQLTOOL_CMD_LATENCY_H

#include <stdbool.h>
#include <stdint.h>

#include "dql/lathist.h"
#include "lib/io/ctx.h"
#include "lib/kernel/latbpf.h"

#define LAT_MAX_EVENTS	64

/* one reading to print: the interval's distributions of every queue */
struct lat_report {
	const struct latbpf_target *t;
	unsigned int n;
	const struct latbpf_snap *s;	/* this interval (differences), NULL: --from */
	const struct ringtime *rt;	/* --from */
	uint64_t dur_ns;		/* the interval's length */
	const struct latbpf *l;		/* drop reason names */
	const char *missing;		/* tracepoints left out, "" */
	const struct lat_event *ev;
	unsigned int nev;
	uint64_t ev_lost;
	bool hist;			/* text: the histograms too */
	bool no_irq;			/* --no-irq: no interrupt delay measured */
};

/* print @r as text or one JSON document; returns out_end()'s result */
int latency_print(struct bql_ctx *c, const struct lat_report *r);
/* @d = @now - @before for every queue and CPU */
void latency_delta(struct latbpf_snap *d, const struct latbpf_snap *now,
		   const struct latbpf_snap *before);
/* JSON: @key: {"p50","p90","p99","max","count","mean"} of @h (ns) */
void latency_json_dist(struct bql_ctx *c, const char *key, const struct lat_hist *h);
/* "12.3 us", "850 ns", "4.56 ms", "1.20 s" */
char *latency_fmt_ns(char *buf, size_t n, uint64_t ns);

#endif
