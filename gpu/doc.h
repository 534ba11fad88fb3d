/* SPDX-License-Identifier: MIT */
/*
 * lp-gpu's JSON document, linkperf.gpu/2, as records (common/record.h): one
 * view that the writer fills (gpu/report.c), the reader gets back (qual/doc.c,
 * lp_record_read_json_more) and the JSON Schema comes from
 * (docs/schema/linkperf.gpu-2.json). Built without CUDA too, so that a host
 * without a GPU judges lp-gpu's documents (lp-judge, baselines).
 *
 * Every cell names its source (from) and destination (to). Members of other
 * modules are written by them after the record's (lp_gpu_doc_more):
 * "method" (common/meta.c and how lp-gpu times) and "qualification" (qual/).
 */
#ifndef LP_GPU_DOC_H
#define LP_GPU_DOC_H

#include <stdbool.h>
#include <stdint.h>

#include "common/meta.h"
#include "common/opt.h"
#include "common/record.h"
#include "gpu/gpu.h"

/* One cell: the copies from `from` to `to` (median, min, max null when it did not run). */
struct lp_gpu_doc_cell {
	char from[16], to[16], status[8];
	double median, min, max;
	uint32_t samples;
	double ceiling, pct_of_ceiling; /* null: no ceiling known */
	bool verified;
	char reason[LP_GPU_REASON]; /* "" when ok */
};

/* One matrix of a result: the value, or a direction or the sum of a bidirectional test. */
struct lp_gpu_doc_series {
	char label[24];
	struct lp_gpu_doc_cell *cells;
	uint32_t ncells;
};

struct lp_gpu_doc_result {
	char test[16], description[96], copy_method[4], unit[8];
	uint64_t size;
	char matrix[96], status[8];
	char reason[LP_GPU_REASON]; /* why the whole test was waived */
	char note[LP_GPU_REASON];   /* a caveat for reading the numbers */
	struct lp_gpu_doc_series *series;
	uint32_t nseries;
	bool waived, has_note;
};

struct lp_gpu_doc_driver {
	char nvidia_driver[32], cuda_driver[16], cuda_runtime[16];
	bool nvml;
	char nvml_note[128]; /* why not, when NVML was not loaded */
};

struct lp_gpu_doc_link {
	uint32_t current_gen, current_width, max_gen, max_width;
	char source[8];
	double ceiling_gbytes_per_s; /* one direction */
};

struct lp_gpu_doc_nvlink {
	uint32_t links, up, to_switch;
	char version[8];
	double ceiling_gbytes_per_s; /* all active links, one direction */
};

struct lp_gpu_doc_gpu {
	int32_t index, cuda_device;
	char name[96], bus_id[32];
	int32_t numa_node;
	uint64_t memory_bytes;
	int32_t sm_count;
	uint64_t l2_bytes;
	int32_t cc_major, cc_minor;
	double memory_clock_mhz;
	uint32_t memory_bus_width_bits;
	struct lp_gpu_doc_link pcie;
	struct lp_gpu_doc_nvlink nvlink;
	double hbm_ceiling_gbytes_per_s;
};

struct lp_gpu_doc_pair {
	int32_t from, to;
	bool p2p_access;
	uint32_t nvlinks;
	char link[40];
	double ceiling_gbytes_per_s; /* one direction; 0 unknown */
};

struct lp_gpu_doc_params {
	struct lp_sizes sizes;
	uint32_t iters, warmup, samples, latency_loads;
	double hold_timeout_s;
	bool verify;
};

struct lp_gpu_doc {
	char tool[16], schema[24];
	struct lp_host_meta host;
	struct lp_gpu_doc_driver driver;
	struct lp_gpu_doc_gpu *gpus;
	uint32_t ngpus;
	struct lp_gpu_doc_pair *pairs;
	uint32_t npairs;
	char warnings[LP_GPU_WARN_MAX][LP_GPU_WARN_LEN];
	uint32_t nwarnings;
	struct lp_gpu_doc_params params;
	struct lp_gpu_doc_result *results;
	uint32_t nresults;
	bool has_host, has_params;
};

extern const struct lp_record lp_gpu_doc_record;
/* The top-level members other modules write (NULL-terminated): the reader leaves them alone. */
extern const char *const lp_gpu_doc_more[];

/* A document's views freed (gpus, pairs, results, their series and cells). */
void lp_gpu_doc_free(struct lp_gpu_doc *d);

#endif
