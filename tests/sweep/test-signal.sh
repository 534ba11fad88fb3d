#!/bin/bash
# tier: guest
# lp-sweep under SIGTERM/SIGINT: mpirun -np 2 inside one Soft-RoCE guest (both ranks on rxe0),
# tests/sweep/sweep-signal-guest.sh, then tests/sweep/sweep-survive-guest.sh. Exit 0 pass, 77 skipped (no qemu/MPI), else fail.
set -u
cd "$(dirname "$0")/../.."
. tests/host-lib.sh
host_needs qemu mpi lp-sweep
host_out "" lp-sweep-signal
# One boot for both: the signal checks, then the survival checks (issue 18: crash isolation,
# a rank killed, --diagnose JOURNAL, --resume), tests/sweep/sweep-survive-guest.sh
# (LP_SURVIVE_COST_RUNS: its isolation cost runs per mode, 1; 3 for docs/SWEEP.md's figures).
scripts/lp-vm --timeout 0 --idle "${LP_GUEST_IDLE:-300}" --rw "$out" "export LP_BUILD=$B OUT=$out ASAN_OPTIONS=detect_leaks=0 LP_SURVIVE_COST_RUNS=${LP_SURVIVE_COST_RUNS:-1}; sh tests/sweep/sweep-signal-guest.sh; a=\$?; sh tests/sweep/sweep-survive-guest.sh; exit \$((a + \$?))"
