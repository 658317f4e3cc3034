// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sampler behind `top`, its reading half: pread the hot BQL files
 * every tick and the slow ones of a rotating slice of the queues
 * (SAMPLER_SLOW), device and queue counters, rates and histories.
 * Discovery is sampler_scan.c.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "lib/kernel/nl.h"
#include "lib/kernel/sampler.h"
#include "lib/kernel/sampler_int.h"
#include "lib/io/units.h"

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

/* descriptors at or above the number returned are not kept open */
static int fd_budget(uint64_t *limit)
{
	struct rlimit rl;

	*limit = 0;
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > INT_MAX) {
		*limit = UINT64_MAX;
		return INT_MAX;
	}
	*limit = (uint64_t)rl.rlim_cur;
	if (rl.rlim_cur > 2 * SAMPLER_FD_RESERVE)
		return (int)(rl.rlim_cur - SAMPLER_FD_RESERVE);
	return (int)(rl.rlim_cur / 2);
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
	s->fd_budget = fd_budget(&s->shortage.fd_limit);
	{
		struct statfs fs;

		/* a real sysfs: its attributes can be opened with one openat2 */
		s->on_sysfs = c->sysfs_root && !statfs(c->sysfs_root, &fs) &&
			      fs.f_type == SYSFS_MAGIC;
	}
}

uint64_t sampler_raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur;
}

char *sampler_short_text(char *buf, size_t n, const struct sampler *s)
{
	const struct sampler_short *sh = &s->shortage;
	size_t len = 0, nq = 0, nd = 0;
	const char *why = sh->err == ENOMEM ? "out of memory" :
			  sh->err == ENFILE ? "the system's open file table is full (ENFILE)" :
			  "out of file descriptors";
	char lim[48] = "";

	buf[0] = '\0';
	if (!sh->ndev_skipped && !sh->nq_reopen && !sh->nq_unread)
		return buf;
	for (size_t i = 0; i < s->ndev; i++)
		if (!(s->dev[i].flags & SAMPLER_VANISHED)) {
			nd++;
			nq += s->dev[i].nq;
		}
	if (sh->err != ENOMEM && sh->fd_limit && sh->fd_limit != UINT64_MAX)
		snprintf(lim, sizeof(lim), " (ulimit -n %llu)", (unsigned long long)sh->fd_limit);
	len = (size_t)snprintf(buf, n, "%s%s:", why, lim);
	if (sh->ndev_skipped && len < n)
		len += (size_t)snprintf(buf + len, n - len, " %zu device%s (%zu queues) not sampled;",
					sh->ndev_skipped, sh->ndev_skipped == 1 ? "" : "s",
					sh->nq_skipped);
	if (sh->nq_unread && len < n)
		len += (size_t)snprintf(buf + len, n - len, " %zu queue%s not read this sample (older values);",
					sh->nq_unread, sh->nq_unread == 1 ? "" : "s");
	if (sh->nq_reopen && len < n)
		len += (size_t)snprintf(buf + len, n - len, " %zu queue%s read by reopening their files (slower);",
					sh->nq_reopen, sh->nq_reopen == 1 ? "" : "s");
	if (len < n)
		snprintf(buf + len, n - len, " covering %zu device%s, %zu queue%s",
			 nd, nd == 1 ? "" : "s", nq, nq == 1 ? "" : "s");
	return buf;
}

/* what the last tick could not cover */
static void update_shortage(struct sampler *s)
{
	struct sampler_short *sh = &s->shortage;

	sh->ndev_skipped = s->scan_skipped_dev;
	sh->nq_skipped = s->scan_skipped_q;
	sh->nq_reopen = sh->nq_unread = 0;
	for (size_t i = 0; i < s->ndev; i++) {
		const struct sampler_dev *d = &s->dev[i];

		if (d->flags & SAMPLER_VANISHED)
			continue;
		for (unsigned int k = 0; k < d->nq; k++) {
			if (d->q[k].flags & SAMPLER_VANISHED)
				continue;
			sh->nq_reopen += d->q[k].reopen != 0;
			sh->nq_unread += d->q[k].unread;
		}
	}
	if (sh->nq_reopen && !s->short_err)
		s->short_err = EMFILE;
	sh->err = sh->ndev_skipped || sh->nq_reopen || sh->nq_unread ? s->short_err : 0;
}

bool sampler_dev_down(const struct sampler_dev *d)
{
	return !strcmp(d->operstate, "down") || !strcmp(d->operstate, "lowerlayerdown") ||
	       !strcmp(d->operstate, "notpresent");
}

size_t sampler_nqueues(const struct sampler *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->ndev; i++)
		n += s->dev[i].nq;
	return n;
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
 * One file of @q into @buf: pread on its open descriptor, or opened by
 * path (the settings, and files past the descriptor budget). -1 with
 * errno on failure; ENOENT for a file known to be absent.
 */
static ssize_t attr_read(const struct sampler *s, const struct sampler_dev *d,
			 struct sampler_queue *q, int a, char *buf, size_t n)
{
	ssize_t len;
	int fd;

	if (q->fd[a] >= 0)
		return pread_value(q->fd[a], buf, n);
	if (q->absent & (1u << a)) {
		errno = ENOENT;
		return -1;
	}
	fd = sampler_attr_open(s, d, q, a, d->ifname, NULL);
	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	len = pread_value(fd, buf, n);
	if (len < 0) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	close(fd);
	return len;
}

/*
 * Read the files of @q but those in @keep (bits 1 << attr), which keep
 * their last values (@q->slow_ns: when the slow files were last read).
 * An I/O error (the file went away with its device or
 * queue) is returned as -errno with @io set; a bad value is an error of
 * its own. Running out of descriptors or memory is neither: the file
 * keeps its last value and @q->unread says so.
 */
static int queue_read(struct sampler *s, const struct sampler_dev *d, struct sampler_queue *q,
		      uint32_t keep, bool *io, struct bql_err *e)
{
	const char *dev = d->ifname;

	struct bql_queue b = { .index = q->index };

	q->unread = false;
	if (keep && q->have_prev) {
		b.present = q->bql.present & keep;
		for (int a = 0; a < BQL_ATTR_NR; a++)
			if (b.present & (1u << a))
				b.val[a] = q->bql.val[a];
	}
	for (int a = 0; a < BQL_ATTR_NR; a++) {
		char buf[32];
		ssize_t len;
		int ret;

		if ((q->absent & (1u << a)) || (b.present & (1u << a)))
			continue;
		len = attr_read(s, d, q, a, buf, sizeof(buf));
		/* a bad value, not a file gone with its device */
		if (len < 0 && errno == EOVERFLOW)
			return bql_err_set(e, EOVERFLOW,
					   "%s:tx-%u: %s: value longer than %zu bytes: refused (not cut short)",
					   dev, q->index, bql_attrs[a].name, sizeof(buf) - 1);
		if (len < 0 && errno == EILSEQ)
			return bql_err_set(e, EILSEQ,
					   "%s:tx-%u: %s: value contains a NUL byte: refused (not cut short)",
					   dev, q->index, bql_attrs[a].name);
		if (len < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOMEM)) {
			q->unread = true;
			s->short_err = errno;
			if (q->have_prev && (q->bql.present & (1u << a))) {
				b.val[a] = q->bql.val[a];
				b.present |= 1u << a;
			}
			continue;
		}
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
		if (b.val[a] > bql_attr_max(a)) {	/* as bql_read_queue() */
			char obj[64];

			snprintf(obj, sizeof(obj), "%s:tx-%u: %s", dev, q->index, bql_attrs[a].name);
			return bql_attr_check(a, b.val[a], obj, NULL, e);
		}
		b.present |= 1u << a;
	}
	q->bql = b;
	if (!(keep & SAMPLER_SLOW)) {
		q->slow_seen = true;
		q->slow_ns = s->mono_ns;
	}
	return 0;
}

/* live queues of live devices */
static size_t live_queues(const struct sampler *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->ndev; i++) {
		const struct sampler_dev *d = &s->dev[i];

		if (d->flags & SAMPLER_VANISHED)
			continue;
		for (unsigned int k = 0; k < d->nq; k++)
			n += !(d->q[k].flags & SAMPLER_VANISHED);
	}
	return n;
}

/*
 * The slice of @n queues whose slow files this tick reads: as many as
 * @n * dt / SAMPLER_SLOW_NS (rounded up), so that the cursor goes round
 * all of them within SAMPLER_SLOW_NS of tick time; all on the first tick.
 */
static size_t slow_slice(const struct sampler *s, size_t n)
{
	uint64_t dt = s->dt_ns;

	if (!s->seq || !dt || dt >= SAMPLER_SLOW_NS)
		return n;
	return (size_t)(((uint64_t)n * dt + SAMPLER_SLOW_NS - 1) / SAMPLER_SLOW_NS);
}

/*
 * Read every live queue: the hot files always, the slow ones for the
 * queues of this tick's slice, those never read, and those whose last
 * read is SAMPLER_SLOW_NS old (a safety net for irregular ticks and
 * queues that came or went and moved the cursor's positions).
 */
static int read_devices(struct sampler *s, bool *again, struct bql_err *e)
{
	size_t n = live_queues(s), k = slow_slice(s, n), pos = 0;
	size_t cur = n ? s->slow_cursor % n : 0;

	for (size_t i = 0; i < s->ndev; i++) {
		struct sampler_dev *d = &s->dev[i];

		if (d->flags & SAMPLER_VANISHED)
			continue;
		for (unsigned int j = 0; j < d->nq; j++) {
			struct sampler_queue *q = &d->q[j];
			bool io = false, slow;
			int ret;

			if (q->flags & SAMPLER_VANISHED)
				continue;
			slow = !q->slow_seen || (pos + n - cur) % n < k ||
			       s->mono_ns < q->slow_ns ||
			       s->mono_ns - q->slow_ns >= SAMPLER_SLOW_NS;
			pos++;
			ret = queue_read(s, d, q, slow ? 0 : SAMPLER_SLOW, &io, e);
			if (!ret)
				continue;
			if (!io)
				return ret;	/* a bad value */
			if (!sysfs_dev_exists(s->ctx, d->ifname)) {
				sampler_dev_vanish(s, d);
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
	if (!*again && n)
		s->slow_cursor = (cur + k) % n;
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

/* read_fd_u64() of a device statistics file kept open or read by path */
static int read_stat_u64(const struct sampler *s, const struct sampler_dev *d,
			 const char *rel, int fd, uint64_t *v)
{
	char path[4096];
	int ret;

	if (fd != SAMPLER_FD_BY_PATH)
		return read_fd_u64(fd, v);
	if (sysfs_dev_path(s->ctx, path, sizeof(path), d->ifname, rel))
		return -1;
	fd = sysfs_open(s->ctx, path, O_RDONLY, d->ifname, NULL);
	if (fd < 0)
		return -1;
	ret = read_fd_u64(fd, v);
	close(fd);
	return ret;
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
		d->has_errs = false;
		if (nl_ok) {
			struct bnl_link l;

			if (!bnl_link_get(s->nl, d->ifname, &l, NULL) && l.has_stats) {
				d->tx_bytes = l.tx_bytes;
				d->tx_packets = l.tx_packets;
				d->tx_errors = l.tx_errors;
				d->tx_dropped = l.tx_dropped;
				d->has_stats = true;
				d->has_errs = true;
			}
		} else if (!s->nl) {
			int b = read_stat_u64(s, d, "statistics/tx_bytes", d->fd_tx_bytes,
					      &d->tx_bytes);
			int p = read_stat_u64(s, d, "statistics/tx_packets", d->fd_tx_packets,
					      &d->tx_packets);

			d->has_stats = (b > 0 || (!b && d->had_stats)) &&
				       (p > 0 || (!p && d->had_stats));
			/* the counters show -j has too, read by path: rarely wanted, never kept open */
			d->has_errs = d->has_stats &&
				      read_stat_u64(s, d, "statistics/tx_errors", SAMPLER_FD_BY_PATH,
						    &d->tx_errors) > 0 &&
				      read_stat_u64(s, d, "statistics/tx_dropped", SAMPLER_FD_BY_PATH,
						    &d->tx_dropped) > 0;
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

/* the qdisc feeding each queue: one dump per stats tick for every device */
static void read_qdiscs(struct sampler *s)
{
	struct bql_err e;

	for (size_t i = 0; i < s->ndev; i++) {
		s->dev[i].qd_shared = false;
		for (unsigned int k = 0; k < s->dev[i].nq; k++)
			s->dev[i].q[k].has_qd = false;
	}
	if (!s->nl || bnl_qdisc_dump(s->nl, &e))
		return;
	for (size_t i = 0; i < s->ndev; i++) {
		struct sampler_dev *d = &s->dev[i];

		if (d->ifindex <= 0 || (d->flags & SAMPLER_VANISHED))
			continue;
		for (unsigned int k = 0; k < d->nq; k++) {
			struct bnl_qdisc qd;
			enum bnl_qdisc_scope sc = bnl_qdisc_for_queue(s->nl, d->ifindex, d->ntx,
								      d->q[k].index, &qd);

			if (sc == BNL_QD_QUEUE) {
				d->q[k].has_qd = true;
				d->q[k].qd = qd;
			} else if (sc == BNL_QD_DEVICE) {
				d->qd_shared = true;
				d->qd = qd;
			}
		}
	}
}

/* TX ring and coalescing: read when a device is first seen, and at each full scan */
static void read_ethtool(struct sampler *s, bool rescan)
{
	struct bql_err e;

	if (!s->nl)
		return;
	for (size_t i = 0; i < s->ndev; i++) {
		struct sampler_dev *d = &s->dev[i];

		if (d->ifindex <= 0 || (d->flags & SAMPLER_VANISHED) || (d->eth_read && !rescan))
			continue;
		d->eth_read = true;
		if (bnl_ring_get(s->nl, d->ifindex, &d->ring, &e))
			memset(&d->ring, 0, sizeof(d->ring));
		if (bnl_coal_get(s->nl, d->ifindex, &d->coal, &e))
			memset(&d->coal, 0, sizeof(d->coal));
	}
}

static bool rate(uint64_t prev, uint64_t cur, uint64_t dt_ns, double *out)
{
	uint64_t d;

	if (!dt_ns || !sampler_counter_delta(prev, cur, &d))
		return false;
	*out = (double)d * 1e9 / (double)dt_ns;
	return true;
}

/* @stats: counters were read this tick, @dt_ns after the read before */
static void update_queue(struct sampler_queue *q, bool stats, uint64_t dt_ns)
{
	const uint32_t cnt = 1u << BQL_STALL_CNT;

	if (stats) {
		q->rate_valid = 0;
		for (int k = 0; k < SQS_NR && q->have_prev && dt_ns; k++) {
			unsigned int bit = 1u << k;

			if ((q->qs_present & q->prev_qs_present & bit) &&
			    rate(q->prev_qs[k], q->qs[k], dt_ns, &q->rate[k]))
				q->rate_valid |= bit;
		}
		q->prev_qs_present = q->qs_present;
		memcpy(q->prev_qs, q->qs, sizeof(q->prev_qs));
		q->qd_drops_rate_valid = q->have_prev && q->had_qd && q->has_qd && dt_ns &&
					 rate(q->prev_qd_drops, q->qd.drops, dt_ns, &q->qd_drops_rate);
		q->had_qd = q->has_qd;
		q->prev_qd_drops = q->qd.drops;
	}
	/* stall_cnt as last read (a slow file): 0 growth between its reads */
	q->has_stall_delta = q->have_prev && (q->bql.present & q->prev_present & cnt) &&
			     sampler_counter_delta(q->prev_stall_cnt, q->bql.val[BQL_STALL_CNT],
						   &q->stall_cnt_delta);
	if (q->has_stall_delta && q->stall_cnt_delta)
		q->since_stall = 0;
	else if (q->since_stall < UINT_MAX)
		q->since_stall++;
	q->prev_present = q->bql.present;
	q->prev_stall_cnt = q->bql.val[BQL_STALL_CNT];
	q->have_prev = true;

	q->hist_limit[q->hist_head] = q->bql.val[BQL_LIMIT];
	q->hist_inflight[q->hist_head] = q->bql.val[BQL_INFLIGHT];
	q->hist_head = (q->hist_head + 1) % SAMPLER_HIST;
	if (q->hist_len < SAMPLER_HIST)
		q->hist_len++;
}

static void update_rates(struct sampler *s, bool stats, uint64_t dt_ns)
{
	for (size_t i = 0; i < s->ndev; i++) {
		struct sampler_dev *d = &s->dev[i];

		if (d->flags & SAMPLER_VANISHED)
			continue;
		if (stats) {
			d->has_rate = d->had_stats && d->has_stats &&
				      rate(d->prev_tx_bytes, d->tx_bytes, dt_ns,
					   &d->tx_bytes_rate) &&
				      rate(d->prev_tx_packets, d->tx_packets, dt_ns,
					   &d->tx_packets_rate);
			d->had_stats = d->has_stats;
			d->prev_tx_bytes = d->tx_bytes;
			d->prev_tx_packets = d->tx_packets;
		}
		for (unsigned int k = 0; k < d->nq; k++)
			if (!(d->q[k].flags & SAMPLER_VANISHED))
				update_queue(&d->q[k], stats, dt_ns);
	}
}

int sampler_tick(struct sampler *s, struct bql_err *e)
{
	uint64_t prev = s->mono_ns;
	bool first = s->seq == 0, scan = first, again = false, stats;
	int ret;

	s->nev = 0;
	sampler_scan_expire(s);
	s->mono_ns = s->clock.mono_ns(s->clock.arg);
	s->real_ns = s->clock.real_ns(s->clock.arg);
	s->dt_ns = first || s->mono_ns < prev ? 0 : s->mono_ns - prev;
	ret = sampler_scan_quick(s, &scan, e);
	if (ret)
		return ret;
	/* traffic counters: every tick or stats_min_ns apart */
	stats = first || !s->stats_min_ns || s->mono_ns < s->stats_ns ||
		s->mono_ns - s->stats_ns >= s->stats_min_ns;
	for (int attempt = 0; attempt < 2; attempt++) {
		if (scan) {
			ret = sampler_scan_full(s, !first, e);
			if (ret)
				return ret;
			sampler_rebalance_fds(s);
		}
		again = attempt > 0;
		ret = read_devices(s, &again, e);
		if (ret)
			return ret;
		if (!again || attempt > 0)
			break;
		scan = true;
	}
	if (stats) {
		uint64_t dt = first || s->mono_ns < s->stats_ns ? 0 : s->mono_ns - s->stats_ns;

		read_dev_stats(s);
		read_qstats(s);
		read_qdiscs(s);
		read_ethtool(s, scan);
		update_rates(s, true, dt);
		s->stats_ns = s->mono_ns;
	} else {
		update_rates(s, false, 0);
	}
	update_shortage(s);
	s->seq++;
	return 0;
}

bool sampler_has_qdiscs(const struct sampler *s)
{
	for (size_t i = 0; i < s->ndev; i++) {
		if (s->dev[i].qd_shared)
			return true;
		for (unsigned int k = 0; k < s->dev[i].nq; k++)
			if (s->dev[i].q[k].has_qd)
				return true;
	}
	return false;
}

bool sampler_has_ethtool(const struct sampler *s)
{
	for (size_t i = 0; i < s->ndev; i++)
		if ((s->dev[i].ring.present & BNL_RING_TX) ||
		    (s->dev[i].coal.present & BNL_COAL_TX_USECS))
			return true;
	return false;
}

void sampler_free(struct sampler *s)
{
	for (size_t i = 0; i < s->ndev; i++)
		sampler_dev_free(&s->dev[i]);
	free(s->dev);
	free(s->ev);
	free(s->names);
	memset(s, 0, sizeof(*s));
}
