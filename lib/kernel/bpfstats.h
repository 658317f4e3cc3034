/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's run-time statistics of a BPF object's programs (counted
 * while BPF_ENABLE_STATS is held): the recorder's, the latency observer's
 * and make bench's floor read them alike.
 */
#ifndef BQLTOOL_LIB_KERNEL_BPFSTATS_H
#define BQLTOOL_LIB_KERNEL_BPFSTATS_H

#include <stdint.h>

/* one program's run count and run time */
struct bpf_prog_runs {
	char name[32];
	uint64_t runs, run_ns;
};

struct bpf_object;

/*
 * bpfstats_read - the programs of @obj that have run, in the object's
 * order: how many were filled (<= @max); 0 without BPF support
 */
int bpfstats_read(struct bpf_object *obj, struct bpf_prog_runs *out, int max);

#endif
