/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * jsonw: a streaming JSON writer whose bytes are those lib/io/out.c prints
 * for the same document (json-c 0.16's serialisation, plain or -p pretty,
 * with "/" unescaped; strings then as lib/io/esc.h's esc_json_fputs() makes
 * them: valid UTF-8, no raw C1 or direction character), for outputs too
 * large to build as a json-c tree first (replay -j with many queues).
 *
 * Text is gathered in a buffer and written by jsonw_flush() (call it
 * between values, e.g. after each object of a long array) and jsonw_end().
 * Errors are sticky: out of memory (-ENOMEM) or a write error (-errno).
 * Keys are NULL inside arrays and for the root.
 */
#ifndef BQLTOOL_LIB_JSONW_H
#define BQLTOOL_LIB_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSONW_MAX_DEPTH	16

struct jsonw {
	FILE *f;
	bool pretty;
	char *buf;
	size_t len, cap;
	int depth;			/* containers open */
	bool had[JSONW_MAX_DEPTH];	/* the container at that depth has a value */
	int err;
};

/* jsonw_init - start a document to @f; 0 or -ENOMEM (nothing written) */
int jsonw_init(struct jsonw *w, FILE *f, bool pretty);
void jsonw_obj_open(struct jsonw *w, const char *key);
void jsonw_obj_close(struct jsonw *w);
void jsonw_arr_open(struct jsonw *w, const char *key);
void jsonw_arr_close(struct jsonw *w);
void jsonw_u64(struct jsonw *w, const char *key, uint64_t v);
/* a string; NULL is null */
void jsonw_str(struct jsonw *w, const char *key, const char *s);
/* the first @n bytes of @s as a string */
void jsonw_strn(struct jsonw *w, const char *key, const char *s, size_t n);
void jsonw_null(struct jsonw *w, const char *key);
/*
 * a value already in its JSON form, written as it is: a number's text
 * (json_object_new_double_s()'s), or a string made once by
 * esc_json_c_str() (lib/io/esc.h) and written many times
 */
void jsonw_raw(struct jsonw *w, const char *key, const char *text);
/* jsonw_fmt_1f - snprintf(@buf, @n, "%.1f", @v), the same text, faster */
size_t jsonw_fmt_1f(char *buf, size_t n, double v);
/* jsonw_flush - write what is gathered (between values); 0 or the error */
int jsonw_flush(struct jsonw *w);
/*
 * jsonw_end - the final newline, everything written and flushed to @f,
 * the buffer freed; 0 or the first error (-ENOMEM, -errno of the write).
 */
int jsonw_end(struct jsonw *w);

#endif
