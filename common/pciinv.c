// SPDX-License-Identifier: MIT
/* A PCI function's inventory: ids, slot, link, NUMA node and VPD (common/pciinv.h). */
#include "pciinv.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/lp.h"
#include "common/meta.h"
#include "common/pci.h"
#include "common/units.h"

#define VPD_MAX		 32768 /* the PCI spec's VPD address space */
#define VPD_TAG_ID	 0x82
#define VPD_TAG_RO	 0x90
#define VPD_TAG_RW	 0x91
#define VPD_TAG_END_ITEM 0x0f

/* clang-format off */
const struct lp_record lp_vpd_record = LP_RECORD(struct lp_vpd,
	LP_REC_STR(struct lp_vpd, product),
	LP_REC_STR(struct lp_vpd, pn, LP_REC_KEY("part_number")),
	LP_REC_STR(struct lp_vpd, sn, LP_REC_KEY("serial")),
	LP_REC_STR(struct lp_vpd, ec, LP_REC_KEY("engineering_change")),
	LP_REC_STR(struct lp_vpd, vendor, LP_REC_KEY("vendor_fields")),
	LP_REC_STR(struct lp_vpd, note));

const struct lp_record lp_pci_inv_record = LP_RECORD(struct lp_pci_inv,
	LP_REC_STR(struct lp_pci_inv, bdf),
	LP_REC_STR(struct lp_pci_inv, id),
	LP_REC_STR(struct lp_pci_inv, slot),
	LP_REC_STR(struct lp_pci_inv, slot_source),
	LP_REC_F64(struct lp_pci_inv, cur_gts, LP_REC_KEY("link_gts")),
	LP_REC_F64(struct lp_pci_inv, max_gts, LP_REC_KEY("max_link_gts")),
	LP_REC_U32(struct lp_pci_inv, cur_width, LP_REC_KEY("link_width")),
	LP_REC_U32(struct lp_pci_inv, max_width, LP_REC_KEY("max_link_width")),
	LP_REC_I32(struct lp_pci_inv, numa, LP_REC_KEY("numa_node")),
	LP_REC_NEST(struct lp_pci_inv, vpd, lp_vpd_record));
/* clang-format on */

/* len bytes of data as a printable string into out (others as '?', trailing blanks cut). */
static void vpd_str(const uint8_t *data, size_t len, char *out, size_t outlen)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n + 1 < outlen; i++)
		out[n++] = isprint(data[i]) ? (char)data[i] : data[i] ? '?' : ' ';
	while (n && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
}

/* One keyword of a VPD-R/W resource into v. */
static void vpd_keyword(struct lp_vpd *v, const uint8_t *kw, const uint8_t *data, size_t len)
{
	char val[96];
	size_t used;

	if (!isalnum(kw[0]) || !isalnum(kw[1]))
		return;
	vpd_str(data, len, val, sizeof(val));
	if (kw[0] == 'P' && kw[1] == 'N')
		snprintf(v->pn, sizeof(v->pn), "%s", val);
	else if (kw[0] == 'S' && kw[1] == 'N')
		snprintf(v->sn, sizeof(v->sn), "%s", val);
	else if (kw[0] == 'E' && kw[1] == 'C')
		snprintf(v->ec, sizeof(v->ec), "%s", val);
	else if (kw[0] == 'V' && val[0]) {
		used = strlen(v->vendor);
		snprintf(v->vendor + used, sizeof(v->vendor) - used, "%sV%c=%s", used ? "; " : "",
			 kw[1], val);
	}
}

/* The keywords of one VPD-R/W resource (data[0..len)); RV's checksum over buf[0..rv]. -EINVAL bad. */
static int vpd_fields(struct lp_vpd *v, const uint8_t *buf, const uint8_t *data, size_t len)
{
	size_t k = 0;

	while (k + 3 <= len) {
		size_t n = data[k + 2];
		const uint8_t *d = data + k + 3;

		if (k + 3 + n > len) {
			snprintf(v->note, sizeof(v->note),
				 "VPD keyword %c%c runs past its resource", data[k], data[k + 1]);
			return -EINVAL;
		}
		if (data[k] == 'R' && data[k + 1] == 'V' && n) {
			uint8_t sum = 0;

			for (const uint8_t *p = buf; p <= d; p++)
				sum = (uint8_t)(sum + *p);
			if (sum) {
				snprintf(v->note, sizeof(v->note),
					 "VPD checksum (RV) wrong: the bytes sum to 0x%02x", sum);
				return -EINVAL;
			}
		} else {
			vpd_keyword(v, data + k, d, n);
		}
		k += 3 + n;
	}
	return 0;
}

int lp_vpd_parse(const uint8_t *buf, size_t len, struct lp_vpd *v)
{
	size_t off = 0;
	bool id = false;

	memset(v, 0, sizeof(*v));
	while (off < len) {
		uint8_t tag = buf[off];
		size_t n, hdr = tag & 0x80 ? 3 : 1;

		if (!(tag & 0x80) && ((tag >> 3) & 0xf) == VPD_TAG_END_ITEM)
			break;
		if (off + hdr > len)
			goto cut;
		n = tag & 0x80 ? (size_t)buf[off + 1] | (size_t)buf[off + 2] << 8 : tag & 7u;
		if (off + hdr + n > len)
			goto cut;
		if (tag == VPD_TAG_ID) {
			vpd_str(buf + off + hdr, n, v->product, sizeof(v->product));
			id = true;
		} else if ((tag == VPD_TAG_RO || tag == VPD_TAG_RW) &&
			   vpd_fields(v, buf, buf + off + hdr, n)) {
			return -EINVAL;
		}
		off += hdr + n;
	}
	if (!off)
		return -ENODATA;
	if (!id) {
		snprintf(v->note, sizeof(v->note), "VPD without an Identifier String (tag 0x82)");
		return -EINVAL;
	}
	return 0;
cut:
	snprintf(v->note, sizeof(v->note), "VPD resource at byte %zu runs past the %zu bytes read",
		 off, len);
	return -EINVAL;
}

/* <root><path>/vpd into p->vpd, or the reason into its note. */
static void vpd_read(const char *root, const char *path, struct lp_pci_inv *p)
{
	char file[PATH_MAX];
	uint8_t *buf = malloc(VPD_MAX);
	ssize_t n = -1;
	size_t len = 0;
	int fd, err;

	snprintf(file, sizeof(file), "%s%s/vpd", root, path);
	fd = buf ? open(file, O_RDONLY | O_CLOEXEC) : -1;
	err = buf ? errno : ENOMEM;
	while (fd >= 0 && len < VPD_MAX && (n = read(fd, buf + len, VPD_MAX - len)) > 0)
		len += (size_t)n;
	if (fd >= 0 && n < 0)
		err = errno;
	if (fd >= 0)
		close(fd);
	if (fd >= 0 && (n == 0 || len)) {
		err = lp_vpd_parse(buf, len, &p->vpd);
		if (err == -ENODATA)
			snprintf(p->vpd.note, sizeof(p->vpd.note), "VPD empty (%zu bytes)", len);
	} else if (err == ENOENT) {
		snprintf(p->vpd.note, sizeof(p->vpd.note), "no VPD: the function has none");
	} else if (err == EACCES || err == EPERM) {
		snprintf(p->vpd.note, sizeof(p->vpd.note),
			 "VPD readable by root only (sysfs vpd is mode 0600)");
	} else {
		snprintf(p->vpd.note, sizeof(p->vpd.note), "VPD unreadable: %s", strerror(err));
	}
	free(buf);
}

/* The physical slot: /sys/bus/pci/slots/<name>/address, the SMBIOS label, the ACPI path. */
static void slot_read(const char *root, const char *path, struct lp_pci_inv *p)
{
	char rel[PATH_MAX], addr[64], file[PATH_MAX + 64];
	size_t devlen = strlen(p->bdf) > 2 ? strlen(p->bdf) - 2 : 0; /* "0000:18:00" of ".0" */
	char **slots;
	int n;

	lp_dir_list(root, "/sys/bus/pci/slots", &slots, &n);
	for (int i = 0; i < n && !p->slot[0]; i++) {
		snprintf(file, sizeof(file), "%s/sys/bus/pci/slots/%s/address", root, slots[i]);
		if (devlen && !lp_read_line(file, addr, sizeof(addr)) && strlen(addr) == devlen &&
		    !strncmp(addr, p->bdf, devlen)) {
			snprintf(p->slot, sizeof(p->slot), "%s", slots[i]);
			snprintf(p->slot_source, sizeof(p->slot_source), "pci slot");
		}
	}
	lp_dir_free(slots, n);
	snprintf(rel, sizeof(rel), "%s%s/label", root, path);
	if (!p->slot[0] && !lp_read_line(rel, p->slot, sizeof(p->slot)) && p->slot[0])
		snprintf(p->slot_source, sizeof(p->slot_source), "SMBIOS label");
	snprintf(rel, sizeof(rel), "%s%s/firmware_node/path", root, path);
	if (!p->slot[0] && !lp_read_line(rel, p->slot, sizeof(p->slot)) && p->slot[0])
		snprintf(p->slot_source, sizeof(p->slot_source), "ACPI path");
	if (!p->slot[0])
		snprintf(p->slot_source, sizeof(p->slot_source),
			 "unknown: no slot, label or ACPI path");
}

int lp_pci_inv_read(const char *root, const char *path, bool vpd, struct lp_pci_inv *p)
{
	char file[PATH_MAX + 32], real[PATH_MAX], v[32] = "", d[32] = "", numa[16];
	const char *base = strrchr(path, '/');
	struct lp_pci_link l;

	root = root ? root : "";
	memset(p, 0, sizeof(*p));
	p->numa = -1;
	snprintf(file, sizeof(file), "%s%s", root, path);
	if (realpath(file, real)) /* a class link ("/sys/class/infiniband/mlx5_0/device") */
		base = strrchr(real, '/');
	snprintf(p->bdf, sizeof(p->bdf), "%s", base ? base + 1 : path);
	snprintf(file, sizeof(file), "%s%s/vendor", root, path);
	if (lp_read_line(file, v, sizeof(v))) {
		snprintf(p->slot_source, sizeof(p->slot_source), "unknown: no PCI function");
		snprintf(p->vpd.note, sizeof(p->vpd.note), "no PCI function at %s", path);
		return -ENOENT;
	}
	snprintf(file, sizeof(file), "%s%s/device", root, path);
	lp_read_line(file, d, sizeof(d));
	snprintf(p->id, sizeof(p->id), "%.4s:%.4s", v + (v[1] == 'x' ? 2 : 0),
		 d + (d[1] == 'x' ? 2 : 0));
	snprintf(file, sizeof(file), "%s%s/numa_node", root, path);
	if (!lp_read_line(file, numa, sizeof(numa)))
		p->numa = atoi(numa);
	if (!lp_pci_link_read(root, path, &l)) {
		p->cur_gts = l.cur_gts;
		p->max_gts = l.max_gts;
		p->cur_width = l.cur_width;
		p->max_width = l.max_width;
	}
	slot_read(root, path, p);
	if (vpd)
		vpd_read(root, path, p);
	else
		snprintf(p->vpd.note, sizeof(p->vpd.note), "VPD not read");
	return 0;
}

void lp_pci_inv_link_str(const struct lp_pci_inv *p, char *buf, size_t len)
{
	if (!(p->cur_gts > 0))
		snprintf(buf, len, "unknown");
	else
		snprintf(buf, len, "Gen%u x%u (max Gen%u x%u)", lp_pcie_gen(p->cur_gts),
			 p->cur_width, lp_pcie_gen(p->max_gts), p->max_width);
}
