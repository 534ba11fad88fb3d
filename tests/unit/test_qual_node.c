// SPDX-License-Identifier: MIT
/*
 * Gates per node (qual/node.h) against the shipped profiles: each node's profile from its own
 * port, a port that trained down (lanes, speed, PCIe) or matches no profile is FAIL with the
 * reason (not "none"), the fleet's profile is the majority's (not rank 0's), and GPU-polled
 * latency gets the measured notification as an allowance.
 */
#include "lp_test.h"

#include <limits.h>

#include "qual/node.h"
#include "qual/qual.h"

static struct lp_qual_port port(const char *node, const char *speed, unsigned width, double gbps)
{
	return (struct lp_qual_port){ .node = node,
				      .hw = { .rdma_dev = "mlx5_0",
					      .link_layer = "InfiniBand",
					      .speed = speed,
					      .width = width,
					      .rate_gbps = gbps } };
}

static int setup(void **state)
{
	char dir[PATH_MAX];
	const char *top = getenv("LP_ROOT");

	(void)state;
	snprintf(dir, sizeof(dir), "%s/profiles", top ? top : ".");
	return setenv("LP_PROFILE_DIR", dir, 1);
}

static void test_fleet_and_trained_down(void **state)
{
	struct lp_qual_port p[6] = {
		port("n0", "HDR", 4, 200), /* rank 0 is the odd one: the fleet's profile is not its */
		port("n1", "NDR", 4, 400), port("n2", "NDR", 4, 400), port("n3", "NDR", 4, 400),
		port("n4", "NDR", 2, 200), port("n5", "NDR", 4, 400),
	};
	struct lp_qual_gate g[6];
	char fleet[64];

	(void)state;
	p[4].max_width = 4;
	p[5].max_speed = "NDR";
	p[5].pcie_width = 8;
	p[5].pcie_max_width = 16;
	assert_int_equal(lp_qual_nodes_judge(p, 6, g, fleet, sizeof(fleet)), 3);
	assert_string_equal(fleet, "ib-ndr");
	assert_int_equal(g[0].verdict, LP_QUAL_FAIL);
	assert_string_equal(g[0].profile, "ib-hdr");
	assert_non_null(strstr(g[0].reason, "while the fleet matches ib-ndr"));
	assert_int_equal(g[1].verdict, LP_QUAL_PASS);
	assert_string_equal(g[1].profile, "ib-ndr");
	/* NDR at 2X: no profile, and lanes lost against the 4X it supports: FAIL, never "none" */
	assert_int_equal(g[4].verdict, LP_QUAL_FAIL);
	assert_non_null(strstr(g[4].reason, "2X of the 4X"));
	assert_int_equal(g[5].verdict, LP_QUAL_FAIL);
	assert_non_null(strstr(g[5].reason, "PCIe link runs x8 of x16"));
}

static void test_speed_and_no_profile(void **state)
{
	struct lp_qual_port p[3] = { port("a", "HDR", 4, 200), port("b", "NDR", 4, 400),
				     port("c", "NDR", 4, 400) };
	struct lp_qual_port soft = {
		.node = "g0",
		.hw = { .rdma_dev = "rxe0", .link_layer = "Ethernet", .rate_gbps = 10 }
	};
	struct lp_qual_port nodev = { .node = "g1" };
	struct lp_qual_gate g[3], gs[2];
	struct lp_qual_port two[2];
	char fleet[64];

	(void)state;
	/* a port at HDR whose both ends support NDR: trained down even though ib-hdr matches */
	p[0].max_speed = "NDR";
	p[0].peer_max_speed = "NDR";
	assert_int_equal(lp_qual_nodes_judge(p, 3, g, fleet, sizeof(fleet)), 1);
	assert_non_null(strstr(g[0].reason, "runs HDR, below the NDR both ends support"));
	/* the switch port's best is HDR: the link runs at its best, then the fleet decides */
	p[0].peer_max_speed = "HDR";
	lp_qual_nodes_judge(p, 3, g, fleet, sizeof(fleet));
	assert_null(strstr(g[0].reason, "both ends support"));
	/* software RDMA and a node without a device: nothing to hold them against */
	two[0] = soft;
	two[1] = nodev;
	assert_int_equal(lp_qual_nodes_judge(two, 2, gs, fleet, sizeof(fleet)), 0);
	assert_int_equal(gs[0].verdict, LP_QUAL_NONE);
	assert_int_equal(gs[1].verdict, LP_QUAL_NONE);
	assert_string_equal(fleet, "");
}

static void test_gpu_allowance(void **state)
{
	struct lp_qual_opts o = { .expect = NULL };
	struct lp_qual q;
	struct lp_qual_cell c[2];
	char path[PATH_MAX];
	const char *top = getenv("LP_ROOT");

	(void)state;
	assert_true(lp_qual_gpu_allowance_us(2, 0.8) == 0.8);
	assert_true(lp_qual_gpu_allowance_us(1, 0.8) == 0.4);
	assert_true(lp_qual_gpu_allowance_us(2, NAN) == 0);
	assert_true(lp_qual_gpu_allowance_us(0, 0.8) == 0);
	/* 3.0 us one way, GPU memory on both sides with 0.8 us notification each: limit 2.5 + 0.8 */
	snprintf(path, sizeof(path), "%s/profiles/ib-ndr.json", top ? top : ".");
	o.expect = path;
	assert_int_equal(lp_qual_setup(&q, "test", &o, NULL), 0);
	lp_qual_cell_set(&c[0], "write_lat", 8, "gpu", LP_QUAL_LAT, 3.0, 0, 0);
	c[0].allowance = lp_qual_gpu_allowance_us(2, 0.8);
	lp_qual_cell_set(&c[1], "write_lat", 8, "host", LP_QUAL_LAT, 3.0, 0, 0);
	assert_int_equal(lp_qual_judge(&q, c, 2), 0);
	assert_int_equal(q.cells[0].verdict, LP_QUAL_PASS);
	assert_true(fabs(q.cells[0].limit - 3.3) < 1e-9);
	assert_int_equal(q.cells[1].verdict, LP_QUAL_FAIL);
	lp_qual_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fleet_and_trained_down),
		cmocka_unit_test(test_speed_and_no_profile),
		cmocka_unit_test(test_gpu_allowance),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
