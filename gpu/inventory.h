/* SPDX-License-Identifier: MIT */
/*
 * The GPUs of this host for the inventory (rdma/inventory.h has the ports): each GPU's PCI
 * address, name, serial number, VBIOS version, UUID and board part number from NVML (loaded at
 * run time: libnvidia-ml.so.1, as gpu/topo.c does; nothing links it), and its PCIe link and
 * slot from sysfs. Built with or without CUDA: lp-rdma and lp-sweep record GPUs on hosts where
 * lp-gpu was not built. Without NVML the sysfs facts stay and note says why the rest is
 * unknown; without GPUs n is 0.
 */
#ifndef LP_GPU_INVENTORY_H
#define LP_GPU_INVENTORY_H

#include <stdint.h>

#include "common/record.h"

#define LP_INV_MAX_GPUS 8 /* GPUs a node record carries (more: counted in `more`) */

struct lp_inv_gpu {
	char bdf[16];	 /* "0000:1b:00.0" */
	char name[40];	 /* "NVIDIA H100 80GB HBM3" */
	char serial[20]; /* nvmlDeviceGetSerial: the board's serial number */
	char vbios[20];	 /* nvmlDeviceGetVbiosVersion */
	char uuid[44];	 /* "GPU-3f1c..." */
	char part[20];	 /* nvmlDeviceGetBoardPartNumber */
	char slot[24];	 /* physical slot or label (common/pciinv.h), "" unknown */
	double cur_gts, max_gts;
	uint32_t cur_width, max_width;
	int32_t numa;
};

struct lp_inv_gpus {
	uint32_t n;
	struct lp_inv_gpu gpu[LP_INV_MAX_GPUS];
	uint32_t more; /* GPUs beyond LP_INV_MAX_GPUS, not listed */
	char note[96]; /* why some fields are unknown ("NVML not loaded: ..."), else "" */
};

/*
 * The GPUs under root ("" the live system; NVML is asked only then). 0 (also with no GPU, or
 * without NVML: g->note says so), -ENOMEM.
 */
int lp_gpu_inv_read(const char *root, struct lp_inv_gpus *g);

extern const struct lp_record lp_inv_gpu_record;
extern const struct lp_record lp_inv_gpus_record;

#endif
