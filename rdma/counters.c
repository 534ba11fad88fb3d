// SPDX-License-Identifier: MIT
#include "counters.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/lp.h"
#include "common/meta.h"

/*
 * The counter table. Sources: the IBA spec's PortCounters attribute (as the
 * kernel's ib_core exposes it), the kernel's mlx5 and rxe hw_counters lists
 * and NVIDIA's "Understanding mlx5 Linux counters", Linux netdev statistics.
 */
static const struct lp_ctr_info table[] = {
	/* ---- ports/N/counters (IBA PortCounters) ---- */
	{ "symbol_error", LP_CTR_ERROR, "minor link errors (bad symbols) on the physical lanes",
	  "a marginal cable, connector or transceiver; dirt on optics" },
	{ "link_error_recovery", LP_CTR_ERROR, "link retrained after errors (successfully)",
	  "a marginal cable or transceiver; the link is about to flap" },
	{ "link_downed", LP_CTR_ERROR, "link went down after failed retraining",
	  "a bad or unplugged cable, a rebooted switch or peer" },
	{ "port_rcv_errors", LP_CTR_ERROR, "received packets with errors (CRC, length, ...)",
	  "bit errors on the link: cable, transceiver, switch port" },
	{ "port_rcv_remote_physical_errors", LP_CTR_ERROR,
	  "received packets marked bad by an upstream hop (EBP)",
	  "a bad link somewhere else on the path, not this one" },
	{ "port_rcv_switch_relay_errors", LP_CTR_ERROR, "packets a switch could not forward",
	  "routing problems (bad LID, no route)" },
	{ "port_xmit_discards", LP_CTR_ERROR, "outbound packets dropped (port down or congested)",
	  "link down during traffic, or head-of-line timeouts in a congested fabric" },
	{ "port_xmit_constraint_errors", LP_CTR_ERROR,
	  "outbound packets refused by partition or filter", "P_Key/partition misconfiguration" },
	{ "port_rcv_constraint_errors", LP_CTR_ERROR,
	  "inbound packets refused by partition or filter", "P_Key/partition misconfiguration" },
	{ "local_link_integrity_errors", LP_CTR_ERROR, "local physical errors above the threshold",
	  "a marginal link (see symbol_error)" },
	{ "excessive_buffer_overrun_errors", LP_CTR_ERROR,
	  "receive buffer overruns above the threshold",
	  "flow-control credit problems between the two ends of a link" },
	{ "VL15_dropped", LP_CTR_ERROR, "subnet management packets dropped",
	  "SM traffic storm or a slow management agent" },
	{ "port_xmit_wait", LP_CTR_CONGESTION,
	  "ticks with data to send but no credits from the peer",
	  "congestion downstream (incast, a slow receiver, a hot switch port)" },
	{ "port_xmit_data", LP_CTR_TRAFFIC, "data sent, in 4-byte words", "traffic" },
	{ "port_rcv_data", LP_CTR_TRAFFIC, "data received, in 4-byte words", "traffic" },
	{ "port_xmit_packets", LP_CTR_TRAFFIC, "packets sent", "traffic" },
	{ "port_rcv_packets", LP_CTR_TRAFFIC, "packets received", "traffic" },
	{ "unicast_xmit_packets", LP_CTR_TRAFFIC, "unicast packets sent", "traffic" },
	{ "unicast_rcv_packets", LP_CTR_TRAFFIC, "unicast packets received", "traffic" },
	{ "multicast_xmit_packets", LP_CTR_TRAFFIC, "multicast packets sent", "traffic" },
	{ "multicast_rcv_packets", LP_CTR_TRAFFIC, "multicast packets received", "traffic" },
	/* ---- mlx5 hw_counters ---- */
	{ "out_of_sequence", LP_CTR_ERROR, "responder got packets out of order (PSN gap)",
	  "packet loss on the path (RoCE without lossless config), a flapping link" },
	{ "packet_seq_err", LP_CTR_ERROR, "requester got a NAK sequence error",
	  "packet loss on the path" },
	{ "implied_nak_seq_err", LP_CTR_ERROR, "requester saw an ACK implying lost responses",
	  "packet loss on the path (often lost READ responses)" },
	{ "local_ack_timeout_err", LP_CTR_ERROR, "requester retransmitted after an ACK timeout",
	  "heavy loss, a dead peer, or a timeout set too low" },
	{ "rnr_nak_retry_err", LP_CTR_ERROR, "RNR NAK retries exhausted",
	  "the receiver posted too few receive buffers" },
	{ "out_of_buffer", LP_CTR_ERROR, "packets dropped: no receive WQE posted",
	  "the application does not post receives fast enough" },
	{ "duplicate_request", LP_CTR_ERROR, "responder got a request it already executed",
	  "retransmissions after lost ACKs" },
	{ "resp_local_length_error", LP_CTR_ERROR, "responder: inbound message longer than the WQE",
	  "application bug (receive buffers too small)" },
	{ "resp_cqe_error", LP_CTR_ERROR, "responder completions with error",
	  "see the other errors" },
	{ "req_cqe_error", LP_CTR_ERROR, "requester completions with error",
	  "see the other errors" },
	{ "req_remote_invalid_request", LP_CTR_ERROR, "remote side rejected a request as invalid",
	  "application bug (bad length, opcode)" },
	{ "req_remote_access_errors", LP_CTR_ERROR, "remote side refused access (bad rkey/address)",
	  "application bug or a deregistered buffer" },
	{ "resp_remote_access_errors", LP_CTR_ERROR, "this side refused a remote access",
	  "application bug on the peer" },
	{ "resp_cqe_flush_error", LP_CTR_ERROR, "responder work flushed (QP went to error)",
	  "a QP error, usually after another error" },
	{ "req_cqe_flush_error", LP_CTR_ERROR, "requester work flushed (QP went to error)",
	  "a QP error, usually after another error" },
	{ "roce_adp_retrans", LP_CTR_ERROR, "adaptive retransmissions (RoCE)", "packet loss" },
	{ "roce_adp_retrans_to", LP_CTR_ERROR, "adaptive retransmission timeouts (RoCE)",
	  "packet loss" },
	{ "roce_slow_restart", LP_CTR_ERROR, "slow restarts after loss (RoCE)", "packet loss" },
	{ "rx_icrc_encapsulated", LP_CTR_ERROR, "RoCE packets with a bad ICRC",
	  "corruption on the path" },
	{ "np_cnp_sent", LP_CTR_CONGESTION, "notification point: CNPs sent for ECN-marked packets",
	  "congestion on the path to this receiver (switch ECN marking)" },
	{ "np_ecn_marked_roce_packets", LP_CTR_CONGESTION, "RoCE packets received with ECN marks",
	  "switch queues above the ECN threshold" },
	{ "rp_cnp_handled", LP_CTR_CONGESTION,
	  "reaction point: CNPs received, rate reduced (DCQCN)",
	  "congestion on the path from this sender" },
	{ "rp_cnp_ignored", LP_CTR_CONGESTION, "CNPs received and ignored",
	  "DCQCN disabled for the priority" },
	{ "roce_slow_restart_cnps", LP_CTR_CONGESTION, "CNPs generated by slow restart",
	  "packet loss" },
	{ "rx_write_requests", LP_CTR_TRAFFIC, "RDMA WRITE requests received", "traffic" },
	{ "rx_read_requests", LP_CTR_TRAFFIC, "RDMA READ requests received", "traffic" },
	{ "rx_atomic_requests", LP_CTR_TRAFFIC, "atomic requests received", "traffic" },
	/* ---- rxe hw_counters ---- */
	{ "sent_pkts", LP_CTR_TRAFFIC, "packets sent", "traffic" },
	{ "rcvd_pkts", LP_CTR_TRAFFIC, "packets received", "traffic" },
	{ "rdma_sends", LP_CTR_TRAFFIC, "RDMA packets sent", "traffic" },
	{ "rdma_recvs", LP_CTR_TRAFFIC, "RDMA packets received", "traffic" },
	{ "out_of_seq_request", LP_CTR_ERROR, "responder got a request out of order (PSN gap)",
	  "packet loss on the path" },
	{ "rcvd_seq_err", LP_CTR_ERROR, "requester got a NAK sequence error",
	  "packet loss on the path" },
	{ "completer_retry_err", LP_CTR_ERROR, "requester retransmitted (timeout or NAK)",
	  "packet loss on the path, a slow or dead peer" },
	{ "retry_exceeded_err", LP_CTR_ERROR, "retries exhausted: the QP failed",
	  "sustained loss, or the peer is gone" },
	{ "retry_rnr_exceeded_err", LP_CTR_ERROR, "RNR retries exhausted: the QP failed",
	  "the receiver posted too few receive buffers" },
	{ "rcvd_rnr_err", LP_CTR_ERROR, "requester got RNR NAKs (receiver not ready)",
	  "the receiver posts receives too slowly" },
	{ "send_rnr_err", LP_CTR_ERROR, "responder sent RNR NAKs (no receive posted)",
	  "this side posts receives too slowly" },
	{ "send_err", LP_CTR_ERROR, "packets the netdev failed to send",
	  "the netdev queue is full or down" },
	{ "ack_deferred", LP_CTR_TRAFFIC, "ACKs coalesced", "normal under load" },
	{ "lifespan", LP_CTR_TRAFFIC, "counter refresh period (ms), not a count",
	  "driver constant" },
	/* ---- netdev statistics ---- */
	{ "rx_bytes", LP_CTR_TRAFFIC, "bytes received by the netdev", "traffic" },
	{ "tx_bytes", LP_CTR_TRAFFIC, "bytes sent by the netdev", "traffic" },
	{ "rx_packets", LP_CTR_TRAFFIC, "packets received by the netdev", "traffic" },
	{ "tx_packets", LP_CTR_TRAFFIC, "packets sent by the netdev", "traffic" },
	{ "multicast", LP_CTR_TRAFFIC, "multicast packets received", "traffic" },
	{ "collisions", LP_CTR_ERROR, "collisions (half duplex)", "a duplex mismatch" },
	{ "rx_errors", LP_CTR_ERROR, "bad packets received",
	  "bit errors: cable, transceiver, switch port" },
	{ "tx_errors", LP_CTR_ERROR, "packets that failed to send", "link problems" },
	{ "rx_dropped", LP_CTR_ERROR, "received packets dropped by the host",
	  "full rings, no buffer, or unknown protocol (some drivers count harmless drops here)" },
	{ "tx_dropped", LP_CTR_ERROR, "packets dropped before sending",
	  "a full queue, qdisc drops" },
	{ "rx_crc_errors", LP_CTR_ERROR, "frames with a bad FCS",
	  "bit errors: cable, transceiver" },
	{ "rx_frame_errors", LP_CTR_ERROR, "misaligned frames", "bit errors" },
	{ "rx_length_errors", LP_CTR_ERROR, "frames with a bad length",
	  "MTU mismatch, bit errors" },
	{ "rx_over_errors", LP_CTR_ERROR, "receive ring overflows", "the host does not keep up" },
	{ "rx_fifo_errors", LP_CTR_ERROR, "receive FIFO overruns", "the host does not keep up" },
	{ "rx_missed_errors", LP_CTR_ERROR, "frames missed by the NIC", "no receive buffer" },
	{ "tx_carrier_errors", LP_CTR_ERROR, "carrier lost while sending", "link down, cable" },
	{ "tx_aborted_errors", LP_CTR_ERROR, "sends aborted", "link problems" },
	{ "tx_fifo_errors", LP_CTR_ERROR, "transmit FIFO underruns", "the host does not keep up" },
	{ "tx_heartbeat_errors", LP_CTR_ERROR, "heartbeat errors", "old PHYs" },
	{ "tx_window_errors", LP_CTR_ERROR, "late collisions", "a duplex mismatch" },
	{ "rx_compressed", LP_CTR_TRAFFIC, "compressed packets received", "traffic" },
	{ "tx_compressed", LP_CTR_TRAFFIC, "compressed packets sent", "traffic" },
	{ "rx_nohandler", LP_CTR_TRAFFIC, "packets no protocol wanted", "unrelated traffic" },
	/* ---- ethtool (kept: pause/PFC entries) ---- */
	{ "rx_prio*_pause", LP_CTR_CONGESTION, "PFC pause frames received for a priority",
	  "the peer (switch) is congested on that priority: lossless RoCE is pushing back" },
	{ "tx_prio*_pause", LP_CTR_CONGESTION, "PFC pause frames sent for a priority",
	  "this host cannot drain its receive buffers (slow PCIe, host memory, too few receives)" },
	{ "rx_pause_ctrl_phy", LP_CTR_CONGESTION, "global pause frames received",
	  "the peer is congested" },
	{ "tx_pause_ctrl_phy", LP_CTR_CONGESTION, "global pause frames sent",
	  "this host cannot drain receives" },
};

static const struct lp_ctr_info unknown_info[] = {
	{ "", LP_CTR_TRAFFIC, "not in linkperf's table", "see the driver's documentation" },
	{ "", LP_CTR_ERROR, "not in linkperf's table (classed by its name)",
	  "see the driver's documentation" },
	{ "", LP_CTR_CONGESTION, "not in linkperf's table (classed by its name)",
	  "see the driver's documentation" },
};

const char *const lp_ctr_class_names[] = { "traffic", "error", "congestion", NULL };
const char *const lp_ctr_src_names[] = { "port", "hw", "netdev", "ethtool", NULL };
static const char *const src_dirs[] = { "counters", "hw_counters" };

const char *lp_ctr_class_name(enum lp_ctr_class c)
{
	return (unsigned)c < LP_ARRAY_SIZE(lp_ctr_class_names) - 1 ? lp_ctr_class_names[c] : "?";
}

const char *lp_ctr_src_name(enum lp_ctr_src s)
{
	return (unsigned)s < LP_ARRAY_SIZE(lp_ctr_src_names) - 1 ? lp_ctr_src_names[s] : "?";
}

bool lp_counter_is_timeout(const char *name)
{
	static const char *const names[] = { "local_ack_timeout_err", "completer_retry_err",
					     "duplicate_request", "roce_adp_retrans_to" };

	for (size_t i = 0; i < LP_ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

int lp_ctr_src_parse(const char *s)
{
	for (unsigned i = 0; s && lp_ctr_src_names[i]; i++)
		if (!strcmp(s, lp_ctr_src_names[i]))
			return (int)i;
	return -1;
}

const struct lp_ctr_info *lp_counter_table(unsigned *n_p)
{
	*n_p = LP_ARRAY_SIZE(table);
	return table;
}

/* name matches pattern; a '*' in the pattern matches any run of digits. */
static bool name_match(const char *pat, const char *name)
{
	for (; *pat; pat++, name++) {
		if (*pat == '*') {
			if (*name < '0' || *name > '9')
				return false;
			while (name[1] >= '0' && name[1] <= '9')
				name++;
			continue;
		}
		if (*pat != *name)
			return false;
	}
	return !*name;
}

static bool has_any(const char *name, const char *const *words)
{
	for (; *words; words++)
		if (strstr(name, *words))
			return true;
	return false;
}

const struct lp_ctr_info *lp_counter_info(const char *name)
{
	static const char *const err_words[] = { "err", "drop", "discard", "invalid", NULL };
	static const char *const cong_words[] = { "cnp", "ecn", "pause", "pfc", "wait", NULL };

	for (unsigned i = 0; i < LP_ARRAY_SIZE(table); i++)
		if (name_match(table[i].name, name))
			return &table[i];
	if (has_any(name, err_words))
		return &unknown_info[LP_CTR_ERROR];
	if (has_any(name, cong_words))
		return &unknown_info[LP_CTR_CONGESTION];
	return &unknown_info[LP_CTR_TRAFFIC];
}

const char *lp_counters_root(void)
{
	const char *r = getenv("LP_SYSFS_ROOT");

	return r ? r : "";
}

/* ---- reading ----------------------------------------------------------------- */

static void add(struct lp_counters *s, enum lp_ctr_src src, const char *name, uint64_t v)
{
	struct lp_counter *c;

	if (s->n >= LP_CTR_MAX) {
		s->dropped++;
		return;
	}
	c = &s->c[s->n++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->src = (uint8_t)src;
	c->reset = 0;
	c->value = v;
}

/* One unsigned decimal from a sysfs file, without stdio (this is the hot part). */
static int read_u64_at(int dirfd, const char *name, uint64_t *v_p)
{
	char buf[32], *end;
	ssize_t n;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	errno = 0;
	*v_p = strtoull(buf, &end, 10);
	return errno || end == buf || (*end && *end != '\n') ? -EINVAL : 0;
}

/* Every readable counter file in dir. Returns -ENOENT when dir does not exist. */
static int read_dir(struct lp_counters *s, enum lp_ctr_src src, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		uint64_t v = 0;

		if (e->d_name[0] == '.' || strlen(e->d_name) >= LP_CTR_NAME_LEN)
			continue;
		if (!read_u64_at(dirfd(d), e->d_name, &v))
			add(s, src, e->d_name, v);
	}
	closedir(d);
	return 0;
}

/* The netdev of a RoCE port: its first GID's ndev, else the PCI function's first net/ entry. */
static void find_netdev(const char *port_dir, const char *dev_dir, char *out, size_t len)
{
	char path[PATH_MAX];
	DIR *d;
	struct dirent *e;

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/gid_attrs/ndevs/0", port_dir);
	if (!lp_read_line(path, out, len) && out[0])
		return;
	snprintf(path, sizeof(path), "%s/device/net", dev_dir);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(out, len, "%s", e->d_name);
			break;
		}
	closedir(d);
}

/* PFC / pause entries of the netdev's ethtool statistics (live system only). */
static void read_ethtool(struct lp_counters *s)
{
	/* The header plus room for the one length its data[] returns (heap: a flexible array member
	 * inside another struct is a GNU extension). */
	struct ethtool_sset_info *info = calloc(1, sizeof(*info) + sizeof(uint32_t));
	struct ethtool_gstrings *names = NULL;
	struct ethtool_stats *vals = NULL;
	struct ifreq ifr = { 0 };
	uint32_t n;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || !info)
		goto out;
	info->cmd = ETHTOOL_GSSET_INFO;
	info->sset_mask = 1ull << ETH_SS_STATS;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", s->netdev);
	ifr.ifr_data = (void *)info;
	if (ioctl(fd, SIOCETHTOOL, &ifr) || !(info->sset_mask & (1ull << ETH_SS_STATS)))
		goto out;
	n = info->data[0];
	if (!n || n > 65536)
		goto out;
	names = calloc(1, sizeof(*names) + (size_t)n * ETH_GSTRING_LEN);
	vals = calloc(1, sizeof(*vals) + (size_t)n * sizeof(uint64_t));
	if (!names || !vals)
		goto out;
	names->cmd = ETHTOOL_GSTRINGS;
	names->string_set = ETH_SS_STATS;
	names->len = n;
	ifr.ifr_data = (void *)names;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		goto out;
	vals->cmd = ETHTOOL_GSTATS;
	vals->n_stats = n;
	ifr.ifr_data = (void *)vals;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		goto out;
	for (uint32_t i = 0; i < LP_MIN(n, vals->n_stats); i++) {
		char name[ETH_GSTRING_LEN + 1];

		memcpy(name, names->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		name[ETH_GSTRING_LEN] = '\0';
		if (strstr(name, "pause") || strstr(name, "pfc"))
			add(s, LP_CTR_ETHTOOL, name, vals->data[i]);
	}
out:
	free(info);
	free(names);
	free(vals);
	if (fd >= 0)
		close(fd);
}

static int ctr_cmp(const void *a, const void *b)
{
	const struct lp_counter *x = a, *y = b;

	return x->src != y->src ? x->src - y->src : strcmp(x->name, y->name);
}

static bool name_ok(const char *s)
{
	return s && *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

int lp_counters_read(const char *root, const char *dev, unsigned port, struct lp_counters *s)
{
	char dev_dir[PATH_MAX], port_dir[PATH_MAX], path[PATH_MAX + 32], ll[32];
	uint64_t t0 = lp_now_ns();
	int found = 0;

	root = root ? root : "";
	memset(s, 0, offsetof(struct lp_counters, c));
	if (!name_ok(dev) || !port || strlen(dev) >= sizeof(s->dev))
		return -EINVAL;
	snprintf(s->dev, sizeof(s->dev), "%s", dev);
	s->port = port;
	snprintf(dev_dir, sizeof(dev_dir), "%s/sys/class/infiniband/%s", root, dev);
	snprintf(port_dir, sizeof(port_dir), "%s/ports/%u", dev_dir, port);
	for (unsigned k = 0; k < LP_ARRAY_SIZE(src_dirs); k++) {
		snprintf(path, sizeof(path), "%s/%s", port_dir, src_dirs[k]);
		found |= !read_dir(s, (enum lp_ctr_src)k, path);
	}
	snprintf(path, sizeof(path), "%s/link_layer", port_dir);
	if (!lp_read_line(path, ll, sizeof(ll)))
		found = 1;
	if (!found)
		return -ENODEV;
	if (!strcmp(ll, "Ethernet")) {
		find_netdev(port_dir, dev_dir, s->netdev, sizeof(s->netdev));
		if (name_ok(s->netdev)) {
			snprintf(path, sizeof(path), "%s/sys/class/net/%s/statistics", root,
				 s->netdev);
			read_dir(s, LP_CTR_NETDEV, path);
			if (!*root)
				read_ethtool(s);
		}
	}
	qsort(s->c, s->n, sizeof(s->c[0]), ctr_cmp); /* stable order: by source, then name */
	s->read_ns = lp_now_ns() - t0;
	return 0;
}

void lp_counters_delta(const struct lp_counters *before, const struct lp_counters *after,
		       struct lp_counters *d)
{
	memcpy(d, after, offsetof(struct lp_counters, c));
	d->n = 0;
	for (unsigned i = 0; i < after->n; i++) {
		const struct lp_counter *a = &after->c[i];
		/* Same read order on both sides: look at position i first. */
		const struct lp_counter *b = NULL;

		if (i < before->n && before->c[i].src == a->src &&
		    !strcmp(before->c[i].name, a->name))
			b = &before->c[i];
		for (unsigned k = 0; !b && k < before->n; k++)
			if (before->c[k].src == a->src && !strcmp(before->c[k].name, a->name))
				b = &before->c[k];
		if (!b)
			continue;
		d->c[d->n] = *a;
		d->c[d->n].reset = a->value < b->value;
		d->c[d->n].value = a->value < b->value ? a->value : a->value - b->value;
		d->n++;
	}
}

bool lp_counter_is_alarm(const struct lp_counter *c)
{
	return c->value && lp_counter_info(c->name)->cls != LP_CTR_TRAFFIC;
}

unsigned lp_counters_alarms(const struct lp_counters *d)
{
	unsigned n = 0;

	for (unsigned i = 0; i < d->n; i++)
		n += lp_counter_is_alarm(&d->c[i]);
	return n;
}

/* ---- output ------------------------------------------------------------------ */

void lp_counters_print(const struct lp_counters *s, bool nonzero_only, FILE *f)
{
	fprintf(f, "%s port %u%s%s: %u counters, read in %.1f us%s\n", s->dev, s->port,
		s->netdev[0] ? " netdev " : "", s->netdev, s->n, (double)s->read_ns / 1e3,
		s->dropped ? " (some dropped: more than LP_CTR_MAX)" : "");
	fprintf(f, "%-7s  %-34s  %16s  %-10s  %s\n", "source", "counter", "value", "class",
		"meaning");
	for (unsigned i = 0; i < s->n; i++) {
		const struct lp_counter *c = &s->c[i];
		const struct lp_ctr_info *inf = lp_counter_info(c->name);

		if (nonzero_only && !c->value)
			continue;
		fprintf(f, "%-7s  %-34s  %16" PRIu64 "  %-10s  %s%s\n",
			lp_ctr_src_name((enum lp_ctr_src)c->src), c->name, c->value,
			lp_ctr_class_name(inf->cls), inf->meaning,
			c->reset ? " (counter was reset)" : "");
	}
}

/* Members "device", "port", "netdev" (null for InfiniBand). */
static void port_json(const char *dev, unsigned port, const char *netdev, struct lp_json *j)
{
	lp_json_str(j, "device", dev);
	lp_json_uint(j, "port", port);
	if (netdev[0])
		lp_json_str(j, "netdev", netdev);
	else
		lp_json_null(j, "netdev");
}

void lp_counters_json(const struct lp_counters *s, bool is_delta, struct lp_json *j)
{
	port_json(s->dev, s->port, s->netdev, j);
	lp_json_uint(j, "read_ns", s->read_ns);
	lp_json_uint(j, "dropped", s->dropped);
	lp_json_obj_begin(j, "counters");
	for (unsigned src = 0; src < LP_CTR_NSRC; src++) {
		lp_json_obj_begin(j, lp_ctr_src_names[src]);
		for (unsigned i = 0; i < s->n; i++)
			if (s->c[i].src == src)
				lp_json_uint(j, s->c[i].name, s->c[i].value);
		lp_json_obj_end(j);
	}
	lp_json_obj_end(j);
	if (!is_delta)
		return;
	lp_json_arr_begin(j, "alarms");
	for (unsigned i = 0; i < s->n; i++) {
		const struct lp_counter *c = &s->c[i];
		const struct lp_ctr_info *inf = lp_counter_info(c->name);

		if (!lp_counter_is_alarm(c))
			continue;
		lp_json_obj_begin(j, NULL);
		lp_json_str(j, "name", c->name);
		lp_json_str(j, "source", lp_ctr_src_names[c->src]);
		lp_json_uint(j, "delta", c->value);
		lp_json_str(j, "class", lp_ctr_class_name(inf->cls));
		lp_json_str(j, "meaning", inf->meaning);
		lp_json_str(j, "cause", inf->cause);
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);
	lp_json_arr_begin(j, "reset");
	for (unsigned i = 0; i < s->n; i++)
		if (s->c[i].reset)
			lp_json_str(j, NULL, s->c[i].name);
	lp_json_arr_end(j);
}

/* clang-format off */
const struct lp_record lp_counter_record = LP_RECORD(struct lp_counter,
	LP_REC_STR(struct lp_counter, name),
	LP_REC_ENUM(struct lp_counter, src, lp_ctr_src_names, LP_REC_KEY("source")),
	LP_REC_U8(struct lp_counter, reset, LP_REC_RANGE(0, 1)),
	LP_REC_U64(struct lp_counter, value));

const struct lp_record lp_ctr_moved_record = LP_RECORD(struct lp_ctr_moved,
	LP_REC_BOOL(struct lp_ctr_moved, valid),
	LP_REC_STR(struct lp_ctr_moved, dev),
	LP_REC_U32(struct lp_ctr_moved, port),
	LP_REC_STR(struct lp_ctr_moved, netdev),
	LP_REC_U32(struct lp_ctr_moved, more),
	LP_REC_U32(struct lp_ctr_moved, n, LP_REC_RANGE(0, LP_CTR_MOVED_MAX)),
	LP_REC_ARRAY_NEST(struct lp_ctr_moved, c, n, lp_counter_record));
/* clang-format on */

void lp_counters_moved(const struct lp_counters *d, struct lp_ctr_moved *m)
{
	memset(m, 0, sizeof(*m));
	m->valid = true;
	snprintf(m->dev, sizeof(m->dev), "%s", d->dev);
	m->port = d->port;
	snprintf(m->netdev, sizeof(m->netdev), "%s", d->netdev);
	for (int alarms = 1; alarms >= 0; alarms--)
		for (unsigned i = 0; i < d->n; i++) {
			const struct lp_counter *c = &d->c[i];

			if ((!c->value && !c->reset) || lp_counter_is_alarm(c) != (bool)alarms)
				continue;
			if (m->n < LP_CTR_MOVED_MAX)
				m->c[m->n++] = *c;
			else
				m->more++;
		}
}

unsigned lp_ctr_moved_alarms(const struct lp_ctr_moved *m)
{
	unsigned n = 0;

	for (unsigned i = 0; m->valid && i < m->n; i++)
		n += lp_counter_is_alarm(&m->c[i]);
	return n;
}

void lp_ctr_moved_json(const struct lp_ctr_moved *m, const char *key, struct lp_json *j)
{
	if (!m->valid) {
		lp_json_null(j, key);
		return;
	}
	lp_json_obj_begin(j, key);
	port_json(m->dev, m->port, m->netdev, j);
	lp_json_uint(j, "omitted", m->more);
	lp_counter_list_json(m->c, m->n, "moved", j);
	lp_json_obj_end(j);
}

void lp_counter_list_json(const struct lp_counter *c, unsigned n, const char *key,
			  struct lp_json *j)
{
	lp_json_arr_begin(j, key);
	for (unsigned i = 0; i < n; i++) {
		lp_json_obj_begin(j, NULL);
		lp_json_str(j, "name", c[i].name);
		lp_json_str(j, "source", lp_ctr_src_name(c[i].src));
		lp_json_uint(j, "delta", c[i].value);
		lp_json_str(j, "class", lp_ctr_class_name(lp_counter_info(c[i].name)->cls));
		lp_json_bool(j, "reset", c[i].reset);
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);
}

unsigned lp_ctr_moved_print(const struct lp_ctr_moved *m, const char *side, bool sep, FILE *f)
{
	unsigned n = 0;

	for (unsigned i = 0; m->valid && i < m->n; i++) {
		const struct lp_counter *c = &m->c[i];

		if (!lp_counter_is_alarm(c))
			continue;
		fprintf(f, "%s%s %s %s %s%llu (%s)", sep || n ? ", " : "", side, m->dev, c->name,
			c->reset ? "reset, now " : "+", (unsigned long long)c->value,
			lp_ctr_class_name(lp_counter_info(c->name)->cls));
		n++;
	}
	return n;
}
