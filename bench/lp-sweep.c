// SPDX-License-Identifier: MIT
/*
 * lp-sweep: the cluster harness. Launched by mpirun or srun with one rank per
 * node (or, with --rails, one rank per NIC), it measures lp-rdma tests between
 * node pairs on a schedule, retests suspects in isolation, names slow nodes and
 * slow links, and exits 1 when anything is flagged (a health gate).
 * docs/SWEEP.md has the method, the CLI and the sweep-time model.
 */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>

#include "common/clock.h"
#include "common/fail.h"
#include "common/lp.h"
#include "common/meta.h"
#include "common/opt.h"
#include "common/topo.h"
#include "qual/qual.h"
#include "rdma/check_roce.h"
#include "rdma/counters.h"
#include "rdma/opts.h"
#include "rdma/plan.h"
#include "rdma/rdma.h"
#include "sweep/collrun.h"
#include "sweep/diag.h"
#include "sweep/fast.h"
#include "sweep/model.h"
#include "sweep/mpi/coll_mpi.h"
#include "sweep/mpi/sweep_mpi.h"
#include "sweep/plantime.h"
#include "sweep/result.h"
#include "sweep/retest.h"
#include "sweep/sched.h"

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* "fork" is the old name of "process" (a test worker, posix_spawn'ed once and reused) */
static const char *const isolation_names[] = { "process", "none", "fork", NULL };
static const char *const reuse_names[] = { "auto", "on", "off", NULL };

/* Everything the command line sets; the groups' structs are shared with lp-rdma (rdma/opts.h). */
struct cli {
	int schedule, isolation, load;
	int reuse; /* reuse_names: 0 auto (on under --model, off on RDMA), 1 on, 2 off */
	double load_time, pair_timeout;
	unsigned incast_k, k, retest_max, retest_per_node, retest_rounds, poll_ms;
	uint64_t seed; /* the random schedule's */
	const char *csv_prefix, *diagnose, *journal, *absent, *resume, *model, *topology;
	double retest_time; /* --retest-time: the retest budget in time (0: the sweep's) */
	bool rails, check, plan_only;
	bool fast, test_bytes_set; /* --fast, --test-bytes (sweep/fast.h) */
	uint64_t test_bytes;
	unsigned plan_nodes, plan_rails; /* --plan --nodes N --rails R */
	int costs;			 /* --plan: lp_sweep_costs_names index */
	struct lp_rdma_plan_opts plan;	 /* tests, sizes, iterations ...: as lp-rdma's */
	struct lp_rdma_devsel dev;	 /* -d (a list with --rails), -i, -x, -T, -S */
	struct lp_rdma_memsel mem;
	struct lp_rdma_perftest_opts perftest;
	struct lp_out_opts out;
	struct lp_diag_opts d;
	struct lp_qual_opts qual;
	struct lp_coll_opts coll; /* --collective and its options, --import, --claim, --links */
};

/* Tests in the test workers or a fork (--isolation process|fork), not in the rank itself. */
static bool isolated(const struct cli *o)
{
	return strcmp(isolation_names[o->isolation], "none") != 0;
}

/* --reuse auto: on for the model transport (every model sweep exercises it), off on RDMA */
static bool reuse_on(const struct cli *o)
{
	return o->reuse == 1 || (o->reuse == 0 && o->model);
}

/* This rank's memory: with --rails, plain "cuda" (or --gpu auto) means the rail's own GPU. */
static void rank_mem(const struct cli *o, int rail, int *kind_p, int *dev_p)
{
	*kind_p = o->mem.kind;
	*dev_p = o->mem.dev;
	if (*kind_p == LP_MEM_CUDA && *dev_p < 0 && o->rails)
		*dev_p = rail; /* rail i drives GPU i */
}

/*
 * Rail `rail` through the PCI mapping: the NIC closest to the CUDA-visible GPU
 * of that ordinal (no GPUs: the rail-th usable NIC by name). "" when the
 * topology cannot say.
 */
static void pick_rail_nic(int rail, char *out, size_t len)
{
	struct lp_topo t;
	struct lp_fail f = { 0 };
	int g = -1, nic = -1;

	if (lp_topo_scan("", &t, &f)) {
		lp_fail_report(&f, 0);
		return;
	}
	lp_topo_set_visible(&t, getenv("CUDA_VISIBLE_DEVICES"));
	if (!lp_topo_rail(&t, rail, &g, &nic))
		snprintf(out, len, "%s", t.nics[nic].name);
	if (g >= 0 && out[0] && lp_topo_distance(&t, g, nic) >= LP_TOPO_NODE)
		lp_warn("rail %d: GPU %s's closest NIC %s is %s from it", rail, t.gpus[g].bdf, out,
			lp_topo_dist_name(lp_topo_distance(&t, g, nic)));
	lp_topo_free(&t);
}

/* The device for this rank: item `rail` of a comma list, rail `rail` of the host's PCI mapping,
 * or (--dev auto) the NIC closest to the rank's GPU. */
static void pick_dev(const struct cli *o, int rail, char *out, size_t len)
{
	char buf[512];
	const char *items[64];
	int n = 0;

	bool dev_auto = o->dev.dev && !strcmp(o->dev.dev, "auto");

	out[0] = 0;
	if (o->dev.dev && *o->dev.dev && !dev_auto) {
		if (!lp_split_list(o->dev.dev, buf, sizeof(buf), items, 64, &n) && n > 0)
			snprintf(out, len, "%s", items[o->rails ? rail % n : 0]);
		return;
	}
	if (!o->rails && !(dev_auto && o->mem.kind == LP_MEM_CUDA))
		return; /* first usable device */
	/* --rails, or --dev auto for GPU memory: the NIC closest to this rank's GPU */
	pick_rail_nic(o->rails ? rail : LP_MAX(o->mem.dev, 0), out, len);
	if (out[0])
		return;
	lp_rdma_dev_list(buf, sizeof(buf)); /* no PCIe topology: the rail-th verbs device */
	if (!lp_split_list(buf, buf, sizeof(buf), items, 64, &n) && rail < n)
		snprintf(out, len, "%s", items[rail]);
}

/*
 * GPUDirect: which GPU this rank's memory is on and how far it sits from the
 * NIC (nvidia-smi topo vocabulary). A pair across sockets (SYS) is the most
 * common 2-6x loss, so it is recorded and warned about.
 */
static void gpu_topology(struct lp_sweep_node *nd, int mem_dev)
{
	struct lp_topo t;
	struct lp_fail f = { 0 };
	int gpu, nic;

	if (lp_topo_scan(NULL, &t, &f)) {
		lp_fail_report(&f, 0);
		return;
	}
	/* mem_dev is a CUDA ordinal: the GPU it names under CUDA_VISIBLE_DEVICES, not PCI position */
	lp_topo_set_visible(&t, getenv("CUDA_VISIBLE_DEVICES"));
	gpu = lp_topo_gpu_of_cuda(&t, mem_dev < 0 ? 0 : mem_dev);
	if (gpu >= 0) {
		snprintf(nd->gpu_bdf, sizeof(nd->gpu_bdf), "%s", t.gpus[gpu].bdf);
		nic = lp_topo_nic_index(&t, nd->dev.name);
		if (nic >= 0) {
			enum lp_topo_dist dd = lp_topo_distance(&t, gpu, nic);

			snprintf(nd->gpu_nic, sizeof(nd->gpu_nic), "%s", lp_topo_dist_name(dd));
			if (dd == LP_TOPO_SYS)
				lp_warn("GPU %d (%s) and %s are on different NUMA nodes (SYS): "
					"GPUDirect traffic crosses the inter-socket link",
					mem_dev < 0 ? 0 : mem_dev, t.gpus[gpu].bdf, nd->dev.name);
		}
	}
	lp_topo_free(&t);
}

/* This rank's host, rail and label ("host", "host/rail") in a zeroed node record. */
static void node_label(const struct cli *o, const struct lp_sweep_mpi *x, struct lp_sweep_node *me)
{
	struct lp_host_meta hm;
	int local = 0;

	if (o->rails && lp_sweep_mpi_local_rank(MPI_COMM_WORLD, &local))
		local = 0;
	lp_host_meta_collect(&hm);
	memset(me, 0, sizeof(*me));
	me->rank = x->rank;
	me->rail = o->rails ? local : 0;
	snprintf(me->host, sizeof(me->host), "%s", hm.host);
	snprintf(me->kernel, sizeof(me->kernel), "%s", hm.kernel);
	if (o->rails)
		snprintf(me->name, sizeof(me->name), "%.60s/%d", hm.host, local);
	else
		snprintf(me->name, sizeof(me->name), "%.70s", hm.host);
}

/* The host's GPUs in the node record; a list too long for one frame is left out, and said. */
static void node_gpus(struct lp_sweep_node *me)
{
	struct lp_wbuf w;

	lp_gpu_inv_read("", &me->gpus);
	lp_wbuf_init(&w);
	if (lp_record_encode(&lp_sweep_node_record, me, &w)) {
		me->gpus.more += me->gpus.n;
		me->gpus.n = 0;
		snprintf(me->gpus.note, sizeof(me->gpus.note),
			 "GPU list left out: the node record would not fit one frame");
	}
}

/* RoCE: the DSCP this node's QPs carry and where it was read (rdma/check_roce.h), else -1. */
static void node_dscp(const struct cli *o, const struct lp_rdma_dev *dev, struct lp_sweep_node *me)
{
	const struct lp_rdma_devinfo *d = lp_rdma_dev_info(dev);
	struct lp_roce_qos q;
	char port[16];

	if (strcmp(d->link_layer, "Ethernet"))
		return;
	snprintf(port, sizeof(port), "%d", d->port);
	lp_roce_class_read(lp_counters_root(), d->name, port, lp_rdma_devsel_tclass(&o->dev), &q);
	me->dscp = q.dscp;
	snprintf(me->dscp_src, sizeof(me->dscp_src), "%s", q.dscp_src);
}

/*
 * This rank's node record and device: host, rail and label, memory kind, the
 * RDMA device (x->dev; when it does not open, the error is in me and x) and,
 * for GPU memory, the GPU's distance to it.
 */
static void node_setup(const struct cli *o, struct lp_sweep_mpi *x, struct lp_sweep_node *me,
		       int *mem_p, int *mem_dev_p)
{
	struct lp_inv_opts inv = { .vpd = true, .tools = true, .timeout_ms = 5000 };
	struct lp_rdma_devsel sel;
	struct lp_fail fail = { 0 };
	char devname[64];
	int ret;

	node_label(o, x, me);
	rank_mem(o, me->rail, mem_p, mem_dev_p);
	if (*mem_p == LP_MEM_CUDA)
		snprintf(me->mem, sizeof(me->mem), *mem_dev_p >= 0 ? "cuda:%d" : "cuda",
			 *mem_dev_p);
	else
		snprintf(me->mem, sizeof(me->mem), "host");
	me->dev.numa_node = -1;
	me->dscp = -1;
	pick_dev(o, me->rail, devname, sizeof(devname));
	sel = o->dev; /* --tclass and --sl too: every QP of this rank's tests */
	sel.dev = devname[0] ? devname : NULL;
	ret = lp_rdma_dev_open(&sel, AF_INET, &x->dev, &fail);
	if (ret) {
		char list[256] = "";

		x->dev = NULL;
		lp_rdma_dev_list(list, sizeof(list));
		snprintf(x->dev_error, sizeof(x->dev_error),
			 "cannot open %s: %s (devices here: %s)",
			 devname[0] ? devname : "an RDMA device",
			 lp_fail_ok(&fail) ? strerror(-ret) : lp_fail_msg(&fail),
			 list[0] ? list : "none");
		lp_warn("%s", x->dev_error);
		me->status = ret;
		snprintf(me->error, sizeof(me->error), "%s", x->dev_error);
		snprintf(me->dev.name, sizeof(me->dev.name), "%s", devname);
	} else {
		lp_rdma_dev_inventory(x->dev, &inv); /* in the node record: every document has it */
		node_dscp(o, x->dev, me);
		if (reuse_on(o) && lp_rdma_dev_reuse(x->dev))
			lp_warn("no memory for set-up reuse: every test sets up its own");
		me->dev = *lp_rdma_dev_info(x->dev);
		if (*mem_p == LP_MEM_CUDA)
			gpu_topology(me, *mem_dev_p);
	}
	x->dev_status = me->status;
	node_gpus(me);
}

/*
 * --model FILE: rank 0 reads it and every rank parses the same bytes (no
 * shared file system needed), kept in cfg->model_text; *m_p is NULL without
 * --model. 0, or -EINVAL said once by rank 0.
 */
static int model_load(const struct cli *o, const struct lp_sweep_mpi *x,
		      struct lp_sweep_model **m_p, struct lp_sweep_cfg *cfg)
{
	struct lp_fail fail = { 0 };
	char *text = NULL;
	size_t len = 0;
	long n;
	int ret = 0;

	*m_p = NULL;
	if (!o->model)
		return 0;
	if (!x->rank)
		ret = lp_sweep_model_read(o->model, &text, &len);
	n = ret ? ret : (long)len;
	MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
	if (n < 0) {
		if (!x->rank)
			lp_err("--model %s: %s", o->model, strerror((int)-n));
		return -EINVAL;
	}
	if (x->rank)
		text = calloc((size_t)n + 1, 1);
	*m_p = malloc(sizeof(**m_p));
	if (!text || !*m_p) /* the others wait in the broadcast: end them too */
		MPI_Abort(MPI_COMM_WORLD, LP_EXIT_FAIL);
	MPI_Bcast(text, (int)n, MPI_CHAR, 0, MPI_COMM_WORLD);
	lp_sweep_model_init(*m_p);
	ret = lp_sweep_model_parse(*m_p, text, (size_t)n, &fail);
	if (ret && !x->rank) { /* every rank parsed the same bytes: rank 0 says it */
		lp_fail_wrap(&fail, "--model %s", o->model);
		lp_fail_report(&fail, ret);
	}
	cfg->model_text = text; /* the test workers parse it too; freed by the caller */
	cfg->model_len = (size_t)n;
	return ret ? -EINVAL : 0;
}

/*
 * The model transport's node: its name and rail from the model (rank r is node
 * r / rails, rail r % rails), this host, and a device that is the model: no
 * RDMA device is opened.
 */
static void node_setup_model(const struct cli *o, struct lp_sweep_mpi *x,
			     const struct lp_sweep_model *m, struct lp_sweep_node *me)
{
	node_label(o, x, me);
	me->rail = o->rails ? lp_sweep_model_rail(m, x->rank) : 0;
	lp_sweep_model_name(m, x->rank, me->name, sizeof(me->name));
	lp_sweep_model_host(m, x->rank, me->host, sizeof(me->host)); /* its rails share it */
	snprintf(me->mem, sizeof(me->mem), "host");
	snprintf(me->dev.name, sizeof(me->dev.name), "model");
	snprintf(me->dev.transport, sizeof(me->dev.transport), "model");
	me->dev.rate_gbps = m->rate_gbps;
	me->dev.numa_node = -1;
	me->dev.gid_index = -1;
	me->dscp = -1;
	x->dev = NULL;
	x->dev_status = 0;
}

/* The model bound to this job's ranks and metrics, as the engine's transport. 0 or -EINVAL. */
static int model_bind(const struct cli *o, int rank, struct lp_sweep_model *m,
		      struct lp_sweep_run *run, struct lp_sweep_cfg *cfg)
{
	struct lp_fail fail = { 0 };

	if (lp_sweep_model_bind(m, run->n, run->metrics, run->nmetrics, &fail)) {
		lp_fail_wrap(&fail, "--model %s", o->model);
		if (!rank)
			lp_fail_report(&fail, -EINVAL);
		return -EINVAL;
	}
	if (o->coll.colls && lp_sweep_coll_link_metric(run) < 0) {
		if (!rank)
			lp_err("--model with --collective: the collectives' links are drawn for a "
			       "bandwidth test; --tests has none");
		return -EINVAL;
	}
	cfg->xport = &lp_sweep_xport_model;
	cfg->model = m;
	snprintf(run->model, sizeof(run->model), "%s", o->model);
	return 0;
}

/*
 * One rank is no sweep: nothing to pair. Under srun without PMI (or with the
 * wrong plugin) every task starts as its own one-rank MPI job, and each would
 * say "healthy".
 */
static int one_rank(void)
{
	const char *tasks = getenv("SLURM_NTASKS");

	lp_err("one rank: nothing to pair%s%s%s. Did srun start without PMI, each task its own "
	       "MPI job? try srun --mpi=pmix (or mpirun -np N)",
	       tasks ? " (Slurm started " : "", tasks ? tasks : "", tasks ? " tasks)" : "");
	return LP_EXIT_USAGE;
}

/* What each bandwidth test moves: --test-bytes, --fast's default unless iterations or -D are given; 0 none. */
static uint64_t test_bytes(const struct cli *o)
{
	if (o->test_bytes_set)
		return o->test_bytes;
	return o->fast && !o->plan.plan.iters_set[LP_PLAN_BW] && !(o->plan.plan.duration_s > 0)
		       ? LP_SWEEP_FAST_BYTES
		       : 0;
}

/* Every pair's runs from lp-rdma's plan builder, with this memory and the sweep's sample cap. */
static int build_runs(const struct cli *o, int mem, int mem_dev, struct lp_rdma_params *runs,
		      int *n_p)
{
	struct lp_rdma_plan pl = o->plan.plan;
	struct lp_fail f = { 0 };

	pl.base.mem = (enum lp_mem_kind)mem;
	pl.base.mem_dev = mem_dev;
	pl.base.max_samples = LP_MIN(pl.base.max_samples, 100000);
	if (lp_rdma_plan_build(&pl, runs, LP_SWEEP_MAX_METRICS, n_p, &f)) {
		lp_fail_report(&f, -EINVAL);
		return -EINVAL;
	}
	if (o->test_bytes_set && (pl.iters_set[LP_PLAN_BW] || pl.duration_s > 0)) {
		lp_err("--test-bytes sets the bandwidth iterations: not with --bw-iters or --duration");
		return -EINVAL;
	}
	if (test_bytes(o))
		lp_sweep_fast_bytes(runs, *n_p, test_bytes(o));
	return 0;
}

/* The runs (build_runs) as the run's metrics and the engine's. */
static int add_metrics(const struct cli *o, struct lp_sweep_run *run, struct lp_sweep_cfg *cfg,
		       int mem, int mem_dev)
{
	int n;

	if (build_runs(o, mem, mem_dev, cfg->params, &n))
		return -EINVAL;
	for (int m = 0; m < n; m++) {
		const struct lp_rdma_params *p = &cfg->params[m];

		lp_sweep_add_metric(run, lp_rdma_test_names[p->test], (int)p->test,
				    lp_rdma_test_is_lat(p->test), p->size);
	}
	cfg->nmetrics = n;
	cfg->screen = o->fast ? lp_sweep_fast_screen(cfg->params, n) : 0;
	run->test_bytes = test_bytes(o);
	return 0;
}

/* The engine's configuration, all but the metrics (add_metrics adds them). */
static void sweep_cfg(const struct cli *o, const struct lp_sweep_mpi *x, struct lp_sweep_cfg *cfg,
		      int mem, int mem_dev)
{
	const char *text = cfg->model_text;
	size_t len = cfg->model_len;

	*cfg = (struct lp_sweep_cfg){
		.kind = (enum lp_sched_kind)o->schedule,
		.random_k = (int)o->k,
		.seed = o->seed,
		.rails = o->rails,
		.pair_timeout_s = o->pair_timeout,
		.retest = { .max_pairs = (int)o->retest_max,
			    .per_node = (int)o->retest_per_node,
			    .rounds = (int)o->retest_rounds,
			    .time_s = o->retest_time },
		.poll_max_us = x->poll_max_us,
		.sopts = { .mem = (enum lp_mem_kind)mem, .mem_dev = mem_dev, .stop = &stop_flag },
		.progress = o->out.quiet ? NULL : stderr,
		.absent = o->absent,
		.isolate = isolated(o),
		.reuse = reuse_on(o),
		.load = (unsigned)o->load,
		.load_time_s = o->load_time,
		.incast_k = (int)o->incast_k,
		.model_text = text,
		.model_len = len,
	};
}

/* --expect/floors/--baseline/--prom: set up before any work (a usage error is exit 2); the
 * floors for every test are the diagnosis's absolute floors too (Gb/s there). */
static int qual_setup(struct cli *o, char **argv, struct lp_qual *q)
{
	double floor;

	o->qual.argv = argv;
	if (!lp_qual_wanted(&o->qual))
		return 0;
	if (lp_qual_setup(q, "lp-sweep", &o->qual, NULL)) {
		lp_fail_report(&q->fail, 0); /* a bad floor, profile or baseline in its words */
		return -EINVAL;
	}
	floor = lp_qual_floor(q, LP_QUAL_BW);
	if (isfinite(floor))
		o->d.min_gbps = 8 * floor;
	floor = lp_qual_floor(q, LP_QUAL_LAT);
	if (isfinite(floor))
		o->d.max_lat_us = floor;
	return 0;
}

/*
 * --topology FILE | ibnetdiscover | none, else Slurm's topology.conf when there
 * is one (a broken auto-detected one is said and left out): into *f_p (NULL:
 * none). 0 or -EINVAL after one error line.
 */
static int topology_setup(const struct cli *o, struct lp_fabric **f_p)
{
	const char *path = o->topology ? o->topology : lp_fabric_slurm_path();
	struct lp_fabric *f;
	struct lp_fail fail = { 0 };
	int rc;

	*f_p = NULL;
	if (!path || !strcmp(path, "none"))
		return 0;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	rc = !strcmp(path, "ibnetdiscover") ? lp_fabric_ibnetdiscover(f, &fail)
					    : lp_fabric_read(f, path, &fail);
	if (rc) {
		lp_fabric_free(f);
		free(f);
		if (!o->topology) {
			lp_warn("%s (found, not used): %s", path, lp_fail_msg(&fail));
			return 0;
		}
		lp_fail_wrap(&fail, "--topology %s", path);
		lp_fail_report(&fail, rc);
		return -EINVAL;
	}
	*f_p = f;
	return 0;
}

/* What --expect auto matches: a node's port. */
static struct lp_qual_hw qual_hw(const struct lp_sweep_node *nd)
{
	return (struct lp_qual_hw){ .rdma_dev = nd->dev.name,
				    .link_layer = nd->dev.link_layer,
				    .speed = nd->dev.speed,
				    .width = nd->dev.width,
				    .rate_gbps = nd->dev.rate_gbps };
}

/*
 * Gates per node (qual/node.h): each node's profile from its own port, its port's state; the
 * profile --expect auto uses is the fleet's, not rank 0's. Printed; a FAIL makes the run's code 1.
 */
static int node_gates(struct lp_sweep_run *run, struct lp_qual_hw *fleet_hw, bool quiet)
{
	struct lp_qual_port *p = calloc((size_t)run->n + 1, sizeof(*p));
	int fails = 0;

	free(run->gates); /* a recorded run's are judged again, from its nodes */
	run->gates = calloc((size_t)run->n + 1, sizeof(*run->gates));
	run->ngates = run->gates ? run->n : 0;
	if (!p || !run->gates) {
		free(p);
		return 0;
	}
	for (int i = 0; i < run->n; i++) {
		const struct lp_sweep_node *nd = &run->nodes[i];
		const struct lp_inv_port *iv = &nd->dev.inv;
		unsigned sw = iv->peer.max_width;

		p[i] = (struct lp_qual_port){
			.node = nd->name,
			.hw = nd->status ? (struct lp_qual_hw){ 0 } : qual_hw(nd),
			.max_width = sw && sw < iv->max_width ? sw : iv->max_width,
			.max_speed = iv->max_speed[0] ? iv->max_speed : NULL,
			.pcie_gts = iv->pci.cur_gts,
			.pcie_max_gts = iv->pci.max_gts,
			.pcie_width = iv->pci.cur_width,
			.pcie_max_width = iv->pci.max_width,
		};
		p[i].peer_max_speed = iv->peer.max_speed[0] ? iv->peer.max_speed : NULL;
	}
	fails = lp_qual_nodes_judge(p, run->n, run->gates, run->fleet_profile,
				    sizeof(run->fleet_profile));
	for (int i = 0; i < run->n; i++) {
		if (!strcmp(run->gates[i].profile, run->fleet_profile) && run->fleet_profile[0])
			*fleet_hw = p[i].hw;
		if (!quiet && run->gates[i].verdict == LP_QUAL_FAIL)
			printf("node gate: FAIL %s: %s\n", run->nodes[i].name,
			       run->gates[i].reason);
	}
	if (!quiet && run->fleet_profile[0])
		printf("node gates: %d of %d nodes FAIL; fleet profile %s\n", fails, run->n,
		       run->fleet_profile);
	free(p);
	return fails;
}

/* The run's resolved cells judged (qual/): 0, -EINVAL (a baseline matching under half: in q->fail), ... */
static int qualify(struct lp_qual *q, const struct lp_sweep_run *run)
{
	struct lp_qual_cell *cells = NULL;
	size_t n = 0;
	int rc = lp_qual_sweep_cells(run, &cells, &n);

	if (!rc)
		rc = lp_qual_judge(q, cells, n);
	free(cells);
	return rc;
}

/* The summary, the JSON document (with its qualification when asked), the CSV; the exit code. */
static int write_outputs(const struct cli *o, struct lp_sweep_run *run, struct lp_qual *q, int code)
{
	struct lp_qual_hw hw = run->n ? qual_hw(&run->nodes[0]) : (struct lp_qual_hw){ 0 };
	bool judged = lp_qual_wanted(&o->qual);
	int rc = 0, qrc = 0;
	FILE *f;

	if (!o->out.quiet)
		lp_sweep_print_summary(run, stdout);
	if (node_gates(run, &hw, o->out.quiet) && !code)
		code = LP_EXIT_FAIL;
	if (judged) {
		qrc = lp_qual_auto(q, &hw);
		if (!qrc)
			qrc = qualify(q, run);
		lp_fail_report(&q->fail, 0); /* a baseline that does not match, a profile */
		if ((!qrc || qrc == -EINVAL) && !o->out.quiet)
			lp_qual_print(q, stdout);
		if (qrc == -EINVAL)
			code = LP_EXIT_USAGE; /* a baseline that does not match: no verdict */
		else if (qrc)
			rc = qrc;
		else if ((!code || code == LP_SWEEP_EXIT_INCONCLUSIVE) && lp_qual_failed(q))
			code = LP_EXIT_FAIL; /* measured against the expectation and it is bad: a
					       * finding, whatever the diagnosis could name */
	}
	fflush(stdout);
	if (o->out.json) {
		f = lp_out_open(o->out.json);
		rc = f ? lp_out_end(f, o->out.json,
				    lp_sweep_write_json_extra(
					    run, f, code, judged ? lp_qual_json_extra : NULL, q))
		       : -EIO;
	}
	if (o->csv_prefix && lp_sweep_write_csv(run, o->csv_prefix))
		rc = -EIO;
	return rc ? LP_EXIT_FAIL : code;
}

/*
 * A recorded run (a journal or a JSON document, told apart by content) into
 * run; a journal's last line cut short (a power loss) is said once. 0, or the
 * exit code after one error line.
 */
static int read_recorded(const char *path, struct lp_sweep_run *run,
			 struct lp_sweep_journal_info *info)
{
	struct lp_fail f = { 0 };
	int ret = lp_sweep_read_run(run, path, info, &f);

	if (ret) {
		lp_fail_set(&f, ret, "%s", strerror(-ret)); /* a step that failed without words */
		lp_fail_wrap(&f, "%s", path);
		lp_fail_report(&f, ret);
		return ret == -ENOTSUP	? LP_EXIT_UNSUPPORTED
		       : ret == -ENOMEM ? LP_EXIT_FAIL
					: LP_EXIT_USAGE;
	}
	if (info->truncated)
		lp_warn("%s: its last line is cut short (a power loss?): read up to line %zu", path,
			info->lines);
	if (info->cut)
		lp_warn("%s: %zu line(s) cut or garbled, left out (the first: line %zu)", path,
			info->cut, info->cut_line);
	return 0;
}

/* The run's exit code with its collectives' verdicts: a named part makes a healthy or an
 * inconclusive run 1, a search that could not tell a healthy one 3. */
static int coll_code(const struct lp_sweep_run *run, int code)
{
	if ((!code || code == LP_SWEEP_EXIT_INCONCLUSIVE) && lp_coll_flagged(run->coll))
		return LP_EXIT_FAIL;
	return !code && lp_coll_inconclusive(run->coll) ? LP_SWEEP_EXIT_INCONCLUSIVE : code;
}

/* --import, --links, --claim on rank 0 (or offline): the exit code, 2 for a file or claim that does not parse. */
static int coll_offline(const struct cli *o, struct lp_sweep_run *run, int code)
{
	struct lp_fail f = { 0 };
	int rc;

	if (!lp_coll_opts_wanted(&o->coll))
		return code;
	rc = lp_sweep_coll_offline(run, &o->coll, &f);
	if (rc) {
		lp_fail_report(&f, rc);
		return rc == -EINVAL	? LP_EXIT_USAGE
		       : rc == -ENOTSUP ? LP_EXIT_UNSUPPORTED
					: LP_EXIT_FAIL;
	}
	return coll_code(run, code);
}

/*
 * --collective: the phase after the sweep (ret 0), or alone where no rank has
 * an RDMA device (ret -ENODEV: its 77 gives way to the phase's code); then
 * imports, ceilings and claims on rank 0. Returns the exit code.
 */
static int collectives(const struct cli *o, struct lp_sweep_mpi *x, const struct lp_sweep_cfg *cfg,
		       struct lp_sweep_run *run, int ret, int code)
{
	struct lp_coll_cfg cc;
	int rc;

	if (!o->coll.colls || (ret && ret != -ENODEV) || run->interrupted)
		return ret || x->rank ? code : coll_offline(o, run, code);
	lp_coll_cfg_from_opts(&o->coll, &cc, NULL); /* checked with the options */
	cc.progress = cfg->progress;
	cc.cuda_dev = cfg->sopts.mem == LP_MEM_CUDA ? cfg->sopts.mem_dev : -1;
	if (ret) {
		code = LP_EXIT_OK;
		run->sched_name = "none (no RDMA device: collectives only)";
	}
	rc = lp_sweep_coll_phase(x, cfg, &cc, run, ret == 0);
	if (rc == -EINTR)
		return LP_EXIT_INTERRUPTED;
	if (rc)
		code = LP_EXIT_FAIL;
	else if (ret && !x->rank && !run->coll->nres)
		code = LP_EXIT_UNSUPPORTED; /* no device, and no path could run here (the note says why) */
	return x->rank ? code : coll_offline(o, run, code);
}

/*
 * --diagnose RUN.json|RUN.journal: a recorded run re-analysed here, without MPI
 * or RDMA. Thresholds given on the command line (not NaN) replace the recorded ones.
 */
static int diagnose_offline(const struct cli *o, struct lp_qual *q)
{
	struct lp_sweep_journal_info info;
	struct lp_sweep_run run;
	int code = read_recorded(o->diagnose, &run, &info);
	struct lp_fabric *f;

	if (code)
		return code;
	lp_sweep_journal_info_free(&info);
	lp_diag_opts_merge(&run.dopts, &o->d);
	if (o->topology) { /* given: it replaces the one the document recorded */
		if (topology_setup(o, &f)) {
			lp_sweep_run_free(&run);
			return LP_EXIT_USAGE;
		}
		if (run.fabric)
			lp_fabric_free(run.fabric);
		free(run.fabric);
		run.fabric = f;
	}
	if (lp_sweep_diagnose(&run)) {
		lp_err("diagnosis failed (out of memory or bad thresholds)");
		lp_sweep_run_free(&run);
		return LP_EXIT_FAIL;
	}
	code = coll_offline(o, &run, lp_sweep_exit_code(&run));
	if (code == LP_EXIT_USAGE) {
		lp_sweep_run_free(&run);
		return code;
	}
	code = write_outputs(o, &run, q, code);
	lp_sweep_run_free(&run);
	lp_qual_free(q);
	return code;
}

/*
 * --diagnose or --plan anywhere on the command line: an offline mode, before
 * MPI_Init (no mpirun needed).
 */
static bool wants(int argc, char **argv, const char *opt)
{
	size_t n = strlen(opt);

	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], opt, n) && (!argv[i][n] || argv[i][n] == '='))
			return true;
	return false;
}

/* The host's inventory (every port, every GPU) as OK lines of its --check report. */
static void check_inventory(struct lp_check_report *rep)
{
	struct lp_inv_opts io = { .vpd = true, .tools = true, .timeout_ms = 5000 };
	struct lp_inv_host *h = calloc(1, sizeof(*h));

	if (h && !lp_inv_host_read(&io, h))
		lp_inv_host_check_lines(h, rep);
	free(h);
}

/* The costs a prediction uses: the model's time with --model, else the --costs preset. */
static int plan_costs(const struct cli *o, struct lp_sweep_costs *c)
{
	struct lp_sweep_model *m;
	struct lp_fail fail = { 0 };
	char *text = NULL;
	size_t len = 0;
	int ret;

	if (!o->model) {
		*c = *lp_sweep_costs_find(lp_sweep_costs_names[o->costs]);
		lp_sweep_costs_reuse(c, reuse_on(o));
		return 0;
	}
	m = malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	lp_sweep_model_init(m);
	ret = lp_sweep_model_read(o->model, &text, &len);
	if (ret)
		lp_fail_set(&fail, ret, "%s", strerror(-ret));
	else
		ret = lp_sweep_model_parse(m, text, len, &fail);
	if (ret) {
		lp_fail_wrap(&fail, "--model %s", o->model);
		lp_fail_report(&fail, ret);
	} else
		lp_sweep_costs_model(c, m, isolated(o));
	free(text);
	free(m);
	return ret;
}

/* What --plan predicts for the load phases: round-robin victims, every rank a receiver. */
static void plan_load(const struct cli *o, const struct lp_rdma_params *p, int n,
		      const struct lp_sweep_shape *sh, struct lp_sweep_load_plan *lp)
{
	uint32_t screen = o->fast ? lp_sweep_fast_screen(p, n) : 0; /* the load runs the screen's */
	struct lp_sweep_shape rr;

	*lp = (struct lp_sweep_load_plan){ .load = (unsigned)o->load, .time_s = o->load_time };
	for (int m = 0; m < n; m++)
		lp->nlat += lp_rdma_test_is_lat(p[m].test) && (!screen || (screen >> m & 1));
	if (!lp_sweep_shape_of(&rr, LP_SCHED_ROUND_ROBIN, sh->nodes, sh->rails, 0, 0))
		lp->victims = rr.pairs;
	lp->receivers = sh->nodes * sh->rails;
}

/*
 * --check: lp-rdma's pre-flight check of this rank's host (its device: -d, the
 * rail's NIC with --rails, else every device), gathered on rank 0: a table per
 * host and --json with every host. Exit 1 when any line (or host) FAILs.
 */
static int check_main(const struct cli *o, struct lp_sweep_mpi *x)
{
	struct lp_check_opts co = {
		.root = lp_counters_root(),
		.port = (unsigned)o->dev.port,
		.tclass = o->dev.tclass, /* the class the sweep runs: its PFC/ECN */
		.tclass_set = o->dev.tclass_set,
		.sl = o->dev.sl
	};
	struct lp_check_report rep = { 0 };
	struct lp_sweep_check all = { 0 };
	struct lp_fail why = { 0 };
	struct lp_sweep_node me;
	char devname[64];
	int code = LP_EXIT_OK;

	node_label(o, x, &me);
	pick_dev(o, me.rail, devname, sizeof(devname));
	co.dev = devname[0] ? devname : NULL;
	lp_check_opts_live(&co);
	me.status = lp_check_run(&co, &rep, &why);
	lp_fail_report(&why, 0); /* the cause in words, when it has them */
	if (me.status)
		lp_warn("--check on %s: %s", me.name, strerror(-me.status));
	else
		check_inventory(&rep);
	if (lp_sweep_engine_check(x, &me, &rep, &all)) {
		code = LP_EXIT_FAIL;
	} else if (!x->rank) {
		code = lp_sweep_check_worst(&all) == LP_CHECK_FAIL ? LP_EXIT_FAIL : LP_EXIT_OK;
		if (!o->out.quiet)
			lp_sweep_check_print(&all, stdout);
		fflush(stdout);
		if (o->out.json) {
			FILE *f = lp_out_open(o->out.json);

			if (!f ||
			    lp_out_end(f, o->out.json, lp_sweep_check_write_json(&all, f, code)))
				code = LP_EXIT_FAIL;
		}
	}
	lp_sweep_check_free(&all);
	lp_check_free(&rep);
	return code;
}

/* MPI up, x set up, log lines labelled by rank: rank 0 speaks, the others stay quiet. */
static int mpi_setup(struct lp_sweep_mpi *x, int *argc, char ***argv)
{
	static char prog[32]; /* the log keeps the pointer */

	int provided;

	/* threads only for the load modes' concurrent sessions (x->threads says if they may) */
	if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
		fprintf(stderr, "lp-sweep: MPI_Init failed\n");
		return -EIO;
	}
	memset(x, 0, sizeof(*x));
	x->comm = MPI_COMM_NULL;
	if (lp_sweep_mpi_init(x, MPI_COMM_WORLD)) {
		fprintf(stderr, "lp-sweep: MPI set-up failed\n");
		MPI_Abort(MPI_COMM_WORLD, LP_EXIT_FAIL);
	}
	snprintf(prog, sizeof(prog), x->rank ? "lp-sweep[%d]" : "lp-sweep", x->rank);
	lp_log_set_prog(prog);
	/* every rank parses the same argv; only rank 0 speaks about it */
	if (x->rank)
		lp_log_set_level(LP_LOG_QUIET);
	return 0;
}

/* ---- options ------------------------------------------------------------- */

/* clang-format off */
static const struct lp_opt sweep_rows[] = {
	{ .name = "schedule", LP_OPT_CHOICE_AT(struct cli, schedule), .choices = lp_sched_names,
	  .metavar = "S", .def = "round-robin",
	  .help = "round-robin (N-1 rounds of N/2 pairs), isolated (one pair at a time), ring (all "
		  "at once, mpiGraph shift), random (k partners each)" },
	{ .name = "partners", LP_OPT_UINT_AT(struct cli, k), .min = 1, .max = 4096, .metavar = "K",
	  .help = "random: partners drawn per node", .def = "4" },
	{ .name = "schedule-seed", LP_OPT_U64_AT(struct cli, seed), .metavar = "N",
	  .help = "random: the schedule's seed", .def = "1" },
	{ .name = "pair-timeout", LP_OPT_SECONDS_AT(struct cli, pair_timeout), .min = 1,
	  .max = 86400, .metavar = "SECS", .help = "bound on one test of one pair, set-up included",
	  .def = "60" },
	{ .name = "isolation", LP_OPT_CHOICE_AT(struct cli, isolation), .choices = isolation_names,
	  .metavar = "HOW", .def = "process",
	  .help = "process: each side of each test runs in a test process of the rank's (started "
		  "fresh, not forked, and reused), so a crash or hang in it fails one cell, not the "
		  "rank; none: in the rank itself; fork: the old name of process" },
	{ .name = "reuse", LP_OPT_CHOICE_AT(struct cli, reuse), .choices = reuse_names,
	  .metavar = "HOW", .def = "auto",
	  .help = "on: each test process keeps its registered buffers and queue pairs for the next "
		  "tests (reset and reconnected), and each round's connections are prepared while "
		  "the round before measures and exchanged in one collective; off: every test sets "
		  "up and exchanges its own; auto: on under --model, off on RDMA until the Soft-RoCE "
		  "fabric has run it clean (one unexplained remote-invalid-request NAK in 130 reused "
		  "sessions, docs/SWEEP.md)" },
	{ .name = "load", LP_OPT_CHOICE_AT(struct cli, load), .choices = lp_sweep_load_names,
	  .metavar = "MODE", .def = "none",
	  .help = "after the sweep: latency (each pair's latency while the round's other pairs run "
		  "bandwidth: congestion impact factor), incast (k senders into each receiver: "
		  "aggregate, Jain's fairness), both" },
	{ .name = "load-time", LP_OPT_SECONDS_AT(struct cli, load_time), .min = 0.1, .max = 3600,
	  .metavar = "SECS", .def = "2",
	  .help = "--load: each victim's latency test runs this long (its loaders, and an incast's "
		  "senders, run its whole span)" },
	{ .name = "incast-k", LP_OPT_UINT_AT(struct cli, incast_k), .min = 1,
	  .max = LP_SWEEP_MAX_INCAST, .metavar = "K",
	  .help = "--load incast: senders per receiver (default: every other rank of its rail but "
		  "one, the victim that measures latency into it meanwhile; at most 32)" },
	{ .name = "absent", LP_OPT_STR_AT(struct cli, absent), .metavar = "NAME=WHY;..",
	  .help = "nodes that belong in the sweep but have no rank (left out of the job: drained, "
		  "down): recorded, their cells failed with WHY" },
	{ .name = "journal", LP_OPT_STR_AT(struct cli, journal), .metavar = "FILE",
	  .help = "rank 0 appends every node, cell and retest here as it arrives, one JSON object "
		  "per line, on disk at every round's end (default: next to --json, RUN.journal)" },
	{ .name = "resume", LP_OPT_STR_AT(struct cli, resume), .metavar = "JOURNAL",
	  .help = "continue an interrupted sweep: the cells the journal measured (same node names, "
		  "tests, sizes, parameters; else exit 2) are not measured again, its nodes gone now "
		  "are recorded as missing; the new document and journal hold both parts, each cell "
		  "with its attempt" },
	{ .name = "diagnose", LP_OPT_STR_AT(struct cli, diagnose), .metavar = "RUN",
	  .help = "re-analyse a recorded run here, no MPI or RDMA: its JSON document or its journal "
		  "(of a finished or interrupted run: marked incomplete, the missing cells listed); "
		  "same summary, JSON and exit code; thresholds given here replace the recorded "
		  "ones" },
	{ .name = "check", LP_OPT_FLAG_AT(struct cli, check),
	  .help = "pre-flight check of every rank's host (lp-rdma --check), gathered: a table per "
		  "host, --json with all; exit 1 on a FAIL" },
	{ .name = "poll-ms", LP_OPT_UINT_AT(struct cli, poll_ms), .min = 1, .max = 1000,
	  .metavar = "MS",
	  .help = "longest sleep between MPI polls (the latency a coordination step may add)",
	  .def = LP_OPT_DEF(LP_SWEEP_POLL_MS) },
	{ .shortname = 'p', .kind = LP_OPT_REFUSE, .metavar = "PORT",
	  .help = "perftest's -p (TCP port): lp-sweep exchanges over MPI, it listens on no port" },
	{ .shortname = 'Z', .kind = LP_OPT_REFUSE,
	  .help = "perftest's -Z (server): every lp-sweep rank is client and server (start it with "
		  "mpirun or srun)" },
	{ 0 },
};

/* --rails of a sweep; --plan's (plan_rails_rows) takes the rails per node instead. */
static const struct lp_opt rails_rows[] = {
	{ .name = "rails", LP_OPT_FLAG_AT(struct cli, rails),
	  .help = "one rank per rail: local rank i drives CUDA GPU i and the NIC closest to it "
		  "(PCIe); pairs stay on their rail" },
	{ 0 },
};

static const struct lp_opt plan_rails_rows[] = {
	{ .name = "rails", LP_OPT_UINT_AT(struct cli, plan_rails), .min = 1, .max = 64,
	  .metavar = "R", .def = "1", .help = "--plan: rails per node (ranks per node)" },
	{ 0 },
};

static const struct lp_opt model_rows[] = {
	{ .name = "model", LP_OPT_STR_AT(struct cli, model), .metavar = "FILE",
	  .help = "the model transport: every test's value drawn from the model in FILE (node, "
		  "link, leaf, uplink and rail factors, noise, blips, congested rounds; "
		  "docs/SWEEP.md), no RDMA device opened; the harness runs as on a cluster" },
	{ .name = "plan", LP_OPT_FLAG_AT(struct cli, plan_only),
	  .help = "print the schedule, the predicted duration and the Slurm time to ask for "
		  "--nodes N (--rails R: rails per node), measuring nothing; no MPI, no device "
		  "(--json FILE: the plan as a linkperf.plan/1 document)" },
	{ .name = "nodes", LP_OPT_UINT_AT(struct cli, plan_nodes), .min = 2, .max = 1 << 20,
	  .metavar = "N", .help = "--plan: the nodes to sweep" },
	{ .name = "costs", LP_OPT_CHOICE_AT(struct cli, costs), .choices = lp_sweep_costs_names,
	  .metavar = "NAME", .def = "ndr",
	  .help = "--plan: the measured costs to predict with, ndr or softroce (with --model: the "
		  "model's time)" },
	{ 0 },
};

/* The fast qualification schedule (sweep/fast.h, docs/SWEEP.md "The fast schedule"). */
static const struct lp_opt fast_rows[] = {
	{ .name = "fast", LP_OPT_FLAG_AT(struct cli, fast),
	  .help = "the fast qualification schedule: every ordered pair runs each test at one size "
		  "(latency its smallest, bandwidth its largest; each bandwidth test moving "
		  "--test-bytes), the suspects are retested, then they and two healthy reference "
		  "pairs get every other size of --bw-sizes and --lat-sizes" },
	{ .name = "test-bytes", LP_OPT_SIZE_AT(struct cli, test_bytes), .min = 1, .max = 1e15,
	  LP_OPT_SET_AT(struct cli, test_bytes_set), .metavar = "BYTES",
	  .help = "each bandwidth test moves BYTES, its iterations derived from its size (--fast: "
		  "256M unless --bw-iters, -n or --duration is given)" },
	{ 0 },
};

static const struct lp_opt diag_rows[] = {
	{ .name = "retest", LP_OPT_UINT_AT(struct cli, retest_max), .max = 1000000, .metavar = "N",
	  .help = "isolated retests of suspect pairs per retest round at most (0 = off; "
		  "--retest-time bounds them)",
	  .def = LP_OPT_DEF(LP_SWEEP_RETEST_MAX) },
	{ .name = "retest-time", LP_OPT_DOUBLE_AT(struct cli, retest_time), .max = 1e7,
	  .metavar = "SECS",
	  .help = "retest budget in time over all rounds, the strongest suspects first (default: as long "
		  "as the sweep took, 60 s at least)" },
	{ .name = "retest-rounds", LP_OPT_UINT_AT(struct cli, retest_rounds), .min = 1, .max = 20,
	  .metavar = "N",
	  .help = "retest rounds: a link stays suspect only while every retest is slow too",
	  .def = LP_OPT_DEF(LP_SWEEP_RETEST_ROUNDS) },
	{ .name = "retest-per-node", LP_OPT_UINT_AT(struct cli, retest_per_node), .min = 1,
	  .max = 1000, .metavar = "N", .help = "suspect node: cells retested in the first round",
	  .def = LP_OPT_DEF(LP_SWEEP_RETEST_PER_NODE) },
	{ .name = "fp-rate", LP_OPT_DOUBLE_AT(struct cli, d.fp_rate), .min = 1e-9, .max = 0.5,
	  .metavar = "F",
	  .help = "per run: the chance that a healthy run names anything (default 0.01; half for "
		  "nodes and groups, Sidak; half for links, Benjamini-Hochberg)" },
	{ .name = "k-mad", LP_OPT_DOUBLE_AT(struct cli, d.k), .max = 100, .metavar = "K",
	  .help = "floor on the node threshold in standard errors, links K+1 (default 4; "
		  "--fp-rate sets the threshold)" },
	{ .name = "topology", LP_OPT_STR_AT(struct cli, topology), .metavar = "FILE",
	  .help = "the switch fabric: a Slurm topology.conf, a file of HOST LEAF [RAIL] lines, "
		  "ibnetdiscover output, 'ibnetdiscover' to run it, or 'none' (default: Slurm's "
		  "topology.conf when there is one)" },
	{ .name = "rel", LP_OPT_DOUBLE_AT(struct cli, d.rel), .max = 1, .metavar = "F",
	  .help = "and beyond this fraction of the reference; smaller is never flagged (default "
		  "0.1)" },
	{ .name = "rel-max", LP_OPT_DOUBLE_AT(struct cli, d.rel_max), .max = 1, .metavar = "F",
	  .help = "noise ceiling, a fraction of the reference: inconclusive (exit 3) when a node "
		  "this much slower could hide in the noise (default 0.5)" },
	{ .name = "vote", LP_OPT_DOUBLE_AT(struct cli, d.vote), .min = 0.01, .max = 0.99,
	  .metavar = "F",
	  .help = "node failed (or below a floor): more than this fraction of its cells (default "
		  "0.5)" },
	{ .name = "min-errors", LP_OPT_DOUBLE_AT(struct cli, d.min_errors), .min = 1, .max = 1e18,
	  .metavar = "N",
	  .help = "error-class counter events of a pair (both ends, all its tests) from which they "
		  "count: below, a stray retry; at or above, evidence and maybe an 'errors' verdict "
		  "(default 10)" },
	{ .name = "max-impact", LP_OPT_DOUBLE_AT(struct cli, d.impact_max), .min = 1, .max = 1e6,
	  .metavar = "F",
	  .help = "--load latency: a node whose p99 impact factor is F times the other nodes' is "
		  "flagged (default 2)" },
	{ .name = "min-fairness", LP_OPT_DOUBLE_AT(struct cli, d.fair_min), .max = 1, .metavar = "J",
	  .help = "--load incast: a receiver whose senders' Jain index is below J is flagged "
		  "(default 0.6)" },
	{ 0 },
};

static const struct lp_opt csv_rows[] = {
	{ .name = "csv", LP_OPT_STR_AT(struct cli, csv_prefix), .metavar = "PREFIX",
	  .help = "write PREFIX-<test>-<size>.csv matrices (clients on rows) and PREFIX-cells.csv" },
	{ 0 },
};

static const struct lp_opt_group sweep_groups[] = {
	{ "sweep", sweep_rows, 0 },
	{ "sweep", rails_rows, 0 }, /* plan_main's place for plan_rails_rows */
	{ "model and plan", model_rows, 0 },
	{ "test plan", lp_rdma_plan_opt_rows, offsetof(struct cli, plan) },
	{ "test plan", lp_rdma_tune_refuse_rows, offsetof(struct cli, plan) },
	{ "test plan", fast_rows, 0 },
	{ "device", lp_rdma_dev_opt_rows, offsetof(struct cli, dev) },
	{ "memory", lp_rdma_mem_opt_rows, offsetof(struct cli, mem) },
	{ "diagnosis", diag_rows, 0 },
	{ "output", csv_rows, 0 },
	{ "output", lp_out_opt_rows, offsetof(struct cli, out) },
	{ "output", lp_out_version_opt_rows, offsetof(struct cli, out) },
	{ "qualification", lp_qual_opt_rows, offsetof(struct cli, qual) },
	{ "qualification", lp_qual_gbps_opt_rows, offsetof(struct cli, qual) },
	{ "collectives", lp_coll_opt_rows, offsetof(struct cli, coll) },
	{ "perftest", lp_rdma_perftest_opt_rows, offsetof(struct cli, perftest) },
	{ 0 },
};

static const struct lp_opt_exit sweep_exits[] = {
	{ LP_EXIT_OK, "healthy: nothing flagged (and the qualification passed when asked)" },
	{ LP_EXIT_FAIL, "something flagged (see the verdicts), cells left unmeasured, a "
			"qualification FAIL or regression, a --check FAIL, or a runtime failure" },
	{ LP_EXIT_USAGE, "usage error: a bad option or value, a refused perftest spelling, a "
			 "journal --resume cannot continue, an existing journal, a baseline "
			 "matching under half of the cells, or a --topology that does not parse" },
	{ LP_SWEEP_EXIT_INCONCLUSIVE, "inconclusive or unconfirmed only: the noise is too high to "
				      "name anything (the diagnosis: a node slower than --rel-max "
				      "could hide in it; or the collective search), or something "
				      "stood out that retests have not confirmed, and nothing else "
				      "was flagged" },
	{ LP_EXIT_OUTPUT, "an output (--json, --csv, --prom) or the standard output could not be "
			  "written (a full disk, a missing directory, a symbolic link at the file); "
			  "the previous file, if any, is left as it was; this wins over 1 and 3" },
	{ LP_EXIT_UNSUPPORTED, "no RDMA device here (with --collective: and no collective path "
			       "could run), or --diagnose built without jansson" },
	{ LP_EXIT_INTERRUPTED, "interrupted (SIGINT, SIGTERM): the cells measured until then are "
			       "written and diagnosed" },
	{ 0 },
};

static const struct lp_opt_cmd sweep_cmd = {
	.synopsis = "mpirun -np N [--map-by node] lp-sweep [options]\n"
		    "lp-sweep --diagnose RUN.json|RUN.journal [thresholds] [outputs]\n"
		    "lp-sweep --plan --nodes N [--rails R] [sweep options]",
	.groups = sweep_groups,
	.defaults = (const char *const[]){ "lat-sizes=8", "bw-sizes=1M", NULL },
	.notes = "Rates: Gb/s = 1e9 bit/s; sizes in bytes with binary suffixes (64K = 64 KiB). "
		 "Matrices put the client on rows: the source of written and sent data (of a read, the "
		 "reader).\nperftest's letters mean the same here "
		 "or are refused with linkperf's spelling (man lp-sweep).",
	.exits = sweep_exits,
};
/* clang-format on */

/* --diagnose: the options (thresholds NaN: as recorded), the qualification, the re-analysis. */
static int diagnose_main(struct cli *o, int argc, char **argv)
{
	struct lp_qual q = { 0 };
	struct lp_fail f = { 0 };
	bool help;
	int npos;

	o->d = (struct lp_diag_opts){ NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN };
	if (lp_opt_parse(&sweep_cmd, o, argc, argv, NULL, &npos, &help))
		return LP_EXIT_USAGE;
	if (help) {
		lp_opt_usage(&sweep_cmd, stdout);
		return LP_EXIT_OK;
	}
	if (lp_coll_opts_check(&o->coll, &f)) {
		lp_fail_report(&f, -EINVAL);
		return LP_EXIT_USAGE;
	}
	if (qual_setup(o, argv, &q)) {
		lp_qual_free(&q);
		return LP_EXIT_USAGE;
	}
	return diagnose_offline(o, &q);
}

/*
 * --plan --nodes N [--rails R]: the schedule, every component of the time model
 * with its source, the predicted duration and the Slurm time to ask for, before
 * MPI and without a device. With --plan, --rails takes the rails per node.
 */
static int plan_main(struct cli *o, int argc, char **argv)
{
	struct lp_opt_group groups[sizeof(sweep_groups) / sizeof(sweep_groups[0])];
	struct lp_opt_cmd cmd = sweep_cmd;
	struct lp_rdma_params p[LP_SWEEP_MAX_METRICS];
	struct lp_sweep_prediction pr;
	struct lp_sweep_load_plan lp;
	struct lp_sweep_shape sh;
	struct lp_sweep_costs c;
	struct lp_fail f = { 0 };
	int n = 0, npos, ret;
	bool help;

	memcpy(groups, sweep_groups, sizeof(groups));
	for (size_t g = 0; groups[g].rows; g++)
		if (groups[g].rows == rails_rows)
			groups[g].rows = plan_rails_rows;
	cmd.groups = groups;
	cmd.synopsis = "lp-sweep --plan --nodes N [--rails R] [sweep options]";
	if (lp_opt_parse(&cmd, o, argc, argv, NULL, &npos, &help))
		return LP_EXIT_USAGE;
	if (help) {
		lp_opt_usage(&cmd, stdout);
		return LP_EXIT_OK;
	}
	if (!o->plan_nodes)
		lp_fail_set(&f, -EINVAL, "--plan needs --nodes N");
	if (!lp_fail_ok(&f) || lp_rdma_plan_opts_resolve(&o->plan, &f)) {
		lp_fail_report(&f, -EINVAL);
		return LP_EXIT_USAGE;
	}
	ret = build_runs(o, LP_MEM_HOST, -1, p, &n);
	if (!ret)
		ret = plan_costs(o, &c);
	if (!ret && lp_sweep_shape_of(&sh, (enum lp_sched_kind)o->schedule, (int)o->plan_nodes,
				      (int)o->plan_rails, (int)o->k, o->seed)) {
		lp_err("no %s schedule of %u nodes", lp_sched_names[o->schedule], o->plan_nodes);
		ret = -EINVAL;
	}
	if (ret)
		return ret == -ENOMEM ? LP_EXIT_FAIL : LP_EXIT_USAGE;
	plan_load(o, p, n, &sh, &lp);
	lp_sweep_predict(&sh, p, n, o->fast ? lp_sweep_fast_screen(p, n) : 0, &c,
			 &(struct lp_sweep_retest_policy){ .max_pairs = (int)o->retest_max,
							   .rounds = (int)o->retest_rounds,
							   .time_s = o->retest_time },
			 o->pair_timeout, &lp, &pr);
	if (!o->out.quiet)
		lp_sweep_plan_print(stdout, &sh, p, n, &c, &pr);
	if (o->out.json) {
		FILE *jf = lp_out_open(o->out.json);

		if (!jf || lp_out_end(jf, o->out.json, lp_sweep_plan_json(jf, &sh, p, n, &c, &pr)))
			return LP_EXIT_FAIL;
	}
	return fflush(stdout) ? LP_EXIT_FAIL : LP_EXIT_OK;
}

/* The options, checked; -1 to go on, else the exit code (help, version, bad options). */
static int parse_cli(struct cli *o, const struct lp_sweep_mpi *x, int argc, char **argv)
{
	struct lp_fail f = { 0 };
	bool help;
	int npos;

	if (lp_opt_parse(&sweep_cmd, o, argc, argv, NULL, &npos, &help))
		return LP_EXIT_USAGE;
	if (help || o->out.version) {
		if (help && !x->rank)
			lp_opt_usage(&sweep_cmd, stdout);
		else if (!x->rank)
			printf("lp-sweep %s\n", LP_VERSION);
		return LP_EXIT_OK;
	}
	if (!lp_rdma_memsel_resolve(&o->mem, &f) && o->mem.gpu_auto && !o->rails)
		lp_fail_set(&f, -EINVAL,
			    "--gpu auto: lp-sweep picks a rank's GPU by its rail "
			    "(--rails); without --rails give an index");
	if (o->plan_nodes)
		lp_fail_set(&f, -EINVAL, "--nodes is for --plan (a sweep's nodes are its ranks)");
	if (lp_fail_ok(&f) && o->coll.colls) {
		struct lp_coll_cfg cc;

		lp_coll_cfg_from_opts(&o->coll, &cc, &f);
	}
	if (lp_fail_ok(&f))
		lp_coll_opts_check(&o->coll, &f);
	if (!lp_fail_ok(&f) || lp_rdma_plan_opts_resolve(&o->plan, &f)) {
		lp_fail_report(&f, -EINVAL);
		return LP_EXIT_USAGE;
	}
	lp_log_set_level(o->out.verbose ? LP_LOG_INFO : LP_LOG_WARN);
	return -1;
}

/* a and b name one existing file */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return a && b && !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/*
 * Rank 0's journal: --journal, else next to --json ("run.json" -> "run.journal"),
 * else none. The journal --resume reads may be the same file: it is replaced
 * only once the new one holds its cells.
 */
static int open_journal(const struct cli *o, struct lp_sweep_journal *jl, struct lp_fail *f)
{
	char path[4096];
	size_t n;

	memset(jl, 0, sizeof(*jl));
	if (o->journal) {
		snprintf(path, sizeof(path), "%s", o->journal);
	} else {
		if (!o->out.json || !strcmp(o->out.json, "-"))
			return 0;
		n = strlen(o->out.json);
		if (n > 5 && !strcmp(o->out.json + n - 5, ".json"))
			n -= 5;
		snprintf(path, sizeof(path), "%.*s.journal", (int)n, o->out.json);
	}
	return lp_sweep_journal_open(jl, path, same_file(path, o->resume), f);
}

/* --resume JOURNAL (rank 0): the interrupted run into prev (the engine checks its parameters). */
static int read_resume(const struct cli *o, struct lp_sweep_run *prev,
		       struct lp_sweep_journal_info *info)
{
	memset(prev, 0, sizeof(*prev));
	memset(info, 0, sizeof(*info));
	return o->resume ? read_recorded(o->resume, prev, info) : 0;
}

static int finish(struct lp_sweep_mpi *x, int code)
{
	if (x->lost) {
		/* a rank is missing or late: MPI_Finalize could wait for it forever */
		for (int i = 0; i < x->pending; i++)
			if (lp_mpi_wait(&x->pending_req[i], NULL, lp_now_ns() + 5000000000ull,
					20000))
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

/*
 * The sweep on every rank: qualification and --resume on rank 0 (all ranks hear
 * whether they are usable), this rank's node (or the model's), the run's
 * metrics, the journal, the engine, the collectives, rank 0's outputs.
 */
static int sweep_main(struct cli *o, struct lp_sweep_mpi *x, char **argv)
{
	struct lp_sweep_run run, prev = { 0 }; /* rank 0, --resume: the run it continues */
	struct lp_sweep_journal_info info = { 0 };
	struct lp_sweep_journal jl = { 0 };
	struct lp_fail why = { 0 };
	struct lp_sweep_model *model = NULL; /* --model */
	struct lp_fabric *fabric = NULL;     /* rank 0: --topology */
	struct lp_sweep_node me;
	struct lp_sweep_cfg cfg = { 0 };
	struct lp_qual q = { 0 };
	int ret, code = LP_EXIT_OK, mem = 0, mem_dev = -1;
	int bad = !x->rank && (qual_setup(o, argv, &q) || read_resume(o, &prev, &info) ||
			       topology_setup(o, &fabric));

	MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (bad) {
		lp_qual_free(&q);
		if (fabric)
			lp_fabric_free(fabric);
		free(fabric);
		return LP_EXIT_USAGE;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	x->poll_max_us = (int)o->poll_ms * 1000;
	x->tclass = lp_rdma_devsel_tclass(&o->dev);
	x->sl = o->dev.sl;
	x->qp_timeout = o->dev.qp_timeout;
	if (model_load(o, x, &model, &cfg))
		return LP_EXIT_USAGE;
	if (model)
		node_setup_model(o, x, model, &me);
	else
		node_setup(o, x, &me, &mem, &mem_dev);
	if (lp_sweep_run_init(&run, x->size))
		return LP_EXIT_FAIL;
	run.dopts = o->d;
	run.fabric = fabric; /* freed with run */
	run.bw_iters = o->plan.plan.iters[LP_PLAN_BW];
	run.lat_iters = o->plan.plan.iters[LP_PLAN_LAT];
	run.tclass = lp_rdma_devsel_tclass(&o->dev);
	run.sl = o->dev.sl;
	run.qp_timeout = o->dev.qp_timeout;  /* the row's default when not given */
	sweep_cfg(o, x, &cfg, mem, mem_dev); /* keeps the model's text */
	if (add_metrics(o, &run, &cfg, mem, mem_dev) ||
	    (model && model_bind(o, x->rank, model, &run, &cfg)))
		return LP_EXIT_USAGE;
	if (!x->rank && (ret = open_journal(o, &jl, &why))) {
		lp_fail_report(&why, 0); /* lp_out_create said its own */
		x->lost = true;		 /* the others wait in the exchange: end them too */
		return ret == -EEXIST ? LP_EXIT_USAGE : LP_EXIT_FAIL;
	}
	cfg.journal = &jl;
	cfg.resume_path = o->resume;
	cfg.resume = prev.nodes ? &prev : NULL; /* rank 0 */
	cfg.resume_seen = (const char(*)[32])info.seen;
	ret = lp_sweep_engine_run(x, &me, &cfg, &run, &code);
	lp_fail_report(&x->fail, 0); /* the engine's failure, on the ranks that say it */
	code = collectives(o, x, &cfg, &run, ret, code);
	if ((!ret || run.coll) && !x->rank)
		code = write_outputs(o, &run, &q, code);
	lp_qual_free(&q);
	if (lp_sweep_journal_close(&jl, &why)) {
		lp_fail_report(&why, 0);
		code = LP_EXIT_FAIL;
	}
	lp_sweep_run_free(&run);
	if (prev.nodes)
		lp_sweep_run_free(&prev);
	lp_sweep_journal_info_free(&info);
	if (x->dev)
		lp_rdma_dev_close(x->dev);
	free(model);
	free((char *)cfg.model_text);
	return code;
}

int main(int argc, char **argv)
{
	struct cli o = { .dev = { .gid_index = -1 } };
	struct lp_sweep_mpi x;
	int code;

	if (argc >= 2 && !strcmp(argv[1], "--test-worker")) /* a rank's test worker (isolate.c) */
		return lp_sweep_worker_main(argc, argv);
	lp_out_exit_guard(); /* an output not written (a full disk) exits LP_EXIT_OUTPUT */
	/* the offline modes' lines too ("lp-sweep: error: ..."); mpi_setup adds the rank */
	lp_log_set_prog("lp-sweep");
	lp_rdma_plan_init(&o.plan.plan);
	if (wants(argc, argv, "--diagnose"))
		return diagnose_main(&o, argc, argv);
	if (wants(argc, argv, "--plan"))
		return plan_main(&o, argc, argv);
	lp_diag_opts_default(&o.d);
	if (mpi_setup(&x, &argc, &argv))
		return LP_EXIT_FAIL;
	code = parse_cli(&o, &x, argc, argv);
	if (code < 0 && x.size < 2)
		code = one_rank();
	if (code < 0)
		code = o.check ? check_main(&o, &x) : sweep_main(&o, &x, argv);
	return finish(&x, code);
}
