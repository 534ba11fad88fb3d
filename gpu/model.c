// SPDX-License-Identifier: MIT
/* lp-gpu's pure parts: the test table, result shapes, the expected-ceiling model, topology warnings. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "common/lp.h"
#include "common/opt.h"
#include "common/units.h"
#include "gpu/gpu.h"

#define S1                                                                                         \
	1,                                                                                         \
	{                                                                                          \
		NULL                                                                               \
	}
#define HD3                                                                                        \
	3,                                                                                         \
	{                                                                                          \
		"CPU->GPU", "GPU->CPU", "sum"                                                      \
	}
#define PP3                                                                                        \
	3,                                                                                         \
	{                                                                                          \
		"from->to", "to->from", "sum"                                                      \
	}

/* key, desc, kind, method, shape, other, orient (the flow: tables put its source on rows),
 * latency, peer, series */
const struct lp_gpu_test lp_gpu_tests[] = {
	{ "h2d_ce", "host to device, copy engine (pinned host memory on the GPU's NUMA node)",
	  LP_GPU_K_H2D, LP_GPU_CE, LP_GPU_SHAPE_GPU_X, "CPU", "CPU -> GPU", false, false, S1 },
	{ "h2d_sm", "host to device, SM kernel reading mapped host memory", LP_GPU_K_H2D, LP_GPU_SM,
	  LP_GPU_SHAPE_GPU_X, "CPU", "CPU -> GPU", false, false, S1 },
	{ "d2h_ce", "device to host, copy engine", LP_GPU_K_D2H, LP_GPU_CE, LP_GPU_SHAPE_X_GPU,
	  "CPU", "GPU -> CPU", false, false, S1 },
	{ "d2h_sm", "device to host, SM kernel writing mapped host memory", LP_GPU_K_D2H, LP_GPU_SM,
	  LP_GPU_SHAPE_X_GPU, "CPU", "GPU -> CPU", false, false, S1 },
	{ "hd_bidir_ce", "host<->device both directions at once, copy engines", LP_GPU_K_HD_BIDIR,
	  LP_GPU_CE, LP_GPU_SHAPE_GPU_X, "CPU", "CPU <-> GPU; series CPU->GPU, GPU->CPU, sum",
	  false, false, HD3 },
	{ "hd_bidir_sm", "host<->device both directions at once, SM kernels", LP_GPU_K_HD_BIDIR,
	  LP_GPU_SM, LP_GPU_SHAPE_GPU_X, "CPU", "CPU <-> GPU; series CPU->GPU, GPU->CPU, sum",
	  false, false, HD3 },
	{ "local_ce", "device-local copy, copy engine (bytes read + written)", LP_GPU_K_LOCAL,
	  LP_GPU_CE, LP_GPU_SHAPE_GPU_X, "local", "GPU -> same GPU", false, false, S1 },
	{ "local_sm", "device-local copy, SM kernel (bytes read + written)", LP_GPU_K_LOCAL,
	  LP_GPU_SM, LP_GPU_SHAPE_GPU_X, "local", "GPU -> same GPU", false, false, S1 },
	{ "p2p_write_ce", "peer write, copy engine of the source GPU", LP_GPU_K_P2P_WRITE,
	  LP_GPU_CE, LP_GPU_SHAPE_GPU_GPU, NULL, "GPU -> GPU, written by the source GPU", false,
	  true, S1 },
	{ "p2p_write_sm", "peer write, SM kernel on the source GPU", LP_GPU_K_P2P_WRITE, LP_GPU_SM,
	  LP_GPU_SHAPE_GPU_GPU, NULL, "GPU -> GPU, written by the source GPU", false, true, S1 },
	{ "p2p_read_ce", "peer read, copy engine of the destination GPU", LP_GPU_K_P2P_READ,
	  LP_GPU_CE, LP_GPU_SHAPE_GPU_GPU, NULL, "GPU -> GPU, read by the destination GPU", false,
	  true, S1 },
	{ "p2p_read_sm", "peer read, SM kernel on the destination GPU", LP_GPU_K_P2P_READ,
	  LP_GPU_SM, LP_GPU_SHAPE_GPU_GPU, NULL, "GPU -> GPU, read by the destination GPU", false,
	  true, S1 },
	{ "p2p_bidir_ce", "peer write both directions at once, copy engines", LP_GPU_K_P2P_BIDIR,
	  LP_GPU_CE, LP_GPU_SHAPE_GPU_GPU, NULL, "GPU <-> GPU; series from->to, to->from, sum",
	  false, true, PP3 },
	{ "p2p_bidir_sm", "peer write both directions at once, SM kernels", LP_GPU_K_P2P_BIDIR,
	  LP_GPU_SM, LP_GPU_SHAPE_GPU_GPU, NULL, "GPU <-> GPU; series from->to, to->from, sum",
	  false, true, PP3 },
	{ "one_to_all_ce", "one GPU writes to all its peers at once, copy engine (aggregate)",
	  LP_GPU_K_ONE_TO_ALL, LP_GPU_CE, LP_GPU_SHAPE_X_GPU, "peers", "GPU -> peers, aggregate",
	  false, true, S1 },
	{ "all_to_one_ce", "one GPU reads from all its peers at once, copy engine (aggregate)",
	  LP_GPU_K_ALL_TO_ONE, LP_GPU_CE, LP_GPU_SHAPE_GPU_X, "peers", "peers -> GPU, aggregate",
	  false, true, S1 },
	{ "lat_host_sm",
	  "latency: GPU pointer chase in pinned host memory (one load round trip, ns)",
	  LP_GPU_K_LAT_HOST, LP_GPU_SM, LP_GPU_SHAPE_GPU_X, "CPU",
	  "the GPU (to) reads CPU memory (from)", true, false, S1 },
	{ "lat_local_sm", "latency: GPU pointer chase in its own memory (ns)", LP_GPU_K_LAT_LOCAL,
	  LP_GPU_SM, LP_GPU_SHAPE_GPU_X, "local", "the GPU reads its own memory", true, false, S1 },
	{ "lat_p2p_sm", "latency: GPU pointer chase in a peer's memory (ns)", LP_GPU_K_LAT_P2P,
	  LP_GPU_SM, LP_GPU_SHAPE_GPU_GPU, NULL, "the GPU (to) reads the memory of a GPU (from)",
	  true, true, S1 },
};
const unsigned lp_gpu_ntests = LP_ARRAY_SIZE(lp_gpu_tests);

const struct lp_gpu_test *lp_gpu_test_find(const char *key)
{
	for (unsigned i = 0; i < lp_gpu_ntests; i++)
		if (!strcmp(lp_gpu_tests[i].key, key))
			return &lp_gpu_tests[i];
	return NULL;
}

const char *lp_gpu_status_name(enum lp_gpu_status s)
{
	switch (s) {
	case LP_GPU_OK:
		return "ok";
	case LP_GPU_WAIVED:
		return "waived";
	default:
		return "error";
	}
}

int lp_gpu_result_init(struct lp_gpu_result *r, const struct lp_gpu_test *t, int n, uint64_t size)
{
	memset(r, 0, sizeof(*r));
	if (n < 1 || n > LP_GPU_MAX)
		return -EINVAL;
	r->test = t;
	r->size = size;
	r->nrows = t->shape == LP_GPU_SHAPE_X_GPU ? 1 : (unsigned)n;
	r->ncols = t->shape == LP_GPU_SHAPE_GPU_X ? 1 : (unsigned)n;
	for (int i = 0; i < n; i++) {
		if (t->shape != LP_GPU_SHAPE_X_GPU)
			snprintf(r->rowname[i], sizeof(r->rowname[i]), "GPU%d", i);
		if (t->shape != LP_GPU_SHAPE_GPU_X)
			snprintf(r->colname[i], sizeof(r->colname[i]), "GPU%d", i);
	}
	if (t->shape == LP_GPU_SHAPE_X_GPU)
		snprintf(r->rowname[0], sizeof(r->rowname[0]), "%s", t->other);
	if (t->shape == LP_GPU_SHAPE_GPU_X)
		snprintf(r->colname[0], sizeof(r->colname[0]), "%s", t->other);
	r->cells = calloc((size_t)t->nseries * r->nrows * r->ncols, sizeof(*r->cells));
	return r->cells ? 0 : -ENOMEM;
}

void lp_gpu_result_free(struct lp_gpu_result *r)
{
	free(r->cells);
	r->cells = NULL;
}

struct lp_gpu_cell *lp_gpu_cell_at(const struct lp_gpu_result *r, unsigned series, unsigned row,
				   unsigned col)
{
	return &r->cells[((size_t)series * r->nrows + row) * r->ncols + col];
}

void lp_gpu_result_finish(struct lp_gpu_result *r)
{
	unsigned n = r->test->nseries * r->nrows * r->ncols, ok = 0, err = 0;

	for (unsigned i = 0; i < n; i++) {
		ok += r->cells[i].status == LP_GPU_OK;
		err += r->cells[i].status == LP_GPU_ERROR;
	}
	if (err)
		r->status = LP_GPU_ERROR;
	else if (ok)
		r->status = LP_GPU_OK;
	else {
		r->status = LP_GPU_WAIVED;
		if (!r->reason[0] && n)
			snprintf(r->reason, sizeof(r->reason), "%s", r->cells[0].reason);
	}
}

/* ---- the model ---- */

double lp_gpu_nvlink_link_gbs(unsigned v)
{
	/* NVML's nvmlNvlinkVersion_t: 1=1.0 (P100) 2=2.0 (V100) 3=2.2 4=3.0 5=3.1 (A100) 6=4.0 (H100/H200) 7=5.0 (B200) */
	static const double gbs[] = { 0, 20, 25, 25, 25, 25, 25, 50 };

	return v < LP_ARRAY_SIZE(gbs) ? gbs[v] : 0;
}

const char *lp_gpu_nvlink_version_name(unsigned v)
{
	static const char *const names[] = { "?", "1.0", "2.0", "2.2", "3.0", "3.1", "4.0", "5.0" };

	return v < LP_ARRAY_SIZE(names) ? names[v] : "?";
}

double lp_gpu_pcie_gen_gts(unsigned gen)
{
	static const double gts[] = { 0, 2.5, 5, 8, 16, 32, 64 };

	return gen < LP_ARRAY_SIZE(gts) ? gts[gen] : 0;
}

double lp_gpu_hbm_gbs(double mhz, unsigned bits)
{
	return mhz > 0 && bits ? mhz * 1e6 * 2.0 * bits / 8.0 / 1e9 : 0;
}

void lp_gpu_topo_model(struct lp_gpu_topo *t)
{
	for (int i = 0; i < t->n; i++) {
		struct lp_gpu_dev_info *g = &t->gpu[i];

		g->pcie_gbs =
			lp_pcie_gbytes(lp_gpu_pcie_gen_gts(g->pcie.max_gen), g->pcie.max_width);
		g->hbm_gbs = lp_gpu_hbm_gbs(g->mem_clock_mhz, g->mem_bus_width);
		g->nvlink_gbs = g->nvlink_up * lp_gpu_nvlink_link_gbs(g->nvlink_version);
	}
	for (int a = 0; a < t->n; a++) {
		for (int b = 0; b < t->n; b++) {
			struct lp_gpu_pair *p = &t->pair[a][b];
			const struct lp_gpu_dev_info *ga = &t->gpu[a], *gb = &t->gpu[b];
			double rate = lp_gpu_nvlink_link_gbs(ga->nvlink_version);

			p->ceiling_gbs = 0;
			if (a == b) {
				snprintf(p->link, sizeof(p->link), "-");
			} else if (p->nvlinks) {
				snprintf(p->link, sizeof(p->link), "NV%u (NVLink %s)", p->nvlinks,
					 lp_gpu_nvlink_version_name(ga->nvlink_version));
				p->ceiling_gbs = p->nvlinks * rate;
			} else if (ga->nvlink_to_switch && gb->nvlink_to_switch) {
				unsigned l = LP_MIN(ga->nvlink_to_switch, gb->nvlink_to_switch);

				snprintf(p->link, sizeof(p->link), "NVSwitch %ux NVLink %s", l,
					 lp_gpu_nvlink_version_name(ga->nvlink_version));
				p->ceiling_gbs = l * rate;
			} else if (p->p2p_access) {
				snprintf(p->link, sizeof(p->link), "PCIe");
				p->ceiling_gbs = LP_MIN(ga->pcie_gbs, gb->pcie_gbs);
			} else {
				snprintf(p->link, sizeof(p->link), "no P2P");
			}
		}
	}
}

/* What GPU g can push or pull over its peer links at once: its NVLinks, else its PCIe link. */
static double lp_gpu_port_gbs(const struct lp_gpu_topo *t, int g)
{
	return t->gpu[g].nvlink_gbs > 0 ? t->gpu[g].nvlink_gbs : t->gpu[g].pcie_gbs;
}

double lp_gpu_ceiling(const struct lp_gpu_topo *t, const struct lp_gpu_test *test, unsigned series,
		      unsigned row, unsigned col)
{
	double sum = 0;
	int g;

	switch (test->kind) {
	case LP_GPU_K_H2D:
		return t->gpu[row].pcie_gbs;
	case LP_GPU_K_D2H:
		return t->gpu[col].pcie_gbs;
	case LP_GPU_K_HD_BIDIR:
		return t->gpu[row].pcie_gbs * (series == 2 ? 2 : 1);
	case LP_GPU_K_LOCAL:
		return t->gpu[row].hbm_gbs;
	case LP_GPU_K_P2P_WRITE:
	case LP_GPU_K_P2P_READ:
		return row == col ? 0 : t->pair[col][row].ceiling_gbs;
	case LP_GPU_K_P2P_BIDIR:
		if (row == col)
			return 0;
		if (series == 0)
			return t->pair[col][row].ceiling_gbs;
		if (series == 1)
			return t->pair[row][col].ceiling_gbs;
		return t->pair[col][row].ceiling_gbs + t->pair[row][col].ceiling_gbs;
	case LP_GPU_K_ONE_TO_ALL:
		g = (int)col;
		for (int p = 0; p < t->n; p++)
			if (p != g && t->pair[g][p].p2p_access)
				sum += t->pair[g][p].ceiling_gbs;
		return LP_MIN(sum, lp_gpu_port_gbs(t, g));
	case LP_GPU_K_ALL_TO_ONE:
		g = (int)row;
		for (int p = 0; p < t->n; p++)
			if (p != g && t->pair[g][p].p2p_access)
				sum += t->pair[p][g].ceiling_gbs;
		return LP_MIN(sum, lp_gpu_port_gbs(t, g));
	default:
		return 0; /* latency: no ceiling */
	}
}

int lp_gpu_topo_warnings(const struct lp_gpu_topo *t, char (*w)[LP_GPU_WARN_LEN], int max)
{
	int n = 0;

	for (int i = 0; i < t->n && n < max; i++) {
		const struct lp_gpu_dev_info *g = &t->gpu[i];

		if (g->pcie.max_gen && g->pcie.cur_gen &&
		    (g->pcie.cur_gen < g->pcie.max_gen || g->pcie.cur_width < g->pcie.max_width))
			snprintf(
				w[n++], LP_GPU_WARN_LEN,
				"GPU%d (%s): PCIe link trained at Gen%u x%u, below its max Gen%u x%u (read under load)",
				i, g->bus_id, g->pcie.cur_gen, g->pcie.cur_width, g->pcie.max_gen,
				g->pcie.max_width);
	}
	for (int a = 0; a < t->n; a++) {
		for (int b = a + 1; b < t->n && n < max; b++) {
			const struct lp_gpu_dev_info *ga = &t->gpu[a], *gb = &t->gpu[b];
			bool nvl = t->pair[a][b].nvlinks || t->pair[b][a].nvlinks ||
				   (ga->nvlink_to_switch && gb->nvlink_to_switch);

			if (!nvl)
				continue;
			if (ga->nvlink_up < ga->nvlink_links || gb->nvlink_up < gb->nvlink_links)
				snprintf(
					w[n++], LP_GPU_WARN_LEN,
					"GPU%d<->GPU%d: NVLinks not all up (GPU%d %u of %u active, GPU%d %u of %u)",
					a, b, a, ga->nvlink_up, ga->nvlink_links, b, gb->nvlink_up,
					gb->nvlink_links);
			else if (t->pair[a][b].nvlinks != t->pair[b][a].nvlinks && n < max)
				snprintf(
					w[n++], LP_GPU_WARN_LEN,
					"GPU%d<->GPU%d: asymmetric NVLinks (GPU%d sees %u to GPU%d, GPU%d sees %u back)",
					a, b, a, t->pair[a][b].nvlinks, b, b,
					t->pair[b][a].nvlinks);
		}
	}
	return n;
}

void lp_gpu_params_default(struct lp_gpu_params *p)
{
	memset(p, 0, sizeof(*p));
	p->sizes.n = 1;
	p->sizes.v[0] = 256ull << 20;
	p->iters = 16;
	p->warmup = 4;
	p->samples = 5;
	p->lat_iters = 20000;
	p->hold_timeout_s = 10;
}

/* ---- selections ---- */

int lp_gpu_parse_devs(const char *s, int *devs, int max, int *n_p)
{
	char buf[256];
	const char *items[LP_GPU_MAX * 2];
	int n, ret;

	*n_p = 0;
	if ((ret = lp_split_list(s, buf, sizeof(buf), items, (int)LP_ARRAY_SIZE(items), &n)))
		return ret;
	if (n > max)
		return -E2BIG;
	for (int i = 0; i < n; i++) {
		char *end;
		long v = strtol(items[i], &end, 10);

		if (!*items[i] || *end || v < 0 || v > 1023)
			return -EINVAL;
		for (int k = 0; k < i; k++)
			if (devs[k] == v)
				return -EINVAL;
		devs[i] = (int)v;
	}
	*n_p = n;
	return n ? 0 : -EINVAL;
}

/* Groups: all, bw (every bandwidth test), host, local, p2p (peer bandwidth), lat. */
static bool lp_gpu_in_group(const struct lp_gpu_test *t, const char *g)
{
	if (!strcmp(g, "all"))
		return true;
	if (!strcmp(g, "bw"))
		return !t->latency;
	if (!strcmp(g, "lat"))
		return t->latency;
	if (!strcmp(g, "host"))
		return !t->latency && !t->peer && t->kind != LP_GPU_K_LOCAL;
	if (!strcmp(g, "local"))
		return t->kind == LP_GPU_K_LOCAL;
	if (!strcmp(g, "p2p"))
		return !t->latency && t->peer;
	return false;
}

int lp_gpu_select_tests(const char *list, const struct lp_gpu_test **out, unsigned max,
			unsigned *n_p, struct lp_fail *f)
{
	static const char *const groups[] = { "all", "bw", "lat", "host", "local", "p2p" };
	char buf[512];
	const char *items[64];
	bool want[64] = { false };
	int n, ret;

	*n_p = 0;
	if ((ret = lp_split_list(list, buf, sizeof(buf), items, (int)LP_ARRAY_SIZE(items), &n)))
		return ret;
	for (int i = 0; i < n; i++) {
		const struct lp_gpu_test *t = lp_gpu_test_find(items[i]);
		bool group = false;

		for (unsigned g = 0; g < LP_ARRAY_SIZE(groups); g++)
			group |= !strcmp(items[i], groups[g]);
		if (!t && !group)
			return lp_fail_set(f, -EINVAL,
					   "-t: unknown test '%s' (lp-gpu --list shows them)",
					   items[i]);
		for (unsigned k = 0; k < lp_gpu_ntests; k++)
			if (&lp_gpu_tests[k] == t ||
			    (group && lp_gpu_in_group(&lp_gpu_tests[k], items[i])))
				want[k] = true;
	}
	/* Table order, each test once. */
	for (unsigned k = 0; k < lp_gpu_ntests; k++) {
		if (!want[k])
			continue;
		if (*n_p == max)
			return -E2BIG;
		out[(*n_p)++] = &lp_gpu_tests[k];
	}
	return *n_p ? 0 : -EINVAL;
}
