// SPDX-License-Identifier: MIT
/*
 * sweep-synth: a synthetic lp-sweep document of any size, through the real
 * writer, for the scale measurements of documents (docs/SWEEP.md, "Documents
 * at scale") and their CI test at a small scale.
 *
 *   sweep-synth NODES RAILS OUT.json [SLOW[/RAIL] [JOURNAL]]
 *
 * NODES hosts with RAILS ranks each (rails 1: no --rails), every ordered pair
 * within a rail measured once at write_lat 8 B and write_bw 64 KiB, values
 * log-normal around 2 us and 100 Gb/s (5 % noise, seeded), node SLOW (default
 * 1) at half the bandwidth as a client on every rail (on rail RAIL only, given). The cells are made
 * round by round (a host round-robin: hosts a -> b in round (a + b) mod
 * (NODES - 1)), each round journaled to JOURNAL when given, as the engine
 * does; the run is diagnosed before it is written.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "sweep/journal.h"
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

static void nodes_init(struct lp_sweep_run *r, int rails)
{
	r->rails = rails > 1 ? rails : 0;
	r->sched_name = "round-robin";
	snprintf(r->started, sizeof(r->started), "2026-12-02T00:00:00Z");
	for (int i = 0; i < r->n; i++) {
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
}

/* Round t of the host round-robin: hosts ha -> hb with ha + hb = t mod R, every rail and metric. */
static int round_cells(struct lp_sweep_run *r, int nodes, int rails, const int slow[2], int t,
		       uint64_t *seed)
{
	int R = nodes - 1, rc = 0;

	for (int ha = 0; ha < nodes && !rc; ha++) {
		int x = ((t - ha) % R + R) % R;

		for (int hb = x; hb < nodes && !rc; hb += R) {
			for (int rail = 0; hb != ha && rail < rails && !rc; rail++)
				for (int m = 0; m < 2 && !rc; m++) {
					struct lp_sweep_cell c;
					int a = ha * rails + rail, b = hb * rails + rail;

					lp_sweep_cell_init(&c, m, a, b, LP_PHASE_SWEEP, t);
					fill_cell(&c, m == 0,
						  m == 1 && ha == slow[0] &&
								  (slow[1] < 0 || rail == slow[1])
							  ? 0.5
							  : 1,
						  seed, t);
					rc = lp_sweep_add_cell(r, &c);
				}
		}
	}
	return rc;
}

/* Every round in turn, each journaled when jl is open (a header first). */
static int build(struct lp_sweep_run *r, int nodes, int rails, const int slow[2],
		 struct lp_sweep_journal *jl)
{
	int rc = lp_sweep_run_init(r, nodes * rails);
	uint64_t seed = 1;

	if (rc)
		return rc;
	nodes_init(r, rails);
	lp_sweep_journal_run(jl, r);
	for (int t = 0; t < nodes - 1 && !rc; t++) {
		size_t from = r->ncells;

		rc = round_cells(r, nodes, rails, slow, t, &seed);
		lp_sweep_journal_cells(jl, r, from);
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct lp_sweep_journal jl = { 0 };
	struct lp_sweep_run r;
	int nodes = argc > 3 ? atoi(argv[1]) : 0, rails = argc > 3 ? atoi(argv[2]) : 0;
	int slow[2] = { argc > 4 ? atoi(argv[4]) : 1, -1 }; /* SLOW[/RAIL]: that node, one rail */
	FILE *f;
	int rc = 0;

	if (argc > 4 && strchr(argv[4], '/'))
		slow[1] = atoi(strchr(argv[4], '/') + 1);

	if (argc < 4 || nodes < 2 || rails < 1) {
		fprintf(stderr,
			"usage: sweep-synth NODES RAILS OUT.json [SLOW[/RAIL] [JOURNAL]]\n");
		return LP_EXIT_USAGE;
	}
	if (argc > 5)
		rc = lp_sweep_journal_open(&jl, argv[5], false, NULL);
	if (!rc)
		rc = build(&r, nodes, rails, slow, &jl);
	if (!rc)
		rc = lp_sweep_diagnose(&r);
	lp_sweep_journal_end(&jl, &r, lp_sweep_exit_code(&r));
	if (argc > 5 && lp_sweep_journal_close(&jl, NULL) && !rc)
		rc = -EIO;
	f = rc ? NULL : lp_out_open(argv[3]);
	if (!f || lp_sweep_write_json(&r, f, lp_sweep_exit_code(&r)) || lp_out_close(f, argv[3]))
		rc = rc ? rc : -EIO;
	lp_sweep_run_free(&r);
	if (rc)
		fprintf(stderr, "sweep-synth: %s\n", strerror(-rc));
	return rc ? LP_EXIT_FAIL : LP_EXIT_OK;
}
