/* SPDX-License-Identifier: MIT */
/*
 * Pre-flight check of one host (`lp-rdma --check`): each line OK / WARN /
 * FAIL, what was found and, when not OK, the fix. Everything is read from
 * sysfs/procfs under a root prefix ("" for the live system, a fixture tree in
 * tests); nothing needs verbs, CUDA or root (the ACS capability does: without
 * it that line is a WARN saying so).
 *
 * Items (the "item" key of each line; docs/METHOD.md "Pre-flight check"):
 *   per host:       rdma_device (FAIL when there is no RDMA device at all)
 *   per RDMA device: rdma_port (FAIL when it has no ports, or not the one asked for)
 *   per RDMA port:  port_state, phys_state, link_rate (active width and speed
 *                   against 4X and the adapter's best InfiniBand rate),
 *                   RoCE only: netdev_link, roce_mtu (netdev MTU vs the RoCE
 *                   MTU it allows), roce_gid (a RoCE v2 GID on the netdev),
 *                   roce_pfc and roce_ecn (PFC and ECN for the priority the
 *                   traffic class lands on; roce_qos when neither can be
 *                   seen: rdma/check_roce.h)
 *   per NIC:        pcie_link (current vs maximum speed and width, and the
 *                   slot's maximum), numa
 *   per GPU:        pcie_link, numa, gpu_nic_path (distance to the closest
 *                   NIC, ACS redirect on a bridge between them)
 *   per host:       iommu, gpudirect (nvidia-peermem or dma-buf; GPUs only),
 *                   memlock, cpu_governor
 * What it cannot see (sysfs shows none of it): the fabric past the port, whether
 * verbs work for this user, firmware settings, GPU health, performance
 * (docs/METHOD.md, "What --check cannot see").
 */
#ifndef LP_RDMA_CHECK_H
#define LP_RDMA_CHECK_H

#include <stdbool.h>
#include <stdio.h>

#include "common/json.h"
#include "common/record.h"

enum lp_check_status {
	LP_CHECK_OK = 0,
	LP_CHECK_WARN,
	LP_CHECK_FAIL,
};

struct lp_check_line {
	enum lp_check_status status;
	char item[24];	  /* "port_state", "pcie_link", ... (list above) */
	char subject[64]; /* "mlx5_0 port 1", "mlx5_0", "GPU 0000:1b:00.0", "host" */
	char detail[256]; /* what was found */
	char fix[256];	  /* what to do; "" when OK */
};

struct lp_check_report {
	unsigned n, cap;
	struct lp_check_line *lines;
	int err; /* -ENOMEM when a line could not be stored (sticky) */
};

/* A helper program's output (common/cmd.h's lp_cmd_capture, or a test's stand-in). */
typedef int lp_check_cmd_fn(char *const argv[], char *out, size_t len, int timeout_ms);

struct lp_check_opts {
	const char *root;     /* sysfs/procfs root; "" or NULL = the live system */
	const char *dev;      /* RDMA device to check; NULL = all */
	unsigned port;	      /* 1-based; 0 = all ports */
	long long memlock;    /* RLIMIT_MEMLOCK soft limit in bytes; -1 = unlimited */
	bool ipc_lock;	      /* the process has CAP_IPC_LOCK (memlock does not apply) */
	int tclass;	      /* RoCE traffic class the tests use (--tclass), when tclass_set */
	bool tclass_set;      /* --tclass given (0 is a class); else the device's is judged */
	int sl;		      /* service level (--sl): the VLAN priority under PCP trust */
	lp_check_cmd_fn *cmd; /* runs dcb, mlnx_qos; NULL: lp_cmd_capture live, none on a tree */
};

/* Fill memlock and ipc_lock from the calling process (getrlimit, capget). */
void lp_check_opts_live(struct lp_check_opts *o);

/*
 * Run every check into r (zeroed here). Returns 0, -ENODEV when o->dev is
 * given and does not exist, -ENOMEM, or the topology scan's error, with the
 * cause in f.
 */
int lp_check_run(const struct lp_check_opts *o, struct lp_check_report *r, struct lp_fail *f);
void lp_check_free(struct lp_check_report *r);

/* Append a copy of l to r: 0, or -ENOMEM (also left in r->err). */
int lp_check_line_add(struct lp_check_report *r, const struct lp_check_line *l);
/* A line's record (status, item, subject, detail, fix): how lp-sweep --check gathers reports. */
extern const struct lp_record lp_check_line_record;

/* The worst status in r (LP_CHECK_OK for an empty report). */
enum lp_check_status lp_check_worst(const struct lp_check_report *r);
const char *lp_check_status_name(enum lp_check_status s); /* "OK", "WARN", "FAIL" */

/* One line per check ("WARN  roce_mtu  rxe0 port 1  ..."), the fix indented below. */
void lp_check_print(const struct lp_check_report *r, FILE *f);
/* Members "worst" and "checks": [{status, item, subject, detail, fix}] of the current object. */
void lp_check_json(const struct lp_check_report *r, struct lp_json *j);

#endif
