// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/model/profile.c: every way a profile can be malformed, truncated, of the
 * wrong version or wrongly typed (errors name the JSON path), the
 * save -> parse round trip, "all" vs per-queue, and reading files.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <json-c/json.h>

#include "dql/dql.h"
#include "lib/model/profile.h"

#include "tests/unit/jsonfail.h"

#define HEAD "{\"bqltool_profile\": 1, "
#define DEV(x) HEAD "\"devices\": {\"eth0\": " x "}}"

static const struct {
	const char *json;
	const char *msg;	/* the whole message must contain this */
} bad[] = {
	{ "", "empty: not a bqltool profile" },
	{ " \n\t", "empty: not a bqltool profile" },
	{ "[1]", "line 1, column 1: expected a JSON object" },
	{ "\n  42", "line 2, column 3: expected a JSON object" },
	{ "{", "truncated JSON" },
	{ DEV("{\"all\": {\"limit_max\": 5"), "line 1, column 69: truncated JSON" },
	{ "{\"bqltool_profile\": 1, \"devices\": {}} x", "line 1, column 39: invalid JSON" },
	{ "{\"bqltool_profile\": 1, \"devices\": {}}{}", "invalid JSON" },
	{ "{\"bqltool_profile\": 1,\n\"devices\": {\n\"eth0\": {\"all\": {\"limit_max\": 5,}}}}",
	  "line 3, column 33: invalid JSON: unexpected character" },
	{ "{\"bqltool_profile\": 01}", "invalid JSON" },
	{ "{\"devices\": {}}", "bqltool_profile: missing: not a bqltool profile" },
	{ "{\"bqltool_profile\": \"1\", \"devices\": {}}",
	  "bqltool_profile: expected an unsigned integer, not a string" },
	{ "{\"bqltool_profile\": 1.0, \"devices\": {}}",
	  "bqltool_profile: expected an unsigned integer, not a fraction" },
	{ "{\"bqltool_profile\": 2, \"devices\": {}}",
	  "bqltool_profile: version 2 is not supported (this bqltool reads version 1)" },
	{ "{\"bqltool_profile\": 0}", "version 0 is not supported" },
	{ HEAD "\"hz\": 250}", "devices: missing" },
	{ HEAD "\"devices\": []}", "devices: expected an object, not an array" },
	{ HEAD "\"devices\": null}", "devices: expected an object, not null" },
	{ HEAD "\"hz\": \"250\", \"devices\": {}}", "hz: expected an unsigned integer, not a string" },
	{ HEAD "\"hz\": 1000000, \"devices\": {}}", "hz: 1000000 is not a plausible HZ" },
	{ HEAD "\"kernel\": 6, \"devices\": {}}", "kernel: expected a string, not an integer" },
	{ HEAD "\"bqltool_version\": [], \"devices\": {}}", "bqltool_version: expected a string, not an array" },
	{ HEAD "\"devices\": {}, \"comment\": \"x\"}", "comment: unknown key" },
	{ DEV("5"), "devices.eth0: expected an object with \"all\" or \"queues\", not an integer" },
	{ DEV("{}"), "devices.eth0: expected \"all\" or \"queues\"" },
	{ DEV("{\"al\": {}}"), "devices.eth0: unknown key \"al\"" },
	{ DEV("{\"all\": {}, \"queues\": []}"), "devices.eth0: has both \"all\" and \"queues\"" },
	{ HEAD "\"devices\": {\"eth/0\": {\"all\": {}}}}",
	  "devices[\"eth/0\"]: not a valid network device name" },
	{ HEAD "\"devices\": {\"\": {\"all\": {}}}}", "devices[\"\"]: not a valid network device name" },
	{ HEAD "\"devices\": {\"averyveryverylongname\": {\"all\": {}}}}",
	  "devices.averyveryverylongname: not a valid network device name" },
	{ HEAD "\"devices\": {\"eth0.100\": {\"all\": {\"limit_max\": true}}}}",
	  "devices[\"eth0.100\"].all.limit_max: expected an unsigned integer, not a boolean" },
	{ DEV("{\"all\": 7}"), "devices.eth0.all: expected an object, not an integer" },
	{ DEV("{\"all\": {\"limit_max\": \"64K\"}}"),
	  "devices.eth0.all.limit_max: expected an unsigned integer, not a string" },
	{ DEV("{\"all\": {\"limit_max\": -1}}"),
	  "devices.eth0.all.limit_max: expected an unsigned integer, not a negative number" },
	{ DEV("{\"all\": {\"hold_time\": 1.5}}"),
	  "devices.eth0.all.hold_time: expected an unsigned integer, not a fraction" },
	{ DEV("{\"all\": {\"hold_time\": 1e3}}"), "devices.eth0.all.hold_time: expected an unsigned integer" },
	{ DEV("{\"all\": {\"stall_thrs\": null}}"),
	  "devices.eth0.all.stall_thrs: expected an unsigned integer, not null" },
	{ DEV("{\"all\": {\"limit_min\": {}}}"), "devices.eth0.all.limit_min: expected an unsigned integer, not an object" },
	{ DEV("{\"all\": {\"limit\": 5}}"), "devices.eth0.all.limit: not a profile setting" },
	{ DEV("{\"all\": {\"inflight\": 5}}"), "devices.eth0.all.inflight: inflight is read-only" },
	{ DEV("{\"all\": {\"stall_max\": 0}}"), "devices.eth0.all.stall_max: stall_max is read-only" },
	{ DEV("{\"all\": {\"limit_mx\": 5}}"), "devices.eth0.all.limit_mx: unknown key" },
	{ DEV("{\"all\": {\"queue\": 5}}"), "devices.eth0.all.queue: unknown key" },
	{ DEV("{\"queues\": {}}"), "devices.eth0.queues: expected an array, not an object" },
	{ DEV("{\"queues\": [5]}"), "devices.eth0.queues[0]: expected an object, not an integer" },
	{ DEV("{\"queues\": [{\"limit_max\": 5}]}"), "devices.eth0.queues[0]: missing \"queue\"" },
	{ DEV("{\"queues\": [{\"queue\": 0}, {\"queue\": 1}, {\"queue\": 2}, {\"queue\": 3, \"limit_max\": \"x\"}]}"),
	  "devices.eth0.queues[3].limit_max: expected an unsigned integer, not a string" },
	{ DEV("{\"queues\": [{\"queue\": 2}, {\"queue\": 2}]}"),
	  "devices.eth0.queues[1]: queue 2 is also at devices.eth0.queues[0]" },
	{ DEV("{\"queues\": [{\"queue\": 65536}]}"), "devices.eth0.queues[0].queue: queue 65536 is out of range" },
	{ DEV("{\"queues\": [{\"queue\": -1}]}"), "devices.eth0.queues[0].queue: expected an unsigned integer" },
	{ DEV("{\"queues\": [{\"queue\": \"tx-1\"}]}"), "devices.eth0.queues[0].queue: expected an unsigned integer" },
	{ "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", "expected a JSON object" },
	{ "{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}", "nesting too deep" },
};

static void test_bad_profiles(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct profile p;
		struct bql_err e = { 0 };
		int ret = profile_parse(bad[i].json, strlen(bad[i].json), &p, &e);

		if (!ret)
			fail_msg("case %zu parsed: %s", i, bad[i].json);
		if (!strstr(e.msg, bad[i].msg))
			fail_msg("case %zu: message '%s', want '%s'", i, e.msg, bad[i].msg);
		assert_int_equal(p.ndev, 0);	/* freed */
		assert_null(p.dev);
	}
}

static void test_good_profile(void **state)
{
	static const char json[] =
		"{\"bqltool_profile\": 1, \"bqltool_version\": \"0.1.0\", \"kernel\": \"6.8.0-45-generic\",\n"
		" \"hz\": 250, \"devices\": {\n"
		"  \"eth0\": {\"all\": {\"limit_min\": 0, \"limit_max\": 1879048192, \"hold_time\": 1000,\n"
		"                     \"stall_thrs\": 0}},\n"
		"  \"eth1\": {\"queues\": [{\"queue\": 3, \"limit_max\": 65536},\n"
		"                        {\"queue\": 1, \"hold_time\": 4294967295}]},\n"
		"  \"eth0.100\": {\"all\": {\"limit_max\": 18446744073709551615}},\n"
		"  \"eth2\": {\"queues\": []}}}\n\n";
	struct profile p;
	struct bql_err e;
	char path[64];

	(void)state;
	assert_int_equal(profile_parse(json, strlen(json), &p, &e), 0);
	assert_int_equal(p.version, 1);
	assert_int_equal(p.hz, 250);
	assert_string_equal(p.kernel, "6.8.0-45-generic");
	assert_string_equal(p.tool_version, "0.1.0");
	assert_int_equal(p.ndev, 4);
	assert_string_equal(p.dev[0].ifname, "eth0");
	assert_true(p.dev[0].all);
	assert_int_equal(p.dev[0].v.present, (1u << BQL_LIMIT_MIN) | (1u << BQL_LIMIT_MAX) |
			 (1u << BQL_HOLD_TIME) | (1u << BQL_STALL_THRS));
	assert_int_equal(p.dev[0].v.val[BQL_LIMIT_MAX], DQL_MAX_LIMIT);
	assert_false(p.dev[1].all);
	assert_int_equal(p.dev[1].nq, 2);
	assert_int_equal(p.dev[1].q[0].queue, 1);	/* sorted */
	assert_int_equal(p.dev[1].q[0].v.present, 1u << BQL_HOLD_TIME);
	assert_int_equal(p.dev[1].q[0].v.val[BQL_HOLD_TIME], 4294967295u);
	assert_int_equal(p.dev[1].q[1].queue, 3);
	assert_int_equal(p.dev[1].q[1].v.val[BQL_LIMIT_MAX], 65536);
	/* type-checked only: the range is plan_value()'s */
	assert_true(p.dev[2].v.val[BQL_LIMIT_MAX] == UINT64_MAX);
	assert_int_equal(p.dev[3].nq, 0);
	assert_string_equal(profile_path(path, sizeof(path), &p.dev[0], PROFILE_ALL, "hold_time"),
			    "devices.eth0.all.hold_time");
	assert_string_equal(profile_path(path, sizeof(path), &p.dev[1], 1, NULL),
			    "devices.eth1.queues[1]");
	assert_string_equal(profile_path(path, sizeof(path), &p.dev[2], PROFILE_DEV, NULL),
			    "devices[\"eth0.100\"]");
	profile_free(&p);
	assert_null(p.dev);
}

static void mkq(struct bql_queue *q, unsigned int idx, uint64_t min, uint64_t max,
		uint64_t hold, bool stall, uint64_t thrs)
{
	memset(q, 0, sizeof(*q));
	q->index = idx;
	q->present = (1u << BQL_LIMIT) | (1u << BQL_LIMIT_MIN) | (1u << BQL_LIMIT_MAX) |
		     (1u << BQL_HOLD_TIME) | (1u << BQL_INFLIGHT);
	q->val[BQL_LIMIT] = 3028 + idx;		/* differs: not a setting */
	q->val[BQL_INFLIGHT] = idx;
	q->val[BQL_LIMIT_MIN] = min;
	q->val[BQL_LIMIT_MAX] = max;
	q->val[BQL_HOLD_TIME] = hold;
	if (stall) {
		q->present |= (1u << BQL_STALL_THRS) | (1u << BQL_STALL_CNT) | (1u << BQL_STALL_MAX);
		q->val[BQL_STALL_THRS] = thrs;
		q->val[BQL_STALL_CNT] = idx;
	}
}

static void test_build_and_round_trip(void **state)
{
	struct bql_queue same[4], diff[3], old[2];
	struct profile p, back;
	struct bql_err e;
	char *text;

	(void)state;
	for (unsigned int i = 0; i < 4; i++)
		mkq(&same[i], i, 0, DQL_MAX_LIMIT, 1000, true, 0);
	mkq(&diff[0], 0, 0, 65536, 1000, true, 0);
	mkq(&diff[1], 1, 0, 65536, 1000, true, 100);
	mkq(&diff[2], 2, 0, 65536, 1000, true, 0);
	mkq(&old[0], 0, 1514, 30000, 500, false, 0);
	mkq(&old[1], 1, 1514, 30000, 500, false, 0);

	profile_init(&p);
	strcpy(p.kernel, "6.9.0");
	strcpy(p.tool_version, "9.9");
	p.hz = 1000;
	assert_int_equal(profile_add_dev(&p, "eth0", same, 4, true, &e), 0);
	assert_int_equal(profile_add_dev(&p, "eth1", diff, 3, true, &e), 0);
	assert_int_equal(profile_add_dev(&p, "eth2", same + 1, 2, false, &e), 0);	/* a subset */
	assert_int_equal(profile_add_dev(&p, "eth3", old, 2, true, &e), 0);
	assert_true(p.dev[0].all);
	assert_false(p.dev[1].all);
	assert_false(p.dev[2].all);		/* not every queue: listed one by one */
	assert_int_equal(p.dev[2].q[0].queue, 1);
	assert_true(p.dev[3].all);
	assert_int_equal(p.dev[3].v.present & (1u << BQL_STALL_THRS), 0);	/* pre-6.9 */
	assert_int_equal(p.dev[0].v.present & ((1u << BQL_LIMIT) | (1u << BQL_INFLIGHT)), 0);

	text = profile_to_json(&p);
	assert_non_null(text);
	assert_non_null(strstr(text, "\"bqltool_profile\": 1,"));
	assert_non_null(strstr(text, "\"queue\": 1,"));
	assert_null(strstr(text, "\"limit\""));
	assert_null(strstr(text, "inflight"));
	assert_int_equal(text[strlen(text) - 1], '\n');
	assert_int_equal(profile_parse(text, strlen(text), &back, &e), 0);
	assert_int_equal(back.ndev, 4);
	assert_int_equal(back.hz, 1000);
	assert_string_equal(back.kernel, "6.9.0");
	assert_string_equal(back.tool_version, "9.9");
	for (size_t i = 0; i < 4; i++) {
		assert_string_equal(back.dev[i].ifname, p.dev[i].ifname);
		assert_int_equal(back.dev[i].all, p.dev[i].all);
		assert_int_equal(back.dev[i].nq, p.dev[i].nq);
		assert_memory_equal(&back.dev[i].v, &p.dev[i].v, sizeof(p.dev[i].v));
		for (size_t k = 0; k < p.dev[i].nq; k++)
			assert_memory_equal(&back.dev[i].q[k], &p.dev[i].q[k], sizeof(p.dev[i].q[k]));
	}
	/* a second rendering is identical */
	{
		char *again = profile_to_json(&back);

		assert_string_equal(again, text);
		free(again);
	}
	free(text);
	profile_free(&back);
	profile_free(&p);
}

/* a value json-c cannot allocate: no profile at all, never one with a hole */
static void test_to_json_nomem(void **state)
{
	struct profile p;
	struct bql_queue q[2] = { 0 };
	struct bql_err e;
	char *text;

	(void)state;
	profile_init(&p);
	for (int i = 0; i < 2; i++) {
		q[i].index = (unsigned int)i;
		q[i].present = 1u << BQL_LIMIT_MAX | 1u << BQL_HOLD_TIME;
		q[i].val[BQL_LIMIT_MAX] = 1000u + (unsigned int)i;
		q[i].val[BQL_HOLD_TIME] = 1000;
	}
	assert_int_equal(profile_add_dev(&p, "eth0", q, 2, true, &e), 0);
	for (int k = 0; k < 4; k++) {
		jsonfail_after = k;
		text = profile_to_json(&p);
		jsonfail_after = -1;
		assert_null(text);
	}
	text = profile_to_json(&p);
	assert_non_null(text);
	assert_null(strstr(text, "null"));
	free(text);
	profile_free(&p);
}

/* (writing a profile is lib/io/ofile.c's, tested in test_ofile.c) */
static void test_read_file(void **state)
{
	char dir[] = "/tmp/bqlt-prof-XXXXXX", path[256], big[256];
	struct bql_err e;
	char *text;
	size_t len;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/profile.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"bqltool_profile\": 1}\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(profile_read_file(path, &text, &len, &e), 0);
	assert_string_equal(text, "{\"bqltool_profile\": 1}\n");
	assert_int_equal(len, strlen(text));
	free(text);
	snprintf(big, sizeof(big), "%s/nope/profile.json", dir);

	/* reading: absent, too large */
	assert_int_equal(profile_read_file(big, &text, &len, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "nope/profile.json: cannot open"));
	snprintf(big, sizeof(big), "%s/big.json", dir);
	f = fopen(big, "w");
	assert_non_null(f);
	assert_int_equal(fseek(f, PROFILE_MAX_SIZE, SEEK_SET), 0);
	fputc(' ', f);
	fclose(f);
	assert_int_equal(profile_read_file(big, &text, &len, &e), -EFBIG);
	assert_non_null(strstr(e.msg, "larger than the 16 MiB a profile may have"));
	unlink(big);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_profiles),
		cmocka_unit_test(test_to_json_nomem),
		cmocka_unit_test(test_good_profile),
		cmocka_unit_test(test_build_and_round_trip),
		cmocka_unit_test(test_read_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
