#!/bin/bash
# tier: quick
# The retest planner ranks suspects by evidence and gives the ones it reaches every round's retest
# (sweep/retest.c, docs/SWEEP.md step 13), through diag-sim (the engine's planner in process, the
# model transport's scenarios; seconds). At N = 128, 5 % noise, 2 % blips, the suspects (~430
# a run, ~325 of them transients at 0.3-0.8x) outnumber the retest budget (254 pairs): a link at
# 0.6x must be confirmed (link_slow) in at least 7 of 8 clusters, where the planner before it
# (--planner share: worst first, 2/3 of the time left a round) confirmed 0-1 of 8; at N = 64
# with two metrics (bandwidth and latency, 2 % transients in each) a 0.7x link slow in both is
# ranked on both and confirmed in at least 5 of 6 (the old planner, by the p-value against the
# noise, 0 of 6); healthy clusters at N = 64 and 128 (blips 2 %) get no confident name. The
# checks must fail on bad data: a planner blind to the evidence (--planner random) and the old
# one miss the links.
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
link2() { # planner: a 0.7x link in both metrics at N = 64, 6 clusters
	sim -n 64 --metrics 2 --blip 0.02 -f link -s 0.7 -t 6 --planner "$1"
}
confirms() { # line min%: found in at least min % of the clusters, no wrong name
	[ "$(echo "$1" | found | cut -d. -f1)" -ge "$2" ] && [ "$(echo "$1" | wrong)" = 0 ]
}
check() { # what setting min%
	local line bad
	line=$($2 ranked)
	if confirms "$line" "$3"; then
		echo "ok   ranked: $1 confirmed: $line"
	else
		echo "FAIL ranked: $1 not confirmed often enough: $line"; fails=1
	fi
	for bad in share random; do
		line=$($2 $bad)
		if confirms "$line" "$3"; then
			echo "FAIL the check did not fail on bad data (--planner $bad): $line"; fails=1
		else
			echo "ok   the check fails on bad data (--planner $bad): $line"
		fi
	done
}
check "a 0.6x link at N = 128" link 87
check "a 0.7x link in both metrics at N = 64" link2 83
out=$(sim -n 64,128 --blip 0.02 -f none -t 4)
if [ -n "$out" ] && ! echo "$out" | named | grep -qv '^0$'; then
	echo "ok   healthy clusters at N = 64, 128: no confident name"
else
	echo "FAIL a healthy cluster got a confident name:"; echo "$out"; fails=1
fi
exit $fails
