/* SPDX-License-Identifier: MIT */
/*
 * Inventory of RDMA ports, for every document and report a vendor is handed: per port the node
 * and port GUID, LID (InfiniBand) or GID (RoCE), the HCA's type, PSID (board_id), firmware,
 * netdev and MAC, the active rate and, where the fabric shows it, the port's best width and
 * speed, the PCI function (common/pciinv.h: id, slot, PCIe link, NUMA, VPD part number and
 * serial), and the switch and port at the other end of the cable:
 *   InfiniBand  infiniband-diags' smpquery over the direct route 0,PORT (NodeDesc and NodeInfo
 *               of the neighbour: its name, GUID and LocalPort; PortInfo of this port and of the
 *               switch port: the widths and speeds both support), where smpquery is installed
 *               and the umad device may be opened (root, usually);
 *   RoCE        lldpd's `lldpctl -f keyvalue IF` (chassis name and MAC, port), where lldpd runs.
 * Everything else comes from sysfs under a root prefix ("" the live system, a fixture tree in
 * tests). What cannot be known says "unknown" and why (the note members), never a guess.
 * The host's whole inventory (every port and every GPU) is what `lp-rdma --inventory` prints.
 */
#ifndef LP_RDMA_INVENTORY_H
#define LP_RDMA_INVENTORY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/json.h"
#include "common/pciinv.h"
#include "common/record.h"
#include "gpu/inventory.h"

/* The far end of the port's cable. */
struct lp_inv_peer {
	char name[64]; /* switch node description ("MF0;sw-leaf-07:MQM9790/U1"), LLDP chassis name */
	char guid[20];	    /* its node GUID (IB, "0x..."), chassis MAC (LLDP) */
	char port[32];	    /* the switch port: LocalPort ("17"), LLDP port id ("Ethernet12") */
	uint32_t max_width; /* lanes the switch port supports; 0 unknown */
	char max_speed[8];  /* its best speed ("NDR"); "" unknown */
	char source[24];    /* "smpquery", "lldpctl"; "" none */
	char note[96];	    /* why unknown, "" when found */
};

struct lp_inv_port {
	char dev[32]; /* "mlx5_0" */
	uint32_t port;
	char link_layer[12]; /* "InfiniBand", "Ethernet" */
	char state[16];	     /* "ACTIVE" */
	char node_guid[20];  /* "a088:c203:00b4:1a2e" as sysfs writes it */
	char port_guid[20];  /* InfiniBand: the low 64 bits of GID 0; "" on RoCE */
	uint32_t lid;	     /* InfiniBand; 0 on RoCE */
	char gid[40];	     /* RoCE: the GID in use (or the first RoCE v2 one), IB: GID 0 */
	char hca[16];	     /* hca_type: "MT4129" */
	char psid[20];	     /* board_id: the PSID, "MT_0000000838" */
	char fw[24];
	char netdev[16];
	char mac[20];
	char rate[32];	/* "400 Gb/sec (4X NDR)" */
	uint32_t width; /* active lanes */
	char speed[8];	/* active speed name ("NDR"; RoCE: "") */
	uint32_t max_width; /* lanes this port supports (smpquery PortInfo; ethtool for RoCE); 0 unknown */
	char max_speed[8]; /* its best speed name; "" unknown */
	char max_note[64]; /* where max_* came from, or why unknown */
	struct lp_pci_inv pci;
	struct lp_inv_peer peer;
};

/* What to read: the root, and whether to ask helper programs (the live system only). */
struct lp_inv_opts {
	const char *root; /* "" or NULL: live */
	bool vpd;	  /* read the VPD (slow on some devices: config cycles) */
	bool tools;	  /* run smpquery / lldpctl (live system only) */
	int timeout_ms;	  /* per helper run (default 5000) */
};

/*
 * The inventory of port `port` of RDMA device `dev`; gid_index >= 0 names the GID in use.
 * 0, or -ENOENT when the device or port is not there (p names them, every field unknown).
 */
int lp_inv_port_read(const struct lp_inv_opts *o, const char *dev, unsigned port, int gid_index,
		     struct lp_inv_port *p);

/* The host: every RDMA port and every GPU (lp-rdma --inventory). */
#define LP_INV_MAX_PORTS 32
struct lp_inv_host {
	char host[64];
	uint32_t nports;
	struct lp_inv_port ports[LP_INV_MAX_PORTS];
	struct lp_inv_gpus gpus;
};

/* Fill h (every port of every device, then the GPUs). 0 or -ENOMEM. */
int lp_inv_host_read(const struct lp_inv_opts *o, struct lp_inv_host *h);
/* A table for people: one block per port, one line per GPU, "unknown (why)" for the gaps. */
void lp_inv_host_print(const struct lp_inv_host *h, FILE *f);
struct lp_check_report;
/* One OK line (item "inventory") per port and per GPU into r: the inventory in --check's report. */
void lp_inv_host_check_lines(const struct lp_inv_host *h, struct lp_check_report *r);
/* {"host", "ports": [...], "gpus": {...}} as members of the current object. */
void lp_inv_host_json(const struct lp_inv_host *h, struct lp_json *j);

/* ---- the helpers' text (rdma/ibdiag.c), exposed for the tests ---- */

/*
 * A field of infiniband-diags' dump ("LocalPort:.......................17", "Node
 * Description:.....sw01"): its value without the padding dots. 0 or -ENOENT.
 */
int lp_ibdiag_field(const char *text, const char *name, char *val, size_t len);
/* The widest lane count in "1X or 4X" (LinkWidthSupported); 0 when none. */
unsigned lp_ibdiag_max_width(const char *supported);
/*
 * The best speed name over PortInfo's LinkSpeedSupported, LinkSpeedExtSupported and
 * LinkSpeedExt2Supported values ("2.5 Gbps or 5.0 Gbps or 10.0 Gbps", "14.0625 Gbps or
 * 25.78125 Gbps or 53.125 Gbps or 106.25 Gbps", "212.5 Gbps"; NULL for one not shown): "SDR"
 * .. "XDR", or NULL.
 */
const char *lp_ibdiag_max_speed(const char *sup, const char *ext, const char *ext2);
/*
 * lldpctl -f keyvalue output for interface ifname: the neighbour into peer (name: chassis.name,
 * else chassis.mac; guid: chassis.mac; port: port.ifname, else port.descr, else port.mac).
 * 0, or -ENOENT when no neighbour is listed for ifname.
 */
int lp_lldp_parse(const char *text, const char *ifname, struct lp_inv_peer *peer);

extern const struct lp_record lp_inv_peer_record;
extern const struct lp_record lp_inv_port_record;

#endif
