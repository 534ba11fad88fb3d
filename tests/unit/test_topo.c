// SPDX-License-Identifier: MIT
/*
 * Unit tests for common/topo: GPU–NIC PCIe distances on sysfs trees expanded
 * from the manifests in tests/fixtures/topo/ (see its README.md), the choice
 * of the closest pair, the matrix and JSON output, the live system, NUMA binding.
 */
#include "lp_test.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <sched.h>
#include <sys/stat.h>

#include "common/fail.h"
#include "common/json.h"
#include "common/lp.h"
#include "common/topo.h"
#include "lp_fixture.h"

/* One expanded tree per test, removed afterwards. */
struct fx {
	char dir[64];
	struct lp_topo t;
};

static struct fx *fx_new(void)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/lp-topo-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	return fx;
}

static struct fx *fx_scan(const char *fixture)
{
	struct fx *fx = fx_new();
	char name[PATH_MAX];

	snprintf(name, sizeof(name), "topo/%s", fixture);
	lp_fx_expand(fx->dir, name);
	assert_int_equal(lp_topo_scan(fx->dir, &fx->t, NULL), 0);
	return fx;
}

static void fx_free(struct fx *fx)
{
	lp_topo_free(&fx->t);
	lp_fx_rmtree(fx->dir);
	free(fx);
}

static char *capture_print(const struct lp_topo *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	lp_topo_print(t, f);
	fclose(f);
	return buf;
}

static void emit_topo(struct lp_json *j, const void *t)
{
	lp_topo_json(t, j);
}

static char *capture_json(const struct lp_topo *t)
{
	return lp_test_json_capture(emit_topo, t);
}

/* ---- DGX H100-like: 8 GPUs, 8 NICs, PIX pairs, NODE within a socket, SYS across ---- */

static const char *const dgx_gpu_bdf[] = {
	"0000:1b:00.0", "0000:43:00.0", "0000:52:00.0", "0000:61:00.0",
	"0000:9d:00.0", "0000:c3:00.0", "0000:d1:00.0", "0000:df:00.0",
};
static const char *const dgx_nic[] = {
	"mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11",
};
static const char *const dgx_netdev[] = {
	"ibp24s0", "ibp64s0", "ibp79s0", "ibp94s0", "ibp154s0", "ibp192s0", "ibp206s0", "ibp220s0",
};

static void test_dgx_scan(void **state)
{
	struct fx *fx = fx_scan("dgx-h100.txt");
	struct lp_topo *t = &fx->t;

	(void)state;
	/* The NVSwitch (bridge class) and the BMC's VGA (ASPEED) are not GPUs. */
	assert_int_equal(t->ngpus, 8);
	assert_int_equal(t->nnics, 8);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(t->gpus[i].index, i);
		assert_string_equal(t->gpus[i].bdf, dgx_gpu_bdf[i]);
		assert_int_equal(t->gpus[i].device_id, 0x2330);
		assert_int_equal(t->gpus[i].numa, i / 4);
		assert_non_null(strstr(t->gpus[i].path, "/sys/devices/pci0000:"));
		assert_string_equal(t->nics[i].name, dgx_nic[i]); /* natural order */
		assert_int_equal(t->nics[i].numa, i / 4);
		assert_int_equal(t->nics[i].nnetdevs, 1);
		assert_string_equal(t->nics[i].netdevs[0], dgx_netdev[i]);
		assert_string_equal(t->nics[i].link_layer, "InfiniBand");
	}
	assert_string_equal(t->nics[0].bdf, "0000:18:00.0");
	assert_string_equal(t->nics[0].path, "/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/"
					     "0000:17:00.0/0000:18:00.0");
	fx_free(fx);
}

static void test_dgx_distance(void **state)
{
	struct fx *fx = fx_scan("dgx-h100.txt");
	struct lp_topo *t = &fx->t;
	int nic, gpu;

	(void)state;
	for (int g = 0; g < 8; g++) {
		for (int n = 0; n < 8; n++) {
			enum lp_topo_dist want = g == n		  ? LP_TOPO_PIX
						 : g / 4 == n / 4 ? LP_TOPO_NODE
								  : LP_TOPO_SYS;

			assert_int_equal(lp_topo_distance(t, g, n), want);
		}
		assert_int_equal(lp_topo_best_nic(t, g, &nic), 0);
		assert_int_equal(nic, g); /* the PIX partner */
		assert_int_equal(lp_topo_best_gpu(t, g, &gpu), 0);
		assert_int_equal(gpu, g);
	}
	assert_int_equal(lp_topo_best_pair(t, &gpu, &nic), 0);
	assert_true(gpu == 0 && nic == 0);
	assert_int_equal(lp_topo_nic_index(t, "mlx5_10"), 6);
	assert_int_equal(lp_topo_nic_index(t, "ibp206s0"), 6);
	assert_int_equal(lp_topo_nic_index(t, "mlx5_1"), -ENODEV);
	assert_int_equal(lp_topo_best_nic(t, 8, &nic), -EINVAL);
	assert_int_equal(lp_topo_best_gpu(t, -1, &gpu), -EINVAL);
	assert_int_equal(lp_topo_distance(t, 0, 8), LP_TOPO_UNKNOWN);
	fx_free(fx);
}

static void test_dgx_print(void **state)
{
	struct fx *fx = fx_scan("dgx-h100.txt");
	char *out = capture_print(&fx->t);

	(void)state;
	assert_non_null(strstr(out, "        NIC0   NIC1   NIC2   NIC3   NIC4   NIC5   NIC6   "
				    "NIC7   NUMA  Bus Id        CUDA\n"));
	assert_non_null(strstr(out, "\nGPU0    PIX    NODE   NODE   NODE   SYS    SYS    SYS    "
				    "SYS    0     0000:1b:00.0  0\n"));
	assert_non_null(strstr(out, "\nGPU5    SYS    SYS    SYS    SYS    NODE   PIX    NODE   "
				    "NODE   1     0000:c3:00.0  5\n"));
	assert_non_null(
		strstr(out, "\nNUMA    0      0      0      0      1      1      1      1\n"));
	assert_non_null(strstr(out, "  NIC6: mlx5_10 0000:ce:00.0 ibp206s0 InfiniBand\n"));
	assert_non_null(strstr(out, "  SYS  = different NUMA nodes"));
	assert_non_null(strstr(out, "  PIX  = "));
	assert_non_null(strstr(out, "CUDA_DEVICE_ORDER=PCI_BUS_ID"));
	free(out);
	fx_free(fx);
}

static void test_dgx_json(void **state)
{
	struct fx *fx = fx_scan("dgx-h100.txt");
	char *out = capture_json(&fx->t);

	(void)state;
	assert_true(lp_test_json_valid(out));
	assert_non_null(strstr(out, "\"name\": \"mlx5_11\""));
	assert_non_null(strstr(out, "\"bdf\": \"0000:df:00.0\""));
	assert_non_null(strstr(out, "\"PIX\""));
	free(out);
	fx_free(fx);
}

/* ---- rails and auto-selection: a down port, a storage NIC, GPUs hidden from CUDA ---- */

static void test_rails_visibility(void **state)
{
	struct fx *fx = fx_scan("rails-visibility.txt");
	struct lp_topo *t = &fx->t;
	int gpu = -1, nic = -1;
	char *out;

	(void)state;
	assert_int_equal(t->ngpus, 2);
	assert_int_equal(t->nnics, 4);
	assert_string_equal(t->gpus[1].uuid, "GPU-bbbb2222-0000-0000-0000-000000000000");
	assert_int_equal(t->nics[0].port_state, 1);
	assert_false(lp_topo_nic_usable(t, 0)); /* mlx5_0: port down */
	assert_false(lp_topo_nic_usable(t, 1)); /* mlx5_1: Ethernet beside an InfiniBand fabric */
	assert_true(lp_topo_nic_usable(t, 2) && lp_topo_nic_usable(t, 3));
	/* Each GPU is PIX with the skipped NIC too: the choice must pass it over. */
	assert_int_equal(lp_topo_distance(t, 0, 0), LP_TOPO_PIX);
	assert_int_equal(lp_topo_distance(t, 1, 1), LP_TOPO_PIX);
	assert_int_equal(lp_topo_best_nic(t, 0, &nic), 0);
	assert_string_equal(t->nics[nic].name, "mlx5_3");
	assert_int_equal(lp_topo_best_nic(t, 1, &nic), 0);
	assert_string_equal(t->nics[nic].name, "mlx5_2");
	/* rails: rail i is CUDA GPU i and its closest usable NIC */
	assert_int_equal(lp_topo_set_visible(t, NULL), 2);
	assert_int_equal(lp_topo_rail(t, 0, &gpu, &nic), 0);
	assert_true(gpu == 0 && !strcmp(t->nics[nic].name, "mlx5_3"));
	assert_int_equal(lp_topo_rail(t, 1, &gpu, &nic), 0);
	assert_true(gpu == 1 && !strcmp(t->nics[nic].name, "mlx5_2"));
	assert_int_equal(lp_topo_rail(t, 2, &gpu, &nic), -ENODEV);

	/* CUDA_VISIBLE_DEVICES=1: GPU1 is CUDA 0, GPU0 hidden and never chosen. */
	assert_int_equal(lp_topo_set_visible(t, "1"), 1);
	assert_true(t->gpus[0].cuda == -1 && t->gpus[1].cuda == 0);
	assert_int_equal(lp_topo_gpu_of_cuda(t, 0), 1); /* CUDA 0 is the second GPU in PCI order */
	assert_int_equal(lp_topo_gpu_of_cuda(t, 1), -1);
	assert_int_equal(lp_topo_best_pair(t, &gpu, &nic), 0);
	assert_int_equal(gpu, 1);
	assert_int_equal(lp_topo_best_gpu(t, 3, &gpu), 0); /* mlx5_3 is PIX to the hidden GPU0 */
	assert_int_equal(gpu, 1);
	assert_int_equal(lp_topo_rail(t, 0, &gpu, &nic), 0);
	assert_true(gpu == 1 && !strcmp(t->nics[nic].name, "mlx5_2"));
	out = capture_print(t);
	assert_non_null(strstr(out, "0000:14:00.0  hidden\n"));
	assert_non_null(strstr(out, "0000:25:00.0  0\n"));
	assert_non_null(strstr(
		out, "  NIC0: mlx5_0 0000:13:00.0 ibp19s0 InfiniBand (port 1 not active)\n"));
	free(out);
	/* UUIDs and unique prefixes, in order; CUDA stops at a bad or repeated entry. */
	assert_int_equal(
		lp_topo_set_visible(t, "GPU-bbbb,GPU-aaaa1111-0000-0000-0000-000000000000"), 2);
	assert_true(t->gpus[1].cuda == 0 && t->gpus[0].cuda == 1);
	assert_int_equal(lp_topo_set_visible(t, "GPU-,1"), 0); /* ambiguous prefix ends the list */
	assert_int_equal(lp_topo_set_visible(t, "0,0,1"), 1);
	assert_int_equal(lp_topo_set_visible(t, "7,1"), 0);
	assert_int_equal(lp_topo_set_visible(t, ""), 0);
	assert_int_equal(lp_topo_best_pair(t, &gpu, &nic), -ENODEV);
	assert_int_equal(lp_topo_rail(t, 0, &gpu, &nic), -ENODEV);
	fx_free(fx);
}

/* Extended config space of a bridge on a GPU's or NIC's path (found by its bdf there, as sysfs nests
 * functions under their bridges): 4 KiB, optionally an ACS capability at 0x100 with this control. */
static void write_config(const char *dir, const struct lp_topo *t, const char *bdf, int acs_ctrl)
{
	char path[PATH_MAX], key[LP_TOPO_BDF_LEN + 2];
	uint8_t cfg[4096] = { 0 };
	const char *at = NULL, *base = NULL;
	FILE *f;

	snprintf(key, sizeof(key), "/%s/", bdf);
	for (int i = 0; !at && i < t->ngpus + t->nnics; i++) {
		base = i < t->ngpus ? t->gpus[i].path : t->nics[i - t->ngpus].path;
		at = strstr(base, key);
	}
	assert_non_null(at);
	snprintf(path, sizeof(path), "%s%.*s/config", dir, (int)(at - base + strlen(key) - 1),
		 base);
	if (acs_ctrl >= 0) {
		cfg[0x100] = 0x0d; /* ACS extended capability, version 1, last */
		cfg[0x102] = 0x01;
		cfg[0x106] = (uint8_t)acs_ctrl;
	}
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(cfg, 1, sizeof(cfg), f), sizeof(cfg));
	fclose(f);
}

/* ACS P2P redirect on a bridge between a GPU and its NIC, and an IOMMU translating the GPU's DMA. */
static void test_p2p_check(void **state)
{
	struct fx *fx = fx_scan("rails-visibility.txt");
	struct lp_topo *t = &fx->t;
	char why[320], path[PATH_MAX];
	FILE *f;

	(void)state;
	/* GPU0 (0000:14:00.0) and mlx5_3 (index 3) meet at switch 1: its ports 12:01.0 and 12:02.0. */
	assert_int_equal(lp_topo_p2p_check(fx->dir, t, 0, 3, why, sizeof(why)), -EACCES);
	write_config(fx->dir, t, "0000:12:01.0", 0x01); /* ACS with source validation only */
	write_config(fx->dir, t, "0000:12:02.0", -1);	/* no ACS capability */
	assert_int_equal(lp_topo_p2p_check(fx->dir, t, 0, 3, why, sizeof(why)), 0);
	write_config(fx->dir, t, "0000:12:01.0",
		     0x1d); /* + request and completion redirect, upstream fwd */
	assert_int_equal(lp_topo_p2p_check(fx->dir, t, 0, 3, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "ACS redirects peer-to-peer traffic at bridge 0000:12:01.0"));
	write_config(fx->dir, t, "0000:12:01.0", 0x01);
	snprintf(path, sizeof(path), "%s%s/iommu_group", fx->dir, t->gpus[0].path);
	assert_int_equal(lp_fx_mkdir_p(path), 0);
	strcat(path, "/type");
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("DMA-FQ\n", f);
	fclose(f);
	assert_int_equal(lp_topo_p2p_check(fx->dir, t, 0, 3, why, sizeof(why)), 1);
	assert_non_null(
		strstr(why, "IOMMU translates GPU 0000:14:00.0's DMA (iommu_group type DMA-FQ)"));
	assert_int_equal(lp_topo_p2p_check(fx->dir, t, 0, 9, why, sizeof(why)), 0); /* bad index */
	fx_free(fx);
}

/* ---- one GPU and one NIC on different sockets: SYS, the loud-warning case ---- */

static void test_cross_socket(void **state)
{
	struct fx *fx = fx_scan("cross-socket.txt");
	struct lp_topo *t = &fx->t;
	int gpu = -1, nic = -1;
	char *out;

	(void)state;
	assert_int_equal(t->ngpus, 1);
	assert_int_equal(t->nnics, 1);
	assert_int_equal(t->gpus[0].numa, 0);
	assert_int_equal(t->nics[0].numa, 1);
	assert_string_equal(t->nics[0].link_layer, "Ethernet");
	assert_string_equal(t->nics[0].netdevs[0], "ens7f0np0");
	/* The only choice is still made, and it is SYS: the caller must warn. */
	assert_int_equal(lp_topo_best_pair(t, &gpu, &nic), 0);
	assert_true(gpu == 0 && nic == 0);
	assert_int_equal(lp_topo_distance(t, gpu, nic), LP_TOPO_SYS);
	assert_string_equal(lp_topo_dist_name(lp_topo_distance(t, gpu, nic)), "SYS");
	out = capture_print(t);
	assert_non_null(strstr(out, "\nGPU0    SYS    0     0000:17:00.0  0\n"));
	assert_non_null(strstr(out, "\nNUMA    1\n"));
	free(out);
	out = capture_json(t);
	assert_true(lp_test_json_valid(out));
	free(out);
	fx_free(fx);
}

/* ---- two switch levels (PXB) and another root port (PHB), no NUMA info ---- */

static void test_two_level_switch(void **state)
{
	struct fx *fx = fx_scan("two-level-switch.txt");
	struct lp_topo *t = &fx->t;
	int nic = -1;
	char *out;

	(void)state;
	assert_int_equal(t->ngpus, 1);
	assert_int_equal(t->nnics, 2);
	assert_int_equal(t->gpus[0].numa, -1);
	assert_int_equal(t->nics[0].numa, -1);
	assert_int_equal(t->nics[1].numa, -1); /* numa_node file missing */
	assert_int_equal(lp_topo_distance(t, 0, 0), LP_TOPO_PXB);
	assert_int_equal(lp_topo_distance(t, 0, 1), LP_TOPO_PHB);
	assert_int_equal(lp_topo_best_nic(t, 0, &nic), 0);
	assert_int_equal(nic, 0);
	assert_int_equal(t->nics[1].nnetdevs, 2);
	assert_string_equal(t->nics[1].netdevs[0], "enp7s0f0np0");
	assert_string_equal(t->nics[1].netdevs[1], "enp7s0f1np1");
	assert_int_equal(lp_topo_nic_index(t, "enp7s0f1np1"), 1);
	out = capture_print(t);
	assert_non_null(strstr(out, "\nGPU0    PXB    PHB    N/A   0000:05:00.0  0\n"));
	assert_non_null(strstr(
		out,
		"  NIC1: mlx5_1 0000:07:00.0 enp7s0f0np0,enp7s0f1np1 Ethernet (not the compute fabric: skipped by auto)\n"));
	free(out);
	out = capture_json(t);
	assert_true(lp_test_json_valid(out));
	assert_non_null(strstr(out, "\"numa\": null"));
	free(out);
	fx_free(fx);
}

/* ---- missing pieces ---- */

static void test_empty_root(void **state)
{
	struct fx *fx = fx_new();
	struct lp_fail f = { 0 };
	struct lp_topo t;
	int nic, gpu;
	char *out;

	(void)state;
	/* No sys/class/infiniband, no sys/bus/pci: nothing found, no error. */
	assert_int_equal(lp_topo_scan(fx->dir, &fx->t, NULL), 0);
	assert_int_equal(fx->t.ngpus, 0);
	assert_int_equal(fx->t.nnics, 0);
	assert_int_equal(lp_topo_best_pair(&fx->t, &gpu, &nic), -ENODEV);
	assert_int_equal(lp_topo_best_nic(&fx->t, 0, &nic), -EINVAL);
	assert_int_equal(lp_topo_nic_index(&fx->t, "mlx5_0"), -ENODEV);
	out = capture_print(&fx->t);
	assert_non_null(strstr(out, "no NVIDIA GPUs found"));
	assert_non_null(strstr(out, "no RDMA devices found"));
	free(out);
	out = capture_json(&fx->t);
	assert_true(lp_test_json_valid(out));
	free(out);
	fx_free(fx);

	/* the cause in the record, nothing printed (the library never prints) */
	lp_err_clear();
	assert_int_equal(lp_topo_scan("/nonexistent/lp-topo", &t, &f), -ENOENT);
	assert_string_equal(lp_fail_msg(&f),
			    "topology root /nonexistent/lp-topo: No such file or directory");
	assert_string_equal(lp_err_last(), "");
	assert_int_equal(t.ngpus, 0);
	assert_null(t.nics);
}

/*
 * A GPU without numa_node; a soft-RoCE device without a device link; a NIC on
 * another host bridge with a known node while the GPU's is unknown (NODE, not
 * SYS); a GPU without NICs.
 */
static const char partial_manifest[] =
	"file sys/devices/pci0000:00/0000:00:02.0/0000:01:00.0/vendor 0x10de\n"
	"file sys/devices/pci0000:00/0000:00:02.0/0000:01:00.0/class 0x030200\n"
	"link sys/bus/pci/devices/0000:01:00.0 ../../../devices/pci0000:00/0000:00:02.0/0000:01:00.0\n"
	"dir sys/class/infiniband/rxe0\n"
	"file sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0/numa_node 1\n"
	"link sys/class/infiniband/mlx5_0/device "
	"../../../devices/pci0000:80/0000:80:01.0/0000:81:00.0\n";

static void test_partial_tree(void **state)
{
	struct fx *fx = fx_new();
	struct lp_topo *t = &fx->t;
	int nic = -1;
	char *out;

	(void)state;
	lp_fx_expand_text(fx->dir, partial_manifest);
	assert_int_equal(lp_topo_scan(fx->dir, t, NULL), 0);
	assert_int_equal(t->ngpus, 1);
	assert_int_equal(t->gpus[0].numa, -1);
	assert_int_equal(t->gpus[0].device_id, 0);
	assert_int_equal(t->nnics, 2);
	assert_string_equal(t->nics[0].name, "mlx5_0");
	assert_int_equal(t->nics[0].numa, 1);
	assert_string_equal(t->nics[0].link_layer, "");
	assert_int_equal(t->nics[0].nnetdevs, 0);
	assert_string_equal(t->nics[1].name, "rxe0");
	assert_string_equal(t->nics[1].bdf, "");
	assert_string_equal(t->nics[1].path, "");
	assert_int_equal(t->nics[1].numa, -1);
	assert_int_equal(lp_topo_distance(t, 0, 0), LP_TOPO_NODE);
	assert_int_equal(lp_topo_distance(t, 0, 1), LP_TOPO_UNKNOWN);
	assert_int_equal(lp_topo_best_nic(t, 0, &nic), 0);
	assert_int_equal(nic, 0);
	out = capture_print(t);
	assert_non_null(strstr(out, "\nGPU0    NODE   ?      N/A   0000:01:00.0  0\n"));
	assert_non_null(strstr(out, "  NIC1: rxe0 - -\n"));
	assert_non_null(strstr(out, "  ?    = unknown"));
	free(out);
	out = capture_json(t);
	assert_true(lp_test_json_valid(out));
	free(out);
	fx_free(fx);
}

static void test_dist_names(void **state)
{
	static const char *const names[] = { "PIX", "PXB", "PHB", "NODE", "SYS", "?" };

	(void)state;
	for (int d = LP_TOPO_PIX; d <= LP_TOPO_UNKNOWN; d++) {
		assert_string_equal(lp_topo_dist_name(d), names[d]);
		assert_true(strlen(lp_topo_dist_help(d)) > 0);
	}
	assert_string_equal(lp_topo_dist_name((enum lp_topo_dist)42), "?");
	/* The rank is the value: closer classes compare lower. */
	assert_true(LP_TOPO_PIX < LP_TOPO_PXB && LP_TOPO_PXB < LP_TOPO_PHB &&
		    LP_TOPO_PHB < LP_TOPO_NODE && LP_TOPO_NODE < LP_TOPO_SYS &&
		    LP_TOPO_SYS < LP_TOPO_UNKNOWN);
}

/* ---- the live machine ---- */

static void test_live(void **state)
{
	struct lp_topo t;
	char *out;

	(void)state;
	assert_int_equal(lp_topo_scan("", &t, NULL), 0);
	printf("live: %d GPU(s), %d RDMA device(s)\n", t.ngpus, t.nnics);
	/* A machine without RDMA class devices or an NVIDIA driver must find none. */
	if (access("/sys/class/infiniband", F_OK))
		assert_int_equal(t.nnics, 0);
	if (access("/proc/driver/nvidia", F_OK) && access("/dev/nvidia0", F_OK))
		assert_int_equal(t.ngpus, 0);
	out = capture_print(&t);
	fputs(out, stdout);
	free(out);
	out = capture_json(&t);
	assert_true(lp_test_json_valid(out));
	free(out);
	lp_topo_free(&t);
	assert_null(t.gpus);
	assert_int_equal(t.ngpus, 0);
}

/* ---- NUMA binding ---- */

static void test_cpulist_parse(void **state)
{
	size_t sz = CPU_ALLOC_SIZE(1024);
	cpu_set_t *set = CPU_ALLOC(1024);

	(void)state;
	assert_non_null(set);
	assert_int_equal(lp_topo_cpulist_parse("0-3,8,10-11\n", set, sz), 0);
	assert_int_equal(CPU_COUNT_S(sz, set), 7);
	assert_true(CPU_ISSET_S(8, sz, set) && CPU_ISSET_S(11, sz, set) &&
		    !CPU_ISSET_S(9, sz, set));
	assert_int_equal(lp_topo_cpulist_parse("", set, sz), 0);
	assert_int_equal(CPU_COUNT_S(sz, set), 0);
	assert_int_equal(lp_topo_cpulist_parse("3-1", set, sz), -EINVAL);
	assert_int_equal(lp_topo_cpulist_parse("1,a", set, sz), -EINVAL);
	assert_int_equal(lp_topo_cpulist_parse("2-", set, sz), -EINVAL);
	assert_int_equal(lp_topo_cpulist_parse("0-5000", set, sz), -ERANGE);
	CPU_FREE(set);
}

static void test_numa_bind(void **state)
{
	cpu_set_t saved, now;
	char line[256];
	FILE *f;

	(void)state;
	assert_int_equal(lp_numa_bind(-1, NULL), 0);
	assert_int_equal(lp_numa_bind(-2, NULL), -EINVAL);
	assert_int_equal(lp_numa_bind(100000, NULL), -ENOENT);
	f = fopen("/sys/devices/system/node/node0/cpulist", "r");
	if (!f) { /* tests/run-all.sh shows SKIP lines of passing tests */
		print_message(
			"SKIP test_numa_bind: no NUMA sysfs here (kernel without CONFIG_NUMA)\n");
		skip();
	}
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_int_equal(sched_getaffinity(0, sizeof(saved), &saved), 0);
	assert_int_equal(lp_numa_bind(0, NULL), 0);
	assert_int_equal(sched_getaffinity(0, sizeof(now), &now), 0);
	{
		cpu_set_t want;

		assert_int_equal(lp_topo_cpulist_parse(line, &want, sizeof(want)), 0);
		CPU_AND(&want, &want, &saved); /* a cgroup may allow fewer CPUs */
		assert_true(CPU_EQUAL(&now, &want));
	}
	assert_int_equal(sched_setaffinity(0, sizeof(saved), &saved), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dgx_scan),	 cmocka_unit_test(test_dgx_distance),
		cmocka_unit_test(test_dgx_print),	 cmocka_unit_test(test_dgx_json),
		cmocka_unit_test(test_cross_socket),	 cmocka_unit_test(test_two_level_switch),
		cmocka_unit_test(test_empty_root),	 cmocka_unit_test(test_partial_tree),
		cmocka_unit_test(test_dist_names),	 cmocka_unit_test(test_live),
		cmocka_unit_test(test_rails_visibility), cmocka_unit_test(test_p2p_check),
		cmocka_unit_test(test_cpulist_parse),	 cmocka_unit_test(test_numa_bind),
	};

	return cmocka_run_group_tests_name("topo", tests, NULL, NULL);
}
