// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/io/qname.c: which names are DEV:tx-N, and the keys both writers (out_*
 * and jsonw) give a queue: the same bytes, hostile names escaped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/io/jsonw.h"
#include "lib/io/out.h"
#include "lib/io/qname.h"

#define N(a)	(sizeof(a) / sizeof((a)[0]))

static void test_split(void **state)
{
	static const struct {
		const char *name;
		bool dev;
		size_t devlen;
		unsigned int queue;
	} t[] = {
		{ "eth0:tx-0", true, 4, 0 },
		{ "eth0:tx-7", true, 4, 7 },
		{ "sim:tx-63", true, 3, 63 },
		{ "e:tx-4294967295", true, 1, 4294967295u },
		/* DEV is what comes before the last colon: "%s:tx-%u" splits back */
		{ "a:b:tx-2", true, 3, 2 },
		{ "\x1b[2J:tx-1", true, 4, 1 },
		{ "b\xff\xfe:tx-3", true, 3, 3 },
		{ "e:tx-4294967296", false, 0, 0 },
		{ "e:tx-99999999999999999999999", false, 0, 0 },
		{ "eth0:tx-", false, 0, 0 },
		{ "eth0:tx-01", false, 0, 0 },
		{ "eth0:tx-00", false, 0, 0 },
		{ "eth0:tx-+1", false, 0, 0 },
		{ "eth0:tx--1", false, 0, 0 },
		{ "eth0:tx- 1", false, 0, 0 },
		{ "eth0:tx-1 ", false, 0, 0 },
		{ "eth0:tx-1a", false, 0, 0 },
		{ "eth0:tx-0x1", false, 0, 0 },
		{ "eth0:tx-1\n", false, 0, 0 },
		{ "eth0:rx-1", false, 0, 0 },
		{ "eth0:TX-1", false, 0, 0 },
		{ "eth0:1", false, 0, 0 },
		{ "eth0tx-1", false, 0, 0 },
		{ ":tx-1", false, 0, 0 },
		{ "eth0:tx-1:", false, 0, 0 },
		{ "tx-1", false, 0, 0 },
		{ "q19999", false, 0, 0 },
		{ "", false, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < N(t); i++) {
		size_t dl = 12345;
		unsigned int q = 12345;
		bool got = qname_split(t[i].name, &dl, &q);

		if (got != t[i].dev)
			fail_msg("%zu '%s': %d, expected %d", i, t[i].name, got, t[i].dev);
		if (!got) {
			/* untouched */
			assert_int_equal(dl, 12345);
			assert_int_equal(q, 12345);
			continue;
		}
		assert_int_equal(dl, t[i].devlen);
		assert_int_equal(q, t[i].queue);
	}
}

static char *run_out(bool pretty, void (*fn)(struct bql_ctx *c, const void *arg), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	struct bql_ctx c;

	bql_ctx_init(&c);
	c.json = true;
	c.pretty = pretty;
	c.out = open_memstream(&buf, &len);
	assert_non_null(c.out);
	out_begin(&c, false);
	fn(&c, arg);
	out_u64(&c, OUT_JSON, "limit", NULL, 1514);
	assert_int_equal(out_end(&c), 0);
	fclose(c.out);
	return buf;
}

static void emit_trace(struct bql_ctx *c, const void *arg)
{
	qname_out_trace(c, arg);
}

static void emit_queue(struct bql_ctx *c, const void *arg)
{
	qname_out_queue(c, arg, 3);
}

static void emit_dev(struct bql_ctx *c, const void *arg)
{
	qname_out_dev(c, arg);
}

static char *run_jsonw(bool pretty, const char *name)
{
	char *buf = NULL;
	size_t len = 0;
	struct jsonw w;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(jsonw_init(&w, f, pretty), 0);
	jsonw_obj_open(&w, NULL);
	qname_jsonw_trace(&w, name);
	jsonw_u64(&w, "limit", 1514);
	jsonw_obj_close(&w);
	assert_int_equal(jsonw_end(&w), 0);
	fclose(f);
	return buf;
}

static void test_trace(void **state)
{
	static const struct {
		const char *name, *json;
	} t[] = {
		{ "eth0:tx-0", "{\"name\":\"eth0:tx-0\",\"ifname\":\"eth0\",\"queue\":0,\"limit\":1514}\n" },
		{ "sim:tx-12", "{\"name\":\"sim:tx-12\",\"ifname\":\"sim\",\"queue\":12,\"limit\":1514}\n" },
		{ "q19999", "{\"name\":\"q19999\",\"limit\":1514}\n" },
		{ "eth0:tx-01", "{\"name\":\"eth0:tx-01\",\"limit\":1514}\n" },
		/* hostile bytes: escaped in name and ifname alike (lib/io/esc.h) */
		{ "c\xc2\x9b" "31m:tx-1",
		  "{\"name\":\"c\\u009b31m:tx-1\",\"ifname\":\"c\\u009b31m\",\"queue\":1,\"limit\":1514}\n" },
		{ "b\xff\xfe:tx-2",
		  "{\"name\":\"b\\uefff\\ueffe:tx-2\",\"ifname\":\"b\\uefff\\ueffe\",\"queue\":2,\"limit\":1514}\n" },
		{ "\x1b[2J\"\\:tx-4",
		  "{\"name\":\"\\u001b[2J\\\"\\\\:tx-4\",\"ifname\":\"\\u001b[2J\\\"\\\\\",\"queue\":4,\"limit\":1514}\n" },
	};

	(void)state;
	for (size_t i = 0; i < N(t); i++) {
		for (int pretty = 0; pretty < 2; pretty++) {
			char *a = run_out(pretty, emit_trace, t[i].name);
			char *b = run_jsonw(pretty, t[i].name);

			if (!pretty)
				assert_string_equal(a, t[i].json);
			/* the streamed writer prints the same bytes */
			assert_string_equal(b, a);
			free(a);
			free(b);
		}
	}
}

static void test_queue(void **state)
{
	char *s;
	char longname[200];

	(void)state;
	s = run_out(false, emit_queue, "eth0");
	assert_string_equal(s, "{\"name\":\"eth0:tx-3\",\"ifname\":\"eth0\",\"queue\":3,\"limit\":1514}\n");
	free(s);
	s = run_out(false, emit_queue, "\x1b]0;x\x07");
	assert_string_equal(s, "{\"name\":\"\\u001b]0;x\\u0007:tx-3\",\"ifname\":\"\\u001b]0;x\\u0007\","
			    "\"queue\":3,\"limit\":1514}\n");
	free(s);
	/* longer than the stack buffer */
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	s = run_out(false, emit_queue, longname);
	assert_non_null(strstr(s, "xx:tx-3\",\"ifname\":\"xxx"));
	free(s);
	s = run_out(false, emit_dev, "eth1");
	assert_string_equal(s, "{\"name\":\"eth1\",\"ifname\":\"eth1\",\"queue\":null,\"limit\":1514}\n");
	free(s);
}

/* text mode: nothing (the keys are JSON's) */
static void test_text(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	struct bql_ctx c;

	(void)state;
	bql_ctx_init(&c);
	c.out = open_memstream(&buf, &len);
	assert_non_null(c.out);
	qname_out_queue(&c, "eth0", 1);
	qname_out_dev(&c, "eth0");
	qname_out_trace(&c, "eth0:tx-1");
	fclose(c.out);
	assert_int_equal(len, 0);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_trace),
		cmocka_unit_test(test_queue),
		cmocka_unit_test(test_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
