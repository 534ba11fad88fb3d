// SPDX-License-Identifier: MIT
/*
 * sweep-synth: a synthetic lp-sweep document of any size, through the real
 * writer, for the scale measurements of documents (docs/SWEEP.md, "Documents
 * at scale") and their CI test at a small scale.
 *
 *   sweep-synth NODES RAILS OUT.json [SLOW]
 *
 * NODES hosts with RAILS ranks each (rails 1: no --rails), every ordered pair
 * within a rail measured once at write_lat 8 B and write_bw 64 KiB, values
 * log-normal around 2 us and 100 Gb/s (5 % noise, seeded), node SLOW (default
 * 1) at half the bandwidth as a client on every rail. The run is diagnosed
 * before it is written.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "sweep/result.h"

/* A standard normal draw (Box-Muller) from a 64-bit LCG: the same document every time. */
static double gauss(uint64_t *s)
{
	double u, v;

	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	u = ((double)(*s >> 11) + 1) / 9007199254740993.0;
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	v = (double)(*s >> 11) / 9007199254740992.0;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static void fill_cell(struct lp_sweep_cell *c, bool lat, double f, uint64_t *s, int round)
{
	double x = exp(0.05 * gauss(s)) * f;

	c->round = round;
	c->wall_s = 0.5;
	c->iters = lat ? 1000 : 5000;
	if (lat) {
		c->value = 2.0 / x;
		c->lat = (struct lp_summary){ .n = 1000,
					      .min = c->value * 0.9,
					      .max = c->value * 3,
					      .mean = c->value * 1.05,
					      .stdev = c->value * 0.1,
					      .p50 = c->value,
					      .p90 = c->value * 1.2,
					      .p99 = c->value * 1.5,
					      .p999 = c->value * 2,
					      .p9999 = c->value * 2.5,
					      .exact = true };
		c->halved = true;
	} else {
		c->value = c->gbits_s = 100 * x;
		c->gbytes_s = c->gbits_s / 8;
		c->mmsg_s = c->gbytes_s / 65536 * 1e3;
		c->pct_link = c->gbits_s / 2;
	}
}

static int build(struct lp_sweep_run *r, int nodes, int rails, int slow)
{
	int n = nodes * rails, rc = lp_sweep_run_init(r, n);
	uint64_t seed = 1;

	if (rc)
		return rc;
	r->rails = rails > 1 ? rails : 0;
	r->sched_name = "round-robin";
	snprintf(r->started, sizeof(r->started), "2026-12-02T00:00:00Z");
	for (int i = 0; i < n; i++) {
		struct lp_sweep_node *nd = &r->nodes[i];

		nd->rank = i;
		nd->rail = r->rails ? i % rails : 0;
		snprintf(nd->host, sizeof(nd->host), "node%04d", i / rails);
		snprintf(nd->name, sizeof(nd->name), r->rails ? "%s/%d" : "%s", nd->host, nd->rail);
		snprintf(nd->dev.name, sizeof(nd->dev.name), "mlx5_%d", nd->rail);
		nd->dev.rate_gbps = 200;
		snprintf(nd->mem, sizeof(nd->mem), "host");
	}
	lp_sweep_add_metric(r, "write_lat", 0, true, 8);
	lp_sweep_add_metric(r, "write_bw", 3, false, 65536);
	for (int a = 0; a < n && !rc; a++)
		for (int b = 0; b < n && !rc; b++) {
			if (a == b || r->nodes[a].rail != r->nodes[b].rail)
				continue;
			for (int m = 0; m < 2 && !rc; m++) {
				struct lp_sweep_cell c;

				lp_sweep_cell_init(&c, m, a, b, LP_PHASE_SWEEP, 0);
				fill_cell(&c, m == 0, m == 1 && a / rails == slow ? 0.5 : 1, &seed,
					  (a + b) % (nodes > 1 ? nodes - 1 : 1));
				rc = lp_sweep_add_cell(r, &c);
			}
		}
	return rc;
}

int main(int argc, char **argv)
{
	struct lp_sweep_run r;
	int nodes = argc > 3 ? atoi(argv[1]) : 0, rails = argc > 3 ? atoi(argv[2]) : 0;
	FILE *f;
	int rc;

	if (argc < 4 || nodes < 2 || rails < 1) {
		fprintf(stderr, "usage: sweep-synth NODES RAILS OUT.json [SLOW]\n");
		return LP_EXIT_USAGE;
	}
	rc = build(&r, nodes, rails, argc > 4 ? atoi(argv[4]) : 1);
	if (!rc)
		rc = lp_sweep_diagnose(&r);
	f = rc ? NULL : lp_out_open(argv[3]);
	if (!f || lp_sweep_write_json(&r, f, lp_sweep_exit_code(&r)) || lp_out_close(f, argv[3]))
		rc = rc ? rc : -EIO;
	lp_sweep_run_free(&r);
	if (rc)
		fprintf(stderr, "sweep-synth: %s\n", strerror(-rc));
	return rc ? LP_EXIT_FAIL : LP_EXIT_OK;
}
