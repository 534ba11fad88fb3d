#!/bin/bash
# tier: quick
# The CI-sized run of the diagnosis simulator (seconds): at N = 8 and 5% noise, nodes slow as
# sender, receiver or both at 0.8x and 0.5x, and one-way links at 0.5x, are named with
# their kind at >= 99% and nothing is misattributed; healthy clusters flag nothing
# (scripts/diag-sim --quick asserts the targets).
# The check itself must fail on bad data: half the measurements outliers.
set -u
cd "$(dirname "$0")/../.."
B=${LP_BUILD:-build}
[ -x "$B/diag-sim" ] || { echo "$B/diag-sim not built (rdma-core headers missing?)"; exit 77; }
export ASAN_OPTIONS=detect_leaks=0
fails=0
if timeout 300 scripts/diag-sim --quick; then echo "ok   targets at N=8"; else echo "FAIL targets at N=8"; fails=1; fi
out=$(timeout 120 "$B/diag-sim" -n 8 -f none,src -s 0.8 -t 30 --outliers 0.5 --check 2>&1)
if [ $? = 1 ] && echo "$out" | grep -q MISSED; then
	echo "ok   the check fails on bad data (half the measurements outliers)"
else
	echo "FAIL the check did not fail on bad data"; echo "$out"; fails=1
fi
exit $fails
