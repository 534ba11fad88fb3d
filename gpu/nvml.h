/* SPDX-License-Identifier: MIT */
/* NVML loaded at run time (gpu/topo.c); internal to gpu/. */
#ifndef LP_GPU_NVML_H
#define LP_GPU_NVML_H

#include "gpu/gpu.h"

struct lp_nvml;

/* dlopen + nvmlInit_v2; -ENOENT with the reason in note when NVML is absent (not an error). */
int lp_nvml_open(struct lp_nvml **nv_p, char *note, size_t notelen);
void lp_nvml_close(struct lp_nvml *nv); /* NULL is fine */
/* Current PCIe generation and width of the GPU at bus_id. */
int lp_nvml_pcie_current(struct lp_nvml *nv, const char *bus_id, unsigned *gen_p,
			 unsigned *width_p);
int lp_sysfs_pcie_current(const char *bdf, unsigned *gen_p, unsigned *width_p);
/* PCIe generation for a link speed in GT/s (sysfs "32.0 GT/s PCIe"), 0 unknown. */
unsigned lp_gpu_pcie_gen_from_gts(double gts);
/* lp_gpu_topo_probe() that keeps NVML open for later reads (*nv_p may be NULL). */
int lp_gpu_topo_probe_nvml(struct lp_gpu_topo *t, const int *devs, int ndevs, struct lp_nvml **nv_p,
			   struct lp_fail *f);

#endif
