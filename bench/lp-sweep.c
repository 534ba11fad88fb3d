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
	const char *tests, *dev, *mem, *json_path, *csv_prefix, *clock, *diagnose, *absent;
	struct lp_sizes sizes, lat_sizes;
	uint64_t bw_iters, lat_iters, warmup;
	double duration, pair_timeout, test_timeout;
	unsigned ib_port, tx_depth, retest_max, retest_per_node, retest_rounds, poll_ms;
	int gid_index;
	bool rails, quiet, verbose, help, version;
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

static int add_metrics(const struct cli *o, struct lp_sweep_run *run, struct lp_sweep_cfg *cfg,
		       int mem, int mem_dev)
{
	char buf[512];
	const char *names[64];
	int n;

	if (lp_split_list(o->tests, buf, sizeof(buf), names, 64, &n))
		return -EINVAL;
	for (int t = 0; t < n; t++) {
		int ti = lp_choice_index(lp_rdma_test_names, names[t]);
		bool lat = lp_rdma_test_is_lat((enum lp_rdma_test)ti);
		struct lp_sizes sz = lat ? o->lat_sizes : o->sizes;

		if (!sz.n) {
			sz.n = 1;
			sz.v[0] = lat ? 8 : 1 << 20;
		}
		for (unsigned s = 0; s < sz.n; s++) {
			struct lp_rdma_params *p;
			char why[160];
			int m = lp_sweep_add_metric(run, names[t], ti, lat, sz.v[s]);

			if (m < 0) {
				lp_err("too many tests x sizes (at most %d)", LP_SWEEP_MAX_METRICS);
				return -E2BIG;
			}
			p = &cfg->params[m];
			lp_rdma_params_default(p, (enum lp_rdma_test)ti);
			p->size = sz.v[s];
			if (lat ? o->lat_iters : o->bw_iters)
				p->iters = lat ? o->lat_iters : o->bw_iters;
			if (o->warmup != UINT64_MAX)
				p->warmup = o->warmup;
			if (o->duration > 0) {
				p->duration_s = o->duration;
				p->iters = 0;
			}
			if (!lat && o->tx_depth)
				p->tx_depth = o->tx_depth;
			if (o->test_timeout > 0)
				p->timeout_ms = (int)(o->test_timeout * 1000);
			p->mem = (enum lp_mem_kind)mem;
			p->mem_dev = mem_dev;
			p->max_samples = LP_MIN(p->max_samples, 100000);
			if (lp_rdma_params_check(p, why, sizeof(why))) {
				lp_err("%s at %llu bytes: %s", names[t], (unsigned long long)sz.v[s], why);
				return -EINVAL;
			}
			cfg->nmetrics = m + 1;
		}
	}
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
		.tests = "write_lat,write_bw", .mem = "host", .k = 4, .seed = 1,
		.pair_timeout = 60, .retest_max = 32, .retest_per_node = 2, .retest_rounds = 3, .poll_ms = 20,
		.gid_index = -1, .warmup = UINT64_MAX,
	};
	struct cli o = defaults;
	const struct lp_opt opts[] = {
		{ "schedule", 's', LP_OPT_CHOICE, &o.schedule, 0, 0, lp_sched_names, "S", "round-robin (default: N-1 rounds of N/2 pairs), isolated (one pair at a time), ring (all at once, mpiGraph shift), random (k partners each)" },
		{ "partners", 'k', LP_OPT_UINT, &o.k, 1, 4096, NULL, "K", "random: partners drawn per node (default 4)" },
		{ "seed", 0, LP_OPT_U64, &o.seed, 0, 0, NULL, "N", "random: schedule seed (default 1)" },
		{ "tests", 't', LP_OPT_LIST, &o.tests, 0, 0, lp_rdma_test_names, "LIST", "lp-rdma tests per pair (default write_lat,write_bw)" },
		{ "sizes", 'S', LP_OPT_SIZES, &o.sizes, 1, (double)(1ull << 30), NULL, "SIZES", "bandwidth sizes: 64K, 4K:1M, 64K,1M (default 1M)" },
		{ "lat-sizes", 0, LP_OPT_SIZES, &o.lat_sizes, 1, (double)(1ull << 30), NULL, "SIZES", "latency sizes (default 8)" },
		{ "bw-iters", 'n', LP_OPT_U64, &o.bw_iters, 1, 1e9, NULL, "N", "bandwidth iterations per pair (default lp-rdma's 5000)" },
		{ "lat-iters", 0, LP_OPT_U64, &o.lat_iters, 1, 1e9, NULL, "N", "latency iterations per pair (default lp-rdma's 1000)" },
		{ "warmup", 'w', LP_OPT_U64, &o.warmup, 0, 1e9, NULL, "N", "untimed iterations first (default lp-rdma's)" },
		{ "duration", 'D', LP_OPT_SECONDS, &o.duration, 0.01, 3600, NULL, "SECS", "run each test for this long instead of iterations" },
		{ "tx-depth", 'T', LP_OPT_UINT, &o.tx_depth, 1, 8192, NULL, "N", "bandwidth: WRs in flight (default 128)" },
		{ "dev", 'd', LP_OPT_STR, &o.dev, 0, 0, NULL, "DEV[,DEV]", "RDMA device; with --rails one per local rank (default: first active / i-th device)" },
		{ "ib-port", 'i', LP_OPT_UINT, &o.ib_port, 1, 255, NULL, "N", "device port (default: first active)" },
		{ "gid-index", 'x', LP_OPT_INT, &o.gid_index, 0, 65535, NULL, "N", "RoCE GID index (default: scored choice)" },
		{ "mem", 0, LP_OPT_STR, &o.mem, 0, 0, NULL, "KIND", "host, cuda or cuda:N (with --rails, cuda = GPU of the rail)" },
		{ "rails", 0, LP_OPT_FLAG, &o.rails, 0, 0, NULL, NULL, "one rank per rail: local rank i drives CUDA GPU i and the NIC closest to it (PCIe); pairs stay on their rail" },
		{ "pair-timeout", 0, LP_OPT_SECONDS, &o.pair_timeout, 1, 86400, NULL, "SECS", "bound on one test of one pair, set-up included (default 60)" },
		{ "timeout", 0, LP_OPT_SECONDS, &o.test_timeout, 0.1, 3600, NULL, "SECS", "no-progress bound inside a test (default lp-rdma's 10)" },
		{ "retest", 0, LP_OPT_UINT, &o.retest_max, 0, 1000000, NULL, "N", "isolated retests of suspect pairs per retest round at most (default 32; 0 = off)" },
		{ "retest-rounds", 0, LP_OPT_UINT, &o.retest_rounds, 1, 20, NULL, "N", "retest rounds: a link stays suspect only while every retest is slow too (default 3)" },
		{ "retest-per-node", 0, LP_OPT_UINT, &o.retest_per_node, 1, 1000, NULL, "N", "suspect node: cells retested in the first round (default 2)" },
		{ "k-mad", 0, LP_OPT_DOUBLE, &o.d.k, 0, 100, NULL, "K", "a node effect beyond K standard errors is slow, a link beyond K+1 (default 4)" },
		{ "rel", 0, LP_OPT_DOUBLE, &o.d.rel, 0, 1, NULL, "F", "and beyond this fraction of the reference; smaller is never flagged (default 0.1)" },
		{ "rel-max", 0, LP_OPT_DOUBLE, &o.d.rel_max, 0, 1, NULL, "F", "noise ceiling: inconclusive (exit 3) when a node this much slower could hide in the noise (default 0.5)" },
		{ "vote", 0, LP_OPT_DOUBLE, &o.d.vote, 0.01, 0.99, NULL, "F", "node failed (or below a floor): more than this fraction of its cells (default 0.5)" },
		{ "min-gbps", 0, LP_OPT_DOUBLE, &o.d.min_gbps, 0, 1e6, NULL, "GBPS", "absolute floor: bandwidth cells below are slow (Gb/s; default off)" },
		{ "max-lat-us", 0, LP_OPT_DOUBLE, &o.d.max_lat_us, 0, 1e9, NULL, "US", "absolute ceiling: latency cells above are slow (us; default off)" },
		{ "absent", 0, LP_OPT_STR, &o.absent, 0, 0, NULL, "NAME=WHY;..", "nodes that belong in the sweep but have no rank (left out of the job: drained, down): recorded, their cells failed with WHY" },
		{ "json", 'J', LP_OPT_STR, &o.json_path, 0, 0, NULL, "FILE", "write the whole run as one JSON document (- = stdout)" },
		{ "diagnose", 0, LP_OPT_STR, &o.diagnose, 0, 0, NULL, "RUN.json", "re-analyse a recorded run here, no MPI or RDMA: same summary, JSON and exit code; thresholds given here replace the recorded ones" },
		{ "csv", 0, LP_OPT_STR, &o.csv_prefix, 0, 0, NULL, "PREFIX", "write PREFIX-<test>-<size>.csv matrices and PREFIX-cells.csv" },
		{ "poll-ms", 0, LP_OPT_UINT, &o.poll_ms, 1, 1000, NULL, "MS", "longest sleep between MPI polls (default 20)" },
		{ "clock", 0, LP_OPT_STR, &o.clock, 0, 0, NULL, "C", "auto, tsc or raw (as lp-rdma)" },
		{ "quiet", 'q', LP_OPT_FLAG, &o.quiet, 0, 0, NULL, NULL, "no summary on stdout" },
		{ "verbose", 'v', LP_OPT_FLAG, &o.verbose, 0, 0, NULL, NULL, "log rounds and pair errors" },
		{ "version", 0, LP_OPT_FLAG, &o.version, 0, 0, NULL, NULL, "print the version" },
		{ NULL, 0, 0, NULL, 0, 0, NULL, NULL, NULL },
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
	if (!ret && o.duration > 0 && (o.bw_iters || o.lat_iters)) {
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
	run.bw_iters = o.bw_iters;
	run.lat_iters = o.lat_iters;
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
