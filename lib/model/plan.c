// SPDX-License-Identifier: GPL-2.0-only
/*
 * Write plans: kernel-exact validation of BQL values, then all-or-nothing
 * writes with rollback in reverse order.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/fs.h>

#include "dql/dql.h"
#include "lib/io/ofile.h"
#include "lib/model/plan.h"
#include "lib/io/stops.h"

/* ------------------------------------------------------------ values */

static bool is_ms_attr(enum bql_attr a)
{
	return a == BQL_HOLD_TIME || a == BQL_STALL_THRS;
}

/* The jiffies the kernel stores for a written ms value (an unsigned int). */
static uint64_t ms_jiffies(uint64_t ms, unsigned int hz)
{
	return (uint32_t)dql_msecs_to_jiffies(ms, hz);
}

uint64_t plan_ms_shown(uint64_t ms, unsigned int hz)
{
	return dql_jiffies_to_msecs(ms_jiffies(ms, hz), hz);
}

bool plan_ms_write(uint64_t ms, unsigned int hz, uint64_t *w)
{
	uint64_t j0, j = 0, span;
	bool found = false;

	if (ms > UINT32_MAX || !hz)
		return false;
	if (plan_ms_shown(ms, hz) == ms) {
		*w = ms;
		return true;
	}
	/* Which jiffy count shows as @ms? One near the one @ms stores. */
	j0 = ms_jiffies(ms, hz);
	for (int d = -2; d <= 2 && !found; d++) {
		if ((d < 0 && j0 < (uint64_t)-d) || j0 + (uint64_t)(d > 0 ? d : 0) > UINT32_MAX)
			continue;
		j = d < 0 ? j0 - (uint64_t)-d : j0 + (uint64_t)d;
		found = dql_jiffies_to_msecs(j, hz) == ms;
	}
	if (!found)
		return false;
	/* A ms value that stores j: within one jiffy's worth of ms around @ms. */
	span = 1000 / hz + 2;
	for (uint64_t k = 1; k <= span; k++) {
		if (ms >= k && ms_jiffies(ms - k, hz) == j) {
			*w = ms - k;
			return true;
		}
		if (ms + k <= UINT32_MAX && ms_jiffies(ms + k, hz) == j) {
			*w = ms + k;
			return true;
		}
	}
	return false;
}

/* What a stall_thrs write of @ms stores, as the kernel checks it. */
static uint64_t stall_jiffies(uint64_t ms, unsigned int hz)
{
	uint64_t w;

	if (!plan_ms_write(ms, hz, &w))
		w = ms;
	return ms_jiffies(w, hz);
}

static bool stall_ok(uint64_t j)
{
	return !j || (j >= DQL_STALL_THRS_MIN && j <= DQL_STALL_THRS_MAX);
}

void plan_stall_range(unsigned int hz, uint64_t *lo, uint64_t *hi)
{
	uint64_t top;

	*lo = *hi = 0;
	if (!hz)
		return;
	top = (uint64_t)(DQL_STALL_THRS_MAX + 2) * 1000 / hz + 1000 / hz + 4;
	for (uint64_t m = 1; m <= top; m++) {
		uint64_t j = stall_jiffies(m, hz);

		if (j < DQL_STALL_THRS_MIN || j > DQL_STALL_THRS_MAX)
			continue;
		if (!*lo)
			*lo = m;
		*hi = m;
	}
}

int plan_value(enum bql_attr a, uint64_t v, unsigned int hz, const char *what,
	       struct plan_value *pv, struct bql_err *e)
{
	uint64_t lo, hi;

	memset(pv, 0, sizeof(*pv));
	pv->req = pv->wval = pv->shown = v;
	switch (a) {
	case BQL_LIMIT:
	case BQL_LIMIT_MIN:
	case BQL_LIMIT_MAX:
		if (v > DQL_MAX_LIMIT)
			return bql_err_set(e, EINVAL,
					   "%s: %" PRIu64 " bytes is above the kernel's maximum %u (DQL_MAX_LIMIT, 'max')",
					   what, v, (unsigned int)DQL_MAX_LIMIT);
		return 0;
	case BQL_HOLD_TIME:
	case BQL_STALL_THRS:
		break;
	case BQL_STALL_MAX:	/* any write clears it: only 0 means what it does */
		if (v)
			return bql_err_set(e, EINVAL,
					   "%s: stall_max can only be cleared: write 0 (the kernel sets it to 0 whatever is written)",
					   what);
		return 0;
	default:
		return bql_err_set(e, EINVAL, "%s: %s is read-only", what,
				   bql_attrs[a].name);
	}
	if (v > UINT32_MAX)
		return bql_err_set(e, ERANGE,
				   "%s: %" PRIu64 " ms is above the kernel's maximum %u (an unsigned int)",
				   what, v, UINT32_MAX);
	if (!plan_ms_write(v, hz, &pv->wval)) {
		pv->wval = v;
		pv->shown = plan_ms_shown(v, hz);
	}
	pv->jiffies = ms_jiffies(pv->wval, hz);
	if (a == BQL_STALL_THRS && !stall_ok(pv->jiffies)) {
		plan_stall_range(hz, &lo, &hi);
		return bql_err_set(e, ERANGE,
				   "%s: %" PRIu64 " ms is %" PRIu64 " %s, outside the kernel's stall_thrs window of %d..%d jiffies: with HZ=%u use 0 (off) or %" PRIu64 "..%" PRIu64 " ms",
				   what, v, pv->jiffies, pv->jiffies == 1 ? "jiffy" : "jiffies",
				   DQL_STALL_THRS_MIN,
				   DQL_STALL_THRS_MAX, hz, lo, hi);
	}
	return 0;
}

/* ------------------------------------------------------------ the plan */

void plan_init(struct plan *p, unsigned int hz)
{
	memset(p, 0, sizeof(*p));
	p->hz = hz;
}

void plan_free(struct plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->it[i].err);
	free(p->it);
	free(p->q);
	plan_init(p, p->hz);
}

static bool same_queue(const struct plan_item *a, const char *ifname,
		       unsigned int queue)
{
	return a->queue == queue && !strcmp(a->ifname, ifname);
}

int plan_add(struct plan *p, const char *ifname, unsigned int queue,
	     enum bql_attr a, const struct plan_value *v, bool optional,
	     struct bql_err *e)
{
	struct plan_item *it;

	if (strlen(ifname) >= BQL_IFNAMSIZ)
		return bql_err_set(e, EINVAL, "%s: device name too long", ifname);
	/* the items of one queue are added together: look back among them */
	for (size_t i = p->n; i-- > 0 && same_queue(&p->it[i], ifname, queue);) {
		if (p->it[i].attr == a) {
			p->it[i].v = *v;
			p->it[i].optional = optional;
			return 0;
		}
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct plan_item *n = realloc(p->it, cap * sizeof(*n));

		if (!n)
			return bql_err_set(e, ENOMEM, "out of memory");
		p->it = n;
		p->cap = cap;
	}
	it = &p->it[p->n++];
	memset(it, 0, sizeof(*it));
	memcpy(it->ifname, ifname, strlen(ifname) + 1);
	it->queue = queue;
	it->attr = a;
	it->v = *v;
	it->optional = optional;
	return 0;
}

static void set_item_err(struct plan_item *it, const struct bql_err *e)
{
	free(it->err);
	it->err = strdup(e->msg);
}

static int read_all(const struct bql_ctx *c, struct plan *p, struct bql_err *e)
{
	size_t out = 0;
	int ret;

	free(p->q);
	p->q = NULL;
	p->nq = 0;
	if (p->n) {
		p->q = calloc(p->n, sizeof(*p->q));	/* at most one per item */
		if (!p->q)
			return bql_err_set(e, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < p->n;) {
		struct plan_queue *pq = &p->q[p->nq];
		size_t k = i;

		ret = bql_queue_read(c, p->it[i].ifname, p->it[i].queue,
				     &pq->before, e);
		if (ret)
			return ret;
		memcpy(pq->ifname, p->it[i].ifname, sizeof(pq->ifname));
		pq->queue = p->it[i].queue;
		p->nq++;
		while (k < p->n && same_queue(&p->it[k], pq->ifname, pq->queue))
			k++;
		for (; i < k; i++) {
			struct plan_item it = p->it[i];

			if (!bql_has(&pq->before, it.attr)) {
				if (it.optional)
					continue;	/* dropped */
				return bql_err_set(e, EOPNOTSUPP,
						   "%s:tx-%u: %s: not supported by this kernel%s",
						   it.ifname, it.queue, bql_attrs[it.attr].name,
						   bql_attrs[it.attr].optional ?
						   " (the stall detector needs Linux 6.9 or later)" : "");
			}
			it.old = pq->before.val[it.attr];
			it.restore = it.old;
			if (is_ms_attr(it.attr) && !plan_ms_write(it.old, p->hz, &it.restore))
				it.restore = it.old;
			it.state = it.old == it.v.shown ? PLAN_UNCHANGED : PLAN_PENDING;
			p->it[out++] = it;
		}
	}
	p->n = out;
	return 0;
}

int plan_read(const struct bql_ctx *c, struct plan *p, struct bql_err *e)
{
	int ret = read_all(c, p, e);

	/*
	 * Reads come before any write, in every caller and both times (the
	 * first read and the one under the write lock, where a device that
	 * vanished meanwhile fails): say so, as the later failures do.
	 */
	if (ret && e) {
		char msg[sizeof(e->msg)];

		memcpy(msg, e->msg, sizeof(msg));
		bql_fmt_fit(e->msg, sizeof(e->msg), "%s; nothing was written", msg);
	}
	return ret;
}

size_t plan_pending(const struct plan *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++)
		n += p->it[i].state == PLAN_PENDING;
	return n;
}

static int item_path(const struct bql_ctx *c, const struct plan_item *it,
		     char *path, size_t n, struct bql_err *e)
{
	if (sysfs_bql_path(c, path, n, it->ifname, it->queue, bql_attrs[it->attr].name))
		return bql_err_set(e, ENAMETOOLONG, "%s: path too long", it->ifname);
	return 0;
}

/*
 * Root refused @path (EPERM, EACCES): permissions are not the reason. The
 * file's immutable or append-only flag (chattr +i, +a), or else what else
 * refuses root.
 */
static const char *root_denied_why(const struct bql_ctx *c, const char *path)
{
	int fd = sysfs_open(c, path, O_RDONLY | O_NONBLOCK, "", NULL);
	const char *why = NULL;

	if (fd >= 0) {
		why = ofile_attr_why(fd);
		close(fd);
	}
	if (why)
		return why;
	return "something other than permissions refuses it: a security module (SELinux, AppArmor), "
	       "a read-only bind mount, or a user namespace that does not own this sysfs";
}

int plan_check_access(const struct bql_ctx *c, const struct plan *p,
		      struct bql_err *e)
{
	const struct plan_item *first = NULL;
	char path[4096], fpath[4096];
	struct bql_err oe, fe;
	size_t denied = 0;
	int err = 0, fd;

	for (size_t i = 0; i < p->n; i++) {
		const struct plan_item *it = &p->it[i];

		if (it->state != PLAN_PENDING)
			continue;
		if (item_path(c, it, path, sizeof(path), e))
			return -ENAMETOOLONG;
		/* opened, not written: also refuses what is not a file beneath the root */
		fd = sysfs_open(c, path, O_WRONLY, "", &oe);
		if (fd >= 0) {
			close(fd);
			continue;
		}
		if (!first) {
			first = it;
			err = -fd;
			memcpy(fpath, path, sizeof(fpath));
			fe = oe;
		}
		denied++;
	}
	if (!first)
		return 0;
	if ((err == EACCES || err == EPERM) && !geteuid())
		return bql_err_set(e, err,
				   "%s:tx-%u: %s: %s (%s)%s, although running as root: %s; nothing was written",
				   first->ifname, first->queue, bql_attrs[first->attr].name,
				   err == EPERM ? "operation not permitted" : "permission denied",
				   fpath, denied > 1 ? " and more" : "", root_denied_why(c, fpath));
	if (err == EACCES || err == EPERM)
		return bql_err_set(e, err,
				   "%s:tx-%u: %s: permission denied (%s)%s: changing BQL settings needs root; nothing was written",
				   first->ifname, first->queue, bql_attrs[first->attr].name,
				   fpath, denied > 1 ? " and more" : "");
	/* oe.msg: ": cannot open PATH: why" */
	return bql_err_set(e, err, "%s:tx-%u: %s%s; nothing was written",
			   first->ifname, first->queue, bql_attrs[first->attr].name,
			   fe.msg);
}

/*
 * One write, as `echo N > FILE` does it (the kernel accepts one trailing
 * newline, and a fake tree then keeps its exact bytes across a rollback).
 */
static int item_write(const struct bql_ctx *c, const struct plan_item *it,
		      uint64_t v, struct bql_err *e)
{
	char path[4096], obj[64], val[32];
	struct bql_err we;
	int ret;

	ret = item_path(c, it, path, sizeof(path), e);
	if (ret)
		return ret;
	snprintf(obj, sizeof(obj), "%s:tx-%u: %s", it->ifname, it->queue,
		 bql_attrs[it->attr].name);
	snprintf(val, sizeof(val), "%" PRIu64 "\n", v);
	ret = sysfs_write(c, path, val, obj, &we);
	if (ret)
		return bql_err_set(e, -ret, "%s: cannot write %" PRIu64 " to %s: %s",
				   obj, v, path, strerror(-ret));
	return 0;
}

/*
 * The item whose write failed is part of the rollback too: the kernel
 * keeps the old value when its store refuses one, but a write can fail
 * after it changed the file (a regular file cut short, a store that
 * applied and then failed). Read it back; if it no longer shows the old
 * value, write that again.
 */
static void restore_failed(const struct bql_ctx *c, struct plan_item *it)
{
	char path[4096];
	struct bql_err re;
	uint64_t now;

	it->write_failed = true;
	if (!item_path(c, it, path, sizeof(path), &re) &&
	    !sysfs_read_u64(c, path, &now, "", NULL) && now == it->old)
		return;		/* PLAN_FAILED: the old value is in place */
	if (item_write(c, it, it->restore, &re)) {
		it->state = PLAN_RESTORE_FAILED;
		set_item_err(it, &re);
	} else {
		it->state = PLAN_RESTORED;
	}
}

int plan_execute(const struct bql_ctx *c, struct plan *p, struct bql_err *e)
{
	struct bql_err re;
	struct stops st;
	size_t i, done = 0, todo = plan_pending(p);
	bool failed = false;
	int ret = 0, sig = 0;

	/* a stop half-way is an interruption that undoes the writes, not a death */
	stops_hold(&st);
	for (i = 0; i < p->n; i++) {
		struct plan_item *it = &p->it[i];

		if (it->state != PLAN_PENDING)
			continue;
		sig = stops_arrived(&st);
		if (sig) {
			ret = bql_err_set(e, EINTR, "interrupted by %s after %zu of %zu writes",
					  stops_name(sig), done, todo);
			break;
		}
		ret = item_write(c, it, it->v.wval, e);
		if (ret) {
			it->state = PLAN_FAILED;
			set_item_err(it, e);
			failed = true;
			break;
		}
		it->state = PLAN_WRITTEN;
		done++;
	}
	if (!ret) {
		sigprocmask(SIG_SETMASK, &st.old, NULL);	/* a late stop acts now */
		return 0;
	}
	/* roll back, newest first, starting with the one that failed */
	if (failed)
		restore_failed(c, &p->it[i]);
	while (i-- > 0) {
		struct plan_item *it = &p->it[i];

		if (it->state != PLAN_WRITTEN)
			continue;
		if (item_write(c, it, it->restore, &re)) {
			it->state = PLAN_RESTORE_FAILED;
			set_item_err(it, &re);
		} else {
			it->state = PLAN_RESTORED;
		}
	}
	/* a stop that came during the rollback was asked for already: taken */
	stops_release(&st);
	return ret;
}

/* ------------------------------------------------------------ checks */

size_t plan_minmax(const struct plan *p, const struct plan_queue **first,
		   uint64_t *min, uint64_t *max)
{
	size_t n = 0, i = 0;

	if (first)
		*first = NULL;
	for (size_t k = 0; k < p->nq; k++) {
		const struct plan_queue *pq = &p->q[k];
		uint64_t lo = pq->before.val[BQL_LIMIT_MIN];
		uint64_t hi = pq->before.val[BQL_LIMIT_MAX];

		for (; i < p->n && same_queue(&p->it[i], pq->ifname, pq->queue); i++) {
			if (p->it[i].attr == BQL_LIMIT_MIN)
				lo = p->it[i].v.shown;
			else if (p->it[i].attr == BQL_LIMIT_MAX)
				hi = p->it[i].v.shown;
		}
		if (lo <= hi)
			continue;
		if (!n && first) {
			*first = pq;
			*min = lo;
			*max = hi;
		}
		n++;
	}
	return n;
}

const char *plan_clamp_rule(const char *release)
{
	unsigned int kf;

	if (!release || dql_kernel_parse(release, &kf, NULL))
		return "limit_min wins unless the limit reaches limit_max on Linux 6.1 and later; limit_max wins before 6.1";
	if (kf & DQL_K_CLAMP_61)
		return "on this kernel (6.1 or later) limit_min wins unless the limit reaches limit_max";
	return "on this kernel (before 6.1) limit_max wins, unless it has the 6.1 clamp() backport (e.g. 5.15.164) where limit_min wins unless the limit reaches limit_max";
}
