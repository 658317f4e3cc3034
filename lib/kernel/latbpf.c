// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency's BPF loader (lib/kernel/bpf/latency.bpf.c through its libbpf
 * skeleton): which tracepoints exist, the device walk, the tables, the
 * per-CPU sums, the event ring.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dql/lathist.h"
#include "lib/kernel/latbpf.h"

#ifndef BQLTOOL_HAVE_BPF

static int no_bpf(struct bql_err *e)
{
	return bql_err_set(e, ENOTSUP,
			   "bqltool was built without BPF support (libbpf, clang, bpftool "
			   "or /sys/kernel/btf/vmlinux missing at build time)");
}

bool latbpf_available(void) { return false; }
int latbpf_open(struct latbpf **lp, const struct latbpf_opts *o, struct bql_err *e)
{
	(void)o;
	*lp = NULL;
	return no_bpf(e);
}
const char *latbpf_missing(const struct latbpf *l) { (void)l; return ""; }
int latbpf_read(const struct latbpf *l, struct latbpf_snap *s, struct bql_err *e)
{
	(void)l; (void)s;
	return no_bpf(e);
}
const char *latbpf_reason_name(const struct latbpf *l, unsigned int r)
{
	(void)l; (void)r;
	return NULL;
}
int latbpf_events(struct latbpf *l, latbpf_event_fn fn, void *arg)
{
	(void)l; (void)fn; (void)arg;
	return -ENOTSUP;
}
int latbpf_prog_stats(const struct latbpf *l, struct bpf_prog_runs *out, int max)
{
	(void)l; (void)out; (void)max;
	return 0;
}
void latbpf_detach(struct latbpf *l) { (void)l; }
void latbpf_close(struct latbpf *l) { (void)l; }

#else /* BQLTOOL_HAVE_BPF */

#include <stdarg.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

/* the generated skeleton casts its embedded object's const away */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wcast-qual"
#include "latency.skel.h"
#pragma GCC diagnostic pop

/* a program and the tracepoint it needs (its BTF typedef btf_trace_NAME) */
struct lat_prog {
	const char *tp;		/* "qdisc_enqueue" */
	const char *what;	/* "qdisc:qdisc_enqueue" */
};

enum {
	P_ENQ, P_DEQ, P_START, P_XMIT, P_NAPI, P_RAISE, P_SENTRY, P_SEXIT, P_DROP,
	P_STALL, P_TIMEOUT, P_NR,
};

static const struct lat_prog progs[P_NR] = {
	[P_ENQ] = { "qdisc_enqueue", "qdisc:qdisc_enqueue" },
	[P_DEQ] = { "qdisc_dequeue", "qdisc:qdisc_dequeue" },
	[P_START] = { "net_dev_start_xmit", "net:net_dev_start_xmit" },
	[P_XMIT] = { "net_dev_xmit", "net:net_dev_xmit" },
	[P_NAPI] = { "napi_poll", "napi:napi_poll" },
	[P_RAISE] = { "softirq_raise", "irq:softirq_raise" },
	[P_SENTRY] = { "softirq_entry", "irq:softirq_entry" },
	[P_SEXIT] = { "softirq_exit", "irq:softirq_exit" },
	[P_DROP] = { "kfree_skb", "skb:kfree_skb" },
	[P_STALL] = { "dql_stall_detected", "napi:dql_stall_detected" },
	[P_TIMEOUT] = { "net_dev_xmit_timeout", "net:net_dev_xmit_timeout" },
};

struct latbpf {
	struct latency_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link *links[P_NR];
	unsigned int nlinks, n;
	char missing[512];
	char *reasons[LAT_NREASONS];
	latbpf_event_fn fn;
	void *arg;
	int stats_fd;
	int ncpu;
	unsigned int kinds;		/* histograms latbpf_read() reads (enum lat_kind bits) */
	bool irq_on;			/* the softirq programs are attached */
	/* latbpf_read()'s buffers, one map batch each, allocated at open */
	void *hbuf;			/* LAT_MAX_SLOTS * ncpu histograms */
	struct lat_cnt *cbuf;		/* LAT_MAX_SLOTS * ncpu */
	uint64_t *dbuf;			/* LAT_NREASONS * ncpu */
	__u32 *keys;			/* LAT_NREASONS keys (a batch's keys) */
};

bool latbpf_available(void)
{
	return true;
}

static int lb_verbose;
static char lb_last[512];

static int lb_print(enum libbpf_print_level lvl, const char *fmt, va_list ap)
{
	char buf[512];
	size_t n;
	va_list aq;

	if (lvl == LIBBPF_DEBUG && lb_verbose < 3)
		return 0;
	va_copy(aq, ap);
	vsnprintf(buf, sizeof(buf), fmt, aq);
	va_end(aq);
	n = strlen(buf);
	while (n && buf[n - 1] == '\n')
		buf[--n] = 0;
	if (lvl != LIBBPF_DEBUG && n && !lb_last[0])
		snprintf(lb_last, sizeof(lb_last), "%s",
			 strncmp(buf, "libbpf: ", 8) ? buf : buf + 8);
	if (lb_verbose >= 2)
		vfprintf(stderr, fmt, ap);
	return 0;
}

static const char *perm_hint(int err)
{
	if (err != EPERM && err != EACCES)
		return "";
	if (geteuid() != 0)
		return " (latency needs root, or CAP_BPF and CAP_PERFMON)";
	if (err == EACCES)
		return " (the verifier rejected a program: -vvv shows its log)";
	return " (refused by the kernel even for root: lockdown or a vendor restriction)";
}

static struct bpf_program *prog_of(struct latency_bpf *s, int p)
{
	switch (p) {
	case P_ENQ: return s->progs.lat_enq;
	case P_DEQ: return s->progs.lat_deq;
	case P_START: return s->progs.lat_start;
	case P_XMIT: return s->progs.lat_xmit;
	case P_NAPI: return s->progs.lat_napi;
	case P_RAISE: return s->progs.lat_raise;
	case P_SENTRY: return s->progs.lat_sentry;
	case P_SEXIT: return s->progs.lat_sexit;
	case P_DROP: return s->progs.lat_drop;
	case P_STALL: return s->progs.lat_stall;
	default: return s->progs.lat_timeout;
	}
}

static void add_missing(struct latbpf *l, const char *what)
{
	size_t k = strlen(l->missing);

	snprintf(l->missing + k, sizeof(l->missing) - k, "%s%s", k ? ", " : "", what);
}

/*
 * The tracepoints this kernel has (BTF typedefs btf_trace_NAME), the drop
 * reasons' names, and which reasons are a qdisc's (QDISC_*, FQ_*, CAKE_*,
 * TC_*: enum skb_drop_reason).
 */
static void from_btf(struct latbpf *l, bool have[P_NR], uint64_t qmask[LAT_NREASONS / 64])
{
	struct btf *vm = btf__load_vmlinux_btf();
	const struct btf_type *t;
	const struct btf_enum *en;
	char name[64];
	int id;

	for (int p = 0; p < P_NR; p++)
		have[p] = true;
	if (!vm)
		return;
	for (int p = 0; p < P_NR; p++) {
		const char *skip = getenv("BQLTOOL_LATENCY_NO_TP");
		size_t len = strlen(progs[p].tp);

		snprintf(name, sizeof(name), "btf_trace_%s", progs[p].tp);
		have[p] = btf__find_by_name_kind(vm, name, BTF_KIND_TYPEDEF) > 0;
		/* tests: act as a kernel without these tracepoints (comma-separated) */
		for (const char *q = skip; q && *q; q += strcspn(q, ",") + (q[strcspn(q, ",")] != 0))
			if (!strncmp(q, progs[p].tp, len) && (q[len] == ',' || !q[len]))
				have[p] = false;
	}
	id = btf__find_by_name_kind(vm, "skb_drop_reason", BTF_KIND_ENUM);
	t = id > 0 ? btf__type_by_id(vm, (__u32)id) : NULL;
	en = t ? btf_enum(t) : NULL;
	for (int i = 0; t && i < btf_vlen(t); i++, en++) {
		const char *nm = btf__name_by_offset(vm, en->name_off);
		unsigned int v = (unsigned int)en->val;

		if (!nm || v >= LAT_NREASONS - 1)
			continue;
		if (!strncmp(nm, "SKB_DROP_REASON_", 16))
			nm += 16;
		free(l->reasons[v]);
		l->reasons[v] = strdup(nm);
		if (!strncmp(nm, "QDISC", 5) || !strncmp(nm, "FQ_", 3) ||
		    !strncmp(nm, "CAKE_", 5) || !strncmp(nm, "TC_", 3))
			qmask[v / 64] |= 1ull << (v % 64);
	}
	btf__free(vm);
}

/* run lat_find in this task (so in its network namespace) */
static int resolve(struct latbpf *l, const struct latbpf_opts *o, struct bql_err *e)
{
	struct latency_bpf__bss *b = l->skel->bss;
	LIBBPF_OPTS(bpf_test_run_opts, t);

	memset(b->finds, 0, sizeof(b->finds));
	for (unsigned int i = 0; i < o->n; i++) {
		b->finds[i].ifindex = o->t[i].ifindex;
		b->finds[i].queue = o->t[i].queue;
	}
	if (bpf_prog_test_run_opts(bpf_program__fd(l->skel->progs.lat_find), &t))
		return bql_err_set(e, errno, "cannot run the device walk: %s", strerror(errno));
	for (unsigned int i = 0; i < o->n; i++) {
		const struct lat_find *f = &b->finds[i];
		const struct latbpf_target *tg = &o->t[i];

		if (!f->found_dev)
			return bql_err_set(e, ENODEV, "%s: ifindex %d not found in the kernel's "
					   "device list of this network namespace",
					   tg->ifname, tg->ifindex);
		if (strncmp(f->name, tg->ifname, sizeof(f->name)))
			return bql_err_set(e, ENODEV, "%s: ifindex %d is now '%.16s' (renamed?)",
					   tg->ifname, tg->ifindex, f->name);
		if (!f->txq)
			return bql_err_set(e, ENODEV, "%s:tx-%u: the device has %u TX queues",
					   tg->ifname, tg->queue, f->real_num_tx);
	}
	return 0;
}

/* the slots and the device table (targets come grouped by device) */
static int tables(struct latbpf *l, const struct latbpf_opts *o, struct bql_err *e)
{
	struct latency_bpf__bss *b = l->skel->bss;

	b->ndevs = 0;
	for (unsigned int i = 0; i < o->n; i++) {
		const struct lat_find *f = &b->finds[i];
		struct lat_dev *d = b->ndevs ? &b->devs[b->ndevs - 1] : NULL;

		memset(&b->slots[i], 0, sizeof(b->slots[i]));
		b->slots[i].txq = f->txq;
		b->slots[i].dev = f->dev;
		b->slots[i].dql = f->dql;
		b->slots[i].queue = o->t[i].queue;
		if (d && d->dev == f->dev) {
			d->n++;
			continue;
		}
		for (unsigned int k = 0; k < b->ndevs; k++)
			if (b->devs[k].dev == f->dev)
				return bql_err_set(e, EINVAL, "%s: the device's queues are not "
						   "listed together", o->t[i].ifname);
		d = &b->devs[b->ndevs++];
		d->dev = f->dev;
		d->first = i;
		d->n = 1;
	}
	b->nslots = o->n;
	b->single_q = 1;
	for (unsigned int i = 0; i < o->n; i++)
		if (b->finds[i].real_num_tx != 1)
			b->single_q = 0;
	return 0;
}

static int rb_cb(void *ctx, void *data, size_t size)
{
	struct latbpf *l = ctx;

	if (size >= sizeof(struct lat_event) && l->fn)
		l->fn(l->arg, data);
	return 0;
}

int latbpf_open(struct latbpf **lp, const struct latbpf_opts *o, struct bql_err *e)
{
	uint64_t qmask[LAT_NREASONS / 64] = { 0 };
	bool have[P_NR];
	struct latbpf *l;
	int err;

	*lp = NULL;
	if (o->n > LAT_MAX_SLOTS)
		return bql_err_set(e, E2BIG, "at most %d queues", LAT_MAX_SLOTS);
	lb_verbose = o->verbose;
	lb_last[0] = 0;
	libbpf_set_print(lb_print);
	l = calloc(1, sizeof(*l));
	if (!l)
		return bql_err_set(e, ENOMEM, "out of memory");
	l->n = o->n;
	l->kinds = o->kinds;
	l->ncpu = libbpf_num_possible_cpus();
	l->stats_fd = -1;
	if (l->ncpu <= 0) {
		err = EIO;
		bql_err_set(e, err, "cannot count the possible CPUs");
		goto fail;
	}
	l->hbuf = calloc((size_t)LAT_MAX_SLOTS * (size_t)l->ncpu,
			 (sizeof(struct lat_hist) + 7) & ~(size_t)7);
	l->cbuf = calloc((size_t)LAT_MAX_SLOTS * (size_t)l->ncpu, sizeof(*l->cbuf));
	l->dbuf = calloc((size_t)LAT_NREASONS * (size_t)l->ncpu, sizeof(*l->dbuf));
	l->keys = calloc(LAT_NREASONS, sizeof(*l->keys));
	if (!l->hbuf || !l->cbuf || !l->dbuf || !l->keys) {
		err = ENOMEM;
		bql_err_set(e, err, "out of memory");
		goto fail;
	}
	l->stats_fd = o->prog_stats ? bpf_enable_stats(BPF_STATS_RUN_TIME) : -1;
	from_btf(l, have, qmask);
	l->skel = latency_bpf__open();
	if (!l->skel) {
		err = errno;
		bql_err_set(e, err, "cannot open the BPF object: %s%s", strerror(err),
			    perm_hint(err));
		goto fail;
	}
	for (int p = 0; p < P_NR; p++) {
		if (!have[p])
			add_missing(l, progs[p].what);
		/* softirq tracepoints fire for every softirq of every CPU */
		if (o->no_irq && (p == P_RAISE || p == P_SENTRY || p == P_SEXIT))
			have[p] = false;
		bpf_program__set_autoload(prog_of(l->skel, p), have[p]);
	}
	if (!have[P_START] || !have[P_XMIT]) {
		err = ENOTSUP;
		bql_err_set(e, err, "this kernel has no tracepoint %s: no transmit can be observed",
			    have[P_START] ? progs[P_XMIT].what : progs[P_START].what);
		goto fail;
	}
	err = latency_bpf__load(l->skel);
	if (err) {
		err = -err;
		if (err == EPERM)
			lb_last[0] = 0;
		bql_err_set(e, err, "cannot load the BPF programs: %s%s%s%s", strerror(err),
			    perm_hint(err), lb_last[0] ? ": libbpf: " : "", lb_last);
		goto fail;
	}
	memcpy(l->skel->bss->qreasons, qmask, sizeof(qmask));
	l->irq_on = have[P_RAISE] && have[P_SENTRY] && have[P_SEXIT];
	l->skel->bss->irq_on = l->irq_on;
	err = -resolve(l, o, e);
	if (!err)
		err = -tables(l, o, e);
	if (err)
		goto fail;
	l->rb = ring_buffer__new(bpf_map__fd(l->skel->maps.lat_ev), rb_cb, l, NULL);
	if (!l->rb) {
		err = errno;
		bql_err_set(e, err, "cannot map the event ring: %s", strerror(err));
		goto fail;
	}
	/*
	 * The end of each pair before its start (links are destroyed in
	 * reverse): net_dev_xmit before net_dev_start_xmit, so that every push
	 * of the per-CPU stack has its pop; qdisc_dequeue before qdisc_enqueue,
	 * so that every packet stamped is seen leaving; softirq_exit first.
	 */
	static const int order[P_NR] = { P_XMIT, P_START, P_DEQ, P_ENQ, P_NAPI, P_SEXIT,
					 P_SENTRY, P_RAISE, P_DROP, P_STALL, P_TIMEOUT };
	for (int k = 0; k < P_NR; k++) {
		int p = order[k];
		struct bpf_link *lk;

		if (!have[p] || (p == P_START && l->skel->bss->single_q))
			continue;
		lk = bpf_program__attach(prog_of(l->skel, p));
		if (!lk) {
			err = errno;
			bql_err_set(e, err, "cannot attach tp_btf %s: %s%s", progs[p].what,
				    strerror(err), perm_hint(err));
			goto fail;
		}
		l->links[l->nlinks++] = lk;
	}
	*lp = l;
	return 0;
fail:
	latbpf_close(l);
	return -err;
}

const char *latbpf_missing(const struct latbpf *l)
{
	return l ? l->missing : "";
}

const char *latbpf_reason_name(const struct latbpf *l, unsigned int r)
{
	return l && r < LAT_NREASONS ? l->reasons[r] : NULL;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * One batch of @count consecutive keys from @first of per-CPU map @fd into
 * @buf (count * ncpu values, each rounded up to 8 bytes as the kernel lays
 * them out): one system call where a lookup per key took @count.
 */
static int read_batch(int fd, __u32 first, __u32 count, void *buf, __u32 *keys)
{
	__u32 in = first - 1, out = 0, n = count;
	int err;

	err = bpf_map_lookup_batch(fd, first ? &in : NULL, &out, keys, buf, &n, NULL);
	if (err && errno != ENOENT)
		return -errno;
	return n == count ? 0 : -EIO;
}

int latbpf_read(const struct latbpf *l, struct latbpf_snap *s, struct bql_err *e)
{
	if (!l->skel)
		return bql_err_set(e, EINVAL, "the observer is detached");
	int ncpu = l->ncpu, err;
	size_t hsz = (sizeof(struct lat_hist) + 7) & ~(size_t)7;
	unsigned int kinds = l->kinds ? l->kinds : (1u << LAT_H_NR) - 1;

	s->n = l->n;
	s->t_ns = mono_ns();
	for (__u32 k = 0; k < LAT_H_NR; k++) {
		if (!(kinds & 1u << k))
			continue;
		err = read_batch(bpf_map__fd(l->skel->maps.lat_hists), k * LAT_MAX_SLOTS, l->n,
				 l->hbuf, l->keys);
		if (err)
			return bql_err_set(e, -err, "cannot read the histograms: %s", strerror(-err));
		for (unsigned int i = 0; i < l->n; i++) {
			struct lat_hist *h = &s->q[i].h[k];

			memset(h, 0, sizeof(*h));
			for (int c = 0; c < ncpu; c++)
				lathist_add(h, (const struct lat_hist *)((char *)l->hbuf +
					    ((size_t)i * (size_t)ncpu + (size_t)c) * hsz));
		}
	}
	err = read_batch(bpf_map__fd(l->skel->maps.lat_cnts), 0, l->n, l->cbuf, l->keys);
	if (err)
		return bql_err_set(e, -err, "cannot read the counters: %s", strerror(-err));
	for (unsigned int i = 0; i < l->n; i++) {
		struct latbpf_queue *q = &s->q[i];

		memset(&q->c, 0, sizeof(q->c));
		memset(q->drops, 0, sizeof(q->drops));
		for (int c = 0; c < ncpu; c++)
			for (int k = 0; k < LAT_C_NR; k++)
				q->c.v[k] += l->cbuf[(size_t)i * (size_t)ncpu + (size_t)c].v[k];
		for (int k = 0; k < LAT_HOT_NR; k++)
			q->c.v[LAT_HOT_CNT(k)] += __atomic_load_n(&l->skel->bss->slots[i].hot[k],
								  __ATOMIC_RELAXED);
		if (!q->c.v[LAT_C_DROP])
			continue;
		err = read_batch(bpf_map__fd(l->skel->maps.lat_drops), i * LAT_NREASONS,
				 LAT_NREASONS, l->dbuf, l->keys);
		if (err)
			return bql_err_set(e, -err, "cannot read the drop counters: %s",
					   strerror(-err));
		for (__u32 r = 0; r < LAT_NREASONS; r++)
			for (int c = 0; c < ncpu; c++)
				q->drops[r] += l->dbuf[(size_t)r * (size_t)ncpu + (size_t)c];
	}
	s->ncpu = 0;
	if (l->irq_on) {
		__u32 zero = 0;

		if (!bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.lat_cpu_irq), &zero, l->hbuf)) {
			s->ncpu = ncpu < LAT_MAX_CPUS ? (unsigned int)ncpu : LAT_MAX_CPUS;
			for (unsigned int c = 0; c < s->ncpu; c++)
				memcpy(&s->cpu_irq[c], (char *)l->hbuf + c * hsz, sizeof(struct lat_hist));
		}
	}
	return 0;
}

int latbpf_events(struct latbpf *l, latbpf_event_fn fn, void *arg)
{
	int n;

	if (!l || !l->rb)
		return -EINVAL;
	l->fn = fn;
	l->arg = arg;
	n = ring_buffer__consume(l->rb);
	return n < 0 ? n : 0;
}

int latbpf_prog_stats(const struct latbpf *l, struct bpf_prog_runs *out, int max)
{
	if (!l || !l->skel || l->stats_fd < 0)
		return 0;
	return bpfstats_read(l->skel->obj, out, max);
}

void latbpf_detach(struct latbpf *l)
{
	if (!l)
		return;
	while (l->nlinks)
		bpf_link__destroy(l->links[--l->nlinks]);
	ring_buffer__free(l->rb);
	l->rb = NULL;
	latency_bpf__destroy(l->skel);
	l->skel = NULL;
	if (l->stats_fd >= 0)
		close(l->stats_fd);
	l->stats_fd = -1;
}

void latbpf_close(struct latbpf *l)
{
	if (!l)
		return;
	latbpf_detach(l);
	for (int r = 0; r < LAT_NREASONS; r++)
		free(l->reasons[r]);
	free(l->hbuf);
	free(l->cbuf);
	free(l->dbuf);
	free(l->keys);
	free(l);
}

#endif /* BQLTOOL_HAVE_BPF */
