// SPDX-License-Identifier: MIT
/* The sweep's journal: one JSON object per line, written by rank 0 as the results arrive. */
#include "sweep/journal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/json.h"
#include "common/lp.h"
#include "common/opt.h"
#include "sweep/collrun.h"

int lp_sweep_journal_open(struct lp_sweep_journal *jl, const char *path, bool replace)
{
	memset(jl, 0, sizeof(*jl));
	if (replace) {
		snprintf(jl->replaces, sizeof(jl->replaces), "%s", path);
		snprintf(jl->path, sizeof(jl->path), "%s.new", path);
	} else {
		snprintf(jl->path, sizeof(jl->path), "%s", path);
	}
	jl->f = fopen(jl->path, "w");
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

/* Every line says when it was written: a node lost mid-sweep is "missing since" its last cell. */
static void line_begin(struct lp_sweep_journal *jl, struct lp_json *j, const char *type)
{
	char now[32];

	lp_time_iso8601(now, sizeof(now));
	lp_json_init(j, jl->f, false);
	lp_json_obj_begin(j, NULL);
	lp_json_str(j, "type", type);
	lp_json_str(j, "time", now);
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

void lp_sweep_journal_record(struct lp_sweep_journal *jl, const char *type,
			     const struct lp_record *rec, const void *obj)
{
	struct lp_json j;

	if (!on(jl))
		return;
	line_begin(jl, &j, type);
	lp_record_json(rec, obj, &j);
	line_end(jl, &j);
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

void lp_sweep_journal_progress(struct lp_sweep_journal *jl, const struct lp_sweep_progress *p)
{
	struct lp_json j;

	if (!on(jl))
		return;
	line_begin(jl, &j, "progress");
	lp_json_str(&j, "phase", p->phase);
	lp_json_uint(&j, "round", p->round);
	lp_json_uint(&j, "rounds", p->rounds);
	lp_json_uint(&j, "cells", p->cells);
	lp_json_uint(&j, "cells_planned", p->cells_planned);
	lp_json_num(&j, "elapsed_s", p->elapsed_s);
	lp_json_num(&j, "left_s", p->left_s);
	lp_json_num(&j, "predicted_s", p->predicted_s);
	lp_json_str(&j, "end", p->end);
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
	if (jl->replaces[0] && !jl->err) {
		/* the resumed cells are on disk: the new journal takes the old one's place */
		if (rename(jl->path, jl->replaces))
			jl->err = -errno;
		else
			snprintf(jl->path, sizeof(jl->path), "%s", jl->replaces);
		jl->replaces[0] = 0;
	}
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

/* ---- reading a journal back ---- */

void lp_sweep_journal_info_free(struct lp_sweep_journal_info *info)
{
	if (info)
		free(info->seen);
}

#ifdef LP_HAVE_JANSSON
#include <jansson.h>

/* The first line: the run's echo and its node count (r initialised). */
static int read_run_line(struct lp_sweep_run *r, const json_t *o, char *why, size_t why_len)
{
	const json_t *run = json_object_get(o, "run");
	json_int_t n = json_integer_value(json_object_get(run, "nodes"));
	int rc;

	if (n < 1 || n > 1 << 20) {
		snprintf(why, why_len, "line 1: the run has no node count");
		return -EINVAL;
	}
	rc = lp_sweep_run_init(r, (int)n);
	if (!rc)
		lp_sweep_read_echo(r, run, json_object_get(o, "schedule"));
	return rc;
}

static int read_line(struct lp_sweep_run *r, const json_t *o, struct lp_sweep_journal_info *info,
		     char *why, size_t why_len)
{
	const char *type = json_string_value(json_object_get(o, "type"));
	const char *time = json_string_value(json_object_get(o, "time"));
	json_int_t idx = json_integer_value(json_object_get(o, "index"));
	struct lp_sweep_cell c;
	int rc;

	if (!type) {
		snprintf(why, why_len, "no type");
		return -EINVAL;
	}
	if (!strcmp(type, "metric")) {
		const char *test = json_string_value(json_object_get(o, "test"));

		if (!test ||
		    lp_sweep_add_metric(r, test, -1, json_is_true(json_object_get(o, "latency")),
					(uint64_t)json_integer_value(json_object_get(o, "size"))) <
			    0) {
			snprintf(why, why_len, "a metric without a test, or too many");
			return -EINVAL;
		}
	} else if (!strcmp(type, "node")) {
		if (idx < 0 || idx >= r->n) {
			snprintf(why, why_len, "node index %lld out of range", (long long)idx);
			return -EINVAL;
		}
		return lp_record_read_json(&lp_sweep_node_record, &r->nodes[idx], o, why, why_len);
	} else if (!strcmp(type, "cell")) {
		lp_sweep_cell_init(&c, 0, 0, 0, 0, 0);
		rc = lp_record_read_json(&lp_sweep_cell_record, &c, o, why, why_len);
		if (!rc && lp_sweep_add_cell(r, &c)) {
			snprintf(why, why_len, "a cell's metric or node out of range");
			rc = -EINVAL;
		}
		if (!rc && !c.status && time) {
			snprintf(info->seen[c.a], sizeof(info->seen[c.a]), "%s", time);
			snprintf(info->seen[c.b], sizeof(info->seen[c.b]), "%s", time);
		}
		return rc;
	} else if (!strcmp(type, "retest")) {
		r->nretests += json_array_size(json_object_get(o, "pairs"));
	} else if (!strcmp(type, "end")) {
		info->ended = true;
		r->interrupted = json_is_true(json_object_get(o, "interrupted"));
		info->exit_code = (int)json_integer_value(json_object_get(o, "exit_code"));
	}
	if (!strncmp(type, "coll_", 5))
		return lp_sweep_coll_journal_line(r, type, o, why, why_len);
	return 0; /* a line of a later version's type is skipped */
}

/* The schedule the run followed, rebuilt from its echo over its ranks (absent nodes come after). */
static int rebuild_schedule(struct lp_sweep_run *r)
{
	int kind = lp_choice_index(lp_sched_names, r->sched_name), nranks = 0, ret;
	int *groups = calloc((size_t)r->n, sizeof(int));

	r->sched_own = calloc(1, sizeof(*r->sched_own));
	if (!groups || !r->sched_own) {
		free(groups);
		return -ENOMEM;
	}
	while (nranks < r->n && r->nodes[nranks].rank >= 0) {
		groups[nranks] = r->rails ? r->nodes[nranks].rail : 0;
		nranks++;
	}
	ret = kind < 0 || kind == LP_SCHED_LIST || nranks < 2
		      ? 0
		      : lp_sched_build_groups(r->sched_own, (enum lp_sched_kind)kind, nranks,
					      groups, r->random_k, r->seed);
	free(groups);
	if (!ret && r->sched_own->nslots)
		r->sched = r->sched_own;
	return ret;
}

/* One line, parsed; NULL when it is not a JSON object. */
static json_t *parse_line(const char *line, size_t len)
{
	json_t *o = json_loadb(line, len, JSON_DISABLE_EOF_CHECK, NULL);

	if (o && !json_is_object(o)) {
		json_decref(o);
		o = NULL;
	}
	return o;
}

static bool is_journal(const json_t *o)
{
	const char *type = json_string_value(json_object_get(o, "type"));
	const char *schema = json_string_value(json_object_get(o, "schema"));

	return type && schema && !strcmp(type, "run") && !strcmp(schema, LP_SWEEP_JOURNAL_SCHEMA);
}

int lp_sweep_journal_read(struct lp_sweep_run *r, const char *path,
			  struct lp_sweep_journal_info *info_p, char *why, size_t why_len)
{
	struct lp_sweep_journal_info info = { .exit_code = -1 };
	char *line = NULL, lwhy[200] = "";
	size_t cap = 0;
	ssize_t len;
	FILE *f = fopen(path, "r");
	int rc = 0;

	memset(r, 0, sizeof(*r));
	if (!f) {
		rc = -errno;
		snprintf(why, why_len, "%s", strerror(-rc));
		return rc;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		json_t *o = parse_line(line, (size_t)len);

		if (!o || (!info.lines && !is_journal(o))) {
			if (!info.lines) {
				rc = -ENOMSG;
			} else if (fgetc(f) == EOF) { /* the last line, cut short: a power loss */
				info.truncated = true;
			} else {
				snprintf(why, why_len, "line %zu: not a JSON object",
					 info.lines + 1);
				rc = -EINVAL;
			}
			json_decref(o);
			break;
		}
		if (!info.lines) {
			rc = read_run_line(r, o, why, why_len);
			info.seen = rc ? NULL : calloc((size_t)r->n, sizeof(*info.seen));
			if (!rc && !info.seen)
				rc = -ENOMEM;
		} else {
			rc = read_line(r, o, &info, lwhy, sizeof(lwhy));
			if (rc)
				snprintf(why, why_len, "line %zu: %s", info.lines + 1, lwhy);
		}
		if (json_is_string(json_object_get(o, "time")))
			snprintf(info.last, sizeof(info.last), "%s",
				 json_string_value(json_object_get(o, "time")));
		json_decref(o);
		if (rc)
			break;
		info.lines++;
	}
	free(line);
	fclose(f);
	if (!rc && !info.lines)
		rc = -ENOMSG; /* empty */
	if (!rc) {
		r->incomplete = !info.ended;
		rc = rebuild_schedule(r);
		if (rc)
			snprintf(why, why_len, "cannot rebuild the schedule: %s", strerror(-rc));
	}
	if (rc) {
		free(info.seen);
		if (r->nodes)
			lp_sweep_run_free(r);
		if (rc == -ENOMSG)
			snprintf(why, why_len, "not a journal");
		return rc;
	}
	if (info_p)
		*info_p = info;
	else
		free(info.seen);
	return 0;
}
#else
int lp_sweep_journal_read(struct lp_sweep_run *r, const char *path,
			  struct lp_sweep_journal_info *info, char *why, size_t why_len)
{
	(void)path;
	(void)info;
	memset(r, 0, sizeof(*r));
	snprintf(why, why_len, "built without a JSON library (libjansson-dev)");
	return -ENOTSUP;
}
#endif

int lp_sweep_read_run(struct lp_sweep_run *r, const char *path, struct lp_sweep_journal_info *info,
		      char *why, size_t why_len)
{
	int rc = lp_sweep_journal_read(r, path, info, why, why_len);

	if (rc != -ENOMSG)
		return rc;
	if (info)
		*info = (struct lp_sweep_journal_info){ .ended = true, .exit_code = -1 };
	return lp_sweep_read_json(r, path, why, why_len);
}
