#!/bin/bash
# tier: guest
# Interval reports on real Soft-RoCE: two QEMU/TCG guests (scripts/lp-fabric -n 2; rxe talks to
# its own address through an internal loopback, so a rate limit on a link needs a second guest).
# In lpnode0 (tests/vm/ival-guest.sh): lp-rdma -D 6 --interval 1 gives 6 (+-1) intervals, printed
# while it runs and adding up to the run; a tbf rate limit on eth0 for 2 s of a second run shows as
# a dip (its min/max far below the unlimited run's); latency intervals (-q prints nothing); the
# server's own direction in bidir; lp-sweep cells with their worst and best interval.
# Exit 0 pass, 77 skipped (no qemu), else fail.
set -u
cd "$(dirname "$0")/../.."
. tests/host-lib.sh
host_needs qemu lp-rdma
host_out "" lp-ival-test
scripts/lp-fabric -n 2 --timeout 0 --idle "${LP_GUEST_IDLE:-300}" --rw "$out" "LP_BUILD=$B OUT=$out sh tests/vm/ival-guest.sh"
