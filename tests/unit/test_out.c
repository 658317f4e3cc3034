// SPDX-License-Identifier: GPL-2.0-only
/* The one-path output layer: the same calls give text or one JSON document. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <json-c/json.h>

#include "lib/io/out.h"

#include "tests/unit/jsonfail.h"

static char *buf;
static size_t len;

static void open_ctx(struct bql_ctx *c, bool json, bool pretty)
{
	bql_ctx_init(c);
	c->json = json;
	c->pretty = pretty;
	c->out = open_memstream(&buf, &len);
	assert_non_null(c->out);
}

static void close_ctx(struct bql_ctx *c)
{
	fclose(c->out);
}

/* the calls a device printer makes */
static void emit(struct bql_ctx *c)
{
	out_begin(c, true);
	out_open_obj(c, NULL);
	out_str(c, OUT_ANY, "ifname", "%s:", "eth0");
	out_u64(c, OUT_JSON, "ifindex", NULL, 2);
	out_u64(c, OUT_TEXT, "ignored", " text-only %" PRIu64, 7);
	out_open_arr(c, "queues");
	for (unsigned int q = 0; q < 2; q++) {
		out_open_obj(c, NULL);
		out_u64(c, OUT_ANY, "limit", " %" PRIu64, 1514ull * (q + 1));
		out_bool(c, OUT_ANY, "stalled", " %s", q == 1);
		out_dbl(c, OUT_ANY, "mean", " %.1f", 1.5);
		out_s64(c, OUT_ANY, "delta", " %" PRId64, -3);
		out_close_obj(c);
	}
	out_close_arr(c);
	out_null(c, "speed");
	out_str(c, OUT_ANY, "path", " %s", "a/b");
	out_close_obj(c);
	out_nl(c);
	assert_int_equal(out_end(c), 0);
}

static void test_text(void **state)
{
	struct bql_ctx c;

	(void)state;
	open_ctx(&c, false, false);
	emit(&c);
	close_ctx(&c);
	assert_string_equal(buf, "eth0: text-only 7 1514 no 1.5 -3 3028 yes 1.5 -3 a/b\n");
	free(buf);
}

static void test_json_plain(void **state)
{
	struct bql_ctx c;

	(void)state;
	open_ctx(&c, true, false);
	emit(&c);
	close_ctx(&c);
	/* one line, no slash escaping, text-only values absent */
	assert_string_equal(buf,
		"[{\"ifname\":\"eth0\",\"ifindex\":2,\"queues\":["
		"{\"limit\":1514,\"stalled\":false,\"mean\":1.5,\"delta\":-3},"
		"{\"limit\":3028,\"stalled\":true,\"mean\":1.5,\"delta\":-3}],"
		"\"speed\":null,\"path\":\"a/b\"}]\n");
	free(buf);
}

/* out_dbl_fixed: the digits asked for, in JSON only */
static void test_dbl_fixed(void **state)
{
	struct bql_ctx c;

	(void)state;
	open_ctx(&c, true, false);
	out_begin(&c, false);
	out_dbl_fixed(&c, "u", 0.99988123, 6);
	out_dbl_fixed(&c, "m", 15137.84, 1);
	out_dbl_fixed(&c, "one", 1, 4);
	assert_int_equal(out_end(&c), 0);
	close_ctx(&c);
	assert_string_equal(buf, "{\"u\":0.999881,\"m\":15137.8,\"one\":1.0000}\n");
	free(buf);
	open_ctx(&c, false, false);
	out_begin(&c, false);
	out_dbl_fixed(&c, "u", 0.5, 2);
	assert_int_equal(out_end(&c), 0);
	close_ctx(&c);
	assert_string_equal(buf, "");
	free(buf);
}

static void test_json_pretty_and_discard(void **state)
{
	struct bql_ctx c;

	(void)state;
	open_ctx(&c, true, true);
	emit(&c);
	assert_non_null(strstr(buf, "\n  {\n    \"ifname\": \"eth0\","));
	/* a discarded document prints nothing at all */
	fflush(c.out);
	size_t before = len;

	out_begin(&c, false);
	out_u64(&c, OUT_ANY, "half", NULL, 1);
	out_open_obj(&c, "x");
	out_discard(&c);
	assert_int_equal(out_end(&c), 0);
	fflush(c.out);
	assert_int_equal(len, before);
	close_ctx(&c);
	free(buf);
}

static void test_write_error(void **state)
{
	struct bql_ctx c;

	(void)state;
	bql_ctx_init(&c);
	c.json = true;
	c.out = fopen("/dev/full", "w");
	assert_non_null(c.out);
	out_begin(&c, false);
	out_u64(&c, OUT_ANY, "x", NULL, 1);
	assert_int_not_equal(out_end(&c), 0);
	fclose(c.out);
}

/* outside text: one escaped line in text, valid escaped JSON */
static void test_hostile(void **state)
{
	static const char name[] = "e\033[2J\xc2\x9b\xff\nx";
	struct bql_ctx c;

	(void)state;
	open_ctx(&c, false, false);
	c.color = true;
	out_str(&c, OUT_ANY, "ifname", "<%s>", name);
	out_color(&c, "\033[1m");
	out_text(&c, " [%s]\n", name);
	close_ctx(&c);
	/* out_text() keeps the newlines of its format, escapes all else */
	assert_string_equal(buf, "<e\\x1b[2J\\u009b\\xff\\nx>\033[1m [e\\x1b[2J\\u009b\\xff\nx]\n");
	free(buf);

	open_ctx(&c, true, false);
	out_begin(&c, false);
	out_str(&c, OUT_ANY, "ifname", "%s", name);
	out_color(&c, "\033[1m");	/* nothing in JSON */
	assert_int_equal(out_end(&c), 0);
	close_ctx(&c);
	assert_string_equal(buf, "{\"ifname\":\"e\\u001b[2J\\u009b\\uefff\\nx\"}\n");
	free(buf);
}

/* a json-c allocation that fails: nothing is printed, -ENOMEM */
static void test_nomem(void **state)
{
	struct bql_ctx c;

	(void)state;
	open_ctx(&c, true, false);
	out_begin(&c, true);
	for (int i = 0; i < 3; i++) {
		out_open_obj(&c, NULL);
		jsonfail_after = i == 1 ? 0 : -1;
		out_u64(&c, OUT_ANY, "limit", NULL, 1514);
		out_close_obj(&c);
	}
	jsonfail_after = -1;
	assert_int_equal(out_end(&c), -ENOMEM);
	fflush(c.out);
	assert_int_equal(len, 0);
	/* the next document is whole again */
	out_begin(&c, false);
	out_u64(&c, OUT_ANY, "x", NULL, 1);
	assert_int_equal(out_end(&c), 0);
	close_ctx(&c);
	assert_string_equal(buf, "{\"x\":1}\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_json_plain),
		cmocka_unit_test(test_dbl_fixed),
		cmocka_unit_test(test_json_pretty_and_discard),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_nomem),
	};

	return cmocka_run_group_tests_name("out", tests, NULL, NULL);
}
