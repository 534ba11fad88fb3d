// SPDX-License-Identifier: MIT
/*
 * Writes the seed corpora: small valid messages produced by the real encoders,
 * one directory per harness (tests/fuzz/<harness>/seed-*). Run by `make fuzz-seeds`;
 * the output is committed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdma/internal.h"
#include "sweep/check.h"
#include "sweep/journal.h"
#include "sweep/result.h"
#include "tests/fuzz/sweep_run.h"

static const char *root;

static void put(const char *harness, const char *name, const void *p, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, harness);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/seed-%s", root, harness, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* A stream of frames (header + body) as lp_wire_send writes them. */
struct stream {
	uint8_t data[6 * (LP_WIRE_HDR_LEN + LP_WIRE_MAX_BODY)];
	size_t len;
};

static void add_frame(struct stream *s, uint16_t type, const struct lp_wbuf *w)
{
	lp_wire_hdr_encode(s->data + s->len, type, (uint32_t)w->len);
	memcpy(s->data + s->len + LP_WIRE_HDR_LEN, w->data, w->len);
	s->len += LP_WIRE_HDR_LEN + w->len;
}

/* One seed from an encoder's output; with a stream, also appended to it as a frame of type. */
static void put_msg(const char *harness, const char *name, const struct lp_wbuf *w,
		    struct stream *s, uint16_t type)
{
	if (w->err) {
		fprintf(stderr, "seeds: %s/%s does not fit a frame\n", harness, name);
		exit(1);
	}
	put(harness, name, w->data, w->len);
	if (s)
		add_frame(s, type, w);
}

/* The body of message type from msg (the real encoder). */
static void encode(uint16_t type, const void *msg, struct lp_wbuf *w)
{
	if (lp_proto_encode(type, msg, w)) {
		fprintf(stderr, "seeds: %s does not encode\n", lp_proto_name(type));
		exit(1);
	}
}

/* The opening as a client and a keyed server exchange it; each body, tagged by its index in
 * fuzz_opening's list (OPEN, CHALLENGE, AUTH, BUSY), is a seed of the opening harness. */
static void opening_seeds(struct stream *s)
{
	struct lp_proto_open op = { .nonce = { 0x6f, 0x70, 0x65, 0x6e, [31] = 1 } };
	struct lp_proto_challenge ch = { .nonce = { 0x63, 0x68, [31] = 2 },
					 .key = true,
					 .proof = { 0x70, 0x72, [31] = 3 } };
	struct lp_proto_auth au = { .mac = { 0x61, 0x75, [31] = 4 } };
	struct lp_proto_busy busy = { .retry_s = 42,
				      .text = "another client (10.0.2.15) has held it for 7 s" };
	const struct {
		const char *name;
		uint16_t type;
		const void *msg;
	} m[] = { { "open", LP_MSG_OPEN, &op },
		  { "challenge", LP_MSG_CHALLENGE, &ch },
		  { "auth", LP_MSG_AUTH, &au },
		  { "busy", LP_MSG_BUSY, &busy } };
	struct lp_wbuf w, tagged;

	for (unsigned i = 0; i < 4; i++) {
		encode(m[i].type, m[i].msg, &w);
		lp_wbuf_init(&tagged);
		lp_wbuf_u8(&tagged, (uint8_t)i);
		lp_wbuf_bytes(&tagged, w.data, w.len);
		put_msg("opening", m[i].name, &tagged, NULL, 0);
		if (s && m[i].type != LP_MSG_BUSY)
			add_frame(s, m[i].type, &w);
	}
	lp_wbuf_init(&w);
	if (s)
		add_frame(s, LP_MSG_GRANT, &w);
}

static void hello_seeds(struct stream *s)
{
	for (int t = 0; t < LP_RDMA_NTESTS; t++) {
		struct lp_rdma_params p;
		struct lp_wbuf w;

		lp_rdma_params_default(&p, (enum lp_rdma_test)t);
		p.size = 64;
		p.iters = 10;
		p.seed = 0x5eed; /* the default is random: keep the seeds reproducible */
		p.verify = true;
		p.bidir = !lp_rdma_test_is_lat(p.test) && t % 2;
		p.num_qps = lp_rdma_test_is_lat(p.test) ? 1 : 2;
		encode(LP_MSG_HELLO, &p, &w);
		put_msg("hello", lp_rdma_test_names[t], &w, t == 0 ? s : NULL, LP_MSG_HELLO);
	}
}

static void accept_seed(struct stream *s)
{
	struct lp_rdma_devinfo d = {
		.name = "rxe0",
		.port = 1,
		.link_layer = "Ethernet",
		.transport = "RoCE",
		.gid_index = 1,
		.gid = "::ffff:10.0.2.15",
		.gid_type = "RoCE v2",
		.active_mtu = 1024,
		.speed = "10 Gb/s",
		.width = 1,
		.rate_gbps = 10,
		.fw = "",
		.netdev = "eth0",
		.numa_node = -1,
		.node_guid = "5054:00ff:fe12:3456",
	};
	struct lp_wbuf w;

	encode(LP_MSG_ACCEPT, &d, &w);
	put_msg("accept", "rxe", &w, s, LP_MSG_ACCEPT);
}

static void qpinfo_seed(struct stream *s)
{
	struct lp_qpinfo q = { .nqps = 2,
			       .qp = { { 17, 0x123456 }, { 18, 0xabcdef } },
			       .gid = { [10] = 0xff, [11] = 0xff, [12] = 10, [15] = 15 },
			       .rkey = 0x1234,
			       .addr = 0x7f0000001000,
			       .slot = 4096,
			       .mtu = 1024,
			       .mem_kind = LP_MEM_HOST,
			       .detect = LP_DETECT_CPU,
			       .mem = "host" };
	struct lp_wbuf w;

	encode(LP_MSG_QPINFO, &q, &w);
	put_msg("qpinfo", "two-qps", &w, s, LP_MSG_QPINFO);
}

/* DONE and RESULT of a one-QP test (the stream's HELLO) and of a two-QP test. */
static void done_result_seeds(struct stream *s)
{
	struct lp_rdma_result_msg ok = {
		.verify = LP_VERIFY_OK,
		.bytes = 655360,
		.msgs = 10,
		.ns = 12345,
		.iters = 10,
		.nqps = 1,
		.sent = { 11 },
		.checked = { .messages = 11, .bytes = 704, .landed = 11, .ring = 11 },
		.ctr = { .valid = true,
			 .dev = "rxe0",
			 .port = 1,
			 .netdev = "eth0",
			 .more = 1,
			 .n = 2,
			 .c = { { "rcvd_seq_err", LP_CTR_HW, 0, 3 },
				{ "port_xmit_data", LP_CTR_PORT, 1, 7 } } }
	};
	struct lp_rdma_result_msg bad = { .verify = LP_VERIFY_BAD,
					  .nqps = 2,
					  .text = "QP 1 message 3 byte 5: got 0x00" };
	struct lp_proto_done done = { .iters = 10, .nqps = 1, .msgs = { 11, 12 } };
	struct lp_wbuf w;

	encode(LP_MSG_DONE, &done, &w);
	put_msg("done", "one-qp", &w, s, LP_MSG_DONE);
	encode(LP_MSG_RESULT, &ok, &w);
	put_msg("result", "ok", &w, s, LP_MSG_RESULT);
	done.nqps = 2;
	encode(LP_MSG_DONE, &done, &w);
	put_msg("done", "two-qps", &w, NULL, 0);
	encode(LP_MSG_RESULT, &bad, &w);
	put_msg("result", "verify-bad", &w, NULL, 0);
}

static void error_seed(struct stream *s)
{
	struct lp_proto_error e = { .status = -EINVAL,
				    .text = "size 0 out of range [1, 1073741824]" };
	struct lp_wbuf w;

	encode(LP_MSG_ERROR, &e, &w);
	put_msg("error", "einval", &w, s, LP_MSG_ERROR);
	/* a hostile peer's text: escape sequences, a line break, a C1 byte (decoded as '?') */
	snprintf(e.text, sizeof(e.text), "red\x1b[31m\ntext\x07%c", (char)0x9b);
	encode(LP_MSG_ERROR, &e, &w);
	put_msg("error", "escapes", &w, NULL, 0);
}

/* One record's body as a seed. */
static void put_record(const char *harness, const char *name, const struct lp_record *rec,
		       const void *obj)
{
	struct lp_wbuf w;

	lp_wbuf_init(&w);
	lp_record_encode(rec, obj, &w);
	put_msg(harness, name, &w, NULL, 0);
}

static void sweep_seeds(void)
{
	struct lp_sweep_cell lat, bw, failed;
	struct lp_sweep_node nd = {
		.rank = 1,
		.host = "node1",
		.name = "node1",
		.mem = "host",
		.kernel = "6.1.0",
		.dev = { .name = "rxe0",
			 .port = 1,
			 .link_layer = "Ethernet",
			 .transport = "RoCE",
			 .gid_type = "RoCE v2",
			 .gid = "::ffff:10.0.2.16",
			 .gid_index = 1,
			 .speed = "10 Gb/s",
			 .width = 1,
			 .rate_gbps = 10,
			 .active_mtu = 1024,
			 .netdev = "eth0",
			 .numa_node = -1 },
	};

	lp_sweep_cell_init(&lat, 0, 0, 1, LP_PHASE_SWEEP, 0);
	lat.value = lat.lat.p50 = 2.5;
	lat.lat.n = 100;
	lat.lat.min = 2.1;
	lat.lat.mean = 2.6;
	lat.lat.stdev = 0.2;
	lat.lat.p90 = 2.9;
	lat.lat.p99 = lat.lat.p999 = lat.lat.p9999 = lat.lat.max = 3.5;
	lat.lat.exact = true;
	lat.halved = true;
	lat.iters = 100;
	lp_sweep_cell_init(&bw, 1, 2, 1, LP_PHASE_RETEST, 1);
	bw.value = bw.gbits_s = 9.2;
	bw.gbytes_s = 1.15;
	bw.mmsg_s = 0.0175;
	bw.pct_link = 92;
	bw.iters = 200;
	lp_sweep_cell_init(&failed, 1, 1, 0, LP_PHASE_SWEEP, 0);
	failed.status = -ETIMEDOUT;
	snprintf(failed.error, sizeof(failed.error), "no answer from node0: timed out");
	put_record("sweep_cell", "lat", &lp_sweep_cell_record, &lat);
	put_record("sweep_cell", "bw-retest", &lp_sweep_cell_record, &bw);
	put_record("sweep_cell", "failed", &lp_sweep_cell_record, &failed);
	bw.ctr_client.valid = bw.ctr_server.valid = true; /* a lossy link's counters on both ends */
	bw.ctr_client.n = bw.ctr_server.n = 1;
	bw.ctr_client.more = 2;
	snprintf(bw.ctr_client.c[0].name, sizeof(bw.ctr_client.c[0].name), "rcvd_seq_err");
	bw.ctr_client.c[0].src = LP_CTR_HW;
	bw.ctr_client.c[0].value = 412;
	snprintf(bw.ctr_server.c[0].name, sizeof(bw.ctr_server.c[0].name), "out_of_seq_request");
	bw.ctr_server.c[0].src = LP_CTR_HW;
	bw.ctr_server.c[0].value = 37;
	put_record("sweep_cell", "counters", &lp_sweep_cell_record, &bw);
	put_record("sweep_node", "rxe", &lp_sweep_node_record, &nd);
	nd.status = -ENODEV;
	snprintf(nd.error, sizeof(nd.error), "no RDMA device");
	put_record("sweep_node", "nodev", &lp_sweep_node_record, &nd);
}

/* lp-sweep --check: one rank's report as the blob rank 0 receives (lp_record_pack of its lines). */
static void check_seeds(void)
{
	struct lp_check_line l[2] = {
		{ .status = LP_CHECK_WARN,
		  .item = "roce_mtu",
		  .subject = "rxe0 port 1",
		  .detail = "eth0 MTU 1500 caps the RoCE (active) MTU at 1024",
		  .fix = "set the netdev MTU to 4200 or more" },
		{ .status = LP_CHECK_OK,
		  .item = "memlock",
		  .subject = "host",
		  .detail = "unlimited" },
	};
	size_t len;
	uint8_t *b = lp_record_pack(&lp_check_line_record, l, 2, sizeof(l[0]), &len, NULL);

	if (!b)
		exit(1);
	put("check_report", "two-lines", b, len);
	free(b);
}

/* Argument vectors, NUL-separated, as the opt harness splits them. */
static void opt_seeds(void)
{
	static const char a[] = "-u\0"
				"64\0"
				"--size=4K\0"
				"--sizes\0"
				"2:8M\0"
				"-D\0"
				"500ms\0"
				"--test=write_bw\0"
				"-T\0"
				"write_lat,read_lat\0"
				"-f\0"
				"pos";
	static const char b[] = "--int=-1\0"
				"--double\0"
				"2.5\0"
				"--sizes=64,4K,1M\0"
				"--\0"
				"--not-an-option";

	put("opt", "kinds", a, sizeof(a) - 1);
	put("opt", "list-and-end", b, sizeof(b) - 1);
}

/* A small run as the real writers make it: its /2 document, and its journal. */
static void sweep_documents(void)
{
	char path[512], *buf = NULL;
	size_t len = 0;
	struct lp_sweep_journal jl;
	struct lp_sweep_run run;
	struct lp_sweep_cell failed;
	int32_t pairs[] = { 0, 1 };
	FILE *f;

	lp_fuzz_sweep_init(&run);
	lp_sweep_cell_get(&run, 0, &failed);
	failed.status = -ETIMEDOUT;
	snprintf(failed.error, sizeof(failed.error), "timed out");
	if (lp_sweep_cell_set(&run, 0, &failed))
		exit(1);
	run.cells[1].phase = LP_PHASE_RETEST;
	if (lp_sweep_diagnose(&run))
		exit(1);
	f = open_memstream(&buf, &len);
	if (!f || lp_sweep_write_json(&run, f, 1) || fclose(f))
		exit(1);
	put("sweep_doc", "healthy-3", buf, len);
	free(buf);
	snprintf(path, sizeof(path), "%s/sweep_journal", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sweep_journal/seed-3-nodes", root);
	unlink(path);
	if (lp_sweep_journal_open(&jl, path, false, NULL))
		exit(1);
	lp_sweep_journal_run(&jl, &run);
	lp_sweep_journal_cells(&jl, &run, 0);
	lp_sweep_journal_retest(&jl, 0, pairs, 1);
	lp_sweep_journal_end(&jl, &run, 1);
	if (lp_sweep_journal_close(&jl, NULL))
		exit(1);
	lp_sweep_run_free(&run);
}

int main(int argc, char **argv)
{
	struct stream s = { .len = 0 };

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR (tests/fuzz)\n", argv[0]);
		return 2;
	}
	root = argv[1];
	opening_seeds(&s);
	hello_seeds(&s);
	accept_seed(&s);
	qpinfo_seed(&s);
	done_result_seeds(&s);
	error_seed(&s);
	put("frame", "session", s.data, s.len);
	sweep_seeds();
	sweep_documents();
	check_seeds();
	opt_seeds();
	return 0;
}
