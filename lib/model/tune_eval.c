// SPDX-License-Identifier: GPL-2.0-only
/*
 * tune's engine: candidates judged over an ensemble, margins, the work
 * budget, on a pool of threads (tune_eval.h). It lives in lib/, not beside
 * dql/tune.c: dql/ is single-threaded pure computation, while this starts
 * threads and sizes them by the CPUs this process may use (lib/io/cpus.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dql/dql.h"
#include "lib/io/cpus.h"
#include "lib/io/stops.h"
#include "lib/model/tune_eval.h"

/*
 * The margin's ladder: a coarse ladder is climbed RUNGS rungs at a time,
 * for every setting measured together, then the step between the last
 * rung held and the first failed is halved SPLIT_ROUNDS times (a bisection:
 * 2.56 to 5 ms to 305 us; 20 to 40 us to 2.5 us). A bisection runs one
 * simulation a setting per round: fewer in all than splits in parallel.
 */
const unsigned int tune_late_us[TUNE_NLATE] = {
	10, 20, 40, 80, 160, 320, 640, 1280, 2560, TUNE_MARGIN_CEIL_NS / 1000,
};
#define NLATE	TUNE_NLATE
#define RUNGS	5
#define SPLIT	1
#define SPLIT_ROUNDS	3
#define SPLIT_MIN_NS	4000ull		/* a step this fine is not split again */

void tune_engine_init(struct tune_engine *e, const struct sim_config *cfg)
{
	int ncpu = cpus_usable();

	memset(e, 0, sizeof(*e));
	e->cfg = cfg;
	e->keep = TUNE_KEEP_DEFAULT;
	e->min_gain = TUNE_MIN_GAIN_DEFAULT;
	e->qdisc = TUNE_QDISC_UNKNOWN;
	e->threads = ncpu > TUNE_MAX_THREADS ? TUNE_MAX_THREADS : (unsigned int)ncpu;
	e->pick = e->best = -1;
}

void tune_engine_free(struct tune_engine *e)
{
	free(e->res);
	e->res = NULL;
	e->nres = e->ncoarse = 0;
}

/* ------------------------------------------------------------ the threads */

/*
 * One simulation: a setting in a member of the ensemble (or at a lateness
 * of the margin ladder: then @m carries it).
 */
struct job {
	struct tune_settings set;
	struct tune_member m;
	bool model_duration;		/* the margin: runs as long as the model's */
	uint32_t win_hold;		/* runs as long as for this hold time (0: set's) */
	struct tune_result r;
};

struct batch {
	struct tune_engine *e;
	struct job *j;
	unsigned int n;
	atomic_uint next, done;
};

static void job_run(const struct tune_engine *e, struct job *j)
{
	struct sim_config c;

	tune_member_cfg(e->cfg, &j->m, j->win_hold ? j->win_hold : j->set.hold_time, &c);
	if (j->model_duration)
		c.duration_ns = tune_whole_periods(&c, e->cfg->duration_ns);
	tune_eval(&c, &j->set, &j->r);
}

static void *worker(void *arg)
{
	struct batch *b = arg;
	unsigned int i;

	while ((i = atomic_fetch_add(&b->next, 1)) < b->n) {
		job_run(b->e, &b->j[i]);
		atomic_fetch_add(&b->done, 1);
	}
	return NULL;
}

/*
 * Run @n jobs on up to e->threads threads (the results do not depend on
 * how many). A job that ran out of memory while others ran is run again
 * alone; one that still cannot run fails the search: a simulation that
 * cannot run is never a candidate.
 */
static int run_jobs(struct tune_engine *e, struct job *j, unsigned int n, struct bql_err *err)
{
	pthread_t th[TUNE_MAX_THREADS];
	unsigned int nt = e->threads ? e->threads : 1, started = 0, i;
	struct batch b = { .e = e, .j = j, .n = n };
	pthread_attr_t attr;
	bool attr_ok;
	int ret = 0;

	if (nt > TUNE_MAX_THREADS)
		nt = TUNE_MAX_THREADS;
	if (nt > n)
		nt = n;
	/* a simulation needs little stack: 256 threads must not cost 2 GB of it */
	attr_ok = !pthread_attr_init(&attr) && !pthread_attr_setstacksize(&attr, 1u << 20);
	for (i = 1; i < nt; i++) {
		ret = stops_thread_create(&th[started], attr_ok ? &attr : NULL, worker, &b);
		if (ret)
			break;
		started++;
	}
	if (attr_ok)
		pthread_attr_destroy(&attr);
	if (ret && !e->thread_note) {
		e->thread_note = true;
		if (e->ops && e->ops->threads_short)
			e->ops->threads_short(e->ops_arg, started + 1, nt, ret);
	}
	if (e->ops && e->ops->progress) {
		/* the calling thread works too, and draws the progress between jobs */
		while ((i = atomic_fetch_add(&b.next, 1)) < n) {
			job_run(e, &j[i]);
			e->ops->progress(e->ops_arg, e, atomic_fetch_add(&b.done, 1) + 1, n);
		}
	} else {
		worker(&b);
	}
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	e->sims += n;
	for (i = 0; i < n; i++) {
		if (j[i].r.err == -ENOMEM)
			job_run(e, &j[i]);	/* alone now */
		if (j[i].r.err) {
			char a[64], m[160];

			return bql_err_set(err, -j[i].r.err,
					   "cannot simulate limit_min=%" PRIu32 " limit_max=%s hold_time=%" PRIu32 " (%s): %s",
					   j[i].set.limit_min,
					   j[i].set.limit_max == DQL_MAX_LIMIT ? "max" :
					   (snprintf(a, sizeof(a), "%" PRIu32, j[i].set.limit_max), a),
					   j[i].set.hold_time,
					   tune_member_fmt(m, sizeof(m), e->cfg, &j[i].m),
					   j[i].r.err == -ENOMEM ? "out of memory" : strerror(-j[i].r.err));
		}
	}
	return 0;
}

/* ------------------------------------------------------------ the ensemble */

/* the window of runs of hold time @hold, -1 if none yet */
static int win_find(const struct tune_engine *e, uint32_t hold)
{
	for (unsigned int w = 0; w < e->nwin; w++)
		if (e->win_hold[w] == hold)
			return (int)w;
	return -1;
}

/*
 * The defaults over the runs of every hold time of @set not yet seen, in
 * every member: a setting's throughput is judged against the defaults'
 * over as long a run of the same arrivals, so that runs of a few packets
 * (light traffic, short hold times) compare like with like. A run of 5
 * hold times of traffic at its rate carries that rate only within the
 * noise of its packets; the defaults run 5 s.
 */
static int eval_windows(struct tune_engine *e, const struct tune_settings *set, unsigned int n,
			struct bql_err *err)
{
	struct job j[TUNE_MAX_MEMBERS];
	int ret;

	for (unsigned int i = 0; i < n; i++) {
		uint32_t hold = set[i].hold_time;

		if (win_find(e, hold) >= 0)
			continue;
		if (e->nwin == TUNE_MAX_WINDOWS)
			return bql_err_set(err, E2BIG, "more than %u hold times to judge",
					   TUNE_MAX_WINDOWS);
		memset(j, 0, sizeof(j));
		for (unsigned int mi = 0; mi < e->nmem; mi++) {
			tune_defaults(&j[mi].set);
			j[mi].m = e->mem[mi];
			j[mi].win_hold = hold;
		}
		ret = run_jobs(e, j, e->nmem, err);
		if (ret)
			return ret;
		for (unsigned int mi = 0; mi < e->nmem; mi++)
			e->base_w[e->nwin][mi] = j[mi].r;
		e->win_hold[e->nwin++] = hold;
	}
	return 0;
}

int tune_engine_eval(struct tune_engine *e, const struct tune_settings *set, unsigned int n,
		     struct tune_result *agg, struct bql_err *err)
{
	struct job *j = calloc(n ? n : 1, sizeof(*j));
	unsigned int *idx = calloc(n ? n : 1, sizeof(*idx));
	int ret = 0;

	if (!j || !idx) {
		free(j);
		free(idx);
		return bql_err_set(err, ENOMEM, "out of memory");
	}
	ret = eval_windows(e, set, n, err);
	for (unsigned int mi = 0; mi < e->nmem && !ret; mi++) {
		unsigned int k = 0;

		for (unsigned int i = 0; i < n; i++) {
			if (mi && !agg[i].feasible && !e->eval_all)
				continue;
			idx[k] = i;
			j[k].set = set[i];
			j[k].m = e->mem[mi];
			k++;
		}
		if (!k)
			break;
		ret = run_jobs(e, j, k, err);
		for (unsigned int i = 0; i < k && !ret; i++)
			tune_fold(&agg[idx[i]], &j[i].r,
				  &e->base_w[win_find(e, j[i].set.hold_time)][mi], mi,
				  !e->mem[mi].throughput_only, e->keep, e->qdisc);
	}
	free(j);
	free(idx);
	return ret;
}

int tune_engine_base(struct tune_engine *e, struct bql_err *err)
{
	struct job j[TUNE_MAX_MEMBERS];
	int ret;

	unsigned int first = 0;

	e->nmem = tune_ensemble(e->cfg, e->late_ns, e->mem, TUNE_MAX_MEMBERS);
	memset(j, 0, sizeof(j));
	for (unsigned int mi = 0; mi < e->nmem; mi++) {
		tune_defaults(&j[mi].set);
		j[mi].m = e->mem[mi];
	}
	/*
	 * The model (member 0) is the run the defaults' margin took as its
	 * reference, the same configuration: taken, not run again.
	 */
	for (unsigned int i = 0; i < e->nmref; i++)
		if (e->mref_hold[i] == j[0].set.hold_time) {
			j[0].r = e->mref_r[i];
			first = 1;
		}
	ret = run_jobs(e, j + first, e->nmem - first, err);
	if (ret)
		return ret;
	for (unsigned int mi = 0; mi < e->nmem; mi++) {
		e->base_m[mi] = e->base_w[0][mi] = j[mi].r;
		tune_fold(&e->base, &j[mi].r, &j[mi].r, mi, !e->mem[mi].throughput_only, e->keep,
			  e->qdisc);
	}
	e->win_hold[0] = j[0].set.hold_time;
	e->nwin = 1;
	e->base.feasible = true;
	return 0;
}

/* ------------------------------------------------------------ the margin */

/* the defaults' throughput over the runs a setting of hold time @hold is judged in */
static double mref(const struct tune_engine *e, uint32_t hold)
{
	for (unsigned int i = 0; i < e->nmref; i++)
		if (e->mref_hold[i] == hold)
			return e->mref[i];
	return 0;
}

/* @j's throughput against the defaults' over as long a run: its ratio */
static double late_ratio(const struct tune_engine *e, const struct job *j)
{
	double ref = mref(e, j->win_hold);

	return ref > 0 ? j->r.throughput_bps / ref : 1;
}

static bool holds_at(const struct tune_engine *e, const struct job *j)
{
	return late_ratio(e, j) >= e->keep;
}

/*
 * @s with interrupts @late_ns later (jitter half that), in a run as long as
 * the ensemble's for its hold time (at least TUNE_HOLDS hold times and the
 * model's duration): DQL grows its limit at once when starved and shrinks
 * it once per hold time, so the defaults ride through late interrupts in a
 * long run, and a short one would understate what they tolerate.
 */
static void late_job(struct job *j, const struct tune_settings *s, uint64_t late_ns)
{
	memset(j, 0, sizeof(*j));
	j->set = *s;
	j->m.irq_late_ns = late_ns;
	j->m.irq_jitter_ns = late_ns / 2;
	j->win_hold = s->hold_time;
}

/* the defaults on the model over the runs of every hold time of @s not yet measured */
static int margin_refs(struct tune_engine *e, const struct tune_settings *s, unsigned int ns,
		       struct bql_err *err)
{
	struct job j[TUNE_MARGIN_MAX];
	unsigned int n = 0;
	int ret;

	for (unsigned int k = 0; k < ns; k++) {
		bool have = false;

		for (unsigned int i = 0; i < e->nmref && !have; i++)
			have = e->mref_hold[i] == s[k].hold_time;
		for (unsigned int i = 0; i < n && !have; i++)
			have = j[i].win_hold == s[k].hold_time;
		if (have)
			continue;
		if (e->nmref + n >= TUNE_MAX_WINDOWS)
			return bql_err_set(err, E2BIG, "more than %u hold times to judge",
					   TUNE_MAX_WINDOWS);
		memset(&j[n], 0, sizeof(j[n]));
		tune_defaults(&j[n].set);
		j[n].win_hold = s[k].hold_time;
		n++;
	}
	if (!n)
		return 0;
	ret = run_jobs(e, j, n, err);
	if (ret)
		return ret;
	for (unsigned int i = 0; i < n; i++) {
		e->mref_hold[e->nmref] = j[i].win_hold;
		e->mref_r[e->nmref] = j[i].r;
		e->mref[e->nmref++] = j[i].r.throughput_bps;
		if (j[i].win_hold == 1000)
			e->margin_ref = j[i].r.throughput_bps;
	}
	return 0;
}

int tune_engine_margins_from(struct tune_engine *e, const struct tune_settings *s,
			     unsigned int ns, const uint64_t *from_ns, struct tune_margin *out,
			     struct bql_err *err)
{
	struct job j[TUNE_MARGIN_MAX * RUNGS];
	uint64_t fail_ns[TUNE_MARGIN_MAX] = { 0 };
	unsigned int next[TUNE_MARGIN_MAX], took[TUNE_MARGIN_MAX], n, k, r;
	int ret;

	if (ns > TUNE_MARGIN_MAX)
		return bql_err_set(err, EINVAL, "the margins of %u settings: %u at most", ns,
				   TUNE_MARGIN_MAX);
	for (k = 0; k < ns; k++) {
		out[k] = (struct tune_margin){ 0 };
		/* a lateness known to hold: the ladder starts above it */
		out[k].held_ns = from_ns ? from_ns[k] : 0;
		for (next[k] = 0; next[k] < NLATE &&
		     tune_late_us[next[k]] * 1000ull <= out[k].held_ns; next[k]++)
			;
	}
	ret = margin_refs(e, s, ns, err);
	if (ret)
		return ret;
	/* the ladder, up to RUNGS rungs of each setting at a time */
	for (;;) {
		for (n = 0, k = 0; k < ns; k++) {
			took[k] = 0;
			for (r = next[k]; !out[k].known && r < next[k] + RUNGS && r < NLATE; r++, took[k]++)
				late_job(&j[n++], &s[k], tune_late_us[r] * 1000ull);
		}
		if (!n)
			break;
		ret = run_jobs(e, j, n, err);
		if (ret)
			return ret;
		for (n = 0, k = 0; k < ns; k++) {
			unsigned int first = n;

			n += took[k];
			for (r = 0; r < took[k]; r++) {
				if (!holds_at(e, &j[first + r])) {
					out[k].known = true;
					fail_ns[k] = j[first + r].m.irq_late_ns;
					out[k].fail_ratio = late_ratio(e, &j[first + r]);
					break;
				}
				out[k].held_ns = j[first + r].m.irq_late_ns;
			}
			next[k] += took[k];
			if (next[k] >= NLATE && !out[k].known)
				out[k].known = out[k].beyond = true;
		}
	}
	for (k = 0; k < ns; k++)
		if (!out[k].known)
			out[k].known = out[k].beyond = true;
	/*
	 * Between the last rung held and the first failed, SPLIT_ROUNDS
	 * times: the step split in SPLIT + 1, the first failure the new end.
	 */
	for (unsigned int round = 0; round < SPLIT_ROUNDS; round++) {
		for (n = 0, k = 0; k < ns; k++) {
			if (out[k].beyond || fail_ns[k] - out[k].held_ns <= SPLIT_MIN_NS)
				continue;
			for (r = 1; r <= SPLIT; r++)
				late_job(&j[n++], &s[k], out[k].held_ns +
					 (fail_ns[k] - out[k].held_ns) * r / (SPLIT + 1));
		}
		if (!n)
			break;
		ret = run_jobs(e, j, n, err);
		if (ret)
			return ret;
		for (n = 0, k = 0; k < ns; k++) {
			bool failed = false;

			if (out[k].beyond || fail_ns[k] - out[k].held_ns <= SPLIT_MIN_NS)
				continue;
			for (r = 1; r <= SPLIT; r++, n++) {
				if (failed)
					continue;
				if (holds_at(e, &j[n])) {
					out[k].held_ns = j[n].m.irq_late_ns;
				} else {
					failed = true;
					fail_ns[k] = j[n].m.irq_late_ns;
					out[k].fail_ratio = late_ratio(e, &j[n]);
				}
			}
		}
	}
	return 0;
}

int tune_engine_margins(struct tune_engine *e, const struct tune_settings *s, unsigned int ns,
			struct tune_margin *out, struct bql_err *err)
{
	return tune_engine_margins_from(e, s, ns, NULL, out, err);
}

/*
 * The lateness every candidate must hold (e->late_ns): the largest of half
 * the defaults' margin, twice the host's measured interrupt delay and the
 * margin asked for, at least the ladder's first rung.
 */
static void required_margin(struct tune_engine *e)
{
	const struct tune_margin *d = &e->margin[0];
	uint64_t half = (d->beyond ? TUNE_MARGIN_CEIL_NS : d->held_ns) / 2;

	e->late_ns = tune_late_us[0] * 1000ull;
	e->late_from = TUNE_LATE_FLOOR;
	if (half > e->late_ns) {
		e->late_ns = half;
		e->late_from = TUNE_LATE_HALF_DEFAULTS;
	}
	if (e->irq_measured_ns && 2 * e->irq_measured_ns > e->late_ns) {
		e->late_ns = 2 * e->irq_measured_ns;
		e->late_from = TUNE_LATE_MEASURED;
	}
	if (e->margin_given_ns > e->late_ns) {
		e->late_ns = e->margin_given_ns;
		e->late_from = TUNE_LATE_GIVEN;
	}
	if (e->late_ns > TUNE_MARGIN_CEIL_NS) {
		e->late_ns = TUNE_MARGIN_CEIL_NS;
	}
}

/*
 * The frontier: besides the best admissible setting, up to
 * TUNE_FRONTIER_MAX - 2 settings that cut the latency further and keep the
 * throughput on the model itself, spread over the latencies between the
 * lowest and the best's, each with its margin; then the best and the
 * defaults. What a lower latency costs in tolerance, for a user to choose.
 */
static int frontier(struct tune_engine *e, struct bql_err *err)
{
	const struct tune_result *best = e->best >= 0 ? &e->res[e->best] : NULL;
	struct tune_settings s[TUNE_MARGIN_MAX];
	struct tune_margin m[TUNE_MARGIN_MAX];
	unsigned int idx[TUNE_FRONTIER_MAX], cand[TUNE_MAX_CAND], nc = 0, nf = 0, ns = 0;
	uint64_t top = best ? best->worst_lat : e->base.worst_lat;
	int ret;

	e->nfrontier = 0;
	/*
	 * candidates below the best's worst latency (over the members they
	 * ran in: up to the first they starved in) that carry the model itself
	 */
	for (unsigned int i = 0; i < e->nres; i++) {
		const struct tune_result *r = &e->res[i];
		bool dup = false;

		if (r->err || r->fail_member == 0 || r->worst_lat >= top)
			continue;
		for (unsigned int k = 0; k < nc && !dup; k++)
			dup = e->res[cand[k]].worst_lat == r->worst_lat;
		if (!dup)
			cand[nc++] = i;
	}
	/* by worst latency, lowest first */
	for (unsigned int i = 1; i < nc; i++)
		for (unsigned int k = i; k > 0 &&
		     e->res[cand[k]].worst_lat < e->res[cand[k - 1]].worst_lat; k--) {
			unsigned int t = cand[k];

			cand[k] = cand[k - 1];
			cand[k - 1] = t;
		}
	/* spread: the lowest, then evenly by rank */
	for (unsigned int k = 0; k < TUNE_FRONTIER_MAX - 2 && k < nc; k++) {
		unsigned int want = TUNE_FRONTIER_MAX - 2 < nc ? TUNE_FRONTIER_MAX - 2 : nc;

		idx[nf++] = cand[k * nc / want];
	}
	for (unsigned int k = 0; k < nf; k++)
		s[ns++] = e->res[idx[k]].set;
	if (ns) {
		struct tune_result full[TUNE_FRONTIER_MAX];

		/* every member, past the one each starved in: the whole worst latency */
		e->stage = "the frontier";
		e->eval_all = true;
		ret = tune_engine_eval(e, s, ns, full, err);
		e->eval_all = false;
		if (!ret)
			ret = tune_engine_margins(e, s, ns, m, err);
		if (ret)
			return ret;
		for (unsigned int k = 0; k < nf; k++)
			if (full[k].worst_lat < top)
				e->frontier[e->nfrontier++] = (struct tune_frontier){
					.set = s[k], .lat = full[k].lat,
					.worst_lat = full[k].worst_lat, .margin = m[k],
					.admissible = full[k].feasible, .kind = TUNE_FRONT_CUT,
				};
		for (unsigned int i = 1; i < e->nfrontier; i++)
			for (unsigned int k = i; k > 0 &&
			     e->frontier[k].worst_lat < e->frontier[k - 1].worst_lat; k--) {
				struct tune_frontier t = e->frontier[k];

				e->frontier[k] = e->frontier[k - 1];
				e->frontier[k - 1] = t;
			}
	}
	if (best && best->worst_lat < e->base.worst_lat)	/* else it gains nothing */
		e->frontier[e->nfrontier++] = (struct tune_frontier){
			.set = best->set, .lat = best->lat, .worst_lat = best->worst_lat,
			.margin = e->margin[1], .admissible = true,
			.kind = e->pick >= 0 ? TUNE_FRONT_PICK : TUNE_FRONT_BEST,
		};
	e->frontier[e->nfrontier++] = (struct tune_frontier){
		.set = e->base.set, .lat = e->base.lat, .worst_lat = e->base.worst_lat,
		.margin = e->margin[0], .admissible = true, .kind = TUNE_FRONT_DEFAULTS,
	};
	return 0;
}

/* ------------------------------------------------------------ the budget */

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

int tune_engine_plan(struct tune_engine *e)
{
	/*
	 * settings per hold time: defaults + refinements at 1000, the sweep
	 * at 100, 20, each with the defaults over as long a run
	 */
	static const struct { uint32_t hold; unsigned int n; } plan[] = {
		{ 1000, 1 + 1 }, { 100, 1 + 13 + 2 * 7 }, { 20, 1 + 13 },
	};
	struct sim_config c;
	uint64_t w = 0;

	e->nmem = tune_ensemble(e->cfg, e->late_ns, e->mem, TUNE_MAX_MEMBERS);
	for (unsigned int mi = 0; mi < e->nmem; mi++)
		for (size_t k = 0; k < sizeof(plan) / sizeof(plan[0]); k++) {
			tune_member_cfg(e->cfg, &e->mem[mi], plan[k].hold, &c);
			w = sat_add(w, sat_mul(sim_work_estimate(&c), plan[k].n));
		}
	/* the margins: the defaults, the best (again where one falls short), the frontier */
	w = sat_add(w, sat_mul(sim_work_estimate(e->cfg),
			       1 + (2 + TUNE_REPICK_MAX + TUNE_FRONTIER_MAX - 2) *
			       (NLATE + SPLIT * SPLIT_ROUNDS)));
	e->work = w;
	return w <= TUNE_WORK_MAX ? 0 : -E2BIG;
}

/* ------------------------------------------------------------ the search */

int tune_engine_search(struct tune_engine *e, struct bql_err *err)
{
	struct tune_settings set[TUNE_MAX_CAND], def;
	unsigned int n;
	struct job j;
	int ret;

	tune_engine_free(e);
	e->res = calloc(TUNE_MAX_CAND, sizeof(*e->res));
	if (!e->res)
		return bql_err_set(err, ENOMEM, "out of memory");
	/*
	 * First how late interrupts may come before the defaults starve the
	 * link: DQL's defaults absorb late interrupts by growing the limit,
	 * and a setting worth recommending must keep at least half of that.
	 */
	e->stage = "the defaults' margin";
	e->margin_ref = 0;
	e->nmref = 0;
	tune_defaults(&def);
	ret = tune_engine_margins(e, &def, 1, &e->margin[0], err);
	if (ret)
		return ret;
	required_margin(e);
	e->stage = "the defaults";
	ret = tune_engine_base(e, err);
	if (ret)
		return ret;
	n = tune_coarse(e->cfg, &e->base, e->floor, set, TUNE_MAX_CAND);
	e->stage = "the sweep";
	ret = tune_engine_eval(e, set, n, e->res, err);
	if (ret)
		return ret;
	e->nres = e->ncoarse = n;
	/* two rounds of refinement around the best so far */
	e->stage = "refining";
	for (int round = 0; round < 2; round++) {
		n = tune_refine(e->res, e->nres, e->floor, set, TUNE_MAX_CAND - e->nres);
		if (!n)
			break;
		ret = tune_engine_eval(e, set, n, e->res + e->nres, err);
		if (ret)
			return ret;
		e->nres += n;
	}
	if (tune_hold_default(e->res, e->nres, &set[0])) {
		ret = tune_engine_eval(e, set, 1, e->res + e->nres, err);
		if (ret)
			return ret;
		e->nres++;
	}
	/*
	 * The best must hold the required lateness on the model too (its own
	 * seed, the model's duration), not only in the ensemble's member: one
	 * that falls short is not admissible, and the next best is measured.
	 */
	e->stage = "the margin";
	e->have_margin = true;
	e->nshort = 0;
	for (;;) {
		e->pick = tune_pick(e->res, e->nres, &e->base, e->min_gain,
				    tune_min_gain_ns(e->cfg), &e->best);
		if (e->best < 0)
			break;
		/* first the required lateness alone; then, if it holds, the ladder above it */
		ret = margin_refs(e, &e->res[e->best].set, 1, err);
		if (ret)
			return ret;
		late_job(&j, &e->res[e->best].set, e->late_ns);
		ret = run_jobs(e, &j, 1, err);
		if (ret)
			return ret;
		if (holds_at(e, &j)) {
			ret = tune_engine_margins_from(e, &e->res[e->best].set, 1, &e->late_ns,
						       &e->margin[1], err);
			if (ret)
				return ret;
			break;
		}
		e->res[e->best].feasible = false;
		e->res[e->best].short_margin = true;
		e->res[e->best].margin_held_ns = 0;	/* less than late_ns: not measured */
		if (++e->nshort == TUNE_REPICK_MAX) {
			/* keep the defaults rather than measure on: the rest unmeasured */
			for (unsigned int i = 0; i < e->nres; i++)
				if (e->res[i].feasible) {
					e->res[i].feasible = false;
					e->res[i].margin_unmeasured = true;
				}
		}
	}
	return frontier(e, err);
}
