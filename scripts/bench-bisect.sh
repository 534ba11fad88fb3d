#!/bin/bash
# The simulation benchmark of the collective search (docs/BENCHMARKS.md, "Collectives: the
# search"): build/coll-sim over fabrics of 16 to 1024 nodes, per-probe noise 2 to 10 %, faults
# of 0.8x (and 0.9x, 0.5x) on a node's egress, ingress or both, one ordered pair, or the nodes
# behind one uplink; healthy fabrics; without a reference (the parts compared with each other)
# and with one (a healthy fabric's ring busbw, as another rail gives it). Prints the table with
# the date, the machine and the commands. `scripts/bench-bisect.sh --quick` is the CI-sized run
# with --check (issue 28's target: the guilty part found in >= 95 % of runs at 0.8x, nothing
# named on a healthy fabric), at the noise the target is stated for (3 %).
set -eu
cd "$(dirname "$0")/.."
B=${LP_BUILD:-build}
[ -x "$B/coll-sim" ] || { echo "bench-bisect: $B/coll-sim not built (make)" >&2; exit 77; }
run() { echo "\$ coll-sim $*"; nice "$B/coll-sim" "$@"; echo; }
echo "# coll-sim $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -n): $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
if [ "${1:-}" = --quick ]; then
	run -n 64,256 --cv 0.03 -f none,egress,ingress,node,link,shared -s 0.8 -t 100 --check
	run -n 64,256 --cv 0.03 -f none,node,link,shared -s 0.8 -t 100 --ref --check
	exit
fi
ALL=none,egress,ingress,node,link,shared
run -n 16,64,256,1024 --cv 0.02,0.03,0.05,0.1 -f $ALL -s 0.8 -t 200
run -n 16,64,256,1024 --cv 0.02,0.03,0.05,0.1 -f $ALL -s 0.8 -t 200 --ref
run -n 64,1024 --cv 0.03 -f egress,node,link,shared -s 0.9,0.7,0.5 -t 200
