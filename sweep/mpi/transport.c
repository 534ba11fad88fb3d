// SPDX-License-Identifier: MIT
/*
 * What one pair test is carried by (struct lp_sweep_xport_ops): lp-rdma's own
 * client and server sessions, or the model transport (lp-sweep --model), whose
 * two sides exchange one request and one answer on the session's channel, take
 * the model's time for the test, and return a value drawn from the model. The
 * engine's rounds, retests, isolation, journal and gathers are the same for
 * both.
 */
#include "sweep/mpi/sweep_mpi.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fail.h"
#include "common/lp.h"
#include "rdma/reuse.h"

/*
 * Test-only (docs/SWEEP.md): LP_SWEEP_FAULT=crash:CLIENT:SERVER (or hang:...)
 * makes the first test of that ordered pair crash with SIGSEGV (or hang), to
 * show that a fault inside one test costs one cell.
 */
static void test_fault(const char *client, const char *server, int m)
{
	const char *f = getenv("LP_SWEEP_FAULT");
	char want[200];

	if (!f || m != 0)
		return;
	snprintf(want, sizeof(want), ":%s:%s", client, server);
	if (!strncmp(f, "crash", 5) && !strcmp(f + 5, want)) {
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
	}
	if (!strncmp(f, "hang", 4) && !strcmp(f + 4, want))
		for (;;)
			pause();
}

static void cell_error(struct lp_sweep_cell *c, int status, const char *why)
{
	c->status = status;
	snprintf(c->error, sizeof(c->error), "%s", why && why[0] ? why : strerror(-status));
}

/* ---- rdma: lp-rdma's sessions ---- */

static void fill_cell(struct lp_sweep_cell *c, const struct lp_rdma_result *r, bool lat)
{
	double k = lat ? 1 : 8; /* the value's unit: p50 us, or Gb/s from the intervals' GB/s */

	c->iters = r->iters;
	c->ival_min = r->ival_sum.min * k;
	c->ival_max = r->ival_sum.max * k;
	if (lat) {
		c->lat = r->lat_us;
		c->halved = r->lat_halved;
		c->value = c->lat.p50;
	} else {
		c->gbytes_s = r->local.gbytes_s;
		c->gbits_s = r->local.gbits_s;
		c->mmsg_s = r->local.mmsg_s;
		c->pct_link = r->local.pct_link;
		c->value = c->gbits_s;
	}
}

static void rdma_client(struct lp_rdma_dev *dev, struct lp_oob *oob, struct lp_sweep_test *t)
{
	struct lp_rdma_result *r = calloc(1, sizeof(*r));
	int ret;

	test_fault(t->client, t->server, t->c.metric);
	if (!r) {
		cell_error(&t->c, -ENOMEM, "out of memory");
		return;
	}
	ret = lp_rdma_client_run(dev, oob, &t->p, t->server, NULL, r);
	if (r->status || ret)
		cell_error(&t->c, r->status ? r->status : ret, r->error);
	else
		fill_cell(&t->c, r, lp_rdma_test_is_lat(t->p.test));
	/* what the ports recorded, a failed test's too (often the best evidence) */
	lp_sweep_ctr_end_fill(&t->c.ctr_client, &r->ctr_local);
	lp_sweep_ctr_end_fill(&t->c.ctr_server, &r->ctr_remote);
	lp_rdma_result_free(r);
	free(r);
}

static int rdma_serve(struct lp_rdma_dev *dev, struct lp_oob *oob,
		      const struct lp_rdma_server_opts *so, const struct lp_sweep_conn *conn)
{
	(void)conn;
	return lp_rdma_server_session(dev, oob, so, NULL);
}

/*
 * lp-rdma's sessions reuse their device's registered buffers and QP sets
 * (lp_rdma_dev_reuse) but exchange their QPINFO themselves: no prepare yet
 * (docs/SWEEP.md, "Set-up reuse": what is left).
 */
const struct lp_sweep_xport_ops lp_sweep_xport_rdma = {
	.name = "rdma",
	.needs_dev = true,
	.client = rdma_client,
	.bye = lp_rdma_client_bye,
	.serve = rdma_serve,
	.reuse_stats = lp_rdma_dev_reuse_stats,
};

/* ---- model: values drawn from sweep/model.h ---- */

/*
 * The model's stand-in connections, pooled and prepared as lp-rdma's QP sets
 * are (rdma/reuse.h), so that the engine's exchange and the pool's
 * bookkeeping run in every model sweep: a connection per metric and side,
 * taken from this process's pool when a round is prepared (or when its session
 * starts, without a prepared one), "reset" and put back after a clean session
 * (LP_FAULT_QP_RESET=N fails the N-th reset, as for lp-rdma's QPs: that one is
 * released and a fresh one made next time, counted), released after a failed
 * one. Its id (this process's pid and a count) travels in the round's
 * exchange, and each session checks that both sides' ids match the records.
 */
struct model_conn {
	uint64_t id;
};

struct model_key {
	int32_t metric, serve;
};

#define MODEL_PREPARED_MAX (4 * LP_SWEEP_MAX_METRICS) /* two rounds' sessions, both sides */

static struct lp_reuse_pool model_pool;
static pthread_once_t model_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t model_lock = PTHREAD_MUTEX_INITIALIZER; /* model_prepared */
static struct model_conn *model_prepared[MODEL_PREPARED_MAX];  /* oldest first */
static uint64_t model_ids, model_resets, model_fallbacks;

static void model_pool_init(void)
{
	lp_reuse_pool_init(&model_pool, free);
}

/* An idle connection of metric m's side from the pool, or a new one (NULL: out of memory). */
static struct model_conn *model_conn_get(int m, bool serve)
{
	struct model_key k = { .metric = m, .serve = serve };
	struct model_conn *c;

	pthread_once(&model_once, model_pool_init);
	c = lp_reuse_pool_take(&model_pool, &k, sizeof(k));
	if (c)
		return c;
	c = malloc(sizeof(*c));
	if (!c)
		return NULL;
	c->id = (uint64_t)getpid() << 32 | __atomic_add_fetch(&model_ids, 1, __ATOMIC_RELAXED);
	if (lp_reuse_pool_add(&model_pool, &k, sizeof(k), c)) {
		free(c);
		return NULL;
	}
	return c;
}

/* After its session: reset and back to the pool when clean, else released. */
static void model_conn_put(struct model_conn *c, bool clean)
{
	const char *f = getenv("LP_FAULT_QP_RESET");

	if (!c)
		return;
	if (clean && f &&
	    (uint64_t)atoll(f) == __atomic_add_fetch(&model_resets, 1, __ATOMIC_RELAXED)) {
		__atomic_add_fetch(&model_fallbacks, 1, __ATOMIC_RELAXED);
		clean = false; /* the reset "failed": released, a fresh one next time */
	}
	if (clean)
		lp_reuse_pool_put(&model_pool, c);
	else
		lp_reuse_pool_drop(&model_pool, c);
}

static uint64_t model_prepare(struct lp_rdma_dev *dev, bool serve, int m)
{
	struct model_conn *c = model_conn_get(m, serve), *old = NULL;

	(void)dev;
	if (!c)
		return 0;
	pthread_mutex_lock(&model_lock);
	if (model_prepared[MODEL_PREPARED_MAX - 1]) { /* full: the oldest's session never came */
		old = model_prepared[0];
		memmove(model_prepared, model_prepared + 1,
			sizeof(model_prepared) - sizeof(model_prepared[0]));
		model_prepared[MODEL_PREPARED_MAX - 1] = NULL;
	}
	for (int i = 0; i < MODEL_PREPARED_MAX; i++)
		if (!model_prepared[i]) {
			model_prepared[i] = c;
			break;
		}
	pthread_mutex_unlock(&model_lock);
	model_conn_put(old, true);
	return c->id;
}

/* The prepared connection id (taken out of the prepared list), or NULL: not here (a new process). */
static struct model_conn *model_claim(uint64_t id)
{
	struct model_conn *c = NULL;

	pthread_mutex_lock(&model_lock);
	for (int i = 0; id && i < MODEL_PREPARED_MAX && model_prepared[i] && !c; i++)
		if (model_prepared[i]->id == id) {
			c = model_prepared[i];
			memmove(model_prepared + i, model_prepared + i + 1,
				sizeof(model_prepared[0]) * (size_t)(MODEL_PREPARED_MAX - 1 - i));
			model_prepared[MODEL_PREPARED_MAX - 1] = NULL;
		}
	pthread_mutex_unlock(&model_lock);
	return c;
}

/* This session's connection: the prepared one, or (none here) one taken now. */
static struct model_conn *model_session_conn(uint64_t prepared, int m, bool serve, bool *was_p)
{
	struct model_conn *c = model_claim(prepared);

	*was_p = c != NULL;
	return c ? c : model_conn_get(m, serve);
}

static void model_reuse_stats(const struct lp_rdma_dev *dev, struct lp_rdma_reuse_stats *s)
{
	(void)dev;
	pthread_once(&model_once, model_pool_init);
	memset(s, 0, sizeof(*s));
	pthread_mutex_lock(&model_pool.lock);
	s->qp_created = model_pool.created;
	s->qp_reused = model_pool.reused;
	s->released = model_pool.dropped;
	pthread_mutex_unlock(&model_pool.lock);
	s->qp_fallbacks = __atomic_load_n(&model_fallbacks, __ATOMIC_RELAXED);
}

/* The model's messages, outside lp-rdma's message types. */
enum { MODEL_HELLO = 0x4d01, MODEL_DONE = 0x4d02 };

/* Sleep s seconds in slices, ending early on the stop flag: -EINTR then. */
static int model_wait(const struct lp_oob *oob, double s)
{
	uint64_t end = lp_now_ns() + (uint64_t)(s * 1e9);

	for (uint64_t now = lp_now_ns(); now < end; now = lp_now_ns()) {
		uint64_t ns = LP_MIN(end - now, 50000000ull);
		struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)ns };

		if (oob->stop && *oob->stop)
			return -EINTR;
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* The cell as lp-rdma would fill it for this value. */
static void model_cell(struct lp_sweep_cell *c, const struct lp_rdma_params *p, double rate_gbps,
		       double v)
{
	c->value = v;
	c->iters = p->iters;
	if (lp_rdma_test_is_lat(p->test)) {
		c->lat = (struct lp_summary){ .n = p->iters,
					      .min = v,
					      .max = v,
					      .mean = v,
					      .p50 = v,
					      .p90 = v,
					      .p99 = v,
					      .p999 = v,
					      .p9999 = v };
		c->halved = p->test != LP_RDMA_READ_LAT;
	} else {
		c->gbits_s = v;
		c->gbytes_s = v / 8;
		c->mmsg_s = v * 1e9 / 8 / (double)p->size / 1e6;
		c->pct_link = rate_gbps > 0 ? 100 * v / rate_gbps : NAN;
	}
}

/* The client's HELLO: the metric, the session's seconds, its connection and the one it expects. */
static int model_hello(struct lp_oob *oob, const struct lp_sweep_test *t, double s, uint64_t mine)
{
	struct lp_wbuf w;

	lp_wbuf_init(&w);
	lp_wbuf_u32(&w, (uint32_t)t->c.metric);
	lp_wbuf_f64(&w, s);
	lp_wbuf_u64(&w, mine);
	lp_wbuf_u64(&w, t->conn.peer);
	return oob->ops->send(oob->ctx, MODEL_HELLO, &w, oob->timeout_ms);
}

/* The server's DONE: its status and connection; a prepared one must be the one announced. */
static int model_done(struct lp_oob *oob, const struct lp_sweep_test *t, struct lp_fail *f)
{
	uint8_t body[LP_WIRE_MAX_BODY];
	struct lp_rbuf r;
	uint16_t type = 0;
	size_t n = 0;
	uint64_t id;
	bool prepared;
	int ret = oob->ops->recv(oob->ctx, &type, body, &n, oob->timeout_ms), status;

	if (ret)
		return ret;
	lp_rbuf_init(&r, body, n);
	status = (int32_t)lp_rbuf_u32(&r);
	id = lp_rbuf_u64(&r);
	prepared = lp_rbuf_u32(&r);
	if (type != MODEL_DONE || r.err)
		return -EPROTO;
	if (status)
		return lp_fail_set(f, status, "server %s: connection records crossed", t->server);
	if (prepared && t->conn.peer && id != t->conn.peer)
		return lp_fail_set(
			f, -EPROTO,
			"server %s used connection %#llx, the round's exchange announced %#llx",
			t->server, (unsigned long long)id, (unsigned long long)t->conn.peer);
	return 0;
}

static void model_client(struct lp_rdma_dev *dev, struct lp_oob *oob, struct lp_sweep_test *t)
{
	const struct lp_sweep_model *m = t->model;
	struct lp_sweep_model_key k = { .a = t->c.a,
					.b = t->c.b,
					.metric = t->c.metric,
					.phase = t->c.phase,
					.attempt = t->attempt,
					.round = t->c.round };
	double s = m->setup_s + m->test_s, v = NAN;
	struct lp_fail mf = { 0 }; /* the cell's failure: the server's DONE, the model's draw */
	bool prepared;
	struct model_conn *conn = model_session_conn(t->conn.mine, t->c.metric, false, &prepared);
	int ret = conn ? 0 : -ENOMEM;

	(void)dev;
	test_fault(t->client, t->server, t->c.metric);
	if (!ret)
		ret = model_hello(oob, t, s, prepared ? conn->id : 0);
	if (!ret)
		ret = model_wait(oob, s);
	if (!ret)
		ret = model_done(oob, t, &mf);
	if (!ret)
		ret = lp_sweep_model_draw(m, &k, &v, &mf);
	model_conn_put(conn, !ret);
	if (ret)
		cell_error(&t->c, ret, lp_fail_msg(&mf));
	else
		model_cell(&t->c, &t->p, m->rate_gbps, v);
}

/* The model's session has one test: nothing to end. */
static int model_bye(struct lp_oob *oob)
{
	(void)oob;
	return 0;
}

static int model_serve(struct lp_rdma_dev *dev, struct lp_oob *oob,
		       const struct lp_rdma_server_opts *so, const struct lp_sweep_conn *pc)
{
	uint8_t body[LP_WIRE_MAX_BODY];
	struct model_conn *conn = NULL;
	struct lp_wbuf w;
	struct lp_rbuf r;
	uint16_t type = 0;
	size_t len = 0;
	uint64_t cid, expect;
	bool prepared = false;
	int metric, ret, status = 0;
	double s;

	(void)dev;
	(void)so;
	ret = oob->ops->recv(oob->ctx, &type, body, &len, oob->timeout_ms);
	if (ret)
		return ret;
	lp_rbuf_init(&r, body, len);
	metric = (int)lp_rbuf_u32(&r);
	s = lp_rbuf_f64(&r);
	cid = lp_rbuf_u64(&r);
	expect = lp_rbuf_u64(&r);
	if (type != MODEL_HELLO || r.err || !(s >= 0 && s < 86400) || metric < 0 ||
	    metric >= LP_SWEEP_MAX_METRICS)
		return -EPROTO;
	conn = model_session_conn(pc ? pc->mine : 0, metric, true, &prepared);
	if (!conn)
		return -ENOMEM;
	/* both sides' prepared connections are the ones the round's exchange announced */
	if ((cid && pc && pc->peer && cid != pc->peer) ||
	    (expect && prepared && expect != conn->id))
		status = -EPROTO;
	ret = status ? 0 : model_wait(oob, s);
	lp_wbuf_init(&w);
	lp_wbuf_u32(&w, (uint32_t)status);
	lp_wbuf_u64(&w, conn->id);
	lp_wbuf_u32(&w, prepared);
	if (!ret)
		ret = oob->ops->send(oob->ctx, MODEL_DONE, &w, oob->timeout_ms);
	model_conn_put(conn, !ret && !status);
	return ret ? ret : status;
}

const struct lp_sweep_xport_ops lp_sweep_xport_model = {
	.name = "model",
	.needs_dev = false,
	.client = model_client,
	.bye = model_bye,
	.serve = model_serve,
	.prepare = model_prepare,
	.reuse_stats = model_reuse_stats,
};
