// SPDX-License-Identifier: MIT
/* The RoCE pre-flight's lossless class: PFC and ECN for the traffic class in use (check_roce.h). */
#include "rdma/check_roce.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cmd.h"
#include "common/lp.h"

#define TOOL_MS 5000 /* each helper program at most this long */

void lp_roce_qos_init(struct lp_roce_qos *q)
{
	memset(q, 0, sizeof(*q));
	memset(q->dscp_prio, -1, sizeof(q->dscp_prio));
	memset(q->pfc, -1, sizeof(q->pfc));
	memset(q->ecn_np, -1, sizeof(q->ecn_np));
	memset(q->ecn_rp, -1, sizeof(q->ecn_rp));
}

/* The line of text that starts (after blanks) with key, or NULL. */
static const char *line_with(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *s = l + strspn(l, " \t");

		if (!strncmp(s, key, n))
			return s;
	}
	return NULL;
}

/* "A:B A:B ..." after key on its line: each pair to set(a, b); the pairs read. */
static int pairs(const char *line, void (*set)(struct lp_roce_qos *q, long a, const char *b),
		 struct lp_roce_qos *q)
{
	const char *end = strchr(line, '\n') ? strchr(line, '\n') : line + strlen(line);
	int n = 0;

	for (const char *p = strchr(line, ' '); p && p < end; p = strchr(p + 1, ' ')) {
		char *colon;
		long a = strtol(p + 1, &colon, 10);

		if (colon == p + 1 || *colon != ':' || colon >= end)
			continue;
		set(q, a, colon + 1);
		n++;
	}
	return n;
}

static void set_pfc(struct lp_roce_qos *q, long prio, const char *v)
{
	if (prio >= 0 && prio < 8)
		q->pfc[prio] = !strncmp(v, "on", 2) ? 1 : !strncmp(v, "off", 3) ? 0 : -1;
}

static void map_dscp(struct lp_roce_qos *q, long dscp, long prio)
{
	if (dscp >= 0 && dscp < 64 && prio >= 0 && prio < 8)
		q->dscp_prio[dscp] = (int8_t)prio;
}

static void set_dscp(struct lp_roce_qos *q, long dscp, const char *v)
{
	map_dscp(q, dscp, strtol(v, NULL, 10));
}

int lp_roce_parse_dcb_pfc(const char *text, struct lp_roce_qos *q)
{
	const char *l = line_with(text, "prio-pfc ");

	if (!l || pairs(l, set_pfc, q) < 8)
		return -ENOENT;
	snprintf(q->pfc_src, sizeof(q->pfc_src), "dcb");
	return 0;
}

int lp_roce_parse_dcb_app(const char *text, struct lp_roce_qos *q)
{
	const char *l = line_with(text, "dscp-prio ");

	/* `dcb app show` prints nothing for an empty table: no DSCP entries, PCP trust */
	if (!l) {
		if (strchr(text, ':')) /* an error message, not a table */
			return -ENOENT;
		snprintf(q->trust, sizeof(q->trust), "pcp");
	} else if (pairs(l, set_dscp, q) > 0) {
		snprintf(q->trust, sizeof(q->trust), "dscp");
	} else {
		return -ENOENT;
	}
	snprintf(q->map_src, sizeof(q->map_src), "dcb");
	return 0;
}

/* mlnx_qos: "Priority trust state: dscp", "prio:3 dscp:31,30,...", "enabled     0   0   0   1 ..." */
int lp_roce_parse_mlnx_qos(const char *text, struct lp_roce_qos *q)
{
	const char *trust = line_with(text, "Priority trust state:");
	const char *pfc = line_with(text, "enabled ");
	bool any = false;

	if (trust && sscanf(trust, "Priority trust state: %7s", q->trust) == 1) {
		for (const char *l = line_with(text, "prio:"); l; l = line_with(l + 1, "prio:")) {
			long prio = strtol(l + 5, NULL, 10);
			const char *d = strstr(l, "dscp:"), *end = strchr(l, '\n');

			for (d = d ? d + 5 : NULL; d && (!end || d < end) && *d >= '0' && *d <= '9';
			     d = strchr(d, ',') ? strchr(d, ',') + 1 : NULL)
				map_dscp(q, strtol(d, NULL, 10), prio);
		}
		snprintf(q->map_src, sizeof(q->map_src), "mlnx_qos");
		any = true;
	}
	if (pfc && line_with(text, "PFC configuration:")) {
		unsigned v[8];

		if (sscanf(pfc, "enabled %u %u %u %u %u %u %u %u", &v[0], &v[1], &v[2], &v[3],
			   &v[4], &v[5], &v[6], &v[7]) == 8) {
			for (int p = 0; p < 8; p++)
				q->pfc[p] = v[p] ? 1 : 0;
			snprintf(q->pfc_src, sizeof(q->pfc_src), "mlnx_qos");
			any = true;
		}
	}
	return any ? 0 : -ENOENT;
}

int lp_roce_parse_dscp2prio(const char *text, struct lp_roce_qos *q)
{
	const char *l = strchr(text, '\n'); /* a header line, then "DSCP PRIO" lines */
	int n = 0;

	for (l = l ? l + 1 : NULL; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		int dscp, prio;

		if (sscanf(l, "%d %d", &dscp, &prio) == 2 && dscp >= 0 && dscp < 64 && prio >= 0 &&
		    prio < 8) {
			map_dscp(q, dscp, prio);
			n++;
		}
	}
	return n ? 0 : -ENOENT;
}

int lp_roce_parse_tclass(const char *text)
{
	const char *g = line_with(text, "Global tclass=");
	const char *p = g ? g + strlen("Global tclass=") : text + strspn(text, " \t");
	char *end;
	long v = strtol(p, &end, 10);

	/* "Global tclass=N", or the bare number of older MLNX_OFED; a rule per destination
	 * ("dst_ip=10.0.0.0/8,tclass=98") is not the class of every QP */
	return end != p && (*end == '\0' || *end == '\n' || *end == ' ') && v >= 0 && v <= 255
		       ? (int)v
		       : -1;
}

int lp_roce_parse_dscp(const char *text)
{
	char *end;
	long v = strtol(text, &end, 0); /* bnxt_re writes "%#x": "0x1a" */

	return end != text && (*end == '\0' || *end == '\n') && v >= 0 && v < 64 ? (int)v : -1;
}

/* A small sysfs file whole into buf: 0 or a negative errno (buf ""). */
static int slurp(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int slurp(char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	FILE *f;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return 0;
}

/*
 * The traffic class and the DSCP the port's QPs carry. mlx5's tc/PORT/traffic_class (MLNX_OFED)
 * "Global tclass=N" is applied by the driver to every QP, whatever class the QP asked for;
 * bnxt_re's configfs cc/roce_dscp is the DSCP its firmware marks RoCE with. Else the tools'
 * --tclass, else the verbs default 0, and the DSCP derived from the class (tclass >> 2).
 */
static void read_tclass(const char *root, const char *dev, const char *port, int tclass,
			struct lp_roce_qos *q)
{
	char buf[64];
	int global = -1, dscp = -1;

	if (!slurp(buf, sizeof(buf), "%s/sys/class/infiniband/%s/tc/%s/traffic_class", root, dev,
		   port))
		global = lp_roce_parse_tclass(buf);
	if (!slurp(buf, sizeof(buf), "%s/sys/kernel/config/bnxt_re/%s/ports/%s/cc/roce_dscp", root,
		   dev, port))
		dscp = lp_roce_parse_dscp(buf);
	q->tclass = global >= 0 ? global : tclass >= 0 ? tclass : 0;
	if (global >= 0 && tclass >= 0 && tclass != global)
		snprintf(q->tclass_src, sizeof(q->tclass_src),
			 "the device's, tc/PORT/traffic_class: --tclass %d is overridden", tclass);
	else
		snprintf(q->tclass_src, sizeof(q->tclass_src), "%s",
			 global >= 0   ? "the device's, tc/PORT/traffic_class"
			 : tclass >= 0 ? "--tclass"
				       : "the verbs default");
	if (global >= 0) {
		q->dscp = global >> 2;
		snprintf(q->dscp_src, sizeof(q->dscp_src), "tc/PORT/traffic_class: every QP");
	} else if (dscp >= 0 && tclass < 0) {
		q->dscp = dscp;
		snprintf(q->dscp_src, sizeof(q->dscp_src), "bnxt_re configfs cc/roce_dscp");
	} else {
		q->dscp = q->tclass >> 2;
		snprintf(q->dscp_src, sizeof(q->dscp_src), "derived: tclass %d >> 2", q->tclass);
	}
}

/* MLNX_OFED's qos and ecn directories under the netdev. */
static void read_sysfs(const char *root, const char *netdev, struct lp_roce_qos *q)
{
	char buf[4096];
	int np = 0, rp = 0;

	if (!slurp(buf, sizeof(buf), "%s/sys/class/net/%s/qos/trust", root, netdev) &&
	    sscanf(buf, "%7s", q->trust) == 1) {
		if (!slurp(buf, sizeof(buf), "%s/sys/class/net/%s/qos/dscp2prio", root, netdev))
			lp_roce_parse_dscp2prio(buf, q);
		snprintf(q->map_src, sizeof(q->map_src), "sysfs qos");
	}
	for (int p = 0; p < 8; p++) {
		if (!slurp(buf, sizeof(buf), "%s/sys/class/net/%s/ecn/roce_np/enable/%d", root,
			   netdev, p))
			q->ecn_np[p] = (int8_t)(atoi(buf) != 0), np++;
		if (!slurp(buf, sizeof(buf), "%s/sys/class/net/%s/ecn/roce_rp/enable/%d", root,
			   netdev, p))
			q->ecn_rp[p] = (int8_t)(atoi(buf) != 0), rp++;
	}
	if (np || rp)
		snprintf(q->ecn_src, sizeof(q->ecn_src), "sysfs ecn");
}

/* "; "-separated: what a source said instead of an answer. */
static void note_add(struct lp_roce_qos *q, const char *what, const char *why)
{
	size_t used = strlen(q->note);
	char one[128];

	snprintf(one, sizeof(one), "%s: %s", what, why);
	if (!strstr(q->note, one)) /* dcb's two runs say the same */
		snprintf(q->note + used, sizeof(q->note) - used, "%s%s", used ? "; " : "", one);
}

/* Run one tool into out; its first line in the note when it fails. 0 when it ran (exit 0). */
static int tool(lp_check_cmd_fn *cmd, char *const argv[], char *out, size_t len,
		struct lp_roce_qos *q)
{
	int rc = cmd(argv, out, len, TOOL_MS);
	char first[64];

	if (!rc)
		return 0;
	snprintf(first, sizeof(first), "%.*s", (int)strcspn(out, "\n"), out);
	note_add(q, argv[0],
		 rc == -ENOENT	    ? "not installed"
		 : rc == -ETIMEDOUT ? "timed out"
		 : first[0]	    ? first
				    : "failed");
	return -EIO;
}

/* The tools: iproute2's dcb, then mlnx_qos for what is still unknown. */
static void read_tools(lp_check_cmd_fn *cmd, const char *netdev, struct lp_roce_qos *q)
{
	char out[8192], ifname[32];
	char *pfc[] = { "dcb", "-N", "pfc", "show", "dev", ifname, "prio-pfc", NULL };
	char *app[] = { "dcb", "-N", "app", "show", "dev", ifname, "dscp-prio", NULL };
	char *mq[] = { "mlnx_qos", "-i", ifname, NULL };

	snprintf(ifname, sizeof(ifname), "%s", netdev);
	if (!tool(cmd, pfc, out, sizeof(out), q) && lp_roce_parse_dcb_pfc(out, q))
		note_add(q, "dcb pfc", "no prio-pfc line");
	if (!q->map_src[0] && !tool(cmd, app, out, sizeof(out), q) && lp_roce_parse_dcb_app(out, q))
		note_add(q, "dcb app", "no dscp-prio line");
	if ((!q->pfc_src[0] || !q->map_src[0]) && !tool(cmd, mq, out, sizeof(out), q)) {
		struct lp_roce_qos m;

		lp_roce_qos_init(&m);
		if (!lp_roce_parse_mlnx_qos(out, &m)) {
			if (!q->pfc_src[0] && m.pfc_src[0])
				memcpy(q->pfc, m.pfc, sizeof(q->pfc)),
					strcpy(q->pfc_src, m.pfc_src);
			if (!q->map_src[0] && m.map_src[0]) {
				memcpy(q->dscp_prio, m.dscp_prio, sizeof(q->dscp_prio));
				strcpy(q->trust, m.trust);
				strcpy(q->map_src, m.map_src);
			}
		}
	}
}

void lp_roce_class_read(const char *root, const char *dev, const char *port, int tclass,
			struct lp_roce_qos *q)
{
	lp_roce_qos_init(q);
	read_tclass(root ? root : "", dev, port, tclass, q);
}

void lp_roce_qos_read(const char *root, const char *dev, const char *port, const char *netdev,
		      int tclass, lp_check_cmd_fn *cmd, struct lp_roce_qos *q)
{
	root = root ? root : "";
	lp_roce_class_read(root, dev, port, tclass, q);
	read_sysfs(root, netdev, q);
	if (cmd)
		read_tools(cmd, netdev, q);
	else
		snprintf(q->note, sizeof(q->note), "helper programs are not run on a sysfs tree");
}

int lp_roce_qos_prio(const struct lp_roce_qos *q, int sl, char *how, size_t len)
{
	int dscp = q->dscp;

	if (!strcmp(q->trust, "pcp")) {
		snprintf(how, len, "PCP trust (%s): the VLAN priority, service level %d",
			 q->map_src, sl);
		return sl >= 0 && sl < 8 ? sl : -1;
	}
	if (strcmp(q->trust, "dscp")) {
		snprintf(how, len,
			 "DSCP %d (%s) -> priority unknown: the trust mode is not exposed", dscp,
			 q->dscp_src);
		return -1;
	}
	if (q->dscp_prio[dscp] >= 0) {
		snprintf(how, len, "DSCP %d (%s) -> priority %d (%s)", dscp, q->dscp_src,
			 q->dscp_prio[dscp], q->map_src);
		return q->dscp_prio[dscp];
	}
	/* not listed: the adapter's default map, DSCP / 8 (mlx5, as mlnx_qos prints it) */
	snprintf(how, len, "DSCP %d (%s) -> priority %d (not in the %s map: the default DSCP/8)",
		 dscp, q->dscp_src, dscp >> 3, q->map_src);
	return dscp >> 3;
}

/* The priorities with v[p] == 1, as "3" or "3,4"; "none". */
static const char *prio_list(const int8_t *v, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int p = 0; p < 8; p++)
		if (v[p] == 1 && used + 3 < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%d", used ? "," : "",
						 p);
	return buf[0] ? buf : "none";
}

/* A traffic class whose DSCP lands on prio (ECN-capable, as 106 for DSCP 26): -1 none. */
static int tclass_for(const struct lp_roce_qos *q, int prio)
{
	int best = -1;

	if (strcmp(q->trust, "dscp"))
		return -1;
	for (int d = 63; d >= 0; d--) {
		int p = q->dscp_prio[d] >= 0 ? q->dscp_prio[d] : d >> 3;

		if (p == prio && (best < 0 || d == 26))
			best = d;
	}
	return best < 0 ? -1 : best << 2 | 2;
}

static void line(struct lp_check_report *r, enum lp_check_status st, const char *item,
		 const char *subj, const char *detail, const char *fix)
{
	struct lp_check_line l = { .status = st };

	snprintf(l.item, sizeof(l.item), "%s", item);
	snprintf(l.subject, sizeof(l.subject), "%s", subj);
	snprintf(l.detail, sizeof(l.detail), "%s", detail);
	snprintf(l.fix, sizeof(l.fix), "%s", st == LP_CHECK_OK ? "" : fix);
	lp_check_line_add(r, &l);
}

/* ECN (DCQCN) for prio: 1 on at both ends, 0 off at either, -1 unknown. */
static int ecn_state(const struct lp_roce_qos *q, int prio)
{
	if (prio < 0 || !q->ecn_src[0] || q->ecn_np[prio] < 0 || q->ecn_rp[prio] < 0)
		return -1;
	return q->ecn_np[prio] == 1 && q->ecn_rp[prio] == 1;
}

/*
 * PFC for the class's priority. FAIL when the tests would run lossy on a host built lossless
 * (PFC on another priority) or with no congestion control at all (PFC off everywhere and ECN
 * seen off for the priority); WARN for ECN-only lossy RoCE and when the priority is unknown.
 */
static void judge_pfc(struct lp_check_report *r, const char *subj, const char *netdev,
		      const struct lp_roce_qos *q, int prio, const char *how)
{
	char on[24], d[256], fix[256];
	enum lp_check_status st = LP_CHECK_WARN;
	int other = -1, ecn = ecn_state(q, prio);

	prio_list(q->pfc, on, sizeof(on));
	for (int p = 0; p < 8 && other < 0; p++)
		other = q->pfc[p] == 1 ? p : -1;
	if (prio >= 0 && q->pfc[prio] == 1) {
		snprintf(d, sizeof(d), "PFC on for priority %d: tclass %d (%s), %s (%s)", prio,
			 q->tclass, q->tclass_src, how, q->pfc_src);
		line(r, LP_CHECK_OK, "roce_pfc", subj, d, NULL);
		return;
	}
	if (other < 0) {
		st = ecn == 0 ? LP_CHECK_FAIL : LP_CHECK_WARN;
		snprintf(d, sizeof(d), "PFC off on every priority of %s (%s): RoCE runs lossy, %s",
			 netdev, q->pfc_src,
			 ecn == 1   ? "ECN on for its priority"
			 : ecn == 0 ? "and ECN is off for its priority: nothing slows a sender"
				    : "ECN unknown");
		int p = prio >= 0 ? prio : 3; /* the usual RoCE priority when unknown */
		char mask[16];

		for (int i = 0; i < 8; i++)
			snprintf(mask + 2 * i, sizeof(mask) - 2 * (size_t)i, "%d,", i == p);
		mask[15] = '\0';
		snprintf(
			fix, sizeof(fix),
			"enable PFC on priority %d here and on the switch ports (dcb pfc set dev %s "
			"prio-pfc %d:on, or mlnx_qos -i %s --pfc %s), unless the fabric is meant "
			"lossy with ECN",
			p, netdev, p, netdev, mask);
	} else if (prio >= 0) {
		int tc = tclass_for(q, other);

		st = LP_CHECK_FAIL; /* the tests would not measure the class the host is built for */

		snprintf(d, sizeof(d),
			 "tclass %d (%s) is lossy: %s, PFC is on for priority %s only (%s)",
			 q->tclass, q->tclass_src, how, on, q->pfc_src);
		if (tc >= 0)
			snprintf(
				fix, sizeof(fix),
				"run on the lossless class (lp-rdma --tclass %d; the switches must "
				"map it alike), or enable PFC on priority %d",
				tc, prio);
		else /* PCP trust: the service level is the VLAN priority */
			snprintf(fix, sizeof(fix),
				 "run on the lossless priority (lp-rdma --sl %d), or enable PFC on "
				 "priority %d",
				 other, prio);
	} else {
		snprintf(d, sizeof(d), "PFC on for priority %s (%s); the class's priority: %s", on,
			 q->pfc_src, how);
		snprintf(fix, sizeof(fix),
			 "check that tclass %d lands on priority %s: the trust mode and DSCP map "
			 "(dcb app show dev %s, mlnx_qos -i %s)",
			 q->tclass, on, netdev, netdev);
	}
	line(r, st, "roce_pfc", subj, d, fix);
}

static void judge_ecn(struct lp_check_report *r, const char *subj, const char *netdev,
		      const struct lp_roce_qos *q, int prio, const char *how)
{
	char np[24], rp[24], d[256], fix[256];

	prio_list(q->ecn_np, np, sizeof(np));
	prio_list(q->ecn_rp, rp, sizeof(rp));
	if (prio >= 0 && q->ecn_np[prio] == 1 && q->ecn_rp[prio] == 1) {
		snprintf(d, sizeof(d),
			 "ECN (DCQCN) on for priority %d, notification and reaction point (%s)",
			 prio, q->ecn_src);
		line(r, LP_CHECK_OK, "roce_ecn", subj, d, NULL);
		return;
	}
	if (prio >= 0)
		snprintf(d, sizeof(d),
			 "ECN off for priority %d (%s): notification point on %s, reaction point "
			 "on %s (%s)",
			 prio, how, np, rp, q->ecn_src);
	else
		snprintf(d, sizeof(d),
			 "ECN notification point on priority %s, reaction point on %s (%s); the "
			 "class's priority: %s",
			 np, rp, q->ecn_src, how);
	snprintf(fix, sizeof(fix),
		 "enable both ends for the RoCE priority P: echo 1 > "
		 "/sys/class/net/%s/ecn/roce_np/enable/P and .../roce_rp/enable/P; ECN marking "
		 "on the switch queue of P",
		 netdev);
	line(r, LP_CHECK_WARN, "roce_ecn", subj, d, fix);
}

void lp_check_roce_qos(struct lp_check_report *r, const char *subj, const char *netdev,
		       const struct lp_roce_qos *q, int sl)
{
	char how[128], d[256], fix[256];
	int prio = lp_roce_qos_prio(q, sl, how, sizeof(how));
	const char *seen = q->pfc_src[0] && q->ecn_src[0] ? NULL
			   : q->pfc_src[0]		  ? "ECN"
			   : q->ecn_src[0]		  ? "PFC"
							  : "PFC/ECN";

	if (seen) {
		snprintf(d, sizeof(d), "cannot see %s here for tclass %d (%s), DSCP %d (%s)%s%s",
			 seen, q->tclass, q->tclass_src, q->dscp, q->dscp_src,
			 q->note[0] ? ": " : "", q->note);
		snprintf(fix, sizeof(fix),
			 "as root here: dcb pfc show dev %s, dcb app show dev %s (iproute2) or "
			 "mlnx_qos -i %s; ECN: /sys/class/net/%s/ecn/roce_np|roce_rp/enable/P "
			 "(MLNX_OFED) or mlxconfig; and the switch ports' PFC/ECN",
			 netdev, netdev, netdev, netdev);
		line(r, LP_CHECK_WARN,
		     q->pfc_src[0]   ? "roce_ecn"
		     : q->ecn_src[0] ? "roce_pfc"
				     : "roce_qos",
		     subj, d, fix);
	}
	if (q->pfc_src[0])
		judge_pfc(r, subj, netdev, q, prio, how);
	if (q->ecn_src[0])
		judge_ecn(r, subj, netdev, q, prio, how);
}

void lp_check_roce_port(struct lp_check_report *r, const struct lp_check_opts *o, const char *root,
			const char *subj, const char *dev, const char *port, const char *netdev)
{
	struct lp_roce_qos q;
	lp_check_cmd_fn *cmd = o->cmd ? o->cmd : root && *root ? NULL : lp_cmd_capture;

	lp_roce_qos_read(root, dev, port, netdev, o->tclass_set ? o->tclass : -1, cmd, &q);
	lp_check_roce_qos(r, subj, netdev, &q, o->sl);
}
