// SPDX-License-Identifier: MIT
/* lp-sweep --resume: the journal's cells matched to the new run by name, the rest measured. */
#include "sweep/resume.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "sweep/absent.h"

/* One field of the metrics as a comma list, each item once: what 0 tests, 1 bandwidth sizes, 2 latency sizes. */
static void metric_list(const struct lp_sweep_run *r, int what, char *buf, size_t len)
{
	const char *items[LP_SWEEP_MAX_METRICS];
	int n = 0;

	buf[0] = 0;
	for (int m = 0; m < r->nmetrics; m++) {
		const struct lp_sweep_metric *mt = &r->metrics[m];
		const char *size = strchr(mt->label, ' ');
		const char *item = what ? (size ? size + 1 : "") : mt->test;
		bool seen = false;

		if (what && (what == 1) == mt->lat)
			continue;
		for (int k = 0; k < n; k++)
			seen = seen || !strcmp(items[k], item);
		if (seen)
			continue;
		items[n++] = item;
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", n > 1 ? "," : "", item);
	}
}

int lp_sweep_resume_check(const struct lp_sweep_run *prev, const struct lp_sweep_run *now,
			  struct lp_fail *f)
{
	static const char *const lists[] = { "--tests", "--bw-sizes", "--lat-sizes" };
	char a[256], b[256];

	for (int w = 0; w < 3; w++) {
		metric_list(prev, w, a, sizeof(a));
		metric_list(now, w, b, sizeof(b));
		if (strcmp(a, b))
			return lp_fail_set(f, -EINVAL, "%s: journal %s, now %s", lists[w],
					   a[0] ? a : "none", b[0] ? b : "none");
	}
#define SAME(opt, field, fmt, cast)                                                                \
	if (prev->field != now->field)                                                             \
		return lp_fail_set(f, -EINVAL, opt ": journal " fmt ", now " fmt,                  \
				   (cast)prev->field, (cast)now->field);
	SAME("--bw-iters", bw_iters, "%llu", unsigned long long);
	SAME("--lat-iters", lat_iters, "%llu", unsigned long long);
	SAME("--partners", random_k, "%d", int);
	SAME("--schedule-seed", seed, "%llu", unsigned long long);
	SAME("--tclass", tclass, "%d", int);
	SAME("--sl", sl, "%d", int);
	SAME("--rails", rails, "%d", int);
#undef SAME
	if (strcmp(prev->sched_name ? prev->sched_name : "",
		   now->sched_name ? now->sched_name : ""))
		return lp_fail_set(f, -EINVAL, "--schedule: journal %s, now %s", prev->sched_name,
				   now->sched_name);
	return 0;
}

/* Index of the node called name among r's first n, or -1. */
static int node_index(const struct lp_sweep_node *nodes, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(nodes[i].name, name))
			return i;
	return -1;
}

void lp_sweep_resume_done(const struct lp_sweep_run *prev, const struct lp_sweep_run *now,
			  const char (*names)[80], int nranks, uint8_t *done)
{
	size_t nm = (size_t)now->nmetrics;
	int *map = malloc(((size_t)prev->n + 1) * sizeof(int));

	memset(done, 0, (size_t)nranks * nranks * nm);
	if (!map)
		return; /* nothing skipped: everything measured again */
	for (int i = 0; i < prev->n; i++) {
		map[i] = -1;
		for (int k = 0; k < nranks; k++)
			if (!strcmp(prev->nodes[i].name, names[k]))
				map[i] = k;
	}
	for (size_t k = 0; k < prev->ncells; k++) {
		const struct lp_sweep_att *c = &prev->cells[k];
		int a = map[c->a], b = map[c->b];

		if (!c->status && a >= 0 && b >= 0 && (size_t)c->metric < nm)
			done[((size_t)a * nranks + (size_t)b) * nm + (size_t)c->metric] = 1;
	}
	free(map);
}

int lp_sweep_resume_merge(struct lp_sweep_run *now, const struct lp_sweep_run *prev,
			  const char (*seen)[32], const char *path)
{
	int *map = malloc(((size_t)prev->n + 1) * sizeof(int)), n0 = now->n, last = prev->attempt,
	    ret = 0;

	if (!map)
		return -ENOMEM;
	for (int i = 0; i < prev->n && !ret; i++) {
		char reason[LP_SWEEP_ERR_LEN];

		map[i] = node_index(now->nodes, now->n, prev->nodes[i].name);
		if (map[i] >= 0)
			continue;
		snprintf(reason, sizeof(reason), "node missing since %s",
			 seen && seen[i][0] ? seen[i] : prev->started);
		ret = lp_sweep_add_node(now, prev->nodes[i].name, reason);
		map[i] = now->n - 1;
	}
	for (size_t k = 0; k < prev->ncells && !ret; k++) {
		struct lp_sweep_cell c;

		lp_sweep_cell_get(prev, k, &c);
		c.a = map[c.a];
		c.b = map[c.b];
		last = LP_MAX(last, c.attempt);
		ret = lp_sweep_add_cell(now, &c);
	}
	now->attempt = last + 1;
	snprintf(now->resumed, sizeof(now->resumed), "%s", path);
	for (int j = n0; j < now->n && !ret; j++)
		ret = lp_sweep_absent_cells(now, j);
	free(map);
	return ret;
}
