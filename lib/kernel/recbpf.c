// SPDX-License-Identifier: GPL-2.0-only
/*
 * record's BPF loader (lib/kernel/bpf/record.bpf.c through its libbpf skeleton):
 * backend probe, device walk, perf breakpoint events, ring buffer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/kernel/recbpf.h"
#include "lib/io/spinner.h"

static const char *const backend_names[RECBPF_NR] = {
	[RECBPF_FENTRY] = "fentry",
	[RECBPF_WATCH] = "watchpoint",
	[RECBPF_TP] = "tracepoints",
};

const char *recbpf_backend_name(enum recbpf_backend b)
{
	return (unsigned int)b < RECBPF_NR ? backend_names[b] : "?";
}

int recbpf_backend_parse(const char *s)
{
	for (int b = 0; b < RECBPF_NR; b++)
		if (!strcmp(s, backend_names[b]))
			return b;
	return -1;
}

unsigned int recbpf_regs_per_queue(bool queued, bool limit_watch)
{
	return 1u + (queued ? 1u : 0u) + (limit_watch ? 1u : 0u);
}

#ifndef BQLTOOL_HAVE_BPF

static int no_bpf(struct bql_err *e)
{
	return bql_err_set(e, ENOTSUP,
			   "bqltool was built without BPF support (libbpf, clang, bpftool "
			   "or /sys/kernel/btf/vmlinux missing at build time)");
}

bool recbpf_available(void) { return false; }
const char *recbpf_libbpf_version(void) { return NULL; }
int recbpf_probe_fentry(int verbose, struct bql_err *e) { (void)verbose; return no_bpf(e); }
int recbpf_open(struct recbpf **rp, const struct recbpf_opts *o,
		enum recbpf_backend b, struct bql_err *e, bool *refused)
{
	(void)o; (void)b;
	*rp = NULL;
	if (refused)
		*refused = false;
	return no_bpf(e);
}
uint64_t recbpf_dql_addr(const struct recbpf *r, unsigned int i) { (void)r; (void)i; return 0; }
int recbpf_probe_watch(const struct recbpf *r, struct bql_err *e) { (void)r; return no_bpf(e); }
int recbpf_poll(struct recbpf *r, int t, recbpf_event_fn fn, void *arg)
{
	(void)r; (void)t; (void)fn; (void)arg;
	return -ENOTSUP;
}
void recbpf_detach(struct recbpf *r) { (void)r; }
int recbpf_drain(struct recbpf *r, recbpf_event_fn fn, void *arg)
{
	(void)r; (void)fn; (void)arg;
	return -ENOTSUP;
}
void recbpf_stats(const struct recbpf *r, uint64_t st[REC_ST_NR])
{
	(void)r;
	memset(st, 0, sizeof(uint64_t) * REC_ST_NR);
}
void recbpf_close(struct recbpf *r) { (void)r; }
int recbpf_prog_stats(const struct recbpf *r, struct bpf_prog_runs *out, int max)
{
	(void)r; (void)out; (void)max;
	return 0;
}

#else /* BQLTOOL_HAVE_BPF */

#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

/* the generated skeleton casts its embedded object's const away */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wcast-qual"
#include "record.skel.h"
#pragma GCC diagnostic pop

#define MAX_LINKS	256

struct recbpf {
	struct record_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link *links[MAX_LINKS];
	unsigned int nlinks;
	uint64_t dql[REC_MAX_SLOTS];
	uint64_t addr_c;	/* &dql->prev_num_queued of target 0 (recbpf_probe_watch) */
	recbpf_event_fn fn;
	void *arg;
	int cb_ret;
	int stats_fd;		/* BPF_ENABLE_STATS while open, else -1 */
};

bool recbpf_available(void)
{
	return true;
}

const char *recbpf_libbpf_version(void)
{
	const char *v = libbpf_version_string();

	return v && v[0] == 'v' ? v + 1 : v;	/* "v1.1" */
}

/* libbpf's messages: the first warning is kept (it explains a failure), all shown with -vv */
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
	/* the first warning names the failing program and the reason */
	if (lvl != LIBBPF_DEBUG && n && !lb_last[0])
		snprintf(lb_last, sizeof(lb_last), "%s",
			 strncmp(buf, "libbpf: ", 8) ? buf : buf + 8);
	if (lb_verbose >= 2)
		vfprintf(stderr, fmt, ap);
	return 0;
}

static void lb_setup(int verbose)
{
	lb_verbose = verbose;
	lb_last[0] = 0;
	libbpf_set_print(lb_print);
}

static const char *perm_hint(int err)
{
	if (err != EPERM && err != EACCES)
		return "";
	if (geteuid() != 0)
		return " (recording needs root, or CAP_BPF and CAP_PERFMON)";
	if (err == EACCES)
		return " (the verifier rejected a program: -vvv shows its log)";
	return " (refused by the kernel even for root: lockdown or a vendor restriction)";
}

/* [start, end) of kernel function @name from /proc/kallsyms; 0 if unknown */
static void ksym_range(const char *name, uint64_t *lo, uint64_t *hi)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], sym[256];
	uint64_t start = 0, next = UINT64_MAX, a;
	char t;

	*lo = *hi = 0;
	if (!f)
		return;
	/* first pass: the start; second: the lowest text address above it */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 " %c %255s", &a, &t, sym) == 3 &&
		    !strcmp(sym, name) && (t == 'T' || t == 't')) {
			start = a;
			break;
		}
	if (start) {
		rewind(f);
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "%" SCNx64 " %c", &a, &t) == 2 &&
			    a > start && a < next)
				next = a;
	}
	fclose(f);
	if (start && next != UINT64_MAX) {
		*lo = start;
		*hi = next;
	}
}

static void set_autoload(struct record_bpf *s, enum recbpf_backend b, bool probe)
{
	bool fentry = b == RECBPF_FENTRY, tp = b == RECBPF_TP;

	bpf_program__set_autoload(s->progs.rec_fexit_completed, fentry);
	bpf_program__set_autoload(s->progs.rec_fentry_completed, fentry && !probe);
	bpf_program__set_autoload(s->progs.rec_fexit_reset, fentry && !probe);
	bpf_program__set_autoload(s->progs.rec_trap, !tp && !probe);
	bpf_program__set_autoload(s->progs.rec_xmit, !tp && !probe);
	bpf_program__set_autoload(s->progs.rec_tp_start, tp);
	bpf_program__set_autoload(s->progs.rec_tp_xmit, tp);
	bpf_program__set_autoload(s->progs.rec_tp_napi, tp);
	bpf_program__set_autoload(s->progs.find_dql, !probe);
}

int recbpf_probe_fentry(int verbose, struct bql_err *e)
{
	struct record_bpf *s;
	struct bpf_link *l;
	int err;

	lb_setup(verbose);
	s = record_bpf__open();
	if (!s)
		return bql_err_set(e, errno, "cannot open the BPF object: %s%s",
				   strerror(errno), perm_hint(errno));
	set_autoload(s, RECBPF_FENTRY, true);
	err = record_bpf__load(s);
	if (err) {
		err = -err;
		record_bpf__destroy(s);
		return bql_err_set(e, err, "fexit on dql_completed: load refused: %s",
				   strerror(err));
	}
	l = bpf_program__attach(s->progs.rec_fexit_completed);
	if (!l) {
		err = errno;
		record_bpf__destroy(s);
		return bql_err_set(e, err, "fexit on dql_completed: attach refused: %s",
				   strerror(err));
	}
	bpf_link__destroy(l);
	record_bpf__destroy(s);
	return 0;
}

static int add_link(struct recbpf *r, struct bpf_link *l, const char *what,
		    struct bql_err *e)
{
	int err;

	if (!l) {
		err = errno;
		return bql_err_set(e, err, "cannot attach %s: %s%s", what,
				   strerror(err), perm_hint(err));
	}
	if (r->nlinks == MAX_LINKS) {
		bpf_link__destroy(l);
		return bql_err_set(e, E2BIG, "too many BPF links");
	}
	r->links[r->nlinks++] = l;
	return 0;
}

/* one write watchpoint on every online CPU, each with rec_trap attached */
static int watch(struct recbpf *r, uint64_t addr, const char *what,
		 struct bql_err *e)
{
	static bool on[1024];
	struct perf_event_attr a;
	int ncpu = cpu_online_list(on, 1024);

	if (ncpu <= 0)
		return bql_err_set(e, EIO, "cannot list the online CPUs");
	for (int cpu = 0; cpu < 1024; cpu++) {
		struct bpf_link *l;
		int fd, err;

		if (!on[cpu])
			continue;
		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_BREAKPOINT;
		a.size = sizeof(a);
		a.bp_type = HW_BREAKPOINT_W;
		a.bp_addr = addr;
		a.bp_len = HW_BREAKPOINT_LEN_4;
		a.sample_period = 1;
		a.disabled = 1;
		fd = (int)syscall(__NR_perf_event_open, &a, -1, cpu, -1,
				  PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			err = errno;
			return bql_err_set(e, err,
					   "%s: cannot set a write watchpoint on CPU %d: %s%s", what,
					   cpu, strerror(err),
					   err == ENOSPC ? " (no free debug register: a debugger or "
					   "another recorder uses them)" : perm_hint(err));
		}
		l = bpf_program__attach_perf_event(r->skel->progs.rec_trap, fd);
		if (!l) {
			err = errno;
			close(fd);
			errno = err;
		}
		if (add_link(r, l, what, e))
			return -e->code;
	}
	return 0;
}

/* run find_dql in this task (so in its network namespace) */
static int resolve(struct recbpf *r, const struct recbpf_opts *o, struct bql_err *e)
{
	struct record_bpf__bss *b = r->skel->bss;
	LIBBPF_OPTS(bpf_test_run_opts, t);
	int err;

	memset(b->finds, 0, sizeof(b->finds));
	for (unsigned int i = 0; i < o->n; i++) {
		b->finds[i].ifindex = o->t[i].ifindex;
		b->finds[i].queue = o->t[i].queue;
	}
	err = bpf_prog_test_run_opts(bpf_program__fd(r->skel->progs.find_dql), &t);
	if (err)
		return bql_err_set(e, errno, "cannot run the device walk: %s", strerror(errno));
	for (unsigned int i = 0; i < o->n; i++) {
		const struct rec_find *f = &b->finds[i];
		const struct recbpf_target *tg = &o->t[i];

		if (!f->found_dev)
			return bql_err_set(e, ENODEV, "%s: ifindex %d not found in the kernel's "
					   "device list of this network namespace",
					   tg->ifname, tg->ifindex);
		if (strncmp(f->name, tg->ifname, sizeof(f->name)))
			return bql_err_set(e, ENODEV, "%s: ifindex %d is now '%.16s' (renamed?)",
					   tg->ifname, tg->ifindex, f->name);
		if (!f->dql)
			return bql_err_set(e, ENODEV, "%s:tx-%u: the device has %u TX queues",
					   tg->ifname, tg->queue, f->real_num_tx);
		r->dql[i] = f->dql;
	}
	r->addr_c = b->finds[0].addr_c;
	return 0;
}

/*
 * The tracepoint backend's tables: each slot's device and queue, and the
 * devices with their runs of slots (targets come grouped by device).
 */
static int tp_tables(struct recbpf *r, const struct recbpf_opts *o, struct bql_err *e)
{
	struct record_bpf__bss *b = r->skel->bss;

	b->ndevs = 0;
	for (unsigned int i = 0; i < o->n; i++) {
		const struct rec_find *f = &b->finds[i];
		struct rec_dev *d = b->ndevs ? &b->devs[b->ndevs - 1] : NULL;

		b->slots[i].dev = f->dev;
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
	b->tp_queued = o->queued;
	return 0;
}

/* the kernel's struct dql layout, from BTF: is num_completed right after limit? */
static bool lc_adjacent(void)
{
	struct btf *vm = btf__load_vmlinux_btf();
	const struct btf_type *t;
	const struct btf_member *m;
	int id;
	long lim = -1, nc = -1;

	if (!vm)
		return false;
	id = btf__find_by_name_kind(vm, "dql", BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(vm, (__u32)id) : NULL;
	m = t ? btf_members(t) : NULL;
	for (int i = 0; t && i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(vm, m->name_off);

		if (!strcmp(name, "limit"))
			lim = (long)btf_member_bit_offset(t, (__u32)i);
		else if (!strcmp(name, "num_completed"))
			nc = (long)btf_member_bit_offset(t, (__u32)i);
	}
	btf__free(vm);
	/* one little-endian u64: limit in its low half */
	return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && lim >= 0 && nc == lim + 32 &&
	       lim % 64 == 0;
}

static int rb_cb(void *ctx, void *data, size_t size)
{
	struct recbpf *r = ctx;

	if (size < sizeof(struct rec_event))
		return 0;
	r->cb_ret = r->fn(r->arg, data);
	return r->cb_ret;
}

int recbpf_open(struct recbpf **rp, const struct recbpf_opts *o,
		enum recbpf_backend be, struct bql_err *e, bool *refused)
{
	struct recbpf *r;
	struct record_bpf__bss *b;
	bool dummy;
	int err;

	*rp = NULL;
	if (!refused)
		refused = &dummy;
	*refused = false;
	if (o->n > REC_MAX_SLOTS)
		return bql_err_set(e, E2BIG, "at most %d queues", REC_MAX_SLOTS);
	lb_setup(o->verbose);
	r = calloc(1, sizeof(*r));
	if (!r)
		return bql_err_set(e, ENOMEM, "out of memory");
	r->stats_fd = o->prog_stats ? bpf_enable_stats(BPF_STATS_RUN_TIME) : -1;
	r->skel = record_bpf__open();
	if (!r->skel) {
		err = errno;
		if (r->stats_fd >= 0)
			close(r->stats_fd);
		free(r);
		return bql_err_set(e, err, "cannot open the BPF object: %s%s",
				   strerror(err), perm_hint(err));
	}
	set_autoload(r->skel, be, false);
	err = record_bpf__load(r->skel);
	if (err) {
		err = -err;
		*refused = true;
		if (err == EPERM)	/* no privilege: libbpf has nothing to add */
			lb_last[0] = 0;
		bql_err_set(e, err, "cannot load the BPF programs: %s%s%s%s", strerror(err),
			    perm_hint(err), lb_last[0] ? ": libbpf: " : "", lb_last);
		goto fail;
	}
	b = r->skel->bss;
	ksym_range("dql_completed", &b->completed_lo, &b->completed_hi);
	ksym_range("dql_reset", &b->reset_lo, &b->reset_hi);
	err = resolve(r, o, e);
	if (err)
		goto fail;
	for (unsigned int i = 0; i < o->n; i++) {
		b->slots[i].dql = r->dql[i];
		b->slots[i].queued = o->queued;
	}
	b->nslots = o->n;
	if (be == RECBPF_TP && (err = tp_tables(r, o, e)))
		goto fail;
	b->lc_adjacent = be == RECBPF_TP && lc_adjacent();

	r->rb = ring_buffer__new(bpf_map__fd(r->skel->maps.rb), rb_cb, r, NULL);
	if (!r->rb) {
		err = errno;
		bql_err_set(e, err, "cannot map the ring buffer: %s", strerror(err));
		goto fail;
	}
	*refused = true;	/* from here on, attaching: the kernel's say */
	if (be == RECBPF_TP) {
		/*
		 * net_dev_xmit before net_dev_start_xmit (and detached after
		 * it, links go in reverse): every push has its pop
		 */
		err = add_link(r, bpf_program__attach(r->skel->progs.rec_tp_napi),
			       "tp_btf napi:napi_poll", e);
		if (!err)
			err = add_link(r, bpf_program__attach(r->skel->progs.rec_tp_xmit),
				       "tp_btf net:net_dev_xmit", e);
		if (!err)
			err = add_link(r, bpf_program__attach(r->skel->progs.rec_tp_start),
				       "tp_btf net:net_dev_start_xmit", e);
		if (err)
			goto fail;
		*rp = r;
		return 0;
	}
	err = add_link(r, bpf_program__attach(r->skel->progs.rec_xmit),
		       "the checkpoint at net:net_dev_start_xmit", e);
	if (err)
		goto fail;
	if (be == RECBPF_FENTRY) {
		err = add_link(r, bpf_program__attach(r->skel->progs.rec_fentry_completed),
			       "fentry on dql_completed", e);
		if (!err)
			err = add_link(r, bpf_program__attach(r->skel->progs.rec_fexit_completed),
				       "fexit on dql_completed", e);
		if (!err)
			err = add_link(r, bpf_program__attach(r->skel->progs.rec_fexit_reset),
				       "fexit on dql_reset", e);
		if (err)
			goto fail;
	}
	for (unsigned int i = 0; i < o->n; i++) {
		const struct rec_find *f = &b->finds[i];
		char what[64];

		snprintf(what, sizeof(what), "%s:tx-%u", o->t[i].ifname, o->t[i].queue);
		if (be == RECBPF_WATCH && (err = watch(r, f->addr_c, what, e)))
			goto fail;
		if (o->queued && (err = watch(r, f->addr_q, what, e)))
			goto fail;
		if (be == RECBPF_WATCH && o->limit_watch &&
		    (err = watch(r, f->addr_limit, what, e)))
			goto fail;
	}
	*rp = r;
	return 0;
fail:
	recbpf_close(r);
	return err < 0 ? err : -err;
}

uint64_t recbpf_dql_addr(const struct recbpf *r, unsigned int i)
{
	return i < REC_MAX_SLOTS ? r->dql[i] : 0;
}

int recbpf_probe_watch(const struct recbpf *r, struct bql_err *e)
{
	struct perf_event_attr a;
	int fd, err;

	if (!r || !r->addr_c)
		return bql_err_set(e, ENODEV, "no queue to watch");
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = r->addr_c;
	a.bp_len = HW_BREAKPOINT_LEN_4;
	a.sample_period = 1;
	a.disabled = 1;
	fd = (int)syscall(__NR_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		err = errno;
		return bql_err_set(e, err, "perf_event_open(PERF_TYPE_BREAKPOINT, write, "
				   "kernel address): %s%s", strerror(err), perm_hint(err));
	}
	close(fd);
	return 0;
}

static int rb_setup(struct recbpf *r, recbpf_event_fn fn, void *arg)
{
	r->fn = fn;
	r->arg = arg;
	r->cb_ret = 0;
	if (!r->rb)
		return -EINVAL;
	return 0;
}

int recbpf_poll(struct recbpf *r, int timeout_ms, recbpf_event_fn fn, void *arg)
{
	int n, m;

	if (rb_setup(r, fn, arg))
		return -EINVAL;
	/*
	 * The programs wake us only past a backlog (BPF_RB_NO_WAKEUP keeps
	 * the per-event cost down), so the wait is mostly a timeout: consume
	 * whatever is there after it.
	 */
	n = ring_buffer__poll(r->rb, timeout_ms);
	if (r->cb_ret)
		return r->cb_ret;
	if (n < 0)
		return n;
	m = ring_buffer__consume(r->rb);
	if (r->cb_ret)
		return r->cb_ret;
	return m < 0 ? m : n + m;
}

int recbpf_drain(struct recbpf *r, recbpf_event_fn fn, void *arg)
{
	int n;

	if (rb_setup(r, fn, arg))
		return -EINVAL;
	n = ring_buffer__consume(r->rb);
	if (r->cb_ret)
		return r->cb_ret;
	return n;
}

void recbpf_detach(struct recbpf *r)
{
	if (!r)
		return;
	while (r->nlinks)
		bpf_link__destroy(r->links[--r->nlinks]);
}

void recbpf_stats(const struct recbpf *r, uint64_t st[REC_ST_NR])
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v;

	memset(st, 0, sizeof(uint64_t) * REC_ST_NR);
	if (!r || !r->skel || ncpu <= 0)
		return;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return;
	for (uint32_t k = 0; k < REC_ST_NR; k++) {
		if (bpf_map_lookup_elem(bpf_map__fd(r->skel->maps.stats), &k, v))
			continue;
		for (int c = 0; c < ncpu; c++)
			st[k] += v[c];
	}
	free(v);
}

int recbpf_prog_stats(const struct recbpf *r, struct bpf_prog_runs *out, int max)
{
	if (!r || !r->skel || r->stats_fd < 0)
		return 0;
	return bpfstats_read(r->skel->obj, out, max);
}

void recbpf_close(struct recbpf *r)
{
	if (!r)
		return;
	recbpf_detach(r);
	ring_buffer__free(r->rb);
	record_bpf__destroy(r->skel);
	if (r->stats_fd >= 0)
		close(r->stats_fd);
	free(r);
}

#endif /* BQLTOOL_HAVE_BPF */
