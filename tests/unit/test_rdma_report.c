// SPDX-License-Identifier: MIT
/*
 * lp-rdma's outputs from made-up results (no device): the table follows the number rules
 * (Gb/s, "64 KiB", no exponent, no nan), the JSON document of every role satisfies its
 * published schema (docs/schema/linkperf.rdma-2.json) with the keys lp-sweep's document uses
 * (iters, qps, mtu), a document with a drifted key does not (the fault injected), and the
 * published schema is what the records give now.
 */
#include "lp_test.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>

#include "lp_doc_check.h"
#include "common/units.h"
#include "rdma/report.h"

#define SCHEMA "docs/schema/linkperf.rdma-2.json"
#define NRUNS  5

static const struct lp_rdma_devinfo dev = {
	.name = "mlx5_0",
	.port = 1,
	.link_layer = "Ethernet",
	.transport = "RoCE",
	.gid_index = 3,
	.gid = "0000:0000:0000:0000:0000:ffff:0a09:0001",
	.gid_type = "RoCEv2",
	.active_mtu = 4096,
	.speed = "HDR",
	.width = 4,
	.rate_gbps = 200,
	.fw = "22.39.1002",
	.netdev = "eth0",
	.numa_node = 0,
	.node_guid = "b8ce:f603:0012:3456",
};

struct runs {
	struct lp_rdma_params p[NRUNS];
	struct lp_rdma_result r[NRUNS];
	struct lp_ival ival[3];
	struct lp_rdma_affinity aff;
	struct lp_rdma_report rep;
};

static void bw_of(struct lp_rdma_bw *b, double gbytes_s, double pct)
{
	*b = (struct lp_rdma_bw){ .bytes = 65536.0 * 5000,
				  .msgs = 5000,
				  .ns = 1e9 * 65536.0 * 5000 / (gbytes_s * 1e9),
				  .gbytes_s = gbytes_s,
				  .gbits_s = 8 * gbytes_s,
				  .mmsg_s = gbytes_s * 1e3 / 65536,
				  .pct_link = pct };
}

/*
 * write_lat polled by a GPU (its notification not measured: NaN), write_bw with intervals
 * and a port rate nobody knows (%link NaN), a bidirectional send_bw at 28,080 Gb/s (an
 * exponent with %g), a verified read_lat and a failed write_bw.
 */
static void runs_make(struct runs *s)
{
	static const enum lp_rdma_test tests[NRUNS] = { LP_RDMA_WRITE_LAT, LP_RDMA_WRITE_BW,
							LP_RDMA_SEND_BW, LP_RDMA_READ_LAT,
							LP_RDMA_WRITE_BW };
	static const struct lp_summary lat = { 1000, 1.9, 9.5, 2.1, 0.12, 2.0,
					       2.3,  3.1, 5.2, 8.8, true };

	memset(s, 0, sizeof(*s));
	for (int i = 0; i < NRUNS; i++) {
		struct lp_rdma_params *p = &s->p[i];
		struct lp_rdma_result *r = &s->r[i];

		lp_rdma_params_default(p, tests[i]);
		p->size = lp_rdma_test_is_lat(tests[i]) ? 2 : 65536;
		r->test = tests[i];
		r->size = p->size;
		r->iters = p->iters;
		r->mtu = 4096;
		r->local_dev = r->remote_dev = dev;
		snprintf(r->local_mem, sizeof(r->local_mem), "%s", i ? "host" : "cuda:0 (dmabuf)");
		snprintf(r->remote_mem, sizeof(r->remote_mem), "host");
		r->scatter_to_cqe = "provider default";
		r->rate_gbps = 200;
		r->lat_us = lat;
		r->rtt_us = lat;
		r->lat_halved = tests[i] != LP_RDMA_READ_LAT;
		snprintf(r->lat_method, sizeof(r->lat_method), "client cpu_poll, server cpu_poll");
	}
	s->r[0].gpu_poll_sides = 1;
	s->r[0].gpu_notify_us = NAN;
	s->r[0].gpu_rdma_order = "owner";
	bw_of(&s->r[1].local, 23.1, NAN);
	s->p[1].interval_s = 1;
	for (int k = 0; k < 3; k++)
		s->ival[k] = (struct lp_ival){ k, 1, 1000, false, 23 + k * 0.01, 0.35, NAN, NAN };
	s->r[1].ival = s->ival;
	s->r[1].nival = 3;
	s->r[1].ival_sum = (struct lp_ival_summary){ 3, 3, 0, 23, 23.02, 0, 2, 0.9991 };
	s->p[2].bidir = true;
	bw_of(&s->r[2].local, 3510, 99.5);
	bw_of(&s->r[2].remote, 3510, 99.5);
	s->r[2].sum_gbytes_s = 7020;
	s->r[2].sum_gbits_s = 56160;
	s->p[3].verify = true;
	s->r[3].verified =
		(struct lp_rdma_verified){ true, 1000, 2000, 1000, 128, "client+server" };
	s->r[4].status = -ETIMEDOUT;
	snprintf(s->r[4].error, sizeof(s->r[4].error), "no completion within 10000 ms");
	s->aff = (struct lp_rdma_affinity){ .known = true,
					    .numa_bound = true,
					    .gpu_bdf = "",
					    .nic = "mlx5_0",
					    .dist = "",
					    .numa = 0 };
	s->rep = (struct lp_rdma_report){ .role = "client",
					  .server = "node1",
					  .port = 18555,
					  .tclass = 106,
					  .qp_timeout = LP_RDMA_QP_TIMEOUT_DEFAULT,
					  .local_dev = &dev,
					  .aff = &s->aff,
					  .params = s->p,
					  .res = s->r,
					  .n = NRUNS,
					  .planned = NRUNS,
					  .failed = 1 };
}

static int table_emit(FILE *f, const void *arg)
{
	const struct runs *s = arg;
	struct lp_rdma_table t = { .f = f };

	lp_rdma_report_device(f, &dev, "client");
	for (int i = 0; i < NRUNS; i++)
		lp_rdma_report_row(&t, &s->p[i], &s->r[i]);
	for (int k = 0; k < 3; k++)
		lp_rdma_report_interval(f, &s->p[1], &s->ival[k]);
	lp_rdma_report_footer(f, s->p, s->r, NRUNS);
	return 0;
}

static int json_emit(FILE *f, const void *arg)
{
	return lp_rdma_report_json_write(f, arg, NULL);
}

/* The table: network rates in Gb/s, sizes "64 KiB", no exponent, an em dash for what is unknown. */
static void test_table_rules(void **state)
{
	struct runs *s = malloc(sizeof(*s));
	char *txt;

	(void)state;
	runs_make(s);
	txt = lp_capture(table_emit, s);
	lp_assert_text_rules(txt);
	assert_non_null(strstr(txt, "Gb/s"));
	assert_null(strstr(txt, "GB/s"));
	assert_non_null(strstr(txt, " 64 KiB "));
	assert_non_null(strstr(txt, "56160")); /* the bidirectional sum, Gb/s, whole */
	assert_non_null(strstr(txt, LP_NA));   /* %link of a port rate nobody knows */
	assert_non_null(strstr(txt, "FAILED: no completion within 10000 ms"));
	free(txt);
	/* the rules catch what they are for (the faults injected) */
	{
		char why[256];

		assert_int_equal(lp_text_rules("write_bw  2.808e+04 Gb/s", why, sizeof(why)), -1);
		assert_int_equal(lp_text_rules("Jain nan", why, sizeof(why)), -1);
		assert_int_equal(lp_text_rules("write_bw 64KiB", why, sizeof(why)), -1);
		assert_int_equal(lp_text_rules("InfiniBand 1e9 B/s 64 KiB", why, sizeof(why)), 0);
	}
	free(s);
}

/* doc read back through its records: 0, or -EINVAL with the member's path in why. */
static int read_back(const char *doc, struct lp_rdma_doc *d, char *why, size_t len)
{
	struct lp_fail f = { 0 };
	json_t *o = lp_record_loadb(doc, strlen(doc), &f);
	int rc;

	assert_non_null(o);
	memset(d, 0, sizeof(*d));
	rc = lp_record_read_json_more(&lp_rdma_doc_record, d, o, lp_rdma_doc_more, &f);
	snprintf(why, len, "%s", lp_fail_msg(&f));
	json_decref(o);
	return rc;
}

/*
 * The client document satisfies the schema, with lp-sweep's keys for the shared concepts, and
 * reads back through the same records (each run's parts as they were written).
 */
static void test_client_doc(void **state)
{
	struct runs *s = malloc(sizeof(*s));
	struct lp_rdma_doc *d = malloc(sizeof(*d));
	char *doc, *bad, why[256];

	(void)state;
	runs_make(s);
	doc = lp_capture(json_emit, &s->rep);
	assert_non_null(strstr(doc, "\"schema\": \"" LP_RDMA_DOC_SCHEMA "\""));
	assert_non_null(strstr(doc, "\"iters\": "));
	assert_non_null(strstr(doc, "\"qps\": 1"));
	assert_non_null(strstr(doc, "\"mtu\": 4096"));
	assert_non_null(strstr(doc, "\"tclass\": 106,\n  \"sl\": 0")); /* -T, -S recorded */
	assert_null(strstr(doc, "\"iterations\""));
	assert_null(strstr(doc, "active_mtu"));
	assert_null(strstr(doc, "num_qps"));
	assert_non_null(strstr(doc, "\"client_to_server\""));
	assert_non_null(strstr(doc, "\"notification_us\": null"));
	assert_non_null(
		strstr(doc, "\"verified\": {\n        \"ok\": true,\n        \"messages\": 1000,"));
	assert_non_null(strstr(doc, "\"checked_by\": \"client+server\",\n        \"seed\": "));
	assert_int_equal(read_back(doc, d, why, sizeof(why)), 0);
	assert_true(d->client && d->tclass == 106 && d->nresults == NRUNS && d->has_affinity);
	assert_true(d->results[0].is_lat && d->results[0].has_gpu_poll &&
		    isnan(d->results[0].gpu_poll.notification_us));
	assert_true(d->results[1].one_way && d->results[1].has_ival && d->results[1].nseries == 3);
	assert_true(d->results[2].both_ways && d->results[2].sum.gbits_per_s == 56160);
	assert_true(d->results[3].has_verified && d->results[3].verified.v.ring == 128);
	assert_true(d->results[4].failed && d->results[4].head.err_no == ETIMEDOUT);
	assert_true(!d->results[4].is_bw && !d->results[0].has_ctr_client);
	lp_rdma_doc_free(d);
	lp_assert_doc_valid(SCHEMA, doc);
	/* a key that drifts is caught: the schema allows no other, the reader neither */
	bad = strdup(doc);
	memcpy(strstr(bad, "\"timed_iters\""), "\"timed_iterx\"", 13);
	assert_int_equal(read_back(bad, d, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "results[0]: unknown member \"timed_iterx\"");
	lp_rdma_doc_free(d);
	assert_int_equal(lp_doc_validate(SCHEMA, bad), 1);
	free(bad);
	free(doc);
	free(d);
	free(s);
}

/* --check and --counters documents: the same schema, their reports under "check" and "snapshot". */
static void test_other_roles(void **state)
{
	struct lp_check_report chk = { 0 };
	struct lp_counters *snap = calloc(1, sizeof(*snap));
	struct lp_rdma_report rep = { .role = "check", .check = &chk };
	char *doc;

	(void)state;
	doc = lp_capture(json_emit, &rep);
	assert_non_null(strstr(doc, "\"check\": {"));
	lp_assert_doc_valid(SCHEMA, doc);
	free(doc);
	snprintf(snap->dev, sizeof(snap->dev), "rxe0");
	snap->port = 1;
	rep = (struct lp_rdma_report){ .role = "counters", .counters = snap };
	doc = lp_capture(json_emit, &rep);
	assert_non_null(strstr(doc, "\"snapshot\": {"));
	lp_assert_doc_valid(SCHEMA, doc);
	free(doc);
	free(snap);
}

static void test_schema_published(void **state)
{
	(void)state;
	lp_assert_schema_same(lp_rdma_report_schema, SCHEMA);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_rules),
		cmocka_unit_test(test_client_doc),
		cmocka_unit_test(test_other_roles),
		cmocka_unit_test(test_schema_published),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
