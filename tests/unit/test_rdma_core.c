// SPDX-License-Identifier: MIT
/* Unit tests for rdma/ without hardware: GID scoring, port rates, the exchange's encodings. */
#include "lp_test.h"

#include <arpa/inet.h>
#include <errno.h>
#include <sys/socket.h>

#include "common/lp.h"
#include "common/opt.h"
#include "rdma/internal.h"

static struct lp_gid_entry gid(const char *addr, enum lp_gid_type t)
{
	struct lp_gid_entry e = { .type = t, .valid = true };

	assert_int_equal(inet_pton(AF_INET6, addr, e.raw), 1);
	return e;
}

/* A typical RoCE port: fe80 v1/v2, IPv4-mapped v1/v2, a global IPv6 v1/v2, an empty slot. */
static void fake_roce_table(struct lp_gid_entry *t)
{
	t[0] = gid("fe80::5054:ff:fe12:3456", LP_GID_ROCE_V1);
	t[1] = gid("fe80::5054:ff:fe12:3456", LP_GID_ROCE_V2);
	t[2] = gid("::ffff:10.0.2.15", LP_GID_ROCE_V1);
	t[3] = gid("::ffff:10.0.2.15", LP_GID_ROCE_V2);
	t[4] = gid("2001:db8::15", LP_GID_ROCE_V1);
	t[5] = gid("2001:db8::15", LP_GID_ROCE_V2);
	memset(&t[6], 0, sizeof(t[6]));
}

static void test_gid_pick_roce(void **state)
{
	struct lp_gid_entry t[7];
	int idx = -1;

	(void)state;
	fake_roce_table(t);
	assert_int_equal(lp_rdma_gid_pick(t, 7, AF_INET, -1, &idx), 0);
	assert_int_equal(idx, 3); /* IPv4-mapped RoCEv2 */
	assert_int_equal(lp_rdma_gid_pick(t, 7, AF_INET6, -1, &idx), 0);
	assert_int_equal(idx, 5); /* global IPv6 RoCEv2 over link-local */
	/* The server matches the client's type: a v1 client gets a v1 GID. */
	assert_int_equal(lp_rdma_gid_pick(t, 7, AF_INET, LP_GID_ROCE_V1, &idx), 0);
	assert_int_equal(idx, 2);
	assert_true(lp_rdma_gid_score(&t[6], AF_INET) < 0);
}

static void test_gid_pick_linklocal_only(void **state)
{
	struct lp_gid_entry t[3];
	int idx = -1;

	(void)state;
	t[0] = gid("fe80::1", LP_GID_ROCE_V1);
	t[1] = gid("fe80::1", LP_GID_ROCE_V2);
	memset(&t[2], 0, sizeof(t[2]));
	/* No IPv4 address on the netdev: still usable, v2 preferred. */
	assert_int_equal(lp_rdma_gid_pick(t, 3, AF_INET, -1, &idx), 0);
	assert_int_equal(idx, 1);
	/* Asked for a type the table lacks: nothing. */
	assert_int_equal(lp_rdma_gid_pick(t, 3, AF_INET, LP_GID_IB, &idx), -ENOENT);
	assert_int_equal(lp_rdma_gid_pick(t, 0, AF_INET, -1, &idx), -ENOENT);
}

static void test_gid_names(void **state)
{
	char buf[64];
	struct lp_gid_entry e = gid("::ffff:10.9.0.1", LP_GID_ROCE_V2);

	(void)state;
	lp_rdma_gid_str(e.raw, buf, sizeof(buf));
	assert_string_equal(buf, "::ffff:10.9.0.1");
	assert_string_equal(lp_rdma_gid_type_name(LP_GID_ROCE_V2), "RoCEv2");
	assert_string_equal(lp_rdma_gid_type_name(LP_GID_IB), "IB");
}

static void test_port_rate(void **state)
{
	const char *name;
	unsigned lanes;

	(void)state;
	/* NDR 4x = 400 Gb/s, HDR 4x = 200, EDR 4x = 100, FDR 4x = 54.56, SDR 1x = 2 */
	assert_true(fabs(lp_rdma_port_gbps(128, 2, &name, &lanes) - 400) < 1e-9);
	assert_string_equal(name, "NDR");
	assert_int_equal(lanes, 4);
	assert_true(fabs(lp_rdma_port_gbps(64, 2, &name, &lanes) - 200) < 1e-9);
	assert_true(fabs(lp_rdma_port_gbps(32, 2, &name, &lanes) - 100) < 1e-9);
	assert_true(fabs(lp_rdma_port_gbps(16, 2, &name, &lanes) - 54.56) < 1e-9);
	assert_true(fabs(lp_rdma_port_gbps(1, 1, &name, &lanes) - 2) < 1e-9);
	assert_true(fabs(lp_rdma_port_gbps(64, 16, &name, &lanes) - 100) < 1e-9); /* HDR 2x */
	assert_true(lp_rdma_port_gbps(3, 2, &name, &lanes) == 0);
	assert_string_equal(name, "unknown");
}

static void test_params_roundtrip(void **state)
{
	struct lp_rdma_params p, q;
	struct lp_wbuf w;
	struct lp_fail why;

	(void)state;
	lp_rdma_params_default(&p, LP_RDMA_READ_BW);
	p.size = 1 << 20;
	p.bidir = true;
	p.verify = true;
	p.num_qps = 4;
	p.duration_s = 2.5;
	p.mem = LP_MEM_CUDA;
	p.mem_dev = 3;
	p.gid_type = LP_GID_ROCE_V2;
	p.cm_port = 18516;
	assert_int_equal(lp_rdma_params_check(&p, lp_fresh(&why)), 0);
	assert_int_equal(lp_proto_encode(LP_MSG_HELLO, &p, &w), 0);
	assert_int_equal(lp_proto_decode(LP_MSG_HELLO, &q, w.data, w.len), 0);
	assert_int_equal(q.test, LP_RDMA_READ_BW);
	assert_int_equal(q.size, 1 << 20);
	assert_true(q.bidir && q.verify && !q.use_cm);
	assert_int_equal(q.num_qps, 4);
	assert_true(q.duration_s == 2.5);
	assert_int_equal(q.mem, LP_MEM_CUDA);
	assert_int_equal(q.mem_dev, 3);
	assert_int_equal(q.gid_type, LP_GID_ROCE_V2);
	assert_int_equal(q.cm_port, 18516);
	assert_int_equal(q.inline_size, UINT32_MAX);

	/* Truncated by one byte, and one byte too many: both rejected. */
	assert_int_not_equal(lp_proto_decode(LP_MSG_HELLO, &q, w.data, w.len - 1), 0);
	w.data[w.len] = 0;
	assert_int_not_equal(lp_proto_decode(LP_MSG_HELLO, &q, w.data, w.len + 1), 0);
}

/* The server validates every field: each of these must be refused. */
static void test_params_check(void **state)
{
	struct lp_rdma_params p;
	struct lp_fail why;

	(void)state;
#define BAD(field, val)                                                                            \
	do {                                                                                       \
		lp_rdma_params_default(&p, LP_RDMA_WRITE_BW);                                      \
		p.field = val;                                                                     \
		assert_int_equal(lp_rdma_params_check(&p, lp_fresh(&why)), -EINVAL);               \
		assert_true(strlen(why.msg) > 0);                                                  \
	} while (0)
	BAD(test, 17);
	BAD(size, 0);
	BAD(size, (1ull << 30) + 1);
	BAD(iters, 0);
	BAD(tx_depth, 0);
	BAD(tx_depth, 100000);
	BAD(cq_mod, 0);
	BAD(cq_mod, 1000);
	BAD(post_list, 129);
	BAD(num_qps, 0);
	BAD(num_qps, 65);
	BAD(mtu, 1500);
	BAD(inline_size, 5000);
	BAD(duration_s, -1);
	BAD(timeout_ms, 5);
	BAD(mem, 9);
	BAD(mem_dev, -7);
	BAD(gid_type, 7);
	BAD(lat_method, 5);
	BAD(lat_method, 1);
#undef BAD
	lp_rdma_params_default(&p, LP_RDMA_WRITE_LAT);
	p.bidir = true;
	assert_int_equal(lp_rdma_params_check(&p, lp_fresh(&why)), -EINVAL);
	lp_rdma_params_default(&p, LP_RDMA_WRITE_LAT);
	p.num_qps = 2;
	assert_int_equal(lp_rdma_params_check(&p, lp_fresh(&why)), -EINVAL);
	lp_rdma_params_default(&p, LP_RDMA_SEND_LAT);
	assert_int_equal(lp_rdma_params_check(&p, lp_fresh(&why)), 0);
	/* 64 QPs x 1 GiB would make the server register 128 GiB: refused. */
	lp_rdma_params_default(&p, LP_RDMA_WRITE_BW);
	p.size = 1ull << 30;
	p.num_qps = 64;
	assert_int_equal(lp_rdma_params_check(&p, lp_fresh(&why)), -EINVAL);
	p.num_qps = 2;
	assert_int_equal(lp_rdma_params_check(&p, lp_fresh(&why)), 0);
}

static void test_qpinfo(void **state)
{
	struct lp_qpinfo a = { .nqps = 2,
			       .qp = { { 17, 1 }, { 18, 0xffffff } },
			       .lid = 5,
			       .rkey = 0xabcd,
			       .addr = 0x7f0000001000ull,
			       .slot = 4096,
			       .mtu = 1024,
			       .mem_kind = LP_MEM_CUDA,
			       .detect = LP_DETECT_GPU };
	struct lp_qpinfo b;
	struct lp_wbuf w;

	(void)state;
	strcpy(a.mem, "cuda:0 dmabuf");
	a.gid[15] = 9;
	assert_int_equal(lp_proto_encode(LP_MSG_QPINFO, &a, &w), 0);
	assert_int_equal(lp_proto_decode(LP_MSG_QPINFO, &b, w.data, w.len), 0);
	assert_int_equal(b.nqps, 2);
	assert_int_equal(b.qp[1].qpn, 18);
	assert_int_equal(b.qp[1].psn, 0xffffff);
	assert_int_equal(b.rkey, 0xabcd);
	assert_true(b.addr == a.addr);
	assert_string_equal(b.mem, "cuda:0 dmabuf");
	/* The peer's memory kind and detection travel as fields, not in a display string. */
	assert_int_equal(b.mem_kind, LP_MEM_CUDA);
	assert_int_equal(b.detect, LP_DETECT_GPU);
	assert_int_equal(b.gid[15], 9);
	/* A QP count outside 1..64 is refused before anything else is read. */
	w.data[3] = 200;
	assert_int_equal(lp_proto_decode(LP_MSG_QPINFO, &b, w.data, w.len), -EPROTO);
	w.data[3] = 0;
	assert_int_equal(lp_proto_decode(LP_MSG_QPINFO, &b, w.data, w.len), -EPROTO);
	/* A PSN over 24 bits, an unknown memory kind: refused (the encoder refuses them too). */
	a.qp[0].psn = 0x1000000;
	assert_int_equal(lp_proto_encode(LP_MSG_QPINFO, &a, &w), -EINVAL);
	a.qp[0].psn = 1;
	a.mem_kind = 7;
	assert_int_equal(lp_proto_encode(LP_MSG_QPINFO, &a, &w), -EINVAL);
}

/* One valid body of every message with one; each decodes back, and every shorter body fails. */
static void test_proto_messages(void **state)
{
	struct lp_rdma_params p;
	struct lp_rdma_devinfo d = {
		.name = "rxe0", .port = 1, .gid_index = -1, .numa_node = -1, .rate_gbps = 10
	};
	struct lp_qpinfo q = { .nqps = 1, .qp = { { 17, 5 } }, .slot = 64, .mem = "host" };
	struct lp_proto_error e = { .status = -EINVAL, .text = "size 0 out of range" };
	struct lp_proto_done done = { .iters = 10, .nqps = 2, .msgs = { 11, 12 } };
	struct lp_rdma_result_msg res = { .verify = LP_VERIFY_OK,
					  .bytes = 640,
					  .nqps = 2,
					  .sent = { 11, 12 },
					  .checked = { .messages = 22, .where = "server" } };
	struct lp_proto_open op = { .nonce = { 1, 2, 3 } };
	struct lp_proto_challenge ch = { .nonce = { 4 }, .key = true, .proof = { 5, 6 } };
	struct lp_proto_auth au = { .mac = { 7, [31] = 8 } };
	struct lp_proto_busy busy = { .retry_s = 12, .text = "another client (10.0.0.2)" };
	const void *msg[LP_MSG_NTYPES] = {
		[LP_MSG_HELLO] = &p,   [LP_MSG_ACCEPT] = &d,	 [LP_MSG_ERROR] = &e,
		[LP_MSG_QPINFO] = &q,  [LP_MSG_DONE] = &done,	 [LP_MSG_RESULT] = &res,
		[LP_MSG_OPEN] = &op,   [LP_MSG_CHALLENGE] = &ch, [LP_MSG_AUTH] = &au,
		[LP_MSG_BUSY] = &busy,
	};
	union {
		struct lp_rdma_params p;
		struct lp_rdma_devinfo d;
		struct lp_qpinfo q;
		struct lp_proto_error e;
		struct lp_proto_done done;
		struct lp_rdma_result_msg res;
		struct lp_proto_open op;
		struct lp_proto_challenge ch;
		struct lp_proto_auth au;
		struct lp_proto_busy busy;
	} out;

	(void)state;
	lp_rdma_params_default(&p, LP_RDMA_WRITE_BW);
	for (uint16_t t = 1; t < LP_MSG_NTYPES; t++) {
		const struct lp_record *rec = lp_proto_record(t);
		struct lp_wbuf w, w2;

		assert_int_equal(rec == NULL, msg[t] == NULL); /* READY, BYE, GRANT: no body */
		assert_int_equal(lp_proto_encode(t, msg[t], &w), 0);
		assert_int_equal(lp_proto_decode(t, &out, w.data, w.len), 0);
		assert_int_equal(lp_proto_encode(t, &out, &w2), 0);
		assert_int_equal(w2.len, w.len);
		assert_memory_equal(w2.data, w.data, w.len);
		for (size_t len = 0; len < w.len; len++)
			assert_int_equal(lp_proto_decode(t, &out, w.data, len), -EPROTO);
		if (!rec) /* an empty message with a body is malformed */
			assert_int_equal(lp_proto_decode(t, &out, "x", 1), -EPROTO);
	}
	/* An ERROR status that is no errno is malformed; a peer's EINTR reads as cancelled. */
	e.status = 0;
	{
		struct lp_wbuf w;

		lp_wbuf_init(&w);
		lp_wbuf_u32(&w, 0);
		lp_wbuf_str(&w, "x");
		assert_int_equal(lp_proto_decode(LP_MSG_ERROR, &out, w.data, w.len), -EPROTO);
		e.status = -EINTR;
		assert_int_equal(lp_proto_encode(LP_MSG_ERROR, &e, &w), 0);
		assert_int_equal(lp_proto_decode(LP_MSG_ERROR, &out, w.data, w.len), 0);
		assert_int_equal(out.e.status, -ECANCELED);
		/* RESULT: verify 3 is no state. */
		res.verify = 3;
		assert_int_equal(lp_proto_encode(LP_MSG_RESULT, &res, &w), -EINVAL);
	}
}

/* A RESULT with the most counters, the longest names. */
static void result_msg_fill(struct lp_rdma_result_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->verify = LP_VERIFY_OK;
	m->bytes = 4096;
	m->iters = 10;
	m->nqps = LP_RDMA_MAX_QPS;
	for (unsigned q = 0; q < LP_RDMA_MAX_QPS; q++)
		m->sent[q] = 11 + q;
	snprintf(m->text, sizeof(m->text), "%0*d", (int)sizeof(m->text) - 1, 0);
	m->ctr.valid = true;
	snprintf(m->ctr.dev, sizeof(m->ctr.dev), "rxe0");
	m->ctr.port = 1;
	snprintf(m->ctr.netdev, sizeof(m->ctr.netdev), "eth0");
	m->ctr.more = 3;
	m->ctr.n = LP_CTR_MOVED_MAX;
	for (unsigned i = 0; i < m->ctr.n; i++) {
		snprintf(m->ctr.c[i].name, sizeof(m->ctr.c[i].name), "%0*u", LP_CTR_NAME_LEN - 1,
			 i);
		m->ctr.c[i].src = LP_CTR_HW;
		m->ctr.c[i].value = 1000 + i;
	}
	m->ctr.c[1].reset = 1;
}

static void test_result_msg_counters(void **state)
{
	static struct lp_rdma_result_msg a, b;
	struct lp_wbuf w;

	(void)state;
	result_msg_fill(&a);
	/* the most counters with the longest names, 64 QPs and the longest text fit a frame */
	assert_int_equal(lp_proto_encode(LP_MSG_RESULT, &a, &w), 0);
	assert_int_equal(lp_proto_decode(LP_MSG_RESULT, &b, w.data, w.len), 0);
	assert_memory_equal(&a.ctr, &b.ctr, sizeof(a.ctr));
	for (size_t n = 0; n < w.len; n++)
		assert_int_equal(lp_proto_decode(LP_MSG_RESULT, &b, w.data, n), -EPROTO);
	/* A side that could not read its counters. */
	memset(&a.ctr, 0, sizeof(a.ctr));
	assert_int_equal(lp_proto_encode(LP_MSG_RESULT, &a, &w), 0);
	assert_int_equal(lp_proto_decode(LP_MSG_RESULT, &b, w.data, w.len), 0);
	assert_false(b.ctr.valid);
}

/* RESULT's counter section written by hand: n entries named name, source src, reset flag. */
static int result_msg_forged(uint32_t n, const char *name, uint8_t src, uint8_t reset)
{
	static struct lp_rdma_result_msg m;
	struct lp_wbuf w;

	result_msg_fill(&m);
	m.nqps = 1;
	m.ctr.n = 0;
	assert_int_equal(lp_proto_encode(LP_MSG_RESULT, &m, &w), 0);
	w.len -= 4; /* the count */
	lp_wbuf_u32(&w, n);
	for (unsigned i = 0; i < n; i++) {
		lp_wbuf_str(&w, name);
		lp_wbuf_u8(&w, src);
		lp_wbuf_u8(&w, reset);
		lp_wbuf_u64(&w, 5);
	}
	assert_int_equal(w.err, 0);
	return lp_proto_decode(LP_MSG_RESULT, &m, w.data, w.len);
}

static void test_result_msg_malformed(void **state)
{
	char longest[LP_CTR_NAME_LEN], over[LP_CTR_NAME_LEN + 1];

	(void)state;
	memset(longest, 'x', sizeof(longest) - 1);
	longest[sizeof(longest) - 1] = 0;
	memset(over, 'x', sizeof(over) - 1);
	over[sizeof(over) - 1] = 0;
	assert_int_equal(result_msg_forged(LP_CTR_MOVED_MAX, "rcvd_seq_err", LP_CTR_HW, 0), 0);
	assert_int_equal(result_msg_forged(1, longest, LP_CTR_HW, 1), 0);
	assert_int_equal(result_msg_forged(LP_CTR_MOVED_MAX + 1, "rcvd_seq_err", LP_CTR_HW, 0),
			 -EPROTO);					     /* too many counters */
	assert_int_equal(result_msg_forged(1, over, LP_CTR_HW, 0), -EPROTO); /* over-long name */
	assert_int_equal(result_msg_forged(1, "rcvd_seq_err", LP_CTR_NSRC, 0), -EPROTO);
	assert_int_equal(result_msg_forged(1, "rcvd_seq_err", LP_CTR_HW, 2), -EPROTO);
	{ /* a name holding a NUL */
		static struct lp_rdma_result_msg m;
		struct lp_wbuf w;

		result_msg_fill(&m);
		m.ctr.n = 1;
		assert_int_equal(lp_proto_encode(LP_MSG_RESULT, &m, &w), 0);
		/* the one name's 63 bytes end 10 bytes before the end (source, reset, delta) */
		memcpy(w.data + w.len - 10 - (LP_CTR_NAME_LEN - 1), "a\0b", 3);
		assert_int_equal(lp_proto_decode(LP_MSG_RESULT, &m, w.data, w.len), -EPROTO);
	}
}

/* Moved counters: only non-zero ones, alarms first, the rest counted. */
static void test_counters_moved(void **state)
{
	static struct lp_counters d;
	static struct lp_ctr_moved m;

	(void)state;
	memset(&d, 0, sizeof(d));
	snprintf(d.dev, sizeof(d.dev), "rxe0");
	for (unsigned i = 0; i < LP_CTR_MOVED_MAX + 5; i++) {
		struct lp_counter *c = &d.c[d.n++];

		snprintf(c->name, sizeof(c->name), "tx_bytes_%u", i); /* traffic */
		c->value = i;					      /* the first is zero */
	}
	snprintf(d.c[d.n].name, sizeof(d.c[0].name), "rcvd_seq_err");
	d.c[d.n++].value = 12;
	lp_counters_moved(&d, &m);
	assert_true(m.valid);
	assert_int_equal(m.n, LP_CTR_MOVED_MAX);
	assert_int_equal(m.more, LP_CTR_MOVED_MAX + 5 - 1 + 1 - LP_CTR_MOVED_MAX);
	assert_string_equal(m.c[0].name, "rcvd_seq_err");
	assert_int_equal(lp_ctr_moved_alarms(&m), 1);
}

/* A frame with version 2 in its header, as a peer of the previous release sends it. */
static void send_v2_frame(int fd, uint16_t type)
{
	uint8_t hdr[LP_WIRE_HDR_LEN] = { 'L', 'P', 'W', 'K', 0, 2, 0, (uint8_t)type, 0, 0, 0, 0 };

	assert_int_equal(write(fd, hdr, sizeof(hdr)), (ssize_t)sizeof(hdr));
}

/* What either side says of a peer of the previous releases' wire version 2. */
#define V2_LINE "speaks linkperf wire version 2, this build needs 6"

/* The client meets an old server: its answer to HELLO is a version-2 frame. */
static void test_proto_old_server(void **state)
{
	struct lp_rdma_dev dev = { .info = { .name = "fake0", .gid_index = -1 } };
	struct lp_rdma_params p;
	struct lp_rdma_result r;
	int sv[2];
	struct lp_oob oob = {
		.ops = &lp_oob_tcp_ops, .ctx = &sv[0], .timeout_ms = 2000, .peer_name = "old-server"
	};
	uint8_t body[LP_WIRE_MAX_BODY];
	uint16_t type;
	size_t len;

	(void)state;
	assert_int_equal(LP_WIRE_VERSION, 6);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	lp_rdma_params_default(&p, LP_RDMA_WRITE_LAT);
	send_v2_frame(sv[1], LP_MSG_ACCEPT); /* waits in the socket until the client reads */
	assert_int_equal(lp_rdma_client_run(&dev, &oob, &p, "old-server", NULL, &r),
			 -EPROTONOSUPPORT);
	assert_int_equal(r.status, -EPROTONOSUPPORT);
	assert_string_equal(r.error, "peer old-server " V2_LINE);
	/* The HELLO it sent is a frame of this build's version. */
	assert_int_equal(lp_wire_recv(sv[1], &type, body, &len, 1000), 0);
	assert_int_equal(type, LP_MSG_HELLO);
	close(sv[0]);
	close(sv[1]);
}

/*
 * The server meets an old client: its HELLO is a version-2 frame. The session
 * ends with the reason in words (for the server's one log line), and the
 * client is answered with an ERROR frame of this build, which its own decoder
 * names with both versions.
 */
static void test_proto_old_client(void **state)
{
	struct lp_rdma_server_opts o = { .mem = LP_MEM_HOST, .mem_dev = -1 };
	int sv[2];
	struct lp_oob oob = {
		.ops = &lp_oob_tcp_ops, .ctx = &sv[0], .timeout_ms = 2000, .peer_name = "old-client"
	};
	uint8_t body[LP_WIRE_MAX_BODY];
	struct lp_fail why;
	uint16_t type;
	size_t len;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	send_v2_frame(sv[1], LP_MSG_HELLO);
	/* No device is touched before the first message is understood. */
	assert_int_equal(lp_rdma_server_session(NULL, &oob, &o, lp_fresh(&why)), -EPROTONOSUPPORT);
	assert_string_equal(why.msg, "peer old-client " V2_LINE);
	assert_int_equal(lp_wire_recv(sv[1], &type, body, &len, 1000), 0);
	assert_int_equal(type, LP_MSG_ERROR);
	close(sv[0]);
	close(sv[1]);
}

static void test_mem_parse(void **state)
{
	int kind, dev;

	(void)state;
	assert_int_equal(lp_mem_parse("host", &kind, &dev), 0);
	assert_true(kind == LP_MEM_HOST && dev == -1);
	assert_int_equal(lp_mem_parse("cuda", &kind, &dev), 0);
	assert_true(kind == LP_MEM_CUDA && dev == -1);
	assert_int_equal(lp_mem_parse("cuda:3", &kind, &dev), 0);
	assert_true(kind == LP_MEM_CUDA && dev == 3);
	assert_int_equal(lp_mem_parse("cuda:", &kind, &dev), -EINVAL);
	assert_int_equal(lp_mem_parse("cuda:x", &kind, &dev), -EINVAL);
	assert_int_equal(lp_mem_parse("cudax", &kind, &dev), -EINVAL);
	assert_int_equal(lp_mem_parse("rocm", &kind, &dev), -EINVAL);
}

/* Every row of the test table is whole, and its key is its name in -t, in enum order. */
static void test_test_names(void **state)
{
	(void)state;
	assert_int_equal(lp_choice_index(lp_rdma_test_names, "send_bw"), LP_RDMA_SEND_BW);
	assert_true(lp_rdma_test_is_lat(LP_RDMA_READ_LAT));
	assert_false(lp_rdma_test_is_lat(LP_RDMA_READ_BW));
	assert_null(lp_rdma_test_names[LP_RDMA_NTESTS]);
	for (int t = 0; t < LP_RDMA_NTESTS; t++) {
		const struct lp_rdma_test_info *row = lp_rdma_test((enum lp_rdma_test)t);

		assert_non_null(row->key);
		assert_ptr_equal(lp_rdma_test_names[t], row->key);
		assert_true(row->size >= 1 && row->iters >= 1 && row->tx_depth >= row->cq_mod);
		/* latency: one message in flight, a loop of its own; halved only for a ping-pong */
		assert_true(row->lat == (row->loop != LP_LOOP_BW));
		assert_true(!row->halved || row->loop == LP_LOOP_PINGPONG);
		assert_true(!row->lat || row->tx_depth == 1);
		/* a latency sample ends by memory (detect) or by a completion it names */
		assert_true(!row->lat || row->detect != (row->arrival != NULL));
		assert_true(row->needs_recv == (row->op == LP_OP_SEND));
		assert_true(!row->inline_auto || row->op != LP_OP_READ);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gid_pick_roce),
		cmocka_unit_test(test_gid_pick_linklocal_only),
		cmocka_unit_test(test_gid_names),
		cmocka_unit_test(test_port_rate),
		cmocka_unit_test(test_params_roundtrip),
		cmocka_unit_test(test_params_check),
		cmocka_unit_test(test_qpinfo),
		cmocka_unit_test(test_test_names),
		cmocka_unit_test(test_mem_parse),
		cmocka_unit_test(test_proto_messages),
		cmocka_unit_test(test_proto_old_server),
		cmocka_unit_test(test_proto_old_client),
		cmocka_unit_test(test_result_msg_counters),
		cmocka_unit_test(test_result_msg_malformed),
		cmocka_unit_test(test_counters_moved),
	};

	return cmocka_run_group_tests_name("rdma", tests, NULL, NULL);
}
