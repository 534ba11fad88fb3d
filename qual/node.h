/* SPDX-License-Identifier: MIT */
/*
 * Gates per node (issue 26): each node's profile from its own port, the port's state judged
 * against its own best, the fleet's and the profile's, and the allowance GPU memory needs in
 * latency limits. Plain data in, verdicts out; qual/ rests on common/ only, so the tools fill
 * struct lp_qual_port from what they know (rdma/inventory.h).
 */
#ifndef LP_QUAL_NODE_H
#define LP_QUAL_NODE_H

#include <stddef.h>

#include "common/fail.h"
#include "common/record.h"
#include "qual/qual.h"

/* One node's port as the gate sees it (unknown: 0 / NULL / ""). */
struct lp_qual_port {
	const char *node;	    /* its label ("gpu017") */
	struct lp_qual_hw hw;	    /* as it runs: link layer, speed, width, rate */
	unsigned max_width;	    /* lanes the port (and the switch port) support */
	const char *max_speed;	    /* best speed the port supports ("NDR") */
	const char *peer_max_speed; /* best speed the switch port supports */
	double pcie_gts, pcie_max_gts;
	unsigned pcie_width, pcie_max_width;
};

/* A node's gate: the profile its port matches, and PASS/FAIL with the reason. */
struct lp_qual_gate {
	char profile[64];	      /* the profile its own port matches, "" none */
	enum lp_qual_verdict verdict; /* LP_QUAL_NONE: nothing to judge (software RDMA, no device) */
	char reason[256];
};

/* Its record (common/record.h): lp-sweep's document has one per node (run.node_gates). */
extern const struct lp_record lp_qual_gate_record;

/*
 * The profile hw matches (auto, as --expect auto picks it) into name; 0, -ENOENT (none: f
 * says why, e.g. "Soft-RoCE"), or a negative errno from reading the profiles.
 */
int lp_qual_node_profile(const struct lp_qual_hw *hw, char *name, size_t len, struct lp_fail *f);

/*
 * Judge n ports into gates[n]: the fleet's profile is the one most nodes match; a node is FAIL
 * when its port runs narrower or slower than it (or its switch port) supports, when its PCIe
 * link lost lanes, when it matches no profile while the fleet does, or a slower one than the
 * fleet's (trained down), never "none". fleet (may be NULL) receives the fleet's profile.
 * Returns the number of FAILs.
 */
int lp_qual_nodes_judge(const struct lp_qual_port *ports, int n, struct lp_qual_gate *gates,
			char *fleet, size_t fleet_len);

/*
 * GPU-polled write latency (lp-rdma latency_method gpu_poll) includes a GPU->CPU notification
 * on each polling side: the one-way figure carries sides/2 of them. The allowance added to a
 * latency limit is sides * notify_us / 2 with the notification measured in the same run;
 * unmeasured (NaN) gives no allowance (docs/METHOD.md, "GPU memory in latency limits").
 */
double lp_qual_gpu_allowance_us(unsigned sides, double notify_us);

#endif
