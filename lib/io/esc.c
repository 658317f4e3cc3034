// SPDX-License-Identifier: GPL-2.0-only
/*
 * Escaping of outside text for terminals, JSON and Prometheus labels: one
 * UTF-8 decoder, one notion of a dangerous character, three spellings.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/io/esc.h"

static const char hex[] = "0123456789abcdef";

/*
 * Output goes to a buffer of @n bytes (cut before the first unit that does
 * not fit, the full length still counted) or to a FILE.
 */
struct sink {
	char *buf;
	size_t n, used, total;
	bool full;
	FILE *f;
	int err;
};

static void put(struct sink *k, const char *s, size_t len)
{
	k->total += len;
	if (k->f) {
		if (!k->err && len && fwrite(s, 1, len, k->f) != len)
			k->err = EOF;
		return;
	}
	if (!k->full && k->used + len < k->n) {
		memcpy(k->buf + k->used, s, len);
		k->used += len;
	} else {
		k->full = true;		/* never a partial escape */
	}
}

static size_t sink_end(struct sink *k)
{
	if (!k->f && k->n)
		k->buf[k->used] = '\0';
	return k->total;
}

/*
 * The length (1-4) of the valid UTF-8 sequence at @s (@len bytes left) and
 * its code point, or 0 if the byte at @s does not start one (overlong
 * forms, surrogates and code points above U+10FFFF are invalid).
 */
static size_t u8_dec(const unsigned char *s, size_t len, uint32_t *cp)
{
	uint32_t c = s[0], min;
	size_t n;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2, c &= 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3, c &= 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4, c &= 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

size_t esc_utf8_valid(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n;
	uint32_t c;

	while (i < len) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		n = u8_dec(s + i, len - i, &c);
		if (!n)
			return i;
		i += n;
	}
	return len;
}

/* characters that are valid but must not reach a terminal raw */
static bool dangerous(uint32_t c)
{
	return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) ||
	       c == 0x061c || c == 0x200e || c == 0x200f ||
	       (c >= 0x2028 && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) ||
	       c == 0xfeff;
}

/* "\uHHHH" (4 hex digits: every dangerous code point is in the BMP) */
static size_t u_esc(char *t, uint32_t c)
{
	t[0] = '\\';
	t[1] = 'u';
	for (int i = 0; i < 4; i++)
		t[2 + i] = hex[c >> (12 - 4 * i) & 15];
	return 6;
}

/* ------------------------------------------------------------ human */

/*
 * The human spelling of the unit at @s into @t: 0 when it passes raw, else
 * its length. @used gets the bytes of @s the unit covers.
 */
static size_t text_unit(const unsigned char *s, size_t len, char *t, size_t *used)
{
	uint32_t c;
	size_t n = u8_dec(s, len, &c);

	*used = n ? n : 1;
	if (!n || c < 0x20 || c == 0x7f) {
		unsigned int b = n ? c : s[0];

		t[0] = '\\';
		switch (n ? b : 0x100) {
		case '\n': t[1] = 'n'; return 2;
		case '\t': t[1] = 't'; return 2;
		case '\r': t[1] = 'r'; return 2;
		default: break;
		}
		t[1] = 'x';
		t[2] = hex[b >> 4 & 15];
		t[3] = hex[b & 15];
		return 4;
	}
	if (c == '\\') {
		t[0] = t[1] = '\\';
		return 2;
	}
	return dangerous(c) ? u_esc(t, c) : 0;
}

static void text_to(struct sink *k, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0;

	while (i < len) {
		char t[8];
		size_t used, tn;

		if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\') {
			i++;	/* printable ASCII: the common case, no decoding */
			continue;
		}
		tn = text_unit(s + i, len - i, t, &used);
		if (!tn) {
			i += used;
			continue;
		}
		if (i > run)
			put(k, str + run, i - run);
		put(k, t, tn);
		i += used;
		run = i;
	}
	if (len > run)
		put(k, str + run, len - run);
}

size_t esc_bqlt_name(char *dst, size_t n, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = strlen(str), i = 0;
	struct sink k = { .buf = dst, .n = n };

	while (i < len) {
		char t[8];
		size_t used = 1;

		if (s[i] != ' ' && s[i] != '=' &&
		    !text_unit(s + i, len - i, t, &used)) {
			put(&k, str + i, used);	/* as it is: printable and plain */
			i += used;
			continue;
		}
		for (size_t j = 0; j < used; j++) {	/* every byte of the unit */
			t[0] = '\\';
			t[1] = 'x';
			t[2] = hex[s[i + j] >> 4];
			t[3] = hex[s[i + j] & 15];
			put(&k, t, 4);
		}
		i += used;
	}
	return sink_end(&k);
}

bool esc_text_clean(const char *s)
{
	size_t len = strlen(s);

	for (size_t i = 0; i < len;) {
		char t[8];
		size_t used;

		if (text_unit((const unsigned char *)s + i, len - i, t, &used))
			return false;
		i += used;
	}
	return true;
}

size_t esc_text_mem(char *dst, size_t n, const char *s, size_t len)
{
	struct sink k = { .buf = dst, .n = n };

	text_to(&k, s, len);
	return sink_end(&k);
}

size_t esc_text(char *dst, size_t n, const char *s)
{
	return esc_text_mem(dst, n, s ? s : "", s ? strlen(s) : 0);
}

int esc_text_fputs(const char *s, FILE *f)
{
	struct sink k = { .f = f };

	text_to(&k, s ? s : "", s ? strlen(s) : 0);
	return k.err;
}

size_t esc_text_width(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = strlen(str), w = 0;

	for (size_t i = 0; i < len;) {
		char t[8];
		size_t used, tn;

		if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\') {
			i++;
			w++;
			continue;
		}
		tn = text_unit(s + i, len - i, t, &used);
		w += tn ? tn : 1;	/* a printable code point: one column */
		i += used;
	}
	return w;
}

/* ------------------------------------------------------------ JSON */

/*
 * Serialized JSON: bytes < 0x80 other than DEL pass (json-c escaped the
 * C0 controls, quotes and backslashes); the rest is decoded.
 */
static void json_to(struct sink *k, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = strlen(str), i = 0, run = 0;

	while (i < len) {
		char t[8];
		uint32_t c;
		size_t n;

		if (s[i] < 0x7f) {
			i++;
			continue;
		}
		n = u8_dec(s + i, len - i, &c);
		if (n && !dangerous(c)) {
			i += n;
			continue;
		}
		if (i > run)
			put(k, str + run, i - run);
		put(k, t, u_esc(t, n ? c : ESC_JSON_BYTE(s[i])));
		i += n ? n : 1;
		run = i;
	}
	if (len > run)
		put(k, str + run, len - run);
}

int esc_json_fputs(const char *json, FILE *f)
{
	struct sink k = { .f = f };

	json_to(&k, json);
	return k.err;
}

char *esc_json_dup(const char *json)
{
	struct sink k = { 0 };
	char *out;

	json_to(&k, json);		/* count */
	out = malloc(k.total + 1);
	if (!out)
		return NULL;
	k = (struct sink){ .buf = out, .n = k.total + 1 };
	json_to(&k, json);
	sink_end(&k);
	return out;
}

size_t esc_json_str(char *dst, size_t n, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	struct sink k = { .buf = dst, .n = n };
	size_t len = strlen((const char *)s), i = 0, run = 0;

	put(&k, "\"", 1);
	while (i < len) {
		char t[8];
		uint32_t c;
		size_t n8 = u8_dec(s + i, len - i, &c), tn = 0;

		if (n8 && c == '"') {
			t[0] = '\\', t[1] = '"', tn = 2;
		} else if (n8 && c == '\\') {
			t[0] = t[1] = '\\', tn = 2;
		} else if (!n8 || dangerous(c)) {
			tn = u_esc(t, n8 ? c : ESC_JSON_BYTE(s[i]));
		}
		if (!tn) {
			i += n8;
			continue;
		}
		if (i > run)
			put(&k, (const char *)s + run, i - run);
		put(&k, t, tn);
		i += n8 ? n8 : 1;
		run = i;
	}
	if (len > run)
		put(&k, (const char *)s + run, len - run);
	put(&k, "\"", 1);
	return sink_end(&k);
}

/*
 * What json-c's serialisation (with JSON_C_TO_STRING_NOSLASHESCAPE) and
 * then json_to() make of a string, in one pass: ASCII as json-c escapes
 * it (\b \f \n \r \t \" \\, other C0 as \u00hh), the rest as json_to()
 * (a byte >= 0x7f is only ever inside a string, so decoding the raw
 * string decodes what json_to() would see).
 */
/* bytes esc_json_c_str() cannot copy as they are: C0, '"', '\\', >= 0x7f */
static const unsigned char json_special[256] = {
	[0x00 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1, [0x7f ... 0xff] = 1,
};

size_t esc_json_c_str(char *dst, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	char *p = dst;

	*p++ = '"';
	while (i < len) {
		size_t run = i;
		unsigned char b;
		uint32_t c;
		size_t n;

		while (run < len && !json_special[s[run]])
			run++;
		memcpy(p, s + i, run - i);
		p += run - i;
		i = run;
		if (i == len)
			break;
		b = s[i];
		if (b < 0x7f) {
			static const char short_esc[32] = {
				['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't',
			};

			*p++ = '\\';
			if (b == '"' || b == '\\') {
				*p++ = (char)b;
			} else if (short_esc[b]) {
				*p++ = short_esc[b];
			} else {
				memcpy(p, "u00", 3);
				p[3] = hex[b >> 4];
				p[4] = hex[b & 15];
				p += 5;
			}
			i++;
			continue;
		}
		n = u8_dec(s + i, len - i, &c);
		if (n && !dangerous(c)) {
			memcpy(p, s + i, n);
			p += n;
			i += n;
			continue;
		}
		p += u_esc(p, n ? c : ESC_JSON_BYTE(s[i]));
		i += n ? n : 1;
	}
	*p++ = '"';
	return (size_t)(p - dst);
}

/* ------------------------------------------------------------ Prometheus */

int esc_prom_fputs(const char *str, FILE *f)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	struct sink k = { .f = f };
	size_t len = strlen((const char *)s), i = 0, run = 0;

	while (i < len) {
		char t[10];
		size_t used, tn;

		if (s[i] == '"' || s[i] == '\\' || s[i] == '\n') {
			t[0] = '\\';
			t[1] = s[i] == '\n' ? 'n' : (char)s[i];
			tn = 2;
			used = 1;
		} else {
			tn = text_unit(s + i, len - i, t + 1, &used);
			if (tn) {
				t[0] = '\\';	/* the label holds the text "\x1b" */
				tn++;
			}
		}
		if (!tn) {
			i += used;
			continue;
		}
		if (i > run)
			put(&k, (const char *)s + run, i - run);
		put(&k, t, tn);
		i += used;
		run = i;
	}
	if (len > run)
		put(&k, (const char *)s + run, len - run);
	return k.err;
}

/* ------------------------------------------------------------ XML */

int esc_xml_fputs(const char *str, FILE *f)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	struct sink k = { .f = f };
	size_t len = strlen((const char *)s), i = 0, run = 0;

	while (i < len) {
		const char *ent = s[i] == '&' ? "&amp;" : s[i] == '<' ? "&lt;" :
				  s[i] == '>' ? "&gt;" : s[i] == '"' ? "&quot;" :
				  s[i] == '\'' ? "&apos;" : NULL;
		char t[8];
		size_t used = 1, tn = ent ? strlen(ent) : text_unit(s + i, len - i, t, &used);

		if (!tn) {
			i += used;
			continue;
		}
		if (i > run)
			put(&k, (const char *)s + run, i - run);
		put(&k, ent ? ent : t, tn);
		i += used;
		run = i;
	}
	if (len > run)
		put(&k, (const char *)s + run, len - run);
	return k.err;
}
