/* SPDX-License-Identifier: MIT */
/*
 * lp-rdma's outputs in one place: the table on a terminal (printed run by run
 * as results arrive), the CSV, and the one JSON document of the tool (client
 * runs, --check, --counters), linkperf.rdma/2, written from its records
 * (rdma/doc.h) whose JSON Schema is docs/schema/linkperf.rdma-2.json.
 * Files go through lp_out_open ('-' is stdout); the library measures, this
 * module formats.
 */
#ifndef LP_RDMA_REPORT_H
#define LP_RDMA_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "rdma/check.h"
#include "rdma/counters.h"
#include "rdma/doc.h"
#include "rdma/rdma.h"

struct lp_fail; /* common/fail.h */

/* Where the test ran: the NIC opened, its NUMA node and the GPU's PCIe distance to it. */
struct lp_rdma_affinity {
	bool known;	  /* the NIC was found in the PCIe topology */
	bool numa_bound;  /* this process was bound to the NIC's NUMA node */
	char gpu_bdf[24]; /* "" for host memory */
	char nic[64];
	char dist[8]; /* nvidia-smi topo vocabulary: "PIX", "SYS", ... */
	int numa;
};

/* The table: a header row whenever the kind of test changes. */
struct lp_rdma_table {
	FILE *f;
	bool lat_head, bw_head;
};

/* "client: mlx5_0 port 1  InfiniBand ..." (scripts watch for this line). */
void lp_rdma_report_device(FILE *f, const struct lp_rdma_devinfo *d, const char *role);
/* One result row (after a column header when the kind changed). */
void lp_rdma_report_row(struct lp_rdma_table *t, const struct lp_rdma_params *p,
			const struct lp_rdma_result *r);
/* One interval of a running test, as it closes (--interval; flushed). */
void lp_rdma_report_interval(FILE *f, const struct lp_rdma_params *p, const struct lp_ival *iv);
/* After the runs: the server's device, the memories and clock, what --verify checked. */
void lp_rdma_report_footer(FILE *f, const struct lp_rdma_params *p, const struct lp_rdma_result *r,
			   int n);

/* Everything in one lp-rdma JSON document; role "client", "check" or "counters". */
struct lp_rdma_report {
	const char *role;
	/* client */
	const char *server;
	unsigned port;
	int tclass, sl; /* the QPs' traffic class (-1: the device's) and service level */
	int qp_timeout; /* --qp-timeout as resolved (its option row's default when not given) */
	const struct lp_rdma_devinfo *local_dev;
	const struct lp_rdma_affinity *aff;
	const struct lp_rdma_params *params; /* [n], parallel to res */
	const struct lp_rdma_result *res;
	int n, planned, failed;
	bool interrupted; /* SIGINT/SIGTERM: res is what was measured until then */
	/* --check, --counters */
	const struct lp_check_report *check;
	const struct lp_counters *counters;
	const struct lp_inv_host *inventory; /* --inventory */
};

/* The CSV of rep's runs to path ('-' = stdout); 0 or -EIO (logged). */
int lp_rdma_report_csv(const char *path, const struct lp_rdma_report *rep);
/*
 * The JSON document to path ('-' = stdout); 0 or -EIO (the output's failure
 * logged by lp_out_end; a document that could not be made: its cause in fail).
 */
int lp_rdma_report_json(const char *path, const struct lp_rdma_report *rep, struct lp_fail *fail);
/* The same document to an open stream (qualification reads it back: qual/qual.h). */
int lp_rdma_report_json_write(FILE *f, const struct lp_rdma_report *rep, struct lp_fail *fail);

/* The document's JSON Schema (docs/schema/, --json-schema). */
int lp_rdma_report_schema(FILE *f);

#endif
