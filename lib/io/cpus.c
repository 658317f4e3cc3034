// SPDX-License-Identifier: GPL-2.0-only
/* The CPUs this process may run on (see cpus.h). */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "lib/io/cpus.h"

/* far above any kernel's NR_CPUS (8192 with MAXSMP): the retries end */
#define CPUS_MAX	(1 << 20)

/*
 * The affinity mask in a set of *@n CPUs (CPU_ALLOC'ed, the caller
 * CPU_FREEs it); NULL if it cannot be read. The kernel refuses (EINVAL)
 * a set smaller than its CPU count, so the set doubles until it fits.
 */
static cpu_set_t *affinity(int *n, size_t *size)
{
	for (int ncpu = CPU_SETSIZE; ncpu <= CPUS_MAX; ncpu *= 2) {
		cpu_set_t *set = CPU_ALLOC(ncpu);
		size_t sz = CPU_ALLOC_SIZE(ncpu);

		if (!set)
			return NULL;
		CPU_ZERO_S(sz, set);
		if (!sched_getaffinity(0, sz, set)) {
			*n = ncpu;
			*size = sz;
			return set;
		}
		CPU_FREE(set);
		if (errno != EINVAL)
			return NULL;
	}
	return NULL;
}

static int online(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > CPUS_MAX ? CPUS_MAX : (int)n;
}

int cpus_usable(void)
{
	size_t size;
	cpu_set_t *set;
	int n, count;

	set = affinity(&n, &size);
	if (!set)
		return online();
	count = CPU_COUNT_S(size, set);
	CPU_FREE(set);
	return count > 0 ? count : online();
}

int cpus_usable_list(bool *on, int max)
{
	size_t size;
	cpu_set_t *set;
	int n, count = 0;

	memset(on, 0, sizeof(bool) * (size_t)max);
	set = affinity(&n, &size);
	if (set) {
		for (int i = 0; i < n && i < max; i++)
			if (CPU_ISSET_S(i, size, set)) {
				on[i] = true;
				count++;
			}
		CPU_FREE(set);
	}
	if (count)
		return count;
	n = online();
	for (count = 0; count < n && count < max; count++)
		on[count] = true;
	return count;
}
