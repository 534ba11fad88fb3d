// SPDX-License-Identifier: MIT
/*
 * One test between a client and a server, message by message:
 *
 *   client                          server
 *   HELLO(params)           ->      validate every field
 *                           <-      ACCEPT(devinfo) | ERROR(reason)
 *   QPINFO                  ->
 *                           <-      QPINFO            (keys, QPs; rdma_cm connects here)
 *   READY                   ->      (receives are posted before the answer)
 *                           <-      READY
 *   ... timed loop ...              ... responder / receiver / bidir sender ...
 *   DONE(iterations, msgs)  ->      (msgs: messages per QP, for the verification)
 *                           <-      RESULT(status, verification, its bandwidth, msgs)
 *   HELLO ... or BYE        ->
 */
#include "rdma/internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/lp.h"
#include "common/units.h"

enum { VERIFY_NOT_RUN = 0, VERIFY_OK = 1, VERIFY_BAD = 2 };

static void devinfo_encode(const struct lp_rdma_devinfo *d, struct lp_wbuf *w)
{
	lp_wbuf_str(w, d->name);
	lp_wbuf_u32(w, (uint32_t)d->port);
	lp_wbuf_str(w, d->link_layer);
	lp_wbuf_str(w, d->transport);
	lp_wbuf_u32(w, (uint32_t)d->gid_index);
	lp_wbuf_str(w, d->gid);
	lp_wbuf_str(w, d->gid_type);
	lp_wbuf_u16(w, d->lid);
	lp_wbuf_u32(w, d->active_mtu);
	lp_wbuf_str(w, d->speed);
	lp_wbuf_u32(w, d->width);
	lp_wbuf_f64(w, d->rate_gbps);
	lp_wbuf_str(w, d->fw);
	lp_wbuf_str(w, d->netdev);
	lp_wbuf_u32(w, (uint32_t)d->numa_node);
	lp_wbuf_str(w, d->node_guid);
	lp_wbuf_u32(w, d->vendor_id);
	lp_wbuf_u32(w, d->vendor_part_id);
}

static void devinfo_decode(struct lp_rdma_devinfo *d, struct lp_rbuf *r)
{
	lp_rbuf_str(r, d->name, sizeof(d->name));
	d->port = (int)lp_rbuf_u32(r);
	lp_rbuf_str(r, d->link_layer, sizeof(d->link_layer));
	lp_rbuf_str(r, d->transport, sizeof(d->transport));
	d->gid_index = (int)lp_rbuf_u32(r);
	lp_rbuf_str(r, d->gid, sizeof(d->gid));
	lp_rbuf_str(r, d->gid_type, sizeof(d->gid_type));
	d->lid = lp_rbuf_u16(r);
	d->active_mtu = lp_rbuf_u32(r);
	lp_rbuf_str(r, d->speed, sizeof(d->speed));
	d->width = lp_rbuf_u32(r);
	d->rate_gbps = lp_rbuf_f64(r);
	lp_rbuf_str(r, d->fw, sizeof(d->fw));
	lp_rbuf_str(r, d->netdev, sizeof(d->netdev));
	d->numa_node = (int)lp_rbuf_u32(r);
	lp_rbuf_str(r, d->node_guid, sizeof(d->node_guid));
	d->vendor_id = lp_rbuf_u32(r);
	d->vendor_part_id = lp_rbuf_u32(r);
}

/* Does this side receive data in this test (and so verify it)? */
static bool side_receives(const struct lp_rdma_params *p, bool client)
{
	switch (p->test) {
	case LP_RDMA_WRITE_LAT:
	case LP_RDMA_SEND_LAT:
		return true;
	case LP_RDMA_READ_LAT:
		return client;
	case LP_RDMA_READ_BW:
		return client || p->bidir;
	default: /* write_bw, send_bw */
		return !client || p->bidir;
	}
}

/* Messages per QP, warm-up included, as DONE and RESULT carry them. */
static void msgs_encode(struct lp_wbuf *w, const struct lp_rdma_params *p, const uint64_t *msgs)
{
	for (uint32_t q = 0; q < p->num_qps; q++)
		lp_wbuf_u64(w, msgs[q]);
}

static void msgs_decode(struct lp_rbuf *r, const struct lp_rdma_params *p, uint64_t *msgs)
{
	for (uint32_t q = 0; q < p->num_qps; q++)
		msgs[q] = lp_rbuf_u64(r);
}

/*
 * Verify this side's receiving rings: what landed there is its own READs, or
 * what the peer wrote or sent (the peer's counts).
 */
static int verify_side(struct lp_rdma_conn *c, const struct lp_loop_out *out,
		       const uint64_t *peer_msgs, struct lp_rdma_verified *v, char *why, size_t len)
{
	const struct lp_rdma_params *p = c->p;
	bool read = p->test == LP_RDMA_READ_LAT || p->test == LP_RDMA_READ_BW;

	return lp_conn_verify(c, read ? out->msgs : peer_msgs, v, why, len);
}

/* Time a passive side may wait for the client to finish, generous by design. */
/* Why lp_conn_setup failed, one line: its first recorded cause, else the last error logged
 * below it (memory allocation and registration log their own advice), else the errno text. */
static const char *setup_cause(const struct lp_rdma_conn *c, int ret)
{
	return c->why[0] ? c->why : *lp_err_last() ? lp_err_last() : strerror(-ret);
}

static int passive_budget_ms(const struct lp_rdma_params *p)
{
	double per_iter_s = 20e-6 + (double)p->size / 5e6; /* 5 MB/s: slower than any real link */
	double s = p->duration_s + (double)(p->warmup + (p->duration_s > 0 ? 0 : p->iters)) *
					   per_iter_s * (p->num_qps ? p->num_qps : 1);

	s = s * 2 + p->timeout_ms / 1000.0;
	return s > 86400 ? 86400000 : (int)(s * 1000);
}

int lp_oob_recv(struct lp_oob *oob, uint16_t *type_p, uint8_t *body, size_t *len_p,
		int timeout_ms)
{
	uint64_t end = lp_now_ns() + (uint64_t)timeout_ms * 1000000ull;

	while (oob->stop) {
		int n = oob->ops->ready(oob->ctx);

		if (n)
			break; /* a message, or an error that recv reports */
		if (*oob->stop)
			return -EINTR;
		if (lp_now_ns() >= end)
			return -ETIMEDOUT;
		usleep(2000);
	}
	return oob->ops->recv(oob->ctx, type_p, body, len_p,
			      (int)LP_MAX(1, ((int64_t)end - (int64_t)lp_now_ns()) / 1000000));
}

static int expect_msg(struct lp_oob *oob, uint16_t want, uint8_t *body, size_t *len,
		      int timeout_ms, char *why, size_t why_len)
{
	uint16_t type;
	int ret = lp_oob_recv(oob, &type, body, len, timeout_ms);

	if (ret) {
		snprintf(why, why_len, "%s %s: %s", ret == -ETIMEDOUT ? "no answer from" :
						    "exchange with",
			 oob->peer_name,
			 ret == -ETIMEDOUT ? "timed out" :
			 ret == -ECONNRESET ? "connection lost (peer exited?)" :
			 ret == -EPROTO ? "malformed message" :
			 ret == -EINTR ? "interrupted" :
					  strerror(-ret));
		return ret;
	}
	if (type == LP_MSG_ERROR) {
		struct lp_rbuf r;
		char text[LP_ERR_LAST_LEN];
		uint32_t code;

		lp_rbuf_init(&r, body, *len);
		code = lp_rbuf_u32(&r);
		lp_rbuf_str(&r, text, sizeof(text));
		snprintf(why, why_len, "peer %s: %s", oob->peer_name, r.err ? "error" : text);
		/* -EINTR means this process got a signal; the peer's cancelled the test. */
		return code == EINTR ? -ECANCELED : code ? -(int)code : -ECONNABORTED;
	}
	if (type != want) {
		snprintf(why, why_len, "unexpected message %u from %s (wanted %u)", type,
			 oob->peer_name, want);
		return -EPROTO;
	}
	return 0;
}

static int send_simple(struct lp_oob *oob, uint16_t type)
{
	struct lp_wbuf w;

	lp_wbuf_init(&w);
	return oob->ops->send(oob->ctx, type, &w, oob->timeout_ms);
}

/* After this side's loop, keep receives flowing until the peer's next message arrives. */
static int drain_recvs(struct lp_rdma_conn *c, int budget_ms)
{
	uint64_t end = lp_now_ns() + (uint64_t)budget_ms * 1000000ull;
	struct ibv_wc wc[16];

	while (lp_now_ns() < end) {
		int n = c->oob->ops->ready(c->oob->ctx);

		if (n)
			return n < 0 ? n : 0;
		if (c->stop && *c->stop)
			return -EINTR;
		n = ibv_poll_cq(c->rcq, 16, wc);
		for (int k = 0; k < n; k++)
			if (wc[k].status != IBV_WC_SUCCESS ||
			    lp_conn_post_recv(c, (uint32_t)wc[k].wr_id))
				return -EIO;
	}
	return -ETIMEDOUT;
}

static void fill_bw(struct lp_rdma_bw *b, double rate_gbps)
{
	b->gbytes_s = lp_gbytes_per_s(b->bytes, b->ns);
	b->gbits_s = lp_gbits_per_s(b->bytes, b->ns);
	b->mmsg_s = lp_mrate(b->msgs, b->ns);
	b->pct_link = lp_percent_of(b->gbits_s, rate_gbps);
}

static void scale_summary(struct lp_summary *s, double k)
{
	s->min *= k;
	s->max *= k;
	s->mean *= k;
	s->stdev *= k;
	s->p50 *= k;
	s->p90 *= k;
	s->p99 *= k;
	s->p999 *= k;
	s->p9999 *= k;
}

/* write_lat by polling: the server polls GPU memory with a kernel exactly when its buffer is there. */
static bool server_gpu_polls(const struct lp_rdma_params *p, const struct lp_rdma_conn *c)
{
	return p->test == LP_RDMA_WRITE_LAT && c->detect != LP_DETECT_IMM && !strncmp(c->remote.mem, "cuda", 4);
}

static void lat_method_name(const struct lp_rdma_params *p, const struct lp_rdma_conn *c,
			    char *buf, size_t len)
{
	if (p->test == LP_RDMA_READ_LAT)
		snprintf(buf, len, "read_completion");
	else if (p->test == LP_RDMA_SEND_LAT)
		snprintf(buf, len, "recv_completion");
	else if (c->detect == LP_DETECT_IMM)
		snprintf(buf, len, "write_imm");
	else
		snprintf(buf, len, "client %s, server %s", lp_detect_name(c->detect),
			 server_gpu_polls(p, c) ? "gpu_poll" : "cpu_poll");
}

int lp_rdma_client_run(struct lp_rdma_dev *dev, struct lp_oob *oob,
		       const struct lp_rdma_params *p, const char *server_host,
		       struct lp_rdma_result *r)
{
	struct lp_rdma_params sent = *p;
	struct lp_rdma_conn c;
	struct lp_loop_out out = { 0 };
	uint8_t body[LP_WIRE_MAX_BODY];
	struct lp_wbuf w;
	struct lp_rbuf rb;
	size_t len;
	int ret, verify_remote = VERIFY_NOT_RUN, verify_local = VERIFY_NOT_RUN;
	uint64_t peer_msgs[LP_RDMA_MAX_QPS] = { 0 };
	bool conn_up = false, told = false;

	memset(r, 0, sizeof(*r));
	r->test = p->test;
	r->size = p->size;
	r->warmup = p->warmup;
	r->local_dev = dev->info;
	r->rate_gbps = dev->info.rate_gbps;
	r->lat_halved = p->test == LP_RDMA_WRITE_LAT || p->test == LP_RDMA_SEND_LAT;
	if (lp_rdma_params_check(p, r->error, sizeof(r->error))) {
		r->status = -EINVAL;
		return r->status;
	}
	sent.gid_type = dev->is_roce && dev->info.gid_index >= 0 ?
				(int)dev->gids[dev->info.gid_index].type :
				-1;
	lp_wbuf_init(&w);
	lp_rdma_params_encode(&sent, &w);
	ret = oob->ops->send(oob->ctx, LP_MSG_HELLO, &w, oob->timeout_ms);
	if (ret) {
		snprintf(r->error, sizeof(r->error), "cannot send the test to %s: %s",
			 oob->peer_name, strerror(-ret));
		goto out;
	}
	ret = expect_msg(oob, LP_MSG_ACCEPT, body, &len, oob->timeout_ms, r->error,
			 sizeof(r->error));
	if (ret)
		goto out;
	lp_rbuf_init(&rb, body, len);
	devinfo_decode(&r->remote_dev, &rb);
	ret = lp_rbuf_done(&rb);
	if (ret) {
		snprintf(r->error, sizeof(r->error), "malformed ACCEPT from %s", oob->peer_name);
		goto out;
	}
	lp_err_clear();
	ret = lp_conn_setup(&c, dev, &sent, p->mem, p->mem_dev, true, oob, server_host, NULL);
	if (ret) {
		/* The cause as first logged (the server's own reason when it failed), else errno. */
		snprintf(r->error, sizeof(r->error), "connection set-up with %s failed: %s",
			 oob->peer_name, setup_cause(&c, ret));
		goto out;
	}
	conn_up = true;
	r->mtu = c.mtu;
	r->inline_size = c.max_inline;
	snprintf(r->local_mem, sizeof(r->local_mem), "%s", c.local.mem);
	snprintf(r->remote_mem, sizeof(r->remote_mem), "%s", c.remote.mem);
	r->scatter_to_cqe = c.scatter_to_cqe;
	r->relaxed_ordering = c.mr_access & IBV_ACCESS_RELAXED_ORDERING;
	r->gpu_rdma_order = c.mem.rdma_order;
	r->gpu_notify_us = c.notify_us;
	if (lp_rdma_test_is_lat(p->test))
		lat_method_name(p, &c, r->lat_method, sizeof(r->lat_method));
	r->gpu_poll_sides = (unsigned)(c.detect == LP_DETECT_GPU) + (unsigned)server_gpu_polls(p, &c);
	ret = send_simple(oob, LP_MSG_READY);
	if (!ret)
		ret = expect_msg(oob, LP_MSG_READY, body, &len, oob->timeout_ms, r->error,
				 sizeof(r->error));
	if (ret)
		goto out;
	ret = lp_stats_init(&out.rtt, lp_rdma_test_is_lat(p->test) ? p->max_samples : 0);
	if (ret)
		goto out;
	ret = lp_loop_run(&c, true, &out, r->error, sizeof(r->error));
	if (ret == -ECONNABORTED) {
		/* The server ended the test: its ERROR says why (or the close says it is gone). */
		ret = expect_msg(oob, LP_MSG_RESULT, body, &len, 1000, r->error, sizeof(r->error));
		ret = ret ? ret : -EPROTO;
		goto free_stats;
	}
	if (ret) {
		/* Tell the server, which may be waiting in its loop; then stop. */
		lp_rdma_send_error(oob, ret, ret == -EINTR ? "client interrupted" : r->error);
		told = true;
		goto free_stats;
	}
	lp_wbuf_init(&w);
	lp_wbuf_u64(&w, out.iters);
	msgs_encode(&w, p, out.msgs);
	ret = oob->ops->send(oob->ctx, LP_MSG_DONE, &w, oob->timeout_ms);
	if (!ret && p->test == LP_RDMA_SEND_BW && p->bidir)
		ret = drain_recvs(&c, passive_budget_ms(p));
	if (!ret)
		ret = expect_msg(oob, LP_MSG_RESULT, body, &len, passive_budget_ms(p), r->error,
				 sizeof(r->error));
	if (ret)
		goto free_stats;
	lp_rbuf_init(&rb, body, len);
	{
		int32_t st = (int32_t)lp_rbuf_u32(&rb);
		char text[160];

		lp_rbuf_str(&rb, text, sizeof(text));
		verify_remote = lp_rbuf_u8(&rb);
		r->remote.bytes = lp_rbuf_f64(&rb);
		r->remote.msgs = lp_rbuf_f64(&rb);
		r->remote.ns = lp_rbuf_f64(&rb);
		(void)lp_rbuf_u64(&rb);
		msgs_decode(&rb, p, peer_msgs);
		r->verified.messages = lp_rbuf_u64(&rb);
		r->verified.bytes = lp_rbuf_u64(&rb);
		r->verified.landed = lp_rbuf_u64(&rb);
		r->verified.ring = lp_rbuf_u64(&rb);
		if (lp_rbuf_done(&rb)) {
			ret = -EPROTO;
			snprintf(r->error, sizeof(r->error), "malformed RESULT from %s",
				 oob->peer_name);
			goto free_stats;
		}
		if (st || verify_remote == VERIFY_BAD) {
			ret = st ? st : -EILSEQ;
			snprintf(r->error, sizeof(r->error), "server: %s", text);
			goto free_stats;
		}
	}
	if (p->verify && side_receives(p, true)) {
		ret = verify_side(&c, &out, peer_msgs, &r->verified, r->error, sizeof(r->error));
		verify_local = ret ? VERIFY_BAD : VERIFY_OK;
		if (ret)
			goto free_stats;
	}
	r->verified.ok = p->verify && verify_local != VERIFY_BAD && verify_remote != VERIFY_BAD &&
			 (verify_local == VERIFY_OK || verify_remote == VERIFY_OK);
	snprintf(r->verified.where, sizeof(r->verified.where), "%s",
		 verify_local && verify_remote ? "client+server" : verify_local ? "client" :
		 verify_remote			? "server" : "");
	r->iters = out.iters;
	if (lp_rdma_test_is_lat(p->test)) {
		lp_stats_summarize(&out.rtt, &r->rtt_us);
		scale_summary(&r->rtt_us, 1e-3);
		r->lat_us = r->rtt_us;
		if (r->lat_halved)
			scale_summary(&r->lat_us, 0.5);
	} else {
		r->local = out.bw;
		fill_bw(&r->local, r->rate_gbps);
		if (p->bidir) {
			fill_bw(&r->remote, r->rate_gbps);
			r->sum_gbytes_s = r->local.gbytes_s + r->remote.gbytes_s;
			r->sum_gbits_s = r->local.gbits_s + r->remote.gbits_s;
		}
	}
free_stats:
	lp_stats_free(&out.rtt);
out:
	/* Interrupted outside the loop (set-up, waiting for an answer): the server is told too. */
	if (ret == -EINTR && !told)
		lp_rdma_send_error(oob, ret, "client interrupted");
	if (conn_up)
		lp_conn_teardown(&c);
	r->status = ret;
	return ret;
}

int lp_rdma_client_bye(struct lp_oob *oob)
{
	return send_simple(oob, LP_MSG_BYE);
}

/* Serve one HELLO: returns 0 when the test ran (well or not), <0 when the session broke. */
static int serve_test(struct lp_rdma_dev *dev, struct lp_oob *oob,
		      const struct lp_rdma_server_opts *o, const uint8_t *body, size_t len)
{
	struct lp_rdma_params p;
	struct lp_rdma_conn c;
	struct lp_loop_out out = { 0 };
	struct lp_rbuf rb;
	struct lp_wbuf w;
	uint8_t msg[LP_WIRE_MAX_BODY];
	char why[160] = "";
	size_t mlen;
	int ret, verify = VERIFY_NOT_RUN;
	uint64_t peer_msgs[LP_RDMA_MAX_QPS] = { 0 };
	struct lp_rdma_verified checked = { 0 };

	lp_rbuf_init(&rb, body, len);
	ret = lp_rdma_params_decode(&p, &rb);
	if (ret) {
		lp_rdma_send_error(oob, -EPROTO, "malformed HELLO");
		lp_warn("client %s: malformed test parameters; dropping it", oob->peer_name);
		return -EPROTO;
	}
	if (lp_rdma_params_check(&p, why, sizeof(why))) {
		lp_warn("client %s: rejected test: %s", oob->peer_name, why);
		lp_rdma_send_error(oob, -EINVAL, why);
		return 0;
	}
	if (dev->is_roce && p.gid_type >= 0 && (int)dev->gids[dev->info.gid_index].type != p.gid_type &&
	    lp_rdma_dev_select_gid(dev, oob->peer_family, p.gid_type)) {
		snprintf(why, sizeof(why), "server %s has no %s GID", dev->info.name,
			 lp_rdma_gid_type_name(p.gid_type));
		lp_rdma_send_error(oob, -EADDRNOTAVAIL, why);
		return 0;
	}
	lp_wbuf_init(&w);
	devinfo_encode(&dev->info, &w);
	ret = oob->ops->send(oob->ctx, LP_MSG_ACCEPT, &w, oob->timeout_ms);
	if (ret)
		return ret;
	lp_err_clear();
	ret = lp_conn_setup(&c, dev, &p, o->mem, o->mem_dev, false, oob, NULL, o->bind_addr);
	if (ret) {
		/* The cause, once: in this server's log and to the client, which reports it. */
		lp_warn("client %s: connection set-up failed: %s", oob->peer_name,
			setup_cause(&c, ret));
		if (ret != -ECONNABORTED)
			lp_rdma_send_error(oob, ret, setup_cause(&c, ret));
		return ret == -ECONNABORTED ? 0 : ret;
	}
	ret = expect_msg(oob, LP_MSG_READY, msg, &mlen, oob->timeout_ms, why, sizeof(why));
	if (!ret)
		ret = send_simple(oob, LP_MSG_READY);
	if (!ret)
		ret = lp_stats_init(&out.rtt, 0);
	if (ret)
		goto teardown;
	ret = lp_loop_run(&c, false, &out, why, sizeof(why));
	/* The client ended the test (its ERROR is waiting): that, not the local symptom, is the cause. */
	if (ret < 0 && ret != -EINTR && oob->ops->ready(oob->ctx) > 0)
		expect_msg(oob, LP_MSG_DONE, msg, &mlen, 1000, why, sizeof(why));
	if (ret < 0) {
		/* The client may have sent ERROR (its loop failed): then it is the cause. */
		lp_warn("client %s: test %s size %llu failed: %s", oob->peer_name,
			lp_rdma_test_names[p.test], (unsigned long long)p.size, why);
		goto free_stats;
	}
	if (p.test == LP_RDMA_SEND_BW && p.bidir && !out.peer_done)
		drain_recvs(&c, passive_budget_ms(&p));
	ret = expect_msg(oob, LP_MSG_DONE, msg, &mlen, passive_budget_ms(&p), why, sizeof(why));
	if (!ret) {
		lp_rbuf_init(&rb, msg, mlen);
		(void)lp_rbuf_u64(&rb);
		msgs_decode(&rb, &p, peer_msgs);
		if (lp_rbuf_done(&rb)) {
			ret = -EPROTO;
			snprintf(why, sizeof(why), "malformed DONE");
		}
	}
	if (ret) {
		lp_warn("client %s: %s", oob->peer_name, why);
		goto free_stats;
	}
	if (p.verify && side_receives(&p, false))
		verify = verify_side(&c, &out, peer_msgs, &checked, why, sizeof(why)) ? VERIFY_BAD :
											 VERIFY_OK;
	lp_wbuf_init(&w);
	lp_wbuf_u32(&w, 0);
	lp_wbuf_str(&w, verify == VERIFY_BAD ? why : "");
	lp_wbuf_u8(&w, (uint8_t)verify);
	lp_wbuf_f64(&w, out.bw.bytes);
	lp_wbuf_f64(&w, out.bw.msgs);
	lp_wbuf_f64(&w, out.bw.ns);
	lp_wbuf_u64(&w, out.iters);
	msgs_encode(&w, &p, out.msgs);
	lp_wbuf_u64(&w, checked.messages);
	lp_wbuf_u64(&w, checked.bytes);
	lp_wbuf_u64(&w, checked.landed);
	lp_wbuf_u64(&w, checked.ring);
	ret = oob->ops->send(oob->ctx, LP_MSG_RESULT, &w, oob->timeout_ms);
	if (verify == VERIFY_BAD)
		lp_warn("client %s: %s", oob->peer_name, why);
free_stats:
	lp_stats_free(&out.rtt);
teardown:
	if (ret == -EINTR) /* this server was interrupted: the client reports it */
		lp_rdma_send_error(oob, ret, "server interrupted");
	lp_conn_teardown(&c);
	/* A failed test leaves the session in an unknown state: end it. */
	return ret;
}

int lp_rdma_server_session(struct lp_rdma_dev *dev, struct lp_oob *oob,
			   const struct lp_rdma_server_opts *o)
{
	uint8_t body[LP_WIRE_MAX_BODY];

	for (int n = 0;; n++) {
		uint16_t type;
		size_t len;
		int ret;

		/*
		 * A new client speaks at once (a silent one is dropped after the
		 * timeout); between tests it only formats output: a minute is plenty.
		 */
		ret = (o->stop && *o->stop) ? -EINTR :
					      lp_oob_recv(oob, &type, body, &len,
							  n ? LP_MAX(oob->timeout_ms, 60000) :
							      oob->timeout_ms);
		if (ret == -EINTR)
			lp_rdma_send_error(oob, ret, "server interrupted");
		if (ret)
			return ret;
		if (type == LP_MSG_BYE)
			return 0;
		if (type != LP_MSG_HELLO) {
			lp_rdma_send_error(oob, -EPROTO, "expected HELLO or BYE");
			return -EPROTO;
		}
		ret = serve_test(dev, oob, o, body, len);
		if (ret)
			return ret;
	}
}
