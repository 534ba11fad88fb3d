/* SPDX-License-Identifier: MIT */
/*
 * Reading other tools' runs beside the link matrix (issue 28, part 4):
 *
 *  - nccl-tests' text output (src/util.cu: the "# Rank" device lines, the
 *    table header, one row per size with out-of-place and in-place time,
 *    algbw, busbw and #wrong, the per-iteration columns of -I 1, the
 *    timestamps of -S, the "Avg bus bandwidth" footer), and its JSON (-J,
 *    file version 3: "config", "results" with out_of_place/in_place);
 *  - NCCL's NCCL_DEBUG=INFO lines ("host:pid:tid [dev] NCCL INFO ..."): the
 *    communicator's ranks and hosts ("comm 0x.. rank R nRanks N nNodes M
 *    localRanks L localRank l MNNVL m"), each channel's ring order
 *    ("Channel 00/02 :  0 1 2 .."), the trees ("Trees [0] d0/d1/d2->r->up"),
 *    every connection and the transport it took ("Channel 00/0 : 0[0] ->
 *    1[1] via P2P/CUMEM/read", "... [send] via NET/IB/3/GDRDMA"), and the
 *    NICs ("NET/IB : Using [0]mlx5_0:1/IB ...").
 *
 * A file may hold both (nccl-tests run with NCCL_DEBUG=INFO): every line is
 * read for what it is. Lines that are neither are skipped and counted; a
 * line that starts like one of them and does not parse is counted as bad.
 */
#ifndef LP_SWEEP_COLLIMPORT_H
#define LP_SWEEP_COLLIMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/json.h"
#include "sweep/coll.h"

/* ---- a line into tokens (whitespace-separated, in place) ---------------------------------- */

/*
 * Split s (modified: NULs written after each token) into at most max tokens;
 * returns the count, or -E2BIG when there are more (tok holds the first max).
 */
int lp_coll_tokenize(char *s, char **tok, int max);

/* ---- what an import found ---------------------------------------------------------------- */

#define LP_COLL_TOPO_MAX_RANKS 65536
#define LP_COLL_TOPO_MAX_NETS  64

struct lp_coll_topo_rank {
	bool seen;
	char host[64];
	int pid;
	int dev;	/* CUDA device (nccl-tests' device, NCCL's [dev]); -1 unknown */
	char busid[24]; /* nccl-tests' [0000:18:00]; "" unknown */
	char gpu[64];	/* nccl-tests' device name */
	int node;	/* the sweep node it maps to; -1 none (lp_coll_topo_map) */
};

/* Where a connection's bytes go. */
enum lp_coll_via {
	LP_COLL_VIA_P2P = 0, /* P2P/CUMEM, P2P/IPC, P2P/direct: NVLink or PCIe peer access */
	LP_COLL_VIA_MNNVL,   /* P2P/MNNVL: NVLink across nodes (multi-node NVLink) */
	LP_COLL_VIA_SHM,     /* SHM: through host memory */
	LP_COLL_VIA_NET,     /* NET/<plugin>: the network */
	LP_COLL_VIA_OTHER,   /* COLLNET, NVLS, anything else */
};
extern const char *const lp_coll_via_names[]; /* "p2p", "mnnvl", "shm", "net", "other", NULL */

struct lp_coll_topo_edge {
	int chan, conn;
	int a, b; /* ranks a -> b */
	int a_dev, b_dev;
	int via;       /* enum lp_coll_via */
	char how[48];  /* as logged: "P2P/CUMEM/read", "NET/IB/3/GDRDMA" */
	char side[8];  /* "send", "receive", "" */
	int netdev;    /* NET: the plugin's device index; -1 */
	bool gdr;      /* NET: GPUDirect RDMA */
	char host[64]; /* the line's host */
};

struct lp_coll_topo_ring {
	int chan;
	int n;
	int *order;
};

struct lp_coll_topo_tree {
	int chan, rank;
	int up, down[3];
};

struct lp_coll_topo_net {
	char host[64];
	int idx;
	char dev[32];
	int port;
	char link[12]; /* "IB", "RoCE" */
};

struct lp_coll_topo {
	char src[256];
	/* nccl-tests */
	char program[32];	/* "all_reduce_perf" */
	char tests_version[32]; /* "2.17.6" */
	int nrows;		/* table rows read */
	double avg_busbw;	/* its "Avg bus bandwidth" (GB/s), NaN none */
	int64_t out_of_bounds;	/* its "Out of bounds values", -1 none */
	/* NCCL */
	char nccl_version[32];
	char network[16]; /* "IB", "Socket" */
	int nranks, nnodes, mnnvl;
	struct lp_coll_topo_rank *ranks; /* nranks (grown as ranks are seen) */
	int cap_ranks;
	struct lp_coll_topo_ring *rings;
	int nrings;
	struct lp_coll_topo_edge *edges;
	size_t nedges, cap_edges;
	struct lp_coll_topo_tree *trees;
	size_t ntrees, cap_trees;
	struct lp_coll_topo_net nets[LP_COLL_TOPO_MAX_NETS];
	int nnets;
	/* the lines */
	size_t lines, lines_used, lines_bad;
	char first_bad[160]; /* the first bad line's number and text */
};

void lp_coll_topo_free(struct lp_coll_topo *t);

/*
 * Read one file: JSON (nccl-tests -J, told by content) or text (nccl-tests'
 * table and/or NCCL INFO lines). Table rows become results of path
 * "nccl-tests" in cr, group `label` (NULL: the file's name); the rest a
 * topology appended to cr->topo. 0; -EINVAL with the cause in fail (nothing usable in it,
 * a malformed row, invalid JSON, a table whose busbw does not follow from
 * its algbw by nccl-tests' factor); -ENOENT/-EACCES... (the file), -ENOMEM,
 * -E2BIG (more than LP_COLL_MAX_IMPORT imports), -ENOTSUP (JSON without
 * jansson).
 */
int lp_coll_import(struct lp_coll_run *cr, const char *path, const char *label,
		   struct lp_fail *fail);
/* The same over a text in memory (the fuzz harness, the tests). */
int lp_coll_import_text(struct lp_coll_run *cr, const char *text, size_t len, const char *src,
			const char *label, struct lp_fail *fail);

/*
 * Map t's ranks onto a sweep run's nodes: by host name (exact, or up to the
 * first dot on either side) and, where the run has rails (a node per host and
 * local index), by the rank's device as the rail. hosts[i], rails[i] (NULL:
 * 0) of n nodes. Returns the ranks mapped.
 */
int lp_coll_topo_map(struct lp_coll_topo *t, const char *const *hosts, const int *rails, int n);

/*
 * NCCL's own rings (every channel, each with 1/C of the data; without NCCL's
 * lines, one ring in rank order) over the run's links: the flows of the
 * edges that cross hosts, mapped onto the nodes, as a
 * ceiling (scheme "ring", group: the file's name, as its rows'). Intra-host hops are left out
 * (said in the ceiling's unknown count). 0, -ENOENT (no ring, or no rank
 * mapped), -ENOMEM.
 */
int lp_coll_topo_ceiling(const struct lp_coll_topo *t, const struct lp_coll_fabric *f,
			 struct lp_coll_ceiling *c);

/* Sinks: an import as a JSON object (members of the current object), and its summary lines. */
void lp_coll_topo_json(struct lp_json *j, const struct lp_coll_topo *t);
void lp_coll_topo_summary(FILE *f, const struct lp_coll_topo *t);

#endif
