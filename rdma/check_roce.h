/* SPDX-License-Identifier: MIT */
/*
 * The RoCE pre-flight's lossless class (`--check`, items roce_pfc and roce_ecn, or roce_qos
 * when nothing is exposed): the traffic class a port's traffic uses, the priority it lands
 * on (DSCP trust: the DSCP-to-priority map; PCP trust: the VLAN priority, the service level),
 * and whether PFC and ECN (DCQCN) are on for that priority.
 *
 * Sources, each named in the line it feeds:
 *   traffic class  mlx5's /sys/class/infiniband/DEV/tc/PORT/traffic_class (MLNX_OFED:
 *                  "Global tclass=106", which the driver applies to every QP, overriding the
 *                  QP's own: a --tclass that differs is said to be overridden); else --tclass;
 *                  else 0 (the verbs default)
 *   DSCP           what the device reports: the Global tclass >> 2, or bnxt_re's configfs
 *                  /sys/kernel/config/bnxt_re/DEV/ports/PORT/cc/roce_dscp ("0x1a") when no
 *                  --tclass is given; else derived from the class (tclass >> 2), the source
 *                  saying "derived"
 *   trust, map     MLNX_OFED's /sys/class/net/IF/qos/trust and qos/dscp2prio; iproute2's
 *                  `dcb -N app show dev IF dscp-prio` ("dscp-prio 24:3 26:3": DSCP entries
 *                  mean DSCP trust, as mlnx_qos reads them); `mlnx_qos -i IF`
 *   PFC            `dcb -N pfc show dev IF prio-pfc` ("prio-pfc 0:off ... 3:on ..."), or
 *                  `mlnx_qos -i IF` (its "PFC configuration" table)
 *   ECN            MLNX_OFED's /sys/class/net/IF/ecn/roce_np|roce_rp/enable/PRIO ("1")
 * The tools run bounded (common/cmd.h) on the live system only; a fixture tree gets their
 * output through lp_check_opts.cmd. The parsers take the text as the tools print it.
 */
#ifndef LP_RDMA_CHECK_ROCE_H
#define LP_RDMA_CHECK_ROCE_H

#include <stddef.h>
#include <stdint.h>

#include "rdma/check.h"

struct lp_roce_qos {
	int tclass;	      /* the class judged (0..255) */
	char tclass_src[96];  /* where it came from */
	int dscp;	      /* the DSCP the QPs carry (0..63) */
	char dscp_src[48];    /* where it came from: the device's file, or "derived: ..." */
	char trust[8];	      /* "dscp", "pcp", "" unknown */
	int8_t dscp_prio[64]; /* the priority of each DSCP, -1 not listed */
	int8_t pfc[8];	      /* 1 on, 0 off, -1 unknown */
	int8_t ecn_np[8];     /* ECN notification point (the receiver sends CNPs) per priority */
	int8_t ecn_rp[8];     /* ECN reaction point (the sender slows down) per priority */
	char map_src[40];     /* where trust and the map came from, "" unknown */
	char pfc_src[40];     /* ... PFC */
	char ecn_src[40];     /* ... ECN */
	char note[200];	      /* what was tried and why it said nothing */
};

/* Everything unknown, class 0. */
void lp_roce_qos_init(struct lp_roce_qos *q);

/* Parsers: 0, or -ENOENT when the text holds none of what they read (q unchanged then). */
int lp_roce_parse_dcb_pfc(const char *text, struct lp_roce_qos *q);
int lp_roce_parse_dcb_app(const char *text, struct lp_roce_qos *q);
int lp_roce_parse_mlnx_qos(const char *text, struct lp_roce_qos *q);
int lp_roce_parse_dscp2prio(const char *text, struct lp_roce_qos *q); /* MLNX_OFED's sysfs */
/* mlx5's tc/PORT/traffic_class ("Global tclass=106", or a bare number): the class of every QP,
 * -1 none (empty, or rules per destination only). */
int lp_roce_parse_tclass(const char *text);
/* bnxt_re's configfs cc/roce_dscp ("0x1a", or decimal): the DSCP, -1 unreadable. */
int lp_roce_parse_dscp(const char *text);

/* The class and DSCP alone (sysfs only, no tool run): q's tclass, dscp and their sources. */
void lp_roce_class_read(const char *root, const char *dev, const char *port, int tclass,
			struct lp_roce_qos *q);

/*
 * Read what root (a sysfs tree, "" live) and the tools (cmd; NULL: none) say about the QoS of
 * netdev, the RoCE netdev of dev's port, for traffic class tclass (-1: the device's default).
 */
void lp_roce_qos_read(const char *root, const char *dev, const char *port, const char *netdev,
		      int tclass, lp_check_cmd_fn *cmd, struct lp_roce_qos *q);

/*
 * The priority the class lands on (sl: the service level, the VLAN priority under PCP trust),
 * -1 unknown; how says why ("DSCP 26 -> priority 3 (dcb)").
 */
int lp_roce_qos_prio(const struct lp_roce_qos *q, int sl, char *how, size_t len);

/* The check lines of subj (roce_pfc and roce_ecn, or roce_qos: nothing seen) into r. */
void lp_check_roce_qos(struct lp_check_report *r, const char *subj, const char *netdev,
		       const struct lp_roce_qos *q, int sl);
/* --check's call for one RoCE port: read (o->cmd, or the tools when root is live), then judge. */
void lp_check_roce_port(struct lp_check_report *r, const struct lp_check_opts *o, const char *root,
			const char *subj, const char *dev, const char *port, const char *netdev);

#endif
