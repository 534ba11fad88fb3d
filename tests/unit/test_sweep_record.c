// SPDX-License-Identifier: MIT
/*
 * Unit tests for the sweep's records: the node and cell records ranks send rank
 * 0 (lp_sweep_node_record, lp_sweep_cell_record) and a cell's JSON objects as
 * lp_sweep_write_json writes them and lp_sweep_read_json reads them back.
 */
#include "lp_test.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fail.h"
#include "sweep/check.h"
#include "sweep/journal.h"
#include "sweep/result.h"

static void lat_cell(struct lp_sweep_cell *c)
{
	lp_sweep_cell_init(c, 0, 0, 1, LP_PHASE_RETEST, 2);
	c->lat = (struct lp_summary){ .n = 100,
				      .min = 2.1,
				      .max = 3.9,
				      .mean = 2.6,
				      .stdev = 0.2,
				      .p50 = 2.5,
				      .p90 = 2.9,
				      .p99 = 3.5,
				      .p999 = 3.7,
				      .p9999 = 3.8,
				      .exact = true };
	c->value = c->lat.p50;
	c->halved = true;
	c->wall_s = 0.25;
	c->iters = 100;
}

static void encode(const struct lp_record *rec, const void *obj, struct lp_wbuf *w)
{
	lp_wbuf_init(w);
	assert_int_equal(lp_record_encode(rec, obj, w), 0);
}

/* Every field travels, the embedded summary whole; every shorter body is refused. */
static void test_cell_round_trip(void **state)
{
	struct lp_sweep_cell c, d;
	struct lp_wbuf w;

	(void)state;
	lat_cell(&c);
	encode(&lp_sweep_cell_record, &c, &w);
	assert_int_equal(lp_record_decode_body(&lp_sweep_cell_record, &d, w.data, w.len), 0);
	assert_int_equal(d.phase, LP_PHASE_RETEST);
	assert_int_equal(d.round, 2);
	assert_true(d.lat.n == 100 && d.lat.p999 == 3.7 && d.lat.p9999 == 3.8 && d.lat.exact);
	assert_true(d.halved && d.value == 2.5 && d.wall_s == 0.25 && d.iters == 100);
	assert_true(isnan(d.gbits_s));
	for (size_t len = 0; len < w.len; len++)
		assert_int_equal(lp_record_decode_body(&lp_sweep_cell_record, &d, w.data, len),
				 -EPROTO);
}

/* A bool other than 0/1 and a phase out of enum lp_phase are refused both ways. */
static void test_cell_bad_fields(void **state)
{
	struct lp_sweep_cell c, d;
	struct lp_wbuf w, bad;

	(void)state;
	lat_cell(&c);
	encode(&lp_sweep_cell_record, &c, &w);
	bad = w;
	/* halved: before the doubles of bandwidth (4), iters, the interval min and max and two
	 * empty counter ends (bool, 2 u32) */
	bad.data[w.len - 8 * 7 - 2 * 9 - 1] = 2;
	assert_int_equal(lp_record_decode_body(&lp_sweep_cell_record, &d, bad.data, bad.len),
			 -EPROTO);
	bad = w;
	bad.data[15] = LP_PHASE_SIZES + 1; /* phase: the fourth i32, big-endian (0..6 are phases) */
	assert_int_equal(lp_record_decode_body(&lp_sweep_cell_record, &d, bad.data, bad.len),
			 -EPROTO);
	c.phase = LP_PHASE_SIZES + 1;
	lp_wbuf_init(&bad);
	assert_int_equal(lp_record_encode(&lp_sweep_cell_record, &c, &bad), -EINVAL);
}

/* The node record carries the whole lp_rdma_devinfo it embeds. */
static void test_node_round_trip(void **state)
{
	struct lp_sweep_node a = {
		.rank = 3, .rail = 1, .host = "gpu017", .name = "gpu017/1", .mem = "cuda:1",
		.gpu_bdf = "0000:1b:00.0", .gpu_nic = "PIX", .kernel = "6.1.0",
		.dev = { .name = "mlx5_3", .port = 1, .link_layer = "InfiniBand", .transport = "IB",
			 .gid_index = 0, .lid = 17, .active_mtu = 4096, .speed = "NDR", .width = 4,
			 .rate_gbps = 400, .fw = "28.39.1002", .numa_node = 1,
			 .node_guid = "b8ce:f603:00a1:2b3c", .vendor_id = 0x2c9,
			 .vendor_part_id = 4129 },
	}, b;
	struct lp_wbuf w;

	(void)state;
	encode(&lp_sweep_node_record, &a, &w);
	assert_int_equal(lp_record_decode_body(&lp_sweep_node_record, &b, w.data, w.len), 0);
	assert_int_equal(b.rank, 3);
	assert_string_equal(b.name, "gpu017/1");
	assert_string_equal(b.dev.name, "mlx5_3");
	assert_string_equal(b.dev.node_guid, "b8ce:f603:00a1:2b3c");
	assert_true(b.dev.rate_gbps == 400 && b.dev.lid == 17 && b.dev.active_mtu == 4096);
	assert_true(b.dev.numa_node == 1 && b.dev.vendor_part_id == 4129);
	assert_string_equal(b.gpu_nic, "PIX");
	assert_int_equal(lp_record_decode_body(&lp_sweep_node_record, &b, w.data, w.len - 1),
			 -EPROTO);
}

/* A two-node run with one latency and one bandwidth cell, written to a temporary file. */
static char *write_run(struct lp_sweep_run *r, char *path)
{
	struct lp_sweep_cell c;
	FILE *f;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(lp_sweep_run_init(r, 2), 0);
	snprintf(r->nodes[0].name, sizeof(r->nodes[0].name), "a");
	snprintf(r->nodes[1].name, sizeof(r->nodes[1].name), "b");
	assert_int_equal(lp_sweep_add_metric(r, "write_lat", 0, true, 8), 0);
	assert_int_equal(lp_sweep_add_metric(r, "write_bw", 3, false, 65536), 1);
	lat_cell(&c);
	c.ctr_client.valid = c.ctr_server.valid = true; /* the client's port: rcvd_seq_err +412 */
	snprintf(c.ctr_client.c[0].name, sizeof(c.ctr_client.c[0].name), "rcvd_seq_err");
	c.ctr_client.c[0].src = LP_CTR_HW;
	c.ctr_client.c[0].value = 412;
	c.ctr_client.n = 1;
	c.ctr_client.more = 3;
	assert_int_equal(lp_sweep_add_cell(r, &c), 0);
	lp_sweep_cell_init(&c, 1, 1, 0, LP_PHASE_SWEEP, 0);
	c.value = c.gbits_s = 9.5;
	c.gbytes_s = 1.1875;
	assert_int_equal(lp_sweep_add_cell(r, &c), 0);
	assert_int_equal(lp_sweep_write_json(r, f, 0), 0);
	assert_int_equal(fclose(f), 0);
	return path;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 20);
	size_t n;

	assert_non_null(f);
	assert_non_null(buf);
	n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/*
 * The document: the sweep cell sits in its block's columns (client, server
 * and phase implied), the retest in the attempts; both read back whole.
 */
static void test_cell_json(void **state)
{
	char path[] = "/tmp/lp-sweep-record-XXXXXX";
	struct lp_fail why;
	struct lp_sweep_run r, back;
	struct lp_sweep_cell c1;
	char *doc;
	int rc;

	(void)state;
	write_run(&r, path);
	doc = slurp(path);
	assert_non_null(strstr(doc, "\"schema\": \"linkperf.sweep/2\""));
	/* the bandwidth block: its one sweep cell at row 2 (b -> a), value 9.5 resolved */
	assert_non_null(strstr(
		doc, "\"cells\": {\n        \"n\": 4,\n        \"value\": [null,null,9.5,null]"));
	assert_non_null(strstr(doc, "\"sweep\": {\n        \"n\": 1,\n        \"rows\": [2],"));
	assert_non_null(strstr(doc, "\"gbits_s\": [9.5]") || strstr(doc, "\"gbits_s\": 9.5"));
	/* the retest: in the attempts, its counters sparse */
	assert_non_null(strstr(doc, "\"attempts\": {\n    \"n\": 1,\n    \"metric\": [0],"));
	assert_non_null(strstr(doc, "\"counters_client\": {\n      \"at\": [0],"));
	assert_non_null(strstr(doc, "\"source\": \"hw\""));
	free(doc);
	rc = lp_sweep_read_json(&back, path, lp_fresh(&why));
	if (rc == -ENOTSUP) {
		unlink(path);
		lp_sweep_run_free(&r);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_int_equal(back.ncells, 2);
	/* blocks first: the bandwidth sweep cell, then the latency retest */
	assert_true(back.cells[0].gbits_s == 9.5 && back.cells[0].gbytes_s == 1.1875);
	assert_true(back.cells[0].a == 1 && back.cells[0].b == 0 && back.cells[0].metric == 1);
	assert_true(isnan(back.cells[0].mmsg_s) && isnan(back.cells[0].lat.p50));
	assert_true(back.cells[1].lat.n == 100 && back.cells[1].lat.p9999 == 3.8);
	assert_true(back.cells[1].halved && back.cells[1].lat.stdev == 0.2);
	assert_int_equal(back.cells[1].phase, LP_PHASE_RETEST);
	/* kept apart from the cell (r->extra), back whole through lp_sweep_cell_get */
	assert_int_equal(back.nextra, 1);
	lp_sweep_cell_get(&back, 1, &c1);
	assert_true(c1.ctr_client.valid && c1.ctr_client.n == 1);
	assert_string_equal(c1.ctr_client.c[0].name, "rcvd_seq_err");
	assert_true(c1.ctr_client.c[0].value == 412 && c1.ctr_client.c[0].src == LP_CTR_HW &&
		    c1.ctr_client.more == 3);
	assert_true(c1.ctr_server.valid && c1.ctr_server.n == 0);
	lp_sweep_cell_get(&back, 0, &c1);
	assert_false(c1.ctr_client.valid || c1.ctr_server.valid || back.cells[0].x);
	lp_sweep_run_free(&back);
	lp_sweep_run_free(&r);
	unlink(path);
}

static int count(const char *s, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* path holding len bytes of doc, then more (a string) */
static void write_file(const char *path, const char *doc, size_t len, const char *more)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(doc, 1, len, f), len);
	fputs(more, f);
	assert_int_equal(fclose(f), 0);
}

/*
 * The journal read back is the run it recorded (nodes, metrics, cells, end);
 * its last line cut short costs that line (incomplete); a line cut in the
 * middle costs that line, not the file; a line that parses but breaks the
 * schema is refused with its number.
 */
static void read_back(const char *jpath, const char *doc)
{
	struct lp_sweep_journal_info info;
	struct lp_sweep_run r;
	struct lp_fail why;
	char cut[80];
	const char *round = strstr(doc, "{\"type\":\"round\"");
	int rc = lp_sweep_read_run(&r, jpath, &info, lp_fresh(&why));

	if (rc == -ENOTSUP)
		return; /* built without jansson */
	assert_int_equal(rc, 0);
	assert_true(info.ended && !info.truncated && info.exit_code == 1 && !r.incomplete);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.nodes[1].name, "b");
	assert_int_equal(r.nmetrics, 2);
	assert_true(r.metrics[0].lat && r.metrics[1].size == 65536);
	assert_int_equal(r.ncells, 2);
	assert_int_equal(r.nretests, 1);
	assert_true(r.cells[0].lat.p50 == 2.5 && r.cells[0].ctr_valid[0]);
	assert_true(r.cells[1].a == 1 && r.cells[1].gbits_s == 9.5 && r.cells[1].attempt == 1);
	assert_true(isnan(r.cells[1].lat.p50));
	assert_true(info.seen[0][0] && !strcmp(info.seen[0], info.seen[1]));
	lp_sweep_journal_info_free(&info);
	lp_sweep_run_free(&r);

	snprintf(cut, sizeof(cut), "%s.cut", jpath);
	write_file(cut, doc, strlen(doc) - 12, ""); /* the end line, cut short */
	assert_int_equal(lp_sweep_read_run(&r, cut, &info, lp_fresh(&why)), 0);
	assert_true(info.truncated && !info.ended && r.incomplete && r.ncells == 2);
	lp_sweep_journal_info_free(&info);
	lp_sweep_run_free(&r);

	/* the round line cut in the middle, the lines after it whole: that line is lost */
	write_file(cut, doc, (size_t)(round - doc) + 30, strchr(round, '\n'));
	assert_int_equal(lp_sweep_read_run(&r, cut, &info, lp_fresh(&why)), 0);
	assert_true(info.ended && info.cut == 1 && info.cut_line == 2 && r.ncells == 0);
	lp_sweep_journal_info_free(&info);
	lp_sweep_run_free(&r);

	/* a line that parses but is not what its type says: refused, with its number */
	write_file(cut, doc, (size_t)(round - doc), "{\"type\":\"round\",\"attempts\":{}}\n");
	assert_int_equal(lp_sweep_read_run(&r, cut, &info, lp_fresh(&why)), -EINVAL);
	assert_non_null(strstr(why.msg, "line 2: "));
	unlink(cut);
}

/* One JSON object per line: the header (the document's head), a round, a retest, the end. */
static void test_journal(void **state)
{
	struct lp_fail f = { 0 };
	char path[] = "/tmp/lp-sweep-journal-XXXXXX", jpath[64];
	struct lp_sweep_journal jl;
	struct lp_sweep_run r;
	int32_t pairs[] = { 0, 1 };
	char *doc, *line;

	(void)state;
	write_run(&r, path);
	snprintf(jpath, sizeof(jpath), "%s.journal", path);
	assert_int_equal(lp_sweep_journal_open(&jl, jpath, false, NULL), 0);
	lp_sweep_journal_run(&jl, &r);
	lp_sweep_journal_cells(&jl, &r, 0);
	lp_sweep_journal_retest(&jl, 0, pairs, 1);
	lp_sweep_journal_end(&jl, &r, 1);
	assert_int_equal(lp_sweep_journal_sync(&jl), 0);
	assert_int_equal(lp_sweep_journal_close(&jl, NULL), 0);
	doc = slurp(jpath);
	assert_int_equal(count(doc, "\n{\"type\":") + 1, 4);
	assert_true(!strncmp(doc, "{\"type\":\"header\",\"time\":\"20", 27));
	assert_non_null(strstr(doc, "\"schema\":\"linkperf.sweep/2\""));
	line = strstr(doc, "{\"type\":\"round\"");
	assert_non_null(line);
	/* the cells as the document's attempts: columns, the first cell's counters sparse */
	assert_non_null(strstr(line, "\"attempts\":{\"n\":2,\"metric\":[0,1],\"client\":[0,1],"));
	assert_non_null(strstr(line, "\"counters_client\":{\"at\":[0],\"values\":[{\"valid\":true,"
				     "\"omitted\":3,\"moved\":[{\"name\":\"rcvd_seq_err\","
				     "\"source\":\"hw\",\"reset\":0,\"value\":412}]}]}"));
	assert_non_null(
		strstr(doc, "\"round\":0,\"pairs\":{\"n\":1,\"client\":[0],\"server\":1}}\n"));
	assert_non_null(strstr(
		doc, "\"interrupted\":false,\"cells\":2,\"exit_code\":1,\"verdicts\":[]}\n"));
	/* an existing journal is never truncated: refused */
	assert_int_equal(lp_sweep_journal_open(&jl, jpath, false, &f), -EEXIST);
	assert_non_null(strstr(lp_fail_msg(&f), "exists (a previous run's record): --resume "));
	read_back(jpath, doc);
	free(doc);
	unlink(jpath);
	unlink(path);
	lp_sweep_run_free(&r);
}

/* A journal that cannot be written says so: at open (no such directory) and at close (full disk). */
static void test_journal_errors(void **state)
{
	struct lp_fail f = { 0 };
	struct lp_sweep_journal jl;
	struct lp_sweep_run r;
	char path[] = "/tmp/lp-sweep-journal-XXXXXX";

	(void)state;
	assert_int_equal(lp_sweep_journal_open(&jl, "/nonexistent/dir/run.journal", false, NULL),
			 -ENOENT);
	assert_int_equal(lp_sweep_journal_close(&jl, NULL), 0); /* nothing open: nothing to do */
	write_run(&r, path);
	unlink(path);
	memset(&jl, 0, sizeof(jl));
	jl.f = fopen("/dev/full", "w");
	if (!jl.f) {
		lp_sweep_run_free(&r);
		skip();
	}
	snprintf(jl.path, sizeof(jl.path), "/dev/full");
	lp_sweep_journal_run(&jl, &r);
	lp_sweep_journal_cells(&jl, &r, 0);
	assert_int_equal(lp_sweep_journal_close(&jl, &f), -ENOSPC);
	assert_string_equal(lp_fail_msg(&f), "journal /dev/full: No space left on device");
	lp_sweep_run_free(&r);
}

/*
 * The fsync runs in the journal's syncer thread, off the round: a sync returns
 * at once, and an fsync that fails there is the close's error (a pipe put in
 * the file's place: fsync on it fails with EINVAL). Rounds keep syncing while
 * the thread works; the bytes all arrive.
 */
static void test_journal_syncer(void **state)
{
	char path[] = "/tmp/lp-sweep-journal-XXXXXX", jpath[64], buf[1 << 16];
	struct lp_sweep_journal jl;
	struct lp_sweep_run r;
	int p[2];

	(void)state;
	write_run(&r, path);
	unlink(path);
	snprintf(jpath, sizeof(jpath), "%s.journal", path);
	assert_int_equal(lp_sweep_journal_open(&jl, jpath, false, NULL), 0);
	lp_sweep_journal_run(&jl, &r);
	for (int i = 0; i < 50; i++) {
		lp_sweep_journal_cells(&jl, &r, 0);
		assert_int_equal(lp_sweep_journal_sync(&jl), 0);
	}
	assert_non_null(jl.bg); /* the thread did the fsyncs */
	assert_int_equal(lp_sweep_journal_close(&jl, NULL), 0);
	assert_null(jl.bg);
	unlink(jpath);

	/* fault: the fsync fails in the thread; the close says so */
	assert_int_equal(lp_sweep_journal_open(&jl, jpath, false, NULL), 0);
	assert_int_equal(pipe(p), 0);
	assert_true(dup2(p[1], fileno(jl.f)) >= 0);
	lp_sweep_journal_run(&jl, &r);
	assert_int_equal(lp_sweep_journal_sync(&jl), 0); /* asked for, not waited on */
	assert_int_equal(lp_sweep_journal_close(&jl, NULL), -EINVAL);
	assert_true(read(p[0], buf, sizeof(buf)) > 0); /* the header line went out */
	close(p[0]);
	close(p[1]);
	unlink(jpath);
	lp_sweep_run_free(&r);
}

static void take_line(void *line, void *rep)
{
	assert_int_equal(lp_check_line_add(rep, line), 0);
}

/*
 * lp-sweep --check: a report's lines travel as one blob of records (a cut blob
 * is refused), and the gathered report names every host, a FAIL line or a host
 * without a report making the whole FAIL.
 */
static void test_check_gather(void **state)
{
	struct lp_check_line lines[2] = {
		{ .status = LP_CHECK_WARN,
		  .item = "roce_mtu",
		  .subject = "rxe0 port 1",
		  .detail = "netdev MTU 1500 allows RoCE MTU 1024",
		  .fix = "ip link set mtu 4200" },
		{ .status = LP_CHECK_OK,
		  .item = "memlock",
		  .subject = "host",
		  .detail = "unlimited" },
	};
	struct lp_sweep_check all;
	struct lp_check_line tmp;
	size_t len;
	uint8_t *buf =
		lp_record_pack(&lp_check_line_record, lines, 2, sizeof(lines[0]), &len, NULL);
	char *doc = NULL;
	size_t dlen = 0;
	FILE *f;

	(void)state;
	assert_non_null(buf);
	assert_int_equal(lp_sweep_check_init(&all, 3), 0);
	for (int i = 0; i < 3; i++) {
		snprintf(all.hosts[i].name, sizeof(all.hosts[i].name), "lpnode%d", i + 1);
		all.hosts[i].rank = i;
	}
	assert_int_equal(lp_record_unpack(&lp_check_line_record, buf, len, &tmp, take_line,
					  &all.hosts[0].rep),
			 2);
	assert_int_equal(lp_record_unpack(&lp_check_line_record, buf, len - 1, &tmp, take_line,
					  &all.hosts[1].rep),
			 -EPROTO); /* cut short: the first line came, then the refusal */
	assert_int_equal(all.hosts[1].rep.n, 1);
	assert_string_equal(all.hosts[0].rep.lines[0].fix, "ip link set mtu 4200");
	assert_int_equal(lp_sweep_check_worst(&all), LP_CHECK_WARN); /* host 3: no lines, OK */
	all.hosts[2].status = -ETIMEDOUT;
	snprintf(all.hosts[2].error, sizeof(all.hosts[2].error), "rank 2 sent no report");
	assert_int_equal(lp_sweep_check_worst(&all), LP_CHECK_FAIL);
	f = open_memstream(&doc, &dlen);
	lp_sweep_check_print(&all, f);
	assert_int_equal(lp_sweep_check_write_json(&all, f, 1), 0);
	fclose(f);
	assert_non_null(strstr(doc, "== lpnode1 (rank 0): 2 checks, worst WARN"));
	assert_non_null(strstr(doc, "FAIL  report        lpnode3"));
	assert_non_null(strstr(doc, "3 hosts: 1 FAIL, 2 WARN, 0 OK; worst FAIL"));
	assert_non_null(strstr(doc, "\"schema\": \"" LP_SWEEP_CHECK_SCHEMA "\""));
	assert_non_null(strstr(doc, "\"name\": \"lpnode3\""));
	assert_true(lp_test_json_valid(strchr(doc, '{')));
	free(doc);
	free(buf);
	lp_sweep_check_free(&all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cell_round_trip), cmocka_unit_test(test_cell_bad_fields),
		cmocka_unit_test(test_node_round_trip), cmocka_unit_test(test_cell_json),
		cmocka_unit_test(test_journal),		cmocka_unit_test(test_journal_errors),
		cmocka_unit_test(test_journal_syncer),	cmocka_unit_test(test_check_gather),
	};

	return cmocka_run_group_tests_name("sweep records", tests, NULL, NULL);
}
