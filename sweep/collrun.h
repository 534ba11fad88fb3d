/* SPDX-License-Identifier: MIT */
/*
 * The collectives of a sweep run (plain C, no MPI): its links as a fabric
 * for the ceiling model, its groups of ranks ("all", each rail), every
 * ceiling over them, imports mapped onto its nodes, claims judged. Used by
 * the collective phase on rank 0 (sweep/mpi/coll.c) and by lp-sweep
 * --diagnose on a recorded run.
 */
#ifndef LP_SWEEP_COLLRUN_H
#define LP_SWEEP_COLLRUN_H

#include <stdbool.h>
#include <stddef.h>

#include "common/opt.h"
#include "sweep/coll.h"
#include "sweep/result.h"

/*
 * lp-sweep's options of the collective phase and of reading other runs
 * (docs/SWEEP.md, "Collectives"): lp_coll_opt_rows are their rows; the MPI
 * side turns them into a struct lp_coll_cfg.
 */
struct lp_coll_opts {
	const char *colls; /* --collective LIST: runs the phase */
	const char *paths; /* --coll-paths LIST */
	struct lp_sizes sizes;
	unsigned iters, warmup;
	bool nocheck;
	double timeout_s;
	double floor;	     /* GB/s; NaN none */
	double ratio, limit; /* the bisection's ratio; measured/allowed "at the limit" */
	unsigned probes;
	int bisect;	     /* index in lp_coll_bisect_when_names */
	const char *intra;   /* --links lp-gpu.json */
	const char *imports; /* --import FILE[,FILE] */
	const char *claims;  /* --claim C[;C] */
};
extern const char *const lp_coll_paths_choices[];     /* "mpi", "ring", "nccl", NULL */
extern const char *const lp_coll_bisect_when_names[]; /* "auto", "always", "never", "blind", NULL */

/* The rows of those options (common/opt.h), over struct lp_coll_opts. */
extern const struct lp_opt lp_coll_opt_rows[];

/* The run's links: what the ceilings see. */
struct lp_coll_links {
	struct lp_coll_fabric f;
	double *bw; /* n*n GB/s: the chosen bandwidth metric, retests combined (lp_sweep_matrix) */
	int *host, *local;
	const char **names;
	double *intra; /* ng*ng GB/s from lp-gpu, a -> b at [a*ng + b]; NULL none */
	int ng;
	int metric;	/* the sweep metric used; -1: none (no bandwidth metric) */
	char label[32]; /* its label: "write_bw 1 MiB" */
};

/* The bandwidth metric the ceilings use: the largest size, write_bw before the others; -1 none. */
int lp_sweep_coll_link_metric(const struct lp_sweep_run *r);

/*
 * Build L from r: the bandwidth metric of the largest size (write_bw first),
 * in GB/s; hosts from the node records (local index: the rail, or the rank's
 * place among its host's ranks); intra_path: lp-gpu's JSON whose P2P matrix
 * stands for every host's GPU pairs (NULL: none). 0, -ENOMEM, -EINVAL (f:
 * the lp-gpu file), -ENOTSUP (lp-gpu JSON without jansson).
 */
int lp_sweep_coll_links(const struct lp_sweep_run *r, const char *intra_path,
			struct lp_coll_links *L, struct lp_fail *f);
void lp_sweep_coll_links_free(struct lp_coll_links *L);

/*
 * lp-gpu's peer matrix (p2p_write_ce, else another p2p test; its largest
 * size; "GPU(row) <- GPU(column)": data flows column to row) as *ng_p x
 * *ng_p GB/s, a -> b at [a*ng + b], malloc'ed. 0, -EINVAL (f says what), -ENOTSUP.
 */
int lp_coll_read_gpu_matrix(const char *path, double **m_p, int *ng_p, struct lp_fail *f);

/* A group of ranks the collectives run over. */
struct lp_coll_group {
	char name[LP_COLL_GROUP_LEN]; /* "all", "rail 0" */
	int n;
	int *ranks; /* in rank order */
};

/*
 * "all" over n ranks, and, when rail (n entries, NULL: none) holds two rails
 * or more, every rail (its ranks). *g_p malloc'ed (lp_coll_groups_free). 0 or -ENOMEM.
 */
int lp_coll_groups(int n, const int *rail, struct lp_coll_group **g_p, int *n_p);
void lp_coll_groups_free(struct lp_coll_group *g, int n);

/*
 * Every ceiling into r->coll: per group, for all-reduce (always) and each
 * collective measured or imported, each scheme it takes (ring, ring_best up
 * to LP_COLL_BEST_MAX ranks, tree, in-network, rails where hosts hold
 * several ranks, chain, direct); then NCCL's own rings of each import,
 * mapped onto the nodes. Earlier ceilings are replaced. 0 or -ENOMEM.
 */
int lp_sweep_coll_ceilings(struct lp_sweep_run *r, const struct lp_coll_links *L);

/* Parse and judge each claim into r->coll. 0, -EINVAL (f: the claim that does not parse). */
int lp_sweep_coll_claims(struct lp_sweep_run *r, const char *const *claims, int n,
			 struct lp_fail *f);

/* Phase, paths or --links asked for: a collective's or an import's. */
bool lp_coll_opts_wanted(const struct lp_coll_opts *o);
/* Every --claim parses (before anything is measured). 0, or -EINVAL with the cause in f. */
int lp_coll_opts_check(const struct lp_coll_opts *o, struct lp_fail *f);

/*
 * What needs no MPI, on rank 0 or offline (--diagnose): the imports, the
 * ceilings over r's links (with o->intra), the claims. 0; -EINVAL (f: a
 * file or claim that does not parse: exit 2), -ENOTSUP, -ENOMEM.
 */
int lp_sweep_coll_offline(struct lp_sweep_run *r, const struct lp_coll_opts *o, struct lp_fail *f);

struct json_t;
/* A recorded run's "collectives" (its results, echo, verdicts' scalars) back into r->coll. */
int lp_sweep_coll_read(struct lp_sweep_run *r, const struct json_t *coll);

/* A journal's "coll_result" / "coll_verdict" line (jansson object o) into r->coll. 0 or -ENOMEM. */
int lp_sweep_coll_journal_line(struct lp_sweep_run *r, const char *type, const struct json_t *o,
			       struct lp_fail *f);

struct lp_sweep_model;
/*
 * The model transport's collective (lp-sweep --model; sweep/collmodel.c): the
 * busbw of collective k over ranks[0..n) in that order, through the scheme
 * its data takes (lp_coll_scheme_of: a ring, a chain, every pair at once),
 * each of the scheme's links drawn from the model for bandwidth metric
 * `metric` (Gb/s / 8) as a fresh attempt -- the collective phase's draw
 * number `draw`, drawn as retest attempt LP_COLL_MODEL_ATTEMPT + draw, never
 * one of the sweep's or its retests' -- then held by the slowest of them as
 * lp_coll_ceiling holds a measured matrix. No data moves and no time passes.
 * 0; -EIO with the cause in f (the model fails one of the links), -EINVAL, -ENOMEM.
 */
#define LP_COLL_MODEL_ATTEMPT (1 << 20)
int lp_coll_model_busbw(const struct lp_sweep_model *m, int metric, enum lp_coll_kind k,
			const int *ranks, int n, int draw, double *busbw_p, struct lp_fail *fail);

/* The node labels of r as an array for the collectives' sinks (malloc'ed, NULL on -ENOMEM). */
const char **lp_sweep_coll_names(const struct lp_sweep_run *r);

/* The "collectives" member of the run's JSON, and its summary lines (nothing without r->coll). */
void lp_sweep_coll_json(struct lp_json *j, const struct lp_sweep_run *r);
void lp_sweep_coll_summary(const struct lp_sweep_run *r, FILE *f);

#endif
