/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The CPUs this process may run on: its affinity mask (sched_getaffinity),
 * which taskset, cpusets and container limits narrow, rather than the
 * machine's online CPUs. Thread counts (replay -J, tune --threads, the
 * timeline writer) are sized by it.
 */
#ifndef BQLTOOL_LIB_CPUS_H
#define BQLTOOL_LIB_CPUS_H

#include <stdbool.h>

/*
 * cpus_usable - how many CPUs the affinity mask holds, whatever the
 * kernel's CPU count (the set grows until sched_getaffinity takes it);
 * sysconf(_SC_NPROCESSORS_ONLN) if the mask cannot be read; never < 1.
 */
int cpus_usable(void);
/*
 * cpus_usable_list - @on[i] = CPU i is in the affinity mask, for i < @max;
 * returns how many are set. If the mask cannot be read (or holds none
 * below @max), CPUs 0..n-1 of the online count n instead: at least one
 * when @max > 0.
 */
int cpus_usable_list(bool *on, int max);

#endif
