/* SPDX-License-Identifier: MIT */
/*
 * lp-gpu: copy bandwidth and latency inside one node (host<->GPU over PCIe,
 * GPU-local HBM, GPU<->GPU peer-to-peer over NVLink or PCIe), with the
 * topology and the expected ceiling of every path.
 *
 * Layers, each usable alone:
 *   topology  lp_gpu_topo_probe()   CUDA + NVML (dlopen'ed) + sysfs; no NVML is not an error
 *   model     lp_gpu_topo_model(), lp_gpu_ceiling(), lp_gpu_topo_warnings()   pure, no CUDA calls
 *   tests     lp_gpu_tests[]: table rows {key, kind, method, shape}; lp_gpu_run_test() fills a result
 *   sinks     lp_gpu_report_text/csv/json()   pure formatting of results
 *
 * A result stores its matrix "row <- column": data flows from the column's
 * end to the row's end (CPU, a GPU, or a group of peers), whatever engine
 * initiates it; the sinks print it the other way round, the source on rows
 * as every linkperf matrix, and the JSON names each cell's from and to. Each
 * test states its flow in lp_gpu_test.orient. Bandwidths are GB/s (1e9 B/s),
 * latencies ns. Device-local copies count bytes read + written.
 */
#ifndef LP_GPU_GPU_H
#define LP_GPU_GPU_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/meta.h"
#include "common/opt.h"

struct lp_fail; /* common/fail.h */

#define LP_GPU_MAX	   16  /* GPUs one run can select */
#define LP_GPU_REASON	   200 /* bytes of a cell's reason text */
#define LP_GPU_SERIES_MAX  3   /* bidirectional: each direction and the sum */
#define LP_GPU_WARN_MAX	   64
#define LP_GPU_WARN_LEN	   200
#define LP_GPU_CHASE_BYTES (2u << 20) /* region a latency test chases: one 2 MiB page, beyond L1 */

enum lp_gpu_status { LP_GPU_OK = 0, LP_GPU_WAIVED, LP_GPU_ERROR };
const char *lp_gpu_status_name(enum lp_gpu_status s); /* "ok", "waived", "error" */

/* One PCIe link as trained now and at most (generation 1..6, lanes). */
struct lp_gpu_pcie {
	unsigned cur_gen,
		cur_width; /* current; read while an H2D copy runs (idle links down-train) */
	unsigned max_gen, max_width; /* the most the GPU and its slot allow */
	const char *source;	     /* "nvml", "sysfs" or "none" */
};

struct lp_gpu_dev_info {
	int cuda_dev; /* CUDA ordinal */
	char name[96];
	char bus_id[32];    /* "0000:18:00.0", lower case */
	int numa_node;	    /* from sysfs; -1 unknown */
	uint64_t mem_bytes; /* total device memory */
	int sm_count, cc_major, cc_minor;
	uint64_t l2_bytes;	/* L2 cache size */
	double mem_clock_mhz;	/* peak memory clock (NVML max clock, else CUDA attribute) */
	unsigned mem_bus_width; /* bits */
	struct lp_gpu_pcie pcie;
	unsigned nvlink_links;	   /* NVLinks NVML knows on this GPU (0 without NVML or NVLink) */
	unsigned nvlink_up;	   /* of those, active */
	unsigned nvlink_to_switch; /* active links whose far end is an NVSwitch */
	unsigned nvlink_version; /* NVML's nvmlNvlinkVersion_t value (6 = NVLink 4.0), 0 unknown */
	/* model outputs (lp_gpu_topo_model) */
	double pcie_gbs;   /* one direction at max gen x max width, GB/s */
	double hbm_gbs;	   /* peak memory bandwidth, GB/s (read + write together) */
	double nvlink_gbs; /* all active links, one direction, GB/s */
};

struct lp_gpu_pair {
	bool p2p_access;  /* cudaDeviceCanAccessPeer(row GPU, column GPU) */
	unsigned nvlinks; /* active links from row GPU whose far end is column GPU */
	/* model outputs */
	char link[40]; /* "NV18 (NVLink 4.0)", "NVSwitch 18x NVLink 4.0", "PCIe", "no P2P", "-" */
	double ceiling_gbs; /* one direction, GB/s; 0 unknown */
};

struct lp_gpu_topo {
	int n; /* selected GPUs; index i is "GPU i" in every matrix */
	struct lp_gpu_dev_info gpu[LP_GPU_MAX];
	struct lp_gpu_pair pair[LP_GPU_MAX][LP_GPU_MAX];
	bool nvml;		 /* NVML was loaded and initialized */
	char nvml_note[128];	 /* why not, when it was not */
	char driver_version[32]; /* "580.159.04", or "" */
	int cuda_driver_version; /* cudaDriverGetVersion(): 13000 = 13.0 */
	int cuda_runtime_version;
};

/* ---- model (pure) ---- */

/* One direction of one NVLink in GB/s for NVML's version enum (1=1.0 ... 6=4.0, 7=5.0); 0 unknown. */
double lp_gpu_nvlink_link_gbs(unsigned nvml_version);
/* "4.0" etc. for NVML's version enum, "?" unknown. */
const char *lp_gpu_nvlink_version_name(unsigned nvml_version);
/* GT/s of a PCIe generation (1..6), 0 unknown. */
double lp_gpu_pcie_gen_gts(unsigned gen);
/* Peak DRAM bandwidth: clock (MHz) x 2 (double data rate) x bus width (bits) / 8, in GB/s. */
double lp_gpu_hbm_gbs(double mem_clock_mhz, unsigned bus_width_bits);
/* Fill the model outputs of t (per-GPU ceilings, pair links and ceilings). */
void lp_gpu_topo_model(struct lp_gpu_topo *t);
/* Human warnings: PCIe trained below max, NVLinks of a pair not all up / asymmetric. Returns the count. */
int lp_gpu_topo_warnings(const struct lp_gpu_topo *t, char (*w)[LP_GPU_WARN_LEN], int max);

/* ---- tests ---- */

enum lp_gpu_kind {
	LP_GPU_K_H2D,
	LP_GPU_K_D2H,
	LP_GPU_K_HD_BIDIR,
	LP_GPU_K_LOCAL,
	LP_GPU_K_P2P_WRITE,
	LP_GPU_K_P2P_READ,
	LP_GPU_K_P2P_BIDIR,
	LP_GPU_K_ONE_TO_ALL,
	LP_GPU_K_ALL_TO_ONE,
	LP_GPU_K_LAT_HOST,
	LP_GPU_K_LAT_LOCAL,
	LP_GPU_K_LAT_P2P,
};
enum lp_gpu_method { LP_GPU_CE, LP_GPU_SM }; /* copy engine (cudaMemcpyAsync) or SM kernel */

/* Matrix shape: GPUs as rows and one named column, one named row and GPUs as columns, or GPU x GPU. */
enum lp_gpu_shape { LP_GPU_SHAPE_GPU_X, LP_GPU_SHAPE_X_GPU, LP_GPU_SHAPE_GPU_GPU };

struct lp_gpu_test {
	const char *key;  /* selection key, "h2d_ce" */
	const char *desc; /* one line */
	enum lp_gpu_kind kind;
	enum lp_gpu_method method;
	enum lp_gpu_shape shape;
	const char *other; /* the name of the non-GPU row/column ("CPU", "local", "peers") */
	const char *
		orient; /* "CPU -> GPU": the flow (tables: source on rows, destination on columns) */
	bool latency;	/* unit ns (else GB/s) */
	bool peer;	/* needs two or more GPUs */
	unsigned nseries;		       /* 1, or 3 for bidirectional */
	const char *series[LP_GPU_SERIES_MAX]; /* labels of the series */
};

extern const struct lp_gpu_test lp_gpu_tests[];
extern const unsigned lp_gpu_ntests;
const struct lp_gpu_test *lp_gpu_test_find(const char *key);
/*
 * Tests named by a comma list of keys and groups (all, bw, lat, host, local,
 * p2p), in table order, each once. 0, -EINVAL (an unknown name: its cause in
 * f) or -E2BIG.
 */
int lp_gpu_select_tests(const char *list, const struct lp_gpu_test **out, unsigned max,
			unsigned *n_p, struct lp_fail *f);
/* "0,2,3" -> CUDA ordinals; -EINVAL on junk, duplicates or an empty list, -E2BIG past max. */
int lp_gpu_parse_devs(const char *s, int *devs, int max, int *n_p);

/* One cell: the statistics of `samples` measurements of one path. */
struct lp_gpu_cell {
	enum lp_gpu_status status;
	char reason[LP_GPU_REASON]; /* why waived or failed; "" when ok */
	double med, min, max;	    /* GB/s or ns */
	unsigned samples;
	double ceiling; /* expected ceiling in the same unit; 0 unknown / none */
	bool verified;	/* destination data checked after the timed region */
};

struct lp_gpu_result {
	const struct lp_gpu_test *test;
	uint64_t size; /* bytes per copy (latency: the chased region) */
	unsigned nrows, ncols;
	char rowname[LP_GPU_MAX][16], colname[LP_GPU_MAX][16];
	enum lp_gpu_status status;  /* worst of the cells; WAIVED when the whole test is */
	char reason[LP_GPU_REASON]; /* why the whole test was waived */
	char note[LP_GPU_REASON];   /* caveat for reading the numbers ("fits in L2"), or "" */
	struct lp_gpu_cell *cells;  /* [series][row][col] */
};

/* Shape the result for t on n GPUs (names rows/columns, allocates cells). 0 or -ENOMEM. */
int lp_gpu_result_init(struct lp_gpu_result *r, const struct lp_gpu_test *t, int n, uint64_t size);
void lp_gpu_result_free(struct lp_gpu_result *r);
struct lp_gpu_cell *lp_gpu_cell_at(const struct lp_gpu_result *r, unsigned series, unsigned row,
				   unsigned col);
/* Recompute r->status from the cells. */
void lp_gpu_result_finish(struct lp_gpu_result *r);
/* Expected ceiling of one cell (GB/s; 0 none) from the model. */
double lp_gpu_ceiling(const struct lp_gpu_topo *t, const struct lp_gpu_test *test, unsigned series,
		      unsigned row, unsigned col);

/* ---- running ---- */

struct lp_gpu_params {
	int devs[LP_GPU_MAX];  /* CUDA ordinals to use */
	int ndevs;	       /* 0 = all */
	struct lp_sizes sizes; /* bytes per copy */
	unsigned iters;	       /* timed copies per sample */
	unsigned warmup;       /* untimed copies before each sample */
	unsigned samples;      /* samples per cell; the median is reported */
	unsigned lat_iters;    /* pointer-chase loads per latency sample */
	double hold_timeout_s; /* spin kernel gives up after this */
	bool no_verify;
};
void lp_gpu_params_default(struct lp_gpu_params *p);

struct lp_gpu_ctx; /* CUDA state: streams, events, buffers (gpu/run.c) */

/*
 * Probe the topology of the selected GPUs. -ENODEV: no GPU / no driver
 * (warned); -EINVAL: bad selection (its cause in f).
 */
int lp_gpu_topo_probe(struct lp_gpu_topo *t, const int *devs, int ndevs, struct lp_fail *f);
/*
 * Set up streams, the hold flag and peer access for t's GPUs; re-reads the
 * current PCIe link of every GPU while H2D copies keep it busy (idle links
 * down-train) and re-runs the model. Buffers are allocated on first use.
 * 0, or a negative errno with the failing CUDA call in f. A pair whose peer
 * access cannot be enabled, or a link that cannot be re-read, is a warning.
 */
int lp_gpu_ctx_init(struct lp_gpu_ctx **ctx_p, const struct lp_gpu_params *p, struct lp_gpu_topo *t,
		    struct lp_fail *f);
void lp_gpu_ctx_free(struct lp_gpu_ctx *ctx);
/* Run one test at one size into r (initialized here). 0 even when cells failed (see r->status). */
int lp_gpu_run_test(struct lp_gpu_ctx *ctx, const struct lp_gpu_test *t, uint64_t size,
		    struct lp_gpu_result *r);

/* ---- sinks ---- */

struct lp_gpu_report {
	const struct lp_gpu_params *params;
	const struct lp_gpu_topo *topo;
	const struct lp_host_meta *host; /* may be NULL */
	const struct lp_gpu_result *res;
	unsigned nres;
};

void lp_gpu_report_topo_text(FILE *f, const struct lp_gpu_topo *t);
void lp_gpu_report_result_text(FILE *f, const struct lp_gpu_result *r);
void lp_gpu_report_text(FILE *f, const struct lp_gpu_report *rep);
/* One CSV line per test x size x series x cell, header first. */
void lp_gpu_report_csv(FILE *f, const struct lp_gpu_report *rep);
/* One JSON document; returns lp_json_finish()'s status (or -ENOMEM). */
int lp_gpu_report_json(FILE *f, const struct lp_gpu_report *rep);
/* The document's schema id and its JSON Schema (docs/schema/linkperf.gpu-2.json). */
#define LP_GPU_DOC_SCHEMA "linkperf.gpu/2"
int lp_gpu_report_schema(FILE *f);

#endif
