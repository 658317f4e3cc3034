// SPDX-License-Identifier: GPL-2.0-only
/* struct bql_err helpers: formatting only, no I/O. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

/* @s[i] continues a UTF-8 sequence (a cut must not fall before it) */
static int cont(const char *s, size_t i)
{
	return ((unsigned char)s[i] & 0xc0) == 0x80;
}

/* the last byte of a cut head / first of a cut tail on a UTF-8 boundary */
static size_t head_at(const char *s, size_t n)
{
	while (n && cont(s, n))
		n--;
	return n;
}

#define FIT_SEGS	64	/* words shortened one by one */
#define FIT_MIN		12	/* a shortened word keeps this much: "/tmp...x.csv:" */

/* the simple cut: a third of the room for the head, the rest for the tail */
static size_t fit_plain(char *dst, size_t size, const char *s, size_t len)
{
	size_t head, tail;

	if (size < 16) {	/* no room to elide: the head */
		head = head_at(s, size - 1);
		memmove(dst, s, head);
		dst[head] = '\0';
		return len;
	}
	head = head_at(s, (size - 1 - 3) / 3);
	tail = size - 1 - 3 - (size - 1 - 3) / 3;
	while (tail && cont(s, len - tail))
		tail--;
	memmove(dst, s, head);
	memcpy(dst + head, "...", 3);
	memmove(dst + head + 3, s + len - tail, tail);
	dst[head + 3 + tail] = '\0';
	return len;
}

size_t bql_fit(char *dst, size_t size, const char *s, size_t len)
{
	size_t start[FIT_SEGS], seg[FIT_SEGS], show[FIT_SEGS], need, k = 0, n = 0;
	char *out;

	if (!size)
		return len;
	if (len < size) {
		memmove(dst, s, len);
		dst[len] = '\0';
		return len;
	}
	/*
	 * "OBJECT: what: reason": the words (between spaces) are shortened
	 * in their middle, the longest first (a path, mostly), so that each
	 * keeps its beginning and its end, and the reason stays whole.
	 */
	for (size_t i = 0; i <= len; i++) {
		if (i < len && (s[i] != ' ' || n == FIT_SEGS - 1))
			continue;	/* past FIT_SEGS words: the rest is one */
		start[n] = k;
		seg[n] = show[n] = i - k;
		n++;
		k = i + 1;
	}
	need = len - (size - 1);
	while (need) {	/* the longest down to the next longest, and so on */
		size_t m = 0, next = FIT_MIN, cut;

		for (size_t i = 1; i < n; i++)
			if (show[i] > show[m])
				m = i;
		for (size_t i = 0; i < n; i++)
			if (i != m && show[i] > next)
				next = show[i];
		if (show[m] <= FIT_MIN)
			return fit_plain(dst, size, s, len);
		cut = show[m] - next;
		if (show[m] == seg[m]) {	/* the first cut pays for the "..." */
			if (cut > need + 3)
				cut = need + 3;
			if (cut < 4)
				cut = show[m] - FIT_MIN < 4 ? 0 : 4;
			if (!cut)
				return fit_plain(dst, size, s, len);
			need = cut - 3 >= need ? 0 : need - (cut - 3);
		} else {
			if (cut > need)
				cut = need;
			if (!cut)
				cut = 1;
			need -= cut;
		}
		show[m] -= cut;
	}
	out = malloc(size);
	if (!out)
		return fit_plain(dst, size, s, len);
	k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *p = s + start[i];

		if (i)
			out[k++] = ' ';
		if (show[i] == seg[i]) {
			memcpy(out + k, p, seg[i]);
			k += seg[i];
		} else {
			size_t room = show[i] - 3, head = head_at(p, room / 3), tail = room - room / 3;

			while (tail && cont(p, seg[i] - tail))
				tail--;
			memcpy(out + k, p, head);
			memcpy(out + k + head, "...", 3);
			memcpy(out + k + head + 3, p + seg[i] - tail, tail);
			k += head + 3 + tail;
		}
	}
	memcpy(dst, out, k);
	dst[k] = '\0';
	free(out);
	return len;
}

size_t bql_vfmt_fit(char *dst, size_t size, const char *fmt, va_list ap)
{
	char *big;
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(dst, size, fmt, aq);
	va_end(aq);
	if (n < 0 || (size_t)n < size)
		return n < 0 ? 0 : (size_t)n;
	big = malloc((size_t)n + 1);
	if (!big)
		return bql_fit(dst, size, dst, strlen(dst));	/* cut: the best left */
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	bql_fit(dst, size, big, (size_t)n);
	free(big);
	return (size_t)n;
}

size_t bql_fmt_fit(char *dst, size_t size, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = bql_vfmt_fit(dst, size, fmt, ap);
	va_end(ap);
	return n;
}

int bql_err_vset(struct bql_err *e, int code, const char *fmt, va_list ap)
{
	if (e) {
		e->code = code;
		bql_vfmt_fit(e->msg, sizeof(e->msg), fmt, ap);
	}
	return -code;
}

int bql_err_set(struct bql_err *e, int code, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = bql_err_vset(e, code, fmt, ap);
	va_end(ap);
	return ret;
}

void bql_err_prefix(struct bql_err *e, const char *fmt, ...)
{
	char old[sizeof(e->msg)], pre[sizeof(e->msg)];
	va_list ap;

	if (!e)
		return;
	memcpy(old, e->msg, sizeof(old));
	va_start(ap, fmt);
	bql_vfmt_fit(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	bql_fmt_fit(e->msg, sizeof(e->msg), "%s: %s", pre, old);
}
