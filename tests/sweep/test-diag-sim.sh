#!/bin/bash
# tier: quick
# The CI-sized run of the accuracy benchmark (seconds; scripts/bench-diag.sh is the full one):
# at N = 8 and 16, 5 % noise and 2 % blips, a node slow as client, server or both at 0.8x is named
# with its kind in >= 99 % of clusters and nothing is misattributed; at N = 4 a 0.8x node is found
# or said honestly (unconfirmed, inconclusive), never a wrong name; a leaf switch at 0.8x (N = 16)
# is one verdict naming it; healthy clusters get no confident verdict. The check must fail on
# bad data: half the attempts blips.
set -u
cd "$(dirname "$0")/../.."
B=${LP_BUILD:-build}
[ -x "$B/diag-sim" ] || { echo "$B/diag-sim not built (rdma-core headers missing?)"; exit 77; }
export ASAN_OPTIONS=detect_leaks=0
fails=0
run() { # what args...
	local what=$1; shift
	if timeout 300 nice "$B/diag-sim" "$@" --check; then echo "ok   $what"; else echo "FAIL $what"; fails=1; fi
}
run "nodes and healthy at N = 8, 16" -n 8,16 -f none,src,dst,both -s 0.8,0.5 -t 100
run "N = 4: found or honest, never a wrong name" -n 4 -f src,both -s 0.8 -t 100
run "a leaf switch at N = 16: one verdict, the right leaf" -n 16 -f leaf -s 0.8 -t 60
out=$(timeout 120 "$B/diag-sim" -n 8 -f none,src -s 0.8 -t 30 --blip 0.5 --check 2>&1)
if [ $? = 1 ] && echo "$out" | grep -q MISSED; then
	echo "ok   the check fails on bad data (half the attempts blips)"
else
	echo "FAIL the check did not fail on bad data"; echo "$out"; fails=1
fi
exit $fails
