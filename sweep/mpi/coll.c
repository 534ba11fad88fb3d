// SPDX-License-Identifier: MIT
/*
 * The collective phase over MPI (sweep/mpi/coll_mpi.h): measurements on
 * every rank in lockstep, then rank 0 leads the search for a guilty part
 * while the others serve its probes.
 */
#include "sweep/mpi/coll_mpi.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/lp.h"
#include "common/meta.h"
#include "common/units.h"
#include "sweep/collrun.h"

#define AGREE_MS   300000 /* ranks may reach the phase minutes apart (the engine's exchange bound) */
#define TAG_RING   0x4c50		/* the phase's own communicator: its ring steps */
#define TAG_STREAM 0x4c51		/* and its pair streams */
#define PROBE_MAX  ((uint64_t)64 << 20) /* the bisection's probes: the largest size, at most this */

struct phase {
	struct lp_sweep_mpi *x;
	const struct lp_sweep_cfg *scfg;
	const struct lp_coll_cfg *cfg;
	struct lp_sweep_run *run;
	bool have_sweep;
	MPI_Comm comm; /* a duplicate of the engine's: the phase's messages never meet a session's */
	int rank, size;
	struct lp_coll_group *g;
	int ng;
	MPI_Comm *gcomm; /* per group: comm for "all", a split per rail */
	struct lp_coll_nccl *nccl;
	const struct lp_sweep_model *model; /* the model transport: figures drawn, not measured */
	int link_metric; /* the model's: the sweep metric its links are drawn for */
	int ndraws;	 /* rank 0: draws so far (each a fresh attempt) */
	bool stopped;	 /* a signal, or a rank that failed: every rank stops at the same step */
	struct lp_coll_links L; /* rank 0 */
};

/* ---- bounded waits ---- */

/* A control wait (not timed): lp_mpi_wait with its back-off; a late request is left pending. */
static int bounded(struct phase *p, MPI_Request *req, int ms, const char *what)
{
	int rc = lp_mpi_wait(req, NULL, lp_now_ns() + (uint64_t)ms * 1000000ull, p->x->poll_max_us);

	if (rc) {
		lp_warn("collectives: %s: %s", what,
			rc == -ETIMEDOUT ? "not every rank arrived in time" : "MPI error");
		p->x->lost = true;
		if (rc == -ETIMEDOUT && p->x->pending < (int)LP_ARRAY_SIZE(p->x->pending_req))
			p->x->pending_req[p->x->pending++] = *req;
	}
	return rc;
}

/* A timed wait spins (a sleep would be timed too), yielding now and then to a rank sharing the core. */
static int spin(MPI_Request *reqs, int n, uint64_t deadline)
{
	int flag = 0;

	for (unsigned i = 0;; i++) {
		if (MPI_Testall(n, reqs, &flag, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
			return -EIO;
		if (flag)
			return 0;
		if ((i & 255) == 255) {
			if (lp_now_ns() >= deadline)
				return -ETIMEDOUT;
			sched_yield();
		}
	}
}

/* Every rank's v[0..n) summed (or maxed) into every rank's out, bounded. */
static int world_reduce(struct phase *p, const double *v, double *out, int n, MPI_Op op)
{
	MPI_Request req;

	if (MPI_Iallreduce(v, out, n, MPI_DOUBLE, op, p->comm, &req) != MPI_SUCCESS)
		return -EIO;
	return bounded(p, &req, AGREE_MS, "gathering a result");
}

/* ---- set-up ---- */

/* Rank 0's node records, where the engine did not gather them (no device): name, host, rail. */
static int learn_nodes(struct phase *p)
{
	struct lp_host_meta hm;
	char(*host)[64] = calloc((size_t)p->size, 64), mine[64];
	MPI_Request req;
	int rc;

	if (!host)
		return -ENOMEM;
	lp_host_meta_collect(&hm);
	memset(mine, 0, sizeof(mine));
	snprintf(mine, sizeof(mine), "%s", hm.host);
	if (MPI_Iallgather(mine, 64, MPI_CHAR, host, 64, MPI_CHAR, p->comm, &req) != MPI_SUCCESS) {
		free(host);
		return -EIO;
	}
	rc = bounded(p, &req, AGREE_MS, "learning the hosts");
	for (int i = 0; !rc && !p->rank && i < p->size; i++) {
		struct lp_sweep_node *nd = &p->run->nodes[i];

		if (nd->name[0])
			continue; /* the engine's record */
		nd->rank = i;
		nd->rail = p->x->rail_all[i];
		host[i][63] = 0;
		snprintf(nd->host, sizeof(nd->host), "%s", host[i]);
		snprintf(nd->name, sizeof(nd->name), "%s", p->x->name_all[i]);
		nd->status = p->x->status_all[i];
		snprintf(nd->mem, sizeof(nd->mem), "host");
	}
	if (rc != -ETIMEDOUT)
		free(host);
	return rc;
}

/* The phase's communicator, its groups (all, each rail) and a communicator per rail. */
static int setup(struct phase *p)
{
	MPI_Request req;
	int rc;

	if (MPI_Comm_idup(p->x->comm, &p->comm, &req) != MPI_SUCCESS)
		return -EIO;
	rc = bounded(p, &req, AGREE_MS, "starting the collective phase");
	if (rc)
		return rc;
	MPI_Comm_set_errhandler(p->comm, MPI_ERRORS_RETURN);
	p->model = p->have_sweep ? p->scfg->model : NULL;
	p->link_metric = lp_sweep_coll_link_metric(p->run);
	if (p->model && p->link_metric < 0)
		return -EINVAL; /* lp-sweep refuses the options before the sweep */
	MPI_Comm_rank(p->comm, &p->rank);
	MPI_Comm_size(p->comm, &p->size);
	rc = lp_coll_groups(p->size, p->scfg->rails ? p->x->rail_all : NULL, &p->g, &p->ng);
	if (rc)
		return rc;
	p->gcomm = calloc((size_t)p->ng, sizeof(MPI_Comm));
	if (!p->gcomm)
		return -ENOMEM;
	p->gcomm[0] = p->comm;
	/* one split for the rails, once, after the bounded dup: every rank is here */
	if (p->ng > 1) {
		MPI_Comm rail;

		if (MPI_Comm_split(p->comm, p->x->rail_all[p->rank], p->rank, &rail) != MPI_SUCCESS)
			return -EIO;
		for (int k = 1; k < p->ng; k++)
			p->gcomm[k] = k - 1 == p->x->rail_all[p->rank] ? rail : MPI_COMM_NULL;
	}
	return learn_nodes(p);
}

static void teardown(struct phase *p)
{
	for (int k = 1; p->gcomm && k < p->ng; k++)
		if (p->gcomm[k] != MPI_COMM_NULL)
			MPI_Comm_free(&p->gcomm[k]);
	free(p->gcomm);
	if (p->comm != MPI_COMM_NULL && !p->x->lost)
		MPI_Comm_free(&p->comm);
	lp_coll_groups_free(p->g, p->ng);
	lp_coll_nccl_close(p->nccl);
	if (!p->rank)
		lp_sweep_coll_links_free(&p->L);
}

/* This rank's place in group g, -1 outside it. */
static int group_rank(const struct lp_coll_group *g, int rank)
{
	for (int i = 0; i < g->n; i++)
		if (g->ranks[i] == rank)
			return i;
	return -1;
}

/* ---- test-only faults (docs/SWEEP.md, "Collectives") ---- */

/*
 * LP_COLL_FAULT=corrupt:R makes rank R's checked result wrong in one element
 * (the data check must fail the run); slow:R:US makes rank R wait US
 * microseconds before each of its sends in the ring and in pair streams (a
 * slow node the search must name). 0 = no fault for this rank.
 */
static long fault(const char *kind, int rank)
{
	const char *f = getenv("LP_COLL_FAULT");
	size_t n = strlen(kind);
	char *end;
	long r, us = 1;

	if (!f || strncmp(f, kind, n) || f[n] != ':')
		return 0;
	r = strtol(f + n + 1, &end, 10);
	if (*end == ':')
		us = strtol(end + 1, NULL, 10);
	return r == rank ? us : 0;
}

/* ---- one operation ---- */

struct bufs {
	float *send, *recv, *tmp;
	size_t nsend, nrecv;
};

static int bufs_alloc(struct bufs *b, const struct lp_coll_shape *s, bool ring)
{
	b->nsend = LP_MAX(s->send_count, 1);
	b->nrecv = LP_MAX(LP_MAX(s->recv_count, s->send_count), 1);
	b->send = malloc(b->nsend * sizeof(float));
	b->recv = malloc(b->nrecv * sizeof(float));
	b->tmp = ring ? malloc(b->nrecv * sizeof(float)) : NULL;
	if (!b->send || !b->recv || (ring && !b->tmp))
		return -ENOMEM;
	return 0;
}

static void bufs_free(struct bufs *b)
{
	free(b->send);
	free(b->recv);
	free(b->tmp);
	memset(b, 0, sizeof(*b));
}

/* The data before a checked operation: nccl-tests' placement of in-place data. */
static void prepare(int k, int grank, const struct lp_coll_shape *s, struct bufs *b, bool ip)
{
	memset(b->recv, 0, b->nrecv * sizeof(float));
	lp_coll_fill(grank, s, b->send);
	if (!ip)
		return;
	if (k == LP_COLL_ALLGATHER)
		memcpy(b->recv + (size_t)grank * s->param_count, b->send,
		       s->param_count * sizeof(float));
	else if (k != LP_COLL_BROADCAST || grank == 0)
		memcpy(b->recv, b->send, s->send_count * sizeof(float));
}

/* Start the MPI library's collective k (group communicator c, this rank grank of gn). */
static int mpi_start(int k, MPI_Comm c, int grank, int gn, const struct lp_coll_shape *s,
		     struct bufs *b, bool ip, MPI_Request *req, int *nreq)
{
	void *sb = ip ? MPI_IN_PLACE : b->send;
	int n = (int)s->param_count, rc;

	*nreq = 1;
	switch (k) {
	case LP_COLL_ALLREDUCE:
		return MPI_Iallreduce(sb, b->recv, n, MPI_FLOAT, MPI_SUM, c, req);
	case LP_COLL_ALLGATHER:
		return MPI_Iallgather(sb, n, MPI_FLOAT, b->recv, n, MPI_FLOAT, c, req);
	case LP_COLL_REDUCESCATTER:
		return MPI_Ireduce_scatter_block(sb, b->recv, n, MPI_FLOAT, MPI_SUM, c, req);
	case LP_COLL_ALLTOALL:
		return MPI_Ialltoall(sb, n, MPI_FLOAT, b->recv, n, MPI_FLOAT, c, req);
	case LP_COLL_BROADCAST:
		if (!ip &&
		    grank == 0) /* out of place: the root's data moves to its receive buffer */
			memcpy(b->recv, b->send, s->send_count * sizeof(float));
		return MPI_Ibcast(b->recv, n, MPI_FLOAT, 0, c, req);
	case LP_COLL_REDUCE:
		return MPI_Ireduce(ip && grank == 0 ? MPI_IN_PLACE : b->send, b->recv, n, MPI_FLOAT,
				   MPI_SUM, 0, c, req);
	default: /* sendrecv: to the next rank, from the previous */
		*nreq = 2;
		rc = MPI_Irecv(b->recv, n, MPI_FLOAT, (grank - 1 + gn) % gn, TAG_STREAM, c,
			       &req[0]);
		return rc ? rc
			  : MPI_Isend(b->send, n, MPI_FLOAT, (grank + 1) % gn, TAG_STREAM, c,
				      &req[1]);
	}
}

/* One step of the ring: send chunk sc to next, receive chunk rc from prev into dst. */
static int ring_step(MPI_Comm c, int next, int prev, const float *src, float *dst, size_t n_send,
		     size_t n_recv, uint64_t dl)
{
	MPI_Request r[2];
	int me;
	long slow;

	MPI_Comm_rank(c, &me);
	slow = fault("slow", me);
	if (slow > 0)
		usleep((useconds_t)slow);
	if (MPI_Irecv(dst, (int)n_recv, MPI_FLOAT, prev, TAG_RING, c, &r[0]) != MPI_SUCCESS ||
	    MPI_Isend(src, (int)n_send, MPI_FLOAT, next, TAG_RING, c, &r[1]) != MPI_SUCCESS)
		return -EIO;
	return spin(r, 2, dl);
}

/*
 * linkperf's ring all-reduce of count floats in buf over ranks[0..k) (ranks of
 * c; this rank is ranks[me]): k-1 reduce-scatter steps, then k-1 all-gather
 * steps, each moving a k-th of the data to the next rank in the order given:
 * the ring the ceiling model's "ring" scheme holds against the links.
 */
static int ring_allreduce(MPI_Comm c, const int *ranks, int k, int me, float *buf, float *tmp,
			  size_t count, uint64_t dl)
{
	int next = ranks[(me + 1) % k], prev = ranks[(me - 1 + k) % k], rc = 0;
	size_t base = count / (size_t)k, rem = count % (size_t)k;

#define OFF(ch) ((size_t)(ch)*base + LP_MIN((size_t)(ch), rem))
#define LEN(ch) (base + ((size_t)(ch) < rem))
	for (int s = 0; s < k - 1 && !rc; s++) {
		int sc = ((me - s) % k + k) % k, rch = ((me - s - 1) % k + k) % k;

		rc = ring_step(c, next, prev, buf + OFF(sc), tmp, LEN(sc), LEN(rch), dl);
		for (size_t i = 0; !rc && i < LEN(rch); i++)
			buf[OFF(rch) + i] += tmp[i];
	}
	for (int s = 0; s < k - 1 && !rc; s++) {
		int sc = ((me + 1 - s) % k + k) % k, rch = ((me - s) % k + k) % k;

		rc = ring_step(c, next, prev, buf + OFF(sc), buf + OFF(rch), LEN(sc), LEN(rch), dl);
	}
#undef OFF
#undef LEN
	return rc;
}

/* What one measurement runs on: the path, the collective, its group and this rank's place. */
struct job {
	int path, k;
	const struct lp_coll_group *g;
	MPI_Comm c;
	int grank;
	struct lp_coll_shape s;
	bool ip;
	int ring_first, ring_count; /* the ring path over g->ranks[first .. first+count) */
};

/*
 * Rank 0, the model transport: the busbw of collective k over ranks[0..n) in
 * that order, drawn from the model's links (a fresh draw each call).
 */
static int model_busbw(struct phase *p, int k, const int *ranks, int n, double *busbw_p)
{
	struct lp_fail why = { 0 };
	int rc = lp_coll_model_busbw(p->model, p->link_metric, (enum lp_coll_kind)k, ranks, n,
				     p->ndraws++, busbw_p, &why);

	if (rc)
		lp_info("collectives: %s",
			lp_fail_msg(&why)[0] ? lp_fail_msg(&why) : strerror(-rc));
	else if (!(*busbw_p > 0))
		rc = -EIO; /* no link of the scheme carries anything */
	return rc;
}

/* Rank 0, the model transport: job j's time per operation from its drawn busbw. */
static int model_op(struct phase *p, const struct job *j, double *sec_p)
{
	double busbw;
	int rc = model_busbw(p, j->k, j->g->ranks, j->g->n, &busbw);

	if (!rc) /* busbw = size / time x factor */
		*sec_p = (double)j->s.bytes * lp_coll_factor(j->k, j->g->n) / (busbw * 1e9);
	return rc;
}

/* One operation of job j: started and waited for. */
static int op_once(struct phase *p, const struct job *j, struct bufs *b, uint64_t dl)
{
	MPI_Request req[2];
	int nreq, rc;

	if (j->path == LP_COLL_PATH_RING) {
		if (!j->ip)
			memcpy(b->recv, b->send, j->s.send_count * sizeof(float));
		return ring_allreduce(p->comm, j->g->ranks + j->ring_first, j->ring_count,
				      j->grank - j->ring_first, b->recv, b->tmp, j->s.param_count,
				      dl);
	}
	rc = mpi_start(j->k, j->c, j->grank, j->g->n, &j->s, b, j->ip, req, &nreq);
	return rc != MPI_SUCCESS ? -EIO : spin(req, nreq, dl);
}

/*
 * warmup, then iters timed back to back (the wall clock around them, as
 * nccl-tests), then one checked: this rank's time per operation and wrong
 * elements. A timed-out request is still MPI's: its buffers are left to it.
 */
static int run_job(struct phase *p, const struct job *j, double *sec_p, int64_t *wrong_p)
{
	const struct lp_coll_cfg *cfg = p->cfg;
	uint64_t dl = lp_now_ns() + (uint64_t)(cfg->timeout_s * 1e9), t0;
	struct bufs b = { 0 };
	int rc = bufs_alloc(&b, &j->s, j->path == LP_COLL_PATH_RING);
	int warmup = j->ring_count < j->g->n ? LP_MAX(cfg->warmup, 1) : cfg->warmup;

	*wrong_p = -1;
	if (!rc) {
		prepare(j->k, j->grank, &j->s, &b, j->ip);
		for (int i = 0; i < warmup && !rc; i++)
			rc = op_once(p, j, &b, dl);
	}
	/* every member starts the timed operations together (a part's ring: its warm-up did) */
	if (!rc && j->ring_count == j->g->n) {
		MPI_Request bar;

		rc = MPI_Ibarrier(j->c, &bar) == MPI_SUCCESS ? spin(&bar, 1, dl) : -EIO;
	}
	t0 = lp_now_ns();
	for (int i = 0; i < cfg->iters && !rc; i++)
		rc = op_once(p, j, &b, dl);
	*sec_p = (double)(lp_now_ns() - t0) / 1e9 / cfg->iters;
	if (!rc && cfg->check) {
		prepare(j->k, j->grank, &j->s, &b, j->ip);
		rc = op_once(p, j, &b, dl);
		if (fault("corrupt", p->rank))
			b.recv[0] += 1;
		if (!rc)
			*wrong_p = lp_coll_check(j->k, j->grank, j->g->n, 0, &j->s, b.recv);
	}
	if (rc == -ETIMEDOUT) {
		p->x->lost =
			true; /* MPI may still write them: kept, and the job ends with MPI_Abort */
		return rc;
	}
	bufs_free(&b);
	return rc;
}

/* ---- measurements, in lockstep ---- */

/* Reduced over every rank: the members' time (sum, max), their count, wrong elements, errors. */
struct tally {
	double sum_s, members, wrong, err, stop;
	double max_s;
};

static int reduce_tally(struct phase *p, bool member, int rc, double sec, int64_t wrong,
			struct tally *t)
{
	double v[5] = { member && !rc ? sec : 0, member && !rc,
			member && wrong > 0 ? (double)wrong : 0, rc ? -rc : 0,
			p->x->stop && *p->x->stop },
	       out[5], mx = member && !rc ? sec : 0, omx;
	int ret = world_reduce(p, v, out, 5, MPI_SUM);

	if (!ret)
		ret = world_reduce(p, &mx, &omx, 1, MPI_MAX);
	if (ret)
		return ret;
	*t = (struct tally){ out[0], out[1], out[2], out[3], out[4], omx };
	if (t->stop)
		p->stopped = true;
	return 0;
}

/* Rank 0: the result of one measurement. */
static void record(struct phase *p, const struct job *j, uint64_t size, const struct tally *t,
		   bool checked)
{
	struct lp_coll_result r;
	double sec;

	lp_coll_result_init(&r, j->k, j->path, j->g->name, j->g->n);
	r.size = j->s.bytes ? j->s.bytes : size;
	r.count = j->s.param_count;
	r.in_place = j->ip;
	r.warmup = p->cfg->warmup;
	r.iters = p->cfg->iters;
	if (t->err) {
		r.status = -(int)t->err;
		snprintf(r.error, sizeof(r.error), "%s on some rank",
			 t->err == ETIMEDOUT ? "timed out" : strerror((int)t->err));
	} else if (t->members > 0) {
		sec = t->sum_s / t->members; /* nccl-tests' default: the ranks' average */
		r.time_us = sec * 1e6;
		r.time_max_us = t->max_s * 1e6;
		lp_coll_bw(j->k, j->g->n, r.size, sec, &r.algbw, &r.busbw);
		r.wrong = checked ? (int64_t)t->wrong : -1;
	}
	lp_coll_run_add_result(p->run->coll, &r);
	if (p->have_sweep) /* on disk at once, beside the sweep's cells */
		lp_sweep_journal_record(p->scfg->journal, "coll_result", &lp_coll_result_record,
					&r);
	if (p->cfg->progress) {
		char sz[32];

		lp_fmt_size(sz, sizeof(sz), r.size);
		fprintf(p->cfg->progress,
			"lp-sweep: %s %s over %s (%d ranks), %s%s: %s%.2f GB/s busbw, %.1f us%s\n",
			r.path, r.coll, r.group, r.nranks, sz, r.in_place ? " in place" : "",
			r.status ? "failed, " : "", r.busbw, r.time_us,
			r.wrong > 0 ? ", WRONG DATA" : "");
		fflush(p->cfg->progress);
	}
}

/* One measurement on every rank: the members run it, all learn the outcome. */
static int measure(struct phase *p, struct job *j, uint64_t size)
{
	double sec = 0;
	int64_t wrong = -1;
	int rc = 0;
	struct tally t;
	bool member = j->grank >= 0;

	if (lp_coll_shape(j->k, size, sizeof(float), j->g->n, &j->s))
		return 0;
	if (p->model) { /* rank 0 draws it for the group; nothing moves */
		member = !p->rank;
		if (member)
			rc = model_op(p, j, &sec);
	} else if (member && j->path != LP_COLL_PATH_NCCL &&
		   j->s.param_count * (uint64_t)j->g->n > INT_MAX)
		rc = -E2BIG; /* MPI counts are ints */
	else if (member && j->path == LP_COLL_PATH_NCCL)
		rc = lp_coll_nccl_measure(p->nccl, j->k, &j->s, j->ip, p->cfg->warmup,
					  p->cfg->iters, p->cfg->check,
					  lp_now_ns() + (uint64_t)(p->cfg->timeout_s * 1e9), &sec,
					  &wrong);
	else if (member)
		rc = run_job(p, j, &sec, &wrong);
	if (reduce_tally(p, member, rc, sec, wrong, &t))
		return -ETIMEDOUT;
	if (!p->rank)
		record(p, j, size, &t, p->cfg->check && !p->model);
	return t.err == ETIMEDOUT ? -ETIMEDOUT : p->stopped ? -EINTR : 0;
}

static bool applies(int path, int k, bool ip)
{
	if (path == LP_COLL_PATH_RING && k != LP_COLL_ALLREDUCE)
		return false; /* linkperf's own ring is an all-reduce */
	if (ip && path == LP_COLL_PATH_NCCL && k == LP_COLL_ALLTOALL)
		return false; /* its point-to-point group would overwrite what it still sends */
	return !(ip && k == LP_COLL_SENDRECV);
}

/* Every collective of one path over its groups (NCCL: all ranks), sizes, placements. */
static int measure_path(struct phase *p, int path)
{
	int rc = 0;

	for (int k = 0; k < LP_COLL_NKINDS && !rc; k++)
		for (int gi = 0; gi < (path == LP_COLL_PATH_NCCL ? 1 : p->ng) && !rc; gi++)
			for (unsigned si = 0; si < p->cfg->sizes.n && !rc; si++)
				for (int ip = 0; ip < 2 && !rc; ip++) {
					struct job j = { .path = path,
							 .k = k,
							 .g = &p->g[gi],
							 .c = p->gcomm[gi],
							 .ip = ip };

					if (!(p->cfg->colls >> k & 1) || !applies(path, k, ip))
						continue;
					j.grank = group_rank(j.g, p->rank);
					j.ring_count = j.g->n;
					rc = measure(p, &j, p->cfg->sizes.v[si]);
				}
	return rc;
}

/* The local index of this rank: its rail, or its place among its host's ranks (the GPU it drives). */
static int local_index(const struct phase *p)
{
	int local = 0;

	if (p->scfg->rails)
		return p->x->rail_all[p->rank];
	if (lp_sweep_mpi_local_rank(p->comm, &local))
		local = 0;
	return local;
}

/* NCCL on every rank, or on none: one rank without it turns the path off (said once). */
static int nccl_open_all(struct phase *p)
{
	struct lp_fail why = { 0 };
	int dev = p->cfg->cuda_dev >= 0 ? p->cfg->cuda_dev : local_index(p);
	int rc = lp_coll_nccl_open(&p->nccl, dev, p->comm,
				   lp_now_ns() + (uint64_t)AGREE_MS * 1000000ull, &why);
	double bad = rc != 0, any;

	if (world_reduce(p, &bad, &any, 1, MPI_SUM))
		return -ETIMEDOUT;
	if (rc)
		lp_warn("NCCL on %s: %s", p->x->name_all[p->rank], lp_fail_msg(&why));
	if (!p->rank && any)
		snprintf(p->run->coll->echo.note, sizeof(p->run->coll->echo.note),
			 "NCCL did not run: %d rank(s) could not load or start it (rank 0: %s)",
			 (int)any, rc ? lp_fail_msg(&why) : "fine");
	if (any) {
		lp_coll_nccl_close(p->nccl);
		p->nccl = NULL;
		return 1;
	}
	if (!p->rank)
		snprintf(p->run->coll->echo.nccl_version, sizeof(p->run->coll->echo.nccl_version),
			 "%s", lp_coll_nccl_version(p->nccl));
	return 0;
}

static int measure_all(struct phase *p)
{
	int rc = 0;

	for (int path = 0; path < LP_COLL_PATH_IMPORT && !rc; path++) {
		if (!(p->cfg->paths >> path & 1) || (p->model && path == LP_COLL_PATH_NCCL))
			continue; /* NCCL's algorithms are not modelled */
		if (path == LP_COLL_PATH_NCCL) {
			rc = nccl_open_all(p);
			if (rc > 0) {
				rc = 0;
				continue;
			}
		}
		if (!rc)
			rc = measure_path(p, path);
	}
	return rc;
}

/* ---- the search: rank 0 leads, every rank serves its probes ---- */

enum { CMD_DONE = 0, CMD_RING = 1, CMD_EDGE = 2 };

/* kind, group, first, count, a, b */
#define CMD_LEN 6

/* How long a rank waits for rank 0's next probe: the slowest probe, with room. */
static int cmd_ms(const struct phase *p)
{
	double s =
		2 * p->cfg->timeout_s + 2.0 * p->scfg->nmetrics * p->scfg->pair_timeout_s * 2 + 60;

	return (int)LP_MIN(s * 1000, 2e9);
}

static int cmd_bcast(struct phase *p, int32_t *cmd)
{
	MPI_Request req;

	if (MPI_Ibcast(cmd, CMD_LEN, MPI_INT32_T, 0, p->comm, &req) != MPI_SUCCESS)
		return -EIO;
	return bounded(p, &req, cmd_ms(p), "waiting for the next probe");
}

static uint64_t probe_size(const struct phase *p)
{
	uint64_t s = p->cfg->sizes.n ? p->cfg->sizes.v[p->cfg->sizes.n - 1] : 0;

	return LP_MAX(LP_MIN(s, PROBE_MAX), (uint64_t)4096);
}

/* The ring's busbw drawn from the model on rank 0 (the model transport), learnt by all. */
static int drawn_ring(struct phase *p, const int32_t *cmd, double *busbw_p)
{
	const struct lp_coll_group *g = &p->g[cmd[1]];
	double v = 0, out;
	int rc = 0;

	if (!p->rank)
		rc = model_busbw(p, LP_COLL_ALLREDUCE, g->ranks + cmd[2], cmd[3], &v);
	if (rc)
		v = 0;
	if (world_reduce(p, &v, &out, 1, MPI_SUM))
		return -ETIMEDOUT;
	*busbw_p = out;
	return rc;
}

/* A ring all-reduce over group g's ranks [first, first+count): busbw on every rank. */
static int exec_ring(struct phase *p, const int32_t *cmd, double *busbw_p)
{
	struct job j = { .path = LP_COLL_PATH_RING,
			 .k = LP_COLL_ALLREDUCE,
			 .g = &p->g[cmd[1]],
			 .ip = true,
			 .ring_first = cmd[2],
			 .ring_count = cmd[3] };
	double sec = 0;
	int64_t wrong;
	struct tally t;
	int rc = 0;
	bool member;

	if (p->model)
		return drawn_ring(p, cmd, busbw_p);
	j.c = p->gcomm[cmd[1]];
	j.grank = group_rank(j.g, p->rank);
	member = j.grank >= j.ring_first && j.grank < j.ring_first + j.ring_count;
	lp_coll_shape(LP_COLL_ALLREDUCE, probe_size(p), sizeof(float), j.ring_count, &j.s);
	if (member)
		rc = run_job(p, &j, &sec, &wrong);
	if (reduce_tally(p, member, rc, sec, -1, &t))
		return -ETIMEDOUT;
	if (t.err || !(t.members > 0))
		return t.err == ETIMEDOUT ? -ETIMEDOUT : -EIO;
	*busbw_p = lp_coll_factor(LP_COLL_ALLREDUCE, j.ring_count) * (double)j.s.bytes / 1e9 /
		   (t.sum_s / t.members);
	return p->stopped ? -EINTR : 0;
}

/* a streams to b over MPI (no RDMA device to retest with): b's rate, in GB/s, on every rank. */
static int stream_pair(struct phase *p, int a, int b, double *gbs_p)
{
	uint64_t dl = lp_now_ns() + (uint64_t)(p->cfg->timeout_s * 1e9), t0 = 0;
	size_t n = probe_size(p) / sizeof(float);
	float *buf = p->rank == a || p->rank == b ? calloc(n, sizeof(float)) : NULL;
	double v[2] = { 0, 0 }, out[2];
	int rc = 0, iters = LP_MAX(p->cfg->iters, 2);

	if ((p->rank == a || p->rank == b) && !buf)
		rc = -ENOMEM;
	for (int i = 0; i < iters && !rc && (p->rank == a || p->rank == b); i++) {
		MPI_Request r;

		if (p->rank == a && fault("slow", a) > 0)
			usleep((useconds_t)fault("slow", a));
		rc = p->rank == a ? MPI_Isend(buf, (int)n, MPI_FLOAT, b, TAG_STREAM, p->comm, &r)
				  : MPI_Irecv(buf, (int)n, MPI_FLOAT, a, TAG_STREAM, p->comm, &r);
		rc = rc ? -EIO : spin(&r, 1, dl);
		if (i == 0)
			t0 = lp_now_ns(); /* b: from the first arrival; its wait for a is not timed */
	}
	if (p->rank == b && !rc)
		v[0] = (double)(iters - 1) * n * sizeof(float) / (double)(lp_now_ns() - t0);
	v[1] = rc ? 1 : 0;
	if (rc != -ETIMEDOUT)
		free(buf);
	if (world_reduce(p, v, out, 2, MPI_SUM))
		return -ETIMEDOUT;
	*gbs_p = out[0];
	return out[1] ? -EIO : 0;
}

/* One ordered pair alone: an lp-rdma retest through the engine (its cells join the run), else a stream. */
static int exec_edge(struct phase *p, const int32_t *cmd, double *gbs_p)
{
	int32_t pair[2] = { cmd[4], cmd[5] };
	size_t from = p->run->ncells;
	int rc;

	if (!p->have_sweep)
		return stream_pair(p, cmd[4], cmd[5], gbs_p);
	rc = lp_sweep_engine_pairs(p->x, p->scfg, p->run, pair, 1);
	*gbs_p = NAN;
	for (size_t i = from; !p->rank && i < p->run->ncells; i++) {
		const struct lp_sweep_att *c = &p->run->cells[i];

		if (c->metric == p->L.metric && c->a == cmd[4] && c->b == cmd[5])
			*gbs_p = c->status ? 0 : c->value / 8; /* Gb/s -> GB/s; failed: 0 */
	}
	return rc;
}

/* A follower's loop: serve rank 0's probes until it says done. */
static int serve(struct phase *p)
{
	for (;;) {
		int32_t cmd[CMD_LEN] = { 0 };
		double v;
		int rc = cmd_bcast(p, cmd);

		if (rc || cmd[0] == CMD_DONE)
			return rc;
		if (cmd[1] < 0 || cmd[1] >= p->ng)
			return -EPROTO;
		rc = cmd[0] == CMD_RING ? exec_ring(p, cmd, &v) : exec_edge(p, cmd, &v);
		if (rc == -ETIMEDOUT)
			return rc;
	}
}

struct lead {
	struct phase *p;
	int gi;
};

static int lead_ring(void *arg, const int *nodes, int k, double *busbw_p)
{
	struct lead *l = arg;
	const struct lp_coll_group *g = &l->p->g[l->gi];
	int32_t cmd[CMD_LEN] = { CMD_RING, l->gi, group_rank(g, nodes[0]), k, -1, -1 };
	int rc;

	for (int i = 0; i < k; i++) /* the bisection's parts are runs of the group's order */
		if (cmd[2] < 0 || cmd[2] + i >= g->n || g->ranks[cmd[2] + i] != nodes[i])
			return -EINVAL;
	rc = cmd_bcast(l->p, cmd);
	return rc ? rc : exec_ring(l->p, cmd, busbw_p);
}

static int lead_edge(void *arg, int a, int b, double *gbs_p)
{
	struct lead *l = arg;
	int32_t cmd[CMD_LEN] = { CMD_EDGE, l->gi, 0, 0, a, b };
	int rc = cmd_bcast(l->p, cmd);

	return rc ? rc : exec_edge(l->p, cmd, gbs_p);
}

static const struct lp_coll_probe_ops lead_ops = { lead_ring, lead_edge };

/* Group g's measured all-reduce busbw at its largest size, out of place: ring, else MPI, else NCCL. */
static double measured(const struct lp_coll_run *cr, const char *group)
{
	double best[LP_COLL_NPATHS] = { NAN, NAN, NAN, NAN };
	uint64_t size[LP_COLL_NPATHS] = { 0 };

	for (size_t i = 0; i < cr->nres; i++) {
		const struct lp_coll_result *r = &cr->res[i];
		int path = lp_choice_index(lp_coll_path_names, r->path);

		if (path < 0 || r->in_place || r->status || strcmp(r->coll, "allreduce") ||
		    strcmp(r->group, group) || r->size < size[path])
			continue;
		size[path] = r->size;
		best[path] = r->busbw;
	}
	return isfinite(best[LP_COLL_PATH_RING])  ? best[LP_COLL_PATH_RING]
	       : isfinite(best[LP_COLL_PATH_MPI]) ? best[LP_COLL_PATH_MPI]
						  : best[LP_COLL_PATH_NCCL];
}

/* The reference of a rail: the median busbw of the other rails (NaN: none, or not rails). */
static double rails_reference(const struct phase *p, int gi)
{
	double v[64];
	int n = 0;

	for (int k = 1; gi > 0 && k < p->ng && n < 64; k++)
		if (k != gi && isfinite(measured(p->run->coll, p->g[k].name)))
			v[n++] = measured(p->run->coll, p->g[k].name);
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n ? v[n / 2] : NAN;
}

/* Rank 0, group gi: targeted retests where the ceiling names slow edges, else the bisection. */
static int lead_group(struct phase *p, int gi)
{
	const struct lp_coll_group *g = &p->g[gi];
	const struct lp_coll_ceiling *c =
		lp_coll_run_ceiling(p->run->coll, "allreduce", "ring", g->name);
	struct lp_coll_bisect_opts o = p->cfg->bo;
	struct lead l = { p, gi };
	struct lp_coll_verdict v;
	double meas = measured(p->run->coll, g->name), ref = rails_reference(p, gi);
	uint64_t t0 = lp_now_ns();
	int rc = 0;
	bool slow, targeted = c && p->L.metric >= 0 && p->cfg->bisect != LP_COLL_BISECT_BLIND;

	o.names = p->L.names;
	if (g->n < 2)
		return 0;
	if (targeted)
		rc = lp_coll_targeted(&p->L.f, g->ranks, g->n, c, &lead_ops, &l, &o, &v);
	if (!rc && targeted && strcmp(v.kind, "none"))
		goto keep;
	slow = p->cfg->bisect == LP_COLL_BISECT_ALWAYS || p->cfg->bisect == LP_COLL_BISECT_BLIND ||
	       meas < p->cfg->floor || (c && meas < p->cfg->limit_ratio * c->busbw) ||
	       meas < o.ratio * ref;
	if (rc || !slow)
		return rc;
	o.ref_busbw = isfinite(p->cfg->floor) ? p->cfg->floor : ref;
	rc = lp_coll_bisect(g->n, g->ranks, &lead_ops, &l, &o, &v);
	if (rc && rc != -EINTR)
		return rc;
keep:
	snprintf(v.coll, sizeof(v.coll), "allreduce");
	snprintf(v.group, sizeof(v.group), "%s", g->name);
	v.wall_s = (double)(lp_now_ns() - t0) / 1e9;
	lp_coll_run_add_verdict(p->run->coll, &v);
	if (p->have_sweep) {
		lp_sweep_journal_record(p->scfg->journal, "coll_verdict", &lp_coll_verdict_record,
					&v);
		lp_sweep_journal_sync(p->scfg->journal);
	}
	if (p->cfg->progress)
		fprintf(p->cfg->progress,
			"lp-sweep: collective search over %s: %s%s%s%s%s (%d probes, %.1f s)\n",
			g->name, v.kind, v.a_name[0] ? " " : "", v.a_name, v.b >= 0 ? " -> " : "",
			v.b_name, v.probes, v.wall_s);
	return rc;
}

static int search(struct phase *p)
{
	int32_t done[CMD_LEN] = { CMD_DONE, 0, 0, 0, 0, 0 };
	int rc = 0, rc2;

	if (p->cfg->bisect == LP_COLL_BISECT_NEVER || !(p->cfg->colls >> LP_COLL_ALLREDUCE & 1))
		return 0;
	if (p->rank)
		return serve(p);
	for (int gi = 0; gi < p->ng && !rc && !p->stopped; gi++)
		rc = lead_group(p, gi);
	rc2 = cmd_bcast(p, done);
	return rc ? rc : rc2;
}

/* ---- the phase ---- */

static void echo(const struct phase *p, struct lp_coll_echo *e)
{
	char lib[MPI_MAX_LIBRARY_VERSION_STRING];
	int len = 0, n = 0;

	for (int k = 0; k < LP_COLL_NKINDS; k++)
		if (p->cfg->colls >> k & 1)
			n += snprintf(e->colls + n, sizeof(e->colls) - (size_t)n, "%s%s",
				      n ? "," : "", lp_coll_names[k]);
	n = 0;
	for (int k = 0; k < LP_COLL_PATH_IMPORT; k++)
		if (p->cfg->paths >> k & 1)
			n += snprintf(e->paths + n, sizeof(e->paths) - (size_t)n, "%s%s",
				      n ? "," : "", lp_coll_path_names[k]);
	n = 0;
	for (unsigned i = 0; i < p->cfg->sizes.n && n < (int)sizeof(e->sizes); i++)
		n += snprintf(e->sizes + n, sizeof(e->sizes) - (size_t)n, "%s%llu", i ? "," : "",
			      (unsigned long long)p->cfg->sizes.v[i]);
	e->warmup = p->cfg->warmup;
	e->iters = p->cfg->iters;
	e->check = p->cfg->check && !p->model;
	MPI_Get_library_version(lib, &len);
	lib[strcspn(lib, "\n,")] = 0;
	snprintf(e->mpi_library, sizeof(e->mpi_library), "%s", lib);
	snprintf(e->intra, sizeof(e->intra), "%s", p->cfg->intra ? p->cfg->intra : "");
	if (p->model)
		snprintf(
			e->note, sizeof(e->note),
			"the model transport: every figure drawn from %.100s (each link of its "
			"scheme a fresh draw, the slowest holds it), no data moved or checked; NCCL "
			"not modelled",
			p->run->model);
}

/* Rank 0: the links beside the measured collectives (without them: no search, a warning). */
static int ceilings(struct phase *p)
{
	struct lp_fail why = { 0 };
	int rc = lp_sweep_coll_links(p->run, p->cfg->intra, &p->L, &why);

	if (rc) {
		lp_warn("collectives: %s",
			lp_fail_msg(&why)[0] ? lp_fail_msg(&why) : strerror(-rc));
		p->L.metric = -1;
		return rc;
	}
	return lp_sweep_coll_ceilings(p->run, &p->L);
}

int lp_sweep_coll_phase(struct lp_sweep_mpi *x, const struct lp_sweep_cfg *scfg,
			const struct lp_coll_cfg *cfg, struct lp_sweep_run *run, bool have_sweep)
{
	struct phase p = { .x = x,
			   .scfg = scfg,
			   .cfg = cfg,
			   .run = run,
			   .have_sweep = have_sweep,
			   .comm = MPI_COMM_NULL };
	uint64_t t0 = lp_now_ns();
	double bad, any;
	int rc;

	if (!x->rank && !run->coll && !(run->coll = lp_coll_run_new()))
		return -ENOMEM;
	rc = setup(&p);
	if (!rc && !p.rank) {
		echo(&p, &run->coll->echo);
		run->coll->limit_ratio = cfg->limit_ratio;
	}
	if (!rc)
		rc = measure_all(&p);
	/* rank 0's ceilings: every rank learns whether the search can lead */
	bad = !rc && !p.rank ? ceilings(&p) != 0 : 0;
	if (!rc && !world_reduce(&p, &bad, &any, 1, MPI_SUM) && !any && !p.stopped)
		rc = search(&p);
	if (!p.rank)
		run->coll->echo.wall_s = (double)(lp_now_ns() - t0) / 1e9;
	teardown(&p);
	return rc ? rc : p.stopped ? -EINTR : 0;
}

/* The bits of each item of a comma list in names[]. */
static int list_bits(const char *list, const char *const *names, unsigned *bits_p)
{
	char buf[256];
	const char *items[32];
	int n;

	*bits_p = 0;
	if (lp_split_list(list, buf, sizeof(buf), items, 32, &n))
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		int k = lp_choice_index(names, items[i]);

		if (k < 0)
			return -EINVAL;
		*bits_p |= 1u << k;
	}
	return 0;
}

int lp_coll_cfg_from_opts(const struct lp_coll_opts *o, struct lp_coll_cfg *cfg, struct lp_fail *f)
{
	*cfg = (struct lp_coll_cfg){
		.sizes = o->sizes,
		.warmup = (int)o->warmup,
		.iters = (int)o->iters,
		.check = !o->nocheck,
		.timeout_s = o->timeout_s,
		.cuda_dev = -1,
		.intra = o->intra,
		.floor = o->floor > 0 ? o->floor : NAN,
		.limit_ratio = o->limit,
		.bisect = o->bisect,
	};
	lp_coll_bisect_opts_default(&cfg->bo);
	cfg->bo.ratio = o->ratio;
	cfg->bo.max_probes = (int)o->probes;
	if (list_bits(o->colls ? o->colls : "", lp_coll_names, &cfg->colls) ||
	    list_bits(o->paths ? o->paths : "", lp_coll_paths_choices, &cfg->paths))
		return lp_fail_set(f, -EINVAL, "--collective and --coll-paths take comma lists");
	if (!cfg->sizes.n)
		return lp_fail_set(f, -EINVAL, "--coll-sizes: no size");
	return 0;
}
