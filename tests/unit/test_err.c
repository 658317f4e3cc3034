// SPDX-License-Identifier: GPL-2.0-only
/*
 * dql/err.c: a message longer than struct bql_err's msg[] keeps its
 * reason: long words (paths) lose their middle, never the end.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dql/err.h"

static char *rep(char c, size_t n)
{
	char *s = malloc(n + 1);

	assert_non_null(s);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

static bool ends_with(const char *s, const char *end)
{
	size_t a = strlen(s), b = strlen(end);

	return a >= b && !strcmp(s + a - b, end);
}

/* the message of the issue: a 230-byte directory, named twice */
static void test_long_path_keeps_reason(void **state)
{
	struct bql_err e;
	char *dir = rep('a', 230);

	(void)state;
	assert_int_equal(bql_err_set(&e, ENOENT, "/d/%s/x.csv: cannot create a temporary file in /d/%s: %s",
				     dir, dir, "No such file or directory"), -ENOENT);
	assert_int_equal(e.code, ENOENT);
	assert_true(strlen(e.msg) < sizeof(e.msg));
	assert_true(strlen(e.msg) >= sizeof(e.msg) - 8);	/* the room is used */
	assert_true(ends_with(e.msg, ": No such file or directory"));
	assert_non_null(strstr(e.msg, "/x.csv: cannot create a temporary file in /d/aaa"));
	assert_true(!strncmp(e.msg, "/d/aaa", 6));
	assert_non_null(strstr(e.msg, "..."));
	free(dir);
}

/* one path of 4000 bytes: its head and its end, then the reason */
static void test_huge_path(void **state)
{
	struct bql_err e;
	char *dir = rep('b', 4000);

	(void)state;
	bql_err_set(&e, ENAMETOOLONG, "/%s/t.csv: File name too long", dir);
	assert_true(strlen(e.msg) < sizeof(e.msg));
	assert_true(ends_with(e.msg, "bbb/t.csv: File name too long"));
	assert_true(!strncmp(e.msg, "/bbb", 4));
	free(dir);
}

/* prefixes added on the way up keep the inner reason */
static void test_prefix_keeps_reason(void **state)
{
	struct bql_err e;
	char *dir = rep('c', 300);

	(void)state;
	bql_err_set(&e, EIO, "%s/f: write error: Input/output error", dir);
	bql_err_prefix(&e, "the timeline %s/g", dir);
	assert_true(ends_with(e.msg, "/f: write error: Input/output error"));
	assert_true(!strncmp(e.msg, "the timeline ccc", 16));
	free(dir);
}

/* short messages are untouched; UTF-8 is never cut inside a sequence */
static void test_short_and_utf8(void **state)
{
	char buf[64], *w = malloc(3 * 100 + 1);
	struct bql_err e;

	(void)state;
	bql_err_set(&e, EINVAL, "eth0:tx-3: limit_max: %s", "Invalid argument");
	assert_string_equal(e.msg, "eth0:tx-3: limit_max: Invalid argument");
	for (int i = 0; i < 100; i++)
		memcpy(w + 3 * i, "\xe2\x82\xac", 3);	/* U+20AC */
	w[300] = '\0';
	bql_fmt_fit(buf, sizeof(buf), "%s: bad", w);
	assert_true(ends_with(buf, ": bad"));
	for (size_t i = 0; buf[i]; i++) {	/* every euro sign whole */
		if ((unsigned char)buf[i] == 0xe2) {
			assert_int_equal((unsigned char)buf[i + 1], 0x82);
			assert_int_equal((unsigned char)buf[i + 2], 0xac);
			i += 2;
		} else {
			assert_true(buf[i] == '.' || buf[i] == ':' || buf[i] == ' ' ||
				    (buf[i] >= 'a' && buf[i] <= 'z'));
		}
	}
	/* one long word and nothing else: head and tail */
	assert_int_equal(bql_fmt_fit(buf, 16, "%s", "0123456789abcdefghijklmnopqrstuvwxyz"), 36);
	assert_true(strlen(buf) < 16);
	assert_true(ends_with(buf, "xyz"));
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_long_path_keeps_reason),
		cmocka_unit_test(test_huge_path),
		cmocka_unit_test(test_prefix_keeps_reason),
		cmocka_unit_test(test_short_and_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
