/* SPDX-License-Identifier: MIT */
/*
 * lp-rdma library: point-to-point RDMA latency and bandwidth over RC QPs,
 * InfiniBand or RoCE, host or GPU memory.
 *
 * Shape: a client and a server each open a device (lp_rdma_dev_open), share an
 * out-of-band channel (struct lp_oob: a TCP socket for lp-rdma, an MPI
 * communicator for lp-sweep), and run one test at a time. The client sends
 * the complete test parameters (struct lp_rdma_params) in a versioned,
 * explicitly serialized HELLO; the server needs no test flags, validates every
 * field, answers ACCEPT or ERROR, and both sides then exchange QP numbers,
 * keys and addresses, connect, synchronize, run, and exchange results.
 *
 * Nothing here prints results: they come back in struct lp_rdma_result and the
 * callers format them (table, CSV, JSON). A failure's cause is recorded once,
 * where it is first known, in a struct lp_fail (common/fail.h) and its negative
 * errno returned.
 */
#ifndef LP_RDMA_H
#define LP_RDMA_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/fail.h"
#include "common/ival.h"
#include "common/json.h"
#include "common/record.h"
#include "common/sock.h"
#include "common/stats.h"
#include "common/wire.h"
#include "rdma/counters.h"
#include "rdma/inventory.h"

/* ---- out-of-band channel ---------------------------------------------------- */

struct lp_oob_ops {
	/* Send one framed message (type + body); bounded by timeout_ms. */
	int (*send)(void *ctx, uint16_t type, const struct lp_wbuf *body, int timeout_ms);
	/* Receive one message into body (LP_WIRE_MAX_BODY bytes); -ETIMEDOUT, -ECONNRESET, -EPROTO. */
	int (*recv)(void *ctx, uint16_t *type_p, uint8_t *body, size_t *len_p, int timeout_ms);
	/* 1 if a message is waiting (a recv would not block), 0 if not, <0 on error. */
	int (*ready)(void *ctx);
};

struct lp_oob {
	const struct lp_oob_ops *ops;
	void *ctx;
	int timeout_ms;	       /* bound on every control-message wait */
	int peer_family;       /* AF_INET / AF_INET6 of the peer address, for the GID choice */
	const char *peer_name; /* for messages ("10.0.2.15", "rank 3") */
	const volatile sig_atomic_t
		*stop; /* when set, running tests stop within ~1 ms (may be NULL) */
	/*
	 * The session's current phase and its deadline (lp_now_ns() clock; 0 = none):
	 * every wait on the channel, and the passive side's timed loop, end by then
	 * whatever their own timeout. The server's session sets them (lp_oob_phase);
	 * another thread may read deadline_ns (atomically) for a busy server's estimate.
	 */
	uint64_t deadline_ns;
	const char *phase; /* "set-up", "run", ...: named when the deadline ends a wait */
	int phase_ms;	   /* the phase's length */
};

/* Enter a phase of at most limit_ms (0: no deadline). */
void lp_oob_phase(struct lp_oob *oob, const char *phase, int limit_ms);
/* timeout_ms, or less when the phase's deadline comes first (0 once it has passed). */
int lp_oob_wait_ms(const struct lp_oob *oob, int timeout_ms);

/* The TCP implementation: ctx is a pointer to the connected socket's fd. */
extern const struct lp_oob_ops lp_oob_tcp_ops;

/* ---- device --------------------------------------------------------------- */

/* What to open. Empty dev = the first device with an active port. */
struct lp_rdma_devsel {
	const char *dev; /* "mlx5_0", "rxe0"; NULL or "" = first usable */
	int port;	 /* 1-based; 0 = first active port */
	int gid_index;	 /* -1 = scored automatic choice (RoCE only) */
	int tclass;	 /* traffic class (RoCE DSCP << 2 | ECN) when tclass_set */
	int sl;		 /* IB service level 0..15 */
	int qp_timeout;	 /* local ACK timeout exponent 1..31 (4.096 us << N): --qp-timeout */
	/* a context of its own, not librdmacm's shared one: in a forked child, whose
	 * librdmacm contexts the parent opened (the kernel refuses verbs on them: EACCES) */
	bool own_context;
	bool tclass_set; /* --tclass given (0 is a class); else the device's */
};

/* The class of sel's QPs as documents record it: tclass, or -1 for the device's. */
static inline int lp_rdma_devsel_tclass(const struct lp_rdma_devsel *sel)
{
	return sel->tclass_set ? sel->tclass : -1;
}

/* GID table entry as scored by lp_rdma_gid_pick (exposed for the unit tests). */
enum lp_gid_type { LP_GID_IB = 0, LP_GID_ROCE_V1 = 1, LP_GID_ROCE_V2 = 2 };

struct lp_gid_entry {
	uint8_t raw[16];
	enum lp_gid_type type;
	bool valid; /* non-zero GID present in the table */
};

/*
 * Score one GID for a peer address family (AF_INET or AF_INET6); < 0 = unusable.
 * Policy, highest weight first: the GID's address family matches the peer's
 * (IPv4-mapped ::ffff:a.b.c.d for AF_INET) +100; global scope (not fe80::/10)
 * +10; RoCE v2 over v1 +2/+1.
 */
int lp_rdma_gid_score(const struct lp_gid_entry *e, int family);
/*
 * Best index among n entries for the family; when want_type >= 0 only entries
 * of that type count (the server matches the client's GID type).
 * Returns 0 and *idx_p, or -ENOENT when nothing is usable.
 */
int lp_rdma_gid_pick(const struct lp_gid_entry *tab, int n, int family, int want_type, int *idx_p);
const char *lp_rdma_gid_type_name(enum lp_gid_type t);
void lp_rdma_gid_str(const uint8_t raw[16], char *buf, size_t len);

/* Theoretical data rate of a port from ibv_port_attr active_speed / active_width (Gb/s, 0 unknown). */
double lp_rdma_port_gbps(uint8_t active_speed, uint8_t active_width, const char **speed_name_p,
			 unsigned *lanes_p);

/* Everything the results record about one side's device and port. */
struct lp_rdma_devinfo {
	char name[64];
	int port;
	char link_layer[16]; /* "InfiniBand" or "Ethernet" */
	char transport[16];  /* "RoCE", "IB" */
	int gid_index;
	char gid[64];
	char gid_type[16]; /* "IB", "RoCEv1", "RoCEv2" */
	uint16_t lid;
	unsigned active_mtu; /* bytes */
	char speed[16];	     /* "EDR", "NDR", ... */
	unsigned width;	     /* lanes */
	double rate_gbps;    /* theoretical data rate of the port, Gb/s */
	char fw[64];
	char netdev[32];
	int numa_node; /* -1 unknown */
	char node_guid[24];
	uint32_t vendor_id, vendor_part_id;
	struct lp_inv_port inv; /* the port's inventory: filled by lp_rdma_dev_inventory, else zero */
};

struct lp_rdma_dev; /* opaque: context, port, GID, PD */

/*
 * Open a device. -ENODEV: no RDMA device at all (exit 77); -EINVAL: the named
 * device, port or GID index does not exist, or sel->qp_timeout is not 1..31 (exit 2);
 * -ENETDOWN: port not active.
 * family: the address family used to pick the GID when sel->gid_index < 0.
 * The cause in words in f (may be NULL).
 */
int lp_rdma_dev_open(const struct lp_rdma_devsel *sel, int family, struct lp_rdma_dev **dev_p,
		     struct lp_fail *f);
void lp_rdma_dev_close(struct lp_rdma_dev *dev);
const struct lp_rdma_devinfo *lp_rdma_dev_info(const struct lp_rdma_dev *dev);
/*
 * Set-up reuse (rdma/reuse.h; lp-sweep's test processes): from now until
 * lp_rdma_dev_close, every test on dev takes its registered buffer from a
 * cache keyed by (PD, bytes, access, memory kind) and its queue pairs (with
 * their CQs) from a pool keyed by their creation caps, instead of registering
 * and creating them; after a clean test they go back (the QPs moved to RESET,
 * their CQs drained) for the next test, which moves them INIT -> RTR -> RTS
 * with its own peer's QPN, GID and PSN. A set whose RESET or INIT transition
 * fails is destroyed and a fresh one made (counted in qp_fallbacks); after a
 * failed test its buffer and QPs are released, not reused. rdma_cm tests
 * (--cm) and GPU-polled latency buffers are made fresh each time. 0 or -ENOMEM.
 */
struct lp_rdma_reuse_stats {
	uint64_t mr_registered; /* buffers allocated and registered */
	uint64_t mr_reused;	/* tests that took a registered buffer from the cache */
	uint64_t qp_created;	/* QP sets created (each with its CQs) */
	uint64_t qp_reused;	/* tests whose QP set came from the pool, reset and reconnected */
	uint64_t qp_fallbacks;	/* pooled sets whose RESET or INIT failed: a fresh one instead */
	uint64_t released;	/* buffers and sets released after a failed test */
};
extern const struct lp_record lp_rdma_reuse_stats_record;
int lp_rdma_dev_reuse(struct lp_rdma_dev *dev);
/* What reuse did on dev so far (zeros without it). */
void lp_rdma_dev_reuse_stats(const struct lp_rdma_dev *dev, struct lp_rdma_reuse_stats *s);
/*
 * Re-pick the GID for a family / type (server side, after the client said
 * which). 0, -EINVAL or -EADDRNOTAVAIL (none of that family/type) with the cause in f.
 */
int lp_rdma_dev_select_gid(struct lp_rdma_dev *dev, int family, int want_type, struct lp_fail *f);
void lp_rdma_devinfo_json(const struct lp_rdma_devinfo *d, struct lp_json *j);
/* Its record (common/record.h): the ACCEPT message's body, the JSON members above. */
extern const struct lp_record lp_rdma_devinfo_record;
/*
 * The opened port's inventory (rdma/inventory.h) into its devinfo, once: GUIDs, PSID, PCI slot
 * and link, VPD, the switch port. It travels with the devinfo (ACCEPT, lp-sweep's node record)
 * and lands in every document that records the device. Slow where helpers run (seconds at most:
 * each is bounded by o->timeout_ms), so a tool calls it once, not per test.
 */
void lp_rdma_dev_inventory(struct lp_rdma_dev *dev, const struct lp_inv_opts *o);
/* Names of all devices, comma separated (for "unknown device" messages). */
void lp_rdma_dev_list(char *buf, size_t len);

/* ---- tests ---------------------------------------------------------------- */

enum lp_rdma_test {
	LP_RDMA_WRITE_LAT,
	LP_RDMA_READ_LAT,
	LP_RDMA_SEND_LAT,
	LP_RDMA_WRITE_BW,
	LP_RDMA_READ_BW,
	LP_RDMA_SEND_BW,
	LP_RDMA_NTESTS
};

/* The work request each message of a test is. */
enum lp_rdma_op { LP_OP_WRITE, LP_OP_READ, LP_OP_SEND };

/* The timed loop that runs a test (rdma/loops.c). */
enum lp_rdma_loop {
	LP_LOOP_PINGPONG, /* each side answers the other's message: one round trip per sample */
	LP_LOOP_READ_LAT, /* the client times one READ at a time; the server only serves it */
	LP_LOOP_BW,	  /* windowed posting, selective signalling (and the receiver's side) */
};

/*
 * One test: everything that differs between tests is a field of its row, so
 * adding a test is one row (rdma/params.c) and its enum name above (the row's
 * index, which is what HELLO carries). The session, the connection and the
 * loops read these fields; the timed loops resolve them before they start.
 */
struct lp_rdma_test_info {
	const char *key;	/* "write_lat": its name in -t, tables, CSV and JSON */
	enum lp_rdma_op op;	/* what every message is */
	enum lp_rdma_loop loop; /* how it is timed */
	bool lat;		/* latency (one QP, one message in flight), else bandwidth */
	bool halved;		/* its one-way latency is reported as RTT/2 */
	bool needs_recv;	/* a receive is posted for every message (send tests) */
	/*
	 * Arrival is seen in memory: the last byte of each message carries its
	 * counter and the receiver polls it (CPU or GPU), or - with
	 * --lat-method imm - a write with immediate completes a receive (write_lat).
	 */
	bool detect;
	const char *arrival; /* how a sample ends when detect is false ("read_completion") */
	/* defaults of the kind (lp_rdma_params_default) */
	uint64_t size, iters, warmup;
	uint32_t tx_depth, cq_mod;
	uint32_t inline_auto; /* max inline data requested when the client gives none */
};

/* The rows, indexed by enum lp_rdma_test. */
extern const struct lp_rdma_test_info lp_rdma_tests[LP_RDMA_NTESTS];
/* The row of t (t < LP_RDMA_NTESTS: checked by lp_rdma_params_check and the decoder). */
static inline const struct lp_rdma_test_info *lp_rdma_test(enum lp_rdma_test t)
{
	return &lp_rdma_tests[t];
}
/* The rows' keys in enum order, NULL-terminated (usable as LP_OPT_LIST choices). */
extern const char *const lp_rdma_test_names[];
bool lp_rdma_test_is_lat(enum lp_rdma_test t);

/* Memory kinds (ops table in rdma/mem.c). */
enum lp_mem_kind { LP_MEM_HOST = 0, LP_MEM_CUDA = 1 };

/* "host", "cuda" or "cuda:N" -> kind and GPU index (-1 = not given). 0 or -EINVAL. */
int lp_mem_parse(const char *s, int *kind_p, int *dev_p);

/*
 * How write_lat sees a write arrive. LP_LAT_POLL: each side polls the last byte
 * of its receive buffer - the CPU for host memory, a GPU kernel for GPU memory
 * (the time until the data is visible in GPU memory). LP_LAT_WRITE_IMM: RDMA
 * WRITE with immediate, the CPU polls the receive CQ (perftest's GPU method).
 */
enum lp_lat_method {
	LP_LAT_POLL = 0,
	LP_LAT_WRITE_IMM = 2,
};

/* One test at one size: everything the client sends in HELLO. Validated by both sides. */
struct lp_rdma_params {
	enum lp_rdma_test test;
	uint64_t size;	      /* message size in bytes, 1 .. LP_RDMA_MAX_SIZE */
	uint64_t iters;	      /* timed iterations (0 when duration_s is used) */
	uint64_t warmup;      /* untimed iterations first */
	double duration_s;    /* > 0: run for this long instead of iters */
	uint32_t tx_depth;    /* outstanding WRs per QP (bandwidth) */
	uint32_t rx_depth;    /* posted receives per QP (send tests) */
	uint32_t cq_mod;      /* signal every cq_mod-th WR (bandwidth) */
	uint32_t post_list;   /* WRs chained per ibv_post_send (bandwidth) */
	uint32_t num_qps;     /* QPs, round-robin (bandwidth) */
	uint32_t inline_size; /* request this max_inline_data; UINT32_MAX = auto */
	uint32_t mtu;	      /* path MTU bytes (256..4096); 0 = the port's active MTU */
	bool bidir;	      /* bandwidth both ways at once */
	bool verify;	      /* check every received message against its pattern */
	bool use_cm;	      /* connect QPs with librdmacm instead of the exchange */
	uint32_t seed;	      /* pattern seed of the run (random per client run by default) */
	uint64_t max_samples; /* latency samples kept verbatim */
	int timeout_ms;	      /* no-progress bound inside the timed loop */
	enum lp_mem_kind mem; /* this side's memory (the client's in HELLO) */
	int mem_dev;	      /* GPU index for LP_MEM_CUDA; -1 = auto */
	enum lp_lat_method lat_method;
	int gid_type;	   /* client's GID type (so the server matches); -1 unknown */
	uint16_t cm_port;  /* rdma_cm port on the server (use_cm) */
	double interval_s; /* > 0: interval reports of this period (common/ival.h); 0 none */
};

/* --qp-timeout's default, its row's (rdma/opts.c) and the one rdma_cm is left to choose its own
 * in place of (conn.c): perftest's -u, 4.096 us << 14 = 67 ms per try. */
#define LP_RDMA_QP_TIMEOUT_DEFAULT 14
#define LP_RDMA_MAX_SIZE	   (1ull << 30)
#define LP_RDMA_MAX_QPS		   64
#define LP_RDMA_MAX_POST_LIST	   64		/* WRs chained per ibv_post_send */
#define LP_RDMA_MAX_BUF		   (4ull << 30) /* registered bytes per side and test (2 x size x QPs) */

/*
 * A fresh pattern seed (getrandom). Every run draws one, so a persistent server
 * whose buffers still hold an earlier run's data cannot pass verification.
 */
uint32_t lp_rdma_seed_new(void);
/* Sensible defaults for a test (perftest-like where it is a good choice); a fresh seed. */
void lp_rdma_params_default(struct lp_rdma_params *p, enum lp_rdma_test t);
/* Validate every field: 0, or -EINVAL with the first bad field in f (may be NULL). */
int lp_rdma_params_check(const struct lp_rdma_params *p, struct lp_fail *f);

/* Bandwidth of one direction. */
struct lp_rdma_bw {
	double bytes, msgs; /* timed payload bytes and messages */
	double ns;	    /* first post to last completion */
	double gbytes_s, gbits_s, mmsg_s;
	double pct_link; /* gbits_s / port rate * 100 (NaN unknown) */
};

/*
 * How a bidirectional sum is formed, for JSON and tables: each side times its own sending window
 * (they overlap, but start and end apart), and the two rates are added. It is not one window over
 * both directions, so it can differ from a link's full-duplex rate measured that way.
 */
#define LP_RDMA_BIDIR_SUM_METHOD "sum of two separately timed windows"

/* What --verify checked, both sides together (docs/METHOD.md, "Verification"). */
struct lp_rdma_verified {
	bool ok;	   /* every receiving side checked its rings and all matched */
	uint64_t messages; /* messages whose every byte was checked */
	uint64_t bytes;	   /* payload bytes checked */
	uint64_t landed;   /* messages that landed in the checked rings (messages < landed when
				   a ring held fewer slots than the run had messages) */
	uint64_t ring;	   /* slots per ring (QP and direction) */
	char where[16];	   /* the sides that checked: "client", "server", "client+server" */
};

struct lp_rdma_result {
	enum lp_rdma_test test;
	uint64_t size;
	int status;	 /* 0 ok, else negative errno */
	char error[256]; /* the reason when status != 0 (a peer's own reason when it failed) */
	/* latency tests: samples in us; one_way = rtt/2 for write/send, = rtt for read */
	struct lp_summary lat_us; /* the reported latency (one-way or read completion) */
	struct lp_summary rtt_us; /* the round trip as measured */
	bool lat_halved;	  /* lat_us is rtt/2 */
	uint64_t warmup;
	char lat_method[64]; /* how each side saw data arrive: "client cpu_poll, server gpu_poll", ... */
	/*
	 * write_lat with gpu_poll: each GPU-polling side's detection includes a
	 * GPU->CPU notification. gpu_poll_sides of them per round trip (0..2);
	 * gpu_notify_us is the one-way notification measured on this side's GPU
	 * (NaN when this side does not poll with its GPU).
	 */
	unsigned gpu_poll_sides;
	double gpu_notify_us;
	/* bandwidth tests */
	struct lp_rdma_bw local;	  /* this side (client) sending, or reading */
	struct lp_rdma_bw remote;	  /* the server's direction in bidir */
	double sum_gbytes_s, sum_gbits_s; /* local + remote: see LP_RDMA_BIDIR_SUM_METHOD */
	/* data verification (--verify) */
	struct lp_rdma_verified verified;
	uint64_t iters;	  /* timed iterations done */
	double rate_gbps; /* port rate used for pct */
	struct lp_rdma_devinfo local_dev, remote_dev;
	char local_mem[32], remote_mem[32]; /* "host", "cuda:0 (dmabuf)", ... */
	uint32_t mtu;			    /* path MTU used */
	uint32_t inline_size;		    /* max_inline_data used */
	/* How this side set up its QPs and buffer (GPUDirect RDMA choices). */
	const char *scatter_to_cqe; /* "provider default" or "disabled (MLX5_SCATTER_TO_CQE=0 ...)" */
	bool relaxed_ordering;	    /* IBV_ACCESS_RELAXED_ORDERING requested (bandwidth tests) */
	const char *gpu_rdma_order; /* local GPU's GPU_DIRECT_RDMA_WRITES_ORDERING in words; NULL
					   for host memory */
	/* Port counters that moved during the test, read outside the timed loop on each side. */
	struct lp_ctr_moved ctr_local, ctr_remote;
	/*
	 * --interval: this side's series (bandwidth: its sending direction, whose RC completions
	 * are the receiver's acknowledgements; latency: p50/p99 of the reported latency), heap
	 * memory freed by lp_rdma_result_free; its summary; and in bidir the server's summary of
	 * its own direction (n = 0: none).
	 */
	struct lp_ival *ival;
	size_t nival;
	struct lp_ival_summary ival_sum, ival_sum_remote;
};

/*
 * Client: run one test (params p) against the server on oob. Fills *r (also on
 * failure). With p->interval_s, sink (may be NULL) is told of every interval as
 * it closes, from inside the run (between samples, never inside one).
 */
int lp_rdma_client_run(struct lp_rdma_dev *dev, struct lp_oob *oob, const struct lp_rdma_params *p,
		       const char *server_host, const struct lp_ival_sink *sink,
		       struct lp_rdma_result *r);
/* Free what a result holds besides itself (its interval series); r stays valid, without it. */
void lp_rdma_result_free(struct lp_rdma_result *r);
/* Client: tell the server this session is over (it then waits for the next client). */
int lp_rdma_client_bye(struct lp_oob *oob);

/* ---- the session's opening over TCP: keys (rdma/auth.c) ------------------------ */

#define LP_RDMA_KEY_MIN 16
#define LP_RDMA_KEY_MAX 4096

/* A shared key: the bytes of its file, trailing blanks and line breaks dropped. */
struct lp_rdma_key {
	size_t len;
	uint8_t k[LP_RDMA_KEY_MAX];
};

/* Built with OpenSSL's libcrypto (HMAC-SHA256)? Without it there is no --key. */
bool lp_rdma_key_supported(void);
/*
 * Load a key file: a regular file of this user's, readable by its owner only
 * (a group- or world-accessible one is refused, as ssh refuses a private key),
 * LP_RDMA_KEY_MIN..MAX bytes. 0; -EINVAL with the reason in f; -EOPNOTSUPP
 * without libcrypto.
 */
int lp_rdma_key_load(const char *path, struct lp_rdma_key *key, struct lp_fail *f);

/*
 * Client: open a session on a fresh TCP connection (OPEN, CHALLENGE, AUTH: see
 * rdma/proto.h) with key (NULL: none). 0 when the server granted it; -EBUSY
 * with *retry_s_p when another client holds it; -EACCES when this address or
 * key is refused, or the server's key is not ours; the channel's errors. The
 * reason is in f.
 */
int lp_rdma_client_open(struct lp_oob *oob, const struct lp_rdma_key *key, unsigned *retry_s_p,
			struct lp_fail *f);

/* Server-side policy for one session. */
struct lp_rdma_server_opts {
	enum lp_mem_kind mem; /* this side's memory */
	int mem_dev;
	const char *bind_addr; /* for rdma_cm listening */
	const volatile sig_atomic_t *stop;
	/*
	 * What a client may ask (a HELLO over a limit is refused with the reason);
	 * 0 = no limit, as between lp-sweep's ranks, which are one job.
	 */
	uint64_t max_mem;      /* bytes registered per side and test (2 x slot x ring x QPs) */
	double max_duration_s; /* a test's -D, and the bound of any test's run */
	int max_timeout_ms;    /* the client's no-progress bound */
	/* The device's GID: fixed by the operator (-x; a client of another type is refused),
	 * else chosen per session on a copy, by the peer's address family when gid_by_family. */
	bool gid_fixed, gid_by_family;
	/* rdma_cm: the only port (0 = the client's), and the addresses whose connect requests
	 * are taken (NULL = any; each must carry the session's token either way) */
	uint16_t cm_port;
	const struct lp_sock_allow *allow;
};

/*
 * Server: serve one session (tests until BYE or the peer goes away). Returns 0
 * after BYE, or a negative errno for a session that ended otherwise: a test
 * refused (the client was told why), the channel broke, a phase ran past its
 * deadline (each wait is bounded by oob->timeout_ms, each phase as a whole
 * too). f (may be NULL) gets the cause in words where this function knows
 * more than the errno ("" otherwise); failures inside a test are logged here.
 */
int lp_rdma_server_session(struct lp_rdma_dev *dev, struct lp_oob *oob,
			   const struct lp_rdma_server_opts *o, struct lp_fail *f);

/* ---- the server's accept loop (rdma/server.c) ---------------------------------- */

/*
 * How one connection to the server ended, or (quiet > 0) how many ends were
 * not reported one by one in the last window_s seconds (a flood of
 * connections is summarised, not logged line by line).
 */
struct lp_rdma_server_event {
	const char *peer; /* its numeric address */
	int status;	  /* 0: the session ended normally (BYE); else why, as a negative errno */
	const char *why;  /* the cause in words when status != 0 */
	unsigned quiet, window_s;
};

struct lp_rdma_server_cfg {
	struct lp_rdma_server_opts session; /* each session's limits and device policy */
	const struct lp_sock_allow *allow;  /* addresses served (NULL: any) */
	const struct lp_rdma_key *key;	    /* the shared key (NULL: none) */
	int timeout_ms;			    /* each wait; the opening as a whole */
	bool once;			   /* return after the first session that held the device */
	const volatile sig_atomic_t *stop; /* SIGINT/SIGTERM: every connection ends, told why */
	void (*report)(void *ctx, const struct lp_rdma_server_event *e); /* may be NULL */
	void *ctx;
};

/*
 * Serve clients on the listening socket lfd until *cfg->stop (-EINTR) or, with
 * cfg->once, the end of the first session that held the device (its status).
 * Each connection is checked against cfg->allow and runs the opening (wire
 * version, key) before it may claim the device; one session holds it at a
 * time and a second client is told BUSY with when to try again. Every
 * connection's end goes to cfg->report once (failed ones rate-limited: a flood is summarised).
 */
int lp_rdma_server_run(struct lp_rdma_dev *dev, int lfd, const struct lp_rdma_server_cfg *cfg);

#endif
