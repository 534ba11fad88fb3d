/* SPDX-License-Identifier: MIT */
/*
 * The sweep's journal: rank 0 appends what it learns as it learns it, one
 * JSON object per line, so that a crash, a kill or a lost node leaves a record
 * of every cell measured until then (issue 18). It is the document's own
 * parts as they come (docs/schema/README.md), read by the document's reader:
 *
 *   {"type":"header", "time", <the document's head: tool, schema, method, run, nodes, metrics>}
 *   {"type":"round", "time", "attempts": <the round's attempts, columns as the document's>}
 *   {"type":"retest", "time", "round", "pairs": <columns of client, server>}
 *   {"type":"coll_result"|"coll_verdict", "time", <the collective record's members>} (sweep/coll.h)
 *   {"type":"progress", "time", <lp_sweep_progress_record's members>} (skipped by the reader)
 *   {"type":"end", "time", "interrupted", "exit_code", "verdicts": [...]}
 *
 * Lines of other types are skipped by the reader. Every line has
 * "time" (UTC, ISO 8601). Lines are flushed at once (a kill loses nothing);
 * lp_sweep_journal_sync() (at every round's end) has them fsynced by a thread
 * of the journal's own, so the disk's latency stays off the round: a power
 * loss costs what one fsync takes, at most. A line cut short (a power loss) costs
 * that line, not the file: it is left out and said (info->cut). An existing
 * journal is never truncated: lp_sweep_journal_open refuses it.
 */
#ifndef LP_SWEEP_JOURNAL_H
#define LP_SWEEP_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sweep/result.h"

struct lp_fail; /* common/fail.h */

struct lp_sweep_journal {
	FILE *f; /* NULL: no journal (every call does nothing) */
	char path[4096];
	char replaces[4096]; /* written as path, renamed over this at the first sync ("" none) */
	int err;	     /* first write error (negative errno), sticky */
	struct lp_sweep_syncer *bg; /* the fsyncing thread, started at the first sync (NULL none) */
};

/*
 * Create path, exclusively: a file (or link) already there is refused with
 * -EEXIST, saying so in f (the previous run's record: --resume it, or move
 * it away). replace: path is the journal a --resume reads; the new one is
 * written as PATH.new and renamed over it at the first sync, once it holds
 * the resumed cells, so the old one stays whole until then. 0, or another
 * negative errno after lp_out_create's one line.
 */
int lp_sweep_journal_open(struct lp_sweep_journal *jl, const char *path, bool replace,
			  struct lp_fail *f);
/* Flush, fsync (the syncer's too, ended) and close: 0, or the first write error (its cause in f). */
int lp_sweep_journal_close(struct lp_sweep_journal *jl, struct lp_fail *f);

/* The header: how it runs, its nodes and metrics (the document's head). */
void lp_sweep_journal_run(struct lp_sweep_journal *jl, const struct lp_sweep_run *r);
/* A round line: the attempts r->cells[from..r->ncells), as they arrived (none: no line). */
void lp_sweep_journal_cells(struct lp_sweep_journal *jl, const struct lp_sweep_run *r, size_t from);
/* A retest round's list of ordered pairs (np couples). */
void lp_sweep_journal_retest(struct lp_sweep_journal *jl, int round, const int32_t *pairs,
			     size_t np);
void lp_sweep_journal_end(struct lp_sweep_journal *jl, const struct lp_sweep_run *r, int exit_code);
/* A line of another type with rec's members (progress records): skipped by the reader. */
void lp_sweep_journal_record(struct lp_sweep_journal *jl, const char *type,
			     const struct lp_record *rec, const void *obj);
/* Where a run stands: its progress line, for whoever watches the journal. */
struct lp_sweep_progress {
	char phase[24];		     /* "sweep", "retest", "load latency", "incast" */
	size_t round, rounds;	     /* rounds of the phase done, and its rounds */
	size_t cells, cells_planned; /* cells gathered, and planned so far (retests add) */
	double elapsed_s, left_s;    /* since the first round; predicted left */
	double predicted_s;	     /* the start-up prediction of the whole run (time model) */
	char end[32];		     /* the predicted end, UTC ISO 8601 */
};
extern const struct lp_record lp_sweep_progress_record;
void lp_sweep_journal_progress(struct lp_sweep_journal *jl, const struct lp_sweep_progress *p);
/* The end of a round: everything written so far is on disk. 0 or the first error. */
int lp_sweep_journal_sync(struct lp_sweep_journal *jl);

/* What lp_sweep_journal_read found besides the run. */
struct lp_sweep_journal_info {
	size_t lines;	/* whole lines read */
	bool truncated; /* the last line was cut short (a power loss): left out */
	size_t cut;	/* lines cut short or garbled elsewhere: left out (the first: cut_line) */
	size_t cut_line;
	bool ended;	  /* the run's end line is there: it finished, or a signal stopped it */
	int exit_code;	  /* the end line's; -1 without one */
	char last[32];	  /* the time of the last whole line */
	char (*seen)[32]; /* per node of the run: time of its last measured cell ("" none) */
};

/*
 * A journal back into r (initialised here): the head, every attempt, the
 * retests; r->incomplete when it has no end line, and its schedule rebuilt
 * (r->sched_own) so that lp_sweep_missing() can list what was never measured.
 * A line that does not parse (cut short by a power loss, garbled) is left out
 * and counted (info->cut; the last line: info->truncated); a line that parses
 * but breaks the schema is an error. 0; -ENOMSG: not a journal (its first line
 * is not a header); -EINVAL (f says which line), -ENOMEM, -ENOTSUP (built
 * without jansson). info (may be NULL) is filled on 0.
 */
int lp_sweep_journal_parse(struct lp_sweep_run *r, const char *text, size_t len,
			   struct lp_sweep_journal_info *info, struct lp_fail *f);
/* The text starts with a journal's header line. */
bool lp_sweep_journal_is(const char *text, size_t len);
void lp_sweep_journal_info_free(struct lp_sweep_journal_info *info);

/*
 * A run recorded either way, told apart by content: a journal or a JSON
 * document (read whole: the file's size bounds every count). info as
 * lp_sweep_journal_parse's (may be NULL); for a document it says ended, no
 * truncation. Returns as lp_sweep_journal_parse, -EINVAL for a document that
 * is not one (f says why), or the negative errno of reading the file.
 */
int lp_sweep_read_run(struct lp_sweep_run *r, const char *path, struct lp_sweep_journal_info *info,
		      struct lp_fail *f);

#endif
