// SPDX-License-Identifier: GPL-2.0-only
/* record's per-CPU SCHED_IDLE busy loops (see spinner.h). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/io/cpus.h"
#include "lib/io/spinner.h"

int cpu_list_parse(const char *s, bool *on, int max)
{
	const char *p = s;
	int n = 0;

	memset(on, 0, sizeof(bool) * (size_t)max);
	while (*p && *p != '\n') {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p || lo < 0)
			return -1;
		if (*end == '-') {
			const char *h = end + 1;

			hi = strtol(h, &end, 10);
			if (end == h || hi < lo)
				return -1;
		}
		if (*end && *end != ',' && *end != '\n')
			return -1;
		for (long i = lo; i <= hi && i < max; i++)
			if (!on[i]) {
				on[i] = true;
				n++;
			}
		p = *end == ',' ? end + 1 : end;
	}
	return n;
}

int cpu_online_list(bool *on, int max)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	char buf[4096];
	int n = -1;

	if (f && fgets(buf, sizeof(buf), f))
		n = cpu_list_parse(buf, on, max);
	if (f)
		fclose(f);
	if (n <= 0)	/* no sysfs: the CPUs we may run on, by their numbers */
		n = cpus_usable_list(on, max);
	return n;
}

static void __attribute__((noreturn)) spin(int cpu, pid_t parent)
{
	struct sched_param sp = { .sched_priority = 0 };
	volatile unsigned long x = 0;
	cpu_set_t set;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	close_range(3, ~0u, 0);	/* hold nothing of the parent's (its output file) */
	signal(SIGINT, SIG_IGN);	/* the parent ends us; ^C is for it */
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (sched_setscheduler(0, SCHED_IDLE, &sp))
		_exit(1);	/* never spin at normal priority */
	prctl(PR_SET_NAME, "bqltool-spin");
	for (;;)
		x++;
}

/*
 * The watcher: the parent is gone (EOF: it held the only write end), or it
 * stops them. It knows the loops by pidfd, so a loop already dead and its
 * pid reused by another process is never signalled.
 */
static void __attribute__((noreturn)) watch(const struct spinners *s, int rfd)
{
	struct sched_param sp = { .sched_priority = 0 };
	static int pfd[SPIN_MAX_CPUS];
	char c;

	/* hold nothing of the parent's but the pipe (never its write end) */
	if (rfd > 3)
		close_range(3, (unsigned int)rfd - 1, 0);
	close_range((unsigned int)rfd + 1, ~0u, 0);
	signal(SIGINT, SIG_IGN);
	prctl(PR_SET_NAME, "bqltool-spinwt");
	for (int i = 0; i < s->n; i++)
		pfd[i] = (int)syscall(SYS_pidfd_open, s->pid[i], 0);
	while (read(rfd, &c, 1) < 0 && errno == EINTR)
		;
	for (int i = 0; i < s->n; i++) {
		struct pollfd p = { .fd = pfd[i], .events = POLLIN };

		/* readable: it has exited (its pid may be another's by now) */
		if (pfd[i] < 0 || poll(&p, 1, 0) != 0)
			continue;
		/* runnable now, so the kill takes effect now, not when a CPU idles */
		sched_setscheduler(s->pid[i], SCHED_OTHER, &sp);
		syscall(SYS_pidfd_send_signal, pfd[i], SIGKILL, NULL, 0);
	}
	_exit(0);
}

/* the watcher of the loops in @s (best effort: without it they die later) */
static void watch_start(struct spinners *s)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return;
	pid = fork();
	if (pid == 0)
		watch(s, fds[0]);
	close(fds[0]);
	if (pid < 0) {
		close(fds[1]);
		return;
	}
	s->watcher = pid;
	s->wfd = fds[1];
}

int spin_start(struct spinners *s, struct bql_err *e)
{
	static bool on[SPIN_MAX_CPUS];
	pid_t parent = getpid();

	s->n = 0;
	s->watcher = 0;
	s->wfd = -1;
	cpu_online_list(on, SPIN_MAX_CPUS);
	fflush(NULL);
	for (int cpu = 0; cpu < SPIN_MAX_CPUS; cpu++) {
		pid_t pid;

		if (!on[cpu])
			continue;
		pid = fork();
		if (pid < 0) {
			int err = errno;

			spin_stop(s);
			return bql_err_set(e, err, "cannot start the idle spinners: %s",
					   strerror(err));
		}
		if (pid == 0)
			spin(cpu, parent);
		s->pid[s->n++] = pid;
	}
	if (s->n)
		watch_start(s);
	return 0;
}

void spin_stop(struct spinners *s)
{
	struct sched_param sp = { .sched_priority = 0 };

	for (int i = 0; i < s->n; i++) {
		sched_setscheduler(s->pid[i], SCHED_OTHER, &sp);
		kill(s->pid[i], SIGKILL);
	}
	if (s->wfd >= 0)
		close(s->wfd);		/* the watcher wakes, finds them gone, exits */
	s->wfd = -1;
	for (int i = 0; i < s->n; i++)
		while (waitpid(s->pid[i], NULL, 0) < 0 && errno == EINTR)
			;
	if (s->watcher > 0)
		while (waitpid(s->watcher, NULL, 0) < 0 && errno == EINTR)
			;
	s->watcher = 0;
	s->n = 0;
}
