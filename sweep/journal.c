// SPDX-License-Identifier: MIT
/* The sweep's journal: the document's parts, one JSON object per line, written by rank 0 as they come. */
#include "sweep/journal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fail.h"
#include "common/json.h"
#include "common/lp.h"
#include "common/opt.h"
#include "sweep/collrun.h"
#include "sweep/internal.h"

int lp_sweep_journal_open(struct lp_sweep_journal *jl, const char *path, bool replace,
			  struct lp_fail *f)
{
	int err;

	memset(jl, 0, sizeof(*jl));
	if (replace) {
		snprintf(jl->replaces, sizeof(jl->replaces), "%s", path);
		snprintf(jl->path, sizeof(jl->path), "%s.new", path);
		unlink(jl->path); /* a --resume that died before its first round: not the record */
	} else {
		snprintf(jl->path, sizeof(jl->path), "%s", path);
	}
	err = lp_out_create(jl->path, &jl->f);
	if (err == -EEXIST)
		lp_fail_set(
			f, err,
			"journal %s exists (a previous run's record): --resume %s, or move it away",
			jl->path, jl->path);
	return err;
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

void lp_sweep_journal_run(struct lp_sweep_journal *jl, const struct lp_sweep_run *r)
{
	struct lp_json j;

	if (!on(jl))
		return;
	line_begin(jl, &j, "header");
	lp_sweep_json_head(&j, r);
	line_end(jl, &j);
}

void lp_sweep_journal_cells(struct lp_sweep_journal *jl, const struct lp_sweep_run *r, size_t from)
{
	struct lp_sweep_cell *c;
	struct lp_json j;

	if (!on(jl) || from >= r->ncells)
		return;
	c = lp_sweep_cells_unpack(r, NULL, from, r->ncells - from);
	if (!c) {
		jl->err = jl->err ? jl->err : -ENOMEM;
		return;
	}
	line_begin(jl, &j, "round");
	lp_record_json_columns(
		&lp_sweep_cell_record,
		&(struct lp_rec_rows){ .n = r->ncells - from, .base = c, .stride = sizeof(*c) },
		"attempts", &j);
	line_end(jl, &j);
	free(c);
}

/* A retest round's pair: the record of its columns. */
struct pair {
	int32_t a, b;
};

/* clang-format off */
static const struct lp_record pair_record = LP_RECORD(struct pair,
	LP_REC_I32(struct pair, a, LP_REC_RANGE(0, INT32_MAX), LP_REC_KEY("client")),
	LP_REC_I32(struct pair, b, LP_REC_RANGE(0, INT32_MAX), LP_REC_KEY("server")));
/* clang-format on */

void lp_sweep_journal_retest(struct lp_sweep_journal *jl, int round, const int32_t *pairs,
			     size_t np)
{
	struct lp_json j;

	if (!on(jl))
		return;
	line_begin(jl, &j, "retest");
	lp_json_int(&j, "round", round);
	lp_record_json_columns(
		&pair_record,
		&(struct lp_rec_rows){ .n = np, .base = pairs, .stride = 2 * sizeof(*pairs) },
		"pairs", &j);
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
	lp_sweep_json_verdicts(&j, r);
	line_end(jl, &j);
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

/* clang-format off */
const struct lp_record lp_sweep_progress_record = LP_RECORD(struct lp_sweep_progress,
	LP_REC_STR(struct lp_sweep_progress, phase),
	LP_REC_U64(struct lp_sweep_progress, round),
	LP_REC_U64(struct lp_sweep_progress, rounds),
	LP_REC_U64(struct lp_sweep_progress, cells),
	LP_REC_U64(struct lp_sweep_progress, cells_planned),
	LP_REC_F64(struct lp_sweep_progress, elapsed_s),
	LP_REC_F64(struct lp_sweep_progress, left_s),
	LP_REC_F64(struct lp_sweep_progress, predicted_s),
	LP_REC_STR(struct lp_sweep_progress, end));
/* clang-format on */

void lp_sweep_journal_progress(struct lp_sweep_journal *jl, const struct lp_sweep_progress *p)
{
	lp_sweep_journal_record(jl, "progress", &lp_sweep_progress_record, p);
}

/* ---- durability: fsync off the round ---- */

/* One fsync at a time, asked for by each sync; the next one coalesces those asked meanwhile. */
struct lp_sweep_syncer {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int fd;
	bool want, quit;
	int err; /* first fsync error (negative errno) */
};

static void *syncer_main(void *arg)
{
	struct lp_sweep_syncer *s = arg;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!s->want && !s->quit)
			pthread_cond_wait(&s->cv, &s->mu);
		if (!s->want)
			break;
		s->want = false;
		pthread_mutex_unlock(&s->mu);
		int ret = fsync(s->fd) ? -errno : 0;
		pthread_mutex_lock(&s->mu);
		if (ret && !s->err)
			s->err = ret;
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* The syncer for jl's file (started once); NULL when it cannot start: then fsync here. */
static struct lp_sweep_syncer *syncer(struct lp_sweep_journal *jl)
{
	struct lp_sweep_syncer *s = jl->bg;

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->fd = fileno(jl->f);
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	if (pthread_create(&s->thread, NULL, syncer_main, s)) {
		pthread_cond_destroy(&s->cv);
		pthread_mutex_destroy(&s->mu);
		free(s);
		return NULL;
	}
	return jl->bg = s;
}

/* The syncer's last fsync done and the thread ended; its first error into jl->err. */
static void syncer_end(struct lp_sweep_journal *jl)
{
	struct lp_sweep_syncer *s = jl->bg;

	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->quit = true;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	if (s->err && !jl->err)
		jl->err = s->err;
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s);
	jl->bg = NULL;
}

int lp_sweep_journal_sync(struct lp_sweep_journal *jl)
{
	struct lp_sweep_syncer *s;

	if (!on(jl))
		return 0;
	if (fflush(jl->f) && !jl->err)
		jl->err = -errno;
	if (jl->err)
		return jl->err;
	if (jl->replaces[0]) {
		/* the resumed cells on disk first: then the new journal takes the old one's place */
		if (fsync(fileno(jl->f)) || rename(jl->path, jl->replaces))
			jl->err = -errno;
		else
			snprintf(jl->path, sizeof(jl->path), "%s", jl->replaces);
		jl->replaces[0] = 0;
		return jl->err;
	}
	s = syncer(jl);
	if (!s) {
		if (fsync(fileno(jl->f)))
			jl->err = -errno;
		return jl->err;
	}
	pthread_mutex_lock(&s->mu);
	s->want = true;
	if (s->err && !jl->err)
		jl->err = s->err;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return jl->err;
}

int lp_sweep_journal_close(struct lp_sweep_journal *jl, struct lp_fail *f)
{
	int err;

	if (!on(jl))
		return 0;
	err = lp_sweep_journal_sync(jl);
	syncer_end(jl); /* the fsync asked for last is done */
	err = err ? err : jl->err;
	if (fclose(jl->f) && !err)
		err = -errno;
	jl->f = NULL;
	if (err)
		lp_fail_set(f, err, "journal %s: %s", jl->path, strerror(-err));
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

static const char *const line_types[] = { "header",	 "round",	 "retest", "end",
					  "coll_result", "coll_verdict", NULL };

/* What a line says besides its parts. */
struct line {
	const char *type; /* one of line_types, NULL another (skipped) */
	char time[32];
	int32_t round;
	bool interrupted;
	int32_t exit_code;
	uint64_t cells;
};

/* clang-format off */
static const struct lp_record retest_line_record = LP_RECORD_LEGACY(struct line,
	LP_REC_I32(struct line, round));
static const struct lp_record end_line_record = LP_RECORD_LEGACY(struct line,
	LP_REC_BOOL(struct line, interrupted),
	LP_REC_I32(struct line, exit_code),
	LP_REC_U64(struct line, cells));
/* clang-format on */

static int count_pair(void *obj, size_t row, void *arg)
{
	struct lp_sweep_run *r = arg;
	const struct pair *p = obj;

	(void)row;
	if (p->a >= r->n || p->b >= r->n || p->a == p->b)
		return -EINVAL;
	r->nretests++;
	return 0;
}

/* The attempts of a round line; the nodes of the successful ones seen at the line's time. */
static int round_line(struct lp_sweep_run *r, const json_t *o, const struct line *ln,
		      struct lp_sweep_journal_info *info, struct lp_fail *f)
{
	size_t from = r->ncells;
	int rc = lp_sweep_read_attempts(r, json_object_get(o, "attempts"), f);

	for (size_t k = from; !rc && k < r->ncells; k++)
		if (!r->cells[k].status && ln->time[0]) {
			snprintf(info->seen[r->cells[k].a], sizeof(info->seen[0]), "%s", ln->time);
			snprintf(info->seen[r->cells[k].b], sizeof(info->seen[0]), "%s", ln->time);
		}
	return rc;
}

static int read_line(struct lp_sweep_run *r, const json_t *o, const struct line *ln,
		     struct lp_sweep_journal_info *info, struct lp_fail *f)
{
	struct line x = { 0 };
	struct pair p, tmpl = { 0, 0 };
	int rc;

	if (!ln->type || !strcmp(ln->type, "header"))
		return ln->type ? lp_fail_set(f, -EINVAL, "a second header") : 0;
	if (!strcmp(ln->type, "round"))
		return round_line(r, o, ln, info, f);
	if (!strncmp(ln->type, "coll_", 5))
		return lp_sweep_coll_journal_line(r, ln->type, o, f);
	if (!strcmp(ln->type, "retest")) {
		rc = lp_record_read_json(&retest_line_record, &x, o, f);
		return rc ? rc
			  : lp_record_read_columns(&pair_record, 0, json_object_get(o, "pairs"),
						   SIZE_MAX, &p, &tmpl, count_pair, r, f);
	}
	rc = lp_record_read_json(&end_line_record, &x, o, f);
	if (!rc) {
		info->ended = true;
		r->interrupted = x.interrupted;
		info->exit_code = x.exit_code;
	}
	return rc;
}

/* The line's type and time; false when it has none (not a journal line). */
static bool line_of(const json_t *o, struct line *ln)
{
	const char *type = json_string_value(json_object_get(o, "type")),
		   *time = json_string_value(json_object_get(o, "time"));

	memset(ln, 0, sizeof(*ln));
	if (!type)
		return false;
	for (size_t k = 0; line_types[k]; k++)
		if (!strcmp(type, line_types[k]))
			ln->type = line_types[k];
	snprintf(ln->time, sizeof(ln->time), "%s", time ? time : "");
	return true;
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

/* The next line of text from *pos (without its newline); false at the end. */
static bool next_line(const char *text, size_t len, size_t *pos, const char **line_p, size_t *n_p,
		      bool *whole_p)
{
	const char *nl;

	if (*pos >= len)
		return false;
	*line_p = text + *pos;
	nl = memchr(*line_p, '\n', len - *pos);
	*n_p = nl ? (size_t)(nl - *line_p) : len - *pos;
	*whole_p = nl != NULL;
	*pos += *n_p + 1;
	return true;
}

bool lp_sweep_journal_is(const char *text, size_t len)
{
	const char *nl = memchr(text, '\n', len), *key = "{\"type\":\"header\"";

	return len > strlen(key) && !strncmp(text, key, strlen(key)) &&
	       (!nl || (size_t)(nl - text) > strlen(key));
}

/* The header line: the run's head (r initialised), then its bound and info's arrays. */
static int header_line(struct lp_sweep_run *r, const json_t *o, size_t len,
		       struct lp_sweep_journal_info *info, struct lp_fail *f)
{
	int rc = lp_sweep_read_head(r, o, f);

	if (!rc)
		rc = lp_sweep_read_bound(r, len, f);
	if (!rc) {
		info->seen = calloc((size_t)r->n, sizeof(*info->seen));
		rc = info->seen ? 0 : -ENOMEM;
	}
	return rc;
}

/* Each line of the text into r; a line that does not parse is left out (counted). */
static int parse_lines(struct lp_sweep_run *r, const char *text, size_t len,
		       struct lp_sweep_journal_info *info, struct lp_fail *f)
{
	const char *s;
	size_t n, pos = 0, no = 0;
	bool whole;
	int rc = 0;

	while (!rc && next_line(text, len, &pos, &s, &n, &whole)) {
		struct lp_fail lf = { 0 };
		json_t *o = n ? lp_record_loadb(s, n, NULL) : NULL;
		struct line ln;

		no++;
		if (!o || !line_of(o, &ln)) {
			if (no == 1)
				rc = -ENOMSG;
			else if (n && !whole)
				info->truncated = true;
			else if (n && !info->cut++)
				info->cut_line = no;
			json_decref(o);
			continue;
		}
		rc = no == 1 ? (ln.type == line_types[0] ? header_line(r, o, len, info, &lf)
							 : -ENOMSG)
			     : read_line(r, o, &ln, info, &lf);
		if (rc && rc != -ENOMSG)
			lp_fail_set(f, rc, "line %zu: %s", no, lp_fail_msg(&lf));
		if (ln.time[0])
			snprintf(info->last, sizeof(info->last), "%s", ln.time);
		json_decref(o);
		info->lines += !rc;
	}
	return rc ? rc : no ? 0 : -ENOMSG;
}

int lp_sweep_journal_parse(struct lp_sweep_run *r, const char *text, size_t len,
			   struct lp_sweep_journal_info *info_p, struct lp_fail *f)
{
	struct lp_sweep_journal_info info = { .exit_code = -1 };
	int rc;

	memset(r, 0, sizeof(*r));
	rc = parse_lines(r, text, len, &info, f);
	if (!rc) {
		r->incomplete = !info.ended;
		rc = rebuild_schedule(r);
		if (rc)
			lp_fail_set(f, rc, "cannot rebuild the schedule: %s", strerror(-rc));
	}
	if (rc) {
		free(info.seen);
		if (r->nodes)
			lp_sweep_run_free(r);
		if (rc == -ENOMSG)
			lp_fail_set(f, rc, "not a journal");
		return rc;
	}
	if (info_p)
		*info_p = info;
	else
		free(info.seen);
	return 0;
}
#else
int lp_sweep_journal_parse(struct lp_sweep_run *r, const char *text, size_t len,
			   struct lp_sweep_journal_info *info, struct lp_fail *f)
{
	(void)text;
	(void)len;
	(void)info;
	memset(r, 0, sizeof(*r));
	return lp_fail_set(f, -ENOTSUP, "built without a JSON library (libjansson-dev)");
}

bool lp_sweep_journal_is(const char *text, size_t len)
{
	(void)text;
	(void)len;
	return false;
}
#endif

int lp_sweep_read_bound(const struct lp_sweep_run *r, size_t bytes, struct lp_fail *f)
{
	double n = r->n;

	if (n * n <= 64.0 * (double)bytes + (1 << 20))
		return 0;
	return lp_fail_set(f, -EINVAL, "%d nodes in %zu bytes: more than such a file can record",
			   r->n, bytes);
}

/* The whole file in memory (its size bounds what it can claim). */
/*
 * The file at path mapped read-only (a document's blocks hand their pages back once read:
 * lp_sweep_read_mapped); "" for an empty file. NULL with *err_p: -EINVAL not a regular file,
 * or the negative errno.
 */
static const char *map_file(const char *path, size_t *len_p, int *err_p)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *p = NULL;

	*err_p = 0;
	*len_p = 0;
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		*err_p = fd >= 0 && !S_ISREG(st.st_mode) ? -EINVAL : -errno;
		goto out;
	}
	*len_p = (size_t)st.st_size;
	p = *len_p ? mmap(NULL, *len_p, PROT_READ, MAP_PRIVATE, fd, 0) : (void *)"";
	if (p == MAP_FAILED) {
		*err_p = -errno;
		p = NULL;
	}
out:
	if (fd >= 0)
		close(fd);
	return p;
}

int lp_sweep_read_run(struct lp_sweep_run *r, const char *path, struct lp_sweep_journal_info *info,
		      struct lp_fail *f)
{
	size_t len = 0;
	int rc;
	const char *text = map_file(path, &len, &rc);

	memset(r, 0, sizeof(*r));
	if (!text)
		return lp_fail_set(f, rc, "%s",
				   rc == -EINVAL ? "not a regular file" : strerror(-rc));
	if (lp_sweep_journal_is(text, len)) {
		rc = lp_sweep_journal_parse(r, text, len, info, f);
	} else {
		if (info)
			*info = (struct lp_sweep_journal_info){ .ended = true, .exit_code = -1 };
		rc = lp_sweep_read_mapped(r, text, len, f);
		if (!rc && (rc = lp_sweep_read_bound(r, len, f)))
			lp_sweep_run_free(r);
	}
	if (len)
		munmap((void *)text, len);
	return rc;
}
