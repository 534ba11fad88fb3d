// SPDX-License-Identifier: MIT
/*
 * lp-gpu measurements. Method (docs/METHOD.md, "lp-gpu"): per sample, a spin
 * kernel holds every stream involved while the warm-up copies, a start event,
 * the timed copies and a stop event are queued behind it; the CPU then
 * releases the flag, so the enqueue cost never lands inside the events. The
 * kernel gives up after hold_timeout_s (%globaltimer), so nothing can hang the
 * GPU; a sample whose hold timed out is an error, not a number. The median of
 * the samples is reported with min and max; after the timed region every
 * byte of every destination is checked against its own source's pattern.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "common/clock.h"
#include "common/fail.h"
#include "common/lp.h"
#include "common/pattern.h"
#include "common/stats.h"
#include "common/units.h"
#include "gpu/cudautil.h"
#include "gpu/gpu.h"
#include "gpu/kern.h"
#include "gpu/nvml.h"

#define LP_GPU_SAMPLES_MAX 64
#define LP_CHASE_BYTES	   LP_GPU_CHASE_BYTES
#define LP_CHASE_STRIDE	   256u /* bytes between chain entries (separate sectors and lines) */
#define LP_POISON	   0xA5A5A5A5u

struct lp_gpu_devstate {
	bool ready, host_ready;
	cudaStream_t st[LP_GPU_MAX];
	cudaEvent_t ev_start[LP_GPU_MAX], ev_stop[LP_GPU_MAX];
	void *da, *db; /* device buffers, cap bytes each */
	void *ha, *hb; /* pinned, mapped, portable host buffers on the GPU's NUMA node */
	unsigned long long *scratch; /* device: [0] first bad offset, [1] chase end */
	unsigned blocks;	     /* SM copy grid */
};

struct lp_gpu_ctx {
	struct lp_gpu_params p;
	struct lp_gpu_topo *t;
	struct lp_gpu_devstate d[LP_GPU_MAX];
	volatile int *hold; /* host-mapped: [0] release, [1] a spin kernel timed out */
	size_t cap;	    /* bytes of each buffer */
	uint32_t seed;
};

/* One copy stream of a measurement. */
struct lp_job {
	int g;	    /* GPU (topology index) whose stream/engine/SMs do the copy */
	unsigned s; /* stream index on it */
	enum lp_gpu_method m;
	void *dst;
	const void *src;
	int gs, gd; /* GPUs that fill the source and verify the destination */
	bool rw;    /* count read + written bytes (device-local copy) */
};

static int lp_dev(const struct lp_gpu_ctx *c, int g)
{
	return c->t->gpu[g].cuda_dev;
}

static int lp_set(const struct lp_gpu_ctx *c, int g, struct lp_fail *f)
{
	return lp_cuda_check(cudaSetDevice(lp_dev(c, g)), "cudaSetDevice", lp_dev(c, g), f);
}

static int lp_ensure_dev(struct lp_gpu_ctx *c, int g, struct lp_fail *f)
{
	struct lp_gpu_devstate *d = &c->d[g];
	int dev = lp_dev(c, g), ret;

	if (d->ready)
		return 0;
	if ((ret = lp_set(c, g, f)))
		return ret;
	for (int i = 0; i < LP_GPU_MAX; i++) {
		if ((ret = lp_cuda_check(cudaStreamCreateWithFlags(&d->st[i], cudaStreamNonBlocking),
					 "cudaStreamCreateWithFlags", dev, f)) ||
		    (ret = lp_cuda_check(cudaEventCreate(&d->ev_start[i]), "cudaEventCreate", dev,
					 f)) ||
		    (ret = lp_cuda_check(cudaEventCreate(&d->ev_stop[i]), "cudaEventCreate", dev,
					 f)))
			return ret;
	}
	if ((ret = lp_cuda_check(cudaMalloc(&d->da, c->cap), "cudaMalloc", dev, f)) ||
	    (ret = lp_cuda_check(cudaMalloc(&d->db, c->cap), "cudaMalloc", dev, f)) ||
	    (ret = lp_cuda_check(cudaMalloc((void **)&d->scratch, 64), "cudaMalloc", dev, f)))
		return ret;
	d->blocks = (unsigned)(c->t->gpu[g].sm_count > 0 ? c->t->gpu[g].sm_count : 32) * 4;
	d->ready = true;
	return 0;
}

/* Pinned host memory placed on `node` (MPOL_PREFERRED while cudaHostAlloc pins and populates it). */
static int lp_host_alloc(void **p, size_t len, int node, int dev, struct lp_fail *f)
{
	unsigned long mask[16] = { 0 };
	bool bound = false;
	int ret;

	if (node >= 0 && node < (int)(sizeof(mask) * 8)) {
		mask[node / (8 * sizeof(long))] = 1ul << (node % (8 * sizeof(long)));
		bound = syscall(SYS_set_mempolicy, 1 /* MPOL_PREFERRED */, mask,
				sizeof(mask) * 8) == 0;
	}
	ret = lp_cuda_check(cudaHostAlloc(p, len, cudaHostAllocMapped | cudaHostAllocPortable),
			    "cudaHostAlloc", dev, f);
	if (bound)
		syscall(SYS_set_mempolicy, 0 /* MPOL_DEFAULT */, NULL, 0);
	return ret;
}

static int lp_ensure_host(struct lp_gpu_ctx *c, int g, struct lp_fail *f)
{
	struct lp_gpu_devstate *d = &c->d[g];
	int ret;

	if ((ret = lp_ensure_dev(c, g, f)))
		return ret;
	if (d->host_ready)
		return 0;
	if ((ret = lp_host_alloc(&d->ha, c->cap, c->t->gpu[g].numa_node, lp_dev(c, g), f)) ||
	    (ret = lp_host_alloc(&d->hb, c->cap, c->t->gpu[g].numa_node, lp_dev(c, g), f)))
		return ret;
	d->host_ready = true;
	return 0;
}

/* Read the current PCIe link of each GPU while H2D copies keep it out of its idle low-power state. */
static void lp_pcie_under_load(struct lp_gpu_ctx *c)
{
	struct lp_nvml *nv = NULL;
	char note[128];
	const size_t len = 64u << 20;

	lp_nvml_open(&nv, note, sizeof(note));
	for (int g = 0; g < c->t->n; g++) {
		struct lp_gpu_dev_info *gi = &c->t->gpu[g];
		void *h = NULL, *dv = NULL;
		unsigned gen = 0, width = 0;
		struct lp_fail lf = { 0 };
		int dev = gi->cuda_dev, ret;

		/* without them the link stays as probed: a warning, the run goes on */
		if (lp_set(c, g, &lf) ||
		    lp_cuda_check(cudaMalloc(&dv, len), "cudaMalloc", dev, &lf) ||
		    lp_cuda_check(cudaHostAlloc(&h, len, cudaHostAllocDefault), "cudaHostAlloc",
				  dev, &lf)) {
			lp_warn("%s", lp_fail_msg(&lf));
			goto next;
		}
		for (int i = 0; i < 32; i++)
			cudaMemcpyAsync(dv, h, len, cudaMemcpyHostToDevice, cudaStreamPerThread);
		lp_sleep_ms(10);
		ret = nv ? lp_nvml_pcie_current(nv, gi->bus_id, &gen, &width) : -ENOENT;
		if (ret)
			ret = lp_sysfs_pcie_current(gi->bus_id, &gen, &width);
		if (!ret) {
			gi->pcie.cur_gen = gen;
			gi->pcie.cur_width = width;
		}
		cudaStreamSynchronize(cudaStreamPerThread);
	next:
		if (h)
			cudaFreeHost(h);
		if (dv)
			cudaFree(dv);
	}
	lp_nvml_close(nv);
}

int lp_gpu_ctx_init(struct lp_gpu_ctx **ctx_p, const struct lp_gpu_params *p, struct lp_gpu_topo *t,
		    struct lp_fail *f)
{
	struct lp_gpu_ctx *c = calloc(1, sizeof(*c));
	void *hold = NULL;
	int ret;

	*ctx_p = NULL;
	if (!c)
		return -ENOMEM;
	c->p = *p;
	c->t = t;
	c->cap = LP_CHASE_BYTES;
	for (unsigned i = 0; i < p->sizes.n; i++)
		c->cap = LP_MAX(c->cap, (size_t)p->sizes.v[i]);
	c->seed = (uint32_t)lp_now_ns() | 1;
	if ((ret = lp_cuda_check(cudaSetDevice(t->gpu[0].cuda_dev), "cudaSetDevice",
				 t->gpu[0].cuda_dev, f)) ||
	    (ret = lp_cuda_check(cudaHostAlloc(&hold, 64,
					       cudaHostAllocMapped | cudaHostAllocPortable),
				 "cudaHostAlloc (hold flag)", t->gpu[0].cuda_dev, f))) {
		free(c);
		return ret;
	}
	c->hold = hold;
	memset(hold, 0, 64);
	/* Peer access for every pair that has it; a failure only waives that pair's cells. */
	for (int a = 0; a < t->n; a++) {
		for (int b = 0; b < t->n; b++) {
			cudaError_t e;

			if (a == b || !t->pair[a][b].p2p_access)
				continue;
			cudaSetDevice(t->gpu[a].cuda_dev);
			e = cudaDeviceEnablePeerAccess(t->gpu[b].cuda_dev, 0);
			if (e == cudaErrorPeerAccessAlreadyEnabled) {
				cudaGetLastError();
			} else if (e != cudaSuccess) { /* a warning: the run goes on without it */
				struct lp_fail pf = { 0 };

				lp_cuda_check(e, "cudaDeviceEnablePeerAccess", t->gpu[a].cuda_dev,
					      &pf);
				lp_warn("%s", lp_fail_msg(&pf));
				t->pair[a][b].p2p_access = false;
			}
		}
	}
	lp_pcie_under_load(c);
	lp_gpu_topo_model(t);
	*ctx_p = c;
	return 0;
}

void lp_gpu_ctx_free(struct lp_gpu_ctx *c)
{
	if (!c)
		return;
	for (int g = 0; g < c->t->n; g++) {
		struct lp_gpu_devstate *d = &c->d[g];

		cudaSetDevice(lp_dev(c, g));
		cudaDeviceSynchronize();
		for (int i = 0; i < LP_GPU_MAX; i++) {
			if (d->st[i])
				cudaStreamDestroy(d->st[i]);
			if (d->ev_start[i])
				cudaEventDestroy(d->ev_start[i]);
			if (d->ev_stop[i])
				cudaEventDestroy(d->ev_stop[i]);
		}
		cudaFree(d->da);
		cudaFree(d->db);
		cudaFree(d->scratch);
		if (d->ha)
			cudaFreeHost(d->ha);
		if (d->hb)
			cudaFreeHost(d->hb);
	}
	if (c->hold)
		cudaFreeHost((void *)c->hold);
	free(c);
}

/* ---- one measurement ---- */

/* blocks: the SM copy's grid; kernels running side by side on one GPU split its SMs. */
static cudaError_t lp_copy(const struct lp_gpu_ctx *c, const struct lp_job *j, uint64_t size,
			   unsigned blocks)
{
	cudaStream_t st = c->d[j->g].st[j->s];

	if (j->m == LP_GPU_CE)
		return cudaMemcpyAsync(j->dst, j->src, size, cudaMemcpyDefault, st);
	return lp_cu_copy(st, j->dst, j->src, size, blocks);
}

/*
 * The pattern seed of a job's source: the cell's seed (new for every cell, so
 * an earlier cell's data fails) and the source buffer, so jobs with distinct
 * sources carry distinct data and a copy that lands in another job's
 * destination fails; jobs that share a source (one_to_all) share its data.
 */
static uint32_t lp_job_seed(uint32_t cell_seed, const struct lp_job *j)
{
	return lp_pattern_seed(cell_seed, 0, 0, (uint64_t)(uintptr_t)j->src);
}

/*
 * Test-only fault injection (docs/METHOD.md, "Memory and verification"):
 * LP_FAULT_CORRUPT=BYTE[:JOB] flips one byte of job JOB's source before the
 * copies (the copies carry it); LP_FAULT_MISPLACE=JOB copies the next job's
 * source over job JOB's destination after them. Unset: nothing happens.
 */
static bool lp_fault(const char *name, unsigned long long *a, unsigned *job)
{
	const char *s = getenv(name);

	*a = 0;
	*job = 0;
	if (!s || sscanf(s, "%llu:%u", a, job) < 1)
		return false;
	lp_warn("%s=%s: injecting a fault for a test of verification", name, s);
	return true;
}

static int lp_fault_corrupt(struct lp_gpu_ctx *c, const struct lp_job *jobs, unsigned nj,
			    uint64_t size, struct lp_fail *f)
{
	unsigned long long b;
	unsigned k;
	uint8_t v;
	int ret;

	if (!lp_fault("LP_FAULT_CORRUPT", &b, &k) || k >= nj)
		return 0;
	b %= size;
	if ((ret = lp_set(c, jobs[k].gs, f)) ||
	    (ret = lp_cuda_check(cudaMemcpy(&v, (const uint8_t *)jobs[k].src + b, 1,
					    cudaMemcpyDefault),
				 "cudaMemcpy", lp_dev(c, jobs[k].gs), f)))
		return ret;
	v ^= 0xff;
	return lp_cuda_check(cudaMemcpy((uint8_t *)jobs[k].src + b, &v, 1, cudaMemcpyDefault),
			     "cudaMemcpy", lp_dev(c, jobs[k].gs), f);
}

static int lp_fault_misplace(struct lp_gpu_ctx *c, const struct lp_job *jobs, unsigned nj,
			     uint64_t size, struct lp_fail *f)
{
	unsigned long long k;
	unsigned unused;

	if (!lp_fault("LP_FAULT_MISPLACE", &k, &unused) || k >= nj || nj < 2)
		return 0;
	return lp_cuda_check(cudaMemcpy(jobs[k].dst, jobs[(k + 1) % nj].src, size,
					cudaMemcpyDefault),
			     "cudaMemcpy", lp_dev(c, jobs[k].gd), f);
}

/* Fill every source with its pattern, poison every destination. */
static int lp_prepare(struct lp_gpu_ctx *c, const struct lp_job *jobs, unsigned nj, uint64_t size,
		      uint32_t seed, struct lp_fail *f)
{
	int ret;

	for (unsigned i = 0; i < nj; i++) {
		const struct lp_job *j = &jobs[i];
		cudaStream_t st = c->d[j->gs].st[0];

		if ((ret = lp_set(c, j->gs, f)) ||
		    (ret = lp_cuda_check(lp_cu_fill(st, (void *)j->src, 0, size,
						    lp_job_seed(seed, j), c->d[j->gs].blocks),
					 "fill kernel", lp_dev(c, j->gs), f)) ||
		    (ret = lp_cuda_check(cudaStreamSynchronize(st), "cudaStreamSynchronize (fill)",
					 lp_dev(c, j->gs), f)))
			return ret;
		st = c->d[j->gd].st[0];
		if ((ret = lp_set(c, j->gd, f)) ||
		    (ret = lp_cuda_check(lp_cu_fill(st, j->dst, 0, size,
						    lp_job_seed(seed, j) ^ LP_POISON,
						    c->d[j->gd].blocks),
					 "fill kernel (poison)", lp_dev(c, j->gd), f)) ||
		    (ret = lp_cuda_check(cudaStreamSynchronize(st),
					 "cudaStreamSynchronize (poison)", lp_dev(c, j->gd), f)))
			return ret;
	}
	return lp_fault_corrupt(c, jobs, nj, size, f);
}

/* Every byte of every destination against its source's pattern; a mismatch names the test, size, job and byte. */
static int lp_verify(struct lp_gpu_ctx *c, const struct lp_gpu_test *t, const struct lp_job *jobs,
		     unsigned nj, uint64_t size, uint32_t seed, struct lp_fail *f)
{
	int ret;

	for (unsigned i = 0; i < nj; i++) {
		const struct lp_job *j = &jobs[i];
		struct lp_gpu_devstate *d = &c->d[j->gd];
		int dev = lp_dev(c, j->gd);
		unsigned long long bad = 0;

		if ((ret = lp_set(c, j->gd, f)) ||
		    (ret = lp_cuda_check(cudaMemsetAsync(d->scratch, 0xff, 8, d->st[0]),
					 "cudaMemsetAsync", dev, f)) ||
		    (ret = lp_cuda_check(lp_cu_verify(d->st[0], j->dst, 0, size,
						      lp_job_seed(seed, j), d->scratch, d->blocks),
					 "verify kernel", dev, f)) ||
		    (ret = lp_cuda_check(cudaMemcpyAsync(&bad, d->scratch, 8,
							 cudaMemcpyDeviceToHost, d->st[0]),
					 "cudaMemcpyAsync", dev, f)) ||
		    (ret = lp_cuda_check(cudaStreamSynchronize(d->st[0]),
					 "cudaStreamSynchronize (verify)", dev, f)))
			return ret;
		if (bad != ~0ull) {
			return lp_fail_set(
				f, -EILSEQ,
				"verification failed: %s size %llu, copy %u of %u (checked on GPU %d): destination "
				"byte offset %llu differs from its source",
				t->key, (unsigned long long)size, i, nj, dev, bad);
		}
	}
	return 0;
}

/*
 * Queue count copies of every job on its stream, then record its start event
 * (stop: its stop event) behind them.
 */
static int lp_queue(struct lp_gpu_ctx *c, const struct lp_job *jobs, unsigned nj, uint64_t size,
		    const unsigned *blocks, unsigned count, bool stop, struct lp_fail *f)
{
	int ret = 0;

	for (unsigned i = 0; i < nj && !ret; i++) {
		const struct lp_job *j = &jobs[i];
		struct lp_gpu_devstate *d = &c->d[j->g];
		int dev = lp_dev(c, j->g);

		if ((ret = lp_set(c, j->g, f)))
			break;
		for (unsigned k = 0; k < count && !ret; k++)
			ret = lp_cuda_check(lp_copy(c, j, size, blocks[i]),
					    j->m == LP_GPU_CE ? "cudaMemcpyAsync" : "copy kernel",
					    dev, f);
		if (!ret)
			ret = lp_cuda_check(cudaEventRecord(stop ? d->ev_stop[j->s]
								 : d->ev_start[j->s],
							    d->st[j->s]),
					    "cudaEventRecord", dev, f);
	}
	return ret;
}

/*
 * Run the jobs concurrently, samples times. gbs[i][s]: job i's rate in sample s;
 * agg[s]: all jobs together: with `window` (jobs on one device) the total bytes
 * over the span from the first start to the last stop, else the rates added.
 */
static int lp_measure(struct lp_gpu_ctx *c, const struct lp_job *jobs, unsigned nj, uint64_t size,
		      bool window, double (*gbs)[LP_GPU_SAMPLES_MAX], double *agg,
		      struct lp_fail *f)
{
	uint64_t tmo = (uint64_t)(c->p.hold_timeout_s * 1e9);
	unsigned blocks[LP_GPU_MAX];
	bool one_dev = true;
	int ret = 0;

	for (unsigned i = 1; i < nj; i++)
		one_dev &= jobs[i].g == jobs[0].g;
	for (unsigned i = 0; i < nj; i++) {
		unsigned share = 0;

		for (unsigned k = 0; k < nj; k++)
			share += jobs[k].g == jobs[i].g && jobs[k].m == LP_GPU_SM;
		blocks[i] = LP_MAX(1u, c->d[jobs[i].g].blocks / LP_MAX(1u, share));
	}
	for (unsigned s = 0; s < c->p.samples; s++) {
		double lo = 0, hi = 0, sum = 0, bytes = 0;

		c->hold[0] = 0;
		c->hold[1] = 0;
		__sync_synchronize();
		for (unsigned i = 0; i < nj && !ret; i++) {
			const struct lp_job *j = &jobs[i];
			int dev = lp_dev(c, j->g);

			if (!(ret = lp_set(c, j->g, f)))
				ret = lp_cuda_check(lp_cu_spin(c->d[j->g].st[j->s], c->hold, tmo,
							       c->hold + 1),
						    "spin kernel launch", dev, f);
		}
		if (!ret) /* the warm-up, then the timed copies, all behind the hold */
			ret = lp_queue(c, jobs, nj, size, blocks, c->p.warmup, false, f);
		if (!ret)
			ret = lp_queue(c, jobs, nj, size, blocks, c->p.iters, true, f);
		/* Release the hold whatever happened, then wait for every stream. */
		c->hold[0] = 1;
		__sync_synchronize();
		for (unsigned i = 0; i < nj; i++) {
			const struct lp_job *j = &jobs[i];
			int r2;

			cudaSetDevice(lp_dev(c, j->g));
			r2 = lp_cuda_check(cudaStreamSynchronize(c->d[j->g].st[j->s]),
					   "cudaStreamSynchronize", lp_dev(c, j->g), f);
			ret = ret ? ret : r2;
		}
		if (ret)
			return ret;
		if (c->hold[1]) {
			return lp_fail_set(
				f, -ETIMEDOUT,
				"spin kernel timed out after %.1f s before the copies were queued: sample invalid",
				c->p.hold_timeout_s);
		}
		for (unsigned i = 0; i < nj; i++) {
			const struct lp_job *j = &jobs[i];
			struct lp_gpu_devstate *d = &c->d[j->g];
			double b = (double)size * c->p.iters * (j->rw ? 2 : 1);
			float ms = 0, t0 = 0, t1 = 0;

			if ((ret = lp_cuda_check(cudaEventElapsedTime(&ms, d->ev_start[j->s],
								      d->ev_stop[j->s]),
						 "cudaEventElapsedTime", lp_dev(c, j->g), f)))
				return ret;
			gbs[i][s] = lp_gbytes_per_s(b, ms * 1e6);
			sum += gbs[i][s];
			bytes += b;
			if (one_dev) {
				cudaEventElapsedTime(&t0, d->ev_start[jobs[0].s],
						     d->ev_start[j->s]);
				cudaEventElapsedTime(&t1, d->ev_start[jobs[0].s], d->ev_stop[j->s]);
				lo = i ? LP_MIN(lo, t0) : t0;
				hi = i ? LP_MAX(hi, t1) : t1;
			}
		}
		agg[s] =
			window && one_dev && nj > 1 ? lp_gbytes_per_s(bytes, (hi - lo) * 1e6) : sum;
	}
	return 0;
}

static void lp_cell_ok(struct lp_gpu_cell *cell, const double *v, unsigned n, double ceiling,
		       bool verified)
{
	double mn = v[0], mx = v[0];

	for (unsigned i = 1; i < n; i++) {
		mn = LP_MIN(mn, v[i]);
		mx = LP_MAX(mx, v[i]);
	}
	cell->status = LP_GPU_OK;
	cell->med = lp_median(v, n);
	cell->min = mn;
	cell->max = mx;
	cell->samples = n;
	cell->ceiling = ceiling;
	cell->verified = verified;
}

static void lp_cell_set(struct lp_gpu_cell *cell, enum lp_gpu_status st, const char *reason)
{
	cell->status = st;
	snprintf(cell->reason, sizeof(cell->reason), "%s", reason);
}

/* Measure one cell of a bandwidth test: jobs run together; series 0..nseries-1 from jobs / the aggregate. */
static void lp_bw_cell(struct lp_gpu_ctx *c, struct lp_gpu_result *r, unsigned row, unsigned col,
		       const struct lp_job *jobs, unsigned nj, bool aggregate)
{
	const struct lp_gpu_test *t = r->test;
	double(*gbs)[LP_GPU_SAMPLES_MAX] = calloc(nj, sizeof(*gbs));
	double agg[LP_GPU_SAMPLES_MAX];
	struct lp_fail cf = { 0 };
	uint32_t seed = c->seed++;
	bool verified = false;
	int ret;

	if (!gbs) {
		lp_cell_set(lp_gpu_cell_at(r, 0, row, col), LP_GPU_ERROR, "out of memory");
		return;
	}
	ret = lp_prepare(c, jobs, nj, r->size, seed, &cf);
	if (!ret)
		ret = lp_measure(c, jobs, nj, r->size, aggregate, gbs, agg, &cf);
	if (!ret && !c->p.no_verify)
		ret = lp_fault_misplace(c, jobs, nj, r->size, &cf);
	if (!ret && !c->p.no_verify) {
		ret = lp_verify(c, t, jobs, nj, r->size, seed, &cf);
		verified = !ret;
	}
	for (unsigned s = 0; s < t->nseries; s++) {
		struct lp_gpu_cell *cell = lp_gpu_cell_at(r, s, row, col);
		const double *v = aggregate || s == 2 ? agg : gbs[s];

		if (ret)
			lp_cell_set(cell, LP_GPU_ERROR, lp_fail_msg(&cf));
		else
			lp_cell_ok(cell, v, c->p.samples, lp_gpu_ceiling(c->t, t, s, row, col),
				   verified);
	}
	free(gbs);
}

/* ---- latency: a pointer chase ---- */

static int lp_chase_build(void *region, size_t bytes, cudaStream_t st, struct lp_fail *f, int dev)
{
	unsigned n = (unsigned)(bytes / LP_CHASE_STRIDE);
	uint64_t *img = calloc(bytes, 1);
	unsigned *perm = malloc(n * sizeof(*perm));
	uint64_t x = 0x9E3779B97F4A7C15ull;
	int ret = -ENOMEM;

	if (!img || !perm)
		goto out;
	/* Sattolo's shuffle: one cycle through every entry, in an order no prefetcher follows. */
	for (unsigned i = 0; i < n; i++)
		perm[i] = i;
	for (unsigned i = n - 1; i > 0; i--) {
		unsigned k, tmp;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		k = (unsigned)(x % i);
		tmp = perm[i];
		perm[i] = perm[k];
		perm[k] = tmp;
	}
	for (unsigned i = 0; i < n; i++)
		img[(size_t)i * LP_CHASE_STRIDE / 8] =
			(uint64_t)(uintptr_t)region + (uint64_t)perm[i] * LP_CHASE_STRIDE;
	/* On the chase's own stream, waited for: a pageable cudaMemcpy may return before its DMA lands. */
	ret = lp_cuda_check(cudaMemcpyAsync(region, img, bytes, cudaMemcpyDefault, st),
			    "cudaMemcpyAsync (chain)", dev, f);
	if (!ret)
		ret = lp_cuda_check(cudaStreamSynchronize(st), "cudaStreamSynchronize (chain)", dev,
				    f);
out:
	free(img);
	free(perm);
	return ret;
}

static void lp_lat_cell(struct lp_gpu_ctx *c, struct lp_gpu_result *r, unsigned row, unsigned col,
			int g, void *region, size_t bytes)
{
	struct lp_gpu_devstate *d = &c->d[g];
	struct lp_gpu_cell *cell = lp_gpu_cell_at(r, 0, row, col);
	double ns[LP_GPU_SAMPLES_MAX];
	struct lp_fail cf = { 0 };
	int dev = lp_dev(c, g), ret;
	cudaStream_t st = d->st[0];
	uint64_t *cursor = (uint64_t *)d->scratch + 1, start;

	if ((ret = lp_set(c, g, &cf)) || (ret = lp_chase_build(region, bytes, st, &cf, dev)) ||
	    (ret = lp_set(c, g, &cf)))
		goto err;
	/* The cursor walks on across launches: warm-up and samples each touch lines not visited before. */
	start = (uint64_t)(uintptr_t)region;
	if ((ret = lp_cuda_check(cudaMemcpyAsync(cursor, &start, sizeof(start),
						 cudaMemcpyHostToDevice, st),
				 "cudaMemcpyAsync (cursor)", dev, &cf)) ||
	    (ret = lp_cuda_check(lp_cu_chase(st, cursor, LP_MIN(bytes / LP_CHASE_STRIDE / 8, 4096)),
				 "chase kernel", dev, &cf)))
		goto err;
	for (unsigned s = 0; s < c->p.samples; s++) {
		float ms = 0;

		if ((ret = lp_cuda_check(cudaEventRecord(d->ev_start[0], st), "cudaEventRecord",
					 dev, &cf)) ||
		    (ret = lp_cuda_check(lp_cu_chase(st, cursor, c->p.lat_iters), "chase kernel",
					 dev, &cf)) ||
		    (ret = lp_cuda_check(cudaEventRecord(d->ev_stop[0], st), "cudaEventRecord", dev,
					 &cf)) ||
		    (ret = lp_cuda_check(cudaEventSynchronize(d->ev_stop[0]),
					 "cudaEventSynchronize", dev, &cf)) ||
		    (ret = lp_cuda_check(cudaEventElapsedTime(&ms, d->ev_start[0], d->ev_stop[0]),
					 "cudaEventElapsedTime", dev, &cf)))
			goto err;
		ns[s] = ms * 1e6 / c->p.lat_iters;
	}
	lp_cell_ok(cell, ns, c->p.samples, 0, false);
	return;
err:
	lp_cell_set(cell, LP_GPU_ERROR, lp_fail_msg(&cf));
}

/*
 * Latency of GPU g's loads from GPU owner's memory. Device memory is coherent
 * at the owner's L2, so the chased region is 4x that L2 (and a fresh part of
 * it is walked in every sample): DRAM latency, not an L2 hit.
 */
static void lp_lat_dev_cell(struct lp_gpu_ctx *c, struct lp_gpu_result *r, unsigned row,
			    unsigned col, int g, int owner)
{
	size_t bytes = LP_MAX((size_t)LP_CHASE_BYTES, (size_t)c->t->gpu[owner].l2_bytes * 4);
	struct lp_fail cf = { 0 };
	void *region = NULL;

	bytes = (bytes + LP_CHASE_BYTES - 1) / LP_CHASE_BYTES * LP_CHASE_BYTES;
	r->size = bytes;
	if (lp_set(c, owner, &cf) ||
	    lp_cuda_check(cudaMalloc(&region, bytes), "cudaMalloc", lp_dev(c, owner), &cf)) {
		lp_cell_set(lp_gpu_cell_at(r, 0, row, col), LP_GPU_ERROR, lp_fail_msg(&cf));
		return;
	}
	lp_lat_cell(c, r, row, col, g, region, bytes);
	lp_set(c, owner, NULL);
	cudaFree(region);
}

/* ---- the tests ---- */

static void lp_waive_all(struct lp_gpu_result *r, const char *why)
{
	for (unsigned i = 0; i < r->test->nseries * r->nrows * r->ncols; i++)
		lp_cell_set(&r->cells[i], LP_GPU_WAIVED, why);
	snprintf(r->reason, sizeof(r->reason), "%s", why);
}

static void lp_error_cell(struct lp_gpu_result *r, unsigned row, unsigned col, const char *msg)
{
	for (unsigned s = 0; s < r->test->nseries; s++)
		lp_cell_set(lp_gpu_cell_at(r, s, row, col), LP_GPU_ERROR, msg);
}

static void lp_waive_cell(struct lp_gpu_result *r, unsigned row, unsigned col, const char *msg)
{
	for (unsigned s = 0; s < r->test->nseries; s++)
		lp_cell_set(lp_gpu_cell_at(r, s, row, col), LP_GPU_WAIVED, msg);
}

static void lp_run_host(struct lp_gpu_ctx *c, struct lp_gpu_result *r)
{
	const struct lp_gpu_test *t = r->test;

	for (int g = 0; g < c->t->n; g++) {
		struct lp_gpu_devstate *d = &c->d[g];
		struct lp_job j[2] = { { .g = g, .m = t->method, .gs = g, .gd = g },
				       { .g = g, .s = 1, .m = t->method, .gs = g, .gd = g } };
		unsigned row = t->shape == LP_GPU_SHAPE_X_GPU ? 0 : (unsigned)g;
		unsigned col = t->shape == LP_GPU_SHAPE_X_GPU ? (unsigned)g : 0;
		struct lp_fail cf = { 0 };

		if (lp_ensure_host(c, g, &cf)) {
			lp_error_cell(r, row, col, lp_fail_msg(&cf));
			continue;
		}
		switch (t->kind) {
		case LP_GPU_K_H2D:
			j[0].src = d->ha, j[0].dst = d->db;
			lp_bw_cell(c, r, row, col, j, 1, false);
			break;
		case LP_GPU_K_D2H:
			j[0].src = d->da, j[0].dst = d->hb;
			lp_bw_cell(c, r, row, col, j, 1, false);
			break;
		case LP_GPU_K_HD_BIDIR:
			j[0].src = d->ha, j[0].dst = d->db;
			j[1].src = d->da, j[1].dst = d->hb;
			lp_bw_cell(c, r, row, col, j, 2, false);
			break;
		case LP_GPU_K_LAT_HOST:
			lp_lat_cell(c, r, row, col, g, d->ha, LP_CHASE_BYTES);
			break;
		default:
			break;
		}
	}
}

static void lp_run_local(struct lp_gpu_ctx *c, struct lp_gpu_result *r)
{
	for (int g = 0; g < c->t->n; g++) {
		struct lp_gpu_devstate *d = &c->d[g];
		struct lp_job j = { .g = g, .m = r->test->method, .gs = g, .gd = g, .rw = true };
		struct lp_fail cf = { 0 };

		if (lp_ensure_dev(c, g, &cf)) {
			lp_error_cell(r, (unsigned)g, 0, lp_fail_msg(&cf));
			continue;
		}
		if (r->test->kind == LP_GPU_K_LAT_LOCAL) {
			lp_lat_dev_cell(c, r, (unsigned)g, 0, g, g);
			continue;
		}
		if (2 * r->size <= c->t->gpu[g].l2_bytes)
			snprintf(
				r->note, sizeof(r->note),
				"source + destination fit in the %llu MiB L2: this measures the cache, not HBM",
				(unsigned long long)(c->t->gpu[g].l2_bytes >> 20));
		j.src = d->da;
		j.dst = d->db;
		lp_bw_cell(c, r, (unsigned)g, 0, &j, 1, false);
	}
}

static void lp_run_pairs(struct lp_gpu_ctx *c, struct lp_gpu_result *r)
{
	const struct lp_gpu_test *t = r->test;

	for (int row = 0; row < c->t->n; row++) {
		for (int col = 0; col < c->t->n; col++) {
			struct lp_job j[2];
			char why[LP_GPU_REASON];
			struct lp_fail cf = { 0 };
			/* Data flows col -> row; the initiator needs access to the other's memory. */
			int init = t->kind == LP_GPU_K_P2P_WRITE || t->kind == LP_GPU_K_P2P_BIDIR
					   ? col
					   : row;
			int other = init == col ? row : col;

			if (row == col) {
				lp_waive_cell(r, (unsigned)row, (unsigned)col,
					      "same GPU (see local_* tests)");
				continue;
			}
			if (!c->t->pair[init][other].p2p_access ||
			    (t->kind == LP_GPU_K_P2P_BIDIR &&
			     !c->t->pair[other][init].p2p_access)) {
				snprintf(why, sizeof(why), "no P2P access between GPU%d and GPU%d",
					 row, col);
				lp_waive_cell(r, (unsigned)row, (unsigned)col, why);
				continue;
			}
			if (lp_ensure_dev(c, row, &cf) || lp_ensure_dev(c, col, &cf)) {
				lp_error_cell(r, (unsigned)row, (unsigned)col, lp_fail_msg(&cf));
				continue;
			}
			memset(j, 0, sizeof(j));
			j[0] = (struct lp_job){ .g = init,
						.m = t->method,
						.src = c->d[col].da,
						.dst = c->d[row].db,
						.gs = col,
						.gd = row };
			if (t->kind == LP_GPU_K_LAT_P2P) {
				lp_lat_dev_cell(c, r, (unsigned)row, (unsigned)col, row, col);
				continue;
			}
			if (t->kind == LP_GPU_K_P2P_BIDIR) {
				j[1] = (struct lp_job){ .g = row,
							.m = t->method,
							.src = c->d[row].da,
							.dst = c->d[col].db,
							.gs = row,
							.gd = col };
				lp_bw_cell(c, r, (unsigned)row, (unsigned)col, j, 2, false);
			} else {
				lp_bw_cell(c, r, (unsigned)row, (unsigned)col, j, 1, false);
			}
		}
	}
}

static void lp_run_fan(struct lp_gpu_ctx *c, struct lp_gpu_result *r)
{
	const struct lp_gpu_test *t = r->test;
	bool out = t->kind == LP_GPU_K_ONE_TO_ALL;

	for (int g = 0; g < c->t->n; g++) {
		struct lp_job j[LP_GPU_MAX];
		unsigned nj = 0, row = out ? 0 : (unsigned)g, col = out ? (unsigned)g : 0;
		struct lp_fail cf = { 0 };
		void *tmp = NULL;

		if (lp_ensure_dev(c, g, &cf)) {
			lp_error_cell(r, row, col, lp_fail_msg(&cf));
			continue;
		}
		for (int p = 0; p < c->t->n; p++) {
			if (p == g || !c->t->pair[g][p].p2p_access)
				continue;
			if (lp_ensure_dev(c, p, &cf))
				break;
			j[nj] = (struct lp_job){ .g = g,
						 .s = nj,
						 .m = t->method,
						 .gs = out ? g : p,
						 .gd = out ? p : g };
			j[nj].src = out ? c->d[g].da : c->d[p].da;
			j[nj].dst = out ? c->d[p].db : NULL;
			nj++;
		}
		if (!lp_fail_ok(&cf)) {
			lp_error_cell(r, row, col, lp_fail_msg(&cf));
			continue;
		}
		if (!nj) {
			lp_waive_cell(r, row, col, "no peer with P2P access");
			continue;
		}
		if (!out) {
			/* Each peer lands in its own slice of the reader's memory. */
			lp_set(c, g, NULL);
			if (lp_cuda_check(cudaMalloc(&tmp, (size_t)r->size * nj), "cudaMalloc",
					  lp_dev(c, g), &cf)) {
				lp_error_cell(r, row, col, lp_fail_msg(&cf));
				continue;
			}
			for (unsigned k = 0; k < nj; k++)
				j[k].dst = (char *)tmp + (size_t)r->size * k;
		}
		lp_bw_cell(c, r, row, col, j, nj, true);
		if (tmp) {
			lp_set(c, g, NULL);
			cudaFree(tmp);
		}
	}
}

int lp_gpu_run_test(struct lp_gpu_ctx *c, const struct lp_gpu_test *t, uint64_t size,
		    struct lp_gpu_result *r)
{
	char why[LP_GPU_REASON];
	int ret;

	if ((ret = lp_gpu_result_init(r, t, c->t->n, size)))
		return ret;
	if (t->peer && c->t->n < 2) {
		snprintf(why, sizeof(why), "needs 2 or more GPUs (%d selected)", c->t->n);
		lp_waive_all(r, why);
	} else if (!t->latency && size > c->cap) {
		lp_waive_all(r, "size above the buffers allocated for this run");
	} else {
		switch (t->kind) {
		case LP_GPU_K_H2D:
		case LP_GPU_K_D2H:
		case LP_GPU_K_HD_BIDIR:
		case LP_GPU_K_LAT_HOST:
			lp_run_host(c, r);
			break;
		case LP_GPU_K_LOCAL:
		case LP_GPU_K_LAT_LOCAL:
			lp_run_local(c, r);
			break;
		case LP_GPU_K_ONE_TO_ALL:
		case LP_GPU_K_ALL_TO_ONE:
			lp_run_fan(c, r);
			break;
		default:
			lp_run_pairs(c, r);
			break;
		}
	}
	lp_gpu_result_finish(r);
	return 0;
}
