/* SPDX-License-Identifier: MIT */
/*
 * lp-sweep's MPI side: the MPI out-of-band channel for lp-rdma sessions and
 * the coordination of a sweep (status exchange, rounds, gathers, retests).
 *
 * MPI carries only coordination and the connection exchange; measurements are
 * lp-rdma's own client/server code. Every wait is non-blocking MPI plus
 * MPI_Test and a backed-off usleep, bounded by a deadline: a blocking MPI call
 * would spin on the core the measurement needs, and an unbounded one would let
 * one bad node hang the run. Point-to-point messages (not collectives) carry
 * the gathers so that rank 0 can give up on a rank that never reports.
 */
#ifndef LP_SWEEP_MPI_H
#define LP_SWEEP_MPI_H

#include <mpi.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "rdma/rdma.h"
#include "sweep/result.h"
#include "sweep/sched.h"

/* ---- the lp_oob over MPI ---- */

/* ctx of lp_oob_mpi_ops: one lp-rdma session between this rank and peer. */
struct lp_mpi_oob {
	MPI_Comm comm;
	int peer;
	int tag;		/* unique per session, so a late message of a broken session is never read */
	uint64_t deadline_ns;	/* lp_now_ns() bound on every wait of the session; 0 = none */
	int poll_max_us;	/* back-off cap while waiting */
};

extern const struct lp_oob_ops lp_oob_mpi_ops;

/* Wait for a request until deadline_ns (0 = wait forever). 0, -ETIMEDOUT (request still active), -EIO. */
int lp_mpi_wait(MPI_Request *req, MPI_Status *st, uint64_t deadline_ns, int poll_max_us);

/* ---- the sweep ---- */

struct lp_sweep_cfg {
	enum lp_sched_kind kind;
	int random_k;
	uint64_t seed;
	bool rails;
	int nmetrics;
	struct lp_rdma_params params[LP_SWEEP_MAX_METRICS];	/* one per metric */
	double pair_timeout_s;	/* bound on one test of one ordered pair */
	int retest_max;		/* isolated retests of suspects; 0 = none */
	int retest_per_node;
	int poll_max_us;
	struct lp_rdma_server_opts sopts;
};

struct lp_sweep_mpi {
	MPI_Comm comm;		/* a private duplicate of MPI_COMM_WORLD, errors returned */
	int rank, size;
	int tag_ub;
	int poll_max_us;
	struct lp_rdma_dev *dev;	/* NULL when this rank's device did not open */
	int dev_status;
	char dev_error[LP_SWEEP_ERR_LEN];
	int *status_all;	/* every rank's device status */
	int *rail_all;		/* every rank's rail (local rank with --rails, else 0) */
	char (*name_all)[80];	/* every rank's label, for error messages */
	uint64_t rounds_done;	/* rounds run so far (all phases), for the session tags */
	struct lp_sweep_cell *mine;	/* cells this rank measured as the client */
	size_t nmine, capmine;
	bool lost;		/* a rank missed a deadline: finish with MPI_Abort */
	int pending;		/* barriers still outstanding after their timeout */
	MPI_Request pending_req[64];
	int stop_mine, stop_any;	/* the round barrier's buffers (they outlive a late barrier) */
};

int lp_sweep_mpi_init(struct lp_sweep_mpi *x, MPI_Comm world);
void lp_sweep_mpi_free(struct lp_sweep_mpi *x);

/* Local rank among the ranks on this host (MPI_COMM_TYPE_SHARED). */
int lp_sweep_mpi_local_rank(MPI_Comm world, int *local_p);

/*
 * Everyone learns every rank's device status, rail and label (Iallgather,
 * bounded). me: this rank's node record (status, name, rail filled).
 */
int lp_sweep_mpi_exchange(struct lp_sweep_mpi *x, const struct lp_sweep_node *me);

/* Rank 0 collects every rank's node record into run->nodes (others send theirs). */
int lp_sweep_mpi_gather_nodes(struct lp_sweep_mpi *x, const struct lp_sweep_node *me,
			      struct lp_sweep_run *run);

/* Run every round of s; this rank's client cells are appended to x->mine. */
int lp_sweep_mpi_run(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg, const struct lp_sched *s,
		     enum lp_phase phase);

/* Rank 0 adds every rank's x->mine to run (and clears them everywhere). */
int lp_sweep_mpi_gather_cells(struct lp_sweep_mpi *x, struct lp_sweep_run *run, int tag);

/* Rank 0's list of ordered pairs to everyone: *pairs_p malloc'ed, *np_p couples. */
int lp_sweep_mpi_bcast_pairs(struct lp_sweep_mpi *x, int32_t **pairs_p, size_t *np_p, int tag);

/*
 * The barrier at the end of a round, bounded by timeout_ms (a late barrier is
 * remembered and x->lost set); it also agrees on stopping: returns true when
 * stop is set on any rank (SIGINT/SIGTERM to one rank stops them all).
 */
bool lp_sweep_mpi_barrier(struct lp_sweep_mpi *x, int timeout_ms, bool stop);

#endif
