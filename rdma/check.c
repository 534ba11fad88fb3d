// SPDX-License-Identifier: MIT
#include "check.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/fail.h"
#include "common/lp.h"
#include "common/meta.h"
#include "common/pci.h"
#include "common/topo.h"
#include "common/units.h"
#include "rdma/check_roce.h"

#define ROCE_HDR_BYTES                                                                             \
	96 /* ib_core's iboe_get_mtu(): GRH 40 + UDP 8 + BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4 */
#define MEMLOCK_MIN (64ll << 10)

/* Best InfiniBand rate of an adapter, by PCI device id (pci.ids names, NVIDIA product briefs). */
static const struct {
	unsigned id;
	const char *model;
	double gbps;
	const char *speed;
} hca_models[] = {
	{ 0x1013, "ConnectX-4", 100, "EDR" },	 { 0x1017, "ConnectX-5", 100, "EDR" },
	{ 0x1019, "ConnectX-5 Ex", 100, "EDR" }, { 0x101b, "ConnectX-6", 200, "HDR" },
	{ 0x1021, "ConnectX-7", 400, "NDR" },	 { 0x1023, "ConnectX-8", 800, "XDR" },
};

struct ctx {
	const struct lp_check_opts *o;
	const char *root;
	struct lp_check_report *r;
	struct lp_topo topo;
};

static const char *const status_names[] = { "OK", "WARN", "FAIL" };

const char *lp_check_status_name(enum lp_check_status s)
{
	return (unsigned)s < LP_ARRAY_SIZE(status_names) ? status_names[s] : "?";
}

/* Add a line; fix is a printf format whose arguments follow detail's (NULL when OK). */
static void add(struct ctx *c, enum lp_check_status st, const char *item, const char *subject,
		const char *fix, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void add(struct ctx *c, enum lp_check_status st, const char *item, const char *subject,
		const char *fix, const char *fmt, ...)
{
	struct lp_check_line l = { .status = st };
	va_list ap;

	snprintf(l.item, sizeof(l.item), "%s", item);
	snprintf(l.subject, sizeof(l.subject), "%s", subject);
	va_start(ap, fmt);
	vsnprintf(l.detail, sizeof(l.detail), fmt, ap);
	va_end(ap);
	snprintf(l.fix, sizeof(l.fix), "%s", fix ? fix : "");
	lp_check_line_add(c->r, &l);
}

int lp_check_line_add(struct lp_check_report *r, const struct lp_check_line *l)
{
	if (r->n == r->cap) {
		unsigned cap = r->cap ? 2 * r->cap : 32;
		void *p = realloc(r->lines, cap * sizeof(*r->lines));

		if (!p)
			return r->err = -ENOMEM;
		r->lines = p;
		r->cap = cap;
	}
	r->lines[r->n++] = *l;
	return 0;
}

/* clang-format off */
const struct lp_record lp_check_line_record = LP_RECORD(struct lp_check_line,
	LP_REC_U32(struct lp_check_line, status, LP_REC_RANGE(LP_CHECK_OK, LP_CHECK_FAIL)),
	LP_REC_STR(struct lp_check_line, item),
	LP_REC_STR(struct lp_check_line, subject),
	LP_REC_STR(struct lp_check_line, detail),
	LP_REC_STR(struct lp_check_line, fix));
/* clang-format on */

/* <root><a><b> into buf; "" (and -ENAMETOOLONG) when it does not fit. */
static int rd(const struct ctx *c, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int rd(const struct ctx *c, char *buf, size_t len, const char *fmt, ...)
{
	char rel[PATH_MAX], path[PATH_MAX + 256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	buf[0] = '\0';
	if (n < 0 || (size_t)n >= sizeof(rel))
		return -ENAMETOOLONG;
	snprintf(path, sizeof(path), "%s%s", c->root, rel);
	return lp_read_line(path, buf, len);
}

/* ---- RDMA ports -------------------------------------------------------------- */

static void check_state(struct ctx *c, const char *subj, const char *dev, const char *port)
{
	char st[64], ph[64];

	rd(c, st, sizeof(st), "/sys/class/infiniband/%s/ports/%s/state", dev, port);
	if (!strcmp(st, "4: ACTIVE"))
		add(c, LP_CHECK_OK, "port_state", subj, NULL, "%s", st);
	else if (!strcmp(st, "2: INIT"))
		add(c, LP_CHECK_FAIL, "port_state", subj,
		    "the link is up but no subnet manager has configured the port: start opensm "
		    "(or check the fabric's SM)",
		    "%s", st);
	else if (!strcmp(st, "3: ARMED"))
		add(c, LP_CHECK_WARN, "port_state", subj,
		    "the SM has not activated the port yet: wait, or check the SM", "%s", st);
	else
		add(c, LP_CHECK_FAIL, "port_state", subj,
		    "no link: check the cable and the switch port (RoCE: the netdev must be up)",
		    "%s", st[0] ? st : "unreadable");

	rd(c, ph, sizeof(ph), "/sys/class/infiniband/%s/ports/%s/phys_state", dev, port);
	if (!strcmp(ph, "5: LinkUp"))
		add(c, LP_CHECK_OK, "phys_state", subj, NULL, "%s", ph);
	else if (!strcmp(ph, "3: Disabled"))
		add(c, LP_CHECK_FAIL, "phys_state", subj,
		    "the port is disabled: enable it (ibportstate ... enable, or on the switch)",
		    "%s", ph);
	else
		add(c, LP_CHECK_FAIL, "phys_state", subj,
		    "no physical link (Polling: no peer answers): check the cable, transceiver and "
		    "far end",
		    "%s", ph[0] ? ph : "unreadable");
}

/* "400 Gb/sec (4X NDR)": active rate, width and speed name; InfiniBand only is judged. */
static void check_rate(struct ctx *c, const char *subj, const char *dev, const char *port,
		       const char *ll, int nic)
{
	char rate[64], width[8] = "", speed[16] = "", idbuf[16];
	double gbps = 0;
	unsigned id = 0;

	rd(c, rate, sizeof(rate), "/sys/class/infiniband/%s/ports/%s/rate", dev, port);
	if (sscanf(rate, "%lf Gb/sec (%7[0-9X] %15[A-Z])", &gbps, width, speed) < 1) {
		add(c, LP_CHECK_WARN, "link_rate", subj,
		    "the driver reports no rate: check the port", "rate unreadable ('%s')", rate);
		return;
	}
	if (strcmp(ll, "InfiniBand")) {
		add(c, LP_CHECK_OK, "link_rate", subj, NULL, "%s (Ethernet: the netdev's speed)",
		    rate);
		return;
	}
	if (width[0] && strcmp(width, "4X")) {
		add(c, LP_CHECK_FAIL, "link_rate", subj,
		    "the link trained below 4X (lanes lost): reseat or replace the "
		    "cable/transceiver, check the switch port",
		    "%s: width %s of 4X", rate, width);
		return;
	}
	if (nic >= 0 && c->topo.nics[nic].path[0] &&
	    !rd(c, idbuf, sizeof(idbuf), "%s/device", c->topo.nics[nic].path))
		id = (unsigned)strtoul(idbuf, NULL, 16);
	for (unsigned i = 0; i < LP_ARRAY_SIZE(hca_models); i++) {
		if (hca_models[i].id != id)
			continue;
		if (gbps + 0.5 < hca_models[i].gbps)
			add(c, LP_CHECK_WARN, "link_rate", subj,
			    "check the cable (its rating), the switch port's speed and any forced "
			    "speed (mlxconfig/ibportstate)",
			    "%s, below the %s's %.0f Gb/s %s", rate, hca_models[i].model,
			    hca_models[i].gbps, hca_models[i].speed);
		else
			add(c, LP_CHECK_OK, "link_rate", subj, NULL, "%s, the %s's best", rate,
			    hca_models[i].model);
		return;
	}
	add(c, LP_CHECK_OK, "link_rate", subj, NULL,
	    "%s (adapter 0x%04x: best rate not known here)", rate, id);
}

/* The RoCE GID table: a RoCE v2 GID on netdev with a routable address. */
static void check_gid(struct ctx *c, const char *subj, const char *dev, const char *port,
		      const char *netdev)
{
	char rel[PATH_MAX], gid[64], type[32], nd[32];
	char **names;
	int n;

	snprintf(rel, sizeof(rel), "/sys/class/infiniband/%s/ports/%s/gids", dev, port);
	lp_dir_list(c->root, rel, &names, &n);
	for (int i = 0; i < n; i++) {
		if (rd(c, gid, sizeof(gid), "%s/%s", rel, names[i]) ||
		    rd(c, type, sizeof(type),
		       "/sys/class/infiniband/%s/ports/%s/gid_attrs/types/%s", dev, port,
		       names[i]) ||
		    rd(c, nd, sizeof(nd), "/sys/class/infiniband/%s/ports/%s/gid_attrs/ndevs/%s",
		       dev, port, names[i]))
			continue;
		if (strcmp(type, "RoCE v2") || strcmp(nd, netdev) || !strncmp(gid, "fe80:", 5) ||
		    !strcmp(gid, "0000:0000:0000:0000:0000:0000:0000:0000"))
			continue;
		add(c, LP_CHECK_OK, "roce_gid", subj, NULL, "GID index %s %s (RoCE v2 on %s)",
		    names[i], gid, netdev);
		lp_dir_free(names, n);
		return;
	}
	lp_dir_free(names, n);
	add(c, LP_CHECK_FAIL, "roce_gid", subj,
	    "give the netdev an IP address (RoCE v2 GIDs follow its addresses; link-local only is "
	    "not routable)",
	    "no RoCE v2 GID with a routable address on %s", netdev);
}

static void check_roce(struct ctx *c, const char *subj, const char *dev, const char *port)
{
	static const unsigned ib_mtus[] = { 4096, 2048, 1024, 512, 256 };
	char netdev[32], buf[32];
	long mtu;
	unsigned roce = 0;

	if (rd(c, netdev, sizeof(netdev), "/sys/class/infiniband/%s/ports/%s/gid_attrs/ndevs/0",
	       dev, port) ||
	    !netdev[0] || strchr(netdev, '/')) {
		add(c, LP_CHECK_FAIL, "netdev_link", subj,
		    "the RoCE port has no netdev (GID 0 has none): check the driver (rdma link "
		    "show)",
		    "no netdev");
		return;
	}
	rd(c, buf, sizeof(buf), "/sys/class/net/%s/operstate", netdev);
	if (!strcmp(buf, "up"))
		add(c, LP_CHECK_OK, "netdev_link", subj, NULL, "%s is up", netdev);
	else
		add(c, LP_CHECK_FAIL, "netdev_link", subj,
		    "bring the netdev up (ip link set IF up) and check its cable and switch port",
		    "%s is %s", netdev, buf[0] ? buf : "in an unknown state");

	rd(c, buf, sizeof(buf), "/sys/class/net/%s/mtu", netdev);
	mtu = strtol(buf, NULL, 10);
	for (unsigned i = 0; i < LP_ARRAY_SIZE(ib_mtus) && !roce; i++)
		if (mtu - ROCE_HDR_BYTES >= (long)ib_mtus[i])
			roce = ib_mtus[i];
	if (roce == 4096)
		add(c, LP_CHECK_OK, "roce_mtu", subj, NULL, "%s MTU %ld allows RoCE MTU 4096",
		    netdev, mtu);
	else
		add(c, LP_CHECK_WARN, "roce_mtu", subj,
		    "set the netdev MTU to 4200 or more (9000 end to end, switches included) for "
		    "RoCE MTU 4096",
		    "%s MTU %ld caps the RoCE (active) MTU at %u: the netdev MTU minus %d B of "
		    "headers",
		    netdev, mtu, roce, ROCE_HDR_BYTES);
	check_gid(c, subj, dev, port, netdev);
	lp_check_roce_port(c->r, c->o, c->root, subj, dev, port, netdev);
}

/* Every port of dev (or the one asked for); a device without it is a FAIL, never silence. */
static void check_ports(struct ctx *c, const char *dev)
{
	char rel[PATH_MAX], ll[32], subj[64];
	char **ports;
	int n, nic = lp_topo_nic_index(&c->topo, dev), seen = 0;

	snprintf(rel, sizeof(rel), "/sys/class/infiniband/%s/ports", dev);
	lp_dir_list(c->root, rel, &ports, &n);
	for (int i = 0; i < n; i++) {
		if (c->o->port && strtoul(ports[i], NULL, 10) != c->o->port)
			continue;
		seen++;
		snprintf(subj, sizeof(subj), "%s port %s", dev, ports[i]);
		rd(c, ll, sizeof(ll), "%s/%s/link_layer", rel, ports[i]);
		check_state(c, subj, dev, ports[i]);
		check_rate(c, subj, dev, ports[i], ll, nic);
		if (!strcmp(ll, "Ethernet"))
			check_roce(c, subj, dev, ports[i]);
	}
	lp_dir_free(ports, n);
	if (!seen && c->o->port)
		add(c, LP_CHECK_FAIL, "rdma_port", dev, "choose a port the device has (-i)",
		    "no port %u (%d port%s)", c->o->port, n, n == 1 ? "" : "s");
	else if (!seen)
		add(c, LP_CHECK_FAIL, "rdma_port", dev,
		    "the driver registered the device without ports: see dmesg",
		    "no ports under /sys/class/infiniband/%s/ports", dev);
}

/*
 * No RDMA device at all: a FAIL, never an empty report that reads OK (a node
 * whose driver failed to load must not pass pre-flight).
 */
static void check_any_device(struct ctx *c, int n)
{
	if (n)
		return;
	add(c, LP_CHECK_FAIL, "rdma_device", "host",
	    "load the adapter's driver (mlx5_ib for ConnectX; `dmesg | grep -i mlx` says why it "
	    "failed) and rdma-core's providers; Soft-RoCE: rdma link add rxe0 type rxe netdev IF",
	    "no RDMA device: /sys/class/infiniband is empty or absent");
}

/* ---- PCIe -------------------------------------------------------------------- */

/* The link of the function at path against its own and its slot's (parent bridge's) maximum. */
static void check_pcie(struct ctx *c, const char *subj, const char *path, bool gpu)
{
	struct lp_pci_link l, up;
	char parent[LP_TOPO_PATH_LEN], *slash;
	double max_gts;
	unsigned max_w;

	if (lp_pci_link_read(c->root, path, &l)) {
		add(c, LP_CHECK_WARN, "pcie_link", subj,
		    "the kernel shows no PCIe link attributes here", "link speed/width unreadable");
		return;
	}
	max_gts = l.max_gts;
	max_w = l.max_width;
	snprintf(parent, sizeof(parent), "%s", path);
	slash = strrchr(parent, '/');
	if (slash && strstr(parent, "/pci")) {
		*slash = '\0';
		if (!lp_pci_link_read(c->root, parent, &up) && up.max_gts > 0) {
			max_gts = LP_MIN(max_gts, up.max_gts);
			max_w = LP_MIN(max_w, up.max_width);
		}
	}
	if (l.cur_width < max_w)
		add(c, LP_CHECK_FAIL, "pcie_link", subj,
		    "the link lost lanes: reseat the card, check the riser/cable and the slot "
		    "(lspci -vv LnkSta)",
		    "PCIe Gen%u x%u, down-trained from x%u", lp_pcie_gen(l.cur_gts), l.cur_width,
		    max_w);
	else if (l.cur_gts + 0.05 < max_gts)
		add(c, LP_CHECK_WARN, "pcie_link", subj,
		    gpu ? "GPUs lower the link speed when idle: re-check under load (nvidia-smi -q "
			  "-d PCIE); if it stays low, check the BIOS PCIe speed and the riser"
			: "check the BIOS PCIe speed setting, the riser and the slot (lspci -vv "
			  "LnkSta)",
		    "PCIe %.1f GT/s (Gen%u) x%u, below the %.1f GT/s (Gen%u) it can run", l.cur_gts,
		    lp_pcie_gen(l.cur_gts), l.cur_width, max_gts, lp_pcie_gen(max_gts));
	else if (max_gts + 0.05 < l.max_gts || max_w < l.max_width)
		add(c, LP_CHECK_WARN, "pcie_link", subj,
		    "move the card to a slot that runs its full speed and width",
		    "PCIe Gen%u x%u: the slot limits it (the device can run Gen%u x%u)",
		    lp_pcie_gen(l.cur_gts), l.cur_width, lp_pcie_gen(l.max_gts), l.max_width);
	else
		add(c, LP_CHECK_OK, "pcie_link", subj, NULL,
		    "PCIe Gen%u x%u (%.1f GT/s), its maximum", lp_pcie_gen(l.cur_gts), l.cur_width,
		    l.cur_gts);
}

static int node_count(const struct ctx *c)
{
	char **names;
	int n, nodes = 0;

	lp_dir_list(c->root, "/sys/devices/system/node", &names, &n);
	for (int i = 0; i < n; i++)
		nodes += !strncmp(names[i], "node", 4) && names[i][4] >= '0' && names[i][4] <= '9';
	lp_dir_free(names, n);
	return nodes;
}

static void check_numa(struct ctx *c, const char *subj, int numa, int nodes)
{
	if (numa >= 0 || nodes <= 1)
		add(c, LP_CHECK_OK, "numa", subj, NULL, "NUMA node %d%s", numa,
		    numa < 0 ? " (one node: nothing to choose)" : "");
	else
		add(c, LP_CHECK_WARN, "numa", subj,
		    "enable the BIOS's NUMA/ACPI SRAT reporting; bind by hand (numactl) until then",
		    "NUMA node unknown (-1) on a %d-node host", nodes);
}

/* The closest usable NIC, else (every port down: that has its own line) the closest NIC at all. */
static int path_nic(const struct lp_topo *t, int g, int *nic_p)
{
	enum lp_topo_dist best = LP_TOPO_UNKNOWN + 1;

	if (!lp_topo_best_nic(t, g, nic_p))
		return 0;
	for (int n = 0; n < t->nnics; n++) {
		enum lp_topo_dist d = lp_topo_distance(t, g, n);

		if (d < best) {
			best = d;
			*nic_p = n;
		}
	}
	return best <= LP_TOPO_UNKNOWN ? 0 : -ENODEV;
}

static void check_gpu_path(struct ctx *c, const char *subj, int g)
{
	const struct lp_topo_gpu *gpu = &c->topo.gpus[g];
	const struct lp_topo_nic *nic;
	enum lp_topo_dist d;
	char bdf[LP_TOPO_BDF_LEN];
	unsigned ctrl = 0;
	int n, acs;

	if (path_nic(&c->topo, g, &n)) {
		add(c, LP_CHECK_WARN, "gpu_nic_path", subj,
		    "no RDMA device: GPUDirect RDMA cannot run", "no NIC");
		return;
	}
	nic = &c->topo.nics[n];
	d = lp_topo_distance(&c->topo, g, n);
	acs = lp_pci_path_acs(c->root, gpu->path, nic->path, bdf, sizeof(bdf), &ctrl);
	if (acs == 1)
		add(c, LP_CHECK_FAIL, "gpu_nic_path", subj,
		    "disable ACS P2P redirect on the bridges between them (BIOS, or setpci "
		    "ECAP_ACS+6.w=0 at boot); "
		    "leave it on only where VMs need isolation",
		    "closest NIC %s (%s), but bridge %s redirects peer-to-peer traffic (ACS "
		    "control 0x%04x): "
		    "GPUDirect RDMA goes through the root complex or fails",
		    nic->name, lp_topo_dist_name(d), bdf, ctrl);
	else if (d == LP_TOPO_SYS || d == LP_TOPO_UNKNOWN)
		add(c, LP_CHECK_WARN, "gpu_nic_path", subj,
		    "put a NIC on this GPU's socket (or PCIe switch) for GPUDirect RDMA",
		    "closest NIC %s is %s (%s)", nic->name, lp_topo_dist_name(d),
		    lp_topo_dist_help(d));
	else if (acs == -EACCES)
		add(c, LP_CHECK_WARN, "gpu_nic_path", subj,
		    "run the check as root: the ACS capability is in the extended config space",
		    "closest NIC %s (%s); ACS on the bridges between them unreadable", nic->name,
		    lp_topo_dist_name(d));
	else
		add(c, LP_CHECK_OK, "gpu_nic_path", subj, NULL,
		    "closest NIC %s (%s), no ACS redirect between them", nic->name,
		    lp_topo_dist_name(d));
}

/* ---- host -------------------------------------------------------------------- */

static void check_iommu(struct ctx *c)
{
	const char *path = NULL;
	char type[32];
	char **units;
	int n;

	lp_dir_list(c->root, "/sys/class/iommu", &units, &n);
	lp_dir_free(units, n);
	if (!n) {
		add(c, LP_CHECK_OK, "iommu", "host", NULL, "no IOMMU active");
		return;
	}
	for (int i = 0; i < c->topo.nnics && !path; i++)
		if (c->topo.nics[i].path[0])
			path = c->topo.nics[i].path;
	for (int i = 0; i < c->topo.ngpus && !path; i++)
		path = c->topo.gpus[i].path;
	if (!path || rd(c, type, sizeof(type), "%s/iommu_group/type", path)) {
		add(c, LP_CHECK_OK, "iommu", "host", NULL,
		    "%d IOMMU unit(s); no device group to judge", n);
		return;
	}
	if (!strcmp(type, "identity"))
		add(c, LP_CHECK_OK, "iommu", "host", NULL,
		    "IOMMU on, devices in passthrough (identity)");
	else
		add(c, LP_CHECK_WARN, "iommu", "host",
		    "boot with iommu=pt (intel_iommu=on iommu=pt / amd_iommu=pt): translation "
		    "costs RDMA throughput and can break GPUDirect peer-to-peer",
		    "IOMMU translates device DMA (group type %s)", type);
}

static void check_gpudirect(struct ctx *c)
{
	char ver[256], rel[64];
	int n;
	char **m;

	if (!c->topo.ngpus)
		return;
	lp_dir_list(c->root, "/sys/module/nvidia_peermem", &m, &n);
	lp_dir_free(m, n);
	if (n) {
		add(c, LP_CHECK_OK, "gpudirect", "host", NULL, "nvidia-peermem loaded");
		return;
	}
	rd(c, ver, sizeof(ver), "/proc/driver/nvidia/version");
	if (strstr(ver, "Open Kernel")) {
		add(c, LP_CHECK_OK, "gpudirect", "host", NULL,
		    "dma-buf usable: NVIDIA open kernel module (nvidia-peermem not loaded)");
		return;
	}
	snprintf(rel, sizeof(rel), "/sys/module/nvidia");
	lp_dir_list(c->root, rel, &m, &n);
	lp_dir_free(m, n);
	add(c, LP_CHECK_FAIL, "gpudirect", "host",
	    n ? "modprobe nvidia-peermem, or install the NVIDIA open kernel module for dma-buf"
	      : "load the NVIDIA driver (modprobe nvidia), then nvidia-peermem",
	    n ? "neither nvidia-peermem nor the open kernel module (dma-buf) is loaded"
	      : "the NVIDIA driver is not loaded");
}

static void check_memlock(struct ctx *c)
{
	long long m = c->o->memlock;

	if (c->o->ipc_lock || m < 0)
		add(c, LP_CHECK_OK, "memlock", "host", NULL, "%s",
		    c->o->ipc_lock ? "CAP_IPC_LOCK: no memlock limit applies"
				   : "memlock unlimited");
	else
		add(c, m < MEMLOCK_MIN ? LP_CHECK_FAIL : LP_CHECK_WARN, "memlock", "host",
		    "ulimit -l unlimited (limits.conf: * - memlock unlimited; systemd: "
		    "LimitMEMLOCK=infinity)",
		    "memlock limit %lld KiB: registrations beyond it fail", m >> 10);
}

static void check_governor(struct ctx *c)
{
	char **cpus, gov[32], other[32] = "";
	int n, total = 0, slow = 0;

	lp_dir_list(c->root, "/sys/devices/system/cpu", &cpus, &n);
	for (int i = 0; i < n; i++) {
		if (strncmp(cpus[i], "cpu", 3) || cpus[i][3] < '0' || cpus[i][3] > '9' ||
		    rd(c, gov, sizeof(gov), "/sys/devices/system/cpu/%s/cpufreq/scaling_governor",
		       cpus[i]))
			continue;
		total++;
		if (strcmp(gov, "performance")) {
			slow++;
			snprintf(other, sizeof(other), "%s", gov);
		}
	}
	lp_dir_free(cpus, n);
	if (!total)
		add(c, LP_CHECK_OK, "cpu_governor", "host", NULL,
		    "no cpufreq (fixed clock or a VM)");
	else if (!slow)
		add(c, LP_CHECK_OK, "cpu_governor", "host", NULL, "performance on %d CPUs", total);
	else
		add(c, LP_CHECK_WARN, "cpu_governor", "host",
		    "cpupower frequency-set -g performance (latency tests wake a slow core)",
		    "%d of %d CPUs use '%s'", slow, total, other);
}

/* ---- entry points ------------------------------------------------------------ */

void lp_check_opts_live(struct lp_check_opts *o)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { 0 };
	struct rlimit rl;

	o->memlock = !getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY
			     ? (long long)rl.rlim_cur
			     : -1;
	o->ipc_lock = !syscall(SYS_capget, &h, d) && (d[0].effective & (1u << CAP_IPC_LOCK));
}

int lp_check_run(const struct lp_check_opts *o, struct lp_check_report *r, struct lp_fail *f)
{
	struct ctx c = { .o = o, .root = o->root ? o->root : "", .r = r };
	char subj[64];
	char **devs;
	int n, nodes, ret;

	memset(r, 0, sizeof(*r));
	ret = lp_topo_scan(c.root, &c.topo, f);
	if (ret)
		return ret;
	lp_dir_list(c.root, "/sys/class/infiniband", &devs, &n);
	if (o->dev && lp_topo_nic_index(&c.topo, o->dev) < 0) {
		ret = lp_fail_set(f, -ENODEV, "--check: no RDMA device %s", o->dev);
		goto out;
	}
	nodes = node_count(&c);
	check_any_device(&c, n);
	for (int i = 0; i < n; i++) {
		int nic = lp_topo_nic_index(&c.topo, devs[i]);

		if (o->dev && strcmp(devs[i], o->dev))
			continue;
		check_ports(&c, devs[i]);
		if (nic >= 0 && c.topo.nics[nic].path[0]) {
			check_pcie(&c, devs[i], c.topo.nics[nic].path, false);
			check_numa(&c, devs[i], c.topo.nics[nic].numa, nodes);
		}
	}
	for (int g = 0; g < c.topo.ngpus; g++) {
		snprintf(subj, sizeof(subj), "GPU %s", c.topo.gpus[g].bdf);
		check_pcie(&c, subj, c.topo.gpus[g].path, true);
		check_numa(&c, subj, c.topo.gpus[g].numa, nodes);
		check_gpu_path(&c, subj, g);
	}
	check_iommu(&c);
	check_gpudirect(&c);
	check_memlock(&c);
	check_governor(&c);
	ret = r->err;
out:
	lp_dir_free(devs, n);
	lp_topo_free(&c.topo);
	return ret;
}

void lp_check_free(struct lp_check_report *r)
{
	free(r->lines);
	memset(r, 0, sizeof(*r));
}

enum lp_check_status lp_check_worst(const struct lp_check_report *r)
{
	enum lp_check_status w = LP_CHECK_OK;

	for (unsigned i = 0; i < r->n; i++)
		w = LP_MAX(w, r->lines[i].status);
	return w;
}

void lp_check_print(const struct lp_check_report *r, FILE *f)
{
	for (unsigned i = 0; i < r->n; i++) {
		const struct lp_check_line *l = &r->lines[i];

		fprintf(f, "%-4s  %-12s  %-24s  %s\n", lp_check_status_name(l->status), l->item,
			l->subject, l->detail);
		if (l->fix[0])
			fprintf(f, "      fix: %s\n", l->fix);
	}
}

void lp_check_json(const struct lp_check_report *r, struct lp_json *j)
{
	lp_json_str(j, "worst", lp_check_status_name(lp_check_worst(r)));
	lp_json_arr_begin(j, "checks");
	for (unsigned i = 0; i < r->n; i++) {
		const struct lp_check_line *l = &r->lines[i];

		lp_json_obj_begin(j, NULL);
		lp_json_str(j, "status", lp_check_status_name(l->status));
		lp_json_str(j, "item", l->item);
		lp_json_str(j, "subject", l->subject);
		lp_json_str(j, "detail", l->detail);
		lp_json_str(j, "fix", l->fix[0] ? l->fix : NULL);
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);
}
