/* SPDX-License-Identifier: MIT */
/* lp-rdma internals shared by the rdma sources (not a public interface). */
#ifndef LP_RDMA_INTERNAL_H
#define LP_RDMA_INTERNAL_H

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "rdma/mem.h"
#include "rdma/rdma.h"

struct lp_rdma_dev {
	struct ibv_context *ctx;
	struct ibv_context **cm_devs;	/* librdmacm's contexts when ctx is one of them */
	struct ibv_pd *pd;
	struct ibv_port_attr port_attr;
	struct ibv_device_attr dev_attr;
	struct lp_gid_entry *gids;
	int ngids;
	union ibv_gid gid;
	struct lp_rdma_devinfo info;
	int tclass, sl;
	bool is_roce;
};

/* Messages of the exchange (lp_wire frame types). */
enum lp_rdma_msg {
	LP_MSG_HELLO = 1,	/* client -> server: struct lp_rdma_params */
	LP_MSG_ACCEPT = 2,	/* server -> client: devinfo, memory kind */
	LP_MSG_ERROR = 3,	/* either way: code + text; the test is over */
	LP_MSG_QPINFO = 4,	/* both ways: QP numbers, PSNs, GID, LID, rkey, address */
	LP_MSG_READY = 5,	/* both ways: connected, start */
	LP_MSG_DONE = 6,	/* client -> server: timed part over (iterations done) */
	LP_MSG_RESULT = 7,	/* server -> client: verification, its bandwidth (bidir) */
	LP_MSG_BYE = 8,		/* client -> server: session over */
};

/* One side of a connection: what the peer needs to reach our QPs and memory. */
struct lp_qpinfo {
	uint32_t nqps;
	uint32_t qpn[LP_RDMA_MAX_QPS];
	uint32_t psn[LP_RDMA_MAX_QPS];
	uint16_t lid;
	uint8_t gid[16];
	uint32_t rkey;
	uint64_t addr;		/* start of the buffer (layout: lp_conn_off) */
	uint64_t slot;		/* bytes per ring slot (>= message size) */
	uint32_t mtu;		/* requested path MTU (the smaller one wins) */
	char mem[32];		/* memory description for the results */
};

void lp_qpinfo_encode(const struct lp_qpinfo *q, struct lp_wbuf *w);
int lp_qpinfo_decode(struct lp_qpinfo *q, struct lp_rbuf *r);

/* How this side sees the peer's write_lat write arrive. */
enum lp_detect {
	LP_DETECT_CPU,	/* the CPU polls the last byte of its (host) receive buffer */
	LP_DETECT_GPU,	/* a GPU kernel polls it in GPU memory and signals the CPU */
	LP_DETECT_IMM,	/* WRITE_WITH_IMM: the CPU polls the receive CQ */
};

/* Everything one test on one side needs. */
struct lp_rdma_conn {
	struct lp_rdma_dev *dev;
	const struct lp_rdma_params *p;
	bool is_client;
	struct ibv_comp_channel *chan;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp[LP_RDMA_MAX_QPS];
	struct rdma_cm_id *cm_id[LP_RDMA_MAX_QPS];
	struct rdma_event_channel *cm_ch;
	struct rdma_cm_id *cm_listen;
	uint32_t nqps;
	struct lp_mem mem;	/* registered buffer: nqps * 2 * depth * slot bytes */
	uint64_t slot;
	uint64_t depth;		/* slots per ring (lp_conn_ring_depth) */
	uint64_t rx_posted[LP_RDMA_MAX_QPS]; /* receives posted per QP (each into the next slot) */
	uint32_t max_inline;
	uint32_t mtu;
	struct lp_qpinfo local, remote;
	struct lp_oob *oob;
	const volatile sig_atomic_t *stop; /* abort the loops (SIGINT/SIGTERM) */
	enum lp_detect detect;	/* write_lat only */
	uint8_t *flag_host;	/* 64 B of host memory: the counter byte sent after GPU data */
	struct ibv_mr *flag_mr;
	void *poller;		/* struct lp_gpu_poller * for LP_DETECT_GPU */
	char why[160];		/* lp_conn_setup failed: the first cause, one line */
	const char *scatter_to_cqe; /* how the QPs were created: LP_S2CQE_DEFAULT or LP_S2CQE_OFF */
	int mr_access;		/* access flags the buffer was registered with */
	double notify_us;	/* LP_DETECT_GPU: measured GPU->CPU notification (one way), else NaN */
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
#define LP_S2CQE_OFF "disabled (MLX5_SCATTER_TO_CQE=0 at QP creation)"

const char *lp_detect_name(enum lp_detect d);

/* QP/CQ/MR set-up and teardown (conn.c): 0 or -errno, and then c->why says what failed. */
int lp_conn_setup(struct lp_rdma_conn *c, struct lp_rdma_dev *dev, const struct lp_rdma_params *p,
		  enum lp_mem_kind mem, int mem_dev, bool is_client, struct lp_oob *oob,
		  const char *server_host, const char *bind_addr);
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
static inline uint64_t lp_conn_off(const struct lp_rdma_conn *c, uint32_t q, bool rx, uint64_t k)
{
	return ((2 * (uint64_t)q + rx) * c->depth + k) * c->slot;
}

/*
 * Receive the peer's next message, waiting in short slices so that *oob->stop
 * (SIGINT/SIGTERM) ends the wait within ~10 ms: then -EINTR (session.c).
 */
int lp_oob_recv(struct lp_oob *oob, uint16_t *type_p, uint8_t *body, size_t *len_p,
		int timeout_ms);

/* Send an ERROR message (best effort). */
void lp_rdma_send_error(struct lp_oob *oob, int code, const char *text);

/* Test loops (loops.c). Each returns 0 or -errno; on failure r->error says why. */
struct lp_loop_out {
	struct lp_stats rtt;	/* ns per round trip / read completion */
	struct lp_rdma_bw bw;
	uint64_t iters;
	uint64_t msgs[LP_RDMA_MAX_QPS];	/* messages this side posted per QP (warm-up included) */
	bool peer_done;		/* server: the client's DONE arrived */
};

int lp_loop_run(struct lp_rdma_conn *c, bool active, struct lp_loop_out *out, char *why,
		size_t why_len);

/*
 * Check every slot of every receiving ring (--verify, after the timed loop).
 * landed[q]: the messages that landed on QP q (the peer's count for writes and
 * sends, this side's for reads); send tests also count their receive
 * completions against it (lost messages). Adds what was checked to *v.
 * 0, -EILSEQ with why naming the test, size, QP, message and byte, or -errno.
 */
int lp_conn_verify(struct lp_rdma_conn *c, const uint64_t *landed, struct lp_rdma_verified *v,
		   char *why, size_t len);

#endif
