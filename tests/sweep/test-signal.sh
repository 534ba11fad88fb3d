#!/bin/bash
# tier: guest
# lp-sweep under SIGTERM/SIGINT: mpirun -np 2 inside one Soft-RoCE guest (both ranks on rxe0),
# tests/sweep/sweep-signal-guest.sh, then tests/sweep/sweep-survive-guest.sh. Exit 0 pass, 77 skipped (no qemu/MPI), else fail.
set -u
cd "$(dirname "$0")/../.."
B=${LP_BUILD:-build}
command -v qemu-system-x86_64 >/dev/null || { echo "qemu-system-x86_64 not installed"; exit 77; }
command -v mpirun >/dev/null || { echo "Open MPI (mpirun) not installed"; exit 77; }
[ -x "$B/lp-sweep" ] || { echo "$B/lp-sweep not built (rdma-core or mpicc missing?)"; exit 77; }
out=$(mktemp -d "${TMPDIR:-/tmp}/lp-sweep-signal.XXXXXX")
trap 'rm -rf "$out"' EXIT
# One boot for both: the signal checks, then the survival checks (issue 18: crash isolation,
# a rank killed, --diagnose JOURNAL, --resume), tests/sweep/sweep-survive-guest.sh.
scripts/lp-vm --timeout 0 --idle "${LP_GUEST_IDLE:-300}" --rw "$out" "export LP_BUILD=$B OUT=$out ASAN_OPTIONS=detect_leaks=0; sh tests/sweep/sweep-signal-guest.sh; a=\$?; sh tests/sweep/sweep-survive-guest.sh; exit \$((a + \$?))"
