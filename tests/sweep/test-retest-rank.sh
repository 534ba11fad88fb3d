#!/bin/bash
# tier: quick
# The retest planner ranks suspects by evidence and gives the ones it reaches every round's retest
# (sweep/retest.c, docs/SWEEP.md step 13), through diag-sim (the engine's planner in process, the
# model transport's scenarios; seconds). At N = 128, 5 % noise, 2 % blips, the suspects (~430
# a run, ~325 of them transients at 0.3-0.8x) outnumber the retest budget (254 pairs): a link at
# 0.6x must be confirmed (link_slow) in at least 7 of 8 clusters, where the planner before it
# (--planner share: worst first, 2/3 of the time left a round) confirmed 0-1 of 8; healthy
# clusters at N = 64 and 128 (blips 2 %) get no confident name. The check must fail on bad
# data: a planner blind to the evidence (--planner random) and the old one miss the link.
set -u
cd "$(dirname "$0")/../.."
B=${LP_BUILD:-build}
[ -x "$B/diag-sim" ] || { echo "$B/diag-sim not built (rdma-core headers missing?)"; exit 77; }
export ASAN_OPTIONS=detect_leaks=0
fails=0
sim() { timeout 300 nice "$B/diag-sim" --cv 0.05 --seed 2 "$@" | tail -n +2; }
# found: the 'found' share of a setting's line; confident: its confident-runs count
found() { awk -F'|' '{ split($2, f, " "); sub("%", "", f[1]); print f[1] + 0 }'; }
named() { awk -F'|' '{ split($2, f, " "); print f[6] + 0 }'; }
wrong() { awk -F'|' '{ split($2, f, " "); print f[5] + 0 }'; }
link() { # planner: the 0.6x link's line at N = 128, 8 clusters
	sim -n 128 --blip 0.02 -f link -s 0.6 -t 8 --planner "$1"
}
confirms() { # line: found in >= 7 of 8 (87.5 %), no wrong name
	[ "$(echo "$1" | found | cut -d. -f1)" -ge 87 ] && [ "$(echo "$1" | wrong)" = 0 ]
}
line=$(link ranked)
if confirms "$line"; then
	echo "ok   ranked: a 0.6x link at N = 128 confirmed: $line"
else
	echo "FAIL ranked: a 0.6x link at N = 128 not confirmed often enough: $line"; fails=1
fi
for bad in share random; do
	line=$(link $bad)
	if confirms "$line"; then
		echo "FAIL the check did not fail on bad data (--planner $bad): $line"; fails=1
	else
		echo "ok   the check fails on bad data (--planner $bad): $line"
	fi
done
out=$(sim -n 64,128 --blip 0.02 -f none -t 4)
if [ -n "$out" ] && ! echo "$out" | named | grep -qv '^0$'; then
	echo "ok   healthy clusters at N = 64, 128: no confident name"
else
	echo "FAIL a healthy cluster got a confident name:"; echo "$out"; fails=1
fi
exit $fails
