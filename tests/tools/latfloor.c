// SPDX-License-Identifier: GPL-2.0-only
/*
 * latfloor OBJ [--no-irq]: attach tests/tools/bpf/latfloor.bpf.c's empty
 * programs (the latency observer's tracepoints) with the kernel's run-time
 * statistics on, until SIGINT or SIGTERM; then print each program's runs
 * and run time as `bqltool latency -v` prints the observer's, for make
 * bench to compare. --no-irq leaves the softirq programs out, as the
 * observer's --no-irq does. Needs root and BPF.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifdef BQLTOOL_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static volatile sig_atomic_t done;

static void on_sig(int sig)
{
	(void)sig;
	done = 1;
}

int main(int argc, char **argv)
{
	struct bpf_link *links[16];
	struct bpf_object *obj;
	struct bpf_program *p;
	int nl = 0, stats, rc = 0;
	int no_irq = argc > 2 && !strcmp(argv[2], "--no-irq");

	if (argc < 2) {
		fprintf(stderr, "usage: latfloor OBJ [--no-irq]\n");
		return 2;
	}
	stats = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats < 0) {
		fprintf(stderr, "latfloor: cannot enable BPF statistics: %s\n", strerror(errno));
		return 1;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "latfloor: cannot load %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	bpf_object__for_each_program(p, obj) {
		const char *n = bpf_program__name(p);

		if (no_irq && (!strcmp(n, "floor_raise") || !strcmp(n, "floor_sentry") ||
			       !strcmp(n, "floor_sexit")))
			continue;
		if (nl == 16 || !(links[nl] = bpf_program__attach(p))) {
			fprintf(stderr, "latfloor: cannot attach %s: %s\n", n, strerror(errno));
			rc = 1;
			goto out;
		}
		nl++;
	}
	printf("ready\n");
	fflush(stdout);
	while (!done)
		pause();
	bpf_object__for_each_program(p, obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len) || !info.run_cnt)
			continue;
		fprintf(stderr, "latfloor: BPF program %s: %llu runs, %llu ns, %.0f ns per run\n",
			bpf_program__name(p), (unsigned long long)info.run_cnt,
			(unsigned long long)info.run_time_ns,
			(double)info.run_time_ns / (double)info.run_cnt);
	}
out:
	while (nl)
		bpf_link__destroy(links[--nl]);
	bpf_object__close(obj);
	close(stats);
	return rc;
}
#else
int main(void)
{
	fprintf(stderr, "latfloor: built without BPF support\n");
	return 1;
}
#endif
