/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Error reports shared by every layer. dql/ and lib/ never print or exit:
 * they return 0 or -errno and describe the failure in a struct bql_err that
 * names the object ("eth0:tx-3: limit_max") so cmd/ can print one line.
 */
#ifndef BQLTOOL_DQL_ERR_H
#define BQLTOOL_DQL_ERR_H

#include <stdarg.h>
#include <stddef.h>

struct bql_err {
	int code;		/* positive errno, 0 = none */
	char msg[256];		/* "OBJECT: what" without the reason text */
};

/*
 * bql_err_set - fill @e (may be NULL) and return -@code.
 * @code is a positive errno kept for callers that branch on it. The message
 * is complete on its own: it names the object, what failed and why (add
 * strerror(errno) yourself where the reason is a system error); cmd/
 * prints it as is.
 */
int bql_err_set(struct bql_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int bql_err_vset(struct bql_err *e, int code, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/*
 * Prepend "PREFIX: " to an existing message (adds context on the way up).
 * A result too long for msg[] loses its middle, as bql_fit() cuts.
 */
void bql_err_prefix(struct bql_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * bql_fit - @len bytes of @s into @dst (@size bytes, terminated). What does
 * not fit loses its middle, marked "...": the head names the object, the
 * tail keeps the reason ("x/aaaa...aaaa/t.csv: cannot create: File name
 * too long"); a UTF-8 sequence is never cut. @s may overlap @dst. Returns
 * @len.
 */
size_t bql_fit(char *dst, size_t size, const char *s, size_t len);
/*
 * bql_fmt_fit - snprintf() into @dst whose overflow is cut by bql_fit():
 * every fixed-size message buffer (struct bql_err, replay's warnings)
 * keeps its reason whatever path or name it quotes. Returns the full length.
 */
size_t bql_fmt_fit(char *dst, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
size_t bql_vfmt_fit(char *dst, size_t size, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

#endif
