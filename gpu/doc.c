// SPDX-License-Identifier: MIT
/* linkperf.gpu/2 as records (gpu/doc.h); built with or without CUDA. */
#include "gpu/doc.h"

const char *const lp_gpu_doc_more[] = { "method", "qualification", NULL };

/* clang-format off */
static const struct lp_record driver_rec = LP_RECORD(struct lp_gpu_doc_driver,
	LP_REC_STR(struct lp_gpu_doc_driver, nvidia_driver),
	LP_REC_STR(struct lp_gpu_doc_driver, cuda_driver),
	LP_REC_STR(struct lp_gpu_doc_driver, cuda_runtime),
	LP_REC_BOOL(struct lp_gpu_doc_driver, nvml),
	LP_REC_STR(struct lp_gpu_doc_driver, nvml_note, LP_REC_DOC("why not, when NVML was not loaded")));
static const struct lp_record link_rec = LP_RECORD(struct lp_gpu_doc_link,
	LP_REC_U32(struct lp_gpu_doc_link, current_gen),
	LP_REC_U32(struct lp_gpu_doc_link, current_width),
	LP_REC_U32(struct lp_gpu_doc_link, max_gen),
	LP_REC_U32(struct lp_gpu_doc_link, max_width),
	LP_REC_STR(struct lp_gpu_doc_link, source),
	LP_REC_F64(struct lp_gpu_doc_link, ceiling_gbytes_per_s, LP_REC_DOC("one direction")));
static const struct lp_record nvlink_rec = LP_RECORD(struct lp_gpu_doc_nvlink,
	LP_REC_U32(struct lp_gpu_doc_nvlink, links),
	LP_REC_U32(struct lp_gpu_doc_nvlink, up),
	LP_REC_U32(struct lp_gpu_doc_nvlink, to_switch),
	LP_REC_STR(struct lp_gpu_doc_nvlink, version),
	LP_REC_F64(struct lp_gpu_doc_nvlink, ceiling_gbytes_per_s, LP_REC_DOC("all active links, one direction")));
static const struct lp_record gpu_rec = LP_RECORD(struct lp_gpu_doc_gpu,
	LP_REC_I32(struct lp_gpu_doc_gpu, index),
	LP_REC_I32(struct lp_gpu_doc_gpu, cuda_device),
	LP_REC_STR(struct lp_gpu_doc_gpu, name),
	LP_REC_STR(struct lp_gpu_doc_gpu, bus_id),
	LP_REC_I32(struct lp_gpu_doc_gpu, numa_node),
	LP_REC_U64(struct lp_gpu_doc_gpu, memory_bytes),
	LP_REC_I32(struct lp_gpu_doc_gpu, sm_count),
	LP_REC_U64(struct lp_gpu_doc_gpu, l2_bytes),
	LP_REC_I32(struct lp_gpu_doc_gpu, cc_major),
	LP_REC_I32(struct lp_gpu_doc_gpu, cc_minor),
	LP_REC_F64(struct lp_gpu_doc_gpu, memory_clock_mhz),
	LP_REC_U32(struct lp_gpu_doc_gpu, memory_bus_width_bits),
	LP_REC_NEST(struct lp_gpu_doc_gpu, pcie, link_rec),
	LP_REC_NEST(struct lp_gpu_doc_gpu, nvlink, nvlink_rec),
	LP_REC_F64(struct lp_gpu_doc_gpu, hbm_ceiling_gbytes_per_s));
static const struct lp_record pair_rec = LP_RECORD(struct lp_gpu_doc_pair,
	LP_REC_I32(struct lp_gpu_doc_pair, from),
	LP_REC_I32(struct lp_gpu_doc_pair, to),
	LP_REC_BOOL(struct lp_gpu_doc_pair, p2p_access),
	LP_REC_U32(struct lp_gpu_doc_pair, nvlinks),
	LP_REC_STR(struct lp_gpu_doc_pair, link),
	LP_REC_F64(struct lp_gpu_doc_pair, ceiling_gbytes_per_s, LP_REC_DOC("one direction; 0 unknown")));
static const struct lp_record params_rec = LP_RECORD(struct lp_gpu_doc_params,
	LP_REC_ARRAY(struct lp_gpu_doc_params, sizes.v, sizes.n, LP_REC_T_U64, uint64_t, LP_REC_KEY("sizes")),
	LP_REC_U32(struct lp_gpu_doc_params, iters),
	LP_REC_U32(struct lp_gpu_doc_params, warmup),
	LP_REC_U32(struct lp_gpu_doc_params, samples),
	LP_REC_U32(struct lp_gpu_doc_params, latency_loads),
	LP_REC_F64(struct lp_gpu_doc_params, hold_timeout_s),
	LP_REC_BOOL(struct lp_gpu_doc_params, verify));
static const struct lp_record cell_rec = LP_RECORD(struct lp_gpu_doc_cell,
	LP_REC_STR(struct lp_gpu_doc_cell, from, LP_REC_DOC("the data's source: CPU or GPUn")),
	LP_REC_STR(struct lp_gpu_doc_cell, to, LP_REC_DOC("the data's destination")),
	LP_REC_STR(struct lp_gpu_doc_cell, status),
	LP_REC_F64(struct lp_gpu_doc_cell, median),
	LP_REC_F64(struct lp_gpu_doc_cell, min),
	LP_REC_F64(struct lp_gpu_doc_cell, max),
	LP_REC_U32(struct lp_gpu_doc_cell, samples),
	LP_REC_F64(struct lp_gpu_doc_cell, ceiling),
	LP_REC_F64(struct lp_gpu_doc_cell, pct_of_ceiling),
	LP_REC_BOOL(struct lp_gpu_doc_cell, verified),
	LP_REC_STR(struct lp_gpu_doc_cell, reason));
static const struct lp_record series_rec = LP_RECORD(struct lp_gpu_doc_series,
	LP_REC_STR(struct lp_gpu_doc_series, label),
	LP_REC_U32(struct lp_gpu_doc_series, ncells, LP_REC_NOJSON),
	LP_REC_VEC_NEST(struct lp_gpu_doc_series, cells, ncells, cell_rec, LP_REC_DOC("every source (from) and destination (to)")));
static const struct lp_record result_rec = LP_RECORD(struct lp_gpu_doc_result,
	LP_REC_STR(struct lp_gpu_doc_result, test),
	LP_REC_STR(struct lp_gpu_doc_result, description),
	LP_REC_STR(struct lp_gpu_doc_result, copy_method),
	LP_REC_STR(struct lp_gpu_doc_result, unit),
	LP_REC_U64(struct lp_gpu_doc_result, size),
	LP_REC_STR(struct lp_gpu_doc_result, matrix),
	LP_REC_STR(struct lp_gpu_doc_result, status),
	LP_REC_STR(struct lp_gpu_doc_result, reason, LP_REC_WHEN(struct lp_gpu_doc_result, waived)),
	LP_REC_STR(struct lp_gpu_doc_result, note, LP_REC_WHEN(struct lp_gpu_doc_result, has_note)),
	LP_REC_U32(struct lp_gpu_doc_result, nseries, LP_REC_NOJSON),
	LP_REC_VEC_NEST(struct lp_gpu_doc_result, series, nseries, series_rec, LP_REC_DOC("one matrix, or each direction and the sum of a bidirectional test")));

const struct lp_record lp_gpu_doc_record = LP_RECORD(struct lp_gpu_doc,
	LP_REC_STR(struct lp_gpu_doc, tool),
	LP_REC_STR(struct lp_gpu_doc, schema),
	LP_REC_NEST(struct lp_gpu_doc, host, lp_host_meta_record, LP_REC_WHEN(struct lp_gpu_doc, has_host)),
	LP_REC_NEST(struct lp_gpu_doc, driver, driver_rec),
	LP_REC_U32(struct lp_gpu_doc, ngpus, LP_REC_NOJSON),
	LP_REC_VEC_NEST(struct lp_gpu_doc, gpus, ngpus, gpu_rec, LP_REC_DOC("the selected GPUs; GPU i of every matrix")),
	LP_REC_U32(struct lp_gpu_doc, npairs, LP_REC_NOJSON),
	LP_REC_VEC_NEST(struct lp_gpu_doc, pairs, npairs, pair_rec, LP_REC_DOC("every ordered pair of GPUs: its link")),
	LP_REC_U32(struct lp_gpu_doc, nwarnings, LP_REC_NOJSON),
	LP_REC_ARRAY(struct lp_gpu_doc, warnings, nwarnings, LP_REC_T_STR, char[LP_GPU_WARN_LEN], LP_REC_DOC("links trained down, NVLinks not all up")),
	LP_REC_NEST(struct lp_gpu_doc, params, params_rec, LP_REC_WHEN(struct lp_gpu_doc, has_params)),
	LP_REC_U32(struct lp_gpu_doc, nresults, LP_REC_NOJSON),
	LP_REC_VEC_NEST(struct lp_gpu_doc, results, nresults, result_rec, LP_REC_DOC("one per test and size")));
/* clang-format on */

void lp_gpu_doc_free(struct lp_gpu_doc *d)
{
	lp_record_free(&lp_gpu_doc_record, d);
}
