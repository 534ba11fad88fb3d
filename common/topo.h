/* SPDX-License-Identifier: MIT */
/*
 * GPU–NIC PCIe affinity from sysfs.
 *
 * lp_topo_scan() reads, under a root prefix ("" for the live system, a fixture
 * directory in tests):
 *   <root>/sys/class/infiniband/<name>/device        link to the NIC's PCI function
 *   <root>/sys/class/infiniband/<name>/device/numa_node
 *   <root>/sys/class/infiniband/<name>/device/net/<netdev>
 *   <root>/sys/class/infiniband/<name>/ports/1/link_layer
 *   <root>/sys/bus/pci/devices/<bdf>                link to each PCI function
 *   <root>/sys/bus/pci/devices/<bdf>/{vendor,class,device,numa_node}
 * NVIDIA GPUs are PCI functions with vendor 0x10de and class 0x0300xx (VGA) or
 * 0x0302xx (3D controller); NVSwitches (class 0x0680xx) and other vendors'
 * display devices (a BMC's VGA) are not GPUs. Every link is resolved to its
 * PCI path, e.g. /sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0:
 * "pci0000:15" names the host bridge (root complex: PCI domain 0000, root bus
 * 0x15), the functions after it run from the root port down to the device.
 *
 * and, where they exist, <root>/sys/class/infiniband/<name>/ports/1/state and
 * <root>/proc/driver/nvidia/gpus/<bdf>/information (the GPU's UUID).
 *
 * Ordering:
 *   GPUs are sorted by PCI address (domain, bus, device, function). That is
 *   the order CUDA uses with CUDA_DEVICE_ORDER=PCI_BUS_ID, and the order of
 *   nvidia-smi / NVML indexes, so gpus[i].index == i is the CUDA device index
 *   under PCI_BUS_ID. (CUDA's default, FASTEST_FIRST, equals it on machines
 *   whose GPUs are all the same model; launchers should set PCI_BUS_ID.)
 *   NICs are sorted by name in natural order (mlx5_2 before mlx5_10); NIC<i>
 *   in the printed matrix is nics[i].
 *
 * Distance rule (nvidia-smi topo -m vocabulary). For a GPU g and a NIC n, let
 * A and B be the lists of PCI functions below the host bridge on each one's
 * path (A[0] is the root port, the last element the device itself), and c the
 * length of their common prefix (the bridges they share):
 *   1. either device has no PCI path (a software device such as rxe)
 *                                                 -> LP_TOPO_UNKNOWN
 *   2. different host bridges (pciDDDD:BB differs):
 *        both NUMA nodes known (>= 0) and different -> LP_TOPO_SYS
 *        otherwise (same node, or unknown: -1 is what single-node
 *        machines report)                          -> LP_TOPO_NODE
 *   3. same host bridge, c == 0 (different root ports) -> LP_TOPO_PHB
 *   4. same host bridge, c >= 1: a = |A| - c and b = |B| - c are the steps
 *      from the lowest shared bridge down to each device. If a <= 2 and
 *      b <= 2, each device sits directly on the shared bridge or on one
 *      downstream port of it: one PCIe switch is crossed -> LP_TOPO_PIX;
 *      otherwise more than one switch level is crossed   -> LP_TOPO_PXB.
 * A PCIe switch shows up as an upstream port plus downstream ports; the rule
 * counts it once, as nvidia-smi's "single PCIe bridge" does.
 *
 * The enum's value is the rank used for choosing: lower is closer.
 * The library never prints warnings about the choice: a caller that gets
 * LP_TOPO_SYS for the chosen pair must warn (the pair crosses sockets and
 * GPUDirect RDMA traffic goes over the inter-socket link).
 */
#ifndef LP_TOPO_H
#define LP_TOPO_H

#include <sched.h>
#include <stdio.h>

#include "json.h"

struct lp_fail; /* common/fail.h: the cause of a failure (may be NULL) */

#define LP_TOPO_BDF_LEN	    24	/* "0000:1b:00.0" and longer VMD domains */
#define LP_TOPO_PATH_LEN    512 /* sysfs device path */
#define LP_TOPO_NAME_LEN    64	/* RDMA device name */
#define LP_TOPO_NETDEV_LEN  16	/* IFNAMSIZ */
#define LP_TOPO_MAX_NETDEVS 4	/* netdevs kept per NIC (more are ignored) */

/* PCIe relation of a GPU and a NIC; the value is the rank (lower = closer). */
enum lp_topo_dist {
	LP_TOPO_PIX = 0,     /* at most one PCIe switch between them */
	LP_TOPO_PXB = 1,     /* several switch levels, same root port, no host bridge */
	LP_TOPO_PHB = 2,     /* same host bridge (root complex), different root ports */
	LP_TOPO_NODE = 3,    /* different host bridges, same NUMA node */
	LP_TOPO_SYS = 4,     /* different NUMA nodes: crosses the inter-socket link */
	LP_TOPO_UNKNOWN = 5, /* no PCI path for one of them, or a bad index */
};

struct lp_topo_gpu {
	int index;     /* position in gpus[] (PCI order, as nvidia-smi numbers them) */
	int cuda;      /* CUDA ordinal after lp_topo_set_visible() (CUDA_VISIBLE_DEVICES);
				      * -1 hidden from CUDA; == index until then */
	char uuid[48]; /* "GPU-3f1c...", from the driver's proc file; "" unknown */
	char bdf[LP_TOPO_BDF_LEN];   /* PCI address as sysfs writes it, "0000:1b:00.0" */
	unsigned device_id;	     /* PCI device id (0x2330 = H100 SXM5), 0 if unreadable */
	int numa;		     /* NUMA node from sysfs numa_node; -1 unknown */
	char path[LP_TOPO_PATH_LEN]; /* resolved sysfs path without the root prefix,
				      * "/sys/devices/pci0000:15/.../0000:1b:00.0" */
};

struct lp_topo_nic {
	char name[LP_TOPO_NAME_LEN]; /* RDMA device name, "mlx5_0" */
	char bdf[LP_TOPO_BDF_LEN];   /* PCI address; "" when not a PCI device */
	int numa;		     /* NUMA node of the PCI function; -1 unknown */
	char path[LP_TOPO_PATH_LEN]; /* resolved sysfs path of `device` without the
				      * root prefix; "" when there is no device link */
	char link_layer[16];	     /* port 1: "InfiniBand", "Ethernet"; "" unknown */
	int port_state;	   /* port 1: 4 = ACTIVE (ibv_port_state), from ports/1/state; 0 unknown */
	unsigned nnetdevs; /* entries used in netdevs[] */
	char netdevs[LP_TOPO_MAX_NETDEVS][LP_TOPO_NETDEV_LEN]; /* device/net/<name>, sorted */
};

struct lp_topo {
	struct lp_topo_gpu *gpus; /* ngpus entries sorted by bdf; NULL when 0 */
	int ngpus;
	struct lp_topo_nic *nics; /* nnics entries sorted by name; NULL when 0 */
	int nnics;
};

/*
 * Fill t from the sysfs tree under root ("" or NULL: the live system). A
 * missing infiniband class or PCI bus directory means zero NICs or GPUs, not
 * an error. Returns 0, -ENOENT when a non-empty root does not exist, -ENOMEM,
 * or -ENAMETOOLONG, with the cause in f. On error t is left empty (safe to
 * lp_topo_free).
 */
int lp_topo_scan(const char *root, struct lp_topo *t, struct lp_fail *f);
void lp_topo_free(struct lp_topo *t);

/* Relation of gpus[gpu] and nics[nic]; LP_TOPO_UNKNOWN for a bad index. */
enum lp_topo_dist lp_topo_distance(const struct lp_topo *t, int gpu, int nic);
/* "PIX", "PXB", "PHB", "NODE", "SYS", "?" */
const char *lp_topo_dist_name(enum lp_topo_dist d);
/* One-line meaning of the class, for legends. */
const char *lp_topo_dist_help(enum lp_topo_dist d);

/*
 * CUDA ordinals from a CUDA_VISIBLE_DEVICES value (NULL: unset, every GPU
 * visible in PCI order). Entries are taken in order as CUDA does: an index
 * (into PCI order, i.e. with CUDA_DEVICE_ORDER=PCI_BUS_ID) or a UUID or a
 * unique UUID prefix ("GPU-3f1c"); the list ends at the first entry that
 * names no GPU or one already named. Sets every gpus[g].cuda; returns the
 * number of visible GPUs.
 */
int lp_topo_set_visible(struct lp_topo *t, const char *cuda_visible_devices);

/* Index in gpus[] of the GPU with CUDA ordinal `cuda` (after lp_topo_set_visible); -1 if none. */
int lp_topo_gpu_of_cuda(const struct lp_topo *t, int cuda);

/*
 * Can `--dev auto` pick nics[nic]? Its port 1 is ACTIVE (or its state is
 * unknown), and when any NIC here has an active InfiniBand port, it is
 * InfiniBand too: Ethernet ports beside an InfiniBand compute fabric are the
 * storage / in-band NICs (DGX layout), not what a GPU test should use.
 */
int lp_topo_nic_usable(const struct lp_topo *t, int nic);

/*
 * Closest usable NIC for GPU `gpu` (ties: lowest NIC index) into *nic_p.
 * Returns 0, -EINVAL for a bad gpu index, -ENODEV when there is no usable NIC.
 */
int lp_topo_best_nic(const struct lp_topo *t, int gpu, int *nic_p);
/* Closest CUDA-visible GPU for NIC `nic` (ties: lowest GPU index); -EINVAL / -ENODEV as above. */
int lp_topo_best_gpu(const struct lp_topo *t, int nic, int *gpu_p);
/*
 * Closest (visible GPU, usable NIC) pair over all pairs, for `--gpu auto --dev
 * auto` (ties: lowest GPU index, then lowest NIC index). -ENODEV when there
 * is no such pair.
 */
int lp_topo_best_pair(const struct lp_topo *t, int *gpu_p, int *nic_p);
/*
 * Rail `rail` of this host (lp-sweep --rails): the GPU with CUDA ordinal
 * `rail` and the usable NIC closest to it. Without GPUs, the rail-th usable
 * NIC and *gpu_p = -1. -ENODEV when the rail does not exist.
 */
int lp_topo_rail(const struct lp_topo *t, int rail, int *gpu_p, int *nic_p);

/*
 * What would break or slow GPUDirect RDMA between gpus[gpu] and nics[nic],
 * from sysfs under root: ACS P2P Request/Completion Redirect enabled on a
 * bridge between them (read from each bridge's extended config space, which
 * sysfs shows to root only), or an IOMMU translating the GPU's DMA
 * (iommu_group/type DMA or DMA-FQ). Returns 1 with one line in why when
 * found, 0 when nothing was found, -EACCES when some config space could not
 * be read (not root: ACS unknown).
 */
int lp_topo_p2p_check(const char *root, const struct lp_topo *t, int gpu, int nic, char *why,
		      size_t len);

/* Index of the NIC named `name` (RDMA name, or one of its netdevs); -ENODEV if none. */
int lp_topo_nic_index(const struct lp_topo *t, const char *name);

/*
 * The GPU×NIC matrix like `nvidia-smi topo -m`: a row per GPU (its cells,
 * NUMA node, bus id and CUDA ordinal or "hidden"), a NUMA row for the NICs
 * (ports not active marked), then the legend and the
 * NIC legend ("NIC0: mlx5_0 0000:18:00.0 ibp24s0 InfiniBand").
 */
void lp_topo_print(const struct lp_topo *t, FILE *f);

/*
 * Write members "gpus" (array of {index, bdf, device_id, numa, path}),
 * "nics" (array of {index, name, bdf, numa, path, link_layer, netdevs[]})
 * and "distance" (array per GPU of arrays per NIC of class names) into the
 * current JSON object. Paths and bdfs that are empty are written as null.
 */
void lp_topo_json(const struct lp_topo *t, struct lp_json *j);

/*
 * Parse a kernel cpulist ("0-3,8,10-11") into set (allocated with CPU_ALLOC
 * for setsize bytes, cleared here). Returns 0, -EINVAL on bad syntax, -ERANGE
 * when a CPU does not fit in setsize.
 */
int lp_topo_cpulist_parse(const char *list, cpu_set_t *set, size_t setsize);

/*
 * Bind the calling thread (call it before starting threads: they inherit it)
 * to the CPUs of NUMA node `node`, from /sys/devices/system/node/node<N>/cpulist,
 * with sched_setaffinity, and make the node the preferred node for memory
 * (set_mempolicy MPOL_PREFERRED; a kernel or sandbox that refuses it leaves
 * memory policy unchanged, with a warning). node -1 is a no-op returning 0.
 * Returns 0, -ENOENT when the node does not exist, -EINVAL for a node < -1
 * or an empty cpulist, or sched_setaffinity's -errno (the last two with their
 * cause in fail).
 */
int lp_numa_bind(int node, struct lp_fail *fail);

#endif
