// SPDX-License-Identifier: MIT
/*
 * rdma/check_roce (the RoCE pre-flight's PFC and ECN for the traffic class in use) on the
 * ConnectX-6 Dx tree of tests/fixtures/check/roce-cx6dx.txt with the tools' recorded output
 * (tests/fixtures/check/cmd*, through lp_fx_cmd): each configuration that must WARN does, with
 * its reason and fix; the parsers on the tools' own formats; the live path with the real dcb.
 */
#include "lp_test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cmd.h"
#include "common/lp.h"
#include "lp_fixture.h"
#include "rdma/check.h"
#include "rdma/check_roce.h"

#define ROCE	"check/roce-cx6dx.txt"
#define NETDEV	"sys/devices/pci0000:00/0000:00:02.0/0000:3b:00.0/net/ens1f0np0"
#define SUBJECT "mlx5_0 port 1"

#define DEV (-1) /* no --tclass: the device's class is judged */

struct qos_run {
	char dir[64];
	struct lp_check_report r;
};

/* --check on the tree with overlay, the tools' outputs from cmd_dir (NULL: none run), --tclass
 * tclass (DEV: not given). */
static void qos_check(struct qos_run *x, const char *overlay, const char *cmd_dir, int tclass,
		      int sl)
{
	struct lp_check_opts o = {
		.memlock = -1, .tclass = tclass, .tclass_set = tclass != DEV, .sl = sl
	};

	snprintf(x->dir, sizeof(x->dir), "/tmp/lp-roceqos-XXXXXX");
	assert_non_null(mkdtemp(x->dir));
	lp_fx_expand(x->dir, ROCE);
	if (overlay)
		lp_fx_expand_text(x->dir, overlay);
	lp_fx_cmd_dir = cmd_dir ? cmd_dir : "check/cmd";
	o.cmd = cmd_dir ? lp_fx_cmd : NULL;
	o.root = x->dir;
	assert_int_equal(lp_check_run(&o, &x->r, NULL), 0);
}

static void qos_free(struct qos_run *x)
{
	lp_check_free(&x->r);
	lp_fx_rmtree(x->dir);
}

/* The line of item for the port, NULL when there is none. */
static const struct lp_check_line *item(const struct qos_run *x, const char *name)
{
	for (unsigned i = 0; i < x->r.n; i++)
		if (!strcmp(x->r.lines[i].item, name) && !strcmp(x->r.lines[i].subject, SUBJECT))
			return &x->r.lines[i];
	return NULL;
}

static void expect(const struct qos_run *x, const char *name, enum lp_check_status st,
		   const char *phrase)
{
	const struct lp_check_line *l = item(x, name);

	if (!l)
		fail_msg("no %s line", name);
	if (l->status != st || (!strstr(l->detail, phrase) && !strstr(l->fix, phrase)) ||
	    (st != LP_CHECK_OK) != !!l->fix[0])
		fail_msg("%s: %s %s (fix: %s); wanted %s with '%s'", name,
			 lp_check_status_name(l->status), l->detail, l->fix,
			 lp_check_status_name(st), phrase);
}

static void test_lossless(void **state)
{
	struct qos_run x;

	(void)state;
	qos_check(&x, NULL, "check/cmd", DEV, 0);
	expect(&x, "roce_pfc", LP_CHECK_OK,
	       "PFC on for priority 3: tclass 106 (the device's, tc/PORT/traffic_class), DSCP 26 "
	       "(tc/PORT/traffic_class: every QP) -> priority 3 (dcb) (dcb)");
	expect(&x, "roce_ecn", LP_CHECK_OK,
	       "ECN (DCQCN) on for priority 3, notification and reaction point (sysfs ecn)");
	assert_null(item(&x, "roce_qos"));
	assert_int_equal(lp_check_worst(&x.r), LP_CHECK_OK);
	qos_free(&x);
	/* the tools' class given: it is the one judged */
	qos_check(&x, "rm sys/class/infiniband/mlx5_0/tc", "check/cmd", 106, 0);
	expect(&x, "roce_pfc", LP_CHECK_OK,
	       "tclass 106 (--tclass), DSCP 26 (derived: tclass 106 >> 2) -> priority 3");
	qos_free(&x);
	/* mlx5's Global tclass is applied to every QP: a --tclass 0 runs on 106 all the same */
	qos_check(&x, NULL, "check/cmd", 0, 0);
	expect(&x, "roce_pfc", LP_CHECK_OK,
	       "tclass 106 (the device's, tc/PORT/traffic_class: --tclass 0 is overridden), DSCP 26 "
	       "(tc/PORT/traffic_class: every QP) -> priority 3");
	qos_free(&x);
	/* bnxt_re reports its RoCE DSCP in configfs: read, not derived from the class */
	qos_check(&x,
		  "rm sys/class/infiniband/mlx5_0/tc\n"
		  "file sys/kernel/config/bnxt_re/mlx5_0/ports/1/cc/roce_dscp 0x1a",
		  "check/cmd", DEV, 0);
	expect(&x, "roce_pfc", LP_CHECK_OK,
	       "tclass 0 (the verbs default), DSCP 26 (bnxt_re configfs cc/roce_dscp) -> priority 3");
	qos_free(&x);
	/* mlnx_qos alone (no iproute2 dcb): its trust, map and PFC table */
	qos_check(&x, NULL, "check/cmd-mlnx", DEV, 0);
	expect(&x, "roce_pfc", LP_CHECK_OK,
	       "DSCP 26 (tc/PORT/traffic_class: every QP) -> priority 3 (mlnx_qos) (mlnx_qos)");
	qos_free(&x);
	/* PCP trust: the service level is the priority */
	qos_check(&x, NULL, "check/cmd-pcp", DEV, 3);
	expect(&x, "roce_pfc", LP_CHECK_OK, "PCP trust (dcb): the VLAN priority, service level 3");
	qos_free(&x);
}

/* Each fault: the line that must WARN or FAIL, with what it says. */
static void test_faults(void **state)
{
	static const struct {
		const char *overlay, *cmd, *item, *phrase;
		int tclass, sl;
		enum lp_check_status st;
	} v[] = {
		/* the verbs default class 0 lands on priority 0, PFC is on 3 only: FAIL */
		{ "rm sys/class/infiniband/mlx5_0/tc", "check/cmd", "roce_pfc",
		  "tclass 0 (the verbs default) is lossy: DSCP 0 (derived: tclass 0 >> 2) -> priority 0 "
		  "(not in the dcb map: the default DSCP/8), PFC is on for priority 3 only",
		  DEV, 0, LP_CHECK_FAIL },
		{ "rm sys/class/infiniband/mlx5_0/tc", "check/cmd", "roce_pfc", "--tclass 106", DEV,
		  0, LP_CHECK_FAIL },
		/* --tclass 0 is class 0, not "unset" (no Global class on the device) */
		{ "rm sys/class/infiniband/mlx5_0/tc", "check/cmd", "roce_pfc",
		  "tclass 0 (--tclass) is lossy: DSCP 0 (derived: tclass 0 >> 2) -> priority 0 (not "
		  "in the dcb map: the default DSCP/8), PFC is on for priority 3 only",
		  0, 0, LP_CHECK_FAIL },
		/* a class of the user's that misses the lossless priority */
		{ "rm sys/class/infiniband/mlx5_0/tc", "check/cmd", "roce_pfc",
		  "tclass 192 (--tclass) is lossy: DSCP 48 (derived: tclass 192 >> 2) -> priority 6",
		  192, 0, LP_CHECK_FAIL },
		/* bnxt_re's configfs DSCP read: DSCP 48 lands on priority 6, lossy */
		{ "rm sys/class/infiniband/mlx5_0/tc\n"
		  "file sys/kernel/config/bnxt_re/mlx5_0/ports/1/cc/roce_dscp 0x30",
		  "check/cmd", "roce_pfc",
		  "is lossy: DSCP 48 (bnxt_re configfs cc/roce_dscp) -> priority 6", DEV, 0,
		  LP_CHECK_FAIL },
		/* PFC off everywhere, ECN on (lossy RoCE by design?): WARN */
		{ NULL, "check/cmd-pfcoff", "roce_pfc",
		  "PFC off on every priority of ens1f0np0 (dcb): RoCE runs lossy, ECN on for its "
		  "priority",
		  DEV, 0, LP_CHECK_WARN },
		{ NULL, "check/cmd-pfcoff", "roce_pfc", "dcb pfc set dev ens1f0np0 prio-pfc 3:on",
		  DEV, 0, LP_CHECK_WARN },
		/* PFC off everywhere and ECN off for the priority: nothing controls congestion */
		{ "file " NETDEV "/ecn/roce_np/enable/3 0", "check/cmd-pfcoff", "roce_pfc",
		  "and ECN is off for its priority: nothing slows a sender", DEV, 0,
		  LP_CHECK_FAIL },
		{ "file " NETDEV "/ecn/roce_np/enable/3 0", "check/cmd-pfcoff", "roce_pfc",
		  "mlnx_qos -i ens1f0np0 --pfc 0,0,0,1,0,0,0,0", DEV, 0, LP_CHECK_FAIL },
		{ NULL, "check/cmd-pcp", "roce_pfc",
		  "PCP trust (dcb): the VLAN priority, service level 0", DEV, 0, LP_CHECK_FAIL },
		{ NULL, "check/cmd-pcp", "roce_pfc", "lp-rdma --sl 3", DEV, 0, LP_CHECK_FAIL },
		{ "file " NETDEV "/ecn/roce_rp/enable/3 0", "check/cmd", "roce_ecn",
		  "ECN off for priority 3 (DSCP 26 (tc/PORT/traffic_class: every QP) -> priority 3 (dcb)): notification point on "
		  "0,1,2,3,4,5,6,7, reaction point on 0,1,2,4,5,6,7",
		  DEV, 0, LP_CHECK_WARN },
		{ "rm " NETDEV "/ecn", "check/cmd-none", "roce_qos",
		  "cannot see PFC/ECN here for tclass 106 (the device's, tc/PORT/traffic_class), DSCP 26 "
		  "(tc/PORT/traffic_class: every QP): dcb: "
		  "not installed; mlnx_qos: not installed",
		  DEV, 0, LP_CHECK_WARN },
		{ "rm " NETDEV "/ecn", "check/cmd-none", "roce_qos", "dcb pfc show dev ens1f0np0",
		  DEV, 0, LP_CHECK_WARN },
		{ NULL, "check/cmd-error", "roce_pfc",
		  "cannot see PFC here for tclass 106 (the device's, tc/PORT/traffic_class), DSCP 26 "
		  "(tc/PORT/traffic_class: every QP): dcb: "
		  "Attribute read: Operation not supported",
		  DEV, 0, LP_CHECK_WARN },
		{ NULL, NULL, "roce_pfc", "helper programs are not run on a sysfs tree", DEV, 0,
		  LP_CHECK_WARN },
	};

	(void)state;
	for (size_t i = 0; i < LP_ARRAY_SIZE(v); i++) {
		struct qos_run x;

		qos_check(&x, v[i].overlay, v[i].cmd, v[i].tclass, v[i].sl);
		expect(&x, v[i].item, v[i].st, v[i].phrase);
		assert_int_equal(lp_check_worst(&x.r), v[i].st);
		qos_free(&x);
	}
}

static void test_parsers(void **state)
{
	struct lp_roce_qos q;
	char how[128], *text;

	(void)state;
	lp_roce_qos_init(&q);
	assert_int_equal(lp_roce_parse_dcb_pfc("pfc-cap 8 macsec-bypass off delay 4096\n"
					       "prio-pfc 0:off 1:on 2:off 3:off 4:off 5:off 6:on "
					       "7:off\nrequests 0:0 1:0\n",
					       &q),
			 0);
	assert_int_equal(q.pfc[1] + q.pfc[6], 2);
	assert_int_equal(q.pfc[0] + q.pfc[3], 0);
	assert_int_equal(lp_roce_parse_dcb_pfc("prio-pfc 0:off 1:on\n", &q), -ENOENT); /* cut */
	assert_int_equal(lp_roce_parse_dcb_pfc("Attribute read: Operation not supported\n", &q),
			 -ENOENT);
	lp_roce_qos_init(&q);
	assert_int_equal(lp_roce_parse_dcb_app("dscp-prio 24:3 26:3 46:5\n", &q), 0);
	assert_string_equal(q.trust, "dscp");
	assert_int_equal(q.dscp_prio[26], 3);
	assert_int_equal(q.dscp_prio[46], 5);
	assert_int_equal(q.dscp_prio[0], -1);
	lp_roce_qos_init(&q);
	assert_int_equal(lp_roce_parse_dcb_app("", &q), 0); /* an empty table: PCP trust */
	assert_string_equal(q.trust, "pcp");
	lp_roce_qos_init(&q);
	text = lp_fx_read("check/cmd-mlnx/mlnx_qos_-i_ens1f0np0.txt", 1);
	assert_int_equal(lp_roce_parse_mlnx_qos(text, &q), 0);
	free(text);
	assert_string_equal(q.trust, "dscp");
	for (int d = 0; d < 64; d++)
		assert_int_equal(q.dscp_prio[d], d >> 3);
	for (int p = 0; p < 8; p++)
		assert_int_equal(q.pfc[p], p == 3);
	assert_int_equal(lp_roce_parse_mlnx_qos("Interface name is required\n", &q), -ENOENT);
	lp_roce_qos_init(&q);
	assert_int_equal(lp_roce_parse_dscp2prio("dscp prio\n26 3\n48 6\n", &q), 0);
	assert_int_equal(q.dscp_prio[26], 3);
	assert_int_equal(q.dscp_prio[48], 6);
	assert_int_equal(lp_roce_parse_tclass("Global tclass=106\n"), 106);
	assert_int_equal(lp_roce_parse_tclass("96"), 96);
	assert_int_equal(lp_roce_parse_tclass("Global tclass=300"), -1);
	assert_int_equal(lp_roce_parse_tclass("junk"), -1);
	/* rules per destination are not every QP's class */
	assert_int_equal(lp_roce_parse_tclass("dst_ip=10.0.0.0/8,tclass=98\n"), -1);
	assert_int_equal(lp_roce_parse_tclass("Global tclass=106\ndst_ip=10.0.0.0/8,tclass=98\n"),
			 106);
	assert_int_equal(lp_roce_parse_dscp("0x1a\n"), 26);
	assert_int_equal(lp_roce_parse_dscp("26"), 26);
	assert_int_equal(lp_roce_parse_dscp("0x40"), -1);
	assert_int_equal(lp_roce_parse_dscp("junk"), -1);
	/* a DSCP not in the map lands where the default map puts it */
	q.tclass = 106;
	q.dscp = 26;
	snprintf(q.trust, sizeof(q.trust), "dscp");
	q.dscp_prio[26] = -1;
	assert_int_equal(lp_roce_qos_prio(&q, 0, how, sizeof(how)), 3);
	assert_non_null(strstr(how, "the default DSCP/8"));
	q.trust[0] = '\0';
	assert_int_equal(lp_roce_qos_prio(&q, 0, how, sizeof(how)), -1);
}

/* The live path on this host: the real dcb on the loopback device (no DCB there). */
static void test_live(void **state)
{
	struct lp_roce_qos q;
	char out[256];
	int rc = lp_cmd_capture((char *[]){ "dcb", "help", NULL }, out, sizeof(out), 5000);

	(void)state;
	lp_roce_qos_read("", "nodev", "1", "lo", DEV, lp_cmd_capture, &q);
	assert_string_equal(q.pfc_src, "");
	assert_int_equal(q.tclass, 0);
	assert_string_equal(q.tclass_src, "the verbs default");
	if (rc == -ENOENT) {
		printf("SKIP the real dcb: iproute2's dcb is not installed here (%s)\n", q.note);
		assert_non_null(strstr(q.note, "dcb: not installed"));
		return;
	}
	printf("live: %s\n", q.note);
	assert_non_null(strstr(q.note, "dcb: "));
	assert_null(strstr(q.note, "dcb: not installed"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lossless),
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_parsers),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
