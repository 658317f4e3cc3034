// SPDX-License-Identifier: GPL-2.0-only
/* lib/esc: what outside bytes become on a terminal, in JSON, in Prometheus. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "lib/io/esc.h"

static const struct {
	const char *in, *text;
} text_cases[] = {
	{ "eth0", "eth0" },
	{ "", "" },
	{ "\033[2J", "\\x1b[2J" },
	{ "a\nb\tc\rd", "a\\nb\\tc\\rd" },
	{ "back\\slash", "back\\\\slash" },
	{ "\x7f", "\\x7f" },
	{ "\x01\x1f", "\\x01\\x1f" },
	{ "c1\xc2\x9b" "31m", "c1\\u009b31m" },		/* U+009B CSI */
	{ "\xc2\x80\xc2\x9f\xc2\xa0", "\\u0080\\u009f\xc2\xa0" },	/* NBSP passes */
	{ "bad\xff", "bad\\xff" },
	{ "\xc0\xaf", "\\xc0\\xaf" },				/* overlong '/' */
	{ "\xed\xa0\x80", "\\xed\\xa0\\x80" },			/* a surrogate */
	{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" },		/* > U+10FFFF */
	{ "cut\xe2\x82", "cut\\xe2\\x82" },			/* truncated */
	{ "\xe2\x80\xae" "evil", "\\u202eevil" },		/* RLO */
	{ "\xe2\x80\xa8\xe2\x81\xa6\xef\xbb\xbf", "\\u2028\\u2066\\ufeff" },
	{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
};

static void test_text(void **state)
{
	char buf[256];

	(void)state;
	for (size_t i = 0; i < sizeof(text_cases) / sizeof(text_cases[0]); i++) {
		size_t n = esc_text(buf, sizeof(buf), text_cases[i].in);

		assert_string_equal(buf, text_cases[i].text);
		assert_int_equal(n, strlen(text_cases[i].text));
		assert_true(esc_text_clean(text_cases[i].in) ==
			    !strcmp(text_cases[i].in, text_cases[i].text));
	}
	assert_null(esc_text(buf, sizeof(buf), NULL) ? "x" : NULL);
}

static void test_text_cut(void **state)
{
	char buf[8];

	(void)state;
	/* never cut inside an escape; the full length is still returned */
	assert_int_equal(esc_text(buf, sizeof(buf), "ab\033\033\033"), 14);
	assert_string_equal(buf, "ab\\x1b");
	assert_int_equal(esc_text(buf, 1, "abc"), 3);
	assert_string_equal(buf, "");
	/* widths count escapes in full and a code point as one column */
	assert_int_equal(esc_text_width("a\033"), 5);
	assert_int_equal(esc_text_width("caf\xc3\xa9"), 4);
	/* NUL bytes in memory are escaped too */
	assert_int_equal(esc_text_mem(buf, sizeof(buf), "a\0b", 3), 6);
	assert_string_equal(buf, "a\\x00b");
}

static char *capture(int (*fn)(const char *, FILE *), const char *s)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(fn(s, f), 0);
	fclose(f);
	return out;
}

/* a string through json-c and esc_json_fputs parses back to @want */
static void json_round(const char *in, const char *want_text, const char *want_val)
{
	struct json_object *o = json_object_new_string(in), *back;
	char *out;

	out = capture(esc_json_fputs, json_object_to_json_string_ext(o,
			JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	assert_string_equal(out, want_text);
	for (const unsigned char *p = (const unsigned char *)out; *p; p++)
		assert_true(*p >= 0x20 && *p != 0x7f);
	back = json_tokener_parse(out);
	assert_non_null(back);
	assert_string_equal(json_object_get_string(back), want_val);
	json_object_put(back);
	json_object_put(o);
	free(out);
}

static void test_json(void **state)
{
	(void)state;
	json_round("eth0", "\"eth0\"", "eth0");
	json_round("\033[2J", "\"\\u001b[2J\"", "\033[2J");
	json_round("x\xc2\x9by", "\"x\\u009by\"", "x\xc2\x9by");
	/* an invalid byte 0xHH is U+EFHH: one per byte, names stay distinct */
	json_round("x\xffy", "\"x\\uefffy\"", "x\xee\xbf\xbfy");
	json_round("x\xfey", "\"x\\ueffey\"", "x\xee\xbf\xbey");
	json_round("x\x80\xc3", "\"x\\uef80\\uefc3\"", "x\xee\xbe\x80\xee\xbf\x83");
	json_round("\x7f\"\\", "\"\\u007f\\\"\\\\\"", "\x7f\"\\");
	json_round("\xe2\x80\xae", "\"\\u202e\"", "\xe2\x80\xae");
	json_round("caf\xc3\xa9", "\"caf\xc3\xa9\"", "caf\xc3\xa9");
}

static void test_json_keys_and_dup(void **state)
{
	struct json_object *o = json_object_new_object();
	char *s;

	(void)state;
	/* keys are escaped by the same pass: json-c leaves bytes >= 0x80 raw */
	json_object_object_add(o, "k\xff\xc2\x9b", json_object_new_int(1));
	s = esc_json_dup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	assert_string_equal(s, "{\"k\\uefff\\u009b\":1}");
	free(s);
	json_object_put(o);
}

static void test_json_str(void **state)
{
	char buf[ESC_MAX_PER_BYTE * 8 + 3];
	struct json_object *o;

	(void)state;
	assert_int_equal(esc_json_str(buf, sizeof(buf), "a\"\\\n\xff\xc2\x9b"),
			 strlen("\"a\\\"\\\\\\u000a\\uefff\\u009b\""));
	assert_string_equal(buf, "\"a\\\"\\\\\\u000a\\uefff\\u009b\"");
	o = json_tokener_parse(buf);
	assert_non_null(o);
	assert_string_equal(json_object_get_string(o), "a\"\\\n\xee\xbf\xbf\xc2\x9b");
	json_object_put(o);
	/* the bound: every byte escaped */
	assert_int_equal(esc_json_str(buf, sizeof(buf), "\xff\xff\xff\xff\xff\xff\xff\xff"),
			 ESC_MAX_PER_BYTE * 8 + 2);
}

static void test_prom(void **state)
{
	char *s;

	(void)state;
	s = capture(esc_prom_fputs, "eth0");
	assert_string_equal(s, "eth0");
	free(s);
	s = capture(esc_prom_fputs, "a\"b\\c\nd");
	assert_string_equal(s, "a\\\"b\\\\c\\nd");
	free(s);
	s = capture(esc_prom_fputs, "\033[2J\xc2\x9b\xff\t");
	assert_string_equal(s, "\\\\x1b[2J\\\\u009b\\\\xff\\\\t");
	free(s);
}

/* a queue name as a bqltrace writes it (issue #37 class 2) */
static void test_bqlt_name(void **state)
{
	static const struct { const char *in, *out; } t[] = {
		{ "eth0:tx-0", "eth0:tx-0" },
		{ "\x1b[31mRED:tx-0", "\\x1b[31mRED:tx-0" },
		{ "a\\b:tx-0", "a\\x5cb:tx-0" },
		{ "a=b c\td:tx-0", "a\\x3db\\x20c\\x09d:tx-0" },
		{ "b\xff\xfe:tx-0", "b\\xff\\xfe:tx-0" },
		{ "c\xc2\x9b" "31m", "c\\xc2\\x9b" "31m" },		/* C1: its bytes */
		{ "r\xe2\x80\xaeo", "r\\xe2\\x80\\xaeo" },	/* RLO */
		{ "\xc3\xbc\xe2\x82\xac#:tx-1", "\xc3\xbc\xe2\x82\xac#:tx-1" },	/* printable UTF-8 stays */
		{ "d\x7f", "d\\x7f" },
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(esc_bqlt_name(buf, sizeof(buf), t[i].in), strlen(t[i].out));
		assert_string_equal(buf, t[i].out);
	}
	/* cut before an escape, never inside one; the full length counted */
	assert_int_equal(esc_bqlt_name(buf, 7, "ab\x1b\x1b"), 10);
	assert_string_equal(buf, "ab\\x1b");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_bqlt_name),
		cmocka_unit_test(test_text_cut),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_keys_and_dup),
		cmocka_unit_test(test_json_str),
		cmocka_unit_test(test_prom),
	};

	return cmocka_run_group_tests_name("esc", tests, NULL, NULL);
}
