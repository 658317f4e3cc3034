// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/io/jsonw.c against lib/io/out.c: the same document, built by the same
 * calls through both (out_* builds a json-c tree and prints it), must be
 * the same bytes, plain and pretty: nesting, empty containers, null,
 * numbers from 0 to UINT64_MAX, pre-formatted doubles, and strings with
 * every escape (quotes, backslash, "/", C0 short and \u00XX forms, DEL,
 * C1, direction marks, invalid UTF-8); also flushing between values.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <json-c/json.h>

#include "lib/io/esc.h"
#include "lib/io/jsonw.h"
#include "lib/io/out.h"

/* one document, as calls to both writers: a tiny driver */
enum op { O_OBJ, O_ARR, O_CLOSE_OBJ, O_CLOSE_ARR, O_U64, O_STR, O_NULL, O_NUM, O_FLUSH };
struct call {
	enum op op;
	const char *key;
	uint64_t u;
	const char *s;
};

static void via_out(struct bql_ctx *c, const struct call *k, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		switch (k[i].op) {
		case O_OBJ:
			if (i == 0)
				out_begin(c, false);
			else
				out_open_obj(c, k[i].key);
			break;
		case O_ARR: out_open_arr(c, k[i].key); break;
		case O_CLOSE_OBJ: out_close_obj(c); break;
		case O_CLOSE_ARR: out_close_arr(c); break;
		case O_U64: out_u64(c, OUT_JSON, k[i].key, NULL, k[i].u); break;
		case O_STR: out_str(c, OUT_JSON, k[i].key, NULL, k[i].s); break;
		case O_NULL: out_null(c, k[i].key); break;
		case O_NUM:
			out_json(c, k[i].key, json_object_new_double_s(1.0, k[i].s));
			break;
		case O_FLUSH: break;
		}
	}
	assert_int_equal(out_end(c), 0);
}

static void via_jsonw(struct jsonw *w, const struct call *k, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		switch (k[i].op) {
		case O_OBJ: jsonw_obj_open(w, k[i].key); break;
		case O_ARR: jsonw_arr_open(w, k[i].key); break;
		case O_CLOSE_OBJ: jsonw_obj_close(w); break;
		case O_CLOSE_ARR: jsonw_arr_close(w); break;
		case O_U64: jsonw_u64(w, k[i].key, k[i].u); break;
		case O_STR: jsonw_str(w, k[i].key, k[i].s); break;
		case O_NULL: jsonw_null(w, k[i].key); break;
		case O_NUM: jsonw_raw(w, k[i].key, k[i].s); break;
		case O_FLUSH: assert_int_equal(jsonw_flush(w), 0); break;
		}
	}
	assert_int_equal(jsonw_end(w), 0);
}

static void compare(const struct call *k, size_t n)
{
	for (int pretty = 0; pretty < 2; pretty++) {
		char *a = NULL, *b = NULL;
		size_t alen = 0, blen = 0;
		struct bql_ctx c;
		struct jsonw w;
		FILE *f;

		bql_ctx_init(&c);
		c.json = true;
		c.pretty = pretty;
		c.out = open_memstream(&a, &alen);
		assert_non_null(c.out);
		via_out(&c, k, n);
		fclose(c.out);

		f = open_memstream(&b, &blen);
		assert_non_null(f);
		assert_int_equal(jsonw_init(&w, f, pretty), 0);
		via_jsonw(&w, k, n);
		fclose(f);

		assert_string_equal(b, a);
		assert_int_equal(blen, alen);
		free(a);
		free(b);
	}
}

#define N(a)	(sizeof(a) / sizeof((a)[0]))

static const char *const hostile[] = {
	"", "plain", "a/b", "q\"uo\\te", "\b\f\n\r\t", "\x01\x02\x1f\x7f",
	"c1 \xc2\x85 \xc2\x9b", "rlo \xe2\x80\xae lre \xe2\x80\xaa bom \xef\xbb\xbf",
	"bad \xff\xfe \xc0\xaf \xed\xa0\x80 cut \xe2\x82", "utf8 \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
	"/dev/stdout", "\\u0000",
};

static void test_replay_shape(void **state)
{
	/* what replay -j prints: {"queues":[{...,"limit":{...},...},...]} */
	struct call k[512];
	size_t n = 0;

	(void)state;
	k[n++] = (struct call){ O_OBJ, NULL, 0, NULL };
	k[n++] = (struct call){ O_ARR, "queues", 0, NULL };
	for (size_t q = 0; q < N(hostile); q++) {
		k[n++] = (struct call){ O_OBJ, NULL, 0, NULL };
		k[n++] = (struct call){ O_STR, "name", 0, hostile[N(hostile) - 1 - q] };
		k[n++] = (struct call){ O_STR, "file", 0, hostile[q] };
		k[n++] = (struct call){ O_U64, "hz", q ? 1000 : 0, NULL };
		k[n++] = (struct call){ O_U64, "records", q == 1 ? UINT64_MAX : UINT32_MAX, NULL };
		k[n++] = (struct call){ O_OBJ, "limit", 0, NULL };
		if (q & 1) {
			k[n++] = (struct call){ O_NULL, "final", 0, NULL };
			k[n++] = (struct call){ O_NULL, "mean", 0, NULL };
		} else {
			k[n++] = (struct call){ O_U64, "final", 1514 * q, NULL };
			k[n++] = (struct call){ O_NUM, "mean", 0, q ? "12345.5" : "nan" };
		}
		k[n++] = (struct call){ O_CLOSE_OBJ, NULL, 0, NULL };
		k[n++] = (struct call){ O_U64, "stops", 10000000000000000000ull + q, NULL };
		k[n++] = (struct call){ O_CLOSE_OBJ, NULL, 0, NULL };
		if (q % 3 == 2)
			k[n++] = (struct call){ O_FLUSH, NULL, 0, NULL };
	}
	k[n++] = (struct call){ O_CLOSE_ARR, NULL, 0, NULL };
	k[n++] = (struct call){ O_CLOSE_OBJ, NULL, 0, NULL };
	compare(k, n);
}

static void test_empty(void **state)
{
	const struct call none[] = {
		{ O_OBJ, NULL, 0, NULL },
		{ O_ARR, "queues", 0, NULL }, { O_CLOSE_ARR, NULL, 0, NULL },
		{ O_OBJ, "empty", 0, NULL }, { O_CLOSE_OBJ, NULL, 0, NULL },
		{ O_ARR, "nested", 0, NULL }, { O_ARR, NULL, 0, NULL }, { O_CLOSE_ARR, NULL, 0, NULL },
		{ O_OBJ, NULL, 0, NULL }, { O_CLOSE_OBJ, NULL, 0, NULL },
		{ O_U64, NULL, 0, NULL }, { O_STR, NULL, 0, "" }, { O_NULL, NULL, 0, NULL },
		{ O_CLOSE_ARR, NULL, 0, NULL },
		{ O_CLOSE_OBJ, NULL, 0, NULL },
	};
	const struct call root[] = {
		{ O_OBJ, NULL, 0, NULL }, { O_CLOSE_OBJ, NULL, 0, NULL },
	};

	(void)state;
	compare(none, N(none));
	compare(root, N(root));
}

/* pseudo-random trees: keys with escapes, every value kind, depth <= 6 */
static void test_random(void **state)
{
	static struct call k[4096];
	static char kb[4096][24];	/* keys unique in a document: json-c keeps one of a pair */
	uint64_t seed = 88172645463325252ull;
	static const char *const keys[] = { "a", "key/with/slash", "q\"k", "\xc2\x85", "t\tk" };

	(void)state;
	for (int round = 0; round < 200; round++) {
		bool arr[8] = { false };
		int depth = 1;
		size_t n = 0;

		k[n++] = (struct call){ O_OBJ, NULL, 0, NULL };
		while (n < N(k) - 16) {
			const char *key;
			unsigned int r;

			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			r = (unsigned int)(seed % 100);
			snprintf(kb[n], sizeof(kb[n]), "%s%zu", keys[(seed >> 20) % N(keys)], n);
			key = arr[depth - 1] ? NULL : kb[n];
			if (r < 8 && depth < 6) {
				k[n++] = (struct call){ (r & 1) ? O_ARR : O_OBJ, key, 0, NULL };
				arr[depth++] = r & 1;
			} else if (r < 18 && depth > 1) {
				depth--;
				k[n++] = (struct call){ arr[depth] ? O_CLOSE_ARR : O_CLOSE_OBJ, NULL, 0, NULL };
			} else if (r < 19) {
				break;
			} else if (r < 45) {
				k[n++] = (struct call){ O_U64, key, seed >> (seed % 64), NULL };
			} else if (r < 80) {
				k[n++] = (struct call){ O_STR, key, 0, hostile[(seed >> 30) % N(hostile)] };
			} else if (r < 88) {
				k[n++] = (struct call){ O_NULL, key, 0, NULL };
			} else if (r < 95) {
				k[n++] = (struct call){ O_NUM, key, 0, "-0.5" };
			} else {
				k[n++] = (struct call){ O_FLUSH, NULL, 0, NULL };
			}
		}
		while (depth > 1) {
			depth--;
			k[n++] = (struct call){ arr[depth] ? O_CLOSE_ARR : O_CLOSE_OBJ, NULL, 0, NULL };
		}
		k[n++] = (struct call){ O_CLOSE_OBJ, NULL, 0, NULL };
		compare(k, n);
	}
}

/* a value longer than the buffer: it grows */
static void test_long(void **state)
{
	size_t n = 600000;
	char *s = malloc(n + 1);
	struct call k[3];

	(void)state;
	assert_non_null(s);
	for (size_t i = 0; i < n; i++)
		s[i] = (char)(i % 3 ? 'x' : '\x01');	/* 6 bytes escaped */
	s[n] = '\0';
	k[0] = (struct call){ O_OBJ, NULL, 0, NULL };
	k[1] = (struct call){ O_STR, "long", 0, s };
	k[2] = (struct call){ O_CLOSE_OBJ, NULL, 0, NULL };
	compare(k, 3);
	free(s);
}

/* esc_json_c_str() against json-c's string then esc_json_dup(), byte by byte */
static void check_str(const char *s)
{
	struct json_object *o = json_object_new_string(s);
	const char *ser;
	char *want, got[6 * 16 + 3];
	size_t n;

	assert_non_null(o);
	ser = json_object_to_json_string_ext(o, JSON_C_TO_STRING_NOSLASHESCAPE);
	want = esc_json_dup(ser);
	assert_non_null(want);
	n = esc_json_c_str(got, s, strlen(s));
	got[n] = '\0';
	assert_string_equal(got, want);
	free(want);
	json_object_put(o);
}

static void test_esc_json_c_str(void **state)
{
	uint64_t seed = 1;
	char s[8];

	(void)state;
	for (int a = 1; a < 256; a++) {
		for (int b = 0; b < 256; b++) {
			s[0] = (char)a;
			s[1] = (char)b;
			s[2] = '\0';
			check_str(s);
		}
	}
	/* three and four bytes: the longer UTF-8 forms, valid and not */
	for (int i = 0; i < 100000; i++) {
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		for (int k = 0; k < 4; k++) {
			unsigned char c = (unsigned char)(seed >> (8 * k));

			/* mostly lead and continuation bytes */
			s[k] = (char)(k == 0 ? (c | 0xc0) : (c & 1) ? c : (0x80 | (c & 0x3f)));
			if (!s[k])
				s[k] = 'z';
		}
		s[(seed >> 40) % 2 ? 4 : 3] = '\0';
		s[4] = '\0';
		check_str(s);
	}
	check_str("");
}

static void check_1f(double v)
{
	char want[400], got[400];
	size_t n;

	snprintf(want, sizeof(want), "%.1f", v);
	n = jsonw_fmt_1f(got, sizeof(got), v);
	assert_string_equal(got, want);
	assert_int_equal(n, strlen(want));
}

/* jsonw_fmt_1f() is printf's "%.1f": ties to even on the exact binary value */
static void test_fmt_1f(void **state)
{
	static const double edge[] = {
		0, -0.0, 0.05, 0.0625, 0.0625 - 1e-17, 0.25, 0.75, 1.25, 2.5, 0.15, 0.35,
		0.45, 1e15 + 0.25, 0x1p50 - 0.25, 0x1p50, 0x1p50 + 1, 0x1p53, 1e300,
		-1.25, 12345.55, 9.95, 99.95, 999999.95, 4294967295.0, 4294967295.75,
	};
	uint64_t seed = 7;

	(void)state;
	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		check_1f(edge[i]);
	for (int i = 1; i < 200000; i++) {
		double v;

		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		check_1f((double)i / 20);			/* every tie x.x5 */
		check_1f((double)(seed >> 11) / (double)(1ull << (seed % 60)));
		memcpy(&v, &seed, sizeof(v));
		check_1f(v);					/* any bits: nan, inf, tiny */
	}
}

/* a write error is returned, sticky */
static void test_write_error(void **state)
{
	FILE *f = fopen("/dev/full", "w");
	struct jsonw w;

	(void)state;
	if (!f)
		skip();
	assert_int_equal(jsonw_init(&w, f, false), 0);
	jsonw_obj_open(&w, NULL);
	jsonw_str(&w, "k", "v");
	jsonw_obj_close(&w);
	assert_int_equal(jsonw_end(&w), -ENOSPC);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay_shape),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_long),
		cmocka_unit_test(test_esc_json_c_str),
		cmocka_unit_test(test_fmt_1f),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
