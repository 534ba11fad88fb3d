// SPDX-License-Identifier: MIT
/* The option groups lp-rdma and lp-sweep share (rdma/opts.h). */
#include "rdma/opts.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/fail.h"
#include "common/lp.h"

#define PO struct lp_rdma_plan_opts
#define DS struct lp_rdma_devsel
#define MS struct lp_rdma_memsel
#define PT struct lp_rdma_perftest_opts

const char *const lp_rdma_lat_method_names[] = { "poll", "imm", NULL };
static const enum lp_lat_method lat_method_of[] = { LP_LAT_POLL, LP_LAT_WRITE_IMM };

/* clang-format off */
const struct lp_opt lp_rdma_plan_opt_rows[] = {
	{ .name = "tests", .shortname = 't', LP_OPT_LIST_AT(PO, plan.tests),
	  .choices = lp_rdma_test_names, .metavar = "LIST",
	  .help = "tests, in this order: write_lat,read_lat,send_lat,write_bw,read_bw,send_bw",
	  .def = "write_lat,write_bw",
	  .hint = "perftest's -t (tx depth) is --tx-depth here" },
	{ .name = "sizes", .shortname = 's', LP_OPT_SIZES_AT(PO, sizes), LP_OPT_SET_AT(PO, sizes_set),
	  .min = 1, .max = (double)LP_RDMA_MAX_SIZE, .metavar = "SIZES",
	  .help = "message sizes of every test whose kind has no --lat-sizes/--bw-sizes given: "
		  "64K, 2:8M (powers of two), 2,4K,1M" },
	{ .name = "lat-sizes", LP_OPT_SIZES_AT(PO, plan.sizes[LP_PLAN_LAT]),
	  LP_OPT_SET_AT(PO, lat_sizes_set), .min = 1, .max = (double)LP_RDMA_MAX_SIZE,
	  .metavar = "SIZES", .help = "message sizes of the latency tests" },
	{ .name = "bw-sizes", LP_OPT_SIZES_AT(PO, plan.sizes[LP_PLAN_BW]),
	  LP_OPT_SET_AT(PO, bw_sizes_set), .min = 1, .max = (double)LP_RDMA_MAX_SIZE,
	  .metavar = "SIZES", .help = "message sizes of the bandwidth tests" },
	{ .name = "all-sizes", .shortname = 'a', LP_OPT_FLAG_AT(PO, all_sizes),
	  .help = "every power of two from 2 B to 8 MiB, as perftest's -a (for every test)" },
	{ .name = "iters", .shortname = 'n', LP_OPT_U64_AT(PO, iters), LP_OPT_SET_AT(PO, iters_set),
	  .min = 1, .max = 1e9, .metavar = "N",
	  .help = "timed iterations of every test whose kind has no --lat-iters/--bw-iters given" },
	{ .name = "lat-iters", LP_OPT_U64_AT(PO, plan.iters[LP_PLAN_LAT]),
	  LP_OPT_SET_AT(PO, plan.iters_set[LP_PLAN_LAT]), .min = 1, .max = 1e9, .metavar = "N",
	  .help = "timed iterations of the latency tests (default 1000)" },
	{ .name = "bw-iters", LP_OPT_U64_AT(PO, plan.iters[LP_PLAN_BW]),
	  LP_OPT_SET_AT(PO, plan.iters_set[LP_PLAN_BW]), .min = 1, .max = 1e9, .metavar = "N",
	  .help = "timed iterations of the bandwidth tests (default 5000)" },
	{ .name = "duration", .shortname = 'D', LP_OPT_SECONDS_AT(PO, plan.duration_s),
	  .min = 0.01, .max = 86400, .metavar = "SECS",
	  .help = "run each test for this long instead of a count of iterations" },
	{ .name = "interval", LP_OPT_SECONDS_AT(PO, plan.base.interval_s),
	  .min = LP_IVAL_MIN_S, .max = LP_IVAL_MAX_S, .metavar = "SECS",
	  .help = "split each test into SECS intervals (bandwidth and message rate, or latency "
		  "p50/p99) and keep the min and max interval; lp-rdma prints each as it ends; "
		  "best with -D" },
	{ .name = "warmup", LP_OPT_U64_AT(PO, plan.warmup), LP_OPT_SET_AT(PO, plan.warmup_set),
	  .max = 1e9, .metavar = "N",
	  .help = "untimed iterations first (default 100 latency, 64 bandwidth)" },
	{ .name = "tx-depth", LP_OPT_UINT_AT(PO, plan.tx_depth), LP_OPT_SET_AT(PO, plan.tx_depth_set),
	  .min = 1, .max = 8192, .metavar = "N",
	  .help = "bandwidth: work requests in flight per QP, perftest's -t (default 128)" },
	{ .name = "timeout", LP_OPT_SECONDS_AT(PO, timeout_s), .min = 0.1, .max = 3600,
	  .metavar = "SECS", .help = "bound on every wait without progress inside a test",
	  .def = "10" },
	{ .name = "clock", LP_OPT_STR_AT(PO, clock), .metavar = "C",
	  .help = "auto, tsc or raw (CLOCK_MONOTONIC_RAW); auto takes a calibrated TSC when it is "
		  "invariant or the kernel clock is slow",
	  .def = "auto" },
	{ 0 },
};

const struct lp_opt lp_rdma_tune_opt_rows[] = {
	{ .name = "qps", .shortname = 'q', LP_OPT_UINT_AT(PO, plan.base.num_qps),
	  .min = 1, .max = LP_RDMA_MAX_QPS, .metavar = "N",
	  .help = "bandwidth: QPs, round-robin", .def = "1" },
	{ .name = "post-list", .shortname = 'l', LP_OPT_UINT_AT(PO, plan.base.post_list),
	  .min = 1, .max = LP_RDMA_MAX_POST_LIST, .metavar = "N",
	  .help = "bandwidth: work requests per ibv_post_send", .def = "1" },
	{ .name = "cq-mod", .shortname = 'Q', LP_OPT_UINT_AT(PO, plan.cq_mod),
	  LP_OPT_SET_AT(PO, plan.cq_mod_set), .min = 1, .max = 8192, .metavar = "N",
	  .help = "bandwidth: signal every N-th work request (default 64, at most the tx depth)" },
	{ .name = "rx-depth", .shortname = 'r', LP_OPT_UINT_AT(PO, plan.base.rx_depth),
	  .min = 1, .max = 8192, .metavar = "N", .help = "send tests: receives posted per QP",
	  .def = "512" },
	{ .name = "inline", .shortname = 'I', LP_OPT_UINT_AT(PO, plan.base.inline_size),
	  .max = 4096, .metavar = "BYTES",
	  .help = "max inline data (default: 64 for latency, 0 for bandwidth)" },
	{ .name = "mtu", .shortname = 'm', LP_OPT_UINT_AT(PO, plan.base.mtu), .min = 256,
	  .max = 4096, .metavar = "BYTES",
	  .help = "path MTU 256..4096 (default: the port's active MTU)" },
	{ .name = "bidir", .shortname = 'b', LP_OPT_FLAG_AT(PO, plan.base.bidir),
	  .help = "bandwidth both ways at once (each direction and the sum)" },
	{ .name = "cm", .shortname = 'R', LP_OPT_FLAG_AT(PO, plan.base.use_cm),
	  .help = "connect QPs with librdmacm instead of the exchange, as perftest's -R" },
	{ .name = "verify", LP_OPT_FLAG_AT(PO, plan.base.verify),
	  .help = "check every received byte against the pattern" },
	{ .name = "data-seed", LP_OPT_UINT_AT(PO, plan.seed), LP_OPT_SET_AT(PO, plan.seed_set),
	  .metavar = "N", .help = "seed of the data pattern (default: random per run)" },
	{ .name = "max-samples", LP_OPT_U64_AT(PO, plan.base.max_samples), .min = 1, .max = 1e8,
	  .metavar = "N", .help = "latency samples kept verbatim; past it, histogram percentiles",
	  .def = "1000000" },
	{ .name = "lat-method", LP_OPT_CHOICE_AT(PO, lat_method), .choices = lp_rdma_lat_method_names,
	  .metavar = "M",
	  .help = "write_lat: poll (CPU polls host memory, a GPU kernel polls GPU memory) or imm "
		  "(write with immediate, CPU polls the CQ)",
	  .def = "poll" },
	{ 0 },
};

#define TUNE_REFUSED(c, what)                                                                      \
	{ .shortname = (c), .kind = LP_OPT_REFUSE, .metavar = "N",                                 \
	  .help = "perftest's " what " is an lp-rdma option: a sweep runs every pair with "        \
		  "lp-rdma's default for it (try one pair with lp-rdma)" }
const struct lp_opt lp_rdma_tune_refuse_rows[] = {
	TUNE_REFUSED('q', "-q (QPs, lp-rdma --qps)"),
	TUNE_REFUSED('l', "-l (post list, lp-rdma --post-list)"),
	TUNE_REFUSED('Q', "-Q (CQ moderation, lp-rdma --cq-mod)"),
	TUNE_REFUSED('r', "-r (receive depth, lp-rdma --rx-depth)"),
	TUNE_REFUSED('I', "-I (inline size, lp-rdma --inline)"),
	TUNE_REFUSED('m', "-m (MTU, lp-rdma --mtu)"),
	{ .shortname = 'b', .kind = LP_OPT_REFUSE,
	  .help = "perftest's -b (bidirectional) is lp-rdma --bidir: a sweep measures each "
		  "direction of a pair as its own cell" },
	{ .shortname = 'R', .kind = LP_OPT_REFUSE,
	  .help = "perftest's -R (rdma_cm) is lp-rdma --cm: a sweep connects over MPI" },
	{ 0 },
};

const struct lp_opt lp_rdma_dev_opt_rows[] = {
	{ .name = "dev", .shortname = 'd', LP_OPT_STR_AT(DS, dev), .metavar = "DEV",
	  .help = "RDMA device, or auto: the one closest to the GPU; lp-sweep --rails takes one "
		  "per local rank, comma separated (default: the first with an active port; with "
		  "--rails the rail's GPU's closest)" },
	{ .name = "ib-port", .shortname = 'i', LP_OPT_INT_AT(DS, port), .min = 1, .max = 255,
	  .metavar = "N", .help = "device port (default: the first active)" },
	{ .name = "gid-index", .shortname = 'x', LP_OPT_INT_AT(DS, gid_index), .max = 65535,
	  .metavar = "N",
	  .help = "RoCE GID index (default: a scored choice, RoCEv2 and the peer's address "
		  "family)" },
	{ .name = "tclass", .shortname = 'T', LP_OPT_INT_AT(DS, tclass),
	  LP_OPT_SET_AT(DS, tclass_set), .max = 255,
	  .metavar = "N",
	  .help = "RoCE traffic class of every QP: DSCP << 2 | ECN, as perftest's -T/--tos "
		  "(106 = DSCP 26; default: the device's); lp-rdma --check judges its PFC and ECN" },
	{ .name = "sl", .shortname = 'S', LP_OPT_INT_AT(DS, sl), .max = 15, .metavar = "N",
	  .help = "service level of every QP, as perftest's -S (RoCE: the VLAN priority under PCP "
		  "trust)",
	  .def = "0" },
	{ .name = "qp-timeout", .shortname = 'u', LP_OPT_INT_AT(DS, qp_timeout), .min = 1,
	  .max = 31, .metavar = "N",
	  .help = "local ACK timeout of every QP, 4.096 us x 2^N per try (7 retries), as "
		  "perftest's -u: raise it where drops are normal and slow to recover (18 = 1.07 s: "
		  "emulated links, Soft-RoCE in a loaded guest)",
	  .def = LP_OPT_DEF(LP_RDMA_QP_TIMEOUT_DEFAULT) },
	{ 0 },
};

const struct lp_opt lp_rdma_mem_opt_rows[] = {
	{ .name = "mem", LP_OPT_STR_AT(MS, mem), .metavar = "KIND",
	  .help = "buffer memory of this side (each rank's in lp-sweep): host, cuda or cuda:N "
		  "(default host, or cuda with --gpu)" },
	{ .name = "gpu", LP_OPT_STR_AT(MS, gpu), .metavar = "N|auto",
	  .help = "GPU memory on this GPU (implies --mem cuda): a CUDA index, or auto: the "
		  "visible GPU closest to the NIC (lp-sweep --rails: the rail's)" },
	{ 0 },
};

static const char *const connections[] = { "RC", NULL };

#define REFUSED(c, arg, what)                                                                      \
	{ .shortname = (c), .kind = LP_OPT_REFUSE, .metavar = (arg), .help = "perftest's " what }
const struct lp_opt lp_rdma_perftest_opt_rows[] = {
	{ .name = "connection", .shortname = 'c', LP_OPT_CHOICE_AT(PT, connection),
	  .choices = connections, .metavar = "RC",
	  .help = "QP transport: RC, the only one linkperf measures (perftest's -c)", .def = "RC",
	  .hint = "UC, UD, XRC, DC and SRD are perftest's" },
	{ .name = "cpu-freq", .shortname = 'F', LP_OPT_FLAG_AT(PT, cpu_freq),
	  .help = "accepted for perftest's -F: linkperf never refuses to run on the CPU frequency "
		  "governor (its clock is calibrated, --clock)" },
	{ .name = "seed", .kind = LP_OPT_REFUSE, .metavar = "N",
	  .help = "two seeds, two names: --data-seed (lp-rdma: the data pattern) or "
		  "--schedule-seed (lp-sweep: the random schedule)" },
	REFUSED('w', "BW", "-w (bandwidth limit) has no linkperf counterpart; the warm-up is --warmup"),
	REFUSED('y', "N", "-y (message rate limit) has no linkperf counterpart"),
	REFUSED('o', "N", "-o (outstanding reads) is not settable: linkperf takes the device's"),
	REFUSED('M', "MGID", "-M (multicast GID) has no linkperf counterpart: RC only"),
	REFUSED('g', NULL, "-g (multicast) has no linkperf counterpart: RC only; the GPU is --gpu"),
	REFUSED('A', "TYPE", "-A (atomic type): linkperf measures no atomics"),
	REFUSED('O', NULL, "-O (dual port) has no linkperf counterpart: run one per port (-i)"),
	REFUSED('f', "N", "-f (margin) has no linkperf counterpart: --duration runs whole"),
	REFUSED('B', "MAC", "-B (raw Ethernet source MAC): linkperf measures RC verbs only"),
	REFUSED('E', "MAC", "-E (raw Ethernet destination MAC): linkperf measures RC verbs only"),
	REFUSED('J', "IP", "-J (raw Ethernet destination IP): JSON output is --json here"),
	REFUSED('j', "IP", "-j (raw Ethernet source IP): linkperf measures RC verbs only"),
	REFUSED('K', "PORT", "-K (raw Ethernet destination port): linkperf measures RC verbs only"),
	REFUSED('k', "PORT", "-k (raw Ethernet source port): not linkperf's; lp-sweep's random "
			     "partners are --partners"),
	REFUSED('Y', "TYPE", "-Y (raw Ethernet ethertype): linkperf measures RC verbs only"),
	REFUSED('X', "N", "-X (completion vector) is not settable in linkperf"),
	REFUSED('W', "FILE", "-W (counter file): linkperf reads the port's counters itself "
			     "(lp-rdma --counters, and around every test)"),
	REFUSED('e', NULL, "-e (completion events): linkperf polls completions"),
	REFUSED('z', NULL, "-z (exchange over rdma_cm): the exchange is TCP; QPs over rdma_cm: --cm"),
	REFUSED('L', "N", "-L (hop limit) is not settable: linkperf uses 64"),
	REFUSED('G', NULL, "-G (RSS, raw Ethernet): linkperf measures RC verbs only"),
	REFUSED('v', NULL, "-v (MAC forwarding, raw Ethernet): more messages are --verbose"),
	REFUSED('N', NULL, "-N (no peak): linkperf reports the whole timed phase, never a peak"),
	REFUSED('C', NULL, "-C (cycles): linkperf reports microseconds (the clock: --clock)"),
	REFUSED('H', NULL, "-H (histogram): the JSON has every percentile (--json)"),
	REFUSED('U', NULL, "-U (unsorted samples): the JSON has the percentiles (--json)"),
	REFUSED('P', NULL, "-P (client): lp-rdma is the client when given the server's HOST"),
	{ 0 },
};
/* clang-format on */

int lp_rdma_plan_opts_resolve(struct lp_rdma_plan_opts *po, struct lp_fail *f)
{
	struct lp_rdma_plan *pl = &po->plan;
	const bool kind_set[LP_PLAN_NKINDS] = { po->lat_sizes_set, po->bw_sizes_set };

	if (po->all_sizes && po->sizes_set)
		return lp_fail_set(f, -EINVAL,
				   "-a (every size) and -s name the sizes twice: give one");
	if (po->all_sizes) {
		lp_parse_sizes("2:8M", &po->sizes);
		po->sizes_set = true;
	}
	for (int k = 0; k < LP_PLAN_NKINDS; k++) {
		if (!kind_set[k] && po->sizes_set)
			pl->sizes[k] = po->sizes;
		if (!pl->iters_set[k] && po->iters_set) {
			pl->iters[k] = po->iters;
			pl->iters_set[k] = true;
		}
	}
	if (pl->duration_s > 0 && (pl->iters_set[LP_PLAN_LAT] || pl->iters_set[LP_PLAN_BW]))
		return lp_fail_set(f, -EINVAL, "give either iterations or --duration, not both");
	pl->base.timeout_ms = (int)(po->timeout_s * 1000);
	pl->base.lat_method = lat_method_of[po->lat_method];
	if (lp_clock_init(po->clock))
		return lp_fail_set(
			f, -EINVAL,
			"--clock %s: expected auto, tsc or raw (tsc needs an x86 TSC with a "
			"stable rate)",
			po->clock);
	return 0;
}

int lp_rdma_memsel_resolve(struct lp_rdma_memsel *m, struct lp_fail *f)
{
	uint64_t g;

	if (!m->mem) /* --gpu alone means GPU memory: never host memory in silence */
		m->mem = m->gpu ? "cuda" : "host";
	if (lp_mem_parse(m->mem, &m->kind, &m->dev))
		return lp_fail_set(f, -EINVAL, "--mem %s: expected host, cuda or cuda:N", m->mem);
	if (!m->gpu)
		return 0;
	if (m->kind != LP_MEM_CUDA)
		return lp_fail_set(
			f, -EINVAL,
			"--gpu %s chooses the GPU of GPU memory, but --mem is %s: use --mem cuda "
			"or drop --gpu",
			m->gpu, m->mem);
	m->gpu_auto = !strcmp(m->gpu, "auto");
	if (m->gpu_auto)
		return 0;
	if (lp_parse_u64(m->gpu, &g) || g > 1023)
		return lp_fail_set(f, -EINVAL, "--gpu %s: expected a GPU index or auto", m->gpu);
	if (m->dev >= 0 && (uint64_t)m->dev != g)
		return lp_fail_set(f, -EINVAL, "--mem %s and --gpu %s name different GPUs", m->mem,
				   m->gpu);
	m->dev = (int)g;
	return 0;
}
