// SPDX-License-Identifier: MIT
/* The GPUs of this host for the inventory: sysfs for where they are, NVML for what they are. */
#include "gpu/inventory.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/pciinv.h"
#include "common/topo.h"

/* clang-format off */
const struct lp_record lp_inv_gpu_record = LP_RECORD(struct lp_inv_gpu,
	LP_REC_STR(struct lp_inv_gpu, bdf),
	LP_REC_STR(struct lp_inv_gpu, name),
	LP_REC_STR(struct lp_inv_gpu, serial),
	LP_REC_STR(struct lp_inv_gpu, vbios),
	LP_REC_STR(struct lp_inv_gpu, uuid),
	LP_REC_STR(struct lp_inv_gpu, part, LP_REC_KEY("part_number")),
	LP_REC_STR(struct lp_inv_gpu, slot),
	LP_REC_F64(struct lp_inv_gpu, cur_gts, LP_REC_KEY("link_gts")),
	LP_REC_F64(struct lp_inv_gpu, max_gts, LP_REC_KEY("max_link_gts")),
	LP_REC_U32(struct lp_inv_gpu, cur_width, LP_REC_KEY("link_width")),
	LP_REC_U32(struct lp_inv_gpu, max_width, LP_REC_KEY("max_link_width")),
	LP_REC_I32(struct lp_inv_gpu, numa, LP_REC_KEY("numa_node")));

const struct lp_record lp_inv_gpus_record = LP_RECORD(struct lp_inv_gpus,
	LP_REC_U32(struct lp_inv_gpus, n, LP_REC_RANGE(0, LP_INV_MAX_GPUS), LP_REC_NOJSON),
	LP_REC_ARRAY_NEST(struct lp_inv_gpus, gpu, n, lp_inv_gpu_record, LP_REC_KEY("list")),
	LP_REC_U32(struct lp_inv_gpus, more),
	LP_REC_STR(struct lp_inv_gpus, note));
/* clang-format on */

typedef int (*nvml_str_fn)(void *dev, char *buf, unsigned len);

/* The NVML strings kept per GPU: the call and the member it fills. */
static const struct {
	const char *sym;
	size_t off, len;
} nvml_strs[] = {
	{ "nvmlDeviceGetName", offsetof(struct lp_inv_gpu, name),
	  sizeof(((struct lp_inv_gpu *)0)->name) },
	{ "nvmlDeviceGetSerial", offsetof(struct lp_inv_gpu, serial),
	  sizeof(((struct lp_inv_gpu *)0)->serial) },
	{ "nvmlDeviceGetVbiosVersion", offsetof(struct lp_inv_gpu, vbios),
	  sizeof(((struct lp_inv_gpu *)0)->vbios) },
	{ "nvmlDeviceGetUUID", offsetof(struct lp_inv_gpu, uuid),
	  sizeof(((struct lp_inv_gpu *)0)->uuid) },
	{ "nvmlDeviceGetBoardPartNumber", offsetof(struct lp_inv_gpu, part),
	  sizeof(((struct lp_inv_gpu *)0)->part) },
};

/* NVML's strings for every GPU in g (by PCI address); the reason in g->note when it cannot. */
static void nvml_fill(struct lp_inv_gpus *g)
{
	void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	int (*init)(void), (*shutdown)(void), (*by_bus)(const char *, void **);
	unsigned missing = 0;

	if (!h) {
		snprintf(g->note, sizeof(g->note),
			 "serial, VBIOS: unknown (NVML not loaded: %.50s)", dlerror());
		return;
	}
	*(void **)&init = dlsym(h, "nvmlInit_v2");
	*(void **)&shutdown = dlsym(h, "nvmlShutdown");
	*(void **)&by_bus = dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2");
	if (!init || !shutdown || !by_bus || init()) {
		snprintf(g->note, sizeof(g->note),
			 "serial, VBIOS: unknown (nvmlInit_v2 failed or NVML too old)");
		dlclose(h);
		return;
	}
	for (uint32_t i = 0; i < g->n; i++) {
		void *dev;

		if (by_bus(g->gpu[i].bdf, &dev)) {
			missing++;
			continue;
		}
		for (size_t k = 0; k < sizeof(nvml_strs) / sizeof(nvml_strs[0]); k++) {
			nvml_str_fn fn;
			char *dst = (char *)&g->gpu[i] + nvml_strs[k].off;

			*(void **)&fn = dlsym(h, nvml_strs[k].sym);
			if (fn && !fn(dev, dst, (unsigned)nvml_strs[k].len))
				continue;
			dst[0] = '\0'; /* unsupported on this board (NVML_ERROR_NOT_SUPPORTED) */
		}
	}
	if (missing)
		snprintf(g->note, sizeof(g->note), "%u GPU(s) unknown to NVML (hidden or failed)",
			 missing);
	shutdown();
	dlclose(h);
}

int lp_gpu_inv_read(const char *root, struct lp_inv_gpus *g)
{
	struct lp_topo t;
	int ret;

	root = root ? root : "";
	memset(g, 0, sizeof(*g));
	ret = lp_topo_scan(root, &t, NULL);
	if (ret) {
		snprintf(g->note, sizeof(g->note), "GPUs unknown: %s", strerror(-ret));
		return ret == -ENOMEM ? ret : 0;
	}
	for (int i = 0; i < t.ngpus; i++) {
		struct lp_inv_gpu *o = &g->gpu[g->n];
		struct lp_pci_inv p;

		if (g->n == LP_INV_MAX_GPUS) {
			g->more++;
			continue;
		}
		g->n++;
		snprintf(o->bdf, sizeof(o->bdf), "%s", t.gpus[i].bdf);
		snprintf(o->uuid, sizeof(o->uuid), "%s", t.gpus[i].uuid);
		lp_pci_inv_read(root, t.gpus[i].path, false, &p);
		snprintf(o->slot, sizeof(o->slot), "%s", p.slot);
		o->cur_gts = p.cur_gts;
		o->max_gts = p.max_gts;
		o->cur_width = p.cur_width;
		o->max_width = p.max_width;
		o->numa = p.numa;
	}
	lp_topo_free(&t);
	if (g->n && !root[0])
		nvml_fill(g);
	else if (g->n)
		snprintf(g->note, sizeof(g->note),
			 "serial, VBIOS: unknown (NVML is asked on the live system only)");
	return 0;
}
