// SPDX-License-Identifier: MIT
/* Nodes of a sweep without a rank: recorded with their reason, every cell failed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/absent.h"

/* s..e without surrounding white space into out (len bytes, truncated); the untruncated length */
static size_t trimmed(const char *s, const char *e, char *out, size_t len)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	snprintf(out, len, "%.*s", (int)(e - s), s);
	return (size_t)(e - s);
}

static bool known(const struct lp_sweep_run *r, const char *name)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->nodes[i].name, name))
			return true;
	return false;
}

int lp_sweep_add_node(struct lp_sweep_run *r, const char *name, const char *reason)
{
	struct lp_sweep_node *p = realloc(r->nodes, (size_t)(r->n + 1) * sizeof(*p));
	struct lp_sweep_node *nd;

	if (!p)
		return -ENOMEM;
	r->nodes = p;
	nd = &r->nodes[r->n++];
	memset(nd, 0, sizeof(*nd));
	nd->rank = -1;
	nd->dev.numa_node = -1;
	nd->dev.gid_index = -1;
	nd->dscp = -1;
	nd->status = -EHOSTDOWN;
	snprintf(nd->host, sizeof(nd->host), "%s", name);
	snprintf(nd->name, sizeof(nd->name), "%s", name);
	snprintf(nd->error, sizeof(nd->error), "%s", reason[0] ? reason : "no rank in this job");
	return 0;
}

int lp_sweep_absent_cells(struct lp_sweep_run *r, int j)
{
	/* measured[(i * 2 + dir) * nmetrics + m]: a successful cell of j with i (dir 1: j the client) */
	uint8_t *measured = calloc((size_t)r->n * 2 * (size_t)r->nmetrics + 1, 1);

	if (!measured)
		return -ENOMEM;
	for (size_t k = 0; k < r->ncells; k++) {
		const struct lp_sweep_att *c = &r->cells[k];

		if (!c->status && (c->a == j || c->b == j))
			measured[((size_t)(c->a == j ? c->b : c->a) * 2 + (c->a == j)) * r->nmetrics +
				 (size_t)c->metric] = 1;
	}
	for (int m = 0; m < r->nmetrics; m++)
		for (int i = 0; i < r->n; i++)
			for (int dir = 0; dir < 2; dir++) {
				struct lp_sweep_cell c;
				int ret;

				if (i == j || measured[((size_t)i * 2 + dir) * r->nmetrics + m] ||
				    (i > j && r->nodes[i].rank < 0))
					continue; /* measured, or a later absent node's turn */
				lp_sweep_cell_init(&c, m, dir ? j : i, dir ? i : j, LP_PHASE_SWEEP,
						   0);
				c.attempt = r->attempt;
				c.status = -EHOSTDOWN;
				snprintf(c.error, sizeof(c.error), "%s: %s", r->nodes[j].name,
					 r->nodes[j].error);
				ret = lp_sweep_add_cell(r, &c);
				if (ret) {
					free(measured);
					return ret;
				}
			}
	free(measured);
	return 0;
}

int lp_sweep_add_absent(struct lp_sweep_run *r, const char *spec, struct lp_fail *f)
{
	const char *s = spec ? spec : "";

	while (*s) {
		const char *e = s + strcspn(s, ";\n"), *eq = memchr(s, '=', (size_t)(e - s));
		char name[80], reason[LP_SWEEP_ERR_LEN];
		size_t nl = trimmed(s, eq ? eq : e, name, sizeof(name));
		int ret;

		if (!eq && !nl) { /* an empty item */
			s = *e ? e + 1 : e;
			continue;
		}
		if (!eq || !nl || nl >= sizeof(name))
			return lp_fail_set(f, -EINVAL,
					   "'%.*s': expected NAME=REASON (a name under %zu bytes)",
					   (int)(e - s), s, sizeof(name));
		trimmed(eq + 1, e, reason, sizeof(reason)); /* a long reason is cut, not refused */
		if (!known(r, name)) {
			ret = lp_sweep_add_node(r, name, reason);
			if (!ret)
				ret = lp_sweep_absent_cells(r, r->n - 1);
			if (ret)
				return lp_fail_set(f, ret, "out of memory");
		}
		s = *e ? e + 1 : e;
	}
	return 0;
}
