/* SPDX-License-Identifier: MIT */
/*
 * lp-sweep --check: lp-rdma's pre-flight check (rdma/check.h) of every rank's
 * host, gathered on rank 0 (the engine's lp_sweep_engine_check) into one
 * report: a table per host and one JSON document with every host. Plain C, no
 * MPI: the unit tests build it by hand.
 */
#ifndef LP_SWEEP_CHECK_H
#define LP_SWEEP_CHECK_H

#include <stdio.h>

#include "rdma/check.h"

#define LP_SWEEP_CHECK_SCHEMA "linkperf.sweep-check/1"

struct lp_sweep_check_host {
	char name[80]; /* the rank's label ("host", "host/rail") */
	int rank;
	int status;	 /* 0, or a negative errno: the check did not run there or no report came */
	char error[160]; /* what, when status != 0 */
	struct lp_check_report rep;
};

struct lp_sweep_check {
	int n;
	struct lp_sweep_check_host *hosts;
};

/* n hosts, zeroed. 0 or -ENOMEM. */
int lp_sweep_check_init(struct lp_sweep_check *c, int n);
void lp_sweep_check_free(struct lp_sweep_check *c);
/* The worst line of every host; a host without a report counts as FAIL. */
enum lp_check_status lp_sweep_check_worst(const struct lp_sweep_check *c);
/* A table per host, then one line: hosts per worst status. */
void lp_sweep_check_print(const struct lp_sweep_check *c, FILE *f);
/* {tool, schema, hosts: [{name, rank, status, error, worst, checks}], worst, exit_code}. */
int lp_sweep_check_write_json(const struct lp_sweep_check *c, FILE *f, int exit_code);

#endif
