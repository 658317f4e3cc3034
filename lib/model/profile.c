// SPDX-License-Identifier: GPL-2.0-only
/* BQL profiles <-> JSON (json-c), with errors that name the JSON path. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/io/esc.h"
#include "lib/io/jscan.h"
#include "lib/model/profile.h"

bool profile_key(enum bql_attr a)
{
	return a == BQL_LIMIT_MIN || a == BQL_LIMIT_MAX || a == BQL_HOLD_TIME ||
	       a == BQL_STALL_THRS;
}

void profile_init(struct profile *p)
{
	memset(p, 0, sizeof(*p));
	p->version = PROFILE_VERSION;
}

void profile_free(struct profile *p)
{
	for (size_t i = 0; i < p->ndev; i++)
		free(p->dev[i].q);
	free(p->dev);
	profile_init(p);
}

/* ------------------------------------------------------------ paths */

/* A name that can follow a dot unquoted: [A-Za-z0-9_-]. */
static bool plain_name(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return false;
	return true;
}

static void dev_path(char *buf, size_t n, const char *ifname)
{
	if (plain_name(ifname) && *ifname)
		snprintf(buf, n, "devices.%s", ifname);
	else
		snprintf(buf, n, "devices[\"%s\"]", ifname);
}

char *profile_path(char *buf, size_t n, const struct profile_dev *d, size_t qi,
		   const char *key)
{
	size_t len;

	dev_path(buf, n, d->ifname);
	len = strlen(buf);
	if (qi == PROFILE_ALL)
		snprintf(buf + len, n - len, ".all");
	else if (qi != PROFILE_DEV)
		snprintf(buf + len, n - len, ".queues[%zu]", qi);
	len = strlen(buf);
	if (key)
		snprintf(buf + len, n - len, ".%s", key);
	return buf;
}

static int perr(struct bql_err *e, int code, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int perr(struct bql_err *e, int code, const char *path, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	bql_vfmt_fit(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return bql_err_set(e, code, "%s: %s", path, msg);
}

/* ------------------------------------------------------------ parsing */

static const char *type_name(struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null:	return "null";
	case json_type_boolean:	return "a boolean";
	case json_type_double:	return "a fraction";
	case json_type_int:	return json_object_get_int64(v) < 0 ? "a negative number" : "an integer";
	case json_type_object:	return "an object";
	case json_type_array:	return "an array";
	case json_type_string:	return "a string";
	}
	return "?";
}

static int get_uint(struct json_object *v, const char *path, uint64_t *out,
		    struct bql_err *e)
{
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
		return perr(e, EINVAL, path, "expected an unsigned integer, not %s",
			    type_name(v));
	*out = json_object_get_uint64(v);
	return 0;
}

static int get_str(struct json_object *v, const char *path, char *buf,
		   size_t n, struct bql_err *e)
{
	const char *s;

	if (!json_object_is_type(v, json_type_string))
		return perr(e, EINVAL, path, "expected a string, not %s", type_name(v));
	s = json_object_get_string(v);
	if (strlen(s) >= n)
		return perr(e, EINVAL, path, "longer than %zu bytes", n - 1);
	if (esc_utf8_valid(s, strlen(s)) != strlen(s))
		return perr(e, EINVAL, path, "not valid UTF-8");
	memcpy(buf, s, strlen(s) + 1);
	return 0;
}

static int parse_vals(struct json_object *o, const char *path, bool queue_key,
		      struct profile_vals *pv, unsigned int *queue,
		      struct bql_err *e)
{
	char kp[256];
	bool have_queue = false;
	int ret;

	memset(pv, 0, sizeof(*pv));
	if (!json_object_is_type(o, json_type_object))
		return perr(e, EINVAL, path, "expected an object, not %s", type_name(o));
	json_object_object_foreach(o, key, v) {
		int a = bql_attr_find(key);

		snprintf(kp, sizeof(kp), "%s.%s", path, key);
		if (queue_key && !strcmp(key, "queue")) {
			uint64_t q;

			ret = get_uint(v, kp, &q, e);
			if (ret)
				return ret;
			if (q > PROFILE_MAX_QUEUE)
				return perr(e, ERANGE, kp, "queue %" PRIu64 " is out of range (0..%u)",
					    q, PROFILE_MAX_QUEUE);
			*queue = (unsigned int)q;
			have_queue = true;
			continue;
		}
		if (a == BQL_LIMIT)
			return perr(e, EINVAL, kp,
				    "not a profile setting (DQL moves the limit at every completion; use limit_min/limit_max)");
		if (a >= 0 && !profile_key(a))
			return perr(e, EINVAL, kp, "%s is read-only", key);
		if (a < 0)
			return perr(e, EINVAL, kp,
				    "unknown key (expected %slimit_min, limit_max, hold_time or stall_thrs)",
				    queue_key ? "queue, " : "");
		ret = get_uint(v, kp, &pv->val[a], e);
		if (ret)
			return ret;
		pv->present |= 1u << a;
	}
	if (queue_key && !have_queue)
		return perr(e, EINVAL, path, "missing \"queue\" (the TX queue number)");
	return 0;
}

static int cmp_queue(const void *a, const void *b)
{
	const struct profile_queue *x = a, *y = b;

	return x->queue < y->queue ? -1 : x->queue > y->queue;
}

static int parse_dev(const char *name, struct json_object *o,
		     struct profile_dev *d, struct bql_err *e)
{
	char path[128], kp[160];
	struct json_object *all = NULL, *queues = NULL;
	uint32_t *seen;
	size_t n;
	int ret;

	memset(d, 0, sizeof(*d));
	dev_path(path, sizeof(path), name);
	if (!sysfs_valid_ifname(name))
		return perr(e, EINVAL, path, "not a valid network device name");
	if (esc_utf8_valid(name, strlen(name)) != strlen(name))
		return perr(e, EINVAL, path, "not valid UTF-8 (a profile names devices in UTF-8)");
	memcpy(d->ifname, name, strlen(name) + 1);
	if (!json_object_is_type(o, json_type_object))
		return perr(e, EINVAL, path, "expected an object with \"all\" or \"queues\", not %s",
			    type_name(o));
	json_object_object_foreach(o, key, v) {
		if (!strcmp(key, "all"))
			all = v;
		else if (!strcmp(key, "queues"))
			queues = v;
		else
			return perr(e, EINVAL, path, "unknown key \"%s\" (expected \"all\" or \"queues\")",
				    key);
	}
	if (!all == !queues)
		return perr(e, EINVAL, path, all ? "has both \"all\" and \"queues\" (give one)"
					       : "expected \"all\" or \"queues\"");
	if (all) {
		d->all = true;
		snprintf(kp, sizeof(kp), "%s.all", path);
		return parse_vals(all, kp, false, &d->v, NULL, e);
	}
	snprintf(kp, sizeof(kp), "%s.queues", path);
	if (!json_object_is_type(queues, json_type_array))
		return perr(e, EINVAL, kp, "expected an array, not %s", type_name(queues));
	n = json_object_array_length(queues);
	d->q = calloc(n ? n : 1, sizeof(*d->q));
	/* where each queue number was seen (index + 1): linear, not quadratic */
	seen = calloc(PROFILE_MAX_QUEUE + 1, sizeof(*seen));
	if (!d->q || !seen) {
		free(seen);
		return bql_err_set(e, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(kp, sizeof(kp), "%s.queues[%zu]", path, i);
		ret = parse_vals(json_object_array_get_idx(queues, i), kp, true,
				 &d->q[i].v, &d->q[i].queue, e);
		if (!ret && seen[d->q[i].queue])
			ret = perr(e, EINVAL, kp, "queue %u is also at %s.queues[%zu]",
				   d->q[i].queue, path, (size_t)seen[d->q[i].queue] - 1);
		if (ret) {
			free(seen);
			return ret;
		}
		seen[d->q[i].queue] = (uint32_t)i + 1;
		d->nq++;
	}
	free(seen);
	qsort(d->q, d->nq, sizeof(*d->q), cmp_queue);
	return 0;
}

/* line and column (1-based) of byte @off in @text */
static void line_col(const char *text, size_t off, size_t *line, size_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
			return false;
	return true;
}

static struct json_object *parse_json(const char *text, size_t len,
				      struct bql_err *e)
{
	struct json_tokener *tok;
	struct json_object *root;
	enum json_tokener_error jerr;
	size_t end, line, col, i = 0;

	while (i < len && blank(text + i, 1))
		i++;
	if (i == len) {
		bql_err_set(e, EINVAL, "empty: not a bqltool profile");
		return NULL;
	}
	if (text[i] != '{') {
		line_col(text, i, &line, &col);
		bql_err_set(e, EINVAL,
			    "line %zu, column %zu: expected a JSON object ('{'): not a bqltool profile",
			    line, col);
		return NULL;
	}
	if (len > (size_t)INT32_MAX) {
		bql_err_set(e, EFBIG, "too large");
		return NULL;
	}
	tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	if (!tok) {
		bql_err_set(e, ENOMEM, "out of memory");
		return NULL;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	root = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (jerr == json_tokener_continue) {
		line_col(text, len, &line, &col);
		bql_err_set(e, EINVAL,
			    "line %zu, column %zu: truncated JSON (the file ends inside the document)",
			    line, col);
		return NULL;
	}
	if (jerr != json_tokener_success || !root) {
		while (end < len && blank(text + end, 1))
			end++;	/* point at the offending character */
		line_col(text, end, &line, &col);
		bql_err_set(e, EINVAL, "line %zu, column %zu: invalid JSON: %s", line, col,
			    json_tokener_error_desc(jerr));
		json_object_put(root);
		return NULL;
	}
	if (end < len && !blank(text + end, len - end)) {
		line_col(text, end, &line, &col);
		bql_err_set(e, EINVAL, "line %zu, column %zu: invalid JSON: data after the profile",
			    line, col);
		json_object_put(root);
		return NULL;
	}
	/* json-c keeps the last of duplicate keys and saturates big integers */
	if (jscan_check(text, len, e)) {
		json_object_put(root);
		return NULL;
	}
	return root;
}

static int parse_root(struct json_object *root, struct profile *p,
		      struct bql_err *e)
{
	struct json_object *ver, *devs = NULL;
	bool have_devs = false;
	uint64_t v;
	int ret;

	if (!json_object_object_get_ex(root, "bqltool_profile", &ver))
		return bql_err_set(e, EINVAL,
				   "bqltool_profile: missing: not a bqltool profile");
	ret = get_uint(ver, "bqltool_profile", &v, e);
	if (ret)
		return ret;
	if (v != PROFILE_VERSION)
		return bql_err_set(e, EINVAL,
				   "bqltool_profile: version %" PRIu64 " is not supported (this bqltool reads version %d)",
				   v, PROFILE_VERSION);
	p->version = PROFILE_VERSION;
	json_object_object_foreach(root, key, val) {
		if (!strcmp(key, "bqltool_profile")) {
			continue;
		} else if (!strcmp(key, "bqltool_version")) {
			ret = get_str(val, key, p->tool_version, sizeof(p->tool_version), e);
		} else if (!strcmp(key, "kernel")) {
			ret = get_str(val, key, p->kernel, sizeof(p->kernel), e);
		} else if (!strcmp(key, "hz")) {
			ret = get_uint(val, key, &v, e);
			if (!ret && v > 100000)
				ret = perr(e, ERANGE, key, "%" PRIu64 " is not a plausible HZ", v);
			p->hz = (unsigned int)v;
		} else if (!strcmp(key, "devices")) {
			devs = val;
			have_devs = true;
		} else {
			ret = perr(e, EINVAL, key,
				   "unknown key (expected bqltool_profile, bqltool_version, kernel, hz or devices)");
		}
		if (ret)
			return ret;
	}
	if (!have_devs)
		return bql_err_set(e, EINVAL, "devices: missing");
	if (!json_object_is_type(devs, json_type_object))
		return perr(e, EINVAL, "devices", "expected an object, not %s", type_name(devs));
	p->dev = calloc((size_t)json_object_object_length(devs) + 1, sizeof(*p->dev));
	if (!p->dev)
		return bql_err_set(e, ENOMEM, "out of memory");
	json_object_object_foreach(devs, name, d) {
		ret = parse_dev(name, d, &p->dev[p->ndev], e);
		if (ret) {
			free(p->dev[p->ndev].q);
			return ret;
		}
		p->ndev++;
	}
	return 0;
}

int profile_parse(const char *text, size_t len, struct profile *p,
		  struct bql_err *e)
{
	struct json_object *root;
	int ret;

	profile_init(p);
	root = parse_json(text, len, e);
	if (!root)
		return -EINVAL;
	ret = parse_root(root, p, e);
	json_object_put(root);
	if (ret)
		profile_free(p);
	return ret;
}

int profile_read_file(const char *path, char **text, size_t *len,
		      struct bql_err *e)
{
	bool in = !strcmp(path, "-");
	const char *name = in ? "standard input" : path;
	size_t cap = 4096, n = 0;
	struct stat st;
	char *buf, *nb;
	int fd, err;

	fd = in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		return bql_err_set(e, err, "%s: cannot open: %s", name, strerror(err));
	}
	/* a regular file over the cap is refused before reading a byte */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > (off_t)PROFILE_MAX_SIZE) {
		if (!in)
			close(fd);
		return bql_err_set(e, EFBIG, "%s: %jd bytes, larger than the %u MiB a profile may have: not a bqltool profile",
				   name, (intmax_t)st.st_size, PROFILE_MAX_SIZE >> 20);
	}
	buf = malloc(cap);
	for (;;) {
		ssize_t r;

		if (!buf) {
			err = ENOMEM;
			break;
		}
		if (n + 1 >= cap) {
			if (cap > PROFILE_MAX_SIZE) {
				err = EFBIG;
				break;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				err = ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			err = r < 0 ? errno : 0;
			break;
		}
		n += (size_t)r;
	}
	if (!in)
		close(fd);
	if (!err && n > PROFILE_MAX_SIZE)
		err = EFBIG;
	if (err) {
		free(buf);
		if (err == EFBIG)
			return bql_err_set(e, err, "%s: larger than the %u MiB a profile may have: not a bqltool profile",
					   name, PROFILE_MAX_SIZE >> 20);
		return bql_err_set(e, err, "%s: cannot read: %s", name, strerror(err));
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

/* ------------------------------------------------------------ building */

static bool same_settings(const struct bql_queue *a, const struct bql_queue *b)
{
	for (int k = 0; k < BQL_ATTR_NR; k++) {
		if (!profile_key(k))
			continue;
		if (bql_has(a, k) != bql_has(b, k))
			return false;
		if (bql_has(a, k) && a->val[k] != b->val[k])
			return false;
	}
	return true;
}

static void vals_from(struct profile_vals *pv, const struct bql_queue *q)
{
	memset(pv, 0, sizeof(*pv));
	for (int k = 0; k < BQL_ATTR_NR; k++) {
		if (!profile_key(k) || !bql_has(q, k))
			continue;
		pv->present |= 1u << k;
		pv->val[k] = q->val[k];
	}
}

int profile_add_dev(struct profile *p, const char *ifname,
		    const struct bql_queue *qs, size_t n, bool complete,
		    struct bql_err *e)
{
	struct profile_dev *nd, *d;
	bool all = complete && n > 0;

	if (strlen(ifname) >= BQL_IFNAMSIZ)
		return bql_err_set(e, EINVAL, "%s: device name too long", ifname);
	/* JSON holds UTF-8 only: such a name could not be applied back */
	if (esc_utf8_valid(ifname, strlen(ifname)) != strlen(ifname))
		return bql_err_set(e, EINVAL, "%s: the device name is not valid UTF-8: a JSON profile cannot hold it",
				   ifname);
	for (size_t i = 1; i < n && all; i++)
		all = same_settings(&qs[0], &qs[i]);
	if (p->ndev >= p->capdev) {	/* doubling: linear in the devices */
		size_t cap = p->ndev >= 8 ? 2 * p->ndev : 16;

		nd = realloc(p->dev, cap * sizeof(*nd));
		if (!nd)
			return bql_err_set(e, ENOMEM, "out of memory");
		p->dev = nd;
		p->capdev = cap;
	}
	d = &p->dev[p->ndev];
	memset(d, 0, sizeof(*d));
	memcpy(d->ifname, ifname, strlen(ifname) + 1);
	if (all) {
		d->all = true;
		vals_from(&d->v, &qs[0]);
	} else {
		d->q = calloc(n ? n : 1, sizeof(*d->q));
		if (!d->q)
			return bql_err_set(e, ENOMEM, "out of memory");
		for (size_t i = 0; i < n; i++) {
			d->q[i].queue = qs[i].index;
			vals_from(&d->q[i].v, &qs[i]);
		}
		d->nq = n;
	}
	p->ndev++;
	return 0;
}

/*
 * Add @v under @key of object @o (or to array @o when @key is NULL). Every
 * json-c constructor and add may fail: *@bad records it, so a profile is
 * never written with a value missing. Returns @v or NULL.
 */
static struct json_object *add(struct json_object *o, const char *key,
			       struct json_object *v, bool *bad)
{
	int ret;

	if (!o || !v) {
		json_object_put(v);
		*bad = true;
		return NULL;
	}
	ret = key ? json_object_object_add(o, key, v) : json_object_array_add(o, v);
	if (ret) {
		json_object_put(v);
		*bad = true;
		return NULL;
	}
	return v;
}

static void vals_to_json(struct json_object *o, const struct profile_vals *pv,
			 bool *bad)
{
	/* a fixed key order, for stable files and diffs */
	static const enum bql_attr order[] = {
		BQL_LIMIT_MIN, BQL_LIMIT_MAX, BQL_HOLD_TIME, BQL_STALL_THRS,
	};

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (pv->present & (1u << order[i]))
			add(o, bql_attrs[order[i]].name,
			    json_object_new_uint64(pv->val[order[i]]), bad);
}

char *profile_to_json(const struct profile *p)
{
	struct json_object *root = json_object_new_object(), *devs;
	const char *s;
	char *out = NULL, *esc = NULL;
	bool bad = false;

	if (!root)
		return NULL;
	add(root, "bqltool_profile", json_object_new_int(PROFILE_VERSION), &bad);
	if (p->tool_version[0])
		add(root, "bqltool_version", json_object_new_string(p->tool_version), &bad);
	if (p->kernel[0])
		add(root, "kernel", json_object_new_string(p->kernel), &bad);
	if (p->hz)
		add(root, "hz", json_object_new_int((int)p->hz), &bad);
	devs = add(root, "devices", json_object_new_object(), &bad);
	for (size_t i = 0; i < p->ndev && !bad; i++) {
		const struct profile_dev *d = &p->dev[i];
		struct json_object *jd = add(devs, d->ifname, json_object_new_object(), &bad), *jv;

		if (d->all) {
			jv = add(jd, "all", json_object_new_object(), &bad);
			if (jv)
				vals_to_json(jv, &d->v, &bad);
			continue;
		}
		jv = add(jd, "queues", json_object_new_array(), &bad);
		for (size_t k = 0; k < d->nq && !bad; k++) {
			struct json_object *jq = add(jv, NULL, json_object_new_object(), &bad);

			add(jq, "queue", json_object_new_int((int)d->q[k].queue), &bad);
			if (jq)
				vals_to_json(jq, &d->q[k].v, &bad);
		}
	}
	if (bad) {
		json_object_put(root);
		return NULL;
	}
	s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
					   JSON_C_TO_STRING_SPACED |
					   JSON_C_TO_STRING_NOSLASHESCAPE);
	/* device names are bytes: the file is valid UTF-8 with controls escaped */
	if (s && (esc = esc_json_dup(s)) && asprintf(&out, "%s\n", esc) < 0)
		out = NULL;
	free(esc);
	json_object_put(root);
	return out;
}
