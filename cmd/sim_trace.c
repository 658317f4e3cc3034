// SPDX-License-Identifier: GPL-2.0-only
/*
 * bqltool sim --trace FILE: every DQL call of the simulation as a bqltrace
 * line (spec/bqltrace.md), C records with the limit= DQL chose, formatted
 * into a large buffer and written through lib/ofile.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/put.h"
#include "cmd/sim_trace.h"
#include "lib/io/ofile.h"

#define TBUF_SIZE	(1u << 20)
#define TBUF_ROW	512		/* room one line needs at most */

struct sim_trace {
	struct ofile *o;
	size_t len;
	char buf[TBUF_SIZE];
};

int sim_trace_open(struct sim_trace **tp, const char *path, struct bql_err *e)
{
	struct sim_trace *t = malloc(sizeof(*t));
	int ret;

	*tp = NULL;
	if (!t)
		return bql_err_set(e, ENOMEM, "%s: out of memory", path);
	t->len = 0;
	ret = ofile_open(&t->o, path, OFILE_COMPRESS_BY_NAME, e);
	if (ret) {
		free(t);
		return ret;
	}
	*tp = t;
	return 0;
}

static void flush(struct sim_trace *t)
{
	ofile_write(t->o, t->buf, t->len);	/* errors are sticky: commit says */
	t->len = 0;
}

void sim_trace_line(struct sim_trace *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->len + TBUF_ROW > TBUF_SIZE)
		flush(t);
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, TBUF_ROW, fmt, ap);
	va_end(ap);
	t->len += n < TBUF_ROW ? (size_t)n : TBUF_ROW - 1;
}

static char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

void sim_trace_record(struct sim_trace *t, const struct sim_rec *r, const char *qname)
{
	static const char kind[] = {
		[BQLT_Q] = 'Q', [BQLT_C] = 'C', [BQLT_P] = 'P', [BQLT_R] = 'R',
	};
	char *p;

	if (t->len + TBUF_ROW > TBUF_SIZE)
		flush(t);
	p = t->buf + t->len;
	p = put_u64(p, r->t_ns);
	*p++ = ' ';
	p = put_str(p, qname);
	*p++ = ' ';
	*p++ = kind[r->kind];
	if (r->kind == BQLT_Q || r->kind == BQLT_C) {
		*p++ = ' ';
		p = put_u64(p, r->bytes);
	}
	if (r->kind == BQLT_C) {
		p = put_str(p, " limit=");
		p = put_u64(p, r->limit);
	} else if (r->kind == BQLT_P) {
		*p++ = ' ';
		p = put_str(p, bqlt_key_name(r->kv.key));
		*p++ = '=';
		p = put_u64(p, r->kv.val);
	}
	*p++ = '\n';
	t->len = (size_t)(p - t->buf);
}

int sim_trace_commit(struct sim_trace *t, struct bql_err *e)
{
	int ret;

	flush(t);
	ret = ofile_commit(t->o, e);
	free(t);
	return ret;
}

void sim_trace_abort(struct sim_trace *t)
{
	if (!t)
		return;
	ofile_abort(t->o);
	free(t);
}
