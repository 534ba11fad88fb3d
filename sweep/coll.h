/* SPDX-License-Identifier: MIT */
/*
 * Collectives beside the link matrix (issue 28), plain C: no MPI, no CUDA.
 *
 *  - conventions: nccl-tests' sizes, counts, algbw and busbw per collective
 *    (src/<coll>.cu GetCollByteCount/GetBw of NVIDIA/nccl-tests), so that a
 *    figure here and one from all_reduce_perf mean the same thing;
 *  - results: one record per collective x size x placement x group x path,
 *    measured (sweep/mpi/coll.c) or imported (sweep/collimport.c);
 *  - the ceiling model: the busbw the measured links allow for a scheme
 *    (ring in the order used, the best ring, NCCL's double binary tree,
 *    NCCL's rail-aligned rings, in-network reduction, alltoall's direct
 *    pairs), with its bottleneck edges named (docs/METHOD.md, "Collectives");
 *  - the bisection: from a slow collective to the node, link or group behind
 *    it, over two callbacks (a ring over a subset, one ordered pair);
 *  - claims: a quoted busbw, scaling efficiency or AllReduce share of a step
 *    checked against what these links allow.
 *
 * Units: GB/s = 1e9 bytes/s (nccl-tests' unit), sizes in bytes, times in us.
 */
#ifndef LP_SWEEP_COLL_H
#define LP_SWEEP_COLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/fail.h"
#include "common/json.h"
#include "common/record.h"

/* ---- conventions ------------------------------------------------------------------------- */

enum lp_coll_kind {
	LP_COLL_ALLREDUCE = 0,
	LP_COLL_ALLGATHER,
	LP_COLL_REDUCESCATTER,
	LP_COLL_ALLTOALL,
	LP_COLL_BROADCAST,
	LP_COLL_REDUCE,
	LP_COLL_SENDRECV,
	LP_COLL_NKINDS,
};

/* "allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "reduce", "sendrecv", NULL */
extern const char *const lp_coll_names[];

/* A collective's name, nccl-tests' spelling ("all_reduce") or binary ("all_reduce_perf"): its kind, or -1. */
int lp_coll_kind_parse(const char *s);
/* nccl-tests' binary for a kind: "all_reduce_perf", ... */
const char *lp_coll_nccl_tests_name(enum lp_coll_kind k);
/* The kind has a reduction operator (allreduce, reducescatter, reduce). */
bool lp_coll_reduces(enum lp_coll_kind k);
/* The kind has a root (broadcast, reduce). */
bool lp_coll_rooted(enum lp_coll_kind k);

/*
 * busbw = algbw x factor (nccl-tests doc/PERFORMANCE.md): allreduce 2(n-1)/n,
 * allgather, reducescatter and alltoall (n-1)/n, broadcast, reduce and
 * sendrecv 1. n < 1 gives NaN.
 */
double lp_coll_factor(enum lp_coll_kind k, int n);

/*
 * What one operation of size `size` bytes (nccl-tests' -b/-e value) moves,
 * rounded as nccl-tests rounds it: count = size / elt; allgather,
 * reducescatter and alltoall use base = (count / n) rounded down to a
 * multiple of 16 bytes' worth of elements per rank.
 */
struct lp_coll_shape {
	uint64_t send_count;  /* elements in each rank's send buffer */
	uint64_t recv_count;  /* elements in each rank's receive buffer */
	uint64_t param_count; /* the count argument of the call (the table's count column) */
	uint64_t bytes;	      /* the table's size column: max(send, receive) bytes */
};
/* 0, or -EINVAL (elt 0 or not a power of two up to 16, n < 1). */
int lp_coll_shape(enum lp_coll_kind k, uint64_t size, size_t elt, int n, struct lp_coll_shape *s);

/* algbw = bytes / sec (GB/s), busbw = algbw x lp_coll_factor (NaN when sec <= 0). */
void lp_coll_bw(enum lp_coll_kind k, int n, uint64_t bytes, double sec, double *algbw_p,
		double *busbw_p);

/*
 * The data every path sends and checks (float, like nccl-tests' default):
 * element i of rank r's send buffer is ((r % 16) + 1) x ((i % 7) + 1), so
 * every sum over ranks is an integer below 2^24 (exact in float) up to
 * 280,000 ranks, and a block from the wrong rank or offset shows.
 */
float lp_coll_value(int rank, uint64_t i);
/* Fill rank's send buffer: s->send_count elements. */
void lp_coll_fill(int rank, const struct lp_coll_shape *s, float *send);
/*
 * Elements of rank's result that differ from what collective k must give
 * over n ranks (root: broadcast's and reduce's; sendrecv: from rank - 1). res
 * holds the result as the call leaves it in the receive buffer: count,
 * n x base or base elements from its start; a reduce's non-root ranks have
 * no result (0).
 */
int64_t lp_coll_check(enum lp_coll_kind k, int rank, int n, int root, const struct lp_coll_shape *s,
		      const float *res);

/* ---- results -------------------------------------------------------------------------------- */

/*
 * How a result was obtained: the MPI library's collective on host memory,
 * linkperf's own ring all-reduce over MPI point-to-point in the run's node
 * order (the schedule the ceiling model assumes), NCCL on GPU memory, or
 * imported from a nccl-tests output.
 */
enum lp_coll_path {
	LP_COLL_PATH_MPI = 0,
	LP_COLL_PATH_RING,
	LP_COLL_PATH_NCCL,
	LP_COLL_PATH_IMPORT,
	LP_COLL_NPATHS,
};
extern const char *const lp_coll_path_names[]; /* "mpi", "ring", "nccl", "nccl-tests", NULL */

#define LP_COLL_ERR_LEN	  160
#define LP_COLL_GROUP_LEN 32

#define LP_COLL_NAME_LEN 16 /* a collective's, path's, scheme's or kind's name */
#define LP_COLL_NODE_LEN 80 /* a node's label (lp_sweep_node.name) */

/*
 * One collective at one size, one placement, over one group of ranks, by one
 * path. Names are stored as text (lp_coll_names[], lp_coll_path_names[]): the
 * record reads the same on the wire, in JSON and in CSV.
 */
struct lp_coll_result {
	char coll[LP_COLL_NAME_LEN];   /* "allreduce" */
	char path[LP_COLL_NAME_LEN];   /* "mpi", "ring", "nccl", "nccl-tests" */
	char group[LP_COLL_GROUP_LEN]; /* "all", "rail 1", an import's label */
	int32_t nranks;
	uint64_t size;	/* bytes: nccl-tests' size column */
	uint64_t count; /* elements: nccl-tests' count column */
	char type[12];	/* element type: "float" */
	char redop[8];	/* "sum"; "none" without a reduction */
	int32_t root;	/* -1: no root */
	bool in_place;
	int32_t warmup, iters;
	double time_us;	    /* per operation: mean over the iterations, averaged over ranks */
	double time_max_us; /* the slowest rank's mean (NaN unknown) */
	double algbw;	    /* GB/s: size / time */
	double busbw;	    /* GB/s: algbw x lp_coll_factor */
	int64_t wrong;	    /* elements wrong in the check, summed over ranks; -1 not checked */
	int32_t status;	    /* 0, or a negative errno */
	char error[LP_COLL_ERR_LEN];
};
extern const struct lp_record lp_coll_result_record;

/* A result zeroed with NaN figures, wrong = -1, root = -1, redop "none", type "float". */
void lp_coll_result_init(struct lp_coll_result *r, enum lp_coll_kind coll, enum lp_coll_path path,
			 const char *group, int nranks);

/* ---- the ceiling model -------------------------------------------------------------------- */

/*
 * The links the model may use: n endpoints (the run's ranks), the bandwidth
 * of each ordered pair measured alone, in GB/s (bw[a*n + b], NaN where not
 * measured), and where each endpoint sits: host index (NULL: a host each)
 * and local index on its host (NULL: 0). Pairs on one host take their
 * bandwidth from intra (ng x ng by local index, GB/s: lp-gpu's P2P matrix)
 * when given, else from bw.
 */
struct lp_coll_fabric {
	int n;
	const double *bw;
	const int *host;
	const int *local;
	int ng;
	const double *intra;
	const char *const *names; /* n labels for the edges named (NULL: indices only) */
};

/* The schemes a collective's data may take. */
enum lp_coll_scheme {
	LP_COLL_SCHEME_RING = 0,  /* one ring in the order given (reduce-scatter + all-gather) */
	LP_COLL_SCHEME_RING_BEST, /* the ring whose slowest edge is fastest (n <= 16) */
	LP_COLL_SCHEME_TREE,  /* NCCL's double binary tree over the order (half the data each) */
	LP_COLL_SCHEME_RAILS, /* NCCL's rail-aligned rings: one channel per local index */
	LP_COLL_SCHEME_INNET, /* in-network reduction (SHARP, NVLS): each rank sends and receives S */
	LP_COLL_SCHEME_CHAIN,  /* a pipeline from the root along the order (broadcast, reduce) */
	LP_COLL_SCHEME_DIRECT, /* every ordered pair at once (alltoall) */
	LP_COLL_NSCHEMES,
};
/* "ring", "ring_best", "tree", "rails", "innet", "chain", "direct", NULL */
extern const char *const lp_coll_scheme_names[];

/* A limit of a scheme: an edge a->b, or a rank's port (all of its flows out of, or into, it). */
enum lp_coll_limit {
	LP_COLL_LIMIT_EDGE = 0,
	LP_COLL_LIMIT_EGRESS = 1, /* a's flows out together (b = -1) */
	LP_COLL_LIMIT_INGRESS = 2 /* a's flows in together (b = -1) */
};

extern const char *const lp_coll_limit_names[]; /* "edge", "egress", "ingress", NULL */

struct lp_coll_edge {
	char limit[LP_COLL_NAME_LEN]; /* lp_coll_limit_names[] */
	int32_t a, b;
	char a_name[LP_COLL_NODE_LEN], b_name[LP_COLL_NODE_LEN]; /* "" unknown or none */
	double gbs;  /* the measured bandwidth of the edge (or of the port: the rank's best pair) */
	double load; /* bytes over it per byte of the collective's size */
	double busbw; /* the busbw this limit alone allows */
};

#define LP_COLL_MAX_BOTT  8
#define LP_COLL_MAX_ORDER 16
#define LP_COLL_BEST_MAX  16 /* ring_best is searched exactly up to this many ranks */

struct lp_coll_ceiling {
	char coll[LP_COLL_NAME_LEN];   /* lp_coll_names[] */
	char scheme[LP_COLL_NAME_LEN]; /* lp_coll_scheme_names[] */
	char group[LP_COLL_GROUP_LEN];
	int32_t nranks;
	double algbw, busbw; /* GB/s the links allow; NaN: none of its edges measured */
	int32_t nedges;	     /* directed edges the scheme uses */
	int32_t unknown;     /* of those, not measured (the ceiling holds over the others) */
	uint32_t nbott;	     /* limits at (within 1 % of) the ceiling, slowest first */
	struct lp_coll_edge bott[LP_COLL_MAX_BOTT];
	uint32_t norder; /* ring_best: the order found */
	int32_t order[LP_COLL_MAX_ORDER];
};
extern const struct lp_record lp_coll_ceiling_record;

/*
 * The ceiling of collective coll under scheme over the endpoints order[0..k)
 * (indices into f; rails: one channel per local index, hosts in the order of
 * their first endpoint). 0; -EINVAL (k < 2, an index out of range, a scheme
 * the collective does not take: lp_coll_scheme_fits); -ENOMEM. A ceiling with
 * no measured edge has NaN busbw.
 */
int lp_coll_ceiling(const struct lp_coll_fabric *f, enum lp_coll_kind coll,
		    enum lp_coll_scheme scheme, const int *order, int k, struct lp_coll_ceiling *c);
/*
 * The same for flows given one by one (an imported NCCL topology's rings):
 * fl[i] carries load bytes from a to b per byte of the collective's size;
 * nranks gives the collective's factor. c->scheme is "ring", c->group "all"
 * (the caller renames them). 0, -EINVAL (an endpoint out of range), -ENOMEM.
 */
struct lp_coll_flow {
	int a, b;
	double load;
};
int lp_coll_ceiling_flows(const struct lp_coll_fabric *f, enum lp_coll_kind coll, int nranks,
			  const struct lp_coll_flow *fl, size_t nfl, struct lp_coll_ceiling *c);
/* The scheme applies to the collective (ring: not alltoall; tree, innet: allreduce; ...). */
bool lp_coll_scheme_fits(enum lp_coll_kind coll, enum lp_coll_scheme scheme);
/*
 * The scheme a collective's data takes at large sizes, which a measured one is
 * held against: direct for alltoall, chain for broadcast and reduce, else ring.
 */
enum lp_coll_scheme lp_coll_scheme_of(enum lp_coll_kind coll);

/* ---- the bisection ---------------------------------------------------------------------- */

/*
 * What the bisection may measure, each bounded by the caller: a collective
 * over a ring of k of the nodes in the order given (its busbw, GB/s), and one
 * ordered pair alone (GB/s). 0 with the figure, or a negative errno (the
 * probe failed: -EINTR stops the bisection).
 */
struct lp_coll_probe_ops {
	int (*ring)(void *arg, const int *nodes, int k, double *busbw_p);
	int (*edge)(void *arg, int a, int b, double *gbs_p);
};

struct lp_coll_bisect_opts {
	double ratio;	/* a part is slow below ratio x its reference (default 0.9) */
	int max_probes; /* bound on probes (default 64) */
	int repeats;	/* probes of a part whose figure is near the threshold (default 3) */
	const char *const *names; /* labels of the caller's node indices (NULL: none) */
	/* the busbw a healthy ring of these nodes reaches (a floor, another rail's figure);
	 * NaN: the parts are compared with each other only (no "shared" verdict) */
	double ref_busbw;
};
void lp_coll_bisect_opts_default(struct lp_coll_bisect_opts *o);

enum lp_coll_guilty {
	LP_COLL_GUILTY_NONE = 0, /* the collective is not slow: nothing to find */
	LP_COLL_GUILTY_NODE,	 /* one node: its edges to healthy nodes are slow */
	LP_COLL_GUILTY_LINK,	 /* one ordered pair: slow while both ends are healthy */
	LP_COLL_GUILTY_SHARED,	 /* every part is slow alike: what they share (a rail, a switch) */
	LP_COLL_GUILTY_CONCURRENCY,  /* slow only with every node at once: no part, no edge */
	LP_COLL_GUILTY_INCONCLUSIVE, /* the noise, a failed probe or the probe budget */
};
/* "none", "node", "link", "shared", "concurrency", "inconclusive", NULL */
extern const char *const lp_coll_guilty_names[];

enum lp_coll_probe_kind { LP_COLL_PROBE_RING = 0, LP_COLL_PROBE_EDGE = 1 };

/* One measurement the bisection made: a ring over order[first .. first+count), or nodes a -> b. */
extern const char *const lp_coll_probe_names[]; /* "ring", "edge", NULL */

struct lp_coll_probe {
	char kind[8]; /* lp_coll_probe_names[] */
	int32_t first, count;
	int32_t a, b;
	double value; /* GB/s (ring: busbw); NaN failed */
	double ref;   /* what it was compared with (GB/s); NaN none */
	bool slow;
};

#define LP_COLL_MAX_PROBES 96
#define LP_COLL_DIR_OUT	   1u /* node: its egress (it as the sender) */
#define LP_COLL_DIR_IN	   2u /* node: its ingress */

struct lp_coll_verdict {
	char kind[LP_COLL_NAME_LEN]; /* lp_coll_guilty_names[] */
	char coll[LP_COLL_NAME_LEN];
	char group[LP_COLL_GROUP_LEN];
	int32_t a, b; /* node a; link a->b (caller's node indices); -1 none */
	char a_name[LP_COLL_NODE_LEN], b_name[LP_COLL_NODE_LEN];
	uint32_t dirs;	/* node: LP_COLL_DIR_* seen slow */
	double ratio;	/* the guilty part's figure over its reference */
	int32_t probes; /* probes made (including repeats) */
	double wall_s;	/* time the bisection took (the caller's clock) */
	char reason[512];
	uint32_t nprobe; /* the probes behind it (first LP_COLL_MAX_PROBES) */
	struct lp_coll_probe probe[LP_COLL_MAX_PROBES];
};
extern const struct lp_record lp_coll_verdict_record;

/*
 * From a slow collective to the guilty part. order: the n nodes (caller's
 * indices) in the ring order of the collective. The full ring is probed
 * first; when it is slow (against o->ref_busbw, or its halves against each
 * other), it is halved along the order: the half that is slow against its
 * sibling is kept; when neither is, the two edges that join them are probed
 * as pairs; when both are slow against ref_busbw, the fault is shared. A part
 * of two or three nodes is resolved by its ring's edges and by each node's
 * edges to a healthy node: a node whose edges to healthy nodes are slow is
 * named, else the slow edge. The probes, each compared with what it was
 * measured against, are kept as evidence. Never names a part that did not
 * stand out by o->ratio. 0 with v filled, -EINVAL (n < 2, bad options),
 * -EINTR (a probe said stop: v holds what was found so far).
 */
int lp_coll_bisect(int n, const int *order, const struct lp_coll_probe_ops *ops, void *arg,
		   const struct lp_coll_bisect_opts *o, struct lp_coll_verdict *v);

/*
 * The ceiling c of the ring over order[0..k) (indices into f) holds it at
 * edges the matrix shows slow (below o->ratio x the ring's typical edge, the
 * median): each is retested o->repeats times through ops->edge (the caller's
 * node indices, as f's), and the slowest that stays slow is named, as the
 * node whose other edges out of it (or into it) are slow too in the matrix,
 * else as the link. kind "none" when no edge of the ring is slow in the
 * matrix, "inconclusive" when the retests clear it. 0, -EINVAL, -EINTR.
 */
int lp_coll_targeted(const struct lp_coll_fabric *f, const int *order, int k,
		     const struct lp_coll_ceiling *c, const struct lp_coll_probe_ops *ops,
		     void *arg, const struct lp_coll_bisect_opts *o, struct lp_coll_verdict *v);

/* ---- claims ------------------------------------------------------------------------------- */

enum lp_coll_claim_kind {
	LP_COLL_CLAIM_BUSBW = 0,  /* busbw=380GB/s@8n */
	LP_COLL_CLAIM_EFFICIENCY, /* efficiency=0.95@64n,compute=0.5s,bytes=2GB */
	LP_COLL_CLAIM_SHARE,	  /* share=30%@64n,step=1.2s,bytes=14GB */
};
extern const char *const lp_coll_claim_names[]; /* "busbw", "efficiency", "share", NULL */

enum lp_coll_claim_verdict {
	LP_COLL_CLAIM_DELIVERABLE = 0,
	LP_COLL_CLAIM_NEEDS_INNET, /* above any ring or tree, within in-network reduction's */
	LP_COLL_CLAIM_NOT_DELIVERABLE,
	LP_COLL_CLAIM_UNKNOWN, /* no ceiling (no link measured) */
};
/* "deliverable", "needs_innet", "not_deliverable", "unknown", NULL */
extern const char *const lp_coll_claim_verdict_names[];

struct lp_coll_claim {
	char text[128];		     /* as given */
	char kind[LP_COLL_NAME_LEN]; /* lp_coll_claim_names[] */
	double value;		     /* busbw GB/s; efficiency 0..1; share 0..1 */
	int32_t nodes;		     /* the n it is claimed at; 0 = the run's */
	double bytes;		     /* efficiency, share: bytes all-reduced per step */
	double compute_s;	     /* efficiency: compute time per step */
	double step_s;		     /* share: the step's time */
	/* judged */
	double need_busbw;    /* the all-reduce busbw the claim implies (GB/s) */
	double allowed;	      /* the best ring/tree ceiling over these links (GB/s) */
	double allowed_innet; /* with in-network reduction (GB/s) */
	double measured;      /* the best measured all-reduce busbw of the run (GB/s); NaN none */
	char verdict[LP_COLL_NAME_LEN]; /* lp_coll_claim_verdict_names[] */
	char reason[384];
};
extern const struct lp_record lp_coll_claim_record;

/*
 * "busbw=380GB/s@8n" (also Gb/s; "@8", "@8nodes"; no "@": the run's nodes),
 * "efficiency=0.95@64n,compute=0.5s,bytes=2GB" (also 95%), "share=30%@64n,step=1.2s,bytes=14GB".
 * Byte sizes take K/M/G/T (1e3 powers: GB as in GB/s) or KiB/MiB/GiB/TiB.
 * 0, or -EINVAL with the cause in fail.
 */
int lp_coll_claim_parse(const char *s, struct lp_coll_claim *c, struct lp_fail *fail);

struct lp_coll_run;
/*
 * Judge c against the run's all-reduce ceilings over group "all" (rings,
 * trees, rails; in-network reduction apart) and its measured figures, for
 * n = c->nodes (0: the run's; more nodes than measured: an estimate, said so).
 */
void lp_coll_claim_judge(struct lp_coll_claim *c, const struct lp_coll_run *cr);

/* ---- a run's collectives ---------------------------------------------------------------- */

/* How the collective phase ran (echoed into the JSON). */
struct lp_coll_echo {
	char colls[128]; /* "allreduce,alltoall" */
	char paths[32];	 /* "mpi,ring,nccl" */
	char sizes[256]; /* "1048576,4194304" */
	int32_t warmup, iters;
	bool check;
	char link_metric[32]; /* the sweep metric the ceilings use: "write_bw 1 MiB" */
	char intra[256];      /* the intra-node matrix's source ("" none) */
	char mpi_library[128];
	char nccl_version[32]; /* "" not used */
	char note[256];	       /* what could not run */
	double wall_s;
};

extern const struct lp_record lp_coll_echo_record;

/* The judgement of one measured collective against its ceiling. */
struct lp_coll_judgement {
	const struct lp_coll_result *res;   /* out of place, at the largest size measured */
	const struct lp_coll_ceiling *ceil; /* the ring's (chain, direct); NULL none */
	double ratio;			    /* busbw / the ceiling's; NaN none */
	bool at_limit; /* ratio >= the run's limit_ratio: the named edges hold it */
	bool above;    /* ratio > LP_COLL_ABOVE: not this scheme over these links (NVLS, SHARP,
			* a tree, or links other than the ones measured) */
};
#define LP_COLL_ABOVE 1.1

#define LP_COLL_MAX_IMPORT 8

struct lp_coll_topo; /* an imported NCCL topology (sweep/collimport.h) */

struct lp_coll_run {
	struct lp_coll_echo echo;
	struct lp_coll_result *res;
	size_t nres, capres;
	struct lp_coll_ceiling *ceil;
	size_t nceil, capceil;
	struct lp_coll_verdict *verd;
	size_t nverd, capverd;
	struct lp_coll_claim *claim;
	size_t nclaim, capclaim;
	struct lp_coll_topo *topo[LP_COLL_MAX_IMPORT]; /* imported NCCL topologies */
	int ntopo;
	char import_src[LP_COLL_MAX_IMPORT][256]; /* imported files, as given */
	int nimport;
	double limit_ratio; /* measured / allowed at or above this is "at the links' limit" */
};

struct lp_coll_run *lp_coll_run_new(void);
void lp_coll_run_free(struct lp_coll_run *cr);
/* Append a copy. 0 or -ENOMEM. */
int lp_coll_run_add_result(struct lp_coll_run *cr, const struct lp_coll_result *r);
int lp_coll_run_add_ceiling(struct lp_coll_run *cr, const struct lp_coll_ceiling *c);
int lp_coll_run_add_verdict(struct lp_coll_run *cr, const struct lp_coll_verdict *v);
int lp_coll_run_add_claim(struct lp_coll_run *cr, const struct lp_coll_claim *c);

/* The ceiling of (coll, scheme, group), or NULL. */
const struct lp_coll_ceiling *lp_coll_run_ceiling(const struct lp_coll_run *cr, const char *coll,
						  const char *scheme, const char *group);
/*
 * For each (collective, path, group) measured: its out-of-place busbw at the
 * largest size measured against its ring ceiling (chain for broadcast and
 * reduce, direct for alltoall). Writes up to max into out; returns the count.
 */
size_t lp_coll_judge(const struct lp_coll_run *cr, struct lp_coll_judgement *out, size_t max);

/* A part named (node, link, shared, concurrency) or a wrong element: the run's exit code is 1. */
bool lp_coll_flagged(const struct lp_coll_run *cr);
/* A search that could not tell (the run's exit code is 3 when nothing else is flagged). */
bool lp_coll_inconclusive(const struct lp_coll_run *cr);

/*
 * Sinks. names: the run's node labels (n of them; an index out of range is
 * written as a number). lp_coll_json writes the "collectives" member of the
 * current object (nothing when cr is NULL).
 */
void lp_coll_json(struct lp_json *j, const struct lp_coll_run *cr, const char *const *names, int n);
void lp_coll_summary(FILE *f, const struct lp_coll_run *cr, const char *const *names, int n);

#endif
