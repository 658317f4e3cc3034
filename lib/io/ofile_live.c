// SPDX-License-Identifier: GPL-2.0-only
/*
 * ofile's live temporaries: the names that a fatal signal removes before
 * the process ends as the signal would have ended it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/io/ofile_int.h"
#include "lib/io/stops.h"

/*
 * A temporary must not outlive the process: SIGTERM (a timer's stop),
 * SIGHUP, Ctrl-C, SIGPIPE, SIGXCPU (ulimit -t), SIGUSR1, an abort() or
 * any other signal that ends a process would leave ".NAME.XXXXXX" beside
 * the target. Once a temporary has existed, every such signal (the one
 * list, stops_fatal(); where it still has its default action: a command
 * that handles one, as record does, ends cleanly itself) removes every
 * live temporary, then kills the process as it would have (the same
 * status, a core where the signal dumps one). The names are copied into static slots, so that the
 * handler touches no memory that is freed; only this process removes
 * them, not a child that inherited the handler.
 */
#define OFILE_LIVE	16

static char live[OFILE_LIVE][PATH_MAX];
static volatile sig_atomic_t live_used[OFILE_LIVE];
static pid_t live_owner;
static bool live_armed;

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	pid_t pid = getpid();
	int saved = errno;

	(void)uc;
	/*
	 * Sent from outside (kill, sigqueue) and taken by another thread
	 * than the main one: only a fault or abort() can reach a thread of
	 * ours (stops_thread_create() blocks the stop signals), and a kill of
	 * those falls here when the main thread holds every signal while it
	 * creates a temporary (live_mkstemp()). The main thread takes it
	 * then, once it knows the new name.
	 */
	if ((si->si_code == SI_USER || si->si_code == SI_QUEUE || si->si_code == SI_TKILL) &&
	    si->si_pid != pid && pid == live_owner && syscall(SYS_gettid) != pid) {
		syscall(SYS_tgkill, pid, pid, sig);
		errno = saved;
		return;
	}
	if (pid == live_owner)
		for (int i = 0; i < OFILE_LIVE; i++)
			if (live_used[i])
				unlink(live[i]);
	errno = saved;
	signal(sig, SIG_DFL);
	raise(sig);	/* delivered, with the default action, when this returns */
}

static void live_arm(void)
{
	struct sigaction sa, old;

	if (live_armed)
		return;
	live_armed = true;
	live_owner = getpid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO;
	sigfillset(&sa.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (stops_fatal(sig) && !sigaction(sig, NULL, &old) &&
		    !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
			sigaction(sig, &sa, NULL);
}

/* @name is a live temporary: its slot, or -1 (too many, or too long: not tracked) */
static int live_add(const char *name)
{
	size_t n = strlen(name);

	if (n >= PATH_MAX)
		return -1;
	for (int i = 0; i < OFILE_LIVE; i++) {
		if (live_used[i])
			continue;
		memcpy(live[i], name, n + 1);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		live_used[i] = 1;
		return i;
	}
	return -1;
}

/*
 * mkostemp(@tmpl) and its slot (*@slot, -1 if untracked), with every
 * signal held meanwhile (a kill -SEGV as much as a SIGTERM): a signal after
 * the file exists finds its name
 */
int ofile_live_mkstemp(char *tmpl, int *slot)
{
	sigset_t all, old;
	int fd, err;

	live_arm();
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	fd = mkostemp(tmpl, O_CLOEXEC);
	err = errno;
	if (fd >= 0)
		*slot = live_add(tmpl);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return fd;
}

/* link @fd as @name: through /proc (no privilege), or AT_EMPTY_PATH */
static int link_fd(int fd, const char *name)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (!linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW))
		return 0;
	if (errno == EEXIST)
		return -1;
	return linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH);
}

int ofile_live_link(int fd, char *tmpl, int *slot)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	size_t n = strlen(tmpl);
	char *x = n >= 6 ? tmpl + n - 6 : tmpl;
	sigset_t all, old;
	struct timespec ts;
	uint64_t r;
	int ret = -1, err = EEXIST;

	live_arm();
	clock_gettime(CLOCK_REALTIME, &ts);
	r = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid() << 32 ^
	    (uint64_t)ts.tv_sec;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (int tries = 0; tries < 100 && err == EEXIST; tries++) {
		for (int i = 0; i < 6; i++) {
			r = r * 6364136223846793005ull + 1442695040888963407ull;
			x[i] = set[(r >> 33) % (sizeof(set) - 1)];
		}
		ret = link_fd(fd, tmpl);
		err = ret ? errno : 0;
	}
	if (!ret)
		*slot = live_add(tmpl);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return ret;
}

void ofile_live_del(int slot)
{
	if (slot >= 0)
		live_used[slot] = 0;
}
