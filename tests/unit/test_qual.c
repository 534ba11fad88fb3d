// SPDX-License-Identifier: MIT
/*
 * Unit tests for qualification (qual/): the profiles in profiles/ picked from fixture devices
 * (tests/fixtures/check sysfs trees, GPUs as lp-gpu reports them), PASS/FAIL with margins just
 * either side of a limit, floors over profiles, bad floors and bad profiles, baselines on real
 * runs (a throttled sweep against a healthy one; two healthy lp-gpu runs on an H200) and the
 * Prometheus textfile read back by python3-prometheus-client's parser.
 */
#include "lp_test.h"
#include "lp_fixture.h"

#include "common/lp.h"
#include "qual/qual.h"

static char root[PATH_MAX];

/* A ConnectX-7 InfiniBand port at 4x NDR, as verbs reports it. */
static const struct lp_qual_hw ndr_port = { .rdma_dev = "mlx5_0",
					    .link_layer = "InfiniBand",
					    .speed = "NDR",
					    .width = 4,
					    .rate_gbps = 400 };

static const char *rootpath(const char *rel)
{
	static char buf[4][PATH_MAX + 64];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", root, rel);
	return buf[k];
}

static int setup(void **state)
{
	const char *top = getenv("LP_ROOT");

	(void)state;
	snprintf(root, sizeof(root), "%s", top ? top : ".");
	setenv("LP_PROFILE_DIR", rootpath("profiles"), 1);
	lp_log_set_level(LP_LOG_QUIET);
	return 0;
}

/* --expect auto on the port of a sysfs fixture: the profile names chosen. */
static void auto_port(const char *fixture, const char *dev, const char *want)
{
	char dir[] = "/tmp/lp-qual-XXXXXX", buf[128];
	struct lp_qual_opts o = { .expect = "auto" };
	struct lp_qual_hw hw;
	struct lp_qual q;

	assert_non_null(mkdtemp(dir));
	lp_fx_expand(dir, fixture);
	assert_int_equal(lp_qual_hw_from_sysfs(dir, dev, 1, &hw, buf, sizeof(buf)), 0);
	assert_int_equal(lp_qual_setup(&q, "lp-rdma", &o, &hw), 0);
	assert_string_equal(q.profiles, want);
	lp_qual_free(&q);
	lp_fx_rmtree(dir);
}

static void test_auto_ports(void **state)
{
	(void)state;
	auto_port("check/cx7-ib.txt", "mlx5_0", "ib-ndr");	  /* 400 Gb/sec (4X NDR) */
	auto_port("check/roce-cx6dx.txt", "mlx5_0", "roce-100g"); /* Ethernet, 100 Gb/sec */
}

/* A port that trained down (NDR at 2x) matches no profile: it is not judged as HDR. */
static void test_auto_downtrained(void **state)
{
	struct lp_qual_hw hw = ndr_port;
	struct lp_qual_opts o = { .expect = "auto" };
	struct lp_qual q;

	(void)state;
	hw.width = 2; /* trained down */
	hw.rate_gbps = 200;
	assert_int_equal(lp_qual_setup(&q, "lp-rdma", &o, &hw), 0);
	assert_string_equal(q.profiles, "");
	assert_non_null(strstr(q.note, "no profile"));
	lp_qual_free(&q);
}

static void test_auto_gpus(void **state)
{
	static const struct {
		struct lp_qual_hw hw;
		const char *want;
	} cases[] = {
		{ { .gpu_name = "NVIDIA H100 80GB HBM3",
		    .nvlinks = 18,
		    .pcie_gen = 5,
		    .pcie_width = 16 },
		  "hbm-device-local,nvlink-h100,pcie-gen5-x16" },
		/* the H200 of docs/data/2026-12-01-h200 (a VM: no NVLink visible) */
		{ { .gpu_name = "NVIDIA H200", .nvlinks = 0, .pcie_gen = 5, .pcie_width = 16 },
		  "hbm-device-local,pcie-gen5-x16" },
		{ { .gpu_name = "NVIDIA A100-SXM4-80GB",
		    .nvlinks = 12,
		    .pcie_gen = 4,
		    .pcie_width = 16 },
		  "hbm-device-local,nvlink-a100,pcie-gen4-x16" },
		{ { .gpu_name = "NVIDIA B200", .nvlinks = 18, .pcie_gen = 5, .pcie_width = 8 },
		  "hbm-device-local,nvlink-b200" }, /* a GPU at x8 gets no PCIe profile */
	};
	struct lp_qual_opts o = { .expect = "auto" };
	struct lp_qual q;

	(void)state;
	for (size_t i = 0; i < LP_ARRAY_SIZE(cases); i++) {
		assert_int_equal(lp_qual_setup(&q, "lp-gpu", &o, &cases[i].hw), 0);
		if (strcmp(q.profiles, cases[i].want))
			fail_msg("%s: profiles %s, want %s", cases[i].hw.gpu_name, q.profiles,
				 cases[i].want);
		lp_qual_free(&q);
	}
}

static struct lp_qual_cell cell(const char *test, uint64_t size, enum lp_qual_kind kind, double v,
				double ceiling)
{
	struct lp_qual_cell c;

	lp_qual_cell_set(&c, test, size, "", kind, v, 0, ceiling);
	return c;
}

/* The cells' verdicts after judging, as a string of P/F/- */
static void judge_expect(struct lp_qual *q, const struct lp_qual_cell *c, size_t n,
			 const char *want)
{
	char got[32] = "";

	assert_int_equal(lp_qual_judge(q, c, n), 0);
	for (size_t i = 0; i < n; i++)
		got[i] = "-PF"[q->cells[i].verdict];
	if (strcmp(got, want))
		fail_msg("verdicts %s, want %s", got, want);
}

/* NDR: bandwidth >= max(90 % of 50 GB/s, 45 GB/s); latency <= 2.5 us (write) / 4.5 (read). */
static void test_judge_ndr(void **state)
{
	struct lp_qual_hw hw = ndr_port;
	struct lp_qual_opts o = { .expect = "auto" };
	const struct lp_qual_cell c[] = {
		cell("write_bw", 65536, LP_QUAL_BW, 45.2, 50), /* just above 45 */
		cell("write_bw", 65536, LP_QUAL_BW, 44.8, 50), /* just below */
		cell("write_bw", 4096, LP_QUAL_BW, 10, 50),    /* below the profile's sizes */
		cell("write_lat", 8, LP_QUAL_LAT, 2.4, 0),
		cell("write_lat", 8, LP_QUAL_LAT, 2.6, 0),
		cell("read_lat", 8, LP_QUAL_LAT, 2.6, 0),      /* read's limit is 4.5 */
		cell("read_bw", 1 << 20, LP_QUAL_BW, NAN, 50), /* failed cell */
		cell("write_bw", 65536, LP_QUAL_BW, 47, 60),   /* a faster port: 90 % of 60 = 54 */
	};
	struct lp_qual q;

	(void)state;
	assert_int_equal(lp_qual_setup(&q, "lp-rdma", &o, &hw), 0);
	judge_expect(&q, c, LP_ARRAY_SIZE(c), "PF-PFPFF");
	assert_float_equal(q.cells[0].limit, 45, 1e-9);
	assert_float_equal(q.cells[0].margin, 0.2 / 45, 1e-9);
	assert_float_equal(q.cells[4].margin, -0.1 / 2.5, 1e-9);
	assert_float_equal(q.cells[7].limit, 54, 1e-9);
	assert_non_null(strstr(q.cells[0].source, "profile ib-ndr: "));
	assert_true(lp_qual_failed(&q));
	assert_int_equal(q.npass, 3);
	assert_int_equal(q.nfail, 4);
	lp_qual_free(&q);
}

/* Floors beat profiles; a per-test floor beats the global one; Gb/s unless GB/s is written. */
static void test_floors(void **state)
{
	struct lp_qual_hw hw = ndr_port;
	struct lp_qual_opts o = { .expect = "auto",
				  .min_gbps = "380,read_bw=40GB/s",
				  .max_lat_us = "send_lat=1.5" };
	const struct lp_qual_cell c[] = {
		cell("write_bw", 65536, LP_QUAL_BW, 47, 50), /* < 380 Gb/s = 47.5 GB/s */
		cell("read_bw", 65536, LP_QUAL_BW, 41, 50),  /* >= 40 GB/s */
		cell("send_bw", 64, LP_QUAL_BW, 48, 50),   /* the global floor has no size range */
		cell("send_lat", 8, LP_QUAL_LAT, 1.6, 0),  /* > 1.5 */
		cell("write_lat", 8, LP_QUAL_LAT, 2.0, 0), /* the profile's 2.5 */
	};
	struct lp_qual q;

	(void)state;
	assert_int_equal(lp_qual_setup(&q, "lp-rdma", &o, &hw), 0);
	judge_expect(&q, c, LP_ARRAY_SIZE(c), "FPPFP");
	assert_float_equal(q.cells[0].limit, 47.5, 1e-9);
	assert_string_equal(q.cells[1].source, "--min-gbps read_bw=40GB/s");
	assert_string_equal(q.cells[0].source, "--min-gbps 380");
	lp_qual_free(&q);
}

/* Soft-RoCE: auto says there is no meaningful profile; explicit floors still judge. */
static void test_softroce(void **state)
{
	struct lp_qual_hw hw = { .rdma_dev = "rxe0", .link_layer = "Ethernet", .rate_gbps = 2.5 };
	struct lp_qual_opts o = { .expect = "auto", .max_lat_us = "1000" };
	const struct lp_qual_cell c[] = {
		cell("write_lat", 8, LP_QUAL_LAT, 500, 0),
		cell("write_bw", 65536, LP_QUAL_BW, 0.01, 0.3),
	};
	struct lp_qual q;

	(void)state;
	assert_int_equal(lp_qual_setup(&q, "lp-rdma", &o, &hw), 0);
	assert_non_null(strstr(q.note, "Soft-RoCE"));
	assert_string_equal(q.profiles, "");
	judge_expect(&q, c, LP_ARRAY_SIZE(c), "P-");
	assert_false(lp_qual_failed(&q));
	lp_qual_free(&q);
}

static void test_bad_floors(void **state)
{
	static const char *const bad_bw[] = { "abc", "write_bw=", "=3",	   "3 GB/s",	   "-1",
					      "nan", "3GB",	  "3TB/s", "write_bw=3,x", "" };
	static const char *const bad_lat[] = { "0", "-2", "inf", "read_lat=abc", "1us" };
	struct lp_qual q;

	(void)state;
	for (size_t i = 0; i < LP_ARRAY_SIZE(bad_bw); i++) {
		struct lp_qual_opts o = { .min_gbps = bad_bw[i] };

		if (lp_qual_setup(&q, "t", &o, NULL) != -EINVAL)
			fail_msg("--min-gbps '%s' accepted", bad_bw[i]);
		lp_qual_free(&q);
	}
	for (size_t i = 0; i < LP_ARRAY_SIZE(bad_lat); i++) {
		struct lp_qual_opts o = { .max_lat_us = bad_lat[i] };

		if (lp_qual_setup(&q, "t", &o, NULL) != -EINVAL)
			fail_msg("--max-lat-us '%s' accepted", bad_lat[i]);
		lp_qual_free(&q);
	}
}

/* Every profile in profiles/ loads on its own (--expect FILE); broken copies are refused. */
static void test_profiles_valid_and_broken(void **state)
{
	static const char *const names[] = { "ib-hdr",		"ib-ndr",	 "ib-xdr",
					     "roce-100g",	"roce-200g",	 "roce-400g",
					     "pcie-gen4-x16",	"pcie-gen5-x16", "nvlink-a100",
					     "nvlink-h100",	"nvlink-h200",	 "nvlink-b200",
					     "hbm-device-local" };
	static const char *const broken[] = {
		"not json",
		"{\"schema\": \"linkperf.profile/2\", \"profile\": \"x\", \"match\": {}, \"sources\": {}, \"expect\": []}",
		"{\"schema\": \"linkperf.profile/1\", \"profile\": \"x\", \"match\": {\"colour\": 1}, \"sources\": {}, \"expect\": []}",
		"{\"schema\": \"linkperf.profile/1\", \"profile\": \"x\", \"match\": {}, \"sources\": {}, \"expect\": [{\"tests\": [\"write_bw\"], \"min_gbytes_s\": 1, \"source\": \"nowhere\"}]}",
		"{\"schema\": \"linkperf.profile/1\", \"profile\": \"x\", \"match\": {}, \"sources\": {\"s\": \"t\"}, \"expect\": [{\"tests\": [\"write_bw\"], \"min_fraction\": 1.5, \"source\": \"s\"}]}",
		"{\"schema\": \"linkperf.profile/1\", \"profile\": \"x\", \"match\": {}, \"sources\": {\"s\": \"t\"}, \"expect\": [{\"tests\": [\"write_bw\"], \"min_gbytes_s\": 1, \"max_lat_us\": 2, \"source\": \"s\"}]}",
		"{\"schema\": \"linkperf.profile/1\", \"profile\": \"x\", \"match\": {}, \"sources\": {\"s\": \"t\"}, \"expect\": [{\"tests\": [], \"min_gbytes_s\": 1, \"source\": \"s\"}]}",
		"{\"schema\": \"linkperf.profile/1\", \"profile\": \"x\", \"match\": {}, \"sources\": {\"s\": \"t\"}, \"expect\": [{\"tests\": [\"write_bw\"], \"min_gbytes_s\": 1, \"source\": \"s\", \"typo\": 1}]}",
	};
	char path[PATH_MAX + 32];
	struct lp_qual q;

	(void)state;
	for (size_t i = 0; i < LP_ARRAY_SIZE(names); i++) {
		struct lp_qual_opts o = { .expect = path };

		snprintf(path, sizeof(path), "%s/%s.json", getenv("LP_PROFILE_DIR"), names[i]);
		assert_int_equal(lp_qual_setup(&q, "t", &o, NULL), 0);
		assert_string_equal(q.profiles, names[i]);
		assert_true(q.nrules > 0);
		lp_qual_free(&q);
	}
	for (size_t i = 0; i < LP_ARRAY_SIZE(broken); i++) {
		char tmp[] = "/tmp/lp-profile-XXXXXX";
		int fd = mkstemp(tmp);
		struct lp_qual_opts o = { .expect = tmp };

		assert_true(fd >= 0);
		assert_int_equal(write(fd, broken[i], strlen(broken[i])),
				 (ssize_t)strlen(broken[i]));
		close(fd);
		if (lp_qual_setup(&q, "t", &o, NULL) != -EINVAL)
			fail_msg("broken profile %zu accepted", i);
		lp_qual_free(&q);
		unlink(tmp);
	}
	{
		struct lp_qual_opts o = { .expect = "/nonexistent/profile.json" };

		assert_int_equal(lp_qual_setup(&q, "t", &o, NULL), -EINVAL);
		lp_qual_free(&q);
	}
}

/* Judge the cells of RUN against BASE; returns the regressions as "pair" strings joined by ' '. */
static void compare_runs(const char *run, const char *base, double pct, char *out, size_t len,
			 struct lp_qual *q)
{
	struct lp_qual_opts o = { .baseline = base, .regress_pct = pct };
	struct lp_qual_cell *cells;
	size_t n;

	assert_int_equal(lp_qual_doc_cells(run, &cells, &n, NULL), 0);
	assert_int_equal(lp_qual_setup(q, "t", &o, NULL), 0);
	assert_int_equal(lp_qual_judge(q, cells, n), 0);
	out[0] = '\0';
	for (size_t i = 0; i < q->ncells; i++)
		if (q->cells[i].change == LP_QUAL_REGRESSION)
			snprintf(out + strlen(out), len - strlen(out), "%s%s %s", out[0] ? " " : "",
				 q->cells[i].test, q->cells[i].pair);
	free(cells);
}

/* The 4-guest fabric with lpnode2's link throttled against the healthy run: exactly lpnode2's
 * three client cells regress; latency noise on Soft-RoCE (up to 8x) is called noise, not
 * regression. The healthy run against itself: nothing. */
static void test_baseline_sweep(void **state)
{
	const char *healthy = rootpath("tests/sweep/data/fabric4-healthy.json");
	char got[512];
	struct lp_qual q;

	(void)state;
	compare_runs(rootpath("tests/sweep/data/fabric4-throttle.json"), healthy, 10, got,
		     sizeof(got), &q);
	assert_string_equal(
		got, "write_bw lpnode2>lpnode0 write_bw lpnode2>lpnode1 write_bw lpnode2>lpnode3");
	assert_int_equal(q.nregress, 3);
	assert_int_equal(q.nmissing, 0);
	assert_true(lp_qual_failed(&q));
	lp_qual_free(&q);
	compare_runs(healthy, healthy, 10, got, sizeof(got), &q);
	assert_string_equal(got, "");
	assert_false(lp_qual_failed(&q));
	lp_qual_free(&q);
}

/*
 * A baseline of other nodes (the healthy run's pairs renamed, as another partition would be):
 * no cell matches, so none is compared and the judgement fails with the reason, never a pass;
 * the two runs compare as distributions (the same values: medians equal). Half matching is
 * enough: the run against the first half of its own cells is compared.
 */
static void test_baseline_other_nodes(void **state)
{
	const char *healthy = rootpath("tests/sweep/data/fabric4-healthy.json");
	struct lp_qual_opts o = { .baseline = healthy };
	struct lp_qual_cell *cells;
	struct lp_qual q;
	size_t n;

	(void)state;
	assert_int_equal(lp_qual_doc_cells(healthy, &cells, &n, NULL), 0);
	assert_int_equal(n, 24);
	for (size_t i = 0; i < n; i++)
		cells[i].pair[2] = 'X'; /* "lpnode0>lpnode1" -> "lpXode0>lpnode1" */
	assert_int_equal(lp_qual_setup(&q, "lp-sweep", &o, NULL), 0);
	assert_int_equal(lp_qual_judge(&q, cells, n), -EINVAL);
	assert_false(q.base_compared);
	assert_int_equal(q.nmatched, 0);
	assert_non_null(strstr(q.base_why, "matches 0 of this run's 24 cells"));
	assert_true(lp_qual_failed(&q));
	assert_string_equal(q.verdict, "FAIL");
	assert_int_equal(q.ndist, 2);
	for (size_t k = 0; k < q.ndist; k++)
		assert_true(q.dist[k].n == 12 && q.dist[k].base_n == 12 &&
			    q.dist[k].median == q.dist[k].base_median && q.dist[k].delta == 0 &&
			    q.dist[k].p5 <= q.dist[k].median && q.dist[k].median <= q.dist[k].p95);
	lp_qual_free(&q);
	for (size_t i = 0; i < n / 2; i++)
		cells[i].pair[2] = 'n'; /* half of them back */
	assert_int_equal(lp_qual_setup(&q, "lp-sweep", &o, NULL), 0);
	assert_int_equal(lp_qual_judge(&q, cells, n), 0);
	assert_true(q.base_compared && q.nmatched == 12 && q.nregress == 0);
	lp_qual_free(&q);
	free(cells);
}

/* Two healthy lp-gpu runs on one H200: no regression; a cell scaled down 20 % (the fault
 * injected into the second run's cells) is one; a cell left out is listed as missing. */
static void test_baseline_gpu(void **state)
{
	const char *a = rootpath("docs/data/2026-12-01-h200/lp-gpu-1.json");
	const char *b = rootpath("docs/data/2026-12-01-h200/lp-gpu-2.json");
	struct lp_qual_opts o = { .baseline = a };
	struct lp_qual_cell *cells;
	char got[512];
	struct lp_qual q;
	size_t n;

	(void)state;
	compare_runs(b, a, 10, got, sizeof(got), &q);
	assert_string_equal(got, "");
	assert_int_equal(q.ncells, 18);
	lp_qual_free(&q);

	assert_int_equal(lp_qual_doc_cells(b, &cells, &n, NULL), 0);
	assert_string_equal(cells[0].test, "h2d_ce");
	assert_string_equal(cells[0].pair, "GPU0<-CPU");
	cells[0].value *= 0.8;
	assert_int_equal(lp_qual_setup(&q, "lp-gpu", &o, NULL), 0);
	assert_int_equal(lp_qual_judge(&q, cells, n - 1), 0);
	assert_int_equal(q.cells[0].change, LP_QUAL_REGRESSION);
	assert_int_equal(q.nregress, 1);
	assert_int_equal(q.nmissing, 1);
	assert_string_equal(q.missing[0].test, "local_sm");
	assert_true(q.missing[0].size == 1073741824);
	assert_string_equal(q.missing[0].pair, "GPU0<-local");
	lp_qual_free(&q);
	free(cells);
}

static void test_bad_baseline(void **state)
{
	const char *bad[] = { rootpath("profiles/ib-ndr.json"), "/nonexistent.json",
			      rootpath("tests/unit/test_qual.c") };
	struct lp_qual_cell *cells;
	size_t n;

	(void)state;
	for (size_t i = 0; i < LP_ARRAY_SIZE(bad); i++) {
		struct lp_qual_opts o = { .baseline = bad[i] };
		struct lp_qual q;

		struct lp_fail f = { 0 };

		assert_int_equal(lp_qual_doc_cells(bad[i], &cells, &n, &f), -EINVAL);
		assert_non_null(strstr(lp_fail_msg(&f), bad[i])); /* the file named in its cause */
		assert_int_equal(lp_qual_setup(&q, "t", &o, NULL),
				 -EINVAL); /* before any measuring */
		assert_string_equal(lp_fail_msg(&q.fail), lp_fail_msg(&f)); /* the tool prints it */
		lp_qual_free(&q);
	}
}

/* The textfile, through the real parser; the values and verdict are there. */
static void test_prom(void **state)
{
	struct lp_qual_hw hw = ndr_port;
	char path[] = "/tmp/lp-prom-XXXXXX", cmd[512];
	int fd = mkstemp(path);
	struct lp_qual_opts o = { .expect = "auto", .prom = path };
	struct lp_qual_cell c[] = {
		cell("write_bw", 65536, LP_QUAL_BW, 44.8, 50),
		cell("write_lat", 8, LP_QUAL_LAT, 1.1, 0),
	};
	struct lp_qual q;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	snprintf(c[1].pair, sizeof(c[1].pair), "node\"a\\>b\n"); /* labels escaped */
	assert_int_equal(lp_qual_setup(&q, "lp-rdma", &o, &hw), 0);
	assert_int_equal(lp_qual_judge(&q, c, 2), 0);
	snprintf(
		cmd, sizeof(cmd),
		"/usr/bin/python3 -c 'import sys\n"
		"from prometheus_client.parser import text_string_to_metric_families as p\n"
		"m={s.name+s.labels.get(\"test\",\"\"):s for f in p(open(sys.argv[1]).read()) for s in f.samples}\n"
		"assert m[\"linkperf_bandwidth_gbytes_per_secondwrite_bw\"].value==44.8\n"
		"assert m[\"linkperf_cell_passwrite_bw\"].value==0\n"
		"assert m[\"linkperf_cell_passwrite_lat\"].value==1\n"
		"assert m[\"linkperf_latency_microsecondswrite_lat\"].labels[\"pair\"]==\"node\\\"a\\\\>b\\n\"\n"
		"assert m[\"linkperf_run_ok\"].value==0\n' %s",
		path);
	assert_int_equal(system(cmd), 0);
	lp_qual_free(&q);
	unlink(path);
}

/* A tool's writer: the recorded document, as the tool would print it. */
static int write_file(FILE *f, const void *path)
{
	FILE *in = fopen(path, "r");
	char buf[4096];
	size_t n;

	if (!in)
		return -ENOENT;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, f);
	fclose(in);
	return 0;
}

/* lp_qual_run: the run judged through its own document, which comes back with its
 * qualification (and, for lp-sweep, an exit code raised to 1) and still parses. */
static void test_run_document(void **state)
{
	char out[] = "/tmp/lp-qual-doc-XXXXXX", cmd[512];
	char *argv[] = { "lp-sweep", "--min-gbps", "0.5", NULL };
	struct lp_qual_opts o = { .min_gbps = "0.5", .argv = argv };
	int fd = mkstemp(out);
	struct lp_qual q;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(lp_qual_setup(&q, "lp-sweep", &o, NULL), 0);
	assert_int_equal(lp_qual_run(&q, write_file,
				     rootpath("tests/sweep/data/fabric4-healthy.json"), out),
			 0);
	assert_int_equal(q.nfail, 12); /* Soft-RoCE's 0.05 Gb/s against 0.5 */
	assert_true(lp_qual_failed(&q));
	snprintf(
		cmd, sizeof(cmd),
		"/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); q=d[\"qualification\"]; "
		"assert d[\"exit_code\"]==1 and q[\"verdict\"]==\"FAIL\" and q[\"fail\"]==12 and "
		"q[\"command\"]==\"lp-sweep --min-gbps 0.5\" and q[\"cells\"][\"n\"]==24' %s",
		out);
	assert_int_equal(system(cmd), 0);
	lp_qual_free(&q);
	/* a writer that fails, a document that is not JSON */
	assert_int_equal(lp_qual_setup(&q, "lp-sweep", &o, NULL), 0);
	assert_int_equal(lp_qual_run(&q, write_file, "/nonexistent", out), -ENOENT);
	assert_int_equal(lp_qual_run(&q, write_file, rootpath("tests/unit/test_qual.c"), out),
			 -EINVAL);
	lp_qual_free(&q);
	unlink(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_auto_ports),
		cmocka_unit_test(test_auto_downtrained),
		cmocka_unit_test(test_auto_gpus),
		cmocka_unit_test(test_judge_ndr),
		cmocka_unit_test(test_floors),
		cmocka_unit_test(test_softroce),
		cmocka_unit_test(test_bad_floors),
		cmocka_unit_test(test_profiles_valid_and_broken),
		cmocka_unit_test(test_baseline_sweep),
		cmocka_unit_test(test_baseline_other_nodes),
		cmocka_unit_test(test_baseline_gpu),
		cmocka_unit_test(test_bad_baseline),
		cmocka_unit_test(test_prom),
		cmocka_unit_test(test_run_document),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
