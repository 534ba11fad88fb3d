/* SPDX-License-Identifier: MIT */
/*
 * lp-rdma's JSON document, linkperf.rdma/2, as records (common/record.h): one
 * view of a run that the writer fills (rdma/report.c), the reader gets back
 * (qual/doc.c, lp_record_read_json_more) and the JSON Schema comes from
 * (docs/schema/linkperf.rdma-2.json), so none of the three can drift.
 *
 * Parts present only for some runs are LP_REC_WHEN fields: "errno" and
 * "error" of a failed run, the latency members of a latency test,
 * "bandwidth" one way or "client_to_server", "server_to_client" and "sum"
 * both ways, "gpu_poll", "verified", "intervals". Members of other modules
 * are written by them after the record's (lp_rdma_doc_more): "method"
 * (common/meta.c), "check" (--check), "snapshot" (--counters), "inventory"
 * (--inventory) and "qualification" (qual/).
 */
#ifndef LP_RDMA_DOC_H
#define LP_RDMA_DOC_H

#include <stdbool.h>
#include <stdint.h>

#include "common/meta.h"
#include "common/record.h"
#include "common/stats.h"
#include "rdma/counters.h"
#include "rdma/rdma.h"

/* The document's schema id ("schema" member). */
#define LP_RDMA_DOC_SCHEMA "linkperf.rdma/2"

/* What one run was asked: the plan's parameters (keys shared with lp-sweep: iters, qps, mtu). */
struct lp_rdma_doc_params {
	uint64_t iters; /* 0 when the run lasted duration_s */
	double duration_s;
	uint64_t warmup;
	uint32_t tx_depth, rx_depth, cq_moderation, post_list, qps;
	bool bidirectional, verify;
	char connection[16]; /* "exchange" or "rdma_cm" */
	double interval_s;
};

/* What the run was, and how it ended. */
struct lp_rdma_doc_head {
	char test[16];
	uint64_t size;
	char status[8]; /* "ok" or "error" */
	int32_t err_no; /* errno of a failed run */
	char error[256];
};

/* How this side's QPs and buffers were set up. */
struct lp_rdma_doc_run {
	uint32_t mtu, max_inline;
	char local_mem[32], remote_mem[32];
	uint64_t timed_iters;
};

struct lp_rdma_doc_setup {
	char scatter_to_cqe[96];
	bool relaxed_ordering;
	char gpu_rdma_writes_ordering[96]; /* "" for host memory */
};

/* write_lat polled by a GPU: the GPU->CPU notification its latency includes. */
struct lp_rdma_doc_gpu_poll {
	uint32_t sides;
	char includes[160];
	double notification_us; /* NaN (null): not measured on this side */
	double p50_without_notification_us;
};

/* What --verify checked: the wire's record (both sides' counts), the seed, how. */
struct lp_rdma_doc_verified {
	struct lp_rdma_verified v;
	uint32_t seed;
	char method[256];
};

struct lp_rdma_doc_lat {
	char latency_method[64];
	char latency_kind[24]; /* "one_way=rtt/2" or "full_completion" */
	uint64_t warmup_iters;
	struct lp_summary latency_us, rtt_us;
};

struct lp_rdma_doc_bw {
	double bytes, messages, seconds, gbytes_per_s, gbits_per_s, mmsg_per_s, percent_of_link;
};

struct lp_rdma_doc_sum {
	double gbytes_per_s, gbits_per_s;
	char sum_method[64];
};

/* One interval of --interval's series: latency fields are null for bandwidth and back. */
struct lp_rdma_doc_ival_point {
	double start_s, seconds;
	uint64_t count; /* samples (latency) or messages (bandwidth) */
	double p50_us, p99_us, gbits_per_s, gbytes_per_s, mmsg_per_s;
};

/* A port counter that moved during the run. */
struct lp_rdma_doc_counter {
	char name[LP_CTR_NAME_LEN];
	uint32_t source; /* enum lp_ctr_src */
	uint64_t delta;
	uint32_t cls; /* enum lp_ctr_class */
	bool reset;   /* the counter went backwards (reset or wrapped): delta is its value after */
};

/* One side's counters that moved (null in the document when they were not read). */
struct lp_rdma_doc_ctr {
	char device[64];
	uint32_t port;
	char netdev[16]; /* "" for InfiniBand */
	uint32_t omitted;
	uint32_t n;
	struct lp_rdma_doc_counter moved[LP_CTR_MOVED_MAX];
};

/* One run: every part at its place; the flags say which parts are there. */
struct lp_rdma_doc_result {
	struct lp_rdma_doc_head head;
	struct lp_rdma_doc_params params;
	struct lp_rdma_doc_run run;
	struct lp_rdma_doc_setup setup;
	struct lp_rdma_doc_gpu_poll gpu_poll;
	struct lp_rdma_doc_verified verified;
	struct lp_rdma_doc_ctr ctr_client, ctr_server;
	/* --interval: the series' head, its summary on each side, the series */
	double period_s;
	uint32_t step_messages; /* bandwidth: completions are reaped cq_mod messages at a time */
	char value[80];
	struct lp_ival_summary ival_sum, ival_sum_remote;
	struct lp_rdma_doc_ival_point *series;
	uint32_t nseries;
	struct lp_rdma_doc_lat lat;
	double link_rate_gbps;
	struct lp_rdma_doc_bw bw, reverse;
	struct lp_rdma_doc_sum sum;
	bool failed, is_lat, is_bw, one_way, both_ways, has_gpu_poll, has_verified, has_ival,
		has_ival_remote, has_ctr_client, has_ctr_server;
};

struct lp_rdma_doc_affinity {
	char nic[64];
	int32_t nic_numa_node;
	bool numa_bound;
	char gpu_bus_id[24]; /* "" for host memory */
	char gpu_nic_distance[8];
};

struct lp_rdma_doc_counts {
	int32_t runs, failed, planned;
};

/* The document; the client's members only for role "client". */
struct lp_rdma_doc {
	char tool[16], schema[24], role[16];
	struct lp_host_meta host;
	char server[256];
	uint32_t port;
	int32_t tclass, sl, qp_timeout;
	struct lp_rdma_devinfo local_device, remote_device;
	struct lp_rdma_doc_affinity affinity;
	struct lp_rdma_doc_result *results;
	uint32_t nresults;
	struct lp_rdma_doc_counts summary;
	bool interrupted;
	bool client, has_affinity, has_remote;
};

extern const struct lp_record lp_rdma_doc_record;
/* The top-level members other modules write (NULL-terminated): the reader leaves them alone. */
extern const char *const lp_rdma_doc_more[];

/*
 * The members of a run's view from its parameters and result (d zeroed first;
 * d->series malloc'ed: lp_record_free(&lp_rdma_doc_record's result, ...) or
 * lp_rdma_doc_result_free). 0 or -ENOMEM.
 */
int lp_rdma_doc_result_view(struct lp_rdma_doc_result *d, const struct lp_rdma_result *r,
			    const struct lp_rdma_params *p);
/* A document's views freed (its results and their series). */
void lp_rdma_doc_free(struct lp_rdma_doc *d);

#endif
