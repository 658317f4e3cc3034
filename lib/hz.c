// SPDX-License-Identifier: GPL-2.0-only
/* HZ detection: env override, /boot/config-*, /proc/config.gz, fallback. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <zlib.h>

#include "lib/hz.h"

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

const struct hz_info *hz_get(void)
{
	struct utsname u;
	const char *env;
	char path[512];

	if (cached.hz)
		return &cached;
	env = getenv("BQLTOOL_HZ");
	if (env && *env) {
		char *end;
		unsigned long v = strtoul(env, &end, 10);

		if (!*end && v > 0 && v < 100000) {
			cached = (struct hz_info){ (unsigned int)v, HZ_SRC_ENV };
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
