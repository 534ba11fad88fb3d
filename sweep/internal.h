/* SPDX-License-Identifier: MIT */
/*
 * Internal to sweep/: helpers the run containers (run.c), the verdicts
 * (verdict.c), the retest planner (retest.c) and the sinks (write.c, csv.c,
 * summary.c, read.c) share. Not a public header: tools include sweep/result.h.
 */
#ifndef LP_SWEEP_INTERNAL_H
#define LP_SWEEP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/record.h"
#include "sweep/result.h"

/* "us" for latency metrics, "Gb/s" for bandwidth. */
const char *lp_sweep_unit(const struct lp_sweep_metric *m);
/* A metric's value for people: "-" for none, latency with one decimal, bandwidth 3 digits. */
void lp_sweep_fmt_val(char *buf, size_t len, double v, bool lat);
/* "noise 4.8% per cell (residuals 4.1%, 41 df; repeats 3.9%, 12 pairs)" */
void lp_sweep_fmt_noise(char *buf, size_t len, const struct lp_diag *d);
/* The last cell of metric, client a, server b in phase; NULL none. */
const struct lp_sweep_cell *lp_sweep_find_cell(const struct lp_sweep_run *r, int metric, int a,
					       int b, int phase);
/* Isolated retests of metric m among the cells with client a (or any: -1) and server b (or any). */
int lp_sweep_count_retests(const struct lp_sweep_run *r, int m, int a, int b);
/* A link verdict: link slow or failed, or errors on a pair. */
bool lp_sweep_is_link(const struct lp_verdict *vd);
/*
 * Each ordered pair with scheduled cells that were never measured: cb per pair
 * with the metrics' labels joined by ", ". Returns the missing cells' count.
 */
size_t lp_sweep_each_missing(const struct lp_sweep_run *r,
			     void (*cb)(void *arg, const struct lp_sweep_run *r, int a, int b,
					const char *labels),
			     void *arg);

/* One metric's matrix as lp_sweep_matrix fills it: n*n values, failed and scheduled flags. */
struct lp_sweep_mx {
	double *v;
	uint8_t *fail, *sched;
};
int lp_sweep_mx_alloc(struct lp_sweep_mx *mx, int n);
void lp_sweep_mx_free(struct lp_sweep_mx *mx);
int lp_sweep_mx_fill(const struct lp_sweep_run *r, int m, struct lp_sweep_mx *mx);

/* The run's nodes on the fabric (sweep/verdict_group.c): leaf and rail per node, compact. */
struct lp_sweep_topo {
	int *leaf, *rail; /* per node: index into leaf_name / rail_name, -1 unknown; NULL none */
	int nleaf, nrail;
	char (*leaf_name)[LP_FABRIC_NAME], (*rail_name)[LP_FABRIC_NAME];
};
/* From r->fabric (host and device names) and --rails (r->rails: the rank's rail). 0 or -ENOMEM. */
int lp_sweep_topo_map(const struct lp_sweep_run *r, struct lp_sweep_topo *t);
void lp_sweep_topo_free(struct lp_sweep_topo *t);
/* One verdict per shared fault of metric m's diagnosis. 0 or -ENOMEM. */
int lp_sweep_group_verdicts(struct lp_sweep_run *r, int m, const struct lp_diag *d,
			    const struct lp_sweep_topo *t);

/* "topology" of the document (sweep/fabric_json.c): the nodes' leaves and rails; null none. */
void lp_sweep_topology_json(struct lp_json *j, const struct lp_sweep_run *r);
/* A metric's "error_control" object (the rate, the levels the tests passed, round effects). */
void lp_sweep_error_control_json(struct lp_json *j, const struct lp_diag *d);
/* A verdict's error-control and group members: p, level, settle, group, scope, members. */
void lp_sweep_verdict_extra_json(struct lp_json *j, const struct lp_sweep_run *r,
				 const struct lp_verdict *vd);
struct json_t;
/* The document's "topology" back into r->fabric (absent or null: none). 0 or -ENOMEM. */
int lp_sweep_topology_read(struct lp_sweep_run *r, const struct json_t *topo);

/* A cell's "latency_us" and "bandwidth" objects in the JSON document (writer and reader). */
extern const struct lp_record lp_sweep_cell_lat_json;
extern const struct lp_record lp_sweep_cell_bw_json;

#endif
