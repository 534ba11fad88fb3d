#!/bin/bash
# The cost of lp-sweep's documents at scale: for each NODESxRAILS, a synthetic run
# (build/sweep-synth: every ordered pair within a rail, write_lat and write_bw) is written, then
# read, diagnosed and written again by `lp-sweep --diagnose`, under /usr/bin/time -v: document
# size, wall time and peak RSS. docs/SWEEP.md ("Documents at scale") has the figures.
#
#   scripts/sweep-doc-scale.sh [NODESxRAILS ...]     default: 32x2 64x2 128x2 256x2 128x8
set -eu
cd "$(dirname "$0")/.."
B=${LP_BUILD:-build}
[ -x "$B/sweep-synth" ] && [ -x "$B/lp-sweep" ] || { echo "build first (make)"; exit 77; }
T=$(mktemp -d /tmp/lp-scale-XXXXXX)
trap 'rm -rf "$T"' EXIT
printf '%-10s %10s %12s %10s %12s %10s\n' size cells "doc bytes" "diag s" "diag MiB" "B/cell"
[ $# -gt 0 ] || set -- 32x2 64x2 128x2 256x2 128x8
for s in "$@"; do
	n=${s%x*} r=${s#*x}
	"$B/sweep-synth" "$n" "$r" "$T/in.json"
	/usr/bin/time -v -o "$T/time" "$B/lp-sweep" --diagnose "$T/in.json" --json "$T/out.json" --quiet || true
	cells=$(python3 -c "import json; d=json.load(open('$T/in.json')); print(sum(b['sweep']['n'] for b in d['blocks']))")
	bytes=$(stat -c %s "$T/in.json")
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$T/time")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$T/time")
	printf '%-10s %10d %12d %10s %12d %10d\n' "$s" "$cells" "$bytes" "$wall" $((rss / 1024)) $((bytes / cells))
done
