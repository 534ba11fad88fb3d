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
 *   {"type":"end", "interrupted", "exit_code"}
 *
 * The node and cell lines come from the records the ranks send rank 0
 * (sweep/result.h), so the journal holds what travelled, field for field.
 * Lines are flushed at once; lp_sweep_journal_sync() (at every round's end)
 * also fsyncs. A line cut short by a power loss is the last one.
 */
#ifndef LP_SWEEP_JOURNAL_H
#define LP_SWEEP_JOURNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sweep/result.h"

#define LP_SWEEP_JOURNAL_SCHEMA "linkperf.sweep-journal/1"

struct lp_sweep_journal {
	FILE *f; /* NULL: no journal (every call does nothing) */
	char path[4096];
	int err; /* first write error (negative errno), sticky */
};

/* Create or truncate path. 0, or a negative errno after one lp_err line. */
int lp_sweep_journal_open(struct lp_sweep_journal *jl, const char *path);
/* Flush, fsync and close: 0, or the first write error (said once). */
int lp_sweep_journal_close(struct lp_sweep_journal *jl);

/* The run's parameters (r's echo and metrics) and its nodes. */
void lp_sweep_journal_run(struct lp_sweep_journal *jl, const struct lp_sweep_run *r);
void lp_sweep_journal_nodes(struct lp_sweep_journal *jl, const struct lp_sweep_run *r);
/* The cells r->cells[from..r->ncells), as they arrived. */
void lp_sweep_journal_cells(struct lp_sweep_journal *jl, const struct lp_sweep_run *r, size_t from);
/* A retest round's list of ordered pairs (np couples). */
void lp_sweep_journal_retest(struct lp_sweep_journal *jl, int round, const int32_t *pairs,
			     size_t np);
void lp_sweep_journal_end(struct lp_sweep_journal *jl, const struct lp_sweep_run *r, int exit_code);
/* The end of a round: everything written so far is on disk. 0 or the first error. */
int lp_sweep_journal_sync(struct lp_sweep_journal *jl);

#endif
