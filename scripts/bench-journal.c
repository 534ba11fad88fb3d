// SPDX-License-Identifier: MIT
/*
 * bench-journal: rank 0's work per gathered cell, the time model's cell_s
 * (sweep/plantime.h): a round's cells packed as the ranks send them
 * (lp_record_pack), unpacked into the run (lp_record_unpack, lp_sweep_add_cell),
 * each written to the journal as its line, and the journal's sync at the end
 * of the round (what the round pays: a flush, the fsync asked of the journal's
 * syncer thread) beside the fsync itself (what the disk takes, off the round). scripts/bench-harness.sh builds it against build/liblinkperf.a
 * and runs it; one process, no MPI.
 *
 *   bench-journal JOURNAL [CELLS_PER_ROUND [ROUNDS]]
 *
 * Prints microseconds per cell (decode, journal line) and milliseconds per
 * round (sync on the round, fsync in the syncer), each the median of the rounds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/clock.h"
#include "sweep/journal.h"
#include "sweep/result.h"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return v[n / 2];
}

static void add(void *cell, void *run)
{
	lp_sweep_add_cell(run, cell);
}

int main(int argc, char **argv)
{
	int cells = argc > 2 ? atoi(argv[2]) : 256, rounds = argc > 3 ? atoi(argv[3]) : 50,
	    n = cells + 1;
	double *dec = calloc((size_t)rounds, sizeof(double)), *line = calloc((size_t)rounds, 8),
	       *sync = calloc((size_t)rounds, 8), *disk = calloc((size_t)rounds, 8);
	struct lp_sweep_cell *mine = calloc((size_t)cells, sizeof(*mine)), c;
	struct lp_sweep_journal jl;
	struct lp_sweep_run r;

	if (argc < 2 || cells < 1 || rounds < 1 || !dec || !line || !sync || !disk || !mine ||
	    lp_sweep_run_init(&r, n) || lp_sweep_journal_open(&jl, argv[1], false, NULL)) {
		fprintf(stderr, "usage: bench-journal JOURNAL [CELLS_PER_ROUND [ROUNDS]]\n");
		return 2;
	}
	lp_sweep_add_metric(&r, "write_bw", 3, false, 1 << 20);
	for (int k = 0; k < rounds; k++) {
		size_t from = r.ncells, len;
		uint64_t t0, t1, t2, t3, t4;
		uint8_t *blob;

		for (int i = 0; i < cells; i++) {
			lp_sweep_cell_init(&mine[i], 0, i, (i + k + 1) % n, LP_PHASE_SWEEP, k);
			mine[i].value = mine[i].gbits_s = 380 + i % 20;
			mine[i].gbytes_s = mine[i].value / 8;
			mine[i].wall_s = 0.12;
			mine[i].iters = 5000;
		}
		blob = lp_record_pack(&lp_sweep_cell_record, mine, (size_t)cells, sizeof(*mine),
				      &len, NULL);
		t0 = lp_now_ns();
		lp_record_unpack(&lp_sweep_cell_record, blob, len, &c, add, &r);
		t1 = lp_now_ns();
		lp_sweep_journal_cells(&jl, &r, from);
		t2 = lp_now_ns();
		lp_sweep_journal_sync(&jl); /* what the round pays: the fsync is the syncer's */
		t3 = lp_now_ns();
		fsync(fileno(jl.f)); /* what the disk takes (the syncer pays it, off the round) */
		t4 = lp_now_ns();
		free(blob);
		dec[k] = (double)(t1 - t0) / 1e3 / cells;
		line[k] = (double)(t2 - t1) / 1e3 / cells;
		sync[k] = (double)(t3 - t2) / 1e6;
		disk[k] = (double)(t4 - t3) / 1e6;
	}
	printf("bench-journal: %d rounds of %d cells: decode %.2f us/cell, journal line %.2f us/cell, "
	       "sync %.3f ms/round on the round, fsync %.2f ms/round in the syncer (medians)\n",
	       rounds, cells, median(dec, rounds), median(line, rounds), median(sync, rounds),
	       median(disk, rounds));
	lp_sweep_journal_close(&jl, NULL);
	lp_sweep_run_free(&r);
	return 0;
}
