// SPDX-License-Identifier: MIT
/*
 * One test between a client and a server, message by message (the messages
 * and their order: rdma/proto.h). Every failure records its cause once in the
 * test's struct lp_fail; the client returns it in struct lp_rdma_result, the
 * server logs it once per test (serve_test).
 */
#include "rdma/internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/lp.h"
#include "common/units.h"

/*
 * Does this side receive data in this test (and so verify it)? Both sides in a
 * ping-pong or both ways at once; else the client reads, or the server is
 * written or sent to.
 */
static bool side_receives(const struct lp_rdma_params *p, bool client)
{
	const struct lp_rdma_test_info *t = lp_rdma_test(p->test);

	return t->loop == LP_LOOP_PINGPONG || p->bidir || (t->op == LP_OP_READ) == client;
}

/*
 * Verify this side's receiving rings: what landed there is its own READs, or
 * what the peer wrote or sent (the peer's counts).
 */
static int verify_side(struct lp_rdma_conn *c, const struct lp_loop_out *out,
		       const uint64_t *peer_msgs, struct lp_rdma_verified *v)
{
	bool read = lp_rdma_test(c->p->test)->op == LP_OP_READ;

	return lp_conn_verify(c, read ? out->msgs : peer_msgs, v);
}

/* Time a passive side may wait for the client to finish, generous by design. */
static int passive_budget_ms(const struct lp_rdma_params *p)
{
	double per_iter_s = 20e-6 + (double)p->size / 5e6; /* 5 MB/s: slower than any real link */
	double s = p->duration_s + (double)(p->warmup + (p->duration_s > 0 ? 0 : p->iters)) *
					   per_iter_s * (p->num_qps ? p->num_qps : 1);

	s = s * 2 + p->timeout_ms / 1000.0;
	return s > 86400 ? 86400000 : (int)(s * 1000);
}

/* After this side's loop, keep receives flowing until the peer's next message arrives. */
static int drain_recvs(struct lp_rdma_conn *c, int budget_ms)
{
	uint64_t end = lp_now_ns() + (uint64_t)lp_oob_wait_ms(c->oob, budget_ms) * 1000000ull;
	struct ibv_wc wc[16];

	while (lp_now_ns() < end) {
		int n = c->oob->ops->ready(c->oob->ctx);

		if (n)
			return n < 0 ? lp_fail_set(c->fail, n, "exchange with %s: %s",
						   c->oob->peer_name, strerror(-n))
				     : 0;
		if (c->stop && *c->stop)
			return lp_fail_set(c->fail, -EINTR, "interrupted mid-test");
		n = ibv_poll_cq(c->rcq, 16, wc);
		for (int k = 0; k < n; k++)
			if (wc[k].status != IBV_WC_SUCCESS ||
			    lp_conn_post_recv(c, (uint32_t)wc[k].wr_id))
				return lp_fail_set(c->fail, -EIO,
						   "receiving the last messages of %s failed",
						   c->oob->peer_name);
	}
	return lp_fail_set(c->fail, -ETIMEDOUT, "no answer from %s: timed out", c->oob->peer_name);
}

/*
 * Counters around a test, outside its timed loop: ctr_before() snapshots this
 * side's port (NULL when its counters cannot be read: the test runs without);
 * ctr_after() snapshots again and keeps what moved, then frees the first.
 */
static struct lp_counters *ctr_before(const struct lp_rdma_dev *dev)
{
	struct lp_counters *s = malloc(sizeof(*s));

	if (s &&
	    lp_counters_read(lp_counters_root(), dev->info.name, (unsigned)dev->info.port, s)) {
		free(s);
		s = NULL;
	}
	return s;
}

static void ctr_after(const struct lp_rdma_dev *dev, struct lp_counters *before,
		      struct lp_ctr_moved *m)
{
	struct lp_counters *after = before ? ctr_before(dev) : NULL;
	struct lp_counters *d = after ? malloc(sizeof(*d)) : NULL;

	memset(m, 0, sizeof(*m));
	if (d) {
		lp_counters_delta(before, after, d);
		lp_counters_moved(d, m);
	}
	free(d);
	free(after);
	free(before);
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

static void lat_method_name(const struct lp_rdma_params *p, const struct lp_rdma_conn *c, char *buf,
			    size_t len)
{
	const char *arrival = lp_rdma_test(p->test)->arrival;

	if (arrival)
		snprintf(buf, len, "%s", arrival);
	else if (c->detect == LP_DETECT_IMM)
		snprintf(buf, len, "write_imm");
	else
		snprintf(buf, len, "client %s, server %s", lp_detect_name(c->detect),
			 lp_detect_name(c->remote.detect));
}

/* ---- client ---------------------------------------------------------------------------------- */

/* One test on the client side. */
struct client_test {
	struct lp_rdma_dev *dev;
	struct lp_oob *oob;
	const struct lp_rdma_params *p;
	const char *server_host;
	struct lp_rdma_result *r;
	struct lp_rdma_conn c;
	bool conn_up;
	bool told; /* the server was sent an ERROR */
	struct lp_loop_out out;
	struct lp_rdma_result_msg res;
	struct lp_counters *ctr0; /* this side's port counters before the test (NULL: unread) */
	struct lp_fail fail;
};

/* HELLO with the parameters (and this side's GID type), ACCEPT with the server's device. */
static int client_hello(struct client_test *t)
{
	struct lp_rdma_params sent = *t->p;
	struct lp_rdma_dev *dev = t->dev;
	int ret;

	sent.gid_type = dev->is_roce && dev->info.gid_index >= 0
				? (int)dev->gids[dev->info.gid_index].type
				: -1;
	ret = lp_proto_send(t->oob, LP_MSG_HELLO, &sent);
	if (ret)
		return lp_fail_set(&t->fail, ret, "cannot send the test to %s: %s",
				   t->oob->peer_name, strerror(-ret));
	return lp_proto_expect(t->oob, LP_MSG_ACCEPT, &t->r->remote_dev, t->oob->timeout_ms,
			       &t->fail);
}

/* Connection set-up, what it chose (into the result), and READY both ways. */
static int client_connect(struct client_test *t)
{
	const struct lp_rdma_params *p = t->p;
	struct lp_rdma_result *r = t->r;
	struct lp_rdma_conn *c = &t->c;
	struct lp_conn_cfg cfg = { .dev = t->dev,
				   .p = p,
				   .mem = p->mem,
				   .mem_dev = p->mem_dev,
				   .is_client = true,
				   .oob = t->oob,
				   .server_host = t->server_host,
				   .fail = &t->fail };
	int ret;

	lp_err_clear();
	ret = lp_conn_setup(c, &cfg);
	if (ret) {
		/* The cause as first known (the server's own words when it failed there). */
		if (lp_fail_ok(&t->fail))
			lp_fail_set(&t->fail, ret, "%s",
				    *lp_err_last() ? lp_err_last() : strerror(-ret));
		lp_fail_wrap(&t->fail, "connection set-up with %s failed", t->oob->peer_name);
		return ret;
	}
	t->conn_up = true;
	r->mtu = c->mtu;
	r->inline_size = c->max_inline;
	snprintf(r->local_mem, sizeof(r->local_mem), "%s", c->local.mem);
	snprintf(r->remote_mem, sizeof(r->remote_mem), "%s", c->remote.mem);
	r->scatter_to_cqe = c->scatter_to_cqe;
	r->relaxed_ordering = c->mr_access & IBV_ACCESS_RELAXED_ORDERING;
	r->gpu_rdma_order = lp_mem_rdma_order(&c->mem);
	r->gpu_notify_us = c->notify_us;
	if (lp_rdma_test(p->test)->lat)
		lat_method_name(p, c, r->lat_method, sizeof(r->lat_method));
	if (lp_rdma_test(p->test)->detect)
		r->gpu_poll_sides = (unsigned)(c->detect == LP_DETECT_GPU) +
				    (unsigned)(c->remote.detect == LP_DETECT_GPU);
	t->ctr0 = ctr_before(t->dev);
	ret = lp_proto_send(t->oob, LP_MSG_READY, NULL);
	if (ret)
		return lp_fail_set(&t->fail, ret, "exchange with %s: %s", t->oob->peer_name,
				   strerror(-ret));
	return lp_proto_expect(t->oob, LP_MSG_READY, NULL, t->oob->timeout_ms, &t->fail);
}

/* The timed loop, DONE, and the server's RESULT (its failure, if it had one, is the cause). */
static int client_measure(struct client_test *t)
{
	const struct lp_rdma_params *p = t->p;
	struct lp_proto_done done = { .nqps = p->num_qps };
	int ret = lp_loop_run(&t->c, true, &t->out);

	if (ret == -ECONNABORTED) {
		/* The server ended the test: its ERROR says why (or the close says it is gone). */
		t->fail = (struct lp_fail){ 0 };
		ret = lp_proto_expect(t->oob, LP_MSG_RESULT, &t->res, 1000, &t->fail);
		return ret ? ret
			   : lp_fail_set(&t->fail, -EPROTO, "%s ended the test", t->oob->peer_name);
	}
	if (ret) {
		/* Tell the server, which may be waiting in its loop; then stop. */
		lp_proto_send_error(t->oob, ret, "%s",
				    ret == -EINTR ? "client interrupted" : t->fail.msg);
		t->told = true;
		return ret;
	}
	done.iters = t->out.iters;
	memcpy(done.msgs, t->out.msgs, sizeof(done.msgs));
	ret = lp_proto_send(t->oob, LP_MSG_DONE, &done);
	if (ret)
		return lp_fail_set(&t->fail, ret, "exchange with %s: %s", t->oob->peer_name,
				   strerror(-ret));
	if (lp_rdma_test(p->test)->needs_recv && p->bidir) {
		ret = drain_recvs(&t->c, passive_budget_ms(p));
		if (ret)
			return ret;
	}
	ret = lp_proto_expect(t->oob, LP_MSG_RESULT, &t->res, passive_budget_ms(p), &t->fail);
	if (ret)
		return ret;
	if (t->res.nqps != p->num_qps)
		return lp_fail_set(&t->fail, -EPROTO, "malformed RESULT from %s (%u QPs, not %u)",
				   t->oob->peer_name, t->res.nqps, p->num_qps);
	t->r->ctr_remote = t->res.ctr;
	if (t->res.status || t->res.verify == LP_VERIFY_BAD)
		return lp_fail_set(&t->fail, t->res.status ? t->res.status : -EILSEQ, "server: %s",
				   t->res.text);
	return 0;
}

/* This side's verification, then both sides' together. */
static int client_verify(struct client_test *t)
{
	const struct lp_rdma_params *p = t->p;
	struct lp_rdma_verified *v = &t->r->verified;
	int remote = (int)t->res.verify, local = LP_VERIFY_NOT_RUN;

	*v = t->res.checked;
	if (p->verify && side_receives(p, true)) {
		if (verify_side(&t->c, &t->out, t->res.sent, v))
			return t->fail.err;
		local = LP_VERIFY_OK;
	}
	v->ok = p->verify && (local == LP_VERIFY_OK || remote == LP_VERIFY_OK);
	snprintf(v->where, sizeof(v->where), "%s",
		 local && remote ? "client+server"
		 : local	 ? "client"
		 : remote	 ? "server"
				 : "");
	return 0;
}

/* The figures: latency summaries or each direction's bandwidth. */
static void client_figures(struct client_test *t)
{
	const struct lp_rdma_params *p = t->p;
	struct lp_rdma_result *r = t->r;

	r->iters = t->out.iters;
	r->ival = t->out.ival.v; /* the series moves into the result */
	r->nival = t->out.ival.n;
	t->out.ival.v = NULL;
	lp_ival_summarize(r->ival, r->nival, p->interval_s, &r->ival_sum);
	r->ival_sum_remote = t->res.ival;
	if (lp_rdma_test(p->test)->lat) {
		lp_stats_summarize(&t->out.rtt, &r->rtt_us);
		scale_summary(&r->rtt_us, 1e-3);
		r->lat_us = r->rtt_us;
		if (r->lat_halved)
			scale_summary(&r->lat_us, 0.5);
		return;
	}
	r->local = t->out.bw;
	fill_bw(&r->local, r->rate_gbps);
	if (p->bidir) {
		r->remote.bytes = t->res.bytes;
		r->remote.msgs = t->res.msgs;
		r->remote.ns = t->res.ns;
		fill_bw(&r->remote, r->rate_gbps);
		r->sum_gbytes_s = r->local.gbytes_s + r->remote.gbytes_s;
		r->sum_gbits_s = r->local.gbits_s + r->remote.gbits_s;
	}
}

static void result_init(struct lp_rdma_result *r, const struct lp_rdma_dev *dev,
			const struct lp_rdma_params *p)
{
	memset(r, 0, sizeof(*r));
	r->test = p->test;
	r->size = p->size;
	r->warmup = p->warmup;
	r->local_dev = dev->info;
	r->rate_gbps = dev->info.rate_gbps;
	/* a test out of range is refused by the check that follows: no row to read */
	r->lat_halved = (unsigned)p->test < LP_RDMA_NTESTS && lp_rdma_test(p->test)->halved;
	r->gpu_notify_us = NAN;
}

int lp_rdma_client_run(struct lp_rdma_dev *dev, struct lp_oob *oob, const struct lp_rdma_params *p,
		       const char *server_host, const struct lp_ival_sink *sink,
		       struct lp_rdma_result *r)
{
	struct client_test *t = calloc(1, sizeof(*t)); /* two QPINFOs of 64 QPs: not on the stack */
	int ret;

	result_init(r, dev, p);
	if (!t)
		return r->status = -ENOMEM;
	*t = (struct client_test){
		.dev = dev, .oob = oob, .p = p, .server_host = server_host, .r = r
	};
	ret = lp_rdma_params_check(p, &t->fail);
	if (!ret)
		ret = client_hello(t);
	if (!ret)
		ret = client_connect(t);
	if (!ret)
		ret = lp_stats_init(&t->out.rtt, lp_rdma_test(p->test)->lat ? p->max_samples : 0);
	if (!ret) /* latency intervals in the reported unit: us, one-way where halved */
		ret = lp_ival_init(&t->out.ival, p->interval_s,
				   lp_rdma_test(p->test)->lat ? 0 : (double)p->size,
				   r->lat_halved ? 0.5e-3 : 1e-3,
				   LP_MIN(p->max_samples, LP_IVAL_KEEP), sink);
	if (!ret)
		ret = client_measure(t);
	if (!ret)
		ret = client_verify(t);
	if (!ret)
		client_figures(t);
	if (t->ctr0) /* after the server's RESULT: both sides' traffic is over */
		ctr_after(dev, t->ctr0, &r->ctr_local);
	/* Interrupted outside the loop (set-up, waiting for an answer): the server is told too. */
	if (ret == -EINTR && !t->told)
		lp_proto_send_error(oob, ret, "client interrupted");
	lp_stats_free(&t->out.rtt);
	lp_ival_free(&t->out.ival);
	if (t->conn_up)
		lp_conn_teardown(&t->c);
	r->status = ret;
	if (ret)
		snprintf(r->error, sizeof(r->error), "%s",
			 lp_fail_ok(&t->fail) ? strerror(-ret) : lp_fail_msg(&t->fail));
	free(t);
	return ret;
}

int lp_rdma_client_bye(struct lp_oob *oob)
{
	return lp_proto_send(oob, LP_MSG_BYE, NULL);
}

/* ---- server ---------------------------------------------------------------------------------- */

/*
 * What a client may ask of this server (o's limits; 0 = none, as between
 * lp-sweep's ranks), and rdma_cm only on the operator's port. 0, or -EPERM
 * with the reason in f.
 */
static int check_limits(const struct lp_rdma_params *p, const struct lp_rdma_server_opts *o,
			struct lp_fail *f)
{
	uint64_t mem = lp_conn_mem_bytes(p);
	char a[32], b[32];

	lp_fmt_size(a, sizeof(a), mem);
	lp_fmt_size(b, sizeof(b), o->max_mem);
	if (o->max_mem && mem > o->max_mem)
		return lp_fail_set(
			f, -EPERM,
			"the test registers %s on each side, over this server's limit of %s "
			"(--max-mem)",
			a, b);
	if (o->max_duration_s > 0 && p->duration_s > o->max_duration_s)
		return lp_fail_set(
			f, -EPERM,
			"a %g s test is longer than this server allows (--max-duration %g)",
			p->duration_s, o->max_duration_s);
	if (o->max_timeout_ms && p->timeout_ms > o->max_timeout_ms)
		return lp_fail_set(
			f, -EPERM,
			"a timeout of %g s is over this server's limit (--max-timeout %g)",
			p->timeout_ms / 1000.0, o->max_timeout_ms / 1000.0);
	if (p->use_cm && o->cm_port && p->cm_port != o->cm_port)
		return lp_fail_set(
			f, -EPERM,
			"this server takes rdma_cm connections on port %u only, not %u (--cm-port %u "
			"on the client)",
			o->cm_port, p->cm_port, o->cm_port);
	return 0;
}

/*
 * The GID of the client's type, chosen on this session's copy of the device
 * (sdev): the operator's choice, and the next client's, stay as they were. A
 * GID the operator fixed (-x) is never changed: a client of another type is
 * refused with the reason.
 */
static int session_gid(struct lp_rdma_dev *sdev, const struct lp_oob *oob,
		       const struct lp_rdma_server_opts *o, const struct lp_rdma_params *p,
		       struct lp_fail *f)
{
	enum lp_gid_type have;

	if (!sdev->is_roce || p->gid_type < 0 || sdev->info.gid_index < 0)
		return 0;
	have = sdev->gids[sdev->info.gid_index].type;
	if ((int)have == p->gid_type)
		return 0;
	if (o->gid_fixed)
		return lp_fail_set(
			f, -EADDRNOTAVAIL,
			"server %s uses GID index %d (%s), set by its operator; this client's GID is "
			"%s: choose a %s GID on the client (-x)",
			sdev->info.name, sdev->info.gid_index, lp_rdma_gid_type_name(have),
			lp_rdma_gid_type_name(p->gid_type), lp_rdma_gid_type_name(have));
	if (lp_rdma_dev_select_gid(sdev, oob->peer_family, p->gid_type, NULL))
		return lp_fail_set(f, -EADDRNOTAVAIL, "server %s has no %s GID", sdev->info.name,
				   lp_rdma_gid_type_name(p->gid_type));
	return 0;
}

/*
 * HELLO: decoded, checked, within this server's limits, the session's GID;
 * ACCEPT. A refused test is answered with its reason and ends the session
 * (the cause in f).
 */
static int serve_hello(struct lp_rdma_dev *sdev, struct lp_oob *oob,
		       const struct lp_rdma_server_opts *o, const uint8_t *body, size_t len,
		       struct lp_rdma_params *p, struct lp_fail *f)
{
	struct lp_fail refused = { 0 }; /* the client hears this, and f records it */
	int ret;

	if (lp_proto_decode(LP_MSG_HELLO, p, body, len)) {
		lp_proto_send_error(oob, -EPROTO, "malformed HELLO");
		return lp_fail_set(f, -EPROTO, "malformed test parameters (dropped)");
	}
	ret = lp_rdma_params_check(p, &refused);
	if (!ret)
		ret = session_gid(sdev, oob, o, p, &refused);
	if (!ret)
		ret = check_limits(p, o, &refused);
	if (ret) {
		lp_proto_send_error(oob, ret, "%s", lp_fail_msg(&refused));
		return lp_fail_set(f, ret, "refused: %s", lp_fail_msg(&refused));
	}
	ret = lp_proto_send(oob, LP_MSG_ACCEPT, &sdev->info);
	return ret ? lp_fail_set(f, ret, "cannot send ACCEPT: %s", strerror(-ret)) : 0;
}

/*
 * How long a test's run may hold the server (0: no bound but the test's own):
 * the operator's --max-duration plus the test's no-progress bound and the
 * server's control timeout; a -D run ends by its own clock, so its passive
 * budget bounds it closer (which is also what a busy server tells the next
 * client). The passive side's waits keep their own budgets within it.
 */
static int run_limit_ms(const struct lp_rdma_params *p, const struct lp_rdma_server_opts *o,
			const struct lp_oob *oob)
{
	int ms;

	if (o->max_duration_s <= 0)
		return 0;
	ms = (int)LP_MIN(o->max_duration_s * 1000 + p->timeout_ms + oob->timeout_ms, 1e9);
	return p->duration_s > 0 ? LP_MIN(ms, passive_budget_ms(p)) : ms;
}

/*
 * READY both ways, the passive loop, DONE, this side's verification, RESULT
 * with the port counters that moved since *ctr0 (consumed).
 */
static int serve_run(struct lp_rdma_conn *c, const struct lp_rdma_server_opts *o,
		     struct lp_loop_out *out, struct lp_counters **ctr0)
{
	const struct lp_rdma_params *p = c->p;
	struct lp_oob *oob = c->oob;
	struct lp_proto_done done;
	struct lp_rdma_result_msg res = { .nqps = p->num_qps };
	int ret = lp_proto_expect(oob, LP_MSG_READY, NULL, oob->timeout_ms, c->fail);

	if (!ret)
		ret = lp_proto_send(oob, LP_MSG_READY, NULL);
	lp_oob_phase(oob, "test run", run_limit_ms(p, o, oob));
	if (!ret)
		ret = lp_loop_run(c, false, out);
	/* The client ended the test (its ERROR is waiting): that, not the local symptom, is the
	 * cause. */
	if (ret < 0 && ret != -EINTR && oob->ops->ready(oob->ctx) > 0) {
		*c->fail = (struct lp_fail){ 0 };
		lp_proto_expect(oob, LP_MSG_DONE, &done, 1000, c->fail);
	}
	if (ret)
		return c->fail->err ? ret : lp_fail_set(c->fail, ret, "%s", strerror(-ret));
	if (lp_rdma_test(p->test)->needs_recv && p->bidir && !out->peer_done)
		drain_recvs(c, passive_budget_ms(p));
	ret = lp_proto_expect(oob, LP_MSG_DONE, &done, passive_budget_ms(p), c->fail);
	if (!ret && done.nqps != p->num_qps)
		ret = lp_fail_set(c->fail, -EPROTO, "malformed DONE (%u QPs, not %u)", done.nqps,
				  p->num_qps);
	if (ret)
		return ret;
	if (p->verify && side_receives(p, false)) {
		res.verify =
			verify_side(c, out, done.msgs, &res.checked) ? LP_VERIFY_BAD : LP_VERIFY_OK;
		if (res.verify == LP_VERIFY_BAD)
			snprintf(res.text, sizeof(res.text), "%s", c->fail->msg);
	}
	res.bytes = out->bw.bytes;
	res.msgs = out->bw.msgs;
	res.ns = out->bw.ns;
	res.iters = out->iters;
	memcpy(res.sent, out->msgs, sizeof(res.sent));
	if (out->ival.on)
		lp_ival_summarize(out->ival.v, out->ival.n, p->interval_s, &res.ival);
	ctr_after(c->dev, *ctr0, &res.ctr);
	*ctr0 = NULL;
	ret = lp_proto_send(oob, LP_MSG_RESULT, &res);
	if (ret)
		return lp_fail_set(c->fail, ret, "cannot send RESULT to %s: %s", oob->peer_name,
				   strerror(-ret));
	return 0;
}

/* Connection set-up failed: its cause, once, in this server's log and to the client. */
static int setup_failed(struct lp_oob *oob, struct lp_fail *fail, int ret)
{
	if (!fail->err)
		lp_fail_set(fail, ret, "%s", *lp_err_last() ? lp_err_last() : strerror(-ret));
	lp_warn("client %s: connection set-up failed: %s", oob->peer_name, fail->msg);
	if (ret != -ECONNABORTED)
		lp_proto_send_error(oob, ret, "%s", fail->msg);
	return ret == -ECONNABORTED ? 0 : ret;
}

/*
 * Serve one HELLO on the session's device copy sdev: 0 when the test ran
 * (well or not), <0 when the session is over (a refused test: its cause in
 * *end).
 */
static int serve_test(struct lp_rdma_dev *sdev, struct lp_oob *oob,
		      const struct lp_rdma_server_opts *o, const uint8_t *body, size_t len,
		      struct lp_fail *end)
{
	struct lp_rdma_params p;
	struct lp_rdma_conn c;
	struct lp_loop_out out = { 0 };
	struct lp_fail fail = { 0 };
	struct lp_counters *ctr0;
	struct lp_conn_cfg cfg = { .dev = sdev,
				   .p = &p,
				   .mem = o->mem,
				   .mem_dev = o->mem_dev,
				   .oob = oob,
				   .bind_addr = o->bind_addr,
				   .allow = o->allow,
				   .fail = &fail };
	int ret = serve_hello(sdev, oob, o, body, len, &p, end);

	if (ret)
		return ret;
	lp_oob_phase(oob, "connection set-up", 3 * oob->timeout_ms);
	lp_err_clear();
	ret = lp_conn_setup(&c, &cfg);
	if (ret)
		return setup_failed(oob, &fail, ret);
	ctr0 = ctr_before(sdev);
	ret = lp_stats_init(&out.rtt, 0);
	if (!ret) /* its own direction's intervals: bidir bandwidth only */
		ret = lp_ival_init(&out.ival, p.bidir ? p.interval_s : 0, (double)p.size, 0, 0,
				   NULL);
	if (!ret)
		ret = serve_run(&c, o, &out, &ctr0);
	free(ctr0);
	if (fail.err)
		lp_warn("client %s: test %s size %llu failed: %s", oob->peer_name,
			lp_rdma_test_names[p.test], (unsigned long long)p.size, fail.msg);
	lp_stats_free(&out.rtt);
	lp_ival_free(&out.ival);
	if (ret == -EINTR) /* this server was interrupted: the client reports it */
		lp_proto_send_error(oob, ret, "server interrupted");
	else if (ret && !fail.from_peer) /* the client hears this side's cause (best effort) */
		lp_proto_send_error(oob, ret, "server: %s", fail.msg);
	lp_conn_teardown(&c);
	/* A failed test leaves the session in an unknown state: end it. */
	return ret;
}

/* The next message: HELLO, or BYE (0, *type_p set); anything else ends the session. */
static int next_message(struct lp_oob *oob, const struct lp_rdma_server_opts *o, int n,
			uint16_t *type_p, uint8_t *body, size_t *len_p, struct lp_fail *end)
{
	/*
	 * A new client speaks at once (a silent one is dropped after the timeout);
	 * between tests it only formats output: a minute is plenty.
	 */
	int ms = n ? LP_MAX(oob->timeout_ms, 60000) : oob->timeout_ms;
	int ret;

	lp_oob_phase(oob, n ? "wait for the next test" : "wait for the first test", ms);
	ret = (o->stop && *o->stop) ? lp_fail_set(end, -EINTR, "interrupted")
				    : lp_proto_recv(oob, type_p, body, len_p, ms, end);
	if (ret == -EINTR)
		lp_proto_send_error(oob, ret, "server interrupted");
	if (ret == -EPROTONOSUPPORT) /* tell an old client too: its build names both versions */
		lp_proto_send_error(oob, -EPROTONOSUPPORT, "%s", end->msg);
	if (ret)
		return ret;
	if (*type_p != LP_MSG_HELLO && *type_p != LP_MSG_BYE) {
		lp_proto_send_error(oob, -EPROTO, "expected HELLO or BYE, not %s",
				    lp_proto_name(*type_p));
		return lp_fail_set(end, -EPROTO, "expected HELLO or BYE, not %s",
				   lp_proto_name(*type_p));
	}
	return 0;
}

int lp_rdma_server_session(struct lp_rdma_dev *dev, struct lp_oob *oob,
			   const struct lp_rdma_server_opts *o, struct lp_fail *f)
{
	uint8_t body[LP_WIRE_MAX_BODY];
	struct lp_rdma_dev sdev = { 0 }; /* this session's copy: its GID choice is its own */
	struct lp_fail end = { 0 };
	int ret = 0;

	if (dev) {
		sdev = *dev;
		if (!o->gid_fixed && o->gid_by_family)
			lp_rdma_dev_select_gid(&sdev, oob->peer_family, -1, NULL);
	}
	for (int n = 0; !ret; n++) {
		uint16_t type;
		size_t len;

		ret = next_message(oob, o, n, &type, body, &len, &end);
		if (!ret && type == LP_MSG_BYE)
			break;
		if (!ret)
			ret = serve_test(&sdev, oob, o, body, len, &end);
	}
	lp_oob_phase(oob, NULL, 0);
	lp_fail_take(f, &end);
	return ret;
}
