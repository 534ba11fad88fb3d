// SPDX-License-Identifier: MIT
/*
 * Connection set-up for one test: CQs, the registered buffer, RC QPs moved to
 * RTS either through the exchange (QP numbers, PSNs, LID/GID) or through
 * librdmacm, and the keys and addresses each side needs for RDMA.
 *
 * Buffer layout (lp_conn_off in internal.h): QP q owns a sending ring (what it
 * writes or sends, or what the peer reads) and a receiving ring (where the
 * peer's writes and sends, or this side's reads, land), one slot per message
 * with --verify. Verification checks every slot of the receiving rings.
 */
#include "rdma/internal.h"

#include <endian.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/clock.h"
#include "common/lp.h"
#include "common/pattern.h"

const char *lp_detect_name(enum lp_detect d)
{
	return d == LP_DETECT_GPU ? "gpu_poll" : d == LP_DETECT_IMM ? "write_imm" : "cpu_poll";
}

/* Record why this test failed in its failure record (the first cause wins); returns err. */
__attribute__((format(printf, 3, 4))) static int conn_fail(struct lp_rdma_conn *c, int err,
							   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err = lp_fail_vset(c->fail, err, fmt, ap);
	va_end(ap);
	return err;
}

/* A memory op's failure after what was being done: its own cause (a device call), else the code's. */
static int mem_fail(struct lp_rdma_conn *c, int err, const struct lp_fail *mf, const char *what)
{
	return conn_fail(c, err, "%s: %s", what, lp_fail_ok(mf) ? strerror(-err) : lp_fail_msg(mf));
}

/* Receives are posted for send tests, and for writes with immediate (write_lat --lat-method imm). */
static bool wants_recvs(const struct lp_rdma_params *p)
{
	const struct lp_rdma_test_info *t = lp_rdma_test(p->test);

	return t->needs_recv || (t->detect && p->lat_method == LP_LAT_WRITE_IMM);
}

static enum ibv_mtu mtu_enum(uint32_t mtu)
{
	switch (mtu) {
	case 256:
		return IBV_MTU_256;
	case 512:
		return IBV_MTU_512;
	case 1024:
		return IBV_MTU_1024;
	case 2048:
		return IBV_MTU_2048;
	default:
		return IBV_MTU_4096;
	}
}

static int create_qp(struct lp_rdma_conn *c, uint32_t i, uint32_t inline_req)
{
	const struct lp_rdma_params *p = c->p;
	bool recvs = wants_recvs(p);
	struct ibv_qp_init_attr attr = {
		.send_cq = c->scq,
		.recv_cq = c->rcq,
		.cap = {
			.max_send_wr = p->tx_depth + 1,
			.max_recv_wr = recvs ? p->rx_depth : 1,
			.max_send_sge = 2, /* GPU data + the host counter byte (write_lat) */
			.max_recv_sge = 1,
			.max_inline_data = inline_req,
		},
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 0,
	};
	int ret;
	/* mlx5 reads MLX5_SCATTER_TO_CQE at each QP creation (use_scatter_to_cqe()): set it around it. */
	bool s2cqe_off = c->mem_caps & LP_MEM_CAP_NO_SCATTER_TO_CQE;
	const char *old = getenv("MLX5_SCATTER_TO_CQE");
	char saved[16];

	snprintf(saved, sizeof(saved), "%s", old ? old : "");
	if (s2cqe_off)
		setenv("MLX5_SCATTER_TO_CQE", "0", 1);
	lp_debug("QP %u: created with MLX5_SCATTER_TO_CQE=%s", i,
		 getenv("MLX5_SCATTER_TO_CQE") ? getenv("MLX5_SCATTER_TO_CQE") : "(unset)");
	if (c->cm_id[i]) {
		ret = rdma_create_qp(c->cm_id[i], c->dev->pd, &attr) ? -errno : 0;
		c->qp[i] = ret ? NULL : c->cm_id[i]->qp;
	} else {
		c->qp[i] = ibv_create_qp(c->dev->pd, &attr);
		ret = c->qp[i] ? 0 : (errno ? -errno : -EINVAL);
	}
	if (s2cqe_off && old)
		setenv("MLX5_SCATTER_TO_CQE", saved, 1);
	else if (s2cqe_off)
		unsetenv("MLX5_SCATTER_TO_CQE");
	c->scatter_to_cqe = s2cqe_off ? LP_S2CQE_OFF : LP_S2CQE_DEFAULT;
	if (!ret)
		/* Devices may grant more than asked; inline only what was asked (-I 0 = never). */
		c->max_inline = LP_MIN(attr.cap.max_inline_data, inline_req);
	return ret;
}

/* Create the QP, retrying without inline data when the device offers none. */
static int create_qp_inline(struct lp_rdma_conn *c, uint32_t i)
{
	uint32_t want = c->p->inline_size;
	int ret;

	if (want == UINT32_MAX) /* auto: the test's own (small latency messages go inline) */
		want = c->t->inline_auto;
	ret = create_qp(c, i, want);
	if (ret && want && c->p->inline_size == UINT32_MAX)
		ret = create_qp(c, i, 0);
	if (ret)
		conn_fail(c, ret, "%s: cannot create QP (tx depth %u, rx depth %u, inline %u): %s",
			  c->dev->info.name, c->p->tx_depth, c->p->rx_depth, want, strerror(-ret));
	return ret;
}

/* RESET -> INIT: 0 or -errno (recorded by the caller). */
static int qp_modify_init(const struct lp_rdma_conn *c, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = (uint8_t)c->dev->info.port,
		.qp_access_flags =
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};

	return lp_verbs_err(ibv_modify_qp(
		qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
}

static int qp_to_init(struct lp_rdma_conn *c, struct ibv_qp *qp)
{
	int ret = qp_modify_init(c, qp);

	if (ret)
		return conn_fail(c, ret, "QP to INIT failed: %s", strerror(-ret));
	return 0;
}

/* Outstanding READs per QP: one for latency (a READ at a time), up to 16 for bandwidth. */
static unsigned rd_atomic(struct lp_rdma_conn *c)
{
	if (c->t->lat)
		return 1;
	return (unsigned)LP_MAX(1, LP_MIN(16, c->dev->dev_attr.max_qp_rd_atom));
}

static int qp_to_rts(struct lp_rdma_conn *c, uint32_t i)
{
	struct lp_rdma_dev *d = c->dev;
	int ret;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = mtu_enum(c->mtu),
		.dest_qp_num = c->remote.qp[i].qpn,
		.rq_psn = c->remote.qp[i].psn,
		.max_dest_rd_atomic = (uint8_t)rd_atomic(c),
		.min_rnr_timer = 12,
		.ah_attr = {
			.dlid = c->remote.lid,
			.sl = (uint8_t)d->sl,
			.port_num = (uint8_t)d->info.port,
		},
	};

	if (d->is_roce) {
		a.ah_attr.is_global = 1;
		memcpy(a.ah_attr.grh.dgid.raw, c->remote.gid, 16);
		a.ah_attr.grh.sgid_index = (uint8_t)d->info.gid_index;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.grh.traffic_class = d->tclass >= 0 ? (uint8_t)d->tclass : 0;
	}
	ret = lp_verbs_err(ibv_modify_qp(c->qp[i], &a,
					 IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
						 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
						 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER));
	if (ret)
		return conn_fail(c, ret,
				 "QP to RTR failed: %s (remote QPN %u, GID index %d, MTU %u)",
				 strerror(-ret), c->remote.qp[i].qpn, d->info.gid_index, c->mtu);
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTS,
		.timeout = (uint8_t)d->qp_timeout, /* 4.096 us << N per try (14: 67 ms) */
		.retry_cnt = 7,
		.rnr_retry = 7,
		.sq_psn = c->local.qp[i].psn,
		.max_rd_atomic = (uint8_t)rd_atomic(c),
	};
	ret = lp_verbs_err(ibv_modify_qp(c->qp[i], &a,
					 IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
						 IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
						 IBV_QP_MAX_QP_RD_ATOMIC));
	if (ret)
		return conn_fail(c, ret, "QP to RTS failed: %s", strerror(-ret));
	return 0;
}

/*
 * Wait for one rdma_cm event of the expected type, bounded by timeout_ms and
 * the session phase's deadline. *id_p gets the event's id and *token_p (may be
 * NULL) the first 8 bytes of a connect request's private data (0: none).
 */
static int cm_wait(struct lp_rdma_conn *c, enum rdma_cm_event_type want, int timeout_ms,
		   struct rdma_cm_id **id_p, uint64_t *token_p)
{
	struct pollfd pfd = { .fd = c->cm_ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int n, status, ms = lp_oob_wait_ms(c->oob, timeout_ms);
	enum rdma_cm_event_type got;

	do
		n = poll(&pfd, 1, ms);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return conn_fail(c, -ETIMEDOUT, "rdma_cm: no %s event within %d ms",
				 rdma_event_str(want), ms);
	if (rdma_get_cm_event(c->cm_ch, &ev))
		return conn_fail(c, -errno, "rdma_get_cm_event: %s", strerror(errno));
	got = ev->event;
	status = ev->status;
	if (id_p)
		*id_p = ev->id;
	if (token_p) {
		const struct rdma_conn_param *cp = &ev->param.conn;

		*token_p = 0;
		if (got == RDMA_CM_EVENT_CONNECT_REQUEST && cp->private_data &&
		    cp->private_data_len >= sizeof(*token_p))
			memcpy(token_p, cp->private_data, sizeof(*token_p));
	}
	rdma_ack_cm_event(ev);
	if (got != want)
		return conn_fail(c, -ECONNREFUSED, "rdma_cm: expected %s, got %s (status %d)",
				 rdma_event_str(want), rdma_event_str(got), status);
	return 0;
}

/*
 * The token a connect request carries (8 bytes, network order): the one the
 * server's QPINFO gave its client. LP_FAULT_CM_TOKEN (test-only) makes the
 * client send another.
 */
static uint64_t cm_token_wire(uint64_t token)
{
	return htobe64(token);
}

static uint64_t cm_token_sent(const struct lp_rdma_conn *c)
{
	const char *f = getenv("LP_FAULT_CM_TOKEN");

	if (f && *f)
		lp_warn("LP_FAULT_CM_TOKEN=%s: sending a wrong rdma_cm token, for a test", f);
	return cm_token_wire(c->remote.cm_token ^ (f && *f ? 1 : 0));
}

/* The connection's parameters; a client's request carries the server's token (*token). */
static void cm_conn_param(struct lp_rdma_conn *c, struct rdma_conn_param *cp, const uint64_t *token)
{
	*cp = (struct rdma_conn_param){
		.responder_resources = (uint8_t)rd_atomic(c),
		.initiator_depth = (uint8_t)rd_atomic(c),
		.retry_count = 7,
		.rnr_retry_count = 7,
		.private_data = token,
		.private_data_len = token ? sizeof(*token) : 0,
	};
}

static int cm_check_dev(struct lp_rdma_conn *c, struct rdma_cm_id *id)
{
	if (id->verbs != c->dev->ctx)
		return conn_fail(c, -EXDEV,
				 "rdma_cm routed the peer through %s, not the chosen %s: pick the "
				 "device that owns the address (-d)",
				 id->verbs ? ibv_get_device_name(id->verbs->device) : "?",
				 c->dev->info.name);
	return 0;
}

/* On a resolved (client) or requested (server) cm_id: QP, connect or accept, established. */
static int cm_qp_establish(struct lp_rdma_conn *c, uint32_t i, bool client)
{
	struct rdma_conn_param cp;
	uint64_t token = client ? cm_token_sent(c) : 0;
	int ret = cm_check_dev(c, c->cm_id[i]);

	if (!ret)
		ret = create_qp_inline(c, i);
	if (ret)
		return ret;
	cm_conn_param(c, &cp, client ? &token : NULL);
	/* a --qp-timeout given under librdmacm too (it moves the QP to RTS itself, with its own
	 * default otherwise) */
	uint8_t ack_timeout = (uint8_t)c->dev->qp_timeout;
	if (ack_timeout != LP_RDMA_QP_TIMEOUT_DEFAULT &&
	    rdma_set_option(c->cm_id[i], RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &ack_timeout,
			    sizeof(ack_timeout)))
		return conn_fail(c, -errno, "rdma_set_option(ACK_TIMEOUT %u): %s", ack_timeout,
				 strerror(errno));
	if (client ? rdma_connect(c->cm_id[i], &cp) : rdma_accept(c->cm_id[i], &cp))
		return conn_fail(c, -errno, "%s: %s", client ? "rdma_connect" : "rdma_accept",
				 strerror(errno));
	return cm_wait(c, RDMA_CM_EVENT_ESTABLISHED, c->oob->timeout_ms, NULL, NULL);
}

static int cm_listen(struct lp_rdma_conn *c, const char *bind_addr)
{
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP };
	struct rdma_addrinfo *res;
	char port[8];

	snprintf(port, sizeof(port), "%u", c->p->cm_port);
	c->cm_ch = rdma_create_event_channel();
	if (!c->cm_ch)
		return conn_fail(c, -errno, "rdma_create_event_channel: %s", strerror(errno));
	if (rdma_getaddrinfo(bind_addr, port, &hints, &res))
		return conn_fail(c, -EADDRNOTAVAIL, "rdma_cm: cannot resolve bind address %s",
				 bind_addr ? bind_addr : "*");
	if (rdma_create_id(c->cm_ch, &c->cm_listen, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(c->cm_listen, res->ai_src_addr) || rdma_listen(c->cm_listen, 64)) {
		int err = -errno;

		rdma_freeaddrinfo(res);
		return conn_fail(c, err, "rdma_cm: cannot listen on port %s: %s", port,
				 strerror(-err));
	}
	rdma_freeaddrinfo(res);
	return 0;
}

static int cm_client_connect(struct lp_rdma_conn *c, const char *host, uint32_t i)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP };
	struct rdma_addrinfo *res;
	char port[8];
	int ret;

	snprintf(port, sizeof(port), "%u", c->p->cm_port);
	if (!c->cm_ch && !(c->cm_ch = rdma_create_event_channel()))
		return conn_fail(c, -errno, "rdma_create_event_channel: %s", strerror(errno));
	if (rdma_getaddrinfo(host, port, &hints, &res))
		return conn_fail(c, -EHOSTUNREACH, "rdma_cm: cannot resolve %s", host);
	ret = rdma_create_id(c->cm_ch, &c->cm_id[i], NULL, RDMA_PS_TCP)
		      ? conn_fail(c, -errno, "rdma_create_id: %s", strerror(errno))
		      : 0;
	if (!ret && rdma_resolve_addr(c->cm_id[i], res->ai_src_addr, res->ai_dst_addr, 2000))
		ret = conn_fail(c, -errno, "rdma_resolve_addr(%s): %s", host, strerror(errno));
	rdma_freeaddrinfo(res);
	if (!ret)
		ret = cm_wait(c, RDMA_CM_EVENT_ADDR_RESOLVED, 3000, NULL, NULL);
	if (!ret && rdma_resolve_route(c->cm_id[i], 2000))
		ret = conn_fail(c, -errno, "rdma_resolve_route(%s): %s", host, strerror(errno));
	if (!ret)
		ret = cm_wait(c, RDMA_CM_EVENT_ROUTE_RESOLVED, 3000, NULL, NULL);
	return ret ? ret : cm_qp_establish(c, i, true);
}

/*
 * Is this connect request this session's: from an allowed address, with the
 * token this side's QPINFO gave its client? Another is rejected (logged), and
 * the server waits on within the phase's deadline.
 */
static bool cm_request_ours(struct lp_rdma_conn *c, struct rdma_cm_id *id, uint64_t token)
{
	bool allowed = lp_sock_allow_match(c->cm_allow, rdma_get_peer_addr(id));

	if (allowed && token == cm_token_wire(c->local.cm_token))
		return true;
	lp_warn("rdma_cm: rejected a connect request %s (port %u serves client %s's test)",
		allowed ? "without this session's token" : "from an address outside --allow",
		c->p->cm_port, c->oob->peer_name);
	rdma_reject(id, NULL, 0);
	rdma_destroy_id(id);
	return false;
}

static int cm_server_accept(struct lp_rdma_conn *c, uint32_t i)
{
	for (;;) {
		uint64_t token;
		int ret = cm_wait(c, RDMA_CM_EVENT_CONNECT_REQUEST, c->oob->timeout_ms,
				  &c->cm_id[i], &token);

		if (ret)
			return ret;
		if (cm_request_ours(c, c->cm_id[i], token))
			return cm_qp_establish(c, i, false);
		c->cm_id[i] = NULL;
	}
}

static uint64_t slot_bytes(const struct lp_rdma_params *p)
{
	return (p->size + 63) & ~63ull;
}

/* Ring bytes per side and direction (all QPs together), and slots per ring, at most. */
#define LP_RING_BYTES (16ull << 20)
#define LP_RING_SLOTS 4096ull

uint64_t lp_conn_mem_bytes(const struct lp_rdma_params *p)
{
	return 2 * slot_bytes(p) * lp_conn_ring_depth(p) * LP_MAX(p->num_qps, 1u);
}

uint64_t lp_conn_ring_depth(const struct lp_rdma_params *p)
{
	uint64_t total = p->duration_s > 0 ? UINT64_MAX : p->warmup + p->iters;
	uint64_t d = LP_RING_BYTES / (slot_bytes(p) * LP_MAX(p->num_qps, 1u));

	if (!p->verify)
		return 1;
	d = LP_MIN(d, LP_RING_SLOTS);
	if (d >= total)
		return total;
	/*
	 * Slots are reused: write_lat's counter byte (uint8_t)m must differ from
	 * that of message m - depth, which the slot held before.
	 */
	if (d > 1 && d % 256 == 0)
		d--;
	return LP_MAX(d, 1);
}

/* The side whose sending ring holds the data: 0 the client, 1 the server. */
static uint32_t side_of(const struct lp_rdma_conn *c, bool local)
{
	return c->is_client == local ? 0 : 1;
}

static uint32_t slot_seed(const struct lp_rdma_conn *c, bool local, uint32_t q, uint64_t k)
{
	return lp_pattern_seed(c->p->seed, side_of(c, local), q, k);
}

/*
 * Test-only fault injection (docs/METHOD.md, "Verification"): one message of
 * the run, 1-based with the warm-up, in the slot it uses. Values are
 * NAME=MSG[:A[:B]]; nothing happens when the variable is unset.
 */
struct fault {
	uint64_t msg, a, b;
};

static bool fault_get(const char *name, struct fault *f)
{
	const char *s = getenv(name);
	unsigned long long v[3] = { 0, 0, 0 };

	if (!s || sscanf(s, "%llu:%llu:%llu", &v[0], &v[1], &v[2]) < 1 || !v[0])
		return false;
	f->msg = v[0];
	f->a = v[1];
	f->b = v[2];
	lp_warn("%s=%s: injecting a fault for a test of verification", name, s);
	return true;
}

static uint64_t fault_slot(const struct lp_rdma_conn *c, const struct fault *f)
{
	return (f->msg - 1) % c->depth;
}

/*
 * LP_FAULT_CORRUPT=MSG:BYTE[:QP] flips byte BYTE of message MSG on QP;
 * LP_FAULT_MISPLACE=MSG puts QP 1's data (with one QP: the other side's) into
 * QP 0's message MSG. Both act on the data this side sends (rx false: its
 * sending ring, before the timed loop) or, for READ tests, on what it read
 * (rx true: its receiving ring, after the loop).
 */
static int fault_data(struct lp_rdma_conn *c, bool rx)
{
	const struct lp_rdma_params *p = c->p;
	struct fault f;
	int ret = 0;

	if (fault_get("LP_FAULT_CORRUPT", &f) && f.b < c->nqps) {
		size_t off = lp_conn_off(c, (uint32_t)f.b, rx, fault_slot(c, &f)) + f.a % p->size;
		uint8_t v;

		ret = c->mem.ops->read(&c->mem, off, &v, 1, c->fail);
		v ^= 0xff;
		if (!ret)
			ret = c->mem.ops->write(&c->mem, off, &v, 1, c->fail);
	}
	if (!ret && fault_get("LP_FAULT_MISPLACE", &f)) {
		uint64_t k = fault_slot(c, &f);
		uint32_t seed = c->nqps > 1 ? lp_pattern_seed(p->seed, side_of(c, !rx), 1, k)
					    : lp_pattern_seed(p->seed, side_of(c, rx), 0, k);

		ret = c->mem.ops->fill(&c->mem, lp_conn_off(c, 0, rx, k), p->size, seed, c->fail);
	}
	return ret;
}

/* LP_FAULT_LOSE=MSG[:QP]: message MSG on QP never arrived (its receiving slot is cleared). */
static int fault_lose(struct lp_rdma_conn *c)
{
	struct fault f;
	uint8_t *zero;
	int ret;

	if (!fault_get("LP_FAULT_LOSE", &f) || f.a >= c->nqps)
		return 0;
	zero = calloc(1, c->slot);
	if (!zero)
		return -ENOMEM;
	ret = c->mem.ops->write(&c->mem, lp_conn_off(c, (uint32_t)f.a, true, fault_slot(c, &f)),
				zero, c->slot, c->fail);
	free(zero);
	return ret;
}

/*
 * Each slot of every sending ring holds its own pattern (side, QP, slot). For
 * write_lat, a receiving slot whose first message carries counter byte 0
 * must not start at 0, or the wait would end before the data arrived.
 */
static int fill_rings(struct lp_rdma_conn *c)
{
	const struct lp_rdma_params *p = c->p;
	const uint8_t one = 1;
	int ret = 0;

	for (uint32_t q = 0; q < c->nqps && !ret; q++)
		for (uint64_t k = 0; k < c->depth && !ret; k++)
			ret = c->mem.ops->fill(&c->mem, lp_conn_off(c, q, false, k), c->slot,
					       slot_seed(c, true, q, k), c->fail);
	if (c->t->detect)
		for (uint64_t k = 255; k < c->depth && !ret; k += 256)
			ret = c->mem.ops->write(&c->mem, lp_conn_off(c, 0, true, k) + p->size - 1,
						&one, 1, c->fail);
	if (!ret && !c->rd)
		ret = fault_data(c, false);
	return ret;
}

int lp_conn_post_recv(struct lp_rdma_conn *c, uint32_t q)
{
	/* Receives complete in order: the n-th completion is the n-th message, in slot n % depth. */
	uint64_t n = c->rx_posted[q]++, k = c->depth == 1 ? 0 : n % c->depth;
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->mem.addr + lp_conn_off(c, q, true, k),
		.length = (uint32_t)c->slot,
		.lkey = c->mem.mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = q, .sg_list = &sge, .num_sge = 1 }, *bad;

	return lp_verbs_err(ibv_post_recv(c->qp[q], &wr, &bad));
}

static int post_initial_recvs(struct lp_rdma_conn *c)
{
	for (uint32_t q = 0; q < c->nqps; q++) {
		for (uint32_t k = 0; k < c->p->rx_depth; k++) {
			int ret = lp_conn_post_recv(c, q);

			if (ret)
				return conn_fail(c, ret,
						 "ibv_post_recv (receive %u of %u on QP %u): %s",
						 k + 1, c->p->rx_depth, q, strerror(-ret));
		}
	}
	return 0;
}

/* QPINFO both ways; the client speaks first so the two sides never both wait. */
static int exchange_qpinfo(struct lp_rdma_conn *c)
{
	struct lp_oob *oob = c->oob;
	int ret = c->is_client ? lp_proto_send(oob, LP_MSG_QPINFO, &c->local) : 0;

	if (ret)
		return conn_fail(c, ret, "cannot send QPINFO to %s: %s", oob->peer_name,
				 strerror(-ret));
	ret = lp_proto_expect(oob, LP_MSG_QPINFO, &c->remote, oob->timeout_ms, c->fail);
	/* The peer's own words are the cause (a registration it could not do, ...); a peer's
	 * signal cancels the test (-ECANCELED), any other error of the peer aborts it. */
	if (ret && ret != -ECANCELED && c->fail->from_peer)
		return -ECONNABORTED;
	if (ret)
		return ret;
	if (c->remote.nqps != c->nqps || c->remote.slot != c->slot)
		return conn_fail(c, -EPROTO,
				 "%s %s set up %u QPs of %llu-byte slots, this side %u of %llu",
				 c->is_client ? "server" : "client", oob->peer_name, c->remote.nqps,
				 (unsigned long long)c->remote.slot, c->nqps,
				 (unsigned long long)c->slot);
	ret = c->is_client ? 0 : lp_proto_send(oob, LP_MSG_QPINFO, &c->local);
	if (ret)
		return conn_fail(c, ret, "cannot send QPINFO to %s: %s", oob->peer_name,
				 strerror(-ret));
	return 0;
}

/* ---- set-up reuse (lp_rdma_dev_reuse) ---- */

/* A cached buffer's key and a pooled QP set's (zero-filled first: they are compared as bytes). */
struct lp_conn_mr_key {
	const void *pd;
	uint64_t len;
	int32_t access, kind, mem_dev;
};

struct lp_conn_qset_key {
	uint32_t nqps, tx_depth, rx_wr, inline_req;
	int32_t cqe_s, cqe_r;
	uint32_t s2cqe_off;
};

/* QPs (in RESET while idle) and the CQs they were created on. */
struct lp_conn_qset {
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp[LP_RDMA_MAX_QPS];
	uint32_t nqps, max_inline;
	const char *scatter_to_cqe;
};

static void mr_release(void *obj)
{
	lp_mem_free(obj);
	free(obj);
}

static void qset_release(void *obj)
{
	struct lp_conn_qset *s = obj;

	for (uint32_t q = 0; q < s->nqps; q++)
		if (s->qp[q])
			ibv_destroy_qp(s->qp[q]);
	if (s->scq)
		ibv_destroy_cq(s->scq);
	if (s->rcq)
		ibv_destroy_cq(s->rcq);
	free(s);
}

int lp_rdma_dev_reuse(struct lp_rdma_dev *dev)
{
	struct lp_rdma_reuse *r;

	if (dev->reuse)
		return 0;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	lp_reuse_pool_init(&r->mrs, mr_release);
	lp_reuse_pool_init(&r->qps, qset_release);
	dev->reuse = r;
	return 0;
}

void lp_rdma_reuse_free(struct lp_rdma_reuse *r)
{
	if (!r)
		return;
	lp_reuse_pool_free(&r->qps); /* the QPs before the buffers they may still refer to */
	lp_reuse_pool_free(&r->mrs);
	pthread_mutex_destroy(&r->qps.lock);
	pthread_mutex_destroy(&r->mrs.lock);
	free(r);
}

void lp_rdma_dev_reuse_stats(const struct lp_rdma_dev *dev, struct lp_rdma_reuse_stats *s)
{
	const struct lp_rdma_reuse *r = dev ? dev->reuse : NULL;

	memset(s, 0, sizeof(*s));
	if (!r)
		return;
	s->mr_registered = r->mrs.created;
	s->mr_reused = r->mrs.reused;
	s->qp_created = r->qps.created;
	s->qp_reused = r->qps.reused;
	s->qp_fallbacks = __atomic_load_n(&r->qp_fallbacks, __ATOMIC_RELAXED);
	s->released = r->mrs.dropped + r->qps.dropped;
}

/* The buffer: from the cache (dev->reuse), else allocated and registered for this test alone. */
static int conn_mem_get(struct lp_rdma_conn *c, enum lp_mem_kind mem, int mem_dev)
{
	struct lp_rdma_reuse *r = c->dev->reuse;
	struct lp_conn_mr_key k;
	struct lp_mem *m;
	int ret;

	memset(&k, 0, sizeof(k));
	k.pd = c->dev->pd;
	k.len = 2 * c->slot * c->depth * c->nqps;
	k.access = c->mr_access;
	k.kind = (int32_t)mem;
	k.mem_dev = mem_dev;
	/* a GPU-polled latency buffer carries its poller's state: made fresh */
	if (!r || (mem != LP_MEM_HOST && c->t->detect)) {
		ret = lp_mem_alloc(&c->mem, mem, mem_dev, k.len, c->fail);
		return ret ? ret : lp_mem_reg(&c->mem, c->dev->pd, c->mr_access, c->fail);
	}
	m = lp_reuse_pool_take(&r->mrs, &k, sizeof(k));
	c->mem_reused = m != NULL;
	if (!m) {
		m = calloc(1, sizeof(*m));
		ret = m ? lp_mem_alloc(m, mem, mem_dev, k.len, c->fail)
			: conn_fail(c, -ENOMEM, "out of memory");
		if (!ret)
			ret = lp_mem_reg(m, c->dev->pd, c->mr_access, c->fail);
		if (!ret && lp_reuse_pool_add(&r->mrs, &k, sizeof(k), m))
			ret = conn_fail(c, -ENOMEM, "out of memory");
		if (ret) {
			if (m)
				mr_release(m);
			return ret;
		}
	}
	c->mem = *m;
	c->mem_cached = m;
	return 0;
}

/*
 * A reused buffer's receiving rings zeroed, as a new buffer is: the last
 * test's messages must not pass for this one's (a lost message under
 * --verify, write_lat's counter byte). Its sending rings are filled anew.
 */
static int conn_mem_clear(struct lp_rdma_conn *c)
{
	static const uint8_t zero[4096];
	struct lp_fail mf = { 0 };
	uint64_t len = c->depth * c->slot;
	int ret = 0;

	for (uint32_t q = 0; q < c->nqps && !ret; q++) {
		uint64_t off = lp_conn_off(c, q, true, 0);

		if (c->mem_caps & LP_MEM_CAP_CPU_VISIBLE) {
			memset((uint8_t *)c->mem.addr + off, 0, len);
			continue;
		}
		for (uint64_t done = 0; done < len && !ret; done += sizeof(zero))
			ret = c->mem.ops->write(&c->mem, off + done, zero,
						LP_MIN(sizeof(zero), len - done), &mf);
	}
	return ret ? mem_fail(c, ret, &mf, "cannot clear a reused buffer") : 0;
}

/* CQ sizes for p: the send and receive queues of every QP, and a margin. */
static void cq_sizes(const struct lp_rdma_conn *c, int *cqe_s, int *cqe_r)
{
	const struct lp_rdma_params *p = c->p;

	*cqe_s = LP_MIN((int)(p->tx_depth + 1) * (int)p->num_qps + 16, c->dev->dev_attr.max_cqe);
	*cqe_r = LP_MIN((int)(wants_recvs(p) ? p->rx_depth : 1) * (int)p->num_qps + 16,
			c->dev->dev_attr.max_cqe);
}

static void qset_key(const struct lp_rdma_conn *c, struct lp_conn_qset_key *k)
{
	const struct lp_rdma_params *p = c->p;

	memset(k, 0, sizeof(*k));
	k->nqps = c->nqps;
	k->tx_depth = p->tx_depth;
	k->rx_wr = wants_recvs(p) ? p->rx_depth : 1;
	k->inline_req = p->inline_size == UINT32_MAX ? c->t->inline_auto : p->inline_size;
	k->s2cqe_off = !!(c->mem_caps & LP_MEM_CAP_NO_SCATTER_TO_CQE);
	cq_sizes(c, &k->cqe_s, &k->cqe_r);
}

static int create_cqs(struct lp_rdma_conn *c)
{
	int cqe_s, cqe_r;

	cq_sizes(c, &cqe_s, &cqe_r);
	c->scq = ibv_create_cq(c->dev->ctx, cqe_s, NULL, NULL, 0);
	c->rcq = ibv_create_cq(c->dev->ctx, cqe_r, NULL, NULL, 0);
	if (!c->scq || !c->rcq)
		return conn_fail(c, errno ? -errno : -ENOMEM,
				 "%s: cannot create completion queues: %s", c->dev->info.name,
				 strerror(errno ? errno : ENOMEM));
	return 0;
}

/* The CQs: a pooled set's (its QPs with them, in RESET), else new ones. */
static int conn_cqs_get(struct lp_rdma_conn *c)
{
	struct lp_rdma_reuse *r = c->dev->reuse;
	struct lp_conn_qset_key k;
	struct lp_conn_qset *s;

	qset_key(c, &k);
	s = r && !c->p->use_cm ? lp_reuse_pool_take(&r->qps, &k, sizeof(k)) : NULL;
	if (!s)
		return create_cqs(c);
	c->qset = s;
	c->qset_reused = true;
	c->scq = s->scq;
	c->rcq = s->rcq;
	memcpy(c->qp, s->qp, sizeof(c->qp));
	c->max_inline = s->max_inline;
	c->scatter_to_cqe = s->scatter_to_cqe;
	return 0;
}

/* This test's new QPs and CQs into the pool (busy), when dev->reuse pools them. */
static int qset_add(struct lp_rdma_conn *c)
{
	struct lp_rdma_reuse *r = c->dev->reuse;
	struct lp_conn_qset_key k;
	struct lp_conn_qset *s;

	if (!r || c->p->use_cm)
		return 0;
	s = calloc(1, sizeof(*s));
	if (!s)
		return 0; /* not pooled: torn down with the test as without reuse */
	qset_key(c, &k);
	*s = (struct lp_conn_qset){ .scq = c->scq,
				    .rcq = c->rcq,
				    .nqps = c->nqps,
				    .max_inline = c->max_inline,
				    .scatter_to_cqe = c->scatter_to_cqe };
	memcpy(s->qp, c->qp, sizeof(s->qp));
	if (lp_reuse_pool_add(&r->qps, &k, sizeof(k), s)) {
		free(s);
		return 0;
	}
	c->qset = s;
	return 0;
}

/* A pooled set's QPs to INIT; if one fails, the set is destroyed and fresh CQs made (counted). */
static int qset_renew(struct lp_rdma_conn *c)
{
	struct lp_rdma_reuse *r = c->dev->reuse;
	int ret = 0;

	for (uint32_t q = 0; q < c->nqps && !ret; q++)
		ret = qp_modify_init(c, c->qp[q]);
	if (!ret)
		return 0;
	lp_debug("a pooled QP did not go to INIT (%s): a fresh one instead", strerror(-ret));
	__atomic_add_fetch(&r->qp_fallbacks, 1, __ATOMIC_RELAXED);
	lp_reuse_pool_drop(&r->qps, c->qset);
	c->qset = NULL;
	c->qset_reused = false;
	c->scq = c->rcq = NULL;
	memset(c->qp, 0, sizeof(c->qp));
	return create_cqs(c);
}

/*
 * Test-only (docs/SWEEP.md, "Set-up reuse"): LP_FAULT_QP_RESET=N makes the
 * N-th RESET transition of this process's pooled QPs fail, as a provider
 * that refused it would: the set is then replaced by a fresh one (counted).
 */
static int qp_modify_reset(struct ibv_qp *qp)
{
	static uint64_t resets;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	const char *f = getenv("LP_FAULT_QP_RESET");

	if (f && (uint64_t)atoll(f) == __atomic_add_fetch(&resets, 1, __ATOMIC_RELAXED))
		return -EIO;
	return lp_verbs_err(ibv_modify_qp(qp, &a, IBV_QP_STATE));
}

/* Every QP of s to RESET (its work requests gone) and its CQs emptied: 0, or -errno. */
static int qset_reset(struct lp_conn_qset *s)
{
	struct ibv_wc wc[16];
	int ret = 0;

	for (uint32_t q = 0; q < s->nqps && !ret; q++)
		ret = qp_modify_reset(s->qp[q]);
	for (int i = 0; !ret && i < 1024 && ibv_poll_cq(s->scq, 16, wc) > 0; i++)
		;
	for (int i = 0; !ret && i < 1024 && ibv_poll_cq(s->rcq, 16, wc) > 0; i++)
		;
	return ret;
}

/* The cached buffer and pooled set back for the next test (after a clean test), else released. */
static void conn_give_back(struct lp_rdma_conn *c)
{
	struct lp_rdma_reuse *r = c->dev ? c->dev->reuse : NULL;
	bool clean = !c->fail || !c->fail->err;

	if (c->qset) {
		int ret = clean ? qset_reset(c->qset) : 0;

		if (clean && !ret) {
			lp_reuse_pool_put(&r->qps, c->qset);
		} else {
			if (ret) {
				lp_debug("a pooled QP did not go to RESET (%s): released",
					 strerror(-ret));
				__atomic_add_fetch(&r->qp_fallbacks, 1, __ATOMIC_RELAXED);
			}
			lp_reuse_pool_drop(&r->qps, c->qset);
		}
		c->qset = NULL;
		c->scq = c->rcq = NULL;
		memset(c->qp, 0, sizeof(c->qp));
	}
	if (c->mem_cached) {
		if (clean)
			lp_reuse_pool_put(&r->mrs, c->mem_cached);
		else
			lp_reuse_pool_drop(&r->mrs, c->mem_cached);
		c->mem_cached = NULL;
		memset(&c->mem, 0, sizeof(c->mem));
	}
}

/* CQs, the registered buffer (filled), and for write_lat the detection and its counter byte. */
static int setup_buffers(struct lp_rdma_conn *c, enum lp_mem_kind mem, int mem_dev)
{
	const struct lp_rdma_params *p = c->p;
	struct lp_rdma_dev *dev = c->dev;
	int ret;

	/* Relaxed ordering (an optional flag: ignored where unsupported) for bandwidth, as perftest. */
	c->mr_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		       (c->t->lat ? 0 : IBV_ACCESS_RELAXED_ORDERING);
	ret = conn_mem_get(c, mem, mem_dev);
	if (ret)
		return ret;
	c->mem_caps = lp_mem_caps(&c->mem);
	ret = c->mem_reused ? conn_mem_clear(c) : 0;
	if (!ret)
		ret = conn_cqs_get(c);
	if (ret)
		return ret;
	c->notify_us = NAN;
	if (c->t->detect) {
		double ns;

		c->detect = p->lat_method == LP_LAT_WRITE_IMM	   ? LP_DETECT_IMM
			    : c->mem_caps & LP_MEM_CAP_DEVICE_POLL ? LP_DETECT_GPU
								   : LP_DETECT_CPU;
		if (c->detect == LP_DETECT_GPU) {
			ret = lp_mem_poll_prepare(&c->mem, (uint64_t)p->timeout_ms * 1000000ull,
						  &ns, c->fail);
			if (ret)
				return ret;
			c->notify_us = ns / 1e3;
		}
		if (posix_memalign((void **)&c->flag_host, 64, 64))
			return conn_fail(c, -ENOMEM, "out of host memory");
		memset(c->flag_host, 0, 64);
		c->flag_mr = ibv_reg_mr(dev->pd, c->flag_host, 64, IBV_ACCESS_LOCAL_WRITE);
		if (!c->flag_mr)
			return conn_fail(c, -errno, "cannot register 64 B of host memory: %s",
					 strerror(errno));
	}
	return fill_rings(c);
}

/* This side's QPINFO; without rdma_cm the QPs are created here (rdma_cm creates them later). */
static int setup_local(struct lp_rdma_conn *c, const char *bind_addr)
{
	const struct lp_rdma_dev *dev = c->dev;
	int ret;

	c->local = (struct lp_qpinfo){
		.nqps = c->nqps,
		.lid = dev->info.lid,
		.rkey = c->mem.mr->rkey,
		.addr = (uintptr_t)c->mem.addr,
		.slot = c->slot,
		.mtu = c->mtu,
		.mem_kind = c->mem_kind,
		.detect = c->detect,
	};
	memcpy(c->local.gid, dev->gid.raw, 16);
	snprintf(c->local.mem, sizeof(c->local.mem), "%s", c->mem.desc);
	if (c->p->use_cm && !c->is_client) /* only this session's client knows it */
		c->local.cm_token = lp_rdma_seed_new() | (uint64_t)lp_rdma_seed_new() << 32;
	if (c->p->use_cm)
		return c->is_client ? 0 : cm_listen(c, bind_addr);
	ret = c->qset_reused ? qset_renew(c) : 0;
	for (uint32_t q = 0; q < c->nqps && !ret && !c->qset_reused; q++) {
		ret = create_qp_inline(c, q);
		if (!ret)
			ret = qp_to_init(c, c->qp[q]);
	}
	if (!ret && !c->qset_reused)
		ret = qset_add(c);
	if (ret)
		return ret;
	for (uint32_t q = 0; q < c->nqps; q++) {
		c->local.qp[q].qpn = c->qp[q]->qp_num;
		c->local.qp[q].psn = (uint32_t)(lp_now_ns() * 2654435761u + q) & 0xffffff;
	}
	return 0;
}

/* Every QP to RTS (or connected by rdma_cm), receives posted, the GPU poller started. */
static int setup_connect(struct lp_rdma_conn *c, const char *server_host)
{
	const struct lp_rdma_params *p = c->p;
	int ret = 0;

	c->mtu = LP_MIN(c->mtu, c->remote.mtu);
	for (uint32_t q = 0; q < c->nqps && !ret; q++) {
		if (!p->use_cm)
			ret = qp_to_rts(c, q);
		else if (c->is_client)
			ret = cm_client_connect(c, server_host, q);
		else
			ret = cm_server_accept(c, q);
	}
	if (!ret && wants_recvs(p))
		ret = post_initial_recvs(c);
	if (!ret && c->detect == LP_DETECT_GPU) {
		/* Started before READY: it zeroes the flag byte, so no write may land first. */
		uint64_t n = p->duration_s > 0 ? UINT32_MAX : p->warmup + p->iters;

		struct lp_fail mf = { 0 };

		ret = lp_mem_poll_start(&c->mem, lp_conn_off(c, 0, true, 0) + p->size - 1, c->slot,
					(uint32_t)c->depth,
					(uint32_t)LP_MIN(n, (uint64_t)UINT32_MAX),
					(uint64_t)p->timeout_ms * 1000000ull, &mf);
		if (ret)
			mem_fail(c, ret, &mf, "cannot start the GPU poller");
	}
	return ret;
}

int lp_conn_setup(struct lp_rdma_conn *c, const struct lp_conn_cfg *cfg)
{
	const struct lp_rdma_params *p = cfg->p;
	int ret;

	memset(c, 0, sizeof(*c));
	c->dev = cfg->dev;
	c->p = p;
	c->t = lp_rdma_test(p->test);
	c->rd = c->t->op == LP_OP_READ;
	c->opcode = c->rd		     ? IBV_WR_RDMA_READ
		    : c->t->op == LP_OP_SEND ? IBV_WR_SEND
					     : IBV_WR_RDMA_WRITE;
	c->is_client = cfg->is_client;
	c->oob = cfg->oob;
	c->fail = cfg->fail;
	c->stop = cfg->oob->stop;
	c->cm_allow = cfg->allow;
	c->nqps = p->num_qps;
	c->slot = slot_bytes(p);
	c->depth = lp_conn_ring_depth(p);
	c->mtu = p->mtu ? LP_MIN(p->mtu, cfg->dev->info.active_mtu) : cfg->dev->info.active_mtu;
	c->mem_kind = cfg->mem;
	ret = setup_buffers(c, cfg->mem, cfg->mem_dev);
	if (!ret)
		ret = setup_local(c, cfg->bind_addr);
	if (!ret)
		ret = exchange_qpinfo(c);
	if (!ret)
		ret = setup_connect(c, cfg->server_host);
	if (ret)
		lp_conn_teardown(c);
	return ret;
}

void lp_conn_teardown(struct lp_rdma_conn *c)
{
	conn_give_back(c);
	if (c->flag_mr)
		ibv_dereg_mr(c->flag_mr);
	free(c->flag_host);
	c->flag_mr = NULL;
	c->flag_host = NULL;
	for (uint32_t q = 0; q < LP_RDMA_MAX_QPS; q++) {
		if (c->cm_id[q]) {
			if (c->qp[q])
				rdma_disconnect(c->cm_id[q]);
			if (c->qp[q])
				rdma_destroy_qp(c->cm_id[q]);
			rdma_destroy_id(c->cm_id[q]);
		} else if (c->qp[q]) {
			ibv_destroy_qp(c->qp[q]);
		}
		c->qp[q] = NULL;
		c->cm_id[q] = NULL;
	}
	if (c->cm_listen)
		rdma_destroy_id(c->cm_listen);
	if (c->cm_ch)
		rdma_destroy_event_channel(c->cm_ch);
	lp_mem_free(&c->mem); /* stops a GPU poller first */
	if (c->scq)
		ibv_destroy_cq(c->scq);
	if (c->rcq)
		ibv_destroy_cq(c->rcq);
	c->cm_listen = NULL;
	c->cm_ch = NULL;
	c->scq = c->rcq = NULL;
}

/*
 * Send tests: every message the peer sent must have completed a receive here
 * (a lost one leaves the count short). The loops leave the last completions of
 * a run unpolled at times; reap them (bounded) without reposting.
 */
static int count_recvs(struct lp_rdma_conn *c, const uint64_t *landed)
{
	const struct lp_rdma_params *p = c->p;
	uint64_t got[LP_RDMA_MAX_QPS], end = lp_now_ns() + 2000000000ull;
	struct ibv_wc wc[16];
	bool short_any = true;

	for (uint32_t q = 0; q < c->nqps; q++)
		got[q] = c->rx_posted[q] - p->rx_depth;
	while (short_any && lp_now_ns() < end) {
		int n = ibv_poll_cq(c->rcq, 16, wc);

		for (int k = 0; k < n; k++)
			if (wc[k].status == IBV_WC_SUCCESS && wc[k].wr_id < c->nqps)
				got[wc[k].wr_id]++;
		short_any = false;
		for (uint32_t q = 0; q < c->nqps; q++)
			short_any |= got[q] < landed[q];
	}
	for (uint32_t q = 0; q < c->nqps; q++) {
		if (got[q] != landed[q])
			return conn_fail(
				c, -EILSEQ,
				"data verification failed: %s size %llu, QP %u: %llu messages "
				"received, the sender sent %llu (%s)",
				lp_rdma_test_names[p->test], (unsigned long long)p->size, q,
				(unsigned long long)got[q], (unsigned long long)landed[q],
				got[q] < landed[q] ? "lost" : "duplicated");
	}
	return 0;
}

int lp_conn_verify(struct lp_rdma_conn *c, const uint64_t *landed, struct lp_rdma_verified *v)
{
	const struct lp_rdma_params *p = c->p;
	/* write_lat (polling): the last byte of message m carries its counter, (uint8_t)m. */
	bool counter = c->t->detect && p->lat_method == LP_LAT_POLL;
	size_t n = p->size - (counter ? 1 : 0);
	struct lp_fail mf = { 0 };
	int ret = 0;

	if (c->t->needs_recv)
		ret = count_recvs(c, landed);
	if (!ret && c->rd)
		ret = fault_data(c, true);
	if (!ret)
		ret = fault_lose(c);
	if (ret)
		goto out;
	for (uint32_t q = 0; q < c->nqps; q++) {
		uint64_t slots = LP_MIN(landed[q], c->depth);

		for (uint64_t k = 0; k < slots; k++) {
			/* The last message that landed in slot k. */
			uint64_t m = k + 1 + (landed[q] - k - 1) / c->depth * c->depth;
			size_t off = lp_conn_off(c, q, true, k), bad = 0;
			uint8_t b;

			ret = n ? c->mem.ops->verify(&c->mem, off, n, slot_seed(c, false, q, k),
						     &bad, &mf)
				: 0;
			if (!ret && counter) {
				ret = c->mem.ops->read(&c->mem, off + n, &b, 1, &mf);
				if (!ret && b != (uint8_t)m) {
					bad = n;
					ret = -EILSEQ;
				}
			}
			if (ret == -EILSEQ)
				return conn_fail(
					c, ret,
					"data verification failed: %s size %llu, QP %u, message "
					"%llu (ring slot %llu), byte offset %zu",
					lp_rdma_test_names[p->test], (unsigned long long)p->size, q,
					(unsigned long long)m, (unsigned long long)k, bad);
			if (ret)
				goto out;
		}
		v->messages += slots;
		v->bytes += slots * p->size;
		v->landed += landed[q];
	}
	v->ring = c->depth;
	return 0;
out:
	return mem_fail(c, ret, &mf, "data verification could not run");
}
