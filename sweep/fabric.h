/* SPDX-License-Identifier: MIT */
/*
 * The switch fabric a sweep's nodes sit on: which leaf switch and which rail
 * each host (or each host's NIC) is connected to, read from what a cluster
 * already has. Three formats, told apart by content:
 *
 *   Slurm topology.conf (topology/tree, topology/block): "SwitchName=S
 *     Nodes=HOSTLIST" (a leaf: the switch hosts hang off) and "SwitchName=S
 *     Switches=LIST" (its parents), "BlockName=B Nodes=HOSTLIST" (a block is a
 *     leaf); Slurm hostlists (node[001-016,020], n[1-2]-ib[0-1]), keys case
 *     insensitive, "#" comments, "\" continues a line.
 *   A simple file: one host per line, "HOST LEAF [RAIL]" ("-" for none);
 *     HOST may be a hostlist.
 *   ibnetdiscover's topology output (infiniband-diags): Switch and Ca blocks;
 *     a CA's NodeDescription is "host device" (rdma-ndd's default), its port
 *     lines name the switch it is cabled to, the leaf; the device name is the
 *     rail (mlx5_0 .. mlx5_7 on a rail-optimised cluster).
 *
 * The fabric is mapped onto a run's nodes by host name (the part of a node's
 * host before the first ".") and, for ibnetdiscover, device name. Pure: no
 * MPI; the reader only reads the file it is given.
 */
#ifndef LP_SWEEP_FABRIC_H
#define LP_SWEEP_FABRIC_H

#include <stddef.h>

struct lp_fail; /* common/fail.h: the cause of a failure (fail: may be NULL) */

#define LP_FABRIC_NAME 64

enum lp_fabric_format {
	LP_FABRIC_NONE = 0,
	LP_FABRIC_SLURM,
	LP_FABRIC_SIMPLE,
	LP_FABRIC_IBNET,
};

/* "none", "slurm", "simple", "ibnetdiscover", NULL */
extern const char *const lp_fabric_format_names[];

/* One host (or one host's device) and where it is cabled. */
struct lp_fabric_port {
	char host[LP_FABRIC_NAME];
	char dev[LP_FABRIC_NAME]; /* ibnetdiscover: the CA's device ("mlx5_0"); "" any */
	int leaf;		  /* index into leaf[], -1 none */
	int rail;		  /* index into rail[], -1 none */
};

struct lp_fabric {
	enum lp_fabric_format format;
	char source[256]; /* the file it was read from */
	struct lp_fabric_port *port;
	int nport;
	char (*leaf)[LP_FABRIC_NAME]; /* leaf switch (or block) names */
	int *leaf_parent;	      /* per leaf: index into leaf[] of its parent switch, -1 none
				       * (parents are kept in leaf[] after the leaves, nleaf_all) */
	int nleaf, nleaf_all;
	char (*rail)[LP_FABRIC_NAME];
	int nrail;
};

/*
 * Parse text (the whole file) in whichever format it is. 0; -EINVAL with a
 * one-line reason in fail ("line 3: Nodes= without SwitchName=") when it is
 * none of them or malformed; -ENOMEM. f is initialised here; free with
 * lp_fabric_free (also after an error).
 */
int lp_fabric_parse(struct lp_fabric *f, const char *text, const char *source,
		    struct lp_fail *fail);
/* Read and parse path: as lp_fabric_parse, -ENOENT/-EACCES/-EIO when it cannot be read. */
int lp_fabric_read(struct lp_fabric *f, const char *path, struct lp_fail *fail);
void lp_fabric_free(struct lp_fabric *f);
/*
 * Run ibnetdiscover (infiniband-diags) and parse what it prints: as
 * lp_fabric_parse; -ENOENT when it is not installed, -EIO when it fails (it
 * needs umad access) or takes over 120 s. The subnet is discovered from this
 * host's first port.
 */
int lp_fabric_ibnetdiscover(struct lp_fabric *f, struct lp_fail *fail);
/*
 * The Slurm topology.conf next to slurm.conf ($SLURM_CONF's directory, else
 * /etc/slurm), when it exists: a static buffer, or NULL.
 */
const char *lp_fabric_slurm_path(void);
/*
 * Expand one Slurm hostlist ("tux[0-3,12],gpu-a[01-02]x") into names, calling
 * cb for each (stops at a non-zero return, which it returns). 0, or -EINVAL
 * for a malformed list (unbalanced brackets, a bad range, over 1,000,000 names).
 */
int lp_fabric_hostlist(const char *list, int (*cb)(void *arg, const char *name), void *arg);
/* The index of name in a name table of n entries, appended when absent; -1 out of memory. */
int lp_fabric_name_index(char (**tab)[LP_FABRIC_NAME], int *n, const char *name);
/*
 * Where host (its short name is compared: up to the first ".") with device dev
 * ("" or NULL: any) is cabled: its port, or NULL when the fabric does not know it.
 */
const struct lp_fabric_port *lp_fabric_find(const struct lp_fabric *f, const char *host,
					    const char *dev);

#endif
