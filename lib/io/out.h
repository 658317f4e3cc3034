/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One output path for text and JSON (iproute2's PRINT_ANY model over a
 * json-c tree). Every out_* call carries both the JSON key and the text
 * format; in JSON mode the tree is built and printed once by out_end(), so
 * stdout holds one complete document or nothing.
 */
#ifndef BQLTOOL_LIB_OUT_H
#define BQLTOOL_LIB_OUT_H

#include <stdint.h>

#include "lib/io/ctx.h"

enum out_mode {
	OUT_ANY,	/* text and JSON */
	OUT_TEXT,	/* text only */
	OUT_JSON,	/* JSON only */
};

/* out_begin - start a document; @array: the JSON root is [] (else {}). */
void out_begin(struct bql_ctx *c, bool array);
/*
 * out_end - print the JSON document (if any) and free it; 0 or -errno:
 * -ENOMEM when a value could not be allocated (nothing is printed), -EIO
 * when stdout could not be written. Strings are printed as valid UTF-8
 * with every control character escaped (lib/io/esc.h).
 */
int out_end(struct bql_ctx *c);
/*
 * out_fwrite - fwrite() that keeps the errno of the first write that
 * failed: a writer that bypasses stdio's buffer (the table's large pieces)
 * meets the error before out_end()'s flush, which then has no errno left.
 */
size_t out_fwrite(const void *p, size_t n, FILE *f);
/* the errno of the first failed out_fwrite() since the last call, 0 if none */
int out_write_errno(void);
/* out_discard - drop a half-built document (on error paths). */
void out_discard(struct bql_ctx *c);

/* @key is NULL inside arrays. Objects/arrays are no-ops in text mode. */
void out_open_obj(struct bql_ctx *c, const char *key);
void out_close_obj(struct bql_ctx *c);
void out_open_arr(struct bql_ctx *c, const char *key);
void out_close_arr(struct bql_ctx *c);

/* Text is printed with @fmt (printf format for the value) when mode allows. */
void out_u64(struct bql_ctx *c, enum out_mode m, const char *key,
	     const char *fmt, uint64_t v);
void out_s64(struct bql_ctx *c, enum out_mode m, const char *key,
	     const char *fmt, int64_t v);
void out_dbl(struct bql_ctx *c, enum out_mode m, const char *key,
	     const char *fmt, double v);
void out_str(struct bql_ctx *c, enum out_mode m, const char *key,
	     const char *fmt, const char *v);
void out_bool(struct bql_ctx *c, enum out_mode m, const char *key,
	      const char *fmt, bool v);
void out_null(struct bql_ctx *c, const char *key);		/* JSON only */
/* JSON only: a number written with @decimals digits after the point */
void out_dbl_fixed(struct bql_ctx *c, const char *key, double v, int decimals);
/* Attach an already-built json-c value (JSON only; takes ownership). */
void out_json(struct bql_ctx *c, const char *key, struct json_object *v);
/*
 * Text only helpers. out_text() escapes every control character of the
 * formatted text but newlines (lib/io/esc.h), so names may be passed as
 * arguments; out_str() escapes newlines in its value too. Colours go
 * through out_color(), which prints @sgr raw when colour is on.
 */
void out_text(struct bql_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void out_color(struct bql_ctx *c, const char *sgr);
void out_nl(struct bql_ctx *c);

/* true when the current document is JSON */
static inline bool out_is_json(const struct bql_ctx *c) { return c->json; }

#endif
