// SPDX-License-Identifier: GPL-2.0-only
/* struct bql_err helpers: formatting only, no I/O. */
#include <stdio.h>
#include <string.h>

#include "err.h"

int bql_err_vset(struct bql_err *e, int code, const char *fmt, va_list ap)
{
	if (e) {
		e->code = code;
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
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
	char old[sizeof(e->msg)];
	size_t n;
	va_list ap;

	if (!e)
		return;
	memcpy(old, e->msg, sizeof(old));
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	n = strlen(e->msg);
	if (n + 2 < sizeof(e->msg)) {
		size_t room = sizeof(e->msg) - n - 3, len = strlen(old);

		memcpy(e->msg + n, ": ", 2);
		if (len > room)
			len = room;
		memcpy(e->msg + n + 2, old, len);
		e->msg[n + 2 + len] = '\0';
	}
}
