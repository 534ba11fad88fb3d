#!/bin/bash
# tier: quick
# The collective search on simulated fabrics of 64 and 256 nodes (scripts/bench-bisect.sh
# --quick): the guilty node, link or shared part found in >= 95 % of runs at 0.8x with 3 %
# probe noise, nothing named on a healthy fabric. Quick (seconds).
set -u
cd "$(dirname "$0")/../.."
B=${LP_BUILD:-build}
[ -x "$B/coll-sim" ] || { echo "$B/coll-sim not built (rdma-core headers missing?)"; exit 77; }
LP_BUILD=$B scripts/bench-bisect.sh --quick
