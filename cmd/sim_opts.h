/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to cmd/sim.c and cmd/tune.c: the model options they share
 * (traffic, link, ring, completions, settings), parsed into a
 * struct sim_config (dql/sim.h).
 */
#ifndef BQLTOOL_CMD_SIM_OPTS_H
#define BQLTOOL_CMD_SIM_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "dql/sim.h"
#include "lib/io/ctx.h"

enum {
	SO_TRAFFIC = 400,
	SO_SIZE,
	SO_LINK,
	SO_QUEUES,
	SO_QLEN,
	SO_RING,
	SO_COAL_USECS,
	SO_COAL_FRAMES,
	SO_NAPI_BUDGET,
	SO_IRQ_LATENCY,
	SO_HZ,
	SO_KERNEL,
	SO_DURATION,
	SO_SEED,
	SO_SET,
	SO_AT,
	SO_STALL,
	SO_NO_FRAMING,
	SO_FRAG_SIZE,
};

/* the getopt_long entries, to put in a command's table */
#define SIM_OPTS_LONG \
	{ "traffic",		required_argument, NULL, SO_TRAFFIC }, \
	{ "size",		required_argument, NULL, SO_SIZE }, \
	{ "link",		required_argument, NULL, SO_LINK }, \
	{ "queues",		required_argument, NULL, SO_QUEUES }, \
	{ "qlen",		required_argument, NULL, SO_QLEN }, \
	{ "ring",		required_argument, NULL, SO_RING }, \
	{ "coalesce-usecs",	required_argument, NULL, SO_COAL_USECS }, \
	{ "coalesce-frames",	required_argument, NULL, SO_COAL_FRAMES }, \
	{ "napi-budget",	required_argument, NULL, SO_NAPI_BUDGET }, \
	{ "irq-latency",	required_argument, NULL, SO_IRQ_LATENCY }, \
	{ "hz",			required_argument, NULL, SO_HZ }, \
	{ "kernel",		required_argument, NULL, SO_KERNEL }, \
	{ "duration",		required_argument, NULL, SO_DURATION }, \
	{ "seed",		required_argument, NULL, SO_SEED }

/* the help lines of the model options (@SIM_OPTS_SET: with --set/--at/--stall) */
#define SIM_OPTS_HELP \
	"  --traffic SPEC       one flow (repeatable): bulk (backlogged), cbr:RATE,\n" \
	"                       poisson:RATE, onoff:RATE:ON:OFF (default: one bulk flow);\n" \
	"                       SPEC@Q puts it on queue Q (else hashed by the seed)\n" \
	"  --size SPEC          packet sizes of the --traffic flows after it (the first\n" \
	"                       --size also covers flows before it): N or fixed:N,\n" \
	"                       uniform:A:B, imix, bimodal:A:B:P, tso:N[:MSS] (default 1514)\n" \
	"  --link RATE          link rate, 10M..400G bit/s (default 1G)\n" \
	"  --queues N           TX queues sharing the link; flows are hashed to them (1)\n" \
	"  --qlen PKTS          qdisc backlog limit per queue, packets (1000)\n" \
	"  --ring N             descriptors per TX ring (256)\n" \
	"  --coalesce-usecs N   interrupt N us after the first completion; 0: at once (50)\n" \
	"  --coalesce-frames N  ... or after N completed packets; 0: no frame limit (0)\n" \
	"  --napi-budget N      packets one NAPI poll cleans at most (256)\n" \
	"  --irq-latency MEAN[:JITTER]  interrupt to poll, uniform +-JITTER (5us)\n" \
	"  --hz N               kernel HZ for jiffies (250)\n" \
	"  --kernel VERSION     DQL of that kernel (3.3, 3.5, 6.1, 6.9, 6.15, newest)\n" \
	"  --duration TIME      simulated time: 1, 0.5, 200ms (1 s)\n" \
	"  --seed N             random seed; the same seed gives the same result (1)\n"

/* the wire and ring options (a command's table adds them after SIM_OPTS_LONG) */
#define SIM_OPTS_WIRE_LONG \
	{ "frag-size",		required_argument, NULL, SO_FRAG_SIZE }, \
	{ "no-framing",		no_argument,	   NULL, SO_NO_FRAMING }

#define SIM_OPTS_WIRE_HELP \
	"  --frag-size BYTES    bytes per TX descriptor: a larger packet takes 1 +\n" \
	"                       ceil((len - 66) / BYTES) descriptors (4096)\n" \
	"  --no-framing         a packet holds the wire for its bytes only (no preamble,\n" \
	"                       FCS, gap, minimum frame, TSO segments)\n"

#define SIM_OPTS_SET_HELP \
	"  --set KEY=VALUE      BQL setting of every queue from the start: limit_min,\n" \
	"                       limit_max (bytes: 64K, max), hold_time, stall_thrs (ms)\n" \
	"  --at TIME:KEY=VALUE  the same setting written at TIME (repeatable)\n" \
	"  --stall TIME:DURATION  delay every NAPI poll due in that window to its end\n"

struct sim_opts {
	struct sim_config cfg;
	const char *kernel;		/* --kernel as given, NULL = newest */
	bool traffic_given, link_given, queues_given;
	bool ring_given, coal_usecs_given, coal_frames_given;
	/* --size bookkeeping */
	bool size_given;
	struct sim_size size;		/* the latest --size */
	bool flow_sized[SIM_MAX_FLOWS];
};

void sim_opts_init(struct sim_opts *o);
/*
 * sim_opts_parse - one option of the table above (@opt, its @arg);
 * 1 if @opt is not one of them, 0 if handled, else BQL_EXIT_USAGE after
 * reporting a usage error that names the option and the value.
 */
int sim_opts_parse(struct bql_ctx *c, struct sim_opts *o, int opt, const char *arg);
/* sim_opts_finish - sizes, defaults, then the whole check; 0 or BQL_EXIT_USAGE. */
int sim_opts_finish(struct bql_ctx *c, struct sim_opts *o);

#define SIM_MAX_WARN	4

/*
 * sim_opts_warnings - the warnings of the model @cfg (sim_model_warnings:
 * a model that cannot fill its link whatever BQL does) into @w, each said
 * on stderr; how many (at most SIM_MAX_WARN). sim and tune both say them.
 */
unsigned int sim_opts_warnings(struct bql_ctx *c, const struct sim_config *cfg,
			       struct sim_warning *w);
/* sim_opts_warnings_json - the "warnings" array of the JSON report */
void sim_opts_warnings_json(struct bql_ctx *c, const struct sim_warning *w, unsigned int n);

/* parse_rate - "10M", "2.5G", "400G", "1000000" (bit/s, SI) into *bps */
int sim_parse_rate(const char *what, const char *s, uint64_t *bps, struct bql_err *e);
/* text for a rate in bit/s: "1 Gbit/s", "2.5 Gbit/s" */
char *sim_fmt_rate(char *buf, size_t n, double bps);
/* the description of the traffic: "bulk fixed:1514, cbr:100M imix" */
char *sim_fmt_traffic(char *buf, size_t n, const struct sim_config *cfg);

#endif
