/* SPDX-License-Identifier: MIT */
/* lp-rdma internals shared by the rdma sources (not a public interface). */
#ifndef LP_RDMA_INTERNAL_H
#define LP_RDMA_INTERNAL_H

#include <stdarg.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "common/fail.h"
#include "rdma/mem.h"
#include "rdma/proto.h"
#include "rdma/rdma.h"
#include "rdma/reuse.h"

struct lp_rdma_dev {
	struct ibv_context *ctx;
	struct ibv_context **cm_devs; /* librdmacm's contexts when ctx is one of them */
	struct ibv_pd *pd;
	struct ibv_port_attr port_attr;
	struct ibv_device_attr dev_attr;
	struct lp_gid_entry *gids;
	int ngids;
	union ibv_gid gid;
	struct lp_rdma_devinfo info;
	int tclass, sl;
	int qp_timeout; /* local ACK timeout exponent (4.096 us << N per try) */
	bool is_roce;
	struct lp_rdma_reuse *reuse; /* lp_rdma_dev_reuse's cache and pool; NULL: none */
};

/* lp_rdma_dev_reuse's state (conn.c): copies of a dev (a server session's) share it. */
struct lp_rdma_reuse {
	struct lp_reuse_pool mrs; /* struct lp_mem (registered), by struct lp_conn_mr_key */
	struct lp_reuse_pool qps; /* struct lp_conn_qset (QPs in RESET), by lp_conn_qset_key */
	uint64_t qp_fallbacks;	  /* atomically */
};
void lp_rdma_reuse_free(struct lp_rdma_reuse *r);

/* Everything one test on one side needs. */
struct lp_rdma_conn {
	struct lp_rdma_dev *dev;
	const struct lp_rdma_params *p;
	const struct lp_rdma_test_info *t; /* p's test, and from it (before any loop): */
	bool rd;		   /* its messages are READs: they land in this side's ring */
	enum ibv_wr_opcode opcode; /* the work request of every message */
	bool is_client;
	struct ibv_comp_channel *chan;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp[LP_RDMA_MAX_QPS];
	struct rdma_cm_id *cm_id[LP_RDMA_MAX_QPS];
	struct rdma_event_channel *cm_ch;
	struct rdma_cm_id *cm_listen;
	const struct lp_sock_allow *cm_allow; /* whose connect requests the server takes */
	uint32_t nqps;
	struct lp_mem mem; /* registered buffer: nqps * 2 * depth * slot bytes */
	uint64_t slot;
	uint64_t depth;			     /* slots per ring (lp_conn_ring_depth) */
	uint64_t rx_posted[LP_RDMA_MAX_QPS]; /* receives posted per QP (each into the next slot) */
	uint32_t max_inline;
	uint32_t mtu;
	struct lp_qpinfo local, remote;
	struct lp_oob *oob;
	const volatile sig_atomic_t *stop; /* abort the loops (SIGINT/SIGTERM) */
	enum lp_detect detect;		   /* write_lat only */
	uint8_t *flag_host; /* 64 B of host memory: the counter byte sent after GPU data */
	struct ibv_mr *flag_mr;
	enum lp_mem_kind mem_kind;  /* this side's memory */
	unsigned mem_caps;	    /* lp_mem_caps of mem (the loops ask these, never the kind) */
	struct lp_fail *fail;	    /* where every failure of this test records its cause */
	const char *scatter_to_cqe; /* how the QPs were created: LP_S2CQE_DEFAULT or LP_S2CQE_OFF */
	int mr_access;		    /* access flags the buffer was registered with */
	double notify_us; /* LP_DETECT_GPU: measured GPU->CPU notification (one way), else NaN */
	struct lp_mem *mem_cached; /* mem is this cached buffer's copy (dev->reuse) */
	bool mem_reused;	   /* ... used by a test before: its receiving rings are cleared */
	struct lp_conn_qset *qset; /* scq, rcq, qp[] are this pooled set's (dev->reuse) */
	bool qset_reused;	   /* ... taken from the pool: its QPs are in RESET */
};

/*
 * A verbs call's return value as 0 or a negative errno. ibv_post_send,
 * ibv_post_recv, ibv_modify_qp, ibv_query_* and friends return the error
 * code (positive; a few providers return it negated) and need not set errno.
 */
static inline int lp_verbs_err(int ret)
{
	return ret > 0 ? -ret : ret;
}

#define LP_S2CQE_DEFAULT "provider default"
#define LP_S2CQE_OFF	 "disabled (MLX5_SCATTER_TO_CQE=0 at QP creation)"

const char *lp_detect_name(enum lp_detect d);

/* What one side of a test connects with. */
struct lp_conn_cfg {
	struct lp_rdma_dev *dev;
	const struct lp_rdma_params *p;
	enum lp_mem_kind mem; /* this side's memory */
	int mem_dev;
	bool is_client;
	struct lp_oob *oob;
	const char *server_host;	   /* client with rdma_cm: where to connect */
	const char *bind_addr;		   /* server with rdma_cm: where to listen */
	const struct lp_sock_allow *allow; /* server with rdma_cm: whose requests (NULL any) */
	struct lp_fail *fail;		   /* the test's failure record (c->fail) */
};

/*
 * QP/CQ/MR set-up (conn.c): 0, or -errno with the cause in cfg->fail (and the
 * half-built connection torn down). -ECONNABORTED: the peer reported the failure.
 */
int lp_conn_setup(struct lp_rdma_conn *c, const struct lp_conn_cfg *cfg);
void lp_conn_teardown(struct lp_rdma_conn *c);
/* Post one receive into the next slot of QP q's receiving ring (wr_id = q). 0 or -errno. */
int lp_conn_post_recv(struct lp_rdma_conn *c, uint32_t q);

/*
 * Buffer layout. QP q owns a sending ring and a receiving ring of `depth`
 * slots each: message m (1-based, warm-up included) of QP q is sent from, and
 * lands in, slot (m - 1) % depth. Without --verify depth is 1 (every message
 * uses the same place, as perftest does); with --verify the ring holds every
 * message of the run where memory allows (lp_conn_ring_depth), so each one
 * can be checked after the timed loop.
 */
uint64_t lp_conn_ring_depth(const struct lp_rdma_params *p);
/* Bytes one side registers for p: both rings of every QP (what --max-mem bounds). */
uint64_t lp_conn_mem_bytes(const struct lp_rdma_params *p);
static inline uint64_t lp_conn_off(const struct lp_rdma_conn *c, uint32_t q, bool rx, uint64_t k)
{
	return ((2 * (uint64_t)q + rx) * c->depth + k) * c->slot;
}

/* Test loops (loops.c). Each returns 0 or -errno with the cause in c->fail. */
struct lp_loop_out {
	struct lp_stats rtt; /* ns per round trip / read completion */
	struct lp_rdma_bw bw;
	struct lp_ival_series ival; /* --interval (off unless p->interval_s) */
	uint64_t t_last;	    /* latency: the last sample's closing stamp (ticks) */
	uint64_t iters;
	uint64_t msgs[LP_RDMA_MAX_QPS]; /* messages this side posted per QP (warm-up included) */
	bool peer_done;			/* server: the client's DONE arrived */
};

int lp_loop_run(struct lp_rdma_conn *c, bool active, struct lp_loop_out *out);

/*
 * Check every slot of every receiving ring (--verify, after the timed loop).
 * landed[q]: the messages that landed on QP q (the peer's count for writes and
 * sends, this side's for reads); send tests also count their receive
 * completions against it (lost messages). Adds what was checked to *v.
 * 0, or -EILSEQ (the cause in c->fail names the test, size, QP, message and
 * byte), or -errno.
 */
int lp_conn_verify(struct lp_rdma_conn *c, const uint64_t *landed, struct lp_rdma_verified *v);

/*
 * Server: the opening of a session (OPEN, CHALLENGE, AUTH) with key (NULL:
 * none). 0 when the client answered; -EACCES (wrong key: the client was told),
 * or the channel's error, with the cause in f. GRANT or BUSY is the caller's.
 */
int lp_auth_server_open(struct lp_oob *oob, const struct lp_rdma_key *key, struct lp_fail *f);

#endif
