// SPDX-License-Identifier: MIT
/*
 * The sweep engine over MPI: status exchange, the schedule's rounds of lp-rdma
 * sessions, gathers, and the retest rounds rank 0 decides on.
 */
#include "sweep/mpi/sweep_mpi.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/lp.h"
#include "sweep/absent.h"

/*
 * Every MPI tag of lp-sweep. Retest round r (at most 20) sends its list on
 * TAG_RETEST_LIST + 2r and its cells on TAG_RETEST_CELLS + 2r; lp-rdma
 * sessions use TAG_SESSION0 and up (one tag per session, wrapping below the
 * MPI tag bound).
 */
enum {
	TAG_NODE = 1,
	TAG_CELLS = 11,
	TAG_RETEST_LIST = 12,
	TAG_RETEST_CELLS = 13,
	TAG_SESSION0 = 64,
};

#define EXCHANGE_MS 300000 /* start-up and gathers: ranks may start minutes apart under Slurm */

static uint64_t deadline_in(int ms)
{
	return lp_now_ns() + (uint64_t)ms * 1000000ull;
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
	x->poll_max_us = 20000;
	x->status_all = calloc(x->size, sizeof(int));
	x->rail_all = calloc(x->size, sizeof(int));
	x->name_all = calloc(x->size, sizeof(*x->name_all));
	x->silent = calloc(x->size, 1);
	if (!x->status_all || !x->rail_all || !x->name_all || !x->silent)
		return -ENOMEM;
	return 0;
}

void lp_sweep_mpi_free(struct lp_sweep_mpi *x)
{
	free(x->status_all);
	free(x->rail_all);
	free(x->name_all);
	free(x->silent);
	free(x->mine);
	lp_sched_free(&x->sched);
	if (x->comm != MPI_COMM_NULL && x->comm)
		MPI_Comm_free(&x->comm);
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

static int wait_or_lose(struct lp_sweep_mpi *x, MPI_Request *req, int timeout_ms, const char *what)
{
	int ret = lp_mpi_wait(req, NULL, deadline_in(timeout_ms), x->poll_max_us);

	if (ret == -ETIMEDOUT) {
		lp_warn("%s: not every rank arrived within %d s; going on without them", what,
			timeout_ms / 1000);
		x->lost = true;
		if (x->pending < (int)LP_ARRAY_SIZE(x->pending_req))
			x->pending_req[x->pending++] = *req;
	} else if (ret) {
		lp_err("%s: MPI error", what);
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

/* Probe with back-off until src's message arrives, then take it (malloc'ed). */
static int recv_blob(struct lp_sweep_mpi *x, int src, int tag, uint8_t **buf_p, int *len_p,
		     uint64_t deadline)
{
	unsigned sleep_us = 50;
	MPI_Status st;
	int flag = 0;

	for (;;) {
		if (MPI_Iprobe(src, tag, x->comm, &flag, &st) != MPI_SUCCESS)
			return -EIO;
		if (flag)
			break;
		if (lp_now_ns() >= deadline)
			return -ETIMEDOUT;
		usleep(sleep_us);
		sleep_us = LP_MIN(sleep_us * 2, (unsigned)x->poll_max_us);
	}
	MPI_Get_count(&st, MPI_BYTE, len_p);
	*buf_p = malloc(*len_p ? *len_p : 1);
	if (!*buf_p)
		return -ENOMEM;
	/* the message is here: this receive does not wait on a peer */
	if (MPI_Recv(*buf_p, *len_p, MPI_BYTE, src, tag, x->comm, MPI_STATUS_IGNORE) !=
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
		int len, ret = recv_blob(x, i, TAG_NODE, &buf, &len, dl);

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
	if (x->nmine == x->capmine) {
		size_t nc = x->capmine ? x->capmine * 2 : 64;
		struct lp_sweep_cell *p = realloc(x->mine, nc * sizeof(*p));

		if (!p) {
			lp_err("out of memory for results");
			return;
		}
		x->mine = p;
		x->capmine = nc;
	}
	x->mine[x->nmine++] = *c;
}

static void fill_cell(struct lp_sweep_cell *c, const struct lp_rdma_result *r, bool lat)
{
	double k = lat ? 1 : 8; /* the value's unit: p50 us, or Gb/s from the intervals' GB/s */

	c->iters = r->iters;
	c->ival_min = r->ival_sum.min * k;
	c->ival_max = r->ival_sum.max * k;
	if (lat) {
		c->lat = r->lat_us;
		c->halved = r->lat_halved;
		c->value = c->lat.p50;
	} else {
		c->gbytes_s = r->local.gbytes_s;
		c->gbits_s = r->local.gbits_s;
		c->mmsg_s = r->local.mmsg_s;
		c->pct_link = r->local.pct_link;
		c->value = c->gbits_s;
	}
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
static void run_client(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg, int m, int server,
		       int tag, int round, enum lp_phase phase)
{
	const struct lp_rdma_params *p = &cfg->params[m];
	bool lat = lp_rdma_test_is_lat(p->test);
	struct lp_sweep_cell c;
	uint64_t t0 = lp_now_ns();

	lp_sweep_cell_init(&c, m, x->rank, server, phase, round);
	if (x->dev_status) {
		c.status = x->dev_status;
		snprintf(c.error, sizeof(c.error), "client %s: %s", x->name_all[x->rank],
			 x->dev_error);
	} else if (x->status_all[server]) {
		c.status = x->status_all[server];
		snprintf(c.error, sizeof(c.error), "server %s: device not usable (%s)",
			 x->name_all[server], strerror(-x->status_all[server]));
	} else {
		struct lp_mpi_oob o;
		struct lp_oob oob;
		struct lp_rdma_result *r = calloc(1, sizeof(*r));
		int ret;

		pair_oob(x, cfg, server, tag, &o, &oob);

		if (!r) {
			c.status = -ENOMEM;
			snprintf(c.error, sizeof(c.error), "out of memory");
		} else {
			ret = lp_rdma_client_run(x->dev, &oob, p, x->name_all[server], NULL, r);
			c.status = r->status ? r->status : ret;
			if (c.status == -EINTR || c.status == -ECANCELED) {
				/* a signal here or at the peer cut it short: not a measurement */
				lp_rdma_result_free(r);
				free(r);
				return;
			}
			if (c.status)
				snprintf(c.error, sizeof(c.error), "%s",
					 r->error[0] ? r->error : strerror(-c.status));
			else
				fill_cell(&c, r, lat);
			/* end the session; after a failure the server may be gone already,
			 * and the message then sits unread on a tag nobody uses again */
			o.deadline_ns = deadline_in(2000);
			lp_rdma_client_bye(&oob);
			lp_rdma_result_free(r);
			free(r);
		}
	}
	c.wall_s = (double)(lp_now_ns() - t0) / 1e9;
	if (c.status)
		lp_info("%s -> %s %s: %s", x->name_all[x->rank], x->name_all[server],
			lp_rdma_test_names[p->test], c.error);
	push_cell(x, &c);
}

static void run_server(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg, int client, int tag)
{
	struct lp_mpi_oob o;
	struct lp_oob oob;
	int ret;

	pair_oob(x, cfg, client, tag, &o, &oob);

	if (x->dev_status || x->status_all[client])
		return; /* the client records the error in its cells */
	ret = lp_rdma_server_session(x->dev, &oob, &cfg->sopts);
	if (ret)
		lp_info("serving %s: session ended: %s", x->name_all[client], strerror(-ret));
}

/* This rank's tests in round r (its pair, both directions, every metric): client cells to x->mine. */
static void run_my_pair(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg,
			const struct lp_sched *s, size_t r, enum lp_phase phase)
{
	size_t cnt;
	const struct lp_slot *sl = lp_sched_round(s, r, &cnt);

	for (size_t i = 0; i < cnt; i++) {
		if (sl[i].x != x->rank && sl[i].y != x->rank)
			continue;
		for (int d = 0; d < 2; d++) {
			int client = d == 0 ? sl[i].x : sl[i].y,
			    server = d == 0 ? sl[i].y : sl[i].x;

			if (!(sl[i].dirs & (d == 0 ? LP_DIR_XY : LP_DIR_YX)))
				continue;
			for (int m = 0; m < cfg->nmetrics; m++) {
				int tag = session_tag(x, cfg, d, m);

				if (cfg->sopts.stop && *cfg->sopts.stop)
					break; /* no new session: every rank got the signal too */
				if (client == x->rank)
					run_client(x, cfg, m, server, tag, (int)r, phase);
				else
					run_server(x, cfg, client, tag);
			}
		}
		return;
	}
}

/* x->mine as one blob: a u32 count, then each cell's record as a u16 length and the body. */
static uint8_t *pack_cells(const struct lp_sweep_mpi *x, size_t *len_p)
{
	uint8_t *buf = malloc(4 + x->nmine * (2 + LP_WIRE_MAX_BODY));
	uint32_t cnt = 0;
	size_t len = 4;
	struct lp_wbuf w;

	if (!buf)
		return NULL;
	for (size_t i = 0; i < x->nmine; i++) {
		lp_wbuf_init(&w);
		if (lp_record_encode(&lp_sweep_cell_record, &x->mine[i], &w)) {
			lp_err("a cell of %s does not encode; left out", x->name_all[x->rank]);
			continue;
		}
		buf[len] = (uint8_t)(w.len >> 8);
		buf[len + 1] = (uint8_t)w.len;
		memcpy(buf + len + 2, w.data, w.len);
		len += 2 + w.len;
		cnt++;
	}
	memcpy(buf, &cnt, 4); /* same binary, same host byte order */
	*len_p = len;
	return buf;
}

/* Rank 0: the cells of one rank's blob into run; a cell that does not decode is left out. */
static void unpack_cells(struct lp_sweep_run *run, const uint8_t *buf, size_t len)
{
	uint32_t cnt = 0;
	size_t off = 4;

	if (len >= 4)
		memcpy(&cnt, buf, 4);
	for (uint32_t k = 0; k < cnt && off + 2 <= len; k++) {
		size_t cl = (size_t)buf[off] << 8 | buf[off + 1];
		struct lp_sweep_cell c;

		if (off + 2 + cl > len)
			break;
		if (!lp_record_decode_body(&lp_sweep_cell_record, &c, buf + off + 2, cl))
			lp_sweep_add_cell(run, &c);
		off += 2 + cl;
	}
}

/* Rank 0 adds every rank's x->mine to run (and clears them everywhere). */
static int gather_cells(struct lp_sweep_mpi *x, struct lp_sweep_run *run, int tag)
{
	uint64_t dl = deadline_in(EXCHANGE_MS);
	int rc = 0;

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
	for (int src = 1; src < x->size; src++) {
		uint8_t *buf;
		int len, ret;

		if (x->silent[src])
			continue; /* it missed a gather: waiting for it every round would stall the sweep */
		ret = recv_blob(x, src, tag, &buf, &len, dl);
		if (ret) {
			lp_err("no results from rank %d (%s): %s; its cells stay empty", src,
			       x->name_all[src], strerror(-ret));
			x->lost = x->lost || ret == -ETIMEDOUT;
			x->silent[src] = 1;
			rc = ret;
			continue;
		}
		unpack_cells(run, buf, (size_t)len);
		free(buf);
	}
	return rc;
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
	/* a round lasts at most two directions of every metric, each bounded by the pair timeout */
	int barrier_ms = (int)LP_MIN(2.0 * cfg->nmetrics * cfg->pair_timeout_s * 1000 + 60000, 2e9);

	for (size_t r = 0; r < s->nrounds; r++) {
		size_t from = run->ncells;
		bool stop;

		run_my_pair(x, cfg, s, r, phase);
		/* The round's barrier also agrees on stopping: a signal to any rank stops all. */
		stop = round_barrier(x, barrier_ms, cfg->sopts.stop && *cfg->sopts.stop);
		gather_cells(x, run, tag);
		lp_sweep_journal_cells(cfg->journal, run, from);
		lp_sweep_journal_sync(cfg->journal);
		if (stop)
			return -EINTR;
		x->rounds_done++;
		if (x->rank == 0 && lp_log_get_level() >= LP_LOG_INFO)
			lp_info("%s round %zu/%zu done", phase ? "retest" : "sweep", r + 1,
				s->nrounds);
	}
	return 0;
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
	int len, ret = recv_blob(x, 0, tag, &buf, &len, deadline_in(EXCHANGE_MS));
	uint32_t cnt = 0;

	*pairs_p = NULL;
	*np_p = 0;
	if (ret) {
		lp_err("no retest list from rank 0: %s", strerror(-ret));
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
	if (ret)
		lp_err("cannot build the schedule: %s", strerror(-ret));
	return ret;
}

/* How the sweep runs, echoed into the run's JSON. */
static void run_echo(struct lp_sweep_run *run, const struct lp_sweep_cfg *cfg,
		     const struct lp_sched *s)
{
	run->sched = s;
	run->sched_name = lp_sched_names[cfg->kind];
	run->rails = cfg->rails;
	run->random_k = cfg->kind == LP_SCHED_RANDOM ? cfg->random_k : 0;
	run->seed = cfg->seed;
	run->pair_timeout_s = cfg->pair_timeout_s;
	run->retest_max = cfg->retest_max;
	run->retest_rounds = cfg->retest_rounds;
	lp_time_iso8601(run->started, sizeof(run->started));
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

	if (!x->rank) {
		pairs = malloc(((size_t)cfg->retest_max + 1) * 2 * sizeof(int32_t));
		if (pairs && !lp_sweep_diagnose(run))
			np = lp_sweep_suspects(run, cfg->retest_per_node, rr, pairs,
					       cfg->retest_max);
	}
	if (bcast_pairs(x, &pairs, &np, TAG_RETEST_LIST + 2 * rr) || np == 0) {
		free(pairs);
		return false;
	}
	if (!lp_sched_from_list(&rs, x->size, pairs, np)) {
		progress(x, cfg, "lp-sweep: retest round %d: %zu suspect pair(s) in isolation\n",
			 rr + 1, np);
		lp_sweep_journal_retest(cfg->journal, rr, pairs, np);
		run->interrupted = run_rounds(x, cfg, &rs, LP_PHASE_RETEST, run,
					      TAG_RETEST_CELLS + 2 * rr) == -EINTR;
		lp_sched_free(&rs);
		run->nretests += np;
	}
	free(pairs);
	return true;
}

/* Rank 0 diagnoses; after a signal every rank ends with 130, as rank 0 does. */
static int run_code(const struct lp_sweep_mpi *x, struct lp_sweep_run *run)
{
	int code = LP_EXIT_OK;

	if (!x->rank) {
		if (lp_sweep_diagnose(run)) {
			lp_err("diagnosis failed (out of memory)");
			code = LP_EXIT_FAIL;
		} else {
			code = lp_sweep_exit_code(run);
		}
	}
	if (run->interrupted) {
		if (!x->rank)
			lp_err("interrupted: writing the %zu cells measured so far", run->ncells);
		code = LP_EXIT_INTERRUPTED;
	}
	return code;
}

int lp_sweep_engine_run(struct lp_sweep_mpi *x, struct lp_sweep_node *me,
			const struct lp_sweep_cfg *cfg, struct lp_sweep_run *run, int *code_p)
{
	uint64_t t0, t1;
	char why[256];
	int ret;

	*code_p = LP_EXIT_FAIL;
	/* everyone learns who can measure; labels made unique */
	ret = exchange(x, me);
	if (ret)
		return ret;
	unique_names(x, me);
	if (!any_device(x)) {
		if (!x->rank)
			lp_err("no rank could open an RDMA device (rank 0: %s)", x->dev_error);
		*code_p = no_device_code(x);
		return -ENODEV;
	}
	ret = build_schedule(x, cfg);
	if (ret)
		return ret;
	run_echo(run, cfg, &x->sched);
	gather_nodes(x, me, run);
	ret = lp_sweep_add_absent(run, cfg->absent, why, sizeof(why)); /* the same on every rank */
	if (ret) {
		if (!x->rank)
			lp_err("--absent: %s", why);
		*code_p = ret == -EINVAL ? LP_EXIT_USAGE : LP_EXIT_FAIL;
		return ret;
	}
	lp_sweep_journal_run(cfg->journal, run);
	lp_sweep_journal_nodes(cfg->journal, run);
	progress(x, cfg,
		 "lp-sweep: %d ranks, %s schedule, %zu rounds, %zu ordered pairs x %d tests, "
		 "pair timeout %.0f s\n",
		 x->size, run->sched_name, x->sched.nrounds, lp_sched_ordered_pairs(&x->sched),
		 cfg->nmetrics, cfg->pair_timeout_s);

	t0 = lp_now_ns();
	/* SIGINT/SIGTERM: every rank stops at the same round; the cells done so far are written. */
	run->interrupted = run_rounds(x, cfg, &x->sched, LP_PHASE_SWEEP, run, TAG_CELLS) == -EINTR;
	t1 = lp_now_ns();
	run->sweep_s = (double)(t1 - t0) / 1e9;
	for (int rr = 0; !run->interrupted && cfg->retest_max > 0 && rr < cfg->retest_rounds; rr++)
		if (!retest_round(x, cfg, run, rr))
			break;
	run->retest_s = (double)(lp_now_ns() - t1) / 1e9;
	run->wall_s = (double)(lp_now_ns() - t0) / 1e9;
	*code_p = run_code(x, run);
	lp_sweep_journal_end(cfg->journal, run, *code_p);
	return 0;
}
