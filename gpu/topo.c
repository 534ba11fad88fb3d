// SPDX-License-Identifier: MIT
/*
 * Topology probe: CUDA for devices and P2P access, NVML (dlopen'ed, with our
 * own minimal declarations, so nothing needs nvml.h or links libnvidia-ml) for
 * NVLinks, PCIe and memory clocks, sysfs as the fallback for PCIe and NUMA.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "common/fail.h"
#include "common/lp.h"
#include "common/meta.h"
#include "gpu/cudautil.h"
#include "gpu/gpu.h"
#include "gpu/nvml.h"

/* ---- NVML, resolved at run time ---- */

#define LP_NVML_SUCCESS			  0
#define LP_NVML_CLOCK_MEM		  2
#define LP_NVML_NVLINK_MAX_LINKS	  18
#define LP_NVML_NVLINK_DEVICE_TYPE_SWITCH 2

struct lp_nvml_pci { /* nvmlPciInfo_t as the _v2/_v3 calls fill it */
	char bus_id_legacy[16];
	unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
};

typedef struct lp_nvml_dev *lp_nvml_dev_t; /* nvmlDevice_t: an opaque pointer */

struct lp_nvml {
	void *h;
	int (*init)(void);
	int (*shutdown)(void);
	const char *(*errstr)(int);
	int (*driver_version)(char *, unsigned);
	int (*by_bus)(const char *, lp_nvml_dev_t *);
	int (*pcie_cur_gen)(lp_nvml_dev_t, unsigned *);
	int (*pcie_cur_width)(lp_nvml_dev_t, unsigned *);
	int (*pcie_max_gen)(lp_nvml_dev_t, unsigned *);
	int (*pcie_max_width)(lp_nvml_dev_t, unsigned *);
	int (*nvl_state)(lp_nvml_dev_t, unsigned, int *);
	int (*nvl_version)(lp_nvml_dev_t, unsigned, unsigned *);
	int (*nvl_remote_pci)(lp_nvml_dev_t, unsigned, struct lp_nvml_pci *);
	int (*nvl_remote_type)(lp_nvml_dev_t, unsigned, int *);
	int (*max_clock)(lp_nvml_dev_t, int, unsigned *);
	int (*bus_width)(lp_nvml_dev_t, unsigned *);
};

#define LP_NVML_SYM(n, field)                                                                      \
	do {                                                                                       \
		*(void **)&nv->field = dlsym(nv->h, n);                                            \
	} while (0)

int lp_nvml_open(struct lp_nvml **nv_p, char *note, size_t notelen)
{
	struct lp_nvml *nv = calloc(1, sizeof(*nv));
	int r;

	*nv_p = NULL;
	if (!nv)
		return -ENOMEM;
	nv->h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!nv->h) {
		snprintf(note, notelen, "NVML not loaded (libnvidia-ml.so.1: %s); sysfs used",
			 dlerror());
		free(nv);
		return -ENOENT;
	}
	LP_NVML_SYM("nvmlInit_v2", init);
	LP_NVML_SYM("nvmlShutdown", shutdown);
	LP_NVML_SYM("nvmlErrorString", errstr);
	LP_NVML_SYM("nvmlSystemGetDriverVersion", driver_version);
	LP_NVML_SYM("nvmlDeviceGetHandleByPciBusId_v2", by_bus);
	LP_NVML_SYM("nvmlDeviceGetCurrPcieLinkGeneration", pcie_cur_gen);
	LP_NVML_SYM("nvmlDeviceGetCurrPcieLinkWidth", pcie_cur_width);
	LP_NVML_SYM("nvmlDeviceGetMaxPcieLinkGeneration", pcie_max_gen);
	LP_NVML_SYM("nvmlDeviceGetMaxPcieLinkWidth", pcie_max_width);
	LP_NVML_SYM("nvmlDeviceGetNvLinkState", nvl_state);
	LP_NVML_SYM("nvmlDeviceGetNvLinkVersion", nvl_version);
	LP_NVML_SYM("nvmlDeviceGetNvLinkRemotePciInfo_v2", nvl_remote_pci);
	LP_NVML_SYM("nvmlDeviceGetNvLinkRemoteDeviceType", nvl_remote_type);
	LP_NVML_SYM("nvmlDeviceGetMaxClockInfo", max_clock);
	LP_NVML_SYM("nvmlDeviceGetMemoryBusWidth", bus_width);
	if (!nv->init || !nv->shutdown || !nv->by_bus) {
		snprintf(
			note, notelen,
			"NVML too old (no nvmlInit_v2/nvmlDeviceGetHandleByPciBusId_v2); sysfs used");
		goto err;
	}
	if ((r = nv->init()) != LP_NVML_SUCCESS) {
		snprintf(note, notelen, "nvmlInit_v2 failed: %s; sysfs used",
			 nv->errstr ? nv->errstr(r) : "?");
		goto err;
	}
	*nv_p = nv;
	return 0;
err:
	dlclose(nv->h);
	free(nv);
	return -ENOENT;
}

void lp_nvml_close(struct lp_nvml *nv)
{
	if (!nv)
		return;
	nv->shutdown();
	dlclose(nv->h);
	free(nv);
}

static bool lp_nvml_dev(struct lp_nvml *nv, const char *bus_id, lp_nvml_dev_t *d)
{
	return nv && nv->by_bus(bus_id, d) == LP_NVML_SUCCESS;
}

int lp_nvml_pcie_current(struct lp_nvml *nv, const char *bus_id, unsigned *gen_p, unsigned *width_p)
{
	lp_nvml_dev_t d;

	if (!lp_nvml_dev(nv, bus_id, &d) || !nv->pcie_cur_gen || !nv->pcie_cur_width ||
	    nv->pcie_cur_gen(d, gen_p) != LP_NVML_SUCCESS ||
	    nv->pcie_cur_width(d, width_p) != LP_NVML_SUCCESS)
		return -ENOENT;
	return 0;
}

/* ---- sysfs ---- */

static unsigned lp_sysfs_gen(const char *bdf, const char *attr)
{
	char path[256], buf[64];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", bdf, attr);
	if (lp_read_line(path, buf, sizeof(buf)))
		return 0;
	return lp_gpu_pcie_gen_from_gts(strtod(buf, NULL));
}

static unsigned lp_sysfs_uint(const char *bdf, const char *attr, int *ok)
{
	char path[256], buf[64];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", bdf, attr);
	if (lp_read_line(path, buf, sizeof(buf))) {
		*ok = 0;
		return 0;
	}
	*ok = 1;
	return (unsigned)strtol(buf, NULL, 10);
}

int lp_sysfs_pcie_current(const char *bdf, unsigned *gen_p, unsigned *width_p)
{
	int ok;

	*gen_p = lp_sysfs_gen(bdf, "current_link_speed");
	*width_p = lp_sysfs_uint(bdf, "current_link_width", &ok);
	return *gen_p && ok ? 0 : -ENOENT;
}

unsigned lp_gpu_pcie_gen_from_gts(double gts)
{
	for (unsigned g = 1; g <= 6; g++)
		if (gts > 0 && gts > lp_gpu_pcie_gen_gts(g) - 0.1 &&
		    gts < lp_gpu_pcie_gen_gts(g) + 0.1)
			return g;
	return 0;
}

static void lp_probe_pcie(struct lp_nvml *nv, struct lp_gpu_dev_info *g)
{
	lp_nvml_dev_t d;
	int ok;

	if (lp_nvml_dev(nv, g->bus_id, &d) && nv->pcie_max_gen && nv->pcie_max_width &&
	    nv->pcie_max_gen(d, &g->pcie.max_gen) == LP_NVML_SUCCESS &&
	    nv->pcie_max_width(d, &g->pcie.max_width) == LP_NVML_SUCCESS) {
		lp_nvml_pcie_current(nv, g->bus_id, &g->pcie.cur_gen, &g->pcie.cur_width);
		g->pcie.source = "nvml";
		return;
	}
	g->pcie.max_gen = lp_sysfs_gen(g->bus_id, "max_link_speed");
	g->pcie.max_width = lp_sysfs_uint(g->bus_id, "max_link_width", &ok);
	if (g->pcie.max_gen && ok) {
		lp_sysfs_pcie_current(g->bus_id, &g->pcie.cur_gen, &g->pcie.cur_width);
		g->pcie.source = "sysfs";
		return;
	}
	g->pcie.max_gen = g->pcie.max_width = 0;
	g->pcie.source = "none";
}

static bool lp_same_pci(const struct lp_nvml_pci *p, const char *bus_id)
{
	unsigned dom, bus, dev, fn;

	if (sscanf(bus_id, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
		return false;
	return p->domain == dom && p->bus == bus && p->device == dev;
}

static void lp_probe_nvlink(struct lp_nvml *nv, struct lp_gpu_topo *t, int i)
{
	struct lp_gpu_dev_info *g = &t->gpu[i];
	lp_nvml_dev_t d;

	if (!lp_nvml_dev(nv, g->bus_id, &d) || !nv->nvl_state)
		return;
	for (unsigned l = 0; l < LP_NVML_NVLINK_MAX_LINKS; l++) {
		struct lp_nvml_pci rp;
		int active = 0, type = -1;
		unsigned v = 0;

		if (nv->nvl_state(d, l, &active) != LP_NVML_SUCCESS)
			continue;
		g->nvlink_links++;
		if (!active)
			continue;
		g->nvlink_up++;
		if (nv->nvl_version && nv->nvl_version(d, l, &v) == LP_NVML_SUCCESS &&
		    v > g->nvlink_version)
			g->nvlink_version = v;
		if (nv->nvl_remote_type && nv->nvl_remote_type(d, l, &type) == LP_NVML_SUCCESS &&
		    type == LP_NVML_NVLINK_DEVICE_TYPE_SWITCH) {
			g->nvlink_to_switch++;
			continue;
		}
		memset(&rp, 0, sizeof(rp));
		if (!nv->nvl_remote_pci || nv->nvl_remote_pci(d, l, &rp) != LP_NVML_SUCCESS)
			continue;
		for (int j = 0; j < t->n; j++)
			if (j != i && lp_same_pci(&rp, t->gpu[j].bus_id))
				t->pair[i][j].nvlinks++;
	}
}

static void lp_probe_mem(struct lp_nvml *nv, struct lp_gpu_dev_info *g)
{
	lp_nvml_dev_t d;
	unsigned mhz = 0, bits = 0;
	int v;

	if (lp_nvml_dev(nv, g->bus_id, &d) && nv->max_clock && nv->bus_width &&
	    nv->max_clock(d, LP_NVML_CLOCK_MEM, &mhz) == LP_NVML_SUCCESS &&
	    nv->bus_width(d, &bits) == LP_NVML_SUCCESS && mhz && bits) {
		g->mem_clock_mhz = mhz;
		g->mem_bus_width = bits;
		return;
	}
	if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, g->cuda_dev) == cudaSuccess)
		g->mem_clock_mhz = v / 1000.0;
	if (cudaDeviceGetAttribute(&v, cudaDevAttrGlobalMemoryBusWidth, g->cuda_dev) == cudaSuccess)
		g->mem_bus_width = (unsigned)v;
}

static void lp_driver_version(struct lp_nvml *nv, struct lp_gpu_topo *t)
{
	char buf[256], *p;

	if (nv && nv->driver_version &&
	    nv->driver_version(t->driver_version, sizeof(t->driver_version)) == LP_NVML_SUCCESS)
		return;
	if (!lp_read_line("/sys/module/nvidia/version", buf, sizeof(buf))) {
		snprintf(t->driver_version, sizeof(t->driver_version), "%s", buf);
		return;
	}
	/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  ..." */
	if (!lp_read_line("/proc/driver/nvidia/version", buf, sizeof(buf)) &&
	    (p = strstr(buf, "Module"))) {
		p += 6;
		while (*p == ' ')
			p++;
		snprintf(t->driver_version, sizeof(t->driver_version), "%.*s", (int)strcspn(p, " "),
			 p);
	}
}

int lp_gpu_topo_probe_nvml(struct lp_gpu_topo *t, const int *devs, int ndevs, struct lp_nvml **nv_p,
			   struct lp_fail *f)
{
	struct lp_nvml *nv = NULL;
	int count = 0, ret;
	cudaError_t e;

	memset(t, 0, sizeof(*t));
	*nv_p = NULL;
	e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess || count <= 0) {
		lp_warn("no usable GPU: %s",
			e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device");
		return -ENODEV;
	}
	if (ndevs > LP_GPU_MAX || (!ndevs && count > LP_GPU_MAX))
		return lp_fail_set(f, -EINVAL, "at most %d GPUs per run (-g selects them)",
				   LP_GPU_MAX);
	t->n = ndevs ? ndevs : count;
	for (int i = 0; i < t->n; i++) {
		int d = ndevs ? devs[i] : i;

		if (d < 0 || d >= count)
			return lp_fail_set(f, -EINVAL, "-g: GPU %d does not exist (%d GPU%s here)",
					   d, count, count == 1 ? "" : "s");
		for (int j = 0; j < i; j++)
			if (t->gpu[j].cuda_dev == d)
				return lp_fail_set(f, -EINVAL, "-g: GPU %d given twice", d);
		t->gpu[i].cuda_dev = d;
	}
	cudaDriverGetVersion(&t->cuda_driver_version);
	cudaRuntimeGetVersion(&t->cuda_runtime_version);
	t->nvml = lp_nvml_open(&nv, t->nvml_note, sizeof(t->nvml_note)) == 0;
	lp_driver_version(nv, t);
	for (int i = 0; i < t->n; i++) {
		struct lp_gpu_dev_info *g = &t->gpu[i];
		struct cudaDeviceProp prop;
		char path[256], buf[32];

		if ((ret = lp_cuda_check(cudaGetDeviceProperties(&prop, g->cuda_dev),
					 "cudaGetDeviceProperties", g->cuda_dev, f)))
			goto err;
		snprintf(g->name, sizeof(g->name), "%s", prop.name);
		g->mem_bytes = prop.totalGlobalMem;
		g->sm_count = prop.multiProcessorCount;
		g->cc_major = prop.major;
		g->cc_minor = prop.minor;
		g->l2_bytes = (uint64_t)prop.l2CacheSize;
		if ((ret = lp_cuda_check(cudaDeviceGetPCIBusId(g->bus_id, sizeof(g->bus_id),
							       g->cuda_dev),
					 "cudaDeviceGetPCIBusId", g->cuda_dev, f)))
			goto err;
		for (char *p = g->bus_id; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", g->bus_id);
		g->numa_node = lp_read_line(path, buf, sizeof(buf)) ? -1 : atoi(buf);
		lp_probe_pcie(nv, g);
		lp_probe_mem(nv, g);
	}
	for (int i = 0; i < t->n; i++) {
		lp_probe_nvlink(nv, t, i);
		for (int j = 0; j < t->n; j++) {
			int can = 0;

			if (i != j && cudaDeviceCanAccessPeer(&can, t->gpu[i].cuda_dev,
							      t->gpu[j].cuda_dev) == cudaSuccess)
				t->pair[i][j].p2p_access = can != 0;
		}
	}
	lp_gpu_topo_model(t);
	*nv_p = nv;
	return 0;
err:
	lp_nvml_close(nv);
	return ret;
}

int lp_gpu_topo_probe(struct lp_gpu_topo *t, const int *devs, int ndevs, struct lp_fail *f)
{
	struct lp_nvml *nv;
	int ret = lp_gpu_topo_probe_nvml(t, devs, ndevs, &nv, f);

	lp_nvml_close(nv);
	return ret;
}
