// SPDX-License-Identifier: GPL-2.0-only
/*
 * Streaming JSON with json-c 0.16's layout (see lib/io/jsonw.h): plain is
 * {"k":v,"k":[v,v]}; pretty (PRETTY | SPACED) puts a newline after every
 * "{" or "[" and after each ",", indents by two spaces per level, writes
 * "k": v, and closes with a newline (none for an empty container) and the
 * parent's indentation: an empty array is "[\n  ]" at level 1.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/io/esc.h"
#include "lib/io/jsonw.h"

#define JSONW_BUF	(256u << 10)

int jsonw_init(struct jsonw *w, FILE *f, bool pretty)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->pretty = pretty;
	w->buf = malloc(JSONW_BUF);
	if (!w->buf)
		return w->err = -ENOMEM;
	w->cap = JSONW_BUF;
	return 0;
}

/* room for @n more bytes; false (sticky -ENOMEM) if none */
static inline bool reserve(struct jsonw *w, size_t n)
{
	size_t cap;
	char *b;

	if (w->err)
		return false;
	if (w->len + n <= w->cap)
		return true;
	cap = w->cap;
	while (cap < w->len + n)
		cap *= 2;
	b = realloc(w->buf, cap);
	if (!b) {
		w->err = -ENOMEM;
		return false;
	}
	w->buf = b;
	w->cap = cap;
	return true;
}

static inline void put(struct jsonw *w, const char *s, size_t n)
{
	if (!reserve(w, n))
		return;
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

/* as json-c escapes it, then esc_json_fputs() corrects it (lib/io/esc.h) */
static void str(struct jsonw *w, const char *s, size_t n)
{
	if (!reserve(w, ESC_MAX_PER_BYTE * n + 2))
		return;
	w->len += esc_json_c_str(w->buf + w->len, s, n);
}

/* what goes before a value: the separator, the indentation, the key */
static void begin(struct jsonw *w, const char *key)
{
	size_t kn = key ? strlen(key) : 0;
	char *p;

	if (!reserve(w, 2 + 2 * (size_t)w->depth + ESC_MAX_PER_BYTE * kn + 4))
		return;
	p = w->buf + w->len;
	if (w->depth > 0) {
		bool *had = &w->had[w->depth - 1];

		if (*had)
			*p++ = ',';
		if (w->pretty) {
			if (*had)
				*p++ = '\n';
			memset(p, ' ', 2 * (size_t)w->depth);
			p += 2 * w->depth;
		}
		*had = true;
	}
	if (key) {
		p += esc_json_c_str(p, key, kn);
		*p++ = ':';
		if (w->pretty)
			*p++ = ' ';
	}
	w->len = (size_t)(p - w->buf);
}

static void open_c(struct jsonw *w, const char *key, char c)
{
	begin(w, key);
	put(w, &c, 1);
	if (w->pretty)
		put(w, "\n", 1);
	if (w->depth >= JSONW_MAX_DEPTH) {
		w->err = w->err ? w->err : -EINVAL;
		return;
	}
	w->had[w->depth++] = false;
}

static void close_c(struct jsonw *w, char c)
{
	if (w->depth <= 0)
		return;
	w->depth--;
	if (w->pretty) {
		if (w->had[w->depth])
			put(w, "\n", 1);
		if (reserve(w, 2 * (size_t)w->depth)) {
			memset(w->buf + w->len, ' ', 2 * (size_t)w->depth);
			w->len += 2 * (size_t)w->depth;
		}
	}
	put(w, &c, 1);
}

void jsonw_obj_open(struct jsonw *w, const char *key)
{
	open_c(w, key, '{');
}

void jsonw_obj_close(struct jsonw *w)
{
	close_c(w, '}');
}

void jsonw_arr_open(struct jsonw *w, const char *key)
{
	open_c(w, key, '[');
}

void jsonw_arr_close(struct jsonw *w)
{
	close_c(w, ']');
}

void jsonw_u64(struct jsonw *w, const char *key, uint64_t v)
{
	char d[24], *p = d + sizeof(d);

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	begin(w, key);
	put(w, p, (size_t)(d + sizeof(d) - p));
}

void jsonw_str(struct jsonw *w, const char *key, const char *s)
{
	begin(w, key);
	if (s)
		str(w, s, strlen(s));
	else
		put(w, "null", 4);
}

void jsonw_strn(struct jsonw *w, const char *key, const char *s, size_t n)
{
	begin(w, key);
	str(w, s, n);
}

void jsonw_null(struct jsonw *w, const char *key)
{
	jsonw_str(w, key, NULL);
}

void jsonw_raw(struct jsonw *w, const char *key, const char *text)
{
	begin(w, key);
	put(w, text, strlen(text));
}

/*
 * "%.1f" of @v as glibc's printf makes it (the exact binary value rounded
 * to nearest, ties to even) without printf for 1/16 <= @v < 2^50: @v is
 * m * 2^e exactly, so 10 * @v is (10 * m) >> -e with the remainder
 * deciding the rounding. Anything else goes to snprintf.
 */
size_t jsonw_fmt_1f(char *buf, size_t n, double v)
{
	uint64_t bits, m, q;
	int e;

	if (!(v >= 0.0625 && v < 0x1p50) || n < 24)
		return (size_t)snprintf(buf, n, "%.1f", v);
	memcpy(&bits, &v, sizeof(bits));
	e = (int)(bits >> 52 & 0x7ff) - 1075;
	m = (bits & ((1ull << 52) - 1)) | 1ull << 52;
	if (e >= 0) {
		q = (m << e) * 10;
	} else {
		uint64_t x = m * 10, r, half;	/* < 2^57 */
		int sh = -e;			/* 1..56 */

		q = x >> sh;
		r = x & ((1ull << sh) - 1);
		half = 1ull << (sh - 1);
		q += r > half || (r == half && (q & 1));
	}
	{
		char d[24], *p = d + sizeof(d);
		size_t len;

		*--p = (char)('0' + q % 10);
		*--p = '.';
		q /= 10;
		do
			*--p = (char)('0' + q % 10);
		while (q /= 10);
		len = (size_t)(d + sizeof(d) - p);
		memcpy(buf, p, len);
		buf[len] = '\0';
		return len;
	}
}

int jsonw_flush(struct jsonw *w)
{
	if (w->err || !w->len)
		return w->err;
	/* strings were escaped as out_end() escapes them: written as they are */
	errno = 0;
	if (fwrite(w->buf, 1, w->len, w->f) != w->len)
		w->err = errno ? -errno : -EIO;
	w->len = 0;
	return w->err;
}

int jsonw_end(struct jsonw *w)
{
	put(w, "\n", 1);
	jsonw_flush(w);
	free(w->buf);
	w->buf = NULL;
	w->cap = 0;
	errno = 0;
	if ((fflush(w->f) || ferror(w->f)) && !w->err)
		w->err = errno ? -errno : -EIO;
	return w->err;
}
