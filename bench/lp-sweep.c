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
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>

#include "common/clock.h"
#include "common/lp.h"
#include "common/meta.h"
#include "common/opt.h"
#include "common/topo.h"
#include "qual/qual.h"
#include "rdma/plan.h"
#include "rdma/counters.h"
#include "rdma/rdma.h"
#include "sweep/diag.h"
#include "sweep/mpi/coll_mpi.h"
#include "sweep/model.h"
#include "sweep/mpi/sweep_mpi.h"
#include "sweep/plantime.h"
#include "sweep/result.h"
#include "sweep/retest.h"
#include "sweep/sched.h"

#define STR_(x) #x
#define STR(x)	STR_(x) /* a default from its one declaration, as option text */

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* "fork" is the old name of "process" (a test worker, posix_spawn'ed once and reused) */
static const char *const isolation_names[] = { "process", "none", "fork", NULL };

struct cli {
	int schedule, isolation, load;
	double load_time;
	unsigned incast_k;
	unsigned k;
	uint64_t seed;
	const char *dev, *mem, *json_path, *csv_prefix, *clock, *diagnose, *journal, *absent,
		*resume, *model;
	double pair_timeout, test_timeout;
	unsigned ib_port, retest_max, retest_per_node, retest_rounds, poll_ms;
	int gid_index;
	bool rails, quiet, verbose, help, version, test_timeout_set, check, plan_only;
	unsigned plan_nodes, plan_rails; /* --plan --nodes N --rails R */
	int costs;			 /* --plan: lp_sweep_costs_names index */
	struct lp_rdma_plan plan; /* tests, sizes, iterations ...: as lp-rdma's (rdma/plan.h) */
	struct lp_diag_opts d;
	struct lp_qual_opts qual;
	struct lp_coll_opts coll; /* --collective and its options, --import, --claim, --links */
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
		return; /* first usable device */
	pick_rail_nic(rail, out, len);
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
	int gpu, nic;

	if (lp_topo_scan(NULL, &t))
		return;
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
	char devname[64];
	int ret;

	node_label(o, x, me);
	parse_mem(o->mem, me->rail, o->rails, mem_p, mem_dev_p);
	if (*mem_p == LP_MEM_CUDA)
		snprintf(me->mem, sizeof(me->mem), *mem_dev_p >= 0 ? "cuda:%d" : "cuda",
			 *mem_dev_p);
	else
		snprintf(me->mem, sizeof(me->mem), "host");
	me->dev.numa_node = -1;
	pick_dev(o, me->rail, devname, sizeof(devname));
	sel = (struct lp_rdma_devsel){ .dev = devname[0] ? devname : NULL,
				       .port = (int)o->ib_port,
				       .gid_index = o->gid_index,
				       .tclass = -1,
				       .sl = 0 };
	ret = lp_rdma_dev_open(&sel, AF_INET, &x->dev);
	if (ret) {
		char list[256] = "";

		x->dev = NULL;
		lp_rdma_dev_list(list, sizeof(list));
		snprintf(x->dev_error, sizeof(x->dev_error),
			 "cannot open %s: %s (devices here: %s)",
			 devname[0] ? devname : "an RDMA device", strerror(-ret),
			 list[0] ? list : "none");
		lp_warn("%s", x->dev_error);
		me->status = ret;
		snprintf(me->error, sizeof(me->error), "%s", x->dev_error);
		snprintf(me->dev.name, sizeof(me->dev.name), "%s", devname);
	} else {
		lp_rdma_dev_inventory(x->dev, &inv); /* in the node record: every document has it */
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
	char *text = NULL, why[256] = "";
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
	ret = lp_sweep_model_parse(*m_p, text, (size_t)n, why, sizeof(why));
	if (ret && !x->rank) /* every rank parsed the same bytes: rank 0 says it */
		lp_err("--model %s: %s", o->model, why);
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
	snprintf(me->mem, sizeof(me->mem), "host");
	snprintf(me->dev.name, sizeof(me->dev.name), "model");
	snprintf(me->dev.transport, sizeof(me->dev.transport), "model");
	me->dev.rate_gbps = m->rate_gbps;
	me->dev.numa_node = -1;
	me->dev.gid_index = -1;
	x->dev = NULL;
	x->dev_status = 0;
}

/* The model bound to this job's ranks and metrics, as the engine's transport. 0 or -EINVAL. */
static int model_bind(const struct cli *o, int rank, struct lp_sweep_model *m,
		      struct lp_sweep_run *run, struct lp_sweep_cfg *cfg)
{
	char why[256];

	if (lp_sweep_model_bind(m, run->n, run->metrics, run->nmetrics, why, sizeof(why))) {
		if (!rank)
			lp_err("--model %s: %s", o->model, why);
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

/* Every pair's runs from lp-rdma's plan builder, with this memory and the sweep's sample cap. */
static int build_runs(const struct cli *o, int mem, int mem_dev, struct lp_rdma_params *runs,
		      int *n_p)
{
	struct lp_rdma_plan pl = o->plan;
	char why[200];

	pl.base.mem = (enum lp_mem_kind)mem;
	pl.base.mem_dev = mem_dev;
	pl.base.max_samples = LP_MIN(pl.base.max_samples, 100000);
	if (o->test_timeout_set)
		pl.base.timeout_ms = (int)(o->test_timeout * 1000);
	if (lp_rdma_plan_build(&pl, runs, LP_SWEEP_MAX_METRICS, n_p, why, sizeof(why))) {
		lp_err("%s", why);
		return -EINVAL;
	}
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
			    .rounds = (int)o->retest_rounds },
		.poll_max_us = x->poll_max_us,
		.sopts = { .mem = (enum lp_mem_kind)mem, .mem_dev = mem_dev, .stop = &stop_flag },
		.progress = o->quiet ? NULL : stderr,
		.absent = o->absent,
		.isolate = o->isolation != 1,
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
	if (lp_qual_setup(q, "lp-sweep", &o->qual, NULL))
		return -EINVAL;
	floor = lp_qual_floor(q, LP_QUAL_BW);
	if (isfinite(floor))
		o->d.min_gbps = 8 * floor;
	floor = lp_qual_floor(q, LP_QUAL_LAT);
	if (isfinite(floor))
		o->d.max_lat_us = floor;
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

/* The run's resolved cells judged (qual/): 0, -EINVAL (a baseline matching under half: said), ... */
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

	if (!o->quiet)
		lp_sweep_print_summary(run, stdout);
	if (node_gates(run, &hw, o->quiet) && !code)
		code = LP_EXIT_FAIL;
	if (judged) {
		qrc = lp_qual_auto(q, &hw);
		if (!qrc)
			qrc = qualify(q, run);
		if ((!qrc || qrc == -EINVAL) && !o->quiet)
			lp_qual_print(q, stdout);
		if (qrc == -EINVAL)
			code = LP_EXIT_USAGE; /* a baseline that does not match: no verdict */
		else if (qrc)
			rc = qrc;
		else if (!code && lp_qual_failed(q))
			code = LP_EXIT_FAIL;
	}
	fflush(stdout);
	if (o->json_path) {
		f = lp_out_open(o->json_path);
		rc = f ? lp_out_end(f, o->json_path,
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
	char why[256];
	int ret = lp_sweep_read_run(run, path, info, why, sizeof(why));

	if (ret) {
		lp_err("%s: %s", path, why);
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

/* The run's exit code with its collectives' verdicts: a named part makes a healthy run 1, a
 * search that could not tell 3. */
static int coll_code(const struct lp_sweep_run *run, int code)
{
	if (!code && lp_coll_flagged(run->coll))
		return LP_EXIT_FAIL;
	return !code && lp_coll_inconclusive(run->coll) ? LP_SWEEP_EXIT_INCONCLUSIVE : code;
}

/* --import, --links, --claim on rank 0 (or offline): the exit code, 2 for a file or claim that does not parse. */
static int coll_offline(const struct cli *o, struct lp_sweep_run *run, int code)
{
	char why[400] = "";
	int rc;

	if (!lp_coll_opts_wanted(&o->coll))
		return code;
	rc = lp_sweep_coll_offline(run, &o->coll, why, sizeof(why));
	if (rc) {
		lp_err("%s", why[0] ? why : strerror(-rc));
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
	char why[200];
	int rc;

	if (!o->coll.colls || (ret && ret != -ENODEV) || run->interrupted)
		return ret || x->rank ? code : coll_offline(o, run, code);
	lp_coll_cfg_from_opts(&o->coll, &cc, why, sizeof(why)); /* checked with the options */
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

	if (code)
		return code;
	lp_sweep_journal_info_free(&info);
	lp_diag_opts_merge(&run.dopts, &o->d);
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

/* Positional arguments are not taken: 0 or -EINVAL (said once). */
static int parse_opts(const struct lp_opt *opts, int argc, char **argv, bool *help_p)
{
	const char *pos[4];
	int npos = 0, ret = lp_opt_parse(opts, argc, argv, pos, 4, &npos, help_p);

	if (!ret && npos) {
		lp_err("unexpected argument '%s'", pos[0]);
		ret = -EINVAL;
	}
	return ret;
}

static int diagnose_main(struct cli *o, const struct lp_opt *opts, int argc, char **argv)
{
	struct lp_qual q = { 0 };
	int ret;

	o->d = (struct lp_diag_opts){
		NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN
	}; /* NaN: as recorded */
	ret = parse_opts(opts, argc, argv, &o->help);
	if (!ret && !o->help)
		ret = qual_setup(o, argv, &q);
	if (!ret && !o->help) {
		char why[300];

		ret = lp_coll_opts_check(&o->coll, why, sizeof(why));
		if (ret)
			lp_err("%s", why);
	}
	if (ret || o->help || !o->diagnose) {
		if (o->help)
			lp_opt_usage(
				stdout,
				"lp-sweep --diagnose RUN.json|RUN.journal [thresholds] [outputs]",
				opts);
		lp_qual_free(&q);
		return ret ? LP_EXIT_USAGE : LP_EXIT_OK;
	}
	return diagnose_offline(o, &q);
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
	char *text = NULL, why[256] = "";
	size_t len = 0;
	int ret;

	if (!o->model) {
		*c = *lp_sweep_costs_find(lp_sweep_costs_names[o->costs]);
		return 0;
	}
	m = malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	lp_sweep_model_init(m);
	ret = lp_sweep_model_read(o->model, &text, &len);
	if (ret)
		snprintf(why, sizeof(why), "%s", strerror(-ret));
	else
		ret = lp_sweep_model_parse(m, text, len, why, sizeof(why));
	if (ret)
		lp_err("--model %s: %s", o->model, why);
	else
		lp_sweep_costs_model(c, m->setup_s, m->test_s);
	free(text);
	free(m);
	return ret;
}

/* What --plan predicts for the load phases: round-robin victims, every rank a receiver. */
static void plan_load(const struct cli *o, const struct lp_rdma_params *p, int n,
		      const struct lp_sweep_shape *sh, struct lp_sweep_load_plan *lp)
{
	struct lp_sweep_shape rr;

	*lp = (struct lp_sweep_load_plan){ .load = (unsigned)o->load, .time_s = o->load_time };
	for (int m = 0; m < n; m++)
		lp->nlat += lp_rdma_test_is_lat(p[m].test);
	if (!lp_sweep_shape_of(&rr, LP_SCHED_ROUND_ROBIN, sh->nodes, sh->rails, 0, 0))
		lp->victims = rr.pairs;
	lp->receivers = sh->nodes * sh->rails;
}

/*
 * --plan --nodes N [--rails R]: the schedule, every component of the time model
 * with its source, the predicted duration and the Slurm time to ask for, before
 * MPI and without a device. With --plan, --rails takes the rails per node.
 */
static int plan_main(struct cli *o, const struct lp_opt *opts, int argc, char **argv)
{
	struct lp_rdma_params p[LP_SWEEP_MAX_METRICS];
	struct lp_sweep_prediction pr;
	struct lp_sweep_load_plan lp;
	struct lp_sweep_shape sh;
	struct lp_sweep_costs c;
	struct lp_opt *tab;
	size_t nrows = 0;
	int n = 0, ret;

	while (opts[nrows].name)
		nrows++;
	tab = malloc((nrows + 1) * sizeof(*tab));
	if (!tab)
		return LP_EXIT_FAIL;
	memcpy(tab, opts, (nrows + 1) * sizeof(*tab));
	for (size_t i = 0; i < nrows; i++)
		if (!strcmp(tab[i].name, "rails"))
			tab[i] = (struct lp_opt){
				.name = "rails",
				.kind = LP_OPT_UINT,
				.dst = &o->plan_rails,
				.min = 1,
				.max = 64,
				.metavar = "R",
				.def = "1",
				.help = "--plan: rails per node (ranks per node)"
			};
	ret = parse_opts(tab, argc, argv, &o->help);
	if (!ret && o->help)
		lp_opt_usage(stdout, "lp-sweep --plan --nodes N [--rails R] [sweep options]", tab);
	free(tab);
	if (ret || o->help)
		return ret ? LP_EXIT_USAGE : LP_EXIT_OK;
	if (!o->plan_nodes) {
		lp_err("--plan needs --nodes N");
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
	lp_sweep_predict(&sh, p, n, &c, (int)o->retest_max, (int)o->retest_rounds, o->pair_timeout,
			 &lp, &pr);
	if (!o->quiet)
		lp_sweep_plan_print(stdout, &sh, p, n, &c, &pr);
	if (o->json_path) {
		FILE *f = lp_out_open(o->json_path);

		if (!f || lp_sweep_plan_json(f, &sh, p, n, &c, &pr) ||
		    lp_out_close(f, o->json_path))
			return LP_EXIT_FAIL;
	}
	return fflush(stdout) ? LP_EXIT_FAIL : LP_EXIT_OK;
}

/*
 * --check: lp-rdma's pre-flight check of this rank's host (its device: -d, the
 * rail's NIC with --rails, else every device), gathered on rank 0: a table per
 * host and --json with every host. Exit 1 when any line (or host) FAILs.
 */
static int check_main(const struct cli *o, struct lp_sweep_mpi *x)
{
	struct lp_check_opts co = { .root = lp_counters_root(), .port = o->ib_port };
	struct lp_check_report rep = { 0 };
	struct lp_sweep_check all = { 0 };
	struct lp_sweep_node me;
	char devname[64];
	int code = LP_EXIT_OK;

	node_label(o, x, &me);
	pick_dev(o, me.rail, devname, sizeof(devname));
	co.dev = devname[0] ? devname : NULL;
	lp_check_opts_live(&co);
	me.status = lp_check_run(&co, &rep);
	if (me.status)
		lp_warn("--check on %s: %s", me.name, strerror(-me.status));
	else
		check_inventory(&rep);
	if (lp_sweep_engine_check(x, &me, &rep, &all)) {
		code = LP_EXIT_FAIL;
	} else if (!x->rank) {
		code = lp_sweep_check_worst(&all) == LP_CHECK_FAIL ? LP_EXIT_FAIL : LP_EXIT_OK;
		if (!o->quiet)
			lp_sweep_check_print(&all, stdout);
		fflush(stdout);
		if (o->json_path) {
			FILE *f = lp_out_open(o->json_path);

			if (!f ||
			    lp_out_end(f, o->json_path, lp_sweep_check_write_json(&all, f, code)))
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

/* The options, checked: 0 or -EINVAL (said once, by rank 0). */
static int parse_cli(struct cli *o, const struct lp_opt *opts, int argc, char **argv, int *mem_p,
		     int *mem_dev_p)
{
	int ret = parse_opts(opts, argc, argv, &o->help);

	if (!ret && parse_mem(o->mem, 0, o->rails, mem_p, mem_dev_p)) {
		lp_err("--mem %s: expected host, cuda or cuda:N", o->mem);
		ret = -EINVAL;
	}
	if (!ret && o->plan.duration_s > 0 &&
	    (o->plan.iters_set[LP_PLAN_LAT] || o->plan.iters_set[LP_PLAN_BW])) {
		lp_err("give either iterations or --duration, not both");
		ret = -EINVAL;
	}
	if (!ret && o->plan_nodes) {
		lp_err("--nodes is for --plan (a sweep's nodes are its ranks)");
		ret = -EINVAL;
	}
	if (!ret && lp_clock_init(o->clock)) {
		lp_err("--clock %s: expected auto, tsc or raw", o->clock ? o->clock : "");
		ret = -EINVAL;
	}
	if (!ret && (o->coll.colls || o->coll.claims)) {
		struct lp_coll_cfg cc;
		char why[300];

		ret = o->coll.colls ? lp_coll_cfg_from_opts(&o->coll, &cc, why, sizeof(why)) : 0;
		if (!ret)
			ret = lp_coll_opts_check(&o->coll, why, sizeof(why));
		if (ret)
			lp_err("%s", why);
	}
	return ret;
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
static int open_journal(const struct cli *o, struct lp_sweep_journal *jl)
{
	char path[4096];
	size_t n;

	memset(jl, 0, sizeof(*jl));
	if (o->journal) {
		snprintf(path, sizeof(path), "%s", o->journal);
	} else {
		if (!o->json_path || !strcmp(o->json_path, "-"))
			return 0;
		n = strlen(o->json_path);
		if (n > 5 && !strcmp(o->json_path + n - 5, ".json"))
			n -= 5;
		snprintf(path, sizeof(path), "%.*s.journal", (int)n, o->json_path);
	}
	return lp_sweep_journal_open(jl, path, same_file(path, o->resume));
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

int main(int argc, char **argv)
{
	static const struct cli defaults = {
		.gid_index = -1,
	};
	struct cli o = defaults;
	struct lp_rdma_plan *pl = &o.plan;
	const struct lp_opt opts[] = {
		{ .name = "schedule",
		  .kind = LP_OPT_CHOICE,
		  .dst = &o.schedule,
		  .choices = lp_sched_names,
		  .metavar = "S",
		  .def = "round-robin",
		  .help = "round-robin (N-1 rounds of N/2 pairs), isolated (one pair at a time), ring (all at once, mpiGraph shift), random (k partners each)" },
		{ .name = "load",
		  .kind = LP_OPT_CHOICE,
		  .dst = &o.load,
		  .choices = lp_sweep_load_names,
		  .metavar = "MODE",
		  .def = "none",
		  .help = "after the sweep: latency (each pair's latency while the round's other pairs run bandwidth: congestion impact factor), incast (k senders into each receiver: aggregate, Jain's fairness), both" },
		{ .name = "load-time",
		  .kind = LP_OPT_SECONDS,
		  .dst = &o.load_time,
		  .min = 0.1,
		  .max = 3600,
		  .metavar = "SECS",
		  .def = "2",
		  .help = "--load: each victim's latency test runs this long (its loaders, and an incast's senders, run its whole span)" },
		{ .name = "incast-k",
		  .kind = LP_OPT_UINT,
		  .dst = &o.incast_k,
		  .min = 1,
		  .max = LP_SWEEP_MAX_INCAST,
		  .metavar = "K",
		  .help = "--load incast: senders per receiver (default: every other rank of its rail but one, the victim that measures latency into it meanwhile; at most 32)" },
		{ .name = "max-impact",
		  .kind = LP_OPT_DOUBLE,
		  .dst = &o.d.impact_max,
		  .min = 1,
		  .max = 1e6,
		  .metavar = "F",
		  .help = "--load latency: a node whose p99 impact factor is F times the other nodes' is flagged (default 2)" },
		{ .name = "min-fairness",
		  .kind = LP_OPT_DOUBLE,
		  .dst = &o.d.fair_min,
		  .max = 1,
		  .metavar = "J",
		  .help = "--load incast: a receiver whose senders' Jain index is below J is flagged (default 0.6)" },
		{ .name = "partners",
		  .shortname = 'k',
		  .kind = LP_OPT_UINT,
		  .dst = &o.k,
		  .min = 1,
		  .max = 4096,
		  .metavar = "K",
		  .help = "random: partners drawn per node",
		  .def = "4" },
		{ .name = "seed",
		  .kind = LP_OPT_U64,
		  .dst = &o.seed,
		  .metavar = "N",
		  .help = "random: schedule seed",
		  .def = "1" },
		{ .name = "tests",
		  .shortname = 't',
		  .kind = LP_OPT_LIST,
		  .dst = &pl->tests,
		  .choices = lp_rdma_test_names,
		  .metavar = "LIST",
		  .help = "lp-rdma tests per pair",
		  .def = "write_lat,write_bw" },
		{ .name = "sizes",
		  .shortname = 's',
		  .kind = LP_OPT_SIZES,
		  .dst = &pl->sizes[LP_PLAN_BW],
		  .min = 1,
		  .max = (double)LP_RDMA_MAX_SIZE,
		  .metavar = "SIZES",
		  .help = "bandwidth sizes: 64K, 4K:1M, 64K,1M",
		  .def = "1M" },
		{ .name = "lat-sizes",
		  .kind = LP_OPT_SIZES,
		  .dst = &pl->sizes[LP_PLAN_LAT],
		  .min = 1,
		  .max = (double)LP_RDMA_MAX_SIZE,
		  .metavar = "SIZES",
		  .help = "latency sizes",
		  .def = "8" },
		{ .name = "bw-iters",
		  .shortname = 'n',
		  .kind = LP_OPT_U64,
		  .dst = &pl->iters[LP_PLAN_BW],
		  .min = 1,
		  .max = 1e9,
		  .metavar = "N",
		  .help = "bandwidth iterations per pair (default lp-rdma's 5000)",
		  .set = &pl->iters_set[LP_PLAN_BW] },
		{ .name = "lat-iters",
		  .kind = LP_OPT_U64,
		  .dst = &pl->iters[LP_PLAN_LAT],
		  .min = 1,
		  .max = 1e9,
		  .metavar = "N",
		  .help = "latency iterations per pair (default lp-rdma's 1000)",
		  .set = &pl->iters_set[LP_PLAN_LAT] },
		{ .name = "warmup",
		  .shortname = 'w',
		  .kind = LP_OPT_U64,
		  .dst = &pl->warmup,
		  .max = 1e9,
		  .metavar = "N",
		  .help = "untimed iterations first (default lp-rdma's)",
		  .set = &pl->warmup_set },
		{ .name = "duration",
		  .shortname = 'D',
		  .kind = LP_OPT_SECONDS,
		  .dst = &pl->duration_s,
		  .min = 0.01,
		  .max = 3600,
		  .metavar = "SECS",
		  .help = "run each test for this long instead of iterations" },
		LP_PLAN_OPT_INTERVAL(pl),
		{ .name = "tx-depth",
		  .shortname = 'T',
		  .kind = LP_OPT_UINT,
		  .dst = &pl->tx_depth,
		  .min = 1,
		  .max = 8192,
		  .metavar = "N",
		  .help = "bandwidth: WRs in flight (default 128)",
		  .set = &pl->tx_depth_set },
		{ .name = "dev",
		  .shortname = 'd',
		  .kind = LP_OPT_STR,
		  .dst = &o.dev,
		  .metavar = "DEV[,DEV]",
		  .help = "RDMA device; with --rails one per local rank (default: first active / i-th device)" },
		{ .name = "ib-port",
		  .shortname = 'i',
		  .kind = LP_OPT_UINT,
		  .dst = &o.ib_port,
		  .min = 1,
		  .max = 255,
		  .metavar = "N",
		  .help = "device port (default: first active)" },
		{ .name = "gid-index",
		  .shortname = 'x',
		  .kind = LP_OPT_INT,
		  .dst = &o.gid_index,
		  .max = 65535,
		  .metavar = "N",
		  .help = "RoCE GID index (default: scored choice)" },
		{ .name = "mem",
		  .kind = LP_OPT_STR,
		  .dst = &o.mem,
		  .metavar = "KIND",
		  .help = "host, cuda or cuda:N (with --rails, cuda = GPU of the rail)",
		  .def = "host" },
		{ .name = "rails",
		  .kind = LP_OPT_FLAG,
		  .dst = &o.rails,
		  .help = "one rank per rail: local rank i drives CUDA GPU i and the NIC closest to it (PCIe); pairs stay on their rail" },
		{ .name = "pair-timeout",
		  .kind = LP_OPT_SECONDS,
		  .dst = &o.pair_timeout,
		  .min = 1,
		  .max = 86400,
		  .metavar = "SECS",
		  .help = "bound on one test of one pair, set-up included",
		  .def = "60" },
		{ .name = "timeout",
		  .kind = LP_OPT_SECONDS,
		  .dst = &o.test_timeout,
		  .min = 0.1,
		  .max = 3600,
		  .metavar = "SECS",
		  .help = "no-progress bound inside a test (default lp-rdma's 10)",
		  .set = &o.test_timeout_set },
		{ .name = "isolation",
		  .kind = LP_OPT_CHOICE,
		  .dst = &o.isolation,
		  .choices = isolation_names,
		  .metavar = "HOW",
		  .def = "process",
		  .help = "process: each side of each test runs in a test process of the rank's (started fresh, not forked, and reused), so a crash or hang in it fails one cell, not the rank; none: in the rank itself; fork: the old name of process" },
		{ .name = "retest",
		  .kind = LP_OPT_UINT,
		  .dst = &o.retest_max,
		  .max = 1000000,
		  .metavar = "N",
		  .help = "isolated retests of suspect pairs per retest round at most (0 = off)",
		  .def = STR(LP_SWEEP_RETEST_MAX) },
		{ .name = "retest-rounds",
		  .kind = LP_OPT_UINT,
		  .dst = &o.retest_rounds,
		  .min = 1,
		  .max = 20,
		  .metavar = "N",
		  .help = "retest rounds: a link stays suspect only while every retest is slow too",
		  .def = STR(LP_SWEEP_RETEST_ROUNDS) },
		{ .name = "retest-per-node",
		  .kind = LP_OPT_UINT,
		  .dst = &o.retest_per_node,
		  .min = 1,
		  .max = 1000,
		  .metavar = "N",
		  .help = "suspect node: cells retested in the first round",
		  .def = STR(LP_SWEEP_RETEST_PER_NODE) },
		{ .name = "k-mad",
		  .kind = LP_OPT_DOUBLE,
		  .dst = &o.d.k,
		  .max = 100,
		  .metavar = "K",
		  .help = "a node effect beyond K standard errors is slow, a link beyond K+1 (default 4)" },
		{ .name = "rel",
		  .kind = LP_OPT_DOUBLE,
		  .dst = &o.d.rel,
		  .max = 1,
		  .metavar = "F",
		  .help = "and beyond this fraction of the reference; smaller is never flagged (default 0.1)" },
		{ .name = "rel-max",
		  .kind = LP_OPT_DOUBLE,
		  .dst = &o.d.rel_max,
		  .max = 1,
		  .metavar = "F",
		  .help = "noise ceiling: inconclusive (exit 3) when a node this much slower could hide in the noise (default 0.5)" },
		{ .name = "vote",
		  .kind = LP_OPT_DOUBLE,
		  .dst = &o.d.vote,
		  .min = 0.01,
		  .max = 0.99,
		  .metavar = "F",
		  .help = "node failed (or below a floor): more than this fraction of its cells (default 0.5)" },
		{ .name = "min-errors",
		  .kind = LP_OPT_DOUBLE,
		  .dst = &o.d.min_errors,
		  .min = 1,
		  .max = 1e18,
		  .metavar = "N",
		  .help = "error-class counter events of a pair (both ends, all its tests) from which they count: below, a stray retry; at or above, evidence and maybe an 'errors' verdict (default 10)" },
		LP_QUAL_OPT_ROWS(&o.qual),
		LP_COLL_OPT_ROWS(&o.coll),
		{ .name = "absent",
		  .kind = LP_OPT_STR,
		  .dst = &o.absent,
		  .metavar = "NAME=WHY;..",
		  .help = "nodes that belong in the sweep but have no rank (left out of the job: drained, down): recorded, their cells failed with WHY" },
		{ .name = "json",
		  .shortname = 'J',
		  .kind = LP_OPT_STR,
		  .dst = &o.json_path,
		  .metavar = "FILE",
		  .help = "write the whole run as one JSON document (- = stdout)" },
		{ .name = "journal",
		  .kind = LP_OPT_STR,
		  .dst = &o.journal,
		  .metavar = "FILE",
		  .help = "rank 0 appends every node, cell and retest here as it arrives, one JSON object per line, on disk at every round's end (default: next to --json, RUN.journal)" },
		{ .name = "resume",
		  .kind = LP_OPT_STR,
		  .dst = &o.resume,
		  .metavar = "JOURNAL",
		  .help = "continue an interrupted sweep: the cells the journal measured (same node names, tests, sizes, parameters; else exit 2) are not measured again, its nodes gone now are recorded as missing; the new document and journal hold both parts, each cell with its attempt" },
		{ .name = "diagnose",
		  .kind = LP_OPT_STR,
		  .dst = &o.diagnose,
		  .metavar = "RUN",
		  .help = "re-analyse a recorded run here, no MPI or RDMA: its JSON document or its journal (of a finished or interrupted run: marked incomplete, the missing cells listed); same summary, JSON and exit code; thresholds given here replace the recorded ones" },
		{ .name = "check",
		  .kind = LP_OPT_FLAG,
		  .dst = &o.check,
		  .help = "pre-flight check of every rank's host (lp-rdma --check), gathered: a table per host, --json with all; exit 1 on a FAIL" },
		{ .name = "model",
		  .kind = LP_OPT_STR,
		  .dst = &o.model,
		  .metavar = "FILE",
		  .help = "the model transport: every test's value drawn from the model in FILE (node, link, leaf, uplink and rail factors, noise, blips, congested rounds; docs/SWEEP.md), no RDMA device opened; the harness runs as on a cluster" },
		{ .name = "plan",
		  .kind = LP_OPT_FLAG,
		  .dst = &o.plan_only,
		  .help = "print the schedule, the predicted duration and the Slurm time to ask for --nodes N (--rails R: rails per node), measuring nothing; no MPI, no device (--json FILE: the plan as a linkperf.plan/1 document)" },
		{ .name = "nodes",
		  .kind = LP_OPT_UINT,
		  .dst = &o.plan_nodes,
		  .min = 2,
		  .max = 1 << 20,
		  .metavar = "N",
		  .help = "--plan: the nodes to sweep" },
		{ .name = "costs",
		  .kind = LP_OPT_CHOICE,
		  .dst = &o.costs,
		  .choices = lp_sweep_costs_names,
		  .metavar = "NAME",
		  .def = "ndr",
		  .help = "--plan: the measured costs to predict with, ndr or softroce (with --model: the model's time)" },
		{ .name = "csv",
		  .kind = LP_OPT_STR,
		  .dst = &o.csv_prefix,
		  .metavar = "PREFIX",
		  .help = "write PREFIX-<test>-<size>.csv matrices and PREFIX-cells.csv" },
		{ .name = "poll-ms",
		  .kind = LP_OPT_UINT,
		  .dst = &o.poll_ms,
		  .min = 1,
		  .max = 1000,
		  .metavar = "MS",
		  .help = "longest sleep between MPI polls (the latency a coordination step may add)",
		  .def = STR(LP_SWEEP_POLL_MS) },
		{ .name = "clock",
		  .kind = LP_OPT_STR,
		  .dst = &o.clock,
		  .metavar = "C",
		  .help = "auto, tsc or raw (as lp-rdma)" },
		{ .name = "quiet",
		  .shortname = 'q',
		  .kind = LP_OPT_FLAG,
		  .dst = &o.quiet,
		  .help = "no summary on stdout" },
		{ .name = "verbose",
		  .shortname = 'v',
		  .kind = LP_OPT_FLAG,
		  .dst = &o.verbose,
		  .help = "log rounds and pair errors" },
		{ .name = "version",
		  .kind = LP_OPT_FLAG,
		  .dst = &o.version,
		  .help = "print the version" },
		{ 0 },
	};
	struct lp_sweep_mpi x;
	struct lp_sweep_node me;
	struct lp_sweep_run run;
	struct lp_sweep_cfg cfg;
	struct lp_sweep_journal jl = { 0 };
	struct lp_sweep_run prev = { 0 }; /* rank 0, --resume: the run it continues */
	struct lp_sweep_journal_info info = { 0 };
	struct lp_qual q = { 0 };
	struct lp_sweep_model *model = NULL; /* --model */
	int ret, code = LP_EXIT_OK, mem = 0, mem_dev = -1, qbad;

	if (argc >= 2 && !strcmp(argv[1], "--test-worker")) /* a rank's test worker (isolate.c) */
		return lp_sweep_worker_main(argc, argv);
	lp_out_exit_guard(); /* an output not written (a full disk) exits LP_EXIT_OUTPUT */
	lp_rdma_plan_init(pl);
	if (wants(argc, argv, "--diagnose"))
		return diagnose_main(&o, opts, argc, argv);
	if (wants(argc, argv, "--plan"))
		return plan_main(&o, opts, argc, argv);
	lp_diag_opts_default(&o.d);
	if (mpi_setup(&x, &argc, &argv))
		return LP_EXIT_FAIL;
	ret = parse_cli(&o, opts, argc, argv, &mem, &mem_dev);
	/* Qualification is rank 0's (profiles and baselines are its files); all ranks hear its answer. */
	qbad = !ret && !o.help && !x.rank &&
	       (qual_setup(&o, argv, &q) || read_resume(&o, &prev, &info));
	MPI_Bcast(&qbad, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (qbad)
		ret = -EINVAL;
	if (ret || o.help || o.version) {
		lp_qual_free(&q);
		if (o.help && !x.rank)
			lp_opt_usage(stdout, "mpirun -np N [--map-by node] lp-sweep [options]",
				     opts);
		if (o.version && !x.rank)
			printf("lp-sweep %s\n", LP_VERSION);
		return finish(&x, ret ? LP_EXIT_USAGE : LP_EXIT_OK);
	}
	lp_log_set_level(o.verbose ? LP_LOG_INFO : LP_LOG_WARN);
	if (x.size < 2)
		return finish(&x, one_rank());
	if (o.check)
		return finish(&x, check_main(&o, &x));
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	x.poll_max_us = (int)o.poll_ms * 1000;

	memset(&cfg, 0, sizeof(cfg));
	if (model_load(&o, &x, &model, &cfg))
		return finish(&x, LP_EXIT_USAGE);
	if (model)
		node_setup_model(&o, &x, model, &me);
	else
		node_setup(&o, &x, &me, &mem, &mem_dev);
	if (lp_sweep_run_init(&run, x.size))
		return finish(&x, LP_EXIT_FAIL);
	run.dopts = o.d;
	run.bw_iters = pl->iters[LP_PLAN_BW];
	run.lat_iters = pl->iters[LP_PLAN_LAT];
	sweep_cfg(&o, &x, &cfg, mem, mem_dev); /* keeps the model's text */
	if (add_metrics(&o, &run, &cfg, mem, mem_dev) ||
	    (model && model_bind(&o, x.rank, model, &run, &cfg)))
		return finish(&x, LP_EXIT_USAGE);
	if (!x.rank && (ret = open_journal(&o, &jl))) {
		x.lost = true; /* the others wait in the exchange: end them too */
		return finish(&x, ret == -EEXIST ? LP_EXIT_USAGE : LP_EXIT_FAIL);
	}
	cfg.journal = &jl;
	cfg.resume_path = o.resume;
	cfg.resume = prev.nodes ? &prev : NULL; /* rank 0 */
	cfg.resume_seen = (const char(*)[32])info.seen;
	ret = lp_sweep_engine_run(&x, &me, &cfg, &run, &code);
	code = collectives(&o, &x, &cfg, &run, ret, code);
	if ((!ret || run.coll) && !x.rank)
		code = write_outputs(&o, &run, &q, code);
	lp_qual_free(&q);
	if (lp_sweep_journal_close(&jl))
		code = LP_EXIT_FAIL;
	lp_sweep_run_free(&run);
	if (prev.nodes)
		lp_sweep_run_free(&prev);
	lp_sweep_journal_info_free(&info);
	if (x.dev)
		lp_rdma_dev_close(x.dev);
	free(model);
	free((char *)cfg.model_text);
	return finish(&x, code);
}
