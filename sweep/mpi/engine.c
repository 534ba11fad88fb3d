// SPDX-License-Identifier: MIT
/*
 * The sweep engine over MPI: status exchange, the schedule's rounds of lp-rdma
 * sessions, gathers, and the retest rounds rank 0 decides on.
 */
#include "sweep/mpi/sweep_mpi.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/lp.h"
#include "sweep/absent.h"
#include "sweep/resume.h"
#include "sweep/check.h"
#include "sweep/fast.h"

/*
 * Every MPI tag of lp-sweep. Retest round r (at most 20) sends its list on
 * TAG_RETEST_LIST + 2r and its cells on TAG_RETEST_CELLS + 2r; lp-rdma
 * sessions use TAG_SESSION0 and up (one tag per session, wrapping below the
 * MPI tag bound).
 */
enum {
	TAG_NODE = 1,
	TAG_CHECK = 2,
	TAG_CELLS = 11,
	TAG_RETEST_LIST = 12,
	TAG_RETEST_CELLS = 13,
	TAG_LOAD_CELLS = 60,
	TAG_PAIR_CELLS = 61, /* lp_sweep_engine_pairs (the collective phase's pair retests) */
	TAG_SIZES_LIST = 56, /* --fast: the size sweep's pairs */
	TAG_SIZES_CELLS = 57,
	TAG_SESSION0 = 64,
};

#define EXCHANGE_MS 300000 /* start-up and gathers: ranks may start minutes apart under Slurm */
/*
 * After SIGINT/SIGTERM every wait ends within this of the signal, all of them
 * together: when a rank died, the survivors' barrier never completes, and
 * mpirun (or Slurm) follows its SIGTERM with SIGKILL (1 s later by default:
 * odls_base_sigkill_timeout; KillWait).
 */
#define STOP_MS 3000

static uint64_t deadline_in(int ms)
{
	return lp_now_ns() + (uint64_t)ms * 1000000ull;
}

/* A line of progress on cfg->progress: rank 0 only, none when quiet (NULL). */
static void progress(const struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg, const char *fmt,
		     ...) __attribute__((format(printf, 3, 4)));
static void progress(const struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg, const char *fmt,
		     ...)
{
	va_list ap;

	if (x->rank || !cfg->progress)
		return;
	va_start(ap, fmt);
	vfprintf(cfg->progress, fmt, ap);
	va_end(ap);
	fflush(cfg->progress);
}

/* " of N" planned cells, or "" in the load phases (whose cells the sweep's plan does not count). */
static const char *planned(const struct lp_sweep_progress *p)
{
	static __thread char buf[40];

	if (p->cells_planned < p->cells)
		return "";
	snprintf(buf, sizeof(buf), " of %zu", p->cells_planned);
	return buf;
}

/* A progress line at most this often; one per round when rounds are slower. */
#define PROGRESS_EVERY_S 10

/*
 * Round r of n of a phase is done: on rank 0, at most every PROGRESS_EVERY_S
 * (and at a phase's end), a line with the rounds and cells done and the
 * predicted end -- this phase's rounds at its pace so far plus the time model's
 * estimate of the phases after it -- on cfg->progress, and its record in the
 * journal.
 */
static void round_done(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg,
		       const struct lp_sweep_run *run, const char *phase, size_t r, size_t n)
{
	uint64_t now = lp_now_ns();
	double pace = (double)(now - x->phase_t0) / 1e9 / (double)(r + 1);
	struct lp_sweep_progress p = { .round = r + 1,
				       .rounds = n,
				       .cells = run->ncells,
				       .cells_planned = x->cells_planned,
				       .elapsed_s = (double)(now - x->t_start) / 1e9,
				       .left_s = pace * (double)(n - r - 1) + x->later_s,
				       .predicted_s = x->pred.total_s };
	char what[48], a[32], b[32], c[32];
	time_t end;
	struct tm tm;

	if (x->rank || (r + 1 < n && x->progress_ns &&
			now - x->progress_ns < PROGRESS_EVERY_S * 1000000000ull))
		return;
	x->progress_ns = now;
	snprintf(p.phase, sizeof(p.phase), "%s", phase);
	end = time(NULL) + (time_t)p.left_s;
	gmtime_r(&end, &tm);
	strftime(p.end, sizeof(p.end), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!strcmp(phase, "sizes")) /* the size sweep's pairs run one per round */
		snprintf(what, sizeof(what), "size sweep, pair");
	else if (!strcmp(phase, "retest")) /* a retest round's pairs run one per round */
		snprintf(what, sizeof(what), "retest round %d, pair", x->retest_round + 1);
	else
		snprintf(what, sizeof(what), "%s round", phase);
	progress(x, cfg,
		 "lp-sweep: %s %zu/%zu, %zu cells%s, %s so far, about %s left (end %.8s UTC; "
		 "predicted %s in all)\n",
		 what, p.round, n, p.cells, planned(&p), lp_sweep_time_fmt(p.elapsed_s, a, 32),
		 lp_sweep_time_fmt(p.left_s, b, 32), p.end + 11,
		 lp_sweep_time_fmt(p.predicted_s, c, 32));
	lp_sweep_journal_progress(cfg->journal, &p);
}

int lp_sweep_mpi_init(struct lp_sweep_mpi *x, MPI_Comm world)
{
	void *ub = NULL;
	int flag = 0;

	memset(x, 0, sizeof(*x));
	if (MPI_Comm_dup(world, &x->comm) != MPI_SUCCESS)
		return -EIO;
	MPI_Comm_set_errhandler(x->comm, MPI_ERRORS_RETURN);
	MPI_Comm_rank(x->comm, &x->rank);
	MPI_Comm_size(x->comm, &x->size);
	MPI_Comm_get_attr(world, MPI_TAG_UB, &ub, &flag);
	x->tag_ub = flag && ub ? *(int *)ub : 32767;
	x->poll_max_us = LP_SWEEP_POLL_MS * 1000;
	x->status_all = calloc(x->size, sizeof(int));
	x->rail_all = calloc(x->size, sizeof(int));
	x->name_all = calloc(x->size, sizeof(*x->name_all));
	x->silent = calloc(x->size, 1);
	if (!x->status_all || !x->rail_all || !x->name_all || !x->silent)
		return -ENOMEM;
	if (MPI_Query_thread(&flag) == MPI_SUCCESS)
		x->threads = flag == MPI_THREAD_MULTIPLE;
	return pthread_mutex_init(&x->lock, NULL) ? -ENOMEM : 0;
}

void lp_sweep_mpi_free(struct lp_sweep_mpi *x)
{
	lp_sweep_workers_end(x);
	free(x->status_all);
	free(x->rail_all);
	free(x->name_all);
	free(x->silent);
	free(x->mine);
	free(x->done);
	lp_sched_free(&x->sched);
	lp_sched_free(&x->load_sched);
	if (x->comm != MPI_COMM_NULL && x->comm) {
		MPI_Comm_free(&x->comm);
		pthread_mutex_destroy(&x->lock);
	}
	memset(x, 0, sizeof(*x));
}

int lp_sweep_mpi_local_rank(MPI_Comm world, int *local_p)
{
	MPI_Comm c;

	if (MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c) != MPI_SUCCESS)
		return -EIO;
	MPI_Comm_rank(c, local_p);
	MPI_Comm_free(&c);
	return 0;
}

/* ---- bounded collectives and point-to-point blobs ---- */

/* A wait's deadline, no later than STOP_MS after the signal that stopped the sweep. */
static uint64_t stop_bound(struct lp_sweep_mpi *x, uint64_t deadline)
{
	if (!x->stop || !*x->stop)
		return deadline;
	if (!x->stop_deadline)
		x->stop_deadline = deadline_in(STOP_MS);
	return LP_MIN(deadline, x->stop_deadline);
}

static int wait_or_lose(struct lp_sweep_mpi *x, MPI_Request *req, int timeout_ms, const char *what)
{
	uint64_t end = deadline_in(timeout_ms);
	int ret;

	/* in slices of 100 ms, so that a signal meanwhile shortens the wait */
	do {
		end = stop_bound(x, end);
		ret = lp_mpi_wait(req, NULL, LP_MIN(end, deadline_in(100)), x->poll_max_us);
	} while (ret == -ETIMEDOUT && lp_now_ns() < end);

	if (ret == -ETIMEDOUT) {
		lp_warn("%s: not every rank arrived within %d s; going on without them", what,
			timeout_ms / 1000);
		x->lost = true;
		if (x->pending < (int)LP_ARRAY_SIZE(x->pending_req))
			x->pending_req[x->pending++] = *req;
	} else if (ret) {
		lp_warn("%s: MPI error", what);
		x->lost = true;
	}
	return ret;
}

/*
 * The barrier at the end of a round, bounded by timeout_ms (a late barrier is
 * remembered and x->lost set); it also agrees on stopping: true when stop is
 * set on any rank (SIGINT/SIGTERM to one rank stops them all).
 */
static bool round_barrier(struct lp_sweep_mpi *x, int timeout_ms, bool stop)
{
	MPI_Request req;

	x->stop_mine = stop;
	x->stop_any = 0;
	if (MPI_Iallreduce(&x->stop_mine, &x->stop_any, 1, MPI_INT, MPI_MAX, x->comm, &req) !=
	    MPI_SUCCESS)
		return stop;
	if (wait_or_lose(x, &req, timeout_ms, "round barrier"))
		return stop;
	return stop || x->stop_any;
}

#define XCH_LEN (8 + 80)

/* Everyone learns every rank's device status, rail and label (Iallgather, bounded). */
static int exchange(struct lp_sweep_mpi *x, const struct lp_sweep_node *me)
{
	uint8_t mine[XCH_LEN], *all = malloc((size_t)XCH_LEN * x->size);
	MPI_Request req;
	int ret;

	if (!all)
		return -ENOMEM;
	memset(mine, 0, sizeof(mine));
	memcpy(mine, &me->status, 4); /* same binary, same host byte order: ints as bytes */
	memcpy(mine + 4, &me->rail, 4);
	snprintf((char *)mine + 8, 80, "%s", me->name);
	if (MPI_Iallgather(mine, XCH_LEN, MPI_BYTE, all, XCH_LEN, MPI_BYTE, x->comm, &req) !=
	    MPI_SUCCESS) {
		free(all);
		return -EIO;
	}
	ret = wait_or_lose(x, &req, EXCHANGE_MS, "start-up exchange");
	if (ret) {
		/* the buffer belongs to the pending request now */
		return ret;
	}
	for (int i = 0; i < x->size; i++) {
		memcpy(&x->status_all[i], all + (size_t)i * XCH_LEN, 4);
		memcpy(&x->rail_all[i], all + (size_t)i * XCH_LEN + 4, 4);
		memcpy(x->name_all[i], all + (size_t)i * XCH_LEN + 8, 80);
		x->name_all[i][79] = 0;
	}
	free(all);
	return 0;
}

static int send_blob(struct lp_sweep_mpi *x, int dest, int tag, const void *buf, size_t len,
		     int timeout_ms)
{
	MPI_Request req;

	if (len > (size_t)1 << 30)
		return -E2BIG;
	if (MPI_Isend(buf, (int)len, MPI_BYTE, dest, tag, x->comm, &req) != MPI_SUCCESS)
		return -EIO;
	return wait_or_lose(x, &req, timeout_ms, "sending results");
}

/*
 * Probe with back-off until src's message arrives (src may be MPI_ANY_SOURCE:
 * *from_p says whose, when not NULL), then take it (malloc'ed).
 */
static int recv_blob(struct lp_sweep_mpi *x, int src, int tag, uint8_t **buf_p, int *len_p,
		     uint64_t deadline, int *from_p)
{
	struct lp_mpi_backoff b;
	MPI_Status st;
	int flag = 0;

	lp_mpi_backoff_init(&b, x->poll_max_us);
	for (;;) {
		if (MPI_Iprobe(src, tag, x->comm, &flag, &st) != MPI_SUCCESS)
			return -EIO;
		if (flag)
			break;
		deadline = stop_bound(x, deadline);
		if (lp_now_ns() >= deadline)
			return -ETIMEDOUT;
		lp_mpi_backoff_pause(&b);
	}
	MPI_Get_count(&st, MPI_BYTE, len_p);
	*buf_p = malloc(*len_p ? *len_p : 1);
	if (!*buf_p)
		return -ENOMEM;
	if (from_p)
		*from_p = st.MPI_SOURCE;
	/* the message is here: this receive does not wait on a peer */
	if (MPI_Recv(*buf_p, *len_p, MPI_BYTE, st.MPI_SOURCE, tag, x->comm, MPI_STATUS_IGNORE) !=
	    MPI_SUCCESS) {
		free(*buf_p);
		return -EIO;
	}
	return 0;
}

/* Rank 0 collects every rank's node record into run->nodes (others send theirs). */
static int gather_nodes(struct lp_sweep_mpi *x, const struct lp_sweep_node *me,
			struct lp_sweep_run *run)
{
	struct lp_wbuf w;
	uint64_t dl = deadline_in(EXCHANGE_MS);

	lp_wbuf_init(&w);
	lp_record_encode(&lp_sweep_node_record, me, &w);
	if (x->rank != 0)
		return send_blob(x, 0, TAG_NODE, w.data, w.len, EXCHANGE_MS);
	run->nodes[0] = *me;
	for (int i = 1; i < x->size; i++) {
		uint8_t *buf;
		int len, ret = recv_blob(x, i, TAG_NODE, &buf, &len, dl, NULL);

		if (ret == 0) {
			ret = lp_record_decode_body(&lp_sweep_node_record, &run->nodes[i], buf,
						    (size_t)len);
			free(buf);
		}
		if (ret) {
			struct lp_sweep_node *nd = &run->nodes[i];

			memset(nd, 0, sizeof(*nd));
			nd->rank = i;
			nd->rail = x->rail_all[i];
			snprintf(nd->name, sizeof(nd->name), "%s",
				 x->name_all[i][0] ? x->name_all[i] : "?");
			nd->status = ret;
			snprintf(nd->error, sizeof(nd->error), "rank %d sent no metadata: %s", i,
				 strerror(-ret));
			x->lost = x->lost || ret == -ETIMEDOUT;
		}
		/* the labels agreed in the exchange win (they were made unique there) */
		snprintf(run->nodes[i].name, sizeof(run->nodes[i].name), "%s", x->name_all[i]);
	}
	return 0;
}

/* ---- one ordered pair, one metric ---- */

static int session_tag(const struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg, int dir, int m)
{
	uint64_t sess =
		(x->rounds_done * 2 + (uint64_t)dir) * (uint64_t)cfg->nmetrics + (uint64_t)m;

	return TAG_SESSION0 + (int)(sess % (uint64_t)(x->tag_ub - TAG_SESSION0));
}

static void push_cell(struct lp_sweep_mpi *x, const struct lp_sweep_cell *c)
{
	pthread_mutex_lock(&x->lock);
	if (x->nmine == x->capmine) {
		size_t nc = x->capmine ? x->capmine * 2 : 64;
		struct lp_sweep_cell *p = realloc(x->mine, nc * sizeof(*p));

		if (!p) {
			lp_warn("out of memory for results");
			pthread_mutex_unlock(&x->lock);
			return;
		}
		x->mine = p;
		x->capmine = nc;
	}
	x->mine[x->nmine++] = *c;
	pthread_mutex_unlock(&x->lock);
}

/* The MPI channel of one pair session: messages on tag, every wait bounded by the pair timeout. */
static void pair_oob(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg, int peer, int tag,
		     struct lp_mpi_oob *o, struct lp_oob *oob)
{
	*o = (struct lp_mpi_oob){
		.comm = x->comm,
		.peer = peer,
		.tag = tag,
		.deadline_ns = deadline_in((int)(cfg->pair_timeout_s * 1000)),
		.poll_max_us = cfg->poll_max_us,
	};
	*oob = (struct lp_oob){
		.ops = &lp_oob_mpi_ops,
		.ctx = o,
		.timeout_ms = (int)(cfg->pair_timeout_s * 1000),
		.peer_family = AF_INET,
		.peer_name = x->name_all[peer],
		.stop = cfg->sopts.stop, /* SIGINT/SIGTERM end the running test too */
	};
}
/* A signal here or at the peer cut the test short: not a measurement. */
static bool cut_short(int status)
{
	return status == -EINTR || status == -ECANCELED;
}

static const struct lp_sweep_xport_ops *xport(const struct lp_sweep_cfg *cfg)
{
	return cfg->xport ? cfg->xport : &lp_sweep_xport_rdma;
}

/* A client test and its transport. */
struct client_arg {
	const struct lp_sweep_xport_ops *ops;
	struct lp_sweep_test t;
};

/* The client test in a test worker (cfg->isolate) or run here; a->t.c holds its cell. */
static void client_side(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg,
			struct lp_mpi_oob *o, struct lp_oob *oob, struct client_arg *a)
{
	struct lp_sweep_cell *c = &a->t.c;
	struct lp_fail wf = { 0 };
	struct lp_wbuf *out;
	int ret;

	if (!cfg->isolate) {
		a->ops->client(x->dev, oob, &a->t);
		if (cut_short(c->status))
			return;
		/* end the session; after a failure the server may be gone already,
		 * and the message then sits unread on a tag nobody uses again */
		o->deadline_ns = deadline_in(2000);
		a->ops->bye(oob);
		return;
	}
	out = malloc(sizeof(*out));
	ret = out ? lp_sweep_isolated(x, cfg, o, oob, &a->t, NULL, NULL, out, &wf) : -ENOMEM;
	if (ret && !lp_fail_ok(&wf)) /* the cell's error: the test process's end in words */
		snprintf(c->error, sizeof(c->error), "%s", lp_fail_msg(&wf));
	if (!ret && lp_record_decode_body(&lp_sweep_cell_record, c, out->data, out->len)) {
		ret = -EPROTO;
		snprintf(c->error, sizeof(c->error), "the test process's result does not decode");
	}
	if (ret)
		c->status = ret;
	if (c->status && cfg->sopts.stop && *cfg->sopts.stop)
		c->status = -EINTR; /* its channel was closed on the signal: cut short */
	free(out);
}

static void run_client(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg, int m,
		       const struct lp_rdma_params *p, int server, int tag, int round,
		       enum lp_phase phase, struct lp_sweep_conn pc)
{
	struct client_arg a = { .ops = xport(cfg),
				.t = { .conn = pc,
				       .p = *p,
				       .client = x->name_all[x->rank],
				       .server = x->name_all[server],
				       .model = cfg->model,
				       .attempt = phase == LP_PHASE_RETEST ? x->retest_round + 1
									   : 0 } };
	struct lp_sweep_cell *c = &a.t.c;
	uint64_t t0 = lp_now_ns();

	/* a retest's round is its retest round (the diagnosis dates transients by it) */
	lp_sweep_cell_init(c, m, x->rank, server, phase,
			   phase == LP_PHASE_RETEST ? x->retest_round : round);
	if (x->dev_status) {
		c->status = x->dev_status;
		snprintf(c->error, sizeof(c->error), "client %s: %s", a.t.client, x->dev_error);
	} else if (x->status_all[server]) {
		c->status = x->status_all[server];
		snprintf(c->error, sizeof(c->error), "server %s: device not usable (%s)",
			 a.t.server, strerror(-x->status_all[server]));
	} else {
		struct lp_mpi_oob o;
		struct lp_oob oob;

		pair_oob(x, cfg, server, tag, &o, &oob);
		client_side(x, cfg, &o, &oob, &a);
		if (cut_short(c->status))
			return;
	}
	c->wall_s = (double)(lp_now_ns() - t0) / 1e9;
	if (c->status)
		lp_info("%s -> %s %s: %s", a.t.client, a.t.server, lp_rdma_test_names[p->test],
			c->error);
	push_cell(x, c);
}

static void run_server(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg, int client, int tag,
		       struct lp_sweep_conn pc)
{
	const struct lp_sweep_xport_ops *ops = xport(cfg);
	struct lp_rdma_server_opts so = cfg->sopts;
	struct lp_mpi_oob o;
	struct lp_oob oob;
	struct lp_wbuf *out;
	struct lp_fail why = { 0 };
	int ret;

	pair_oob(x, cfg, client, tag, &o, &oob);

	if (x->dev_status || x->status_all[client])
		return; /* the client records the error in its cells */
	if (!cfg->isolate) {
		ret = ops->serve(x->dev, &oob, &so, &pc);
	} else {
		out = malloc(sizeof(*out));
		ret = out ? lp_sweep_isolated(x, cfg, &o, &oob, NULL, &so, &pc, out, &why)
			  : -ENOMEM;
		if (!ret) {
			struct lp_rbuf rb;

			lp_rbuf_init(&rb, out->data, out->len);
			ret = (int)lp_rbuf_u32(&rb);
		}
		free(out);
	}
	if (ret)
		lp_info("serving %s: session ended: %s", x->name_all[client],
			lp_fail_ok(&why) ? strerror(-ret) : lp_fail_msg(&why));
}

/* This rank's slot in round r of s, or NULL (it sits the round out). */
static const struct lp_slot *my_slot(const struct lp_sweep_mpi *x, const struct lp_sched *s,
				     size_t r)
{
	size_t cnt;
	const struct lp_slot *sl = lp_sched_round(s, r, &cnt);

	for (size_t i = 0; i < cnt; i++)
		if (sl[i].x == x->rank || sl[i].y == x->rank)
			return &sl[i];
	return NULL;
}

/* Whether direction d of slot sl runs metric m in phase (--fast's screen, --resume's cells). */
static bool session_wanted(const struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg,
			   const struct lp_slot *sl, int d, int m, enum lp_phase phase)
{
	int client = d == 0 ? sl->x : sl->y, server = d == 0 ? sl->y : sl->x;

	if (!(sl->dirs & (d == 0 ? LP_DIR_XY : LP_DIR_YX)))
		return false;
	if (cfg->screen && (phase == LP_PHASE_SIZES) == (bool)(cfg->screen >> m & 1))
		return false; /* --fast: the screen on every pair, sizes apart */
	/* --resume: the journal has it */
	return !(phase == LP_PHASE_SWEEP && x->done &&
		 x->done[((size_t)client * x->size + server) * cfg->nmetrics + m]);
}

/* A round lasts at most two directions of every metric, each bounded by the pair timeout. */
static int round_ms(const struct lp_sweep_cfg *cfg)
{
	return (int)LP_MIN(2.0 * cfg->nmetrics * cfg->pair_timeout_s * 1000 + 60000, 2e9);
}

/* ---- set-up reuse: a round's connections prepared ahead, exchanged in one collective ---- */

/* One session's connection record, as the round's exchange carries it. */
struct conn_rec {
	uint64_t round;	 /* x->rounds_done of the round it is for */
	int32_t from;	 /* the rank that prepared it */
	uint32_t dir, m; /* the session: direction of the slot, metric */
	uint64_t conn;	 /* its prepared connection (0: none) */
};

/* clang-format off */
static const struct lp_record conn_rec_record = LP_RECORD(struct conn_rec,
	LP_REC_U64(struct conn_rec, round),
	LP_REC_I32(struct conn_rec, from),
	LP_REC_U32(struct conn_rec, dir, LP_REC_RANGE(0, 1)),
	LP_REC_U32(struct conn_rec, m, LP_REC_RANGE(0, LP_SWEEP_MAX_METRICS - 1)),
	LP_REC_U64(struct conn_rec, conn));
/* clang-format on */

#define CONN_REC_LEN 64 /* a record's fixed slot: u16 length, its body, zeros */

/* One round's exchange: this rank's records for its partner, and the partner's. */
struct xchg {
	MPI_Request req;
	bool posted, pending; /* pending: a late exchange still owns the buffers */
	uint64_t round;
	int peer; /* the round's partner, -1: none */
	uint64_t mine[2][LP_SWEEP_MAX_METRICS], theirs[2][LP_SWEEP_MAX_METRICS];
	uint8_t sbuf[2 * LP_SWEEP_MAX_METRICS * CONN_REC_LEN];
	uint8_t rbuf[2 * LP_SWEEP_MAX_METRICS * CONN_REC_LEN];
	int *scnt, *rcnt, *displ; /* per rank: bytes to and from it (the partner's only), 0 */
};

/* The transport prepares connections ahead (the model's; lp-rdma's not yet). */
static bool reuse_exchange(const struct lp_sweep_cfg *cfg)
{
	return cfg->reuse && xport(cfg)->prepare;
}

static int xchg_init(const struct lp_sweep_mpi *x, struct xchg *xc)
{
	xc->scnt = calloc((size_t)x->size, sizeof(int));
	xc->rcnt = calloc((size_t)x->size, sizeof(int));
	xc->displ = calloc((size_t)x->size, sizeof(int));
	return xc->scnt && xc->rcnt && xc->displ ? 0 : -ENOMEM;
}

/* Both exchanges' buffers freed, unless a late one still owns them (then kept on purpose). */
static void xchg_free(struct xchg *xc)
{
	if (!xc || xc[0].pending || xc[1].pending)
		return;
	for (int i = 0; i < 2; i++) {
		free(xc[i].scnt);
		free(xc[i].rcnt);
		free(xc[i].displ);
	}
	free(xc);
}

/* This rank's sessions of slot sl prepared (in its worker, or here): xc->mine. */
static void xchg_prepare(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg,
			 const struct lp_slot *sl, enum lp_phase phase, struct xchg *xc)
{
	uint32_t serve[2 * LP_SWEEP_MAX_METRICS], ms[2 * LP_SWEEP_MAX_METRICS];
	uint64_t ids[2 * LP_SWEEP_MAX_METRICS];
	int n = 0;

	if (x->dev_status || x->status_all[xc->peer])
		return; /* no session: the client records the error */
	for (int d = 0; d < 2; d++)
		for (int m = 0; m < cfg->nmetrics; m++)
			if (session_wanted(x, cfg, sl, d, m, phase)) {
				serve[n] = (d == 0 ? sl->x : sl->y) != x->rank;
				ms[n++] = (uint32_t)m;
			}
	if (cfg->isolate)
		lp_sweep_workers_prepare(x, cfg, n, serve, ms, ids);
	else
		for (int i = 0; i < n; i++)
			ids[i] = xport(cfg)->prepare(x->dev, serve[i], (int)ms[i]);
	for (int i = 0, k = 0; i < 2 * cfg->nmetrics && k < n; i++) {
		int d = i / cfg->nmetrics, m = i % cfg->nmetrics;

		if (session_wanted(x, cfg, sl, d, m, phase))
			xc->mine[d][m] = ids[k++];
	}
}

/*
 * Round r of s (x->rounds_done + ahead): this rank's sessions prepared and
 * their records posted to its partner in one nonblocking collective (an
 * MPI_Ialltoallv whose only non-empty blocks are the partners'), completed by
 * xchg_wait before the round starts. Test-only: LP_FAULT_CONN_RECORD=1 sends
 * every record with a wrong connection (the sessions must refuse it).
 */
static void xchg_post(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg,
		      const struct lp_sched *s, size_t r, uint64_t ahead, enum lp_phase phase,
		      struct xchg *xc)
{
	const struct lp_slot *sl = my_slot(x, s, r);
	int len = 2 * cfg->nmetrics * CONN_REC_LEN;
	bool crossed = getenv("LP_FAULT_CONN_RECORD") != NULL;

	if (xc->pending)
		return;	   /* a late exchange owns the buffers: this rank is lost already */
	if (xc->peer >= 0) /* the last exchange of xc is over: its partner's counts cleared */
		xc->scnt[xc->peer] = xc->rcnt[xc->peer] = 0;
	xc->round = x->rounds_done + ahead;
	xc->peer = sl ? (sl->x == x->rank ? sl->y : sl->x) : -1;
	memset(xc->mine, 0, sizeof(xc->mine));
	memset(xc->theirs, 0, sizeof(xc->theirs));
	memset(xc->sbuf, 0, sizeof(xc->sbuf));
	if (xc->peer >= 0) {
		xchg_prepare(x, cfg, sl, phase, xc);
		xc->scnt[xc->peer] = xc->rcnt[xc->peer] = len;
	}
	for (int i = 0; xc->peer >= 0 && i < 2 * cfg->nmetrics; i++) {
		struct conn_rec cr = { .round = xc->round,
				       .from = x->rank,
				       .dir = (uint32_t)(i / cfg->nmetrics),
				       .m = (uint32_t)(i % cfg->nmetrics) };
		struct lp_wbuf w;

		cr.conn = xc->mine[cr.dir][cr.m];
		if (crossed && cr.conn)
			cr.conn ^= 1;
		lp_wbuf_init(&w);
		if (!lp_record_encode(&conn_rec_record, &cr, &w) && w.len + 2 <= CONN_REC_LEN) {
			xc->sbuf[i * CONN_REC_LEN] = (uint8_t)w.len;
			memcpy(xc->sbuf + i * CONN_REC_LEN + 2, w.data, w.len);
		}
	}
	/* the buffers and the count arrays are MPI's until xchg_wait completes the exchange */
	xc->posted = MPI_Ialltoallv(xc->sbuf, xc->scnt, xc->displ, MPI_BYTE, xc->rbuf, xc->rcnt,
				    xc->displ, MPI_BYTE, x->comm, &xc->req) == MPI_SUCCESS;
}

/* The exchange of xc complete (bounded): the partner's records checked into xc->theirs. */
static void xchg_wait(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg, struct xchg *xc)
{
	bool posted = xc->posted;
	int bad = 0;

	xc->posted = false;
	if (!posted)
		return;
	if (wait_or_lose(x, &xc->req, round_ms(cfg), "connection exchange")) {
		xc->pending = true; /* its buffers belong to the late request: kept */
		return;		    /* the sessions set up their own */
	}
	for (int i = 0; xc->peer >= 0 && i < 2 * cfg->nmetrics; i++) {
		struct conn_rec cr;
		const uint8_t *b = xc->rbuf + i * CONN_REC_LEN;

		if (b[0] + 2 > CONN_REC_LEN ||
		    lp_record_decode_body(&conn_rec_record, &cr, b + 2, b[0]) ||
		    cr.round != xc->round || cr.from != xc->peer ||
		    cr.dir != (uint32_t)(i / cfg->nmetrics) ||
		    cr.m != (uint32_t)(i % cfg->nmetrics)) {
			bad++;
			continue;
		}
		xc->theirs[cr.dir][cr.m] = cr.conn;
	}
	if (bad)
		lp_warn("connection exchange: %d record(s) of %s do not fit this round; those "
			"sessions set up their own",
			bad, x->name_all[xc->peer]);
}

/* This rank's tests in round r (its pair, both directions, every metric): client cells to x->mine. */
static void run_my_pair(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg,
			const struct lp_sched *s, size_t r, enum lp_phase phase,
			const struct xchg *xc)
{
	const struct lp_slot *sl = my_slot(x, s, r);

	for (int d = 0; sl && d < 2; d++) {
		int client = d == 0 ? sl->x : sl->y, server = d == 0 ? sl->y : sl->x;

		for (int m = 0; m < cfg->nmetrics; m++) {
			int tag = session_tag(x, cfg, d, m);
			struct lp_sweep_conn pc = { 0 };

			if (cfg->sopts.stop && *cfg->sopts.stop)
				break; /* no new session: every rank got the signal too */
			if (!session_wanted(x, cfg, sl, d, m, phase))
				continue;
			if (xc)
				pc = (struct lp_sweep_conn){ .mine = xc->mine[d][m],
							     .peer = xc->theirs[d][m] };
			if (client == x->rank)
				run_client(x, cfg, m, &cfg->params[m], server, tag, (int)r, phase,
					   pc);
			else
				run_server(x, cfg, client, tag, pc);
		}
	}
}

/* x->mine as one blob of cell records (lp_record_pack). */
static uint8_t *pack_cells(const struct lp_sweep_mpi *x, size_t *len_p)
{
	size_t skipped = 0;
	uint8_t *buf = lp_record_pack(&lp_sweep_cell_record, x->mine, x->nmine, sizeof(*x->mine),
				      len_p, &skipped);

	if (skipped)
		lp_warn("%zu cells of %s do not encode; left out", skipped, x->name_all[x->rank]);
	return buf;
}

static void add_cell(void *obj, void *run)
{
	lp_sweep_add_cell(run, obj);
}

/* Rank 0: the cells of one rank's blob into run; a cell that does not decode is left out. */
static void unpack_cells(struct lp_sweep_run *run, const uint8_t *buf, size_t len)
{
	struct lp_sweep_cell c;

	lp_record_unpack(&lp_sweep_cell_record, buf, len, &c, add_cell, run);
}

/*
 * Rank 0: every other rank's blob of cells on tag into run, taken in the order
 * they arrive (no rank waits behind a late one) and added in rank order (the
 * document does not depend on timing). A rank that sends nothing within the
 * exchange's bound is silent from then on: its late blobs are dropped.
 */
static int gather_blobs(struct lp_sweep_mpi *x, struct lp_sweep_run *run, int tag)
{
	uint64_t dl = deadline_in(EXCHANGE_MS);
	uint8_t **bufs = calloc((size_t)x->size, sizeof(*bufs));
	int *lens = calloc((size_t)x->size, sizeof(*lens)), want = 0, rc = 0;

	if (!bufs || !lens) {
		free(bufs);
		free(lens);
		return -ENOMEM;
	}
	for (int src = 1; src < x->size; src++)
		want += !x->silent[src]; /* one that missed a gather is not waited for again */
	while (want > 0 && !rc) {
		uint8_t *buf;
		int len, from = 0;

		rc = recv_blob(x, MPI_ANY_SOURCE, tag, &buf, &len, dl, &from);
		if (rc)
			break;
		if (from <= 0 || from >= x->size || x->silent[from] || bufs[from]) {
			free(buf); /* a silent rank's late blob */
			continue;
		}
		bufs[from] = buf;
		lens[from] = len;
		want--;
	}
	for (int src = 1; src < x->size; src++) {
		if (x->silent[src])
			continue;
		if (!bufs[src]) {
			lp_warn("no results from rank %d (%s): %s; its cells stay empty", src,
				x->name_all[src], strerror(rc ? -rc : ETIMEDOUT));
			x->lost = x->lost || rc == -ETIMEDOUT;
			x->silent[src] = 1;
			continue;
		}
		unpack_cells(run, bufs[src], (size_t)lens[src]);
		free(bufs[src]);
	}
	free(bufs);
	free(lens);
	return rc;
}

/* Rank 0 adds every rank's x->mine to run (and clears them everywhere). */
static int gather_cells(struct lp_sweep_mpi *x, struct lp_sweep_run *run, int tag)
{
	int rc;

	if (x->rank != 0) {
		size_t len = 0;
		uint8_t *buf = pack_cells(x, &len);

		if (!buf)
			return -ENOMEM;
		rc = send_blob(x, 0, tag, buf, len, EXCHANGE_MS);
		if (rc != -ETIMEDOUT) /* else the pending send still owns it */
			free(buf);
		x->nmine = 0;
		return rc;
	}
	for (size_t i = 0; i < x->nmine; i++)
		lp_sweep_add_cell(run, &x->mine[i]);
	x->nmine = 0;
	return gather_blobs(x, run, tag);
}

/*
 * Every round of s; after each, rank 0 gathers the round's cells (tag) into run
 * and journals them, so a round's cells are on disk before the next round
 * starts. -EINTR when a signal stopped the rounds (the cells done are in run).
 */
static int run_rounds(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg,
		      const struct lp_sched *s, enum lp_phase phase, struct lp_sweep_run *run,
		      int tag)
{
	int barrier_ms = round_ms(cfg), ret = 0;
	bool ahead = reuse_exchange(cfg) && s->nrounds > 0;
	struct xchg *xc = ahead ? calloc(2, sizeof(*xc)) : NULL;

	if (ahead && (!xc || xchg_init(x, &xc[0]) || xchg_init(x, &xc[1]))) {
		lp_warn("out of memory for the connection exchange");
		x->lost = true; /* the other ranks' exchanges wait for this one in vain */
		xchg_free(xc);
		xc = NULL;
		ahead = false;
	}
	x->phase_t0 = lp_now_ns();
	if (ahead)
		xchg_post(x, cfg, s, 0, 0, phase, &xc[0]);
	for (size_t r = 0; r < s->nrounds; r++) {
		size_t from = run->ncells;
		struct xchg *now = ahead ? &xc[r & 1] : NULL;
		bool stop;

		if (now) { /* this round's records in; the next round's prepared and posted */
			xchg_wait(x, cfg, now);
			if (r + 1 < s->nrounds)
				xchg_post(x, cfg, s, r + 1, 1, phase, &xc[(r + 1) & 1]);
		}
		run_my_pair(x, cfg, s, r, phase, now);
		/* The round's barrier also agrees on stopping: a signal to any rank stops all. */
		stop = round_barrier(x, barrier_ms, cfg->sopts.stop && *cfg->sopts.stop);
		gather_cells(x, run, tag);
		for (size_t i = from; i < run->ncells; i++)
			run->cells[i].attempt = run->attempt;
		lp_sweep_journal_cells(cfg->journal, run, from);
		lp_sweep_journal_sync(cfg->journal);
		if (stop) {
			ret = -EINTR;
			break;
		}
		x->rounds_done++;
		round_done(x, cfg, run, lp_sweep_phase_names[phase], r, s->nrounds);
	}
	if (ahead) { /* every rank posted the same exchanges: the last one completes too */
		xchg_wait(x, cfg, &xc[0]);
		xchg_wait(x, cfg, &xc[1]);
		xchg_free(xc);
	}
	return ret;
}

/*
 * Set-up reuse's counters of every rank summed on rank 0 (bounded), and said
 * there: a progress line, and a warning when pooled QPs had to be replaced.
 */
static void reuse_report(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg)
{
	const struct lp_sweep_xport_ops *ops = xport(cfg);
	struct lp_rdma_reuse_stats mine = { 0 }, *all = calloc(1, sizeof(*all));
	MPI_Request req;

	if (!cfg->reuse || !all) {
		free(all);
		return;
	}
	if (cfg->isolate)
		lp_sweep_workers_stats(x, &mine);
	else if (ops->reuse_stats)
		ops->reuse_stats(x->dev, &mine);
	if (MPI_Ireduce(&mine, all, sizeof(mine) / sizeof(uint64_t), MPI_UINT64_T, MPI_SUM, 0,
			x->comm, &req) != MPI_SUCCESS)
		return free(all);
	if (wait_or_lose(x, &req, EXCHANGE_MS, "reuse counters"))
		return; /* the late reduction owns all */
	progress(x, cfg,
		 "lp-sweep: set-up reuse: %llu connection set(s) created, %llu reused, %llu "
		 "replaced after a failed reset; %llu buffer(s) registered, %llu reused; %llu "
		 "released after a failure\n",
		 (unsigned long long)all->qp_created, (unsigned long long)all->qp_reused,
		 (unsigned long long)all->qp_fallbacks, (unsigned long long)all->mr_registered,
		 (unsigned long long)all->mr_reused, (unsigned long long)all->released);
	if (x->rank == 0 && all->qp_fallbacks)
		lp_warn("%llu pooled connection set(s) failed their reset and were replaced by "
			"fresh ones",
			(unsigned long long)all->qp_fallbacks);
	free(all);
}

/* ---- load phases ---- */

/* This rank's part of a load round: metrics ms in turn against peer, as client (cells) or server. */
struct load_job {
	struct lp_sweep_mpi *x;
	const struct lp_sweep_cfg *cfg;
	int ms[LP_SWEEP_MAX_METRICS], nm;
	double duration_s;
	int peer, unit, round; /* unit: the session's place in the round, for its tag */
	bool client;
	enum lp_phase phase;
};

static void *load_job_main(void *arg)
{
	struct load_job *j = arg;

	for (int k = 0; k < j->nm; k++) {
		int m = j->ms[k], tag = session_tag(j->x, j->cfg, j->unit, m);
		struct lp_rdma_params p = j->cfg->params[m];

		if (j->cfg->sopts.stop && *j->cfg->sopts.stop)
			break;
		p.duration_s = j->duration_s;
		p.iters = 0;
		if (j->client)
			run_client(j->x, j->cfg, m, &p, j->peer, tag, j->round, j->phase,
				   (struct lp_sweep_conn){ 0 });
		else
			run_server(j->x, j->cfg, j->peer, tag, (struct lp_sweep_conn){ 0 });
	}
	return NULL;
}

/* The jobs at once: the first here, the others on threads (joined before returning). */
static void run_jobs(struct load_job *jobs, int n)
{
	pthread_t th[LP_SWEEP_MAX_INCAST + 1];
	bool started[LP_SWEEP_MAX_INCAST + 1] = { false };

	if (n > 0 && jobs[0].cfg->isolate) /* started here, they outlive the threads */
		lp_sweep_workers_ready(jobs[0].x, jobs[0].cfg, n);

	for (int i = 1; i < n; i++)
		started[i] = !pthread_create(&th[i], NULL, load_job_main, &jobs[i]);
	if (n > 0)
		load_job_main(&jobs[0]);
	for (int i = 1; i < n; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		else /* no thread: late, and its peer's wait is bounded */
			load_job_main(&jobs[i]);
	}
}

/* The metrics that are latency tests (lat) or bandwidth tests, as indices into ms; the count. */
static int metrics_of(const struct lp_sweep_cfg *cfg, bool lat, int *ms)
{
	int n = 0;

	for (int m = 0; m < cfg->nmetrics; m++)
		if (lp_rdma_test_is_lat(cfg->params[m].test) == lat &&
		    (!cfg->screen ||
		     (cfg->screen >> m & 1))) /* --fast: the screen's, with a matrix */
			ms[n++] = m;
	return n;
}

/* How long loaders run: the victim's nlat tests with their set-up, started at the same barrier. */
static double loader_s(const struct lp_sweep_cfg *cfg, int nlat)
{
	return lp_sweep_time_loader_s(cfg->load_time_s, nlat);
}

/* An incast's senders run this long: past its victim's latency tests when it has one. */
static double incast_s(const struct lp_sweep_cfg *cfg)
{
	int ms[LP_SWEEP_MAX_METRICS];

	return lp_sweep_time_incast_s(cfg->load_time_s, metrics_of(cfg, true, ms));
}

/* Victims of s: every ordered pair of a round that has other pairs to load it. */
static size_t load_victims(const struct lp_sched *s)
{
	size_t n = 0, cnt;

	for (size_t r = 0; r < s->nrounds; r++) {
		const struct lp_slot *sl = lp_sched_round(s, r, &cnt);

		for (size_t i = 0; i < cnt && cnt >= 2; i++)
			n += (sl[i].dirs & LP_DIR_XY ? 1 : 0) + (sl[i].dirs & LP_DIR_YX ? 1 : 0);
	}
	return n;
}

/* Round r of s with slot v's direction d the victim: this rank's job, if it is in the round. */
static int latency_job(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg,
		       const struct lp_sched *s, size_t r, size_t v, int d, int idx,
		       struct load_job *j)
{
	size_t cnt;
	const struct lp_slot *sl = lp_sched_round(s, r, &cnt);
	int lat[LP_SWEEP_MAX_METRICS], bw[LP_SWEEP_MAX_METRICS], nlat = metrics_of(cfg, true, lat);

	metrics_of(cfg, false, bw);
	for (size_t i = 0; i < cnt; i++) {
		int client = i == v && d ? sl[i].y : sl[i].x,
		    server = client == sl[i].x ? sl[i].y : sl[i].x;

		if (client != x->rank && server != x->rank)
			continue;
		*j = (struct load_job){
			.x = x, .cfg = cfg, .round = idx, .client = client == x->rank
		};
		j->peer = j->client ? server : client;
		if (i == v) {
			memcpy(j->ms, lat, sizeof(int) * (size_t)nlat);
			j->nm = nlat;
			j->duration_s = cfg->load_time_s;
			j->phase = LP_PHASE_LOADED;
		} else {
			j->ms[0] = bw[0];
			j->nm = 1;
			j->duration_s = loader_s(cfg, nlat);
			j->phase = LP_PHASE_LOADER;
			j->unit = 1 + (int)i;
		}
		return 1;
	}
	return 0;
}

/*
 * Receiver b's incast: its senders, the next k ranks of its rail after it
 * (wrapping), and with a latency test in the plan its victim, the rank after
 * them, which measures latency into b meanwhile (-1: none). Default k: every
 * other rank of the rail, less the victim's. Returns k.
 */
static int incast_plan(const struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg, int b,
		       int *snd, int *victim_p)
{
	int ms[LP_SWEEP_MAX_METRICS], lat = metrics_of(cfg, true, ms) > 0, members = 0, n = 0, k;

	for (int i = 0; i < x->size; i++)
		members += !cfg->rails || x->rail_all[i] == x->rail_all[b];
	k = LP_MIN(cfg->incast_k > 0 ? cfg->incast_k : members - 1 - lat, LP_SWEEP_MAX_INCAST);
	*victim_p = -1;
	for (int i = 1; i < x->size && *victim_p < 0; i++) {
		int s = (b + i) % x->size;

		if (cfg->rails && x->rail_all[s] != x->rail_all[b])
			continue;
		if (n < k)
			snd[n++] = s;
		else if (lat)
			*victim_p = s;
		else
			break;
	}
	return n;
}

/* Receiver b's incast: this rank's jobs (on b a server session per sender and victim). */
static int incast_jobs(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg, int b,
		       struct load_job *jobs)
{
	int snd[LP_SWEEP_MAX_INCAST + 1], bw[LP_SWEEP_MAX_METRICS], lat[LP_SWEEP_MAX_METRICS],
		nlat = metrics_of(cfg, true, lat), nj = 0, v, k = incast_plan(x, cfg, b, snd, &v);

	metrics_of(cfg, false, bw);
	if (v >= 0)
		snd[k] = v; /* the victim's session after the senders' */
	for (int i = 0; i < k + (v >= 0); i++) {
		struct load_job *j = &jobs[nj];

		if (x->rank != b && x->rank != snd[i])
			continue;
		*j = (struct load_job){ .x = x,
					.cfg = cfg,
					.ms = { bw[0] },
					.nm = 1,
					.duration_s = incast_s(cfg),
					.peer = x->rank == b ? snd[i] : b,
					.unit = snd[i],
					.round = b,
					.client = x->rank != b,
					.phase = LP_PHASE_INCAST };
		if (i == k) {
			memcpy(j->ms, lat, sizeof(int) * (size_t)nlat);
			j->nm = nlat;
			j->duration_s = cfg->load_time_s;
			j->phase = LP_PHASE_INCAST_VICTIM;
		}
		nj++;
	}
	return nj;
}

/*
 * One load round: a barrier starts every job at once, a second ends the round
 * (and agrees on stopping); the cells are gathered and journaled. true: stop.
 */
static bool load_round(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg,
		       struct lp_sweep_run *run, struct load_job *jobs, int nj, const char *what,
		       size_t r, size_t n)
{
	size_t from = run->ncells;
	bool stop = round_barrier(x, round_ms(cfg), cfg->sopts.stop && *cfg->sopts.stop);

	if (!stop)
		run_jobs(jobs, nj);
	stop = round_barrier(x, round_ms(cfg), stop || (cfg->sopts.stop && *cfg->sopts.stop));
	gather_cells(x, run, TAG_LOAD_CELLS);
	lp_sweep_journal_cells(cfg->journal, run, from);
	lp_sweep_journal_sync(cfg->journal);
	x->rounds_done += (uint64_t)(x->size + 2) / 2; /* the session tags of units 0..size */
	round_done(x, cfg, run, what, r, n);
	return stop;
}

/* What the load phases in bits run, for the time model (lp_sweep_time_load). */
static void load_plan(const struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg,
		      const struct lp_sched *ls, unsigned bits, struct lp_sweep_load_plan *lp)
{
	int ms[LP_SWEEP_MAX_METRICS];

	*lp = (struct lp_sweep_load_plan){ .load = cfg->load & bits,
					   .time_s = cfg->load_time_s,
					   .nlat = metrics_of(cfg, true, ms),
					   .victims = load_victims(ls),
					   .receivers = x->size };
}

/* The load phases of cfg->load over ls (the load schedule). -EINTR when a signal stopped them. */
static int run_load(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg,
		    const struct lp_sched *ls, struct lp_sweep_run *run)
{
	struct load_job jobs[LP_SWEEP_MAX_INCAST + 1];
	size_t nv = load_victims(ls), k = 0, cnt;

	struct lp_sweep_load_plan lp;

	load_plan(x, cfg, ls, LP_LOAD_INCAST, &lp);
	x->phase_t0 = lp_now_ns();
	x->later_s = lp_sweep_time_load(&lp);
	for (size_t r = 0; (cfg->load & LP_LOAD_LATENCY) && r < ls->nrounds; r++) {
		lp_sched_round(ls, r, &cnt);
		for (size_t v = 0; v < cnt && cnt >= 2; v++)
			for (int d = 0; d < 2; d++) {
				int nj;

				if (!(lp_sched_round(ls, r, &cnt)[v].dirs &
				      (d ? LP_DIR_YX : LP_DIR_XY)))
					continue;
				nj = latency_job(x, cfg, ls, r, v, d, (int)k, jobs);
				if (load_round(x, cfg, run, jobs, nj, "load latency", k++, nv))
					return -EINTR;
			}
	}
	x->phase_t0 = lp_now_ns();
	x->later_s = 0;
	for (int b = 0; (cfg->load & LP_LOAD_INCAST) && b < x->size; b++) {
		int nj = incast_jobs(x, cfg, b, jobs);

		if (load_round(x, cfg, run, jobs, nj, "incast", (size_t)b, (size_t)x->size))
			return -EINTR;
	}
	return 0;
}

/*
 * The load schedule (round-robin, or ring when the sweep's is ring) and what
 * the load modes need; a usage error is said once (rank 0). 0 or -EINVAL.
 */
static int load_setup(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg, struct lp_sched *ls)
{
	int ms[LP_SWEEP_MAX_METRICS], *groups, ret;
	const char *why = NULL;

	memset(ls, 0, sizeof(*ls));
	if (!cfg->load)
		return 0;
	if (!metrics_of(cfg, false, ms))
		why = "needs a bandwidth test in --tests (the load)";
	else if ((cfg->load & LP_LOAD_LATENCY) && !metrics_of(cfg, true, ms))
		why = "latency needs a latency test in --tests (the victims')";
	else if ((cfg->load & LP_LOAD_INCAST) && x->size < 3)
		why = "incast needs 3 ranks at least (2 senders, another receiver to compare)";
	else if ((cfg->load & LP_LOAD_INCAST) && !x->threads)
		why = "incast needs MPI_THREAD_MULTIPLE (a server session per sender on threads)";
	if (why) {
		return x->rank ? -EINVAL : lp_fail_set(&x->fail, -EINVAL, "--load: %s", why);
	}
	groups = calloc(x->size, sizeof(int));
	if (!groups)
		return -ENOMEM;
	for (int i = 0; i < x->size; i++)
		groups[i] = cfg->rails ? x->rail_all[i] : 0;
	ret = lp_sched_build_groups(
		ls, cfg->kind == LP_SCHED_RING ? LP_SCHED_RING : LP_SCHED_ROUND_ROBIN, x->size,
		groups, 0, 0);
	free(groups);
	if (!ret && (cfg->load & LP_LOAD_LATENCY) && !load_victims(ls)) {
		ret = x->rank ? -EINVAL
			      : lp_fail_set(
					&x->fail, -EINVAL,
					"--load latency needs 4 ranks at least (two pairs in a round)");
	}
	return ret;
}

/* Rank 0's list of ordered pairs to everyone: *pairs_p malloc'ed, *np_p couples. */
static int bcast_pairs(struct lp_sweep_mpi *x, int32_t **pairs_p, size_t *np_p, int tag)
{
	if (x->rank == 0) {
		size_t len = 4 + *np_p * 8;
		uint8_t *buf = malloc(len);
		MPI_Request *reqs;
		int rc = 0;

		if (!buf)
			return -ENOMEM;
		memcpy(buf, &(uint32_t){ (uint32_t)*np_p }, 4);
		memcpy(buf + 4, *pairs_p, *np_p * 8);
		reqs = malloc(sizeof(*reqs) * (size_t)x->size);
		if (!reqs) {
			free(buf);
			return -ENOMEM;
		}
		for (int i = 1; i < x->size; i++)
			MPI_Isend(buf, (int)len, MPI_BYTE, i, tag, x->comm, &reqs[i]);
		for (int i = 1; i < x->size; i++)
			if (wait_or_lose(x, &reqs[i], EXCHANGE_MS, "sending the retest list"))
				rc = -ETIMEDOUT;
		free(reqs);
		if (!rc)
			free(buf);
		return rc;
	}
	uint8_t *buf;
	int len, ret = recv_blob(x, 0, tag, &buf, &len, deadline_in(EXCHANGE_MS), NULL);
	uint32_t cnt = 0;

	*pairs_p = NULL;
	*np_p = 0;
	if (ret) {
		lp_warn("no retest list from rank 0: %s", strerror(-ret));
		x->lost = true;
		return ret;
	}
	if (len >= 4)
		memcpy(&cnt, buf, 4);
	if ((size_t)len != 4 + (size_t)cnt * 8) {
		free(buf);
		return -EPROTO;
	}
	*pairs_p = malloc(cnt * 8 + 8);
	if (!*pairs_p) {
		free(buf);
		return -ENOMEM;
	}
	memcpy(*pairs_p, buf + 4, cnt * 8);
	*np_p = cnt;
	free(buf);
	return 0;
}

/* ---- the sweep ---- */

/* Labels must be unique: "host", "host/rail", or "host#rank" when ranks share a host. */
static void unique_names(struct lp_sweep_mpi *x, struct lp_sweep_node *me)
{
	char(*orig)[80] = malloc((size_t)x->size * 80);

	if (!orig)
		return;
	memcpy(orig, x->name_all, (size_t)x->size * 80);
	for (int i = 0; i < x->size; i++)
		for (int j = 0; j < x->size; j++)
			if (i != j && !strcmp(orig[i], orig[j])) {
				char tmp[80];

				snprintf(tmp, sizeof(tmp), "%.70s#%d", orig[i], i);
				snprintf(x->name_all[i], 80, "%s", tmp);
				break;
			}
	snprintf(me->name, sizeof(me->name), "%s", x->name_all[x->rank]);
	free(orig);
}

/* Exit code when no rank has a device: 77 when all say "not here", else the worst. */
static int no_device_code(const struct lp_sweep_mpi *x)
{
	int code = LP_EXIT_UNSUPPORTED;

	for (int i = 0; i < x->size; i++) {
		int c = lp_exit_code(x->status_all[i]);

		if (c == LP_EXIT_USAGE)
			return LP_EXIT_USAGE;
		if (c != LP_EXIT_UNSUPPORTED)
			code = LP_EXIT_FAIL;
	}
	return code;
}

static bool any_device(const struct lp_sweep_mpi *x)
{
	for (int i = 0; i < x->size; i++)
		if (!x->status_all[i])
			return true;
	return false;
}

/* x->sched over every rank; with rails, pairs stay within a rail. */
static int build_schedule(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg)
{
	int *groups = calloc(x->size, sizeof(int)), ret;

	if (!groups)
		return -ENOMEM;
	for (int i = 0; i < x->size; i++)
		groups[i] = cfg->rails ? x->rail_all[i] : 0;
	ret = lp_sched_build_groups(&x->sched, cfg->kind, x->size, groups, cfg->random_k,
				    cfg->seed);
	free(groups);
	if (ret) /* every rank says it: each built the same */
		lp_fail_set(&x->fail, ret, "cannot build the schedule: %s", strerror(-ret));
	return ret;
}

/* How the sweep runs, echoed into the run's JSON. */
static void run_echo(struct lp_sweep_run *run, const struct lp_sweep_cfg *cfg,
		     const struct lp_sched *s)
{
	run->sched = s;
	run->rounds = s->nrounds;
	run->sched_name = lp_sched_names[cfg->kind];
	run->rails = cfg->rails;
	run->random_k = cfg->kind == LP_SCHED_RANDOM ? cfg->random_k : 0;
	run->seed = cfg->seed;
	run->pair_timeout_s = cfg->pair_timeout_s;
	run->retest_max = cfg->retest.max_pairs;
	run->retest_rounds = cfg->retest.rounds;
	run->retest_time_s = cfg->retest.time_s;
	run->load = cfg->load ? lp_sweep_load_names[cfg->load] : NULL;
	run->load_time_s = cfg->load ? cfg->load_time_s : 0;
	run->screen = cfg->screen;
	lp_time_iso8601(run->started, sizeof(run->started));
}

/*
 * Before the first round (rank 0 says it): the schedule, the load rounds, and
 * the time model's prediction for this run (lp_sweep_predict, as lp-sweep
 * --plan prints it), which the progress lines then track.
 */
static void announce(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg,
		     const struct lp_sweep_run *run)
{
	struct lp_sweep_load_plan lp;
	struct lp_sweep_shape sh;
	struct lp_sweep_costs c;
	char t[5][32];
	size_t nload;
	int dev = 0;

	load_plan(x, cfg, &x->load_sched, LP_LOAD_LATENCY | LP_LOAD_INCAST, &lp);
	nload = (lp.load & LP_LOAD_LATENCY ? lp.victims : 0) +
		(lp.load & LP_LOAD_INCAST ? (size_t)x->size : 0);
	lp_sweep_shape_from(&sh, &x->sched, x->size);
	while (dev + 1 < run->n && run->nodes[dev].status)
		dev++; /* the first node whose device opened */
	if (cfg->model)
		lp_sweep_costs_model(&c, cfg->model, cfg->isolate);
	else
		lp_sweep_costs_dev(&c, &run->nodes[dev].dev);
	lp_sweep_costs_reuse(&c, cfg->reuse);
	lp_sweep_predict(&sh, cfg->params, cfg->nmetrics, cfg->screen, &c, &cfg->retest,
			 cfg->pair_timeout_s, &lp, &x->pred);
	x->later_s = x->pred.load_s;
	x->cells_planned = run->ncells + lp_sweep_missing(run, NULL);
	progress(x, cfg,
		 "lp-sweep: %d ranks, %s schedule, %zu rounds, %zu ordered pairs x %d tests, "
		 "pair timeout %.0f s\n",
		 x->size, run->sched_name, x->sched.nrounds, lp_sched_ordered_pairs(&x->sched),
		 cfg->nmetrics, cfg->pair_timeout_s);
	if (nload)
		progress(x, cfg,
			 "lp-sweep: load %s: %zu rounds after the sweep, about %.0f s (victims' "
			 "tests %.3g s each)\n",
			 lp_sweep_load_names[cfg->load], nload, x->pred.load_s, cfg->load_time_s);
	progress(x, cfg,
		 "lp-sweep: predicted %s (sweep %s, start-up %s%s), retests of suspects%s at most "
		 "%s more; costs \"%s\" (lp-sweep --plan lists them); a test that hangs costs its "
		 "pair timeout, every test hanging %s\n",
		 lp_sweep_time_fmt(x->pred.total_s, t[0], 32),
		 lp_sweep_time_fmt(x->pred.sweep_s, t[1], 32),
		 lp_sweep_time_fmt(x->pred.start_s, t[2], 32), nload ? ", load phases" : "",
		 cfg->screen ? " and their size sweep" : "",
		 lp_sweep_time_fmt(x->pred.retest_s + x->pred.sizes_s, t[3], 32), c.name,
		 lp_sweep_time_fmt(x->pred.worst_s, t[4], 32));
}

/*
 * Suspects again, alone: rank 0 decides, everyone runs the list one pair at a
 * time. A link rests on one cell, so it is retested until a retest clears it
 * or the rounds run out (the diagnosis keeps the best value of every attempt);
 * a node that every partner sees slow is settled after one retest, a split
 * vote is retested again. false: no suspect (or no list): no further round.
 */
static bool retest_round(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg,
			 struct lp_sweep_run *run, int rr)
{
	int32_t *pairs = NULL;
	size_t np = 0;
	struct lp_sched rs;
	struct lp_retest_plan plan = { 0 };

	if (!x->rank && lp_sweep_retest_plan_round(run, &cfg->retest, rr, &pairs, &np, &plan))
		lp_warn("retest round %d: out of memory", rr + 1);
	if (bcast_pairs(x, &pairs, &np, TAG_RETEST_LIST + 2 * rr) || np == 0) {
		free(pairs);
		return false;
	}
	x->retest_round = rr;
	if (!lp_sched_from_list(&rs, x->size, pairs, np)) {
		progress(
			x, cfg,
			"lp-sweep: retest round %d: %zu of %zu suspect pair(s) in isolation, worst "
			"first (%.0f s of the retest budget this round, %.2g s a pair)\n",
			rr + 1, np, plan.suspects, plan.round_s, plan.pair_s);
		lp_sweep_journal_retest(cfg->journal, rr, pairs, np);
		x->cells_planned += np * (size_t)(cfg->screen ? __builtin_popcount(cfg->screen)
							      : cfg->nmetrics);
		run->interrupted = run_rounds(x, cfg, &rs, LP_PHASE_RETEST, run,
					      TAG_RETEST_CELLS + 2 * rr) == -EINTR;
		lp_sched_free(&rs);
		run->nretests += np;
	}
	free(pairs);
	return true;
}

/*
 * --fast, after the retests: every other size of every test on the pairs the
 * diagnosis flags or suspects and a few healthy references (rank 0 decides:
 * lp_sweep_fast_pairs), one pair at a time. -EINTR after a signal.
 */
static int sizes_phase(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg,
		       struct lp_sweep_run *run)
{
	int32_t *pairs = NULL;
	size_t np = 0;
	struct lp_sched s;
	int ret = 0, extra = 0;

	for (int m = 0; m < cfg->nmetrics; m++)
		extra += !(cfg->screen >> m & 1);
	if (!cfg->screen || !extra)
		return 0;
	if (!x->rank && lp_sweep_fast_pairs(run, &cfg->retest, &pairs, &np))
		lp_warn("size sweep: out of memory");
	if (bcast_pairs(x, &pairs, &np, TAG_SIZES_LIST) || np == 0 ||
	    lp_sched_from_list(&s, x->size, pairs, np)) {
		free(pairs);
		return 0;
	}
	progress(x, cfg, "lp-sweep: size sweep: %d other size(s) on %zu pair(s) in isolation\n",
		 extra, np);
	x->cells_planned += np * (size_t)extra;
	ret = run_rounds(x, cfg, &s, LP_PHASE_SIZES, run, TAG_SIZES_CELLS);
	lp_sched_free(&s);
	free(pairs);
	return ret;
}

int lp_sweep_engine_pairs(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg,
			  struct lp_sweep_run *run, const int32_t *pairs, size_t np)
{
	struct lp_sched s;
	int ret = lp_sched_from_list(&s, x->size, pairs, np);

	if (ret)
		return ret;
	x->retest_round++; /* each call a fresh attempt: the model draws its cells anew */
	ret = run_rounds(x, cfg, &s, LP_PHASE_RETEST, run, TAG_PAIR_CELLS);
	run->nretests += np;
	lp_sched_free(&s);
	return ret;
}

/*
 * --resume: rank 0 checks the journal's parameters against this run's and
 * marks the cells it measured (matched by name); every rank learns them
 * (x->done), so that both sides of a pair skip them alike, and a refusal (its
 * last byte); rank 0 then takes the journal's cells and lost nodes into run.
 * Without --resume (cfg->resume_path NULL on every rank) nothing happens.
 * -EINVAL: the parameters differ (said).
 */
static int resume_setup(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg,
			struct lp_sweep_run *run)
{
	size_t len = (size_t)x->size * x->size * cfg->nmetrics;
	MPI_Request req;
	struct lp_fail why = { 0 };
	int ret;

	if (!cfg->resume_path)
		return 0; /* every rank knows: they all parsed the same options */
	x->done = len < (size_t)1 << 30 ? calloc(len + 1, 1) : NULL;
	if (!x->done)
		return -ENOMEM;
	if (!x->rank && cfg->resume) {
		if (lp_sweep_resume_check(cfg->resume, run, &why)) {
			lp_fail_set(&x->fail, -EINVAL, "--resume %s: %s", cfg->resume_path,
				    lp_fail_msg(&why));
			x->done[len] = 1;
		} else {
			lp_sweep_resume_done(cfg->resume, run, (const char(*)[80])x->name_all,
					     x->size, x->done);
		}
	}
	if (MPI_Ibcast(x->done, (int)len + 1, MPI_BYTE, 0, x->comm, &req) != MPI_SUCCESS)
		return -EIO;
	ret = wait_or_lose(x, &req, EXCHANGE_MS, "the resumed cells");
	if (ret) {
		x->done = NULL; /* the pending request owns it */
		return ret;
	}
	if (x->done[len])
		return -EINVAL;
	if (!x->rank && cfg->resume)
		return lp_sweep_resume_merge(run, cfg->resume, cfg->resume_seen, cfg->resume_path);
	return 0;
}

/* Rank 0 diagnoses; after a signal every rank ends with 130, as rank 0 does. */
static int run_code(struct lp_sweep_mpi *x, struct lp_sweep_run *run)
{
	int code = LP_EXIT_OK;

	if (!x->rank) {
		if (lp_sweep_diagnose(run)) {
			lp_fail_set(&x->fail, -ENOMEM, "diagnosis failed (out of memory)");
			code = LP_EXIT_FAIL;
		} else {
			code = lp_sweep_exit_code(run);
		}
	}
	if (run->interrupted) {
		if (!x->rank)
			lp_warn("interrupted: writing the %zu cells measured so far", run->ncells);
		code = LP_EXIT_INTERRUPTED;
	}
	return code;
}

static void add_line(void *line, void *rep)
{
	lp_check_line_add(rep, line);
}

/* Rank 0 takes every rank's check report into all (hosts[i] = rank i); the others send theirs. */
static int gather_checks(struct lp_sweep_mpi *x, const struct lp_check_report *mine,
			 struct lp_sweep_check *all)
{
	uint64_t dl = deadline_in(EXCHANGE_MS);
	size_t len;
	uint8_t *buf = lp_record_pack(&lp_check_line_record, mine->lines, mine->n,
				      sizeof(*mine->lines), &len, NULL);
	int ret;

	if (!buf)
		return -ENOMEM;
	if (x->rank != 0) {
		ret = send_blob(x, 0, TAG_CHECK, buf, len, EXCHANGE_MS);
		if (ret != -ETIMEDOUT) /* else the pending send still owns it */
			free(buf);
		return ret;
	}
	ret = lp_sweep_check_init(all, x->size);
	for (int i = 0; i < x->size && !ret; i++) {
		struct lp_sweep_check_host *h = &all->hosts[i];
		struct lp_check_line line;
		uint8_t *b = buf; /* rank 0's own */
		int bl = (int)len, got = 0;

		if (i && !x->silent[i])
			got = recv_blob(x, i, TAG_CHECK, &b, &bl, dl, NULL);
		h->rank = i;
		h->status = x->status_all[i];
		snprintf(h->name, sizeof(h->name), "%s", x->name_all[i]);
		if (h->status)
			snprintf(h->error, sizeof(h->error), "the check did not run: %s",
				 strerror(-h->status));
		if (!got) {
			got = lp_record_unpack(&lp_check_line_record, b, (size_t)bl, &line,
					       add_line, &h->rep);
			if (b != buf)
				free(b);
		}
		if (got < 0 && !h->status) {
			h->status = got;
			snprintf(h->error, sizeof(h->error), "rank %d sent no report: %s", i,
				 strerror(-got));
			x->lost = x->lost || got == -ETIMEDOUT;
		}
		ret = h->rep.err;
	}
	free(buf);
	return ret;
}

int lp_sweep_engine_check(struct lp_sweep_mpi *x, struct lp_sweep_node *me,
			  const struct lp_check_report *mine, struct lp_sweep_check *all)
{
	int ret = exchange(x, me);

	if (ret)
		return ret;
	unique_names(x, me);
	return gather_checks(x, mine, all);
}

int lp_sweep_engine_run(struct lp_sweep_mpi *x, struct lp_sweep_node *me,
			const struct lp_sweep_cfg *cfg, struct lp_sweep_run *run, int *code_p)
{
	uint64_t t0, t1, t2;
	struct lp_fail why = { 0 };
	int ret;

	*code_p = LP_EXIT_FAIL;
	x->stop = cfg->sopts.stop;
	/* everyone learns who can measure; labels made unique */
	ret = exchange(x, me);
	if (ret)
		return ret;
	unique_names(x, me);
	ret = load_setup(x, cfg, &x->load_sched); /* a usage error before "no device" */
	if (ret) {
		*code_p = ret == -EINVAL ? LP_EXIT_USAGE : LP_EXIT_FAIL;
		return ret;
	}
	if (!any_device(x)) {
		if (!x->rank)
			lp_fail_set(&x->fail, -ENODEV,
				    "no rank could open an RDMA device (rank 0: %s)", x->dev_error);
		*code_p = no_device_code(x);
		return -ENODEV;
	}
	ret = build_schedule(x, cfg);
	if (ret)
		return ret;
	run_echo(run, cfg, &x->sched);
	if (cfg->load & LP_LOAD_INCAST) {
		int snd[LP_SWEEP_MAX_INCAST + 1], v;

		run->incast_k = incast_plan(x, cfg, 0, snd, &v);
	}
	gather_nodes(x, me, run);
	ret = lp_sweep_add_absent(run, cfg->absent, &why); /* the same on every rank */
	if (ret) {
		if (!x->rank)
			lp_fail_set(&x->fail, ret, "--absent: %s", lp_fail_msg(&why));
		*code_p = ret == -EINVAL ? LP_EXIT_USAGE : LP_EXIT_FAIL;
		return ret;
	}
	ret = resume_setup(x, cfg, run);
	if (ret) {
		if (!x->rank && ret != -EINVAL)
			lp_fail_set(&x->fail, ret, "--resume: %s", strerror(-ret));
		*code_p = ret == -EINVAL ? LP_EXIT_USAGE : LP_EXIT_FAIL;
		return ret;
	}
	lp_sweep_journal_run(cfg->journal, run);
	lp_sweep_journal_cells(cfg->journal, run, 0); /* absent nodes' and resumed cells */
	lp_sweep_journal_sync(cfg->journal);
	announce(x, cfg, run);

	t0 = x->t_start = lp_now_ns();
	/* SIGINT/SIGTERM: every rank stops at the same round; the cells done so far are written. */
	run->interrupted = run_rounds(x, cfg, &x->sched, LP_PHASE_SWEEP, run, TAG_CELLS) == -EINTR;
	t1 = lp_now_ns();
	run->sweep_s = (double)(t1 - t0) / 1e9;
	for (int rr = 0; !run->interrupted && retest_round(x, cfg, run, rr); rr++)
		;
	if (!run->interrupted)
		run->interrupted = sizes_phase(x, cfg, run) == -EINTR;
	t2 = lp_now_ns();
	run->retest_s = (double)(t2 - t1) / 1e9;
	if (!run->interrupted && cfg->load)
		run->interrupted = run_load(x, cfg, &x->load_sched, run) == -EINTR;
	run->load_s = (double)(lp_now_ns() - t2) / 1e9;
	run->wall_s = (double)(lp_now_ns() - t0) / 1e9;
	reuse_report(x, cfg);
	*code_p = run_code(x, run);
	lp_sweep_journal_end(cfg->journal, run, *code_p);
	return 0;
}
