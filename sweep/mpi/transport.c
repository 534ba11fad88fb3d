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
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/fail.h"
#include "common/lp.h"

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
		      const struct lp_rdma_server_opts *so)
{
	return lp_rdma_server_session(dev, oob, so, NULL);
}

const struct lp_sweep_xport_ops lp_sweep_xport_rdma = {
	.name = "rdma",
	.needs_dev = true,
	.client = rdma_client,
	.bye = lp_rdma_client_bye,
	.serve = rdma_serve,
};

/* ---- model: values drawn from sweep/model.h ---- */

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
	uint8_t body[LP_WIRE_MAX_BODY];
	struct lp_fail mf = { 0 }; /* the model's failure of this cell */
	struct lp_wbuf w;
	uint16_t type = 0;
	size_t len;
	int ret;

	(void)dev;
	test_fault(t->client, t->server, t->c.metric);
	lp_wbuf_init(&w);
	lp_wbuf_u32(&w, (uint32_t)t->c.metric);
	lp_wbuf_f64(&w, s);
	ret = oob->ops->send(oob->ctx, MODEL_HELLO, &w, oob->timeout_ms);
	if (!ret)
		ret = model_wait(oob, s);
	if (!ret)
		ret = oob->ops->recv(oob->ctx, &type, body, &len, oob->timeout_ms);
	if (!ret && type != MODEL_DONE)
		ret = -EPROTO;
	if (!ret)
		ret = lp_sweep_model_draw(m, &k, &v, &mf);
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
		       const struct lp_rdma_server_opts *so)
{
	uint8_t body[LP_WIRE_MAX_BODY];
	struct lp_wbuf w;
	struct lp_rbuf r;
	uint16_t type = 0;
	size_t len = 0;
	double s;
	int ret;

	(void)dev;
	(void)so;
	ret = oob->ops->recv(oob->ctx, &type, body, &len, oob->timeout_ms);
	if (ret)
		return ret;
	lp_rbuf_init(&r, body, len);
	lp_rbuf_u32(&r);
	s = lp_rbuf_f64(&r);
	if (type != MODEL_HELLO || r.err || !(s >= 0 && s < 86400))
		return -EPROTO;
	ret = model_wait(oob, s);
	lp_wbuf_init(&w);
	return ret ? ret : oob->ops->send(oob->ctx, MODEL_DONE, &w, oob->timeout_ms);
}

const struct lp_sweep_xport_ops lp_sweep_xport_model = {
	.name = "model",
	.needs_dev = false,
	.client = model_client,
	.bye = model_bye,
	.serve = model_serve,
};
