// SPDX-License-Identifier: MIT
/*
 * The timed loops.
 *
 * Latency (write_lat, send_lat) is a ping-pong on one QP: the client stamps
 * the clock, posts iteration i (the last byte of a WRITE carries i; a SEND is
 * matched by its receive completion), and stamps again when the server's
 * answer i is seen; that round trip is one sample and one-way latency is
 * reported as half of it. read_lat times one READ from post to completion.
 * Every wait polls; none blocks in the kernel.
 *
 * With --verify, message m of a QP uses slot (m - 1) % depth of the sending
 * and receiving rings (lp_conn_off); the slot of the next message is found
 * outside the timed path (ping-pong: before the stamp; bandwidth: a counter).
 *
 * Bandwidth keeps up to tx_depth WRs in flight per QP, signals every
 * cq_mod-th WR and the last, chains post_list WRs per post, and times the
 * first post to the last completion after an untimed warm-up phase.
 *
 * No loop can hang: every wait checks the clock and gives up after
 * p->timeout_ms without progress, and error completions end the test.
 *
 * Intervals (--interval, common/ival.h) read no clock of their own: a latency
 * sample is filed at its closing stamp, after it (closing an interval sorts
 * its samples: never inside a round trip); bandwidth completions at the clock
 * read that marks progress, and a stalled bandwidth loop closes its intervals
 * at the no-progress clock reads, with WRs in flight.
 */
#include "rdma/internal.h"

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>

#include "common/clock.h"
#include "common/lp.h"
#include "common/units.h"

/* How often (in polls) to read the clock for the no-progress bound. */
#define LP_CLOCK_EVERY 256
/* Polls past this long without progress also yield the CPU. */
#define LP_YIELD_AFTER_NS 200000ull

/* How a ping-pong side sees the peer's message arrive (resolved before the loop). */
enum lp_arrive {
	LP_ARRIVE_CQ,	/* a completion: the receive of a send, or of a write with immediate */
	LP_ARRIVE_FLAG, /* the CPU sees the message's counter byte in host memory */
	LP_ARRIVE_GPU,	/* a GPU kernel sees it in GPU memory and tells the CPU */
};

/* How a wait ended besides 0 (what it waited for came) and a negative errno (it failed). */
enum lp_wait_end {
	LP_WAIT_PEER_DONE = 1, /* passive side: the client's DONE arrived, the run is over */
};

struct lp_loop {
	struct lp_rdma_conn *c;
	const struct lp_rdma_params *p;
	uint64_t timeout_ns;
	uint64_t deadline; /* the server's bound on this run (its session phase's); 0 none */
	uint64_t last_progress;
	unsigned polls;
	bool stop_by_peer; /* passive side: the client's DONE ended the run */
	uint64_t k;	   /* ring slot of the current ping-pong message */
	uint8_t *flag_rx;  /* its last byte in the receiving ring (write_lat, host memory) */
	uint8_t *flag_tx;  /* its last byte in the sending ring */
	struct lp_ival_series *iv; /* the run's interval series (off without --interval) */
	/* The test's row, resolved before the loop starts: */
	bool flagged;	       /* each message carries its counter (write_lat: byte or immediate) */
	enum lp_arrive arrive; /* ping-pong: how the peer's message is seen */
	bool rearm;	       /* ping-pong: each message consumes a receive, posted again */
};

__attribute__((format(printf, 3, 4))) static int fail(struct lp_loop *l, int err, const char *fmt,
						      ...)
{
	va_list ap;

	va_start(ap, fmt);
	err = lp_fail_vset(l->c->fail, err, fmt, ap);
	va_end(ap);
	return err;
}

/* A failed post: the verb's own return value is the cause (errno need not be set). */
static int post_failed(struct lp_loop *l, const char *verb, uint32_t q, int ret)
{
	ret = lp_verbs_err(ret);
	return fail(l, ret, "%s on QP %u failed: %s", verb, q, strerror(-ret));
}

static int wc_error(struct lp_loop *l, const struct ibv_wc *wc)
{
	return fail(l, -EIO, "work completion error: %s (status %d, vendor 0x%x, opcode %d)",
		    ibv_wc_status_str(wc->status), wc->status, wc->vendor_err, wc->opcode);
}

/* The no-progress bound; also notices the client's DONE on the passive side (LP_WAIT_PEER_DONE). */
static int check_idle(struct lp_loop *l, bool passive)
{
	uint64_t now;

	/* Every time (one load): under Soft-RoCE 256 polls can take seconds of posting. */
	if (l->c->stop && *l->c->stop)
		return fail(l, -EINTR, "interrupted mid-test");
	if (++l->polls % LP_CLOCK_EVERY)
		return 0;
	now = lp_now_ns();
	if (l->iv->msg_bytes > 0) /* bandwidth: nothing is timed here, WRs are in flight */
		lp_ival_tick(l->iv, now);
	/*
	 * A wait far longer than any round trip means someone else needs this
	 * CPU (the peer, the kernel's RDMA work in a VM): let them run rather
	 * than spin until the scheduler's tick preempts us.
	 */
	if (now - l->last_progress > LP_YIELD_AFTER_NS)
		sched_yield();
	if (now - l->last_progress > 2000000ull) {
		int r = l->c->oob->ops->ready(l->c->oob->ctx);

		if (r < 0)
			return fail(l, -ECONNRESET, "lost the exchange connection to %s",
				    l->c->oob->peer_name);
		if (r > 0 && passive) {
			l->stop_by_peer = true;
			return LP_WAIT_PEER_DONE;
		}
		/* Nothing is sent to the client mid-test but an ERROR (or the close). */
		if (r > 0 && l->c->is_client)
			return fail(l, -ECONNABORTED, "%s ended the test", l->c->oob->peer_name);
	}
	if (now - l->last_progress > l->timeout_ns)
		return fail(l, -ETIMEDOUT, "no progress for %d ms: the peer %s stopped responding",
			    l->p->timeout_ms, l->c->oob->peer_name);
	if (l->deadline && now > l->deadline)
		return fail(
			l, -ETIMEDOUT,
			"the test ran past the %d s this server allows for a run (--max-duration "
			"and the timeouts)",
			l->c->oob->phase_ms / 1000);
	return 0;
}

static void progress(struct lp_loop *l)
{
	l->last_progress = lp_now_ns();
}

/* Build one WR of the test's opcode on QP q, from and into ring slot k. */
static int post_one(struct lp_rdma_conn *c, uint32_t q, uint64_t k, uint64_t wr_id, bool signaled,
		    struct ibv_send_wr *wr, struct ibv_sge *sge)
{
	const struct lp_rdma_params *p = c->p;
	bool read = c->rd;
	bool send = c->opcode == IBV_WR_SEND;

	*sge = (struct ibv_sge){
		.addr = (uintptr_t)c->mem.addr + lp_conn_off(c, q, read, k),
		.length = (uint32_t)p->size,
		.lkey = c->mem.mr->lkey,
	};
	*wr = (struct ibv_send_wr){
		.wr_id = wr_id,
		.sg_list = sge,
		.num_sge = 1,
		.opcode = c->opcode,
		.send_flags = signaled ? IBV_SEND_SIGNALED : 0,
	};
	if (!read && p->size <= c->max_inline && (c->mem_caps & LP_MEM_CAP_CPU_VISIBLE))
		wr->send_flags |= IBV_SEND_INLINE;
	if (!send) {
		/* The peer's layout is ours: same parameters, same slot size (checked in QPINFO). */
		wr->wr.rdma.remote_addr = c->remote.addr + lp_conn_off(c, q, !read, k);
		wr->wr.rdma.rkey = c->remote.rkey;
	}
	return 0;
}

/* Wait for one completion on cq (send or receive), bounded. */
static int wait_cq(struct lp_loop *l, struct ibv_cq *cq, bool passive, struct ibv_wc *wc)
{
	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n < 0)
			return fail(l, -EIO, "ibv_poll_cq failed (%d)", n);
		if (n) {
			if (wc->status != IBV_WC_SUCCESS)
				return wc_error(l, wc);
			return 0;
		}
		n = check_idle(l, passive);
		if (n)
			return n;
	}
}

/* Wait until the last byte of the receiving half holds want. */
static int wait_flag(struct lp_loop *l, uint8_t want, bool passive)
{
	volatile uint8_t *f = l->flag_rx;

	while (*f != want) {
		int n = check_idle(l, passive);

		if (n)
			return n;
	}
	return 0;
}

/* One ping-pong exchange step: post iteration i. */
static int pp_post(struct lp_loop *l, uint64_t i)
{
	struct lp_rdma_conn *c = l->c;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge[2];
	int ret;

	post_one(c, 0, l->k, i, true, &wr, &sge[0]);
	if (l->flagged) {
		if (c->detect == LP_DETECT_IMM) {
			wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
			wr.imm_data = htonl((uint32_t)i);
		} else if (c->mem_caps & LP_MEM_CAP_CPU_VISIBLE) {
			*l->flag_tx = (uint8_t)i;
		} else {
			/* GPU data, then the counter byte from host memory: the CPU never touches GPU memory. */
			sge[0].length = (uint32_t)(l->p->size - 1);
			sge[1] = (struct ibv_sge){ .addr = (uintptr_t)c->flag_host,
						   .length = 1,
						   .lkey = c->flag_mr->lkey };
			c->flag_host[0] = (uint8_t)i;
			if (sge[0].length) {
				wr.num_sge = 2;
			} else {
				sge[0] = sge[1];
			}
		}
	}
	ret = ibv_post_send(c->qp[0], &wr, &bad);
	return ret ? post_failed(l, "ibv_post_send", 0, ret) : 0;
}

/* The write may have completed at the peer and never become visible here: say so, blame no one. */
static int gpu_not_seen(struct lp_loop *l)
{
	return fail(
		l, -ETIMEDOUT,
		"the write from %s never became visible in GPU memory: the peer may have stopped, "
		"or GPUDirect RDMA writes do not reach this GPU (check nvidia-peermem/dma-buf and "
		"PCIe ACS/IOMMU)",
		l->c->oob->peer_name);
}

/* The device poller saw iteration i (a silent, bounded spin on its host flag). */
static int wait_gpu(struct lp_loop *l, uint64_t i, bool passive)
{
	for (;;) {
		int n = lp_mem_poll_seen(&l->c->mem, (uint32_t)i);

		if (n > 0)
			return 0;
		if (n < 0) /* the kernel gave up */
			return gpu_not_seen(l);
		n = check_idle(l, passive);
		if (n == -ETIMEDOUT) /* the same cause whichever clock ran out first */
			return gpu_not_seen(l);
		if (n)
			return n;
	}
}

/* Wait for the answer to iteration i. */
static int pp_wait(struct lp_loop *l, uint64_t i, bool passive)
{
	struct ibv_wc wc;
	int ret;

	if (l->arrive == LP_ARRIVE_FLAG)
		return wait_flag(l, (uint8_t)i, passive);
	if (l->arrive == LP_ARRIVE_GPU)
		return wait_gpu(l, i, passive);
	ret = wait_cq(l, l->c->rcq, passive, &wc);
	if (ret)
		return ret;
	if (l->flagged && ntohl(wc.imm_data) != (uint32_t)i)
		return fail(l, -EPROTO, "write with immediate %u out of order (expected %llu)",
			    ntohl(wc.imm_data), (unsigned long long)i);
	return 0;
}

/* Replace the receive the answer consumed (outside the timed path: rx_depth are posted). */
static int pp_rearm(struct lp_loop *l)
{
	if (!l->rearm)
		return 0;
	int ret = lp_conn_post_recv(l->c, 0);

	return ret ? post_failed(l, "ibv_post_recv", 0, ret) : 0;
}

/* Reap the send completion of the last post (already done in practice). */
static int pp_reap(struct lp_loop *l)
{
	struct ibv_wc wc;

	return wait_cq(l, l->c->scq, false, &wc);
}

/* Step to the next message's ring slot (before the stamp: the timed path only reads it). */
static void ring_next(struct lp_loop *l)
{
	struct lp_rdma_conn *c = l->c;

	if (++l->k == c->depth)
		l->k = 0;
	l->flag_rx = (uint8_t *)c->mem.addr + lp_conn_off(c, 0, true, l->k) + l->p->size - 1;
	l->flag_tx = (uint8_t *)c->mem.addr + lp_conn_off(c, 0, false, l->k) + l->p->size - 1;
}

/*
 * The timed part of a latency run starts: its interval series too. Returns
 * when a -D run ends (0: it counts iterations).
 */
static uint64_t lat_start(struct lp_loop_out *out, const struct lp_rdma_params *p)
{
	uint64_t now = lp_now_ns();

	lp_ival_start(&out->ival, (uint64_t)lp_ticks_to_ns(lp_ticks()));
	return p->duration_s > 0 ? now + (uint64_t)(p->duration_s * 1e9) : 0;
}

/* One timed sample from stamps t0..t1 (ticks): the run's statistics and its interval. */
static void lat_sample(struct lp_loop_out *out, uint64_t t0, uint64_t t1)
{
	double ns = lp_ticks_to_ns(t1 - t0);

	lp_stats_add(&out->rtt, ns);
	out->iters++;
	out->t_last = t1;
	lp_ival_tick(&out->ival, (uint64_t)lp_ticks_to_ns(t1));
	lp_ival_sample(&out->ival, ns);
}

/* The latency run is over: its last interval ends with its last sample. */
static void lat_end(struct lp_loop_out *out)
{
	lp_ival_finish(&out->ival, (uint64_t)lp_ticks_to_ns(out->t_last));
}

static int run_pingpong(struct lp_loop *l, bool active, struct lp_loop_out *out)
{
	const struct lp_rdma_params *p = l->p;
	uint64_t total = p->warmup + p->iters;
	uint64_t t_end = 0, i;
	int ret = 0;

	progress(l);
	for (i = 1; p->duration_s > 0 || i <= total; i++) {
		ring_next(l);
		if (active) {
			uint64_t t0, t1;

			if (i == p->warmup + 1)
				t_end = lat_start(out, p);
			if (t_end && lp_now_ns() >= t_end)
				break;
			t0 = lp_ticks();
			ret = pp_post(l, i);
			if (!ret)
				ret = pp_wait(l, i, false);
			t1 = lp_ticks();
			if (ret)
				break;
			if (i > p->warmup)
				lat_sample(out, t0, t1);
			out->msgs[0] = i;
			progress(l);
			ret = pp_rearm(l);
			if (!ret)
				ret = pp_reap(l);
		} else {
			/* Answer first; every bookkeeping step comes after the reply is posted. */
			ret = pp_wait(l, i, true);
			if (!ret)
				ret = pp_post(l, i);
			if (ret)
				break;
			out->msgs[0] = i;
			progress(l);
			ret = pp_rearm(l);
			if (!ret)
				ret = pp_reap(l);
			if (!ret && i > p->warmup)
				out->iters++;
		}
		if (ret)
			break;
	}
	lat_end(out);
	return ret == LP_WAIT_PEER_DONE ? 0 : ret;
}

static int run_read_lat(struct lp_loop *l, struct lp_loop_out *out)
{
	const struct lp_rdma_params *p = l->p;
	uint64_t total = p->warmup + p->iters, t_end = 0;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	int ret = 0;

	progress(l);
	for (uint64_t i = 1; p->duration_s > 0 || i <= total; i++) {
		uint64_t t0, t1;

		if (i == p->warmup + 1)
			t_end = lat_start(out, p);
		if (t_end && lp_now_ns() >= t_end)
			break;
		ring_next(l);
		post_one(l->c, 0, l->k, i, true, &wr, &sge);
		t0 = lp_ticks();
		ret = ibv_post_send(l->c->qp[0], &wr, &bad);
		if (ret)
			return post_failed(l, "ibv_post_send", 0, ret);
		ret = wait_cq(l, l->c->scq, false, &wc);
		t1 = lp_ticks();
		if (ret)
			return ret;
		progress(l);
		out->msgs[0] = i;
		if (i > p->warmup)
			lat_sample(out, t0, t1);
	}
	lat_end(out);
	return 0;
}

/* Bandwidth: state of one direction's sender and receiver on this side. */
struct bw_state {
	uint64_t posted[LP_RDMA_MAX_QPS];
	uint64_t done[LP_RDMA_MAX_QPS];
	uint64_t target[LP_RDMA_MAX_QPS];
	uint64_t slot[LP_RDMA_MAX_QPS]; /* ring slot of the next message */
	uint64_t received;
};

static int qp_index(struct lp_rdma_conn *c, uint32_t qp_num)
{
	for (uint32_t q = 0; q < c->nqps; q++)
		if (c->qp[q]->qp_num == qp_num)
			return (int)q;
	return -1;
}

/* Post what the window allows on every QP. */
static int bw_post(struct lp_loop *l, struct bw_state *s)
{
	struct lp_rdma_conn *c = l->c;
	const struct lp_rdma_params *p = l->p;

	for (uint32_t q = 0; q < c->nqps; q++) {
		while (s->posted[q] < s->target[q] &&
		       s->posted[q] - s->done[q] + p->post_list <= p->tx_depth) {
			struct ibv_send_wr wr[LP_RDMA_MAX_POST_LIST], *bad;
			struct ibv_sge sge[LP_RDMA_MAX_POST_LIST];
			int ret;
			uint32_t n = (uint32_t)LP_MIN((uint64_t)p->post_list,
						      s->target[q] - s->posted[q]);

			for (uint32_t k = 0; k < n; k++) {
				uint64_t id = s->posted[q] + k + 1;
				bool sig = id % p->cq_mod == 0 || id == s->target[q];

				post_one(c, q, s->slot[q], id, sig, &wr[k], &sge[k]);
				if (++s->slot[q] == c->depth)
					s->slot[q] = 0;
				wr[k].next = k + 1 < n ? &wr[k + 1] : NULL;
			}
			ret = ibv_post_send(c->qp[q], wr, &bad);
			if (ret)
				return post_failed(l, "ibv_post_send", q, ret);
			s->posted[q] += n;
		}
	}
	return 0;
}

static bool bw_sent_all(struct lp_rdma_conn *c, struct bw_state *s)
{
	for (uint32_t q = 0; q < c->nqps; q++)
		if (s->done[q] < s->target[q])
			return false;
	return true;
}

/* Reap send completions (and receives when this side also receives). */
static int bw_poll(struct lp_loop *l, struct bw_state *s, bool recv)
{
	struct ibv_wc wc[32];
	uint64_t completed = 0;
	int n;

	n = ibv_poll_cq(l->c->scq, 32, wc);
	if (n < 0)
		return fail(l, -EIO, "ibv_poll_cq failed (%d)", n);
	for (int k = 0; k < n; k++) {
		int q;

		if (wc[k].status != IBV_WC_SUCCESS)
			return wc_error(l, &wc[k]);
		q = qp_index(l->c, wc[k].qp_num);
		if (q >= 0) {
			completed += wc[k].wr_id - s->done[q];
			s->done[q] = wc[k].wr_id;
		}
	}
	if (n) {
		progress(l);
		/* Filed by the time they were reaped: close what ended before, then count. */
		lp_ival_tick(l->iv, l->last_progress);
		lp_ival_count(l->iv, completed);
	}
	if (!recv)
		return 0;
	n = ibv_poll_cq(l->c->rcq, 32, wc);
	if (n < 0)
		return fail(l, -EIO, "ibv_poll_cq failed (%d)", n);
	for (int k = 0; k < n; k++) {
		int ret;

		if (wc[k].status != IBV_WC_SUCCESS)
			return wc_error(l, &wc[k]);
		ret = lp_conn_post_recv(l->c, (uint32_t)wc[k].wr_id);
		if (ret)
			return post_failed(l, "ibv_post_recv", (uint32_t)wc[k].wr_id, ret);
		s->received++;
	}
	if (n)
		progress(l);
	return 0;
}

/* Run one phase of count messages per QP (count 0 + duration = time-bounded). */
static int bw_phase(struct lp_loop *l, struct bw_state *s, uint64_t count, double duration_s,
		    bool send, bool recv, uint64_t recv_expect, uint64_t *t_last_p)
{
	struct lp_rdma_conn *c = l->c;
	uint64_t t_stop = duration_s > 0 ? lp_now_ns() + (uint64_t)(duration_s * 1e9) : 0;
	bool passive = !send;
	int ret;

	for (uint32_t q = 0; q < c->nqps; q++)
		s->target[q] = send ? s->posted[q] + (t_stop ? UINT64_MAX / 2 : count) : 0;
	progress(l);
	for (;;) {
		if (send) {
			if (t_stop && lp_now_ns() >= t_stop) {
				/* Time is up: finish at the next signaled WR of every QP. */
				for (uint32_t q = 0; q < c->nqps; q++)
					s->target[q] = (s->posted[q] + l->p->cq_mod - 1) /
						       l->p->cq_mod * l->p->cq_mod;
				t_stop = 0;
			}
			ret = bw_post(l, s);
			if (ret)
				return ret;
		}
		ret = bw_poll(l, s, recv);
		if (ret)
			return ret;
		if ((!send || bw_sent_all(c, s)) && (!recv || s->received >= recv_expect))
			break;
		ret = check_idle(l, passive);
		if (ret)
			return ret;
	}
	*t_last_p = l->last_progress;
	return 0;
}

static int run_bw(struct lp_loop *l, bool active, struct lp_loop_out *out)
{
	const struct lp_rdma_params *p = l->p;
	struct lp_rdma_conn *c = l->c;
	bool send_test = c->t->needs_recv;
	bool send = active || p->bidir;
	bool recv = send_test && (!active || p->bidir);
	uint64_t expect = send_test ? (p->warmup + p->iters) * c->nqps : 0;
	struct bw_state s = { 0 };
	uint64_t t0, t1, before[LP_RDMA_MAX_QPS], msgs = 0;
	int ret;

	if (!send) /* passive write/read target: nothing to poll; the client's DONE ends it */
		return 0;
	if (recv && p->duration_s > 0)
		expect = 0; /* the count is not known in advance; the DONE says it */
	/* Warm-up: untimed; receives are counted with the timed phase. */
	ret = bw_phase(l, &s, p->warmup, 0, true, recv, 0, &t1);
	if (ret)
		return ret;
	memcpy(before, s.posted, sizeof(before));
	t0 = lp_now_ns();
	lp_ival_start(&out->ival, t0);
	ret = bw_phase(l, &s, p->iters, p->duration_s, true, recv, expect, &t1);
	if (ret)
		return ret;
	lp_ival_finish(&out->ival, t1);
	for (uint32_t q = 0; q < c->nqps; q++)
		msgs += s.posted[q] - before[q];
	out->iters = msgs;
	memcpy(out->msgs, s.posted, sizeof(out->msgs));
	out->bw.msgs = (double)msgs;
	out->bw.bytes = (double)msgs * (double)p->size;
	out->bw.ns = (double)(t1 - t0);
	return 0;
}

/* Passive receiver of send_bw (not bidir). */
static int run_bw_recv(struct lp_loop *l, struct lp_loop_out *out)
{
	const struct lp_rdma_params *p = l->p;
	struct bw_state s = { 0 };
	uint64_t expect = p->duration_s > 0 ? UINT64_MAX : (p->warmup + p->iters) * l->c->nqps;
	uint64_t t;
	int ret = bw_phase(l, &s, 0, 0, false, true, expect, &t);

	out->iters = s.received;
	return ret == LP_WAIT_PEER_DONE ? 0 : ret;
}

int lp_loop_run(struct lp_rdma_conn *c, bool active, struct lp_loop_out *out)
{
	const struct lp_rdma_params *p = c->p;
	const struct lp_rdma_test_info *t = c->t;
	struct lp_loop l = {
		.c = c,
		.p = p,
		.timeout_ns = (uint64_t)p->timeout_ms * 1000000ull,
		.deadline = c->oob->deadline_ns,
		.k = c->depth - 1, /* ring_next() steps to slot 0 first */
		.iv = &out->ival,
		.flagged = t->detect,
		.arrive = !t->detect || c->detect == LP_DETECT_IMM ? LP_ARRIVE_CQ
			  : c->detect == LP_DETECT_GPU		   ? LP_ARRIVE_GPU
								   : LP_ARRIVE_FLAG,
		.rearm = !t->detect || c->detect == LP_DETECT_IMM,
	};
	int ret;

	switch (t->loop) {
	case LP_LOOP_PINGPONG:
		ret = run_pingpong(&l, active, out);
		break;
	case LP_LOOP_READ_LAT: /* the passive side has nothing to do until the client's DONE */
		ret = active ? run_read_lat(&l, out) : 0;
		break;
	default: /* the passive receiver of sends (not both ways) only receives */
		ret = !active && !p->bidir && t->needs_recv ? run_bw_recv(&l, out)
							    : run_bw(&l, active, out);
		break;
	}
	out->peer_done = l.stop_by_peer;
	return ret == LP_WAIT_PEER_DONE ? 0 : ret;
}
