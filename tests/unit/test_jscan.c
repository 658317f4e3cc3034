// SPDX-License-Identifier: GPL-2.0-only
/* lib/jscan: duplicate keys and out-of-range integers, named with their place. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/io/jscan.h"
#include "lib/model/profile.h"

static const struct {
	const char *json, *msg;	/* msg NULL: accepted */
} cases[] = {
	{ "{}", NULL },
	{ "{\"a\":1,\"b\":{\"a\":2},\"c\":[{\"a\":1},{\"a\":1}]}", NULL },
	{ "{\"a\":1,\"a\":2}", "duplicate key \"a\" at line 1, column 8 (first at line 1, column 2)" },
	{ "{\n  \"x\": {\n    \"k\": 1,\n    \"k\": 2\n  }\n}",
	  "x: duplicate key \"k\" at line 4, column 5 (first at line 3, column 5)" },
	/* escapes are resolved: "\u0061" is "a" */
	{ "{\"a\":1,\"\\u0061\":2}", "duplicate key \"a\"" },
	/* a string value equal to a key is not a key */
	{ "{\"a\":\"a\",\"b\":\"a\"}", NULL },
	{ "{\"l\":[0,{\"q\":{\"z\":1,\"z\":1}}]}", "l[1].q: duplicate key \"z\"" },
	{ "{\"dev\":{\"a b\":{\"k\":1,\"k\":1}}}", "dev[\"a b\"]: duplicate key \"k\"" },
	{ "{\"n\":18446744073709551615,\"m\":-9223372036854775808}", NULL },
	{ "{\"n\":18446744073709551616}", "n: 18446744073709551616 at line 1, column 6 is out of range" },
	{ "{\"n\":99999999999999999999}", "n: 99999999999999999999 at line 1" },
	{ "{\"n\":-9223372036854775809}", "n: -9223372036854775809 at line 1, column 6 is out of range (at least" },
	{ "{\"n\":1e400,\"f\":123456789012345678901234.5}", NULL },	/* not integers */
	{ "[1,2,[3,99999999999999999999]]", "[2][1]: 99999999999999999999" },
	/* JSON is UTF-8: json-c takes any byte in a string */
	{ "{\"a\":\n \"x\xc3\xa9\xff\"}", "line 2, column 5: byte 0xff is not UTF-8" },
	{ "{\"k\xc0\xaf\":1}", "line 1, column 4: byte 0xc0 is not UTF-8" },
	{ "{\"caf\xc3\xa9\":\"\xe2\x82\xac\"}", NULL },
	/* \u0000 ends every C string made of it: "eth0\u0000x" would be eth0 */
	{ "{\"d\":{\"eth0\\u0000x\":1}}", "d: a NUL character (U+0000) in a key at line 1, column 12" },
	{ "{\"k\":[\"a\",\"b\\u0000\"]}", "k[1]: a NUL character (U+0000) in a string at line 1, column 13" },
	{ "{\"k\":\"\\u0001\\u00000\"}", "k: a NUL character" },
	/* what json-c takes beyond JSON: single quotes (which would hide a
	 * duplicate from this scan), NaN, Infinity */
	{ "{'a':1}", "line 1, column 2: invalid JSON: a string in single quotes" },
	{ "{\"d\":{'e':1,\"e\":2}}", "line 1, column 7: invalid JSON: a string in single quotes" },
	{ "{\"n\":NaN}", "n: NaN at line 1, column 6 is not a JSON value" },
	{ "{\"n\":[1,-Infinity]}", "n[1]: Infinity at line 1, column 10 is not a JSON value" },
	{ "{\"t\":[true,false,null]}", NULL },
};

static void test_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bql_err e = { 0 };
		int ret = jscan_check(cases[i].json, strlen(cases[i].json), &e);

		if (!cases[i].msg) {
			if (ret)
				fail_msg("case %zu: %s", i, e.msg);
			continue;
		}
		assert_int_equal(ret, -EINVAL);
		if (strncmp(e.msg, cases[i].msg, strlen(cases[i].msg)))
			fail_msg("case %zu: got '%s', want '%s...'", i, e.msg, cases[i].msg);
	}
}

/* a large object uses the hash index; the duplicate is still found */
static void test_large(void **state)
{
	size_t n = 100000, cap = n * 24 + 64, len = 0;
	char *s = malloc(cap);
	struct bql_err e;

	(void)state;
	assert_non_null(s);
	len += (size_t)snprintf(s + len, cap - len, "{");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(s + len, cap - len, "%s\"k%zu\":%zu", i ? "," : "", i, i);
	s[len] = '\0';
	assert_int_equal(jscan_check(s, len, &e), 0);
	len += (size_t)snprintf(s + len, cap - len, ",\"k77777\":1}");
	assert_int_equal(jscan_check(s, len, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "duplicate key \"k77777\""));
	free(s);
}

/* profiles: duplicate devices and settings are refused, the value quoted */
static void test_profile(void **state)
{
	static const struct {
		const char *json, *msg;
	} p[] = {
		{ "{\"bqltool_profile\":1,\"devices\":{\"eth0\":{\"all\":{\"limit_max\":1,\"limit_max\":2}}}}",
		  "devices.eth0.all: duplicate key \"limit_max\"" },
		{ "{\"bqltool_profile\":1,\"devices\":{\"eth0\":{\"all\":{}},\"eth0\":{\"all\":{}}}}",
		  "devices: duplicate key \"eth0\"" },
		{ "{\"bqltool_profile\":1,\"devices\":{\"eth0\":{\"queues\":[{\"queue\":1,\"queue\":2}]}}}",
		  "devices.eth0.queues[0]: duplicate key \"queue\"" },
		{ "{\"bqltool_profile\":1,\"devices\":{\"eth0\":{\"all\":{\"hold_time\":99999999999999999999}}}}",
		  "devices.eth0.all.hold_time: 99999999999999999999 at line 1" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		struct profile pr;
		struct bql_err e = { 0 };

		assert_int_equal(profile_parse(p[i].json, strlen(p[i].json), &pr, &e), -EINVAL);
		if (strncmp(e.msg, p[i].msg, strlen(p[i].msg)))
			fail_msg("profile %zu: got '%s', want '%s...'", i, e.msg, p[i].msg);
	}
}

/* 65536 queue entries: the duplicate queue check is linear */
static void test_many_queues(void **state)
{
	size_t n = PROFILE_MAX_QUEUE + 1, cap = n * 40 + 128, len = 0;
	char *s = malloc(cap);
	struct profile pr;
	struct bql_err e;

	(void)state;
	assert_non_null(s);
	len += (size_t)snprintf(s + len, cap - len,
				"{\"bqltool_profile\":1,\"devices\":{\"eth0\":{\"queues\":[");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(s + len, cap - len, "%s{\"queue\":%zu,\"limit_max\":1}",
					i ? "," : "", n - 1 - i);
	len += (size_t)snprintf(s + len, cap - len, "]}}}");
	assert_int_equal(profile_parse(s, len, &pr, &e), 0);
	assert_int_equal(pr.dev[0].nq, n);
	assert_int_equal(pr.dev[0].q[0].queue, 0);
	profile_free(&pr);
	/* the same queue twice, far apart */
	memcpy(strstr(s, "{\"queue\":0,"), "{\"queue\":9,", 11);
	assert_int_equal(profile_parse(s, len, &pr, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "queue 9 is also at devices.eth0.queues[65526]"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_profile),
		cmocka_unit_test(test_many_queues),
	};

	return cmocka_run_group_tests_name("jscan", tests, NULL, NULL);
}
