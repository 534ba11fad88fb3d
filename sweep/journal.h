/* SPDX-License-Identifier: MIT */
/*
 * The sweep's journal: rank 0 appends what it learns as it learns it, one
 * JSON object per line, so that a crash, a kill or a lost node leaves a record
 * of every cell measured until then (issue 18). Lines:
 *
 *   {"type":"run", "schema":"linkperf.sweep-journal/1", "started", "nodes", "schedule", ...}
 *   {"type":"metric", "index", "test", "size", "latency"}
 *   {"type":"node", "index", <lp_sweep_node_record's members>}
 *   {"type":"cell", <lp_sweep_cell_record's members>}
 *   {"type":"retest", "round", "pairs"}
 *   {"type":"coll_result"|"coll_verdict", <the collective record's members>} (sweep/coll.h)
 *   {"type":"progress", "phase", "round", "rounds", "cells", "cells_planned", "elapsed_s",
 *    "left_s", "predicted_s", "end"}   (at most one per lp-sweep progress line; readers skip it)
 *   {"type":"end", "interrupted", "exit_code"}
 *
 * The node and cell lines come from the records the ranks send rank 0
 * (sweep/result.h), so the journal holds what travelled, field for field.
 * Every line also has "time" (UTC, ISO 8601). Lines are flushed at once;
 * lp_sweep_journal_sync() (at every round's end) also fsyncs. A line cut short
 * by a power loss is the last one. lp_sweep_journal_read() builds the run back
 * from it: the journal is the source of truth of `lp-sweep --diagnose` and
 * `--resume` after a crash.
 */
#ifndef LP_SWEEP_JOURNAL_H
#define LP_SWEEP_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sweep/result.h"

#define LP_SWEEP_JOURNAL_SCHEMA "linkperf.sweep-journal/1"

struct lp_sweep_journal {
	FILE *f; /* NULL: no journal (every call does nothing) */
	char path[4096];
	char replaces[4096]; /* written as path, renamed over this at the first sync ("" none) */
	int err;	     /* first write error (negative errno), sticky */
};

/*
 * Create or truncate path. replace: path is the journal a --resume reads; the
 * new one is written as PATH.new and renamed over it at the first sync, once it
 * holds the resumed cells, so the old one stays whole until then. 0, or a
 * negative errno after one lp_err line.
 */
int lp_sweep_journal_open(struct lp_sweep_journal *jl, const char *path, bool replace);
/* Flush, fsync and close: 0, or the first write error (said once). */
int lp_sweep_journal_close(struct lp_sweep_journal *jl);

/* The run's parameters (r's echo and metrics) and its nodes. */
void lp_sweep_journal_run(struct lp_sweep_journal *jl, const struct lp_sweep_run *r);
void lp_sweep_journal_nodes(struct lp_sweep_journal *jl, const struct lp_sweep_run *r);
/* The cells r->cells[from..r->ncells), as they arrived. */
void lp_sweep_journal_cells(struct lp_sweep_journal *jl, const struct lp_sweep_run *r, size_t from);
/* A record of another phase as a line of its own type ("coll_result": the record's members). */
void lp_sweep_journal_record(struct lp_sweep_journal *jl, const char *type,
			     const struct lp_record *rec, const void *obj);
/* A retest round's list of ordered pairs (np couples). */
void lp_sweep_journal_retest(struct lp_sweep_journal *jl, int round, const int32_t *pairs,
			     size_t np);
/* Where a run stands: its progress line, for whoever watches the journal. */
struct lp_sweep_progress {
	const char *phase;	     /* "sweep", "retest", "load latency", "incast" */
	size_t round, rounds;	     /* rounds of the phase done, and its rounds */
	size_t cells, cells_planned; /* cells gathered, and planned so far (retests add) */
	double elapsed_s, left_s;    /* since the first round; predicted left */
	double predicted_s;	     /* the start-up prediction of the whole run (time model) */
	char end[32];		     /* the predicted end, UTC ISO 8601 */
};
void lp_sweep_journal_progress(struct lp_sweep_journal *jl, const struct lp_sweep_progress *p);
void lp_sweep_journal_end(struct lp_sweep_journal *jl, const struct lp_sweep_run *r, int exit_code);
/* The end of a round: everything written so far is on disk. 0 or the first error. */
int lp_sweep_journal_sync(struct lp_sweep_journal *jl);

/* What lp_sweep_journal_read found besides the run. */
struct lp_sweep_journal_info {
	size_t lines;	  /* whole lines read */
	bool truncated;	  /* the last line was cut short (a power loss): left out */
	bool ended;	  /* the run's end line is there: it finished, or a signal stopped it */
	int exit_code;	  /* the end line's; -1 without one */
	char last[32];	  /* the time of the last whole line */
	char (*seen)[32]; /* per node of the run: time of its last measured cell ("" none) */
};

/*
 * A journal back into r (initialised here): the echo of how it ran, metrics,
 * nodes, every cell, the retests; r->incomplete when it has no end line, and
 * its schedule rebuilt (r->sched_own) so that lp_sweep_missing() can list what
 * was never measured. A last line cut short is left out (info->truncated).
 * 0; -ENOMSG: not a journal (its first line is not a journal's run line);
 * -EINVAL (why says which line), -ENOMEM, -ENOTSUP (built without jansson) or
 * the negative errno of reading it. info (may be NULL) is filled on 0.
 */
int lp_sweep_journal_read(struct lp_sweep_run *r, const char *path,
			  struct lp_sweep_journal_info *info, char *why, size_t why_len);
void lp_sweep_journal_info_free(struct lp_sweep_journal_info *info);

/*
 * A run recorded either way, told apart by content: a journal (as above) or a
 * JSON document (lp_sweep_read_json). info as lp_sweep_journal_read's; for a
 * JSON document it says ended, no truncation. Same returns.
 */
int lp_sweep_read_run(struct lp_sweep_run *r, const char *path, struct lp_sweep_journal_info *info,
		      char *why, size_t why_len);

#endif
