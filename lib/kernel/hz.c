// SPDX-License-Identifier: GPL-2.0-only
/* HZ detection: env override, /boot/config-*, /proc/config.gz, fallback. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <zlib.h>

#include "lib/kernel/hz.h"

static struct hz_info cached;

unsigned int hz_from_config(const char *text, size_t len)
{
	static const char key[] = "CONFIG_HZ=";
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (ll > sizeof(key) - 1 && !memcmp(p, key, sizeof(key) - 1)) {
			unsigned long v = 0;
			size_t i = sizeof(key) - 1;

			for (; i < ll && p[i] >= '0' && p[i] <= '9' && v < 100000; i++)
				v = v * 10 + (unsigned long)(p[i] - '0');
			if (i == ll && v > 0 && v < 100000)
				return (unsigned int)v;
		}
		p += ll + 1;
	}
	return 0;
}

/* Read a (possibly gzip-compressed) file through zlib; 0 if no HZ in it. */
unsigned int hz_read_config(const char *path)
{
	size_t cap = 1 << 16, len = 0;
	unsigned int hz = 0;
	char *buf, *nb;
	gzFile f;
	int n;

	f = gzopen(path, "rb");
	if (!f)
		return 0;
	buf = malloc(cap);
	while (buf) {
		if (len == cap) {
			if (cap >= (64u << 20))
				break;
			nb = realloc(buf, cap * 2);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		n = gzread(f, buf + len, (unsigned int)(cap - len));
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (buf)
		hz = hz_from_config(buf, len);
	free(buf);
	gzclose(f);
	return hz;
}

/* a whole number 1..99999 (plain digits), or 0 */
static unsigned int parse_hz(const char *s)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v == 0 || v >= 100000)
		return 0;
	return (unsigned int)v;
}

int hz_env_check(struct bql_err *e)
{
	const char *hz = getenv("BQLTOOL_HZ"), *kc = getenv("BQLTOOL_KCONFIG");

	if (hz && *hz) {
		if (!parse_hz(hz))
			return bql_err_set(e, EINVAL,
					   "BQLTOOL_HZ: invalid value '%s' (expected the kernel's HZ, "
					   "a whole number such as 100, 250, 300 or 1000)", hz);
		return 0;	/* it wins: BQLTOOL_KCONFIG is not read */
	}
	if (kc && *kc && access(kc, R_OK)) {
		int err = errno;

		return bql_err_set(e, err, "BQLTOOL_KCONFIG: cannot read '%s': %s", kc,
				   strerror(err));
	}
	return 0;
}

const struct hz_info *hz_get(void)
{
	struct utsname u;
	const char *env;
	char path[512];

	if (cached.hz)
		return &cached;
	env = getenv("BQLTOOL_HZ");
	if (env && *env) {
		unsigned int v = parse_hz(env);

		if (v) {
			cached = (struct hz_info){ v, HZ_SRC_ENV };
			return &cached;
		}
	}
	/* A config of another machine (offline snapshots); nothing else is read. */
	env = getenv("BQLTOOL_KCONFIG");
	if (env && *env) {
		cached.hz = hz_read_config(env);
		cached.src = HZ_SRC_KCONFIG;
		if (!cached.hz)
			cached = (struct hz_info){ HZ_FALLBACK, HZ_SRC_FALLBACK };
		return &cached;
	}
	if (!uname(&u)) {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		cached.hz = hz_read_config(path);
		cached.src = HZ_SRC_BOOT_CONFIG;
	}
	if (!cached.hz) {
		cached.hz = hz_read_config("/proc/config.gz");
		cached.src = HZ_SRC_PROC_CONFIG;
	}
	if (!cached.hz)
		cached = (struct hz_info){ HZ_FALLBACK, HZ_SRC_FALLBACK };
	return &cached;
}

const char *hz_source_name(enum hz_source s)
{
	switch (s) {
	case HZ_SRC_ENV:		return "BQLTOOL_HZ";
	case HZ_SRC_KCONFIG:		return "BQLTOOL_KCONFIG";
	case HZ_SRC_BOOT_CONFIG:	return "/boot/config";
	case HZ_SRC_PROC_CONFIG:	return "/proc/config.gz";
	case HZ_SRC_FALLBACK:		return "assumed";
	}
	return "?";
}

void hz_reset_cache(void)
{
	memset(&cached, 0, sizeof(cached));
}
