// SPDX-License-Identifier: MIT
#include "pci.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "meta.h"

#define PCI_EXT_CAP_START 0x100
#define PCI_EXT_CAP_ACS	  0x000d
#define PCI_ACS_CTRL	  6 /* u16 after the capability header and the capability register */
#define PCI_CFG_EXT_SIZE  4096
#define PCI_MAX_DEPTH	  32

static int read_attr(const char *root, const char *path, const char *attr, char *buf, size_t len)
{
	char p[PATH_MAX];
	int n = snprintf(p, sizeof(p), "%s%s/%s", root ? root : "", path, attr);

	if (n < 0 || (size_t)n >= sizeof(p))
		return -ENAMETOOLONG;
	return lp_read_line(p, buf, len);
}

int lp_pci_link_read(const char *root, const char *path, struct lp_pci_link *l)
{
	static const char *const attr[] = { "current_link_speed", "max_link_speed",
					    "current_link_width", "max_link_width" };
	double v[4] = { 0 };
	char buf[64];

	for (unsigned i = 0; i < 4; i++)
		if (!read_attr(root, path, attr[i], buf, sizeof(buf)))
			v[i] = strtod(buf, NULL); /* "32.0 GT/s PCIe", "Unknown" -> 0 */
	l->cur_gts = v[0];
	l->max_gts = v[1];
	l->cur_width = (unsigned)v[2];
	l->max_width = (unsigned)v[3];
	return l->cur_gts > 0 && l->cur_width ? 0 : -ENOENT;
}

int lp_pci_acs_ctrl(const char *root, const char *path)
{
	uint8_t cfg[PCI_CFG_EXT_SIZE];
	char p[PATH_MAX];
	unsigned off = PCI_EXT_CAP_START;
	ssize_t n;
	int fd;

	if (snprintf(p, sizeof(p), "%s%s/config", root ? root : "", path) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -EACCES;
	n = pread(fd, cfg, sizeof(cfg), 0);
	close(fd);
	if (n < (ssize_t)sizeof(cfg))
		return -EACCES; /* 64 or 256 bytes: not root, or no extended space */
	for (int hops = 0; off >= PCI_EXT_CAP_START && off + 8 <= sizeof(cfg) && hops < 64;
	     hops++) {
		uint32_t hdr = cfg[off] | cfg[off + 1] << 8 | (uint32_t)cfg[off + 2] << 16 |
			       (uint32_t)cfg[off + 3] << 24;

		if (!hdr || hdr == 0xffffffffu)
			break;
		if ((hdr & 0xffff) == PCI_EXT_CAP_ACS)
			return cfg[off + PCI_ACS_CTRL] | cfg[off + PCI_ACS_CTRL + 1] << 8;
		off = hdr >> 20;
	}
	return -ENOENT;
}

/* Offsets of the '/' before each component after "/sys/devices/pciDDDD:BB"; returns the count. */
static int split(const char *path, int *cut)
{
	const char *p = strstr(path, "/pci");
	int n = 0;

	if (!p)
		return -EINVAL;
	for (p = strchr(p + 1, '/'); p && n < PCI_MAX_DEPTH; p = strchr(p + 1, '/'))
		cut[n++] = (int)(p - path);
	return n;
}

int lp_pci_path_acs(const char *root, const char *a, const char *b, char *bdf, size_t len,
		    unsigned *ctrl_p)
{
	int ca[PCI_MAX_DEPTH + 1], cb[PCI_MAX_DEPTH + 1], na = split(a, ca), nb = split(b, cb);
	int c = 0, unreadable = 0;

	if (na < 1 || nb < 1)
		return -EINVAL;
	if (ca[0] != cb[0] || strncmp(a, b, (size_t)ca[0]))
		return 0; /* different host bridges */
	ca[na] = (int)strlen(a);
	cb[nb] = (int)strlen(b);
	while (c < na && c < nb && ca[c + 1] == cb[c + 1] && !strncmp(a, b, (size_t)ca[c + 1]))
		c++;
	/* The bridges below the shared one, on both sides: where a redirect turns the traffic. */
	for (int side = 0; side < 2; side++) {
		const char *p = side ? b : a;
		const int *cut = side ? cb : ca;
		int n = side ? nb : na;

		for (int k = c; k < n - 1; k++) {
			char br[PATH_MAX];
			int ctrl;

			snprintf(br, sizeof(br), "%.*s", cut[k + 1], p);
			ctrl = lp_pci_acs_ctrl(root, br);
			if (ctrl == -EACCES)
				unreadable = 1;
			if (ctrl > 0 && (ctrl & (LP_PCI_ACS_RR | LP_PCI_ACS_CR))) {
				snprintf(bdf, len, "%s", br + cut[k] + 1);
				*ctrl_p = (unsigned)ctrl;
				return 1;
			}
		}
	}
	return unreadable ? -EACCES : 0;
}
