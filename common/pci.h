/* SPDX-License-Identifier: MIT */
/*
 * PCIe facts of one PCI function from sysfs, under a root prefix ("" for the
 * live system, a fixture directory in tests). Paths are sysfs device paths
 * without the root, as common/topo.c resolves them
 * ("/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0").
 */
#ifndef LP_PCI_H
#define LP_PCI_H

#include <stddef.h>

/* The link of a function: current and maximum speed (GT/s) and width (lanes); 0 unknown. */
struct lp_pci_link {
	double cur_gts, max_gts;
	unsigned cur_width, max_width;
};

/*
 * Read <root><path>/{current,max}_link_{speed,width} ("32.0 GT/s PCIe", "16").
 * Returns 0 when at least the current speed and width were read, else -ENOENT.
 */
int lp_pci_link_read(const char *root, const char *path, struct lp_pci_link *l);

/*
 * ACS control register of the function at <root><path>/config (the extended
 * capability list from offset 0x100, capability id 0x000d, control at +6).
 * Returns the control value (>= 0), -ENOENT when the function has no ACS
 * capability, -EACCES when the extended config space cannot be read (sysfs
 * shows only the first 64 bytes to non-root users).
 */
int lp_pci_acs_ctrl(const char *root, const char *path);

#define LP_PCI_ACS_RR (1u << 2) /* P2P Request Redirect */
#define LP_PCI_ACS_CR (1u << 3) /* P2P Completion Redirect */

/*
 * The first bridge on the PCIe path between the functions at paths a and b
 * (below their lowest common bridge; none when they sit under different host
 * bridges: then the root complex routes the traffic anyway) whose ACS control
 * redirects peer-to-peer requests or completions. Writes its bdf into bdf and
 * its control into *ctrl_p and returns 1; returns 0 when no bridge redirects,
 * -EACCES when some bridge's config space could not be read (and none
 * redirects), -EINVAL when a path is not a PCI path.
 */
int lp_pci_path_acs(const char *root, const char *a, const char *b, char *bdf, size_t len,
		    unsigned *ctrl_p);

#endif
