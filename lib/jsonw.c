// SPDX-License-Identifier: GPL-2.0-only
/*
 * Streaming JSON with json-c 0.16's layout (see lib/jsonw.h): plain is
 * {"k":v,"k":[v,v]}; pretty (PRETTY | SPACED) puts a newline after every
 * "{" or "[" and after each ",", indents by two spaces per level, writes
 * "k": v, and closes with a newline (none for an empty container) and the
 * parent's indentation: an empty array is "[\n  ]" at level 1.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/esc.h"
#include "lib/jsonw.h"

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
static bool reserve(struct jsonw *w, size_t n)
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

static void put(struct jsonw *w, const char *s, size_t n)
{
	if (!reserve(w, n))
		return;
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

static void indent(struct jsonw *w, int level)
{
	if (!w->pretty || !reserve(w, 2 * (size_t)level))
		return;
	memset(w->buf + w->len, ' ', 2 * (size_t)level);
	w->len += 2 * (size_t)level;
}

/* as json-c escapes it, then esc_json_fputs() corrects it (lib/esc.h) */
static void str(struct jsonw *w, const char *s)
{
	if (!reserve(w, ESC_MAX_PER_BYTE * strlen(s) + 2))
		return;
	w->len += esc_json_c_str(w->buf + w->len, s);
}

/* what goes before a value: the separator, the indentation, the key */
static void begin(struct jsonw *w, const char *key)
{
	if (w->depth > 0) {
		bool *had = &w->had[w->depth - 1];

		if (*had)
			put(w, w->pretty ? ",\n" : ",", w->pretty ? 2 : 1);
		*had = true;
		indent(w, w->depth);
	}
	if (key) {
		str(w, key);
		put(w, w->pretty ? ": " : ":", w->pretty ? 2 : 1);
	}
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
		indent(w, w->depth);
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
		str(w, s);
	else
		put(w, "null", 4);
}

void jsonw_null(struct jsonw *w, const char *key)
{
	jsonw_str(w, key, NULL);
}

void jsonw_num(struct jsonw *w, const char *key, const char *text)
{
	begin(w, key);
	put(w, text, strlen(text));
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
