// SPDX-License-Identifier: MIT
/* Unit tests for lp-gpu's GPU-free parts: ceiling model, warnings, selections, pattern, sinks. */
#include "lp_test.h"

#include <jansson.h>

#include "lp_doc_check.h"

#include <errno.h>

#include "common/fail.h"
#include "common/pattern.h"
#include "common/units.h"
#include "gpu/doc.h"
#include "gpu/gpu.h"

static struct lp_gpu_topo *mk_topo(int n)
{
	struct lp_gpu_topo *t = calloc(1, sizeof(*t));

	t->n = n;
	for (int i = 0; i < n; i++) {
		struct lp_gpu_dev_info *g = &t->gpu[i];

		g->cuda_dev = i;
		snprintf(g->name, sizeof(g->name), "NVIDIA H200");
		snprintf(g->bus_id, sizeof(g->bus_id), "0000:%02x:00.0", 0x18 + i);
		g->numa_node = i / 4;
		g->mem_bytes = 150ull << 30;
		g->mem_clock_mhz = 3201;
		g->mem_bus_width = 6144;
		g->pcie = (struct lp_gpu_pcie){ 5, 16, 5, 16, "nvml" };
	}
	return t;
}

static void test_rates(void **state)
{
	(void)state;
	assert_true(lp_gpu_nvlink_link_gbs(6) == 25); /* NVLink 4.0 (H100/H200) */
	assert_true(lp_gpu_nvlink_link_gbs(7) == 50); /* NVLink 5.0 */
	assert_true(lp_gpu_nvlink_link_gbs(1) == 20);
	assert_true(lp_gpu_nvlink_link_gbs(0) == 0 && lp_gpu_nvlink_link_gbs(99) == 0);
	assert_string_equal(lp_gpu_nvlink_version_name(6), "4.0");
	assert_string_equal(lp_gpu_nvlink_version_name(5), "3.1");
	assert_string_equal(lp_gpu_nvlink_version_name(42), "?");
	/* H200: 3201 MHz x 2 x 6144 bit / 8 = 4917 GB/s */
	assert_true(fabs(lp_gpu_hbm_gbs(3201, 6144) - 4917.0) < 1);
	assert_true(lp_gpu_hbm_gbs(0, 6144) == 0);
	assert_true(lp_gpu_pcie_gen_gts(5) == 32 && lp_gpu_pcie_gen_gts(7) == 0);
}

static void test_model_single(void **state)
{
	struct lp_gpu_topo *t = mk_topo(1);

	(void)state;
	lp_gpu_topo_model(t);
	/* Gen5 x16 = 32 GT/s x 16 x 128/130 / 8 = 63.0 GB/s per direction */
	assert_true(fabs(t->gpu[0].pcie_gbs - 63.015) < 0.01);
	assert_true(fabs(lp_gpu_ceiling(t, lp_gpu_test_find("h2d_ce"), 0, 0, 0) - 63.015) < 0.01);
	assert_true(fabs(lp_gpu_ceiling(t, lp_gpu_test_find("d2h_sm"), 0, 0, 0) - 63.015) < 0.01);
	assert_true(fabs(lp_gpu_ceiling(t, lp_gpu_test_find("hd_bidir_ce"), 2, 0, 0) - 126.03) <
		    0.02);
	assert_true(fabs(lp_gpu_ceiling(t, lp_gpu_test_find("local_ce"), 0, 0, 0) - 4917.0) < 1);
	assert_true(lp_gpu_ceiling(t, lp_gpu_test_find("lat_host_sm"), 0, 0, 0) == 0);
	free(t);
}

static void test_model_pairs(void **state)
{
	struct lp_gpu_topo *t = mk_topo(4);
	const struct lp_gpu_test *w = lp_gpu_test_find("p2p_write_ce");

	(void)state;
	/* GPU0<->GPU1 direct 18 links; GPU2, GPU3 on NVSwitch with 18 and 16 up; GPU0->GPU2 PCIe P2P; 1->3 none. */
	for (int i = 0; i < 4; i++) {
		t->gpu[i].nvlink_links = 18;
		t->gpu[i].nvlink_up = i == 3 ? 16 : 18;
		t->gpu[i].nvlink_version = 6;
	}
	t->gpu[2].nvlink_to_switch = 18;
	t->gpu[3].nvlink_to_switch = 16;
	t->pair[0][1].nvlinks = t->pair[1][0].nvlinks = 18;
	t->pair[0][1].p2p_access = t->pair[1][0].p2p_access = true;
	t->pair[2][3].p2p_access = t->pair[3][2].p2p_access = true;
	t->pair[0][2].p2p_access = t->pair[2][0].p2p_access = true;
	lp_gpu_topo_model(t);
	assert_true(t->pair[0][1].ceiling_gbs == 450);
	assert_string_equal(t->pair[0][1].link, "NV18 (NVLink 4.0)");
	assert_true(t->pair[2][3].ceiling_gbs == 400);
	assert_non_null(strstr(t->pair[2][3].link, "NVSwitch"));
	assert_string_equal(t->pair[0][2].link, "PCIe");
	assert_true(fabs(t->pair[0][2].ceiling_gbs - 63.015) < 0.01);
	assert_string_equal(t->pair[1][3].link, "no P2P");
	assert_true(t->pair[1][3].ceiling_gbs == 0);
	/* row <- column: GPU1 <- GPU0 uses the 0->1 link */
	assert_true(lp_gpu_ceiling(t, w, 0, 1, 0) == 450);
	assert_true(lp_gpu_ceiling(t, w, 0, 1, 1) == 0);
	assert_true(lp_gpu_ceiling(t, lp_gpu_test_find("p2p_bidir_ce"), 2, 1, 0) == 900);
	/* one_to_all from GPU0: 450 (NVLink to 1) + 63 (PCIe to 2), capped by GPU0's 450 GB/s of NVLink */
	assert_true(lp_gpu_ceiling(t, lp_gpu_test_find("one_to_all_ce"), 0, 0, 0) == 450);
	/* all_to_one into GPU3: only GPU2, 400 */
	assert_true(lp_gpu_ceiling(t, lp_gpu_test_find("all_to_one_ce"), 0, 3, 0) == 400);
	free(t);
}

static void test_warnings(void **state)
{
	struct lp_gpu_topo *t = mk_topo(2);
	char w[LP_GPU_WARN_MAX][LP_GPU_WARN_LEN];
	int n;

	(void)state;
	lp_gpu_topo_model(t);
	assert_int_equal(lp_gpu_topo_warnings(t, w, LP_GPU_WARN_MAX), 0);
	t->gpu[1].pcie.cur_gen = 4;
	t->gpu[0].nvlink_links = t->gpu[1].nvlink_links = 18;
	t->gpu[0].nvlink_up = 18;
	t->gpu[1].nvlink_up = 17;
	t->pair[0][1].nvlinks = 18;
	t->pair[1][0].nvlinks = 17;
	n = lp_gpu_topo_warnings(t, w, LP_GPU_WARN_MAX);
	assert_int_equal(n, 2);
	assert_non_null(strstr(w[0], "Gen4 x16, below its max Gen5 x16"));
	assert_non_null(strstr(w[1], "NVLinks not all up"));
	/* all up but asymmetric */
	t->gpu[1].nvlink_up = 18;
	t->gpu[1].pcie.cur_gen = 5;
	n = lp_gpu_topo_warnings(t, w, LP_GPU_WARN_MAX);
	assert_int_equal(n, 1);
	assert_non_null(strstr(w[0], "asymmetric"));
	/* A lone GPU with idle NVLinks is not a pair problem. */
	t->n = 1;
	t->gpu[0].nvlink_up = 0;
	assert_int_equal(lp_gpu_topo_warnings(t, w, LP_GPU_WARN_MAX), 0);
	free(t);
}

static void test_select(void **state)
{
	const struct lp_gpu_test *sel[64];
	struct lp_fail f = { 0 };
	unsigned n;
	int devs[LP_GPU_MAX], nd;

	(void)state;
	assert_int_equal(lp_gpu_select_tests("all", sel, 64, &n, NULL), 0);
	assert_int_equal(n, lp_gpu_ntests);
	assert_int_equal(lp_gpu_select_tests("d2h_ce,h2d_ce,h2d_ce", sel, 64, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_string_equal(sel[0]->key, "h2d_ce"); /* table order */
	assert_int_equal(lp_gpu_select_tests("lat", sel, 64, &n, NULL), 0);
	assert_int_equal(n, 3);
	for (unsigned i = 0; i < n; i++)
		assert_true(sel[i]->latency);
	assert_int_equal(lp_gpu_select_tests("host", sel, 64, &n, NULL), 0);
	assert_int_equal(n, 6);
	assert_int_equal(lp_gpu_select_tests("p2p,local_ce", sel, 64, &n, NULL), 0);
	assert_int_equal(n, 9);
	assert_int_equal(lp_gpu_select_tests("nope", sel, 64, &n, &f), -EINVAL);
	assert_string_equal(lp_fail_msg(&f), "-t: unknown test 'nope' (lp-gpu --list shows them)");
	assert_int_equal(lp_gpu_select_tests("all", sel, 3, &n, NULL), -E2BIG);

	assert_int_equal(lp_gpu_parse_devs("0,2,3", devs, LP_GPU_MAX, &nd), 0);
	assert_int_equal(nd, 3);
	assert_int_equal(devs[2], 3);
	assert_int_equal(lp_gpu_parse_devs("0,0", devs, LP_GPU_MAX, &nd), -EINVAL);
	assert_int_equal(lp_gpu_parse_devs("1,x", devs, LP_GPU_MAX, &nd), -EINVAL);
	assert_int_equal(lp_gpu_parse_devs("-1", devs, LP_GPU_MAX, &nd), -EINVAL);
	assert_int_equal(lp_gpu_parse_devs("0,1,2", devs, 2, &nd), -E2BIG);
	/* The size sweep the issue names parses to powers of two 4K..1G. */
	{
		struct lp_sizes sz;

		assert_int_equal(lp_parse_sizes("4K:1G", &sz), 0);
		assert_int_equal(sz.n, 19);
		assert_true(sz.v[0] == 4096 && sz.v[18] == 1ull << 30);
	}
}

static void test_pattern(void **state)
{
	unsigned zero = 0, same_seed_neighbour = 0, shifted = 0;

	(void)state;
	for (uint64_t i = 0; i < 4096; i++) {
		zero += lp_pattern_byte(0, i) == 0;
		same_seed_neighbour += lp_pattern_byte(7, i) == lp_pattern_byte(8, i);
		shifted += lp_pattern_byte(7, i) == lp_pattern_byte(7, i + 8);
	}
	/* About 1/256 of bytes may coincide by chance; far from all. */
	assert_true(zero < 64);
	assert_true(same_seed_neighbour < 64);
	assert_true(shifted < 64);
	assert_true(lp_pattern_word(0, 0) != 0);
	assert_true(lp_pattern_byte(1, 3) == (uint8_t)(lp_pattern_word(1, 0) >> 24));
}

/* A two-result report: a measured h2d cell and a peer test waived on one GPU. */
static void mk_results(struct lp_gpu_topo *t, struct lp_gpu_result *r)
{
	struct lp_gpu_cell *c;

	lp_gpu_topo_model(t);
	assert_int_equal(lp_gpu_result_init(&r[0], lp_gpu_test_find("h2d_ce"), 1, 256 << 20), 0);
	c = lp_gpu_cell_at(&r[0], 0, 0, 0);
	*c = (struct lp_gpu_cell){ .status = LP_GPU_OK,
				   .med = 55.5,
				   .min = 55.1,
				   .max = 55.9,
				   .samples = 5,
				   .ceiling = lp_gpu_ceiling(t, r[0].test, 0, 0, 0),
				   .verified = true };
	lp_gpu_result_finish(&r[0]);
	assert_int_equal(lp_gpu_result_init(&r[1], lp_gpu_test_find("p2p_bidir_ce"), 1, 256 << 20),
			 0);
	for (unsigned s = 0; s < 3; s++) {
		c = lp_gpu_cell_at(&r[1], s, 0, 0);
		c->status = LP_GPU_WAIVED;
		snprintf(c->reason, sizeof(c->reason), "needs 2 or more GPUs (1 selected)");
	}
	lp_gpu_result_finish(&r[1]);
	assert_int_equal(r[0].status, LP_GPU_OK);
	assert_int_equal(r[1].status, LP_GPU_WAIVED);
	assert_string_equal(r[1].reason, "needs 2 or more GPUs (1 selected)");
}

static char *capture(void (*fn)(FILE *, const struct lp_gpu_report *),
		     const struct lp_gpu_report *rep)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, rep);
	fclose(f);
	return buf;
}

static void json_fn(FILE *f, const struct lp_gpu_report *rep)
{
	assert_int_equal(lp_gpu_report_json(f, rep), 0);
}

/* The document read back through its records: each result's series and cells as written. */
static void read_back(const char *json)
{
	struct lp_gpu_doc *d = calloc(1, sizeof(*d));
	struct lp_fail why = { 0 };
	json_t *o = lp_record_loadb(json, strlen(json), &why);

	assert_non_null(o);
	assert_int_equal(lp_record_read_json_more(&lp_gpu_doc_record, d, o, lp_gpu_doc_more,
						  lp_fresh(&why)),
			 0);
	assert_true(d->ngpus == 1 && d->nresults == 2 && d->has_params && !d->has_host);
	assert_true(d->results[0].nseries == 1 && d->results[0].series[0].ncells == 1);
	assert_string_equal(d->results[0].series[0].cells[0].from, "CPU");
	assert_true(d->results[0].series[0].cells[0].median == 55.5);
	assert_true(d->results[1].waived && d->results[1].nseries == 3);
	assert_true(isnan(d->results[1].series[2].cells[0].median));
	/* a cell without its destination is refused, the member named */
	json_object_del(
		json_array_get(
			json_object_get(
				json_array_get(
					json_object_get(
						json_array_get(json_object_get(o, "results"), 0),
						"series"),
					0),
				"cells"),
			0),
		"to");
	lp_gpu_doc_free(d);
	assert_int_equal(lp_record_read_json_more(&lp_gpu_doc_record, d, o, lp_gpu_doc_more,
						  lp_fresh(&why)),
			 -EINVAL);
	assert_string_equal(lp_fail_msg(&why), "results[0].series[0].cells[0].to: missing");
	lp_gpu_doc_free(d);
	json_decref(o);
	free(d);
}

static void test_sinks(void **state)
{
	struct lp_gpu_topo *t = mk_topo(1);
	struct lp_gpu_result r[2];
	struct lp_gpu_params p;
	struct lp_gpu_report rep;
	char *txt, *csv, *json;
	int lines = 0;

	(void)state;
	lp_gpu_params_default(&p);
	mk_results(t, r);
	rep = (struct lp_gpu_report){ .params = &p, .topo = t, .res = r, .nres = 2 };
	txt = capture(lp_gpu_report_text, &rep);
	assert_non_null(strstr(txt, "rows: from (source), columns: to (destination); CPU -> GPU"));
	assert_non_null(strstr(
		txt, "\nfrom \\ to         GPU0\n      CPU  55.50 (88%)\n")); /* source: row */
	lp_assert_text_rules(txt);
	assert_non_null(strstr(txt, "55.50 (88%)"));
	assert_non_null(strstr(txt, "WAIVED: needs 2 or more GPUs"));
	assert_non_null(strstr(txt, "Gen5 x16"));
	csv = capture(lp_gpu_report_csv, &rep);
	for (char *s = csv; *s; s++)
		lines += *s == '\n';
	assert_int_equal(lines, 1 + 1 + 3); /* header, h2d cell, 3 waived bidir series */
	assert_non_null(strstr(csv, "series,from,to,status"));
	assert_non_null(strstr(csv, "h2d_ce,ce,268435456,,CPU,GPU0,ok,GB/s,55.5,55.1,55.9,5,63.0"));
	assert_non_null(
		strstr(csv, "p2p_bidir_ce,ce,268435456,sum,GPU0,GPU0,waived,GB/s,,,,0,,,false,"));
	json = capture(json_fn, &rep);
	assert_true(lp_test_json_valid(json));
	assert_non_null(strstr(json, "\"pct_of_ceiling\": 88."));
	assert_non_null(strstr(json, "\"status\": \"waived\""));
	assert_non_null(strstr(json, "\"label\": \"to->from\""));
	assert_non_null(strstr(json, "\"from\": \"CPU\",\n              \"to\": \"GPU0\""));
	read_back(json);
	lp_assert_doc_valid("docs/schema/linkperf.gpu-2.json", json);
	lp_assert_schema_same(lp_gpu_report_schema, "docs/schema/linkperf.gpu-2.json");
	free(txt);
	free(csv);
	free(json);
	lp_gpu_result_free(&r[0]);
	lp_gpu_result_free(&r[1]);
	free(t);
}

/*
 * Every sink puts the data's source on rows: a peer write of 10 GB/s from GPU1 to GPU0 and of
 * 20 GB/s from GPU0 to GPU1 (stored "row <- column") reads GPU1's row, GPU0's column = 10 in the
 * table, and from/to in the JSON and CSV; a two-GPU document satisfies the schema too.
 */
static void test_source_on_rows(void **state)
{
	struct lp_gpu_topo *t = mk_topo(2);
	struct lp_gpu_result r;
	struct lp_gpu_params p;
	struct lp_gpu_report rep = { .params = &p, .topo = t, .res = &r, .nres = 1 };
	char *txt, *csv, *json;

	(void)state;
	lp_gpu_params_default(&p);
	lp_gpu_topo_model(t);
	assert_int_equal(lp_gpu_result_init(&r, lp_gpu_test_find("p2p_write_ce"), 2, 1 << 20), 0);
	for (unsigned to = 0; to < 2; to++) {
		for (unsigned from = 0; from < 2; from++) {
			struct lp_gpu_cell *c = lp_gpu_cell_at(&r, 0, to, from);

			if (to == from) {
				c->status = LP_GPU_WAIVED;
				snprintf(c->reason, sizeof(c->reason), "same GPU");
				continue;
			}
			*c = (struct lp_gpu_cell){ .status = LP_GPU_OK,
						   .samples = 3,
						   .verified = true };
			c->med = c->min = c->max = from == 1 ? 10 : 20;
		}
	}
	lp_gpu_result_finish(&r);
	txt = capture(lp_gpu_report_text, &rep);
	assert_non_null(strstr(txt, "\nfrom \\ to   GPU0   GPU1\n     GPU0    N/A  20.00\n"
				    "     GPU1  10.00    N/A\n"));
	lp_assert_text_rules(txt);
	csv = capture(lp_gpu_report_csv, &rep);
	assert_non_null(strstr(csv, "p2p_write_ce,ce,1048576,,GPU1,GPU0,ok,GB/s,10,"));
	json = capture(json_fn, &rep);
	assert_non_null(strstr(json,
			       "\"from\": \"GPU1\",\n              \"to\": \"GPU0\",\n"
			       "              \"status\": \"ok\",\n              \"median\": 10,"));
	lp_assert_doc_valid("docs/schema/linkperf.gpu-2.json", json);
	free(txt);
	free(csv);
	free(json);
	lp_gpu_result_free(&r);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rates),	    cmocka_unit_test(test_model_single),
		cmocka_unit_test(test_model_pairs), cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_select),	    cmocka_unit_test(test_pattern),
		cmocka_unit_test(test_sinks),	    cmocka_unit_test(test_source_on_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
