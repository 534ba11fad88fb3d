/* SPDX-License-Identifier: MIT */
/*
 * lp-rdma's exchange, every message declared once (common/record.h): both
 * sides encode and decode through the same table, so field order cannot drift.
 * Not a public interface (rdma/internal.h includes it; the fuzz harnesses and
 * unit tests use it).
 *
 *   client                          server
 *   OPEN(nonce)             ->      (lp-rdma over TCP: the session's opening; lp-sweep's
 *                                   ranks, one MPI job, start at HELLO)
 *                           <-      CHALLENGE(nonce, key?, proof) | ERROR (address not allowed)
 *   AUTH(mac)               ->      HMAC-SHA256 under the shared key (zeros without one)
 *                           <-      GRANT | BUSY(retry after, why) | ERROR (wrong key); the
 *                                   server closes after anything but GRANT
 *   HELLO(params)           ->      validate every field, within the server's limits
 *                           <-      ACCEPT(devinfo) | ERROR(status, text)
 *   QPINFO                  ->
 *                           <-      QPINFO            (keys, QPs, memory kind; rdma_cm
 *                                                     connects here)
 *   READY                   ->      (receives are posted before the answer)
 *                           <-      READY
 *   ... timed loop ...              ... responder / receiver / bidir sender ...
 *   DONE(iterations, msgs)  ->      (msgs: messages per QP, for the verification)
 *                           <-      RESULT(status, verification, its bandwidth, msgs,
 *                                            its intervals' summary)
 *   HELLO ... or BYE        ->
 *
 * A refused HELLO is answered with ERROR (the reason) and the session ends.
 * Frames carry LP_WIRE_VERSION; a peer of another version is refused with
 * one line naming both versions (lp_proto_recv). Version 5 added the opening
 * (OPEN .. GRANT/BUSY) and QPINFO's rdma_cm token.
 */
#ifndef LP_RDMA_PROTO_H
#define LP_RDMA_PROTO_H

#include "common/lp.h"
#include "common/record.h"
#include "rdma/counters.h"
#include "rdma/rdma.h"

struct lp_fail; /* common/fail.h: the first failure of a test and its cause */

/* Message types (lp_wire frame types). */
enum lp_rdma_msg {
	LP_MSG_HELLO = 1,      /* client -> server: struct lp_rdma_params */
	LP_MSG_ACCEPT = 2,     /* server -> client: struct lp_rdma_devinfo */
	LP_MSG_ERROR = 3,      /* either way: struct lp_proto_error; the test is over */
	LP_MSG_QPINFO = 4,     /* both ways: struct lp_qpinfo */
	LP_MSG_READY = 5,      /* both ways, no body: connected, start */
	LP_MSG_DONE = 6,       /* client -> server: struct lp_proto_done, the timed part is over */
	LP_MSG_RESULT = 7,     /* server -> client: struct lp_rdma_result_msg */
	LP_MSG_BYE = 8,	       /* client -> server, no body: session over */
	LP_MSG_OPEN = 9,       /* client -> server, first: struct lp_proto_open */
	LP_MSG_CHALLENGE = 10, /* server -> client: struct lp_proto_challenge */
	LP_MSG_AUTH = 11,      /* client -> server: struct lp_proto_auth */
	LP_MSG_GRANT = 12,     /* server -> client, no body: the device is this client's */
	LP_MSG_BUSY = 13,      /* server -> client: struct lp_proto_busy (then it closes) */
	LP_MSG_NTYPES
};

/* The opening: random nonces both ways, and MACs under the shared key (rdma/auth.c). */
#define LP_AUTH_NONCE 32
#define LP_AUTH_MAC   32 /* HMAC-SHA256 */

struct lp_proto_open {
	uint8_t nonce[LP_AUTH_NONCE]; /* the client's challenge to the server */
};

struct lp_proto_challenge {
	uint8_t nonce[LP_AUTH_NONCE]; /* the server's challenge to the client */
	bool key;		      /* the server requires the shared key */
	uint8_t proof[LP_AUTH_MAC]; /* the server's answer to OPEN's nonce (zeros without a key) */
};

struct lp_proto_auth {
	uint8_t mac[LP_AUTH_MAC]; /* the client's answer to CHALLENGE's nonce (zeros without a key) */
};

struct lp_proto_busy {
	uint32_t retry_s; /* another client holds the device: try again in about this long */
	char text[160];	  /* who and since when, in words */
};

/* How a side sees the peer's write_lat write arrive (QPINFO carries each side's). */
enum lp_detect {
	LP_DETECT_CPU, /* the CPU polls the last byte of its (host) receive buffer */
	LP_DETECT_GPU, /* a GPU kernel polls it in GPU memory and signals the CPU */
	LP_DETECT_IMM, /* WRITE_WITH_IMM: the CPU polls the receive CQ */
};

/* QPINFO: what the peer needs to reach one side's QPs and memory. */
struct lp_qp_ep {
	uint32_t qpn;
	uint32_t psn; /* 24 bits */
};

struct lp_qpinfo {
	uint32_t nqps;
	struct lp_qp_ep qp[LP_RDMA_MAX_QPS];
	uint16_t lid;
	uint8_t gid[16];
	uint32_t rkey;
	uint64_t addr;		   /* start of the buffer (layout: lp_conn_off) */
	uint64_t slot;		   /* bytes per ring slot (>= message size) */
	uint32_t mtu;		   /* requested path MTU (the smaller one wins) */
	enum lp_mem_kind mem_kind; /* this side's memory */
	enum lp_detect detect;	   /* how this side sees a write_lat write arrive */
	char mem[32];		   /* memory description for the results ("cuda:0 dmabuf") */
	uint64_t cm_token; /* server, rdma_cm: the private data its connect requests must carry */
};

/* Status codes travel as negative errno values in [-LP_RDMA_MAX_ERRNO, -1]. */
#define LP_RDMA_MAX_ERRNO 4095

/* ERROR: why the peer ended the test. */
struct lp_proto_error {
	int32_t status; /* its negative errno; -ECANCELED when a signal stopped it */
	char text[LP_ERR_LAST_LEN];
};

/* DONE: the client's iterations (unused by the server) and its messages per QP. */
struct lp_proto_done {
	uint64_t iters;
	uint32_t nqps; /* = the test's num_qps */
	uint64_t msgs[LP_RDMA_MAX_QPS];
};

/* RESULT: the server's end of one test. */
enum lp_verify_state { LP_VERIFY_NOT_RUN = 0, LP_VERIFY_OK = 1, LP_VERIFY_BAD = 2 };

struct lp_rdma_result_msg {
	int32_t status;			 /* 0, or the server's negative errno (its test failed) */
	char text[160];			 /* why, when status or verify says so */
	uint32_t verify;		 /* enum lp_verify_state */
	double bytes, msgs, ns;		 /* the server's own direction (bidirectional bandwidth) */
	uint64_t iters;			 /* iterations the server completed */
	uint32_t nqps;			 /* = the test's num_qps */
	uint64_t sent[LP_RDMA_MAX_QPS];	 /* messages the server posted per QP (warm-up included) */
	struct lp_rdma_verified checked; /* what its verification covered */
	struct lp_ival_summary ival;	 /* --interval, bidir: its own direction's series */
	struct lp_ctr_moved ctr;	 /* its port's counters that moved during the test */
};

/* Records of the bodies (lp_rdma_devinfo_record is in rdma.h). */
extern const struct lp_record lp_rdma_params_record;
extern const struct lp_record lp_qpinfo_record;
extern const struct lp_record lp_proto_error_record;
extern const struct lp_record lp_proto_done_record;
extern const struct lp_record lp_rdma_verified_record;
extern const struct lp_record lp_rdma_result_msg_record;
extern const struct lp_record lp_proto_open_record;
extern const struct lp_record lp_proto_challenge_record;
extern const struct lp_record lp_proto_auth_record;
extern const struct lp_record lp_proto_busy_record;

/* The record of each message type's body; NULL for READY and BYE (no body) and unknown types. */
const struct lp_record *lp_proto_record(uint16_t type);
const char *lp_proto_name(uint16_t type);

/* Encode msg (the body type of `type`, NULL for an empty one): 0 or w->err. */
int lp_proto_encode(uint16_t type, const void *msg, struct lp_wbuf *w);
/*
 * Decode a body of `type` into msg. Takes any bytes: 0 only for a well-formed
 * body consumed completely, else -EPROTO; never reads past len.
 */
int lp_proto_decode(uint16_t type, void *msg, const void *body, size_t len);

/* Send one message (msg as for lp_proto_encode), bounded by oob->timeout_ms. */
int lp_proto_send(struct lp_oob *oob, uint16_t type, const void *msg);
/* Send an ERROR (best effort: the test is over either way). */
__attribute__((format(printf, 3, 4))) void lp_proto_send_error(struct lp_oob *oob, int status,
							       const char *fmt, ...);

/*
 * Receive the peer's next message, waiting in short slices so that *oob->stop
 * (SIGINT/SIGTERM) ends the wait within ~10 ms: then -EINTR.
 */
int lp_oob_recv(struct lp_oob *oob, uint16_t *type_p, uint8_t *body, size_t *len_p, int timeout_ms);

/* lp_oob_recv, and a failure's cause in f (another wire version named with both numbers). */
int lp_proto_recv(struct lp_oob *oob, uint16_t *type_p, uint8_t *body, size_t *len_p,
		  int timeout_ms, struct lp_fail *f);

/*
 * Receive a message of type `want` and decode it into msg (NULL for an empty
 * one), within timeout_ms. On failure records the cause in f (first cause
 * wins) and returns: the peer's status for an ERROR (its text is the cause),
 * -EPROTONOSUPPORT for a peer of another wire version ("peer speaks linkperf
 * wire version X, this build needs Y"), -EPROTO for another message or a
 * malformed body, or the channel's error (-ETIMEDOUT, -ECONNRESET, -EINTR).
 */
int lp_proto_expect(struct lp_oob *oob, uint16_t want, void *msg, int timeout_ms,
		    struct lp_fail *f);
/* lp_proto_expect's second half: a message of `type` already received, taken as `want`. */
int lp_proto_take(struct lp_oob *oob, uint16_t want, void *msg, uint16_t type, const uint8_t *body,
		  size_t len, struct lp_fail *f);

#endif
