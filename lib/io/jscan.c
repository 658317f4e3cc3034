// SPDX-License-Identifier: GPL-2.0-only
/*
 * Duplicate keys and out-of-range integers in JSON text: a tokenizer that
 * keeps, per open object, the keys seen (linear search for small objects,
 * a hash index for large ones), so the pass stays linear in the input.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/io/esc.h"
#include "lib/io/jscan.h"

#define SMALL	16	/* keys compared one by one up to this many */

struct key {
	size_t off, len;	/* decoded key in the arena */
	size_t line, col;
	uint64_t h;
};

struct frame {
	bool obj;
	size_t index;		/* arrays: the current element */
	struct key *k;		/* objects: keys so far */
	size_t nk, capk;
	size_t *hix;		/* objects with > SMALL keys: index + 1, 0 free */
	size_t caph;
	size_t cur;		/* the key whose value is being read */
};

struct scan {
	const char *s;
	size_t len, i, line, col;
	char *arena;		/* decoded keys; never longer than the text */
	size_t alen;
	struct frame *f;
	size_t nf, capf;
	struct bql_err *e;
	size_t nul_line, nul_col;	/* the first \u0000 in the string just read */
};

static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static void adv(struct scan *sc)
{
	if (sc->s[sc->i] == '\n') {
		sc->line++;
		sc->col = 1;
	} else if (((unsigned char)sc->s[sc->i] & 0xc0) != 0x80) {
		sc->col++;	/* columns count characters, not bytes */
	}
	sc->i++;
}

static void skip_ws(struct scan *sc)
{
	while (sc->i < sc->len && strchr(" \t\r\n", sc->s[sc->i]) && sc->s[sc->i])
		adv(sc);
}

/* A name that can follow a dot unquoted: [A-Za-z0-9_-]+. */
static bool plain(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-'))
			return false;
	return true;
}

/* the JSON path of the value being read in frames [1, @upto): a.b[3]["x y"] */
static void path(const struct scan *sc, size_t upto, char *buf, size_t n)
{
	size_t l = 0;

	buf[0] = '\0';
	for (size_t d = 1; d < upto && l < n; d++) {
		const struct frame *p = &sc->f[d - 1];

		if (!p->obj) {
			l += (size_t)snprintf(buf + l, n - l, "[%zu]", p->index);
		} else if (p->cur < p->nk) {	/* text json-c refused may have none */
			const struct key *k = &p->k[p->cur];
			const char *s = sc->arena + k->off;

			if (plain(s, k->len))
				l += (size_t)snprintf(buf + l, n - l, "%s%.*s", l ? "." : "",
						      (int)k->len, s);
			else
				l += (size_t)snprintf(buf + l, n - l, "[\"%.*s\"]", (int)k->len, s);
		}
	}
}

static int fail(struct scan *sc, size_t upto, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct scan *sc, size_t upto, const char *fmt, ...)
{
	char p[160], msg[200];
	va_list ap;

	path(sc, upto, p, sizeof(p));
	va_start(ap, fmt);
	bql_vfmt_fit(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return bql_err_set(sc->e, EINVAL, "%s%s%s", p, p[0] ? ": " : "", msg);
}

static int hex4(const char *s)
{
	int v = 0;

	for (int i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

static size_t put_utf8(char *o, uint32_t c)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xc0 | c >> 6);
		o[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | c >> 12);
		o[1] = (char)(0x80 | (c >> 6 & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | c >> 18);
	o[1] = (char)(0x80 | (c >> 12 & 0x3f));
	o[2] = (char)(0x80 | (c >> 6 & 0x3f));
	o[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/*
 * A string at sc->i (on its quote); with @out, its decoded bytes are
 * appended to the arena (escapes resolved: "a\u0062" is the key "ab").
 * Decoding never makes a string longer than its text. A \u0000 is noted
 * in sc->nul_line/col: json-c keeps it, but every C string made of the
 * key or value ends there ("eth0\u0000x" would be the device eth0).
 */
static void string(struct scan *sc, bool out, size_t *off, size_t *n)
{
	size_t start = sc->alen;

	adv(sc);	/* " */
	while (sc->i < sc->len && sc->s[sc->i] != '"') {
		char c = sc->s[sc->i];

		if (c == '\\' && sc->i + 1 < sc->len) {
			char x = sc->s[sc->i + 1];
			const char *map = "\"\"\\\\//b\bf\fn\nr\rt\t";
			const char *m = x ? strchr(map, x) : NULL;
			uint32_t cp;
			int h;

			if (x == 'u' && sc->i + 6 <= sc->len &&
			    (h = hex4(sc->s + sc->i + 2)) >= 0) {
				cp = (uint32_t)h;
				if (!cp && !sc->nul_line) {
					sc->nul_line = sc->line;
					sc->nul_col = sc->col;
				}
				for (int k = 0; k < 6; k++)
					adv(sc);
				if (cp >= 0xd800 && cp <= 0xdbff && sc->i + 6 <= sc->len &&
				    sc->s[sc->i] == '\\' && sc->s[sc->i + 1] == 'u' &&
				    (h = hex4(sc->s + sc->i + 2)) >= 0xdc00 && h <= 0xdfff) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + ((uint32_t)h - 0xdc00);
					for (int k = 0; k < 6; k++)
						adv(sc);
				}
				if (out)
					sc->alen += put_utf8(sc->arena + sc->alen, cp);
				continue;
			}
			if (out)
				sc->arena[sc->alen++] = m && (m - map) % 2 == 0 ? m[1] : x;
			adv(sc);
			adv(sc);
			continue;
		}
		if (out)
			sc->arena[sc->alen++] = c;
		adv(sc);
	}
	if (sc->i < sc->len)
		adv(sc);	/* " */
	*off = start;
	*n = sc->alen - start;
}

/* an integer literal must fit in 64 bits: json-c saturates silently */
static int number(struct scan *sc)
{
	size_t start = sc->i, line = sc->line, col = sc->col, n;
	const char *s = sc->s + start;
	bool integer = true, neg = *s == '-';
	uint64_t v = 0;
	bool over = false;

	while (sc->i < sc->len && strchr("+-0123456789.eE", sc->s[sc->i]) && sc->s[sc->i]) {
		if (strchr(".eE", sc->s[sc->i]))
			integer = false;
		adv(sc);
	}
	n = sc->i - start;
	if (!integer)
		return 0;
	for (size_t k = neg; k < n; k++) {
		unsigned int d = (unsigned int)(s[k] - '0');

		if (v > (UINT64_MAX - d) / 10)
			over = true;
		v = v * 10 + d;
	}
	if (neg && !over && v > (uint64_t)INT64_MAX + 1)
		over = true;
	if (!over)
		return 0;
	return fail(sc, sc->nf + 1,
		    "%.*s%s at line %zu, column %zu is out of range (%s)",
		    (int)(n > 40 ? 40 : n), s, n > 40 ? "..." : "", line, col,
		    neg ? "at least -9223372036854775808" : "at most 18446744073709551615");
}

static int push(struct scan *sc, bool obj)
{
	struct frame *f;

	if (sc->nf == sc->capf) {
		size_t cap = sc->capf ? sc->capf * 2 : 16;

		f = realloc(sc->f, cap * sizeof(*f));
		if (!f)
			return bql_err_set(sc->e, ENOMEM, "out of memory");
		sc->f = f;
		sc->capf = cap;
	}
	f = &sc->f[sc->nf++];
	memset(f, 0, sizeof(*f));
	f->obj = obj;
	return 0;
}

static void pop(struct scan *sc)
{
	struct frame *f = &sc->f[--sc->nf];

	free(f->k);
	free(f->hix);
}

static bool same(const struct scan *sc, const struct key *a, const struct key *b)
{
	return a->h == b->h && a->len == b->len &&
	       !memcmp(sc->arena + a->off, sc->arena + b->off, a->len);
}

static int rehash(struct frame *f, size_t cap)
{
	size_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	free(f->hix);
	f->hix = h;
	f->caph = cap;
	for (size_t i = 0; i < f->nk; i++) {
		size_t j = f->k[i].h & (cap - 1);

		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = i + 1;
	}
	return 0;
}

/* add the key just decoded to the innermost object; reject a duplicate */
static int add_key(struct scan *sc, struct key *k)
{
	struct frame *f = &sc->f[sc->nf - 1];
	const struct key *dup = NULL;

	if (f->nk < SMALL) {
		for (size_t i = 0; i < f->nk && !dup; i++)
			if (same(sc, &f->k[i], k))
				dup = &f->k[i];
	} else {
		if (f->nk * 2 >= f->caph && rehash(f, f->caph ? f->caph * 2 : 4 * SMALL))
			return bql_err_set(sc->e, ENOMEM, "out of memory");
		for (size_t j = k->h & (f->caph - 1); f->hix[j] && !dup;
		     j = (j + 1) & (f->caph - 1))
			if (same(sc, &f->k[f->hix[j] - 1], k))
				dup = &f->k[f->hix[j] - 1];
	}
	if (dup)
		return fail(sc, sc->nf, "duplicate key \"%.*s\" at line %zu, column %zu (first at line %zu, column %zu)",
			    (int)(k->len > 64 ? 64 : k->len), sc->arena + k->off,
			    k->line, k->col, dup->line, dup->col);
	if (f->nk == f->capk) {
		size_t cap = f->capk ? f->capk * 2 : 4;
		struct key *nk = realloc(f->k, cap * sizeof(*nk));

		if (!nk)
			return bql_err_set(sc->e, ENOMEM, "out of memory");
		f->k = nk;
		f->capk = cap;
	}
	f->cur = f->nk;
	f->k[f->nk++] = *k;
	if (f->hix) {
		size_t j = k->h & (f->caph - 1);

		while (f->hix[j])
			j = (j + 1) & (f->caph - 1);
		f->hix[j] = f->nk;
	}
	return 0;
}

static int scan(struct scan *sc)
{
	int ret;

	while (skip_ws(sc), sc->i < sc->len) {
		char c = sc->s[sc->i];
		struct frame *top = sc->nf ? &sc->f[sc->nf - 1] : NULL;

		if (c == '{' || c == '[') {
			ret = push(sc, c == '{');
			if (ret)
				return ret;
			adv(sc);
		} else if (c == '}' || c == ']') {
			if (!sc->nf)
				return 0;
			pop(sc);
			adv(sc);
		} else if (c == ',') {
			if (top && !top->obj)
				top->index++;
			adv(sc);
		} else if (c == ':') {
			adv(sc);
		} else if (c == '"') {
			/* a key when the next token is ':' */
			struct key k = { .line = sc->line, .col = sc->col };
			size_t save = sc->alen;

			sc->nul_line = 0;
			string(sc, top && top->obj, &k.off, &k.len);
			skip_ws(sc);
			if (sc->nul_line) {
				bool key = top && top->obj && sc->i < sc->len && sc->s[sc->i] == ':';

				return fail(sc, key ? sc->nf : sc->nf + 1,
					    "a NUL character (U+0000) in a %s at line %zu, column %zu: not allowed (a name cannot hold one)",
					    key ? "key" : "string", sc->nul_line, sc->nul_col);
			}
			if (top && top->obj && sc->i < sc->len && sc->s[sc->i] == ':') {
				k.h = hash(sc->arena + k.off, k.len);
				ret = add_key(sc, &k);
				if (ret)
					return ret;
			} else {
				sc->alen = save;	/* a value: not kept */
			}
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			ret = number(sc);
			if (ret)
				return ret;
		} else if (c == '\'') {
			/* json-c takes 'x' even in strict mode, and this scan does not */
			return bql_err_set(sc->e, EINVAL,
					   "line %zu, column %zu: invalid JSON: a string in single quotes (JSON strings take \")",
					   sc->line, sc->col);
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
			/* true, false, null; json-c also takes NaN and Infinity */
			size_t start = sc->i, line = sc->line, col = sc->col, n;

			while (sc->i < sc->len && ((sc->s[sc->i] >= 'a' && sc->s[sc->i] <= 'z') ||
						   (sc->s[sc->i] >= 'A' && sc->s[sc->i] <= 'Z')))
				adv(sc);
			n = sc->i - start;
			if (!((n == 4 && !memcmp(sc->s + start, "true", 4)) ||
			      (n == 5 && !memcmp(sc->s + start, "false", 5)) ||
			      (n == 4 && !memcmp(sc->s + start, "null", 4))))
				return fail(sc, sc->nf + 1,
					    "%.*s at line %zu, column %zu is not a JSON value (numbers are digits)",
					    (int)(n > 16 ? 16 : n), sc->s + start, line, col);
		} else {
			adv(sc);
		}
	}
	return 0;
}

int jscan_check(const char *text, size_t len, struct bql_err *e)
{
	struct scan sc = { .s = text, .len = len, .line = 1, .col = 1, .e = e };
	size_t bad = esc_utf8_valid(text, len);
	int ret;

	/* JSON text is UTF-8 (RFC 8259); json-c takes any byte in a string */
	if (bad < len) {
		while (sc.i < bad)
			adv(&sc);
		return bql_err_set(e, EINVAL, "line %zu, column %zu: byte 0x%02x is not UTF-8 (JSON text must be)",
				   sc.line, sc.col, (unsigned char)text[bad]);
	}

	sc.arena = malloc(len + 1);
	if (!sc.arena)
		return bql_err_set(e, ENOMEM, "out of memory");
	ret = scan(&sc);
	while (sc.nf)
		pop(&sc);
	free(sc.f);
	free(sc.arena);
	return ret;
}
