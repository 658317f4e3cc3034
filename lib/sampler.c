// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sampler behind `top`: open BQL files once, pread them every tick,
 * follow devices and queues as they come and go, compute rates.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/nl.h"
#include "lib/sampler.h"
#include "lib/units.h"

/* a full rescan (ifindex, BQL, queue count of every device) at least this often */
#define FULL_SCAN_NS	1000000000ull

const char *const sampler_qs_names[SQS_NR] = {
	[SQS_TX_BYTES] = "tx_bytes",
	[SQS_TX_PACKETS] = "tx_packets",
	[SQS_TX_STOP] = "tx_stop",
	[SQS_TX_WAKE] = "tx_wake",
};

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t sys_mono(void *arg)
{
	(void)arg;
	return clock_ns(CLOCK_MONOTONIC);
}

static uint64_t sys_real(void *arg)
{
	(void)arg;
	return clock_ns(CLOCK_REALTIME);
}

const struct sampler_clock sampler_clock_system = { sys_mono, sys_real, NULL };

const char *sampler_event_name(enum sampler_event_type t)
{
	switch (t) {
	case SEV_APPEARED:	return "appeared";
	case SEV_VANISHED:	return "vanished";
	case SEV_QUEUES:	return "queues";
	}
	return "?";
}

bool sampler_counter_delta(uint64_t prev, uint64_t cur, uint64_t *delta)
{
	if (cur >= prev) {
		*delta = cur - prev;
		return true;
	}
	if (prev <= UINT32_MAX && prev >= (1ull << 31)) {
		*delta = (uint64_t)(uint32_t)((uint32_t)cur - (uint32_t)prev);
		return true;
	}
	if (prev >= (1ull << 63)) {
		*delta = cur - prev;	/* modulo 2^64 */
		return true;
	}
	return false;
}

void sampler_init(struct sampler *s, const struct bql_ctx *c,
		  const struct sel *sel, struct bnl *nl,
		  const struct sampler_clock *clk)
{
	memset(s, 0, sizeof(*s));
	s->ctx = c;
	s->sel = sel;
	s->nl = nl;
	s->clock = clk ? *clk : sampler_clock_system;
}

size_t sampler_nqueues(const struct sampler *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->ndev; i++)
		n += s->dev[i].nq;
	return n;
}

/* ------------------------------------------------------------ events */

static void add_event(struct sampler *s, enum sampler_event_type t,
		      const char *ifname, unsigned int old_ntx,
		      unsigned int new_ntx)
{
	struct sampler_event *ev;

	if (s->nev == s->capev) {
		size_t cap = s->capev ? s->capev * 2 : 8;

		ev = realloc(s->ev, cap * sizeof(*ev));
		if (!ev)
			return;	/* events are informative: drop on ENOMEM */
		s->ev = ev;
		s->capev = cap;
	}
	ev = &s->ev[s->nev++];
	ev->type = t;
	snprintf(ev->ifname, sizeof(ev->ifname), "%s", ifname);
	ev->old_ntx = old_ntx;
	ev->new_ntx = new_ntx;
}

/* ------------------------------------------------------------ queues */

static void queue_close(struct sampler_queue *q)
{
	for (int a = 0; a < BQL_ATTR_NR; a++) {
		if (q->fd[a] >= 0)
			close(q->fd[a]);
		q->fd[a] = -1;
	}
}

static void queue_init(struct sampler_queue *q, unsigned int index)
{
	memset(q, 0, sizeof(*q));
	q->index = index;
	q->bql.index = index;
	q->since_stall = UINT_MAX;
	for (int a = 0; a < BQL_ATTR_NR; a++)
		q->fd[a] = -1;
}

/* Open the BQL files of @q; optional files may be absent. */
static int queue_open(const struct sampler *s, const char *dev,
		      struct sampler_queue *q, struct bql_err *e)
{
	char path[4096], obj[64];
	struct bql_err oe;

	for (int a = 0; a < BQL_ATTR_NR; a++) {
		int err;

		if (q->fd[a] >= 0)
			continue;
		if (sysfs_bql_path(s->ctx, path, sizeof(path), dev, q->index,
				   bql_attrs[a].name))
			return bql_err_set(e, ENAMETOOLONG, "%s: path too long", dev);
		snprintf(obj, sizeof(obj), "%s:tx-%u: %s", dev, q->index, bql_attrs[a].name);
		/* beneath the root, regular files only (lib/sysfs.c) */
		err = sysfs_open(s->ctx, path, O_RDONLY, obj, &oe);
		if (err >= 0) {
			q->fd[a] = err;
			continue;
		}
		if (err == -ENOENT && bql_attrs[a].optional)
			continue;
		*e = oe;
		return err;
	}
	return 0;
}

/*
 * pread at offset 0. sysfs never shows an empty value, but a fake tree
 * being rewritten in place does between truncate and write: try again.
 */
static ssize_t pread_value(int fd, char *buf, size_t n)
{
	ssize_t len = -1;

	for (int i = 0; i < 5; i++) {
		len = sysfs_pread(fd, buf, n);	/* -EOVERFLOW: longer than @buf */
		if (len < 0) {
			errno = (int)-len;
			return -1;
		}
		if (len != 0)
			break;
		sched_yield();
	}
	return len;
}

/*
 * Read every open file of @q. An I/O error (the file went away with its
 * device or queue) is returned as -errno with @io set; a bad value is an
 * error of its own.
 */
static int queue_read(const char *dev, struct sampler_queue *q, bool *io,
		      struct bql_err *e)
{
	struct bql_queue b = { .index = q->index };

	for (int a = 0; a < BQL_ATTR_NR; a++) {
		char buf[32];
		ssize_t len;
		int ret;

		if (q->fd[a] < 0)
			continue;
		len = pread_value(q->fd[a], buf, sizeof(buf));
		/* a bad value, not a file gone with its device */
		if (len < 0 && errno == EOVERFLOW)
			return bql_err_set(e, EOVERFLOW,
					   "%s:tx-%u: %s: value longer than %zu bytes: refused (not cut short)",
					   dev, q->index, bql_attrs[a].name, sizeof(buf) - 1);
		if (len < 0 && errno == EILSEQ)
			return bql_err_set(e, EILSEQ,
					   "%s:tx-%u: %s: value contains a NUL byte: refused (not cut short)",
					   dev, q->index, bql_attrs[a].name);
		if (len < 0) {
			int err = errno;

			*io = true;
			return bql_err_set(e, err, "%s:tx-%u: %s: cannot read: %s",
					   dev, q->index, bql_attrs[a].name,
					   strerror(err));
		}
		buf[len] = '\0';
		if ((!len || !strcmp(buf, "\n")) && q->have_prev &&
		    (q->bql.present & (1u << a))) {
			/* caught a writer mid-rewrite (fake trees): keep the last value */
			b.val[a] = q->bql.val[a];
			b.present |= 1u << a;
			continue;
		}
		ret = units_parse_u64(buf, &b.val[a]);
		if (ret) {
			if (len && buf[len - 1] == '\n')
				buf[len - 1] = '\0';
			return bql_err_set(e, ret == -ERANGE ? ERANGE : EINVAL,
					   "%s:tx-%u: %s: invalid value '%s' (expected an unsigned integer)",
					   dev, q->index, bql_attrs[a].name, buf);
		}
		b.present |= 1u << a;
	}
	q->bql = b;
	return 0;
}

/* ----------------------------------------------------------- devices */

static bool item_matches(const struct sel_item *it, const char *name)
{
	return it->glob ? fnmatch(it->pat, name, 0) == 0 : !strcmp(it->pat, name);
}

static bool dev_selected(const struct sampler *s, const char *name)
{
	if (!s->sel || !s->sel->n)
		return true;
	for (size_t i = 0; i < s->sel->n; i++)
		if (item_matches(&s->sel->items[i], name))
			return true;
	return false;
}

/* Mark in @want (ntx bytes) the queues the selectors ask for on @name. */
static void want_queues(const struct sampler *s, const char *name,
			unsigned int ntx, unsigned char *want)
{
	if (!s->sel || !s->sel->n) {
		memset(want, 1, ntx);
		return;
	}
	for (size_t i = 0; i < s->sel->n; i++) {
		const struct sel_item *it = &s->sel->items[i];

		if (!item_matches(it, name))
			continue;
		if (!it->ranges) {
			memset(want, 1, ntx);
			continue;
		}
		for (size_t r = 0; r < it->nranges; r++)
			for (unsigned int k = it->ranges[r].lo;
			     k <= it->ranges[r].hi && k < ntx; k++)
				want[k] = 1;
	}
}

static void dev_close(struct sampler_dev *d)
{
	for (unsigned int k = 0; k < d->nq; k++)
		queue_close(&d->q[k]);
	if (d->fd_tx_bytes >= 0)
		close(d->fd_tx_bytes);
	if (d->fd_tx_packets >= 0)
		close(d->fd_tx_packets);
	d->fd_tx_bytes = d->fd_tx_packets = -1;
}

static void dev_free(struct sampler_dev *d)
{
	dev_close(d);
	free(d->q);
	d->q = NULL;
	d->nq = 0;
}

static uint64_t queues_nlink(const struct sampler *s, const char *dev, bool *gone)
{
	char path[4096];
	struct stat st;
	int ret;

	*gone = false;
	if (sysfs_dev_path(s->ctx, path, sizeof(path), dev, "queues"))
		return 0;
	ret = sysfs_stat(s->ctx, path, &st);
	if (ret) {
		*gone = ret == -ENOENT;
		return 0;
	}
	return (uint64_t)st.st_nlink;
}

static int open_stat(const struct sampler *s, const char *dev, const char *rel)
{
	char path[4096];
	int fd;

	if (sysfs_dev_path(s->ctx, path, sizeof(path), dev, rel))
		return -1;
	fd = sysfs_open(s->ctx, path, O_RDONLY, dev, NULL);
	return fd < 0 ? -1 : fd;
}

/*
 * Make @d's queue list follow a device with @ntx TX queues: queues kept
 * keep their state, new ones are opened, dropped ones are closed and
 * marked vanished for one tick. @reopen closes and reopens every file.
 */
static int dev_sync_queues(struct sampler *s, struct sampler_dev *d,
			   unsigned int ntx, bool events, bool reopen,
			   struct bql_err *e)
{
	unsigned char *want = calloc(ntx ? ntx : 1, 1);
	struct sampler_queue *nq;
	unsigned int n = 0, cnt = 0, old_ntx = d->ntx;
	int ret = 0;

	if (!want)
		return bql_err_set(e, ENOMEM, "out of memory");
	want_queues(s, d->ifname, ntx, want);
	for (unsigned int k = 0; k < ntx; k++)
		cnt += want[k];
	nq = calloc((size_t)cnt + d->nq + 1, sizeof(*nq));
	if (!nq) {
		free(want);
		return bql_err_set(e, ENOMEM, "out of memory");
	}
	/* merge: both lists ascend by index */
	for (unsigned int k = 0, o = 0; k < ntx || o < d->nq;) {
		struct sampler_queue *old = o < d->nq ? &d->q[o] : NULL;

		if (k < ntx && !want[k]) {
			k++;
			continue;
		}
		if (old && (old->flags & SAMPLER_VANISHED)) {
			o++;	/* already reported: drop */
			continue;
		}
		if (old && (k >= ntx || old->index < k)) {
			/* selected before, not now */
			queue_close(old);
			nq[n] = *old;
			nq[n++].flags = SAMPLER_VANISHED;
			o++;
			continue;
		}
		if (old && old->index == k) {
			nq[n] = *old;
			o++;
		} else {
			queue_init(&nq[n], k);
			nq[n].flags = events ? SAMPLER_NEW : 0;
		}
		if (reopen)
			queue_close(&nq[n]);
		ret = queue_open(s, d->ifname, &nq[n], e);
		n++;
		k++;
		if (ret)
			break;
	}
	free(want);
	if (ret) {
		for (unsigned int k = 0; k < n; k++)
			queue_close(&nq[k]);
		free(nq);
		/* the old fds were moved or closed: leave @d empty */
		free(d->q);
		d->q = NULL;
		d->nq = 0;
		return ret;
	}
	free(d->q);
	d->q = nq;
	d->nq = n;
	d->ntx = ntx;
	if (events && old_ntx != ntx)
		add_event(s, SEV_QUEUES, d->ifname, old_ntx, ntx);
	return 0;
}

static int dev_open(struct sampler *s, struct sampler_dev *d, const char *name,
		    int ifindex, unsigned int ntx, bool events, struct bql_err *e)
{
	bool gone;

	memset(d, 0, sizeof(*d));
	snprintf(d->ifname, sizeof(d->ifname), "%s", name);
	d->ifindex = ifindex;
	d->fd_tx_bytes = d->fd_tx_packets = -1;
	d->flags = events ? SAMPLER_NEW : 0;
	d->ntx = ntx;
	d->speed_mbps = sysfs_link_speed(s->ctx, name);
	d->queues_nlink = queues_nlink(s, name, &gone);
	if (!s->nl) {
		d->fd_tx_bytes = open_stat(s, name, "statistics/tx_bytes");
		d->fd_tx_packets = open_stat(s, name, "statistics/tx_packets");
	}
	return dev_sync_queues(s, d, ntx, false, false, e);
}

/* sysfs_open() refused the file (lib/sysfs.c): not a race with hot-plug */
static bool open_refused(int ret)
{
	return ret == -EXDEV || ret == -ELOOP || ret == -EISDIR || ret == -EINVAL ||
	       ret == -EAGAIN;
}

static void dev_vanish(struct sampler *s, struct sampler_dev *d)
{
	dev_close(d);
	d->flags = SAMPLER_VANISHED;
	for (unsigned int k = 0; k < d->nq; k++)
		d->q[k].flags |= SAMPLER_VANISHED;
	add_event(s, SEV_VANISHED, d->ifname, 0, 0);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The names in ROOT/class/net, sorted; -errno. */
static int list_names(const struct sampler *s, char (**out)[BQL_IFNAMSIZ],
		      size_t *n, struct bql_err *e)
{
	char (*v)[BQL_IFNAMSIZ] = NULL;
	size_t cnt = 0, cap = 0;
	char path[4096];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/class/net", s->ctx->sysfs_root);
	d = sysfs_opendir(s->ctx, path, "network devices", NULL);
	if (!d) {
		int err = errno;

		return bql_err_set(e, err, "cannot list network devices in %s: %s",
				   path, strerror(err));
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !sysfs_valid_ifname(de->d_name))
			continue;
		if (cnt == cap) {
			void *nv;

			cap = cap ? cap * 2 : 32;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(d);
				return bql_err_set(e, ENOMEM, "out of memory");
			}
			v = nv;
		}
		memcpy(v[cnt++], de->d_name, strlen(de->d_name) + 1);
	}
	closedir(d);
	if (cnt > 1)
		qsort(v, cnt, sizeof(*v), name_cmp);
	*out = v;
	*n = cnt;
	return 0;
}

static bool names_changed(const struct sampler *s, char (*v)[BQL_IFNAMSIZ],
			  size_t n)
{
	if (n != s->nnames)
		return true;
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s->names[i]))
			return true;
	return false;
}

/* the order of sysfs_list_devs(), so vanished devices stay in place */
static int dev_cmp(const void *a, const void *b)
{
	const struct sampler_dev *x = a, *y = b;

	return sysfs_dev_order(x->ifindex, x->ifname, y->ifindex, y->ifname);
}

/*
 * Full scan: every device of class/net, matched by name and ifindex with
 * what we have. Devices that went away are marked vanished (kept one
 * tick), new ones opened and marked new (@events: not on the first scan).
 */
static int rescan(struct sampler *s, bool events, struct bql_err *e)
{
	struct sysfs_dev *list = NULL;
	struct sampler_dev *nd;
	size_t nlist = 0, n = 0;
	struct bql_err rerr;
	bool *used;
	int ret, refused = 0;

	ret = sysfs_list_devs(s->ctx, &list, &nlist, e);
	if (ret)
		return ret;
	nd = calloc(nlist + s->ndev + 1, sizeof(*nd));
	used = calloc(s->ndev + 1, sizeof(*used));
	if (!nd || !used) {
		free(nd);
		free(used);
		free(list);
		return bql_err_set(e, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < nlist; i++) {
		const char *name = list[i].name;
		struct sampler_dev *old = NULL;
		unsigned int ntx;
		bool gone;

		if (!dev_selected(s, name) || !sysfs_dev_has_bql(s->ctx, name))
			continue;
		if (sysfs_count_txq(s->ctx, name, &ntx, NULL))
			continue;	/* half-made (gap): retried next scan */
		for (size_t k = 0; k < s->ndev; k++) {
			struct sampler_dev *d = &s->dev[k];

			if (!used[k] && !(d->flags & SAMPLER_VANISHED) &&
			    !strcmp(d->ifname, name) && d->ifindex == list[i].ifindex) {
				old = d;
				used[k] = true;
				break;
			}
		}
		if (old) {
			nd[n] = *old;
			nd[n].speed_mbps = sysfs_link_speed(s->ctx, name);
			nd[n].queues_nlink = queues_nlink(s, name, &gone);
			ret = dev_sync_queues(s, &nd[n], ntx, events, old->rescan, e);
			nd[n].rescan = false;
			if (ret) {
				/* it is going away under us */
				if (events)
					add_event(s, SEV_VANISHED, name, 0, 0);
				dev_free(&nd[n]);
				continue;
			}
			n++;
			continue;
		}
		ret = dev_open(s, &nd[n], name, list[i].ifindex, ntx, events, e);
		if (ret && open_refused(ret) && !refused) {
			/* a link out of the root, a FIFO: an error, not a device going away */
			refused = ret;
			rerr = *e;
		}
		if (ret) {
			dev_free(&nd[n]);
			continue;
		}
		if (events)
			add_event(s, SEV_APPEARED, name, 0, 0);
		n++;
	}
	for (size_t k = 0; k < s->ndev; k++) {
		if (used[k])
			continue;
		if (s->dev[k].flags & SAMPLER_VANISHED) {
			dev_free(&s->dev[k]);
			continue;
		}
		nd[n] = s->dev[k];
		dev_vanish(s, &nd[n++]);
	}
	if (n > 1)
		qsort(nd, n, sizeof(*nd), dev_cmp);
	free(used);
	free(list);
	free(s->dev);
	s->dev = nd;
	s->ndev = n;
	s->last_scan_ns = s->mono_ns;
	if (refused)
		*e = rerr;
	return refused;
}

/* Drop what was reported vanished last tick; clear NEW marks. */
static void expire(struct sampler *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->ndev; i++) {
		struct sampler_dev *d = &s->dev[i];
		unsigned int m = 0;

		if (d->flags & SAMPLER_VANISHED) {
			dev_free(d);
			continue;
		}
		d->flags = 0;
		for (unsigned int k = 0; k < d->nq; k++) {
			if (d->q[k].flags & SAMPLER_VANISHED)
				continue;
			d->q[m] = d->q[k];
			d->q[m++].flags = 0;
		}
		d->nq = m;
		s->dev[n++] = *d;
	}
	s->ndev = n;
}

/* Cheap per-tick check; true when a full scan is due. */
static int quick_check(struct sampler *s, bool *scan, struct bql_err *e)
{
	char (*names)[BQL_IFNAMSIZ] = NULL;
	size_t n = 0;
	int ret = list_names(s, &names, &n, e);

	if (ret)
		return ret;
	if (names_changed(s, names, n) || s->mono_ns - s->last_scan_ns >= FULL_SCAN_NS)
		*scan = true;
	free(s->names);
	s->names = names;
	s->nnames = n;
	for (size_t i = 0; i < s->ndev && !*scan; i++) {
		struct sampler_dev *d = &s->dev[i];
		bool gone;
		uint64_t nl = queues_nlink(s, d->ifname, &gone);

		if (gone || nl != d->queues_nlink)
			*scan = true;
	}
	return 0;
}

static int read_devices(struct sampler *s, bool *again, struct bql_err *e)
{
	for (size_t i = 0; i < s->ndev; i++) {
		struct sampler_dev *d = &s->dev[i];

		if (d->flags & SAMPLER_VANISHED)
			continue;
		for (unsigned int k = 0; k < d->nq; k++) {
			struct sampler_queue *q = &d->q[k];
			bool io = false;
			int ret;

			if (q->flags & SAMPLER_VANISHED)
				continue;
			ret = queue_read(d->ifname, q, &io, e);
			if (!ret)
				continue;
			if (!io)
				return ret;	/* a bad value */
			if (!sysfs_dev_exists(s->ctx, d->ifname)) {
				dev_vanish(s, d);
				break;
			}
			if (*again)
				return ret;
			/* queues changed or device replaced: a scan sorts it out */
			d->rescan = true;
			*again = true;
			break;
		}
	}
	return 0;
}

/* 1: read, 0: empty (a fake tree being rewritten: keep *v), -1: none */
static int read_fd_u64(int fd, uint64_t *v)
{
	char buf[32];
	ssize_t len;

	if (fd < 0)
		return -1;
	len = pread_value(fd, buf, sizeof(buf));
	if (len < 0)
		return -1;
	buf[len] = '\0';
	if (!len)
		return 0;
	return units_parse_u64(buf, v) == 0 ? 1 : -1;
}

static void read_dev_stats(struct sampler *s)
{
	bool nl_ok = false;

	if (s->nl) {
		struct bql_err e;

		nl_ok = bnl_refresh(s->nl, &e) == 0;
		if (!nl_ok)
			snprintf(s->note, sizeof(s->note), "%s", e.msg);
	}
	for (size_t i = 0; i < s->ndev; i++) {
		struct sampler_dev *d = &s->dev[i];

		if (d->flags & SAMPLER_VANISHED)
			continue;
		d->has_stats = false;
		if (nl_ok) {
			struct bnl_link l;

			if (!bnl_link_get(s->nl, d->ifname, &l, NULL) && l.has_stats) {
				d->tx_bytes = l.tx_bytes;
				d->tx_packets = l.tx_packets;
				d->has_stats = true;
			}
		} else if (!s->nl) {
			int b = read_fd_u64(d->fd_tx_bytes, &d->tx_bytes);
			int p = read_fd_u64(d->fd_tx_packets, &d->tx_packets);

			d->has_stats = (b > 0 || (!b && d->had_stats)) &&
				       (p > 0 || (!p && d->had_stats));
		}
	}
}

static struct sampler_queue *find_queue(struct sampler *s, int ifindex,
					unsigned int index)
{
	for (size_t i = 0; i < s->ndev; i++) {
		struct sampler_dev *d = &s->dev[i];

		if (d->ifindex != ifindex || (d->flags & SAMPLER_VANISHED))
			continue;
		for (unsigned int k = 0; k < d->nq; k++)
			if (d->q[k].index == index)
				return &d->q[k];
	}
	return NULL;
}

static void read_qstats(struct sampler *s)
{
	struct bnl_qstats *qs = NULL;
	struct bql_err e;
	int n;

	for (size_t i = 0; i < s->ndev; i++)
		for (unsigned int k = 0; k < s->dev[i].nq; k++)
			s->dev[i].q[k].qs_present = 0;
	s->qstats = false;
	if (!s->nl || s->qstats_off)
		return;
	n = bnl_qstats_dump(s->nl, 0, &qs, &e);
	if (n < 0) {
		snprintf(s->note, sizeof(s->note), "%s", e.msg);
		if (n == -EOPNOTSUPP)
			s->qstats_off = true;
		return;
	}
	s->qstats = true;
	for (int i = 0; i < n; i++) {
		struct sampler_queue *q = find_queue(s, qs[i].ifindex, qs[i].queue);

		if (!q)
			continue;
		q->qs_present = 0;
		if (qs[i].present & BNL_QS_TX_BYTES)
			q->qs_present |= 1u << SQS_TX_BYTES;
		if (qs[i].present & BNL_QS_TX_PACKETS)
			q->qs_present |= 1u << SQS_TX_PACKETS;
		if (qs[i].present & BNL_QS_TX_STOP)
			q->qs_present |= 1u << SQS_TX_STOP;
		if (qs[i].present & BNL_QS_TX_WAKE)
			q->qs_present |= 1u << SQS_TX_WAKE;
		q->qs[SQS_TX_BYTES] = qs[i].tx_bytes;
		q->qs[SQS_TX_PACKETS] = qs[i].tx_packets;
		q->qs[SQS_TX_STOP] = qs[i].tx_stop;
		q->qs[SQS_TX_WAKE] = qs[i].tx_wake;
	}
	free(qs);
}

static bool rate(uint64_t prev, uint64_t cur, uint64_t dt_ns, double *out)
{
	uint64_t d;

	if (!dt_ns || !sampler_counter_delta(prev, cur, &d))
		return false;
	*out = (double)d * 1e9 / (double)dt_ns;
	return true;
}

static void update_queue(struct sampler_queue *q, uint64_t dt_ns)
{
	const uint32_t cnt = 1u << BQL_STALL_CNT;

	q->rate_valid = 0;
	q->has_stall_delta = false;
	if (q->have_prev && dt_ns) {
		for (int k = 0; k < SQS_NR; k++) {
			unsigned int bit = 1u << k;

			if ((q->qs_present & q->prev_qs_present & bit) &&
			    rate(q->prev_qs[k], q->qs[k], dt_ns, &q->rate[k]))
				q->rate_valid |= bit;
		}
	}
	if (q->have_prev && (q->bql.present & q->prev_present & cnt))
		q->has_stall_delta = sampler_counter_delta(q->prev_stall_cnt,
							   q->bql.val[BQL_STALL_CNT],
							   &q->stall_cnt_delta);
	if (q->has_stall_delta && q->stall_cnt_delta)
		q->since_stall = 0;
	else if (q->since_stall < UINT_MAX)
		q->since_stall++;
	q->prev_qs_present = q->qs_present;
	memcpy(q->prev_qs, q->qs, sizeof(q->prev_qs));
	q->prev_present = q->bql.present;
	q->prev_stall_cnt = q->bql.val[BQL_STALL_CNT];
	q->have_prev = true;

	q->hist_limit[q->hist_head] = q->bql.val[BQL_LIMIT];
	q->hist_inflight[q->hist_head] = q->bql.val[BQL_INFLIGHT];
	q->hist_head = (q->hist_head + 1) % SAMPLER_HIST;
	if (q->hist_len < SAMPLER_HIST)
		q->hist_len++;
}

static void update_rates(struct sampler *s)
{
	for (size_t i = 0; i < s->ndev; i++) {
		struct sampler_dev *d = &s->dev[i];

		if (d->flags & SAMPLER_VANISHED)
			continue;
		d->has_rate = d->had_stats && d->has_stats &&
			      rate(d->prev_tx_bytes, d->tx_bytes, s->dt_ns, &d->tx_bytes_rate) &&
			      rate(d->prev_tx_packets, d->tx_packets, s->dt_ns,
				   &d->tx_packets_rate);
		d->had_stats = d->has_stats;
		d->prev_tx_bytes = d->tx_bytes;
		d->prev_tx_packets = d->tx_packets;
		for (unsigned int k = 0; k < d->nq; k++)
			if (!(d->q[k].flags & SAMPLER_VANISHED))
				update_queue(&d->q[k], s->dt_ns);
	}
}

int sampler_tick(struct sampler *s, struct bql_err *e)
{
	uint64_t prev = s->mono_ns;
	bool first = s->seq == 0, scan = first, again = false;
	int ret;

	s->nev = 0;
	expire(s);
	s->mono_ns = s->clock.mono_ns(s->clock.arg);
	s->real_ns = s->clock.real_ns(s->clock.arg);
	s->dt_ns = first || s->mono_ns < prev ? 0 : s->mono_ns - prev;
	ret = quick_check(s, &scan, e);
	if (ret)
		return ret;
	for (int attempt = 0; attempt < 2; attempt++) {
		if (scan) {
			ret = rescan(s, !first, e);
			if (ret)
				return ret;
		}
		again = attempt > 0;
		ret = read_devices(s, &again, e);
		if (ret)
			return ret;
		if (!again || attempt > 0)
			break;
		scan = true;
	}
	read_dev_stats(s);
	read_qstats(s);
	update_rates(s);
	s->seq++;
	return 0;
}

void sampler_free(struct sampler *s)
{
	for (size_t i = 0; i < s->ndev; i++)
		dev_free(&s->dev[i]);
	free(s->dev);
	free(s->ev);
	free(s->names);
	memset(s, 0, sizeof(*s));
}
