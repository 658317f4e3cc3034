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

#include "lib/kernel/bpfstats.h"

static volatile sig_atomic_t done;

static void on_sig(int sig)
{
	(void)sig;
	done = 1;
}

int main(int argc, char **argv)
{
	struct bpf_link *links[16];
	struct bpf_prog_runs runs[16];
	struct bpf_object *obj;
	struct bpf_program *p;
	int nl = 0, nr, stats, rc = 0;
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
	nr = bpfstats_read(obj, runs, 16);
	for (int i = 0; i < nr; i++)
		fprintf(stderr, "latfloor: BPF program %s: %llu runs, %llu ns, %.0f ns per run\n",
			runs[i].name, (unsigned long long)runs[i].runs,
			(unsigned long long)runs[i].run_ns, (double)runs[i].run_ns / (double)runs[i].runs);
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
