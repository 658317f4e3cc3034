// SPDX-License-Identifier: GPL-2.0-only
/*
 * The model options shared by `bqltool sim` and `bqltool tune`: traffic,
 * packet sizes, link, ring, coalescing, NAPI, HZ, kernel, settings.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/cmd.h"
#include "cmd/sim_opts.h"
#include "dql/dql.h"
#include "lib/io/out.h"
#include "lib/io/units.h"

void sim_opts_init(struct sim_opts *o)
{
	memset(o, 0, sizeof(*o));
	sim_config_init(&o->cfg);
	o->cfg.nflows = 0;	/* default bulk flow added by finish */
	o->size.kind = SIM_SIZE_FIXED;
	o->size.a = 1514;
}

/* ------------------------------------------------------------ values */

int sim_parse_rate(const char *what, const char *s, uint64_t *bps, struct bql_err *e)
{
	static const struct {
		const char *sfx;
		uint64_t mult;
	} t[] = {
		{ "", 1 }, { "k", 1000 }, { "m", 1000000 }, { "g", 1000000000 },
		{ "t", 1000000000000ull },
	};
	uint64_t ip = 0, fp = 0, fscale = 1;
	const char *p = s;
	char sfx[8];
	size_t n;

	if (*p == '+')	/* as every number typed (lib/io/units.h) */
		p++;
	if (*p < '0' || *p > '9')
		goto bad;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (ip > (UINT64_MAX - 9) / 10)
			return bql_err_set(e, ERANGE, "%s: '%s': too large", what, s);
		ip = ip * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			goto bad;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (fscale >= 1000000000000ull)
				return bql_err_set(e, EINVAL, "%s: '%s': too many decimals", what, s);
			fp = fp * 10 + (uint64_t)(*p - '0');
			fscale *= 10;
		}
	}
	/* the unit: K/M/G/T, then an optional "bit" or "bit/s" */
	n = strcspn(p, "bB");
	if (n >= sizeof(sfx))
		goto bad;
	memcpy(sfx, p, n);
	sfx[n] = '\0';
	/*
	 * as tc(8): any case (10GBIT); but its "bps" is bytes per second,
	 * where "100Mbps" usually means bits: refused rather than guessed
	 */
	if (p[n] && !strcasecmp(p + n, "bps"))
		return bql_err_set(e, EINVAL, "%s: '%s': tc(8) reads bps as bytes per second, many people as bits: write %.*sbit (bit/s), or 8 times that for bytes",
				   what, s, (int)(p + n - s), s);
	if (p[n] && strcasecmp(p + n, "bit") && strcasecmp(p + n, "bit/s"))
		goto bad;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		unsigned __int128 v;

		/* either case, as tc takes them: 10gbit, 100mbit */
		if (strcasecmp(sfx, t[i].sfx))
			continue;
		v = (unsigned __int128)ip * t[i].mult +
		    (unsigned __int128)fp * t[i].mult / fscale;
		if ((unsigned __int128)fp * t[i].mult % fscale)
			return bql_err_set(e, EINVAL, "%s: '%s': not a whole number of bit/s",
					   what, s);
		if (v > UINT64_MAX)
			return bql_err_set(e, ERANGE, "%s: '%s': too large", what, s);
		if (!v)
			return bql_err_set(e, EINVAL, "%s: '%s': a rate must be positive", what, s);
		*bps = (uint64_t)v;
		return 0;
	}
bad:
	return bql_err_set(e, EINVAL, "%s: '%s': expected a rate in bit/s like 100M, 2.5G or 400G",
			   what, s);
}

/*
 * A time that must be positive unless @zero_ok, at most @max_ns, which
 * @max names ("1 h"); NULL: lib/io/units.c's own cap of a day. The message
 * names the option's own limit, whether the value is above it or above
 * what units_parse_sec_ns() takes at all.
 */
static int parse_time(const char *what, const char *s, bool zero_ok, uint64_t max_ns,
		      const char *max, uint64_t *ns, struct bql_err *e)
{
	int ret = units_parse_sec_ns(what, s, ns, e);

	if (max && (ret == -ERANGE || (!ret && *ns > max_ns)))
		return bql_err_set(e, ERANGE, "%s: '%s': at most %s", what, s, max);
	if (!ret && !zero_ok && !*ns)
		return bql_err_set(e, EINVAL, "%s: '%s': must be more than 0", what, s);
	return ret;
}

static int parse_uint(const char *what, const char *s, uint64_t lo, uint64_t hi,
		      unsigned int *out, struct bql_err *e)
{
	uint64_t v;

	if (units_parse_arg_u64(s, &v) || v < lo || v > hi)
		return bql_err_set(e, EINVAL, "%s: '%s': expected an integer %" PRIu64 "..%" PRIu64,
				   what, s, lo, hi);
	*out = (unsigned int)v;
	return 0;
}

/* split "A:B:C" in place into at most @max fields; the count */
static int split(char *s, char **f, int max)
{
	int n = 0;

	f[n++] = s;
	while (n < max && (s = strchr(s, ':'))) {
		*s++ = '\0';
		f[n++] = s;
	}
	return n;
}

static int parse_pkt_bytes(const char *s, const char *spec, uint32_t *out, struct bql_err *e)
{
	uint64_t v;

	if (units_parse_bytes("--size", s, 0, &v, e))
		return -EINVAL;
	if (v < 1 || v > SIM_PKT_MAX)
		return bql_err_set(e, EINVAL, "--size: '%s': %" PRIu64 " bytes: expected 1..%u (64K)",
				   spec, v, SIM_PKT_MAX);
	*out = (uint32_t)v;
	return 0;
}

static int parse_size(const char *spec, struct sim_size *sz, struct bql_err *e)
{
	char buf[128], *f[5];
	int n;

	if (strlen(spec) >= sizeof(buf))
		return bql_err_set(e, EINVAL, "--size: '%s': too long", spec);
	strcpy(buf, spec);
	n = split(buf, f, 5);
	memset(sz, 0, sizeof(*sz));
	if (!strcmp(f[0], "fixed") && n == 2) {
		sz->kind = SIM_SIZE_FIXED;
		return parse_pkt_bytes(f[1], spec, &sz->a, e);
	}
	/* a bare size is fixed:N, as a user types it (--size 60) */
	if (n == 1 && f[0][0] >= '0' && f[0][0] <= '9') {
		sz->kind = SIM_SIZE_FIXED;
		return parse_pkt_bytes(f[0], spec, &sz->a, e);
	}
	if (!strcmp(f[0], "tso") && (n == 2 || n == 3)) {
		sz->kind = SIM_SIZE_TSO;
		if (parse_pkt_bytes(f[1], spec, &sz->a, e))
			return -EINVAL;
		if (n == 3 && (parse_pkt_bytes(f[2], spec, &sz->b, e) || sz->b < 88))
			return bql_err_set(e, EINVAL, "--size: '%s': MSS: expected 88..%u", spec,
					   SIM_PKT_MAX);
		return 0;
	}
	if (!strcmp(f[0], "imix") && n == 1) {
		sz->kind = SIM_SIZE_IMIX;
		return 0;
	}
	if (!strcmp(f[0], "uniform") && n == 3) {
		sz->kind = SIM_SIZE_UNIFORM;
		if (parse_pkt_bytes(f[1], spec, &sz->a, e) || parse_pkt_bytes(f[2], spec, &sz->b, e))
			return -EINVAL;
		if (sz->a > sz->b)
			return bql_err_set(e, EINVAL, "--size: '%s': A must not exceed B", spec);
		return 0;
	}
	if (!strcmp(f[0], "bimodal") && n == 4) {
		sz->kind = SIM_SIZE_BIMODAL;
		if (parse_pkt_bytes(f[1], spec, &sz->a, e) || parse_pkt_bytes(f[2], spec, &sz->b, e))
			return -EINVAL;
		if (units_parse_fraction(f[3], &sz->p) || sz->p > 1)
			return bql_err_set(e, EINVAL, "--size: '%s': P must be a probability 0..1",
					   spec);
		return 0;
	}
	return bql_err_set(e, EINVAL,
			   "--size: '%s': unknown size (N, fixed:N, uniform:A:B, imix, bimodal:A:B:P, tso:N[:MSS])",
			   spec);
}

static int parse_traffic(const char *spec, struct sim_flow *fl, struct bql_err *e)
{
	char buf[128], *f[5], *at;
	int n;

	if (strlen(spec) >= sizeof(buf))
		return bql_err_set(e, EINVAL, "--traffic: '%s': too long", spec);
	strcpy(buf, spec);
	memset(fl, 0, sizeof(*fl));
	/* SPEC@Q: the flow on queue Q, not hashed */
	at = strrchr(buf, '@');
	if (at) {
		const char *num;
		uint64_t q;

		*at++ = '\0';
		/* @tx-2 as the summary prints it, or @2 */
		num = !strncmp(at, "tx-", 3) && at[3] >= '0' && at[3] <= '9' ? at + 3 : at;
		if (units_parse_arg_u64(num, &q) || q >= SIM_MAX_QUEUES)
			return bql_err_set(e, EINVAL, "--traffic: '%s': @%s: expected a queue 0..%u",
					   spec, at, SIM_MAX_QUEUES - 1);
		fl->pinned = true;
		fl->queue = (unsigned int)q;
	}
	n = split(buf, f, 5);
	if (!strcmp(f[0], "bulk")) {
		if (n != 1)
			return bql_err_set(e, EINVAL, "--traffic: '%s': bulk takes no rate", spec);
		fl->kind = SIM_T_BULK;
		return 0;
	}
	if (!strcmp(f[0], "cbr"))
		fl->kind = SIM_T_CBR;
	else if (!strcmp(f[0], "poisson"))
		fl->kind = SIM_T_POISSON;
	else if (!strcmp(f[0], "onoff"))
		fl->kind = SIM_T_ONOFF;
	else
		return bql_err_set(e, EINVAL,
				   "--traffic: '%s': unknown traffic kind '%s' (bulk, cbr:RATE, poisson:RATE, onoff:RATE:ON:OFF)",
				   spec, f[0]);
	if (n != (fl->kind == SIM_T_ONOFF ? 4 : 2))
		return bql_err_set(e, EINVAL, "--traffic: '%s': expected %s", spec,
				   fl->kind == SIM_T_ONOFF ? "onoff:RATE:ON:OFF" :
				   fl->kind == SIM_T_CBR ? "cbr:RATE" : "poisson:RATE");
	if (sim_parse_rate("--traffic", f[1], &fl->rate_bps, e))
		return -EINVAL;
	if (fl->rate_bps > SIM_LINK_MAX)
		return bql_err_set(e, EINVAL, "--traffic: '%s': rate above 400G", spec);
	if (fl->kind == SIM_T_ONOFF) {
		if (parse_time("--traffic ON", f[2], false, SIM_DURATION_MAX, "1 h", &fl->on_ns, e) ||
		    parse_time("--traffic OFF", f[3], true, SIM_DURATION_MAX, "1 h", &fl->off_ns, e))
			return -EINVAL;
	}
	return 0;
}

/* KEY=VALUE of a BQL setting, in sysfs units */
static int parse_kv(const char *what, const char *arg, struct sim_kv *kv, struct bql_err *e)
{
	char key[32], w[64];
	const char *eq = strchr(arg, '=');
	size_t n;

	if (!eq || eq == arg || (n = (size_t)(eq - arg)) >= sizeof(key))
		return bql_err_set(e, EINVAL, "%s: expected KEY=VALUE, got '%s'", what, arg);
	memcpy(key, arg, n);
	key[n] = '\0';
	snprintf(w, sizeof(w), "%s %s", what, key);
	if (!strcmp(key, "limit_min") || !strcmp(key, "limit_max")) {
		kv->key = key[6] == 'm' && key[7] == 'i' ? BQLT_K_LIMIT_MIN : BQLT_K_LIMIT_MAX;
		if (units_parse_bytes(w, eq + 1, DQL_MAX_LIMIT, &kv->val, e))
			return -EINVAL;
		if (kv->val > DQL_MAX_LIMIT)
			return bql_err_set(e, ERANGE, "%s=%s: above the kernel's maximum %u",
					   w, eq + 1, (unsigned int)DQL_MAX_LIMIT);
		return 0;
	}
	if (!strcmp(key, "hold_time") || !strcmp(key, "stall_thrs")) {
		kv->key = key[0] == 'h' ? BQLT_K_HOLD_TIME : BQLT_K_STALL_THRS;
		return units_parse_ms(w, eq + 1, &kv->val, e);
	}
	return bql_err_set(e, EINVAL,
			   "%s %s: unknown setting (limit_min, limit_max, hold_time, stall_thrs)",
			   what, key);
}

/* ------------------------------------------------------------ options */

static int add_flow(struct sim_opts *o, const char *arg, struct bql_err *e)
{
	struct sim_flow fl;

	if (parse_traffic(arg, &fl, e))
		return -EINVAL;
	if (o->cfg.nflows >= SIM_MAX_FLOWS)
		return bql_err_set(e, EINVAL, "--traffic: at most %u flows", SIM_MAX_FLOWS);
	if (o->size_given) {
		fl.size = o->size;
		o->flow_sized[o->cfg.nflows] = true;
	}
	o->cfg.flows[o->cfg.nflows++] = fl;
	o->traffic_given = true;
	return 0;
}

static int set_size(struct sim_opts *o, const char *arg, struct bql_err *e)
{
	if (parse_size(arg, &o->size, e))
		return -EINVAL;
	/* the first --size also covers the flows given before it */
	if (!o->size_given)
		for (unsigned int i = 0; i < o->cfg.nflows; i++) {
			o->cfg.flows[i].size = o->size;
			o->flow_sized[i] = true;
		}
	o->size_given = true;
	return 0;
}

static int parse_at(struct sim_opts *o, const char *arg, struct bql_err *e)
{
	const char *colon = strchr(arg, ':');
	char t[64];
	struct sim_at *a;

	if (!colon || colon == arg || (size_t)(colon - arg) >= sizeof(t))
		return bql_err_set(e, EINVAL, "--at: expected TIME:KEY=VALUE, got '%s'", arg);
	if (o->cfg.nat >= SIM_MAX_AT)
		return bql_err_set(e, EINVAL, "--at: at most %u", SIM_MAX_AT);
	memcpy(t, arg, (size_t)(colon - arg));
	t[colon - arg] = '\0';
	a = &o->cfg.at[o->cfg.nat];
	if (parse_time("--at", t, true, 0, NULL, &a->t_ns, e) || parse_kv("--at", colon + 1, &a->kv, e))
		return -EINVAL;
	for (unsigned int k = 0; k < o->cfg.nat; k++)	/* two writes of one key at one time */
		if (o->cfg.at[k].t_ns == a->t_ns && o->cfg.at[k].kv.key == a->kv.key)
			return bql_err_set(e, EINVAL, "--at %s: %s written twice at that time",
					   arg, bqlt_key_name(a->kv.key));
	o->cfg.nat++;
	return 0;
}

static int parse_stall(struct sim_opts *o, const char *arg, struct bql_err *e)
{
	char buf[128], *f[3];
	struct sim_stall *st;

	if (strlen(arg) >= sizeof(buf))
		return bql_err_set(e, EINVAL, "--stall: '%s': too long", arg);
	strcpy(buf, arg);
	if (split(buf, f, 3) != 2)
		return bql_err_set(e, EINVAL, "--stall: expected TIME:DURATION, got '%s'", arg);
	if (o->cfg.nstalls >= SIM_MAX_STALLS)
		return bql_err_set(e, EINVAL, "--stall: at most %u", SIM_MAX_STALLS);
	st = &o->cfg.stalls[o->cfg.nstalls];
	if (parse_time("--stall TIME", f[0], true, 0, NULL, &st->t_ns, e) ||
	    parse_time("--stall DURATION", f[1], false, SIM_DURATION_MAX, "1 h", &st->len_ns, e))
		return -EINVAL;
	o->cfg.nstalls++;
	return 0;
}

static int parse_irq(struct sim_opts *o, const char *arg, struct bql_err *e)
{
	char buf[64], *f[3];
	int n;

	if (strlen(arg) >= sizeof(buf))
		return bql_err_set(e, EINVAL, "--irq-latency: '%s': too long", arg);
	strcpy(buf, arg);
	n = split(buf, f, 3);
	if (n > 2)
		return bql_err_set(e, EINVAL, "--irq-latency: expected MEAN[:JITTER], got '%s'", arg);
	o->cfg.irq_jitter_ns = 0;
	if (parse_time("--irq-latency", f[0], true, SIM_IRQ_LAT_MAX, "1 s",
		       &o->cfg.irq_latency_ns, e) ||
	    (n == 2 && parse_time("--irq-latency JITTER", f[1], true, SIM_IRQ_LAT_MAX, "1 s",
				  &o->cfg.irq_jitter_ns, e)))
		return -EINVAL;
	return 0;
}

int sim_opts_parse(struct bql_ctx *c, struct sim_opts *o, int opt, const char *arg)
{
	struct sim_config *cfg = &o->cfg;
	struct bql_err e;
	uint64_t v;
	int ret = 0;

	switch (opt) {
	case SO_TRAFFIC:
		ret = add_flow(o, arg, &e);
		break;
	case SO_SIZE:
		ret = set_size(o, arg, &e);
		break;
	case SO_LINK:
		ret = sim_parse_rate("--link", arg, &cfg->link_bps, &e);
		if (!ret && (cfg->link_bps < SIM_LINK_MIN || cfg->link_bps > SIM_LINK_MAX))
			ret = bql_err_set(&e, EINVAL, "--link: '%s': expected 10M..400G", arg);
		o->link_given = true;
		break;
	case SO_QUEUES:
		ret = parse_uint("--queues", arg, 1, SIM_MAX_QUEUES, &cfg->nqueues, &e);
		o->queues_given = true;
		break;
	case SO_QLEN:
		ret = parse_uint("--qlen", arg, 1, SIM_QLEN_MAX, &cfg->qlen, &e);
		break;
	case SO_RING:
		ret = parse_uint("--ring", arg, 1, SIM_RING_MAX, &cfg->ring, &e);
		o->ring_given = true;
		break;
	case SO_COAL_USECS:
		ret = parse_uint("--coalesce-usecs", arg, 0, 1000000, &cfg->coalesce_usecs, &e);
		o->coal_usecs_given = true;
		break;
	case SO_COAL_FRAMES:
		ret = parse_uint("--coalesce-frames", arg, 0, SIM_RING_MAX, &cfg->coalesce_frames, &e);
		o->coal_frames_given = true;
		break;
	case SO_NAPI_BUDGET:
		ret = parse_uint("--napi-budget", arg, 1, SIM_RING_MAX, &cfg->napi_budget, &e);
		break;
	case SO_IRQ_LATENCY:
		ret = parse_irq(o, arg, &e);
		break;
	case SO_HZ:
		if (units_parse_arg_u64(arg, &v) || !dql_hz_valid((unsigned int)v) || v > DQL_HZ_MAX)
			ret = bql_err_set(&e, EINVAL, "--hz: '%s': expected %u..%u (100, 250, 300, 1000)",
					  arg, DQL_HZ_MIN, DQL_HZ_MAX);
		else
			cfg->hz = (unsigned int)v;
		break;
	case SO_KERNEL:
		ret = dql_kernel_parse(arg, &cfg->kflags, &e);
		if (ret)
			return cmd_usage(c, "--%s", e.msg);
		o->kernel = arg;
		break;
	case SO_DURATION:
		ret = parse_time("--duration", arg, false, SIM_DURATION_MAX, "1 h",
				 &cfg->duration_ns, &e);
		break;
	case SO_SEED:
		if (units_parse_arg_u64(arg, &cfg->seed))
			ret = bql_err_set(&e, EINVAL, "--seed: '%s': expected an unsigned integer", arg);
		break;
	case SO_SET:
		if (cfg->nset >= SIM_MAX_SET)
			ret = bql_err_set(&e, EINVAL, "--set: at most %u", SIM_MAX_SET);
		else if (!(ret = parse_kv("--set", arg, &cfg->set[cfg->nset], &e))) {
			for (unsigned int k = 0; k < cfg->nset && !ret; k++)
				if (cfg->set[k].key == cfg->set[cfg->nset].key)	/* as set */
					ret = bql_err_set(&e, EINVAL, "--set %s: given twice",
							  bqlt_key_name(cfg->set[k].key));
			cfg->nset += !ret;
		}
		break;
	case SO_AT:
		ret = parse_at(o, arg, &e);
		break;
	case SO_STALL:
		ret = parse_stall(o, arg, &e);
		break;
	case SO_NO_FRAMING:
		cfg->no_framing = true;
		break;
	case SO_FRAG_SIZE:
		if (units_parse_bytes("--frag-size", arg, 0, &v, &e))
			ret = -EINVAL;
		else if (v < SIM_FRAG_MIN || v > SIM_PKT_MAX)
			ret = bql_err_set(&e, EINVAL, "--frag-size: '%s': expected %u..%u bytes",
					  arg, SIM_FRAG_MIN, SIM_PKT_MAX);
		else
			cfg->frag_size = (unsigned int)v;
		break;
	default:
		return 1;
	}
	return ret ? cmd_usage(c, "%s", e.msg) : 0;
}

int sim_opts_finish(struct bql_ctx *c, struct sim_opts *o)
{
	struct bql_err e;

	if (!o->cfg.nflows) {
		o->cfg.flows[0].kind = SIM_T_BULK;
		o->cfg.flows[0].size = o->size;
		o->cfg.nflows = 1;
	}
	for (unsigned int i = 0; i < o->cfg.nflows; i++)
		if (!o->flow_sized[i])
			o->cfg.flows[i].size = o->size;
	if (!(o->cfg.kflags & DQL_K_STALL)) {	/* 3.3 .. 6.8: no such file, no such code */
		bool stall = false;

		for (unsigned int i = 0; i < o->cfg.nset; i++)
			stall |= o->cfg.set[i].key == BQLT_K_STALL_THRS;
		for (unsigned int i = 0; i < o->cfg.nat; i++)
			stall |= o->cfg.at[i].kv.key == BQLT_K_STALL_THRS;
		if (stall)
			return cmd_usage(c, "stall_thrs: the kernel of --kernel has no stall detector (Linux 6.9 and later)");
	}
	if (sim_config_check(&o->cfg, &e))
		return cmd_usage(c, "%s", e.msg);
	return 0;
}

/* ------------------------------------------------------------ text */

char *sim_fmt_rate(char *buf, size_t n, double bps)
{
	static const char *const u[] = { "bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s" };
	int i = 0;

	while (bps >= 1000 && i < 4) {
		bps /= 1000;
		i++;
	}
	snprintf(buf, n, "%.4g %s", bps, u[i]);
	return buf;
}

static void fmt_size(char *buf, size_t n, const struct sim_size *sz)
{
	switch (sz->kind) {
	case SIM_SIZE_FIXED:
		snprintf(buf, n, "fixed:%" PRIu32, sz->a);
		break;
	case SIM_SIZE_TSO:
		if (sz->b)
			snprintf(buf, n, "tso:%" PRIu32 ":%" PRIu32, sz->a, sz->b);
		else
			snprintf(buf, n, "tso:%" PRIu32, sz->a);
		break;
	case SIM_SIZE_UNIFORM:
		snprintf(buf, n, "uniform:%" PRIu32 ":%" PRIu32, sz->a, sz->b);
		break;
	case SIM_SIZE_BIMODAL:
		snprintf(buf, n, "bimodal:%" PRIu32 ":%" PRIu32 ":%g", sz->a, sz->b, sz->p);
		break;
	case SIM_SIZE_IMIX:
		snprintf(buf, n, "imix");
		break;
	}
}

char *sim_fmt_traffic(char *buf, size_t n, const struct sim_config *cfg)
{
	static const char *const kind[] = {
		[SIM_T_BULK] = "bulk", [SIM_T_CBR] = "cbr", [SIM_T_POISSON] = "poisson",
		[SIM_T_ONOFF] = "onoff",
	};
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < cfg->nflows && len + 1 < n; i++) {
		const struct sim_flow *f = &cfg->flows[i];
		char rate[32] = "", sz[48];

		if (f->kind != SIM_T_BULK) {
			sim_fmt_rate(rate, sizeof(rate), (double)f->rate_bps);
			/* "1 Gbit/s" -> ":1G" style is kept readable: ":1 Gbit/s" */
		}
		fmt_size(sz, sizeof(sz), &f->size);
		len += (size_t)snprintf(buf + len, n - len, "%s%s%s%s %s %stx-%u", i ? ", " : "",
					kind[f->kind], *rate ? " " : "", rate, sz,
					f->pinned ? "@" : "-> ", sim_flow_queue(cfg, i));
	}
	return buf;
}

unsigned int sim_opts_warnings(struct bql_ctx *c, const struct sim_config *cfg,
			       struct sim_warning *w)
{
	unsigned int n = sim_model_warnings(cfg, w, SIM_MAX_WARN);

	if (n > SIM_MAX_WARN)
		n = SIM_MAX_WARN;
	for (unsigned int i = 0; i < n; i++)
		cmd_warn(c, "%s", w[i].msg);
	return n;
}

void sim_opts_warnings_json(struct bql_ctx *c, const struct sim_warning *w, unsigned int n)
{
	out_open_arr(c, "warnings");
	for (unsigned int i = 0; i < n; i++) {
		out_open_obj(c, NULL);
		if (w[i].kind == SIM_WARN_AFTER_END) {
			out_str(c, OUT_JSON, "kind", NULL, "after_end");
			out_str(c, OUT_JSON, "option", NULL, w[i].option);
			out_u64(c, OUT_JSON, "count", NULL, w[i].count);
			out_u64(c, OUT_JSON, "t_ns", NULL, w[i].t_ns);
			out_u64(c, OUT_JSON, "duration_ns", NULL, w[i].end_ns);
		} else {
			out_str(c, OUT_JSON, "kind", NULL, "ring_bound");
			out_u64(c, OUT_JSON, "ring_ns", NULL, w[i].ring_ns);
			out_u64(c, OUT_JSON, "cycle_ns", NULL, w[i].cycle_ns);
			out_u64(c, OUT_JSON, "cap_bps", NULL, w[i].cap_bps);
		}
		out_str(c, OUT_JSON, "message", NULL, w[i].msg);
		out_close_obj(c);
	}
	out_close_arr(c);
}
