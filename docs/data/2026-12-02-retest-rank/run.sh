#!/bin/bash
# The retest planner before and after (docs/SWEEP.md, "The retest planner at scale"): diag-sim,
# the engine's planner in process, 5 % noise, 2 % blips unless given. BEFORE: a build of the
# commit before the ranked planner (bc1c489: git worktree add /tmp/base bc1c489 && make -C
# /tmp/base build/diag-sim), AFTER: this tree's. 2026-12-02 16:06-16:33 UTC, the 2-core host,
# niced at load 10-12 (~25 min for both).
set -u
cd "$(dirname "$0")"
BEFORE=${BEFORE:-/tmp/base/build} AFTER=${AFTER:-../../../build}
for who in before after; do
	B=$AFTER; [ $who = before ] && B=$BEFORE
	for args in "-n 64,128 -f none --blip 0,0.005,0.02 -t 20" "-n 64,128 -f link -s 0.5,0.6,0.7,0.8 --blip 0.02 -t 20" \
		"-n 64,128 -f src,both -s 0.8 --blip 0.02 -t 10" "-n 64,128 --metrics 2 -f none,link -s 0.7,0.8 --blip 0.02 -t 10" \
		"-n 64,128 -f link -s 0 --blip 0.02 -t 10" "-n 8,16 -f none,link -s 0.8,0.5 --blip 0.02 -t 40"; do
		echo "\$ $who: diag-sim --cv 0.05 $args"
		nice -n 19 "$B/diag-sim" --cv 0.05 $args --csv "$who.csv"
	done
done
