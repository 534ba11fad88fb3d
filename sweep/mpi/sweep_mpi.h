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
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rdma/rdma.h"
#include "sweep/check.h"
#include "sweep/journal.h"
#include "sweep/load.h"
#include "sweep/result.h"
#include "sweep/sched.h"

/* ---- the lp_oob over MPI ---- */

/* ctx of lp_oob_mpi_ops: one lp-rdma session between this rank and peer. */
struct lp_mpi_oob {
	MPI_Comm comm;
	int peer;
	int tag; /* unique per session, so a late message of a broken session is never read */
	uint64_t deadline_ns; /* lp_now_ns() bound on every wait of the session; 0 = none */
	int poll_max_us;      /* back-off cap while waiting */
};

extern const struct lp_oob_ops lp_oob_mpi_ops;

/* Wait for a request until deadline_ns (0 = wait forever). 0, -ETIMEDOUT (request still active), -EIO. */
int lp_mpi_wait(MPI_Request *req, MPI_Status *st, uint64_t deadline_ns, int poll_max_us);

/* ---- one side of a pair's test in a child process (sweep/mpi/isolate.c) ---- */

struct lp_sweep_mpi;

/*
 * Run side() in a child process: the child opens its own device like x->dev,
 * talks to the peer over a socketpair that this process relays to the MPI
 * channel o (oob: the session's lp_oob, copied with the socket as its
 * channel), never calls MPI, and _exits after side() filled out. This process
 * kills it at o->deadline_ns (the pair timeout) and passes SIGINT/SIGTERM
 * (*oob->stop) on; a child that ends without a result is reported to the
 * peer's relay, which closes its own child's channel so that it ends too.
 * 0 with *out as the child wrote it, or a negative errno with why:
 * "test process killed by signal 11 (Segmentation fault)", "... killed past
 * the pair timeout (60 s)", "... exited with status N without a result".
 */
int lp_sweep_isolated(const struct lp_sweep_mpi *x, struct lp_mpi_oob *o, const struct lp_oob *oob,
		      void (*side)(struct lp_rdma_dev *, struct lp_oob *, void *, struct lp_wbuf *),
		      void *arg, struct lp_wbuf *out, char *why, size_t why_len);

/* ---- the sweep ---- */

struct lp_sweep_cfg {
	enum lp_sched_kind kind;
	int random_k;
	uint64_t seed;
	bool rails;
	int nmetrics;
	struct lp_rdma_params params[LP_SWEEP_MAX_METRICS]; /* one per metric */
	double pair_timeout_s; /* bound on one test of one ordered pair */
	int retest_max;	       /* isolated retests of suspects per round; 0 = none */
	int retest_per_node;   /* suspect node: cells retested in the first round */
	int retest_rounds;
	double retest_time_s; /* retest budget in time, all rounds (<= 0: as long as the sweep) */
	int poll_max_us;
	struct lp_rdma_server_opts sopts; /* .stop: the signal flag that stops every rank */
	FILE *progress;			  /* rank 0's progress lines; NULL = quiet */
	struct lp_sweep_journal *journal; /* rank 0: every cell as it arrives; NULL = none */
	const char *absent;		  /* nodes without a rank, "NAME=WHY;.." (sweep/absent.h) */
	bool isolate; /* each side of each test in a child process (lp_sweep_isolated) */
	/* --resume: its path on every rank (NULL: none); on rank 0 the run read from it, whose
	 * measured cells are not measured again, and its nodes' last measured cell ("missing since") */
	const char *resume_path;
	const struct lp_sweep_run *resume;
	const char (*resume_seen)[32];
	unsigned load;	    /* LP_LOAD_* bits: load phases after the sweep */
	double load_time_s; /* a victim's latency test, an incast sender's test (duration mode) */
	int incast_k;	    /* senders per incast receiver; 0 = all others of its rail (at most
			     * LP_SWEEP_MAX_INCAST) */
};

/*
 * Load phases (docs/SWEEP.md, "Load modes"), run after the sweep and its
 * retests so that the idle reference of the same run is complete:
 *   LP_LOAD_LATENCY  per round of the round-robin (or ring) schedule, each of
 *                    its ordered pairs in turn is the victim: it runs the
 *                    latency metrics for load_time_s each while every other
 *                    pair of the round runs the first bandwidth metric for the
 *                    victim's whole span (started at the same barrier);
 *   LP_LOAD_INCAST   per receiver, k senders run the first bandwidth metric
 *                    into it at once for load_time_s (its k server sessions on
 *                    threads: needs MPI_THREAD_MULTIPLE).
 */
#define LP_LOAD_LATENCY 1u
#define LP_LOAD_INCAST	2u /* lp_sweep_load_names[bits] (sweep/load.h) names them */

struct lp_sweep_mpi {
	MPI_Comm comm; /* a private duplicate of MPI_COMM_WORLD, errors returned */
	int rank, size;
	int tag_ub;
	int poll_max_us;
	struct lp_rdma_dev *dev; /* NULL when this rank's device did not open */
	int dev_status;
	char dev_error[LP_SWEEP_ERR_LEN];
	int *status_all;	    /* every rank's device status */
	int *rail_all;		    /* every rank's rail (local rank with --rails, else 0) */
	char (*name_all)[80];	    /* every rank's label, for error messages */
	uint8_t *silent;	    /* rank 0: ranks that missed a gather (not waited for again) */
	uint64_t rounds_done;	    /* rounds run so far (all phases), for the session tags */
	struct lp_sweep_cell *mine; /* cells this rank measured as the client */
	size_t nmine, capmine;
	bool lost;   /* a rank missed a deadline: finish with MPI_Abort */
	int pending; /* barriers still outstanding after their timeout */
	MPI_Request pending_req[64];
	int stop_mine, stop_any;    /* the round barrier's buffers (they outlive a late barrier) */
	struct lp_sched sched;	    /* the sweep's schedule (lp_sweep_run.sched points here) */
	struct lp_sched load_sched; /* --load latency's rounds (round-robin, or ring) */
	pthread_mutex_t lock;	    /* mine, while an incast's server sessions run on threads */
	bool threads;		    /* MPI_THREAD_MULTIPLE: sessions may run on threads */
	uint64_t t_start, phase_t0; /* the sweep's and the current phase's start (progress lines) */
	double later_s;		    /* estimated seconds of the phases after the current one */
	const volatile sig_atomic_t *stop; /* SIGINT/SIGTERM: waits end within STOP_MS */
	uint64_t stop_deadline;		   /* when they end (0: no signal yet) */
	uint8_t *done; /* --resume: (a*size + b)*nmetrics + m measured already (not again) */
};

int lp_sweep_mpi_init(struct lp_sweep_mpi *x, MPI_Comm world);
void lp_sweep_mpi_free(struct lp_sweep_mpi *x);

/* Local rank among the ranks on this host (MPI_COMM_TYPE_SHARED). */
int lp_sweep_mpi_local_rank(MPI_Comm world, int *local_p);

/*
 * The whole sweep, on every rank: the device status exchange (labels made
 * unique, me->name among them), the schedule (x->sched), rank 0's node records,
 * the schedule's rounds, up to cfg->retest_rounds rounds of isolated retests of
 * the suspects rank 0 names (lp_sweep_suspects), and rank 0's diagnosis.
 * me: this rank's node record; run: initialised for x->size nodes with the
 * metrics cfg->params measure. Rank 0's run then holds every node, cell and
 * verdict and the echo of how it ran.
 * 0: the sweep ran (interrupted or not) and rank 0's run is the one to report;
 * *code_p is this rank's exit code: the diagnosis's (0, 1 or
 * LP_SWEEP_EXIT_INCONCLUSIVE) on rank 0, 0 elsewhere, LP_EXIT_INTERRUPTED on
 * every rank after SIGINT/SIGTERM (*cfg->sopts.stop). A negative errno: nothing
 * was measured (-ENODEV: no rank could open a device, *code_p 77, 2 or 1).
 */
int lp_sweep_engine_run(struct lp_sweep_mpi *x, struct lp_sweep_node *me,
			const struct lp_sweep_cfg *cfg, struct lp_sweep_run *run, int *code_p);

/*
 * lp-sweep --check: the status exchange (labels made unique, as for a sweep;
 * me->status: 0 or why the check could not run here), then every rank's report
 * gathered on rank 0 into all (initialised there: hosts[i] is rank i; a rank
 * that sent nothing within the exchange's bound is a host with an error). 0 or
 * a negative errno.
 */
int lp_sweep_engine_check(struct lp_sweep_mpi *x, struct lp_sweep_node *me,
			  const struct lp_check_report *mine, struct lp_sweep_check *all);

#endif
