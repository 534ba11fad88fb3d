// SPDX-License-Identifier: MIT
/*
 * A document's top level apart (sweep/read.c): the members of the root object
 * and the elements of its "blocks" array found as spans of the text, each then
 * parsed by jansson alone, so that the tree of a whole 1,024-node run (tens of
 * gigabytes as json_t) is never built: a block's tree lives while it is read.
 * The walk checks the top level's punctuation and skips values by their
 * brackets and strings; jansson checks every value it is given.
 */
#include "sweep/internal.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/lp.h"

#ifdef LP_HAVE_JANSSON
#include <jansson.h>

static size_t skip_ws(const char *t, size_t len, size_t i)
{
	while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
		i++;
	return i;
}

/* Past the string opening at t[i] ('"'); len when it does not end. */
static size_t skip_string(const char *t, size_t len, size_t i)
{
	for (i++; i < len; i++) {
		if (t[i] == '\\')
			i++;
		else if (t[i] == '"')
			return i + 1;
	}
	return len;
}

/* strcspn within len bytes (the text need not end in a NUL). */
static size_t strcspn_n(const char *t, size_t len, const char *stop)
{
	size_t i = 0;

	while (i < len && t[i] && !strchr(stop, t[i]))
		i++;
	return i;
}

/* Past the value starting at t[i]: a string, an object or array (by its brackets), a scalar. */
static size_t skip_value(const char *t, size_t len, size_t i)
{
	size_t depth = 0;

	if (i < len && t[i] == '"')
		return skip_string(t, len, i);
	if (i >= len || (t[i] != '{' && t[i] != '['))
		return i + strcspn_n(t + i, len - i, ",}] \t\r\n");
	for (; i < len; i++) {
		if (t[i] == '"')
			i = skip_string(t, len, i) - 1;
		else if (t[i] == '{' || t[i] == '[')
			depth++;
		else if ((t[i] == '}' || t[i] == ']') && --depth == 0)
			return i + 1;
	}
	return len;
}

/* "not JSON: ... (line N)" as lp_record_loadb says it, N counted in the whole text. */
static json_t *load_span(const struct lp_sweep_span *s, const char *text, struct lp_fail *f)
{
	json_error_t err;
	json_t *v = json_loadb(s->p, s->len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
	int line = 1;

	if (v)
		return v;
	for (const char *p = text; p < s->p; p++)
		line += *p == '\n';
	lp_fail_set(f, -EINVAL, "not JSON: %s (line %d)", err.text, line + LP_MAX(err.line, 1) - 1);
	return NULL;
}

/* The whole pages of a file mapping in [from, to) handed back (read again from the file if
 * touched); *from moves on to what is left. */
static void drop_pages(const char **from, const char *to)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE),
		  a = ((uintptr_t)*from + page - 1) & ~(page - 1), b = (uintptr_t)to & ~(page - 1);

	if (b > a) {
		madvise((void *)a, b - a, MADV_DONTNEED);
		*from = (const char *)b;
	}
}

/* Member name: value of the root at t[*i] ('"'): into o, or its span into blocks (its pages
 * handed back once walked when blocks->mapped: the blocks are read one by one later). */
static int root_member(const char *t, size_t len, size_t *i, json_t *o,
		       struct lp_sweep_span *blocks, struct lp_fail *f)
{
	struct lp_sweep_span k = { t + *i, skip_string(t, len, *i) - *i, false }, v;
	json_t *key = load_span(&k, t, f), *val = NULL;
	const char *name = json_string_value(key);
	int rc = -EINVAL;

	*i = skip_ws(t, len, *i + k.len);
	if (!name || *i >= len || t[*i] != ':')
		goto out;
	*i = skip_ws(t, len, *i + 1);
	v = (struct lp_sweep_span){ t + *i, skip_value(t, len, *i) - *i, false };
	*i = skip_ws(t, len, *i + v.len);
	if (json_object_get(o, name) || (blocks->p && !strcmp(name, "blocks"))) {
		lp_fail_set(f, -EINVAL, "not JSON: duplicate object key %s", name);
		goto out;
	}
	if (!strcmp(name, "blocks")) {
		const char *from = v.p;

		if (blocks->mapped)
			drop_pages(&from, v.p + v.len);
		v.mapped = blocks->mapped;
		*blocks = v;
		rc = 0;
	} else if ((val = load_span(&v, t, f)) != NULL) {
		rc = json_object_set_new(o, name, val) ? -ENOMEM : 0;
	}
out:
	json_decref(key);
	return rc;
}

int lp_sweep_span_root(const char *t, size_t len, bool mapped, json_t **root,
		       struct lp_sweep_span *blocks, struct lp_fail *f)
{
	size_t i = skip_ws(t, len, 0);
	json_t *o = json_object();
	int rc = o ? 0 : -ENOMEM;

	*blocks = (struct lp_sweep_span){ NULL, 0, mapped };
	if (!rc && (i >= len || t[i] != '{'))
		rc = -EINVAL;
	i = rc ? i : skip_ws(t, len, i + 1);
	while (!rc && i < len && t[i] != '}') {
		rc = t[i] == '"' ? root_member(t, len, &i, o, blocks, f) : -EINVAL;
		if (rc || i >= len || t[i] != ',')
			break;
		i = skip_ws(t, len, i + 1);
		rc = i < len && t[i] == '"' ? 0 : -EINVAL; /* a comma before nothing */
	}
	if (!rc && !(i < len && t[i] == '}' && skip_ws(t, len, i + 1) == len))
		rc = -EINVAL;
	if (rc == -EINVAL) /* unless a member said more */
		lp_fail_set(f, rc, "not JSON: the top level is not one object");
	if (rc)
		json_decref(o);
	else
		*root = o;
	return rc;
}

int lp_sweep_span_each(const struct lp_sweep_span *arr, const char *text,
		       int (*each)(const json_t *v, size_t i, void *arg), void *arg,
		       struct lp_fail *f)
{
	const char *t = arr->p, *kept = arr->p;
	size_t len = arr->len, i = skip_ws(t, len, 1), k = 0;

	if (!len || t[0] != '[')
		return lp_fail_set(f, -EINVAL, "no \"blocks\" array");
	while (i < len && (k || t[i] != ']')) {
		struct lp_sweep_span v = { t + i, skip_value(t, len, i) - i, false };
		json_t *o = load_span(&v, text, f);
		int rc = o ? each(o, k++, arg) : -EINVAL;

		json_decref(o);
		if (rc)
			return rc;
		if (arr->mapped)
			drop_pages(&kept, v.p + v.len);
		i = skip_ws(t, len, i + v.len);
		if (i >= len || t[i] != ',')
			break;
		i = skip_ws(t, len, i + 1);
	}
	if (i + 1 == len && t[i] == ']')
		return 0;
	return lp_fail_set(f, -EINVAL, "not JSON: \"blocks\" is not one array");
}
#endif
