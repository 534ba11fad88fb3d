// SPDX-License-Identifier: MIT
/*
 * lp-rdma: point-to-point RDMA latency and bandwidth.
 *
 *   lp-rdma --server [--once]                 serve clients one after another
 *   lp-rdma HOST -t write_lat,write_bw -s 2:1M   run tests against a server
 *
 * A thin main: options in, the plan (rdma/plan.h), library calls, results out
 * through rdma/report.h (table, CSV, JSON).
 */
#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fail.h"
#include "common/lp.h"
#include "common/meta.h"
#include "common/opt.h"
#include "common/sock.h"
#include "common/topo.h"
#include "qual/qual.h"
#include "rdma/check.h"
#include "rdma/counters.h"
#include "rdma/opts.h"
#include "rdma/plan.h"
#include "rdma/rdma.h"
#include "rdma/report.h"
#ifdef LP_HAVE_CUDA
#include "gpu/gpumem.h"
#endif

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* Everything the command line sets; the groups' structs are shared with lp-sweep (rdma/opts.h). */
struct cli {
	bool server, once, topo, counters, check, inventory, no_numa, cm_port_set;
	const char *bind;
	unsigned port, cm_port;
	double wait_s;
	const char *allow, *key_path; /* --allow (server), --key (both) */
	uint64_t max_mem;	      /* server: --max-mem */
	double max_duration_s, max_timeout_s;
	struct lp_rdma_plan_opts plan; /* -t -s -n -D ... and the tuning (-q -l -Q ...) */
	struct lp_rdma_devsel dev;     /* -d -i -x -T -S */
	struct lp_rdma_memsel mem;     /* --mem, --gpu */
	struct lp_rdma_perftest_opts perftest;
	struct lp_out_opts out;	  /* --json, --csv, --quiet ... */
	struct lp_qual_opts qual; /* --expect, floors, --baseline, --prom */
	/* derived */
	const char *host;
	char dev_auto[64];
	struct lp_rdma_affinity aff; /* what --gpu/--dev auto and the NUMA binding decided */
};

/* GPU memory asked for: is there a GPU (and the code for it)? 0, -EOPNOTSUPP, -ENODEV, -EINVAL. */
static int check_mem(int kind, int dev)
{
	int n = 0;

	if (kind != LP_MEM_CUDA)
		return 0;
#ifdef LP_HAVE_CUDA
	if (lp_gpu_count(&n) || n == 0) {
		lp_err("--mem cuda: no CUDA GPU or driver on this host");
		return -ENODEV;
	}
	if (dev >= n) {
		lp_err("--mem cuda: GPU %d does not exist (this host has %d)", dev, n);
		return -EINVAL;
	}
	return 0;
#else
	(void)dev;
	(void)n;
	lp_err("--mem cuda: this lp-rdma was built without CUDA");
	return -EOPNOTSUPP;
#endif
}

/* ---- GPU-NIC affinity (--gpu auto, --dev auto, NUMA binding) --------------- */

#ifdef LP_HAVE_CUDA
/* CUDA ordinal of the GPU at bdf, or -1. */
static int cuda_index_of(const char *bdf)
{
	int n = 0;
	char id[32];

	if (lp_gpu_count(&n))
		return -1;
	for (int i = 0; i < n; i++)
		if (!lp_gpu_bus_id(i, id, sizeof(id)) && !strcasecmp(id, bdf))
			return i;
	return -1;
}
#endif

/* Topology index of CUDA device dev, or -1. */
static int topo_index_of(const struct lp_topo *t, int dev)
{
#ifdef LP_HAVE_CUDA
	char id[32];

	if (lp_gpu_bus_id(dev, id, sizeof(id)))
		return -1;
	for (int g = 0; g < t->ngpus; g++)
		if (!strcasecmp(t->gpus[g].bdf, id))
			return g;
#else
	(void)t;
	(void)dev;
#endif
	return -1;
}

/*
 * The PCIe topology with each GPU's CUDA ordinal: with ask_cuda, CUDA's own
 * answer where it runs (it applies CUDA_VISIBLE_DEVICES and its device order);
 * else the CUDA_VISIBLE_DEVICES rules applied to PCI order (no CUDA start-up
 * for a host-memory run).
 */
static int scan_topo(struct lp_topo *t, bool ask_cuda)
{
	struct lp_fail f = { 0 };
	int ret = lp_topo_scan("", t, &f), n = 0;

	if (ret) {
		lp_fail_report(&f, ret);
		return ret;
	}
#ifdef LP_HAVE_CUDA
	if (ask_cuda && !lp_gpu_count(&n) && n > 0) {
		for (int g = 0; g < t->ngpus; g++)
			t->gpus[g].cuda = cuda_index_of(t->gpus[g].bdf);
		return 0;
	}
#else
	(void)ask_cuda;
#endif
	(void)n;
	lp_topo_set_visible(t, getenv("CUDA_VISIBLE_DEVICES"));
	return 0;
}

/*
 * Resolve --dev auto and --gpu auto from the PCIe topology: only GPUs CUDA
 * can see, only NICs with an active port on the compute fabric
 * (lp_topo_nic_usable). *mem_dev_p is the CUDA ordinal to use.
 */
static int resolve_auto(struct cli *o, int mem_kind, int *mem_dev_p)
{
	bool dev_auto = o->dev.dev && !strcmp(o->dev.dev, "auto");
	bool gpu_auto = mem_kind == LP_MEM_CUDA && o->mem.gpu_auto;
	struct lp_topo t;
	int g = -1, nic = -1, ret;

	if (!dev_auto && !gpu_auto)
		return 0;
	ret = scan_topo(&t, mem_kind == LP_MEM_CUDA);
	if (ret)
		return ret;
	if (o->dev.dev && !dev_auto)
		nic = lp_topo_nic_index(&t, o->dev.dev);
	if (mem_kind == LP_MEM_CUDA && !gpu_auto)
		g = topo_index_of(&t, *mem_dev_p < 0 ? 0 : *mem_dev_p);
	if (dev_auto && gpu_auto)
		ret = lp_topo_best_pair(&t, &g, &nic);
	else if (dev_auto)
		ret = g >= 0 ? lp_topo_best_nic(&t, g, &nic) : -ENODEV;
	else
		ret = nic >= 0 ? lp_topo_best_gpu(&t, nic, &g) : -ENODEV;
	if (ret && dev_auto && g < 0 && !gpu_auto) {
		/* host memory: the first usable NIC */
		for (int n = 0; n < t.nnics && ret; n++)
			if (lp_topo_nic_usable(&t, n))
				ret = 0, nic = n;
	} else if (ret && gpu_auto && nic < 0) {
		/* a NIC outside the PCIe tree (rxe) or none named: the first visible GPU */
		for (int k = 0; k < t.ngpus && ret; k++)
			if (t.gpus[k].cuda >= 0)
				ret = 0, g = k;
	}
	if (ret) {
		lp_err("--%s auto: no %s found in the PCIe topology", dev_auto ? "dev" : "gpu",
		       dev_auto ? "RDMA device with an active port on the compute fabric"
				: "GPU visible to CUDA (CUDA_VISIBLE_DEVICES?)");
		lp_topo_free(&t);
		return -ENODEV;
	}
	if (dev_auto) {
		snprintf(o->dev_auto, sizeof(o->dev_auto), "%s", t.nics[nic].name);
		o->dev.dev = o->dev_auto;
	}
	if (gpu_auto)
		*mem_dev_p = t.gpus[g].cuda;
	lp_topo_free(&t);
	return 0;
}

/*
 * The affinity block: the NIC actually opened, the GPU in use and their PCIe
 * distance (loud when they sit on different sockets); bind to the NIC's NUMA node.
 */
static void describe_affinity(struct cli *o, const char *opened, int mem_kind, int mem_dev)
{
	struct lp_topo t;
	struct lp_fail f = { 0 };
	char why[320];
	int g = -1, nic, p2p;

	if (mem_kind != LP_MEM_CUDA && o->no_numa)
		return;
	if (scan_topo(&t, mem_kind == LP_MEM_CUDA))
		return;
	nic = lp_topo_nic_index(&t, opened);
	if (mem_kind == LP_MEM_CUDA)
		g = topo_index_of(&t, mem_dev < 0 ? 0 : mem_dev);
	if (nic >= 0) {
		o->aff.known = true;
		o->aff.numa = t.nics[nic].numa;
		snprintf(o->aff.nic, sizeof(o->aff.nic), "%s", t.nics[nic].name);
		if (g >= 0) {
			enum lp_topo_dist d = lp_topo_distance(&t, g, nic);

			snprintf(o->aff.gpu_bdf, sizeof(o->aff.gpu_bdf), "%s", t.gpus[g].bdf);
			snprintf(o->aff.dist, sizeof(o->aff.dist), "%s", lp_topo_dist_name(d));
			if (d == LP_TOPO_SYS)
				lp_warn("GPU %s and %s sit on different CPU sockets (SYS): GPUDirect "
					"traffic crosses the inter-socket link and may reach a fraction "
					"of the line rate; try --gpu auto / --dev auto (lp-rdma --topo)",
					t.gpus[g].bdf, t.nics[nic].name);
			else if (d >= LP_TOPO_PHB)
				lp_info("GPU %s - %s: %s", t.gpus[g].bdf, t.nics[nic].name,
					lp_topo_dist_help(d));
			p2p = lp_topo_p2p_check("", &t, g, nic, why, sizeof(why));
			if (p2p > 0)
				lp_warn("%s", why);
			else if (p2p == -EACCES)
				lp_info("PCIe ACS between GPU %s and %s not checked: config space needs root",
					t.gpus[g].bdf, t.nics[nic].name);
		}
		o->aff.numa_bound = !o->no_numa && o->aff.numa >= 0;
		if (o->aff.numa_bound && lp_numa_bind(o->aff.numa, &f)) {
			lp_fail_report(&f, 0); /* the cause, when it has words */
			lp_warn("could not bind to NUMA node %d of %s", o->aff.numa,
				t.nics[nic].name);
		}
	}
	lp_topo_free(&t);
}

/* Connect to the server, retrying a server not up yet until deadline (--wait). */
static int connect_server(const struct cli *o, uint64_t deadline, int *fd_p)
{
	int ret;

	for (;;) {
		ret = lp_sock_connect(o->host, (uint16_t)o->port, 5000, fd_p);
		if (!ret || stop_flag)
			return ret;
		if (ret != -ECONNREFUSED && ret != -ETIMEDOUT && ret != -EHOSTUNREACH &&
		    ret != -ENETUNREACH)
			break;
		if (lp_now_ns() >= deadline)
			break;
		lp_sleep_ms(200);
	}
	lp_err("cannot reach the lp-rdma server at %s port %u: %s%s", o->host, o->port,
	       ret == -EHOSTUNREACH ? "unknown host or no route" : strerror(-ret),
	       o->wait_s > 0 ? " (gave up after --wait)"
			     : " (is `lp-rdma --server` running there? "
			       "--wait SECS retries)");
	return ret;
}

/* ---- client -------------------------------------------------------------- */

/* One client session: the plan, what each run measured, and the connection. */
struct client {
	struct lp_rdma_params *params;
	struct lp_rdma_result *res;
	int planned, done, failed, fd;
	struct lp_rdma_dev *dev;
	struct lp_oob oob;
	struct lp_qual q;
	struct lp_rdma_key key; /* --key */
};

/* --key FILE, loaded (and its mode checked) before anything is touched: 0, -EINVAL, -EOPNOTSUPP. */
static int load_key(const struct cli *o, struct lp_rdma_key *key)
{
	struct lp_fail f = { 0 };
	int ret = o->key_path ? lp_rdma_key_load(o->key_path, key, &f) : 0;

	lp_fail_report(&f, ret);
	return ret;
}

/* Connect and open the session (the key); a busy server is asked again until --wait is spent. */
static int open_session(const struct cli *o, struct client *c)
{
	uint64_t deadline = lp_now_ns() + (uint64_t)(o->wait_s * 1e9);
	struct lp_fail f = { 0 };
	unsigned retry;
	int ret;

	for (;;) {
		if (connect_server(o, deadline, &c->fd))
			return -EIO; /* said why */
		lp_fail_clear(&f);
		ret = lp_rdma_client_open(&c->oob, o->key_path ? &c->key : NULL, &retry, &f);
		if (ret != -EBUSY || stop_flag || lp_now_ns() + 1000000000ull > deadline)
			break;
		lp_info("%s", lp_fail_msg(&f));
		close(c->fd);
		c->fd = -1;
		lp_sleep_ms(
			1000); /* a second, not retry_s: that is the phase's bound, often far off */
	}
	lp_fail_report(&f, ret);
	return ret;
}

/* The plan, checked before any device or server is touched (a bad one: exit 2). */
static int client_plan(const struct cli *o, struct client *c)
{
	const int max = LP_RDMA_NTESTS * 2 * LP_SIZES_MAX;
	struct lp_fail f = { 0 };
	int ret;

	c->params = calloc((size_t)max, sizeof(*c->params));
	c->res = calloc((size_t)max, sizeof(*c->res));
	if (!c->params || !c->res)
		return -ENOMEM;
	ret = load_key(o, &c->key);
	if (ret)
		return ret;
	ret = lp_rdma_plan_build(&o->plan.plan, c->params, max, &c->planned, &f);
	lp_fail_report(&f, ret);
	if (!ret && lp_qual_wanted(&o->qual) &&
	    (ret = lp_qual_setup(&c->q, "lp-rdma", &o->qual, NULL)) != 0)
		lp_fail_report(&c->q.fail, 0);
	return ret;
}

/* What --expect auto matches: the port as verbs reports it. */
static struct lp_qual_hw qual_hw(const struct lp_rdma_devinfo *d)
{
	return (struct lp_qual_hw){ .rdma_dev = d->name,
				    .link_layer = d->link_layer,
				    .speed = d->speed,
				    .width = d->width,
				    .rate_gbps = d->rate_gbps };
}

/* The JSON document to f; a document that could not be made says why (the one line). */
static int report_json(FILE *f, const void *rep)
{
	struct lp_fail why = { 0 };
	int ret = lp_rdma_report_json_write(f, rep, &why);

	lp_fail_report(&why, 0);
	return ret;
}

/* The same to --json's path (its own failure logged by lp_out_end). */
static int write_json(const char *path, const struct lp_rdma_report *rep)
{
	struct lp_fail why = { 0 };
	int ret = lp_rdma_report_json(path, rep, &why);

	lp_fail_report(&why, 0);
	return ret;
}

/* The inventory's sources: $LP_SYSFS_ROOT, and the helpers (smpquery, lldpctl) on the live system. */
static struct lp_inv_opts inv_opts(void)
{
	const char *root = lp_counters_root();

	return (struct lp_inv_opts){
		.root = root, .vpd = true, .tools = !root[0], .timeout_ms = 5000
	};
}

/* Device (--dev/--gpu auto resolved), affinity, then the server. */
static int client_connect(struct cli *o, struct client *c)
{
	struct lp_rdma_devsel sel = o->dev;
	int family = strchr(o->host, ':') ? AF_INET6 : AF_INET;
	struct lp_fail f = { 0 };
	int ret = check_mem(o->mem.kind, o->mem.dev);
	struct lp_qual_hw hw;
	char peer[64];

	if (!ret)
		ret = resolve_auto(o, o->mem.kind, &o->mem.dev);
	if (!ret) {
		sel.dev = o->dev.dev;
		ret = lp_rdma_dev_open(&sel, family, &c->dev, &f);
		if (ret)
			lp_fail_report(&f, ret);
	}
	if (!ret) {
		struct lp_inv_opts io = inv_opts();

		lp_rdma_dev_inventory(c->dev, &io); /* in the document, beside the server's */
	}
	if (!ret) {
		hw = qual_hw(lp_rdma_dev_info(c->dev));
		ret = lp_qual_auto(&c->q, &hw);
		lp_fail_report(&c->q.fail, 0);
	}
	if (ret)
		return ret;
	describe_affinity(o, lp_rdma_dev_info(c->dev)->name, o->mem.kind, o->mem.dev);
	ret = open_session(o, c);
	if (ret)
		return -EIO; /* said why */
	if (!lp_sock_peer_addr(c->fd, peer, sizeof(peer), &c->oob.peer_family) &&
	    o->dev.gid_index < 0 && c->oob.peer_family != family &&
	    lp_rdma_dev_select_gid(c->dev, c->oob.peer_family, -1, &f))
		lp_warn("%s (the GID chosen for the other family stays)", lp_fail_msg(&f));
	return 0;
}

/* --interval: each interval of the running test as it closes. */
static void print_interval(void *ctx, const struct lp_ival *iv)
{
	lp_rdma_report_interval(stdout, ctx, iv);
}

/* The runs in order, each row printed as it lands; the first failure ends the session. */
static void client_runs(const struct cli *o, struct client *c)
{
	struct lp_rdma_table t = { .f = stdout };

	if (!o->out.quiet)
		lp_rdma_report_device(stdout, lp_rdma_dev_info(c->dev), "client");
	for (int i = 0; i < c->planned && !stop_flag && !c->failed; i++) {
		struct lp_rdma_params *p = &c->params[i];
		struct lp_ival_sink live = { .fn = print_interval, .ctx = p };
		int ret;

		p->mem_dev = o->mem.dev;
		ret = lp_rdma_client_run(c->dev, &c->oob, p, o->host, o->out.quiet ? NULL : &live,
					 &c->res[i]);
		c->done = i + 1;
		if (!o->out.quiet)
			lp_rdma_report_row(&t, p, &c->res[i]);
		if (ret) { /* the session's state is unknown after a failure: stop here */
			c->failed++;
			lp_err("%s size %llu: %s", lp_rdma_test_names[p->test],
			       (unsigned long long)p->size, c->res[i].error);
		}
	}
	if (!c->failed)
		lp_rdma_client_bye(&c->oob);
	if (!o->out.quiet)
		lp_rdma_report_footer(stdout, c->params, c->res, c->done);
}

/* --csv and --json (judged by --expect/--baseline when asked); each output that cannot be
 * written counts as a failure, and so does a failed qualification. */
static void client_outputs(const struct cli *o, struct client *c)
{
	struct lp_rdma_report rep = {
		.role = "client",
		.server = o->host,
		.port = o->port,
		.tclass = lp_rdma_devsel_tclass(&o->dev),
		.sl = o->dev.sl,
		.qp_timeout = o->dev.qp_timeout,
		.local_dev = lp_rdma_dev_info(c->dev),
		.aff = &o->aff,
		.params = c->params,
		.res = c->res,
		.n = c->done,
		.planned = c->planned,
	};

	if (o->out.csv && lp_rdma_report_csv(o->out.csv, &rep))
		c->failed++;
	rep.failed = c->failed;
	/* SIGINT/SIGTERM: the results are what was measured until then. */
	rep.interrupted = stop_flag;
	if (lp_qual_wanted(&o->qual)) {
		if (lp_qual_run(&c->q, report_json, &rep, o->out.json)) {
			lp_fail_report(&c->q.fail, 0);
			c->failed++;
		} else if (!o->out.quiet)
			lp_qual_print(&c->q, stdout);
		c->failed += lp_qual_failed(&c->q);
	} else if (o->out.json && write_json(o->out.json, &rep)) {
		c->failed++;
	}
}

static int run_client(struct cli *o)
{
	struct client c = { .fd = -1 };
	int ret;

	c.oob = (struct lp_oob){ .ops = &lp_oob_tcp_ops,
				 .ctx = &c.fd,
				 .timeout_ms = (int)(o->plan.timeout_s * 1000),
				 .peer_name = o->host,
				 .stop = &stop_flag };
	ret = client_plan(o, &c);
	if (!ret)
		ret = client_connect(o, &c);
	if (!ret) {
		client_runs(o, &c);
		client_outputs(o, &c);
		ret = stop_flag ? -EINTR : c.failed || c.done < c.planned ? -EIO : 0;
	}
	lp_qual_free(&c.q);
	explicit_bzero(&c.key, sizeof(c.key));
	for (int i = 0; i < c.done; i++)
		lp_rdma_result_free(&c.res[i]);
	free(c.params);
	free(c.res);
	if (c.fd >= 0)
		close(c.fd);
	lp_rdma_dev_close(c.dev);
	return lp_exit_code(ret);
}

/* ---- --topo, --counters, --check: one host, no peer --------------------------------- */

static int run_topo(void)
{
	struct lp_topo t;

	if (scan_topo(&t, true))
		return LP_EXIT_FAIL;
	lp_topo_print(&t, stdout);
	lp_topo_free(&t);
	return LP_EXIT_OK;
}

/* A snapshot of -d/-i (default the first RDMA device, port 1) under $LP_SYSFS_ROOT. */
static int read_counters(const struct cli *o, const char *root, struct lp_counters *snap)
{
	unsigned port = o->dev.port > 0 ? (unsigned)o->dev.port : 1;
	struct lp_topo t = { 0 };
	struct lp_fail f = { 0 };
	const char *dev = o->dev.dev;
	int ret = dev ? 0 : lp_topo_scan(root, &t, &f);

	if (ret)
		lp_fail_report(&f, ret);
	if (!ret && !dev && !t.nnics) {
		lp_err("--counters: no RDMA device here");
		ret = -ENODEV;
	}
	if (!ret)
		ret = lp_counters_read(root, dev ? dev : t.nics[0].name, port, snap);
	if (ret == -ENODEV && dev)
		lp_err("--counters: no port %u on RDMA device %s", port, dev);
	lp_topo_free(&t);
	return ret;
}

/*
 * --counters or --check (the pre-flight report) as a table and/or a JSON
 * document; both read sysfs under $LP_SYSFS_ROOT. --check exits 1 when a line FAILs.
 */
static int run_report(const struct cli *o)
{
	const char *root = lp_counters_root();
	struct lp_check_opts co = { .root = root,
				    .dev = o->dev.dev,
				    .port = (unsigned)o->dev.port,
				    .tclass = o->dev.tclass,
				    .tclass_set = o->dev.tclass_set,
				    .sl = o->dev.sl };
	struct lp_check_report rep = { 0 };
	struct lp_counters *snap = calloc(1, sizeof(*snap));
	struct lp_rdma_report doc = { .role = o->check ? "check" : "counters" };
	struct lp_fail f = { 0 };
	struct lp_host_meta m;
	int ret;

	if (!snap)
		return LP_EXIT_FAIL;
	if (o->check) {
		lp_check_opts_live(&co);
		ret = lp_check_run(&co, &rep, &f);
		if (ret)
			lp_fail_report(&f, ret);
		doc.check = &rep;
	} else {
		ret = read_counters(o, root, snap);
		doc.counters = snap;
	}
	lp_host_meta_collect(&m);
	if (!ret && !o->out.quiet && o->check) {
		lp_check_print(&rep, stdout);
		printf("%s: %u checks, worst %s\n", m.host, rep.n,
		       lp_check_status_name(lp_check_worst(&rep)));
	} else if (!ret && !o->out.quiet) {
		lp_counters_print(snap, false, stdout);
	}
	if (!ret && o->out.json)
		ret = write_json(o->out.json, &doc);
	if (!ret && o->check && lp_check_worst(&rep) == LP_CHECK_FAIL)
		ret = -EIO;
	lp_check_free(&rep);
	free(snap);
	return ret ? lp_exit_code(ret) : LP_EXIT_OK;
}

/* --inventory: every RDMA port and GPU of this host, a table and/or --json. */
static int run_inventory(const struct cli *o)
{
	struct lp_inv_opts io = inv_opts();
	struct lp_inv_host *h = calloc(1, sizeof(*h));
	struct lp_rdma_report doc = { .role = "inventory", .inventory = h };
	int ret = h ? lp_inv_host_read(&io, h) : -ENOMEM;

	if (!ret && !o->out.quiet)
		lp_inv_host_print(h, stdout);
	if (!ret && o->out.json)
		ret = write_json(o->out.json, &doc);
	free(h);
	return ret ? lp_exit_code(ret) : LP_EXIT_OK;
}

/* How each connection ended (rdma/server.c reports each once, a flood as one line). */
static void server_report(void *ctx, const struct lp_rdma_server_event *e)
{
	const struct cli *o = ctx;

	if (e->quiet)
		lp_warn("%u more connections ended in the last %u s (not logged one by one)",
			e->quiet, e->window_s);
	else if (!e->status && !o->out.quiet)
		printf("client %s: session done\n", e->peer);
	else if (e->status == -EINTR)
		lp_warn("client %s: session interrupted (the client was told)", e->peer);
	else if (e->status)
		lp_warn("client %s: session ended: %s", e->peer, e->why);
	fflush(stdout);
}

/* --allow and --key, before any device is opened (a bad one: exit 2, or 77 without libcrypto). */
static int server_policy(const struct cli *o, struct lp_sock_allow *allow, struct lp_rdma_key *key)
{
	struct lp_fail f = { 0 };
	int ret = o->allow ? lp_sock_allow_parse(o->allow, allow, &f) : 0;

	if (ret) {
		lp_fail_wrap(&f, "--allow %s", o->allow);
		lp_fail_report(&f, ret);
		return -EINVAL;
	}
	return load_key(o, key);
}

/* The device, the listening socket, then rdma/server.c serves until a signal (or --once). */
static int run_server(struct cli *o)
{
	struct lp_rdma_devsel sel = o->dev;
	static struct lp_rdma_key key; /* 4 KiB: not on the stack; wiped before exit */
	struct lp_sock_allow allow;
	struct lp_inv_opts io;
	struct lp_rdma_server_cfg cfg = {
		.session = { .bind_addr = o->bind,
			     .stop = &stop_flag,
			     .mem = (enum lp_mem_kind)o->mem.kind,
			     .mem_dev = o->mem.dev,
			     .max_mem = o->max_mem,
			     .max_duration_s = o->max_duration_s,
			     .max_timeout_ms = (int)(o->max_timeout_s * 1000),
			     .gid_fixed = o->dev.gid_index >= 0,
			     .gid_by_family = o->dev.gid_index < 0,
			     .cm_port = (uint16_t)o->cm_port,
			     .allow = o->allow ? &allow : NULL },
		.allow = o->allow ? &allow : NULL,
		.key = o->key_path ? &key : NULL,
		.timeout_ms = (int)(o->plan.timeout_s * 1000),
		.once = o->once,
		.stop = &stop_flag,
		.report = server_report,
		.ctx = o,
	};
	struct lp_rdma_dev *dev;
	struct lp_fail f = { 0 };
	int lfd, ret;

	ret = server_policy(o, &allow, &key);
	if (!ret)
		ret = check_mem(o->mem.kind, cfg.session.mem_dev);
	if (!ret)
		ret = resolve_auto(o, o->mem.kind, &cfg.session.mem_dev);
	if (ret)
		return lp_exit_code(ret);
	sel.dev = o->dev.dev;
	ret = lp_rdma_dev_open(&sel, o->bind && strchr(o->bind, ':') ? AF_INET6 : AF_INET, &dev,
			       &f);
	if (ret)
		return lp_fail_report(&f, ret);
	io = inv_opts();
	lp_rdma_dev_inventory(dev, &io); /* the clients' documents record it (ACCEPT) */
	describe_affinity(o, lp_rdma_dev_info(dev)->name, o->mem.kind, cfg.session.mem_dev);
	ret = lp_sock_listen(o->bind, (uint16_t)o->port, &lfd, &f);
	if (ret) {
		lp_fail_report(&f, ret);
		lp_rdma_dev_close(dev);
		return LP_EXIT_FAIL;
	}
	if (!o->out.quiet) {
		lp_rdma_report_device(stdout, lp_rdma_dev_info(dev), "server");
		printf("listening on %s port %u (%s%s%s)\n", o->bind ? o->bind : "*", o->port,
		       o->once ? "one client; " : "", o->allow ? "--allow list; " : "",
		       o->key_path ? "shared key" : "no key");
		fflush(stdout);
	}
	ret = lp_rdma_server_run(dev, lfd, &cfg);
	close(lfd);
	lp_rdma_dev_close(dev);
	explicit_bzero(&key, sizeof(key));
	if (stop_flag)
		return LP_EXIT_INTERRUPTED;
	return ret && ret != -EINTR ? LP_EXIT_FAIL : LP_EXIT_OK;
}

/* ---- options ------------------------------------------------------------- */

#define LP_RDMA_PORT "18555" /* linkperf's own: perftest's 18515 would collide with its servers */

/* clang-format off */
static const struct lp_opt rdma_rows[] = {
	{ .name = "server", .shortname = 'Z', LP_OPT_FLAG_AT(struct cli, server),
	  .help = "run as the server (one client at a time; another is told when to try again; "
		  "perftest's -Z)" },
	{ .name = "port", .shortname = 'p', LP_OPT_UINT_AT(struct cli, port), .min = 1,
	  .max = 65535, .metavar = "PORT", .help = "TCP port of the exchange",
	  .def = LP_RDMA_PORT },
	{ .name = "cm-port", LP_OPT_UINT_AT(struct cli, cm_port), LP_OPT_SET_AT(struct cli, cm_port_set),
	  .min = 1, .max = 65535, .metavar = "PORT",
	  .help = "rdma_cm port on the server: the only one it listens on, where the client "
		  "connects (default: --port + 1)" },
	{ .name = "key", LP_OPT_STR_AT(struct cli, key_path), .metavar = "FILE",
	  .help = "shared key, the same file on both sides, readable by its owner only: each side "
		  "proves it holds it (HMAC-SHA256) before any test" },
	{ .name = "wait", LP_OPT_SECONDS_AT(struct cli, wait_s), .max = 3600, .metavar = "SECS",
	  .help = "client: retry until the server is up and free (not busy with another client)",
	  .def = "0" },
	{ .name = "no-numa-bind", LP_OPT_FLAG_AT(struct cli, no_numa),
	  .help = "do not bind to the NIC's NUMA node" },
	{ .name = "topo", LP_OPT_FLAG_AT(struct cli, topo),
	  .help = "print the GPU-NIC PCIe distance table and exit" },
	{ .name = "counters", LP_OPT_FLAG_AT(struct cli, counters),
	  .help = "print the port's counters (-d, -i; --json FILE) and exit" },
	{ .name = "check", LP_OPT_FLAG_AT(struct cli, check),
	  .help = "pre-flight check of this host (OK/WARN/FAIL with fixes; RoCE PFC and ECN for "
		  "--tclass/--sl; --json FILE); exit 1 on a FAIL" },
	{ .name = "inventory", LP_OPT_FLAG_AT(struct cli, inventory),
	  .help = "this host's RDMA ports and GPUs for a vendor: GUIDs, LID/GID, HCA, PSID, "
		  "firmware, PCI slot and link, VPD part and serial, the switch port, GPU serials "
		  "and VBIOS (--json FILE); exit" },
	{ 0 },
};

/* Who may use the server, and how much (man lp-rdma, SECURITY). */
static const struct lp_opt server_rows[] = {
	{ .name = "once", LP_OPT_FLAG_AT(struct cli, once),
	  .help = "exit after the first session (a client that got past --allow and --key)" },
	{ .name = "bind", LP_OPT_STR_AT(struct cli, bind), .metavar = "ADDR",
	  .help = "listen on this address (default all)" },
	{ .name = "allow", LP_OPT_STR_AT(struct cli, allow), .metavar = "NETS",
	  .help = "serve only these IPv4/IPv6 addresses and networks, ADDR[/PREFIX],... "
		  "(also for --cm; default any)" },
	{ .name = "max-mem", LP_OPT_SIZE_AT(struct cli, max_mem), .min = 4096,
	  .max = (double)LP_RDMA_MAX_BUF, .metavar = "BYTES",
	  .help = "most memory one test of a client may register here", .def = "1G" },
	{ .name = "max-duration", LP_OPT_SECONDS_AT(struct cli, max_duration_s), .min = 1,
	  .max = 86400, .metavar = "SECS",
	  .help = "longest -D a client may ask for, and the bound of any test's run here",
	  .def = "600" },
	{ .name = "max-timeout", LP_OPT_SECONDS_AT(struct cli, max_timeout_s), .min = 0.1,
	  .max = 3600, .metavar = "SECS", .help = "largest --timeout a client may ask for",
	  .def = "60" },
	{ 0 },
};

static const struct lp_opt_group rdma_groups[] = {
	{ "mode", rdma_rows, 0 },
	{ "server", server_rows, 0 },
	{ "test plan", lp_rdma_plan_opt_rows, offsetof(struct cli, plan) },
	{ "tuning", lp_rdma_tune_opt_rows, offsetof(struct cli, plan) },
	{ "device", lp_rdma_dev_opt_rows, offsetof(struct cli, dev) },
	{ "memory", lp_rdma_mem_opt_rows, offsetof(struct cli, mem) },
	{ "output", lp_out_csv_opt_rows, offsetof(struct cli, out) },
	{ "output", lp_out_opt_rows, offsetof(struct cli, out) },
	{ "output", lp_out_version_opt_rows, offsetof(struct cli, out) },
	{ "output", lp_out_schema_opt_rows, offsetof(struct cli, out) },
	{ "qualification", lp_qual_opt_rows, offsetof(struct cli, qual) },
	{ "qualification", lp_qual_gbps_opt_rows, offsetof(struct cli, qual) },
	{ "perftest", lp_rdma_perftest_opt_rows, offsetof(struct cli, perftest) },
	{ 0 },
};

static const struct lp_opt_exit rdma_exits[] = {
	{ LP_EXIT_OK, "the tests ran (and passed --expect, the floors and --baseline when given; "
		      "--check: no FAIL)" },
	{ LP_EXIT_FAIL, "a runtime failure (connection, verbs error, verification failed; a server "
			"that refused this client, or was busy past --wait), a FAIL against "
			"--expect or a floor, a regression against --baseline, or a --check FAIL "
			"(no RDMA device at all is one)" },
	{ LP_EXIT_USAGE, "usage error: a bad option or value, a refused perftest spelling, a plan "
			 "the device cannot run, or a baseline matching under half of the cells" },
	{ LP_EXIT_OUTPUT, "an output (--json, --csv, --prom) or the standard output could not be "
			  "written (a full disk, a missing directory, a symbolic link at the file); "
			  "the previous file, if any, is left as it was" },
	{ LP_EXIT_UNSUPPORTED, "not supported here: no RDMA device, or no GPU for --mem cuda" },
	{ LP_EXIT_INTERRUPTED, "interrupted (SIGINT, SIGTERM): what was measured until then is "
			       "written" },
	{ 0 },
};

static const struct lp_opt_cmd rdma_cmd = {
	.synopsis = "lp-rdma --server [options]\nlp-rdma HOST [options]",
	.groups = rdma_groups,
	.defaults = (const char *const[]){ "lat-sizes=2", "bw-sizes=64K", NULL },
	.max_pos = 1,
	.notes = "Rates: Gb/s = 1e9 bit/s (network), GB/s = 1e9 B/s; sizes in bytes with binary "
		 "suffixes (64K = 64 KiB).\nperftest's letters mean the same here or are refused "
		 "with linkperf's spelling (man lp-rdma).",
	.exits = rdma_exits,
};
/* clang-format on */

/* The options in the plan's terms: memory, the rdma_cm port (default --port + 1). */
static void plan_from_options(struct cli *o)
{
	struct lp_rdma_plan *pl = &o->plan.plan;

	if (!o->cm_port_set)
		o->cm_port = o->port < 65535 ? o->port + 1 : o->port - 1;
	pl->base.cm_port = (uint16_t)o->cm_port;
	pl->base.mem = (enum lp_mem_kind)o->mem.kind;
}

/* The options, checked; -1 to go on, else the exit code (help, version, --topo ..., bad options). */
static int parse_cli(struct cli *o, int argc, char **argv)
{
	const char *pos[1];
	struct lp_fail f = { 0 };
	bool help;
	int npos;

	if (lp_opt_parse(&rdma_cmd, o, argc, argv, pos, &npos, &help))
		return LP_EXIT_USAGE;
	if (help || o->out.version || o->out.json_schema) {
		if (help)
			lp_opt_usage(&rdma_cmd, stdout);
		else if (o->out.version)
			printf("lp-rdma %s\n", LP_VERSION);
		else if (lp_rdma_report_schema(stdout))
			return LP_EXIT_FAIL;
		return LP_EXIT_OK;
	}
	if (o->out.verbose)
		lp_log_set_level(LP_LOG_DEBUG);
	if (o->inventory)
		return run_inventory(o);
	if (o->topo || o->counters || o->check)
		return o->topo ? run_topo() : run_report(o);
	if (o->server == (npos == 1)) {
		lp_err(o->server ? "--server takes no HOST argument"
				 : "give the server's HOST, or --server (see --help)");
		return LP_EXIT_USAGE;
	}
	o->host = npos ? pos[0] : NULL;
	if (lp_rdma_memsel_resolve(&o->mem, &f) || lp_rdma_plan_opts_resolve(&o->plan, &f))
		return lp_fail_report(&f, -EINVAL);
	plan_from_options(o);
	return -1;
}

int main(int argc, char **argv)
{
	struct cli o = { .dev = { .gid_index = -1 } };
	int code;

	lp_out_exit_guard(); /* an output not written (a full disk) exits LP_EXIT_OUTPUT */
	lp_log_set_prog(argv[0]);
	lp_rdma_plan_init(&o.plan.plan);
	o.qual.argv = argv;
	code = parse_cli(&o, argc, argv);
	if (code >= 0)
		return code;
	lp_info("clock: %s", lp_clock_desc());
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	return o.server ? run_server(&o) : run_client(&o);
}
