/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to dql/trace_fast.c, which includes it once per instruction
 * set: the fast path's line scanner and the loops around it. The includer
 * defines V(name) (the variant's function names), VT (its target
 * attribute, or nothing) and FAST_NUM (its number reader: fast_u64() or
 * the SSE4.1 one). No include guard: that is the point.
 */

/*
 * The fast path proper, on the line at @q: the end of the line with @f
 * filled (all but @f->jiffies without j=, which bqlt_accept() computes),
 * or NULL to hand the line to the strict parser. Reads @p only: the queue
 * table, which bqlt_scan() callers pass as a clone.
 */
static HOT VT const char *V(fast_scan)(const struct bqlt_parser *p, const char *q,
				       const char *end, struct bqlt_fast *f)
{
	const char *lim = end - WIN;
	uint64_t t_ns, v, val[4] = { 0 };	/* j= nq= lo= limit= */
	unsigned int k, has = 0;		/* 1 << index of val[] */
	enum bqlt_kind kind;
	size_t n;
	int idx;

	/* t_ns and its blanks */
	k = FAST_NUM(q, &t_ns);
	if (!k || !is_blank(q[k]))
		return NULL;
	q = skip_blanks(q + k + 1, end);
	/* the queue */
	if (q > lim)
		return NULL;
	idx = fast_queue(p, q, end, &n);
	if (idx < 0)
		return NULL;
	q = skip_blanks(q + n + 1, end);	/* q[n] is the blank */
	/* Q or C, a blank, bytes */
	if (q > lim || !is_blank(q[1]))
		return NULL;
	if (q[0] == 'Q')
		kind = BQLT_Q;
	else if (q[0] == 'C')
		kind = BQLT_C;
	else
		return NULL;
	q = skip_blanks(q + 2, end);
	if (q > lim)
		return NULL;
	k = FAST_NUM(q, &v);
	if (!k || v > UINT32_MAX || (unsigned char)q[k] > ' ')
		return NULL;
	q += k;
	/*
	 * j=, and for C nq= lo= limit=, then the end of the line. A number
	 * ends at a byte <= ' ': a blank (then a key or the line's end
	 * follows) or the line's end ("\n", "\r\n"); else the strict parser
	 * decides.
	 */
	for (;;) {
		unsigned int slot, klen;
		uint64_t w, x;

		if (*q == '\n') {
			q++;
			break;
		}
		if (!is_blank(*q)) {
			if (q[0] != '\r' || q[1] != '\n')
				return NULL;
			q += 2;
			break;
		}
		q = skip_blanks(q + 1, end);
		if (q > lim)
			return NULL;
		w = load8(q);
		switch (w & 0xFF) {
		case 'j':
			if ((w & 0xFFFF) != 0x3D6A)			/* "j=" */
				return NULL;
			slot = 0, klen = 2;
			break;
		case 'n':
			if ((w & 0xFFFFFF) != 0x3D716E || kind != BQLT_C)	/* "nq=" */
				return NULL;
			slot = 1, klen = 3;
			break;
		case 'l':
			if ((w & 0xFFFFFF) == 0x3D6F6C)			/* "lo=" */
				slot = 2, klen = 3;
			else if ((w & 0xFFFFFFFFFFFFull) == 0x3D74696D696Cull)	/* "limit=" */
				slot = 3, klen = 6;
			else
				return NULL;
			if (kind != BQLT_C)
				return NULL;
			break;
		case '\n':	/* blanks before the line's end */
			q++;
			goto eol;
		case '\r':
			if ((w & 0xFFFF) != 0x0A0D)
				return NULL;
			q += 2;
			goto eol;
		default:
			return NULL;
		}
		if (has & (1u << slot))
			return NULL;
		has |= 1u << slot;
		q += klen;
		k = FAST_NUM(q, &x);
		if (!k || (unsigned char)q[k] > ' ' || (slot && x > UINT32_MAX))
			return NULL;
		q += k;
		val[slot] = x;
	}
eol:
	f->kind = (uint8_t)kind;
	f->has = (uint8_t)has;	/* val[] is in the order of the BQLT_HAS_* bits */
	f->queue = (uint32_t)idx;
	f->t_ns = t_ns;
	f->jiffies = val[0];
	f->bytes = (uint32_t)v;
	f->nq = (uint32_t)val[1];
	f->lo = (uint32_t)val[2];
	f->limit = (uint32_t)val[3];
	return q;
}

static VT int V(parse_next)(struct bqlt_parser *p, const char **pos, const char *end,
			      struct bqlt_rec *rec, struct bql_err *e)
{
	struct bqlt_fast f;
	const char *q;

	if (fast_ok(p, *pos, end) && (q = V(fast_scan)(p, *pos, end, &f)) &&
	    accept(p, &f, rec)) {
		*pos = q;
		return 1;
	}
	return parse_strict(p, pos, end, rec, e);
}

static VT unsigned int V(parse_batch)(struct bqlt_parser *restrict p, const char **restrict pos,
					const char *end, struct bqlt_rec *restrict recs,
					unsigned int max, int *err, struct bql_err *e)
{
	const char *s = *pos, *q;
	struct bqlt_fast f;
	unsigned int n = 0;
	int ret;

	*err = 0;
	while (n < max && s < end) {
		if (fast_ok(p, s, end) && (q = V(fast_scan)(p, s, end, &f)) &&
		    accept(p, &f, &recs[n])) {
			s = q;
			n++;
			continue;
		}
		ret = parse_strict(p, &s, end, &recs[n], e);
		if (ret < 0) {
			*err = ret;
			break;
		}
		n += (unsigned int)ret;
	}
	*pos = s;
	return n;
}

static VT unsigned int V(scan)(const struct bqlt_parser *snap, const char **pos,
				 const char *end, struct bqlt_fast *out, unsigned int max)
{
	const char *s = *pos, *q;
	unsigned int n = 0;

	while (n < max && s < end) {
		struct bqlt_fast *f = &out[n];

		if (scan_ok(s, end) && (q = V(fast_scan)(snap, s, end, f))) {
			f->len = (uint32_t)(q - s);
			s = q;
			n++;
			continue;
		}
		/* a line for the parser: joined to a run of them */
		q = memchr(s, '\n', (size_t)(end - s));
		q = q ? q + 1 : end;
		if (n && !out[n - 1].kind && out[n - 1].len <= UINT32_MAX - (q - s)) {
			out[n - 1].len += (uint32_t)(q - s);
		} else {
			f->kind = 0;
			f->len = (uint32_t)(q - s);
			n++;
		}
		s = q;
	}
	*pos = s;
	return n;
}
