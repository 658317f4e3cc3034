// SPDX-License-Identifier: GPL-2.0-only
/*
 * bareread: the bare cost of what `top` reads, for make bench. Opens every
 * byte_queue_limits file of every TX queue (and statistics/tx_bytes and
 * tx_packets of every device) under ROOT/class/net once, then preads and
 * parses all of them N times with no pause. With "kept", only the files
 * top keeps open and reads at every sample (limit, inflight, stall_cnt,
 * stall_max; the settings it reads once a second by path).
 *   usage: bareread ROOT N [kept]
 * Prints: files=F queues=Q samples=N; a file that cannot be opened (the
 * descriptor limit, raised to the hard one first) is an error: a floor
 * that reads fewer files than top would be no floor.
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static int *fds;
static size_t nfds, capfds;

static void add(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	if (nfds == capfds) {
		capfds = capfds ? capfds * 2 : 1024;
		fds = realloc(fds, capfds * sizeof(*fds));
		if (!fds) {
			perror("bareread: realloc");
			exit(1);
		}
	}
	fds[nfds++] = fd;
}

int main(int argc, char **argv)
{
	static const char *const attrs[] = { "limit", "limit_min", "limit_max", "hold_time",
					     "inflight", "stall_thrs", "stall_cnt", "stall_max" };
	static const int kept[] = { 0, 4, 6, 7 };	/* limit, inflight, stall_cnt, stall_max */
	char path[4096];
	unsigned long n, queues = 0;
	struct rlimit rl;
	bool only_kept;
	uint64_t sum = 0;
	struct dirent *de;
	DIR *d;

	if (argc != 3 && !(argc == 4 && !strcmp(argv[3], "kept"))) {
		fprintf(stderr, "usage: bareread ROOT N [kept]\n");
		return 2;
	}
	only_kept = argc == 4;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	n = strtoul(argv[2], NULL, 10);
	snprintf(path, sizeof(path), "%s/class/net", argv[1]);
	d = opendir(path);
	if (!d) {
		perror(path);
		return 1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		for (unsigned int q = 0;; q++) {
			snprintf(path, sizeof(path), "%s/class/net/%s/queues/tx-%u/byte_queue_limits/limit",
				 argv[1], de->d_name, q);
			if (access(path, F_OK))
				break;
			queues++;
			for (int i = 0; i < (only_kept ? 4 : 8); i++) {
				int a = only_kept ? kept[i] : i;

				snprintf(path, sizeof(path),
					 "%s/class/net/%s/queues/tx-%u/byte_queue_limits/%s",
					 argv[1], de->d_name, q, attrs[a]);
				add(path);
			}
		}
		snprintf(path, sizeof(path), "%s/class/net/%s/statistics/tx_bytes", argv[1], de->d_name);
		add(path);
		snprintf(path, sizeof(path), "%s/class/net/%s/statistics/tx_packets", argv[1], de->d_name);
		add(path);
	}
	closedir(d);
	for (unsigned long i = 0; i < n; i++) {
		for (size_t k = 0; k < nfds; k++) {
			char buf[32];
			ssize_t len = pread(fds[k], buf, sizeof(buf) - 1, 0);

			if (len < 0)
				continue;
			buf[len] = '\0';
			sum += strtoull(buf, NULL, 10);
		}
	}
	printf("files=%zu queues=%lu samples=%lu checksum=%" PRIu64 "\n", nfds, queues, n, sum);
	return 0;
}
