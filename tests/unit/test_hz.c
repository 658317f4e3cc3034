// SPDX-License-Identifier: GPL-2.0-only
/* HZ detection: config parsing, gzip configs, the env override, fallback. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include "lib/kernel/hz.h"

static void test_from_config(void **state)
{
	static const struct {
		const char *text;
		unsigned int hz;
	} cases[] = {
		{ "CONFIG_HZ_250=y\nCONFIG_HZ=250\n", 250 },
		{ "# CONFIG_HZ_1000 is not set\nCONFIG_HZ=1000", 1000 },	/* no final newline */
		{ "CONFIG_HZ=300\r\n", 0 },		/* CR is not a digit: rejected */
		{ "CONFIG_HZ_PERIODIC=y\nCONFIG_HZ=100\n", 100 },
		{ "CONFIG_HZ_100=y\n", 0 },
		{ "XCONFIG_HZ=250\n", 0 },
		{ "CONFIG_HZ=\n", 0 },
		{ "CONFIG_HZ=0\n", 0 },
		{ "CONFIG_HZ=25x\n", 0 },
		{ "", 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned int hz = hz_from_config(cases[i].text, strlen(cases[i].text));

		if (hz != cases[i].hz)
			fail_msg("case %zu: got %u want %u", i, hz, cases[i].hz);
	}
}

static void test_read_gzip_and_plain(void **state)
{
	char gz[] = "/tmp/bqlt-hz-XXXXXX", plain[] = "/tmp/bqlt-hzp-XXXXXX";
	int fd1 = mkstemp(gz), fd2 = mkstemp(plain);
	gzFile g;
	FILE *f;

	(void)state;
	assert_true(fd1 >= 0 && fd2 >= 0);
	close(fd1);
	close(fd2);
	g = gzopen(gz, "wb");
	assert_non_null(g);
	/* a big config, HZ far from the start, as real configs are */
	for (int i = 0; i < 5000; i++)
		gzprintf(g, "CONFIG_FILLER_%d=y\n", i);
	gzputs(g, "CONFIG_HZ=300\n");
	gzclose(g);
	assert_int_equal(hz_read_config(gz), 300);
	f = fopen(plain, "w");
	assert_non_null(f);
	fputs("CONFIG_HZ=1000\n", f);
	fclose(f);
	assert_int_equal(hz_read_config(plain), 1000);
	assert_int_equal(hz_read_config("/nonexistent/config.gz"), 0);
	unlink(gz);
	unlink(plain);
}

static void test_env_override(void **state)
{
	const struct hz_info *h;

	(void)state;
	setenv("BQLTOOL_HZ", "100", 1);
	hz_reset_cache();
	h = hz_get();
	assert_int_equal(h->hz, 100);
	assert_int_equal(h->src, HZ_SRC_ENV);
	/* garbage in the variable is ignored, detection goes on */
	setenv("BQLTOOL_HZ", "fast", 1);
	hz_reset_cache();
	h = hz_get();
	assert_true(h->hz > 0);
	assert_int_not_equal(h->src, HZ_SRC_ENV);
	/* BQLTOOL_KCONFIG names the only config read; unreadable -> fallback */
	setenv("BQLTOOL_HZ", "", 1);
	setenv("BQLTOOL_KCONFIG", "/nonexistent/config", 1);
	hz_reset_cache();
	h = hz_get();
	assert_int_equal(h->hz, HZ_FALLBACK);
	assert_int_equal(h->src, HZ_SRC_FALLBACK);
	assert_string_equal(hz_source_name(h->src), "assumed");
	unsetenv("BQLTOOL_KCONFIG");
	unsetenv("BQLTOOL_HZ");
	hz_reset_cache();
	h = hz_get();
	if (h->src == HZ_SRC_FALLBACK)
		assert_int_equal(h->hz, HZ_FALLBACK);
	assert_string_not_equal(hz_source_name(h->src), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_from_config),
		cmocka_unit_test(test_read_gzip_and_plain),
		cmocka_unit_test(test_env_override),
	};

	return cmocka_run_group_tests_name("hz", tests, NULL, NULL);
}
