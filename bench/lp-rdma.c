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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/lp.h"
#include "common/meta.h"
#include "common/opt.h"
#include "common/sock.h"
#include "common/topo.h"
#include "qual/qual.h"
#include "rdma/check.h"
#include "rdma/counters.h"
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

struct cli {
	bool server, once, version, quiet, verbose, topo, no_numa, counters, check, inventory,
		cm_port_set;
	const char *host, *bind, *dev, *json_path, *csv_path, *mem, *clock, *gpu;
	const char *allow, *key_path; /* --allow (server), --key (both) */
	uint64_t max_mem;	      /* server: --max-mem */
	double max_duration_s, max_timeout_s;
	char dev_auto[64];
	struct lp_rdma_affinity aff; /* what --gpu/--dev auto and the NUMA binding decided */
	unsigned port, ib_port, cm_port;
	int gid_index, tclass, sl; /* -1: the library chooses (gid_index, tclass) */
	double wait_s, timeout_s;
	int lat_method;		  /* index in lat_methods */
	int mem_kind, mem_dev;	  /* --mem and --gpu, resolved */
	struct lp_rdma_plan plan; /* the test options (-t -s -n -w -T -Q ...) */
	struct lp_qual_opts qual; /* --expect, floors, --baseline, --prom */
};

static const char *const lat_methods[] = { "poll", "imm", NULL };
static const enum lp_lat_method lat_method_of[] = { LP_LAT_POLL, LP_LAT_WRITE_IMM };

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
	int ret = lp_topo_scan("", t), n = 0;

	if (ret)
		return ret;
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
	bool dev_auto = o->dev && !strcmp(o->dev, "auto");
	bool gpu_auto = mem_kind == LP_MEM_CUDA && o->gpu && !strcmp(o->gpu, "auto");
	struct lp_topo t;
	int g = -1, nic = -1, ret;

	if (!dev_auto && !gpu_auto)
		return 0;
	ret = scan_topo(&t, mem_kind == LP_MEM_CUDA);
	if (ret)
		return ret;
	if (o->dev && !dev_auto)
		nic = lp_topo_nic_index(&t, o->dev);
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
		o->dev = o->dev_auto;
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
		if (o->aff.numa_bound && lp_numa_bind(o->aff.numa))
			lp_warn("could not bind to NUMA node %d of %s", o->aff.numa,
				t.nics[nic].name);
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
	char why[320];
	int ret = o->key_path ? lp_rdma_key_load(o->key_path, key, why, sizeof(why)) : 0;

	if (ret)
		lp_err("%s", why);
	return ret;
}

/* Connect and open the session (the key); a busy server is asked again until --wait is spent. */
static int open_session(const struct cli *o, struct client *c)
{
	uint64_t deadline = lp_now_ns() + (uint64_t)(o->wait_s * 1e9);
	char why[320];
	unsigned retry;
	int ret;

	for (;;) {
		if (connect_server(o, deadline, &c->fd))
			return -EIO; /* said why */
		ret = lp_rdma_client_open(&c->oob, o->key_path ? &c->key : NULL, &retry, why,
					  sizeof(why));
		if (ret != -EBUSY || stop_flag || lp_now_ns() + 1000000000ull > deadline)
			break;
		lp_info("%s", why);
		close(c->fd);
		c->fd = -1;
		lp_sleep_ms(
			1000); /* a second, not retry_s: that is the phase's bound, often far off */
	}
	if (ret)
		lp_err("%s", why);
	return ret;
}

/* The plan, checked before any device or server is touched (a bad one: exit 2). */
static int client_plan(const struct cli *o, struct client *c)
{
	const int max = LP_RDMA_NTESTS * 2 * LP_SIZES_MAX;
	char why[200];
	int ret;

	c->params = calloc((size_t)max, sizeof(*c->params));
	c->res = calloc((size_t)max, sizeof(*c->res));
	if (!c->params || !c->res)
		return -ENOMEM;
	ret = load_key(o, &c->key);
	if (ret)
		return ret;
	ret = lp_rdma_plan_build(&o->plan, c->params, max, &c->planned, why, sizeof(why));
	if (ret)
		lp_err("%s", why);
	if (!ret && lp_qual_wanted(&o->qual))
		ret = lp_qual_setup(&c->q, "lp-rdma", &o->qual, NULL);
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

static int report_json(FILE *f, const void *rep)
{
	return lp_rdma_report_json_write(f, rep);
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
	struct lp_rdma_devsel sel = {
		.dev = o->dev,
		.port = (int)o->ib_port,
		.gid_index = o->gid_index,
		.tclass = o->tclass,
		.sl = o->sl,
	};
	int family = strchr(o->host, ':') ? AF_INET6 : AF_INET;
	int ret = check_mem(o->mem_kind, o->mem_dev);
	struct lp_qual_hw hw;
	char peer[64];

	if (!ret)
		ret = resolve_auto(o, o->mem_kind, &o->mem_dev);
	if (!ret) {
		sel.dev = o->dev;
		ret = lp_rdma_dev_open(&sel, family, &c->dev);
	}
	if (!ret) {
		struct lp_inv_opts io = inv_opts();

		lp_rdma_dev_inventory(c->dev, &io); /* in the document, beside the server's */
	}
	if (!ret) {
		hw = qual_hw(lp_rdma_dev_info(c->dev));
		ret = lp_qual_auto(&c->q, &hw);
	}
	if (ret)
		return ret;
	describe_affinity(o, lp_rdma_dev_info(c->dev)->name, o->mem_kind, o->mem_dev);
	ret = open_session(o, c);
	if (ret)
		return -EIO; /* said why */
	if (!lp_sock_peer_addr(c->fd, peer, sizeof(peer), &c->oob.peer_family) &&
	    o->gid_index < 0 && c->oob.peer_family != family)
		lp_rdma_dev_select_gid(c->dev, c->oob.peer_family, -1);
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

	if (!o->quiet)
		lp_rdma_report_device(stdout, lp_rdma_dev_info(c->dev), "client");
	for (int i = 0; i < c->planned && !stop_flag && !c->failed; i++) {
		struct lp_rdma_params *p = &c->params[i];
		struct lp_ival_sink live = { .fn = print_interval, .ctx = p };
		int ret;

		p->mem_dev = o->mem_dev;
		ret = lp_rdma_client_run(c->dev, &c->oob, p, o->host, o->quiet ? NULL : &live,
					 &c->res[i]);
		c->done = i + 1;
		if (!o->quiet)
			lp_rdma_report_row(&t, p, &c->res[i]);
		if (ret) { /* the session's state is unknown after a failure: stop here */
			c->failed++;
			lp_err("%s size %llu: %s", lp_rdma_test_names[p->test],
			       (unsigned long long)p->size, c->res[i].error);
		}
	}
	if (!c->failed)
		lp_rdma_client_bye(&c->oob);
	if (!o->quiet)
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
		.local_dev = lp_rdma_dev_info(c->dev),
		.aff = &o->aff,
		.params = c->params,
		.res = c->res,
		.n = c->done,
		.planned = c->planned,
	};

	if (o->csv_path && lp_rdma_report_csv(o->csv_path, &rep))
		c->failed++;
	rep.failed = c->failed;
	/* SIGINT/SIGTERM: the results are what was measured until then. */
	rep.interrupted = stop_flag;
	if (lp_qual_wanted(&o->qual)) {
		if (lp_qual_run(&c->q, report_json, &rep, o->json_path))
			c->failed++;
		else if (!o->quiet)
			lp_qual_print(&c->q, stdout);
		c->failed += lp_qual_failed(&c->q);
	} else if (o->json_path && lp_rdma_report_json(o->json_path, &rep)) {
		c->failed++;
	}
}

static int run_client(struct cli *o)
{
	struct client c = { .fd = -1 };
	int ret;

	c.oob = (struct lp_oob){ .ops = &lp_oob_tcp_ops,
				 .ctx = &c.fd,
				 .timeout_ms = (int)(o->timeout_s * 1000),
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
	unsigned port = o->ib_port ? o->ib_port : 1;
	struct lp_topo t = { 0 };
	int ret = o->dev ? 0 : lp_topo_scan(root, &t);

	if (!ret && !o->dev && !t.nnics) {
		lp_err("--counters: no RDMA device here");
		ret = -ENODEV;
	}
	if (!ret)
		ret = lp_counters_read(root, o->dev ? o->dev : t.nics[0].name, port, snap);
	if (ret == -ENODEV && o->dev)
		lp_err("--counters: no port %u on RDMA device %s", port, o->dev);
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
	struct lp_check_opts co = {
		.root = root, .dev = o->dev, .port = o->ib_port, .tclass = o->tclass, .sl = o->sl
	};
	struct lp_check_report rep = { 0 };
	struct lp_counters *snap = calloc(1, sizeof(*snap));
	struct lp_rdma_report doc = { .role = o->check ? "check" : "counters" };
	struct lp_host_meta m;
	int ret;

	if (!snap)
		return LP_EXIT_FAIL;
	if (o->check) {
		lp_check_opts_live(&co);
		ret = lp_check_run(&co, &rep);
		doc.check = &rep;
	} else {
		ret = read_counters(o, root, snap);
		doc.counters = snap;
	}
	lp_host_meta_collect(&m);
	if (!ret && !o->quiet && o->check) {
		lp_check_print(&rep, stdout);
		printf("%s: %u checks, worst %s\n", m.host, rep.n,
		       lp_check_status_name(lp_check_worst(&rep)));
	} else if (!ret && !o->quiet) {
		lp_counters_print(snap, false, stdout);
	}
	if (!ret && o->json_path)
		ret = lp_rdma_report_json(o->json_path, &doc);
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

	if (!ret && !o->quiet)
		lp_inv_host_print(h, stdout);
	if (!ret && o->json_path)
		ret = lp_rdma_report_json(o->json_path, &doc);
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
	else if (!e->status && !o->quiet)
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
	char why[320];
	int ret = o->allow ? lp_sock_allow_parse(o->allow, allow, why, sizeof(why)) : 0;

	if (ret) {
		lp_err("--allow %s: %s", o->allow, why);
		return -EINVAL;
	}
	return load_key(o, key);
}

/* The device, the listening socket, then rdma/server.c serves until a signal (or --once). */
static int run_server(struct cli *o)
{
	struct lp_rdma_devsel sel = {
		.dev = o->dev,
		.port = (int)o->ib_port,
		.gid_index = o->gid_index,
		.tclass = o->tclass,
		.sl = o->sl,
	};
	static struct lp_rdma_key key; /* 4 KiB: not on the stack; wiped before exit */
	struct lp_sock_allow allow;
	struct lp_inv_opts io;
	struct lp_rdma_server_cfg cfg = {
		.session = { .bind_addr = o->bind,
			     .stop = &stop_flag,
			     .mem = (enum lp_mem_kind)o->mem_kind,
			     .mem_dev = o->mem_dev,
			     .max_mem = o->max_mem,
			     .max_duration_s = o->max_duration_s,
			     .max_timeout_ms = (int)(o->max_timeout_s * 1000),
			     .gid_fixed = o->gid_index >= 0,
			     .gid_by_family = o->gid_index < 0,
			     .cm_port = (uint16_t)o->cm_port,
			     .allow = o->allow ? &allow : NULL },
		.allow = o->allow ? &allow : NULL,
		.key = o->key_path ? &key : NULL,
		.timeout_ms = (int)(o->timeout_s * 1000),
		.once = o->once,
		.stop = &stop_flag,
		.report = server_report,
		.ctx = o,
	};
	struct lp_rdma_dev *dev;
	int lfd, ret;

	ret = server_policy(o, &allow, &key);
	if (!ret)
		ret = check_mem(o->mem_kind, cfg.session.mem_dev);
	if (!ret)
		ret = resolve_auto(o, o->mem_kind, &cfg.session.mem_dev);
	if (ret)
		return lp_exit_code(ret);
	sel.dev = o->dev;
	ret = lp_rdma_dev_open(&sel, o->bind && strchr(o->bind, ':') ? AF_INET6 : AF_INET, &dev);
	if (ret)
		return lp_exit_code(ret);
	io = inv_opts();
	lp_rdma_dev_inventory(dev, &io); /* the clients' documents record it (ACCEPT) */
	describe_affinity(o, lp_rdma_dev_info(dev)->name, o->mem_kind, cfg.session.mem_dev);
	ret = lp_sock_listen(o->bind, (uint16_t)o->port, &lfd);
	if (ret) {
		lp_rdma_dev_close(dev);
		return LP_EXIT_FAIL;
	}
	if (!o->quiet) {
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

/* Options that depend on each other, for both roles; 0 or -EINVAL after one line. */
static int check_options(struct cli *o, int npos, const char **pos)
{
	uint64_t g;

	if (!o->mem) /* --gpu alone means GPU memory: never host memory in silence */
		o->mem = o->gpu ? "cuda" : "host";
	if (lp_mem_parse(o->mem, &o->mem_kind, &o->mem_dev)) {
		lp_err("--mem %s: expected host, cuda or cuda:N", o->mem);
		return -EINVAL;
	}
	if (o->gpu && o->mem_kind != LP_MEM_CUDA) {
		lp_err("--gpu %s chooses the GPU of GPU memory, but --mem is %s: use --mem cuda or drop --gpu",
		       o->gpu, o->mem);
		return -EINVAL;
	}
	if (o->gpu && strcmp(o->gpu, "auto")) {
		if (lp_parse_u64(o->gpu, &g) || g > 1023) {
			lp_err("--gpu %s: expected a GPU index or auto", o->gpu);
			return -EINVAL;
		}
		if (o->mem_dev >= 0 && (uint64_t)o->mem_dev != g) {
			lp_err("--mem %s and --gpu %s name different GPUs", o->mem, o->gpu);
			return -EINVAL;
		}
		o->mem_dev = (int)g;
	}
	if (o->server == (npos == 1)) {
		lp_err(o->server ? "--server takes no HOST argument"
				 : "give the server's HOST, or --server (see --help)");
		return -EINVAL;
	}
	if (npos > 1) {
		lp_err("unexpected argument '%s'", pos[1]);
		return -EINVAL;
	}
	o->host = pos[0];
	if (lp_clock_init(o->clock)) {
		lp_err("--clock %s: expected auto, tsc or raw (tsc needs an x86 TSC with a stable rate)",
		       o->clock);
		return -EINVAL;
	}
	return 0;
}

/* The options in the plan's terms: lp-rdma's -s and -n count for both kinds of test. */
static void plan_from_options(struct cli *o)
{
	struct lp_rdma_plan *pl = &o->plan;

	pl->sizes[LP_PLAN_LAT] = pl->sizes[LP_PLAN_BW];
	pl->iters[LP_PLAN_LAT] = pl->iters[LP_PLAN_BW];
	pl->iters_set[LP_PLAN_LAT] = pl->iters_set[LP_PLAN_BW];
	if (!o->cm_port_set)
		o->cm_port = o->port < 65535 ? o->port + 1 : o->port - 1;
	pl->base.cm_port = (uint16_t)o->cm_port;
	pl->base.timeout_ms = (int)(o->timeout_s * 1000);
	pl->base.mem = (enum lp_mem_kind)o->mem_kind;
	pl->base.lat_method = lat_method_of[o->lat_method];
}

/*
 * The option table: defaults that hold for every test are in it; those that
 * depend on the kind of test come from the plan (rdma/plan.h). Returns -1 to
 * go on, else the exit code (help, version, bad options).
 */
static int parse_cli(struct cli *o, int argc, char **argv)
{
	struct lp_rdma_plan *pl = &o->plan;
	const struct lp_opt tab[] = {
		{ .name = "server",
		  .shortname = 'S',
		  .kind = LP_OPT_FLAG,
		  .dst = &o->server,
		  .help = "run as the server (one client at a time; another is told when to try again)" },
		{ .name = "once",
		  .kind = LP_OPT_FLAG,
		  .dst = &o->once,
		  .help = "server: exit after the first session (a client that got past --allow and --key)" },
		{ .name = "port",
		  .shortname = 'p',
		  .kind = LP_OPT_UINT,
		  .dst = &o->port,
		  .min = 1,
		  .max = 65535,
		  .metavar = "PORT",
		  .help = "TCP port of the exchange",
		  .def = "18515" },
		{ .name = "bind",
		  .kind = LP_OPT_STR,
		  .dst = &o->bind,
		  .metavar = "ADDR",
		  .help = "server: listen on this address (default all)" },
		{ .name = "allow",
		  .kind = LP_OPT_STR,
		  .dst = &o->allow,
		  .metavar = "NETS",
		  .help = "server: serve only these IPv4/IPv6 addresses and networks, ADDR[/PREFIX],... (also for --cm; default any)" },
		{ .name = "key",
		  .kind = LP_OPT_STR,
		  .dst = &o->key_path,
		  .metavar = "FILE",
		  .help = "shared key, the same file on both sides, readable by its owner only: each side proves it holds it (HMAC-SHA256) before any test" },
		{ .name = "max-mem",
		  .kind = LP_OPT_SIZE,
		  .dst = &o->max_mem,
		  .min = 4096,
		  .max = (double)LP_RDMA_MAX_BUF,
		  .metavar = "BYTES",
		  .help = "server: most memory one test of a client may register here",
		  .def = "1G" },
		{ .name = "max-duration",
		  .kind = LP_OPT_SECONDS,
		  .dst = &o->max_duration_s,
		  .min = 1,
		  .max = 86400,
		  .metavar = "SECS",
		  .help = "server: longest -D a client may ask for, and the bound of any test's run here",
		  .def = "600" },
		{ .name = "max-timeout",
		  .kind = LP_OPT_SECONDS,
		  .dst = &o->max_timeout_s,
		  .min = 0.1,
		  .max = 3600,
		  .metavar = "SECS",
		  .help = "server: largest --timeout a client may ask for",
		  .def = "60" },
		{ .name = "dev",
		  .shortname = 'd',
		  .kind = LP_OPT_STR,
		  .dst = &o->dev,
		  .metavar = "DEV",
		  .help = "RDMA device, or auto = the one closest to the GPU (default: the first with an active port)" },
		{ .name = "ib-port",
		  .shortname = 'i',
		  .kind = LP_OPT_UINT,
		  .dst = &o->ib_port,
		  .min = 1,
		  .max = 255,
		  .metavar = "N",
		  .help = "device port (default: first active)" },
		{ .name = "gid-index",
		  .shortname = 'x',
		  .kind = LP_OPT_INT,
		  .dst = &o->gid_index,
		  .max = 65535,
		  .metavar = "N",
		  .help = "RoCE GID index (default: scored choice, RoCEv2 + address family)" },
		{ .name = "tclass",
		  .kind = LP_OPT_INT,
		  .dst = &o->tclass,
		  .max = 255,
		  .metavar = "N",
		  .help = "traffic class (DSCP << 2 | ECN) for RoCE; --check judges its PFC/ECN" },
		{ .name = "sl",
		  .kind = LP_OPT_INT,
		  .dst = &o->sl,
		  .max = 15,
		  .metavar = "N",
		  .help = "service level (RoCE: the VLAN priority, under PCP trust)",
		  .def = "0" },
		{ .name = "tests",
		  .shortname = 't',
		  .kind = LP_OPT_LIST,
		  .dst = &pl->tests,
		  .choices = lp_rdma_test_names,
		  .metavar = "LIST",
		  .help = "tests: write_lat,read_lat,send_lat,write_bw,read_bw,send_bw",
		  .def = "write_lat,write_bw" },
		{ .name = "size",
		  .shortname = 's',
		  .kind = LP_OPT_SIZES,
		  .dst = &pl->sizes[LP_PLAN_BW],
		  .min = 1,
		  .max = (double)LP_RDMA_MAX_SIZE,
		  .metavar = "SIZES",
		  .help = "sizes: 64K, 2:8M (powers of two), 2,4K,1M (default 2 B latency, 64 KiB bandwidth)" },
		{ .name = "iters",
		  .shortname = 'n',
		  .kind = LP_OPT_U64,
		  .dst = &pl->iters[LP_PLAN_BW],
		  .min = 1,
		  .max = 1e9,
		  .metavar = "N",
		  .help = "timed iterations (default 1000 latency, 5000 bandwidth)",
		  .set = &pl->iters_set[LP_PLAN_BW] },
		{ .name = "duration",
		  .shortname = 'D',
		  .kind = LP_OPT_SECONDS,
		  .dst = &pl->duration_s,
		  .min = 0.01,
		  .max = 86400,
		  .metavar = "SECS",
		  .help = "run each test for this long instead of -n" },
		LP_PLAN_OPT_INTERVAL(pl),
		{ .name = "warmup",
		  .shortname = 'w',
		  .kind = LP_OPT_U64,
		  .dst = &pl->warmup,
		  .max = 1e9,
		  .metavar = "N",
		  .help = "untimed iterations first (default 100 latency, 64 bandwidth)",
		  .set = &pl->warmup_set },
		{ .name = "tx-depth",
		  .shortname = 'T',
		  .kind = LP_OPT_UINT,
		  .dst = &pl->tx_depth,
		  .min = 1,
		  .max = 8192,
		  .metavar = "N",
		  .help = "bandwidth: WRs in flight per QP (default 128)",
		  .set = &pl->tx_depth_set },
		{ .name = "rx-depth",
		  .kind = LP_OPT_UINT,
		  .dst = &pl->base.rx_depth,
		  .min = 1,
		  .max = 8192,
		  .metavar = "N",
		  .help = "send tests: receives posted per QP",
		  .def = "512" },
		{ .name = "cq-mod",
		  .shortname = 'Q',
		  .kind = LP_OPT_UINT,
		  .dst = &pl->cq_mod,
		  .min = 1,
		  .max = 8192,
		  .metavar = "N",
		  .help = "bandwidth: signal every N-th WR (default 64, at most the tx depth)",
		  .set = &pl->cq_mod_set },
		{ .name = "post-list",
		  .shortname = 'l',
		  .kind = LP_OPT_UINT,
		  .dst = &pl->base.post_list,
		  .min = 1,
		  .max = LP_RDMA_MAX_POST_LIST,
		  .metavar = "N",
		  .help = "bandwidth: WRs per ibv_post_send",
		  .def = "1" },
		{ .name = "qps",
		  .kind = LP_OPT_UINT,
		  .dst = &pl->base.num_qps,
		  .min = 1,
		  .max = LP_RDMA_MAX_QPS,
		  .metavar = "N",
		  .help = "bandwidth: QPs, round-robin",
		  .def = "1" },
		{ .name = "inline",
		  .shortname = 'I',
		  .kind = LP_OPT_UINT,
		  .dst = &pl->base.inline_size,
		  .max = 4096,
		  .metavar = "BYTES",
		  .help = "max inline data (default: 64 for latency, 0 for bandwidth)" },
		{ .name = "mtu",
		  .shortname = 'm',
		  .kind = LP_OPT_UINT,
		  .dst = &pl->base.mtu,
		  .min = 256,
		  .max = 4096,
		  .metavar = "BYTES",
		  .help = "path MTU 256..4096 (default: the port's active MTU)" },
		{ .name = "bidir",
		  .shortname = 'b',
		  .kind = LP_OPT_FLAG,
		  .dst = &pl->base.bidir,
		  .help = "bandwidth both ways at once (each direction and the sum)" },
		{ .name = "verify",
		  .shortname = 'V',
		  .kind = LP_OPT_FLAG,
		  .dst = &pl->base.verify,
		  .help = "check every received byte against the pattern" },
		{ .name = "cm",
		  .shortname = 'R',
		  .kind = LP_OPT_FLAG,
		  .dst = &pl->base.use_cm,
		  .help = "connect QPs with librdmacm instead of the exchange" },
		{ .name = "cm-port",
		  .kind = LP_OPT_UINT,
		  .dst = &o->cm_port,
		  .min = 1,
		  .max = 65535,
		  .metavar = "PORT",
		  .help = "rdma_cm port on the server: the only one it listens on, where the client connects (default: --port + 1)",
		  .set = &o->cm_port_set },
		{ .name = "mem",
		  .kind = LP_OPT_STR,
		  .dst = &o->mem,
		  .metavar = "KIND",
		  .help = "buffer memory: host, cuda or cuda:N (this side only; default host, or cuda with --gpu)" },
		{ .name = "gpu",
		  .kind = LP_OPT_STR,
		  .dst = &o->gpu,
		  .metavar = "N|auto",
		  .help = "GPU memory on this GPU (implies --mem cuda): a CUDA index, or auto = the visible GPU closest to the NIC" },
		{ .name = "no-numa-bind",
		  .kind = LP_OPT_FLAG,
		  .dst = &o->no_numa,
		  .help = "do not bind to the NIC's NUMA node" },
		{ .name = "lat-method",
		  .kind = LP_OPT_CHOICE,
		  .dst = &o->lat_method,
		  .choices = lat_methods,
		  .metavar = "M",
		  .help = "write_lat: poll (CPU polls host memory, a GPU kernel polls GPU memory) or imm (write with immediate, CPU polls the CQ)",
		  .def = "poll" },
		{ .name = "wait",
		  .kind = LP_OPT_SECONDS,
		  .dst = &o->wait_s,
		  .max = 3600,
		  .metavar = "SECS",
		  .help = "client: retry until the server is up and free (not busy with another client)",
		  .def = "0" },
		{ .name = "timeout",
		  .kind = LP_OPT_SECONDS,
		  .dst = &o->timeout_s,
		  .min = 0.1,
		  .max = 3600,
		  .metavar = "SECS",
		  .help = "bound on every wait without progress",
		  .def = "10" },
		{ .name = "max-samples",
		  .kind = LP_OPT_U64,
		  .dst = &pl->base.max_samples,
		  .min = 1,
		  .max = 1e8,
		  .metavar = "N",
		  .help = "latency samples kept verbatim; past it, histogram percentiles",
		  .def = "1000000" },
		{ .name = "seed",
		  .kind = LP_OPT_UINT,
		  .dst = &pl->seed,
		  .metavar = "N",
		  .help = "data pattern seed (default: random per run)",
		  .set = &pl->seed_set },
		{ .name = "json",
		  .shortname = 'J',
		  .kind = LP_OPT_STR,
		  .dst = &o->json_path,
		  .metavar = "FILE",
		  .help = "write all results as one JSON document (- = stdout)" },
		{ .name = "csv",
		  .kind = LP_OPT_STR,
		  .dst = &o->csv_path,
		  .metavar = "FILE",
		  .help = "write all results as CSV (- = stdout)" },
		{ .name = "quiet",
		  .shortname = 'q',
		  .kind = LP_OPT_FLAG,
		  .dst = &o->quiet,
		  .help = "no table on stdout" },
		{ .name = "verbose",
		  .shortname = 'v',
		  .kind = LP_OPT_FLAG,
		  .dst = &o->verbose,
		  .help = "log more" },
		{ .name = "topo",
		  .kind = LP_OPT_FLAG,
		  .dst = &o->topo,
		  .help = "print the GPU-NIC PCIe distance table and exit" },
		{ .name = "counters",
		  .kind = LP_OPT_FLAG,
		  .dst = &o->counters,
		  .help = "print the port's counters (-d, -i; --json FILE) and exit" },
		{ .name = "check",
		  .kind = LP_OPT_FLAG,
		  .dst = &o->check,
		  .help = "pre-flight check of this host (OK/WARN/FAIL with fixes; --json FILE); exit 1 on a FAIL" },
		{ .name = "inventory",
		  .kind = LP_OPT_FLAG,
		  .dst = &o->inventory,
		  .help = "this host's RDMA ports and GPUs for a vendor: GUIDs, LID/GID, HCA, PSID, firmware, PCI slot and link, VPD part and serial, the switch port, GPU serials and VBIOS (--json FILE); exit" },
		{ .name = "clock",
		  .kind = LP_OPT_STR,
		  .dst = &o->clock,
		  .metavar = "C",
		  .help = "auto, tsc or raw (CLOCK_MONOTONIC_RAW); auto takes a calibrated TSC when it is invariant or the kernel clock is slow",
		  .def = "auto" },
		{ .name = "version",
		  .kind = LP_OPT_FLAG,
		  .dst = &o->version,
		  .help = "print the version" },
		LP_QUAL_OPT_ROWS(&o->qual),
		{ 0 },
	};
	const char *pos[2] = { NULL, NULL };
	int npos = 0;
	bool help;

	if (lp_opt_parse(tab, argc, argv, pos, 2, &npos, &help))
		return LP_EXIT_USAGE;
	if (help)
		lp_opt_usage(stdout, "lp-rdma --server [options]\n       lp-rdma HOST [options]",
			     tab);
	else if (o->version)
		printf("lp-rdma %s\n", LP_VERSION);
	if (help || o->version)
		return LP_EXIT_OK;
	if (o->verbose)
		lp_log_set_level(LP_LOG_DEBUG);
	if (o->inventory)
		return run_inventory(o);
	if (o->topo || o->counters || o->check)
		return o->topo ? run_topo() : run_report(o);
	if (check_options(o, npos, pos))
		return LP_EXIT_USAGE;
	plan_from_options(o);
	return -1;
}

int main(int argc, char **argv)
{
	struct cli o = { .gid_index = -1, .tclass = -1 };
	int code;

	lp_out_exit_guard(); /* an output not written (a full disk) exits LP_EXIT_OUTPUT */
	lp_log_set_prog(argv[0]);
	lp_rdma_plan_init(&o.plan);
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
