/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SCHED_IDLE busy loops, one pinned to each online CPU: they run only when
 * the CPU would otherwise idle, so no vCPU sits in the idle task (where a
 * VM may lose hardware watchpoint traps). Started before any BPF object
 * exists, so that no child can hold a BPF link open.
 */
#ifndef BQLTOOL_LIB_SPINNER_H
#define BQLTOOL_LIB_SPINNER_H

#include <stdbool.h>
#include <sys/types.h>

#include "dql/err.h"

#define SPIN_MAX_CPUS	1024

struct spinners {
	pid_t pid[SPIN_MAX_CPUS];
	int n;
	pid_t watcher;		/* ends them at once when the parent dies; 0 none */
	int wfd;		/* the watcher's pipe (write end), -1 none */
};

/*
 * cpu_list_parse - a kernel CPU list ("0-3,5\n") into @on[0..max); returns
 * how many are set, or -1 if @s is not such a list.
 */
int cpu_list_parse(const char *s, bool *on, int max);
/*
 * cpu_online_list - @on[i] = CPU i is online (sysfs; without it, the CPUs
 * this process may run on: cpus_usable_list()); the count
 */
int cpu_online_list(bool *on, int max);
/*
 * spin_start - fork the loops, and a watcher at normal priority. They die
 * with the parent (PR_SET_PDEATHSIG SIGKILL), but a SCHED_IDLE task on a
 * busy CPU may wait a second or more before it runs and can die: the
 * watcher, blocked on a pipe that only the parent holds open, wakes when
 * the parent is gone however it ended (SIGKILL included), gives each loop
 * SCHED_OTHER back and kills it, so they end at once. -errno.
 */
int spin_start(struct spinners *s, struct bql_err *e);
/* spin_stop - kill and reap them; safe to call twice */
void spin_stop(struct spinners *s);

#endif
