// SPDX-License-Identifier: MIT
/*
 * lp-rdma: point-to-point RDMA latency and bandwidth.
 *
 *   lp-rdma --server [--once]                 serve clients one after another
 *   lp-rdma HOST -t write_lat,write_bw -s 2:1M   run tests against a server
 *
 * A thin main: options in, library calls, results out (table, CSV, JSON).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/json.h"
#include "common/lp.h"
#include "common/meta.h"
#include "common/opt.h"
#include "common/sock.h"
#include "common/table.h"
#include "common/topo.h"
#include "common/units.h"
#include "rdma/check.h"
#include "rdma/counters.h"
#include "qual/qual.h"
#include "rdma/rdma.h"
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
	bool server, once, bidir, verify, use_cm, version, quiet, verbose, topo, no_numa, counters, check;
	const char *host, *bind, *dev, *tests, *json_path, *csv_path, *mem, *clock, *gpu;
	char dev_auto[64];
	struct {			/* what --gpu/--dev auto and the NUMA binding decided */
		bool known;
		char gpu_bdf[24], nic[64], dist[8];
		int numa;
	} aff;
	unsigned port, ib_port, cm_port;
	int gid_index, tclass, sl;
	struct lp_sizes sizes;
	uint64_t iters, warmup, max_samples;
	double duration, wait_s, timeout_s;
	unsigned tx_depth, rx_depth, cq_mod, post_list, qps, inline_size, mtu, seed;
	int lat_method;
	bool iters_set, warmup_set, tx_set, cq_set;
	struct lp_qual_opts qual;
};

static const char *const lat_methods[] = { "poll", "imm", NULL };

/* ---- output ---------------------------------------------------------------- */

static void print_header(const struct lp_rdma_devinfo *d, const char *role)
{
	printf("%s: %s port %d  %s (%s)  GID %d %s [%s]  MTU %u  %s %ux = %.1f Gb/s  fw %s  numa %d\n",
	       role, d->name, d->port, d->link_layer, d->transport, d->gid_index, d->gid,
	       d->gid_type, d->active_mtu, d->speed, d->width, d->rate_gbps, d->fw, d->numa_node);
	fflush(stdout); /* scripts watch for it */
}

static void print_lat_head(void)
{
	printf("\n%-10s %9s %8s %9s %9s %9s %9s %9s %9s %9s %8s  %s\n", "test", "size", "iters",
	       "min", "p50", "p90", "p99", "p99.9", "max", "mean", "stdev", "(us, one-way)");
}

static void print_bw_head(bool bidir)
{
	if (bidir)
		printf("\n%-10s %9s %9s %10s %10s %10s %10s %9s  %s\n", "test", "size", "msgs",
		       "c->s GB/s", "s->c GB/s", "sum GB/s", "sum Gb/s", "%link", "(sum: " LP_RDMA_BIDIR_SUM_METHOD ")");
	else
		printf("\n%-10s %9s %9s %10s %10s %10s %8s\n", "test", "size", "msgs", "GB/s", "Gb/s",
		       "Mmsg/s", "%link");
}

/* Rates in the table: four significant digits, never an exponent (JSON keeps full numbers). */
static const char *sig4(char *buf, double v)
{
	lp_fmt_sig(buf, 24, v, 4);
	return buf;
}

static void print_row(const struct lp_rdma_result *r, bool bidir)
{
	char sz[24], v[4][24];

	lp_fmt_size(sz, sizeof(sz), r->size);
	if (r->status) {
		printf("%-10s %9s  FAILED: %s\n", lp_rdma_test_names[r->test], sz, r->error);
	} else if (lp_rdma_test_is_lat(r->test)) {
		const struct lp_summary *s = &r->lat_us;

		printf("%-10s %9s %8llu %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %8.3f%s\n",
		       lp_rdma_test_names[r->test], sz, (unsigned long long)s->n, s->min, s->p50,
		       s->p90, s->p99, s->p999, s->max, s->mean, s->stdev,
		       r->lat_halved ? "" : "  (full read)");
		if (r->gpu_poll_sides && isnan(r->gpu_notify_us))
			printf("%21s gpu_poll: includes the server GPU's notification to its CPU (not "
			       "measured here)\n", "");
		else if (r->gpu_poll_sides)
			printf("%21s gpu_poll: includes GPU->CPU notification, %.2f us measured here, on %u "
			       "side%s: p50 without it ~%.2f us\n", "", r->gpu_notify_us, r->gpu_poll_sides,
			       r->gpu_poll_sides > 1 ? "s" : "",
			       s->p50 - r->gpu_poll_sides * r->gpu_notify_us / 2);
	} else if (bidir) {
		printf("%-10s %9s %9.0f %10s %10s %10s %10s %9.1f\n", lp_rdma_test_names[r->test],
		       sz, r->local.msgs, sig4(v[0], r->local.gbytes_s), sig4(v[1], r->remote.gbytes_s),
		       sig4(v[2], r->sum_gbytes_s), sig4(v[3], r->sum_gbits_s),
		       lp_percent_of(r->sum_gbits_s, 2 * r->rate_gbps));
	} else {
		printf("%-10s %9s %9.0f %10s %10s %10s %8.1f\n", lp_rdma_test_names[r->test], sz,
		       r->local.msgs, sig4(v[0], r->local.gbytes_s), sig4(v[1], r->local.gbits_s),
		       sig4(v[2], r->local.mmsg_s), r->local.pct_link);
	}
	fflush(stdout);
}

static void csv_row(FILE *f, const struct lp_rdma_result *r, const struct lp_rdma_params *p)
{
	const struct lp_summary *s = &r->lat_us;
	bool lat = lp_rdma_test_is_lat(r->test);

	fprintf(f, "%s,%llu,%s,\"%s\",%llu,", lp_rdma_test_names[r->test],
		(unsigned long long)r->size, r->status ? "error" : "ok", r->status ? r->error : "",
		(unsigned long long)r->iters);
	if (lat && !r->status)
		fprintf(f, "%s,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,", r->lat_halved ? "rtt/2" : "full",
			s->min, s->p50, s->p90, s->p99, s->p999, s->max, s->mean, s->stdev);
	else
		fprintf(f, ",,,,,,,,,");
	if (!lat && !r->status)
		fprintf(f, "%.6f,%.6f,%.6f,%.3f,%s,%.6f,%.6f\n", r->local.gbytes_s, r->local.gbits_s,
			r->local.mmsg_s, r->local.pct_link, p->bidir ? "yes" : "no",
			p->bidir ? r->remote.gbytes_s : NAN, p->bidir ? r->sum_gbytes_s : NAN);
	else
		fprintf(f, ",,,,,,\n");
}

static const char csv_header[] =
	"test,size_bytes,status,error,iterations,latency_kind,lat_min_us,lat_p50_us,lat_p90_us,"
	"lat_p99_us,lat_p99_9_us,lat_max_us,lat_mean_us,lat_stdev_us,gbytes_per_s,gbits_per_s,"
	"mmsg_per_s,percent_of_link,bidirectional,reverse_gbytes_per_s,sum_gbytes_per_s\n";


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
		       dev_auto ? "RDMA device with an active port on the compute fabric" :
				  "GPU visible to CUDA (CUDA_VISIBLE_DEVICES?)");
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
		if (!o->no_numa && o->aff.numa >= 0 && lp_numa_bind(o->aff.numa))
			lp_warn("could not bind to NUMA node %d of %s", o->aff.numa, t.nics[nic].name);
	}
	lp_topo_free(&t);
}

/* ---- client -------------------------------------------------------------- */

struct run {
	struct lp_rdma_params p;
	struct lp_rdma_result r;
};

static int connect_server(const struct cli *o, int *fd_p)
{
	uint64_t deadline = lp_now_ns() + (uint64_t)(o->wait_s * 1e9);
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
	       o->wait_s > 0 ? " (gave up after --wait)" : " (is `lp-rdma --server` running there? "
							    "--wait SECS retries)");
	return ret;
}

static void json_doc_begin(struct lp_json *j, const char *role, const struct cli *o,
			   const struct lp_rdma_devinfo *d)
{
	struct lp_host_meta m;

	lp_host_meta_collect(&m);
	lp_json_obj_begin(j, NULL);
	lp_json_str(j, "tool", "lp-rdma");
	lp_json_str(j, "role", role);
	lp_json_obj_begin(j, "method");
	lp_method_json(j);
	lp_json_str(j, "latency", "write_lat/send_lat: ping-pong, one-way = RTT/2; read_lat: full "
				  "READ completion time (not halved)");
	lp_json_str(j, "bandwidth", "payload bytes from first post to last completion of the timed "
				    "phase, after warm-up; bidirectional: each direction and the sum ("
				    LP_RDMA_BIDIR_SUM_METHOD ")");
	lp_json_obj_end(j);
	lp_json_obj_begin(j, "host");
	lp_host_meta_json(&m, j);
	lp_json_obj_end(j);
	lp_json_str(j, "server", o->host);
	lp_json_uint(j, "port", o->port);
	lp_json_obj_begin(j, "local_device");
	lp_rdma_devinfo_json(d, j);
	lp_json_obj_end(j);
	lp_json_obj_begin(j, "affinity");
	if (o->aff.known) {
		lp_json_str(j, "nic", o->aff.nic);
		lp_json_int(j, "nic_numa_node", o->aff.numa);
		lp_json_bool(j, "numa_bound", !o->no_numa && o->aff.numa >= 0);
		lp_json_str(j, "gpu_bus_id", o->aff.gpu_bdf[0] ? o->aff.gpu_bdf : NULL);
		lp_json_str(j, "gpu_nic_distance", o->aff.dist[0] ? o->aff.dist : NULL);
	}
	lp_json_obj_end(j);
}

/* Every test x size as parameters, checked before any device or server is touched (bad -> exit 2). */
static int plan_runs(const struct cli *o, int mem, struct run *runs, int *n_p)
{
	char buf[512], why[160];
	const char *names[LP_RDMA_NTESTS * 2];
	int ntests = 0, n = 0;

	if (lp_split_list(o->tests, buf, sizeof(buf), names, LP_RDMA_NTESTS * 2, &ntests))
		return -EINVAL;
	for (int t = 0; t < ntests; t++) {
		/* lp_rdma_test_names is in enum order; the option table already checked the name. */
		enum lp_rdma_test test = (enum lp_rdma_test)lp_choice_index(lp_rdma_test_names, names[t]);
		bool lat = lp_rdma_test_is_lat(test);
		struct lp_sizes sizes = o->sizes;

		if (!sizes.n) { /* per-test default: 2 B latency, 64 KiB bandwidth */
			sizes.n = 1;
			sizes.v[0] = lat ? 2 : 65536;
		}
		for (unsigned s = 0; s < sizes.n; s++) {
			struct lp_rdma_params *p = &runs[n].p;

			lp_rdma_params_default(p, test);
			p->size = sizes.v[s];
			if (o->iters_set)
				p->iters = o->iters;
			if (o->warmup_set)
				p->warmup = o->warmup;
			p->duration_s = o->duration;
			if (o->tx_set && !lat)
				p->tx_depth = o->tx_depth;
			if (o->cq_set && !lat)
				p->cq_mod = o->cq_mod;
			if (p->cq_mod > p->tx_depth)
				p->cq_mod = p->tx_depth;
			p->rx_depth = o->rx_depth;
			p->post_list = lat ? 1 : LP_MIN(o->post_list, p->tx_depth);
			p->num_qps = lat ? 1 : o->qps;
			p->inline_size = o->inline_size;
			p->mtu = o->mtu;
			p->bidir = o->bidir && !lat;
			p->verify = o->verify;
			p->use_cm = o->use_cm;
			p->cm_port = (uint16_t)o->cm_port;
			if (o->seed) /* fixed by --seed; else the fresh one of lp_rdma_params_default */
				p->seed = o->seed + (uint32_t)n + 1;
			p->max_samples = o->max_samples;
			p->timeout_ms = (int)(o->timeout_s * 1000);
			p->mem = mem;
			p->lat_method = o->lat_method ? LP_LAT_WRITE_IMM : LP_LAT_POLL;
			if (lp_rdma_params_check(p, why, sizeof(why))) {
				lp_err("%s size %llu: %s", names[t], (unsigned long long)p->size, why);
				return -EINVAL;
			}
			n++;
		}
	}
	*n_p = n;
	return 0;
}

/* What --verify checked over the runs that passed (each run's figures are in JSON "verified"). */
static void print_verified(const struct run *runs, int n)
{
	uint64_t msgs = 0, landed = 0, bytes = 0;

	for (int i = 0; i < n; i++) {
		if (runs[i].r.status)
			continue;
		msgs += runs[i].r.verified.messages;
		landed += runs[i].r.verified.landed;
		bytes += runs[i].r.verified.bytes;
	}
	printf("verified: %llu of %llu messages received (%llu bytes), every byte against the message's "
	       "own pattern%s\n",
	       (unsigned long long)msgs, (unsigned long long)landed, (unsigned long long)bytes,
	       msgs < landed ? "; the rest were overwritten in reused ring slots (docs/METHOD.md)" : "");
}

/* What --expect auto matches: the port as verbs reports it. */
static struct lp_qual_hw qual_hw(const struct lp_rdma_devinfo *d)
{
	return (struct lp_qual_hw){ .rdma_dev = d->name, .link_layer = d->link_layer, .speed = d->speed,
				    .width = d->width, .rate_gbps = d->rate_gbps };
}

/* The client's JSON document (what --json writes), also judged by --expect/--baseline. */
struct client_doc {
	const struct cli *o;
	struct lp_rdma_dev *dev;
	const struct run *runs;
	int done, failed, nruns;
};

static int client_json(FILE *f, const void *arg)
{
	const struct client_doc *d = arg;
	const struct run *runs = d->runs;
	struct lp_json j;

	lp_json_init(&j, f, true);
	json_doc_begin(&j, "client", d->o, lp_rdma_dev_info(d->dev));
	if (d->done && !runs[0].r.status) {
		lp_json_obj_begin(&j, "remote_device");
		lp_rdma_devinfo_json(&runs[0].r.remote_dev, &j);
		lp_json_obj_end(&j);
	}
	lp_json_arr_begin(&j, "results");
	for (int i = 0; i < d->done; i++) {
		lp_json_obj_begin(&j, NULL);
		lp_rdma_result_json(&runs[i].r, &runs[i].p, &j);
		lp_json_obj_end(&j);
	}
	lp_json_arr_end(&j);
	lp_json_obj_begin(&j, "summary");
	lp_json_int(&j, "runs", d->done);
	lp_json_int(&j, "failed", d->failed);
	lp_json_int(&j, "planned", d->nruns);
	lp_json_obj_end(&j);
	/* SIGINT/SIGTERM: the results above are what was measured until then. */
	lp_json_bool(&j, "interrupted", stop_flag);
	lp_json_obj_end(&j);
	if (lp_json_finish(&j)) {
		lp_err("JSON output incomplete");
		return -EIO;
	}
	return 0;
}

static int run_client(struct cli *o)
{
	struct lp_rdma_devsel sel = {
		.dev = o->dev, .port = (int)o->ib_port, .gid_index = o->gid_index,
		.tclass = o->tclass, .sl = o->sl,
	};
	char peer[64];
	struct lp_rdma_dev *dev = NULL;
	struct run *runs;
	int fd = -1, nruns = 0, done = 0, failed = 0, ret, family = AF_INET, mem = 0, mem_dev;
	struct lp_oob oob = { .ops = &lp_oob_tcp_ops, .ctx = &fd,
			      .timeout_ms = (int)(o->timeout_s * 1000), .peer_name = o->host,
			      .stop = &stop_flag };
	bool lat_head = false, bw_head = false;
	FILE *csv = NULL, *jf = NULL;
	struct client_doc doc;
	struct lp_qual q = { 0 };
	struct lp_qual_hw hw;

	lp_mem_parse(o->mem, &mem, &mem_dev);
	if (o->gpu && strcmp(o->gpu, "auto"))
		mem_dev = atoi(o->gpu);
	runs = calloc((size_t)LP_RDMA_NTESTS * 2 * LP_SIZES_MAX, sizeof(*runs));
	if (!runs)
		return LP_EXIT_FAIL;
	ret = plan_runs(o, mem, runs, &nruns);
	if (!ret && lp_qual_wanted(&o->qual))
		ret = lp_qual_setup(&q, "lp-rdma", &o->qual, NULL);
	if (!ret)
		ret = check_mem(mem, mem_dev);
	if (!ret)
		ret = resolve_auto(o, mem, &mem_dev);
	if (!ret) {
		sel.dev = o->dev;
		family = strchr(o->host, ':') ? AF_INET6 : AF_INET;
		ret = lp_rdma_dev_open(&sel, family, &dev);
	}
	if (!ret) {
		hw = qual_hw(lp_rdma_dev_info(dev));
		ret = lp_qual_auto(&q, &hw);
	}
	if (ret) {
		lp_qual_free(&q);
		free(runs);
		lp_rdma_dev_close(dev);
		return lp_exit_code(ret);
	}
	describe_affinity(o, lp_rdma_dev_info(dev)->name, mem, mem_dev);
	ret = connect_server(o, &fd);
	if (ret) {
		lp_qual_free(&q);
		free(runs);
		lp_rdma_dev_close(dev);
		return LP_EXIT_FAIL;
	}
	if (!lp_sock_peer_addr(fd, peer, sizeof(peer), &oob.peer_family) && o->gid_index < 0 &&
	    oob.peer_family != family)
		lp_rdma_dev_select_gid(dev, oob.peer_family, -1);
	if (!o->quiet)
		print_header(lp_rdma_dev_info(dev), "client");
	for (int i = 0; i < nruns && !stop_flag; i++) {
		struct run *u = &runs[i];
		struct lp_rdma_params *p = &u->p;
		bool lat = lp_rdma_test_is_lat(p->test);

		p->mem_dev = mem_dev;
		ret = lp_rdma_client_run(dev, &oob, p, o->host, &u->r);
		done = i + 1;
		if (!o->quiet) {
			if (lat && !lat_head) {
				print_lat_head();
				lat_head = true;
				bw_head = false;
			} else if (!lat && !bw_head) {
				print_bw_head(p->bidir);
				bw_head = true;
				lat_head = false;
			}
			print_row(&u->r, p->bidir);
		}
		if (ret) {
			failed++;
			lp_err("%s size %llu: %s", lp_rdma_test_names[p->test],
			       (unsigned long long)p->size, u->r.error);
			/* The session's state is unknown after a failure: stop here. */
			goto done;
		}
	}
	lp_rdma_client_bye(&oob);
done:
	if (done && !runs[0].r.status && !o->quiet) {
		printf("\n");
		print_header(&runs[0].r.remote_dev, "server");
		printf("memory: local %s, remote %s; MTU %u; latency = one-way (RTT/2) for write/send, "
		       "full completion for read; GB/s = 1e9 B/s\nclock: %s\n",
		       runs[0].r.local_mem, runs[0].r.remote_mem, runs[0].r.mtu, lp_clock_desc());
		if (runs[0].p.verify)
			print_verified(runs, done);
	}
	if (o->csv_path) {
		csv = lp_out_open(o->csv_path);
		if (!csv) {
			failed++;
		} else {
			fputs(csv_header, csv);
			for (int i = 0; i < done; i++)
				csv_row(csv, &runs[i].r, &runs[i].p);
			if (lp_out_close(csv, o->csv_path))
				failed++;
		}
	}
	doc = (struct client_doc){ o, dev, runs, done, failed, nruns };
	if (lp_qual_wanted(&o->qual)) {
		if (lp_qual_run(&q, client_json, &doc, o->json_path))
			failed++;
		else if (!o->quiet)
			lp_qual_print(&q, stdout);
	} else if (o->json_path) {
		jf = lp_out_open(o->json_path);
		if (!jf || client_json(jf, &doc))
			failed++;
		if (jf && lp_out_close(jf, o->json_path))
			failed++;
	}
	ret = stop_flag ? -EINTR : failed || done < nruns || lp_qual_failed(&q) ? -EIO : 0;
	lp_qual_free(&q);
	free(runs);
	if (fd >= 0)
		close(fd);
	lp_rdma_dev_close(dev);
	return lp_exit_code(ret);
}

/* ---- --counters, --check: one host, no peer --------------------------------- */

/*
 * --counters (a snapshot of -d/-i, default the first RDMA device, port 1) or
 * --check (the pre-flight report) as a table and/or a JSON document; both
 * read sysfs under $LP_SYSFS_ROOT. --check exits 1 when a line FAILs.
 */
static int run_report(const struct cli *o)
{
	const char *root = lp_counters_root();
	struct lp_check_opts co = { .root = root, .dev = o->dev, .port = o->ib_port };
	struct lp_check_report rep = { 0 };
	struct lp_counters *snap = calloc(1, sizeof(*snap));
	struct lp_host_meta m;
	struct lp_topo t = { 0 };
	struct lp_json j;
	FILE *jf = NULL;
	int ret;

	if (!snap)
		return LP_EXIT_FAIL;
	if (o->check) {
		lp_check_opts_live(&co);
		ret = lp_check_run(&co, &rep);
	} else {
		ret = o->dev ? 0 : lp_topo_scan(root, &t);
		if (!ret && !o->dev && !t.nnics) {
			lp_err("--counters: no RDMA device here");
			ret = -ENODEV;
		}
		if (!ret)
			ret = lp_counters_read(root, o->dev ? o->dev : t.nics[0].name,
					       o->ib_port ? o->ib_port : 1, snap);
		if (ret == -ENODEV && o->dev)
			lp_err("--counters: no port %u on RDMA device %s", o->ib_port ? o->ib_port : 1, o->dev);
		lp_topo_free(&t);
	}
	lp_host_meta_collect(&m);
	if (!ret && !o->quiet) {
		if (o->check) {
			lp_check_print(&rep, stdout);
			printf("%s: %u checks, worst %s\n", m.host, rep.n,
			       lp_check_status_name(lp_check_worst(&rep)));
		} else {
			lp_counters_print(snap, false, stdout);
		}
	}
	if (!ret && o->json_path) {
		jf = lp_out_open(o->json_path);
		if (!jf) {
			ret = -EIO;
		}
	}
	if (jf) {
		lp_json_init(&j, jf, true);
		lp_json_obj_begin(&j, NULL);
		lp_json_str(&j, "tool", "lp-rdma");
		lp_json_str(&j, "role", o->check ? "check" : "counters");
		lp_json_obj_begin(&j, "host");
		lp_host_meta_json(&m, &j);
		lp_json_obj_end(&j);
		if (o->check)
			lp_check_json(&rep, &j);
		else
			lp_counters_json(snap, false, &j);
		lp_json_obj_end(&j);
		if (lp_json_finish(&j))
			ret = -EIO;
		if (lp_out_close(jf, o->json_path))
			ret = -EIO;
	}
	if (!ret && o->check && lp_check_worst(&rep) == LP_CHECK_FAIL)
		ret = -EIO;
	lp_check_free(&rep);
	free(snap);
	return ret ? lp_exit_code(ret) : LP_EXIT_OK;
}

/* ---- server -------------------------------------------------------------- */

static int run_server(struct cli *o)
{
	struct lp_rdma_devsel sel = {
		.dev = o->dev, .port = (int)o->ib_port, .gid_index = o->gid_index,
		.tclass = o->tclass, .sl = o->sl,
	};
	struct lp_rdma_server_opts so = { .bind_addr = o->bind, .stop = &stop_flag };
	struct lp_rdma_dev *dev;
	int lfd, ret, served = 0, mem = 0;

	lp_mem_parse(o->mem, &mem, &so.mem_dev);
	if (o->gpu && strcmp(o->gpu, "auto"))
		so.mem_dev = atoi(o->gpu);
	so.mem = mem;
	ret = check_mem(mem, so.mem_dev);
	if (!ret)
		ret = resolve_auto(o, mem, &so.mem_dev);
	if (ret)
		return lp_exit_code(ret);
	sel.dev = o->dev;
	ret = lp_rdma_dev_open(&sel, o->bind && strchr(o->bind, ':') ? AF_INET6 : AF_INET, &dev);
	if (ret)
		return lp_exit_code(ret);
	describe_affinity(o, lp_rdma_dev_info(dev)->name, mem, so.mem_dev);
	ret = lp_sock_listen(o->bind, (uint16_t)o->port, &lfd);
	if (ret) {
		lp_rdma_dev_close(dev);
		return LP_EXIT_FAIL;
	}
	if (!o->quiet) {
		print_header(lp_rdma_dev_info(dev), "server");
		printf("listening on %s port %u%s\n", o->bind ? o->bind : "*", o->port,
		       o->once ? " (one client)" : "");
		fflush(stdout);
	}
	while (!stop_flag) {
		char peer[64] = "?";
		int fd = -1;
		struct lp_oob oob = { .ops = &lp_oob_tcp_ops, .ctx = &fd,
				      .timeout_ms = (int)(o->timeout_s * 1000), .peer_name = peer,
				      .stop = &stop_flag };

		ret = lp_sock_accept(lfd, 1000, &stop_flag, &fd, peer, sizeof(peer));
		if (ret == -ETIMEDOUT)
			continue;
		if (ret)
			break;
		lp_sock_peer_addr(fd, peer, sizeof(peer), &oob.peer_family);
		if (o->gid_index < 0)
			lp_rdma_dev_select_gid(dev, oob.peer_family, -1);
		ret = lp_rdma_server_session(dev, &oob, &so);
		close(fd);
		served++;
		if (ret == -EINTR)
			lp_warn("client %s: session interrupted (the client was told)", peer);
		else if (ret && ret != -ECANCELED && ret != -ECONNABORTED) /* logged with the cause */
			lp_warn("client %s: session ended: %s", peer,
				ret == -EPROTO ? "malformed or unexpected message (dropped)" :
				ret == -ECONNRESET ? "connection lost" :
				ret == -ETIMEDOUT ? "timed out" : strerror(-ret));
		else if (!o->quiet)
			printf("client %s: session done\n", peer);
		fflush(stdout);
		if (o->once)
			break;
	}
	close(lfd);
	lp_rdma_dev_close(dev);
	if (stop_flag)
		return LP_EXIT_INTERRUPTED;
	if (o->once)
		return ret && ret != -EINTR ? LP_EXIT_FAIL : LP_EXIT_OK;
	return LP_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct cli o = {
		.tests = "write_lat,write_bw", .port = 18515, .gid_index = -1,
		.tclass = -1, .iters = 1000, .warmup = 100, .max_samples = 1000000,
		.timeout_s = 10, .tx_depth = 128, .rx_depth = 512, .cq_mod = 64, .post_list = 1,
		.qps = 1, .inline_size = UINT32_MAX,
	};
	unsigned inline_arg = UINT32_MAX;
	uint64_t iters = 0, warmup = UINT64_MAX;
	unsigned tx = 0, cq = 0;
	int gid = -1;
	const struct lp_opt tab[] = {
		{ "server", 'S', LP_OPT_FLAG, &o.server, 0, 0, NULL, NULL, "run as the server (serves clients one after another)" },
		{ "once", 0, LP_OPT_FLAG, &o.once, 0, 0, NULL, NULL, "server: exit after one client" },
		{ "port", 'p', LP_OPT_UINT, &o.port, 1, 65535, NULL, "PORT", "TCP port of the exchange (default 18515)" },
		{ "bind", 0, LP_OPT_STR, &o.bind, 0, 0, NULL, "ADDR", "server: listen on this address (default all)" },
		{ "dev", 'd', LP_OPT_STR, &o.dev, 0, 0, NULL, "DEV", "RDMA device, or auto = the one closest to the GPU (default: the first with an active port)" },
		{ "ib-port", 'i', LP_OPT_UINT, &o.ib_port, 1, 255, NULL, "N", "device port (default: first active)" },
		{ "gid-index", 'x', LP_OPT_INT, &gid, 0, 65535, NULL, "N", "RoCE GID index (default: scored choice, RoCEv2 + address family)" },
		{ "tclass", 0, LP_OPT_INT, &o.tclass, 0, 255, NULL, "N", "traffic class (DSCP << 2 | ECN) for RoCE" },
		{ "sl", 0, LP_OPT_INT, &o.sl, 0, 15, NULL, "N", "InfiniBand service level" },
		{ "tests", 't', LP_OPT_LIST, &o.tests, 0, 0, lp_rdma_test_names, "LIST", "tests: write_lat,read_lat,send_lat,write_bw,read_bw,send_bw (default write_lat,write_bw)" },
		{ "size", 's', LP_OPT_SIZES, &o.sizes, 1, (double)(1ull << 30), NULL, "SIZES", "sizes: 64K, 2:8M (powers of two), 2,4K,1M (default 2 B latency, 64 KiB bandwidth)" },
		{ "iters", 'n', LP_OPT_U64, &iters, 1, 1e9, NULL, "N", "timed iterations (default 1000 latency, 5000 bandwidth)" },
		{ "duration", 'D', LP_OPT_SECONDS, &o.duration, 0.01, 86400, NULL, "SECS", "run each test for this long instead of -n" },
		{ "warmup", 'w', LP_OPT_U64, &warmup, 0, 1e9, NULL, "N", "untimed iterations first (default 100 latency, 64 bandwidth)" },
		{ "tx-depth", 'T', LP_OPT_UINT, &tx, 1, 8192, NULL, "N", "bandwidth: WRs in flight per QP (default 128)" },
		{ "rx-depth", 0, LP_OPT_UINT, &o.rx_depth, 1, 8192, NULL, "N", "send tests: receives posted per QP (default 512)" },
		{ "cq-mod", 'Q', LP_OPT_UINT, &cq, 1, 8192, NULL, "N", "bandwidth: signal every N-th WR (default 64)" },
		{ "post-list", 'l', LP_OPT_UINT, &o.post_list, 1, 64, NULL, "N", "bandwidth: WRs per ibv_post_send (default 1)" },
		{ "qps", 'q', LP_OPT_UINT, &o.qps, 1, 64, NULL, "N", "bandwidth: QPs, round-robin (default 1)" },
		{ "inline", 'I', LP_OPT_UINT, &inline_arg, 0, 4096, NULL, "BYTES", "max inline data (default: 64 for latency, 0 for bandwidth)" },
		{ "mtu", 'm', LP_OPT_UINT, &o.mtu, 256, 4096, NULL, "BYTES", "path MTU 256..4096 (default: the port's active MTU)" },
		{ "bidir", 'b', LP_OPT_FLAG, &o.bidir, 0, 0, NULL, NULL, "bandwidth both ways at once (each direction and the sum)" },
		{ "verify", 'V', LP_OPT_FLAG, &o.verify, 0, 0, NULL, NULL, "check every received byte against the pattern" },
		{ "cm", 'R', LP_OPT_FLAG, &o.use_cm, 0, 0, NULL, NULL, "connect QPs with librdmacm instead of the exchange" },
		{ "cm-port", 0, LP_OPT_UINT, &o.cm_port, 1, 65535, NULL, "PORT", "rdma_cm port on the server (default: --port + 1)" },
		{ "mem", 0, LP_OPT_STR, &o.mem, 0, 0, NULL, "KIND", "buffer memory: host, cuda or cuda:N (this side only; default host, or cuda with --gpu)" },
		{ "gpu", 0, LP_OPT_STR, &o.gpu, 0, 0, NULL, "N|auto", "GPU memory on this GPU (implies --mem cuda): a CUDA index, or auto = the visible GPU closest to the NIC" },
		{ "no-numa-bind", 0, LP_OPT_FLAG, &o.no_numa, 0, 0, NULL, NULL, "do not bind to the NIC's NUMA node" },
		{ "lat-method", 0, LP_OPT_CHOICE, &o.lat_method, 0, 0, lat_methods, "M", "write_lat: poll (CPU polls host memory, a GPU kernel polls GPU memory) or imm (write with immediate, CPU polls the CQ)" },
		{ "wait", 0, LP_OPT_SECONDS, &o.wait_s, 0, 3600, NULL, "SECS", "client: retry connecting until the server is up" },
		{ "timeout", 0, LP_OPT_SECONDS, &o.timeout_s, 0.1, 3600, NULL, "SECS", "bound on every wait without progress (default 10)" },
		{ "max-samples", 0, LP_OPT_U64, &o.max_samples, 1, 1e8, NULL, "N", "latency samples kept verbatim; past it, histogram percentiles" },
		{ "seed", 0, LP_OPT_UINT, &o.seed, 0, 0, NULL, "N", "data pattern seed (default: random per run)" },
		LP_QUAL_OPT_ROWS(&o.qual),
		{ "json", 'J', LP_OPT_STR, &o.json_path, 0, 0, NULL, "FILE", "write all results as one JSON document (- = stdout)" },
		{ "csv", 0, LP_OPT_STR, &o.csv_path, 0, 0, NULL, "FILE", "write all results as CSV (- = stdout)" },
		{ "quiet", 0, LP_OPT_FLAG, &o.quiet, 0, 0, NULL, NULL, "no table on stdout" },
		{ "verbose", 'v', LP_OPT_FLAG, &o.verbose, 0, 0, NULL, NULL, "log more" },
		{ "topo", 0, LP_OPT_FLAG, &o.topo, 0, 0, NULL, NULL, "print the GPU-NIC PCIe distance table and exit" },
		{ "counters", 0, LP_OPT_FLAG, &o.counters, 0, 0, NULL, NULL, "print the port's counters (-d, -i; --json FILE) and exit" },
		{ "check", 0, LP_OPT_FLAG, &o.check, 0, 0, NULL, NULL, "pre-flight check of this host (OK/WARN/FAIL with fixes; --json FILE); exit 1 on a FAIL" },
		{ "clock", 0, LP_OPT_STR, &o.clock, 0, 0, NULL, "C", "auto, tsc or raw (CLOCK_MONOTONIC_RAW); auto takes a calibrated TSC when it is invariant or the kernel clock is slow" },
		{ "version", 0, LP_OPT_FLAG, &o.version, 0, 0, NULL, NULL, "print the version" },
		{ 0 },
	};
	const char *pos[2];
	int npos = 0, kind, dev;
	bool help;

	lp_log_set_prog(argv[0]);
	if (lp_opt_parse(tab, argc, argv, pos, 2, &npos, &help))
		return LP_EXIT_USAGE;
	if (help) {
		lp_opt_usage(stdout, "lp-rdma --server [options]\n       lp-rdma HOST [options]", tab);
		return LP_EXIT_OK;
	}
	if (o.version) {
		printf("lp-rdma %s\n", LP_VERSION);
		return LP_EXIT_OK;
	}
	if (o.verbose)
		lp_log_set_level(LP_LOG_DEBUG);
	if (o.topo) {
		struct lp_topo t;

		if (scan_topo(&t, true))
			return LP_EXIT_FAIL;
		lp_topo_print(&t, stdout);
		lp_topo_free(&t);
		return LP_EXIT_OK;
	}
	if (o.counters || o.check)
		return run_report(&o);
	o.gid_index = gid;
	if (iters) {
		o.iters = iters;
		o.iters_set = true;
	}
	if (warmup != UINT64_MAX) {
		o.warmup = warmup;
		o.warmup_set = true;
	}
	if (tx) {
		o.tx_depth = tx;
		o.tx_set = true;
	}
	if (cq) {
		o.cq_mod = cq;
		o.cq_set = true;
	}
	o.inline_size = inline_arg;
	if (!o.cm_port)
		o.cm_port = o.port + 1 > 65535 ? o.port - 1 : o.port + 1;
	if (!o.mem) /* --gpu alone means GPU memory: never host memory in silence */
		o.mem = o.gpu ? "cuda" : "host";
	if (lp_mem_parse(o.mem, &kind, &dev)) {
		lp_err("--mem %s: expected host, cuda or cuda:N", o.mem);
		return LP_EXIT_USAGE;
	}
	if (o.gpu && kind != LP_MEM_CUDA) {
		lp_err("--gpu %s chooses the GPU of GPU memory, but --mem is %s: use --mem cuda or drop --gpu",
		       o.gpu, o.mem);
		return LP_EXIT_USAGE;
	}
	if (o.gpu && strcmp(o.gpu, "auto")) {
		uint64_t g;

		if (lp_parse_u64(o.gpu, &g) || g > 1023) {
			lp_err("--gpu %s: expected a GPU index or auto", o.gpu);
			return LP_EXIT_USAGE;
		}
		if (dev >= 0 && (uint64_t)dev != g) {
			lp_err("--mem %s and --gpu %s name different GPUs", o.mem, o.gpu);
			return LP_EXIT_USAGE;
		}
	}
	if (o.server == (npos == 1)) {
		lp_err(o.server ? "--server takes no HOST argument" :
				  "give the server's HOST, or --server (see --help)");
		return LP_EXIT_USAGE;
	}
	if (npos > 1) {
		lp_err("unexpected argument '%s'", pos[1]);
		return LP_EXIT_USAGE;
	}
	if (o.duration > 0 && o.iters_set) {
		lp_err("give either --iters or --duration, not both");
		return LP_EXIT_USAGE;
	}
	if (lp_clock_init(o.clock)) {
		lp_err("--clock %s: expected auto, tsc or raw (tsc needs an x86 TSC with a stable rate)",
		       o.clock ? o.clock : "");
		return LP_EXIT_USAGE;
	}
	lp_info("clock: %s", lp_clock_desc());
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	if (o.server)
		return run_server(&o);
	o.host = pos[0];
	o.qual.argv = argv;
	return run_client(&o);
}
