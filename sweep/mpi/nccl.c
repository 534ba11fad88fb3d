// SPDX-License-Identifier: MIT
/*
 * NCCL for the collective phase, loaded at run time: libnccl.so.2 is opened
 * with dlopen and its calls resolved by name (their C signatures are NCCL's
 * stable API; ncclFloat = 7, ncclSum = 0), so that NCCL is no build
 * dependency and a host without it runs everything else. The CUDA runtime is
 * linked statically where CUDA was found at build time (Makefile).
 */
#include "sweep/mpi/coll_mpi.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#ifdef LP_HAVE_CUDA
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <sched.h>

#include "common/clock.h"
#include "common/lp.h"

#define NCCL_FLOAT	 7
#define NCCL_SUM	 0
#define NCCL_IN_PROGRESS 7

typedef struct {
	char internal[128];
} nccl_id;
typedef void *nccl_comm;
typedef int nccl_res;

struct lp_coll_nccl {
	void *lib;
	int dev, rank, nranks;
	MPI_Comm mpi;
	cudaStream_t stream;
	nccl_comm comm;
	bool broken; /* aborted after a timeout or an error: nothing more runs on it */
	char version[32];
	float *send, *recv; /* device buffers of the current size */
	size_t cap;	    /* floats each holds */
	nccl_res (*get_version)(int *);
	nccl_res (*get_unique_id)(nccl_id *);
	nccl_res (*init_rank)(nccl_comm *, int, nccl_id, int);
	nccl_res (*init_config)(nccl_comm *, int, nccl_id, int, void *); /* 2.14 on; NULL before */
	nccl_res (*destroy)(nccl_comm);
	nccl_res (*abort)(nccl_comm);
	nccl_res (*async_error)(nccl_comm, nccl_res *);
	const char *(*error_string)(nccl_res);
	nccl_res (*all_reduce)(const void *, void *, size_t, int, int, nccl_comm, cudaStream_t);
	nccl_res (*all_gather)(const void *, void *, size_t, int, nccl_comm, cudaStream_t);
	nccl_res (*reduce_scatter)(const void *, void *, size_t, int, int, nccl_comm, cudaStream_t);
	nccl_res (*broadcast)(const void *, void *, size_t, int, int, nccl_comm, cudaStream_t);
	nccl_res (*reduce)(const void *, void *, size_t, int, int, int, nccl_comm, cudaStream_t);
	nccl_res (*send_)(const void *, size_t, int, int, nccl_comm, cudaStream_t);
	nccl_res (*recv_)(void *, size_t, int, int, nccl_comm, cudaStream_t);
	nccl_res (*group_start)(void);
	nccl_res (*group_end)(void);
};

/* Every symbol, by name: NULL when libnccl lacks one (*missing names it). */
static bool resolve(struct lp_coll_nccl *n, const char **missing)
{
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
#define SYM(f, s) { s, offsetof(struct lp_coll_nccl, f) }
		SYM(get_version, "ncclGetVersion"),
		SYM(get_unique_id, "ncclGetUniqueId"),
		SYM(init_rank, "ncclCommInitRank"),
		SYM(destroy, "ncclCommDestroy"),
		SYM(abort, "ncclCommAbort"),
		SYM(async_error, "ncclCommGetAsyncError"),
		SYM(error_string, "ncclGetErrorString"),
		SYM(all_reduce, "ncclAllReduce"),
		SYM(all_gather, "ncclAllGather"),
		SYM(reduce_scatter, "ncclReduceScatter"),
		SYM(broadcast, "ncclBroadcast"),
		SYM(reduce, "ncclReduce"),
		SYM(send_, "ncclSend"),
		SYM(recv_, "ncclRecv"),
		SYM(group_start, "ncclGroupStart"),
		SYM(group_end, "ncclGroupEnd"),
#undef SYM
	};

	for (size_t i = 0; i < LP_ARRAY_SIZE(syms); i++) {
		void *f = dlsym(n->lib, syms[i].name);

		if (!f) {
			*missing = syms[i].name;
			return false;
		}
		memcpy((char *)n + syms[i].off, &f, sizeof(f));
	}
	return true;
}

static int load(struct lp_coll_nccl *n, struct lp_fail *f)
{
	const char *path = getenv("LP_NCCL_LIBRARY"), *missing = NULL;
	int v = 0;

	n->lib = dlopen(path && *path ? path : "libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
	if (!n->lib)
		return lp_fail_set(f, -ENOENT, "cannot load NCCL (%s): %s",
				   path && *path ? path : "libnccl.so.2", dlerror());
	if (!resolve(n, &missing))
		return lp_fail_set(f, -ENOENT, "this libnccl has no %s", missing);
	n->init_config = dlsym(n->lib, "ncclCommInitRankConfig"); /* optional */
	n->get_version(&v);
	if (v >= 10000)
		snprintf(n->version, sizeof(n->version), "%d.%d.%d", v / 10000, v % 10000 / 100,
			 v % 100);
	else
		snprintf(n->version, sizeof(n->version), "%d.%d.%d", v / 1000, v % 1000 / 100,
			 v % 100);
	return 0;
}

static int nccl_fail(struct lp_coll_nccl *n, nccl_res r, const char *call, struct lp_fail *f)
{
	return lp_fail_set(f, -EIO, "%s: %s", call, n->error_string(r));
}

/*
 * ncclConfig_t as NCCL 2.14 defined it, up to `blocking`: NCCL reads a config
 * by its size and version (parseCommConfig), the fields it lacks keep their
 * defaults. Non-blocking, so that the initialisation has a deadline.
 */
struct nccl_config {
	size_t size;
	unsigned int magic, version;
	int blocking;
};

/* The communicator, initialised without blocking where NCCL can (then polled up to the deadline). */
static int init_comm(struct lp_coll_nccl *n, const nccl_id *id, uint64_t deadline,
		     struct lp_fail *f)
{
	struct nccl_config cfg = { sizeof(cfg), 0xcafebeef, 21400, 0 };
	nccl_res r, st = NCCL_IN_PROGRESS;

	if (!n->init_config) {
		r = n->init_rank(&n->comm, n->nranks, *id, n->rank);
		return r ? nccl_fail(n, r, "ncclCommInitRank", f) : 0;
	}
	r = n->init_config(&n->comm, n->nranks, *id, n->rank, &cfg);
	if (r && r != NCCL_IN_PROGRESS)
		return nccl_fail(n, r, "ncclCommInitRankConfig", f);
	while (n->comm && !n->async_error(n->comm, &st) && st == NCCL_IN_PROGRESS &&
	       lp_now_ns() < deadline)
		sched_yield();
	if (st == 0)
		return 0;
	if (n->comm) {
		n->broken = true; /* aborted on close */
		lp_fail_set(
			f, st == NCCL_IN_PROGRESS ? -ETIMEDOUT : -EIO, "ncclCommInitRankConfig: %s",
			st == NCCL_IN_PROGRESS ? "not done by the deadline" : n->error_string(st));
	}
	return st == NCCL_IN_PROGRESS ? -ETIMEDOUT : -EIO;
}

/* This rank's library, GPU and stream. */
static int start(struct lp_coll_nccl *n, struct lp_fail *f)
{
	int rc = load(n, f);
	cudaError_t ce = rc ? cudaSuccess : cudaSetDevice(n->dev);

	if (!rc && ce == cudaSuccess)
		ce = cudaStreamCreateWithFlags(&n->stream, cudaStreamNonBlocking);
	if (!rc && ce != cudaSuccess)
		rc = lp_fail_set(f, -ENODEV, "GPU %d: %s", n->dev, cudaGetErrorString(ce));
	return rc;
}

int lp_coll_nccl_open(struct lp_coll_nccl **n_p, int dev, MPI_Comm comm, uint64_t deadline_ns,
		      struct lp_fail *f)
{
	struct lp_coll_nccl *n = calloc(1, sizeof(*n));
	int bad, any = 1, rc;
	nccl_id id;
	MPI_Request req;
	nccl_res r;

	*n_p = NULL;
	if (!n)
		return -ENOMEM;
	n->dev = dev;
	n->mpi = comm;
	MPI_Comm_rank(comm, &n->rank);
	MPI_Comm_size(comm, &n->nranks);
	rc = start(n, f);
	/* every rank started, or none goes on: a communicator waits for all of its ranks */
	bad = rc != 0;
	if (MPI_Iallreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm, &req) != MPI_SUCCESS ||
	    lp_mpi_wait(&req, NULL, deadline_ns, 20000))
		any = 1;
	if (!rc && any)
		rc = lp_fail_set(f, -ECANCELED, "another rank could not start NCCL");
	memset(&id, 0, sizeof(id));
	if (!rc && n->rank == 0 && (r = n->get_unique_id(&id)))
		rc = nccl_fail(n, r, "ncclGetUniqueId", f);
	if (!any && (MPI_Ibcast(&id, sizeof(id), MPI_BYTE, 0, comm, &req) != MPI_SUCCESS ||
		     lp_mpi_wait(&req, NULL, deadline_ns, 20000))) {
		lp_fail_set(f, -ETIMEDOUT, "the NCCL id did not reach every rank in time");
		rc = rc ? rc : -ETIMEDOUT;
	}
	if (!rc)
		rc = init_comm(n, &id, deadline_ns, f);
	if (rc) {
		lp_coll_nccl_close(n);
		return rc;
	}
	*n_p = n;
	return 0;
}

void lp_coll_nccl_close(struct lp_coll_nccl *n)
{
	if (!n)
		return;
	if (n->comm)
		(n->broken ? n->abort : n->destroy)(n->comm);
	cudaFree(n->send);
	cudaFree(n->recv);
	if (n->stream)
		cudaStreamDestroy(n->stream);
	if (n->lib)
		dlclose(n->lib);
	free(n);
}

const char *lp_coll_nccl_version(const struct lp_coll_nccl *n)
{
	return n ? n->version : "";
}

/* The stream's work done, NCCL's errors watched, the deadline kept (then the communicator is
 * aborted: a hung collective must not hold the rank). */
static int stream_wait(struct lp_coll_nccl *n, uint64_t deadline)
{
	for (unsigned i = 0;; i++) {
		cudaError_t e = cudaStreamQuery(n->stream);
		nccl_res ae = 0;

		if (e == cudaSuccess)
			return 0;
		if (e != cudaErrorNotReady)
			return -EIO;
		if ((i & 255) != 255)
			continue;
		n->async_error(n->comm, &ae);
		if ((ae && ae != NCCL_IN_PROGRESS) || lp_now_ns() >= deadline) {
			n->broken = true;
			n->abort(n->comm);
			n->comm = NULL;
			return ae ? -EIO : -ETIMEDOUT;
		}
		sched_yield();
	}
}

/* Device buffers of at least count floats each. */
static int reserve(struct lp_coll_nccl *n, size_t count)
{
	if (count <= n->cap)
		return 0;
	cudaFree(n->send);
	cudaFree(n->recv);
	n->send = n->recv = NULL;
	n->cap = 0;
	if (cudaMalloc((void **)&n->send, count * sizeof(float)) != cudaSuccess ||
	    cudaMalloc((void **)&n->recv, count * sizeof(float)) != cudaSuccess)
		return -ENOMEM;
	n->cap = count;
	return 0;
}

static nccl_res launch_one(struct lp_coll_nccl *n, int k, const struct lp_coll_shape *s, bool ip);

/*
 * One operation queued. A non-blocking communicator may answer "in
 * progress" (a connection it makes on first use): wait for it, to the deadline.
 */
static int launch(struct lp_coll_nccl *n, int k, const struct lp_coll_shape *s, bool ip,
		  uint64_t deadline)
{
	nccl_res r = launch_one(n, k, s, ip), st = r;

	while (st == NCCL_IN_PROGRESS && lp_now_ns() < deadline && !n->async_error(n->comm, &st))
		sched_yield();
	return st ? -EIO : 0;
}

/* One operation of k queued on the stream (in place as nccl-tests places it). */
static nccl_res launch_one(struct lp_coll_nccl *n, int k, const struct lp_coll_shape *s, bool ip)
{
	size_t base = s->param_count, me = (size_t)n->rank;
	const float *sb = ip ? n->recv : n->send;
	nccl_res r = 0;

	switch (k) {
	case LP_COLL_ALLREDUCE:
		return n->all_reduce(sb, n->recv, base, NCCL_FLOAT, NCCL_SUM, n->comm, n->stream);
	case LP_COLL_ALLGATHER:
		return n->all_gather(ip ? n->recv + me * base : n->send, n->recv, base, NCCL_FLOAT,
				     n->comm, n->stream);
	case LP_COLL_REDUCESCATTER:
		return n->reduce_scatter(sb, ip ? n->recv + me * base : n->recv, base, NCCL_FLOAT,
					 NCCL_SUM, n->comm, n->stream);
	case LP_COLL_BROADCAST:
		return n->broadcast(sb, n->recv, base, NCCL_FLOAT, 0, n->comm, n->stream);
	case LP_COLL_REDUCE:
		return n->reduce(sb, n->recv, base, NCCL_FLOAT, NCCL_SUM, 0, n->comm, n->stream);
	default: /* alltoall and sendrecv: point-to-point in a group, as nccl-tests */
		n->group_start();
		for (int p = 0; p < n->nranks && !r; p++) {
			bool all = k == LP_COLL_ALLTOALL;
			int to = all ? p : (n->rank + 1) % n->nranks,
			    from = all ? p : (n->rank - 1 + n->nranks) % n->nranks;

			r = n->send_(n->send + (all ? (size_t)p * base : 0), base, NCCL_FLOAT, to,
				     n->comm, n->stream);
			if (!r)
				r = n->recv_(n->recv + (all ? (size_t)p * base : 0), base,
					     NCCL_FLOAT, from, n->comm, n->stream);
			if (!all)
				break;
		}
		{
			nccl_res e = n->group_end();

			return r ? r : e;
		}
	}
}

/* The rank's pattern onto the device, placed as nccl-tests places in-place data. */
static int prepare(struct lp_coll_nccl *n, int k, const struct lp_coll_shape *s, bool ip,
		   float *host)
{
	size_t off = ip && k == LP_COLL_ALLGATHER ? (size_t)n->rank * s->param_count : 0;
	size_t cnt = ip && k == LP_COLL_ALLGATHER ? s->param_count : s->send_count;

	lp_coll_fill(n->rank, s, host);
	if (cudaMemset(n->recv, 0, n->cap * sizeof(float)) != cudaSuccess ||
	    cudaMemcpy(ip ? n->recv + off : n->send, host, cnt * sizeof(float),
		       cudaMemcpyHostToDevice) != cudaSuccess)
		return -EIO;
	return 0;
}

/* One more operation, its result compared with lp_coll_check's on the host. */
static int check(struct lp_coll_nccl *n, int k, const struct lp_coll_shape *s, bool ip,
		 uint64_t deadline, float *host, int64_t *wrong_p)
{
	size_t off = ip && k == LP_COLL_REDUCESCATTER ? (size_t)n->rank * s->param_count : 0;
	int rc = prepare(n, k, s, ip, host);

	if (!rc)
		rc = launch(n, k, s, ip, deadline);
	if (!rc)
		rc = stream_wait(n, deadline);
	if (!rc &&
	    cudaMemcpy(host, n->recv + off, (s->recv_count ? s->recv_count : 1) * sizeof(float),
		       cudaMemcpyDeviceToHost) != cudaSuccess)
		rc = -EIO;
	if (!rc)
		*wrong_p = lp_coll_check(k, n->rank, n->nranks, 0, s, host);
	return rc;
}

int lp_coll_nccl_measure(struct lp_coll_nccl *n, enum lp_coll_kind k, const struct lp_coll_shape *s,
			 bool in_place, int warmup, int iters, bool check_it, uint64_t deadline_ns,
			 double *sec_p, int64_t *wrong_p)
{
	size_t cnt = LP_MAX(LP_MAX(s->send_count, s->recv_count), 1);
	float *host = malloc(cnt * sizeof(float));
	MPI_Request bar;
	uint64_t t0;
	int rc = n->broken || !n->comm ? -EIO : reserve(n, cnt);

	*wrong_p = -1;
	if (!rc && !host)
		rc = -ENOMEM;
	if (!rc && k == LP_COLL_ALLTOALL && in_place)
		rc = -ENOTSUP; /* its point-to-point group would overwrite what it still sends */
	if (!rc)
		rc = prepare(n, k, s, in_place, host);
	for (int i = 0; i < warmup && !rc; i++)
		rc = launch(n, k, s, in_place, deadline_ns);
	if (!rc)
		rc = stream_wait(n, deadline_ns);
	/* every rank starts the timed iterations together (nccl-tests' barrier) */
	if (!rc &&
	    (MPI_Ibarrier(n->mpi, &bar) != MPI_SUCCESS || lp_mpi_wait(&bar, NULL, deadline_ns, 0)))
		rc = -ETIMEDOUT;
	t0 = lp_now_ns();
	for (int i = 0; i < iters && !rc; i++)
		rc = launch(n, k, s, in_place, deadline_ns);
	if (!rc)
		rc = stream_wait(n, deadline_ns);
	*sec_p = (double)(lp_now_ns() - t0) / 1e9 / iters;
	if (!rc && check_it)
		rc = check(n, k, s, in_place, deadline_ns, host, wrong_p);
	free(host);
	return rc;
}

#else /* no CUDA in this build */

int lp_coll_nccl_open(struct lp_coll_nccl **n_p, int dev, MPI_Comm comm, uint64_t deadline_ns,
		      struct lp_fail *f)
{
	(void)dev;
	(void)comm;
	(void)deadline_ns;
	*n_p = NULL;
	return lp_fail_set(f, -ENOTSUP, "this lp-sweep was built without CUDA: no NCCL path");
}

void lp_coll_nccl_close(struct lp_coll_nccl *n)
{
	(void)n;
}

const char *lp_coll_nccl_version(const struct lp_coll_nccl *n)
{
	(void)n;
	return "";
}

int lp_coll_nccl_measure(struct lp_coll_nccl *n, enum lp_coll_kind k, const struct lp_coll_shape *s,
			 bool in_place, int warmup, int iters, bool check, uint64_t deadline_ns,
			 double *sec_p, int64_t *wrong_p)
{
	(void)n, (void)k, (void)s, (void)in_place, (void)warmup, (void)iters, (void)check;
	(void)deadline_ns;
	*sec_p = 0;
	*wrong_p = -1;
	return -ENOTSUP;
}
#endif
