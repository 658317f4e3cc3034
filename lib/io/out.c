// SPDX-License-Identifier: GPL-2.0-only
/*
 * Text and JSON from the same calls. In JSON mode a json-c tree is built and
 * printed once by out_end(); in text mode each call prints its format.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/io/esc.h"
#include "lib/io/out.h"

struct out_frame {
	struct json_object *obj;
	struct out_frame *up;
};

static bool text_on(const struct bql_ctx *c, enum out_mode m)
{
	return !c->json && m != OUT_JSON;
}

static bool json_on(const struct bql_ctx *c, enum out_mode m)
{
	return c->json && m != OUT_TEXT && c->stack;
}

static void push(struct bql_ctx *c, struct json_object *o)
{
	struct out_frame *f = o ? malloc(sizeof(*f)) : NULL;

	if (!f) {
		/* the document is incomplete: out_end() prints nothing */
		c->out_nomem = true;
		json_object_put(o);
		return;
	}
	f->obj = o;
	f->up = c->stack;
	c->stack = f;
	c->depth++;
}

/*
 * Attach @v under @key (objects) or at the end (arrays). Takes ownership.
 * @v NULL is JSON null when @null, else a failed allocation: every json-c
 * constructor may return NULL, and a document missing a value must not be
 * printed as if it were complete.
 */
static void attach_v(struct bql_ctx *c, const char *key, struct json_object *v,
		     bool null)
{
	struct json_object *top;
	int ret;

	if (!v && !null)
		c->out_nomem = true;
	if (!c->stack || c->out_nomem) {
		json_object_put(v);
		return;
	}
	top = c->stack->obj;
	if (json_object_is_type(top, json_type_array))
		ret = json_object_array_add(top, v);
	else
		ret = json_object_object_add(top, key ? key : "", v);
	if (ret) {
		c->out_nomem = true;
		json_object_put(v);
	}
}

static void attach(struct bql_ctx *c, const char *key, struct json_object *v)
{
	attach_v(c, key, v, false);
}

void out_begin(struct bql_ctx *c, bool array)
{
	if (!c->json)
		return;
	out_discard(c);
	c->jroot = array ? json_object_new_array() : json_object_new_object();
	if (!c->jroot) {
		c->out_nomem = true;
		return;
	}
	push(c, json_object_get(c->jroot));
}

void out_discard(struct bql_ctx *c)
{
	while (c->stack) {
		struct out_frame *f = c->stack;

		c->stack = f->up;
		json_object_put(f->obj);
		free(f);
	}
	c->depth = 0;
	c->out_nomem = false;
	if (c->jroot) {
		json_object_put(c->jroot);
		c->jroot = NULL;
	}
}

static int first_write_errno;

size_t out_fwrite(const void *p, size_t n, FILE *f)
{
	size_t k = fwrite(p, 1, n, f);

	if (k < n && !first_write_errno)
		first_write_errno = errno ? errno : EIO;
	return k;
}

int out_write_errno(void)
{
	int e = first_write_errno;

	first_write_errno = 0;
	return e;
}

int out_end(struct bql_ctx *c)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE;
	const char *s = NULL;
	int ret = 0;

	if (c->json && (c->jroot || c->out_nomem)) {
		flags |= c->pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
				   : JSON_C_TO_STRING_PLAIN;
		if (!c->out_nomem)
			s = json_object_to_json_string_ext(c->jroot, flags);
		if (!s) {
			ret = -ENOMEM;	/* nothing printed: one document or none */
		} else {
			/* valid UTF-8, no raw C1 or direction characters */
			esc_json_fputs(s, c->out);
			fputc('\n', c->out);
		}
	}
	out_discard(c);
	errno = 0;
	if (fflush(c->out) || ferror(c->out)) {
		int first = out_write_errno();

		ret = ret ? ret : first ? -first : errno ? -errno : -EIO;
	}
	return ret;
}

static void open_container(struct bql_ctx *c, const char *key,
			   struct json_object *o)
{
	if (!c->json || !c->stack) {
		json_object_put(o);
		return;
	}
	attach(c, key, json_object_get(o));
	push(c, o);
}

void out_open_obj(struct bql_ctx *c, const char *key)
{
	if (c->json)
		open_container(c, key, json_object_new_object());
}

void out_open_arr(struct bql_ctx *c, const char *key)
{
	if (c->json)
		open_container(c, key, json_object_new_array());
}

static void close_container(struct bql_ctx *c)
{
	struct out_frame *f = c->stack;

	if (!c->json || !f || !f->up)
		return;
	c->stack = f->up;
	json_object_put(f->obj);
	free(f);
	c->depth--;
}

void out_close_obj(struct bql_ctx *c)
{
	close_container(c);
}

void out_close_arr(struct bql_ctx *c)
{
	close_container(c);
}

/* Text formats are checked by the compiler at the call sites' level only. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
void out_u64(struct bql_ctx *c, enum out_mode m, const char *key,
	     const char *fmt, uint64_t v)
{
	if (text_on(c, m) && fmt)
		fprintf(c->out, fmt, v);
	if (json_on(c, m))
		attach(c, key, json_object_new_uint64(v));
}

void out_s64(struct bql_ctx *c, enum out_mode m, const char *key,
	     const char *fmt, int64_t v)
{
	if (text_on(c, m) && fmt)
		fprintf(c->out, fmt, v);
	if (json_on(c, m))
		attach(c, key, json_object_new_int64(v));
}

void out_dbl(struct bql_ctx *c, enum out_mode m, const char *key,
	     const char *fmt, double v)
{
	if (text_on(c, m) && fmt)
		fprintf(c->out, fmt, v);
	if (json_on(c, m))
		attach(c, key, json_object_new_double(v));
}

void out_dbl_fixed(struct bql_ctx *c, const char *key, double v, int decimals)
{
	char s[64];

	if (!json_on(c, OUT_JSON))
		return;
	snprintf(s, sizeof(s), "%.*f", decimals, v);
	attach(c, key, json_object_new_double_s(v, s));
}

void out_str(struct bql_ctx *c, enum out_mode m, const char *key,
	     const char *fmt, const char *v)
{
	if (text_on(c, m) && fmt) {
		/* outside text (names, sysfs contents): escaped, one line */
		size_t n = v ? 4 * strlen(v) + 1 : 1;
		char small[256], *buf = n <= sizeof(small) ? small : malloc(n);

		if (buf) {
			esc_text(buf, n, v);
			fprintf(c->out, fmt, buf);
			if (buf != small)
				free(buf);
		} else {
			fprintf(c->out, fmt, "?");
		}
	}
	if (json_on(c, m))
		attach_v(c, key, v ? json_object_new_string(v) : NULL, !v);
}

void out_bool(struct bql_ctx *c, enum out_mode m, const char *key,
	      const char *fmt, bool v)
{
	if (text_on(c, m) && fmt)
		fprintf(c->out, fmt, v ? "yes" : "no");
	if (json_on(c, m))
		attach(c, key, json_object_new_boolean(v));
}
#pragma GCC diagnostic pop

void out_null(struct bql_ctx *c, const char *key)
{
	if (json_on(c, OUT_JSON))
		attach_v(c, key, NULL, true);
}

void out_json(struct bql_ctx *c, const char *key, struct json_object *v)
{
	if (json_on(c, OUT_JSON))
		attach(c, key, v);
	else
		json_object_put(v);
}

void out_text(struct bql_ctx *c, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	int n;

	if (c->json)
		return;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fputs("?", c->out);
		return;
	}
	/*
	 * newlines are the only raw control (formats end and separate lines
	 * with them; device and trace queue names cannot hold one)
	 */
	for (char *line = s, *nl; ; line = nl + 1) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		esc_text_fputs(line, c->out);
		if (!nl)
			break;
		fputc('\n', c->out);
	}
	free(s);
}

void out_color(struct bql_ctx *c, const char *sgr)
{
	if (!c->json && c->color && sgr)
		fputs(sgr, c->out);
}

void out_nl(struct bql_ctx *c)
{
	if (!c->json)
		fputc('\n', c->out);
}
