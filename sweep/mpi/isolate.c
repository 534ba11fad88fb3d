// SPDX-License-Identifier: MIT
/*
 * Each side of a pair's test in a test worker (issue 18, issue 25 item 6,
 * issue 27 item 2): a crash in a verbs provider, a CUDA error that poisons the
 * context or a hang then costs one cell, not the rank.
 *
 * A worker is lp-sweep itself, started fresh by posix_spawn (`lp-sweep
 * --test-worker`, never a fork of the rank: the rank runs MPI's threads, and
 * the load modes' sessions run on threads of their own, so a forked child that
 * then calls verbs could inherit a lock some thread held). It keeps only what
 * is its own -- the channel to its rank on fd 3, /dev/null as stdin, the rank's
 * stdout and stderr for its log lines -- and closes every other descriptor it
 * inherited (MPI's sockets, other workers' channels). It opens its device
 * context once, and then runs one job after another: a job is one side of one
 * test, whose lp_wire frames the rank relays between the worker's channel and
 * the session's MPI tag; the worker never calls MPI. A worker that crashes, or
 * that the rank kills at the pair timeout, costs that cell; the next job gets
 * a new one. It dies with the thread that started it (PR_SET_PDEATHSIG: an
 * orphan would hold the rank's stdout and stderr open, and mpirun counts a rank
 * dead only once they close) -- the rank's main thread, or a load-mode thread
 * that needed one more (its worker then ends with that thread, and the pool
 * starts another when it is next needed).
 */
#include "sweep/mpi/sweep_mpi.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fail.h"
#include "common/lp.h"
#include "rdma/proto.h"

extern char **environ;

/* The worker's channel: the rank's frames, and the relayed session's. */
enum {
	W_INIT = 0xfe01,     /* rank -> worker: struct worker_init */
	W_MODEL = 0xfe02,    /* rank -> worker: the model file's next bytes */
	W_READY = 0xfe03,    /* worker -> rank: u32 status, str why (its device, its model) */
	W_JOB = 0xfe04,	     /* rank -> worker: struct worker_job */
	W_RESULT = 0xfe05,   /* worker -> rank: a cell record, or a server's u32 status */
	W_STATS = 0xfe06,    /* worker -> rank: its reuse counters (before each W_RESULT) */
	W_PREP = 0xfe07,     /* rank -> worker: u32 n, n x (u32 serve, u32 metric): prepare */
	W_PREPARED = 0xfe08, /* worker -> rank: n x u64, the prepared connections' ids */
};

/* The relay's message to the peer's relay: "my side's process is gone without a word". */
#define RELAY_GONE  0xffffu
#define WORKER_FD   3	  /* the channel, in the worker */
#define GRACE_MS    2000  /* bound on one relayed message */
#define STOP_MS	    1000  /* after SIGINT/SIGTERM: the worker's time to end before SIGKILL */
#define START_MS    30000 /* a worker's start: exec, its device, its model */
#define MAX_WORKERS (LP_SWEEP_MAX_INCAST + 2)

/* What a worker is told once: its transport, its device, the sweep's metrics, the model. */
struct worker_init {
	char transport[16];
	char dev[64];
	int32_t port, gid_index;
	int32_t tclass, sl; /* --tclass (-1: the device's), --sl */
	int32_t qp_timeout; /* --qp-timeout */
	int32_t reuse;	    /* --reuse: the device's buffers and QPs reused (lp_rdma_dev_reuse) */
	int32_t nranks;
	uint32_t nmetrics;
	uint32_t tests[LP_SWEEP_MAX_METRICS];
	uint64_t sizes[LP_SWEEP_MAX_METRICS];
	uint32_t model_len;
};

/* clang-format off */
static const struct lp_record worker_init_record = LP_RECORD(struct worker_init,
	LP_REC_STR(struct worker_init, transport),
	LP_REC_STR(struct worker_init, dev),
	LP_REC_I32(struct worker_init, port),
	LP_REC_I32(struct worker_init, gid_index),
	LP_REC_I32(struct worker_init, tclass, LP_REC_RANGE(-1, 255)),
	LP_REC_I32(struct worker_init, sl, LP_REC_RANGE(0, 15)),
	LP_REC_I32(struct worker_init, qp_timeout, LP_REC_RANGE(0, 31)),
	LP_REC_I32(struct worker_init, reuse, LP_REC_RANGE(0, 1)),
	LP_REC_I32(struct worker_init, nranks, LP_REC_RANGE(0, 1 << 24)),
	LP_REC_U32(struct worker_init, nmetrics),
	LP_REC_ARRAY(struct worker_init, tests, nmetrics, LP_REC_T_U32, uint32_t,
		     LP_REC_RANGE(0, LP_RDMA_NTESTS - 1)),
	LP_REC_ARRAY(struct worker_init, sizes, nmetrics, LP_REC_T_U64, uint64_t),
	LP_REC_U32(struct worker_init, model_len, LP_REC_RANGE(0, 1 << 20)));
/* clang-format on */

/* One side of one test. */
struct worker_job {
	bool serve;
	struct lp_rdma_params p;
	char client[80], server[80];
	int32_t attempt;
	struct lp_sweep_cell c; /* client: initialised (metric, a, b, phase, round) */
	uint32_t mem;		/* server: its memory */
	int32_t mem_dev;
	int32_t timeout_ms;	       /* the session's channel */
	uint64_t conn_mine, conn_peer; /* its prepared connections (struct lp_sweep_conn) */
};

/* clang-format off */
static const struct lp_record worker_job_record = LP_RECORD(struct worker_job,
	LP_REC_BOOL(struct worker_job, serve),
	LP_REC_NEST(struct worker_job, p, lp_rdma_params_record),
	LP_REC_STR(struct worker_job, client),
	LP_REC_STR(struct worker_job, server),
	LP_REC_I32(struct worker_job, attempt),
	LP_REC_NEST(struct worker_job, c, lp_sweep_cell_record),
	LP_REC_U32(struct worker_job, mem),
	LP_REC_I32(struct worker_job, mem_dev),
	LP_REC_I32(struct worker_job, timeout_ms),
	LP_REC_U64(struct worker_job, conn_mine),
	LP_REC_U64(struct worker_job, conn_peer));
/* clang-format on */

/* ---- the worker ---- */

static volatile sig_atomic_t worker_stop;

static void on_stop(int sig)
{
	(void)sig;
	worker_stop = 1;
}

/* Everything inherited but stdin/out/err and the channel is closed; stdin is /dev/null. */
static void start_clean(void)
{
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (null >= 0 && null != STDIN_FILENO) {
		dup2(null, STDIN_FILENO);
		close(null);
	}
	if (close_range(WORKER_FD + 1, ~0U, 0))
		for (int fd = WORKER_FD + 1; fd < 65536; fd++)
			close(fd);
}

static int send_ready(int status, const char *why)
{
	struct lp_wbuf w;

	lp_wbuf_init(&w);
	lp_wbuf_u32(&w, (uint32_t)status);
	lp_wbuf_str(&w, why);
	return lp_wire_send(WORKER_FD, W_READY, &w, GRACE_MS);
}

/* The model's text from W_MODEL frames, parsed and bound as the rank bound it. */
static int worker_model(const struct worker_init *in, struct lp_sweep_model *m, struct lp_fail *f)
{
	char *text = malloc((size_t)in->model_len + 1);
	uint8_t body[LP_WIRE_MAX_BODY];
	struct lp_sweep_run run;
	uint32_t got = 0;
	int ret = text ? lp_sweep_run_init(&run, 1) : -ENOMEM;

	while (!ret && got < in->model_len) {
		uint16_t type;
		size_t len;

		ret = lp_wire_recv(WORKER_FD, &type, body, &len, START_MS);
		if (!ret && (type != W_MODEL || len > in->model_len - got))
			ret = -EPROTO;
		if (!ret)
			memcpy(text + got, body, len);
		got += (uint32_t)len;
	}
	for (uint32_t i = 0; !ret && i < in->nmetrics; i++)
		ret = lp_sweep_add_metric(&run, lp_rdma_test_names[in->tests[i]], (int)in->tests[i],
					  lp_rdma_test_is_lat((enum lp_rdma_test)in->tests[i]),
					  in->sizes[i]) < 0
			      ? -EINVAL
			      : 0;
	lp_sweep_model_init(m);
	if (!ret)
		ret = lp_sweep_model_parse(m, text, in->model_len, f);
	if (!ret)
		ret = lp_sweep_model_bind(m, in->nranks, run.metrics, run.nmetrics, f);
	if (ret) /* unless the model said more */
		lp_fail_set(f, ret, "the model did not arrive: %s", strerror(-ret));
	if (text)
		lp_sweep_run_free(&run);
	free(text);
	return ret;
}

/* What the worker runs its jobs with. */
struct worker {
	const struct lp_sweep_xport_ops *ops;
	struct lp_rdma_dev *dev;
	struct lp_sweep_model model;
};

/* W_INIT, the model, the device: 0 and W_READY sent, or a negative errno (W_READY says why). */
static int worker_init(struct worker *w)
{
	uint8_t body[LP_WIRE_MAX_BODY];
	struct worker_init in;
	struct lp_fail why = { 0 };
	uint16_t type;
	size_t len;
	int ret = lp_wire_recv(WORKER_FD, &type, body, &len, START_MS);

	if (!ret)
		ret = type == W_INIT ? lp_record_decode_body(&worker_init_record, &in, body, len)
				     : -EPROTO;
	if (ret)
		return ret; /* no channel worth answering on */
	w->ops = strcmp(in.transport, "model") ? &lp_sweep_xport_rdma : &lp_sweep_xport_model;
	if (w->ops == &lp_sweep_xport_model)
		ret = worker_model(&in, &w->model, &why);
	if (!ret && w->ops->needs_dev) {
		struct lp_rdma_devsel sel = { .dev = in.dev[0] ? in.dev : NULL,
					      .port = in.port,
					      .gid_index = in.gid_index,
					      .tclass = in.tclass,
					      .tclass_set = in.tclass >= 0,
					      .sl = in.sl,
					      .qp_timeout = in.qp_timeout };
		struct lp_fail df = { 0 };

		ret = lp_rdma_dev_open(&sel, AF_INET, &w->dev, &df);
		if (ret)
			lp_fail_set(&why, ret, "the test process cannot open %s: %s", in.dev,
				    lp_fail_ok(&df) ? strerror(-ret) : lp_fail_msg(&df));
		if (!ret && in.reuse && lp_rdma_dev_reuse(w->dev))
			lp_warn("no memory for set-up reuse: every test sets up its own");
	}
	send_ready(ret, lp_fail_msg(&why));
	return ret;
}

/* This process's reuse counters, for its rank's report. */
static int send_stats(struct worker *w)
{
	struct lp_rdma_reuse_stats st;
	struct lp_wbuf b;
	int ret;

	if (!w->ops->reuse_stats)
		return 0;
	w->ops->reuse_stats(w->dev, &st);
	lp_wbuf_init(&b);
	ret = lp_record_encode(&lp_rdma_reuse_stats_record, &st, &b);
	return ret ? ret : lp_wire_send(WORKER_FD, W_STATS, &b, GRACE_MS);
}

/* W_PREP: the sessions of a round to come prepared (the transport's prepare); their ids back. */
static int worker_prep(struct worker *w, const uint8_t *body, size_t len)
{
	struct lp_rbuf r;
	struct lp_wbuf out;
	uint32_t n;

	lp_rbuf_init(&r, body, len);
	n = lp_rbuf_u32(&r);
	lp_wbuf_init(&out);
	for (uint32_t i = 0; i < n && !r.err && i < 2 * LP_SWEEP_MAX_METRICS; i++) {
		bool serve = lp_rbuf_u32(&r);
		uint32_t m = lp_rbuf_u32(&r);

		lp_wbuf_u64(&out, !r.err && w->ops->prepare && m < LP_SWEEP_MAX_METRICS
					  ? w->ops->prepare(w->dev, serve, (int)m)
					  : 0);
	}
	return lp_wire_send(WORKER_FD, W_PREPARED, &out, GRACE_MS);
}

/* One job: the test on the channel (relayed to the peer), then its result. */
static int worker_job(struct worker *w, const uint8_t *body, size_t len)
{
	struct worker_job *j = malloc(sizeof(*j));
	int fd = WORKER_FD,
	    ret = j ? lp_record_decode_body(&worker_job_record, j, body, len) : -ENOMEM;
	struct lp_oob oob = {
		.ops = &lp_oob_tcp_ops, .ctx = &fd, .peer_family = AF_INET, .stop = &worker_stop
	};
	struct lp_wbuf *out = malloc(sizeof(*out));

	if (ret || !out) {
		free(j);
		free(out);
		return ret ? ret : -ENOMEM;
	}
	struct lp_sweep_conn pc = { .mine = j->conn_mine, .peer = j->conn_peer };

	oob.timeout_ms = j->timeout_ms;
	oob.peer_name = j->serve ? j->client : j->server;
	lp_wbuf_init(out);
	if (j->serve) {
		struct lp_rdma_server_opts so = { .mem = (enum lp_mem_kind)j->mem,
						  .mem_dev = j->mem_dev,
						  .stop = &worker_stop };

		lp_wbuf_u32(out, (uint32_t)w->ops->serve(w->dev, &oob, &so, &pc));
	} else {
		struct lp_sweep_test t = { .conn = pc,
					   .p = j->p,
					   .client = j->client,
					   .server = j->server,
					   .model = &w->model,
					   .attempt = j->attempt,
					   .c = j->c };

		w->ops->client(w->dev, &oob, &t);
		if (t.c.status != -EINTR && t.c.status != -ECANCELED)
			w->ops->bye(&oob);
		lp_record_encode(&lp_sweep_cell_record, &t.c, out);
	}
	ret = send_stats(w);
	if (!ret)
		ret = lp_wire_send(WORKER_FD, W_RESULT, out, GRACE_MS);
	free(j);
	free(out);
	return ret;
}

int lp_sweep_worker_main(int argc, char **argv)
{
	struct worker *w = calloc(1, sizeof(*w));
	uint8_t body[LP_WIRE_MAX_BODY];
	int ret;

	/* the rank that started us; gone before the line below: nobody waits for this test */
	if (argc < 3 || prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != (pid_t)atol(argv[2]) || !w)
		return 6;
	start_clean();
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop); /* the rank's signal: stop the test as the rank would */
	signal(SIGPIPE, SIG_IGN);
	lp_log_set_prog("lp-sweep test process");
	ret = worker_init(w);
	while (!ret && !worker_stop) {
		uint16_t type;
		size_t len;

		ret = lp_wire_recv(WORKER_FD, &type, body, &len, 60000);
		if (ret == -ETIMEDOUT) {
			ret = 0; /* idle between rounds */
			continue;
		}
		if (!ret && type == W_JOB)
			ret = worker_job(w, body, len);
		else if (!ret && type == W_PREP)
			ret = worker_prep(w, body, len);
		/* any other frame while idle: a late message of a session that ended */
	}
	if (w->dev)
		lp_rdma_dev_close(w->dev);
	free(w);
	return ret == -ECONNRESET ? 0 : 4; /* the rank closed the channel: done */
}

/* ---- the rank's pool of workers ---- */

struct lp_sweep_worker {
	pid_t pid; /* 0: none (never started, or ended) */
	int fd;	   /* the rank's end of its channel */
	bool busy;
	struct lp_rdma_reuse_stats stats; /* its reuse counters, as it last said */
};

/* posix_spawn'ed from the rank's own executable, its channel on fd 3; 0 or -errno (f says why). */
static int spawn(struct lp_sweep_worker *w, struct lp_fail *f)
{
	posix_spawn_file_actions_t fa;
	char parent[24], *argv[] = { "lp-sweep", "--test-worker", parent, NULL };
	int sv[2], ret;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		ret = -errno;
		return lp_fail_set(f, ret, "cannot start the test process: %s", strerror(-ret));
	}
	snprintf(parent, sizeof(parent), "%ld", (long)getpid());
	ret = -posix_spawn_file_actions_init(&fa);
	if (!ret) /* dup2 clears close-on-exec on fd 3: the only descriptor it is given */
		ret = -posix_spawn_file_actions_adddup2(&fa, sv[1], WORKER_FD);
	if (!ret)
		ret = -posix_spawn(&w->pid, "/proc/self/exe", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(sv[1]);
	if (ret) {
		close(sv[0]);
		w->pid = 0;
		return lp_fail_set(f, ret, "cannot start the test process: %s", strerror(-ret));
	}
	w->fd = sv[0];
	return 0;
}

/* The worker's W_INIT (and the model), then its W_READY: 0, or why it could not start. */
static int start(struct lp_sweep_worker *w, const struct lp_sweep_mpi *x,
		 const struct lp_sweep_cfg *cfg, struct lp_fail *f)
{
	const struct lp_sweep_xport_ops *ops = cfg->xport ? cfg->xport : &lp_sweep_xport_rdma;
	struct worker_init in = { .tclass = x->tclass,
				  .sl = x->sl,
				  .qp_timeout = x->qp_timeout,
				  .reuse = cfg->reuse,
				  .nranks = x->size,
				  .nmetrics = (uint32_t)cfg->nmetrics,
				  .model_len = (uint32_t)cfg->model_len };
	uint8_t body[LP_WIRE_MAX_BODY];
	struct lp_wbuf wb;
	struct lp_rbuf rb;
	char said[LP_FAIL_MSG_LEN];
	uint16_t type;
	size_t len;
	int ret = spawn(w, f), status;

	if (ret)
		return ret;
	snprintf(in.transport, sizeof(in.transport), "%s", ops->name);
	if (ops->needs_dev && x->dev) {
		const struct lp_rdma_devinfo *di = lp_rdma_dev_info(x->dev);

		snprintf(in.dev, sizeof(in.dev), "%s", di->name);
		in.port = di->port;
		in.gid_index = di->gid_index;
	}
	for (int m = 0; m < cfg->nmetrics; m++) {
		in.tests[m] = (uint32_t)cfg->params[m].test;
		in.sizes[m] = cfg->params[m].size;
	}
	lp_wbuf_init(&wb);
	ret = lp_record_encode(&worker_init_record, &in, &wb);
	if (!ret)
		ret = lp_wire_send(w->fd, W_INIT, &wb, GRACE_MS);
	for (size_t off = 0; !ret && off < cfg->model_len; off += wb.len) {
		lp_wbuf_init(&wb);
		lp_wbuf_bytes(&wb, cfg->model_text + off,
			      LP_MIN(cfg->model_len - off, (size_t)LP_WIRE_MAX_BODY));
		ret = lp_wire_send(w->fd, W_MODEL, &wb, GRACE_MS);
	}
	if (!ret)
		ret = lp_wire_recv(w->fd, &type, body, &len, START_MS);
	if (!ret && type != W_READY)
		ret = -EPROTO;
	if (ret)
		return lp_fail_set(f, ret, "the test process did not start: %s", strerror(-ret));
	lp_rbuf_init(&rb, body, len);
	status = (int)lp_rbuf_u32(&rb);
	lp_rbuf_str(&rb, said, sizeof(said)); /* its own words on why it could not */
	if (status)
		lp_fail_set(f, status, "%s", said);
	return status ? status : rb.err;
}

/* dst += src, field by field (records of u64 counters only). */
static void stats_add(struct lp_rdma_reuse_stats *dst, const struct lp_rdma_reuse_stats *src)
{
	uint64_t *d = (uint64_t *)dst;
	const uint64_t *a = (const uint64_t *)src;

	for (size_t i = 0; i < sizeof(*dst) / sizeof(uint64_t); i++)
		__atomic_add_fetch(&d[i], a[i], __ATOMIC_RELAXED);
}

/*
 * A worker that ended (crashed, killed) or must end: killed if it runs, reaped,
 * forgotten -- its pooled connections with it; what it said it reused is kept.
 */
static void forget(struct lp_sweep_mpi *x, struct lp_sweep_worker *w)
{
	stats_add(&x->reuse_gone, &w->stats);
	memset(&w->stats, 0, sizeof(w->stats));
	if (w->pid > 0) {
		kill(w->pid, SIGKILL);
		waitpid(w->pid, NULL, 0);
	}
	if (w->fd > 0)
		close(w->fd);
	w->pid = 0;
	w->fd = -1;
}

/* An idle worker that is still there, or a new one: NULL with the cause in f when none could start. */
static struct lp_sweep_worker *take(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg,
				    struct lp_fail *f)
{
	struct lp_sweep_worker *w = NULL;

	pthread_mutex_lock(&x->lock);
	if (!x->pool)
		x->pool = calloc(MAX_WORKERS, sizeof(*x->pool));
	for (int i = 0; x->pool && i < MAX_WORKERS && !w; i++) {
		struct lp_sweep_worker *c = &x->pool[i];

		if (c->busy)
			continue;
		if (c->pid > 0 && waitpid(c->pid, NULL, WNOHANG) != 0) {
			c->pid = 0; /* it ended while idle (its starting thread did) */
			forget(x, c);
		}
		w = c;
	}
	if (w)
		w->busy = true;
	pthread_mutex_unlock(&x->lock);
	if (!w) {
		lp_fail_set(f, -ECHILD, "cannot start the test process: %d at work already",
			    MAX_WORKERS);
		return NULL;
	}
	if (w->pid <= 0 && start(w, x, cfg, f)) {
		forget(x, w);
		pthread_mutex_lock(&x->lock);
		w->busy = false;
		pthread_mutex_unlock(&x->lock);
		return NULL;
	}
	return w;
}

static void give_back(struct lp_sweep_mpi *x, struct lp_sweep_worker *w)
{
	pthread_mutex_lock(&x->lock);
	w->busy = false;
	pthread_mutex_unlock(&x->lock);
}

void lp_sweep_workers_ready(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg, int n)
{
	struct lp_sweep_worker *got[MAX_WORKERS];
	int k = 0;

	while (k < LP_MIN(n, MAX_WORKERS) && (got[k] = take(x, cfg, NULL)))
		k++;
	while (k > 0)
		give_back(x, got[--k]);
}

int lp_sweep_workers_prepare(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg, int n,
			     const uint32_t *serve, const uint32_t *m, uint64_t *ids)
{
	struct lp_sweep_worker *w = take(x, cfg, NULL);
	uint8_t body[LP_WIRE_MAX_BODY];
	struct lp_wbuf wb;
	struct lp_rbuf rb;
	uint16_t type = 0;
	size_t len = 0;
	int ret;

	memset(ids, 0, sizeof(*ids) * (size_t)n);
	if (!w)
		return -ECHILD;
	lp_wbuf_init(&wb);
	lp_wbuf_u32(&wb, (uint32_t)n);
	for (int i = 0; i < n; i++) {
		lp_wbuf_u32(&wb, serve[i]);
		lp_wbuf_u32(&wb, m[i]);
	}
	ret = lp_wire_send(w->fd, W_PREP, &wb, GRACE_MS);
	if (!ret)
		ret = lp_wire_recv(w->fd, &type, body, &len, GRACE_MS);
	if (!ret && type != W_PREPARED)
		ret = -EPROTO;
	if (ret) { /* a worker that does not answer at once is in trouble: the next gets another */
		forget(x, w);
	} else {
		lp_rbuf_init(&rb, body, len);
		for (int i = 0; i < n && !rb.err; i++)
			ids[i] = lp_rbuf_u64(&rb);
		if (rb.err)
			memset(ids, 0, sizeof(*ids) * (size_t)n);
	}
	give_back(x, w);
	return ret;
}

void lp_sweep_workers_stats(struct lp_sweep_mpi *x, struct lp_rdma_reuse_stats *s)
{
	*s = x->reuse_gone;
	pthread_mutex_lock(&x->lock);
	for (int i = 0; x->pool && i < MAX_WORKERS; i++)
		stats_add(s, &x->pool[i].stats);
	pthread_mutex_unlock(&x->lock);
}

void lp_sweep_workers_end(struct lp_sweep_mpi *x)
{
	uint64_t end = lp_now_ns() + (uint64_t)STOP_MS * 1000000ull;

	for (int i = 0; x->pool && i < MAX_WORKERS; i++)
		if (x->pool[i].fd > 0) {
			close(x->pool[i].fd); /* its channel's end: it exits */
			x->pool[i].fd = -1;
		}
	for (int i = 0; x->pool && i < MAX_WORKERS; i++) {
		struct lp_sweep_worker *w = &x->pool[i];

		while (w->pid > 0 && waitpid(w->pid, NULL, WNOHANG) == 0) {
			if (lp_now_ns() >= end) {
				kill(w->pid, SIGKILL);
				waitpid(w->pid, NULL, 0);
				break;
			}
			lp_sleep_ms(5);
		}
		w->pid = 0;
	}
	free(x->pool);
	x->pool = NULL;
}

/* ---- one job, relayed ---- */

/*
 * One frame from worker wk: relayed to the peer, its reuse counters, or its
 * result (*done). false: channel gone.
 */
static bool relay_up(struct lp_mpi_oob *o, struct lp_sweep_worker *wk, struct lp_wbuf *out,
		     bool *done)
{
	struct lp_wbuf w; /* on the stack: load modes relay several sessions on threads */
	uint16_t type;

	lp_wbuf_init(&w);
	if (lp_wire_recv(wk->fd, &type, w.data, &w.len, 1000))
		return false;
	if (type == W_STATS) {
		struct lp_rdma_reuse_stats st;

		if (!lp_record_decode_body(&lp_rdma_reuse_stats_record, &st, w.data, w.len))
			wk->stats = st;
	} else if (type == W_RESULT) {
		*out = w;
		*done = true;
	} else {
		lp_oob_mpi_ops.send(o, type, &w, GRACE_MS);
	}
	return true;
}

/* One frame from the peer to the worker; the peer's RELAY_GONE goes too: its session ends. */
static void relay_down(struct lp_mpi_oob *o, int fd)
{
	struct lp_wbuf w;
	uint16_t type;

	lp_wbuf_init(&w);
	if (!lp_oob_mpi_ops.recv(o, &type, w.data, &w.len, 1000))
		lp_wire_send(fd, type, &w, 1000);
}

/* Why a worker ended without its result. */
static int ended(int st, bool killed, double timeout_s, struct lp_fail *f)
{
	if (killed)
		return lp_fail_set(f, -ETIMEDOUT,
				   "test process killed past the pair timeout (%.0f s)", timeout_s);
	if (WIFSIGNALED(st))
		return lp_fail_set(f, -ECHILD, "test process killed by signal %d (%s)",
				   WTERMSIG(st), strsignal(WTERMSIG(st)));
	return lp_fail_set(f, -ECHILD, "test process exited with status %d without a result",
			   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* Sleep until the worker speaks or us pass, whichever is first. */
static bool wait_worker(int fd, unsigned us)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000 };

	return ppoll(&p, 1, &ts, NULL) > 0;
}

/*
 * Relay w's frames and the peer's until its result, its end, the deadline or
 * a signal. 0 and *out, or a negative errno with the cause in f; w->pid 0: it ended (and
 * was reaped) meanwhile.
 */
static int relay(struct lp_sweep_worker *w, struct lp_mpi_oob *o, const struct lp_oob *oob,
		 struct lp_wbuf *out, struct lp_fail *f)
{
	uint64_t deadline = o->deadline_ns, t;
	struct lp_mpi_backoff b;
	bool up = true, done = false, killed = false, signalled = false, reaped = false;
	int st = 0;

	/* the relay bounds itself: each hop by GRACE_MS, the whole by deadline */
	o->deadline_ns = 0;
	lp_mpi_backoff_init(&b, o->poll_max_us);
	while (!done) {
		bool busy = false;

		if (up && wait_worker(w->fd, 0)) {
			up = relay_up(o, w, out, &done);
			busy = true;
		}
		if (!done && lp_oob_mpi_ops.ready(o) > 0) {
			relay_down(o, w->fd);
			busy = true;
		}
		if (done)
			break;
		if (!busy && waitpid(w->pid, &st, WNOHANG) == w->pid) {
			reaped = true;
			while (up && !done &&
			       wait_worker(w->fd, 0)) /* what it said last goes out */
				up = relay_up(o, w, out, &done);
			break;
		}
		t = lp_now_ns();
		if (oob->stop && *oob->stop && !signalled) {
			kill(w->pid, SIGTERM);	    /* it stops its test as the rank would, */
			shutdown(w->fd, SHUT_RDWR); /* and a wait on its channel ends too */
			up = false;
			signalled = true;
			deadline =
				LP_MIN(deadline ? deadline : UINT64_MAX, t + STOP_MS * 1000000ull);
		}
		if (deadline && t >= deadline) {
			kill(w->pid, SIGKILL);
			waitpid(w->pid, &st, 0);
			reaped = true;
			killed = !signalled;
			break;
		}
		if (busy || (up && wait_worker(w->fd, lp_mpi_backoff_next(&b))))
			lp_mpi_backoff_init(&b, o->poll_max_us); /* it spoke: wakes at once */
		else if (!up)
			lp_mpi_backoff_pause(&b);
	}
	if (reaped)
		w->pid = 0;
	return done ? 0 : ended(st, killed, oob->timeout_ms / 1000.0, f);
}

int lp_sweep_isolated(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg, struct lp_mpi_oob *o,
		      const struct lp_oob *oob, const struct lp_sweep_test *t,
		      const struct lp_rdma_server_opts *so, const struct lp_sweep_conn *conn,
		      struct lp_wbuf *out, struct lp_fail *f)
{
	struct worker_job *j = calloc(1, sizeof(*j));
	struct lp_sweep_worker *w = j ? take(x, cfg, f) : NULL;
	int ret = -ECHILD;

	lp_wbuf_init(out);
	if (w) {
		*j = (struct worker_job){ .serve = !t,
					  .timeout_ms = oob->timeout_ms,
					  .mem = so ? (uint32_t)so->mem : 0,
					  .mem_dev = so ? so->mem_dev : -1 };
		if (t)
			conn = &t->conn;
		if (conn) {
			j->conn_mine = conn->mine;
			j->conn_peer = conn->peer;
		}
		if (t) {
			j->p = t->p;
			j->attempt = t->attempt;
			j->c = t->c;
			snprintf(j->client, sizeof(j->client), "%s", t->client);
			snprintf(j->server, sizeof(j->server), "%s", t->server);
		} else {
			lp_rdma_params_default(&j->p, LP_RDMA_WRITE_LAT); /* unused: a valid one */
			lp_sweep_cell_init(&j->c, 0, 0, 1, LP_PHASE_SWEEP,
					   0); /* and a valid cell */
			snprintf(j->client, sizeof(j->client), "%s", oob->peer_name);
		}
		ret = lp_record_encode(&worker_job_record, j, out);
		if (!ret)
			ret = lp_wire_send(w->fd, W_JOB, out, GRACE_MS);
		lp_wbuf_init(out);
		if (ret) {
			lp_fail_set(f, ret, "the test process took no job: %s", strerror(-ret));
			forget(x, w);
		} else {
			ret = relay(w, o, oob, out, f);
			if (ret || !w->pid)
				forget(x,
				       w); /* it crashed, hung or was stopped: the next job gets another */
		}
		give_back(x, w);
	}
	if (ret) {
		struct lp_wbuf none;

		lp_wbuf_init(&none);
		lp_oob_mpi_ops.send(o, RELAY_GONE, &none, GRACE_MS);
	}
	free(j);
	return ret;
}
