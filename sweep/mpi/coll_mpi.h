/* SPDX-License-Identifier: MIT */
/*
 * lp-sweep's collective phase (issue 28): after the sweep (or alone, where
 * no rank has an RDMA device), every rank measures collectives with
 * nccl-tests' conventions over all ranks and over each rail: the MPI
 * library's (host memory), linkperf's own ring all-reduce over MPI
 * point-to-point in the run's order (the schedule the ceiling model
 * assumes), and NCCL's on GPU memory where libnccl.so.2 loads. Rank 0 then
 * sets them beside the link matrix (sweep/collrun.h) and, when a collective
 * is low, finds the node, link or rail behind it: targeted retests of the
 * edges its ceiling names, or the bisection (lp_coll_bisect) over rings of
 * node subsets and retests of single pairs. Every wait is bounded; timed
 * waits spin (a sleeping poll would be timed too).
 */
#ifndef LP_SWEEP_COLL_MPI_H
#define LP_SWEEP_COLL_MPI_H

#include <mpi.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/opt.h"
#include "sweep/coll.h"
#include "sweep/collrun.h"
#include "sweep/mpi/sweep_mpi.h"

/* When the phase looks for the guilty part (--coll-bisect). */
enum lp_coll_bisect_when {
	LP_COLL_BISECT_AUTO = 0, /* a slow edge holds the ring, the busbw is below the floor, or
				  * below limit_ratio x what its links allow */
	LP_COLL_BISECT_ALWAYS,
	LP_COLL_BISECT_NEVER,
	LP_COLL_BISECT_BLIND, /* always, by the bisection alone: no targeted retests of the edges
			       * the matrix shows slow (its own evidence; what the model benchmark
			       * measures) */
};
/* lp_coll_bisect_when_names[] (sweep/collrun.h) names them */

struct lp_coll_cfg {
	unsigned colls; /* 1u << enum lp_coll_kind */
	unsigned paths; /* 1u << enum lp_coll_path (mpi, ring, nccl) */
	struct lp_sizes sizes;
	int warmup, iters;
	bool check;	    /* each size's result checked once, after the timed iterations */
	double timeout_s;   /* bound on one size of one collective: warm-up, iterations, check */
	int cuda_dev;	    /* NCCL: this rank's GPU; -1: its local index (its rail) */
	const char *intra;  /* lp-gpu JSON: the GPUs' peer matrix inside every host (rank 0) */
	double floor;	    /* all-reduce busbw floor, GB/s; NaN none */
	double limit_ratio; /* measured / allowed below this is "below its links" */
	int bisect;	    /* enum lp_coll_bisect_when */
	struct lp_coll_bisect_opts bo; /* ratio, probe budget, repeats */
	FILE *progress;		       /* rank 0's progress lines; NULL quiet */
};

/*
 * The phase, on every rank. have_sweep: the engine ran (devices open, run's
 * nodes gathered on rank 0, pair retests possible); else the nodes are
 * learned here and pairs are probed over MPI. Under the model transport
 * (scfg->model) no data moves: every collective's figure and every ring
 * probe of the search is drawn from the model on rank 0
 * (lp_coll_model_busbw), the search's pair probes are the engine's retests
 * (drawn as every retest is), NCCL is not modelled. Rank 0's run->coll holds the
 * results, ceilings and verdicts. 0, -EINTR (a signal: what was measured is
 * kept), -ETIMEDOUT (a rank did not keep up: x->lost), -ENOMEM, -EIO.
 */
int lp_sweep_coll_phase(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *scfg,
			const struct lp_coll_cfg *cfg, struct lp_sweep_run *run, bool have_sweep);

/* cfg from lp-sweep's options. 0, or -EINVAL with the cause in f (a path or collective list that does not parse). */
int lp_coll_cfg_from_opts(const struct lp_coll_opts *o, struct lp_coll_cfg *cfg, struct lp_fail *f);

/* ---- NCCL, loaded at run time (sweep/mpi/nccl.c) ---- */

struct lp_coll_nccl;

/*
 * Load libnccl.so.2 (LP_NCCL_LIBRARY names another), select CUDA device dev
 * and make the communicator over comm (its rank 0 makes the id, sent with a
 * bounded broadcast). 0; -ENOENT (no libnccl here: f says why), -ENODEV (no GPU),
 * -ENOTSUP (built without CUDA), -EIO (f: NCCL's error).
 */
int lp_coll_nccl_open(struct lp_coll_nccl **n_p, int dev, MPI_Comm comm, uint64_t deadline_ns,
		      struct lp_fail *f);
void lp_coll_nccl_close(struct lp_coll_nccl *n);
/* "2.28.3" */
const char *lp_coll_nccl_version(const struct lp_coll_nccl *n);
/*
 * warmup + iters operations of k with shape s on GPU buffers (the rank's
 * pattern, lp_coll_fill), timed by the wall clock around the iterations as
 * nccl-tests does; then, with check, one more checked against
 * lp_coll_check. Waits end at deadline_ns (the communicator is then
 * aborted: -ETIMEDOUT). *sec_p per operation; *wrong_p -1 unchecked.
 */
int lp_coll_nccl_measure(struct lp_coll_nccl *n, enum lp_coll_kind k, const struct lp_coll_shape *s,
			 bool in_place, int warmup, int iters, bool check, uint64_t deadline_ns,
			 double *sec_p, int64_t *wrong_p);

#endif
