// SPDX-License-Identifier: MIT
/*
 * lp-sweep: the cluster harness. Launched by mpirun or srun with one rank per
 * node (or, with --rails, one rank per NIC), it measures lp-rdma tests between
 * node pairs on a schedule, retests suspects in isolation, names slow nodes and
 * slow links, and exits 1 when anything is flagged (a health gate).
 * docs/SWEEP.md has the method, the CLI and the sweep-time model.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mpi.h>

#include "common/clock.h"
#include "common/lp.h"
#include "common/meta.h"
#include "common/opt.h"
#include "common/topo.h"
#include "rdma/plan.h"
#include "rdma/rdma.h"
#include "sweep/absent.h"
#include "sweep/diag.h"
#include "sweep/mpi/sweep_mpi.h"
#include "sweep/result.h"
#include "sweep/sched.h"

enum { TAG_CELLS = 11, TAG_RETEST_LIST = 12, TAG_RETEST_CELLS = 13 };

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

struct cli {
	int schedule;
	unsigned k;
	uint64_t seed;
	const char *dev, *mem, *json_path, *csv_prefix, *clock, *diagnose, *absent;
	double pair_timeout, test_timeout;
	unsigned ib_port, retest_max, retest_per_node, retest_rounds, poll_ms;
	int gid_index;
	bool rails, quiet, verbose, help, version, test_timeout_set;
	struct lp_rdma_plan plan;	/* tests, sizes, iterations ...: as lp-rdma's (rdma/plan.h) */
	struct lp_diag_opts d;
};

/* lp_mem_parse, plus: with --rails, plain "cuda" means the rail's own GPU. */
static int parse_mem(const char *s, int rail, bool rails, int *kind_p, int *dev_p)
{
	int ret = lp_mem_parse(s, kind_p, dev_p);

	if (!ret && *kind_p == LP_MEM_CUDA && *dev_p < 0 && rails)
		*dev_p = rail; /* rail i drives GPU i */
	return ret;
}

/*
 * Rail `rail` through the PCI mapping: the NIC closest to the CUDA-visible GPU
 * of that ordinal (no GPUs: the rail-th usable NIC by name). "" when the
 * topology cannot say.
 */
static void pick_rail_nic(int rail, char *out, size_t len)
{
	struct lp_topo t;
	int g = -1, nic = -1;

	if (lp_topo_scan("", &t))
		return;
	lp_topo_set_visible(&t, getenv("CUDA_VISIBLE_DEVICES"));
	if (!lp_topo_rail(&t, rail, &g, &nic))
		snprintf(out, len, "%s", t.nics[nic].name);
	if (g >= 0 && out[0] && lp_topo_distance(&t, g, nic) >= LP_TOPO_NODE)
		lp_warn("rail %d: GPU %s's closest NIC %s is %s from it", rail, t.gpus[g].bdf, out,
			lp_topo_dist_name(lp_topo_distance(&t, g, nic)));
	lp_topo_free(&t);
}

/* The device for this rank: item `rail` of a comma list, or rail `rail` of the host's PCI mapping. */
static void pick_dev(const struct cli *o, int rail, char *out, size_t len)
{
	char buf[512];
	const char *items[64];
	int n = 0;

	out[0] = 0;
	if (o->dev && *o->dev) {
		if (!lp_split_list(o->dev, buf, sizeof(buf), items, 64, &n) && n > 0)
			snprintf(out, len, "%s", items[o->rails ? rail % n : 0]);
		return;
	}
	if (!o->rails)
		return;	/* first usable device */
	pick_rail_nic(rail, out, len);
	if (out[0])
		return;
	lp_rdma_dev_list(buf, sizeof(buf)); /* no PCIe topology: the rail-th verbs device */
	if (!lp_split_list(buf, buf, sizeof(buf), items, 64, &n) && rail < n)
		snprintf(out, len, "%s", items[rail]);
}

static void node_from_dev(struct lp_sweep_node *nd, const struct lp_rdma_devinfo *d)
{
	snprintf(nd->dev, sizeof(nd->dev), "%s", d->name);
	nd->port = d->port;
	snprintf(nd->link_layer, sizeof(nd->link_layer), "%s", d->link_layer);
	snprintf(nd->gid_type, sizeof(nd->gid_type), "%s", d->gid_type);
	snprintf(nd->gid, sizeof(nd->gid), "%s", d->gid);
	nd->gid_index = d->gid_index;
	snprintf(nd->fw, sizeof(nd->fw), "%s", d->fw);
	snprintf(nd->speed, sizeof(nd->speed), "%s", d->speed);
	nd->width = d->width;
	nd->rate_gbps = d->rate_gbps;
	nd->mtu = d->active_mtu;
	snprintf(nd->netdev, sizeof(nd->netdev), "%s", d->netdev);
	nd->numa_node = d->numa_node;
}

/*
 * GPUDirect: which GPU this rank's memory is on and how far it sits from the
 * NIC (nvidia-smi topo vocabulary). A pair across sockets (SYS) is the most
 * common 2-6x loss, so it is recorded and warned about.
 */
static void gpu_topology(struct lp_sweep_node *nd, int mem_dev)
{
	struct lp_topo t;
	int gpu, nic;

	if (lp_topo_scan(NULL, &t))
		return;
	/* mem_dev is a CUDA ordinal: the GPU it names under CUDA_VISIBLE_DEVICES, not PCI position */
	lp_topo_set_visible(&t, getenv("CUDA_VISIBLE_DEVICES"));
	gpu = lp_topo_gpu_of_cuda(&t, mem_dev < 0 ? 0 : mem_dev);
	if (gpu >= 0) {
		snprintf(nd->gpu_bdf, sizeof(nd->gpu_bdf), "%s", t.gpus[gpu].bdf);
		nic = lp_topo_nic_index(&t, nd->dev);
		if (nic >= 0) {
			enum lp_topo_dist dd = lp_topo_distance(&t, gpu, nic);

			snprintf(nd->gpu_nic, sizeof(nd->gpu_nic), "%s", lp_topo_dist_name(dd));
			if (dd == LP_TOPO_SYS)
				lp_warn("GPU %d (%s) and %s are on different NUMA nodes (SYS): "
					"GPUDirect traffic crosses the inter-socket link",
					mem_dev < 0 ? 0 : mem_dev, t.gpus[gpu].bdf, nd->dev);
		}
	}
	lp_topo_free(&t);
}

/* Labels must be unique: "host", "host/rail", or "host#rank" when ranks share a host. */
static void unique_names(struct lp_sweep_mpi *x, struct lp_sweep_node *me)
{
	char (*orig)[80] = malloc((size_t)x->size * 80);

	if (!orig)
		return;
	memcpy(orig, x->name_all, (size_t)x->size * 80);
	for (int i = 0; i < x->size; i++)
		for (int j = 0; j < x->size; j++)
			if (i != j && !strcmp(orig[i], orig[j])) {
				char tmp[80];

				snprintf(tmp, sizeof(tmp), "%.70s#%d", orig[i], i);
				snprintf(x->name_all[i], 80, "%s", tmp);
				break;
			}
	snprintf(me->name, sizeof(me->name), "%s", x->name_all[x->rank]);
	free(orig);
}

/* Every pair's runs from lp-rdma's plan builder, with this rank's memory and the sweep's sample cap. */
static int add_metrics(const struct cli *o, struct lp_sweep_run *run, struct lp_sweep_cfg *cfg,
		       int mem, int mem_dev)
{
	struct lp_rdma_plan pl = o->plan;
	char why[200];
	int n;

	pl.base.mem = (enum lp_mem_kind)mem;
	pl.base.mem_dev = mem_dev;
	pl.base.max_samples = LP_MIN(pl.base.max_samples, 100000);
	if (o->test_timeout_set)
		pl.base.timeout_ms = (int)(o->test_timeout * 1000);
	if (lp_rdma_plan_build(&pl, cfg->params, LP_SWEEP_MAX_METRICS, &n, why, sizeof(why))) {
		lp_err("%s", why);
		return -EINVAL;
	}
	for (int m = 0; m < n; m++) {
		const struct lp_rdma_params *p = &cfg->params[m];

		lp_sweep_add_metric(run, lp_rdma_test_names[p->test], (int)p->test,
				    lp_rdma_test_is_lat(p->test), p->size);
	}
	cfg->nmetrics = n;
	return 0;
}

/* Exit code when no rank has a device: 77 when all say "not here", else the worst. */
static int no_device_code(const struct lp_sweep_mpi *x)
{
	int code = LP_EXIT_UNSUPPORTED;

	for (int i = 0; i < x->size; i++) {
		int c = lp_exit_code(x->status_all[i]);

		if (c == LP_EXIT_USAGE)
			return LP_EXIT_USAGE;
		if (c != LP_EXIT_UNSUPPORTED)
			code = LP_EXIT_FAIL;
	}
	return code;
}

static int write_outputs(const struct cli *o, struct lp_sweep_run *run, int code)
{
	int rc = 0;

	if (!o->quiet)
		lp_sweep_print_summary(run, stdout);
	fflush(stdout);
	if (o->json_path) {
		FILE *f = lp_out_open(o->json_path);

		if (!f) {
			rc = -EIO;
		} else {
			rc = lp_sweep_write_json(run, f, code);
			if (lp_out_close(f, o->json_path))
				rc = -EIO;
		}
	}
	if (o->csv_prefix && lp_sweep_write_csv(run, o->csv_prefix))
		rc = -EIO;
	return rc;
}

/*
 * --diagnose RUN.json: a recorded run re-analysed here, without MPI or RDMA.
 * Thresholds given on the command line (not NaN) replace the recorded ones.
 */
static int diagnose_offline(const struct cli *o)
{
	struct lp_sweep_run run;
	char why[256];
	int code, ret = lp_sweep_read_json(&run, o->diagnose, why, sizeof(why));

	if (ret) {
		lp_err("%s: %s", o->diagnose, why);
		return ret == -ENOTSUP ? LP_EXIT_UNSUPPORTED : ret == -ENOMEM ? LP_EXIT_FAIL : LP_EXIT_USAGE;
	}
	lp_diag_opts_merge(&run.dopts, &o->d);
	if (lp_sweep_diagnose(&run)) {
		lp_err("diagnosis failed (out of memory or bad thresholds)");
		lp_sweep_run_free(&run);
		return LP_EXIT_FAIL;
	}
	code = lp_sweep_exit_code(&run);
	if (write_outputs(o, &run, code))
		code = LP_EXIT_FAIL;
	lp_sweep_run_free(&run);
	return code;
}

static int finish(struct lp_sweep_mpi *x, int code)
{
	if (x->lost) {
		/* a rank is missing or late: MPI_Finalize could wait for it forever */
		for (int i = 0; i < x->pending; i++)
			if (lp_mpi_wait(&x->pending_req[i], NULL, lp_now_ns() + 5000000000ull, 20000))
				break;
		fflush(stdout);
		fflush(stderr);
		lp_warn("some rank did not keep up; ending the job with MPI_Abort (exit %d)", code);
		MPI_Abort(MPI_COMM_WORLD, code ? code : LP_EXIT_FAIL);
	}
	lp_sweep_mpi_free(x);
	MPI_Finalize();
	return code;
}

int main(int argc, char **argv)
{
	static const struct cli defaults = {
		.gid_index = -1,
	};
	struct cli o = defaults;
	struct lp_rdma_plan *pl = &o.plan;
	const struct lp_opt opts[] = {
		{ .name = "schedule", .kind = LP_OPT_CHOICE, .dst = &o.schedule, .choices = lp_sched_names, .metavar = "S", .def = "round-robin", .help = "round-robin (N-1 rounds of N/2 pairs), isolated (one pair at a time), ring (all at once, mpiGraph shift), random (k partners each)" },
		{ .name = "partners", .shortname = 'k', .kind = LP_OPT_UINT, .dst = &o.k, .min = 1, .max = 4096, .metavar = "K", .help = "random: partners drawn per node", .def = "4" },
		{ .name = "seed", .kind = LP_OPT_U64, .dst = &o.seed, .metavar = "N", .help = "random: schedule seed", .def = "1" },
		{ .name = "tests", .shortname = 't', .kind = LP_OPT_LIST, .dst = &pl->tests, .choices = lp_rdma_test_names, .metavar = "LIST", .help = "lp-rdma tests per pair", .def = "write_lat,write_bw" },
		{ .name = "sizes", .shortname = 's', .kind = LP_OPT_SIZES, .dst = &pl->sizes[LP_PLAN_BW], .min = 1, .max = (double)LP_RDMA_MAX_SIZE, .metavar = "SIZES", .help = "bandwidth sizes: 64K, 4K:1M, 64K,1M", .def = "1M" },
		{ .name = "lat-sizes", .kind = LP_OPT_SIZES, .dst = &pl->sizes[LP_PLAN_LAT], .min = 1, .max = (double)LP_RDMA_MAX_SIZE, .metavar = "SIZES", .help = "latency sizes", .def = "8" },
		{ .name = "bw-iters", .shortname = 'n', .kind = LP_OPT_U64, .dst = &pl->iters[LP_PLAN_BW], .min = 1, .max = 1e9, .metavar = "N", .help = "bandwidth iterations per pair (default lp-rdma's 5000)", .set = &pl->iters_set[LP_PLAN_BW] },
		{ .name = "lat-iters", .kind = LP_OPT_U64, .dst = &pl->iters[LP_PLAN_LAT], .min = 1, .max = 1e9, .metavar = "N", .help = "latency iterations per pair (default lp-rdma's 1000)", .set = &pl->iters_set[LP_PLAN_LAT] },
		{ .name = "warmup", .shortname = 'w', .kind = LP_OPT_U64, .dst = &pl->warmup, .max = 1e9, .metavar = "N", .help = "untimed iterations first (default lp-rdma's)", .set = &pl->warmup_set },
		{ .name = "duration", .shortname = 'D', .kind = LP_OPT_SECONDS, .dst = &pl->duration_s, .min = 0.01, .max = 3600, .metavar = "SECS", .help = "run each test for this long instead of iterations" },
		{ .name = "tx-depth", .shortname = 'T', .kind = LP_OPT_UINT, .dst = &pl->tx_depth, .min = 1, .max = 8192, .metavar = "N", .help = "bandwidth: WRs in flight (default 128)", .set = &pl->tx_depth_set },
		{ .name = "dev", .shortname = 'd', .kind = LP_OPT_STR, .dst = &o.dev, .metavar = "DEV[,DEV]", .help = "RDMA device; with --rails one per local rank (default: first active / i-th device)" },
		{ .name = "ib-port", .shortname = 'i', .kind = LP_OPT_UINT, .dst = &o.ib_port, .min = 1, .max = 255, .metavar = "N", .help = "device port (default: first active)" },
		{ .name = "gid-index", .shortname = 'x', .kind = LP_OPT_INT, .dst = &o.gid_index, .max = 65535, .metavar = "N", .help = "RoCE GID index (default: scored choice)" },
		{ .name = "mem", .kind = LP_OPT_STR, .dst = &o.mem, .metavar = "KIND", .help = "host, cuda or cuda:N (with --rails, cuda = GPU of the rail)", .def = "host" },
		{ .name = "rails", .kind = LP_OPT_FLAG, .dst = &o.rails, .help = "one rank per rail: local rank i drives CUDA GPU i and the NIC closest to it (PCIe); pairs stay on their rail" },
		{ .name = "pair-timeout", .kind = LP_OPT_SECONDS, .dst = &o.pair_timeout, .min = 1, .max = 86400, .metavar = "SECS", .help = "bound on one test of one pair, set-up included", .def = "60" },
		{ .name = "timeout", .kind = LP_OPT_SECONDS, .dst = &o.test_timeout, .min = 0.1, .max = 3600, .metavar = "SECS", .help = "no-progress bound inside a test (default lp-rdma's 10)", .set = &o.test_timeout_set },
		{ .name = "retest", .kind = LP_OPT_UINT, .dst = &o.retest_max, .max = 1000000, .metavar = "N", .help = "isolated retests of suspect pairs per retest round at most (0 = off)", .def = "32" },
		{ .name = "retest-rounds", .kind = LP_OPT_UINT, .dst = &o.retest_rounds, .min = 1, .max = 20, .metavar = "N", .help = "retest rounds: a link stays suspect only while every retest is slow too", .def = "3" },
		{ .name = "retest-per-node", .kind = LP_OPT_UINT, .dst = &o.retest_per_node, .min = 1, .max = 1000, .metavar = "N", .help = "suspect node: cells retested in the first round", .def = "2" },
		{ .name = "k-mad", .kind = LP_OPT_DOUBLE, .dst = &o.d.k, .max = 100, .metavar = "K", .help = "a node effect beyond K standard errors is slow, a link beyond K+1 (default 4)" },
		{ .name = "rel", .kind = LP_OPT_DOUBLE, .dst = &o.d.rel, .max = 1, .metavar = "F", .help = "and beyond this fraction of the reference; smaller is never flagged (default 0.1)" },
		{ .name = "rel-max", .kind = LP_OPT_DOUBLE, .dst = &o.d.rel_max, .max = 1, .metavar = "F", .help = "noise ceiling: inconclusive (exit 3) when a node this much slower could hide in the noise (default 0.5)" },
		{ .name = "vote", .kind = LP_OPT_DOUBLE, .dst = &o.d.vote, .min = 0.01, .max = 0.99, .metavar = "F", .help = "node failed (or below a floor): more than this fraction of its cells (default 0.5)" },
		{ .name = "min-gbps", .kind = LP_OPT_DOUBLE, .dst = &o.d.min_gbps, .max = 1e6, .metavar = "GBPS", .help = "absolute floor: bandwidth cells below are slow (Gb/s; default off)" },
		{ .name = "max-lat-us", .kind = LP_OPT_DOUBLE, .dst = &o.d.max_lat_us, .max = 1e9, .metavar = "US", .help = "absolute ceiling: latency cells above are slow (us; default off)" },
		{ .name = "absent", .kind = LP_OPT_STR, .dst = &o.absent, .metavar = "NAME=WHY;..", .help = "nodes that belong in the sweep but have no rank (left out of the job: drained, down): recorded, their cells failed with WHY" },
		{ .name = "json", .shortname = 'J', .kind = LP_OPT_STR, .dst = &o.json_path, .metavar = "FILE", .help = "write the whole run as one JSON document (- = stdout)" },
		{ .name = "diagnose", .kind = LP_OPT_STR, .dst = &o.diagnose, .metavar = "RUN.json", .help = "re-analyse a recorded run here, no MPI or RDMA: same summary, JSON and exit code; thresholds given here replace the recorded ones" },
		{ .name = "csv", .kind = LP_OPT_STR, .dst = &o.csv_prefix, .metavar = "PREFIX", .help = "write PREFIX-<test>-<size>.csv matrices and PREFIX-cells.csv" },
		{ .name = "poll-ms", .kind = LP_OPT_UINT, .dst = &o.poll_ms, .min = 1, .max = 1000, .metavar = "MS", .help = "longest sleep between MPI polls", .def = "20" },
		{ .name = "clock", .kind = LP_OPT_STR, .dst = &o.clock, .metavar = "C", .help = "auto, tsc or raw (as lp-rdma)" },
		{ .name = "quiet", .shortname = 'q', .kind = LP_OPT_FLAG, .dst = &o.quiet, .help = "no summary on stdout" },
		{ .name = "verbose", .shortname = 'v', .kind = LP_OPT_FLAG, .dst = &o.verbose, .help = "log rounds and pair errors" },
		{ .name = "version", .kind = LP_OPT_FLAG, .dst = &o.version, .help = "print the version" },
		{ 0 },
	};
	struct lp_sweep_mpi x;
	struct lp_sweep_node me;
	struct lp_sweep_run run;
	struct lp_sweep_cfg cfg;
	struct lp_sched sched;
	struct lp_host_meta hm;
	struct lp_rdma_devsel sel;
	const char *pos[4];
	char devname[64], prog[32], why[256];
	int npos = 0, ret, code = LP_EXIT_OK, mem = 0, mem_dev = -1, local = 0, *groups;
	uint64_t t0, t1;
	int32_t *pairs = NULL;
	size_t np = 0;

	lp_rdma_plan_init(pl);
	for (int i = 1; i < argc; i++) {	/* --diagnose: before MPI_Init, no mpirun needed */
		if (strncmp(argv[i], "--diagnose", 10) || (argv[i][10] && argv[i][10] != '='))
			continue;
		o.d = (struct lp_diag_opts){ NAN, NAN, NAN, NAN, NAN, NAN };	/* NaN: as recorded */
		ret = lp_opt_parse(opts, argc, argv, pos, 4, &npos, &o.help);
		if (!ret && npos) {
			lp_err("unexpected argument '%s'", pos[0]);
			ret = -EINVAL;
		}
		if (ret || o.help || !o.diagnose) {
			if (o.help)
				lp_opt_usage(stdout, "lp-sweep --diagnose RUN.json [thresholds] [outputs]", opts);
			return ret ? LP_EXIT_USAGE : LP_EXIT_OK;
		}
		return diagnose_offline(&o);
	}
	lp_diag_opts_default(&o.d);
	if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
		fprintf(stderr, "lp-sweep: MPI_Init failed\n");
		return LP_EXIT_FAIL;
	}
	memset(&x, 0, sizeof(x));
	x.comm = MPI_COMM_NULL;
	if (lp_sweep_mpi_init(&x, MPI_COMM_WORLD)) {
		fprintf(stderr, "lp-sweep: MPI set-up failed\n");
		MPI_Abort(MPI_COMM_WORLD, LP_EXIT_FAIL);
	}
	snprintf(prog, sizeof(prog), x.rank ? "lp-sweep[%d]" : "lp-sweep", x.rank);
	lp_log_set_prog(prog);
	/* every rank parses the same argv; only rank 0 speaks about it */
	if (x.rank)
		lp_log_set_level(LP_LOG_QUIET);
	ret = lp_opt_parse(opts, argc, argv, pos, 4, &npos, &o.help);
	if (!ret && npos) {
		lp_err("unexpected argument '%s'", pos[0]);
		ret = -EINVAL;
	}
	if (!ret && parse_mem(o.mem, 0, o.rails, &mem, &mem_dev)) {
		lp_err("--mem %s: expected host, cuda or cuda:N", o.mem);
		ret = -EINVAL;
	}
	if (!ret && pl->duration_s > 0 && (pl->iters_set[LP_PLAN_LAT] || pl->iters_set[LP_PLAN_BW])) {
		lp_err("give either iterations or --duration, not both");
		ret = -EINVAL;
	}
	if (!ret && lp_clock_init(o.clock)) {
		lp_err("--clock %s: expected auto, tsc or raw", o.clock ? o.clock : "");
		ret = -EINVAL;
	}
	if (ret || o.help || o.version) {
		if (o.help && !x.rank)
			lp_opt_usage(stdout, "mpirun -np N [--map-by node] lp-sweep [options]", opts);
		if (o.version && !x.rank)
			printf("lp-sweep %s\n", LP_VERSION);
		return finish(&x, ret ? LP_EXIT_USAGE : LP_EXIT_OK);
	}
	lp_log_set_level(o.verbose ? LP_LOG_INFO : LP_LOG_WARN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	x.poll_max_us = (int)o.poll_ms * 1000;

	/* this rank: host, rail, device */
	if (o.rails && lp_sweep_mpi_local_rank(MPI_COMM_WORLD, &local))
		local = 0;
	lp_host_meta_collect(&hm);
	memset(&me, 0, sizeof(me));
	me.rank = x.rank;
	me.rail = o.rails ? local : 0;
	snprintf(me.host, sizeof(me.host), "%s", hm.host);
	snprintf(me.kernel, sizeof(me.kernel), "%s", hm.kernel);
	if (o.rails)
		snprintf(me.name, sizeof(me.name), "%.60s/%d", hm.host, local);
	else
		snprintf(me.name, sizeof(me.name), "%.70s", hm.host);
	parse_mem(o.mem, me.rail, o.rails, &mem, &mem_dev);
	if (mem == LP_MEM_CUDA)
		snprintf(me.mem, sizeof(me.mem), mem_dev >= 0 ? "cuda:%d" : "cuda", mem_dev);
	else
		snprintf(me.mem, sizeof(me.mem), "host");
	me.numa_node = -1;
	pick_dev(&o, me.rail, devname, sizeof(devname));
	sel = (struct lp_rdma_devsel){ .dev = devname[0] ? devname : NULL, .port = (int)o.ib_port,
				       .gid_index = o.gid_index, .tclass = -1, .sl = 0 };
	ret = lp_rdma_dev_open(&sel, AF_INET, &x.dev);
	if (ret) {
		char list[256] = "";

		x.dev = NULL;
		x.dev_status = ret;
		lp_rdma_dev_list(list, sizeof(list));
		snprintf(x.dev_error, sizeof(x.dev_error), "cannot open %s: %s (devices here: %s)",
			 devname[0] ? devname : "an RDMA device", strerror(-ret), list[0] ? list : "none");
		lp_warn("%s", x.dev_error);
		me.status = ret;
		snprintf(me.error, sizeof(me.error), "%s", x.dev_error);
		snprintf(me.dev, sizeof(me.dev), "%s", devname);
	} else {
		node_from_dev(&me, lp_rdma_dev_info(x.dev));
		if (mem == LP_MEM_CUDA)
			gpu_topology(&me, mem_dev);
	}
	x.dev_status = me.status;

	/* everyone learns who can measure; labels made unique */
	if (lp_sweep_mpi_exchange(&x, &me))
		return finish(&x, LP_EXIT_FAIL);
	unique_names(&x, &me);
	bool any = false;

	for (int i = 0; i < x.size; i++)
		any = any || !x.status_all[i];
	if (!any) {
		if (!x.rank)
			lp_err("no rank could open an RDMA device (rank 0: %s)", x.dev_error);
		return finish(&x, no_device_code(&x));
	}

	memset(&cfg, 0, sizeof(cfg));
	if (lp_sweep_run_init(&run, x.size))
		return finish(&x, LP_EXIT_FAIL);
	run.dopts = o.d;
	ret = add_metrics(&o, &run, &cfg, mem, mem_dev);
	if (ret)
		return finish(&x, LP_EXIT_USAGE);
	cfg.kind = (enum lp_sched_kind)o.schedule;
	cfg.random_k = (int)o.k;
	cfg.seed = o.seed;
	cfg.rails = o.rails;
	cfg.pair_timeout_s = o.pair_timeout;
	cfg.retest_max = (int)o.retest_max;
	cfg.retest_per_node = (int)o.retest_per_node;
	cfg.poll_max_us = x.poll_max_us;
	cfg.sopts = (struct lp_rdma_server_opts){ .mem = (enum lp_mem_kind)mem, .mem_dev = mem_dev,
						  .stop = &stop_flag };
	groups = calloc(x.size, sizeof(int));
	if (!groups)
		return finish(&x, LP_EXIT_FAIL);
	for (int i = 0; i < x.size; i++)
		groups[i] = o.rails ? x.rail_all[i] : 0;
	ret = lp_sched_build_groups(&sched, cfg.kind, x.size, groups, cfg.random_k, cfg.seed);
	free(groups);
	if (ret) {
		lp_err("cannot build the schedule: %s", strerror(-ret));
		return finish(&x, LP_EXIT_FAIL);
	}
	run.sched = &sched;
	run.sched_name = lp_sched_names[cfg.kind];
	run.rails = o.rails;
	run.random_k = cfg.kind == LP_SCHED_RANDOM ? cfg.random_k : 0;
	run.seed = cfg.seed;
	run.pair_timeout_s = cfg.pair_timeout_s;
	run.bw_iters = pl->iters[LP_PLAN_BW];
	run.lat_iters = pl->iters[LP_PLAN_LAT];
	run.retest_max = cfg.retest_max;
	run.retest_rounds = (int)o.retest_rounds;
	lp_time_iso8601(run.started, sizeof(run.started));
	lp_sweep_mpi_gather_nodes(&x, &me, &run);
	if (lp_sweep_add_absent(&run, o.absent, why, sizeof(why))) { /* the same on every rank */
		lp_err("--absent: %s", why);
		return finish(&x, LP_EXIT_USAGE);
	}
	if (!x.rank && !o.quiet)
		printf("lp-sweep: %d ranks, %s schedule, %zu rounds, %zu ordered pairs x %d tests, "
		       "pair timeout %.0f s\n",
		       x.size, run.sched_name, sched.nrounds, lp_sched_ordered_pairs(&sched), cfg.nmetrics,
		       cfg.pair_timeout_s);
	fflush(stdout);

	/* the sweep */
	t0 = lp_now_ns();
	ret = lp_sweep_mpi_run(&x, &cfg, &sched, LP_PHASE_SWEEP);
	/* SIGINT/SIGTERM: every rank stops at the same round; the cells done so far are written. */
	run.interrupted = ret == -EINTR;
	t1 = lp_now_ns();
	run.sweep_s = (double)(t1 - t0) / 1e9;
	lp_sweep_mpi_gather_cells(&x, &run, TAG_CELLS);

	/*
	 * Suspects again, alone: rank 0 decides, everyone runs the list one pair at a
	 * time. A link rests on one cell, so it is retested until a retest clears it
	 * or the rounds run out (the diagnosis keeps the best value of every attempt);
	 * a node that every partner sees slow is settled after one retest, a split
	 * vote is retested again.
	 */
	for (unsigned rr = 0; !run.interrupted && cfg.retest_max > 0 && rr < o.retest_rounds; rr++) {
		int tag_list = TAG_RETEST_LIST + 2 * (int)rr, tag_cells = TAG_RETEST_CELLS + 2 * (int)rr;

		np = 0;
		if (!x.rank) {
			pairs = malloc(((size_t)cfg.retest_max + 1) * 2 * sizeof(int32_t));
			if (pairs && !lp_sweep_diagnose(&run))
				np = lp_sweep_suspects(&run, cfg.retest_per_node, (int)rr, pairs,
						       cfg.retest_max);
		}
		if (lp_sweep_mpi_bcast_pairs(&x, &pairs, &np, tag_list) || np == 0) {
			free(pairs);
			pairs = NULL;
			break;
		}
		struct lp_sched rs;

		if (!lp_sched_from_list(&rs, x.size, pairs, np)) {
			if (!x.rank && !o.quiet)
				printf("lp-sweep: retest round %u: %zu suspect pair(s) in isolation\n", rr + 1, np);
			fflush(stdout);
			run.interrupted = lp_sweep_mpi_run(&x, &cfg, &rs, LP_PHASE_RETEST) == -EINTR;
			lp_sched_free(&rs);
			lp_sweep_mpi_gather_cells(&x, &run, tag_cells);
			run.nretests += np;
		}
		free(pairs);
		pairs = NULL;
	}
	run.retest_s = (double)(lp_now_ns() - t1) / 1e9;
	run.wall_s = (double)(lp_now_ns() - t0) / 1e9;

	if (!x.rank) {
		if (lp_sweep_diagnose(&run)) {
			lp_err("diagnosis failed (out of memory)");
			code = LP_EXIT_FAIL;
		} else {
			code = lp_sweep_exit_code(&run);
		}
		if (run.interrupted) {
			code = LP_EXIT_INTERRUPTED;
			lp_err("interrupted: writing the %zu cells measured so far", run.ncells);
		}
		if (write_outputs(&o, &run, code))
			code = LP_EXIT_FAIL;
	}
	if (run.interrupted && x.rank) /* every rank ends with 130, as rank 0 does */
		code = LP_EXIT_INTERRUPTED;
	lp_sched_free(&sched);
	lp_sweep_run_free(&run);
	if (x.dev)
		lp_rdma_dev_close(x.dev);
	return finish(&x, code);
}
