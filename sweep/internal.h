/* SPDX-License-Identifier: MIT */
/*
 * Internal to sweep/: helpers the run containers (run.c), the verdicts
 * (verdict.c), the retest planner (retest.c) and the sinks (write.c, csv.c,
 * summary.c, read.c) share. Not a public header: tools include sweep/result.h.
 */
#ifndef LP_SWEEP_INTERNAL_H
#define LP_SWEEP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/record.h"
#include "sweep/result.h"

/* "us" for latency metrics, "Gb/s" for bandwidth. */
const char *lp_sweep_unit(const struct lp_sweep_metric *m);
/* A metric's value for people: "-" for none, latency with one decimal, bandwidth 3 digits. */
void lp_sweep_fmt_val(char *buf, size_t len, double v, bool lat);
/* "noise 4.8% per cell (residuals 4.1%, 41 df; repeats 3.9%, 12 pairs)" */
void lp_sweep_fmt_noise(char *buf, size_t len, const struct lp_diag *d);
/* The last cell of metric, client a, server b in phase; NULL none. */
const struct lp_sweep_att *lp_sweep_find_cell(const struct lp_sweep_run *r, int metric, int a,
					      int b, int phase);
/*
 * Member key (NULL in an array): the columns (lp_record_json_columns; skip as lp_rec_rows's)
 * of n cells of r, cell idx[i] (SIZE_MAX: none in that row), or from + i without idx, each
 * unpacked as its row is written. 0 or -ENOMEM.
 */
int lp_sweep_cells_json(struct lp_json *j, const struct lp_sweep_run *r, const size_t *idx,
			size_t from, size_t n, uint64_t skip, const char *key);
/* Isolated retests of metric m among the cells with client a (or any: -1) and server b (or any). */
int lp_sweep_count_retests(const struct lp_sweep_run *r, int m, int a, int b);
/* A link verdict: link slow or failed, or errors on a pair. */
bool lp_sweep_is_link(const struct lp_verdict *vd);
/*
 * Each ordered pair with scheduled cells that were never measured: cb per pair
 * with the metrics' labels joined by ", ". Returns the missing cells' count.
 */
size_t lp_sweep_each_missing(const struct lp_sweep_run *r,
			     void (*cb)(void *arg, const struct lp_sweep_run *r, int a, int b,
					const char *labels),
			     void *arg);

/* One metric's matrix as lp_sweep_matrix fills it: n*n values, failed and scheduled flags. */
struct lp_sweep_mx {
	double *v;
	uint8_t *fail, *sched;
};
int lp_sweep_mx_alloc(struct lp_sweep_mx *mx, int n);
void lp_sweep_mx_free(struct lp_sweep_mx *mx);
int lp_sweep_mx_fill(const struct lp_sweep_run *r, int m, struct lp_sweep_mx *mx);

/* The run's nodes on the fabric (sweep/verdict_group.c): leaf and rail per node, compact. */
struct lp_sweep_topo {
	int *leaf, *rail; /* per node: index into leaf_name / rail_name, -1 unknown; NULL none */
	int nleaf, nrail;
	char (*leaf_name)[LP_FABRIC_NAME], (*rail_name)[LP_FABRIC_NAME];
};
/* From r->fabric (host and device names) and --rails (r->rails: the rank's rail). 0 or -ENOMEM. */
int lp_sweep_topo_map(const struct lp_sweep_run *r, struct lp_sweep_topo *t);
void lp_sweep_topo_free(struct lp_sweep_topo *t);
/* One verdict per shared fault of metric m's diagnosis. 0 or -ENOMEM. */
int lp_sweep_group_verdicts(struct lp_sweep_run *r, int m, const struct lp_diag *d,
			    const struct lp_sweep_topo *t);

/* A leaf switch's or a rail's name in the document's "topology". */
struct lp_sweep_topo_name {
	char name[LP_FABRIC_NAME];
};

/*
 * The document's "topology" (sweep/fabric_json.c): where each node sits as the
 * diagnosis used it, so that `lp-sweep --diagnose` sees the same groups.
 */
struct lp_sweep_topo_doc {
	char format[16];  /* lp_fabric_format_names, or "rails": --rails alone */
	char source[256]; /* the file it was read from */
	uint32_t nleaf, nrail, n;
	struct lp_sweep_topo_name *leaves, *rails; /* nleaf, nrail */
	int *leaf, *rail; /* n (the run's nodes): index into leaves / rails, -1 unknown */
};

/* "topology": the run's, or null without one. */
void lp_sweep_topology_json(struct lp_json *j, const struct lp_sweep_run *r);
struct json_t;
/* The document's "topology" back into r->fabric (absent or null: none). 0, -EINVAL (f says what), -ENOMEM. */
int lp_sweep_topology_read(struct lp_sweep_run *r, const struct json_t *topo, struct lp_fail *f);

/* ---- the document's parts (sweep/records.c declares their records) ---- */

/*
 * The cells of one metric between the nodes of one rail (every node without
 * --rails): a matrix of nb x nb ordered pairs, row = client, column = server.
 */
struct lp_sweep_block {
	int metric, rail;
	int nb;	   /* nodes */
	int *node; /* nb: the run's node index of each row and column, ascending */
	const struct lp_diag_lay *lay; /* the matrix laid out so (every node), NULL: nb x nb */
};

/* A cell as every output shows it (the value the diagnosis used). */
struct lp_sweep_rcell {
	double value;	  /* the successful attempts combined; NaN none */
	uint8_t cls;	  /* enum lp_cell_class */
	uint8_t attempts; /* successful attempts behind value */
	double spread;	  /* log-scale spread of those attempts; NaN under two */
};

/* An ordered pair the schedule holds that was never measured, at some metrics. */
struct lp_sweep_missing {
	int a, b;
	char metrics[LP_SWEEP_MAX_METRICS * 34];
};

/* A node's counters over its pairs (sweep/evidence.c's partners and moved). */
struct lp_sweep_ctr_node {
	int partners; /* partners with counters read on either end */
	int moved;    /* of those, partners whose pair moved an error counter */
};

extern const struct lp_record lp_sweep_ctr_node_record;
extern const struct lp_record lp_sweep_topo_record;   /* struct lp_sweep_topo_doc */
extern const struct lp_record lp_sweep_errctl_record; /* struct lp_diag: "error_control" */
extern const struct lp_record lp_sweep_block_record;
extern const struct lp_record lp_sweep_rcell_record;
extern const struct lp_record lp_sweep_missing_record;

/*
 * The run's blocks: one per metric, or per metric and rail with --rails
 * (metric-major), each with its nodes in index order. *blocks_p is malloc'ed
 * (free with lp_sweep_blocks_free). 0 or -ENOMEM.
 */
int lp_sweep_blocks(const struct lp_sweep_run *r, struct lp_sweep_block **blocks_p, int *n_p);
void lp_sweep_blocks_free(struct lp_sweep_block *blocks, int n);
/*
 * lp_sweep_matrix over one block: v, fail, sched, att, best, spread are
 * nb*nb arrays (rows and columns: the block's nodes); att, best, spread and
 * rep_p may be NULL. 0 or -ENOMEM.
 */
int lp_sweep_block_matrix(const struct lp_sweep_run *r, const struct lp_sweep_block *blk, double *v,
			  uint8_t *fail, uint8_t *sched, uint8_t *att, double *best, double *spread,
			  struct lp_diag_in *rep_p);
/* lp_sweep_matrix laid out by L (sweep/diag.h: a cell between L's blocks is left out). */
int lp_sweep_matrix_lay(const struct lp_sweep_run *r, int metric, const struct lp_diag_lay *L,
			double *v, uint8_t *fail, uint8_t *sched, uint8_t *att, double *best,
			double *spread, struct lp_diag_in *rep_p);
/*
 * The layout metric diagnoses use: the rails' blocks when no cell and no scheduled pair
 * crosses two rails, else (and without --rails) the n x n matrix. 0 or -ENOMEM.
 */
int lp_sweep_layout(const struct lp_sweep_run *r, struct lp_diag_lay *L);
/* Bits of lp_sweep_cell_record's fields a block implies (metric, client, server, phase). */
uint64_t lp_sweep_block_implied(void);

/* The head of a document and of a journal: tool, schema, method, run, nodes, metrics (members). */
void lp_sweep_json_head(struct lp_json *j, const struct lp_sweep_run *r);
/* "verdicts": the run's verdicts as records (a document's, a journal's end). */
void lp_sweep_json_verdicts(struct lp_json *j, const struct lp_sweep_run *r);

/* ---- reading (sweep/read.c), shared with the journal's reader ---- */

struct json_t;
/*
 * The members every recorded run starts with ("run", "nodes", "metrics": a
 * document's top level, a journal's header line) into r (initialised here):
 * the node count is checked against the nodes the file holds before anything
 * is allocated. 0, -EINVAL (f says what) or -ENOMEM.
 */
int lp_sweep_read_head(struct lp_sweep_run *r, const struct json_t *o, struct lp_fail *f);
/* Attempts in columns (a document's "attempts", a journal's round) added to r. */
int lp_sweep_read_attempts(struct lp_sweep_run *r, const struct json_t *cols, struct lp_fail *f);
/* A linkperf.sweep/1 document (sweep/read1.c, records of the old form) into r. */
int lp_sweep_read_doc1(struct lp_sweep_run *r, const struct json_t *root, struct lp_fail *f);
/* A value's text within a document. */
struct lp_sweep_span {
	const char *p;
	size_t len;
	bool mapped; /* blocks: a file mapping, whose pages are dropped once read */
};
/*
 * A document's top level apart (sweep/readspan.c): every member of its root
 * object but "blocks" parsed into *root (json_decref it), the blocks array's
 * text into *blocks (p NULL: none), so that the whole tree is never built.
 * mapped: text is a file mapping, the blocks' pages handed back once walked
 * (blocks->mapped set: lp_sweep_span_each reads them again block by block).
 * 0, -EINVAL (f: "not JSON: ...", the line counted in text) or -ENOMEM.
 */
int lp_sweep_span_root(const char *text, size_t len, bool mapped, struct json_t **root,
		       struct lp_sweep_span *blocks, struct lp_fail *f);
/*
 * Each element of the array arr (a span of text) parsed alone, each(v, i, arg), then freed;
 * arr->mapped: the text's pages behind it handed back (a 2.7 GB document is not held whole).
 */
int lp_sweep_span_each(const struct lp_sweep_span *arr, const char *text,
		       int (*each)(const struct json_t *v, size_t i, void *arg), void *arg,
		       struct lp_fail *f);
/* lp_sweep_read_text of a read-only file mapping (its blocks' pages dropped once read). */
int lp_sweep_read_mapped(struct lp_sweep_run *r, const char *text, size_t len, struct lp_fail *f);
/*
 * O(n^2) work is done only for runs whose node count the file can justify:
 * n^2 <= 64 * bytes + 2^20 (a run's cells, or its nodes' records, take
 * that much room). 0, or -EINVAL with the cause in f.
 */
int lp_sweep_read_bound(const struct lp_sweep_run *r, size_t bytes, struct lp_fail *f);

#endif
