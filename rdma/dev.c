// SPDX-License-Identifier: MIT
/* Device, port and GID selection; what a result records about the device. */
#include "rdma/internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/lp.h"
#include "common/meta.h"

const char *lp_rdma_gid_type_name(enum lp_gid_type t)
{
	switch (t) {
	case LP_GID_ROCE_V1:
		return "RoCEv1";
	case LP_GID_ROCE_V2:
		return "RoCEv2";
	default:
		return "IB";
	}
}

void lp_rdma_gid_str(const uint8_t raw[16], char *buf, size_t len)
{
	if (!inet_ntop(AF_INET6, raw, buf, (socklen_t)len))
		snprintf(buf, len, "?");
}

static bool gid_is_v4mapped(const uint8_t *g)
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(g, prefix, sizeof(prefix));
}

int lp_rdma_gid_score(const struct lp_gid_entry *e, int family)
{
	bool v4 = gid_is_v4mapped(e->raw);
	bool link_local = e->raw[0] == 0xfe && (e->raw[1] & 0xc0) == 0x80;
	int score = 0;

	if (!e->valid)
		return -1;
	if ((family == AF_INET && v4) || (family == AF_INET6 && !v4))
		score += 100;
	if (!link_local)
		score += 10;
	if (e->type == LP_GID_ROCE_V2)
		score += 2;
	else if (e->type == LP_GID_ROCE_V1)
		score += 1;
	return score;
}

int lp_rdma_gid_pick(const struct lp_gid_entry *tab, int n, int family, int want_type, int *idx_p)
{
	int best = -1, best_score = -1;

	for (int i = 0; i < n; i++) {
		int s;

		if (want_type >= 0 && (int)tab[i].type != want_type)
			continue;
		s = lp_rdma_gid_score(&tab[i], family);
		if (s > best_score) { /* ties keep the lower index */
			best = i;
			best_score = s;
		}
	}
	if (best < 0)
		return -ENOENT;
	*idx_p = best;
	return 0;
}

double lp_rdma_port_gbps(uint8_t active_speed, uint8_t active_width, const char **speed_name_p,
			 unsigned *lanes_p)
{
	/* Data rate per lane after line coding (IBTA): what payload can use. */
	static const struct {
		uint8_t code;
		const char *name;
		double lane_gbps;
	} speeds[] = {
		{ 1, "SDR", 2.0 },    { 2, "DDR", 4.0 },     { 4, "QDR", 8.0 },
		{ 8, "FDR10", 10.0 }, { 16, "FDR", 13.64 },  { 32, "EDR", 25.0 },
		{ 64, "HDR", 50.0 },  { 128, "NDR", 100.0 },
	};
	static const struct {
		uint8_t code;
		unsigned lanes;
	} widths[] = { { 1, 1 }, { 2, 4 }, { 4, 8 }, { 8, 12 }, { 16, 2 } };
	double lane = 0;
	unsigned lanes = 0;

	*speed_name_p = "unknown";
	for (size_t i = 0; i < LP_ARRAY_SIZE(speeds); i++) {
		if (speeds[i].code == active_speed) {
			lane = speeds[i].lane_gbps;
			*speed_name_p = speeds[i].name;
		}
	}
	for (size_t i = 0; i < LP_ARRAY_SIZE(widths); i++)
		if (widths[i].code == active_width)
			lanes = widths[i].lanes;
	*lanes_p = lanes;
	return lane * lanes;
}

void lp_rdma_dev_list(char *buf, size_t len)
{
	struct ibv_device **list;
	int n = 0;

	buf[0] = '\0';
	list = ibv_get_device_list(&n);
	for (int i = 0; list && i < n; i++) {
		strncat(buf, i ? ", " : "", len - strlen(buf) - 1);
		strncat(buf, ibv_get_device_name(list[i]), len - strlen(buf) - 1);
	}
	if (list)
		ibv_free_device_list(list);
	if (!n)
		snprintf(buf, len, "none");
}

static int load_gids(struct lp_rdma_dev *d, int port)
{
	int n = d->port_attr.gid_tbl_len;

	d->gids = calloc((size_t)LP_MAX(n, 1), sizeof(*d->gids));
	if (!d->gids)
		return -ENOMEM;
	d->ngids = n;
	for (int i = 0; i < n; i++) {
		struct ibv_gid_entry e;

		/* Empty slots fail with ENODATA: they stay invalid. */
		if (ibv_query_gid_ex(d->ctx, (uint32_t)port, (uint32_t)i, &e, 0))
			continue;
		memcpy(d->gids[i].raw, e.gid.raw, 16);
		d->gids[i].valid = e.gid.global.subnet_prefix || e.gid.global.interface_id;
		d->gids[i].type = e.gid_type == IBV_GID_TYPE_ROCE_V2   ? LP_GID_ROCE_V2
				  : e.gid_type == IBV_GID_TYPE_ROCE_V1 ? LP_GID_ROCE_V1
								       : LP_GID_IB;
		if (!d->info.netdev[0] && e.ndev_ifindex) {
			char name[IF_NAMESIZE];

			if (if_indextoname(e.ndev_ifindex, name))
				snprintf(d->info.netdev, sizeof(d->info.netdev), "%s", name);
		}
	}
	return 0;
}

static int use_gid(struct lp_rdma_dev *d, int idx, struct lp_fail *f)
{
	if (idx < 0 || idx >= d->ngids || !d->gids[idx].valid)
		return lp_fail_set(f, -EINVAL,
				   "%s port %d: GID index %d is not valid (table has %d entries)",
				   d->info.name, d->info.port, idx, d->ngids);
	memcpy(d->gid.raw, d->gids[idx].raw, 16);
	d->info.gid_index = idx;
	lp_rdma_gid_str(d->gid.raw, d->info.gid, sizeof(d->info.gid));
	snprintf(d->info.gid_type, sizeof(d->info.gid_type), "%s",
		 lp_rdma_gid_type_name(d->gids[idx].type));
	return 0;
}

int lp_rdma_dev_select_gid(struct lp_rdma_dev *d, int family, int want_type, struct lp_fail *f)
{
	int idx;

	if (!d->is_roce)
		return 0; /* IB: LID routed, the GID is informational */
	if (lp_rdma_gid_pick(d->gids, d->ngids, family, want_type, &idx))
		return lp_fail_set(f, -EADDRNOTAVAIL, "%s port %d: no usable GID%s%s for %s peers",
				   d->info.name, d->info.port, want_type >= 0 ? " of type " : "",
				   want_type >= 0 ? lp_rdma_gid_type_name(want_type) : "",
				   family == AF_INET6 ? "IPv6" : "IPv4");
	return use_gid(d, idx, f);
}

static void fill_info(struct lp_rdma_dev *d, struct ibv_device *ibdev, int port)
{
	struct lp_rdma_devinfo *in = &d->info;
	char path[256], line[64];
	const char *speed;
	uint64_t guid = be64toh(ibv_get_device_guid(ibdev));

	snprintf(in->name, sizeof(in->name), "%s", ibv_get_device_name(ibdev));
	in->port = port;
	d->is_roce = d->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
	snprintf(in->link_layer, sizeof(in->link_layer), "%s",
		 d->is_roce ? "Ethernet" : "InfiniBand");
	snprintf(in->transport, sizeof(in->transport), "%s", d->is_roce ? "RoCE" : "IB");
	in->lid = d->port_attr.lid;
	in->active_mtu = 128u << d->port_attr.active_mtu;
	in->rate_gbps = lp_rdma_port_gbps(d->port_attr.active_speed, d->port_attr.active_width,
					  &speed, &in->width);
	snprintf(in->speed, sizeof(in->speed), "%s", speed);
	snprintf(in->fw, sizeof(in->fw), "%s", d->dev_attr.fw_ver);
	in->vendor_id = d->dev_attr.vendor_id;
	in->vendor_part_id = d->dev_attr.vendor_part_id;
	snprintf(in->node_guid, sizeof(in->node_guid), "%04x:%04x:%04x:%04x",
		 (unsigned)(guid >> 48) & 0xffff, (unsigned)(guid >> 32) & 0xffff,
		 (unsigned)(guid >> 16) & 0xffff, (unsigned)guid & 0xffff);
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/numa_node", in->name);
	in->numa_node = lp_read_line(path, line, sizeof(line)) ? -1 : atoi(line);
	in->gid_index = -1;
}

/* Does the device have an active port (port 0: any)? Opened and closed here. */
static bool has_active_port(struct ibv_device *ibdev, int port)
{
	struct ibv_context *ctx = ibv_open_device(ibdev);
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	bool active = false;

	if (!ctx)
		return false;
	if (!ibv_query_device(ctx, &da))
		for (int p = port ? port : 1; p <= (port ? port : da.phys_port_cnt) && !active; p++)
			active = !ibv_query_port(ctx, (uint8_t)p, &pa) &&
				 pa.state == IBV_PORT_ACTIVE;
	ibv_close_device(ctx);
	return active;
}

static struct ibv_device *first_active(struct ibv_device **list, int n, int port)
{
	for (int i = 0; i < n; i++)
		if (has_active_port(list[i], port))
			return list[i];
	return list[0];
}

/* The device sel names, or the first with an active port; NULL with the cause in f. */
static struct ibv_device *find_device(const struct lp_rdma_devsel *sel, struct ibv_device **list,
				      int n, struct lp_fail *f)
{
	char have[256];

	if (!sel->dev || !*sel->dev) /* the first device with an active port, else the first */
		return first_active(list, n, sel->port);
	for (int i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), sel->dev))
			return list[i];
	lp_rdma_dev_list(have, sizeof(have));
	lp_fail_set(f, -EINVAL, "no RDMA device named '%s' (available: %s)", sel->dev, have);
	return NULL;
}

static void close_context(struct lp_rdma_dev *d)
{
	if (d->cm_devs)
		rdma_free_devices(d->cm_devs);
	else
		ibv_close_device(d->ctx);
}

/*
 * Open the device's context. Use librdmacm's own context for the device when it
 * has one: QPs made with rdma_create_qp must share the PD's context, and a cm_id
 * carries librdmacm's context, never one we opened ourselves.
 */
static int open_context(struct lp_rdma_dev *d, struct ibv_device *ibdev, bool own,
			struct lp_fail *f)
{
	int ret;

	d->cm_devs = own ? NULL : rdma_get_devices(NULL);
	for (int i = 0; d->cm_devs && d->cm_devs[i]; i++)
		if (!strcmp(ibv_get_device_name(d->cm_devs[i]->device), ibv_get_device_name(ibdev)))
			d->ctx = d->cm_devs[i];
	if (!d->ctx && d->cm_devs) {
		rdma_free_devices(d->cm_devs);
		d->cm_devs = NULL;
	}
	errno = 0; /* ibv_open_device returns NULL; errno is the best cause */
	if (!d->ctx)
		d->ctx = ibv_open_device(ibdev);
	if (!d->ctx) {
		ret = errno ? -errno : -EIO;
		return lp_fail_set(f, ret, "cannot open %s: %s", ibv_get_device_name(ibdev),
				   strerror(-ret));
	}
	ret = lp_verbs_err(ibv_query_device(d->ctx, &d->dev_attr));
	if (ret) {
		lp_fail_set(f, ret, "ibv_query_device(%s) failed: %s", ibv_get_device_name(ibdev),
			    strerror(-ret));
		close_context(d);
	}
	return ret;
}

/* The port asked for (it must be active), or the first active one: *port_p, or -errno. */
static int pick_port(struct lp_rdma_dev *d, struct ibv_device *ibdev, int *port_p,
		     struct lp_fail *f)
{
	int port = *port_p;

	if (port < 0 || port > d->dev_attr.phys_port_cnt)
		return lp_fail_set(f, -EINVAL, "%s has no port %d (ports 1..%u)",
				   ibv_get_device_name(ibdev), port, d->dev_attr.phys_port_cnt);
	for (int p = port ? port : 1; p <= (port ? port : d->dev_attr.phys_port_cnt); p++) {
		if (ibv_query_port(d->ctx, (uint8_t)p, &d->port_attr))
			continue;
		if (d->port_attr.state == IBV_PORT_ACTIVE || port) {
			port = p;
			break;
		}
	}
	if (!port || d->port_attr.state != IBV_PORT_ACTIVE)
		return lp_fail_set(f, -ENETDOWN, "%s: no active port%s (state %s)",
				   ibv_get_device_name(ibdev), port ? "" : " found",
				   ibv_port_state_str(d->port_attr.state));
	*port_p = port;
	return 0;
}

/* The GID table, the GID to use (given, scored for the peer's family, or IB's first), the PD. */
static int open_port(struct lp_rdma_dev *d, const struct lp_rdma_devsel *sel, int family, int port,
		     struct lp_fail *f)
{
	int ret = load_gids(d, port);

	if (ret)
		return ret;
	if (sel->gid_index >= 0)
		ret = use_gid(d, sel->gid_index, f);
	else if (d->is_roce)
		ret = lp_rdma_dev_select_gid(d, family, -1, f);
	else if (d->ngids && d->gids[0].valid)
		ret = use_gid(d, 0, f);
	if (!ret) {
		errno = 0;
		d->pd = ibv_alloc_pd(d->ctx);
		ret = d->pd ? 0 : errno ? -errno : -ENOMEM;
		if (ret)
			lp_fail_set(f, ret, "ibv_alloc_pd(%s) failed: %s", d->info.name,
				    strerror(-ret));
	}
	if (ret)
		free(d->gids);
	return ret;
}

int lp_rdma_dev_open(const struct lp_rdma_devsel *sel, int family, struct lp_rdma_dev **dev_p,
		     struct lp_fail *f)
{
	struct ibv_device **list;
	struct ibv_device *ibdev;
	struct lp_rdma_dev *d;
	int n = 0, ret, port = sel->port;

	/* resolved by the caller: --qp-timeout, whose row gives the default */
	if (sel->qp_timeout < 1 || sel->qp_timeout > 31)
		return lp_fail_set(f, -EINVAL, "QP timeout exponent %d: not 1..31",
				   sel->qp_timeout);
	list = ibv_get_device_list(&n);
	if (!list || n == 0) {
		if (list)
			ibv_free_device_list(list);
		return lp_fail_set(
			f, -ENODEV,
			"no RDMA device found (is rdma-core's provider installed and the driver loaded?)");
	}
	ibdev = find_device(sel, list, n, f);
	d = ibdev ? calloc(1, sizeof(*d)) : NULL;
	ret = !ibdev ? -EINVAL : !d ? -ENOMEM : open_context(d, ibdev, sel->own_context, f);
	if (ret)
		goto free_dev;
	ret = pick_port(d, ibdev, &port, f);
	if (!ret) {
		fill_info(d, ibdev, port);
		ret = open_port(d, sel, family, port, f);
	}
	if (ret) {
		close_context(d);
		goto free_dev;
	}
	d->tclass = lp_rdma_devsel_tclass(sel);
	d->sl = sel->sl;
	d->qp_timeout = sel->qp_timeout;
	ibv_free_device_list(list);
	*dev_p = d;
	return 0;

free_dev:
	free(d);
	ibv_free_device_list(list);
	return ret;
}

void lp_rdma_dev_close(struct lp_rdma_dev *d)
{
	if (!d)
		return;
	lp_rdma_reuse_free(d->reuse); /* its QPs and buffers before the PD */
	ibv_dealloc_pd(d->pd);
	close_context(d);
	free(d->gids);
	free(d);
}

void lp_rdma_dev_inventory(struct lp_rdma_dev *d, const struct lp_inv_opts *o)
{
	lp_inv_port_read(o, d->info.name, (unsigned)d->info.port, d->info.gid_index, &d->info.inv);
}

const struct lp_rdma_devinfo *lp_rdma_dev_info(const struct lp_rdma_dev *d)
{
	return &d->info;
}

void lp_rdma_devinfo_json(const struct lp_rdma_devinfo *d, struct lp_json *j)
{
	lp_record_json(&lp_rdma_devinfo_record, d, j);
}
