// SPDX-License-Identifier: MIT
#include "topo.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/mempolicy.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fail.h"
#include "lp.h"
#include "meta.h"
#include "pci.h"

#define PCI_VENDOR_NVIDIA 0x10de
#define PCI_CLASS_VGA	  0x0300
#define PCI_CLASS_3D	  0x0302
#define PCI_MAX_DEPTH	  32
#define PORT_ACTIVE	  4 /* IBV_PORT_ACTIVE, as sysfs ports/N/state writes it ("4: ACTIVE") */

/* The root prefix, resolved once, so that resolved links can be cut back to sysfs paths. */
struct scan_ctx {
	const char *root;	  /* as given ("" for live) */
	char real_root[PATH_MAX]; /* realpath(root), "" for live */
	size_t real_root_len;
};

static int path_join(char *buf, size_t len, const char *a, const char *b, const char *c)
{
	int n = snprintf(buf, len, "%s%s%s", a, b, c ? c : "");

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* realpath(<root><rel>) with the root cut off; "" when the link does not resolve. */
static int resolve(const struct scan_ctx *s, const char *rel, char *out, size_t len)
{
	char in[PATH_MAX], real[PATH_MAX];
	const char *p = real;
	int ret;

	out[0] = '\0';
	ret = path_join(in, sizeof(in), s->root, rel, NULL);
	if (ret)
		return ret;
	if (!realpath(in, real))
		return 0;
	if (s->real_root_len) {
		/* A link that escapes the fixture is not part of the tree: ignore it. */
		if (strncmp(real, s->real_root, s->real_root_len) || real[s->real_root_len] != '/')
			return 0;
		p = real + s->real_root_len;
	}
	if (strlen(p) >= len)
		return -ENAMETOOLONG;
	strcpy(out, p);
	return 0;
}

static int read_int(const struct scan_ctx *s, const char *rel, const char *file, long *val_p)
{
	char path[PATH_MAX], line[64], *end;
	long v;

	if (path_join(path, sizeof(path), s->root, rel, file))
		return -ENAMETOOLONG;
	if (lp_read_line(path, line, sizeof(line)))
		return -ENOENT;
	errno = 0;
	v = strtol(line, &end, 0); /* "0x10de", "0x030200", "-1", "1" */
	if (errno || end == line)
		return -EINVAL;
	*val_p = v;
	return 0;
}

static int read_numa(const struct scan_ctx *s, const char *rel)
{
	long v;

	if (read_int(s, rel, "/numa_node", &v) || v < -1 || v > INT_MAX)
		return -1;
	return (int)v;
}

static int bdf_parse(const char *s, unsigned *dom, unsigned *bus, unsigned *dev, unsigned *fn)
{
	char tail;

	return sscanf(s, "%x:%x:%x.%x%c", dom, bus, dev, fn, &tail) == 4 ? 0 : -EINVAL;
}

static int is_bdf(const char *s)
{
	unsigned d, b, v, f;

	return bdf_parse(s, &d, &b, &v, &f) == 0;
}

static int bdf_cmp(const char *a, const char *b)
{
	unsigned x[4], y[4];

	if (bdf_parse(a, &x[0], &x[1], &x[2], &x[3]) || bdf_parse(b, &y[0], &y[1], &y[2], &y[3]))
		return strcmp(a, b);
	for (int i = 0; i < 4; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* Natural order: digit runs compare as numbers, so mlx5_2 < mlx5_10. */
static int natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *ea, *eb;
			size_t la, lb;
			int c;

			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			for (ea = a; isdigit((unsigned char)*ea); ea++)
				;
			for (eb = b; isdigit((unsigned char)*eb); eb++)
				;
			la = (size_t)(ea - a);
			lb = (size_t)(eb - b);
			if (la != lb)
				return la < lb ? -1 : 1;
			c = strncmp(a, b, la);
			if (c)
				return c;
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

static int gpu_cmp(const void *a, const void *b)
{
	return bdf_cmp(((const struct lp_topo_gpu *)a)->bdf, ((const struct lp_topo_gpu *)b)->bdf);
}

static int nic_cmp(const void *a, const void *b)
{
	return natural_cmp(((const struct lp_topo_nic *)a)->name,
			   ((const struct lp_topo_nic *)b)->name);
}

static void copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src);
}

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* "GPU UUID: GPU-..." from the NVIDIA driver's information file; "" when absent. */
static void read_uuid(const struct scan_ctx *s, const char *bdf, char *uuid, size_t len)
{
	char path[PATH_MAX], line[256];
	FILE *f;

	uuid[0] = '\0';
	if (path_join(path, sizeof(path), s->root, "/proc/driver/nvidia/gpus/", bdf) ||
	    strlen(path) + sizeof("/information") > sizeof(path))
		return;
	strcat(path, "/information");
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char v[64];

		if (!strncmp(line, "GPU UUID:", 9) && sscanf(line + 9, "%63s", v) == 1) {
			copy_str(uuid, len, v);
			break;
		}
	}
	fclose(f);
}

static int scan_gpus(const struct scan_ctx *s, struct lp_topo *t)
{
	const char *bus = "/sys/bus/pci/devices";
	char **names, rel[PATH_MAX];
	int n, ret;

	ret = lp_dir_list(s->root, bus, &names, &n);
	if (ret || !n)
		return ret;
	for (int i = 0; i < n; i++) {
		struct lp_topo_gpu *g;
		long vendor, cls, dev;

		ret = path_join(rel, sizeof(rel), bus, "/", names[i]);
		if (ret)
			goto out;
		if (read_int(s, rel, "/vendor", &vendor) || vendor != PCI_VENDOR_NVIDIA)
			continue;
		if (read_int(s, rel, "/class", &cls))
			continue;
		cls >>= 8; /* drop the programming interface byte */
		if (cls != PCI_CLASS_VGA && cls != PCI_CLASS_3D)
			continue;
		if (!t->gpus) {
			/* At most n GPUs: one allocation. */
			t->gpus = calloc((size_t)n, sizeof(*t->gpus));
			if (!t->gpus) {
				ret = -ENOMEM;
				goto out;
			}
		}
		g = &t->gpus[t->ngpus];
		copy_str(g->bdf, sizeof(g->bdf), names[i]);
		g->device_id = read_int(s, rel, "/device", &dev) ? 0 : (unsigned)dev;
		g->numa = read_numa(s, rel);
		ret = resolve(s, rel, g->path, sizeof(g->path));
		if (ret)
			goto out;
		t->ngpus++;
	}
	if (t->ngpus)
		qsort(t->gpus, (size_t)t->ngpus, sizeof(*t->gpus), gpu_cmp);
	for (int i = 0; i < t->ngpus; i++) {
		t->gpus[i].index = t->gpus[i].cuda = i;
		read_uuid(s, t->gpus[i].bdf, t->gpus[i].uuid, sizeof(t->gpus[i].uuid));
	}
out:
	lp_dir_free(names, n);
	return ret;
}

static int scan_nic(const struct scan_ctx *s, const char *name, struct lp_topo_nic *nic)
{
	char rel[PATH_MAX], dev[PATH_MAX], path[PATH_MAX], **nets;
	int nnets, ret;

	copy_str(nic->name, sizeof(nic->name), name);
	nic->numa = -1;
	ret = path_join(rel, sizeof(rel), "/sys/class/infiniband/", name, NULL);
	if (!ret)
		ret = path_join(dev, sizeof(dev), rel, "/device", NULL);
	if (ret)
		return ret;

	ret = path_join(path, sizeof(path), s->root, rel, "/ports/1/link_layer");
	if (ret)
		return ret;
	if (lp_read_line(path, nic->link_layer, sizeof(nic->link_layer)))
		nic->link_layer[0] = '\0';
	{
		long st;

		nic->port_state = read_int(s, rel, "/ports/1/state", &st) ? 0 : (int)st;
	}

	ret = resolve(s, dev, nic->path, sizeof(nic->path));
	if (ret || !nic->path[0])
		return ret; /* no device link (rxe, siw): no PCI facts */
	nic->numa = read_numa(s, dev);
	if (is_bdf(basename_of(nic->path)))
		copy_str(nic->bdf, sizeof(nic->bdf), basename_of(nic->path));

	ret = path_join(path, sizeof(path), dev, "/net", NULL);
	if (ret)
		return ret;
	ret = lp_dir_list(s->root, path, &nets, &nnets);
	if (ret)
		return ret;
	for (int i = 0; i < nnets && nic->nnetdevs < LP_TOPO_MAX_NETDEVS; i++)
		copy_str(nic->netdevs[nic->nnetdevs++], LP_TOPO_NETDEV_LEN, nets[i]);
	lp_dir_free(nets, nnets);
	return 0;
}

static int scan_nics(const struct scan_ctx *s, struct lp_topo *t)
{
	char **names;
	int n, ret;

	ret = lp_dir_list(s->root, "/sys/class/infiniband", &names, &n);
	if (ret || !n)
		return ret;
	t->nics = calloc((size_t)n, sizeof(*t->nics));
	if (!t->nics) {
		ret = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		ret = scan_nic(s, names[i], &t->nics[i]);
		if (ret)
			goto out;
		t->nnics++;
	}
	qsort(t->nics, (size_t)t->nnics, sizeof(*t->nics), nic_cmp);
out:
	lp_dir_free(names, n);
	return ret;
}

int lp_topo_scan(const char *root, struct lp_topo *t, struct lp_fail *f)
{
	struct scan_ctx *s;
	int ret;

	memset(t, 0, sizeof(*t));
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->root = root ? root : "";
	if (s->root[0]) {
		if (!realpath(s->root, s->real_root)) {
			ret = lp_fail_set(f, -errno, "topology root %s: %s", s->root,
					  strerror(errno));
			goto out;
		}
		s->real_root_len = strlen(s->real_root);
		if (s->real_root_len == 1) /* "/" is the live system */
			s->real_root_len = 0;
	}
	ret = scan_gpus(s, t);
	if (!ret)
		ret = scan_nics(s, t);
	if (ret) {
		lp_fail_set(f, ret, "scanning PCIe topology under '%s': %s", s->root,
			    strerror(-ret));
		lp_topo_free(t);
	}
out:
	free(s);
	return ret;
}

void lp_topo_free(struct lp_topo *t)
{
	free(t->gpus);
	free(t->nics);
	memset(t, 0, sizeof(*t));
}

/* A device's place in the PCI tree: its host bridge and the functions below it. */
struct pci_chain {
	const char *hb; /* "pci0000:15" inside the path */
	size_t hb_len;
	int n; /* functions from the root port down to the device */
	const char *fn[PCI_MAX_DEPTH];
	size_t fn_len[PCI_MAX_DEPTH];
};

static int pci_chain_parse(const char *path, struct pci_chain *c)
{
	const char *p = path;

	memset(c, 0, sizeof(*c));
	while (*p) {
		const char *e;
		size_t len;
		char comp[LP_TOPO_BDF_LEN];

		while (*p == '/')
			p++;
		e = strchrnul(p, '/');
		len = (size_t)(e - p);
		if (!c->hb) {
			if (len > 3 && !strncmp(p, "pci", 3) && memchr(p, ':', len)) {
				c->hb = p;
				c->hb_len = len;
			}
		} else {
			if (len >= sizeof(comp) || c->n == PCI_MAX_DEPTH)
				break;
			memcpy(comp, p, len);
			comp[len] = '\0';
			if (!is_bdf(comp))
				break; /* past the PCI functions (e.g. "infiniband/...") */
			c->fn[c->n] = p;
			c->fn_len[c->n] = len;
			c->n++;
		}
		p = e;
	}
	return c->hb && c->n ? 0 : -ENOENT;
}

static enum lp_topo_dist numa_dist(int a, int b)
{
	return a >= 0 && b >= 0 && a != b ? LP_TOPO_SYS : LP_TOPO_NODE;
}

enum lp_topo_dist lp_topo_distance(const struct lp_topo *t, int gpu, int nic)
{
	const struct lp_topo_gpu *g;
	const struct lp_topo_nic *n;
	struct pci_chain a, b;
	int c = 0;

	if (!t || gpu < 0 || gpu >= t->ngpus || nic < 0 || nic >= t->nnics)
		return LP_TOPO_UNKNOWN;
	g = &t->gpus[gpu];
	n = &t->nics[nic];
	if (pci_chain_parse(g->path, &a) || pci_chain_parse(n->path, &b))
		return LP_TOPO_UNKNOWN;
	if (a.hb_len != b.hb_len || strncmp(a.hb, b.hb, a.hb_len))
		return numa_dist(g->numa, n->numa);
	while (c < a.n && c < b.n && a.fn_len[c] == b.fn_len[c] &&
	       !strncmp(a.fn[c], b.fn[c], a.fn_len[c]))
		c++;
	if (c == 0)
		return LP_TOPO_PHB;
	return a.n - c <= 2 && b.n - c <= 2 ? LP_TOPO_PIX : LP_TOPO_PXB;
}

int lp_topo_p2p_check(const char *root, const struct lp_topo *t, int gpu, int nic, char *why,
		      size_t len)
{
	char path[PATH_MAX], type[32], bdf[LP_TOPO_BDF_LEN];
	unsigned ctrl;
	int acs;

	root = root ? root : "";
	why[0] = '\0';
	if (gpu < 0 || gpu >= t->ngpus || nic < 0 || nic >= t->nnics)
		return 0;
	acs = lp_pci_path_acs(root, t->gpus[gpu].path, t->nics[nic].path, bdf, sizeof(bdf), &ctrl);
	if (acs == -EINVAL)
		return 0;
	if (acs == 1) {
		snprintf(why, len,
			 "PCIe ACS redirects peer-to-peer traffic at bridge %s (ACS "
			 "control 0x%x): GPUDirect RDMA between GPU %s and %s goes through "
			 "the root complex or fails; disable ACS P2P redirect on the "
			 "path (setpci, or the BIOS)",
			 bdf, ctrl, t->gpus[gpu].bdf, t->nics[nic].name);
		return 1;
	}
	/* An IOMMU translating the GPU's DMA (group type DMA, not identity/passthrough). */
	if (!path_join(path, sizeof(path), root, t->gpus[gpu].path, "/iommu_group/type") &&
	    !lp_read_line(path, type, sizeof(type)) && !strncmp(type, "DMA", 3)) {
		snprintf(why, len,
			 "the IOMMU translates GPU %s's DMA (iommu_group type %s): peer-to-peer "
			 "traffic with %s may be redirected or refused; boot with iommu=pt (or "
			 "intel_iommu=off / amd_iommu=off)",
			 t->gpus[gpu].bdf, type, t->nics[nic].name);
		return 1;
	}
	return acs == -EACCES ? -EACCES : 0;
}

static const struct {
	const char *name, *help;
} dist_info[] = {
	[LP_TOPO_PIX] = { "PIX", "at most one PCIe switch (single bridge level)" },
	[LP_TOPO_PXB] = { "PXB", "several PCIe switch levels, no host bridge crossed" },
	[LP_TOPO_PHB] = { "PHB", "same PCIe host bridge (root complex), different root ports" },
	[LP_TOPO_NODE] = { "NODE", "different host bridges within one NUMA node" },
	[LP_TOPO_SYS] = { "SYS", "different NUMA nodes: crosses the inter-socket link" },
	[LP_TOPO_UNKNOWN] = { "?", "unknown: a device without a PCI path" },
};

const char *lp_topo_dist_name(enum lp_topo_dist d)
{
	if ((unsigned)d >= LP_ARRAY_SIZE(dist_info))
		d = LP_TOPO_UNKNOWN;
	return dist_info[d].name;
}

const char *lp_topo_dist_help(enum lp_topo_dist d)
{
	if ((unsigned)d >= LP_ARRAY_SIZE(dist_info))
		d = LP_TOPO_UNKNOWN;
	return dist_info[d].help;
}

int lp_topo_set_visible(struct lp_topo *t, const char *cvd)
{
	char buf[1024], *save = NULL;
	int n = 0;

	for (int g = 0; g < t->ngpus; g++)
		t->gpus[g].cuda = cvd ? -1 : g;
	if (!cvd)
		return t->ngpus;
	copy_str(buf, sizeof(buf), cvd);
	for (char *e = strtok_r(buf, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
		int g = -1, hits = 0;
		char *end;
		long v;

		while (isspace((unsigned char)*e))
			e++;
		errno = 0;
		v = strtol(e, &end, 10);
		if (end != e && !*end && !errno) {
			g = v >= 0 && v < t->ngpus ? (int)v : -1;
		} else {
			for (int k = 0; k < t->ngpus; k++) {
				if (t->gpus[k].uuid[0] && !strncmp(t->gpus[k].uuid, e, strlen(e))) {
					g = k;
					hits++;
				}
			}
			if (hits != 1)
				g = -1;
		}
		if (g < 0 || t->gpus[g].cuda >= 0)
			break; /* CUDA stops at the first invalid or repeated entry */
		t->gpus[g].cuda = n++;
	}
	return n;
}

int lp_topo_gpu_of_cuda(const struct lp_topo *t, int cuda)
{
	for (int g = 0; g < t->ngpus; g++)
		if (cuda >= 0 && t->gpus[g].cuda == cuda)
			return g;
	return -1;
}

int lp_topo_nic_usable(const struct lp_topo *t, int nic)
{
	const struct lp_topo_nic *c = &t->nics[nic];
	bool ib_fabric = false;

	if (c->port_state && c->port_state != PORT_ACTIVE)
		return 0;
	for (int i = 0; i < t->nnics; i++)
		if ((!t->nics[i].port_state || t->nics[i].port_state == PORT_ACTIVE) &&
		    !strcmp(t->nics[i].link_layer, "InfiniBand"))
			ib_fabric = true;
	return !ib_fabric || !strcmp(c->link_layer, "InfiniBand");
}

/*
 * The closest pair with gpu (or nic) fixed when >= 0, else among the visible
 * GPUs (usable NICs); ties: lowest GPU, then NIC index.
 */
static int best_of(const struct lp_topo *t, int gpu, int nic, int *gpu_p, int *nic_p)
{
	enum lp_topo_dist best = LP_TOPO_UNKNOWN + 1;

	for (int g = gpu >= 0 ? gpu : 0; g < (gpu >= 0 ? gpu + 1 : t->ngpus); g++) {
		if (gpu < 0 && t->gpus[g].cuda < 0)
			continue;
		for (int n = nic >= 0 ? nic : 0; n < (nic >= 0 ? nic + 1 : t->nnics); n++) {
			enum lp_topo_dist d;

			if (nic < 0 && !lp_topo_nic_usable(t, n))
				continue;
			d = lp_topo_distance(t, g, n);
			if (d < best) { /* strict: the lowest index wins ties */
				best = d;
				*gpu_p = g;
				*nic_p = n;
			}
		}
	}
	return best <= LP_TOPO_UNKNOWN ? 0 : -ENODEV;
}

int lp_topo_best_nic(const struct lp_topo *t, int gpu, int *nic_p)
{
	int g;

	if (gpu < 0 || gpu >= t->ngpus)
		return -EINVAL;
	return best_of(t, gpu, -1, &g, nic_p);
}

int lp_topo_best_gpu(const struct lp_topo *t, int nic, int *gpu_p)
{
	int n;

	if (nic < 0 || nic >= t->nnics)
		return -EINVAL;
	return best_of(t, -1, nic, gpu_p, &n);
}

int lp_topo_best_pair(const struct lp_topo *t, int *gpu_p, int *nic_p)
{
	return best_of(t, -1, -1, gpu_p, nic_p);
}

int lp_topo_rail(const struct lp_topo *t, int rail, int *gpu_p, int *nic_p)
{
	int k = 0;

	*gpu_p = lp_topo_gpu_of_cuda(t, rail);
	if (*gpu_p >= 0)
		return lp_topo_best_nic(t, *gpu_p, nic_p);
	if (t->ngpus)
		return -ENODEV;
	for (int n = 0; n < t->nnics; n++)
		if (lp_topo_nic_usable(t, n) && k++ == rail) {
			*nic_p = n;
			return 0;
		}
	return -ENODEV;
}

int lp_topo_nic_index(const struct lp_topo *t, const char *name)
{
	for (int i = 0; i < t->nnics; i++)
		if (!strcmp(t->nics[i].name, name))
			return i;
	for (int i = 0; i < t->nnics; i++)
		for (unsigned k = 0; k < t->nics[i].nnetdevs; k++)
			if (!strcmp(t->nics[i].netdevs[k], name))
				return i;
	return -ENODEV;
}

static void print_numa(FILE *f, const char *fmt, int numa)
{
	char buf[16];

	if (numa < 0)
		snprintf(buf, sizeof(buf), "N/A");
	else
		snprintf(buf, sizeof(buf), "%d", numa);
	fprintf(f, fmt, buf);
}

static void print_cuda(FILE *f, int cuda)
{
	if (cuda < 0)
		fprintf(f, "hidden\n");
	else
		fprintf(f, "%d\n", cuda);
}

static int topo_has_unknown(const struct lp_topo *t)
{
	for (int g = 0; g < t->ngpus; g++)
		for (int n = 0; n < t->nnics; n++)
			if (lp_topo_distance(t, g, n) == LP_TOPO_UNKNOWN)
				return 1;
	return 0;
}

void lp_topo_print(const struct lp_topo *t, FILE *f)
{
	char hdr[32];

	if (!t->ngpus)
		fprintf(f, "no NVIDIA GPUs found\n");
	if (!t->nnics)
		fprintf(f, "no RDMA devices found\n");
	if (t->ngpus && t->nnics) {
		fprintf(f, "%-8s", "");
		for (int n = 0; n < t->nnics; n++) {
			snprintf(hdr, sizeof(hdr), "NIC%d", n);
			fprintf(f, "%-7s", hdr);
		}
		fprintf(f, "%-6s%-14s%s\n", "NUMA", "Bus Id", "CUDA");
		for (int g = 0; g < t->ngpus; g++) {
			snprintf(hdr, sizeof(hdr), "GPU%d", g);
			fprintf(f, "%-8s", hdr);
			for (int n = 0; n < t->nnics; n++)
				fprintf(f, "%-7s", lp_topo_dist_name(lp_topo_distance(t, g, n)));
			print_numa(f, "%-6s", t->gpus[g].numa);
			fprintf(f, "%-14s", t->gpus[g].bdf);
			print_cuda(f, t->gpus[g].cuda);
		}
		fprintf(f, "%-8s", "NUMA");
		for (int n = 0; n < t->nnics; n++)
			print_numa(f, n + 1 < t->nnics ? "%-7s" : "%s", t->nics[n].numa);
		fprintf(f, "\n\nLegend:\n\n");
		for (int d = LP_TOPO_PIX; d <= LP_TOPO_UNKNOWN; d++)
			if (d != LP_TOPO_UNKNOWN || topo_has_unknown(t))
				fprintf(f, "  %-4s = %s\n", lp_topo_dist_name(d),
					lp_topo_dist_help(d));
	} else if (t->ngpus) {
		fprintf(f, "\nGPU Legend:\n\n");
		for (int g = 0; g < t->ngpus; g++) {
			fprintf(f, "  GPU%d: %s NUMA ", g, t->gpus[g].bdf);
			print_numa(f, "%s CUDA ", t->gpus[g].numa);
			print_cuda(f, t->gpus[g].cuda);
		}
	}
	if (t->nnics) {
		fprintf(f, "\nNIC Legend:\n\n");
		for (int n = 0; n < t->nnics; n++) {
			const struct lp_topo_nic *nic = &t->nics[n];

			fprintf(f, "  NIC%d: %s %s", n, nic->name, nic->bdf[0] ? nic->bdf : "-");
			for (unsigned k = 0; k < nic->nnetdevs; k++)
				fprintf(f, "%s%s", k ? "," : " ", nic->netdevs[k]);
			fprintf(f, " %s%s\n", nic->link_layer[0] ? nic->link_layer : "-",
				nic->port_state && nic->port_state != PORT_ACTIVE
					? " (port 1 not active)"
				: !lp_topo_nic_usable(t, n)
					? " (not the compute fabric: skipped by auto)"
					: "");
		}
	}
	if (t->ngpus)
		fprintf(f,
			"\nGPU order: PCI bus id (as nvidia-smi); CUDA = the ordinal CUDA gives it "
			"(CUDA_VISIBLE_DEVICES; indices there mean CUDA_DEVICE_ORDER=PCI_BUS_ID), "
			"hidden = not visible to CUDA\n");
}

static void json_str_or_null(struct lp_json *j, const char *key, const char *val)
{
	lp_json_str(j, key, val[0] ? val : NULL);
}

static void json_numa(struct lp_json *j, int numa)
{
	if (numa < 0)
		lp_json_null(j, "numa");
	else
		lp_json_int(j, "numa", numa);
}

void lp_topo_json(const struct lp_topo *t, struct lp_json *j)
{
	lp_json_arr_begin(j, "gpus");
	for (int g = 0; g < t->ngpus; g++) {
		const struct lp_topo_gpu *gpu = &t->gpus[g];

		lp_json_obj_begin(j, NULL);
		lp_json_int(j, "index", gpu->index);
		if (gpu->cuda < 0)
			lp_json_null(j, "cuda");
		else
			lp_json_int(j, "cuda", gpu->cuda);
		json_str_or_null(j, "uuid", gpu->uuid);
		lp_json_str(j, "bdf", gpu->bdf);
		lp_json_uint(j, "device_id", gpu->device_id);
		json_numa(j, gpu->numa);
		json_str_or_null(j, "path", gpu->path);
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);

	lp_json_arr_begin(j, "nics");
	for (int n = 0; n < t->nnics; n++) {
		const struct lp_topo_nic *nic = &t->nics[n];

		lp_json_obj_begin(j, NULL);
		lp_json_int(j, "index", n);
		lp_json_str(j, "name", nic->name);
		json_str_or_null(j, "bdf", nic->bdf);
		json_numa(j, nic->numa);
		json_str_or_null(j, "path", nic->path);
		json_str_or_null(j, "link_layer", nic->link_layer);
		lp_json_int(j, "port_state", nic->port_state);
		lp_json_bool(j, "auto_usable", lp_topo_nic_usable(t, n));
		lp_json_arr_begin(j, "netdevs");
		for (unsigned k = 0; k < nic->nnetdevs; k++)
			lp_json_str(j, NULL, nic->netdevs[k]);
		lp_json_arr_end(j);
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);

	lp_json_arr_begin(j, "distance");
	for (int g = 0; g < t->ngpus; g++) {
		lp_json_arr_begin(j, NULL);
		for (int n = 0; n < t->nnics; n++)
			lp_json_str(j, NULL, lp_topo_dist_name(lp_topo_distance(t, g, n)));
		lp_json_arr_end(j);
	}
	lp_json_arr_end(j);
}

int lp_topo_cpulist_parse(const char *list, cpu_set_t *set, size_t setsize)
{
	const char *p = list;

	CPU_ZERO_S(setsize, set);
	while (*p && *p != '\n') {
		unsigned long lo, hi;
		char *end;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		lo = strtoul(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			if (!isdigit((unsigned char)p[1]))
				return -EINVAL;
			hi = strtoul(p + 1, &end, 10);
			p = end;
		}
		if (hi < lo)
			return -EINVAL;
		if (hi >= setsize * 8)
			return -ERANGE;
		for (unsigned long c = lo; c <= hi; c++)
			CPU_SET_S(c, setsize, set);
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	return 0;
}

int lp_numa_bind(int node, struct lp_fail *fail)
{
	char path[96], *line = NULL;
	unsigned long mask[16] = { 0 }; /* 1024 nodes */
	size_t cap = 0, setsize;
	cpu_set_t *set = NULL;
	int ret, ncpu = 0;
	FILE *f;

	if (node == -1)
		return 0;
	if (node < -1)
		return -EINVAL;
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	f = fopen(path, "r");
	if (!f)
		return -ENOENT;
	/* cpulists of big machines exceed any fixed line buffer: getline. */
	if (getline(&line, &cap, f) < 0) {
		ret = -EIO;
		goto out_close;
	}
	/* Size the set from the highest CPU the kernel may report. */
	ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	ncpu = LP_MAX(ncpu, 1024);
	for (const char *p = line; *p; p++)
		if (isdigit((unsigned char)*p) && (p == line || !isdigit((unsigned char)p[-1])))
			ncpu = LP_MAX(ncpu, atoi(p) + 1);
	set = CPU_ALLOC((size_t)ncpu);
	if (!set) {
		ret = -ENOMEM;
		goto out_close;
	}
	setsize = CPU_ALLOC_SIZE((size_t)ncpu);
	ret = lp_topo_cpulist_parse(line, set, setsize);
	if (!ret && CPU_COUNT_S(setsize, set) == 0)
		ret = -EINVAL; /* a memory-only node (CXL, HBM) has no CPUs */
	if (ret) {
		lp_fail_set(fail, ret, "NUMA node %d: cpulist '%s' unusable", node, line);
		goto out_free;
	}
	if (sched_setaffinity(0, setsize, set)) {
		ret = lp_fail_set(fail, -errno, "binding to NUMA node %d CPUs: %s", node,
				  strerror(errno));
		goto out_free;
	}
	if ((size_t)node < sizeof(mask) * 8) {
		mask[node / (8 * sizeof(mask[0]))] |= 1UL << (node % (8 * sizeof(mask[0])));
		/* Preferred, not bound: allocation falls back instead of failing. */
		if (syscall(SYS_set_mempolicy, MPOL_PREFERRED, mask, sizeof(mask) * 8 + 1))
			lp_warn("NUMA node %d: memory policy left unchanged (set_mempolicy: %s)",
				node, strerror(errno));
	}
out_free:
	CPU_FREE(set);
out_close:
	free(line);
	fclose(f);
	return ret;
}
