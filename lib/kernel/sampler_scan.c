// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sampler's discovery half: which devices and queues there are, with
 * their files opened once; devices and queues coming and going between
 * ticks (a cheap check every tick, a full scan at least once a second).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/kernel/sampler.h"
#include "lib/kernel/sampler_int.h"

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

/* out of descriptors or memory: a shortage to report, not a device going away */
static bool short_of(int err)
{
	return err == -EMFILE || err == -ENFILE || err == -ENOMEM;
}

static void queue_close(struct sampler_queue *q)
{
	for (int a = 0; a < BQL_ATTR_NR; a++) {
		if (q->fd[a] >= 0)
			close(q->fd[a]);
		q->fd[a] = -1;
	}
	q->opened = false;
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

/* the kernel has no openat2(2) (before 5.6): a fact of the process */
static bool no_openat2;

int sampler_attr_open(const struct sampler *s, const struct sampler_dev *d,
		      const struct sampler_queue *q, int attr, const char *obj,
		      struct bql_err *e)
{
	char path[4096];

	if (d->qdir_fd >= 0 && !no_openat2) {
		struct open_how how = {
			.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY,
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
				   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
		};
		long fd;

		snprintf(path, sizeof(path), "tx-%u/byte_queue_limits/%s", q->index,
			 bql_attrs[attr].name);
		fd = syscall(SYS_openat2, d->qdir_fd, path, &how, sizeof(how));
		if (fd >= 0)
			return (int)fd;
		if (errno != ENOSYS && errno != ELOOP && errno != EXDEV && errno != EAGAIN) {
			int err = errno;

			return e ? bql_err_set(e, err, "%s: cannot open: %s", obj, strerror(err))
				 : -err;
		}
		/* no openat2, or something odd on the way: the careful path */
		if (errno == ENOSYS)
			no_openat2 = true;
	}
	if (sysfs_bql_path(s->ctx, path, sizeof(path), d->ifname, q->index,
			   bql_attrs[attr].name))
		return e ? bql_err_set(e, ENAMETOOLONG, "%s: path too long", d->ifname)
			 : -ENAMETOOLONG;
	return sysfs_open(s->ctx, path, O_RDONLY, obj, e);
}

/*
 * Open the BQL files of @q; optional files may be absent. Hot files stay
 * open below the descriptor budget: past it (or when open fails for want
 * of descriptors) a hot file is marked in @q->reopen and opened at each
 * read. Slow files are opened to see that they are there and readable,
 * and closed: sampler_rebalance_fds() keeps them open once the hot files
 * of every queue are (else they are read by path at their turn).
 */
static int queue_open(const struct sampler *s, const struct sampler_dev *d,
		      struct sampler_queue *q, struct bql_err *e)
{
	const char *dev = d->ifname;
	char obj[64];
	struct bql_err oe;

	if (q->opened)
		return 0;
	for (int a = 0; a < BQL_ATTR_NR; a++) {
		bool hot = SAMPLER_HOT & (1u << a);
		int err;

		if (q->fd[a] >= 0)
			continue;
		snprintf(obj, sizeof(obj), "%s:tx-%u: %s", dev, q->index, bql_attrs[a].name);
		/* beneath the root, regular files only (lib/kernel/sysfs.c) */
		err = sampler_attr_open(s, d, q, a, obj, &oe);
		if (err >= 0) {
			q->absent &= ~(1u << a);
			if (hot && err < s->fd_budget) {
				q->fd[a] = err;
				q->reopen &= ~(1u << a);
				continue;
			}
			close(err);
			if (hot)
				q->reopen |= 1u << a;
			continue;
		}
		if (short_of(err)) {
			/* cannot tell whether it is there: read it by path */
			q->reopen |= hot ? 1u << a : 0;
			q->absent &= ~(1u << a);
			continue;
		}
		if (err == -ENOENT && bql_attrs[a].optional) {
			q->absent |= 1u << a;
			continue;
		}
		*e = oe;
		return err;
	}
	q->opened = true;
	return 0;
}

/* hot files of live queues that are opened at each read */
static size_t hot_reopen(const struct sampler *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->ndev; i++) {
		const struct sampler_dev *d = &s->dev[i];

		if (d->flags & SAMPLER_VANISHED)
			continue;
		for (unsigned int k = 0; k < d->nq; k++)
			if (!(d->q[k].flags & SAMPLER_VANISHED))
				n += (size_t)__builtin_popcount(d->q[k].reopen & SAMPLER_HOT);
	}
	return n;
}

/* open @a of @q to keep, below the budget; false: no room (or no file) */
static bool keep_open(const struct sampler *s, const struct sampler_dev *d,
		      struct sampler_queue *q, int a)
{
	int fd = sampler_attr_open(s, d, q, a, d->ifname, NULL);

	if (fd < 0)
		return false;
	if (fd >= s->fd_budget) {
		close(fd);
		return false;
	}
	q->fd[a] = fd;
	return true;
}

/* @d's queues/ directory (O_PATH), for reads by path with one openat2 */
static int open_qdir(const struct sampler *s, const char *name)
{
	char path[4096];
	int fd = -1;

	/* beneath the root (lib/kernel/sysfs.c); the BQL files are opened from it */
	if (!sysfs_dev_path(s->ctx, path, sizeof(path), name, "queues"))
		fd = sysfs_open(s->ctx, path, O_PATH | O_DIRECTORY, name, NULL);
	if (fd >= s->fd_budget) {
		close(fd);
		fd = -1;
	}
	return fd < 0 ? -1 : fd;
}

static bool keep_qdir(const struct sampler *s, struct sampler_dev *d)
{
	d->qdir_fd = open_qdir(s, d->ifname);
	return d->qdir_fd >= 0;
}

void sampler_rebalance_fds(struct sampler *s)
{
	size_t need = hot_reopen(s);
	bool room = true;

	/* the queues/ directories of devices opened past the budget */
	for (size_t i = 0; i < s->ndev && s->on_sysfs; i++)
		need += s->dev[i].qdir_fd < 0 && !(s->dev[i].flags & SAMPLER_VANISHED);
	/* and a few more: opening by path holds a directory for a moment */
	if (need)
		need += 4;
	/* the slow files of the last queues give way to hot files */
	for (size_t i = s->ndev; i-- > 0 && need;) {
		struct sampler_dev *d = &s->dev[i];

		for (unsigned int k = d->nq; k-- > 0 && need;)
			for (int a = 0; a < BQL_ATTR_NR && need; a++)
				if ((SAMPLER_SLOW & (1u << a)) && d->q[k].fd[a] >= 0) {
					close(d->q[k].fd[a]);
					d->q[k].fd[a] = -1;
					need--;
				}
	}
	/* the hot files of every queue first, then the slow ones */
	for (int pass = 0; pass < 2 && room; pass++)
		for (size_t i = 0; i < s->ndev && room; i++) {
			struct sampler_dev *d = &s->dev[i];

			if (d->flags & SAMPLER_VANISHED)
				continue;
			if (!pass && s->on_sysfs && d->qdir_fd < 0)
				room = keep_qdir(s, d);
			for (unsigned int k = 0; k < d->nq && room; k++) {
				struct sampler_queue *q = &d->q[k];

				if ((q->flags & SAMPLER_VANISHED) || !q->opened)
					continue;
				for (int a = 0; a < BQL_ATTR_NR && room; a++) {
					uint32_t bit = 1u << a;

					if (q->fd[a] >= 0 || (q->absent & bit) ||
					    !(pass ? SAMPLER_SLOW & bit : q->reopen & bit))
						continue;
					if (keep_open(s, d, q, a))
						q->reopen &= ~bit;
					else
						room = false;	/* full: the rest wait for the next scan */
				}
			}
		}
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
	if (d->qdir_fd >= 0)
		close(d->qdir_fd);
	d->fd_tx_bytes = d->fd_tx_packets = d->qdir_fd = -1;
}

void sampler_dev_free(struct sampler_dev *d)
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

/* operstate as sysfs spells it ("up", "down", "unknown"...); "" if unreadable */
static void read_operstate(const struct sampler *s, struct sampler_dev *d)
{
	char path[4096];

	d->operstate[0] = '\0';
	if (sysfs_dev_path(s->ctx, path, sizeof(path), d->ifname, "operstate") ||
	    sysfs_read(s->ctx, path, d->operstate, sizeof(d->operstate), d->ifname, NULL))
		d->operstate[0] = '\0';
}

static int open_stat(const struct sampler *s, const char *dev, const char *rel)
{
	char path[4096];

	int fd;

	if (sysfs_dev_path(s->ctx, path, sizeof(path), dev, rel))
		return -1;
	fd = sysfs_open(s->ctx, path, O_RDONLY, dev, NULL);
	if (fd >= s->fd_budget || short_of(fd)) {
		/* past the descriptor budget: read it by path (SAMPLER_FD_BY_PATH) */
		if (fd >= 0)
			close(fd);
		return SAMPLER_FD_BY_PATH;
	}
	return fd < 0 ? -1 : fd;
}

/* @d has exactly the @cnt queues @want marks, none vanished */
static bool same_queues(const struct sampler_dev *d, const unsigned char *want,
			unsigned int ntx, unsigned int cnt)
{
	unsigned int n = 0;

	if (d->nq != cnt)
		return false;
	for (unsigned int k = 0; k < ntx; k++) {
		if (!want[k])
			continue;
		if (d->q[n].index != k || (d->q[n].flags & SAMPLER_VANISHED))
			return false;
		n++;
	}
	return true;
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
	if (!reopen && ntx == d->ntx && same_queues(d, want, ntx, cnt)) {
		/* nothing changed (every full scan, mostly): no copy of the rings */
		for (unsigned int k = 0; k < d->nq && !ret; k++)
			ret = queue_open(s, d, &d->q[k], e);
		free(want);
		return ret;
	}
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
		ret = queue_open(s, d, &nq[n], e);
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
	d->fd_tx_bytes = d->fd_tx_packets = d->qdir_fd = -1;
	d->flags = events ? SAMPLER_NEW : 0;
	if (s->on_sysfs)
		d->qdir_fd = open_qdir(s, name);
	d->ntx = ntx;
	d->speed_mbps = sysfs_link_speed(s->ctx, name);
	read_operstate(s, d);
	d->queues_nlink = queues_nlink(s, name, &gone);
	if (!s->nl) {
		d->fd_tx_bytes = open_stat(s, name, "statistics/tx_bytes");
		d->fd_tx_packets = open_stat(s, name, "statistics/tx_packets");
	}
	return dev_sync_queues(s, d, ntx, false, false, e);
}

/* sysfs_open() refused the file (lib/kernel/sysfs.c): not a race with hot-plug */
static bool open_refused(int ret)
{
	return ret == -EXDEV || ret == -ELOOP || ret == -EISDIR || ret == -EINVAL ||
	       ret == -EAGAIN;
}

void sampler_dev_vanish(struct sampler *s, struct sampler_dev *d)
{
	dev_close(d);
	d->flags = SAMPLER_VANISHED;
	for (unsigned int k = 0; k < d->nq; k++)
		d->q[k].flags |= SAMPLER_VANISHED;
	add_event(s, SEV_VANISHED, d->ifname, 0, 0);
}

static bool names_changed(const struct sampler *s, const struct sysfs_dev *v,
			  size_t n)
{
	if (n != s->nnames)
		return true;
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].name, s->names[i].name))
			return true;
	return false;
}

/* the order of sysfs_list_devs(), so vanished devices stay in place */
static int dev_cmp(const void *a, const void *b)
{
	const struct sampler_dev *x = a, *y = b;

	return sysfs_dev_order(x->ifindex, x->ifname, y->ifindex, y->ifname);
}

/* a device the selectors match that could not be sampled (@err < 0) */
static void skip_dev(struct sampler *s, int err, unsigned int ntx)
{
	s->scan_skipped_dev++;
	s->scan_skipped_q += ntx;
	s->short_err = -err;
}

/*
 * Full scan: every device of class/net, matched by name and ifindex with
 * what we have. Devices that went away are marked vanished (kept one
 * tick), new ones opened and marked new (@events: not on the first scan).
 */
int sampler_scan_full(struct sampler *s, bool events, struct bql_err *e)
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
	s->scan_skipped_dev = s->scan_skipped_q = 0;
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
			read_operstate(s, &nd[n]);
			nd[n].queues_nlink = queues_nlink(s, name, &gone);
			ret = dev_sync_queues(s, &nd[n], ntx, events, old->rescan, e);
			nd[n].rescan = false;
			if (ret && short_of(ret)) {
				/* still there, but not sampled: counted, not "vanished" */
				skip_dev(s, ret, ntx);
				sampler_dev_free(&nd[n]);
				continue;
			}
			if (ret) {
				/* it is going away under us */
				if (events)
					add_event(s, SEV_VANISHED, name, 0, 0);
				sampler_dev_free(&nd[n]);
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
		if (ret && short_of(ret))
			skip_dev(s, ret, ntx);
		if (ret) {
			sampler_dev_free(&nd[n]);
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
			sampler_dev_free(&s->dev[k]);
			continue;
		}
		nd[n] = s->dev[k];
		sampler_dev_vanish(s, &nd[n++]);
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
void sampler_scan_expire(struct sampler *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->ndev; i++) {
		struct sampler_dev *d = &s->dev[i];
		unsigned int m = 0;

		if (d->flags & SAMPLER_VANISHED) {
			sampler_dev_free(d);
			continue;
		}
		d->flags = 0;
		for (unsigned int k = 0; k < d->nq; k++) {
			if (d->q[k].flags & SAMPLER_VANISHED)
				continue;
			if (m != k)	/* a queue is 2 KiB of history: move only when needed */
				d->q[m] = d->q[k];
			d->q[m++].flags = 0;
		}
		d->nq = m;
		if (n != i)
			s->dev[n] = *d;
		n++;
	}
	s->ndev = n;
}

int sampler_scan_quick(struct sampler *s, bool *scan, struct bql_err *e)
{
	struct sysfs_dev *names = NULL;
	size_t n = 0;
	int ret;

	if (s->mono_ns - s->last_scan_ns >= SAMPLER_FULL_SCAN_NS)
		*scan = true;
	else if (s->last_quick_ns &&
		 s->mono_ns - s->last_quick_ns < SAMPLER_QUICK_CHECK_NS)
		return 0;	/* checked moments ago; a failed read rescans anyway */
	s->last_quick_ns = s->mono_ns;
	/* names only: no read in each device's directory, every tick */
	ret = sysfs_list_names(s->ctx, &names, &n, e);
	if (ret)
		return ret;
	if (names_changed(s, names, n))
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
