#!/bin/bash
# tier: guest
# Counters and the pre-flight check on real Soft-RoCE: two QEMU/TCG guests on one virtual L2
# network (scripts/lp-fabric -n 2; rxe talks to its own address through an internal loopback,
# so loss on a link needs a second guest). In lpnode0 (tests/vm/counters-guest.sh):
#   lp-rdma --check on rxe0 (exit code and lines; MTU 1500 WARN, fixed by MTU 4200; netdev
#   down FAILs with exit 1), the cost of one counter snapshot, and rxe's hw_counters across
#   lp-rdma runs: still without loss, moving with netem loss on eth0; lp-rdma's own per-test
#   deltas of both sides in its JSON and the table line under a lossy test.
# Exit 0 pass, 77 skipped (no qemu), else fail.
set -u
cd "$(dirname "$0")/../.."
. tests/host-lib.sh
host_needs qemu lp-rdma
host_out "" lp-counters-test
scripts/lp-fabric -n 2 --timeout 0 --idle "${LP_GUEST_IDLE:-300}" --rw "$out" "LP_BUILD=$B OUT=$out sh tests/vm/counters-guest.sh"
