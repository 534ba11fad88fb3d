/* SPDX-License-Identifier: MIT */
/*
 * What a PCI function says about itself, for the inventory a qualification hands to a vendor:
 * vendor and device id, the physical slot, the PCIe link (current and maximum), the NUMA node,
 * and the Vital Product Data (part number, serial, engineering change, the vendor's fields).
 * Read from sysfs under a root prefix ("" the live system, a fixture tree in tests):
 *   <path>/{vendor,device,numa_node,current_link_speed,...}
 *   <path>/vpd                               the VPD bytes (root only: mode 0600)
 *   /sys/bus/pci/slots/<name>/address         "0000:18:00": the slot holding the function,
 *   else <path>/label (SMBIOS "NIC1"), else <path>/firmware_node/path (ACPI "\_SB_.PC02.BR2A")
 * A field that cannot be read is left "" (numbers 0, NUMA -1) and the reason is in its note:
 * never a guess, never a crash.
 *
 * VPD (PCI Local Bus 3.0 appendix I; PCIe base spec "Vital Product Data"): resources, each a
 * tag byte. Large (bit 7 set): item = tag & 0x7f, then a 16-bit little-endian length:
 *   0x82 Identifier String (the product name), 0x90 VPD-R (read-only keywords),
 *   0x91 VPD-W (read-write keywords). Small (bit 7 clear): item = (tag >> 3) & 0xf, length =
 *   tag & 7; item 0xf (tag 0x78) is the End Tag. Keywords inside VPD-R/W: two ASCII bytes, a
 *   length byte, the data: PN (part number), EC (engineering change level), SN (serial),
 *   MN (manufacturer id), V0..VZ (vendor specific), RV (checksum: the sum of every byte from the
 *   start of the VPD through RV's first data byte is 0), RW (free read-write space).
 */
#ifndef LP_PCIINV_H
#define LP_PCIINV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/record.h"

struct lp_vpd {
	char product[64]; /* the Identifier String */
	char pn[32];	  /* PN: part number ("MCX755106AS-HEAT") */
	char sn[32];	  /* SN: serial number */
	char ec[16];	  /* EC: engineering change level */
	char vendor[96];  /* V0..VZ as "V0=...; V1=..." (cut to fit, printable only) */
	char note[96];	  /* "" when read, else why not ("no VPD", "root only: ...") */
};

/*
 * Parse VPD bytes. 0; -ENODATA (nothing but an End Tag); -EINVAL (a resource runs past the
 * bytes, no Identifier String, or the RV checksum is wrong: v->note says which; what was read
 * before stays). Never reads outside buf.
 */
int lp_vpd_parse(const uint8_t *buf, size_t len, struct lp_vpd *v);

struct lp_pci_inv {
	char bdf[24];		 /* "0000:18:00.0" */
	char id[16];		 /* vendor:device, "15b3:1021" */
	char slot[40];		 /* "3", "NIC1", "\_SB_.PC02.BR2A"; "" unknown */
	char slot_source[40];	 /* "pci slot", "SMBIOS label", "ACPI path", or why unknown */
	double cur_gts, max_gts; /* link speed, GT/s; 0 unknown */
	uint32_t cur_width, max_width;
	int32_t numa; /* -1 unknown */
	struct lp_vpd vpd;
};

/*
 * Read the function at sysfs path (under root; "/sys/bus/pci/devices/BDF" or a resolved
 * "/sys/devices/pci0000:15/.../0000:18:00.0"); the VPD only when vpd (it is slow on some
 * devices: config cycles). 0, or -ENOENT when the function is not there
 * (p then says so in its slot_source and vpd note).
 */
int lp_pci_inv_read(const char *root, const char *path, bool vpd, struct lp_pci_inv *p);

/* "Gen5 x16 (max Gen5 x16)", "unknown" */
void lp_pci_inv_link_str(const struct lp_pci_inv *p, char *buf, size_t len);

extern const struct lp_record lp_vpd_record;
extern const struct lp_record lp_pci_inv_record;

#endif
