// SPDX-License-Identifier: GPL-2.0-only
/* BPF programs' run-time statistics (bpfstats.h) */
#include "lib/kernel/bpfstats.h"

#ifdef BQLTOOL_HAVE_BPF
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

int bpfstats_read(struct bpf_object *obj, struct bpf_prog_runs *out, int max)
{
	struct bpf_program *p;
	int n = 0;

	if (!obj)
		return 0;
	bpf_object__for_each_program(p, obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		if (n == max || bpf_program__fd(p) < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len) || !info.run_cnt)
			continue;
		snprintf(out[n].name, sizeof(out[n].name), "%s", bpf_program__name(p));
		out[n].runs = info.run_cnt;
		out[n].run_ns = info.run_time_ns;
		n++;
	}
	return n;
}
#else
int bpfstats_read(struct bpf_object *obj, struct bpf_prog_runs *out, int max)
{
	(void)obj; (void)out; (void)max;
	return 0;
}
#endif
