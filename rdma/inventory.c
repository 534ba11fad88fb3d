// SPDX-License-Identifier: MIT
/* Inventory of RDMA ports and of the host (rdma/inventory.h). */
#include "rdma/inventory.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cmd.h"
#include "common/meta.h"
#include "rdma/check.h"

#define TOOL_OUT 4096

/* clang-format off */
const struct lp_record lp_inv_peer_record = LP_RECORD(struct lp_inv_peer,
	LP_REC_STR(struct lp_inv_peer, name),
	LP_REC_STR(struct lp_inv_peer, guid),
	LP_REC_STR(struct lp_inv_peer, port),
	LP_REC_U32(struct lp_inv_peer, max_width),
	LP_REC_STR(struct lp_inv_peer, max_speed),
	LP_REC_STR(struct lp_inv_peer, source),
	LP_REC_STR(struct lp_inv_peer, note));

const struct lp_record lp_inv_port_record = LP_RECORD(struct lp_inv_port,
	LP_REC_STR(struct lp_inv_port, dev, LP_REC_KEY("device")),
	LP_REC_U32(struct lp_inv_port, port),
	LP_REC_STR(struct lp_inv_port, link_layer),
	LP_REC_STR(struct lp_inv_port, state),
	LP_REC_STR(struct lp_inv_port, node_guid),
	LP_REC_STR(struct lp_inv_port, port_guid),
	LP_REC_U32(struct lp_inv_port, lid),
	LP_REC_STR(struct lp_inv_port, gid),
	LP_REC_STR(struct lp_inv_port, hca, LP_REC_KEY("hca_type")),
	LP_REC_STR(struct lp_inv_port, psid),
	LP_REC_STR(struct lp_inv_port, fw, LP_REC_KEY("firmware")),
	LP_REC_STR(struct lp_inv_port, netdev),
	LP_REC_STR(struct lp_inv_port, mac),
	LP_REC_STR(struct lp_inv_port, rate),
	LP_REC_U32(struct lp_inv_port, width),
	LP_REC_STR(struct lp_inv_port, speed),
	LP_REC_U32(struct lp_inv_port, max_width),
	LP_REC_STR(struct lp_inv_port, max_speed),
	LP_REC_STR(struct lp_inv_port, max_note),
	LP_REC_NEST(struct lp_inv_port, pci, lp_pci_inv_record),
	LP_REC_NEST(struct lp_inv_port, peer, lp_inv_peer_record, LP_REC_KEY("switch")));
/* clang-format on */

/* <root>/sys/class/infiniband/<dev>/<fmt...> into buf ("" when absent). 0 or -errno. */
static int rd(const char *root, const char *dev, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int rd(const char *root, const char *dev, char *buf, size_t len, const char *fmt, ...)
{
	char rel[256], path[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/%s", root, dev, rel);
	buf[0] = '\0';
	return lp_read_line(path, buf, len);
}

/* The low 64 bits of a GID ("fe80:0000:0000:0000:a088:c203:00b4:1a2e") as "a088:c203:00b4:1a2e". */
static void gid_low(const char *gid, char *out, size_t len)
{
	out[0] = '\0';
	if (strlen(gid) == 39 && strcmp(gid + 20, "0000:0000:0000:0000"))
		snprintf(out, len, "%s", gid + 20);
}

/* RoCE: the GID at gid_index, else the first RoCE v2 GID that is not link-local. */
static void roce_gid(const char *root, struct lp_inv_port *p, int gid_index)
{
	char gid[64], type[32];

	for (int i = gid_index >= 0 ? gid_index : 0; i < (gid_index >= 0 ? gid_index + 1 : 256);
	     i++) {
		if (rd(root, p->dev, gid, sizeof(gid), "ports/%u/gids/%d", p->port, i))
			break;
		rd(root, p->dev, type, sizeof(type), "ports/%u/gid_attrs/types/%d", p->port, i);
		if (gid_index >= 0 || (!strcmp(type, "RoCE v2") && strncmp(gid, "fe80:", 5) &&
				       strcmp(gid, "0000:0000:0000:0000:0000:0000:0000:0000"))) {
			snprintf(p->gid, sizeof(p->gid), "%s", gid);
			return;
		}
	}
}

/* "400 Gb/sec (4X NDR)" -> width 4, speed "NDR" (Ethernet ports: the width and rate only). */
static void parse_rate(struct lp_inv_port *p)
{
	char x[8] = "", speed[16] = "";
	double gbps;

	if (sscanf(p->rate, "%lf Gb/sec (%u%7[X] %15[A-Z])", &gbps, &p->width, x, speed) == 4 &&
	    !strcmp(p->link_layer, "InfiniBand"))
		snprintf(p->speed, sizeof(p->speed), "%s", speed);
}

/* smpquery OP... on the port; 0 with the output in out, else the reason in note. */
static int smpquery(const struct lp_inv_opts *o, const struct lp_inv_port *p, char *out, char *note,
		    size_t notelen, const char *op, const char *dest, const char *arg)
{
	char port[16], *argv[10];
	int n = 0, rc;

	snprintf(port, sizeof(port), "%u", p->port);
	argv[n++] = (char *)"smpquery";
	argv[n++] = (char *)"-C";
	argv[n++] = (char *)p->dev;
	argv[n++] = (char *)"-P";
	argv[n++] = port;
	argv[n++] = (char *)"-D";
	argv[n++] = (char *)op;
	argv[n++] = (char *)dest;
	if (arg)
		argv[n++] = (char *)arg;
	argv[n] = NULL;
	rc = lp_cmd_capture(argv, out, TOOL_OUT, o->timeout_ms);
	if (!rc)
		return 0;
	if (rc == -ENOENT)
		snprintf(note, notelen, "unknown: smpquery not installed (infiniband-diags)");
	else if (rc == -ETIMEDOUT)
		snprintf(note, notelen, "unknown: smpquery %s timed out", op);
	else
		snprintf(note, notelen, "unknown: smpquery %s: %.*s", op, (int)strcspn(out, "\n"),
			 out[0] ? out : "failed (root needed for umad?)");
	return -EIO;
}

/* The widest width and best speed a PortInfo dump shows. */
static void portinfo_max(const char *text, uint32_t *width, char *speed, size_t len)
{
	char w[64] = "", s[64] = "", e[128] = "", e2[64] = "";
	const char *best;

	lp_ibdiag_field(text, "LinkWidthSupported", w, sizeof(w));
	lp_ibdiag_field(text, "LinkSpeedSupported", s, sizeof(s));
	lp_ibdiag_field(text, "LinkSpeedExtSupported", e, sizeof(e));
	lp_ibdiag_field(text, "LinkSpeedExtSupported2", e2, sizeof(e2));
	*width = lp_ibdiag_max_width(w);
	best = lp_ibdiag_max_speed(s, e, e2);
	snprintf(speed, len, "%s", best ? best : "");
}

/* InfiniBand: this port's and its neighbour's PortInfo, the neighbour's NodeInfo and NodeDesc. */
static void ib_peer(const struct lp_inv_opts *o, struct lp_inv_port *p)
{
	struct lp_inv_peer *sw = &p->peer;
	char *out = malloc(TOOL_OUT), path[16], type[32] = "", local[16] = "";

	if (!out)
		return;
	snprintf(path, sizeof(path), "0,%u", p->port);
	if (!smpquery(o, p, out, p->max_note, sizeof(p->max_note), "portinfo", "0", NULL)) {
		portinfo_max(out, &p->max_width, p->max_speed, sizeof(p->max_speed));
		snprintf(p->max_note, sizeof(p->max_note), "smpquery portinfo");
	}
	if (smpquery(o, p, out, sw->note, sizeof(sw->note), "nodeinfo", path, NULL))
		goto out;
	lp_ibdiag_field(out, "NodeType", type, sizeof(type));
	lp_ibdiag_field(out, "Guid", sw->guid, sizeof(sw->guid));
	lp_ibdiag_field(out, "LocalPort", local, sizeof(local));
	snprintf(sw->port, sizeof(sw->port), "%s", local);
	snprintf(sw->source, sizeof(sw->source), "smpquery");
	if (!smpquery(o, p, out, sw->note, sizeof(sw->note), "nodedesc", path, NULL))
		lp_ibdiag_field(out, "Node Description", sw->name, sizeof(sw->name));
	if (strcmp(type, "Switch"))
		snprintf(sw->note, sizeof(sw->note), "the far end is a %s, not a switch",
			 type[0] ? type : "node of unknown type");
	if (local[0] && !smpquery(o, p, out, sw->note, sizeof(sw->note), "portinfo", path, local))
		portinfo_max(out, &sw->max_width, sw->max_speed, sizeof(sw->max_speed));
out:
	free(out);
}

/* RoCE: lldpd's view of the netdev's neighbour. */
static void lldp_peer(const struct lp_inv_opts *o, struct lp_inv_port *p)
{
	char *argv[] = { (char *)"lldpctl", (char *)"-f", (char *)"keyvalue", p->netdev, NULL };
	char *out = malloc(TOOL_OUT);
	int rc;

	if (!out)
		return;
	rc = p->netdev[0] ? lp_cmd_capture(argv, out, TOOL_OUT, o->timeout_ms) : -ENODEV;
	if (!rc && !lp_lldp_parse(out, p->netdev, &p->peer))
		;
	else if (rc == -ENOENT)
		snprintf(p->peer.note, sizeof(p->peer.note),
			 "unknown: lldpctl not installed (lldpd)");
	else if (rc == -ENODEV)
		snprintf(p->peer.note, sizeof(p->peer.note), "unknown: the port has no netdev");
	else if (rc)
		snprintf(p->peer.note, sizeof(p->peer.note), "unknown: lldpctl: %.*s",
			 (int)strcspn(out, "\n"), out[0] ? out : "failed (is lldpd running?)");
	else
		snprintf(p->peer.note, sizeof(p->peer.note),
			 "unknown: lldpd sees no neighbour on %s (LLDP off on the switch?)",
			 p->netdev);
	free(out);
}

int lp_inv_port_read(const struct lp_inv_opts *o, const char *dev, unsigned port, int gid_index,
		     struct lp_inv_port *p)
{
	const char *root = o->root ? o->root : "";
	char path[PATH_MAX], gid0[64], state[32];

	memset(p, 0, sizeof(*p));
	snprintf(p->dev, sizeof(p->dev), "%s", dev);
	p->port = port;
	snprintf(p->peer.note, sizeof(p->peer.note), "unknown: not asked (no live system)");
	snprintf(p->max_note, sizeof(p->max_note), "unknown: not asked");
	if (rd(root, dev, p->link_layer, sizeof(p->link_layer), "ports/%u/link_layer", port)) {
		snprintf(p->pci.vpd.note, sizeof(p->pci.vpd.note), "no port %u on %s", port, dev);
		return -ENOENT;
	}
	rd(root, dev, state, sizeof(state), "ports/%u/state", port);
	snprintf(p->state, sizeof(p->state), "%s",
		 strchr(state, ' ') ? strchr(state, ' ') + 1 : state);
	rd(root, dev, p->node_guid, sizeof(p->node_guid), "node_guid");
	rd(root, dev, p->hca, sizeof(p->hca), "hca_type");
	rd(root, dev, p->psid, sizeof(p->psid), "board_id");
	rd(root, dev, p->fw, sizeof(p->fw), "fw_ver");
	rd(root, dev, p->rate, sizeof(p->rate), "ports/%u/rate", port);
	parse_rate(p);
	rd(root, dev, p->netdev, sizeof(p->netdev), "ports/%u/gid_attrs/ndevs/0", port);
	if (!strcmp(p->link_layer, "InfiniBand")) {
		char lid[16];

		rd(root, dev, lid, sizeof(lid), "ports/%u/lid", port);
		p->lid = (uint32_t)strtoul(lid, NULL, 0);
		rd(root, dev, gid0, sizeof(gid0), "ports/%u/gids/0", port);
		snprintf(p->gid, sizeof(p->gid), "%s", gid0);
		gid_low(gid0, p->port_guid, sizeof(p->port_guid));
	} else {
		roce_gid(root, p, gid_index);
	}
	if (p->netdev[0]) {
		snprintf(path, sizeof(path), "%s/sys/class/net/%s/address", root, p->netdev);
		lp_read_line(path, p->mac, sizeof(p->mac));
	}
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device", dev);
	lp_pci_inv_read(root, path, o->vpd, &p->pci);
	if (strcmp(p->link_layer, "InfiniBand"))
		snprintf(p->max_note, sizeof(p->max_note),
			 "unknown: Ethernet (ethtool %s lists the supported modes)", p->netdev);
	if (!o->tools || root[0])
		return 0;
	if (!strcmp(p->link_layer, "InfiniBand"))
		ib_peer(o, p);
	else
		lldp_peer(o, p);
	return 0;
}

int lp_inv_host_read(const struct lp_inv_opts *o, struct lp_inv_host *h)
{
	const char *root = o->root ? o->root : "";
	char **devs, **ports;
	int n, np, ret;

	memset(h, 0, sizeof(*h));
	if (gethostname(h->host, sizeof(h->host) - 1))
		snprintf(h->host, sizeof(h->host), "unknown");
	ret = lp_dir_list(root, "/sys/class/infiniband", &devs, &n);
	for (int i = 0; !ret && i < n; i++) {
		char rel[PATH_MAX];

		snprintf(rel, sizeof(rel), "/sys/class/infiniband/%s/ports", devs[i]);
		if (lp_dir_list(root, rel, &ports, &np))
			continue;
		for (int k = 0; k < np && h->nports < LP_INV_MAX_PORTS; k++)
			if (!lp_inv_port_read(o, devs[i], (unsigned)atoi(ports[k]), -1,
					      &h->ports[h->nports]))
				h->nports++;
		lp_dir_free(ports, np);
	}
	lp_dir_free(devs, n);
	if (ret == -ENOMEM)
		return ret;
	return lp_gpu_inv_read(root, &h->gpus);
}

/* s, or "unknown" when it is empty. */
static const char *known(const char *s)
{
	return s && s[0] ? s : "unknown";
}

static void print_port(const struct lp_inv_port *p, FILE *f)
{
	const struct lp_pci_inv *pci = &p->pci;
	char link[64];

	fprintf(f, "%s port %u  %s %s  %s", p->dev, p->port, known(p->link_layer), known(p->state),
		known(p->rate));
	if (p->max_width)
		fprintf(f, "  (port supports %uX %s)", p->max_width, known(p->max_speed));
	else
		fprintf(f, "  (port's best: %s)", p->max_note);
	fprintf(f, "\n  node GUID %s", known(p->node_guid));
	if (!strcmp(p->link_layer, "InfiniBand"))
		fprintf(f, "  port GUID %s  LID %u (0x%x)", known(p->port_guid), p->lid, p->lid);
	else
		fprintf(f, "  GID %s  MAC %s", known(p->gid), known(p->mac));
	fprintf(f, "\n  HCA %s  PSID %s  firmware %s  netdev %s\n", known(p->hca), known(p->psid),
		known(p->fw), known(p->netdev));
	lp_pci_inv_link_str(pci, link, sizeof(link));
	fprintf(f, "  PCI %s (%s)  slot %s (%s)  PCIe %s  NUMA %d\n", known(pci->bdf),
		known(pci->id), known(pci->slot), pci->slot_source, link, pci->numa);
	if (pci->vpd.note[0])
		fprintf(f, "  VPD unknown (%s)\n", pci->vpd.note);
	else
		fprintf(f, "  VPD %s  part %s  serial %s  EC %s%s%s\n", known(pci->vpd.product),
			known(pci->vpd.pn), known(pci->vpd.sn), known(pci->vpd.ec),
			pci->vpd.vendor[0] ? "  " : "", pci->vpd.vendor);
	if (p->peer.source[0])
		fprintf(f, "  switch %s  GUID %s  port %s (%s)%s%s\n", known(p->peer.name),
			known(p->peer.guid), known(p->peer.port), p->peer.source,
			p->peer.note[0] ? ": " : "", p->peer.note);
	else
		fprintf(f, "  switch %s\n", p->peer.note[0] ? p->peer.note : "unknown");
}

void lp_inv_host_print(const struct lp_inv_host *h, FILE *f)
{
	fprintf(f, "host %s: %u RDMA port(s), %u GPU(s)%s%s\n", h->host, h->nports,
		h->gpus.n + h->gpus.more, h->gpus.note[0] ? "; " : "", h->gpus.note);
	for (uint32_t i = 0; i < h->nports; i++)
		print_port(&h->ports[i], f);
	for (uint32_t i = 0; i < h->gpus.n; i++) {
		const struct lp_inv_gpu *g = &h->gpus.gpu[i];

		fprintf(f,
			"GPU %s  %s  serial %s  VBIOS %s  part %s  %s  slot %s  PCIe %.1f GT/s x%u (max %.1f GT/s x%u)  NUMA %d\n",
			g->bdf, known(g->name), known(g->serial), known(g->vbios), known(g->part),
			known(g->uuid), known(g->slot), g->cur_gts, g->cur_width, g->max_gts,
			g->max_width, g->numa);
	}
}

void lp_inv_host_json(const struct lp_inv_host *h, struct lp_json *j)
{
	lp_json_str(j, "host", h->host);
	lp_json_arr_begin(j, "ports");
	for (uint32_t i = 0; i < h->nports; i++) {
		lp_json_obj_begin(j, NULL);
		lp_record_json(&lp_inv_port_record, &h->ports[i], j);
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);
	lp_json_obj_begin(j, "gpus");
	lp_record_json(&lp_inv_gpus_record, &h->gpus, j);
	lp_json_obj_end(j);
}

/* One OK line "inventory" per port and GPU: what a vendor needs, in --check's report. */
void lp_inv_host_check_lines(const struct lp_inv_host *h, struct lp_check_report *r)
{
	for (uint32_t i = 0; i < h->nports; i++) {
		const struct lp_inv_port *p = &h->ports[i];
		struct lp_check_line l = { .status = LP_CHECK_OK };
		char link[64], addr[48];

		lp_pci_inv_link_str(&p->pci, link, sizeof(link));
		if (p->lid)
			snprintf(addr, sizeof(addr), "LID %u", p->lid);
		else
			snprintf(addr, sizeof(addr), "GID %s", known(p->gid));
		snprintf(l.item, sizeof(l.item), "inventory");
		snprintf(l.subject, sizeof(l.subject), "%s port %u", p->dev, p->port);
		snprintf(
			l.detail, sizeof(l.detail),
			"GUID %s, %s; %s PSID %s fw %s; PCI %s slot %s %s; part %s serial %s; switch %s port %s",
			known(p->node_guid), addr, known(p->hca), known(p->psid), known(p->fw),
			known(p->pci.bdf), known(p->pci.slot), link, known(p->pci.vpd.pn),
			known(p->pci.vpd.sn), known(p->peer.name), known(p->peer.port));
		lp_check_line_add(r, &l);
	}
	for (uint32_t i = 0; i < h->gpus.n; i++) {
		const struct lp_inv_gpu *g = &h->gpus.gpu[i];
		struct lp_check_line l = { .status = LP_CHECK_OK };

		snprintf(l.item, sizeof(l.item), "inventory");
		snprintf(l.subject, sizeof(l.subject), "GPU %s", g->bdf);
		snprintf(l.detail, sizeof(l.detail), "%s serial %s VBIOS %s part %s %s slot %s%s%s",
			 known(g->name), known(g->serial), known(g->vbios), known(g->part),
			 known(g->uuid), known(g->slot), h->gpus.note[0] ? "; " : "", h->gpus.note);
		lp_check_line_add(r, &l);
	}
}
