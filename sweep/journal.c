// SPDX-License-Identifier: MIT
/* The sweep's journal: one JSON object per line, written by rank 0 as the results arrive. */
#include "sweep/journal.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common/json.h"
#include "common/lp.h"

int lp_sweep_journal_open(struct lp_sweep_journal *jl, const char *path)
{
	memset(jl, 0, sizeof(*jl));
	snprintf(jl->path, sizeof(jl->path), "%s", path);
	jl->f = fopen(path, "w");
	if (!jl->f) {
		int err = -errno;

		lp_err("journal %s: %s", path, strerror(-err));
		return err;
	}
	return 0;
}

static bool on(const struct lp_sweep_journal *jl)
{
	return jl && jl->f;
}

static void line_begin(struct lp_sweep_journal *jl, struct lp_json *j, const char *type)
{
	lp_json_init(j, jl->f, false);
	lp_json_obj_begin(j, NULL);
	lp_json_str(j, "type", type);
}

/* The line ends and leaves the process: a crash after this loses nothing of it. */
static void line_end(struct lp_sweep_journal *jl, struct lp_json *j)
{
	int ret;

	lp_json_obj_end(j);
	errno = 0;
	ret = lp_json_finish(j); /* the newline, and a flush */
	if (ret && !jl->err)
		jl->err = ret == -EIO && errno ? -errno : ret;
}

void lp_sweep_journal_run(struct lp_sweep_journal *jl, const struct lp_sweep_run *r)
{
	struct lp_json j;

	if (!on(jl))
		return;
	line_begin(jl, &j, "run");
	lp_json_str(&j, "schema", LP_SWEEP_JOURNAL_SCHEMA);
	lp_sweep_json_echo(&j, r);
	line_end(jl, &j);
	for (int m = 0; m < r->nmetrics; m++) {
		line_begin(jl, &j, "metric");
		lp_json_int(&j, "index", m);
		lp_json_str(&j, "test", r->metrics[m].test);
		lp_json_uint(&j, "size", r->metrics[m].size);
		lp_json_bool(&j, "latency", r->metrics[m].lat);
		line_end(jl, &j);
	}
}

void lp_sweep_journal_nodes(struct lp_sweep_journal *jl, const struct lp_sweep_run *r)
{
	struct lp_json j;

	for (int i = 0; on(jl) && i < r->n; i++) {
		line_begin(jl, &j, "node");
		lp_json_int(&j, "index", i);
		lp_record_json(&lp_sweep_node_record, &r->nodes[i], &j);
		line_end(jl, &j);
	}
}

void lp_sweep_journal_cells(struct lp_sweep_journal *jl, const struct lp_sweep_run *r, size_t from)
{
	struct lp_json j;

	for (size_t i = from; on(jl) && i < r->ncells; i++) {
		line_begin(jl, &j, "cell");
		lp_record_json(&lp_sweep_cell_record, &r->cells[i], &j);
		line_end(jl, &j);
	}
}

void lp_sweep_journal_retest(struct lp_sweep_journal *jl, int round, const int32_t *pairs,
			     size_t np)
{
	struct lp_json j;

	if (!on(jl))
		return;
	line_begin(jl, &j, "retest");
	lp_json_int(&j, "round", round);
	lp_json_arr_begin(&j, "pairs");
	for (size_t i = 0; i < np; i++) {
		lp_json_arr_begin(&j, NULL);
		lp_json_int(&j, NULL, pairs[2 * i]);
		lp_json_int(&j, NULL, pairs[2 * i + 1]);
		lp_json_arr_end(&j);
	}
	lp_json_arr_end(&j);
	line_end(jl, &j);
}

void lp_sweep_journal_end(struct lp_sweep_journal *jl, const struct lp_sweep_run *r, int exit_code)
{
	struct lp_json j;

	if (!on(jl))
		return;
	line_begin(jl, &j, "end");
	lp_json_bool(&j, "interrupted", r->interrupted);
	lp_json_uint(&j, "cells", r->ncells);
	lp_json_int(&j, "exit_code", exit_code);
	line_end(jl, &j);
}

int lp_sweep_journal_sync(struct lp_sweep_journal *jl)
{
	if (!on(jl))
		return 0;
	if (fflush(jl->f) == 0 && fsync(fileno(jl->f)) && !jl->err)
		jl->err = -errno;
	return jl->err;
}

int lp_sweep_journal_close(struct lp_sweep_journal *jl)
{
	int err;

	if (!on(jl))
		return 0;
	err = lp_sweep_journal_sync(jl);
	if (fclose(jl->f) && !err)
		err = -errno;
	jl->f = NULL;
	if (err)
		lp_err("journal %s: %s", jl->path, strerror(-err));
	return err;
}
