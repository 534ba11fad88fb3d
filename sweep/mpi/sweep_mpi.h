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
#include "sweep/model.h"
#include "sweep/plantime.h"
#include "sweep/result.h"
#include "sweep/retest.h"
#include "sweep/sched.h"

/*
 * The longest sleep between polls of a wait, by default (lp-sweep --poll-ms):
 * the latency each coordination step may add to a round. At 20 ms a round of
 * 16 ranks cost ~100 ms of waiting; at 1 ms ~8 ms (docs/SWEEP.md, "Time
 * model"), for ~1,000 cheap wake-ups a second while a rank waits.
 */
#define LP_SWEEP_POLL_MS 1

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

/*
 * The pause between two polls of a wait: a few polls at once, then sleeps of
 * an eighth of the time waited so far (10 us at least, poll_max_us at most).
 * An answer is seen within ~12 % of the wait it ended, where sleeps that
 * double could add the whole wait again (up to the cap) at each of a round's
 * coordination steps; a long wait still wakes at most every poll_max_us.
 */
struct lp_mpi_backoff {
	uint64_t t0;	 /* lp_now_ns() when the wait began (or was last busy) */
	unsigned polls;	 /* polls so far without a sleep */
	unsigned cap_us; /* the longest sleep */
};

void lp_mpi_backoff_init(struct lp_mpi_backoff *b, int poll_max_us);
/* The next pause in microseconds (0: poll again at once). */
unsigned lp_mpi_backoff_next(struct lp_mpi_backoff *b);
/* lp_mpi_backoff_next's pause, slept. */
void lp_mpi_backoff_pause(struct lp_mpi_backoff *b);

/* Wait for a request until deadline_ns (0 = wait forever). 0, -ETIMEDOUT (request still active), -EIO. */
int lp_mpi_wait(MPI_Request *req, MPI_Status *st, uint64_t deadline_ns, int poll_max_us);

/* ---- what carries a pair's test (sweep/mpi/transport.c) ---- */

/*
 * A session's prepared connections (set-up reuse, docs/SWEEP.md "Set-up
 * reuse"): this side's, prepared before its round by the transport's prepare
 * in the process that runs it, and the peer's, learnt in the round's
 * connection exchange (one collective). 0: none -- the session sets up its
 * own and exchanges over its channel, as it would without reuse.
 */
struct lp_sweep_conn {
	uint64_t mine, peer;
};

/* One test of one ordered pair, as the client runs it. */
struct lp_sweep_test {
	struct lp_sweep_conn conn;	    /* prepared connections (zeros: none) */
	struct lp_rdma_params p;	    /* the metric's parameters */
	const char *client, *server;	    /* node names */
	const struct lp_sweep_model *model; /* model transport: the bound model; NULL for rdma */
	int attempt;			    /* model draws: 0 the sweep, k the k-th retest round */
	struct lp_sweep_cell c;		    /* initialised (metric, a, b, phase, round); filled */
};

/*
 * The transport's ops: the engine calls these and nothing else per test, so
 * rounds, retests, isolation, journal and gathers are one code path for both.
 */
struct lp_sweep_xport_ops {
	const char *name; /* "rdma", "model" */
	bool needs_dev;	  /* an RDMA device on each side (an isolated child opens its own) */
	/* the client's test over oob (dev: the rank's or the child's own; NULL without needs_dev) */
	void (*client)(struct lp_rdma_dev *dev, struct lp_oob *oob, struct lp_sweep_test *t);
	/* end the client's session after a test that was not cut short */
	int (*bye)(struct lp_oob *oob);
	/* one server session: 0 after the client's end, or a negative errno */
	int (*serve)(struct lp_rdma_dev *dev, struct lp_oob *oob,
		     const struct lp_rdma_server_opts *so, const struct lp_sweep_conn *conn);
	/*
	 * Set-up reuse: a connection for a session to come (the server's side or
	 * the client's, of metric m) made ready now, from this process's pool: its
	 * id for the round's exchange, or 0 (none: the session makes its own).
	 * NULL: the transport prepares nothing ahead (its sessions exchange their
	 * connection data themselves).
	 */
	uint64_t (*prepare)(struct lp_rdma_dev *dev, bool serve, int m);
	/* What this process's reuse did so far (pools and caches). */
	void (*reuse_stats)(const struct lp_rdma_dev *dev, struct lp_rdma_reuse_stats *s);
};

extern const struct lp_sweep_xport_ops lp_sweep_xport_rdma, lp_sweep_xport_model;

/* ---- each side of a pair's test in a test worker (sweep/mpi/isolate.c) ---- */

struct lp_sweep_mpi;
struct lp_sweep_cfg;

/*
 * One side of one test in one of this rank's test workers: the client's test t,
 * or (t NULL) a server session with so and its prepared connections conn (NULL:
 * none). The worker (lp-sweep --test-worker,
 * posix_spawn'ed, never forked; started once and reused) opens its own device
 * like x->dev, talks to the peer over its channel, which this rank relays to
 * the session's MPI channel o (oob: its lp_oob), and never calls MPI. This
 * rank kills it at o->deadline_ns (the pair timeout) and passes SIGINT/SIGTERM
 * (*oob->stop) on; a worker that ends without a result is reported to the
 * peer's relay, whose worker's session then ends too. 0 with *out (the
 * client's cell record, or the server's u32 status), or a negative errno with
 * its cause in f: "test process killed by signal 11 (Segmentation fault)", "... killed
 * past the pair timeout (60 s)", "... exited with status N without a result",
 * "the test process cannot open rxe0: ...".
 */
int lp_sweep_isolated(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg, struct lp_mpi_oob *o,
		      const struct lp_oob *oob, const struct lp_sweep_test *t,
		      const struct lp_rdma_server_opts *so, const struct lp_sweep_conn *conn,
		      struct lp_wbuf *out, struct lp_fail *f);

/* n workers started and idle, from this (the main) thread, before threads need them. */
void lp_sweep_workers_ready(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg, int n);
/*
 * Set-up reuse: n sessions of a round to come (side serve[i], metric m[i])
 * prepared in this rank's worker (the transport's prepare): ids[i], 0 where
 * none. 0, or a negative errno (ids all 0: the sessions set up their own).
 */
int lp_sweep_workers_prepare(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg, int n,
			     const uint32_t *serve, const uint32_t *m, uint64_t *ids);
/* What this rank's workers reused so far, those that ended included. */
void lp_sweep_workers_stats(struct lp_sweep_mpi *x, struct lp_rdma_reuse_stats *s);
/* Every worker told to end (its channel closed), reaped; killed past a second. */
void lp_sweep_workers_end(struct lp_sweep_mpi *x);

/*
 * lp-sweep --test-worker PARENT: a worker's main (before MPI, which it never
 * starts): fd 3 is its channel. Its exit status: 0 when its rank closed the
 * channel.
 */
int lp_sweep_worker_main(int argc, char **argv);

/* ---- the sweep ---- */

struct lp_sweep_cfg {
	enum lp_sched_kind kind;
	int random_k;
	uint64_t seed;
	bool rails;
	int nmetrics;
	struct lp_rdma_params params[LP_SWEEP_MAX_METRICS]; /* one per metric */
	double pair_timeout_s;		      /* bound on one test of one ordered pair */
	struct lp_sweep_retest_policy retest; /* the retest planner's budget (sweep/retest.h) */
	int poll_max_us;
	struct lp_rdma_server_opts sopts; /* .stop: the signal flag that stops every rank */
	FILE *progress;			  /* rank 0's progress lines; NULL = quiet */
	struct lp_sweep_journal *journal; /* rank 0: every cell as it arrives; NULL = none */
	const char *absent;		  /* nodes without a rank, "NAME=WHY;.." (sweep/absent.h) */
	bool isolate; /* each side of each test in a child process (lp_sweep_isolated) */
	bool reuse;   /* set-up reuse (docs/SWEEP.md): pooled buffers and QPs, the round's
		       * connections prepared ahead and exchanged in one collective */
	/* --resume: its path on every rank (NULL: none); on rank 0 the run read from it, whose
	 * measured cells are not measured again, and its nodes' last measured cell ("missing since") */
	const char *resume_path;
	const struct lp_sweep_run *resume;
	const char (*resume_seen)[32];
	unsigned load;	    /* LP_LOAD_* bits: load phases after the sweep */
	double load_time_s; /* a victim's latency test, an incast sender's test (duration mode) */
	int incast_k;	    /* senders per incast receiver; 0 = all others of its rail (at most
			     * LP_SWEEP_MAX_INCAST) */
	const struct lp_sweep_xport_ops *xport; /* what carries each test (NULL: rdma) */
	const struct lp_sweep_model *model;	/* the model transport's model, bound */
	const char *model_text;			/* and its file's bytes (for the workers) */
	size_t model_len;
	uint32_t screen; /* --fast: bit m, metric m in the sweep and its retests; the others in the
			  * size sweep of the suspects after them (sweep/fast.h); 0 every metric */
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
	int tclass, sl; /* --tclass (-1: the device's), --sl: every device opened (children too) */
	int qp_timeout; /* --qp-timeout (0: the default), likewise */
	struct lp_rdma_dev *dev; /* NULL when this rank's device did not open */
	int dev_status;
	char dev_error[LP_SWEEP_ERR_LEN];
	int *status_all;	    /* every rank's device status */
	int *rail_all;		    /* every rank's rail (local rank with --rails, else 0) */
	char (*name_all)[80];	    /* every rank's label, for error messages */
	uint8_t *silent;	    /* rank 0: ranks that missed a gather (not waited for again) */
	uint64_t rounds_done;	    /* rounds run so far (all phases), for the session tags */
	int retest_round;	    /* the retest round running (model draws: its attempt) */
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
	struct lp_sweep_prediction pred;   /* the time model's, for this run (rank 0's progress) */
	uint64_t progress_ns;		   /* the last progress line */
	size_t cells_planned;		   /* rank 0: cells the sweep and its retests so far plan */
	const volatile sig_atomic_t *stop; /* SIGINT/SIGTERM: waits end within STOP_MS */
	uint64_t stop_deadline;		   /* when they end (0: no signal yet) */
	uint8_t *done; /* --resume: (a*size + b)*nmetrics + m measured already (not again) */
	struct lp_sweep_worker *pool;	       /* the test workers (isolate.c), under lock */
	struct lp_rdma_reuse_stats reuse_gone; /* what workers that ended had reused */
	struct lp_fail fail; /* why the engine failed, on the ranks that say it (the tool prints) */
};

int lp_sweep_mpi_init(struct lp_sweep_mpi *x, MPI_Comm world);
void lp_sweep_mpi_free(struct lp_sweep_mpi *x);

/* Local rank among the ranks on this host (MPI_COMM_TYPE_SHARED). */
int lp_sweep_mpi_local_rank(MPI_Comm world, int *local_p);

/*
 * The whole sweep, on every rank: the device status exchange (labels made
 * unique, me->name among them), the schedule (x->sched), rank 0's node records,
 * the schedule's rounds, the retest rounds of the suspects rank 0's planner
 * names (lp_sweep_retest_plan), and rank 0's diagnosis.
 * me: this rank's node record; run: initialised for x->size nodes with the
 * metrics cfg->params measure. Rank 0's run then holds every node, cell and
 * verdict and the echo of how it ran.
 * 0: the sweep ran (interrupted or not) and rank 0's run is the one to report;
 * *code_p is this rank's exit code: the diagnosis's (0, 1 or
 * LP_SWEEP_EXIT_INCONCLUSIVE) on rank 0, 0 elsewhere, LP_EXIT_INTERRUPTED on
 * every rank after SIGINT/SIGTERM (*cfg->sopts.stop). A negative errno: nothing
 * was measured (-ENODEV: no rank could open a device, *code_p 77, 2 or 1).
 * Why it failed is in x->fail on the ranks that say it (rank 0, or every rank
 * for what every rank knows alike): the tool prints it. What the sweep
 * survives (a rank's lost results, a failed retest plan) is a warning line.
 */
int lp_sweep_engine_run(struct lp_sweep_mpi *x, struct lp_sweep_node *me,
			const struct lp_sweep_cfg *cfg, struct lp_sweep_run *run, int *code_p);

/*
 * Retests of the ordered pairs given (np couples of ranks), every metric, in
 * isolation, on every rank with the same list: their cells (phase retest)
 * join rank 0's run. For the collective phase's targeted retests. 0, -EINTR
 * (a signal), or a negative errno of the schedule.
 */
int lp_sweep_engine_pairs(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg,
			  struct lp_sweep_run *run, const int32_t *pairs, size_t np);

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
